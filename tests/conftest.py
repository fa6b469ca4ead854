"""Shared fixtures: every core test runs on both twins.

``backend`` is "python" (the readable oracle) or "cython".  The compiled twin is
only left out when the run asked for it with BRETT_NO_EXTENSIONS=1; a missing
build otherwise fails the tests instead of hiding behind a skip.

``SETUPS`` are the game configurations the shared suites (test_api.py,
test_properties.py, test_reliability.py) run on: every game and its main
options, built through ``brett.GAMES``.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import signal
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import brett

NO_EXTENSIONS = bool(os.environ.get("BRETT_NO_EXTENSIONS"))
needs_cython = pytest.mark.skipif(
    NO_EXTENSIONS, reason="BRETT_NO_EXTENSIONS=1: this run tests the plain-Python twin only")
BACKENDS = ["python", pytest.param("cython", marks=needs_cython)]
"""For ``@pytest.mark.parametrize("backend", BACKENDS)`` (hypothesis tests cannot
take the fixture)."""

REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "data" / "perft" / "reference.json"
LOCAL_REFERENCE = Path(__file__).parent / "data" / "reference.json"

SETUPS: dict[str, tuple[str, dict[str, Any]]] = {
    "reversi": ("reversi", {}),
    "reversi-6-holes": ("reversi", {"size": 6, "holes": ["a1", "f6"]}),
    "reversi-octagon": ("reversi", {"board": "octagon", "handicap": 2}),
    "reversi-12-random-holes": ("reversi", {"size": 12, "holes": "random", "seed": 4}),
    "focus": ("focus", {}),
    "focus-3p": ("focus", {"players": 3}),
    "focus-4p-ffa-up_to": ("focus", {"players": 4, "teams": False, "move_rule": "up_to"}),
    "focus-mirror-swap-cap": ("focus", {"mirror_rule": True, "swap": "random", "seed": 3,
                                        "max_plies": 60, "move_rule": "whole"}),
    "phutball-9x9": ("phutball", {"columns": 9, "rows": 9}),
    "phutball-cap": ("phutball", {"max_plies": 200}),
    "schuft": ("schuft", {"players": 3, "seed": 5}),
    "schuft-4p-roll-off": ("schuft", {"players": 4, "first_player": "roll", "seed": 1,
                                      "max_plies": 40}),
}


@pytest.fixture(scope="session", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(params=sorted(SETUPS))
def make(request: pytest.FixtureRequest, backend: str) -> Callable[[], Any]:
    """A factory of fresh games of one setup on one core."""
    return setup_factory(request.param, backend)


def setup_factory(setup: str, backend: str) -> Callable[[], Any]:
    name, options = SETUPS[setup]
    cls = brett.GAMES[name].twin(backend)
    return lambda: cls(**options)


def random_move(game: Any, rng: random.Random) -> Any:
    """A random legal move through the public API: a chance outcome, or one of
    the first 500 legal moves (a Phutball position can have millions)."""
    if game.is_chance_node():
        return game.action_to_move(rng.choice(game.chance_outcomes())[0])
    moves = list(itertools.islice(game.legal_moves, 500))
    return rng.choice(moves)


def advance(game: Any, plies: int, seed: int, decision: bool = True) -> Any:
    """Play ``plies`` random moves and chance outcomes (public API only) and,
    with ``decision``, stop at a decision node where the game is not over."""
    rng = random.Random(seed)
    for _ in range(plies):
        if game.is_over():
            break
        game.push(random_move(game, rng))
    while decision and game.is_chance_node():
        game.push(random_move(game, rng))
    return game


def in_threads(work: Callable[[int], None], count: int) -> list[BaseException]:
    """Run ``work(i)`` for i in 0..count-1 in as many threads at once, and wait for
    them; what escaped each (a thread's failure must fail the test that started it)."""
    errors: list[BaseException] = []

    def guarded(index: int) -> None:
        try:
            work(index)
        except BaseException as exc:  # handed to the test
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def reference_vectors(game: str) -> list[dict[str, Any]]:
    """The vectors of ``../shared/data/perft/reference.json`` for one game.

    tests/data/reference.json is a verbatim copy so the suite also runs from an
    sdist; a test checks that the two agree whenever the shared file is present.
    """
    path = REFERENCE if REFERENCE.exists() else LOCAL_REFERENCE
    data = json.loads(path.read_text())
    return [v for v in data["vectors"] if v["game"] == game]


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Say loudly which tests did not run and why (the browser, the peer engines,
    atheris: what pip's test extra cannot install), grouped by reason."""
    reasons: dict[str, int] = {}
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        reason = reason.removeprefix("Skipped: ")
        reasons[reason] = reasons.get(reason, 0) + 1
    if not reasons:
        return
    total = sum(reasons.values())
    terminalreporter.write_sep("!", f"{total} tests did not run", yellow=True, bold=True)
    for reason, count in sorted(reasons.items(), key=lambda item: -item[1]):
        terminalreporter.write_line(f"{count:5d}  {reason}", yellow=True)
    terminalreporter.write_line("Install what they name to run them; .ci/run installs "
                                "everything and fails instead of skipping.", bold=True)


def pytest_configure(config: pytest.Config) -> None:
    """Ctrl-C as a terminal's user meets it.  A run started in the background by a
    script without job control (``pytest &`` in a shell script, some CI runners)
    inherits SIGINT ignored, and so would every program the tests start and then
    press Ctrl-C in (they ran on for minutes): here SIGINT raises
    KeyboardInterrupt again, and the programs started, which get a handled
    signal's default on exec, stop on it."""
    if hasattr(signal, "SIGINT") and signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
