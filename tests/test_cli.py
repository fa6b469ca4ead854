"""The ``brett`` command as its users meet it: a subprocess, its output read
through pipes (and a pseudo-terminal for the progress line)."""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import brett

PERFT = {  # a game's CLI options and a depth with its count
    "reversi": ([], 3, 56),
    "focus": (["--players", "3"], 2, 240),
    "phutball": (["--columns", "9", "--rows", "9"], 2, 6328),
    "schuft": (["--players", "2", "--moves", "5-8-2"], 1, None),
}


def brett_cli(*args: str, stdin: str = "", timeout: float = 120,
              env: Any = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "brett", *args], input=stdin,
                          capture_output=True, text=True, timeout=timeout, env=env)


def test_version_and_help() -> None:
    result = brett_cli("--version")
    assert result.returncode == 0 and result.stdout.strip() == f"brett {brett.__version__}"
    for command, option in (("perft", "--depth"), ("bench", "--games"), ("play", "--seats")):
        for args in ((command, "--help"), (command, "reversi", "--help")):
            result = brett_cli(*args)
            assert result.returncode == 0 and option in result.stdout, args
    text = brett_cli("perft", "--help").stdout
    assert "count move sequences of exactly N moves" in text
    assert "reversi" in text and "schuft" in text
    assert "--size" in brett_cli("perft", "reversi", "--help").stdout


@pytest.mark.parametrize("name", list(PERFT))
def test_perft_every_game(name: str) -> None:
    options, depth, nodes = PERFT[name]
    if nodes is None:
        game = brett.Schuft(players=2)
        game.push("5-8-2")
        nodes = game.perft(depth)
    result = brett_cli("perft", name, "--depth", str(depth), *options)
    assert result.returncode == 0 and result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[0] == f"perft({depth}) = {nodes}"
    assert "s wall" in lines[1] and "s CPU" in lines[1] and "nodes/s" in lines[1]
    divided = brett_cli("perft", name, "--depth", str(depth), "--divide", *options).stdout
    counts = [int(line.split()[-1]) for line in divided.splitlines()[:-2]]
    assert sum(counts) == nodes and f"perft({depth}) = {nodes}" in divided


def test_options_before_or_after_the_game() -> None:
    before = brett_cli("perft", "--depth", "4", "--backend", "python", "reversi")
    after = brett_cli("perft", "reversi", "--depth", "4", "--backend", "python")
    for result in (before, after):
        assert result.returncode == 0 and "perft(4) = 244" in result.stdout
        assert "python core" in result.stdout


@pytest.mark.parametrize(("args", "message"), [
    (["perft", "reversi", "--depth", "-1"], "depth=-1"),
    (["perft", "reversi", "--depth", "101"], "0 to 100"),
    (["perft", "reversi"], "--depth"),
    (["perft", "reversi", "--depth", "2", "--size", "7"], "size=7"),
    (["perft", "focus", "--depth", "1", "--moves", "a1-a2"], "'a2'"),
    (["perft", "phutball", "--depth", "1", "--position", "nonsense 0"], "nonsense"),
    (["bench", "schuft", "--games", "-5"], "n=-5"),
    (["play", "reversi", "--seats", "human,robot"], "--seats: 'robot' is not a seat"),
    (["play", "reversi", "--seats", "robot"], "each seat is human, random, mcts"),
    (["play", "reversi", "--seats", "human,mcts:abc"], "--seats: 'mcts:abc': the seconds"),
    (["play", "reversi", "--seats", "mcts:-1"], "a number above 0"),
    (["play", "reversi", "--seats", "mcts:0"], "a number above 0"),
    (["play", "reversi", "--seats", "mcts:inf"], "a number above 0"),
    (["play", "reversi", "--seats", "level:11"], "--seats: 'level:11': the level"),
    (["play", "reversi", "--seats", "level:0"], "from 1 to 10"),
    (["play", "reversi", "--seats", "level:two"], "from 1 to 10"),
    (["play", "reversi", "--seats", "human,"], "'' is not a seat"),
    # the game's own options, read by its from_cli: never a traceback
    (["perft", "reversi", "--depth", "1", "--holes", "²"], "hole '²'"),
    (["perft", "schuft", "--depth", "1", "--first-player", "²"], "first_player='²'"),
    (["perft", "reversi", "--depth", "1", "--workers", "0"], "--workers"),
    (["perft", "reversi", "--depth", "1", "--checkpoint", "/dev/null/run.jsonl"],
     "--checkpoint /dev/null/run.jsonl"),
    (["perft", "reversi", "--depth", "1", "--checkpoint", ""], "--checkpoint needs a file"),
    (["perft", "reversi", "--depth", "1", "--scheduler", " "], "--scheduler needs the"),
])
def test_errors_are_one_line_on_stderr(args: list[str], message: str) -> None:
    result = brett_cli(*args)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("brett: error: ") and message in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.splitlines()) == 1


@pytest.mark.parametrize("name", list(PERFT))
def test_bench_every_game(name: str) -> None:
    options = [o for o in PERFT[name][0] if o not in ("--moves", "5-8-2")]
    result = brett_cli("bench", name, "--games", "20", "--seed", "3", "--max-plies", "50",
                       *options)
    assert result.returncode == 0 and result.stderr == ""
    first, second = result.stdout.splitlines()
    assert first.startswith("20 random games") and "s CPU" in first and "games/s" in first
    # A game's own --max-plies (its ply cap: a draw) also cuts the playouts.
    kwargs = {"focus": {"players": 3}, "phutball": {"columns": 9, "rows": 9},
              "schuft": {"players": 2}}.get(name, {})
    if name != "reversi":
        kwargs["max_plies"] = 50
    stats = brett.GAMES[name](**kwargs).random_playouts(20, seed=3, max_plies=50)
    assert second == (f"wins per player {list(stats.wins)}, draws {stats.draws}, "
                      f"unfinished {stats.unfinished}")


@pytest.mark.parametrize("name", list(PERFT))
def test_play_computer_against_computer_to_the_end(name: str) -> None:
    options = {"phutball": ["--columns", "7", "--rows", "7"],
               "schuft": ["--max-plies", "30"]}.get(name, [])
    result = brett_cli("play", name, "--seats", "random,random", "--seed", "2", *options)
    assert result.returncode == 0 and result.stderr == ""
    assert RESULT.match(result.stdout.rstrip().splitlines()[-1])


RESULT = re.compile(r"^Result: (Draw|.+ wins?)( [\d–]+)? \(.+\)$")
"""The last line of a game: who won, the score where there is one, and why."""
PLAYS = re.compile(r"^(Black \(x\)|White \(o\)) plays ([a-h][1-8]|pass) "
                   r"\(([\d,]+) iterations, value (0\.\d\d|1\.00)\)$")


def test_play_against_the_tree_search_to_the_end() -> None:
    result = brett_cli("play", "reversi", "--seats", "mcts:0.02,random", "--seed", "1")
    assert result.returncode == 0 and result.stderr == ""
    lines = result.stdout.splitlines()
    searched = [PLAYS.match(line) for line in lines if line.startswith("Black (x) plays")]
    assert len(searched) >= 20 and all(searched)
    assert all(int(m.group(3).replace(",", "")) > 0 for m in searched if m)
    assert "White (o) plays" in result.stdout and "iterations" not in \
        "".join(line for line in lines if line.startswith("White"))
    assert RESULT.match(lines[-1])


@pytest.mark.parametrize("name", list(PERFT))
def test_play_levels_against_each_other_in_every_game(name: str) -> None:
    options = {"focus": ["--players", "3"], "phutball": ["--columns", "7", "--rows", "7"],
               "schuft": ["--max-plies", "30"]}.get(name, [])
    args = ("play", name, "--seats", "level:1,level:2", "--seed", "4", *options)
    result = brett_cli(*args)
    assert result.returncode == 0 and result.stderr == ""
    assert RESULT.match(result.stdout.rstrip().splitlines()[-1])
    counts = re.findall(r" plays .* \((\d+) iterations, value [01]\.\d\d\)$", result.stdout,
                        re.MULTILINE)
    assert counts
    if set(counts) == {"10", "30"}:  # every search ran to its iterations, none out of time
        assert brett_cli(*args).stdout == result.stdout  # so the seeded game is the same


def test_play_against_a_level_through_a_pipe() -> None:
    """A person (through a pipe) against level 1: its replies are reproducible with
    --seed; ``hint`` lists the search's best moves."""
    args = ("play", "reversi", "--seats", "human,level:1", "--seed", "5")
    first = brett_cli(*args, stdin="d3\nquit\n")
    reply = PLAYS.match(next(line for line in first.stdout.splitlines()
                             if line.startswith("White")))
    assert first.returncode == 0 and first.stderr == "" and reply
    game = brett.Reversi()
    game.push("d3")
    game.push(reply.group(2))
    script = f"d3\n{next(iter(game.legal_moves))}\nquit\n"
    result = brett_cli(*args, stdin=script)
    assert result.returncode == 0 and result.stderr == ""
    replies = [line for line in result.stdout.splitlines() if line.startswith("White")]
    assert len(replies) == 2 and all(PLAYS.match(line) for line in replies)
    if all("(10 iterations" in line for line in [*replies, reply.group(0)]):
        # level 1 ran to its 10 iterations (not out of its 0.05 s): --seed seeds it
        assert replies[0] == reply.group(0)
        assert brett_cli(*args, stdin=script).stdout == result.stdout
    hinted = brett_cli(*args, stdin="hint 0.2\nhint x\nquit\n")
    assert hinted.returncode == 0
    hint = next(line for line in hinted.stdout.splitlines() if line.startswith("hint: "))
    moves = re.findall(r"([a-h][1-8]) \(([\d,]+) visits?, value ([01]\.\d\d)\)", hint)
    assert len(moves) == 3 and {m[0] for m in moves} <= {"d3", "c4", "f5", "e6"}
    assert hint.endswith(" iterations)")
    assert "hint SECONDS: a number above 0" in hinted.stderr
    assert "hint, undo, quit" in hinted.stdout


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child is POSIX")
def test_ctrl_c_during_a_search_quits() -> None:
    import signal

    proc = subprocess.Popen([sys.executable, "-m", "brett", "play", "reversi", "--seats",
                             "mcts:60,human"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip()  # the board: the search has begun
    time.sleep(1.0)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and err == "brett: interrupted\n"
    assert time.monotonic() - sent < 5 and "plays" not in out


def test_play_through_a_pipe() -> None:
    """A program can drive ``brett play``: every prompt is a whole line, answers
    are read line by line, complaints go to stderr, ``undo`` takes back the
    human's move and the computer's reply."""
    script = "?\na1\nzz\nf5\nundo\nd3\nquit\n"
    result = brett_cli("play", "reversi", "--seats", "human,random", "--seed", "1",
                       stdin=script)
    assert result.returncode == 0
    out, err = result.stdout, result.stderr
    prompts = [line for line in out.splitlines() if "to move (a move, ?" in line]
    assert prompts and all(p.startswith("Black (x) to move") for p in prompts)
    assert len(prompts) == 7  # ?, a1, zz, f5, undo, d3, quit: one prompt each
    assert "d3 c4 f5 e6" in out                     # the answer to '?'
    assert "illegal move 'a1'" in err and "'zz' is not a move" in err
    assert "illegal" not in out and "is not a move" not in out
    assert out.count("White (o) plays") == 2        # a reply to f5 and to d3
    start = str(brett.Reversi())
    after_undo = out.split("White (o) plays")[1]
    assert start in after_undo                      # undo went back to the start


def test_play_schuft_undo_goes_back_to_the_human(tmp_path: Any) -> None:
    script = "?\nundo\nquit\n"
    result = brett_cli("play", "schuft", "--seats", "human,random", "--seed", "4",
                       stdin=script)
    assert result.returncode == 0 and "nothing to undo" in result.stderr
    moves_shown = [line for line in result.stdout.splitlines()
                   if line.startswith(("cw ", "ccw ", "pass"))]
    assert moves_shown and "Red (r) to move" in result.stdout


def test_play_ends_cleanly_at_end_of_input() -> None:
    result = brett_cli("play", "focus", stdin="")
    assert result.returncode == 0 and result.stderr == ""


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def _stderr_on_a_terminal(args: list[str]) -> tuple[bytes, subprocess.Popen[str]]:
    """Run ``args`` with stderr on a pseudo-terminal; what it wrote there."""
    import pty

    primary, secondary = pty.openpty()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=secondary, text=True)
    os.close(secondary)
    seen = b""
    start = time.monotonic()
    while time.monotonic() - start < 300:
        try:
            chunk = os.read(primary, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    proc.wait(timeout=300)
    os.close(primary)
    return seen, proc


def test_progress_shows_on_a_terminal_only() -> None:
    """A run over a second shows progress on stderr when stderr is a terminal,
    and nothing when it is a pipe."""
    args = [sys.executable, "-m", "brett", "perft", "reversi", "--depth", "8",
            "--backend", "python"]
    piped = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert piped.returncode == 0 and piped.stderr == ""
    seen, proc = _stderr_on_a_terminal(args)
    assert proc.returncode == 0
    assert b"first moves done" in seen and b"nodes" in seen
    assert "perft(8) = 390216" in proc.stdout.read()  # type: ignore[union-attr]


def test_schuft_options_and_dice() -> None:
    result = brett_cli("perft", "schuft", "--depth", "1", "--players", "4")
    assert result.stdout.startswith("perft(1) = 165750\n")
    # r rolled 26, g 4, b 15 in the roll-off: r starts and rolls again
    result = brett_cli("perft", "schuft", "--depth", "1", "--players", "3", "--first-player",
                       "roll", "--moves", "9-9-8 1-1-2 5-8-2")
    assert result.stdout.startswith("perft(1) = 156574\n")
    result = brett_cli("bench", "schuft", "--games", "3", "--players", "4", "--max-plies", "20")
    # --max-plies is also the game's own cap here: the games end as draws
    assert "3 random games" in result.stdout and "draws 3" in result.stdout
    result = brett_cli("play", "schuft", "--seats", "random", "--players", "3",
                       "--max-plies", "6", "--seed", "2")
    assert result.returncode == 0 and "game over" in result.stdout and "goal b" in result.stdout
    assert result.stdout.count("chance: ") == 6  # one roll before each of the 6 turns


def test_a_closed_pipe_ends_quietly() -> None:
    """``brett play ... | head -3``: no traceback when the reader goes away."""
    proc = subprocess.Popen([sys.executable, "-m", "brett", "play", "schuft", "--seats",
                             "random", "--players", "4"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()  # the reader goes away while the game is still being printed
    error = proc.stderr.read()
    assert proc.wait(timeout=60) == 141 and error == b""


# ------------------------------------------------------------------ record files
def _archive(folder: Path, games: int) -> list[Any]:
    from brett.records import Record
    from brett.records.wthor import write_wthor

    records = []
    for seed in range(games):
        game = brett.Reversi()
        game.random_playout(seed=seed, max_plies=None if seed % 4 else 20)
        records.append(Record.from_game(game, Black=f"ann {seed % 3}", White="bob",
                                        Event="open", Date="2026"))
    write_wthor(records, folder / "WTH_2026.wtb", folder / "WTHOR.JOU", folder / "WTHOR.TRN")
    return records


def test_convert_between_every_format(tmp_path: Path) -> None:
    from brett.records import read as read_records

    records = _archive(tmp_path, 12)
    chain = ["WTH_2026.wtb", "a.ggf", "b.json", "c.sgf", "d.json", "e.wtb"]
    for source, target in itertools.pairwise(chain):
        result = brett_cli("convert", str(tmp_path / source), str(tmp_path / target))
        assert result.returncode == 0 and result.stderr == ""
        assert result.stdout == f"12 games written to {tmp_path / target}\n"
    final = read_records(tmp_path / "e.wtb")  # its own e.JOU / e.TRN beside it
    assert [r.game() for r in final] == [r.game() for r in records]
    assert [r.headers["Black"] for r in final] == [r.headers["Black"] for r in records]
    assert (tmp_path / "e.JOU").exists() and (tmp_path / "WTHOR.JOU").read_bytes()
    forced = brett_cli("convert", str(tmp_path / "b.json"), str(tmp_path / "f.txt"),
                       "--to", "ggf")
    assert forced.returncode == 0 and (tmp_path / "f.txt").read_text().startswith("(;GM[")


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links need privileges there")
def test_convert_replaces_a_file_whole(tmp_path: Path) -> None:
    """The output is written under a temporary name and renamed over the old file:
    its permissions stay, a symbolic link stays a link, no temporary file is left."""
    _archive(tmp_path, 3)
    real, link = tmp_path / "real.sgf", tmp_path / "link.sgf"
    real.write_text("old")
    real.chmod(0o640)
    link.symlink_to(real.name)
    before = sorted(tmp_path.iterdir())
    result = brett_cli("convert", str(tmp_path / "WTH_2026.wtb"), str(link))
    assert result.returncode == 0 and result.stderr == ""
    assert link.is_symlink() and real.read_text().startswith("(;")
    assert real.stat().st_mode & 0o777 == 0o640 and sorted(tmp_path.iterdir()) == before


def test_stats_and_replay(tmp_path: Path) -> None:
    _archive(tmp_path, 8)
    archive = str(tmp_path / "WTH_2026.wtb")
    (tmp_path / "one.json").write_text(brett.dump(brett.Reversi(size=6)))
    stats = brett_cli("stats", archive, archive)
    lines = stats.stdout.splitlines()
    assert stats.returncode == 0 and lines[0] == "2 files, 16 games"
    assert lines[1].startswith("reversi: 16 games, average length ")
    single = brett_cli("stats", str(tmp_path / "one.json"))
    assert single.stdout.splitlines()[:2] == ["1 file, 1 game", single.stdout.splitlines()[1]]
    assert single.stdout.splitlines()[1].startswith("reversi: 1 game, ")
    assert "unfinished 4" in lines[1] and "wins: Black (x)" in lines[1]
    replay = brett_cli("replay", archive, "--game", "2")
    text = replay.stdout
    assert text.startswith("game 2: reversi, ann 1 vs bob, ") and "\n1. " in text
    assert text.count("to move") + text.count("game over") >= 20
    svg = brett_cli("replay", archive, "--game", "1", "--svg", str(tmp_path / "svg"))
    pictures = sorted((tmp_path / "svg").iterdir())
    assert svg.returncode == 0 and len(pictures) == 21  # the start and 20 moves
    assert pictures[0].read_text().startswith("<svg")


@pytest.mark.parametrize(("args", "message"), [
    (["convert", "missing.json", "out.json"], "cannot read"),
    (["convert", "in.doc", "out.json"], "unknown record format 'doc'"),
    (["convert", "in.txt", "out.json"], r"in.txt: line 1: column 1: 'x' is not a square"),
    (["replay", "in.json", "--game", "3"], "the file holds 1 game"),
    (["stats", "bad.ggf"], "bad.ggf: line 1, column 1"),
    (["replay", "in.json", "--svg", "in.txt"], "--svg in.txt: a file, not a folder"),
    (["replay", "in.json", "--svg", ""], "--svg needs a folder"),
    (["replay", "in.json", "--svg", "in.txt/pictures"], r"--svg in.txt.pictures: cannot make"),
    (["convert", "in.json", "in.txt/out.json"], r"cannot write in.txt.out.json: "),
])
def test_record_command_errors(tmp_path: Path, args: list[str], message: str) -> None:
    (tmp_path / "in.txt").write_text("x")
    (tmp_path / "in.doc").write_text("x")
    (tmp_path / "in.json").write_text(brett.dump(brett.Reversi()))
    (tmp_path / "bad.ggf").write_text("nonsense")
    result = subprocess.run([sys.executable, "-m", "brett", *args], capture_output=True,
                            text=True, timeout=120, cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("brett: error: ") and re.search(message, result.stderr)


def test_stats_shows_progress_on_a_terminal(tmp_path: Path) -> None:
    from brett.records.wthor import write_wthor

    records = _archive(tmp_path, 10)
    write_wthor(records * 3000, tmp_path / "WTH_2026.wtb")  # seconds to replay
    seen, proc = _stderr_on_a_terminal([sys.executable, "-m", "brett", "stats",
                                        str(tmp_path / "WTH_2026.wtb")])
    assert proc.returncode == 0 and b"games replayed" in seen


def _task_lines(checkpoint: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in checkpoint.read_text().splitlines()[1:]]


def test_perft_over_workers_with_a_checkpoint_resumes(tmp_path: Path) -> None:
    checkpoint = tmp_path / "run.jsonl"
    args = ["perft", "focus", "--depth", "4", "--checkpoint", str(checkpoint)]
    first = brett_cli(*args, "--workers", "2")
    assert first.returncode == 0 and first.stdout.startswith("perft(4) = 19521582\n")
    lines = checkpoint.read_text().splitlines()
    header = json.loads(lines[0])
    assert header["depth"] == 4 and header["tasks"] == len(lines) - 1 >= 64
    assert sorted(t["task"] for t in _task_lines(checkpoint)) == list(range(header["tasks"]))
    # an interrupted run: half the subtrees done; it resumes with other --workers
    for workers in ("1", "9"):  # 9 workers alone would ask for a finer split
        checkpoint.write_text("\n".join(lines[:len(lines) // 2]) + "\n")
        resumed = brett_cli(*args, "--workers", workers)
        assert resumed.returncode == 0 and resumed.stderr == ""
        assert resumed.stdout.startswith("perft(4) = 19521582\n")
        assert sorted(checkpoint.read_text().splitlines()) == sorted(lines)
    other = brett_cli("perft", "focus", "--depth", "3", "--checkpoint", str(checkpoint))
    assert other.returncode == 2 and "belongs to another run" in other.stderr
    mixed = brett_cli("perft", "reversi", "--depth", "3", "--workers", "2", "--divide")
    assert mixed.returncode == 2 and "--divide" in mixed.stderr


def _edit_count(line: str, count: int) -> str:
    fields = json.loads(line)
    fields["count"] = count
    return json.dumps(fields)


@pytest.mark.parametrize(("edit", "message"), [
    (lambda line: _edit_count(line, json.loads(line)["count"] + 1000),
     "line 3 does not match its checksum"),
    (lambda line: _edit_count(line, -245424118), "line 3 does not match its checksum"),
    (lambda line: line.replace('"crc"', '"cr"'), "line 3 is not a checkpoint line"),
    (lambda line: "{" + line, "line 3 is not a checkpoint line"),
], ids=["a count changed", "a negative count", "no checksum", "not JSON"])
def test_an_edited_checkpoint_is_refused(tmp_path: Path, edit: Any, message: str) -> None:
    """A checkpoint line is used only as written: a count changed by hand (or by
    a damaged disk) would give a wrong total, so the run refuses it and says why."""
    checkpoint = tmp_path / "run.jsonl"
    args = ["perft", "focus", "--depth", "3", "--checkpoint", str(checkpoint)]
    assert brett_cli(*args).stdout.startswith("perft(3) = 299912\n")
    lines = checkpoint.read_text().splitlines()
    lines[2] = edit(lines[2])
    checkpoint.write_text("\n".join(lines) + "\n")
    result = brett_cli(*args)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith(f"brett: error: --checkpoint {checkpoint}: {message}")
    assert "must not be edited" in result.stderr and "Traceback" not in result.stderr


def test_a_cut_short_checkpoint_line_is_dropped(tmp_path: Path) -> None:
    """A write cut short (a full disk, a crash, a kill) leaves a partial last line:
    the resumed run names it, drops it, runs its subtree again and counts exactly."""
    checkpoint = tmp_path / "run.jsonl"
    args = ["perft", "focus", "--depth", "4", "--checkpoint", str(checkpoint)]
    assert brett_cli(*args).returncode == 0
    whole = checkpoint.read_bytes()
    lines = whole.splitlines(keepends=True)
    for cut, line, then in ((sum(map(len, lines[:6])) + 17, 7, "its subtree runs again"),
                            (40, 1, "the run starts afresh")):
        checkpoint.write_bytes(whole[:cut])
        result = brett_cli(*args)
        assert result.returncode == 0 and result.stdout.startswith("perft(4) = 19521582\n")
        assert result.stderr == (f"brett: warning: --checkpoint {checkpoint}: line {line} was "
                                 f"cut short (an interrupted write: a full disk, a crash or a "
                                 f"killed process) and is dropped; {then}\n")
        assert sorted(checkpoint.read_bytes().splitlines()) == sorted(whole.splitlines())
    # A line without an end that is no part of a checkpoint: someone else's file.
    checkpoint.write_bytes(b"precious")
    result = brett_cli(*args)
    assert result.returncode == 2 and "not a brett checkpoint" in result.stderr
    assert checkpoint.read_bytes() == b"precious"


def test_help_reads_as_text() -> None:
    """Whole sentences, no reST markup, on every command's help."""
    for args in ([], ["perft"], ["play"], ["serve"], ["convert"], ["stats"]):
        result = brett_cli(*args, "--help")
        assert result.returncode == 0 and "``" not in result.stdout, args
    description = brett_cli("--help").stdout.split("\n\n")[1]
    assert description.rstrip().endswith(".") and "Reversi" in description


README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readmes_record_commands_run_on_the_sample_file(tmp_path: Path) -> None:
    """README's convert, replay and stats lines, on examples/games.wtb, in order
    (replay reads what convert wrote)."""
    root = README.parent
    lines = [line.split("#")[0].split() for line in README.read_text().splitlines()
             if re.match(r"brett (convert|replay|stats) ", line)]
    assert [words[1] for words in lines] == ["convert", "replay", "stats"]
    for words in lines:
        args = [str(root / w) if w.startswith("examples/") else w for w in words[1:]]
        done = subprocess.run([sys.executable, "-m", "brett", *args], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, (words, done.stderr)
        assert done.stdout.strip(), words
    assert (tmp_path / "games.sgf").read_text().count("(;FF[4]GM[2]") == 12
