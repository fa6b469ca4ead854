/* The Ctrl-C (and brett.Stopper) check of long searches, shared by the Cython
 * cores and the C kernels.
 *
 * A search calls brett_interrupted() at its inner nodes.  Only every `every`-th
 * call runs `poll` (the core's check, which takes the GIL); `poll` then re-arms
 * the countdown with brett_rearm(), which scales `every` so that the next
 * countdown lasts about BRETT_POLL_SECONDS of search, whatever a node costs
 * (a Phutball path, a Focus game, a wide Reversi node): rarely enough to cost
 * nothing, often enough to stop within milliseconds.  Once `stopped` is set,
 * every later call answers 1 and the search unwinds.
 */
#ifndef BRETT_INTERRUPT_H
#define BRETT_INTERRUPT_H

#include <stdint.h>
#include <time.h>

#if defined(_WIN32)
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#define BRETT_LEAN_WINDOWS
#endif
#include <windows.h>   /* QueryPerformanceCounter */
#ifdef BRETT_LEAN_WINDOWS
#undef WIN32_LEAN_AND_MEAN
#undef BRETT_LEAN_WINDOWS
#endif
#endif

#define BRETT_POLL_SECONDS 0.004
#define BRETT_POLL_MAX_EVERY 0x40000000u

typedef struct BrettInterrupt {
    uint32_t countdown;
    uint32_t every;
    int stopped;
    int (*poll)(struct BrettInterrupt *it);
    double since;   /* brett_clock() when the countdown was armed */
} BrettInterrupt;

static inline int brett_interrupted(BrettInterrupt *it)
{
    if (it->countdown) {
        it->countdown--;
        return 0;
    }
    return it->poll(it);
}

/* Seconds on a monotonic clock that only matters by its differences.  Windows:
 * the performance counter (timespec_get, C11's, is a wall clock and missing from
 * the C runtime that mingw-w64 builds against by default). */
static inline double brett_clock(void)
{
#if defined(_WIN32)
    LARGE_INTEGER count, frequency;
    QueryPerformanceCounter(&count);
    QueryPerformanceFrequency(&frequency);
    return (double)count.QuadPart / (double)frequency.QuadPart;
#elif defined(CLOCK_MONOTONIC)
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#else
    return (double)clock() / CLOCKS_PER_SEC;
#endif
}

/* Arm the next countdown after a poll: `worked` seconds were spent searching
 * since the last one.  `every` follows the node cost down at once and up at
 * most twofold per poll (a cheap stretch must not make a costly one poll late). */
static inline void brett_rearm(BrettInterrupt *it, double worked)
{
    double every = 2.0 * it->every;
    if (worked > 0 && it->every * (BRETT_POLL_SECONDS / worked) < every)
        every = it->every * (BRETT_POLL_SECONDS / worked);
    if (every < 1.0)
        every = 1.0;
    if (every > BRETT_POLL_MAX_EVERY)
        every = BRETT_POLL_MAX_EVERY;
    it->every = (uint32_t)every;
    it->countdown = it->every;
    it->since = brett_clock();
}

#endif /* BRETT_INTERRUPT_H */
