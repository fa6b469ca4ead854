"""Focus rules F1–F13 (docs/rules/focus.md) on both cores (``backend`` fixture).

Only what is particular to Focus lives here: start positions, stack moves under
the three move rules, reserves, overflow and captures, the end of the game for
2, 3 and 4 players, first entries, the swap and the mirror rule, notation,
position strings, options, the action encoding, the observation planes and the
text board.  Arbitrary, mostly unreachable set-up positions are checked against
a naive reading of the rules, the two cores against each other, and the
compiled core's incremental Zobrist key against ``_core.full_key()``.

The behaviour every game shares (push/pop, copies, pickles, records, perft
plumbing, the twins agreeing on random games) is in test_api.py /
test_properties.py, the reference perft counts in test_perft.py and the CLI in
test_cli.py.
"""

from __future__ import annotations

import copy
import random
import re
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from brett.errors import IllegalMoveError, InvalidMoveError, InvalidPositionError
from brett.focus import Focus, FocusMove
from brett.game import TERMINAL
from conftest import BACKENDS, needs_cython

FILES = "abcdefgh"
LETTERS = "rgby"
CUT = {"a1", "b1", "a2", "g1", "h1", "h2", "a7", "a8", "b8", "g8", "h8", "h7"}
SQUARES = [f"{f}{r}" for r in range(1, 9) for f in FILES if f"{f}{r}" not in CUT]
START_2P = (".,.,.,./r,r,g,g,r,r/.,g,g,r,r,g,g,./.,r,r,g,g,r,r,./.,g,g,r,r,g,g,./"
            ".,r,r,g,g,r,r,./g,g,r,r,g,g/.,.,.,.")


def board(stacks: dict[str, str]) -> str:
    """A board field (F12) from {square: stack bottom→top}; other squares empty."""
    ranks = []
    for y in range(8, 0, -1):
        cells = [stacks.get(f"{f}{y}", ".") for f in FILES if f"{f}{y}" not in CUT]
        ranks.append(",".join(cells))
    return "/".join(ranks)


def pos(stacks: dict[str, str], rest: str) -> str:
    return f"{board(stacks)} {rest}"


@pytest.fixture
def cls(backend: str) -> Any:
    return Focus.twin(backend)


# ------------------------------------------------------------ F1–F3 start
def test_board_squares(cls: Any) -> None:
    game = cls()
    assert game.squares == SQUARES and len(SQUARES) == 52
    assert game.squares[:4] == ["c1", "d1", "e1", "f1"] and game.squares[-1] == "f8"
    for cut in CUT:
        with pytest.raises(InvalidMoveError, match="52 playable squares"):
            game.piece_at(cut)
        with pytest.raises(InvalidPositionError):
            game.stack(cut)
        with pytest.raises(InvalidMoveError):
            game.parse_move(f"+{cut}")
    assert game.piece_at("C3") == (0,) and game.piece_at("d1") is None


def test_start_position_strings(cls: Any) -> None:
    assert cls().position() == f"{START_2P} r 0,0 -,-"
    three = cls(players=3)
    assert three.position().endswith(" r 1,1,1 -,-,- first=rgb")
    assert three.position().split()[0] == (
        ".,.,.,./r,r,g,g,b,b/.,g,g,b,b,r,r,./.,b,b,r,r,g,g,./.,r,r,g,g,b,b,./"
        ".,g,g,b,b,r,r,./b,b,r,r,g,g/.,.,.,.")
    four = cls(players=4)
    assert four.position().split()[0] == (
        "r,r,b,y/y,y,y,b,y,b/r,r,r,r,b,y,b,y/y,y,y,y,b,y,b,y/g,r,g,r,g,g,g,g/"
        "g,r,g,r,b,b,b,b/r,g,r,g,g,g/g,r,b,b")
    assert four.position().endswith(" r 0,0,0,0 -,-,-,-") and four.teams
    ffa = cls(players=4, teams=False)
    assert ffa.position().endswith(" ffa") and not ffa.teams
    for game in (cls(), three, four):
        n = game.num_players()
        pieces = game.piece_map()
        counts = [sum(s.count(p) for s in pieces.values()) + game.reserves()[p]
                  for p in range(n)]
        assert counts == [{2: 18, 3: 13, 4: 13}[n]] * n
        assert all(len(s) == 1 for s in pieces.values())
        assert game.captured() == ((0,) * n,) * n and game.ply == 0 and game.turn == 0
    assert len(four.piece_map()) == 52 and len(cls().piece_map()) == 36
    assert [four.player_name(p) for p in range(4)] == [
        "Red (r)", "Green (g)", "Blue (b)", "Yellow (y)"]


def test_options_read_back(cls: Any) -> None:
    game = cls(move_rule="up_to", mirror_rule=True, max_plies=40, swap=("c3", "d3"))
    assert (game.move_rule, game.mirror_rule, game.max_plies, game.swap) == (
        "up_to", True, 40, ("c3", "d3"))
    assert game.position().endswith(" r 0,0 -,- rule=up_to cap=40 mirror=ok swap=c3,d3")
    plain = cls()
    assert (plain.move_rule, plain.mirror_rule, plain.max_plies, plain.swap) == (
        "exact", False, None, None)
    assert not cls(players=2, teams=True).teams             # teams only mean 4 players


def test_text_board_shows_stacks_and_heights(cls: Any) -> None:
    game = cls.from_position(pos({"c3": "r", "d4": "ggrgr", "h5": "b"},
                                 "g 1,0,2 g3b1,-,r2 returned=1,0,0 ply=7"))
    lines = str(game).splitlines()
    assert lines[0].split() == list(FILES)
    assert lines[1].split() == ["8", "#", "#", ".", ".", ".", ".", "#", "#"]
    assert lines[4].split() == ["5", ".", ".", ".", ".", ".", ".", ".", "b:1"]
    assert lines[5].split() == ["4", ".", ".", ".", "ggrgr:5", ".", ".", ".", "."]
    assert lines[6].split() == ["3", ".", ".", "r:1", ".", ".", ".", ".", "."]
    # green has nothing to move: skipped on load, blue moves (F4)
    assert lines[9] == "stacks bottom→top:height; ply 7; b (blue) to move"
    assert lines[10] == "reserves r1 g0 b2; captured r:g3b1 g:- b:r2"
    assert len(lines) == 11
    over = cls.from_position(pos({"c3": "r", "c4": "g"}, "r 0,0 -,-"))
    over.push("c3-c4")
    assert str(over).splitlines()[-3:] == [
        "stacks bottom→top:height; ply 1; game over",
        "reserves r0 g0; captured r:- g:-",
        "result: winner r (the player to move has no legal move)"]
    assert "gr:2" in str(over)


# -------------------------------------------------------------- moves (F5, F10)
def test_no_move_wraps_around_the_board_edge(cls: Any) -> None:
    """F5: a straight line onto a playable square; a 4-stack on b5 moving west
    or a 3-stack on a4 moving west must not re-enter on another rank."""
    game = cls.from_position(
        pos({"b5": "rrrr", "a4": "ggr", "h4": "grrr", "g5": "g"}, "r 0,0 -,-"))
    moves = {str(m) for m in game.legal_moves if m.count is not None and m.count >= 3}
    assert moves == {"b5-e5", "b5-b2", "b5-f5", "a4-d4", "h4-e4", "h4-d4"}
    assert game.perft(1) == game.legal_moves.count() == len(game.legal_actions())


def test_moves_jump_over_stacks_and_cut_corners(cls: Any) -> None:
    # F5: squares on the way are jumped over, whatever is on them; the destination
    # must be playable (c2-c1 is, b2-b1 is a cut square)
    game = cls.from_position(pos({"b2": "rr", "c2": "gr", "c3": "g", "b3": "g"},
                                 "r 0,0 -,-"))
    moves = {str(m) for m in game.legal_moves}
    assert moves == {"b2-b3", "b2-c2", "b2-b4", "b2-d2",
                     "c2-c3", "c2-d2", "c2-b2", "c2-c1", "c2-c4", "c2-e2"}
    game.push("c2-c4")                                       # over the green c3
    assert game.stack("c4") == "gr" and game.stack("c3") == "g" and game.stack("c2") == ""


def test_notation_round_trip_and_counts(cls: Any) -> None:
    game = cls(move_rule="up_to")
    for move in game.legal_moves:
        assert game.parse_move(str(move)) == move
        assert eval(repr(move), {"FocusMove": FocusMove}) == move
    game.push("c3-c4")
    game.push("C6-C5")  # case-insensitive
    assert game.parse_move("c4-c5:2") == FocusMove("c4", "c5", 2)
    assert str(game.push("c4-c5:2")) == "c4-c5:2"  # both pieces of c4 one square
    assert game.stack("c5") == "rggr" and game.stack("c4") == ""
    # F10: a count equal to the distance may be written, and is printed plainly
    assert str(game.parse_move("c3-c5:2")) == "c3-c5" and game.parse_move(" +E5 ") == \
        FocusMove(None, "e5")
    assert FocusMove(None, "e5", 1).count == 1 and FocusMove("c3", "c5").distance == 2
    assert FocusMove(None, "e5").is_entry and FocusMove(None, "e5").distance == 0


@pytest.mark.parametrize(("args", "message"), [
    (("c3", "d4"), "straight line"), (("c3", "c3"), "straight line"),
    (("a1", "a3"), "52 playable"), (("c3", "a2"), "52 playable"),
    ((None, "e5", 2), "one piece"), (("c3", "c5", 1), "from the distance"),
    (("c3", "c4", 6), "count"), (("c3", "c4", 2.0), "count"), (("c3", "c4", True), "count"),
    (("c1", "c7"), "from the distance"), ((3, "c4"), "square name"), (("c3", None), "square"),
])
def test_move_type_errors(args: tuple[Any, ...], message: str) -> None:
    with pytest.raises(InvalidMoveError, match=message):
        FocusMove(*args)


def test_exact_rule_count_equals_distance(cls: Any) -> None:
    game = cls()
    game.push("c3-c4")
    game.push("d3-d4")
    # red owns c4 = g,r (height 2): one piece 1 square or two pieces 2 squares
    moves = {str(m) for m in game.legal_moves if m.source == "c4"}
    assert moves == {"c4-c5", "c4-b4", "c4-d4", "c4-c6", "c4-a4", "c4-e4", "c4-c2", "c4-c3"}
    with pytest.raises(IllegalMoveError, match="exactly k squares"):
        game.push("c4-c5:2")
    with pytest.raises(IllegalMoveError, match="only 2 piece"):
        game.push("c4-c7")
    assert game.push("c4-c6:2") == FocusMove("c4", "c6", 2)
    assert game.stack("c6") == "ggr" and game.stack("c4") == ""


def test_up_to_rule_moves_k_pieces_up_to_k_squares(cls: Any) -> None:
    game = cls.from_position(pos({"d4": "grr", "h5": "g"}, "r 0,0 -,- rule=up_to"))
    north = sorted(str(m) for m in game.legal_moves if m.target[0] == "d" and m.target > "d4")
    assert north == ["d4-d5", "d4-d5:2", "d4-d5:3", "d4-d6", "d4-d6:3", "d4-d7"]
    assert game.legal_moves.count() == 4 * 6                  # d1, a4, g4, d7 are playable
    game.push("d4-d5:3")
    assert game.stack("d5") == "grr" and game.stack("d4") == ""


def test_whole_rule_moves_whole_stacks_and_can_get_stuck(cls: Any) -> None:
    # red's only stack is 5 high on d4: no square 5 away in any direction (F7 note)
    game = cls.from_position(pos({"d4": "ggrgr", "c3": "g"}, "r 0,0 -,- rule=whole"))
    assert game.is_over()
    assert game.outcome().winners == (1,)
    game = cls.from_position(pos({"d4": "ggr", "c3": "g"}, "r 0,0 -,- rule=whole"))
    assert sorted(str(m) for m in game.legal_moves) == ["d4-a4", "d4-d1", "d4-d7", "d4-g4"]
    with pytest.raises(IllegalMoveError, match="whole stack of 3"):
        game.push("d4-d5")


def test_reserve_entry_anywhere(cls: Any) -> None:
    game = cls.from_position(pos({"d4": "g", "f6": "g", "e5": "r"}, "r 2,0 -,-"))
    entries = [m for m in game.legal_moves if m.is_entry]
    assert len(entries) == 52
    game.push("+d4")
    assert game.stack("d4") == "gr" and game.reserves() == (1, 0) and game.turn == 1
    assert not any(m.is_entry for m in game.legal_moves)  # green has no reserve
    with pytest.raises(IllegalMoveError, match="no piece in reserve"):
        game.push("+c3")


def test_only_reserve_pieces_still_play(cls: Any) -> None:
    # red has no stack on top anywhere, only one reserve piece
    game = cls.from_position(pos({"d4": "rg", "e5": "g"}, "r 1,0 -,-"))
    assert not game.is_over()
    moves = list(game.legal_moves)
    assert len(moves) == 52 and all(m.is_entry for m in moves)
    game.push("+d4")
    assert game.stack("d4") == "rgr"
    assert game.reserves() == (0, 0) and game.turn == 1


# ------------------------------------------------------------ overflow (F6)
def test_overflow_captures_and_reserve(cls: Any) -> None:
    game = cls.from_position(pos({"d4": "rgrgg", "d3": "gr", "a6": "g"}, "r 0,0 -,-"))
    game.push("d3-d5")  # both pieces of d3 two squares
    assert game.stack("d5") == "gr"
    game.pop()
    game.push("d3-d4:1")
    assert game.stack("d4") == "grggr"  # bottom r went back to red's reserve
    assert game.reserves() == (1, 0)
    assert game.captured() == ((0, 0), (0, 0))
    game.pop()
    game = cls.from_position(pos({"d4": "grgrg", "d2": "gr", "a6": "g"}, "r 0,0 -,-"))
    game.push("d2-d4")  # two pieces onto five: g and r from the bottom leave
    assert game.stack("d4") == "grggr"
    assert game.reserves() == (1, 0)
    assert game.captured() == ((0, 1), (0, 0))
    assert game.position().split()[2:4] == ["1,0", "g1,-"]
    assert cls.from_position(game.position()).position() == game.position()


def test_entry_overflows_too(cls: Any) -> None:
    game = cls.from_position(pos({"d4": "ggggg", "h5": "g", "c3": "r"}, "r 1,0 -,-"))
    game.push("+d4")
    assert game.stack("d4") == "ggggr" and game.captured() == ((0, 1), (0, 0))
    assert game.reserves() == (0, 0) and game.piece_at("d4") == (1, 1, 1, 1, 0)


def test_partner_and_opponent_stacks_cannot_be_moved(cls: Any) -> None:
    game = cls(players=4)
    with pytest.raises(IllegalMoveError, match="belongs to blue"):
        game.push("e8-e7")
    with pytest.raises(IllegalMoveError, match="belongs to green"):
        game.push("a4-a5")
    with pytest.raises(IllegalMoveError, match="d1 is empty"):
        cls().push("d1-d2")
    assert game.position() == cls(players=4).position()


# ------------------------------------------------------------------ end (F7)
def test_two_player_loss_by_no_move(cls: Any) -> None:
    game = cls.from_position(pos({"c3": "r", "c4": "g", "h5": "g"}, "g 0,0 -,-"))
    game.push("c4-c3")
    assert game.is_over() and game.current_player() == TERMINAL
    out = game.outcome()
    assert out.winners == (1,) and "no legal move" in out.reason and out.scores == ()
    assert game.returns() == [-1.0, 1.0]
    assert list(game.legal_moves) == [] and game.legal_actions() == []
    with pytest.raises(IllegalMoveError, match="over"):
        game.push("h5-h4")
    game.pop()
    assert not game.is_over() and game.returns() == [0.0, 0.0]


def test_three_player_first_entries(cls: Any) -> None:
    game = cls(players=3)
    assert game.legal_moves.count() == 16
    assert all(m.is_entry for m in game.legal_moves)
    with pytest.raises(IllegalMoveError, match="first enter"):
        game.push("c3-c4")
    with pytest.raises(IllegalMoveError, match="empty square"):
        game.push("+c3")
    game.push("+a3")
    assert game.turn == 1 and game.legal_moves.count() == 15
    assert game.position().endswith("ply=1 first=gb")
    game.push("+h3")
    game.push("+c1")
    assert "first=" not in game.position()
    assert any(not m.is_entry for m in game.legal_moves)


def test_three_player_capture_win(cls: Any) -> None:
    # red has captured 3 green and 2 blue; capturing one more blue wins (F7)
    start = pos({"d4": "bbgbg", "d3": "r", "e5": "g", "f6": "b"}, "r 0,0,0 g3b2,-,-")
    game = cls.from_position(start)
    game.push("d3-d4")
    out = game.outcome()
    assert out.winners == (0,) and "3 pieces of each" in out.reason
    assert game.returns() == [1.0, -1.0, -1.0]
    assert cls.from_position(game.position()).outcome() == out
    # ten removed pieces: own pieces sent to the reserve count too
    game = cls.from_position(pos({"d4": "rrggg", "d3": "r", "e5": "g", "f6": "b"},
                                 "r 0,0,0 g5,-,- returned=4,0,0"))
    assert not game.is_over()
    game.push("d3-d4")  # the bottom r returns to the reserve: 5 + 5 = 10 removed
    assert game.reserves() == (1, 0, 0)
    assert game.position().split()[-1] == "returned=5,0,0"
    assert game.outcome().winners == (0,) and "10 pieces" in game.outcome().reason


def test_three_player_skip_and_last_player(cls: Any) -> None:
    # blue has nothing: it is skipped (no ply for the skip)
    game = cls.from_position(pos({"c3": "r", "f6": "g", "h5": "r"}, "r 0,0,0 -,-,-"))
    assert not game.is_over()
    game.push("c3-c4")
    assert game.turn == 1
    game.push("f6-f5")
    assert game.turn == 0 and game.ply == 2
    # red covers green's last stack: green is skipped, blue moves next
    game = cls.from_position(pos({"c3": "r", "c4": "g", "h5": "b", "h6": "r"},
                                 "r 0,0,0 -,-,-"))
    game.push("c3-c4")
    assert not game.is_over() and game.turn == 2


def test_three_player_last_player_able_to_move(cls: Any) -> None:
    game = cls.from_position(pos({"c3": "r", "c4": "g", "h5": "b", "h4": "r"},
                                 "b 0,0,0 -,-,-"))
    game.push("h5-h4")  # blue covers red's h4; red still has c3
    assert not game.is_over() and game.turn == 0
    game.push("c3-c4")  # red covers green's only stack; blue still moves
    assert not game.is_over() and game.turn == 2
    game.push("h4-h5")  # blue uncovers red's h4
    game.push("c4-c5")  # red uncovers green's c4: green comes back (F4)
    assert game.turn == 1 and not game.is_over()
    game = cls.from_position(pos({"c3": "r", "c4": "g", "h4": "rb"}, "r 0,0,0 -,-,-"))
    game.push("c3-c4")  # now only blue (h4) and red (c4) can move
    assert not game.is_over() and game.turn == 2
    game.push("h4-h3")  # blue moves; green cannot: skipped
    assert game.turn == 0
    game = cls.from_position(pos({"c3": "r", "c4": "g", "h4": "br"}, "r 0,0,0 -,-,-"))
    game.push("c3-c4")  # green and blue cannot move: red is the last player able
    out = game.outcome()
    assert out.winners == (0,) and "last player" in out.reason
    assert game.returns() == [1.0, -1.0, -1.0]


def test_four_player_teams_end(cls: Any) -> None:
    # green (1) and yellow (3) hold one stack each; red and blue finish them off
    start = pos({"c3": "r", "c4": "g", "f6": "b", "f5": "y"}, "r 0,0,0,0 -,-,-,-")
    game = cls.from_position(start)
    game.push("c3-c4")  # green cannot move any more: skipped
    assert game.turn == 2
    game.push("f6-f5")
    out = game.outcome()
    assert out.winners == (0, 2) and "team" in out.reason
    assert game.returns() == [1.0, -1.0, 1.0, -1.0]
    # free-for-all: the same moves leave red and blue: not over
    game = cls.from_position(start + " ffa")
    game.push("c3-c4")
    game.push("f6-f5")
    assert not game.is_over() and game.turn == 0
    game = cls.from_position(pos({"c3": "r", "c4": "g", "f5": "yr"},
                                 "r 0,0,0,0 -,-,-,- ffa"))
    game.push("c3-c4")
    assert game.outcome().winners == (0,)
    assert game.outcome().reason == "the last player able to move"
    assert game.returns() == [1.0, -1.0, -1.0, -1.0]


def test_four_player_partner_capture_on_overflow(cls: Any) -> None:
    game = cls.from_position(pos({"d4": "bgyrb", "d3": "r", "a6": "g", "a5": "y", "h5": "b"},
                                 "r 0,0,0,0 -,-,-,-"))
    game.push("d3-d4")
    assert game.stack("d4") == "gyrbr"
    assert game.captured()[0] == (0, 0, 1, 0)  # the partner's piece is captured too (F6)


def test_ply_cap_draw(cls: Any) -> None:
    game = cls(max_plies=3)
    for move in ("c3-c4", "d3-d4", "b3-b4"):
        assert not game.is_over()
        game.push(move)
    out = game.outcome()
    assert out.is_draw and "ply cap" in out.reason
    assert game.returns() == [0.0, 0.0]
    assert game.position().endswith("cap=3 ply=3")
    reached = cls.from_position(f"{START_2P} r 0,0 -,- cap=5 ply=5")
    assert reached.is_over() and reached.outcome().is_draw


# ------------------------------------------------------------ anti-symmetry (F9)
def test_mirror_rule_decides_the_game(cls: Any) -> None:
    game = cls(mirror_rule=True, max_plies=4)
    for move, reply in (("c3-c4", "f6-f5"), ("c5-c6", "f4-f3")):
        game.push(move)
        assert game.position().split()[-1] == f"mirror={reply}"
        game.push(reply)
    out = game.outcome()
    assert out.winners == (0,) and "mirror" in out.reason
    assert game.returns() == [1.0, -1.0]
    game = cls(mirror_rule=True, max_plies=4)
    for move in ("c3-c4", "f6-f5", "c5-c6", "g6-g5"):
        game.push(move)
    assert game.outcome().is_draw and "mirror=no" in game.position()
    # without the rule the mirrored game is just a draw at the cap
    game = cls(max_plies=4)
    for move in ("c3-c4", "f6-f5", "c5-c6", "f4-f3"):
        game.push(move)
    assert game.outcome().is_draw


def test_mirror_of_entries_and_long_moves(cls: Any) -> None:
    # F9: (x, y) -> (7 - x, 7 - y), k kept: d4-d6:3 mirrors to e5-e3:3, +c3 to +f6
    game = cls.from_position(pos({"d4": "rrr", "e5": "ggg"}, "r 1,1 -,- rule=up_to mirror=ok"))
    game.push("d4-d6:3")
    assert game.position().split()[-1] == "mirror=e5-e3:3"
    game.push("e5-e3:3")
    assert game.position().split()[-1] == "mirror=ok"
    game.push("+c3")
    assert game.position().split()[-1] == "mirror=+f6"


def test_mirror_state_in_the_position(cls: Any) -> None:
    game = cls(mirror_rule=True)
    game.push("c3-c4")
    text = game.position()
    assert text.endswith("ply=1 mirror=f6-f5")
    again = cls.from_position(text)
    again.push("f6-f5")
    assert again.position().endswith("ply=2 mirror=ok")
    again.pop()
    again.push("g6-g5")
    assert again.position().endswith("mirror=no")
    # a win that player 0 would lose is turned into player 0's win (F9)
    lost = cls.from_position(pos({"c3": "r", "c4": "g", "h5": "g"}, "g 0,0 -,- mirror=ok"))
    lost.push("c4-c3")
    assert lost.outcome().winners == (1,)  # green's move mirrored nothing: rule broken
    won = cls.from_position(pos({"c3": "r", "c4": "g", "h5": "g"},
                                "g 0,0 -,- mirror=c4-c3"))
    won.push("c4-c3")
    assert won.outcome().winners == (0,) and "mirror" in won.outcome().reason


def test_random_swap_reproduced_from_the_position(cls: Any) -> None:
    seen = set()
    for seed in range(8):
        game = cls(swap="random", seed=seed)
        text = game.position()
        a, b = game.swap
        assert text.endswith(f"swap={a},{b}")
        assert sorted((game.stack(a), game.stack(b))) == ["g", "r"]
        assert cls(swap="random", seed=seed).position() == text
        again = cls.from_position(text)
        assert again.position() == text and again.swap == (a, b)
        assert cls(swap=(a, b)).position() == text
        assert again.perft(2) == game.perft(2)
        seen.add((a, b))
    assert len(seen) > 1


def test_explicit_swap(cls: Any) -> None:
    game = cls(swap=["C3", "d3"])
    assert game.swap == ("c3", "d3") and game.stack("c3") == "g" and game.stack("d3") == "r"
    assert "c3-c4" not in game.legal_moves and "d3-d4" in game.legal_moves
    assert cls(swap=("d3", "c3")).stack("c3") == "g"
    with pytest.raises(InvalidPositionError, match="mirror images"):
        cls(swap=("c3", "f6"))


# ----------------------------------------------------------- integer layer
def test_action_encoding(cls: Any) -> None:
    game = cls()
    assert game.num_distinct_actions() == 3172
    actions = game.legal_actions()
    assert actions == sorted(actions) and len(actions) == 68
    assert [game.action_to_move(a) for a in actions] == list(game.legal_moves)
    assert [game.move_to_action(m) for m in game.legal_moves] == actions
    mask = game.legal_actions_mask()
    assert mask.shape == (3172,) and int(mask.sum()) == 68
    # c3 = square 12 (c1..f1 are 0..3, b2..g2 4..9, a3 10), north, k = d = 1
    assert game.move_to_action("c3-c4") == (12 * 4 + 0) * 15 + 0 == 720
    assert game.move_to_action("+c1") == 3120 and game.move_to_action("+f8") == 3171
    assert game.move_to_action("c4-c5:2") == (20 * 4 + 0) * 15 + 1
    assert game.move_to_action("c3-c5") == (12 * 4 + 0) * 15 + 2        # k = d = 2
    assert game.move_to_action("c3-d3") == (12 * 4 + 1) * 15 + 0        # east
    assert game.move_to_action("c3-c2") == (12 * 4 + 2) * 15 + 0        # south
    assert game.move_to_action("c3-b3") == (12 * 4 + 3) * 15 + 0        # west
    assert game.move_to_action("c3-c8:5") == (12 * 4 + 0) * 15 + 14     # k = d = 5
    assert str(game.action_to_move(3120 + 51)) == "+f8"
    assert str(game.action_to_move((12 * 4 + 0) * 15 + 13)) == "c3-c7:5"  # k = 5, d = 4
    game.apply_action(720)
    assert str(game.peek()) == "c3-c4"
    game.undo_action()
    assert game.position() == cls().position()
    with pytest.raises(IllegalMoveError):
        game.apply_action(3120)                               # no reserve
    with pytest.raises(InvalidMoveError):
        game.apply_action(True)
    with pytest.raises(InvalidMoveError, match="off the board"):
        game.action_to_move(2 * 15)  # c1 south
    three = cls(players=3)
    assert three.legal_actions() == [3120 + s for s in range(52) if SQUARES[s][1] in "18"
                                     or SQUARES[s] in ("a3", "a4", "a5", "a6", "h3", "h4",
                                                       "h5", "h6")]


def test_observation_tensor(cls: Any) -> None:
    game = cls.from_position(pos({"c3": "rg", "h5": "g"}, "g 2,1 -,-"))
    planes = game.observation_tensor()
    assert planes.shape == game.observation_tensor_shape() == (13, 8, 8)
    assert planes.dtype == np.float32
    # green to move: green is "player 0" of the view, red the next
    assert planes[0 * 2 + 1][2][2] == 1 and planes[1 * 2 + 0][2][2] == 1
    assert planes[0][4][7] == 1 and planes[0][2][2] == 0
    assert planes[:10].sum() == 3                             # three pieces in all
    assert planes[10].sum() == 52 and planes[10][0][0] == 0 and planes[10][0][2] == 1
    assert planes[11][3][3] == 1 and planes[12][3][3] == 2  # reserves: green 1, red 2
    assert planes[11][0][0] == 0                              # only on playable squares
    assert cls(players=4).observation_tensor().shape == (25, 8, 8)
    assert cls(players=3).observation_tensor()[16].sum() == 52  # each has 1 in reserve


# --------------------------------------------------------------- bad input
@pytest.mark.parametrize("text", ["", "c3", "c3-", "c3-d4", "a1-a2", "c3-c9", "+a1", "+",
                                  "c3-c3", "c3-c5:1", "c3-c4:6", "c3-c4:x", "z3-z4", "c3 c4",
                                  "++c3", "c1-c8", "c3-c4:0", "c3-c4:10", "+c3:1", "c3+c4",
                                  "c3–c4", "c3-c4:\uff12"])
def test_bad_notation(cls: Any, text: str) -> None:
    game = cls()
    before = game.position()
    with pytest.raises(InvalidMoveError):
        game.push(text)
    assert game.position() == before and game.move_stack == []


@pytest.mark.parametrize(("move", "reason"), [
    ("c4-c5", "belongs to green"), ("a3-a4", "a3 is empty"), ("c3-c5", "only 1 piece"),
    ("+e5", "no piece in reserve"), ("c3-c4:2", "only 1 piece"), ("b2-b3", "belongs to green"),
    ("d1-d2", "d1 is empty")])
def test_illegal_moves(cls: Any, move: str, reason: str) -> None:
    game = cls()
    before, key = game.position(), hash(game)
    with pytest.raises(IllegalMoveError, match=reason) as info:
        game.push(move)
    assert f"illegal move {move!r}" in str(info.value)
    assert game.position() == before and hash(game) == key


@pytest.mark.parametrize("options", [
    {"players": 1}, {"players": 5}, {"players": True}, {"players": "2"}, {"players": 2.0},
    {"move_rule": "fast"}, {"move_rule": None}, {"teams": 1}, {"mirror_rule": "yes"},
    {"mirror_rule": 1}, {"max_plies": 0}, {"max_plies": -1}, {"max_plies": 2.5},
    {"max_plies": True}, {"max_plies": 2**31}, {"seed": "x"}, {"seed": 1.5}, {"seed": True},
    {"swap": "c3"}, {"swap": ("c3",)}, {"swap": ("c3", "d3", "e3")},
    {"swap": ("c3", "b3")}, {"swap": ("c3", "a1")}, {"swap": ("d4", "d4")},
    {"swap": ("c3", "c3")}, {"swap": 5}, {"swap": ("c3", None)},
    {"players": 3, "swap": "random"}, {"players": 4, "mirror_rule": True},
])
def test_bad_options(cls: Any, options: dict[str, Any]) -> None:
    with pytest.raises(InvalidPositionError) as info:
        cls(**options)
    assert any(key in str(info.value) for key in options), str(info.value)


def test_good_edge_options(cls: Any) -> None:
    assert cls(max_plies=2**31 - 1).max_plies == 2**31 - 1
    assert cls(max_plies=1, players=3).max_plies == 1
    numpy_game = cls(players=np.int64(3), max_plies=np.int32(7), seed=np.int64(1))
    assert numpy_game.position() == cls(players=3, max_plies=7).position()
    assert cls(swap="random", seed=2**100).swap == cls(swap="random", seed=2**100).swap
    assert cls(players=4, teams=False, move_rule="whole").move_rule == "whole"


@pytest.mark.parametrize("text", [
    "", "x", 5, None, f"{START_2P} r 0,0", f"{START_2P} x 0,0 -,-", f"{START_2P} r 0 -",
    f"{START_2P} r 0,0,0,0,0 -,-", f"{START_2P} b 0,0 -,-", f"{START_2P} r 0,0 -",
    f"{START_2P} r 0,0 r1,-", f"{START_2P} r 0,0 g0,-", f"{START_2P} r 0,0 g1g1,-",
    f"{START_2P} r 0,0 -,- bogus", f"{START_2P} r 0,0 -,- rule=exact",
    f"{START_2P} r 0,0 -,- ply=-1", f"{START_2P} r 0,0 -,- cap=0", f"{START_2P} r -1,0 -,-",
    f"{START_2P} r 99,0 -,-", f"{START_2P} r 0,0 -,- ffa", f"{START_2P} r 0,0 -,- first=r",
    f"{START_2P} r 0,0 -,- mirror=maybe", f"{START_2P} r 0,0 -,- mirror=f6-f5",
    f"{START_2P} g 0,0 -,- mirror=f6-f5:1", f"{START_2P} r 0,0 -,- ply=2 ply=3",
    f"{START_2P} r 0,0 -,- swap=c3", f"{START_2P} r 0,0 -,- swap=c3,c3",
    f"{START_2P} r 0,0 -,- ply=03", f"{START_2P} r 0,0 -,- cap=",
    f"{START_2P} r 0,0 -,- returned=1,0", f"{START_2P} R 0,0 -,-",
    f"{START_2P.replace('r,r,g,g,r,r/', 'r,r,g,g,r/', 1)} r 0,0 -,-",
    f"{START_2P.replace('r,r,g,g,r,r/', 'rrrrrr,r,g,g,r,r/', 1)} r 0,0 -,-",
    f"{START_2P.replace('r,r,g,g,r,r/', 'b,r,g,g,r,r/', 1)} r 0,0 -,-",
    f"{START_2P.replace('r,r,g,g,r,r/', ',r,g,g,r,r/', 1)} r 0,0 -,-",
    f"{START_2P}/. r 0,0 -,-",
    f"{board({})} r 1,1,1 -,-,- first=rr", f"{board({})} r 0,1,1 -,-,- first=r",
    f"{board({})} r 0,0,0 -,-,- returned=1,2", f"{START_2P} r \uff11,0 -,-",
    f"{START_2P} r 0,0 -,- ply=\uff13",
    f"{board(dict.fromkeys(SQUARES[:11], 'rrrrr'))} r 0,0 -,-",  # 55 red pieces
])
def test_bad_positions(cls: Any, text: Any) -> None:
    with pytest.raises(InvalidPositionError):
        cls.from_position(text)


def test_position_options_round_trip(cls: Any) -> None:
    text = pos({"d4": "rgb", "e5": "bgr"},
               "b 1,0,2 g3b1,-,r2 rule=whole cap=90 ply=12 first=rb returned=0,4,1")
    game = cls.from_position(text)
    assert game.position() == text
    assert (game.move_rule, game.max_plies, game.ply, game.reserves()) == (
        "whole", 90, 12, (1, 0, 2))
    assert game.captured() == ((0, 3, 1), (0, 0, 0), (2, 0, 0))
    assert all(m.is_entry and game.stack(m.target) == "" for m in game.legal_moves)
    four = pos({"d4": "rgby"}, "y 0,0,0,0 -,-,-,b1 ffa rule=up_to")
    assert cls.from_position(four).position() == four and not cls.from_position(four).teams


# ------------------------------------- arbitrary positions against the rules
@dataclass
class Model:
    """A Focus position read naively off its position string (F12)."""

    n: int
    teams: bool
    rule: str
    cap: Optional[int]
    ply: int
    to_move: int
    stacks: dict[str, list[int]]
    reserves: list[int]
    captured: list[list[int]]
    returned: list[int]
    first: set[int]
    mirror: Optional[str]  # None: no mirror rule; "ok", "no" or the reply owed

    def fields(self) -> tuple[Any, ...]:
        """Everything but the player to move."""
        return (self.n, self.teams, self.rule, self.cap, self.ply,
                {s: v for s, v in self.stacks.items() if v}, self.reserves, self.captured,
                self.returned, self.first, self.mirror)


XY = {s: (FILES.index(s[0]), int(s[1]) - 1) for s in SQUARES}
AT = {xy: s for s, xy in XY.items()}
STEPS = [(0, 1), (1, 0), (0, -1), (-1, 0)]


def read(text: str) -> Model:
    fields = text.split()
    stacks = {}
    for rank, cells in zip(range(8, 0, -1), fields[0].split("/"), strict=True):
        squares = [s for s in SQUARES if s[1] == str(rank)]
        for square, cell in zip(squares, cells.split(","), strict=True):
            if cell != ".":
                stacks[square] = [LETTERS.index(c) for c in cell]
    reserves = [int(v) for v in fields[2].split(",")]
    n = len(reserves)
    captured = [[0] * n for _ in range(n)]
    for p, part in enumerate(fields[3].split(",")):
        for letter, count in re.findall(r"([a-z])([0-9]+)", part):
            captured[p][LETTERS.index(letter)] = int(count)
    opts = dict(o.split("=", 1) if "=" in o else (o, "") for o in fields[4:])
    return Model(
        n=n, teams=n == 4 and "ffa" not in opts, rule=opts.get("rule", "exact"),
        cap=int(opts["cap"]) if "cap" in opts else None, ply=int(opts.get("ply", 0)),
        to_move=LETTERS.index(fields[1]), stacks=stacks, reserves=reserves,
        captured=captured,
        returned=[int(v) for v in opts["returned"].split(",")] if "returned" in opts
        else [0] * n,
        first={LETTERS.index(c) for c in opts.get("first", "")}, mirror=opts.get("mirror"))


def moves_for(m: Model, p: int) -> set[str]:
    """F5, F8 and F11: the moves of player p, in notation."""
    out = set()
    owes = p in m.first
    if not owes:
        for square, stack in m.stacks.items():
            if not stack or stack[-1] != p:
                continue
            h = len(stack)
            pairs = {"exact": [(k, k) for k in range(1, h + 1)],
                     "up_to": [(k, d) for k in range(1, h + 1) for d in range(1, k + 1)],
                     "whole": [(h, h)]}[m.rule]
            x, y = XY[square]
            for dx, dy in STEPS:
                for k, d in pairs:
                    target = AT.get((x + dx * d, y + dy * d))
                    if target is not None:
                        out.add(f"{square}-{target}" + (f":{k}" if k != d else ""))
    if m.reserves[p]:
        out |= {f"+{s}" for s in SQUARES if not owes or not m.stacks.get(s)}
    return out


def mirrored(move: str) -> str:
    def flip(square: str) -> str:
        x, y = XY[square]
        return AT[(7 - x, 7 - y)]

    if move.startswith("+"):
        return "+" + flip(move[1:])
    squares, colon, count = move.partition(":")
    source, target = squares.split("-")
    return f"{flip(source)}-{flip(target)}{colon}{count}"


def play(m: Model, move: str) -> Model:
    """F5, F6, F8 and the mirror bookkeeping of F9: the position after ``move``."""
    new = copy.deepcopy(m)
    p = m.to_move
    if move.startswith("+"):
        target, pieces = move[1:], [p]
        new.reserves[p] -= 1
        new.first.discard(p)
    else:
        squares, _, count = move.partition(":")
        source, target = squares.split("-")
        (x0, y0), (x1, y1) = XY[source], XY[target]
        k = int(count) if count else abs(x1 - x0) + abs(y1 - y0)
        pieces = new.stacks[source][-k:]
        del new.stacks[source][-k:]
    stack = new.stacks.get(target, []) + pieces
    while len(stack) > 5:  # F6: from the bottom
        colour = stack.pop(0)
        if colour == p:
            new.reserves[p] += 1
            if m.n == 3:
                new.returned[p] += 1
        else:
            new.captured[p][colour] += 1
    new.stacks[target] = stack
    if m.mirror not in (None, "no"):
        new.mirror = mirrored(move) if p == 0 else "ok" if m.mirror == move else "no"
    new.ply += 1
    new.to_move = (p + 1) % m.n
    return new


def status(m: Model) -> tuple[Optional[tuple[tuple[int, ...], str]], int]:
    """F4, F7 and F9: ``(None, player to move)`` or ``((winners, reason), _)``."""
    n, result, to_move = m.n, None, m.to_move
    if n == 3:
        for p in range(3):
            if all(m.captured[p][c] >= 3 for c in range(3) if c != p):
                result = ((p,), "3 pieces of each")
            elif sum(m.captured[p]) + m.returned[p] >= 10:
                result = ((p,), "10 pieces")
            if result:
                break
    if result is None and n == 2:
        if not moves_for(m, to_move):
            result = ((1 - to_move,), "no legal move")
    elif result is None:
        able = [bool(moves_for(m, p)) for p in range(n)]
        if m.teams:
            stuck = [not (able[t] or able[t + 2]) for t in (0, 1)]
            if all(stuck):
                result = ((), "no player can move")
            elif any(stuck):
                result = ((1, 3) if stuck[0] else (0, 2), "neither member")
        elif not any(able):
            result = ((), "no player can move")
        elif sum(able) == 1:
            result = ((able.index(True),), "last player able")
        if result is None:
            while not able[to_move]:
                to_move = (to_move + 1) % n
    if result is None and m.cap is not None and m.ply >= m.cap:
        result = ((), "ply cap")
    if result is not None and m.mirror not in (None, "no") and result[0] != (0,):
        result = ((0,), "mirror")
    return result, to_move


MIRROR_REPLIES = ["f6-f5", "+e5", "c4-c6", "d7-d5:3", "e2-e6:5"]


@st.composite
def positions(draw: Any) -> str:
    """Arbitrary (mostly unreachable) positions: sparse stacks, reserves, captures, options."""
    n = draw(st.sampled_from([2, 3, 4]))
    letters = LETTERS[:n]
    stacks = draw(st.dictionaries(st.sampled_from(SQUARES),
                                  st.text(alphabet=letters, min_size=1, max_size=5),
                                  max_size=20))
    reserves = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    captured = []
    for p in range(n):
        counts = {c: draw(st.integers(0, 4)) for c in letters if c != letters[p]}
        captured.append("".join(f"{c}{k}" for c, k in counts.items() if k) or "-")
    for i, c in enumerate(letters):  # at most 52 pieces of a colour (F12)
        taken = sum(int(k) for part in captured for k in re.findall(c + "([0-9])", part))
        assume(sum(s.count(c) for s in stacks.values()) + reserves[i] + taken <= 52)
    to_move = draw(st.sampled_from(letters))
    fields = [board(stacks), to_move, ",".join(map(str, reserves)), ",".join(captured)]
    if n == 4 and draw(st.booleans()):
        fields.append("ffa")
    rule = draw(st.sampled_from(["exact", "up_to", "whole"]))
    if rule != "exact":
        fields.append(f"rule={rule}")
    if draw(st.booleans()):
        fields.append(f"cap={draw(st.integers(1, 40))}")
    if draw(st.integers(0, 3)):
        fields.append(f"ply={draw(st.integers(1, 30))}")
    if n == 3:
        owing = [letters[p] for p in range(3) if reserves[p] and draw(st.booleans())]
        if owing:
            fields.append("first=" + "".join(owing))
        if draw(st.booleans()):
            fields.append("returned=" + ",".join(str(draw(st.integers(0, 6))) for _ in range(3)))
    if n == 2 and draw(st.booleans()):
        replies = ["ok", "no"] + (MIRROR_REPLIES if to_move == "g" else [])
        fields.append("mirror=" + draw(st.sampled_from(replies)))
    return " ".join(fields)


SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def check(game: Any, m: Model) -> tuple[Optional[tuple[tuple[int, ...], str]], int]:
    """The game agrees with the model: position fields, board access, outcome, turn."""
    result, to_move = status(m)
    seen = read(game.position())
    assert seen.fields() == m.fields()
    assert game.piece_map() == {s: tuple(v) for s, v in m.stacks.items() if v}
    assert game.reserves() == tuple(m.reserves) and game.ply == m.ply
    assert game.captured() == tuple(tuple(row) for row in m.captured)
    outcome = game.outcome()
    if result is None:
        assert outcome is None and game.current_player() == to_move == seen.to_move
    else:
        assert outcome is not None and outcome.winners == result[0], (outcome, result)
        assert result[1] in outcome.reason and game.current_player() == TERMINAL
        assert not game.legal_moves and game.legal_actions() == []
    return result, to_move


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(text=positions(), seed=st.integers(0, 2**32), steps=st.integers(0, 12))
def test_arbitrary_positions_follow_the_rules(backend: str, text: str, seed: int,
                                              steps: int) -> None:
    """From set-up positions, every legal move list, every move's effect (stacks,
    overflow, reserves, captures, first entries, the mirror state), every turn
    and every result agree with F4–F9 and F11 read naively; the incremental
    Zobrist key stays equal to the one computed from scratch."""
    cls = Focus.twin(backend)
    game = cls.from_position(text)
    model = read(text)
    rng = random.Random(seed)
    for _ in range(steps + 1):
        result, to_move = check(game, model)
        core = game._core
        assert core.key() == core.full_key() == cls.from_position(game.position())._core.key()
        if result is not None:
            break
        model.to_move = to_move
        expected = moves_for(model, to_move)
        legal = [str(m) for m in game.legal_moves]
        assert len(legal) == len(set(legal)) and set(legal) == expected
        assert [game.move_to_action(m) for m in legal] == game.legal_actions()
        move = rng.choice(sorted(expected))
        game.push(move)
        model = play(model, move)


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(options=st.fixed_dictionaries({
    "players": st.sampled_from([2, 3, 4]),
    "move_rule": st.sampled_from(["exact", "up_to", "whole"]),
    "max_plies": st.sampled_from([None, 150])}), seed=st.integers(0, 2**64 - 1))
def test_incremental_key_equals_full_key_along_whole_games(backend: str,
                                                           options: dict[str, Any],
                                                           seed: int) -> None:
    """Long games reach overflow, reserves and captures the set-up positions
    rarely combine; the key is checked after every move and every take-back."""
    cls = Focus.twin(backend)
    game = cls(**options)
    game.random_playout(seed=seed, max_plies=200)
    replay = cls(**options)
    keys = [replay._core.key()]
    for move in game.move_stack:
        replay.push(move)
        core = replay._core
        assert core.key() == core.full_key() == cls.from_position(replay.position())._core.key()
        keys.append(core.key())
    assert replay.position() == game.position() and hash(replay) == hash(game)
    while replay.move_stack:
        keys.pop()
        replay.pop()
        assert replay._core.key() == replay._core.full_key() == keys[-1]


@needs_cython
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(text=positions(), seed=st.integers(0, 2**64 - 1))
def test_twins_agree_on_arbitrary_positions(text: str, seed: int) -> None:
    """The two cores on set-up positions no game reaches: the same moves in the
    same order, keys, legality of every action, perft and playouts."""
    py = Focus.twin("python").from_position(text)
    cy = Focus.twin("cython").from_position(text)
    assert cy.position() == py.position()
    assert cy.outcome() == py.outcome() and cy.current_player() == py.current_player()
    assert cy._core.moves() == py._core.moves() == py.legal_actions()
    assert cy._core.count() == py._core.count() == len(py._core.moves())
    assert cy._core.key() == py._core.key() == cy._core.full_key() == py._core.full_key()
    legal = set(py.legal_actions())
    assert {a for a in range(-3, 3180) if cy._core.is_legal(a)} == legal
    assert all(py._core.is_legal(a) for a in legal)
    assert not any(py._core.is_legal(a) for a in (-1, 3172, 3179))
    assert cy.perft(2) == py.perft(2) and cy.perft(2, True) == py.perft(2, True)
    assert cy.random_playout(seed=seed, max_plies=60) == py.random_playout(seed=seed,
                                                                            max_plies=60)
    assert cy.position() == py.position() and cy._core.key() == py._core.key()
    assert cy._core.get_state() == py._core.get_state()
    while py.move_stack:
        py.pop()
        cy.pop()
        assert cy._core.key() == cy._core.full_key() == py._core.key()
    assert cy.position() == py.position() == Focus.from_position(text).position()
