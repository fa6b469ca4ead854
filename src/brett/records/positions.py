"""Position lists: one position a line, of any game, with annotations (like
chess's EPD).

A line is the game's name, its position string, then annotations, each
``; name value`` (a value with spaces, ``;`` or ``"`` is written in double
quotes, with ``\\"``, ``\\\\``, ``\\n`` and ``\\r`` inside); ``#`` starts a comment line::

    reversi ---------/... x; id "problem 1"; moves "f5;d6"

An annotation is a header of the record, except ``moves``: the main line played
from the position, the moves separated by ``;``.  Writing keeps the main line
(comments, variations and node properties have no place on a line)::

    >>> import brett
    >>> from brett.records import Record
    >>> from brett.records.positions import read_positions, write_positions
    >>> game = brett.Phutball(columns=9, rows=9)
    >>> _ = game.push("e6")
    >>> text = write_positions([Record.from_game(game, id="one")])
    >>> text
    'phutball 9/9/9/9/4*4/9/9/9/9 0 9x9; id one; moves e6\\n'
    >>> read_positions(text)[0].game() == game
    True
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Iterator
from typing import IO, Any

from ..errors import BrettError, InvalidRecordError
from ..game import GAMES
from ._io import Source, lines, open_text, source_name
from .record import Record, check_strings, replay

MAX_LINE = 1 << 20
"""The longest line read (1 MiB: a long game's moves fit)."""
MOVES = "moves"
_TOKEN = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|([^\s;"]+))', re.S)
_UNESCAPE = re.compile(r"\\(.)", re.S)
_BARE = re.compile(r'[^\s;"\\]+')
_ESCAPES = {"n": "\n", "r": "\r"}


def read_positions(text: str) -> list[Record]:
    """The records of a position list (see the module)."""
    if not isinstance(text, str):
        raise InvalidRecordError(f"a position list is text, not {type(text).__name__}")
    return list(_records(io.StringIO(text), ""))


def iter_positions(source: Source) -> Iterator[Record]:
    """The records of a position list file (a path or an open file), one by one."""
    with open_text(source, "position list") as stream:
        yield from _records(stream, f"{source_name(source)}: ")


def _records(stream: IO[str], prefix: str) -> Iterator[Record]:
    for number, line in lines(stream, MAX_LINE, "position list", prefix):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            yield _record(line)
        except InvalidRecordError as exc:
            raise InvalidRecordError(f"{prefix}line {number}: {exc}") from None


def _record(line: str) -> Record:
    name, _, rest = line.strip().partition(" ")
    if name not in GAMES:
        raise InvalidRecordError(f"{name[:20]!r} is not a game: a line starts with one of "
                                 f"{', '.join(sorted(GAMES))}")
    position, *annotations = rest.split(";", 1)
    start = position.strip()
    try:
        GAMES[name].from_position(start)
    except BrettError as exc:
        raise InvalidRecordError(f"bad position: {exc}") from None
    headers = _annotations(annotations[0]) if annotations else {}
    moves = headers.pop(MOVES, None)
    game = replay(GAMES[name], start, moves.split(";") if moves else [])
    return Record(name, start, headers, line=[str(move) for move in game.move_stack])


def _annotations(text: str) -> dict[str, str]:
    """``name value; name value; ...`` (the first ';' already taken)."""
    headers: dict[str, str] = {}
    at = 0
    while at < len(text):
        if not text[at:].strip():
            break
        key, at = _token(text, at, "an annotation's name")
        value, at = _token(text, at, f"the value of {key[:20]!r}")
        if key in headers:
            raise InvalidRecordError(f"annotation {key[:20]!r} twice")
        headers[key] = value
        rest = text.find(";", at)
        if text[at:rest if rest >= 0 else len(text)].strip():
            raise InvalidRecordError(f"after {key[:20]!r}: expected ';' and the next "
                                     f"annotation, not {text[at:at + 20].strip()!r}")
        at = rest + 1 if rest >= 0 else len(text)
    return headers


def _token(text: str, at: int, what: str) -> tuple[str, int]:
    match = _TOKEN.match(text, at)
    if match is None:
        raise InvalidRecordError(f"expected {what} at {text[at:at + 20].strip()!r}")
    if match.group(1) is not None:
        return _UNESCAPE.sub(_unescape, match.group(1)), match.end()
    return match.group(2), match.end()


def write_positions(records: Iterable[Record]) -> str:
    """A position list of ``records`` (see the module)."""
    return "".join(position_lines(records))


def position_lines(records: Iterable[Record]) -> Iterator[str]:
    """One line a record, as they come."""
    for number, record in enumerate(records, 1):
        yield _line(record, number)


def _line(record: Any, number: int) -> str:
    if not isinstance(record, Record):
        raise InvalidRecordError(f"record {number}: {record!r:.40} is not a Record")
    check_strings(record, number)
    if "\n" in record.start or "\r" in record.start or ";" in record.start:
        raise InvalidRecordError(f"record {number}: a position string of one line without ';'")
    if MOVES in record.headers:
        raise InvalidRecordError(f"record {number}: the header {MOVES!r} is the main line "
                                 f"of a position list")
    parts = [f"{record.game_name} {record.start}"]
    for key, value in record.headers.items():
        parts.append(f"; {_quoted(key)} {_quoted(value)}")
    moves = [str(move) for move in record.moves]
    if moves:
        parts.append(f"; {MOVES} {_quoted(';'.join(moves))}")
    return "".join(parts) + "\n"


def _unescape(match: re.Match[str]) -> str:
    return _ESCAPES.get(match.group(1), match.group(1))


def _quoted(text: str) -> str:
    if _BARE.fullmatch(text):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace(
        "\n", "\\n").replace("\r", "\\r") + '"'


__all__ = ["MAX_LINE", "iter_positions", "position_lines", "read_positions", "write_positions"]
