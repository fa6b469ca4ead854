"""``brett serve --http`` as outside clients meet it, on loopback: HTTP sessions
and WebSockets, one client never blocking or touching another, the security of
a local server (Host, Origin, content type), slow and hostile connections, and
the audit's cases each answered (or cleanly refused) while others are served."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any, Optional

import pytest

aiohttp = pytest.importorskip("aiohttp", reason="the web extra: pip install 'brett[web]'")

from brett.frontends.sessions import Limits  # noqa: E402
from brett.frontends.webserver import SESSION_HEADER, WebServer, own_hosts  # noqa: E402

PROMPT = 5.0
"""Seconds within which a quick answer must come even on a busy machine."""


@pytest.fixture(scope="module")
def server() -> Iterator[WebServer]:
    web = WebServer("127.0.0.1", 0, Limits(games=5, searches=2), idle_connection=2,
                    body_seconds=2)
    web.start()
    yield web
    web.stop()


def post(url: str, body: Any, session: Optional[str] = None,
         headers: Optional[dict[str, str]] = None, timeout: float = 60) -> tuple[int, Any]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(url + "api", data=data, method="POST", headers={
        "Content-Type": "application/json", **({SESSION_HEADER: session} if session else {}),
        **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


class Http:
    """A client of the HTTP API with its own session."""

    def __init__(self, url: str) -> None:
        self.url = url
        status, hello = post(url, {"cmd": "hello"})
        assert status == 200 and hello["ok"], hello
        self.session = hello["session"]

    def ask(self, timeout: float = 60, **request: Any) -> Any:
        status, answer = post(self.url, request, self.session, timeout=timeout)
        assert status == 200
        return answer


def raw(url: str, data: bytes) -> socket.socket:
    host, port = url.split("//")[1].rstrip("/").split(":")
    sock = socket.create_connection((host, int(port)), timeout=30)
    if data:
        sock.sendall(data)
    return sock


def test_the_page_and_its_assets_are_served_with_safe_headers(server: WebServer) -> None:
    with urllib.request.urlopen(server.url, timeout=10) as page:
        assert page.status == 200 and "<title>brett" in page.read().decode()
        assert "default-src 'self'" in page.headers["Content-Security-Policy"]
        assert page.headers["X-Frame-Options"] == "DENY"
    for asset in ("app.js", "style.css"):
        with urllib.request.urlopen(server.url + asset, timeout=10) as reply:
            assert reply.status == 200
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(server.url + "../etc/passwd", timeout=10)
    assert missing.value.code == 404


def test_http_sessions_keep_their_games_to_themselves(server: WebServer) -> None:
    alice, bob = Http(server.url), Http(server.url)
    assert alice.session != bob.session
    gid = alice.ask(cmd="new", game="reversi")["game_id"]
    assert alice.ask(cmd="move", game_id=gid, move="d3")["ok"]
    for request in ({"cmd": "undo", "game_id": gid}, {"cmd": "close", "game_id": gid},
                    {"cmd": "state", "game_id": gid}):
        answer = bob.ask(**request)
        assert answer["error"]["type"] == "ProtocolError"
        assert "unknown game_id" in answer["error"]["message"]
    assert bob.ask(cmd="list")["games"] == []
    assert alice.ask(cmd="state", game_id=gid)["moves_played"] == ["d3"]
    status, nobody = post(server.url, {"cmd": "state", "game_id": gid})
    assert status == 200 and "no session" in nobody["error"]["message"]
    status, forged = post(server.url, {"cmd": "list"}, session="x" * 32)
    assert "unknown session" in forged["error"]["message"]
    assert alice.ask(cmd="quit")["ok"]
    assert "unknown session" in alice.ask(cmd="list")["error"]["message"]


@pytest.mark.parametrize(("headers", "status", "message"), [
    ({"Origin": "http://evil.example"}, 403, "Origin 'http://evil.example' is another site"),
    ({"Host": "evil.example"}, 403, "Host 'evil.example' is not this server's"),
    ({"Host": "evil.example", "Origin": "http://evil.example"}, 403, "Host"),
    ({"Content-Type": "text/plain"}, 415, "application/json"),
    ({"Content-Type": "application/x-www-form-urlencoded"}, 415, "application/json"),
])
def test_requests_from_other_sites_are_refused(server: WebServer, headers: dict[str, str],
                                               status: int, message: str) -> None:
    answered, answer = post(server.url, {"cmd": "hello"}, headers=headers)
    assert answered == status and message in answer["error"]["message"]


def test_the_servers_own_names_are_accepted(server: WebServer) -> None:
    port = int(server.url.rstrip("/").rsplit(":", 1)[1])
    for host in ("localhost", "127.0.0.1"):
        for scheme in ("http", "https"):   # https: behind a reverse proxy that speaks TLS
            origin = f"{scheme}://{host}:{port}"
            status, answer = post(server.url, {"cmd": "hello"},
                                  headers={"Host": f"{host}:{port}", "Origin": origin})
            assert status == 200 and answer["ok"]
    assert own_hosts("0.0.0.0", 80, ["brett.lan"]) == {"0.0.0.0:80", "brett.lan:80", "0.0.0.0",
                                                        "brett.lan"}


def test_a_websocket_from_another_site_is_refused(server: WebServer) -> None:
    async def connect() -> int:
        async with aiohttp.ClientSession() as client:
            try:
                async with client.ws_connect(server.url + "ws",
                                             origin="http://evil.example"):
                    return 101
            except aiohttp.WSServerHandshakeError as error:
                return error.status
    assert asyncio.run(connect()) == 403


def test_hostile_http_is_answered_and_others_are_served_meanwhile(
        server: WebServer, caplog: pytest.LogCaptureFixture) -> None:
    """Slow and malformed connections get an answer or are closed, and never
    block another client."""
    silent = raw(server.url, b"")
    partial = raw(server.url, b"GET / HT")
    host = server.url.split("//")[1].rstrip("/")
    short = raw(server.url, f"POST /api HTTP/1.1\r\nHost: {host}\r\nContent-Type: "
                "application/json\r\nContent-Length: 1000\r\n\r\n{{}}".encode())
    bad_length = raw(server.url, f"POST /api HTTP/1.1\r\nHost: {host}\r\nContent-Type: "
                     "application/json\r\nContent-Length: abc\r\n\r\n{}".encode())
    long_line = raw(server.url, b"GET /" + b"a" * 100_000 + b" HTTP/1.1\r\n\r\n")
    sent = time.monotonic()
    client = Http(server.url)
    assert client.ask(cmd="new", game="focus")["ok"]
    assert time.monotonic() - sent < PROMPT
    assert bad_length.recv(100).startswith(b"HTTP/1.0 400")
    assert long_line.recv(100).startswith(b"HTTP/1.0 400")
    assert short.recv(100).startswith(b"HTTP/1.1 408")     # after body_seconds
    for sock in (silent, partial):                          # closed after idle_connection
        assert sock.recv(100) == b""
    for sock in (silent, partial, short, bad_length, long_line):
        sock.close()
    huge = b'{"cmd": "hello", "pad": "' + b"a" * (2 << 20) + b'"}'
    status, answer = post(server.url, huge)
    assert status == 413 and answer["error"]["type"] == "LimitExceeded"
    status, answer = post(server.url, b'{"cmd": "hello", "x": "\xff"}')
    assert status == 200 and "UTF-8" in answer["error"]["message"]
    assert not [r for r in caplog.records if r.exc_info]  # no traceback for a client's fault


def test_long_searches_never_block_another_client(server: WebServer) -> None:
    """perft to depth 100 and a 60-second search run while another client plays;
    stop ends them (HTTP: a second request of the same session)."""
    busy, other = Http(server.url), Http(server.url)
    gid = busy.ask(cmd="new", game="reversi")["game_id"]
    mine = other.ask(cmd="new", game="reversi")["game_id"]
    results: dict[str, Any] = {}

    async def long_requests() -> None:
        loop = asyncio.get_running_loop()
        perft = loop.run_in_executor(None, lambda: busy.ask(
            id="p", cmd="perft", game_id=gid, depth=100))
        hint = loop.run_in_executor(None, lambda: busy.ask(
            id="h", cmd="hint", game_id=gid, seconds=60))
        await asyncio.sleep(0.5)
        for move in ("d3", "c3"):
            sent = time.monotonic()
            assert other.ask(cmd="move", game_id=mine, move=move)["ok"]
            assert time.monotonic() - sent < PROMPT
        assert busy.ask(cmd="state", game_id=gid)["ok"]   # the busy session too
        third = busy.ask(cmd="hint", game_id=gid, iterations=10)
        assert third["error"]["type"] == "LimitExceeded"  # 2 searches a session
        sent = time.monotonic()
        assert busy.ask(cmd="stop")["stopped"] == 2
        results["perft"], results["hint"] = await perft, await hint
        results["stopped after"] = time.monotonic() - sent

    asyncio.run(long_requests())
    assert results["perft"]["error"]["type"] == "Interrupted"
    assert results["hint"]["ok"] and results["hint"]["interrupted"] is True
    assert results["stopped after"] < PROMPT


def test_loads_cannot_pass_the_game_limit(server: WebServer) -> None:
    client = Http(server.url)
    record = client.ask(cmd="save", game_id=client.ask(cmd="new", game="reversi")["game_id"])
    answers = [client.ask(cmd="load", record=record["record"]) for _ in range(6)]
    assert [a["ok"] for a in answers] == [True] * 4 + [False] * 2
    assert answers[-1]["error"]["type"] == "LimitExceeded"
    assert len(client.ask(cmd="list")["games"]) == 5


async def _ws_session(url: str, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Send ``requests`` over one WebSocket and collect every message until each
    request is answered."""
    async with aiohttp.ClientSession() as client, client.ws_connect(url + "ws") as ws:
        messages: list[dict[str, Any]] = []
        waiting = {json.dumps(r["id"]) for r in requests}
        for request in requests:
            await ws.send_str(json.dumps(request))
        while waiting:
            message = json.loads((await asyncio.wait_for(ws.receive(), 60)).data)
            messages.append(message)
            if "ok" in message:
                waiting.discard(json.dumps(message["id"]))
        return messages


def test_a_websocket_is_a_session_with_pushed_events(server: WebServer) -> None:
    async def run() -> list[dict[str, Any]]:
        async with aiohttp.ClientSession() as client, client.ws_connect(server.url + "ws") as ws:
            await ws.send_json({"id": 1, "cmd": "new", "game": "reversi"})
            gid = (await ws.receive_json(timeout=30))["game_id"]
            await ws.send_json({"id": 2, "cmd": "play", "game_id": gid, "seconds": 1.5,
                                "progress": True})
            await ws.send_json({"id": 3, "cmd": "state", "game_id": gid})
            messages = []
            while not any(m.get("id") == 2 and "ok" in m for m in messages):
                messages.append(await ws.receive_json(timeout=60))
            return messages

    messages = asyncio.run(run())
    answers = [m["id"] for m in messages if "ok" in m]
    assert answers == [3, 2]          # the state came while the computer thought
    progress = [m for m in messages if m.get("event") == "progress"]
    assert progress and all(p["id"] == 2 and p["iterations"] >= 0 for p in progress)
    assert messages[-1]["ok"] and len(messages[-1]["moves_played"]) == 1


def test_a_closed_websocket_ends_its_session(server: WebServer) -> None:
    assert server.hub is not None
    before = len(server.hub.sessions)
    messages = asyncio.run(_ws_session(server.url, [
        {"id": 1, "cmd": "new", "game": "reversi"}, {"id": 2, "cmd": "hello"}]))
    token = next(m["session"] for m in messages if m.get("id") == 2)
    deadline = time.monotonic() + 30
    while server.hub.get(token) is not None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.hub.get(token) is None and len(server.hub.sessions) <= before


def test_a_websocket_message_over_the_limit_closes_it_cleanly(server: WebServer) -> None:
    async def run() -> Any:
        async with aiohttp.ClientSession() as client, client.ws_connect(server.url + "ws") as ws:
            await ws.send_str('{"cmd": "hello", "pad": "' + "a" * (2 << 20) + '"}')
            message = await ws.receive(timeout=30)
            return message.type, message.data
    # The server's close frame says why (the client's own close_code may read 1006
    # when the server has gone before the client's answering close frame is sent).
    kind, code = asyncio.run(run())
    assert (kind, code) == (aiohttp.WSMsgType.CLOSE, 1009)


def test_brett_serve_http_through_the_command_line() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "brett", "serve", "--http", "--port",
                             "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("brett: play at http://127.0.0.1:"), line
        url = line.split()[3]
        client = Http(url)
        assert client.ask(cmd="new", game="schuft")["to_move"] == "chance"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_a_bash_client_plays_over_http(server: WebServer) -> None:
    """examples/http_client.sh: curl and jq against the HTTP API."""
    import shutil
    from pathlib import Path

    missing = [tool for tool in ("bash", "curl", "jq") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (Debian: apt install curl jq)")
    script = Path(__file__).parent.parent / "examples" / "http_client.sh"
    result = subprocess.run(["bash", str(script), server.url], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert " moves: " in result.stdout and ("wins" in result.stdout or "Draw" in result.stdout)
