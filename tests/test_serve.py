"""``brett serve`` as an outside client meets it: a subprocess spoken to through
pipes, every request and response checked against docs/protocol.schema.json,
stop and end of input, a fuzz of random and malformed lines, and a client in
another language (Node) playing a game."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brett
from brett.frontends.protocol import Server

ROOT = Path(__file__).parent.parent
SCHEMA = json.loads((ROOT / "docs" / "protocol.schema.json").read_text())


def _validator(definition: str) -> Any:
    return jsonschema.Draft202012Validator({"$ref": f"#/$defs/{definition}",
                                            "$defs": SCHEMA["$defs"]})


REQUEST, RESPONSE = _validator("request"), _validator("response")


class Client:
    """``brett serve`` in a subprocess; every line checked against the schema."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "brett", "serve"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)
        self.next_id = 0

    def send(self, request: dict[str, Any]) -> None:
        REQUEST.validate(request)
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()

    def receive(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        response: dict[str, Any] = json.loads(self.proc.stdout.readline())
        RESPONSE.validate(response)
        return response

    def ask(self, **request: Any) -> dict[str, Any]:
        self.next_id += 1
        self.send({"id": self.next_id, **request})
        response = self.receive()
        assert response["id"] == self.next_id
        return response

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(timeout=30)


@pytest.fixture
def client() -> Any:
    c = Client()
    yield c
    if c.proc.poll() is None:
        c.proc.kill()


def test_every_command_through_a_pipe(client: Client) -> None:
    new = client.ask(cmd="new", game="reversi", options={"size": 6})
    assert new["ok"] and new["game_id"] == "g1" and new["to_move"] == 0
    assert new["board"] == {"c3": 1, "d3": 0, "c4": 0, "d4": 1}
    legal = client.ask(cmd="legal", game_id="g1")
    assert legal["count"] == 4 and legal["moves"] == ["c2", "b3", "e4", "d5"]
    assert client.ask(cmd="legal", game_id="g1", limit=1)["moves"] == ["c2"]
    moved = client.ask(cmd="move", game_id="g1", move="c2")
    assert moved["played"] == "c2" and moved["to_move"] == 1 and moved["moves_played"] == ["c2"]
    assert client.ask(cmd="state", game_id="g1")["position"] == moved["position"]
    assert client.ask(cmd="undo", game_id="g1")["undone"] == "c2"
    played = client.ask(cmd="random_move", game_id="g1", seed=3)["played"]
    assert played in legal["moves"]
    assert client.ask(cmd="perft", game_id="g1", depth=3)["nodes"] == \
        brett.Reversi.from_position(client.ask(cmd="state", game_id="g1")["position"]).perft(3)
    assert client.ask(cmd="svg", game_id="g1")["svg"].startswith("<svg")
    record = client.ask(cmd="save", game_id="g1")["record"]
    loaded = client.ask(cmd="load", record=record)
    assert loaded["game_id"] == "g2" and loaded["moves_played"] == [played]
    schuft = client.ask(cmd="new", game="schuft", options={"players": 3})
    assert schuft["to_move"] == "chance"
    rolled = client.ask(cmd="roll", game_id=schuft["game_id"], roll="5-8-2")
    assert rolled["played"] == "5-8-2" and rolled["to_move"] == 0
    focus = client.ask(cmd="new", game="focus", options={"players": 4})
    assert all(isinstance(stack, list) for stack in focus["board"].values())
    ball = client.ask(cmd="new", game="phutball", options={"columns": 9, "rows": 9})
    assert ball["board"] == {"e5": "ball"}
    placed = client.ask(cmd="move", game_id=ball["game_id"], move="e6")
    assert placed["effects"] == {"placed": "e6", "path": [], "removed": [], "player": 0}
    clicked = client.ask(cmd="legal", game_id=ball["game_id"], prefix=["e5"])
    assert clicked["next"] == ["e7"] and clicked["moves"] == []
    done = client.ask(cmd="legal", game_id=ball["game_id"], prefix=["e5", "e7", "stop"])
    assert done["moves"] == ["e5-e7"] and done["next"] == []
    jumped = client.ask(cmd="move", game_id=ball["game_id"], move=done["moves"][0])
    assert jumped["effects"]["removed"] == ["e6"] and jumped["board"] == {"e7": "ball"}
    assert client.ask(cmd="close", game_id="g2") == {"id": client.next_id, "ok": True}
    assert client.ask(cmd="quit")["ok"] and client.proc.wait(timeout=30) == 0


@pytest.mark.parametrize(("line", "kind", "message"), [
    ("nonsense", "ProtocolError", "not a JSON object"),
    ("[1, 2]", "ProtocolError", "a request is a JSON object"),
    ('{"id": 7}', "ProtocolError", "unknown command None"),
    ('{"id": 7, "cmd": "dance"}', "ProtocolError", "unknown command 'dance'"),
    ('{"id": 7, "cmd": "state", "game_id": "g9"}', "ProtocolError", "unknown game_id"),
    ('{"id": 7, "cmd": "new", "game": "chess"}', "BrettError", "chess"),
    ('{"id": 7, "cmd": "new", "game": "reversi", "options": {"size": 5}}',
     "InvalidPositionError", "size"),
    ('{"id": 7, "cmd": "new", "game": "reversi", "options": {"colour": 5}}',
     "ProtocolError", "bad options"),
    ('{"id": 7, "cmd": "move", "game_id": "g1"}', "ProtocolError", '"move" must be'),
    ('{"id": 7, "cmd": "move", "game_id": "g1", "move": "z9"}', "InvalidMoveError", "z9"),
    ('{"id": 7, "cmd": "move", "game_id": "g1", "move": "a1"}', "IllegalMoveError", "a1"),
    ('{"id": 7, "cmd": "undo", "game_id": "g1"}', "EmptyStackError", "empty"),
    ('{"id": 7, "cmd": "legal", "game_id": "g1", "prefix": "d3"}', "ProtocolError", "prefix"),
    ('{"id": 7, "cmd": "legal", "game_id": "g1", "prefix": [null]}', "ProtocolError",
     "prefix"),
    ('{"id": 7, "cmd": "roll", "game_id": "g1", "roll": "1-2-3"}', "BrettError", "chance"),
    ('{"id": 7, "cmd": "perft", "game_id": "g1", "depth": 1000}', "BrettError", "depth"),
    ('{"id": 7, "cmd": "load", "record": "{}"}', "InvalidRecordError", "not a brett record"),
    ('{"id": 7, "cmd": "play", "game_id": "g1", "level": 11}', "BrettError", "level=11"),
    ('{"id": 7, "cmd": "play", "game_id": "g1", "level": "3"}', "BrettError", "level='3'"),
    ('{"id": 7, "cmd": "play", "game_id": "g1", "level": 3, "seconds": 1}', "ProtocolError",
     "\"level\" is a budget of its own"),
    ('{"id": 7, "cmd": "hint", "game_id": "g1", "seconds": 0}', "BrettError", "seconds=0"),
    ('{"id": 7, "cmd": "hint", "game_id": "g1", "seconds": 61}', "BrettError", "at most 60"),
    ('{"id": 7, "cmd": "hint", "game_id": "g1", "seconds": "1"}', "BrettError", "seconds='1'"),
    ('{"id": 7, "cmd": "hint", "game_id": "g1", "seconds": NaN}', "BrettError", "seconds=nan"),
    ('{"id": 7, "cmd": "hint", "game_id": "g1", "iterations": 0}', "BrettError",
     "iterations=0"),
    ('{"id": 7, "cmd": "hint", "game_id": "g1", "iterations": 1e9}', "BrettError",
     "iterations=1000000000.0"),
    ('{"id": 7, "cmd": "hint", "game_id": "g1", "level": 1, "seed": "x"}', "BrettError",
     "seed='x'"),
    ('{"id": 7, "cmd": "hint", "game_id": "g1", "level": 1, "limit": -1}', "BrettError",
     "limit=-1"),
    ('{"id": 7, "cmd": "play", "game_id": "g9", "level": 1}', "ProtocolError",
     "unknown game_id"),
])
def test_bad_requests_are_answered_and_lose_nothing(client: Client, line: str, kind: str,
                                                     message: str) -> None:
    start = client.ask(cmd="new", game="reversi")
    assert client.proc.stdin is not None
    client.proc.stdin.write(line + "\n")
    client.proc.stdin.flush()
    response = client.receive()
    assert response["ok"] is False and response["error"]["type"] == kind
    assert message in response["error"]["message"]
    assert client.ask(cmd="state", game_id="g1")["position"] == start["position"]


def test_stop_and_the_end_of_input_interrupt_a_long_search(client: Client) -> None:
    client.ask(cmd="new", game="reversi")
    client.send({"id": "long", "cmd": "perft", "game_id": "g1", "depth": 14})
    time.sleep(0.5)
    sent = time.monotonic()
    client.send({"id": "halt", "cmd": "stop"})
    stopped = client.receive()
    assert time.monotonic() - sent < 2.0
    assert stopped == {"id": "long", "ok": False,
                       "error": {"type": "Interrupted", "message": "stopped by a stop request"}}
    assert client.receive() == {"id": "halt", "ok": True}
    assert client.ask(cmd="state", game_id="g1")["moves_played"] == []  # the game is intact
    client.send({"id": "again", "cmd": "perft", "game_id": "g1", "depth": 14})
    time.sleep(0.3)
    closed = time.monotonic()
    assert client.close() == 0 and time.monotonic() - closed < 2.0


def test_the_computer_plays_and_hints(client: Client) -> None:
    client.ask(cmd="new", game="reversi")
    hint = client.ask(cmd="hint", game_id="g1", iterations=2000, seed=1, limit=3)
    assert hint["ok"] and hint["iterations"] == 2000 and hint["interrupted"] is False
    moves = hint["moves"]
    assert len(moves) == 3 and {m["move"] for m in moves} <= {"d3", "c4", "f5", "e6"}
    assert [m["visits"] for m in moves] == sorted((m["visits"] for m in moves), reverse=True)
    assert all(0 <= m["value"] <= 1 for m in moves)
    again = client.ask(cmd="hint", game_id="g1", iterations=2000, seed=1, limit=3)
    assert again["moves"] == moves  # a seeded search of so many iterations is reproducible
    played = client.ask(cmd="play", game_id="g1", iterations=2000, seed=1)
    assert played["played"] == moves[0]["move"] and played["value"] == moves[0]["value"]
    assert played["effects"]["square"] == played["played"] and played["effects"]["flipped"]
    assert played["to_move"] == 1 and played["moves_played"] == [played["played"]]
    assert played["iterations"] == 2000 and played["interrupted"] is False
    reply = client.ask(cmd="play", game_id="g1", level=1)
    assert reply["ok"] and reply["to_move"] == 0 and len(reply["moves_played"]) == 2
    assert 0 < reply["iterations"] <= 10  # level 1: 10 iterations or 0.05 s
    timed = client.ask(cmd="hint", game_id="g1", seconds=0.2)
    assert timed["ok"] and 0.15 < timed["seconds"] < 2 and timed["iterations"] > 0
    # every game: Schuft's dice are rolled by play, its turns searched
    schuft = client.ask(cmd="new", game="schuft", options={"players": 2})["game_id"]
    assert client.ask(cmd="hint", game_id=schuft, level=1)["error"]["type"] == "BrettError"
    rolled = client.ask(cmd="play", game_id=schuft, seed=3)
    assert rolled["to_move"] == 0 and rolled["iterations"] == 0 and "value" not in rolled
    turn = client.ask(cmd="play", game_id=schuft, level=2, seed=3)
    assert turn["to_move"] == "chance" and turn["effects"]["player"] == 0
    ball = client.ask(cmd="new", game="phutball", options={"columns": 9, "rows": 9})
    assert client.ask(cmd="play", game_id=ball["game_id"], level=2)["to_move"] == 1
    focus = client.ask(cmd="new", game="focus", options={"players": 3})["game_id"]
    assert client.ask(cmd="hint", game_id=focus, level=2, limit=1)["moves"][0]["visits"] > 0
    # the end of a game
    over = client.ask(cmd="load", record=brett.dump(_finished_reversi()))["game_id"]
    for command in ("play", "hint"):
        failed = client.ask(cmd=command, game_id=over, level=1)["error"]
        assert failed["type"] == "BrettError" and "the game is over" in failed["message"]


def _finished_reversi() -> brett.Reversi:
    game = brett.Reversi(size=6)
    game.random_playout(seed=1)
    return game


def test_stop_ends_a_search_with_its_best_move_so_far(client: Client) -> None:
    client.ask(cmd="new", game="reversi")
    client.send({"id": "long", "cmd": "hint", "game_id": "g1", "seconds": 30})
    time.sleep(0.5)
    sent = time.monotonic()
    client.send({"id": "halt", "cmd": "stop"})
    hint = client.receive()
    assert time.monotonic() - sent < 2.0
    assert hint["id"] == "long" and hint["ok"] and hint["interrupted"] is True
    assert 0.3 < hint["seconds"] < 5 and hint["iterations"] > 0
    assert hint["moves"] and hint["moves"][0]["move"] in ("d3", "c4", "f5", "e6")
    assert client.receive() == {"id": "halt", "ok": True}
    # play: the best move so far is played
    client.send({"id": "move", "cmd": "play", "game_id": "g1", "seconds": 30})
    time.sleep(0.5)
    sent = time.monotonic()
    client.send({"id": "now", "cmd": "stop"})
    played = client.receive()
    assert time.monotonic() - sent < 2.0
    assert played["ok"] and played["interrupted"] is True and played["to_move"] == 1
    assert played["moves_played"] == [played["played"]]
    assert client.receive() == {"id": "now", "ok": True}
    # a stop sent straight after the request, before its search began: nothing played
    client.send({"id": "soon", "cmd": "play", "game_id": "g1", "seconds": 30})
    client.send({"id": "no", "cmd": "stop"})
    sent = time.monotonic()
    first = client.receive()
    assert time.monotonic() - sent < 2.0
    if first["ok"]:  # the search had begun: it stopped with its best so far
        assert first["interrupted"] is True and len(first["moves_played"]) == 2
    else:
        assert first["error"]["type"] == "Interrupted"
    assert client.receive() == {"id": "no", "ok": True}
    # the server goes on searching
    quick = client.ask(cmd="hint", game_id="g1", iterations=500)
    assert quick["iterations"] == 500 and quick["interrupted"] is False
    client.send({"id": "again", "cmd": "hint", "game_id": "g1", "seconds": 30})
    time.sleep(0.3)
    closed = time.monotonic()
    assert client.close() == 0 and time.monotonic() - closed < 2.0


LINES = st.one_of(
    st.text(max_size=60),
    st.builds(json.dumps, st.dictionaries(
        st.sampled_from(["id", "cmd", "game", "game_id", "move", "options", "depth", "limit",
                         "roll", "seed", "record"]),
        st.one_of(st.none(), st.integers(-5, 20), st.text(max_size=12),
                  st.sampled_from(["new", "state", "legal", "move", "undo", "random_move",
                                   "close", "perft", "reversi", "schuft", "g1", "g2", "f5"]),
                  st.dictionaries(st.text(max_size=6), st.integers(0, 9), max_size=2)),
        max_size=6)))


@settings(max_examples=200, deadline=None)
@given(st.lists(LINES, max_size=12))
def test_random_and_malformed_lines(lines: list[str]) -> None:
    """Every line gets one valid response; no exception escapes; a game is lost
    only by ``close``."""
    server = Server()
    server.handle(json.dumps({"cmd": "new", "game": "reversi"}))
    for line in lines:
        before = set(server.games)
        response = server.handle(line)
        RESPONSE.validate(response)
        closed = response["ok"] and '"close"' in line
        assert before <= set(server.games) or closed


def test_a_client_in_another_language_plays_a_game() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed")
    result = subprocess.run([node, str(ROOT / "examples" / "serve_client.mjs"),
                             sys.executable, "-m", "brett", "serve"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert " moves: " in result.stdout and "discs " in result.stdout


def test_an_unexpected_exception_is_answered_and_the_server_lives_on() -> None:
    server = Server()
    server.handle(json.dumps({"cmd": "new", "game": "reversi"}))

    def broken(request: dict[str, Any]) -> dict[str, Any]:
        raise ValueError("a bug")

    server.commands["state"] = broken
    response = server.handle(json.dumps({"id": 1, "cmd": "state", "game_id": "g1"}))
    RESPONSE.validate(response)
    assert response["error"] == {"type": "InternalError",
                                 "message": "ValueError: a bug (please report)"}
    assert server.handle(json.dumps({"cmd": "legal", "game_id": "g1"}))["count"] == 4


def test_brett_play_json_speaks_the_protocol_through_a_pipe() -> None:
    requests = [{"id": 1, "cmd": "move", "game_id": "g1", "move": "c2"},
                {"id": 2, "cmd": "move", "game_id": "g1", "move": "a1"},
                {"id": 3, "cmd": "quit"}]
    result = subprocess.run([sys.executable, "-m", "brett", "play", "reversi", "--size", "6",
                             "--json"], input="".join(json.dumps(r) + "\n" for r in requests),
                            capture_output=True, text=True, timeout=60)
    replies = [json.loads(line) for line in result.stdout.splitlines()]
    for reply in replies:
        RESPONSE.validate(reply)
    assert result.returncode == 0 and result.stderr == ""
    assert replies[0]["game_id"] == "g1" and replies[0]["position"].endswith("x n=6")
    assert replies[1]["played"] == "c2" and replies[1]["effects"]["flipped"] == ["c3"]
    assert replies[2]["error"]["type"] == "IllegalMoveError" and replies[3]["ok"]


def test_brett_serve_http_serves_the_page_and_the_api() -> None:
    import urllib.request

    proc = subprocess.Popen([sys.executable, "-m", "brett", "serve", "--http", "--port",
                             "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("brett: play at http://127.0.0.1:")
        url = line.split()[3]
        page = urllib.request.urlopen(url, timeout=10).read().decode()
        assert "<title>brett</title>" in page and "app.js" in page
        for asset in ("app.js", "style.css"):
            assert urllib.request.urlopen(url + asset, timeout=10).status == 200
        request = urllib.request.Request(url + "api", data=json.dumps(
            {"id": 1, "cmd": "new", "game": "focus"}).encode(), method="POST")
        reply = json.loads(urllib.request.urlopen(request, timeout=10).read())
        RESPONSE.validate(reply)
        assert reply["ok"] and reply["game"] == "focus"
        bad = urllib.request.Request(url + "api", data=b"not json", method="POST")
        assert json.loads(urllib.request.urlopen(bad, timeout=10).read())["ok"] is False
    finally:
        proc.terminate()
        proc.wait(timeout=10)
