"""Schuft: Winkelmann's race game with Miwin's dice, for 2-4 players (rules S1-S12).

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
decision.  While a turn is half played, ``position()`` ends with ``;`` and the
decisions so far (``;cw 12/17``).
"""

from __future__ import annotations

import argparse
import functools
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Optional

from ._core import _schuft_py as _py
from ._core._rng import SplitMix64
from .errors import BrettError, IllegalMoveError, InvalidMoveError, InvalidPositionError
from .game import CHANCE, TERMINAL, Game, Outcome, PlayoutStats, load_cores

_cores = load_cores("schuft")

DIE_III, DIE_IV, DIE_V = _py.DIE_III, _py.DIE_IV, _py.DIE_V
ROLLS = _py.ROLLS
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

_STEP_RE = re.compile(r"^(x|[1-9][0-9]?)/([1-9][0-9]?|g[1-9])\*?$")
_ROLL_RE = re.compile(r"^([0-9])-([0-9])-([0-9])$")


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
            if isinstance(value, bool) or not isinstance(value, int) or value not in faces:
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
            m = _ROLL_RE.match(text.strip())
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
    played (``"12/17"``, ``"x/3"``, ``"20/g2"``), or ``SchuftMove("pass")``."""

    direction: str
    steps: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        d, steps = self.direction, self.steps
        if d not in ("cw", "ccw", "pass") or not isinstance(steps, tuple):
            raise InvalidMoveError(
                f"bad Schuft move {d!r} {steps!r}: direction 'cw', 'ccw' or 'pass' "
                f"and a tuple of steps")
        if d == "pass":
            if steps:
                raise InvalidMoveError(f"'pass' takes no steps, not {steps!r}")
            return
        if not 1 <= len(steps) <= 3:
            raise InvalidMoveError(
                f"move {d!r} {steps!r}: a turn has 1 to 3 steps (one per die)")
        clean = []
        for step in steps:
            m = _STEP_RE.match(step) if isinstance(step, str) else None
            if m is None:
                raise InvalidMoveError(
                    f"bad step {step!r}: expected from/to, from a tongue 1-36 or 'x', "
                    f"to a tongue 1-36 or a goal field g1-g9 (e.g. '12/17', 'x/3', '34/g2')")
            src, dst = m.groups()
            for part in (src, dst):
                if part.isdigit() and not 1 <= int(part) <= 36:
                    raise InvalidMoveError(f"bad step {step!r}: tongue {part} is not in 1-36")
            clean.append(f"{src}/{dst}")
        object.__setattr__(self, "steps", tuple(clean))

    @classmethod
    def parse(cls, text: str) -> SchuftMove:
        parts = text.split()
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


# ------------------------------------------------------------------- the mixin
class _SchuftAPI(Game):
    game_name = "schuft"
    Move = SchuftMove
    _cores = _cores
    _core_class_name = "SchuftCore"

    _players: int
    _cap: Optional[int]
    _pactions: tuple[tuple[int, int, int], ...]
    _turn_actions: dict[int, tuple[int, ...]]
    # the two core methods Schuft adds to the core protocol
    _core_canonical: Callable[[int], int]
    _core_step_options: Callable[[int], Optional[list[tuple[int, int, int]]]]
    _core_decision_playouts: Callable[[int, int, int], tuple[Any, int, int, int]]
    _core_roll: Callable[[], int]
    _core_to_move: Callable[[], int]
    _options_cache: tuple[Any, list[tuple[int, int, int]]]

    def __init__(self, players: int = 2, first_player: Any = 0,
                 max_plies: Optional[int] = None, seed: Optional[int] = None) -> None:
        if isinstance(players, bool) or not isinstance(players, int) or players not in SEATS:
            raise InvalidPositionError(f"players={players!r}: Schuft is for 2, 3 or 4 players")
        if first_player == "roll" and isinstance(first_player, str):
            to_move, rolloff = -1, (tuple(range(players)), ())
        elif isinstance(first_player, int) and not isinstance(first_player, bool) \
                and 0 <= first_player < players:
            to_move, rolloff = first_player, None
        else:
            raise InvalidPositionError(
                f"first_player={first_player!r}: expected a player 0-{players - 1} or 'roll'")
        if max_plies is not None and (isinstance(max_plies, bool) or not isinstance(max_plies, int)
                                      or max_plies < 1):
            raise InvalidPositionError(f"max_plies={max_plies!r}: expected None or an int >= 1")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise InvalidPositionError(f"seed={seed!r}: expected None or an int")
        cap = -1 if max_plies is None else max_plies
        self._rng = random.Random(seed)
        self._setup(_start_state(players, to_move, cap, rolloff), seed)

    def _setup(self, state: Any, seed: Optional[int]) -> None:
        self._players = state[0]
        self._pactions = ()
        self._turn_actions = {}
        self._init_game(state, seed)

    # ---- basic queries
    def num_players(self) -> int:
        return self._players

    def num_distinct_actions(self) -> int:
        return NUM_ACTIONS

    @property
    def max_plies(self) -> Optional[int]:
        cap = self._core_get_state()[8]
        return None if cap < 0 else cap

    @property
    def plies(self) -> int:
        """Turns played so far (rolls are not counted)."""
        return int(self._core_get_state()[7])

    @property
    def pending_roll(self) -> Optional[Roll]:
        """The roll of the turn being played, None at a chance node."""
        r = self._core_roll()
        return None if r < 0 else Roll.from_index(r)

    def outcome(self) -> Optional[Outcome]:
        if self._core_player() != TERMINAL:
            return None
        state = self._core_get_state()
        goals = state[3]
        scores = tuple(bin(g).count("1") for g in goals)
        for p, g in enumerate(goals):
            if g == FULL_GOAL:
                return Outcome((p,), scores, f"player {p} has all nine pieces home")
        return Outcome((), scores, f"draw: the ply cap of {state[8]} turns was reached")

    # ---- moves and rolls
    def parse_move(self, text: str) -> Any:
        if not isinstance(text, str):
            raise InvalidMoveError(f"{text!r} is not a Schuft move: expected notation text")
        if _ROLL_RE.match(text.strip()):
            return Roll.parse(text)
        return SchuftMove.parse(text)

    def _move_from_core(self, cm: int) -> Any:
        return _cm_to_move(cm)

    def _core_from_move(self, move: Any) -> int:
        if isinstance(move, Roll):
            return ROLL_FLAG | move.index
        return _move_to_cm(move)

    def _resolve(self, move: Any) -> tuple[Any, Any]:
        if isinstance(move, str):
            move = self.parse_move(move)
        if isinstance(move, Roll):
            raise IllegalMoveError(
                f"{str(move)!r} is a roll, a chance event: use roll() at a chance node")
        if not isinstance(move, SchuftMove):
            raise InvalidMoveError(
                f"{move!r} is not a schuft move: expected a SchuftMove or its notation")
        player = self._core_player()
        if player == TERMINAL:
            raise IllegalMoveError(f"illegal move {str(move)!r}: the game is over")
        if player == CHANCE:
            raise IllegalMoveError(f"illegal move {str(move)!r}: roll the dice first")
        cm = _move_to_cm(move)
        rep = self._core_canonical(cm)
        if rep < 0:
            raise IllegalMoveError(f"illegal move {str(move)!r}: {self._illegal_reason(move)}")
        return rep, _cm_to_move(rep)

    def _illegal_reason(self, move: Any) -> str:
        roll = self.pending_roll
        assert roll is not None
        if move.direction == "pass":
            return f"a pass is only legal when no step is possible (roll {roll})"
        if roll.direction not in ("choice", move.direction):
            return (f"the roll {roll} sums to {roll.total}, so the turn runs "
                    f"{'clockwise (cw)' if roll.direction == 'cw' else 'counter-clockwise (ccw)'}")
        direction = CW if move.direction == "cw" else CCW
        unused = [roll.iii, roll.iv, roll.v]
        done: list[str] = []
        codes = _py.turn_steps(_move_to_cm(move))
        for i, step in enumerate(move.steps):
            before = self._core_step_options(_py.make_turn(direction, codes[:i])) or []
            src, dst = codes[i]
            where = f"step {step!r}" + (f" after {' '.join(done)}" if done else "")
            value = self._step_value_of(direction, src, dst)
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
                        f"{_py.square_name(other[0], False)} here (S7: a piece that can "
                        f"enter its goal must)" if other[0] > 36 else
                        f"{where}: {value} from {_py.square_name(src, True)} goes to "
                        f"{_py.square_name(other[0], False)} here")
            if not any(v == value and s == src and t == dst for v, s, t in before):
                return (f"{where} is blocked: no own piece there, a tongue of 3 or more "
                        f"pieces in the way, two enemy pieces on the target, or a goal "
                        f"field that is taken")
            unused.remove(value)
            done.append(step)
        options = self._core_step_options(_move_to_cm(move)) or []
        if options:
            value, src, dst = options[0]
            return (f"the turn is not over: the value {value} can still be played "
                    f"(e.g. {_py.square_name(src, True)}/{_py.square_name(dst, False)})")
        return "it is not a legal turn here"

    def push(self, move: Any) -> Any:
        """Play a turn (a ``SchuftMove`` or its notation, in any legal step order;
        the move stack records the canonical representative) or, at a chance
        node, a roll (``Roll``, ``"5-8-2"``, ``(5, 8, 2)``)."""
        if isinstance(move, (Roll, tuple)) or (isinstance(move, str)
                                               and _ROLL_RE.match(move.strip())):
            return self.roll(Roll.parse(move))
        if self._pactions:
            raise IllegalMoveError(
                f"cannot push {move!r}: a turn is half played through apply_action; "
                f"finish it or take its decisions back with undo_action")
        return super().push(move)

    def roll(self, outcome: Any = None) -> Roll:
        """Apply a roll at a chance node: a ``Roll``, ``"5-8-2"``, ``(5, 8, 2)``,
        or None to sample one from the game's seeded generator."""
        roll = Roll.from_index(self._rng.randrange(216)) if outcome is None \
            else Roll.parse(outcome)
        player = self._core_player()
        if player != CHANCE:
            raise IllegalMoveError(
                f"cannot roll {str(roll)!r}: "
                + ("the game is over" if player == TERMINAL else "the dice have been rolled"))
        self._core_push(ROLL_FLAG | roll.index)
        self._stack.append(roll)
        return roll

    def pop(self) -> Any:
        """Take back the last turn or roll (a half-played turn of the integer
        layer is discarded first)."""
        self._pactions = ()
        if not self._stack:
            raise IndexError("pop from an empty move stack")
        self._turn_actions.pop(len(self._stack) - 1, None)
        self._core_pop()
        return self._stack.pop()

    def copy(self, stack: bool = True) -> Any:
        new = super().copy(stack)
        new._turn_actions = dict(self._turn_actions) if stack else {}
        return new

    # ---- chance nodes
    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self._core_player() != CHANCE:
            return []
        return [(a, 1 / 216) for a in range(216)]

    # ---- position string (S11)
    def position(self) -> str:
        """``tongues/goals/outs/to-move/roll/plies/cap[/roll-off][;half-played turn]``."""
        (_, owners, counts, goals, outs, to_move, roll, plies, cap, rolloff) = \
            self._core_get_state()
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
        if self._pactions:
            text += ";" + self._pending_text()
        return text

    @classmethod
    def from_position(cls, text: str) -> Any:
        """The game at a position string written by :meth:`position`."""
        if not isinstance(text, str):
            raise InvalidPositionError(f"{text!r} is not a Schuft position string")
        main, _, partial = text.strip().partition(";")
        state = _parse_position(main)
        game = cls.__new__(cls)
        game._rng = random.Random()
        game._setup(state, None)
        if partial:
            game._load_pending(partial, text)
        return game

    # ---- search helpers over chance nodes (S12)
    def _no_pending(self, what: str, rolloff_ok: bool = False) -> None:
        if self._pactions:
            raise BrettError(f"{what}: a turn is half played through apply_action")
        if not rolloff_ok and self._core_get_state()[9] is not None:
            raise BrettError(f"{what} is not defined during the opening roll-off "
                             f"(tied players re-roll without bound)")

    def perft(self, depth: int, count_finished: bool = False, executor: Any = None) -> int:
        """Turn sequences of exactly ``depth`` turns; every roll before a turn
        is a chance node expanded over all 216 outcomes without using depth."""
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
            raise ValueError(f"depth must be an int >= 0, not {depth!r}")
        self._no_pending("perft")
        if executor is None or depth < 1 or self._core_player() == TERMINAL \
                or (depth < 2 and self._core_player() != CHANCE):
            return int(self._core_perft(depth, bool(count_finished)))
        chance = self._core_player() == CHANCE
        futures = []
        from .game import _perft_task  # type: ignore[attr-defined]
        klass = type(self)
        items = [ROLL_FLAG | r for r in range(216)] if chance else self._core_moves()
        for cm in items:
            self._core_push(cm)
            try:
                futures.append(executor.submit(_perft_task, klass.__module__, klass.__qualname__,
                                               klass.backend(), self.position(),
                                               depth if chance else depth - 1,
                                               bool(count_finished)))
            finally:
                self._core_pop()
        return sum(f.result() for f in futures)

    def divide(self, depth: int, count_finished: bool = False) -> dict[Any, int]:
        """At a decision node ``{move: perft(depth - 1)}``; at a chance node
        ``{roll: perft(depth)}`` (a roll uses no depth)."""
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
            raise ValueError(f"depth must be an int >= 0, not {depth!r}")
        if depth == 0:
            raise ValueError("divide needs depth >= 1")
        self._no_pending("divide")
        chance = self._core_player() == CHANCE
        items = [ROLL_FLAG | r for r in range(216)] if chance else self._core_moves()
        result = {}
        for cm in items:
            self._core_push(cm)
            try:
                result[_cm_to_move(cm)] = int(self._core_perft(depth if chance else depth - 1,
                                                               count_finished))
            finally:
                self._core_pop()
        return result

    def random_playout(self, seed: Optional[int] = None,
                       max_plies: Optional[int] = None) -> Optional[Outcome]:
        """Roll and play uniformly random turns onto this game (both go on the
        move stack) until it ends or ``max_plies`` turns were played.  Rolls are
        ``below(216)`` and turns ``moves[below(len(moves))]`` of one splitmix64
        stream, exactly as the cores' ``random_playouts``."""
        if self._pactions:
            raise BrettError("random_playout: a turn is half played through apply_action")
        rng = SplitMix64(self._rng.getrandbits(64) if seed is None else seed)
        turns = 0
        while True:
            player = self._core_player()
            if player == TERMINAL or (max_plies is not None and turns >= max_plies):
                break
            if player == CHANCE:
                cm = ROLL_FLAG | rng.below(216)
            else:
                moves = self._core_moves()
                cm = moves[rng.below(len(moves))]
                turns += 1
            self._core_push(cm)
            self._stack.append(_cm_to_move(cm))
        return self.outcome()

    def random_decision_playouts(self, n: int, seed: Optional[int] = None,
                                 max_plies: Optional[int] = None) -> PlayoutStats:
        """``n`` random games inside the core, every turn played by uniformly
        random *decisions* of the integer layer (direction at 15, then one step
        at a time, or pass) instead of a uniformly random whole turn; the state
        is unchanged.  ``plies`` in the result counts decisions (rolls are not
        counted).  Both twins play the same games for the same seed."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"n must be an int >= 0, not {n!r}")
        self._no_pending("random_decision_playouts", rolloff_ok=True)
        seed = self._rng.getrandbits(64) if seed is None else seed
        cap = -1 if max_plies is None else int(max_plies)
        wins, draws, unfinished, decisions = self._core_decision_playouts(
            n, seed & (2**64 - 1), cap)
        return PlayoutStats(n, tuple(wins), draws, unfinished, decisions)

    # ---- integer layer
    def _pending_direction(self) -> int:
        """The direction of the turn being decided, 0 while it is still open."""
        for action, _, _ in self._pactions:
            if action in (ACTION_CW, ACTION_CCW):
                return CW if action == ACTION_CW else CCW
        r = self._core_roll()
        if r < 0 or _ROLL_SUMS[r] == 15:
            return 0
        return CW if _ROLL_SUMS[r] > 15 else CCW

    def _pending_cm(self) -> int:
        steps = [(s, d) for a, s, d in self._pactions if a < ACTION_CW]
        return _py.make_turn(self._pending_direction(), steps)

    def _pending_text(self) -> str:
        cm = self._pending_cm()
        text = _py.turn_notation(cm)
        return text

    def _decision_options(self) -> list[tuple[int, int, int]]:
        """Legal decisions as (action, src, dst) (remembered for the current
        state, since legal_actions and apply_action both need them)."""
        ident = (self._core_key(), self._pactions)
        cache = self.__dict__.get("_options_cache")
        if cache is not None and cache[0] == ident:
            return cache[1]
        result = self._decision_options_uncached()
        self._options_cache = (ident, result)
        return result

    def _decision_options_uncached(self) -> list[tuple[int, int, int]]:
        direction = self._pending_direction()
        if direction == 0:
            out = []
            for d, action in ((CW, ACTION_CW), (CCW, ACTION_CCW)):
                if self._core_step_options(_py.make_turn(d, [])):
                    out.append((action, -1, -1))
            return out or [(ACTION_PASS, -1, -1)]
        opts = self._core_step_options(self._pending_cm())
        assert opts is not None
        if not opts and not self._pactions:
            return [(ACTION_PASS, -1, -1)]
        return sorted({((v - 1) * 37 + s, s, t) for v, s, t in opts})

    def legal_actions(self) -> list[int]:
        """Sorted legal actions: roll indices at a chance node, decisions otherwise."""
        player = self._core_player()
        if player == TERMINAL:
            return []
        if player == CHANCE:
            return list(range(216))
        return [a for a, _, _ in self._decision_options()]

    def _check_int(self, action: Any) -> int:
        if isinstance(action, bool) or not isinstance(action, int):
            raise InvalidMoveError(f"action {action!r} is not an int")
        limit = 216 if self._core_player() == CHANCE else NUM_ACTIONS
        if not 0 <= action < limit:
            raise InvalidMoveError(f"action {action!r} is not in 0..{limit - 1}")
        return action

    def action_to_move(self, action: int) -> Any:
        """A chance action → its ``Roll``; a decision → the turn so far with that
        decision added (``pass``, a direction alone as ``SchuftMove('cw', ...)``
        is not a move, so direction actions give the string ``'cw'``/``'ccw'``)."""
        action = self._check_int(action)
        if self._core_player() == CHANCE:
            return Roll.from_index(action)
        for a, src, dst in self._decision_options():
            if a == action:
                if a == ACTION_PASS:
                    return SchuftMove("pass")
                if a in (ACTION_CW, ACTION_CCW):
                    return "cw" if a == ACTION_CW else "ccw"
                cm = self._pending_cm()
                steps = [*_py.turn_steps(cm), (src, dst)]
                return _cm_to_move(_py.make_turn(cm & 3, steps))
        raise IllegalMoveError(f"action {action} is not legal here")

    def move_to_action(self, move: Any) -> int:
        """A ``Roll`` → its chance action; a pass → 335; a one-step turn → its step action."""
        if isinstance(move, str):
            move = self.parse_move(move)
        if isinstance(move, Roll):
            return move.index
        if not isinstance(move, SchuftMove):
            raise InvalidMoveError(f"{move!r} is not a Schuft move or roll")
        if move.direction == "pass":
            return ACTION_PASS
        if len(move.steps) != 1:
            raise InvalidMoveError(f"{str(move)!r}: only a single step maps to one action")
        direction = CW if move.direction == "cw" else CCW
        (src, dst), = _py.turn_steps(_move_to_cm(move))
        value = self._step_value_of(direction, src, dst)
        if value == 0:
            raise IllegalMoveError(f"{str(move)!r}: no die value makes this step")
        action = (value - 1) * 37 + src
        if self._core_player() >= 0:
            for a, s, t in self._decision_options():
                if a == action and (s, t) != (src, dst):
                    raise IllegalMoveError(
                        f"{str(move)!r}: value {value} from {_py.square_name(src, True)} "
                        f"goes to {_py.square_name(t, False)} here")
        return action

    def _step_value_of(self, direction: int, src: int, dst: int) -> int:
        seat = SEATS[self._players][max(self._core_to_move(), 0)]
        if src == 0:
            d = dst - 9 * seat if direction == CW else 9 * seat + 10 - dst
        elif dst > 36:
            d = (9 * seat + 8 - (src - 1)) % 36 + dst - 36 if direction == CW else 0
        else:
            d = (dst - src) % 36 if direction == CW else (src - dst) % 36
        return d if 1 <= d <= 9 and dst <= 45 else 0

    def apply_action(self, action: int) -> None:
        """Apply a chance action (roll index) or one decision of the turn."""
        action = self._check_int(action)
        player = self._core_player()
        if player == TERMINAL:
            raise IllegalMoveError(f"action {action}: the game is over")
        if player == CHANCE:
            self.roll(Roll.from_index(action))
            return
        for a, src, dst in self._decision_options():  # noqa: B007 (used after the loop)
            if a == action:
                break
        else:
            raise IllegalMoveError(f"action {action} is not legal here: legal are "
                                   f"{[a for a, _, _ in self._decision_options()]}")
        actions = (*self._pactions, (a, src, dst))
        if a == ACTION_PASS:
            self._finish_turn(0, (ACTION_PASS,))
            return
        self._pactions = actions
        if a in (ACTION_CW, ACTION_CCW):
            return
        if not self._core_step_options(self._pending_cm()):
            cm = self._pending_cm()
            self._finish_turn(cm, tuple(x for x, _, _ in actions))

    def _finish_turn(self, cm: int, actions: tuple[int, ...]) -> None:
        rep = self._core_canonical(cm)
        assert rep >= 0, _py.turn_notation(cm)
        self._pactions = ()
        self._core_push(rep)
        self._stack.append(_cm_to_move(rep))
        self._turn_actions[len(self._stack) - 1] = actions

    def undo_action(self) -> None:
        """Take back one decision (or one roll); taking back the last decision of
        a finished turn pops the turn and leaves its other decisions pending."""
        if self._pactions:
            self._pactions = self._pactions[:-1]
            return
        if not self._stack:
            raise IndexError("undo_action with nothing to undo")
        index = len(self._stack) - 1
        last = self._stack[-1]
        actions = self._turn_actions.pop(index, None)
        self._core_pop()
        self._stack.pop()
        if isinstance(last, Roll):
            return
        if actions is None:
            actions = self._actions_of(last)
        replay: list[tuple[int, int, int]] = []
        for action in actions[:-1]:
            for a, src, dst in self._decision_options_after(replay):
                if a == action:
                    replay.append((a, src, dst))
                    break
        self._pactions = tuple(replay)

    def _decision_options_after(self, pending: list[tuple[int, int, int]]) \
            -> list[tuple[int, int, int]]:
        saved = self._pactions
        self._pactions = tuple(pending)
        try:
            return self._decision_options()
        finally:
            self._pactions = saved

    def _actions_of(self, move: SchuftMove) -> tuple[int, ...]:
        """The decisions that play ``move`` from the position before it."""
        if move.direction == "pass":
            return (ACTION_PASS,)
        roll = self.pending_roll
        assert roll is not None
        direction = CW if move.direction == "cw" else CCW
        out = []
        if roll.total == 15:
            out.append(ACTION_CW if direction == CW else ACTION_CCW)
        for src, dst in _py.turn_steps(_move_to_cm(move)):
            out.append((self._step_value_of(direction, src, dst) - 1) * 37 + src)
        return tuple(out)

    def _load_pending(self, partial: str, text: str) -> None:
        if self._core_player() < 0:
            raise InvalidPositionError(f"{text!r}: a half-played turn needs a rolled decision node")
        try:
            parts = partial.split()
            if parts and parts[0] in ("cw", "ccw") and len(parts) == 1:
                move = None
                head = parts[0]
            else:
                move = SchuftMove.parse(partial)
                head = move.direction
            if head == "pass":
                raise InvalidMoveError("a pass is a whole turn")
            direction = CW if head == "cw" else CCW
            roll = self.pending_roll
            assert roll is not None
            actions = []
            if roll.total == 15:
                actions.append(ACTION_CW if direction == CW else ACTION_CCW)
            elif move is None:
                raise InvalidMoveError("the direction is only chosen at a roll summing to 15")
            if move is not None:
                for src, dst in _py.turn_steps(_move_to_cm(move)):
                    actions.append((self._step_value_of(direction, src, dst) - 1) * 37 + src)
            for action in actions:
                self.apply_action(action)
            if not self._pactions:
                raise InvalidMoveError("these decisions finish the turn")
        except BrettError as exc:
            raise InvalidPositionError(f"{text!r}: bad half-played turn {partial!r}: {exc}") \
                from exc

    def __hash__(self) -> int:
        key = int(self._core_key())
        if self._pactions:
            key = hash((key, self._pactions))
        return key

    def __eq__(self, other: object) -> bool:
        return super().__eq__(other)

    def observation_tensor(self) -> list[float]:
        """A flat float vector: for each player (in player order) 36 tongue
        counts, 9 goal bits and the out count (46 per player), then 4 one-hot
        to-move entries, then the roll (3 values / 9) or zeros: ``46 * players + 7``."""
        (n, owners, counts, goals, outs, to_move, roll, *_rest) = self._core_get_state()
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
        (n, owners, counts, goals, outs, to_move, roll, plies, cap, rolloff) = \
            self._core_get_state()
        seats = SEATS[n]
        lines = []
        cap_text = f"/{cap}" if cap >= 0 else ""
        player = self._core_player()
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
            if self._pactions:
                status += f"; so far: {self._pending_text()}"
        lines.append(f"Schuft, {n} players, turn {plies}{cap_text}; {status}")
        for q in range(4):
            cells = []
            for i in range(9 * q, 9 * q + 9):
                cell = f"{LETTERS[owners[i]]}{counts[i]}" if counts[i] else "."
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
    def from_cli(cls, args: argparse.Namespace) -> Any:
        first: Any = args.first_player
        if isinstance(first, str) and first.isdigit():
            first = int(first)
        return cls(players=args.players, first_player=first, max_plies=args.max_plies,
                   seed=args.seed)


def _parse_position(text: str) -> tuple[Any, ...]:
    def bad(reason: str) -> InvalidPositionError:
        return InvalidPositionError(f"bad Schuft position {text!r}: {reason}")

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
        if len(tok) < 2 or tok[0] not in letters or not tok[1:].isdigit() \
                or not 1 <= int(tok[1:]) <= 9 or tok[1] == "0":
            raise bad(f"tongue {i + 1} {tok!r}: expected '.' or a letter of "
                      f"{letters!r} and a count 1-9")
        owners[i], counts[i] = letters.index(tok[0]), int(tok[1:])
    goals = []
    for p, track in enumerate(tracks):
        if len(track) != 9 or any(ch not in (".", letters[p]) for ch in track):
            raise bad(f"goal track {track!r}: expected 9 characters '.' or {letters[p]!r}")
        goals.append(sum(1 << m for m, ch in enumerate(track) if ch != "."))
    outs_raw = out_text.split(",")
    if len(outs_raw) != n or not all(o.isdigit() and len(o) == 1 for o in outs_raw):
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
    if not ply_text.isdigit() or (len(ply_text) > 1 and ply_text[0] == "0"):
        raise bad(f"ply count {ply_text!r}: expected an int >= 0")
    plies = int(ply_text)
    if cap_text == "-":
        cap = -1
    elif cap_text.isdigit() and cap_text[0] != "0":
        cap = int(cap_text)
    else:
        raise bad(f"cap {cap_text!r}: expected '-' or an int >= 1")
    over = bool(winners) or (cap >= 0 and plies >= cap)
    rolloff = None
    if len(parts) == 8:
        entries = parts[7].split(",")
        contenders: list[int] = []
        sums: list[int] = []
        for e in entries:
            if not e or e[0] not in letters or (e[1:] and not e[1:].isdigit()):
                raise bad(f"roll-off entry {e!r}: expected a player letter and its sum if rolled")
            contenders.append(letters.index(e[0]))
            if e[1:]:
                if len(sums) != len(contenders) - 1 or not 4 <= int(e[1:]) <= 26:
                    raise bad(f"roll-off entry {e!r}: sums 4-26, rolled in player order")
                sums.append(int(e[1:]))
        if len(contenders) < 2 or contenders != sorted(set(contenders)) \
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


class Schuft(_SchuftAPI, _cores.selected.SchuftCore):  # type: ignore[misc,name-defined]
    """Schuft for 2-4 players with Miwin's dice (rules S1-S12).

    >>> game = Schuft(players=3, seed=1)
    >>> game.roll("9-9-8")
    Roll(9, 9, 8)
    >>> game.legal_moves.count()
    363
    """


__all__ = ["NUM_ACTIONS", "Roll", "Schuft", "SchuftMove"]
