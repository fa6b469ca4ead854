"""Parallel perft over local processes, against the same perft run serially:

    python -m pytest benchmarks/bench_parallel.py

Reversi 8x8 perft(12) and Focus 2p perft(5), wall time, in this process
(``perft(depth)``) and over a ``ProcessPoolExecutor`` with one worker per core
(``perft(depth, executor=pool)``), alternating, at least seven runs each and
at least 10 s of serial perft, the median of each.  Medians, not the best runs:
on a shared VM a core can run at half speed for seconds at a time (other guests'
work, as far as we can tell), and the best of many serial runs then catches a
fast moment that the parallel runs, needing both cores fast at once, rarely do.
The pool is warmed first (its workers started and their cores imported), as a
long-lived pool in a user's program is.  On a busy machine the speed-up says as much about
the scheduler as about brett (see docs/reversi.md, "Deep perft, measured").
"""

from __future__ import annotations

import os
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import pytest

from _figures import Figures, needs_cython
from brett import GAMES

WORKERS = os.cpu_count() or 1
RESULTS = Figures(f"Parallel perft ({WORKERS} workers)", [])
CASES = [("reversi 8x8 perft(12)", "reversi", 12), ("focus 2p perft(5)", "focus", 5)]


def _warm(name: str) -> int:
    return GAMES[name]().perft(1)


def _timed(call: Any) -> tuple[int, float]:
    started = time.perf_counter()
    nodes = call()
    return nodes, time.perf_counter() - started


@needs_cython
@pytest.mark.parametrize(("label", "name", "depth"), CASES, ids=[c[1] for c in CASES])
def test_parallel_perft(label: str, name: str, depth: int) -> None:
    if WORKERS < 2:
        pytest.skip("one core: nothing to run in parallel")
    game = GAMES[name]()
    serial: list[float] = []
    parallel: list[float] = []
    with ProcessPoolExecutor(WORKERS) as pool:
        list(pool.map(_warm, [name] * WORKERS * 4))
        while len(serial) < 7 or sum(serial) < 10:
            nodes, seconds = _timed(lambda: game.perft(depth))
            serial.append(seconds)
            split, seconds = _timed(lambda: game.perft(depth, executor=pool))
            parallel.append(seconds)
            assert split == nodes
    RESULTS[f"{label} serial, leaves/s"] = nodes / statistics.median(serial)
    RESULTS[f"{label} {WORKERS} workers, leaves/s"] = nodes / statistics.median(parallel)
    RESULTS.ratios.append((f"{label} {WORKERS} workers / serial",
                           f"{label} {WORKERS} workers, leaves/s", f"{label} serial, leaves/s"))
