"""The Focus core's integer layer in C (the ``v_*`` hooks, _common.pxd) beyond the
shared test_vector_hooks.py: whole random games to their natural end (thousands of
moves), the mirror rule's result, the ply cap, entries from the reserve, 3-player
first entries and removal wins, bounded memory, and the core protocol after the hooks.
The oracle is always the public integer layer of a Focus game on the same moves."""

from __future__ import annotations

import random
import re
from typing import Any

import numpy
import pytest

import brett
from brett._core import _common
from brett._core import _focus_py as _fp
from conftest import needs_cython

pytestmark = needs_cython

SIZE = _fp.NUM_ACTIONS


def cls(backend: str = "cython") -> Any:
    return brett.GAMES["focus"].twin(backend)


def hook_mask(core: Any) -> tuple[int, list[int]]:
    mask = numpy.zeros(SIZE, dtype=numpy.uint8)
    count = _common.vector_mask(core, mask)
    return count, numpy.flatnonzero(mask).tolist()


def assert_same(core: Any, oracles: list[Any]) -> None:
    """Every hook answers what each oracle game answers.  The mask and the
    observation are checked against the games' Python code (legal_actions,
    _observation): their public numpy calls use these very hooks on a compiled core."""
    count, legal = hook_mask(core)
    obs = numpy.full((6 * oracles[0].num_players() + 1) * 64, numpy.nan,
                     dtype=numpy.float32)          # NaN: every cell must be written
    _common.vector_observe(core, obs)
    for game in oracles:
        assert legal == game.legal_actions()
        assert count == len(legal)
        assert _common.vector_player(core) == game.current_player()
        assert _common.vector_chance(core, SIZE) == game.chance_outcomes() == []
        assert _common.vector_returns(core, game.num_players()) == game.returns()
        expected = numpy.asarray(game._observation(), dtype=numpy.float32)
        assert obs.tobytes() == expected.tobytes()
        assert core.get_state() == game._core.get_state()
        assert core.key() == game._core.key()


def try_illegal(core: Any, game: Any, rng: random.Random) -> None:
    """Illegal actions (a few near-misses and out of range) change nothing."""
    legal = set(game.legal_actions())
    before = core.get_state()
    candidates = [-1, SIZE, 2**40, -2**63, 2**63 - 1]
    candidates += [a for a in rng.sample(range(SIZE), 12) if a not in legal]
    for a in candidates:
        assert _common.vector_apply(core, a) == -1, a
    assert core.get_state() == before


def step_both(core: Any, oracles: list[Any], rng: random.Random, steps: int,
              every: int = 1) -> int:
    """Random actions on the core (hooks) and the oracle games (apply_action),
    checking everything each ``every`` steps and at the end, the legal actions,
    player and key at the others.  The number of moves made."""
    game = oracles[0]
    for made in range(steps):
        if made % every == 0:
            assert_same(core, oracles)
            try_illegal(core, game, rng)
        legal = game.legal_actions()
        if not legal:
            assert game.is_over()
            assert _common.vector_apply(core, 0) == -1
            assert_same(core, oracles)
            return made
        count, hooked = hook_mask(core)
        assert count == len(legal) and hooked == legal
        assert _common.vector_player(core) == game.current_player()
        action = rng.choice(legal)
        for each in oracles:
            each.apply_action(action)
        assert _common.vector_apply(core, action) == 0
        assert core.key() == game._core.key()
    assert_same(core, oracles)
    return steps


def hooked(game: Any) -> Any:
    """A hook-stepped core for ``game``: like a VectorEnv's, a copy reset to it."""
    core = game._core.clone(False)
    _common.vector_reset(core, game._core.clone(False))
    return core


@pytest.mark.parametrize(("options", "seed"), [
    ({}, 1),
    ({"players": 3}, 2),
    ({"players": 3, "move_rule": "whole"}, 3),
    ({"players": 4}, 4),
    ({"players": 4, "teams": False}, 6),
    ({"move_rule": "whole"}, 7),
    ({"mirror_rule": True}, 8),
    ({"swap": "random", "seed": 5, "move_rule": "up_to"}, 5),
])
def test_whole_games_to_the_end(options: dict[str, Any], seed: int) -> None:
    """Random games played to their natural end (no cap) agree move for move."""
    game = cls()(**options)
    core = hooked(game)
    made = step_both(core, [game], random.Random(seed), 10**6, every=100)
    assert game.is_over() and made > 0
    assert _common.vector_player(core) == brett.TERMINAL
    assert game.outcome() is not None and game.outcome().reason != _fp.REASONS[7]


@pytest.mark.parametrize("options", [
    {"players": 4, "teams": False, "max_plies": 300},
    {"players": 4, "teams": True, "move_rule": "up_to", "max_plies": 300},
    {"move_rule": "whole", "max_plies": 120},
    {"players": 3, "move_rule": "up_to", "max_plies": 250},
])
def test_ply_cap(options: dict[str, Any]) -> None:
    """A capped game ends on the cap (or before), every step checked against
    both twins."""
    game = cls()(**options)
    core = hooked(game)
    made = step_both(core, [game, cls("python")(**options)], random.Random(11),
                     options["max_plies"] + 5)
    assert game.is_over() and made <= options["max_plies"]


def test_mirror_rule_result() -> None:
    """F9: green answering every move with its mirror image until the cap gives red
    the game; the hooks say so.  A mirror broken at once: the board decides."""
    oracles = [cls(backend)(mirror_rule=True, max_plies=40) for backend in ("cython", "python")]
    game = oracles[0]
    core = hooked(game)
    rng = random.Random(3)
    action = 0
    while not game.is_over():
        assert_same(core, oracles)
        if game.current_player() == 0:
            action = rng.choice(game.legal_actions())
        else:
            action = _fp.mirror_action(action)   # the image of red's last move
        for each in oracles:
            each.apply_action(action)
        assert _common.vector_apply(core, action) == 0
    assert_same(core, oracles)
    assert game.outcome().winners == (0,)
    assert _common.vector_returns(core, 2) == [1.0, -1.0]
    game = cls()(mirror_rule=True, max_plies=40)
    made = step_both(hooked(game), [game], random.Random(4), 50)
    assert made == 40 and game.is_over()


def edit(position: str, reserves: str | None = None, captured: str | None = None,
         extra: str = "") -> str:
    fields = position.split()
    if reserves is not None:
        fields[2] = reserves
    if captured is not None:
        fields[3] = captured
    return " ".join(fields) + (" " + extra if extra else "")


def advanced(options: dict[str, Any], plies: int, seed: int) -> Any:
    game = cls()(**options)
    rng = random.Random(seed)
    for _ in range(plies):
        game.apply_action(rng.choice(game.legal_actions()))
    return game


@pytest.mark.parametrize("case", [
    "2p-reserves", "3p-first-entries", "3p-removal-by-captures", "3p-removal-three-each",
    "4p-ffa-reserves", "4p-teams-reserves", "cap-next-move",
])
def test_positions(case: str) -> None:
    """Positions the start never shows at once: reserves to enter (onto empty and
    occupied squares), owed first entries, a 3-player removal win one capture away,
    a cap one move away; every step is checked."""
    if case == "2p-reserves":
        text = edit(advanced({}, 30, 1).position(), reserves="3,2")
    elif case == "3p-first-entries":
        text = advanced({"players": 3}, 20, 2).position()
        text = re.sub(r" first=\S+", "", text)
        text = edit(text, reserves="2,1,3", extra="first=rb")
    elif case == "3p-removal-by-captures":
        text = edit(advanced({"players": 3}, 40, 3).position(), captured="g7b2,-,-")
    elif case == "3p-removal-three-each":
        text = edit(advanced({"players": 3}, 40, 4).position(), captured="g3b2,r2b3,-")
    elif case == "4p-ffa-reserves":
        text = edit(advanced({"players": 4, "teams": False}, 60, 5).position(),
                    reserves="1,0,2,1")
    elif case == "4p-teams-reserves":
        text = edit(advanced({"players": 4}, 60, 6).position(), reserves="0,2,1,0")
    else:
        game = advanced({"players": 3}, 30, 7)
        text = re.sub(r" first=\S+", "", game.position()) + f" cap={game.ply + 1}"
    game = cls().from_position(text)
    oracles = [game, cls("python").from_position(text)]
    made = step_both(hooked(game), oracles, random.Random(case), 200)
    assert made > 0


def test_memory_and_the_core_protocol_after_the_hooks() -> None:
    """The hooks keep no undo records (memory stays bounded), never touch the move
    stack, and the core still works through the protocol afterwards."""
    game = advanced({"players": 4}, 10, 8)
    core = game._core.clone(True)   # with undo records and entries
    entries = list(core.entries)
    _common.vector_reset(core, game._core.clone(False))
    assert core.entries == entries
    with pytest.raises(IndexError):
        core.pop()                  # v_reset dropped the records
    rng = random.Random(9)
    for _ in range(3000):
        if game.is_over():
            break
        action = rng.choice(game.legal_actions())
        game.apply_action(action)
        assert _common.vector_apply(core, action) == 0
    with pytest.raises(IndexError):
        core.pop()                  # 3000 moves made, not one record kept
    assert core.get_state() == game._core.get_state()
    copy = core.clone(False)
    assert copy.get_state() == core.get_state() and copy.key() == core.key()
    if not game.is_over():
        action = game.legal_actions()[0]
        assert core.push(action, "m")
        assert core.pop() == "m"
        assert core.get_state() == game._core.get_state()


def test_reset_takes_only_a_focus_core() -> None:
    """The probe refuses a core of another game (or None) before the hook could
    read foreign memory, and the core stays as it was; from a Focus core of other
    options it becomes that position."""
    game = advanced({}, 15, 10)
    core = game._core.clone(False)
    before = core.get_state()
    other = brett.GAMES["reversi"].twin("cython")()._core
    with pytest.raises(TypeError):
        _common.vector_reset(core, other)
    with pytest.raises(TypeError):
        _common.vector_reset(core, None)
    assert core.get_state() == before
    three = cls()(players=3)
    _common.vector_reset(core, three._core)
    assert core.get_state() == three._core.get_state()
    assert_same(core, [three])
