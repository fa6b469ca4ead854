"""The exact endgame solver on FFO #40-#59, side by side with Edax (run explicitly):

    BRETT_EDAX=/path/to/edax/bin/lEdax-x64 PYTHONPATH=src python -m pytest benchmarks/bench_solve.py

Each position is solved by ``brett.ai.solve`` (the score and a best move, as Edax
gives; ``BRETT_SOLVE_ALL=1``: every best move) in a fresh process, stopped after
``BRETT_SOLVE_SECONDS`` (default 60); with
``BRETT_EDAX`` naming an Edax binary (built by you from its public source, with
evaluation weights: docs/ai.md), Edax solves it too (``-solve``, one thread, exact),
stopped after ``BRETT_EDAX_SECONDS`` (default 300).  ``BRETT_FFO`` picks the
positions (default ``40-59``; ``40-49,59`` works too).  A table of both follows:
score, best move, nodes and seconds, and the ratios of nodes and of seconds where
both finished.  Nodes are exact (the same on every machine); seconds are wall time.
Figures, not timed asserts: the scores are checked against the published ones.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Optional

import pytest

from _edax import edax_solve
from _figures import needs_cython
from brett.records import read

FFO_FILE = Path(__file__).parents[1] / "tests" / "data" / "ffo-40-59.obf"
"""FFO #40-#59 (fforum-40-59.obf) as OBF, the tests' copy: each position with its
best moves and the published score for the player to move."""
FFO = [(int(str(p.headers["Comment"]).split("#")[1]), p.start,
        int(p.root.children[0].properties["score"])) for p in read(FFO_FILE)]
SECONDS = float(os.environ.get("BRETT_SOLVE_SECONDS", "60"))
EDAX_SECONDS = float(os.environ.get("BRETT_EDAX_SECONDS", "300"))
EDAX = os.environ.get("BRETT_EDAX")
ALL_BEST = os.environ.get("BRETT_SOLVE_ALL") == "1"

CHILD = """
import json, sys, brett
from brett.ai import solve
s = solve(brett.Reversi.from_position(sys.argv[1]), all_best=sys.argv[2] == "all")
print(json.dumps([s.score, [str(m) for m in s.best_moves], s.nodes, s.seconds]))
"""

# number -> (empties, published, brett's (score, best, nodes, seconds) or None,
#            Edax's (score, best, nodes, seconds) or None, whether Edax ran)
ROWS: dict[int, tuple[int, int, Optional[tuple[Any, ...]], Optional[tuple[Any, ...]], bool]] = {}


def _picked(spec: str) -> set[int]:
    numbers: set[int] = set()
    for part in spec.split(","):
        low, _, high = part.strip().partition("-")
        numbers.update(range(int(low), int(high or low) + 1))
    return numbers


PICKED = [row for row in FFO if row[0] in _picked(os.environ.get("BRETT_FFO", "40-59"))]


def _brett(position: str) -> Optional[tuple[int, str, int, float]]:
    """brett's solve in a fresh process: (score, best moves, nodes, seconds), or
    None when it has not finished within SECONDS."""
    try:
        done = subprocess.run([sys.executable, "-c", CHILD, position,
                               "all" if ALL_BEST else "one"], capture_output=True,
                              text=True, timeout=SECONDS, check=True)
    except subprocess.TimeoutExpired:
        return None
    score, best, nodes, seconds = json.loads(done.stdout)
    return score, ",".join(best), nodes, seconds


def _cell(result: Optional[tuple[Any, ...]], limit: float, ran: bool = True) -> str:
    if not ran:
        return f"{'':>6} {'':<12} {'':>14} {'':>8}"
    if result is None:
        return f"{'-':>6} {'':<12} {'':>14} {f'>{limit:.0f}':>8}"
    score, best, nodes, seconds = result
    return f"{score:>+6} {best:<12} {nodes:>14,} {seconds:>8.2f}"


@pytest.fixture(scope="module", autouse=True)
def table(request: pytest.FixtureRequest) -> Any:
    yield
    out = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if out is None or capture is None or not ROWS:
        return
    both: list[tuple[int, float, int, float]] = []
    with capture.global_and_fixture_disabled():  # the table shows without -s
        out.write_line("")
        out.write_line(f"{'FFO':<4} {'empties':>7} {'score':>5} | brett: {'score':>6} "
                       f"{'best':<12} {'nodes':>14} {'seconds':>8} | Edax: {'score':>6} "
                       f"{'best':<12} {'nodes':>14} {'seconds':>8} | nodes  seconds")
        for number, (empties, published, mine, theirs, ran) in sorted(ROWS.items()):
            ratios = ""
            if mine and theirs:
                both.append((mine[2], mine[3], theirs[2], theirs[3]))
                ratios = f"{mine[2] / theirs[2]:>5.2f}x {mine[3] / max(theirs[3], 1e-3):>7.2f}x"
            out.write_line(f"#{number:<3} {empties:>7} {published:>+5} | brett: "
                           f"{_cell(mine, SECONDS)} | Edax: {_cell(theirs, EDAX_SECONDS, ran)} "
                           f"| {ratios}")
        solved = sum(1 for row in ROWS.values() if row[2])
        out.write_line(f"brett solved {solved} of {len(ROWS)} within {SECONDS:.0f} s each")
        if both:
            nodes = sum(b[0] for b in both) / sum(b[2] for b in both)
            seconds = sum(b[1] for b in both) / sum(b[3] for b in both)
            mine_s, theirs_s = sum(b[1] for b in both), sum(b[3] for b in both)
            out.write_line(f"where both finished ({len(both)}): brett / Edax {nodes:.2f}x the "
                           f"nodes, {seconds:.2f}x the seconds ({mine_s:.1f} s against "
                           f"{theirs_s:.1f} s)")


@needs_cython
@pytest.mark.parametrize(("number", "position", "score"), PICKED, ids=[str(r[0]) for r in PICKED])
def test_ffo(number: int, position: str, score: int) -> None:
    empties = position.split()[0].count("-")
    mine = _brett(position)
    theirs = edax_solve(Path(EDAX), position, EDAX_SECONDS) if EDAX else None
    ROWS[number] = (empties, score, mine, theirs, bool(EDAX))
    assert mine is None or mine[0] == score, f"brett: {mine}"
    assert theirs is None or theirs[0] == score, f"Edax: {theirs}"
