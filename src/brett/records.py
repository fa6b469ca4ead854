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

    >>> from brett.record import Record
    >>> record = Record.from_game(game, Black="Ann")
    >>> _ = record.root.children[0].add("f6", comment="or this")
    >>> brett.load_record(brett.dump(record)) == record
    True
"""

from __future__ import annotations

import json
import sys
from typing import Any, Optional, Union

from ._checks import MAX_TEXT
from .errors import BrettError, InvalidRecordError
from .game import GAMES, Game
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


def from_dict(record: dict[str, Any]) -> Game[Any]:
    """Replay a record dict; :class:`InvalidRecordError` says what is wrong."""
    cls, start, moves, pending = _fields(record)
    game = replay(cls, start, moves)
    for action in pending:
        try:
            game.apply_action(action)
        except BrettError as exc:
            raise InvalidRecordError(f"pending action {action} does not replay: {exc}") from exc
    return game


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


def load(text: str) -> Game[Any]:
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


__all__ = ["dump", "from_dict", "load", "load_record", "record_from_dict", "to_dict"]
