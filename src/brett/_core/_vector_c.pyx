# cython: language_level=3
"""The stepping loop of brett.vector.VectorEnv in C: many games of one game and
its options, each a private compiled core driven through the integer-layer hooks
of CoreBase (``v_*``, _common.pxd), stepped without the GIL.

``brett/vector.py`` owns the numpy arrays; this module fills them.  With
``threads=k`` the environments are cut into k slices ``[lo, hi)``: the calling
thread steps the first and k-1 helper threads (started by brett.vector, then
living here without the GIL) step the others, so threads never share an
environment.  A helper waits for its job in C (ext/brett_handoff.h: it polls,
then sleeps on a lock), not on the GIL or a Python queue, because waking a
sleeping thread costs as much as stepping hundreds of games.  Every environment has its own splitmix64
generator (chance outcomes, random actions), so a seeded run is the same for any
number of threads.  The plain twin is ``_vector_py.py``: the same steps over
Game objects, the same draws.
"""

cimport cython
from cpython.ref cimport PyObject
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy, memset

cdef extern from "brett_handoff.h" nogil:
    ctypedef struct brett_handoff:
        pass
    int brett_handoff_init(brett_handoff *h)
    void brett_handoff_free(brett_handoff *h)
    void brett_handoff_post(brett_handoff *h)
    void brett_handoff_wait(brett_handoff *h)

from ._common cimport CHANCE_PLAYER, TERMINAL_PLAYER, CoreBase, brett_rng_below, brett_rng_next

cdef enum:
    MAX_CHANCE_DRAWS = 1 << 20   # a chain of chance nodes longer than this is a bug
    BROKEN = -1000               # _settle: a core refused its own chance outcome

cdef enum Job:
    JOB_RESET, JOB_STEP, JOB_RANDOM


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
    # the crew: slice k is [bounds[k], bounds[k+1]); helper k >= 1 waits on go[k]
    # and posts finished[k] with its answer in bad[k]
    cdef int nslices
    cdef int *bounds
    cdef int *bad
    cdef brett_handoff *go
    cdef brett_handoff *finished
    cdef Job job
    cdef const int64_t *job_actions
    cdef int64_t *job_out
    cdef bint quitting

    def __cinit__(self):
        self.nslices = 0
        self.bounds = NULL
        self.bad = NULL
        self.go = NULL
        self.finished = NULL
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
        self._cut(1)

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

    # ---- the loop of one slice, without the GIL
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
        cdef int k
        for k in range(1, self.nslices):
            if self.go != NULL:
                brett_handoff_free(&self.go[k])
            if self.finished != NULL:
                brett_handoff_free(&self.finished[k])
        free(self.go)
        free(self.finished)
        free(self.bounds)
        free(self.bad)
        self.go = self.finished = NULL
        self.bounds = self.bad = NULL
        self.nslices = 0

    cdef void _cut(self, int slices) except *:
        """Cut the environments into ``slices`` slices, with two hand-offs for
        each helper."""
        cdef int k
        self._free_crew()
        self.bounds = <int *>malloc((slices + 1) * sizeof(int))
        self.bad = <int *>malloc(slices * sizeof(int))
        self.go = <brett_handoff *>calloc(slices, sizeof(brett_handoff))
        self.finished = <brett_handoff *>calloc(slices, sizeof(brett_handoff))
        self.nslices = slices
        if self.bounds == NULL or self.bad == NULL or self.go == NULL or self.finished == NULL:
            raise MemoryError()
        for k in range(slices + 1):
            self.bounds[k] = <int>(<int64_t>self.n * k // slices)
        for k in range(1, slices):
            if brett_handoff_init(&self.go[k]) < 0 or brett_handoff_init(&self.finished[k]) < 0:
                raise MemoryError()

    def hire(self, int slices):
        """Cut into ``slices`` slices; the caller then runs ``serve(k)`` in a new
        thread for each k in 1..slices-1 (before or after the first job)."""
        if self.nslices > 1 or self.quitting:
            raise RuntimeError("hire() once, before any dismiss()")
        self._cut(slices)

    def serve(self, int k):
        """Helper k's life: step slice k whenever the calling thread says go,
        until dismissed.  Runs without the GIL."""
        if not 1 <= k < self.nslices:
            raise ValueError("no such helper")
        with nogil:
            while True:
                brett_handoff_wait(&self.go[k])
                if self.quitting:
                    brett_handoff_post(&self.finished[k])
                    break
                self.bad[k] = self._slice(k)
                brett_handoff_post(&self.finished[k])

    def dismiss(self, int started=-1):
        """Send the helpers home (each returns from serve) and step every slice in
        the calling thread from now on.  ``started``: helpers 1..started-1 only
        (when starting a thread failed).  Idempotent."""
        cdef int k, upto = self.nslices if started < 0 else min(started, self.nslices)
        if self.nslices <= 1:
            return
        with nogil:
            self.quitting = True
            for k in range(1, upto):
                brett_handoff_post(&self.go[k])
            for k in range(1, upto):
                brett_handoff_wait(&self.finished[k])
        self._cut(1)

    def abandon(self):
        """After a fork: the helpers are the parent's; step every slice here, and
        wait for no one."""
        self.quitting = True
        self.go = self.finished = NULL      # the parent's locks: not ours to free
        self._cut(1)

    cdef int _slice(self, int k) noexcept nogil:
        cdef int lo = self.bounds[k], hi = self.bounds[k + 1]
        if self.job == JOB_RESET:
            return self.reset_range(lo, hi)
        if self.job == JOB_STEP:
            return self.step_range(self.job_actions, lo, hi)
        self.random_range(self.job_out, lo, hi)
        return -1

    cdef int _all(self, Job job) noexcept nogil:
        """Run ``job`` on every slice (the first here); the first env refused, or -1."""
        cdef int k
        self.job = job
        for k in range(1, self.nslices):
            brett_handoff_post(&self.go[k])
        self.bad[0] = self._slice(0)
        for k in range(1, self.nslices):
            brett_handoff_wait(&self.finished[k])
        for k in range(self.nslices):
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

    def check(self, const int64_t[::1] actions, int lo, int hi):
        cdef int bad
        with nogil:
            bad = self.check_range(&actions[0], lo, hi)
        return bad


