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
 */
#ifndef BRETT_PERFT_TABLE_H
#define BRETT_PERFT_TABLE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t a, b;        /* the position */
    uint64_t count;       /* its perft at `depth` */
    uint32_t depth;
    uint32_t spare;
} BrettPerftEntry;

typedef struct {
    BrettPerftEntry *entries;   /* 2 * (mask + 1) of them, 64-byte aligned in block */
    uint64_t mask;              /* buckets - 1 (a power of two minus one) */
    uint64_t max_mask;          /* mask at the size asked for */
    uint64_t filled;            /* entries in use */
    void *block;                /* the allocation */
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
    const BrettPerftEntry *e = brett_perft_bucket(t, a, b, depth);
    int i;
    for (i = 0; i < 2; i++) {
        if (e[i].depth == depth && e[i].a == a && e[i].b == b) {
            *count = e[i].count;
            return 1;
        }
    }
    return 0;
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
    BrettPerftEntry fresh;
    fresh.a = a;
    fresh.b = b;
    fresh.count = count;
    fresh.depth = depth;
    fresh.spare = 0;
    if (depth >= e[0].depth) {
        if (e[0].a != a || e[0].b != b || e[0].depth != depth) {
            t->filled += e[1].depth == 0;
            e[1] = e[0];            /* the deepest so far becomes the latest */
        }
        e[0] = fresh;
    } else {
        t->filled += e[1].depth == 0;
        e[1] = fresh;
    }
    if (t->filled > t->mask && t->mask < t->max_mask)   /* half the entries in use */
        brett_perft_grow(t);
}

#endif /* BRETT_PERFT_TABLE_H */
