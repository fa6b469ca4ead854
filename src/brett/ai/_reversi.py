"""brett's strongest Reversi player: :class:`ReversiPlayer`, alpha-beta over a pattern
evaluation learned from the WTHOR archive, and an exact endgame solver near the end.

>>> import brett
>>> from brett.ai import ReversiPlayer
>>> game = brett.Reversi()
>>> move = ReversiPlayer(seconds=0.05).choose(game)
>>> move in game.legal_moves
True

The search runs in C (``ext/brett_eval.h`` through ``_core/_alphabeta_c.pyx``)
without the GIL; the plain-Python twin (``_core/_alphabeta_py.py``) plays on the
plain cores, slowly.  See docs/ai.md ("Reversi: patterns and search").
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from typing import Any, Optional

from .._checks import as_int
from .._core._stop import check as stop_check
from ..errors import BrettError
from ..game import Game, load_cores
from ._base import MoveStats, Player, _positive

__all__ = ["ReversiPlayer", "ReversiSearchInfo"]

_alphabeta = load_cores("alphabeta")

SOFT_SHARE = 0.45
"""No new midgame iteration starts after this share of the time (the next one
would rarely end in time)."""
SOLVE_AT_ONE_SECOND = 18
"""Empty squares the exact solver is tried at with one second; each factor of
about 2.7 in time adds one."""


@dataclass(frozen=True)
class ReversiSearchInfo:
    """What the last search of a :class:`ReversiPlayer` did: its depth (the number of
    empty squares when ``exact``), its score in discs for the player to move (exact
    when ``exact``), the nodes searched and the time."""

    depth: int
    score: float
    exact: bool
    nodes: int
    seconds: float
    interrupted: bool
    threads: int = 1

    @property
    def iterations(self) -> int:
        """The nodes, for code written for MCTSPlayer's SearchInfo."""
        return self.nodes


class _Pool:
    """Evaluators (each a copy of the weights and two hash tables) reused from
    player to player: a frontend makes a player per move."""

    def __init__(self) -> None:
        self._free: dict[str, list[Any]] = {}
        self._lock = threading.Lock()

    def take(self, backend: str) -> Any:
        with self._lock:
            free = self._free.setdefault(backend, [])
            if free:
                return free.pop()
        module = _alphabeta.get(backend)
        return module.Evaluator(_alphabeta.python.weights())

    def give(self, backend: str, evaluator: Any) -> None:
        with self._lock:
            free = self._free.setdefault(backend, [])
            if len(free) < 2:
                free.append(evaluator)


_POOL = _Pool()


def solve_empties(seconds: float) -> int:
    """The empty squares at which the exact solver is tried with ``seconds`` a move."""
    return max(8, min(26, SOLVE_AT_ONE_SECOND + math.floor(math.log(seconds) / math.log(2.7))))


class ReversiPlayer(Player):
    """Alpha-beta over learned patterns for standard 8x8 Reversi:
    ``ReversiPlayer(seconds=1.0, depth=None, seed=None)``.

    ``seconds`` bounds a move's search (wall time); ``depth`` caps the midgame
    search (placements ahead; with ``depth`` alone the search has no time limit and
    is reproducible).  ``seed`` is accepted for the players' common signature: the
    search has no randomness.  Other boards (sizes, holes, the octagon) and
    anti-Reversi raise :class:`~brett.BrettError`: :class:`~brett.ai.MCTSPlayer` plays
    them."""

    def __init__(self, seconds: Optional[float] = None, depth: Optional[int] = None,
                 seed: Optional[int] = None) -> None:

        if seconds is None and depth is None:
            seconds = 1.0
        self.seconds = None if seconds is None else _positive(seconds, "seconds")
        self.depth = None if depth is None else as_int(depth, "depth", 1, 60)
        self.seed = seed
        self._busy = threading.Lock()
        self._evaluator: Any = None
        self.last_search: Optional[ReversiSearchInfo] = None

    def __repr__(self) -> str:
        return f"ReversiPlayer(seconds={self.seconds}, depth={self.depth})"

    @staticmethod
    def _board(game: Any) -> tuple[int, int]:
        game = Player._check(game)
        from ..reversi import Reversi

        if not isinstance(game, Reversi):
            raise BrettError(f"ReversiPlayer plays Reversi, not {game.game_name}: "
                             "use MCTSPlayer")
        n, black, white, blocked, player = game._core.get_state()
        if n != 8 or blocked or game.anti:
            raise BrettError("ReversiPlayer plays standard 8x8 Reversi only (no holes, "
                             "octagon or anti-Reversi): use MCTSPlayer")
        return (black, white) if player == 0 else (white, black)

    def choose(self, game: Game[Any]) -> Any:
        """The best move for the player to move (the game is not changed)."""
        return self._search(game)[0].move

    def analyse(self, game: Game[Any]) -> list[MoveStats[Any]]:
        """The best move, as a one-line list like MCTSPlayer's: ``visits`` the nodes
        searched, ``value`` the score put on 0..1 (0.5 + discs / 128)."""
        return self._search(game)

    def stop(self) -> None:
        """End the running search (from any thread); it returns its best move so far."""
        evaluator = self._evaluator
        if evaluator is not None:
            evaluator.stop()

    def _search(self, game: Game[Any]) -> list[MoveStats[Any]]:
        p, o = self._board(game)
        if not self._busy.acquire(blocking=False):
            raise BrettError("this ReversiPlayer is searching in another thread: "
                             "give each thread its own player")
        try:
            return self._run(game, p, o)
        finally:
            self._busy.release()

    def _run(self, game: Game[Any], p: int, o: int) -> list[MoveStats[Any]]:
        start = time.perf_counter()
        legal = list(game.legal_moves)
        if len(legal) == 1:  # a forced move or pass: nothing to search
            self.last_search = ReversiSearchInfo(0, 0.0, False, 0, 0.0, False)
            return [MoveStats(legal[0], 0, 0.5)]
        backend = game.backend()
        evaluator = _POOL.take(backend)
        self._evaluator = evaluator
        try:
            seconds = self.seconds or 0.0
            solve = solve_empties(seconds) if seconds else 60
            if self.depth is not None and not seconds:
                solve = 0
            move, score, depth, exact, _, nodes, why = evaluator.think(
                p, o, seconds=max(seconds - 0.01, 0.001) if seconds else 0.0,
                depth=self.depth or 60, solve=solve,
                soft=seconds * SOFT_SHARE if seconds else 0.0)
        finally:
            self._evaluator = None
            _POOL.give(backend, evaluator)
        stop_check()  # a Stopper of this thread: Stopped, as every long call
        elapsed = time.perf_counter() - start
        scale = evaluator.weights.scale
        self.last_search = ReversiSearchInfo(depth, score / scale, exact, nodes, elapsed,
                                             why in ("stop", "interrupt"))
        chosen = game._move_from_core(move)
        value = min(1.0, max(0.0, 0.5 + score / scale / 128))
        return [MoveStats(chosen, nodes, value)]
