/* The compiler and target, decided once for every header of ext/.
 *
 *   BRETT_MSVC    1: the MSVC branches, <intrin.h>'s intrinsics (Interlocked
 *                 exchanges, __cpuidex, _BitScanForward64, _mm_popcnt_u64, ...)
 *                 instead of GCC's builtins.  Set for MSVC itself (clang-cl has
 *                 the builtins); ext/tests/harness.c sets it under mingw-w64,
 *                 whose headers have the same intrinsics, so that these branches
 *                 are compiled and run away from Windows too (under Wine).
 *   BRETT_X86_64  the x86-64 targets whose extensions brett can use (not
 *                 ARM64EC, which defines _M_X64 but runs ARM code).
 */
#ifndef BRETT_PLATFORM_H
#define BRETT_PLATFORM_H

#ifndef BRETT_MSVC
#if defined(_MSC_VER) && !defined(__clang__)
#define BRETT_MSVC 1
#else
#define BRETT_MSVC 0
#endif
#endif

#if (defined(__x86_64__) || defined(_M_X64)) && !defined(_M_ARM64EC)
#define BRETT_X86_64 1
#else
#define BRETT_X86_64 0
#endif

#if BRETT_MSVC
#include <intrin.h>
#endif

#endif /* BRETT_PLATFORM_H */
