"""The examples run as their readers run them: a subprocess, from the project."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_train_vector_beats_the_random_player() -> None:
    pytest.importorskip("numpy")
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "train_vector.py"), "--games", "3000",
         "--eval", "600"], capture_output=True, text=True, timeout=300, check=True)
    found = re.search(r"([0-9.]+) before training, ([0-9.]+) after 3000 games", done.stdout)
    assert found, done.stdout + done.stderr
    before, after = map(float, found.groups())
    assert before < 0.55 and after > 0.65, done.stdout
