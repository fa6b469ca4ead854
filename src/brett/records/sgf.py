"""SGF FF[4] (Smart Game Format) for Reversi, Phutball and Focus records.

One file holds a collection of games; each game is a tree: the first child of a
node is the main line, the others are variations (see docs/records.md)::

    >>> import brett
    >>> from brett.records import Record
    >>> from brett.records.sgf import read_sgf, write_sgf
    >>> game = brett.Reversi()
    >>> for move in ("f5", "d6", "c3"):
    ...     _ = game.push(move)
    >>> text = write_sgf([Record.from_game(game, Black="Ann")])
    >>> text
    '(;FF[4]GM[2]SZ[8]PB[Ann]\\n;B[fe];W[df];B[cc])\\n'
    >>> read_sgf(text) == [Record.from_game(game, Black="Ann")]
    True

Game numbers: 2 Reversi (``SZ[n]``), 14 Phutball (``SZ[cols:rows]``), 36 Focus.
Moves go in ``B[]`` / ``W[]`` (player 0 / player 1) or, for Focus, ``MV[]`` (no
colour: Focus has up to four players).  Reversi squares are written as SGF's own
two-letter points, as Quarry writes them (``B[fe]`` is f5: the column letter,
then the row letter, ``a`` for row 1), and a pass as ``B[]``; reading takes
these and brett's ``f5`` alike.  Phutball and Focus moves are brett's notation.
A start position other than the game's default is kept exactly in the private
root property ``BP[<brett position string>]``; Reversi setups are also written
as ``AB``/``AW``/``PL`` (two-letter points) for other tools.  Headers without an
SGF property go into ``BH[name:value]``, node properties whose names are not SGF
property names into ``BN[name:value]``.

Reading takes one pass with an explicit stack (no recursion) over at most
:data:`MAX_SGF` characters: each node is replayed as it is read (one game walked
with push and pop), so the time is linear in the text and the first error ends
the reading.  :func:`read_sgf` returns nothing unless all of it is legal;
:func:`iter_sgf` reads a file game by game, holding one at a time.  An
:class:`InvalidRecordError` names the line and column.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any, Optional, Union

from ..errors import BrettError, InvalidRecordError
from ..game import GAMES, Game
from ._io import PASSES as _PASSES
from ._io import Junk, Source, Splitter, Where, ascii_int, bracketed, open_text, source_name, units
from .record import Node, Record, Step, check_strings
from .result import result_text

MAX_SGF = 16 * 2**20
"""The most characters :func:`read_sgf` reads, and the longest game
:func:`iter_sgf` reads."""
MAX_NODES = 1_000_000
"""The most nodes (and variations) one game may hold: far above any real
game, low enough that hostile input is refused within seconds."""
_SPACE = re.compile(r"\s+")

GAME_NUMBERS = {"reversi": 2, "phutball": 14, "focus": 36}
GAME_OF_NUMBER = {number: name for name, number in GAME_NUMBERS.items()}
HEADERS = {"PB": "Black", "PW": "White", "EV": "Event", "DT": "Date", "RO": "Round",
           "PC": "Place", "RE": "Result", "TM": "TimeControl", "GN": "GameName",
           "C": "Comment"}
SGF_OF_HEADER = {header: prop for prop, header in HEADERS.items()}
MOVES = ("B", "W", "MV")
SETUP = ("AB", "AW", "AE", "PL")
# Root properties brett interprets itself (not kept as headers).
STRUCTURE = ("FF", "GM", "SZ", "BP", "BH", *SETUP)
# Names a header or node property may not take verbatim: brett writes them itself.
RESERVED = frozenset((*STRUCTURE, *MOVES, *HEADERS, "BN"))
PASSES = _PASSES | {"tt"}
_POINT = re.compile(r"[a-z]{2}")      # SGF's point: column letter, row letter
_IDENT = re.compile(r"[A-Z]{1,16}")
_VALUE_END = re.compile(r"[^\]\\]*(?:\\.[^\]\\]*)*\]", re.S)
_ESCAPE = re.compile(r"\\(\r\n|\n\r|\n|\r|.)", re.S)
_SIZE = re.compile(r"([0-9]{1,2})(?::([0-9]{1,2}))?")

Props = dict[str, tuple[list[str], int]]  # name -> (values, offset of the name)


# ------------------------------------------------------------------ reading
def read_sgf(text: str) -> list[Record]:
    """Every game of an SGF collection as a :class:`Record`, each node of each
    variation replayed; :class:`InvalidRecordError` (naming the line and column)
    for anything malformed or illegal, and then no record at all."""
    if not isinstance(text, str):
        raise InvalidRecordError(f"SGF is read from a string, not {type(text).__name__}")
    if len(text) > MAX_SGF:
        raise InvalidRecordError(f"SGF text of {len(text)} characters: at most {MAX_SGF}")
    records = list(_records_in(text, "SGF "))
    if not records:
        raise Where(text, 0, 1, 1, "SGF ").error(0, "no game in the text")
    return records


def iter_sgf(source: Source) -> Iterator[Record]:
    """The games of an SGF file (a path or an open file), one by one, each read
    whole and replayed before it is returned: memory holds one game, however
    long the file; each game is at most :data:`MAX_SGF` characters."""
    with open_text(source, "SGF") as stream:
        for unit in units(stream, _SPLIT, f"{source_name(source)}: SGF "):
            yield _Reader(unit.text, unit.begin, unit.end, unit.where).tree()


def _records_in(text: str, prefix: str) -> Iterator[Record]:
    """The games of a text in memory, each parsed where it stands: no scan for
    the end of a game first, so an error at the start of a long game ends the
    reading at once."""
    i = 1 if text.startswith("\ufeff") else 0
    where = Where(text, i, 1, 1, prefix)
    while True:
        try:
            i = _SPLIT.start(text, i)
        except Junk as junk:
            raise where.error(junk.offset, junk.message) from None
        if i < 0:
            return
        reader = _Reader(text, i, len(text), where)
        yield reader.tree()
        i = reader.after


_RUN = re.compile(r"[^\[()]*(?:\[[^\]\\]*(?:\\.[^\]\\]*)*\][^\[()]*)*", re.S)
"""Text up to the next parenthesis outside a value."""
_VALUE = re.compile(r"[^\]\\]*(?:\\.[^\]\\]*)*", re.S)
"""The inside of a value, up to its closing bracket."""


class _Split(Splitter):
    """SGF game trees: from a '(' to the ')' that closes it, parentheses inside
    values (escapes and all) not counted."""

    name = "SGF"
    limit = MAX_SGF

    def start(self, buf: str, i: int) -> int:
        j = _skip_space(buf, i)
        if j >= len(buf):
            return -1
        if buf[j] != "(":
            raise Junk(j, f"expected '(' to start a game, found {buf[j]!r}")
        return j

    def end(self, buf: str, i: int, resume: int, state: int) -> tuple[int, int, int]:
        return bracketed(buf, resume, state, _RUN, "(", "[", _VALUE)


_SPLIT = _Split()


class _Reader:
    """One pass over the text (the grammar of FF[4], with an explicit stack): each
    node is replayed and added to its record as soon as it is read, so reading
    takes time linear in the text and the first error ends it."""

    # The game being read (set by its root node): its record, the game replaying
    # it, the moves on that game, the comments of moveless nodes per node.
    record: Record
    game: Game[Any]
    played: int
    merged: dict[Node, list[str]]

    def __init__(self, text: str, begin: int, end: int, where: Where) -> None:
        self.text, self.begin, self.end = text, begin, end
        self.where = where
        self.nodes = 0
        self.after = end  # the offset after the game, once read

    def tree(self) -> Record:
        """The game tree of ``text[begin:end]`` (which starts with its '(')."""
        text, where, end = self.text, self.where, self.end
        opened: list[tuple[Node, int, int]] = []  # per open '(': the node and depth above, where
        node, depth = Node(), 0  # the node the sequence has reached, its moves
        after_tree = False  # a ';' may not follow a closed variation
        i = self.begin
        while i < end:
            ch = text[i]
            if ch.isspace():
                i = _skip_space(text, i)
            elif ch == "(":
                self.count(i)
                start, i = i, _skip_space(text, i + 1)
                if i >= end or text[i] != ";":
                    raise where.error(i, "expected ';' after '('")
                self.count(i)
                if opened:
                    opened.append((node, depth, start))
                    node, depth, i = self.node(i, node, depth)
                else:
                    node, depth, i = self.root(i)
                    opened.append((self.record.root, 0, start))
                after_tree = False
            elif ch == ")":
                node, depth, _ = opened.pop()
                after_tree, i = True, i + 1
                if not opened:
                    self.after = i
                    return self.finish()
            elif ch == ";" and not after_tree:
                self.count(i)
                node, depth, i = self.node(i, node, depth)
            elif ch == ";":
                raise where.error(i, "a node after a variation: expected '(' or ')'")
            else:
                raise where.error(i, f"unexpected {ch!r}: expected a property name "
                                  f"(capital letters), ';', '(' or ')'")
        raise where.error(opened[-1][2] if opened else i, "'(' is never closed")

    def count(self, offset: int) -> None:
        self.nodes += 1
        if self.nodes > MAX_NODES:  # hostile input: stop early, not after a minute of parsing
            raise self.where.error(offset, f"more than {MAX_NODES:,} nodes")

    def properties(self, i: int) -> tuple[Props, int]:
        """The properties of the node whose ';' is at ``i``; the offset after them."""
        props: Props = {}
        i = _skip_space(self.text, i + 1)
        while i < len(self.text) and "A" <= self.text[i] <= "Z":
            i = _property(self.text, i, props, self.where)
        return props, i

    def root(self, i: int) -> tuple[Node, int, int]:
        """A game's root node at ``i``: the record, its headers and the game;
        (the node reached, its depth, the offset after the node)."""
        where = self.where
        props, after = self.properties(i)
        name = _game_name(props, i, where)
        start = _start(name, props, where)
        move = _move_of(props, where)  # some tools put the first move in the root node
        for key in MOVES:
            props.pop(key, None)
        headers: dict[str, str] = {}
        _root_headers(props, headers, where, True)
        try:
            self.record = Record(name, start, headers)
            self.game = self.record.game_class.from_position(start)
        except BrettError as exc:
            raise where.error(i, str(exc)) from None
        self.played, self.merged = 0, {}
        if move is None:
            return self.record.root, 0, after
        return self.play(self.record.root, 0, move), self.played, after

    def node(self, i: int, parent: Node, depth: int) -> tuple[Node, int, int]:
        """A node below ``parent`` (``depth`` moves from the start), as the root's
        but for a move, or added to ``parent`` when it has none."""
        props, after = self.properties(i)
        for key in SETUP:
            if key in props:
                raise self.where.error(props[key][1], f"{key}: setup is only read in the root")
        move = _move_of(props, self.where)
        for key in MOVES:
            props.pop(key, None)
        if move is None:
            self.merge(parent, props)
            return parent, depth, after
        node = self.play(parent, depth, move)
        _node_properties(node, props, self.where)
        return node, self.played, after

    def play(self, parent: Node, depth: int, move: tuple[str, str, int]) -> Node:
        """The child of ``parent`` that ``move`` makes, replayed from the game's
        position below the last node read (taking back moves to ``depth``)."""
        while self.played > depth:
            self.game.pop()
            self.played -= 1
        if _left_out_pass(self.game, self.record.game_name, move):
            parent = parent.add(str(self.game.push("pass")))
            self.played += 1
        text = _play(self.game, self.record.game_name, move, self.where)
        self.played += 1
        return parent.add(text)

    def merge(self, node: Node, props: Props) -> None:
        """A node without a move: its comment and properties go to the node
        above (the root's to the headers)."""
        if node.parent is None:
            _root_headers(props, self.record.headers, self.where, False)
            return
        comment = props.pop("C", None)
        if comment is not None:  # joined once the game is read: no quadratic concatenation
            self.merged.setdefault(node, [node.comment]).append(_joined(comment[0]))
        _node_properties(node, props, self.where)

    def finish(self) -> Record:
        for node, parts in self.merged.items():
            node.comment = "\n".join(filter(None, parts))
        return self.record


def _skip_space(text: str, i: int) -> int:
    match = _SPACE.match(text, i)
    return match.end() if match else i


def _property(text: str, i: int, props: Props, where: Where) -> int:
    """Read one property (name and values) into ``props``; the offset after it."""
    match = _IDENT.match(text, i)
    assert match is not None  # text[i] is a capital letter
    name, start = match.group(), i
    i = _skip_space(text, match.end())
    if i < len(text) and text[i].isalpha():
        raise where.error(start, f"bad property name {text[start:i + 1]!r}: "
                          f"FF[4] names are 1-16 capital letters")
    values = []
    while i < len(text) and text[i] == "[":
        value = _VALUE_END.match(text, i + 1)
        if value is None:
            raise where.error(i, f"the value of {name} is never closed by ']'")
        values.append(_ESCAPE.sub(_unescape, value.group()[:-1]))
        i = _skip_space(text, value.end())
    if not values:
        raise where.error(start, f"property {name} has no value: expected '['")
    if name in props:
        raise where.error(start, f"property {name} twice in one node")
    props[name] = (values, start)
    return i


def _unescape(match: re.Match[str]) -> str:
    escaped = match.group(1)
    return "" if escaped in ("\r\n", "\n\r", "\n", "\r") else escaped  # soft line break


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("]", "\\]")


def _game_name(props: Props, offset: int, where: Where) -> str:
    values, offset = props.get("GM", (["1"], offset))
    number = ascii_int(values[0].strip(), 6)
    if len(values) != 1 or number not in GAME_OF_NUMBER:
        raise where.error(offset, f"GM[{values[0][:20]}] is not a game brett plays: "
                          f"expected GM[2] (Othello), GM[14] (Phutball) or GM[36] (Focus)")
    ff, ff_offset = props.get("FF", (["4"], offset))
    if len(ff) != 1 or ff[0].strip() not in ("1", "2", "3", "4"):
        raise where.error(ff_offset, f"FF[{ff[0][:20]}]: brett reads FF[1] to FF[4]")
    return GAME_OF_NUMBER[number]


def _size(props: Props, default: tuple[int, int], where: Where) -> tuple[int, int]:
    if "SZ" not in props:
        return default
    values, offset = props["SZ"]
    match = _SIZE.fullmatch(values[0].strip())
    if len(values) != 1 or match is None:
        raise where.error(offset, f"SZ[{values[0][:20]}]: expected SZ[n] or SZ[columns:rows]")
    columns = int(match.group(1))
    return columns, int(match.group(2) or columns)


def _start(name: str, props: Props, where: Where) -> str:
    """The start position: BP when present, else from SZ (and Reversi's setup)."""
    game_class = GAMES[name]
    default = (15, 19) if name == "phutball" else (8, 8)
    columns, rows = _size(props, default, where)
    offset = props.get("SZ", ([], 0))[1]
    try:
        if "BP" in props:
            values, offset = props["BP"]
            game = game_class.from_position(values[0])
            start = values[0]  # verbatim: a record's start is kept as written
        elif name == "reversi":
            return _reversi_setup(columns, rows, props, where)
        else:
            options = {"columns": columns, "rows": rows} if name == "phutball" else {}
            game = game_class(**options)
    except BrettError as exc:
        raise where.error(offset, f"bad start position: {exc}") from None
    shape = (getattr(game, "columns", 8), getattr(game, "rows", 8)) if name != "reversi" \
        else (getattr(game, "size", 8),) * 2
    if "SZ" in props and shape != (columns, rows):
        raise where.error(props["SZ"][1], f"SZ[{props['SZ'][0][0]}] does not match the "
                          f"{shape[0]}x{shape[1]} board of the start position")
    if name != "reversi" and any(key in props for key in SETUP):
        raise where.error(offset, f"{name}: setup properties AB/AW/AE/PL are not read, "
                          f"the start position is BP[...]")
    return start if "BP" in props else game.position()


def _reversi_setup(columns: int, rows: int, props: Props, where: Where) -> str:
    """A Reversi position from SZ, AB/AW (the whole board when present), AE and PL."""
    from ..reversi import Reversi

    if columns != rows:
        raise where.error(props["SZ"][1], f"SZ: Reversi boards are square, not {columns}x{rows}")
    default = Reversi(size=columns)
    discs = {} if "AB" in props or "AW" in props else dict(default.piece_map())
    for key, owner in (("AE", None), ("AB", 0), ("AW", 1)):
        values, offset = props.get(key, ([], 0))
        for value in values:
            square = _reversi_square(value, columns, key, offset, where)
            discs.pop(square, None)
            if owner is not None:
                discs[square] = owner
    side = "x"
    if "PL" in props:
        values, offset = props["PL"]
        if len(values) != 1 or values[0].strip().upper() not in ("B", "W", "1", "2"):
            raise where.error(offset, f"PL[{values[0][:20]}]: expected PL[B] or PL[W]")
        side = "x" if values[0].strip().upper() in ("B", "1") else "o"
    board = "/".join("".join("-xo"[discs[name] + 1] if name in discs else "-"
                             for name in _row_names(row, columns)) for row in range(columns))
    position = f"{board} {side}" + ("" if columns == 8 else f" n={columns}")
    return Reversi.from_position(position).position()


def _row_names(row: int, size: int) -> list[str]:
    return [f"{'abcdefghijklmnop'[col]}{row + 1}" for col in range(size)]


def _reversi_square(value: str, size: int, key: str, offset: int, where: Where) -> str:
    square = value.strip()
    if _POINT.fullmatch(square):    # SGF's point, as brett writes it: "dc" is d3
        square = _square_of_point(square)
    square = square.lower()
    column, number = square[:1], square[1:]
    row = ascii_int(number, 2)
    if not (column and column in "abcdefghijklmnop"[:size] and row is not None
            and not number.startswith("0") and row <= size):
        raise where.error(offset, f"{key}[{value[:20]}] is not a square of the "
                          f"{size}x{size} board")
    return square


def _root_headers(props: Props, headers: dict[str, str], where: Where,
                  root: bool) -> None:
    """Game-information properties → headers; anything unknown kept by its name."""
    for key, (values, offset) in props.items():
        if key in STRUCTURE:
            if not root:
                raise where.error(offset, f"{key} is only read in the root node")
            if key != "BH":
                continue
            pairs = _pairs(values, key, offset, where)
        else:
            pairs = [(HEADERS.get(key, key), _joined(values))]
        for header, value in pairs:
            if header in headers:
                raise where.error(offset, f"header {header!r} given twice")
            headers[header] = value


def _pairs(values: list[str], key: str, offset: int, where: Where) -> list[tuple[str, str]]:
    pairs = []
    for value in values:
        name, colon, text = value.partition(":")
        if not colon or not name:
            raise where.error(offset, f"{key}[{value[:20]}]: expected {key}[name:value]")
        pairs.append((name, text))
    return pairs


def _joined(values: list[str]) -> str:
    """One value as it is; several as their SGF text between the outer brackets."""
    return values[0] if len(values) == 1 else "][".join(_escape(v) for v in values)


def _move_of(props: Props, where: Where) -> Optional[tuple[str, str, int]]:
    """(property, value, offset) of the node's move, if it has one."""
    found = [key for key in MOVES if key in props]
    if len(found) > 1:
        raise where.error(props[found[1]][1], f"two moves in one node: {' and '.join(found)}")
    if not found:
        return None
    values, offset = props[found[0]]
    if len(values) != 1:
        raise where.error(offset, f"{found[0]} takes one move, not {len(values)} values")
    return found[0], values[0], offset


def _left_out_pass(game: Game[Any], name: str, move: tuple[str, str, int]) -> bool:
    """Whether a Reversi ``B``/``W`` move comes after a pass the record left out
    (Quarry writes none): the other colour is to move and has no move but the
    pass.  Where it has a move, the record is refused as before."""
    key, value, _ = move
    if name != "reversi" or key not in ("B", "W") or \
            _reversi_move(value.strip(), game.size) == "pass":  # type: ignore[attr-defined]
        return False
    player = game.current_player()
    return player in (0, 1) and player != "BW".index(key) and \
        [str(m) for m in game.legal_moves] == ["pass"]


def _reversi_move(text: str, size: int) -> str:
    """SGF's own two-letter point (``fe``: column f, row e, that is f5), as
    Quarry and brett write them, in brett's notation; a pass as ``pass``; any
    other text as it is.  A point on the board is a point even where it spells
    a pass (``pa`` is p1 on a 16x16 board, a pass on smaller ones)."""
    point = _POINT.fullmatch(text)
    if point and ord(text[0]) - ord("a") < size and ord(text[1]) - ord("a") < size:
        return _square_of_point(text)
    if text.lower() in PASSES:      # "tt" included: a pass, as in FF[3]
        return "pass"
    return _square_of_point(text) if point else text


def _square_of_point(point: str) -> str:
    """brett's square of an SGF point: ``fe`` is f5."""
    return f"{point[0]}{ord(point[1]) - ord('a') + 1}"


def _point_of_square(square: str) -> str:
    """SGF's point of a brett Reversi square: ``f5`` is ``fe``, ``p16`` is ``pp``."""
    return f"{square[0]}{chr(ord('a') + int(square[1:]) - 1)}"


def _play(game: Game[Any], name: str, move: tuple[str, str, int], where: Where) -> str:
    key, value, offset = move
    text = value.strip()
    if name == "reversi":
        text = _reversi_move(text, game.size)  # type: ignore[attr-defined]
    if key != "MV":
        if name == "focus" and game.num_players() != 2:
            raise where.error(offset, f"{key}[{value[:20]}]: Focus with more than two "
                              f"players writes moves as MV[...]")
        player = game.current_player()
        if player != "BW".index(key):
            side = "no one" if player < 0 else "BW"[player] if player < 2 else f"player {player}"
            raise where.error(offset, f"{key}[{value[:20]}]: {side} is to move")
    try:
        return str(game.push(text))
    except BrettError as exc:
        raise where.error(offset, f"{key}[{value[:20]}] does not replay: {exc}") from None


def _node_properties(node: Node, props: Props, where: Where) -> None:
    for key, (values, offset) in props.items():
        if key == "C":
            node.comment = values[0] if len(values) == 1 else _joined(values)
            continue
        pairs = _pairs(values, key, offset, where) if key == "BN" else [(key, _joined(values))]
        for name, value in pairs:
            if name in node.properties:
                raise where.error(offset, f"node property {name!r} given twice")
            node.properties[name] = value


# ------------------------------------------------------------------ writing
def write_sgf(records: Union[Record, Iterable[Record]]) -> str:
    """SGF FF[4] text of ``records`` (one game tree each) that :func:`read_sgf`
    reads back to equal records; :class:`InvalidRecordError` for a record SGF
    cannot hold (Schuft, a move that does not replay, a comment on the root).

    Reversi (``GM[2]``) squares are SGF's two-letter points, always: ``B[fe]``
    for f5, the row letter ``a`` for row 1, up to ``pp`` for p16, in the moves
    and in ``AB``/``AW``; a pass is ``B[]`` / ``W[]``, written where it was
    played (Quarry leaves forced passes out; it opens these files as they are,
    and :func:`read_sgf` reads both).  Phutball and Focus moves are brett's
    own notation (``B[e7]``, ``MV[d2-d3]``)."""
    return "".join(sgf_texts([records] if isinstance(records, Record) else records))


def sgf_texts(records: Iterable[Record]) -> Iterator[str]:
    """The SGF text of each record, as they come."""
    for number, record in enumerate(records, 1):
        if not isinstance(record, Record):
            raise InvalidRecordError(f"record {number}: {record!r:.40} is not a Record")
        try:
            yield _write_record(record)
        except BrettError as exc:
            raise InvalidRecordError(f"record {number}: {exc}") from None


def _write_record(record: Record) -> str:
    name = record.game_name
    if name not in GAME_NUMBERS:
        raise InvalidRecordError(f"{name} has no SGF game number: SGF holds "
                                 f"{', '.join(GAME_NUMBERS)}")
    check_strings(record)
    if record.root.comment or record.root.properties:
        raise InvalidRecordError("SGF keeps a root comment as the 'Comment' header: "
                                 "the root node holds no comment or properties")
    game = record.game_class.from_position(record.start)
    out = [f"(;FF[4]GM[{GAME_NUMBERS[name]}]", _setup(name, game, record.start)]
    extra: list[str] = []
    for header, value in record.headers.items():
        if header == "Result":
            value = result_text(value, "sgf")    # B+12, not GGF's +12.000
        if header in SGF_OF_HEADER:
            out.append(f"{SGF_OF_HEADER[header]}[{_escape(value)}]")
        elif _IDENT.fullmatch(header) and header not in RESERVED:
            out.append(f"{header}[{_escape(value)}]")
        else:
            extra.append(_pair(header, value, "header"))
    if extra:
        out.append("BH" + "".join(extra))
    out.append("\n")
    _write_tree(record, out)
    out.append(")\n")
    return "".join(out)


def _setup(name: str, game: Game[Any], start: str) -> str:
    """SZ, and for a start other than the default the setup properties and BP."""
    if name == "focus":
        size, default = "", type(game)().position()
    elif name == "phutball":
        columns, rows = game.columns, game.rows  # type: ignore[attr-defined]
        size = f"SZ[{columns}]" if columns == rows else f"SZ[{columns}:{rows}]"
        default = type(game)(columns=columns, rows=rows).position()  # type: ignore[call-arg]
    else:
        size = f"SZ[{game.size}]"  # type: ignore[attr-defined]
        default = type(game)(size=game.size).position()  # type: ignore[call-arg,attr-defined]
    if start == default:
        return size
    setup = ""
    if name == "reversi":
        discs = game.piece_map()
        for key, owner in (("AB", 0), ("AW", 1)):
            squares = [square for square, who in discs.items() if who == owner]
            if squares:
                setup += key + "".join(f"[{_point_of_square(square)}]" for square in squares)
        setup += f"PL[{'BW'[game.current_player()]}]" if not game.is_over() else ""
    return f"{size}{setup}BP[{_escape(start)}]"


def _pair(name: str, value: str, what: str) -> str:
    if not name or ":" in name:
        raise InvalidRecordError(f"{what} name {name!r:.40}: SGF needs a name without ':'")
    return f"[{_escape(name)}:{_escape(value)}]"


def _write_tree(record: Record, out: list[str]) -> None:
    """The nodes below the root, each replayed once for its colour, variations in
    parentheses: a variation opened at depth d closes before the next node at a
    depth of d or less."""
    opened: list[int] = []  # the depths of the open variations
    for step in record.replay_tree():
        while opened and opened[-1] >= step.depth:
            out.append(")")
            opened.pop()
        parent = step.node.parent
        if parent is not None and len(parent.children) > 1:
            out.append("\n(")
            opened.append(step.depth)
        out.append(_write_node(record.game_name, step))
    out.append(")" * len(opened))


def _write_node(name: str, step: Step) -> str:
    move, node = str(step.move), step.node
    if name == "focus":
        text = f";MV[{_escape(move)}]"
    elif move == "pass":
        text = f";{'BW'[step.player]}[]"
    else:
        point = _point_of_square(move) if name == "reversi" else _escape(move)
        text = f";{'BW'[step.player]}[{point}]"
    if node.comment:
        text += f"C[{_escape(node.comment)}]"
    extra = []
    for key, value in node.properties.items():
        if _IDENT.fullmatch(key) and key not in RESERVED:
            text += f"{key}[{_escape(value)}]"
        else:
            extra.append(_pair(key, value, "node property"))
    return text + ("BN" + "".join(extra) if extra else "")


__all__ = ["MAX_NODES", "MAX_SGF", "iter_sgf", "read_sgf", "sgf_texts", "write_sgf"]
