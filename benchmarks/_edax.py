"""Edax as a peer of the benchmarks: one of its tables by depth (``perft`` or
``count games``), read from its shell.  Edax is built by you from its public
source; it reads data/eval.dat from the binary's folder or the one above it."""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path


def _home(binary: Path) -> Path:
    """The folder Edax runs in: the one holding data/eval.dat, the binary's or the
    one above it."""
    return next((d for d in (binary.parent, binary.parent.parent)
                 if (d / "data" / "eval.dat").exists()), binary.parent)


def edax_count(binary: Path, command: str, depth: int, *options: str) -> tuple[int, float]:
    """Edax's ``command depth`` (``perft`` or ``count games``) from the start:
    (the count at ``depth``, Edax's own CPU seconds for that depth)."""
    home = _home(binary)
    process = subprocess.Popen([str(binary), "-n", "1", *options], cwd=home,
                               text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
    assert process.stdin and process.stdout
    process.stdin.write(f"{command} {depth}\n")
    process.stdin.flush()                       # Edax reads stdin as it works: keep it
    found = None                                # open until the table is printed
    for line in process.stdout:
        fields = [f.strip() for f in line.split(",")]
        if len(fields) > 7 and fields[0] == str(depth):
            found = fields
        if line.startswith("Total"):
            break
    process.stdin.write("quit\n")
    process.stdin.close()
    process.wait(timeout=30)
    assert found, f"no line for depth {depth} from Edax's {command}"
    minutes, seconds = re.fullmatch(r"(?:(\d+):)?(\d+\.\d+)", found[7]).groups()  # type: ignore[union-attr]
    return int(found[1]), 60 * int(minutes or 0) + float(seconds)


def edax_solve(binary: Path, position: str, seconds: float) -> tuple[int, str, int, float] | None:
    """Edax's exact solve of one position (``-solve`` at level 60, one thread: no
    selective search), in brett's position string: (score, its best move, nodes,
    its own seconds), or None when it has not finished within ``seconds``."""
    home = _home(binary)
    rows, side = position.split()
    board = rows.replace("/", "").upper()
    with tempfile.TemporaryDirectory() as folder:
        problem = Path(folder) / "position.obf"
        problem.write_text(f"{board} {side.upper()};\n")
        try:
            done = subprocess.run([str(binary), "-n", "1", "-l", "60", "-solve", str(problem)],
                                  cwd=home, capture_output=True, text=True, timeout=seconds)
        except subprocess.TimeoutExpired:
            return None
    # " 1|   20   +38        0:00.239      10744741   44957075 a2 B1 c1 ..." (a
    # selective search would say "20@98%" and is not matched)
    row = re.search(r"^\s*1\|\s*(\d+)\s+([+-]\d+)\s+(?:(\d+):)?(\d+):(\d+\.\d+)"
                    r"\s+(\d+)\s+\d+\s+(\S+)", done.stdout, re.MULTILINE)
    assert row, f"no result from Edax's -solve:\n{done.stdout}"
    hours, minutes, secs = row[3], row[4], row[5]
    spent = 3600 * int(hours or 0) + 60 * int(minutes) + float(secs)
    return int(row[2]), row[7].lower(), int(row[6]), spent
