"""The core subset that .ci/platforms runs under emulation names tests that exist.

pytest fails on a path or node id that is gone, but ignores a ``--deselect`` that
matches nothing: a renamed test would then run again under emulation, unnoticed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SUBSET = ROOT / ".ci" / "platform-tests.txt"
pytestmark = pytest.mark.skipif(not SUBSET.exists(),
                                reason="needs the source checkout (.ci is not in the sdist)")


def subset_arguments() -> list[str]:
    lines = (line.split("#", 1)[0].strip() for line in SUBSET.read_text().splitlines())
    return [line for line in lines if line]


def collect(arguments: list[str]) -> set[str]:
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0",
                           "-p", "no:cacheprovider", *arguments],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return {line for line in done.stdout.splitlines() if "::" in line}


def test_the_subset_names_tests_that_exist_and_every_deselection_matches() -> None:
    arguments = subset_arguments()
    selected = [a for a in arguments if not a.startswith("-")]
    deselected = [a.removeprefix("--deselect=") for a in arguments if a.startswith("--deselect=")]
    assert selected and deselected
    assert all(a.startswith(("--deselect=", "tests/")) for a in arguments), arguments
    chosen = collect(selected)
    for prefix in deselected:
        assert any(test.startswith(prefix) for test in chosen), f"{prefix} matches no test"
    kept = collect(arguments)
    assert kept < chosen and len(kept) >= 1000
    # both twins of most tests
    assert sum("python" in test for test in kept) >= 500
    assert sum("cython" in test for test in kept) >= 500
