"""Reversi core in plain Python: the readable oracle the Cython core is tested against.

The board is a list of ``n * n`` cells, square index ``row * n + col`` (row 0 is
rank 1, the top row).  Holes and the octagon's cut squares are ``BLOCKED`` cells:
they never hold a disc and end every line through them.

State (what :meth:`ReversiCore._core_set_state` takes and
:meth:`ReversiCore._core_get_state` returns), shared with the Cython twin::

    (n, black, white, blocked, player)

``black``, ``white`` and ``blocked`` are ints used as bit sets over the square
indices; ``player`` is 0 (Black) or 1 (White).  A core move is a square index, or
``n * n`` for a pass (legal only when the mover has no other move and the game
is not over).
"""

from __future__ import annotations

from typing import Any

from ._rng import SplitMix64, zobrist_table

BLACK, WHITE, EMPTY, BLOCKED = 0, 1, 2, 3
TERMINAL = -4
SIZES = (4, 6, 8, 10, 12, 14, 16)
MAX_SQUARES = 256

ZOBRIST_SEED = 0x5245564552534921  # "REVERSI!"
ZOBRIST = zobrist_table(ZOBRIST_SEED, 3 * MAX_SQUARES + 1)
"""Keys: a disc of player p on square s is ``ZOBRIST[p * 256 + s]``, a blocked
square ``ZOBRIST[512 + s]``, White to move ``ZOBRIST[768]``."""
SIDE_KEY = ZOBRIST[3 * MAX_SQUARES]

DIRECTIONS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


def _rays(n: int) -> list[list[list[int]]]:
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
                lines.append(line)
        rays.append(lines)
    return rays


class ReversiCore:
    """Plain-Python Reversi state with make/unmake, perft and playouts."""

    _n: int
    _cells: list[int]
    _player: int
    _key: int
    _undo: list[tuple[int, list[int]]]

    # ---------------------------------------------------------------- state
    def _core_set_state(self, state: Any) -> None:
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
        self._player = player
        self._key = key
        self._undo = []
        self._rays = _rays(n)

    def _core_get_state(self) -> tuple[int, int, int, int, int]:
        black = white = blocked = 0
        for sq, cell in enumerate(self._cells):
            if cell == BLACK:
                black |= 1 << sq
            elif cell == WHITE:
                white |= 1 << sq
            elif cell == BLOCKED:
                blocked |= 1 << sq
        return (self._n, black, white, blocked, self._player)

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

    def _core_moves(self) -> list[int]:
        moves = self._squares(self._player)
        if moves:
            return moves
        if self._squares(1 - self._player):
            return [self._n * self._n]  # forced pass
        return []  # neither side can move: the game is over

    def _core_count(self) -> int:
        return len(self._core_moves())

    def _core_is_legal(self, cm: int) -> bool:
        n2 = self._n * self._n
        if isinstance(cm, bool) or not isinstance(cm, int) or not 0 <= cm <= n2:
            return False
        if cm == n2:
            return self._core_moves() == [n2]
        return self._cells[cm] == EMPTY and bool(self._flips(cm, self._player))

    def _core_player(self) -> int:
        return self._player if self._core_moves() else TERMINAL

    def _core_key(self) -> int:
        return self._key

    # ------------------------------------------------------------ make/unmake
    def _core_push(self, cm: int) -> None:
        me = self._player
        flips: list[int] = []
        if cm != self._n * self._n:
            flips = self._flips(cm, me)
            self._cells[cm] = me
            self._key ^= ZOBRIST[me * MAX_SQUARES + cm]
            for t in flips:
                self._cells[t] = me
                self._key ^= ZOBRIST[t] ^ ZOBRIST[MAX_SQUARES + t]
        self._undo.append((cm, flips))
        self._player = 1 - me
        self._key ^= SIDE_KEY

    def _core_pop(self) -> None:
        if not self._undo:
            raise IndexError("pop from an empty undo stack")
        cm, flips = self._undo.pop()
        self._player = me = 1 - self._player
        self._key ^= SIDE_KEY
        if cm != self._n * self._n:
            self._cells[cm] = EMPTY
            self._key ^= ZOBRIST[me * MAX_SQUARES + cm]
            for t in flips:
                self._cells[t] = 1 - me
                self._key ^= ZOBRIST[t] ^ ZOBRIST[MAX_SQUARES + t]

    # ----------------------------------------------------------- search
    def _core_perft(self, depth: int, count_finished: bool) -> int:
        if depth == 0:
            return 1
        moves = self._core_moves()
        if not moves:
            return 1 if count_finished else 0
        if depth == 1:
            return len(moves)
        total = 0
        for cm in moves:
            self._core_push(cm)
            total += self._core_perft(depth - 1, count_finished)
            self._core_pop()
        return total

    def _core_discs(self) -> tuple[int, int]:
        """(black discs, white discs)."""
        return (self._cells.count(BLACK), self._cells.count(WHITE))

    def _core_playouts(self, n: int, seed: int, max_plies: int) -> tuple[list[int], int, int, int]:
        rng = SplitMix64(seed)
        wins = [0, 0]
        draws = unfinished = plies = 0
        for _ in range(n):
            made = 0
            while True:
                moves = self._core_moves()
                if not moves:
                    black, white = self._core_discs()
                    if black == white:
                        draws += 1
                    else:
                        wins[0 if black > white else 1] += 1
                    break
                if 0 <= max_plies <= made:
                    unfinished += 1
                    break
                self._core_push(moves[rng.below(len(moves))])
                made += 1
            plies += made
            for _ in range(made):
                self._core_pop()
        return wins, draws, unfinished, plies
