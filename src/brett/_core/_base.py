"""The core protocol, and what every plain-Python core shares.

A *core* holds one game's state and rules; :class:`brett.game.Game` holds a core
(``game._core``) and never re-implements a rule.  Each game has two cores with
the same names and behaviour: a Cython extension type (``_<game>_c.pyx``) and a
plain-Python twin (``_<game>_py.py``), the readable oracle the tests compare
against.  :class:`Core` is the protocol both implement; a test checks every
core against it.

Core moves (``cm``) are small hashable values (ints, or tuples of ints for a
Phutball path), the same on both twins.  The core also keeps the public move
stack (``entries``: the Move objects the game layer pushed), so that a push or
a pop changes the state and the stack in one call: on the compiled core that
call holds the GIL throughout, so two threads cannot leave them out of step.

Thread safety, the contract every core keeps:

* ``perft``, ``playouts``, ``count``, ``iter_moves`` and ``random_move`` never
  change the core: they work on a private copy, so several threads may call
  them on one object (the compiled ones release the GIL while they search).
* a mutation (``push``, ``pop``, ``set_state``) is one atomic call.
* ``enter()`` / ``leave()`` bracket a compound operation of the game layer
  (several calls that must not interleave with another thread's); while one
  thread is inside, a mutation from another thread raises ``BrettError`` (on
  the plain twin a query does too; on the compiled one it runs between two of
  the compound operation's calls).
"""

from __future__ import annotations

import abc
import copy
import threading
from collections.abc import Iterator
from typing import Any, Optional, Protocol, runtime_checkable

from ..errors import BrettError
from . import CHANCE, TERMINAL
from ._perft_table import PerftTable
from ._rng import SplitMix64
from ._stop import check as stop_check

PlayoutResult = tuple[list[int], int, int, int, int]
"""``(wins per player, draws, unfinished, plies, final rng state)``."""


@runtime_checkable
class Core(Protocol):
    """What :class:`brett.game.Game` needs from a core (both twins of every game)."""

    entries: list[Any]
    """The public move stack: what the game layer passed to :meth:`push`, in order."""

    # ---- state
    def set_state(self, state: Any) -> None:
        """Load a whole state (a game-specific tuple of plain values); clears the history."""

    def get_state(self) -> Any:
        """The whole state as :meth:`set_state` takes it."""

    def clone(self, history: bool) -> Core:
        """An independent copy; with ``history`` the move stack and undo records too."""

    def key(self) -> int:
        """The 64-bit Zobrist key: a pure function of the state, equal on both twins."""

    def player(self) -> int:
        """The player to move, :data:`CHANCE` at a chance node, :data:`TERMINAL` when over."""

    # ---- moves
    def moves(self) -> list[Any]:
        """The legal core moves in canonical order (none at a chance or terminal node)."""

    def iter_moves(self) -> Iterator[Any]:
        """The same moves as :meth:`moves`, generated lazily on a private copy."""

    def count(self, limit: int = -1) -> int:
        """``len(moves())`` without listing them; with ``limit`` >= 0, counting
        stops once more than ``limit`` moves are found and answers ``limit + 1``."""

    def is_legal(self, cm: Any) -> bool:
        """Whether ``cm`` may be pushed now (chance outcomes at a chance node)."""

    def chance_moves(self) -> list[tuple[Any, float]]:
        """``[(cm, probability)]`` at a chance node, else ``[]``."""

    def random_move(self, rng: int) -> tuple[Any, int]:
        """A random legal move (or chance outcome) drawn from the splitmix64 state
        ``rng``, and the state after the draw; the same draw as :meth:`playouts`."""

    # ---- history
    def push(self, cm: Any, entry: Any) -> bool:
        """Make ``cm`` and append ``entry`` to :attr:`entries`; False (nothing changed)
        when ``cm`` is not legal."""

    def pop(self) -> Any:
        """Unmake the last move and return its entry; IndexError when there is none."""

    # ---- search (never changes the core)
    def perft(self, depth: int, count_finished: bool) -> int:
        """Move sequences of exactly ``depth`` moves (chance nodes use no depth)."""

    def playouts(self, n: int, seed: int, max_plies: int) -> PlayoutResult:
        """``n`` random games from here, each cut after ``max_plies`` moves (-1: no cap)."""

    # ---- compound operations of the game layer
    def enter(self) -> None:
        """Claim the core for this thread (re-entrant); BrettError if another has it."""

    def leave(self) -> None:
        """Release one :meth:`enter`."""


def busy_error() -> BrettError:
    return BrettError(
        "this game object is in use by another thread: give each thread its own "
        "game (game.copy()) or serialise the calls")


class PyCore(abc.ABC):
    """What the plain-Python cores share: the move stack, the thread guard,
    clones, and searches on private copies.

    A subclass implements the rules as ``_``-prefixed methods that assume the
    guard is held (the searches call them on a private clone), and lists the
    attributes that hold its state in ``_state_attrs`` (copied by ``clone``).
    """

    _state_attrs: tuple[str, ...] = ()

    def __init__(self) -> None:
        self.entries: list[Any] = []
        self._guard = threading.RLock()   # held by every call, and through enter()/leave()
        self._entered: Optional[int] = None  # the thread inside enter()
        self._depth = 0

    # ---- the guard
    def _check(self) -> None:
        """Refuse a call while another thread is inside enter()."""
        owner = self._entered
        if owner is not None and owner != threading.get_ident():
            raise busy_error()

    def _claim(self) -> None:
        self._check()
        self._guard.acquire()

    def enter(self) -> None:
        self._claim()
        self._entered = threading.get_ident()
        self._depth += 1

    def leave(self) -> None:
        self._depth -= 1
        if not self._depth:
            self._entered = None
        self._guard.release()

    # ---- state
    def set_state(self, state: Any) -> None:
        self._claim()
        try:
            self._set_state(state)
            self.entries = []
        finally:
            self._guard.release()

    def get_state(self) -> Any:
        return self._guarded(self._get_state)

    def clone(self, history: bool) -> PyCore:
        self._claim()
        try:
            new = type(self)()
            if history:
                for name in self._state_attrs:
                    setattr(new, name, copy.deepcopy(getattr(self, name)))
                new.entries = list(self.entries)
            else:
                new._set_state(self._get_state())
            return new
        finally:
            self._guard.release()

    def _private(self) -> PyCore:
        """A clone without history, for a search that must not touch this core."""
        return self.clone(False)

    # ---- queries (on this core, under the guard: some walk by make/unmake)
    def _guarded(self, method: Any, *args: Any) -> Any:
        """A query, atomic like every call (it waits for another thread's call)."""
        self._claim()
        try:
            return method(*args)
        finally:
            self._guard.release()

    def key(self) -> int:
        return int(self._guarded(self._key))

    def player(self) -> int:
        return int(self._guarded(self._player))

    def moves(self) -> list[Any]:
        return list(self._guarded(self._moves))

    def iter_moves(self) -> Iterator[Any]:
        return self._private()._iter_moves()

    def _iter_moves(self) -> Iterator[Any]:
        return iter(self._moves())

    def count(self, limit: int = -1) -> int:
        n = int(self._guarded(self._count, limit))
        return n if limit < 0 or n <= limit else limit + 1

    def is_legal(self, cm: Any) -> bool:
        return bool(self._guarded(self._is_legal, cm))

    def chance_moves(self) -> list[tuple[Any, float]]:
        return list(self._guarded(self._chance_moves))

    def _chance_moves(self) -> list[tuple[Any, float]]:
        return []

    def random_move(self, rng: int) -> tuple[Any, int]:
        gen = SplitMix64(rng)
        cm = self._private()._random_move(gen)
        return cm, gen.state

    def _random_move(self, rng: SplitMix64) -> Any:
        moves = self._moves()
        return moves[rng.below(len(moves))] if moves else None

    # ---- history
    def push(self, cm: Any, entry: Any) -> bool:
        self._claim()
        try:
            if not self._is_legal(cm):
                return False
            self._push(cm)
            self.entries.append(entry)
            return True
        finally:
            self._guard.release()

    def pop(self) -> Any:
        self._claim()
        try:
            if not self.entries:
                raise IndexError("pop from an empty move stack")
            self._pop()
            return self.entries.pop()
        finally:
            self._guard.release()

    # ---- searches, on a private copy
    def perft(self, depth: int, count_finished: bool) -> int:
        return int(self._private()._perft(depth, bool(count_finished)))

    def playouts(self, n: int, seed: int, max_plies: int) -> PlayoutResult:
        return self._private()._playouts(n, seed, max_plies)

    def _playouts(self, n: int, seed: int, max_plies: int) -> PlayoutResult:
        """``n`` games of :meth:`_random_move` moves, each undone afterwards."""
        rng = SplitMix64(seed)
        wins = [0] * self._num_players()
        draws = unfinished = plies = 0
        for _ in range(n):
            made = counted = 0
            while True:
                player = self._player()
                if player == TERMINAL:
                    winners = self._winners()
                    for p in winners:
                        wins[p] += 1
                    if not winners:
                        draws += 1
                    break
                if 0 <= max_plies <= counted:
                    unfinished += 1
                    break
                stop_check()
                self._push(self._random_move(rng))
                made += 1
                counted += player != CHANCE
            plies += counted
            for _ in range(made):
                self._pop()
        return wins, draws, unfinished, plies, rng.state

    # ---- the search protocol (brett.ai's tree search; the compiled cores' s_*
    # methods, see _common.pxd), called on a private clone.  A search action is
    # a core move or a chance outcome; Phutball overrides them to search a jump
    # step by step.
    def _s_actions(self) -> list[int]:
        """The search actions of a decision node, in canonical order."""
        return list(self._moves())

    def _s_chance(self) -> list[tuple[int, float]]:
        """A chance node's outcomes and probabilities."""
        return list(self._chance_moves())

    def _s_do(self, action: int) -> None:
        self._push(action)

    def _s_undo(self) -> None:
        self._pop()

    def _s_pending(self) -> bool:
        """True in the middle of a move of several search actions."""
        return False

    def _s_winners(self) -> int:
        """At a terminal node: bit p set for each winner (0: a draw)."""
        return sum(1 << p for p in self._winners())

    def _s_playout(self, rng: int, max_plies: int) -> tuple[int, int]:
        """One random game (the draw of ``playouts(1, rng, max_plies)``): the
        winners' bits (0: a draw or unfinished; -1: a game cut short valued by
        :meth:`_s_shares`) and the generator's next state."""
        wins, _, _, _, state = self._playouts(1, rng, max_plies)
        return sum(1 << p for p, w in enumerate(wins) if w), state

    def _s_shares(self) -> list[float]:
        """After :meth:`_s_playout` returned -1: each player's value of the cut game."""
        return [0.5] * 4

    # ---- what a subclass implements (assuming the guard is held)
    @abc.abstractmethod
    def _set_state(self, state: Any) -> None: ...

    @abc.abstractmethod
    def _get_state(self) -> Any: ...

    @abc.abstractmethod
    def _key(self) -> int: ...

    @abc.abstractmethod
    def _player(self) -> int: ...

    @abc.abstractmethod
    def _moves(self) -> list[Any]: ...

    def _count(self, limit: int) -> int:
        """The number of legal moves; it may stop counting once more than
        ``limit`` (>= 0) are found (``count`` caps the answer)."""
        return len(self._moves())

    @abc.abstractmethod
    def _is_legal(self, cm: Any) -> bool: ...

    @abc.abstractmethod
    def _push(self, cm: Any) -> None: ...

    @abc.abstractmethod
    def _pop(self) -> None: ...

    @abc.abstractmethod
    def _perft(self, depth: int, count_finished: bool) -> int: ...

    @abc.abstractmethod
    def _num_players(self) -> int: ...

    @abc.abstractmethod
    def _winners(self) -> tuple[int, ...]:
        """The winners of a finished game (empty for a draw)."""


__all__ = ["CHANCE", "TERMINAL", "Core", "PlayoutResult", "PyCore", "busy_error"]


class HashedCore(Core, Protocol):
    """A core with a hashed perft (Reversi's twins): :class:`HashedPerft`."""

    def perft_table(self, size: int, shared: bool = False) -> Any:
        """A table of at most about ``size`` bytes, for :meth:`perft_hashed`
        (``shared``: for several threads at once)."""

    def perft_hashed(self, depth: int, count_finished: bool, table: Any,
                     symmetric: bool) -> int:
        """perft keeping its subtrees in ``table``; ValueError for a board without
        a table (or without symmetries, if ``symmetric``)."""


HASH_DEPTH = 2
"""The shallowest subtree the plain twin's hashed perft keeps (below it, a
probe costs more than the count)."""


class HashedPerft:
    """perft with a transposition table, for a plain core without chance nodes
    that names its positions exactly (:meth:`_table_key`); the compiled twin has
    the same two methods."""

    def perft_table(self, size: int, shared: bool = False) -> PerftTable:
        """A table for :meth:`perft_hashed` of at most about ``size`` bytes; any
        table serves several threads at once (each entry is one tuple, read and
        replaced whole under the GIL: a race loses an entry, never mixes two)."""
        return PerftTable(size)

    def perft_hashed(self, depth: int, count_finished: bool, table: PerftTable,
                     symmetric: bool) -> int:
        """perft that keeps the subtrees it counts in ``table``; ``symmetric``:
        one entry for a position and its mirror images.  ValueError where the
        board has no such table or symmetries."""
        assert isinstance(self, PyCore)
        clone = self._private()
        assert isinstance(clone, HashedPerft)
        context = clone._table_context(bool(count_finished), bool(symmetric))
        return clone._perft_hashed(depth, bool(count_finished), table.ready(context),
                                   bool(symmetric))

    def _perft_hashed(self, depth: int, count_finished: bool, table: PerftTable,
                      symmetric: bool) -> int:
        assert isinstance(self, PyCore)
        if depth < HASH_DEPTH:
            return self._perft(depth, count_finished)
        key = self._table_key(symmetric)
        total = table.probe(key, depth)
        if total is not None:
            return total
        moves = self._moves()
        if not moves:
            return 1 if count_finished else 0
        stop_check()
        total = 0
        for cm in moves:
            self._push(cm)
            total += self._perft_hashed(depth - 1, count_finished, table, symmetric)
            self._pop()
        table.store(key, depth, total)
        return total

    @abc.abstractmethod
    def _table_context(self, count_finished: bool, symmetric: bool) -> Any:
        """What a table's counts hold for (the board, the convention, the
        symmetries); ValueError where this position has no table."""

    @abc.abstractmethod
    def _table_key(self, symmetric: bool) -> Any:
        """The position exactly, or with ``symmetric`` the same value for all its
        mirror images."""
