"""Shared fixtures: every core test runs on both twins.

``backend`` is "python" (the readable oracle) or "cython".  The compiled twin is
only left out when the run asked for it with BRETT_NO_EXTENSIONS=1; a missing
build otherwise fails the tests instead of hiding behind a skip.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

BACKENDS = ("python", "cython")
REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "data" / "perft" / "reference.json"
LOCAL_REFERENCE = Path(__file__).parent / "data" / "reference.json"


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    if request.param == "cython" and os.environ.get("BRETT_NO_EXTENSIONS"):
        pytest.skip("BRETT_NO_EXTENSIONS=1: this run tests the plain-Python twin only")
    return str(request.param)


def reference_vectors(game: str) -> list[dict[str, Any]]:
    """The vectors of ``../shared/data/perft/reference.json`` for one game.

    tests/data/reference.json is a verbatim copy so the suite also runs from an
    sdist; a test checks that the two agree whenever the shared file is present.
    """
    path = REFERENCE if REFERENCE.exists() else LOCAL_REFERENCE
    data = json.loads(path.read_text())
    return [v for v in data["vectors"] if v["game"] == game]
