"""brett.ai.PUCTPlayer: PUCT search with a user evaluator, on both twins."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

import numpy as np
import pytest

import brett
from brett.ai import MCTSPlayer, MoveStats, PUCTPlayer, RandomPlayer
from conftest import BACKENDS, advance, needs_cython


def make_game(backend: str, name: str, **options: Any) -> Any:
    return brett.GAMES[name].twin(backend)(**options)


def snapshot(game: Any) -> tuple[Any, ...]:
    return game.position(), [str(m) for m in game.move_stack], game.pending_actions


def uniform(obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Uniform priors (the mask itself; the search normalises) and a draw everywhere."""
    return masks.astype(np.float32), np.zeros(len(obs), dtype=np.float32)


def linear(obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A deterministic toy model: priors favour high action numbers, the value is
    the tanh of the observation's first plane minus its second (mover's view)."""
    batch = len(obs)
    logits = np.where(masks, np.arange(masks.shape[1], dtype=np.float64) / masks.shape[1], -np.inf)
    priors = np.exp(logits - logits.max(axis=1, keepdims=True))
    flat = obs.reshape(batch, obs.shape[1], -1) if obs.ndim > 2 else obs.reshape(batch, 1, -1)
    planes = flat.sum(axis=2)
    values = np.tanh(0.1 * (planes[:, 0] - (planes[:, 1] if planes.shape[1] > 1 else 0.0)))
    return priors, values


# ---- (a) an exact evaluator on 4x4 Reversi plays perfectly
def solve_reversi4() -> dict[bytes, tuple[float, frozenset[int]]]:
    """Every position of 4x4 Reversi reachable from the start, solved by negamax
    over the integer layer (memoised by position string): observation bytes ->
    (the mover's perfect-play result, the optimal actions)."""
    game = brett.GAMES["reversi"](size=4)
    memo: dict[str, tuple[float, ...]] = {}
    table: dict[bytes, tuple[float, frozenset[int]]] = {}

    def value(g: Any) -> tuple[float, ...]:
        key = g.position()
        found = memo.get(key)
        if found is not None:
            return found
        mover = g.current_player()
        if mover < 0:
            result = tuple(g.returns())
        else:
            children = {}
            for action in g.legal_actions():
                g.apply_action(action)
                children[action] = value(g)
                g.undo_action()
            result = max(children.values(), key=lambda v: v[mover])
            best = frozenset(a for a, v in children.items() if v[mover] == result[mover])
            entry = (result[mover], best)
            # the observation must tell positions apart for the evaluator to be exact
            assert table.setdefault(g.observation_tensor().tobytes(), entry) == entry
        memo[key] = result
        return result

    assert value(game) == (-1.0, 1.0)  # 4x4 Reversi: the second player wins
    return table


@pytest.fixture(scope="module")
def reversi4() -> dict[bytes, tuple[float, frozenset[int]]]:
    return solve_reversi4()


def exact_evaluator(table: dict[bytes, tuple[float, frozenset[int]]], focused: bool) -> Any:
    def evaluate(obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        priors = np.zeros(masks.shape)
        values = np.zeros(len(obs))
        for i in range(len(obs)):
            values[i], best = table[obs[i].tobytes()]
            if focused:
                priors[i, list(best)] = 1.0
            else:
                priors[i] = masks[i]
        return priors, values
    return evaluate


@pytest.mark.parametrize("focused", [True, False], ids=["optimal-priors", "uniform-priors"])
def test_an_exact_evaluator_plays_4x4_reversi_perfectly(
        backend: str, reversi4: dict[bytes, tuple[float, frozenset[int]]], focused: bool) -> None:
    player = PUCTPlayer(exact_evaluator(reversi4, focused), simulations=120, batch_size=4,
                        dirichlet_fraction=0.0, seed=7)
    checked = 0
    for start in range(6):
        game = advance(make_game(backend, "reversi", size=4), start % 4, seed=start)
        while not game.is_over():
            _, best = reversi4[game.observation_tensor().tobytes()]
            move = player.choose(game)
            assert game.move_to_action(move) in best, (game.position(), move, best)
            game.push(move)
            checked += 1
    assert checked >= 40


def test_the_perfect_play_check_can_fail(
        reversi4: dict[bytes, tuple[float, frozenset[int]]]) -> None:
    """Not every move is optimal: in many positions of the start's line some legal
    moves lose, and a search that ignores the values (priors on a losing move
    only, values saying nothing) plays one."""
    game = brett.GAMES["reversi"](size=4)
    wrong = 0
    for seed in range(4):
        g = advance(game.copy(), 2, seed=seed)
        best = reversi4[g.observation_tensor().tobytes()][1]
        losing = [a for a in g.legal_actions() if a not in best]
        if not losing:
            continue

        def misled(obs: np.ndarray, masks: np.ndarray, bad: int = losing[0]) -> Any:
            priors = np.zeros(masks.shape)
            priors[:, bad] = 1.0
            return np.where(masks, priors, 0.0), np.zeros(len(obs))

        move = PUCTPlayer(misled, simulations=30, dirichlet_fraction=0.0).choose(g)
        wrong += g.move_to_action(move) not in best
    assert wrong >= 1


# ---- (b) uniform priors and rollouts: the plain MCTS's strength
def match(cls: Any, first: Any, second: Any, games: int, **options: Any) -> float:
    """``first``'s score (a win 1, a draw 1/2), colours alternating."""
    score = 0.0
    for i in range(games):
        game = cls(**options)
        seats = (first, second) if i % 2 == 0 else (second, first)
        while not game.is_over():
            game.push(seats[game.current_player()].choose(game))
        score += (game.returns()[i % 2] + 1.0) / 2.0
    return score / games


@needs_cython
@pytest.mark.parametrize("simulations, games", [
    (100, 40), pytest.param(200, 100, marks=pytest.mark.slow)])
def test_uniform_priors_and_rollouts_match_plain_mcts(simulations: int, games: int) -> None:
    cls = brett.GAMES["reversi"].twin("cython")
    puct = PUCTPlayer(simulations=simulations, dirichlet_fraction=0.0, seed=1)
    mcts = MCTSPlayer(iterations=simulations, seed=2)
    score = match(cls, puct, mcts, games, size=6)
    assert 0.35 <= score <= 0.65, score
    assert match(cls, mcts, RandomPlayer(seed=5), 10, size=6) >= 0.8


@pytest.mark.parametrize("with_noise", [False, True])
def test_uniform_priors_and_rollouts_beat_random(backend: str, with_noise: bool) -> None:
    cls = brett.GAMES["reversi"].twin(backend)
    fraction = 0.25 if with_noise else 0.0
    puct = PUCTPlayer(simulations=60, dirichlet_fraction=fraction, seed=3)
    assert match(cls, puct, RandomPlayer(seed=4), 6, size=6) >= 5 / 6


@pytest.mark.slow
def test_plain_twin_matches_plain_mcts_too() -> None:
    cls = brett.GAMES["reversi"].twin("python")
    puct = PUCTPlayer(simulations=60, dirichlet_fraction=0.0, seed=1)
    score = match(cls, puct, MCTSPlayer(iterations=60, seed=2), 30, size=6)
    assert 0.3 <= score <= 0.7, score


# ---- (c) batches and virtual loss
class Recorder:
    """An evaluator that records the batch each call got."""

    def __init__(self, inner: Any = uniform) -> None:
        self.inner = inner
        self.batches: list[np.ndarray] = []
        self.legal = 0

    def __call__(self, obs: np.ndarray, masks: np.ndarray) -> Any:
        self.batches.append(obs.copy())
        self.legal += int(masks.sum())
        return self.inner(obs, masks)


def test_leaves_go_to_the_evaluator_in_batches_of_distinct_positions(backend: str) -> None:
    recorder = Recorder(linear)
    player = PUCTPlayer(recorder, simulations=40, batch_size=8, dirichlet_fraction=0.0, seed=1)
    player.policy(make_game(backend, "reversi"))
    sizes = [len(b) for b in recorder.batches]
    assert sum(sizes) == 40 and max(sizes) == 8 and all(1 <= s <= 8 for s in sizes)
    assert sizes[0] == 1  # the root alone: nothing else is known before it is valued
    assert player.last_search is not None
    assert player.last_search.evaluations == len(sizes) and player.last_search.leaves == 40
    assert player.last_search.iterations == 40
    # every leaf was a node of its own: each grew its children (a leaf valued
    # twice in one batch would be expanded once; positions may repeat by transposition)
    assert player.last_search.nodes == 1 + recorder.legal


def test_without_virtual_loss_a_batch_collides(backend: str) -> None:
    recorder = Recorder(linear)
    player = PUCTPlayer(recorder, simulations=40, batch_size=8, virtual_loss=0.0,
                        dirichlet_fraction=0.0, seed=1)
    player.policy(make_game(backend, "reversi"))
    assert max(len(b) for b in recorder.batches) == 1  # every selection finds the same leaf
    assert sum(len(b) for b in recorder.batches) == 40


def test_terminal_leaves_are_valued_by_the_game_not_the_evaluator(backend: str) -> None:
    """Near the end of 4x4 Reversi the tree reaches finished games; the evaluator
    never sees them and a won ending is found whatever the evaluator says."""
    game = make_game(backend, "reversi", size=4)
    table = solve_reversi4()
    while len(game.piece_map()) < 13:  # the perfect game down to three empty squares
        game.apply_action(min(table[game.observation_tensor().tobytes()][1]))
    masks_seen = []

    def liar(obs: np.ndarray, masks: np.ndarray) -> Any:
        masks_seen.append(masks.any(axis=1).all())
        return masks.astype(float), np.zeros(len(obs))

    player = PUCTPlayer(liar, simulations=200, dirichlet_fraction=0.0, seed=1)
    move = player.choose(game)
    _, best = table[game.observation_tensor().tobytes()]
    assert game.move_to_action(move) in best
    assert all(masks_seen)  # only decision positions went to the evaluator


# ---- (d) noise, temperature and the policy target
def test_the_policy_is_a_distribution_over_the_legal_actions(backend: str) -> None:
    game = make_game(backend, "reversi", size=6)
    advance(game, 5, seed=2)
    policy = PUCTPlayer(linear, simulations=64, seed=1).policy(game)
    assert policy.shape == (game.num_distinct_actions(),)
    assert policy.sum() == pytest.approx(1.0)
    mask = game.legal_actions_mask()
    assert (policy[~mask] == 0).all() and (policy >= 0).all()
    assert policy[mask].sum() == pytest.approx(1.0)


def test_dirichlet_noise_is_seeded_and_changes_the_search(backend: str) -> None:
    game = make_game(backend, "reversi")

    def policy(seed: int, fraction: float) -> np.ndarray:
        return PUCTPlayer(linear, simulations=64, dirichlet_fraction=fraction,
                          seed=seed).policy(game)

    assert np.array_equal(policy(1, 0.5), policy(1, 0.5))
    assert not np.array_equal(policy(1, 0.5), policy(2, 0.5))
    # without noise a deterministic evaluator's search does not depend on the seed
    assert np.array_equal(policy(1, 0.0), policy(2, 0.0))
    assert not np.array_equal(policy(1, 0.0), policy(1, 0.5))


def test_temperature_samples_in_proportion_to_visits(backend: str) -> None:
    game = make_game(backend, "reversi")
    greedy = PUCTPlayer(linear, simulations=32, dirichlet_fraction=0.0, seed=1)
    target = greedy.policy(game)
    chosen = {greedy.choose_action(game) for _ in range(5)}
    assert len(chosen) == 1 and target[chosen.pop()] == target.max()  # T = 0: most visits

    def draws(temperature: float, seed: int) -> Counter[int]:
        player = PUCTPlayer(linear, simulations=32, dirichlet_fraction=0.0,
                            temperature=temperature, seed=seed)
        return Counter(player.choose_action(game) for _ in range(300))

    counts = draws(1.0, 5)
    assert counts == draws(1.0, 5)  # seeded
    assert len(counts) > 1 and set(counts) <= set(np.flatnonzero(target))
    for action, n in counts.items():  # T = 1: the visit distribution
        assert abs(n / 300 - target[action]) < 0.1, (action, n, target[action])
    hot = draws(100.0, 6)  # a high temperature flattens it
    assert min(hot.values()) > 300 / len(np.flatnonzero(target)) / 3
    assert len(hot) == len(np.flatnonzero(target))


def test_choose_and_analyse_agree(backend: str) -> None:
    game = make_game(backend, "reversi", size=6)
    player = PUCTPlayer(linear, simulations=100, dirichlet_fraction=0.0, seed=1)
    stats = player.analyse(game)
    assert all(isinstance(s, MoveStats) for s in stats)
    assert [s.visits for s in stats] == sorted((s.visits for s in stats), reverse=True)
    assert sum(s.visits for s in stats) == 99  # the root's own valuation is not a child's
    assert all(0.0 <= s.value <= 1.0 for s in stats)
    assert player.choose(game) == stats[0].move
    policy = player.last_policy
    assert policy is not None
    for s in stats:
        assert policy[game.move_to_action(s.move)] == pytest.approx(s.visits / 99)


# ---- (e) bad evaluators and bad arguments
def bad(priors: Any, values: Any) -> Any:
    def evaluate(obs: np.ndarray, masks: np.ndarray) -> Any:
        return priors(obs, masks), values(obs, masks)
    return evaluate


def good_priors(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    return masks.astype(float)


def good_values(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    return np.zeros(len(obs))


BAD = {
    "priors of shape": bad(lambda o, m: np.ones((len(o), 3)), good_values),
    "priors of shape ": bad(lambda o, m: np.ones(m.shape[1]), good_values),
    "values of shape": bad(good_priors, lambda o, m: np.zeros(len(o) + 1)),
    "values of shape ": bad(good_priors, lambda o, m: np.zeros((len(o), 5))),
    "NaN or infinity on legal": bad(lambda o, m: np.where(m, np.nan, 0.0), good_values),
    "negative": bad(lambda o, m: np.where(m, -1.0, 0.0), good_values),
    "values contain NaN": bad(good_priors, lambda o, m: np.full(len(o), np.nan)),
    "outside [-1, 1]": bad(good_priors, lambda o, m: np.full(len(o), 3.0)),
    "dtype": bad(lambda o, m: np.array([["x"] * m.shape[1]] * len(o)), good_values),
    "dtype ": bad(good_priors, lambda o, m: np.zeros(len(o), dtype=complex)),
    "not an array": bad(good_priors, lambda o, m: [[1, 2], [3]]),
    "expected a pair": lambda o, m: np.zeros(len(o)),
    "expected a pair ": lambda o, m: None,
    "expected a pair  ": lambda o, m: (good_priors(o, m), good_values(o, m), 0),
}


@pytest.mark.parametrize("problem", sorted(BAD))
def test_a_bad_evaluator_output_is_a_brett_error_that_names_it(backend: str, problem: str) -> None:
    game = make_game(backend, "reversi", size=6)
    before = snapshot(game)
    with pytest.raises(brett.BrettError, match=problem.strip().replace("[", r"\[")):
        PUCTPlayer(BAD[problem], simulations=20, seed=1).choose(game)
    assert snapshot(game) == before


def test_priors_on_illegal_actions_are_masked_and_renormalised(backend: str) -> None:
    game = make_game(backend, "reversi")
    legal = game.legal_actions()

    def illegal_heavy(obs: np.ndarray, masks: np.ndarray) -> Any:
        priors = np.where(masks, 0.0, 1000.0)   # everything on illegal actions: uniform
        return priors, np.zeros(len(obs))

    def one_legal(obs: np.ndarray, masks: np.ndarray) -> Any:
        priors = np.where(masks, 0.0, 5.0)
        priors[:, legal[-1]] += 1e-3  # at the root a little on one legal action
        return priors, np.zeros(len(obs))

    flat = PUCTPlayer(illegal_heavy, simulations=41, dirichlet_fraction=0.0).policy(game)
    assert sorted(flat[legal] * 40) == pytest.approx([10.0] * 4)  # uniform priors, equal values
    focused = PUCTPlayer(one_legal, simulations=41, batch_size=1,
                         dirichlet_fraction=0.0).policy(game)
    assert focused[legal[-1]] == 1.0


@pytest.mark.parametrize("kwargs", [
    {"evaluator": 3}, {"simulations": 0}, {"simulations": None}, {"simulations": 1.5},
    {"seconds": -1}, {"seconds": float("inf")}, {"batch_size": 0}, {"c_puct": -1},
    {"dirichlet_alpha": 0}, {"dirichlet_fraction": 1.5}, {"temperature": -0.1},
    {"temperature": "1"}, {"virtual_loss": float("nan")}, {"seed": "x"}, {"rollouts": 0},
    {"max_plies": 0}, {"max_nodes": 0}])
def test_bad_arguments_are_brett_errors(kwargs: dict[str, Any]) -> None:
    with pytest.raises(brett.BrettError):
        PUCTPlayer(**kwargs)


def test_bad_games_are_brett_errors(backend: str) -> None:
    player = PUCTPlayer(simulations=10)
    with pytest.raises(brett.BrettError, match="expected a brett game"):
        player.choose("reversi")  # type: ignore[arg-type]
    over = make_game(backend, "reversi", size=4)
    advance(over, 100, seed=1)
    assert over.is_over()
    for call in (player.choose, player.policy, player.analyse, player.choose_action):
        with pytest.raises(brett.BrettError, match="over"):
            call(over)
    schuft = make_game(backend, "schuft", players=2, seed=1)
    assert schuft.is_chance_node()
    for call in (player.policy, player.analyse):
        with pytest.raises(brett.BrettError, match="chance"):
            call(schuft)


# ---- (f) chance and multi-action games
def test_schuft_chance_nodes(backend: str) -> None:
    game = make_game(backend, "schuft", players=2, seed=3)
    player = PUCTPlayer(uniform, simulations=30, batch_size=4, seed=2)
    rollouts = PUCTPlayer(simulations=20, max_plies=4, seed=2)
    decisions = 0
    for ply in range(8):
        if game.is_over():
            break
        chooser = player if ply % 2 else rollouts
        move = chooser.choose(game)
        if not game.is_chance_node():
            decisions += 1
            assert move in game.legal_moves
        game.push(move)  # an outcome at a chance node: push checks it
    assert decisions >= 3
    advance(game, 0, seed=1)  # to a decision node
    stats = player.analyse(game)
    assert len({str(s.move) for s in stats}) == len(stats)  # one row per turn
    assert sum(s.visits for s in stats) == 29 and all(s.move in game.legal_moves for s in stats)


def test_phutball_multi_action_moves(backend: str) -> None:
    game = make_game(backend, "phutball", columns=9, rows=9)
    game.push("e4")  # a man next to the ball: jumps become possible soon
    player = PUCTPlayer(linear, simulations=40, batch_size=4, seed=1)
    rollouts = PUCTPlayer(simulations=25, seed=1)
    for ply in range(10):
        if game.is_over():
            break
        move = (player if ply % 2 else rollouts).choose(game)
        assert move in game.legal_moves
        before = len(game.move_stack)
        game.push(move)
        assert len(game.move_stack) == before + 1 and game.pending_actions == ()
    # a pending jump: policy and choose_action search the next step
    g = make_game(backend, "phutball", columns=9, rows=9)
    for a in (g.move_to_action("e6"), g.move_to_action("e8")):
        g.apply_action(a)
    north = g.num_distinct_actions() - 9
    g.apply_action(north)
    assert g.pending_actions
    before = snapshot(g)
    policy = player.policy(g)
    assert set(np.flatnonzero(policy)) <= set(g.legal_actions())
    assert player.choose_action(g) in g.legal_actions()
    assert snapshot(g) == before
    with pytest.raises(brett.BrettError, match="half made"):
        player.choose(g)


def test_a_jump_is_chosen_whole(backend: str) -> None:
    """A ball move starts with one jump action; choose() returns the completed
    path, which push takes as one move."""
    g = make_game(backend, "phutball", columns=9, rows=9)
    for square in ("e6", "e8", "e7", "a1"):
        g.push(square)
    jump_first = {a for a in g.legal_actions() if a >= g.num_distinct_actions() - 9}
    assert jump_first

    def jumper(obs: np.ndarray, masks: np.ndarray) -> Any:
        priors = np.zeros(masks.shape)
        priors[:, -9:] = 1.0  # only ball moves
        return priors, np.zeros(len(obs))

    move = PUCTPlayer(jumper, simulations=30, dirichlet_fraction=0.0, seed=1).choose(g)
    assert move.is_jump and str(move) == "e5-e9" and move in g.legal_moves
    g.push(move)
    assert g.pending_actions == () and str(g.peek()) == str(move)


@pytest.mark.parametrize("name, options", [
    ("focus", {}), ("focus", {"players": 4, "teams": True}), ("schuft", {"players": 3, "seed": 2})])
def test_more_players(backend: str, name: str, options: dict[str, Any]) -> None:
    game = advance(make_game(backend, name, **options), 3, seed=1)
    players = game.num_players()

    def per_player(obs: np.ndarray, masks: np.ndarray) -> Any:
        values = np.zeros((len(obs), players))
        values[:, 0] = 0.5  # player 0 likes every position
        return masks.astype(float), values

    for evaluator in (per_player, uniform, None):
        move = PUCTPlayer(evaluator, simulations=16, seed=1, max_plies=6).choose(game)
        assert move in game.legal_moves


# ---- (g) the game is not changed, stop, threads, Ctrl-C
def test_the_game_is_not_changed(backend: str) -> None:
    games = [advance(make_game(backend, "reversi", size=6), 4, seed=1),
             advance(make_game(backend, "phutball", columns=9, rows=9), 3, seed=1),
             advance(make_game(backend, "schuft", players=2, seed=4), 3, seed=1)]
    player = PUCTPlayer(linear, simulations=30, seed=1, max_plies=4)
    for game in games:
        before = snapshot(game)
        player.choose(game)
        player.analyse(game)
        player.policy(game)
        player.choose_action(game)
        assert snapshot(game) == before


def test_stop_and_a_time_budget(backend: str) -> None:
    game = make_game(backend, "reversi")
    player = PUCTPlayer(simulations=None, seconds=60.0, seed=1)
    timer = threading.Timer(0.3, player.stop)
    timer.start()
    move = player.choose(game)
    timer.join()
    assert move in game.legal_moves
    assert player.last_search is not None and player.last_search.interrupted
    assert player.last_search.seconds < 30
    timed = PUCTPlayer(simulations=None, seconds=0.2, seed=1)
    timed.choose(game)
    assert timed.last_search is not None and not timed.last_search.interrupted
    assert 0.2 <= timed.last_search.seconds < 10 and timed.last_search.iterations >= 2


def test_a_stopper_stops_the_search(backend: str) -> None:
    stopper = brett.Stopper()
    stopper.stop()
    game = make_game(backend, "reversi")
    before = snapshot(game)
    with stopper, pytest.raises(brett.Stopped):
        PUCTPlayer(linear, simulations=None, seconds=60.0).choose(game)
    assert snapshot(game) == before


def test_ctrl_c_returns_the_best_move_so_far(backend: str) -> None:
    """A KeyboardInterrupt (here raised by the evaluator, as Ctrl-C would land)
    ends the search; its statistics are whole visits again."""
    calls = []

    def interrupted(obs: np.ndarray, masks: np.ndarray) -> Any:
        calls.append(len(obs))
        if len(calls) == 4:
            raise KeyboardInterrupt
        return linear(obs, masks)

    game = make_game(backend, "reversi")
    before = snapshot(game)
    player = PUCTPlayer(interrupted, simulations=1000, batch_size=4, seed=1)
    assert player.choose(game) in game.legal_moves
    info = player.last_search
    assert info is not None and info.interrupted and info.iterations == sum(calls[:3])
    assert player.last_policy is not None
    visits = player.last_policy * (info.iterations - 1)
    assert np.allclose(visits, np.round(visits))  # no virtual loss left in the counts
    assert snapshot(game) == before
    def at_once(obs: np.ndarray, masks: np.ndarray) -> Any:
        raise KeyboardInterrupt

    early = PUCTPlayer(at_once, simulations=10)
    with pytest.raises(KeyboardInterrupt):  # nothing searched yet: Ctrl-C goes through
        early.choose(game)


def test_one_search_at_a_time(backend: str) -> None:
    started = threading.Event()
    release = threading.Event()

    def slow(obs: np.ndarray, masks: np.ndarray) -> Any:
        started.set()
        release.wait(10)
        return uniform(obs, masks)

    player = PUCTPlayer(slow, simulations=3)
    game = make_game(backend, "reversi")
    worker = threading.Thread(target=player.choose, args=(game,))
    worker.start()
    assert started.wait(10)
    try:
        with pytest.raises(brett.BrettError, match="another thread"):
            player.choose(game)
    finally:
        release.set()
        worker.join()


def test_the_evaluator_errors_go_through(backend: str) -> None:
    def broken(obs: np.ndarray, masks: np.ndarray) -> Any:
        raise RuntimeError("model not loaded")

    game = make_game(backend, "reversi")
    before = snapshot(game)
    with pytest.raises(RuntimeError, match="model not loaded"):
        PUCTPlayer(broken, simulations=5).choose(game)
    assert snapshot(game) == before


def test_a_small_tree_still_searches(backend: str) -> None:
    game = make_game(backend, "reversi", size=6)
    player = PUCTPlayer(linear, simulations=200, max_nodes=30, dirichlet_fraction=0.0, seed=1)
    assert player.choose(game) in game.legal_moves
    assert player.last_search is not None and player.last_search.nodes <= 30
    assert player.last_search.iterations == 200
    schuft = make_game(backend, "schuft", players=2, seed=1)
    schuft.push(player.choose(schuft))  # a roll
    small = PUCTPlayer(uniform, simulations=50, max_nodes=40, seed=1)
    assert small.choose(schuft) in schuft.legal_moves


# ---- (h) the two twins grow the same tree
TWIN_CASES = {
    "reversi-6": ("reversi", {"size": 6}, 6, 60),
    "reversi-8": ("reversi", {}, 10, 60),
    "phutball-9x9": ("phutball", {"columns": 9, "rows": 9}, 6, 60),
    "schuft": ("schuft", {"players": 2, "seed": 1}, 5, 25),  # slow plain rollouts
    "focus-3p": ("focus", {"players": 3}, 4, 60),
}


@needs_cython
@pytest.mark.parametrize("case", sorted(TWIN_CASES))
@pytest.mark.parametrize("evaluator", [None, linear], ids=["rollouts", "linear"])
def test_the_twins_grow_the_same_tree(case: str, evaluator: Any) -> None:
    name, options, plies, simulations = TWIN_CASES[case]
    results = []
    for backend in ("python", "cython"):
        game = advance(make_game(backend, name, **options), plies, seed=3)
        player = PUCTPlayer(evaluator, simulations=simulations, batch_size=4, seed=11, max_plies=8,
                            temperature=1.0)
        stats = player.analyse(game)
        policy = player.policy(game)
        action = player.choose_action(game)
        assert player.last_search is not None
        results.append(([(str(s.move), s.visits, s.value) for s in stats], policy.tolist(),
                        action, player.last_search.nodes))
    assert results[0] == results[1]


@needs_cython
def test_the_twins_agree_in_a_pending_move() -> None:
    policies = []
    for backend in ("python", "cython"):
        g = make_game(backend, "phutball", columns=9, rows=9)
        for a in (g.move_to_action("e6"), g.move_to_action("e8")):
            g.apply_action(a)
        g.apply_action(g.num_distinct_actions() - 9)  # jump north, still pending
        policies.append(PUCTPlayer(simulations=40, seed=5).policy(g).tolist())
    assert policies[0] == policies[1]


@pytest.mark.parametrize("backend_", BACKENDS)
def test_the_docs_example_evaluator(backend_: str) -> None:
    """The linear model of docs/ai.md (kept in step by the doctest there) plays."""
    game = make_game(backend_, "reversi")
    weights = np.random.default_rng(0).normal(size=(int(np.prod(
        game.observation_tensor_shape())), game.num_distinct_actions() + 1)) * 0.1

    def model(obs: np.ndarray, masks: np.ndarray) -> Any:
        out = obs.reshape(len(obs), -1) @ weights
        logits = np.where(masks, out[:, :-1], -np.inf)
        priors = np.exp(logits - logits.max(axis=1, keepdims=True))
        return priors, np.tanh(out[:, -1])

    player = PUCTPlayer(model, simulations=50, seed=1)
    assert player.choose(game) in game.legal_moves
