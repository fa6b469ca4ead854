"""Phutball (rules P1–P8) on both cores: perft, positions, notation, integer layer, CLI."""

from __future__ import annotations

import io
import os
import pickle
import tracemalloc
from typing import Any

import pytest

from brett import IllegalMoveError, InvalidMoveError, InvalidPositionError, Phutball, cli
from brett.phutball import PhutballMove
from conftest import reference_vectors

VECTORS = reference_vectors("phutball")
NEEDS_CYTHON = pytest.mark.skipif(bool(os.environ.get("BRETT_NO_EXTENSIONS")),
                                  reason="BRETT_NO_EXTENSIONS=1: plain-Python twin only")


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
    """perft by making every move with push/pop (no bulk counting, no in-place DFS)."""
    if game._core_player() < 0:
        return 1 if count_finished else 0
    if depth == 0:
        return 1
    total = 0
    for cm in game._core_moves():
        game._core_push(cm)
        total += 1 if depth == 1 else naive_perft(game, depth - 1, count_finished)
        game._core_pop()
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

# A lattice of men on every other point: the number of jump paths explodes.
LATTICE_7x9 = ("13/13/3O1O1O5/2O1O1O1O4/3O1O1O5/2O1O1O1O4/3O*O1O5/2O1O1O1O4/"
               "3O1O1O5/2O1O1O1O4/3O1O1O5/13/13 0 13x13")
LATTICE_9x9 = ("13/13/3O1O1O1O3/2O1O1O1O1O2/3O1O1O1O3/2O1O1O1O1O2/3O1O*O1O3/"
               "2O1O1O1O1O2/3O1O1O1O3/2O1O1O1O1O2/3O1O1O1O3/13/13 0 13x13")


# ----------------------------------------------------------------- reference perft
def _ref_params(max_python: dict[tuple[int, int], int], max_cython: int) -> list[Any]:
    params = []
    for v in VECTORS:
        size = (v["options"]["columns"], v["options"]["rows"])
        for depth, nodes in sorted(v["perft"].items()):
            d = int(depth)
            for backend in ("python", "cython"):
                limit = max_python.get(size, 2) if backend == "python" else max_cython
                if d <= limit:
                    marks = [NEEDS_CYTHON] if backend == "cython" else []
                    params.append(pytest.param(v, d, nodes, backend, marks=marks,
                                               id=f"{v['id']}-d{d}-{backend}"))
    return params


@pytest.mark.parametrize(("vector", "depth", "nodes", "core"),
                         _ref_params({(9, 9): 3, (15, 19): 3, (19, 19): 2}, 3))
def test_reference_perft(vector: dict[str, Any], depth: int, nodes: int, core: str) -> None:
    game = Phutball.twin(core)(**vector["options"])
    for move in vector["moves"]:
        game.push(move)
    assert game.perft(depth) == nodes


@pytest.mark.slow
@NEEDS_CYTHON
@pytest.mark.parametrize("vector", VECTORS, ids=[v["id"] for v in VECTORS])
def test_reference_perft_deep_cython(vector: dict[str, Any]) -> None:
    cls = Phutball.twin("cython")
    game = cls(**vector["options"])
    for move in vector["moves"]:
        game.push(move)
    depth = max(int(d) for d in vector["perft"])
    assert game.perft(depth) == vector["perft"][str(depth)]


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
    assert game.perft(2, count_finished=True) == naive_perft(game, 2, True)
    capped = cls(columns=9, rows=9, max_plies=2)
    assert capped.perft(3) == 0
    assert capped.perft(3, count_finished=True) == capped.perft(2) == 80 * 79 + 8


@pytest.mark.parametrize("position", [
    CHAIN, "9/9/3O1O3/2O1O1O2/3O*O3/2O1O1O2/3O1O3/9/9 1 9x9",
    "5O3/4O4/4*4/9/9/9/4O4/4O4/9 0 9x9", "9/9/9/9/9/9/2OO5/2OO*4/3O5 1 9x9"])
def test_bulk_perft_equals_make_unmake_perft(backend: str, position: str) -> None:
    """Bulk counting and the in-place jump DFS against plain push/pop enumeration
    (multi-jump chains, goal lines, an own goal)."""
    game = Phutball.twin(backend).from_position(position)
    for d in (1, 2):
        assert game.perft(d) == naive_perft(game, d), d
        assert game.perft(d, True) == naive_perft(game, d, True), d


# ----------------------------------------------------------------- jumps (P4)
def test_chain_with_removals(backend: str) -> None:
    game = Phutball.twin(backend).from_position(CHAIN)
    moves = {str(m) for m in game.legal_moves if m.is_jump}
    assert moves == {"e5-e8", "e5-e8-g8"}
    game.push("E5-E8-G8")
    assert game.ball == "g8" and game.turn == 1
    assert game.position() == "9/6*2/9/9/9/9/9/9/9 1 9x9"
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
        assert game.ball == ball
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


def test_no_landing_beyond_a_corner_or_a_sideline(backend: str) -> None:
    game = Phutball.twin(backend).from_position(picture(
        "O........\n.*.......\n" + ".........\n" * 7))
    # ball b8: NW over a9 would land beyond the corner: illegal
    assert not any(m.is_jump for m in game.legal_moves)
    with pytest.raises(IllegalMoveError):
        game.push("b8-a10")
    side = Phutball.twin(backend).from_position(picture(
        ".........\n" * 4 + "O*.......\n" + ".........\n" * 4))
    assert not any(m.is_jump for m in side.legal_moves)  # over the sideline
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
    if backend == "cython":
        big = Phutball.twin("cython").from_position(LATTICE_9x9)
        assert big.perft(1) == big.legal_moves.count() == 15660432


# ----------------------------------------------------------------- end, cap, outcome
def test_ply_cap_is_a_draw_and_is_in_the_position(backend: str) -> None:
    game = Phutball.twin(backend)(columns=7, rows=7, max_plies=3)
    assert game.position() == "7/7/7/3*3/7/7/7 0 7x7 plies:0/3"
    for move in ("a1", "b1", "c1"):
        assert not game.is_over()
        game.push(move)
    out = game.outcome()
    assert out is not None and out.is_draw and "cap" in out.reason
    assert game.position().endswith("7x7 plies:3/3")
    again = type(game).from_position(game.position())
    assert again.is_over() and again.max_plies == 3 and again == game
    game.pop()
    assert not game.is_over()


def test_ball_option_and_default_centre(backend: str) -> None:
    cls = Phutball.twin(backend)
    assert cls().ball == "h10" and cls(columns=19, rows=19).ball == "k10"
    assert cls(columns=6, rows=8).ball == "c4"
    game = cls(columns=9, rows=9, ball="B2")
    assert game.ball == "b2" and game.perft(1) == 80


# ----------------------------------------------------------------- notation and strings
def test_notation_and_move_objects() -> None:
    move = PhutballMove.parse(" H10-h12-K12 ")
    assert str(move) == "h10-h12-k12" and move.is_jump and not move.is_placement
    assert eval(repr(move), {"PhutballMove": PhutballMove}) == move
    assert hash(move) == hash(PhutballMove(("h10", "h12", "k12")))
    assert PhutballMove.parse("a1").is_placement
    for bad in ("", "h", "i5", "h10--h12", "h10-", "-h10", "h100", "hh1", "h1x", "10h"):
        with pytest.raises(InvalidMoveError):
            PhutballMove.parse(bad)
    with pytest.raises(InvalidMoveError):
        PhutballMove(("h10", 3))  # type: ignore[arg-type]


def test_position_strings(backend: str) -> None:
    cls = Phutball.twin(backend)
    start = "15/15/15/15/15/15/15/15/15/7*7/15/15/15/15/15/15/15/15/15 0"
    assert cls().position() == start
    assert cls.from_position(start) == cls()
    game = cls(columns=9, rows=9)
    game.push("e6")
    assert game.position() == "9/9/9/4O4/4*4/9/9/9/9 1 9x9"
    assert hash(cls.from_position(game.position())) == hash(game)


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


@pytest.mark.parametrize(("move", "error"), [
    ("e5", IllegalMoveError),          # the ball is there
    ("e6", IllegalMoveError),          # a man is there
    ("k5", IllegalMoveError),          # no column k on 9 columns
    ("e10", IllegalMoveError),         # a placement beyond the board
    ("e0", IllegalMoveError),
    ("d4-d6", IllegalMoveError),       # the ball is not on d4
    ("e5-f5", IllegalMoveError),       # not a jump
    ("e5-e9", IllegalMoveError),       # overshoots the landing point
    ("e5-e8-e6", IllegalMoveError),    # no man between e8 and e6 any more
    ("e5-e8-g8-j8", IllegalMoveError),
    ("e5-e8-g8-g8", IllegalMoveError),
    ("x", InvalidMoveError), ("e5-", InvalidMoveError), ("", InvalidMoveError),
    (None, InvalidMoveError), (7, InvalidMoveError), (("e5",), InvalidMoveError),
])
def test_bad_moves_change_nothing(backend: str, move: Any, error: type) -> None:
    game = Phutball.twin(backend).from_position(CHAIN)
    before, key = game.position(), hash(game)
    with pytest.raises(error):
        game.push(move)
    assert (game.position(), hash(game), game.move_stack) == (before, key, [])
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
    assert game._core_is_legal(game._core_from_move(PhutballMove.parse("e8-e10")))
    with pytest.raises(IllegalMoveError):
        game.push("e8-e10-e8")


# ----------------------------------------------------------------- integer layer
def test_action_encoding(backend: str) -> None:
    game = Phutball.twin(backend).from_position(CHAIN)
    n = 81
    assert game.num_distinct_actions() == n + 9 and game.stop_action == n + 8
    assert game.move_to_action("a1") == 0 and game.move_to_action("b1") == 1
    assert game.move_to_action("a2") == 9
    assert game.action_to_move(0) == PhutballMove(("a1",))
    assert game.move_to_action("e5-e8") == n + 0  # north
    actions = game.legal_actions()
    placements = [a for a in actions if a < n]
    assert len(placements) == 81 - 4 and actions[-1] == n + 0
    mask = game.legal_actions_mask()
    assert [i for i, b in enumerate(mask) if b] == actions


def test_step_by_step_jumps(backend: str) -> None:
    game = Phutball.twin(backend).from_position(CHAIN)
    n, start = 81, game.position()
    game.apply_action(n + 0)  # jump north: e5-e8, the move is open
    assert game.in_jump and game.turn == 0 and game.current_player() == 0
    assert game.move_stack == [PhutballMove(("e5", "e8"))]
    assert game.legal_actions() == [n + 2, n + 8]  # east, or stop
    assert not game.legal_moves and game.legal_moves.count() == 0
    assert game.outcome() is None and not game.is_over()
    mid = game.position()
    assert mid == "9/4*O3/9/9/9/9/9/9/9 0 9x9 jump:e5-e8"
    assert type(game).from_position(mid) == game
    with pytest.raises(IllegalMoveError):
        game.apply_action(3)  # no placement in the middle of a move
    with pytest.raises(IllegalMoveError):
        game.push("a1")
    with pytest.raises(IllegalMoveError):
        game.apply_action(n + 4)  # no man south any more
    assert game.position() == mid
    clone = pickle.loads(pickle.dumps(game))
    assert clone == game and clone.in_jump
    assert game.copy() == game and game.copy(stack=False) == game
    game.apply_action(n + 2)  # east over f8 to g8
    assert game.move_stack == [PhutballMove(("e5", "e8", "g8"))]
    assert game.legal_actions() == [n + 8]
    game.apply_action(n + 8)  # stop: ONE move on the stack
    assert not game.in_jump and game.turn == 1
    assert [str(m) for m in game.move_stack] == ["e5-e8-g8"]
    pushed = Phutball.twin(backend).from_position(CHAIN)
    pushed.push("e5-e8-g8")
    assert game == pushed and hash(game) == hash(pushed)
    # undo_action goes back one action at a time: stop, east, north
    game.undo_action()
    assert game.in_jump and game.position() == \
        "9/6*2/9/9/9/9/9/9/9 0 9x9 jump:e5-e8-g8"
    game.undo_action()
    assert game.position() == mid
    game.undo_action()
    assert game.position() == start and game.move_stack == [] and not game.in_jump
    with pytest.raises(IndexError):
        game.undo_action()
    # pop takes back the whole open move
    game.apply_action(n + 0)
    assert game.pop() == PhutballMove(("e5", "e8"))
    assert game.position() == start and not game.in_jump


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
    game.apply_action(81 + 0)
    assert not game.in_jump and game.is_over() and game.outcome().winners == (0,)
    assert [str(m) for m in game.move_stack] == ["e8-e10"]
    game.undo_action()  # no stop to undo: the jump itself is taken back
    assert game.move_stack == [] and game.turn == 1


def test_action_to_move_and_move_to_action_in_a_jump(backend: str) -> None:
    game = Phutball.twin(backend).from_position(CHAIN)
    n = 81
    assert game.action_to_move(n + 0) == PhutballMove(("e5", "e8"))
    with pytest.raises(IllegalMoveError):
        game.action_to_move(n + 8)  # stop with nothing open
    with pytest.raises(IllegalMoveError):
        game.move_to_action("e5-e8-g8")  # two jumps are two actions
    game.apply_action(n)
    assert game.action_to_move(n + 2) == PhutballMove(("e5", "e8", "g8"))
    assert game.action_to_move(n + 8) == PhutballMove(("e5", "e8"))
    assert game.move_to_action("e5-e8-g8") == n + 2
    assert game.move_to_action("e5-e8") == n + 8
    for bad in (-1, n + 9, "3", 2.0, True, None):
        with pytest.raises(InvalidMoveError):
            game.apply_action(bad)  # type: ignore[arg-type]
    with pytest.raises(Exception, match="open"):
        game.perft(1)


def test_observation_tensor(backend: str) -> None:
    np = pytest.importorskip("numpy")
    game = Phutball.twin(backend).from_position(CHAIN)
    obs = game.observation_tensor()
    assert obs.shape == (4, 11, 9) and obs.dtype == np.float32
    assert obs[0].sum() == 3 and obs[0][6][4] == obs[0][7][4] == obs[0][8][5] == 1
    assert obs[1].sum() == 1 and obs[1][5][4] == 1
    assert obs[2].sum() == 0 and obs[3].sum() == 0
    game.apply_action(81)  # jump north, the move stays open
    obs = game.observation_tensor()
    assert obs[1][8][4] == 1 and obs[0].sum() == 1 and obs[2].sum() == 0
    assert obs[3].sum() == 11 * 9


# ----------------------------------------------------------------- text and CLI
def test_text_board(backend: str) -> None:
    game = Phutball.twin(backend)(columns=5, rows=5)
    game.push("c4")
    text = str(game)
    assert text.splitlines()[0] == "    a b c d e"
    assert "  4 . . O . . 4" in text and "  3 . . * . . 3" in text
    assert text.splitlines()[-1] == "player 1 to move (attacks row 1)"
    game.push("c3-c5")
    assert "game over" in str(game)


def test_cli_perft() -> None:
    out = io.StringIO()
    assert cli.main(["perft", "phutball", "--depth", "2"], out=out) == 0
    assert "perft(2) = 80380" in out.getvalue()
    out = io.StringIO()
    assert cli.main(["perft", "phutball", "--depth", "2", "--columns", "19", "--rows", "19",
                     "--backend", "python"], out=out) == 0
    assert "perft(2) = 129248" in out.getvalue()
    out = io.StringIO()
    assert cli.main(["perft", "phutball", "--depth", "1", "--columns", "9", "--rows", "9",
                     "--ball", "b2", "--divide"], out=out) == 0
    assert "a1 1" in out.getvalue() and "perft(1) = 80" in out.getvalue()
    assert cli.main(["perft", "phutball", "--depth", "1", "--columns", "3"],
                    out=io.StringIO()) == 2
    out = io.StringIO()
    assert cli.main(["bench", "phutball", "--games", "3", "--max-plies", "5"], out=out) == 0
    assert "3 random games" in out.getvalue()


def test_cli_play_scripted_and_random() -> None:
    args = cli.build_parser(["play", "phutball"]).parse_args(
        ["play", "phutball", "--columns", "5", "--rows", "5", "--seats", "human,human"])
    game = args._loader(args)
    answers = iter(["?", "zz", "c4", "c3-c5"])
    out = io.StringIO()
    cli.cmd_play(game, args, out, read=lambda prompt: next(answers))
    text = out.getvalue()
    assert "is not Phutball notation" in text and "game over" in text and game.is_over()
    out = io.StringIO()
    assert cli.main(["play", "phutball", "--columns", "5", "--rows", "5", "--max-plies", "4",
                     "--seats", "random,random", "--seed", "3"], out=out) == 0
    assert "game over" in out.getvalue()
