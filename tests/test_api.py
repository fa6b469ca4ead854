"""The shared API (brett/game.py), checked the same way on every game and both cores."""

from __future__ import annotations

import copy
import itertools
import pickle
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest

import brett
from brett import records
from brett.game import Game
from conftest import NO_EXTENSIONS, advance

# Schuft's plain twin searches every turn of a roll (~26 ms), so its perft stays shallow.
PERFT_DEPTH = {"schuft": 1}


def test_registry() -> None:
    assert list(brett.GAMES) == ["reversi", "focus", "phutball", "schuft"]
    assert len(brett.GAMES) == 4 and "focus" in brett.GAMES and "chess" not in brett.GAMES
    for name, cls in brett.GAMES.items():
        assert issubclass(cls, Game) and cls.game_name == name
        assert cls is getattr(brett, cls.__name__)
    with pytest.raises(KeyError):
        brett.GAMES["chess"]
    with pytest.raises(brett.BrettError, match="unknown game 'chess'"):
        brett.GAMES.lookup("chess")


def test_legal_move_view(make: Callable[[], Any]) -> None:
    game = advance(make(), 3, 1)
    moves = list(game.legal_moves)
    assert game.legal_moves.count() == len(moves) == len(set(moves))
    assert bool(game.legal_moves) == bool(moves)
    assert all(m in game.legal_moves for m in moves)
    assert all(str(m) in game.legal_moves for m in moves)
    assert "no such move" not in game.legal_moves and 17 not in game.legal_moves
    with pytest.raises(TypeError):
        len(game.legal_moves)  # type: ignore[arg-type]
    assert repr(game.legal_moves).startswith("<LegalMoveView (")


def test_count_with_a_limit_says_more_than_the_limit(make: Callable[[], Any]) -> None:
    """count(limit=N): the number of moves if at most N, else N + 1."""
    game = advance(make(), 3, 4)
    n = game.legal_moves.count()
    for limit in sorted({0, 1, max(n - 1, 0), n, n + 1, 2**63 - 1}):
        assert game.legal_moves.count(limit=limit) == min(n, limit + 1), limit
    for bad in (-1, 2**63, 1.5, "3", True):
        with pytest.raises(brett.BrettError, match="limit"):
            game.legal_moves.count(limit=bad)
    while not game.is_over():
        game.random_playout(seed=2)
    assert game.legal_moves.count(limit=0) == game.legal_moves.count() == 0
    assert not game.legal_moves


def test_push_pop_peek_and_move_stack(make: Callable[[], Any]) -> None:
    game = advance(make(), 2, 2)
    before, key, stack = game.position(), hash(game), game.move_stack
    move = next(iter(game.legal_moves))
    played = game.push(str(move))
    assert game.peek() == played and game.move_stack[-1] == played
    assert game.position() != before or game.move_stack != stack
    assert game.pop() == played
    assert (game.position(), hash(game), game.move_stack) == (before, key, stack)
    empty = make()
    for call in (empty.pop, empty.peek, empty.undo_action):
        with pytest.raises(brett.EmptyStackError) as info:
            call()
        assert isinstance(info.value, IndexError) and isinstance(info.value, brett.BrettError)


@pytest.mark.parametrize("bad", [None, 12345, 3.5, "", "   ", "zz99", "!!", b"d3", ["d3"],
                                 "x" * 100_000])
def test_bad_input_is_a_typed_error_and_changes_nothing(make: Callable[[], Any],
                                                        bad: Any) -> None:
    game = advance(make(), 2, 3)
    before, key = game.position(), hash(game)
    for call in (game.push, game.move_to_action, game.parse_move):
        with pytest.raises(brett.BrettError) as info:
            call(bad)
        assert isinstance(info.value, ValueError)
        assert not isinstance(info.value, (TypeError, AttributeError))
    assert bad not in game.legal_moves
    assert (game.position(), hash(game)) == (before, key)


def test_copy_pickle_repr_eq_hash(make: Callable[[], Any]) -> None:
    game = advance(make(), 4, 4)
    twin = game.copy()
    assert twin == game and hash(twin) == hash(game) and twin.move_stack == game.move_stack
    assert copy.deepcopy(game) == game and copy.copy(game) == game
    clone = pickle.loads(pickle.dumps(game))
    assert clone == game and clone.move_stack == game.move_stack
    assert type(clone).backend() == type(game).backend()
    namespace = {type(game).__name__: type(game)}
    assert eval(repr(game), namespace) == game
    if game.legal_moves:
        twin.push(next(iter(twin.legal_moves)))
        assert twin != game and len(twin.move_stack) == len(game.move_stack) + 1
    flat = game.copy(stack=False)
    assert flat == game and flat.move_stack == [] and flat.start_position() == game.position()
    assert isinstance(str(game), str) and str(game)
    assert game != "not a game" and game != brett.GAMES["reversi" if game.game_name != "reversi"
                                                         else "focus"]()


def test_pickle_carries_public_state_only(make: Callable[[], Any]) -> None:
    """A pickle names the game, the core it ran on, the start position and the
    moves: no core internals, so it loads on the other core and later versions."""
    game = advance(make(), 5, 5)
    data = pickle.dumps(game)
    assert b"Core" not in data and b"_core" not in data
    other = "python" if type(game).backend() == "cython" else "cython"
    if NO_EXTENSIONS and other == "cython":
        return
    rebuilt = pickle.loads(data.replace(type(game).backend().encode(), other.encode(), 1))
    assert rebuilt == game and type(rebuilt).backend() == other
    assert [str(m) for m in rebuilt.move_stack] == [str(m) for m in game.move_stack]


@pytest.mark.skipif(NO_EXTENSIONS, reason="needs the compiled core to make the pickle")
def test_pickle_loads_where_the_compiled_core_is_missing(tmp_path: Any) -> None:
    import os
    import subprocess
    import sys

    games = [advance(brett.GAMES[name](), 6, 3) for name in brett.GAMES]
    assert {type(g).backend() for g in games} == {"cython"}
    path = tmp_path / "games.pickle"
    path.write_bytes(pickle.dumps([(g, g.position(), len(g.move_stack)) for g in games]))
    code = ("import pickle, sys; games = pickle.load(open(sys.argv[1], 'rb'))\n"
            "assert all(g.position() == p and len(g.move_stack) == n "
            "and type(g).backend() == 'python' for g, p, n in games), games\n")
    env = {**os.environ, "BRETT_NO_EXTENSIONS": "1"}
    env.pop("BRETT_REQUIRE_EXTENSIONS", None)
    subprocess.run([sys.executable, "-c", code, str(path)], env=env, check=True)


def test_position_round_trip_and_hash(make: Callable[[], Any]) -> None:
    game = advance(make(), 5, 5)
    again = type(game).from_position(game.position())
    assert again == game and again.position() == game.position()
    assert hash(again) == hash(game)


def test_records_round_trip(make: Callable[[], Any]) -> None:
    game = advance(make(), 6, 6)
    replayed = records.load(records.dump(game))
    assert replayed == game
    assert [str(m) for m in replayed.move_stack] == [str(m) for m in game.move_stack]
    assert replayed.start_position() == game.start_position()


def test_perft_divide_and_parallel_perft(make: Callable[[], Any]) -> None:
    game = advance(make(), 1, 7)
    if game.game_name == "schuft" and game.is_chance_node():
        return  # the opening roll-off: perft is not defined there
    assert game.perft(0) == 1
    depth = PERFT_DEPTH.get(game.game_name, 2)
    total = game.perft(depth)
    assert total > 0 and sum(game.divide(depth).values()) == total
    assert list(game.divide_iter(depth)) == list(game.divide(depth).items())
    with ThreadPoolExecutor(2) as pool:
        assert game.perft(depth, executor=pool) == total
    assert game.perft(depth, count_finished=True) >= total


def test_integer_layer(make: Callable[[], Any]) -> None:
    game = advance(make(), 3, 8)
    actions = game.legal_actions()
    assert actions == sorted(actions) and actions
    mask = game.legal_actions_mask()
    assert mask.dtype == np.bool_ and mask.shape == (game.num_distinct_actions(),)
    assert list(np.flatnonzero(mask)) == actions
    before = game.position()
    with pytest.raises(brett.InvalidMoveError):
        game.apply_action(-1)
    with pytest.raises(brett.InvalidMoveError):
        game.apply_action(game.num_distinct_actions())
    assert game.position() == before
    game.apply_action(actions[0])
    game.undo_action()
    assert game.position() == before
    assert len(game.returns()) == game.num_players()


def test_numpy_integers_are_accepted(make: Callable[[], Any]) -> None:
    game = advance(make(), 3, 9)
    action = game.legal_actions()[0]
    twin = game.copy()
    game.apply_action(np.int64(action))
    twin.apply_action(int(action))
    assert game == twin
    assert game.action_to_move(np.int32(game.legal_actions()[0])) == \
        game.action_to_move(game.legal_actions()[0])
    fresh = advance(make(), 3, 9)
    assert fresh.perft(np.int64(1)) == fresh.perft(1)
    stats = fresh.random_playouts(np.int16(3), seed=np.uint64(5), max_plies=np.int64(20))
    assert stats == fresh.random_playouts(3, seed=5, max_plies=20)


def test_observation_tensor(make: Callable[[], Any]) -> None:
    game = advance(make(), 4, 10)
    tensor = game.observation_tensor()
    assert isinstance(tensor, np.ndarray) and tensor.dtype == np.float32
    assert tensor.shape == game.observation_tensor_shape()
    assert tensor.any()
    game.push(next(iter(game.legal_moves)))
    assert game.observation_tensor().shape == game.observation_tensor_shape()


def test_board_access(make: Callable[[], Any]) -> None:
    """piece_map lists the occupied squares only, piece_at agrees with it, and a
    bad square is an error."""
    game = advance(make(), 6, 11)
    pieces = game.piece_map()
    assert pieces and all(value is not None for value in pieces.values())
    for square, value in pieces.items():
        assert game.piece_at(square) == value
    with pytest.raises(brett.BrettError):
        game.piece_at("not a square")
    with pytest.raises(brett.BrettError):
        game.piece_at(None)


def test_twins_agree_on_a_seeded_playout(make: Callable[[], Any]) -> None:
    game = make()
    other_backend = "python" if type(game).backend() == "cython" else "cython"
    if other_backend == "cython" and NO_EXTENSIONS:
        pytest.skip("BRETT_NO_EXTENSIONS=1: no compiled twin in this run")
    other = type(game).twin(other_backend).from_position(game.position())
    outcome = game.random_playout(seed=11, max_plies=60)
    assert other.random_playout(seed=11, max_plies=60) == outcome
    assert [str(m) for m in other.move_stack] == [str(m) for m in game.move_stack]
    assert other.position() == game.position() and hash(other) == hash(game)
    stats = game.random_playouts(20, seed=3, max_plies=80)
    assert stats == other.random_playouts(20, seed=3, max_plies=80)
    assert stats.games == 20 and sum(stats.wins) + stats.draws + stats.unfinished >= 20


def test_playout_is_the_first_of_the_playouts(make: Callable[[], Any]) -> None:
    """random_playout and random_playouts draw the same moves for one seed."""
    game = make()
    stats = game.random_playouts(1, seed=21, max_plies=50)
    start = len(game.move_stack)
    outcome = game.random_playout(seed=21, max_plies=50)
    plies = sum(isinstance(m, type(game).Move) for m in game.move_stack[start:])
    assert stats.plies == plies
    assert (stats.unfinished == 1) == (outcome is None)
    if outcome is not None:
        assert stats.draws == int(outcome.is_draw)
        assert list(stats.wins) == [int(p in outcome.winners) for p in range(game.num_players())]


def test_playouts_progress_gives_the_same_games(make: Callable[[], Any]) -> None:
    game = make()
    seen: list[int] = []
    stats = game.random_playouts(16, seed=8, max_plies=30, progress=seen.append)
    assert stats == game.random_playouts(16, seed=8, max_plies=30)
    assert seen and seen[-1] == 16 and seen == sorted(seen)


def test_backend_selection() -> None:
    import os

    backends = set(brett.core_backends().values()) or {"python"}
    if os.environ.get("BRETT_NO_EXTENSIONS"):
        assert backends == {"python"}
    elif os.environ.get("BRETT_REQUIRE_EXTENSIONS"):
        assert brett.core_backend() == "cython"
    with pytest.raises(brett.BrettError):
        brett.Reversi.twin("fortran")
    for cls in brett.GAMES.values():
        python = cls.twin("python")
        assert python.backend() == "python" and issubclass(python, cls)
        assert python.twin("python") is python
        assert isinstance(python(), cls)
        if not NO_EXTENSIONS:
            assert python.twin("cython").backend() == "cython"


def test_outcome_and_returns_at_the_end(make: Callable[[], Any]) -> None:
    game = make()
    outcome = game.random_playout(seed=2, max_plies=3000)
    if outcome is None:
        return
    assert game.is_over() and game.current_player() == brett.TERMINAL
    assert not game.legal_moves and game.legal_actions() == []
    returns = game.returns()
    assert len(returns) == game.num_players()
    assert sum(r > 0 for r in returns) == len(outcome.winners)
    with pytest.raises(brett.IllegalMoveError, match="over"):
        game.apply_action(0)


def test_player_names(make: Callable[[], Any]) -> None:
    game = make()
    names = {game.player_name(p) for p in range(game.num_players())}
    assert len(names) == game.num_players() and all(isinstance(n, str) for n in names)


def test_import_is_lazy() -> None:
    import subprocess
    import sys

    code = ("import sys, brett; bad = [m for m in ('concurrent.futures', 'argparse', 'json', "
            "'numpy', 'brett.reversi', 'brett._core._base') if m in sys.modules]; print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_moves_of_one_view_stream(make: Callable[[], Any]) -> None:
    """Iterating the view works on a private copy: moves pushed meanwhile do not
    disturb it."""
    game = advance(make(), 3, 12)
    expected = list(game.legal_moves)
    moves = iter(game.legal_moves)
    first = next(moves)
    game.push(first)
    assert [first, *moves] == expected
    game.pop()
    assert list(itertools.islice(game.legal_moves, 3)) == expected[:3]
