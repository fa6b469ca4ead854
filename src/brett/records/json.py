"""Game records as JSON, for every game.

A record holds the start position (its position string, so random holes, swaps
and the like are stored as their result, not as a seed), every move and chance
event in notation, the actions of a move half made through the integer layer,
and the result.  Replaying a record gives the identical position, pending
actions included::

    >>> import brett
    >>> game = brett.Reversi()
    >>> for move in ("f5", "d6", "c3"):
    ...     _ = game.push(move)
    >>> text = brett.dump(game)
    >>> brett.load(text) == game
    True

A :class:`~brett.record.Record` (headers, comments, variations) dumps the same
way, with ``"headers"`` and, when the tree is more than a bare main line,
``"nodes"``: every node below the root in depth-first order as
``[parent, move, comment, properties]`` (``parent`` 0 is the root, node ``i`` is
number ``i + 1``).  :func:`load` gives the game at the end of its main line,
:func:`load_record` the record::

    >>> from brett.records import Record
    >>> record = Record.from_game(game, Black="Ann")
    >>> _ = record.root.children[0].add("f6", comment="or this")
    >>> brett.load_record(brett.dump(record)) == record
    True
"""

from __future__ import annotations

import itertools
import json
import re
import sys
from collections.abc import Iterable, Iterator
from typing import IO, Any, Optional, Union, cast

from .._checks import MAX_TEXT
from ..errors import BrettError, InvalidRecordError
from ..game import GAMES, AnyGame, Game
from ._io import Junk, Source, Splitter, Unit, bracketed, open_text, source_name, units
from .record import Record, replay

FORMAT = "brett-record"
VERSION = 1
MAX_RECORD = 64 * 2**20
"""The largest JSON record :func:`load` reads (64 MiB)."""


def to_dict(game: Union[Game[Any], Record]) -> dict[str, Any]:
    """The record of a game or a :class:`Record` as a JSON-ready dict."""
    if isinstance(game, Record):
        return _record_dict(game)
    if not isinstance(game, Game):
        raise InvalidRecordError(f"{game!r:.60} is not a brett game or record")
    outcome = game.outcome()
    result = None
    if outcome is not None:
        result = {"winners": list(outcome.winners), "scores": list(outcome.scores),
                  "reason": outcome.reason}
    record: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "game": game.game_name,
        "start": game.start_position(),
        "moves": [str(m) for m in game.move_stack],
        "result": result,
    }
    if game.pending_actions:
        record["pending_actions"] = list(game.pending_actions)
    return record


def _record_dict(record: Record) -> dict[str, Any]:
    main = record.root.mainline()
    data: dict[str, Any] = {
        "format": FORMAT, "version": VERSION, "game": record.game_name,
        "start": record.start, "moves": [n.move for n in main], "headers": record.headers,
    }
    nodes = list(record.root.walk())[1:]
    if len(nodes) != len(main) or any(n.comment or n.properties for n in nodes):
        index = {id(record.root): 0}
        rows = []
        for number, node in enumerate(nodes, 1):
            index[id(node)] = number
            rows.append([index[id(node.parent)], node.move, node.comment, node.properties])
        data["nodes"] = rows
    return data


def dump(game: Union[Game[Any], Record], indent: Optional[int] = None) -> str:
    """The record of a game or a :class:`Record` as a JSON string."""
    return json.dumps(to_dict(game), indent=indent)


def _field(record: dict[str, Any], name: str, kind: type, what: str) -> Any:
    value = record.get(name)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise InvalidRecordError(f"\"{name}\" must be {what}, not {value!r:.80}")
    return value


def _fields(record: Any) -> tuple[type[Game[Any]], str, list[str], list[int]]:
    """The checked game class, start, moves and pending actions of a record dict."""
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise InvalidRecordError(f"not a brett record: expected \"format\": {FORMAT!r}")
    if record.get("version") != VERSION or isinstance(record.get("version"), bool):
        raise InvalidRecordError(f"unsupported record version {record.get('version')!r:.40}")
    cls = GAMES.lookup(record.get("game"), InvalidRecordError)
    start = _field(record, "start", str, "a position string")
    moves = _field(record, "moves", list, "a list of move strings")
    if not all(isinstance(m, str) and len(m) <= MAX_TEXT for m in moves):
        raise InvalidRecordError("\"moves\" must be a list of move strings")
    pending = record.get("pending_actions", [])
    if not isinstance(pending, list) or not all(
            isinstance(a, int) and not isinstance(a, bool) for a in pending):
        raise InvalidRecordError("\"pending_actions\" must be a list of ints")
    return cls, start, moves, pending


def from_dict(record: dict[str, Any]) -> AnyGame:
    """Replay a record dict; :class:`InvalidRecordError` says what is wrong."""
    cls, start, moves, pending = _fields(record)
    game = replay(cls, start, moves)
    for action in pending:
        try:
            game.apply_action(action)
        except BrettError as exc:
            raise InvalidRecordError(f"pending action {action} does not replay: {exc}") from exc
    return cast("AnyGame", game)


def record_from_dict(data: dict[str, Any]) -> Record:
    """A :class:`Record` from a record dict (of a game or of a record), every
    node replayed once; :class:`InvalidRecordError` says what is wrong."""
    cls, start, moves, pending = _fields(data)
    if pending:
        raise InvalidRecordError("a move half made through the integer layer is not a "
                                 "record's move: load it as a game")
    headers = data.get("headers", {})
    if not isinstance(headers, dict):
        raise InvalidRecordError("\"headers\" must be an object of strings")
    rows = data.get("nodes")
    if rows is None:  # a bare main line: kept flat (one string per move text), the
        replay(cls, start, moves)  # tree built on first use
        return Record(data["game"], start, headers, line=[sys.intern(m) for m in moves])
    if not isinstance(rows, list):
        raise InvalidRecordError("\"nodes\" must be a list")
    record = Record(data["game"], start, headers)
    nodes = [record.root]
    for number, row in enumerate(rows, 1):
        if not (isinstance(row, list) and len(row) == 4 and type(row[0]) is int
                and 0 <= row[0] < number and isinstance(row[2], str)
                and isinstance(row[3], dict)
                and all(isinstance(v, str) for v in row[3].values())):
            raise InvalidRecordError(f"node {number} must be [parent before it, move, "
                                     f"comment, {{property: text}}], not {row!r:.80}")
        node = nodes[row[0]].add(row[1], row[2])
        node.properties.update(row[3])  # any names: "comment" is a property here too
        nodes.append(node)
    if [n.move for n in record.root.mainline()] != moves:
        raise InvalidRecordError("\"moves\" is not the main line of \"nodes\"")
    for _ in record.replay_tree():  # every line replays
        pass
    return record


def load_record(text: str) -> Record:
    """The :class:`Record` of a JSON record written by :func:`dump`."""
    return record_from_dict(_parse(text))


def load(text: str) -> AnyGame:
    """Replay a JSON record written by :func:`dump`."""
    return from_dict(_parse(text))


def _parse(text: Any) -> Any:
    if not isinstance(text, (str, bytes, bytearray)):
        raise InvalidRecordError(f"a record is JSON text, not {type(text).__name__}")
    if len(text) > MAX_RECORD:  # before decoding: bytes are at least as many as characters
        raise InvalidRecordError(f"record is {len(text)} characters: at most {MAX_RECORD}")
    if not isinstance(text, str):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidRecordError(f"record is not UTF-8 text: {exc}") from None
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise InvalidRecordError(f"record is not valid JSON: {exc}") from None


# ------------------------------------------------------------------ files
def iter_json(source: Source) -> Iterator[Record]:
    """The records of a JSON file (a path or an open file) holding one record
    object or a list of them, one by one: each object is decoded and replayed
    only when the one before it has been returned, so memory holds one record
    however long the list (each at most :data:`MAX_RECORD` characters)."""
    prefix = f"{source_name(source)}: "
    with open_text(source, "JSON") as stream:
        yield from _records(stream, prefix)


def _records(stream: IO[str], prefix: str) -> Iterator[Record]:
    splitter = _Split()
    for number, unit in enumerate(units(stream, splitter, prefix), 1):
        item = _decode(unit, prefix)
        try:
            yield record_from_dict(item)
        except InvalidRecordError as exc:
            raise InvalidRecordError(f"{prefix}record {number}: {exc}") from None
    if splitter.state == "begin":
        raise InvalidRecordError(f"{prefix}not valid JSON: no record in the file")


def _decode(unit: Unit, prefix: str) -> Any:
    try:
        return json.loads(unit.text[unit.begin:unit.end])
    except json.JSONDecodeError as exc:
        raise InvalidRecordError(f"{prefix}not valid JSON: {exc.msg}: "
                                 f"{unit.where(unit.begin + exc.pos)}") from None
    except (ValueError, RecursionError) as exc:
        raise InvalidRecordError(f"{prefix}not valid JSON: {exc}") from None


_RUN = re.compile(r'[^"{}\[\]]*(?:"[^"\\]*(?:\\.[^"\\]*)*"[^"{}\[\]]*)*', re.S)
"""Text up to the next bracket outside a string."""
_STRING = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*', re.S)
"""The inside of a string, up to its closing quote."""


class _Split(Splitter):
    """The objects of a JSON file: one, or the items of a list.  ``state``
    says what may come next: ``begin``, ``first`` (after '['), ``comma`` (after
    ','), ``next`` (after an item), ``done``."""

    name = "JSON record"
    limit = MAX_RECORD

    def __init__(self) -> None:
        self.state = "begin"
        self.consumed = 0
        self.items = 0

    def start(self, buf: str, i: int) -> int:
        j = _space(buf, i)
        while j < len(buf):
            ch, state = buf[j], self.state
            if ch == "{" and state in ("begin", "first", "comma"):
                self.state = "done" if state == "begin" else "next"
                self.items += 1
                return j
            if ch == "[" and state == "begin":
                self.state = "first"
            elif ch == "]" and state in ("first", "next"):
                self.state = "done"
            elif ch == "," and state == "next":
                self.state = "comma"
            else:
                raise Junk(j, self._unexpected(ch))
            j = _space(buf, j + 1)
            self.consumed = j
        return -1

    def _unexpected(self, ch: str) -> str:
        expected = {"begin": "expected a record object or a list of them",
                    "first": "expected a record object or ']'",
                    "comma": "a record expected after ','",
                    "next": f"expected ',' or ']' after record {self.items}",
                    "done": "extra data after the end"}
        return f"not valid JSON: {expected[self.state]}, found {ch[:1]!r}"

    def end(self, buf: str, i: int, resume: int, state: int) -> tuple[int, int, int]:
        return bracketed(buf, resume, state, _RUN, "{[", '"', _STRING)

    def finish(self, buf: str, i: int) -> None:
        j = _space(buf, i)
        if j < len(buf):
            raise Junk(j, self._unexpected(buf[j]))
        if self.state in ("first", "comma", "next"):
            raise Junk(j, "not valid JSON: the list of records never ends with ']'")


_SPACES = re.compile(r"[ \t\n\r]*")


def _space(buf: str, i: int) -> int:
    return _SPACES.match(buf, i).end()  # type: ignore[union-attr]


def json_texts(records: Iterable[Record]) -> Iterator[str]:
    """A JSON file's text in pieces, as the records come: one record alone as
    its object, several as a list."""
    items = iter(records)
    first = list(itertools.islice(items, 2))
    if len(first) == 1:
        yield json.dumps(to_dict(first[0]), indent=1) + "\n"
        return
    yield "["
    for number, record in enumerate(itertools.chain(first, items)):
        yield ("," if number else "") + "\n" + json.dumps(to_dict(record))
    yield "\n]\n"


__all__ = ["MAX_RECORD", "dump", "from_dict", "iter_json", "json_texts", "load", "load_record",
           "record_from_dict", "to_dict"]
