"""Reading pipes and terminals never loses a Ctrl-C (brett._reading).

A signal whose Python handler runs while the main thread is already blocked in
a read, without interrupting that read, is the race the module closes: CPython
acts on it only when the read returns.  The tests make that happen every time:
a helper thread sends SIGINT to itself, so the C handler runs in that thread
and the main thread's read is not interrupted.  Without the waiting reads the
child reads on forever and the bounded ``communicate`` fails the test.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from brett._reading import WaitingFile, bounded_lines, open_reading, waiting_stdin

posix = pytest.mark.skipif(os.name != "posix", reason="fifos, poll and pthread_kill")

NUDGE = """
import signal, sys, threading

def nudge() -> None:  # the handler runs in this thread: no read is interrupted
    signal.pthread_kill(threading.get_ident(), signal.SIGINT)

timer = threading.Timer(0.5, nudge)
timer.daemon = True
timer.start()
"""


def _nudged(body: str, *args: str, **kwargs: object) -> subprocess.Popen[str]:
    """A child that runs ``body`` while a thread of its own gets a SIGINT."""
    script = NUDGE + textwrap.dedent(body)
    return subprocess.Popen([sys.executable, "-c", script, *args], text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs)  # type: ignore[call-overload]


def _ended(child: subprocess.Popen[str], writer: int) -> str:
    """The child's stderr once it ended (bounded in time); ``writer``, the test's
    end of the pipe it reads, is held open until then."""
    try:
        return child.communicate(timeout=60)[1]
    finally:
        os.close(writer)
        child.kill()
        child.wait()


@posix
def test_a_signal_handled_in_another_thread_ends_a_read_of_a_silent_pipe(tmp_path: Path) -> None:
    fifo = tmp_path / "silent"
    os.mkfifo(fifo)
    child = _nudged("""
        from brett._reading import open_reading
        try:
            with open_reading(sys.argv[1]) as handle:
                handle.read(1 << 20)
        except KeyboardInterrupt:
            sys.exit(130)
        """, str(fifo))
    writer = os.open(fifo, os.O_WRONLY)   # once the child opens it to read
    os.write(writer, b"part of a record\n")
    err = _ended(child, writer)
    assert child.returncode == 130, err


@posix
@pytest.mark.parametrize("command", ["gtp", "nboard", "serve", "play reversi --json"])
def test_a_signal_handled_in_another_thread_ends_an_engine_waiting_on_stdin(
        command: str) -> None:
    silent, writer = os.pipe()   # stdin stays open and silent
    child = _nudged("""
        from brett.frontends.cli import main
        sys.exit(main(sys.argv[1:]))
        """, *command.split(), stdin=silent)
    os.close(silent)
    err = _ended(child, writer)
    assert child.returncode == 130, err
    assert "Traceback" not in err


@posix
def test_a_pipe_reads_as_a_plain_file_does() -> None:
    data = bytes(range(256)) * 1000 + b"\nlast line"
    for method in ("read", "read1", "readall", "readline", "readinto"):
        read, write = os.pipe()
        writer = threading.Thread(target=_write_all, args=(write, data))
        writer.start()   # more than a pipe holds: written while it is read
        with io.BufferedReader(WaitingFile(read)) as handle:
            if method == "readall":
                got = handle.raw.readall()
            elif method == "readinto":
                buffer = bytearray(len(data) + 10)
                got = bytes(buffer[:handle.readinto(buffer)])
                got += handle.read()
            elif method == "readline":
                got = b"".join(iter(handle.readline, b""))
            elif method == "read1":
                got = b"".join(iter(lambda: handle.read1(4096), b""))
            else:
                got = handle.read()
        writer.join()
        assert got == data, method


def _write_all(fd: int, data: bytes) -> None:
    with os.fdopen(fd, "wb") as sink:
        sink.write(data)


def test_a_regular_file_is_read_without_waiting(tmp_path: Path) -> None:
    path = tmp_path / "records.txt"
    path.write_bytes(b"one\ntwo\n")
    with open_reading(path) as handle:
        assert handle.raw._poll is None  # type: ignore[attr-defined]
        assert handle.read() == b"one\ntwo\n"
        assert handle.name == path


@posix
def test_the_wait_ends_at_the_end_of_input(tmp_path: Path) -> None:
    """A pipe whose writer closed is at its end: the poll reports it, the read
    gives nothing, and no round of WAKE seconds is spent per read."""
    read, write = os.pipe()
    os.close(write)
    with io.BufferedReader(WaitingFile(read)) as handle:
        assert handle.read() == b""


def test_stdin_closed_or_replaced_is_read_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", None)
    assert waiting_stdin().read() == b""
    replaced = io.TextIOWrapper(io.BytesIO(b"quit\n"))
    monkeypatch.setattr(sys, "stdin", replaced)
    assert waiting_stdin() is replaced.buffer


@pytest.mark.parametrize("kind", [bytes, str])
def test_bounded_lines_keep_lines_up_to_the_limit_and_skip_longer_ones(kind: type) -> None:
    text = "abcd\n" + "x" * 5 + "\n" + "y" * 100_000 + "\nok\n" + "z" * 9
    source = io.BytesIO(text.encode()) if kind is bytes else io.StringIO(text)
    lines = list(bounded_lines(source, 6))
    expected = ["abcd\n", "xxxxx\n", None, "ok\n", None]
    assert lines == [line if line is None or kind is str else line.encode()
                     for line in expected]
