/* One x86-64 instantiation of the Reversi kernels, included by brett_reversi.h
 * once per instruction-set level with these defined:
 *
 *   RK(name)     the function name for this level (brett_rv_<level>_name)
 *   RK_TARGET    the GCC / Clang target string of the level ("popcnt,bmi,...")
 *
 * The functions get the level's instructions from GCC's target pragma or
 * Clang's target attribute, so the rest of the module stays a baseline build.
 * MSVC has neither and takes the intrinsics without flags: only the AVX2 level
 * is instantiated there (a wider level would compile to the same code).
 *
 * No include guard: every inclusion is one more level.
 */

/* A pragma naming RK_TARGET: the second macro expands it before the first quotes. */
#define RK_PRAGMA_TEXT(text) _Pragma(#text)
#define RK_PRAGMA(text) RK_PRAGMA_TEXT(text)
#if defined(__clang__)
RK_PRAGMA(clang attribute push(__attribute__((target(RK_TARGET))), apply_to = function))
#elif defined(__GNUC__)
#pragma GCC push_options
RK_PRAGMA(GCC target(RK_TARGET))
#endif

#if BRETT_MSVC
/* Intel's names, which MSVC and GCC's headers both have. */
#define RK_POPCOUNT(x) ((int)_mm_popcnt_u64(x))
#define RK_CTZ(x) ((int)_tzcnt_u64(x))
#define RK_MSB(x) (63 - (int)_lzcnt_u64(x))
#else
#define RK_POPCOUNT(x) __builtin_popcountll(x)
#define RK_CTZ(x) __builtin_ctzll(x)
#define RK_MSB(x) (63 - __builtin_clzll(x))
#endif
#define RK_AVX2 1
#include "brett_reversi_kernel.h"
#undef RK_POPCOUNT
#undef RK_CTZ
#undef RK_MSB
#undef RK_AVX2

#if defined(__clang__)
#pragma clang attribute pop
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif
#undef RK_PRAGMA
#undef RK_PRAGMA_TEXT
