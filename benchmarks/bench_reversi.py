"""Reversi benchmarks (pytest-benchmark; run explicitly, not part of the test run):

    PYTHONPATH=src python -m pytest benchmarks/bench_reversi.py

perft leaf nodes/s (8x8 and 10x10), random playouts/s and the Python-level
push+pop round trip on both cores, and, when ``open_spiel`` is installed,
OpenSpiel's othello driven through its Python API with the same bulk counting.
A summary with the ratios is printed at the end.  Figures, not timed asserts.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from _figures import BACKENDS, Figures, needs_cython, per_second
from brett.reversi import Reversi

RESULTS = Figures("Reversi", [
    ('perft 8x8 cython d11 / python d7', 'perft 8x8 d11 cython', 'perft 8x8 d7 python'),
    ('perft 10x10 cython d9 / python d6', 'perft 10x10 d9 cython', 'perft 10x10 d6 python'),
    ('perft 8x8 cython d11 / openspiel d8', 'perft 8x8 d11 cython', 'perft 8x8 d8 openspiel'),
    ('playouts cython / python', 'playouts 8x8 cython', 'playouts 8x8 python'),
    ('playouts cython / openspiel', 'playouts 8x8 cython', 'playouts 8x8 openspiel'),
    ('push+pop python / cython (time)',
     'push+pop (Move) python [ns]',
     'push+pop (Move) cython [ns]'),
])
PERFT = {  # (options, depth, rounds) per core: the twin runs smaller trees
    ("cython", "8x8", 9): ({}, 5), ("cython", "8x8", 10): ({}, 3),
    ("cython", "8x8", 11): ({}, 2), ("python", "8x8", 7): ({}, 1),
    ("cython", "10x10", 9): ({"size": 10}, 2), ("python", "10x10", 6): ({"size": 10}, 1),
    ("cython", "octagon", 9): ({"board": "octagon"}, 2),
}



@pytest.mark.parametrize(("backend", "board", "depth"), [
    pytest.param(b, board, d, marks=needs_cython if b == "cython" else ())
    for (b, board, d) in PERFT])
def test_perft(benchmark: Any, backend: str, board: str, depth: int) -> None:
    options, rounds = PERFT[(backend, board, depth)]
    game = Reversi.twin(backend)(**options)
    nodes = benchmark.pedantic(game.perft, args=(depth,), rounds=rounds, iterations=1)
    rate = per_second(benchmark, nodes)
    benchmark.extra_info.update(nodes=nodes, leaf_nodes_per_s=rate)
    RESULTS[f"perft {board} d{depth} {backend}"] = rate


@pytest.mark.parametrize("backend", BACKENDS)
def test_random_playouts(benchmark: Any, backend: str) -> None:
    game = Reversi.twin(backend)()
    games = 100_000 if backend == "cython" else 200
    stats = benchmark.pedantic(game.random_playouts, args=(games,), kwargs={"seed": 1},
                               rounds=3 if backend == "cython" else 1, iterations=1)
    rate = per_second(benchmark, games)
    benchmark.extra_info.update(games_per_s=rate, plies=stats.plies)
    RESULTS[f"playouts 8x8 {backend}"] = rate


@pytest.mark.parametrize("backend", BACKENDS)
def test_push_pop_round_trip(benchmark: Any, backend: str) -> None:
    game = Reversi.twin(backend)()
    move = game.parse_move("d3")
    push, pop = game.push, game.pop

    def round_trip() -> None:
        push(move)
        pop()
    benchmark(round_trip)
    RESULTS[f"push+pop (Move) {backend} [ns]"] = benchmark.stats.stats.median * 1e9


@pytest.mark.parametrize("backend", BACKENDS)
def test_push_pop_notation_round_trip(benchmark: Any, backend: str) -> None:
    game = Reversi.twin(backend)()
    push, pop = game.push, game.pop

    def round_trip() -> None:
        push("d3")
        pop()
    benchmark(round_trip)
    RESULTS[f"push+pop ('d3') {backend} [ns]"] = benchmark.stats.stats.median * 1e9


@pytest.mark.parametrize("backend", BACKENDS)
def test_apply_undo_action_round_trip(benchmark: Any, backend: str) -> None:
    game = Reversi.twin(backend)()
    apply, undo = game.apply_action, game.undo_action

    def round_trip() -> None:
        apply(19)
        undo()
    benchmark(round_trip)
    RESULTS[f"apply+undo action {backend} [ns]"] = benchmark.stats.stats.median * 1e9


# ------------------------------------------------------------ OpenSpiel, if present
def _spiel_perft(state: Any, depth: int) -> int:
    """Bulk-counting perft through pyspiel (OpenSpiel counts finished games, R8)."""
    if state.is_terminal():
        return 1
    actions = state.legal_actions()
    if depth == 1:
        return len(actions)
    return sum(_spiel_perft(state.child(a), depth - 1) for a in actions)


def test_openspiel_othello_perft(benchmark: Any) -> None:
    pyspiel = pytest.importorskip("pyspiel")   # optional comparison, not a dependency
    state = pyspiel.load_game("othello").new_initial_state()
    nodes = benchmark.pedantic(_spiel_perft, args=(state, 8), rounds=1, iterations=1)
    assert nodes == Reversi().perft(8, count_finished=True)
    RESULTS["perft 8x8 d8 openspiel"] = per_second(benchmark, nodes)


def test_openspiel_othello_playouts(benchmark: Any) -> None:
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game("othello")
    rng = random.Random(1)

    def playouts(n: int) -> int:
        for _ in range(n):
            state = game.new_initial_state()
            while not state.is_terminal():
                state.apply_action(rng.choice(state.legal_actions()))
        return n
    games = benchmark.pedantic(playouts, args=(300,), rounds=1, iterations=1)
    RESULTS["playouts 8x8 openspiel"] = per_second(benchmark, games)
