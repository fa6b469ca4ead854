"""Othello transcripts: a game as the string of its moves, as data sets and
websites give them (``f5d6c3d3c4...``), one game a line.

Reading takes squares in either case, with or without spaces or commas between
them, and passes written (``pa``, ``pass``, ``ps``, ``--``, ``@@``, ``@@@@``) or
left out (a pass is then made wherever the side to move cannot move, as in
WTHOR); blank lines and lines starting with ``#`` are skipped.  Games start
from the standard 8x8 position.  Writing gives lower-case squares without
passes, but for passes at the end (``pa``), which no square after them would
tell; a transcript keeps the moves only (the main line, no headers)::

    >>> from brett.records.transcript import read_transcripts, write_transcripts
    >>> [record] = read_transcripts("F5 d6 C3\\n")
    >>> [str(m) for m in record.moves]
    ['f5', 'd6', 'c3']
    >>> write_transcripts([record])
    'f5d6c3\\n'
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Iterator
from typing import IO, Any, Optional

from ..errors import BrettError, IllegalMoveError, InvalidRecordError
from ..reversi import Reversi
from ._io import Source, lines, open_text, source_name
from .record import Record

MAX_LINE = 4096
"""The longest line read (a game is at most 60 squares and its passes)."""
_MOVE = re.compile(r"[\s,]*(?:([a-hA-H][1-8])|(pass|pa|ps|--|@@@@|@@))", re.IGNORECASE)
START = Reversi().position()


def read_transcripts(text: str) -> list[Record]:
    """The games of a transcript text (see the module)."""
    if not isinstance(text, str):
        raise InvalidRecordError(f"a transcript is text, not {type(text).__name__}")
    return list(_records(io.StringIO(text), ""))


def iter_transcripts(source: Source) -> Iterator[Record]:
    """The games of a transcript file (a path or an open file), one by one."""
    with open_text(source, "transcript") as stream:
        yield from _records(stream, f"{source_name(source)}: ")


def _records(stream: IO[str], prefix: str) -> Iterator[Record]:
    game = Reversi()  # one game replays every line (a transcript may be a few moves)
    for number, line in lines(stream, MAX_LINE, "transcript", prefix):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            yield parse_transcript(line, game)
        except InvalidRecordError as exc:
            raise InvalidRecordError(f"{prefix}line {number}: {exc}") from None


def parse_transcript(text: str, game: Optional[Reversi] = None) -> Record:
    """The record of one transcript, each move replayed (passes inserted) on
    ``game`` (a new game at the start when not given; left as it was)."""
    game = game if game is not None else Reversi()
    moves: list[str] = []
    try:
        _play(text, game, moves)
    finally:
        for _ in moves:
            game.pop()
    return Record("reversi", START, {}, line=moves)


def _play(text: str, game: Reversi, moves: list[str]) -> None:
    at, end = 0, len(text.rstrip(" \t,\r\n"))
    while at < end:
        match = _MOVE.match(text, at)
        if match is None:
            raise InvalidRecordError(f"column {at + 1}: {text[at:at + 10].strip()!r} is not "
                                     f"a square a1-h8 or a pass")
        square = match.group(1)
        if square is None:
            moves.append(_push(game, "pass", at))
        else:
            try:
                moves.append(str(game.push(square.lower())))
            except IllegalMoveError:  # the side to move could not move: the pass left out
                moves.append(_push(game, "pass", at, square.lower()))
                moves.append(_push(game, square.lower(), at))
        at = match.end()


def _push(game: Reversi, move: str, at: int, shown: str = "") -> str:
    try:
        return str(game.push(move))
    except BrettError as exc:
        raise InvalidRecordError(f"column {at + 1}: {shown or move} does not replay: "
                                 f"{exc}") from None


def write_transcripts(records: Iterable[Record]) -> str:
    """Transcripts of ``records`` (see the module)."""
    return "".join(transcript_lines(records))


def transcript_lines(records: Iterable[Record]) -> Iterator[str]:
    """One line a record, as they come."""
    for number, record in enumerate(records, 1):
        yield _line(record, number)


def _line(record: Any, number: int) -> str:
    if not isinstance(record, Record) or record.game_name != "reversi" or \
            record.start != START:
        raise InvalidRecordError(f"record {number}: a transcript holds an Othello game from "
                                 f"the standard 8x8 start")
    if not record.root.children:
        raise InvalidRecordError(f"record {number}: a transcript without a move is a blank "
                                 f"line, which readers skip")
    game = record.game()
    assert isinstance(game, Reversi)  # an Othello record, checked above
    moves = game.move_stack
    end = len(moves)
    while end and moves[end - 1].is_pass:  # passes at the end: written, as nothing tells them
        end -= 1
    squares = "".join(str(m) for m in moves[:end] if not m.is_pass)
    return squares + "pa" * (len(moves) - end) + "\n"


__all__ = ["MAX_LINE", "iter_transcripts", "parse_transcript", "read_transcripts",
           "transcript_lines", "write_transcripts"]
