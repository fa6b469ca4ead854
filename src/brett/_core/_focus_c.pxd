# The C state of the Focus core (see _focus_c.pyx and the oracle _focus_py.py).

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t

from ._common cimport CoreBase

cdef enum:
    FC_SQUARES = 52
    FC_ENTRY_BASE = 3120
    FC_ACTIONS = 3172
    FC_MAX_MOVES = 3172      # an upper bound for one position's legal moves

ctypedef struct FMeta:
    uint64_t own[4]          # bit s: player p's piece is on top of square s
    uint64_t occ             # bit s: square s holds a stack
    uint64_t key             # Zobrist key
    int32_t ply
    int32_t mirror           # -1 ok, -2 broken / off, else the action player 1 must answer
    int32_t mob[4]           # number of stack moves of each player (bulk counting)
    uint8_t reserve[4]
    uint8_t captured[4][4]   # captured[p][colour]
    uint8_t returned[4]      # own pieces sent to the reserve by overflow (3 players)
    uint8_t first            # bit p: player p owes the first entry (F8)
    uint8_t to_move
    uint8_t winners          # bitmask, valid when reason != 0
    uint8_t reason           # 0 while the game runs, else the code of _focus_py.REASONS

ctypedef struct FUndo:
    FMeta meta
    uint32_t s_stk
    uint32_t t_stk
    int8_t s                 # -1 for an entry
    int8_t t
    uint8_t s_ht
    uint8_t t_ht

ctypedef struct FState:
    uint32_t stk[52]         # 2 bits per piece, bottom piece in bits 0-1
    uint8_t ht[52]
    FMeta m
    int n
    int teams
    int rule
    int cap                  # -1: no ply cap
    int mirror_rule


cdef class FocusCore(CoreBase):
    cdef FState st
    cdef double cut[4]           # the players' values of the last playout cut short
    cdef FUndo* undo
    cdef Py_ssize_t nundo
    cdef Py_ssize_t capundo
    cdef int _reserve(self, Py_ssize_t need) except -1

    # the search protocol (see _common.pxd): a search action is a core move;
    # s_do / s_undo share the undo stack of push / pop (never mixed with them)
    cdef int s_max_actions(self) noexcept nogil
    cdef int s_player(self) noexcept nogil
    cdef int s_actions(self, int64_t *out) noexcept nogil
    cdef int s_do(self, int64_t action) except -1 nogil
    cdef void s_undo(self) noexcept nogil
    cdef int s_winners(self) noexcept nogil
    cdef int s_playout(self, uint64_t *rng, int max_plies) noexcept nogil

    # the integer layer in C (see _common.pxd): a Focus action is one whole move
    # (no chance, nothing pending), made on a scratch undo record
    cdef bint v_supported(self) noexcept nogil
    cdef void v_reset(self, CoreBase start) noexcept nogil
    cdef int v_player(self) noexcept nogil
    cdef int v_mask(self, uint8_t *mask) noexcept nogil
    cdef int v_chance(self, int64_t *actions, double *probs) noexcept nogil
    cdef int v_apply(self, int64_t action) noexcept nogil
    cdef void v_observe(self, float *obs) noexcept nogil
    cdef void v_returns(self, double *out) noexcept nogil
