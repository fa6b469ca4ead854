"""Phutball's integer layer in C (the ``v_*`` hooks of the compiled core) against
the Game's integer layer on the cases random games seldom reach: jump chains of
several steps ended by *stop*, a jump beyond either goal line, the ply cap,
refused placements and steps, long games played to the end with a bias to jumps,
and a pending move that never leaks into get_state() or clone(False)."""

from __future__ import annotations

import random
from typing import Any

import numpy
import pytest

import brett
from brett._core import _common
from conftest import needs_cython

pytestmark = needs_cython

Phutball = brett.GAMES["phutball"].twin("cython")


def picture(rows: str, side: int = 0, extra: str = "") -> str:
    """A position string from a picture (top row first; ``.`` empty, ``O`` a man,
    ``*`` the ball)."""
    lines = [line.strip() for line in rows.strip().splitlines()]
    fields = []
    for line in lines:
        out, run = "", 0
        for ch in line:
            if ch == ".":
                run += 1
                continue
            out += (str(run) if run else "") + ch
            run = 0
        fields.append(out + (str(run) if run else ""))
    cols, nrows = len(lines[0]), len(lines)
    size = "" if (cols, nrows) == (15, 19) else f" {cols}x{nrows}"
    return "/".join(fields) + f" {side}" + size + extra


def hooks(core: Any, game: Any) -> dict[str, Any]:
    size = game.num_distinct_actions()
    mask = numpy.zeros(size, dtype=numpy.uint8)
    count = _common.vector_mask(core, mask)
    obs = numpy.full(int(numpy.prod(game.observation_tensor_shape())), 7.0,
                     dtype=numpy.float32)  # not zeros: every value must be written
    _common.vector_observe(core, obs)
    return {"player": _common.vector_player(core), "mask": mask.tolist(), "count": count,
            "chance": _common.vector_chance(core, size), "observation": obs.tolist(),
            "returns": _common.vector_returns(core, 2)}


def public(game: Any) -> dict[str, Any]:
    mask = game.legal_actions_mask()
    return {"player": game.current_player(), "mask": mask.astype(numpy.uint8).tolist(),
            "count": len(game.legal_actions()), "chance": game.chance_outcomes(),
            "observation": game.observation_tensor().reshape(-1).tolist(),
            "returns": game.returns()}


def pair(position: str) -> tuple[Any, Any]:
    game = Phutball.from_position(position)
    return game, game._core.clone(False)


def play(game: Any, core: Any, actions: list[int]) -> None:
    """Apply ``actions`` to both, comparing them after each one."""
    for action in actions:
        game.apply_action(action)
        assert _common.vector_apply(core, action) == 0, action
        assert hooks(core, game) == public(game)


def jump(game: Any, direction: str) -> int:
    return game.num_distinct_actions() - 9 + ("N", "NE", "E", "SE", "S", "SW", "W", "NW").index(
        direction)


CHAIN = picture("""
    .........
    .....O...
    ....O....
    .........
    ....O....
    ....*....
    .........
    .........
    .........
""")


def test_a_chain_of_jumps_ended_by_stop() -> None:
    game, core = pair(CHAIN)
    assert hooks(core, game) == public(game)
    # e4 -> e6 over e5, then e6 -> e8 over e7 (pending), then stop
    first = jump(game, "N")
    play(game, core, [first])
    assert _common.vector_player(core) == 0 and game.pending_actions == (first,)
    legal = [a for a, ok in enumerate(hooks(core, game)["mask"]) if ok]
    assert legal == game.legal_actions() and game.stop_action in legal
    second = legal[0]
    play(game, core, [second, game.stop_action])
    assert game.pending_actions == () and _common.vector_player(core) == 1
    # the whole path made step by step leaves exactly the state push(path) leaves
    assert core.get_state() == game._core.get_state()
    assert core.key() == game._core.key()


def test_stop_then_more_moves_and_a_second_chain() -> None:
    game, core = pair(CHAIN)
    rng = random.Random(3)
    while not game.is_over():
        legal = game.legal_actions()
        jumps = [a for a in legal if a >= game.stop_action - 8]
        play(game, core, [rng.choice(jumps if jumps and rng.random() < 0.8 else legal)])
    assert _common.vector_apply(core, 0) == -1


@pytest.mark.parametrize(("rows", "side", "direction", "returns"), [
    ("""
    ....O....
    ....O....
    ....O....
    ....O....
    ....*....
    ....O....
    .........
    .........
    .........
    """, 0, "N", [1.0, -1.0]),
    ("""
    .........
    .........
    .........
    .........
    ....*....
    ....O....
    ....O....
    ....O....
    ....O....
    """, 1, "S", [-1.0, 1.0]),
])
def test_a_jump_beyond_a_goal_line_ends_the_game(rows: str, side: int, direction: str,
                                                  returns: list[float]) -> None:
    game, core = pair(picture(rows, side))
    play(game, core, [jump(game, direction)])
    assert game.is_over() and game.pending_actions == ()
    assert _common.vector_player(core) == brett.TERMINAL
    assert _common.vector_returns(core, 2) == returns
    assert hooks(core, game)["count"] == 0
    assert core.get_state() == game._core.get_state()
    for action in (0, jump(game, "N"), game.stop_action):
        assert _common.vector_apply(core, action) == -1


def test_a_jump_onto_the_goal_line_goes_on_until_stop() -> None:
    game, core = pair(picture("""
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
    play(game, core, [jump(game, "N")])  # lands on row 9: pending, not over yet
    assert _common.vector_player(core) == 0 and _common.vector_returns(core, 2) == [0.0, 0.0]
    play(game, core, [game.stop_action])
    assert _common.vector_returns(core, 2) == [1.0, -1.0]


def test_the_ply_cap() -> None:
    game = Phutball(columns=7, rows=7, max_plies=3)
    core = game._core.clone(False)
    n = game.stop_action - 8
    play(game, core, [0, 1])
    assert _common.vector_player(core) == 0
    play(game, core, [2])
    assert game.is_over() and _common.vector_player(core) == brett.TERMINAL
    assert _common.vector_returns(core, 2) == [0.0, 0.0]
    assert not any(hooks(core, game)["mask"])
    assert _common.vector_apply(core, n - 1) == -1


def test_refused_actions_change_nothing() -> None:
    game, core = pair(CHAIN)
    n = game.stop_action - 8
    ball = game.points.index("e4")
    man = game.points.index("e5")
    before = hooks(core, game)
    for action in (-1, n + 9, 2**40, -2**40, ball, man, game.stop_action,
                   jump(game, "S"), jump(game, "E")):
        assert _common.vector_apply(core, action) == -1, action
        assert hooks(core, game) == before
    play(game, core, [jump(game, "N")])
    pending = hooks(core, game)
    for action in (0, man, game.points.index("a1"), jump(game, "S"), n + 9):
        assert _common.vector_apply(core, action) == -1, action
        assert hooks(core, game) == pending


def test_a_pending_move_stays_out_of_the_core_protocol() -> None:
    game, core = pair(CHAIN)
    state, key = core.get_state(), core.key()
    assert _common.vector_apply(core, jump(game, "N")) == 0
    assert core.get_state() == state and core.key() == key
    fresh = core.clone(False)
    assert hooks(fresh, game) == public(game)  # the position before the move
    whole = core.clone(True)
    game.apply_action(jump(game, "N"))
    assert hooks(whole, game) == hooks(core, game) == public(game)
    # the search and pushes after a reset see the start position
    _common.vector_reset(core, Phutball.from_position(CHAIN)._core)
    assert hooks(core, game) == public(Phutball.from_position(CHAIN))


@pytest.mark.parametrize(("options", "seed"), [
    ({"columns": 5, "rows": 5}, 0),
    ({"columns": 7, "rows": 11}, 1),
    ({"columns": 9, "rows": 9, "max_plies": 15}, 2),
    ({}, 3),
])
def test_long_games_biased_to_jumps(options: dict[str, Any], seed: int) -> None:
    """Whole games (several in a row on one core, reset between them), every
    refused action checked; jumps chosen often so chains and goals happen."""
    rng = random.Random(seed)
    start = Phutball(**options)._core
    core = start.clone(False)
    finished = steps = 0
    while finished < 10 and steps < 5000:
        game = Phutball(**options)
        _common.vector_reset(core, start)
        while not game.is_over():
            assert hooks(core, game) == public(game)
            legal = game.legal_actions()
            refused = rng.randrange(-3, game.num_distinct_actions() + 3)
            if refused not in legal:
                assert _common.vector_apply(core, refused) == -1
            jumps = [a for a in legal if a >= game.stop_action - 8]
            row = int(game.ball[1:])  # placements on the ball's row and its neighbours
            near = [a for a in legal if a < game.stop_action - 8
                    and abs(a // game.columns + 1 - row) <= 1]
            if jumps and rng.random() < 0.7:
                action = rng.choice(jumps)
            elif near and rng.random() < 0.8:
                action = rng.choice(near)
            else:
                action = rng.choice(legal)
            game.apply_action(action)
            assert _common.vector_apply(core, action) == 0
            steps += 1
        assert hooks(core, game) == public(game)
        assert core.get_state() == game._core.get_state()
        finished += 1
    assert finished == 10
