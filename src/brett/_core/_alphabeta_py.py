"""The Reversi pattern evaluation and alpha-beta search in plain Python: the slow,
readable oracle of the compiled twin ``_alphabeta_c.pyx`` (``ext/brett_eval.h``).

Boards are two 64-bit ints, the discs of the player to move (``p``) and of the
opponent (``o``), bit ``row * 8 + col`` (row 0 the top row, as in the Reversi core).

**Patterns.**  :data:`PATTERNS` lists each pattern's squares in one orientation
(Logistello / Edax style: the corner 3x3 and 2x5 blocks, an edge with its two X
squares, rows 2-4, the diagonals of 4 to 8 squares).  :func:`instances` maps each
through the 8 symmetries of the board, keeping one copy of each set of squares, so
that every instance of a pattern reads its squares in a symmetric order and shares
the pattern's weights.  An instance's index is its squares read as a base-3 number,
first square most significant: 0 empty, 1 the mover's disc, 2 the opponent's.

**Weights** (``brett/data/reversi_eval.bin``, made by ``tools/train_reversi_eval.py``)
hold, for each stage of the game (by the number of discs), one int16 per
configuration of each pattern, then three more: per move of the mover's mobility,
per move of the opponent's, and a constant.  The evaluation is their sum in
``1 / scale`` discs, from the mover's side.  The file::

    header  "<4sHHHHII": b"BRRV", version, stages, scale, stage width (plies),
            weights per stage, CRC-32 of PATTERN_TEXT
    stages * weights per stage int16, little-endian
    CRC-32 of everything before it ("<I")

**Search.**  :func:`search` is a fixed-depth negamax with alpha-beta: a pass costs
no depth, a finished game scores its disc difference (the empty squares to the
winner) times ``scale``; the compiled search returns the same value at the same
depth, whatever its move ordering, table and windows.
"""

from __future__ import annotations

import array
import functools
import struct
import sys
import zlib
from typing import Optional

from ..errors import BrettError
from . import data_file

# ---- patterns: (name, squares as (row, col)), one orientation each
PATTERNS: tuple[tuple[str, tuple[tuple[int, int], ...]], ...] = (
    ("corner3x3", ((0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2), (2, 0), (2, 1), (2, 2))),
    ("corner2x5", ((0, 0), (0, 1), (0, 2), (0, 3), (0, 4),
                   (1, 0), (1, 1), (1, 2), (1, 3), (1, 4))),
    ("edge2x", ((1, 1), *((0, c) for c in range(8)), (1, 6))),
    ("row2", tuple((1, c) for c in range(8))),
    ("row3", tuple((2, c) for c in range(8))),
    ("row4", tuple((3, c) for c in range(8))),
    ("diag8", tuple((i, i) for i in range(8))),
    ("diag7", tuple((i, i + 1) for i in range(7))),
    ("diag6", tuple((i, i + 2) for i in range(6))),
    ("diag5", tuple((i, i + 3) for i in range(5))),
    ("diag4", tuple((i, i + 4) for i in range(4))),
)
PATTERN_TEXT = ";".join(name + ":" + ",".join(f"{r}{c}" for r, c in squares)
                        for name, squares in PATTERNS)
"""The patterns as text: its CRC-32 in the weights file ties the weights to them."""

MAGIC = b"BRRV"
VERSION = 1
HEADER = struct.Struct("<4sHHHHII")
EXTRA = 3  # mobility of the mover, of the opponent, a constant
WEIGHTS_FILE = "reversi_eval.bin"
INF = 1 << 20


def _symmetries(r: int, c: int) -> list[tuple[int, int]]:
    return [(r, c), (c, r), (r, 7 - c), (7 - c, r), (7 - r, c), (c, 7 - r),
            (7 - r, 7 - c), (7 - c, 7 - r)]


@functools.cache
def instances() -> tuple[tuple[int, tuple[int, ...]], ...]:
    """Every pattern instance: (pattern number, its squares as bit numbers)."""
    out = []
    for number, (_, squares) in enumerate(PATTERNS):
        seen = set()
        for s in range(8):
            bits = tuple(r * 8 + c for r, c in (_symmetries(r0, c0)[s] for r0, c0 in squares))
            if frozenset(bits) not in seen:
                seen.add(frozenset(bits))
                out.append((number, bits))
    return tuple(out)


def offsets() -> tuple[int, ...]:
    """Where each pattern's weights start in a stage; the last entry is where the
    extra weights start."""
    out = [0]
    for _, squares in PATTERNS:
        out.append(out[-1] + 3 ** len(squares))
    return tuple(out)


def stage_size() -> int:
    """The weights of one stage."""
    return offsets()[-1] + EXTRA


# ---- the weights file
class Weights:
    """A checked weights file: ``stages`` lists of int16 values, ``scale`` per disc."""

    def __init__(self, data: bytes, where: str = WEIGHTS_FILE) -> None:
        size = stage_size()
        if len(data) < HEADER.size + 4:
            raise BrettError(f"{where}: {len(data)} bytes, too short for Reversi weights")
        magic, version, stages, scale, width, per_stage, crc = HEADER.unpack_from(data)
        if magic != MAGIC or version != VERSION:
            raise BrettError(f"{where}: not a version {VERSION} brett Reversi weights file")
        if per_stage != size or crc != zlib.crc32(PATTERN_TEXT.encode()):
            raise BrettError(f"{where}: the weights were made for other patterns")
        if not (1 <= stages <= 64 and width >= 1 and scale >= 1):
            raise BrettError(f"{where}: bad header (stages {stages}, width {width}, "
                             f"scale {scale})")
        if len(data) != HEADER.size + 2 * stages * size + 4:
            raise BrettError(f"{where}: {len(data)} bytes, expected "
                             f"{HEADER.size + 2 * stages * size + 4}: truncated or padded")
        (check,) = struct.unpack_from("<I", data, len(data) - 4)
        if check != zlib.crc32(data[:-4]):
            raise BrettError(f"{where}: checksum mismatch: the weights file is corrupt")
        self.data = data
        self.stages = stages
        self.scale = scale
        self.width = width
        self.values = array.array("h", data[HEADER.size:len(data) - 4])
        if sys.byteorder == "big":  # the file is little-endian
            self.values.byteswap()

    def stage(self, empties: int) -> int:
        """The stage of a position with ``empties`` empty squares."""
        return min((60 - empties) // self.width, self.stages - 1) if empties <= 60 else 0


def encode(stages: list[list[int]], scale: int, width: int) -> bytes:
    """A weights file of int16 ``stages`` (each :func:`stage_size` values)."""
    size = stage_size()
    if any(len(values) != size for values in stages):
        raise BrettError(f"every stage has {size} weights")
    body = HEADER.pack(MAGIC, VERSION, len(stages), scale, width, size,
                       zlib.crc32(PATTERN_TEXT.encode()))
    body += b"".join(struct.pack(f"<{size}h", *values) for values in stages)
    return body + struct.pack("<I", zlib.crc32(body))


@functools.cache
def weights() -> Weights:
    """The shipped weights (read and checked once)."""
    return Weights(data_file(WEIGHTS_FILE, "the Reversi weights file"))


# ---- the board
def moves(p: int, o: int) -> int:
    """The squares where the mover may play, as a bit set."""
    empty = ~(p | o) & 0xFFFFFFFFFFFFFFFF
    out = 0
    for sq in range(64):
        if empty >> sq & 1 and flips(p, o, sq):
            out |= 1 << sq
    return out


def flips(p: int, o: int, sq: int) -> int:
    """The discs a move at ``sq`` turns (0: not a legal move)."""
    row, col = divmod(sq, 8)
    out = 0
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if dr == dc == 0:
                continue
            line = 0
            r, c = row + dr, col + dc
            while 0 <= r < 8 and 0 <= c < 8 and o >> (r * 8 + c) & 1:
                line |= 1 << (r * 8 + c)
                r, c = r + dr, c + dc
            if line and 0 <= r < 8 and 0 <= c < 8 and p >> (r * 8 + c) & 1:
                out |= line
    return out


def final_score(p: int, o: int) -> int:
    """The disc difference of a finished game for the mover, the empties to the winner."""
    p, o = bin(p).count("1"), bin(o).count("1")
    empty = 64 - p - o
    return p - o + (empty if p > o else -empty if o > p else 0)


# ---- the evaluation
def pattern_index(p: int, o: int, squares: tuple[int, ...]) -> int:
    index = 0
    for sq in squares:
        index = 3 * index + (1 if p >> sq & 1 else 2 if o >> sq & 1 else 0)
    return index


def evaluate(p: int, o: int, table: Optional[Weights] = None) -> int:
    """The pattern evaluation of a position for the mover, in 1/scale discs."""
    table = table or weights()
    empties = 64 - bin(p | o).count("1")
    base = table.stage(empties) * stage_size()
    values = table.values
    starts = offsets()
    total = 0
    for number, squares in instances():
        total += values[base + starts[number] + pattern_index(p, o, squares)]
    extra = base + starts[-1]
    total += values[extra] * bin(moves(p, o)).count("1")
    total += values[extra + 1] * bin(moves(o, p)).count("1")
    total += values[extra + 2]
    return total


# ---- the search
def search(p: int, o: int, depth: int, alpha: int = -INF, beta: int = INF,
           table: Optional[Weights] = None) -> int:
    """Negamax alpha-beta to ``depth`` placements (passes are free): the value for
    the mover in 1/scale discs (fail-hard within ``alpha``..``beta``)."""
    table = table or weights()
    mine = moves(p, o)
    if not mine:
        if not moves(o, p):
            return max(alpha, min(beta, final_score(p, o) * table.scale))
        return -search(o, p, depth, -beta, -alpha, table)
    if depth == 0:
        return max(alpha, min(beta, evaluate(p, o, table)))
    for sq in range(64):
        if mine >> sq & 1:
            f = flips(p, o, sq)
            value = -search(o ^ f, p | f | 1 << sq, depth - 1, -beta, -alpha, table)
            if value >= beta:
                return beta
            alpha = max(alpha, value)
    return alpha


class _Timeout(Exception):
    pass


class Evaluator:
    """The twin of the compiled Evaluator: the evaluation, the fixed-depth search and
    a plain iterative deepening (``think``), slow but the same values."""

    def __init__(self, weights: Weights, table_bits: int = 20) -> None:
        if not isinstance(weights, Weights):
            raise BrettError("expected Reversi weights (brett._core._alphabeta_py.Weights)")
        self.weights = weights
        self.nodes = 0
        self.use_solver = True
        self._flag = False
        self._deadline = 0.0

    def evaluate(self, p: int, o: int) -> int:
        return evaluate(_board(p, "P"), _board(o, "O"), self.weights)

    def search(self, p: int, o: int, depth: int, alpha: int = -INF, beta: int = INF) -> int:
        p, o = _board(p, "P"), _board(o, "O")
        if p & o or not 0 <= depth <= 60 or not -INF <= alpha < beta <= INF:
            raise BrettError(f"depth {depth} (0-60), window {alpha}..{beta}, boards apart")
        return search(p, o, depth, alpha, beta, self.weights)

    def stop(self) -> None:
        self._flag = True

    def _value(self, p: int, o: int, depth: int, alpha: int, beta: int) -> int:
        import time

        from ._stop import check

        self.nodes += 1
        if self.nodes % 256 == 0:
            check()
            if self._flag or (self._deadline and time.perf_counter() >= self._deadline):
                raise _Timeout
        if depth <= 1:
            return search(p, o, depth, alpha, beta, self.weights)
        mine = moves(p, o)
        if not mine:
            if not moves(o, p):
                return max(alpha, min(beta, final_score(p, o) * self.weights.scale))
            return -self._value(o, p, depth, -beta, -alpha)
        for sq in range(64):
            if mine >> sq & 1:
                f = flips(p, o, sq)
                value = -self._value(o ^ f, p | f | 1 << sq, depth - 1, -beta, -alpha)
                if value >= beta:
                    return beta
                alpha = max(alpha, value)
        return alpha

    def think(self, p: int, o: int, seconds: float = 0.0, depth: int = 60, solve: int = 0,
              soft: float = 0.0) -> tuple[int, int, int, bool, bool, int, str]:
        """As the compiled twin's (the exact phase is the search to the end)."""
        import time

        p, o = _board(p, "P"), _board(o, "O")
        start = time.perf_counter()
        self._deadline = start + seconds if seconds > 0 else 0.0
        self._flag = False
        self.nodes = 0
        empties = 64 - bin(p | o).count("1")
        mine = [sq for sq in range(64) if moves(p, o) >> sq & 1]
        if not mine:
            return (-1, 0, 0, False, False, 0, "")
        best, score, done, why = mine[0], 0, 0, ""
        last = min(depth, empties)
        plan = list(range(1, last + 1))
        if empties <= solve and empties not in plan:
            plan.append(empties)
        try:
            for d in plan:
                values = {}
                alpha = -INF
                for sq in [best] + [m for m in mine if m != best]:
                    f = flips(p, o, sq)
                    values[sq] = -self._value(o ^ f, p | f | 1 << sq, d - 1, -INF, -alpha)
                    alpha = max(alpha, values[sq])
                best = max(mine, key=lambda m: (values[m], -mine.index(m)))
                score, done = values[best], d
                if soft and time.perf_counter() >= start + soft and d < empties:
                    break
        except _Timeout:
            why = "stop" if self._flag else "time"
        exact = done == empties
        return (best, score, done, exact, why == "" and done == last, self.nodes, why)


def _board(value: object, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or \
            not 0 <= value <= 0xFFFFFFFFFFFFFFFF:
        raise BrettError(f"{name}={value!r:.40}: expected a 64-bit board (an int)")
    return value
