/* A crew of threads sharing one job's chunks, where the caller never waits on a
 * thread that is asleep or not scheduled.
 *
 * brett.vector steps its games through one of these.  A job is `nchunks` chunks
 * (a fixed number for the crew's life).  The caller opens a job, wakes the
 * helpers, and then claims chunks itself until none is left;
 * a helper that wakes in time takes some too.  The caller then waits only for the
 * chunks a helper has already taken, which are small: a helper that never wakes
 * costs nothing, a late one costs at most the chunk it is running.  Which thread
 * runs a chunk changes nothing the chunk computes.
 *
 *   caller:  brett_crew_run(crew)     helper k (1..helpers):  brett_crew_serve(crew, k)
 *
 * The caller claims chunks from the front (0, 1, 2, ...), the helpers from the
 * back (nchunks - 1, nchunks - 2, ...), so that with one helper each thread keeps
 * stepping mostly the same games from job to job, whose data then stays in its
 * own core's cache (on a machine whose cores are far apart, a game's data moving
 * between them each step halved the speed).  Both counts live in one word,
 * `ends` (front in the low 15 bits, back above), claimed by compare-and-swap: a
 * claim is valid when front + back < nchunks, and only then does the claimer read
 * the job (run, ctx), which was written before the store that opened the job (the
 * claim's compare-and-swap read that store or a later claim, so it is ordered
 * after it).  A claim of a finished job finds front + back = nchunks and runs
 * nothing; the job cannot finish while a claim of it is running, so its job stays
 * put meanwhile.  `done` counts the chunks run; the caller resets it before
 * opening the next job.
 *
 * A helper that finds nothing waits on its own hand-off (brett_handoff.h: it
 * polls for a while, then sleeps on a lock), which the caller posts once per job:
 * a cheap swap unless the helper is asleep.  The caller waiting for a chunk still
 * running polls, then sleeps on its own hand-off, which the helper that runs a
 * job's last chunk posts.  Nothing in a job's path sleeps for a clock tick.
 *
 * Helpers do not always help.  Beside a busy process a helper shares a core with
 * it and is preempted in the middle of chunks, for a whole time slice of the
 * other process; on some virtual machines a helper woken from sleep lands on the
 * caller's own CPU while the other is idle, and there it waits behind the caller
 * or takes turns with it.  Jobs then take longer than the caller alone.  So:
 *
 * - A helper that finds itself on the CPU where the caller opened the job moves
 *   off it (brett_crew_leave).
 * - A caller that has polled in vain for a helper's chunk pulls that helper onto
 *   its own CPU before it sleeps (brett_crew_pull): a preempted helper then runs
 *   at once on the CPU the caller leaves idle, and takes its CPUs back after.
 *   Both moves narrow a thread's affinity for a moment (Linux only).
 * - The caller times its jobs both ways (brett_crew_timed), each from its start
 *   to the start of the next job, so that what the caller does between jobs
 *   counts too: a period one way, a short trial the other, then the faster way.
 *   The means are fresh for each choice and leave out the first jobs after a
 *   change of way (a helper waking, games' data moving between caches); trials
 *   grow rarer while the way stays, so a quiet machine pays a trial alone about
 *   once in 4,000 jobs.  While the caller runs alone the helpers sleep, except
 *   during a trial alone, when they are woken as usual to claim nothing: a helper
 *   that slept through the trial would be woken somewhere worse after it.
 */
#ifndef BRETT_CREW_H
#define BRETT_CREW_H

#include <stdlib.h>
#include <string.h>

#include "brett_handoff.h"
#include "brett_interrupt.h"

#ifndef BRETT_CREW_SPINS
#define BRETT_CREW_SPINS 2000     /* polls for a job (or its end) before sleeping */
#endif
#define BRETT_CREW_STANDBY_SPINS 40000 /* in a trial alone: longer than a job */
#define BRETT_CREW_KINDS 4          /* kinds of job, timed apart */
#define BRETT_CREW_SETTLE 8         /* jobs after a change of way that are not timed */
#define BRETT_CREW_TRIAL 16         /* timed jobs of a trial of the other way */
#define BRETT_CREW_BETWEEN 64       /* timed jobs between trials: at first and after */
#define BRETT_CREW_BETWEEN_MAX 4096 /* a change of way, doubling while the way stays */

#if defined(__linux__) && defined(_GNU_SOURCE)
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
typedef cpu_set_t brett_crew_cpus;

static int brett_crew_cpu(void)
{
    return sched_getcpu();
}

static long brett_crew_tid(void)
{
    return (long)syscall(SYS_gettid);
}

/* The CPUs the calling thread may run on (0), or give them back (1, `cpus` as
 * read before). */
static void brett_crew_affinity(brett_crew_cpus *cpus, int give_back)
{
    if (give_back && CPU_COUNT(cpus) > 0)
        sched_setaffinity(0, sizeof *cpus, cpus);
    else if (sched_getaffinity(0, sizeof *cpus, cpus) != 0)
        CPU_ZERO(cpus);
}

/* Put thread `tid` on `cpu` alone, until it gives itself its CPUs back: a helper
 * preempted in the middle of a chunk then runs on the CPU that the caller leaves
 * idle while it waits for that chunk. */
static void brett_crew_pull(long tid, int cpu)
{
    cpu_set_t only;
    if (tid <= 0 || cpu < 0 || cpu >= CPU_SETSIZE)
        return;
    CPU_ZERO(&only);
    CPU_SET(cpu, &only);
    sched_setaffinity((pid_t)tid, sizeof only, &only);
}

/* Move the calling thread off `cpu` to another of the CPUs it may run on, its
 * affinity narrowed for a moment and then given back: 1 if it moved. */
static int brett_crew_leave(int cpu)
{
    cpu_set_t mine, others;
    int moved;
    if (cpu < 0 || cpu >= CPU_SETSIZE)
        return 0;
    brett_crew_affinity(&mine, 0);
    others = mine;
    CPU_CLR(cpu, &others);
    if (CPU_COUNT(&others) == 0 || sched_setaffinity(0, sizeof others, &others) != 0)
        return 0;
    moved = sched_getcpu() != cpu;
    brett_crew_affinity(&mine, 1);
    return moved;
}
#else
typedef int brett_crew_cpus;

static int brett_crew_cpu(void)
{
    return -1;
}

static long brett_crew_tid(void)
{
    return 0;
}

static void brett_crew_affinity(brett_crew_cpus *cpus, int give_back)
{
    (void)cpus;
    (void)give_back;
}

static void brett_crew_pull(long tid, int cpu)
{
    (void)tid;
    (void)cpu;
}

static int brett_crew_leave(int cpu)
{
    (void)cpu;
    return 0;
}
#endif

/* Runs chunk `chunk` of the current job; called by any thread of the crew. */
typedef void (*brett_crew_fn)(void *ctx, long chunk);

#define BRETT_CREW_MAX_CHUNKS 16384       /* front and back each fit in 15 bits */
#define BRETT_CREW_FRONT 1L
#define BRETT_CREW_BACK (1L << 15)

/* What the caller knows of helper k: its thread id (0: not known), whether it is
 * running a chunk, whether the caller pulled it onto its own CPU. */
typedef struct {
    volatile long tid, running, pulled;
} brett_crew_mate;

typedef struct {
    volatile long ends;       /* chunks claimed from the front, and (x 2^15) the back */
    volatile long done;       /* chunks run */
    volatile long quitting;   /* 1: helpers return from serve */
    volatile long held;       /* 1: helpers claim nothing (a test hook) */
    volatile long standby;    /* 1: woken helpers claim nothing (a trial alone) */
    volatile long caller_cpu; /* where the caller opened the job (-1: unknown) */
    long nchunks;
    int helpers;              /* helper k in 1..helpers waits on wake[k] */
    int posted;               /* the helpers a job wakes: 0 once they are gone */
    /* The way jobs run (1: with the helpers, 0: the caller alone); whether as a
     * trial; jobs run this way so far, and how many it runs; the period's length
     * in timed jobs; per kind and way, the number of timed jobs and their seconds;
     * when the last job started, and its kind (-1: none yet). */
    int helped, trial;
    long streak, until, between;
    long timed[BRETT_CREW_KINDS][2];
    double seconds[BRETT_CREW_KINDS][2];
    double last_start;
    int last_kind;
    brett_crew_fn run;
    void *ctx;
    brett_handoff *wake;
    brett_crew_mate *mates;
    brett_handoff finish;     /* the caller's: posted by the helper that ends a job */
} brett_crew;

#if BRETT_MSVC
#define BRETT_CREW_INLINE __inline   /* used by Cython's module only: no warning if not */
static __inline long brett_crew_add(volatile long *p, long v)
{
    return _InterlockedExchangeAdd(p, v);
}
static __inline void brett_crew_store(volatile long *p, long v)
{
    _InterlockedExchange(p, v);
}
#else
#define BRETT_CREW_INLINE inline
static inline long brett_crew_add(volatile long *p, long v)
{
    return __atomic_fetch_add(p, v, __ATOMIC_ACQ_REL);
}
static inline void brett_crew_store(volatile long *p, long v)
{
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}
#endif

/* 0 when ready, -1 when out of memory (then brett_crew_free it); nchunks in
 * 1..BRETT_CREW_MAX_CHUNKS. */
static int brett_crew_init(brett_crew *c, long nchunks, int helpers)
{
    int k;
    c->ends = nchunks;        /* no job open */
    c->done = 0;
    c->quitting = 0;
    c->held = 0;
    c->standby = 0;
    c->caller_cpu = -1;
    c->nchunks = nchunks;
    c->helpers = 0;
    c->posted = 0;
    c->helped = 1;                          /* a period with the helpers first */
    c->trial = 0;
    c->streak = 0;
    c->between = BRETT_CREW_BETWEEN;
    c->until = BRETT_CREW_SETTLE + BRETT_CREW_BETWEEN;
    memset(c->timed, 0, sizeof c->timed);
    memset(c->seconds, 0, sizeof c->seconds);
    c->last_start = 0;
    c->last_kind = -1;
    c->run = NULL;
    c->ctx = NULL;
    c->wake = (brett_handoff *)calloc((size_t)helpers + 1, sizeof(brett_handoff));
    c->mates = (brett_crew_mate *)calloc((size_t)helpers + 1, sizeof(brett_crew_mate));
    if (c->wake == NULL || c->mates == NULL || brett_handoff_init(&c->finish) < 0)
        return -1;
    for (k = 1; k <= helpers; k++) {
        if (brett_handoff_init(&c->wake[k]) < 0)
            return -1;
        c->helpers = c->posted = k;
    }
    return 0;
}

static void brett_crew_free(brett_crew *c)
{
    int k;
    if (c->wake != NULL) {
        for (k = 1; k <= c->helpers; k++)
            brett_handoff_free(&c->wake[k]);
        free(c->wake);
        brett_handoff_free(&c->finish);
    }
    free(c->mates);
    c->wake = NULL;
    c->mates = NULL;
    c->helpers = c->posted = 0;
}

/* Claim a chunk of the open job from one end (BRETT_CREW_FRONT or _BACK): its
 * number, or -1 when none is left. */
static long brett_crew_claim(brett_crew *c, long end)
{
    long word, front, back;
    for (;;) {
        word = brett_handoff_load(&c->ends);
        front = word & (BRETT_CREW_BACK - 1);
        back = word / BRETT_CREW_BACK;
        if (front + back >= c->nchunks)
            return -1;
        if (brett_handoff_cas(&c->ends, word, word + end))
            return end == BRETT_CREW_FRONT ? front : c->nchunks - 1 - back;
    }
}

/* Claim and run chunks of the open job from one end until none is left: the
 * caller from the front, helper `mate` from the back. */
static void brett_crew_take(brett_crew *c, long end, brett_crew_mate *mate)
{
    long chunk;
    while ((chunk = brett_crew_claim(c, end)) >= 0) {
        if (mate != NULL)
            brett_crew_store(&mate->running, 1);
        c->run(c->ctx, chunk);
        if (mate != NULL)
            brett_crew_store(&mate->running, 0);
        if (brett_crew_add(&c->done, 1) == c->nchunks - 1 && end == BRETT_CREW_BACK)
            brett_handoff_post(&c->finish);     /* the job's last chunk: wake the caller */
    }
}

/* Whether jobs with the helpers are the faster way, by the mean jobs timed since
 * the last choice, summed over the kinds timed both ways; with nothing to
 * compare, they are. */
static int brett_crew_helpers_win(const brett_crew *c)
{
    double alone = 0, helped = 0;
    int k;
    for (k = 0; k < BRETT_CREW_KINDS; k++) {
        if (c->timed[k][0] > 0 && c->timed[k][1] > 0) {
            alone += c->seconds[k][0] / (double)c->timed[k][0];
            helped += c->seconds[k][1] / (double)c->timed[k][1];
        }
    }
    return helped <= alone;
}

/* Count a job of `kind` that took `took` seconds, and choose the way of the next:
 * a period one way, then a trial the other, then the faster way for the next
 * period (twice as long as the last if the way stays, the shortest if it changes). */
static void brett_crew_timed(brett_crew *c, int kind, double took)
{
    int faster;
    if (c->streak++ >= BRETT_CREW_SETTLE && kind >= 0 && kind < BRETT_CREW_KINDS) {
        c->seconds[kind][c->helped] += took;
        c->timed[kind][c->helped]++;
    }
    if (c->streak < c->until)
        return;
    if (c->trial) {
        faster = brett_crew_helpers_win(c);
        if (faster == c->helped)                /* the trial's way won */
            c->between = BRETT_CREW_BETWEEN;
        else if (c->between < BRETT_CREW_BETWEEN_MAX)
            c->between *= 2;
        c->helped = faster;
        c->until = BRETT_CREW_SETTLE + c->between;
        memset(c->timed, 0, sizeof c->timed);
        memset(c->seconds, 0, sizeof c->seconds);
    } else {
        c->helped = !c->helped;
        c->until = BRETT_CREW_SETTLE + BRETT_CREW_TRIAL;
    }
    c->trial = !c->trial;
    c->streak = 0;
}

/* The caller, after polling for a job's last chunks: pull the helpers still
 * running one onto its own CPU, which it leaves idle while it waits. */
static void brett_crew_pull_late(brett_crew *c)
{
    int k, cpu = (int)brett_handoff_load(&c->caller_cpu);
    for (k = 1; k <= c->posted; k++) {
        if (brett_handoff_load(&c->mates[k].running)) {
            brett_crew_store(&c->mates[k].pulled, 1);
            brett_crew_pull(brett_handoff_load(&c->mates[k].tid), cpu);
        }
    }
}

/* The caller: run every chunk of a job of `kind` (0..BRETT_CREW_KINDS-1), with
 * whatever help arrives in time, when the helpers are the faster way. */
static void brett_crew_run(brett_crew *c, int kind, brett_crew_fn run, void *ctx)
{
    int k, wake;
    double start = brett_clock();
    if (c->last_kind >= 0 && c->posted > 0)   /* the last job, and the caller's time after */
        brett_crew_timed(c, c->last_kind, start - c->last_start);
    c->last_start = start;
    c->last_kind = kind;
    wake = c->helped || c->trial;
    c->run = run;
    c->ctx = ctx;
    brett_crew_store(&c->standby, !c->helped);
    brett_crew_store(&c->caller_cpu, brett_crew_cpu());
    brett_crew_store(&c->done, 0);
    brett_crew_store(&c->ends, 0);          /* opens the job */
    for (k = 1; wake && k <= c->posted; k++)
        brett_handoff_post(&c->wake[k]);
    brett_crew_take(c, BRETT_CREW_FRONT, NULL);
    for (k = 0; k < BRETT_CREW_SPINS && brett_handoff_load(&c->done) < c->nchunks; k++)
        BRETT_PAUSE();
    if (brett_handoff_load(&c->done) < c->nchunks)
        brett_crew_pull_late(c);
    /* A post left from an earlier job only makes this loop look again. */
    while (brett_handoff_load(&c->done) < c->nchunks)
        brett_handoff_wait_polls(&c->finish, 0);
}

/* Helper k's life: take chunks whenever a job is open, until dismissed. */
static void brett_crew_serve(brett_crew *c, int k)
{
    brett_crew_mate *mate = &c->mates[k];
    brett_crew_cpus mine;
    long cpu;
    brett_crew_affinity(&mine, 0);
    brett_crew_store(&mate->tid, brett_crew_tid());
    while (!brett_handoff_load(&c->quitting)) {
        if (brett_handoff_load(&mate->pulled)) {
            brett_crew_store(&mate->pulled, 0);
            brett_crew_affinity(&mine, 1);
        }
        cpu = brett_handoff_load(&c->caller_cpu);
        if (cpu >= 0 && cpu == brett_crew_cpu())
            brett_crew_leave((int)cpu);
        if (!brett_handoff_load(&c->held) && !brett_handoff_load(&c->standby))
            brett_crew_take(c, BRETT_CREW_BACK, mate);
        brett_handoff_wait_polls(&c->wake[k], brett_handoff_load(&c->standby)
                                 ? BRETT_CREW_STANDBY_SPINS : BRETT_CREW_SPINS);
    }
}

/* Send the helpers home: each returns from brett_crew_serve (join them after);
 * the caller then runs every chunk alone. */
static void brett_crew_dismiss(brett_crew *c)
{
    int k;
    brett_crew_store(&c->quitting, 1);
    for (k = 1; k <= c->posted; k++)
        brett_handoff_post(&c->wake[k]);
    c->posted = 0;
}

/* After a fork: the helpers stayed in the parent, and so do their locks (not
 * ours to free); the caller runs every chunk alone. */
static BRETT_CREW_INLINE void brett_crew_abandon(brett_crew *c)
{
    c->quitting = 1;
    c->posted = c->helpers = 0;
    c->wake = NULL;
    c->mates = NULL;
}

#endif
