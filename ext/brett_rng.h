/* splitmix64, the one random generator of every brett core.
 *
 * The plain-Python twins (brett/_core/_rng.py) implement the same steps, so a
 * seeded playout makes the same moves on both cores.
 */
#ifndef BRETT_RNG_H
#define BRETT_RNG_H

#include <stdint.h>

static inline uint64_t brett_rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* A value in [0, n) for 0 < n < 2**32: the high 32 bits scaled by n. */
static inline uint32_t brett_rng_below(uint64_t *state, uint32_t n)
{
    return (uint32_t)(((brett_rng_next(state) >> 32) * (uint64_t)n) >> 32);
}

#endif /* BRETT_RNG_H */
