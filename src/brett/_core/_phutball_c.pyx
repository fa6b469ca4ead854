# cython: language_level=3
"""Phutball core in Cython: the compiled twin of ``_phutball_py.py``.

Same method names, core moves, canonical order, Zobrist keys and playouts as
the plain-Python twin (read its docstring for the conventions).  Inside, the
board is a padded mailbox: ``(rows + 4) × (columns + 2)`` bytes, one sentinel
column on each side and two rows below and above the board.  Rows 0 and
``rows + 1`` within the columns are ``BEYOND`` (an empty landing point that ends
the move), every other padding cell is ``OFF``.  A jump scans along a direction
offset until it leaves the run of men, so no bounds test is needed: the scan
always stops on a non-man cell inside the array.

The ball's cell holds ``EMPTY`` (the ball is tracked by its index), so a chain
may cross or return to the point it started from.  Jump enumeration is a
depth-first search that removes the jumped men in place and restores them on
the way back; perft counts placements arithmetically (``empty points``) and
enumerates only jump paths at the last ply.

The state is split in two structs: ``Geo`` (the board's shape, fixed) and
``Pos`` (men, ball, side, plies, key).  Every search, count and move iterator
works on its own copies, so one core can be searched from several threads.
"""

cimport cython
from cpython.object cimport PyObject
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

from ._common cimport (
    grow_array,
    TERMINAL_PLAYER,
    CoreBase,
    Interrupt,
    brett_rng_below,
    interrupt_init,
    interrupted,
    raise_if_stopped,
)

from ._phutball_py import MAX_CELLS as _PY_MAX_CELLS
from ._phutball_py import ZOBRIST as _PY_ZOBRIST


cdef enum:
    EMPTY = 0
    MAN = 1
    OFF = 2
    BEYOND = 3
    RUNNING = 0
    TOP_WINS = 1
    BOTTOM_WINS = 2
    CAP_DRAW = 3
    NO_MOVE = 4
    # search actions (see the search protocol below): a jump is -1 - direction
    S_STOP = -9
    # tags of the search undo records (on top of each record)
    REC_PLACE = -1               # [padded cell, REC_PLACE]
    REC_STOP = -2                # [jumps of the move, REC_STOP]
    REC_JUMP = -3                # [jumped men..., their count, old ball, jumps before, REC_JUMP]

cdef uint64_t NO_CAP = 0xFFFFFFFFFFFFFFFF   # count_paths: count every path
cdef uint64_t BYTE_ONES = 0x0101010101010101  # v_mask: eight bytes XOR 1
cdef float MAN_FLOAT[4]                        # v_observe: a point's byte -> its man plane
MAN_FLOAT[:] = [0.0, 1.0, 0.0, 0.0]

assert _PY_MAX_CELLS == PH_MAXCELLS

cdef uint64_t ZOB[2 * PH_MAXCELLS + 1]
cdef uint64_t SIDE_KEY
cdef int _i
for _i in range(2 * PH_MAXCELLS + 1):
    ZOB[_i] = _PY_ZOBRIST[_i]
SIDE_KEY = ZOB[2 * PH_MAXCELLS]


# ------------------------------------------------------------------ geometry
@cython.cdivision(True)
cdef void make_geo(Geo *g, int cols, int rows, uint8_t *board) noexcept nogil:
    """Fill ``g`` for a cols x rows board and ``board`` with the empty mailbox."""
    cdef int W = cols + 2, r, c, m
    g.cols = cols
    g.rows = rows
    g.W = W
    g.ncells = (rows + 2) * cols
    g.npoints = rows * cols
    g.off[0] = W
    g.off[1] = W + 1
    g.off[2] = 1
    g.off[3] = -W + 1
    g.off[4] = -W
    g.off[5] = -W - 1
    g.off[6] = -1
    g.off[7] = W - 1
    for m in range(PH_PADMAX):
        board[m] = OFF
        g.cell_of[m] = -1
        g.zman[m] = 0
        g.zball[m] = 0
    for r in range(rows + 2):
        for c in range(cols):
            m = (r + 1) * W + c + 1
            g.cell_of[m] = r * cols + c
            g.pad_of[r * cols + c] = m
            g.zman[m] = ZOB[r * cols + c]
            g.zball[m] = ZOB[PH_MAXCELLS + r * cols + c]
            board[m] = BEYOND if (r == 0 or r == rows + 1) else EMPTY
    g.first = 2 * W
    g.last = (rows + 2) * W - 1
    g.top_start = (rows + 1) * W
    g.row2_start = 3 * W


# ------------------------------------------------------------------ rules on (Geo, Pos)
cdef inline int jump_over(const Geo *g, Pos *p, int d, int land, int *removed) noexcept nogil:
    """The ball jumps in direction ``d`` to ``land`` (a target()): the men it
    passes are removed (their cells written to ``removed`` unless NULL), the
    count and the key follow.  The number of men removed."""
    cdef int o = g.off[d], t = p.ball + o, k = 0
    while t != land:
        p.board[t] = EMPTY
        p.key ^= g.zman[t]
        if removed != NULL:
            removed[k] = t
        k += 1
        t += o
    p.nmen -= k
    p.key ^= g.zball[p.ball] ^ g.zball[land]
    p.ball = land
    return k


cdef inline int target(const Geo *g, const uint8_t *board, int here, int d) noexcept nogil:
    """Landing cell of a jump from ``here`` in direction ``d``, or -1."""
    cdef int o = g.off[d]
    cdef int s = here + o
    if board[s] != MAN:
        return -1
    s += o
    while board[s] == MAN:
        s += o
    if board[s] == OFF:
        return -1
    return s


cdef inline void set_run(const Geo *g, uint8_t *board, int here, int land, int d,
                         uint8_t what) noexcept nogil:
    cdef int o = g.off[d]
    cdef int t = here + o
    while t != land:
        board[t] = what
        t += o


cdef inline int empties(const Geo *g, const Pos *p) noexcept nogil:
    if p.board[p.ball] == BEYOND:
        return g.npoints - p.nmen
    return g.npoints - p.nmen - 1


cdef int has_jump(const Geo *g, const Pos *p) noexcept nogil:
    cdef int d
    for d in range(8):
        if target(g, p.board, p.ball, d) >= 0:
            return 1
    return 0


cdef inline int status(const Geo *g, const Pos *p) noexcept nogil:
    if p.ball >= g.top_start:
        return TOP_WINS
    if p.ball < g.row2_start:
        return BOTTOM_WINS
    if 0 <= p.cap <= p.ply:
        return CAP_DRAW
    if g.npoints - p.nmen - 1 == 0 and not has_jump(g, p):
        return NO_MOVE
    return RUNNING


cdef inline int jump_dirs(const Geo *g, const uint8_t *board, int here,
                          int *dirs) noexcept nogil:
    """The directions (ascending) in which the ball on ``here`` can jump."""
    cdef int d, n = 0
    for d in range(8):
        if target(g, board, here, d) >= 0:
            dirs[n] = d
            n += 1
    return n


cdef int direction_to(const Geo *g, const uint8_t *board, int here, int land) noexcept nogil:
    cdef int d
    for d in range(8):
        if target(g, board, here, d) == land:
            return d
    return -1


cdef uint64_t count_paths(const Geo *g, uint8_t *board, int here, uint64_t cap,
                          Interrupt *it) noexcept nogil:
    """The number of jump paths from ``here`` (DFS, men removed and restored),
    or once ``cap`` or more are found, some number >= ``cap`` (NO_CAP: no cap)."""
    cdef uint64_t total = 0
    cdef int d, o, s
    cdef uint8_t c
    for d in range(8):
        o = g.off[d]
        s = here + o
        if board[s] != MAN:
            continue
        s += o
        while board[s] == MAN:
            s += o
        c = board[s]
        if c == OFF:
            continue
        total += 1
        if c == BEYOND:
            continue
        # checked only where a path goes on: there may be millions of paths
        if total >= cap or interrupted(it):
            return total
        set_run(g, board, here, s, d, EMPTY)
        total += count_paths(g, board, s, cap - total, it)
        set_run(g, board, here, s, d, MAN)
    return total


cdef uint64_t perft(const Geo *g, Pos *p, int depth, bint cf, Interrupt *it) noexcept nogil:
    cdef uint64_t total = 0
    cdef int m
    if status(g, p) != RUNNING:
        return <uint64_t>cf
    if depth == 1:
        return <uint64_t>empties(g, p) + count_paths(g, p.board, p.ball, NO_CAP, it)
    if interrupted(it):
        return 0
    p.side ^= 1
    p.ply += 1
    p.nmen += 1
    for m in range(g.first, g.last + 1):
        if p.board[m] == EMPTY and m != p.ball:
            p.board[m] = MAN
            total += perft(g, p, depth - 1, cf, it)
            p.board[m] = EMPTY
    p.nmen -= 1
    p.ply -= 1
    p.side ^= 1
    total += perft_paths(g, p, p.ball, depth, cf, it)
    return total


cdef uint64_t perft_paths(const Geo *g, Pos *p, int here, int depth, bint cf,
                          Interrupt *it) noexcept nogil:
    """perft(depth - 1) after every jump path from ``here``, made in place."""
    cdef uint64_t total = 0
    cdef int d, o, s, k, old_ball
    for d in range(8):
        o = g.off[d]
        s = here + o
        if p.board[s] != MAN:
            continue
        k = 1
        s += o
        while p.board[s] == MAN:
            s += o
            k += 1
        if p.board[s] == OFF or interrupted(it):  # polled per path: there may be millions
            continue
        # the men stay removed (and uncounted) while the path goes on
        set_run(g, p.board, here, s, d, EMPTY)
        p.nmen -= k
        old_ball = p.ball
        p.ball = s
        p.side ^= 1
        p.ply += 1
        total += perft(g, p, depth - 1, cf, it)
        p.ply -= 1
        p.side ^= 1
        p.ball = old_ball
        if p.board[s] != BEYOND:
            total += perft_paths(g, p, s, depth, cf, it)
        p.nmen += k
        set_run(g, p.board, here, s, d, MAN)
    return total


@cython.cdivision(True)
cdef void count_rows(const Geo *g, const Pos *p, int *rowfree) noexcept nogil:
    """rowfree[padded row] = the placeable points of that row."""
    cdef int pr, m
    for pr in range(PH_MAXSIZE + 4):
        rowfree[pr] = 0
    for m in range(g.first, g.last + 1):
        if p.board[m] == EMPTY and m != p.ball:
            rowfree[m // g.W] += 1


@cython.cdivision(True)
cdef int draw_move(const Geo *g, Pos *p, uint64_t *rng, int *rowfree, int *out) noexcept nogil:
    """Draw a random move as the integer layer plays it and make it on ``p`` (the
    key is not kept).  A placement puts its padded cell in out[0] and returns 0;
    a path puts its landings in out[0..n-1] and returns n.  The draw: a uniform
    choice among the placements (ascending) and the ball's jump directions, then
    after each jump that stays on the board among the next jumps and *stop*."""
    cdef uint64_t r, empty = <uint64_t>empties(g, p)
    cdef int dirs[8]
    cdef int nj = jump_dirs(g, p.board, p.ball, dirs)
    cdef int pr, m, d, here, s, o, t, n = 0, W = g.W
    r = brett_rng_below(rng, <uint32_t>(empty + nj))
    if r < empty:
        # the r-th placeable point: skip whole rows, then scan one
        pr = 2
        while r >= <uint64_t>rowfree[pr]:
            r -= rowfree[pr]
            pr += 1
        for m in range(pr * W + 1, pr * W + W - 1):
            if p.board[m] == EMPTY and m != p.ball:
                if r == 0:
                    p.board[m] = MAN
                    p.nmen += 1
                    p.side ^= 1
                    p.ply += 1
                    rowfree[pr] -= 1
                    out[0] = m
                    return 0
                r -= 1
        return 0  # not reached: rowfree counts the placeable points
    d = dirs[r - empty]
    here = p.ball
    while True:
        s = target(g, p.board, here, d)
        o = g.off[d]
        t = here + o
        while t != s:
            p.board[t] = EMPTY
            p.nmen -= 1
            rowfree[t // W] += 1
            t += o
        out[n] = s
        n += 1
        here = s
        if p.board[s] == BEYOND:
            break
        nj = jump_dirs(g, p.board, here, dirs)
        r = brett_rng_below(rng, <uint32_t>(nj + 1))
        if r == <uint64_t>nj:
            break
        d = dirs[r]
    rowfree[p.ball // W] += 1   # the ball's point is free again
    if p.board[here] != BEYOND:
        rowfree[here // W] -= 1
    p.ball = here
    p.side ^= 1
    p.ply += 1
    return n


cdef void playouts(const Geo *g, const Pos *start, uint64_t n, uint64_t *rng,
                   long long max_plies, uint64_t *out, Interrupt *it) noexcept nogil:
    """out = [wins0, wins1, draws, unfinished, plies]."""
    cdef Pos p
    cdef uint64_t game
    cdef long long made
    cdef int st
    cdef int rowfree[PH_MAXSIZE + 4]
    cdef int path[PH_MAXCELLS + 2]
    for game in range(n):
        if interrupted(it):
            return
        p = start[0]
        made = 0
        count_rows(g, &p, rowfree)
        while True:
            st = status(g, &p)
            if st != RUNNING:
                if st == TOP_WINS:
                    out[0] += 1
                elif st == BOTTOM_WINS:
                    out[1] += 1
                elif st == CAP_DRAW:
                    out[2] += 1
                else:
                    out[p.side ^ 1] += 1
                break
            if 0 <= max_plies <= made:
                out[3] += 1
                break
            draw_move(g, &p, rng, rowfree, path)
            made += 1
        out[4] += <uint64_t>made


@cython.cdivision(True)
cdef int search_placements(const Geo *g, const Pos *p, int64_t *out, bint prune) noexcept nogil:
    """The placements (cells, ascending) a search tries at the start of a turn.

    Pruning rule (with ``prune``): an empty point is kept if it lies within
    Chebyshev distance 2 of the ball, or next to (distance 1 of) some man;
    the other placements are never searched.  The caller falls back to every
    placement when none is kept and the ball cannot jump (see s_actions)."""
    cdef int m, d, n = 0, W = g.W, br = p.ball // W, bc = p.ball % W, dr, dc
    cdef bint keep
    for m in range(g.first, g.last + 1):
        if p.board[m] != EMPTY or m == p.ball:
            continue
        keep = not prune
        if prune:
            dr = m // W - br
            dc = m % W - bc
            keep = -2 <= dr <= 2 and -2 <= dc <= 2
            d = 0
            while not keep and d < 8:
                keep = p.board[m + g.off[d]] == MAN
                d += 1
        if keep:
            out[n] = g.cell_of[m]
            n += 1
    return n


cdef inline void fill(float *out, int n, float value) noexcept nogil:
    """out[0..n-1] = value (v_observe's constant planes)."""
    cdef int i
    if value == 0.0:
        memset(out, 0, n * sizeof(float))
        return
    for i in range(n):
        out[i] = value


# ------------------------------------------------------------------ lazy move lists
@cython.auto_pickle(False)
cdef class _MoveIter:
    """The legal moves of a position one by one, on a private copy: the
    placements, then the jump paths depth first with an explicit stack (a
    position can have millions of paths; memory stays one path long)."""

    cdef Geo geo
    cdef Pos pos
    cdef int cell            # next padded cell to try as a placement (phase 0)
    cdef int phase           # 0 placements, 1 paths, 2 done
    cdef int depth           # frames on the stack
    cdef int *here
    cdef int *nextd
    cdef int *land
    cdef int *ldir           # the child a frame descended into (-1: none)
    cdef Interrupt poll      # Ctrl-C and stoppers: list(moves) may run for hours

    def __cinit__(self):
        cdef size_t size = (PH_MAXCELLS + 2) * sizeof(int)
        self.here = <int *>malloc(size)
        self.nextd = <int *>malloc(size)
        self.land = <int *>malloc(size)
        self.ldir = <int *>malloc(size)
        if not (self.here and self.nextd and self.land and self.ldir):
            raise MemoryError()

    def __dealloc__(self):
        free(self.here)
        free(self.nextd)
        free(self.land)
        free(self.ldir)

    def __iter__(self):
        return self

    def __next__(self):
        cdef int m, f, d, s
        if self.phase != 2 and interrupted(&self.poll):
            self.phase = 2
            raise_if_stopped(&self.poll)
        if self.phase == 0:
            while self.cell <= self.geo.last:
                m = self.cell
                self.cell += 1
                if self.pos.board[m] == EMPTY and m != self.pos.ball:
                    return self.geo.cell_of[m]
            self.phase = 1
            self.depth = 1
            self.here[0] = self.pos.ball
            self.nextd[0] = 0
            self.ldir[0] = -1
        while self.phase == 1 and self.depth:
            f = self.depth - 1
            if self.ldir[f] >= 0:
                set_run(&self.geo, self.pos.board, self.here[f], self.land[f], self.ldir[f], MAN)
                self.ldir[f] = -1
            s = -1
            d = 0
            while self.nextd[f] < 8:
                d = self.nextd[f]
                self.nextd[f] += 1
                s = target(&self.geo, self.pos.board, self.here[f], d)
                if s >= 0:
                    break
            if s < 0:
                self.depth -= 1
                continue
            path = tuple([self.geo.cell_of[self.here[i]] for i in range(f + 1)]
                         + [self.geo.cell_of[s]])
            if self.pos.board[s] != BEYOND:
                set_run(&self.geo, self.pos.board, self.here[f], s, d, EMPTY)
                self.land[f] = s
                self.ldir[f] = d
                self.here[f + 1] = s
                self.nextd[f + 1] = 0
                self.ldir[f + 1] = -1
                self.depth += 1
            return path
        self.phase = 2
        raise StopIteration


# ------------------------------------------------------------------ the class
@cython.auto_pickle(False)
cdef class PhutballCore(CoreBase):
    """The compiled Phutball core (the core protocol, see ``_base.py``)."""

    def __cinit__(self, *args, **kwargs):
        self.undo = NULL
        self.undo_len = 0
        self.undo_cap = 0
        self.sundo = NULL
        self.sundo_len = 0
        self.sundo_cap = 0
        self.s_jumps = 0
        self.vjumps = 0
        make_geo(&self.geo, 5, 5, self.pos.board)
        self.pos.ball = self.geo.pad_of[3 * 5 + 2]
        self.pos.side = 0
        self.pos.ply = 0
        self.pos.cap = -1
        self.pos.nmen = 0
        self.pos.key = 0

    def __dealloc__(self):
        free(self.undo)
        free(self.sundo)

    cdef int _reserve(self, Py_ssize_t extra) except -1:
        """Room for ``extra`` more undo ints."""
        if self.undo_len + extra > self.undo_cap:
            self.undo = <int *>grow_array(self.undo, &self.undo_cap, self.undo_len + extra,
                                          sizeof(int), 1024)
        return 0

    cdef int _s_reserve(self, Py_ssize_t extra) except -1:
        """Room for ``extra`` more ints on the search's undo stack."""
        if self.sundo_len + extra > self.sundo_cap:
            self.sundo = <int *>grow_array(self.sundo, &self.sundo_cap, self.sundo_len + extra,
                                           sizeof(int), 1024)
        return 0

    # ------------------------------------------------------------ state
    def set_state(self, state):
        cdef Geo geo
        cdef Pos pos
        cdef int m
        columns, nrows, men, ball, side, ply, cap = state
        if not (5 <= columns <= PH_MAXSIZE and 5 <= nrows <= PH_MAXSIZE):
            raise ValueError(f"board size {columns}x{nrows} out of range")
        if side not in (0, 1) or not -1 <= cap < 2**31 or not 0 <= ply < 2**31:
            raise ValueError(f"bad phutball state {state!r}")
        make_geo(&geo, columns, nrows, pos.board)
        pos.nmen = 0
        for cell in men:
            if not columns <= cell < (nrows + 1) * columns:
                raise ValueError(f"man on cell {cell!r}: not a point of the board")
            if pos.board[geo.pad_of[<int>cell]] == MAN:
                raise ValueError(f"two men on cell {cell!r}")
            pos.board[geo.pad_of[<int>cell]] = MAN
            pos.nmen += 1
        if not 0 <= ball < geo.ncells or pos.board[geo.pad_of[<int>ball]] == MAN:
            raise ValueError(f"ball on cell {ball!r}: not a free point of the board")
        pos.ball = geo.pad_of[<int>ball]
        pos.side = side
        pos.ply = ply
        pos.cap = cap
        pos.key = geo.zball[pos.ball] ^ (SIDE_KEY if pos.side else 0)
        for m in range(PH_PADMAX):
            if pos.board[m] == MAN:
                pos.key ^= geo.zman[m]
        self.claim()
        self.geo = geo
        self.pos = pos
        self.undo_len = 0
        self.sundo_len = 0
        self.s_jumps = 0
        self.vjumps = 0
        self.entries = []

    def get_state(self):
        cdef int m
        men = tuple([self.geo.cell_of[m] for m in range(PH_PADMAX) if self.pos.board[m] == MAN])
        return (self.geo.cols, self.geo.rows, men, self.geo.cell_of[self.pos.ball],
                self.pos.side, self.pos.ply, self.pos.cap)

    def clone(self, bint history):
        cdef PhutballCore new = type(self).__new__(type(self))
        new.geo = self.geo
        new.pos = self.pos
        if history:
            if self.undo_len:  # memcpy from NULL is undefined even for 0 bytes
                new._reserve(self.undo_len)
                memcpy(new.undo, self.undo, self.undo_len * sizeof(int))
            new.undo_len = self.undo_len
            new.entries = list(self.entries)
            if self.sundo_len:
                new._s_reserve(self.sundo_len)
                memcpy(new.sundo, self.sundo, self.sundo_len * sizeof(int))
            new.sundo_len = self.sundo_len
            new.s_jumps = self.s_jumps
            new.vjumps = self.vjumps  # a whole copy; clone(False) starts with nothing pending
            if self.vjumps:
                new.vshown = self.vshown
        return new

    def key(self):
        return self.pos.key

    def status(self):
        """0 running, 1 player 0 won, 2 player 1 won, 3 ply cap, 4 mover cannot move."""
        return status(&self.geo, &self.pos)

    def player(self):
        return self.s_player()

    # ------------------------------------------------------------ moves
    def iter_moves(self):
        cdef _MoveIter it = _MoveIter.__new__(_MoveIter)
        it.geo = self.geo
        it.pos = self.pos
        it.cell = self.geo.first
        it.phase = 0 if status(&self.geo, &self.pos) == RUNNING else 2
        it.depth = 0
        interrupt_init(&it.poll, 1 << 10)
        return it

    def moves(self):
        return list(self.iter_moves())

    def count(self, long long limit=-1):
        """The number of legal moves, counted on a copy without the GIL; with
        ``limit`` >= 0 the count stops at ``limit + 1`` (more than ``limit``)."""
        cdef const Geo *geo = &self.geo  # fixed once a state is loaded: shared, not copied
        cdef Pos pos = self.pos
        cdef uint64_t n, cap = NO_CAP if limit < 0 else <uint64_t>limit + 1
        cdef Interrupt it
        if status(geo, &pos) != RUNNING:
            return 0
        n = <uint64_t>empties(geo, &pos)
        if n >= cap:
            return cap
        interrupt_init(&it, 1 << 10)
        with nogil:
            n += count_paths(geo, pos.board, pos.ball, cap - n, &it)
        raise_if_stopped(&it)
        return min(n, cap)

    def chance_moves(self):
        return []

    cdef int _legal(self, object cm) except -1:
        """1 if ``cm`` is a legal move here (checked on a copy of the board)."""
        cdef int m, here, land, d, i, o, t, v
        cdef uint8_t board[PH_PADMAX]
        if status(&self.geo, &self.pos) != RUNNING:
            return 0
        if type(cm) is int:
            if not self.geo.cols <= cm < (self.geo.rows + 1) * self.geo.cols:
                return 0
            m = self.geo.pad_of[<int>cm]
            return self.pos.board[m] == EMPTY and m != self.pos.ball
        if type(cm) is not tuple or len(cm) < 2 or len(cm) > self.pos.nmen + 1:
            return 0
        if type(cm[0]) is not int or cm[0] != self.geo.cell_of[self.pos.ball]:
            return 0
        memcpy(board, self.pos.board, PH_PADMAX)
        here = self.pos.ball
        for i in range(1, len(cm)):
            v = -1
            if type(cm[i]) is int and 0 <= cm[i] < self.geo.ncells:
                v = cm[i]
            # no jump from beyond a goal line: such a landing must end the path
            if v < 0 or board[here] == BEYOND:
                return 0
            land = self.geo.pad_of[v]
            d = direction_to(&self.geo, board, here, land)
            if d < 0:
                return 0
            set_run(&self.geo, board, here, land, d, EMPTY)
            here = land
        return 1

    def is_legal(self, cm):
        return bool(self._legal(cm))

    def jumps_after(self, tuple dirs):
        """Walk the ball by jumps in the directions ``dirs`` on a copy: (landing
        cells, the 8 jump targets from the last landing, -1 where none), or None
        if some step is not a jump (see the Python twin)."""
        cdef uint8_t board[PH_PADMAX]
        cdef int here = self.pos.ball, land, d
        memcpy(board, self.pos.board, PH_PADMAX)
        landings = []
        for dd in dirs:
            if type(dd) is not int or not 0 <= dd < 8 or board[here] == BEYOND:
                return None
            d = dd
            land = target(&self.geo, board, here, d)
            if land < 0:
                return None
            set_run(&self.geo, board, here, land, d, EMPTY)
            landings.append(self.geo.cell_of[land])
            here = land
        if board[here] == BEYOND:
            return tuple(landings), (-1,) * 8
        targets = []
        for d in range(8):
            land = target(&self.geo, board, here, d)
            targets.append(-1 if land < 0 else self.geo.cell_of[land])
        return tuple(landings), tuple(targets)

    def random_move(self, uint64_t rng):
        """The move a playout would draw from the splitmix64 state ``rng``."""
        cdef Pos p = self.pos
        cdef int rowfree[PH_MAXSIZE + 4]
        cdef int out[PH_MAXCELLS + 2]
        cdef int n, i
        if status(&self.geo, &p) != RUNNING:
            return None, rng
        count_rows(&self.geo, &p, rowfree)
        n = draw_move(&self.geo, &p, &rng, rowfree, out)
        if n == 0:
            return self.geo.cell_of[out[0]], rng
        return tuple([self.geo.cell_of[self.pos.ball]]
                     + [self.geo.cell_of[out[i]] for i in range(n)]), rng

    # ------------------------------------------------------------ make / unmake
    def push(self, cm, entry):
        cdef int m, n, i, d, here, land, removed = 0
        self.claim()
        if not self._legal(cm):
            return False
        if type(cm) is int:
            m = self.geo.pad_of[<int>cm]
            self._reserve(3)
            self.undo[self.undo_len] = 0
            self.undo[self.undo_len + 1] = self.pos.ball
            self.undo[self.undo_len + 2] = m
            self.undo_len += 3
            self.pos.board[m] = MAN
            self.pos.nmen += 1
            self.pos.key ^= self.geo.zman[m]
        else:
            self._reserve(self.pos.nmen + 3)
            here = self.pos.ball
            for i in range(1, len(cm)):
                land = self.geo.pad_of[<int>cm[i]]
                d = direction_to(&self.geo, self.pos.board, self.pos.ball, land)
                n = jump_over(&self.geo, &self.pos, d, land, self.undo + self.undo_len)
                self.undo_len += n
                removed += n
            self.undo[self.undo_len] = removed
            self.undo[self.undo_len + 1] = here
            self.undo[self.undo_len + 2] = -1
            self.undo_len += 3
        self.pos.side ^= 1
        self.pos.key ^= SIDE_KEY
        self.pos.ply += 1
        self.vjumps = 0  # a pending ball move of the integer layer in C ends with it
        self.entries.append(entry)
        return True

    def pop(self):
        cdef int placed, old_ball, count, t
        self.claim()
        if self.undo_len < 3:
            raise IndexError("pop from an empty move stack")
        placed = self.undo[self.undo_len - 1]
        old_ball = self.undo[self.undo_len - 2]
        count = self.undo[self.undo_len - 3]
        self.undo_len -= 3
        self.pos.side ^= 1
        self.pos.ply -= 1
        self.pos.key ^= SIDE_KEY
        if placed >= 0:
            self.pos.board[placed] = EMPTY
            self.pos.nmen -= 1
            self.pos.key ^= self.geo.zman[placed]
        else:
            while count > 0:
                count -= 1
                self.undo_len -= 1
                t = self.undo[self.undo_len]
                self.pos.board[t] = MAN
                self.pos.key ^= self.geo.zman[t]
                self.pos.nmen += 1
            self.pos.key ^= self.geo.zball[self.pos.ball] ^ self.geo.zball[old_ball]
            self.pos.ball = old_ball
        self.vjumps = 0
        return self.entries.pop()

    # ------------------------------------------------------------ search
    def perft(self, int depth, bint count_finished):
        """perft on a copy of the state, without the GIL; Ctrl-C stops it."""
        cdef const Geo *geo = &self.geo  # fixed once a state is loaded: shared, not copied
        cdef Pos pos = self.pos
        cdef uint64_t n
        cdef Interrupt it
        if depth < 0:
            raise ValueError("depth must be >= 0")
        if depth == 0:
            return 1
        interrupt_init(&it, 1 << 12)
        with nogil:
            n = perft(geo, &pos, depth, count_finished, &it)
        raise_if_stopped(&it)
        return n

    def playouts(self, long long n, uint64_t seed, long long max_plies):
        cdef const Geo *geo = &self.geo  # fixed once a state is loaded: shared, not copied
        cdef Pos pos = self.pos
        cdef uint64_t out[5]
        cdef uint64_t rng = seed
        cdef Interrupt it
        if n < 0:
            raise ValueError("n must be >= 0")
        memset(out, 0, sizeof(out))
        interrupt_init(&it, 1 << 4)
        with nogil:
            playouts(geo, &pos, <uint64_t>n, &rng, max_plies, out, &it)
        raise_if_stopped(&it)
        return [out[0], out[1]], out[2], out[3], out[4], rng

    # ------------------------------------------------------------ the search protocol
    # (_common.pxd) on a private clone, without the GIL.  A ball move is searched
    # step by step (a position can have millions of jump paths).  Search actions:
    # a placement is its cell (the core move); a jump in direction d (0..7: N NE E
    # SE S SW W NW) is -1 - d; *stop* (-9) ends a ball move after a jump.  At the
    # start of a turn the actions are the PRUNED placements (see
    # search_placements) by ascending cell, then the jump directions; after a
    # jump that stays on the board (pending, the same player to move) the next
    # jump directions, then stop.  A jump beyond a goal line ends the move.
    # Between the first jump and stop the jumps so far are made on ``pos`` (men
    # removed, ball moved, key updated) but side and ply are not; stop flips
    # them, so a whole step sequence leaves exactly the state of push(path).
    cdef int s_max_actions(self) noexcept nogil:
        # at most every point but the ball's, and 8 jumps (pending: 8 jumps and stop)
        return self.geo.npoints + 9

    cdef int s_player(self) noexcept nogil:
        if self.s_jumps:
            return self.pos.side
        return TERMINAL_PLAYER if status(&self.geo, &self.pos) != RUNNING else self.pos.side

    cdef bint s_pending(self) noexcept nogil:
        return self.s_jumps > 0

    cdef int s_actions(self, int64_t *out) noexcept nogil:
        cdef int dirs[8]
        cdef int nj, n, i
        if self.s_jumps:
            nj = jump_dirs(&self.geo, self.pos.board, self.pos.ball, dirs)
            for i in range(nj):
                out[i] = -1 - dirs[i]
            out[nj] = S_STOP
            return nj + 1
        if status(&self.geo, &self.pos) != RUNNING:
            return 0
        nj = jump_dirs(&self.geo, self.pos.board, self.pos.ball, dirs)
        n = search_placements(&self.geo, &self.pos, out, 1)
        if n == 0 and nj == 0:  # never leave a running position without a move
            n = search_placements(&self.geo, &self.pos, out, 0)
        for i in range(nj):
            out[n + i] = -1 - dirs[i]
        return n + nj

    cdef int s_do(self, int64_t action) except -1 nogil:
        cdef Pos *p = &self.pos
        cdef const Geo *g = &self.geo
        cdef int m, d, here, land, k
        cdef int *rec
        if self.sundo_len + PH_MAXSIZE + 8 > self.sundo_cap:  # a jump's record at most
            with gil:
                self._s_reserve(PH_MAXSIZE + 8)
        rec = self.sundo + self.sundo_len
        if action == S_STOP:
            if not self.s_jumps:
                with gil:
                    raise ValueError("search action stop: no ball move is pending")
            rec[0] = self.s_jumps
            rec[1] = REC_STOP
            self.sundo_len += 2
            self.s_jumps = 0
        elif action >= 0:
            if (self.s_jumps or status(g, p) != RUNNING or action < g.cols
                    or action >= (g.rows + 1) * g.cols
                    or p.board[g.pad_of[action]] != EMPTY or g.pad_of[action] == p.ball):
                with gil:
                    raise ValueError(f"search action {action}: not a legal placement")
            m = g.pad_of[action]
            p.board[m] = MAN
            p.nmen += 1
            p.key ^= g.zman[m]
            rec[0] = m
            rec[1] = REC_PLACE
            self.sundo_len += 2
        else:
            d = <int>(-1 - action)
            land = -1
            if d < 8 and (self.s_jumps or status(g, p) == RUNNING):
                land = target(g, p.board, p.ball, d)
            if land < 0:
                with gil:
                    raise ValueError(f"search action {action}: not a legal jump")
            here = p.ball
            k = jump_over(g, p, d, land, rec)
            rec[k] = k
            rec[k + 1] = here
            rec[k + 2] = self.s_jumps
            rec[k + 3] = REC_JUMP
            self.sundo_len += k + 4
            if p.board[land] != BEYOND:
                self.s_jumps += 1
                return 0           # pending: the same player goes on
            self.s_jumps = 0       # beyond a goal line: the move ends here
        p.side ^= 1
        p.ply += 1
        p.key ^= SIDE_KEY
        return 0

    cdef void s_undo(self) noexcept nogil:
        cdef Pos *p = &self.pos
        cdef const Geo *g = &self.geo
        cdef int tag, m, k, here, t
        if self.sundo_len < 2:
            return
        self.sundo_len -= 1
        tag = self.sundo[self.sundo_len]
        if tag == REC_JUMP:
            self.sundo_len -= 3
            k = self.sundo[self.sundo_len]
            here = self.sundo[self.sundo_len + 1]
            if p.board[p.ball] == BEYOND:  # the jump ended the move
                p.side ^= 1
                p.ply -= 1
                p.key ^= SIDE_KEY
            self.s_jumps = self.sundo[self.sundo_len + 2]
            p.nmen += k
            while k > 0:
                k -= 1
                self.sundo_len -= 1
                t = self.sundo[self.sundo_len]
                p.board[t] = MAN
                p.key ^= g.zman[t]
            p.key ^= g.zball[p.ball] ^ g.zball[here]
            p.ball = here
            return
        self.sundo_len -= 1
        p.side ^= 1
        p.ply -= 1
        p.key ^= SIDE_KEY
        if tag == REC_STOP:
            self.s_jumps = self.sundo[self.sundo_len]
        else:
            m = self.sundo[self.sundo_len]
            p.board[m] = EMPTY
            p.nmen -= 1
            p.key ^= g.zman[m]

    cdef int s_winners(self) noexcept nogil:
        cdef int st
        if self.s_jumps:
            return 0
        st = status(&self.geo, &self.pos)
        if st == TOP_WINS:
            return 1
        if st == BOTTOM_WINS:
            return 2
        if st == NO_MOVE:
            return 1 << (self.pos.side ^ 1)
        return 0

    cdef int s_playout(self, uint64_t *rng, int max_plies) noexcept nogil:
        """playouts() with one game on a copy of the position; a pending ball
        move is ended first (as stop would)."""
        cdef Pos p = self.pos
        cdef uint64_t out[5]
        cdef Interrupt it
        if self.s_jumps:
            p.side ^= 1
            p.ply += 1
            p.key ^= SIDE_KEY
        memset(out, 0, sizeof(out))
        interrupt_init(&it, 1 << 30)  # one game polls once at most: never (no GIL)
        playouts(&self.geo, &p, 1, rng, max_plies, out, &it)
        return (1 if out[0] else 0) | (2 if out[1] else 0)

    # ------------------------------------------------------------ the integer layer in C
    # (_common.pxd) for brett.vector.VectorEnv, on a private core without the GIL:
    # phutball.py's actions, ``npoints = columns * rows`` of them placements (point
    # (row - 1) * columns + column), then the jumps npoints + d, then stop
    # npoints + 8, played as Phutball._step_options decides.  A move is made
    # without an undo record (the VectorEnv resets, it never takes a move back).
    cdef bint v_supported(self) noexcept nogil:
        return 1

    cdef void v_reset(self, CoreBase start) noexcept nogil:
        # A start of another class (or None) would be read as a PhutballCore: ignore
        # it.  Borrowed casts: a typed local would count a reference (the GIL).
        if start is None or (<PyObject *>start).ob_type != (<PyObject *>self).ob_type:
            return
        if ((<PhutballCore>start).geo.cols != self.geo.cols
                or (<PhutballCore>start).geo.rows != self.geo.rows):
            self.geo = (<PhutballCore>start).geo  # other options than promised: stay whole
        self.pos = (<PhutballCore>start).pos
        self.undo_len = 0
        self.sundo_len = 0
        self.s_jumps = 0
        self.vjumps = 0

    cdef int v_player(self) noexcept nogil:
        # a pending move started in a running position; its mover is still to move
        if self.vjumps or status(&self.geo, &self.pos) == RUNNING:
            return self.pos.side
        return TERMINAL_PLAYER

    cdef int v_mask(self, uint8_t *mask) noexcept nogil:
        cdef const Geo *g = &self.geo
        cdef const Pos *p = &self.pos
        cdef int npoints = g.npoints, cols = g.cols, W = g.W, r, c, d, n = 0
        cdef const uint8_t *row
        cdef uint8_t *out
        cdef uint64_t w
        if self.vjumps:  # the further jumps from the last landing, then stop
            memset(mask, 0, npoints + 9)
            p = &self.vshown
            for d in range(8):
                if target(g, p.board, p.ball, d) >= 0:
                    mask[npoints + d] = 1
                    n += 1
            mask[npoints + 8] = 1
            return n + 1
        if status(g, p) != RUNNING:
            memset(mask, 0, npoints + 9)
            return 0
        # The placements: every empty point but the ball's (on the board while
        # running).  A point holds EMPTY (0) or MAN (1), so a row's mask is its
        # bytes XOR 1, eight at a time; the bytes written past a row's end are
        # overwritten by the next row, and after the last row (at most 7 of them)
        # by the jumps and stop below.
        for r in range(1, g.rows + 1):
            row = p.board + (r + 1) * W + 1
            out = mask + (r - 1) * cols
            for c in range(0, cols, 8):
                memcpy(&w, row + c, 8)
                w ^= BYTE_ONES
                memcpy(out + c, &w, 8)
        mask[g.cell_of[p.ball] - cols] = 0
        n = npoints - p.nmen - 1
        for d in range(8):
            if target(g, p.board, p.ball, d) >= 0:
                mask[npoints + d] = 1
                n += 1
            else:
                mask[npoints + d] = 0
        mask[npoints + 8] = 0
        return n

    cdef int v_chance(self, int64_t *actions, double *probs) noexcept nogil:
        return 0

    cdef void _v_end_move(self) noexcept nogil:
        """The pending ball move is whole: its board becomes the position, the
        other player's turn (as push(path) leaves it)."""
        self.pos = self.vshown
        self.pos.side ^= 1
        self.pos.ply += 1
        self.pos.key ^= SIDE_KEY
        self.vjumps = 0
        self.undo_len = 0  # older records no longer lead here: pop() must not use them

    cdef int v_apply(self, int64_t action) noexcept nogil:
        cdef const Geo *g = &self.geo
        cdef Pos *p = &self.pos
        cdef int npoints = g.npoints, m, d, land
        if action < 0 or action >= npoints + 9:
            return -1
        if not self.vjumps and status(g, p) != RUNNING:
            return -1
        if action < npoints:  # a placement: only at the start of a turn
            m = g.pad_of[<int>action + g.cols]
            if self.vjumps or p.board[m] != EMPTY or m == p.ball:
                return -1
            p.board[m] = MAN
            p.nmen += 1
            p.key ^= g.zman[m] ^ SIDE_KEY
            p.side ^= 1
            p.ply += 1
            self.undo_len = 0
            return 0
        if action == npoints + 8:  # stop: only after a jump
            if not self.vjumps:
                return -1
            self._v_end_move()
            return 0
        d = <int>(action - npoints)
        if self.vjumps:
            p = &self.vshown
        land = target(g, p.board, p.ball, d)
        if land < 0:
            return -1
        if not self.vjumps:  # the first jump: the shown board starts as the position
            self.vshown = self.pos
            p = &self.vshown
        jump_over(g, p, d, land, NULL)
        if p.board[land] == BEYOND:  # beyond a goal line: the move ends by itself
            self._v_end_move()
        else:
            self.vjumps += 1
        return 0

    cdef void v_observe(self, float *obs) noexcept nogil:
        """Phutball._observation: planes of (rows + 2) x columns: the men, the
        ball, ones when player 1 is to move, ones while a ball move is pending.
        Every float is written once (the observation is 5 KB on 15x19)."""
        cdef const Geo *g = &self.geo
        cdef const Pos *p = &self.vshown if self.vjumps else &self.pos
        cdef int cols = g.cols, W = g.W, size = g.ncells, r, c
        cdef const uint8_t *row
        cdef float *out
        # men stand on rows 1..rows only (a table: no int-to-float conversion)
        memset(obs, 0, cols * sizeof(float))
        for r in range(1, g.rows + 1):
            row = p.board + (r + 1) * W + 1
            out = obs + r * cols
            for c in range(cols):
                out[c] = MAN_FLOAT[row[c]]
        memset(obs + size - cols, 0, cols * sizeof(float))
        memset(obs + size, 0, size * sizeof(float))
        obs[size + g.cell_of[p.ball]] = 1.0
        fill(obs + 2 * size, size, 1.0 if self.v_player() == 1 else 0.0)
        fill(obs + 3 * size, size, 1.0 if self.vjumps else 0.0)

    cdef void v_returns(self, double *out) noexcept nogil:
        # Outcome.returns: +1 the winner, -1 the loser; 0 for both on a draw, while
        # running or while a ball move is pending (Phutball.outcome is None then)
        cdef int st = RUNNING if self.vjumps else status(&self.geo, &self.pos)
        out[0] = 0.0
        out[1] = 0.0
        if st == TOP_WINS or (st == NO_MOVE and self.pos.side == 1):
            out[0] = 1.0
            out[1] = -1.0
        elif st == BOTTOM_WINS or st == NO_MOVE:
            out[0] = -1.0
            out[1] = 1.0
