"""Other programs the engine tests meet, and a line-by-line client of a process.

A peer is found on PATH or in /usr/games (where Debian puts gtp-rhino and
quarry).  A test that needs a missing peer skips and names the Debian package;
with BRETT_REQUIRE_PEERS=1 (CI) it fails instead.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from typing import Any, Optional

import pytest

PACKAGES = {"gtp-rhino": "grhino", "quarry": "quarry", "Xvfb": "xvfb", "xdotool": "xdotool",
            "import": "imagemagick", "convert": "imagemagick", "gcc": "gcc",
            "clang": "clang", "x86_64-w64-mingw32-gcc": "mingw-w64", "wine": "wine"}
"""Each peer's Debian package."""
ANSWER_SECONDS = 120.0
"""The longest wait for one answer: generous, the machine may be busy."""


def peer(name: str) -> str:
    """The path of a peer program, or a skip (a failure under BRETT_REQUIRE_PEERS=1)."""
    found = shutil.which(name) or shutil.which(name, path="/usr/games")
    if found:
        return found
    message = (f"PEER MISSING: {name} is not installed (Debian: apt-get install "
               f"{PACKAGES.get(name, name)}); set BRETT_REQUIRE_PEERS=1 to fail instead")
    if os.environ.get("BRETT_REQUIRE_PEERS") == "1":
        pytest.fail(message)
    pytest.skip(message)


def brett_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "brett", *args]


class LineProcess:
    """A subprocess spoken to line by line; its output read by a thread, so every
    read has a timeout."""

    def __init__(self, argv: list[str], **kwargs: Any) -> None:
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, **kwargs)
        self.lines: queue.Queue[Optional[bytes]] = queue.Queue()
        self.errors: list[bytes] = []
        self.pumps = [threading.Thread(target=self._pump, args=(stream, put), daemon=True)
                      for stream, put in ((self.proc.stdout, self.lines.put),
                                          (self.proc.stderr, self.errors.append))]
        for pump in self.pumps:
            pump.start()

    @staticmethod
    def _pump(stream: Any, put: Any) -> None:
        for line in iter(stream.readline, b""):
            put(line)
        put(None)

    def send(self, line: str | bytes) -> None:
        raw = line if isinstance(line, bytes) else line.encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(raw + b"\n")
        self.proc.stdin.flush()

    def read_line(self, timeout: float = ANSWER_SECONDS) -> str:
        line = self.lines.get(timeout=timeout)
        assert line is not None, f"the process ended: {self.stderr()}"
        return line.decode("utf-8", "replace").rstrip("\r\n")

    def stderr(self) -> str:
        """The error output read so far (by a thread: it may lag the answers on
        stdout; see :meth:`stderr_with`)."""
        return b"".join(e for e in self.errors if e).decode("utf-8", "replace")

    def stderr_with(self, text: str, timeout: float = ANSWER_SECONDS) -> str:
        """The error output once it holds ``text``, or as it is after ``timeout``."""
        deadline = time.monotonic() + timeout
        while text not in (seen := self.stderr()) and time.monotonic() < deadline:
            time.sleep(0.01)
        return seen

    def close(self, timeout: float = 30) -> int:
        """Close its input and wait for it to end (killed after ``timeout``), and
        for its output to be read to the end."""
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise
        for pump in self.pumps:
            pump.join(timeout)
        return code

    def __enter__(self) -> LineProcess:
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


class GtpClient(LineProcess):
    """A GTP controller: ``ask`` sends a command and returns (success, text)."""

    def ask(self, command: str | bytes, timeout: float = ANSWER_SECONDS) -> tuple[bool, str]:
        self.send(command)
        return self.answer(timeout)

    def answer(self, timeout: float = ANSWER_SECONDS) -> tuple[bool, str]:
        lines = [self.read_line(timeout)]
        while lines[-1] != "":
            lines.append(self.read_line(timeout))
        text = "\n".join(lines[:-1])
        assert text[:1] in "=?", f"not a GTP answer: {text!r}"
        return text.startswith("="), text[1:].strip() if text[1:2] in (" ", "") else text

    def ok(self, command: str, timeout: float = ANSWER_SECONDS) -> str:
        success, text = self.ask(command, timeout)
        assert success, f"{command!r} failed: {text}"
        return text
