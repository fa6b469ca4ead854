"""A mutation fuzzer over the engine protocol, as a client meets it: seeded
mutations (bytes flipped, inserted, deleted, repeated, spliced; values replaced
by hostile JSON; unknown fields) of valid requests for every command and game,
sent to ``brett serve`` on both cores (the plain twin through
BRETT_NO_EXTENSIONS=1).  Every line gets exactly one answer of the schema, no
answer is an InternalError, and the server ends cleanly."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conftest import BACKENDS

SCHEMA = json.loads((Path(__file__).parent.parent / "docs" / "protocol.schema.json").read_text())
MESSAGE = jsonschema.Draft202012Validator({"$ref": "#/$defs/response", "$defs": SCHEMA["$defs"]})
CASES = 2000

CORPUS: list[dict[str, Any]] = [
    {"cmd": "hello"}, {"cmd": "games"}, {"cmd": "list"},
    {"cmd": "new", "game": "reversi", "options": {"size": 6, "holes": ["a1"]}},
    {"cmd": "new", "game": "focus", "options": {"players": 3}},
    {"cmd": "new", "game": "phutball", "options": {"columns": 9, "rows": 9}},
    {"cmd": "new", "game": "schuft", "options": {"players": 2, "first_player": "roll"}},
    {"cmd": "state", "game_id": "G0", "ply": 0}, {"cmd": "legal", "game_id": "G1", "limit": 5},
    {"cmd": "legal", "game_id": "G2", "prefix": ["e5"]},
    {"cmd": "move", "game_id": "G0", "move": "d3"}, {"cmd": "move", "game_id": "G1",
                                                      "move": "c3-c4"},
    {"cmd": "undo", "game_id": "G0"}, {"cmd": "roll", "game_id": "G3", "roll": "5-8-2"},
    {"cmd": "random_move", "game_id": "G2", "seed": 1},
    {"cmd": "svg", "game_id": "G1", "options": {"size": 100, "highlight": ["c3"]}},
    {"cmd": "save", "game_id": "G0", "format": "sgf"}, {"cmd": "save", "game_id": "G2"},
    {"cmd": "load", "record": "(;GM[2]SZ[8];B[d3];W[c3])"},
    {"cmd": "load", "record": {"format": "brett-record", "version": 1, "game": "reversi",
                               "start": "--------/--------/--------/---ox---/---xo---/"
                                        "--------/--------/-------- x", "moves": ["d3"],
                               "result": None}},
    {"cmd": "perft", "game_id": "G0", "depth": 2}, {"cmd": "hint", "game_id": "G1",
                                                     "iterations": 50, "seed": 3},
    {"cmd": "play", "game_id": "G2", "iterations": 20, "seed": 1},
    {"cmd": "stop", "game_id": "G0"}, {"cmd": "stop", "request": 4}, {"cmd": "close",
                                                                     "game_id": "G3"},
]
HOSTILE: list[Any] = [None, True, -1, 0, 2**64, 1e308, -0.0, "", "x" * 300, "\u0000",
                      "\ud7ff\u202e", [], [[[[]]]], {}, {"a": {"b": []}}, "g" * 13, 10**30]


def _mutate(rng: random.Random, request: dict[str, Any], ids: list[str]) -> bytes:
    """One mutated request line (never containing a newline but its last byte):
    a string value changed character by character (so the move, position and record
    parsers behind the protocol see it), a value replaced by hostile JSON, a field
    added or dropped, or the line's bytes mutated."""
    request = _with_ids(request, ids)
    kind = rng.random()
    strings = [k for k, v in request.items() if isinstance(v, str) and k not in ("cmd", "game_id")]
    if kind < 0.4 and strings:
        key = rng.choice(strings)
        request[key] = _mutated(rng, request[key].encode()).decode("utf-8", "replace")
    elif kind < 0.6:
        request[rng.choice(sorted(request))] = rng.choice(HOSTILE)
    elif kind < 0.75:
        if rng.random() < 0.5 and len(request) > 1:
            del request[rng.choice(sorted(k for k in request if k != "cmd"))]
        else:
            request[rng.choice(["gameid", "x", "options", "depth", "ply"])] = rng.choice(HOSTILE)
    line = json.dumps(request, ensure_ascii=rng.random() < 0.5).encode()
    if kind >= 0.75:
        line = _mutated(rng, line)
    return line.replace(b"\n", b" ").replace(b"\r", b" ") + b"\n"


def _with_ids(request: dict[str, Any], ids: list[str]) -> dict[str, Any]:
    """The request with the corpus's G0..G3 replaced by the games opened."""
    return {k: ids[int(v[1])] if isinstance(v, str) and len(v) == 2 and v[0] == "G" else v
            for k, v in request.items()}


def _mutated(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(out) + 1)
        choice = rng.randrange(4)
        if choice == 0 and out:
            out[min(at, len(out) - 1)] ^= 1 << rng.randrange(8)
        elif choice == 1:
            out[at:at] = bytes([rng.randrange(256)])
        elif choice == 2:
            del out[at:at + rng.randint(1, 8)]
        else:
            out[at:at] = out[at:at + rng.randint(1, 40)] * rng.randint(1, 5)
    return bytes(out)


@pytest.mark.parametrize("backend", BACKENDS)
def test_mutated_requests_each_get_one_clean_answer(backend: str) -> None:
    env = {**os.environ, **({"BRETT_NO_EXTENSIONS": "1"} if backend == "python" else {})}
    proc = subprocess.Popen([sys.executable, "-m", "brett", "serve"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    rng = random.Random(20)
    ids: list[str] = []
    for request in CORPUS[3:7]:  # the games the corpus names G0..G3
        proc.stdin.write(json.dumps({"id": "setup", **request}).encode() + b"\n")
        proc.stdin.flush()
        ids.append(json.loads(proc.stdout.readline())["game_id"])
    lines = [_mutate(rng, rng.choice(CORPUS), ids) for _ in range(CASES)]
    out, err = proc.communicate(b"".join(lines), timeout=600)
    answers = [json.loads(line) for line in out.splitlines()]
    answers = [a for a in answers if "event" not in a]
    for answer in answers:
        MESSAGE.validate(answer)
        assert answer["ok"] or answer["error"]["type"] != "InternalError", answer
    assert len(answers) == CASES, f"{len(answers)} answers to {CASES} lines"
    assert proc.returncode == 0 and b"Traceback" not in err, err[-2000:]
