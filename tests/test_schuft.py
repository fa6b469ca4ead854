"""Schuft (rules S1-S12): hand-checked rule positions, reference perft, chance
nodes, notation, position strings and the integer layer, on both cores."""

from __future__ import annotations

import itertools
import os
import pickle
import random
import subprocess
import sys
import textwrap
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import brett
from brett._core._rng import SplitMix64
from brett.errors import BrettError, IllegalMoveError, InvalidMoveError, InvalidPositionError
from brett.schuft import (
    ACTION_CCW,
    ACTION_CW,
    ACTION_PASS,
    NUM_ACTIONS,
    Roll,
    Schuft,
    SchuftMove,
)
from conftest import needs_cython


def pos(tongues: dict[int, str], goals: list[str], outs: tuple[int, ...] = (0, 0),
        to_move: str = "r", roll: str = "-", plies: int = 0, cap: str = "-") -> str:
    """A position string from a sparse tongue map (tongue number → 'r2')."""
    cells = ",".join(tongues.get(i, ".") for i in range(1, 37))
    return (f"{cells}/{','.join(goals)}/{','.join(map(str, outs))}/{to_move}/{roll}/"
            f"{plies}/{cap}")


def moves(game: Any) -> list[str]:
    return [str(m) for m in game.legal_moves]


# ------------------------------------------------------------------ the start
def test_start_positions(backend: str) -> None:
    cls = Schuft.twin(backend)
    four = cls(players=4)
    cells = four.position().split("/")[0].split(",")
    assert all(c.endswith("1") for c in cells)  # one piece on every tongue
    # tongue 9q+j belongs to seat (q + PATTERN[j]) mod 4
    assert cells[:9] == ["r1", "g1", "b1", "y1", "r1", "g1", "b1", "y1", "r1"]
    assert cells[9:18] == ["g1", "b1", "y1", "r1", "g1", "b1", "y1", "r1", "g1"]
    for letter in "rgby":
        assert sum(c == f"{letter}1" for c in cells) == 9
    two = cls(players=2).position().split("/")[0].split(",")
    # two players sit at seats 0 and 2: the tongues of seats 1 and 3 start empty
    assert two[:9] == ["r1", ".", "g1", ".", "r1", ".", "g1", ".", "r1"]
    assert sum(c != "." for c in two) == 18
    three = cls(players=3)
    assert three.position().count("b1") == 9 and three.position().count("y") == 0
    assert cls(players=2).is_chance_node() and cls(players=2).current_player() == brett.CHANCE


def test_perft_conventions(backend: str) -> None:
    game = Schuft.twin(backend)(players=2)
    assert game.perft(0) == 1
    game.roll("9-9-8")
    n = game.legal_moves.count()
    assert game.perft(1) == n == len(game.divide(1))
    assert game.divide(1) == {m: 1 for m in game.legal_moves}
    game.pop()
    if backend == "python":
        return  # the same 216-way sum as the reference test, which already ran
    by_roll = game.divide(1)  # a chance node: {roll: perft(1)}, the roll uses no depth
    assert len(by_roll) == 216 and all(isinstance(r, Roll) for r in by_roll)
    assert sum(by_roll.values()) == 142656


# ------------------------------------------------------------ dice and chance
def test_dice_and_direction_probabilities() -> None:
    sums = Counter(Roll.from_index(i).direction for i in range(216))
    assert sums == {"cw": 101, "ccw": 101, "choice": 14}
    assert {Roll.from_index(i).index for i in range(216)} == set(range(216))
    with pytest.raises(InvalidMoveError):
        Roll(3, 8, 2)  # die III has no 3
    with pytest.raises(InvalidMoveError):
        Roll.parse("5-8")


def test_chance_nodes_and_roll_undo(backend: str) -> None:
    game = Schuft.twin(backend)(players=3, seed=4)
    outcomes = game.chance_outcomes()
    assert [a for a, _ in outcomes] == list(range(216))
    assert abs(sum(p for _, p in outcomes) - 1) < 1e-12
    assert list(game.legal_moves) == [] and game.legal_actions() == list(range(216))
    before, key = game.position(), hash(game)
    assert game.roll((5, 8, 2)) == Roll(5, 8, 2)
    assert game.position().split("/")[4] == "5-8-2"
    assert game.peek() == Roll(5, 8, 2) and game.current_player() == 0
    assert hash(game) != key
    with pytest.raises(IllegalMoveError):
        game.roll("9-9-8")  # already rolled
    assert game.pop() == Roll(5, 8, 2)
    assert (game.position(), hash(game)) == (before, key)
    game.apply_action(Roll(9, 9, 8).index)
    assert game.peek() == Roll(9, 9, 8)
    with pytest.raises(IllegalMoveError):
        game.push("cw 1/10")  # not legal with 9-9-8
    game.pop()
    with pytest.raises(IllegalMoveError):
        game.push("cw 1/10")  # roll first
    rolled = game.roll()  # from the game's own seeded generator
    assert isinstance(rolled, Roll)
    assert Schuft.twin(backend)(players=3, seed=4).roll() == rolled


def test_direction_frequencies_chi_square() -> None:
    game = Schuft(players=2, seed=20261129)
    counts: Counter[str] = Counter()
    n = 21600
    for _ in range(n):
        counts[game.roll().direction] += 1
        game.pop()
    expected = {"cw": n * 101 / 216, "ccw": n * 101 / 216, "choice": n * 14 / 216}
    chi2 = sum((counts[k] - e) ** 2 / e for k, e in expected.items())
    assert chi2 < 13.82  # 2 degrees of freedom, p = 0.001
    assert counts["choice"] > 0


# ------------------------------------------------------------ hand-checked rules
def test_hit_and_landing(backend: str) -> None:
    # r: one piece on 20 (eight home); g: a single on 19, a pair on 17
    text = pos({20: "r1", 19: "g1", 17: "g2"}, ["rrrrrrrr.", "gggggg..."], roll="1-3-2")
    game = Schuft.twin(backend).from_position(text)
    legal = moves(game)
    assert "ccw 20/19 19/16 16/14" in legal  # 1 hits the single g on 19
    assert all("/17" not in m for m in legal)  # two enemy pieces: no landing
    game.push("ccw 20/19 19/16 16/14")
    assert game.position().split("/")[2] == "0,1"  # g has a piece out
    assert game.position().split("/")[0].split(",")[18] == "."
    assert game.position().split("/")[0].split(",")[13] == "r1"


def test_three_stack_blocks_everyone_and_recheck(backend: str) -> None:
    # r: a single on 20 and an own 3-stack on 22 (five home); cw roll 9-9-8
    text = pos({20: "r1", 22: "r3", 35: "g1"}, ["rrrrr....", "gggggggg."], roll="9-9-8")
    game = Schuft.twin(backend).from_position(text)
    legal = moves(game)
    assert legal and all(m.startswith("cw 22/") for m in legal)
    # once a piece left the stack (two remain), the piece on 20 may pass it
    assert any(" 20/" in m for m in legal)
    with pytest.raises(IllegalMoveError, match="blocked"):
        game.push("cw 20/29 22/31 22/30")
    # an enemy 3-stack blocks too
    text = pos({20: "r1", 24: "g3"}, ["rrrrrrrr.", "gggggg..."], roll="9-9-8")
    game = Schuft.twin(backend).from_position(text)
    assert moves(game) == ["pass"]


def test_forfeited_values(backend: str) -> None:
    # r on 20, a g 3-stack on 30: one step of 8 or 9, then nothing can pass 30
    text = pos({20: "r1", 30: "g3"}, ["rrrrrrrr.", "gggggg..."], roll="9-9-8")
    game = Schuft.twin(backend).from_position(text)
    assert moves(game) == ["cw 20/28", "cw 20/29"]
    game.push("cw 20/28")
    assert game.is_chance_node() and game.current_player() == brett.CHANCE


def test_reentry_and_sitting_out(backend: str) -> None:
    cls = Schuft.twin(backend)
    # r has two pieces out; ccw re-entry with value d lands on tongue 10 - d
    text = pos({20: "r1", 7: "g2", 9: "g1"}, ["rrrrrr...", "gggggg..."], outs=(2, 0),
               roll="1-3-2")
    game = cls.from_position(text)
    legal = moves(game)
    # values 1, 3, 2 → tongues 9 (hit), 7 (blocked by g2), 8
    assert "ccw x/8 x/9 20/17" in legal or "ccw x/8 x/9 9/6" in legal
    for m in legal:
        steps = m.split()[1:]
        assert steps[0].startswith("x/") and steps[1].startswith("x/")
        assert "x/7" not in steps
    # cw re-entry with value d lands on tongue d of the start quarter (seat 0)
    text = pos({20: "r1", 35: "g1"}, ["rrrrrrr..", "gggggggg."], outs=(1, 0), roll="9-9-8")
    game = cls.from_position(text)
    assert all(m.split()[1] in ("x/8", "x/9") for m in moves(game))
    # sitting out: every re-entry tongue holds two enemy pieces
    text = pos({7: "g2", 8: "g2", 9: "g2"}, ["rrrrrrrr.", "ggg......"], outs=(1, 0),
               roll="1-3-2")
    game = cls.from_position(text)
    assert moves(game) == ["pass"]
    assert game.legal_actions() == [ACTION_PASS]
    game.push("pass")
    assert game.position().split("/")[3] == "g"


def test_reentry_of_a_seat_two_player(backend: str) -> None:
    # g (seat 2) re-enters clockwise on tongue 18 + d
    text = pos({5: "r1"}, ["rrrrrrrr.", "gggggggg."], outs=(0, 1), to_move="g", roll="9-9-8")
    game = Schuft.twin(backend).from_position(text)
    assert all(m.split()[1] in ("x/26", "x/27") for m in moves(game))


def test_goal_entry_jumps_own_pieces(backend: str) -> None:
    # r on 8 (one step before the corner after 9), g1-g6 home; cw roll 9-9-8
    text = pos({8: "r1", 30: "r2", 35: "g1"}, ["rrrrrr...", "gggggggg."], roll="9-9-8")
    game = Schuft.twin(backend).from_position(text)
    legal = moves(game)
    # 9 from 8: passes 9, jumps g1-g6 (own), g7 → lands on g8; 8 → g7
    assert any("8/g8" in m for m in legal) and any("8/g7" in m for m in legal)
    # an entering piece may not run on past the goal
    assert all("8/17" not in m and "8/16" not in m for m in legal)


def test_goal_field_taken_moves_past_the_goal(backend: str) -> None:
    # g8 and g7 are taken: 9 and 8 from tongue 8 run on along the ring
    text = pos({8: "r1", 35: "g1"}, [".rrrrrrrr", "gggggggg."], roll="9-9-8")
    game = Schuft.twin(backend).from_position(text)
    # fields g2..g9 are taken, g1 is free: 9 → g8 taken → past the goal to 17;
    # 8 → g7 taken → 16
    legal = moves(game)
    assert all(m.split()[1] in ("8/16", "8/17") for m in legal)
    # a counter-clockwise turn passes corners without effect
    text = pos({10: "r1", 35: "g1"}, [".rrrrrrrr", "gggggggg."], roll="1-1-2")
    game = Schuft.twin(backend).from_position(text)
    # every order of 1, 1, 2 ends on tongue 6: one move, written in the order sorting first
    assert moves(game) == ["ccw 10/8 8/7 7/6"]
    assert game.push("ccw 10/9 9/8 8/6") == SchuftMove("ccw", ("10/8", "8/7", "7/6"))


def test_ninth_piece_ends_the_game(backend: str) -> None:
    # eight home (g5 free), the last piece on 5: 9 enters g5 and the game ends
    text = pos({5: "r1", 20: "g1"}, ["rrrr.rrrr", "gggggggg."], roll="9-9-8")
    game = Schuft.twin(backend).from_position(text)
    legal = moves(game)
    assert "cw 5/g5" in legal
    game.push("cw 5/g5")
    assert game.is_over() and game.current_player() == brett.TERMINAL
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 0 and outcome.scores == (9, 8)
    assert game.returns() == [1.0, -1.0]
    assert list(game.legal_moves) == [] and game.legal_actions() == []
    with pytest.raises(IllegalMoveError, match="over"):
        game.roll("9-9-8")
    assert game.perft(1) == 0 and game.perft(1, count_finished=True) == 1
    game.pop()
    # 8 would reach g4, which is taken, so it runs on past the goal to 13
    assert any(m.startswith("cw 5/13") for m in legal)


def test_sum_fifteen_choice(backend: str) -> None:
    cls = Schuft.twin(backend)
    game = cls(players=2)
    game.roll("5-8-2")
    legal = moves(game)
    assert any(m.startswith("cw ") for m in legal) and any(m.startswith("ccw ") for m in legal)
    assert legal == sorted(legal)
    assert game.legal_actions() == [ACTION_CW, ACTION_CCW]
    # clockwise is blocked (a 3-stack right after the only piece): ccw is forced
    text = pos({20: "r1", 21: "g3"}, ["rrrrrrrr.", "gggggg..."], roll="5-8-2")
    game = cls.from_position(text)
    assert moves(game) and all(m.startswith("ccw ") for m in moves(game))
    assert game.legal_actions() == [ACTION_CCW]


def test_merging_and_representative(backend: str) -> None:
    game = Schuft.twin(backend)(players=2)
    game.roll("5-8-2")
    rep = game.push("ccw 17/9 1/32 9/7")  # any playable order
    assert str(rep) == "ccw 1/32 17/9 9/7" and game.peek() == rep
    game.pop()
    assert game.push("ccw 1/32 17/9 9/7") == rep
    game.pop()
    legal = moves(game)
    assert len(legal) == len(set(legal)) and legal == sorted(legal)
    # the representative is the notation sorting first in plain string order
    assert "ccw 1/29 13/11 25/20" in legal and "ccw 13/11 1/29 25/20" not in legal


def test_max_plies_draw_and_roll_off(backend: str) -> None:
    cls = Schuft.twin(backend)
    game = cls(players=2, max_plies=2)
    game.roll("9-9-8")
    game.push(next(iter(game.legal_moves)))
    game.roll("9-9-8")
    game.push(next(iter(game.legal_moves)))
    outcome = game.outcome()
    assert outcome is not None and outcome.is_draw and game.position().endswith("/2/2")
    game = cls(players=3, first_player="roll")
    assert game.is_chance_node() and game.position().endswith("/r,g,b")
    with pytest.raises(brett.BrettError):
        game.perft(1)
    game.roll("9-9-8")  # r 26
    game.roll("9-9-8")  # g 26
    game.roll("1-1-2")  # b 4: r and g re-roll
    assert game.position().endswith("/r,g")
    again = cls.from_position(game.position())
    assert again == game and hash(again) == hash(game)
    game.roll("1-1-2")
    game.roll("5-8-2")  # g wins the roll-off, then rolls for the first turn
    assert game.is_chance_node() and game.position().split("/")[3] == "g"
    game.roll("9-9-8")
    assert game.current_player() == 1
    for _ in range(6):
        game.pop()
    assert game.position().endswith("/r,g,b")


# ------------------------------------------------------------ notation, errors
@pytest.mark.parametrize("bad", ["xx 1/2", "cw 1-2", "cw 0/3", "cw 37/3", "cw 3/g0",
                                 "cw 1/2 2/3 3/4 4/5", "pass 1/2", "cw 1/2/3", 7, None,
                                 "cw x/x", "ccw g1/3"])
def test_bad_notation(backend: str, bad: Any) -> None:
    game = Schuft.twin(backend)(players=2)
    game.roll("9-9-8")
    before, key = game.position(), hash(game)
    with pytest.raises(InvalidMoveError):
        game.push(bad)
    assert (game.position(), hash(game)) == (before, key)


@pytest.mark.parametrize("bad", ["cw", "ccw 1/36", "cw 13/22 22/31", "pass", "cw 9/g9",
                                 "cw 1/10 13/22 22/31"])
def test_illegal_turns(backend: str, bad: str) -> None:
    game = Schuft.twin(backend)(players=2)
    game.roll("9-9-8")
    before = game.position()
    with pytest.raises(IllegalMoveError):
        game.push(bad)
    assert game.position() == before
    # 9 from tongue 1 crosses the corner after 9: the piece must enter g1 (1/10 is illegal)
    game.push("cw 13/22 22/31 31/3*")  # a hit mark is accepted on input
    assert str(game.peek()) == "cw 13/22 22/31 31/3"
    assert game.position().split("/")[2] == "0,2"


@pytest.mark.parametrize("bad", [
    "", "x", "/".join(["."] * 7), pos({}, ["rrrrrrrrr"]),
    pos({1: "r1"}, ["rrrrrrrr.", "gggggggg."]),  # g has 8 pieces
    pos({1: "q1"}, ["rrrrrrrr.", "ggggggggg"]),
    pos({1: "r1"}, ["rrrrrrrr.", "ggggggggg"], to_move="b"),
    pos({1: "r1"}, ["rrrrrrrr.", "ggggggggg"], roll="3-3-3"),
    pos({1: "r1"}, ["rrrrrrrr.", "ggggggggg"], cap="0"),
    pos({1: "r1"}, ["rrrrrrrr.", "ggggggggg"], outs=(0,)),
    pos({}, ["rrrrrrrrr", "ggggggggg"]),  # two winners
    pos({1: "r1"}, ["rrrrrrrr.", "ggggggggg"], roll="9-9-8"),  # over, yet rolled
    pos({1: "r0"}, ["rrrrrrrrr", "ggggggggg"]),
    pos({20: "r1", 30: "g1"}, ["rrrrrrrr.", "gggggggg."], roll="9-9-8") + ";cw",  # not 15
    pos({20: "r1", 30: "g1"}, ["rrrrrrrr.", "gggggggg."], roll="9-9-8") + ";cw 21/30",
    pos({20: "r1", 30: "g1"}, ["rrrrrrrr.", "gggggggg."]) + ";cw 20/29",  # not rolled
    pos({20: "r1", 30: "g1"}, ["rrrrrrrr.", "gggggggg."], roll="9-9-8") + ";pass",
])
def test_bad_positions(bad: str) -> None:
    with pytest.raises(InvalidPositionError):
        Schuft.from_position(bad)


@pytest.mark.parametrize("options", [{"players": 1}, {"players": 5}, {"players": "2"},
                                     {"first_player": 2}, {"first_player": "dice"},
                                     {"max_plies": 0}, {"max_plies": 2.5}, {"seed": "x"}])
def test_bad_options(options: dict[str, Any]) -> None:
    with pytest.raises(InvalidPositionError):
        Schuft(**options)


def test_move_values_and_repr() -> None:
    move = SchuftMove.parse("cw 12/17 17/20* x/3")
    assert str(move) == "cw 12/17 17/20 x/3" and eval(repr(move)) == move
    assert str(SchuftMove("pass")) == "pass" and eval(repr(Roll(5, 8, 2))) == Roll(5, 8, 2)
    game = Schuft(players=2)
    assert eval(repr(game), {"Schuft": Schuft}) == game


# ------------------------------------------------------------ integer layer
def _decision_tree(game: Any) -> set[str]:
    """Every turn reachable through apply_action from here (undoing as it goes)."""
    found: set[str] = set()
    size = len(game.move_stack)
    for action in game.legal_actions():
        game.apply_action(action)
        if len(game.move_stack) > size:
            found.add(str(game.peek()))
        else:
            found |= _decision_tree(game)
        game.undo_action()
    return found


@pytest.mark.parametrize("seed", [1, 2])
def test_decision_sequences_give_exactly_the_legal_moves(backend: str, seed: int) -> None:
    game = Schuft.twin(backend)(players=2 + seed, seed=seed)
    game.random_playout(seed=seed, max_plies=6)
    if not game.is_chance_node():
        game.pop()
    game.roll("5-8-2")
    before = game.position()
    assert _decision_tree(game) == set(moves(game))
    assert game.position() == before
    assert game.num_distinct_actions() == NUM_ACTIONS == 336


def test_half_played_turn(backend: str) -> None:
    cls = Schuft.twin(backend)
    game = cls(players=2)
    game.roll("9-9-8")
    start = game.position()
    first = game.legal_actions()[0]
    game.apply_action(first)
    assert len(game.move_stack) == 1 and ";cw " in game.position()
    again = cls.from_position(game.position())
    assert again == game and again.legal_actions() == game.legal_actions()
    with pytest.raises(IllegalMoveError):
        game.push("cw 13/22 22/31 31/3")
    game.apply_action(game.legal_actions()[0])
    game.apply_action(game.legal_actions()[0])
    assert len(game.move_stack) == 2 and game.is_chance_node()  # one turn move
    game.undo_action()
    assert len(game.move_stack) == 1 and game.position().count(" ") == 2
    game.undo_action()
    game.undo_action()
    assert game.position() == start
    assert str(game.action_to_move(first)) == "cw 1/9"  # value 8 from tongue 1
    with pytest.raises(InvalidMoveError):
        game.apply_action(NUM_ACTIONS)
    with pytest.raises(IllegalMoveError):
        game.apply_action(ACTION_PASS)
    clone = pickle.loads(pickle.dumps(game))
    assert clone == game


# ------------------------------------------------------------ deeper perft
def _near_end(seed: int, players: int) -> str:
    """A position a few turns before the end of a seeded random game."""
    game = Schuft(players=players)  # the fastest core: the position is the same on both
    game.random_playout(seed=seed)
    assert game.is_over()
    for _ in range(4 * players):  # two rounds of turns and their rolls back
        game.pop()
    return game.position()


@needs_cython
@pytest.mark.parametrize(("seed", "players"), [(3, 2), (4, 3), (5, 4)])
def test_perft_2_near_the_end_twins_agree(seed: int, players: int) -> None:
    position = _near_end(seed, players)
    fast = Schuft.twin("cython").from_position(position)
    slow = Schuft.twin("python").from_position(position)
    slow.roll("9-9-8")
    fast.roll("9-9-8")
    expected = slow.perft(2)
    assert expected > 0 and fast.perft(2) == expected
    assert fast.perft(2, count_finished=True) == slow.perft(2, count_finished=True)


@pytest.mark.slow
@needs_cython
@pytest.mark.parametrize(("seed", "players"), [(3, 2), (4, 3), (5, 4)])
def test_perft_2_from_a_chance_node_near_the_end(seed: int, players: int) -> None:
    position = _near_end(seed, players)
    fast = Schuft.twin("cython").from_position(position)
    total = fast.perft(2)
    assert total == sum(fast.divide(2).values()) > 0


# ------------------------------------------------------------ random games
def test_playouts_finish(backend: str) -> None:
    game = Schuft.twin(backend)(players=4, first_player="roll", seed=3)
    if backend == "cython":
        stats = game.random_playouts(20, seed=1)
        assert sum(stats.wins) == 20 and stats.unfinished == 0 and stats.plies > 20 * 50
        assert game.position() == Schuft(players=4, first_player="roll").position()
    capped = game.random_playouts(2, seed=1, max_plies=10)
    assert capped.unfinished == 2 and capped.plies == 20


@pytest.mark.parametrize("players", [2, 3, 4])
def test_decision_playouts_follow_the_integer_layer(backend: str, players: int) -> None:
    """The core's decision playouts make exactly the choices of a Python loop
    over legal_actions() with the same splitmix64 stream."""
    cls = Schuft.twin(backend)
    game = cls(players=players, first_player="roll")
    stats = game.random_decision_playouts(1, seed=players, max_plies=40)
    rng = SplitMix64(players)
    decisions = turns = 0
    while not game.is_over() and turns < 40:
        if game.is_chance_node():
            game.apply_action(rng.below(216))
            continue
        size = len(game.move_stack)
        while len(game.move_stack) == size:
            actions = game.legal_actions()
            game.apply_action(actions[rng.below(len(actions))])
            decisions += 1
        turns += 1
    assert stats.plies == decisions
    outcome = game.outcome()
    assert stats.wins == tuple(int(outcome is not None and outcome.winner == p)
                               for p in range(players))
    assert stats.unfinished == int(outcome is None)


def test_reentry_ignores_tall_stacks_but_goal_steps_do_not(backend: str) -> None:
    cls = Schuft.twin(backend)
    # ccw re-entry with 3 lands on tongue 7 although 9 and 8 hold 3-stacks
    text = pos({9: "g3", 8: "g3", 20: "r1"}, ["rrrrrrr..", "ggg......"], outs=(1, 0),
               roll="1-3-2")
    game = cls.from_position(text)
    assert moves(game) and all(m.startswith("ccw x/7") for m in moves(game))
    # a 3-stack on tongue 9 (before the corner) bars the goal to the piece on 7 ...
    text = pos({7: "r1", 9: "g3", 30: "r1"}, ["rrrrr..rr", "gggggg..."], roll="9-9-8")
    game = cls.from_position(text)
    assert all("7/" not in m for m in moves(game))
    # ... and a 3-stack behind the corner bars running on past a taken goal field
    text = pos({8: "r1", 12: "g3"}, [".rrrrrrrr", "gggggg..."], roll="9-9-8")
    game = cls.from_position(text)
    assert moves(game) == ["pass"]


def test_pass_at_fifteen_needs_both_directions_blocked(backend: str) -> None:
    cls = Schuft.twin(backend)
    # the only piece sits between two enemy 3-stacks: no step either way
    text = pos({20: "r1", 19: "g3", 21: "g3"}, ["rrrrrrrr.", "ggg......"], roll="5-8-2")
    game = cls.from_position(text)
    assert moves(game) == ["pass"] and game.legal_actions() == [ACTION_PASS]
    game.apply_action(ACTION_PASS)
    assert str(game.peek()) == "pass" and game.is_chance_node()


# ------------------------------------------------------------ turns decision by decision
FIXTURE = [HealthCheck.function_scoped_fixture]  # `backend` is the same for every example


def step(game: Any, rng: random.Random) -> None:
    """One random chance event or turn."""
    if game.is_chance_node():
        game.apply_action(rng.randrange(216))
    else:
        game.push(rng.choice(list(game.legal_moves)))


@settings(max_examples=12, deadline=None, suppress_health_check=FIXTURE)
@given(seed=st.integers(0, 2**32), players=st.sampled_from([2, 3, 4]),
       plies=st.integers(0, 12))
def test_every_playable_order_of_a_turn_is_the_same_move(backend: str, seed: int, players: int,
                                                         plies: int) -> None:
    game = Schuft.twin(backend)(players=players)
    rng = random.Random(seed)
    for _ in range(plies):
        if game.is_over():
            return
        step(game, rng)
    if game.is_over():
        return
    if game.is_chance_node():
        game.apply_action(rng.randrange(216))
    legal = list(game.legal_moves)
    for move in rng.sample(legal, min(6, len(legal))):
        for order in itertools.permutations(move.steps):
            candidate = SchuftMove(move.direction, order)
            # play the order decision by decision: legal in order iff every
            # decision is offered; then the turn must end as the same move
            size = len(game.move_stack)
            made = 0
            direction_first = game.legal_actions()[0] in (333, 334)
            if direction_first:
                game.apply_action(333 if move.direction == "cw" else 334)
                made += 1
            for i in range(len(order)):
                try:  # the turn so far plus one step maps to that step's action
                    action = game.move_to_action(SchuftMove(move.direction, order[:i + 1]))
                except BrettError:
                    break
                if action not in game.legal_actions() or len(game.move_stack) > size:
                    break
                game.apply_action(action)
                made += 1
            finished = len(game.move_stack) > size and made == len(order) + direction_first
            if finished:
                assert game.peek() == move
                game.pop()
                assert game.push(candidate) == move
                game.pop()
            else:
                while made:
                    game.undo_action()
                    made -= 1
                with pytest.raises(BrettError):
                    game.push(candidate)
            assert len(game.move_stack) == size


@settings(max_examples=6, deadline=None, suppress_health_check=FIXTURE)
@given(seed=st.integers(0, 2**32), players=st.sampled_from([2, 3, 4]))
def test_integer_layer_plays_only_legal_moves(backend: str, seed: int, players: int) -> None:
    game = Schuft.twin(backend)(players=players, first_player="roll")
    rng = random.Random(seed)
    for _ in range(30):
        if game.is_over():
            break
        size = len(game.move_stack)
        if game.is_chance_node():
            game.apply_action(rng.choice(game.legal_actions()))
            continue
        legal = set(game.legal_moves)
        while len(game.move_stack) == size:
            actions = game.legal_actions()
            mask = game.legal_actions_mask()
            assert [i for i, bit in enumerate(mask) if bit] == actions
            game.apply_action(rng.choice(actions))
        assert game.peek() in legal


def test_board_access_shows_the_steps_of_a_half_played_turn(backend: str) -> None:
    game = Schuft.twin(backend)(players=2)
    game.roll("1-3-2")
    before, obs_before = game.piece_map(), list(game.observation_tensor())
    first = game.legal_actions()[0]
    assert str(game.action_to_move(first)) == "ccw 1/36"
    game.apply_action(first)
    assert game.piece_at("1") is None and game.piece_at("36") == (0,)
    assert "36:r1" in str(game) and list(game.observation_tensor()) != obs_before
    while not game.is_chance_node():
        game.apply_action(game.legal_actions()[0])
    turn = game.peek()
    after = game.piece_map()  # the finished turn: the same board as pushing it
    game.pop()
    assert game.piece_map() == before
    game.push(turn)
    assert game.piece_map() == after


@needs_cython
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_die_value_rule_lives_in_the_cores_and_they_agree(players: int) -> None:
    """S6/S7 distances (tongue to tongue across the ring, entries, goal steps):
    the integer layer asks the core; both cores give the same value for every
    step of every player, 0 where no die value fits."""
    for first in range(players):
        cores = [Schuft.twin(b)(players=players, first_player=first)._core
                 for b in ("python", "cython")]
        values = [[core.step_value(direction, src, dst)  # type: ignore[attr-defined]
                   for direction in (0, 1, 2, 3) for src in range(-1, 38)
                   for dst in range(-1, 47)] for core in cores]
        assert values[0] == values[1] and set(values[0]) == set(range(10))


@needs_cython
@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads Linux's /proc")
def test_copies_that_never_list_moves_hold_no_move_scratch() -> None:
    """The compiled core's move generator needs about 1 MB of scratch; it is made on
    a core's first listing of moves, so that the 100,000 tasks of perft_tasks (or as
    many copies) do not reserve 100 GB (which a 32-bit process cannot)."""
    script = textwrap.dedent("""
        import brett
        def size():
            with open("/proc/self/status") as status:
                line = next(line for line in status if line.startswith("VmSize"))
            return int(line.split()[1]) * 1024
        game = brett.Schuft.twin("cython")()
        before = size()
        copies = [game.copy() for _ in range(3000)]
        tasks = game.perft_tasks(2, tasks=200)
        print(size() - before, len(tasks))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300, check=True)
    grown, tasks = map(int, done.stdout.split())
    assert tasks >= 200
    assert grown < 300 << 20, f"3,000 copies took {grown:,} bytes of address space"
