"""Reversi rules R1–R8 (docs/rules/reversi.md) on both cores (``backend`` fixture).

Only what is particular to Reversi lives here: boards, start positions, holes,
handicaps, flips, passes, outcomes, notation, position strings, options, the
action encoding, the observation planes and the text board.  The behaviour
every game shares (push/pop, copies, pickles, records, perft plumbing, the
twins agreeing on random games) is in test_api.py / test_properties.py, the
reference perft counts in test_perft.py and the CLI in test_cli.py.
"""

from __future__ import annotations

import pickle
import random
from typing import Any, Optional

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import brett
from brett.errors import IllegalMoveError, InvalidMoveError, InvalidPositionError
from brett.reversi import OCTAGON_CUTS, Reversi, ReversiMove
from conftest import BACKENDS

START = "--------/--------/--------/---ox---/---xo---/--------/--------/-------- x"
FILES = "abcdefghijklmnop"


@pytest.fixture
def cls(backend: str) -> Any:
    return Reversi.twin(backend)


def names(game: Any) -> list[str]:
    return [str(m) for m in game.legal_moves]


def rows(game: Any) -> list[str]:
    return str(game.position().split()[0]).split("/")


# ------------------------------------------------------------------ R1 boards
def test_start_position_and_moves(cls: Any) -> None:
    game = cls()
    assert game.position() == START
    assert names(game) == ["d3", "c4", "f5", "e6"]
    assert game.turn == 0 and game.current_player() == 0
    assert game.discs() == (2, 2) and game.outcome() is None and not game.is_over()
    assert game.size == 8 and game.board == "square" and game.holes == []
    assert game.num_players() == 2 and game.num_distinct_actions() == 65
    assert len(game.squares) == 64 and game.squares[:3] == ["a1", "b1", "c1"]
    # R2: White on d4 and e5, Black on e4 and d5 (rows numbered from the top)
    assert game.piece_map() == {"d4": 1, "e4": 0, "d5": 0, "e5": 1}
    assert game.piece_at("D4") == 1 and game.piece_at("e4") == 0 and game.piece_at("a1") is None
    assert (game.player_name(0), game.player_name(1)) == ("Black (x)", "White (o)")


def test_sizes_and_centre(cls: Any) -> None:
    for n in (4, 6, 8, 10, 12, 14, 16):
        game = cls(size=n)
        h = n // 2
        board = rows(game)
        assert len(board) == n
        assert board[h - 1][h - 1:h + 1] == "ox" and board[h][h - 1:h + 1] == "xo"
        assert game.position().endswith(" x" if n == 8 else f" x n={n}")
        assert game.legal_moves.count() == 4 and game.num_distinct_actions() == n * n + 1
        assert len(game.squares) == n * n and game.size == n
    assert cls(size=None).size == 8


def test_octagon_board(cls: Any) -> None:
    game = cls(board="octagon")
    assert game.size == 10 and game.board == "octagon" and game.holes == []
    board = rows(game)
    assert board[0] == "##------##" and board[1] == "#--------#" and board[2] == "----------"
    assert board[9] == "##------##" and board[8] == "#--------#"
    assert game.position().endswith(" x octagon")
    assert sum(r.count("#") for r in board) == len(OCTAGON_CUTS) == 12
    assert sum(r.count("-") for r in board) == 88 - 4
    assert len(game.squares) == 88 and not set(OCTAGON_CUTS) & set(game.squares)
    assert game.piece_map() == {"e5": 1, "f5": 0, "e6": 0, "f6": 1}
    assert cls(board="octagon", size=10) == game
    before = game.position()
    for cut in OCTAGON_CUTS:
        with pytest.raises(IllegalMoveError, match="not on the octagon"):
            game.push(cut)
    assert game.position() == before


# ------------------------------------------------------------------- R2 start
def test_handicap_corners(cls: Any) -> None:
    order = ["a1", "h8", "h1", "a8"]
    for k in range(5):
        game = cls(handicap=k)
        for i, square in enumerate(order):
            assert game.piece_at(square) == (0 if i < k else None)
        assert game.turn == 0 and game.discs() == (2 + k, 2)
    white = cls(handicap=2, handicap_color="white")
    assert white.position().startswith("o-------/") and white.discs() == (2, 4)
    assert white.turn == 0                                   # Black still moves first
    octagon = cls(board="octagon", handicap=4)               # Decision: b2, i9, i2, b9
    board = rows(octagon)
    assert board[1][1] == board[1][8] == board[8][1] == board[8][8] == "x"
    assert [octagon.piece_at(s) for s in ("b2", "i9", "i2", "b9")] == [0, 0, 0, 0]
    two = cls(board="octagon", handicap=2)
    assert (two.piece_at("b2"), two.piece_at("i9"), two.piece_at("i2")) == (0, 0, None)
    small = cls(size=4, handicap=3)
    assert [small.piece_at(s) for s in ("a1", "d4", "d1", "a4")] == [0, 0, 0, None]


# ------------------------------------------------------------------- R3 holes
def test_holes_explicit_and_random(cls: Any) -> None:
    game = cls(holes=["b4", "E2", "g5"])
    assert game.holes == ["e2", "b4", "g5"]
    board = rows(game)
    assert board[3][1] == board[1][4] == board[4][6] == "#"
    assert "b4" not in game.squares and len(game.squares) == 61
    assert cls(holes="b4,e2,g5") == game and cls(holes=" b4 , e2,g5 ") == game
    centre = {f"{f}{r}" for f in "cdef" for r in (3, 4, 5, 6)}
    for count in (1, 2, 3, 4):
        g = cls(holes=count, seed=count)
        assert len(g.holes) == count
        assert g.holes == cls(holes=count, seed=count).holes  # reproducible from the seed
        assert not set(g.holes) & centre
    counts = {len(cls(holes="random", seed=s).holes) for s in range(40)}
    assert counts == {1, 2, 3, 4}
    drawn = {tuple(cls(holes=2, seed=s).holes) for s in range(10)}
    assert len(drawn) > 1                                    # the seed matters
    # the holes are in the position: the seed is not needed to rebuild the game
    g = cls(holes="random", seed=99)
    again = cls.from_position(g.position())
    assert again.holes == g.holes and again == g
    assert cls(holes=0).holes == [] and cls(holes=[]).holes == [] and cls(holes="").holes == []


def test_hole_blocks_lines(cls: Any) -> None:
    # x a1, o b1, hole c1: o cannot play, x cannot flip across the hole
    game = cls.from_position("xo#-/----/----/---- o n=4")
    assert game.holes == ["c1"]
    assert not game.legal_moves and game.is_over()
    assert game.outcome() == brett.Outcome((), (1, 1), "neither player can move")
    # without the hole x could play c1
    assert names(cls.from_position("xo--/----/----/---- x n=4")) == ["c1"]
    # x a1, o c1 and b2, hole d1: only c3 outflanks (b2, diagonally from a1)
    game = cls.from_position("x-o#/-o--/----/---- x n=4")
    assert names(game) == ["c3"]
    # a hole in the middle of a run: d1 would flip c1 but the hole b1 cuts a1 off
    game = cls.from_position("x#o-/----/----/---- x n=4")
    assert "d1" not in game.legal_moves and names(game) == []
    assert game.is_over() and game.outcome().winners == ()


def test_flips_every_direction(cls: Any) -> None:
    # x plays d4 on a 6x6 board and outflanks a run in each of the 8 directions
    board = ["---x--", "-x-o-x", "--ooo-", "xoo-ox", "--ooo-", "-x-x-x"]
    game = cls.from_position("/".join(board) + " x n=6")
    assert game.discs() == (8, 10) and "d4" in names(game)
    game.push("d4")
    assert rows(game) == ["---x--", "-x-x-x", "--xxx-", "xxxxxx", "--xxx-", "-x-x-x"]
    assert game.discs() == (19, 0) and game.is_over()
    assert game.outcome() == brett.Outcome((0,), (19, 0), "neither player can move")
    game.pop()
    assert rows(game) == board


def test_only_outflanked_runs_flip(cls: Any) -> None:
    # x plays a1: the run b1 c1 ends in x (flips); the run a2 a3 ends empty (stays)
    game = cls.from_position("-oox/o---/o---/---- x n=4")
    assert names(game) == ["a1"]
    game.push("a1")
    assert rows(game) == ["xxxx", "o---", "o---", "----"]
    assert game.discs() == (4, 2) and game.turn == 1


# -------------------------------------------------------- R4 passes and the end
def test_pass_only_when_forced(cls: Any) -> None:
    forced = cls.from_position("ox--/----/----/---- x n=4")  # x cannot place: it must pass
    assert names(forced) == ["pass"] and forced.legal_actions() == [16]
    with pytest.raises(IllegalMoveError, match="must pass"):
        forced.push("d4")
    with pytest.raises(IllegalMoveError, match="must pass"):
        forced.push("c1")
    forced.push("pass")
    assert forced.turn == 1 and forced.position() == "ox--/----/----/---- o n=4"
    assert names(forced) == ["c1"]
    forced.push("c1")
    assert forced.is_over() and forced.outcome() == brett.Outcome(
        (1,), (0, 3), "neither player can move")
    game = cls()
    with pytest.raises(IllegalMoveError, match="pass is only allowed"):
        game.push("pass")
    with pytest.raises(IllegalMoveError):
        game.apply_action(64)


def test_game_over_needs_neither_player_to_move(cls: Any) -> None:
    # both players must pass: the game ends with empty squares left
    game = cls.from_position("xx--/xx--/----/---o x n=4")
    assert game.is_over() and not game.legal_moves
    assert game.outcome() == brett.Outcome((0,), (4, 1), "neither player can move")
    with pytest.raises(IllegalMoveError, match="over"):
        game.push("pass")


# ------------------------------------------------------------------ R5 result
def test_full_game_outcome(cls: Any) -> None:
    game = cls(size=4)
    rng = random.Random(5)
    while not game.is_over():
        game.push(rng.choice(list(game.legal_moves)))
    outcome = game.outcome()
    black, white = game.discs()
    assert outcome is not None and outcome.scores == (black, white)
    assert outcome.winners == (() if black == white else (0,) if black > white else (1,))
    expected = {(0,): [1.0, -1.0], (1,): [-1.0, 1.0], (): [0.0, 0.0]}[outcome.winners]
    assert game.returns() == expected
    assert game.legal_actions() == [] and not game.legal_moves
    full = cls.from_position("xxxx/xxxx/xxoo/oooo o n=4")
    assert full.outcome() == brett.Outcome((0,), (10, 6), "board full")
    assert full.returns() == [1.0, -1.0]
    draw = cls.from_position("xxxx/xxxx/oooo/oooo x n=4")
    assert draw.outcome() == brett.Outcome((), (8, 8), "board full") and draw.outcome().is_draw
    assert draw.returns() == [0.0, 0.0]
    # holes and empty squares count for nobody; a board full but for holes is full
    holed = cls.from_position("#xxx/xxxx/oooo/ooo# o n=4")
    assert holed.outcome() == brett.Outcome((), (7, 7), "board full")
    white = cls.from_position("oooo/oooo/oooo/ooox x n=4")
    assert white.outcome() == brett.Outcome((1,), (1, 15), "board full")
    assert white.outcome().winner == 1 and white.returns() == [-1.0, 1.0]


# ---------------------------------------------------------------- R6 notation
def test_move_type() -> None:
    move = ReversiMove.from_str("D3")
    assert move == ReversiMove(19, 8) and str(move) == "d3" and hash(move) == hash(ReversiMove(19))
    assert eval(repr(move), {"ReversiMove": ReversiMove}) == move
    assert (move.row, move.col, move.is_pass) == (2, 3, False)
    assert str(ReversiMove(None, 10)) == "pass" and ReversiMove(None).is_pass
    assert (ReversiMove(None).row, ReversiMove(None).col) == (None, None)
    assert str(ReversiMove.from_str("p16", 16)) == "p16" and str(ReversiMove(99, 10)) == "j10"
    assert ReversiMove.from_str(" PASS ") == ReversiMove(None, 8)
    assert ReversiMove(19, 8) != ReversiMove(19, 6)
    assert ReversiMove(None, 8) != ReversiMove(None, 10)
    assert ReversiMove(np.int64(19)) == move                  # numpy ints are squares too
    assert pickle.loads(pickle.dumps(move)) == move
    with pytest.raises(AttributeError):
        move.square = 3  # type: ignore[misc]
    for bad in [(64, 8), (-1, 8), ("d3", 8), (True, 8), (3, 7), (3, 18), (3.0, 8), (3, 8.0)]:
        with pytest.raises(InvalidMoveError):
            ReversiMove(*bad)
    for text, size in [("i1", 8), ("a9", 8), ("e5", 4), ("q1", 16), ("a17", 16), ("a01", 8)]:
        with pytest.raises(InvalidMoveError, match=r"not a square|not a move"):
            ReversiMove.from_str(text, size)


def test_transcript(cls: Any) -> None:
    game = cls()
    played = game.push_transcript("f5d6C3")
    assert [str(m) for m in played] == ["f5", "d6", "c3"]
    assert game.transcript() == "f5d6c3"
    before = game.position()
    with pytest.raises(IllegalMoveError):
        game.push_transcript("d3a1")                         # all or nothing
    with pytest.raises(InvalidMoveError):
        game.push_transcript("d3zz")
    with pytest.raises(InvalidMoveError):
        game.push_transcript(None)  # type: ignore[arg-type]
    assert game.position() == before and game.transcript() == "f5d6c3"
    game.push_transcript(" d3 C4\n")                         # whitespace is ignored
    assert game.transcript() == "f5d6c3d3c4"
    small = cls.from_position("ox--/----/----/---- x n=4")
    small.push_transcript("passc1")
    assert small.transcript() == "passc1" and small.is_over()


def test_move_of_another_board_size(cls: Any) -> None:
    game = cls()
    before = game.position()
    for move in (ReversiMove(19, 6), ReversiMove(None, 10), ReversiMove(0, 4)):
        with pytest.raises(InvalidMoveError, match="board"):
            game.push(move)
        assert move not in game.legal_moves
    assert game.position() == before and game.move_stack == []
    assert game.push(ReversiMove(19, 8)) == ReversiMove(19, 8)


@pytest.mark.parametrize("bad", ["", "d", "d0", "d9", "i1", "d33", "pas", "d3x", "3d", "d-3",
                                 "d 3", "passs", "d03", "j10", "p16", "a17"])
def test_malformed_notation(cls: Any, bad: str) -> None:
    game = cls()
    game.push("f5")
    before = (game.position(), hash(game), game.move_stack)
    with pytest.raises(InvalidMoveError) as info:
        game.push(bad)
    assert repr(bad) in str(info.value)
    assert (game.position(), hash(game), game.move_stack) == before


def test_notation_depends_on_the_board_size(cls: Any) -> None:
    big = cls(size=16)
    assert big.parse_move("P16") == ReversiMove(255, 16) and str(big.parse_move("j10")) == "j10"
    assert big.move_to_action("p16") == 255 and big.move_to_action("pass") == 256
    with pytest.raises(InvalidMoveError):
        cls(size=4).parse_move("e1")


@pytest.mark.parametrize(("move", "reason"), [("a1", "outflanks no"), ("d4", "occupied"),
                                               ("pass", "pass is only allowed"),
                                               ("e4", "occupied"), ("h8", "outflanks no")])
def test_illegal_moves(cls: Any, move: str, reason: str) -> None:
    game = cls()
    before = (game.position(), hash(game), game.move_stack)
    with pytest.raises(IllegalMoveError, match=reason) as info:
        game.push(move)
    assert f"illegal move {move!r}" in str(info.value)
    assert (game.position(), hash(game), game.move_stack) == before


def test_illegal_on_holes(cls: Any) -> None:
    game = cls(holes=["b2"])
    with pytest.raises(IllegalMoveError, match="hole"):
        game.push("b2")
    assert "b2" not in game.legal_moves and game.piece_at("b2") is None
    assert 9 not in game.legal_actions()
    with pytest.raises(IllegalMoveError):
        game.apply_action(9)


# ---------------------------------------------------------- R7 position string
@pytest.mark.parametrize("bad", [
    "", "x", START.replace(" x", " y"), START.replace(" x", ""), START + " n=6",
    START + " n=7", START + " square", START + " n=8 extra", START + " n=ten",
    START.replace("---ox---", "---oz---"), START.replace("---ox---", "---ox--"),
    START.replace(" x", " X"), START.replace("x", "X"),
    "/".join(["------"] * 6) + " x", "/".join(["-------"] * 7) + " x n=7",
    "/".join(["----------"] * 10) + " x octagon",            # cut squares must be '#'
    "/".join(["--"] * 2) + " x n=2", "xxxx/xxxx/xxxx/xxxo x n=4 octagon",
    "/".join(["-" * 18] * 18) + " x n=18", "x" * 401, None, 5, b"--------",
])
def test_malformed_positions(cls: Any, bad: Any) -> None:
    with pytest.raises(InvalidPositionError):
        cls.from_position(bad)


def test_position_strings(cls: Any) -> None:
    assert cls.from_position(START + " n=8").position() == START
    game = cls.from_position("-x--/-xx-/-xo-/---- o n=4")
    assert game.turn == 1 and game.position() == "-x--/-xx-/-xo-/---- o n=4"
    assert game.size == 4 and game.board == "square" and game.holes == []
    holed = cls.from_position("#x--/-xx-/-xo-/---# o n=4")
    assert holed.holes == ["a1", "d4"] and holed.position() == "#x--/-xx-/-xo-/---# o n=4"
    octagon = cls(board="octagon", holes=["c1", "b3"], handicap=1)
    text = octagon.position()
    assert text.endswith(" x octagon") and rows(octagon)[0] == "###-----##"
    again = cls.from_position(text)
    assert again.board == "octagon" and again.holes == ["c1", "b3"] and again == octagon
    # an octagon written as a plain 10x10 board is a 10x10 board with 12 holes
    plain = cls.from_position(text.replace(" octagon", " n=10"))
    assert plain.board == "square" and len(plain.holes) == 14
    assert plain.legal_moves.count() == again.legal_moves.count()
    assert plain != again                                    # different position strings
    # the side to move is taken as given, even where it must pass
    assert cls.from_position("ox--/----/----/---- x n=4").turn == 0


# -------------------------------------------------------------------- options
@pytest.mark.parametrize("kwargs", [
    {"size": 7}, {"size": 2}, {"size": 18}, {"size": 9}, {"size": "8"}, {"size": True},
    {"size": 8.0}, {"size": -8},
    {"board": "hex"}, {"board": None}, {"board": "octagon", "size": 8},
    {"board": "octagon", "size": 10.0},
    {"holes": ["d4"]}, {"holes": ["c3"]}, {"holes": ["f6"]},
    {"holes": ["a1"], "handicap": 1}, {"holes": ["h1"], "handicap": 3},
    {"holes": 5}, {"holes": -1}, {"holes": ["a1", "a2", "a3", "a4", "a5"]},
    {"holes": 1, "size": 4}, {"holes": "random", "size": 4}, {"holes": ["a1"], "size": 4},
    {"holes": ["a1", "a1"]}, {"holes": "a1,a1"}, {"holes": ["z9"]}, {"holes": ["a9"]},
    {"holes": [3]}, {"holes": [b"a1"]}, {"holes": b"a1"}, {"holes": None},
    {"holes": 2.5}, {"holes": True}, {"holes": ["pass"]}, {"holes": "randomly"},
    {"board": "octagon", "holes": ["a1"]}, {"board": "octagon", "holes": ["e5"]},
    {"board": "octagon", "holes": ["b2"], "handicap": 1},
    {"handicap": 5}, {"handicap": -1}, {"handicap": "2"}, {"handicap": 2.0},
    {"handicap_color": "red"}, {"handicap_color": None},
    {"seed": "x"}, {"seed": 1.5}, {"seed": True},
])
def test_bad_constructor_options(cls: Any, kwargs: dict[str, Any]) -> None:
    with pytest.raises(InvalidPositionError) as info:
        cls(**kwargs)
    assert any(key.rstrip("s") in str(info.value) for key in kwargs), str(info.value)


def test_good_edge_options(cls: Any) -> None:
    assert cls(holes=["a1"]).holes == ["a1"]                 # a corner without a disc
    assert cls(holes=["h8"], handicap=1).holes == ["h8"]     # only a1 carries a disc
    assert cls(board="octagon", holes=["c1", "b3"]).holes == ["c1", "b3"]
    assert cls(board="octagon", holes=["b2"]).holes == ["b2"]  # no handicap disc there
    assert len(cls(size=16, holes=4, seed=1).holes) == 4
    assert cls(size=6, holes=["a1", "f1", "a6", "f6"]).holes == ["a1", "f1", "a6", "f6"]
    numpy_game = cls(size=np.int64(6), holes=np.int64(2), handicap=np.int8(1),
                     seed=np.int64(3))
    plain = cls(size=6, holes=2, handicap=1, seed=3)
    assert numpy_game == plain and numpy_game.holes == plain.holes
    assert cls(seed=2**100, holes=1).holes == cls(seed=2**100, holes=1).holes


def test_handicap_corner_with_a_white_disc_is_not_a_hole(cls: Any) -> None:
    with pytest.raises(InvalidPositionError, match="hole"):
        cls(holes=["a1"], handicap=1, handicap_color="white")


# ------------------------------------------------------ integer layer, tensors
def test_integer_layer_encoding(cls: Any) -> None:
    game = cls(size=6)
    assert game.legal_actions() == [8, 13, 22, 27]          # c2 b3 e4 d5: row * 6 + col
    assert [str(game.action_to_move(a)) for a in game.legal_actions()] == names(game)
    assert game.move_to_action("pass") == 36 and game.move_to_action("c2") == 8
    assert game.move_to_action("a1") == 0 and game.move_to_action("f6") == 35
    assert str(game.action_to_move(36)) == "pass" and str(game.action_to_move(7)) == "b2"
    mask = game.legal_actions_mask()
    assert mask.shape == (37,) and list(np.flatnonzero(mask)) == [8, 13, 22, 27]
    game.apply_action(8)
    assert str(game.peek()) == "c2" and game.piece_at("c3") == 0
    with pytest.raises(IllegalMoveError):
        game.apply_action(36)                                # pass is not forced
    with pytest.raises(InvalidMoveError):
        game.apply_action(37)
    octagon = cls(board="octagon")
    assert octagon.num_distinct_actions() == 101 and octagon.move_to_action("pass") == 100
    assert octagon.legal_actions() == [34, 43, 56, 65]       # e4 d5 g6 f7: row * 10 + col


def test_observation_planes(cls: Any) -> None:
    game = cls.from_position("#x--/-xx-/-xo-/---# o n=4")
    obs = game.observation_tensor()
    assert obs.shape == game.observation_tensor_shape() == (3, 4, 4) and obs.dtype == np.float32
    text = rows(game)
    for r in range(4):
        for c in range(4):
            ch = text[r][c]
            # planes: empty playable squares, the mover's (White's) discs, the opponent's
            assert list(obs[:, r, c]) == [ch == "-", ch == "o", ch == "x"]
    game.push(next(iter(game.legal_moves)))
    after = game.observation_tensor()
    assert after[1].sum() == game.discs()[0] and after[2].sum() == game.discs()[1]
    assert after[0].sum() == 16 - 2 - sum(game.discs())


def test_text_board(cls: Any) -> None:
    assert str(cls(size=4, handicap=1)) == "\n".join([
        "   a b c d",
        " 1 x . . .",
        " 2 . o x .",
        " 3 . x o .",
        " 4 . . . .",
        "x to move (x 3, o 2)",
    ])
    holed = cls.from_position("#x--/-xx-/-xo-/---# o n=4")
    assert str(holed).splitlines()[1:] == [
        " 1 # x . .", " 2 . x x .", " 3 . x o .", " 4 . . . #", "o to move (x 4, o 1)"]
    over = cls.from_position("xxxx/xxxx/xxoo/oooo o n=4")
    assert str(over).splitlines()[-1] == "game over: x 10, o 6"
    big = str(cls(board="octagon")).splitlines()
    assert big[0] == "   a b c d e f g h i j" and big[10] == "10 # # . . . . . . # #"


# ----------------------------------------------- R3/R4 against a naive reading
DIRECTIONS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]


def _flips(grid: list[list[str]], r: int, c: int, me: str) -> list[tuple[int, int]]:
    """The discs a disc of ``me`` on (r, c) outflanks (R4), read off the grid."""
    n, opp = len(grid), "o" if me == "x" else "x"
    out = []
    for dr, dc in DIRECTIONS:
        run = []
        rr, cc = r + dr, c + dc
        while 0 <= rr < n and 0 <= cc < n and grid[rr][cc] == opp:
            run.append((rr, cc))
            rr, cc = rr + dr, cc + dc
        if run and 0 <= rr < n and 0 <= cc < n and grid[rr][cc] == me:
            out += run
    return out


def _placements(grid: list[list[str]], me: str) -> list[tuple[int, int]]:
    n = len(grid)
    return [(r, c) for r in range(n) for c in range(n)
            if grid[r][c] == "-" and _flips(grid, r, c, me)]


def expected_moves(position: str) -> list[str]:
    """R4 read naively off a position string: placements in row order, else a
    forced pass, else nothing (the game is over)."""
    fields = position.split()
    grid = [list(r) for r in fields[0].split("/")]
    me = fields[1]
    mine = _placements(grid, me)
    if mine:
        return [f"{FILES[c]}{r + 1}" for r, c in mine]
    return ["pass"] if _placements(grid, "o" if me == "x" else "x") else []


def expected_after(position: str, move: str) -> str:
    fields = position.split()
    grid = [list(r) for r in fields[0].split("/")]
    me = fields[1]
    if move != "pass":
        r, c = int(move[1:]) - 1, FILES.index(move[0])
        for rr, cc in [(r, c), *_flips(grid, r, c, me)]:
            grid[rr][cc] = me
    fields[0] = "/".join("".join(row) for row in grid)
    fields[1] = "o" if me == "x" else "x"
    return " ".join(fields)


def expected_outcome(position: str) -> Optional[brett.Outcome]:
    if expected_moves(position):
        return None
    board = position.split()[0]
    black, white = board.count("x"), board.count("o")
    winners = () if black == white else (0,) if black > white else (1,)
    reason = "neither player can move" if "-" in board else "board full"
    return brett.Outcome(winners, (black, white), reason)


OPTIONS = st.one_of(
    st.fixed_dictionaries({"size": st.sampled_from([4, 6, 8, 10, 12, 16]),
                           "handicap": st.integers(0, 4),
                           "handicap_color": st.sampled_from(["black", "white"])}),
    st.fixed_dictionaries({"size": st.sampled_from([6, 8, 10]),
                           "holes": st.sampled_from([1, 2, 3, 4, "random"]),
                           "seed": st.integers(0, 2**32)}),
    st.fixed_dictionaries({"board": st.just("octagon"), "handicap": st.integers(0, 4),
                           "holes": st.sampled_from([0, 2, "random"]),
                           "seed": st.integers(0, 2**32)}),
)


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(options=OPTIONS, seed=st.integers(0, 2**32), plies=st.integers(0, 70))
def test_moves_flips_and_results_follow_the_rules(backend: str, options: dict[str, Any],
                                                  seed: int, plies: int) -> None:
    """Every legal move list, every flip and every result of a random game agree
    with R3–R5 read naively off the position string (holes and cut squares are
    '#', so they never take a disc and cut every line)."""
    game = Reversi.twin(backend)(**options)
    rng = random.Random(seed)
    n = game.size
    for _ in range(plies + 1):
        position = game.position()
        expected = expected_moves(position)
        assert names(game) == expected
        assert game.legal_actions() == [n * n if m == "pass" else
                                        (int(m[1:]) - 1) * n + FILES.index(m[0])
                                        for m in expected]
        assert game.outcome() == expected_outcome(position)
        board = position.split()[0]
        assert game.discs() == (board.count("x"), board.count("o"))
        if not expected:
            assert game.is_over()
            break
        move = rng.choice(expected)
        if rng.random() < 0.5:
            game.push(move)
        else:
            game.apply_action(game.move_to_action(move))
        assert game.position() == expected_after(position, move)


# ---------------------------------------------------------------- anti-Reversi
def test_anti_reversi_by_hand() -> None:
    """4x4 anti-Reversi: the moves are Reversi's (perft 1 and 2 from the start
    counted by hand: 4 first moves, each with 3 replies), the winner the one
    with fewer discs."""
    for depth, count in ((1, 4), (2, 12)):
        assert Reversi(size=4, anti=True).perft(depth) == count
    game = Reversi.from_position("xxxx/xxxx/xxxx/xxxo o n=4 anti")
    assert game.is_over() and game.outcome().winners == (1,)  # White: 1 disc to 15
    assert Reversi.from_position("xxxx/xxxx/xxxx/xxxo o n=4").outcome().winners == (0,)
    assert game.returns() == [-1.0, 1.0]
    with pytest.raises(InvalidPositionError):
        Reversi(anti="yes")  # type: ignore[arg-type]


@pytest.mark.parametrize("size", [4, 6, 8, 10])
def test_anti_reversi_twins_agree(size: int, backend: str) -> None:
    """Perft and random games of anti-Reversi on both twins: the same counts as
    Reversi, and the wins of the other side."""
    anti, plain = Reversi.twin(backend)(size=size, anti=True), Reversi.twin(backend)(size=size)
    depth = 5 if size <= 8 else 4
    assert anti.perft(depth) == plain.perft(depth) == Reversi.twin("python")(
        size=size, anti=True).perft(depth)
    games = 300 if size <= 8 else 60
    won, normal = anti.random_playouts(games, seed=size), plain.random_playouts(games, seed=size)
    other = Reversi.twin("python")(size=size, anti=True).random_playouts(games, seed=size)
    assert won.wins == normal.wins[::-1] == other.wins and won.draws == normal.draws
    assert won.plies == normal.plies == other.plies
    for seed in range(5):
        game = Reversi.twin(backend)(size=size, anti=True)
        game.random_playout(seed=seed)
        black, white = game.discs()
        outcome = game.outcome()
        assert outcome is not None
        assert outcome.winners == (() if black == white else (0,) if black < white else (1,))
        again = pickle.loads(pickle.dumps(game))
        assert again.anti and again.copy().anti and again == game


def test_anti_reversi_searches_for_fewer_discs(backend: str) -> None:
    """The tree search values the end by the anti winner: a move that ends the
    game is worth a win under one rule and a loss under the other."""
    from brett.ai import MCTSPlayer

    for seed in range(50):  # a 4x4 game one move from its end, that move deciding it
        game = Reversi.twin(backend)(size=4)
        game.random_playout(seed=seed)
        last = game.pop()
        if game.legal_moves.count() != 1 or game.outcome() is not None:
            continue
        mover = game.current_player()
        game.push(last)
        outcome = game.outcome()
        game.pop()
        if outcome is None or not outcome.winners:
            continue
        values = []
        for anti in (False, True):
            board = Reversi.twin(backend).from_position(
                game.position() + (" anti" if anti else ""))
            [stats] = MCTSPlayer(seed=1, iterations=50).analyse(board)
            values.append(stats.value)
        won = outcome.winners == (mover,)
        assert (values[0] > values[1]) == won, (seed, values)
        return
    raise AssertionError("no seeded 4x4 game ends with a single deciding move")
