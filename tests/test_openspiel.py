"""brett.openspiel: every game as an OpenSpiel game, checked by OpenSpiel's own
tests (random_sim_test), its serialization, its algorithms (MCTSBot,
evaluate_bots) and against OpenSpiel's native othello."""

from __future__ import annotations

import random
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel")
np = pytest.importorskip("numpy")

import brett  # noqa: E402
import brett.openspiel as bo  # noqa: E402
from conftest import SETUPS  # noqa: E402

Utility = pyspiel.GameType.Utility


def os_params(name: str, options: dict[str, Any]) -> dict[str, Any]:
    """A SETUPS entry's options as OpenSpiel parameters (docs/rl.md)."""
    params: dict[str, Any] = {}
    for key, value in options.items():
        if key == "first_player" and value == "roll":
            key, value = "roll_off", True
        if isinstance(value, list):
            value = ";".join(value)
        if key in bo.PARAMETERS[bo.PREFIX + name]:
            params[key] = value
    return params


def load(setup: str, backend: str | None = None, **extra: Any) -> Any:
    name, options = SETUPS[setup]
    params = {**os_params(name, options), **extra}
    if backend is None:
        return pyspiel.load_game(bo.PREFIX + name, params)
    return bo.load(name, params, backend=backend)


def walk(state: Any, rng: random.Random, steps: int) -> Any:
    """Play ``steps`` random actions (chance by its probabilities)."""
    for _ in range(steps):
        if state.is_terminal():
            break
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def play_out(state: Any, rng: random.Random) -> Any:
    while not state.is_terminal():
        walk(state, rng, 1)
    return state


# ------------------------------------------------------------------ registration
def test_every_game_is_registered_once() -> None:
    names = bo.register()
    assert names == [bo.PREFIX + n for n in brett.GAMES]
    assert bo.register() == names  # idempotent
    registered = pyspiel.registered_names()
    for name in names:
        assert registered.count(name) == 1
        game = pyspiel.load_game(name)
        assert isinstance(game, bo.GAME_CLASSES[name])
        assert game.get_type().parameter_specification == bo.PARAMETERS[name]


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_game_string_round_trip(setup: str) -> None:
    """The game string (OpenSpiel's serialization of a game) loads the same
    game: lists are written with ';', not OpenSpiel's ',' between parameters."""
    game = load(setup)
    again = pyspiel.load_game(str(game))
    assert str(again) == str(game)
    assert again.get_parameters() == game.get_parameters()
    assert again.brett_options == game.brett_options
    assert str(again.new_initial_state()) == str(game.new_initial_state())


# ------------------------------------------------------------------ types and utilities
@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_game_type_and_info_tell_the_truth(setup: str) -> None:
    name = SETUPS[setup][0]
    game = load(setup)
    proto = brett.GAMES[name](**game.brett_options)
    kind = game.get_type()
    assert kind.short_name == bo.PREFIX + name
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    chance = pyspiel.GameType.ChanceMode
    assert kind.chance_mode == (chance.EXPLICIT_STOCHASTIC if proto.has_chance
                                else chance.DETERMINISTIC)
    assert game.num_players() == proto.num_players()
    assert game.num_distinct_actions() == proto.num_distinct_actions()
    assert (game.min_utility(), game.max_utility()) == (-1.0, 1.0)
    zero_sum = proto.num_players() == 2 or (name == "focus" and proto.teams
                                            and proto.num_players() == 4)
    assert kind.utility == (Utility.ZERO_SUM if zero_sum else Utility.GENERAL_SUM)
    assert game.utility_sum() == (0.0 if zero_sum else None)
    assert game.observation_tensor_shape() == list(proto.observation_tensor_shape())
    if proto.has_chance:
        state = proto
        while not state.is_chance_node():
            state.apply_action(state.legal_actions()[0])
        assert game.max_chance_outcomes() == len(state.chance_outcomes())
    else:
        assert game.max_chance_outcomes() == 0


def finished(params: dict[str, Any], name: str, seed: int) -> Any:
    """A random game of ``name`` played to its end without reaching the cap."""
    game = pyspiel.load_game(bo.PREFIX + name, params)
    rng = random.Random(seed)
    for _ in range(20):
        state = play_out(game.new_initial_state(), rng)
        if state.brett_game.outcome().winners:
            return game, state
    raise AssertionError("every game reached the cap")


@pytest.mark.parametrize(("name", "params", "winners"), [
    ("focus", {"players": 3, "max_plies": 200_000}, 1),
    ("focus", {"players": 4, "teams": False, "max_plies": 200_000}, 1),
    ("focus", {"players": 4, "max_plies": 200_000}, 2),
    ("focus", {"max_plies": 200_000}, 1),
    ("schuft", {"players": 3}, 1),
    ("schuft", {"players": 4}, 1),
    ("schuft", {}, 1),
])
def test_returns_of_finished_games_fit_the_utility(name: str, params: dict[str, Any],
                                                   winners: int) -> None:
    """A won game: +1 for the winners, -1 for everyone else, so 3 players and
    the free-for-all are general-sum, teams and two players zero-sum."""
    game, state = finished(params, name, seed=1)
    returns = state.returns()
    assert sorted(returns, reverse=True) == [1.0] * winners + [-1.0] * (len(returns) - winners)
    assert all(game.min_utility() <= r <= game.max_utility() for r in returns)
    if game.get_type().utility == Utility.ZERO_SUM:
        assert sum(returns) == game.utility_sum() == 0.0
    else:
        assert sum(returns) != 0.0 and game.utility_sum() is None


def test_a_draw_at_the_cap_gives_zeros() -> None:
    game = pyspiel.load_game("brett_focus", {"players": 3, "max_plies": 5})
    state = play_out(game.new_initial_state(), random.Random(1))
    assert len(state.history()) == game.max_game_length() == 5
    assert state.returns() == [0.0, 0.0, 0.0]


# ------------------------------------------------------------------ OpenSpiel's own tests
@pytest.mark.parametrize("serialize", [True, False])
@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_random_sim_test(setup: str, serialize: bool) -> None:
    pyspiel.random_sim_test(load(setup), num_sims=1, serialize=serialize, verbose=False)


@pytest.mark.parametrize(("setup", "extra"), [
    ("reversi-6-holes", {}), ("reversi", {}), ("schuft", {"max_plies": 60}),
    ("schuft-4p-roll-off", {}), ("phutball-9x9", {"max_plies": 40}),
    ("focus-mirror-swap-cap", {}),
])
def test_random_sim_test_on_the_plain_twin(setup: str, extra: dict[str, Any]) -> None:
    game = load(setup, backend="python", **extra)
    assert game.brett_class.backend() == "python"
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize(("setup", "cap", "per_ply"), [
    ("phutball-9x9", 12, 2), ("schuft", 6, 4), ("focus-3p", 7, 1)])
def test_short_caps_bound_the_length(setup: str, cap: int, per_ply: int) -> None:
    """``max_game_length`` is ``per_ply`` actions a ply: random games with a
    short cap stay within it (random_sim_test checks the same at its end)."""
    game = load(setup, max_plies=cap)
    assert game.max_game_length() == per_ply * cap
    rng = random.Random(3)
    for _ in range(30):
        state = play_out(game.new_initial_state(), rng)
        decisions = [pa.action for pa in state.full_history() if pa.player >= 0]
        assert len(decisions) <= game.max_game_length()


def test_a_schuft_turn_takes_at_most_four_actions() -> None:
    game = load("schuft", max_plies=300)
    rng = random.Random(5)
    longest = 0
    for _ in range(3):
        state = game.new_initial_state()
        run = 0
        while not state.is_terminal():
            run = 0 if state.is_chance_node() else run + 1
            longest = max(longest, run)
            walk(state, rng, 1)
    assert 3 <= longest <= 4


def test_phutball_actions_stay_within_twice_the_plies() -> None:
    """Jumps remove men placed before: a game of p plies has at most 2p actions,
    even on a small board where the ball jumps a lot."""
    game = pyspiel.load_game("brett_phutball", {"columns": 5, "rows": 7, "max_plies": 400})
    rng = random.Random(7)
    jumps = 0
    for _ in range(40):
        state = play_out(game.new_initial_state(), rng)
        plies = len(state.brett_game.move_stack)
        assert len(state.history()) <= 2 * plies
        jumps += len(state.history()) - plies
    assert jumps > 40  # the ball moved, and more than once a game


def test_reversi_bound_counts_the_empty_squares() -> None:
    for params, empty in [({}, 60), ({"size": 6, "holes": "a1;f6"}, 30),
                          ({"board": "octagon", "handicap": 2}, 100 - 12 - 6)]:
        assert pyspiel.load_game("brett_reversi", params).max_game_length() == 2 * empty


# ------------------------------------------------------------------ states
def test_a_phutball_jump_keeps_the_player_to_move() -> None:
    game = pyspiel.load_game("brett_phutball", {"columns": 9, "rows": 9})
    state = game.new_initial_state()
    n = 9 * 9
    for action in (49, 0):  # a man above the ball (on e5): e6; then a1
        state.apply_action(action)
    jump = n + 0  # north
    assert jump in state.legal_actions()
    state.apply_action(jump)
    assert state.current_player() == 0  # the same player, the move is pending
    assert state.legal_actions() == [a for a in state.legal_actions() if a >= n]
    assert n + 8 in state.legal_actions()  # stop
    assert state.action_to_string(n + 8) == "e5-e7"
    state.apply_action(n + 8)
    assert state.current_player() == 1


def test_schuft_chance_nodes_and_roll_off() -> None:
    game = pyspiel.load_game("brett_schuft", {"players": 3, "roll_off": True})
    state = game.new_initial_state()
    assert state.is_chance_node() and state.current_player() == pyspiel.PlayerId.CHANCE
    outcomes = state.chance_outcomes()
    assert [a for a, _ in outcomes] == list(range(216))
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    assert state.action_to_string(outcomes[0][0]) == "1-1-2"
    rolls = 0
    while state.is_chance_node():  # every player rolls, ties again, then the first turn
        walk(state, random.Random(rolls), 1)
        rolls += 1
    assert rolls >= 4 and state.current_player() in (0, 1, 2)


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_serialization_round_trips_midway_and_plays_on_alike(setup: str) -> None:
    """pyspiel.serialize_game_and_state and back, in the middle of a move too
    (Phutball's jumps, a half-played Schuft turn): the same state, which then
    plays the same actions to the same end."""
    game = load(setup, max_plies=120) if "max_plies" in bo.PARAMETERS[
        bo.PREFIX + SETUPS[setup][0]] else load(setup)
    rng = random.Random(11)
    state = game.new_initial_state()
    checked = pending = 0
    while not state.is_terminal() and checked < 12:
        walk(state, rng, rng.randint(1, 15))
        text = pyspiel.serialize_game_and_state(game, state)
        game2, state2 = pyspiel.deserialize_game_and_state(text)
        assert str(game2) == str(game)
        assert str(state2) == str(state) and state2.history() == state.history()
        assert state2.current_player() == state.current_player()
        assert state2.legal_actions() == state.legal_actions()
        assert state2.returns() == state.returns()
        assert state2.observation_tensor(0) == state.observation_tensor(0)
        pending += bool(state.brett_game.pending_actions)
        checked += 1
        seed = rng.random()
        end, end2 = (play_out(s, random.Random(seed)) for s in (state.clone(), state2))
        assert end.history() == end2.history() and end.returns() == end2.returns()
    assert checked >= 3
    if SETUPS[setup][0] == "schuft":
        assert pending  # a turn was cut in the middle at least once


def test_serialized_states_keep_their_backend() -> None:
    game = bo.load("schuft", {"players": 2}, backend="python")
    state = walk(game.new_initial_state(), random.Random(2), 3)
    _, again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert type(again.brett_game).backend() == "python"
    assert str(again) == str(state)


def test_stepping_never_reads_or_writes_position_strings(monkeypatch: Any) -> None:
    """The per-call path (actions, players, returns, observations, clones)
    works on the live game: with position strings out of order it still runs."""
    game = pyspiel.load_game("brett_schuft", {"players": 3, "max_plies": 30})

    def refuse(*args: Any) -> Any:
        raise AssertionError("a position string on the stepping path")

    for cls in {brett.Schuft, game.brett_class}:
        monkeypatch.setattr(cls, "position", refuse)
        monkeypatch.setattr(cls, "from_position", classmethod(refuse))
    state = game.new_initial_state()
    rng = random.Random(8)
    while not state.is_terminal():
        state.observation_tensor(0)
        state = state.clone()
        walk(state, rng, 1)
    assert len(state.returns()) == 3


def test_games_and_states_pickle() -> None:
    import pickle

    game = bo.load("reversi", {"size": 6, "holes": "a1;f6"}, backend="python")
    again = pickle.loads(pickle.dumps(game))
    assert str(again) == str(game) and again.brett_class is game.brett_class
    assert again.new_initial_state().brett_game.holes == ["a1", "f6"]
    state = walk(pyspiel.load_game("brett_phutball", {"columns": 9, "rows": 9})
                 .new_initial_state(), random.Random(1), 5)
    copied = pickle.loads(pickle.dumps(state))
    assert str(copied) == str(state) and copied.history() == state.history()


def test_clones_are_independent() -> None:
    game = pyspiel.load_game("brett_reversi")
    state = game.new_initial_state()
    clone = state.clone()
    clone.apply_action(19)
    assert state.legal_actions() == [19, 26, 37, 44] and state.history() == []
    assert clone.history() == [19] and clone.current_player() == 1
    again = clone.clone()
    again.apply_action(again.legal_actions()[0])
    assert clone.history() == [19] and len(again.history()) == 2


def test_observations_are_brett_s_from_the_movers_view() -> None:
    game = pyspiel.load_game("brett_focus", {"players": 3})
    state = walk(game.new_initial_state(), random.Random(4), 9)
    expected = state.brett_game.observation_tensor().ravel().tolist()
    for player in range(3):
        assert state.observation_tensor(player) == expected
        assert state.observation_string(player) == state.brett_game.position()
    assert state.information_state_string(0) == state.history_str()


def test_undo_is_not_offered() -> None:
    """OpenSpiel does not pass UndoAction to Python games: it raises."""
    state = pyspiel.load_game("brett_reversi").new_initial_state()
    state.apply_action(19)
    with pytest.raises(pyspiel.SpielError):
        state.undo_action(0, 19)


def test_illegal_actions_raise_brett_errors_and_change_nothing() -> None:
    state = pyspiel.load_game("brett_reversi").new_initial_state()
    with pytest.raises(brett.IllegalMoveError):
        state.apply_action(0)
    with pytest.raises(brett.BrettError):
        state.apply_action(65)
    assert state.history() == [] and state.legal_actions() == [19, 26, 37, 44]
    assert state.action_to_string(0, 99) == "action 99"


# ------------------------------------------------------------------ parameters
@pytest.mark.parametrize(("name", "params"), [
    ("brett_reversi", {"size": 5}),
    ("brett_reversi", {"board": "hexagon"}),
    ("brett_reversi", {"board": "octagon", "size": 8}),
    ("brett_reversi", {"holes": "d4"}),
    ("brett_reversi", {"holes": "b2", "num_holes": 2}),
    ("brett_reversi", {"num_holes": 9}),
    ("brett_focus", {"players": 5}),
    ("brett_focus", {"max_plies": 0}),
    ("brett_focus", {"players": 3, "swap": "random"}),
    ("brett_focus", {"move_rule": "jump"}),
    ("brett_phutball", {"columns": 4}),
    ("brett_phutball", {"ball": "a1"}),
    ("brett_phutball", {"max_plies": 2**30}),
    ("brett_schuft", {"first_player": 2}),
    ("brett_schuft", {"first_player": 1, "roll_off": True}),
    ("brett_schuft", {"max_plies": 2**29}),
])
def test_bad_values_raise_brett_errors(name: str, params: dict[str, Any]) -> None:
    with pytest.raises(brett.BrettError):
        pyspiel.load_game(name, params)


@pytest.mark.parametrize(("name", "params"), [
    ("brett_reversi", {"size": "6"}),
    ("brett_reversi", {"holes": ["a1"]}),
    ("brett_focus", {"teams": 1}),
    ("brett_schuft", {"first_player": "roll"}),
    ("brett_phutball", {"seed": 1}),
    ("brett_reversi", {"colour": "black"}),
])
def test_unknown_names_and_wrong_types_are_refused_by_openspiel(
        name: str, params: dict[str, Any]) -> None:
    with pytest.raises(pyspiel.SpielError):
        pyspiel.load_game(name, params)


def test_direct_construction_checks_too() -> None:
    with pytest.raises(brett.BrettError):
        bo.GAME_CLASSES["brett_reversi"]({"size": "6"})
    with pytest.raises(brett.BrettError):
        bo.GAME_CLASSES["brett_reversi"]({"colour": "black"})
    with pytest.raises(brett.BrettError):
        bo.load("chess")
    with pytest.raises(brett.BrettError):
        pyspiel.load_game("brett_reversi").new_initial_state("x")


def test_parameters_mean_the_options() -> None:
    game = pyspiel.load_game("brett_reversi", {"size": 6, "holes": " A1, f6 ", "anti": True})
    assert str(game) == "brett_reversi(anti=True,holes=a1;f6,size=6)"
    assert game.brett_options["holes"] == ["a1", "f6"]
    board = game.new_initial_state().brett_game
    assert board.holes == ["a1", "f6"] and board.anti and board.size == 6
    game = pyspiel.load_game("brett_reversi", {"board": "octagon"})
    assert game.new_initial_state().brett_game.size == 10
    holes = [pyspiel.load_game("brett_reversi", {"num_holes": 3, "seed": s})
             .new_initial_state().brett_game.holes for s in (1, 1, 2)]
    assert len(holes[0]) == 3 and holes[0] == holes[1] != holes[2]
    schuft = pyspiel.load_game("brett_schuft", {"players": 3, "first_player": 2})
    assert schuft.brett_options["first_player"] == 2
    state = walk(schuft.new_initial_state(), random.Random(1), 1)
    assert state.current_player() == 2
    focus = pyspiel.load_game("brett_focus", {"swap": "c3,d3"})
    assert str(focus) == "brett_focus(swap=c3;d3)"
    assert focus.new_initial_state().brett_game.swap == ("c3", "d3")
    ball = pyspiel.load_game("brett_phutball", {"columns": 9, "rows": 9, "ball": "E3"})
    assert ball.new_initial_state().brett_game.ball == "e3"


# ------------------------------------------------------------------ algorithms
@pytest.mark.parametrize(("name", "params"), [
    ("brett_reversi", {"size": 6}),
    ("brett_focus", {"max_plies": 30}),
    ("brett_focus", {"players": 4, "teams": False, "max_plies": 30}),
    ("brett_phutball", {"columns": 7, "rows": 7, "max_plies": 40}),
    ("brett_schuft", {"players": 3, "max_plies": 12}),
])
def test_mcts_bot_plays_through_evaluate_bots(name: str, params: dict[str, Any]) -> None:
    from open_spiel.python.algorithms import evaluate_bots, mcts
    from open_spiel.python.bots import uniform_random

    game = pyspiel.load_game(name, params)
    rng = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bots = [mcts.MCTSBot(game, uct_c=2.0, max_simulations=12, evaluator=evaluator,
                         random_state=rng)]
    bots += [uniform_random.UniformRandomBot(p, rng) for p in range(1, game.num_players())]
    state = game.new_initial_state()
    returns = evaluate_bots.evaluate_bots(state, bots, rng)
    assert state.is_terminal() and len(returns) == game.num_players()
    assert returns == state.brett_game.returns()
    assert all(game.min_utility() <= r <= game.max_utility() for r in returns)


def test_mcts_finds_a_reversi_win_in_one() -> None:
    """A real search, not just a legal move: in positions of 6x6 Reversi where
    some moves win at once and others do not, MCTS plays a winning one."""
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game("brett_reversi", {"size": 6})
    rng = random.Random(2)
    found = 0
    while found < 3:
        state = game.new_initial_state()
        while not state.is_terminal():
            player, legal = state.current_player(), state.legal_actions()
            wins = []
            for action in legal:
                child = state.child(action)
                if child.is_terminal() and child.returns()[player] == 1.0:
                    wins.append(action)
            if wins and len(wins) < len(legal):
                break
            state.apply_action(rng.choice(legal))
        if state.is_terminal():
            continue
        found += 1
        seeded = np.random.RandomState(found)
        bot = mcts.MCTSBot(game, 2.0, 200, mcts.RandomRolloutEvaluator(1, seeded),
                           random_state=seeded)
        assert bot.step(state) in wins, (str(state), wins)


# ------------------------------------------------------------------ othello
def test_brett_reversi_is_othello_action_for_action() -> None:
    """Square ``row * 8 + col`` (a1 = 0 at the top left) and the pass 64, in
    both: the same legal actions, action strings, observation of the player to
    move and returns, over random games."""
    othello = pyspiel.load_game("othello")
    ours = pyspiel.load_game("brett_reversi")
    assert ours.num_distinct_actions() == othello.num_distinct_actions() == 65
    rng = random.Random(0)
    passes = 0
    for _ in range(25):
        a, b = othello.new_initial_state(), ours.new_initial_state()
        while not a.is_terminal():
            assert b.current_player() == a.current_player()
            legal = a.legal_actions()
            assert b.legal_actions() == legal
            assert [b.action_to_string(x) for x in legal] == [a.action_to_string(x)
                                                              for x in legal]
            player = a.current_player()
            assert b.observation_tensor(player) == a.observation_tensor(player)
            action = rng.choice(legal)
            passes += action == 64
            a.apply_action(action)
            b.apply_action(action)
        assert b.is_terminal() and b.returns() == a.returns()
    assert passes > 0  # the pass was compared too
