"""Phutball core in plain Python: the readable twin of ``_phutball_c.pyx`` and the oracle.

Coordinates
    A *cell* is ``row * columns + column`` with ``row`` in ``0 .. rows + 1`` and
    ``column`` in ``0 .. columns - 1``.  Rows ``1 .. rows`` are the board (row 1
    at the bottom); rows ``0`` and ``rows + 1`` are the virtual points beyond the
    goal lines, where only a ball that jumped off the board can lie (P1).

Core moves (the same values on both twins)
    * a placement is the ``int`` cell of the man placed;
    * a ball move is a ``tuple`` of cells: the ball's start, then every landing
      point of the path (at least one jump).

Canonical order of ``moves``
    placements by ascending cell, then the jump paths in depth-first order:
    from the ball try the directions ``N, NE, E, SE, S, SW, W, NW`` (index 0..7)
    in turn; each possible jump first yields its path, then (unless it left the
    board) every continuation from its landing point.

State for ``set_state`` / ``get_state``
    ``(columns, rows, men, ball, side, ply, cap)``: ``men`` a sorted tuple of
    cells, ``ball`` a cell, ``side`` 0 or 1, ``ply`` the number of moves made
    (only used with a cap), ``cap`` the ply cap or -1.

Status codes of ``status``
    0 running, 1 player 0 won (ball on or beyond row ``rows``), 2 player 1 won
    (ball on or beyond row 1), 3 draw by the ply cap, 4 the player to move has
    no legal move and loses (P5).

Search actions (the search protocol of ``brett.ai``, ``_s_*`` below)
    A ball move is searched step by step.  A placement is its cell (the core
    move); a jump in direction ``d`` (0..7, ``DIRECTIONS`` order) is ``-1 - d``;
    *stop* (:data:`STOP`, -9) ends a ball move after at least one jump.  At the
    start of a turn the actions are the *pruned* placements (see
    ``PhutballCore._search_placements``) by ascending cell, then the jump
    directions; after a jump that stays on the board the move is *pending* (the
    same player to move) and the actions are the next jump directions, then
    stop.  A jump beyond a goal line ends the move.  While pending, the jumps so
    far are made on the state (men removed, ball moved, key updated) but side
    and ply are not: stop flips them, so the steps of a path leave exactly the
    state ``_push(path)`` leaves.  :func:`search_move` turns the actions of one
    turn into the core move.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Optional, Union

from ._base import TERMINAL, PyCore
from ._rng import SplitMix64, zobrist_table
from ._stop import check as stop_check

MAX_SIZE = 25
MAX_CELLS = MAX_SIZE * (MAX_SIZE + 2)
ZOBRIST_SEED = 0x50485554_42414C4C  # "PHUTBALL"
ZOBRIST = zobrist_table(ZOBRIST_SEED, 2 * MAX_CELLS + 1)
"""Keys: a man on cell c → ``ZOBRIST[c]``; the ball on c → ``ZOBRIST[MAX_CELLS + c]``;
player 1 to move → ``ZOBRIST[2 * MAX_CELLS]``."""
SIDE_KEY = ZOBRIST[2 * MAX_CELLS]
STOP = -9
"""The search action *stop* (a jump in direction d is ``-1 - d``)."""
NO_CAP = 2**64 - 1
"""``_count_paths``: count every path."""

DIRECTIONS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))
"""(d column, d row) for N, NE, E, SE, S, SW, W, NW: the direction index order."""

RUNNING, TOP_WINS, BOTTOM_WINS, CAP_DRAW, NO_MOVE = 0, 1, 2, 3, 4

CoreMove = Union[int, tuple[int, ...]]
Walk = tuple[tuple[int, ...], tuple[int, ...]]
"""What ``jumps_after`` returns: the landing cells and the 8 jump targets after them."""


class PhutballCore(PyCore):
    """Board of men and a ball, make/unmake with an undo stack, perft, playouts."""

    _state_attrs = ("_cols", "_rows", "_man", "_nmen", "_ball", "_side", "_ply", "_cap",
                    "_undo", "_key_", "_s_jumps", "_s_undo_stack")

    # ------------------------------------------------------------ state
    def _set_state(self, state: tuple[Any, ...]) -> None:
        columns, rows, men, ball, side, ply, cap = state
        self._cols = int(columns)
        self._rows = int(rows)
        self._man = [False] * ((self._rows + 2) * self._cols)
        for c in men:
            self._man[c] = True
        self._nmen = len(men)
        self._ball = int(ball)
        self._side = int(side)
        self._ply = int(ply)
        self._cap = int(cap)
        self._undo: list[tuple[Any, ...]] = []
        self._s_jumps = 0   # jumps made of a pending ball move (the search's steps)
        self._s_undo_stack: list[tuple[Any, ...]] = []
        key = ZOBRIST[MAX_CELLS + self._ball] ^ (SIDE_KEY if self._side else 0)
        for c in men:
            key ^= ZOBRIST[c]
        self._key_ = key

    def _get_state(self) -> tuple[Any, ...]:
        men = tuple(c for c, m in enumerate(self._man) if m)
        return (self._cols, self._rows, men, self._ball, self._side, self._ply, self._cap)

    def _key(self) -> int:
        return self._key_

    # ------------------------------------------------------------ geometry
    def _row(self, cell: int) -> int:
        return cell // self._cols

    def _jump_target(self, cell: int, d: int) -> int:
        """Where the ball on ``cell`` lands jumping in direction ``d``, or -1.

        The neighbour must hold a man; the ball passes the whole run of men and
        lands on the first point beyond it, which must lie within the columns
        (rows 0 and ``rows + 1`` allowed, corners beyond them not).
        """
        dc, dr = DIRECTIONS[d]
        cols, rows = self._cols, self._rows
        col, row = cell % cols + dc, cell // cols + dr
        if not (0 <= col < cols and 1 <= row <= rows and self._man[row * cols + col]):
            return -1
        while 0 <= col < cols and 1 <= row <= rows and self._man[row * cols + col]:
            col += dc
            row += dr
        if not 0 <= col < cols:
            return -1  # over a sideline, or beyond a corner
        return row * cols + col

    def _between(self, start: int, end: int, d: int) -> list[int]:
        """The cells strictly between ``start`` and ``end`` along direction ``d``."""
        dc, dr = DIRECTIONS[d]
        step = dr * self._cols + dc
        return list(range(start + step, end, step))

    def _beyond(self, cell: int) -> bool:
        row = cell // self._cols
        return row == 0 or row == self._rows + 1

    def jumps_after(self, dirs: tuple[int, ...]) -> Optional[Walk]:
        """Walk the ball by jumps in the directions ``dirs`` (men removed on the way,
        on a private copy): ``(landing cells, the 8 jump targets from the last
        landing, -1 where none)``, or None if some step is not a jump.  A landing
        beyond a goal line ends the path: no targets from there."""
        return self._private()._jumps_after(dirs)  # type: ignore[attr-defined, no-any-return]

    def _jumps_after(self, dirs: tuple[int, ...]) -> Optional[Walk]:
        here = self._ball
        landings = []
        for d in dirs:
            if self._beyond(here) or not 0 <= d < 8:
                return None
            land = self._jump_target(here, d)
            if land < 0:
                return None
            for c in self._between(here, land, d):
                self._man[c] = False
            landings.append(land)
            here = land
        if self._beyond(here):
            return tuple(landings), (-1,) * 8
        return tuple(landings), tuple(self._jump_target(here, d) for d in range(8))

    # ------------------------------------------------------------ status
    def _empties(self) -> int:
        return self._rows * self._cols - self._nmen - (0 if self._beyond(self._ball) else 1)

    def _has_jump(self) -> bool:
        return any(self._jump_target(self._ball, d) >= 0 for d in range(8))

    def status(self) -> int:
        """0 running, 1 player 0 won, 2 player 1 won, 3 ply cap, 4 mover cannot move."""
        return int(self._guarded(self._status))

    def _status(self) -> int:
        row = self._row(self._ball)
        if row >= self._rows:
            return TOP_WINS
        if row <= 1:
            return BOTTOM_WINS
        if 0 <= self._cap <= self._ply:
            return CAP_DRAW
        if self._empties() == 0 and not self._has_jump():
            return NO_MOVE
        return RUNNING

    def _player(self) -> int:
        if self._s_jumps:  # a ball move is pending: its mover goes on
            return self._side
        return TERMINAL if self._status() != RUNNING else self._side

    def _num_players(self) -> int:
        return 2

    def _winners(self) -> tuple[int, ...]:
        status = self._status()
        if status == TOP_WINS:
            return (0,)
        if status == BOTTOM_WINS:
            return (1,)
        if status == NO_MOVE:
            return (self._side ^ 1,)
        return ()

    # ------------------------------------------------------------ move generation
    def _count_paths(self, here: int, cap: int = NO_CAP) -> int:
        """The number of jump paths from ``here``, or ``cap`` once that many are
        found (men removed and restored in place: call it on a private copy)."""
        total = 0
        for d in range(8):
            land = self._jump_target(here, d)
            if land < 0:
                continue
            total += 1
            if total >= cap:
                return cap
            if not self._beyond(land):
                stop_check()
                jumped = self._between(here, land, d)
                for c in jumped:
                    self._man[c] = False
                total += self._count_paths(land, cap - total)
                for c in jumped:
                    self._man[c] = True
                if total >= cap:
                    return cap
        return total

    def _placements(self) -> list[int]:
        cols = self._cols
        return [c for c in range(cols, (self._rows + 1) * cols)
                if not self._man[c] and c != self._ball]

    def _moves(self) -> list[CoreMove]:
        # on a copy: the walk removes men in place, and it may be stopped anywhere
        return list(self._private()._iter_moves())

    def _iter_moves(self) -> Iterator[CoreMove]:
        """Placements by ascending cell, then the jump paths depth first (each
        path before its continuations), men removed and restored in place."""
        if self._status() != RUNNING:
            return
        yield from self._placements()
        yield from self._walk_paths([self._ball])

    def _walk_paths(self, path: list[int]) -> Iterator[tuple[int, ...]]:
        here = path[-1]
        for d in range(8):
            land = self._jump_target(here, d)
            if land < 0:
                continue
            path.append(land)
            stop_check()
            yield tuple(path)
            if not self._beyond(land):
                jumped = self._between(here, land, d)
                for c in jumped:
                    self._man[c] = False
                yield from self._walk_paths(path)
                for c in jumped:
                    self._man[c] = True
            path.pop()

    def _count(self, limit: int) -> int:
        if self._status() != RUNNING:
            return 0
        cap = NO_CAP if limit < 0 else limit + 1
        empties = self._empties()
        if empties >= cap:
            return cap
        # on a copy: the walk removes men in place, and it may be stopped anywhere
        private: PhutballCore = self._private()  # type: ignore[assignment]
        return empties + private._count_paths(self._ball, cap - empties)

    def _is_legal(self, cm: Any) -> bool:
        if self._status() != RUNNING:
            return False
        if type(cm) is int:
            return (self._cols <= cm < (self._rows + 1) * self._cols
                    and not self._man[cm] and cm != self._ball)
        if type(cm) is not tuple or len(cm) < 2 or cm[0] != self._ball:
            return False
        removed: list[int] = []
        ok = True
        here = self._ball
        for i, land in enumerate(cm[1:], 1):
            d = self._direction_to(here, land)
            if d < 0 or self._beyond(here):
                ok = False
                break
            jumped = self._between(here, land, d)
            for c in jumped:
                self._man[c] = False
            removed.extend(jumped)
            here = land
            if self._beyond(land) and i != len(cm) - 1:
                ok = False
                break
        for c in removed:
            self._man[c] = True
        return ok

    def _direction_to(self, here: int, land: Any) -> int:
        """The direction in which ``here`` jumps to ``land``, or -1 if it cannot."""
        if type(land) is not int:
            return -1
        for d in range(8):
            if self._jump_target(here, d) == land:
                return d
        return -1

    # ------------------------------------------------------------ make / unmake
    def _push(self, cm: CoreMove) -> None:
        old_key, old_ball = self._key_, self._ball
        if isinstance(cm, int):
            self._man[cm] = True
            self._nmen += 1
            self._key_ ^= ZOBRIST[cm]
            self._undo.append((cm, old_key, old_ball, ()))
        else:
            removed: list[int] = []
            here = cm[0]
            for land in cm[1:]:
                d = self._direction_to(here, land)
                for c in self._between(here, land, d):
                    self._man[c] = False
                    self._key_ ^= ZOBRIST[c]
                    removed.append(c)
                here = land
            self._nmen -= len(removed)
            self._ball = here
            self._key_ ^= ZOBRIST[MAX_CELLS + old_ball] ^ ZOBRIST[MAX_CELLS + here]
            self._undo.append((-1, old_key, old_ball, tuple(removed)))
        self._side ^= 1
        self._key_ ^= SIDE_KEY
        self._ply += 1

    def _pop(self) -> None:
        placed, old_key, old_ball, removed = self._undo.pop()
        if placed >= 0:
            self._man[placed] = False
            self._nmen -= 1
        else:
            for c in removed:
                self._man[c] = True
            self._nmen += len(removed)
        self._ball = old_ball
        self._key_ = old_key
        self._side ^= 1
        self._ply -= 1

    # ------------------------------------------------------------ perft
    def _perft(self, depth: int, count_finished: bool) -> int:
        if depth == 0:
            return 1
        return self._perft_moves(depth, bool(count_finished))

    def _perft_moves(self, depth: int, count_finished: bool) -> int:
        stop_check()
        if self._status() != RUNNING:
            return 1 if count_finished else 0
        if depth == 1:
            # Bulk count: every empty point is a placement, every path a move.
            return self._empties() + self._count_paths(self._ball)
        total = 0
        for c in self._placements():
            self._push(c)
            total += self._perft_moves(depth - 1, count_finished)
            self._pop()
        total += self._perft_paths(self._ball, depth, count_finished)
        return total

    def _perft_paths(self, here: int, depth: int, count_finished: bool) -> int:
        """perft(depth - 1) after every jump path from ``here``, made in place."""
        total = 0
        for d in range(8):
            land = self._jump_target(here, d)
            if land < 0:
                continue
            stop_check()
            jumped = self._between(here, land, d)
            for c in jumped:
                self._man[c] = False
            self._nmen -= len(jumped)  # removed until the path is taken back
            # The path ending here is a whole move: flip the side and count below.
            saved = self._ball
            self._ball = land
            self._side ^= 1
            self._ply += 1
            total += self._perft_moves(depth - 1, count_finished)
            self._side ^= 1
            self._ply -= 1
            self._ball = saved
            if not self._beyond(land):
                total += self._perft_paths(land, depth, count_finished)
            self._nmen += len(jumped)
            for c in jumped:
                self._man[c] = True
        return total

    # ------------------------------------------------------------ playouts
    def _random_move(self, rng: SplitMix64) -> Optional[CoreMove]:
        """A random move, drawn as the integer layer plays it, step by step.

        First a uniform choice among the placements (ascending cell) and the
        jump directions open to the ball (ascending index); after each jump
        that stays on the board, a uniform choice among the next jump
        directions and *stop* (last).  Uniform over whole paths is not used:
        their number can grow exponentially with the men on the board.
        """
        if self._status() != RUNNING:
            return None
        empties = self._empties()
        dirs = [d for d in range(8) if self._jump_target(self._ball, d) >= 0]
        r = rng.below(empties + len(dirs))
        if r < empties:
            for c in range(self._cols, (self._rows + 1) * self._cols):
                if not self._man[c] and c != self._ball:
                    if r == 0:
                        return c
                    r -= 1
        d = dirs[r - empties]
        path = [self._ball]
        removed: list[int] = []
        while True:
            here = path[-1]
            land = self._jump_target(here, d)
            jumped = self._between(here, land, d)
            for c in jumped:
                self._man[c] = False
            removed.extend(jumped)
            path.append(land)
            if self._beyond(land):
                break
            dirs = [e for e in range(8) if self._jump_target(land, e) >= 0]
            r = rng.below(len(dirs) + 1)
            if r == len(dirs):
                break
            d = dirs[r]
        for c in removed:
            self._man[c] = True
        return tuple(path)

    # ------------------------------------------------------------ the search protocol
    # (see the module docstring and _base.PyCore): a ball move step by step.
    def _search_placements(self, prune: bool = True) -> list[int]:
        """The placements a search tries at the start of a turn, by ascending cell.

        Pruning rule: an empty point is kept if it lies within Chebyshev
        distance 2 of the ball, or next to (distance 1 of) some man; the search
        never tries the others.  ``_s_actions`` falls back to every placement
        when none is kept and the ball cannot jump."""
        cols, rows = self._cols, self._rows
        bcol, brow = self._ball % cols, self._ball // cols
        kept = []
        for c in self._placements():
            col, row = c % cols, c // cols
            if (not prune or (abs(col - bcol) <= 2 and abs(row - brow) <= 2)
                    or any(0 <= col + dc < cols and 1 <= row + dr <= rows
                           and self._man[c + dr * cols + dc]
                           for dc, dr in DIRECTIONS)):
                kept.append(c)
        return kept

    def _s_player(self) -> int:
        return self._player()

    def _s_pending(self) -> bool:
        return self._s_jumps > 0

    def _s_actions(self) -> list[int]:
        jumps = [-1 - d for d in range(8) if self._jump_target(self._ball, d) >= 0]
        if self._s_jumps:
            return [*jumps, STOP]
        if self._status() != RUNNING:
            return []
        placements = self._search_placements()
        if not placements and not jumps:  # never leave a running position without a move
            placements = self._search_placements(prune=False)
        return placements + jumps

    def _s_do(self, action: int) -> None:
        if action == STOP:
            if not self._s_jumps:
                raise ValueError("search action stop: no ball move is pending")
            self._s_undo_stack.append(("stop", self._s_jumps))
            self._s_jumps = 0
            self._side ^= 1
            self._key_ ^= SIDE_KEY
            self._ply += 1
            return
        if action >= 0:
            if self._s_jumps or not self._is_legal(action):
                raise ValueError(f"search action {action}: not a legal placement")
            self._push(action)
            self._s_undo_stack.append(("place",))
            return
        d = -1 - action
        land = -1
        if d < 8 and (self._s_jumps or self._status() == RUNNING):
            land = self._jump_target(self._ball, d)
        if land < 0:
            raise ValueError(f"search action {action}: not a legal jump")
        here = self._ball
        jumped = self._between(here, land, d)
        self._s_undo_stack.append(("jump", self._key_, here, tuple(jumped), self._s_jumps))
        for c in jumped:
            self._man[c] = False
            self._key_ ^= ZOBRIST[c]
        self._nmen -= len(jumped)
        self._ball = land
        self._key_ ^= ZOBRIST[MAX_CELLS + here] ^ ZOBRIST[MAX_CELLS + land]
        if not self._beyond(land):
            self._s_jumps += 1  # pending: the same player goes on
            return
        self._s_jumps = 0       # beyond a goal line: the move ends here
        self._side ^= 1
        self._key_ ^= SIDE_KEY
        self._ply += 1

    def _s_undo(self) -> None:
        record = self._s_undo_stack.pop()
        if record[0] == "place":
            self._pop()
            return
        if record[0] == "stop":
            self._s_jumps = record[1]
            self._side ^= 1
            self._key_ ^= SIDE_KEY
            self._ply -= 1
            return
        _, key, here, jumped, jumps = record
        if self._beyond(self._ball):  # the jump ended the move
            self._side ^= 1
            self._ply -= 1
        for c in jumped:
            self._man[c] = True
        self._nmen += len(jumped)
        self._ball = here
        self._key_ = key
        self._s_jumps = jumps

    def _s_winners(self) -> int:
        return 0 if self._s_jumps else super()._s_winners()

    def _s_playout(self, rng: int, max_plies: int) -> tuple[int, int]:
        """A pending ball move is ended first (as stop would), then the game of
        ``playouts(1, rng, max_plies)`` from there."""
        if not self._s_jumps:
            return super()._s_playout(rng, max_plies)
        self._s_do(STOP)
        try:
            return super()._s_playout(rng, max_plies)
        finally:
            self._s_undo()


def search_move(core: Any, actions: Sequence[int]) -> CoreMove:
    """The core move made by the search actions ``actions`` of one turn, from
    ``core`` (either twin, at the start of the turn) or a state tuple of
    ``set_state``: a placement's cell, or the ball's path ``(ball, landing,
    ...)``.  A final *stop* is optional (a path cut before it is the move that
    stops there); ValueError for a sequence that is not one turn's legal steps."""
    if not hasattr(core, "jumps_after"):
        state, core = core, PhutballCore()
        core.set_state(state)
    actions = [int(a) for a in actions]
    if not actions:
        raise ValueError("no search actions")
    if actions[0] >= 0:
        if len(actions) != 1 or not core.is_legal(actions[0]):
            raise ValueError(f"search actions {actions}: not one legal placement")
        return actions[0]
    if actions[-1] == STOP:
        actions.pop()
    if not actions or not all(-8 <= a <= -1 for a in actions) or core.player() == TERMINAL:
        raise ValueError(f"search actions {actions}: not the jumps of one ball move")
    walk = core.jumps_after(tuple(-1 - a for a in actions))
    if walk is None:
        raise ValueError(f"search actions {actions}: not the jumps of one ball move")
    return (core.get_state()[3], *walk[0])
