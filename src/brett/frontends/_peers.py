"""brett as the controller of other engines, for ``brett match``: engines in
subprocesses that speak GTP or the NBoard protocol, and brett's own players, all
behind one interface (:class:`Seat`) for the referee.

An engine runs in its own process group (Ctrl-C reaches brett only) and is read by
a thread of its own, so that every wait has a deadline; a crash or a late answer
drops the process (a late answer would be read as the next one), and closing
kills the whole group and reaps it.  What an engine writes is bounded: a line
longer than :data:`ENGINE_LINE` or more than :data:`UNREAD_LINES` lines nobody
asked for is a flood, and the engine forfeits; its error output goes to the
``--log`` file only up to :data:`LOG_BYTES`.  A signal that stops brett while an
engine starts waits until the process is recorded, so that it is always ended.
"""

from __future__ import annotations

import contextlib
import math
import os
import queue
import shlex
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Optional, TextIO

from ..errors import BrettError
from ..reversi import Reversi, ReversiMove
from ._engine import colour_name, peer_square, search

START_SECONDS = 30.0
"""The least time an engine gets to start and answer its first command."""
QUIT_SECONDS = 1.0
"""How long an engine may take to exit after ``quit`` before it is killed."""
BRETT_SEATS = ("random", "mcts", "level", "alphabeta")
ENGINE_LINE = 1 << 16
"""The longest line an engine may write (its answers are a few words)."""
UNREAD_LINES = 10_000
"""Lines an engine may write before brett reads them (status lines while it thinks)."""
TOO_MANY_LINES = f"wrote {UNREAD_LINES:,} lines that nobody asked for"
LOG_BYTES = 64 << 20
"""The most one match writes to its ``--log`` file, the engines' error output included."""


class MatchLog:
    """The ``--log`` file: brett's lines to and from the engines and the engines'
    error output, from several threads, up to ``limit`` characters; past it one
    line says the log was cut, and the rest is dropped (an engine's output is still
    read, so that it never blocks on a full pipe)."""

    def __init__(self, out: TextIO, limit: int = LOG_BYTES) -> None:
        self.out, self.limit, self.left = out, limit, limit
        self.lock = threading.Lock()

    def write(self, text: str) -> None:
        with self.lock:
            if self.left <= 0:
                return
            kept = text[:self.left]
            self.left -= len(kept)
            with contextlib.suppress(OSError, ValueError):
                self.out.write(kept)
                if self.left <= 0:
                    self.out.write(f"\n[brett: the log stops here, at its limit of "
                                   f"{self.limit:,} characters]\n")

    def pump(self, stream: IO[bytes]) -> None:
        """Copy an engine's error output (a thread's work) until it ends."""
        with contextlib.suppress(OSError, ValueError):
            for chunk in iter(lambda: stream.read1(1 << 16), b""):   # type: ignore[attr-defined]
                self.write(chunk.decode("utf-8", "replace"))


@contextlib.contextmanager
def _uninterrupted() -> Iterator[None]:
    """Hold the signals that stop brett (Ctrl-C, SIGTERM, SIGHUP) for the block, and
    deliver the first one after it: a process started inside is recorded before
    anything can stop brett (main thread only; elsewhere no signal arrives)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    numbers = [getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n)]
    previous = {n: signal.signal(n, lambda number, frame: caught.append(number))
                for n in numbers}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        if caught:
            signal.raise_signal(caught[0])


class Forfeit(Exception):
    """The engine on ``player`` loses the game: ``reason`` says why."""

    def __init__(self, player: int, reason: str) -> None:
        super().__init__(reason)
        self.player, self.reason = player, reason


class Unfit(BrettError):
    """An engine cannot play what the match asks (a board size, a set-up position):
    the match stops before more games are played."""


class Gone(Exception):
    """The engine's process ended or did not answer in time."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)


class EngineProcess:
    """A subprocess spoken to by lines, in its own process group, read by a thread."""

    def __init__(self, argv: list[str], label: str, log: Optional[MatchLog]) -> None:
        self.label, self.log = label, log
        try:
            with _uninterrupted():
                self.proc = subprocess.Popen(
                    argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE if log is not None else subprocess.DEVNULL,
                    start_new_session=True)
        except OSError as exc:
            raise BrettError(f"cannot start {shlex.join(argv)}: {exc.strerror or exc}") \
                from None
        except BaseException:   # a signal, delivered once the process was recorded
            if hasattr(self, "proc"):
                self.close(None)
            raise
        self.lines: queue.Queue[Optional[str]] = queue.Queue(UNREAD_LINES)
        self.flood: list[str] = []   # why the reader stopped reading a flood
        self.read_since_send = 0
        assert self.proc.stdout is not None
        self.reader = threading.Thread(target=_read,
                                       args=(self.proc.stdout, self.lines, self.flood),
                                       name=f"brett match: {label}", daemon=True)
        self.reader.start()
        self.errors: Optional[threading.Thread] = None
        if log is not None and self.proc.stderr is not None:
            self.errors = threading.Thread(target=log.pump, args=(self.proc.stderr,),
                                           name=f"brett match: {label} errors", daemon=True)
            self.errors.start()

    def send(self, line: str) -> None:
        self._log(">", line)
        self.read_since_send = 0   # past UNREAD_LINES: a flood, even read as they come
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(line.encode("utf-8") + b"\n")
            self.proc.stdin.flush()
        except (OSError, ValueError):
            raise Gone(self._ended()) from None

    def read(self, deadline: float) -> str:
        """The next line, waiting until ``deadline`` (``time.monotonic()``)."""
        if self.flood:
            raise self._flooded()
        try:
            line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise Gone("no answer in time") from None
        if line is None:
            if self.flood:
                raise self._flooded()
            self.proc.poll()
            raise Gone(self._ended())
        self._log("<", line)
        self.read_since_send += 1
        if self.read_since_send > UNREAD_LINES:
            self.flood.append(TOO_MANY_LINES)
            raise self._flooded()
        return line

    def _flooded(self) -> Gone:
        return Gone(f"flooded its output: it {self.flood[0]}")

    def _ended(self) -> str:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(0.5)
        code = self.proc.returncode
        return "crashed" if code is None else f"exited (code {code})"

    def _log(self, way: str, line: str) -> None:
        if self.log is not None:
            self.log.write(f"{self.label} {way} {line}\n")

    def close(self, quit_command: Optional[str]) -> None:
        """Ask it to quit, then kill its process group; always reaped."""
        if self.proc.poll() is None and quit_command is not None:
            with contextlib.suppress(Gone):
                self.send(quit_command)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(QUIT_SECONDS)
        if hasattr(os, "killpg"):
            with contextlib.suppress(OSError):
                os.killpg(self.proc.pid, signal.SIGKILL)   # its children too
        with contextlib.suppress(OSError):
            self.proc.kill()
        self.proc.wait()
        reader, errors = getattr(self, "reader", None), getattr(self, "errors", None)
        for thread in (reader, errors):
            if thread is not None:
                thread.join(1.0)   # the pipes' other ends are closed: they end
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            with contextlib.suppress(OSError):
                if pipe is not None:
                    pipe.close()


def _read(stream: IO[bytes], lines: queue.Queue[Optional[str]], flood: list[str]) -> None:
    """Queue the engine's lines; stop at a flood (``flood`` says which)."""
    with contextlib.suppress(OSError, ValueError):
        while True:
            raw = stream.readline(ENGINE_LINE + 1)
            if not raw:
                break
            if len(raw) > ENGINE_LINE and not raw.endswith(b"\n"):
                flood.append(f"wrote a line longer than {ENGINE_LINE:,} bytes")
                break
            try:
                lines.put_nowait(raw.decode("utf-8", "replace").rstrip("\r\n"))
            except queue.Full:
                flood.append(TOO_MANY_LINES)
                break
    with contextlib.suppress(queue.Full):
        lines.put_nowait(None)


class Seat:
    """One engine of the match, as the referee speaks to it."""

    name = "?"
    tells_passes = False
    """Whether the engine is told of forced passes."""

    def start(self) -> None:
        """(Re)start the engine if it is not running."""

    def new_game(self, game: Reversi, player: int) -> None:
        """A game starts at ``game`` (its moves played); the engine plays ``player``."""

    def choose(self, game: Reversi, player: int) -> str:
        """The engine's move for ``player``, as it wrote it."""
        raise NotImplementedError

    def told(self, game: Reversi, move: ReversiMove, player: int, own: bool) -> None:
        """``move`` of ``player`` was played (``game`` is after it)."""

    def close(self) -> None:
        """Stop the engine."""


class BrettSeat(Seat):
    """One of brett's players, in this process."""

    def __init__(self, spec: str, player: Any) -> None:
        self.name, self.player = spec, player

    def choose(self, game: Reversi, player: int) -> str:
        if hasattr(self.player, "analyse"):
            return str(search(self.player, game)[0].move)
        return str(self.player.choose(game))


class ProcessSeat(Seat):
    """An engine in a subprocess."""

    quit_command: Optional[str] = "quit"
    protocol = ""

    def __init__(self, argv: list[str], timeout: float, log: Optional[MatchLog],
                 label: str) -> None:
        self.argv, self.timeout, self.log, self.label = argv, timeout, log, label
        self.name = Path(argv[0]).name
        self.process: Optional[EngineProcess] = None

    def start(self) -> None:
        if self.process is None:
            with _uninterrupted():   # recorded before a signal can stop brett
                self.process = EngineProcess(self.argv, self.label, self.log)
            try:
                self.handshake(self.process)
            except Gone as exc:
                self.restart()
                raise BrettError(f"{shlex.join(self.argv)[:80]} did not start as a "
                                 f"{self.protocol} engine: {exc}") from None

    def handshake(self, process: EngineProcess) -> None:
        """What the protocol says first."""

    def engine(self) -> EngineProcess:
        self.start()
        assert self.process is not None
        return self.process

    def restart(self) -> None:
        """Drop the process (it crashed or is late: a late answer would be read as the
        next one); the next game starts a new one."""
        if self.process is not None:
            self.process.close(None)
            self.process = None

    def close(self) -> None:
        if self.process is not None:
            self.process.close(self.quit_command)
            self.process = None

    def deadline(self, seconds: Optional[float] = None) -> float:
        return time.monotonic() + (self.timeout if seconds is None else seconds)

    def forfeit(self, player: int, what: str, reason: Exception) -> Forfeit:
        self.restart()
        return Forfeit(player, f"{self.name} {what}: {reason}")


class GtpSeat(ProcessSeat):
    """An engine that speaks GTP: ``play`` for the opponent's moves, forced passes left
    out, ``genmove`` for its own, ``time_settings 0 S 1`` and ``time_left`` when the
    match gives S seconds a move."""

    protocol = "GTP"

    def __init__(self, argv: list[str], timeout: float, log: Optional[MatchLog], label: str,
                 seconds: Optional[float]) -> None:
        super().__init__(argv, timeout, log, label)
        self.seconds = seconds
        self.commands: set[str] = set()

    def handshake(self, process: EngineProcess) -> None:
        deadline = self.deadline(max(self.timeout, START_SECONDS))
        self.ask("protocol_version", deadline)
        listed = self.ask("list_commands", deadline, fail=False)
        self.commands = set() if listed.startswith("?") else set(listed.split())
        name = self.ask("name", deadline) if "name" in self.commands else ""
        version = self.ask("version", deadline) if "version" in self.commands else ""
        self.name = " ".join(w for w in (name, version) if w) or self.name
        if "set_game" in self.commands:   # Quarry's extension; GRhino wants it
            self.ask("set_game Othello", deadline)

    def ask(self, command: str, deadline: float, fail: bool = True) -> str:
        """The answer's text; a ``?`` answer raises :class:`Unfit` (or is returned
        with its ``?`` when not ``fail``)."""
        process = self.process
        assert process is not None
        process.send(command)
        line = ""
        while not line.strip():
            line = process.read(deadline)
        answer = [line]
        while line.strip():
            line = process.read(deadline)
            answer.append(line)
        text = "\n".join(answer).strip()
        if not text.startswith(("=", "?")):
            raise Gone(f"answered {text[:60]!r} to {command!r}, not '=' or '?'")
        if text.startswith("?") and fail:
            raise Unfit(f"{self.name}: {command!r} failed: {text[1:].strip()[:100]}")
        return text if text.startswith("?") else text[1:].strip()

    def new_game(self, game: Reversi, player: int) -> None:
        deadline = self.deadline(max(self.timeout, START_SECONDS))
        self.engine()
        try:
            self.ask(f"boardsize {game.size}", deadline)
            self.ask("clear_board", deadline)
            self._set_up(game, deadline)
            if self.seconds is not None and "time_settings" in self.commands:
                self.ask(f"time_settings 0 {_whole_seconds(self.seconds)} 1", deadline)
        except Gone as exc:
            raise self.forfeit(player, "failed to start a game", exc) from None

    def _set_up(self, game: Reversi, deadline: float) -> None:
        start = Reversi.from_position(game.start_position())
        if start.position() != Reversi(size=game.size).position():
            self._load(game, deadline)
            return
        replay = start.copy()
        for move in game.move_stack:
            if not move.is_pass:
                self.ask(f"play {colour_name(replay.turn)} {peer_square(move, 'pass')}",
                         deadline)
            replay.push(move)

    def _load(self, game: Reversi, deadline: float) -> None:
        """A set-up start goes through ``loadsgf`` (GTP has no other way)."""
        from ..records import Record
        from ..records.sgf import write_sgf

        if "loadsgf" not in self.commands:
            raise Unfit(f"{self.name} cannot start from a set-up position (it has no "
                        f"loadsgf): give openings as moves from the start")
        with tempfile.TemporaryDirectory(prefix="brett-match-") as folder:
            path = Path(folder) / "start.sgf"
            path.write_text(write_sgf([Record.from_game(game)]), encoding="utf-8")
            self.ask(f"loadsgf {path}", deadline)

    def choose(self, game: Reversi, player: int) -> str:
        colour = colour_name(player)
        try:
            deadline = self.deadline()
            if self.seconds is not None and "time_left" in self.commands:
                self.ask(f"time_left {colour} {_whole_seconds(self.seconds)} 1", deadline)
            answer = self.ask(f"genmove {colour}", deadline, fail=False)
        except (Gone, Unfit) as exc:
            raise self.forfeit(player, "failed at genmove", exc) from None
        if answer.startswith("?"):
            raise Forfeit(player, f"{self.name} refused genmove: {answer[1:].strip()[:80]}")
        return answer

    def told(self, game: Reversi, move: ReversiMove, player: int, own: bool) -> None:
        if own or move.is_pass:
            return
        try:
            answer = self.ask(f"play {colour_name(player)} {peer_square(move, 'pass')}",
                              self.deadline(), fail=False)
        except Gone as exc:
            raise self.forfeit(1 - player, f"failed to take {move}", exc) from None
        if answer.startswith("?"):
            raise Forfeit(1 - player, f"{self.name} refused the legal move {move}: "
                                      f"{answer[1:].strip()[:80]}")


class NBoardSeat(ProcessSeat):
    """An engine that speaks the NBoard protocol: ``set game`` with the start, ``move``
    for every move (``PA`` for passes), ``go`` for its own."""

    tells_passes = True
    protocol = "NBoard"

    def __init__(self, argv: list[str], timeout: float, log: Optional[MatchLog], label: str,
                 depth: int) -> None:
        super().__init__(argv, timeout, log, label)
        self.depth = depth
        self.pings = 0

    def handshake(self, process: EngineProcess) -> None:
        process.send("nboard 1")
        process.send(f"set depth {self.depth}")
        self.sync(self.deadline(max(self.timeout, START_SECONDS)))

    def sync(self, deadline: float) -> None:
        """``ping`` and read up to its ``pong`` (taking the engine's name on the way)."""
        process = self.engine() if self.process is None else self.process
        self.pings += 1
        process.send(f"ping {self.pings}")
        while True:
            words = process.read(deadline).split()
            if words[:2] == ["set", "myname"] and len(words) > 2:
                self.name = " ".join(words[2:])
            if words == ["pong", str(self.pings)]:
                return

    def new_game(self, game: Reversi, player: int) -> None:
        from ..records import Record
        from ..records.ggf import write_ggf

        try:
            text = write_ggf([Record.from_game(game)]).strip()
        except BrettError as exc:
            raise Unfit(f"{self.name}: NBoard engines get GGF games: {exc}") from None
        try:
            self.engine().send(f"set game {text}")
            self.sync(self.deadline(max(self.timeout, START_SECONDS)))
        except Gone as exc:
            raise self.forfeit(player, "failed to start a game", exc) from None

    def choose(self, game: Reversi, player: int) -> str:
        try:
            process = self.engine()
            process.send("go")
            deadline = self.deadline()
            while True:
                words = process.read(deadline).split()
                if words and words[0] == "===":
                    return words[1].split("/")[0] if len(words) > 1 else ""
        except Gone as exc:
            raise self.forfeit(player, "failed at go", exc) from None

    def told(self, game: Reversi, move: ReversiMove, player: int, own: bool) -> None:
        try:
            self.engine().send(f"move {peer_square(move, 'PA')}")
        except Gone as exc:
            raise self.forfeit(player if own else 1 - player, f"failed to take {move}",
                               exc) from None


def _whole_seconds(seconds: float) -> int:
    """GTP's times are whole seconds: at least one."""
    return max(1, math.ceil(seconds))


# ------------------------------------------------------------------ seats from specs
@dataclass
class Budget:
    """What the match gives a move: seconds or iterations (brett's ``mcts``; GTP
    engines get the seconds as a clock), the deadline of an answer, and the
    depth of NBoard engines."""

    seconds: Optional[float]
    iterations: Optional[int]
    timeout: float
    depth: int


def make_seat(spec: str, budget: Budget, seed: Optional[int], log: Optional[MatchLog],
              label: str) -> Seat:
    """``random``, ``mcts``, ``mcts:S``, ``level:N``, ``alphabeta``, ``alphabeta:S``,
    ``gtp:CMD``, ``nboard:CMD``, or a
    command line (its protocol detected)."""
    text = spec.strip()
    kind, colon, value = text.partition(":")
    kind = kind.strip().lower()
    if kind in BRETT_SEATS and (colon or kind != "level"):
        return BrettSeat(text, _brett_player(kind, value.strip(), colon, budget, seed))
    if colon and kind in ("gtp", "nboard"):
        argv = _argv(value, spec)
    else:
        argv = _argv(text, spec)
        kind = _detect(argv, budget, log, label)
    if kind == "gtp":
        return GtpSeat(argv, budget.timeout, log, label, budget.seconds)
    return NBoardSeat(argv, budget.timeout, log, label, budget.depth)


def _argv(command: str, spec: str) -> list[str]:
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise BrettError(f"engine {spec!r:.60}: {exc}") from None
    if not argv:
        raise BrettError(f"engine {spec!r:.60}: no command")
    return argv


def _brett_player(kind: str, value: str, colon: str, budget: Budget,
                  seed: Optional[int]) -> Any:
    from ..ai import MCTSPlayer, RandomPlayer, ReversiPlayer

    if kind == "alphabeta":  # 8x8 Reversi only: ReversiPlayer refuses other boards
        try:
            return ReversiPlayer(seconds=float(value) if colon else budget.seconds or 1.0,
                                 seed=seed)
        except ValueError:
            raise BrettError(f"engine 'alphabeta:{value[:20]}': alphabeta:SECONDS takes the "
                             "seconds a move, above 0") from None
    if kind == "random":
        if colon:
            raise BrettError("engine 'random' takes no value")
        return RandomPlayer(seed)
    try:
        if kind == "level":
            return MCTSPlayer.level(int(value), seed=seed)
        if colon:
            return MCTSPlayer(seconds=float(value), seed=seed)
    except ValueError:   # BrettError included: the player's own checks
        usage = "level:N takes a level from 1 to 10" if kind == "level" else \
            "mcts:SECONDS takes the seconds a move, above 0"
        raise BrettError(f"engine '{kind}:{value[:20]}': {usage}") from None
    return MCTSPlayer(seconds=budget.seconds, iterations=budget.iterations, seed=seed)


def _detect(argv: list[str], budget: Budget, log: Optional[MatchLog], label: str) -> str:
    """``gtp`` or ``nboard``: what a command answers to ``protocol_version`` (GTP
    answers ``= ...``) and to ``nboard 1`` + ``ping 1`` (NBoard answers ``pong 1``)."""
    process: Optional[EngineProcess] = None
    try:
        with _uninterrupted():   # recorded before a signal can stop brett
            process = EngineProcess(argv, label, log)
        for line in ("protocol_version", "nboard 1", "ping 1"):
            process.send(line)
        deadline = time.monotonic() + max(budget.timeout, START_SECONDS)
        while True:
            words = process.read(deadline).split()
            if words and words[0].startswith(("=", "?")):
                return "gtp"
            if words[:1] == ["pong"]:
                return "nboard"
    except Gone as exc:
        raise BrettError(f"{shlex.join(argv)}: neither GTP nor NBoard ({exc}): name the "
                         f"protocol with gtp: or nboard:") from None
    finally:
        if process is not None:
            process.close("quit")


