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
"""

from __future__ import annotations

import json
from typing import Any, Optional

from ._checks import MAX_TEXT
from .errors import BrettError, InvalidRecordError
from .game import GAMES, Game

FORMAT = "brett-record"
VERSION = 1
MAX_RECORD = 64 * 2**20
"""The largest JSON record :func:`load` reads (64 MiB)."""


def to_dict(game: Game[Any]) -> dict[str, Any]:
    """The record of ``game`` as a JSON-ready dict."""
    if not isinstance(game, Game):
        raise InvalidRecordError(f"{game!r} is not a brett game")
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


def dump(game: Game[Any], indent: Optional[int] = None) -> str:
    """The record of ``game`` as a JSON string."""
    return json.dumps(to_dict(game), indent=indent)


def _field(record: dict[str, Any], name: str, kind: type, what: str) -> Any:
    value = record.get(name)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise InvalidRecordError(f"\"{name}\" must be {what}, not {value!r:.80}")
    return value


def from_dict(record: dict[str, Any]) -> Game[Any]:
    """Replay a record dict; :class:`InvalidRecordError` says what is wrong."""
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
    try:
        game = cls.from_position(start)
    except BrettError as exc:
        raise InvalidRecordError(f"bad start position: {exc}") from exc
    for number, move in enumerate(moves, 1):
        try:
            game.push(move)
        except BrettError as exc:
            raise InvalidRecordError(
                f"move {number} ({move[:40]!r}) does not replay: {exc}") from exc
    for action in pending:
        try:
            game.apply_action(action)
        except BrettError as exc:
            raise InvalidRecordError(f"pending action {action} does not replay: {exc}") from exc
    return game


def load(text: str) -> Game[Any]:
    """Replay a JSON record written by :func:`dump`."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidRecordError(f"record is not UTF-8 text: {exc}") from None
    if not isinstance(text, str):
        raise InvalidRecordError(f"a record is JSON text, not {type(text).__name__}")
    if len(text) > MAX_RECORD:
        raise InvalidRecordError(f"record is {len(text)} characters: at most {MAX_RECORD}")
    try:
        record = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise InvalidRecordError(f"record is not valid JSON: {exc}") from None
    return from_dict(record)


__all__ = ["dump", "from_dict", "load", "to_dict"]
