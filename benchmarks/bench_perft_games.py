"""perft through a table on the boards and games beyond 8x8 Othello, against the
plain perft:

    python -m pytest benchmarks/bench_perft_games.py

Reversi's wider boards (10x10 to 16x16, the octagon) count through the compiled
core's own table, keyed by the two colours' wide bitboards (square boards also
with ``symmetric=True``); Focus and Phutball
through a table keyed by the whole state (``brett/_core/_state_perft.py``), whose
walk above the core's own counts of the last moves runs in Python.  Each count
runs in a fresh child process (one process can hide a bimodal figure), plain and
through a table of ``HASH_MB``, in alternating rounds; CPU seconds, the best of
``ROUNDS``.  Figures, not timed asserts; each hashed count is checked against the
plain one.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from _figures import Figures, needs_cython

HASH_MB = 2048
ROUNDS = 3
SQUARE = ("reversi 10x10 perft(12)", "reversi 16x16 perft(12)")   # symmetric too
CASES = {   # name: (game, options, depth)
    "reversi 10x10 perft(12)": ("reversi", {"size": 10}, 12),
    "reversi octagon perft(12)": ("reversi", {"board": "octagon"}, 12),
    "reversi 16x16 perft(12)": ("reversi", {"size": 16}, 12),
    "focus perft(6)": ("focus", {}, 6),
    "phutball 9x9 perft(6)": ("phutball", {"columns": 9, "rows": 9}, 6),
    "phutball 15x19 perft(4)": ("phutball", {}, 4),
}

RESULTS = Figures(f"perft through a table of {HASH_MB} MiB (CPU seconds, best of "
                  "fresh processes)", [])

CHILD = """
import json, sys, time
import brett
name, options, depth, hash_mb, symmetric = json.loads(sys.argv[1])
game = brett.GAMES[name].twin("cython")(**options)
started = time.process_time()
nodes = game.perft(depth, hash_mb=hash_mb, symmetric=symmetric)
print(json.dumps([nodes, time.process_time() - started]))
"""


def _count(name: str, options: dict[str, object], depth: int,
           hash_mb: float | None, symmetric: bool = False) -> tuple[int, float]:
    done = subprocess.run([sys.executable, "-c", CHILD,
                           json.dumps([name, options, depth, hash_mb, symmetric])],
                          capture_output=True, text=True, check=True)
    nodes, seconds = json.loads(done.stdout)
    return int(nodes), float(seconds)


@needs_cython
@pytest.mark.parametrize("case", list(CASES))
def test_perft_table(case: str) -> None:
    name, options, depth = CASES[case]
    plain: list[float] = []
    table: list[float] = []
    symmetric: list[float] = []
    for _ in range(ROUNDS):              # alternating rounds
        nodes, seconds = _count(name, options, depth, None)
        plain.append(seconds)
        hashed, seconds = _count(name, options, depth, HASH_MB)
        table.append(seconds)
        assert hashed == nodes
        if case in SQUARE:
            hashed, seconds = _count(name, options, depth, HASH_MB, True)
            symmetric.append(seconds)
            assert hashed == nodes
    RESULTS[f"{case} plain (s)"] = min(plain)
    RESULTS[f"{case} table (s)"] = min(table)
    RESULTS.ratios.append((f"{case} plain / table (speed-up)",
                           f"{case} plain (s)", f"{case} table (s)"))
    if symmetric:
        RESULTS[f"{case} symmetric (s)"] = min(symmetric)
        RESULTS.ratios.append((f"{case} plain / symmetric table (speed-up)",
                               f"{case} plain (s)", f"{case} symmetric (s)"))
