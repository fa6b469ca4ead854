# cython: language_level=3
"""Shared by every Cython core: signal polling, CPU features and :class:`CoreBase`."""

cimport cython
from cpython.pythread cimport PyThread_get_thread_ident
from cpython.buffer cimport (
    PyBUF_C_CONTIGUOUS,
    PyBUF_FORMAT,
    PyBUF_WRITABLE,
    PyBuffer_Release,
    PyObject_GetBuffer,
)
from cpython.ref cimport PyObject
from libc.stdint cimport SIZE_MAX, int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc, realloc

cdef extern from "Python.h":
    # Declared without an exception value: the exception a handler raises must
    # stay set (Cython would otherwise report it as unraisable in a noexcept
    # function) until raise_if_stopped hands it to the caller.
    int check_signals "PyErr_CheckSignals" ()
    # Likewise: NULL with the exception (Stopped) left set.
    PyObject *PyObject_CallNoArgs(PyObject *callable)
    void Py_DecRef(PyObject *o)

from ._base import busy_error
from ._stop import check as stop_check

cdef extern from "brett_cpu.h":
    unsigned brett_cpu_features() noexcept nogil
    unsigned BRETT_CPU_POPCNT, BRETT_CPU_BMI1, BRETT_CPU_BMI2, BRETT_CPU_LZCNT, BRETT_CPU_AVX2
    unsigned BRETT_CPU_AVX512

cdef extern from "brett_perft_table.h":
    bint brett_perft_table_open(BrettPerftTable *t, uint64_t size, int words) noexcept nogil
    void brett_perft_table_close(BrettPerftTable *t) noexcept nogil
    size_t brett_perft_table_bytes(const BrettPerftTable *t) noexcept nogil
    bint brett_perft_table_share(BrettPerftTable *t) noexcept nogil


cdef class PerftTable:
    """A hashed perft's table of at most ``size`` bytes (see _common.pxd) for
    positions of ``words`` 64-bit words; ``shared``: several threads count
    through it at once (it takes its whole size now)."""

    def __cinit__(self, uint64_t size, bint shared=False, int words=2):
        self.size = size
        self.shared = shared
        self.context = None
        self._open(words)

    cdef int _open(self, int words) except -1:
        if not brett_perft_table_open(&self.table, self.size, words) \
                or self.shared and not brett_perft_table_share(&self.table):
            brett_perft_table_close(&self.table)
            raise MemoryError(f"no memory for a perft table of {self.size} bytes")
        self.words = words
        return 0

    def __dealloc__(self):
        brett_perft_table_close(&self.table)

    def __reduce__(self):
        raise TypeError("a perft table is not pickled: make one where it is used")

    @property
    def bytes_in_use(self):
        """The bytes its entries take now: it grows as it fills, up to ``size``."""
        return brett_perft_table_bytes(&self.table)

    cdef BrettPerftTable *ready(self, object context, int words) except NULL:
        """The table for positions of ``words`` words, emptied if its counts were
        made in another context (and made anew for another length of key)."""
        if words != self.words:
            brett_perft_table_close(&self.table)
            self.context = None
            self._open(words)
        elif self.context is not None and self.context != context:
            brett_perft_table_clear(&self.table)
        self.context = context
        return &self.table


def cpu_features():
    """The instruction-set extensions of this CPU that brett's kernels can use."""
    cdef unsigned found = brett_cpu_features()
    names = [("popcnt", BRETT_CPU_POPCNT), ("bmi1", BRETT_CPU_BMI1), ("bmi2", BRETT_CPU_BMI2),
             ("lzcnt", BRETT_CPU_LZCNT), ("avx2", BRETT_CPU_AVX2),
             ("avx512", BRETT_CPU_AVX512)]
    return [name for name, bit in names if found & bit]


cdef void *grow_array(void *array, Py_ssize_t *capacity, Py_ssize_t need, size_t size,
                      Py_ssize_t first) except NULL:
    """``array`` (``capacity[0]`` items) grown to at least ``need`` items."""
    cdef Py_ssize_t cap = capacity[0] if capacity[0] > 0 else max(first, 1)
    cdef void *grown
    if array != NULL and need <= capacity[0]:
        return array
    while cap < need:
        cap *= 2
    if <size_t>cap > SIZE_MAX // size:  # the byte count would overflow (32-bit)
        raise MemoryError()
    grown = realloc(array, <size_t>cap * size)
    if grown == NULL:
        raise MemoryError()
    capacity[0] = cap
    return grown


cdef int poll_signals(Interrupt *it) noexcept nogil:
    """Run Python's signal handlers and check this thread's stoppers (brett.Stopper);
    the exception (KeyboardInterrupt, Stopped) stays set and stops the search (see
    raise_if_stopped)."""
    cdef double start
    if it.stopped:
        return 1
    start = brett_clock()
    with gil:
        if check_signals() != 0 or not _stop_ok():
            it.stopped = 1
    brett_rearm(it, start - it.since)
    return it.stopped


cdef bint _stop_ok() noexcept:
    """stop_check() without Cython's exception handling: False with Stopped set."""
    cdef PyObject *result = PyObject_CallNoArgs(<PyObject *>stop_check)
    if result == NULL:
        return False
    Py_DecRef(result)
    return True


cdef int raise_if_stopped(Interrupt *it) except -1:
    """Propagate the exception a signal handler left set during the search."""
    return -1 if it.stopped else 0


@cython.auto_pickle(False)
cdef class CoreBase:
    """The move stack and the thread guard every compiled core shares.

    Every method of a compiled core holds the GIL from start to end (searches
    release it only on private copies), so a push or pop is atomic; enter() /
    leave() let the game layer make several calls as one."""

    def __cinit__(self, *args, **kwargs):
        self.entries = []
        self.busy = 0
        self.owner = 0

    def enter(self):
        cdef unsigned long me = PyThread_get_thread_ident()
        if self.busy and self.owner != me:
            raise busy_error()
        self.busy += 1
        self.owner = me

    def leave(self):
        if self.busy:
            self.busy -= 1

    cdef int claim(self) except -1:
        """Refuse a mutation while another thread is inside enter()."""
        if self.busy and self.owner != PyThread_get_thread_ident():
            raise busy_error()
        return 0

    # ---- the search protocol (see _common.pxd); each compiled core overrides it
    cdef int s_max_actions(self) noexcept nogil:
        """An upper bound of s_actions() and s_chance() in any position."""
        return 0

    cdef int s_player(self) noexcept nogil:
        """The player to move, CHANCE_PLAYER or TERMINAL_PLAYER (like player())."""
        return TERMINAL_PLAYER

    cdef int s_actions(self, int64_t *out) noexcept nogil:
        """Write the search actions of a decision node in canonical order; their number."""
        return 0

    cdef int s_chance(self, int64_t *out, double *prob) noexcept nogil:
        """Write a chance node's outcomes and probabilities (as chance_moves()); their number."""
        return 0

    cdef int s_do(self, int64_t action) except -1 nogil:
        """Make a search action (legal here), keeping an undo record; -1 with an
        exception set when memory runs out."""
        with gil:
            raise NotImplementedError("this core has no search protocol")

    cdef void s_undo(self) noexcept nogil:
        """Take back the last s_do()."""
        pass

    cdef bint s_pending(self) noexcept nogil:
        """True in the middle of a move of several search actions (a Phutball jump)."""
        return 0

    cdef int s_winners(self) noexcept nogil:
        """At a terminal node: bit p set for each winner (0: a draw)."""
        return 0

    cdef int s_playout(self, uint64_t *rng, int max_plies) noexcept nogil:
        """One random game from here, the state left unchanged: the draw of
        playouts(1, rng[0], max_plies), rng advanced like it; the winners' bits
        (0: a draw, or unfinished after max_plies moves), or -1 when a game cut
        short is valued by s_shares()."""
        return 0

    cdef void s_shares(self, double *values) noexcept nogil:
        """After s_playout() returned -1: each player's value (0..1) of the cut game."""
        cdef int p
        for p in range(4):
            values[p] = 0.5

    # ---- the integer layer in C (see _common.pxd); a core without it says so
    cdef bint v_supported(self) noexcept nogil:
        return 0

    cdef void v_reset(self, CoreBase start) noexcept nogil:
        """Become ``start``'s position (a core of the same game and options with no
        pending actions): no pending actions, no undo records kept."""
        pass

    cdef int v_player(self) noexcept nogil:
        """Game.current_player(): the mover (also while a move is pending),
        CHANCE_PLAYER or TERMINAL_PLAYER."""
        return TERMINAL_PLAYER

    cdef int v_mask(self, uint8_t *mask) noexcept nogil:
        """Game.legal_actions_mask() into mask[num_distinct_actions] (1 legal, 0
        not; the chance outcomes at a chance node); returns the number legal."""
        return 0

    cdef int v_chance(self, int64_t *actions, double *probs) noexcept nogil:
        """Game.chance_outcomes() in its order; returns their number (0: none)."""
        return 0

    cdef int v_apply(self, int64_t action) noexcept nogil:
        """Game.apply_action(action): 0 when played, -1 when not legal (nothing
        changed).  Memory stays bounded however long the core is stepped."""
        return -1

    cdef void v_observe(self, float *obs) noexcept nogil:
        """Game.observation_tensor(), flat (row-major), after pending actions."""
        pass

    cdef void v_returns(self, double *out) noexcept nogil:
        """Game.returns(): one value per player."""
        pass


# ---- the search protocol seen from Python: the tests compare it with the twins'
# _s_* methods (PyCore) on one position.
cdef int64_t *_scratch(CoreBase core) except NULL:
    cdef int64_t *buf = <int64_t *>malloc((core.s_max_actions() + 1) * sizeof(int64_t))
    if buf == NULL:
        raise MemoryError()
    return buf


def probe_actions(CoreBase core):
    """s_actions() as a list."""
    cdef int64_t *buf = _scratch(core)
    cdef int n, i
    try:
        n = core.s_actions(buf)
        return [buf[i] for i in range(n)]
    finally:
        free(buf)


def probe_chance(CoreBase core):
    """s_chance() as a list of (outcome, probability)."""
    cdef int64_t *buf = _scratch(core)
    cdef double *prob = <double *>malloc((core.s_max_actions() + 1) * sizeof(double))
    cdef int n, i
    try:
        if prob == NULL:
            raise MemoryError()
        n = core.s_chance(buf, prob)
        return [(buf[i], prob[i]) for i in range(n)]
    finally:
        free(buf)
        free(prob)


def probe_do(CoreBase core, int64_t action):
    core.s_do(action)


def probe_undo(CoreBase core):
    core.s_undo()


def probe_player(CoreBase core):
    return core.s_player()


def probe_pending(CoreBase core):
    return bool(core.s_pending())


def probe_winners(CoreBase core):
    return core.s_winners()


def probe_playout(CoreBase core, uint64_t rng, int max_plies):
    """(winners' bits, the generator's state after the playout)."""
    cdef int mask = core.s_playout(&rng, max_plies)
    return mask, rng


def probe_shares(CoreBase core):
    """s_shares() after a playout that returned -1."""
    cdef double values[4]
    core.s_shares(values)
    return [values[0], values[1], values[2], values[3]]


def probe_max_actions(CoreBase core):
    return core.s_max_actions()


# ---- the integer layer in C seen from Python: private probes that
# tests/test_vector_hooks*.py compare with Game's calls (the buffers must be of the
# game's sizes: nothing here knows them), and vector_supported for brett.vector.
def vector_supported(CoreBase core not None):
    return bool(core.v_supported())


def vector_reset(CoreBase core not None, CoreBase start not None):
    if type(start) is not type(core):
        raise TypeError("the start must be a core of the same class")
    core.v_reset(start)


def vector_player(CoreBase core not None):
    return core.v_player()


def vector_mask(CoreBase core not None, uint8_t[::1] out):
    """Fill ``out`` (num_distinct_actions bytes) with the mask; the number legal."""
    return core.v_mask(&out[0])


def vector_chance(CoreBase core not None, int size):
    """v_chance() as a list of (action, probability); ``size`` bounds the count."""
    cdef int64_t *acts = <int64_t *>malloc(size * sizeof(int64_t))
    cdef double *probs = <double *>malloc(size * sizeof(double))
    cdef int n, i
    try:
        if acts == NULL or probs == NULL:
            raise MemoryError()
        n = core.v_chance(acts, probs)
        return [(acts[i], probs[i]) for i in range(n)]
    finally:
        free(acts)
        free(probs)


def vector_apply(CoreBase core not None, int64_t action):
    """0 when played, -1 when not legal."""
    return core.v_apply(action)


def vector_observe(CoreBase core not None, float[::1] out):
    """Fill ``out`` (the observation's size) with the observation."""
    core.v_observe(&out[0])


def vector_returns(CoreBase core not None, int players):
    cdef double values[4]
    core.v_returns(values)
    return [values[i] for i in range(players)]


# ---- the ``out=`` fast paths of Game.observation_tensor / legal_actions_mask:
# the hooks write straight into a numpy array's buffer (checked here, in C).
cdef bint _buffer_fits(Py_buffer *view, tuple shape, bytes formats) noexcept:
    cdef Py_ssize_t d
    if view.ndim != len(shape) or view.format == NULL or len(view.format) != 1 \
            or (<bytes>view.format) not in formats:
        return False
    for d in range(view.ndim):
        if view.shape[d] != shape[d]:
            return False
    return True


cdef bint _get_buffer(object out, Py_buffer *view):
    """A writable C-contiguous buffer of ``out``; False if it has none."""
    try:
        PyObject_GetBuffer(out, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE)
    except (BufferError, TypeError, ValueError):
        return False
    return True


def fill_observation(CoreBase core not None, object out, tuple shape):
    """v_observe() into ``out``, a writable C-contiguous float32 array of
    ``shape``; False (nothing written) if ``out`` is not one."""
    cdef Py_buffer view
    if not _get_buffer(out, &view):
        return False
    try:
        if not _buffer_fits(&view, shape, b"f"):
            return False
        core.v_observe(<float *>view.buf)
        return True
    finally:
        PyBuffer_Release(&view)


def fill_mask(CoreBase core not None, object out, int size):
    """v_mask() into ``out``, a writable C-contiguous one-byte array (bool,
    uint8 or int8) of length ``size``; False (nothing written) if not one."""
    cdef Py_buffer view
    if not _get_buffer(out, &view):
        return False
    try:
        if not _buffer_fits(&view, (size,), b"?Bb"):
            return False
        core.v_mask(<uint8_t *>view.buf)
        return True
    finally:
        PyBuffer_Release(&view)
