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
request.  ``play`` and ``hint`` run the tree search of :mod:`brett.ai`.  A long
request (``perft``, ``play``, ``hint``) stops on a ``stop`` line or when stdin is
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
import time
from collections.abc import Callable
from typing import Any, Optional, TextIO

from .._checks import MAX_PERFT_DEPTH, MAX_TEXT, as_int, seed_value
from ..errors import BrettError
from ..game import CHANCE, GAMES, TERMINAL, Game

MAX_LINE = 1 << 20
"""The longest request line read (1 MiB); a longer one is answered with an error."""
MAX_GAMES = 1000
"""Games one server holds at once."""
MAX_LIST = 100_000
"""The most moves a ``legal`` or ``hint`` answer lists (``limit`` may ask for fewer)."""
MAX_SECONDS = 60.0
"""The longest search of ``play`` and ``hint``, whatever the budget asked for."""
MAX_ITERATIONS = 100_000_000
"""The largest ``iterations`` budget of ``play`` and ``hint``."""
DEFAULT_SECONDS = 1.0
"""The search of ``play`` and ``hint`` when no budget is given."""


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
            "save": self.save, "perft": self.perft, "play": self.play, "hint": self.hint,
            "quit": self.quit, "stop": self.stop}
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
        from ..render import svg

        options = request.get("options", {})
        if not isinstance(options, dict):
            raise ProtocolError("\"options\" must be an object of svg() arguments")
        try:
            return {"svg": svg(self._game(request), **options)}
        except TypeError as exc:
            raise ProtocolError(f"bad svg options: {exc}") from None

    def load(self, request: dict[str, Any]) -> dict[str, Any]:
        from ..records import load

        return self._register(load(self._text(request, "record")))

    def save(self, request: dict[str, Any]) -> dict[str, Any]:
        from ..records import dump

        return {"record": dump(self._game(request))}

    def perft(self, request: dict[str, Any]) -> dict[str, Any]:
        game = self._game(request)
        depth = as_int(request.get("depth"), "depth", 0, MAX_PERFT_DEPTH)
        nodes = self.control.run(lambda: game.perft(depth)) if self.control else \
            game.perft(depth)
        return {"depth": depth, "nodes": nodes}

    def play(self, request: dict[str, Any]) -> dict[str, Any]:
        """The tree search chooses a move and plays it (at a chance node: a roll)."""
        game = self._game(request)
        player = self._player(request)
        if game.is_chance_node():
            played = game.push(player.choose(game))
            return {"played": str(played), **self._state(game), "iterations": 0,
                    "seconds": 0.0, "interrupted": False}
        stats = self._search(player, game)
        best = stats[0]
        effects = _jsonable(dataclasses.asdict(game.effects(best.move)))
        played = game.push(best.move)
        return {"played": str(played), "effects": effects, **self._state(game),
                **self._info(player), "value": best.value}

    def hint(self, request: dict[str, Any]) -> dict[str, Any]:
        """The tree search's statistics of each move, best first; nothing is played."""
        game = self._game(request)
        player = self._player(request)
        limit = as_int(request.get("limit", MAX_LIST), "limit", 0, MAX_LIST)
        stats = self._search(player, game)
        return {"moves": [{"move": str(s.move), "visits": s.visits, "value": s.value}
                          for s in stats[:limit]], **self._info(player)}

    @staticmethod
    def _player(request: dict[str, Any]) -> Any:
        """The MCTSPlayer of a ``play`` or ``hint`` request's budget: ``level``, or
        ``seconds`` and/or ``iterations`` (the first reached ends the search)."""
        from ..ai import MCTSPlayer

        seed = seed_value(request.get("seed"))
        level, seconds, iterations = (request.get(k) for k in ("level", "seconds",
                                                                "iterations"))
        if level is not None:
            if seconds is not None or iterations is not None:
                raise ProtocolError("\"level\" is a budget of its own: give it without "
                                    "\"seconds\" and \"iterations\"")
            return MCTSPlayer.level(as_int(level, "level", 1, 10), seed=seed)
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(
                seconds, (int, float)) or not 0 < seconds <= MAX_SECONDS):
            raise BrettError(f"seconds={seconds!r:.40}: expected a number above 0 and at "
                             f"most {MAX_SECONDS:g}")
        if iterations is not None:
            iterations = as_int(iterations, "iterations", 1, MAX_ITERATIONS)
        if seconds is None:
            seconds = DEFAULT_SECONDS if iterations is None else MAX_SECONDS
        return MCTSPlayer(seconds=seconds, iterations=iterations, seed=seed)

    def _search(self, player: Any, game: Game[Any]) -> list[Any]:
        """``player.analyse(game)``; a ``stop`` ends it with the best found so far
        (the search's ``stop``), a person's Ctrl-C stops the server."""
        if self.control is None:
            stats: list[Any] = player.analyse(game)
            stopped = False
        else:
            stats, stopped = self.control.search(lambda: player.analyse(game), player.stop)
        if player.last_search.interrupted and not stopped:
            raise KeyboardInterrupt  # Ctrl-C, which the search turned into its best so far
        return stats  # never empty: every search completes an iteration

    @staticmethod
    def _info(player: Any) -> dict[str, Any]:
        info = player.last_search
        return {"iterations": info.iterations, "seconds": round(info.seconds, 6),
                "interrupted": info.interrupted}

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
    the input) can interrupt a long one: a perft by SIGINT in this process (the
    compiled searches stop within milliseconds), answered with an ``Interrupted``
    error; a tree search (``play``, ``hint``) through its ``stop()``, answered
    with its best so far.  The ``stop`` itself is answered with ``ok``."""
    inp = inp if inp is not None else sys.stdin
    out = out if out is not None else sys.stdout
    lines: queue.Queue[Line] = queue.Queue()
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
    signal was sent (so the KeyboardInterrupt it raises is not a user's Ctrl-C).

    A ``stop`` line interrupts the requests read before it: the one running, or
    one still waiting its turn (it is answered ``Interrupted`` as it starts).  A
    ``perft`` is interrupted by SIGINT, whose KeyboardInterrupt becomes the
    ``Interrupted`` error; a tree search by its own ``stop()``, so that it ends
    with the best move found so far."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.busy = False
        self.sent = False
        self.stopper: Optional[Callable[[], None]] = None
        self.runs = 0
        self.current = 0    # the number of the request line being answered
        self.stop_line = 0  # the number of the last stop line read

    def stop(self, line: Optional[int] = None) -> None:
        """A stop request (line ``line`` of the input) or the end of the input (None)."""
        with self.lock:
            if line is not None:
                self.stop_line = line
            if not self.busy:
                return
            self.sent = True
            if self.stopper is None:
                signal.raise_signal(signal.SIGINT)
                return
            run = self.runs
        # A search: ask until it has ended (its stop flag is made as it starts).
        while True:
            with self.lock:
                stopper = self.stopper if self.busy and self.runs == run else None
            if stopper is None:
                return
            stopper()
            time.sleep(0.005)

    def run(self, call: Callable[[], Any]) -> Any:
        """``call()``, interruptible by :meth:`stop`."""
        with self.lock:
            if self.stop_line > self.current:  # stopped before it started
                self.sent = True
                raise KeyboardInterrupt
            self.busy = True
            self.runs += 1
        try:
            return call()
        finally:
            with self.lock:
                self.busy = False

    def search(self, call: Callable[[], Any], stopper: Callable[[], None]) -> tuple[Any, bool]:
        """``call()`` (a search), ended early by ``stopper()`` on :meth:`stop`; its
        result and whether a stop came."""
        with self.lock:
            self.stopper = stopper
        try:
            result = self.run(call)
        finally:
            with self.lock:
                self.stopper = None
        with self.lock:
            stopped, self.sent = self.sent, False
        return result, stopped


Line = Optional[tuple[int, str]]


def _reader(inp: TextIO, lines: queue.Queue[Line], control: _Control) -> None:
    try:
        for number, line in enumerate(inp, 1):
            if _is_stop(line):
                control.stop(number)
            lines.put((number, line))
    except (OSError, ValueError):  # the input closed under us
        pass
    control.stop()  # the client went away: stop the search, then quit
    lines.put(None)


def _loop(server: Server, lines: queue.Queue[Line], out: TextIO, control: _Control) -> int:
    while not server.done:
        try:
            item = lines.get()
            if item is None:
                return 0
            control.current, line = item
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
