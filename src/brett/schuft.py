"""Schuft: Winkelmann's race game with Miwin's dice, for 2-4 players (rules S1-S12,
docs/rules/schuft.md).

The state alternates a **chance node** (the roll of the three dice, 216 equally
likely outcomes) and a **decision node** (the player's whole turn)::

    >>> game = Schuft(players=2)
    >>> game.is_chance_node(), game.current_player()
    (True, -1)
    >>> game.roll("5-8-2")
    Roll(5, 8, 2)
    >>> game.push("ccw 17/9 1/32 9/7")   # any legal order; the representative is kept
    SchuftMove('ccw', ('1/32', '17/9', '9/7'))

A move is a whole turn; turns that lead to the same position are one move,
recorded under the step list whose notation sorts first (S12).

Integer layer (OpenSpiel style): at a chance node the actions are the 216 roll
indices ``i3 * 36 + i4 * 6 + i5`` (face indices of the dice III, IV, V).  At a
decision node a turn is a sequence of decisions from a fixed space of
:data:`NUM_ACTIONS` = 336 actions:

* ``(value - 1) * 37 + source`` (0..332): play one die value from ``source``
  (0 = the out area, 1..36 a tongue); the target follows from the rules;
* 333 / 334: choose clockwise / counter-clockwise (only at a roll summing to 15,
  as the turn's first decision, and only a direction with a legal step);
* 335: pass (the only action when no step is possible).

When no unused value has a legal step the decisions form ONE turn move on the
move stack (its canonical representative); ``undo_action`` takes back one
decision.  While a turn is half played (:attr:`pending_actions`),
``position()`` ends with ``;`` and the decisions so far (``;cw 12/17``).
"""

from __future__ import annotations

import functools
import operator
import random
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, Union, overload

from ._checks import (
    MAX_COUNT,
    MAX_PLIES,
    as_int,
    ascii_digits,
    digits,
    option_int,
    optional_cap,
    seed_value,
    text_field,
)
from ._core import _schuft_py as _py
from .ai import _schuft_endgame as _endgame
from .errors import BrettError, IllegalMoveError, InvalidMoveError, InvalidPositionError
from .game import (
    CHANCE,
    MAX_PLIES_OPTION,
    MORE,
    SEED_OPTION,
    TERMINAL,
    Game,
    GameOption,
    Outcome,
    PlayoutStats,
    load_cores,
)

if TYPE_CHECKING:
    import argparse

_cores = load_cores("schuft")

DIE_III, DIE_IV, DIE_V = _py.DIE_III, _py.DIE_IV, _py.DIE_V
ROLLS = _py.ROLLS
NUM_ROLLS = len(ROLLS)  # 216 ordered rolls, each with probability 1/216
ROLL_FLAG = _py.ROLL_FLAG
CW, CCW = _py.CW, _py.CCW
LETTERS = _py.LETTERS
SEATS = _py.SEATS
PATTERN = (0, 1, 2, 3, 0, 1, 2, 3, 0)
FULL_GOAL = _py.FULL_GOAL

_ROLL_SUMS = tuple(sum(r) for r in ROLLS)

ACTION_CW = 333
ACTION_CCW = 334
ACTION_PASS = 335
NUM_ACTIONS = 336

_STEP_RE = re.compile(r"(x|[1-9][0-9]?)/([1-9][0-9]?|g[1-9])\*?")
_ROLL_RE = re.compile(r"([0-9])-([0-9])-([0-9])")


# ------------------------------------------------------------------ value types
@dataclass(frozen=True)
class Roll:
    """One roll of the dice III, IV and V (in that order); ``str()`` is ``5-8-2``."""

    iii: int
    iv: int
    v: int

    def __post_init__(self) -> None:
        for value, faces, name in ((self.iii, DIE_III, "III"), (self.iv, DIE_IV, "IV"),
                                   (self.v, DIE_V, "V")):
            try:
                ok = not isinstance(value, bool) and operator.index(value) in faces
            except TypeError:
                ok = False
            if not ok:
                raise InvalidMoveError(
                    f"roll {self.iii!r}-{self.iv!r}-{self.v!r}: die {name} has the faces "
                    f"{' '.join(map(str, faces))}, not {value!r}")

    @property
    def index(self) -> int:
        """The chance action: ``i3 * 36 + i4 * 6 + i5``."""
        return DIE_III.index(self.iii) * 36 + DIE_IV.index(self.iv) * 6 + DIE_V.index(self.v)

    @property
    def total(self) -> int:
        return self.iii + self.iv + self.v

    @property
    def direction(self) -> str:
        """``"cw"`` over 15, ``"ccw"`` under 15, ``"choice"`` at exactly 15."""
        return "cw" if self.total > 15 else "ccw" if self.total < 15 else "choice"

    @classmethod
    def from_index(cls, index: int) -> Roll:
        return cls(*ROLLS[index])

    @classmethod
    def parse(cls, text: Any) -> Roll:
        """A ``Roll``, ``"5-8-2"`` or ``(5, 8, 2)``; :class:`InvalidMoveError` otherwise."""
        if isinstance(text, Roll):
            return text
        if isinstance(text, tuple) and len(text) == 3:
            return cls(*text)
        if isinstance(text, str):
            m = _ROLL_RE.fullmatch(text.strip())
            if m:
                return cls(*(int(g) for g in m.groups()))
        raise InvalidMoveError(f"{text!r} is not a roll: expected e.g. '5-8-2' (III-IV-V)")

    def __str__(self) -> str:
        return f"{self.iii}-{self.iv}-{self.v}"

    def __repr__(self) -> str:
        return f"Roll({self.iii}, {self.iv}, {self.v})"


@dataclass(frozen=True)
class SchuftMove:
    """A whole turn: ``direction`` ``"cw"``/``"ccw"`` and its steps in the order
    played (``"12/17"``, ``"x/3"``, ``"20/g2"``), or ``SchuftMove("pass")``.
    A turn with fewer steps than it needs is the start of one (the integer
    layer's ``action_to_move`` returns those; ``push`` refuses them)."""

    direction: str
    steps: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        d, steps = self.direction, self.steps
        if not isinstance(d, str) or d not in ("cw", "ccw", "pass") \
                or not isinstance(steps, tuple):
            raise InvalidMoveError(
                f"bad Schuft move {d!r} {steps!r}: direction 'cw', 'ccw' or 'pass' "
                f"and a tuple of steps")
        if d == "pass":
            if steps:
                raise InvalidMoveError(f"'pass' takes no steps, not {steps!r}")
            return
        if len(steps) > 3:
            raise InvalidMoveError(
                f"move {d!r} {steps!r}: a turn has 1 to 3 steps (one per die)")
        clean = []
        for step in steps:
            m = _STEP_RE.fullmatch(step) if isinstance(step, str) else None
            if m is None:
                raise InvalidMoveError(
                    f"bad step {step!r}: expected from/to, from a tongue 1-36 or 'x', "
                    f"to a tongue 1-36 or a goal field g1-g9 (e.g. '12/17', 'x/3', '34/g2')")
            src, dst = m.groups()
            for part in (src, dst):
                if ascii_digits(part) and not 1 <= int(part) <= 36:
                    raise InvalidMoveError(f"bad step {step!r}: tongue {part} is not in 1-36")
            clean.append(f"{src}/{dst}")
        object.__setattr__(self, "steps", tuple(clean))

    @classmethod
    def parse(cls, text: str) -> SchuftMove:
        """``cw 12/17 17/20``, ``ccw x/3`` or ``pass`` (case-insensitive)."""
        parts = text_field(text, "Schuft move notation", 200, InvalidMoveError).split()
        if not parts:
            raise InvalidMoveError(f"empty move {text!r}")
        head = parts[0].lower()
        if head == "pass":
            if len(parts) > 1:
                raise InvalidMoveError(f"bad move {text!r}: 'pass' takes no steps")
            return cls("pass")
        if head not in ("cw", "ccw"):
            raise InvalidMoveError(
                f"bad move {text!r}: a turn starts with its direction 'cw' or 'ccw' "
                f"(e.g. 'cw 12/17 17/20 x/3'), or is 'pass'")
        return cls(head, tuple(parts[1:]))

    def __str__(self) -> str:
        return " ".join((self.direction, *self.steps))

    def __repr__(self) -> str:
        if self.direction == "pass":
            return "SchuftMove('pass')"
        return f"SchuftMove({self.direction!r}, {self.steps!r})"


@dataclass(frozen=True)
class SchuftEffects:
    """What a Schuft move changes (:meth:`Schuft.effects`).

    For a turn: the ``player`` moving, its ``steps`` in the order played as
    ``(from, to)`` field names of :attr:`Schuft.squares` (``("13", "17")``,
    ``("r:x", "29")``, ``("9", "r:g4")``), and the pieces ``sent_back`` (hit,
    S5) as ``(player, field it stood on)``, each going to its owner's out area.
    For a roll: ``roll``, no steps, and ``player`` the player about to move
    (None during the opening roll-off).  A pass has no steps.
    """

    player: Optional[int]
    steps: tuple[tuple[str, str], ...]
    sent_back: tuple[tuple[int, str], ...]
    roll: Optional[Roll] = None


def _code(part: str) -> int:
    if part == "x":
        return 0
    if part[0] == "g":
        return 36 + int(part[1:])
    return int(part)


@functools.lru_cache(maxsize=1 << 16)
def _move_to_cm(move: SchuftMove) -> int:
    if move.direction == "pass":
        return 0
    steps = []
    for step in move.steps:
        src, dst = step.split("/")
        steps.append((_code(src), _code(dst)))
    return _py.make_turn(CW if move.direction == "cw" else CCW, steps)


@functools.lru_cache(maxsize=1 << 16)
def _cm_to_move(cm: int) -> Any:
    if cm >= ROLL_FLAG:
        return Roll.from_index(cm - ROLL_FLAG)
    text = _py.turn_notation(cm)
    return SchuftMove.parse(text)


def _start_state(n: int, to_move: int, cap: int, rolloff: Any) -> tuple[Any, ...]:
    seats = SEATS[n]
    owners = [-1] * 36
    counts = [0] * 36
    for q in range(4):
        for j in range(9):
            seat = (q + PATTERN[j]) % 4
            if seat in seats:
                owners[9 * q + j] = seats.index(seat)
                counts[9 * q + j] = 1
    return (n, tuple(owners), tuple(counts), (0,) * n, (0,) * n, to_move, -1, 0, cap, rolloff)


# ------------------------------------------------------------------- the game
class Schuft(Game[Union[SchuftMove, Roll]]):
    """Schuft for 2-4 players with Miwin's dice (rules S1-S12):
    ``Schuft(players=2, first_player=0, max_plies=None, seed=None)``.

    >>> game = Schuft(players=3, seed=1)
    >>> game.roll("9-9-8")
    Roll(9, 9, 8)
    >>> game.legal_moves.count()
    363
    >>> game.piece_at("1"), game.piece_at("2")
    ((0,), (1,))
    """

    game_name = "schuft"
    Move = SchuftMove
    _move_types = (SchuftMove, Roll)
    if TYPE_CHECKING:  # precise types for the type checker; the base does the work
        def effects(self, move: SchuftMove | Roll | str) -> SchuftEffects: ...

        @overload
        def push(self, move: SchuftMove) -> SchuftMove: ...
        @overload
        def push(self, move: Roll) -> Roll: ...
        @overload
        def push(self, move: str) -> SchuftMove | Roll: ...
        def push(self, move: SchuftMove | Roll | str) -> SchuftMove | Roll: ...
    OPTIONS = (
        GameOption("players", ("integer",), 2, "number of players", 2, 4),
        GameOption("first_player", ("integer", "string"), 0,
                   "who starts: a player 0..players-1, or 'roll' (the dice decide)", 0, 3,
                   choices=("roll",)),
        MAX_PLIES_OPTION,
        SEED_OPTION,
    )
    _cores = _cores
    _core_class_name = "SchuftCore"
    _state_bytes = 32 << 10   # measured: 10 to 11 KB
    has_chance = True
    multi_action = True
    _canonicalize = True

    _players: int

    def __init__(self, players: int = 2, first_player: Union[int, str] = 0,
                 max_plies: Optional[int] = None, seed: Optional[int] = None) -> None:
        players = option_int(players, "players", 2, 4)
        if isinstance(first_player, str) and first_player == "roll":
            to_move, rolloff = -1, (tuple(range(players)), ())
        else:
            to_move = option_int(first_player, "first_player", 0, players - 1)
            rolloff = None
        cap = optional_cap(max_plies)
        self._players = players
        rng = random.Random(seed_value(seed, error=InvalidPositionError))
        self._setup(_start_state(players, to_move, cap, rolloff), rng)

    # ---- basic queries
    def num_players(self) -> int:
        return self._players

    def player_name(self, player: int) -> str:
        return f"{('Red', 'Green', 'Blue', 'Yellow')[player]} ({LETTERS[player]})"

    def num_distinct_actions(self) -> int:
        return NUM_ACTIONS

    @property
    def max_plies(self) -> Optional[int]:
        cap = self._core.get_state()[8]
        return None if cap < 0 else int(cap)

    @property
    def plies(self) -> int:
        """Turns played so far (rolls are not counted)."""
        return int(self._core.get_state()[7])

    @property
    def to_move(self) -> Optional[int]:
        """The player whose turn it is (also at its chance node, before the roll);
        None during the opening roll-off."""
        p = int(self._core.to_move())  # type: ignore[attr-defined]
        return None if p < 0 else p

    @property
    def pending_roll(self) -> Optional[Roll]:
        """The roll of the turn being played, None at a chance node."""
        r = self._core.roll()  # type: ignore[attr-defined]
        return None if r < 0 else Roll.from_index(r)

    def outcome(self) -> Optional[Outcome]:
        if self._core.player() != TERMINAL:
            return None
        state = self._core.get_state()
        goals = state[3]
        scores = tuple(bin(g).count("1") for g in goals)
        for p, g in enumerate(goals):
            if g == FULL_GOAL:
                return Outcome((p,), scores, f"player {p} has all nine pieces home")
        return Outcome((), scores, f"draw: the ply cap of {state[8]} turns was reached")

    # ---- board access
    @property
    def squares(self) -> list[str]:
        """The fields: tongues ``1``-``36``, then per player ``r:g1``..``r:g9`` (its
        goal track) and ``r:x`` (its out area), with the player's letter."""
        names = [str(i) for i in range(1, 37)]
        for p in range(self._players):
            names += [f"{LETTERS[p]}:g{m}" for m in range(1, 10)] + [f"{LETTERS[p]}:x"]
        return names

    def piece_at(self, square: str) -> Optional[tuple[int, ...]]:
        """The pieces on a field as a tuple of their players (``(0, 0)``: two of
        player 0), or None when it is empty.  Fields as in :attr:`squares`."""
        if not isinstance(square, str) or square not in self.squares:
            raise InvalidMoveError(
                f"{square!r} is not a Schuft field: expected a tongue '1'-'36', a goal "
                f"field like 'r:g3' or an out area like 'r:x'")
        return self.piece_map().get(square)

    def piece_map(self) -> dict[str, tuple[int, ...]]:
        """``{field: pieces}`` for every occupied field (see :meth:`piece_at`);
        while a turn is half played, the board after its steps so far."""
        _, owners, counts, goals, outs = self._shown_state()[:5]
        pieces = {str(i + 1): (o,) * c for i, (o, c) in enumerate(zip(owners, counts,
                                                                      strict=True)) if c}
        for p in range(self._players):
            for m in range(9):
                if goals[p] >> m & 1:
                    pieces[f"{LETTERS[p]}:g{m + 1}"] = (p,)
            if outs[p]:
                pieces[f"{LETTERS[p]}:x"] = (p,) * outs[p]
        return pieces

    def _shown_state(self) -> Any:
        """The core state, with the steps of a half-played turn made (on a plain
        twin copy: the step rule lives in the core)."""
        with self._lock:  # the core and the pending steps of one moment
            state = self._core.get_state()
            if not self._pending:
                return state
            player = self._core.player()
            steps = self._replay(self._pending)[1]
        board = _py.SchuftCore()
        board.set_state(state)
        for src, dst in steps:
            board._make_step(player, src, dst)
        return board.get_state()

    # ---- moves and rolls
    def parse_move(self, text: str) -> Union[SchuftMove, Roll]:
        """A turn (``cw 12/17 17/20``, ``pass``) or a roll (``5-8-2``)."""
        text_field(text, "Schuft move notation", 200, InvalidMoveError)
        if _ROLL_RE.fullmatch(text.strip()):
            return Roll.parse(text)
        return SchuftMove.parse(text)

    def _move_from_core(self, cm: int) -> Union[SchuftMove, Roll]:
        return _cm_to_move(cm)  # type: ignore[no-any-return]

    def _core_from_move(self, move: Any) -> int:
        if isinstance(move, Roll):
            return ROLL_FLAG | move.index
        return _move_to_cm(move)

    def _canonical(self, cm: int, move: Any) -> tuple[int, Any]:
        """Any legal step order → the representative turn (S12)."""
        if isinstance(move, Roll):
            return cm, move
        player = self._core.player()
        if player == TERMINAL:
            raise IllegalMoveError(f"illegal move {str(move)!r}: the game is over")
        if player == CHANCE:
            raise IllegalMoveError(f"illegal move {str(move)!r}: roll the dice first")
        rep = self._core.canonical(cm)  # type: ignore[attr-defined]
        if rep < 0:
            raise IllegalMoveError(f"illegal move {str(move)!r}: {self._illegal_reason(move)}")
        return rep, _cm_to_move(rep)

    def _click_path(self, move: Any) -> tuple[str, ...]:
        """``"pass"``; else the direction (only at a roll of 15, where it is a
        choice), then each step's field and target, named as :meth:`piece_at`
        names them (``"13"``, ``"r:x"``, ``"r:g4"``)."""
        if move.direction == "pass":
            return ("pass",)
        mine = LETTERS[self._core.player()]
        roll = self.pending_roll
        path = [move.direction] if roll is not None and roll.total == 15 else []
        for step in move.steps:
            for end in step.split("/"):
                path.append(end if ascii_digits(end) else f"{mine}:{end}")
        return tuple(path)

    def _effects(self, move: Any, after: Schuft) -> SchuftEffects:
        if isinstance(move, Roll):
            return SchuftEffects(self.to_move, (), (), move)
        player = self._core.player()
        mine = LETTERS[player]
        board = {field: list(pieces) for field, pieces in self.piece_map().items()}
        steps, sent_back = [], []
        for step in move.steps:
            src, dst = step.split("/")
            src = f"{mine}:x" if src == "x" else src
            dst = f"{mine}:{dst}" if dst[0] == "g" else dst
            on = board.get(dst, [])
            if on and on[0] != player:  # S5: a lone enemy piece is hit
                (enemy,) = on
                sent_back.append((enemy, dst))
                board.setdefault(f"{LETTERS[enemy]}:x", []).append(enemy)
                on = board[dst] = []
            board[src].pop()
            board[dst] = [*on, player]
            steps.append((src, dst))
        return SchuftEffects(player, tuple(steps), tuple(sent_back))

    def _illegal_reason(self, move: Any) -> str:
        if isinstance(move, Roll):
            return "the dice have been rolled" if self._core.player() >= 0 else \
                "it is not the roll's turn"
        roll = self.pending_roll
        if roll is None:
            return "roll the dice first"
        if move.direction == "pass":
            return f"a pass is only legal when no step is possible (roll {roll})"
        if roll.direction not in ("choice", move.direction):
            return (f"the roll {roll} sums to {roll.total}, so the turn runs "
                    f"{'clockwise (cw)' if roll.direction == 'cw' else 'counter-clockwise (ccw)'}")
        direction = CW if move.direction == "cw" else CCW
        unused = [roll.iii, roll.iv, roll.v]
        done: list[str] = []
        codes = _py.turn_steps(_move_to_cm(move))
        step_options = self._core.step_options  # type: ignore[attr-defined]
        for i, step in enumerate(move.steps):
            before = step_options(_py.make_turn(direction, codes[:i])) or []
            src, dst = codes[i]
            where = f"step {step!r}" + (f" after {' '.join(done)}" if done else "")
            value = self._core.step_value(direction, src, dst)  # type: ignore[attr-defined]
            if not before:
                return f"{where}: no value can be played any more (the turn is over)"
            if value not in unused:
                return (f"{where}: it needs a {value or 'distance of 1-9'}, the unused "
                        f"values are {' '.join(map(str, sorted(unused)))}")
            if src != 0 and any(s == 0 for _, s, _ in before):
                return f"{where}: a piece is out, so every step must bring one back in"
            other = [t for v, s, t in before if v == value and s == src and t != dst]
            if other:
                return (f"{where}: {value} from {_py.square_name(src, True)} goes to "
                        f"{_py.square_name(other[0], False)} here"
                        + (" (S7: a piece that can enter its goal must)" if other[0] > 36
                           else ""))
            if not any(v == value and s == src and t == dst for v, s, t in before):
                return (f"{where} is blocked: no own piece there, a tongue of 3 or more "
                        f"pieces in the way, two enemy pieces on the target, or a goal "
                        f"field that is taken")
            unused.remove(value)
            done.append(step)
        options = step_options(_move_to_cm(move)) or []
        if options:
            value, src, dst = options[0]
            return (f"the turn is not over: the value {value} can still be played "
                    f"(e.g. {_py.square_name(src, True)}/{_py.square_name(dst, False)})")
        return "it is not a legal turn here"

    def roll(self, outcome: Union[Roll, str, tuple[int, int, int], None] = None) -> Roll:
        """Apply a roll at a chance node: a ``Roll``, ``"5-8-2"``, ``(5, 8, 2)``,
        or None to sample one from the game's seeded generator (S10)."""
        if outcome is None:
            self._refuse_pending("roll")
            if self._core.player() != CHANCE:
                raise IllegalMoveError(f"cannot roll: {self._illegal_reason(Roll(1, 1, 2))}")
            outcome = _cm_to_move(self._sample_chance())
        roll = Roll.parse(outcome)
        played = self.push(roll)
        assert isinstance(played, Roll)
        return played

    # ---- integer layer: a turn is a sequence of decisions
    def _replay(self, pending: tuple[int, ...]) -> tuple[int, list[tuple[int, int]]]:
        """The direction (0 while still to choose) and the steps ``pending`` made."""
        r = self._core.roll()  # type: ignore[attr-defined]
        total = _ROLL_SUMS[r]
        direction = 0 if total == 15 else CW if total > 15 else CCW
        steps: list[tuple[int, int]] = []
        for action in pending:
            if action in (ACTION_CW, ACTION_CCW):
                direction = CW if action == ACTION_CW else CCW
                continue
            value, src = action // 37 + 1, action % 37
            for v, s, t in self._core.step_options(  # type: ignore[attr-defined]
                    _py.make_turn(direction, steps)) or ():
                if (v, s) == (value, src):
                    steps.append((s, t))
                    break
        return direction, steps

    def _step_options(self, pending: tuple[int, ...]) -> dict[int, Any]:
        step_options = self._core.step_options  # type: ignore[attr-defined]
        direction, steps = self._replay(pending)
        if direction == 0:
            out = {action: MORE for d, action in ((CW, ACTION_CW), (CCW, ACTION_CCW))
                   if step_options(_py.make_turn(d, []))}
            return out or {ACTION_PASS: 0}
        if not steps and not pending and not step_options(_py.make_turn(direction, [])):
            return {ACTION_PASS: 0}
        options: dict[int, Any] = {}
        for v, s, t, more in step_options(_py.make_turn(direction, steps), True) or ():
            options[(v - 1) * 37 + s] = MORE if more else _py.make_turn(direction,
                                                                       [*steps, (s, t)])
        return options

    _search_plies = 3
    """brett.ai searches a turn decision by decision; its playouts finish the turn
    in progress at random, play this many turns more and are then valued by the
    race (pieces home, the goal's holes, the way of the others; :doc:`docs/ai.md <ai>`)."""
    _table_leaf = None   # the dice: a perft table keyed by state is for games without them

    def _exact_moves(self) -> Optional[list[tuple[Union[SchuftMove, Roll], float]]]:
        """With the player to move at the start of its turn, at most three pieces
        not home and none out: every legal move and the expected own turns still
        needed after it by the solo endgame tables (:mod:`brett.ai._schuft_endgame`),
        fastest first, ties in ``legal_moves`` order; else None."""
        core = self._core
        player = core.player()
        if player < 0 or self._pending:
            return None
        seat = SEATS[self._players][player]
        tables = _endgame.tables()
        most = len(tables.levels)
        if _endgame.endgame(core.get_state(), player, seat, most) is None:
            return None
        work = core.clone(False)
        ranked = []
        for order, cm in enumerate(work.moves()):
            work.push(cm, None)
            after = _endgame.endgame(work.get_state(), player, seat, most)
            work.pop()
            assert after is not None  # a move never puts its own pieces out
            ranked.append((tables.turns(*after), order, cm))
        ranked.sort()
        return [(self._move_from_core(cm), turns)  # type: ignore[misc]
                for turns, _, cm in ranked]

    def _search_move(self, steps: list[int]) -> SchuftMove:
        """The turn made of the search's decisions from the start of the turn (the
        integer layer's actions); a turn the tree left unfinished is completed by
        the first legal step each time.  In the cores' "turns" search mode (a
        benchmark aid) a search action is a whole turn."""
        if _cores.get(self.backend()).search_mode() == "turns":
            return self._move_from_core(steps[0])  # type: ignore[return-value]
        core = self._core
        step_options = core.step_options  # type: ignore[attr-defined]
        total = _ROLL_SUMS[core.roll()]  # type: ignore[attr-defined]
        actions = [int(a) for a in steps]
        if actions == [ACTION_PASS]:
            return SchuftMove("pass")
        direction = CW if total > 15 else CCW
        if total == 15:
            if not actions or actions[0] not in (ACTION_CW, ACTION_CCW):
                raise BrettError(f"search actions {actions}: the direction comes first")
            direction = CW if actions.pop(0) == ACTION_CW else CCW
        done: list[tuple[int, int]] = []
        for action in actions:
            for v, s, t in step_options(_py.make_turn(direction, done)) or ():
                if (v - 1) * 37 + s == action:
                    done.append((s, t))
                    break
            else:
                raise BrettError(f"search actions {steps}: not the decisions of one turn")
        while True:
            options = step_options(_py.make_turn(direction, done))
            if not options:
                break
            done.append(options[0][1:])
        return self._move_from_core(  # type: ignore[return-value]
            core.canonical(_py.make_turn(direction, done)))  # type: ignore[attr-defined]

    def _actions_of(self, move: Any) -> tuple[int, ...]:
        """The decisions that play ``move`` from the current position."""
        if isinstance(move, Roll):
            return (move.index,)
        if move.direction == "pass":
            return (ACTION_PASS,)
        roll = self.pending_roll
        assert roll is not None
        direction = CW if move.direction == "cw" else CCW
        out = []
        if roll.total == 15:
            out.append(ACTION_CW if direction == CW else ACTION_CCW)
        for src, dst in _py.turn_steps(_move_to_cm(move)):
            value = self._core.step_value(direction, src, dst)  # type: ignore[attr-defined]
            out.append((value - 1) * 37 + src)
        return tuple(out)

    def _action_of_core(self, cm: int) -> int:
        return cm - ROLL_FLAG if cm >= ROLL_FLAG else 0

    def _core_of_action(self, action: int) -> int:
        return ROLL_FLAG | action

    def _check_action(self, action: Any) -> int:
        limit = NUM_ROLLS if self._core.player() == CHANCE else NUM_ACTIONS
        if type(action) is int and 0 <= action < limit:
            return action
        return as_int(action, "action", 0, limit - 1, InvalidMoveError)

    def _chance_actions(self) -> list[int]:
        return list(range(NUM_ROLLS))  # a roll, in the game or in the roll-off

    def _partial_move(self, actions: tuple[int, ...]) -> Union[SchuftMove, Roll]:
        """The turn so far with the last decision added (``SchuftMove('cw', ())``
        for a direction chosen, ``SchuftMove('pass')`` for a pass)."""
        *pending, action = actions
        options = self._next_options(tuple(pending))
        if action not in options:
            raise IllegalMoveError(f"action {action} is not legal here: legal are "
                                   f"{sorted(options)}")
        if action == ACTION_PASS:
            return SchuftMove("pass")
        direction, steps = self._replay(tuple(actions))
        return _cm_to_move(_py.make_turn(direction, steps))  # type: ignore[no-any-return]

    def _action_of_move(self, move: Any) -> int:
        """A ``Roll`` → its chance action; a pass → 335; a turn one step longer
        than the decisions so far → that step's action (a direction alone at a
        roll of 15 → 333 / 334)."""
        if isinstance(move, Roll):
            return move.index
        if move.direction == "pass":
            return ACTION_PASS
        direction = CW if move.direction == "cw" else CCW
        chosen, steps = self._replay(self._pending)
        if not move.steps and chosen == 0:
            return ACTION_CW if direction == CW else ACTION_CCW
        codes = _py.turn_steps(_move_to_cm(move))
        if len(codes) != len(steps) + 1 or codes[:-1] != steps \
                or chosen not in (0, direction):
            raise InvalidMoveError(
                f"{str(move)!r}: only a turn one step longer than the decisions so far "
                "maps to one action")
        src, dst = codes[-1]
        value = self._core.step_value(direction, src, dst)  # type: ignore[attr-defined]
        if value == 0:
            raise IllegalMoveError(f"{str(move)!r}: no die value makes this step")
        action = (value - 1) * 37 + src
        if self._core.player() >= 0:
            for v, s, t in self._core.step_options(  # type: ignore[attr-defined]
                    _py.make_turn(direction, steps)) or ():
                if (v - 1) * 37 + s == action and t != dst:
                    raise IllegalMoveError(
                        f"{str(move)!r}: value {value} from {_py.square_name(src, True)} "
                        f"goes to {_py.square_name(t, False)} here")
        return action

    def _pending_text(self) -> str:
        direction, steps = self._replay(self._pending)
        return str(_py.turn_notation(_py.make_turn(direction, steps)))

    def random_decision_playouts(self, n: int, seed: Optional[int] = None,
                                 max_plies: Optional[int] = None) -> PlayoutStats:
        """``n`` random games inside the core, every turn played by uniformly
        random *decisions* of the integer layer (direction at 15, then one step
        at a time, or pass) instead of a uniformly random whole turn; the game
        is unchanged.  ``plies`` in the result counts decisions (rolls are not
        counted).  Both twins play the same games for the same seed."""
        count = as_int(n, "n", 0, MAX_COUNT)
        cap = optional_cap(max_plies, low=0, error=BrettError)
        rng = self._rng_seed(seed)
        self._refuse_pending("random_decision_playouts")
        wins, draws, unfinished, decisions, _ = \
            self._core.decision_playouts(count, rng, cap)  # type: ignore[attr-defined]
        return PlayoutStats(count, tuple(int(w) for w in wins), int(draws), int(unfinished),
                            int(decisions))

    # ---- position string (S11)
    def position(self) -> str:
        """``tongues/goals/outs/to-move/roll/plies/cap[/roll-off][;half-played turn]``."""
        (_, owners, counts, goals, outs, to_move, roll, plies, cap, rolloff) = \
            self._core.get_state()
        tongues = ",".join(f"{LETTERS[o]}{c}" if c else "."
                           for o, c in zip(owners, counts, strict=True))
        tracks = ",".join("".join(LETTERS[p] if g >> m & 1 else "." for m in range(9))
                          for p, g in enumerate(goals))
        parts = [tongues, tracks, ",".join(map(str, outs)),
                 LETTERS[to_move] if to_move >= 0 else "-",
                 str(Roll.from_index(roll)) if roll >= 0 else "-",
                 str(plies), str(cap) if cap >= 0 else "-"]
        if rolloff is not None:
            contenders, sums = rolloff
            parts.append(",".join(LETTERS[c] + (str(sums[i]) if i < len(sums) else "")
                                  for i, c in enumerate(contenders)))
        text = "/".join(parts)
        if self._pending:
            text += ";" + self._pending_text()
        return text

    @classmethod
    def from_position(cls, position: str) -> Schuft:
        """The game at a position string written by :meth:`position`."""
        text = text_field(position, "a Schuft position", limit=400)
        main, _, partial = text.strip().partition(";")
        state = _parse_position(main)
        game = cls.__new__(cls)
        game._players = state[0]
        game._setup(state)
        if partial:
            game._load_pending(partial, text)
        return game

    def _load_pending(self, partial: str, text: str) -> None:
        if self._core.player() < 0:
            raise InvalidPositionError(f"{text!r}: a half-played turn needs a rolled decision node")
        try:
            move = SchuftMove.parse(partial)
            if move.direction == "pass":
                raise InvalidMoveError("a pass is a whole turn")
            roll = self.pending_roll
            assert roll is not None
            if roll.total != 15 and not move.steps:
                raise InvalidMoveError("the direction is only chosen at a roll summing to 15")
            for action in self._actions_of(move):
                self.apply_action(action)
            if not self._pending:
                raise InvalidMoveError("these decisions finish the turn")
        except BrettError as exc:
            raise InvalidPositionError(
                f"{text!r}: bad half-played turn {partial!r}: {exc}") from exc

    # ---- observation
    def observation_tensor_shape(self) -> tuple[int]:
        """``(46 * players + 7,)``: for each player (in player order) 36 tongue
        counts, 9 goal bits and the out count, then 4 one-hot to-move entries,
        then the roll (3 values / 9) or zeros."""
        return (46 * self._players + 7,)

    def _observation(self) -> list[float]:
        (n, owners, counts, goals, outs, to_move, roll, *_rest) = self._shown_state()
        obs: list[float] = []
        for p in range(n):
            obs.extend(float(c) if o == p else 0.0 for o, c in zip(owners, counts, strict=True))
            obs.extend(float(goals[p] >> m & 1) for m in range(9))
            obs.append(float(outs[p]))
        obs.extend(1.0 if to_move == p else 0.0 for p in range(4))
        obs.extend([v / 9 for v in ROLLS[roll]] if roll >= 0 else [0.0, 0.0, 0.0])
        return obs

    # ---- text board
    def __str__(self) -> str:
        (n, _, _, goals, outs, to_move, roll, plies, cap, rolloff) = self._shown_state()
        pieces = self.piece_map()
        seats = SEATS[n]
        lines = []
        cap_text = f"/{cap}" if cap >= 0 else ""
        player = self._core.player()
        if player == TERMINAL:
            oc = self.outcome()
            status = f"game over: {oc.reason}" if oc else "game over"
        elif rolloff is not None:
            status = "opening roll-off: " + ", ".join(
                LETTERS[c] + (f"={rolloff[1][i]}" if i < len(rolloff[1]) else " to roll")
                for i, c in enumerate(rolloff[0]))
        elif roll < 0:
            status = f"{LETTERS[to_move]} (player {to_move}) to roll"
        else:
            r = Roll.from_index(roll)
            way = {"cw": "clockwise", "ccw": "counter-clockwise",
                   "choice": "cw or ccw (choice)"}[r.direction]
            status = (f"{LETTERS[to_move]} (player {to_move}) rolled {r} = {r.total}: {way}")
            if self._pending:
                status += f"; so far: {self._pending_text()}"
        lines.append(f"Schuft, {n} players, turn {plies}{cap_text}; {status}")
        for q in range(4):
            cells = []
            for i in range(9 * q, 9 * q + 9):
                on = pieces.get(str(i + 1))
                cell = f"{LETTERS[on[0]]}{len(on)}" if on else "."
                cells.append(f"{i + 1:>2}:{cell:<3}")
            owner = f"seat of {LETTERS[seats.index(q)]}" if q in seats else "empty seat"
            lines.append((f"Q{q} ({owner:<10}) " + " ".join(cells)).rstrip())
        for q in range(4):
            if q in seats:
                p = seats.index(q)
                track = " ".join(LETTERS[p] if goals[p] >> m & 1 else "." for m in range(9))
                lines.append(f"goal {LETTERS[p]} (after tongue {9 * q + 9:>2}): {track}"
                             f"   out: {outs[p]}")
            else:
                lines.append(f"goal of seat {q}: (no player)")
        return "\n".join(lines)

    # ---- CLI
    @classmethod
    def cli_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--players", type=int, choices=(2, 3, 4), default=2,
                            help="number of players 2-4 (default 2)")
        parser.add_argument("--first-player", default="0",
                            help="the starting player 0-3, or 'roll' for the opening roll-off")
        parser.add_argument("--max-plies", type=int, help="end as a draw after this many turns")
        parser.add_argument("--seed", type=int, help="seed of the game's own generator")

    @classmethod
    def from_cli(cls, args: argparse.Namespace) -> Schuft:
        first: Any = args.first_player
        if isinstance(first, str) and ascii_digits(first):
            first = int(first)
        return cls(players=args.players, first_player=first, max_plies=args.max_plies,
                   seed=args.seed)


def _parse_position(text: str) -> tuple[Any, ...]:
    def bad(reason: str) -> InvalidPositionError:
        return InvalidPositionError(f"bad Schuft position {text!r}: {reason}")

    def number(field: str, what: str, high: int, low: int = 0) -> int:
        try:
            return digits(field, what, high, low=low)
        except InvalidPositionError as exc:
            raise bad(str(exc)) from None

    parts = text.split("/")
    if len(parts) not in (7, 8):
        raise bad("expected tongues/goals/outs/to-move/roll/plies/cap[/roll-off]")
    tongue_text, goal_text, out_text, move_text, roll_text, ply_text, cap_text = parts[:7]
    tracks = goal_text.split(",")
    n = len(tracks)
    if n not in SEATS:
        raise bad(f"{n} goal tracks: Schuft has 2, 3 or 4 players")
    letters = LETTERS[:n]
    tokens = tongue_text.split(",")
    if len(tokens) != 36:
        raise bad(f"{len(tokens)} tongues: expected 36, separated by ','")
    owners, counts = [-1] * 36, [0] * 36
    for i, tok in enumerate(tokens):
        if tok == ".":
            continue
        if len(tok) != 2 or tok[0] not in letters or not "1" <= tok[1] <= "9":
            raise bad(f"tongue {i + 1} {tok[:10]!r}: expected '.' or a letter of "
                      f"{letters!r} and a count 1-9")
        owners[i], counts[i] = letters.index(tok[0]), int(tok[1])
    goals = []
    for p, track in enumerate(tracks):
        if len(track) != 9 or any(ch not in (".", letters[p]) for ch in track):
            raise bad(f"goal track {track!r}: expected 9 characters '.' or {letters[p]!r}")
        goals.append(sum(1 << m for m, ch in enumerate(track) if ch != "."))
    outs_raw = out_text.split(",")
    if len(outs_raw) != n or not all(len(o) == 1 and "0" <= o <= "9" for o in outs_raw):
        raise bad(f"out counts {out_text!r}: expected {n} numbers 0-9 separated by ','")
    outs = [int(o) for o in outs_raw]
    for p in range(n):
        on_board = sum(c for o, c in zip(owners, counts, strict=True) if o == p)
        total = on_board + bin(goals[p]).count("1") + outs[p]
        if total != 9:
            raise bad(f"player {letters[p]!r} has {total} pieces, not 9")
    winners = [p for p in range(n) if goals[p] == FULL_GOAL]
    if len(winners) > 1:
        raise bad("more than one player has all nine pieces home")
    plies = number(ply_text, "ply count", MAX_PLIES)
    cap = -1 if cap_text == "-" else number(cap_text, "cap ('-' for none)", MAX_PLIES, 1)
    over = bool(winners) or (cap >= 0 and plies >= cap)
    rolloff = None
    if len(parts) == 8:
        entries = parts[7].split(",")
        contenders: list[int] = []
        sums: list[int] = []
        for e in entries:
            if not e or e[0] not in letters:
                raise bad(f"roll-off entry {e[:10]!r}: expected a player letter and its sum "
                          "if rolled")
            contenders.append(letters.index(e[0]))
            if e[1:]:
                value = number(e[1:], "roll-off sum", 26, 4)
                if len(sums) != len(contenders) - 1:
                    raise bad(f"roll-off entry {e!r}: sums 4-26, rolled in player order")
                sums.append(value)
        if not 2 <= len(contenders) <= n or contenders != sorted(set(contenders)) \
                or len(sums) == len(contenders):
            raise bad("roll-off: two or more players in order, not all of them rolled yet")
        if move_text != "-" or roll_text != "-" or plies or over:
            raise bad("during the roll-off nobody is to move, nothing is rolled and no turn "
                      "was played")
        rolloff = (tuple(contenders), tuple(sums))
        to_move = -1
    else:
        if len(move_text) != 1 or move_text not in letters:
            raise bad(f"player to move {move_text!r}: expected one of {letters!r}")
        to_move = letters.index(move_text)
    if roll_text == "-":
        roll = -1
    else:
        try:
            roll = Roll.parse(roll_text).index
        except InvalidMoveError as exc:
            raise bad(str(exc)) from exc
        if over:
            raise bad("the game is over, so no roll can be pending")
    return (n, tuple(owners), tuple(counts), tuple(goals), tuple(outs), to_move, roll, plies,
            cap, rolloff)


__all__ = ["NUM_ACTIONS", "Roll", "Schuft", "SchuftEffects", "SchuftMove"]
