"""The checkpoint file of a split perft (``brett perft --checkpoint FILE``).

JSON Lines: a header naming the run (game, position, depth, convention) and its
split into subtrees, then one line per finished subtree, appended and put on
disk as it finishes.  Every line carries the CRC-32 of its fields, so an edited
or damaged line is refused instead of silently changing the count.  A write cut
short (a full disk, a crash, a killed process) can only leave a partial last
line without its newline: it is dropped with a message and its subtree runs
again.  The subtrees depend on the split recorded in the header, never on the
number of workers, so a run may resume with any ``--workers``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import zlib
from typing import Any, Optional

from .._files import write_atomic
from ..errors import BrettError

FORMAT = 2
"""The checkpoint format: 2 has a checksum on every line (1, brett 0.2.0 before
it, had none and is refused)."""
MAX_CHECKPOINT = 64 * 2**20
"""The largest checkpoint read (100,000 subtrees take about 6 MB)."""
RUN_FIELDS = ("game", "position", "depth", "count_finished")
HEADER_START = b'{"checkpoint": '
"""How every header line starts (a partial one is recognised by it)."""


def task_digest(tasks: list[tuple[str, int]]) -> str:
    """A short fingerprint of a split (its subtrees' positions and depths)."""
    return hashlib.sha256(json.dumps(tasks).encode("utf-8")).hexdigest()[:16]


def encode(fields: dict[str, Any]) -> str:
    """One line: the fields and the checksum of their canonical JSON."""
    return json.dumps({**fields, "crc": _crc(fields)})


def _crc(fields: dict[str, Any]) -> str:
    canonical = json.dumps(fields, sort_keys=True, separators=(",", ":"))
    return f"{zlib.crc32(canonical.encode('utf-8')):08x}"


def _shown(line: bytes) -> str:
    return repr(line[:60].decode("utf-8", "replace"))


class Checkpoint:
    """What a checkpoint file holds (:attr:`header`, :attr:`done`), and appending to it."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.header: Optional[dict[str, Any]] = None   # None: a new run
        self.done: dict[int, int] = {}                  # subtree -> its count
        self.notes: list[str] = []                      # what was dropped, and why
        self._size = 0       # the bytes of whole lines: where the next line goes
        self._cut = False    # a partial last line is still in the file
        self._fd: Optional[int] = None
        self._read()

    # ---------------------------------------------------------------- reading
    def _fail(self, text: str) -> BrettError:
        return BrettError(f"--checkpoint {self.path}: {text}")

    def _read(self) -> None:
        try:
            with open(self.path, "rb") as handle:
                data = handle.read(MAX_CHECKPOINT + 1)
        except FileNotFoundError:
            return
        except OSError as exc:
            raise self._fail(f"cannot read it: {exc.strerror or exc}") from None
        if len(data) > MAX_CHECKPOINT:
            raise self._fail(f"over {MAX_CHECKPOINT} bytes: not a brett checkpoint")
        *whole, tail = data.split(b"\n")
        self._size = len(data) - len(tail)
        self._cut = bool(tail)
        if tail.strip(b" \t\r\0"):
            ours = any(line.strip() for line in whole)  # a whole header: our file
            if not ours and not HEADER_START.startswith(tail[:len(HEADER_START)]):
                raise self._fail("not a brett checkpoint (one line, without an end)")
            then = "its subtree runs again" if ours else "the run starts afresh"
            self.notes.append(f"--checkpoint {self.path}: line {len(whole) + 1} was cut short "
                              f"(an interrupted write: a full disk, a crash or a killed "
                              f"process) and is dropped; {then}")
        lines = [(number, line) for number, line in enumerate(whole, 1) if line.strip()]
        if lines:
            self.header = self._header(*lines[0])
            for number, line in lines[1:]:
                self._subtree(number, self._decode(number, line))

    def _decode(self, number: int, line: bytes) -> dict[str, Any]:
        try:
            fields = json.loads(line.decode("utf-8"))
        except (ValueError, RecursionError):
            fields = None
        if not isinstance(fields, dict) or "crc" not in fields:
            if number == 1 and isinstance(fields, dict) and "tasks" in fields:
                raise self._fail("made by an older brett, without checksums: delete it "
                                 "to start the run afresh")
            raise self._fail(f"line {number} is not a checkpoint line (damaged or edited): "
                             f"{_shown(line)}; a checkpoint must not be edited, delete it to "
                             f"start afresh")
        crc = fields.pop("crc")
        if crc != _crc(fields):
            raise self._fail(f"line {number} does not match its checksum (damaged or "
                             f"edited): {_shown(line)}; a checkpoint must not be edited, "
                             f"delete it to start afresh")
        return fields

    def _header(self, number: int, line: bytes) -> dict[str, Any]:
        header = self._decode(number, line)
        if header.get("checkpoint") != FORMAT or not all(
                type(header.get(k)) is int and header[k] > 0 for k in ("split", "tasks")):
            raise self._fail(f"line {number} is not a brett checkpoint header (format "
                             f"{FORMAT})")
        return header

    def _subtree(self, number: int, fields: dict[str, Any]) -> None:
        assert self.header is not None
        task, count = fields.get("task"), fields.get("count")
        if not (type(task) is int and 0 <= task < self.header["tasks"]
                and type(count) is int and count >= 0 and set(fields) == {"task", "count"}):
            raise self._fail(f"line {number} is not a finished subtree: {fields!r:.80}")
        if self.done.get(task, count) != count:
            raise self._fail(f"line {number}: subtree {task} is recorded twice with "
                             f"different counts")
        self.done[task] = count

    # ---------------------------------------------------------------- the run
    def begin(self, header: dict[str, Any]) -> None:
        """Start a new checkpoint with ``header``, or check that the one read is
        this very run, split the same way."""
        if self.header is None:
            self._write_header(header)
            return
        run = {k: self.header.get(k) for k in RUN_FIELDS}
        if run != {k: header[k] for k in RUN_FIELDS}:
            raise self._fail(f"belongs to another run: {json.dumps(run)[:200]}")
        if {k: self.header.get(k) for k in header} != header:
            raise self._fail(f"its {self.header['tasks']} subtrees are not the ones this "
                             f"brett makes of the run (written by another version?): "
                             f"delete it to start afresh")

    def _write_header(self, header: dict[str, Any]) -> None:
        data = (encode(header) + "\n").encode("utf-8")
        try:
            write_atomic(self.path, data)  # replaces any partial header line
        except OSError as exc:
            raise self._fail(f"cannot write it: {exc.strerror or exc}") from None
        self.header, self.done = header, {}
        self._size, self._cut = len(data), False

    def record(self, task: int, count: int) -> None:
        """Append a finished subtree, on disk before this returns.  A failed write
        (OSError) leaves the file as it was (its last line whole) where it can."""
        data = (encode({"task": task, "count": count}) + "\n").encode("utf-8")
        fd = self._open()
        try:
            written = 0
            while written < len(data):
                written += os.write(fd, data[written:])
            os.fsync(fd)
        except OSError:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, self._size)
            raise
        self._size += len(data)
        self.done[task] = count

    def _open(self) -> int:
        """The file, opened for appending on the first subtree recorded (a finished
        run's checkpoint may be read-only), without any partial last line."""
        if self._fd is None:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_BINARY", 0))
            if self._cut:
                try:
                    os.ftruncate(fd, self._size)
                except OSError:
                    os.close(fd)
                    raise
                self._cut = False
            self._fd = fd
        return self._fd

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


__all__ = ["FORMAT", "Checkpoint", "encode", "task_digest"]
