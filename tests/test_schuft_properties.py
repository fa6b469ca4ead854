"""Schuft property tests (hypothesis): undo, position strings, merging of
permuted turns, the integer layer and twin agreement on random games."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brett.errors import BrettError
from brett.schuft import Schuft, SchuftMove

FIXTURE = [HealthCheck.function_scoped_fixture]  # `backend` is the same for every example

options = st.fixed_dictionaries({
    "players": st.sampled_from([2, 3, 4]),
    "first_player": st.sampled_from([0, 1, "roll"]),
    "max_plies": st.sampled_from([None, 5, 40]),
})


def step(game: Any, rng: random.Random) -> None:
    """One random chance event or turn."""
    if game.is_chance_node():
        game.apply_action(rng.randrange(216))
    else:
        game.push(rng.choice(list(game.legal_moves)))


@settings(max_examples=15, deadline=None, suppress_health_check=FIXTURE)
@given(opts=options, seed=st.integers(0, 2**32), plies=st.integers(1, 30))
def test_push_pop_restores_state_and_hash(backend: str, opts: dict[str, Any], seed: int,
                                          plies: int) -> None:
    game = Schuft.twin(backend)(**opts)
    rng = random.Random(seed)
    seen = []
    for _ in range(plies):
        if game.is_over():
            break
        seen.append((game.position(), hash(game)))
        step(game, rng)
        again = type(game).from_position(game.position())
        assert again.position() == game.position() and hash(again) == hash(game)
        assert again == game
    while seen:
        game.pop()
        assert (game.position(), hash(game)) == seen.pop()


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
            for text in order:
                try:
                    action = game.move_to_action(SchuftMove(move.direction, (text,)))
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


@settings(max_examples=8, deadline=None, suppress_health_check=FIXTURE)
@given(opts=options, seed=st.integers(0, 2**32))
def test_twins_agree_on_random_games(opts: dict[str, Any], seed: int) -> None:
    if Schuft._cores.cython is None:
        pytest.skip("BRETT_NO_EXTENSIONS=1: no compiled twin")
    a = Schuft.twin("python")(**opts)
    b = Schuft.twin("cython")(**opts)
    rng = random.Random(seed)
    for _ in range(40):
        assert a.position() == b.position() and hash(a) == hash(b)
        assert a.legal_actions() == b.legal_actions()
        if a.is_over():
            assert a.outcome() == b.outcome()
            break
        if a.is_chance_node():
            r = rng.randrange(216)
            a.apply_action(r)
            b.apply_action(r)
            continue
        assert [str(m) for m in a.legal_moves] == [str(m) for m in b.legal_moves]
        action = rng.choice(a.legal_actions())
        a.apply_action(action)
        b.apply_action(action)
    assert a.move_stack == b.move_stack
    assert a.random_playouts(2, seed=seed, max_plies=8) == \
        b.random_playouts(2, seed=seed, max_plies=8)


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
