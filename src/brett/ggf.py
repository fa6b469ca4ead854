"""GGF: the Generic Game Format of the GGS server, NBoard and Edax (Othello).

One game is ``(;GM[Othello]PB[..]PW[..]...BO[8 <cells> <side>]B[F5]W[D6//1.25]...;)``;
a file may hold several.  ``BO`` is the start board (the size, the cells row by row
from a1: ``-`` empty, ``*`` black, ``O`` white, then the side to move), a move is
``B[sq]`` or ``W[sq]`` with an optional ``/evaluation/seconds``, ``PA`` a pass::

    >>> import brett
    >>> from brett.ggf import read_ggf, write_ggf
    >>> from brett.record import Record
    >>> game = brett.Reversi()
    >>> for move in ("f5", "d6", "c3"):
    ...     _ = game.push(move)
    >>> text = write_ggf([Record.from_game(game, Black="Ann", White="Bob")])
    >>> text[:60]
    '(;GM[Othello]PB[Ann]PW[Bob]TY[8]BO[8 -------- -------- -----'
    >>> [str(m) for m in read_ggf(text)[0].moves]
    ['f5', 'd6', 'c3']

Headers: ``PB`` Black, ``PW`` White, ``PC`` Place, ``DT`` Date, ``RE`` Result
(Black's disc difference, ``+12.000``, or ``?``), ``TI`` TimeControl, ``TY`` Type,
``RB`` / ``RW`` BlackRating / WhiteRating; any other property is kept under its
GGF name.  ``TY`` is written as the board size unless a ``Type`` header says
otherwise, and read back as a header only when it says more than the size.  A
move's evaluation and time go to its node's ``properties`` (``eval``, ``time``).
GGF holds square boards of 4 to 16 without blocked squares and one line of play:
writing keeps the main line and refuses holes and the octagon.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from typing import Any

from .errors import BrettError, InvalidRecordError
from .record import Node, Record, ascii_int, check_strings, text_position
from .reversi import Reversi

MAX_GGF = 16 * 2**20
"""The most characters :func:`read_ggf` reads (16 MiB, as for SGF: a move costs a
node of a few hundred bytes)."""
HEADERS = {"PB": "Black", "PW": "White", "PC": "Place", "DT": "Date", "RE": "Result",
           "TI": "TimeControl", "TY": "Type", "RB": "BlackRating", "RW": "WhiteRating"}
NAMES = {name: tag for tag, name in HEADERS.items()}
_PROPERTY = re.compile(r"\s*([A-Za-z]+)\[([^\]]*)\]")
_GAME_END = re.compile(r"\s*;\s*\)")
_CELLS = {"-": "-", "*": "x", "O": "o", "o": "o"}


def read_ggf(text: str) -> list[Record]:
    """Every game of a GGF text, replayed and checked: an error names the line and
    column, and nothing is returned unless every game reads."""
    if not isinstance(text, (str, bytes, bytearray)):
        raise InvalidRecordError(f"GGF is text, not {type(text).__name__}")
    if len(text) > MAX_GGF:
        raise InvalidRecordError(f"GGF text of {len(text)} characters: at most {MAX_GGF}")
    if not isinstance(text, str):
        text = bytes(text).decode("latin-1")
    records: list[Record] = []
    at = 0
    while True:
        start = text.find("(;", at)
        if start < 0:
            if text[at:].strip():
                raise InvalidRecordError(f"{text_position(text, at)}: text outside a game "
                                         f"({text[at:at + 20].strip()!r})")
            return records
        if text[at:start].strip():
            raise InvalidRecordError(f"{text_position(text, at)}: text outside a game "
                                     f"({text[at:start].strip()[:20]!r})")
        record, at = _game(text, start + 2)
        records.append(record)


def _game(text: str, at: int) -> tuple[Record, int]:
    """One game from just after its ``(;``, each move replayed as it is read (the
    first error ends the reading): (the record, the offset after ``;)``)."""
    headers: dict[str, str] = {}
    start, game = "", None  # from BO[], which comes before the moves
    root = node = Node()
    while True:
        end = _GAME_END.match(text, at)
        if end:
            break
        prop = _PROPERTY.match(text, at)
        if prop is None:
            reason = "the game never ends with ';)'" if at >= len(text.rstrip()) else \
                "expected a property like PB[name]"
            raise InvalidRecordError(f"{text_position(text, at)}: {reason}")
        name, value = prop.group(1), prop.group(2)
        tag = name.upper()
        if tag in ("B", "W"):
            if game is None:
                raise _error(text, prop.start(1), f"{name}[{value[:20]}]: no BO[] start "
                             f"board before the first move")
            node = _play(game, node, tag, value, text, prop.start(1))
        elif tag == "BO":
            if game is not None:
                raise _error(text, prop.start(1), "a second BO[] start board")
            start = _position(value, prop.start(2), text)
            game = _start(start)
        elif tag == "GM":
            if value.strip().lower() != "othello":
                raise _error(text, prop.start(2), f"GM[{value[:20]}]: brett reads GGF "
                             f"Othello games")
        else:  # a known header by its name, any other property under its own spelling
            headers[HEADERS.get(tag, name)] = value
        at = prop.end()
    if game is None:
        raise _error(text, at, "the game has no BO[] start board")
    if headers.get("Type") == str(game.size):
        del headers["Type"]  # the default the writer puts back: the board size
    return Record("reversi", start, headers, root=root), end.end()


def _error(text: str, offset: int, message: str) -> InvalidRecordError:
    return InvalidRecordError(f"{text_position(text, offset)}: {message}")


def _start(start: str) -> Reversi:
    try:
        return Reversi.from_position(start)
    except BrettError as exc:
        raise InvalidRecordError(f"bad BO[] start board: {exc}") from None


def _play(game: Reversi, node: Node, colour: str, value: str, text: str, offset: int) -> Node:
    """The node of the move ``colour[value]``, played on ``game`` below ``node``."""
    square, properties = _move(value, text, offset)
    player = game.current_player()
    if player != (0 if colour == "B" else 1) and not game.is_over():
        raise _error(text, offset, f"{colour}[{square}] but "
                     f"{'Black' if player == 0 else 'White'} is to move")
    try:
        game.push(square)
    except BrettError as exc:
        raise _error(text, offset, f"{colour}[{square}]: {exc}") from None
    return node.add(sys.intern(square), **properties)


def _move(value: str, text: str, offset: int) -> tuple[str, dict[str, str]]:
    square, *extra = value.split("/")
    if len(extra) > 2:
        raise _error(text, offset, f"{value[:30]!r}: a move is square/evaluation/seconds")
    square = square.strip().lower()
    properties = {key: v.strip() for key, v in zip(("eval", "time"), extra, strict=False)
                  if v.strip()}
    return ("pass" if square == "pa" else square), properties


def _position(value: str, offset: int, text: str) -> str:
    """BO[size cells side] → a brett position string."""
    parts = value.split()
    size = ascii_int(parts[0], 2) if parts else None
    if size is None or not 4 <= size <= 16:
        raise _error(text, offset, f"BO[{value[:30]}]: expected the board size (4 to 16) first")
    cells = "".join(parts[1:-1]) if len(parts) > 2 else ""
    side = parts[-1] if len(parts) > 1 else ""
    if len(cells) != size * size or any(c not in _CELLS for c in cells) or \
            side not in ("*", "O", "o"):
        raise _error(text, offset, f"BO[{value[:30]}...]: expected {size * size} cells of "
                     f"'-', '*', 'O' and the side to move")
    rows = ["".join(_CELLS[c] for c in cells[r * size:(r + 1) * size]) for r in range(size)]
    return "/".join(rows) + (" x" if side == "*" else " o") + ("" if size == 8 else f" n={size}")


def write_ggf(records: Iterable[Record]) -> str:
    """GGF text of Reversi records on square boards without blocked squares (the
    main line of each; GGF has no variations or comments)."""
    return "".join(_write_one(record, number) for number, record in
                   enumerate(records, 1))


def _write_one(record: Any, number: int) -> str:
    if not isinstance(record, Record) or record.game_name != "reversi":
        raise InvalidRecordError(f"record {number}: GGF holds Reversi games only")
    check_strings(record, number)
    game = record.game()
    start = Reversi.from_position(record.start)
    board, mover = start.position().split()[:2]  # the side to move even when it cannot
    if "#" in board:
        raise InvalidRecordError(f"record {number}: GGF has no blocked squares or octagon")
    parts = ["(;GM[Othello]"]
    for name, value in record.headers.items():
        tag = NAMES.get(name, name)
        if not re.fullmatch(r"[A-Za-z]+", tag) or tag.upper() in ("GM", "BO", "B", "W"):
            raise InvalidRecordError(f"record {number}: header {name!r} has no GGF property")
        parts.append(f"{tag}[{_value(value, number)}]")
    if "Type" not in record.headers:
        parts.append(f"TY[{start.size}]")
    cells = " ".join(row.replace("x", "*").replace("o", "O") for row in board.split("/"))
    side = "*" if mover == "x" else "O"
    parts.append(f"BO[{start.size} {cells} {side}]")
    node = record.root
    for move in game.move_stack:
        node = node.children[0]
        colour = "B" if start.current_player() == 0 else "W"
        start.push(move)
        extra = "/".join(_value(node.properties.get(key, ""), number, "/")
                         for key in ("eval", "time"))
        square = "PA" if move.is_pass else str(move).upper()
        parts.append(f"{colour}[{square}{'/' + extra if extra != '/' else ''}]")
    parts.append(";)\n")
    return "".join(parts)


def _value(value: str, number: int, also: str = "") -> str:
    """``value`` as GGF holds it: a value cannot hold ']', a move's evaluation
    or time not '/' either."""
    for mark in "]" + also:
        if mark in value:
            raise InvalidRecordError(f"record {number}: {value[:30]!r}: GGF cannot hold "
                                     f"{mark!r} there")
    return value


__all__ = ["MAX_GGF", "read_ggf", "write_ggf"]
