"""Hypothesis properties of Reversi: both twins agree on random games with random
options, push/pop and position strings round-trip exactly, both layers agree."""

from __future__ import annotations

import os
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brett.reversi import Reversi

SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
needs_cython = pytest.mark.skipif(
    bool(os.environ.get("BRETT_NO_EXTENSIONS")),
    reason="BRETT_NO_EXTENSIONS=1: this run tests the plain-Python twin only")
# Hypothesis cannot take the function-scoped `backend` fixture: the same two twins here.
BACKENDS = pytest.mark.parametrize(
    "backend", ["python", pytest.param("cython", marks=needs_cython)])


@st.composite
def options(draw: Any) -> dict[str, Any]:
    opts: dict[str, Any] = {"seed": draw(st.integers(0, 2**32))}
    if draw(st.integers(0, 4)) == 0:
        opts["board"] = "octagon"
    else:
        opts["size"] = draw(st.sampled_from([4, 6, 6, 8, 8, 8, 10, 12, 16]))
    opts["handicap"] = draw(st.integers(0, 4))
    opts["handicap_color"] = draw(st.sampled_from(["black", "white"]))
    if opts.get("size") != 4:
        opts["holes"] = draw(st.sampled_from([0, 1, 2, 3, 4, "random"]))
    return opts


def snapshot(game: Any) -> tuple[Any, ...]:
    return (game.position(), hash(game), [str(m) for m in game.legal_moves],
            game.current_player(), game.outcome(), game.discs())


@needs_cython
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(options(), st.integers(0, 2**32), st.integers(1, 120))
def test_twins_agree_move_for_move(opts: dict[str, Any], seed: int, plies: int) -> None:
    py = Reversi.twin("python")(**opts)
    cy = Reversi.twin("cython")(**opts)
    rng = random.Random(seed)
    states = [snapshot(py)]
    assert snapshot(cy) == states[0]
    for _ in range(plies):
        if py.is_over():
            break
        move = rng.choice(list(py.legal_moves))
        py.push(move)
        cy.push(str(move))
        states.append(snapshot(py))
        assert snapshot(cy) == states[-1]
    assert py.perft(2) == cy.perft(2) and py.perft(2, True) == cy.perft(2, True)
    stats = py.random_playouts(3, seed=seed, max_plies=40)
    assert stats == cy.random_playouts(3, seed=seed, max_plies=40)
    while py.move_stack:                           # push/pop restores every earlier state
        assert snapshot(py) == snapshot(cy) == states.pop()
        assert str(py.pop()) == str(cy.pop())
    assert snapshot(py) == snapshot(cy) == states.pop() and not states


@BACKENDS
@SETTINGS
@given(options(), st.integers(0, 2**32), st.integers(0, 80))
def test_push_pop_position_and_layers(backend: str, opts: dict[str, Any], seed: int,
                                      plies: int) -> None:
    game = Reversi.twin(backend)(**opts)
    rng = random.Random(seed)
    seen = []
    for _ in range(plies):
        if game.is_over():
            break
        # position strings round-trip exactly, hash included
        again = type(game).from_position(game.position())
        assert again == game and again.position() == game.position()
        assert hash(again) == hash(game) and again.holes == game.holes
        # the integer layer agrees with the Pythonic one
        moves = list(game.legal_moves)
        actions = game.legal_actions()
        assert actions == sorted(game.move_to_action(m) for m in moves)
        assert [game.action_to_move(a) for a in actions] == moves
        mask = game.legal_actions_mask()
        assert [i for i, bit in enumerate(mask) if bit] == actions
        assert game.legal_moves.count() == len(moves)
        legal = set(actions)
        assert [a for a in range(game.num_distinct_actions()) if game._core_is_legal(a)] \
            == sorted(legal)
        assert all((game.action_to_move(a) in game.legal_moves) == (a in legal)
                   for a in range(0, game.num_distinct_actions(), 7))
        seen.append((game.position(), hash(game)))
        if rng.random() < 0.5:
            game.push(rng.choice(moves))
        else:
            game.apply_action(rng.choice(actions))
    for position, key in reversed(seen):
        game.pop()
        assert (game.position(), hash(game)) == (position, key)
    assert game.move_stack == []


@BACKENDS
@SETTINGS
@given(options(), st.integers(0, 2**32))
def test_playout_matches_playouts(backend: str, opts: dict[str, Any], seed: int) -> None:
    # The core's bulk playouts and the Python-level playout make the same game.
    game = Reversi.twin(backend)(**opts)
    stats = game.random_playouts(1, seed=seed, max_plies=200)
    outcome = game.random_playout(seed=seed, max_plies=200)
    if outcome is None:
        assert stats.unfinished == 1
    else:
        assert stats.plies == len(game.move_stack)
        assert stats.wins == tuple(1 if p in outcome.winners else 0 for p in (0, 1))
        assert stats.draws == (1 if outcome.is_draw else 0)
