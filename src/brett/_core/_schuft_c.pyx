# cython: language_level=3
"""Schuft in Cython: the fast twin of ``_schuft_py`` (same names, same moves,
same Zobrist keys, same playouts).

The state is a small C struct (tongue owners and counts, goal masks, out
counts, roll, player, roll-off); a turn is enumerated by a depth-first search
over (value, piece) steps with make/unmake; turns are merged by resulting
position in a hash set keyed by the Zobrist key and confirmed by comparing the
packed positions byte for byte.  The representative of a merged turn is the
step list whose notation sorts first: the search tries the steps at every node
in the order of their text (a table ranks every ``src/dst`` string), and since
" " sorts before every character of a step, the complete step lists come out in
notation order; the first one to reach a position is its representative and
the distinct moves come out sorted.  The Python twin instead compares the
notation strings, so the two twins check each other.
"""

cimport cython
from libc.stdint cimport uint64_t, uint32_t, uint8_t, int32_t, int64_t
from libc.string cimport memcmp, memcpy, memset
from libc.math cimport exp
from libc.stdlib cimport free, malloc

from ._common cimport (
    capped,
    grow_array,
    CHANCE_PLAYER as CHANCE,
    TERMINAL_PLAYER as TERMINAL,
    CoreBase,
    Interrupt,
    brett_ctz64,
    brett_popcount64,
    brett_rng_below,
    interrupt_init,
    interrupted,
    raise_if_stopped,
)

from ..errors import BrettError
from ._schuft_py import ZOBRIST as _PY_ZOBRIST, square_name

DEF_ROLL_FLAG = 1 << 48

cdef enum:
    CW = 1
    CCW = 2
    FULL_GOAL = 0x1FF
    Z_TONGUE = 0
    Z_GOAL = 1440
    Z_OUT = 1476
    Z_TOMOVE = 1516
    Z_ROLL = 1520
    Z_CONT = 1736
    Z_RSUM = 1740
    Z_SIZE = 1848
    # the integer layer (schuft.py): (value - 1) * 37 + source, then these
    ACTION_CW = 333
    ACTION_CCW = 334
    ACTION_PASS = 335
    NUM_ACTIONS = 336

cdef uint64_t ROLL_FLAG = (<uint64_t>1) << 48
cdef uint64_t ZOB[Z_SIZE]
cdef int ROLL_VALUES[216][3]
cdef int ROLL_SUM[216]
cdef int ROLL_MULT[216]   # rolls with the same values as this one if it is the first such, else 0
cdef float ROLL_OBS[216][3]  # the roll in the observation: value / 9 as schuft.py rounds it

cdef int TOKEN_RANK[37][46]     # order of the step text "src/dst" among all steps
cdef uint64_t BETWEEN[3][36][10]  # [direction][i][d]: tongues strictly between i and i +- d
cdef int TARGET[3][36][10]        # [direction][i][d]: the tongue index d steps from i
cdef int TO_CORNER[4][36]         # [seat][i]: clockwise steps from i to the seat's last tongue

cdef int _DIE_III[6]
cdef int _DIE_IV[6]
cdef int _DIE_V[6]
_DIE_III[:] = [1, 2, 5, 6, 7, 9]
_DIE_IV[:] = [1, 3, 4, 5, 8, 9]
_DIE_V[:] = [2, 3, 4, 6, 7, 8]


def _init_tables():
    cdef int i, a, b, c, d
    for i in range(Z_SIZE):
        ZOB[i] = _PY_ZOBRIST[i]
    for i in range(36):
        for a in range(4):
            TO_CORNER[a][i] = (9 * a + 8 - i + 36) % 36
        for a in range(1, 10):
            TARGET[CW][i][a] = (i + a) % 36
            TARGET[CCW][i][a] = (i - a + 36) % 36
            BETWEEN[CW][i][a] = 0
            BETWEEN[CCW][i][a] = 0
            for b in range(1, a):
                BETWEEN[CW][i][a] |= (<uint64_t>1) << ((i + b) % 36)
                BETWEEN[CCW][i][a] |= (<uint64_t>1) << ((i - b + 36) % 36)
    tokens = sorted((f"{square_name(src, True)}/{square_name(dst, False)}", src, dst)
                    for src in range(37) for dst in range(1, 46))
    for i, (_, a, b) in enumerate(tokens):
        TOKEN_RANK[a][b] = i
    for a in range(6):
        for b in range(6):
            for c in range(6):
                i = a * 36 + b * 6 + c
                ROLL_VALUES[i][0] = _DIE_III[a]
                ROLL_VALUES[i][1] = _DIE_IV[b]
                ROLL_VALUES[i][2] = _DIE_V[c]
                ROLL_SUM[i] = _DIE_III[a] + _DIE_IV[b] + _DIE_V[c]
                for d in range(3):
                    ROLL_OBS[i][d] = <float>(<double>ROLL_VALUES[i][d] / 9.0)
    first = {}
    for i in range(216):
        values = tuple(sorted((ROLL_VALUES[i][0], ROLL_VALUES[i][1], ROLL_VALUES[i][2])))
        first.setdefault(values, i)
        ROLL_MULT[i] = 0
        ROLL_MULT[first[values]] += 1


_init_tables()


# ------------------------------------------------------------- helpers (C)
cdef inline int turn_len(uint64_t cm) noexcept nogil:
    return <int>((cm >> 2) & 3)

cdef inline int step_src(uint64_t cm, int i) noexcept nogil:
    return <int>((cm >> (4 + 12 * i)) & 63)

cdef inline int step_dst(uint64_t cm, int i) noexcept nogil:
    return <int>((cm >> (10 + 12 * i)) & 63)

cdef inline uint64_t add_step(uint64_t cm, int src, int dst) noexcept nogil:
    cdef int k = turn_len(cm)
    cm = (cm & ~(<uint64_t>12)) | (<uint64_t>(k + 1) << 2)
    return cm | ((<uint64_t>(src | (dst << 6))) << (4 + 12 * k))

cdef inline int winner(State *s) noexcept nogil:
    cdef int p
    for p in range(s.n):
        if s.pos.goal[p] == FULL_GOAL:
            return p
    return -1

cdef inline int player_of(State *s) noexcept nogil:
    if winner(s) >= 0 or (s.cap >= 0 and s.plies >= s.cap):
        return TERMINAL
    if s.rolloff or s.roll < 0:
        return CHANCE
    return s.to_move

cdef inline bint can_land(State *s, int p, int i) noexcept nogil:
    cdef int o = s.pos.owner[i]
    return o < 0 or o == p or s.pos.count[i] == 1

cdef inline bint clear(State *s, int i, int d, int direction) noexcept nogil:
    """No tongue strictly between index i and i +- d holds 3 or more pieces."""
    return (s.tall & BETWEEN[direction][i][d]) == 0

cdef int steps_for(State *s, int p, int direction, int d, int *src, int *dst) noexcept nogil:
    """Legal steps of player p with value d (rules S5-S7) into src/dst; returns the count."""
    cdef int seat = s.seats[p], n = 0, i, k, m, t
    cdef uint64_t pieces
    if s.pos.out[p]:
        i = 9 * seat + d - 1 if direction == CW else 9 * seat + 9 - d
        if can_land(s, p, i):
            src[0] = 0
            dst[0] = i + 1
            return 1
        return 0
    pieces = s.occ[p]
    while pieces:
        i = brett_ctz64(pieces)
        pieces &= pieces - 1
        if direction == CW:
            k = TO_CORNER[seat][i]
            if d > k:
                if not clear(s, i, k + 1, CW):
                    continue
                m = d - k
                if not (s.pos.goal[p] >> (m - 1)) & 1:
                    src[n] = i + 1
                    dst[n] = 36 + m
                    n += 1
                    continue
        t = TARGET[direction][i][d]
        if clear(s, i, d, direction) and can_land(s, p, t):
            src[n] = i + 1
            dst[n] = t + 1
            n += 1
    return n

cdef int options(State *s, int p, int direction, int *vals, int nvals,
                 int *ov, int *osrc, int *odst) noexcept nogil:
    """(value, src, dst) for every distinct unused value, by value then source."""
    cdef int seen = 0, total = 0, d, j, c, v
    cdef int sorted_vals[3]
    cdef int ns = 0
    for j in range(nvals):
        v = vals[j]
        if not (seen >> v) & 1:
            seen |= 1 << v
            sorted_vals[ns] = v
            ns += 1
    # insertion sort of at most 3 values
    for j in range(1, ns):
        v = sorted_vals[j]
        c = j - 1
        while c >= 0 and sorted_vals[c] > v:
            sorted_vals[c + 1] = sorted_vals[c]
            c -= 1
        sorted_vals[c + 1] = v
    for j in range(ns):
        d = sorted_vals[j]
        c = steps_for(s, p, direction, d, osrc + total, odst + total)
        for v in range(total, total + c):
            ov[v] = d
        total += c
    return total

cdef int any_step(State *s, int p, int direction, const int *vals, int nvals) noexcept nogil:
    """Whether some value of ``vals`` has a legal step (``options() > 0``, sooner)."""
    cdef int src[16]
    cdef int dst[16]
    cdef int j
    for j in range(nvals):
        if (j == 1 and vals[1] == vals[0]) or \
                (j == 2 and (vals[2] == vals[0] or vals[2] == vals[1])):
            continue  # a value already tried
        if steps_for(s, p, direction, vals[j], src, dst):
            return 1
    return 0

cdef int make_step(State *s, int p, int src, int dst) noexcept nogil:
    """Move one piece (keys updated); returns the player hit or -1."""
    cdef int i, c, o, oc, m, hit = -1
    cdef uint64_t key = s.key
    if src == 0:
        c = s.pos.out[p]
        key ^= ZOB[Z_OUT + p * 10 + c]
        if c > 1:
            key ^= ZOB[Z_OUT + p * 10 + c - 1]
        s.pos.out[p] = c - 1
    else:
        i = src - 1
        c = s.pos.count[i]
        key ^= ZOB[Z_TONGUE + (p * 36 + i) * 10 + c]
        if c > 1:
            key ^= ZOB[Z_TONGUE + (p * 36 + i) * 10 + c - 1]
            if c == 3:
                s.tall &= ~((<uint64_t>1) << i)
        else:
            s.pos.owner[i] = -1
            s.occ[p] &= ~((<uint64_t>1) << i)
        s.pos.count[i] = c - 1
    if dst > 36:
        m = dst - 37
        s.pos.goal[p] |= 1 << m
        key ^= ZOB[Z_GOAL + p * 9 + m]
    else:
        i = dst - 1
        o = s.pos.owner[i]
        c = s.pos.count[i]
        if o >= 0 and o != p:
            hit = o
            key ^= ZOB[Z_TONGUE + (o * 36 + i) * 10 + 1]
            oc = s.pos.out[o]
            if oc:
                key ^= ZOB[Z_OUT + o * 10 + oc]
            key ^= ZOB[Z_OUT + o * 10 + oc + 1]
            s.pos.out[o] = oc + 1
            s.occ[o] &= ~((<uint64_t>1) << i)
            c = 0
        if c:
            key ^= ZOB[Z_TONGUE + (p * 36 + i) * 10 + c]
            if c == 2:
                s.tall |= (<uint64_t>1) << i
        else:
            s.occ[p] |= (<uint64_t>1) << i
        key ^= ZOB[Z_TONGUE + (p * 36 + i) * 10 + c + 1]
        s.pos.owner[i] = p
        s.pos.count[i] = c + 1
    s.key = key
    return hit

cdef void unmake_step(State *s, int p, int src, int dst, int hit, uint64_t key) noexcept nogil:
    """Undo make_step; ``key`` is the key before it."""
    cdef int i, c
    if dst > 36:
        s.pos.goal[p] &= ~(1 << (dst - 37))
    else:
        i = dst - 1
        c = s.pos.count[i]
        if c > 1:
            s.pos.count[i] = c - 1
            if c == 3:
                s.tall &= ~((<uint64_t>1) << i)
        elif hit >= 0:
            s.pos.out[hit] -= 1
            s.pos.owner[i] = hit
            s.pos.count[i] = 1
            s.occ[p] &= ~((<uint64_t>1) << i)
            s.occ[hit] |= (<uint64_t>1) << i
        else:
            s.pos.owner[i] = -1
            s.pos.count[i] = 0
            s.occ[p] &= ~((<uint64_t>1) << i)
    if src == 0:
        s.pos.out[p] += 1
    else:
        i = src - 1
        s.pos.owner[i] = p
        s.pos.count[i] += 1
        if s.pos.count[i] == 3:
            s.tall |= (<uint64_t>1) << i
        elif s.pos.count[i] == 1:
            s.occ[p] |= (<uint64_t>1) << i
    s.key = key

cdef int step_value(State *s, int p, int direction, int src, int dst) noexcept nogil:
    cdef int seat = s.seats[p], d
    if src == 0:
        if dst < 1 or dst > 36:
            return 0
        d = dst - 9 * seat if direction == CW else 9 * seat + 10 - dst
    elif dst > 36:
        if direction != CW:
            return 0
        d = (9 * seat + 8 - (src - 1) + 36) % 36 + (dst - 36)
    elif direction == CW:
        d = (dst - src + 36) % 36
    else:
        d = (src - dst + 36) % 36
    return d if 1 <= d <= 9 else 0


# ------------------------------------------------------------ turn search
cdef void record(Gen *g, State *s, uint64_t cm) noexcept nogil:
    """Add the result of a complete step list unless that position is known.

    With ``g.want_rep`` the search visits step lists in notation order, so the
    first step list reaching a result is its representative and the results
    come out sorted by notation."""
    cdef uint64_t key = s.key
    cdef uint32_t h = <uint32_t>(key ^ (key >> 32)) & (TABLE_SIZE - 1)
    cdef Result *r
    while g.stamps[h] == g.stamp:
        r = &g.results[g.slots[h]]
        if r.key == key and memcmp(&r.pos, &s.pos, sizeof(Pos)) == 0:
            return
        h = (h + 1) & (TABLE_SIZE - 1)
    if g.nresults >= MAX_RESULTS:  # cannot happen (see TABLE_SIZE); never overflow
        return
    g.stamps[h] = g.stamp
    g.slots[h] = g.nresults
    r = &g.results[g.nresults]
    r.key = key
    r.cm = cm
    memcpy(&r.pos, &s.pos, sizeof(Pos))
    g.nresults += 1

cdef int goes_on(State *s, int p, int direction, const int *vals, int nvals, int d,
                 int src, int dst) noexcept nogil:
    """Whether a step is left after playing value ``d`` from ``src`` to ``dst``."""
    cdef uint64_t key = s.key
    cdef int rest[3]
    cdef int ov[32]
    cdef int osrc[32]
    cdef int odst[32]
    cdef int j, n = 0, used = 0, more = 0
    cdef int hit = make_step(s, p, src, dst)
    for j in range(nvals):
        if vals[j] == d and not used:
            used = 1
        else:
            rest[n] = vals[j]
            n += 1
    if s.pos.goal[p] != FULL_GOAL:
        more = options(s, p, direction, rest, n, ov, osrc, odst) > 0
    unmake_step(s, p, src, dst, hit, key)
    return more


cdef inline void sort_options(int *ov, int *osrc, int *odst, int n) noexcept nogil:
    """Insertion sort of the options by the text of their step."""
    cdef int i, j, v, a, b, rank
    for i in range(1, n):
        v = ov[i]
        a = osrc[i]
        b = odst[i]
        rank = TOKEN_RANK[a][b]
        j = i - 1
        while j >= 0 and TOKEN_RANK[osrc[j]][odst[j]] > rank:
            ov[j + 1] = ov[j]
            osrc[j + 1] = osrc[j]
            odst[j + 1] = odst[j]
            j -= 1
        ov[j + 1] = v
        osrc[j + 1] = a
        odst[j + 1] = b


cdef bint seen_before(Gen *g, State *s, int direction, int *vals, int nvals) noexcept nogil:
    """Whether this inner node (position, unused values, direction) was searched
    already in this turn; records it if not.  Its subtree then adds nothing:
    the search meets step lists in notation order, so every result below was
    reached before by a step list that sorts first."""
    cdef int a = vals[0], b = vals[1] if nvals > 1 else 0, c = 0, t
    cdef int code
    cdef uint64_t key
    cdef uint32_t h
    cdef Memo *m
    if nvals > 2:
        c = vals[2]
    # sort the (at most three) values so the code is independent of their order
    if a < b:
        t = a
        a = b
        b = t
    if b < c:
        t = b
        b = c
        c = t
    if a < b:
        t = a
        a = b
        b = t
    code = direction * 1000 + a * 100 + b * 10 + c
    key = s.key ^ (<uint64_t>code * <uint64_t>0x9E3779B97F4A7C15ULL)
    h = <uint32_t>(key ^ (key >> 32)) & (MEMO_SIZE - 1)
    while g.mstamps[h] == g.stamp:
        m = &g.memo[g.mslots[h]]
        if m.key == key and m.code == code and memcmp(&m.pos, &s.pos, sizeof(Pos)) == 0:
            return 1
        h = (h + 1) & (MEMO_SIZE - 1)
    if g.nmemo >= MEMO_MAX:  # cannot happen (see MEMO_SIZE); just search again
        return 0
    g.mstamps[h] = g.stamp
    g.mslots[h] = g.nmemo
    m = &g.memo[g.nmemo]
    m.key = key
    m.code = code
    memcpy(&m.pos, &s.pos, sizeof(Pos))
    g.nmemo += 1
    return 0

cdef void dfs(Gen *g, State *s, int p, int direction, int *vals, int nvals,
              uint64_t cm) noexcept nogil:
    cdef int ov[32]
    cdef int osrc[32]
    cdef int odst[32]
    cdef int nopt = 0, j, k, hit, v, i, skipped
    cdef int rest[3]
    cdef uint64_t key
    if nvals and turn_len(cm) and seen_before(g, s, direction, vals, nvals):
        return
    if s.pos.goal[p] != FULL_GOAL:
        nopt = options(s, p, direction, vals, nvals, ov, osrc, odst)
    if nopt == 0:
        if turn_len(cm) > 0:
            record(g, s, cm)
        return
    if g.want_rep:
        sort_options(ov, osrc, odst, nopt)
    if nvals == 1:  # the last value: every step completes a turn
        for j in range(nopt):
            key = s.key
            hit = make_step(s, p, osrc[j], odst[j])
            record(g, s, add_step(cm, osrc[j], odst[j]))
            unmake_step(s, p, osrc[j], odst[j], hit, key)
        return
    for j in range(nopt):
        v = ov[j]
        # the unused values without one copy of v
        k = 0
        skipped = 0
        for i in range(nvals):
            if vals[i] == v and not skipped:
                skipped = 1
            else:
                rest[k] = vals[i]
                k += 1
        key = s.key
        hit = make_step(s, p, osrc[j], odst[j])
        dfs(g, s, p, direction, rest, k, add_step(cm, osrc[j], odst[j]))
        unmake_step(s, p, osrc[j], odst[j], hit, key)

cdef int generate(Gen *g, State *s, bint want_rep) noexcept nogil:
    """Every distinct turn of the player to move into g.results; returns the
    count (a pass counts as one move, recorded with cm 0)."""
    cdef int vals[3]
    cdef int total = ROLL_SUM[s.roll]
    g.stamp += 1
    if g.stamp == 0:
        memset(g.stamps, 0, sizeof(g.stamps))
        memset(g.mstamps, 0, sizeof(g.mstamps))
        g.stamp = 1
    g.nresults = 0
    g.nmemo = 0
    g.want_rep = want_rep
    vals[0] = ROLL_VALUES[s.roll][0]
    vals[1] = ROLL_VALUES[s.roll][1]
    vals[2] = ROLL_VALUES[s.roll][2]
    # "ccw ..." sorts before "cw ...": search counter-clockwise first
    if total <= 15:
        dfs(g, s, s.to_move, CCW, vals, 3, CCW)
    if total >= 15:
        dfs(g, s, s.to_move, CW, vals, 3, CW)
    if g.nresults == 0:
        g.results[0].cm = 0
        g.results[0].key = s.key
        memcpy(&g.results[0].pos, &s.pos, sizeof(Pos))
        g.nresults = 1
    return g.nresults

cdef inline int sorted_moves(Gen *g, State *s) noexcept nogil:
    """The representatives, in notation order, in g.results."""
    return generate(g, s, 1)


# ------------------------------------------------------------ make / unmake
cdef void push_roll(State *s, int r, Undo *u) noexcept nogil:
    cdef int i, top, ntied, j
    cdef int tied[4]
    u.key = s.key
    u.roll = s.roll
    u.to_move = s.to_move
    if not s.rolloff:
        u.kind = 1
        s.roll = r
        s.key ^= ZOB[Z_ROLL + r]
        return
    u.kind = 2
    u.rolloff = s.rolloff
    u.ncont = s.ncont
    u.nsums = s.nsums
    for i in range(4):
        u.cont[i] = s.cont[i]
        u.sums[i] = s.sums[i]
    s.key ^= ZOB[Z_RSUM + s.cont[s.nsums] * 27 + ROLL_SUM[r]]
    s.sums[s.nsums] = ROLL_SUM[r]
    s.nsums += 1
    if s.nsums < s.ncont:
        return
    top = 0
    for i in range(s.ncont):
        if s.sums[i] > top:
            top = s.sums[i]
    ntied = 0
    for i in range(s.ncont):
        if s.sums[i] == top:
            tied[ntied] = s.cont[i]
            ntied += 1
    # remove the old roll-off from the key
    for i in range(s.ncont):
        s.key ^= ZOB[Z_CONT + s.cont[i]] ^ ZOB[Z_RSUM + s.cont[i] * 27 + s.sums[i]]
    if ntied == 1:
        s.rolloff = 0
        s.ncont = 0
        s.nsums = 0
        s.to_move = tied[0]
        s.key ^= ZOB[Z_TOMOVE + tied[0]]
        return
    s.ncont = ntied
    s.nsums = 0
    for j in range(ntied):
        s.cont[j] = tied[j]
        s.key ^= ZOB[Z_CONT + tied[j]]

cdef void push_turn(State *s, uint64_t cm, Undo *u) noexcept nogil:
    cdef int p = s.to_move, i
    u.kind = 0
    u.key = s.key
    u.roll = s.roll
    u.to_move = p
    u.nsteps = turn_len(cm)
    for i in range(u.nsteps):
        u.src[i] = step_src(cm, i)
        u.dst[i] = step_dst(cm, i)
        u.hit[i] = make_step(s, p, u.src[i], u.dst[i])
    end_turn(s)

cdef inline void end_turn(State *s) noexcept nogil:
    cdef int p = s.to_move
    s.key ^= ZOB[Z_ROLL + s.roll] ^ ZOB[Z_TOMOVE + p]
    s.roll = -1
    s.to_move = (p + 1) % s.n
    s.key ^= ZOB[Z_TOMOVE + s.to_move]
    s.plies += 1

cdef int random_steps(State *s, int p, int direction, int *vals, int nvals,
                      uint64_t *rng) noexcept nogil:
    """Steps drawn uniformly from the options (the integer layer's decisions)
    until no unused value of ``vals`` has one or every piece is home; the steps made."""
    cdef int nopt, j, k, made = 0
    cdef int ov[32]
    cdef int osrc[32]
    cdef int odst[32]
    while nvals and s.pos.goal[p] != FULL_GOAL:
        nopt = options(s, p, direction, vals, nvals, ov, osrc, odst)
        if nopt == 0:
            break
        j = <int>brett_rng_below(rng, <uint32_t>nopt)
        make_step(s, p, osrc[j], odst[j])
        for k in range(nvals):
            if vals[k] == ov[j]:
                vals[k] = vals[nvals - 1]
                break
        nvals -= 1
        made += 1
    return made

cdef int decision_turn(State *s, uint64_t *rng) noexcept nogil:
    """Play one turn by uniformly random decisions of the integer layer
    (direction at 15, then one step at a time, or pass); returns the decisions."""
    cdef int p = s.to_move, total = ROLL_SUM[s.roll], direction, decisions
    cdef int vals[3]
    cdef int ov[32]
    cdef int osrc[32]
    cdef int odst[32]
    cdef int dirs[2]
    cdef int ndirs = 0
    vals[0] = ROLL_VALUES[s.roll][0]
    vals[1] = ROLL_VALUES[s.roll][1]
    vals[2] = ROLL_VALUES[s.roll][2]
    if total == 15:
        if options(s, p, CW, vals, 3, ov, osrc, odst):
            dirs[ndirs] = CW
            ndirs += 1
        if options(s, p, CCW, vals, 3, ov, osrc, odst):
            dirs[ndirs] = CCW
            ndirs += 1
        if ndirs == 0:
            end_turn(s)  # pass
            return 1
        direction = dirs[brett_rng_below(rng, <uint32_t>ndirs)]
    else:
        direction = CW if total > 15 else CCW
    decisions = random_steps(s, p, direction, vals, 3, rng)
    if decisions == 0:
        decisions = 1  # the pass action
    elif total == 15:
        decisions += 1  # the direction
    end_turn(s)
    return decisions

cdef void pop_any(State *s, Undo *u) noexcept nogil:
    cdef int i, p
    cdef uint64_t key = u.key
    if u.kind == 1:
        s.roll = u.roll
    elif u.kind == 2:
        s.rolloff = u.rolloff
        s.ncont = u.ncont
        s.nsums = u.nsums
        for i in range(4):
            s.cont[i] = u.cont[i]
            s.sums[i] = u.sums[i]
        s.to_move = u.to_move
    else:
        p = u.to_move
        for i in range(u.nsteps - 1, -1, -1):
            unmake_step(s, p, u.src[i], u.dst[i], u.hit[i], key)
        s.to_move = p
        s.roll = u.roll
        s.plies -= 1
    s.key = key

cdef inline void push_cm(State *s, uint64_t cm, Undo *u) noexcept nogil:
    if cm >= ROLL_FLAG:
        push_roll(s, <int>(cm - ROLL_FLAG), u)
    else:
        push_turn(s, cm, u)


# ------------------------------------------------------------ perft / playouts
cdef Gen *new_gen() noexcept nogil:
    """A fresh generator scratch (about 1 MB), or NULL."""
    cdef Gen *g = <Gen *>malloc(sizeof(Gen))
    if g != NULL:
        memset(g.stamps, 0, sizeof(g.stamps))
        memset(g.mstamps, 0, sizeof(g.mstamps))
        g.stamp = 0
    return g


cdef uint64_t perft(Gen *g, State *s, int depth, bint count_finished,
                    Interrupt *it) noexcept nogil:
    cdef uint64_t total = 0
    cdef int player, r, n, i
    cdef Undo u
    cdef uint64_t *cms
    if depth == 0:
        return 1
    player = player_of(s)
    if player == TERMINAL:
        return 1 if count_finished else 0
    if player == CHANCE:
        # A turn depends on the values rolled, not on which die shows which:
        # the rolls with the same values (at most two) are counted together.
        for r in range(216):
            if ROLL_MULT[r]:
                push_roll(s, r, &u)
                total += <uint64_t>ROLL_MULT[r] * perft(g, s, depth, count_finished, it)
                pop_any(s, &u)
        return total
    if interrupted(it):
        return 0
    n = generate(g, s, 0)
    if depth == 1:
        return <uint64_t>n
    cms = <uint64_t *>malloc(n * sizeof(uint64_t))
    if cms == NULL:
        it.stopped = 1     # out of memory: stop; the caller reports it
        return 0
    for i in range(n):
        cms[i] = g.results[i].cm
    for i in range(n):
        push_turn(s, cms[i], &u)
        total += perft(g, s, depth - 1, count_finished, it)
        pop_any(s, &u)
    free(cms)
    return total


cdef void playouts(Gen *g, State *s, long long n, uint64_t *rng, long long max_plies,
                   bint by_decisions, long long *res, Interrupt *it) noexcept nogil:
    """res = [wins of players 0-3, draws, unfinished, turns or decisions counted];
    ``s`` is restored after every game."""
    cdef State saved = s[0]
    cdef Undo u
    cdef long long game, turns
    cdef int player, w, k
    for game in range(n):
        if interrupted(it):
            return
        turns = 0
        while True:
            player = player_of(s)
            if player == TERMINAL:
                w = winner(s)
                if w >= 0:
                    res[w] += 1
                else:
                    res[4] += 1
                break
            if max_plies >= 0 and turns >= max_plies:
                res[5] += 1
                break
            if player == CHANCE:
                push_roll(s, <int>brett_rng_below(rng, 216), &u)
            elif by_decisions:
                res[6] += decision_turn(s, rng)
                turns += 1
            else:
                k = sorted_moves(g, s)
                push_turn(s, g.results[brett_rng_below(rng, <uint32_t>k)].cm, &u)
                res[6] += 1
                turns += 1
        s[0] = saved


# ------------------------------------------------------------ the search's playouts
# brett.ai searches a turn decision by decision (the integer layer's decisions:
# the direction at 15, each die's piece, the pass).  "turns" is the search of
# whole turns that came before, kept only so that benchmarks/match.py can play
# against it (a private benchmark aid: set it before a search, never during one).
cdef int SEARCH_DECISIONS = 1

# The race value of a position (s_shares): a player's distance is RACE_BASE for
# every piece not home, RACE_OUT more for each piece out, RACE_HOLES times the
# goal's holes (HOLES, explained in the plain twin), plus each piece's way on the
# ring (RACE_DIST); the shares are a softmax of minus the distances / RACE_TEMP.
cdef double RACE_BASE = 8.0
cdef double RACE_OUT = 2.0
cdef double RACE_TEMP = 10.0
cdef double RACE_HOLES = 16.0
cdef double RACE_DIST[4][36]
cdef double HOLES[512]           # [goal bits]: the sum of 1 / (10 - m) over the free fields gm


def set_search_mode(str mode):
    """``"decisions"`` (brett.ai's search) or ``"turns"`` (whole turns a node and
    playouts to the end, as before: a benchmark aid); for searches started later."""
    global SEARCH_DECISIONS
    if mode not in ("decisions", "turns"):
        raise BrettError(f"search mode {mode!r}: expected 'decisions' or 'turns'")
    SEARCH_DECISIONS = mode == "decisions"


def search_mode():
    return "decisions" if SEARCH_DECISIONS else "turns"


def _race_table():
    """RACE_DIST[seat][i]: the way of a piece on tongue index i to its goal:
    in the home quarter (within 9 clockwise steps of the corner) k / 8 for k
    steps, else 1 + the shorter way back into the quarter (the direction of a
    turn is the dice's: clockwise and counter-clockwise equally likely)."""
    cdef int seat, i, k
    for seat in range(4):
        for i in range(36):
            k = TO_CORNER[seat][i]
            RACE_DIST[seat][i] = k / 8.0 if k <= 8 else 1.0 + min(k - 8, 36 - k)


_race_table()


def _holes_table():
    cdef int bits, m
    for bits in range(512):
        HOLES[bits] = sum([1.0 / (9 - m) for m in range(9) if not (bits >> m) & 1])


_holes_table()


def _set_race(double base, double out, double temp, double holes=RACE_HOLES):
    """Tuning aid: the race value's constants (see RACE_BASE)."""
    global RACE_BASE, RACE_OUT, RACE_TEMP, RACE_HOLES
    RACE_BASE = base
    RACE_OUT = out
    RACE_TEMP = temp
    RACE_HOLES = holes


cdef void race_shares(State *s, double *values) noexcept nogil:
    """Each player's race value, 0..1, summing to 1 over the players."""
    cdef double dist[4]
    cdef double x, low = 1e300, total = 0.0
    cdef int p, i, seat
    cdef uint64_t pieces
    for p in range(s.n):
        seat = s.seats[p]
        x = (RACE_BASE * (9 - brett_popcount64(s.pos.goal[p])) + RACE_OUT * s.pos.out[p]
             + RACE_HOLES * HOLES[s.pos.goal[p] & 511])
        pieces = s.occ[p]
        while pieces:
            i = brett_ctz64(pieces)
            pieces &= pieces - 1
            x += s.pos.count[i] * RACE_DIST[seat][i]
        dist[p] = x
        if x < low:
            low = x
    for p in range(s.n):
        dist[p] = exp((low - dist[p]) / RACE_TEMP)
        total += dist[p]
    for p in range(4):
        values[p] = dist[p] / total if p < s.n else 0.0


cdef int search_playout(State *s, int sdir, const int *svals, int snvals, uint64_t *rng,
                        int max_plies, double *values) noexcept nogil:
    """A random game by decisions from ``s`` (changed), the turn being built
    (``sdir`` != 0) finished first, cut at the first roll after ``max_plies``
    turns (the one finished counts; -1: no cut): the winners' bits, or -1 and
    the race ``values`` of the game cut short."""
    cdef int vals[3]
    cdef int turns = 0, w, j
    cdef Undo u
    if sdir:
        for j in range(snvals):
            vals[j] = svals[j]
        random_steps(s, s.to_move, sdir, vals, snvals, rng)
        end_turn(s)
        turns = 1
    while True:
        w = player_of(s)
        if w == TERMINAL:
            w = winner(s)
            return 1 << w if w >= 0 else 0
        if w == CHANCE:
            if 0 <= max_plies <= turns and not s.rolloff:
                race_shares(s, values)
                return -1
            push_roll(s, <int>brett_rng_below(rng, 216), &u)
        else:
            decision_turn(s, rng)
            turns += 1


cdef uint64_t compute_key(State *s) noexcept nogil:
    cdef uint64_t key = 0
    cdef int i, p, m
    for i in range(36):
        if s.pos.count[i]:
            key ^= ZOB[Z_TONGUE + (s.pos.owner[i] * 36 + i) * 10 + s.pos.count[i]]
    for p in range(s.n):
        for m in range(9):
            if (s.pos.goal[p] >> m) & 1:
                key ^= ZOB[Z_GOAL + p * 9 + m]
        if s.pos.out[p]:
            key ^= ZOB[Z_OUT + p * 10 + s.pos.out[p]]
    if s.to_move >= 0:
        key ^= ZOB[Z_TOMOVE + s.to_move]
    if s.roll >= 0:
        key ^= ZOB[Z_ROLL + s.roll]
    if s.rolloff:
        for i in range(s.ncont):
            key ^= ZOB[Z_CONT + s.cont[i]]
        for i in range(s.nsums):
            key ^= ZOB[Z_RSUM + s.cont[i] * 27 + s.sums[i]]
    return key


cdef int decisions(State *s, int player, int direction, int *vals, int nvals,
                   int64_t *out) noexcept nogil:
    """The integer layer's decisions for ``player`` (to move, not chance), ascending:
    with a turn pending (``direction`` != 0, the unused ``vals``) one step per
    (value, source), which exist while the turn is pending; at the start of a turn,
    after the roll, the directions at 15, else the steps, or the pass.  At most 29."""
    cdef int n = 0, j, total
    cdef int roll_vals[3]
    cdef int ov[32]
    cdef int osrc[32]
    cdef int odst[32]
    if direction:
        n = options(s, player, direction, vals, nvals, ov, osrc, odst)
    else:
        total = ROLL_SUM[s.roll]
        for j in range(3):
            roll_vals[j] = ROLL_VALUES[s.roll][j]
        if total == 15:
            if any_step(s, player, CW, roll_vals, 3):
                out[n] = ACTION_CW
                n += 1
            if any_step(s, player, CCW, roll_vals, 3):
                out[n] = ACTION_CCW
                n += 1
            if n == 0:
                out[0] = ACTION_PASS
                n = 1
            return n
        n = options(s, player, CW if total > 15 else CCW, roll_vals, 3, ov, osrc, odst)
        if n == 0:
            out[0] = ACTION_PASS
            return 1
    for j in range(n):  # by value, then source: ascending actions
        out[j] = (ov[j] - 1) * 37 + osrc[j]
    return n


@cython.auto_pickle(False)
cdef class SchuftCore(CoreBase):
    """The Cython core of Schuft (see the module docstring)."""

    def __cinit__(self, *args, **kwargs):
        self.gen = NULL     # made on first use: see _scratch
        self.undo = NULL
        self.capundo = 0
        self.nundo = 0
        self._reserve(8)   # grows by doubling: a task of perft_tasks stays small
        memset(&self.s, 0, sizeof(State))
        self.s.n = 2
        self.s.seats[1] = 2
        self.s.roll = -1
        self.s.cap = -1

    def __dealloc__(self):
        free(self.gen)
        free(self.undo)

    cdef Gen *_scratch(self) noexcept nogil:
        """The generator scratch of the GIL-holding calls (about 1 MB), made on
        first use: a copy that never lists moves, such as each of the 100,000 tasks
        perft_tasks may make, needs none.  NULL if it cannot be made."""
        if self.gen == NULL:
            self.gen = new_gen()
        return self.gen

    cdef Gen *_need_scratch(self) except NULL:
        if self._scratch() == NULL:
            raise MemoryError()
        return self.gen

    cdef int _reserve(self, Py_ssize_t need) except -1:
        if need > self.capundo:
            self.undo = <Undo *>grow_array(self.undo, &self.capundo, need, sizeof(Undo), 64)
        return 0

    # ---- state
    def set_state(self, state):
        cdef State s
        cdef int i
        (n, owners, counts, goals, outs, to_move, roll, plies, cap, rolloff) = state
        if n not in (2, 3, 4) or len(owners) != 36 or len(counts) != 36:
            raise ValueError(f"bad schuft state {state!r}")
        memset(&s, 0, sizeof(State))
        s.n = n
        seats = {2: (0, 2), 3: (0, 1, 2), 4: (0, 1, 2, 3)}[n]
        for i in range(n):
            s.seats[i] = seats[i]
        for i in range(36):
            if not -1 <= owners[i] < n or not 0 <= counts[i] <= 9:
                raise ValueError(f"bad schuft state {state!r}")
            s.pos.owner[i] = owners[i]
            s.pos.count[i] = counts[i]
            if counts[i] >= 3:
                s.tall |= (<uint64_t>1) << i
            if counts[i]:
                s.occ[owners[i]] |= (<uint64_t>1) << i
        for i in range(n):
            s.pos.goal[i] = goals[i]
            s.pos.out[i] = outs[i]
        s.to_move = to_move
        s.roll = roll
        s.plies = plies
        s.cap = cap
        if rolloff is not None:
            s.rolloff = 1
            s.ncont = len(rolloff[0])
            for i in range(s.ncont):
                s.cont[i] = rolloff[0][i]
            s.nsums = len(rolloff[1])
            for i in range(s.nsums):
                s.sums[i] = rolloff[1][i]
        s.key = compute_key(&s)
        self.claim()
        self.s = s
        self.nundo = 0
        self.vnpend = 0
        self.sdir = 0
        self.entries = []

    def get_state(self):
        cdef State *s = &self.s
        rolloff = None
        if s.rolloff:
            rolloff = (tuple([s.cont[i] for i in range(s.ncont)]),
                       tuple([s.sums[i] for i in range(s.nsums)]))
        return (s.n, tuple([s.pos.owner[i] for i in range(36)]),
                tuple([s.pos.count[i] for i in range(36)]),
                tuple([s.pos.goal[i] for i in range(s.n)]),
                tuple([s.pos.out[i] for i in range(s.n)]),
                s.to_move, s.roll, s.plies, s.cap, rolloff)

    def clone(self, bint history):
        cdef SchuftCore new = type(self).__new__(type(self))
        new.s = self.s
        if history:
            new._reserve(self.nundo + 1)
            memcpy(new.undo, self.undo, self.nundo * sizeof(Undo))
            new.nundo = self.nundo
            new.entries = list(self.entries)
        return new

    def key(self):
        return self.s.key

    def roll(self):
        """The pending roll's index, -1 at a chance node."""
        return self.s.roll

    def to_move(self):
        """The player whose turn it is (-1 during the roll-off)."""
        return self.s.to_move

    def step_value(self, int direction, int src, int dst):
        """The die value the player to move (player 0 during the roll-off) uses
        for the step ``src`` → ``dst`` in ``direction``, or 0 if none fits."""
        if direction != CW and direction != CCW or not (0 <= src <= 36 and 1 <= dst <= 45):
            return 0
        return step_value(&self.s, max(self.s.to_move, 0), direction, src, dst)

    def player(self):
        return player_of(&self.s)

    # ---- moves
    def moves(self):
        cdef int n, i
        if player_of(&self.s) < 0:
            return []
        n = sorted_moves(self._need_scratch(), &self.s)
        return [self.gen.results[i].cm for i in range(n)]

    def iter_moves(self):
        return iter(self.moves())

    def count(self, long long limit=-1):
        if player_of(&self.s) < 0:
            return 0
        return capped(generate(self._need_scratch(), &self.s, 0), limit)

    def chance_moves(self):
        if player_of(&self.s) != CHANCE:
            return []
        return [(DEF_ROLL_FLAG | r, 1 / 216) for r in range(216)]

    def random_move(self, uint64_t rng):
        """The move a playout would draw from the splitmix64 state ``rng``."""
        cdef int player = player_of(&self.s), k
        if player == CHANCE:
            return DEF_ROLL_FLAG | <int>brett_rng_below(&rng, 216), rng
        if player == TERMINAL:
            return None, rng
        k = sorted_moves(self._need_scratch(), &self.s)
        return self.gen.results[brett_rng_below(&rng, <uint32_t>k)].cm, rng

    cdef int _play_checked(self, uint64_t cm, Undo *u, int *vals, int *nvals) noexcept:
        """Play the steps of cm, each checked; returns the steps made or -1
        (then nothing is left made)."""
        cdef State *s = &self.s
        cdef int p = s.to_move, direction = <int>(cm & 3), total = ROLL_SUM[s.roll]
        cdef int i, j, d = 0, n, found
        cdef int src[16]
        cdef int dst[16]
        if direction == 0 or direction == 3 or (direction == CW and total < 15) \
                or (direction == CCW and total > 15):
            return -1
        nvals[0] = 3
        for i in range(3):
            vals[i] = ROLL_VALUES[s.roll][i]
        u.key = s.key
        u.nsteps = 0
        for i in range(turn_len(cm)):
            found = 0
            if s.pos.goal[p] != FULL_GOAL:
                d = step_value(s, p, direction, step_src(cm, i), step_dst(cm, i))
                for j in range(nvals[0]):
                    if vals[j] == d and d:
                        found = 1
                        vals[j] = vals[nvals[0] - 1]
                        nvals[0] -= 1
                        break
            if found:
                found = 0
                n = steps_for(s, p, direction, d, src, dst)
                for j in range(n):
                    if src[j] == step_src(cm, i) and dst[j] == step_dst(cm, i):
                        found = 1
            if not found:
                for j in range(u.nsteps - 1, -1, -1):
                    unmake_step(s, p, u.src[j], u.dst[j], u.hit[j], u.key)
                s.key = u.key
                return -1
            u.src[i] = step_src(cm, i)
            u.dst[i] = step_dst(cm, i)
            u.hit[i] = make_step(s, p, u.src[i], u.dst[i])
            u.nsteps = i + 1
        return u.nsteps

    cdef void _unplay(self, Undo *u) noexcept:
        cdef int j
        for j in range(u.nsteps - 1, -1, -1):
            unmake_step(&self.s, self.s.to_move, u.src[j], u.dst[j], u.hit[j], u.key)
        self.s.key = u.key

    cdef int _turn_legal(self, uint64_t cm) noexcept:
        """1 if the step list ``cm`` is a whole legal turn here (any order)."""
        cdef Undo u
        cdef int vals[3]
        cdef int nvals = 0, nopt = 0, n
        cdef int ov[32]
        cdef int osrc[32]
        cdef int odst[32]
        if player_of(&self.s) < 0 or cm >= ROLL_FLAG:
            return 0
        if cm == 0:   # the callers made the scratch for a pass
            n = generate(self.gen, &self.s, 0)
            return n == 1 and self.gen.results[0].cm == 0
        if turn_len(cm) == 0 or self._play_checked(cm, &u, vals, &nvals) < 0:
            return 0
        if self.s.pos.goal[self.s.to_move] != FULL_GOAL:
            nopt = options(&self.s, self.s.to_move, <int>(cm & 3), vals, nvals, ov, osrc, odst)
        self._unplay(&u)
        return nopt == 0

    def step_options(self, cm_obj, bint ahead=False):
        """Play the steps of ``cm`` in order (each checked); the legal next
        steps (value, src, dst) sorted by (value, src); None if a step is not legal.
        With ``ahead``, (value, src, dst, more): whether the turn goes on after it."""
        cdef uint64_t cm
        cdef Undo u
        cdef int vals[3]
        cdef int nvals = 0, nopt = 0, j
        cdef int ov[32]
        cdef int osrc[32]
        cdef int odst[32]
        cdef int more[32]
        if type(cm_obj) is not int or player_of(&self.s) < 0 or not 0 <= cm_obj < DEF_ROLL_FLAG:
            return None
        cm = cm_obj
        if self._play_checked(cm, &u, vals, &nvals) < 0:
            return None
        if self.s.pos.goal[self.s.to_move] != FULL_GOAL:
            nopt = options(&self.s, self.s.to_move, <int>(cm & 3), vals, nvals, ov, osrc, odst)
            if ahead:
                for j in range(nopt):
                    more[j] = goes_on(&self.s, self.s.to_move, <int>(cm & 3), vals, nvals,
                                      ov[j], osrc[j], odst[j])
        self._unplay(&u)
        if ahead:
            return [(ov[j], osrc[j], odst[j], more[j] != 0) for j in range(nopt)]
        return [(ov[j], osrc[j], odst[j]) for j in range(nopt)]

    def canonical(self, cm_obj):
        """The representative of a legal turn (any step order), or -1."""
        cdef uint64_t cm, key
        cdef Undo u
        cdef int vals[3]
        cdef int nvals = 0, j, n
        cdef Pos target
        if type(cm_obj) is not int or not 0 <= cm_obj < DEF_ROLL_FLAG:
            return -1
        cm = cm_obj
        self._need_scratch()
        if not self._turn_legal(cm):
            return -1
        n = generate(self.gen, &self.s, 1)
        if cm == 0:
            return 0
        self._play_checked(cm, &u, vals, &nvals)
        memcpy(&target, &self.s.pos, sizeof(Pos))
        key = self.s.key
        self._unplay(&u)
        for j in range(n):
            if self.gen.results[j].key == key and \
                    memcmp(&self.gen.results[j].pos, &target, sizeof(Pos)) == 0:
                return self.gen.results[j].cm
        return -1

    def is_legal(self, cm_obj):
        if type(cm_obj) is not int or cm_obj < 0:
            return False
        if cm_obj >= DEF_ROLL_FLAG:
            return player_of(&self.s) == CHANCE and 0 <= cm_obj - DEF_ROLL_FLAG < 216
        if cm_obj == 0:
            self._need_scratch()   # a pass is legal if it is the only move
        return bool(self._turn_legal(cm_obj))

    def push(self, cm_obj, entry):
        cdef uint64_t cm
        self.claim()
        if not self.is_legal(cm_obj):
            return False
        cm = cm_obj
        if self.nundo == self.capundo:
            self._reserve(self.nundo + 1)
        push_cm(&self.s, cm, &self.undo[self.nundo])
        self.nundo += 1
        self.vnpend = 0  # a half-played turn of the integer layer in C ends with it
        self.entries.append(entry)
        return True

    def pop(self):
        self.claim()
        if self.nundo == 0:
            raise IndexError("pop from an empty move stack")
        self.nundo -= 1
        pop_any(&self.s, &self.undo[self.nundo])
        self.vnpend = 0
        return self.entries.pop()

    # ---- search: on copies, without the GIL
    def perft(self, int depth, bint count_finished):
        cdef uint64_t total
        cdef State s = self.s
        cdef Gen *g
        cdef Interrupt it
        if s.rolloff:
            raise BrettError("perft is not defined during the opening roll-off "
                             "(tied players re-roll without bound)")
        if depth < 0:
            raise ValueError("depth must be >= 0")
        g = new_gen()
        if g == NULL:
            raise MemoryError()
        interrupt_init(&it, 1 << 6)
        with nogil:
            total = perft(g, &s, depth, count_finished, &it)
        free(g)
        raise_if_stopped(&it)
        if it.stopped:
            raise MemoryError()
        return total

    def decision_playouts(self, long long n, uint64_t seed, long long max_plies):
        """Like ``playouts``, but every turn is played by random decisions of the
        integer layer; the plies counted are decisions, not turns."""
        return self._playouts(n, seed, max_plies, True)

    def playouts(self, long long n, uint64_t seed, long long max_plies):
        return self._playouts(n, seed, max_plies, False)

    def _playouts(self, long long n, uint64_t seed, long long max_plies, bint by_decisions):
        cdef uint64_t rng = seed
        cdef long long res[7]
        cdef State s = self.s
        cdef Gen *g
        cdef Interrupt it
        if n < 0:
            raise ValueError("n must be >= 0")
        g = new_gen()
        if g == NULL:
            raise MemoryError()
        memset(res, 0, sizeof(res))
        interrupt_init(&it, 1 << 2)
        with nogil:
            playouts(g, &s, n, &rng, max_plies, by_decisions, res, &it)
        free(g)
        raise_if_stopped(&it)
        return [res[i] for i in range(s.n)], res[4], res[5], res[6], rng

    # ---- the search protocol (brett.ai's tree search, see _common.pxd), on a
    # private clone without the GIL.  A search action is a decision of the integer
    # layer (schuft.py: the direction at a roll of 15, (value - 1) * 37 + source for
    # one die's piece, or the pass; 0..335) at a decision node, ROLL_FLAG | r at a
    # chance node.  The steps of the turn being built are made on ``s`` itself
    # (``sdir``, ``svals``: its direction and unused values); the undo records
    # (shared with push/pop) keep a step, and the turn's state before it.  In the
    # benchmark's "turns" mode a search action is a whole turn's representative
    # (the order of moves()), the search as it was before.  The clone's own ``gen``
    # (allocated by __cinit__, with the GIL) is the scratch of the turn generation.
    cdef int s_max_actions(self) noexcept nogil:
        # generate() never lists more than MAX_RESULTS turns (record() stops
        # there; TABLE_SIZE explains why no turn list comes near), and a chance
        # node has 216 outcomes.
        return MAX_RESULTS if MAX_RESULTS > 216 else 216

    cdef int s_player(self) noexcept nogil:
        return player_of(&self.s)

    cdef bint s_pending(self) noexcept nogil:
        return self.sdir != 0

    cdef int s_actions(self, int64_t *out) noexcept nogil:
        """The decisions of legal_actions(), in its order (turns mode: moves())."""
        cdef State *s = &self.s
        cdef int player = player_of(s), n, j
        if player < 0:
            return 0
        if not SEARCH_DECISIONS:
            if self._scratch() == NULL:
                return 0   # the turns mode is a benchmark aid
            n = sorted_moves(self.gen, s)
            for j in range(n):
                out[j] = <int64_t>self.gen.results[j].cm
            return n
        return decisions(s, player, self.sdir, self.svals, self.snvals, out)

    cdef int s_chance(self, int64_t *out, double *prob) noexcept nogil:
        """The 216 rolls of chance_moves() (also during the roll-off)."""
        cdef int r
        if player_of(&self.s) != CHANCE:
            return 0
        for r in range(216):
            out[r] = <int64_t>(ROLL_FLAG | <uint64_t>r)
            prob[r] = 1.0 / 216
        return 216

    cdef int s_do(self, int64_t action) except -1 nogil:
        """Make a search action (legal here) on a new undo record, which also keeps
        the turn being built as it was."""
        cdef State *s = &self.s
        cdef Undo *u
        cdef int p, total, direction, value, src, j, k, n, nvals
        cdef int vals[3]
        cdef int srcs[16]
        cdef int dsts[16]
        if self.nundo >= self.capundo:
            with gil:
                self._reserve(self.nundo + 1)
        u = &self.undo[self.nundo]
        u.sdir = self.sdir
        u.snvals = self.snvals
        for j in range(3):
            u.svals[j] = self.svals[j]
        if action < 0 or <uint64_t>action >= ROLL_FLAG or not SEARCH_DECISIONS:
            push_cm(s, <uint64_t>action, u)  # a roll, or a whole turn (turns mode)
            self.nundo += 1
            return 0
        p = s.to_move
        total = ROLL_SUM[s.roll]
        for j in range(3):
            vals[j] = ROLL_VALUES[s.roll][j]
        if action == ACTION_PASS:
            if self.sdir or (total >= 15 and any_step(s, p, CW, vals, 3)) \
                    or (total <= 15 and any_step(s, p, CCW, vals, 3)):
                with gil:
                    raise ValueError("schuft search action pass: a step is legal")
            push_turn(s, 0, u)
            self.nundo += 1
            return 0
        if action == ACTION_CW or action == ACTION_CCW:
            direction = CW if action == ACTION_CW else CCW
            if self.sdir or total != 15 or not any_step(s, p, direction, vals, 3):
                with gil:
                    raise ValueError(f"schuft search action {action}: no direction to choose")
            u.kind = 3
            u.key = s.key
            self.sdir = CW if action == ACTION_CW else CCW
            self.snvals = 3
            for j in range(3):
                self.svals[j] = ROLL_VALUES[s.roll][j]
            self.nundo += 1
            return 0
        if self.sdir:
            direction = self.sdir
            nvals = self.snvals
            for j in range(3):
                vals[j] = self.svals[j]
        else:
            direction = CW if total > 15 else CCW
            nvals = 3
        value = <int>(action // 37) + 1
        src = <int>(action % 37)
        k = 0
        while k < nvals and vals[k] != value:
            k += 1
        n = steps_for(s, p, direction, value, srcs, dsts) if k < nvals and action < ACTION_CW \
            and (self.sdir or total != 15) else 0
        j = 0
        while j < n and srcs[j] != src:
            j += 1
        if j == n:
            with gil:
                raise ValueError(f"schuft search action {action} is not legal here")
        u.key = s.key
        u.roll = s.roll
        u.to_move = p
        u.nsteps = 1
        u.src[0] = src
        u.dst[0] = dsts[j]
        u.hit[0] = make_step(s, p, src, dsts[j])
        nvals -= 1
        vals[k] = vals[nvals]
        if nvals and s.pos.goal[p] != FULL_GOAL and any_step(s, p, direction, vals, nvals):
            u.kind = 4
            self.sdir = direction
            self.snvals = nvals
            for j in range(nvals):
                self.svals[j] = vals[j]
        else:  # no value has a step left (or every piece is home): the turn is made
            u.kind = 5
            self.sdir = 0
            self.snvals = 0
            end_turn(s)
        self.nundo += 1
        return 0

    cdef void s_undo(self) noexcept nogil:
        cdef Undo *u
        cdef State *s = &self.s
        cdef int j
        if self.nundo == 0:
            return
        self.nundo -= 1
        u = &self.undo[self.nundo]
        if u.kind < 3:
            pop_any(s, u)
        elif u.kind > 3:
            if u.kind == 5:
                s.to_move = u.to_move
                s.roll = u.roll
                s.plies -= 1
            unmake_step(s, u.to_move, u.src[0], u.dst[0], u.hit[0], u.key)
        self.sdir = u.sdir
        self.snvals = u.snvals
        for j in range(3):
            self.svals[j] = u.svals[j]

    cdef int s_winners(self) noexcept nogil:
        cdef int w = winner(&self.s)
        return 1 << w if w >= 0 else 0

    cdef int s_playout(self, uint64_t *rng, int max_plies) noexcept nogil:
        """A random game by decisions on a copy of the state, cut after
        ``max_plies`` turns and valued by the race (-1, s_shares); turns mode:
        playouts(1, rng[0], max_plies) of whole turns, as before."""
        cdef State s = self.s
        cdef long long res[7]
        cdef Interrupt it
        cdef int p, mask = 0
        if SEARCH_DECISIONS:
            return search_playout(&s, self.sdir, self.svals, self.snvals, rng, max_plies,
                                  self.cut)
        memset(res, 0, sizeof(res))
        # one game polls interrupted() once: a countdown that high never reaches
        # the signal check (which would take the GIL)
        interrupt_init(&it, 0xFFFFFFFF)
        if self._scratch() == NULL:
            return 0
        playouts(self.gen, &s, 1, rng, max_plies, False, res, &it)
        for p in range(4):
            if res[p]:
                mask |= 1 << p
        return mask

    cdef void s_shares(self, double *values) noexcept nogil:
        cdef int p
        for p in range(4):
            values[p] = self.cut[p]

    # ---- the integer layer in C (brett.vector.VectorEnv, see _common.pxd), on a
    # private core without the GIL: the decisions of schuft.py's integer layer
    # (direction at a roll of 15, one step per die value, or pass), played as
    # Schuft._step_options decides them.  ``s`` stays the position before a
    # half-played turn; its steps are made on ``vshown`` (what the observation
    # shows), and the last decision copies it back and ends the turn: the same
    # position as pushing the turn's representative, without an undo record.
    cdef bint v_supported(self) noexcept nogil:
        return 1

    cdef void v_reset(self, CoreBase start) noexcept nogil:
        self.s = (<SchuftCore>start).s
        self.nundo = 0
        self.vnpend = 0
        self.sdir = 0

    cdef int v_player(self) noexcept nogil:
        # while a turn is half played nobody has won (its last step would end it)
        return player_of(&self.s)

    cdef int v_mask(self, uint8_t *mask) noexcept nogil:
        cdef State *s = &self.s
        cdef int player = player_of(s), n, j
        cdef int64_t acts[32]
        memset(mask, 0, NUM_ACTIONS)
        if player == TERMINAL:
            return 0
        if player == CHANCE:
            memset(mask, 1, 216)
            return 216
        if self.vnpend:
            n = decisions(&self.vshown, player, self.vdir, self.vvals, self.vnvals, acts)
        else:
            n = decisions(s, player, 0, NULL, 0, acts)
        for j in range(n):
            mask[acts[j]] = 1
        return n

    cdef int v_chance(self, int64_t *actions, double *probs) noexcept nogil:
        cdef int r
        if player_of(&self.s) != CHANCE:
            return 0
        for r in range(216):
            actions[r] = r
            probs[r] = 1.0 / 216
        return 216

    cdef int v_apply(self, int64_t action) noexcept nogil:
        cdef State *s = &self.s
        cdef State *at
        cdef Undo u
        cdef int player = player_of(s), total, direction, value, src, j, k, n, nvals, a
        cdef int vals[3]
        cdef int srcs[16]
        cdef int dsts[16]
        if player == TERMINAL or action < 0:
            return -1
        if player == CHANCE:
            if action >= 216:
                return -1
            push_roll(s, <int>action, &u)  # u is not kept: rolls are never undone here
            return 0
        if action >= NUM_ACTIONS:
            return -1
        a = <int>action
        if self.vnpend:
            if a >= ACTION_CW:
                return -1
            at = &self.vshown
            direction = self.vdir
            nvals = self.vnvals
            for j in range(3):
                vals[j] = self.vvals[j]
        else:
            at = s
            total = ROLL_SUM[s.roll]
            nvals = 3
            for j in range(3):
                vals[j] = ROLL_VALUES[s.roll][j]
            if a == ACTION_PASS:
                if total == 15:
                    if any_step(s, player, CW, vals, 3) or any_step(s, player, CCW, vals, 3):
                        return -1
                elif any_step(s, player, CW if total > 15 else CCW, vals, 3):
                    return -1
                end_turn(s)
                return 0
            if a >= ACTION_CW:
                direction = CW if a == ACTION_CW else CCW
                if total != 15 or not any_step(s, player, direction, vals, 3):
                    return -1
                self._v_begin(direction, vals)
                self.vpend[0] = a
                self.vnpend = 1
                return 0
            if total == 15:
                return -1  # the direction comes first
            direction = CW if total > 15 else CCW
        value = a // 37 + 1
        src = a % 37
        for k in range(nvals):
            if vals[k] == value:
                break
        else:
            return -1
        n = steps_for(at, player, direction, value, srcs, dsts)
        for j in range(n):
            if srcs[j] == src:
                break
        else:
            return -1
        if not self.vnpend:
            self._v_begin(direction, vals)
        make_step(&self.vshown, player, src, dsts[j])
        self.vnvals -= 1
        self.vvals[k] = self.vvals[self.vnvals]
        if self.vnvals and any_step(&self.vshown, player, direction, self.vvals, self.vnvals):
            self.vpend[self.vnpend] = a
            self.vnpend += 1
            return 0
        # no value has a step left (or every piece is home): the turn is made
        self.s = self.vshown
        end_turn(s)
        self.vnpend = 0
        return 0

    cdef void _v_begin(self, int direction, const int *vals) noexcept nogil:
        """Start a half-played turn on a copy of the position."""
        self.vshown = self.s
        self.vdir = direction
        self.vnvals = 3
        self.vvals[0] = vals[0]
        self.vvals[1] = vals[1]
        self.vvals[2] = vals[2]

    cdef void v_observe(self, float *obs) noexcept nogil:
        cdef State *s = &self.vshown if self.vnpend else &self.s
        cdef int p, i, m, k = 0
        for p in range(s.n):
            for i in range(36):
                obs[k + i] = s.pos.count[i] if s.pos.owner[i] == p else 0.0
            k += 36
            for m in range(9):
                obs[k + m] = (s.pos.goal[p] >> m) & 1
            k += 9
            obs[k] = s.pos.out[p]
            k += 1
        for p in range(4):
            obs[k + p] = 1.0 if s.to_move == p else 0.0
        k += 4
        for i in range(3):
            obs[k + i] = ROLL_OBS[s.roll][i] if s.roll >= 0 else 0.0

    cdef void v_returns(self, double *out) noexcept nogil:
        cdef int w = winner(&self.s), p
        for p in range(self.s.n):
            out[p] = 0.0 if w < 0 else 1.0 if p == w else -1.0
