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
    BrettPerftEntry *entries;   /* 2 * (mask + 1) of them */
    uint64_t mask;              /* buckets - 1 (a power of two minus one) */
} BrettPerftTable;

/* A table of at most `bytes` (at least one bucket), zeroed; 0 when the memory is
 * not there. */
static inline int brett_perft_table_open(BrettPerftTable *t, uint64_t bytes)
{
    uint64_t buckets = 1;
    while (buckets * 2 * 2 * sizeof(BrettPerftEntry) <= bytes
           && buckets < ((uint64_t)1 << 40))
        buckets *= 2;
    if (buckets * 2 * sizeof(BrettPerftEntry) > (uint64_t)(size_t)-1) /* 32-bit */
        return 0;
    t->entries = (BrettPerftEntry *)calloc((size_t)buckets * 2, sizeof(BrettPerftEntry));
    t->mask = buckets - 1;
    return t->entries != NULL;
}

static inline void brett_perft_table_clear(BrettPerftTable *t)
{
    memset(t->entries, 0, (size_t)(t->mask + 1) * 2 * sizeof(BrettPerftEntry));
}

static inline void brett_perft_table_close(BrettPerftTable *t)
{
    free(t->entries);
    t->entries = NULL;
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
        if (e[0].a != a || e[0].b != b || e[0].depth != depth)
            e[1] = e[0];            /* the deepest so far becomes the latest */
        e[0] = fresh;
    } else {
        e[1] = fresh;
    }
}

#endif /* BRETT_PERFT_TABLE_H */
