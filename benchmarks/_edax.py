"""Edax as a peer of the benchmarks: one of its tables by depth (``perft`` or
``count games``), read from its shell.  Edax is built by you from its public
source; it reads data/eval.dat from the binary's folder or the one above it."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path


def edax_count(binary: Path, command: str, depth: int, *options: str) -> tuple[int, float]:
    """Edax's ``command depth`` (``perft`` or ``count games``) from the start:
    (the count at ``depth``, Edax's own CPU seconds for that depth)."""
    home = next((d for d in (binary.parent, binary.parent.parent)
                 if (d / "data" / "eval.dat").exists()), binary.parent)
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
