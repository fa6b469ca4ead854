"""perft through a table keyed by the whole state (``hash_mb`` on Reversi boards
beyond the cores' own tables, Focus and Phutball) against the plain perft:

    python -m pytest benchmarks/bench_perft_state.py

Each count runs in a fresh child process (one process can hide a bimodal
figure), plain and through a table of ``HASH_MB``, in alternating rounds; CPU
seconds, the best of ``ROUNDS``.  The table pays where positions repeat often
enough for the Python walk above the core's own counts to be worth it: Phutball
(placements commute), deep counts.  Figures, not timed asserts; each hashed
count is checked against the plain one.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from _figures import Figures, needs_cython

HASH_MB = 2048
ROUNDS = 3
CASES = {   # name: (game, options, depth)
    "reversi 10x10 perft(11)": ("reversi", {"size": 10}, 11),
    "reversi octagon perft(11)": ("reversi", {"board": "octagon"}, 11),
    "focus perft(6)": ("focus", {}, 6),
    "phutball 9x9 perft(6)": ("phutball", {"columns": 9, "rows": 9}, 6),
    "phutball 15x19 perft(4)": ("phutball", {}, 4),
}

RESULTS = Figures(f"perft through a state table of {HASH_MB} MiB (CPU seconds, best of "
                  "fresh processes)", [])

CHILD = """
import json, sys, time
import brett
name, options, depth, hash_mb = json.loads(sys.argv[1])
game = brett.GAMES[name].twin("cython")(**options)
started = time.process_time()
nodes = game.perft(depth, hash_mb=hash_mb)
print(json.dumps([nodes, time.process_time() - started]))
"""


def _count(name: str, options: dict[str, object], depth: int,
           hash_mb: float | None) -> tuple[int, float]:
    done = subprocess.run([sys.executable, "-c", CHILD,
                           json.dumps([name, options, depth, hash_mb])],
                          capture_output=True, text=True, check=True)
    nodes, seconds = json.loads(done.stdout)
    return int(nodes), float(seconds)


@needs_cython
@pytest.mark.parametrize("case", list(CASES))
def test_state_table(case: str) -> None:
    name, options, depth = CASES[case]
    plain: list[float] = []
    table: list[float] = []
    for _ in range(ROUNDS):              # alternating rounds
        nodes, seconds = _count(name, options, depth, None)
        plain.append(seconds)
        hashed, seconds = _count(name, options, depth, HASH_MB)
        table.append(seconds)
        assert hashed == nodes
    RESULTS[f"{case} plain (s)"] = min(plain)
    RESULTS[f"{case} table (s)"] = min(table)
    RESULTS.ratios.append((f"{case} plain / table (speed-up)",
                           f"{case} plain (s)", f"{case} table (s)"))
