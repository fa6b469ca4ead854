"""Reversi core in plain Python: the readable oracle the Cython core is tested against.

The board is a list of ``n * n`` cells, square index ``row * n + col`` (row 0 is
rank 1, the top row).  Holes and the octagon's cut squares are ``BLOCKED`` cells:
they never hold a disc and end every line through them.

State (what ``set_state`` takes and ``get_state`` returns), shared with the
Cython twin::

    (n, black, white, blocked, player)

``black``, ``white`` and ``blocked`` are ints used as bit sets over the square
indices; ``player`` is 0 (Black) or 1 (White).  A core move is a square index, or
``n * n`` for a pass (legal only when the mover has no other move and the game
is not over).
"""

from __future__ import annotations

import functools
from typing import Any, Optional

from ._base import TERMINAL, HashedPerft, PyCore
from ._rng import zobrist_table
from ._stop import check as stop_check

BLACK, WHITE, EMPTY, BLOCKED = 0, 1, 2, 3
SIZES = (4, 6, 8, 10, 12, 14, 16)
MAX_SQUARES = 256

ZOBRIST_SEED = 0x5245564552534921  # "REVERSI!"
ZOBRIST = zobrist_table(ZOBRIST_SEED, 3 * MAX_SQUARES + 1)
"""Keys: a disc of player p on square s is ``ZOBRIST[p * 256 + s]``, a blocked
square ``ZOBRIST[512 + s]``, White to move ``ZOBRIST[768]``."""
SIDE_KEY = ZOBRIST[3 * MAX_SQUARES]

DIRECTIONS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


@functools.cache
def _rays(n: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """For every square, the squares on each of the 8 rays leaving it, nearest first."""
    rays = []
    for sq in range(n * n):
        row, col = divmod(sq, n)
        lines = []
        for dr, dc in DIRECTIONS:
            line = []
            r, c = row + dr, col + dc
            while 0 <= r < n and 0 <= c < n:
                line.append(r * n + c)
                r, c = r + dr, c + dc
            if len(line) >= 2:  # a flip needs an opponent disc and a disc beyond it
                lines.append(tuple(line))
        rays.append(tuple(lines))
    return tuple(rays)


@functools.cache
def _images(n: int) -> tuple[tuple[int, ...], ...]:
    """The eight symmetries of an n x n board: image[sq] is the square whose cell
    lands on ``sq``."""
    images = []
    for transpose in (False, True):
        for flip_rows in (False, True):
            for flip_cols in (False, True):
                image = []
                for sq in range(n * n):
                    r, c = divmod(sq, n)
                    if transpose:
                        r, c = c, r
                    image.append((n - 1 - r if flip_rows else r) * n
                                 + (n - 1 - c if flip_cols else c))
                images.append(tuple(image))
    return tuple(images)


class ReversiCore(HashedPerft, PyCore):
    """Plain-Python Reversi state with make/unmake, perft and playouts."""

    _state_attrs = ("_n", "_cells", "_player_", "_key_", "_undo", "_rays")
    _n: int
    _cells: list[int]
    _player_: int
    _key_: int
    _undo: list[tuple[int, list[int]]]

    # ---------------------------------------------------------------- state
    def _set_state(self, state: Any) -> None:
        self._checked = None
        n, black, white, blocked, player = state
        if n not in SIZES or player not in (0, 1):
            raise ValueError(f"bad reversi state {state!r}")
        cells = []
        key = SIDE_KEY if player == WHITE else 0
        for sq in range(n * n):
            if blocked >> sq & 1:
                cells.append(BLOCKED)
                key ^= ZOBRIST[2 * MAX_SQUARES + sq]
            elif black >> sq & 1:
                cells.append(BLACK)
                key ^= ZOBRIST[sq]
            elif white >> sq & 1:
                cells.append(WHITE)
                key ^= ZOBRIST[MAX_SQUARES + sq]
            else:
                cells.append(EMPTY)
        self._n = n
        self._cells = cells
        self._player_ = player
        self._key_ = key
        self._undo = []
        self._rays = _rays(n)

    def _get_state(self) -> tuple[int, int, int, int, int]:
        black = white = blocked = 0
        for sq, cell in enumerate(self._cells):
            if cell == BLACK:
                black |= 1 << sq
            elif cell == WHITE:
                white |= 1 << sq
            elif cell == BLOCKED:
                blocked |= 1 << sq
        return (self._n, black, white, blocked, self._player_)

    # ---------------------------------------------------------------- rules
    def _flips(self, sq: int, me: int) -> list[int]:
        """The discs a disc of ``me`` on the empty square ``sq`` would flip."""
        cells = self._cells
        flips: list[int] = []
        for line in self._rays[sq]:
            run = []
            for t in line:
                if cells[t] == 1 - me:
                    run.append(t)
                    continue
                if cells[t] == me:
                    flips.extend(run)
                break
        return flips

    def _squares(self, me: int) -> list[int]:
        """The squares where ``me`` may put a disc, ascending."""
        cells = self._cells
        return [sq for sq in range(self._n * self._n)
                if cells[sq] == EMPTY and self._flips(sq, me)]

    _moves_memo: Optional[tuple[Any, list[int]]] = None

    def _moves(self) -> list[int]:
        # A playout asks twice per ply (whose turn is it, then which move): the
        # last answer is remembered for the exact position, never for a hash.
        ident = (bytes(self._cells), self._player_)
        memo = self._moves_memo
        if memo is not None and memo[0] == ident:
            return list(memo[1])
        moves = self._squares(self._player_)
        if not moves and self._squares(1 - self._player_):
            moves = [self._n * self._n]  # forced pass
        # else neither side can move: the game is over
        self._moves_memo = (ident, moves)
        return list(moves)

    def _is_legal(self, cm: Any) -> bool:
        n2 = self._n * self._n
        if type(cm) is not int or not 0 <= cm <= n2:
            return False
        if cm == n2:
            return self._moves() == [n2]
        if self._cells[cm] != EMPTY:
            return False
        flips = self._flips(cm, self._player_)
        self._checked = (cm, flips)  # push() checks, then makes: flip once
        return bool(flips)

    def _player(self) -> int:
        return self._player_ if self._moves() else TERMINAL

    def _key(self) -> int:
        return self._key_

    # ------------------------------------------------------------ make/unmake
    _checked: Optional[tuple[int, list[int]]] = None

    def _push(self, cm: int) -> None:
        me = self._player_
        flips: list[int] = []
        checked, self._checked = self._checked, None  # any change of state forgets it
        if cm != self._n * self._n:
            flips = checked[1] if checked is not None and checked[0] == cm \
                else self._flips(cm, me)
            self._cells[cm] = me
            self._key_ ^= ZOBRIST[me * MAX_SQUARES + cm]
            for t in flips:
                self._cells[t] = me
                self._key_ ^= ZOBRIST[t] ^ ZOBRIST[MAX_SQUARES + t]
        self._undo.append((cm, flips))
        self._player_ = 1 - me
        self._key_ ^= SIDE_KEY

    def _pop(self) -> None:
        self._checked = None
        cm, flips = self._undo.pop()
        self._player_ = me = 1 - self._player_
        self._key_ ^= SIDE_KEY
        if cm != self._n * self._n:
            self._cells[cm] = EMPTY
            self._key_ ^= ZOBRIST[me * MAX_SQUARES + cm]
            for t in flips:
                self._cells[t] = 1 - me
                self._key_ ^= ZOBRIST[t] ^ ZOBRIST[MAX_SQUARES + t]

    # ----------------------------------------------------------- search
    def _perft(self, depth: int, count_finished: bool) -> int:
        if depth == 0:
            return 1
        moves = self._moves()
        if not moves:
            return 1 if count_finished else 0
        if depth == 1:
            return len(moves)
        stop_check()
        total = 0
        for cm in moves:
            self._push(cm)
            total += self._perft(depth - 1, count_finished)
            self._pop()
        return total

    def _table_context(self, count_finished: bool, symmetric: bool) -> Any:
        n = self._n
        blocked = bytes(cell == BLOCKED for cell in self._cells)
        if symmetric and any(blocked):
            raise ValueError("symmetries need a square board without holes")
        return (n, blocked, count_finished, symmetric)

    def _table_key(self, symmetric: bool) -> Any:
        cells = bytes(self._cells)
        if symmetric:
            cells = min(bytes(cells[sq] for sq in image) for image in _images(self._n))
        return (self._player_, cells)

    # ----------------------------------------------------------- results
    def discs(self) -> tuple[int, int]:
        """(black discs, white discs)."""
        cells = self._guarded(lambda: list(self._cells))
        return (cells.count(BLACK), cells.count(WHITE))

    def _num_players(self) -> int:
        return 2

    def _winners(self) -> tuple[int, ...]:
        black, white = self._cells.count(BLACK), self._cells.count(WHITE)
        return () if black == white else ((0,) if (black > white) != self._anti else (1,))

    _anti = False

    def set_anti(self, anti: bool) -> None:
        """Anti-Reversi (fewer discs win) or not: winners change, moves do not."""
        self._anti = bool(anti)

    def clone(self, history: bool) -> ReversiCore:
        new = super().clone(history)
        assert isinstance(new, ReversiCore)
        new._anti = self._anti
        return new
