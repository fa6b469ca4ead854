# cython: language_level=3
"""Reversi core in Cython: the twin of ``_reversi_py`` (same names, same behaviour).

Boards up to 8x8 live in two ``uint64_t`` bitboards with bit ``row * 8 + col``
(squares off the board, holes and octagon cuts are in neither bitboard and not in
the ``playable`` mask).  Boards from 10x10 to 16x16 and the octagon keep a padded
mailbox (18x18 at most, whose border and blocked cells end every line;
make/unmake walk it) mirrored in 256-bit bitboards of four words, bit
``row * 16 + col``, for shift-based move generation.  Move generation, flips,
perft and playouts on both are the C kernels of ``ext/brett_reversi_kernel.h``
(for 8x8, AVX2 four directions at a time where the CPU has it, chosen at import);
this file keeps the state, the undo stack and the Python API.  Every hot
function is ``nogil``.
"""

cimport cython
from libc.stdint cimport int16_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free
from libc.string cimport memcpy, memset

from ._common cimport (
    capped,
    grow_array,
    TERMINAL_PLAYER,
    BRETT_PERFT_SATURATED,
    BrettPerftTable,
    CoreBase,
    Interrupt,
    PerftTable,
    brett_ctz64,
    brett_msb64,
    brett_popcount64,
    brett_rng_below,
    interrupt_init,
    interrupted,
    raise_if_stopped,
)

from ._reversi_py import SIZES, ZOBRIST


cdef enum:
    BLACK = 0
    WHITE = 1
    EMPTY = 2
    BLOCKED = 3
    SIDE = 768          # ZOB index of "White to move"

cdef uint64_t ZOB[769]


# The kernels of ext/brett_reversi.h: one body compiled per target, the fastest
# chosen at import (brett.cpu_features() tells which).  The Python API's single
# moves use the portable versions, which the compiler inlines here.
cdef extern from "brett_reversi.h":
    ctypedef uint64_t (*perft8_fn)(uint64_t P, uint64_t O, uint64_t playable, int depth,
                                   int count_finished, Interrupt *it) noexcept nogil
    ctypedef uint64_t (*hperft8_fn)(uint64_t P, uint64_t O, uint64_t playable, int depth,
                                    int count_finished, int sym_n, BrettPerftTable *t,
                                    Interrupt *it) noexcept nogil
    ctypedef void (*playouts8_fn)(uint64_t black, uint64_t white, int player,
                                  uint64_t playable, long long ngames, uint64_t *rng,
                                  long long cap, long long *res, Interrupt *it) noexcept nogil
    ctypedef uint64_t (*perft_wide_fn)(Big *b, int me, int depth, int count_finished,
                                       Interrupt *it) noexcept nogil
    ctypedef uint64_t (*hperft_wide_fn)(Big *b, int me, int depth, int count_finished,
                                        int sym_n, BrettPerftTable *t,
                                        Interrupt *it) noexcept nogil
    ctypedef void (*playouts_wide_fn)(const Big *start, int player, long long ngames,
                                      uint64_t *rng, long long cap, long long *res,
                                      Interrupt *it) noexcept nogil
    ctypedef struct Kernels "BrettReversiKernels":
        const char *name
        perft8_fn perft8
        hperft8_fn hperft8
        playouts8_fn playouts8
        perft_wide_fn perft_wide
        hperft_wide_fn hperft_wide
        playouts_wide_fn playouts_wide
    void brett_rv_init() noexcept nogil
    Kernels brett_rv_select(int cap) noexcept nogil
    bint brett_rv_runs(int level) noexcept nogil
    # boards up to 8x8
    uint64_t _get_moves "brett_rv_portable_moves8"(uint64_t P, uint64_t O,
                                                   uint64_t empty) noexcept nogil
    uint64_t _get_flips "brett_rv_portable_flips8"(uint64_t P, uint64_t O,
                                                   int sq) noexcept nogil
    # the mailbox boards
    bint _wide_moves "brett_rv_portable_wide_moves"(const Big *b, int me,
                                                    uint64_t *moves) noexcept nogil
    int _big_moves "brett_rv_portable_big_moves"(const Big *b, int me,
                                                 int16_t *out) noexcept nogil
    bint _big_any "brett_rv_portable_big_any"(const Big *b, int me) noexcept nogil
    bint _big_legal "brett_rv_portable_big_legal"(const Big *b, int mb, int me) noexcept nogil
    void _big_put "brett_rv_portable_big_put"(Big *b, int mb, int c) noexcept nogil
    int _big_make "brett_rv_portable_big_make"(Big *b, int mb, int me,
                                               int16_t *flipped) noexcept nogil
    void _big_unmake "brett_rv_portable_big_unmake"(Big *b, int mb, int me,
                                                    const int16_t *flipped,
                                                    int nf) noexcept nogil

cdef Kernels KERNELS


def _init_tables():
    cdef int i
    if len(ZOBRIST) != 769:
        raise ImportError("reversi Zobrist table has the wrong size")
    for i in range(769):
        ZOB[i] = ZOBRIST[i]
    brett_rv_init()


_init_tables()


# The kernel levels of brett_reversi.h, slowest first.
LEVELS = ("portable", "avx2", "avx512")


def available_kernels():
    """The kernels this build carries and this CPU runs, slowest first."""
    return [name for level, name in enumerate(LEVELS) if brett_rv_runs(level)]


def use_kernels(str cap="auto"):
    """Run perft and playouts on the fastest kernels this CPU runs, up to ``cap``
    (a name of LEVELS, or "auto" for no limit); returns the name of those in use.
    brett.game calls it at import (``BRETT_KERNELS``) and the tests, to check
    every path."""
    global KERNELS
    if cap != "auto" and cap not in LEVELS:
        raise ValueError(f"unknown kernels {cap!r}: expected 'auto' or one of {LEVELS}")
    KERNELS = brett_rv_select(len(LEVELS) if cap == "auto" else LEVELS.index(cap))
    return KERNELS.name.decode()


def kernels():
    """The name of the kernels perft and playouts run on (one of LEVELS)."""
    return KERNELS.name.decode()


use_kernels()


# ----------------------------------------------------------------- the class
@cython.auto_pickle(False)
cdef class ReversiCore(CoreBase):
    """Reversi state in C with make/unmake, perft and playouts (see _reversi_py)."""

    def __cinit__(self, *args, **kwargs):
        self.undo = NULL
        self.nundo = 0
        self.cap = 0
        self._load(8, 0, 0, 0, 0)       # an empty 8x8 board until a state is set

    def __dealloc__(self):
        free(self.undo)

    cdef int _reserve(self, Py_ssize_t need) except -1:
        """Room for ``need`` undo records."""
        if need > self.cap:
            self.undo = <Undo *>grow_array(self.undo, &self.cap, need, sizeof(Undo), 16)
        return 0

    @cython.cdivision(True)
    cdef int _load(self, int n, object black, object white, object blocked,
                   int player) except -1:
        cdef int sq, r, c, stride
        cdef int bit = 0, mb = 0
        self.n = n
        self.n2 = n * n
        self.big = n > 8
        self.mover = player
        self.disc[0] = 0
        self.disc[1] = 0
        self.playable = 0
        self.zkey = ZOB[SIDE] if player == WHITE else 0
        for sq in range(64):
            self.bit2sq[sq] = -1
            self.sq2bit[sq] = -1
        memset(&self.bb, 0, sizeof(Big))
        if self.big:
            stride = n + 2
            self.bb.n = n
            self.bb.stride = stride
            self.bb.dirs[0] = -stride - 1
            self.bb.dirs[1] = -stride
            self.bb.dirs[2] = -stride + 1
            self.bb.dirs[3] = -1
            self.bb.dirs[4] = 1
            self.bb.dirs[5] = stride - 1
            self.bb.dirs[6] = stride
            self.bb.dirs[7] = stride + 1
            memset(self.bb.cell, BLOCKED, sizeof(self.bb.cell))
            for bit in range(256):
                self.bb.bit2mb[bit] = -1
            for mb in range(18 * 18):
                self.bb.mb2bit[mb] = -1
            bit = 0
            mb = 0
        for sq in range(self.n2):
            r = sq // n
            c = sq % n
            if self.big:
                mb = (r + 1) * (n + 2) + c + 1
                self.bb.mb[sq] = <int16_t>mb
                self.bb.bit2mb[r * 16 + c] = <int16_t>mb
                self.bb.mb2bit[mb] = <int16_t>(r * 16 + c)
            else:
                bit = r * 8 + c
                self.sq2bit[sq] = bit
                self.bit2sq[bit] = sq
            if (blocked >> sq) & 1:
                self.zkey ^= ZOB[2 * 256 + sq]
                continue
            if self.big:
                _big_put(&self.bb, mb, EMPTY)
            else:
                self.playable |= (<uint64_t>1) << bit
            if (black >> sq) & 1:
                self.zkey ^= ZOB[sq]
                if self.big:
                    _big_put(&self.bb, mb, BLACK)
                else:
                    self.disc[0] |= (<uint64_t>1) << bit
            elif (white >> sq) & 1:
                self.zkey ^= ZOB[256 + sq]
                if self.big:
                    _big_put(&self.bb, mb, WHITE)
                else:
                    self.disc[1] |= (<uint64_t>1) << bit
        self._reserve(2 * self.n2 + 4)
        self.nundo = 0
        return 0

    # ---------------------------------------------------------------- state
    def set_state(self, state):
        n, black, white, blocked, player = state
        if n not in SIZES or player not in (0, 1):
            raise ValueError(f"bad reversi state {state!r}")
        self.claim()
        self._load(n, int(black), int(white), int(blocked), player)
        self.entries = []

    def get_state(self):
        cdef int sq, c, bit
        cdef object one = 1     # Python ints: boards have up to 256 squares
        black = white = blocked = 0
        for sq in range(self.n2):
            if self.big:
                c = self.bb.cell[self.bb.mb[sq]]
            else:
                bit = self.sq2bit[sq]
                if (self.disc[0] >> bit) & 1:
                    c = BLACK
                elif (self.disc[1] >> bit) & 1:
                    c = WHITE
                elif (self.playable >> bit) & 1:
                    c = EMPTY
                else:
                    c = BLOCKED
            if c == BLACK:
                black |= one << sq
            elif c == WHITE:
                white |= one << sq
            elif c == BLOCKED:
                blocked |= one << sq
        return (self.n, black, white, blocked, self.mover)

    def clone(self, bint history):
        cdef ReversiCore new = type(self).__new__(type(self))
        new.n = self.n
        new.n2 = self.n2
        new.big = self.big
        new.mover = self.mover
        new.anti = self.anti
        new.zkey = self.zkey
        new.disc[0] = self.disc[0]
        new.disc[1] = self.disc[1]
        new.playable = self.playable
        memcpy(new.sq2bit, self.sq2bit, sizeof(self.sq2bit))
        memcpy(new.bit2sq, self.bit2sq, sizeof(self.bit2sq))
        memcpy(&new.bb, &self.bb, sizeof(Big))
        if history:
            new._reserve(self.cap)
            memcpy(new.undo, self.undo, self.nundo * sizeof(Undo))
            new.nundo = self.nundo
            new.entries = list(self.entries)
        return new

    # ---------------------------------------------------------------- queries
    cdef uint64_t _empty(self) noexcept nogil:
        return self.playable & ~(self.disc[0] | self.disc[1])

    cdef int _status(self) noexcept nogil:
        """1 if the mover can place a disc, 0 if it must pass, -1 if the game is over."""
        cdef uint64_t P, O, e
        if self.big:
            if _big_any(&self.bb, self.mover):
                return 1
            return 0 if _big_any(&self.bb, 1 - self.mover) else -1
        P = self.disc[self.mover]
        O = self.disc[1 - self.mover]
        e = self._empty()
        if _get_moves(P, O, e):
            return 1
        return 0 if _get_moves(O, P, e) else -1

    cdef int _list(self, int16_t *out) noexcept nogil:
        """The squares where the mover may put a disc, ascending; their number."""
        cdef uint64_t moves
        cdef int nm = 0
        if self.big:
            return _big_moves(&self.bb, self.mover, out)
        moves = _get_moves(self.disc[self.mover], self.disc[1 - self.mover], self._empty())
        while moves:
            out[nm] = <int16_t>self.bit2sq[brett_ctz64(moves)]
            nm += 1
            moves &= moves - 1
        return nm

    cdef bint _legal(self, int cm) noexcept nogil:
        cdef int bit
        if cm == self.n2:
            return self._status() == 0
        if self.big:
            return _big_legal(&self.bb, self.bb.mb[cm], self.mover)
        bit = self.sq2bit[cm]
        if not (self._empty() >> bit) & 1:
            return False
        return _get_flips(self.disc[self.mover], self.disc[1 - self.mover], bit) != 0

    def moves(self):
        cdef int16_t buf[256]
        cdef int nm = self._list(buf), i
        if nm == 0:
            return [self.n2] if self._status() == 0 else []
        return [buf[i] for i in range(nm)]

    def iter_moves(self):
        return iter(self.moves())

    def count(self, long long limit=-1):
        cdef int16_t buf[256]
        cdef int nm
        if self.big:
            nm = _big_moves(&self.bb, self.mover, buf)
        else:
            nm = brett_popcount64(_get_moves(self.disc[self.mover],
                                             self.disc[1 - self.mover], self._empty()))
        if nm == 0 and self._status() == 0:
            return 1
        return capped(nm, limit)

    def is_legal(self, cm):
        if type(cm) is not int or not (0 <= cm <= self.n2):
            return False
        return self._legal(cm)

    def chance_moves(self):
        return []

    def player(self):
        return TERMINAL_PLAYER if self._status() < 0 else self.mover

    def key(self):
        return self.zkey

    cdef void _counts(self, int *nb, int *nw) noexcept nogil:
        """The discs of Black and of White."""
        cdef int sq, c
        if not self.big:
            nb[0] = brett_popcount64(self.disc[0])
            nw[0] = brett_popcount64(self.disc[1])
            return
        nb[0] = 0
        nw[0] = 0
        for sq in range(self.n2):
            c = self.bb.cell[self.bb.mb[sq]]
            if c == BLACK:
                nb[0] += 1
            elif c == WHITE:
                nw[0] += 1

    def discs(self):
        cdef int nb, nw
        self._counts(&nb, &nw)
        return (nb, nw)

    def random_move(self, uint64_t rng):
        """The move a playout would draw from the splitmix64 state ``rng``."""
        cdef int16_t buf[256]
        cdef int nm = self._list(buf)
        if nm:
            return buf[brett_rng_below(&rng, <uint32_t>nm)], rng
        if self._status() < 0:
            return None, rng
        brett_rng_below(&rng, 1)             # the one-move list [pass]
        return self.n2, rng

    # ------------------------------------------------------------ make/unmake
    cdef void _make(self, int cm) noexcept nogil:
        self.nundo += 1
        self._make_into(&self.undo[self.nundo - 1], cm)

    cdef void _make_into(self, Undo *rec, int cm) noexcept nogil:
        """Make ``cm``, writing what unmaking needs into ``rec``."""
        cdef uint64_t f
        cdef int me = self.mover, opp = 1 - self.mover, bit, i, nf, t, sq, stride
        cdef int16_t flipped[128]
        rec.move = cm
        rec.key = self.zkey
        rec.flips[0] = 0
        rec.flips[1] = 0
        rec.flips[2] = 0
        rec.flips[3] = 0
        if cm != self.n2:
            self.zkey ^= ZOB[me * 256 + cm]
            if self.big:
                stride = self.bb.stride
                nf = _big_make(&self.bb, self.bb.mb[cm], me, flipped)
                for i in range(nf):
                    t = flipped[i]
                    sq = (t // stride - 1) * self.n + t % stride - 1
                    rec.flips[sq >> 6] |= (<uint64_t>1) << (sq & 63)
                    self.zkey ^= ZOB[sq] ^ ZOB[256 + sq]
            else:
                bit = self.sq2bit[cm]
                f = _get_flips(self.disc[me], self.disc[opp], bit)
                rec.flips[0] = f
                self.disc[me] ^= f | ((<uint64_t>1) << bit)
                self.disc[opp] ^= f
                while f:
                    sq = self.bit2sq[brett_ctz64(f)]
                    f &= f - 1
                    self.zkey ^= ZOB[sq] ^ ZOB[256 + sq]
        self.mover = opp
        self.zkey ^= ZOB[SIDE]

    def push(self, cm, entry):
        """Make ``cm`` (checked) and record ``entry``; False if it is not legal."""
        self.claim()
        if type(cm) is not int or not (0 <= cm <= self.n2) or not self._legal(cm):
            return False
        if self.nundo == self.cap:
            self._reserve(self.nundo + 1)
        self._make(cm)
        self.entries.append(entry)
        return True

    cdef void _unmake(self) noexcept nogil:
        """Take back the move of the last undo record (there is one)."""
        cdef Undo *rec
        cdef int me, opp, w, sq, bit
        cdef uint64_t f
        self.nundo -= 1
        rec = &self.undo[self.nundo]
        me = 1 - self.mover
        opp = self.mover
        self.mover = me
        self.zkey = rec.key
        if rec.move != self.n2:
            if self.big:
                _big_put(&self.bb, self.bb.mb[rec.move], EMPTY)
                for w in range(4):
                    f = rec.flips[w]
                    while f:
                        sq = w * 64 + brett_ctz64(f)
                        f &= f - 1
                        _big_put(&self.bb, self.bb.mb[sq], opp)
            else:
                bit = self.sq2bit[rec.move]
                self.disc[me] ^= rec.flips[0] | ((<uint64_t>1) << bit)
                self.disc[opp] ^= rec.flips[0]

    def pop(self):
        self.claim()
        if self.nundo == 0:
            raise IndexError("pop from an empty move stack")
        self._unmake()
        return self.entries.pop()

    # ----------------------------------------------------------- search
    def perft(self, int depth, bint count_finished):
        """perft on a copy of the state, without the GIL; Ctrl-C stops it."""
        cdef uint64_t total = 0
        cdef Big b
        cdef uint64_t P = self.disc[self.mover], O = self.disc[1 - self.mover]
        cdef uint64_t playable = self.playable
        cdef int me = self.mover
        cdef Interrupt it
        if depth < 0:
            raise ValueError("depth must be >= 0")
        if depth == 0:
            return 1
        interrupt_init(&it, 1 << 12)
        if self.big:
            memcpy(&b, &self.bb, sizeof(Big))
            with nogil:
                total = KERNELS.perft_wide(&b, me, depth, count_finished, &it)
        else:
            with nogil:
                total = KERNELS.perft8(P, O, playable, depth, count_finished, &it)
        raise_if_stopped(&it)
        return total

    def perft_table(self, uint64_t size, bint shared=False):
        """A table for :meth:`perft_hashed` of at most ``size`` bytes (``shared``:
        for several threads at once)."""
        return PerftTable(size, shared, _key_words(self.big))

    def perft_hashed(self, int depth, bint count_finished, PerftTable table not None,
                     bint symmetric):
        """perft that keeps the subtrees it counts in ``table``; ``symmetric``:
        one entry for a position and its mirror images (square boards without
        holes).  Ctrl-C stops it."""
        cdef uint64_t total = 0
        cdef uint64_t P = self.disc[self.mover], O = self.disc[1 - self.mover]
        cdef uint64_t playable = self.playable
        cdef int sym_n = self.n if symmetric else 0
        cdef int me = self.mover
        cdef Big b
        cdef Interrupt it
        cdef BrettPerftTable *t
        wide = self._wide_playable() if self.big else None
        if symmetric and (wide != _wide_square(self.n) if self.big
                          else playable != _square_mask(self.n)):
            raise ValueError("symmetries need a square board without holes")
        if depth < 0:
            raise ValueError("depth must be >= 0")
        if depth == 0:
            return 1
        interrupt_init(&it, 1 << 12)
        if self.big:
            t = table.ready(("wide", self.n, wide, count_finished, sym_n), _key_words(True))
            memcpy(&b, &self.bb, sizeof(Big))
            with nogil:
                total = KERNELS.hperft_wide(&b, me, depth, count_finished, sym_n, t, &it)
        else:
            t = table.ready((playable, count_finished, sym_n), _key_words(False))
            with nogil:
                total = KERNELS.hperft8(P, O, playable, depth, count_finished, sym_n, t,
                                        &it)
        raise_if_stopped(&it)
        if total == BRETT_PERFT_SATURATED:
            raise OverflowError("the count passes 2^64 - 1, more than a table's entry holds")
        return total

    cdef tuple _wide_playable(self):
        """The playable squares of a wide board, as its four bitboard words."""
        return tuple(self.bb.empty[i] | self.bb.bits[0][i] | self.bb.bits[1][i]
                     for i in range(4))

    def playouts(self, long long n, uint64_t seed, long long max_plies):
        """n random games on a copy: ([black, white wins], draws, unfinished,
        plies, rng state after the last game)."""
        cdef long long res[5]
        cdef uint64_t rng = seed
        cdef Big b
        cdef uint64_t black = self.disc[0], white = self.disc[1], playable = self.playable
        cdef int player = self.mover
        cdef Interrupt it
        memset(res, 0, sizeof(res))
        if n < 0:
            raise ValueError("n must be >= 0")
        interrupt_init(&it, 1 << 8)
        if self.big:
            memcpy(&b, &self.bb, sizeof(Big))
            with nogil:
                KERNELS.playouts_wide(&b, player, n, &rng, max_plies, res, &it)
        else:
            with nogil:
                KERNELS.playouts8(black, white, player, playable, n, &rng, max_plies, res, &it)
        raise_if_stopped(&it)
        if self.anti:  # the kernels count the more discs as the win
            return [res[1], res[0]], res[2], res[3], res[4], rng
        return [res[0], res[1]], res[2], res[3], res[4], rng

    def set_anti(self, bint anti):
        """Anti-Reversi (fewer discs win) or not: winners change, moves do not."""
        self.anti = anti

    # ------------------------------------------------ the search protocol
    # (_common.pxd) on a private clone, without the GIL.  A search action is a
    # core move: a square index, or n2 for the forced pass; s_do keeps its undo
    # record on the undo stack of push/pop, but not in ``entries``.
    cdef int s_max_actions(self) noexcept nogil:
        # at most one move per square (the pass is alone in its list)
        return self.n2

    cdef int s_player(self) noexcept nogil:
        return TERMINAL_PLAYER if self._status() < 0 else self.mover

    cdef int s_actions(self, int64_t *out) noexcept nogil:
        cdef int16_t buf[256]
        cdef int nm = self._list(buf), i
        if nm == 0:
            if self._status() == 0:
                out[0] = self.n2
                return 1
            return 0
        for i in range(nm):
            out[i] = buf[i]
        return nm

    cdef int s_do(self, int64_t action) except -1 nogil:
        if action < 0 or action > self.n2:
            with gil:
                raise ValueError(f"bad reversi search action {action}")
        if self.nundo == self.cap:
            with gil:
                self._reserve(self.nundo + 1)
        self._make(<int>action)
        return 0

    cdef void s_undo(self) noexcept nogil:
        if self.nundo:
            self._unmake()

    cdef int s_winners(self) noexcept nogil:
        cdef int nb, nw
        self._counts(&nb, &nw)
        if nb == nw:
            return 0
        return 1 if (nb > nw) != self.anti else 2

    cdef int s_playout(self, uint64_t *rng, int max_plies) noexcept nogil:
        """One game of the playouts kernels (which copy the board)."""
        cdef long long res[5]
        cdef Interrupt it
        memset(res, 0, sizeof(res))
        interrupt_init(&it, 1 << 8)      # one game: never polls (no GIL needed)
        if self.big:
            KERNELS.playouts_wide(&self.bb, self.mover, 1, rng, max_plies, res, &it)
        else:
            KERNELS.playouts8(self.disc[0], self.disc[1], self.mover, self.playable, 1, rng,
                             max_plies, res, &it)
        if res[0]:
            return 2 if self.anti else 1
        if res[1]:
            return 1 if self.anti else 2
        return 0

    # ------------------------------------------ the integer layer in C
    # (_common.pxd): an action is a core move (a square, n2 the pass), so the
    # hooks are the core's own moves; a made move keeps no undo record.
    cdef bint v_supported(self) noexcept nogil:
        return 1

    cdef void v_reset(self, CoreBase start) noexcept nogil:
        # a borrowed cast: a typed local would count a reference (the GIL)
        self.mover = (<ReversiCore>start).mover
        self.zkey = (<ReversiCore>start).zkey
        self.disc[0] = (<ReversiCore>start).disc[0]
        self.disc[1] = (<ReversiCore>start).disc[1]
        if self.big:
            memcpy(&self.bb, &(<ReversiCore>start).bb, sizeof(Big))
        self.nundo = 0

    cdef int v_player(self) noexcept nogil:
        return TERMINAL_PLAYER if self._status() < 0 else self.mover

    cdef int v_mask(self, uint8_t *mask) noexcept nogil:
        cdef int16_t buf[256]
        cdef int nm = 0, i
        cdef uint64_t moves
        memset(mask, 0, self.n2 + 1)
        if self.big:
            nm = self._list(buf)
            for i in range(nm):
                mask[buf[i]] = 1
        else:                            # straight from the bitboard of moves
            moves = _get_moves(self.disc[self.mover], self.disc[1 - self.mover], self._empty())
            while moves:
                mask[self.bit2sq[brett_ctz64(moves)]] = 1
                moves &= moves - 1
                nm += 1
        if nm == 0 and self._status() == 0:
            mask[self.n2] = 1
            return 1
        return nm

    cdef int v_chance(self, int64_t *actions, double *probs) noexcept nogil:
        return 0

    cdef int v_apply(self, int64_t action) noexcept nogil:
        cdef Undo scratch
        cdef uint64_t f, bit
        cdef int me = self.mover, sq
        if action < 0 or action > self.n2:
            return -1
        if self.big or action == self.n2:
            if not self._legal(<int>action):
                return -1
            self._make_into(&scratch, <int>action)
            return 0
        # 8x8 and smaller: the flips found by the legality check make the move
        bit = (<uint64_t>1) << self.sq2bit[action]
        if not self._empty() & bit:
            return -1
        f = _get_flips(self.disc[me], self.disc[1 - me], self.sq2bit[action])
        if not f:
            return -1
        self.zkey ^= ZOB[me * 256 + action] ^ ZOB[SIDE]
        self.disc[me] ^= f | bit
        self.disc[1 - me] ^= f
        while f:
            sq = self.bit2sq[brett_ctz64(f)]
            f &= f - 1
            self.zkey ^= ZOB[sq] ^ ZOB[256 + sq]
        self.mover = 1 - me
        return 0

    cdef void v_observe(self, float *obs) noexcept nogil:
        """Three planes of n * n: empty playable squares, the mover's discs, the
        other's (Reversi._observation)."""
        cdef int n2 = self.n2, sq, c
        cdef uint64_t mine, theirs, empty
        if self.big:
            memset(obs, 0, 3 * n2 * sizeof(float))
            for sq in range(n2):
                c = self.bb.cell[self.bb.mb[sq]]
                if c == EMPTY:
                    obs[sq] = 1.0
                elif c == self.mover:
                    obs[n2 + sq] = 1.0
                elif c != BLOCKED:
                    obs[2 * n2 + sq] = 1.0
            return
        mine = self.disc[self.mover]
        theirs = self.disc[1 - self.mover]
        empty = self._empty()
        if self.n == 8:                 # square = bit: eight floats per byte
            _bits_to_floats(empty, obs)
            _bits_to_floats(mine, obs + 64)
            _bits_to_floats(theirs, obs + 128)
            return
        for sq in range(n2):
            c = self.sq2bit[sq]
            obs[sq] = <float>((empty >> c) & 1)
            obs[n2 + sq] = <float>((mine >> c) & 1)
            obs[2 * n2 + sq] = <float>((theirs >> c) & 1)

    cdef void v_returns(self, double *out) noexcept nogil:
        cdef int w = self.s_winners() if self._status() < 0 else 0
        out[0] = 1.0 if w == 1 else (-1.0 if w == 2 else 0.0)
        out[1] = -out[0]


# The observation of an 8x8 board: a byte of a bitboard -> its eight squares as
# floats (one 32-byte copy instead of eight shifts).
cdef float BYTE_FLOATS[256][8]


cdef void _init_byte_floats() noexcept nogil:
    cdef int b, i
    for b in range(256):
        for i in range(8):
            BYTE_FLOATS[b][i] = <float>((b >> i) & 1)


_init_byte_floats()


cdef tuple _wide_square(int n):
    """The squares of an n x n board without holes in the wide layout (bit
    row * 16 + col), as four words."""
    words = [0, 0, 0, 0]
    for row in range(n):
        words[row // 4] |= ((1 << n) - 1) << (16 * (row % 4))
    return tuple(words)


cdef inline int _key_words(bint big) noexcept nogil:
    """A perft table's key length in 64-bit words: both colours' discs, one word
    each up to 8x8, four each (a wide bitboard) beyond."""
    return 8 if big else 2


cdef inline uint64_t _square_mask(int n) noexcept nogil:
    """The squares of an n x n board (n <= 8) without holes, bit row * 8 + col."""
    cdef uint64_t mask = 0
    cdef int r
    for r in range(n):
        mask |= (((<uint64_t>1) << n) - 1) << (8 * r)
    return mask


cdef inline void _bits_to_floats(uint64_t bits, float *out) noexcept nogil:
    cdef int i
    for i in range(8):
        memcpy(out + 8 * i, BYTE_FLOATS[(bits >> (8 * i)) & 0xFF], 8 * sizeof(float))
