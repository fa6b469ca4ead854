"""Phutball (Philosopher's Football, J. H. Conway): placements and jump paths.

Rules: ``rules/phutball.md`` (P1–P8).  Two API layers on one object:

**Pythonic.**  A move is a :class:`PhutballMove`: a placement ``h11`` or a ball
move ``h10-h12-k12`` (the ball's point, then every landing point; ``h20`` on a
15×19 board is beyond the top goal line).  Every prefix of a jump chain is a
move of its own (P4), so ``legal_moves`` lists each path separately.

**Integer (OpenSpiel style).**  A fixed action space of
``columns * rows + 9`` actions:

* ``0 .. columns*rows - 1``: place a man on point ``(row - 1) * columns + column``
  (``a1`` = 0, ``b1`` = 1, …, row by row from the bottom);
* ``columns*rows + d`` for ``d`` in ``0..7``: one jump of the ball in direction
  ``N, NE, E, SE, S, SW, W, NW``;
* ``columns*rows + 8``: *stop*, ending a ball move after at least one jump.

A ball move is played step by step.  After a jump the game is *mid-move*: the
same player is to move and only further jumps and *stop* are legal (a jump
beyond a goal line ends the move by itself).  The move in progress is already
on :attr:`move_stack` as the path so far (itself a legal move, P4) and grows
with each jump; *stop* only closes it, so a finished step sequence is ONE path
move on the stack.  :meth:`undo_action` takes back one action: a jump, the
*stop* (re-opening the path), or a placement.  :meth:`pop` takes back the
whole last move, open or not; :meth:`push` is refused while a move is open.
"""

from __future__ import annotations

import argparse
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Optional

from ._core._rng import SplitMix64
from .errors import BrettError, IllegalMoveError, InvalidMoveError, InvalidPositionError
from .game import TERMINAL, Game, LegalMoveView, Outcome, load_cores

_cores = load_cores("phutball")

LETTERS = "abcdefghjklmnopqrstuvwxyz"
"""Column letters, like Go: no ``i``."""
DIRECTION_NAMES = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
_DIRS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))
_POINT = re.compile(r"([a-hj-z])(\d{1,2})")
_SIZE = re.compile(r"(\d{1,2})x(\d{1,2})")
_PLIES = re.compile(r"plies:(\d+)/(\d+)")
_DEFAULT = (15, 19)

# _core_status codes (see the core's docstring)
_RUNNING, _TOP, _BOTTOM, _CAP, _NO_MOVE = 0, 1, 2, 3, 4


@dataclass(frozen=True, repr=False)
class PhutballMove:
    """A Phutball move: one point (a placement) or the ball's path.

    ``points`` holds lower-case point names: ``("h11",)`` places a man on h11;
    ``("h10", "h12", "k12")`` moves the ball from h10 by two jumps.

    >>> PhutballMove.parse("H10-h12")
    PhutballMove(('h10', 'h12'))
    >>> str(PhutballMove(("h11",)))
    'h11'
    """

    points: tuple[str, ...]

    def __post_init__(self) -> None:
        pts = self.points
        if isinstance(pts, str) or not isinstance(pts, tuple) or not pts:
            raise InvalidMoveError(f"{pts!r} is not a tuple of point names")
        norm = []
        for p in pts:
            if not isinstance(p, str) or not _POINT.fullmatch(p.lower()):
                raise InvalidMoveError(
                    f"{p!r} is not a point: expected a column letter a-z without i "
                    "and a row number, e.g. 'h10'")
            norm.append(p.lower())
        object.__setattr__(self, "points", tuple(norm))

    @classmethod
    def parse(cls, text: str) -> PhutballMove:
        """Parse ``h11`` or ``h10-h12-k12`` (case-insensitive); InvalidMoveError if malformed."""
        if not isinstance(text, str):
            raise InvalidMoveError(f"{text!r} is not Phutball notation: expected a string")
        s = text.strip()
        if not s:
            raise InvalidMoveError(f"{text!r} is not a move: empty notation")
        parts = s.split("-")
        if any(not _POINT.fullmatch(p.lower()) for p in parts):
            raise InvalidMoveError(
                f"{text!r} is not Phutball notation: expected a point like 'h11' "
                "or a ball path like 'h10-h12-k12'")
        return cls(tuple(parts))

    @property
    def is_placement(self) -> bool:
        return len(self.points) == 1

    @property
    def is_jump(self) -> bool:
        """True for a ball move (one or more jumps)."""
        return len(self.points) > 1

    def __str__(self) -> str:
        return "-".join(self.points)

    def __repr__(self) -> str:
        return f"PhutballMove({self.points!r})"


def _letter(col: int) -> str:
    return LETTERS[col]


def _check_size(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 5 <= value <= 25:
        raise InvalidPositionError(f"{name}={value!r}: expected an int from 5 to 25")
    return value


class _PhutballAPI(Game):
    """Everything Python-level of :class:`Phutball` (the core holds the state)."""

    game_name = "phutball"
    Move = PhutballMove
    _cores = _cores
    _core_class_name = "PhutballCore"

    _cols: int
    _rows: int
    _open: bool
    _core_status: Callable[[], int]
    _core_jump_target: Callable[[int], int]

    def __init__(self, columns: int = 15, rows: int = 19, ball: Optional[str] = None,
                 max_plies: Optional[int] = None, seed: Optional[int] = None) -> None:
        cols = _check_size("columns", columns)
        nrows = _check_size("rows", rows)
        if max_plies is None:
            cap = -1
        elif isinstance(max_plies, bool) or not isinstance(max_plies, int) or max_plies < 1:
            raise InvalidPositionError(f"max_plies={max_plies!r}: expected None or an int >= 1")
        else:
            cap = max_plies
        self._cols, self._rows = cols, nrows
        if ball is None:
            cell = ((nrows + 1) // 2) * cols + (cols + 1) // 2 - 1
        else:
            if not isinstance(ball, str):
                raise InvalidPositionError(f"ball={ball!r}: expected a point name like 'h10'")
            cell = self._cell_of(ball, InvalidPositionError, "ball")
            row = cell // cols
            if not 2 <= row <= nrows - 1:
                raise InvalidPositionError(
                    f"ball={ball!r}: the ball must start off the goal lines "
                    f"(rows 2 to {nrows - 1})")
        self._open = False
        self._init_game((cols, nrows, (), cell, 0, 0, cap), seed)

    # ------------------------------------------------------------ options and points
    @property
    def columns(self) -> int:
        return self._cols

    @property
    def rows(self) -> int:
        return self._rows

    @property
    def max_plies(self) -> Optional[int]:
        cap = self._root_state[6]
        return None if cap < 0 else int(cap)

    def num_players(self) -> int:
        return 2

    def _name(self, cell: int) -> str:
        return f"{_letter(cell % self._cols)}{cell // self._cols}"

    def _cell_of(self, name: str, error: type[BrettError] = IllegalMoveError,
                 what: str = "point", beyond: bool = False) -> int:
        m = _POINT.fullmatch(name.lower())
        if not m:
            raise error(f"{what} {name!r} is not a point name like 'h10'")
        col = LETTERS.index(m.group(1))
        row = int(m.group(2))
        low, high = (0, self._rows + 1) if beyond else (1, self._rows)
        if col >= self._cols or not low <= row <= high:
            raise error(f"{what} {name!r} is not on this {self._cols}x{self._rows} board")
        return row * self._cols + col

    # ------------------------------------------------------------ moves
    def parse_move(self, text: str) -> PhutballMove:
        return PhutballMove.parse(text)

    def _move_from_core(self, cm: Any) -> PhutballMove:
        if isinstance(cm, int):
            return PhutballMove((self._name(cm),))
        return PhutballMove(tuple(self._name(c) for c in cm))

    def _core_from_move(self, move: PhutballMove) -> Any:
        pts = move.points
        if len(pts) == 1:
            return self._cell_of(pts[0], what=f"in {move}: point")
        cells = [self._cell_of(p, what=f"in {move}: point", beyond=(i > 0))
                 for i, p in enumerate(pts)]
        return tuple(cells)

    def _illegal_reason(self, move: Any) -> str:
        pts = move.points
        if len(pts) == 1:
            cell = self._core_from_move(move)
            if cell == self._ball_cell():
                return f"the ball is on {pts[0]}"
            return f"{pts[0]} already holds a man"
        cells = self._core_from_move(move)
        if cells[0] != self._ball_cell():
            return f"the ball is on {self._name(self._ball_cell())}, not on {pts[0]}"
        return "not every step is a jump over men to the first empty point beyond them " \
               "(or the path goes on after leaving the board)"

    def _ball_cell(self) -> int:
        return int(self._core_get_state()[3])

    @property
    def ball(self) -> str:
        """The ball's point (``h20`` style beyond the top goal line, ``h0`` below row 1)."""
        return self._name(self._ball_cell())

    # ------------------------------------------------------------ game flow (mid-move aware)
    @property
    def legal_moves(self) -> LegalMoveView:
        """The legal whole moves; empty while a ball move is open (integer layer)."""
        return _PhutballMoveView(self)

    def push(self, move: Any) -> Any:
        if self._open:
            # Check the input first so that garbage is still an InvalidMoveError.
            if isinstance(move, str):
                self.parse_move(move)
            raise IllegalMoveError(
                f"illegal move {str(move)!r}: the ball move {self._stack[-1]} is still open; "
                "apply jump or stop actions, or pop() it")
        return super().push(move)

    def pop(self) -> Any:
        move = super().pop()
        self._open = False
        return move

    def current_player(self) -> int:
        if self._open:
            return int(self._core_player_open())
        return int(self._core_player())

    @property
    def turn(self) -> int:
        return self.current_player()

    def is_over(self) -> bool:
        return not self._open and self._core_player() == TERMINAL

    def _core_player_open(self) -> int:
        return int(self._core_get_state()[4]) ^ 1

    @property
    def in_jump(self) -> bool:
        """True while a ball move is open in the step-by-step (integer) mode."""
        return self._open

    def outcome(self) -> Optional[Outcome]:
        if self._open:
            return None
        status = self._core_status()
        if status == _RUNNING:
            return None
        if status == _TOP:
            return Outcome((0,), (), f"the ball reached row {self._rows} or beyond")
        if status == _BOTTOM:
            return Outcome((1,), (), "the ball reached row 1 or beyond")
        if status == _CAP:
            return Outcome((), (), f"the ply cap of {self.max_plies} was reached")
        loser = self._core_get_state()[4]
        return Outcome((loser ^ 1,), (), f"player {loser} has no legal move")

    def _refuse_open(self, what: str) -> None:
        if self._open:
            raise BrettError(f"{what}: the ball move {self._stack[-1]} is still open; "
                             "stop it or pop() it first")

    def perft(self, depth: int, count_finished: bool = False, executor: Any = None) -> int:
        self._refuse_open("perft")
        return super().perft(depth, count_finished, executor)

    def divide(self, depth: int, count_finished: bool = False) -> dict[Any, int]:
        self._refuse_open("divide")
        return super().divide(depth, count_finished)

    def random_playout(self, seed: Optional[int] = None,
                       max_plies: Optional[int] = None) -> Optional[Outcome]:
        """Play random moves onto this game (they go on the move stack) until it
        ends or ``max_plies`` moves were made; return the outcome (None if cut short).

        A random move is drawn as the integer layer plays it: a uniform choice
        among :meth:`legal_actions` (placements and jump directions), then, while
        a ball move is open, among the next jumps and *stop*.  (Uniform over
        whole paths would need all paths counted, and their number can grow
        exponentially.)  The same seed plays the same game on both cores and in
        :meth:`random_playouts`.
        """
        self._refuse_open("random_playout")
        rng = SplitMix64(self._rng.getrandbits(64) if seed is None else seed)
        plies = 0
        while not self.is_over() and (max_plies is None or plies < max_plies):
            while True:
                actions = self.legal_actions()
                self.apply_action(actions[rng.below(len(actions))])
                if not self._open:
                    break
            plies += 1
        return self.outcome()

    def random_playouts(self, n: int, seed: Optional[int] = None,
                        max_plies: Optional[int] = None) -> Any:
        self._refuse_open("random_playouts")
        return super().random_playouts(n, seed, max_plies)

    # ------------------------------------------------------------ integer layer
    def num_distinct_actions(self) -> int:
        return self._cols * self._rows + 9

    @property
    def stop_action(self) -> int:
        return self._cols * self._rows + 8

    def legal_actions(self) -> list[int]:
        n = self._cols * self._rows
        jumps = [n + d for d in range(8) if self._core_jump_target(d) >= 0]
        if self._open:
            return [*jumps, n + 8]
        if self._core_player() == TERMINAL:
            return []
        cols = self._cols
        ball = self._ball_cell()
        state = self._core_get_state()
        men = set(state[2])
        places = [c - cols for c in range(cols, (self._rows + 1) * cols)
                  if c not in men and c != ball]
        return places + jumps

    def action_to_move(self, action: int) -> PhutballMove:
        """The move an action makes: a placement, the path grown by one jump, or
        (for *stop*) the open path; IllegalMoveError if the action is not legal."""
        self._check_action(action)
        n = self._cols * self._rows
        if action < n:
            return self._move_from_core(action + self._cols)
        if action == n + 8:
            if not self._open:
                raise IllegalMoveError(f"action {action} (stop): no ball move is open")
            return self._stack[-1]  # type: ignore[no-any-return]
        d = action - n
        land = self._core_jump_target(d)
        if land < 0:
            raise IllegalMoveError(
                f"action {action} (jump {DIRECTION_NAMES[d]}): no jump that way from "
                f"{self._name(self._ball_cell())}")
        if self._open:
            return PhutballMove((*self._stack[-1].points, self._name(land)))
        return PhutballMove((self._name(self._ball_cell()), self._name(land)))

    def move_to_action(self, move: Any) -> int:
        """The action for a placement, for a one-jump path from the ball, for the
        open path grown by one jump, or *stop* for the open path itself."""
        if isinstance(move, str):
            move = self.parse_move(move)
        if not isinstance(move, PhutballMove):
            raise InvalidMoveError(f"{move!r} is not a PhutballMove or its notation")
        n = self._cols * self._rows
        if move.is_placement:
            return int(self._core_from_move(move)) - self._cols
        cells = self._core_from_move(move)
        if self._open:
            open_cells = self._core_from_move(self._stack[-1])
            if cells == open_cells:
                return n + 8
            prefix, start = open_cells, cells[-2]
        else:
            prefix, start = cells[:1], cells[0]
        if cells[:-1] != prefix or len(cells) != len(prefix) + 1:
            raise IllegalMoveError(
                f"{move} is not one step from here: a path of several jumps is several actions")
        d = self._direction(start, cells[-1])
        if d < 0:
            raise IllegalMoveError(f"{move}: its last step is not along one of the 8 directions")
        return n + d

    def observation_tensor(self) -> Any:
        """The position as 4 planes of ``(rows + 2) × columns`` 0/1 values.

        Plane 0 the men, plane 1 the ball, plane 2 all ones when player 1 is to
        move, plane 3 all ones while a ball move is open.  Row index ``r`` is
        board row ``r``: index 0 and ``rows + 1`` are the points beyond the goal
        lines (only the ball can be there).  A float32 numpy array of shape
        ``(4, rows + 2, columns)`` if numpy is installed, else the same as
        nested lists.
        """
        cols, rows, men, ball = self._core_get_state()[:4]
        height = rows + 2
        planes = [[[0.0] * cols for _ in range(height)] for _ in range(4)]
        for c in men:
            planes[0][c // cols][c % cols] = 1.0
        planes[1][ball // cols][ball % cols] = 1.0
        for plane, on in ((2, self.current_player() == 1), (3, self._open)):
            if on:
                planes[plane] = [[1.0] * cols for _ in range(height)]
        try:
            import numpy
        except ImportError:
            return planes
        return numpy.asarray(planes, dtype=numpy.float32)

    def _direction(self, a: int, b: int) -> int:
        cols = self._cols
        dc, dr = b % cols - a % cols, b // cols - a // cols
        dist = max(abs(dc), abs(dr))
        if dist < 2 or (dc and dr and abs(dc) != abs(dr)):
            return -1
        return _DIRS.index((dc // dist, dr // dist))

    def apply_action(self, action: int) -> None:
        """Play one action (placement, jump or stop); IllegalMoveError if not legal
        here, state unchanged."""
        self._check_action(action)
        n = self._cols * self._rows
        if not self._open and self._core_player() == TERMINAL:
            raise IllegalMoveError(f"action {action}: the game is over")
        if action < n:
            if self._open:
                raise IllegalMoveError(
                    f"action {action} (placement): the ball move {self._stack[-1]} is open; "
                    "only jumps and stop are legal")
            self.push(self.action_to_move(action))
            return
        if action == n + 8:
            self.action_to_move(action)  # raises if nothing is open
            self._open = False
            return
        move = self.action_to_move(action)
        if self._open:
            self._core_pop()
            self._stack.pop()
        cm = self._core_from_move(move)
        self._core_push(cm)
        self._stack.append(move)
        self._open = cm[-1] // self._cols not in (0, self._rows + 1)

    def undo_action(self) -> None:
        """Take back one action: a jump (the last landing), a *stop* (re-opening
        the path), or a placement.  IndexError if nothing was played."""
        if not self._stack:
            raise IndexError("undo_action with an empty move stack")
        last = self._stack[-1]
        beyond = last.is_jump and \
            self._core_from_move(last)[-1] // self._cols in (0, self._rows + 1)
        if last.is_jump and not self._open and not beyond:
            self._open = True  # undo the stop: the core state is the same
            return
        self.pop()
        if last.is_jump and len(last.points) > 2:
            shorter = PhutballMove(last.points[:-1])
            self._core_push(self._core_from_move(shorter))
            self._stack.append(shorter)
            self._open = True

    # ------------------------------------------------------------ position strings
    def position(self) -> str:
        """The position string (P7); see docs/phutball.md for the optional fields."""
        cols, rows, men, ball, side, ply, cap = self._core_get_state()
        menset = set(men)
        if self._open:
            side ^= 1
            ply -= 1

        def row_text(r: int) -> str:
            out, run = [], 0
            for col in range(cols):
                c = r * cols + col
                ch = "O" if c in menset else "*" if c == ball else ""
                if ch:
                    if run:
                        out.append(str(run))
                    out.append(ch)
                    run = 0
                else:
                    run += 1
            if run:
                out.append(str(run))
            return "".join(out)

        first = rows + 1 if ball // cols == rows + 1 else rows
        last = 0 if ball // cols == 0 else 1
        fields = [row_text(r) for r in range(first, last - 1, -1)]
        parts = ["/".join(fields), str(side)]
        if (cols, rows) != _DEFAULT:
            parts.append(f"{cols}x{rows}")
        if cap >= 0:
            parts.append(f"plies:{ply}/{cap}")
        if self._open:
            parts.append(f"jump:{self._stack[-1]}")
        return " ".join(parts)

    @classmethod
    def from_position(cls, position: str) -> Any:
        """The game at a position string (P7); InvalidPositionError if malformed."""
        if not isinstance(position, str):
            raise InvalidPositionError(f"{position!r} is not a position string")
        tokens = position.split()
        if len(tokens) < 2:
            raise InvalidPositionError(
                f"{position!r}: expected the rows, the side to move and optional fields")
        board, side_t, extra = tokens[0], tokens[1], tokens[2:]
        if side_t not in ("0", "1"):
            raise InvalidPositionError(f"{position!r}: side to move {side_t!r} is not 0 or 1")
        cols, rows = _DEFAULT
        cap, ply, jump = -1, 0, None
        order = 0
        for tok in extra:
            if (m := _SIZE.fullmatch(tok)) and order < 1:
                cols = _check_size("columns", int(m.group(1)))
                rows = _check_size("rows", int(m.group(2)))
                if (cols, rows) == _DEFAULT:
                    raise InvalidPositionError(
                        f"{position!r}: the size 15x19 is the default and is not written")
                order = 1
            elif (m := _PLIES.fullmatch(tok)) and order < 2:
                ply, cap = int(m.group(1)), int(m.group(2))
                if cap < 1 or ply > cap:
                    raise InvalidPositionError(
                        f"{position!r}: {tok!r} needs a cap >= 1 and plies <= cap")
                order = 2
            elif tok.startswith("jump:") and order < 3:
                jump = tok[5:]
                order = 3
            else:
                raise InvalidPositionError(
                    f"{position!r}: unexpected field {tok!r} (expected COLSxROWS, "
                    "plies:N/CAP, jump:PATH in this order)")
        men, ball = cls._parse_board(position, board, cols, rows)
        side = int(side_t)
        game = cls.__new__(cls)
        game._cols, game._rows = cols, rows
        game._open = False
        path_cells: Optional[tuple[int, ...]] = None
        if jump is not None:
            try:
                move = PhutballMove.parse(jump)
                if not move.is_jump:
                    raise InvalidMoveError("not a path")
                path_cells = game._core_from_move(move)
            except BrettError as exc:
                raise InvalidPositionError(
                    f"{position!r}: jump:{jump} is not a ball path on this board ({exc})") from None
            if path_cells[-1] != ball:
                raise InvalidPositionError(f"{position!r}: jump:{jump} does not end at the ball")
            if ball // cols in (0, rows + 1):
                raise InvalidPositionError(
                    f"{position!r}: a jump beyond a goal line ends the move; it cannot be open")
            # Put back the men the path jumped: that is the position before the move.
            restored: set[int] = set()
            for a, b in itertools.pairwise(path_cells):
                d = game._direction(a, b)
                if d < 0:
                    raise InvalidPositionError(f"{position!r}: jump:{jump} has a step "
                                               f"that is no straight jump")
                dc, dr = _DIRS[d]
                between = range(a + dr * cols + dc, b, dr * cols + dc)
                if any(c in men or c in restored for c in between):
                    raise InvalidPositionError(f"{position!r}: jump:{jump} does not fit the board")
                restored.update(between)
            men = men | restored
            ball = path_cells[0]
            if cap >= 0 and ply >= cap:
                raise InvalidPositionError(f"{position!r}: an open move needs plies < cap")
        state = (cols, rows, tuple(sorted(men)), ball, side, ply, cap)
        game._init_game(state, None)
        if path_cells is not None:
            if not game._core_is_legal(path_cells):
                raise InvalidPositionError(f"{position!r}: jump:{jump} is not a legal path")
            game._core_push(path_cells)
            game._stack.append(game._move_from_core(path_cells))
            game._open = True
        return game

    @staticmethod
    def _parse_board(position: str, board: str, cols: int, rows: int) -> tuple[set[int], int]:
        fields = board.split("/")
        if len(fields) not in (rows, rows + 1):
            raise InvalidPositionError(
                f"{position!r}: {len(fields)} rows, expected {rows} for a {cols}x{rows} board")
        parsed = []
        for f in fields:
            cells: list[str] = []
            i = 0
            while i < len(f):
                ch = f[i]
                if ch.isdigit():
                    j = i
                    while j < len(f) and f[j].isdigit():
                        j += 1
                    run = int(f[i:j])
                    if run == 0 or f[i] == "0":
                        raise InvalidPositionError(f"{position!r}: bad run {f[i:j]!r} in {f!r}")
                    cells.extend("." * run)
                    i = j
                elif ch in "O*":
                    cells.append(ch)
                    i += 1
                else:
                    raise InvalidPositionError(
                        f"{position!r}: unexpected {ch!r} in row {f!r} (use O, * and digits)")
            if len(cells) != cols:
                raise InvalidPositionError(
                    f"{position!r}: row {f!r} has {len(cells)} points, expected {cols}")
            parsed.append(cells)
        if len(fields) == rows + 1:
            # One extra row: the virtual row beyond a goal line, holding only the ball.
            if "*" in parsed[0] and "O" not in parsed[0]:
                numbers = range(rows + 1, 0, -1)
            elif "*" in parsed[-1] and "O" not in parsed[-1]:
                numbers = range(rows, -1, -1)
            else:
                raise InvalidPositionError(
                    f"{position!r}: {rows + 1} rows, but the extra row is not a ball "
                    "beyond a goal line")
        else:
            numbers = range(rows, 0, -1)
        men: set[int] = set()
        balls = []
        for r, cells in zip(numbers, parsed, strict=True):
            for col, ch in enumerate(cells):
                if ch == "O":
                    men.add(r * cols + col)
                elif ch == "*":
                    balls.append(r * cols + col)
        if len(balls) != 1:
            raise InvalidPositionError(f"{position!r}: {len(balls)} balls, expected exactly one")
        return men, balls[0]

    # ------------------------------------------------------------ copies and pickling
    def copy(self, stack: bool = True) -> Any:
        new = super().copy(stack)
        if not stack and self._open:
            # The open path is part of the position: keep it as an open move.
            new = type(self).from_position(self.position())
            new._rng.setstate(self._rng.getstate())
        return new

    # ------------------------------------------------------------ text and CLI
    def __str__(self) -> str:
        cols, rows, men, ball = self._core_get_state()[:4]
        menset = set(men)
        header = "    " + " ".join(LETTERS[:cols])

        def beyond_line(r: int) -> str:
            marks = ["*" if ball == r * cols + c else "=" for c in range(cols)]
            return "    " + " ".join(marks)

        lines = [header, beyond_line(rows + 1)]
        for r in range(rows, 0, -1):
            marks = ["O" if r * cols + c in menset else "*" if r * cols + c == ball else "."
                     for c in range(cols)]
            lines.append(f"{r:>3} " + " ".join(marks) + f" {r}")
        lines += [beyond_line(0), header]
        outcome = self.outcome()
        if outcome is not None:
            lines.append(f"game over: {outcome.reason}")
        else:
            mover = self.current_player()
            goal = rows if mover == 0 else 1
            text = f"player {mover} to move (attacks row {goal})"
            if self._open:
                text += f", ball move {self._stack[-1]} open"
            lines.append(text)
        return "\n".join(lines)

    @classmethod
    def cli_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--columns", type=int, default=15, help="board columns, 5-25")
        parser.add_argument("--rows", type=int, default=19, help="board rows, 5-25")
        parser.add_argument("--ball", help="the ball's start point (default: the centre)")
        parser.add_argument("--max-plies", type=int, help="ply cap: a draw when reached")

    @classmethod
    def from_cli(cls, args: argparse.Namespace) -> Any:
        return cls(columns=args.columns, rows=args.rows, ball=args.ball,
                   max_plies=args.max_plies)


class _PhutballMoveView(LegalMoveView):
    """The legal moves; none while a ball move is open in the integer layer."""

    __slots__ = ()

    def __iter__(self) -> Any:
        if self._game._open:  # type: ignore[attr-defined]
            return iter([])
        return super().__iter__()

    def count(self) -> int:
        if self._game._open:  # type: ignore[attr-defined]
            return 0
        return super().count()

    def __bool__(self) -> bool:
        return self.count() > 0

    def __contains__(self, move: object) -> bool:
        if self._game._open:  # type: ignore[attr-defined]
            return False
        return super().__contains__(move)


class Phutball(_PhutballAPI, _cores.selected.PhutballCore):  # type: ignore[misc,name-defined]
    """Conway's Philosopher's Football on a ``columns × rows`` board.

    >>> game = Phutball()
    >>> game.push("h11")
    PhutballMove(('h11',))
    >>> game.push("h10-h12")
    PhutballMove(('h10', 'h12'))
    >>> game.ball, game.turn
    ('h12', 0)
    >>> Phutball().perft(2)
    80380
    """
