"""``brett nboard`` through pipes, with the commands in the order and form the
NBoard GUI sends them (weltyc/nboard's ParsedEngine: ``ping`` before every change
of the position, ``move F5/EVAL/TIME``, ``move PA``, GGF games as COsGame writes
them), and the answers read as NBoard reads them."""

from __future__ import annotations

import random
import re
import time
from typing import Any

import pytest

import brett
from brett.records.ggf import read_ggf
from peers import LineProcess, brett_command

START = "BO[8 ---------------------------O*------*O--------------------------- *]"
SEARCH = re.compile(r"search (?P<move>[A-H][1-8]|PA) (?P<eval>-?\d+\.\d\d) 0 (?P<depth>\S+) .*")
BEST = re.compile(r"=== (?P<move>[A-H][1-8]|PA)(/(?P<eval>-?\d+\.\d\d)/(?P<time>\d+\.\d\d))?")


class NBoard(LineProcess):
    """The GUI's side: every position change goes after a ping, and what the engine
    sent before the matching pong is stale (NBoard drops it)."""

    pings = 0

    def sync(self, command: str) -> list[str]:
        self.pings += 1
        self.send(f"ping {self.pings}")
        self.send(command)
        stale = []
        while (line := self.read_line()) != f"pong {self.pings}":
            stale.append(line)
        return stale

    def until(self, pattern: re.Pattern[str]) -> tuple[list[str], re.Match[str]]:
        """The lines up to one matching ``pattern``, and its match."""
        lines = []
        while True:
            line = self.read_line()
            match = pattern.fullmatch(line)
            if match:
                return lines, match
            lines.append(line)


@pytest.fixture
def nboard() -> Any:
    with NBoard(brett_command("nboard", "--seed", "3")) as engine:
        engine.send("nboard 1")
        assert engine.read_line() == "set myname brett"
        yield engine
        assert "Traceback" not in engine.stderr()


def ggf(moves: str = "", board: str = START) -> str:
    return (f"(;GM[Othello]PC[NBoard]DT[2026-01-02 10:11:12 GMT]PB[chris]PW[brett]RE[?]"
            f"TI[15:00]TY[8]{board}{moves};)")


def test_a_game_as_nboard_plays_it(nboard: NBoard) -> None:
    """NBoard's own sequence: depth, contempt, the game, hints for the user, the
    engine's moves by go (sent back with move), a human's moves and passes."""
    assert nboard.sync("set depth 4") == []
    assert nboard.sync("set contempt 0") == []
    assert nboard.sync(f"set game {ggf()}") == []
    game = brett.Reversi()
    rng = random.Random(5)
    while not game.is_over():
        nboard.send("hint 3")
        lines, _ = nboard.until(re.compile("status"))
        assert lines[0] == "status brett is thinking"
        hints = [SEARCH.fullmatch(line) for line in lines[1:]]
        assert all(hints) and 1 <= len(hints) <= 3
        legal = {str(m).upper().replace("PASS", "PA") for m in game.legal_moves}
        assert {h["move"] for h in hints if h} <= legal
        assert {h["depth"] for h in hints if h} == {"4"}   # one depth: NBoard keeps them together
        if game.turn == 1:   # the engine plays White: go, then NBoard sends the move back
            nboard.send("go")
            _, best = nboard.until(BEST)
            move = best["move"]
            assert move in legal
            assert move == "PA" or -64 <= float(best["eval"]) <= 64
            mli = move if move == "PA" else f"{move}/{best['eval']}/{best['time']}"
        else:                # the human: a random move, its time as NBoard adds it
            move = rng.choice(sorted(legal))
            mli = move if move == "PA" else f"{move}//1.5"
        game.push("pass" if move == "PA" else move.lower())
        nboard.sync(f"move {mli}")
    nboard.send("hint 2")                 # the game is over: nothing to suggest
    assert nboard.until(re.compile("status"))[0] == ["status brett is thinking"]
    nboard.send("learn")
    assert nboard.read_line() == "learned"
    nboard.send("quit")
    assert nboard.close() == 0


def test_set_game_takes_nboard_games_with_passes_and_set_up_boards(nboard: NBoard) -> None:
    moves = brett.Reversi().push_transcript(
        "e6d6c3f7c5e3f3b5f2d3b6f5g5f4d7h5g4c7b4e7f8a5d8g2g7h4h3e2f6g8h8a3d1e1a7g3c2h2b3c4"
        "d2b1c1a2b7e8f1c6b2a4c8b8a1g1a8h7h1g6h6")
    text = "".join(f"{'BW'[i % 2]}[{str(m).upper()}/{i % 5 - 2:.2f}/0.25]"
                   for i, m in enumerate(moves))
    nboard.sync("set depth 2")
    nboard.sync(f"set game {ggf(text + 'W[PASS]')}")   # as NBoard writes White's pass
    nboard.send("go")
    assert nboard.until(BEST)[1]["move"] == "A6"       # Black's only move
    nboard.sync("set game " + ggf(text))               # the pass left out
    nboard.send("hint 1")
    _, hint = nboard.until(SEARCH)
    assert hint["move"] == "PA"
    # A random start with White to move (NBoard's "8r" games)
    board = "BO[8 -------- -------- ---*---- ---OO*-- ---O*--- --O*-O-- -------- -------- O]"
    nboard.sync(f"set game {ggf('W[F5/5.00/0.005]B[G6]', board)}")
    nboard.send("go")
    move = nboard.until(BEST)[1]["move"]
    played = read_ggf(ggf("W[F5]B[G6]", board))[0].game()
    assert move.lower() in {str(m) for m in played.legal_moves}


def test_ping_stops_a_long_search_and_its_answer_comes_first(nboard: NBoard) -> None:
    nboard.sync("set depth 60")            # level 10: up to 15 s a move
    nboard.sync(f"set game {ggf()}")
    nboard.send("go")
    assert nboard.read_line() == "status brett is thinking"
    time.sleep(0.5)
    start = time.monotonic()
    stale = nboard.sync("move F5")        # the user moved while the engine thought
    assert time.monotonic() - start < 10.0
    assert BEST.fullmatch(stale[0]) and stale[1:] == ["status"]
    nboard.send("hint 1")
    _, hint = nboard.until(SEARCH)
    assert hint["move"] in ("D6", "F6", "F4")   # White's moves after f5


@pytest.mark.parametrize(("command", "error"), [
    ("move Z9", "status error: move: 'z9' is not a move"),
    ("move E6", "status error: move: illegal move 'e6'"),      # after f5: White to move
    ("move", "status error: move: which move?"),
    ("set game (;GM[Othello]BO[8 -- *];)", "status error: set: line 1"),
    ("set game nothing", "status error: set: "),
    ("set depth 0", "status error: set: the depth is 1 to 60, not 0"),
    ("set depth deep", "status error: set: the depth is a whole number, not 'deep'"),
    ("hint 0", "status error: hint: hint N needs N of 1 or more, not 0"),
    ("hint some", "status error: hint: the number of moves is a whole number, not 'some'"),
    ("x" * (2 << 20), "status error: a line too long was ignored"),
])
def test_bad_commands_are_reported_and_change_nothing(nboard: NBoard, command: str,
                                                      error: str) -> None:
    nboard.sync(f"set game {ggf('B[F5]')}")
    nboard.send(command)
    assert nboard.read_line().startswith(error)
    nboard.sync("set depth 2")
    nboard.send("go")                     # still White to move after f5
    assert nboard.until(BEST)[1]["move"] in ("D6", "F6", "F4")


def test_unknown_commands_are_ignored_as_the_protocol_asks(nboard: NBoard) -> None:
    nboard.send("frobnicate 3")
    nboard.send("set colour blue")
    nboard.send("")
    assert nboard.sync("set depth 3") == []        # nothing was answered to them
    assert "ignored 'frobnicate 3'" in nboard.stderr_with("ignored 'frobnicate 3'")


def test_a_bare_move_as_nboard_1_1_sent_it(nboard: NBoard) -> None:
    nboard.sync(f"set game {ggf()}")
    nboard.sync("F5")
    nboard.sync("set depth 2")
    nboard.send("go")
    assert nboard.until(BEST)[1]["move"] in ("D6", "F6", "F4")


def test_the_end_of_input_waits_for_the_search_and_quit_does_not() -> None:
    with NBoard(brett_command("nboard", "--seconds", "1")) as engine:
        for line in ("nboard 1", "set depth 5", f"set game {ggf()}", "go"):
            engine.send(line)
        assert engine.close() == 0
        out = engine.lines.queue
        assert any(BEST.fullmatch((line or b"").decode().strip()) for line in out)
    with NBoard(brett_command("nboard", "--seconds", "30")) as engine:
        for line in ("nboard 1", f"set game {ggf()}", "go"):
            engine.send(line)
        assert engine.read_line() == "set myname brett"
        assert engine.read_line() == "status brett is thinking"
        start = time.monotonic()
        engine.send("quit")
        assert engine.close() == 0
        assert time.monotonic() - start < 10.0
