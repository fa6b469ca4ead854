/* The Ctrl-C check of long searches, shared by the Cython cores and the C kernels.
 *
 * A search calls brett_interrupted() at its inner nodes.  Only every `every`-th
 * call runs `poll` (the core's signal check, which takes the GIL): rarely enough
 * to cost nothing, often enough to stop within milliseconds.  Once `stopped` is
 * set, every later call answers 1 and the search unwinds.
 */
#ifndef BRETT_INTERRUPT_H
#define BRETT_INTERRUPT_H

#include <stdint.h>

typedef struct BrettInterrupt {
    uint32_t countdown;
    uint32_t every;
    int stopped;
    int (*poll)(struct BrettInterrupt *it);
} BrettInterrupt;

static inline int brett_interrupted(BrettInterrupt *it)
{
    if (it->countdown) {
        it->countdown--;
        return 0;
    }
    return it->poll(it);
}

#endif /* BRETT_INTERRUPT_H */
