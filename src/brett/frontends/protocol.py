"""The engine protocol's messages: requests, their fields, answers and errors.

A request is a JSON object with ``"cmd"`` (and optionally ``"id"``, echoed in
the answer); an answer is ``{"id": ..., "ok": true, ...}`` or ``{"id": ...,
"ok": false, "error": {"type": ..., "message": ...}}``.  What each command does
is in :mod:`~brett.frontends.commands`, sessions and searches in
:mod:`~brett.frontends.sessions`; the transports (stdio, HTTP, WebSocket) only
carry these messages.  docs/protocol.md is the reference, docs/protocol.schema.json
the JSON Schema of every message.

Every check here speaks the protocol's own words (JSON's types, the field's
name), so a client in any language can read the message.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping
from typing import Any, Optional

from .._checks import MAX_TEXT
from ..errors import BrettError
from ..game import CHANCE, TERMINAL, Game

PROTOCOL_VERSION = 2
"""Bumped when a request or an answer changes incompatibly."""


# ------------------------------------------------------------------ errors
class ProtocolError(Exception):
    """A request the protocol does not understand: not JSON, not an object, an
    unknown command or field, a missing or mistyped field, an unknown game_id."""


class LimitExceeded(Exception):
    """A limit of the session or the server (games, searches, sessions, sizes)."""


class Busy(Exception):
    """The game is taken by a running ``play``: wait for it, or stop it."""


class Interrupted(Exception):
    """A request ended early: a ``stop``, the session's end, a server limit."""


ERROR_TYPES = ("ProtocolError", "LimitExceeded", "Busy", "Interrupted", "InternalError")
"""The error types of the protocol itself; a game's errors carry the name of their
:class:`~brett.BrettError` subclass."""


def error_answer(ident: Any, exc: BaseException) -> dict[str, Any]:
    """The answer to a request that failed with ``exc``."""
    if isinstance(exc, (BrettError, ProtocolError, LimitExceeded, Busy, Interrupted)):
        kind, message = type(exc).__name__, str(exc)
    else:  # a bug of brett's: answered, and the server lives on
        kind, message = "InternalError", f"{type(exc).__name__}: {exc} (please report)"
    return {"id": ident, "ok": False, "error": {"type": kind, "message": message}}


# ------------------------------------------------------------------ JSON values
def show(value: Any, width: int = 40) -> str:
    """``value`` as JSON, cut to ``width`` characters (for messages)."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = str(value)
    return text if len(text) <= width else text[:width - 1] + "…"


def json_type(value: Any) -> str:
    """JSON's name of ``value``'s type."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    return "object"


def decode(raw: Any) -> dict[str, Any]:
    """A request from its text (``str`` or UTF-8 ``bytes``) or an already parsed
    object; ProtocolError for anything that is not a JSON object, and for a number
    that is not finite anywhere in it (``1e999``, ``NaN``: JSON has no such number,
    and an answer that echoed one could not be read)."""
    if isinstance(raw, (bytes, bytearray)):
        try:
            raw = bytes(raw).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ProtocolError(f"a request is UTF-8 text: byte {exc.start} is not") from None
    if isinstance(raw, str):
        if not raw.strip():
            raise ProtocolError("an empty request: a request is a JSON object with \"cmd\"")
        try:
            raw = json.loads(raw, parse_constant=_not_a_number, parse_float=_finite)
        except (ValueError, RecursionError) as exc:
            raise ProtocolError(f"not a JSON object: {exc}") from None
    elif isinstance(raw, dict):
        _check_finite(raw)
    if not isinstance(raw, dict):
        raise ProtocolError(f"a request is a JSON object with \"cmd\", not {json_type(raw)} "
                            f"{show(raw)}")
    return raw


def _not_a_number(name: str) -> Any:
    raise ProtocolError(f"{name} is not a JSON number: requests hold finite numbers only")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ProtocolError(f"the number {text[:40]} is beyond a double's range: requests "
                            "hold finite numbers only")
    return value


def _check_finite(request: dict[str, Any]) -> None:
    """A parsed request (from a Python caller) holds no infinity or NaN."""
    stack: list[Any] = [request]
    while stack:
        value = stack.pop()
        if isinstance(value, float) and not math.isfinite(value):
            raise ProtocolError(f"{value} is not a JSON number: requests hold finite "
                                "numbers only")
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, (list, tuple)):
            stack.extend(value)


def encode(message: dict[str, Any]) -> str:
    """An answer or event as JSON text.  JSON has no infinity or NaN: an answer that
    held one (a bug) is answered as an InternalError instead of invalid JSON."""
    try:
        return json.dumps(message, allow_nan=False)
    except ValueError:
        return json.dumps(error_answer(message.get("id") if "ok" in message else None,
                                       RuntimeError("the answer held a number that JSON "
                                                    "cannot write")))


# ------------------------------------------------------------------ fields
@dataclasses.dataclass(frozen=True)
class Field:
    """One field of a request: its JSON types and, for numbers, a range."""

    types: tuple[str, ...]
    required: bool = False
    low: Optional[float] = None
    high: Optional[float] = None
    above: bool = False          # the value must be greater than ``low``, not equal
    choices: tuple[str, ...] = ()
    length: int = MAX_TEXT       # the longest string

    def check(self, name: str, value: Any) -> Any:
        kind = json_type(value)
        if kind == "integer" and "number" in self.types and "integer" not in self.types:
            kind = "number"
        if kind not in self.types or (kind == "number" and value != value):
            raise ProtocolError(f"\"{name}\" must be {self.wanted()} (got {show(value)})")
        if kind in ("integer", "number") and not self._in_range(value):
            raise ProtocolError(f"\"{name}\" must be {self.wanted()} (got {show(value)})")
        if kind == "string" and len(value) > self.length:
            raise LimitExceeded(f"\"{name}\" is {len(value):,} characters long: at most "
                                f"{self.length:,}")
        if kind == "string" and self.choices and value not in self.choices:
            raise ProtocolError(f"\"{name}\" must be {self.wanted()} (got {show(value)})")
        return value

    def _in_range(self, value: float) -> bool:
        if self.low is not None and (value <= self.low if self.above else value < self.low):
            return False
        return self.high is None or value <= self.high

    def wanted(self) -> str:
        names = {"string": "a string", "integer": "an integer", "number": "a number",
                 "boolean": "true or false", "object": "an object", "array": "an array",
                 "null": "null"}
        text = " or ".join(names[t] for t in self.types)
        if self.choices:
            text = "one of " + ", ".join(f'"{c}"' for c in self.choices)
        elif self.low is not None and self.high is not None:
            low = f"above {_number(self.low)}" if self.above else f"from {_number(self.low)}"
            text += f" {low} {'up ' if self.above else ''}to {_number(self.high)}"
        return text


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def text(required: bool = True) -> Field:
    return Field(("string",), required)


def integer(low: int, high: int, required: bool = False) -> Field:
    return Field(("integer",), required, low, high)


COMMON = {"id": Field(("string", "integer", "number", "null", "boolean")),
          "cmd": text()}
"""The fields of every request.  ``id`` is a string, a number, true/false or null."""


def check_fields(command: str, request: Mapping[str, Any],
                 fields: Mapping[str, Field]) -> dict[str, Any]:
    """The request's fields, checked against ``fields`` (and :data:`COMMON`): an
    unknown field, a missing required one or a value of the wrong type or range
    is a ProtocolError naming it."""
    known = {**COMMON, **fields}
    for name in request:
        if name not in known:
            listed = ", ".join(f'"{k}"' for k in known)
            raise ProtocolError(f"unknown field {show(name)} in \"{command}\": it takes {listed}")
    for name, field in known.items():
        if name in request:
            field.check(name, request[name])
        elif field.required:
            raise ProtocolError(f"\"{command}\" needs \"{name}\" ({field.wanted()})")
    return dict(request)


# ------------------------------------------------------------------ answers
def jsonable(value: Any) -> Any:
    """Tuples to lists, recursively (a piece map's stacks); anything else that JSON
    has no type for (a Schuft roll) as its notation."""
    if isinstance(value, (tuple, list)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def state(game: Game[Any]) -> dict[str, Any]:
    """The fields every answer about a position carries."""
    player = game.current_player()
    return {
        "position": game.position(),
        "start": game.start_position(),
        "to_move": "chance" if player == CHANCE else None if player == TERMINAL else player,
        "outcome": outcome(game),
        "board": jsonable(game.piece_map()),
        "moves_played": [str(m) for m in game.move_stack],
        "ply": len(game.move_stack),
        "players": [game.player_name(p) for p in range(game.num_players())],
    }


def outcome(game: Game[Any]) -> Optional[dict[str, Any]]:
    """The result of a finished game, with a sentence that names the winners."""
    result = game.outcome()
    if result is None:
        return None
    return {"winners": list(result.winners), "scores": list(result.scores),
            "reason": result.reason, "summary": summary(game)}


def summary(game: Game[Any]) -> str:
    """How the game ended, in a sentence: ``"White (o) wins 12–4 (board full)"``
    (``"the game is not over"`` while it runs)."""
    result = game.outcome()
    if result is None:
        return "the game is not over"
    names = [game.player_name(p) for p in range(game.num_players())]
    if not result.winners:
        text = "Draw"
    else:
        who = " and ".join(names[p] for p in result.winners)
        text = f"{who} {'win' if len(result.winners) > 1 else 'wins'}"
    if result.scores:
        text += " " + "–".join(str(s) for s in result.scores)
    return f"{text} ({result.reason})"


def effects(game: Game[Any], move: Any) -> Any:
    """What ``move`` would change (the game's ``effects()`` record as JSON); checks
    the move."""
    return jsonable(dataclasses.asdict(game.effects(move)))


__all__ = ["ERROR_TYPES", "PROTOCOL_VERSION", "Busy", "Field", "Interrupted", "LimitExceeded",
           "ProtocolError", "check_fields", "decode", "encode", "error_answer", "jsonable",
           "outcome", "show", "state", "summary"]
