"""The exact endgame solver on FFO #40-#49 (pytest-benchmark; run explicitly):

    PYTHONPATH=src python -m pytest benchmarks/bench_solve.py

One solve per position (score and every best move, as ``brett.ai.solve`` gives
them) on the compiled solver, then a table: empties, nodes, seconds, nodes/s.
"""

from __future__ import annotations

from typing import Any

import pytest

import brett
from _figures import needs_cython
from brett.ai import solve

FFO = [  # number, position, published score for the player to move
    (40, "o--oooox/-oooooox/ooxxooox/ooxoooxx/ooooooxx/---oooox/----o--x/-------- x", 38),
    (41, "-ooooo--/--oooox-/-oooooo-/xxxxxoo-/-xxoox--/ooxoxx--/--oxxo--/-ooo--o- x", 0),
    (42, "--ooo---/----xx-o/oooooxoo/-ooooxoo/x-oooxxo/---ooxoo/---oooxo/--oooo-- x", 6),
    (43, "--xxxxx-/--xxxx--/-oooxx--/-ooxxxx-/-ooxxxo-/ooooxoo-/---xox--/--xxxxx- o", -12),
    (44, "--o-x-o-/--o-xo-o/-ooxxxoo/ooooxxxo/ooooxx--/xxooxo--/--xxxx--/---xxx-- o", -14),
    (45, "---xxxx-/x-xxxo--/xxoxoo--/xxxoxo--/xxoxxo--/-oxxxoo-/o-oooo--/----oo-- x", 6),
    (46, "---xxx--/--ooox--/--oooxx-/-ooooxxx/--ooooxx/--oxoxxx/--xxoo--/-xxxx-o- x", -8),
    (47, "-ooooo--/--oooo--/-oooox--/xxxxxx--/-oxoox--/oooxox--/--ooxx--/--xxxx-- o", 4),
    (48, "-----x--/x-xxx---/xxxxoo--/xoxooxx-/xooxxx--/xooxx---/--ooox--/-xxxxxx- o", 28),
    (49, "--ox-o--/--xxoo--/oooooxx-/ooooox--/oooxoxx-/ooooxx--/---oox--/--x-o--- x", 16),
]

ROWS: list[tuple[int, int, int, str, int, float]] = []


@pytest.fixture(scope="module", autouse=True)
def table(request: pytest.FixtureRequest) -> Any:
    yield
    out = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if out is None or capture is None or not ROWS:
        return
    with capture.global_and_fixture_disabled():  # the table shows without -s
        out.write_line("")
        out.write_line("FFO   empties  score  best      nodes        seconds  Mnodes/s")
        for number, empties, score, best, nodes, seconds in ROWS:
            out.write_line(f"#{number}   {empties:>5}  {score:>+5}  {best:<8} {nodes:>13,}  "
                           f"{seconds:>7.2f}  {nodes / seconds / 1e6:>8.1f}")
        out.write_line(f"total {sum(r[5] for r in ROWS):.1f} s")


@needs_cython
@pytest.mark.parametrize(("number", "position", "score"), FFO, ids=[str(r[0]) for r in FFO])
def test_ffo(benchmark: Any, number: int, position: str, score: int) -> None:
    game = brett.Reversi.from_position(position)
    solution = benchmark.pedantic(solve, args=(game,), rounds=1, iterations=1)
    assert solution.score == score
    ROWS.append((number, 64 - sum(game.discs()), solution.score,
                 ",".join(str(m) for m in solution.best_moves), solution.nodes,
                 solution.seconds))
