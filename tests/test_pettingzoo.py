"""brett.pettingzoo: every game as a PettingZoo AEC environment (docs/rl.md)."""

from __future__ import annotations

import functools
import warnings
from typing import Any

import pytest

pytest.importorskip("pettingzoo")
np = pytest.importorskip("numpy")

from pettingzoo.test import api_test, render_test, seed_test  # noqa: E402

import brett  # noqa: E402
from brett.pettingzoo import env, raw_env  # noqa: E402
from conftest import SETUPS  # noqa: E402

# What api_test says of every Dict observation (its own classic games are
# exempt by name): anything else it warns about is a fault.
EXPECTED_WARNINGS = ("Observation is not a NumPy array",
                     "Observation space for each agent probably should be")


def play(aec: Any, seed: int, limit: int = 10**6) -> list[tuple[Any, ...]]:
    """Run an episode with random legal actions (from ``seed``); the trajectory."""
    rng = np.random.default_rng(seed)
    seen = []
    for agent in aec.agent_iter(limit):
        observation, reward, terminated, truncated, info = aec.last()
        if terminated or truncated:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        seen.append((agent, action, reward, terminated, truncated, repr(info),
                     observation["observation"].tobytes()))
        aec.step(action)
    return seen


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_pettingzoo_checks_pass(setup: str) -> None:
    name, options = SETUPS[setup]
    make = functools.partial(env, name, **options)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(make(), num_cycles=300)
        seed_test(make, num_cycles=300)
        render_test(make, custom_tests={"svg": lambda r: r.startswith("<svg"),
                                        "ansi": lambda r: "\n" in r})
    unexpected = {str(w.message) for w in caught
                  if not str(w.message).startswith(EXPECTED_WARNINGS)}
    assert unexpected == set()


def test_env_is_an_aec_env_with_the_documented_spaces() -> None:
    aec = env("focus", players=3)
    assert isinstance(aec, raw_env)
    game = brett.Focus(players=3)
    assert aec.possible_agents == ["player_0", "player_1", "player_2"]
    space = aec.observation_space("player_1")
    assert space["observation"].shape == game.observation_tensor_shape()
    assert space["observation"].dtype == np.float32
    assert space["action_mask"].dtype == np.int8
    assert space["action_mask"].shape == (game.num_distinct_actions(),)
    assert aec.action_space("player_2").n == game.num_distinct_actions()
    assert str(aec) == "brett_focus_v0"


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_mask_and_observation_follow_the_game(setup: str) -> None:
    name, options = SETUPS[setup]
    aec = env(name, **options)
    aec.reset(seed=11)
    rng = np.random.default_rng(3)
    for agent in aec.agent_iter(150):
        observation, _, terminated, truncated, _ = aec.last()
        if terminated or truncated:
            aec.step(None)
            continue
        game = aec.game
        assert f"player_{game.current_player()}" == agent
        legal = game.legal_actions()
        assert np.flatnonzero(observation["action_mask"]).tolist() == legal
        assert observation["action_mask"].dtype == np.int8
        np.testing.assert_array_equal(observation["observation"], game.observation_tensor())
        assert observation in aec.observation_space(agent)
        for other in aec.agents:
            if other != agent:  # only the agent to act has legal actions
                assert not aec.observe(other)["action_mask"].any()
        aec.step(int(rng.choice(legal)))


@pytest.mark.parametrize("setup", ["schuft", "focus-mirror-swap-cap", "phutball-9x9"])
def test_a_seed_makes_the_episode_reproducible(setup: str) -> None:
    name, options = SETUPS[setup]
    first, second = env(name, **options), env(name, **options)
    first.reset(seed=5)
    second.reset(seed=5)
    assert play(first, 1, 400) == play(second, 1, 400)
    # A seedless reset goes on from the generator: the same on both.
    first.reset()
    second.reset()
    assert first.game.position() == second.game.position()


def test_the_seed_draws_the_games_random_options() -> None:
    """Random holes: the environment's seed decides them unless the options fix one."""
    aec = env("reversi", size=12, holes="random")
    positions = set()
    for seed in (1, 2, 3, 4):
        aec.reset(seed=seed)
        positions.add(aec.game.position())
        aec.reset(seed=seed)
        assert aec.game.position() in positions
    assert len(positions) > 1
    fixed = env("reversi", size=12, holes="random", seed=4)
    starts = set()
    for seed in (1, 2):
        fixed.reset(seed=seed)
        starts.add(fixed.game.position())
    assert starts == {brett.Reversi(size=12, holes="random", seed=4).position()}


def test_chance_outcomes_are_drawn_by_the_seed_and_shown_in_infos() -> None:
    aec = env("schuft", players=3, first_player="roll")
    aec.reset(seed=2)
    reported = [c["move"] for c in aec.infos["player_0"]["chance"]]
    assert len(reported) >= 3  # the roll-off: everyone rolls, then the first turn's roll
    assert all(aec.infos[a] == aec.infos["player_0"] for a in aec.agents)
    rng = np.random.default_rng(0)
    for _ in range(200):
        observation = aec.observe(aec.agent_selection)
        aec.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        if not aec.agents or aec.terminations[aec.agent_selection]:
            break
        reported += [c["move"] for c in aec.infos[aec.agent_selection]["chance"]]
    from brett.schuft import Roll

    rolls = [str(m) for m in aec.game.move_stack if isinstance(m, Roll)]
    assert reported == rolls and len(rolls) > 10
    again = env("schuft", players=3, first_player="roll")
    again.reset(seed=3)
    other = [c["move"] for c in again.infos["player_0"]["chance"]]
    assert other != reported[:len(other)]


def test_an_illegal_action_raises_and_changes_nothing() -> None:
    aec = env("focus")
    aec.reset(seed=0)
    before = (aec.game.position(), aec.agent_selection, dict(aec.rewards))
    mask = aec.observe(aec.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(brett.IllegalMoveError):
        aec.step(illegal)
    for bad in (-1, mask.size, "c3-c4", 2.5, True):
        with pytest.raises(brett.InvalidMoveError):
            aec.step(bad)
    with pytest.raises(brett.BrettError):
        aec.step(None)
    assert (aec.game.position(), aec.agent_selection, dict(aec.rewards)) == before
    aec.step(int(np.flatnonzero(mask)[0]))  # still playable
    assert aec.game.position() != before[0]


def test_bad_arguments_raise_brett_errors() -> None:
    with pytest.raises(brett.BrettError):
        env("chess")
    with pytest.raises(brett.BrettError):
        env("reversi", size=5)
    with pytest.raises(brett.BrettError):
        env("reversi", colour="red")
    with pytest.raises(brett.BrettError):
        env("reversi", render_mode="rgb_array")
    with pytest.raises(brett.BrettError):
        env("reversi", max_cycles=0)
    aec = env("reversi")
    for call in (lambda: aec.step(0), lambda: aec.observe("player_0"), lambda: aec.game):
        with pytest.raises(brett.BrettError):
            call()
    with pytest.raises(brett.BrettError):
        aec.observation_space("player_2")


def test_a_whole_game_ends_with_the_games_returns() -> None:
    aec = env("reversi", size=6)
    aec.reset(seed=7)
    totals: dict[str, float] = {}
    final = None
    rng = np.random.default_rng(7)
    for agent in aec.agent_iter():
        observation, reward, terminated, truncated, _ = aec.last()
        totals[agent] = totals.get(agent, 0.0) + reward
        assert not truncated
        if terminated:
            final = final or aec.game
            aec.step(None)
        else:
            aec.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    assert aec.agents == [] and final is not None and final.is_over()
    returns = final.returns()
    assert [totals[f"player_{p}"] for p in range(2)] == returns
    black, white = final.outcome().scores
    assert returns[0] == (0.0 if black == white else 1.0 if black > white else -1.0)


def test_a_phutball_jump_is_several_steps_of_one_agent() -> None:
    aec = env("phutball", columns=9, rows=9)
    aec.reset(seed=0)
    rules = brett.Phutball(columns=9, rows=9)
    n = 9 * 9
    aec.step(rules.move_to_action("e6"))
    aec.step(rules.move_to_action("e8"))
    assert aec.agent_selection == "player_0"
    aec.step(n + 0)  # jump north over e6
    assert aec.agent_selection == "player_0" and aec.game.pending_actions == (n,)
    mask = aec.observe("player_0")["action_mask"]
    assert np.flatnonzero(mask).tolist() == [n + 0, n + 8]  # jump on, or stop
    assert not aec.observe("player_1")["action_mask"].any()
    aec.step(n + 0)  # over e8 onto the goal line
    assert not any(aec.terminations.values())
    aec.step(n + 8)  # stop: the path is one move, and player 0 has won
    assert [str(m) for m in aec.game.move_stack] == ["e6", "e8", "e5-e7-e9"]
    assert aec.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert all(aec.terminations.values())


def test_four_player_focus_rewards_teams() -> None:
    aec = env("focus", players=4)
    aec.reset(seed=4)
    trajectory = play(aec, 4)
    game = aec.game
    assert game.is_over() and aec.agents == []
    returns = game.returns()
    assert returns[0] == returns[2] == -returns[1] == -returns[3] != 0.0
    rewards = {p: sum(step[2] for step in trajectory if step[0] == f"player_{p}")
               for p in range(4)}
    assert [rewards[p] for p in range(4)] == returns


def test_max_cycles_truncates() -> None:
    aec = env("phutball", max_cycles=5)
    aec.reset(seed=0)
    trajectory = play(aec, 0)
    actions = [step for step in trajectory if step[1] is not None]
    assert len(actions) == 5
    assert all(step[4] for step in trajectory[5:])  # truncated, not terminated
    assert not any(step[3] for step in trajectory)
    assert all(step[2] == 0 for step in trajectory)


def test_render_modes(capsys: pytest.CaptureFixture[str]) -> None:
    for mode, check in (("ansi", str), ("svg", brett.svg)):
        aec = env("schuft", render_mode=mode)
        aec.reset(seed=1)
        assert aec.render() == check(aec.game)
    human = env("reversi", render_mode="human")
    human.reset(seed=1)
    capsys.readouterr()
    assert human.render() is None
    assert capsys.readouterr().out.strip() == str(human.game).strip()
    assert env("reversi").render() is None  # no render mode: nothing
