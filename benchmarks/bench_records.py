"""Record benchmarks (pytest-benchmark; run explicitly, not part of the test run):

    python -m pytest benchmarks/bench_records.py

Reading a year of WTHOR games: 10,000 random legal 8x8 games written with
``write_wthor``, read back with ``read_wthor`` (every move replayed through the
integer layer), on the compiled core.  Figures, not timed asserts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from _figures import Figures, needs_cython, per_second
from brett.record import Record
from brett.reversi import Reversi
from brett.wthor import read_wthor, write_wthor

RESULTS = Figures("Records", [])
YEAR = 10_000


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("wthor") / "YEAR.wtb"
    records = []
    for seed in range(YEAR):
        game = Reversi()
        game.random_playout(seed=seed)
        records.append(Record.from_game(game, Black=f"p{seed % 97}", White=f"p{seed % 89}"))
    write_wthor(records, path, jou=path.with_suffix(".JOU"))
    return path


@needs_cython
def test_read_a_year_of_wthor(benchmark: Any, archive: Path) -> None:
    """The reader runs on the selected (compiled) core."""
    jou = archive.with_suffix(".JOU")
    records = benchmark.pedantic(lambda: list(read_wthor(archive, jou)), rounds=3,
                                 iterations=1)
    assert len(records) == YEAR
    RESULTS["WTHOR read games/s"] = per_second(benchmark, YEAR)
    RESULTS["WTHOR read s per 10,000 games"] = benchmark.stats.stats.min
