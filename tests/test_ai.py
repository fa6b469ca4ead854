"""brett.ai: the computer players (RandomPlayer, MCTSPlayer) on every game and
both twins of the tree search (``_search_c.pyx`` compiled, ``_search_py.py`` the
plain-Python oracle, chosen by the game's backend).

Legal moves in every game and option set (decision and chance nodes), games left
as they were, whole games to the end; the twins growing the same trees (identical
``analyse()`` lists); reproducible seeded searches, threads included; forced wins
in one found in each game; ``stop()`` and Ctrl-C; every bad argument a
BrettError; levels; the node bound; the random player.

The plain twin is about 100x slower: its budgets are small (``budget()``).
"""

from __future__ import annotations

import itertools
import math
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import brett
from brett import ai
from brett.ai import LEVELS, MCTSPlayer, MoveStats, RandomPlayer, SearchInfo, _mcts
from brett.errors import BrettError
from brett.schuft import Roll
from conftest import advance, needs_cython
from test_reliability import CROWDED, CtrlC, ctrl_c_raises  # noqa: F401  (a fixture)
from test_search_focus import board as focus_board

DOCS = Path(__file__).resolve().parents[1] / "docs"

# iterations of one search: (compiled, plain twin)
BUDGETS = {"reversi": (300, 40), "focus": (300, 20), "phutball": (300, 40), "schuft": (200, 30)}


def budget(name: str, backend: str) -> int:
    return BUDGETS[name][backend == "python"]


def cls(name: str, backend: str) -> Any:
    return brett.GAMES[name].twin(backend)


def snapshot(game: Any) -> tuple[Any, ...]:
    """What a player must leave alone."""
    return (game.position(), list(game.move_stack), hash(game), game.current_player(),
            game.pending_actions)


def check_legal(game: Any, move: Any) -> None:
    """``move`` is legal here: in the view, and push accepts it (a Phutball path too)."""
    assert move in game.legal_moves, move
    copy = game.copy()
    assert copy.push(move) == move


# ---------------------------------------------------------------------- positions
def phutball_position(cols: int, rows: int, men: list[str], ball: str, mover: int) -> str:
    """A Phutball position string (rows top down) from the points of the men."""
    letters = "abcdefghjklmnopqrstuvwxyz"
    lines = []
    for r in range(rows, 0, -1):
        line, run = "", 0
        for c in range(cols):
            point = f"{letters[c]}{r}"
            mark = "O" if point in men else "*" if point == ball else ""
            if not mark:
                run += 1
                continue
            line += (str(run) if run else "") + mark
            run = 0
        lines.append(line + (str(run) if run else ""))
    size = "" if (cols, rows) == (15, 19) else f" {cols}x{rows}"
    return f"{'/'.join(lines)} {mover}{size}"


JUMPY_9x9 = phutball_position(9, 9, ["e6", "e7", "f6", "d4", "c3", "f4", "g3", "d6", "e3"],
                              "e5", 0)
"""A 9x9 middle game with jumps (and chains of them) in several directions."""


def reversi_position(n: int, cells: dict[str, str], mover: str, suffix: str,
                     holes: tuple[str, ...] = ()) -> str:
    """A Reversi position string (rows 1..n) from {square: 'x' or 'o'}; holes '#'."""
    files = "abcdefghijklmnopqrstuvwxyz"[:n]
    rows = []
    for r in range(1, n + 1):
        row = ""
        for f in files:
            square = f"{f}{r}"
            row += "#" if square in holes else cells.get(square, "-")
        rows.append(row)
    return f"{'/'.join(rows)} {mover}{suffix}"


def reversi_wipe_out(n: int, col: int, row: int, colour: str, suffix: str,
                     holes: tuple[str, ...] = ()) -> str:
    """The mover plays one square flanking all three enemy discs (a wipe-out: the
    game ends, the mover wins); four other moves flip only some of them."""
    enemy = "o" if colour == "x" else "x"
    files = "abcdefghijklmnopqrstuvwxyz"

    def sq(c: int, r: int) -> str:
        return f"{files[col + c]}{row + r + 1}"

    cells = {sq(0, 0): colour, sq(2, 0): colour, sq(4, 0): colour, sq(1, 2): colour,
             sq(1, 1): enemy, sq(2, 1): enemy, sq(3, 1): enemy}
    full_octagon = ("a1", "b1", "a2", "i1", "j1", "j2", "a9", "a10", "b10", "i10", "j10", "j9")
    return reversi_position(n, cells, colour, suffix,
                            holes + (full_octagon if suffix == " octagon" else ()))


def schuft_position(players: int, mover: int, pieces: dict[int, str], roll: str) -> str:
    """A Schuft position: the mover has 7 pieces home (g1..g7) and the rolled turn."""
    cells = ["."] * 36
    for tongue, stack in pieces.items():
        cells[tongue - 1] = stack
    goals = ["." * 9] * players
    goals[mover] = "rgby"[mover] * 7 + ".."
    return (f"{','.join(cells)}/{','.join(goals)}/{','.join(['0'] * players)}/"
            f"{'rgby'[mover]}/{roll}/9/-")


# The mover's two last pieces reach g8 and g9 with the roll 9-8-2 only as
# "7/9 9/g8 9/g9" (for seat s: tongues 9s+7 and 9s+9); four other turns do not.
FORCED_WINS: dict[str, tuple[str, str, dict[str, Any]]] = {
    # Reversi: wipe-outs (8x8, 6x6 with holes, 10x10, the octagon; White to move too)
    "win-reversi-8": ("reversi", reversi_wipe_out(8, 0, 0, "x", ""), {}),
    "win-reversi-8-white": ("reversi", reversi_wipe_out(8, 3, 4, "o", ""), {}),
    "win-reversi-6-holes": ("reversi", reversi_wipe_out(6, 1, 2, "x", " n=6", ("a1", "f6")), {}),
    "win-reversi-10": ("reversi", reversi_wipe_out(10, 5, 6, "o", " n=10"), {}),
    "win-reversi-octagon": ("reversi", reversi_wipe_out(10, 2, 3, "x", " octagon"), {}),
    # Focus: c3-c4 tops the opponents' last stack
    "win-focus-2p": ("focus", focus_board({"c3": "r", "c4": "g", "e5": "r", "f6": "rr",
                                           "h4": "r"}) + " r 0,0 -,-", {}),
    "win-focus-3p": ("focus", focus_board({"c3": "r", "c4": "g", "e5": "r", "f6": "r"})
                     + " r 0,0,0 -,-,-", {}),
    "win-focus-4p-teams": ("focus", focus_board({"c3": "g", "c4": "r", "e5": "g", "f6": "y"})
                           + " g 0,0,0,0 -,-,-,-", {}),
    # Phutball: a jump beyond the goal line (player 0 attacks the top), or onto
    # it and stop (player 1 attacks the bottom); any other move lets the
    # opponent jump to their own goal at once
    "win-phutball-0-beyond": ("phutball", phutball_position(
        9, 9, ["e6", "e7", "e8", "e9", "e4", "e3", "e2"], "e5", 0), {}),
    "win-phutball-1-onto": ("phutball", phutball_position(
        9, 9, ["e5", "e4", "e3", "e2", "e7", "e8", "e9"], "e6", 1), {}),
    # Schuft: the turn that brings the last two pieces home
    "win-schuft-2p-red": ("schuft", schuft_position(
        2, 0, {7: "r1", 9: "r1", 20: "g3", 24: "g3", 31: "g1", 33: "g2"}, "9-8-2"),
        {"max_plies": 8}),
    "win-schuft-2p-green": ("schuft", schuft_position(
        2, 1, {2: "r3", 7: "r3", 12: "r3", 25: "g1", 27: "g1"}, "9-8-2"), {"max_plies": 8}),
    "win-schuft-3p-green": ("schuft", schuft_position(
        3, 1, {16: "g1", 18: "g1", 2: "r3", 5: "r3", 8: "r3", 30: "b3", 32: "b3", 34: "b3"},
        "9-8-2"), {"max_plies": 8}),
    "win-schuft-4p-yellow": ("schuft", schuft_position(
        4, 3, {34: "y1", 36: "y1", 10: "r3", 12: "r3", 14: "r3", 16: "g3", 18: "g3",
               20: "g3", 22: "b3", 24: "b3", 26: "b3"}, "9-8-2"), {"max_plies": 8}),
}

# Game set-ups for the legal-move tests: (game, factory of a fresh game, plies to advance)
SETUPS: dict[str, tuple[str, Callable[[type], Any], int]] = {
    "reversi-8": ("reversi", lambda c: c(), 9),
    "reversi-6": ("reversi", lambda c: c(size=6), 5),
    "reversi-10": ("reversi", lambda c: c(size=10), 7),
    "reversi-octagon": ("reversi", lambda c: c(board="octagon"), 6),
    "reversi-holes": ("reversi", lambda c: c(holes=["b4", "e2", "g5", "a8"]), 8),
    "reversi-endgame": ("reversi", lambda c: c(size=6), 26),
    "focus-2p": ("focus", lambda c: c(), 4),
    "focus-3p": ("focus", lambda c: c(players=3), 5),
    "focus-4p": ("focus", lambda c: c(players=4, teams=False), 6),
    "focus-4p-teams": ("focus", lambda c: c(players=4), 6),
    "focus-up_to-mirror": ("focus", lambda c: c(move_rule="up_to", mirror_rule=True), 3),
    "phutball-9x9": ("phutball", lambda c: c(columns=9, rows=9), 4),
    "phutball-15x19": ("phutball", lambda c: c(), 3),
    "phutball-jumps": ("phutball", lambda c: c.from_position(JUMPY_9x9), 0),
    "phutball-crowded": ("phutball", lambda c: c.from_position(CROWDED), 0),
    "schuft-2p": ("schuft", lambda c: c(players=2), 5),
    "schuft-3p": ("schuft", lambda c: c(players=3, seed=5), 7),
    "schuft-4p": ("schuft", lambda c: c(players=4, first_player="roll", seed=1), 9),
}

PLAYOUT_CAP = {"schuft": 4}
"""A playout cap for the searches of the legal-move tests (Schuft's whole random
games make the plain twin slow); the other games search with their defaults."""


def build(setup: str, backend: str, decision: bool = True) -> Any:
    """A game of SETUPS (advanced at random) or a position of FORCED_WINS."""
    if setup in FORCED_WINS:
        name, position, _ = FORCED_WINS[setup]
        return cls(name, backend).from_position(position)
    name, factory, plies = SETUPS[setup]
    return advance(factory(cls(name, backend)), plies, seed=len(setup), decision=decision)


def mcts(name: str, backend: str, **options: Any) -> MCTSPlayer:
    options.setdefault("iterations", budget(name, backend))
    options.setdefault("max_plies", PLAYOUT_CAP.get(name))
    options.setdefault("exact", False)  # these tests are of the search (not Schuft's tables)
    return MCTSPlayer(**options)


# ---------------------------------------------------------------------- 1. legal moves
@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_players_choose_legal_moves_and_leave_the_game_alone(setup: str, backend: str) -> None:
    name = SETUPS[setup][0]
    game = build(setup, backend)
    assert not game.is_over() and not game.is_chance_node()
    before = snapshot(game)
    player = mcts(name, backend, seed=7)
    move = player.choose(game)
    assert snapshot(game) == before
    check_legal(game, move)
    info = player.last_search
    assert isinstance(info, SearchInfo) and not info.interrupted
    assert info.iterations == player.iterations and info.threads == 1 and info.nodes >= 1
    stats = player.analyse(game)
    assert snapshot(game) == before
    assert stats and all(isinstance(s, MoveStats) for s in stats)
    for s in stats:
        check_legal(game, s.move)
        assert s.visits >= 1 and 0.0 <= s.value <= 1.0
    assert len({str(s.move) for s in stats}) == len(stats)   # each move once
    assert [s.visits for s in stats] == sorted((s.visits for s in stats), reverse=True)
    assert sum(s.visits for s in stats) == player.iterations   # one root child per iteration
    for seed in range(3):
        move = RandomPlayer(seed=seed).choose(game)
        check_legal(game, move)
    assert snapshot(game) == before


@pytest.mark.parametrize("setup", ["schuft-2p", "schuft-3p", "schuft-4p"])
def test_players_at_a_chance_node_return_a_roll(setup: str, backend: str) -> None:
    """At a Schuft roll both players return an outcome (drawn by its probability:
    no search), and leave the game alone; the roll-off start is a chance node too."""
    game = build(setup, backend, decision=False)
    while not game.is_chance_node():
        game.push(RandomPlayer(seed=1).choose(game))
    before = snapshot(game)
    outcomes = {action for action, _ in game.chance_outcomes()}
    for player in (MCTSPlayer(iterations=10, seed=3), RandomPlayer(seed=3)):
        rolls = [player.choose(game) for _ in range(40)]
        assert all(isinstance(roll, Roll) for roll in rolls)
        assert {game.move_to_action(roll) for roll in rolls} <= outcomes
        assert len(set(rolls)) > 20   # drawn, not always the same outcome
        copy = game.copy()
        copy.push(rolls[0])
        assert not copy.is_chance_node()
    assert snapshot(game) == before


WHOLE_GAMES = {  # game: (factory, MCTS iterations compiled / plain, MCTS playout cap)
    "reversi": (lambda c: c(size=6), (200, 20), None),
    "focus": (lambda c: c(max_plies=40), (100, 6), 12),
    "phutball": (lambda c: c(columns=7, rows=7, max_plies=60), (200, 20), None),
    "schuft": (lambda c: c(players=2, max_plies=14, seed=3), (60, 3), 4),
}


@pytest.mark.parametrize("name", sorted(WHOLE_GAMES))
def test_whole_games_mcts_against_random(name: str, backend: str) -> None:
    """Games to the end, MCTS in one seat and random players in the others;
    every move (rolls included) pushed on the game."""
    factory, iterations, cap = WHOLE_GAMES[name]
    for seat in (0, 1):
        game = factory(cls(name, backend))
        engine = MCTSPlayer(iterations=iterations[backend == "python"], seed=seat, max_plies=cap)
        others = RandomPlayer(seed=seat)
        searched = 0
        while not game.is_over():
            mover = game.current_player()
            player = engine if mover == seat else others
            move = player.choose(game)
            searched += player is engine and not game.is_chance_node()
            game.push(move)
            assert len(game.move_stack) < 1000
        assert searched > 0 and engine.total_iterations == searched * engine.iterations
        assert engine.total_seconds > 0 and game.outcome() is not None


# ---------------------------------------------------------------------- 2. the twins agree
TWIN_CASES: dict[str, tuple[str, dict[str, Any]]] = {
    # setup (or forced win), player options
    "reversi-8": ("reversi-8", {"iterations": 300}),
    "reversi-octagon": ("reversi-octagon", {"iterations": 100, "exploration": 0.3}),
    "reversi-holes": ("reversi-holes", {"iterations": 200, "threads": 3}),
    "reversi-endgame": ("reversi-endgame", {"iterations": 400, "exploration": 0.0}),
    "focus-2p": ("focus-2p", {"iterations": 60}),
    "focus-3p": ("focus-3p", {"iterations": 60, "max_plies": 6}),
    "focus-4p-teams": ("focus-4p-teams", {"iterations": 60, "threads": 2}),
    "focus-4p-uncut": ("focus-4p", {"iterations": 15, "max_plies": 100, "exploration": 2.0}),
    "phutball-9x9": ("phutball-9x9", {"iterations": 300}),
    "phutball-jumps": ("phutball-jumps", {"iterations": 400, "threads": 2}),
    "phutball-crowded": ("phutball-crowded", {"iterations": 150}),
    "schuft-2p": ("schuft-2p", {"iterations": 12, "max_plies": 6}),
    "schuft-3p": ("schuft-3p", {"iterations": 8, "max_plies": 3, "threads": 2}),
    "schuft-4p-win": ("win-schuft-4p-yellow", {"iterations": 40, "max_plies": 10,
                                               "exact": False}),
    "phutball-win": ("win-phutball-1-onto", {"iterations": 200, "threads": 2}),
    "focus-4p-teams-win": ("win-focus-4p-teams", {"iterations": 100}),
}


@needs_cython
@pytest.mark.parametrize("case", sorted(TWIN_CASES))
def test_the_twins_grow_the_same_trees(case: str) -> None:
    """Same seed, same budget: the compiled search and the plain twin give the
    same analyse() list, exactly (moves, visits and float values), and the same
    tree sizes; searches of a second call (the seed stream moved on) too."""
    options = TWIN_CASES[case][1]
    games = [build(TWIN_CASES[case][0], backend) for backend in ("cython", "python")]
    assert games[0].position() == games[1].position()
    players = [MCTSPlayer(seed=2024, **options) for _ in games]
    first = [p.analyse(g) for p, g in zip(players, games, strict=True)]
    assert first[0] == first[1]
    assert first[0] and sum(s.visits for s in first[0]) == options["iterations"]
    infos = [p.last_search for p in players]
    assert infos[0] is not None and infos[1] is not None
    assert (infos[0].iterations, infos[0].nodes) == (infos[1].iterations, infos[1].nodes)
    second = [p.choose(g) for p, g in zip(players, games, strict=True)]
    assert second[0] == second[1]


@needs_cython
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=st.sampled_from(["reversi-6", "reversi-octagon", "phutball-jumps", "focus-4p"]),
       plies=st.integers(0, 8), seed=st.integers(0, 2**64 - 1), iterations=st.integers(1, 60),
       threads=st.integers(1, 3), exploration=st.floats(0, 4), cap=st.sampled_from([None, 1, 5]))
def test_the_twins_agree_on_any_seed(setup: str, plies: int, seed: int, iterations: int,
                                     threads: int, exploration: float, cap: Any) -> None:
    """Any seed, budget, thread count, exploration and playout cap, over positions
    of three games: never a difference."""
    results = []
    for backend in ("cython", "python"):
        game = advance(build(setup, backend), plies, seed)
        if game.is_over():
            return
        player = MCTSPlayer(iterations=iterations, seed=seed, threads=threads,
                            exploration=exploration, max_plies=cap)
        results.append((player.analyse(game), player.choose(game)))
    assert results[0] == results[1]
    assert sum(s.visits for s in results[0][0]) == iterations


# ---------------------------------------------------------------------- 3. reproducible
@pytest.mark.parametrize("name", ["reversi", "focus", "phutball", "schuft"])
def test_a_seeded_search_is_reproducible(name: str, backend: str) -> None:
    # (Schuft: a position of a few moves, so that a small budget sees them all)
    setup = {"reversi": "reversi-8", "focus": "focus-4p-teams", "phutball": "phutball-jumps",
             "schuft": "win-schuft-3p-green"}[name]
    game = build(setup, backend)
    iterations = (budget(name, backend) if name != "schuft" else 100) // (
        2 if backend == "python" else 1)
    cap = 6 if name == "schuft" else None

    def search(seed: Any, threads: int = 1) -> tuple[list[Any], Any, int]:
        player = mcts(name, backend, seed=seed, threads=threads, iterations=iterations,
                      max_plies=cap)
        stats = player.analyse(game)
        move = player.choose(game)
        assert player.last_search is not None
        return stats, move, player.last_search.nodes

    first = search(5)
    assert search(5) == first
    # threads: each tree its share of the budget; together the whole budget
    threaded = search(5, threads=2)
    assert search(5, threads=2) == threaded
    assert sum(s.visits for s in threaded[0]) == iterations
    player = mcts(name, backend, seed=5, threads=3, iterations=iterations)
    player.choose(game)
    assert player.last_search is not None
    assert player.last_search.iterations == iterations and player.last_search.threads == 3
    # other seeds grow other trees (some of them differ)
    assert len({repr(search(seed)[0]) for seed in (1, 2, 3, 4)}) > 1
    # the seed stream moves on: a player's next search is a new one, the same for the same seed
    a, b = (mcts(name, backend, seed=9, iterations=iterations, max_plies=cap) for _ in range(2))
    assert [repr(a.analyse(game)) for _ in range(3)] == [repr(b.analyse(game)) for _ in range(3)]


@pytest.mark.parametrize("threads", [2, 3, 8])
def test_more_threads_than_iterations(threads: int, backend: str) -> None:
    """Trees whose share of the budget is no iteration at all add nothing
    (brett 0.x raised IndexError: their root had no children)."""
    game = brett.Reversi.twin(backend)()
    for iterations in (1, threads - 1):
        player = MCTSPlayer(iterations=iterations, threads=threads, seed=1)
        stats = player.analyse(game)
        assert sum(s.visits for s in stats) == iterations
        check_legal(game, player.choose(game))
        assert player.last_search is not None and player.last_search.iterations == iterations


def test_unseeded_players_search(backend: str) -> None:
    game = brett.Reversi.twin(backend)(size=6)
    check_legal(game, MCTSPlayer(iterations=budget("reversi", backend)).choose(game))
    check_legal(game, RandomPlayer().choose(game))


# ---------------------------------------------------------------------- 4. forced wins
@pytest.mark.parametrize("case", sorted(FORCED_WINS))
def test_mcts_finds_the_win_in_one(case: str, backend: str) -> None:
    """Constructed positions where exactly one of several moves wins at once
    (checked here by pushing each move): the search chooses it; its value is 1."""
    name, position, options = FORCED_WINS[case]
    game = cls(name, backend).from_position(position)
    mover = game.current_player()
    winning = []
    for move in game.legal_moves:
        copy = game.copy()
        copy.push(move)
        outcome = copy.outcome()
        if outcome is not None and mover in outcome.winners:
            winning.append(move)
    assert len(winning) == 1 and game.legal_moves.count() >= 2, (case, winning)
    iterations = 400 if backend == "cython" else 60 if name == "schuft" else 150
    for seed in (1, 2) if backend == "cython" else (1,):
        player = MCTSPlayer(iterations=iterations, seed=seed, **options)
        assert player.choose(game) == winning[0], case
        best = player.analyse(game)[0]
        # A Schuft turn is searched decision by decision: the value of its first
        # step also counts the other steps the mover tried after it.
        assert best.move == winning[0] and (best.value == 1.0 or (name == "schuft"
                                                                  and best.value > 0.9))


# ---------------------------------------------------------------------- 5. stop and Ctrl-C
def run_stopped(player: MCTSPlayer, game: Any, delay: float) -> tuple[Any, float]:
    """choose() with player.stop() called from another thread after ``delay``."""
    timer = threading.Timer(delay, player.stop)
    started = time.monotonic()
    timer.start()
    try:
        move = player.choose(game)
    finally:
        timer.cancel()
    return move, time.monotonic() - started


@pytest.mark.timing
@pytest.mark.parametrize("name", ["reversi", "focus", "phutball", "schuft"])
def test_stop_ends_a_long_search(name: str, backend: str) -> None:
    """stop() from another thread ends a 60 s search at once (the bound below is
    liveness, not speed) with a legal move and last_search.interrupted."""
    setup = {"reversi": "reversi-8", "focus": "focus-3p", "phutball": "phutball-crowded",
             "schuft": "schuft-4p"}[name]
    game = build(setup, backend)
    before = snapshot(game)
    for threads in (1, 2):
        player = mcts(name, backend, seconds=60, iterations=None, seed=1, threads=threads)
        move, elapsed = run_stopped(player, game, 0.2)
        assert elapsed < 10
        check_legal(game, move)
        info = player.last_search
        assert info is not None and info.interrupted and info.iterations > 0
        assert info.seconds < 10 and info.rate > 0
    assert snapshot(game) == before
    # a stop() while nothing runs is forgotten: the next search is whole
    player = mcts(name, backend, seed=1, iterations=10)
    player.stop()
    player.choose(game)
    assert player.last_search is not None
    assert not player.last_search.interrupted and player.last_search.iterations == 10


@pytest.mark.timing
def test_a_time_budget_ends_the_search(backend: str) -> None:
    player = MCTSPlayer(seconds=0.2, seed=1)
    game = brett.Focus.twin(backend)()
    move = player.choose(game)
    check_legal(game, move)
    info = player.last_search
    assert info is not None and not info.interrupted and info.iterations > 0
    assert info.seconds < 10


@pytest.mark.timing
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to oneself is POSIX")
@pytest.mark.usefixtures("ctrl_c_raises")
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize("threads", [1, 2])
def test_ctrl_c_returns_the_best_move_so_far(threads: int, backend: str) -> None:
    game = build("phutball-jumps", backend)
    before = snapshot(game)
    player = MCTSPlayer(seconds=60, seed=1, threads=threads)
    presser = CtrlC(0.3)
    started = time.monotonic()
    presser.start()
    try:
        move = player.choose(game)
    except KeyboardInterrupt:   # would end the whole pytest run
        pytest.fail("the interrupted search raised KeyboardInterrupt after some iterations")
    finally:
        presser.stop()
    assert time.monotonic() - started < 10
    check_legal(game, move)
    info = player.last_search
    assert info is not None and info.interrupted and info.iterations > 0
    assert snapshot(game) == before
    player.seconds = None   # the player is free again: a new search works
    player.iterations = 20
    check_legal(game, player.choose(game))


@pytest.fixture
def first_iteration_late(monkeypatch: pytest.MonkeyPatch) -> None:
    """Search workers that get to their first iteration only after the search was
    told to stop: a stop or a Ctrl-C that lands before any iteration."""
    work = _mcts._work

    def late(tree: Any, iterations: int, stop: Any, *rest: Any) -> None:
        deadline = time.monotonic() + 30
        while not stop.is_set() and time.monotonic() < deadline:
            time.sleep(0.002)
        work(tree, iterations, stop, *rest)

    monkeypatch.setattr(_mcts, "_work", late)


@pytest.mark.timing
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to oneself is POSIX")
@pytest.mark.usefixtures("ctrl_c_raises", "first_iteration_late")
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_ctrl_c_before_the_first_iteration_still_gives_a_move(backend: str) -> None:
    """As documented: every tree completes one iteration, so even a Ctrl-C that
    lands before the search began returns a legal move, marked interrupted."""
    game = brett.Reversi.twin(backend)()
    player = MCTSPlayer(seconds=60, seed=1)
    presser = CtrlC(0.2)
    presser.start()
    try:
        start = time.monotonic()
        move = player.choose(game)
        elapsed = time.monotonic() - start
    finally:
        presser.stop()
    check_legal(game, move)
    assert elapsed < 10
    info = player.last_search
    assert info is not None and info.interrupted and info.iterations == 1


@pytest.mark.timing
@pytest.mark.usefixtures("first_iteration_late")
def test_stop_before_the_first_iteration_is_no_ctrl_c(backend: str) -> None:
    """A stop() before any iteration: the one iteration every tree does gives a
    legal move (never KeyboardInterrupt, never an empty answer)."""
    game = brett.Reversi.twin(backend)()
    player = MCTSPlayer(seconds=60, seed=1)
    try:
        move, elapsed = run_stopped(player, game, 0.1)
    except KeyboardInterrupt:   # would end the whole pytest run
        pytest.fail("stop() raised KeyboardInterrupt")
    assert elapsed < 10
    check_legal(game, move)
    assert player.last_search is not None and player.last_search.iterations == 1


@pytest.mark.usefixtures("first_iteration_late")
def test_a_budget_over_before_the_first_iteration(backend: str) -> None:
    """A time budget over before any iteration still gives a legal move (seen
    without the fixture too: MCTSPlayer(seconds=1e-9).choose(Reversi()))."""
    game = brett.Reversi.twin(backend)()
    player = MCTSPlayer(seconds=0.05, seed=1)
    check_legal(game, player.choose(game))
    assert player.last_search is not None and player.last_search.iterations == 1
    for _ in range(20):
        check_legal(game, MCTSPlayer(seconds=1e-9).choose(game))


# ---------------------------------------------------------------------- 6. bad input
BAD_OPTIONS = [
    *({"seconds": v} for v in (0, -1, -0.5, math.nan, math.inf, -math.inf, "1", "x", b"1",
                               True, [1], 10**400, 1j)),
    *({"iterations": v} for v in (0, -1, 2**31, 2**40, 1.5, 10.0, "10", True, math.nan)),
    *({"threads": v} for v in (0, -1, 257, 1000, 2.0, "2", True, None)),
    *({"exploration": v} for v in (-0.1, -math.inf, math.inf, math.nan, "1", None, False)),
    *({"max_nodes": v} for v in (0, -1, 2**40, 1.5, "50")),
    *({"max_plies": v} for v in (0, -1, 1.5, "5", 2**31)),
    *({"seed": v} for v in ("x", 1.5, True, [1])),
    *({"exact": v} for v in (1, 0, "yes", None)),
]


@pytest.mark.parametrize("options", BAD_OPTIONS, ids=repr)
def test_bad_options_are_a_brett_error(options: dict[str, Any]) -> None:
    with pytest.raises(BrettError):
        MCTSPlayer(**options)


@pytest.mark.parametrize("n", [0, 11, -1, "x", "5", 5.0, True, None, 2**70])
def test_bad_levels_are_a_brett_error(n: Any) -> None:
    with pytest.raises(BrettError):
        MCTSPlayer.level(n)
    with pytest.raises(BrettError):
        MCTSPlayer.level(5, seed="x")
    with pytest.raises(BrettError):
        MCTSPlayer.level(5, threads=0)


@pytest.mark.parametrize("seed", ["x", 1.5, True])
def test_random_player_bad_seed(seed: Any) -> None:
    with pytest.raises(BrettError):
        RandomPlayer(seed=seed)


def test_good_options_are_accepted() -> None:
    import numpy as np
    player = MCTSPlayer(seconds=np.float64(0.5), iterations=np.int64(5), threads=np.int32(2),
                        exploration=0, max_nodes=1, max_plies=1, seed=2**200)
    assert (player.seconds, player.iterations, player.threads, player.exploration) == \
        (0.5, 5, 2, 0.0)
    assert MCTSPlayer().seconds == 1.0 and MCTSPlayer().iterations is None   # the default budget
    assert MCTSPlayer(iterations=7).seconds is None
    assert "MCTSPlayer(" in repr(player) and repr(RandomPlayer(1)) == "RandomPlayer()"


def finished(name: str, backend: str) -> Any:
    options = {"phutball": {"columns": 7, "rows": 7}, "schuft": {"players": 2, "max_plies": 6},
               "focus": {"max_plies": 8}}
    game = cls(name, backend)(**options.get(name, {}))
    game.random_playout(seed=1)
    assert game.is_over()
    return game


@pytest.mark.parametrize("name", ["reversi", "focus", "phutball", "schuft"])
def test_choose_refuses_what_is_not_a_game_in_play(name: str, backend: str) -> None:
    game = finished(name, backend)
    for player in (MCTSPlayer(iterations=5), RandomPlayer(seed=1)):
        with pytest.raises(BrettError, match="over"):
            player.choose(game)
        for thing in (None, "reversi", cls(name, backend), 42, game._core):
            with pytest.raises(BrettError, match="expected a brett game"):
                player.choose(thing)
    for thing in (game, None):
        with pytest.raises(BrettError):
            MCTSPlayer(iterations=5).analyse(thing)


@pytest.mark.parametrize("name", ["phutball", "schuft"])
def test_choose_refuses_a_half_made_move(name: str, backend: str) -> None:
    """Phutball in the middle of a jump, Schuft in the middle of a turn (through
    apply_action): a BrettError naming the pending actions; nothing changes."""
    if name == "phutball":
        game = cls(name, backend).from_position(JUMPY_9x9)
        n = game.columns * game.rows
        jumps = [a for a in game.legal_actions() if n <= a < n + 8]
        assert jumps
        game.apply_action(jumps[0])
    else:
        game = build("schuft-2p", backend)
        game.apply_action(game.legal_actions()[0])
    assert game.pending_actions
    before = snapshot(game)
    for player in (MCTSPlayer(iterations=5), RandomPlayer(seed=1)):
        with pytest.raises(BrettError, match="pending"):
            player.choose(game)
    with pytest.raises(BrettError, match="pending"):
        MCTSPlayer(iterations=5).analyse(game)
    assert snapshot(game) == before


def test_analyse_refuses_a_chance_node(backend: str) -> None:
    game = brett.Schuft.twin(backend)(players=2)
    assert game.is_chance_node()
    with pytest.raises(BrettError, match="chance"):
        MCTSPlayer(iterations=5).analyse(game)


@pytest.mark.parametrize("call", ["choose", "analyse"])
def test_one_player_searches_one_game_at_a_time(call: str, backend: str) -> None:
    """A second thread calling a searching player gets a BrettError (never a
    crash); the first search goes on, and the player is free afterwards."""
    game = build("reversi-8", backend)
    player = MCTSPlayer(seconds=60, seed=1)
    results: list[Any] = []

    def search() -> None:
        try:
            results.append(player.choose(game))
        except BaseException as exc:  # handed to the test
            results.append(exc)

    first = threading.Thread(target=search)
    first.start()
    try:
        deadline = time.monotonic() + 10
        while not any(t.name.startswith("brett-mcts-") for t in threading.enumerate()):
            assert time.monotonic() < deadline, "the first search never started"
            time.sleep(0.001)
        for _ in range(3):
            with pytest.raises(BrettError, match="another thread"):
                getattr(player, call)(brett.Reversi.twin(backend)())
        time.sleep(0.1)   # some iterations before the stop (see the stop() xfail below)
    finally:
        player.stop()
        first.join(10)
    assert not first.is_alive() and len(results) == 1
    check_legal(game, results[0])
    player.seconds, player.iterations = None, 10
    check_legal(game, player.choose(game))


def test_many_threads_on_one_player_never_crash(backend: str) -> None:
    """Four threads sharing one player, each move a search or a BrettError."""
    game = brett.Reversi.twin(backend)(size=6)
    player = MCTSPlayer(iterations=budget("reversi", backend) // 4, seed=1)
    outcomes: list[Any] = []

    def work() -> None:
        for _ in range(5):
            try:
                outcomes.append(player.choose(game))
            except BrettError as exc:
                outcomes.append(exc)
            except BaseException as exc:  # a crash: fails the test
                outcomes.append(("crash", exc))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(outcomes) == 20
    for outcome in outcomes:
        if isinstance(outcome, BrettError):
            assert "another thread" in str(outcome)
        else:
            check_legal(game, outcome)


# ---------------------------------------------------------------------- 7. levels
def test_levels_grow_in_strength() -> None:
    players = [MCTSPlayer.level(n, seed=1) for n in range(1, 11)]
    assert sorted(LEVELS) == list(range(1, 11))
    for n, player in enumerate(players, 1):
        assert (player.iterations, player.seconds) == LEVELS[n] and player.threads == 1
    for weaker, stronger in itertools.pairwise(players):
        assert weaker.iterations is not None and stronger.iterations is not None
        assert weaker.seconds is not None and stronger.seconds is not None
        assert weaker.iterations < stronger.iterations and weaker.seconds < stronger.seconds
    assert MCTSPlayer.level(3, threads=2).threads == 2
    assert MCTSPlayer.level(np_int(4)).iterations == LEVELS[4][0]


def np_int(n: int) -> Any:
    import numpy as np
    return np.int16(n)


def test_levels_are_documented() -> None:
    """docs/ai.md's table of levels is LEVELS, and so is the docstring's name."""
    text = (DOCS / "ai.md").read_text()
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| (iterations|at most seconds) \|"
                                                        r"(.*)\|$", text, re.M)}
    iterations = [int(c.strip().replace(",", "")) for c in rows["iterations"].split("|")]
    seconds = [float(c) for c in rows["at most seconds"].split("|")]
    assert list(zip(iterations, seconds, strict=True)) == [LEVELS[n] for n in range(1, 11)]
    assert "LEVELS" in (MCTSPlayer.level.__doc__ or "")


def test_a_low_level_keeps_to_its_iterations(backend: str) -> None:
    game = brett.Reversi.twin(backend)()
    player = MCTSPlayer.level(1, seed=1)
    check_legal(game, player.choose(game))
    assert player.last_search is not None and 1 <= player.last_search.iterations <= 10


# ---------------------------------------------------------------------- 8. memory
NODE_CASES = [  # setup, max_nodes, threads (the root's search actions in brackets)
    ("reversi-8", 50, 1),           # [8]
    ("reversi-8", 50, 2),
    ("reversi-endgame", 20, 1),     # [3]
    ("phutball-9x9", 50, 1),        # [42]
    ("focus-3p", 50, 1),            # [39]
    ("focus-4p", 50, 1),            # [44]
    ("win-schuft-3p-green", 20, 2),  # [6], then chance nodes of 216 rolls: no room for them
    ("focus-2p", 50, 1),            # [74]: wider than max_nodes, the root is made anyway
    ("schuft-3p", 50, 1),           # [2]
    ("phutball-crowded", 100, 1),   # [172]
]


@pytest.mark.parametrize(("setup", "max_nodes", "threads"), NODE_CASES)
def test_a_full_tree_keeps_searching(setup: str, max_nodes: int, threads: int,
                                     backend: str) -> None:
    """max_nodes bounds each tree; a full tree goes on with its iterations (all
    of them done) and returns a legal move."""
    name = FORCED_WINS[setup][0] if setup in FORCED_WINS else SETUPS[setup][0]
    game = build(setup, backend)
    iterations = 3 * budget(name, backend)
    player = mcts(name, backend, seed=1, iterations=iterations, max_nodes=max_nodes,
                  threads=threads)
    check_legal(game, player.choose(game))
    info = player.last_search
    assert info is not None and info.iterations == iterations
    assert info.nodes <= max(max_nodes, 1 + root_width(game)) * threads

    unbounded = mcts(name, backend, seed=1, iterations=iterations, threads=threads)
    unbounded.choose(game)
    assert unbounded.last_search is not None
    assert unbounded.last_search.nodes > max_nodes * threads   # the bound did bite


def root_width(game: Any) -> int:
    """The search actions at the root (a wide root gets its children anyway)."""
    core = game._core.clone(False)
    if game.backend() == "python":
        return len(core._s_actions())
    from brett._core._common import probe_actions  # compiled cores only
    return len(probe_actions(core))


# ---------------------------------------------------------------------- 9. the random player
@pytest.mark.parametrize("setup", ["reversi-10", "focus-3p", "phutball-crowded", "schuft-4p"])
def test_a_seeded_random_player_is_reproducible(setup: str, backend: str) -> None:
    game = build(setup, backend)

    def sequence(seed: int) -> list[Any]:
        player = RandomPlayer(seed=seed)
        return [player.choose(game) for _ in range(12)]

    first = sequence(3)
    assert sequence(3) == first
    assert sequence(4) != first
    assert len({str(m) for m in first}) > 1
    for move in first:
        check_legal(game, move)


def test_a_random_player_plays_every_move() -> None:
    """Uniform over the legal moves: in 600 draws from Reversi's start all four
    appear, none far off 150."""
    game = brett.Reversi()
    player = RandomPlayer(seed=11)
    counts: dict[str, int] = {}
    for _ in range(600):
        move = str(player.choose(game))
        counts[move] = counts.get(move, 0) + 1
    assert sorted(counts) == sorted(str(m) for m in game.legal_moves)
    assert all(90 < c < 210 for c in counts.values()), counts


def test_module_contents() -> None:
    assert set(ai.__all__) == {"LEVELS", "MCTSPlayer", "MoveStats", "PUCTPlayer", "Player",
                               "RandomPlayer", "ReversiPlayer", "ReversiSearchInfo",
                               "SearchInfo", "Solution", "solve"}
    assert SearchInfo(10, 0.0, 1, 1, False).rate == 0.0
    assert SearchInfo(10, 2.0, 1, 1, False).rate == 5.0


@pytest.fixture(autouse=True)
def no_leftover_workers() -> Iterator[None]:
    """Every search joins its workers before it returns."""
    yield
    assert not [t for t in threading.enumerate() if t.name.startswith("brett-mcts-")]
