"""``brett gtp`` as GTP controllers meet it: a subprocess spoken to through pipes,
with the commands Quarry sends, the conventions GRhino's gtp-rhino follows
(checked against gtp-rhino itself where it is installed), and hostile input."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

import brett
from brett.records.sgf import read_sgf
from peers import GtpClient, brett_command, peer

REQUIRED = ("protocol_version", "name", "version", "known_command", "list_commands", "quit",
            "boardsize", "clear_board", "komi", "play", "genmove")
EXTRAS = ("undo", "showboard", "final_score", "time_settings", "time_left", "reg_genmove",
          "loadsgf", "printsgf", "list_games", "set_game")
# Game seed 0 of brett's random playouts: after h6 White has no move, Black ends with a6.
PASS_GAME = brett.Reversi().push_transcript(
    "e6d6c3f7c5e3f3b5f2d3b6f5g5f4d7h5g4c7b4e7f8a5d8g2g7h4h3e2f6g8h8a3d1e1a7g3c2h2b3c4d2b1c1a2"
    "b7e8f1c6b2a4c8b8a1g1a8h7h1g6h6")


@pytest.fixture
def gtp() -> Any:
    with GtpClient(brett_command("gtp", "--level", "1", "--seed", "1")) as client:
        yield client
        assert "Traceback" not in client.stderr()


def board_of(showboard: str) -> dict[str, int]:
    """The discs of a ``showboard`` answer (brett's text board)."""
    rows = [line.split() for line in showboard.splitlines() if line[:3].strip().isdigit()]
    files = "abcdefghijklmnop"
    return {f"{files[c]}{r + 1}": "xo".index(cell) for r, row in enumerate(rows)
            for c, cell in enumerate(row[1:]) if cell in "xo"}


def colour(player: int) -> str:
    return ("black", "white")[player]


def test_the_handshake_quarry_sends_and_the_listed_commands(gtp: GtpClient) -> None:
    # Word for word what Quarry 0.2.0 sends before a Reversi game (its --gtp-log).
    assert gtp.ok("protocol_version") == "2"
    assert gtp.ok("name") == "brett"
    assert gtp.ok("version") == brett.__version__
    listed = gtp.ok("list_commands").splitlines()
    assert set(REQUIRED + EXTRAS) <= set(listed)
    assert gtp.ok("list_games") == "Othello"
    assert gtp.ok("set_game Othello") == ""
    assert gtp.ask("set_game Go") == (False, "unsupported game")
    assert gtp.ok("boardsize 8") == gtp.ok("clear_board") == ""
    for command in listed:
        assert gtp.ok(f"known_command {command}") == "true"
    assert gtp.ok("known_command frobnicate") == "false"
    assert gtp.ok("komi 0") == ""


def test_a_whole_game_refereed_by_brett_with_passes_left_out(gtp: GtpClient) -> None:
    """The engine plays both sides through genmove; the test referees every answer
    and, as Quarry does, never mentions a forced pass."""
    game = brett.Reversi()
    while not game.is_over():
        if next(iter(game.legal_moves)).is_pass:
            game.push("pass")            # Quarry leaves the pass out
            continue
        answer = gtp.ok(f"genmove {colour(game.turn)}")
        assert answer == answer.upper() and answer != "PASS"
        game.push(answer.lower())        # raises on an illegal move
    black, white = game.discs()
    expected = "0" if black == white else f"{'B' if black > white else 'W'}+{abs(black - white)}"
    assert gtp.ok("final_score") == expected
    assert board_of(gtp.ok("showboard")) == game.piece_map()
    assert gtp.ok("genmove black") == gtp.ok("genmove white") == "pass"   # over: nothing to do


def _pass_script() -> list[tuple[str, bool, str]]:
    """Commands as Quarry sends them around a forced pass, with GRhino's answers."""
    script = [("clear_board", True, "")]
    for ply, move in enumerate(PASS_GAME):
        script.append((f"play {colour(ply % 2)} {str(move).upper()}", True, ""))
    return [*script,
            ("genmove white", True, "pass"),        # White has no move
            ("play white D1", False, "illegal move"),
            ("play black A1", False, "illegal move"),   # occupied
            ("genmove black", True, "A6"),          # the only move, after White's pass
            ("final_score", True, "B+46"),
            ("genmove black", True, "pass")]        # the game is over


def test_forced_passes_as_quarry_and_gtp_rhino_have_them(gtp: GtpClient) -> None:
    for command, success, text in _pass_script():
        assert gtp.ask(command) == (success, text), command
    # genmove answered White's pass: undo takes back a6, then that pass
    assert gtp.ok("undo") == ""
    assert gtp.ok("reg_genmove black") == "A6"
    assert gtp.ok("undo") == ""
    assert gtp.ok("play white pass") == ""            # a controller may say it too
    assert gtp.ok("play black a6") == gtp.ok("undo") == gtp.ok("undo") == ""
    # a pass left out, played by the engine for the controller, goes with the move after it
    assert gtp.ok("play black a6") == ""
    assert gtp.ok("final_score") == "B+46"
    assert gtp.ok("undo") == ""
    assert "o to move" in gtp.ok("showboard")
    assert gtp.ok("reg_genmove white") == "pass"


def test_gtp_rhino_answers_the_same_script() -> None:
    """The conventions are GRhino's own: gtp-rhino answers the script alike."""
    with GtpClient([peer("gtp-rhino"), "--level", "1"]) as rhino:
        for command, success, text in _pass_script():
            assert rhino.ask(command) == (success, text), command
        assert rhino.ok("name") == "GTP GRhino"


@pytest.mark.parametrize(("line", "answer"), [
    (b"play black z9", "? illegal move"),
    (b"play black d4", "? illegal move"),         # occupied
    (b"play white d3", "? illegal move"),         # Black is to move and can
    (b"play purple d3", "? 'purple' is not a colour: expected black, white, b or w"),
    (b"play black", "? syntax error: play COLOUR VERTEX"),
    (b"genmove", "? syntax error: genmove COLOUR"),
    (b"boardsize 7", "? unacceptable size"),
    (b"boardsize 18", "? unacceptable size"),
    (b"boardsize 99999999999999999999999", "? syntax error: the size '99999999999999999999'"
                                           "... is out of range"),
    (b"boardsize -8", "? syntax error: the size is a whole number, not '-8'"),
    (b"komi nan", "? syntax error: komi 'nan' is out of range"),
    (b"time_left black -1 0", "? syntax error: the time '-1' is out of range"),
    (b"time_settings 1 2", "? syntax error: time_settings MAIN_TIME BYO_YOMI_TIME"),
    (b"frobnicate", "? unknown command"),
    (b"12 frobnicate", "?12 unknown command"),
    (b"12", "?12 syntax error: a command must follow the id"),
    (b"\x00na\x01me", "= brett"),                 # control characters are dropped
    (b"name # a comment", "= brett"),
    (b"\tname\t", "= brett"),
    (b"7 name", "=7 brett"),
    (b"\xff\xfename", "? unknown command"),       # not UTF-8
    (b"final_score", "? cannot score"),
    (b"undo", "? cannot undo"),
    (b"loadsgf /nonexistent/game.sgf", "? cannot load file: "),
    (b"x" * (2 << 20), "? line too long"),
])
def test_bad_input_is_answered_and_the_engine_goes_on(gtp: GtpClient, line: bytes,
                                                      answer: str) -> None:
    gtp.send(line)
    lines = [gtp.read_line()]
    while lines[-1]:
        lines.append(gtp.read_line())
    assert "\n".join(lines[:-1]).startswith(answer)
    assert gtp.ok("name") == "brett"     # and the next command is answered as usual


def test_blank_lines_get_no_answer(gtp: GtpClient) -> None:
    gtp.send("")
    gtp.send("   # only a comment")
    assert gtp.ask("7 version") == (True, f"=7 {brett.__version__}")


def test_the_search_uses_the_time_it_is_given() -> None:
    """Without --level the clock decides: 4 s of byo-yomi a move is used (a good part
    of it: ReversiPlayer starts no new iteration after 45% of its 3.55 s share, and
    never goes past it), one second of main time for a whole game is not; --level caps
    the time."""
    with GtpClient(brett_command("gtp")) as gtp:
        gtp.ok("time_settings 0 4 1")
        gtp.ok("time_left black 4 1")
        start = time.monotonic()
        gtp.ok("genmove black")
        assert 1.5 <= time.monotonic() - start < 4.0
        gtp.ok("time_settings 1 0 0")     # one second for the whole game
        gtp.ok("time_left white 1 0")
        start = time.monotonic()
        gtp.ok("genmove white")
        assert time.monotonic() - start < 2.0
    with GtpClient(brett_command("gtp", "--level", "2")) as gtp:
        gtp.ok("time_settings 0 4 1")
        start = time.monotonic()
        gtp.ok("genmove black")
        assert time.monotonic() - start < 2.0


def test_loadsgf_and_printsgf(gtp: GtpClient, tmp_path: Path) -> None:
    for move in ("f5", "d6", "c3", "d3", "c4"):
        gtp.ok(f"play {'black' if move in ('f5', 'c3', 'c4') else 'white'} {move}")
    board = gtp.ok("showboard")
    text = gtp.ok("printsgf")
    [record] = read_sgf(text)
    assert [str(m) for m in record.moves] == ["f5", "d6", "c3", "d3", "c4"]
    path = tmp_path / "game.sgf"
    assert gtp.ok(f"printsgf {path}") == ""
    assert read_sgf(path.read_text()) == [record]
    gtp.ok("clear_board")
    assert gtp.ok(f"loadsgf {path}") == ""
    assert gtp.ok("showboard") == board
    assert gtp.ok(f"loadsgf {path} 3") == ""       # the position before move 3
    assert board_of(gtp.ok("showboard")) == record.game(record.root.mainline()[1]).piece_map()
    focus = tmp_path / "focus.sgf"
    focus.write_text("(;FF[4]GM[36];MV[c3-c4])")
    assert gtp.ask(f"loadsgf {focus}")[1].startswith("cannot load file")
    assert gtp.ask(f"printsgf {tmp_path / 'missing' / 'x.sgf'}")[1].startswith("cannot write")
    empty = tmp_path / "empty.sgf"
    empty.write_text("")
    assert gtp.ask(f"loadsgf {empty}")[1] == "cannot load file: the file holds no game"


@pytest.mark.parametrize("main", [1e300, 1e12, 86400.0])
def test_a_huge_clock_still_gives_a_move_in_bounded_time(main: float) -> None:
    """``time_settings 1e300 0 0``: a move's share is capped (it was 1e298 s)."""
    from brett.frontends.gtp import MAX_MOVE_SECONDS, Clock

    clock = Clock()
    clock.settings(main, 0.0, 0)
    share = clock.share(brett.Reversi(), 0)
    assert share is not None and 0 < share <= MAX_MOVE_SECONDS <= 600
    clock.left[1] = (main, 0)
    share = clock.share(brett.Reversi(), 1)
    assert share is not None and share <= MAX_MOVE_SECONDS


def test_reversi_options_reach_the_engine(tmp_path: Path) -> None:
    with GtpClient(brett_command("gtp", "--level", "1", "--size", "6", "--holes",
                                 "a6,f1")) as gtp:
        board = gtp.ok("showboard")
        assert board.splitlines()[0].split() == list("abcdef")
        assert "#" in board
        assert gtp.ask("play black a6") == (False, "illegal move")
        path = tmp_path / "holes.sgf"
        gtp.ok("play black c2")
        gtp.ok(f"printsgf {path}")
        assert "BP[" in path.read_text()      # the holes travel in brett's own property
        gtp.ok("clear_board")
        gtp.ok(f"loadsgf {path}")
        assert board_of(gtp.ok("showboard"))["c2"] == 0
        gtp.ok("boardsize 10")
        vertex = gtp.ok("genmove black")
        assert vertex[0] in "ABCDEFGHIJ" and 1 <= int(vertex[1:]) <= 10
    with GtpClient(brett_command("gtp", "--board", "octagon")) as gtp:
        assert gtp.ask("boardsize 8") == (False, "unacceptable size")
        assert gtp.ok("boardsize 10") == ""


def test_reg_genmove_leaves_the_board(gtp: GtpClient) -> None:
    before = gtp.ok("showboard")
    assert gtp.ok("reg_genmove black") in ("D3", "C4", "F5", "E6")
    assert gtp.ok("showboard") == before
    assert gtp.ok("reg_genmove white") == "pass"   # not White's turn: no move now


def test_quit_and_the_end_of_input_end_the_engine() -> None:
    with GtpClient(brett_command("gtp")) as gtp:
        assert gtp.ask("quit") == (True, "")
        assert gtp.close() == 0
    with GtpClient(brett_command("gtp")) as gtp:
        gtp.ok("name")
        assert gtp.close() == 0
        assert gtp.stderr().startswith("brett gtp: Reversi 8x8")


def test_bad_options_are_one_line_errors() -> None:
    with GtpClient(brett_command("gtp", "--level", "11")) as gtp:
        assert gtp.close() == 2
        assert gtp.stderr().strip() == "brett: error: --level 11: a whole number from 1 to 10"
    with GtpClient(brett_command("gtp", "--holes", "z9")) as gtp:
        assert gtp.close() == 2
        assert gtp.stderr().startswith("brett: error: ")
