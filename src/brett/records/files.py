"""Record files by format: :func:`read`, :func:`stream` and :func:`write` pick
the format from the file's extension (or ``fmt``): ``.json`` (brett's own, every
game), ``.sgf`` (Reversi, Phutball, Focus), ``.ggf`` (Othello, GGS archives
too), ``.wtb`` (WTHOR, with the ``.JOU`` / ``.TRN`` name tables when given or
found beside it: ``<name>.JOU`` first, then ``WTHOR.JOU``), ``.obf`` (Edax's
problems: a position and the exact score of its moves), ``.pos`` (a position
list, every game) and ``.txt`` (Othello transcripts such as ``f5d6c3``).

Every reader streams: a file, a device or a pipe is read in chunks and each
record is replayed as it is read, so the first error ends the reading and
memory holds one record however long the file.  Writing streams too.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Optional

from .._files import written_whole
from ..errors import BrettError, InvalidRecordError
from ._io import PathLike, Source, path_name, source_name
from .record import Record

FORMATS = {"json": "JSON", "sgf": "SGF", "ggf": "GGF", "wtb": "WTHOR", "obf": "OBF",
           "pos": "position list", "txt": "transcript"}
"""Each format's extension and name."""
ALIASES = {"wthor": "wtb", "positions": "pos", "transcript": "txt", "transcripts": "txt"}
# format -> (module, its streaming reader, its writer of text pieces)
_TEXT = {"json": ("json", "iter_json", "json_texts"), "sgf": ("sgf", "iter_sgf", "sgf_texts"),
         "ggf": ("ggf", "iter_ggf", "ggf_lines"), "obf": ("obf", "iter_obf", "obf_lines"),
         "pos": ("positions", "iter_positions", "position_lines"),
         "txt": ("transcript", "iter_transcripts", "transcript_lines")}


def format_of(path: Any, fmt: Optional[str] = None) -> str:
    """``fmt`` if given, else the format the file's extension names."""
    if not isinstance(fmt, (str, type(None))):
        raise InvalidRecordError(f"a record format is a name, not {fmt!r:.40}")
    name = (fmt or Path(source_name(path)).suffix.lstrip(".")).lower()
    name = ALIASES.get(name, name)
    if name not in FORMATS:
        known = ", ".join(f".{k}" for k in FORMATS)
        raise InvalidRecordError(f"{source_name(path)}: unknown record format {name!r:.20}: "
                                 f"expected {known} (or --from / --to)")
    return name


def _tables(path: Any, jou: Optional[PathLike], trn: Optional[PathLike],
            reading: bool) -> tuple[Optional[Path], Optional[Path]]:
    """The WTHOR name tables: the given ones; else, when reading a file by its
    path, ``<name>.JOU`` / ``<name>.TRN`` beside the archive, or the federation's
    ``WTHOR.JOU`` / ``WTHOR.TRN`` there, when present."""
    found: list[Optional[Path]] = []
    for given, suffix in ((jou, ".JOU"), (trn, ".TRN")):
        choice = Path(path_name(given)) if given is not None else None
        if choice is None and reading and not hasattr(path, "read"):
            archive = Path(path_name(path))
            for candidate in (archive.with_suffix(suffix), archive.parent / f"WTHOR{suffix}"):
                if candidate.is_file():
                    choice = candidate
                    break
        found.append(choice)
    return found[0], found[1]


def _module(name: str) -> Any:
    return importlib.import_module(f"brett.records.{name}")


def stream(source: Source, fmt: Optional[str] = None, jou: Optional[PathLike] = None,
           trn: Optional[PathLike] = None) -> Iterator[Record]:
    """The records of a file (a path, or an open file with ``fmt``), one by one,
    each replayed as it is read."""
    kind = format_of(source, fmt)
    if kind == "wtb":
        return _module("wthor").read_wthor(source, *_tables(source, jou, trn, True))  # type: ignore[no-any-return]
    module, reader, _ = _TEXT[kind]
    return getattr(_module(module), reader)(source)  # type: ignore[no-any-return]


def read(source: Source, fmt: Optional[str] = None, jou: Optional[PathLike] = None,
         trn: Optional[PathLike] = None) -> list[Record]:
    """Every record of a file (all read and checked before any is returned)."""
    return list(stream(source, fmt, jou, trn))


def write(records: Iterable[Record], path: PathLike, fmt: Optional[str] = None,
          jou: Optional[PathLike] = None, trn: Optional[PathLike] = None) -> int:
    """Write ``records`` in the file's format, whole or not at all: into a temporary
    file beside it, renamed over it once every record is written (a pipe or a
    device is written as the records come); the number written."""
    return _write(records, path, fmt, jou, trn, whole=True)


def write_as_they_come(records: Iterable[Record], path: PathLike, fmt: Optional[str] = None,
                       jou: Optional[PathLike] = None, trn: Optional[PathLike] = None) -> int:
    """:func:`write` straight into ``path``, for a file that is itself temporary
    (``brett convert`` renames an archive and its name tables together)."""
    return _write(records, path, fmt, jou, trn, whole=False)


def _write(records: Iterable[Record], path: PathLike, fmt: Optional[str],
           jou: Optional[PathLike], trn: Optional[PathLike], whole: bool) -> int:
    kind = format_of(path, fmt)
    if kind == "wtb":
        tables = _tables(path, jou, trn, False)
        return _module("wthor").write_wthor_file(records, path, *tables, whole=whole)  # type: ignore[no-any-return]
    counted = _Counter(records)
    try:
        with (written_whole(path_name(path)) if whole else
              contextlib.nullcontext(path_name(path))) as target, \
                open(target, "w", encoding="utf-8", newline="\n") as handle:
            for piece in _pieces(counted, kind):
                handle.write(piece)
    except BrettError:
        raise
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the name
        raise InvalidRecordError(f"cannot write {path_name(path)}: {exc}") from None
    return counted.count


def _pieces(records: Iterable[Record], kind: str) -> Iterator[str]:
    """The text of ``records`` in the text format ``kind``, piece by piece."""
    module, _, writer = _TEXT[kind]
    return getattr(_module(module), writer)(records)  # type: ignore[no-any-return]


TEXT_FORMATS = tuple(_TEXT)
"""The formats whose records are text (all but WTHOR's binary archives)."""


def to_text(records: Iterable[Record], fmt: str) -> str:
    """The text of ``records`` in the text format ``fmt`` (what :func:`write` would
    write in a file of that format)."""
    kind = format_of("", fmt)
    if kind not in _TEXT:
        raise InvalidRecordError(f"{FORMATS[kind]} is a binary format, not text")
    return "".join(_pieces(records, kind))


def from_text(text: str, fmt: Optional[str] = None) -> Iterator[Record]:
    """The records of a text in the format ``fmt`` (guessed by :func:`guess_format`
    when not given), one by one."""
    if not isinstance(text, str):
        raise InvalidRecordError(f"a record text is a string, not {type(text).__name__}")
    kind = format_of("", fmt) if fmt is not None else guess_format(text)
    if kind not in _TEXT:
        raise InvalidRecordError(f"{FORMATS[kind]} is a binary format, not text")
    return stream(_Text(text), kind)


class _Text(io.StringIO):
    """A record text as a file, named in messages as what it is (not ``<stream>``)."""

    name = "the record text"


def guess_format(text: str) -> str:
    """The text format a record text is in, by its first characters: JSON (an
    object or a list), GGF (an Othello game or a GGS archive line), SGF;
    the line formats (OBF, position lists, transcripts) are not guessed."""
    head = text.lstrip()[:4096]
    if head[:1] in ("{", "["):
        return "json"
    if _ARCHIVE_LINE.match(head) or (head.startswith("(") and "GM[Othello]" in head):
        return "ggf"
    if head.startswith("("):
        return "sgf"
    raise InvalidRecordError("cannot tell the record's format: name it (JSON, SGF and GGF "
                             f"are recognised; {', '.join(sorted(_TEXT))} can be named)")


_ARCHIVE_LINE = re.compile(r"\d+\s*\(;")


class _Counter:
    """The records as they pass, counted."""

    def __init__(self, records: Iterable[Record]) -> None:
        self.records, self.count = records, 0

    def __iter__(self) -> Iterator[Record]:
        for record in self.records:
            self.count += 1
            yield record


__all__ = ["FORMATS", "TEXT_FORMATS", "format_of", "from_text", "guess_format", "read",
           "stream", "to_text", "write"]
