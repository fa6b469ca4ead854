/* ext/'s headers run outside Python: the same code the Cython cores compile,
 * checked against known answers on whatever compiler and operating system
 * builds this file.
 *
 *   bit operations      popcount, lowest/highest bit and byte swap against
 *                       plain loops on random words and the edge cases
 *   CPU detection       the features found, and the kernel level chosen for them
 *   splitmix64          the published first outputs
 *   the hand-off        two threads passing 20,000 jobs both ways, polling and
 *                       sleeping on the lock (brett_handoff.h), the data they
 *                       share made visible by its atomics alone
 *   the crew            a caller and two helpers sharing 2,000 jobs of 40 chunks
 *                       (brett_crew.h): every chunk run once per job, with the
 *                       job's own input; the helpers take some; held helpers
 *                       take none and every job still finishes; fed made-up
 *                       times, the crew wakes helpers that are faster and lets
 *                       slower ones sleep but for trials; on Linux, a thread
 *                       leaves the CPU it is told to, is pulled onto one, and
 *                       gets its affinity back
 *   Ctrl-C polls        the countdown, the clock and the re-arming
 *   Reversi kernels     every level this CPU runs: perft(9) and perft(10) of
 *                       the 8x8 start (3,005,288; 24,571,284 counting finished
 *                       games), a board with holes (250,635 at depth 8), the
 *                       same counts through a transposition table (with the
 *                       eight symmetries on the full board; a table of one
 *                       bucket on the holed one), and moves, flips and seeded
 *                       playouts equal to the portable level's
 *   endgame solver      FFO #40 (+38, a2) on every level
 *   alpha-beta          brett_eval.h's exact phase agrees with the solver
 *
 * Built by tests/test_headers.py with GCC and Clang (-Wall -Wextra -Werror) and,
 * for the Windows code paths, with mingw-w64 and run under Wine; where
 * BRETT_MSVC=1 is defined, mingw-w64 compiles the MSVC intrinsic branches
 * (<intrin.h>) instead of the GCC builtins.  CPython's lock comes from the
 * stand-in in stub/ (a binary semaphore, as CPython's is).
 *
 * Prints one line per check and "harness: N checks, 0 failed"; exits 1 on any
 * failure.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE     /* as CPython's pyconfig.h does for the extensions: sched_getcpu */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long harness_spins;   /* the polls before a thread sleeps, per phase */
#define BRETT_CREW_SPINS harness_spins

#include "brett_bitops.h"
#include "brett_cpu.h"
#include "brett_endgame.h"
#include "brett_eval.h"
#include "brett_crew.h"
#include "brett_handoff.h"
#include "brett_perft_table.h"
#include "brett_interrupt.h"
#include "brett_platform.h"
#include "brett_reversi.h"
#include "brett_rng.h"

#if defined(_WIN32)
#include <windows.h>
#else
#include <pthread.h>
#endif

static int checks, failures;

#define CHECK(cond, ...)                                              \
    do {                                                              \
        checks++;                                                     \
        if (!(cond)) {                                                \
            failures++;                                               \
            printf("FAILED %s:%d: ", __FILE__, __LINE__);             \
            printf(__VA_ARGS__);                                      \
            printf("\n");                                             \
        }                                                             \
    } while (0)

/* ---- a thread, on Win32 or POSIX */

typedef struct {
    void (*run)(void *arg);
    void *arg;
#if defined(_WIN32)
    HANDLE handle;
#else
    pthread_t handle;
#endif
} Thread;

#if defined(_WIN32)
static DWORD WINAPI thread_main(LPVOID p)
{
    Thread *t = (Thread *)p;
    t->run(t->arg);
    return 0;
}
static int thread_start(Thread *t)
{
    t->handle = CreateThread(NULL, 0, thread_main, t, 0, NULL);
    return t->handle != NULL;
}
static void thread_join(Thread *t)
{
    WaitForSingleObject(t->handle, INFINITE);
    CloseHandle(t->handle);
}
#else
static void *thread_main(void *p)
{
    Thread *t = (Thread *)p;
    t->run(t->arg);
    return NULL;
}
static int thread_start(Thread *t)
{
    return pthread_create(&t->handle, NULL, thread_main, t) == 0;
}
static void thread_join(Thread *t)
{
    pthread_join(t->handle, NULL);
}
#endif

/* ---- bit operations */

static int slow_popcount(uint64_t x)
{
    int n = 0;
    for (; x; x >>= 1)
        n += (int)(x & 1);
    return n;
}

static int slow_ctz(uint64_t x)
{
    int n = 0;
    while (!(x & 1)) {
        x >>= 1;
        n++;
    }
    return n;
}

static int slow_msb(uint64_t x)
{
    int n = -1;
    for (; x; x >>= 1)
        n++;
    return n;
}

static uint64_t slow_bswap(uint64_t x)
{
    uint64_t r = 0;
    int i;
    for (i = 0; i < 8; i++)
        r |= ((x >> (8 * i)) & 0xFF) << (8 * (7 - i));
    return r;
}

static void check_bitops(void)
{
    static const uint64_t edges[] = {1, 2, 3, 0x8000000000000000ULL, 0xFFFFFFFFFFFFFFFFULL,
                                     0x00000000FFFFFFFFULL, 0xFFFFFFFF00000000ULL,
                                     0x0000000100000000ULL, 0x0000000080000000ULL};
    uint64_t rng = 12345, x;
    int i, bad = 0;
    for (i = 0; i < 200000 + (int)(sizeof edges / sizeof edges[0]); i++) {
        if (i < (int)(sizeof edges / sizeof edges[0]))
            x = edges[i];
        else
            x = brett_rng_next(&rng) >> (i % 64);   /* every bit length */
        if (!x)
            continue;
        if (brett_popcount64(x) != slow_popcount(x) || brett_ctz64(x) != slow_ctz(x)
            || brett_msb64(x) != slow_msb(x) || brett_bswap64(x) != slow_bswap(x)) {
            if (bad++ < 5)
                printf("  bitops differ on %016llx\n", (unsigned long long)x);
        }
    }
    CHECK(bad == 0, "bit operations: %d words differ from the plain loops", bad);
    CHECK(brett_popcount64(0) == 0, "popcount(0)");
    CHECK(brett_bswap64(0x0102030405060708ULL) == 0x0807060504030201ULL, "bswap");
    printf("bit operations: 200,000 words agree with plain loops\n");
}

/* ---- CPU detection and the kernel levels */

static void check_cpu(void)
{
    unsigned f = brett_cpu_features();
    BrettReversiKernels best = brett_rv_select(BRETT_RV_AVX512);
    const char *expect = "portable";
    printf("CPU features:%s%s%s%s%s%s%s -> kernels %s\n", f ? "" : " none",
           f & BRETT_CPU_POPCNT ? " popcnt" : "", f & BRETT_CPU_BMI1 ? " bmi1" : "",
           f & BRETT_CPU_BMI2 ? " bmi2" : "", f & BRETT_CPU_LZCNT ? " lzcnt" : "",
           f & BRETT_CPU_AVX2 ? " avx2" : "", f & BRETT_CPU_AVX512 ? " avx512" : "",
           best.name);
#if BRETT_RV_HAVE_AVX2
    if ((f & BRETT_RV_AVX2_FEATURES) == BRETT_RV_AVX2_FEATURES)
        expect = "avx2";
#endif
#if BRETT_RV_HAVE_AVX512
    if ((f & BRETT_RV_AVX512_FEATURES) == BRETT_RV_AVX512_FEATURES)
        expect = "avx512";
#endif
    CHECK(strcmp(best.name, expect) == 0, "kernels %s chosen, %s expected", best.name, expect);
    CHECK(strcmp(brett_rv_select(BRETT_RV_PORTABLE).name, "portable") == 0,
          "the portable cap");
    CHECK(!(f & BRETT_CPU_AVX512) || (f & BRETT_CPU_AVX2), "AVX-512 without AVX2");
#if !BRETT_X86_64
    CHECK(f == 0, "features %#x reported off x86-64", f);
#endif
}

/* ---- splitmix64 */

static void check_rng(void)
{
    uint64_t s = 0;
    const uint64_t a = brett_rng_next(&s), b = brett_rng_next(&s), c = brett_rng_next(&s);
    CHECK(a == 0xE220A8397B1DCDAFULL && b == 0x6E789E6AA1B965F4ULL
              && c == 0x06C45D188009454FULL,
          "splitmix64 from 0: %016llx %016llx %016llx", (unsigned long long)a,
          (unsigned long long)b, (unsigned long long)c);
    s = 7;
    CHECK(brett_rng_below(&s, 1) == 0, "below(1)");
    printf("splitmix64: the published sequence\n");
}

/* ---- the hand-off */

#define HANDOFF_JOBS 20000

typedef struct {
    brett_handoff go, done;
    long job, answer;   /* plain memory: only the hand-off's barriers order it */
    int stop;
} Crew;

static void helper(void *arg)
{
    Crew *c = (Crew *)arg;
    for (;;) {
        brett_handoff_wait_polls(&c->go, harness_spins);
        if (c->stop)
            break;
        c->answer = 3 * c->job + 1;
        brett_handoff_post(&c->done);
    }
    brett_handoff_post(&c->done);
}

static void check_handoff(void)
{
    static const long spins[] = {0, 50, 20000};
    int phase;
    for (phase = 0; phase < 3; phase++) {
        Crew c;
        Thread t;
        long i, wrong = 0;
        harness_spins = spins[phase];
        memset(&c, 0, sizeof c);
        if (brett_handoff_init(&c.go) < 0 || brett_handoff_init(&c.done) < 0) {
            CHECK(0, "hand-off: no lock");
            return;
        }
        t.run = helper;
        t.arg = &c;
        if (!thread_start(&t)) {
            CHECK(0, "hand-off: no thread");
            return;
        }
        for (i = 0; i < HANDOFF_JOBS; i++) {
            c.job = i;
            brett_handoff_post(&c.go);
            brett_handoff_wait_polls(&c.done, harness_spins);
            wrong += c.answer != 3 * i + 1;
        }
        c.stop = 1;
        brett_handoff_post(&c.go);
        brett_handoff_wait_polls(&c.done, harness_spins);
        thread_join(&t);
        brett_handoff_free(&c.go);
        brett_handoff_free(&c.done);
        CHECK(wrong == 0, "hand-off, %ld polls: %ld wrong answers", spins[phase], wrong);
        printf("hand-off: %d jobs both ways, %ld polls before sleeping\n", HANDOFF_JOBS,
               spins[phase]);
    }
}

/* ---- the crew */

#define CREW_JOBS 2000
#define CREW_CHUNKS 40
#define CREW_HELPERS 2

typedef struct {
    brett_crew crew;
    long job;                        /* the job's input, read by every chunk */
    uint64_t out[CREW_CHUNKS];       /* plain memory: the crew's atomics order it */
    int runs[CREW_CHUNKS];           /* how often each chunk ran in this job */
    volatile long by_helpers;        /* chunks the helpers ran, over all jobs */
    volatile long k;                 /* the next helper number to serve */
} CrewTest;

static uint64_t crew_answer(long job, long chunk)
{
    uint64_t s = (uint64_t)job * 1000003u + (uint64_t)chunk, x = 0;
    int i;
    for (i = 0; i < 500; i++)        /* some work, so that a chunk takes a while */
        x ^= brett_rng_next(&s);
    return x;
}

#if defined(_MSC_VER)
static __declspec(thread) int crew_is_helper;
#else
static __thread int crew_is_helper;
#endif

static void crew_chunk(void *ctx, long chunk)
{
    CrewTest *t = (CrewTest *)ctx;
    t->out[chunk] = crew_answer(t->job, chunk);
    t->runs[chunk]++;
}

static void crew_chunk_counted(void *ctx, long chunk)
{
    CrewTest *t = (CrewTest *)ctx;
    crew_chunk(ctx, chunk);
    if (crew_is_helper)
        brett_crew_add(&t->by_helpers, 1);
}

static void crew_helper(void *arg)
{
    CrewTest *t = (CrewTest *)arg;
    crew_is_helper = 1;
    brett_crew_serve(&t->crew, (int)brett_crew_add(&t->k, 1));
}

/* Runs `jobs` jobs; the number of jobs with a wrong or missing chunk. */
static long crew_jobs(CrewTest *t, long jobs, brett_crew_fn fn)
{
    long j, c, wrong = 0;
    for (j = 0; j < jobs; j++) {
        t->job = j;
        memset(t->runs, 0, sizeof t->runs);
        brett_crew_run(&t->crew, (int)(j % 3), fn, t);
        for (c = 0; c < CREW_CHUNKS; c++) {
            if (t->runs[c] != 1 || t->out[c] != crew_answer(j, c)) {
                wrong++;
                break;
            }
        }
    }
    return wrong;
}

static void check_crew(void)
{
    static const long spins[] = {0, 2000};
    int phase, h;
    for (phase = 0; phase < 2; phase++) {
        static CrewTest t;
        Thread threads[CREW_HELPERS];
        long wrong, held_wrong;
        harness_spins = spins[phase];
        memset(&t, 0, sizeof t);
        t.k = 1;
        if (brett_crew_init(&t.crew, CREW_CHUNKS, CREW_HELPERS) < 0) {
            CHECK(0, "crew: no lock");
            return;
        }
        for (h = 0; h < CREW_HELPERS; h++) {
            threads[h].run = crew_helper;
            threads[h].arg = &t;
            if (!thread_start(&threads[h])) {
                CHECK(0, "crew: no thread");
                return;
            }
        }
        wrong = crew_jobs(&t, CREW_JOBS, crew_chunk_counted);
        brett_crew_store(&t.crew.held, 1);
        held_wrong = crew_jobs(&t, CREW_JOBS / 10, crew_chunk);
        brett_crew_store(&t.crew.held, 0);
        brett_crew_dismiss(&t.crew);
        for (h = 0; h < CREW_HELPERS; h++)
            thread_join(&threads[h]);
        brett_crew_free(&t.crew);
        CHECK(wrong == 0, "crew, %ld polls: %ld jobs wrong", spins[phase], wrong);
        CHECK(held_wrong == 0, "crew held, %ld polls: %ld jobs wrong", spins[phase],
              held_wrong);
        CHECK(t.by_helpers > 0, "crew, %ld polls: the helpers ran no chunk", spins[phase]);
        printf("crew: %d jobs of %d chunks, %ld polls before sleeping; the helpers ran "
               "%ld of %ld chunks; held, %d jobs alone\n", CREW_JOBS, CREW_CHUNKS,
               spins[phase], (long)t.by_helpers, (long)CREW_JOBS * CREW_CHUNKS,
               CREW_JOBS / 10);
    }
}

/* The crew's choice of way, fed made-up times: `helped` and `alone` seconds per
 * job of each kind (kind k takes k + 1 times as long); the share of jobs for
 * which the helpers were woken. */
static double crew_choice(double helped, double alone, long jobs)
{
    brett_crew c;
    long j, woken = 0;
    int kind;
    memset(&c, 0, sizeof c);
    if (brett_crew_init(&c, 1, 1) < 0)
        return -1;
    for (j = 0; j < jobs; j++) {
        kind = (int)(j % 3);
        woken += c.helped;
        brett_crew_timed(&c, kind, (kind + 1) * (c.helped ? helped : alone));
    }
    brett_crew_free(&c);
    return (double)woken / (double)jobs;
}

static void check_crew_choice(void)
{
    double faster = crew_choice(3e-5, 5.3e-5, 20000), slower = crew_choice(5.8e-5, 5.3e-5, 20000);
    CHECK(faster > 0.98, "crew: faster helpers woken for %.3f of the jobs", faster);
    CHECK(slower < 0.03, "crew: slower helpers woken for %.3f of the jobs", slower);
    printf("crew: faster helpers woken for %.1f%% of the jobs, 10%% slower ones for %.1f%%\n",
           100 * faster, 100 * slower);
}

/* A helper on the caller's CPU moves off it, and a late one is pulled onto the
 * caller's (Linux): here the harness's own thread, both ways. */
static void check_crew_moves(void)
{
#if defined(__linux__)
    brett_crew_cpus before, after;
    int cpu = brett_crew_cpu(), moved, pulled;
    brett_crew_affinity(&before, 0);
    if (cpu < 0 || CPU_COUNT(&before) < 2) {
        printf("crew: one CPU here, no move to check\n");
        return;
    }
    moved = brett_crew_leave(cpu);
    brett_crew_affinity(&after, 0);
    CHECK(moved, "crew: the thread did not leave CPU %d", cpu);
    CHECK(CPU_EQUAL(&before, &after), "crew: the thread's affinity was not given back");
    brett_crew_pull(brett_crew_tid(), cpu);
    pulled = brett_crew_cpu() == cpu;
    brett_crew_affinity(&after, 0);
    CHECK(pulled && CPU_COUNT(&after) == 1, "crew: the thread was not pulled onto CPU %d", cpu);
    brett_crew_affinity(&before, 1);
    brett_crew_affinity(&after, 0);
    CHECK(CPU_EQUAL(&before, &after), "crew: the pulled thread did not get its CPUs back");
    printf("crew: the thread left CPU %d, was pulled back onto it, and got its %d CPUs back\n",
           cpu, CPU_COUNT(&after));
#else
    CHECK(brett_crew_cpu() == -1 && !brett_crew_leave(0) && brett_crew_tid() == 0,
          "crew: a move off a CPU outside Linux");
    printf("crew: threads are not moved outside Linux\n");
#endif
}

/* ---- positions */

/* A board of 64 characters (a1 b1 ... h8; X O -), X's discs in *x, O's in *o. */
static void parse_board(const char *text, uint64_t *x, uint64_t *o)
{
    int i;
    *x = *o = 0;
    for (i = 0; i < 64; i++) {
        if (text[i] == 'X')
            *x |= (uint64_t)1 << i;
        else if (text[i] == 'O')
            *o |= (uint64_t)1 << i;
    }
}

#define SQ(name) (((name)[1] - '1') * 8 + ((name)[0] - 'a'))
#define BIT(name) ((uint64_t)1 << SQ(name))
#define START_BLACK (BIT("e4") | BIT("d5"))
#define START_WHITE (BIT("d4") | BIT("e5"))

/* ---- Ctrl-C polls */

static int polls;

static int count_poll(BrettInterrupt *it)
{
    polls++;
    brett_rearm(it, brett_clock() - it->since);
    return 0;
}

static void interrupt_init(BrettInterrupt *it)
{
    it->countdown = it->every = 1000;
    it->stopped = 0;
    it->poll = count_poll;
    it->since = brett_clock();
}

static int stop_at_once(BrettInterrupt *it)
{
    it->stopped = 1;
    return 1;
}

static void check_interrupt(void)
{
    BrettInterrupt it;
    double t0 = brett_clock(), t1;
    volatile uint64_t sink = 0;
    uint64_t s = 1;
    long i;
    interrupt_init(&it);
    for (i = 0; i < 3000000; i++) {
        if (brett_interrupted(&it))
            break;
        sink += brett_rng_next(&s);
    }
    t1 = brett_clock();
    CHECK(i == 3000000 && polls > 0, "%d polls over %ld calls", polls, i);
    CHECK(t1 >= t0 && t1 - t0 < 600, "brett_clock went from %f to %f", t0, t1);
    CHECK(it.every >= 1 && it.every <= BRETT_POLL_MAX_EVERY, "every = %u", it.every);
    printf("polls: %d over 3,000,000 calls, now every %u (%.3f s)\n", polls, it.every,
           t1 - t0);
    (void)sink;
    /* a stop ends a deep perft at its first poll */
    interrupt_init(&it);
    it.countdown = 0;
    it.poll = stop_at_once;
    CHECK(brett_rv_select(BRETT_RV_AVX512).perft8(START_BLACK, START_WHITE, ~(uint64_t)0, 14,
                                                  0, &it) == 0 && it.stopped,
          "a stopped perft(14) went on");
}

/* ---- the Reversi kernels */

/* perft from the 8x8 start through a fresh table of `bytes` (0 on no memory). */
static uint64_t hashed_count(BrettReversiKernels k, uint64_t playable, int depth, int cf,
                             int sym_n, uint64_t bytes)
{
    BrettPerftTable table;
    BrettInterrupt it;
    uint64_t n;
    if (!brett_perft_table_open(&table, bytes, 2))
        return 0;
    interrupt_init(&it);
    n = k.hperft8(START_BLACK, START_WHITE, playable, depth, cf, sym_n, &table, &it);
    brett_perft_table_close(&table);
    return n;
}

/* A count past 2^64 - 1 saturates instead of wrapping: the subtree after d3 is
 * planted in the table with a count just under it. */
static int saturates(BrettReversiKernels k)
{
    BrettPerftTable table;
    BrettInterrupt it;
    const int d3 = SQ("d3");
    const uint64_t f = brett_rv_portable_flips8(START_BLACK, START_WHITE, d3);
    uint64_t n, after_d3[2];
    if (!brett_perft_table_open(&table, 1 << 16, 2))
        return 0;
    interrupt_init(&it);
    after_d3[0] = START_WHITE ^ f;
    after_d3[1] = START_BLACK ^ f ^ BIT("d3");
    brett_perft_store(&table, after_d3, 2, 5, BRETT_PERFT_SATURATED - 1);
    n = k.hperft8(START_BLACK, START_WHITE, ~(uint64_t)0, 6, 0, 0, &table, &it);
    brett_perft_table_close(&table);
    return f != 0 && n == BRETT_PERFT_SATURATED;
}

/* ---- perft tables of every key length */

/* The i-th key of a run: random words, the last one the index (all distinct). */
static void table_key(uint64_t seed, int i, int words, uint64_t *key)
{
    uint64_t state = seed + (uint64_t)i * 0x100000001B3u;
    int w;
    for (w = 0; w < words; w++)
        key[w] = brett_rng_next(&state);
    key[words - 1] = (uint64_t)i;
}

/* `n` keys stored into a table of `bytes` and probed back: a hit always gives
 * its own count, a key that differs in one word only is never a hit, and at
 * least `kept_percent` of the keys are still there. */
static void check_table_keys(int words, uint64_t bytes, int n, int kept_percent)
{
    BrettPerftTable table;
    uint64_t key[BRETT_PERFT_MAX_WORDS], count;
    int i, kept = 0, wrong = 0, false_hits = 0;
    size_t first_bytes;
    if (!brett_perft_table_open(&table, bytes, words)) {
        CHECK(0, "a table of %d-word keys: no memory", words);
        return;
    }
    first_bytes = brett_perft_table_bytes(&table);
    for (i = 0; i < n; i++) {
        table_key(words, i, words, key);
        brett_perft_store(&table, key, words, (uint32_t)(1 + i % 9), (uint64_t)i * 3);
    }
    for (i = 0; i < n; i++) {
        table_key(words, i, words, key);
        if (brett_perft_probe(&table, key, words, (uint32_t)(1 + i % 9), &count)) {
            kept++;
            wrong += count != (uint64_t)i * 3;
        }
        key[0] ^= 1;   /* another position */
        false_hits += brett_perft_probe(&table, key, words, (uint32_t)(1 + i % 9), &count);
    }
    CHECK(wrong == 0 && false_hits == 0 && kept * 100 >= n * kept_percent,
          "%d-word keys, %d stored in %llu bytes: %d kept, %d wrong, %d false hits", words,
          n, (unsigned long long)bytes, kept, wrong, false_hits);
    CHECK(bytes < 2 * first_bytes || brett_perft_table_bytes(&table) > first_bytes,
          "a table of %d-word keys grows as it fills", words);
    brett_perft_table_close(&table);
}

static void check_tables(void)
{
    static const int lengths[] = {1, 2, 8};
    int i;
    for (i = 0; i < 3; i++) {
        check_table_keys(lengths[i], 1 << 26, 50000, 70);   /* grows as it fills */
        check_table_keys(lengths[i], 160, 50000, 0);        /* one or two buckets */
    }
    printf("perft tables: keys of 1, 2 and 8 words, growing and tiny\n");
}

/* ---- a perft table shared by two threads */

typedef struct {
    BrettReversiKernels k;
    BrettPerftTable *table;
    int depth;
    uint64_t count;
} SharedCount;

static void shared_count(void *arg)
{
    SharedCount *c = (SharedCount *)arg;
    BrettInterrupt it;
    interrupt_init(&it);
    c->count = c->k.hperft8(START_BLACK, START_WHITE, ~(uint64_t)0, c->depth, 1, 8,
                            c->table, &it);
}

/* Two threads count the same tree through one shared table at once (so they
 * probe and store the same buckets), of one bucket and of 1 MiB: both exact. */
static void check_shared_table(void)
{
    static const uint64_t sizes[] = {64, 1 << 20};
    BrettReversiKernels k = brett_rv_select(BRETT_RV_AVX512);
    BrettPerftTable table;
    SharedCount main_count, other_count;
    Thread t;
    int i;
    for (i = 0; i < 2; i++) {
        if (!brett_perft_table_open(&table, sizes[i], 2) || !brett_perft_table_share(&table)) {
            CHECK(0, "shared table: no memory");
            return;
        }
        main_count.k = other_count.k = k;
        main_count.table = other_count.table = &table;
        main_count.depth = other_count.depth = 10;
        t.run = shared_count;
        t.arg = &other_count;
        if (!thread_start(&t)) {
            CHECK(0, "shared table: no thread");
            brett_perft_table_close(&table);
            return;
        }
        shared_count(&main_count);
        thread_join(&t);
        brett_perft_table_close(&table);
        CHECK(main_count.count == 24571284 && other_count.count == 24571284,
              "a table of %llu bytes shared by two threads: perft(10) = %llu and %llu",
              (unsigned long long)sizes[i], (unsigned long long)main_count.count,
              (unsigned long long)other_count.count);
    }
    printf("shared table: two threads, perft(10) through one table (%s)\n", k.name);
}

static void check_kernels(void)
{
    const uint64_t all = ~(uint64_t)0;
    const uint64_t holes = all & ~(BIT("b4") | BIT("e2") | BIT("g5"));
    int level;
    long long portable_res[5] = {0, 0, 0, 0, 0};
    for (level = BRETT_RV_PORTABLE; level <= BRETT_RV_AVX512; level++) {
        BrettReversiKernels k = brett_rv_select(level), p = brett_rv_select(BRETT_RV_PORTABLE);
        BrettInterrupt it;
        uint64_t n9, n10, nh, rng = 99, pos = 2024;
        long long res[5] = {0, 0, 0, 0, 0};
        int i, differ = 0;
        if (!brett_rv_runs(level))
            continue;
        interrupt_init(&it);
        n9 = k.perft8(START_BLACK, START_WHITE, all, 9, 0, &it);
        n10 = k.perft8(START_BLACK, START_WHITE, all, 10, 1, &it);
        nh = k.perft8(START_BLACK, START_WHITE, holes, 8, 0, &it);
        CHECK(n9 == 3005288, "%s perft(9) = %llu", k.name, (unsigned long long)n9);
        CHECK(n10 == 24571284, "%s perft(10) counting finished games = %llu", k.name,
              (unsigned long long)n10);
        CHECK(nh == 250635, "%s perft(8) with holes b4 e2 g5 = %llu", k.name,
              (unsigned long long)nh);
        CHECK(hashed_count(k, all, 10, 1, 8, 1 << 20) == n10,
              "%s perft(10) through a symmetric table differs", k.name);
        CHECK(hashed_count(k, all, 10, 1, 0, 1 << 20) == n10,   /* grows twice */
              "%s perft(10) through a table that grows differs", k.name);
        CHECK(saturates(k), "%s a count past 2^64 - 1 wraps", k.name);
        CHECK(hashed_count(k, holes, 8, 0, 0, 64) == nh,
              "%s perft(8) with holes through a table of one bucket differs", k.name);
        k.playouts8(START_BLACK, START_WHITE, 0, all, 2000, &rng, -1, res, &it);
        if (level == BRETT_RV_PORTABLE)
            memcpy(portable_res, res, sizeof res);
        CHECK(res[0] + res[1] + res[2] == 2000 && res[3] == 0, "%s playouts: %lld games",
              k.name, res[0] + res[1] + res[2] + res[3]);
        CHECK(memcmp(res, portable_res, sizeof res) == 0, "%s playouts differ from portable",
              k.name);
        /* moves and flips of random positions equal to the portable level's */
        for (i = 0; i < 20000; i++) {
            uint64_t a = brett_rng_next(&pos), b = brett_rng_next(&pos) & ~a, e = all & ~(a | b);
            uint64_t m = brett_rv_portable_moves8(a, b, e);
            int sq;
            if (level == BRETT_RV_PORTABLE)
                break;
#if BRETT_RV_HAVE_AVX2
            if (level == BRETT_RV_AVX2 && brett_rv_avx2_moves8(a, b, e) != m)
                differ++;
#endif
#if BRETT_RV_HAVE_AVX512
            if (level == BRETT_RV_AVX512 && brett_rv_avx512_moves8(a, b, e) != m)
                differ++;
#endif
            for (sq = 0; sq < 64; sq++) {
                uint64_t f;
                if (!((m >> sq) & 1))
                    continue;
                f = brett_rv_portable_flips8(a, b, sq);
#if BRETT_RV_HAVE_AVX2
                if (level == BRETT_RV_AVX2 && brett_rv_avx2_flips8(a, b, sq) != f)
                    differ++;
#endif
#if BRETT_RV_HAVE_AVX512
                if (level == BRETT_RV_AVX512 && brett_rv_avx512_flips8(a, b, sq) != f)
                    differ++;
#endif
                (void)f;
            }
        }
        CHECK(differ == 0, "%s: %d moves or flips differ from portable", k.name, differ);
        printf("kernels %s: perft(9) %llu, perft(10) %llu, holes perft(8) %llu, "
               "2,000 playouts %lld-%lld-%lld\n", k.name, (unsigned long long)n9,
               (unsigned long long)n10, (unsigned long long)nh, res[0], res[1], res[2]);
        (void)p;
    }
}

/* ---- the endgame solver and the alpha-beta search */

static const char FFO40[] =
    "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X--------";

/* An evaluation of no pattern: mobility minus the opponent's (size 3 is the two
   mobility weights and the constant). */
static int16_t MOBILITY_WEIGHTS[3] = {1, -1, 0};

static void mobility_eval(BrettEval *ev)
{
    memset(ev, 0, sizeof *ev);
    ev->w = MOBILITY_WEIGHTS;
    ev->stages = 1;
    ev->width = 60;
    ev->size = 3;
    ev->scale = 1;
}

/* The evaluation's pieces against a test per square: instances of the shapes
   that split most (a corner block, a vertical edge with its X squares, an
   anti-diagonal), each alone with weights that tell every index apart. */
static const uint8_t EVAL_SHAPES[3][10] = {
    {0, 1, 2, 8, 9, 10, 16, 17, 18},            /* a1-c3 */
    {9, 0, 8, 16, 24, 32, 40, 48, 56, 49},      /* b2, a1-a8, b7 */
    {7, 14, 21, 28, 35, 42, 49, 56},            /* h1-a8 */
};
static const int EVAL_LENS[3] = {9, 10, 8}, EVAL_SIZES[3] = {19683, 59049, 6561};

/* Weights that tell every index of a pattern apart. */
static void eval_weights(int16_t *w, int n)
{
    int k;
    for (k = 0; k < n; k++)
        w[k] = (int16_t)((k * 7919) % 30011 - 15000);
}

static void check_eval_pieces(void)
{
    static int16_t w[59049 + 3];
    uint64_t seed = 5;
    int shape, k, round, bad = 0, pieces = 0;
    for (shape = 0; shape < 3; shape++) {
        BrettEval ev;
        int size = 1;
        memset(&ev, 0, sizeof ev);
        for (k = 0; k < EVAL_LENS[shape]; k++)
            size *= 3;
        eval_weights(w, size);
        w[size] = w[size + 1] = w[size + 2] = 0;
        ev.w = w;
        ev.stages = 1;
        ev.width = 60;
        ev.size = size + 3;
        ev.scale = 1;
        ev.ninst = 1;
        ev.len[0] = EVAL_LENS[shape];
        memcpy(ev.sq[0], EVAL_SHAPES[shape], (size_t)EVAL_LENS[shape]);
        CHECK(brett_ev_prepare(&ev) == 0, "evaluation pieces: out of memory");
        if (!ev.piece)
            return;
        pieces += ev.piece_end[0];
        for (round = 0; round < 2000; round++) {
            const uint64_t a = brett_rng_next(&seed), b = brett_rng_next(&seed);
            const uint64_t P = a & b, O = ~a & brett_rng_next(&seed);
            int index = 0;
            for (k = 0; k < EVAL_LENS[shape]; k++) {
                const int sq = EVAL_SHAPES[shape][k];
                index = 3 * index + (int)(P >> sq & 1) + 2 * (int)(O >> sq & 1);
            }
            bad += brett_ev_eval(&ev, P, O) != w[index];
        }
        brett_ev_release(&ev);
    }
    CHECK(bad == 0, "evaluation pieces: %d of 6000 sums differ from a test per square", bad);
    CHECK(pieces == 3 + 2 + 1, "evaluation pieces: %d, 6 expected", pieces);
    if (!bad)
        printf("evaluation pieces: 6000 random boards read as a test per square does\n");
}

/* A child's evaluation from its parent's frame against its own, with
   instances that share squares (the shapes above), a mobility term and a
   constant, for every move of random boards. */
static void check_eval_frames(void)
{
    static int16_t w[19683 + 59049 + 6561 + 3];
    const int size = 19683 + 59049 + 6561 + 3;
    uint64_t seed = 9, P, O, moves, f, b;
    BrettEval ev;
    BrettSolverEval order;
    BrettSolverFrame frame, next, fresh;
    int i, round, sq, bad = 0, children = 0;
    memset(&ev, 0, sizeof ev);
    eval_weights(w, size);
    w[size - 3] = 3, w[size - 2] = -2, w[size - 1] = 5;
    ev.w = w;
    ev.stages = 1;
    ev.width = 60;
    ev.size = size;
    ev.scale = 1;
    ev.ninst = 3;
    for (i = 0; i < 3; i++) {
        ev.off[i] = i ? ev.off[i - 1] + EVAL_SIZES[i - 1] : 0;
        ev.len[i] = EVAL_LENS[i];
        memcpy(ev.sq[i], EVAL_SHAPES[i], (size_t)EVAL_LENS[i]);
    }
    CHECK(brett_ev_prepare(&ev) == 0, "evaluation frames: out of memory");
    if (!ev.piece)
        return;
    order = brett_ev_solver_eval(&ev);
    CHECK(order.frame != NULL && order.child != NULL && order.advance != NULL,
          "evaluation frames: none offered");
    for (round = 0; round < 2000 && order.child && order.advance; round++) {
        const uint64_t a = brett_rng_next(&seed), c = brett_rng_next(&seed);
        P = a & c, O = ~a & brett_rng_next(&seed);
        order.frame(order.ctx, P, O, &frame);
        for (moves = brett_rv_portable_moves8(P, O, ~(P | O)); moves; moves &= moves - 1) {
            sq = brett_ctz64(moves);
            b = (uint64_t)1 << sq;
            f = brett_rv_portable_flips8(P, O, sq);
            const uint64_t P2 = O ^ f, O2 = P ^ f ^ b;
            bad += order.child(order.ctx, &frame, sq, f, brett_ab_empties(P2, O2),
                               brett_popcount64(brett_ab_moves(P2, O2)),
                               brett_popcount64(brett_ab_moves(O2, P2)))
                   != brett_ev_eval(&ev, P2, O2);
            order.advance(order.ctx, &frame, sq, f, &next);
            order.frame(order.ctx, P2, O2, &fresh);
            bad += memcmp(next.index, fresh.index, (size_t)ev.ninst * sizeof next.index[0])
                   || memcmp(next.own, fresh.own, (size_t)ev.ninst * sizeof next.own[0]);
            children++;
        }
    }
    brett_ev_release(&ev);
    CHECK(bad == 0 && children > 0, "evaluation frames: %d of %d children differ", bad,
          children);
    printf("evaluation frames: %d children of 2000 random boards as evaluated alone, "
           "their frames as made afresh\n", children);
}

/* The last move's flip count by lines against the kernel's flips, on random
   full boards with one empty square, for both sides. */
static void check_last_flips(void)
{
    uint64_t r = 7, P, O, b;
    int i, bad = 0, sq;
    for (i = 0; i < 20000; i++) {
        sq = (int)brett_rng_below(&r, 64);
        b = (uint64_t)1 << sq;
        P = brett_rng_next(&r) & ~b;
        O = ~P & ~b;
        if (brett_eg_last_flips(P, sq) != 2 * brett_popcount64(brett_rv_portable_flips8(P, O, sq))
            || brett_eg_last_flips(O, sq) != 2 * brett_popcount64(brett_rv_portable_flips8(O, P, sq)))
            bad++;
    }
    CHECK(bad == 0, "last flips: %d of 20000 counts differ from the kernel's", bad);
    printf("last flips: 20000 full boards counted as the kernel flips\n");
}

/* A random legal move of P (0 if none) and its flips. */
static uint64_t random_move(uint64_t *r, uint64_t P, uint64_t O, uint64_t *flips)
{
    uint64_t moves = brett_rv_portable_moves8(P, O, ~(P | O)), m;
    int k;
    *flips = 0;
    if (!moves)
        return 0;
    for (k = (int)brett_rng_below(r, (uint32_t)brett_popcount64(moves)), m = moves; k; k--)
        m &= m - 1;
    m &= -m;
    *flips = brett_rv_portable_flips8(P, O, brett_ctz64(m));
    return m;
}

/* Whether the line through sq along (dr, dc), both ways, has no empty square. */
static int line_full(uint64_t empty, int sq, int dr, int dc)
{
    int way, r, c;
    for (way = -1; way <= 1; way += 2)
        for (r = sq / 8, c = sq % 8; r >= 0 && r < 8 && c >= 0 && c < 8;
             r += way * dr, c += way * dc)
            if (empty >> (r * 8 + c) & 1)
                return 0;
    return 1;
}

/* The full lines both stability paths see, against a walk along each line,
   on random empty sets from nearly full to nearly empty: brett_eg_lines' (the
   general path's, holes being squares in neither set) in the four directions
   and brett_eg_full8's (the 8x8 path's) on the diagonals. */
static void check_full_lines(void)
{
    static const int DIRS[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
    const uint64_t FA = 0x0101010101010101ULL, FH = 0x8080808080808080ULL;
    uint64_t r = 5, empty, want[4];
    int i, sq, d, wrong = 0;
    for (i = 0; i < 2000; i++) {
        empty = brett_rng_next(&r);
        for (d = i % 6; d > 0; d--)          /* sparser and sparser */
            empty &= brett_rng_next(&r);
        want[0] = want[1] = want[2] = want[3] = 0;
        for (sq = 0; sq < 64; sq++)
            for (d = 0; d < 4; d++)
                if (line_full(empty, sq, DIRS[d][0], DIRS[d][1]))
                    want[d] |= (uint64_t)1 << sq;
        wrong += ~brett_eg_lines(empty, 1, ~FA, ~FH) != want[0]
                 || ~brett_eg_lines(empty, 8, ~(uint64_t)0, ~(uint64_t)0) != want[1]
                 || ~brett_eg_lines(empty, 9, ~FA, ~FH) != want[2]
                 || ~brett_eg_lines(empty, 7, ~FH, ~FA) != want[3]
                 || brett_eg_full8(~empty, 9, BRETT_EG_LOW9, BRETT_EG_HIGH9) != want[2]
                 || brett_eg_full8(~empty, 7, BRETT_EG_LOW7, BRETT_EG_HIGH7) != want[3];
    }
    CHECK(wrong == 0, "full lines: %d of 2000 empty sets differ from the walk", wrong);
}

/* Stable discs: the edge table's on a few lines, then on positions of random
   games, that the discs found stay their owner's through random games to the
   end, and that the table finds discs the neighbour rule alone does not. */
static void check_stability(void)
{
    uint64_t r = 11, P, O, X, Y, f, m, stable[2];
    int game, i, side, flipped = 0, more = 0, start, len, same = 0;
    /* bit j: square j; a corner run, a run the empty end takes, a disc between */
    CHECK(BRETT_RV_EDGE_STABLE[0x07][0x00] == 0x07, "edge stable: corner run %#x",
          BRETT_RV_EDGE_STABLE[0x07][0x00]);
    CHECK(BRETT_RV_EDGE_STABLE[0x7E][0x01] == 0, "edge stable: a run O takes %#x",
          BRETT_RV_EDGE_STABLE[0x7E][0x01]);
    CHECK(BRETT_RV_EDGE_STABLE[0x05][0x02] == 0x01, "edge stable: a disc between %#x",
          BRETT_RV_EDGE_STABLE[0x05][0x02]);
    CHECK(BRETT_RV_EDGE_STABLE[0x55][0xAA] == 0x55, "edge stable: a full edge %#x",
          BRETT_RV_EDGE_STABLE[0x55][0xAA]);
    for (game = 0; game < 400; game++) {
        P = 0x0000000810000000ULL;
        O = 0x0000001008000000ULL;
        len = 20 + (int)brett_rng_below(&r, 40);
        for (i = 0; i < len; i++) {          /* a random position: P to move */
            m = random_move(&r, P, O, &f);
            X = O ^ f, Y = P ^ f ^ m;
            P = X, O = Y;
            if (!m && !brett_rv_portable_moves8(P, O, ~(P | O)))
                break;
        }
        stable[0] = brett_eg_stable(P, ~(P | O), ~(uint64_t)0);
        stable[1] = brett_eg_stable(O, ~(P | O), ~(uint64_t)0);
        same += stable[0] == brett_eg_stable_from(P, ~(P | O), 0, brett_eg_stable_edges(P, O))
                && stable[1] == brett_eg_stable_from(O, ~(P | O), 0, brett_eg_stable_edges(O, P));
        if ((stable[0] | stable[1]) != (brett_eg_stable_from(P, ~(P | O), 0, 0)
                                        | brett_eg_stable_from(O, ~(P | O), 0, 0)))
            more++;
        for (start = 0; start < 4; start++) {   /* random games to the end */
            X = P, Y = O;
            for (side = 0; X | Y; side ^= 1) {
                if ((stable[side] & ~X) || (stable[side ^ 1] & ~Y)) {
                    flipped++;
                    break;
                }
                m = random_move(&r, X, Y, &f);
                if (!m && !brett_rv_portable_moves8(Y, X, ~(X | Y)))
                    break;
                X ^= f | m, Y ^= f;
                m = X, X = Y, Y = m;
            }
        }
    }
    CHECK(flipped == 0, "stability: %d games flip a disc called stable", flipped);
    CHECK(more > 0, "stability: the edge table finds no disc the neighbours miss");
    CHECK(same == 400, "stability: the 8x8 path differs in %d of 400", 400 - same);
    printf("stability: 400 positions, 1600 games, %d flip a stable disc; the edge table "
           "adds discs in %d; the 8x8 path agrees in %d\n", flipped, more, same);
}

static void check_solver(void)
{
    uint64_t x, o;
    int level, ordered;
    BrettEval ev;
    BrettSolverEval order;
    mobility_eval(&ev);
    order = brett_ev_solver_eval(&ev);
    parse_board(FFO40, &x, &o);
    for (level = BRETT_RV_PORTABLE; level <= BRETT_RV_AVX512; level++) {
        if (!brett_rv_runs(level))
            continue;
        for (ordered = 0; ordered < 2; ordered++) {
            BrettSolver *s;
            BrettInterrupt it;
            uint64_t nodes = 0;
            int score, after;
            s = brett_solver_new(20, ~(uint64_t)0, level);
            CHECK(s != NULL, "solver: out of memory");
            if (!s)
                return;
            brett_solver_set_eval(s, ordered ? &order : NULL);
            interrupt_init(&it);
            score = brett_solver_score(s, x, o, -BRETT_SOLVE_INF, BRETT_SOLVE_INF, &it, &nodes);
            CHECK(score == 38, "FFO #40 on %s: %+d, +38 expected",
                  brett_solver_level_name(level), score);
            CHECK(brett_solver_move(s, x, o) == SQ("a2"), "FFO #40 on %s: table's move %d",
                  brett_solver_level_name(level), brett_solver_move(s, x, o));
            /* a2 is a best move: the position after it scores -38 for O */
            {
                const uint64_t f = brett_rv_portable_flips8(x, o, SQ("a2")), b = BIT("a2");
                after = brett_solver_score(s, o ^ f, x ^ f ^ b, -BRETT_SOLVE_INF,
                                           BRETT_SOLVE_INF, &it, &nodes);
            }
            CHECK(after == -38, "FFO #40 after a2: %+d for O, -38 expected", after);
            printf("solver %s%s: FFO #40 %+d, a2, %llu nodes\n",
                   brett_solver_level_name(level), ordered ? " (ordered by mobility)" : "",
                   score, (unsigned long long)nodes);
            brett_solver_free(s);
        }
    }
}

static void check_alphabeta(void)
{
    BrettEval ev;
    BrettSearch s;
    BrettThought r;
    uint64_t x, o, nodes = 0;
    const unsigned table_bits = 16;
    BrettInterrupt it;
    int solved;
    mobility_eval(&ev);
    memset(&s, 0, sizeof s);
    interrupt_init(&s.it);
    s.inner = s.it.poll;
    s.it.poll = brett_ab_poll;
    s.e = &ev;
    s.tt = (BrettTT *)malloc(((size_t)1 << table_bits) * sizeof(BrettTT));
    s.tt_mask = ((uint64_t)1 << table_bits) - 1;
    s.solver = brett_solver_new(16, ~(uint64_t)0, BRETT_RV_AVX512);
    CHECK(s.tt && s.solver, "alpha-beta: out of memory");
    if (!s.tt || !s.solver)
        return;
    /* FFO #40 after a2 (the solver's line): 19 empties, O to move, -38 for O. */
    parse_board(FFO40, &x, &o);
    {
        const uint64_t f = brett_rv_portable_flips8(x, o, SQ("a2")), b = BIT("a2");
        const uint64_t nx = o ^ f, no = x ^ f ^ b;
        r = brett_ab_think(&s, nx, no, 6, 20, 0.0);
        interrupt_init(&it);
        solved = brett_solve_score(nx, no, -BRETT_SOLVE_INF, BRETT_SOLVE_INF, &it, &nodes);
    }
    CHECK(r.exact && r.complete && r.score == solved && solved == -38,
          "alpha-beta exact phase: %+d (exact %d), solver %+d, -38 expected", r.score, r.exact,
          solved);
    printf("alpha-beta: exact phase %+d after a2, as the solver\n", r.score);
    brett_solver_free(s.solver);
    free(s.tt);
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    printf("harness: %d-bit %s-endian, compiled by %s\n", (int)(8 * sizeof(void *)),
           (*(const unsigned char *)&(const uint16_t){1}) ? "little" : "big",
#if defined(__clang__)
           "clang " __clang_version__
#elif defined(__GNUC__)
           "gcc " __VERSION__
#elif defined(_MSC_VER)
           "msvc"
#else
           "an unknown compiler"
#endif
    );
#if BRETT_MSVC
    printf("MSVC intrinsic branches (<intrin.h>)\n");
#endif
    brett_rv_init();
    check_bitops();
    check_cpu();
    check_rng();
    check_handoff();
    check_crew();
    check_crew_choice();
    check_crew_moves();
    check_interrupt();
    check_kernels();
    check_tables();
    check_shared_table();
    check_eval_pieces();
    check_eval_frames();
    check_last_flips();
    check_full_lines();
    check_stability();
    check_solver();
    check_alphabeta();
    printf("harness: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
