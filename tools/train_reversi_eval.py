"""Train brett's Reversi pattern evaluation from WTHOR archives.

Usage (the command that made the shipped ``src/brett/data/reversi_eval.bin``)::

    python tools/train_reversi_eval.py /work/shared/data/real/wthor \\
        /work/shared/data/real/wthor-more -o src/brett/data/reversi_eval.bin

Every ``*.wtb`` file under the folders given (sorted by path) is read with brett's
own reader (``brett.records.wthor``); the 8x8 games are replayed, and every position
before a placement becomes a sample whose target is the game's disc difference for
the player to move: WTHOR's theoretical score (the perfect-play result of the
game's last stretch) when the archive stores one, else the recorded final score.
The patterns, stages and file format are those of ``brett._core._alphabeta_py``.

For each stage (``--stages`` of ``--width`` plies by the number of discs), a ridge
regression over the sparse pattern features (46 instances sharing 11 patterns'
weights) plus the two mobilities and a constant is solved by conjugate gradients
with a diagonal preconditioner (``--iterations``); a stage also learns from the
positions within ``--overlap`` plies of it, which smooths the stages' borders.
Weights are stored as int16 in 1/``--scale`` discs.  The run is deterministic
(no randomness at all); on the full archive (about 162,000 games) it takes a few
minutes.  ``--limit N`` trains on the first N games only
(the tests use a few hundred).

Needs numpy (the runtime library does not).
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time

import numpy as np

from brett._core import _alphabeta_py as ab
from brett.records.wthor import read_wthor

M64 = np.uint64(0xFFFFFFFFFFFFFFFF)
NOT_A = np.uint64(0xFEFEFEFEFEFEFEFE)  # every column but the first (col 0)
NOT_H = np.uint64(0x7F7F7F7F7F7F7F7F)  # every column but the last
# (shift, left?, mask applied after the shift) for the 8 directions
DIRECTIONS = ((1, True, NOT_A), (1, False, NOT_H), (8, True, M64), (8, False, M64),
              (9, True, NOT_A), (9, False, NOT_H), (7, True, NOT_H), (7, False, NOT_A))


def _shift(x: np.ndarray, n: int, left: bool, mask: np.uint64) -> np.ndarray:
    return ((x << np.uint64(n)) if left else (x >> np.uint64(n))) & mask


def _moves(p: np.ndarray, o: np.ndarray) -> np.ndarray:
    empty = ~(p | o)
    out = np.zeros_like(p)
    for n, left, mask in DIRECTIONS:
        t = _shift(p, n, left, mask) & o
        for _ in range(5):
            t |= _shift(t, n, left, mask) & o
        out |= _shift(t, n, left, mask) & empty
    return out


def _flips(p: np.ndarray, o: np.ndarray, bit: np.ndarray) -> np.ndarray:
    out = np.zeros_like(p)
    for n, left, mask in DIRECTIONS:
        t = _shift(bit, n, left, mask) & o
        for _ in range(5):
            t |= _shift(t, n, left, mask) & o
        closed = (_shift(t, n, left, mask) & p) != 0
        out |= np.where(closed, t, np.uint64(0))
    return out


def _popcount(x: np.ndarray) -> np.ndarray:
    """The set bits of each word: numpy 2's bitwise_count, or the same sum in
    shifts and masks where numpy is older (the project asks for numpy >= 1.21)."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(x).astype(np.int64)
    return _popcount_swar(x)


def _popcount_swar(x: np.ndarray) -> np.ndarray:
    one, two, four, byte = (np.uint64(k) for k in (1, 2, 4, 56))
    x = x - ((x >> one) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> two) & np.uint64(0x3333333333333333))
    x = (x + (x >> four)) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return ((x * np.uint64(0x0101010101010101)) >> byte).astype(np.int64)


def read_games(folders: list[str], limit: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The games' moves (squares, -1 a pass, -2 the end) and Black's target."""
    files = sorted(p for folder in folders for p in pathlib.Path(folder).rglob("*.wtb"))
    games: list[list[int]] = []
    targets: list[int] = []
    for path in files:
        for record in read_wthor(path):
            line = [node.move for node in record.root.mainline()]
            if not line or any(m != "pass" and (len(m) != 2 or m[0] > "h" or m[1] > "8")
                               for m in line):
                continue  # a 10x10 game
            score = record.headers.get("TheoreticalScore") or record.headers.get("BlackScore")
            if score is None:
                continue
            squares = [-1 if m == "pass" else (int(m[1:]) - 1) * 8 + ord(m[0]) - ord("a")
                       for m in line]
            games.append(squares)
            targets.append(2 * int(score) - 64)
            if limit is not None and len(games) >= limit:
                break
        if limit is not None and len(games) >= limit:
            break
    width = max(len(g) for g in games)
    table = np.full((len(games), width), -2, dtype=np.int64)
    for i, g in enumerate(games):
        table[i, :len(g)] = g
    return table, np.array(targets, dtype=np.int64)


def positions(table: np.ndarray, targets: np.ndarray) -> tuple[np.ndarray, ...]:
    """Every position before a placement: (p, o, target for the mover)."""
    n = len(table)
    black = np.full(n, (1 << 35) | (1 << 28), dtype=np.uint64)
    white = np.full(n, (1 << 27) | (1 << 36), dtype=np.uint64)
    p, o = black, white  # Black moves first
    sign = np.ones(n, dtype=np.int64)
    out_p, out_o, out_t = [], [], []
    for t in range(table.shape[1]):
        move = table[:, t]
        play = move >= 0
        passed = move == -1
        out_p.append(p[play])
        out_o.append(o[play])
        out_t.append((sign * targets)[play])
        bit = np.where(play, np.uint64(1) << np.maximum(move, 0).astype(np.uint64),
                       np.uint64(0))
        f = _flips(p, o, bit)
        if np.any(play & (f == 0)):
            raise SystemExit(f"an illegal move in the archive at ply {t}")
        p, o = (np.where(play, o & ~f, np.where(passed, o, p)),
                np.where(play, p | f | bit, np.where(passed, p, o)))
        swap = play | passed
        sign = np.where(swap, -sign, sign)
    return np.concatenate(out_p), np.concatenate(out_o), np.concatenate(out_t)


def canonical() -> np.ndarray:
    """For every weight of a stage, the one it shares: a pattern that maps onto
    itself under a symmetry of the board (an edge read backwards) gives a
    configuration and its image one weight, so that mirrored positions evaluate
    alike."""
    starts = ab.offsets()
    out = np.arange(ab.stage_size())
    for number, (_, squares) in enumerate(ab.PATTERNS):
        n = len(squares)
        index = np.arange(3 ** n)
        digits = (index[:, None] // 3 ** np.arange(n - 1, -1, -1)[None, :]) % 3
        best = index.copy()
        for s in range(8):
            image = [ab._symmetries(r, c)[s] for r, c in squares]
            if set(image) != set(squares):
                continue
            where = [squares.index(sq) for sq in image]  # image square k is square where[k]
            permuted = np.zeros_like(index)
            for k in range(n):
                permuted = 3 * permuted + digits[:, where[k]]
            best = np.minimum(best, permuted)
        out[starts[number]:starts[number + 1]] = best + starts[number]
    return out


def features(p: np.ndarray, o: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each position's weight indices within a stage (one row per instance) and
    its two mobilities."""
    starts = ab.offsets()
    columns = []
    for number, squares in ab.instances():
        index = np.zeros(len(p), dtype=np.int64)
        for sq in squares:
            bit = np.uint64(1) << np.uint64(sq)
            index = 3 * index + ((p & bit) != 0) + 2 * ((o & bit) != 0)
        columns.append(CANONICAL[index + starts[number]])
    mobility = np.stack([_popcount(_moves(p, o)), _popcount(_moves(o, p))], axis=1)
    return np.stack(columns).astype(np.int32), mobility.astype(np.float64)


def fit(index: np.ndarray, mobility: np.ndarray, y: np.ndarray, ridge: float,
        iterations: int) -> np.ndarray:
    """Ridge least squares over one stage's sparse features (preconditioned CG)."""
    size = ab.stage_size()
    extra = size - ab.EXTRA
    rows = len(y)

    def apply(w: np.ndarray) -> np.ndarray:  # A w
        out = mobility @ w[extra:extra + 2] + w[extra + 2]
        for column in index:
            out += w[column]
        return out

    def adjoint(r: np.ndarray) -> np.ndarray:  # A^T r
        g = np.zeros(size)
        for column in index:
            g += np.bincount(column, weights=r, minlength=size)
        g[extra:extra + 2] = r @ mobility
        g[extra + 2] = r.sum()
        return g

    diag = np.zeros(size)
    for column in index:
        diag += np.bincount(column, minlength=size)
    diag[extra:extra + 2] = (mobility ** 2).sum(axis=0)
    diag[extra + 2] = rows
    ridge_vector = np.full(size, ridge)
    ridge_vector[extra:] = 1e-3  # the mobilities and the constant are not shrunk
    diag += ridge_vector
    w = np.zeros(size)
    r = adjoint(y)  # b - (A^T A + R) 0
    z = r / diag
    p = z.copy()
    rz = r @ z
    for _ in range(iterations):
        q = adjoint(apply(p)) + ridge_vector * p
        step = rz / (p @ q)
        w += step * p
        r -= step * q
        z = r / diag
        rz, old = r @ z, rz
        p = z + (rz / old) * p
    return w


CANONICAL = canonical()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", help="folders of WTHOR .wtb files")
    parser.add_argument("-o", "--output", required=True, help="the weights file to write")
    parser.add_argument("--stages", type=int, default=10)
    parser.add_argument("--width", type=int, default=6, help="plies per stage")
    parser.add_argument("--overlap", type=int, default=2)
    parser.add_argument("--scale", type=int, default=64, help="weight units per disc")
    parser.add_argument("--ridge", type=float, default=3.0)
    parser.add_argument("--iterations", type=int, default=40)
    parser.add_argument("--limit", type=int, default=None, help="use the first N games")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    table, targets = read_games(args.folders, args.limit)
    p, o, y = positions(table, targets)
    empties = 64 - _popcount(p | o)
    print(f"{len(table)} games, {len(y)} positions "
          f"({time.perf_counter() - start:.0f} s)", file=sys.stderr)
    stage_of = np.minimum((60 - empties) // args.width, args.stages - 1)
    stages = []
    for stage in range(args.stages):
        low = stage * args.width - args.overlap
        high = (stage + 1) * args.width + args.overlap if stage < args.stages - 1 else 99
        plies = 60 - empties
        chosen = (plies >= low) & (plies < high)
        index, mobility = features(p[chosen], o[chosen])
        w = fit(index, mobility, y[chosen].astype(np.float64), args.ridge, args.iterations)
        own = stage_of[chosen] == stage  # index holds canonical weights: w before mapping
        error = (w[index[:, own]].sum(axis=0) + mobility[own] @ w[-3:-1] + w[-1]) - y[chosen][own]
        print(f"stage {stage}: {int(chosen.sum())} positions, rms error "
              f"{np.sqrt(np.mean(error ** 2)) if len(error) else 0:.2f} discs "
              f"({time.perf_counter() - start:.0f} s)", file=sys.stderr)
        w = w[CANONICAL]  # a configuration's image gets its shared weight
        stages.append(np.clip(np.rint(w * args.scale), -32767, 32767).astype(int).tolist())
    data = ab.encode(stages, args.scale, args.width)
    ab.Weights(data, args.output)  # check what is written
    pathlib.Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    pathlib.Path(args.output).write_bytes(data)
    print(f"wrote {args.output}: {len(data)} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
