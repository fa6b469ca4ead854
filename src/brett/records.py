"""Game records as JSON, for every game.

A record holds the start position (its position string, so random holes, swaps
and the like are stored as their result, not as a seed), every move and chance
event in notation, and the result.  Replaying a record gives the identical
final position::

    >>> import brett
    >>> game = brett.Reversi()
    >>> for move in ("f5", "d6", "c3"):
    ...     _ = game.push(move)
    >>> text = brett.dump(game)
    >>> brett.load(text) == game
    True
"""

from __future__ import annotations

import importlib
import json
from typing import Any

from .errors import BrettError, InvalidRecordError
from .game import Game

FORMAT = "brett-record"
VERSION = 1
_CLASSES = {"reversi": "Reversi", "focus": "Focus", "phutball": "Phutball", "schuft": "Schuft"}


def to_dict(game: Game) -> dict[str, Any]:
    """The record of ``game`` as a JSON-ready dict."""
    start = game.copy()
    while start.move_stack:
        start.pop()
    outcome = game.outcome()
    result = None
    if outcome is not None:
        result = {"winners": list(outcome.winners), "scores": list(outcome.scores),
                  "reason": outcome.reason}
    return {
        "format": FORMAT,
        "version": VERSION,
        "game": game.game_name,
        "start": start.position(),
        "moves": [str(m) for m in game.move_stack],
        "result": result,
    }


def dump(game: Game, indent: int | None = None) -> str:
    """The record of ``game`` as a JSON string."""
    return json.dumps(to_dict(game), indent=indent)


def from_dict(record: dict[str, Any]) -> Game:
    """Replay a record dict; :class:`InvalidRecordError` says what is wrong."""
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise InvalidRecordError(f"not a brett record: expected \"format\": {FORMAT!r}")
    if record.get("version") != VERSION:
        raise InvalidRecordError(f"unsupported record version {record.get('version')!r}")
    name = record.get("game")
    if name not in _CLASSES:
        raise InvalidRecordError(f"unknown game {name!r}: expected one of {sorted(_CLASSES)}")
    moves = record.get("moves")
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise InvalidRecordError("\"moves\" must be a list of strings")
    cls = getattr(importlib.import_module(f"brett.{name}"), _CLASSES[name])
    try:
        game: Game = cls.from_position(record.get("start"))
    except BrettError as exc:
        raise InvalidRecordError(f"bad start position: {exc}") from exc
    for number, move in enumerate(moves, 1):
        try:
            if game.is_chance_node():  # a chance event (Schuft's roll) in notation
                game.roll(move)  # type: ignore[attr-defined]
            else:
                game.push(move)
        except BrettError as exc:
            raise InvalidRecordError(f"move {number} ({move!r}) does not replay: {exc}") from exc
    return game


def load(text: str) -> Game:
    """Replay a JSON record written by :func:`dump`."""
    try:
        record = json.loads(text)
    except (TypeError, json.JSONDecodeError) as exc:
        raise InvalidRecordError(f"record is not valid JSON: {exc}") from exc
    return from_dict(record)


__all__ = ["dump", "from_dict", "load", "to_dict"]
