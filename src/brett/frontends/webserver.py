"""``brett serve --http``: the engine protocol over HTTP and WebSocket, and the web app.

Needs the ``web`` extra (``pip install 'brett[web]'``: aiohttp).  One server
serves many clients at once:

* ``GET /`` — the web app's page (``page/``: plain HTML, JavaScript and CSS,
  nothing from the network), which speaks the protocol over a WebSocket.
* ``GET /ws`` — a WebSocket: one session for the connection's life; each text
  message is a request, and answers and events (search progress, the computer's
  move when it is ready) come back as text messages, matched by ``id``.
* ``POST /api`` — one request per HTTP request (``Content-Type:
  application/json``), answered with its answer.  ``{"cmd": "hello"}`` opens a
  session and answers its token; every other request carries it in the
  ``Brett-Session`` header.  A session without requests expires.

It listens on the loopback address unless told otherwise, and it refuses
(403) a request whose ``Host`` is not one of the server's own names or whose
``Origin`` is another site's, so no web page the user visits can drive it
(cross-site requests, DNS rebinding).  No request reads or writes a file.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.resources
import ipaddress
import logging
import sys
import threading
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Optional, TextIO

from ..errors import BrettError
from .protocol import LimitExceeded, ProtocolError, decode, encode, error_answer
from .sessions import Answer, Hub, Limits, Session

try:
    from aiohttp import WSMsgType, web
    from aiohttp.http_exceptions import HttpProcessingError
except ImportError:  # pragma: no cover - the web extra is not installed
    web = None  # type: ignore[assignment]

PAGES = {"/": ("index.html", "text/html"), "/index.html": ("index.html", "text/html"),
         "/app.js": ("app.js", "text/javascript"), "/style.css": ("style.css", "text/css")}
SESSION_HEADER = "Brett-Session"
BODY_SECONDS = 10.0
"""How long the body of a request may take to arrive."""
IDLE_CONNECTION = 30.0
"""An HTTP connection that sends no request for this long is closed."""
OUTBOX_BYTES = 4 << 20
"""Answers queued for a WebSocket client beyond this: its requests are no longer read
until it reads them (back-pressure)."""
SLOW_READER_SECONDS = 30.0
"""A WebSocket client whose unread answers stay past OUTBOX_BYTES this long is closed."""
CLOSE_SECONDS = 2.0
"""How long a closing handshake may take before the connection is cut."""
SWITCH_SECONDS = 0.001
"""How often the threads of ``brett serve --http`` take turns with the interpreter
(Python's default is 5 ms; with the long work of one client beside it, a quick answer
waited five times as long)."""
PEER_WAITING = 64
"""Requests of one address waiting for their turn (``peer_requests`` are worked on
at once): past this a request is refused."""
REQUEST_THREADS = 16
"""Threads answering quick requests (the event loop never waits for the engine)."""
HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
                               "style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
}


def _require_aiohttp() -> None:
    if web is None:
        raise BrettError("the web server needs aiohttp: pip install 'brett[web]'")


def own_hosts(host: str, port: int, extra: Iterable[str] = ()) -> set[str]:
    """The ``Host`` values a browser sends to this server: its address and, for
    loopback, ``localhost`` and both loopback addresses; plus ``extra`` names."""
    names = {host, *extra}
    with contextlib.suppress(ValueError):
        if ipaddress.ip_address(host.strip("[]")).is_loopback:
            names |= {"localhost", "127.0.0.1", "[::1]"}
    if host == "localhost":
        names |= {"127.0.0.1", "[::1]"}
    return {f"{name}:{port}" for name in names} | ({*names} if port == 80 else set())


class App:
    """The aiohttp application over one :class:`Hub`."""

    def __init__(self, hub: Hub, hosts: set[str], body_seconds: float = BODY_SECONDS) -> None:
        _require_aiohttp()
        self.hub = hub
        self.hosts = hosts
        self.body_seconds = body_seconds
        server_log = logging.getLogger("aiohttp.server")
        if _not_a_client_fault not in server_log.filters:
            server_log.addFilter(_not_a_client_fault)
        self.threads = ThreadPoolExecutor(REQUEST_THREADS, thread_name_prefix="brett-request")
        self.sockets: set[Any] = set()
        self.connections: dict[str, int] = {}   # WebSockets of each client address
        self.gate = Gate(hub.limits.peer_requests)
        self.app = web.Application(middlewares=[self._guard],
                                   client_max_size=hub.limits.request_bytes)
        self.app.router.add_get("/ws", self.websocket)
        self.app.router.add_post("/api", self.api)
        self.app.router.add_get("/favicon.ico", self.favicon)
        for path in PAGES:
            self.app.router.add_get(path, self.page)

    # ---- security: only this server's own pages may talk to it
    @web.middleware if web is not None else (lambda f: f)
    async def _guard(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        host = request.headers.get("Host", "")
        origin = request.headers.get("Origin")
        if host not in self.hosts:
            response = _refusal(403, f"Host {host!r:.60} is not this server's: refused "
                                     "(see brett serve --allow-host)")
        elif origin is not None and origin not in (f"http://{host}", f"https://{host}"):
            response = _refusal(403, f"Origin {origin!r:.60} is another site: refused")
        else:
            try:
                response = await handler(request)
            except web.HTTPException as exc:   # the router's 404 and 405, as JSON
                if exc.status < 400:
                    raise
                response = _refusal(exc.status, f"{request.method} {request.path[:80]}: "
                                                f"{exc.reason}")
        if not response.prepared:   # a WebSocket has sent its headers already
            response.headers.update(HEADERS)
        return response

    # ---- the page
    async def page(self, request: Any) -> Any:
        name, kind = PAGES[request.path]
        body = importlib.resources.files("brett.frontends.page").joinpath(name).read_bytes()
        return web.Response(body=body, content_type=kind, charset="utf-8")

    async def favicon(self, request: Any) -> Any:
        return web.Response(status=204)

    # ---- HTTP: one request, one answer
    async def api(self, request: Any) -> Any:
        if request.content_type != "application/json":
            return _refusal(415, "send requests as Content-Type: application/json")
        try:
            body = await asyncio.wait_for(request.read(), self.body_seconds)
        except asyncio.TimeoutError:
            return _refusal(408, f"the request's body did not arrive in {self.body_seconds:g} s")
        except web.HTTPRequestEntityTooLarge:
            return _refusal(413, f"a request is at most {self.hub.limits.request_bytes} bytes")
        peer = _peer(request)
        session, refusal = self._http_session(request, body, peer)
        if session is None:
            return _json(refusal if refusal is not None else await self._sessionless(body))
        if session.in_flight >= self.hub.limits.requests:
            return _json(encode(error_answer(None, LimitExceeded(
                f"{session.in_flight} requests of this session are being answered, the "
                "most at once: wait for one"))))
        session.in_flight += 1
        try:
            text = await self._answer(session, body, peer)
        finally:
            session.in_flight -= 1
        if session.quit:
            await self._end(session, "the client quit")
        return _json(text)

    def _http_session(self, request: Any, body: bytes,
                      peer: str) -> tuple[Optional[Session], Optional[str]]:
        """The request's session, or the refusal's text; ``hello`` without a session
        opens one, ``games`` is answered without one (both: None, None)."""
        token = request.headers.get(SESSION_HEADER)
        if token is not None:
            session = self.hub.get(token)
            if session is not None:
                return session, None
            return None, encode(error_answer(None, ProtocolError(
                f"unknown session: it ended (idle, or the server restarted) or never existed; "
                f"send {{\"cmd\": \"hello\"}} without {SESSION_HEADER} for a new one")))
        try:
            command = decode(body).get("cmd")
        except ProtocolError as exc:
            return None, encode(error_answer(None, exc))
        if command == "games":
            return None, None
        if command != "hello":
            return None, encode(error_answer(None, ProtocolError(
                f"no session: send {{\"cmd\": \"hello\"}} first and then its \"session\" in "
                f"the {SESSION_HEADER} header")))
        try:
            return self.hub.open(peer=peer), None
        except LimitExceeded as exc:
            return None, encode(error_answer(None, exc))

    async def _sessionless(self, body: bytes) -> str:
        """The answer to ``games`` sent without a session (none is opened for it)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self.threads, lambda: encode(Session(self.hub).ask(body)))

    async def _answer(self, session: Session, raw: Any, peer: str) -> str:
        """The session's answer as JSON text, worked out (and written) off the event
        loop, in the address's turn."""
        loop = asyncio.get_running_loop()
        try:
            async with self.gate.turn(peer):
                reply = await loop.run_in_executor(self.threads, session.handle, raw)
        except LimitExceeded as exc:
            return encode(error_answer(None, exc))
        if not isinstance(reply, Future):
            return await loop.run_in_executor(self.threads, encode, reply)
        try:
            answer = await asyncio.wrap_future(reply)
        except asyncio.CancelledError:  # the client went away: so does its search
            session.stop(lambda job: job.answer is reply, "the client went away")
            raise
        return await loop.run_in_executor(self.threads, encode, answer)

    # ---- WebSocket: a session for the connection's life
    async def websocket(self, request: Any) -> Any:
        peer = _peer(request)
        if self.connections.get(peer, 0) >= self.hub.limits.peer_connections:
            return _refusal(429, f"this address holds {self.connections[peer]} WebSocket "
                                 "connections, the most one may")
        ws = web.WebSocketResponse(heartbeat=30.0, max_msg_size=self.hub.limits.request_bytes)
        await ws.prepare(request)
        self.connections[peer] = self.connections.get(peer, 0) + 1
        self.sockets.add(ws)
        outbox = Outbox(asyncio.get_running_loop())
        try:
            session = self.hub.open(events=outbox.put_answer, peer=peer)
        except LimitExceeded as exc:
            await ws.send_str(encode(error_answer(None, exc)))
            await ws.close()
            self._left(ws, peer)
            return ws
        session.closer = outbox.close_soon
        sender = asyncio.create_task(outbox.send_all(ws))
        try:
            await self._read_all(ws, request, session, outbox, peer)
        finally:
            # The handler may be cancelled here (the client vanished): the session's
            # end is handed to a thread first, so that it happens whatever comes next;
            # the address's share is free at once (a client may reconnect at once).
            self.hub.forget(session)
            ending = self._end(session, "the connection closed")
            self._left(ws, peer)
            outbox.finish()
            try:
                await asyncio.shield(ending)
                await asyncio.wait_for(asyncio.shield(sender), SLOW_READER_SECONDS)
            except asyncio.TimeoutError:
                pass
            finally:
                sender.cancel()
                await _close(ws, request, b"")
        return ws

    async def _read_all(self, ws: Any, request: Any, session: Session, outbox: Outbox,
                        peer: str) -> None:
        """Answer the connection's requests in order; none is read while the client
        leaves more than OUTBOX_BYTES of answers unread (it is closed if that lasts
        SLOW_READER_SECONDS)."""
        loop = asyncio.get_running_loop()
        async for message in ws:
            if not await outbox.room(SLOW_READER_SECONDS):
                await _close(ws, request, b"the client does not read its answers")
                return
            if message.type != WSMsgType.TEXT:
                outbox.put_answer(error_answer(None, ProtocolError("requests are text messages")))
                continue
            try:
                async with self.gate.turn(peer):
                    reply = await loop.run_in_executor(self.threads, _handled, session,
                                                       message.data)
            except LimitExceeded as exc:
                outbox.put_text(encode(error_answer(None, exc)))
                continue
            if isinstance(reply, Future):
                reply.add_done_callback(outbox.put_result)
            else:
                outbox.put_text(reply)
            if session.quit or outbox.closing:
                return

    def _left(self, ws: Any, peer: str) -> None:
        self.sockets.discard(ws)
        left = self.connections.get(peer, 0) - 1
        if left > 0:
            self.connections[peer] = left
        else:
            self.connections.pop(peer, None)

    async def close_sockets(self) -> None:
        """Close every WebSocket (the server is shutting down): their sessions end."""
        await asyncio.gather(*(ws.close(code=1001, message=b"the server is shutting down")
                               for ws in list(self.sockets)), return_exceptions=True)

    def _end(self, session: Session, reason: str) -> asyncio.Future[None]:
        """End a session off the event loop (it waits for the session's lock); the
        work is handed to a thread at once."""
        return asyncio.get_running_loop().run_in_executor(self.threads, self.hub.end, session,
                                                          reason)

    def close(self) -> None:
        self.hub.close()
        self.threads.shutdown(wait=False, cancel_futures=True)


class Outbox:
    """What waits to be sent to one WebSocket client, as JSON text, and its size:
    the client's requests are not read while it is more than OUTBOX_BYTES.  The
    ``put`` methods may be called from any thread (searches answer from the pool,
    progress comes from the ticker); the rest runs on the event loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.queue: asyncio.Queue[Optional[str]] = asyncio.Queue()
        self.size = 0
        self.drained = asyncio.Event()
        self.drained.set()
        self.closing = False   # the hub ended the session: the connection closes

    def put_answer(self, message: Answer) -> None:
        self.put_text(encode(message))

    def put_result(self, done: Future[Answer]) -> None:
        self.put_answer(done.result())

    def put_text(self, text: str) -> None:
        with contextlib.suppress(RuntimeError):   # the loop has closed
            self.loop.call_soon_threadsafe(self._put, text)

    def close_soon(self) -> None:
        with contextlib.suppress(RuntimeError):
            self.loop.call_soon_threadsafe(self._close)

    def finish(self) -> None:
        """No more messages: the sender stops after those queued."""
        self.queue.put_nowait(None)

    async def room(self, seconds: float) -> bool:
        """Whether the unsent text is (or, within ``seconds``, gets) small enough to
        read another request."""
        if self.size <= OUTBOX_BYTES:
            return True
        try:
            await asyncio.wait_for(self.drained.wait(), seconds)
        except asyncio.TimeoutError:
            return False
        return True

    async def send_all(self, ws: Any) -> None:
        while True:
            text = await self.queue.get()
            if text is None:
                if self.closing:
                    await ws.close(message=b"the server ended this session")
                return
            try:
                if ws.closed:
                    return
                await ws.send_str(text)
            except (ConnectionError, RuntimeError):
                return
            finally:
                self._sent(len(text))

    def _put(self, text: str) -> None:
        if self.closing:
            return
        self.size += len(text)
        if self.size > OUTBOX_BYTES:
            self.drained.clear()
        self.queue.put_nowait(text)

    def _sent(self, length: int) -> None:
        self.size -= length
        if self.size <= OUTBOX_BYTES:
            self.drained.set()

    def _close(self) -> None:
        self.closing = True
        self.queue.put_nowait(None)


class Gate:
    """Each client address's turns: ``per_peer`` of its requests are worked on at
    once (so no one address takes every request thread), the others wait, and past
    PEER_WAITING waiting ones a request is refused.  Used on the event loop only."""

    def __init__(self, per_peer: int) -> None:
        self.per_peer = per_peer
        self.peers: dict[str, tuple[asyncio.Semaphore, list[int]]] = {}

    @contextlib.asynccontextmanager
    async def turn(self, peer: str) -> Any:
        semaphore, users = self.peers.setdefault(peer, (asyncio.Semaphore(self.per_peer), [0]))
        if users[0] >= self.per_peer + PEER_WAITING:
            raise LimitExceeded(f"this address has {users[0]} requests being answered or "
                                "waiting, the most one may: wait for their answers")
        users[0] += 1
        try:
            async with semaphore:
                yield
        finally:
            users[0] -= 1
            if users[0] == 0:
                del self.peers[peer]


async def _close(ws: Any, request: Any, message: bytes) -> None:
    """Close a WebSocket, cutting the connection if the closing handshake does not
    end within CLOSE_SECONDS: a client that reads nothing leaves no room to send it."""
    try:
        await asyncio.wait_for(ws.close(message=message), CLOSE_SECONDS)
        return
    except (asyncio.TimeoutError, ConnectionError, RuntimeError):
        pass
    if request.transport is not None:
        request.transport.abort()


def _peer(request: Any) -> str:
    """The client's address (its share of the server is limited)."""
    return str(request.remote or "unknown")


def _handled(session: Session, raw: Any) -> Any:
    """In a request thread: the session's answer as JSON text, or a search's future."""
    reply = session.handle(raw)
    return reply if isinstance(reply, Future) else encode(reply)


def _json(text: str) -> Any:
    return web.Response(text=text, content_type="application/json")


def _not_a_client_fault(record: logging.LogRecord) -> bool:
    """A log filter: malformed HTTP from a client (a bad header, a line too long)
    is answered 400, and a client that vanished before its answer was written is
    gone; neither is an error of the server's: no traceback on stderr."""
    kind = record.exc_info[0] if record.exc_info else None
    return not (kind is not None and issubclass(kind, (HttpProcessingError, ConnectionError)))


def _refusal(status: int, message: str) -> Any:
    kind = "LimitExceeded" if status in (413, 429) else "ProtocolError"
    return web.json_response({"id": None, "ok": False,
                              "error": {"type": kind, "message": message}}, status=status)


class WebServer:
    """The web server on ``host``:``port`` (port 0: any free one), run in a thread
    of its own (:meth:`start`) or in the caller's (:meth:`run`).  ``allow_hosts``:
    further names browsers use for it (beyond loopback); ``idle_connection`` and
    ``body_seconds``: how long a connection may send nothing, and a body take."""

    def __init__(self, host: str = "127.0.0.1", port: int = 8000,
                 limits: Optional[Limits] = None, allow_hosts: Iterable[str] = (),
                 idle_connection: float = IDLE_CONNECTION,
                 body_seconds: float = BODY_SECONDS) -> None:
        _require_aiohttp()
        self.host, self.port = host, port
        self.limits = limits if limits is not None else Limits()
        self.allow_hosts = tuple(allow_hosts)
        self.idle_connection, self.body_seconds = idle_connection, body_seconds
        self.hub: Optional[Hub] = None
        self.url = ""
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._runner: Any = None
        self._app: Optional[App] = None
        self._thread: Optional[threading.Thread] = None
        self._stopping: Optional[asyncio.Event] = None

    async def _open(self) -> None:
        self.hub = Hub(self.limits)
        self._app = App(self.hub, set(), self.body_seconds)
        self._runner = web.AppRunner(self._app.app, handler_cancellation=True,
                                     keepalive_timeout=self.idle_connection, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        port = self._runner.addresses[0][1]
        self._app.hosts |= own_hosts(self.host, port, self.allow_hosts)
        shown = f"[{self.host}]" if ":" in self.host else self.host
        self.url = f"http://{shown}:{port}/"

    async def _shut(self) -> None:
        if self._app is not None:
            await self._app.close_sockets()
        if self._runner is not None:
            await self._runner.cleanup()
        if self._app is not None:
            self._app.close()

    def start(self) -> str:
        """Serve in a background thread; the server's URL."""
        ready = threading.Event()
        failure: list[BaseException] = []

        def main() -> None:
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            self._loop = loop
            self._stopping = asyncio.Event()
            try:
                loop.run_until_complete(self._open())
            except BaseException as exc:
                failure.append(exc)
                ready.set()
                return
            ready.set()
            loop.run_until_complete(self._stopping.wait())
            loop.run_until_complete(self._shut())
            _finish(loop)

        self._thread = threading.Thread(target=main, name="brett-web", daemon=True)
        self._thread.start()
        ready.wait()
        if failure:
            raise failure[0]
        return self.url

    def stop(self) -> None:
        """End a server started with :meth:`start`: its WebSockets close, its
        searches stop."""
        if self._loop is not None and self._thread is not None and self._stopping is not None:
            self._loop.call_soon_threadsafe(self._stopping.set)
            self._thread.join(timeout=30)

    def run(self, out: TextIO) -> None:
        """Serve in this thread until Ctrl-C (which ends it cleanly).  The process is
        the server's: its threads take turns with the interpreter every
        SWITCH_SECONDS, so that a thread at long work delays a quick answer little."""
        sys.setswitchinterval(SWITCH_SECONDS)
        async def main() -> None:
            await self._open()
            print(f"brett: play at {self.url} (Ctrl-C to stop)", file=out, flush=True)
            try:
                await asyncio.Event().wait()
            finally:
                await self._shut()

        asyncio.run(main())


def _finish(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what still runs on ``loop`` and close it, leaving no coroutine behind."""
    tasks = asyncio.all_tasks(loop)
    for task in tasks:
        task.cancel()
    loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
    loop.run_until_complete(loop.shutdown_asyncgens())
    loop.close()


__all__ = ["App", "WebServer", "own_hosts"]
