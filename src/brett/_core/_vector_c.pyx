# cython: language_level=3
"""The stepping loop of brett.vector.VectorEnv in C: many games of one game and
its options, each a private compiled core driven through the integer-layer hooks
of CoreBase (``v_*``, _common.pxd), stepped without the GIL.

``brett/vector.py`` owns the numpy arrays; this module fills them.  With
``threads=k`` the calling thread and k-1 helper threads (started by brett.vector,
then living here without the GIL) form a crew (ext/brett_crew.h): each job (a
reset, a step, random actions) is cut into chunks of a few dozen environments,
which every thread of the crew takes from a shared counter; the caller takes
chunks until none is left and then waits only for chunks a helper is running, so
a helper that is asleep or not scheduled never holds a step up.  Threads never
share an environment.  Every environment has its own splitmix64 generator
(chance outcomes, random actions), so a seeded run is the same for any number of
threads and any timing.  The plain twin is ``_vector_py.py``: the same steps over
Game objects, the same draws.
"""

cimport cython
from cpython.ref cimport PyObject
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy, memset

cdef extern from "brett_crew.h" nogil:
    ctypedef void (*brett_crew_fn)(void *ctx, long chunk) noexcept nogil
    ctypedef struct brett_crew:
        long quitting
        long held
        long nchunks
        int helpers
    int brett_crew_init(brett_crew *c, long nchunks, int helpers)
    void brett_crew_free(brett_crew *c)
    void brett_crew_run(brett_crew *c, int kind, brett_crew_fn run, void *ctx)
    void brett_crew_serve(brett_crew *c, int k)
    void brett_crew_dismiss(brett_crew *c)
    void brett_crew_abandon(brett_crew *c)
    void brett_crew_store(long *p, long v)
    long BRETT_CREW_MAX_CHUNKS

from ._common cimport CHANCE_PLAYER, TERMINAL_PLAYER, CoreBase, brett_rng_below, brett_rng_next

cdef enum:
    CHUNK_ENVS = 32              # the most environments a thread takes at a time
    MAX_CHANCE_DRAWS = 1 << 20   # a chain of chance nodes longer than this is a bug
    BROKEN = -1000               # _settle: a core refused its own chance outcome

cdef enum Job:
    JOB_RESET, JOB_CHECK, JOB_STEP, JOB_RANDOM


cdef void _crew_chunk(void *stepper, long chunk) noexcept nogil:
    (<Stepper>stepper)._run_chunk(chunk)


cdef inline double _unit(uint64_t *rng) noexcept nogil:
    """A double in [0, 1) from the next 53 bits (the plain twin: _vector_py.unit)."""
    return <double>(brett_rng_next(rng) >> 11) * (1.0 / 9007199254740992.0)


@cython.final
@cython.boundscheck(False)
@cython.wraparound(False)
cdef class Stepper:
    """The cores and generators of ``n`` environments and views of the arrays
    that brett.vector.VectorEnv returns (it allocates them)."""

    cdef list cores                 # keeps the cores alive; `ptrs` borrows them
    cdef PyObject **ptrs
    cdef CoreBase start
    cdef int n, nact, nplayers
    cdef uint64_t *rng
    cdef int64_t *chance_acts
    cdef double *chance_probs
    cdef uint8_t *masks             # private copy of each mask: the check of actions
    cdef uint8_t *done              # finished (over or truncated): resets at its next step
    cdef int32_t *legal             # the number of legal actions (v_mask's answer)
    cdef int32_t *steps             # actions taken in the current episode
    cdef int32_t max_steps          # 0: no truncation
    cdef float[:, ::1] obs
    cdef uint8_t[:, ::1] mask
    cdef float[:, ::1] rewards
    cdef uint8_t[::1] terminated
    cdef uint8_t[::1] truncated
    cdef int32_t[::1] player
    # the crew (ext/brett_crew.h): chunk c is envs [c * chunk, (c + 1) * chunk),
    # its first refused env (or -1) in bad[c]
    cdef brett_crew crew
    cdef int chunk
    cdef int *bad
    cdef Job job
    cdef const int64_t *job_actions
    cdef int64_t *job_out

    def __cinit__(self):
        self.bad = NULL
        memset(&self.crew, 0, sizeof(brett_crew))
        self.ptrs = NULL
        self.rng = NULL
        self.chance_acts = NULL
        self.chance_probs = NULL
        self.masks = NULL
        self.steps = NULL
        self.done = NULL
        self.legal = NULL

    def __init__(self, CoreBase start not None, list cores not None, object seeds, int nact,
                 int nplayers, int max_steps, float[:, ::1] obs, uint8_t[:, ::1] mask,
                 float[:, ::1] rewards, uint8_t[::1] terminated, uint8_t[::1] truncated,
                 int32_t[::1] player):
        cdef int i
        self.n = len(cores)
        self.cores = cores
        self.start = start
        self.nact = nact
        self.nplayers = nplayers
        self.max_steps = max_steps
        self.obs, self.mask, self.rewards = obs, mask, rewards
        self.terminated, self.truncated, self.player = terminated, truncated, player
        self.ptrs = <PyObject **>malloc(self.n * sizeof(PyObject *))
        self.rng = <uint64_t *>malloc(self.n * sizeof(uint64_t))
        self.steps = <int32_t *>malloc(self.n * sizeof(int32_t))
        self.masks = <uint8_t *>malloc(<size_t>self.n * nact)
        self.done = <uint8_t *>malloc(self.n)
        self.legal = <int32_t *>malloc(self.n * sizeof(int32_t))
        self.chance_acts = <int64_t *>malloc(self.n * <size_t>nact * sizeof(int64_t))
        self.chance_probs = <double *>malloc(self.n * <size_t>nact * sizeof(double))
        if (self.ptrs == NULL or self.rng == NULL or self.steps == NULL or self.masks == NULL
                or self.done == NULL or self.legal == NULL                or self.chance_acts == NULL or self.chance_probs == NULL):
            raise MemoryError()
        for i in range(self.n):
            if not isinstance(cores[i], type(start)):
                raise TypeError("every core must be of the start's class")
            self.ptrs[i] = <PyObject *>cores[i]
            self.rng[i] = seeds[i]
        self._cut(0)

    def __dealloc__(self):
        free(self.ptrs)
        free(self.rng)
        free(self.steps)
        free(self.masks)
        free(self.done)
        free(self.legal)
        free(self.chance_acts)
        free(self.chance_probs)
        self._free_crew()

    def seed(self, object seeds):
        cdef int i
        for i in range(self.n):
            self.rng[i] = seeds[i]

    def rng_states(self):
        return [self.rng[i] for i in range(self.n)]

    # ---- the loop over a range of environments, without the GIL
    cdef int _settle(self, int i) noexcept nogil:
        """Play chance outcomes drawn from env i's generator while it is at a
        chance node; the player to move then (TERMINAL_PLAYER when over), or
        BROKEN if the core refused an outcome (a bug)."""
        cdef int64_t *acts = self.chance_acts + <size_t>i * self.nact
        cdef double *probs = self.chance_probs + <size_t>i * self.nact
        cdef int k, m, draws = 0
        cdef int who = (<CoreBase>self.ptrs[i]).v_player()
        cdef double u, cum
        while who == CHANCE_PLAYER:
            m = (<CoreBase>self.ptrs[i]).v_chance(acts, probs)
            draws += 1
            if m <= 0 or draws > MAX_CHANCE_DRAWS:
                return BROKEN
            u = _unit(&self.rng[i])
            cum = 0.0
            k = 0
            while k < m - 1:
                cum += probs[k]
                if u < cum:
                    break
                k += 1
            if (<CoreBase>self.ptrs[i]).v_apply(acts[k]) != 0:
                return BROKEN
            who = (<CoreBase>self.ptrs[i]).v_player()
        return who

    cdef int _report(self, int i, int who) noexcept nogil:
        """Write env i's arrays after a step or a reset (``who``: its player)."""
        cdef int p
        cdef uint8_t *m = self.masks + <size_t>i * self.nact
        self.legal[i] = (<CoreBase>self.ptrs[i]).v_mask(m)
        memcpy(&self.mask[i, 0], m, self.nact)
        (<CoreBase>self.ptrs[i]).v_observe(&self.obs[i, 0])
        cdef bint over = who == TERMINAL_PLAYER
        cdef bint cut = not over and self.max_steps > 0 and self.steps[i] >= self.max_steps
        self.player[i] = who
        self.terminated[i] = over
        self.truncated[i] = cut
        self.done[i] = over or cut
        if over:
            (<CoreBase>self.ptrs[i]).v_returns(self._returns_buffer(i))
            for p in range(self.nplayers):
                self.rewards[i, p] = <float>self._returns_buffer(i)[p]
        else:
            for p in range(self.nplayers):
                self.rewards[i, p] = 0.0
        return 0

    cdef inline double *_returns_buffer(self, int i) noexcept nogil:
        return self.chance_probs + <size_t>i * self.nact     # free between chance draws

    cdef int _reset_one(self, int i) noexcept nogil:
        (<CoreBase>self.ptrs[i]).v_reset(self.start)
        self.steps[i] = 0
        cdef int who = self._settle(i)
        if who == BROKEN:
            return -1
        return self._report(i, who)

    cdef int reset_range(self, int lo, int hi) noexcept nogil:
        cdef int i
        for i in range(lo, hi):
            if self._reset_one(i) < 0:
                return i
        return -1

    cdef int check_range(self, const int64_t *actions, int lo, int hi) noexcept nogil:
        """The first env in [lo, hi) whose action its mask forbids, or -1; envs that
        finished last step reset instead and take any action."""
        cdef int i
        cdef int64_t a
        for i in range(lo, hi):
            if self.done[i]:
                continue
            a = actions[i]
            if a < 0 or a >= self.nact or not self.masks[<size_t>i * self.nact + a]:
                return i
        return -1

    cdef int step_range(self, const int64_t *actions, int lo, int hi) noexcept nogil:
        """Step envs [lo, hi) (actions checked); the first env a core refused, or -1."""
        cdef int i, who
        for i in range(lo, hi):
            if self.done[i]:
                if self._reset_one(i) < 0:
                    return i
                continue
            if (<CoreBase>self.ptrs[i]).v_apply(actions[i]) != 0:
                return i
            self.steps[i] += 1
            who = self._settle(i)
            if who == BROKEN:
                return i
            self._report(i, who)
        return -1

    cdef void random_range(self, int64_t *out, int lo, int hi) noexcept nogil:
        """A uniformly random legal action per env from its generator (0, and no
        draw, for an env that resets at its next step)."""
        cdef int i, a, k, ones
        cdef uint8_t *m
        cdef uint64_t word
        for i in range(lo, hi):
            out[i] = 0
            if self.done[i] or self.legal[i] <= 0:
                continue
            m = self.masks + <size_t>i * self.nact
            k = <int>brett_rng_below(&self.rng[i], <unsigned int>self.legal[i])
            a = 0
            while a + 8 <= self.nact:    # skip eight 0/1 bytes at a time
                memcpy(&word, m + a, 8)
                ones = <int>((word * 0x0101010101010101ULL) >> 56)
                if k < ones:
                    break
                k -= ones
                a += 8
            while a < self.nact:
                if m[a]:
                    if k == 0:
                        out[i] = a
                        break
                    k -= 1
                a += 1

    # ---- the crew
    cdef void _free_crew(self) noexcept:
        brett_crew_free(&self.crew)
        free(self.bad)
        self.bad = NULL

    cdef void _cut(self, int helpers) except *:
        """Cut the environments into chunks for a crew of the caller and
        ``helpers`` helpers: about eight chunks a thread, of at most CHUNK_ENVS."""
        cdef long chunks
        self._free_crew()
        self.chunk = self.n     # alone: one chunk
        if helpers:
            self.chunk = max(1, min(CHUNK_ENVS, self.n // (8 * (helpers + 1))),
                             (self.n + BRETT_CREW_MAX_CHUNKS - 1) // BRETT_CREW_MAX_CHUNKS)
        chunks = (self.n + self.chunk - 1) // self.chunk
        self.bad = <int *>malloc(chunks * sizeof(int))
        if self.bad == NULL or brett_crew_init(&self.crew, chunks, helpers) < 0:
            self._free_crew()
            raise MemoryError()

    def hire(self, int slices):
        """Make a crew of the calling thread and ``slices - 1`` helpers; the caller
        then runs ``serve(k)`` in a new thread for each k in 1..slices-1 (before or
        after the first job)."""
        if self.crew.helpers or self.crew.quitting:
            raise RuntimeError("hire() once, before any dismiss()")
        self._cut(slices - 1)

    def serve(self, int k):
        """Helper k's life: take chunks of every job, until dismissed.  Runs
        without the GIL."""
        if not 1 <= k <= self.crew.helpers:
            raise ValueError("no such helper")
        with nogil:
            brett_crew_serve(&self.crew, k)

    def dismiss(self):
        """Send the helpers home (each returns from serve: join them after); the
        calling thread steps every chunk from now on.  Idempotent."""
        brett_crew_dismiss(&self.crew)

    def abandon(self):
        """After a fork: the helpers are the parent's; step every chunk here, and
        wait for no one."""
        brett_crew_abandon(&self.crew)

    def hold(self, bint held):
        """A test hook: while held, the helpers take no chunk (as if never
        scheduled), and the calling thread steps them all."""
        brett_crew_store(&self.crew.held, held)

    cdef void _run_chunk(self, long chunk) noexcept nogil:
        cdef int lo = <int>(chunk * self.chunk)
        cdef int hi = min(self.n, lo + self.chunk)
        if self.job == JOB_RESET:
            self.bad[chunk] = self.reset_range(lo, hi)
        elif self.job == JOB_CHECK:
            self.bad[chunk] = self.check_range(self.job_actions, lo, hi)
        elif self.job == JOB_STEP:
            self.bad[chunk] = self.step_range(self.job_actions, lo, hi)
        else:
            self.random_range(self.job_out, lo, hi)
            self.bad[chunk] = -1

    cdef int _all(self, Job job) noexcept nogil:
        """Run ``job`` over every environment; the first env refused, or -1."""
        cdef long k
        self.job = job
        brett_crew_run(&self.crew, <int>job, _crew_chunk, <void *>self)
        for k in range(self.crew.nchunks):
            if self.bad[k] >= 0:
                return self.bad[k]
        return -1

    # ---- entry points: brett.vector calls these (one caller at a time)
    def reset_all(self):
        cdef int bad
        with nogil:
            bad = self._all(JOB_RESET)
        return bad

    def step_all(self, const int64_t[::1] actions):
        cdef int bad
        if actions.shape[0] != self.n:
            raise ValueError("one action per environment")
        self.job_actions = &actions[0]
        with nogil:
            bad = self._all(JOB_STEP)
        self.job_actions = NULL
        return bad

    def random_all(self, int64_t[::1] out):
        if out.shape[0] != self.n:
            raise ValueError("one action per environment")
        self.job_out = &out[0]
        with nogil:
            self._all(JOB_RANDOM)
        self.job_out = NULL

    def check_all(self, const int64_t[::1] actions):
        """The first env whose action its mask forbids, or -1 (each chunk checked
        by the thread that steps it, whose cache holds its mask)."""
        cdef int bad
        if actions.shape[0] != self.n:
            raise ValueError("one action per environment")
        self.job_actions = &actions[0]
        with nogil:
            bad = self._all(JOB_CHECK)
        self.job_actions = NULL
        return bad
