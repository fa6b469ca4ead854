"""Reversi rules, both API layers and bad input, on both twins (``backend`` fixture)."""

from __future__ import annotations

import pickle
import random
from typing import Any

import pytest

import brett
from brett.errors import IllegalMoveError, InvalidMoveError, InvalidPositionError
from brett.reversi import OCTAGON_CUTS, Reversi, ReversiMove

START = "--------/--------/--------/---ox---/---xo---/--------/--------/-------- x"


@pytest.fixture
def cls(backend: str) -> Any:
    return Reversi.twin(backend)


def names(game: Any) -> list[str]:
    return [str(m) for m in game.legal_moves]


# ------------------------------------------------------------------- set-up
def test_start_position_and_moves(cls: Any) -> None:
    game = cls()
    assert game.position() == START
    assert names(game) == ["d3", "c4", "f5", "e6"]
    assert game.turn == 0 and game.current_player() == 0
    assert game.discs() == (2, 2) and game.outcome() is None and not game.is_over()
    assert game.size == 8 and game.board == "square" and game.holes == []
    assert game.num_players() == 2 and game.num_distinct_actions() == 65


def test_sizes_and_centre(cls: Any) -> None:
    for n in (4, 6, 8, 10, 12, 14, 16):
        game = cls(size=n)
        h = n // 2
        rows = game.position().split()[0].split("/")
        assert len(rows) == n and rows[h - 1][h - 1:h + 1] == "ox" and rows[h][h - 1:h + 1] == "xo"
        assert game.position().endswith("" if n == 8 else f" n={n}")
        assert game.legal_moves.count() == 4 and game.num_distinct_actions() == n * n + 1


def test_octagon_board(cls: Any) -> None:
    game = cls(board="octagon")
    assert game.size == 10 and game.board == "octagon" and game.holes == []
    rows = game.position().split()[0].split("/")
    assert rows[0] == "##------##" and rows[1] == "#--------#" and rows[2] == "----------"
    assert rows[9] == "##------##" and rows[8] == "#--------#"
    assert game.position().endswith(" x octagon")
    assert sum(r.count("#") for r in rows) == len(OCTAGON_CUTS) == 12
    assert sum(r.count("-") for r in rows) == 88 - 4
    with pytest.raises(IllegalMoveError, match="not on the octagon"):
        game.push("a1")


def test_handicap_corners(cls: Any) -> None:
    order = ["a1", "h8", "h1", "a8"]
    for k in range(5):
        game = cls(handicap=k)
        rows = game.position().split()[0].split("/")
        for i, sq in enumerate(order):
            col, row = "abcdefgh".index(sq[0]), int(sq[1]) - 1
            assert rows[row][col] == ("x" if i < k else "-")
        assert game.turn == 0
    white = cls(handicap=2, handicap_color="white")
    assert white.position().startswith("o-------/") and white.discs() == (2, 4)
    octagon = cls(board="octagon", handicap=4)
    rows = octagon.position().split()[0].split("/")
    assert rows[1][1] == rows[1][8] == rows[8][1] == rows[8][8] == "x"


def test_holes_explicit_and_random(cls: Any) -> None:
    game = cls(holes=["b4", "E2", "g5"])
    assert game.holes == ["e2", "b4", "g5"]
    rows = game.position().split()[0].split("/")
    assert rows[3][1] == rows[1][4] == rows[4][6] == "#"
    assert cls(holes="b4,e2,g5") == game
    for count in (1, 2, 3, 4):
        g = cls(holes=count, seed=count)
        assert len(g.holes) == count
        assert g.holes == cls(holes=count, seed=count).holes  # reproducible from the seed
        centre = {f"{f}{r}" for f in "cdef" for r in (3, 4, 5, 6)}
        assert not set(g.holes) & centre
    counts = {len(cls(holes="random", seed=s).holes) for s in range(40)}
    assert counts == {1, 2, 3, 4}
    # the holes are in the position, the seed is not needed to rebuild the game
    g = cls(holes="random", seed=99)
    again = cls.from_position(g.position())
    assert again.holes == g.holes and again == g


def test_hole_blocks_lines(cls: Any) -> None:
    # x a1, o b1, hole c1: x cannot flip across; with d1 empty beyond nothing changes.
    game = cls.from_position("xo#-/----/----/---- o n=4")
    assert game.holes == ["c1"]
    assert not game.legal_moves and game.is_over()
    # Without the hole x could play c1.
    assert names(cls.from_position("xo--/----/----/---- x n=4")) == ["c1"]
    # a hole beyond a run ends the line: x d1 hole... o cannot be outflanked through it
    game = cls.from_position("x-o#/-o--/----/---- x n=4")
    assert names(game) == ["c3"]


def test_flips_every_direction(cls: Any) -> None:
    # x plays d4 on a 6x6 board and outflanks a run in each of the 8 directions.
    rows = ["---x--", "-x-o-x", "--ooo-", "xoo-ox", "--ooo-", "-x-x-x"]
    game = cls.from_position("/".join(rows) + " x n=6")
    assert game.discs() == (8, 10) and "d4" in names(game)
    game.push("d4")
    after = game.position().split()[0].split("/")
    assert after == ["---x--", "-x-x-x", "--xxx-", "xxxxxx", "--xxx-", "-x-x-x"]
    assert game.discs() == (19, 0) and game.is_over()
    game.pop()
    assert game.position().split()[0].split("/") == rows


# ---------------------------------------------------------------- moves / notation
def test_move_type() -> None:
    move = ReversiMove.from_str("D3")
    assert move == ReversiMove(19, 8) and str(move) == "d3" and hash(move) == hash(ReversiMove(19))
    assert eval(repr(move), {"ReversiMove": ReversiMove}) == move
    assert (move.row, move.col, move.is_pass) == (2, 3, False)
    assert str(ReversiMove(None, 10)) == "pass" and ReversiMove(None).is_pass
    assert str(ReversiMove.from_str("p16", 16)) == "p16" and ReversiMove(99, 10).__str__() == "j10"
    assert pickle.loads(pickle.dumps(move)) == move
    with pytest.raises(AttributeError):
        move.square = 3  # type: ignore[misc]
    for bad in [(64, 8), (-1, 8), ("d3", 8), (True, 8), (3, 7), (3, 18)]:
        with pytest.raises(InvalidMoveError):
            ReversiMove(*bad)


def test_integer_layer_encoding(cls: Any) -> None:
    game = cls(size=6)
    assert game.legal_actions() == [8, 13, 22, 27]          # c2 b3 e4 d5: row * 6 + col
    assert [str(game.action_to_move(a)) for a in game.legal_actions()] == names(game)
    assert game.move_to_action("pass") == 36 and game.move_to_action("c2") == 8
    game.apply_action(8)
    assert str(game.peek()) == "c2"
    with pytest.raises(IllegalMoveError):
        game.apply_action(36)                                # pass is not forced
    obs = game.observation_tensor()
    assert len(obs) == 3 and len(obs[0]) == 6 and len(obs[0][0]) == 6
    assert sum(map(sum, obs[2])) == game.discs()[0]          # White to move: Black opposes


def test_transcript(cls: Any) -> None:
    game = cls()
    game.push_transcript("f5d6C3")
    assert game.transcript() == "f5d6c3"
    before = game.position()
    with pytest.raises(IllegalMoveError):
        game.push_transcript("d3a1")                         # all or nothing
    with pytest.raises(InvalidMoveError):
        game.push_transcript("d3zz")
    assert game.position() == before and game.transcript() == "f5d6c3"
    small = cls.from_position("ox--/----/----/---- x n=4")
    small.push_transcript("passc1")
    assert small.transcript() == "passc1" and small.is_over()


def test_full_game_outcome(cls: Any) -> None:
    game = cls(size=4)
    rng = random.Random(5)
    while not game.is_over():
        game.push(rng.choice(list(game.legal_moves)))
    outcome = game.outcome()
    black, white = game.discs()
    assert outcome is not None and outcome.scores == (black, white)
    assert outcome.winners == (() if black == white else (0,) if black > white else (1,))
    assert game.returns() in ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])
    assert game.legal_actions() == [] and not game.legal_moves
    with pytest.raises(IllegalMoveError, match="over"):
        game.push("pass")
    full = cls.from_position("xxxx/xxxx/xxoo/oooo o n=4")
    assert full.outcome() == brett.Outcome((0,), (10, 6), "board full")
    draw = cls.from_position("xxxx/xxxx/oooo/oooo x n=4")
    assert draw.outcome() is not None and draw.outcome().is_draw


def test_text_board(cls: Any) -> None:
    text = str(cls(size=4, handicap=1))
    assert text.splitlines()[0].split() == ["a", "b", "c", "d"]
    assert text.splitlines()[1].split() == ["1", "x", ".", ".", "."]
    assert "x to move" in text


# ------------------------------------------------------------------ bad input
def assert_unchanged(game: Any, fn: Any, error: type) -> None:
    before = (game.position(), hash(game), game.move_stack)
    with pytest.raises(error) as info:
        fn()
    assert str(info.value)
    assert (game.position(), hash(game), game.move_stack) == before


@pytest.mark.parametrize("bad", ["", "d", "d0", "d9", "i1", "d33", "pas", "d3x", "3d", "d-3",
                                 "d 3", "passs", "d03"])
def test_malformed_notation(cls: Any, bad: str) -> None:
    game = cls()
    game.push("f5")
    assert_unchanged(game, lambda: game.push(bad), InvalidMoveError)


@pytest.mark.parametrize("bad", [None, 19, 3.5, b"d3", ["d3"], ReversiMove(19, 6)])
def test_wrong_move_types(cls: Any, bad: Any) -> None:
    game = cls()
    assert_unchanged(game, lambda: game.push(bad), InvalidMoveError)


@pytest.mark.parametrize(("move", "reason"), [("a1", "outflanks no"), ("d4", "occupied"),
                                               ("pass", "pass is only allowed"),
                                               ("e4", "occupied")])
def test_illegal_moves(cls: Any, move: str, reason: str) -> None:
    game = cls()
    assert_unchanged(game, lambda: game.push(move), IllegalMoveError)
    with pytest.raises(IllegalMoveError, match=reason):
        game.push(move)


def test_illegal_on_holes_and_when_pass_forced(cls: Any) -> None:
    game = cls(holes=["b2"])
    with pytest.raises(IllegalMoveError, match="hole"):
        game.push("b2")
    forced = cls.from_position("ox--/----/----/---- x n=4")
    assert_unchanged(forced, lambda: forced.push("c1"), IllegalMoveError)
    with pytest.raises(IllegalMoveError, match="must pass"):
        forced.push("d4")


@pytest.mark.parametrize("kwargs", [
    {"size": 7}, {"size": 2}, {"size": 18}, {"size": 9}, {"size": "8"}, {"size": True},
    {"board": "hex"}, {"board": "octagon", "size": 8},
    {"holes": ["d4"]}, {"holes": ["c3"]}, {"holes": ["f6"]},
    {"holes": ["a1"], "handicap": 1}, {"holes": ["h1"], "handicap": 3},
    {"holes": 5}, {"holes": -1}, {"holes": ["a1", "a2", "a3", "a4", "a5"]},
    {"holes": 1, "size": 4}, {"holes": "random", "size": 4}, {"holes": ["a1"], "size": 4},
    {"holes": ["a1", "a1"]}, {"holes": ["z9"]}, {"holes": ["a9"]}, {"holes": [3]},
    {"holes": 2.5}, {"holes": True}, {"holes": ["pass"]},
    {"board": "octagon", "holes": ["a1"]},
    {"handicap": 5}, {"handicap": -1}, {"handicap": "2"}, {"handicap_color": "red"},
])
def test_bad_constructor_options(cls: Any, kwargs: dict[str, Any]) -> None:
    with pytest.raises(InvalidPositionError):
        cls(**kwargs)


def test_good_edge_options(cls: Any) -> None:
    assert cls(holes=["a1"]).holes == ["a1"]                 # a corner without a disc
    assert cls(holes=["h8"], handicap=1).holes == ["h8"]     # only a1 carries a disc
    assert cls(board="octagon", holes=["c1", "b3"]).holes == ["c1", "b3"]
    assert cls(size=16, holes=4, seed=1).holes != []


@pytest.mark.parametrize("bad", [
    "", "x", START.replace(" x", " y"), START.replace(" x", ""), START + " n=6",
    START + " n=7", START + " square", START + " n=8 extra",
    START.replace("---ox---", "---oz---"), START.replace("---ox---", "---ox--"),
    "/".join(["------"] * 6) + " x", "/".join(["-------"] * 7) + " x n=7",
    "/".join(["----------"] * 10) + " x octagon",            # cut squares must be '#'
    "/".join(["--"] * 2) + " x n=2", "xxxx/xxxx/xxxx/xxxo x n=4 octagon",
])
def test_malformed_positions(cls: Any, bad: str) -> None:
    with pytest.raises(InvalidPositionError):
        cls.from_position(bad)


def test_non_string_position(cls: Any) -> None:
    for bad in (None, 5, b"--"):
        with pytest.raises(InvalidPositionError):
            cls.from_position(bad)


def test_position_tags(cls: Any) -> None:
    assert cls.from_position(START + " n=8").position() == START
    game = cls.from_position("-x--/-xx-/-xo-/---- o n=4")
    assert game.turn == 1 and game.position() == "-x--/-xx-/-xo-/---- o n=4"
