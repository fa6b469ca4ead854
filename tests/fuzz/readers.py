"""What the record fuzzers share (tests/test_fuzz_records.py and the atheris
targets beside this file): small valid inputs of every format, made here from
seeded games; one check per reader; a seeded mutator; a switch that runs the
readers on one core.

``CHECKS[name](data)`` reads ``data`` (bytes, as a file would hold them) with one
reader and, when it reads, checks that what came out round-trips through the
format's writer.  A :class:`brett.BrettError` is the only exception a reader may
raise for bad input: the callers let it pass and report anything else.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import io
import os
import random
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import brett
from brett.records import Record, dump, load, load_record
from brett.records import read as read_records
from brett.records import write as write_records
from brett.records.ggf import iter_ggf, read_ggf, write_ggf
from brett.records.obf import read_obf, write_obf
from brett.records.positions import read_positions, write_positions
from brett.records.result import result_text
from brett.records.sgf import read_sgf, write_sgf
from brett.records.transcript import read_transcripts, write_transcripts
from brett.records.wthor import read_wthor, write_wthor


@contextlib.contextmanager
def on_core(backend: str) -> Iterator[None]:
    """The readers build games from the public classes (``brett.GAMES``): point
    each at ``backend``'s core for the duration."""
    classes = [brett.GAMES[name] for name in brett.GAMES]
    saved = [cls.__dict__["_core_class"] for cls in classes]
    try:
        for cls in classes:
            cls._core_class = getattr(cls._cores.get(backend), cls._core_class_name)
        yield
    finally:
        for cls, core in zip(classes, saved, strict=True):
            cls._core_class = core


# ------------------------------------------------------------------ valid inputs
def _played(name: str, draw: int, plies: int, **options: Any) -> Any:
    game = brett.GAMES[name](**options)
    game.random_playout(seed=draw, max_plies=plies)
    return game


def _with_variations(game: Any, **headers: str) -> Record:
    """The record of ``game`` with a comment, a property and a side line."""
    record = Record.from_game(game, **headers)
    line = record.root.mainline()
    if len(line) > 2:
        line[0].comment = "a ] bracket, a \\ backslash\nand a second line"
        line[1].properties["eval"] = "+1.5"
        other = record.game(line[0])
        for move in other.legal_moves:
            if str(move) != line[1].move:
                line[0].add(str(move), "the other way")
                break
    return record


@functools.cache
def samples() -> dict[str, list[bytes]]:
    """Small valid inputs of every reader, a few hundred bytes each."""
    reversi = _with_variations(_played("reversi", 3, 12), Black="Ann", White="Bob",
                               Event="Open")
    small = Record.from_game(_played("reversi", 5, 40, size=6), Result="?")
    phutball = _with_variations(_played("phutball", 1, 6, columns=9, rows=9))
    focus = _with_variations(_played("focus", 2, 5, players=3))
    pending = brett.Phutball(columns=9, rows=9)
    pending.push("e6")
    pending.apply_action(81)
    whole = [_played("reversi", seed, 70) for seed in range(3)]
    ggf = [Record.from_game(game, Black="Ann", White="Bob") for game in whole[:2]]
    ggf[0].root.mainline()[3].properties.update(eval="-2.00", time="1.5")
    return {
        "json": [dump(r).encode() for r in (reversi, phutball, focus)] +
                [dump(g).encode() for g in (pending, _played("schuft", 1, 8, players=3, seed=4))],
        "sgf": [write_sgf([reversi]).encode(), write_sgf([phutball, focus]).encode(),
                write_sgf([Record.from_game(brett.Reversi(holes=["a1"]))]).encode()],
        "ggf": [write_ggf(ggf).encode(), write_ggf([small]).encode()],
        "wthor": [_wthor(whole, Black="Ann", White="Bob", Event="Cup", Date="2026"),
                  _wthor([_played("reversi", 9, 20, size=10)])],
        "ggs": [_archive(ggf).encode()],
        "obf": [write_obf([_problem(whole[0], 20), _problem(_played("reversi", 4, 9, size=6), 0)])
                .encode()],
        "positions": [write_positions([reversi, phutball, focus, Record.from_game(
            _played("schuft", 1, 8, players=3, seed=4), note='a "quoted" ; text')]).encode()],
        "transcript": [write_transcripts([Record.from_game(g) for g in whole]).encode()
                       + b"F5 D6 C3\n# a comment\n"],
        "formats": [b"json " + dump(reversi).encode(),
                    b"json [" + b", ".join(dump(r).encode() for r in (small, focus)) + b"]",
                    b"sgf " + write_sgf([phutball]).encode(),
                    b"ggf " + write_ggf([small]).encode(),
                    b"obf " + write_obf([_problem(whole[1], 30)]).encode(),
                    b"pos " + write_positions([phutball]).encode(),
                    b"txt " + write_transcripts([Record.from_game(whole[2])]).encode()],
    }


def _archive(records: list[Record]) -> str:
    """GGS archive lines: one game, then a synchro pair."""
    pair = [Record.from_game(records[0].game(), Synchro="1.1"),
            Record.from_game(records[1].game(), Synchro="1.2")]
    return "1 " + write_ggf(records[:1]) + write_ggf(pair)


def _problem(game: Any, plies: int) -> Record:
    """An Edax problem: the position after ``plies`` moves, its moves scored."""
    position = brett.Reversi.from_position(game.start_position())
    for move in game.move_stack[:plies]:
        position.push(move)
    problem = Record("reversi", position.position())
    for number, move in enumerate(position.legal_moves):
        problem.root.add(str(move), score=f"{10 - 4 * number:+d}")
    return problem


def _wthor(games: list[Any], **headers: str) -> bytes:
    """An archive with its name tables: ``.wtb``, ``.JOU`` and ``.TRN`` bytes
    joined by :data:`SEPARATOR`."""
    with tempfile.TemporaryDirectory() as folder:
        paths = [Path(folder, name) for name in ("a.wtb", "a.JOU", "a.TRN")]
        write_wthor([Record.from_game(g, **headers) for g in games], *paths)
        return SEPARATOR.join(path.read_bytes() for path in paths)


SEPARATOR = b"--table--"
"""Between the parts of a WTHOR sample (archive, players, tournaments)."""


# ------------------------------------------------------------------ the checks
def check_json(data: bytes) -> None:
    """brett.load (a game, a half-made move included) and brett.load_record (a
    record); the first error when neither reads."""
    errors = []
    for read in (load, load_record):
        try:
            value: Any = read(data)
        except brett.BrettError as exc:
            errors.append(exc)
            continue
        assert read(dump(value)) == value
    if len(errors) == 2:
        raise errors[0]


def in_notation(records: list[Any], style: str) -> list[Any]:
    """The records as a writer of ``style`` ("sgf", "ggf") gives them back: each
    result in that format's notation (brett.records.result.result_text), the
    rest as it was."""
    out = []
    for record in records:
        if isinstance(record, Record) and "Result" in record.headers:
            record = copy.deepcopy(record)
            record.headers["Result"] = result_text(record.headers["Result"], style)
        out.append(record)
    return out


def check_sgf(data: bytes) -> None:
    records = read_sgf(data.decode("latin-1"))
    assert read_sgf(write_sgf(records)) == in_notation(records, "sgf")


def check_ggf(data: bytes) -> None:
    records = read_ggf(data)
    assert read_ggf(write_ggf(records)) == in_notation(records, "ggf")


def check_ggs(data: bytes) -> None:
    """GGF read from a file object as a stream (archive lines, synchro pairs)."""
    records = list(iter_ggf(io.BytesIO(data)))
    assert list(iter_ggf(io.StringIO(write_ggf(records)))) == in_notation(records, "ggf")


def check_obf(data: bytes) -> None:
    records = read_obf(data.decode("utf-8", "replace"))
    assert read_obf(write_obf(records)) == records


def check_positions(data: bytes) -> None:
    records = read_positions(data.decode("utf-8", "replace"))
    assert read_positions(write_positions(records)) == records


def check_transcript(data: bytes) -> None:
    records = read_transcripts(data.decode("utf-8", "replace"))
    assert read_transcripts(write_transcripts(records)) == records


def check_wthor(data: bytes) -> None:
    """WTHOR keeps the moves and the scores; names lose what the writer's table
    width cuts (19 bytes and a NUL)."""
    parts = data.split(SEPARATOR)
    files = _folder()
    paths = [files / name for name in ("in.wtb", "in.JOU", "in.TRN")][:len(parts)]
    for path, part in zip(paths, parts, strict=False):
        path.write_bytes(part)
    records = list(read_wthor(*paths))
    write_wthor(records, files / "out.wtb")
    again = list(read_wthor(files / "out.wtb"))
    assert [r.game() for r in again] == [r.game() for r in records]
    assert [(r.headers["BlackScore"], r.headers["TheoreticalScore"]) for r in again] == \
        [(r.headers["BlackScore"], r.headers["TheoreticalScore"]) for r in records]


def check_formats(data: bytes) -> None:
    """``<ext> <bytes>``: a file of that extension read through read_records,
    written back and read again."""
    ext, _, body = data.partition(b" ")
    files = _folder()
    path = files / f"in.{ext.decode('latin-1')[:8]}"
    try:
        path.write_bytes(body)
    except (OSError, ValueError):  # a name the file system refuses
        return
    records = read_records(path)
    write_records(records, files / f"out{path.suffix}")
    style = {".sgf": "sgf", ".ggf": "ggf"}.get(path.suffix.lower())
    assert read_records(files / f"out{path.suffix}") == \
        (in_notation(records, style) if style else records)


@functools.cache
def _folder() -> Path:
    return Path(tempfile.mkdtemp(prefix="brett-fuzz-"))


CHECKS: dict[str, Callable[[bytes], None]] = {
    "json": check_json, "sgf": check_sgf, "ggf": check_ggf, "wthor": check_wthor,
    "formats": check_formats, "ggs": check_ggs, "obf": check_obf, "positions": check_positions,
    "transcript": check_transcript,
}


def run(name: str, data: bytes) -> None:
    """One input through one check: a BrettError is an answer, anything else a
    defect (raised)."""
    with contextlib.suppress(brett.BrettError):
        CHECKS[name](data)


# ------------------------------------------------------------------ mutations
TOKENS = [b"(", b")", b";", b"[", b"]", b"\\", b"{", b"}", b"\"", b",", b":", b"/", b" ",
          b"\n", b"\r", b"\0", b"\xff", "²".encode(), b"0", b"9" * 30, b"-1", b"B[", b"W[",
          b"C[", b"GM[", b"BO[", b"SZ[", b"PA", b"pass", b"MV[", b"\"moves\"", b"\"nodes\"",
          b"1 ", b"2 ", b"TY[8a]", b"TY[s8]", b"RE[-2.00:r]", b"KM[", b"@@", b"%", b"#", b":+",
          b"; moves ", b"reversi ", b"X;", b"\\n",
          b"[0, \"a1\", \"\", {}]", b"null", b"true", b"1e999", b"\"\\u0000\""]
"""Bytes that mean something to one of the readers."""


def mutate(rng: random.Random, data: bytes, others: list[bytes]) -> bytes:
    """``data`` after one to four random edits: a bit flipped, bytes inserted
    (random or a token) or overwritten, a range deleted, repeated, spliced in
    from another sample of the format, or the end cut off."""
    buffer = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        where = rng.randrange(len(buffer) + 1)
        end = min(len(buffer), where + rng.choice((1, 2, 8, 64)))
        edit = rng.randrange(8)
        if edit == 0 and where < len(buffer):
            buffer[where] ^= 1 << rng.randrange(8)
        elif edit == 7:  # the length kept (a binary file's layout checks pass)
            buffer[where:end] = bytes(rng.randrange(256) for _ in range(end - where))
        elif edit == 1:
            buffer[where:where] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 4)))
        elif edit == 2:
            buffer[where:where] = rng.choice(TOKENS)
        elif edit == 3:
            del buffer[where:end]
        elif edit == 4:
            buffer[where:where] = buffer[where:end] * rng.choice((2, 3, 50))
        elif edit == 5:
            other = rng.choice(others)
            start = rng.randrange(len(other) + 1)
            buffer[where:end] = other[start:start + rng.choice((4, 32, 256))]
        else:
            del buffer[where:]
    return bytes(buffer)


def backend_from_environment() -> str:
    """The core an atheris target runs on: ``BRETT_FUZZ_BACKEND``, else the
    compiled one unless BRETT_NO_EXTENSIONS is set."""
    default = "python" if os.environ.get("BRETT_NO_EXTENSIONS") else "cython"
    return os.environ.get("BRETT_FUZZ_BACKEND", default)
