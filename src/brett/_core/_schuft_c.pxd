# The C state of the Schuft core (see _schuft_c.pyx and the oracle _schuft_py.py).

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

from ._common cimport CoreBase

cdef enum:
    TABLE_SIZE = 16384         # > 2 * the most step lists a turn can have (2 * 27 * 18 * 9)
    MAX_RESULTS = 8800
    MEMO_SIZE = 4096           # > 2 * the most inner nodes of a turn (2 * (27 + 27 * 18))
    MEMO_MAX = 2100

cdef struct Pos:
    signed char owner[36]
    unsigned char count[36]
    unsigned short goal[4]
    unsigned char out[4]

cdef struct State:
    Pos pos
    int n
    int seats[4]
    int to_move          # -1 during the roll-off
    int roll             # -1 at a chance node
    int plies
    int cap              # -1: none
    int rolloff          # 1 during the opening roll-off
    int ncont
    int cont[4]
    int nsums
    int sums[4]
    uint64_t key
    uint64_t tall        # derived: tongues holding 3 or more pieces
    uint64_t occ[4]      # derived: tongues of each player

cdef struct Undo:
    int kind             # 0 turn, 1 roll, 2 roll-off roll; the search's decisions:
                         # 3 a direction, 4 a step, 5 a step that ends the turn
    int nsteps
    int src[3]
    int dst[3]
    int hit[3]
    int roll
    int to_move
    int rolloff
    int ncont
    int cont[4]
    int nsums
    int sums[4]
    uint64_t key
    int sdir             # the search's half-built turn before this action (s_do)
    int snvals
    int svals[3]

cdef struct Result:
    uint64_t key
    uint64_t cm
    Pos pos

cdef struct Memo:
    uint64_t key
    int code
    Pos pos

cdef struct Gen:
    uint32_t stamp
    uint32_t stamps[TABLE_SIZE]
    int32_t slots[TABLE_SIZE]
    int nresults
    int want_rep
    Result results[MAX_RESULTS]
    uint32_t mstamps[MEMO_SIZE]
    int32_t mslots[MEMO_SIZE]
    int nmemo
    Memo memo[MEMO_MAX]



cdef class SchuftCore(CoreBase):
    cdef State s
    cdef Gen *gen               # scratch of the GIL-holding calls; searches bring their own
    cdef Gen *_scratch(self) noexcept nogil
    cdef Gen *_need_scratch(self) except NULL
    cdef Undo *undo
    cdef int nundo
    cdef Py_ssize_t capundo
    cdef int _reserve(self, Py_ssize_t need) except -1
    cdef int _play_checked(self, uint64_t cm, Undo *u, int *vals, int *nvals) noexcept
    cdef void _unplay(self, Undo *u) noexcept
    cdef int _turn_legal(self, uint64_t cm) noexcept
    # the integer layer in C (VectorEnv): a half-played turn's steps are made on
    # ``vshown``, a copy of ``s``, which stays the position before the turn (so
    # get_state(), clone() and the search never see them)
    cdef State vshown
    cdef int vnpend             # decisions of the half-played turn (0: none)
    cdef int vpend[4]           # those decisions (a direction, then steps)
    cdef int vdir               # its direction (CW / CCW)
    cdef int vnvals
    cdef int vvals[3]           # its unused die values
    cdef void _v_begin(self, int direction, const int *vals) noexcept nogil

    # the search protocol (see _common.pxd): search actions are the integer
    # layer's decisions (or whole turns in the benchmark's "turns" mode); the turn
    # being built is made on ``s`` itself, its direction and unused values here
    cdef int sdir               # 0: no turn being built
    cdef int snvals
    cdef int svals[3]
    cdef double cut[4]          # the race values of the last playout cut short
    cdef int s_max_actions(self) noexcept nogil
    cdef int s_player(self) noexcept nogil
    cdef int s_actions(self, int64_t *out) noexcept nogil
    cdef int s_chance(self, int64_t *out, double *prob) noexcept nogil
    cdef int s_do(self, int64_t action) except -1 nogil
    cdef void s_undo(self) noexcept nogil
    cdef bint s_pending(self) noexcept nogil
    cdef int s_winners(self) noexcept nogil
    cdef int s_playout(self, uint64_t *rng, int max_plies) noexcept nogil
    cdef void s_shares(self, double *values) noexcept nogil

    # the integer layer in C (see _common.pxd): Schuft's 336 integer actions
    cdef bint v_supported(self) noexcept nogil
    cdef void v_reset(self, CoreBase start) noexcept nogil
    cdef int v_player(self) noexcept nogil
    cdef int v_mask(self, uint8_t *mask) noexcept nogil
    cdef int v_chance(self, int64_t *actions, double *probs) noexcept nogil
    cdef int v_apply(self, int64_t action) noexcept nogil
    cdef void v_observe(self, float *obs) noexcept nogil
    cdef void v_returns(self, double *out) noexcept nogil
