# cython: language_level=3
"""Focus in C (Cython): the fast twin of ``_focus_py.FocusCore``.

Stacks are packed 2 bits per piece (bottom piece in the low bits) with a
separate height; ``own[p]`` bitmasks give the squares each player controls and
``mob[p]`` the number of stack moves they have, kept up to date by make/unmake,
so perft counts the last ply in O(1).  Move generation copies precomputed,
ascending action lists per (rule, square, height) into a C buffer.  make/unmake
use an undo record (the small per-move metadata plus the two stacks touched),
the Zobrist key is updated incrementally.  Geometry, the action encoding and
the Zobrist table come from the oracle module at import.
"""

cimport cython
from cpython.object cimport PyObject
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

from ._common cimport (
    capped,
    grow_array,
    TERMINAL_PLAYER,
    CoreBase,
    Interrupt,
    brett_ctz64,
    brett_popcount64,
    brett_rng_below,
    interrupt_init,
    interrupted,
    raise_if_stopped,
)

from . import _focus_py as _fp
from ._focus_py import FocusState

cdef enum:
    Z_TOMOVE = 1040
    Z_RESERVE = 1044
    Z_CAPTURED = 1300
    Z_RETURNED = 2324
    Z_FIRST = 2580
    Z_SIZE = 2584
    GEN_SIZE = 60000

cdef int8_t DEC_FROM[FC_ACTIONS]
cdef int8_t DEC_TO[FC_ACTIONS]
cdef uint8_t DEC_K[FC_ACTIONS]
cdef uint8_t DEC_D[FC_ACTIONS]
cdef int16_t MIRROR_ACT[FC_ACTIONS]
cdef uint16_t CNT[3][52][6]
cdef uint16_t GEN_OFF[3][52][6]
cdef uint16_t GEN_LIST[GEN_SIZE]
cdef uint64_t ZOB[Z_SIZE]
cdef uint64_t ALL_SQUARES = (<uint64_t>1 << 52) - 1
# MOVE_BOUND[rule]: the most legal moves any position under the rule can have
# (every square topped by the mover with its richest height, plus 52 entries)
cdef int MOVE_BOUND[3]
# CELL[sq]: square sq's cell (rank - 1) * 8 + file in an 8x8 observation plane
cdef uint8_t CELL[FC_SQUARES]
cdef float PLAYABLE[64]          # 1.0 on the cells of the 52 squares, else 0.0


def _init_tables():
    assert _fp.Z_TOMOVE == Z_TOMOVE and _fp.Z_RESERVE == Z_RESERVE
    assert _fp.Z_CAPTURED == Z_CAPTURED and _fp.Z_RETURNED == Z_RETURNED
    assert _fp.Z_FIRST == Z_FIRST and _fp.Z_SIZE == Z_SIZE
    assert _fp.ENTRY_BASE == FC_ENTRY_BASE and _fp.NUM_ACTIONS == FC_ACTIONS
    cdef int a, rule, sq, h, d, off = 0, richest
    for a in range(FC_ACTIONS):
        src, dst, k, dist, _ = _fp.decode(a)
        DEC_FROM[a] = src
        DEC_TO[a] = dst
        DEC_K[a] = k
        DEC_D[a] = dist
        MIRROR_ACT[a] = _fp.mirror_action(a)
    for rule in range(3):
        for sq in range(FC_SQUARES):
            for h in range(6):
                GEN_OFF[rule][sq][h] = off
                for direction in range(4):
                    for k, d in _fp.pairs_for(rule, h):
                        if _fp.TARGET[sq][direction][d] >= 0:
                            GEN_LIST[off] = _fp.stack_action(sq, direction, k, d)
                            off += 1
                CNT[rule][sq][h] = off - GEN_OFF[rule][sq][h]
    assert off <= GEN_SIZE
    for rule in range(3):
        MOVE_BOUND[rule] = FC_SQUARES
        for sq in range(FC_SQUARES):
            richest = 0
            for h in range(6):
                richest = max(richest, CNT[rule][sq][h])
            MOVE_BOUND[rule] += richest
        assert MOVE_BOUND[rule] <= FC_MAX_MOVES
    for a in range(Z_SIZE):
        ZOB[a] = _fp.ZOBRIST[a]
    for sq in range(FC_SQUARES):
        x, y = _fp.SQUARE_XY[sq]
        CELL[sq] = y * 8 + x
        PLAYABLE[y * 8 + x] = 1.0


_init_tables()


# ------------------------------------------------------------------ helpers
cdef inline uint64_t zpiece(int sq, int level, int colour) noexcept nogil:
    return ZOB[(sq * 5 + level) * 4 + colour]


cdef inline uint64_t zcount(int base, int count) noexcept nogil:
    # a zero count contributes nothing (the oracle's convention)
    return ZOB[base + count] if count else 0


cdef inline uint64_t zstack(int sq, uint32_t stk, int h) noexcept nogil:
    cdef uint64_t z = 0
    cdef int level
    for level in range(h):
        z ^= zpiece(sq, level, (stk >> (2 * level)) & 3)
    return z


cdef inline int top_of(const FState* st, int sq) noexcept nogil:
    return (st.stk[sq] >> (2 * (st.ht[sq] - 1))) & 3


cdef inline bint can_move(const FState* st, int p) noexcept nogil:
    if (st.m.first >> p) & 1:
        return st.m.reserve[p] > 0 and st.m.occ != ALL_SQUARES
    return st.m.reserve[p] > 0 or st.m.mob[p] > 0


cdef inline int count_moves(const FState* st) noexcept nogil:
    cdef int p = st.m.to_move
    if st.m.reason:
        return 0
    if (st.m.first >> p) & 1:
        return FC_SQUARES - brett_popcount64(st.m.occ) if st.m.reserve[p] else 0
    return st.m.mob[p] + (FC_SQUARES if st.m.reserve[p] else 0)


cdef inline int gen_moves(const FState* st, uint16_t* out) noexcept nogil:
    """The legal moves in canonical (ascending) order; returns their number."""
    cdef int p = st.m.to_move
    cdef int n = 0, sq, c
    cdef uint64_t bb
    cdef bint first = (st.m.first >> p) & 1
    if st.m.reason:
        return 0
    if not first:
        bb = st.m.own[p]
        while bb:
            sq = brett_ctz64(bb)
            bb &= bb - 1
            c = CNT[st.rule][sq][st.ht[sq]]
            memcpy(out + n, &GEN_LIST[GEN_OFF[st.rule][sq][st.ht[sq]]], c * sizeof(uint16_t))
            n += c
    if st.m.reserve[p]:
        for sq in range(FC_SQUARES):
            if not first or not ((st.m.occ >> sq) & 1):
                out[n] = FC_ENTRY_BASE + sq
                n += 1
    return n


cdef inline bint is_legal(const FState* st, int a) noexcept nogil:
    cdef int p = st.m.to_move
    cdef int s, t, k, d, h
    if a < 0 or a >= FC_ACTIONS or st.m.reason:
        return False
    if a >= FC_ENTRY_BASE:
        if not st.m.reserve[p]:
            return False
        if (st.m.first >> p) & 1:
            return not ((st.m.occ >> (a - FC_ENTRY_BASE)) & 1)
        return True
    if (st.m.first >> p) & 1:
        return False
    s = DEC_FROM[a]
    t = DEC_TO[a]
    k = DEC_K[a]
    d = DEC_D[a]
    h = st.ht[s]
    if t < 0 or h == 0 or top_of(st, s) != p or k > h:
        return False
    if st.rule == 0:
        return d == k
    if st.rule == 2:
        return k == h and d == k
    return d <= k


cdef inline bint removal_win(const FState* st, int p) noexcept nogil:
    """F7, 3 players; returns the reason code (2 or 3) or 0."""
    cdef int c, total = st.m.returned[p], all3 = 1
    for c in range(st.n):
        total += st.m.captured[p][c]
        if c != p and st.m.captured[p][c] < 3:
            all3 = 0
    if all3:
        return 2
    if total >= 10:
        return 3
    return 0


cdef void evaluate(FState* st) noexcept nogil:
    """Game over?  If not, skip players who cannot move (F4, F7).  No key update."""
    cdef FMeta* m = &st.m
    cdef int n = st.n, p, code, able = 0, winners = 0, reason = 0
    if n == 3:
        for p in range(3):
            code = removal_win(st, p)
            if code:
                winners = 1 << p
                reason = code
                break
    if not reason:
        if n == 2:
            if not can_move(st, m.to_move):
                winners = 1 << (1 - m.to_move)
                reason = 1
        else:
            for p in range(n):
                if can_move(st, p):
                    able |= 1 << p
            if n == 4 and st.teams:
                if not (able & 0b0101) and not (able & 0b1010):
                    reason = 6
                elif not (able & 0b0101):
                    winners = 0b1010
                    reason = 5
                elif not (able & 0b1010):
                    winners = 0b0101
                    reason = 5
            elif able == 0:
                reason = 6
            elif (able & (able - 1)) == 0:
                winners = able
                reason = 4
            if not reason:
                while not ((able >> m.to_move) & 1):
                    m.to_move = (m.to_move + 1) % n
    if not reason and st.cap >= 0 and m.ply >= st.cap:
        reason = 7
    if reason and st.mirror_rule and m.mirror != -2 and winners != 1:
        winners = 1
        reason = 8
    m.winners = winners
    m.reason = reason


cdef inline void bump(FMeta* m, uint8_t* counter, int zbase) noexcept nogil:
    m.key ^= zcount(zbase, counter[0])
    counter[0] += 1
    m.key ^= zcount(zbase, counter[0])


cdef void make(FState* st, int a, FUndo* u) noexcept nogil:
    cdef FMeta* m = &st.m
    cdef int p = m.to_move
    cdef int rule = st.rule
    cdef int s, t, k, hs, rem, ht_t, H, r, c, i
    cdef uint32_t moved, ss, ns, st_t, comb
    u.meta = m[0]
    m.key ^= ZOB[Z_TOMOVE + p]
    if a >= FC_ENTRY_BASE:  # F5.2 reserve entry
        t = a - FC_ENTRY_BASE
        k = 1
        moved = p
        u.s = -1
        m.key ^= zcount(Z_RESERVE + p * 64, m.reserve[p])
        m.reserve[p] -= 1
        m.key ^= zcount(Z_RESERVE + p * 64, m.reserve[p])
        if (m.first >> p) & 1:
            m.first &= ~(1 << p)
            m.key ^= ZOB[Z_FIRST + p]
    else:  # F5.1 stack move of the top k pieces
        s = DEC_FROM[a]
        t = DEC_TO[a]
        k = DEC_K[a]
        hs = st.ht[s]
        ss = st.stk[s]
        u.s = s
        u.s_stk = ss
        u.s_ht = hs
        rem = hs - k
        moved = ss >> (2 * rem)
        for i in range(k):
            m.key ^= zpiece(s, rem + i, (moved >> (2 * i)) & 3)
        m.mob[p] -= CNT[rule][s][hs]
        if rem == 0:
            m.own[p] &= ~(<uint64_t>1 << s)
            m.occ &= ~(<uint64_t>1 << s)
            st.stk[s] = 0
            st.ht[s] = 0
        else:
            ns = ss & ((<uint32_t>1 << (2 * rem)) - 1)
            st.stk[s] = ns
            st.ht[s] = rem
            c = (ns >> (2 * (rem - 1))) & 3
            if c != p:
                m.own[p] &= ~(<uint64_t>1 << s)
                m.own[c] |= <uint64_t>1 << s
            m.mob[c] += CNT[rule][s][rem]
    # the target square
    ht_t = st.ht[t]
    st_t = st.stk[t]
    u.t = t
    u.t_stk = st_t
    u.t_ht = ht_t
    if ht_t:
        c = (st_t >> (2 * (ht_t - 1))) & 3
        m.mob[c] -= CNT[rule][t][ht_t]
        m.own[c] &= ~(<uint64_t>1 << t)
    comb = st_t | (moved << (2 * ht_t))
    H = ht_t + k
    if H > 5:  # F6 overflow from the bottom
        r = H - 5
        m.key ^= zstack(t, st_t, ht_t)
        for i in range(r):
            c = (comb >> (2 * i)) & 3
            if c == p:
                bump(m, &m.reserve[p], Z_RESERVE + p * 64)
                if st.n == 3:
                    bump(m, &m.returned[p], Z_RETURNED + p * 64)
            else:
                bump(m, &m.captured[p][c], Z_CAPTURED + (p * 4 + c) * 64)
        comb >>= 2 * r
        H = 5
        m.key ^= zstack(t, comb, 5)
    else:
        for i in range(k):
            m.key ^= zpiece(t, ht_t + i, (moved >> (2 * i)) & 3)
    st.stk[t] = comb
    st.ht[t] = H
    m.own[p] |= <uint64_t>1 << t
    m.occ |= <uint64_t>1 << t
    m.mob[p] += CNT[rule][t][H]
    if st.mirror_rule and m.mirror != -2:  # F9
        if p == 0:
            m.mirror = MIRROR_ACT[a]
        elif m.mirror == a:
            m.mirror = -1
        else:
            m.mirror = -2
    m.ply += 1
    m.to_move = (p + 1) % st.n
    evaluate(st)
    m.key ^= ZOB[Z_TOMOVE + m.to_move]


cdef inline void unmake(FState* st, const FUndo* u) noexcept nogil:
    st.m = u.meta
    if u.s >= 0:
        st.stk[u.s] = u.s_stk
        st.ht[u.s] = u.s_ht
    st.stk[u.t] = u.t_stk
    st.ht[u.t] = u.t_ht


cdef uint64_t perft(FState* st, int depth, bint count_finished, uint16_t* moves,
                   Interrupt* it) noexcept nogil:
    """perft on ``st``; ``moves`` has room for FC_MAX_MOVES per remaining ply
    (on the heap: a search never grows the C stack by a move list per ply)."""
    cdef FUndo u
    cdef int i, n
    cdef uint64_t total = 0
    if st.m.reason:
        return 1 if (count_finished or depth == 0) else 0
    if depth == 0:
        return 1
    if depth == 1:
        return count_moves(st)
    n = gen_moves(st, moves)
    if depth == 2 and not count_finished:
        for i in range(n):
            make(st, moves[i], &u)
            total += count_moves(st)
            unmake(st, &u)
        return total
    if interrupted(it):
        return 0
    for i in range(n):
        make(st, moves[i], &u)
        total += perft(st, depth - 1, count_finished, moves + FC_MAX_MOVES, it)
        unmake(st, &u)
    return total


cdef uint64_t full_key(const FState* st) noexcept nogil:
    cdef uint64_t z = 0
    cdef int sq, p, c
    for sq in range(FC_SQUARES):
        z ^= zstack(sq, st.stk[sq], st.ht[sq])
    z ^= ZOB[Z_TOMOVE + st.m.to_move]
    for p in range(st.n):
        z ^= zcount(Z_RESERVE + p * 64, st.m.reserve[p])
        z ^= zcount(Z_RETURNED + p * 64, st.m.returned[p])
        for c in range(st.n):
            z ^= zcount(Z_CAPTURED + (p * 4 + c) * 64, st.m.captured[p][c])
        if (st.m.first >> p) & 1:
            z ^= ZOB[Z_FIRST + p]
    return z


cdef long long play_random(FState* st, uint64_t* rng, long long cap,
                           Interrupt* it) noexcept nogil:
    """Random moves onto ``st`` until the game ends, ``cap`` were made or ``it``
    (unless NULL) is stopped; their number."""
    cdef uint16_t moves[FC_MAX_MOVES]
    cdef FUndo u
    cdef long long made = 0
    cdef int n
    while not st.m.reason and (cap < 0 or made < cap):
        if it != NULL and interrupted(it):  # a 4-player game may last 50 ms
            break
        n = gen_moves(st, moves)
        make(st, moves[brett_rng_below(rng, n)], &u)
        made += 1
    return made


cdef void shares(const FState* st, double* values) noexcept nogil:
    """The search's value of a playout cut short, for each player: with s a
    side's stacks on top plus reserve pieces (a team of 4 adds its members') and
    m the best other side's, 0.5 + 0.5 * (s - m) / (s + m); 0.5 when both are 0.
    The twin is _focus_py.FocusCore._shares."""
    cdef double score[4]
    cdef double s, m
    cdef int p, q, sides = 2 if st.teams else st.n
    score[0] = score[1] = score[2] = score[3] = 0.0  # teams read 2 and 3: a C compiler
                                                     # cannot see teams means 4 players
    for p in range(st.n):
        score[p] = brett_popcount64(st.m.own[p]) + st.m.reserve[p]
    if st.teams:
        score[0] += score[2]
        score[1] += score[3]
    for p in range(sides):
        s = score[p]
        m = -1.0
        for q in range(sides):
            if q != p and score[q] > m:
                m = score[q]
        values[p] = 0.5 if s + m == 0 else 0.5 + 0.5 * (s - m) / (s + m)
    if st.teams:
        values[2] = values[0]
        values[3] = values[1]


cdef void playouts(FState* st, long long games, uint64_t* rng, long long cap, uint64_t* wins,
                   uint64_t* tally, Interrupt* it) noexcept nogil:
    """tally = [draws, unfinished, plies]; ``st`` is restored after every game."""
    cdef FState saved = st[0]
    cdef long long g, made
    cdef int p
    for g in range(games):
        if interrupted(it):
            return
        made = play_random(st, rng, cap, it)
        if it.stopped:
            return
        tally[2] += made
        if not st.m.reason:
            tally[1] += 1
        elif st.m.winners:
            for p in range(st.n):
                if (st.m.winners >> p) & 1:
                    wins[p] += 1
        else:
            tally[0] += 1
        st[0] = saved


# ------------------------------------------------------------------ the class
@cython.auto_pickle(False)
cdef class FocusCore(CoreBase):
    """Cython Focus core (the core protocol, see ``_base.py``)."""

    def __cinit__(self, *args, **kwargs):
        self.capundo = 0
        self.nundo = 0
        self.undo = NULL
        self._reserve(64)
        self.st.n = 2
        self.st.m.reason = 6  # an empty board until a state is loaded

    def __dealloc__(self):
        free(self.undo)

    cdef int _reserve(self, Py_ssize_t need) except -1:
        if need > self.capundo:
            self.undo = <FUndo*>grow_array(self.undo, &self.capundo, need, sizeof(FUndo), 64)
        return 0

    def set_state(self, state):
        cdef FState st
        cdef int sq, p, c, level
        cdef uint32_t stk
        n = state.players
        if n not in (2, 3, 4) or state.rule not in (0, 1, 2) or len(state.board) != FC_SQUARES:
            raise ValueError(f"bad focus state {state!r}")
        self.claim()
        st.n = n
        st.teams = 1 if (state.teams and n == 4) else 0
        st.rule = state.rule
        st.cap = state.max_plies
        st.mirror_rule = 1 if (state.mirror_rule and n == 2) else 0
        st.m.occ = 0
        for p in range(4):
            st.m.own[p] = 0
            st.m.mob[p] = 0
            st.m.reserve[p] = 0
            st.m.returned[p] = 0
            for c in range(4):
                st.m.captured[p][c] = 0
        for sq in range(FC_SQUARES):
            pieces = state.board[sq]
            if len(pieces) > 5:
                raise ValueError(f"bad focus state: a stack of {len(pieces)}")
            stk = 0
            for level in range(len(pieces)):
                stk |= (<uint32_t>pieces[level]) << (2 * level)
            st.stk[sq] = stk
            st.ht[sq] = len(pieces)
            if pieces:
                c = pieces[-1]
                st.m.own[c] |= <uint64_t>1 << sq
                st.m.occ |= <uint64_t>1 << sq
                st.m.mob[c] += CNT[st.rule][sq][len(pieces)]
        for p in range(n):
            st.m.reserve[p] = state.reserves[p]
            st.m.returned[p] = state.returned[p]
            for c in range(n):
                st.m.captured[p][c] = state.captured[p][c]
        st.m.first = state.first
        st.m.to_move = state.to_move
        st.m.ply = state.ply
        st.m.mirror = state.mirror if st.mirror_rule else -2
        evaluate(&st)
        st.m.key = full_key(&st)
        self.st = st
        self.nundo = 0
        self.entries = []

    def get_state(self):
        cdef FState* st = &self.st
        cdef int n = st.n
        board = tuple(tuple((st.stk[sq] >> (2 * lv)) & 3 for lv in range(st.ht[sq]))
                      for sq in range(FC_SQUARES))
        return FocusState(
            n, bool(st.teams), st.rule, st.cap, bool(st.mirror_rule), board,
            st.m.to_move, tuple(st.m.reserve[p] for p in range(n)),
            tuple(tuple(st.m.captured[p][c] for c in range(n)) for p in range(n)),
            tuple(st.m.returned[p] for p in range(n)), st.m.first, st.m.ply,
            st.m.mirror if st.mirror_rule else -2)

    def clone(self, bint history):
        cdef FocusCore new = type(self).__new__(type(self))
        new.st = self.st
        if history:
            new._reserve(self.nundo + 1)
            memcpy(new.undo, self.undo, self.nundo * sizeof(FUndo))
            new.nundo = self.nundo
            new.entries = list(self.entries)
        return new

    def moves(self):
        cdef uint16_t moves[FC_MAX_MOVES]
        cdef int i, n = gen_moves(&self.st, moves)
        return [moves[i] for i in range(n)]

    def iter_moves(self):
        return iter(self.moves())

    def count(self, long long limit=-1):
        return capped(count_moves(&self.st), limit)

    def is_legal(self, cm):
        if type(cm) is not int or not 0 <= cm < FC_ACTIONS:
            return False
        return is_legal(&self.st, cm)

    def chance_moves(self):
        return []

    def random_move(self, uint64_t rng):
        cdef uint16_t moves[FC_MAX_MOVES]
        cdef int n = gen_moves(&self.st, moves)
        if n == 0:
            return None, rng
        return moves[brett_rng_below(&rng, n)], rng

    def push(self, cm, entry):
        self.claim()
        if type(cm) is not int or not 0 <= cm < FC_ACTIONS or not is_legal(&self.st, cm):
            return False
        if self.nundo == self.capundo:
            self._reserve(self.nundo + 1)
        make(&self.st, cm, &self.undo[self.nundo])
        self.nundo += 1
        self.entries.append(entry)
        return True

    def pop(self):
        self.claim()
        if self.nundo == 0:
            raise IndexError("pop from an empty move stack")
        self.nundo -= 1
        unmake(&self.st, &self.undo[self.nundo])
        return self.entries.pop()

    def key(self):
        return self.st.m.key

    def full_key(self):
        """The key recomputed from scratch (tests compare it with the incremental one)."""
        return full_key(&self.st)

    def player(self):
        return TERMINAL_PLAYER if self.st.m.reason else self.st.m.to_move

    def result(self):
        if not self.st.m.reason:
            return None
        return (self.st.m.winners, self.st.m.reason)

    def perft(self, int depth, bint count_finished):
        """perft on a copy of the state, without the GIL; Ctrl-C stops it."""
        cdef uint64_t total
        cdef FState st = self.st
        cdef Interrupt it
        cdef uint16_t* moves
        if depth < 0:
            raise ValueError("depth must be >= 0")
        moves = <uint16_t*>malloc((<size_t>depth + 1) * FC_MAX_MOVES * sizeof(uint16_t))
        if moves == NULL:
            raise MemoryError()
        interrupt_init(&it, 1 << 6)   # a node at depth >= 3 counts ~10^5 leaves
        with nogil:
            total = perft(&st, depth, count_finished, moves, &it)
        free(moves)
        raise_if_stopped(&it)
        return total

    def playouts(self, long long n, uint64_t seed, long long max_plies):
        cdef uint64_t wins[4]
        cdef uint64_t tally[3]
        cdef uint64_t rng = seed
        cdef FState st = self.st
        cdef Interrupt it
        cdef int p
        if n < 0:
            raise ValueError("n must be >= 0")
        for p in range(4):
            wins[p] = 0
        tally[0] = tally[1] = tally[2] = 0
        interrupt_init(&it, 1 << 6)
        with nogil:
            playouts(&st, n, &rng, max_plies, wins, tally, &it)
        raise_if_stopped(&it)
        return [wins[p] for p in range(st.n)], tally[0], tally[1], tally[2], rng

    # ---- the search protocol (see _common.pxd), on a private clone without the
    # GIL: a search action is a core move (the order of moves()); s_do / s_undo
    # keep their records on the undo stack of push / pop and never touch entries.
    cdef int s_max_actions(self) noexcept nogil:
        return MOVE_BOUND[self.st.rule]

    cdef int s_player(self) noexcept nogil:
        if self.st.m.reason:   # (a conditional expression would take to_move's uint8_t)
            return TERMINAL_PLAYER
        return self.st.m.to_move

    cdef int s_actions(self, int64_t *out) noexcept nogil:
        cdef uint16_t moves[FC_MAX_MOVES]
        cdef int i, n = gen_moves(&self.st, moves)
        for i in range(n):
            out[i] = moves[i]
        return n

    cdef int s_do(self, int64_t action) except -1 nogil:
        if not (0 <= action < FC_ACTIONS and is_legal(&self.st, <int>action)):
            with gil:
                raise ValueError(f"illegal focus search action {action}")
        if self.nundo == self.capundo:
            with gil:
                self._reserve(self.nundo + 1)
        make(&self.st, <int>action, &self.undo[self.nundo])
        self.nundo += 1
        return 0

    cdef void s_undo(self) noexcept nogil:
        if self.nundo:
            self.nundo -= 1
            unmake(&self.st, &self.undo[self.nundo])

    cdef int s_winners(self) noexcept nogil:
        # the result's bitmask: both members of a winning team (4 players, teams)
        return self.st.m.winners if self.st.m.reason else 0

    cdef int s_playout(self, uint64_t *rng, int max_plies) noexcept nogil:
        # A random game on a copy; one cut short is valued by shares().
        cdef FState st = self.st
        play_random(&st, rng, max_plies, NULL)
        if st.m.reason:
            return st.m.winners
        shares(&st, self.cut)
        return -1

    cdef void s_shares(self, double *values) noexcept nogil:
        cdef int p
        for p in range(4):
            values[p] = self.cut[p]

    # ---- the integer layer in C (see _common.pxd), for brett.vector: a Focus
    # action is a core move (Focus._action_of_core is the identity), one action is
    # one whole move and there are no chance nodes, so nothing is ever pending.
    cdef bint v_supported(self) noexcept nogil:
        return 1

    cdef void v_reset(self, CoreBase start) noexcept nogil:
        # A start of another class (or None) would be read as a FocusCore: ignore it.
        if start is None or (<PyObject *>start).ob_type != (<PyObject *>self).ob_type:
            return
        self.st = (<FocusCore>start).st
        self.nundo = 0

    cdef int v_player(self) noexcept nogil:
        if self.st.m.reason:
            return TERMINAL_PLAYER
        return self.st.m.to_move

    cdef int v_mask(self, uint8_t *mask) noexcept nogil:
        cdef uint16_t moves[FC_MAX_MOVES]
        cdef int i, n = gen_moves(&self.st, moves)
        memset(mask, 0, FC_ACTIONS)
        for i in range(n):
            mask[moves[i]] = 1
        return n

    cdef int v_chance(self, int64_t *actions, double *probs) noexcept nogil:
        return 0

    cdef int v_apply(self, int64_t action) noexcept nogil:
        # The VectorEnv never takes a move back, so the move is made on a scratch
        # record: memory stays bounded.  Older records no longer lead here: drop them.
        cdef FUndo scratch
        if not (0 <= action < FC_ACTIONS and is_legal(&self.st, <int>action)):
            return -1
        make(&self.st, <int>action, &scratch)
        self.nundo = 0
        return 0

    cdef void v_observe(self, float *obs) noexcept nogil:
        # Focus._observation: (6n + 1) planes of 64 cells, seen from the mover
        # (player 0 once the game is over)
        cdef const FState* st = &self.st
        cdef int n = st.n
        cdef int me = 0 if st.m.reason else st.m.to_move
        cdef int sq, level, i, c, cell
        cdef int rel[4]
        cdef float r
        cdef uint32_t stk
        cdef uint64_t bb = st.m.occ
        cdef float* plane = obs + 5 * n * 64   # the playable plane, then the reserves
        memset(obs, 0, 5 * n * 64 * sizeof(float))
        for i in range(n):
            rel[i] = (i - me + n) % n
        while bb:
            sq = brett_ctz64(bb)
            bb &= bb - 1
            cell = CELL[sq]
            stk = st.stk[sq]
            for level in range(st.ht[sq]):
                obs[(level * n + rel[(stk >> (2 * level)) & 3]) * 64 + cell] = 1.0
        memcpy(plane, PLAYABLE, 64 * sizeof(float))
        for i in range(n):
            plane += 64
            r = st.m.reserve[(me + i) % n]
            for c in range(64):   # 0 * r is +0.0, as the game's zeros
                plane[c] = PLAYABLE[c] * r

    cdef void v_returns(self, double *out) noexcept nogil:
        # Outcome.returns: +1 winners, -1 the others; 0 for all on a draw or unfinished
        cdef int p, winners = self.st.m.winners if self.st.m.reason else 0
        for p in range(self.st.n):
            if not winners:
                out[p] = 0.0
            elif (winners >> p) & 1:
                out[p] = 1.0
            else:
                out[p] = -1.0
