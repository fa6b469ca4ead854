# What every Cython core shares: the portable C helpers of ext/, the player
# constants, the Ctrl-C check of long searches and the CoreBase class (the move
# stack and the thread guard of the core protocol, see _base.py).

from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t

cdef extern from "brett_bitops.h":
    int brett_popcount64(uint64_t x) noexcept nogil
    int brett_ctz64(uint64_t x) noexcept nogil
    int brett_msb64(uint64_t x) noexcept nogil

cdef extern from "brett_rng.h":
    uint64_t brett_rng_next(uint64_t *state) noexcept nogil
    uint32_t brett_rng_below(uint64_t *state, uint32_t n) noexcept nogil

cdef enum:
    CHANCE_PLAYER = -1       # player() at a chance node
    TERMINAL_PLAYER = -4     # player() once the game is over

# A search polls for signals (Ctrl-C) and stoppers when interrupted() has counted
# down; the poll re-arms the countdown to last about BRETT_POLL_SECONDS (the
# struct and the countdown are in C, so the kernels of ext/ share them).
cdef extern from "brett_interrupt.h":
    ctypedef struct Interrupt "BrettInterrupt":
        uint32_t countdown
        uint32_t every
        int stopped
        int (*poll)(Interrupt *it) noexcept nogil
        double since
    bint interrupted "brett_interrupted"(Interrupt *it) noexcept nogil
    double brett_clock() noexcept nogil
    void brett_rearm(Interrupt *it, double worked) noexcept nogil

# Every core's undo stack: grow a malloc'd array to hold ``need`` items of ``size``
# bytes (doubling, from ``first``); MemoryError when it cannot.
cdef void *grow_array(void *array, Py_ssize_t *capacity, Py_ssize_t need, size_t size,
                      Py_ssize_t first) except NULL

cdef inline long long capped(long long n, long long limit) noexcept nogil:
    """A count of moves as count(limit) answers it: n, or limit + 1 if n is more."""
    return n if limit < 0 or n <= limit else limit + 1

cdef int poll_signals(Interrupt *it) noexcept nogil
cdef int raise_if_stopped(Interrupt *it) except -1

cdef inline void interrupt_init(Interrupt *it, uint32_t every) noexcept nogil:
    """The first poll after ``every`` calls of interrupted(); later ones adapt."""
    it.countdown = every
    it.every = every
    it.stopped = 0
    it.poll = poll_signals
    it.since = brett_clock()


cdef class CoreBase:
    cdef readonly list entries      # the public move stack (Move objects)
    cdef int busy                   # depth of enter() calls of the owner
    cdef unsigned long owner        # the thread inside enter()
    cdef int claim(self) except -1

    # The search protocol of brett.ai's tree search (_search.pyx), called on a
    # private clone without the GIL; the plain twins have the same hooks as
    # PyCore._s_* methods (see _base.py).  A search action is an int64: a core
    # move, a chance outcome, or (Phutball) one step of a move.
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

    # The integer layer in C, for brett.vector.VectorEnv and the ``out=`` fast paths
    # of Game.observation_tensor / legal_actions_mask: a core that a VectorEnv steps
    # plays Game's integer actions itself (apply_action, with the actions of a
    # half-made move pending in the core, never in a Game) without the GIL.  Each
    # hook gives exactly what the Game's public call gives in the same position;
    # tests/test_vector_hooks.py compares them on random games of both twins.
    # A core without them answers v_supported() 0 (the defaults below).
    cdef bint v_supported(self) noexcept nogil
    cdef void v_reset(self, CoreBase start) noexcept nogil
    cdef int v_player(self) noexcept nogil
    cdef int v_mask(self, uint8_t *mask) noexcept nogil
    cdef int v_chance(self, int64_t *actions, double *probs) noexcept nogil
    cdef int v_apply(self, int64_t action) noexcept nogil
    cdef void v_observe(self, float *obs) noexcept nogil
    cdef void v_returns(self, double *out) noexcept nogil


# The transposition table of a hashed perft (ext/brett_perft_table.h), owned by a
# Python object so that one table can serve several counts of one call (divide);
# ``context`` names what its counts hold for (board, convention, symmetries): a
# core clears the table before it counts in another context.
cdef extern from "brett_perft_table.h":
    ctypedef struct BrettPerftTable:
        pass
    void brett_perft_table_clear(BrettPerftTable *t) noexcept nogil
    uint64_t BRETT_PERFT_SATURATED

cdef class PerftTable:
    cdef BrettPerftTable table
    cdef readonly uint64_t size     # bytes
    cdef bint shared
    cdef int words                  # a position's 64-bit words (the key)
    cdef object context
    cdef int _open(self, int words) except -1
    cdef BrettPerftTable *ready(self, object context, int words) except NULL
