"""Compute Schuft's solo endgame tables (``brett.ai._schuft_endgame``).

Usage (the command that made the shipped ``src/brett/data/schuft_endgame.bin``)::

    python tools/make_schuft_endgame.py -o src/brett/data/schuft_endgame.bin

The tables hold, for a player alone on the ring with one, two or three pieces left,
the expected number of own turns to bring them home when every turn is played as
fast as possible.  Value iteration solves the Bellman equation

    T(x) = 1 + mean over the 216 rolls of min over the ways to play them of T(x')

over the states x (the free goal fields and each piece's steps to its last
tongue), with T = 0 once every piece is home.  A way to play a roll (S4-S7) is
its direction (the dice's, either at a sum of 15) and the order of the three
values and which piece each moves; alone on the ring every step is legal, so all
three are played unless the last piece gets home first.  A clockwise step that
carries a piece past its corner enters the goal field it reaches if that field
is free, else runs on along the ring.

The three values are played one at a time, so a turn is solved from its end:
``after[d, R]`` is the best value with the values ``R`` still to play in direction
``d``, from ``after[d, ()] = T`` up to the three of a roll.  An entry drops a state
to the level below (one piece fewer), so the levels are solved in turn, each
against the finished one below.  Levels 1 and 2 take seconds, level 3 (708,624
states) a few minutes and about 1.5 GB.  Deterministic; needs numpy (the library
does not).  ``--levels 2`` makes only the first two (the tests' quick check).
"""

from __future__ import annotations

import argparse
import itertools
import pathlib
import sys
import time
from collections.abc import Callable

import numpy as np

from brett.ai._schuft_endgame import PAIRS, RING, SIZES, TRIPLES, encode, sorted_places

DICE = ((1, 2, 5, 6, 7, 9), (1, 3, 4, 5, 8, 9), (2, 3, 4, 6, 7, 8))  # Miwin's III, IV, V
CW, CCW = 0, 1
Key = tuple[int, tuple[int, ...]]             # (direction, the values still to play)
KEYS: list[Key] = [(d, r) for d in (CW, CCW) for n in range(3)
                   for r in itertools.combinations_with_replacement(range(1, 10), n)]
PLACES3 = np.array(sorted_places(), dtype=np.int64)
RANK3 = np.full((RING, RING, RING), -1, np.int64)
RANK3[PLACES3[:, 0], PLACES3[:, 1], PLACES3[:, 2]] = np.arange(len(PLACES3))
PAIR = np.full((9, 9), -1, np.int64)
for _i, (_a, _b) in enumerate(PAIRS):
    PAIR[_a, _b] = _i
TRIPLE = np.full((9, 9, 9), -1, np.int64)
for _i, (_a, _b, _c) in enumerate(TRIPLES):
    TRIPLE[_a, _b, _c] = _i


def states(level: int) -> tuple[np.ndarray, np.ndarray]:
    """Every state of a level in its table's order: the free holes (ascending) and
    the pieces' places, one row each."""
    if level == 1:
        hole, place = np.divmod(np.arange(SIZES[0]), RING)
        return hole[:, None], place[:, None]
    if level == 2:
        pair, a, b = np.unravel_index(np.arange(SIZES[1]), (len(PAIRS), RING, RING))
        return np.array(PAIRS)[pair], np.stack([a, b], axis=1)
    triple, rank = np.divmod(np.arange(SIZES[2]), len(PLACES3))
    return np.array(TRIPLES)[triple], PLACES3[rank]


def index(level: int, holes: np.ndarray, places: np.ndarray) -> np.ndarray:
    """The table index of states given as rows (the inverse of :func:`states`)."""
    if level == 0:
        return np.zeros(len(holes), np.int64)
    if level == 1:
        return holes[:, 0] * RING + places[:, 0]
    if level == 2:
        return (PAIR[holes[:, 0], holes[:, 1]] * RING + places[:, 0]) * RING + places[:, 1]
    p = np.sort(places, axis=1)
    return TRIPLE[holes[:, 0], holes[:, 1], holes[:, 2]] * len(PLACES3) \
        + RANK3[p[:, 0], p[:, 1], p[:, 2]]


def step_index(level: int, direction: int, value: int, piece: int) -> np.ndarray:
    """Where each state of a level goes when ``piece`` moves ``value`` steps: an index
    into the level (below its size) or, after an entry, into the level below (its
    own index plus the size of this level)."""
    holes, places = states(level)
    j = places[:, piece]
    if direction == CCW:
        enters, moved = np.zeros(len(j), bool), (j + value) % RING
    else:
        field = value - j                          # g1..g9 past the last tongue
        hole = np.clip(field - 1, 0, 8)
        enters = (field >= 1) & (field <= 9) & (holes == hole[:, None]).any(axis=1)
        moved = (j - value) % RING
    stay = places.copy()
    stay[:, piece] = moved
    out = index(level, holes, stay)
    if enters.any():
        rows = np.flatnonzero(enters)
        keep = holes[rows] != hole[rows, None]
        left = holes[rows][keep].reshape(len(rows), level - 1)
        others = np.delete(places[rows], piece, axis=1)
        out[rows] = SIZES[level - 1] + index(level - 1, left, others)
    return out


def rolls() -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """(directions, values ascending) of the 216 rolls."""
    out = []
    for roll in itertools.product(*DICE):
        total = sum(roll)
        out.append(((CW, CCW) if total == 15 else (CW,) if total > 15 else (CCW,),
                    tuple(sorted(roll))))
    return out


def solve_level(level: int, below: dict[Key, np.ndarray], tolerance: float,
                log: Callable[[str], None]) -> tuple[np.ndarray, dict[Key, np.ndarray]]:
    """The level's table and its ``after`` vectors (this level, then ``below``'s),
    for the values still to play in a turn (at most two)."""
    size = SIZES[level - 1]
    steps = {(d, v, p): step_index(level, d, v, p)
             for d in (CW, CCW) for v in range(1, 10) for p in range(level)}
    plays = rolls()
    after = {key: np.concatenate([np.full(size, 20.0), below[key]]) for key in KEYS}
    after[CCW, ()] = after[CW, ()]                  # T itself, whichever way
    started = time.perf_counter()
    for sweep in itertools.count(1):
        for n in (1, 2):
            for d in (CW, CCW):
                for values in itertools.combinations_with_replacement(range(1, 10), n):
                    after[d, values][:size] = _first_step(after, steps, level, d, values)
        total = np.zeros(size)
        for directions, values in plays:
            total += np.minimum.reduce([_first_step(after, steps, level, d, values)
                                        for d in directions])
        new = 1.0 + total / len(plays)
        change = float(np.max(np.abs(new - after[CW, ()][:size])))
        after[CW, ()][:size] = new
        if sweep % 20 == 0:
            log(f"level {level}, sweep {sweep}: largest change {change:.2e} "
                f"({time.perf_counter() - started:.0f} s)")
        if change < tolerance:
            break
    log(f"level {level}: {sweep} sweeps, {time.perf_counter() - started:.0f} s")
    return after[CW, ()][:size].copy(), after


def _first_step(after: dict[Key, np.ndarray], steps: dict, level: int, direction: int,
                values: tuple[int, ...]) -> np.ndarray:
    """min over the first value played and its piece of the rest's best."""
    best = None
    for k, value in enumerate(values):
        if value in values[:k]:
            continue                                     # the same value: the same plays
        rest = after[direction, values[:k] + values[k + 1:]]
        for p in range(level):
            option = rest[steps[direction, value, p]]
            best = option if best is None else np.minimum(best, option)
    assert best is not None
    return best


def solve(levels: int = 3, tolerance: float = 1e-7,
          log: Callable[[str], None] = print) -> list[np.ndarray]:
    """The tables, one per level, in turns."""
    below = {key: np.zeros(1) for key in KEYS}         # level 0: home, worth 0
    tables = []
    for level in range(1, levels + 1):
        table, below = solve_level(level, below, tolerance, log)
        tables.append(table)
    return tables


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", type=pathlib.Path, required=True)
    parser.add_argument("--levels", type=int, choices=(2, 3), default=3)
    parser.add_argument("--tolerance", type=float, default=1e-7)
    args = parser.parse_args(argv)
    tables = solve(args.levels, args.tolerance)
    args.output.write_bytes(encode([t.tolist() for t in tables]))
    print(f"wrote {args.output}: " + ", ".join(
        f"{n} piece{'s' * (n > 1)} {t.min():.2f}..{t.max():.2f} turns"
        for n, t in enumerate(tables, 1)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
