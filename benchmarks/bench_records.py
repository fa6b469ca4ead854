"""Record benchmarks (pytest-benchmark; run explicitly, not part of the test run):

    python -m pytest benchmarks/bench_records.py

Reading a year of WTHOR games: 10,000 random legal 8x8 games written with
``write_wthor``, read back with ``read_wthor`` (every move replayed through the
integer layer), on the compiled core.  And every reader's speed in megabytes a
second on inputs dense with moves (the figures of docs/records.md, "Limits and
costs"): whole Reversi games in SGF, GGF and a JSON file, one long Phutball game
in JSON and SGF.  And a GGS archive streamed game by game (``iter_ggf``) against
the same games read whole (``read_ggf``): time a game and the traced peak.  Figures,
not timed asserts.
"""

from __future__ import annotations

import tracemalloc
from pathlib import Path
from typing import Any

import pytest

import brett
from _figures import Figures, needs_cython, per_second
from brett.records import Record
from brett.records import read as read_records
from brett.records import write as write_records
from brett.records.ggf import iter_ggf, read_ggf, write_ggf
from brett.records.sgf import read_sgf, write_sgf
from brett.records.wthor import read_wthor, write_wthor
from brett.reversi import Reversi

RESULTS = Figures("Records", [("GGS archive: time a game streamed / read whole",
                               "GGS archive streamed: µs a game",
                               "GGS archive read whole: µs a game")])
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


GAMES = 600  # whole Reversi games: about 1 MB of SGF
CYCLE = ("g10", "h10-f10", "g10", "f10-h10")  # a Phutball man placed and jumped, to and fro
LONG = 100_000  # moves of one Phutball game


def _reversi_games() -> list[Record]:
    records = []
    for seed in range(GAMES):
        game = Reversi()
        game.random_playout(seed=seed)
        records.append(Record.from_game(game, Black="Ann", White="Bob"))
    return records


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Any, Any, int]]:
    """reader → (its function, its input, the input's size in bytes)."""
    records = _reversi_games()
    path = tmp_path_factory.mktemp("records") / "games.json"
    write_records(records, path)
    sgf, ggf = write_sgf(records), write_ggf(records)
    long = Record("phutball", brett.Phutball().position(),
                  line=[CYCLE[i % 4] for i in range(LONG)])
    json_long, sgf_long = brett.dump(long), write_sgf([long])
    return {"SGF games": (read_sgf, sgf, len(sgf)), "GGF games": (read_ggf, ggf, len(ggf)),
            "JSON file of games": (read_records, path, path.stat().st_size),
            "JSON long game": (brett.load_record, json_long, len(json_long)),
            "SGF long game": (read_sgf, sgf_long, len(sgf_long))}


@pytest.mark.parametrize("reader", ["SGF games", "GGF games", "JSON file of games",
                                    "JSON long game", "SGF long game"])
def test_read_a_megabyte(benchmark: Any, inputs: dict[str, tuple[Any, Any, int]],
                         reader: str) -> None:
    """Each reader on the selected core (the compiled one unless
    BRETT_NO_EXTENSIONS=1), in megabytes of input a second."""
    read, data, size = inputs[reader]
    records = benchmark.pedantic(lambda: read(data), rounds=3, iterations=1)
    assert records
    RESULTS[f"{reader}: read MB/s"] = per_second(benchmark, size / 2**20)


ARCHIVE = 21_000  # games: archive lines of one game and synchro pairs, alternating


@pytest.fixture(scope="module")
def ggs_archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    records = _reversi_games()[:200]
    lines = []
    for number in range(ARCHIVE // 3 * 2):
        first = records[number % 200]
        if number % 2:
            pair = [Record("reversi", first.start, {**first.headers, "Synchro": "1.1"},
                           line=[str(m) for m in first.moves]),
                    Record("reversi", first.start, {**first.headers, "Synchro": "1.2"},
                           line=[str(m) for m in records[(number + 1) % 200].moves])]
            lines.append(write_ggf(pair))
        else:
            lines.append("1 " + write_ggf([first]))
    path = tmp_path_factory.mktemp("ggs") / "archive.ggf"
    path.write_text("".join(lines))
    return path


@pytest.mark.parametrize("how", ["streamed", "read whole"])
def test_read_a_ggs_archive(benchmark: Any, ggs_archive: Path, how: str) -> None:
    """Microseconds a game, streamed from the file or read from its text in one
    list (the reader of the GGF text as it was), and the traced peak of one read."""
    text = ggs_archive.read_text()

    def read() -> int:
        if how == "streamed":
            return sum(1 for _ in iter_ggf(ggs_archive))
        return len(read_ggf(text))

    games = benchmark.pedantic(read, rounds=3, iterations=1)
    assert games == ARCHIVE
    RESULTS[f"GGS archive {how}: µs a game"] = benchmark.stats.stats.min / games * 1e6
    tracemalloc.start()
    try:
        read()
        RESULTS[f"GGS archive {how}: peak MB"] = tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()
