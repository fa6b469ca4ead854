# cython: language_level=3
"""The exact Reversi endgame solver in C (``ext/brett_endgame.h``): the twin of
``_solve_py`` (same function, same answers; the plain one is the oracle of the
tests on small endgames).

``solve(black, white, blocked, player, alpha, beta, all_best=True)`` takes an
8x8 position (bit ``row * 8 + col``; ``blocked``: the holes) and a window, and
returns ``(score, best, nodes)``: the final disc difference for the player to
move (empty squares to the winner) clamped to ``[alpha, beta]`` (strictly inside:
the exact score; ``alpha``: at most that, ``beta``: at least that), the core moves
that reach it, ascending (squares, or 64 for a forced pass; none once the game is
over; with ``all_best`` false only the first found, the table's move tried
first), and the nodes searched.  The search runs without the GIL; Ctrl-C and a
``brett.Stopper`` end it within milliseconds.
"""

from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.stdint cimport uint64_t

from ._common cimport Interrupt, brett_popcount64, interrupt_init, raise_if_stopped

cdef extern from "brett_endgame.h":
    ctypedef struct BrettSolver:
        int stopped
    ctypedef struct BrettSolverEval:
        pass
    void brett_solver_set_eval(BrettSolver *s, const BrettSolverEval *eval) noexcept nogil
    BrettSolver *brett_solver_new(int tt_bits, uint64_t playable, int level) noexcept nogil
    int brett_solver_table_bits(int empties) noexcept nogil
    void brett_solver_free(BrettSolver *s) noexcept nogil
    int brett_solver_move(const BrettSolver *s, uint64_t P, uint64_t O) noexcept nogil
    int brett_solver_score(BrettSolver *s, uint64_t P, uint64_t O, int alpha, int beta,
                           Interrupt *it, uint64_t *nodes) noexcept nogil
    const char *brett_solver_level_name(int level) noexcept nogil
    void brett_rv_init() noexcept nogil
    bint brett_rv_runs(int level) noexcept nogil
    uint64_t _moves8 "brett_rv_portable_moves8"(uint64_t P, uint64_t O,
                                                uint64_t empty) noexcept nogil
    uint64_t _flips8 "brett_rv_portable_flips8"(uint64_t P, uint64_t O, int sq) noexcept nogil
    int SOLVE_INF "BRETT_SOLVE_INF"

brett_rv_init()

INF = SOLVE_INF
"""Beyond every score: the window (-INF, INF) asks for the exact score."""

PASS = 64
"""The core move of a forced pass on the 8x8 board."""

# The kernel levels of brett_reversi.h, slowest first (as the Reversi core's).
LEVELS = ("portable", "avx2", "avx512")
cdef int LEVEL = 2


def available_kernels():
    """The kernels this build carries and this CPU runs, slowest first."""
    return [name for level, name in enumerate(LEVELS) if brett_rv_runs(level)]


def use_kernels(str cap="auto"):
    """Solve on the fastest kernels this CPU runs, up to ``cap`` (a name of LEVELS,
    or "auto"); returns the name of those in use.  brett.game's load_cores calls it
    at import (``BRETT_KERNELS``)."""
    global LEVEL
    if cap != "auto" and cap not in LEVELS:
        raise ValueError(f"unknown kernels {cap!r}: expected 'auto' or one of {LEVELS}")
    LEVEL = len(LEVELS) if cap == "auto" else LEVELS.index(cap)
    return kernels()


def kernels():
    """The name of the kernels the solver runs on (one of LEVELS)."""
    return brett_solver_level_name(LEVEL).decode()


cdef int _final(uint64_t P, uint64_t playable, int empties) noexcept nogil:
    cdef int d = 2 * brett_popcount64(P) - (brett_popcount64(playable) - empties)
    return d + empties if d > 0 else (d - empties if d < 0 else 0)


def solve(uint64_t black, uint64_t white, uint64_t blocked, int player, int alpha,
          int beta, bint all_best=True, evaluator=None):
    """``(score, best core moves, nodes)`` of the position for the player to move,
    searched in the window (alpha, beta); see the module's documentation."""
    cdef uint64_t playable = ~blocked
    cdef uint64_t P, O, empty, moves, nodes = 0
    cdef int score, empties
    cdef Interrupt it
    cdef BrettSolver *s
    cdef const BrettSolverEval *ordering = NULL
    if evaluator is not None:
        ordering = <const BrettSolverEval *>PyCapsule_GetPointer(evaluator.solver_eval(),
                                                                 b"brett.solver_eval")
    if player not in (0, 1):
        raise ValueError(f"player {player}: expected 0 or 1")
    if black & white or (black | white) & blocked:
        raise ValueError("a square holds two things")
    if not -SOLVE_INF <= alpha < beta <= SOLVE_INF:
        raise ValueError(f"window ({alpha}, {beta}): expected -{SOLVE_INF} <= alpha < beta"
                         f" <= {SOLVE_INF}")
    P = black if player == 0 else white
    O = white if player == 0 else black
    empty = playable & ~(P | O)
    empties = brett_popcount64(empty)
    s = brett_solver_new(brett_solver_table_bits(empties), playable, LEVEL)
    if s == NULL:
        raise MemoryError()
    brett_solver_set_eval(s, ordering)
    interrupt_init(&it, 1 << 10)
    best = []
    try:
        moves = _moves8(P, O, empty)
        if moves == 0:
            if _moves8(O, P, empty) == 0:
                score = _final(P, playable, empties)
            else:
                with nogil:
                    score = -brett_solver_score(s, O, P, -beta, -alpha, &it, &nodes)
                best.append(PASS)
        else:
            with nogil:
                score = brett_solver_score(s, P, O, alpha, beta, &it, &nodes)
            raise_if_stopped(&it)
            best = _best_moves(s, P, O, moves, score, alpha, beta, all_best, &it, &nodes)
        raise_if_stopped(&it)
    finally:
        brett_solver_free(s)
    return min(max(score, alpha), beta), best, nodes


cdef list _best_moves(BrettSolver *s, uint64_t P, uint64_t O, uint64_t moves, int score,
                      int alpha, int beta, bint all_best, Interrupt *it, uint64_t *nodes):
    """The root's moves that reach ``score``: each child searched in the narrowest
    window that tells (the table, warm, makes it cheap), the table's move first;
    every one, or the first found."""
    cdef uint64_t f, b
    cdef int v, sq
    cdef int first = brett_solver_move(s, P, O)
    order = [sq for sq in range(64) if moves >> sq & 1]
    if first < 64 and moves >> first & 1:
        order.remove(first)
        order.insert(0, first)
    best = []
    for sq in order:
        if score <= alpha:
            best.append(sq)     # all fail low: none is known to be better
        else:
            b = (<uint64_t>1) << sq
            f = _flips8(P, O, sq)
            with nogil:
                if score >= beta:
                    v = -brett_solver_score(s, O ^ f, P ^ f ^ b, -beta, 1 - beta, it, nodes)
                else:
                    v = -brett_solver_score(s, O ^ f, P ^ f ^ b, -score - 1, 1 - score,
                                            it, nodes)
            raise_if_stopped(it)
            if v >= beta if score >= beta else v == score:
                best.append(sq)
        if best and not all_best:
            break
    return sorted(best)
