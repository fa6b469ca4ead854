"""The Monte Carlo tree search for every game: :class:`MCTSPlayer` (an example of
its use is :mod:`brett.ai`'s).

:class:`MCTSPlayer` is a Monte Carlo tree search (UCT with random playouts) that
runs inside the compiled core without the GIL; one implementation serves every
game through the core's search protocol (``brett/_core/_search_c.pyx``, its
plain-Python twin ``_search_py.py``).  How it treats each game:

* **Values.**  A playout or a finished game counts 1 for each winner, 0 for each
  loser, 0.5 for everyone after a draw or a playout cut by ``max_plies``; every
  node maximises the value of the player who moves there, so 3 and 4 players
  work as 2 do, and Focus partners (who win together) share their value.
* **Chance** (Schuft's rolls): an iteration draws the outcome by its
  probability (sampling, not expanding every roll by weight).  At a chance node
  :meth:`~MCTSPlayer.choose` returns an outcome drawn by its probability.
* **Phutball** is searched step by step: a ball move is a chain of jump steps
  and a *stop*, so a position with millions of paths has at most eight jumps to
  choose from at each step.  Placements are pruned to the neighbourhood of the
  play: empty points within two points (Chebyshev distance) of the ball or next
  to a man; all placements are kept when that leaves none and the ball cannot
  jump.
* **Budgets.**  ``iterations`` and/or ``seconds`` (wall time; the search stops at
  whichever comes first; 1 second when neither is given).  With ``threads=N``
  the search runs N independent trees in parallel (root parallelism) and adds
  their root statistics; each tree does its share of ``iterations``.  A seeded
  search with an ``iterations`` budget is reproducible (for any ``threads``).
* **Stopping.**  :meth:`~MCTSPlayer.stop` (from any thread) or Ctrl-C ends a
  search at once; it returns the best move found so far.  A
  :class:`~brett.Stopper` that the searching thread holds ends it too, and the
  call raises :class:`~brett.Stopped`, as every long brett call does.  Every tree completes
  at least one iteration, so a search always has a move to return, whatever
  stopped it.  :attr:`~MCTSPlayer.last_search` tells whether a search was
  interrupted.
* **Memory** is bounded by ``max_nodes`` per tree (56 bytes a node), besides
  the root's children, which are always created; a full tree keeps searching
  from its leaves without growing.
"""

from __future__ import annotations

import random
import threading
import time
from typing import Any, Optional

from .._checks import as_int, optional_cap, seed_value
from .._core import CHANCE
from .._core._rng import SplitMix64
from .._core._stop import check as stop_check
from .._core._stop import requested as stop_requested
from ..errors import BrettError
from ..game import Game, load_cores
from ._base import MoveStats, MoveT, Player, SearchInfo, _positive

_search = load_cores("search")

# MCTSPlayer.level(n): (iterations, seconds) per level (documented as brett.ai.LEVELS)
LEVELS: dict[int, tuple[int, float]] = {
    1: (10, 0.05), 2: (30, 0.1), 3: (100, 0.2), 4: (300, 0.3), 5: (1000, 0.5),
    6: (3000, 1.0), 7: (10_000, 2.0), 8: (30_000, 4.0), 9: (100_000, 8.0),
    10: (300_000, 15.0),
}

MAX_THREADS = 256
POLL = 0.002   # seconds between two looks at the workers (the time budget's grain)
MAX_NODES = 50_000_000


class MCTSPlayer(Player):
    """Monte Carlo tree search: ``MCTSPlayer(seconds=None, iterations=None,
    seed=None, threads=1, exploration=1.0, max_plies=None, max_nodes=2_000_000,
    exact=True)``.  See the module's documentation for how it searches; with
    ``exact`` it plays positions whose answer the game knows without a search
    (Schuft's last three pieces: the endgame tables) from that answer."""

    def __init__(self, seconds: Optional[float] = None, iterations: Optional[int] = None,
                 seed: Optional[int] = None, threads: int = 1, exploration: float = 1.0,
                 max_plies: Optional[int] = None, max_nodes: int = 2_000_000,
                 exact: bool = True) -> None:
        if seconds is None and iterations is None:
            seconds = 1.0
        self.seconds = None if seconds is None else _positive(seconds, "seconds")
        self.iterations = (None if iterations is None
                           else as_int(iterations, "iterations", 1, 2**31 - 1))
        self.threads = as_int(threads, "threads", 1, MAX_THREADS)
        self.exploration = _positive(exploration, "exploration", zero=True)
        self.max_plies = optional_cap(max_plies, error=BrettError)
        self.max_nodes = as_int(max_nodes, "max_nodes", 1, MAX_NODES)
        if not isinstance(exact, bool):
            raise BrettError(f"exact: True or False, not {exact!r}")
        self.exact = exact
        self._seeds = random.Random(seed_value(seed))
        self._seed_lock = threading.Lock()
        self._busy = threading.Lock()
        self._stop: Any = None
        self._running: Optional[tuple[list[Any], float]] = None  # trees, start
        self.last_search: Optional[SearchInfo] = None
        self.total_iterations = 0
        """Iterations of every search of this player (with :attr:`total_seconds`,
        its wall time: their ratio is the player's speed over a whole game)."""
        self.total_seconds = 0.0

    @classmethod
    def level(cls, n: int, seed: Optional[int] = None, threads: int = 1) -> MCTSPlayer:
        """A player of strength ``n`` (1 weakest .. 10 strongest), see :data:`LEVELS`."""
        iterations, seconds = LEVELS[as_int(n, "level", 1, 10)]
        return cls(seconds=seconds, iterations=iterations, seed=seed, threads=threads)

    def __repr__(self) -> str:
        return (f"MCTSPlayer(seconds={self.seconds}, iterations={self.iterations}, "
                f"threads={self.threads})")

    # ---- public
    def choose(self, game: Game[MoveT]) -> MoveT:
        """The best move for the player to move (the game is not changed)."""
        game = self._check(game)
        if game._core.player() == CHANCE:
            cm, _ = game._core.random_move(self._next_seed())
            return game._move_from_core(cm)  # type: ignore[no-any-return]
        return self._search(game)[0].move  # type: ignore[no-any-return]

    def analyse(self, game: Game[MoveT]) -> list[MoveStats[MoveT]]:
        """Every move the search tried, best first (most visits, then mean value)."""
        game = self._check(game)
        if game._core.player() == CHANCE:
            raise BrettError("a chance node: the dice decide, there is nothing to analyse")
        return self._search(game)

    def stop(self) -> None:
        """End the running search (from any thread); it returns its best move so far."""
        flag = self._stop
        if flag is not None:
            flag.set()

    def progress(self) -> Optional[tuple[int, float]]:
        """``(iterations, seconds)`` of the search running now (from any thread),
        or None when none runs."""
        running = self._running
        if running is None:
            return None
        trees, start = running
        return sum(tree.iterations for tree in trees), time.perf_counter() - start

    # ---- the search
    def _next_seed(self) -> int:
        with self._seed_lock:
            return self._seeds.getrandbits(64)

    def _search(self, game: Game[Any]) -> list[MoveStats[Any]]:
        if not self._busy.acquire(blocking=False):
            raise BrettError("this MCTSPlayer is searching in another thread: "
                             "give each thread its own player")
        try:
            exact = game._exact_moves() if self.exact else None
            return self._run(game) if exact is None else self._exact(exact)
        finally:
            self._stop = None
            self._busy.release()

    def _exact(self, moves: list[tuple[Any, float]]) -> list[MoveStats[Any]]:
        """The game's exact answer (Schuft's endgame tables), as a search's."""
        self.last_search = SearchInfo(0, 0.0, 0, self.threads, False)
        return [MoveStats(move, 0, 1.0 / (1.0 + turns), turns) for move, turns in moves]

    def _run(self, game: Game[Any]) -> list[MoveStats[Any]]:
        module = _search.get(game.backend())
        stop = module.StopFlag()
        self._stop = stop
        seeds = SplitMix64(self._next_seed())
        plies = self.max_plies if self.max_plies >= 0 else game._search_plies
        trees = [module.Tree(game._core.clone(False), seeds.next(), self.exploration,
                             plies, self.max_nodes) for _ in range(self.threads)]
        shares = _shares(self.iterations, self.threads)
        errors: list[BaseException] = []
        start = time.perf_counter()
        self._running = (trees, start)
        done = [threading.Event() for _ in trees]
        workers = [threading.Thread(target=_work, args=(tree, share, stop, errors, finished),
                                    daemon=True, name=f"brett-mcts-{i}")
                   for i, (tree, share, finished)
                   in enumerate(zip(trees, shares, done, strict=True))]
        try:
            for worker in workers:
                worker.start()
            interrupted = self._wait(workers, done, stop, start)
        finally:
            stop.set()  # a Ctrl-C before the wait: no worker may search on
            self._running = None
        elapsed = time.perf_counter() - start
        for worker in workers:  # each is past its search: this only reaps the thread
            worker.join()
        if errors:
            raise errors[0]
        stop_check()  # a Stopper of this thread ended the search: Stopped, as every call
        total = sum(tree.iterations for tree in trees)
        self.total_iterations += total
        self.total_seconds += elapsed
        self.last_search = SearchInfo(total, elapsed, sum(tree.size for tree in trees),
                                      self.threads, interrupted)
        return _statistics(game, trees)  # a tree with a share did an iteration: never empty

    def _wait(self, workers: list[threading.Thread], done: list[threading.Event], stop: Any,
              start: float) -> bool:
        """Wait for the workers until the time budget; True if Ctrl-C or stop() ended them.

        Polls each worker's ``done`` flag with short sleeps and takes no lock: a
        Ctrl-C can land anywhere in this loop, and one that interrupts a lock
        operation (``Thread.join``, ``Event.wait``) can leave the lock or the
        thread's state broken before Python 3.13 (python/cpython#90882), so that
        the trees would be read while still searched, or a worker's ``set()`` wait
        forever."""
        deadline = None if self.seconds is None else start + self.seconds
        interrupted = False
        try:
            for worker, finished in zip(workers, done, strict=True):
                while not finished.is_set() and worker.is_alive():
                    if (deadline is not None and time.perf_counter() >= deadline) \
                            or stop_requested():
                        stop.set()
                    time.sleep(POLL)
        except KeyboardInterrupt:
            interrupted = True
            stop.set()
            for worker, finished in zip(workers, done, strict=True):
                while not finished.is_set() and worker.is_alive():
                    time.sleep(POLL)
        timed_out = deadline is not None and time.perf_counter() >= deadline
        return interrupted or (stop.is_set() and not timed_out)


def _shares(iterations: Optional[int], threads: int) -> list[int]:
    """Each tree's part of the iteration budget (-1: until stopped)."""
    if iterations is None:
        return [-1] * threads
    return [iterations // threads + (i < iterations % threads) for i in range(threads)]


def _work(tree: Any, iterations: int, stop: Any, errors: list[BaseException],
          done: threading.Event) -> None:
    try:
        if iterations != 0:
            tree.run(iterations, stop)
    except BaseException as error:  # handed to the searching thread
        errors.append(error)
        stop.set()
    finally:
        done.set()


def _statistics(game: Game[Any], trees: list[Any]) -> list[MoveStats[Any]]:
    """The root's moves over all trees, best first; each move completed along the
    most visited steps (a Phutball jump chain) of the tree that tried it most."""
    roots = [tree.root() for tree in trees]
    grown = [t for t, root in enumerate(roots) if root]  # a tree without an iteration has none
    rows = []
    for i in range(len(roots[grown[0]]) if grown else 0):
        visits = sum(roots[t][i][1] for t in grown)
        value = sum(roots[t][i][2] for t in grown)
        if visits:
            best = max(grown, key=lambda t: roots[t][i][1])
            steps = _continuation(trees[best], roots[best][i])
            rows.append((visits, value, i, game._search_move(steps)))
    # Root actions that complete to one move (a Schuft turn's steps in another
    # order) make one row: their visits and values added.
    merged: dict[str, list[Any]] = {}
    for visits, value, i, move in rows:
        row = merged.setdefault(str(move), [0, 0.0, i, move])
        row[0] += visits
        row[1] += value
    ranked = sorted(merged.values(), key=lambda row: (-row[0], -row[1] / row[0], row[2]))
    return [MoveStats(move, visits, value / visits) for visits, value, _, move in ranked]


def _continuation(tree: Any, row: tuple[Any, ...]) -> list[int]:
    """The actions of one move: ``row``'s action, then while the mover is still in
    the middle of the move, the most visited next step."""
    steps = [int(row[0])]
    while row[3] == 1:
        children = [c for c in tree.children(row[4]) if c[1] > 0]
        if not children:
            break
        row = max(children, key=lambda c: (c[1], c[2] / c[1]))
        steps.append(int(row[0]))
    return steps


