"""brett.Stopper ends every long call, on every game and both cores.

A call runs in a thread holding a Stopper; the test stops it while it runs and
checks that it ends with ``brett.Stopped``, soon, leaving the game unchanged.
"Soon" is measured as the CPU time the stopped thread still spends (Linux and
the BSDs: ``pthread_getcpuclockid``), which a busy machine cannot inflate; the
bound is generous (the goal, 0.1 s, is checked by measurement:
docs/architecture.md, "Threads, Ctrl-C and limits").  Ctrl-C, which reaches the
main thread, goes through the same polls: test_reliability.py.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, Optional

import pytest

import brett
from brett.ai import MCTSPlayer

pytestmark = pytest.mark.timing  # every test here bounds how long a stop takes

# Where a node is costly or there are very many of them.
LATTICE_7x7 = "1O1O1O1/OOOOOOO/1O1O1O1/OOOOOOO/1O1O*O1/OOOOOOO/1O1O1O1 0 7x7"
LATTICE_9x9 = ("1O1O1O1O1/OOOOOOOOO/1O1O1O1O1/OOOOOOOOO/1O1O*O1O1/OOOOOOOOO/"
               "1O1O1O1O1/OOOOOOOOO/1O1O1O1O1 0 9x9")
SCHUFT_ROLLED = ("r1,.,g1,.,r1,.,g1,.,r1,.,g1,.,r1,.,g1,.,r1,.,g1,.,r1,.,g1,.,r1,.,g1,.,r1,.,"
                 "g1,.,r1,.,g1,./.........,........./0,0/r/5-8-2/0/-")
"""Schuft(players=2) after the roll 5-8-2: a decision for a search to make."""
TALL_STACKS = ("grgrg,.,rgrgr,./.,grgrg,.,rgrgr,.,grgrg/rgrgr,.,grgrg,.,rgrgr,.,grgrg,./"
               ".,rgrgr,.,grgrg,.,rgrgr,.,grgrg/rgrgr,.,grgrg,.,rgrgr,.,grgrg,./"
               ".,rgrgr,.,grgrg,.,rgrgr,.,./.,.,.,.,.,./.,.,.,. r 0,0 -,-")

GAMES: dict[str, tuple[str, dict[str, Any], Optional[str]]] = {
    # name: (game, options, position)
    "reversi": ("reversi", {}, None),
    "reversi-16": ("reversi", {"size": 16}, None),
    "focus": ("focus", {}, None),
    "focus-stacks": ("focus", {}, TALL_STACKS),
    "focus-4": ("focus", {"players": 4, "teams": False}, None),
    "phutball": ("phutball", {}, None),
    "phutball-25": ("phutball", {"columns": 25, "rows": 25}, None),
    "phutball-lattice-7": ("phutball", {}, LATTICE_7x7),
    "phutball-lattice-9": ("phutball", {}, LATTICE_9x9),
    "schuft": ("schuft", {"players": 2, "seed": 1}, None),
    "schuft-4": ("schuft", {"players": 4, "seed": 1}, None),
    "schuft-rolled": ("schuft", {}, SCHUFT_ROLLED),
}

CALLS: dict[str, Callable[[Any], Any]] = {
    "perft": lambda game: game.perft(100),
    "perft(1)": lambda game: game.perft(1),
    "perft(2)": lambda game: game.perft(2),
    "divide": lambda game: game.divide(100),
    "divide(1)": lambda game: game.divide(1),
    "count": lambda game: game.legal_moves.count(),
    "list(legal_moves)": lambda game: list(game.legal_moves),
    "random_playouts": lambda game: game.random_playouts(10**12),
    "perft_tasks": lambda game: game.perft_tasks(100, tasks=100_000),
    "perft(hash)": lambda game: game.perft(100, hash_mb=8, symmetric=True),
    "divide(hash)": lambda game: game.divide(100, hash_mb=8),
    "perft(threads)": lambda game: game.perft(100, hash_mb=8, symmetric=True, threads=2),
    "mcts": lambda game: MCTSPlayer(seconds=600, seed=1).choose(game),
}

CASES = [
    *[(name, call) for name in GAMES if "lattice" not in name and name != "schuft-rolled"
      for call in ("perft", "divide", "random_playouts")],
    *[(name, "perft_tasks") for name in ("reversi", "focus", "phutball", "schuft")],
    *[("reversi", call) for call in ("perft(hash)", "divide(hash)", "perft(threads)")],
    *[(name, "mcts") for name in ("reversi", "phutball", "schuft-rolled")],
    # the jump paths of a lattice: more than any machine can walk
    *[("phutball-lattice-9", call) for call in ("perft(1)", "divide(1)", "count",
                                                "list(legal_moves)")],
    *[("phutball-lattice-7", call) for call in ("perft(2)", "divide")],
]

CPU_BOUND = 1.0
"""Seconds of CPU the stopped thread may still use (measured: under 0.1)."""


def make_game(name: str, backend: str) -> Any:
    game, options, position = GAMES[name]
    cls = brett.GAMES[game].twin(backend)
    return cls.from_position(position) if position else cls(**options)


def thread_cpu_clock() -> Optional[int]:
    """This thread's CPU clock, readable from other threads (None where there is none)."""
    try:
        return time.pthread_getcpuclockid(threading.get_ident())
    except (AttributeError, OSError):
        return None


class Stopping:
    """Runs ``call`` in a thread that holds a Stopper; :meth:`stop` stops it and
    measures how long it ran on, in wall time and in the thread's CPU time."""

    def __init__(self, call: Callable[[], Any]) -> None:
        self.stopper = brett.Stopper()
        self.call = call
        self.error: Optional[BaseException] = None
        self.ended = self.cpu_end = 0.0
        self.clock: Optional[int] = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        self.clock = thread_cpu_clock()
        with self.stopper:
            try:
                self.call()
            except BaseException as exc:  # handed to the test
                self.error = exc
        self.ended = time.perf_counter()
        self.cpu_end = time.thread_time()

    def stop(self, after: float) -> tuple[float, Optional[float]]:
        """Stop after ``after`` seconds: (wall seconds, CPU seconds or None) to the end."""
        self.thread.join(after)
        assert self.thread.is_alive(), f"the call ended by itself within {after} s"
        cpu = time.clock_gettime(self.clock) if self.clock is not None else None
        stopped = time.perf_counter()
        self.stopper.stop()
        self.thread.join(60)
        assert not self.thread.is_alive(), "still running 60 s after stop()"
        wall = self.ended - stopped
        return wall, (None if cpu is None else self.cpu_end - cpu)


@pytest.mark.parametrize(("name", "call"), CASES, ids=[f"{n}-{c}" for n, c in CASES])
def test_a_stopper_ends_every_long_call_soon(name: str, call: str, backend: str) -> None:
    game = make_game(name, backend)
    before = (game.position(), hash(game), len(game.move_stack))
    run = Stopping(lambda: CALLS[call](game))
    wall, cpu = run.stop(after=0.4)
    assert isinstance(run.error, brett.Stopped), run.error
    if cpu is not None:
        assert cpu < CPU_BOUND, f"ran on for {cpu:.3f} s of CPU ({wall:.3f} s) after stop()"
    assert wall < 10 * CPU_BOUND, f"ran on for {wall:.3f} s after stop()"
    assert (game.position(), hash(game), len(game.move_stack)) == before


@pytest.mark.parametrize("name", ["reversi", "focus-4", "phutball", "schuft-4"])
def test_a_stopped_stopper_ends_calls_at_once_and_changes_nothing(name: str,
                                                                   backend: str) -> None:
    """With the stopper already stopped, every long call ends at its first poll,
    random_playout included (the moves it made are taken back)."""
    game = make_game(name, backend)
    before = (game.position(), hash(game), len(game.move_stack))
    stopper = brett.Stopper()
    stopper.stop()
    calls = [CALLS[c] for c in ("perft", "divide", "random_playouts", "perft_tasks")]
    calls.append(lambda g: [g.random_playout(seed=s) for s in range(10**6)])
    with stopper:
        for call in calls:
            with pytest.raises(brett.Stopped):
                call(game)
            assert (game.position(), hash(game), len(game.move_stack)) == before


class StopAfter:
    """A core stand-in that stops ``stopper`` after ``moves`` random moves."""

    def __init__(self, core: Any, stopper: brett.Stopper, moves: int) -> None:
        self._core, self._stopper, self._left = core, stopper, moves

    def random_move(self, rng: int) -> Any:
        self._left -= 1
        if self._left == 0:
            self._stopper.stop()
        return self._core.random_move(rng)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._core, name)


@pytest.mark.parametrize("name", ["reversi", "focus", "phutball", "schuft"])
def test_a_stopped_random_playout_takes_its_moves_back(name: str, backend: str) -> None:
    game = make_game(name, backend)
    before = (game.position(), hash(game), game.move_stack)
    stopper = brett.Stopper()
    game._core = StopAfter(game._core, stopper, 5)
    with stopper, pytest.raises(brett.Stopped):
        game.random_playout(seed=1)
    assert (game.position(), hash(game), game.move_stack) == before


def test_stoppers_stop_only_the_threads_holding_them(backend: str) -> None:
    """One thread's stopped Stopper leaves another thread's call alone."""
    game = make_game("reversi", backend)
    expected = game.perft(3)
    stopper = brett.Stopper()
    stopper.stop()
    results: list[int] = []
    other = threading.Thread(target=lambda: results.append(game.perft(3)))
    with stopper:
        other.start()
        other.join()
        with pytest.raises(brett.Stopped):
            game.perft(100)
    assert results == [expected]
    assert game.perft(3) == expected  # outside the `with`, nothing is stopped
