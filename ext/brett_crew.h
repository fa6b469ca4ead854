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
 * running does the same on its own hand-off, which the helper that runs a job's
 * last chunk posts: a helper that was preempted in the middle of a chunk (by a
 * busy machine) then finds the caller's CPU idle and can be moved there, instead
 * of waiting behind a caller that spins.  Nothing in a job's path sleeps for a
 * clock tick.
 */
#ifndef BRETT_CREW_H
#define BRETT_CREW_H

#include <stdlib.h>

#include "brett_handoff.h"

#ifndef BRETT_CREW_SPINS
#define BRETT_CREW_SPINS 2000     /* polls for a job (or its end) before sleeping */
#endif
#define BRETT_CREW_MAX_ALONE 64     /* jobs without the helpers after late ones */

/* Runs chunk `chunk` of the current job; called by any thread of the crew. */
typedef void (*brett_crew_fn)(void *ctx, long chunk);

#define BRETT_CREW_MAX_CHUNKS 16384       /* front and back each fit in 15 bits */
#define BRETT_CREW_FRONT 1L
#define BRETT_CREW_BACK (1L << 15)

typedef struct {
    volatile long ends;       /* chunks claimed from the front, and (x 2^15) the back */
    volatile long done;       /* chunks run */
    volatile long quitting;   /* 1: helpers return from serve */
    volatile long held;       /* 1: helpers claim nothing (a test hook) */
    long nchunks;
    int helpers;              /* helper k in 1..helpers waits on wake[k] */
    int posted;               /* the helpers a job wakes: 0 once they are gone */
    int alone;                /* jobs left that the caller runs without waking them */
    int backoff;              /* how many jobs the next late helper costs it */
    brett_crew_fn run;
    void *ctx;
    brett_handoff *wake;
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
    c->nchunks = nchunks;
    c->helpers = 0;
    c->posted = 0;
    c->alone = c->backoff = 0;
    c->run = NULL;
    c->ctx = NULL;
    c->wake = (brett_handoff *)calloc((size_t)helpers + 1, sizeof(brett_handoff));
    if (c->wake == NULL || brett_handoff_init(&c->finish) < 0)
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
    c->wake = NULL;
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

/* Claim and run chunks of the open job from one end until none is left. */
static void brett_crew_take(brett_crew *c, long end)
{
    long chunk;
    while ((chunk = brett_crew_claim(c, end)) >= 0) {
        c->run(c->ctx, chunk);
        if (brett_crew_add(&c->done, 1) == c->nchunks - 1 && end == BRETT_CREW_BACK)
            brett_handoff_post(&c->finish);     /* the job's last chunk: wake the caller */
    }
}

/* The caller: run every chunk of a job, with whatever help arrives in time.
 * A job that waited for a helper past the polls (a helper preempted in the middle
 * of a chunk: the machine is busy) makes the next jobs run without waking the
 * helpers, 1, 2, 4, ... up to BRETT_CREW_MAX_ALONE of them, the count doubling
 * while helpers keep coming late and starting over after a job they did not. */
static void brett_crew_run(brett_crew *c, brett_crew_fn run, void *ctx)
{
    int k, helped = 0, late = 0;
    c->run = run;
    c->ctx = ctx;
    brett_crew_store(&c->done, 0);
    brett_crew_store(&c->ends, 0);          /* opens the job */
    if (c->alone > 0) {
        c->alone--;
    } else {
        helped = c->posted > 0;
        for (k = 1; k <= c->posted; k++)
            brett_handoff_post(&c->wake[k]);
    }
    brett_crew_take(c, BRETT_CREW_FRONT);
    /* A post left from an earlier job only makes this loop look again. */
    while (brett_handoff_load(&c->done) < c->nchunks)
        late |= brett_handoff_wait_polls(&c->finish, BRETT_CREW_SPINS);
    if (helped) {
        c->backoff = late ? (c->backoff ? 2 * c->backoff : 1) : 0;
        if (c->backoff > BRETT_CREW_MAX_ALONE)
            c->backoff = BRETT_CREW_MAX_ALONE;
        c->alone = c->backoff;
    }
}

/* Helper k's life: take chunks whenever a job is open, until dismissed. */
static void brett_crew_serve(brett_crew *c, int k)
{
    while (!brett_handoff_load(&c->quitting)) {
        if (!brett_handoff_load(&c->held))
            brett_crew_take(c, BRETT_CREW_BACK);
        brett_handoff_wait_polls(&c->wake[k], BRETT_CREW_SPINS);
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
}

#endif
