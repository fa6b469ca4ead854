# The C state of the Phutball core (see _phutball_c.pyx and the oracle _phutball_py.py).

from libc.stdint cimport int64_t, uint8_t, uint64_t

from ._common cimport CoreBase

cdef enum:
    PH_MAXSIZE = 25
    PH_MAXW = PH_MAXSIZE + 2                   # a padded row: one sentinel column per side
    PH_PADMAX = (PH_MAXSIZE + 4) * PH_MAXW     # two padding rows below and above the board
    PH_MAXCELLS = PH_MAXSIZE * (PH_MAXSIZE + 2)

# The board's geometry: fixed once a state is loaded.  Padded cells index the
# mailbox; "cells" (row * columns + column) are the core moves' numbering.
ctypedef struct Geo:
    int cols, rows, W, ncells, npoints
    int first, last              # padded range of rows 1..rows
    int top_start, row2_start    # first padded cell of row rows + 1 and of row 2
    int off[8]                   # padded offsets of N NE E SE S SW W NW
    int cell_of[PH_PADMAX]
    int pad_of[PH_MAXCELLS]
    uint64_t zman[PH_PADMAX]
    uint64_t zball[PH_PADMAX]

# What moves change: searches copy it and work on the copy.
ctypedef struct Pos:
    uint8_t board[PH_PADMAX]
    int ball, side, ply, cap, nmen
    uint64_t key


cdef class PhutballCore(CoreBase):
    cdef Geo geo
    cdef Pos pos
    # undo stack: per move the removed men, then (count, old ball, placed or -1)
    cdef int *undo
    cdef Py_ssize_t undo_len, undo_cap
    cdef int _reserve(self, Py_ssize_t extra) except -1
    cdef int _legal(self, object cm) except -1

    # the search protocol (see _common.pxd): a search action is a placement (its
    # cell), a jump of the ball (-1 - direction) or *stop* (-9).  A ball move is
    # made step by step: the jumps are made on ``pos`` at once (side and ply
    # unchanged while ``s_jumps`` > 0, the move pending), *stop* or a landing
    # beyond a goal line ends it.  The steps' undo records live on their own
    # stack (``sundo``), not on push / pop's.
    cdef int *sundo
    cdef Py_ssize_t sundo_len, sundo_cap
    cdef int s_jumps                 # jumps made of the pending ball move (0: none)
    cdef int _s_reserve(self, Py_ssize_t extra) except -1
    cdef int s_max_actions(self) noexcept nogil
    cdef int s_player(self) noexcept nogil
    cdef int s_actions(self, int64_t *out) noexcept nogil
    cdef int s_do(self, int64_t action) except -1 nogil
    cdef void s_undo(self) noexcept nogil
    cdef bint s_pending(self) noexcept nogil
    cdef int s_winners(self) noexcept nogil
    cdef int s_playout(self, uint64_t *rng, int max_plies) noexcept nogil

    # the integer layer in C (see _common.pxd; brett.vector.VectorEnv): phutball.py's
    # actions (placements, jump directions, stop).  ``pos`` stays the position
    # before a pending ball move (so get_state(), clone() and the search never see
    # it); the jumps so far are made on ``vshown`` (the board the observation
    # shows), and the move's end copies it back and passes the turn.
    cdef Pos vshown
    cdef int vjumps                  # jumps of the pending ball move (0: none)
    cdef void _v_end_move(self) noexcept nogil
    cdef bint v_supported(self) noexcept nogil
    cdef void v_reset(self, CoreBase start) noexcept nogil
    cdef int v_player(self) noexcept nogil
    cdef int v_mask(self, uint8_t *mask) noexcept nogil
    cdef int v_chance(self, int64_t *actions, double *probs) noexcept nogil
    cdef int v_apply(self, int64_t action) noexcept nogil
    cdef void v_observe(self, float *obs) noexcept nogil
    cdef void v_returns(self, double *out) noexcept nogil
