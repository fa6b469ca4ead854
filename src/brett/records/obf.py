"""OBF: Edax's problem files (the FFO endgame suite is written so).

One problem a line: the board's cells from a1 row by row (``-`` empty, ``X``
black, ``O`` white), the side to move, then each move with the exact final disc
difference for the side to move, best first::

    --XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+18; H1:+12;

A problem is a :class:`~brett.records.Record` of the position (its ``start``)
whose root has a child per move, in the file's order, each with its score in
the node property ``score`` (``"+18"``); a ``%`` starts a comment (the
``Comment`` header).  Boards of 4 to 16 squares a side are read (Edax writes
8x8); a pass is ``PS`` (or ``PA``).  Each move is checked to be legal in the
position, and two moves the same are refused::

    >>> from brett.records.obf import read_obf, write_obf
    >>> line = "-" * 27 + "OX------XO" + "-" * 27 + " X; F5:+0; E6:+0;"
    >>> [problem] = read_obf(line)
    >>> [(n.move, n.properties["score"]) for n in problem.root.children]
    [('f5', '+0'), ('e6', '+0')]
    >>> write_obf([problem]) == line + "\\n"
    True
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Iterator
from typing import IO, Any

from ..errors import BrettError, InvalidRecordError
from ..reversi import Reversi
from ._io import PASSES, Source, lines, open_text, source_name
from .record import Node, Record, check_strings

MAX_LINE = 4096
"""The longest problem line read."""
_SCORE = re.compile(r"[+-]?[0-9]{1,3}")
_CELLS = {"-": "-", "X": "x", "x": "x", "*": "x", "O": "o", "o": "o"}


def read_obf(text: str) -> list[Record]:
    """The problems of an OBF text (see the module)."""
    if not isinstance(text, str):
        raise InvalidRecordError(f"OBF is text, not {type(text).__name__}")
    return list(_records(io.StringIO(text), ""))


def iter_obf(source: Source) -> Iterator[Record]:
    """The problems of an OBF file (a path or an open file), one by one."""
    with open_text(source, "OBF") as stream:
        yield from _records(stream, f"{source_name(source)}: ")


def _records(stream: IO[str], prefix: str) -> Iterator[Record]:
    for number, line in lines(stream, MAX_LINE, "OBF", prefix):
        text, _, comment = line.partition("%")
        if not text.strip():
            continue
        try:
            yield _problem(text, comment.strip())
        except InvalidRecordError as exc:
            raise InvalidRecordError(f"{prefix}line {number}: {exc}") from None


def _problem(text: str, comment: str) -> Record:
    board, *moves = text.split(";")
    start = _position(board.strip())
    game = Reversi.from_position(start)
    record = Record("reversi", start, {"Comment": comment} if comment else {})
    seen = set()
    for item in moves:
        if not item.strip():
            continue
        square, colon, score = item.strip().partition(":")
        square = square.strip().lower()
        if not colon or not _SCORE.fullmatch(score.strip()):
            raise InvalidRecordError(f"{item.strip()[:20]!r}: a move is SQUARE:SCORE, "
                                     f"such as G8:+18")
        move = "pass" if square in PASSES else square
        try:
            move = str(game.push(move))
            game.pop()
        except BrettError as exc:
            raise InvalidRecordError(f"{square[:10]}: {exc}") from None
        if move in seen:
            raise InvalidRecordError(f"{move} is scored twice")
        seen.add(move)
        value = int(score.strip())
        node = Node(move, "", {"score": f"{value:+d}"}, [], record.root)
        record.root.children.append(node)
    return record


def _position(board: str) -> str:
    cells, _, side = board.rpartition(" ")
    cells = cells.replace(" ", "")
    size = int(len(cells) ** 0.5)
    if size * size != len(cells) or size not in range(4, 17, 2) or \
            any(c not in _CELLS for c in cells) or side not in ("X", "O", "x", "o", "*"):
        raise InvalidRecordError(f"{board[:30]!r}: expected the cells of a square board "
                                 f"('-', 'X', 'O'), a space and the side to move (X or O)")
    rows = ["".join(_CELLS[c] for c in cells[r * size:(r + 1) * size]) for r in range(size)]
    mover = "o" if side in ("O", "o") else "x"
    return "/".join(rows) + f" {mover}" + ("" if size == 8 else f" n={size}")


def write_obf(records: Iterable[Record]) -> str:
    """OBF text of Reversi problems (see the module)."""
    return "".join(obf_lines(records))


def obf_lines(records: Iterable[Record]) -> Iterator[str]:
    """One line a record: its start position and the root's children with their
    ``score`` property (a child without one is written as a move of the line
    only when it has a score; others cannot be honoured)."""
    for number, record in enumerate(records, 1):
        yield _line(record, number)


def _line(record: Any, number: int) -> str:
    if not isinstance(record, Record) or record.game_name != "reversi":
        raise InvalidRecordError(f"record {number}: OBF holds Reversi positions only")
    check_strings(record, number)
    game = Reversi.from_position(record.start)
    board, mover = game.position().split()[:2]
    if "#" in board or getattr(game, "anti", False):
        raise InvalidRecordError(f"record {number}: OBF has no blocked squares, octagon "
                                 f"or anti-Reversi")
    cells = "".join(board.split("/")).replace("x", "X").replace("o", "O")
    parts = [f"{cells} {mover.upper()};"]
    for node in record.root.children:
        score = node.properties.get("score")
        if score is None or not _SCORE.fullmatch(score) or node.children or \
                node.comment or set(node.properties) != {"score"}:
            raise InvalidRecordError(f"record {number}: OBF holds a position and its moves "
                                     f"each with an exact score, not {node.move!r:.20}")
        square = "PS" if node.move == "pass" else str(node.move).upper()
        parts.append(f" {square}:{int(score):+d};")
    extra = set(record.headers) - {"Comment"}
    if extra:
        raise InvalidRecordError(f"record {number}: OBF has no header {sorted(extra)[0]!r:.30}")
    comment = record.headers.get("Comment", "")
    if "\n" in comment or "\r" in comment:
        raise InvalidRecordError(f"record {number}: an OBF comment is one line")
    return "".join(parts) + (f" % {comment}" if comment else "") + "\n"


__all__ = ["MAX_LINE", "iter_obf", "obf_lines", "read_obf", "write_obf"]
