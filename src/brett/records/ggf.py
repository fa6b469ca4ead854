"""GGF: the Generic Game Format of the GGS server, NBoard and Edax (Othello).

One game is ``(;GM[Othello]PB[..]PW[..]...BO[8 <cells> <side>]B[F5]W[D6//1.25]...;)``;
a file may hold several, and GGS archives put them on lines that begin with
the number of games on the line (``1 (;...;)``, ``2 (;...;)(;...;)`` for the two
games of a synchro match).  ``BO`` is the start board (the size, the cells row
by row from a1: ``-`` empty, ``*`` black, ``O`` white, then the side to move), a
move is ``B[sq]`` or ``W[sq]`` with an optional ``/evaluation/seconds``, ``PA``
a pass::

    >>> import brett
    >>> from brett.records import Record
    >>> from brett.records.ggf import read_ggf, write_ggf
    >>> game = brett.Reversi()
    >>> for move in ("f5", "d6", "c3"):
    ...     _ = game.push(move)
    >>> text = write_ggf([Record.from_game(game, Black="Ann", White="Bob")])
    >>> text[:60]
    '(;GM[Othello]PB[Ann]PW[Bob]TY[8]BO[8 -------- -------- -----'
    >>> [str(m) for m in read_ggf(text)[0].moves]
    ['f5', 'd6', 'c3']

Headers: ``PB`` Black, ``PW`` White, ``PC`` Place, ``DT`` Date, ``RE`` Result
(Black's disc difference, ``+12.000``, or ``?``, with flags such as ``:r``; see
:mod:`brett.records.result`), ``TI`` TimeControl, ``TY`` Type, ``RB`` / ``RW``
BlackRating / WhiteRating; any other property (``KM`` the komi, ``KB`` / ``KW``
the komi bids) is kept under its GGF name.  The two games of a synchro archive
line get a ``Synchro`` header, ``"<pair>.1"`` and ``"<pair>.2"``, and are
written back as one line.  ``TY`` is written as the board size unless a
``Type`` header says otherwise, and read back as a header only when it says
more than the size; its variants are checked against the game (the size
against ``BO``, ``a`` makes an anti-Reversi game).  A move's evaluation and
time go to its node's ``properties`` (``eval``, ``time``).  GGF holds square
boards of 4 to 16 without blocked squares and one line of play: writing keeps
the main line and refuses holes and the octagon.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator
from typing import IO, Any, NamedTuple, Optional

from ..errors import BrettError, InvalidRecordError
from ..reversi import Reversi
from ._io import PASSES, Junk, Source, Splitter, Where, ascii_int, open_text, source_name, units
from .record import Node, Record, check_strings
from .result import result_text

MAX_GGF = 16 * 2**20
"""The most characters :func:`read_ggf` reads (16 MiB, as for SGF: a move costs a
node of a few hundred bytes), and the longest game :func:`iter_ggf` reads."""
HEADERS = {"PB": "Black", "PW": "White", "PC": "Place", "DT": "Date", "RE": "Result",
           "TI": "TimeControl", "TY": "Type", "RB": "BlackRating", "RW": "WhiteRating"}
NAMES = {name: tag for tag, name in HEADERS.items()}
SYNCHRO = "Synchro"
"""The header that links the two games of a synchro archive line."""
_PROPERTY = re.compile(r"\s*([A-Za-z]+)\[([^\]]*)\]")
_GAME_END = re.compile(r"\s*;\s*\)")
_CELLS = {"-": "-", "*": "x", "O": "o", "o": "o"}
_TYPE = re.compile(r"([0-9]{1,2})|r([0-9]{0,2})|([ska])")
_SYNCHRO = re.compile(r"([0-9]{1,9})\.([12])")


class GgfType(NamedTuple):
    """A GGF ``TY``: the board size (None when not given), random start discs
    (None: the standard start; 0 when ``r`` gives no count), synchro, komi and
    anti."""

    size: Optional[int]
    random: Optional[int]
    synchro: bool
    komi: bool
    anti: bool


def parse_type(text: str) -> GgfType:
    """``TY[s8r18]`` and friends as a :class:`GgfType`; :class:`InvalidRecordError`
    for what brett cannot honour."""
    size = random = None
    flags = set()
    at, value = 0, text.strip()
    while at < len(value):
        token = _TYPE.match(value, at)
        if token is None or (token.group(1) and size is not None) or \
                (token.group(2) is not None and random is not None):
            raise InvalidRecordError(f"TY[{text[:20]}]: brett knows the GGF types of a "
                                     f"size, r[N] (random start), s (synchro), k (komi) "
                                     f"and a (anti)")
        if token.group(1):
            size = int(token.group(1))
            if size not in range(4, 17, 2):
                raise InvalidRecordError(f"TY[{text[:20]}]: GGF types of a size, r[N] (random "
                                         f"start), s, k and a: the size is even, 4 to 16")
        elif token.group(2) is not None:
            random = int(token.group(2) or 0)
        else:
            flags.add(token.group(3))
        at = token.end()
    return GgfType(size, random, "s" in flags, "k" in flags, "a" in flags)


class _Split(Splitter):
    """GGF games, each from ``(;`` to the first ``)`` outside a value (values
    hold no ``]``), each perhaps after an archive line's count."""

    name = "GGF"
    limit = MAX_GGF

    def start(self, buf: str, i: int) -> int:
        j = _skip(buf, i)
        if j < len(buf) and "0" <= buf[j] <= "9":
            digits = j
            while j < len(buf) and "0" <= buf[j] <= "9":
                j += 1
            if j - digits > 3:
                raise Junk(digits, "an archive line's count of games is 1 or 2")
            spaces = j
            j = _skip(buf, j)
            if j < len(buf) and (j == spaces or buf[j] != "("):
                raise Junk(digits, f"an archive line's count is followed by its games, "
                           f"not {buf[digits:j + 10].strip()!r:.30}")
        if j + 1 >= len(buf):
            return -1
        if buf[j] != "(" or buf[j + 1] != ";":
            raise Junk(j, f"text outside a game ({buf[j:j + 20].strip()!r})")
        return j

    def end(self, buf: str, i: int, resume: int, inside: int) -> tuple[int, int, int]:
        at = max(resume, i + 2)
        if inside:  # in a value when the text ran out
            shut = buf.find("]", at)
            if shut < 0:
                return -1, len(buf), 1
            at = shut + 1
        while True:
            close = buf.find(")", at)
            stop = close if close >= 0 else len(buf)
            value = buf.rfind("[", at, stop)
            if value >= 0 and value > buf.rfind("]", at, stop):
                shut = buf.find("]", value)  # ')' inside a value, or a value not yet read
                if shut < 0:
                    return -1, len(buf), 1
                at = shut + 1
                continue
            if close < 0:
                return -1, len(buf), 0
            return close + 1, 0, 0


def _skip(buf: str, i: int) -> int:
    while i < len(buf) and buf[i] in " \t\n\r\f\v":
        i += 1
    return i


_SPLIT = _Split()


def read_ggf(text: Any) -> list[Record]:
    """Every game of a GGF text, replayed and checked: an error names the line and
    column, and nothing is returned unless every game reads."""
    if not isinstance(text, (str, bytes, bytearray)):
        raise InvalidRecordError(f"GGF is text, not {type(text).__name__}")
    if len(text) > MAX_GGF:
        raise InvalidRecordError(f"GGF text of {len(text)} characters: at most {MAX_GGF}")
    if not isinstance(text, str):
        text = bytes(text).decode("latin-1")
    return list(_records(None, "", text))


def iter_ggf(source: Source) -> Iterator[Record]:
    """The games of a GGF file (a path or an open file), one by one, each
    replayed and checked as it is read: memory holds one game, however long the
    file; each game is at most :data:`MAX_GGF` characters.  An error names the
    file, the line and the column."""
    name = source_name(source)
    with open_text(source, "GGF") as stream:
        yield from _records(stream, f"{name}: ")


def _records(stream: Optional[IO[str]], prefix: str, text: str = "") -> Iterator[Record]:
    """The records of a GGF stream (or text): plain games and archive lines."""
    pending = pair = count = 0  # games the archive line still owes; synchro pairs so far
    where, end = Where("", 0, 1, 1, prefix), 0
    for unit in units(stream, _SPLIT, prefix, text):
        where, end = unit.where, unit.end
        if unit.lead:
            if pending:
                raise where.error(where.base, f"the archive line before announces {count} games "
                                  f"and holds {count - pending}")
            count = pending = int(unit.lead)
            if count not in (1, 2):
                raise where.error(where.base, f"an archive line holds 1 game or 2 (synchro), "
                                  f"not {count}")
            pair += count == 2
        record = _game(unit.text, unit.begin, unit.end, where)
        if pending:
            pending -= 1
            if count == 2:
                if SYNCHRO in record.headers:
                    raise where.error(where.base, f"a {SYNCHRO} header in a synchro archive line")
                record.headers[SYNCHRO] = f"{pair}.{2 - pending}"
        yield record
    if pending:
        raise where.error(end, f"the archive line announces {count} games "
                          f"and holds {count - pending}")


def _game(text: str, begin: int, stop: int, where: Where) -> Record:
    """The game of ``text[begin:stop]``, each move replayed as it is read (the
    first error ends the reading)."""
    headers: dict[str, str] = {}
    start, game = "", None  # from BO[], which comes before the moves
    root = node = Node()
    at = begin + 2  # after "(;"
    while True:
        end = _GAME_END.match(text, at, stop)
        if end:
            break
        prop = _PROPERTY.match(text, at, stop)
        if prop is None:
            reason = "the game never ends with ';)'" if not text[at:stop].strip() else \
                "expected a property like PB[name]"
            raise where.error(at, reason)
        name, value = prop.group(1), prop.group(2)
        tag = name.upper()
        if tag in ("B", "W"):
            if game is None:
                raise where.error(prop.start(1), f"{name}[{value[:20]}]: no BO[] start "
                                  f"board before the first move")
            node = _play(game, node, tag, value, where, prop.start(1))
        elif tag == "BO":
            if game is not None:
                raise where.error(prop.start(1), "a second BO[] start board")
            start = _position(value, where, prop.start(2))
            game = _start(start, where, prop.start(2))
        elif tag == "GM":
            if value.strip().lower() != "othello":
                raise where.error(prop.start(2), f"GM[{value[:20]}]: brett reads GGF "
                                  f"Othello games")
        else:  # a known header by its name, any other property under its own spelling
            headers[HEADERS.get(tag, name)] = value
        at = prop.end()
    if end.end() != stop:
        raise where.error(end.end(), "text after the end of the game")
    if game is None:
        raise where.error(at, "the game has no BO[] start board")
    return Record("reversi", _variant(start, game, headers, where), headers, root=root)


def _variant(start: str, game: Reversi, headers: dict[str, str], where: Where) -> str:
    """The start position as ``TY`` makes it (anti-Reversi), its size checked;
    the ``Type`` header dropped when it says no more than the writer writes."""
    kind = _checked_type(headers.get("Type", str(game.size)), where)
    if kind.size is not None and kind.size != game.size:
        raise where.error(where.base, f"TY[{headers['Type'][:20]}] is a game on "
                          f"{kind.size}x{kind.size}, BO[] a {game.size}x{game.size} board")
    if kind.anti:
        start = _anti(start, where)
    if headers.get("Type") == default_type(game.size, kind.anti):
        del headers["Type"]
    return start


def _checked_type(text: str, where: Where) -> GgfType:
    try:
        return parse_type(text)
    except InvalidRecordError as exc:
        raise where.error(where.base, str(exc)) from None


def default_type(size: int, anti: bool) -> str:
    """The ``TY`` written when no ``Type`` header says more: the size, ``a`` for
    anti-Reversi."""
    return f"{size}{'a' * anti}"


def _anti(start: str, where: Where) -> str:
    try:
        return Reversi.from_position(f"{start} anti").position()
    except BrettError:
        raise where.error(where.base, "TY[..a]: not an anti-Reversi position") from None


def _start(start: str, where: Where, offset: int) -> Reversi:
    try:
        return Reversi.from_position(start)
    except BrettError as exc:
        raise where.error(offset, f"bad BO[] start board: {exc}") from None


def _play(game: Reversi, node: Node, colour: str, value: str, where: Where,
          offset: int) -> Node:
    """The node of the move ``colour[value]``, played on ``game`` below ``node``."""
    square, properties = _move(value, where, offset)
    player = game.current_player()
    if player != (0 if colour == "B" else 1) and not game.is_over():
        raise where.error(offset, f"{colour}[{square}] but "
                          f"{'Black' if player == 0 else 'White'} is to move")
    try:
        game.push(square)
    except BrettError as exc:
        raise where.error(offset, f"{colour}[{square}]: {exc}") from None
    child = Node(sys.intern(square), "", properties, [], node)  # checked: strings
    node.children.append(child)
    return child


def _move(value: str, where: Where, offset: int) -> tuple[str, dict[str, str]]:
    """``square/evaluation/seconds``: a pass is ``PA``, ``pass`` or nothing."""
    square, *extra = value.split("/")
    if len(extra) > 2:
        raise where.error(offset, f"{value[:30]!r}: a move is square/evaluation/seconds")
    square = square.strip().lower()
    properties = {key: v.strip() for key, v in zip(("eval", "time"), extra, strict=False)
                  if v.strip()} if extra else {}
    return ("pass" if square in PASSES else square), properties


def _position(value: str, where: Where, offset: int) -> str:
    """BO[size cells side] → a brett position string."""
    parts = value.split()
    size = ascii_int(parts[0], 2) if parts else None
    if size is None or not 4 <= size <= 16:
        raise where.error(offset, f"BO[{value[:30]}]: expected the board size (4 to 16) first")
    cells = "".join(parts[1:-1]) if len(parts) > 2 else ""
    side = parts[-1] if len(parts) > 1 else ""
    if len(cells) != size * size or any(c not in _CELLS for c in cells) or \
            side not in ("*", "O", "o"):
        raise where.error(offset, f"BO[{value[:30]}...]: expected {size * size} cells of "
                          f"'-', '*', 'O' and the side to move")
    rows = ["".join(_CELLS[c] for c in cells[r * size:(r + 1) * size]) for r in range(size)]
    return "/".join(rows) + (" x" if side == "*" else " o") + ("" if size == 8 else f" n={size}")


def write_ggf(records: Iterable[Record]) -> str:
    """GGF text of Reversi records on square boards without blocked squares (the
    main line of each; GGF has no variations or comments)."""
    return "".join(ggf_lines(records))


def ggf_lines(records: Iterable[Record]) -> Iterator[str]:
    """The GGF text of ``records`` line by line, as they come: one game a line,
    the two games of a synchro pair (their ``Synchro`` headers ``"k.1"`` then
    ``"k.2"``) as one archive line ``2 (;...;)(;...;)``."""
    held: Optional[tuple[Record, int, str]] = None  # the first game of a pair
    for number, record in enumerate(records, 1):
        link = record.headers.get(SYNCHRO, "") if isinstance(record, Record) else ""
        pair = _SYNCHRO.fullmatch(link)
        if held is not None:
            first, first_number, first_pair = held
            held = None
            if pair and pair.group(2) == "2" and pair.group(1) == first_pair:
                yield f"2 {_write_one(first, first_number, True)}" \
                      f"{_write_one(record, number, True)}\n"
                continue
            yield _write_one(first, first_number, False) + "\n"
        if pair and pair.group(2) == "1":
            held = (record, number, pair.group(1))
        else:
            yield _write_one(record, number, False) + "\n"
    if held is not None:
        yield _write_one(held[0], held[1], False) + "\n"


def _write_one(record: Any, number: int, paired: bool) -> str:
    """One game's text; ``paired``: its ``Synchro`` header is the archive line."""
    if not isinstance(record, Record) or record.game_name != "reversi":
        raise InvalidRecordError(f"record {number}: GGF holds Reversi games only")
    check_strings(record, number)
    game = record.game()
    assert isinstance(game, Reversi)  # a Reversi record, checked above
    start = Reversi.from_position(record.start)
    board, mover = start.position().split()[:2]  # the side to move even when it cannot
    if "#" in board:
        raise InvalidRecordError(f"record {number}: GGF has no blocked squares or octagon")
    anti = bool(getattr(start, "anti", False))
    parts = ["(;GM[Othello]"]
    for name, value in record.headers.items():
        if paired and name == SYNCHRO:
            continue
        tag = NAMES.get(name, name)
        if not re.fullmatch(r"[A-Za-z]+", tag) or tag.upper() in ("GM", "BO", "B", "W"):
            raise InvalidRecordError(f"record {number}: header {name!r} has no GGF property")
        if tag == "TY" and parse_type(value).anti != anti:
            raise InvalidRecordError(f"record {number}: TY[{value[:20]}] and the start "
                                     f"position disagree on anti-Reversi")
        if name == "Result":
            value = result_text(value, "ggf")    # +12.000, not SGF's B+12
        parts.append(f"{tag}[{_value(value, number)}]")
    if "Type" not in record.headers:
        parts.append(f"TY[{default_type(start.size, anti)}]")
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
    parts.append(";)")
    return "".join(parts)


def _value(value: str, number: int, also: str = "") -> str:
    """``value`` as GGF holds it: a value cannot hold ']', a move's evaluation
    or time not '/' either."""
    for mark in "]" + also:
        if mark in value:
            raise InvalidRecordError(f"record {number}: {value[:30]!r}: GGF cannot hold "
                                     f"{mark!r} there")
    return value


__all__ = ["MAX_GGF", "SYNCHRO", "GgfType", "default_type", "ggf_lines", "iter_ggf",
           "parse_type", "read_ggf", "write_ggf"]
