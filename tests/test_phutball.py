"""Phutball rules (P1-P8) on both cores: jumps, chains, removal of men, goal lines,
corners, the ply cap, notation, illegal-move reasons, position strings (with the
``jump:`` field of a half-made ball move), options, the integer layer's action
encoding and its step-by-step ball moves, game-specific perft checks and the
text board.  Everything generic (push/pop, copies, pickles, records, threads,
argument errors) is checked for every game in test_api.py, test_properties.py
and test_reliability.py; the reference perft values live in test_perft.py."""

from __future__ import annotations

import random
import threading
import tracemalloc
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brett import (
    BrettError,
    EmptyStackError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    Phutball,
    Stopped,
    Stopper,
)
from brett._core._rng import SplitMix64
from brett.phutball import PhutballMove
from conftest import BACKENDS, needs_cython
from strategies import phutball_positions

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def picture(rows: str, side: int = 0, extra: str = "") -> str:
    """A position string (P7) from a picture: one line per row, top row first,
    ``.`` empty, ``O`` a man, ``*`` the ball."""
    lines = [line.strip() for line in rows.strip().splitlines()]
    fields = []
    for line in lines:
        out, run = "", 0
        for ch in line:
            if ch == ".":
                run += 1
                continue
            if run:
                out += str(run)
                run = 0
            out += ch
        fields.append(out + (str(run) if run else ""))
    cols, nrows = len(lines[0]), len(lines)
    size = "" if (cols, nrows) == (15, 19) else f" {cols}x{nrows}"
    return "/".join(fields) + f" {side}" + size + extra


def naive_perft(game: Any, depth: int, count_finished: bool = False) -> int:
    """perft by pushing and popping every listed legal move (no bulk counting,
    no in-place jump search)."""
    if depth == 0:
        return 1
    if game.is_over():
        return 1 if count_finished else 0
    total = 0
    for move in list(game.legal_moves):
        game.push(move)
        total += naive_perft(game, depth - 1, count_finished)
        game.pop()
    return total


# 9x9: ball e5; a run e6+e7 north, then f8 east of the landing point e8.
CHAIN = picture("""
.........
.....O...
....O....
....O....
....*....
.........
.........
.........
.........
""")
N = 81  # the placements of a 9x9 board; the jump actions are N + direction, stop N + 8

# A lattice of men on every other point: the number of jump paths explodes.
LATTICE_7x9 = ("13/13/3O1O1O5/2O1O1O1O4/3O1O1O5/2O1O1O1O4/3O*O1O5/2O1O1O1O4/"
               "3O1O1O5/2O1O1O1O4/3O1O1O5/13/13 0 13x13")
LATTICE_9x9 = ("13/13/3O1O1O1O3/2O1O1O1O1O2/3O1O1O1O3/2O1O1O1O1O2/3O1O*O1O3/"
               "2O1O1O1O1O2/3O1O1O1O3/2O1O1O1O1O2/3O1O1O1O3/13/13 0 13x13")
DENSE_9x9 = ("1O1O1O1O1/OOOOOOOOO/1O1O1O1O1/OOOOOOOOO/1O1O*O1O1/OOOOOOOOO/"
             "1O1O1O1O1/OOOOOOOOO/1O1O1O1O1 0 9x9")
"""Every other point a man, rows of men between: more jump paths than any
machine can count (each man is jumpable from up to four sides)."""


def within(seconds: float, call: Any) -> Any:
    """``call()`` in a thread holding a Stopper that stops it after ``seconds``:
    its result, or a failure where it would have run on."""
    stopper, box = Stopper(), {}

    def run() -> None:
        with stopper:
            try:
                box["result"] = call()
            except BaseException as exc:  # handed to the test
                box["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    stopper.stop()
    worker.join(10)
    assert not worker.is_alive(), "the call ignored the Stopper"
    if isinstance(box.get("error"), Stopped):
        pytest.fail(f"still running after {seconds} s")
    if "error" in box:
        raise box["error"]
    return box["result"]


# ----------------------------------------------------------------- perft (P8)
def test_perft_counts_goal_moves_and_cap(backend: str) -> None:
    cls = Phutball.twin(backend)
    # Ball e8 next to e9: the jump over the top goal line is a move and ends the game.
    game = cls.from_position(picture("""
.........
....O....
....*....
.........
.........
.........
.........
.........
.........
"""))
    assert game.perft(1) == 9 * 9 - 2 + 1
    assert game.perft(2) == naive_perft(game, 2)
    assert game.perft(2, count_finished=True) == naive_perft(game, 2, True) == \
        game.perft(2) + 1
    capped = cls(columns=9, rows=9, max_plies=2)
    assert capped.perft(3) == 0
    assert capped.perft(3, count_finished=True) == capped.perft(2) > 0


@pytest.mark.parametrize("position", [
    CHAIN, "9/9/3O1O3/2O1O1O2/3O*O3/2O1O1O2/3O1O3/9/9 1 9x9",
    "5O3/4O4/4*4/9/9/9/4O4/4O4/9 0 9x9", "9/9/9/9/9/9/2OO5/2OO*4/3O5 1 9x9"])
def test_bulk_perft_equals_make_unmake_perft(backend: str, position: str) -> None:
    """Bulk counting and the in-place jump search against plain push/pop
    enumeration (multi-jump chains, goal lines, an own goal)."""
    game = Phutball.twin(backend).from_position(position)
    for d in (1, 2):
        assert game.perft(d) == naive_perft(game, d), d
        assert game.perft(d, True) == naive_perft(game, d, True), d
    assert game.position() == position


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(position=phutball_positions())
def test_bulk_perft_matches_enumeration(backend: str, position: str) -> None:
    """On random boards of every size (and random ply caps): perft(1) is the
    number of listed moves, and perft(2) matches push/pop enumeration; a
    bounded count stops at the limit wherever it falls (placements or paths)."""
    game = Phutball.twin(backend).from_position(position)
    count = game.legal_moves.count()
    assert game.perft(1) == count == naive_perft(game, 1)
    for limit in {0, count // 3, count // 2, max(count - 1, 0), count}:
        assert game.legal_moves.count(limit=limit) == min(count, limit + 1)
    if count <= 120:  # push/pop enumeration is slow on big boards
        assert game.perft(2) == naive_perft(game, 2)
        assert game.perft(2, True) == naive_perft(game, 2, True)


# ----------------------------------------------------------------- jumps (P4)
def test_chain_with_removals(backend: str) -> None:
    game = Phutball.twin(backend).from_position(CHAIN)
    moves = {str(m) for m in game.legal_moves if m.is_jump}
    assert moves == {"e5-e8", "e5-e8-g8"}
    assert game.push("E5-E8-G8") == PhutballMove(("e5", "e8", "g8"))
    assert game.ball == "g8" and game.turn == 1
    assert game.position() == "9/6*2/9/9/9/9/9/9/9 1 9x9"  # e6, e7 and f8 are gone
    assert game.piece_map() == {"g8": "ball"}
    game.pop()
    assert game.position() == CHAIN


def test_every_prefix_is_a_move_and_paths_are_distinct(backend: str) -> None:
    # Four diagonal one-jump paths, listed in the direction order N, NE, ... NW.
    game = Phutball.twin(backend).from_position(picture("""
.........
.........
.........
...O.O...
....*....
...O.O...
.........
.........
.........
"""))
    jumps = [str(m) for m in game.legal_moves if m.is_jump]
    # NE over f6 to g7; SE over f4 to g3; SW; NW; and from each landing no more
    # jumps (the other men are two columns away), so four one-jump paths.
    assert jumps == ["e5-g7", "e5-g3", "e5-c3", "e5-c7"]
    game2 = Phutball.twin(backend).from_position(picture("""
.........
.........
.........
....O....
...O*O...
....O....
.........
.........
.........
"""))
    assert [str(m) for m in game2.legal_moves if m.is_jump] == \
        ["e5-e7", "e5-g5", "e5-e3", "e5-c5"]
    # Two paths to the same landing point are two moves (P4): e5-e7 alone and
    # the chain e5-e8-... of CHAIN both exist as separate moves there.
    chain = Phutball.twin(backend).from_position(CHAIN)
    assert chain.legal_moves.count() == 81 - 4 + 2


def test_loop_back_to_the_start_point(backend: str) -> None:
    # N over e6 to e7, SE over f6 to g5, W over f5 back to e5: a legal 3-jump move.
    game = Phutball.twin(backend).from_position(picture("""
.........
.........
.........
....OO...
....*O...
.........
.........
.........
.........
"""))
    assert "e5-e7-g5-e5" in game.legal_moves
    game.push("e5-e7-g5-e5")
    assert game.ball == "e5" and game.position() == "9/9/9/9/4*4/9/9/9/9 1 9x9"


def test_chain_through_the_goal_line(backend: str) -> None:
    game = Phutball.twin(backend).from_position(picture("""
.....O...
....O....
....*....
.........
.........
.........
.........
.........
.........
"""))
    jumps = {str(m) for m in game.legal_moves if m.is_jump}
    assert jumps == {"e7-e9", "e7-e9-g9"}  # lands on the goal line, then jumps on
    game.push("e7-e9-g9")
    out = game.outcome()
    assert out is not None and out.winner == 0 and game.is_over()
    assert not game.legal_moves and game.legal_actions() == []
    with pytest.raises(IllegalMoveError, match="over"):
        game.push("a5")


@pytest.mark.parametrize(("rows", "path", "winner", "ball"), [
    ("....O....\n....*....\n" + ".........\n" * 7, "e8-e10", 0, "e10"),
    (".........\n" * 7 + "....*....\n....O....\n", "e2-e0", 1, "e0"),
])
def test_jump_over_each_goal_line(backend: str, rows: str, path: str, winner: int,
                                  ball: str) -> None:
    for side in (0, 1):  # the winner is decided by the ball, not by the mover
        game = Phutball.twin(backend).from_position(picture(rows, side))
        game.push(path)
        out = game.outcome()
        assert out is not None and out.winners == (winner,)
        assert game.ball == ball and game.piece_at(ball) == "ball"
        assert game.piece_map() == {ball: "ball"}  # the jumped man is gone
        # the ball beyond the line is written as one extra row holding only the ball
        again = type(game).from_position(game.position())
        assert again == game and again.ball == ball and again.is_over()
        assert len(game.position().split()[0].split("/")) == 10
        # nothing can follow a landing beyond the goal line
        assert game.legal_actions() == [] and game.perft(1) == 0


def test_own_goal_loses(backend: str) -> None:
    # Player 0 attacks the top but jumps the ball over the bottom goal line.
    game = Phutball.twin(backend).from_position(picture(
        ".........\n" * 6 + "....*....\n....O....\n.........", side=0))
    game.push("e3-e1")
    out = game.outcome()
    assert out is not None and out.winners == (1,) and "row 1" in out.reason
    assert game.returns() == [-1.0, 1.0]


def test_landing_on_a_goal_line_wins_at_the_end_of_the_move(backend: str) -> None:
    """P5: a path that only passes through a goal line and ends inside decides
    nothing; a path that stops on the line does."""
    position = picture("""
.........
....O....
....*O...
.........
.........
.........
.........
.........
.........
""")
    game = Phutball.twin(backend).from_position(position)
    assert {str(m) for m in game.legal_moves if m.is_jump} == {"e7-e9", "e7-g7"}
    game.push("e7-g7")
    assert game.outcome() is None
    game.pop()
    game.push("e7-e9")
    assert game.outcome() is not None and game.outcome().winners == (0,)


def test_no_landing_beyond_a_corner_or_a_sideline(backend: str) -> None:
    game = Phutball.twin(backend).from_position(picture(
        "O........\n.*.......\n" + ".........\n" * 7))
    # ball b8: NW over a9 would land beyond the corner: illegal
    assert not any(m.is_jump for m in game.legal_moves)
    with pytest.raises(IllegalMoveError):
        game.push("b8-a10")
    with pytest.raises(IllegalMoveError):
        game.apply_action(N + 7)  # NW as an action
    side = Phutball.twin(backend).from_position(picture(
        ".........\n" * 4 + "O*.......\n" + ".........\n" * 4))
    assert not any(m.is_jump for m in side.legal_moves)  # over the sideline
    assert all(a < N for a in side.legal_actions())
    # but a diagonal that crosses the goal line inside the columns is fine
    ok = Phutball.twin(backend).from_position(picture(
        ".O.......\n*........\n" + ".........\n" * 7))
    assert [str(m) for m in ok.legal_moves if m.is_jump] == ["a8-c10"]


def test_full_board(backend: str) -> None:
    """Every point but the ball holds a man: no placement; only the jumps whose run
    leaves over a goal line inside the columns remain (so P5's no-move loss cannot
    arise on a board: N and S always leave that way)."""
    rows = ["OOOOO"] * 7
    rows[3] = "OO*OO"   # ball c4 on a 5x7 board
    game = Phutball.twin(backend).from_position(picture("\n".join(rows)))
    moves = [str(m) for m in game.legal_moves]
    assert moves == ["c4-c8", "c4-c0"]
    assert game.perft(1) == 2 and game.legal_moves.count() == 2
    assert game.legal_actions() == [35 + 0, 35 + 4]
    rows[3] = "OOOOO"
    rows[1] = "OO*OO"   # ball c6: NE runs d7 and lands e8 beyond the top line
    game = Phutball.twin(backend).from_position(picture("\n".join(rows)))
    assert [str(m) for m in game.legal_moves] == ["c6-c8", "c6-e8", "c6-c0", "c6-a8"]
    assert game.perft(2) == 0 and game.perft(2, count_finished=True) == 4


def test_long_chains_many_paths_bounded_memory(backend: str) -> None:
    game = Phutball.twin(backend).from_position(LATTICE_7x9)
    men = LATTICE_7x9.count("O")
    empties = 13 * 13 - men - 1
    tracemalloc.start()
    try:
        count = game.legal_moves.count()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 396424  # the same on both cores
    assert count - empties == 396287  # jump paths over 31 men
    assert peak < 200_000  # counting walks the paths, it never stores them
    assert game.perft(1) == count


@needs_cython
def test_huge_lattice_count_on_the_compiled_core() -> None:
    """15.6 million paths: minutes on the plain twin, so the compiled core only
    (its counting of the 7x9 lattice is checked against the twin above)."""
    big = Phutball.twin("cython").from_position(LATTICE_9x9)
    assert big.perft(1) == big.legal_moves.count() == 15660432


def test_count_with_a_limit_stops_counting_paths(backend: str) -> None:
    """count(limit=N) is the count up to N and N + 1 above: exact around the
    placements (counted arithmetically) and the paths (walked)."""
    game = Phutball.twin(backend).from_position(LATTICE_7x9)
    exact, empties = 396424, 13 * 13 - LATTICE_7x9.count("O") - 1
    for limit in (0, 1, empties - 1, empties, empties + 1, 5000, exact - 1, exact, 10**12):
        assert game.legal_moves.count(limit=limit) == min(exact, limit + 1), limit


def test_uncountable_positions_answer_bounded_questions(backend: str) -> None:
    """bool(legal_moves) once counted every path and never ended on this
    lattice; the bounded count, bool and perft_tasks (which asks how many
    children a position has) now end at once."""
    game = Phutball.twin(backend).from_position(DENSE_9x9)
    assert within(30, lambda: bool(game.legal_moves)) is True
    assert within(30, lambda: game.legal_moves.count(limit=20000)) == 20001
    assert within(60, lambda: game.perft_tasks(3, tasks=4)) == [(game.position(), 3)]


# ----------------------------------------------------------------- end, cap, outcome
def test_ply_cap_is_a_draw_and_is_in_the_position(backend: str) -> None:
    game = Phutball.twin(backend)(columns=7, rows=7, max_plies=3)
    assert game.position() == "7/7/7/3*3/7/7/7 0 7x7 plies:0/3"
    assert game.max_plies == 3 and Phutball.twin(backend)().max_plies is None
    for move in ("a1", "b1", "c1"):
        assert not game.is_over()
        game.push(move)
    out = game.outcome()
    assert out is not None and out.is_draw and "cap" in out.reason
    assert game.returns() == [0.0, 0.0]
    assert game.position().endswith("7x7 plies:3/3")
    again = type(game).from_position(game.position())
    assert again.is_over() and again.max_plies == 3 and again == game
    game.pop()
    assert not game.is_over()


def test_ply_cap_counts_a_ball_move_once(backend: str) -> None:
    """A path of several jumps (several integer actions) is one ply."""
    game = Phutball.twin(backend).from_position(CHAIN + " plies:1/2")
    game.apply_action(N + 0)
    assert game.position().endswith("plies:1/2 jump:e5-e8") and not game.is_over()
    game.apply_action(N + 2)
    game.apply_action(N + 8)
    assert game.position() == "9/6*2/9/9/9/9/9/9/9 1 9x9 plies:2/2" and game.is_over()


def test_ball_option_and_default_centre(backend: str) -> None:
    cls = Phutball.twin(backend)
    assert cls().ball == "h10" and cls(columns=19, rows=19).ball == "k10"
    assert cls(columns=6, rows=8).ball == "c4"
    assert (cls().columns, cls().rows) == (15, 19)
    game = cls(columns=9, rows=9, ball="B2")
    assert game.ball == "b2" and game.perft(1) == 80
    assert game.position() == "9/9/9/9/9/9/9/1*7/9 0 9x9"
    assert len(cls(columns=5, rows=25).points) == 125
    assert cls(columns=5, rows=5).points[:6] == ["a1", "b1", "c1", "d1", "e1", "a2"]


# ----------------------------------------------------------------- notation (P6)
def test_notation_and_move_objects(backend: str) -> None:
    game = Phutball.twin(backend)()
    move = game.parse_move(" H10-h12-K12 ")
    assert move == PhutballMove.parse("h10-h12-k12")
    assert str(move) == "h10-h12-k12" and move.is_jump and not move.is_placement
    assert eval(repr(move), {"PhutballMove": PhutballMove}) == move
    assert hash(move) == hash(PhutballMove(("h10", "h12", "k12")))
    assert game.parse_move("a1").is_placement and str(game.parse_move("Z25")) == "z25"
    for bad in ("", "h", "i5", "h10--h12", "h10-", "-h10", "h100", "hh1", "h1x", "10h",
                "h 10", "h10 h12"):
        with pytest.raises(InvalidMoveError):
            game.parse_move(bad)
    for points in (("h10", 3), "h10", (), ["h10"], ("i5",)):
        with pytest.raises(InvalidMoveError):
            PhutballMove(points)  # type: ignore[arg-type]


# ----------------------------------------------------------------- position strings (P7)
def test_position_strings(backend: str) -> None:
    cls = Phutball.twin(backend)
    start = "15/15/15/15/15/15/15/15/15/7*7/15/15/15/15/15/15/15/15/15 0"
    assert cls().position() == start
    assert cls.from_position(start) == cls()
    assert cls(columns=19, rows=19).position() == "/".join(["19"] * 9 + ["9*9"] + ["19"] * 9) \
        + " 0 19x19"
    game = cls(columns=9, rows=9)
    game.push("e6")
    assert game.position() == "9/9/9/4O4/4*4/9/9/9/9 1 9x9"
    assert hash(cls.from_position(game.position())) == hash(game)
    # a ball below the bottom line: the extra row comes last
    low = cls.from_position(picture(".........\n" * 7 + "....*....\n....O....\n"))
    low.push("e2-e0")
    assert low.position() == "9/9/9/9/9/9/9/9/9/4*4 1 9x9"
    assert cls.from_position(low.position()) == low


def test_position_strings_of_a_half_made_ball_move(backend: str) -> None:
    """``jump:PATH`` holds the open path; the board is the board after its jumps."""
    cls = Phutball.twin(backend)
    text = "9/6*2/9/9/9/9/9/9/9 0 9x9 plies:2/3 jump:e5-e8-g8"
    game = cls.from_position(text)
    assert game.position() == text and game.pending_actions == (N + 0, N + 2)
    assert game.move_stack == [] and game.ball == "g8" and game.turn == 0
    assert game.start_position() == CHAIN + " plies:2/3"  # before the jumps
    assert game.legal_actions() == [N + 8]
    game.apply_action(N + 8)
    assert game.position() == "9/6*2/9/9/9/9/9/9/9 1 9x9 plies:3/3" and game.is_over()
    assert [str(m) for m in game.move_stack] == ["e5-e8-g8"]
    # upper case is read, lower case written
    assert cls.from_position("9/4*O3/9/9/9/9/9/9/9 0 9x9 jump:E5-E8").position() == \
        "9/4*O3/9/9/9/9/9/9/9 0 9x9 jump:e5-e8"


@pytest.mark.parametrize("bad", [
    "", "15/15 0", "15/15/15/15/15/15/15/15/15/7*7/15/15/15/15/15/15/15/15/15",
    "15/15/15/15/15/15/15/15/15/7*7/15/15/15/15/15/15/15/15/15 2",
    "15/15/15/15/15/15/15/15/15/7*7/15/15/15/15/15/15/15/15/14 0",
    "15/15/15/15/15/15/15/15/15/7*7/15/15/15/15/15/15/15/15/15/15 0",
    "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 0",
    "15/15/15/15/15/15/15/15/15/7**6/15/15/15/15/15/15/15/15/15 0",
    "15/15/15/15/15/15/15/15/15/7*x6/15/15/15/15/15/15/15/15/15 0",
    "15/15/15/15/15/15/15/15/15/7*07/15/15/15/15/15/15/15/15/15 0",
    "15/15/15/15/15/15/15/15/15/7*7/15/15/15/15/15/15/15/15/15 0 15x19",
    "9/9/9/9/4*4/9/9/9/9 0 4x9", "9/9/9/9/4*4/9/9/9/9 0 9x9 9x9",
    "9/9/9/9/4*4/9/9/9/9 0 9x9 plies:4/3", "9/9/9/9/4*4/9/9/9/9 0 9x9 plies:0/0",
    "9/9/9/9/4*4/9/9/9/9 0 9x9 junk", "9/9/9/9/4*4/9/9/9/9 0 9x9 jump:e3-e6",
    "9/9/9/9/4*4/4O4/9/9/9 0 9x9 jump:e3-e5", "9/9/9/9/4*4/9/9/9/9 0 9x9 jump:e5-e7",
    "9/9/9/9/4*4/9/9/9/9 0 9x9 jump:e5", "9/9/9/9/4*4/9/9/9/9 0 9x9 jump:zz",
    "4O4/9/9/9/4*4/9/9/9/9/9 0 9x9", "9/9/9/9/9/9/9/9/9/4*4 0 9x9 jump:e3-e0",
    "4O4/9/9/9/4*4/9/9/9/9/9/9 0 9x9", None, 42,
    # half-made ball moves: out of order, at the cap, not ending at the ball, a
    # path that needs men where the board has them, a step that is no jump
    "9/6*2/9/9/9/9/9/9/9 0 9x9 jump:e5-e8-g8 plies:2/3",
    "9/6*2/9/9/9/9/9/9/9 0 9x9 plies:3/3 jump:e5-e8-g8",
    "9/6*2/9/9/9/9/9/9/9 0 9x9 jump:e5-e8-g8-e8",
    "9/9/9/9/4*4/9/9/9/9 0 9x9 jump:e5-e7-e5",
    "9/6*2/9/9/9/9/9/9/9 0 9x9 jump:e5-f8-g8",
    "9/6*2/9/9/9/9/9/9/9 0 9x9 jump:g8-g8",
    "9/6*2/9/9/9/9/9/9/9 0 9x9 jump:e5-e8-g8 jump:e5-e8-g8",
])
def test_bad_position_strings(backend: str, bad: Any) -> None:
    with pytest.raises(InvalidPositionError):
        Phutball.twin(backend).from_position(bad)


@pytest.mark.parametrize("kwargs", [
    {"columns": 4}, {"columns": 26}, {"rows": 4}, {"rows": 30}, {"columns": "15"},
    {"rows": True}, {"columns": 9.0}, {"ball": "h1"}, {"ball": "h19"}, {"ball": "z5"},
    {"ball": "x"}, {"ball": 5}, {"max_plies": 0}, {"max_plies": -3}, {"max_plies": "9"},
    {"max_plies": True},
])
def test_bad_constructor_options(backend: str, kwargs: dict[str, Any]) -> None:
    with pytest.raises(InvalidPositionError):
        Phutball.twin(backend)(**kwargs)


# ----------------------------------------------------------------- illegal moves
@pytest.mark.parametrize(("move", "error"), [
    ("e5", IllegalMoveError),          # the ball is there
    ("e6", IllegalMoveError),          # a man is there
    ("k5", IllegalMoveError),          # no column k on 9 columns
    ("e10", IllegalMoveError),         # a placement beyond the board
    ("e0", IllegalMoveError),
    ("d4-d6", IllegalMoveError),       # the ball is not on d4
    ("e5-f5", IllegalMoveError),       # not a jump
    ("e5-e9", IllegalMoveError),       # overshoots the landing point
    ("e5-e7", IllegalMoveError),       # stops inside the run of men
    ("e5-e8-e6", IllegalMoveError),    # no man between e8 and e6 any more
    ("e5-e8-g8-j8", IllegalMoveError),
    ("e5-e8-g8-g8", IllegalMoveError),
    ("x", InvalidMoveError), ("e5-", InvalidMoveError), ("", InvalidMoveError),
    (None, InvalidMoveError), (7, InvalidMoveError), (("e5",), InvalidMoveError),
])
def test_bad_moves(backend: str, move: Any, error: type) -> None:
    game = Phutball.twin(backend).from_position(CHAIN)
    with pytest.raises(error):
        game.push(move)
    assert game.position() == CHAIN and game.move_stack == []
    assert move not in game.legal_moves


def test_illegal_reasons_are_specific(backend: str) -> None:
    game = Phutball.twin(backend).from_position(CHAIN)
    with pytest.raises(IllegalMoveError, match="ball is on e5"):
        game.push("e5")
    with pytest.raises(IllegalMoveError, match="already holds a man"):
        game.push("e6")
    with pytest.raises(IllegalMoveError, match="not on d4"):
        game.push("d4-d6")
    with pytest.raises(IllegalMoveError, match="9x9 board"):
        game.push("z30")
    with pytest.raises(IllegalMoveError, match="not every step is a jump"):
        game.push("e5-e8-e6")


def test_beyond_goal_path_must_end(backend: str) -> None:
    game = Phutball.twin(backend).from_position(picture("""
....O....
....*....
.........
.........
.........
.........
.........
.........
.........
"""))
    assert "e8-e10" in game.legal_moves
    with pytest.raises(IllegalMoveError):
        game.push("e8-e10-e8")
    assert "e8-e10-e8" not in game.legal_moves


# ----------------------------------------------------------------- integer layer
def test_action_encoding(backend: str) -> None:
    game = Phutball.twin(backend).from_position(CHAIN)
    assert game.num_distinct_actions() == N + 9 and game.stop_action == N + 8
    assert Phutball.twin(backend)().num_distinct_actions() == 15 * 19 + 9
    assert game.move_to_action("a1") == 0 and game.move_to_action("b1") == 1
    assert game.move_to_action("a2") == 9 and game.move_to_action("j9") == 80
    assert game.action_to_move(0) == PhutballMove(("a1",))
    assert game.action_to_move(80) == PhutballMove(("j9",))
    assert game.move_to_action("e5-e8") == N + 0  # north
    actions = game.legal_actions()
    placements = [a for a in actions if a < N]
    assert len(placements) == 81 - 4 and actions[-1] == N + 0
    assert N + 8 not in actions  # no stop without a jump
    mask = game.legal_actions_mask()
    assert [i for i, b in enumerate(mask) if b] == actions
    with pytest.raises(IllegalMoveError):
        game.apply_action(4 * 9 + 4)  # e5: the ball is there
    # the eight directions N, NE, E, SE, S, SW, W, NW in action order
    ring = Phutball.twin(backend).from_position(picture("""
.........
.........
.........
...OOO...
...O*O...
...OOO...
.........
.........
.........
"""))
    targets = [ring.action_to_move(N + d) for d in range(8)]
    assert [str(m) for m in targets] == ["e5-e7", "e5-g7", "e5-g5", "e5-g3", "e5-e3",
                                         "e5-c3", "e5-c5", "e5-c7"]
    assert [ring.move_to_action(m) for m in targets] == [N + d for d in range(8)]


def test_step_by_step_jumps(backend: str) -> None:
    game = Phutball.twin(backend).from_position(CHAIN)
    start = game.position()
    game.apply_action(N + 0)  # jump north: e5-e8, the move is pending
    assert game.pending_actions == (N + 0,) and game.move_stack == []
    assert game.turn == 0 and game.current_player() == 0
    assert game.legal_actions() == [N + 2, N + 8]  # east, or stop
    assert not game.legal_moves and game.legal_moves.count() == 0
    assert game.outcome() is None and not game.is_over()
    # the board shown is the board after the jumps so far
    assert game.ball == "e8" and game.piece_map() == {"e8": "ball", "f8": "man"}
    assert game.piece_at("e6") is None and game.piece_at("f8") == "man"
    mid = game.position()
    assert mid == "9/4*O3/9/9/9/9/9/9/9 0 9x9 jump:e5-e8"
    assert type(game).from_position(mid) == game
    with pytest.raises(IllegalMoveError):
        game.apply_action(3)  # no placement in the middle of a move
    with pytest.raises(IllegalMoveError):
        game.push("a1")
    with pytest.raises(IllegalMoveError):
        game.push("e5-e8-g8")  # not even the path it is making
    with pytest.raises(IllegalMoveError):
        game.apply_action(N + 4)  # no man south any more
    for call in (game.pop, lambda: game.perft(1), lambda: game.divide(1),
                 lambda: game.random_playout(seed=1), lambda: game.random_playouts(1, seed=1)):
        with pytest.raises(BrettError, match="half made"):
            call()
    assert game.position() == mid and game.pending_actions == (N + 0,)
    game.apply_action(N + 2)  # east over f8 to g8
    assert game.pending_actions == (N + 0, N + 2) and game.move_stack == []
    assert game.legal_actions() == [N + 8] and game.piece_map() == {"g8": "ball"}
    game.apply_action(N + 8)  # stop: ONE move on the stack
    assert game.pending_actions == () and game.turn == 1
    assert [str(m) for m in game.move_stack] == ["e5-e8-g8"]
    pushed = Phutball.twin(backend).from_position(CHAIN)
    pushed.push("e5-e8-g8")
    assert game == pushed and hash(game) == hash(pushed)
    # undo_action goes back one action at a time: stop (re-opening the move), east, north
    game.undo_action()
    assert game.pending_actions == (N + 0, N + 2) and game.move_stack == []
    assert game.position() == "9/6*2/9/9/9/9/9/9/9 0 9x9 jump:e5-e8-g8"
    game.undo_action()
    assert game.position() == mid
    game.undo_action()
    assert game.position() == start and game.move_stack == [] and game.pending_actions == ()
    with pytest.raises(EmptyStackError):
        game.undo_action()


def test_undo_action_reopens_a_pushed_ball_move(backend: str) -> None:
    game = Phutball.twin(backend).from_position(CHAIN)
    game.push("e5-e8-g8")
    game.undo_action()  # the stop of a move pushed whole
    assert game.pending_actions == (N + 0, N + 2) and game.move_stack == []
    assert game.position() == "9/6*2/9/9/9/9/9/9/9 0 9x9 jump:e5-e8-g8"
    game.undo_action()
    game.apply_action(N + 8)  # stop after one jump instead
    assert [str(m) for m in game.move_stack] == ["e5-e8"] and game.turn == 1
    game.undo_action()
    game.undo_action()
    game.push("a1")
    game.undo_action()  # a placement is one action
    assert game.position() == CHAIN and game.move_stack == []


def test_step_beyond_the_goal_line_ends_the_move(backend: str) -> None:
    game = Phutball.twin(backend).from_position(picture("""
....O....
....*....
.........
.........
.........
.........
.........
.........
.........
""", side=1))
    assert game.legal_actions()[-1] == N + 0 and N + 8 not in game.legal_actions()
    game.apply_action(N + 0)
    assert game.pending_actions == () and game.is_over()
    assert game.outcome() is not None and game.outcome().winners == (0,)
    assert [str(m) for m in game.move_stack] == ["e8-e10"]
    assert game.legal_actions() == []
    game.undo_action()  # no stop to undo: the jump itself is taken back
    assert game.move_stack == [] and game.turn == 1 and game.pending_actions == ()
    assert game.ball == "e8"


def test_a_chain_that_leaves_the_board_ends_on_its_last_jump(backend: str) -> None:
    game = Phutball.twin(backend).from_position(picture("""
.....O...
.........
....O....
....*....
.........
.........
.........
.........
.........
"""))
    game.apply_action(N + 0)  # e6 over e7 to e8
    assert game.pending_actions == (N + 0,)
    assert game.legal_actions() == [N + 1, N + 8]  # NE over f9 beyond the top line, or stop
    game.apply_action(N + 1)
    assert game.pending_actions == () and game.is_over()
    assert [str(m) for m in game.move_stack] == ["e6-e8-g10"]
    game.undo_action()
    assert game.pending_actions == (N + 0,) and game.ball == "e8"


def test_action_to_move_and_move_to_action_in_a_jump(backend: str) -> None:
    game = Phutball.twin(backend).from_position(CHAIN)
    assert game.action_to_move(N + 0) == PhutballMove(("e5", "e8"))
    with pytest.raises(IllegalMoveError):
        game.action_to_move(N + 8)  # stop with nothing pending
    with pytest.raises(IllegalMoveError):
        game.action_to_move(N + 4)  # no man south
    with pytest.raises(IllegalMoveError):
        game.move_to_action("e5-e8-g8")  # two jumps are two actions
    with pytest.raises(IllegalMoveError):
        game.move_to_action("e5-h7")  # not along a direction
    game.apply_action(N)
    assert game.action_to_move(N + 2) == PhutballMove(("e5", "e8", "g8"))
    assert game.action_to_move(N + 8) == PhutballMove(("e5", "e8"))
    with pytest.raises(IllegalMoveError):
        game.action_to_move(5)  # no placement while a move is pending
    assert game.move_to_action("e5-e8-g8") == N + 2
    with pytest.raises(IllegalMoveError):
        game.move_to_action("e5-e8-g8-g6")  # two steps from the pending path
    for bad in (-1, N + 9, "3", 2.0, True, None):
        with pytest.raises(InvalidMoveError):
            game.apply_action(bad)  # type: ignore[arg-type]
    assert game.pending_actions == (N,)


def test_move_to_action_of_the_pending_path_is_stop(backend: str) -> None:
    """While a ball move is pending, ``action_to_move(stop)`` is the path so far,
    and ``move_to_action`` of that path must give *stop* back (0.1 did)."""
    game = Phutball.twin(backend).from_position(CHAIN)
    game.apply_action(N)
    assert game.action_to_move(N + 8) == PhutballMove(("e5", "e8"))
    assert game.move_to_action("e5-e8") == N + 8


def test_random_playout_draws_a_path_step_by_step(backend: str) -> None:
    """A playout draws as the integer layer plays: uniform over the legal actions
    (placements, jump directions; then further jumps and stop) with splitmix64."""
    cls = Phutball.twin(backend)
    position = "5/1O1O1/1OOO1/O1*1O/1OOO1/1O1O1/5 0 5x7"
    for seed in range(6):
        game = cls.from_position(position)
        outcome = game.random_playout(seed=seed, max_plies=12)
        replay = cls.from_position(position)
        rng = SplitMix64(seed)
        while not replay.is_over() and len(replay.move_stack) < 12:
            actions = replay.legal_actions()
            replay.apply_action(actions[rng.below(len(actions))])
        assert replay.move_stack == game.move_stack and replay.outcome() == outcome


# ----------------------------------------------------------------- board access, observation
def test_board_access(backend: str) -> None:
    game = Phutball.twin(backend).from_position(CHAIN)
    assert game.piece_map() == {"e5": "ball", "e6": "man", "e7": "man", "f8": "man"}
    assert game.piece_at("E6") == "man" and game.piece_at("e5") == "ball"
    assert game.piece_at("a1") is None and game.piece_at("e10") is None
    assert game.piece_at("e0") is None
    for bad in ("k5", "e11", "i5", "h", "", 5, None):
        with pytest.raises(InvalidMoveError):
            game.piece_at(bad)  # type: ignore[arg-type]


def test_observation_tensor(backend: str) -> None:
    game = Phutball.twin(backend).from_position(CHAIN)
    obs = game.observation_tensor()
    assert game.observation_tensor_shape() == (4, 11, 9)
    assert obs.shape == (4, 11, 9) and obs.dtype == np.float32
    assert obs[0].sum() == 3 and obs[0][6][4] == obs[0][7][4] == obs[0][8][5] == 1
    assert obs[1].sum() == 1 and obs[1][5][4] == 1
    assert obs[2].sum() == 0 and obs[3].sum() == 0
    game.apply_action(N)  # jump north, the move stays pending
    obs = game.observation_tensor()
    assert obs[1][8][4] == 1 and obs[1].sum() == 1
    assert obs[0].sum() == 1 and obs[0][8][5] == 1 and obs[2].sum() == 0
    assert obs[3].sum() == 11 * 9
    game.apply_action(N + 2)
    game.apply_action(N + 8)
    obs = game.observation_tensor()
    assert obs[2].sum() == 11 * 9 and obs[3].sum() == 0 and obs[0].sum() == 0
    goal = Phutball.twin(backend).from_position(picture(
        ".........\n" * 7 + "....*....\n....O....\n"))
    goal.push("e2-e0")
    assert goal.observation_tensor()[1][0][4] == 1  # row index 0: beyond the bottom line


# ----------------------------------------------------------------- text board
def test_text_board(backend: str) -> None:
    game = Phutball.twin(backend)(columns=5, rows=5)
    game.push("c4")
    text = str(game)
    lines = text.splitlines()
    assert lines[0] == lines[-2] == "    a b c d e"
    assert lines[1] == lines[-3] == "    = = = = ="
    assert "  4 . . O . . 4" in text and "  3 . . * . . 3" in text
    assert lines[-1] == "Down to move (attacks row 1)"
    game.apply_action(25 + 0)  # c3 over c4 to c5: the ball on the goal line, pending
    lines = str(game).splitlines()
    assert lines[-1] == "Down to move (attacks row 1), ball move c3-c5 open"
    assert "  5 . . * . . 5" in lines and "  4 . . . . . 4" in lines
    game.apply_action(25 + 8)
    assert str(game).splitlines()[-1] == "game over: the ball reached row 5 or beyond"
    beyond = Phutball.twin(backend).from_position("2O2/2O2/2*2/5/5 0 5x5")
    beyond.push("c3-c6")
    assert str(beyond).splitlines()[1] == "    = = * = ="


# ----------------------------------------------------------------- integer layer, properties
@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(position=phutball_positions())
def test_integer_layer_walks_yield_exactly_the_ball_moves(backend: str, position: str) -> None:
    """Placements map to actions one to one, and walking the jump/stop actions in
    every possible way yields exactly the legal ball moves, each once; every
    pending step shows a board with the ball on the path's last point."""
    game = Phutball.twin(backend).from_position(position)
    moves = list(game.legal_moves)
    n = game.columns * game.rows
    actions = game.legal_actions()
    assert sorted(game.move_to_action(m) for m in moves if m.is_placement) == \
        [a for a in actions if a < n]
    for m in moves:
        if m.is_placement:
            assert game.action_to_move(game.move_to_action(m)) == m
    jumps = sorted(str(m) for m in moves if m.is_jump)
    if game.is_over() or len(jumps) > 300:  # keep the walk short
        return
    found: list[str] = []

    def explore() -> None:
        for a in game.legal_actions():
            if a < n:
                continue
            before = game.position()
            path = game.action_to_move(a)
            game.apply_action(a)
            if game.pending_actions:
                assert game.ball == path.points[-1] and game.move_stack == []
                assert game.position().endswith(f" jump:{path}")
                explore()
            else:
                assert game.peek() == path
                found.append(str(game.peek()))
            game.undo_action()
            assert game.position() == before

    explore()
    assert sorted(found) == jumps
    assert game.position() == position


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), size=st.integers(5, 9))
def test_random_ball_moves_made_by_actions_equal_the_pushed_moves(backend: str, seed: int,
                                                                  size: int) -> None:
    """A game played by actions and the same moves pushed whole reach the same
    positions, and undo_action then takes the actions back one by one."""
    rng = random.Random(seed)
    cls = Phutball.twin(backend)
    by_actions = cls(columns=size, rows=size)
    by_moves = cls(columns=size, rows=size)
    taken = []
    for _ in range(3 * size * size):
        if by_actions.is_over():
            break
        action = rng.choice(by_actions.legal_actions())
        by_actions.apply_action(action)
        taken.append(action)
        if not by_actions.pending_actions:
            by_moves.push(str(by_actions.peek()))
            assert by_actions == by_moves and hash(by_actions) == hash(by_moves)
    while taken:
        assert by_actions.pending_actions == tuple(taken[len(taken) - len(
            by_actions.pending_actions):]) or not by_actions.pending_actions
        by_actions.undo_action()
        taken.pop()
    assert by_actions == cls(columns=size, rows=size) and by_actions.move_stack == []


def test_piece_map_is_in_point_order(backend: str) -> None:
    game = Phutball.twin(backend)(columns=9, rows=9)
    for move in ("e6", "a9", "j1"):
        game.push(move)
    assert list(game.piece_map()) == ["j1", "e5", "e6", "a9"]
    assert list(game.piece_map()) == [p for p in game.points if game.piece_at(p)]
