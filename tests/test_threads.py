"""One game object raced from two threads.

docs/architecture.md: an object shared between threads either works or refuses
clearly.  Two threads call random public methods of ONE game, mutating and
reading, for a bounded number of calls and time; nothing but a BrettError may
escape, and afterwards the game is consistent: its moves and pending actions
replay from its start position to the same position, and its position string
loads as an equal game.
"""

from __future__ import annotations

import contextlib
import itertools
import pickle
import random
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

import brett
from conftest import SETUPS, advance, in_threads, setup_factory

CALLS_PER_THREAD = 300
SECONDS = 0.8


def some_move(game: Any, rng: random.Random) -> Any:
    """One of the first legal moves, or a chance outcome (None when there is none)."""
    if game.is_chance_node():
        outcomes = game.chance_outcomes()
        return game.action_to_move(rng.choice(outcomes)[0]) if outcomes else None
    moves = list(itertools.islice(game.legal_moves, 30))
    return rng.choice(moves) if moves else None


def mutations(game: Any, rng: random.Random) -> list[Callable[[], Any]]:
    def push() -> Any:
        move = some_move(game, rng)
        return game.push(move if rng.random() < 0.5 or move is None else str(move))

    def apply() -> Any:
        actions = game.legal_actions()
        return game.apply_action(rng.choice(actions)) if actions else None

    return [push, push, apply, apply, apply, game.pop, game.undo_action, game.undo_action,
            lambda: game.random_playout(seed=rng.randrange(99), max_plies=3)]


def readings(game: Any, rng: random.Random) -> list[Callable[[], Any]]:
    def effects() -> Any:
        move = some_move(game, rng)
        return None if move is None else game.effects(move)

    def action_round_trip() -> Any:
        actions = game.legal_actions()
        if not actions:
            return None
        move = game.action_to_move(rng.choice(actions))
        return game.move_to_action(move)

    def clicks() -> Any:
        first = game.legal_moves.clicks()
        return game.legal_moves.clicks(first.next[0]) if first.next else first

    return [
        game.position, game.start_position, lambda: str(game), lambda: repr(game),
        lambda: hash(game), lambda: game == game.copy(), lambda: game.copy(stack=False),
        lambda: pickle.loads(pickle.dumps(game)), game.piece_map,
        lambda: list(itertools.islice(game.legal_moves, 40)), game.legal_moves.count,
        lambda: bool(game.legal_moves), lambda: some_move(game, rng) in game.legal_moves,
        game.legal_actions, game.legal_actions_mask, game.observation_tensor,
        action_round_trip, game.current_player, game.is_over, game.outcome, game.returns,
        game.is_chance_node, game.chance_outcomes, lambda: game.move_stack,
        lambda: game.pending_actions, lambda: game.pending_move, effects, clicks,
        lambda: game.peek() if game.move_stack else None,
        lambda: game.perft(1), lambda: game.random_playouts(2, seed=1, max_plies=5),
    ]


def race(game: Any, seed: int) -> list[BaseException]:
    """Two threads, each calling random mutations and readings of ``game``."""
    deadline = time.monotonic() + SECONDS
    start = threading.Barrier(2)

    def work(index: int) -> None:
        rng = random.Random(seed * 2 + index)
        calls = mutations(game, rng) + readings(game, rng)
        start.wait()
        for _ in range(CALLS_PER_THREAD):
            if time.monotonic() > deadline:
                return
            with contextlib.suppress(brett.BrettError):  # anything else escapes
                rng.choice(calls)()

    return in_threads(work, 2)


def check_consistent(game: Any) -> None:
    """The moves and pending actions replay from the start; the position loads back."""
    replay = type(game).from_position(game.start_position())
    for move in game.move_stack:
        replay.push(move)
    for action in game.pending_actions:
        replay.apply_action(action)
    assert replay.position() == game.position()
    assert hash(replay) == hash(game)
    again = type(game).from_position(game.position())
    assert again == game and again.legal_actions() == game.legal_actions()
    # The first moves only: a raced Phutball position can hold billions of jump paths.
    first = [list(map(str, itertools.islice(g.legal_moves, 1000))) for g in (again, game)]
    assert first[0] == first[1]


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_two_threads_racing_one_game_raise_only_brett_errors(setup: str, backend: str) -> None:
    """Once seen here: AssertionError and TypeError (a Phutball position
    read between a jump action and the core), IndexError and KeyError (Schuft),
    a pending move left on a core another thread had pushed to."""
    seed = sorted(SETUPS).index(setup)
    game = advance(setup_factory(setup, backend)(), 4, seed, decision=False)
    errors = race(game, seed)
    assert not errors, [f"{type(e).__name__}: {e}" for e in errors]
    check_consistent(game)
