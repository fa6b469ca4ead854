"""One hostile client must not hurt the others: ``brett serve --http`` and ``brett
serve`` against what an attacker sends, on loopback.

Every client address has its share of the server (sessions, WebSocket connections,
requests at once, searches and their seconds); Linux answers from every address of
127.0.0.0/8, so a test's attacker and its well-behaved client come from different
ones (127.0.0.2 and 127.0.0.1).  ``legal`` is bounded in time and size and a
``stop`` reaches it; a WebSocket client that does not read is no longer read, then
closed, and leaves nothing behind; JSON without infinities; errors as JSON.
The load test of these attacks together is in test_load.py (``slow``)."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import http.client
import json
import re
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Iterator
from typing import Any, Optional

import pytest

aiohttp = pytest.importorskip("aiohttp", reason="the web extra: pip install 'brett[web]'")

from brett.frontends import commands, webserver  # noqa: E402
from brett.frontends.sessions import Hub, Limits  # noqa: E402
from brett.frontends.webserver import SESSION_HEADER, WebServer  # noqa: E402

ATTACKER, CLIENT = "127.0.0.2", "127.0.0.1"
PROMPT = 5.0
"""Seconds within which a quick answer must come even on a busy machine."""


def lattice(size: int = 25) -> str:
    """A Phutball position whose ball has more jump paths than anything can list:
    men on every point of an odd row or column, the ball in the centre."""
    rows = []
    for r in range(size):
        row = "".join("*" if (r, c) == (size // 2, size // 2) else "O" if r % 2 or c % 2
                      else "." for c in range(size))
        rows.append(re.sub(r"\.+", lambda m: str(len(m.group())), row))
    return "/".join(rows) + f" 0 {size}x{size}"


LATTICE = lattice()


def load_lattice(client: Any) -> str:
    """The 25×25 lattice loaded in ``client``'s session: its game id."""
    record = {"format": "brett-record", "version": 1, "game": "phutball", "start": LATTICE,
              "moves": []}
    return str(client.ask(cmd="load", record=record)["game_id"])


@pytest.fixture
def serve(request: pytest.FixtureRequest) -> Iterator[Any]:
    """Start a web server with the given limits (``serve(Limits(...))``)."""
    servers: list[WebServer] = []

    def start(limits: Optional[Limits] = None) -> WebServer:
        server = WebServer("127.0.0.1", 0, limits or Limits(), idle_connection=5)
        server.start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def port_of(server: WebServer) -> int:
    return int(server.url.rstrip("/").rsplit(":", 1)[1])


def post(server: WebServer, body: Any, session: Optional[str] = None, source: str = CLIENT,
         path: str = "/api", method: str = "POST", timeout: float = 60) -> tuple[int, Any, Any]:
    """One HTTP request from ``source``: (status, the JSON answer, the headers)."""
    connection = http.client.HTTPConnection("127.0.0.1", port_of(server), timeout=timeout,
                                            source_address=(source, 0))
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {"Content-Type": "application/json", "Host": f"127.0.0.1:{port_of(server)}",
               **({SESSION_HEADER: session} if session else {})}
    try:
        connection.request(method, path, body=data if method == "POST" else None,
                           headers=headers)
        reply = connection.getresponse()
        text = reply.read()
        return reply.status, strict_json(text), reply.headers
    finally:
        connection.close()


def strict_json(text: bytes) -> Any:
    """JSON as JSON.parse reads it: no Infinity, no NaN."""
    def refuse(name: str) -> Any:
        raise AssertionError(f"{name} in an answer: not JSON")
    return json.loads(text, parse_constant=refuse)


class Client:
    """An HTTP client with its own session, from one address."""

    def __init__(self, server: WebServer, source: str = CLIENT) -> None:
        self.server, self.source = server, source
        status, hello, _ = post(server, {"cmd": "hello"}, source=source)
        assert status == 200 and hello["ok"], hello
        self.session = hello["session"]

    def ask(self, timeout: float = 60, **request: Any) -> Any:
        status, answer, _ = post(self.server, request, self.session, self.source,
                                 timeout=timeout)
        assert status == 200, answer
        return answer


def connector(source: str) -> Any:
    return aiohttp.TCPConnector(local_addr=(source, 0))


# ------------------------------------------------------------------ sessions
def test_games_without_a_session_opens_none(serve: Any) -> None:
    server = serve(Limits(sessions=3))
    assert server.hub is not None
    for _ in range(50):
        status, answer, _ = post(server, {"id": 7, "cmd": "games"}, source=ATTACKER)
        assert status == 200 and answer["ok"] and answer["id"] == 7
        assert {g["name"] for g in answer["games"]} >= {"reversi", "phutball"}
    assert len(server.hub.sessions) == 0
    assert Client(server).ask(cmd="list")["ok"]


def test_one_address_holds_its_share_of_sessions_and_its_idlest_makes_room(serve: Any) -> None:
    server = serve(Limits(peer_sessions=3, evict_idle=0.2))
    assert server.hub is not None
    first = Client(server, ATTACKER)
    others = []
    for _ in range(4):
        time.sleep(0.3)
        others.append(Client(server, ATTACKER))
    held = [c for c in (first, *others) if c.session in server.hub.sessions]
    assert len(held) == 3 and first not in held   # the idlest went
    assert "unknown session" in first.ask(cmd="list")["error"]["message"]
    busy = others[-1]                             # a searching session is not evicted
    gid = busy.ask(cmd="new", game="reversi")["game_id"]
    searches = threading.Thread(target=busy.ask, kwargs={"cmd": "hint", "game_id": gid,
                                                         "seconds": 3})
    searches.start()
    time.sleep(0.5)
    for _ in range(3):
        time.sleep(0.3)
        Client(server, ATTACKER)
    assert busy.session in server.hub.sessions
    searches.join()
    strict = serve(Limits(peer_sessions=2, evict_idle=60))   # none idle long enough
    Client(strict, ATTACKER), Client(strict, ATTACKER)
    _, refused, _ = post(strict, {"cmd": "hello"}, source=ATTACKER)
    assert refused["error"]["type"] == "LimitExceeded" and "in use" in \
        refused["error"]["message"]
    assert Client(strict, CLIENT).ask(cmd="list")["ok"]
    assert Client(server, CLIENT).ask(cmd="list")["ok"]   # another address is untouched
    assert server.hub.peers[ATTACKER].sessions == 3


def test_a_full_server_ends_its_idlest_session_even_a_connection(serve: Any) -> None:
    server = serve(Limits(sessions=3, evict_idle=0.5))
    assert server.hub is not None

    async def run() -> tuple[Any, Any]:
        sockets = []
        async with aiohttp.ClientSession(connector=connector(ATTACKER)) as idle:
            for _ in range(3):
                sockets.append(await idle.ws_connect(server.url + "ws"))
            await asyncio.sleep(1.0)
            hello = await asyncio.get_running_loop().run_in_executor(
                None, lambda: post(server, {"cmd": "hello"}))
            closed = await asyncio.wait_for(sockets[0].receive(), 30)
            return hello, closed

    (status, hello, _), closed = asyncio.run(run())
    assert status == 200 and hello["ok"], hello
    assert closed.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)


def test_one_address_holds_its_share_of_websockets(serve: Any) -> None:
    server = serve(Limits(peer_connections=2))

    async def run() -> tuple[list[int], int]:
        statuses = []
        async with aiohttp.ClientSession(connector=connector(ATTACKER)) as attacker:
            held = [await attacker.ws_connect(server.url + "ws") for _ in range(2)]
            for _ in range(3):
                try:
                    async with attacker.ws_connect(server.url + "ws"):
                        statuses.append(101)
                except aiohttp.WSServerHandshakeError as error:
                    statuses.append(error.status)
            async with aiohttp.ClientSession(connector=connector(CLIENT)) as client, \
                    client.ws_connect(server.url + "ws") as ws:
                await ws.send_json({"id": 1, "cmd": "hello"})
                ok = (await ws.receive_json(timeout=30))["ok"]
            for ws in held:
                await ws.close()
        return statuses, ok

    statuses, ok = asyncio.run(run())
    assert statuses == [429, 429, 429] and ok


def test_a_closed_websocket_frees_its_share_at_once(serve: Any,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A client that reconnects as soon as it closed is never refused, even while
    the server is slow to end the old session (its request threads all busy)."""
    slow_end = Hub.end

    def end(hub: Hub, session: Any, reason: str = "") -> None:
        time.sleep(0.2)
        slow_end(hub, session, reason)

    monkeypatch.setattr(Hub, "end", end)
    server = serve(Limits(peer_sessions=2, peer_connections=2))

    async def run() -> list[Any]:
        answers = []
        async with aiohttp.ClientSession(connector=connector(ATTACKER)) as http:
            for i in range(20):
                async with http.ws_connect(server.url + "ws") as ws:
                    await ws.send_json({"id": i, "cmd": "new", "game": "reversi"})
                    answers.append((await ws.receive_json(timeout=30))["ok"])
        return answers

    assert asyncio.run(run()) == [True] * 20


def test_one_address_works_on_one_long_request_at_a_time(
        serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """legal and load (which may take seconds of the interpreter) of one address
    wait for each other; another address's do not wait for them."""
    running: dict[str, int] = {ATTACKER: 0, CLIENT: 0}
    most = dict(running)
    lock = threading.Lock()

    def slow_legal(session: Any, request: Any) -> Any:
        with lock:
            running[session.peer] += 1
            most[session.peer] = max(most[session.peer], running[session.peer])
        time.sleep(0.3)
        with lock:
            running[session.peer] -= 1
        return {"moves": [], "count": 0, "more": False}

    monkeypatch.setitem(commands.COMMANDS, "legal",
                        dataclasses.replace(commands.COMMANDS["legal"], run=slow_legal))
    server = serve()
    clients = [Client(server, ATTACKER) for _ in range(4)] + [Client(server, CLIENT)]
    games = [c.ask(cmd="new", game="reversi")["game_id"] for c in clients]
    threads = [threading.Thread(target=c.ask, kwargs={"cmd": "legal", "game_id": g})
               for c, g in zip(clients, games, strict=True) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert most == {ATTACKER: 1, CLIENT: 1}
    assert commands.COMMANDS["load"].long and not commands.COMMANDS["state"].long


def test_one_address_holds_its_share_of_searches(serve: Any) -> None:
    server = serve(Limits(peer_searches=2, peer_search_seconds=100))
    attackers = [Client(server, ATTACKER) for _ in range(3)]
    games = [a.ask(cmd="new", game="reversi")["game_id"] for a in attackers]
    answers: list[Any] = []
    threads = [threading.Thread(target=lambda a=a, g=g: answers.append(
        a.ask(cmd="hint", game_id=g, seconds=30)))
        for a, g in zip(attackers[:2], games[:2], strict=True)]
    for thread in threads:
        thread.start()
    time.sleep(0.5)
    third = attackers[2].ask(cmd="hint", game_id=games[2], seconds=1)
    assert third["error"]["type"] == "LimitExceeded" and "this address" in \
        third["error"]["message"]
    client = Client(server)
    mine = client.ask(cmd="new", game="reversi")["game_id"]
    sent = time.monotonic()
    assert client.ask(cmd="hint", game_id=mine, seconds=0.2)["ok"]
    assert time.monotonic() - sent < PROMPT
    for attacker in attackers[:2]:
        attacker.ask(cmd="stop")
    for thread in threads:
        thread.join(60)
    assert len(answers) == 2
    # the seconds asked for count too: 60 + 60 > 100
    one, two = Client(server, ATTACKER), Client(server, ATTACKER)
    first = one.ask(cmd="new", game="reversi")["game_id"]
    second = two.ask(cmd="new", game="reversi")["game_id"]
    running = threading.Thread(target=one.ask, kwargs={"cmd": "hint", "game_id": first,
                                                        "seconds": 60})
    running.start()
    time.sleep(0.5)
    refused = two.ask(cmd="hint", game_id=second, seconds=60)
    assert refused["error"]["type"] == "LimitExceeded" and " s" in refused["error"]["message"]
    one.ask(cmd="stop")
    running.join(60)


# ------------------------------------------------------------------ legal
def test_legal_is_bounded_in_time_and_size_and_others_are_served(serve: Any) -> None:
    server = serve(Limits(legal_seconds=1.0))
    attacker = Client(server, ATTACKER)
    gid = load_lattice(attacker)
    results: list[tuple[float, int, Any]] = []

    def flood() -> None:
        sent = time.monotonic()
        status, answer, _ = post(server, {"cmd": "legal", "game_id": gid},
                                 attacker.session, ATTACKER)
        results.append((time.monotonic() - sent, status, answer))

    threads = [threading.Thread(target=flood) for _ in range(8)]
    for thread in threads:
        thread.start()
    client = Client(server)
    mine = client.ask(cmd="new", game="reversi")["game_id"]
    sent = time.monotonic()
    assert client.ask(cmd="state", game_id=mine)["ok"]
    assert time.monotonic() - sent < PROMPT
    for thread in threads:
        thread.join(120)
    assert len(results) == 8
    for _, status, answer in results:
        assert status == 200 and answer["ok"] and answer["more"] is True, answer
        assert len(json.dumps(answer)) < 3 << 20
        assert answer["count"] >= len(answer["moves"]) > 0
    # one session answers one request at a time: the eighth waited for seven
    assert min(seconds for seconds, _, _ in results) < 1.0 + PROMPT


def test_legal_ends_at_the_servers_time_limit(serve: Any,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(commands, "MAX_LIST_TEXT", 1 << 40)   # the time bound alone
    server = serve(Limits(legal_seconds=1.0))
    client = Client(server)
    gid = load_lattice(client)
    sent = time.monotonic()
    answer = client.ask(cmd="legal", game_id=gid)
    assert time.monotonic() - sent < 1.0 + PROMPT
    assert answer["ok"] and answer["more"] is True
    assert answer["count"] >= len(answer["moves"]) > 0


def test_a_stop_reaches_a_running_legal(serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(commands, "MAX_LIST_TEXT", 1 << 40)   # the time bound alone
    server = serve(Limits(legal_seconds=60))
    client = Client(server)
    gid = load_lattice(client)
    answer: list[Any] = []
    legal = threading.Thread(target=lambda: answer.append(
        client.ask(cmd="legal", game_id=gid)))
    legal.start()
    time.sleep(1.0)
    sent = time.monotonic()
    assert client.ask(cmd="stop")["stopped"] == 1
    legal.join(60)
    assert time.monotonic() - sent < PROMPT
    assert answer[0]["ok"] and answer[0]["more"] and 0 < len(answer[0]["moves"]) < 100_000


# ------------------------------------------------------------------ a client that never reads
def test_a_websocket_client_that_never_reads_is_paused_then_closed_and_forgotten(
        serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(webserver, "OUTBOX_BYTES", 256 << 10)
    monkeypatch.setattr(webserver, "SLOW_READER_SECONDS", 2.0)
    server = serve()
    assert server.hub is not None
    hub = server.hub
    request = json.dumps({"cmd": "svg", "game_id": "", "options": {}})

    async def run() -> tuple[int, Any]:
        sent = 0
        async with aiohttp.ClientSession(connector=connector(ATTACKER)) as attacker:
            ws = await attacker.ws_connect(server.url + "ws", max_msg_size=0,
                                           autoclose=False)
            await ws.send_json({"id": "n", "cmd": "new", "game": "phutball",
                                "options": {"columns": 25, "rows": 25}})
            gid = None
            while gid is None:
                message = await ws.receive_json(timeout=30)
                gid = message.get("game_id")
            big = request.replace('"game_id": ""', f'"game_id": "{gid}"')
            deadline = time.monotonic() + 60
            with pytest.raises((ConnectionError, asyncio.TimeoutError)):
                while time.monotonic() < deadline:   # never reads
                    await asyncio.wait_for(ws.send_str(big), 10)
                    sent += 1
                    if ws.closed:
                        raise ConnectionError
            session = next(iter(hub.sessions.values()), None)
            return sent, None if session is None else weakref.ref(session)

    gc.collect()
    gc.disable()
    try:
        sent, session = asyncio.run(run())
        deadline = time.monotonic() + 30
        while hub.sessions and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not hub.sessions
        time.sleep(0.5)
        assert session is None or session() is None, "the session lives on in a cycle"
    finally:
        gc.enable()
    assert sent < 100_000


# ------------------------------------------------------------------ JSON and errors
@pytest.mark.parametrize("body", [b'{"id": 1e999, "cmd": "hello"}',
                                  b'{"id": NaN, "cmd": "hello"}',
                                  b'{"id": -Infinity, "cmd": "hello"}',
                                  b'{"cmd": "hint", "game_id": "g", "seconds": 1e400}'])
def test_non_finite_numbers_are_refused_everywhere(serve: Any, body: bytes) -> None:
    server = serve()
    status, answer, _ = post(server, body)
    assert status == 200 and answer["ok"] is False and answer["id"] is None
    assert answer["error"]["type"] == "ProtocolError"
    assert "finite" in answer["error"]["message"]

    async def over_ws() -> Any:
        async with aiohttp.ClientSession() as client, \
                client.ws_connect(server.url + "ws") as ws:
            await ws.send_str(body.decode())
            return strict_json((await ws.receive(timeout=30)).data.encode())
    assert asyncio.run(over_ws())["error"]["type"] == "ProtocolError"
    line = subprocess.run([sys.executable, "-m", "brett", "serve"], input=body + b"\n",
                          capture_output=True, timeout=120).stdout
    assert strict_json(line.splitlines()[0])["error"]["type"] == "ProtocolError"


def test_long_strings_say_the_limit_and_a_record_may_be_long(serve: Any) -> None:
    server = serve()
    client = Client(server)
    answer = client.ask(cmd="new", game="x" * 70_000)
    assert answer["error"]["type"] == "LimitExceeded"
    assert "70,000 characters long: at most 65,536" in answer["error"]["message"]
    game = client.ask(cmd="new", game="reversi")["game_id"]
    for move in ("d3", "c3", "c4"):
        client.ask(cmd="move", game_id=game, move=move)
    record = client.ask(cmd="save", game_id=game, format="sgf")["record"]
    text = record + "\n" + record.replace(")", "C[" + "n" * 80_000 + "])", 1)
    loaded = client.ask(cmd="load", record=text, format="sgf")
    assert loaded["ok"] and loaded["records"] == 2 and len(text) > 65_536
    status, too_long, _ = post(server, {"cmd": "load", "record": "(" * (2 << 20)},
                               client.session)
    assert status == 413 and too_long["error"]["type"] == "LimitExceeded"


@pytest.mark.parametrize(("method", "path", "status"), [
    ("GET", "/nowhere", 404), ("GET", "/api", 405), ("POST", "/", 405),
    ("DELETE", "/ws", 405)])
def test_http_errors_are_json_with_the_security_headers(serve: Any, method: str, path: str,
                                                        status: int) -> None:
    server = serve()
    answered, answer, headers = post(server, {}, path=path, method=method)
    assert answered == status and answer["ok"] is False
    assert answer["error"]["type"] == "ProtocolError" and path in answer["error"]["message"]
    assert headers["Content-Type"].startswith("application/json")
    for name, value in webserver.HEADERS.items():
        assert headers[name] == value


def test_refusals_carry_the_security_headers(serve: Any) -> None:
    server = serve()
    connection = http.client.HTTPConnection("127.0.0.1", port_of(server), timeout=60)
    connection.request("POST", "/api", body=b'{"cmd": "hello"}',
                       headers={"Host": "evil.example", "Content-Type": "application/json"})
    reply = connection.getresponse()
    assert reply.status == 403 and strict_json(reply.read())["ok"] is False
    for name, value in webserver.HEADERS.items():
        assert reply.headers[name] == value
    connection.close()
