"""The shared API (brett/game.py), checked the same way on every game and both cores."""

from __future__ import annotations

import copy
import pickle
import random
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

import brett
from brett import records

GAMES = {
    "reversi": lambda cls: cls(),
    "reversi-holes": lambda cls: cls(size=6, holes=["a1", "f6"]),
    "focus": lambda cls: cls(),
    "focus-3p": lambda cls: cls(players=3),
    "phutball": lambda cls: cls(columns=9, rows=9),
    "schuft": lambda cls: cls(players=3, seed=5),
}


def _cls(name: str) -> Any:
    return getattr(brett, name.split("-")[0].capitalize())


@pytest.fixture(params=sorted(GAMES))
def make(request: pytest.FixtureRequest, backend: str) -> Any:
    cls = _cls(request.param).twin(backend)
    return lambda: GAMES[request.param](cls)


# Schuft's plain twin searches every turn of a roll (~26 ms), so its perft stays shallow.
PERFT_DEPTH = {"schuft": 1}


def advance(game: Any, plies: int, seed: int) -> Any:
    """Play ``plies`` random decisions and chance events, in the shared API only,
    and stop at a decision node (rolling once more if needed)."""
    rng = random.Random(seed)
    for _ in range(plies):
        if game.is_over():
            break
        if game.is_chance_node():
            game.apply_action(rng.choice(game.chance_outcomes())[0])
        else:
            game.push(rng.choice(list(game.legal_moves)))
    if game.is_chance_node():
        game.apply_action(rng.choice(game.chance_outcomes())[0])
    return game


def test_legal_move_view(make: Any) -> None:
    game = advance(make(), 3, 1)
    moves = list(game.legal_moves)
    assert game.legal_moves.count() == len(moves) == len(set(moves))
    assert bool(game.legal_moves) == bool(moves)
    assert all(m in game.legal_moves for m in moves)
    assert all(str(m) in game.legal_moves for m in moves)
    assert "no such move" not in game.legal_moves
    with pytest.raises(TypeError):
        len(game.legal_moves)  # type: ignore[arg-type]


def test_push_pop_peek_and_move_stack(make: Any) -> None:
    game = advance(make(), 2, 2)
    before, key, stack = game.position(), hash(game), game.move_stack
    move = next(iter(game.legal_moves))
    played = game.push(str(move))
    assert game.peek() == played and game.move_stack[-1] == played
    assert game.position() != before or game.move_stack != stack
    assert game.pop() == played
    assert (game.position(), hash(game), game.move_stack) == (before, key, stack)
    empty = make()
    with pytest.raises(IndexError):
        empty.pop()
    with pytest.raises(IndexError):
        empty.peek()


@pytest.mark.parametrize("bad", [None, 12345, 3.5, "", "   ", "zz99", "!!", b"d3"])
def test_bad_input_is_a_typed_error_and_changes_nothing(make: Any, bad: Any) -> None:
    game = advance(make(), 2, 3)
    before, key = game.position(), hash(game)
    with pytest.raises(brett.BrettError) as info:
        game.push(bad)
    assert isinstance(info.value, ValueError)
    assert (game.position(), hash(game)) == (before, key)


def test_copy_pickle_repr_eq_hash(make: Any) -> None:
    game = advance(make(), 4, 4)
    twin = game.copy()
    assert twin == game and hash(twin) == hash(game) and twin.move_stack == game.move_stack
    assert copy.deepcopy(game) == game
    clone = pickle.loads(pickle.dumps(game))
    assert clone == game and clone.move_stack == game.move_stack
    assert type(clone).backend() == type(game).backend()
    namespace = {type(game).__name__: type(game)}
    assert eval(repr(game), namespace) == game
    if game.legal_moves:
        twin.push(next(iter(twin.legal_moves)))
        assert twin != game
    flat = game.copy(stack=False)
    assert flat == game and flat.move_stack == []
    assert isinstance(str(game), str) and str(game)


def test_position_round_trip_and_hash(make: Any) -> None:
    game = advance(make(), 5, 5)
    again = type(game).from_position(game.position())
    assert again == game and again.position() == game.position()
    assert hash(again) == hash(game)


def test_records_round_trip(make: Any) -> None:
    game = advance(make(), 6, 6)
    replayed = records.load(records.dump(game))
    assert replayed == game
    assert [str(m) for m in replayed.move_stack] == [str(m) for m in game.move_stack]
    with pytest.raises(brett.InvalidRecordError):
        records.load('{"format": "brett-record", "version": 1, "game": "chess"}')
    with pytest.raises(brett.InvalidRecordError):
        records.load("not json")


def test_perft_divide_and_parallel_perft(make: Any) -> None:
    game = advance(make(), 1, 7)
    assert game.perft(0) == 1
    depth = PERFT_DEPTH.get(game.game_name, 2)
    total = game.perft(depth)
    assert total > 0 and sum(game.divide(depth).values()) == total
    with ThreadPoolExecutor(2) as pool:
        assert game.perft(depth, executor=pool) == total
    with pytest.raises(ValueError):
        game.perft(-1)


def test_integer_layer(make: Any) -> None:
    game = advance(make(), 3, 8)
    actions = game.legal_actions()
    assert actions == sorted(actions) and actions
    mask = game.legal_actions_mask()
    assert len(mask) == game.num_distinct_actions()
    assert [i for i, bit in enumerate(mask) if bit] == actions
    before = game.position()
    with pytest.raises(brett.BrettError):
        game.apply_action(-1)
    with pytest.raises(brett.BrettError):
        game.apply_action(game.num_distinct_actions())
    assert game.position() == before
    game.apply_action(actions[0])
    game.undo_action()
    assert game.position() == before
    assert len(game.returns()) == game.num_players()


def test_twins_agree_on_a_seeded_playout(make: Any) -> None:
    game = make()
    other_backend = "python" if type(game).backend() == "cython" else "cython"
    if other_backend == "cython" and brett.game._LOADED[game.game_name].cython is None:
        pytest.skip("BRETT_NO_EXTENSIONS=1: no compiled twin in this run")
    other = type(game).twin(other_backend).from_position(game.position())
    outcome = game.random_playout(seed=11, max_plies=60)
    assert other.random_playout(seed=11, max_plies=60) == outcome
    assert [str(m) for m in other.move_stack] == [str(m) for m in game.move_stack]
    assert other.position() == game.position() and hash(other) == hash(game)
    stats = game.random_playouts(20, seed=3, max_plies=80)
    assert stats == other.random_playouts(20, seed=3, max_plies=80)
    assert stats.games == 20 and sum(stats.wins) + stats.draws + stats.unfinished == 20


def test_backend_selection() -> None:
    import os

    backends = set(brett.core_backends().values()) or {"python"}
    if os.environ.get("BRETT_NO_EXTENSIONS"):
        assert backends == {"python"}
    elif os.environ.get("BRETT_REQUIRE_EXTENSIONS"):
        assert brett.core_backend() == "cython"
    with pytest.raises(brett.BrettError):
        brett.Reversi.twin("fortran")
