"""Property tests for Phutball: random board sizes and random men, both cores."""

from __future__ import annotations

import os
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from brett import Phutball
from test_phutball import naive_perft, picture

SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
NEEDS_CYTHON = pytest.mark.skipif(bool(os.environ.get("BRETT_NO_EXTENSIONS")),
                                  reason="BRETT_NO_EXTENSIONS=1: plain-Python twin only")


def _paths_at_most(position: str, limit: int) -> bool:
    """Whether the position has at most ``limit`` legal moves.  Random dense boards
    can hold billions of jump paths (a 9x9 board two-thirds full did), far beyond
    what a property test can walk, so the strategy filters them out."""
    backend = "python" if os.environ.get("BRETT_NO_EXTENSIONS") else "cython"
    game = Phutball.twin(backend).from_position(position)
    return bool(game.legal_moves.count() <= limit)


@st.composite
def positions(draw: Any) -> str:
    """A position string: any size 5..25 with few men, or up to 7x7 with many."""
    big = draw(st.booleans())
    top = 25 if big else 7
    cols, rows = draw(st.integers(5, top)), draw(st.integers(5, top))
    density = draw(st.sampled_from([0.0, 0.05, 0.15] if big else [0.3, 0.5, 0.7, 0.9]))
    rng = random.Random(draw(st.integers(0, 2**32)))
    ball = (rng.randint(2, rows - 1), rng.randrange(cols))
    lines = []
    for r in range(rows, 0, -1):
        lines.append("".join("*" if (r, c) == ball else "O" if rng.random() < density else "."
                             for c in range(cols)))
    cap = draw(st.sampled_from([None, 2, 40]))
    extra = "" if cap is None else f" plies:{draw(st.integers(0, cap - 1))}/{cap}"
    position = picture("\n".join(lines), draw(st.integers(0, 1)), extra)
    assume(_paths_at_most(position, 1000))
    return position


@SETTINGS
@given(positions(), st.lists(st.integers(0, 10**6), max_size=6), st.sampled_from(["python",
                                                                                    "cython"]))
def test_push_pop_restores_everything(position: str, choices: list[int], backend: str) -> None:
    if backend == "cython" and os.environ.get("BRETT_NO_EXTENSIONS"):
        backend = "python"
    game = Phutball.twin(backend).from_position(position)
    start = (game.position(), hash(game), game._core_get_state())
    seen = []
    for i in choices:
        moves = list(game.legal_moves)
        if not moves:
            break
        seen.append((game.position(), hash(game)))
        game.push(moves[i % len(moves)])
        fresh = type(game).from_position(game.position())
        assert hash(fresh) == hash(game)  # incremental key == key from scratch
        assert fresh.position() == game.position()
    while game.move_stack:
        game.pop()
        assert (game.position(), hash(game)) == seen.pop()
    assert (game.position(), hash(game), game._core_get_state()) == start
    assert game.position() == position


@NEEDS_CYTHON
@SETTINGS
@given(positions(), st.lists(st.integers(0, 10**6), max_size=5))
def test_twins_agree(position: str, choices: list[int]) -> None:
    py = Phutball.twin("python").from_position(position)
    cy = Phutball.twin("cython").from_position(position)
    for i in [*choices, None]:
        assert py._core_moves() == cy._core_moves()
        assert py._core_count() == cy._core_count() == len(py._core_moves())
        assert (py.position(), hash(py), py.outcome()) == (cy.position(), hash(cy), cy.outcome())
        assert py.legal_actions() == cy.legal_actions()
        assert py.perft(2) == cy.perft(2)
        assert py.perft(2, count_finished=True) == cy.perft(2, count_finished=True)
        if i is None or py.is_over():
            break
        move = list(py.legal_moves)[i % py.legal_moves.count()]
        py.push(move)
        cy.push(str(move))
    seed = choices[0] if choices else 7
    assert py.random_playouts(3, seed=seed, max_plies=30) == \
        cy.random_playouts(3, seed=seed, max_plies=30)
    assert (py.position(), hash(py)) == (cy.position(), hash(cy))


@NEEDS_CYTHON
@settings(max_examples=15, deadline=None)
@given(st.integers(5, 25), st.integers(5, 25), st.integers(0, 2**64 - 1))
def test_twins_play_the_same_random_game(columns: int, rows: int, seed: int) -> None:
    games = [Phutball.twin(b)(columns=columns, rows=rows) for b in ("python", "cython")]
    outcomes = [g.random_playout(seed=seed, max_plies=60) for g in games]
    assert outcomes[0] == outcomes[1]
    assert [str(m) for m in games[0].move_stack] == [str(m) for m in games[1].move_stack]
    assert games[0].position() == games[1].position() and hash(games[0]) == hash(games[1])


@SETTINGS
@given(positions(), st.sampled_from(["python", "cython"]))
def test_bulk_perft_matches_enumeration(position: str, backend: str) -> None:
    if backend == "cython" and os.environ.get("BRETT_NO_EXTENSIONS"):
        backend = "python"
    game = Phutball.twin(backend).from_position(position)
    assert game.perft(1) == naive_perft(game, 1) == game.legal_moves.count()
    if game.legal_moves.count() <= 120:  # push/pop enumeration is slow on big boards
        assert game.perft(2) == naive_perft(game, 2)
        assert game.perft(2, True) == naive_perft(game, 2, True)


@SETTINGS
@given(positions(), st.sampled_from(["python", "cython"]))
def test_integer_layer_agrees_with_legal_moves(position: str, backend: str) -> None:
    """Placements map to actions one to one, and walking the jump/stop actions in
    every possible way yields exactly the legal ball moves, each once."""
    if backend == "cython" and os.environ.get("BRETT_NO_EXTENSIONS"):
        backend = "python"
    game = Phutball.twin(backend).from_position(position)
    moves = list(game.legal_moves)
    n = game.columns * game.rows
    actions = game.legal_actions()
    assert sorted(game.move_to_action(m) for m in moves if m.is_placement) == \
        [a for a in actions if a < n]
    for m in moves:
        if m.is_placement:
            assert game.action_to_move(game.move_to_action(m)) == m
    found: list[str] = []

    def explore() -> None:
        for a in game.legal_actions():
            if a < n:
                continue
            before = game.position()
            game.apply_action(a)
            if not game.in_jump:
                found.append(str(game.peek()))
            else:
                explore()
            game.undo_action()
            assert game.position() == before

    if not game.is_over() and len(moves) - len(actions) <= 200:  # keep the walk short
        explore()
    else:
        found = [str(m) for m in moves if m.is_jump]
    jumps = sorted(str(m) for m in moves if m.is_jump)
    assert sorted(found) == jumps
    assert game.position() == position


@SETTINGS
@given(positions(), st.lists(st.integers(0, 10**6), max_size=8),
       st.sampled_from(["python", "cython"]))
def test_position_round_trip_mid_move(position: str, choices: list[int], backend: str) -> None:
    if backend == "cython" and os.environ.get("BRETT_NO_EXTENSIONS"):
        backend = "python"
    game = Phutball.twin(backend).from_position(position)
    for i in choices:
        actions = game.legal_actions()
        if not actions:
            break
        game.apply_action(actions[i % len(actions)])
        text = game.position()
        again = type(game).from_position(text)
        assert again.position() == text and again == game and hash(again) == hash(game)
        assert again.in_jump == game.in_jump and again.turn == game.turn
        assert again.legal_actions() == game.legal_actions()
