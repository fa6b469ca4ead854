"""SGF FF[4] (Smart Game Format) for Reversi, Phutball and Focus records.

One file holds a collection of games; each game is a tree: the first child of a
node is the main line, the others are variations (see docs/records-sgf.md)::

    >>> import brett
    >>> from brett.record import Record
    >>> from brett.sgf import read_sgf, write_sgf
    >>> game = brett.Reversi()
    >>> for move in ("f5", "d6", "c3"):
    ...     _ = game.push(move)
    >>> text = write_sgf([Record.from_game(game, Black="Ann")])
    >>> text
    '(;FF[4]GM[2]SZ[8]PB[Ann]\\n;B[f5];W[d6];B[c3])\\n'
    >>> read_sgf(text) == [Record.from_game(game, Black="Ann")]
    True

Game numbers: 2 Reversi (``SZ[n]``), 14 Phutball (``SZ[cols:rows]``), 36 Focus.
Moves are brett's notation in ``B[]`` / ``W[]`` (player 0 / player 1; a
Reversi pass is ``B[]``) or, for Focus, ``MV[]`` (no colour: Focus has up to
four players).  A start position other than the game's default is kept exactly
in the private root property ``BP[<brett position string>]``; Reversi setups are
also written as ``AB``/``AW``/``PL`` for other tools.  Headers without an SGF
property go into ``BH[name:value]``, node properties whose names are not SGF
property names into ``BN[name:value]``.

Reading parses with an explicit stack (no recursion), reads at most
:data:`MAX_SGF` characters, replays every node of every variation and returns
nothing unless all of it is legal: an :class:`InvalidRecordError` names the line
and column.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Optional, Union

from .errors import BrettError, InvalidRecordError
from .game import GAMES, Game
from .record import Node, Record, text_position

MAX_SGF = 16 * 2**20
"""The most characters :func:`read_sgf` reads."""
MAX_NODES = 1_000_000
"""The most nodes (and variations) one text may hold: far above any real
collection, low enough that hostile input is refused within seconds."""
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
PASSES = ("", "tt", "pa", "pass")
_IDENT = re.compile(r"[A-Z]{1,16}")
_VALUE_END = re.compile(r"[^\]\\]*(?:\\.[^\]\\]*)*\]", re.S)
_ESCAPE = re.compile(r"\\(\r\n|\n\r|\n|\r|.)", re.S)
_SIZE = re.compile(r"([0-9]{1,2})(?::([0-9]{1,2}))?")

Props = dict[str, tuple[list[str], int]]  # name -> (values, offset of the name)


class _Raw:
    """A parsed SGF node: its properties and children, not yet interpreted."""

    __slots__ = ("children", "offset", "props")

    def __init__(self, offset: int) -> None:
        self.offset = offset
        self.props: Props = {}
        self.children: list[_Raw] = []


class _Where:
    """Turns offsets into "line L, column C" for error messages."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __call__(self, offset: int) -> str:
        return text_position(self.text, offset)

    def error(self, offset: int, message: str) -> InvalidRecordError:
        return InvalidRecordError(f"SGF {self(offset)}: {message}")


# ------------------------------------------------------------------ parsing
def _parse(text: str, where: _Where) -> list[_Raw]:
    """The game trees of ``text`` (grammar of FF[4]), with an explicit stack."""
    trees: list[_Raw] = []
    opened: list[tuple[Optional[_Raw], int]] = []  # (node above, offset of "(") per open tree
    node: Optional[_Raw] = None  # the last node of the current sequence
    after_tree = False  # a ';' may not follow a closed variation
    i, end = 0, len(text)
    if text.startswith("\ufeff"):
        i = 1
    nodes = 0
    while i < end:
        ch = text[i]
        if ch.isspace():
            i = _skip_space(text, i)
            continue
        if ch in "(;":
            nodes += 1
            if nodes > MAX_NODES:  # hostile input: stop early, not after a minute of parsing
                raise where.error(i, f"more than {MAX_NODES:,} nodes")
        if ch == "(":
            opened.append((node, i))
            i = _skip_space(text, i + 1)
            if i >= end or text[i] != ";":
                raise where.error(i, "expected ';' after '('")
            node, after_tree = None, False
            parent = opened[-1][0]
            node = _new_node(i, parent, trees)
            i += 1
        elif not opened:
            raise where.error(i, f"expected '(' to start a game, found {ch!r}")
        elif ch == ")":
            node, _ = opened.pop()
            after_tree = True
            i += 1
        elif ch == ";":
            if after_tree or node is None:
                raise where.error(i, "a node after a variation: expected '(' or ')'")
            node = _new_node(i, node, trees)
            i += 1
        elif "A" <= ch <= "Z" and node is not None and not after_tree:
            i = _property(text, i, node, where)
        else:
            raise where.error(i, f"unexpected {ch!r}: expected a property name "
                              f"(capital letters), ';', '(' or ')'")
    if opened:
        raise where.error(opened[-1][1], "'(' is never closed")
    if not trees:
        raise where.error(0, "no game in the text")
    return trees


def _skip_space(text: str, i: int) -> int:
    match = _SPACE.match(text, i)
    return match.end() if match else i


def _new_node(offset: int, parent: Optional[_Raw], trees: list[_Raw]) -> _Raw:
    node = _Raw(offset)
    (trees if parent is None else parent.children).append(node)
    return node


def _property(text: str, i: int, node: _Raw, where: _Where) -> int:
    """Read one property (name and values) into ``node``; the offset after it."""
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
    if name in node.props:
        raise where.error(start, f"property {name} twice in one node")
    node.props[name] = (values, start)
    return i


def _unescape(match: re.Match[str]) -> str:
    escaped = match.group(1)
    return "" if escaped in ("\r\n", "\n\r", "\n", "\r") else escaped  # soft line break


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("]", "\\]")


# ------------------------------------------------------------------ reading
def read_sgf(text: str) -> list[Record]:
    """Every game of an SGF collection as a :class:`Record`, each node of each
    variation replayed; :class:`InvalidRecordError` (naming the line and column)
    for anything malformed or illegal, and then no record at all."""
    if not isinstance(text, str):
        raise InvalidRecordError(f"SGF is read from a string, not {type(text).__name__}")
    if len(text) > MAX_SGF:
        raise InvalidRecordError(f"SGF text of {len(text)} characters: at most {MAX_SGF}")
    where = _Where(text)
    return [_record(tree, where) for tree in _parse(text, where)]


def _record(root: _Raw, where: _Where) -> Record:
    name = _game_name(root, where)
    start = _start(name, root.props, where)
    headers: dict[str, str] = {}
    moved = _move_of(root, where)
    if moved is not None:  # some tools put the first move in the root node
        first = _Raw(root.offset)
        first.props = {key: root.props.pop(key) for key in MOVES if key in root.props}
        first.children, root.children = root.children, [first]
    _root_headers(root.props, headers, where, True)
    try:
        record = Record(name, start, headers)
    except BrettError as exc:
        raise where.error(root.offset, str(exc)) from None
    _replay(record, root, where)
    return record


def _game_name(root: _Raw, where: _Where) -> str:
    values, offset = root.props.get("GM", (["1"], root.offset))
    number = values[0].strip()
    known = number.isascii() and number.isdigit() and int(number[:6]) in GAME_OF_NUMBER
    if len(values) != 1 or not known:
        raise where.error(offset, f"GM[{values[0][:20]}] is not a game brett plays: "
                          f"expected GM[2] (Othello), GM[14] (Phutball) or GM[36] (Focus)")
    ff, ff_offset = root.props.get("FF", (["4"], root.offset))
    if len(ff) != 1 or ff[0].strip() not in ("1", "2", "3", "4"):
        raise where.error(ff_offset, f"FF[{ff[0][:20]}]: brett reads FF[1] to FF[4]")
    return GAME_OF_NUMBER[int(number)]


def _size(props: Props, default: tuple[int, int], where: _Where) -> tuple[int, int]:
    if "SZ" not in props:
        return default
    values, offset = props["SZ"]
    match = _SIZE.fullmatch(values[0].strip())
    if len(values) != 1 or match is None:
        raise where.error(offset, f"SZ[{values[0][:20]}]: expected SZ[n] or SZ[columns:rows]")
    columns = int(match.group(1))
    return columns, int(match.group(2) or columns)


def _start(name: str, props: Props, where: _Where) -> str:
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


def _reversi_setup(columns: int, rows: int, props: Props, where: _Where) -> str:
    """A Reversi position from SZ, AB/AW (the whole board when present), AE and PL."""
    from .reversi import Reversi

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


def _reversi_square(value: str, size: int, key: str, offset: int, where: _Where) -> str:
    square = value.strip().lower()
    column, number = square[:1], square[1:]
    if not (column and column in "abcdefghijklmnop"[:size] and number.isascii()
            and number.isdigit() and not number.startswith("0") and int(number[:3]) <= size):
        raise where.error(offset, f"{key}[{value[:20]}] is not a square of the "
                          f"{size}x{size} board")
    return square


def _root_headers(props: Props, headers: dict[str, str], where: _Where,
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


def _pairs(values: list[str], key: str, offset: int, where: _Where) -> list[tuple[str, str]]:
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


def _move_of(raw: _Raw, where: _Where) -> Optional[tuple[str, str, int]]:
    """(property, value, offset) of the node's move, if it has one."""
    found = [key for key in MOVES if key in raw.props]
    if len(found) > 1:
        raise where.error(raw.props[found[1]][1], f"two moves in one node: {' and '.join(found)}")
    if not found:
        return None
    values, offset = raw.props[found[0]]
    if len(values) != 1:
        raise where.error(offset, f"{found[0]} takes one move, not {len(values)} values")
    return found[0], values[0], offset


def _replay(record: Record, root: _Raw, where: _Where) -> None:
    """Build ``record``'s tree from ``root``'s children, playing every node once
    (depth first with push and pop: a long game costs no quadratic replay)."""
    try:
        game = record.game_class.from_position(record.start)
    except BrettError as exc:
        raise where.error(root.offset, f"bad start position: {exc}") from None
    # (raw node, record node it hangs below, the number of moves down to that node)
    stack = [(raw, record.root, 0) for raw in reversed(root.children)]
    while stack:
        raw, parent, depth = stack.pop()
        while len(game.move_stack) > depth:  # back to the parent's position
            game.pop()
        for key in SETUP:
            if key in raw.props:
                raise where.error(raw.props[key][1], f"{key}: setup is only read in the root")
        move = _move_of(raw, where)
        others = {key: value for key, value in raw.props.items() if key not in MOVES}
        if move is None:  # a node without a move adds to the node above
            _merge(record, parent, others, where)
            node = parent
        else:
            node = parent.add(_play(game, record.game_name, move, where))
            _node_properties(node, others, where)
            depth += 1
        stack.extend((child, node, depth) for child in reversed(raw.children))


def _play(game: Game[Any], name: str, move: tuple[str, str, int], where: _Where) -> str:
    key, value, offset = move
    text = value.strip()
    if name == "reversi" and text.lower() in PASSES:
        text = "pass"
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


def _node_properties(node: Node, props: Props, where: _Where) -> None:
    for key, (values, offset) in props.items():
        if key == "C":
            node.comment = values[0] if len(values) == 1 else _joined(values)
            continue
        pairs = _pairs(values, key, offset, where) if key == "BN" else [(key, _joined(values))]
        for name, value in pairs:
            if name in node.properties:
                raise where.error(offset, f"node property {name!r} given twice")
            node.properties[name] = value


def _merge(record: Record, node: Node, props: Props, where: _Where) -> None:
    """A node without a move: its comment and properties go to the node above."""
    if node.parent is None:
        _root_headers(props, record.headers, where, False)
        return
    comment = props.pop("C", None)
    if comment is not None:
        node.comment = "\n".join(filter(None, (node.comment, _joined(comment[0]))))
    _node_properties(node, props, where)


# ------------------------------------------------------------------ writing
def write_sgf(records: Union[Record, Iterable[Record]]) -> str:
    """SGF FF[4] text of ``records`` (one game tree each) that :func:`read_sgf`
    reads back to equal records; :class:`InvalidRecordError` for a record SGF
    cannot hold (Schuft, a move that does not replay, a comment on the root)."""
    if isinstance(records, Record):
        records = [records]
    parts = []
    for number, record in enumerate(records, 1):
        if not isinstance(record, Record):
            raise InvalidRecordError(f"record {number}: {record!r:.40} is not a Record")
        try:
            parts.append(_write_record(record))
        except BrettError as exc:
            raise InvalidRecordError(f"record {number}: {exc}") from None
    return "".join(parts)


def _write_record(record: Record) -> str:
    name = record.game_name
    if name not in GAME_NUMBERS:
        raise InvalidRecordError(f"{name} has no SGF game number: SGF holds "
                                 f"{', '.join(GAME_NUMBERS)}")
    if record.root.comment or record.root.properties:
        raise InvalidRecordError("SGF keeps a root comment as the 'Comment' header: "
                                 "the root node holds no comment or properties")
    game = record.game_class.from_position(record.start)
    out = [f"(;FF[4]GM[{GAME_NUMBERS[name]}]", _setup(name, game, record.start)]
    extra: list[str] = []
    for header, value in record.headers.items():
        if header in SGF_OF_HEADER:
            out.append(f"{SGF_OF_HEADER[header]}[{_escape(value)}]")
        elif _IDENT.fullmatch(header) and header not in RESERVED:
            out.append(f"{header}[{_escape(value)}]")
        else:
            extra.append(_pair(header, value, "header"))
    if extra:
        out.append("BH" + "".join(extra))
    out.append("\n")
    _write_tree(record, game, out)
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
                setup += key + "".join(f"[{square}]" for square in squares)
        setup += f"PL[{'BW'[game.current_player()]}]" if not game.is_over() else ""
    return f"{size}{setup}BP[{_escape(start)}]"


def _pair(name: str, value: str, what: str) -> str:
    if not name or ":" in name:
        raise InvalidRecordError(f"{what} name {name!r:.40}: SGF needs a name without ':'")
    return f"[{_escape(name)}:{_escape(value)}]"


def _write_tree(record: Record, game: Game[Any], out: list[str]) -> None:
    """The nodes below the root, variations in parentheses, played as written so
    each move gets its colour (an explicit stack: no recursion)."""
    stack: list[Union[tuple[Node, int], str]] = []
    _push_children(record.root, 0, stack)
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        node, depth = item
        while len(game.move_stack) > depth:
            game.pop()
        out.append(_write_node(game, record.game_name, node))
        _push_children(node, depth + 1, stack)


def _push_children(node: Node, depth: int, stack: list[Union[tuple[Node, int], str]]) -> None:
    if len(node.children) == 1:
        stack.append((node.children[0], depth))
        return
    for child in reversed(node.children):
        stack.extend((")", (child, depth), "\n("))


def _write_node(game: Game[Any], name: str, node: Node) -> str:
    player = game.current_player()
    if node.move is None:
        raise InvalidRecordError("a node below the root without a move")
    try:
        move = str(game.push(node.move))
    except BrettError as exc:
        raise InvalidRecordError(f"move {node.move!r:.40} does not replay: {exc}") from None
    if name == "focus":
        text = f";MV[{_escape(move)}]"
    else:
        text = f";{'BW'[player]}[{'' if move == 'pass' else _escape(move)}]"
    if node.comment:
        text += f"C[{_escape(node.comment)}]"
    extra = []
    for key, value in node.properties.items():
        if _IDENT.fullmatch(key) and key not in RESERVED:
            text += f"{key}[{_escape(value)}]"
        else:
            extra.append(_pair(key, value, "node property"))
    return text + ("BN" + "".join(extra) if extra else "")


__all__ = ["MAX_SGF", "read_sgf", "write_sgf"]
