"""Schuft in plain Python: the readable oracle of the Cython core.

Board: tongue indices 0..35 stand for tongues 1..36 (clockwise); player ``p``
sits at seat ``SEATS[n][p]``; ``goal[p]`` is a 9-bit mask (bit m-1 = field gm).

Core moves are ints shared with the Cython twin:

* a roll: ``ROLL_FLAG | r`` with ``r = i3 * 36 + i4 * 6 + i5`` (face indices of
  the dice III, IV and V);
* a turn: bits 0-1 the direction (0 pass, 1 cw, 2 ccw), bits 2-3 the number of
  steps, then 12 bits per step (``src | dst << 6``): ``src`` 0 = out area,
  1..36 a tongue; ``dst`` 1..36 a tongue, 37..45 the goal fields g1..g9.

The state (``get_state``) is the tuple
``(players, owners, counts, goals, outs, to_move, roll, plies, cap, rolloff)``:
owners/counts per tongue (owner -1 = empty), goal masks and out counts per
player, ``to_move`` (-1 during the roll-off), ``roll`` index or -1, the ply
(turn) counter, the cap or -1, and ``rolloff`` None or ``(contenders, sums)``.
"""

from __future__ import annotations

import math
from typing import Any, Optional

from ..errors import BrettError
from ._base import CHANCE, TERMINAL, PlayoutResult, PyCore
from ._rng import SplitMix64, zobrist_table
from ._stop import check as stop_check

DIE_III = (1, 2, 5, 6, 7, 9)
DIE_IV = (1, 3, 4, 5, 8, 9)
DIE_V = (2, 3, 4, 6, 7, 8)
ROLLS = tuple((a, b, c) for a in DIE_III for b in DIE_IV for c in DIE_V)
ROLL_FLAG = 1 << 48
PASS, CW, CCW = 0, 1, 2
SEATS = {2: (0, 2), 3: (0, 1, 2), 4: (0, 1, 2, 3)}
LETTERS = "rgby"
FULL_GOAL = 0x1FF

# Zobrist layout (the Cython core uses the same table and offsets).
ZOBRIST_SEED = 0x5343485546540005
Z_TONGUE = 0            # (p * 36 + i) * 10 + count
Z_GOAL = 1440           # p * 9 + m
Z_OUT = 1476            # p * 10 + count
Z_TOMOVE = 1516         # p
Z_ROLL = 1520           # r
Z_CONT = 1736           # p: contender in the roll-off
Z_RSUM = 1740           # p * 27 + sum: roll-off sum of the current round
Z_SIZE = 1848
ZOBRIST = zobrist_table(ZOBRIST_SEED, Z_SIZE)


# The search (brett.ai): a search action is a decision of the integer layer
# (schuft.py): the direction at a roll of 15, ``(value - 1) * 37 + source`` for one
# die's piece, or the pass.  "turns" is the search of whole turns that came
# before, kept only so that benchmarks/match.py can play against it (a private
# benchmark aid: set it before a search, never during one).
ACTION_CW, ACTION_CCW, ACTION_PASS = 333, 334, 335
_SEARCH_DECISIONS = True


def set_search_mode(mode: str) -> None:
    """``"decisions"`` (brett.ai's search) or ``"turns"`` (whole turns a node and
    playouts to the end, as before: a benchmark aid); for searches started later."""
    global _SEARCH_DECISIONS
    if mode not in ("decisions", "turns"):
        raise BrettError(f"search mode {mode!r}: expected 'decisions' or 'turns'")
    _SEARCH_DECISIONS = mode == "decisions"


def search_mode() -> str:
    return "decisions" if _SEARCH_DECISIONS else "turns"


# The race value of a position (``_s_shares``): a player's distance is RACE_BASE
# for every piece not home, RACE_OUT more for each piece out, RACE_HOLES times the
# goal's holes (HOLES), plus each piece's way on the ring (RACE_DIST); the shares
# are a softmax of minus the distances / RACE_TEMP.
RACE_BASE = 8.0
RACE_OUT = 2.0
RACE_TEMP = 10.0
RACE_HOLES = 16.0

# HOLES[goal bits]: the sum of 1 / (10 - m) over the free fields gm.  Field gm is
# filled only by a step of exactly k + m from k steps before the corner (k <= 9 - m),
# so a deep hole takes a rare roll: a last free g9 needs a 9 from the last tongue,
# and a player whose last piece circles the ring waiting for it loses the race.
HOLES = tuple(sum(1.0 / (9 - m) for m in range(9) if not (bits >> m) & 1)
              for bits in range(512))


def _race_way(seat: int, i: int) -> float:
    """In the home quarter (within 9 clockwise steps of the corner) k / 8 for k
    steps, else 1 + the shorter way back into the quarter (the direction of a
    turn is the dice's: clockwise and counter-clockwise equally likely)."""
    k = (9 * seat + 8 - i) % 36
    return k / 8.0 if k <= 8 else 1.0 + min(k - 8, 36 - k)


RACE_DIST = tuple(tuple(_race_way(seat, i) for i in range(36)) for seat in range(4))


def _set_race(base: float, out: float, temp: float, holes: float = RACE_HOLES) -> None:
    """Tuning aid: the race value's constants (see RACE_BASE)."""
    global RACE_BASE, RACE_OUT, RACE_TEMP, RACE_HOLES
    RACE_BASE, RACE_OUT, RACE_TEMP = float(base), float(out), float(temp)
    RACE_HOLES = float(holes)


# ------------------------------------------------------------ move encoding
def make_turn(direction: int, steps: list[tuple[int, int]] | tuple[tuple[int, int], ...]) -> int:
    cm = direction | (len(steps) << 2)
    for i, (src, dst) in enumerate(steps):
        cm |= (src | (dst << 6)) << (4 + 12 * i)
    return cm


def turn_direction(cm: int) -> int:
    return cm & 3


def turn_steps(cm: int) -> list[tuple[int, int]]:
    out = []
    for i in range((cm >> 2) & 3):
        code = (cm >> (4 + 12 * i)) & 0xFFF
        out.append((code & 63, code >> 6))
    return out


def square_name(code: int, is_src: bool) -> str:
    if is_src and code == 0:
        return "x"
    if code > 36:
        return f"g{code - 36}"
    return str(code)


def turn_notation(cm: int) -> str:
    direction = cm & 3
    if direction == PASS:
        return "pass"
    parts = ["cw" if direction == CW else "ccw"]
    for src, dst in turn_steps(cm):
        parts.append(f"{square_name(src, True)}/{square_name(dst, False)}")
    return " ".join(parts)


def roll_sum(r: int) -> int:
    return sum(ROLLS[r])


class SchuftCore(PyCore):
    """The state of a Schuft game and its rules (plain Python)."""

    _state_attrs = ("_n", "_seats", "_owner", "_counts", "_goal", "_out", "_to_move", "_roll",
                    "_plies", "_cap", "_rolloff", "_undo", "_key_", "_sdir", "_svals",
                    "_s_stack")

    def __init__(self) -> None:
        super().__init__()
        self._cache: Optional[tuple[Any, Any]] = None

    # ------------------------------------------------------------ state
    def _set_state(self, state: Any) -> None:
        (n, owners, counts, goals, outs, to_move, roll, plies, cap, rolloff) = state
        self._n = int(n)
        self._seats = SEATS[self._n]
        self._owner = list(owners)
        self._counts = list(counts)
        self._goal = list(goals)
        self._out = list(outs)
        self._to_move = int(to_move)
        self._roll = int(roll)
        self._plies = int(plies)
        self._cap = int(cap)
        self._rolloff = None if rolloff is None else (tuple(rolloff[0]), tuple(rolloff[1]))
        self._undo: list[Any] = []
        self._cache = None
        self._key_ = self._compute_key()
        self._sdir = 0                    # the search's turn being built: its direction
        self._svals: list[int] = []       # and unused values
        self._s_stack: list[Any] = []     # the search's undo records

    def _get_state(self) -> Any:
        return (self._n, tuple(self._owner), tuple(self._counts), tuple(self._goal),
                tuple(self._out), self._to_move, self._roll, self._plies, self._cap,
                self._rolloff)

    def _compute_key(self) -> int:
        z = ZOBRIST
        key = 0
        for i in range(36):
            if self._counts[i]:
                key ^= z[Z_TONGUE + (self._owner[i] * 36 + i) * 10 + self._counts[i]]
        for p in range(self._n):
            for m in range(9):
                if self._goal[p] >> m & 1:
                    key ^= z[Z_GOAL + p * 9 + m]
            if self._out[p]:
                key ^= z[Z_OUT + p * 10 + self._out[p]]
        if self._to_move >= 0:
            key ^= z[Z_TOMOVE + self._to_move]
        if self._roll >= 0:
            key ^= z[Z_ROLL + self._roll]
        if self._rolloff is not None:
            key ^= self._rolloff_key(self._rolloff)
        return key

    @staticmethod
    def _rolloff_key(rolloff: tuple[tuple[int, ...], tuple[int, ...]]) -> int:
        contenders, sums = rolloff
        key = 0
        for p in contenders:
            key ^= ZOBRIST[Z_CONT + p]
        for p, s in zip(contenders, sums, strict=False):
            key ^= ZOBRIST[Z_RSUM + p * 27 + s]
        return key

    def _key(self) -> int:
        return self._key_

    def roll(self) -> int:
        """The pending roll's index, -1 at a chance node."""
        return int(self._guarded(lambda: self._roll))

    def to_move(self) -> int:
        """The player whose turn it is (-1 during the roll-off)."""
        return int(self._guarded(lambda: self._to_move))

    def step_value(self, direction: int, src: int, dst: int) -> int:
        """The die value the player to move (player 0 during the roll-off) uses
        for the step ``src`` → ``dst`` in ``direction``, or 0 if none fits."""
        if direction not in (CW, CCW) or not (0 <= src <= 36 and 1 <= dst <= 45):
            return 0
        return int(self._guarded(lambda: self._step_value(max(self._to_move, 0), direction,
                                                          src, dst)))

    def _winner(self) -> int:
        for p in range(self._n):
            if self._goal[p] == FULL_GOAL:
                return p
        return -1

    def _num_players(self) -> int:
        return self._n

    def _winners(self) -> tuple[int, ...]:
        w = self._winner()
        return () if w < 0 else (w,)

    def _player(self) -> int:
        if self._winner() >= 0 or (self._cap >= 0 and self._plies >= self._cap):
            return TERMINAL
        if self._rolloff is not None or self._roll < 0:
            return CHANCE
        return self._to_move

    # ------------------------------------------------------------ single steps
    def _can_land(self, p: int, i: int) -> bool:
        o = self._owner[i]
        return o < 0 or o == p or self._counts[i] == 1

    def _clear(self, i: int, d: int, sign: int) -> bool:
        """No tongue strictly between index i and i + sign*d holds 3 or more pieces."""
        count = self._counts
        return all(count[(i + sign * j) % 36] < 3 for j in range(1, d))

    def _steps_for(self, p: int, direction: int, d: int) -> list[tuple[int, int]]:
        """The legal steps (src, dst) of player p with value d (rules S5-S7)."""
        s = self._seats[p]
        if self._out[p]:
            i = 9 * s + d - 1 if direction == CW else 9 * s + 9 - d
            return [(0, i + 1)] if self._can_land(p, i) else []
        steps = []
        sign = 1 if direction == CW else -1
        for i in range(36):
            if self._owner[i] != p:
                continue
            if direction == CW:
                k = (9 * s + 8 - i) % 36
                if d > k:
                    if not self._clear(i, k + 1, 1):
                        continue
                    m = d - k
                    if not self._goal[p] >> (m - 1) & 1:
                        steps.append((i + 1, 36 + m))
                        continue
                    # the goal field is taken: past the goal along the ring
            t = (i + sign * d) % 36
            if self._clear(i, d, sign) and self._can_land(p, t):
                steps.append((i + 1, t + 1))
        return steps

    def _options(self, p: int, direction: int, values: list[int]) -> list[tuple[int, int, int]]:
        """(value, src, dst) for every distinct unused value."""
        opts = []
        for d in sorted(set(values)):
            for src, dst in self._steps_for(p, direction, d):
                opts.append((d, src, dst))
        return opts

    def _make_step(self, p: int, src: int, dst: int) -> int:
        """Move a piece; returns the hit player or -1."""
        z = ZOBRIST
        key = self._key_
        if src == 0:
            c = self._out[p]
            key ^= z[Z_OUT + p * 10 + c]
            if c > 1:
                key ^= z[Z_OUT + p * 10 + c - 1]
            self._out[p] = c - 1
        else:
            i = src - 1
            c = self._counts[i]
            key ^= z[Z_TONGUE + (p * 36 + i) * 10 + c]
            if c > 1:
                key ^= z[Z_TONGUE + (p * 36 + i) * 10 + c - 1]
            else:
                self._owner[i] = -1
            self._counts[i] = c - 1
        hit = -1
        if dst > 36:
            m = dst - 37
            self._goal[p] |= 1 << m
            key ^= z[Z_GOAL + p * 9 + m]
        else:
            i = dst - 1
            o = self._owner[i]
            c = self._counts[i]
            if o >= 0 and o != p:
                hit = o
                key ^= z[Z_TONGUE + (o * 36 + i) * 10 + 1]
                oc = self._out[o]
                if oc:
                    key ^= z[Z_OUT + o * 10 + oc]
                key ^= z[Z_OUT + o * 10 + oc + 1]
                self._out[o] = oc + 1
                c = 0
            if c:
                key ^= z[Z_TONGUE + (p * 36 + i) * 10 + c]
            key ^= z[Z_TONGUE + (p * 36 + i) * 10 + c + 1]
            self._owner[i] = p
            self._counts[i] = c + 1
        self._key_ = key
        return hit

    def _unmake_step(self, p: int, src: int, dst: int, hit: int) -> None:
        z = ZOBRIST
        key = self._key_
        if dst > 36:
            m = dst - 37
            self._goal[p] &= ~(1 << m)
            key ^= z[Z_GOAL + p * 9 + m]
        else:
            i = dst - 1
            c = self._counts[i]
            key ^= z[Z_TONGUE + (p * 36 + i) * 10 + c]
            if c > 1:
                key ^= z[Z_TONGUE + (p * 36 + i) * 10 + c - 1]
                self._counts[i] = c - 1
            elif hit >= 0:
                key ^= z[Z_TONGUE + (hit * 36 + i) * 10 + 1]
                oc = self._out[hit]
                key ^= z[Z_OUT + hit * 10 + oc]
                if oc > 1:
                    key ^= z[Z_OUT + hit * 10 + oc - 1]
                self._out[hit] = oc - 1
                self._owner[i] = hit
                self._counts[i] = 1
            else:
                self._owner[i] = -1
                self._counts[i] = 0
        if src == 0:
            c = self._out[p]
            if c:
                key ^= z[Z_OUT + p * 10 + c]
            key ^= z[Z_OUT + p * 10 + c + 1]
            self._out[p] = c + 1
        else:
            i = src - 1
            c = self._counts[i]
            if c:
                key ^= z[Z_TONGUE + (p * 36 + i) * 10 + c]
            key ^= z[Z_TONGUE + (p * 36 + i) * 10 + c + 1]
            self._owner[i] = p
            self._counts[i] = c + 1
        self._key_ = key

    def _step_value(self, p: int, direction: int, src: int, dst: int) -> int:
        """The die value a step (src, dst) uses, or 0 if no value fits."""
        s = self._seats[p]
        if src == 0:
            if not 1 <= dst <= 36:
                return 0
            d = dst - 9 * s if direction == CW else 9 * s + 10 - dst
        elif dst > 36:
            if direction != CW:
                return 0
            d = (9 * s + 8 - (src - 1)) % 36 + (dst - 36)
        elif direction == CW:
            d = (dst - src) % 36
        else:
            d = (src - dst) % 36
        return d if 1 <= d <= 9 else 0

    # ------------------------------------------------------------ whole turns
    def _packed(self) -> tuple[Any, ...]:
        return (tuple(self._owner), tuple(self._counts), tuple(self._goal), tuple(self._out))

    def _turns(self) -> tuple[dict[Any, int], dict[int, Any]]:
        """All turns: ({result: representative cm}, {step-list cm: result}).

        Cached per position (compared exactly)."""
        packed = self._packed()
        ident = (packed, self._to_move, self._roll)
        if self._cache is not None and self._cache[0] == ident:
            return self._cache[1]
        best: dict[Any, tuple[str, int]] = {}
        lists: dict[int, Any] = {}
        p = self._to_move
        roll = ROLLS[self._roll]
        total = sum(roll)
        directions = (CW,) if total > 15 else (CCW,) if total < 15 else (CW, CCW)
        for direction in directions:
            self._dfs(p, direction, list(roll), [], "cw" if direction == CW else "ccw",
                      best, lists)
        if not best:
            best[packed] = ("pass", PASS)
            lists[PASS] = packed
        result = ({res: cm for res, (_, cm) in best.items()}, lists)
        self._cache = (ident, result)
        return result

    def _dfs(self, p: int, direction: int, values: list[int], steps: list[tuple[int, int]],
             text: str, best: dict[Any, tuple[str, int]], lists: dict[int, Any]) -> None:
        """Play every legal step in turn; ``text`` is the notation so far.  A
        complete step list keeps the notation sorting first for its result."""
        opts = [] if self._goal[p] == FULL_GOAL else self._options(p, direction, values)
        if not opts:
            if steps:
                cm = make_turn(direction, steps)
                res = self._packed()
                lists[cm] = res
                old = best.get(res)
                if old is None or text < old[0]:
                    best[res] = (text, cm)
            return
        for d, src, dst in opts:
            hit = self._make_step(p, src, dst)
            values.remove(d)
            steps.append((src, dst))
            self._dfs(p, direction, values, steps,
                      f"{text} {square_name(src, True)}/{square_name(dst, False)}", best, lists)
            steps.pop()
            values.append(d)
            self._unmake_step(p, src, dst, hit)

    def _moves(self) -> list[int]:
        if self._player() < 0:
            return []
        reps = self._turns()[0]
        return sorted(reps.values(), key=turn_notation)

    def _count(self, limit: int) -> int:
        if self._player() < 0:
            return 0
        return len(self._turns()[0])

    def _chance_moves(self) -> list[tuple[Any, float]]:
        if self._player() != CHANCE:
            return []
        return [(ROLL_FLAG | r, 1 / 216) for r in range(216)]

    def canonical(self, cm: int) -> int:
        """The representative of a legal turn (any step order), or -1."""
        return int(self._guarded(self._canonical, cm))

    def _canonical(self, cm: Any) -> int:
        if type(cm) is not int or cm < 0 or self._player() < 0 or cm & ROLL_FLAG:
            return -1
        reps, lists = self._turns()
        res = lists.get(cm)
        return -1 if res is None else reps[res]

    def _is_legal(self, cm: Any) -> bool:
        if type(cm) is not int or cm < 0:
            return False
        if cm >= ROLL_FLAG:
            return self._player() == CHANCE and 0 <= cm - ROLL_FLAG < 216
        return self._canonical(cm) >= 0

    def step_options(self, cm: int, ahead: bool = False) -> Optional[list[tuple[int, ...]]]:
        """Play the steps of ``cm`` in order (each checked); the legal next
        steps (value, src, dst) sorted by (value, src); None if a step is not
        legal.  With ``ahead``, (value, src, dst, more): ``more`` is whether the
        turn goes on after that step.  Used by the integer layer and for error
        messages."""
        return self._guarded(self._step_options, cm, ahead)  # type: ignore[no-any-return]

    def _step_options(self, cm: int, ahead: bool = False) -> Optional[list[tuple[int, ...]]]:
        if type(cm) is not int or cm < 0 or self._player() < 0 or cm & ROLL_FLAG:
            return None
        p = self._to_move
        direction = cm & 3
        total = sum(ROLLS[self._roll])
        if direction == PASS or (direction == CW and total < 15) \
                or (direction == CCW and total > 15):
            return None
        values = list(ROLLS[self._roll])
        done: list[tuple[int, int, int]] = []
        result: Optional[list[tuple[int, ...]]] = None
        try:
            for src, dst in turn_steps(cm):
                if self._goal[p] == FULL_GOAL:
                    return None
                d = self._step_value(p, direction, src, dst)
                if d not in values or (src, dst) not in self._steps_for(p, direction, d):
                    return None
                done.append((src, dst, self._make_step(p, src, dst)))
                values.remove(d)
            opts = [] if self._goal[p] == FULL_GOAL else self._options(p, direction, values)
            result = [(d, src, dst, self._goes_on(p, direction, values, d, src, dst))
                      for d, src, dst in opts] if ahead else list(opts)
        finally:
            for src, dst, hit in reversed(done):
                self._unmake_step(p, src, dst, hit)
        return result

    def _goes_on(self, p: int, direction: int, values: list[int], d: int, src: int,
                 dst: int) -> bool:
        """Whether a step is left after playing value ``d`` from ``src`` to ``dst``."""
        hit = self._make_step(p, src, dst)
        rest = list(values)
        rest.remove(d)
        more = self._goal[p] != FULL_GOAL and bool(self._options(p, direction, rest))
        self._unmake_step(p, src, dst, hit)
        return more

    # ------------------------------------------------------------ make / unmake
    def _push(self, cm: int) -> None:
        z = ZOBRIST
        if cm >= ROLL_FLAG:
            r = cm - ROLL_FLAG
            if self._rolloff is None:
                self._undo.append(("roll", None, None))
                self._roll = r
                self._key_ ^= z[Z_ROLL + r]
                return
            old = self._rolloff
            contenders, sums = old
            sums = (*sums, roll_sum(r))
            new: Optional[tuple[tuple[int, ...], tuple[int, ...]]] = (contenders, sums)
            to_move = -1
            if len(sums) == len(contenders):
                top = max(sums)
                tied = tuple(c for c, s in zip(contenders, sums, strict=False) if s == top)
                if len(tied) == 1:
                    new = None
                    to_move = tied[0]
                else:
                    new = (tied, ())
            self._undo.append(("rolloff", old, self._to_move))
            self._key_ ^= self._rolloff_key(old)
            if new is not None:
                self._key_ ^= self._rolloff_key(new)
            if to_move >= 0:
                self._key_ ^= z[Z_TOMOVE + to_move]
            self._rolloff = new
            self._to_move = to_move
            return
        p = self._to_move
        done = []
        for src, dst in turn_steps(cm):
            done.append((src, dst, self._make_step(p, src, dst)))
        self._undo.append(("turn", done, self._roll))
        self._end_turn()

    def _pop(self) -> None:
        z = ZOBRIST
        kind, a, b = self._undo.pop()
        if kind == "roll":
            self._key_ ^= z[Z_ROLL + self._roll]
            self._roll = -1
            return
        if kind == "rolloff":
            if self._rolloff is not None:
                self._key_ ^= self._rolloff_key(self._rolloff)
            if self._to_move >= 0:
                self._key_ ^= z[Z_TOMOVE + self._to_move]
            self._rolloff = a
            self._to_move = b
            self._key_ ^= self._rolloff_key(a)
            return
        self._plies -= 1
        self._key_ ^= z[Z_TOMOVE + self._to_move]
        p = (self._to_move - 1) % self._n
        self._to_move = p
        self._roll = b
        self._key_ ^= z[Z_ROLL + b] ^ z[Z_TOMOVE + p]
        for src, dst, hit in reversed(a):
            self._unmake_step(p, src, dst, hit)

    # ------------------------------------------------------------ search
    def _perft(self, depth: int, count_finished: bool) -> int:
        if self._rolloff is not None:
            raise BrettError("perft is not defined during the opening roll-off "
                             "(tied players re-roll without bound)")
        return self._perft_turns(depth, count_finished)

    def _perft_turns(self, depth: int, count_finished: bool) -> int:
        if depth == 0:
            return 1
        stop_check()
        player = self._player()
        if player == TERMINAL:
            return 1 if count_finished else 0
        if player == CHANCE:
            total = 0
            for r in range(216):
                self._push(ROLL_FLAG | r)
                total += self._perft_turns(depth, count_finished)
                self._pop()
            return total
        moves = self._moves()
        if depth == 1:
            return len(moves)
        total = 0
        for cm in moves:
            self._push(cm)
            total += self._perft_turns(depth - 1, count_finished)
            self._pop()
        return total

    def _random_move(self, rng: SplitMix64) -> Any:
        player = self._player()
        if player == CHANCE:
            return ROLL_FLAG | rng.below(216)
        if player == TERMINAL:
            return None
        moves = self._moves()
        return moves[rng.below(len(moves))]

    def _decision_turn(self, rng: SplitMix64) -> int:
        """Play one turn by uniformly random decisions of the integer layer
        (the direction at 15, then one step at a time, or pass); returns the
        number of decisions."""
        p = self._to_move
        roll = list(ROLLS[self._roll])
        total = sum(roll)
        steps: list[tuple[int, int]] = []
        decisions = 0
        if total == 15:
            dirs = [d for d in (CW, CCW) if self._options(p, d, roll)]
            if not dirs:
                self._push(PASS)
                return 1
            direction = dirs[rng.below(len(dirs))]
            decisions = 1
        else:
            direction = CW if total > 15 else CCW
        done = []
        while roll and self._goal[p] != FULL_GOAL:
            opts = self._options(p, direction, roll)
            if not opts:
                break
            d, src, dst = opts[rng.below(len(opts))]
            done.append((src, dst, self._make_step(p, src, dst)))
            steps.append((src, dst))
            roll.remove(d)
            decisions += 1
        for src, dst, hit in reversed(done):
            self._unmake_step(p, src, dst, hit)
        self._push(make_turn(direction, steps) if steps else PASS)
        return max(decisions, 1)

    def decision_playouts(self, n: int, seed: int, max_plies: int) -> PlayoutResult:
        """Like ``playouts``, but every turn is played by random decisions of the
        integer layer; the plies counted are decisions, not turns."""
        return self._private()._decision_playouts(n, seed, max_plies)  # type: ignore[attr-defined, no-any-return]

    def _decision_playouts(self, n: int, seed: int, max_plies: int) -> PlayoutResult:
        rng = SplitMix64(seed)
        wins = [0] * self._n
        draws = unfinished = counted = 0
        for _ in range(n):
            made = turns = 0
            while True:
                player = self._player()
                if player == TERMINAL:
                    w = self._winner()
                    if w >= 0:
                        wins[w] += 1
                    else:
                        draws += 1
                    break
                if 0 <= max_plies <= turns:
                    unfinished += 1
                    break
                stop_check()
                if player == CHANCE:
                    self._push(ROLL_FLAG | rng.below(216))
                else:
                    counted += self._decision_turn(rng)
                    turns += 1
                made += 1
            for _ in range(made):
                self._pop()
        return wins, draws, unfinished, counted, rng.state

    # ------------------------------------------------------------ the search protocol
    # brett.ai's tree search (the compiled twin's s_* hooks): one decision of the
    # integer layer per action; the steps of the turn being built are made on the
    # state itself (``_sdir``, ``_svals``), each with a record on ``_s_stack``.
    def _s_pending(self) -> bool:
        return self._sdir != 0

    def _s_actions(self) -> list[int]:
        """The decisions of legal_actions(), in its order (turns mode: moves())."""
        player = self._player()
        if player < 0:
            return []
        if not _SEARCH_DECISIONS:
            return self._moves()
        if self._sdir:
            opts = self._options(player, self._sdir, self._svals)
        else:
            roll = list(ROLLS[self._roll])
            total = sum(roll)
            if total == 15:
                out = [a for d, a in ((CW, ACTION_CW), (CCW, ACTION_CCW))
                       if self._options(player, d, roll)]
                return out or [ACTION_PASS]
            opts = self._options(player, CW if total > 15 else CCW, roll)
            if not opts:
                return [ACTION_PASS]
        return [(d - 1) * 37 + src for d, src, _ in opts]

    def _s_do(self, action: int) -> None:
        before = (self._sdir, list(self._svals))
        if action >= ROLL_FLAG or not _SEARCH_DECISIONS:
            self._push(action)
            self._s_stack.append(("core", before))
            return
        p = self._to_move
        roll = list(ROLLS[self._roll])
        total = sum(roll)
        if action == ACTION_PASS:
            if self._sdir or (total >= 15 and self._options(p, CW, roll)) \
                    or (total <= 15 and self._options(p, CCW, roll)):
                raise ValueError("schuft search action pass: a step is legal")
            self._push(PASS)
            self._s_stack.append(("core", before))
            return
        if action in (ACTION_CW, ACTION_CCW):
            direction = CW if action == ACTION_CW else CCW
            if self._sdir or total != 15 or not self._options(p, direction, roll):
                raise ValueError(f"schuft search action {action}: no direction to choose")
            self._sdir, self._svals = direction, roll
            self._s_stack.append(("dir", before))
            return
        if self._sdir:
            direction, vals = self._sdir, list(self._svals)
        else:
            direction, vals = (CW if total > 15 else CCW), roll
        value, src = action // 37 + 1, action % 37
        dst = -1
        if 0 <= action < ACTION_CW and value in vals and (self._sdir or total != 15):
            dst = next((t for s, t in self._steps_for(p, direction, value) if s == src), -1)
        if dst < 0:
            raise ValueError(f"schuft search action {action} is not legal here")
        key = self._key_
        hit = self._make_step(p, src, dst)
        vals.remove(value)
        if vals and self._goal[p] != FULL_GOAL and self._options(p, direction, vals):
            self._sdir, self._svals = direction, vals
            self._s_stack.append(("step", before, p, src, dst, hit, key))
            return
        self._s_stack.append(("end", before, p, src, dst, hit, key, self._roll))
        self._sdir, self._svals = 0, []
        self._end_turn()

    def _end_turn(self) -> None:
        z = ZOBRIST
        p = self._to_move
        self._key_ ^= z[Z_ROLL + self._roll] ^ z[Z_TOMOVE + p]
        self._roll = -1
        self._to_move = (p + 1) % self._n
        self._key_ ^= z[Z_TOMOVE + self._to_move]
        self._plies += 1

    def _s_undo(self) -> None:
        record = self._s_stack.pop()
        kind = record[0]
        if kind == "core":
            self._pop()
        elif kind != "dir":
            p, src, dst, hit, key = record[2:7]
            if kind == "end":
                self._to_move, self._roll = p, record[7]
                self._plies -= 1
            self._unmake_step(p, src, dst, hit)
            self._key_ = key
        self._sdir, self._svals = record[1]

    def _s_playout(self, rng: int, max_plies: int) -> tuple[int, int]:
        """A random game by decisions, the turn being built finished first, cut at
        the first roll after ``max_plies`` turns (the one finished counts; -1: no
        cut) and then valued by the race (-1; :meth:`_s_shares`); the state
        unchanged.  Turns mode: ``playouts(1, rng, max_plies)``, as before."""
        if not _SEARCH_DECISIONS:
            return super()._s_playout(rng, max_plies)
        saved = (list(self._owner), list(self._counts), list(self._goal), list(self._out),
                 self._to_move, self._roll, self._plies, self._rolloff, self._key_)
        undo = len(self._undo)
        gen = SplitMix64(rng)
        turns = 0
        try:
            if self._sdir:
                self._random_steps(self._to_move, self._sdir, list(self._svals), gen)
                self._end_turn()
                turns = 1
            while True:
                player = self._player()
                if player == TERMINAL:
                    w = self._winner()
                    mask = 1 << w if w >= 0 else 0
                    break
                if player == CHANCE:
                    if 0 <= max_plies <= turns and self._rolloff is None:
                        self._cut = self._race_shares()
                        mask = -1
                        break
                    self._push(ROLL_FLAG | gen.below(216))
                else:
                    self._decision_turn(gen)
                    turns += 1
        finally:
            (self._owner, self._counts, self._goal, self._out, self._to_move, self._roll,
             self._plies, self._rolloff, self._key_) = saved
            del self._undo[undo:]
        return mask, gen.state

    def _random_steps(self, p: int, direction: int, vals: list[int], rng: SplitMix64) -> int:
        """Steps drawn uniformly from the options (the integer layer's decisions)
        until no unused value has one or every piece is home; the steps made."""
        made = 0
        while vals and self._goal[p] != FULL_GOAL:
            opts = self._options(p, direction, vals)
            if not opts:
                break
            d, src, dst = opts[rng.below(len(opts))]
            self._make_step(p, src, dst)
            vals.remove(d)
            made += 1
        return made

    _cut: list[float] = [0.5] * 4

    def _s_shares(self) -> list[float]:
        return list(self._cut)

    def _race_shares(self) -> list[float]:
        """Each player's race value, 0..1, summing to 1 over the players."""
        dist = []
        for p in range(self._n):
            seat = self._seats[p]
            x = (RACE_BASE * (9 - bin(self._goal[p]).count("1")) + RACE_OUT * self._out[p]
                 + RACE_HOLES * HOLES[self._goal[p] & 511])
            for i in range(36):
                if self._owner[i] == p and self._counts[i]:
                    x += self._counts[i] * RACE_DIST[seat][i]
            dist.append(x)
        low = min(dist)
        exps = [math.exp((low - x) / RACE_TEMP) for x in dist]
        total = 0.0
        for e in exps:  # in order, as the compiled twin adds them
            total += e
        return [e / total for e in exps] + [0.0] * (4 - self._n)
