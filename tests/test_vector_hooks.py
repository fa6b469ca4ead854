"""The integer layer in C (the ``v_*`` hooks of the compiled cores, _common.pxd)
against the public integer layer of the same game: on random games of every setup,
a core stepped by the hooks shows the same player, legal-action mask, chance
outcomes, observation and returns as a Game stepped by ``apply_action``, refuses the
same illegal actions without changing, and resets to the start."""

from __future__ import annotations

import random
from typing import Any

import numpy
import pytest

import brett
from brett._core import _common
from conftest import SETUPS, needs_cython

pytestmark = needs_cython


def core_view(core: Any, game: Any) -> dict[str, Any]:
    """What the hooks say about ``core``, in the Game's terms."""
    size = game.num_distinct_actions()
    mask = numpy.zeros(size, dtype=numpy.uint8)
    count = _common.vector_mask(core, mask)
    obs = numpy.zeros(int(numpy.prod(game.observation_tensor_shape())), dtype=numpy.float32)
    _common.vector_observe(core, obs)
    return {
        "player": _common.vector_player(core),
        "mask": mask.astype(bool).tolist(),
        "count": count,
        "chance": [(int(a), float(p)) for a, p in _common.vector_chance(core, size)],
        "observation": obs.tolist(),
        "returns": _common.vector_returns(core, game.num_players()),
    }


def game_view(game: Any) -> dict[str, Any]:
    """What the Game says, by its Python paths (its out= fast paths use the hooks)."""
    legal = set(game.legal_actions())
    return {
        "player": game.current_player(),
        "mask": [a in legal for a in range(game.num_distinct_actions())],
        "count": len(legal),
        "chance": game.chance_outcomes(),
        "observation": numpy.asarray(game._observation(), dtype=numpy.float32).tolist(),
        "returns": game.returns(),
    }


def pick(game: Any, rng: random.Random) -> int:
    outcomes = game.chance_outcomes()
    if outcomes:
        return rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
    return rng.choice(game.legal_actions())


@pytest.mark.parametrize("setup", sorted(SETUPS))
@pytest.mark.parametrize("seed", range(3))
def test_hooks_follow_the_game(setup: str, seed: int) -> None:
    name, options = SETUPS[setup]
    cls = brett.GAMES[name].twin("cython")
    game = cls(**options)
    assert _common.vector_supported(game._core)
    start = game._core.clone(False)
    core = game._core.clone(False)
    rng = random.Random(seed)
    games = 0
    for _ in range(400):
        assert core_view(core, game) == game_view(game)
        if game.is_over():
            games += 1
            assert _common.vector_apply(core, 0) == -1
            _common.vector_reset(core, start)
            game = cls(**options)
            continue
        legal = set(game.legal_actions())
        illegal = [a for a in range(game.num_distinct_actions()) if a not in legal]
        if illegal:
            before = core_view(core, game)
            assert _common.vector_apply(core, rng.choice(illegal)) == -1
            assert core_view(core, game) == before
        action = pick(game, rng)
        game.apply_action(action)
        assert _common.vector_apply(core, action) == 0, (setup, action)


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_reset_mid_move(setup: str) -> None:
    """A reset in the middle of a game (a pending move too) gives the start back."""
    name, options = SETUPS[setup]
    cls = brett.GAMES[name].twin("cython")
    game = cls(**options)
    start = game._core.clone(False)
    core = game._core.clone(False)
    rng = random.Random(7)
    for _ in range(25):
        if game.is_over():
            break
        action = pick(game, rng)
        game.apply_action(action)
        assert _common.vector_apply(core, action) == 0
    _common.vector_reset(core, start)
    assert core_view(core, game) == game_view(cls(**options))
