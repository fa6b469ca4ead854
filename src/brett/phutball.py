"""Phutball (Philosopher's Football, J. H. Conway): placements and jump paths.

Rules: docs/rules/phutball.md (P1–P8).  Two API layers on one object:

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

A ball move is played step by step.  After a jump the move is *pending*
(:attr:`pending_actions`): the same player is to move and only further jumps
and *stop* are legal (a jump beyond a goal line ends the move by itself).  The
board shown (``piece_map``, ``ball``, the text board, the position string with
its ``jump:`` field, the observation) is the board after the jumps so far;
*stop* puts the whole path on :attr:`move_stack` as ONE move.
:meth:`undo_action` takes back one action: a jump, or the last action of the
last move (a placement, the *stop* of a path, re-opening it, or the final jump
beyond a goal line).  :meth:`push` and :meth:`pop` are refused while a move is
pending.

A position can have very many jump paths (hundreds of thousands after a long
game on 15×19, more than any machine can count on a lattice of men):
``legal_moves.count()`` counts them without listing them, ``count(limit=N)``
stops at "more than N", iterating ``legal_moves`` streams them one by one, and
``random_playout`` and the integer layer choose a path step by step.  Avoid
``list(legal_moves)`` or ``divide`` on such positions (Ctrl-C and
``brett.Stopper`` end them).
"""

from __future__ import annotations

import itertools
import random
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from ._checks import MAX_PLIES, digits, option_int, optional_cap, seed_value, text_field
from .errors import BrettError, IllegalMoveError, InvalidMoveError, InvalidPositionError
from .game import (
    MAX_PLIES_OPTION,
    MORE,
    SEED_OPTION,
    Clicks,
    Game,
    GameOption,
    Outcome,
    load_cores,
)

if TYPE_CHECKING:
    import argparse

_cores = load_cores("phutball")

LETTERS = "abcdefghjklmnopqrstuvwxyz"
"""Column letters, like Go: no ``i``."""
DIRECTION_NAMES = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
_SIDES = ("Up", "Down")   # players 0 and 1, by the goal line each attacks: top, bottom
_DIRS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))
_POINT = re.compile(r"([a-hj-z])([0-9]{1,2})")
_SIZE = re.compile(r"([0-9]{1,2})x([0-9]{1,2})")
_PLIES = re.compile(r"plies:([0-9]{1,10})/([0-9]{1,10})")
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
        text_field(text, "Phutball notation", limit=5000, error=InvalidMoveError)
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


@dataclass(frozen=True)
class PhutballEffects:
    """What a Phutball move changes (:meth:`Phutball.effects`): the point where
    a man is ``placed`` (None for a ball move), the ball's ``path`` (its start,
    then every landing, as ``PhutballMove.points``; empty for a placement), the
    men ``removed`` (in the order they are jumped) and the ``player`` moving."""

    placed: Optional[str]
    path: tuple[str, ...]
    removed: tuple[str, ...]
    player: int


def _letter(col: int) -> str:
    return LETTERS[col]


def _direction(cols: int, a: int, b: int) -> int:
    """The direction index from cell ``a`` to cell ``b`` (two or more points apart
    on a line), or -1."""
    dc, dr = b % cols - a % cols, b // cols - a // cols
    dist = max(abs(dc), abs(dr))
    if dist < 2 or (dc and dr and abs(dc) != abs(dr)):
        return -1
    return _DIRS.index((dc // dist, dr // dist))


class Phutball(Game[PhutballMove]):
    """Conway's Philosopher's Football on a ``columns × rows`` board:
    ``Phutball(columns=15, rows=19, ball=None, max_plies=None, seed=None)``.

    >>> game = Phutball()
    >>> game.push("h11")
    PhutballMove(('h11',))
    >>> game.push("h10-h12")
    PhutballMove(('h10', 'h12'))
    >>> game.ball, game.turn, game.piece_at("h12")
    ('h12', 0, 'ball')
    >>> Phutball().perft(2)
    80380
    """

    game_name = "phutball"
    Move = PhutballMove
    _move_types = (PhutballMove,)
    if TYPE_CHECKING:  # precise types for the type checker; the base does the work
        def effects(self, move: PhutballMove | str) -> PhutballEffects: ...

    OPTIONS = (
        GameOption("columns", ("integer",), 15, "board width", 5, 25),
        GameOption("rows", ("integer",), 19, "board height, the goal lines included", 5, 25),
        GameOption("ball", ("string", "null"), None,
                   "the ball's starting point (none: the centre)"),
        MAX_PLIES_OPTION,
        SEED_OPTION,
    )
    _cores = _cores
    _core_class_name = "PhutballCore"
    _state_bytes = 80 << 10   # measured: 21 KB (15×19) to 59 KB (25×25, plain twin)
    multi_action = True

    _cols: int
    _rows: int

    def __init__(self, columns: int = 15, rows: int = 19, ball: Optional[str] = None,
                 max_plies: Optional[int] = None, seed: Optional[int] = None) -> None:
        cols = option_int(columns, "columns", 5, 25)
        nrows = option_int(rows, "rows", 5, 25)
        cap = optional_cap(max_plies)
        self._cols, self._rows = cols, nrows
        if ball is None:
            cell = ((nrows + 1) // 2) * cols + (cols + 1) // 2 - 1
        else:
            cell = self._cell_of(ball, InvalidPositionError, "ball")
            row = cell // cols
            if not 2 <= row <= nrows - 1:
                raise InvalidPositionError(
                    f"ball={ball!r}: the ball must start off the goal lines "
                    f"(rows 2 to {nrows - 1})")
        rng = random.Random(seed_value(seed, error=InvalidPositionError))
        self._setup((cols, nrows, (), cell, 0, 0, cap), rng)

    # ------------------------------------------------------------ options and points
    @property
    def columns(self) -> int:
        return self._cols

    @property
    def rows(self) -> int:
        return self._rows

    @property
    def max_plies(self) -> Optional[int]:
        cap = self._root[6]
        return None if cap < 0 else int(cap)

    def num_players(self) -> int:
        return 2

    def player_name(self, player: int) -> str:
        """Named by the goal line each attacks (the rules' player 0 and 1)."""
        return f"{_SIDES[player]} (attacks the {('top', 'bottom')[player]})"

    def _name(self, cell: int) -> str:
        return f"{_letter(cell % self._cols)}{cell // self._cols}"

    def _cell_of(self, name: Any, error: type[BrettError] = IllegalMoveError,
                 what: str = "point", beyond: bool = False) -> int:
        m = _POINT.fullmatch(name.lower()) if isinstance(name, str) and len(name) < 8 else None
        if not m:
            raise error(f"{what} {name!r} is not a point name like 'h10'")
        col = LETTERS.index(m.group(1))
        row = int(m.group(2))
        low, high = (0, self._rows + 1) if beyond else (1, self._rows)
        if col >= self._cols or not low <= row <= high:
            raise error(f"{what} {name!r} is not on this {self._cols}x{self._rows} board")
        return row * self._cols + col

    @property
    def points(self) -> list[str]:
        """Every point of the board (rows 1 to ``rows``, row by row from the bottom)."""
        return [self._name(c) for c in range(self._cols, (self._rows + 1) * self._cols)]

    # ------------------------------------------------------------ the board shown
    def _shown(self) -> tuple[Any, ...]:
        """The core state, with a pending ball move's jumps made (men removed,
        the ball on its last landing; side and ply still those of the mover)."""
        with self._lock:  # the core and the pending jumps of one moment
            state = self._core.get_state()
            if not self._pending:
                return tuple(state)
            snap = self._core.clone(False)
            path = self._pending_path()
        snap.push(path, None)
        cols, rows, men, ball, _, _, _ = snap.get_state()
        return (cols, rows, men, ball, *state[4:])

    def _walk(self, actions: tuple[int, ...]) -> Any:
        """The core's walk of the ball along jump actions (see ``jumps_after``)."""
        n = self._cols * self._rows
        return self._core.jumps_after(tuple(a - n for a in actions))  # type: ignore[attr-defined]

    def _pending_path(self) -> tuple[int, ...]:
        walk = self._walk(self._pending)
        assert walk is not None
        return (self._core.get_state()[3], *walk[0])

    @property
    def ball(self) -> str:
        """The ball's point (``h20`` style beyond the top goal line, ``h0`` below row 1)."""
        return self._name(self._shown()[3])

    def piece_at(self, square: str) -> Optional[str]:
        """``"man"``, ``"ball"`` or None for a point (``h20`` / ``h0``: beyond a goal line)."""
        cell = self._cell_of(square, InvalidMoveError, "point", beyond=True)
        _, _, men, ball = self._shown()[:4]
        return "ball" if cell == ball else "man" if cell in men else None

    def piece_map(self) -> dict[str, str]:
        """``{point: "man" or "ball"}`` for every man and the ball, in point order
        (``a1``, ``b1``, ... as ``points``)."""
        _, _, men, ball = self._shown()[:4]
        cells = {c: "man" for c in men}
        cells[ball] = "ball"
        return {self._name(c): cells[c] for c in sorted(cells)}

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

    def _clicks(self, prefix: tuple[str, ...]) -> Clicks[PhutballMove]:
        """A placement is its point; a ball move the ball, each landing, then
        ``"stop"`` (none after a jump beyond a goal line).  The jumps are walked
        through the integer layer one landing at a time, never listed."""
        n = self._cols * self._rows
        ball = self.ball
        if not prefix:
            following = [p for p in self.points if self.piece_at(p) is None]
            placements = frozenset(following)
            if any(a >= n for a in self.legal_actions()):
                following.append(ball)
            return Clicks(prefix, (), tuple(following), placements)
        if prefix[0] != ball:
            move = PhutballMove((prefix[0],)) if len(prefix) == 1 else None
            legal = move is not None and self.piece_at(prefix[0]) is None and \
                move in self.legal_moves
            return Clicks(prefix, (move,) if legal and move else (), ())
        walk = self.copy()
        path = [ball]
        for number, click in enumerate(prefix[1:], 2):
            if click == "stop":
                done = number == len(prefix) and n + 8 in walk.legal_actions()
                return Clicks(prefix, (PhutballMove(tuple(path)),) if done else (), ())
            options = {str(walk.action_to_move(a).points[-1]): a
                       for a in walk.legal_actions() if n <= a < n + 8}
            if click not in options:
                return Clicks(prefix, (), ())
            walk.apply_action(options[click])
            path.append(click)
            if not walk.pending_actions:  # beyond a goal line: the move is over
                ended = number == len(prefix)
                return Clicks(prefix, (PhutballMove(tuple(path)),) if ended else (), ())
        following = [str(walk.action_to_move(a).points[-1])
                     for a in walk.legal_actions() if n <= a < n + 8]
        if walk.pending_actions:
            following.append("stop")
        return Clicks(prefix, (), tuple(following))

    def _effects(self, move: PhutballMove, after: Phutball) -> PhutballEffects:
        cols = self._cols
        _, _, men, _, player = self._core.get_state()[:5]
        if move.is_placement:
            return PhutballEffects(move.points[0], (), (), player)
        gone = set(men) - set(after._core.get_state()[2])
        cells = self._core_from_move(move)
        removed = []
        for a, b in itertools.pairwise(cells):
            dc, dr = _DIRS[_direction(cols, a, b)]
            removed += [self._name(c) for c in range(a + dr * cols + dc, b, dr * cols + dc)
                        if c in gone]
        return PhutballEffects(None, move.points, tuple(removed), player)

    def _illegal_reason(self, move: Any) -> str:
        pts = move.points
        ball = self._core.get_state()[3]
        if len(pts) == 1:
            cell = self._core_from_move(move)
            if cell == ball:
                return f"the ball is on {pts[0]}"
            return f"{pts[0]} already holds a man"
        cells = self._core_from_move(move)
        if cells[0] != ball:
            return f"the ball is on {self._name(ball)}, not on {pts[0]}"
        return "not every step is a jump over men to the first empty point beyond them " \
               "(or the path goes on after leaving the board)"

    def outcome(self) -> Optional[Outcome]:
        if self._pending:
            return None
        status = self._core.status()  # type: ignore[attr-defined]
        if status == _RUNNING:
            return None
        if status == _TOP:
            return Outcome((0,), (), f"the ball reached row {self._rows} or beyond")
        if status == _BOTTOM:
            return Outcome((1,), (), "the ball reached row 1 or beyond")
        if status == _CAP:
            return Outcome((), (), f"the ply cap of {self.max_plies} was reached")
        loser = self._core.get_state()[4]
        return Outcome((loser ^ 1,), (), f"{self.player_name(loser)} has no legal move")

    # ------------------------------------------------------------ integer layer
    def num_distinct_actions(self) -> int:
        return self._cols * self._rows + 9

    @property
    def stop_action(self) -> int:
        return self._cols * self._rows + 8

    def _step_options(self, pending: tuple[int, ...]) -> dict[int, Any]:
        """Placements (not while a ball move is pending), jumps, and *stop*."""
        n = self._cols * self._rows
        options: dict[int, Any] = {}
        walk = self._walk(pending)
        if walk is None:
            return options
        ball = self._core.get_state()[3]
        path = (ball, *walk[0])
        if not pending:
            cols, rows, men = self._cols, self._rows, set(self._core.get_state()[2])
            for c in range(cols, (rows + 1) * cols):
                if c not in men and c != ball:
                    options[c - cols] = c
        for d, land in enumerate(walk[1]):
            if land >= 0:
                beyond = land // self._cols in (0, self._rows + 1)
                options[n + d] = (*path, land) if beyond else MORE
        if pending:
            options[n + 8] = path
        return options

    def _step(self, pending: tuple[int, ...], action: int) -> Any:
        n = self._cols * self._rows
        if action < n:
            cell = action + self._cols
            return cell if not pending and self._core.is_legal(cell) else None
        return self._next_options(pending).get(action)

    def _search_move(self, steps: list[int]) -> PhutballMove:
        """brett.ai searches a ball move step by step: the steps of one turn as a move."""
        return self._move_from_core(_cores.python.search_move(self._core, steps))

    def _actions_of(self, move: PhutballMove) -> tuple[int, ...]:
        cm = self._core_from_move(move)
        n = self._cols * self._rows
        if isinstance(cm, int):
            return (cm - self._cols,)
        dirs = tuple(n + _direction(self._cols, a, b) for a, b in itertools.pairwise(cm))
        beyond = cm[-1] // self._cols in (0, self._rows + 1)
        return dirs if beyond else (*dirs, n + 8)

    def _partial_move(self, actions: tuple[int, ...]) -> PhutballMove:
        """A placement, the path grown by a jump, or (for *stop*) the path so far."""
        n = self._cols * self._rows
        *pending, action = actions
        options = self._next_options(tuple(pending))
        if action not in options:
            what = ("placement" if action < n else "stop" if action == n + 8
                    else f"jump {DIRECTION_NAMES[action - n]}")
            raise IllegalMoveError(f"action {action} ({what}) is not legal here")
        done = options[action]
        if done is MORE:
            walk = self._walk((*pending, action))
            return self._move_from_core((self._core.get_state()[3], *walk[0]))
        return self._move_from_core(done)

    def _action_of_move(self, move: PhutballMove) -> int:
        cm = self._core_from_move(move)
        n = self._cols * self._rows
        if isinstance(cm, int):
            return cm - self._cols
        prefix = self._pending_path() if self._pending else (cm[0],)
        if self._pending and tuple(cm) == prefix:
            return n + 8  # the path so far: stop here (what action_to_move(stop) shows)
        if tuple(cm[:len(prefix)]) != prefix or len(cm) != len(prefix) + 1:
            raise IllegalMoveError(
                f"{move} is not one step from here: a path of several jumps is several actions")
        d = _direction(self._cols, cm[-2], cm[-1])
        if d < 0:
            raise IllegalMoveError(f"{move}: its last step is not along one of the 8 directions")
        return n + d

    # ------------------------------------------------------------ observation
    def observation_tensor_shape(self) -> tuple[int, int, int]:
        """``(4, rows + 2, columns)``: plane 0 the men, plane 1 the ball, plane 2
        all ones when player 1 is to move, plane 3 all ones while a ball move is
        pending.  Row index ``r`` is board row ``r``: index 0 and ``rows + 1``
        are the points beyond the goal lines (only the ball can be there)."""
        return (4, self._rows + 2, self._cols)

    def _observation(self) -> list[float]:
        cols, rows, men, ball = self._shown()[:4]
        size = (rows + 2) * cols
        values = [0.0] * (4 * size)
        for c in men:
            values[c] = 1.0
        values[size + ball] = 1.0
        if self.current_player() == 1:
            values[2 * size:3 * size] = [1.0] * size
        if self._pending:
            values[3 * size:] = [1.0] * size
        return values

    # ------------------------------------------------------------ position strings
    def position(self) -> str:
        """The position string (P7); see :doc:`docs/phutball.md <phutball>` for the
        optional fields."""
        cols, rows, men, ball, side, ply, cap = self._shown()
        menset = set(men)

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
        if self._pending:
            parts.append(f"jump:{self._move_from_core(self._pending_path())}")
        return " ".join(parts)

    @classmethod
    def from_position(cls, position: str) -> Phutball:
        """The game at a position string (P7); InvalidPositionError if malformed."""
        text_field(position, "a Phutball position", limit=8000)
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
                cols = option_int(int(m.group(1)), "columns", 5, 25)
                rows = option_int(int(m.group(2)), "rows", 5, 25)
                if (cols, rows) == _DEFAULT:
                    raise InvalidPositionError(
                        f"{position!r}: the size 15x19 is the default and is not written")
                order = 1
            elif (m := _PLIES.fullmatch(tok)) and order < 2:
                ply = digits(m.group(1), f"{position!r}: plies", MAX_PLIES)
                cap = digits(m.group(2), f"{position!r}: cap", MAX_PLIES, low=1)
                if ply > cap:
                    raise InvalidPositionError(f"{position!r}: {tok!r} needs plies <= cap")
                order = 2
            elif tok.startswith("jump:") and order < 3:
                jump = tok[5:]
                order = 3
            else:
                raise InvalidPositionError(
                    f"{position!r}: unexpected field {tok[:40]!r} (expected COLSxROWS, "
                    "plies:N/CAP, jump:PATH in this order)")
        men, ball = cls._parse_board(position, board, cols, rows)
        side = int(side_t)
        game = cls.__new__(cls)
        game._cols, game._rows = cols, rows
        dirs: tuple[int, ...] = ()
        if jump is not None:
            men, ball, dirs = game._unmake_jumps(position, jump, men, ball)
            if cap >= 0 and ply >= cap:
                raise InvalidPositionError(f"{position!r}: an open move needs plies < cap")
        game._setup((cols, rows, tuple(sorted(men)), ball, side, ply, cap))
        if dirs:
            n = cols * rows
            try:
                for d in dirs:
                    game.apply_action(n + d)
            except BrettError:
                raise InvalidPositionError(
                    f"{position!r}: jump:{jump} is not a legal path") from None
            if not game._pending:
                raise InvalidPositionError(f"{position!r}: jump:{jump} is not an open path")
        return game

    def _unmake_jumps(self, position: str, jump: str, men: set[int],
                      ball: int) -> tuple[set[int], int, tuple[int, ...]]:
        """The men and ball before an open path ``jump`` that ends at ``ball``,
        and the path's directions."""
        cols, rows = self._cols, self._rows
        try:
            move = PhutballMove.parse(jump)
            if not move.is_jump:
                raise InvalidMoveError("not a path")
            cells = self._core_from_move(move)
        except BrettError as exc:
            raise InvalidPositionError(
                f"{position!r}: jump:{jump} is not a ball path on this board ({exc})") from None
        if cells[-1] != ball:
            raise InvalidPositionError(f"{position!r}: jump:{jump} does not end at the ball")
        if ball // cols in (0, rows + 1):
            raise InvalidPositionError(
                f"{position!r}: a jump beyond a goal line ends the move; it cannot be open")
        restored: set[int] = set()
        dirs = []
        for a, b in itertools.pairwise(cells):
            d = _direction(cols, a, b)
            if d < 0:
                raise InvalidPositionError(f"{position!r}: jump:{jump} has a step "
                                           f"that is no straight jump")
            dc, dr = _DIRS[d]
            between = range(a + dr * cols + dc, b, dr * cols + dc)
            if any(c in men or c in restored for c in between):
                raise InvalidPositionError(f"{position!r}: jump:{jump} does not fit the board")
            restored.update(between)
            dirs.append(d)
        if cells[0] in men:
            raise InvalidPositionError(f"{position!r}: jump:{jump} starts on a man")
        return men | restored, cells[0], tuple(dirs)

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
                if "0" <= ch <= "9":
                    j = i
                    while j < len(f) and "0" <= f[j] <= "9":
                        j += 1
                    if j - i > 2 or f[i] == "0" or int(f[i:j]) > cols - len(cells):
                        raise InvalidPositionError(
                            f"{position!r}: bad run {f[i:j][:10]!r} in row {f[:40]!r}")
                    cells.extend("." * int(f[i:j]))
                    i = j
                elif ch in "O*":
                    cells.append(ch)
                    i += 1
                else:
                    raise InvalidPositionError(
                        f"{position!r}: unexpected {ch!r} in row {f[:40]!r} (use O, * and digits)")
                if len(cells) > cols:
                    break
            if len(cells) != cols:
                raise InvalidPositionError(
                    f"{position!r}: row {f[:40]!r} has {len(cells)} points, expected {cols}")
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

    # ------------------------------------------------------------ text and CLI
    def __str__(self) -> str:
        cols, rows = self._cols, self._rows
        pieces = self.piece_map()
        header = "    " + " ".join(LETTERS[:cols])

        def mark(r: int, c: int, empty: str) -> str:
            piece = pieces.get(f"{LETTERS[c]}{r}")
            return "O" if piece == "man" else "*" if piece == "ball" else empty

        lines = [header, "    " + " ".join(mark(rows + 1, c, "=") for c in range(cols))]
        for r in range(rows, 0, -1):
            lines.append(f"{r:>3} " + " ".join(mark(r, c, ".") for c in range(cols)) + f" {r}")
        lines += ["    " + " ".join(mark(0, c, "=") for c in range(cols)), header]
        outcome = self.outcome()
        if outcome is not None:
            lines.append(f"game over: {outcome.reason}")
        else:
            mover = self.current_player()
            goal = rows if mover == 0 else 1
            text = f"{_SIDES[mover]} to move (attacks row {goal})"
            if self._pending:
                text += f", ball move {self._move_from_core(self._pending_path())} open"
            lines.append(text)
        return "\n".join(lines)

    @classmethod
    def cli_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--columns", type=int, default=15, help="board columns, 5-25")
        parser.add_argument("--rows", type=int, default=19, help="board rows, 5-25")
        parser.add_argument("--ball", help="the ball's start point (default: the centre)")
        parser.add_argument("--max-plies", type=int, help="ply cap: a draw when reached")

    @classmethod
    def from_cli(cls, args: argparse.Namespace) -> Phutball:
        return cls(columns=args.columns, rows=args.rows, ball=args.ball,
                   max_plies=args.max_plies)


__all__ = ["DIRECTION_NAMES", "LETTERS", "Phutball", "PhutballEffects", "PhutballMove"]
