# cython: language_level=3
"""The Reversi pattern evaluation and alpha-beta search in C (``ext/brett_eval.h``).

The plain-Python twin ``_alphabeta_py.py`` is the specification: the same
evaluation, and a fixed-depth :meth:`Evaluator.search` returns the same value.
An :class:`Evaluator` copies a checked weights file (``_alphabeta_py.Weights``)
into C arrays and owns a transposition table; one search runs on it at a time,
without the GIL.
"""

cimport cython
from cpython.pycapsule cimport PyCapsule_New
from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc

from ._common cimport Interrupt, brett_clock, interrupt_init, raise_if_stopped

from ..errors import BrettError
from . import _alphabeta_py as _py

cdef extern from "brett_reversi.h":
    void brett_rv_init() noexcept nogil

cdef extern from "brett_endgame.h":
    ctypedef struct BrettSolver:
        pass
    ctypedef struct BrettSolverEval:
        pass
    BrettSolver *brett_solver_new(int tt_bits, uint64_t playable, int level) noexcept nogil
    void brett_solver_free(BrettSolver *s) noexcept nogil
    void brett_solver_set_eval(BrettSolver *s, const BrettSolverEval *eval) noexcept nogil

cdef extern from "brett_eval.h":
    enum:
        BRETT_EV_MAX_INST
        BRETT_EV_MAX_LEN
        BRETT_AB_INF
    ctypedef struct BrettEval:
        int16_t *w
        int stages, width, size, scale
        int ninst
        int32_t off[64]
        int len[64]
        uint8_t sq[64][12]
        void *piece
    ctypedef struct BrettTT:
        uint64_t P, O
        int32_t lower, upper
        int8_t depth, move, exact, pad
    ctypedef struct BrettSearch:
        Interrupt it
        int (*inner)(Interrupt *it) noexcept nogil
        double deadline
        int *flag
        int timed_out, flagged
        const BrettEval *e
        BrettTT *tt
        uint64_t tt_mask
        uint64_t nodes
        int exact
        BrettSolver *solver
    ctypedef struct BrettThought:
        int move, score, depth, exact, complete
    int brett_ev_eval(const BrettEval *e, uint64_t p, uint64_t o) noexcept nogil
    int brett_ev_prepare(BrettEval *e) noexcept nogil
    void brett_ev_release(BrettEval *e) noexcept nogil
    BrettSolverEval brett_ev_solver_eval(const BrettEval *e) noexcept nogil
    int brett_ab_poll(Interrupt *it) noexcept nogil
    int brett_ab_search(BrettSearch *s, uint64_t p, uint64_t o, int depth, int alpha,
                        int beta) noexcept nogil
    void brett_ab_clear(BrettSearch *s) noexcept nogil
    BrettThought brett_ab_think(BrettSearch *s, uint64_t p, uint64_t o, int max_depth,
                                int solve, double soft) noexcept nogil

cdef extern from *:
    """
    /* Written by the thread that stops a search, read by the searching one. */
    typedef volatile int brett_ab_flag_t;
    """
    ctypedef int brett_ab_flag_t

brett_rv_init()

INF = BRETT_AB_INF
DEFAULT_TABLE_BITS = 20
SOLVER_TABLE_BITS = 20
MASK64 = 0xFFFFFFFFFFFFFFFF


cdef uint64_t _board(object value, str name) except? 0:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MASK64:
        raise BrettError(f"{name}={value!r:.40}: expected a 64-bit board (an int)")
    return <uint64_t>value


@cython.final
@cython.auto_pickle(False)
cdef class Evaluator:
    """The evaluation of ``weights`` (a ``_alphabeta_py.Weights``) and a search
    with a transposition table of 2**table_bits entries."""
    cdef BrettEval ev
    cdef BrettSolverEval solver_ev
    cdef BrettTT *tt
    cdef BrettSolver *solver
    cdef uint64_t tt_mask
    cdef brett_ab_flag_t flag
    cdef int busy
    cdef public bint use_solver
    cdef readonly object weights
    cdef readonly unsigned long long nodes

    def __cinit__(self):
        self.ev.w = NULL
        self.ev.piece = NULL
        self.tt = NULL
        self.solver = NULL
        self.busy = 0

    def __init__(self, weights, int table_bits=DEFAULT_TABLE_BITS):
        cdef Py_ssize_t i, k, n
        if self.busy:
            raise BrettError("this Evaluator is searching")
        if self.ev.w != NULL:
            raise BrettError("an Evaluator is made once")
        if not isinstance(weights, _py.Weights):
            raise BrettError("expected Reversi weights (brett._core._alphabeta_py.Weights)")
        if not 10 <= table_bits <= 26:
            raise BrettError(f"table_bits={table_bits}: expected 10 to 26")
        instances = _py.instances()
        starts = _py.offsets()
        if len(instances) > BRETT_EV_MAX_INST:
            raise BrettError("too many pattern instances")
        values = weights.values
        n = len(values)
        self.ev.w = <int16_t *>malloc(max(n, 1) * sizeof(int16_t))
        self.tt = <BrettTT *>malloc((<size_t>1 << table_bits) * sizeof(BrettTT))
        self.solver = brett_solver_new(SOLVER_TABLE_BITS, MASK64, 2)  # up to avx512
        if self.ev.w == NULL or self.tt == NULL or self.solver == NULL:
            raise MemoryError()
        for i in range(n):
            self.ev.w[i] = values[i]
        self.ev.stages = weights.stages
        self.ev.width = weights.width
        self.ev.scale = weights.scale
        self.ev.size = _py.stage_size()
        self.ev.ninst = len(instances)
        for i, (number, squares) in enumerate(instances):
            if len(squares) > BRETT_EV_MAX_LEN:
                raise BrettError("a pattern is too long")
            self.ev.off[i] = starts[number]
            self.ev.len[i] = len(squares)
            for k, sq in enumerate(squares):
                self.ev.sq[i][k] = sq
        if brett_ev_prepare(&self.ev) != 0:
            raise MemoryError()
        self.tt_mask = (<uint64_t>1 << table_bits) - 1
        self.solver_ev = brett_ev_solver_eval(&self.ev)
        brett_solver_set_eval(self.solver, &self.solver_ev)
        self.weights = weights
        self.flag = 0
        self.busy = 0
        self.nodes = 0
        self.use_solver = True

    def solver_eval(self):
        """The evaluation for the endgame solver's move ordering (``_solve_c``): a
        capsule that stays valid while this Evaluator lives."""
        return PyCapsule_New(&self.solver_ev, b"brett.solver_eval", NULL)

    def __dealloc__(self):
        free(self.ev.w)
        brett_ev_release(&self.ev)
        free(self.tt)
        if self.solver != NULL:
            brett_solver_free(self.solver)

    cdef void _prepare(self, BrettSearch *s, double deadline) noexcept:
        interrupt_init(&s.it, 1000)
        s.inner = s.it.poll
        s.it.poll = brett_ab_poll
        s.deadline = deadline
        s.flag = <int *>&self.flag
        s.timed_out = 0
        s.flagged = 0
        s.e = &self.ev
        s.tt = self.tt
        s.tt_mask = self.tt_mask
        s.nodes = 0
        s.exact = 0
        s.solver = self.solver if self.use_solver else NULL

    cdef int _claim(self) except -1:
        if self.busy:
            raise BrettError("this Evaluator is searching in another thread")
        self.busy = 1
        self.flag = 0
        return 0

    def evaluate(self, p, o) -> int:
        """The pattern evaluation for the mover (``p``), in 1/scale discs."""
        cdef uint64_t cp = _board(p, "P"), co = _board(o, "O")
        if cp & co:
            raise BrettError("p and o overlap")
        return brett_ev_eval(&self.ev, cp, co)

    def search(self, p, o, int depth, int alpha=-BRETT_AB_INF, int beta=BRETT_AB_INF) -> int:
        """The fixed-depth negamax value (passes free), clamped to alpha..beta as the
        twin's fail-hard search answers; a fresh transposition table."""
        cdef uint64_t cp = _board(p, "P"), co = _board(o, "O")
        cdef BrettSearch s
        cdef int v
        if cp & co:
            raise BrettError("p and o overlap")
        if not 0 <= depth <= 60 or not -BRETT_AB_INF <= alpha < beta <= BRETT_AB_INF:
            raise BrettError(f"depth {depth} (0-60), window {alpha}..{beta}")
        self._claim()
        try:
            self._prepare(&s, 0.0)
            with nogil:
                brett_ab_clear(&s)
                v = brett_ab_search(&s, cp, co, depth, alpha, beta)
            self.nodes = s.nodes
            raise_if_stopped(&s.it)
            if s.it.stopped:
                raise BrettError("the search was stopped")
        finally:
            self.busy = 0
        return max(alpha, min(beta, v))

    def think(self, p, o, double seconds=0.0, int depth=60, int solve=0,
              double soft=0.0):
        """The best move by iterative deepening to ``depth`` within ``seconds`` (0:
        no limit), then the exact search with ``solve`` empties or fewer; ``soft``
        seconds: no new midgame iteration after them (0: none).  Returns (move,
        score, depth, exact, complete, nodes, why) where why is "" or "time" or
        "stop"; Ctrl-C and a stopped Stopper raise (KeyboardInterrupt, Stopped)."""
        cdef uint64_t cp = _board(p, "P"), co = _board(o, "O")
        cdef BrettSearch s
        cdef BrettThought r
        cdef double start
        if cp & co:
            raise BrettError("p and o overlap")
        if not 1 <= depth <= 60 or not 0 <= solve <= 60 or seconds < 0 or soft < 0:
            raise BrettError(f"think: depth {depth}, solve {solve}, seconds {seconds}")
        self._claim()
        try:
            start = brett_clock()
            self._prepare(&s, start + seconds if seconds > 0 else 0.0)
            with nogil:
                r = brett_ab_think(&s, cp, co, depth, solve, start + soft if soft > 0 else 0.0)
            self.nodes = s.nodes
            why = "time" if s.timed_out else "stop" if s.flagged else ""
            if s.it.stopped and not s.timed_out and not s.flagged:
                try:
                    raise_if_stopped(&s.it)
                except KeyboardInterrupt:  # Ctrl-C: the best move so far, as MCTSPlayer
                    why = "interrupt"
        finally:
            self.busy = 0
        return (r.move, r.score, r.depth, bool(r.exact), bool(r.complete), s.nodes, why)

    def stop(self) -> None:
        """End the running search (from any thread)."""
        self.flag = 1
