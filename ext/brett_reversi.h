/* brett's Reversi kernels and the choice between them at run time.
 *
 * Wheels are built for each platform's baseline, so the fast kernels cannot come
 * from compiler flags.  brett_reversi_kernel.h is compiled here once as
 * "portable" (plain C with the bit helpers of brett_bitops.h: the builtins of
 * GCC and Clang, which on aarch64 are native instructions, MSVC's intrinsics,
 * or a plain C fallback) and, on x86-64, as "avx2": POPCNT, TZCNT, LZCNT, BMI2
 * and AVX2 (the x86-64-v3 level), and "avx512" (the same code for x86-64-v4),
 * through GCC's target pragma, Clang's target attribute or, for MSVC,
 * intrinsics, which it accepts without flags (brett_reversi_x86.h).
 * brett_rv_select() picks the best kernels this CPU runs (brett_cpu.h).
 */
#ifndef BRETT_REVERSI_H
#define BRETT_REVERSI_H

#include <stdint.h>
#include <string.h>

#include "brett_bitops.h"
#include "brett_cpu.h"
#include "brett_interrupt.h"
#include "brett_perft_table.h"
#include "brett_rng.h"

/* clang-cl's <immintrin.h> hides the AVX2 intrinsics unless the whole file is
   built for AVX2, so there the kernel exists only in such builds. */
#if BRETT_X86_64 && (defined(__GNUC__) || defined(__clang__) || defined(_MSC_VER)) \
    && !(defined(__clang__) && defined(_MSC_VER) && !defined(__AVX2__))
#define BRETT_RV_HAVE_AVX2 1
#include <immintrin.h>
#else
#define BRETT_RV_HAVE_AVX2 0
#endif

/* The shallowest subtree a hashed perft keeps in its table (brett_perft_table.h). */
#ifndef BRETT_RV_HASH_DEPTH
#define BRETT_RV_HASH_DEPTH 4
#endif
/* The same for boards wider than 8x8, whose moves cost more to count. */
#ifndef BRETT_RV_WIDE_HASH_DEPTH
#define BRETT_RV_WIDE_HASH_DEPTH 3
#endif

enum { BRETT_RV_BLACK = 0, BRETT_RV_WHITE = 1, BRETT_RV_EMPTY = 2, BRETT_RV_BLOCKED = 3 };

/* Boards from 10x10 to 16x16 and the octagon: a padded mailbox (its border and
   blocked cells end every line) mirrored in wide bitboards of four words, bit
   row * 16 + col.  The Cython core fills it (_reversi_c.pyx). */
typedef struct {
    int n;
    int stride;
    int dirs[8];
    uint8_t cell[18 * 18];
    int16_t mb[256];        /* square index -> mailbox index */
    int16_t bit2mb[256];    /* wide bit -> mailbox index (-1 off the board) */
    int16_t mb2bit[18 * 18];
    uint64_t bits[2][4];    /* discs by colour */
    uint64_t empty[4];      /* empty playable squares */
} BrettBig;

/* BRETT_RV_RAY[sq][d]: the squares of an 8x8 board beyond sq in direction d;
   directions 0-3 raise the bit index (E, SW, S, SE), 4-7 lower it (W, NE, N, NW). */
static uint64_t BRETT_RV_RAY[64][8];

/* BRETT_RV_LINE_FLIPS[i][line]: twice the discs a disc at position i of a full
   line of eight flips, `line` the mover's discs on it (bit j: position j, the
   other squares the opponent's, squares beyond a shorter line 0): the count of
   a board's last move, one line at a time. */
static uint8_t BRETT_RV_LINE_FLIPS[8][256];

/* BRETT_RV_EDGE_STABLE[M][Q]: the discs of M on an edge (M, Q its two sides'
   discs, bit j: square j of the line) that no sequence of plays on the edge's
   empty squares, by either side in any order, can flip; the sequences need not
   be legal, so the set is safe.  An edge disc can only flip along the edge: in
   every other direction it ends its line. */
static uint8_t BRETT_RV_EDGE_STABLE[256][256];

/* BRETT_RV_COLUMN[byte]: bit j of `byte` on row j of column a. */
static uint64_t BRETT_RV_COLUMN[256];

/* Column `col` of x as a byte, bit j from row j (BRETT_RV_COLUMN's inverse for
   column a): the eight rows add without a carry into the top byte. */
static inline unsigned brett_rv_column_byte(uint64_t x, int col)
{
    return (unsigned)((((x >> col) & 0x0101010101010101ULL) * 0x0102040810204080ULL) >> 56);
}

/* The discs of Q on a line of eight that M's disc on square x flips. */
static inline unsigned brett_rv_line_flips(unsigned M, unsigned Q, int x)
{
    unsigned flips = 0, run;
    int y;
    for (run = 0, y = x + 1; y < 8 && (Q >> y & 1); y++)
        run |= 1u << y;
    if (y < 8 && (M >> y & 1))
        flips |= run;
    for (run = 0, y = x - 1; y >= 0 && (Q >> y & 1); y--)
        run |= 1u << y;
    if (y >= 0 && (M >> y & 1))
        flips |= run;
    return flips;
}

/* Fills BRETT_RV_EDGE_STABLE from the full lines down: a disc of M is stable
   when it is M's in every position one play away, either side's. */
static inline void brett_rv_edge_stable_init(void)
{
    int filled, x;
    unsigned occ, M, Q, f, stable;
    for (filled = 8; filled >= 0; filled--)
        for (occ = 0; occ < 256; occ++) {
            if (brett_popcount64(occ) != filled)
                continue;
            M = occ;
            do {                    /* every split of occ into M and Q */
                Q = occ ^ M;
                stable = M;
                for (x = 0; x < 8 && stable; x++) {
                    if (occ >> x & 1)
                        continue;
                    f = brett_rv_line_flips(M, Q, x);
                    stable &= BRETT_RV_EDGE_STABLE[M | f | 1u << x][Q & ~f];
                    f = brett_rv_line_flips(Q, M, x);
                    stable &= BRETT_RV_EDGE_STABLE[M & ~f][Q | f | 1u << x];
                }
                BRETT_RV_EDGE_STABLE[M][Q] = (uint8_t)stable;
                M = (M - 1) & occ;
            } while (M != occ);
        }
}

static inline void brett_rv_init(void)
{
    static const int dr[8] = {0, 1, 1, 1, 0, -1, -1, -1};
    static const int dc[8] = {1, -1, 0, 1, -1, 1, 0, -1};
    int sq, d, r, c;
    for (sq = 0; sq < 64; sq++) {
        for (d = 0; d < 8; d++) {
            uint64_t ray = 0;
            for (r = sq / 8 + dr[d], c = sq % 8 + dc[d]; 0 <= r && r < 8 && 0 <= c && c < 8;
                 r += dr[d], c += dc[d])
                ray |= (uint64_t)1 << (r * 8 + c);
            BRETT_RV_RAY[sq][d] = ray;
        }
    }
    for (d = 0; d < 8; d++)
        for (sq = 0; sq < 256; sq++)
            BRETT_RV_LINE_FLIPS[d][sq] = (uint8_t)(
                2 * brett_popcount64(brett_rv_line_flips((unsigned)sq, ~(unsigned)sq & 0xFF, d)));
    for (sq = 0; sq < 256; sq++) {
        BRETT_RV_COLUMN[sq] = 0;
        for (r = 0; r < 8; r++)
            if (sq >> r & 1)
                BRETT_RV_COLUMN[sq] |= (uint64_t)1 << (8 * r);
    }
    brett_rv_edge_stable_init();
}

/* ---- the eight symmetries of a square n x n board without holes (n <= 8,
   bit row * 8 + col, the board in the low rows and columns), for the hashed
   perft: a position and its mirror images have the same count. */
static inline uint64_t brett_rv_mirror_rows(uint64_t x, int n)      /* row r -> n-1-r */
{
    return brett_bswap64(x) >> (8 * (8 - n));
}

static inline uint64_t brett_rv_mirror_cols(uint64_t x, int n)      /* col c -> n-1-c */
{
    x = ((x >> 1) & 0x5555555555555555u) | ((x & 0x5555555555555555u) << 1);
    x = ((x >> 2) & 0x3333333333333333u) | ((x & 0x3333333333333333u) << 2);
    x = ((x >> 4) & 0x0F0F0F0F0F0F0F0Fu) | ((x & 0x0F0F0F0F0F0F0F0Fu) << 4);
    return x >> (8 - n);
}

static inline uint64_t brett_rv_transpose(uint64_t x)               /* (r, c) -> (c, r) */
{
    uint64_t t;
    t = 0x0F0F0F0F00000000u & (x ^ (x << 28));
    x ^= t ^ (t >> 28);
    t = 0x3333000033330000u & (x ^ (x << 14));
    x ^= t ^ (t >> 14);
    t = 0x5500550055005500u & (x ^ (x << 7));
    x ^= t ^ (t >> 7);
    return x;
}

/* (P, O) replaced by the least of its eight images, compared P first. */
static inline void brett_rv_canonical(uint64_t *P, uint64_t *O, int n)
{
    uint64_t p[8], o[8];
    int i, best = 0;
    p[0] = *P;
    o[0] = *O;
    p[1] = brett_rv_mirror_rows(p[0], n);
    o[1] = brett_rv_mirror_rows(o[0], n);
    p[2] = brett_rv_mirror_cols(p[0], n);
    o[2] = brett_rv_mirror_cols(o[0], n);
    p[3] = brett_rv_mirror_cols(p[1], n);
    o[3] = brett_rv_mirror_cols(o[1], n);
    for (i = 0; i < 4; i++) {
        p[i + 4] = brett_rv_transpose(p[i]);
        o[i + 4] = brett_rv_transpose(o[i]);
    }
    for (i = 1; i < 8; i++)
        if (p[i] < p[best] || (p[i] == p[best] && o[i] < o[best]))
            best = i;
    *P = p[best];
    *O = o[best];
}

/* ---- the same for the wide boards (10x10 to 16x16 without holes; bit
   row * 16 + col, four words a colour), a row of 16 bits at a time. */
static inline uint16_t brett_rv_reverse16(uint16_t x)
{
    x = (uint16_t)(((x >> 1) & 0x5555u) | ((x & 0x5555u) << 1));
    x = (uint16_t)(((x >> 2) & 0x3333u) | ((x & 0x3333u) << 2));
    x = (uint16_t)(((x >> 4) & 0x0F0Fu) | ((x & 0x0F0Fu) << 4));
    return (uint16_t)((x >> 8) | (x << 8));
}

/* The n rows of a wide bitboard, and their transpose. */
static inline void brett_rv_wide_rows(const uint64_t *w, int n, uint16_t *rows,
                                      uint16_t *transposed)
{
    int r, c;
    uint16_t m;
    memset(transposed, 0, (size_t)n * sizeof(uint16_t));
    for (r = 0; r < n; r++) {
        rows[r] = m = (uint16_t)(w[r >> 2] >> (16 * (r & 3)));
        while (m) {
            c = brett_ctz64(m);
            m &= (uint16_t)(m - 1);
            transposed[c] |= (uint16_t)(1u << r);
        }
    }
}

/* Rows packed into four words, mirrored top to bottom and left to right as asked. */
static inline void brett_rv_wide_pack(const uint16_t *rows, int n, int flip_rows,
                                      int flip_cols, uint64_t *w)
{
    int r;
    uint16_t x;
    w[0] = w[1] = w[2] = w[3] = 0;
    for (r = 0; r < n; r++) {
        x = rows[flip_rows ? n - 1 - r : r];
        if (flip_cols)
            x = (uint16_t)(brett_rv_reverse16(x) >> (16 - n));
        w[r >> 2] |= (uint64_t)x << (16 * (r & 3));
    }
}

/* key = the least of the eight images of (P, O) as eight words, P's four first. */
static inline void brett_rv_wide_canonical(const uint64_t *P, const uint64_t *O, int n,
                                           uint64_t *key)
{
    uint16_t rows[2][2][16];   /* [transposed][P, O][row] */
    uint64_t image[8];
    int i, w;
    brett_rv_wide_rows(P, n, rows[0][0], rows[1][0]);
    brett_rv_wide_rows(O, n, rows[0][1], rows[1][1]);
    for (i = 0; i < 8; i++) {
        brett_rv_wide_pack(rows[i >> 2][0], n, (i >> 1) & 1, i & 1, image);
        brett_rv_wide_pack(rows[i >> 2][1], n, (i >> 1) & 1, i & 1, image + 4);
        for (w = 0; i > 0 && w < 8 && image[w] == key[w]; w++) {
        }
        if (i == 0 || (w < 8 && image[w] < key[w]))
            memcpy(key, image, sizeof image);
    }
}

/* ---- portable */
#define RK(name) brett_rv_portable_##name
#define RK_POPCOUNT(x) brett_popcount64(x)
#define RK_CTZ(x) brett_ctz64(x)
#define RK_MSB(x) brett_msb64(x)
#define RK_AVX2 0
#include "brett_reversi_kernel.h"
#undef RK
#undef RK_POPCOUNT
#undef RK_CTZ
#undef RK_MSB
#undef RK_AVX2

/* ---- avx2 (x86-64-v3) and avx512 (x86-64-v4: the same code, which the compiler
   then writes with AVX-512VL's three-input logic and masks) */
#if BRETT_RV_HAVE_AVX2
#define BRETT_RV_AVX2_FEATURES \
    (BRETT_CPU_POPCNT | BRETT_CPU_BMI1 | BRETT_CPU_BMI2 | BRETT_CPU_LZCNT | BRETT_CPU_AVX2)
#define RK(name) brett_rv_avx2_##name
#define RK_TARGET "popcnt,bmi,bmi2,lzcnt,avx,avx2"
#include "brett_reversi_x86.h"
#undef RK
#undef RK_TARGET
#endif

#if BRETT_RV_HAVE_AVX2 && (defined(__GNUC__) || defined(__clang__))
#define BRETT_RV_HAVE_AVX512 1
#define BRETT_RV_AVX512_FEATURES (BRETT_RV_AVX2_FEATURES | BRETT_CPU_AVX512)
#define RK(name) brett_rv_avx512_##name
#define RK_TARGET "popcnt,bmi,bmi2,lzcnt,avx,avx2,avx512f,avx512cd,avx512bw,avx512dq,avx512vl"
#include "brett_reversi_x86.h"
#undef RK
#undef RK_TARGET
#else
#define BRETT_RV_HAVE_AVX512 0
#endif

/* ---- the choice */
typedef uint64_t (*brett_rv_perft8_fn)(uint64_t, uint64_t, uint64_t, int, int,
                                       BrettInterrupt *);
typedef uint64_t (*brett_rv_hperft8_fn)(uint64_t, uint64_t, uint64_t, int, int, int,
                                        BrettPerftTable *, BrettInterrupt *);
typedef void (*brett_rv_playouts8_fn)(uint64_t, uint64_t, int, uint64_t, long long,
                                      uint64_t *, long long, long long *, BrettInterrupt *);
typedef uint64_t (*brett_rv_perft_wide_fn)(BrettBig *, int, int, int, BrettInterrupt *);
typedef uint64_t (*brett_rv_hperft_wide_fn)(BrettBig *, int, int, int, int,
                                            BrettPerftTable *, BrettInterrupt *);
typedef void (*brett_rv_playouts_wide_fn)(const BrettBig *, int, long long, uint64_t *,
                                          long long, long long *, BrettInterrupt *);

typedef struct {
    const char *name;
    brett_rv_perft8_fn perft8;
    brett_rv_hperft8_fn hperft8;
    brett_rv_playouts8_fn playouts8;
    brett_rv_perft_wide_fn perft_wide;
    brett_rv_hperft_wide_fn hperft_wide;
    brett_rv_playouts_wide_fn playouts_wide;
} BrettReversiKernels;

/* The kernel levels, slowest first: brett_rv_select(cap) takes the fastest this
   CPU runs up to `cap`. */
enum { BRETT_RV_PORTABLE = 0, BRETT_RV_AVX2 = 1, BRETT_RV_AVX512 = 2 };

#define BRETT_RV_TABLE(k, level)                     \
    do {                                             \
        (k).name = #level;                           \
        (k).perft8 = brett_rv_##level##_perft8;      \
        (k).hperft8 = brett_rv_##level##_hperft8;    \
        (k).playouts8 = brett_rv_##level##_playouts8; \
        (k).perft_wide = brett_rv_##level##_perft_wide; \
        (k).hperft_wide = brett_rv_##level##_hperft_wide; \
        (k).playouts_wide = brett_rv_##level##_playouts_wide; \
    } while (0)

/* Whether this build carries the kernels of `level` and this CPU runs them. */
static inline int brett_rv_runs(int level)
{
    unsigned have = brett_cpu_features();
    (void)have;
    switch (level) {
    case BRETT_RV_PORTABLE:
        return 1;
#if BRETT_RV_HAVE_AVX2
    case BRETT_RV_AVX2:
        return (have & BRETT_RV_AVX2_FEATURES) == BRETT_RV_AVX2_FEATURES;
#endif
#if BRETT_RV_HAVE_AVX512
    case BRETT_RV_AVX512:
        return (have & BRETT_RV_AVX512_FEATURES) == BRETT_RV_AVX512_FEATURES;
#endif
    default:
        return 0;
    }
}

static inline BrettReversiKernels brett_rv_select(int cap)
{
    BrettReversiKernels k;
    BRETT_RV_TABLE(k, portable);
#if BRETT_RV_HAVE_AVX2
    if (cap >= BRETT_RV_AVX2 && brett_rv_runs(BRETT_RV_AVX2))
        BRETT_RV_TABLE(k, avx2);
#endif
#if BRETT_RV_HAVE_AVX512
    if (cap >= BRETT_RV_AVX512 && brett_rv_runs(BRETT_RV_AVX512))
        BRETT_RV_TABLE(k, avx512);
#endif
    (void)cap;
    return k;
}

#endif /* BRETT_REVERSI_H */
