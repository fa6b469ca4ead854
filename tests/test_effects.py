"""``Game.effects(move)``: what a move changes, computed without playing it."""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections import Counter
from typing import Any

import pytest

import brett
from brett.errors import BrettError, IllegalMoveError, InvalidMoveError
from brett.focus import FocusEffects, FocusMove
from brett.phutball import PhutballEffects
from brett.reversi import ReversiEffects, ReversiMove
from brett.schuft import Roll, SchuftEffects
from conftest import BACKENDS, SETUPS, setup_factory


def snapshot(game: Any) -> tuple[Any, ...]:
    return (game.position(), game.move_stack, hash(game), game.pending_actions,
            game.piece_map())


def effects_unchanged(game: Any, move: Any) -> Any:
    before = snapshot(game)
    result = game.effects(move)
    assert snapshot(game) == before
    assert dataclasses.is_dataclass(result)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.player = 5
    return result


# ------------------------------------------------------------------ hand-checked
@pytest.mark.parametrize("backend", BACKENDS)
def test_reversi_flips_in_several_directions(backend: str) -> None:
    cls = brett.Reversi.twin(backend)
    rows = ["--------", "-o-o-o--", "--xxx---", "-ox-xo--", "--xxx---", "-o-o-o--",
            "--------", "--------"]
    game = cls.from_position("/".join(rows) + " o")
    fx = effects_unchanged(game, "d4")
    assert fx == ReversiEffects("d4", 1, ("c3", "d3", "e3", "c4", "e4", "c5", "d5", "e5"))
    assert effects_unchanged(game, ReversiMove(27, 8)) == fx
    game.push("d4")
    assert all(game.piece_at(sq) == 1 for sq in fx.flipped)


@pytest.mark.parametrize("backend", BACKENDS)
def test_reversi_pass(backend: str) -> None:
    game = brett.Reversi.twin(backend).from_position(
        "xxxxxxxx/" * 7 + "xxxxx-xo x")
    assert effects_unchanged(game, "pass") == ReversiEffects(None, 0, ())


def focus_position(stacks: dict[str, str], rest: str) -> str:
    squares = set(brett.Focus().squares)
    ranks = []
    for y in range(8, 0, -1):
        ranks.append(",".join(stacks.get(f"{f}{y}", ".") for f in "abcdefgh"
                              if f"{f}{y}" in squares))
    return "/".join(ranks) + " " + rest


@pytest.mark.parametrize("backend", BACKENDS)
def test_focus_overflow_captures_and_reserves(backend: str) -> None:
    cls = brett.Focus.twin(backend)
    game = cls.from_position(focus_position({"c3": "rgrgg", "e3": "gr", "d6": "g"},
                                            "r 0,0 -,-"))
    fx = effects_unchanged(game, "e3-c3")
    assert fx == FocusEffects(source="e3", target="c3", moved=(1, 0), left=(0, 1),
                              captured=(1,), reserved=(0,), entry=False, player=0)
    game.push("e3-c3")
    assert game.reserves() == (1, 0) and game.captured() == ((0, 1), (0, 0))
    assert game.stack("c3") == "rgggr"


@pytest.mark.parametrize("backend", BACKENDS)
def test_focus_reserve_entry(backend: str) -> None:
    cls = brett.Focus.twin(backend)
    game = cls.from_position(focus_position({"c3": "grgrg", "d6": "g"}, "r 1,0 -,-"))
    fx = effects_unchanged(game, "+c3")
    assert fx == FocusEffects(None, "c3", (0,), (1,), (1,), (), True, 0)
    fx = effects_unchanged(game, FocusMove(None, "e5"))
    assert fx == FocusEffects(None, "e5", (0,), (), (), (), True, 0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_focus_team_partner_is_captured(backend: str) -> None:
    """F6: in a 4-player team game a partner's piece that overflows is captured."""
    cls = brett.Focus.twin(backend)
    game = cls.from_position(focus_position(
        {"c3": "bgyrg", "d3": "r", "d6": "g", "e6": "b", "f6": "y"}, "r 0,0,0,0 -,-,-,-"))
    fx = effects_unchanged(game, "d3-c3")
    assert fx.left == (2,) and fx.captured == (2,) and fx.reserved == ()
    game.push("d3-c3")
    assert game.captured()[0] == (0, 0, 1, 0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_phutball_multi_jump_removes_men(backend: str) -> None:
    game = brett.Phutball.twin(backend)(columns=9, rows=9)
    for move in ("e4", "e6", "d5", "f4"):
        game.push(move)
    fx = effects_unchanged(game, "e5-e3-g5")
    assert fx == PhutballEffects(None, ("e5", "e3", "g5"), ("e4", "f4"), 0)
    assert effects_unchanged(game, "a1") == PhutballEffects("a1", (), (), 0)
    game.push("e5-e3-g5")
    assert game.piece_at("e4") is None and game.piece_at("f4") is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_phutball_jump_beyond_goal(backend: str) -> None:
    game = brett.Phutball.twin(backend).from_position("2O2/2O2/2*2/5/5 0 5x5")
    fx = effects_unchanged(game, "c3-c6")
    assert fx == PhutballEffects(None, ("c3", "c6"), ("c4", "c5"), 0)
    game.push("c3-c6")
    assert game.ball == "c6" and game.outcome() is not None


@pytest.mark.parametrize("backend", BACKENDS)
def test_schuft_turn_with_a_hit_and_a_roll(backend: str) -> None:
    game = brett.Schuft.twin(backend)(players=2)
    fx = effects_unchanged(game, "9-9-8")
    assert fx == SchuftEffects(0, (), (), Roll(9, 9, 8))
    game.roll("9-9-8")
    fx = effects_unchanged(game, "cw 13/22 22/31 31/3*")
    assert fx == SchuftEffects(0, (("13", "22"), ("22", "31"), ("31", "3")),
                               ((1, "31"), (1, "3")))
    game.push("cw 13/22 22/31 31/3")
    assert game.piece_at("g:x") == (1, 1) and game.piece_at("3") == (0,)
    assert game.piece_at("31") is None and game.piece_at("13") is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_schuft_reentry_and_goal_fields(backend: str) -> None:
    cls = brett.Schuft.twin(backend)
    game = cls(players=2)
    rng = random.Random(7)
    seen = set()
    for _ in range(400):
        if game.is_over():
            break
        if game.is_chance_node():
            game.roll()
            continue
        moves = list(itertools.islice(game.legal_moves, 300))
        for move in rng.sample(moves, min(40, len(moves))):
            fx = game.effects(move)
            for src, dst in fx.steps:
                seen.add("x" if src.endswith(":x") else "tongue")
                seen.add("goal" if ":g" in dst else "tongue")
        game.push(rng.choice(moves))
        if {"x", "goal"} <= seen:
            break
    assert {"x", "goal"} <= seen


# ------------------------------------------------------------------ properties
def check_against_push(game: Any, move: Any) -> None:
    """The effects agree with the difference of ``piece_map()`` over push(move)."""
    before_map = game.piece_map()
    fx = effects_unchanged(game, move)
    game.push(move)
    after_map = game.piece_map()
    try:
        check = CHECKS[game.game_name]
        check(game, fx, before_map, after_map)
    finally:
        game.pop()


def check_reversi(game: Any, fx: ReversiEffects, before: dict[str, int],
                  after: dict[str, int]) -> None:
    changed = {sq for sq in after if before.get(sq) != after[sq]}
    assert set(before) <= set(after)
    if fx.square is None:
        assert changed == set() and fx.flipped == ()
        return
    assert changed == {fx.square, *fx.flipped} and fx.square not in before
    assert all(after[sq] == fx.player for sq in changed)
    assert fx.flipped and all(before[sq] == 1 - fx.player for sq in fx.flipped)
    order = [(int(sq[1:]), sq[0]) for sq in fx.flipped]
    assert order == sorted(order)


def check_focus(game: Any, fx: FocusEffects, before: dict[str, tuple[int, ...]],
                after: dict[str, tuple[int, ...]]) -> None:
    changed = {sq for sq in set(before) | set(after) if before.get(sq) != after.get(sq)}
    assert changed <= {fx.source, fx.target}
    assert fx.entry == (fx.source is None)
    if fx.source is not None:
        src = before[fx.source]
        assert src[-len(fx.moved):] == fx.moved and fx.moved[-1] == fx.player
        assert after.get(fx.source, ()) == src[:len(src) - len(fx.moved)]
    else:
        assert fx.moved == (fx.player,)
    stack = before.get(fx.target, ()) + fx.moved
    assert after[fx.target] == stack[len(fx.left):] and len(after[fx.target]) <= 5
    assert len(fx.left) == max(0, len(stack) - 5)
    assert sorted(fx.left) == sorted(fx.captured + fx.reserved)
    assert all(c != fx.player for c in fx.captured)
    assert all(c == fx.player for c in fx.reserved)


def check_phutball(game: Any, fx: PhutballEffects, before: dict[str, str],
                   after: dict[str, str]) -> None:
    if fx.placed is not None:
        assert fx.path == () and fx.removed == ()
        assert after == {**before, fx.placed: "man"} and fx.placed not in before
        return
    assert len(fx.path) >= 2 and before[fx.path[0]] == "ball" and after[fx.path[-1]] == "ball"
    men_before = {p for p, v in before.items() if v == "man"}
    men_after = {p for p, v in after.items() if v == "man"}
    assert men_after <= men_before
    assert set(fx.removed) == men_before - men_after
    assert len(fx.removed) == len(set(fx.removed)) >= len(fx.path) - 1


def check_schuft(game: Any, fx: SchuftEffects, before: dict[str, tuple[int, ...]],
                 after: dict[str, tuple[int, ...]]) -> None:
    if fx.roll is not None:
        assert fx.steps == () and fx.sent_back == () and after == before
        assert game.peek() == fx.roll
        return
    letter = "rgby"[fx.player]
    count: Counter[tuple[str, int]] = Counter()
    for field, pieces in before.items():
        for p in pieces:
            count[field, p] += 1
    for src, dst in fx.steps:
        count[src, fx.player] -= 1
        count[dst, fx.player] += 1
    for owner, field in fx.sent_back:
        assert owner != fx.player
        count[field, owner] -= 1
        count[f"{'rgby'[owner]}:x", owner] += 1
    want = Counter({(f, p): n for f, pieces in after.items() for p, n in Counter(pieces).items()})
    assert +count == want and not -count
    squares = set(game.squares)
    for src, dst in fx.steps:
        assert src in squares and dst in squares
        assert src[0].isdigit() or src == f"{letter}:x"
        assert dst[0].isdigit() or dst.startswith(f"{letter}:g")


CHECKS: dict[str, Any] = {"reversi": check_reversi, "focus": check_focus,
                          "phutball": check_phutball, "schuft": check_schuft}


@pytest.mark.parametrize("setup", sorted(SETUPS))
@pytest.mark.parametrize("backend", BACKENDS)
def test_effects_agree_with_push_over_random_games(setup: str, backend: str) -> None:
    make = setup_factory(setup, backend)
    for seed in range(3):
        rng = random.Random(seed)
        game = make()
        for _ in range(60):
            if game.is_over():
                break
            if game.is_chance_node():
                move = game.action_to_move(rng.choice(game.chance_outcomes())[0])
                check_against_push(game, move)
                game.push(move)
                continue
            moves = list(itertools.islice(game.legal_moves, 200))
            for move in rng.sample(moves, min(6, len(moves))):
                check_against_push(game, move)
                check_against_push(game, str(move))
            game.push(rng.choice(moves))


@pytest.mark.parametrize("backend", BACKENDS)
def test_effects_agree_between_the_cores(backend: str) -> None:
    for setup in sorted(SETUPS):
        mine, ref = setup_factory(setup, backend)(), setup_factory(setup, "python")()
        rng = random.Random(11)
        for _ in range(30):
            if mine.is_over():
                break
            if mine.is_chance_node():
                move = mine.action_to_move(rng.choice(mine.chance_outcomes())[0])
            else:
                moves = list(itertools.islice(mine.legal_moves, 200))
                move = rng.choice(moves)
            assert mine.effects(move) == ref.effects(move)
            mine.push(move)
            ref.push(move)


# ------------------------------------------------------------------ errors
ILLEGAL = {"reversi": ["a1", "pass", "d4"], "focus": ["+c3", "a3-a4", "c3-c5"],
           "phutball-9x9": ["e5", "e5-e7", "h10"], "schuft": ["cw 1/2", "pass", "ccw 1/2"]}
MALFORMED = ["", "zz99", "c3-", "nonsense move", 42, None, 3.5]


@pytest.mark.parametrize("setup", ["reversi", "focus", "phutball-9x9", "schuft"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_illegal_and_malformed_moves_raise_like_push(setup: str, backend: str) -> None:
    game = setup_factory(setup, backend)()
    if setup == "schuft":
        game.roll("5-8-2")
    for move in ILLEGAL[setup] + MALFORMED:
        before = snapshot(game)
        with pytest.raises(BrettError) as by_push:
            game.push(move)
        assert snapshot(game) == before
        with pytest.raises(BrettError) as by_effects:
            game.effects(move)
        assert snapshot(game) == before
        assert type(by_effects.value) is type(by_push.value)
        assert isinstance(by_effects.value, (IllegalMoveError, InvalidMoveError))


@pytest.mark.parametrize("backend", BACKENDS)
def test_chance_and_finished_games(backend: str) -> None:
    game = brett.Schuft.twin(backend)(players=2)
    with pytest.raises(IllegalMoveError):
        game.effects("pass")  # the dice are not rolled yet
    game.roll("5-8-2")
    with pytest.raises(IllegalMoveError):
        game.effects("5-8-2")  # already rolled
    over = brett.Reversi.twin(backend).from_position("xxxxxxxx/" * 7 + "xxxxxxxx x")
    assert over.is_over()
    with pytest.raises(IllegalMoveError, match="over"):
        over.effects("pass")


@pytest.mark.parametrize("backend", BACKENDS)
def test_pending_actions_refuse(backend: str) -> None:
    game = brett.Phutball.twin(backend)(columns=9, rows=9)
    for move in ("e4", "e6", "d5", "f4"):
        game.push(move)
    game.apply_action(game.move_to_action("e5-e3"))
    assert game.pending_actions
    before = snapshot(game)
    with pytest.raises(IllegalMoveError, match="half made"):
        game.effects("e5-e3-g5")
    with pytest.raises(InvalidMoveError):
        game.effects("garbage!")
    assert snapshot(game) == before
    schuft = brett.Schuft.twin(backend)(players=2)
    schuft.roll("9-9-8")
    schuft.apply_action(schuft.legal_actions()[0])
    assert schuft.pending_actions
    before = snapshot(schuft)
    with pytest.raises(BrettError, match="half made"):
        schuft.effects("pass")
    assert snapshot(schuft) == before


@pytest.mark.parametrize("backend", BACKENDS)
def test_schuft_effects_describe_the_recorded_turn(backend: str) -> None:
    """Any playable step order gives the effects of the representative push records."""
    game = brett.Schuft.twin(backend)(players=2)
    game.roll("5-8-2")
    fx = game.effects("ccw 17/9 1/32 9/7")
    assert fx.steps == (("1", "32"), ("17", "9"), ("9", "7"))
    played = game.push("ccw 17/9 1/32 9/7")
    game.pop()
    assert game.effects(played) == fx == game.effects(str(played))
