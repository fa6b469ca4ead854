"""``brett match`` as its users run it: a subprocess playing real engines (brett's
own GTP and NBoard engines, GRhino's gtp-rhino) and misbehaving ones, the games
read back from the files it writes, and no engine process left behind."""

from __future__ import annotations

import math
import os
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import brett
from brett.frontends.match import Tally, elo_interval, elo_text
from brett.records import read as read_records
from peers import brett_command, peer

BRETT_GTP = f"gtp:{sys.executable} -m brett gtp --level 1"
BRETT_NBOARD = f"nboard:{sys.executable} -m brett nboard --level 1"
FAKE = '''
import sys, time
mode = sys.argv[1]
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "genmove":
        if mode == "hang":
            time.sleep(3600)
        if mode == "crash":
            sys.exit(3)
        if mode == "flood":
            while True:
                sys.stdout.write("chatter " * 8 + "\\n")
        if mode == "flood-line":
            while True:
                sys.stdout.write("x" * 4096)
        if mode == "stderr":
            for _ in range(3000):
                sys.stderr.write("e" * (1 << 15))
            mode = "illegal"
        print({"illegal": "= A1", "resign": "= resign", "garbage": "hello"}[mode] + "\\n",
              flush=True)
    elif words[0] == "name":
        print("= fake-" + mode + "\\n", flush=True)
    elif words[0] == "list_commands":
        print("= protocol_version\\nname\\nlist_commands\\nboardsize\\nclear_board\\nplay\\n"
              "genmove\\nquit\\n", flush=True)
    else:
        print("=\\n", flush=True)
        if words[0] == "quit":
            break
'''


def match(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(brett_command("match", *args), capture_output=True, text=True,
                          timeout=timeout)


def processes_with(marker: str) -> list[str]:
    """Command lines of running processes that contain ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if marker in line and "pytest" not in line:
                found.append(line)
    return found


def pids_of(name: str) -> set[str]:
    return {line.split()[0] for line in subprocess.run(
        ["ps", "-eo", "pid,comm"], capture_output=True, text=True).stdout.splitlines()[1:]
        if line.split()[1:] == [name[:15]]}


def fake(tmp_path: Path, mode: str) -> str:
    script = tmp_path / "fake_engine.py"
    script.write_text(FAKE)
    return f"gtp:{sys.executable} {script} {mode}"


def signalled(args: list[str], ready: Callable[[], bool], stop: signal.Signals, wait: float,
              settle: float = 0.0) -> tuple[subprocess.Popen[str], str]:
    """``brett match ARGS`` sent ``stop`` once ``ready()`` (within ``wait`` seconds)
    and ``settle`` seconds more: the process, ended, and its error output."""
    proc = subprocess.Popen(brett_command("match", *args), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + wait
        while not ready() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ready(), "brett match did not get there in time"
        time.sleep(settle)
        proc.send_signal(stop)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc, err


def check_records(path: Path, games: int) -> list[Any]:
    """Every game of the file replays in brett (the readers replay each move), the
    engines alternate colours, and each finished game's result is its discs."""
    records = read_records(path)
    assert len(records) == games
    for number, record in enumerate(records):
        game = record.game()
        if number:
            previous = records[number - 1].headers
            assert (record.headers["Black"], record.headers["White"]) == \
                (previous["White"], previous["Black"])
        if game.is_over():
            black, white = game.discs()
            result = record.headers["Result"]
            expected = "0" if black == white else \
                f"{'B' if black > white else 'W'}+{abs(black - white)}"
            assert result in (expected, f"{black - white:+.3f}"), (result, black, white)
    return records


def test_elo_and_its_margin() -> None:
    assert elo_interval([1.0, 0.0] * 10)[0] == 0
    middle, low, high = elo_interval([1.0, 1.0, 1.0, 0.0] * 25)
    assert round(middle) == 191 and low < middle < high
    # p = 0.75 ± 1.96 * sqrt(0.75 * 0.25 / 100) = 0.665 .. 0.835: +119 .. +282 Elo
    assert (round(low), round(high)) == (119, 282)
    assert elo_interval([1.0] * 4)[0] == math.inf
    assert elo_text([1.0, 1.0, 1.0, 0.0] * 25) == "Elo difference +191 ± 81 (95%)"
    assert elo_text([1.0, 0.5, 0.0, 1.0]) == "Elo difference +89 (95% interval -221 to +inf)"
    assert elo_text([0.0] * 3) == "Elo difference -infinite (every game lost)"
    tally = Tally(("a", "b"), [1.0, 0.5, 0.0, 1.0], ["game 3: b crashed"])
    assert tally.counts() == (2, 1, 1) and tally.score() == "2.5 - 1.5"
    assert "forfeits: 1\n  game 3: b crashed" in tally.summary()


def test_a_short_match_against_gtp_rhino(tmp_path: Path) -> None:
    rhino = peer("gtp-rhino")
    before = pids_of("gtp-rhino")
    output = tmp_path / "games.sgf"
    result = match(BRETT_GTP, f"gtp:{rhino} --level 1", "--games", "4", "--seconds", "0.1",
                   "--output", str(output))
    assert result.returncode == 0, result.stderr
    assert re.search(r"^brett 0\.\d+\.\d+ vs GTP GRhino 0\.16\.1: 4 games, brett \S+ \d won",
                     result.stdout, re.MULTILINE)
    assert "forfeits: 0" in result.stdout
    assert len(re.findall(r"^game \d: ", result.stdout, re.MULTILINE)) == 4
    records = check_records(output, 4)
    assert all(r.game().is_over() for r in records)
    assert {records[0].headers["Black"], records[0].headers["White"]} == \
        {f"brett {brett.__version__}", "GTP GRhino 0.16.1"}
    assert pids_of("gtp-rhino") <= before          # every engine was ended


def test_brett_players_nboard_engines_and_detection(tmp_path: Path) -> None:
    output = tmp_path / "games.ggf"
    result = match(BRETT_NBOARD, "random", "--games", "2", "--output", str(output))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("match: brett vs random, 2 games")
    check_records(output, 2)
    # a bare command: its protocol is found by asking
    output = tmp_path / "detected.json"
    result = match(f"{sys.executable} -m brett gtp --level 1",
                   f"{sys.executable} -m brett nboard --level 1", "--games", "2", "--output",
                   str(output))
    assert result.returncode == 0, result.stderr
    assert "brett 0." in result.stdout and "vs brett, 2 games" in result.stdout
    check_records(output, 2)
    result = match("mcts", "level:1", "--iterations", "50", "--games", "2", "--seed", "4")
    assert result.returncode == 0 and "mcts vs level:1: 2 games" in result.stdout


def test_openings_from_a_file_are_played_with_both_colours(tmp_path: Path) -> None:
    openings = tmp_path / "openings.txt"
    start = brett.Reversi()
    start.push_transcript("f5f6e6f4")
    openings.write_text(f"# two openings\n{start.position()}\nf5 d6 c3\n")
    output = tmp_path / "games.json"
    result = match("random", "random", "--games", "4", "--openings", str(openings),
                   "--output", str(output), "--seed", "1")
    assert result.returncode == 0, result.stderr
    records = check_records(output, 4)
    assert [r.start for r in records[:2]] == [start.position()] * 2
    assert [[str(m) for m in r.moves[:3]] for r in records[2:]] == [["f5", "d6", "c3"]] * 2
    # record files: the start of each game
    result = match("random", "random", "--games", "2", "--openings", str(output),
                   "--opening-plies", "6", "--output", str(tmp_path / "again.sgf"))
    assert result.returncode == 0, result.stderr
    again = read_records(tmp_path / "again.sgf")
    assert [str(m) for m in again[0].moves[:6]] == [str(m) for m in records[0].moves[:6]]


@pytest.mark.parametrize(("mode", "reason"), [
    ("illegal", "fake-illegal played the illegal move 'A1'"),
    ("resign", "fake-resign resigned"),
    ("garbage", "fake-garbage failed at genmove: answered 'hello'"),
    ("crash", "fake-crash failed at genmove: exited (code 3)"),
    ("hang", "fake-hang failed at genmove: no answer in time"),
])
def test_a_misbehaving_engine_loses_and_the_match_goes_on(tmp_path: Path, mode: str,
                                                          reason: str) -> None:
    output = tmp_path / "games.sgf"
    result = match("random", fake(tmp_path, mode), "--games", "2", "--timeout", "3",
                   "--output", str(output))
    assert result.returncode == 0, result.stderr
    assert result.stdout.count(reason) == 4      # each game's line and the summary
    assert "random 2 won, 0 drawn, 0 lost: 2 - 0" in result.stdout
    records = check_records(output, 2)
    how = "R" if mode == "resign" else "T" if mode == "hang" else "F"
    assert [r.headers["Result"] for r in records] == [f"B+{how}", f"W+{how}"]   # random wins
    assert reason in records[0].headers["Comment"]
    assert processes_with(str(tmp_path)) == []     # the hanging engine was killed too


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_ctrl_c_keeps_the_finished_games_and_ends_the_engines(tmp_path: Path,
                                                              stop: signal.Signals) -> None:
    output = tmp_path / "games.sgf"
    proc, err = signalled(["random", fake(tmp_path, "hang"), "--games", "50", "--timeout", "2",
                           "--output", str(output)], output.exists, stop, wait=120)
    assert proc.returncode == 130
    games = int(re.search(r"brett: interrupted: (\d+) games finished, kept in ", err)[1])
    assert games >= 1 and len(read_records(output)) == games
    assert "Traceback" not in err
    assert processes_with(str(tmp_path)) == []


@pytest.mark.parametrize(("args", "message"), [
    (["random", "nosuchengine-xyz"], "brett: error: cannot start nosuchengine-xyz"),
    (["random", "gtp:"], "brett: error: engine 'gtp:': no command"),
    (["random", "level:11"], "brett: error: engine 'level:11': level:N takes a level from 1"),
    (["random", "mcts:fast"], "brett: error: engine 'mcts:fast': mcts:SECONDS takes the"),
    (["random", "mcts:-1"], "brett: error: engine 'mcts:-1': mcts:SECONDS takes the"),
    (["random", "random", "--games", "0"], "brett: error: --games: 1 to 1000000"),
    (["random", "random", "--output", "x.txt"], "brett: error: --output x.txt: a .sgf"),
    (["random", "random", "--holes", "b2", "--output", "x.ggf"],
     "brett: error: record 1: GGF has no blocked squares"),
    (["random", BRETT_NBOARD, "--holes", "b2"], "brett: error: brett: NBoard engines get GGF"),
    (["random", "random", "--openings", "/nonexistent"], "brett: error: --openings"),
    (["random", f"gtp:{sys.executable} -c 'raise SystemExit(4)'"],
     "brett: error: /"),    # ... -c 'raise SystemExit(4)' did not start as a GTP engine
])
def test_errors_before_the_match(tmp_path: Path, args: list[str], message: str) -> None:
    result = subprocess.run(brett_command("match", *args), capture_output=True, text=True,
                            timeout=300, cwd=tmp_path)
    assert result.returncode == 2, result.stdout
    assert result.stderr.startswith(message), result.stderr
    assert result.stderr.count("\n") == 1
    if "SystemExit" in args[-1]:
        assert result.stderr.endswith("did not start as a GTP engine: exited (code 4)\n")


def test_an_engine_that_cannot_play_the_board_stops_the_match() -> None:
    rhino = peer("gtp-rhino")
    result = match("random", f"gtp:{rhino}", "--size", "6")
    assert result.returncode == 2
    assert result.stderr.strip() == ("brett: error: GTP GRhino 0.16.1: 'boardsize 6' failed: "
                                     "unacceptable size")


def test_the_progress_line_shows_on_a_terminal() -> None:
    primary, secondary = os.openpty()
    try:
        proc = subprocess.Popen(brett_command("match", "mcts", "random", "--games", "2",
                                              "--seconds", "0.05"),
                                stdout=subprocess.PIPE, stderr=secondary, text=True)
        os.close(secondary)
        out, _ = proc.communicate(timeout=300)
        seen = b""
        while True:
            try:
                chunk = os.read(primary, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(primary)
    assert proc.returncode == 0
    assert re.search(rb"\rgame [12]/2, move \d+: mcts [\d.]+ - [\d.]+ random", seen)
    assert "game 2: " in out


@pytest.mark.parametrize(("mode", "reason"), [
    ("flood", "fake-flood failed at genmove: flooded its output: it wrote 10,000 lines"),
    ("flood-line", "fake-flood-line failed at genmove: flooded its output: it wrote a line "
                   "longer than 65,536 bytes"),
])
def test_an_engine_that_floods_forfeits_and_brett_stays_small(tmp_path: Path, mode: str,
                                                              reason: str) -> None:
    """An engine writing without end at genmove: brett reads a bounded amount,
    the engine forfeits, the match goes on (926 MB in 5.6 s before)."""
    # brett runs under a fresh interpreter that reports its children's peak memory
    # (this process's own children include whatever earlier tests started)
    command = brett_command("match", "random", fake(tmp_path, mode), "--games", "2",
                            "--timeout", "30")
    wrapper = ("import resource, subprocess, sys; done = subprocess.run(sys.argv[1:]); "
               "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,"
               " file=sys.stderr)")
    result = subprocess.run([sys.executable, "-c", wrapper, *command], capture_output=True,
                            text=True, timeout=600)
    returncode, peak = map(int, result.stderr.split()[-2:])
    assert returncode == 0, result.stderr
    assert result.stdout.count(reason) == 4, result.stdout
    assert peak < 300_000, f"brett or an engine grew to {peak:,} KB"
    assert processes_with(str(tmp_path)) == []


def test_the_log_stops_at_its_limit(tmp_path: Path) -> None:
    """An engine's error output (here 96 MiB at each genmove) goes to --log only up
    to its limit of 64 MiB, which the log says."""
    log = tmp_path / "match.log"
    result = match("random", fake(tmp_path, "stderr"), "--games", "1", "--timeout", "60",
                   "--log", str(log))
    assert result.returncode == 0, result.stderr
    size = log.stat().st_size
    assert 60 << 20 < size < (64 << 20) + 4096, size
    with log.open("rb") as handle:
        handle.seek(-200, 2)
        assert b"the log stops here" in handle.read()


@pytest.mark.skipif(sys.platform == "win32", reason="signals to a process are POSIX")
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT],
                         ids=["SIGTERM", "SIGHUP", "SIGINT"])
def test_a_signal_while_an_engine_starts_ends_the_engine(stop: signal.Signals) -> None:
    """``brett match "gtp:sleep 3601" random`` stopped during the engine's start
    (its handshake waits for an answer that never comes) leaves no sleep behind."""
    marker = f"{3600 + random.random():.6f}"
    proc, err = signalled([f"gtp:sleep {marker}", "random"],
                          lambda: bool(processes_with(marker)), stop, wait=60, settle=0.5)
    # brett's own exit status, or death by the signal itself (seen once beside two
    # busy processes: the interrupt was reported, then the signal ended the
    # interpreter as it finished, its handlers back at the default); a shell's $?
    # is 128 + the signal either way.
    assert proc.returncode in (130, 128 + stop, -stop), (proc.returncode, err)
    assert "Traceback" not in err
    deadline = time.monotonic() + 10
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert processes_with(marker) == []
