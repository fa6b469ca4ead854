# cython: language_level=3
"""Monte Carlo tree search (UCT) over the search protocol of any compiled core.

One implementation for every game: it drives a private clone of a core through
the ``s_*`` methods of :class:`CoreBase` (``_common.pxd``) without the GIL.  The
plain-Python twin ``_search_py.py`` is the same algorithm step for step (the
tests compare their trees); read it first, it is the specification.

An iteration walks from the root to a leaf: at a decision node it takes the
first unvisited child, else the child of highest UCT score
``mean + c * sqrt(ln(parent visits)) / sqrt(child visits)`` (the first on ties); at a
chance node it draws an outcome by its probability.  A node is expanded (all its
children created at once) on its second visit, or at once for the root; a leaf
is valued by one random playout (the core's own playout, same generator).  The
result is backed up as a value for each node's mover: 1 for a win, 0 for a
loss, 0.5 for a draw or a playout cut short.  Nodes live in one array that
grows up to ``max_nodes`` (the root's children are always made); a full tree
keeps searching without expanding.
"""

cimport cython
from libc.math cimport log, sqrt
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, realloc

from ._common cimport CHANCE_PLAYER, TERMINAL_PLAYER, CoreBase, brett_rng_next

cdef extern from *:
    """
    /* Written by the thread that stops a search, read by the searching one. */
    typedef volatile int brett_flag_t;
    """
    ctypedef int brett_flag_t

ctypedef struct Node:
    int64_t action       # the action from the parent (a chance outcome under a chance node)
    double value         # the sum of the values backed up, for `mover`
    double mean          # value / visits, and 1 / sqrt(visits): kept by the backup,
    double isq           # so that a selection costs no division nor root per child
    double prob          # the outcome's probability (children of a chance node)
    int32_t first        # first child's index, -1 while not expanded
    int32_t nchildren
    uint32_t visits
    int8_t mover         # the player who chose `action` (CHANCE_PLAYER for an outcome)
    int8_t pending       # 1: the mover is still in the middle of a move here; -1 unknown
    int8_t player        # s_player() here, UNKNOWN before the first visit
    uint8_t mask         # s_winners() at a terminal node

cdef enum:
    FIRST_NODES = 1024
    MAX_DEPTH_START = 256
    MAX_VISITS = 0x7FFFFFFF     # the counts stay exact in 32 bits
    UNKNOWN = -8


@cython.final
@cython.auto_pickle(False)
cdef class StopFlag:
    """Set by :meth:`set` (any thread) to end the searches that share it."""
    cdef brett_flag_t flag

    def set(self):
        self.flag = 1

    def is_set(self):
        return bool(self.flag)


@cython.final
@cython.auto_pickle(False)
cdef class Tree:
    """One search tree over a private core, grown by :meth:`run`."""
    cdef CoreBase core
    cdef Node *nodes
    cdef int32_t nnodes, capacity, max_nodes
    cdef uint64_t rng
    cdef double c
    cdef int max_plies
    cdef int64_t *actions        # scratch of s_actions / s_chance
    cdef double *probs
    cdef double shares[4]        # the players' values of a playout cut short
    cdef int32_t *path           # the node indices of one iteration
    cdef Py_ssize_t path_cap
    cdef readonly long long iterations

    def __cinit__(self):
        self.nodes = NULL
        self.actions = NULL
        self.probs = NULL
        self.path = NULL

    def __init__(self, CoreBase core, uint64_t seed, double exploration, int max_plies,
                 int max_nodes):
        cdef int width = core.s_max_actions() + 1
        self.core = core
        self.rng = seed
        self.c = exploration
        self.max_plies = max_plies
        self.max_nodes = max(max_nodes, 1)
        self.actions = <int64_t *>malloc(width * sizeof(int64_t))
        self.probs = <double *>malloc(width * sizeof(double))
        self.capacity = min(FIRST_NODES, self.max_nodes)
        self.nodes = <Node *>malloc(self.capacity * sizeof(Node))
        self.path_cap = MAX_DEPTH_START
        self.path = <int32_t *>malloc(self.path_cap * sizeof(int32_t))
        if not (self.actions and self.probs and self.nodes and self.path):
            raise MemoryError()
        self.nnodes = 1
        self.nodes[0] = Node(action=-1, value=0.0, mean=0.0, isq=0.0, prob=1.0, first=-1,
                             nchildren=0,
                             visits=0, mover=CHANCE_PLAYER, pending=0, player=UNKNOWN,
                             mask=0)
        self.iterations = 0

    def __dealloc__(self):
        free(self.nodes)
        free(self.actions)
        free(self.probs)
        free(self.path)

    # ---- one iteration
    cdef int expand(self, int32_t at) noexcept nogil:
        """Create the children of node ``at`` (the core is at its position);
        0 when the tree is full (the node stays a leaf)."""
        cdef int player = self.core.s_player(), n, i
        cdef int32_t need, cap
        cdef Node *grown
        cdef Node *child
        if player == CHANCE_PLAYER:
            n = self.core.s_chance(self.actions, self.probs)
        else:
            n = self.core.s_actions(self.actions)
        need = self.nnodes + n
        if n <= 0 or (need > self.max_nodes and at != 0):   # the root always gets its children
            return 0
        if need > self.capacity:
            cap = self.capacity
            while cap < need:
                cap = min(cap * 2, max(self.max_nodes, need))
            grown = <Node *>realloc(self.nodes, cap * sizeof(Node))
            if grown == NULL:
                return 0
            self.nodes = grown
            self.capacity = cap
        for i in range(n):
            child = &self.nodes[self.nnodes + i]
            child.action = self.actions[i]
            child.value = 0.0
            child.mean = 0.0
            child.isq = 0.0
            child.prob = self.probs[i] if player == CHANCE_PLAYER else 1.0
            child.first = -1
            child.nchildren = 0
            child.visits = 0
            child.mover = player
            child.pending = -1
            child.player = UNKNOWN
            child.mask = 0
        self.nodes[at].first = self.nnodes
        self.nodes[at].nchildren = n
        self.nnodes = need
        return 1

    cdef int32_t select(self, int32_t at) noexcept nogil:
        """The child of decision node ``at`` to descend into."""
        cdef Node *node = &self.nodes[at]
        cdef Node *child
        cdef int32_t i, best = node.first
        cdef double score, top = -1.0
        cdef double reach = self.c * sqrt(log(<double>node.visits)) if node.visits else 0.0
        for i in range(node.first, node.first + node.nchildren):
            child = &self.nodes[i]
            if child.visits == 0:
                return i
            score = child.mean + reach * child.isq
            if score > top:
                top = score
                best = i
        return best

    cdef int32_t sample(self, int32_t at) noexcept nogil:
        """An outcome of chance node ``at``, drawn by its probability."""
        cdef Node *node = &self.nodes[at]
        cdef double u = (brett_rng_next(&self.rng) >> 11) * (1.0 / 9007199254740992.0)
        cdef double cum = 0.0
        cdef int32_t i
        for i in range(node.first, node.first + node.nchildren):
            cum += self.nodes[i].prob
            if u < cum:
                return i
        return node.first + node.nchildren - 1

    cdef int grow_path(self) noexcept nogil:
        cdef int32_t *grown = <int32_t *>realloc(self.path, 2 * self.path_cap * sizeof(int32_t))
        if grown == NULL:
            return 0
        self.path = grown
        self.path_cap *= 2
        return 1

    cdef int sync(self, Py_ssize_t *applied, Py_ssize_t depth) except -1 nogil:
        """Make the actions of path[applied[0]:depth] on the core.  An iteration
        walks the tree by what its nodes remember (player, winners) and moves the
        core only where it needs the position: to expand, play out, or meet a node
        for the first time.  (The plain twin moves at every step; the tree and the
        random draws are the same.)"""
        cdef Node *node
        while applied[0] < depth:
            node = &self.nodes[self.path[applied[0]]]
            if self.core.s_do(node.action) < 0:
                return -1
            applied[0] += 1
            if node.pending < 0:
                node.pending = self.core.s_pending()
        return 0

    cdef int iterate(self) except -1 nogil:
        """One iteration: select, expand, play out, back up; the core ends where it began.
        0 when it could not (no memory for the path), else 1."""
        cdef int32_t at = 0, child
        cdef Py_ssize_t depth = 1, applied = 1, i
        cdef int player, mask = 0, ok = 1
        cdef Node *node
        self.path[0] = 0
        while True:
            node = &self.nodes[at]
            if node.player == UNKNOWN:
                if self.sync(&applied, depth) < 0:
                    self.unwind(applied - 1)
                    return -1
                node.player = self.core.s_player()
                if node.player == TERMINAL_PLAYER:
                    node.mask = self.core.s_winners()
            player = node.player
            if player == TERMINAL_PLAYER:
                mask = node.mask
                break
            if node.first < 0:
                if self.sync(&applied, depth) < 0:
                    self.unwind(applied - 1)
                    return -1
                if (at != 0 and node.visits == 0) or not self.expand(at):
                    mask = self.core.s_playout(&self.rng, self.max_plies)
                    break
            child = self.sample(at) if player == CHANCE_PLAYER else self.select(at)
            if depth == self.path_cap and not self.grow_path():
                ok = 0
                mask = 0
                break
            self.path[depth] = child
            depth += 1
            at = child
        self.unwind(applied - 1)
        if mask < 0:
            self.core.s_shares(self.shares)
        if ok:
            for i in range(depth):
                node = &self.nodes[self.path[i]]
                node.visits += 1
                if node.mover >= 0:
                    node.value += (self.shares[node.mover] if mask < 0 else 0.5 if mask == 0
                                   else (1.0 if (mask >> node.mover) & 1 else 0.0))
                    node.mean = node.value / node.visits
                    node.isq = 1.0 / sqrt(<double>node.visits)
        return ok

    cdef void unwind(self, Py_ssize_t moves) noexcept nogil:
        cdef Py_ssize_t i
        for i in range(moves):
            self.core.s_undo()

    # ---- Python API
    def run(self, long long iterations, StopFlag stop):
        """Up to ``iterations`` more iterations (-1: until stopped), at least one
        unless the game is over; the number done."""
        cdef long long done = 0
        cdef int r = 1
        if self.core.s_player() == TERMINAL_PLAYER:
            return 0
        with nogil:
            while ((iterations < 0 or done < iterations) and (done == 0 or not stop.flag)
                   and self.nodes[0].visits < MAX_VISITS):
                r = self.iterate()
                if r <= 0:
                    break
                done += 1
                self.iterations += 1  # read by MCTSPlayer.progress() meanwhile
        if r == 0:
            raise MemoryError()
        return done

    def root(self):
        """``[(action, visits, value sum, pending)]`` of the root's children, in order."""
        return self.children(0)

    def children(self, int32_t at):
        cdef Node *node = &self.nodes[at]
        cdef int32_t i
        return [(self.nodes[i].action, self.nodes[i].visits, self.nodes[i].value,
                 self.nodes[i].pending, i) for i in range(node.first, node.first + node.nchildren)]

    @property
    def size(self):
        """The number of nodes."""
        return self.nnodes
