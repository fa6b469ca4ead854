"""Hypothesis properties every game keeps, on both cores: make/unmake restores
the exact state and hash in both API layers, failed calls change nothing,
position strings, records, pickles and copies round-trip, and the twins agree
move for move."""

from __future__ import annotations

import pickle
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import brett
from brett import records
from conftest import needs_cython, random_move
from strategies import GAMES, JUNK, games, snapshot, walk

# Schuft's plain twin lists every turn of a roll by search (~26 ms): fewer examples.
EXAMPLES = {"schuft": 12}


def settings_for(name: str, scale: float = 1.0) -> Any:
    return settings(max_examples=max(5, int(scale * EXAMPLES.get(name, 40))), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@pytest.mark.parametrize("name", GAMES)
def test_push_pop_restores_state_and_hash(name: str, backend: str) -> None:
    @settings_for(name)
    @given(game=games(name, backend, actions=0.0), seed=st.integers(0, 2**32),
           plies=st.integers(1, 12))
    def run(game: Any, seed: int, plies: int) -> None:
        rng = random.Random(seed)
        seen = [snapshot(game)]
        for _ in range(plies):
            if game.is_over():
                break
            game.push(random_move(game, rng))
            seen.append(snapshot(game))
        while len(seen) > 1:
            seen.pop()
            game.pop()
            assert snapshot(game) == seen[-1]
    run()


@pytest.mark.parametrize("name", GAMES)
def test_apply_undo_restores_state_and_hash(name: str, backend: str) -> None:
    @settings_for(name)
    @given(game=games(name, backend), seed=st.integers(0, 2**32), steps=st.integers(1, 16))
    def run(game: Any, seed: int, steps: int) -> None:
        rng = random.Random(seed)
        seen = [snapshot(game)]
        for _ in range(steps):
            actions = game.legal_actions()
            if not actions:
                break
            mask = game.legal_actions_mask()
            assert sorted(actions) == actions and [i for i in actions if mask[i]] == actions
            assert mask.sum() == len(actions)
            game.apply_action(rng.choice(actions))
            seen.append(snapshot(game))
        while len(seen) > 1:
            seen.pop()
            game.undo_action()
            assert snapshot(game) == seen[-1]
    run()


def _attempt(game: Any, call: str, junk: Any) -> None:
    """One call with junk input: it succeeds (and is taken back) or raises a
    BrettError; nothing else escapes."""
    cls = type(game)
    try:
        if call == "push":
            game.push(junk)
            game.pop()
        elif call == "apply_action":
            game.apply_action(junk)
            game.undo_action()
        elif call == "from_position":
            cls.from_position(junk)
        elif call == "perft":
            game.perft(junk) if not isinstance(junk, int) or junk < 3 else game.perft(-junk)
        elif call == "random_playouts":
            game.random_playouts(junk if not isinstance(junk, int) or junk < 5 else -junk,
                                 seed=junk if isinstance(junk, int) else None, max_plies=5)
        elif call == "constructor":
            cls(junk)
        else:
            getattr(game, call)(junk)
    except brett.BrettError:
        pass


CALLS = ["push", "apply_action", "move_to_action", "action_to_move", "from_position",
         "piece_at", "perft", "random_playouts", "constructor", "divide"]


@pytest.mark.parametrize("name", GAMES)
def test_failed_calls_change_nothing(name: str, backend: str) -> None:
    @settings_for(name, 2.0)
    @given(game=games(name, backend, max_steps=10), call=st.sampled_from(CALLS),
           junk=JUNK)
    def run(game: Any, call: str, junk: Any) -> None:
        before = snapshot(game)
        if call == "divide" and isinstance(junk, int) and 1 <= junk <= 2 and game.pending_actions:
            return
        if call in ("perft", "divide") and isinstance(junk, int) and junk > 2:
            junk = -junk
        _attempt(game, call, junk)
        assert snapshot(game) == before
    run()


@pytest.mark.parametrize("name", GAMES)
def test_round_trips(name: str, backend: str) -> None:
    """Position strings, records, pickles and copies reproduce the game, a half-made
    move included."""
    @settings_for(name)
    @given(game=games(name, backend))
    def run(game: Any) -> None:
        cls = type(game)
        state = snapshot(game)
        again = cls.from_position(game.position())
        assert again.position() == game.position() and again == game
        assert hash(again) == hash(game) and again.pending_actions == game.pending_actions
        replayed = records.load(records.dump(game))
        assert snapshot(replayed) == state
        assert snapshot(pickle.loads(pickle.dumps(game))) == state
        copied = game.copy()
        assert snapshot(copied) == state
        flat = game.copy(stack=False)
        assert flat == game and flat.move_stack == [] and flat.legal_actions() == \
            game.legal_actions()
        walk(copied, random.Random(1), 3, 0.5)  # a copy is independent
        assert snapshot(game) == state
    run()


@needs_cython
@pytest.mark.parametrize("name", GAMES)
def test_twins_agree_move_for_move(name: str) -> None:
    @settings_for(name)
    @given(python=games(name, "python", max_steps=0), seed=st.integers(0, 2**32),
           steps=st.integers(1, 40))
    def run(python: Any, seed: int, steps: int) -> None:
        compiled = type(python).twin("cython").from_position(python.position())
        rng = random.Random(seed)
        assert snapshot(compiled) == snapshot(python)
        for _ in range(steps):
            if python.is_over():
                break
            if python.pending_actions or rng.random() < 0.3:
                action = rng.choice(python.legal_actions())
                python.apply_action(action)
                compiled.apply_action(action)
            else:
                move = random_move(python, rng)
                python.push(move)
                compiled.push(str(move))
            assert snapshot(compiled) == snapshot(python)
        if not python.pending_actions:
            assert compiled.random_playouts(3, seed=seed, max_plies=20) == \
                python.random_playouts(3, seed=seed, max_plies=20)
    run()
