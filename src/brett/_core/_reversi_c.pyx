# cython: language_level=3
"""Reversi core in Cython: the twin of ``_reversi_py`` (same names, same behaviour).

Boards up to 8x8 live in two ``uint64_t`` bitboards with bit ``row * 8 + col``
(squares off the board, holes and octagon cuts are in neither bitboard and not in
the ``playable`` mask).  Moves are generated with shifts (Kogge-Stone / dumb7fill,
masked against wrap-around), flips with precomputed rays and a bit scan.  Boards
from 10x10 to 16x16 and the octagon keep a padded mailbox (18x18 at most, whose
border and blocked cells end every line; make/unmake walk it) mirrored in
256-bit bitboards of four words, bit ``row * 16 + col``, for shift-based move
generation.  Every hot function is ``nogil``.
"""

cimport cython
from libc.stdint cimport int16_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free
from libc.string cimport memcpy, memset

from ._common cimport (
    grow_array,
    TERMINAL_PLAYER,
    CoreBase,
    Interrupt,
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
cdef uint64_t RAY[64][8]     # squares beyond each square, per direction (bitboard layout)
cdef uint64_t NOT_EDGE = 0x7E7E7E7E7E7E7E7EULL


def _init_tables():
    cdef int i, sq, d, r, c
    cdef int dr[8]
    cdef int dc[8]
    # Directions 0-3 increase the bit index (E, SW, S, SE), 4-7 decrease it (W, NE, N, NW).
    dr[:] = [0, 1, 1, 1, 0, -1, -1, -1]
    dc[:] = [1, -1, 0, 1, -1, 1, 0, -1]
    if len(ZOBRIST) != 769:
        raise ImportError("reversi Zobrist table has the wrong size")
    for i in range(769):
        ZOB[i] = ZOBRIST[i]
    for sq in range(64):
        for d in range(8):
            RAY[sq][d] = 0
            r = sq // 8 + dr[d]
            c = sq % 8 + dc[d]
            while 0 <= r < 8 and 0 <= c < 8:
                RAY[sq][d] |= (<uint64_t>1) << (r * 8 + c)
                r += dr[d]
                c += dc[d]


_init_tables()


# ------------------------------------------------------------------ bitboards
cdef inline uint64_t _some_moves(uint64_t P, uint64_t mask, int d) noexcept nogil:
    """Empty-or-not squares reached from P across a run of ``mask`` in +d and -d."""
    cdef uint64_t fl, fr, ml, mr
    cdef int d2 = d + d
    fl = mask & (P << d)
    fr = mask & (P >> d)
    fl |= mask & (fl << d)
    fr |= mask & (fr >> d)
    ml = mask & (mask << d)
    mr = ml >> d
    fl |= ml & (fl << d2)
    fr |= mr & (fr >> d2)
    fl |= ml & (fl << d2)
    fr |= mr & (fr >> d2)
    return (fl << d) | (fr >> d)


cdef inline uint64_t _get_moves(uint64_t P, uint64_t O, uint64_t empty) noexcept nogil:
    """The squares of ``empty`` where P outflanks O (all 8 directions)."""
    cdef uint64_t mask = O & NOT_EDGE
    return (_some_moves(P, mask, 1) | _some_moves(P, O, 8)
            | _some_moves(P, mask, 7) | _some_moves(P, mask, 9)) & empty


cdef inline uint64_t _get_flips(uint64_t P, uint64_t O, int sq) noexcept nogil:
    """The discs of O flipped by P playing on bit ``sq`` (0 if none)."""
    cdef uint64_t flips = 0, r, o, first
    cdef const uint64_t *ray = RAY[sq]
    # Rays towards higher bits: the first non-O square is the lowest set bit.
    r = ray[0]
    o = r & ~O
    first = o & (0 - o)
    if first & P:
        flips |= r & (first - 1)
    r = ray[1]
    o = r & ~O
    first = o & (0 - o)
    if first & P:
        flips |= r & (first - 1)
    r = ray[2]
    o = r & ~O
    first = o & (0 - o)
    if first & P:
        flips |= r & (first - 1)
    r = ray[3]
    o = r & ~O
    first = o & (0 - o)
    if first & P:
        flips |= r & (first - 1)
    # Rays towards lower bits: the first non-O square is the highest set bit.
    r = ray[4]
    o = r & ~O
    if o:
        first = (<uint64_t>1) << brett_msb64(o)
        if first & P:
            flips |= r & ~((first << 1) - 1)
    r = ray[5]
    o = r & ~O
    if o:
        first = (<uint64_t>1) << brett_msb64(o)
        if first & P:
            flips |= r & ~((first << 1) - 1)
    r = ray[6]
    o = r & ~O
    if o:
        first = (<uint64_t>1) << brett_msb64(o)
        if first & P:
            flips |= r & ~((first << 1) - 1)
    r = ray[7]
    o = r & ~O
    if o:
        first = (<uint64_t>1) << brett_msb64(o)
        if first & P:
            flips |= r & ~((first << 1) - 1)
    return flips


cdef uint64_t _perft_bb(uint64_t P, uint64_t O, uint64_t playable, int depth,
                        bint cf, Interrupt *it) noexcept nogil:
    """perft(depth >= 1) with P to move; bulk counting at the last ply."""
    cdef uint64_t empty = playable & ~(P | O)
    cdef uint64_t moves = _get_moves(P, O, empty)
    cdef uint64_t total = 0, f, b, m2, P2, O2, e2
    cdef int sq
    if moves == 0:
        if _get_moves(O, P, empty) == 0:
            return 1 if cf else 0          # the game is over
        if depth == 1:
            return 1                       # the forced pass
        return _perft_bb(O, P, playable, depth - 1, cf, it)
    if depth == 1:
        return <uint64_t>brett_popcount64(moves)
    if depth == 2:
        while moves:
            sq = brett_ctz64(moves)
            moves &= moves - 1
            b = (<uint64_t>1) << sq
            f = _get_flips(P, O, sq)
            P2 = O ^ f
            O2 = P ^ f ^ b
            e2 = empty ^ b
            m2 = _get_moves(P2, O2, e2)
            if m2:
                total += <uint64_t>brett_popcount64(m2)
            elif cf or _get_moves(O2, P2, e2):
                total += 1
        return total
    if interrupted(it):
        return 0
    while moves:
        sq = brett_ctz64(moves)
        moves &= moves - 1
        f = _get_flips(P, O, sq)
        total += _perft_bb(O ^ f, P ^ f ^ ((<uint64_t>1) << sq), playable, depth - 1, cf, it)
    return total


cdef void _playouts_bb(uint64_t black, uint64_t white, int player, uint64_t playable,
                       long long ngames, uint64_t *rng, long long cap,
                       long long *res, Interrupt *it) noexcept nogil:
    """res = [black wins, white wins, draws, unfinished, plies]."""
    cdef uint64_t P, O, t, empty, moves, f
    cdef long long g, made
    cdef int side, k, sq, nb, nw
    for g in range(ngames):
        if interrupted(it):
            return
        if player == BLACK:
            P = black
            O = white
        else:
            P = white
            O = black
        side = player
        made = 0
        while True:
            empty = playable & ~(P | O)
            moves = _get_moves(P, O, empty)
            if moves == 0:
                if _get_moves(O, P, empty) == 0:
                    nb = brett_popcount64(P)
                    nw = brett_popcount64(O)
                    if side == WHITE:
                        nb, nw = nw, nb
                    if nb == nw:
                        res[2] += 1
                    elif nb > nw:
                        res[0] += 1
                    else:
                        res[1] += 1
                    break
                if 0 <= cap <= made:
                    res[3] += 1
                    break
                brett_rng_below(rng, 1)            # the one-move list [pass]
            else:
                if 0 <= cap <= made:
                    res[3] += 1
                    break
                k = <int>brett_rng_below(rng, <uint32_t>brett_popcount64(moves))
                while k:
                    moves &= moves - 1
                    k -= 1
                sq = brett_ctz64(moves)
                f = _get_flips(P, O, sq)
                P ^= f | ((<uint64_t>1) << sq)
                O ^= f
            t = P
            P = O
            O = t
            side ^= 1
            made += 1
        res[4] += made


# -------------------------------------------------------------------- mailbox
cdef uint64_t WIDE_NOT_EDGE = 0x7FFE7FFE7FFE7FFEULL   # columns 1-14 of a 16-wide row
cdef int WIDE_SHIFT[4]
WIDE_SHIFT[:] = [1, 15, 16, 17]


cdef inline void _wshl(const uint64_t *a, int k, uint64_t *r) noexcept nogil:
    """r = a << k over four words (0 < k < 64)."""
    r[3] = (a[3] << k) | (a[2] >> (64 - k))
    r[2] = (a[2] << k) | (a[1] >> (64 - k))
    r[1] = (a[1] << k) | (a[0] >> (64 - k))
    r[0] = a[0] << k


cdef inline void _wshr(const uint64_t *a, int k, uint64_t *r) noexcept nogil:
    """r = a >> k over four words (0 < k < 64)."""
    r[0] = (a[0] >> k) | (a[1] << (64 - k))
    r[1] = (a[1] >> k) | (a[2] << (64 - k))
    r[2] = (a[2] >> k) | (a[3] << (64 - k))
    r[3] = a[3] >> k


cdef inline bint _wide_moves(const Big *b, int me, uint64_t *moves) noexcept nogil:
    """The legal squares of ``me`` as a wide bitboard; True if there is any.

    Each direction walks the runs of opponent discs one step at a time, so the
    loop ends after the longest run (lines are at most 14 discs long)."""
    cdef const uint64_t *P = b.bits[me]
    cdef const uint64_t *O = b.bits[1 - me]
    cdef const uint64_t *E = &b.empty[0]
    cdef const uint64_t *M
    cdef uint64_t Mh[4]
    cdef uint64_t t[4]
    cdef uint64_t s[4]
    cdef int d, k, i
    for i in range(4):
        Mh[i] = O[i] & WIDE_NOT_EDGE
        moves[i] = 0
    for d in range(4):
        k = WIDE_SHIFT[d]
        if k == 16:
            M = O
        else:
            M = Mh
        _wshl(P, k, t)
        for i in range(4):
            t[i] &= M[i]
        while t[0] | t[1] | t[2] | t[3]:
            _wshl(t, k, s)
            for i in range(4):
                moves[i] |= s[i] & E[i]
                t[i] = s[i] & M[i]
        _wshr(P, k, t)
        for i in range(4):
            t[i] &= M[i]
        while t[0] | t[1] | t[2] | t[3]:
            _wshr(t, k, s)
            for i in range(4):
                moves[i] |= s[i] & E[i]
                t[i] = s[i] & M[i]
    return (moves[0] | moves[1] | moves[2] | moves[3]) != 0


cdef inline bint _big_legal(const Big *b, int mb, int me) noexcept nogil:
    cdef int opp = 1 - me, d, step, t
    if b.cell[mb] != EMPTY:
        return False
    for d in range(8):
        step = b.dirs[d]
        t = mb + step
        if b.cell[t] != opp:
            continue
        t += step
        while b.cell[t] == opp:
            t += step
        if b.cell[t] == me:
            return True
    return False


cdef inline int _wide_list(const Big *b, uint64_t *moves, int16_t *out) noexcept nogil:
    """The squares of a wide bitboard as mailbox indices, ascending; their number."""
    cdef int w, n = 0
    cdef uint64_t m
    for w in range(4):
        m = moves[w]
        while m:
            out[n] = b.bit2mb[w * 64 + brett_ctz64(m)]
            n += 1
            m &= m - 1
    return n


cdef inline int _wide_count(const uint64_t *moves) noexcept nogil:
    return (brett_popcount64(moves[0]) + brett_popcount64(moves[1])
            + brett_popcount64(moves[2]) + brett_popcount64(moves[3]))


cdef inline int _big_moves(const Big *b, int me, int16_t *out) noexcept nogil:
    """The legal squares (square indices, ascending) into ``out``; their number."""
    cdef uint64_t moves[4]
    cdef int w, n = 0, bit
    cdef uint64_t m
    _wide_moves(b, me, moves)
    for w in range(4):
        m = moves[w]
        while m:
            bit = w * 64 + brett_ctz64(m)
            out[n] = <int16_t>((bit >> 4) * b.n + (bit & 15))
            n += 1
            m &= m - 1
    return n


cdef inline bint _big_any(const Big *b, int me) noexcept nogil:
    cdef uint64_t moves[4]
    return _wide_moves(b, me, moves)


cdef inline void _big_put(Big *b, int mb, int c) noexcept nogil:
    """Set one playable cell to BLACK, WHITE or EMPTY, bitboards included."""
    cdef int bit = b.mb2bit[mb], w = bit >> 6
    cdef uint64_t m = (<uint64_t>1) << (bit & 63)
    b.cell[mb] = <uint8_t>c
    b.bits[0][w] &= ~m
    b.bits[1][w] &= ~m
    b.empty[w] &= ~m
    if c == EMPTY:
        b.empty[w] |= m
    else:
        b.bits[c][w] |= m


cdef inline int _big_make(Big *b, int mb, int me, int16_t *flipped) noexcept nogil:
    """Put a disc of ``me`` on ``mb`` and flip; the flipped mailbox indices go to
    ``flipped`` (at most 8 * 14); returns their number."""
    cdef int opp = 1 - me, d, step, t, nf = 0, bit
    cdef uint64_t m
    for d in range(8):
        step = b.dirs[d]
        t = mb + step
        if b.cell[t] != opp:
            continue
        t += step
        while b.cell[t] == opp:
            t += step
        if b.cell[t] == me:
            t -= step
            while t != mb:
                b.cell[t] = <uint8_t>me
                bit = b.mb2bit[t]
                m = (<uint64_t>1) << (bit & 63)
                b.bits[me][bit >> 6] |= m
                b.bits[opp][bit >> 6] &= ~m
                flipped[nf] = <int16_t>t
                nf += 1
                t -= step
    _big_put(b, mb, me)
    return nf


cdef inline void _big_unmake(Big *b, int mb, int me, const int16_t *flipped,
                             int nf) noexcept nogil:
    cdef int i, bit, opp = 1 - me
    cdef uint64_t m
    for i in range(nf):
        b.cell[flipped[i]] = <uint8_t>opp
        bit = b.mb2bit[flipped[i]]
        m = (<uint64_t>1) << (bit & 63)
        b.bits[opp][bit >> 6] |= m
        b.bits[me][bit >> 6] &= ~m
    _big_put(b, mb, EMPTY)


cdef uint64_t _perft_big(Big *b, int me, int depth, bint cf, Interrupt *it) noexcept nogil:
    cdef uint64_t moves[4]
    cdef int16_t mbs[256]
    cdef int16_t flipped[128]
    cdef int nm, i, nf, mb
    cdef uint64_t total = 0
    if not _wide_moves(b, me, moves):
        if not _big_any(b, 1 - me):
            return 1 if cf else 0
        if depth == 1:
            return 1
        return _perft_big(b, 1 - me, depth - 1, cf, it)
    if depth == 1:
        return <uint64_t>_wide_count(moves)
    if interrupted(it):
        return 0
    nm = _wide_list(b, moves, mbs)
    for i in range(nm):
        mb = mbs[i]
        nf = _big_make(b, mb, me, flipped)
        total += _perft_big(b, 1 - me, depth - 1, cf, it)
        _big_unmake(b, mb, me, flipped, nf)
    return total


cdef void _playouts_big(const Big *start, int player, long long ngames, uint64_t *rng,
                        long long cap, long long *res, Interrupt *it) noexcept nogil:
    cdef Big b
    cdef int16_t moves[256]
    cdef int16_t flipped[128]
    cdef long long g, made
    cdef int me, nm, i, nb, nw, c
    for g in range(ngames):
        if interrupted(it):
            return
        memcpy(&b, start, sizeof(Big))
        me = player
        made = 0
        while True:
            nm = _big_moves(&b, me, moves)
            if nm == 0:
                if not _big_any(&b, 1 - me):
                    nb = 0
                    nw = 0
                    for i in range(b.n * b.n):
                        c = b.cell[b.mb[i]]
                        if c == BLACK:
                            nb += 1
                        elif c == WHITE:
                            nw += 1
                    if nb == nw:
                        res[2] += 1
                    elif nb > nw:
                        res[0] += 1
                    else:
                        res[1] += 1
                    break
                if 0 <= cap <= made:
                    res[3] += 1
                    break
                brett_rng_below(rng, 1)
            else:
                if 0 <= cap <= made:
                    res[3] += 1
                    break
                i = <int>brett_rng_below(rng, <uint32_t>nm)
                _big_make(&b, b.mb[moves[i]], me, flipped)
            me = 1 - me
            made += 1
        res[4] += made


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

    def count(self):
        cdef int16_t buf[256]
        cdef int nm
        if self.big:
            nm = _big_moves(&self.bb, self.mover, buf)
        else:
            nm = brett_popcount64(_get_moves(self.disc[self.mover],
                                             self.disc[1 - self.mover], self._empty()))
        if nm == 0 and self._status() == 0:
            return 1
        return nm

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
        cdef Undo *rec = &self.undo[self.nundo]
        cdef uint64_t f
        cdef int me = self.mover, opp = 1 - self.mover, bit, i, nf, t, sq, stride
        cdef int16_t flipped[128]
        self.nundo += 1
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
                total = _perft_big(&b, me, depth, count_finished, &it)
        else:
            with nogil:
                total = _perft_bb(P, O, playable, depth, count_finished, &it)
        raise_if_stopped(&it)
        return total

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
                _playouts_big(&b, player, n, &rng, max_plies, res, &it)
        else:
            with nogil:
                _playouts_bb(black, white, player, playable, n, &rng, max_plies, res, &it)
        raise_if_stopped(&it)
        return [res[0], res[1]], res[2], res[3], res[4], rng

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
        return 1 if nb > nw else 2

    cdef int s_playout(self, uint64_t *rng, int max_plies) noexcept nogil:
        """One game of _playouts_bb / _playouts_big (which copy the board)."""
        cdef long long res[5]
        cdef Interrupt it
        memset(res, 0, sizeof(res))
        interrupt_init(&it, 1 << 8)      # one game: never polls (no GIL needed)
        if self.big:
            _playouts_big(&self.bb, self.mover, 1, rng, max_plies, res, &it)
        else:
            _playouts_bb(self.disc[0], self.disc[1], self.mover, self.playable, 1, rng,
                         max_plies, res, &it)
        if res[0]:
            return 1
        return 2 if res[1] else 0
