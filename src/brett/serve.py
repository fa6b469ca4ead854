"""``brett serve``: a JSON Lines engine protocol over stdin and stdout.

A frontend in any language runs ``brett serve`` as a subprocess and writes one
request per line; the server answers each with one line, in order::

    {"id": 1, "cmd": "new", "game": "reversi", "options": {"size": 6}}
    {"id": 1, "ok": true, "game_id": "g1", ...the state...}
    {"id": 2, "cmd": "move", "game_id": "g1", "move": "c4"}
    {"id": 2, "ok": true, ...the new state...}

An error is ``{"id": ..., "ok": false, "error": {"type": ..., "message": ...}}``
with the :class:`~brett.BrettError` subclass's name, or ``ProtocolError`` for a
request the protocol does not understand; the games are unchanged by a failed
request.  A long request (``perft``) stops on a ``stop`` line or when stdin is
closed.  docs/protocol.md describes every command; docs/protocol.schema.json is
the JSON Schema of the requests and responses.
"""

from __future__ import annotations

import dataclasses
import json
import queue
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any, Optional, TextIO

from ._checks import MAX_PERFT_DEPTH, MAX_TEXT, as_int
from .errors import BrettError
from .game import CHANCE, GAMES, TERMINAL, Game

MAX_LINE = 1 << 20
"""The longest request line read (1 MiB); a longer one is answered with an error."""
MAX_GAMES = 1000
"""Games one server holds at once."""
MAX_LIST = 100_000
"""The most moves a ``legal`` answer lists (``limit`` may ask for fewer)."""


class ProtocolError(Exception):
    """A request the protocol does not understand (bad JSON, fields, command)."""


def _jsonable(value: Any) -> Any:
    """Tuples to lists, recursively (a piece map's stacks); anything else that JSON
    has no type for (a Schuft roll) as its notation."""
    if isinstance(value, (tuple, list)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


class Server:
    """The games and the commands (one thread; see :func:`serve` for the I/O)."""

    def __init__(self, control: Optional[_Control] = None) -> None:
        self.control = control
        self.games: dict[str, Game[Any]] = {}
        self.created = 0
        self.commands: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "new": self.new, "close": self.close, "state": self.state, "legal": self.legal,
            "move": self.move, "undo": self.undo, "roll": self.roll,
            "random_move": self.random_move, "svg": self.svg, "load": self.load,
            "save": self.save, "perft": self.perft, "quit": self.quit, "stop": self.stop}
        self.done = False

    # ---- dispatch
    def handle(self, line: str) -> dict[str, Any]:
        """The response to one request line (never raises, but KeyboardInterrupt)."""
        ident: Any = None
        try:
            request = self._parse(line)
            ident = request.get("id")
            command = request.get("cmd")
            if not isinstance(command, str) or command not in self.commands:
                known = ", ".join(sorted(self.commands))
                raise ProtocolError(f"unknown command {command!r:.40}: expected one of {known}")
            return {"id": ident, "ok": True, **self.commands[command](request)}
        except (BrettError, ProtocolError) as exc:
            return {"id": ident, "ok": False,
                    "error": {"type": type(exc).__name__, "message": str(exc)}}
        except Exception as exc:  # a bug of brett's: answered, and the games live on
            return {"id": ident, "ok": False,
                    "error": {"type": "InternalError",
                              "message": f"{type(exc).__name__}: {exc} (please report)"}}
        except KeyboardInterrupt:
            if self.control is None or not self.control.sent:
                raise  # a person's Ctrl-C: the server stops
            self.control.sent = False
            return {"id": ident, "ok": False,
                    "error": {"type": "Interrupted", "message": "stopped by a stop request"}}

    @staticmethod
    def _parse(line: str) -> dict[str, Any]:
        if len(line) > MAX_LINE:
            raise ProtocolError(f"a request line of {len(line)} characters: at most {MAX_LINE}")
        try:
            request = json.loads(line)
        except (ValueError, RecursionError) as exc:
            raise ProtocolError(f"not a JSON object: {exc}") from None
        if not isinstance(request, dict):
            raise ProtocolError("a request is a JSON object with \"cmd\"")
        return request

    # ---- fields
    def _game(self, request: dict[str, Any]) -> Game[Any]:
        key = request.get("game_id")
        if not isinstance(key, str) or key not in self.games:
            raise ProtocolError(f"unknown game_id {key!r:.40} (games: {sorted(self.games)[:10]})")
        return self.games[key]

    @staticmethod
    def _text(request: dict[str, Any], name: str) -> str:
        value = request.get(name)
        if not isinstance(value, str) or len(value) > MAX_TEXT:
            raise ProtocolError(f"\"{name}\" must be a string, not {value!r:.40}")
        return value

    def _state(self, game: Game[Any]) -> dict[str, Any]:
        player = game.current_player()
        outcome = game.outcome()
        return {
            "position": game.position(),
            "to_move": "chance" if player == CHANCE else None if player == TERMINAL
            else player,
            "outcome": None if outcome is None else {
                "winners": list(outcome.winners), "scores": list(outcome.scores),
                "reason": outcome.reason},
            "board": _jsonable(game.piece_map()),
            "moves_played": [str(m) for m in game.move_stack],
            "players": [game.player_name(p) for p in range(game.num_players())],
        }

    # ---- commands
    def new(self, request: dict[str, Any]) -> dict[str, Any]:
        cls = GAMES.lookup(request.get("game"), BrettError)
        options = request.get("options", {})
        if not isinstance(options, dict):
            raise ProtocolError("\"options\" must be an object of constructor arguments")
        if len(self.games) >= MAX_GAMES:
            raise ProtocolError(f"{MAX_GAMES} games are open: close one first")
        try:
            game = cls(**options)
        except TypeError as exc:  # an option the constructor does not take
            raise ProtocolError(f"bad options for {cls.game_name}: {exc}") from None
        return self._register(game)

    def open(self, game: Game[Any]) -> dict[str, Any]:
        """Open ``game`` under a new game_id: the fields of a ``new`` response."""
        return self._register(game)

    def _register(self, game: Game[Any]) -> dict[str, Any]:
        self.created += 1
        key = f"g{self.created}"
        self.games[key] = game
        return {"game_id": key, "game": game.game_name, **self._state(game)}

    def close(self, request: dict[str, Any]) -> dict[str, Any]:
        self._game(request)
        del self.games[request["game_id"]]
        return {}

    def state(self, request: dict[str, Any]) -> dict[str, Any]:
        return self._state(self._game(request))

    def legal(self, request: dict[str, Any]) -> dict[str, Any]:
        game = self._game(request)
        limit = as_int(request.get("limit", MAX_LIST), "limit", 0, MAX_LIST)
        prefix = request.get("prefix")
        if prefix is not None:  # click-to-move: the moves these clicks make, and what next
            if not isinstance(prefix, list) or not all(isinstance(c, str) for c in prefix):
                raise ProtocolError("\"prefix\" must be a list of square names")
            clicks = game.legal_moves.clicks(*prefix)
            return {"moves": [str(m) for m in clicks.moves[:limit]],
                    "count": len(clicks.moves), "next": list(clicks.next)}
        moves: list[str] = []
        for move in game.legal_moves:
            if len(moves) >= limit:
                break
            moves.append(str(move))
        return {"moves": moves, "count": game.legal_moves.count()}

    def move(self, request: dict[str, Any]) -> dict[str, Any]:
        game = self._game(request)
        text = self._text(request, "move")
        effects = _jsonable(dataclasses.asdict(game.effects(text)))  # checks the move too
        played = game.push(text)
        return {"played": str(played), "effects": effects, **self._state(game)}

    def undo(self, request: dict[str, Any]) -> dict[str, Any]:
        game = self._game(request)
        taken = game.pop()
        return {"undone": str(taken), **self._state(game)}

    def roll(self, request: dict[str, Any]) -> dict[str, Any]:
        game = self._game(request)
        if not game.is_chance_node():
            raise BrettError("not a chance node: there is nothing to roll")
        played = game.push(self._text(request, "roll"))
        return {"played": str(played), **self._state(game)}

    def random_move(self, request: dict[str, Any]) -> dict[str, Any]:
        game = self._game(request)
        if game.is_over():
            raise BrettError("the game is over")
        seed = request.get("seed")
        game.random_playout(seed=seed, max_plies=1)
        return {"played": str(game.peek()), **self._state(game)}

    def svg(self, request: dict[str, Any]) -> dict[str, Any]:
        from .render import svg

        options = request.get("options", {})
        if not isinstance(options, dict):
            raise ProtocolError("\"options\" must be an object of svg() arguments")
        try:
            return {"svg": svg(self._game(request), **options)}
        except TypeError as exc:
            raise ProtocolError(f"bad svg options: {exc}") from None

    def load(self, request: dict[str, Any]) -> dict[str, Any]:
        from .records import load

        return self._register(load(self._text(request, "record")))

    def save(self, request: dict[str, Any]) -> dict[str, Any]:
        from .records import dump

        return {"record": dump(self._game(request))}

    def perft(self, request: dict[str, Any]) -> dict[str, Any]:
        game = self._game(request)
        depth = as_int(request.get("depth"), "depth", 0, MAX_PERFT_DEPTH)
        nodes = self.control.run(lambda: game.perft(depth)) if self.control else \
            game.perft(depth)
        return {"depth": depth, "nodes": nodes}

    def quit(self, request: dict[str, Any]) -> dict[str, Any]:
        self.done = True
        return {}

    def stop(self, request: dict[str, Any]) -> dict[str, Any]:
        """Answered in order; its effect (interrupting a running search) was
        had when the reader saw it."""
        return {}


def serve(inp: Optional[TextIO] = None, out: Optional[TextIO] = None,
          server: Optional[Server] = None) -> int:
    """Answer requests from ``inp`` on ``out`` until ``quit`` or end of input.

    A reader thread takes the lines, so that a ``stop`` request (or the end of
    the input) can interrupt a long one: it raises SIGINT in this process, and
    the compiled searches stop within milliseconds; the interrupted request is
    answered with an ``Interrupted`` error, the ``stop`` itself with ``ok``."""
    inp = inp if inp is not None else sys.stdin
    out = out if out is not None else sys.stdout
    lines: queue.Queue[Optional[str]] = queue.Queue()
    control = _Control()
    server = server if server is not None else Server()
    server.control = control
    threading.Thread(target=_reader, args=(inp, lines, control), daemon=True,
                     name="brett-serve-reader").start()
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return _loop(server, lines, out, control)
    finally:
        signal.signal(signal.SIGINT, previous)


class _Control:
    """Whether a request that a stop may interrupt is running, and whether a stop
    signal was sent (so the KeyboardInterrupt it raises is not a user's Ctrl-C)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.busy = False
        self.sent = False

    def stop(self) -> None:
        with self.lock:
            if self.busy:
                self.sent = True
                signal.raise_signal(signal.SIGINT)

    def run(self, call: Callable[[], Any]) -> Any:
        """``call()``, interruptible by :meth:`stop`."""
        with self.lock:
            self.busy = True
        try:
            return call()
        finally:
            with self.lock:
                self.busy = False


def _reader(inp: TextIO, lines: queue.Queue[Optional[str]], control: _Control) -> None:
    try:
        for line in inp:
            if _is_stop(line):
                control.stop()
            lines.put(line)
    except (OSError, ValueError):  # the input closed under us
        pass
    control.stop()  # the client went away: stop the search, then quit
    lines.put(None)


def _loop(server: Server, lines: queue.Queue[Optional[str]], out: TextIO,
          control: _Control) -> int:
    while not server.done:
        try:
            line = lines.get()
            if line is None:
                return 0
            if line.strip():
                out.write(json.dumps(server.handle(line)) + "\n")
                out.flush()
        except KeyboardInterrupt:
            if not control.sent:
                return 130  # Ctrl-C from a person at the terminal
            control.sent = False  # a stop that came as its request ended: nothing to stop
        except BrokenPipeError:
            return 0  # the client closed our output: nobody is listening
    return 0


def _is_stop(line: str) -> bool:
    """A ``{"cmd": "stop"}`` request (any spacing, any id)."""
    if "stop" not in line or len(line) > 1000:
        return False
    try:
        request = json.loads(line)
    except ValueError:
        return False
    return isinstance(request, dict) and request.get("cmd") == "stop"


__all__ = ["ProtocolError", "Server", "serve"]
