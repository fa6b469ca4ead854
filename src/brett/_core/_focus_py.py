"""Focus in plain Python: the readable oracle of the Cython core (rules F1–F13).

Everything here is written for clarity, not speed.  The Cython core
(``_focus_c.pyx``) has the same class and method names and must behave
identically: the same canonical move order, the same Zobrist keys, the same
playouts for the same seed.  Geometry and the action encoding live here and the
Cython core copies them at import.

Squares are numbered 0..51 over the playable squares, rank 1 to rank 8 and
within a rank file a to h (``c1`` = 0, ``d1`` = 1, ..., ``f8`` = 51).
Directions: 0 = north, 1 = east, 2 = south, 3 = west.  Players (and piece
colours) are 0..3 = ``r g b y``.

Action encoding (fixed, the same for every variant):

* stack move of the top ``k`` pieces from square ``s`` in direction ``dir`` over
  a distance ``d`` (``1 <= d <= k <= 5``)::

      action = (s * 4 + dir) * 15 + k * (k - 1) // 2 + (d - 1)     # 0 .. 3119

* reserve entry onto square ``s``: ``action = 3120 + s``          # 3120 .. 3171
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional

from ._base import TERMINAL, PyCore
from ._rng import SplitMix64, zobrist_table
from ._stop import check as stop_check

# ------------------------------------------------------------------ geometry
FILES = "abcdefgh"
COLOURS = "rgby"
CUT = frozenset(["a1", "b1", "a2", "g1", "h1", "h2", "a7", "a8", "b8", "g8", "h8", "h7"])
NUM_SQUARES = 52
MAX_HEIGHT = 5
SQUARE_XY: list[tuple[int, int]] = [
    (x, y) for y in range(8) for x in range(8) if f"{FILES[x]}{y + 1}" not in CUT
]
SQUARE_NAMES: list[str] = [f"{FILES[x]}{y + 1}" for x, y in SQUARE_XY]
SQUARE_INDEX: dict[str, int] = {name: i for i, name in enumerate(SQUARE_NAMES)}
XY_INDEX: dict[tuple[int, int], int] = {xy: i for i, xy in enumerate(SQUARE_XY)}
DIRECTIONS = ((0, 1), (1, 0), (0, -1), (-1, 0))  # N E S W


def _target(sq: int, direction: int, distance: int) -> int:
    x, y = SQUARE_XY[sq]
    dx, dy = DIRECTIONS[direction]
    return XY_INDEX.get((x + dx * distance, y + dy * distance), -1)


# TARGET[sq][dir][d]: the square d steps away (d = 1..5), or -1 off the board.
TARGET: list[list[list[int]]] = [
    [[-1] + [_target(sq, di, d) for d in range(1, 6)] for di in range(4)]
    for sq in range(NUM_SQUARES)
]
MIRROR_SQUARE: list[int] = [XY_INDEX[(7 - x, 7 - y)] for x, y in SQUARE_XY]

# ----------------------------------------------------------- action encoding
PAIRS: list[tuple[int, int]] = [(k, d) for k in range(1, 6) for d in range(1, k + 1)]
PAIR_INDEX: dict[tuple[int, int], int] = {kd: i for i, kd in enumerate(PAIRS)}
ENTRY_BASE = NUM_SQUARES * 4 * len(PAIRS)  # 3120
NUM_ACTIONS = ENTRY_BASE + NUM_SQUARES  # 3172

RULES = ("exact", "up_to", "whole")


def stack_action(sq: int, direction: int, count: int, distance: int) -> int:
    return (sq * 4 + direction) * 15 + PAIR_INDEX[(count, distance)]


def entry_action(sq: int) -> int:
    return ENTRY_BASE + sq


def decode(action: int) -> tuple[int, int, int, int, int]:
    """``(source, target, count, distance, direction)``; source -1 for an entry,
    target -1 when the move would leave the board."""
    if action >= ENTRY_BASE:
        return -1, action - ENTRY_BASE, 1, 0, -1
    sd, pair = divmod(action, 15)
    sq, direction = divmod(sd, 4)
    k, d = PAIRS[pair]
    return sq, TARGET[sq][direction][d], k, d, direction


def mirror_action(action: int) -> int:
    """The move's image under the 180° rotation (F9)."""
    if action >= ENTRY_BASE:
        return ENTRY_BASE + MIRROR_SQUARE[action - ENTRY_BASE]
    sd, pair = divmod(action, 15)
    sq, direction = divmod(sd, 4)
    return (MIRROR_SQUARE[sq] * 4 + (direction + 2) % 4) * 15 + pair


def pairs_for(rule: int, height: int) -> list[tuple[int, int]]:
    """The (count, distance) choices of a stack of this height, in action order."""
    if rule == 0:  # exact: k pieces move exactly k squares
        return [(k, k) for k in range(1, height + 1)]
    if rule == 1:  # up_to: k pieces move 1..k squares
        return [(k, d) for k in range(1, height + 1) for d in range(1, k + 1)]
    return [(height, height)] if height else []  # whole: the stack moves h squares


# ------------------------------------------------------------- Zobrist keys
ZOBRIST_SEED = 0x466F637573  # "Focus"
Z_PIECE = 0  # ((sq * 5 + level) * 4 + colour)
Z_TOMOVE = Z_PIECE + NUM_SQUARES * MAX_HEIGHT * 4  # 1040 + p
Z_RESERVE = Z_TOMOVE + 4  # + p * 64 + count
Z_CAPTURED = Z_RESERVE + 4 * 64  # + (p * 4 + colour) * 64 + count
Z_RETURNED = Z_CAPTURED + 16 * 64  # + p * 64 + count
Z_FIRST = Z_RETURNED + 4 * 64  # + p
Z_SIZE = Z_FIRST + 4
MAX_COUNT = 63
ZOBRIST: list[int] = zobrist_table(ZOBRIST_SEED, Z_SIZE)

# ------------------------------------------------------------ result codes
NOT_OVER = 0
REASONS = (
    "",
    "the player to move has no legal move",         # 1  (2 players)
    "captured at least 3 pieces of each opponent",  # 2  (3 players)
    "removed at least 10 pieces",                   # 3  (3 players)
    "the last player able to move",                 # 4  (3 players, 4 free-for-all)
    "neither member of the other team can move",    # 5  (4 players, teams)
    "no player can move",                           # 6  draw
    "the ply cap was reached",                      # 7  draw
    "mirror rule: every move of player 1 mirrored player 0's",  # 8
)
MIRROR_OK = -1  # the mirror has held and no reply is pending
MIRROR_BROKEN = -2  # player 1 deviated (or the rule is off)


class FocusState(NamedTuple):
    """The whole state of a Focus game as plain Python values (both twins)."""

    players: int
    teams: bool
    rule: int  # index into RULES
    max_plies: int  # -1: no cap
    mirror_rule: bool
    board: tuple[tuple[int, ...], ...]  # 52 stacks, bottom to top
    to_move: int
    reserves: tuple[int, ...]
    captured: tuple[tuple[int, ...], ...]  # captured[p][colour]
    returned: tuple[int, ...]  # own pieces sent to the reserve by overflow (3 players)
    first: int  # bit p: player p still owes the first entry (F8, 3 players)
    ply: int
    mirror: int  # MIRROR_OK, MIRROR_BROKEN or the action player 1 must answer


class _Undo(NamedTuple):
    changed: tuple[tuple[int, tuple[int, ...]], ...]
    reserves: list[int]
    captured: list[list[int]]
    returned: list[int]
    first: int
    to_move: int
    ply: int
    mirror: int
    result: tuple[int, int]


class FocusCore(PyCore):
    """Plain-Python Focus core (the core protocol, see ``_base.py``)."""

    _state_attrs = ("_n", "_teams", "_rule", "_cap", "_mirror_rule", "_board", "_to_move",
                    "_reserves", "_captured", "_returned", "_first", "_ply", "_mirror",
                    "_undo", "_result")

    # ---- state in and out
    def _set_state(self, state: FocusState) -> None:
        self._n = state.players
        self._teams = state.teams and state.players == 4
        self._rule = state.rule
        self._cap = state.max_plies
        self._mirror_rule = state.mirror_rule and state.players == 2
        self._board = [list(s) for s in state.board]
        self._to_move = state.to_move
        self._reserves = list(state.reserves)
        self._captured = [list(row) for row in state.captured]
        self._returned = list(state.returned)
        self._first = state.first
        self._ply = state.ply
        self._mirror = state.mirror if self._mirror_rule else MIRROR_BROKEN
        self._undo: list[Any] = []
        self._result = (0, NOT_OVER)  # (winners bitmask, reason)
        self._evaluate()

    def _get_state(self) -> FocusState:
        return FocusState(
            self._n, self._teams, self._rule, self._cap, self._mirror_rule,
            tuple(tuple(s) for s in self._board), self._to_move, tuple(self._reserves),
            tuple(tuple(r) for r in self._captured), tuple(self._returned),
            self._first, self._ply, self._mirror,
        )

    # ---- moves
    def _moves_for(self, p: int) -> list[int]:
        """Every move player ``p`` could make here, in canonical (ascending) order."""
        moves = []
        first = bool(self._first >> p & 1)
        if not first:  # F8: a player owing the first entry may only enter
            for sq, stack in enumerate(self._board):
                if not stack or stack[-1] != p:  # own stacks only (never a partner's)
                    continue
                for direction in range(4):
                    for k, d in pairs_for(self._rule, len(stack)):
                        if TARGET[sq][direction][d] >= 0:
                            moves.append(stack_action(sq, direction, k, d))
        if self._reserves[p] > 0:
            for sq, stack in enumerate(self._board):
                if not first or not stack:
                    moves.append(entry_action(sq))
        return moves

    def _moves(self) -> list[int]:
        if self._result[1] != NOT_OVER:
            return []
        return self._moves_for(self._to_move)

    def _is_legal(self, cm: Any) -> bool:
        return type(cm) is int and cm in self._moves()

    def _player(self) -> int:
        return TERMINAL if self._result[1] != NOT_OVER else self._to_move

    def result(self) -> Optional[tuple[int, int]]:
        """None while the game runs, else ``(winners bitmask, reason code)``."""
        result = self._guarded(lambda: self._result)
        return None if result[1] == NOT_OVER else result

    def _num_players(self) -> int:
        return self._n

    def _winners(self) -> tuple[int, ...]:
        return tuple(p for p in range(self._n) if self._result[0] >> p & 1)

    def _s_playout(self, rng: int, max_plies: int) -> tuple[int, int]:
        """A random game (the draw of playouts); one cut short is valued by
        :meth:`_cut_shares` (-1 returned, the values kept for :meth:`_s_shares`)."""
        gen = SplitMix64(rng)
        made = 0
        while self._player() != TERMINAL and (max_plies < 0 or made < max_plies):
            self._push(self._random_move(gen))
            made += 1
        mask = self._result[0] if self._player() == TERMINAL else -1
        if mask < 0:
            self._cut = tuple(self._cut_shares())
        for _ in range(made):
            self._pop()
        return mask, gen.state

    _cut: tuple[float, ...] = (0.5,) * 4

    def _s_shares(self) -> list[float]:
        return list(self._cut)

    def _cut_shares(self) -> list[float]:
        """Each player's value of a playout cut short: with s a side's stacks on
        top plus reserve pieces (a team of 4 adds its members') and m the best
        other side's, 0.5 + 0.5 * (s - m) / (s + m); 0.5 when both are 0."""
        score = [float(sum(1 for s in self._board if s and s[-1] == p) + self._reserves[p])
                 for p in range(self._n)]
        if self._teams:
            score = [score[0] + score[2], score[1] + score[3]]
        values = []
        for p, s in enumerate(score):
            m = max(x for q, x in enumerate(score) if q != p)
            values.append(0.5 if s + m == 0 else 0.5 + 0.5 * (s - m) / (s + m))
        return values * 2 if self._teams else values

    def _push(self, cm: int) -> None:
        p = self._to_move
        src, dst, k, _, _ = decode(cm)
        changed = [(dst, tuple(self._board[dst]))]
        self._undo.append(_Undo(
            tuple(changed + ([(src, tuple(self._board[src]))] if src >= 0 else [])),
            list(self._reserves), [list(r) for r in self._captured], list(self._returned),
            self._first, self._to_move, self._ply, self._mirror, self._result))
        if src < 0:  # F5.2 reserve entry
            self._reserves[p] -= 1
            self._first &= ~(1 << p)
            pieces = [p]
        else:  # F5.1 stack move: the top k pieces, order kept
            pieces = self._board[src][-k:]
            del self._board[src][-k:]
        stack = self._board[dst] + pieces
        while len(stack) > MAX_HEIGHT:  # F6 overflow from the bottom
            colour = stack.pop(0)
            if colour == p:
                self._reserves[p] += 1
                if self._n == 3:
                    self._returned[p] += 1
            else:
                self._captured[p][colour] += 1
        self._board[dst] = stack
        if self._mirror_rule and self._mirror != MIRROR_BROKEN:  # F9 mirror rule
            if p == 0:
                self._mirror = mirror_action(cm)
            else:
                self._mirror = MIRROR_OK if self._mirror == cm else MIRROR_BROKEN
        self._ply += 1
        self._to_move = (p + 1) % self._n
        self._evaluate()

    def _pop(self) -> None:
        u = self._undo.pop()
        for sq, stack in u.changed:
            self._board[sq] = list(stack)
        self._reserves = u.reserves
        self._captured = u.captured
        self._returned = u.returned
        self._first = u.first
        self._to_move = u.to_move
        self._ply = u.ply
        self._mirror = u.mirror
        self._result = u.result

    # ---- end of the game (F7) and turn order (F4)
    def _removal_win(self, p: int) -> int:
        """F7, 3 players: the reason code if player p has won by captures, else 0."""
        opponents = [c for c in range(self._n) if c != p]
        if all(self._captured[p][c] >= 3 for c in opponents):
            return 2
        if sum(self._captured[p]) + self._returned[p] >= 10:
            return 3
        return 0

    def _evaluate(self) -> None:
        """Decide whether the game is over; if not, skip players who cannot move.

        A pure function of the state fields, used after every move and on load.
        """
        n = self._n
        winners, reason = 0, NOT_OVER
        if n == 3:
            for p in range(n):
                code = self._removal_win(p)
                if code:
                    winners, reason = 1 << p, code
                    break
        if reason == NOT_OVER and n == 2:
            if not self._moves_for(self._to_move):  # 2 players: no skipping
                winners, reason = 1 << (1 - self._to_move), 1
        elif reason == NOT_OVER:
            able = [bool(self._moves_for(p)) for p in range(n)]
            if n == 4 and self._teams:
                stuck = [not (able[t] or able[t + 2]) for t in (0, 1)]
                if stuck[0] and stuck[1]:
                    reason = 6
                elif stuck[0]:
                    winners, reason = 0b1010, 5
                elif stuck[1]:
                    winners, reason = 0b0101, 5
            else:
                if not any(able):
                    reason = 6
                elif sum(able) == 1:
                    winners, reason = 1 << able.index(True), 4
            if reason == NOT_OVER:
                while not able[self._to_move]:  # F4: skip, not a ply
                    self._to_move = (self._to_move + 1) % n
        if reason == NOT_OVER and 0 <= self._cap <= self._ply:
            reason = 7
        if reason != NOT_OVER and self._mirror_rule and self._mirror != MIRROR_BROKEN \
                and winners != 1:
            winners, reason = 1, 8
        self._result = (winners, reason)

    # ---- hashing
    def full_key(self) -> int:
        """The key from scratch (the compiled core's ``full_key`` checks its
        incremental key against this)."""
        return self.key()

    def _key(self) -> int:
        """The Zobrist key, computed from scratch (the Cython core updates it
        incrementally; the tests compare the two)."""
        z = 0
        for sq, stack in enumerate(self._board):
            for level, colour in enumerate(stack):
                z ^= ZOBRIST[Z_PIECE + (sq * MAX_HEIGHT + level) * 4 + colour]
        z ^= ZOBRIST[Z_TOMOVE + self._to_move]
        for p in range(self._n):
            if self._reserves[p]:
                z ^= ZOBRIST[Z_RESERVE + p * 64 + self._reserves[p]]
            if self._returned[p]:
                z ^= ZOBRIST[Z_RETURNED + p * 64 + self._returned[p]]
            for c in range(self._n):
                if self._captured[p][c]:
                    z ^= ZOBRIST[Z_CAPTURED + (p * 4 + c) * 64 + self._captured[p][c]]
            if self._first >> p & 1:
                z ^= ZOBRIST[Z_FIRST + p]
        return z

    # ---- search
    def _perft(self, depth: int, count_finished: bool) -> int:
        if self._result[1] != NOT_OVER:
            return 1 if (count_finished or depth == 0) else 0
        if depth == 0:
            return 1
        moves = self._moves()
        if depth == 1:
            return len(moves)  # bulk counting
        stop_check()
        total = 0
        for cm in moves:
            self._push(cm)
            total += self._perft(depth - 1, count_finished)
            self._pop()
        return total
