/* The transposition table of a hashed perft: counted subtrees kept by position
 * and depth, so that a position reached again by another move order is counted
 * once.  Game-agnostic: a position is two 64-bit words (for Reversi up to 8x8,
 * the mover's and the opponent's discs), exact, so a hit is never a collision.
 *
 * Buckets of two entries (64 bytes, one cache line): the first keeps the
 * deepest subtree that fell in the bucket, the second the latest one.  Deep
 * entries save the most work and are reached least often; the latest keep the
 * shallow transpositions that come in bursts.  Neither kind can crowd out the
 * other.  Depth 0 marks an empty entry (nothing of depth 0 is stored).
 *
 * A table starts small and doubles as it fills, up to the size asked for: a
 * count that stores a few thousand subtrees touches a few pages, not a gigabyte
 * (a first touch of a page costs a fault, which a shallow count would spend
 * more time on than on counting).  A doubling splits each bucket in place:
 * an entry stays or moves to the bucket one old table's length above.
 *
 * A shared table (brett_perft_table_share) serves several threads at once: it
 * takes its whole size at once (it does not grow) and each probe and store
 * holds its bucket's lock, the `lock` word of the bucket's first entry (a spin
 * lock: a bucket is held for a few loads and stores, and two threads rarely
 * want the same one).  GCC and Clang get their __atomic builtins, MSVC its
 * Interlocked intrinsics.
 */
#ifndef BRETT_PERFT_TABLE_H
#define BRETT_PERFT_TABLE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "brett_platform.h"

typedef struct {
    uint64_t a, b;        /* the position */
    uint64_t count;       /* its perft at `depth` */
    uint32_t depth;
    int32_t lock;         /* the first entry's: its bucket's lock (shared tables) */
} BrettPerftEntry;

typedef struct {
    BrettPerftEntry *entries;   /* 2 * (mask + 1) of them, 64-byte aligned in block */
    uint64_t mask;              /* buckets - 1 (a power of two minus one) */
    uint64_t max_mask;          /* mask at the size asked for */
    uint64_t filled;            /* entries in use */
    void *block;                /* the allocation */
    int shared;                 /* several threads probe and store at once */
} BrettPerftTable;

#define BRETT_PERFT_ALIGN 64
#define BRETT_PERFT_FIRST_BUCKETS 4096   /* 256 KiB */

static inline size_t brett_perft_bytes(uint64_t mask)
{
    return (size_t)(mask + 1) * 2 * sizeof(BrettPerftEntry);
}

static inline BrettPerftEntry *brett_perft_aligned(void *block)
{
    uintptr_t at = ((uintptr_t)block + BRETT_PERFT_ALIGN - 1)
                   & ~(uintptr_t)(BRETT_PERFT_ALIGN - 1);
    return (BrettPerftEntry *)at;
}

/* A table of at most `bytes` (at least one bucket), empty; 0 when the memory is
 * not there. */
static inline int brett_perft_table_open(BrettPerftTable *t, uint64_t bytes)
{
    uint64_t buckets = 1;
    while (buckets * 2 * 2 * sizeof(BrettPerftEntry) <= bytes
           && buckets < ((uint64_t)1 << 40))
        buckets *= 2;
    t->entries = NULL;
    t->block = NULL;
    t->filled = 0;
    t->shared = 0;
    t->max_mask = buckets - 1;
    /* 32-bit: the largest table's bytes and the alignment's must fit a size_t */
    if (buckets * 2 * sizeof(BrettPerftEntry) > (uint64_t)((size_t)-1 / 2))
        return 0;
    t->mask = (buckets < BRETT_PERFT_FIRST_BUCKETS ? buckets : BRETT_PERFT_FIRST_BUCKETS) - 1;
    t->block = calloc(1, brett_perft_bytes(t->mask) + BRETT_PERFT_ALIGN);
    t->entries = t->block ? brett_perft_aligned(t->block) : NULL;
    return t->block != NULL;
}

static inline void brett_perft_table_clear(BrettPerftTable *t)
{
    memset(t->entries, 0, brett_perft_bytes(t->mask));
    t->filled = 0;
}

/* The bytes its entries take now. */
static inline size_t brett_perft_table_bytes(const BrettPerftTable *t)
{
    return brett_perft_bytes(t->mask);
}

static inline void brett_perft_table_close(BrettPerftTable *t)
{
    free(t->block);
    t->block = NULL;
    t->entries = NULL;
}

/* Counts add without wrapping: a sum past 2^64 - 1 stays at it (a caller
 * refuses that count rather than return one that wrapped). */
#define BRETT_PERFT_SATURATED UINT64_MAX

static inline uint64_t brett_perft_add(uint64_t a, uint64_t b)
{
    return a > BRETT_PERFT_SATURATED - b ? BRETT_PERFT_SATURATED : a + b;
}

#if BRETT_MSVC
static __inline int brett_perft_try_lock(BrettPerftEntry *e)
{
    return _InterlockedCompareExchange((volatile long *)&e->lock, 1, 0) == 0;
}
static __inline void brett_perft_unlock(BrettPerftEntry *e)
{
    _InterlockedExchange((volatile long *)&e->lock, 0);
}
#else
static inline int brett_perft_try_lock(BrettPerftEntry *e)
{
    int32_t free_word = 0;
    return __atomic_compare_exchange_n(&e->lock, &free_word, 1, 0, __ATOMIC_ACQUIRE,
                                       __ATOMIC_RELAXED);
}
static inline void brett_perft_unlock(BrettPerftEntry *e)
{
    __atomic_store_n(&e->lock, 0, __ATOMIC_RELEASE);
}
#endif

static inline void brett_perft_lock(const BrettPerftTable *t, BrettPerftEntry *bucket)
{
    if (t->shared)
        while (!brett_perft_try_lock(bucket)) {
        }
}

static inline void brett_perft_release(const BrettPerftTable *t, BrettPerftEntry *bucket)
{
    if (t->shared)
        brett_perft_unlock(bucket);
}

static inline BrettPerftEntry *brett_perft_bucket(const BrettPerftTable *t, uint64_t a,
                                                  uint64_t b, uint32_t depth)
{
    /* splitmix64's finaliser over the three words: every bit of each reaches the
       low bits that pick the bucket. */
    uint64_t h = a * 0x9E3779B97F4A7C15u ^ (b + depth) * 0xC2B2AE3D27D4EB4Fu;
    h ^= h >> 30;
    h *= 0xBF58476D1CE4E5B9u;
    h ^= h >> 27;
    h *= 0x94D049BB133111EBu;
    h ^= h >> 31;
    return t->entries + 2 * (h & t->mask);
}

static inline int brett_perft_probe(const BrettPerftTable *t, uint64_t a, uint64_t b,
                                    uint32_t depth, uint64_t *count)
{
    BrettPerftEntry *e = brett_perft_bucket(t, a, b, depth);
    int i, found = 0;
    brett_perft_lock(t, e);
    for (i = 0; i < 2; i++) {
        if (e[i].depth == depth && e[i].a == a && e[i].b == b) {
            *count = e[i].count;
            found = 1;
            break;
        }
    }
    brett_perft_release(t, e);
    return found;
}

/* Entry `to` takes a position, its depth and count; its lock word is left alone. */
static inline void brett_perft_put(BrettPerftEntry *to, uint64_t a, uint64_t b,
                                   uint32_t depth, uint64_t count)
{
    to->a = a;
    to->b = b;
    to->count = count;
    to->depth = depth;
}

/* Twice as many buckets: each entry stays or moves one old length up.  When the
 * memory is not there the table stays as it is (and grows no more). */
static inline void brett_perft_grow(BrettPerftTable *t)
{
    const uint64_t old_buckets = t->mask + 1;
    const size_t old_bytes = brett_perft_bytes(t->mask);
    const size_t offset = (size_t)((char *)t->entries - (char *)t->block);
    void *block = realloc(t->block, 2 * old_bytes + BRETT_PERFT_ALIGN);
    BrettPerftEntry *e, *moved;
    uint64_t i;
    if (block == NULL) {
        t->max_mask = t->mask;
        return;
    }
    e = brett_perft_aligned(block);
    if ((size_t)((char *)e - (char *)block) != offset)   /* realloc moved the start */
        memmove(e, (char *)block + offset, old_bytes);
    memset(e + 2 * old_buckets, 0, old_bytes);
    t->block = block;
    t->entries = e;
    t->mask = 2 * old_buckets - 1;
    for (i = 0; i < 2 * old_buckets; i++) {
        if (e[i].depth == 0)
            continue;
        moved = brett_perft_bucket(t, e[i].a, e[i].b, e[i].depth);
        if (moved != e + (i & ~(uint64_t)1)) {   /* one old length up, same slot */
            moved[i & 1] = e[i];
            e[i].depth = 0;
        }
    }
}

static inline void brett_perft_store(BrettPerftTable *t, uint64_t a, uint64_t b,
                                     uint32_t depth, uint64_t count)
{
    BrettPerftEntry *e = brett_perft_bucket(t, a, b, depth);
    int added = 0;
    brett_perft_lock(t, e);
    if (depth >= e[0].depth) {
        if (e[0].a != a || e[0].b != b || e[0].depth != depth) {
            added = e[1].depth == 0;
            /* the deepest so far becomes the latest */
            brett_perft_put(e + 1, e[0].a, e[0].b, e[0].depth, e[0].count);
        }
        brett_perft_put(e, a, b, depth, count);
    } else {
        added = e[1].depth == 0;
        brett_perft_put(e + 1, a, b, depth, count);
    }
    brett_perft_release(t, e);
    if (t->shared)
        return;   /* at its whole size already: nothing to count */
    t->filled += (uint64_t)added;
    if (t->filled > t->mask && t->mask < t->max_mask)   /* half the entries in use */
        brett_perft_grow(t);
}

/* The table made ready for several threads, empty and at its whole size (0 when
 * the memory is not there: the table is then as it was).  Before any thread
 * uses it. */
static inline int brett_perft_table_share(BrettPerftTable *t)
{
    void *block = calloc(1, brett_perft_bytes(t->max_mask) + BRETT_PERFT_ALIGN);
    if (block == NULL)
        return 0;
    free(t->block);
    t->block = block;
    t->entries = brett_perft_aligned(block);
    t->mask = t->max_mask;
    t->filled = 0;
    t->shared = 1;
    return 1;
}

#endif /* BRETT_PERFT_TABLE_H */
