"""Record files by format: ``read_records(path)`` and ``write_records(records, path)``
pick the format from the file's extension (or ``fmt``): ``.json`` (brett's own,
every game), ``.sgf`` (Reversi, Phutball, Focus), ``.ggf`` (Othello) and ``.wtb``
(WTHOR, with the ``.JOU`` / ``.TRN`` name tables when given or found beside it:
``<name>.JOU`` first, then ``WTHOR.JOU``).

A JSON file holds one record object or a list of them.  Files, devices and pipes
are read in chunks up to the format's limit; every record is replayed as it is
read, so the first error ends the reading.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Optional

from .errors import InvalidRecordError
from .record import PathLike, Record, path_name, read_file, text_position
from .records import MAX_RECORD, record_from_dict, to_dict

FORMATS = {"json": "JSON", "sgf": "SGF", "ggf": "GGF", "wtb": "WTHOR"}
_JSON_SPACE = re.compile(r"[ \t\n\r]*")


def format_of(path: PathLike, fmt: Optional[str] = None) -> str:
    """``fmt`` if given, else the format the file's extension names."""
    if not isinstance(fmt, (str, type(None))):
        raise InvalidRecordError(f"a record format is a name, not {fmt!r:.40}")
    name = (fmt or Path(path_name(path)).suffix.lstrip(".")).lower()
    if name == "wthor":
        name = "wtb"
    if name not in FORMATS:
        known = ", ".join(f".{k}" for k in FORMATS)
        raise InvalidRecordError(f"{path_name(path)}: unknown record format {name!r:.20}: "
                                 f"expected {known} (or --from / --to)")
    return name


def _tables(path: PathLike, jou: Optional[PathLike], trn: Optional[PathLike],
            reading: bool) -> tuple[Optional[Path], Optional[Path]]:
    """The WTHOR name tables: the given ones; else, when reading, ``<name>.JOU`` /
    ``<name>.TRN`` beside the archive, or the federation's ``WTHOR.JOU`` /
    ``WTHOR.TRN`` there, when present."""
    archive = Path(path_name(path))
    found: list[Optional[Path]] = []
    for given, suffix in ((jou, ".JOU"), (trn, ".TRN")):
        choice = Path(path_name(given)) if given is not None else None
        if choice is None and reading:
            for candidate in (archive.with_suffix(suffix), archive.parent / f"WTHOR{suffix}"):
                if candidate.is_file():
                    choice = candidate
                    break
        found.append(choice)
    return found[0], found[1]


def _text(path: PathLike, kind: str) -> str:
    """The text of a file in a text format, at most the format's limit in bytes,
    with universal newlines (as ``open`` in text mode gives them)."""
    limit = MAX_RECORD if kind == "json" else getattr(_module(kind), f"MAX_{kind.upper()}")
    text = read_file(path, limit, FORMATS[kind]).decode("utf-8", errors="replace")
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def _module(fmt: str) -> Any:
    try:
        return importlib.import_module(f"brett.{fmt}")
    except ImportError as exc:  # pragma: no cover - every format ships with brett
        raise InvalidRecordError(f"the {FORMATS[fmt]} format is not available: {exc}") from None


def read_records(path: PathLike, fmt: Optional[str] = None, jou: Optional[PathLike] = None,
                 trn: Optional[PathLike] = None) -> list[Record]:
    """Every record of a file (all checked before any is returned)."""
    kind = format_of(path, fmt)
    if kind == "wtb":
        return list(_module("wthor").read_wthor(path, *_tables(path, jou, trn, True)))
    text = _text(path, kind)
    try:
        if kind == "json":
            return [_json_record(item, number) for number, item in _json_items(text)]
        return list(getattr(_module(kind), f"read_{kind}")(text))
    except InvalidRecordError as exc:
        raise InvalidRecordError(f"{path_name(path)}: {exc}") from None


def _json_record(item: Any, number: int) -> Record:
    try:
        return record_from_dict(item)
    except InvalidRecordError as exc:
        raise InvalidRecordError(f"record {number}: {exc}") from None


def _json_items(text: str) -> Iterator[tuple[int, Any]]:
    """The numbered records of a JSON text (one object, or a list of them), each
    decoded only when the one before it has been read: the first error ends the
    reading."""
    decoder = json.JSONDecoder()
    at = _json_space(text, 0)
    if not text.startswith("[", at):
        yield 1, _json_value(decoder, text, at, True)[0]
        return
    at = _json_space(text, at + 1)
    number = 0
    while not text.startswith("]", at):
        number += 1
        item, at = _json_value(decoder, text, at, False)
        yield number, item
        if text.startswith(",", at):
            at = _json_space(text, at + 1)
            if text.startswith("]", at):
                raise InvalidRecordError(f"not valid JSON: {text_position(text, at)}: "
                                         f"a record expected after ','")
        elif not text.startswith("]", at):
            raise InvalidRecordError(f"not valid JSON: {text_position(text, at)}: expected "
                                     f"',' or ']' after record {number}")
    at = _json_space(text, at + 1)
    if at < len(text):
        raise InvalidRecordError(f"not valid JSON: {text_position(text, at)}: extra data")


def _json_value(decoder: json.JSONDecoder, text: str, at: int, whole: bool) -> tuple[Any, int]:
    """One JSON value at ``at`` (and the offset after it and its spaces); with
    ``whole`` it must end the text."""
    try:
        value, end = decoder.raw_decode(text, at)
    except (ValueError, RecursionError) as exc:
        raise InvalidRecordError(f"not valid JSON: {exc}") from None
    end = _json_space(text, end)
    if whole and end < len(text):
        raise InvalidRecordError(f"not valid JSON: {text_position(text, end)}: extra data")
    return value, end


def _json_space(text: str, at: int) -> int:
    match = _JSON_SPACE.match(text, at)
    return match.end() if match else at


def write_records(records: Iterable[Record], path: PathLike, fmt: Optional[str] = None,
                  jou: Optional[PathLike] = None, trn: Optional[PathLike] = None) -> None:
    """Write ``records`` in the file's format (the file is written only once
    every record converted)."""
    kind = format_of(path, fmt)
    records = list(records)
    if kind == "wtb":
        _module("wthor").write_wthor(records, path, *_tables(path, jou, trn, False))
        return
    if kind == "json":
        items = [to_dict(r) for r in records]
        text = json.dumps(items[0] if len(items) == 1 else items, indent=1)
    else:
        text = getattr(_module(kind), f"write_{kind}")(records)
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the name
        raise InvalidRecordError(f"cannot write {path_name(path)}: {exc}") from None


__all__ = ["FORMATS", "format_of", "read_records", "write_records"]
