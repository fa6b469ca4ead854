/* Which instruction-set extensions this CPU (and its operating system) offers.
 *
 * brett's wheels are built for the baseline of each platform; the cores pick
 * faster kernels at import when the machine running them has more (see
 * brett_reversi.h).  Detection uses CPUID and XGETBV on x86-64 (GCC and Clang
 * through <cpuid.h> and inline assembly, MSVC through its intrinsics); every
 * other target reports no extension and keeps the portable kernels.
 */
#ifndef BRETT_CPU_H
#define BRETT_CPU_H

#include <stdint.h>

#include "brett_platform.h"

#define BRETT_CPU_POPCNT 0x01u
#define BRETT_CPU_BMI1   0x02u
#define BRETT_CPU_BMI2   0x04u
#define BRETT_CPU_LZCNT  0x08u
#define BRETT_CPU_AVX2   0x10u   /* set only if the OS saves the YMM registers */
/* AVX-512 F, CD, BW, DQ and VL (the x86-64-v4 set), set only if the OS saves the
   opmask and ZMM registers. */
#define BRETT_CPU_AVX512 0x20u

#if BRETT_X86_64 && BRETT_MSVC
#include <immintrin.h>

static inline void brett_cpuid(unsigned leaf, unsigned sub, unsigned r[4])
{
    int x[4];
    __cpuidex(x, (int)leaf, (int)sub);
    r[0] = (unsigned)x[0]; r[1] = (unsigned)x[1];
    r[2] = (unsigned)x[2]; r[3] = (unsigned)x[3];
}

static inline uint64_t brett_xgetbv0(void)
{
    return (uint64_t)_xgetbv(0);
}
#elif BRETT_X86_64 && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>

static inline void brett_cpuid(unsigned leaf, unsigned sub, unsigned r[4])
{
    __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}

static inline uint64_t brett_xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}
#endif

/* The BRETT_CPU_* bits of this machine. */
static inline unsigned brett_cpu_features(void)
{
#if BRETT_X86_64 && (BRETT_MSVC || defined(__GNUC__) || defined(__clang__))
    unsigned r[4], max_leaf, max_ext, found = 0;
    brett_cpuid(0, 0, r);
    max_leaf = r[0];
    brett_cpuid(0x80000000u, 0, r);
    max_ext = r[0];
    if (max_leaf < 1)
        return 0;
    brett_cpuid(1, 0, r);
    if (r[2] & (1u << 23))
        found |= BRETT_CPU_POPCNT;
    /* AVX state (XMM and YMM; for AVX-512 also opmask and ZMM) enabled by the OS:
       OSXSAVE, AVX, then XCR0. */
    int osxsave = (r[2] & (1u << 27)) && (r[2] & (1u << 28));
    uint64_t xcr0 = osxsave ? brett_xgetbv0() : 0;
    int ymm = (xcr0 & 0x06) == 0x06, zmm = (xcr0 & 0xE6) == 0xE6;
    const unsigned avx512 = (1u << 16) | (1u << 17) | (1u << 28) | (1u << 30) | (1u << 31);
    if (max_leaf >= 7) {
        brett_cpuid(7, 0, r);
        if (r[1] & (1u << 3))
            found |= BRETT_CPU_BMI1;
        if (r[1] & (1u << 8))
            found |= BRETT_CPU_BMI2;
        if (ymm && (r[1] & (1u << 5)))
            found |= BRETT_CPU_AVX2;
        if (zmm && (r[1] & avx512) == avx512)
            found |= BRETT_CPU_AVX512;
    }
    if (max_ext >= 0x80000001u) {
        brett_cpuid(0x80000001u, 0, r);
        if (r[2] & (1u << 5))
            found |= BRETT_CPU_LZCNT;
    }
    return found;
#else
    return 0;
#endif
}

#endif /* BRETT_CPU_H */
