"""perft through a table keyed by the whole state (``hash_mb`` on Focus and on
Phutball), on both twins: the plain counts in both conventions whatever the table
keeps, with the table used at every depth or only above the core's own counts;
threads, a pool's kept tables, divide, a Stopper, and the ``brett perft --hash``
command."""

from __future__ import annotations

import concurrent.futures
import subprocess
import sys
import threading
from typing import Any

import pytest

import brett
from brett._core._state_perft import state_key, state_perft, state_table

# name, options or a position string, the deepest depth counted through the table
# at every depth (or on the plain twin), and through the default one, compiled
SETUPS: dict[str, tuple[str, Any, int, int]] = {
    "focus": ("focus", {}, 2, 4),
    "focus-4-free-for-all": ("focus", {"players": 4, "teams": False}, 2, 4),
    "phutball-9x9": ("phutball", {"columns": 9, "rows": 9}, 2, 4),
    # Down can jump over its goal line at once: finished games at every depth
    "phutball-near-the-goal": ("phutball", "9/9/9/9/9/9/9/4*4/4O4 1 9x9", 2, 4),
    "phutball-men": ("phutball", "9/9/9/3OOO3/3O*O3/3OOO3/9/9/9 0 9x9", 2, 3),
}


def _game(name: str, setup: Any, backend: str) -> Any:
    cls = brett.GAMES[name].twin(backend)
    return cls.from_position(setup) if isinstance(setup, str) else cls(**setup)


@pytest.mark.parametrize("leaf", ["every depth", "default"])
@pytest.mark.parametrize("count_finished", [False, True])
@pytest.mark.parametrize("setup", list(SETUPS))
def test_state_table_counts_are_the_plain_counts(backend: str, setup: str,
                                                 count_finished: bool, leaf: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    name, options, small, deep = SETUPS[setup]
    game = _game(name, options, backend)
    if leaf == "every depth":
        monkeypatch.setattr(type(game), "_table_leaf", 0)
    for depth in range(1 + (deep if backend == "cython" and leaf == "default" else small)):
        plain = game.perft(depth, count_finished)
        assert game.perft(depth, count_finished, hash_mb=4) == plain, depth
    assert game.divide(depth, count_finished, hash_mb=4) == game.divide(depth, count_finished)


def test_near_the_goal_the_conventions_differ(backend: str) -> None:
    """The setup above tests both conventions only if finished games are there."""
    game = _game("phutball", SETUPS["phutball-near-the-goal"][1], backend)
    assert game.perft(2, hash_mb=1) == 6248 and game.perft(2, True, hash_mb=1) == 6249


def test_the_table_keeps_what_it_counted_and_stays_exact_when_tiny(backend: str) -> None:
    game = _game("phutball", SETUPS["phutball-men"][1], backend)
    core = game._core
    table = state_table(1 << 20, core)
    count = state_perft(core, 2, False, table, 0)
    assert count == game.perft(2) and table.probe(state_key(core), 2) == count
    assert game._core.get_state() == _game("phutball", SETUPS["phutball-men"][1],
                                           backend)._core.get_state()   # not changed
    one_bucket = state_table(1, core)
    assert state_perft(core, 2, True, one_bucket, 0) == game.perft(2, True)


def test_keys_are_the_states_on_both_twins() -> None:
    for name, options, _, _ in SETUPS.values():
        keys = {state_key(_game(name, options, b)._core) for b in ("python", "cython")}
        assert len(keys) == 1, name
    moved = brett.Focus()
    moved.push(next(iter(moved.legal_moves)))
    assert state_key(moved._core) != state_key(brett.Focus()._core)


def test_threads_and_a_pool_count_through_state_tables(backend: str) -> None:
    game = _game("phutball", {"columns": 9, "rows": 9}, backend)
    depth = 3 if backend == "python" else 5
    plain = game.perft(depth)
    assert game.perft(depth, hash_mb=8, threads=2) == plain
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        assert game.perft(depth, hash_mb=8, executor=pool, tasks=8) == plain
        assert game.perft(depth, True, hash_mb=8, executor=pool, tasks=8) == \
            game.perft(depth, True)


def test_a_stopper_ends_a_state_table_count(backend: str) -> None:
    game = _game("phutball", {"columns": 9, "rows": 9}, backend)
    before = game.position()
    stopper = brett.Stopper()
    timer = threading.Timer(0.05, stopper.stop)
    timer.start()
    try:
        with stopper, pytest.raises(brett.Stopped):
            game.perft(12, hash_mb=8)    # years of counting
    finally:
        timer.cancel()
    assert game.position() == before and game.perft(2, hash_mb=8) == game.perft(2)


def test_the_command_counts_phutball_with_a_table() -> None:
    done = subprocess.run([sys.executable, "-m", "brett", "perft", "phutball", "--columns", "9",
                           "--rows", "9", "--depth", "4", "--hash", "16"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "perft(4) = 38290168" in done.stdout
