"""Focus benchmarks (pytest-benchmark; run explicitly, not part of the test run):

    PYTHONPATH=src python -m pytest benchmarks/bench_focus.py

perft from the 2-player start (leaf nodes/s, and make/unmake per second: the
moves actually made, since the last ply is bulk-counted), random playouts with
a ply cap (plies/s) for 2, 3 and 4 players, and the Python-level push+pop round
trip, on both cores.  A summary with the ratios is printed at the end.  Figures,
not timed asserts.
"""

from __future__ import annotations

from typing import Any

import pytest

from _figures import Figures, needs_cython, per_second
from brett.focus import Focus

RESULTS = Figures("Focus", [
    ('perft d3 cython/python (leaf/s)', 'perft 2p d3 cython leaf/s', 'perft 2p d3 python leaf/s'),
    ('perft d3 cython/python (make/s)', 'perft 2p d3 cython make/s', 'perft 2p d3 python make/s'),
    ('playouts 2p cython/python',
     'playouts 2p cap 500 cython plies/s',
     'playouts 2p cap 500 python plies/s'),
    ('playouts 3p cython/python',
     'playouts 3p cap 500 cython plies/s',
     'playouts 3p cap 500 python plies/s'),
    ('playouts 4p cython/python',
     'playouts 4p cap 500 cython plies/s',
     'playouts 4p cap 500 python plies/s'),
    ('push+pop python/cython (time)', 'push+pop python us', 'push+pop cython us'),
])
# perft nodes from the 2-player start (exact rule), to count the moves made
PERFT_2P = {1: 68, 2: 4460, 3: 299912, 4: 19521582, 5: 1298133752}
PERFT = [("python", 3, 1), ("cython", 3, 20), ("cython", 4, 10), ("cython", 5, 3)]



@pytest.mark.parametrize(("backend", "depth", "rounds"), [
    pytest.param(b, d, r, marks=needs_cython if b == "cython" else ()) for b, d, r in PERFT])
def test_perft_2p_start(benchmark: Any, backend: str, depth: int, rounds: int) -> None:
    game = Focus.twin(backend)()
    nodes = benchmark.pedantic(game.perft, args=(depth,), rounds=rounds, iterations=1)
    made = sum(PERFT_2P[d] for d in range(1, depth))  # make/unmake pairs
    rate = per_second(benchmark, nodes)
    benchmark.extra_info.update(nodes=nodes, leaf_nodes_per_s=rate,
                                makes_per_s=per_second(benchmark, made))
    RESULTS[f"perft 2p d{depth} {backend} leaf/s"] = rate
    RESULTS[f"perft 2p d{depth} {backend} make/s"] = per_second(benchmark, made)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("backend", ["python", pytest.param("cython", marks=needs_cython)])
def test_random_playouts(benchmark: Any, backend: str, players: int) -> None:
    game = Focus.twin(backend)(players=players)
    games, cap = (2000, 500) if backend == "cython" else (4, 500)
    stats = benchmark.pedantic(game.random_playouts, args=(games,),
                               kwargs={"seed": 1, "max_plies": cap},
                               rounds=3 if backend == "cython" else 1, iterations=1)
    rate = per_second(benchmark, stats.plies)
    benchmark.extra_info.update(plies_per_s=rate, plies=stats.plies,
                                games_per_s=per_second(benchmark, games))
    RESULTS[f"playouts {players}p cap {cap} {backend} plies/s"] = rate


@pytest.mark.parametrize("backend", ["python", pytest.param("cython", marks=needs_cython)])
def test_push_pop(benchmark: Any, backend: str) -> None:
    game = Focus.twin(backend)()
    moves = list(game.legal_moves)

    def round_trip() -> None:
        for move in moves:
            game.push(move)
            game.pop()

    benchmark.pedantic(round_trip, rounds=20, iterations=5)
    per_pair = benchmark.stats.stats.min / len(moves)
    benchmark.extra_info.update(seconds_per_push_pop=per_pair)
    RESULTS[f"push+pop {backend} us"] = per_pair * 1e6
