"""brett.ai.solve, the exact Reversi endgame solver: the published FFO scores
(#40-#49, slow; #40 in the default run), the compiled solver against its
plain-Python twin (random endgames with holes and windows, mid-size endgames
from FFO positions), passes, finished games, windows, stops and bad input."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest

import brett
import brett.records
from brett._core import _solve_py
from brett.ai import Solution, solve
from conftest import BACKENDS, needs_cython
from test_stop import CPU_BOUND, Stopping

FFO_FILE = Path(__file__).parent / "data" / "ffo-40-59.obf"
"""The FFO endgame suite #40-#59 (fforum-40-59.obf) as OBF: each position with
every move that reaches the published exact score for the player to move."""


def _ffo() -> list[tuple[int, str, int, list[str]]]:
    """(number, position, score, best moves) of each FFO problem."""
    return [(int(str(p.headers["Comment"]).split("#")[1]), p.start,
             int(p.root.children[0].properties["score"]), [n.move for n in p.root.children])
            for p in brett.records.read(FFO_FILE)]


ALL_FFO = _ffo()
FFO = [row for row in ALL_FFO if row[0] <= 49]

# FFO #40 and #42 played on along a best line to 12 and 13 empties: small enough
# for the plain twin (a few seconds).
MIDDLE = [
    "ooxxxxxx/xoxxxxxx/ooxoxoox/ooxxooxx/ooxoooxx/-o-xooox/xoo-x--x/-----x-- o",
    "--oooxoo/oooooooo/ooxooxxo/-ooxxxxo/x-xoxxxo/-x-ooxoo/---oooxo/--oooo-- o",
]

WINDOWS = [(-65, 65), (-1, 1), (0, 1), (-10, -2), (4, 12), (-65, -30), (30, 65)]


def compiled() -> Any:
    from brett._core import _solve_c

    return _solve_c


def module(backend: str) -> Any:
    return compiled() if backend == "cython" else _solve_py


def state(game: brett.Reversi) -> tuple[int, int, int, int]:
    _, black, white, blocked, player = game._core.get_state()
    return black, white, blocked, player


def random_endgame(rng: random.Random, most: int) -> brett.Reversi:
    """A random game played on to at most ``most`` empty squares (or its end)."""
    holes = rng.choice([[], ["b4", "e2"], ["a1", "h8", "b7"]])
    game = brett.Reversi(holes=holes)
    target = rng.randint(0, most)
    while not game.is_over() and 64 - len(holes) - sum(game.discs()) > target:
        game.push(rng.choice(list(game.legal_moves)))
    return game


def brute_force(game: brett.Reversi) -> int:
    """The exact score by plain minimax over the public API (no pruning)."""
    if game.is_over():
        black, white = game.discs()
        mover = game._core.get_state()[4]      # the side that would move
        diff = black - white if mover == 0 else white - black
        empty = 64 - len(game.holes) - black - white
        return diff + empty if diff > 0 else diff - empty if diff < 0 else 0
    best = -65
    for move in list(game.legal_moves):
        game.push(move)
        best = max(best, -brute_force(game))
        game.pop()
    return best


# ------------------------------------------------------------------- FFO
@needs_cython
def test_ffo_40() -> None:
    _, position, score, best = FFO[0]
    solution = solve(brett.Reversi.from_position(position))
    assert (solution.score, solution.bound) == (score, "exact")
    assert sorted(str(m) for m in solution.best_moves) == best
    assert solution.nodes > 0 and solution.seconds > 0


# FFO #59 (fforum-40-59.obf, line 20; +64: Black wipes White out with h4, g8 or
# e8) after Black's g8: White to move, every reply loses every disc.
FFO_59_AFTER_G8 = "--------/--------/-------o/--ooooo-/--ooooox/ooooxxxx/--xxoxxx/--xx-oxx o"
FFO_59 = next((position, score) for number, position, score, _ in ALL_FFO if number == 59)


@needs_cython
def test_ffo_59_wipeout_is_proven_in_few_nodes() -> None:
    """Proving that White loses every disc after #59's g8 (the window (-64, -62),
    which the score fails low on, so no move is searched again for best_moves):
    about 64 thousand nodes with fastest-first ordering and a wipeout first; the
    ordering by a shallow search's value alone spent over 300 million without
    finishing."""
    game = brett.Reversi.from_position(FFO_59_AFTER_G8)
    solution = solve(game, window=(-64, -62))
    assert (solution.score, solution.bound) == (-64, "upper")
    assert sorted(str(m) for m in solution.best_moves) == ["b7", "b8", "e8"]
    assert solution.nodes < 2_000_000, solution.nodes


@pytest.mark.slow
@needs_cython
@pytest.mark.parametrize(("number", "position", "score", "best"), FFO,
                         ids=[str(row[0]) for row in FFO])
def test_ffo_40_to_49(number: int, position: str, score: int, best: list[str]) -> None:
    game = brett.Reversi.from_position(position)
    cpu = time.thread_time()
    solution = solve(game)
    cpu = time.thread_time() - cpu
    assert (solution.score, solution.bound) == (score, "exact")
    assert sorted(str(m) for m in solution.best_moves) == best
    assert cpu < 60, f"FFO #{number} took {cpu:.1f} s of CPU"
    assert game.position() == position      # the game is not changed


@needs_cython
def test_ffo_59_one_best_move_in_few_nodes() -> None:
    """FFO #59 (+64, a forced wipeout) with one best move: the search's own is
    checked, not every move proven (which is out of reach), so it takes some
    tens of thousands of nodes."""
    position, score = FFO_59
    solution = solve(brett.Reversi.from_position(position), all_best=False)
    assert (solution.score, solution.bound) == (score, "exact")
    assert len(solution.best_moves) == 1
    assert str(solution.best_moves[0]) in {"e8", "g8", "h4"}
    assert solution.nodes < 2_000_000, solution.nodes


@pytest.mark.parametrize("backend", BACKENDS)
def test_one_best_move_is_one_of_every_best_move(backend: str) -> None:
    rng = random.Random(5)
    solver = module(backend)
    for _ in range(25):
        game = random_endgame(rng, 8)
        window = rng.choice(WINDOWS)
        score, every, _ = solver.solve(*state(game), *window)
        one_score, one, _ = solver.solve(*state(game), *window, False)
        assert one_score == score, (game.position(), window)
        assert len(one) == min(1, len(every)) and set(one) <= set(every), game.position()


def pattern_evaluator() -> Any:
    from brett._core import _alphabeta_c, _alphabeta_py

    return _alphabeta_c.Evaluator(_alphabeta_py.weights())


@needs_cython
def test_the_pattern_ordering_gives_the_same_answers() -> None:
    """Ordering by the pattern evaluation (from 16 empties) changes the nodes,
    never the score or the best moves."""
    rng = random.Random(3)
    evaluator = pattern_evaluator()
    for _ in range(12):
        game = random_endgame(rng, 19)
        while not game.is_over() and 64 - len(game.holes) - sum(game.discs()) < 16:
            game = random_endgame(rng, 19)
        window = rng.choice(WINDOWS)
        plain = compiled().solve(*state(game), *window)
        ordered = compiled().solve(*state(game), *window, True, evaluator)
        assert ordered[:2] == plain[:2], (game.position(), window)


@needs_cython
def test_the_selective_search_first_changes_no_answer() -> None:
    """From 18 empties a solver with an evaluation searches selectively first (its
    cuts trust a shallow search) and keeps those results in its table as moves to
    try, not as bounds: the exact answers in every window are those of the solver
    without one, which never searches selectively."""
    rng = random.Random(5)
    evaluator = pattern_evaluator()
    for _ in range(10):
        game = random_endgame(rng, 20)
        while game.is_over() or 64 - len(game.holes) - sum(game.discs()) < 18:
            game = random_endgame(rng, 20)
        window = rng.choice(WINDOWS)
        plain = compiled().solve(*state(game), *window)
        selective = compiled().solve(*state(game), *window, True, evaluator)
        assert selective[:2] == plain[:2], (game.position(), window)


@needs_cython
def test_the_pattern_ordering_searches_fewer_nodes() -> None:
    """FFO #44: the patterns' ordering (and the selective search it allows)
    needs about a fifth of the nodes that mobility and corners need (18 million
    against 90 million)."""
    _, position, score, _ = FFO[4]
    args = (*state(brett.Reversi.from_position(position)), -65, 65, False)
    plain = compiled().solve(*args)
    ordered = compiled().solve(*args, pattern_evaluator())
    assert plain[0] == ordered[0] == score
    assert ordered[2] < plain[2] // 2, (ordered[2], plain[2])


# ------------------------------------------------------- twins and oracles
@needs_cython
@pytest.mark.parametrize("seed", range(4))
def test_twins_agree_on_random_endgames(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(30):
        game = random_endgame(rng, 10)
        window = rng.choice(WINDOWS)
        got = compiled().solve(*state(game), *window)
        want = _solve_py.solve(*state(game), *window)
        assert got[:2] == want[:2], (game.position(), window)


@pytest.mark.parametrize("backend", BACKENDS)
def test_scores_are_the_minimax_value(backend: str) -> None:
    """On very small endgames both twins give what plain minimax over the public
    API gives, and the best moves are exactly those whose child scores it."""
    rng = random.Random(11)
    solver = module(backend)
    for _ in range(25):
        game = random_endgame(rng, 6)
        score, best, _ = solver.solve(*state(game), -65, 65)
        assert score == brute_force(game), game.position()
        if game.is_over():
            assert best == []
            continue
        children = {}
        for move in list(game.legal_moves):
            game.push(move)
            children[move.square if move.square is not None else 64] = -brute_force(game)
            game.pop()
        assert best == sorted(cm for cm, value in children.items() if value == score)


@needs_cython
@pytest.mark.parametrize("position", MIDDLE)
def test_twins_agree_in_the_middle_of_endgames(position: str) -> None:
    game = brett.Reversi.from_position(position)
    got = compiled().solve(*state(game), -65, 65)
    assert got[:2] == _solve_py.solve(*state(game), -65, 65)[:2]


@needs_cython
def test_windows_bound_the_exact_score() -> None:
    """Every window's answer is consistent with the exact score: inside, equal;
    on an end, the right bound."""
    for position in [*MIDDLE, FFO[0][1]]:
        game = brett.Reversi.from_position(position)
        exact = solve(game)
        for alpha, beta in WINDOWS:
            got = solve(game, window=(alpha, beta))
            if alpha < exact.score < beta:
                assert (got.score, got.bound, got.best_moves) == \
                    (exact.score, "exact", exact.best_moves)
            elif exact.score <= alpha:
                assert (got.score, got.bound) == (alpha, "upper")
                assert got.best_moves == list(game.legal_moves)
            else:
                assert (got.score, got.bound) == (beta, "lower")
                assert set(exact.best_moves) <= set(got.best_moves)
        wld = solve(game, exact=False)
        assert (wld.score > 0) == (exact.score > 0) and (wld.score < 0) == (exact.score < 0)


def test_a_forced_pass_and_a_finished_game() -> None:
    # White cannot move (a1 is on the edge); Black then takes b1 and every square.
    passing = brett.Reversi.from_position("xo------/" + "--------/" * 6 + "-------- o")
    solution = solve(passing)
    assert solution.score == -64 and solution.bound == "exact"
    assert [str(m) for m in solution.best_moves] == ["pass"]
    over = brett.Reversi.from_position("xx------/" + "--------/" * 6 + "-------- o")
    assert over.is_over()
    solution = solve(over)
    assert (solution.score, solution.best_moves) == (-64, [])
    draw = brett.Reversi.from_position(("xxxxxxxx/" * 4 + "oooooooo/" * 4)[:-1] + " x")
    assert (solve(draw).score, solve(draw).best_moves) == (0, [])


@pytest.mark.parametrize("backend", BACKENDS)
def test_holes_count_for_nobody(backend: str) -> None:
    # e1 is a hole: Black takes a1 and every disc, 63 of the 63 squares.
    game = brett.Reversi.from_position("-oox#---/" + "--------/" * 6 + "-------- x")
    score, best, _ = module(backend).solve(*state(game), -65, 65)
    assert (score, best) == (brute_force(game), [0]) == (63, [0])


def test_the_game_is_not_changed_and_the_solution_is_frozen() -> None:
    game = brett.Reversi.from_position(MIDDLE[1])
    before = (game.position(), len(game.move_stack))
    solution = solve(game)
    assert isinstance(solution, Solution)
    assert (game.position(), len(game.move_stack)) == before
    with pytest.raises(AttributeError):
        solution.score = 0  # type: ignore[misc]


# ------------------------------------------------------------- stops
@pytest.mark.timing
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_stopper_ends_a_long_solve_soon(backend: str) -> None:
    # The start of a game: 60 empty squares, which no solver finishes.
    black, white, blocked, player = state(brett.Reversi())
    run = Stopping(lambda: module(backend).solve(black, white, blocked, player, -65, 65))
    wall, cpu = run.stop(after=0.4)
    assert isinstance(run.error, brett.Stopped), run.error
    if cpu is not None:
        assert cpu < CPU_BOUND, f"ran on for {cpu:.3f} s of CPU ({wall:.3f} s) after stop()"
    assert wall < 10 * CPU_BOUND


def test_a_stopped_stopper_ends_solve_at_once() -> None:
    stopper = brett.Stopper()
    stopper.stop()
    with stopper, pytest.raises(brett.Stopped):
        solve(brett.Reversi())


# ---------------------------------------------------------- bad input
@pytest.mark.parametrize("game", [
    lambda: brett.Reversi(size=6),
    lambda: brett.Reversi(size=10),
    lambda: brett.Reversi(board="octagon"),
    lambda: brett.Reversi(anti=True),
    lambda: brett.GAMES["focus"](),
    lambda: brett.GAMES["phutball"](),
    lambda: "o--oooox/-oooooox/ooxxooox/ooxoooxx/ooooooxx/---oooox/----o--x/-------- x",
    lambda: None,
])
def test_other_games_are_refused(game: Any) -> None:
    with pytest.raises(brett.BrettError):
        solve(game())


@pytest.mark.parametrize("kwargs", [
    {"window": (1, 1)}, {"window": (3, -3)}, {"window": (-66, 0)}, {"window": (0, 66)},
    {"window": (0.5, 2)}, {"window": "ab"}, {"window": (1, 2, 3)}, {"window": 5},
    {"window": (True, 3)}, {"exact": False, "window": (-1, 1)}, {"exact": "yes"},
    {"exact": None}, {"all_best": "no"}, {"all_best": None},
])
def test_bad_arguments_are_refused(kwargs: dict[str, Any]) -> None:
    with pytest.raises(brett.BrettError):
        solve(brett.Reversi.from_position(MIDDLE[0]), **kwargs)


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_cores_refuse_bad_states(backend: str) -> None:
    solver = module(backend)
    for args in [(1, 1, 0, 0, -65, 65), (1, 2, 0, 2, -65, 65), (1, 2, 0, 0, 3, 3),
                 (1, 2, 0, 0, -66, 65), (1, 2, 1, 0, -65, 65)]:
        with pytest.raises(ValueError):
            solver.solve(*args)
