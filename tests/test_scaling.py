"""Every record reader takes time and memory linear in its input: doubling the
input at most doubles (with 30 % slack) the CPU time and the peak memory of a
read, from 1 MB to 16 MB (from 1/4 MB to 2 MB for the readers of many small
records), on both cores.

Traced memory (``tracemalloc``) does not depend on what else the machine runs: the
first doubling of each reader is in the default run.  CPU time does, a little (a
busy neighbour slows a core's caches: a 60 ms read once took 217 ms after a 1 MB
one), so the time doublings are in ``-m slow``, at a size where one read takes at
least half a second of CPU (up to 8 MB), and each compares the least CPU times of
reads of the two sizes taken in turn, so that a slow stretch of the machine falls on
both; a doubling measured over the bound is measured again, up to three times (in
a busy stretch the median of five 2 MB reads was once 2.7 times that of five 1 MB
reads; a cost quadratic in the input fails every try).  Only ratios of sizes are
compared, never absolute times.  The inputs are built here by repeating a small
unit, so that a reader's cost per byte would grow with any work quadratic in nodes,
depth, games or comment text.
"""

from __future__ import annotations

import gc
import json
import os
import struct
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple

import pytest

import brett
from brett.records import Record, load_record, to_dict
from brett.records import read as read_records
from brett.records.ggf import iter_ggf, read_ggf, write_ggf
from brett.records.obf import read_obf, write_obf
from brett.records.positions import read_positions, write_positions
from brett.records.sgf import read_sgf
from brett.records.transcript import read_transcripts, write_transcripts
from brett.records.wthor import read_wthor, write_wthor
from conftest import BACKENDS, NO_EXTENSIONS, needs_cython
from fuzz.readers import on_core

MB = 2**20
SLACK = 1.3
# Text beside the moves keeps the inputs a few hundred bytes a node or a game:
# the runs stay short on the plain-Python core, and the counts still double.
NOTE = "a note on the move " * 16
CYCLE = ("g10", "h10-f10", "g10", "f10-h10")  # Phutball: a man placed and jumped, to and fro
START = brett.Phutball().position()


class Input(NamedTuple):
    """What one reader reads: ``make(size)`` builds about ``size`` bytes of input
    (in ``folder`` when the reader reads files), ``read`` reads it."""

    make: Callable[[int, Path], Any]
    read: Callable[[Any], Any]


# ------------------------------------------------------------------ the inputs
def json_tree(size: int, folder: Path) -> str:
    """A JSON record: a long Phutball line with a side leaf at every node."""
    moves = size // (2 * len(NOTE) + 40)
    line = [CYCLE[i % 4] for i in range(moves)]
    rows = [[i, move, NOTE, {}] for i, move in enumerate(line)]
    rows += [[i, "a1", NOTE, {}] for i in range(moves)]
    return json.dumps({"format": "brett-record", "version": 1, "game": "phutball",
                       "start": START, "moves": line, "headers": {}, "nodes": rows})


def sgf_tree(size: int, folder: Path) -> str:
    """SGF of the same tree: every variation nested in the one before it."""
    moves = size // (len(NOTE) + 30)
    head = "".join(f"(;{'BW'[i % 2]}[{CYCLE[i % 4]}]C[{NOTE}]" for i in range(4))
    tail = "".join(f")(;{'BW'[i % 2]}[a1])" for i in range(3, -1, -1))
    return f"(;GM[14]{head * (moves // 4)}{tail * (moves // 4)})"


def sgf_comments(size: int, folder: Path) -> str:
    """Moveless nodes whose comments all go to the move above."""
    return "(;GM[2];B[d3]" + f";C[{NOTE}]" * (size // (len(NOTE) + 4)) + ")"


def _reversi_records(count: int) -> list[Record]:
    """One whole Reversi game and games stopped after two moves, with a long header."""
    records = []
    for seed in range(count):
        game = brett.Reversi()
        game.random_playout(seed=seed, max_plies=None if seed == 0 else 2)
        records.append(Record.from_game(game, Black=f"player {seed}", White="Edax",
                                        Place=NOTE * 12))
    return records


UNIT = _reversi_records(20)


def ggf_games(size: int, folder: Path) -> str:
    unit = write_ggf(UNIT)
    return unit * (size // len(unit))


def wthor_archive(size: int, folder: Path) -> Path:
    path = folder / "archive.wtb"
    write_wthor(UNIT[1:], path)  # 68 bytes a game however long: short games
    data = path.read_bytes()
    games = (size - 16) // 68
    header = bytearray(data[:16])
    struct.pack_into("<I", header, 4, games)
    path.write_bytes(bytes(header) + (data[16:] * (games // len(UNIT[1:]) + 1))[:games * 68])
    return path


def ggs_archive(size: int, folder: Path) -> Path:
    """GGS archive lines (a game, then a synchro pair), streamed from a file."""
    pair = [Record.from_game(UNIT[0].game(), Synchro="1.1"),
            Record.from_game(UNIT[1].game(), Synchro="1.2")]
    unit = "1 " + write_ggf(UNIT[:1]) + write_ggf(pair)
    path = folder / "archive.ggf"
    path.write_text(unit * (size // len(unit)))
    return path


def _problem(seed: int) -> Record:
    game = brett.Reversi()
    game.random_playout(seed=seed, max_plies=20)
    problem = Record("reversi", game.position())
    for move in game.legal_moves:
        problem.root.add(str(move), score="+2")
    return problem


def obf_problems(size: int, folder: Path) -> str:
    unit = write_obf([_problem(seed) for seed in range(20)])
    return unit * (size // len(unit))


def position_list(size: int, folder: Path) -> str:
    unit = write_positions(UNIT)
    return unit * (size // len(unit))


def transcripts(size: int, folder: Path) -> str:
    unit = write_transcripts([Record.from_game(record.game()) for record in UNIT])
    return unit * (size // len(unit))


def _json_list(size: int) -> bytes:
    unit = ", ".join(json.dumps(to_dict(record)) for record in UNIT)
    return f"[{', '.join([unit] * (size // len(unit)))}]".encode()


def json_file(size: int, folder: Path) -> Path:
    path = folder / "records.json"
    path.write_bytes(_json_list(size))
    return path


def json_pipe(size: int, folder: Path) -> tuple[Path, bytes]:
    """A named pipe and what a thread writes into it at each read."""
    path = folder / "records.pipe"
    os.mkfifo(path)
    return path, _json_list(size)


def read_pipe(pipe: tuple[Path, bytes]) -> list[Record]:
    path, data = pipe

    def write() -> None:  # without copies, which the reader's peak would count
        pipe = os.open(path, os.O_WRONLY)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(pipe, view):]
        finally:
            os.close(pipe)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    records = read_records(path, "json")
    writer.join()
    return records


READERS = {
    "json-tree": Input(json_tree, load_record),
    "sgf-tree": Input(sgf_tree, read_sgf),
    "sgf-comments": Input(sgf_comments, read_sgf),
    "ggf": Input(ggf_games, read_ggf),
    "wthor": Input(wthor_archive, lambda path: list(read_wthor(path))),
    "formats-file": Input(json_file, read_records),
    "formats-pipe": Input(json_pipe, read_pipe),
    "ggs-stream": Input(ggs_archive, lambda path: list(iter_ggf(path))),
    "obf": Input(obf_problems, read_obf),
    "positions": Input(position_list, read_positions),
    "transcripts": Input(transcripts, read_transcripts),
}


# ------------------------------------------------------------------ measuring
class Cost(NamedTuple):
    seconds: float  # CPU time, the best of the runs
    peak: int  # traced bytes at the peak, above those before the read


PEAKS: dict[tuple[str, str, float], int] = {}


def peak(reader: str, backend: str, megabytes: float, folder: Path) -> int:
    """The traced peak of one read of ``megabytes`` of ``reader``'s input (measured
    once a session: the doubling tests share their sizes)."""
    key = (reader, backend, megabytes)
    if key not in PEAKS:
        make, read = READERS[reader]
        with tempfile.TemporaryDirectory(dir=folder) as files:
            data = make(int(megabytes * MB), Path(files))
            with on_core(backend):
                PEAKS[key] = traced_peak(lambda: read(data))
    return PEAKS[key]


TIMED_SECONDS = 0.5   # a timed read takes at least this much CPU ...
TIMED_MAX_MB = 8      # ... or is this large (twice it is the text readers' limit, 16 MiB)
TIME_TRIES = 3        # measurements of one doubling before it fails


def timed_size(reader: str, backend: str, folder: Path) -> float:
    """The reader's first size, doubled until one read takes TIMED_SECONDS of CPU
    (or reaches TIMED_MAX_MB): long enough that a scheduler's noise is small."""
    make, read = READERS[reader]
    megabytes = _sizes(reader)[0]
    while megabytes < TIMED_MAX_MB:
        with tempfile.TemporaryDirectory(dir=folder) as files:
            data = make(int(megabytes * MB), Path(files))
            with on_core(backend):
                if cpu_seconds(partial(read, data)) >= TIMED_SECONDS:
                    break
        megabytes *= 2
    return megabytes


def seconds_in_turn(reader: str, backend: str, megabytes: float, folder: Path,
                    rounds: int = 5) -> tuple[float, float]:
    """The least CPU times of reads of ``megabytes`` and of twice as much, taken in
    turn (small, large, small, ...), so that a slow stretch falls on both sizes (the
    least: a neighbour's load only ever adds time)."""
    make, read = READERS[reader]
    times: tuple[list[float], list[float]] = ([], [])
    with tempfile.TemporaryDirectory(dir=folder) as files:
        inputs = []
        for name, size in (("small", megabytes), ("large", 2 * megabytes)):
            (Path(files) / name).mkdir()
            inputs.append(make(int(size * MB), Path(files) / name))
        with on_core(backend):
            for _ in range(rounds):
                for data, taken in zip(inputs, times, strict=True):
                    taken.append(cpu_seconds(partial(read, data)))
    return min(times[0]), min(times[1])


def cpu_seconds(call: Callable[[], Any]) -> float:
    """The CPU time of one call with the cycle collector off (a full collection
    scans every object of the process, whatever the input's size)."""
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        result = call()
        elapsed = time.process_time() - start
    finally:
        gc.enable()
    del result   # freed outside the measurement
    return elapsed


def traced_peak(call: Callable[[], Any]) -> int:
    """The traced bytes at the peak of one call, above those before it."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        call()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


def measure(call: Callable[[], Any], runs: int) -> Cost:
    """The best CPU time of ``runs`` calls and the traced peak of one more."""
    return Cost(min(cpu_seconds(call) for _ in range(runs)), traced_peak(call))


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the inputs that are files are made (each removed once measured)."""
    folder = tmp_path_factory.mktemp("scaling")
    for reader in READERS:  # a small read of each first: imports, caches, cores
        for backend in ("python",) if NO_EXTENSIONS else ("python", "cython"):
            if reader != "formats-pipe" or hasattr(os, "mkfifo"):
                warm(reader, backend, folder)
    return folder


def warm(reader: str, backend: str, folder: Path) -> None:
    """One small read, unmeasured (a measurement's full collections cost more)."""
    make, read = READERS[reader]
    with tempfile.TemporaryDirectory(dir=folder) as files:
        data = make(MB // 64, Path(files))
        with on_core(backend):
            read(data)


# The readers of many small records replay a game every few dozen bytes (WTHOR: 15,000
# games a megabyte): their doublings run from 1/4 MB to 2 MB, tens of thousands of
# games, where anything quadratic in games shows; the others' from 1 MB to 16 MB.
SMALL_RECORDS = {"wthor", "transcripts", "positions", "obf", "ggs-stream"}
# Tests over ~5 s are slow: every doubling but the first, and the first of these.
HEAVY = {("wthor", "python"), ("transcripts", "python"), ("positions", "python"),
         ("obf", "python"), ("obf", "cython"), ("transcripts", "cython"),
         ("ggs-stream", "python"), ("sgf-tree", "python")}


def _sizes(reader: str) -> tuple[float, ...]:
    return (0.25, 0.5, 1) if reader in SMALL_RECORDS else (1, 2, 4, 8)


CASES = [pytest.param(reader, backend, megabytes,
                      id=f"{reader}-{backend}-{megabytes:g}-{2 * megabytes:g}MB",
                      marks=[*marks, *([pytest.mark.slow] if megabytes > _sizes(reader)[0]
                                       or (reader, backend) in HEAVY else [])])
         for reader in sorted(READERS) for backend, marks in (("python", []),
                                                              ("cython", [needs_cython]))
         for megabytes in _sizes(reader)]


@pytest.mark.parametrize(("reader", "backend", "megabytes"), CASES)
def test_doubling_the_input_at_most_doubles_the_memory(reader: str, backend: str,
                                                       megabytes: float, folder: Path) -> None:
    if reader == "formats-pipe" and not hasattr(os, "mkfifo"):
        pytest.skip("this platform has no named pipes")
    small = peak(reader, backend, megabytes, folder)
    large = peak(reader, backend, 2 * megabytes, folder)
    assert large <= 2 * SLACK * small, (small, large)


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("reader", sorted(READERS))
def test_doubling_the_input_at_most_doubles_the_time(reader: str, backend: str,
                                                     folder: Path) -> None:
    if reader == "formats-pipe" and not hasattr(os, "mkfifo"):
        pytest.skip("this platform has no named pipes")
    megabytes = timed_size(reader, backend, folder)
    tries = []
    for _ in range(TIME_TRIES):  # a busy stretch can outlast one try; a quadratic cost fails all
        small, large = seconds_in_turn(reader, backend, megabytes, folder)
        tries.append((small, large))
        if large <= 2 * SLACK * small:
            return
    pytest.fail(f"{megabytes} MB and twice it took (small, large) CPU seconds {tries}")


# ------------------------------------------------------------------ failing fast
FIRST_ERRORS = {  # reader: (its input made illegal at the first move, the error)
    "ggf": (lambda text: text.replace("]B[", "]B[A1", 1), r"line 1, column \d+: B\[a1"),
    "sgf-tree": (lambda text: text.replace("B[g10]", "B[h10]", 1), r"line 1, column 11: B\[h10"),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("reader", sorted(FIRST_ERRORS))
def test_an_error_at_the_start_of_16_mb_ends_the_reading(reader: str, backend: str,
                                                        folder: Path) -> None:
    """The text readers stop at the first error: an illegal first move in 16 MB
    costs a tenth of reading 1 MB, itself a sixteenth of reading 16 MB (a 16 MB
    GGF file took 9.6 s and a gigabyte to report its line 1)."""
    spoil, message = FIRST_ERRORS[reader]
    make, read = READERS[reader]
    valid_text = make(MB, folder)
    with on_core(backend):
        valid = measure(lambda: read(valid_text), runs=3)
    text = spoil(make(16 * MB, folder))

    def fail() -> None:
        with pytest.raises(brett.BrettError, match=message):
            read(text)

    with on_core(backend):
        failing = measure(fail, runs=3)
    assert failing.seconds < valid.seconds / 10, (failing, valid)
    assert failing.peak < valid.peak / 10, (failing, valid)
