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
"""

from libc.stdint cimport uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy

from ._phutball_py import MAX_CELLS as _PY_MAX_CELLS
from ._phutball_py import ZOBRIST as _PY_ZOBRIST


cdef extern from "brett_rng.h":
    uint64_t brett_rng_next(uint64_t *state) noexcept nogil
    uint32_t brett_rng_below(uint64_t *state, uint32_t n) noexcept nogil


cdef enum:
    EMPTY = 0
    MAN = 1
    OFF = 2
    BEYOND = 3
    MAXSIZE = 25
    MAXW = MAXSIZE + 2
    PADMAX = (MAXSIZE + 4) * MAXW
    MAXCELLS = MAXSIZE * (MAXSIZE + 2)
    RUNNING = 0
    TOP_WINS = 1
    BOTTOM_WINS = 2
    CAP_DRAW = 3
    NO_MOVE = 4
    TERMINAL = -4

assert _PY_MAX_CELLS == MAXCELLS

cdef uint64_t ZOB[2 * MAXCELLS + 1]
cdef int _i
for _i in range(2 * MAXCELLS + 1):
    ZOB[_i] = _PY_ZOBRIST[_i]


cdef class PhutballCore:
    cdef int cols, rows, W, ncells, npoints
    cdef int first, last          # padded range of rows 1..rows
    cdef int top_start, row2_start
    cdef int ball, side, ply, cap, nmen
    cdef int count_finished
    cdef uint64_t key
    cdef int off[8]
    cdef uint8_t board[PADMAX]
    cdef int cell_of[PADMAX]
    cdef int pad_of[MAXCELLS]
    cdef uint64_t zman[PADMAX]
    cdef uint64_t zball[PADMAX]
    # undo stack: per move the removed men, then (count, old ball, placed or -1)
    cdef int *undo
    cdef Py_ssize_t undo_len, undo_cap
    # scratch: a path (move generation, legality, push)
    cdef int *path

    def __cinit__(self, *args, **kwargs):
        self.undo = NULL
        self.undo_len = 0
        self.undo_cap = 0
        self.path = <int *>malloc((MAXCELLS + 2) * sizeof(int))
        if self.path == NULL:
            raise MemoryError()
        self.cols = 0

    def __dealloc__(self):
        free(self.undo)
        free(self.path)

    # ------------------------------------------------------------ state
    def _core_set_state(self, state):
        cdef int cols, rows, r, c, m, W
        columns, nrows, men, ball, side, ply, cap = state
        cols = columns
        rows = nrows
        if not (5 <= cols <= MAXSIZE and 5 <= rows <= MAXSIZE):
            raise ValueError(f"board size {cols}x{rows} out of range")
        W = cols + 2
        self.cols, self.rows, self.W = cols, rows, W
        self.ncells = (rows + 2) * cols
        self.npoints = rows * cols
        self.off[0] = W
        self.off[1] = W + 1
        self.off[2] = 1
        self.off[3] = -W + 1
        self.off[4] = -W
        self.off[5] = -W - 1
        self.off[6] = -1
        self.off[7] = W - 1
        for m in range(PADMAX):
            self.board[m] = OFF
            self.cell_of[m] = -1
            self.zman[m] = 0
            self.zball[m] = 0
        for r in range(rows + 2):
            for c in range(cols):
                m = (r + 1) * W + c + 1
                self.cell_of[m] = r * cols + c
                self.pad_of[r * cols + c] = m
                self.zman[m] = ZOB[r * cols + c]
                self.zball[m] = ZOB[MAXCELLS + r * cols + c]
                self.board[m] = BEYOND if (r == 0 or r == rows + 1) else EMPTY
        self.first = 2 * W
        self.last = (rows + 2) * W - 1
        self.top_start = (rows + 1) * W
        self.row2_start = 3 * W
        self.nmen = 0
        for cell in men:
            if not cols <= cell < (rows + 1) * cols:
                raise ValueError(f"man on cell {cell!r}: not a point of the board")
            self.board[self.pad_of[<int>cell]] = MAN
            self.nmen += 1
        if not 0 <= ball < self.ncells:
            raise ValueError(f"ball on cell {ball!r}: not on the board")
        self.ball = self.pad_of[<int>ball]
        self.side = side
        self.ply = ply
        self.cap = cap
        self.undo_len = 0
        self.key = self.zball[self.ball] ^ (ZOB[2 * MAXCELLS] if self.side else 0)
        for m in range(PADMAX):
            if self.board[m] == MAN:
                self.key ^= self.zman[m]

    def _core_get_state(self):
        cdef int m
        men = tuple([self.cell_of[m] for m in range(PADMAX) if self.board[m] == MAN])
        return (self.cols, self.rows, men, self.cell_of[self.ball], self.side, self.ply,
                self.cap)

    def _core_key(self):
        return self.key

    # ------------------------------------------------------------ C helpers
    cdef inline int target(self, int here, int d) noexcept nogil:
        """Landing cell of a jump from ``here`` in direction ``d``, or -1."""
        cdef int o = self.off[d]
        cdef int s = here + o
        if self.board[s] != MAN:
            return -1
        s += o
        while self.board[s] == MAN:
            s += o
        if self.board[s] == OFF:
            return -1
        return s

    cdef inline void set_run(self, int here, int land, int d, uint8_t what) noexcept nogil:
        cdef int o = self.off[d]
        cdef int t = here + o
        while t != land:
            self.board[t] = what
            t += o

    cdef inline int empties(self) noexcept nogil:
        if self.board[self.ball] == BEYOND:
            return self.npoints - self.nmen
        return self.npoints - self.nmen - 1

    cdef int has_jump(self) noexcept nogil:
        cdef int d
        for d in range(8):
            if self.target(self.ball, d) >= 0:
                return 1
        return 0

    cdef inline int status(self) noexcept nogil:
        if self.ball >= self.top_start:
            return TOP_WINS
        if self.ball < self.row2_start:
            return BOTTOM_WINS
        if 0 <= self.cap <= self.ply:
            return CAP_DRAW
        if self.npoints - self.nmen - 1 == 0 and not self.has_jump():
            return NO_MOVE
        return RUNNING

    cdef uint64_t count_paths(self, int here) noexcept nogil:
        """The number of jump paths from ``here`` (DFS, men removed and restored)."""
        cdef uint64_t total = 0
        cdef int d, o, s
        cdef uint8_t c
        for d in range(8):
            o = self.off[d]
            s = here + o
            if self.board[s] != MAN:
                continue
            s += o
            while self.board[s] == MAN:
                s += o
            c = self.board[s]
            if c == OFF:
                continue
            total += 1
            if c == BEYOND:
                continue
            self.set_run(here, s, d, EMPTY)
            total += self.count_paths(s)
            self.set_run(here, s, d, MAN)
        return total

    cdef uint64_t perft(self, int depth) noexcept nogil:
        cdef uint64_t total = 0
        cdef int m
        if self.status() != RUNNING:
            return <uint64_t>self.count_finished
        if depth == 1:
            return <uint64_t>self.empties() + self.count_paths(self.ball)
        self.side ^= 1
        self.ply += 1
        self.nmen += 1
        for m in range(self.first, self.last + 1):
            if self.board[m] == EMPTY and m != self.ball:
                self.board[m] = MAN
                total += self.perft(depth - 1)
                self.board[m] = EMPTY
        self.nmen -= 1
        self.ply -= 1
        self.side ^= 1
        total += self.perft_paths(self.ball, depth)
        return total

    cdef uint64_t perft_paths(self, int here, int depth) noexcept nogil:
        """perft(depth - 1) after every jump path from ``here``, made in place."""
        cdef uint64_t total = 0
        cdef int d, o, s, k, old_ball
        for d in range(8):
            o = self.off[d]
            s = here + o
            if self.board[s] != MAN:
                continue
            k = 1
            s += o
            while self.board[s] == MAN:
                s += o
                k += 1
            if self.board[s] == OFF:
                continue
            # the men stay removed (and uncounted) while the path goes on
            self.set_run(here, s, d, EMPTY)
            self.nmen -= k
            old_ball = self.ball
            self.ball = s
            self.side ^= 1
            self.ply += 1
            total += self.perft(depth - 1)
            self.ply -= 1
            self.side ^= 1
            self.ball = old_ball
            if self.board[s] != BEYOND:
                total += self.perft_paths(s, depth)
            self.nmen += k
            self.set_run(here, s, d, MAN)
        return total

    cdef inline int jump_dirs(self, int here, int *dirs) noexcept nogil:
        """The directions (ascending) in which the ball on ``here`` can jump."""
        cdef int d, n = 0
        for d in range(8):
            if self.target(here, d) >= 0:
                dirs[n] = d
                n += 1
        return n

    cdef int direction_to(self, int here, int land) noexcept nogil:
        cdef int d
        for d in range(8):
            if self.target(here, d) == land:
                return d
        return -1

    cdef void play_path(self, int *path, int n, int record) noexcept nogil:
        """Move the ball along ``path[0..n-1]`` (landings), removing jumped men.

        With ``record`` the removed men go on the undo stack (room checked by
        the caller)."""
        cdef int i, d, o, t, here = self.ball, land, removed = 0
        for i in range(n):
            land = path[i]
            d = self.direction_to(here, land)
            o = self.off[d]
            t = here + o
            while t != land:
                self.board[t] = EMPTY
                self.key ^= self.zman[t]
                if record:
                    self.undo[self.undo_len] = t
                    self.undo_len += 1
                removed += 1
                t += o
            here = land
        self.nmen -= removed
        if record:
            self.undo[self.undo_len] = removed
            self.undo[self.undo_len + 1] = self.ball
            self.undo[self.undo_len + 2] = -1
            self.undo_len += 3
        self.key ^= self.zball[self.ball] ^ self.zball[here]
        self.ball = here
        self.side ^= 1
        self.key ^= ZOB[2 * MAXCELLS]
        self.ply += 1

    cdef void place(self, int m) noexcept nogil:
        self.board[m] = MAN
        self.nmen += 1
        self.key ^= self.zman[m] ^ ZOB[2 * MAXCELLS]
        self.side ^= 1
        self.ply += 1

    cdef void playouts(self, uint64_t n, uint64_t seed, long long max_plies,
                       uint64_t *out) noexcept nogil:
        """out = [wins0, wins1, draws, unfinished, plies]."""
        cdef uint8_t saved[PADMAX]
        cdef int sball = self.ball, sside = self.side, sply = self.ply, snmen = self.nmen
        cdef uint64_t skey = self.key, rng = seed, g, r, empties
        cdef long long made
        cdef int st, m, d, nj, here, s, o, t, pr, W = self.W
        cdef int dirs[8]
        cdef int rowfree[MAXSIZE + 4]   # placeable points per padded row
        memcpy(saved, self.board, PADMAX)
        for g in range(n):
            made = 0
            for pr in range(MAXSIZE + 4):
                rowfree[pr] = 0
            for m in range(self.first, self.last + 1):
                if self.board[m] == EMPTY and m != self.ball:
                    rowfree[m // W] += 1
            while True:
                st = self.status()
                if st != RUNNING:
                    if st == TOP_WINS:
                        out[0] += 1
                    elif st == BOTTOM_WINS:
                        out[1] += 1
                    elif st == CAP_DRAW:
                        out[2] += 1
                    else:
                        out[(self.side ^ 1)] += 1
                    break
                if 0 <= max_plies <= made:
                    out[3] += 1
                    break
                # a random move as the integer layer draws it (see the Python twin)
                empties = <uint64_t>self.empties()
                nj = self.jump_dirs(self.ball, dirs)
                r = brett_rng_below(&rng, <uint32_t>(empties + nj))
                if r < empties:
                    # the r-th placeable point: skip whole rows, then scan one
                    pr = 2
                    while r >= <uint64_t>rowfree[pr]:
                        r -= rowfree[pr]
                        pr += 1
                    for m in range(pr * W + 1, pr * W + W - 1):
                        if self.board[m] == EMPTY and m != self.ball:
                            if r == 0:
                                self.place(m)
                                rowfree[pr] -= 1
                                break
                            r -= 1
                else:
                    d = dirs[r - empties]
                    here = self.ball
                    while True:
                        s = self.target(here, d)
                        o = self.off[d]
                        t = here + o
                        while t != s:
                            self.board[t] = EMPTY
                            self.nmen -= 1
                            rowfree[t // W] += 1
                            t += o
                        here = s
                        if self.board[s] == BEYOND:
                            break
                        nj = self.jump_dirs(here, dirs)
                        r = brett_rng_below(&rng, <uint32_t>(nj + 1))
                        if r == <uint64_t>nj:
                            break
                        d = dirs[r]
                    rowfree[self.ball // W] += 1   # the ball's point is free again
                    if self.board[here] != BEYOND:
                        rowfree[here // W] -= 1
                    self.ball = here
                    self.side ^= 1
                    self.ply += 1
                made += 1
            out[4] += <uint64_t>made
            memcpy(self.board, saved, PADMAX)
            self.ball, self.side, self.ply, self.nmen, self.key = sball, sside, sply, snmen, skey

    # ------------------------------------------------------------ Python protocol
    def _core_status(self):
        return self.status()

    def _core_player(self):
        return TERMINAL if self.status() != RUNNING else self.side

    def _core_jump_target(self, int d):
        cdef int s
        if not 0 <= d < 8 or self.board[self.ball] == BEYOND:
            return -1
        s = self.target(self.ball, d)
        return -1 if s < 0 else self.cell_of[s]

    cdef void collect(self, int here, int depth, list out):
        cdef int d, s
        for d in range(8):
            s = self.target(here, d)
            if s < 0:
                continue
            self.path[depth] = self.cell_of[s]
            out.append(tuple([self.path[i] for i in range(depth + 1)]))
            if self.board[s] != BEYOND:
                self.set_run(here, s, d, EMPTY)
                self.collect(s, depth + 1, out)
                self.set_run(here, s, d, MAN)

    def _core_moves(self):
        cdef int m
        if self.status() != RUNNING:
            return []
        out = [self.cell_of[m] for m in range(self.first, self.last + 1)
               if self.board[m] == EMPTY and m != self.ball]
        self.path[0] = self.cell_of[self.ball]
        self.collect(self.ball, 1, out)
        return out

    def _core_count(self):
        cdef uint64_t n
        if self.status() != RUNNING:
            return 0
        with nogil:
            n = <uint64_t>self.empties() + self.count_paths(self.ball)
        return n

    cdef int cell_index(self, object v):
        """Padded index of a cell given as a Python int, or -1."""
        if type(v) is not int:
            return -1
        if not 0 <= v < self.ncells:
            return -1
        return self.pad_of[<int>v]

    def _core_is_legal(self, cm):
        cdef int m, here, land, d, i, n, ok, o, t, nrem = 0
        cdef int *removed
        if self.status() != RUNNING:
            return False
        if type(cm) is int:
            m = self.cell_index(cm)
            return m >= 0 and self.board[m] == EMPTY and m != self.ball
        if type(cm) is not tuple or len(cm) < 2 or self.cell_index(cm[0]) != self.ball:
            return False
        removed = <int *>malloc((self.nmen + 1) * sizeof(int))
        if removed == NULL:
            raise MemoryError()
        n = len(cm) - 1
        here = self.ball
        ok = 1
        for i in range(n):
            land = self.cell_index(cm[i + 1])
            # no jump from beyond a goal line: such a landing must end the path
            d = self.direction_to(here, land) \
                if land >= 0 and self.board[here] != BEYOND else -1
            if d < 0:
                ok = 0
                break
            o = self.off[d]
            t = here + o
            while t != land:
                self.board[t] = EMPTY
                removed[nrem] = t
                nrem += 1
                t += o
            here = land
        for i in range(nrem):
            self.board[removed[i]] = MAN
        free(removed)
        return bool(ok)

    def _core_push(self, cm):
        cdef int m, n, i
        cdef Py_ssize_t need
        if type(cm) is int:
            m = self.pad_of[<int>cm]
            self.reserve(3)
            self.undo[self.undo_len] = 0
            self.undo[self.undo_len + 1] = self.ball
            self.undo[self.undo_len + 2] = m
            self.undo_len += 3
            self.place(m)
            return
        n = len(cm) - 1
        need = self.nmen + 3
        self.reserve(need)
        for i in range(n):
            self.path[i] = self.pad_of[<int>cm[i + 1]]
        self.play_path(self.path, n, 1)

    cdef int reserve(self, Py_ssize_t extra) except -1:
        cdef Py_ssize_t cap
        cdef int *p
        if self.undo_len + extra <= self.undo_cap:
            return 0
        cap = max(2 * self.undo_cap, self.undo_len + extra + 1024)
        p = <int *>realloc(self.undo, cap * sizeof(int))
        if p == NULL:
            raise MemoryError()
        self.undo = p
        self.undo_cap = cap
        return 0

    def _core_pop(self):
        cdef int placed, old_ball, count, t
        if self.undo_len < 3:
            raise IndexError("no move to take back")
        placed = self.undo[self.undo_len - 1]
        old_ball = self.undo[self.undo_len - 2]
        count = self.undo[self.undo_len - 3]
        self.undo_len -= 3
        self.side ^= 1
        self.ply -= 1
        self.key ^= ZOB[2 * MAXCELLS]
        if placed >= 0:
            self.board[placed] = EMPTY
            self.nmen -= 1
            self.key ^= self.zman[placed]
            return
        while count > 0:
            count -= 1
            self.undo_len -= 1
            t = self.undo[self.undo_len]
            self.board[t] = MAN
            self.key ^= self.zman[t]
            self.nmen += 1
        self.key ^= self.zball[self.ball] ^ self.zball[old_ball]
        self.ball = old_ball

    def _core_perft(self, int depth, count_finished):
        cdef uint64_t n
        if depth == 0:
            return 1
        self.count_finished = 1 if count_finished else 0
        with nogil:
            n = self.perft(depth)
        return n

    def _core_playouts(self, n, seed, max_plies):
        cdef uint64_t out[5]
        cdef uint64_t nn = n, s = seed
        cdef long long cap = max_plies
        out[0] = out[1] = out[2] = out[3] = out[4] = 0
        with nogil:
            self.playouts(nn, s, cap, out)
        return [out[0], out[1]], out[2], out[3], out[4]
