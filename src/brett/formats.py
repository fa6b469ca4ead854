"""Record files by format: ``read_records(path)`` and ``write_records(records, path)``
pick the format from the file's extension (or ``fmt``): ``.json`` (brett's own,
every game), ``.sgf`` (Reversi, Phutball, Focus), ``.ggf`` (Othello) and ``.wtb``
(WTHOR, with the ``.JOU`` / ``.TRN`` name tables when given or found beside it:
``<name>.JOU`` first, then ``WTHOR.JOU``).

A JSON file holds one record object or a list of them.
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Optional, Union

from .errors import InvalidRecordError
from .record import Record
from .records import MAX_RECORD, record_from_dict, to_dict

PathLike = Union[str, "os.PathLike[str]"]
FORMATS = {"json": "JSON", "sgf": "SGF", "ggf": "GGF", "wtb": "WTHOR"}
MAX_TEXT_FILE = MAX_RECORD


def format_of(path: PathLike, fmt: Optional[str] = None) -> str:
    """``fmt`` if given, else the format the file's extension names."""
    name = (fmt or Path(path).suffix.lstrip(".")).lower()
    if name == "wthor":
        name = "wtb"
    if name not in FORMATS:
        known = ", ".join(f".{k}" for k in FORMATS)
        raise InvalidRecordError(f"{os.fspath(path)}: unknown record format {name!r:.20}: "
                                 f"expected {known} (or --from / --to)")
    return name


def _tables(path: PathLike, jou: Optional[PathLike], trn: Optional[PathLike],
            reading: bool) -> tuple[Optional[Path], Optional[Path]]:
    """The WTHOR name tables: the given ones; else, when reading, ``<name>.JOU`` /
    ``<name>.TRN`` beside the archive, or the federation's ``WTHOR.JOU`` /
    ``WTHOR.TRN`` there, when present."""
    archive = Path(path)
    found: list[Optional[Path]] = []
    for given, suffix in ((jou, ".JOU"), (trn, ".TRN")):
        choice = Path(given) if given is not None else None
        if choice is None and reading:
            for candidate in (archive.with_suffix(suffix), archive.parent / f"WTHOR{suffix}"):
                if candidate.is_file():
                    choice = candidate
                    break
        found.append(choice)
    return found[0], found[1]


def _text(path: PathLike) -> str:
    try:
        size = os.path.getsize(path)
        if size > MAX_TEXT_FILE:
            raise InvalidRecordError(f"{os.fspath(path)}: {size} bytes, at most {MAX_TEXT_FILE}")
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError as exc:
        raise InvalidRecordError(f"cannot read {os.fspath(path)}: {exc}") from None


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
    text = _text(path)
    if kind == "json":
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise InvalidRecordError(f"{os.fspath(path)}: not valid JSON: {exc}") from None
        items = data if isinstance(data, list) else [data]
        records = []
        for number, item in enumerate(items, 1):
            try:
                records.append(record_from_dict(item))
            except InvalidRecordError as exc:
                raise InvalidRecordError(f"{os.fspath(path)}: record {number}: {exc}") from None
        return records
    module = _module(kind)
    try:
        return list(getattr(module, f"read_{kind}")(text))
    except InvalidRecordError as exc:
        raise InvalidRecordError(f"{os.fspath(path)}: {exc}") from None


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
    except OSError as exc:
        raise InvalidRecordError(f"cannot write {os.fspath(path)}: {exc}") from None


__all__ = ["FORMATS", "format_of", "read_records", "write_records"]
