/* The transposition table of a hashed perft: counted subtrees kept by position
 * and depth, so that a position reached again by another move order is counted
 * once.  Game-agnostic: a position is a key of a fixed number of 64-bit words,
 * chosen when the table is opened (for Reversi up to 8x8, two: the mover's and
 * the opponent's discs; for wider boards eight: the two colours' four-word
 * bitboards).  Keys are exact, so a hit is never a collision.
 *
 * Buckets of two entries (two-word keys: 64 bytes, one cache line): the first
 * keeps the deepest subtree that fell in the bucket, the second the latest one.
 * Deep entries save the most work and are reached least often; the latest keep
 * the shallow transpositions that come in bursts.  Neither kind can crowd out
 * the other.  Depth 0 marks an empty entry (nothing of depth 0 is stored).
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

/* An entry is its key's words followed by this tail.  Its memory is only ever
   read and written as these fields (and the key as uint64_t), or copied whole. */
typedef struct {
    uint64_t count;       /* the position's perft at `depth` */
    uint32_t depth;
    int32_t lock;         /* the first entry's: its bucket's lock (shared tables) */
} BrettPerftTail;

#define BRETT_PERFT_MAX_WORDS 8

typedef struct {
    uint64_t *entries;          /* 2 * (mask + 1) of them, 64-byte aligned in block */
    uint64_t mask;              /* buckets - 1 (a power of two minus one) */
    uint64_t max_mask;          /* mask at the size asked for */
    uint64_t filled;            /* entries in use */
    void *block;                /* the allocation */
    int shared;                 /* several threads probe and store at once */
    int words;                  /* a key's words, 1 to BRETT_PERFT_MAX_WORDS */
} BrettPerftTable;

#define BRETT_PERFT_ALIGN 64
#define BRETT_PERFT_FIRST_BUCKETS 4096   /* 256 KiB with two-word keys */

/* An entry's size in 64-bit words: its key, the count, depth and lock. */
static inline uint64_t brett_perft_stride(int words)
{
    return (uint64_t)words + sizeof(BrettPerftTail) / sizeof(uint64_t);
}

static inline size_t brett_perft_bytes(uint64_t mask, int words)
{
    return (size_t)((mask + 1) * 2 * brett_perft_stride(words) * sizeof(uint64_t));
}

static inline uint64_t *brett_perft_aligned(void *block)
{
    uintptr_t at = ((uintptr_t)block + BRETT_PERFT_ALIGN - 1)
                   & ~(uintptr_t)(BRETT_PERFT_ALIGN - 1);
    return (uint64_t *)at;
}

static inline BrettPerftTail *brett_perft_tail(uint64_t *entry, int words)
{
    return (BrettPerftTail *)(void *)(entry + words);
}

/* A table of at most `bytes` (at least one bucket) for keys of `words` words,
 * empty; 0 when the memory is not there (or `words` is out of range). */
static inline int brett_perft_table_open(BrettPerftTable *t, uint64_t bytes, int words)
{
    const uint64_t bucket_bytes = 2 * brett_perft_stride(words) * sizeof(uint64_t);
    uint64_t buckets = 1;
    while (buckets * 2 * bucket_bytes <= bytes && buckets < ((uint64_t)1 << 40))
        buckets *= 2;
    t->entries = NULL;
    t->block = NULL;
    t->filled = 0;
    t->shared = 0;
    t->words = words;
    t->max_mask = buckets - 1;
    if (words < 1 || words > BRETT_PERFT_MAX_WORDS)
        return 0;
    /* 32-bit: the largest table's bytes and the alignment's must fit a size_t */
    if (buckets * bucket_bytes > (uint64_t)((size_t)-1 / 2))
        return 0;
    t->mask = (buckets < BRETT_PERFT_FIRST_BUCKETS ? buckets : BRETT_PERFT_FIRST_BUCKETS) - 1;
    t->block = calloc(1, brett_perft_bytes(t->mask, words) + BRETT_PERFT_ALIGN);
    t->entries = t->block ? brett_perft_aligned(t->block) : NULL;
    return t->block != NULL;
}

static inline void brett_perft_table_clear(BrettPerftTable *t)
{
    memset(t->entries, 0, brett_perft_bytes(t->mask, t->words));
    t->filled = 0;
}

/* The bytes its entries take now. */
static inline size_t brett_perft_table_bytes(const BrettPerftTable *t)
{
    return brett_perft_bytes(t->mask, t->words);
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
static __inline int brett_perft_try_lock(int32_t *lock)
{
    return _InterlockedCompareExchange((volatile long *)lock, 1, 0) == 0;
}
static __inline void brett_perft_unlock(int32_t *lock)
{
    _InterlockedExchange((volatile long *)lock, 0);
}
#else
static inline int brett_perft_try_lock(int32_t *lock)
{
    int32_t free_word = 0;
    return __atomic_compare_exchange_n(lock, &free_word, 1, 0, __ATOMIC_ACQUIRE,
                                       __ATOMIC_RELAXED);
}
static inline void brett_perft_unlock(int32_t *lock)
{
    __atomic_store_n(lock, 0, __ATOMIC_RELEASE);
}
#endif

static inline void brett_perft_lock(const BrettPerftTable *t, uint64_t *bucket, int words)
{
    if (t->shared)
        while (!brett_perft_try_lock(&brett_perft_tail(bucket, words)->lock)) {
        }
}

static inline void brett_perft_release(const BrettPerftTable *t, uint64_t *bucket,
                                       int words)
{
    if (t->shared)
        brett_perft_unlock(&brett_perft_tail(bucket, words)->lock);
}

/* The first entry of the bucket of (key, depth).  The functions that take a
 * key's `words` are given the table's own (as a constant where they are hot,
 * so that the compiler unrolls the loops over the key). */
static inline uint64_t *brett_perft_bucket(const BrettPerftTable *t, const uint64_t *key,
                                           int words, uint32_t depth)
{
    /* splitmix64's finaliser over the words: every bit of each reaches the low
       bits that pick the bucket. */
    uint64_t h = key[0] * 0x9E3779B97F4A7C15u;
    int i;
    if (words > 1)
        h ^= (key[1] + depth) * 0xC2B2AE3D27D4EB4Fu;
    else
        h ^= depth * 0xC2B2AE3D27D4EB4Fu;
    for (i = 2; i < words; i++) {
        h = (h ^ key[i]) * 0xD6E8FEB86659FD93u;
        h ^= h >> 32;
    }
    h ^= h >> 30;
    h *= 0xBF58476D1CE4E5B9u;
    h ^= h >> 27;
    h *= 0x94D049BB133111EBu;
    h ^= h >> 31;
    return t->entries + 2 * brett_perft_stride(words) * (h & t->mask);
}

static inline int brett_perft_same(const uint64_t *entry, const uint64_t *key, int words)
{
    int i;
    for (i = 0; i < words; i++)
        if (entry[i] != key[i])
            return 0;
    return 1;
}

/* Whether the table holds (key, depth); its count in *count if so. */
static inline int brett_perft_probe(const BrettPerftTable *t, const uint64_t *key,
                                    int words, uint32_t depth, uint64_t *count)
{
    uint64_t *e = brett_perft_bucket(t, key, words, depth), *entry;
    const uint64_t stride = brett_perft_stride(words);
    BrettPerftTail *tail;
    int i, found = 0;
    brett_perft_lock(t, e, words);
    for (i = 0, entry = e; i < 2; i++, entry += stride) {
        tail = brett_perft_tail(entry, words);
        if (tail->depth == depth && brett_perft_same(entry, key, words)) {
            *count = tail->count;
            found = 1;
            break;
        }
    }
    brett_perft_release(t, e, words);
    return found;
}

/* Entry `to` takes a key, its depth and count; its lock word is left alone. */
static inline void brett_perft_put(uint64_t *to, int words, const uint64_t *key,
                                   uint32_t depth, uint64_t count)
{
    BrettPerftTail *tail = brett_perft_tail(to, words);
    memmove(to, key, (size_t)words * sizeof(uint64_t));
    tail->count = count;
    tail->depth = depth;
}

/* Twice as many buckets: each entry stays or moves one old length up.  When the
 * memory is not there the table stays as it is (and grows no more). */
static inline void brett_perft_grow(BrettPerftTable *t)
{
    const int words = t->words;
    const uint64_t stride = brett_perft_stride(words);
    const uint64_t old_buckets = t->mask + 1;
    const size_t old_bytes = brett_perft_bytes(t->mask, words);
    const size_t offset = (size_t)((char *)t->entries - (char *)t->block);
    void *block = realloc(t->block, 2 * old_bytes + BRETT_PERFT_ALIGN);
    uint64_t *e, *entry, *moved;
    BrettPerftTail *tail;
    uint64_t i;
    if (block == NULL) {
        t->max_mask = t->mask;
        return;
    }
    e = brett_perft_aligned(block);
    if ((size_t)((char *)e - (char *)block) != offset)   /* realloc moved the start */
        memmove(e, (char *)block + offset, old_bytes);
    memset((char *)e + old_bytes, 0, old_bytes);
    t->block = block;
    t->entries = e;
    t->mask = 2 * old_buckets - 1;
    for (i = 0; i < 2 * old_buckets; i++) {
        entry = e + i * stride;
        tail = brett_perft_tail(entry, words);
        if (tail->depth == 0)
            continue;
        moved = brett_perft_bucket(t, entry, words, tail->depth);
        if (moved != e + (i & ~(uint64_t)1) * stride) {   /* one old length up */
            brett_perft_put(moved + (i & 1) * stride, words, entry, tail->depth,
                            tail->count);
            tail->depth = 0;
        }
    }
}

static inline void brett_perft_store(BrettPerftTable *t, const uint64_t *key, int words,
                                     uint32_t depth, uint64_t count)
{
    uint64_t *e = brett_perft_bucket(t, key, words, depth);
    uint64_t *second = e + brett_perft_stride(words);
    BrettPerftTail *first_tail = brett_perft_tail(e, words);
    BrettPerftTail *second_tail = brett_perft_tail(second, words);
    int added = 0;
    brett_perft_lock(t, e, words);
    if (depth >= first_tail->depth) {
        if (first_tail->depth != depth || !brett_perft_same(e, key, words)) {
            added = second_tail->depth == 0;
            /* the deepest so far becomes the latest */
            brett_perft_put(second, words, e, first_tail->depth, first_tail->count);
        }
        brett_perft_put(e, words, key, depth, count);
    } else {
        added = second_tail->depth == 0;
        brett_perft_put(second, words, key, depth, count);
    }
    brett_perft_release(t, e, words);
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
    void *block = calloc(1, brett_perft_bytes(t->max_mask, t->words) + BRETT_PERFT_ALIGN);
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
