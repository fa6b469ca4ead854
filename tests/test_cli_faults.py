"""Faults of the environment as users of the ``brett`` command meet them: Ctrl-C
at a terminal, a worker process killed, the command itself killed with
``kill -9``, a full disk, a read-only folder.  Each test drives the command as a
subprocess.  Latencies are bounded generously (:data:`BOUND`: a busy machine
must not fail a test) and the measured figures are printed (``pytest -s``).

A full disk is simulated with ``RLIMIT_FSIZE``: past the limit a write stores
what fits and then fails (``EFBIG`` once ``SIGXFSZ`` is ignored), as a write to
a full disk stores what fits and fails with ``ENOSPC``; it needs no root and no
special file system.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import re
import select
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future
from pathlib import Path
from typing import Any, Optional, TypeVar

import pytest

import brett
from brett.records import Record
from brett.records import read as read_records
from brett.records import write as write_records
from conftest import needs_cython
from test_cli import brett_cli

posix = pytest.mark.skipif(
    os.name != "posix", reason="process groups, SIGINT to a child, kill -9, ps and "
                               "RLIMIT_FSIZE are POSIX: NOT TESTED on this platform")

BOUND = 10.0
"""Seconds that "at once" may take on a busy machine (the real figures are printed)."""
REVERSI_12 = 1_939_879_668
FOCUS_4 = 19_521_582
T = TypeVar("T")


# ------------------------------------------------------------------ helpers
def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "brett", *args]


@contextlib.contextmanager
def _running(*args: str, **kwargs: Any) -> Iterator[subprocess.Popen[str]]:
    """The command in a session of its own: its worker processes join its
    process group, which a terminal's Ctrl-C reaches as a whole.  Whatever of
    the group a test leaves running is killed at the end."""
    kwargs.setdefault("stderr", subprocess.PIPE)
    proc = subprocess.Popen(_command(*args), stdout=subprocess.PIPE, text=True,
                            start_new_session=True, **kwargs)
    try:
        yield proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()


def _wait_for(what: str, probe: Callable[[], Optional[T]], timeout: float = 120) -> T:
    """Poll ``probe`` until it gives a value (bounded in time)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = probe()
        if value is not None:
            return value
        time.sleep(0.02)
    pytest.fail(f"not within {timeout} s: {what}")


def _processes() -> list[tuple[int, int, int, str]]:
    """(process group, parent, pid, state) of every process (zombies included)."""
    listing = subprocess.run(["ps", "-A", "-o", "pgid=", "-o", "ppid=", "-o", "pid=", "-o",
                              "stat="], capture_output=True, text=True, timeout=60).stdout
    rows = [line.split() for line in listing.splitlines()]
    return [(int(r[0]), int(r[1]), int(r[2]), r[3]) for r in rows if len(r) == 4]


def _live(group: int) -> list[int]:
    """The processes of a process group that have not ended (a zombie has)."""
    return [pid for pgid, _, pid, state in _processes()
            if pgid == group and not state.startswith("Z")]


def _children(parent: int) -> list[int]:
    return [pid for _, ppid, pid, state in _processes()
            if ppid == parent and not state.startswith("Z")]


def _all_gone(group: int) -> float:
    """Seconds until no process of ``group`` is left (failing after BOUND)."""
    start = time.monotonic()
    while time.monotonic() - start < BOUND:
        if not _live(group):
            return time.monotonic() - start
        time.sleep(0.05)
    left = _live(group)
    os.killpg(group, signal.SIGKILL)
    pytest.fail(f"processes left running {BOUND} s later: {left}")


def _task_lines(checkpoint: Path) -> int:
    try:
        return max(checkpoint.read_bytes().count(b"\n") - 1, 0)
    except FileNotFoundError:
        return 0


def _subtrees_recorded(checkpoint: Path, at_least: int) -> Callable[[], Optional[int]]:
    def probe() -> Optional[int]:
        lines = _task_lines(checkpoint)
        return lines if lines >= at_least else None
    return probe


class Terminal:
    """A pseudo-terminal for a command's stderr (progress shows only there)."""

    def __init__(self) -> None:
        import pty

        self.primary, secondary = pty.openpty()
        self.secondary: Optional[int] = secondary
        self.seen = b""

    def __enter__(self) -> Terminal:
        return self

    def __exit__(self, *exc: object) -> None:
        for fd in (self.primary, self.secondary):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)

    def running(self, *args: str) -> contextlib.AbstractContextManager[subprocess.Popen[str]]:
        return _running(*args, stderr=self.secondary)

    def started(self) -> None:
        """The command holds the terminal now: our copy of its end goes."""
        if self.secondary is not None:
            os.close(self.secondary)
            self.secondary = None

    def read_until(self, pattern: bytes, timeout: float) -> Optional[bytes]:
        """Read until ``pattern`` shows; the text up to it, or None at the timeout."""
        deadline = time.monotonic() + timeout
        while pattern not in self.seen and time.monotonic() < deadline:
            if select.select([self.primary], [], [], 0.05)[0]:
                try:
                    chunk = os.read(self.primary, 4096)
                except OSError:  # the command ended and closed the terminal
                    break
                if not chunk:
                    break
                self.seen += chunk
        return self.seen[:self.seen.index(pattern)] if pattern in self.seen else None


# ------------------------------------------------------------------ Ctrl-C
@posix
@needs_cython
@pytest.mark.parametrize("args", [
    ["reversi", "--depth", "14"],
    ["reversi", "--depth", "14", "--workers", "2"],
    ["focus", "--depth", "6", "--workers", "2"],
], ids=["reversi 14", "reversi 14 on 2 workers", "focus 6 on 2 workers"])
def test_progress_at_once_and_ctrl_c_stops_the_run_at_once(args: list[str]) -> None:
    """Progress shows within about a second, before the first subtree finishes;
    Ctrl-C at the terminal (SIGINT to the whole process group, workers included)
    ends the run at once with exit code 130, says what was done, and leaves no
    process behind.  It used to take 200-347 s and say nothing."""
    started = time.monotonic()
    with Terminal() as terminal, terminal.running("perft", *args) as proc:
        terminal.started()
        first = terminal.read_until(b" nodes, ", BOUND)
        shown = time.monotonic() - started
        assert first is not None, terminal.seen
        if "--workers" not in args:
            # before any of the 4 first moves' subtrees (each about a minute) is done
            assert first.endswith(b"perft(14): 0 first moves done, 0")
        time.sleep(1.0)  # work under way
        sent = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=120)
        stopped = time.monotonic() - sent
        gone = _all_gone(proc.pid)
        terminal.read_until(b"\0never\0", 5)  # the rest
    print(f"\nperft {' '.join(args)}: first progress {shown:.2f} s after the start; "
          f"exit {stopped:.3f} s after Ctrl-C; last process gone {gone:.3f} s later")
    assert proc.returncode == 130 and b"Traceback" not in terminal.seen
    said = terminal.seen.decode().replace("\r\n", "\n").rsplit("\r", 1)[-1]
    assert re.fullmatch(r"brett: interrupted: \d+ (of \d+ subtrees|first moves) were done "
                        r"\([\d,]+ nodes\); nothing is kept \(--checkpoint FILE keeps "
                        r"finished subtrees for a resume\)\n", said), said
    assert shown < BOUND and stopped < BOUND


@posix
@needs_cython
def test_ctrl_c_keeps_the_checkpoint_and_the_run_resumes_exactly(tmp_path: Path) -> None:
    checkpoint = tmp_path / "run.jsonl"
    args = ("perft", "reversi", "--depth", "12", "--workers", "2", "--checkpoint",
            str(checkpoint))
    with _running(*args) as proc:
        _wait_for("a subtree recorded", _subtrees_recorded(checkpoint, 1))
        sent = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=120)
        stopped = time.monotonic() - sent
        _all_gone(proc.pid)
    print(f"\nexit {stopped:.3f} s after Ctrl-C")
    assert proc.returncode == 130, err
    kept = _task_lines(checkpoint)
    assert re.fullmatch(rf"brett: interrupted: {kept} of 244 subtrees were done \([\d,]+ "
                        rf"nodes\), kept in {re.escape(str(checkpoint))}: run the same "
                        rf"command again to resume\n", err), err
    assert 0 < kept < 244 and stopped < BOUND
    resumed = brett_cli(*args)
    assert resumed.returncode == 0 and resumed.stderr == ""
    assert resumed.stdout.startswith(f"perft(12) = {REVERSI_12}\n")


# ------------------------------------------------------------------ killed processes
@posix
@needs_cython
def test_a_killed_worker_process_changes_nothing_but_the_time(tmp_path: Path) -> None:
    """A worker process killed in the middle (say by the out-of-memory killer)
    used to end the command with a BrokenProcessPool traceback: its subtrees now
    run again on a fresh pool, as Dask runs a lost worker's tasks elsewhere."""
    checkpoint = tmp_path / "run.jsonl"
    with _running("perft", "reversi", "--depth", "12", "--workers", "2", "--checkpoint",
                  str(checkpoint)) as proc:
        _wait_for("a subtree recorded", _subtrees_recorded(checkpoint, 1))
        victim = _wait_for("the workers", lambda: _children(proc.pid) or None)[0]
        assert proc.poll() is None  # the run is still going
        os.kill(victim, signal.SIGKILL)
        out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0 and err == "", err
    assert out.startswith(f"perft(12) = {REVERSI_12}\n")
    assert _task_lines(checkpoint) == 244


@posix
@needs_cython
def test_a_subtree_lost_again_and_again_ends_the_run_cleanly(tmp_path: Path) -> None:
    """Workers killed as soon as they start: a subtree is tried again on a fresh
    pool after each loss, three times as Dask does, then the run ends with a clear
    error."""
    checkpoint = tmp_path / "run.jsonl"
    killed: set[int] = set()
    with _running("perft", "reversi", "--depth", "14", "--workers", "2", "--checkpoint",
                  str(checkpoint)) as proc:
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline:
            for pid in set(_children(proc.pid)) - killed:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            time.sleep(0.02)
        _, err = proc.communicate(timeout=60)
        _all_gone(proc.pid)
    assert proc.returncode == 2, err
    assert re.fullmatch(r"brett: error: subtree \d+ was lost 4 times with the worker process "
                        r"running it \(killed, or out of memory\?\); \d+ of 244 subtrees were "
                        r"done \([\d,]+ nodes\), kept in .*: run the same command again to "
                        r"resume\n", err), err
    assert len(killed) >= 4


@posix
@needs_cython
def test_kill_9_of_the_command_leaves_no_process_and_a_checkpoint_that_resumes(
        tmp_path: Path) -> None:
    """``kill -9`` of the command: its workers end by themselves (they used to
    sleep forever), and the checkpoint resumes, with other --workers, exactly."""
    checkpoint = tmp_path / "run.jsonl"
    with _running("perft", "reversi", "--depth", "12", "--workers", "2", "--checkpoint",
                  str(checkpoint)) as proc:
        _wait_for("a subtree recorded", _subtrees_recorded(checkpoint, 1))
        workers = _wait_for("the workers", lambda: _children(proc.pid) or None)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)  # (the workers may hold its pipes: no communicate)
        gone = _all_gone(proc.pid)
    print(f"\nthe {len(workers)} workers ended {gone:.3f} s after their parent")
    resumed = brett_cli("perft", "reversi", "--depth", "12", "--workers", "1",
                        "--checkpoint", str(checkpoint))
    assert resumed.returncode == 0
    # a kill in the middle of a write leaves a partial line, dropped with a message
    assert resumed.stderr == "" or "was cut short" in resumed.stderr
    assert resumed.stdout.startswith(f"perft(12) = {REVERSI_12}\n")


RUNNER_SCRIPT = """
import multiprocessing, sys, time
import brett
from brett.frontends._tasks import LocalRunner
from brett.game import _perft_task

runner = LocalRunner(2, multiprocessing.get_context(sys.argv[1]))
game = brett.Reversi()
for index in range(2):  # hours of work each
    runner.submit(index, _perft_task, "reversi", type(game).backend(), game.position(), 16,
                  False)
runner.next_result(0.5)  # they start
print("started", flush=True)
if sys.argv[2] == "stop":
    sys.stdin.readline()
    runner.stop()
else:
    time.sleep(600)
"""


@posix
@pytest.mark.parametrize("method", multiprocessing.get_all_start_methods())
@pytest.mark.parametrize("end", ["kill -9 of the parent", "stop"])
def test_worker_processes_end_with_their_parent_under_every_start_method(
        method: str, end: str) -> None:
    """The local workers end at once when the parent stops them (Ctrl-C) and by
    themselves when the parent dies, under fork, spawn and forkserver."""
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(RUNNER_SCRIPT), method,
                             end.split()[0]], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, start_new_session=True)
    assert proc.stdout is not None and proc.stdin is not None
    try:
        assert proc.stdout.readline() == "started\n"
        workers = _wait_for("two workers", lambda: _children(proc.pid)
                            if len(_children(proc.pid)) >= 2 else None)
        time.sleep(0.5)  # at work
        if end == "stop":
            proc.stdin.write("\n")
            proc.stdin.flush()
        else:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
        gone = _all_gone(proc.pid)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
        proc.stdin.close()
        proc.stdout.close()
    assert proc.returncode == (0 if end == "stop" else -signal.SIGKILL)
    print(f"\n{method}, {end}: {len(workers)} workers gone {gone:.3f} s after the parent")


# ------------------------------------------------------------------ a full disk
def _file_size_limit(limit: int) -> Callable[[], None]:
    def limit_file_size() -> None:  # runs in the child, before brett starts
        import resource

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past it fails instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return limit_file_size


def _on_a_full_disk(limit: int, *args: str) -> subprocess.CompletedProcess[str]:
    """The command, no file of it able to grow past ``limit`` bytes."""
    return subprocess.run(_command(*args), capture_output=True, text=True, timeout=300,
                          preexec_fn=_file_size_limit(limit))


@posix
@needs_cython
@pytest.mark.parametrize("limit", [100, 1500])
def test_a_full_disk_leaves_a_checkpoint_that_resumes(tmp_path: Path, limit: int) -> None:
    """The disk fills while subtrees are recorded: the command says so and what it
    kept; the file ends with a whole line (a torn one used to make the resume
    fail with "line 1 column 2"), and the run resumes to the exact count."""
    checkpoint = tmp_path / "run.jsonl"
    args = ("perft", "focus", "--depth", "4", "--workers", "2", "--checkpoint",
            str(checkpoint))
    full = _on_a_full_disk(limit, *args)
    assert full.returncode == 2 and full.stdout == "" and "Traceback" not in full.stderr
    name = re.escape(str(checkpoint))
    if limit < 300:  # not even the header fits: no checkpoint at all
        assert re.fullmatch(rf"brett: error: --checkpoint {name}: cannot write it: .+\n",
                            full.stderr), full.stderr
        assert not checkpoint.exists() and list(tmp_path.iterdir()) == []
    else:
        said = re.fullmatch(rf"brett: error: --checkpoint {name}: cannot record a finished "
                            rf"subtree: .+; (\d+) of 68 subtrees were done \([\d,]+ nodes\), "
                            rf"kept in {name}: run the same command again to resume\n",
                            full.stderr)
        assert said, full.stderr
        data = checkpoint.read_bytes()
        assert data.endswith(b"\n") and len(data) <= limit
        assert _task_lines(checkpoint) == int(said.group(1)) > 0
    resumed = brett_cli(*args)
    assert resumed.returncode == 0 and resumed.stderr == ""
    assert resumed.stdout.startswith(f"perft(4) = {FOCUS_4}\n")


def _records(folder: Path, games: int = 20) -> Path:
    records = []
    for seed in range(games):
        game = brett.Reversi()
        game.random_playout(seed=seed)
        records.append(Record.from_game(game, Black="ann", White="bob", Event="open"))
    source = folder / "games.json"
    write_records(records, source)
    return source


@posix
@pytest.mark.parametrize("target", ["out.sgf", "out.json", "out.wtb"])
def test_a_full_disk_leaves_the_old_output_whole(tmp_path: Path, target: str) -> None:
    """``brett convert`` onto an existing file on a full disk used to leave it
    truncated: the old file now stays as it was, and no temporary file is left."""
    source = _records(tmp_path)
    output = tmp_path / target
    output.write_bytes(b"the old file")
    before = sorted(tmp_path.iterdir())
    full = _on_a_full_disk(700, "convert", str(source), str(output))
    assert full.returncode == 2 and full.stdout == ""
    assert full.stderr.startswith(f"brett: error: cannot write {output}: ")
    assert "Traceback" not in full.stderr and ".brett-tmp" not in full.stderr
    assert output.read_bytes() == b"the old file" and sorted(tmp_path.iterdir()) == before
    done = brett_cli("convert", str(source), str(output))
    assert done.returncode == 0
    assert [r.game() for r in read_records(output)] == [r.game() for r in read_records(source)]


@posix
def test_a_full_disk_leaves_no_partial_picture(tmp_path: Path) -> None:
    source = _records(tmp_path, 1)
    folder = tmp_path / "pictures"
    full = _on_a_full_disk(4000, "replay", str(source), "--svg", str(folder))
    assert full.returncode == 2 and full.stdout == "" and "Traceback" not in full.stderr
    assert full.stderr.startswith(f"brett: error: cannot write {folder / 'game1-000.svg'}: ")
    assert list(folder.iterdir()) == []  # a picture is whole or absent
    done = brett_cli("replay", str(source), "--svg", str(folder))
    pictures = sorted(folder.iterdir())
    assert done.returncode == 0 and len(pictures) > 20
    assert all(p.read_text().rstrip().endswith("</svg>") for p in pictures)


# ------------------------------------------------------------------ read-only
def _writable(folder: Path) -> bool:
    probe = folder / ".brett-probe"
    try:
        probe.write_bytes(b"")
    except OSError:
        return False
    probe.unlink()
    return True


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[Path]:
    """A folder nobody may write to: a read-only one, or for root (whom
    permissions do not stop) Linux's /sys."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        if not _writable(folder):
            yield folder
        elif Path("/sys").is_dir() and not _writable(Path("/sys")):
            yield Path("/sys")
        else:  # pragma: no cover - root, and no /sys
            pytest.skip("NOT TESTED: running as root with no read-only folder at hand")
    finally:
        folder.chmod(0o755)


@posix
@pytest.mark.parametrize("command", ["checkpoint", "convert", "replay --svg"])
def test_a_read_only_folder_is_a_clear_error(tmp_path: Path, read_only: Path,
                                             command: str) -> None:
    source = _records(tmp_path, 1)
    args = {"checkpoint": ["perft", "reversi", "--depth", "3", "--checkpoint",
                           str(read_only / "run.jsonl")],
            "convert": ["convert", str(source), str(read_only / "out.sgf")],
            "replay --svg": ["replay", str(source), "--svg", str(read_only)]}[command]
    result = brett_cli(*args)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("brett: error: ") and "Traceback" not in result.stderr
    assert len(result.stderr.splitlines()) == 1 and str(read_only) in result.stderr


# ------------------------------------------------------------------ perft over an executor
class _FailingExecutor(Executor):
    """Runs nothing: the first task fails, the others stay queued."""

    def __init__(self) -> None:
        self.futures: list[Future[Any]] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        if not self.futures:
            future.set_exception(MemoryError("a worker ran out of memory"))
        self.futures.append(future)
        return future


def test_a_failed_task_cancels_the_queued_ones() -> None:
    """``perft(executor=...)`` used to leave the rest of a failed (or Ctrl-C'd)
    run queued in the user's executor, to run for nothing."""
    executor = _FailingExecutor()
    with pytest.raises(MemoryError):
        brett.Reversi().perft(8, executor=executor, tasks=16)
    assert len(executor.futures) >= 16
    assert all(f.cancelled() for f in executor.futures[1:])


@posix
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT],
                         ids=["SIGTERM", "SIGHUP", "SIGINT"])
def test_a_signal_during_a_convert_leaves_no_temporary_file(tmp_path: Path,
                                                            stop: signal.Signals) -> None:
    """``kill`` (or a closed terminal) during ``brett convert`` ends it as Ctrl-C
    does: no ``.brett-tmp`` file is left and the output is not there.  The input
    is a pipe that gives half the records and then waits, so the signal comes
    while the convert is under way however busy the machine is."""
    text = _records(tmp_path, 300).read_bytes()
    source = tmp_path / "piped.json"
    os.mkfifo(source)
    output = tmp_path / "out.sgf"
    with _running("convert", str(source), str(output)) as proc:
        writer = os.open(source, os.O_WRONLY)   # once the convert opens it to read
        try:
            os.write(writer, text[:len(text) // 2])
            _wait_for("the temporary file", lambda: next(tmp_path.glob(".*.brett-tmp"), None))
            proc.send_signal(stop)
            _, err = proc.communicate(timeout=120)
        finally:
            os.close(writer)
    assert proc.returncode == (130 if stop == signal.SIGINT else 128 + stop), err
    assert "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.json", source.name]
