"""The engine protocol as its clients meet it: ``brett serve`` in a subprocess
spoken to through pipes (every message checked against docs/protocol.schema.json),
the same sessions in-process, searches beside other requests, limits and expiry,
hostile lines, and a client in another language (Node)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Optional

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brett
from brett.frontends.commands import COMMANDS
from brett.frontends.protocol import COMMON, LimitExceeded
from brett.frontends.sessions import LOCAL, Hub, Limits, Session

ROOT = Path(__file__).parent.parent
SCHEMA = json.loads((ROOT / "docs" / "protocol.schema.json").read_text())
PROMPT = 5.0
"""Seconds within which a quick answer must come even on a busy machine (an idle
one answers in milliseconds; the point is that it does not wait for a search)."""


def _validator(definition: str) -> Any:
    return jsonschema.Draft202012Validator({"$ref": f"#/$defs/{definition}",
                                            "$defs": SCHEMA["$defs"]})


REQUEST, RESPONSE, EVENT = _validator("request"), _validator("response"), _validator("event")


class Client:
    """``brett serve`` in a subprocess; every line checked against the schema.
    Answers are matched by id: those of other requests and the events that
    arrive meanwhile are kept for later."""

    def __init__(self, *args: str, env: Optional[dict[str, str]] = None) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "brett", *(args or ("serve",))],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)
        self.next_id = 0
        self.answers: dict[str, dict[str, Any]] = {}
        self.events: list[dict[str, Any]] = []

    def write(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, request: dict[str, Any]) -> None:
        REQUEST.validate(request)
        self.write(json.dumps(request).encode() + b"\n")

    def read(self) -> dict[str, Any]:
        """The next message, validated."""
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line, f"the server closed its output: {self.proc.stderr.read()!r}"  # type: ignore[union-attr]
        message: dict[str, Any] = json.loads(line)
        (EVENT if "event" in message else RESPONSE).validate(message)
        return message

    def answer(self, ident: Any) -> dict[str, Any]:
        """The answer to the request ``ident`` (reading on as needed)."""
        key = json.dumps(ident)
        while key not in self.answers:
            message = self.read()
            if "event" in message:
                self.events.append(message)
            else:
                self.answers[json.dumps(message["id"])] = message
        return self.answers.pop(key)

    def event(self, ident: Any) -> dict[str, Any]:
        """The first event of the request ``ident`` (reading on as needed: a
        blocking read, so only for a request that sends events)."""
        while True:
            for event in self.events:
                if event["id"] == ident:
                    return event
            message = self.read()
            if "event" in message:
                self.events.append(message)
            else:
                self.answers[json.dumps(message["id"])] = message

    def ask(self, **request: Any) -> dict[str, Any]:
        self.next_id += 1
        self.send({"id": self.next_id, **request})
        return self.answer(self.next_id)

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(timeout=60)


@pytest.fixture
def client() -> Any:
    c = Client()
    yield c
    if c.proc.poll() is None:
        c.proc.kill()
        c.proc.wait()


@pytest.fixture
def hub() -> Any:
    h = Hub(LOCAL)
    yield h
    h.close()


def test_every_command_through_a_pipe(client: Client) -> None:
    hello = client.ask(cmd="hello")
    assert hello["protocol"] == 2 and hello["brett"] == brett.__version__
    assert hello["games"] == list(brett.GAMES)
    new = client.ask(cmd="new", game="reversi", options={"size": 6})
    gid = new["game_id"]
    assert new["ok"] and new["to_move"] == 0 and new["ply"] == 0
    assert new["board"] == {"c3": 1, "d3": 0, "c4": 0, "d4": 1}
    assert new["start"] == new["position"]
    legal = client.ask(cmd="legal", game_id=gid)
    assert legal["count"] == 4 and legal["moves"] == ["c2", "b3", "e4", "d5"]
    assert legal["more"] is False
    assert client.ask(cmd="legal", game_id=gid, limit=1)["moves"] == ["c2"]
    moved = client.ask(cmd="move", game_id=gid, move="c2")
    assert moved["played"] == "c2" and moved["to_move"] == 1 and moved["moves_played"] == ["c2"]
    assert moved["effects"] == {"square": "c2", "player": 0, "flipped": ["c3"]}
    assert client.ask(cmd="state", game_id=gid)["position"] == moved["position"]
    assert client.ask(cmd="state", game_id=gid, ply=0)["position"] == new["position"]
    assert client.ask(cmd="undo", game_id=gid)["undone"] == "c2"
    played = client.ask(cmd="random_move", game_id=gid, seed=3)["played"]
    assert played in legal["moves"]
    position = client.ask(cmd="state", game_id=gid)["position"]
    assert client.ask(cmd="perft", game_id=gid, depth=3)["nodes"] == \
        brett.Reversi.from_position(position).perft(3)
    assert client.ask(cmd="svg", game_id=gid)["svg"].startswith("<svg")
    assert client.ask(cmd="svg", game_id=gid, ply=0, options={"size": 100})["svg"] != \
        client.ask(cmd="svg", game_id=gid, options={"size": 100})["svg"]
    saved = client.ask(cmd="save", game_id=gid)
    assert saved["format"] == "json" and saved["record"]["moves"] == [played]
    loaded = client.ask(cmd="load", record=saved["record"])
    assert loaded["game_id"] != gid and loaded["moves_played"] == [played]
    assert loaded["position"] == position and loaded["records"] == 1
    as_text = client.ask(cmd="load", record=json.dumps(saved["record"]))
    assert as_text["position"] == position
    listed = client.ask(cmd="list")["games"]
    assert {g["game_id"] for g in listed} == {gid, loaded["game_id"], as_text["game_id"]}
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
    first = client.ask(cmd="legal", game_id=ball["game_id"], prefix=[])
    assert len(first["next"]) == 80 and first["marked"] == ["e5"]  # men go anywhere, unmarked
    clicked = client.ask(cmd="legal", game_id=ball["game_id"], prefix=["e5"])
    assert clicked["next"] == clicked["marked"] == ["e7"] and clicked["moves"] == []
    done = client.ask(cmd="legal", game_id=ball["game_id"], prefix=["e5", "e7", "stop"])
    assert done["moves"] == ["e5-e7"] and done["next"] == []
    jumped = client.ask(cmd="move", game_id=ball["game_id"], move=done["moves"][0])
    assert jumped["effects"]["removed"] == ["e6"] and jumped["board"] == {"e7": "ball"}
    assert client.ask(cmd="close", game_id=loaded["game_id"]) == {"id": client.next_id,
                                                                  "ok": True}
    assert client.ask(cmd="state", game_id=loaded["game_id"])["error"]["type"] == \
        "ProtocolError"
    assert client.ask(cmd="quit")["ok"] and client.proc.wait(timeout=30) == 0


def test_the_games_and_their_options_are_described(hub: Hub) -> None:
    described = hub.open().ask({"cmd": "games"})["games"]
    assert [g["name"] for g in described] == list(brett.GAMES)
    for entry in described:
        cls = brett.GAMES[entry["name"]]
        assert entry["chance"] is cls.has_chance
        assert entry["options"] == [o.as_dict() for o in cls.OPTIONS]
    session = hub.open()
    for entry in described:
        gid = session.ask({"cmd": "new", "game": entry["name"]})["game_id"]
        session.ask({"cmd": "random_move", "game_id": gid, "seed": 1})  # a transcript needs one
        for fmt in ("json", "sgf", "ggf", "pos", "txt"):
            saved = session.ask({"cmd": "save", "game_id": gid, "format": fmt})
            assert saved["ok"] is (fmt in entry["records"]), (entry["name"], fmt, saved)


@pytest.mark.parametrize(("request_", "kind", "message"), [
    ("nonsense", "ProtocolError", "not a JSON object"),
    ("[1, 2]", "ProtocolError", "a request is a JSON object with \"cmd\", not array [1, 2]"),
    ("", "ProtocolError", "an empty request"),
    ('{"id": 7}', "ProtocolError", "a request needs \"cmd\": one of close, games"),
    ('{"id": 7, "cmd": "dance"}', "ProtocolError", "unknown command \"dance\": expected"),
    ('{"id": 7, "cmd": 5}', "ProtocolError", "unknown command 5"),
    ('{"id": 7, "cmd": "state", "game_id": "g9"}', "ProtocolError",
     "unknown game_id \"g9\": not open in this session"),
    ('{"id": 7, "cmd": "state", "gameid": "g9"}', "ProtocolError",
     "unknown field \"gameid\" in \"state\": it takes \"id\", \"cmd\", \"game_id\", \"ply\""),
    ('{"id": 7, "cmd": "new", "game": "chess"}', "BrettError", "unknown game 'chess'"),
    ('{"id": 7, "cmd": "new", "game": "reversi", "options": {"size": 5}}',
     "InvalidPositionError", "size"),
    ('{"id": 7, "cmd": "new", "game": "reversi", "options": {"colour": 5}}',
     "ProtocolError", "unknown option \"colour\" for reversi: it takes \"size\""),
    ('{"id": 7, "cmd": "new", "game": "reversi", "options": []}', "ProtocolError",
     "\"options\" must be an object (got [])"),
    ('{"id": 7, "cmd": "move", "game_id": "{gid}"}', "ProtocolError",
     "\"move\" needs \"move\" (a string)"),
    ('{"id": 7, "cmd": "move", "game_id": "{gid}", "move": null}', "ProtocolError",
     "\"move\" must be a string (got null)"),
    ('{"id": 7, "cmd": "move", "game_id": "{gid}", "move": "z9"}', "InvalidMoveError", "z9"),
    ('{"id": 7, "cmd": "move", "game_id": "{gid}", "move": "a1"}', "IllegalMoveError", "a1"),
    ('{"id": 7, "cmd": "undo", "game_id": "{gid}"}', "EmptyStackError", "empty"),
    ('{"id": 7, "cmd": "legal", "game_id": "{gid}", "prefix": "d3"}', "ProtocolError",
     "\"prefix\" must be an array (got \"d3\")"),
    ('{"id": 7, "cmd": "legal", "game_id": "{gid}", "prefix": [null]}', "ProtocolError",
     "\"prefix\" must be an array of strings (got [null])"),
    ('{"id": 7, "cmd": "roll", "game_id": "{gid}", "roll": "1-2-3"}', "BrettError", "chance"),
    ('{"id": 7, "cmd": "perft", "game_id": "{gid}", "depth": 1000}', "ProtocolError",
     "\"depth\" must be an integer from 0 to 100 (got 1000)"),
    ('{"id": 7, "cmd": "perft", "game_id": "{gid}", "depth": true}', "ProtocolError",
     "\"depth\" must be an integer from 0 to 100 (got true)"),
    ('{"id": 7, "cmd": "state", "game_id": "{gid}", "ply": 3}', "ProtocolError",
     "\"ply\" 3: the game has 0 moves"),
    ('{"id": 7, "cmd": "load", "record": "{}"}', "InvalidRecordError", "not a brett record"),
    ('{"id": 7, "cmd": "load", "record": "(;FF[4]GM[2]SZ[8];B[fe];B[ed])"}',
     "InvalidRecordError", "the record text: SGF line 1, column 25: B[ed]: W is to move"),
    ('{"id": 7, "cmd": "load", "record": 5}', "ProtocolError",
     "\"record\" must be an object or a string (got 5)"),
    ('{"id": 7, "cmd": "save", "game_id": "{gid}", "format": "pgn"}', "ProtocolError",
     "\"format\" must be one of \"json\", \"sgf\", \"ggf\", \"pos\", \"txt\" (got \"pgn\")"),
    ('{"id": 7, "cmd": "play", "game_id": "{gid}", "level": 11}', "ProtocolError",
     "\"level\" must be an integer from 1 to 10 (got 11)"),
    ('{"id": 7, "cmd": "play", "game_id": "{gid}", "level": "3"}', "ProtocolError",
     "\"level\" must be an integer from 1 to 10 (got \"3\")"),
    ('{"id": 7, "cmd": "play", "game_id": "{gid}", "level": 3, "seconds": 1}', "ProtocolError",
     "\"level\" is a budget of its own"),
    ('{"id": 7, "cmd": "hint", "game_id": "{gid}", "seconds": 0}', "ProtocolError",
     "\"seconds\" must be a number above 0 up to 60 (got 0)"),
    ('{"id": 7, "cmd": "hint", "game_id": "{gid}", "seconds": 61}', "ProtocolError",
     "(got 61)"),
    ('{"id": 7, "cmd": "hint", "game_id": "{gid}", "seconds": NaN}', "ProtocolError",
     "NaN is not a JSON number: requests hold finite numbers only"),
    ('{"id": 7, "cmd": "hint", "game_id": "{gid}", "iterations": 1e9}', "ProtocolError",
     "\"iterations\" must be an integer from 1 to 100000000 (got 1000000000.0)"),
    ('{"id": 7, "cmd": "hint", "game_id": "{gid}", "level": 1, "seed": "x"}', "ProtocolError",
     "\"seed\" must be an integer (got \"x\")"),
    ('{"id": 7, "cmd": "hint", "game_id": "{gid}", "level": 1, "limit": -1}', "ProtocolError",
     "\"limit\" must be an integer from 0 to 100000 (got -1)"),
    ('{"id": {"a": 1}, "cmd": "hello"}', "ProtocolError", "\"id\" must be a string or"),
])
def test_bad_requests_are_answered_in_the_protocols_words(hub: Hub, request_: str, kind: str,
                                                          message: str) -> None:
    session = hub.open()
    game = session.ask({"cmd": "new", "game": "reversi"})
    answer = session.ask(request_.replace("{gid}", game["game_id"]))
    RESPONSE.validate(answer)
    assert answer["ok"] is False and answer["error"]["type"] == kind, answer
    assert message in answer["error"]["message"]
    assert "None" not in answer["error"]["message"]   # no Python reprs
    # NaN is not JSON: such a request is not read at all, as any other invalid JSON
    assert answer["id"] == (7 if '"id": 7' in request_ and "NaN" not in request_ else None)
    state = session.ask({"cmd": "state", "game_id": game["game_id"]})
    assert state["position"] == game["position"] and state["ply"] == 0


def test_the_schema_describes_every_command_as_the_server_checks_it() -> None:
    """docs/protocol.schema.json's requests name the same fields, required ones
    and ranges as the command table."""
    schemas = {s["title"]: s for s in SCHEMA["$defs"]["request"]["oneOf"]}
    assert set(schemas) == set(COMMANDS)
    for name, command in COMMANDS.items():
        schema = schemas[name]
        assert set(schema["properties"]) == set(COMMON) | set(command.fields), name
        required = {"cmd"} | {f for f, spec in command.fields.items() if spec.required}
        assert set(schema["required"]) == required, name
        for field, spec in command.fields.items():
            prop = schema["properties"][field]
            if "$ref" in prop:
                continue
            types = prop["type"] if isinstance(prop["type"], list) else [prop["type"]]
            assert types == list(spec.types), (name, field)
            assert prop.get("maximum") == spec.high, (name, field)
            low = prop.get("exclusiveMinimum" if spec.above else "minimum")
            assert low == spec.low, (name, field)


def test_blank_long_and_broken_lines_are_answered_and_lose_nothing() -> None:
    """With strict UTF-8 on stdin, invalid bytes, a blank line and a line over the
    limit are each answered with one error, and the session goes on."""
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    client = Client(env=env)
    try:
        gid = client.ask(cmd="new", game="reversi")["game_id"]
        client.write(b"\n")
        assert client.read()["error"]["message"].startswith("an empty request")
        client.write(b'{"id": 1, "cmd": "state", "game_id": "\xff\xfe"}\n')
        broken = client.read()
        assert broken["error"]["type"] == "ProtocolError" and "UTF-8" in broken["error"]["message"]
        client.write(b'{"id": 2, "cmd": "hello", "pad": "' + b"a" * (3 << 20) + b'"}\n')
        long = client.read()
        assert long["error"]["type"] == "LimitExceeded" and "1048576" in long["error"]["message"]
        assert client.ask(cmd="move", game_id=gid, move="d3")["ok"]
        assert client.close() == 0
    finally:
        client.proc.kill()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc for memory")
def test_a_huge_line_costs_bounded_memory(client: Client) -> None:
    """A 200 MB line without a newline is read in bounded pieces, not held."""
    client.ask(cmd="hello")
    chunk = b"x" * (1 << 20)
    for _ in range(200):
        client.write(chunk)
    client.write(b"\n")
    assert client.read()["error"]["type"] == "LimitExceeded"
    status = Path(f"/proc/{client.proc.pid}/status").read_text()
    peak_kb = int(next(line.split()[1] for line in status.splitlines()
                       if line.startswith("VmHWM")))
    assert peak_kb < 150_000, f"peak resident memory {peak_kb} kB"
    assert client.ask(cmd="hello")["ok"]


def test_a_search_runs_beside_every_other_request(client: Client) -> None:
    gid = client.ask(cmd="new", game="reversi")["game_id"]
    other = client.ask(cmd="new", game="focus")["game_id"]
    client.send({"id": "long", "cmd": "perft", "game_id": gid, "depth": 100, "progress": True})
    client.send({"id": "think", "cmd": "play", "game_id": gid, "seconds": 60})
    time.sleep(0.3)
    for request in ({"cmd": "state", "game_id": gid}, {"cmd": "legal", "game_id": gid},
                    {"cmd": "move", "game_id": other, "move": "c3-c4"},
                    {"cmd": "hint", "game_id": other, "iterations": 200}):
        sent = time.monotonic()
        assert client.ask(**request)["ok"]
        assert time.monotonic() - sent < PROMPT
    busy = client.ask(cmd="move", game_id=gid, move="d3")
    assert busy["error"]["type"] == "Busy" and '"think"' in busy["error"]["message"]
    progress = client.event("long")  # after half a second, with something counted
    assert progress["event"] == "progress" and progress["cmd"] == "perft"
    sent = time.monotonic()
    assert client.ask(cmd="stop", request="long")["stopped"] == 1
    stopped = client.answer("long")
    assert time.monotonic() - sent < PROMPT
    assert stopped["error"] == {"type": "Interrupted", "message": "stopped by a stop request"}
    assert client.ask(cmd="stop", game_id=gid)["stopped"] == 1
    played = client.answer("think")
    assert played["ok"] and played["interrupted"] is True and played["moves_played"]
    assert client.ask(cmd="state", game_id=gid)["moves_played"] == played["moves_played"]
    client.send({"id": "again", "cmd": "perft", "game_id": gid, "depth": 100})
    time.sleep(0.2)
    closed = time.monotonic()
    assert client.close() == 0 and time.monotonic() - closed < PROMPT


LATTICE = ("1O1O1O1O1/OOOOOOOOO/1O1O1O1O1/OOOOOOOOO/1O1O*O1O1/OOOOOOOOO/1O1O1O1O1/OOOOOOOOO/"
           "1O1O1O1O1 0 9x9")
"""A Phutball position with more jump paths than anything can count."""


def test_a_position_with_uncountable_moves_is_answered(client: Client) -> None:
    record = brett.records.to_dict(brett.Phutball.from_position(LATTICE))
    gid = client.ask(cmd="load", record=record)["game_id"]
    sent = time.monotonic()
    legal = client.ask(cmd="legal", game_id=gid, limit=1000)
    assert legal["count"] == 1_000_000 and legal["more"] is True and len(legal["moves"]) == 1000
    client.send({"id": "deep", "cmd": "perft", "game_id": gid, "depth": 2})
    assert client.ask(cmd="state", game_id=gid)["ok"]
    assert client.ask(cmd="stop", request="deep")["stopped"] == 1
    assert client.answer("deep")["error"]["type"] == "Interrupted"
    assert time.monotonic() - sent < 60


def test_the_computer_plays_and_hints(client: Client) -> None:
    gid = client.ask(cmd="new", game="reversi")["game_id"]
    hint = client.ask(cmd="hint", game_id=gid, iterations=2000, seed=1, limit=3)
    assert hint["ok"] and hint["iterations"] == 2000 and hint["interrupted"] is False
    moves = hint["moves"]
    assert len(moves) == 3 and {m["move"] for m in moves} <= {"d3", "c4", "f5", "e6"}
    assert [m["visits"] for m in moves] == sorted((m["visits"] for m in moves), reverse=True)
    again = client.ask(cmd="hint", game_id=gid, iterations=2000, seed=1, limit=3)
    assert again["moves"] == moves  # a seeded search of so many iterations is reproducible
    played = client.ask(cmd="play", game_id=gid, iterations=2000, seed=1, progress=True)
    assert played["played"] == moves[0]["move"] and played["value"] == moves[0]["value"]
    assert played["effects"]["square"] == played["played"] and played["effects"]["flipped"]
    assert played["to_move"] == 1 and played["moves_played"] == [played["played"]]
    reply = client.ask(cmd="play", game_id=gid, level=1)
    assert reply["ok"] and reply["to_move"] == 0 and len(reply["moves_played"]) == 2
    assert 0 < reply["iterations"] <= 10  # level 1: 10 iterations or 0.05 s
    schuft = client.ask(cmd="new", game="schuft", options={"players": 2})["game_id"]
    assert client.ask(cmd="hint", game_id=schuft, level=1)["error"]["type"] == "BrettError"
    rolled = client.ask(cmd="play", game_id=schuft, seed=3)
    assert rolled["to_move"] == 0 and rolled["iterations"] == 0 and "value" not in rolled
    turn = client.ask(cmd="play", game_id=schuft, level=2, seed=3)
    assert turn["to_move"] == "chance" and turn["effects"]["player"] == 0
    ball = client.ask(cmd="new", game="phutball", options={"columns": 9, "rows": 9})
    assert client.ask(cmd="play", game_id=ball["game_id"], level=2)["to_move"] == 1
    over = client.ask(cmd="load", record=brett.dump(_finished_reversi()))
    assert over["outcome"]["summary"].startswith(("Black (x) wins", "White (o) wins", "Draw"))
    for command in ("play", "hint"):
        failed = client.ask(cmd=command, game_id=over["game_id"], level=1)["error"]
        assert failed["type"] == "BrettError" and "the game is over" in failed["message"]


def _finished_reversi() -> brett.Reversi:
    game = brett.Reversi(size=6)
    game.random_playout(seed=1)
    return game


def test_a_stop_before_the_search_begins_plays_nothing(hub: Hub) -> None:
    """A search that waits for a worker is answered Interrupted as soon as it is stopped."""
    small = Hub(Limits(workers=1, searches=4))
    try:
        session = small.open()
        gid = session.ask({"cmd": "new", "game": "reversi"})["game_id"]
        other = session.ask({"cmd": "new", "game": "reversi"})["game_id"]
        first = session.handle({"id": 1, "cmd": "perft", "game_id": gid, "depth": 100})
        waiting = session.handle({"id": 2, "cmd": "play", "game_id": other, "seconds": 30})
        assert session.ask({"cmd": "stop", "request": 2})["stopped"] == 1
        answer = waiting.result(PROMPT)  # type: ignore[union-attr]
        assert answer["error"] == {"type": "Interrupted", "message": "stopped by a stop request"}
        assert session.ask({"cmd": "state", "game_id": other})["ply"] == 0
        assert session.ask({"cmd": "stop"})["stopped"] == 1
        assert first.result(PROMPT)["error"]["type"] == "Interrupted"  # type: ignore[union-attr]
    finally:
        small.close()


def test_a_stop_right_after_the_request_is_never_lost(hub: Hub) -> None:
    """However soon the stop follows the search, the search ends at once: with
    nothing played if it had not begun, else with its best move so far."""
    session = hub.open()
    for attempt in range(20):
        gid = session.ask({"cmd": "new", "game": "reversi"})["game_id"]
        reply = session.handle({"id": attempt, "cmd": "play", "game_id": gid, "seconds": 60})
        if attempt % 2:
            time.sleep(0.001 * attempt)
        assert session.ask({"cmd": "stop", "request": attempt})["stopped"] == 1
        answer = reply.result(PROMPT)  # type: ignore[union-attr]
        assert answer["ok"] or answer["error"]["type"] == "Interrupted", answer
        assert not answer["ok"] or answer["interrupted"] is True
        session.ask({"cmd": "close", "game_id": gid})


def test_a_request_holding_its_session_is_stopped_on_time_through_a_sweep() -> None:
    """The ticker stops a quick request at its deadline even when its sweep for idle
    games (each second) comes while that request holds its session's lock."""
    hub = Hub(Limits())
    try:
        session = hub.open()
        with session.lock, session.within(2.0) as stopper:
            deadline = time.monotonic() + 2.0 + PROMPT
            while not stopper.stopped and time.monotonic() < deadline:
                time.sleep(0.05)
            assert stopper.stopped
    finally:
        hub.close()


def test_limits_of_a_session_and_of_the_server() -> None:
    small = Hub(Limits(games=3, searches=2, perft_seconds=0.5, sessions=2, evict_idle=3600))
    try:
        session = small.open()
        games = [session.ask({"cmd": "new", "game": "reversi"}) for _ in range(3)]
        full = session.ask({"cmd": "new", "game": "reversi"})
        assert full["error"]["type"] == "LimitExceeded" and "3 games" in full["error"]["message"]
        record = session.ask({"cmd": "save", "game_id": games[0]["game_id"]})["record"]
        assert session.ask({"cmd": "load", "record": record})["error"]["type"] == \
            "LimitExceeded"   # load counts as a new game
        gid = games[0]["game_id"]
        first = session.handle({"id": 1, "cmd": "perft", "game_id": gid, "depth": 100})
        session.handle({"id": 2, "cmd": "perft", "game_id": gid, "depth": 100})
        third = session.ask({"id": 3, "cmd": "hint", "game_id": gid, "iterations": 10})
        assert third["error"]["type"] == "LimitExceeded"
        timed = first.result(30)  # type: ignore[union-attr]
        assert timed["error"]["type"] == "Interrupted"
        assert "after 0.5 s: the server's limit" in timed["error"]["message"]
        small.open()
        with pytest.raises(LimitExceeded, match="2 sessions"):
            small.open()
    finally:
        small.close()


def test_idle_games_and_sessions_expire() -> None:
    events: list[dict[str, Any]] = []
    small = Hub(Limits(game_idle=0.5, session_idle=0.5))
    try:
        streaming = small.open(events=events.append)
        http = small.open()
        gid = streaming.ask({"cmd": "new", "game": "reversi"})["game_id"]
        kept = streaming.ask({"cmd": "new", "game": "reversi"})["game_id"]
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and (gid in streaming.games or
                                                small.get(http.token) is not None):
            streaming.ask({"cmd": "state", "game_id": kept})  # keeps one game alive
            time.sleep(0.1)
        assert gid not in streaming.games and kept in streaming.games
        assert {"event": "closed", "game_id": gid, "reason": "idle for 0.5 s"} in events
        assert small.get(http.token) is None  # a connectionless session ended
        assert small.get(streaming.token) is streaming  # a connected one lives on
        expired = streaming.ask({"cmd": "state", "game_id": gid})
        assert "expired when idle" in expired["error"]["message"]
    finally:
        small.close()


def test_sessions_do_not_see_each_other(hub: Hub) -> None:
    alice, bob = hub.open(), hub.open()
    gid = alice.ask({"cmd": "new", "game": "reversi"})["game_id"]
    hidden = alice.ask({"cmd": "new", "game": "focus"})["game_id"]
    for request in ({"cmd": "state", "game_id": gid}, {"cmd": "undo", "game_id": gid},
                    {"cmd": "close", "game_id": gid},
                    {"cmd": "move", "game_id": gid, "move": "d3"},
                    {"cmd": "play", "game_id": gid, "level": 1}):
        answer = bob.ask(request)
        assert answer["error"]["type"] == "ProtocolError"
        assert "unknown game_id" in answer["error"]["message"]
        assert hidden not in answer["error"]["message"]  # nobody else's ids are listed
    assert bob.ask({"cmd": "list"})["games"] == []
    assert bob.ask({"cmd": "stop"})["stopped"] == 0
    assert alice.ask({"cmd": "state", "game_id": gid})["ply"] == 0
    assert {g["game_id"] for g in alice.ask({"cmd": "list"})["games"]} == {gid, hidden}
    assert alice.token != bob.token and len(alice.token) >= 32


LINES = st.one_of(
    st.text(max_size=60),
    st.builds(json.dumps, st.dictionaries(
        st.sampled_from(["id", "cmd", "game", "game_id", "move", "options", "depth", "limit",
                         "roll", "seed", "record", "ply", "format", "prefix", "level"]),
        st.one_of(st.none(), st.booleans(), st.integers(-5, 20), st.text(max_size=12),
                  st.sampled_from(["new", "state", "legal", "move", "undo", "random_move",
                                   "close", "perft", "reversi", "schuft", "GID", "f5", "sgf",
                                   "list", "svg", "save", "load", "stop", "hint"]),
                  st.lists(st.text(max_size=3), max_size=2),
                  st.dictionaries(st.text(max_size=6), st.integers(0, 9), max_size=2)),
        max_size=6)))


@settings(max_examples=150, deadline=None)
@given(st.lists(LINES, max_size=12))
def test_random_and_malformed_requests(lines: list[str]) -> None:
    """Every request gets one valid answer; no exception escapes; a game is lost
    only by ``close``."""
    small = Hub(Limits(searches=1, workers=1))
    try:
        session = small.open()
        gid = session.ask({"cmd": "new", "game": "reversi"})["game_id"]
        for line in lines:
            line = line.replace("GID", gid).replace('"depth": 1', '"depth": 3')
            before = set(session.games)
            answer = session.ask(line, timeout=60)
            RESPONSE.validate(answer)
            closed = answer["ok"] and '"close"' in line
            assert before <= set(session.games) or closed
    finally:
        small.close()


def test_an_unexpected_exception_is_answered_and_the_server_lives_on(
        hub: Hub, monkeypatch: pytest.MonkeyPatch) -> None:
    session = hub.open()
    gid = session.ask({"cmd": "new", "game": "reversi"})["game_id"]

    def broken(session: Session, request: dict[str, Any]) -> dict[str, Any]:
        raise ValueError("a bug")

    monkeypatch.setitem(COMMANDS, "state", COMMANDS["state"].__class__(
        COMMANDS["state"].fields, broken))
    answer = session.ask({"id": 1, "cmd": "state", "game_id": gid})
    RESPONSE.validate(answer)
    assert answer["error"] == {"type": "InternalError",
                               "message": "ValueError: a bug (please report)"}
    assert session.ask({"cmd": "legal", "game_id": gid})["count"] == 4


@pytest.mark.parametrize(("game", "options", "fmt"), [
    ("reversi", {}, "sgf"), ("reversi", {}, "ggf"), ("reversi", {}, "txt"),
    ("reversi", {"size": 6}, "pos"), ("phutball", {"columns": 9, "rows": 9}, "sgf"),
    ("focus", {}, "sgf"), ("focus", {}, "pos"), ("schuft", {}, "json"), ("schuft", {}, "pos")])
def test_records_round_trip_through_save_and_load(hub: Hub, game: str, options: dict[str, Any],
                                                  fmt: str) -> None:
    session = hub.open()
    gid = session.ask({"cmd": "new", "game": game, "options": options})["game_id"]
    for seed in range(6):
        session.ask({"cmd": "random_move", "game_id": gid, "seed": seed})
    state = session.ask({"cmd": "state", "game_id": gid})
    saved = session.ask({"cmd": "save", "game_id": gid, "format": fmt})
    assert saved["format"] == fmt and isinstance(saved["record"], dict if fmt == "json" else str)
    guessed = fmt in ("json", "sgf", "ggf")   # the line formats are named, not guessed
    loaded = session.ask({"cmd": "load", "record": saved["record"],
                          **({} if guessed else {"format": fmt})})
    assert loaded["position"] == state["position"], loaded
    assert loaded["moves_played"] == state["moves_played"]


def test_formats_a_game_does_not_have_are_refused(hub: Hub) -> None:
    session = hub.open()
    gid = session.ask({"cmd": "new", "game": "schuft"})["game_id"]
    answer = session.ask({"cmd": "save", "game_id": gid, "format": "ggf"})
    assert answer["ok"] is False and answer["error"]["type"].endswith("Error")


def test_brett_play_json_announces_its_game_and_speaks_the_protocol() -> None:
    requests = [{"id": 2, "cmd": "move", "game_id": "GID", "move": "a1"},
                {"id": 3, "cmd": "quit"}]
    proc = subprocess.Popen([sys.executable, "-m", "brett", "play", "reversi", "--size", "6",
                             "--json"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    opened = json.loads(proc.stdout.readline())
    EVENT.validate(opened)
    assert opened["event"] == "opened" and opened["position"].endswith("x n=6")
    gid = opened["game_id"]
    proc.stdin.write(json.dumps({"id": 1, "cmd": "move", "game_id": gid, "move": "c2"}) + "\n")
    for request in requests:
        proc.stdin.write(json.dumps(request).replace("GID", gid) + "\n")
    proc.stdin.flush()
    out, err = proc.communicate(timeout=60)
    replies = [json.loads(line) for line in out.splitlines()]
    for reply in replies:
        RESPONSE.validate(reply)
    assert proc.returncode == 0 and err == ""
    assert replies[0]["played"] == "c2" and replies[0]["effects"]["flipped"] == ["c3"]
    assert replies[1]["error"]["type"] == "IllegalMoveError" and replies[2]["ok"]


def test_a_client_in_another_language_plays_a_game() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed")
    result = subprocess.run([node, str(ROOT / "examples" / "serve_client.mjs"),
                             sys.executable, "-m", "brett", "serve"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert " moves: " in result.stdout and "discs " in result.stdout
