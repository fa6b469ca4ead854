"""brett.gymnasium: every game as a single-agent Gymnasium environment (docs/rl.md)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

gymnasium = pytest.importorskip("gymnasium")
np = pytest.importorskip("numpy")

from gymnasium.utils.env_checker import check_env  # noqa: E402

import brett  # noqa: E402
from brett.ai import RandomPlayer  # noqa: E402
from brett.gymnasium import BrettEnv, env_id  # noqa: E402
from conftest import SETUPS  # noqa: E402


def episode(env: Any, seed: int, rng_seed: int = 0) -> tuple[list[Any], float, dict[str, Any]]:
    """One episode of random legal actions: the steps, the last reward and info."""
    rng = np.random.default_rng(rng_seed)
    observation, info = env.reset(seed=seed)
    steps: list[Any] = [repr(info)]
    reward, done = 0.0, False
    while not done:
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        observation, reward, terminated, truncated, info = env.step(action)
        steps.append((action, reward, terminated, truncated, repr(info),
                      observation["observation"].tobytes()))
        done = terminated or truncated
    return steps, float(reward), info


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_gymnasium_check_env_passes(setup: str) -> None:
    name, options = SETUPS[setup]
    env = gymnasium.make(env_id(name), **options)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)  # with the spec: every render mode is tried too
    assert [str(w.message) for w in caught] == []
    env.close()


def test_the_ids_are_registered() -> None:
    assert [env_id(name) for name in brett.GAMES] == [
        "brett/Reversi-v0", "brett/Focus-v0", "brett/Phutball-v0", "brett/Schuft-v0"]
    for name in brett.GAMES:
        env = gymnasium.make(env_id(name))
        assert isinstance(env.unwrapped, BrettEnv)
        env.reset(seed=0)
        assert env.unwrapped.game.game_name == name
        game = brett.GAMES[name]()
        assert env.action_space.n == game.num_distinct_actions()
        assert env.observation_space["observation"].shape == game.observation_tensor_shape()
    small = gymnasium.make("brett/Reversi-v0", size=6)
    small.reset(seed=0)
    assert small.unwrapped.game.position() == brett.Reversi(size=6).position()


@pytest.mark.parametrize("setup", ["reversi-6-holes", "schuft", "focus-mirror-swap-cap",
                                   "phutball-cap"])
def test_whole_games_are_reproducible_and_end_with_the_agents_return(setup: str) -> None:
    name, options = SETUPS[setup]
    first = BrettEnv(name, agent_player="random", **options)
    second = BrettEnv(name, agent_player="random", **options)
    steps, reward, info = episode(first, 9)
    assert episode(second, 9) == (steps, reward, info)
    game = first.game
    assert game.is_over()
    assert reward == game.returns()[info["agent_player"]]
    assert first.agent_player == info["agent_player"]
    with pytest.raises(brett.BrettError):
        first.step(0)  # over: reset first


def test_the_mask_is_the_agents_legal_actions_and_opponents_move_between() -> None:
    env = BrettEnv("focus", players=3, agent_player=1, max_plies=60)
    observation, info = env.reset(seed=2)
    rng = np.random.default_rng(2)
    assert [m["player"] for m in info["opponent_moves"]] == [0]
    for _ in range(15):
        game = env.game
        assert game.current_player() == 1
        assert np.flatnonzero(observation["action_mask"]).tolist() == game.legal_actions()
        np.testing.assert_array_equal(observation["observation"], game.observation_tensor())
        observation, _, terminated, _, info = env.step(
            int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        if terminated:
            break
        moves = [m["move"] for m in info["opponent_moves"]]
        assert moves and [str(m) for m in env.game.move_stack[-len(moves):]] == moves
        assert all(m["player"] != 1 for m in info["opponent_moves"])


def test_chance_is_drawn_inside_and_reported() -> None:
    env = BrettEnv("schuft", players=2, first_player="roll")
    observation, info = env.reset(seed=4)
    reported = [c["move"] for c in info["chance"]]
    assert len(reported) >= 3  # the roll-off and the first roll
    rng = np.random.default_rng(4)
    done = False
    while not done:
        observation, _, terminated, truncated, info = env.step(
            int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        reported += [c["move"] for c in info["chance"]]
        done = terminated or truncated
    from brett.schuft import Roll

    assert reported == [str(m) for m in env.game.move_stack if isinstance(m, Roll)]


def test_illegal_actions() -> None:
    env = BrettEnv("reversi", size=6)
    observation, _ = env.reset(seed=0)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    before = env.game.position()
    observation, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert env.game.position() == before and not observation["action_mask"].any()
    strict = BrettEnv("reversi", size=6, illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(brett.IllegalMoveError):
        strict.step(illegal)
    for bad in (-1, 10**6, "d3", None, 1.5):
        with pytest.raises(brett.InvalidMoveError):
            strict.step(bad)
    assert strict.game.position() == before
    legal = int(np.flatnonzero(strict.game.legal_actions_mask())[0])
    assert strict.step(legal)[2] is False


def test_bad_arguments_raise_brett_errors() -> None:
    for kwargs in ({"game": "go"}, {"game": "reversi", "opponent": "strong"},
                   {"game": "reversi", "opponent": 11}, {"game": "reversi", "agent_player": 2},
                   {"game": "reversi", "agent_player": True},
                   {"game": "reversi", "illegal_action": "ignore"},
                   {"game": "reversi", "render_mode": "rgb_array"},
                   {"game": "focus", "players": 5}, {"game": "focus", "size": 6}):
        with pytest.raises(brett.BrettError):
            BrettEnv(**kwargs)
    env = BrettEnv("reversi")
    for call in (lambda: env.step(0), lambda: env.game, lambda: env.agent_player):
        with pytest.raises(brett.BrettError):
            call()


def test_an_mcts_opponent_plays_a_seeded_game() -> None:
    env = BrettEnv("phutball", opponent=1, columns=9, rows=9, agent_player=1, max_plies=30)
    steps, reward, info = episode(env, 1)
    game = env.game
    assert game.is_over() and reward == game.returns()[1]
    again = BrettEnv("phutball", opponent=1, columns=9, rows=9, agent_player=1, max_plies=30)
    assert episode(again, 1) == (steps, reward, info)  # level 1: 10 iterations, seeded


def test_a_player_object_as_opponent() -> None:
    env = BrettEnv("focus", players=4, opponent=RandomPlayer(seed=1), agent_player=3)
    _, info = env.reset(seed=0)
    assert [m["player"] for m in info["opponent_moves"]] == [0, 1, 2]
    _, reward, _ = episode(env, 3)
    game = env.game
    assert game.is_over() and reward == game.returns()[3] != 0.0
    returns = game.returns()
    assert returns[3] == returns[1] == -returns[0] == -returns[2]  # teams: 0+2 against 1+3


def test_render_modes(capsys: pytest.CaptureFixture[str]) -> None:
    ansi = gymnasium.make("brett/Schuft-v0", render_mode="ansi")
    ansi.reset(seed=0)
    assert ansi.render() == str(ansi.unwrapped.game)
    svg = gymnasium.make("brett/Phutball-v0", render_mode="svg")
    svg.reset(seed=0)
    assert svg.render() == brett.svg(svg.unwrapped.game)
    human = BrettEnv("reversi", render_mode="human")
    human.reset(seed=0)
    assert capsys.readouterr().out.strip() == str(human.game).strip()  # shown at reset
    assert human.render() is None
