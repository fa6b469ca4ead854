"""Deep Reversi perft through a transposition table, against the plain perft and
against Edax's ``count games``:

    python -m pytest benchmarks/bench_perft_hash.py
    BRETT_EDAX=/path/to/edax/bin/lEdax-x64-modern python -m pytest benchmarks/bench_perft_hash.py

* brett's Othello perft(d) from the start, plain and with ``hash_mb`` (with and
  without ``symmetric``), each count in a fresh child process (one process can
  hide a bimodal figure), CPU seconds, the best of ``ROUNDS``.
* With ``BRETT_EDAX`` naming an Edax binary (built by you from its public source,
  with its data/ directory beside it): Edax's ``count games d``, which keeps a
  table of counted subtrees folded by symmetry, in rounds alternating with
  brett's; Edax times each depth itself (CPU time) with a fresh table per depth,
  as brett's call makes one.  Edax starts its clock after it has filled its table,
  while brett's time includes making its table: the comparison favours Edax.
  Both tables get the same bytes: Edax's is 2^bits entries of 72 bytes
  (``-h bits``, ``BRETT_EDAX_HASH_BITS``, default 22: 288 MiB).

``BRETT_HASH_DEPTHS`` (default "12,13") picks the depths.  Figures, not timed
asserts; the counts are checked against the reference table.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from _edax import edax_count
from _figures import Figures, needs_cython

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = json.loads((ROOT / "tests" / "data" / "reference.json").read_text())
COUNTS = {int(d): n for v in REFERENCE["vectors"] if v["id"] == "reversi-8x8-start"
          for d, n in v["perft"].items()}
DEPTHS = [int(d) for d in os.environ.get("BRETT_HASH_DEPTHS", "12,13").split(",")]
EDAX_BITS = int(os.environ.get("BRETT_EDAX_HASH_BITS", "22"))
EDAX_ENTRY = 72   # bytes: a board (16), its statistics (48), the depth, padded
HASH_MB = (2**EDAX_BITS + 3) * EDAX_ENTRY / 2**20
ROUNDS = 3

RESULTS = Figures(f"Hashed perft (Othello from the start, tables of {HASH_MB:.0f} MiB, "
                  "CPU seconds, best of fresh processes)", [])

CHILD = """
import json, sys, time
from brett import Reversi
depth, hash_mb, symmetric = json.loads(sys.argv[1])
game = Reversi.twin("cython")()
started = time.process_time()
nodes = game.perft(depth, hash_mb=hash_mb, symmetric=symmetric)
print(json.dumps([nodes, time.process_time() - started]))
"""


def _brett(depth: int, hash_mb: float | None, symmetric: bool) -> float:
    """CPU seconds of one count in a fresh process (the count checked)."""
    done = subprocess.run([sys.executable, "-c", CHILD, json.dumps([depth, hash_mb, symmetric])],
                          capture_output=True, text=True, check=True)
    nodes, seconds = json.loads(done.stdout)
    assert nodes == COUNTS[depth]
    return float(seconds)


def _edax(binary: Path, depth: int) -> float:
    """CPU seconds of Edax's ``count games`` at ``depth`` (its own timing)."""
    nodes, seconds = edax_count(binary, "count games", depth, "-h", str(EDAX_BITS))
    assert nodes == COUNTS[depth]
    return seconds


@needs_cython
@pytest.mark.parametrize("depth", DEPTHS)
def test_hashed_perft(depth: int) -> None:
    edax = os.environ.get("BRETT_EDAX")
    runs: dict[str, list[float]] = {"plain": [], "table": [], "symmetric": [], "edax": []}
    for _ in range(ROUNDS):                      # alternating rounds
        if depth <= 13:
            runs["plain"].append(_brett(depth, None, False))
        runs["table"].append(_brett(depth, HASH_MB, False))
        runs["symmetric"].append(_brett(depth, HASH_MB, True))
        if edax:
            runs["edax"].append(_edax(Path(edax), depth))
    for kind, seconds in runs.items():
        if seconds:
            RESULTS[f"perft({depth}) {kind} (s)"] = min(seconds)
    if runs["plain"]:
        RESULTS.ratios.append((f"perft({depth}) plain / symmetric table (speed-up)",
                               f"perft({depth}) plain (s)", f"perft({depth}) symmetric (s)"))
    if edax:
        RESULTS.ratios.append((f"perft({depth}) Edax / brett symmetric (speed-up)",
                               f"perft({depth}) edax (s)", f"perft({depth}) symmetric (s)"))
