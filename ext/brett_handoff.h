/* A wake-up from one thread to another that polls briefly before it sleeps.
 *
 * The helpers of a crew (brett_crew.h) wait for each job on one of these.
 * Waking a thread asleep on a lock costs tens of microseconds on virtual
 * machines, as much as stepping a few hundred games, so the waiter first polls
 * an atomic word for a while (the polls it is given, with a pause each) and only
 * then sleeps on the lock.  The word says who is where:
 *
 *   0 nothing posted, the waiter (if any) is polling
 *   1 the waiter is asleep on the lock: the poster must release it
 *   2 posted
 *
 * post() swaps in 2 and releases the lock only if it found 1; wait() goes from 0
 * to 1 with a compare-and-swap, so it sleeps only if nothing was posted in the
 * meantime, and swaps 0 back in when it returns.  One waiter per hand-off; posts
 * that come before the waiter returns count as one.  The lock is a PyThread lock,
 * held while idle, so it is released at most once per sleep.
 *
 * GCC and Clang get their __atomic builtins, MSVC its Interlocked intrinsics
 * (full barriers).  No C11 <stdatomic.h>: MSVC's C compiler lacks it.
 */
#ifndef BRETT_HANDOFF_H
#define BRETT_HANDOFF_H

#include "Python.h"
#include "pythread.h"

#include "brett_platform.h"
#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64) || defined(_M_IX86)
#include <immintrin.h>
#define BRETT_PAUSE() _mm_pause()
#else
#define BRETT_PAUSE() ((void)0)
#endif

typedef struct {
    volatile long word;
    PyThread_type_lock lock;
} brett_handoff;

#if BRETT_MSVC
static __inline long brett_handoff_load(volatile long *p)
{
    return _InterlockedCompareExchange(p, 0, 0);
}
static __inline long brett_handoff_swap(volatile long *p, long v)
{
    return _InterlockedExchange(p, v);
}
static __inline int brett_handoff_cas(volatile long *p, long from, long to)
{
    return _InterlockedCompareExchange(p, to, from) == from;
}
#else
static inline long brett_handoff_load(volatile long *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
static inline long brett_handoff_swap(volatile long *p, long v)
{
    return __atomic_exchange_n(p, v, __ATOMIC_ACQ_REL);
}
static inline int brett_handoff_cas(volatile long *p, long from, long to)
{
    return __atomic_compare_exchange_n(p, &from, to, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE);
}
#endif

/* 0 when ready, -1 when out of memory. */
static int brett_handoff_init(brett_handoff *h)
{
    h->word = 0;
    h->lock = PyThread_allocate_lock();
    if (h->lock == NULL)
        return -1;
    PyThread_acquire_lock(h->lock, WAIT_LOCK);
    return 0;
}

static void brett_handoff_free(brett_handoff *h)
{
    if (h->lock != NULL)
        PyThread_free_lock(h->lock);
    h->lock = NULL;
}

static void brett_handoff_post(brett_handoff *h)
{
    if (brett_handoff_swap(&h->word, 2) == 1)
        PyThread_release_lock(h->lock);
}

/* Wait for a post: poll `polls` times, then sleep on the lock. */
static void brett_handoff_wait_polls(brett_handoff *h, long polls)
{
    long i;
    for (i = 0; i < polls; i++) {
        if (brett_handoff_load(&h->word) == 2)
            goto taken;
        BRETT_PAUSE();
    }
    if (brett_handoff_cas(&h->word, 0, 1))
        PyThread_acquire_lock(h->lock, WAIT_LOCK);   /* the post releases it */
taken:
    brett_handoff_swap(&h->word, 0);
}

#endif
