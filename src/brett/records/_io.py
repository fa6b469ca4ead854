"""What the record readers share: opening a path or a file, reading it in
bounded chunks, cutting a text into its games without holding more than one,
and naming places in it ("line L, column C").

A text reader is a :class:`Splitter` (where one game ends) and a parser of one
game's text; :func:`units` feeds the first the chunks of the source and yields
each game's text with the line and column where it starts, so that a stream of
any length is read with one game and one chunk in memory, and errors name the
place in the whole stream.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
from collections.abc import Iterator
from typing import IO, Any, NamedTuple, Optional, Union

from .._reading import open_reading
from ..errors import InvalidRecordError

PathLike = Union[str, "os.PathLike[str]"]
Source = Union[PathLike, IO[Any]]
"""What a streaming reader reads: a path, or a file open in binary or text mode."""
CHUNK = 2**20
"""Files are read in pieces of this size: devices and pipes announce no size."""
PASSES = frozenset(("", "pa", "pass", "ps", "--", "@@", "@@@@"))
"""How the files of other programs write a pass (lower case): NBoard and GGS
``PA`` and ``pass``, empty values, ``@@`` and ``@@@@`` in move lists."""
_DIGITS = re.compile(r"[0-9]+")
_SPACE = re.compile(r"\s*")


def path_name(path: Any) -> str:
    """``path`` as a string for messages; :class:`InvalidRecordError` if it is
    not a path."""
    try:
        return os.fsdecode(path)
    except TypeError:
        raise InvalidRecordError(f"a file is named by a path, not {path!r:.60}") from None


def source_name(source: Any) -> str:
    """A source's name for messages: its path, or the name of the open file."""
    if hasattr(source, "read"):
        name = getattr(source, "name", None)
        return os.fsdecode(name) if isinstance(name, (str, bytes)) else "<stream>"
    return path_name(source)


@contextlib.contextmanager
def open_binary(source: Source, what: str) -> Iterator[IO[bytes]]:
    """``source`` as a binary file: a path is opened (and closed after), an open
    binary file is used as it is."""
    if hasattr(source, "read"):
        if isinstance(source, io.TextIOBase):
            raise InvalidRecordError(f"a {what} file is read in binary mode, not as text")
        yield source  # type: ignore[misc]
        return
    name = path_name(source)
    try:
        handle = open_reading(source)
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the name
        raise InvalidRecordError(f"cannot read the {what} file {name}: {exc}") from None
    with handle:
        yield handle


@contextlib.contextmanager
def open_text(source: Source, what: str) -> Iterator[IO[str]]:
    """``source`` as text: UTF-8 (undecodable bytes replaced) with universal
    newlines, decoded chunk by chunk; an open text file is used as it is."""
    if isinstance(source, io.TextIOBase):
        yield source  # type: ignore[misc]
        return
    with open_binary(source, what) as binary:
        text = io.TextIOWrapper(binary, encoding="utf-8", errors="replace",  # type: ignore[type-var]
                                newline=None)
        try:
            yield text
        finally:
            text.detach()  # the caller's file stays open


def read_file(path: PathLike, limit: int, what: str) -> bytes:
    """The bytes of a file, a device or a pipe, read in chunks: an
    :class:`InvalidRecordError` instead of more than ``limit`` bytes (a regular
    file's size is checked before reading)."""
    name = path_name(path)
    chunks: list[bytes] = []
    size = 0
    with open_binary(path, what) as handle:
        try:
            if os.fstat(handle.fileno()).st_size > limit:  # 0 for devices and pipes
                size = limit + 1
            while size <= limit and (chunk := handle.read(min(CHUNK, limit + 1 - size))):
                chunks.append(chunk)
                size += len(chunk)
        except OSError as exc:
            raise InvalidRecordError(f"cannot read the {what} file {name}: {exc}") from None
    if size > limit:
        raise InvalidRecordError(f"{name}: more than {limit:,} bytes: a {what} file is "
                                 f"at most {limit // 2**20} MiB")
    return b"".join(chunks)


def ascii_int(text: str, digits: int) -> Optional[int]:
    """``text`` as a number when it is 1 to ``digits`` ASCII digits, else None
    (``str.isdigit`` also takes digits such as '²' that ``int`` refuses, and
    ``int`` refuses thousands of digits)."""
    return int(text) if len(text) <= digits and _DIGITS.fullmatch(text) else None


def text_position(text: str, offset: int) -> str:
    """``"line L, column C"`` (both from 1) of ``offset`` in ``text``: where the
    readers of text formats say an error is."""
    return Where(text)(offset)


class Where:
    """Names offsets of ``text`` as "line L, column C" in the whole stream, where
    ``text[base]`` is at ``line``, ``column``."""

    __slots__ = ("base", "column", "line", "prefix", "text")

    def __init__(self, text: str, base: int = 0, line: int = 1, column: int = 1,
                 prefix: str = "") -> None:
        self.text, self.base, self.line, self.column = text, base, line, column
        self.prefix = prefix

    def __call__(self, offset: int) -> str:
        lines = self.text.count("\n", self.base, offset)
        column = offset - self.text.rfind("\n", self.base, offset) if lines else \
            self.column + offset - self.base
        return f"line {self.line + lines}, column {column}"

    def error(self, offset: int, message: str) -> InvalidRecordError:
        return InvalidRecordError(f"{self.prefix}{self(offset)}: {message}")


class Unit(NamedTuple):
    """One game: ``text[begin:end]`` (the text is not copied), with where it
    starts."""

    text: str
    begin: int
    end: int
    where: Where
    lead: str
    """The text between the game before and this one, spaces dropped (an
    archive line's count)."""


class Junk(Exception):
    """Raised by a :class:`Splitter` for text that may not stand between games."""

    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset, self.message = offset, message


class Splitter:
    """Where games begin and end in a text format.

    ``start(buf, i)`` is the offset of the next game's first character at or
    after ``i``, or -1 when ``buf`` ends first; it raises :class:`Junk` for text
    that may not come between games, and may set ``consumed`` (the end of the
    text it has taken in, which need not be kept).  ``end(buf, i, resume,
    depth)`` is ``(offset after the game that starts at i, resume, depth)``, the
    offset -1 when ``buf`` holds only part of the game: scanning then resumes at
    ``resume`` with ``depth`` (the splitter's own state) once more text came.
    ``finish(buf, i)`` checks what is left (``buf[i:]``) at the end of the
    stream."""

    name = "text"
    limit = 16 * 2**20
    consumed = 0

    def start(self, buf: str, i: int) -> int:
        raise NotImplementedError

    def end(self, buf: str, i: int, resume: int, depth: int) -> tuple[int, int, int]:
        raise NotImplementedError

    def finish(self, buf: str, i: int) -> None:
        rest = buf[i:].lstrip()
        if rest:
            raise Junk(len(buf) - len(rest), f"text outside a game ({rest[:20]!r})")


def units(stream: Optional[IO[str]], splitter: Splitter, prefix: str = "",
          text: str = "") -> Iterator[Unit]:
    """The games of ``stream`` (or of ``text``, whole) one by one, each at most
    ``splitter.limit`` characters: the text is read in chunks, and what is cut
    off is dropped.  A game still open at the end is given as it is (its
    parser names the first thing wrong in it)."""
    buf, at, line, column = text, 0, 1, 1  # buf[at:] is unread; line, column of buf[at]
    first = True

    def more() -> str:
        nonlocal first
        chunk = stream.read(CHUNK) if stream is not None else ""
        if first and chunk.startswith("\ufeff"):
            chunk = chunk[1:]
        first = False
        return chunk

    if buf.startswith("\ufeff"):
        at = column = 1
    while True:
        splitter.consumed = at
        try:
            begin = splitter.start(buf, at)
            if begin < 0:
                chunk = more()
                if not chunk:
                    splitter.finish(buf, max(at, splitter.consumed))
                    return
                keep = _SPACE.match(buf, max(at, splitter.consumed)).end()  # type: ignore[union-attr]
                line, column = _advance(buf, at, keep, line, column)
                buf, at = buf[keep:] + chunk, 0
                continue
        except Junk as junk:
            raise Where(buf, at, line, column, prefix).error(junk.offset, junk.message) from None
        lead = _SPACE.sub("", buf[at:begin])
        line, column = _advance(buf, at, begin, line, column)
        finish, resume, depth = splitter.end(buf, begin, begin, 0)
        while finish < 0:
            if len(buf) - begin > splitter.limit:
                raise Where(buf, begin, line, column, prefix).error(
                    begin, f"more than {splitter.limit:,} characters in one {splitter.name}")
            chunk = more()
            if not chunk:
                finish = len(buf)
                break
            buf, resume, begin = buf[begin:] + chunk, resume - begin, 0
            finish, resume, depth = splitter.end(buf, begin, resume, depth)
        if finish - begin > splitter.limit:
            raise Where(buf, begin, line, column, prefix).error(
                begin, f"more than {splitter.limit:,} characters in one {splitter.name}")
        yield Unit(buf, begin, finish, Where(buf, begin, line, column, prefix), lead)
        line, column = _advance(buf, begin, finish, line, column)
        at = finish


def bracketed(buf: str, at: int, state: int, run: re.Pattern[str], opening: str, quote: str,
              inside: re.Pattern[str]) -> tuple[int, int, int]:
    """``Splitter.end`` for formats of nested brackets and quoted values (SGF,
    JSON): ``run`` matches text up to the next bracket outside values, ``inside``
    the rest of a value up to its closing ``quote``-mate.  ``state`` is twice
    the depth, plus one inside a value (so a long value is scanned once however
    many chunks it spans)."""
    depth, quoted = divmod(state, 2)
    while True:
        if quoted:
            at = inside.match(buf, at).end()  # type: ignore[union-attr]
            if at >= len(buf) or (at + 1 >= len(buf) and buf[at] == "\\"):
                return -1, at, 2 * depth + 1
            at, quoted = at + 1, 0  # past the value's closing mark
        at = run.match(buf, at).end()  # type: ignore[union-attr]
        if at >= len(buf):
            return -1, at, 2 * depth
        if buf[at] == quote:  # a value not read to its end
            at, quoted = at + 1, 1
            continue
        depth += 1 if buf[at] in opening else -1
        at += 1
        if depth == 0:
            return at, 0, 0


def _advance(buf: str, start: int, end: int, line: int, column: int) -> tuple[int, int]:
    """The line and column of ``buf[end]`` given those of ``buf[start]``."""
    lines = buf.count("\n", start, end)
    if lines:
        return line + lines, end - buf.rfind("\n", start, end)
    return line, column + end - start


def lines(stream: IO[str], limit: int, what: str, prefix: str = "") -> Iterator[tuple[int, str]]:
    """The numbered lines of a line-based format, each at most ``limit``
    characters (read so: a line without end costs no more)."""
    number = 0
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        number += 1
        if len(line) > limit and not line.endswith("\n"):
            raise InvalidRecordError(f"{prefix}line {number}: more than {limit:,} characters "
                                     f"in a {what} line")
        if number == 1 and line.startswith("\ufeff"):
            line = line[1:]
        yield number, line.rstrip("\n")


__all__ = [
    "CHUNK",
    "Junk",
    "PathLike",
    "Source",
    "Splitter",
    "Unit",
    "Where",
    "ascii_int",
    "lines",
    "open_binary",
    "open_text",
    "path_name",
    "read_file",
    "source_name",
    "text_position",
    "units",
]
