/* Portable bit operations for brett's Cython cores.
 *
 * GCC and Clang get their builtins, MSVC its intrinsics, anything else a
 * plain C fallback.  No __int128, no inline assembly: the header must build
 * with GCC, Clang and MSVC on 32- and 64-bit targets.
 */
#ifndef BRETT_BITOPS_H
#define BRETT_BITOPS_H

#include <stdint.h>

#include "brett_platform.h"

/* Number of set bits. */
static inline int brett_popcount64(uint64_t x)
{
#if !BRETT_MSVC && (defined(__GNUC__) || defined(__clang__)) \
    && (defined(__POPCNT__) || !(defined(__x86_64__) || defined(__i386__)))
    /* One instruction where the target has it (aarch64's CNT, x86 built with
       POPCNT). */
    return __builtin_popcountll(x);
#else
    /* SWAR count: baseline x86 has no POPCNT, and GCC's builtin then calls a
       libgcc routine, slower than this; MSVC's __popcnt64 needs a POPCNT CPU and
       does not exist on 32-bit x86. */
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
#endif
}

/* Index of the lowest set bit; x must not be 0. */
static inline int brett_ctz64(uint64_t x)
{
#if BRETT_MSVC && (defined(_M_X64) || defined(_M_ARM64))
    unsigned long i;
    _BitScanForward64(&i, x);
    return (int)i;
#elif BRETT_MSVC
    unsigned long i;
    if (_BitScanForward(&i, (unsigned long)x))
        return (int)i;
    _BitScanForward(&i, (unsigned long)(x >> 32));
    return (int)i + 32;
#elif defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(x);
#else
    int n = 0;
    while (!(x & 1)) { x >>= 1; n++; }
    return n;
#endif
}

/* Index of the highest set bit; x must not be 0. */
static inline int brett_msb64(uint64_t x)
{
#if BRETT_MSVC && (defined(_M_X64) || defined(_M_ARM64))
    unsigned long i;
    _BitScanReverse64(&i, x);
    return (int)i;
#elif BRETT_MSVC
    unsigned long i;
    if (_BitScanReverse(&i, (unsigned long)(x >> 32)))
        return (int)i + 32;
    _BitScanReverse(&i, (unsigned long)x);
    return (int)i;
#elif defined(__GNUC__) || defined(__clang__)
    return 63 - __builtin_clzll(x);
#else
    int n = 0;
    while (x >>= 1) n++;
    return n;
#endif
}

/* Byte swap (mirrors a bitboard top to bottom). */
static inline uint64_t brett_bswap64(uint64_t x)
{
#if BRETT_MSVC
    return _byteswap_uint64(x);
#elif defined(__GNUC__) || defined(__clang__)
    return __builtin_bswap64(x);
#else
    x = ((x & 0x00FF00FF00FF00FFULL) << 8) | ((x >> 8) & 0x00FF00FF00FF00FFULL);
    x = ((x & 0x0000FFFF0000FFFFULL) << 16) | ((x >> 16) & 0x0000FFFF0000FFFFULL);
    return (x << 32) | (x >> 32);
#endif
}

#endif /* BRETT_BITOPS_H */
