from libc.stdint cimport int16_t, int32_t, int64_t, uint8_t, uint64_t

from ._common cimport CoreBase

# Undo record of one move: the flipped discs as a 256-bit set (bitboard layout on
# boards up to 8x8, square indices on larger boards), the move, the key before it.
cdef struct Undo:
    uint64_t flips[4]
    uint64_t key
    int32_t move

# Boards from 10x10 to 16x16 and the octagon: a padded mailbox (make/unmake walk
# its lines) mirrored in 256-bit bitboards of four words, bit = row * 16 + col
# (move generation by shifts).
# Boards from 10x10 to 16x16 and the octagon: the mailbox and wide bitboards of
# the C kernels (ext/brett_reversi.h).
cdef extern from "brett_reversi.h":
    ctypedef struct Big "BrettBig":
        int n
        int stride
        int dirs[8]
        uint8_t cell[18 * 18]
        int16_t mb[256]        # square index -> mailbox index
        int16_t bit2mb[256]    # wide bit -> mailbox index (-1 off the board)
        int16_t mb2bit[18 * 18]
        uint64_t bits[2][4]    # discs by colour
        uint64_t empty[4]      # empty playable squares


cdef class ReversiCore(CoreBase):
    cdef int n               # board side
    cdef int n2              # squares; also the pass move
    cdef bint big            # mailbox (n >= 10) instead of bitboards
    cdef int mover           # 0 Black, 1 White
    cdef bint anti           # anti-Reversi: fewer discs win (the moves are the same)
    cdef uint64_t zkey
    # bitboards (n <= 8), bit = row * 8 + col
    cdef uint64_t disc[2]
    cdef uint64_t playable
    cdef int sq2bit[64]
    cdef int bit2sq[64]
    # mailbox (n >= 10)
    cdef Big bb
    # undo stack
    cdef Undo *undo
    cdef int nundo
    cdef Py_ssize_t cap

    cdef int _load(self, int n, object black, object white, object blocked,
                   int player) except -1
    cdef int _reserve(self, Py_ssize_t need) except -1
    cdef uint64_t _empty(self) noexcept nogil
    cdef int _status(self) noexcept nogil
    cdef bint _legal(self, int cm) noexcept nogil
    cdef int _list(self, int16_t *out) noexcept nogil
    cdef void _make(self, int cm) noexcept nogil
    cdef void _make_into(self, Undo *rec, int cm) noexcept nogil
    cdef void _unmake(self) noexcept nogil
    cdef void _counts(self, int *nb, int *nw) noexcept nogil
    cdef tuple _wide_playable(self)

    # the search protocol (see _common.pxd): a search action is a core move (a
    # square, or n2 for the pass); s_do / s_undo share the undo stack of push /
    # pop (never mixed with them)
    cdef int s_max_actions(self) noexcept nogil
    cdef int s_player(self) noexcept nogil
    cdef int s_actions(self, int64_t *out) noexcept nogil
    cdef int s_do(self, int64_t action) except -1 nogil
    cdef void s_undo(self) noexcept nogil
    cdef int s_winners(self) noexcept nogil
    cdef int s_playout(self, uint64_t *rng, int max_plies) noexcept nogil

    # the integer layer in C (see _common.pxd)
    cdef bint v_supported(self) noexcept nogil
    cdef void v_reset(self, CoreBase start) noexcept nogil
    cdef int v_player(self) noexcept nogil
    cdef int v_mask(self, uint8_t *mask) noexcept nogil
    cdef int v_chance(self, int64_t *actions, double *probs) noexcept nogil
    cdef int v_apply(self, int64_t action) noexcept nogil
    cdef void v_observe(self, float *obs) noexcept nogil
    cdef void v_returns(self, double *out) noexcept nogil
