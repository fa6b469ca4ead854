"""Sessions, searches and limits: how one server serves many clients at once.

A :class:`Hub` is one server's state: its sessions, a pool of worker threads
for the searches, and a ticker thread that reports search progress, ends
searches past the server's time limit and expires idle games and sessions.

A :class:`Session` is one client: a stdio pipe, a WebSocket, or an HTTP client
holding the session's token.  Its games live under ids that only it can reach
(and that nobody could guess).  Quick commands run in the caller's thread, one
at a time per session; a search (``perft``, ``play``, ``hint``) is a
:class:`Job` that runs on a snapshot of the game in the hub's pool, so the
session and every other one go on being answered meanwhile; its answer arrives
later, through a :class:`~concurrent.futures.Future`.  A ``play`` holds its
game until it ends: moves on that game are refused (``Busy``) meanwhile.

Nothing here reads or writes a file, or knows how bytes travel.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import secrets
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Optional, Union

from .. import Stopped, Stopper
from ..game import Game
from .commands import COMMANDS, unknown_command
from .protocol import (
    Interrupted,
    LimitExceeded,
    ProtocolError,
    check_fields,
    decode,
    error_answer,
    show,
)

Answer = dict[str, Any]
Reply = Union[Answer, "Future[Answer]"]
"""What :meth:`Session.handle` returns: the answer, or its future for a search."""
Events = Callable[[Answer], None]
"""Where a streaming session's unsolicited messages go (progress, closed games)."""


@dataclasses.dataclass(frozen=True)
class Limits:
    """What one client may hold and ask for, and when idle things expire
    (seconds; None: never)."""

    request_bytes: int = 1 << 20
    """The largest request (a line, an HTTP body, a WebSocket message)."""
    games: int = 100
    """Games open at once in one session."""
    sessions: int = 1000
    """Sessions open at once in one server."""
    searches: int = 2
    """Searches (perft, play, hint) of one session running or waiting at once."""
    workers: int = max(8, 4 * (os.cpu_count() or 2))
    """Searches running at once in the whole server (the pool's threads): more than
    the cores, so that a short search never waits behind long ones (they share the
    cores; a tree search's time budget is wall time)."""
    queue: int = 64
    """Searches waiting for a worker in the whole server."""
    requests: int = 8
    """HTTP requests of one session in flight at once."""
    search_seconds: float = 60.0
    """The longest ``play`` or ``hint``, whatever budget it asks for."""
    perft_seconds: float = 600.0
    """The longest ``perft``: it is stopped (``Interrupted``) after this."""
    game_idle: Optional[float] = 7200.0
    """A game nobody asked about for this long is closed."""
    session_idle: Optional[float] = 1800.0
    """A session without a connection that sent nothing for this long ends."""
    evict_idle: float = 60.0
    """When the server is full, the session idle the longest makes room if it has been
    idle this long (a connection's too: it is closed)."""
    legal_seconds: float = 2.0
    """The longest ``legal``: past it, it answers the moves it has listed so far."""
    peer_sessions: int = 64
    """Sessions one client address may hold (past it, its own session idle the longest
    makes room if it has been idle ``evict_idle`` seconds)."""
    peer_connections: int = 64
    """WebSocket connections one client address may hold."""
    peer_requests: int = 8
    """Requests of one client address worked on at once (the others wait their turn):
    half the web server's request threads."""
    peer_long: int = 1
    """Requests of one client address that may take long (``legal``, ``load``) worked
    on at once: their work holds the interpreter, and two of them would slow every
    other client's quick requests."""
    peer_searches: int = 4
    """Searches one client address may have running or waiting, over all its sessions."""
    peer_search_seconds: float = 240.0
    """The time budgets of one client address's searches running or waiting, summed."""

    def public(self) -> dict[str, Any]:
        """The limits a client may want to know (``hello``)."""
        return {k: getattr(self, k) for k in ("request_bytes", "games", "searches",
                                              "search_seconds", "perft_seconds",
                                              "legal_seconds", "game_idle", "session_idle",
                                              "peer_sessions", "peer_searches")}


LOCAL = Limits(games=1000, searches=8, session_idle=None, game_idle=None)
"""One client on a pipe (``brett serve``): nothing expires."""

TICK = 0.2
"""Seconds between two looks of the ticker (progress, time limits)."""
SWEEP = 1.0
"""Seconds between two sweeps for idle games and sessions."""
PROGRESS_EVERY = 0.5
"""Seconds between two progress events of one search."""


class Slot:
    """One open game of a session."""

    __slots__ = ("game", "game_id", "playing", "used")

    def __init__(self, game_id: str, game: Game[Any]) -> None:
        self.game_id = game_id
        self.game = game
        self.used = time.monotonic()
        self.playing: Optional[Job] = None   # the play that holds the game

    def touch(self) -> None:
        self.used = time.monotonic()


class Job:
    """A search of a session, run by the hub's pool: ``work(job)`` gives the answer's
    fields; :attr:`answer` resolves to the whole answer.  A job stops in one of two
    ways: by its :class:`~brett.Stopper` (a perft inside ``work`` raises
    :class:`~brett.Stopped`), or, for a tree search that keeps its best move, by
    ``on_stop`` (the player's ``stop()``), asked again on every tick until the
    search has ended, so a stop that comes before the search has begun is not lost."""

    def __init__(self, session: Session, request: Answer, slot: Slot,
                 work: Callable[[Job], Answer], limit: float,
                 on_stop: Optional[Callable[[], None]] = None,
                 budget: Optional[float] = None) -> None:
        self.session = session
        self.ident = request.get("id")
        self.cmd: str = request["cmd"]
        self.slot = slot
        self.work = work
        self.limit = limit
        self.budget = budget or 0.0   # the seconds it asks for: its client's share counts them
        self.on_stop = on_stop   # a tree search's own stop (it keeps its best move)
        self.wants_progress = bool(request.get("progress"))
        self.report: Optional[Callable[[], Answer]] = None  # progress fields, while running
        self.answer: Future[Answer] = Future()
        self.stopper = Stopper()
        self.reason = "stopped by a stop request"
        self.started: Optional[float] = None
        self.next_progress = 0.0
        self._state = "waiting"   # then "running", then "done"
        self._lock = threading.Lock()

    def stop(self, reason: str) -> None:
        """End the job: a waiting one is answered ``Interrupted`` at once, a running
        one stops within milliseconds (a tree search keeps its best move)."""
        with self._lock:
            if not self.stopper.stopped:
                self.reason = reason
            self.stopper.stop()
            waiting, self._state = self._state == "waiting", (
                "done" if self._state == "waiting" else self._state)
        if waiting:
            self._finish(error_answer(self.ident, Interrupted(self.reason)))
        elif self.on_stop is not None:
            self.on_stop()

    def run(self) -> None:
        """In a worker thread of the hub's pool."""
        with self._lock:
            if self._state != "waiting":
                return
            self._state = "running"
        self.session.hub.job_started(self)
        self.started = time.monotonic()
        self.next_progress = self.started + PROGRESS_EVERY  # a report has something to say
        try:
            if self.on_stop is not None:   # stopped by on_stop: it keeps its best move
                fields = self.work(self)
            else:
                with self.stopper:
                    fields = self.work(self)
            answer: Answer = {"id": self.ident, "ok": True, **fields}
        except Stopped:
            answer = error_answer(self.ident, Interrupted(self.reason))
        except Exception as exc:
            answer = error_answer(self.ident, exc)
        self._finish(answer)

    def _finish(self, answer: Answer) -> None:
        self.session.job_ended(self)   # first: the game is free when the answer is read
        self.session.hub.job_ended(self)
        self.answer.set_result(answer)

    def progress(self) -> Optional[Answer]:
        """The progress event due now, if the client asked for them."""
        now = time.monotonic()
        report = self.report
        if not self.wants_progress or report is None or now < self.next_progress:
            return None
        self.next_progress = now + PROGRESS_EVERY
        return {"event": "progress", "id": self.ident, "cmd": self.cmd,
                "game_id": self.slot.game_id, **report()}


class Session:
    """One client's games and searches (see the module)."""

    def __init__(self, hub: Hub, events: Optional[Events] = None,
                 peer: Optional[str] = None) -> None:
        self.hub = hub
        self.limits = hub.limits
        self.token = secrets.token_urlsafe(24)
        self.events = events
        self.peer = peer                     # the client's address (None: a pipe)
        self.closer: Optional[Callable[[], None]] = None   # ends the connection, if any
        self.attached = events is not None   # a stream: it lives as long as its connection
        self.bounded: set[Stopper] = set()   # quick requests bounded in time (legal)
        self.lock = threading.RLock()        # quick commands, one at a time
        self.games: dict[str, Slot] = {}
        self.jobs: dict[int, Job] = {}       # under jobs_lock: stop must not wait for lock
        self.jobs_lock = threading.Lock()
        self.seen = time.monotonic()
        self.closed = False
        self.quit = False
        self.in_flight = 0                   # HTTP requests being answered

    # ---- requests
    def handle(self, raw: Any) -> Reply:
        """The answer to one request (text, bytes or a parsed object), or for a
        search its future.  Never raises."""
        self.seen = time.monotonic()
        ident: Any = None
        try:
            request = decode(raw)
            ident = _echoed(request.get("id"))
            name = request.get("cmd")
            command = COMMANDS.get(name) if isinstance(name, str) else None
            if command is None or not isinstance(name, str):
                raise unknown_command(name)
            check_fields(name, request, command.fields)
            if self.closed:
                raise Interrupted("this session has ended")
            with self.hub.long_turn(self.peer) if command.long else contextlib.nullcontext():
                if command.locked:
                    with self.lock:
                        result = command.run(self, request)
                else:
                    result = command.run(self, request)
            if isinstance(result, Job):
                return result.answer
            return {"id": ident, "ok": True, **result}
        except Exception as exc:
            return error_answer(ident, exc)

    def ask(self, raw: Any, timeout: Optional[float] = None) -> Answer:
        """:meth:`handle`, waiting for a search's answer (for Python callers and tests)."""
        reply = self.handle(raw)
        return reply.result(timeout) if isinstance(reply, Future) else reply

    def emit(self, event: Answer) -> None:
        """Send an unsolicited message to a streaming client (dropped on HTTP)."""
        sink = self.events
        if sink is not None and not self.closed:
            sink(event)

    # ---- games
    def slot(self, game_id: str) -> Slot:
        slot = self.games.get(game_id)
        if slot is None:
            raise ProtocolError(f"unknown game_id {show(game_id)}: not open in this session "
                                "(closed, expired when idle, or never opened here)")
        slot.touch()
        return slot

    def add_game(self, game: Game[Any]) -> Slot:
        if len(self.games) >= self.limits.games:
            raise LimitExceeded(f"{len(self.games)} games are open in this session, the "
                                "most it may hold: close one first")
        game_id = "g" + secrets.token_hex(6)
        slot = self.games[game_id] = Slot(game_id, game)
        return slot

    def close_game(self, slot: Slot, reason: str) -> None:
        """Close a game (its searches stop with ``reason``)."""
        self.games.pop(slot.game_id, None)
        self.stop(lambda job: job.slot is slot, reason)

    # ---- searches
    def search(self, request: Answer, slot: Slot, work: Callable[[Job], Answer], limit: float,
               on_stop: Optional[Callable[[], None]] = None,
               budget: Optional[float] = None) -> Job:
        """Start a search on ``slot``'s game (see :class:`Job`): it runs in the
        hub's pool; its answer comes through the job's future.  ``budget``: the
        seconds a tree search asks for (its client's share of the server counts them;
        a perft counts by number only)."""
        return self.start(Job(self, request, slot, work, limit, on_stop, budget))

    @contextlib.contextmanager
    def within(self, seconds: float) -> Iterator[Stopper]:
        """A quick request's work bounded in time: a :class:`~brett.Stopper` held by
        this thread that the hub's ticker stops after ``seconds``, and a ``stop``
        request of the session at once."""
        stopper = Stopper()
        with self.jobs_lock:
            self.bounded.add(stopper)
        self.hub.stop_at(stopper, time.monotonic() + seconds)
        try:
            with stopper:
                yield stopper
        finally:
            self.hub.stop_at(stopper, None)
            with self.jobs_lock:
                self.bounded.discard(stopper)

    def start(self, job: Job) -> Job:
        with self.jobs_lock:
            if len(self.jobs) >= self.limits.searches:
                raise LimitExceeded(f"{len(self.jobs)} searches of this session are running "
                                    "or waiting, the most it may have: wait for one or stop it")
            self.jobs[id(job)] = job
        try:
            self.hub.submit(job)
        except BaseException:
            with self.jobs_lock:
                self.jobs.pop(id(job), None)
            raise
        if job.cmd == "play":
            job.slot.playing = job
        return job

    def job_ended(self, job: Job) -> None:
        with self.jobs_lock:
            self.jobs.pop(id(job), None)
        if job.slot.playing is job:
            job.slot.playing = None

    def stop(self, which: Callable[[Job], bool], reason: str, bounded: bool = False) -> int:
        """Stop this session's searches that ``which`` picks (and, with ``bounded``,
        its quick requests bounded in time); how many."""
        with self.jobs_lock:
            chosen = [job for job in self.jobs.values() if which(job)]
            quick = list(self.bounded) if bounded else []
        for job in chosen:
            job.stop(reason)
        for stopper in quick:
            stopper.stop()
        return len(chosen) + len(quick)

    def end(self, reason: str) -> None:
        """End the session: its searches stop, its games are dropped, its connection
        (if the hub ends it) is closed."""
        self.closed = True
        self.stop(lambda job: True, reason, bounded=True)
        with self.lock:
            self.games.clear()
        closer, self.closer, self.events = self.closer, None, None
        if closer is not None:
            closer()


def _echoed(ident: Any) -> Any:
    """The request's id as the answer echoes it (a mistyped one as null)."""
    return ident if ident is None or isinstance(ident, (str, int, float, bool)) else None


class Hub:
    """One server: its sessions, the search pool and the ticker (see the module)."""

    def __init__(self, limits: Limits = Limits()) -> None:
        self.limits = limits
        self.lock = threading.Lock()
        self.sessions: dict[str, Session] = {}
        self.pool = ThreadPoolExecutor(limits.workers, thread_name_prefix="brett-search",
                                       initializer=_background)
        self.waiting = 0
        self.running: set[Job] = set()
        self.peers: dict[str, PeerShare] = {}   # what each client address holds
        self.long_turns: dict[str, tuple[threading.Semaphore, list[int]]] = {}
        self.deadlines: dict[Stopper, float] = {}
        self._closed = threading.Event()
        self._swept = time.monotonic()
        self._ticker = threading.Thread(target=self._tick, name="brett-ticker", daemon=True)
        self._ticker.start()

    # ---- sessions
    def open(self, events: Optional[Events] = None, peer: Optional[str] = None) -> Session:
        """A new session (``events``: a streaming client's sink for unsolicited
        messages; ``peer``: the client's address, whose share is limited)."""
        with self.lock:
            share = self.peers.get(peer) if peer is not None else None
            if share is not None and share.sessions >= self.limits.peer_sessions \
                    and not self._evict(peer, self.limits.evict_idle):
                raise LimitExceeded(f"this address holds {share.sessions} sessions, the "
                                    "most one may, all of them in use: end one first")
            if len(self.sessions) >= self.limits.sessions \
                    and not self._evict(None, self.limits.evict_idle):
                raise LimitExceeded(f"the server holds {len(self.sessions)} sessions, the "
                                    "most it may: try again later")
            session = Session(self, events, peer)
            self.sessions[session.token] = session
            if peer is not None:
                self.peers.setdefault(peer, PeerShare()).sessions += 1
        return session

    def get(self, token: str) -> Optional[Session]:
        with self.lock:
            return self.sessions.get(token)

    def end(self, session: Session, reason: str = "the session ended") -> None:
        with self.lock:
            self._forget(session)
        session.end(reason)

    def forget(self, session: Session) -> None:
        """Drop a session from the tables at once (its connection closed); it ends
        later, in :meth:`end`.  The address's share is free before that."""
        with self.lock:
            self._forget(session)

    def _forget(self, session: Session) -> None:
        """Drop a session from the tables (hub lock held)."""
        if self.sessions.pop(session.token, None) is not None and session.peer is not None:
            share = self.peers[session.peer]
            share.sessions -= 1
            if share.empty():
                del self.peers[session.peer]

    def _evict(self, peer: Optional[str], idle: float) -> bool:
        """Make room (hub lock held): end the session idle the longest (of ``peer``,
        if given) that searches nothing and has been idle ``idle`` seconds; a
        connection's session too (its connection is closed)."""
        now = time.monotonic()
        candidates = [s for s in self.sessions.values()
                      if (peer is None or s.peer == peer) and not s.jobs
                      and now - s.seen >= idle]
        if not candidates:
            return False
        oldest = min(candidates, key=lambda s: s.seen)
        self._forget(oldest)
        threading.Thread(target=oldest.end, args=("the server needed room",),
                         daemon=True).start()
        return True

    @contextlib.contextmanager
    def long_turn(self, peer: Optional[str]) -> Iterator[None]:
        """The address's turn for a request that may take long (a pipe's: at once)."""
        if peer is None:
            yield
            return
        with self.lock:
            turn, users = self.long_turns.setdefault(
                peer, (threading.Semaphore(self.limits.peer_long), [0]))
            users[0] += 1
        try:
            with turn:
                yield
        finally:
            with self.lock:
                users[0] -= 1
                if users[0] == 0:
                    del self.long_turns[peer]

    # ---- searches
    def submit(self, job: Job) -> None:
        peer = job.session.peer
        with self.lock:
            if self._closed.is_set():
                raise Interrupted("the server is shutting down")
            share = self.peers.get(peer) if peer is not None else None
            if share is not None:
                self._check_share(share, job)
            if self.waiting >= self.limits.queue:
                raise LimitExceeded(f"the server is busy: {len(self.running)} searches run and "
                                    f"{self.waiting} wait; try again later")
            self.waiting += 1
            if share is not None:
                share.searches += 1
                share.seconds += job.budget
        self.pool.submit(job.run)

    def _check_share(self, share: PeerShare, job: Job) -> None:
        limits = self.limits
        if share.searches >= limits.peer_searches:
            raise LimitExceeded(f"this address has {share.searches} searches running or "
                                "waiting, the most one may: wait for one or stop it")
        if share.seconds + job.budget > limits.peer_search_seconds:
            raise LimitExceeded(f"this address's searches running or waiting ask for "
                                f"{share.seconds:g} s, and this one {job.budget:g} s more: "
                                f"the most is {limits.peer_search_seconds:g} s")

    def job_started(self, job: Job) -> None:
        with self.lock:
            self.waiting -= 1
            self.running.add(job)

    def job_ended(self, job: Job) -> None:
        with self.lock:
            if job in self.running:
                self.running.discard(job)
            elif job.started is None:    # stopped while it waited
                self.waiting -= 1
            peer = job.session.peer
            share = self.peers.get(peer) if peer is not None else None
            if share is not None and peer is not None:
                share.searches -= 1
                share.seconds -= job.budget
                if share.empty():
                    del self.peers[peer]

    def stop_at(self, stopper: Stopper, deadline: Optional[float]) -> None:
        """Have the ticker stop ``stopper`` at ``deadline`` (None: forget it)."""
        with self.lock:
            if deadline is None:
                self.deadlines.pop(stopper, None)
            else:
                self.deadlines[stopper] = deadline

    # ---- the ticker
    def _tick(self) -> None:
        while not self._closed.wait(TICK):
            try:
                self._look()
            except Exception:  # pragma: no cover - the ticker must outlive any surprise
                continue

    def _look(self) -> None:
        now = time.monotonic()
        with self.lock:
            running = list(self.running)
            due = [stopper for stopper, at in self.deadlines.items() if at <= now]
        for stopper in due:
            stopper.stop()
        for job in running:
            if job.started is not None and now - job.started > job.limit:
                job.stop(f"{job.cmd} stopped after {job.limit:g} s: the server's limit")
            elif job.stopper.stopped and job.on_stop is not None:
                job.on_stop()   # again: the search may not have begun at the first stop
            event = job.progress()
            if event is not None:
                job.session.emit(event)
        if now - self._swept >= SWEEP:
            self._swept = now
            self.sweep(now)

    def sweep(self, now: Optional[float] = None) -> None:
        """Close idle games and end idle connectionless sessions."""
        now = time.monotonic() if now is None else now
        game_idle, session_idle = self.limits.game_idle, self.limits.session_idle
        with self.lock:
            sessions = list(self.sessions.values())
        for session in sessions:
            if session_idle is not None and not session.attached and not session.jobs \
                    and now - session.seen > session_idle:
                self.end(session, f"the session was idle for {session_idle:g} s")
                continue
            if game_idle is not None:
                _close_idle_games(session, now, game_idle)

    def close(self) -> None:
        """Stop every search and the ticker (the server shuts down)."""
        self._closed.set()
        with self.lock:
            sessions = list(self.sessions.values())
            self.sessions.clear()
            self.peers.clear()
        for session in sessions:
            session.end("the server is shutting down")
        self.pool.shutdown(wait=False, cancel_futures=True)


@dataclasses.dataclass
class PeerShare:
    """What one client address holds of a server: sessions, and searches running or
    waiting with the seconds they ask for."""

    sessions: int = 0
    searches: int = 0
    seconds: float = 0.0

    def empty(self) -> bool:
        return self.sessions == 0 and self.searches == 0


SEARCH_NICENESS = 10
"""How much lower the search threads' scheduling priority is (Linux; elsewhere none)."""


def _background() -> None:
    """Searches are background work: on Linux, where each thread has its own
    priority, the pool's threads yield the CPU to the threads answering quick
    requests, so a busy machine still answers ``state`` or ``move`` at once."""
    native_id = getattr(threading, "get_native_id", None)
    if sys.platform.startswith("linux") and native_id is not None:
        with contextlib.suppress(OSError, AttributeError):
            os.setpriority(os.PRIO_PROCESS, native_id(), SEARCH_NICENESS)


def _close_idle_games(session: Session, now: float, idle: float) -> None:
    # The ticker never waits for a session's lock: a request holding it (a legal)
    # waits for the ticker to stop it at its deadline.  A busy session is not idle.
    if not session.lock.acquire(blocking=False):
        return
    try:
        with session.jobs_lock:
            searched = {id(job.slot) for job in session.jobs.values()}
        stale = [slot for slot in session.games.values()
                 if id(slot) not in searched and now - slot.used > idle]
        for slot in stale:
            session.close_game(slot, "the game expired")
            session.emit({"event": "closed", "game_id": slot.game_id,
                          "reason": f"idle for {idle:g} s"})
    finally:
        session.lock.release()


__all__ = ["LOCAL", "Hub", "Job", "Limits", "PeerShare", "Session", "Slot"]
