"""Phutball benchmarks (pytest-benchmark; run explicitly, not part of the test run):

    PYTHONPATH=src python -m pytest benchmarks/bench_phutball.py

perft from the 15x19 start (leaf nodes/s, and the moves actually made, since
the last ply is bulk-counted: placements arithmetically, only jump paths walked),
random playouts (games/s and plies/s) and the Python-level push+pop round trip,
on both cores.  A summary with the ratios is printed at the end.  Figures, not
timed asserts.
"""

from __future__ import annotations

from typing import Any

import pytest

from _figures import Figures, needs_cython, per_second
from brett.phutball import Phutball

RESULTS = Figures("Phutball", [
    ('perft 15x19 d2 cython/python',
     'perft 15x19 d2 cython leaf/s',
     'perft 15x19 d2 python leaf/s'),
    ('perft 15x19 d3 cython/python',
     'perft 15x19 d3 cython leaf/s',
     'perft 15x19 d3 python leaf/s'),
    ('playouts cython/python (plies/s)',
     'playouts 15x19 cython plies/s',
     'playouts 15x19 python plies/s'),
    ('push+pop (jump) python/cython (time)',
     'push+pop (jump) python us',
     'push+pop (jump) cython us'),
])
# reference perft from the 15x19 start (rules P8), to count the moves made
PERFT_15x19 = {1: 284, 2: 80380, 3: 22671816, 4: 6372806824}
PERFT = [("python", 2, 5), ("python", 3, 1), ("cython", 2, 20), ("cython", 3, 10),
         ("cython", 4, 3)]



@pytest.mark.parametrize(("backend", "depth", "rounds"), [
    pytest.param(b, d, r, marks=needs_cython if b == "cython" else ()) for b, d, r in PERFT])
def test_perft_15x19(benchmark: Any, backend: str, depth: int, rounds: int) -> None:
    game = Phutball.twin(backend)()
    nodes = benchmark.pedantic(game.perft, args=(depth,), rounds=rounds, iterations=1)
    assert nodes == PERFT_15x19[depth]
    made = sum(PERFT_15x19[d] for d in range(1, depth))  # make/unmake pairs
    rate = per_second(benchmark, nodes)
    benchmark.extra_info.update(nodes=nodes, seconds=benchmark.stats.stats.min,
                                leaf_nodes_per_s=rate, makes_per_s=per_second(benchmark, made))
    RESULTS[f"perft 15x19 d{depth} {backend} leaf/s"] = rate
    RESULTS[f"perft 15x19 d{depth} {backend} s"] = benchmark.stats.stats.min


@pytest.mark.parametrize("backend", ["python", pytest.param("cython", marks=needs_cython)])
def test_random_playouts_15x19(benchmark: Any, backend: str) -> None:
    game = Phutball.twin(backend)()
    games = 3000 if backend == "cython" else 30
    stats = benchmark.pedantic(game.random_playouts, args=(games,), kwargs={"seed": 1},
                               rounds=3, iterations=1)
    benchmark.extra_info.update(games_per_s=per_second(benchmark, games),
                                plies_per_s=per_second(benchmark, stats.plies), plies=stats.plies)
    RESULTS[f"playouts 15x19 {backend} games/s"] = per_second(benchmark, games)
    RESULTS[f"playouts 15x19 {backend} plies/s"] = per_second(benchmark, stats.plies)


@pytest.mark.parametrize("backend", ["python", pytest.param("cython", marks=needs_cython)])
def test_push_pop_round_trip(benchmark: Any, backend: str) -> None:
    game = Phutball.twin(backend)()
    game.push("h11")
    move = game.parse_move("h10-h12")

    def round_trip() -> None:
        for _ in range(1000):
            game.push(move)
            game.pop()

    benchmark.pedantic(round_trip, rounds=5, iterations=1)
    per = benchmark.stats.stats.min / 1000
    benchmark.extra_info.update(seconds_per_push_pop=per)
    RESULTS[f"push+pop (jump) {backend} us"] = per * 1e6
