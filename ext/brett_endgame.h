/* brett's exact Reversi endgame solver (8x8 bitboards, plain C: GCC, Clang and
 * MSVC, 32 and 64 bit).
 *
 * The API (P: the mover's discs, O: the opponent's, bit row * 8 + col):
 *
 *   int brett_solve_score(uint64_t P, uint64_t O, int alpha, int beta,
 *                         BrettInterrupt *it, uint64_t *nodes);
 *       The final disc difference (mover's discs minus the opponent's, empty
 *       squares to the winner) with best play, searched in the window
 *       (alpha, beta), fail-soft: a result r with alpha < r < beta is exact,
 *       r <= alpha means "at most r", r >= beta "at least r".  Scores lie in
 *       [-64, 64]; pass alpha = -BRETT_SOLVE_INF, beta = BRETT_SOLVE_INF for the
 *       exact score.  Adds the nodes searched to *nodes (may be NULL).  Polls
 *       `it` (brett_interrupt.h); once it is stopped the result is meaningless
 *       and it->stopped is set.  A transposition table is allocated for the
 *       call when there are enough empties (1.5-96 MiB, by the number of empties:
 *       brett_solver_table_bits(empties) gives its 2^bits entries, 0 for none);
 *       if that allocation fails the search runs without one.
 *
 *   BrettSolver *brett_solver_new(int tt_bits, uint64_t playable, int level);
 *   int brett_solver_score(BrettSolver *s, uint64_t P, uint64_t O, int alpha,
 *                          int beta, BrettInterrupt *it, uint64_t *nodes);
 *   int brett_solver_move(const BrettSolver *s, uint64_t P, uint64_t O);
 *   void brett_solver_set_eval(BrettSolver *s, const BrettSolverEval *eval);
 *   void brett_solver_free(BrettSolver *s);
 *       The same with a context that keeps its transposition table (2^tt_bits
 *       entries of 24 bytes, tt_bits 0..26, 0: none) from call to call: for
 *       repeated calls (several windows, the moves of a root).  `playable`
 *       holds the board's squares (all 64, or fewer for holes: squares outside
 *       it are neither P, O nor empty, end every line and count for nobody).
 *       `level` caps the kernels (BRETT_RV_PORTABLE, BRETT_RV_AVX2,
 *       BRETT_RV_AVX512 of brett_reversi.h): the fastest this CPU runs up to it
 *       is used.  NULL if out of memory.  A solver is used by one thread at a
 *       time; several solvers run in parallel.  brett_solver_move: the best (or
 *       refuting) square the table holds for (P, O) after a search of it, 64 if
 *       none: the move to try first when one best move is wanted.
 *       brett_solver_set_eval: an evaluation that orders the moves from 16
 *       empties (brett_eval.h's patterns, about half the nodes), NULL for none
 *       (mobility and corners); it must outlive the solver's searches.
 *
 * Before the first call, the module must have called brett_rv_init() once (as
 * every user of brett_reversi.h does: it fills the ray tables).
 *
 * The search: negamax alpha-beta, fail-soft.  With many empties: a transposition
 * table (two-way buckets, keyed by both bitboards), principal variation search,
 * enhanced transposition cutoffs, a stability cutoff (from 3 empties; on a
 * board without holes the edges' stable discs come from a table), a
 * selective search first that leaves its best moves in the table (from 18
 * empties, with an evaluation; see BRETT_EG_PC_MARGINS; and again below, where
 * the table has no move, see BRETT_EG_IID_MIN), and fastest-first move
 * ordering (the opponent's weighted mobility; from 16 empties plus a shallow
 * search's value by the evaluation, see BRETT_EG_EVAL_UNIT, which stops
 * BRETT_EG_SORT_DELTA discs below alpha) after a wipeout (a
 * move taking every disc of the opponent) and the table's move; when only
 * keeping a disc matters (the window's top at -squares + 2), moves that give
 * the mover a stable disc come first.  Nearer
 * the end: the same ordering without the table, then parity ordering (moves in
 * regions with an odd number of empties first) without move generation, the
 * last two empties by their own code, and a last move that only counts flips
 * (on a board without holes, line by line from a table).
 *
 * The search body is written once (the BRETT_EG_BODY part at the end of this
 * file) and compiled per kernel level, as brett_reversi.h does for the kernels:
 * the AVX2 and AVX-512 levels get their instructions from GCC's target pragma
 * or Clang's target attribute, so the module stays a baseline build.
 */
#if !defined(BRETT_EG_BODY)
#ifndef BRETT_ENDGAME_H
#define BRETT_ENDGAME_H

#include <stdint.h>
#include <stdlib.h>

#include "brett_bitops.h"
#include "brett_interrupt.h"
#include "brett_reversi.h"

#define BRETT_SOLVE_INF 65          /* beyond every score */
#define BRETT_SOLVE_MAX_TT_BITS 26

/* Where the search changes its technique (numbers of empties). */
#ifndef BRETT_EG_SMALL_MAX
#define BRETT_EG_SMALL_MAX 5        /* up to here: parity order, no move generation */
#endif
#if BRETT_EG_SMALL_MAX < 3
#error "BRETT_EG_SMALL_MAX below 3: EG(small) hands 2 empties to EG(last2)"
#endif
#ifndef BRETT_EG_DEEP_MIN
#define BRETT_EG_DEEP_MIN 10        /* from here: transposition table, PVS, ETC */
#endif
#ifndef BRETT_EG_ETC_MIN
#define BRETT_EG_ETC_MIN 14         /* enhanced transposition cutoffs */
#endif
#ifndef BRETT_EG_SHALLOW_MIN
#define BRETT_EG_SHALLOW_MIN 16     /* moves ordered by a shallow search */
#endif
#ifndef BRETT_EG_SHALLOW_DEPTH
#define BRETT_EG_SHALLOW_DEPTH(n) ((n) >= 21 ? 3 : (n) >= 18 ? 2 : 1)
#endif
/* The shallow search of a move whose evaluation falls this many discs below
   alpha stops there: such a move comes late whatever its exact value. */
#ifndef BRETT_EG_SORT_DELTA
#define BRETT_EG_SORT_DELTA 8
#endif

/* One position of the transposition table: bounds of its exact score. */
typedef struct {
    uint64_t P, O;
    int8_t lower, upper;
    uint8_t move;                   /* best or refuting square, 64: none */
    uint8_t empties;                /* replacement priority */
    uint8_t selective;              /* the margin of the selective search it
                                       comes from (0: exact): such a move orders,
                                       its bounds hold only for as wide margins */
} BrettSolveEntry;

/* What an evaluation keeps of a position to evaluate its children one move
   at a time (brett_eval.h: its pattern indices as either side sees them). */
typedef struct {
    uint16_t index[64];             /* as the children's mover sees them */
    uint16_t own[64];               /* as the position's mover sees them */
} BrettSolverFrame;

/* An evaluation for ordering moves (brett_eval.h's pattern sum): `eval(ctx, P, O)`
   is P's prospects in 1/scale discs.  Optionally (all three NULL: eval alone)
   `frame` fills f from (P, O); then for the child (P2, O2) after P's disc on sq
   flips `flips`, `child(ctx, f, sq, flips, empties, mobility,
   opponent_mobility)` is eval(ctx, P2, O2), given the child's empty squares
   and both sides' mobility in it (P2's first), and `advance(ctx, f, sq, flips,
   next)` fills next as frame would from (P2, O2): each at a fraction of the
   cost.  Read only, so solvers may share one. */
typedef struct {
    int (*eval)(const void *ctx, uint64_t P, uint64_t O);
    void (*frame)(const void *ctx, uint64_t P, uint64_t O, BrettSolverFrame *f);
    int (*child)(const void *ctx, const BrettSolverFrame *f, int sq, uint64_t flips,
                 int empties, int mobility, int opponent_mobility);
    void (*advance)(const void *ctx, const BrettSolverFrame *f, int sq, uint64_t flips,
                    BrettSolverFrame *next);
    const void *ctx;
    int scale;
} BrettSolverEval;

struct BrettSolver;
typedef int (*brett_eg_root_fn)(struct BrettSolver *s, uint64_t P, uint64_t O, int alpha,
                                int beta);

typedef struct BrettSolver {
    BrettSolveEntry *tt;            /* NULL: no table */
    uint64_t tt_mask;               /* entries - 1 */
    uint64_t playable;
    int squares;                    /* popcount(playable) */
    int stopped;
    uint64_t nodes;
    BrettInterrupt *it;
    brett_eg_root_fn root;
    const BrettSolverEval *eval;    /* NULL: mobility and corners order */
    int selective;                  /* 0: exact; else a selective search's margin
                                       (discs) for cutting a subtree early */
} BrettSolver;

/* The four quadrants, for parity: quadrant of sq = (col >= 4) + 2 * (row >= 4). */
#define BRETT_EG_QUADBIT(sq) (1 << ((((sq) >> 2) & 1) | (((sq) >> 4) & 2)))
#define BRETT_EG_CORNERS 0x8100000000000081ULL

static inline uint64_t brett_eg_parity_mask(int parity)
{
    return ((parity & 1) ? 0x000000000F0F0F0FULL : 0)
           | ((parity & 2) ? 0x00000000F0F0F0F0ULL : 0)
           | ((parity & 4) ? 0x0F0F0F0F00000000ULL : 0)
           | ((parity & 8) ? 0xF0F0F0F000000000ULL : 0);
}

/* The squares next to a disc of X (the opponent's potential moves). */
static inline uint64_t brett_eg_neighbours(uint64_t X)
{
    const uint64_t notA = 0xFEFEFEFEFEFEFEFEULL, notH = 0x7F7F7F7F7F7F7F7FULL;
    const uint64_t h = ((X << 1) & notA) | ((X >> 1) & notH);
    const uint64_t row = X | h;
    return h | (row << 8) | (row >> 8);
}

/* From 16 empties a move's ordering key adds the shallow search's value of the
   child (the opponent's prospects) to its fastest-first key (the opponent's
   mobility) when the solver has an evaluation (brett_eval.h's patterns: a disc
   counts BRETT_EG_EVAL_UNIT, two moves of the opponent's mobility one disc); it
   halves the nodes of FFO #40-#47 against mobility and corners alone.  Without
   one, the value is mobility and corners, and counts alone unless the mover is
   far ahead (some child scores -BRETT_EG_LOPSIDED or less for the opponent:
   eight moves of mobility): in balanced positions it orders better alone
   (#45-#51).  Far ahead (for the patterns, BRETT_EG_EVAL_LOPSIDED discs) the
   key alone orders: the mover hunts a wipeout, which fastest first finds (#59,
   +64, in some twenty thousand nodes) and the value misleads (its lines keep
   the opponent's discs: over a billion nodes). */
#ifndef BRETT_EG_LOPSIDED
#define BRETT_EG_LOPSIDED 32
#endif
#define BRETT_EG_WIPEOUT_KEY (-2000000)  /* a move taking every disc of O: before
                                            the table's move (-1000000) */

#ifndef BRETT_EG_EVAL_UNIT
#define BRETT_EG_EVAL_UNIT 32
#endif
#ifndef BRETT_EG_EVAL_LOPSIDED
#define BRETT_EG_EVAL_LOPSIDED 32
#endif
#define BRETT_EG_FINISHED 4096      /* a finished game's win, beyond every guess */

/* A selective search before the exact one, as Edax does with its probability
   cuts: from BRETT_EG_PRESEARCH_MIN empties, when the solver has an evaluation,
   the search runs first with cuts (from BRETT_EG_PC_MIN empties) that trust a
   shallow search of BRETT_EG_PC_DEPTH plies over the evaluation when it clears
   the window by the margin (discs).  Its best moves stay in the table and order
   the exact search; its bounds hold in no exact search.  FFO #40-#52: 19% fewer
   nodes (3.58 G against 4.43 G).  Depth 3 against 2 (with the stability cutoff
   from 3 empties): #40-#49 0.89 G nodes against 0.95 G, #49-#52 in 6% less
   time; depth 4 and cuts from 14 empties cost more, margins 6 and 10 too. */
#ifndef BRETT_EG_PC_MIN
#define BRETT_EG_PC_MIN 12
#endif
#ifndef BRETT_EG_PC_DEPTH
#define BRETT_EG_PC_DEPTH 3
#endif
#ifndef BRETT_EG_PC_MARGINS
#define BRETT_EG_PC_MARGINS 8       /* one pass; a list (say 4, 10) runs several */
#endif
#ifndef BRETT_EG_PRESEARCH_MIN
#define BRETT_EG_PRESEARCH_MIN 18
#endif

/* The stability cutoff runs from here (empties): FFO #40-#49 in 1.00 G nodes
   against 1.33 G without it below 6, in the same time (from 2: 0.86 G, 3% more
   time; from 4: 1.06 G). */
#ifndef BRETT_EG_SMALL_STABLE_MIN
#define BRETT_EG_SMALL_STABLE_MIN 3
#endif

/* An exact search meeting a position of BRETT_EG_IID_MIN empties or more without
   a move in the table searches it selectively first (by BRETT_EG_IID_MARGIN
   discs) for one: FFO #40-#49 0.95 G nodes against 1.00 G, #50-#52 2% fewer. */
#ifndef BRETT_EG_IID_MIN
#define BRETT_EG_IID_MIN 20
#endif
#ifndef BRETT_EG_IID_MARGIN
#define BRETT_EG_IID_MARGIN 8
#endif

#ifndef BRETT_EG_POT_W
#define BRETT_EG_POT_W 2
#endif

static inline uint64_t brett_eg_hash(uint64_t P, uint64_t O)
{
    uint64_t h = P * 0x9E3779B97F4A7C15ULL ^ (O + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL;
    return h ^ (h >> 31);
}

/* The entry of (P, O) in its bucket, or NULL. */
static inline BrettSolveEntry *brett_eg_probe(const BrettSolver *s, uint64_t P, uint64_t O)
{
    BrettSolveEntry *e;
    if (!s->tt)
        return 0;
    e = s->tt + (brett_eg_hash(P, O) & s->tt_mask & ~(uint64_t)1);
    if (e[0].P == P && e[0].O == O)
        return e;
    if (e[1].P == P && e[1].O == O)
        return e + 1;
    return 0;
}

/* Whether an entry's bounds hold in the search under way: those of a search
   as exact or more, by a margin as wide or wider (an exact search takes only
   exact ones). */
static inline int brett_eg_bounds_hold(const BrettSolver *s, const BrettSolveEntry *e)
{
    return !e->selective || (s->selective && e->selective >= s->selective);
}

/* Record lower <= score <= upper for (P, O): merged into its entry, or in the
   bucket's slot of fewer empties.  A selective result leaves an exact entry
   alone; an exact one replaces a selective entry's bounds. */
static inline void brett_eg_store(BrettSolver *s, uint64_t P, uint64_t O, int empties,
                                  int lower, int upper, int move)
{
    BrettSolveEntry *e;
    if (!s->tt)
        return;
    e = s->tt + (brett_eg_hash(P, O) & s->tt_mask & ~(uint64_t)1);
    if (e[0].P == P && e[0].O == O) {
    } else if (e[1].P == P && e[1].O == O) {
        e++;
    } else {
        if (e[1].empties < e[0].empties)
            e++;
        e->P = P;
        e->O = O;
        e->lower = -BRETT_SOLVE_INF;
        e->upper = BRETT_SOLVE_INF;
        e->move = 64;
        e->selective = (uint8_t)s->selective;
    }
    if (!brett_eg_bounds_hold(s, e)) {
        /* a more exact search's bounds replace those of a narrower margin */
        e->lower = -BRETT_SOLVE_INF;
        e->upper = BRETT_SOLVE_INF;
        e->selective = (uint8_t)s->selective;
    } else if (s->selective != e->selective) {
        return;     /* a more exact entry keeps its bounds */
    }
    if (lower > e->lower)
        e->lower = (int8_t)lower;
    if (upper < e->upper)
        e->upper = (int8_t)upper;
    if (move < 64)
        e->move = (uint8_t)move;
    e->empties = (uint8_t)empties;
}

/* The squares of x's lines in one direction (a shift by `step` bits, `up` the
   squares a left shift may reach without wrapping, `down` a right shift): a
   flood of x both ways along them. */
static inline uint64_t brett_eg_lines(uint64_t x, int step, uint64_t up, uint64_t down)
{
    uint64_t u = x, d = x;
    u |= (u << step) & up;
    up &= up << step;
    u |= (u << 2 * step) & up;
    up &= up << 2 * step;
    u |= (u << 4 * step) & up;
    d |= (d >> step) & down;
    down &= down >> step;
    d |= (d >> 2 * step) & down;
    down &= down >> 2 * step;
    d |= (d >> 4 * step) & down;
    return u | d;
}

/* Discs of O that can never flip: `seed` (discs known stable), and those
   whose line in each of the four directions is full (no empty square), or has
   a neighbour that is a wall (the edge, a hole) or a disc of O already known
   stable.  `walls` = ~playable. */
static inline uint64_t brett_eg_stable_from(uint64_t O, uint64_t empty, uint64_t walls,
                                            uint64_t seed)
{
    const uint64_t FA = 0x0101010101010101ULL, FH = 0x8080808080808080ULL;
    const uint64_t R1 = 0x00000000000000FFULL, R8 = 0xFF00000000000000ULL;
    /* Full lines (no empty square; holes count as filled): rows, columns, both
       diagonals. */
    const uint64_t fh = ~brett_eg_lines(empty, 1, ~FA, ~FH);
    const uint64_t fv = ~brett_eg_lines(empty, 8, ~(uint64_t)0, ~(uint64_t)0);
    const uint64_t fd = ~brett_eg_lines(empty, 9, ~FA, ~FH);
    const uint64_t fa = ~brett_eg_lines(empty, 7, ~FH, ~FA);
    uint64_t s = seed, prev, t, wh, wv, wd, wa;
    do {
        prev = s;
        t = s | walls;
        wh = fh | FA | FH | ((t << 1) & ~FA) | ((t >> 1) & ~FH);
        wv = fv | R1 | R8 | (t << 8) | (t >> 8);
        wd = fd | FA | FH | R1 | R8 | ((t << 9) & ~FA) | ((t >> 9) & ~FH);
        wa = fa | FA | FH | R1 | R8 | ((t << 7) & ~FH) | ((t >> 7) & ~FA);
        s = seed | (O & wh & wv & wd & wa);
    } while (s != prev);
    return s;
}

/* The stable discs of O on the four edges of an 8x8 board without holes (P the
   other side's discs): BRETT_RV_EDGE_STABLE for each edge. */
static inline uint64_t brett_eg_stable_edges(uint64_t O, uint64_t P)
{
    return (uint64_t)BRETT_RV_EDGE_STABLE[O & 0xFF][P & 0xFF]
           | (uint64_t)BRETT_RV_EDGE_STABLE[O >> 56][P >> 56] << 56
           | BRETT_RV_COLUMN[BRETT_RV_EDGE_STABLE[brett_rv_column_byte(O, 0)]
                                                 [brett_rv_column_byte(P, 0)]]
           | BRETT_RV_COLUMN[BRETT_RV_EDGE_STABLE[brett_rv_column_byte(O, 7)]
                                                 [brett_rv_column_byte(P, 7)]] << 7;
}

/* The squares of `occupied` whose line through them in one direction (a
   shift by `step`) is full: the run from each square towards lower bits ends
   occupied at the edge (`low[k]`: the squares at most 2^k - 1 steps from it),
   and so does the run towards higher bits (`high[k]`). */
static inline uint64_t brett_eg_full8(uint64_t occupied, int step, const uint64_t low[3],
                                      const uint64_t high[3])
{
    uint64_t down = occupied & (low[0] | occupied << step);
    uint64_t up = occupied & (high[0] | occupied >> step);
    down &= low[1] | down << 2 * step;
    up &= high[1] | up >> 2 * step;
    down &= low[2] | down << 4 * step;
    up &= high[2] | up >> 4 * step;
    return down & up;
}

/* brett_eg_full8's ends of the diagonals along +9 and +7 on an 8x8 board. */
static const uint64_t BRETT_EG_LOW9[3] = {0x01010101010101FFULL, 0x030303030303FFFFULL,
                                          0x0F0F0F0FFFFFFFFFULL};
static const uint64_t BRETT_EG_HIGH9[3] = {0xFF80808080808080ULL, 0xFFFFC0C0C0C0C0C0ULL,
                                           0xFFFFFFFFF0F0F0F0ULL};
static const uint64_t BRETT_EG_LOW7[3] = {0x80808080808080FFULL, 0xC0C0C0C0C0C0FFFFULL,
                                          0xF0F0F0F0FFFFFFFFULL};
static const uint64_t BRETT_EG_HIGH7[3] = {0xFF01010101010101ULL, 0xFFFF030303030303ULL,
                                           0xFFFFFFFF0F0F0F0FULL};

/* brett_eg_stable_from on an 8x8 board without holes, seeded by the edges'
   table: the edges are settled, so only the inner squares' neighbours are
   looked at, none of them across an edge. */
static inline uint64_t brett_eg_stable8(uint64_t O, uint64_t empty)
{
    const uint64_t occupied = ~empty, inner = O & 0x007E7E7E7E7E7E00ULL;
    uint64_t row = occupied, column = occupied, s, prev;
    uint64_t d9 = brett_eg_full8(occupied, 9, BRETT_EG_LOW9, BRETT_EG_HIGH9);
    uint64_t d7 = brett_eg_full8(occupied, 7, BRETT_EG_LOW7, BRETT_EG_HIGH7);
    row &= row >> 1;
    row &= row >> 2;
    row &= row >> 4;
    row = (row & 0x0101010101010101ULL) * 0xFF;
    column &= column >> 8 | column << 56;
    column &= column >> 16 | column << 48;
    column &= column >> 32 | column << 32;
    s = brett_eg_stable_edges(O, occupied & ~O) | (inner & row & column & d9 & d7);
    do {
        prev = s;
        s |= inner & (row | s << 1 | s >> 1) & (column | s << 8 | s >> 8)
             & (d9 | s << 9 | s >> 9) & (d7 | s << 7 | s >> 7);
    } while (s != prev);
    return s;
}

/* The stable discs of O; on 8x8 boards without holes the edges' come from a
   table, which also finds those no neighbour shows. */
static inline uint64_t brett_eg_stable(uint64_t O, uint64_t empty, uint64_t playable)
{
    if (playable == ~(uint64_t)0)
        return brett_eg_stable8(O, empty);
    return brett_eg_stable_from(O, empty, ~playable, 0);
}

/* Twice the discs P's disc on sq flips when sq is the only empty square of a
   board without holes: along each line, the opponent's discs up to P's
   nearest.  A line is read as a byte: a row by a shift, a column or a diagonal
   (one square per column, the rays of brett_reversi.h) by one multiplication. */
static inline int brett_eg_last_flips(uint64_t P, int sq)
{
    const uint64_t COLS = 0x0101010101010101ULL;
    const uint64_t *ray = BRETT_RV_RAY[sq];
    const int row = sq >> 3, col = sq & 7;
    return BRETT_RV_LINE_FLIPS[col][(P >> (sq & 56)) & 0xFF]
           + BRETT_RV_LINE_FLIPS[row][brett_rv_column_byte(P, col)]
           + BRETT_RV_LINE_FLIPS[col][((P & (ray[3] | ray[7])) * COLS) >> 56]
           + BRETT_RV_LINE_FLIPS[col][((P & (ray[1] | ray[5])) * COLS) >> 56];
}

/* ---- the search, once per kernel level */
#define BRETT_EG_BODY 1

#define EG(name) brett_eg_portable_##name
#define EG_MOVES(P, O, E) brett_rv_portable_moves8(P, O, E)
#define EG_FLIPS(P, O, sq) brett_rv_portable_flips8(P, O, sq)
#define EG_POPCOUNT(x) brett_popcount64(x)
#define EG_CTZ(x) brett_ctz64(x)
#include "brett_endgame.h"
#undef EG
#undef EG_MOVES
#undef EG_FLIPS
#undef EG_POPCOUNT
#undef EG_CTZ

#if BRETT_RV_HAVE_AVX2 || BRETT_RV_HAVE_AVX512
#if BRETT_MSVC
#define EG_POPCOUNT(x) ((int)_mm_popcnt_u64(x))
#define EG_CTZ(x) ((int)_tzcnt_u64(x))
#else
#define EG_POPCOUNT(x) __builtin_popcountll(x)
#define EG_CTZ(x) __builtin_ctzll(x)
#endif
#define BRETT_EG_PRAGMA_TEXT(text) _Pragma(#text)
#define BRETT_EG_PRAGMA(text) BRETT_EG_PRAGMA_TEXT(text)
#endif

#if BRETT_RV_HAVE_AVX2
#if defined(__clang__)
BRETT_EG_PRAGMA(clang attribute push(__attribute__((target("popcnt,bmi,bmi2,lzcnt,avx,avx2"))), apply_to = function))
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("popcnt,bmi,bmi2,lzcnt,avx,avx2")
#endif
#define EG(name) brett_eg_avx2_##name
#define EG_MOVES(P, O, E) brett_rv_avx2_moves8(P, O, E)
#define EG_FLIPS(P, O, sq) brett_rv_avx2_flips8(P, O, sq)
#include "brett_endgame.h"
#undef EG
#undef EG_MOVES
#undef EG_FLIPS
#if defined(__clang__)
#pragma clang attribute pop
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif
#endif

#if BRETT_RV_HAVE_AVX512
#if defined(__clang__)
BRETT_EG_PRAGMA(clang attribute push(__attribute__((target("popcnt,bmi,bmi2,lzcnt,avx,avx2,avx512f,avx512cd,avx512bw,avx512dq,avx512vl"))), apply_to = function))
#else
#pragma GCC push_options
#pragma GCC target("popcnt,bmi,bmi2,lzcnt,avx,avx2,avx512f,avx512cd,avx512bw,avx512dq,avx512vl")
#endif
#define EG(name) brett_eg_avx512_##name
#define EG_MOVES(P, O, E) brett_rv_avx512_moves8(P, O, E)
#define EG_FLIPS(P, O, sq) brett_rv_avx512_flips8(P, O, sq)
#include "brett_endgame.h"
#undef EG
#undef EG_MOVES
#undef EG_FLIPS
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif

#if BRETT_RV_HAVE_AVX2 || BRETT_RV_HAVE_AVX512
#undef EG_POPCOUNT
#undef EG_CTZ
#undef BRETT_EG_PRAGMA
#undef BRETT_EG_PRAGMA_TEXT
#endif
#undef BRETT_EG_BODY

/* ---- the public functions */

/* The name of the kernel level a solver of `level` runs on this CPU. */
static inline const char *brett_solver_level_name(int level)
{
    return brett_rv_select(level).name;
}

static inline BrettSolver *brett_solver_new(int tt_bits, uint64_t playable, int level)
{
    BrettSolver *s = (BrettSolver *)calloc(1, sizeof(BrettSolver));
    uint64_t n;
    if (!s)
        return 0;
    if (tt_bits < 0)
        tt_bits = 0;
    if (tt_bits > BRETT_SOLVE_MAX_TT_BITS)
        tt_bits = BRETT_SOLVE_MAX_TT_BITS;
    if (tt_bits > 0) {
        n = (uint64_t)1 << tt_bits;
        if (n < 2)
            n = 2;
        /* Zeroed entries are empty: a position with no disc is never searched.
           calloc leaves a large table's pages untouched until a probe meets
           them, so a short solve does not pay for writing all of it. */
        if ((size_t)n == n)
            s->tt = (BrettSolveEntry *)calloc((size_t)n, sizeof(BrettSolveEntry));
        if (!s->tt) {
            free(s);
            return 0;
        }
        s->tt_mask = n - 1;
    }
    s->playable = playable;
    s->squares = brett_popcount64(playable);
    s->root = brett_eg_portable_root;
#if BRETT_RV_HAVE_AVX2
    if (level >= BRETT_RV_AVX2 && brett_rv_runs(BRETT_RV_AVX2))
        s->root = brett_eg_avx2_root;
#endif
#if BRETT_RV_HAVE_AVX512
    if (level >= BRETT_RV_AVX512 && brett_rv_runs(BRETT_RV_AVX512))
        s->root = brett_eg_avx512_root;
#endif
    (void)level;
    return s;
}

static inline void brett_solver_free(BrettSolver *s)
{
    if (s) {
        free(s->tt);
        free(s);
    }
}

static inline int brett_solver_score(BrettSolver *s, uint64_t P, uint64_t O, int alpha,
                                     int beta, BrettInterrupt *it, uint64_t *nodes)
{
    int score;
    s->it = it;
    s->stopped = 0;
    s->nodes = 0;
    P &= s->playable;
    O &= s->playable & ~P;
    if (alpha < -BRETT_SOLVE_INF)
        alpha = -BRETT_SOLVE_INF;
    if (beta > BRETT_SOLVE_INF)
        beta = BRETT_SOLVE_INF;
    if (s->eval && s->tt && s->squares - brett_popcount64(P | O) >= BRETT_EG_PRESEARCH_MIN) {
        /* Selective passes first: their best moves order the exact search. */
        static const int margins[] = {BRETT_EG_PC_MARGINS};
        int k;
        for (k = 0; k < (int)(sizeof margins / sizeof margins[0]) && !s->stopped; k++) {
            s->selective = margins[k];
            (void)s->root(s, P, O, alpha, beta);
        }
        s->selective = 0;
    }
    score = s->stopped ? alpha : s->root(s, P, O, alpha, beta);
    if (nodes)
        *nodes += s->nodes;
    return score;
}

static inline void brett_solver_set_eval(BrettSolver *s, const BrettSolverEval *eval)
{
    s->eval = eval;
}

static inline int brett_solver_move(const BrettSolver *s, uint64_t P, uint64_t O)
{
    const BrettSolveEntry *e = brett_eg_probe(s, P & s->playable, O & s->playable & ~P);
    return e ? e->move : 64;
}

static inline int brett_solver_table_bits(int empties)
{
    /* None below the table's depth; 2^22 entries (96 MiB) from 26 empties,
       where FFO #50 needs 4.5% fewer nodes than with 2^21. */
    return empties < BRETT_EG_DEEP_MIN ? 0 : empties < 16 ? 16 : empties < 20 ? 18
           : empties < 26 ? 21 : 22;
}

static inline int brett_solve_score(uint64_t P, uint64_t O, int alpha, int beta,
                                    BrettInterrupt *it, uint64_t *nodes)
{
    const int empties = 64 - brett_popcount64(P | O);
    BrettSolver *s = brett_solver_new(brett_solver_table_bits(empties), ~(uint64_t)0,
                                      BRETT_RV_AVX512);
    int score;
    if (!s)
        s = brett_solver_new(0, ~(uint64_t)0, BRETT_RV_AVX512);
    if (!s) {
        /* Not even the context: a stop, which the caller reports. */
        it->stopped = 1;
        return 0;
    }
    score = brett_solver_score(s, P, O, alpha, beta, it, nodes);
    if (s->stopped)
        it->stopped = 1;
    brett_solver_free(s);
    return score;
}

#endif /* BRETT_ENDGAME_H */

#else /* BRETT_EG_BODY: the search of one kernel level, named EG(...) */

/* The final score of a finished game, P to move, n empty squares. */
static inline int EG(final)(const BrettSolver *s, uint64_t P, int n)
{
    const int d = 2 * EG_POPCOUNT(P) - (s->squares - n);
    return d > 0 ? d + n : d < 0 ? d - n : 0;
}

/* Twice the discs P's disc on the only empty square `sq` flips. */
static inline int EG(last_flips)(const BrettSolver *s, uint64_t P, uint64_t O, int sq)
{
    return s->squares == 64 ? brett_eg_last_flips(P, sq) : 2 * EG_POPCOUNT(EG_FLIPS(P, O, sq));
}

/* One empty square `sq`: P plays it, or else O, or the game ends. */
static inline int EG(last1)(BrettSolver *s, uint64_t P, uint64_t O, int sq)
{
    const int d = 2 * EG_POPCOUNT(P) - (s->squares - 1);
    int k;
    s->nodes++;
    k = EG(last_flips)(s, P, O, sq);
    if (k)
        return d + k + 1;
    k = EG(last_flips)(s, O, P, sq);
    if (k)
        return d - k - 1;
    return d > 0 ? d + 1 : d < 0 ? d - 1 : 0;
}

/* P's best score over its moves on the two empty squares a and b, fail-soft
   against beta; -BRETT_SOLVE_INF if it has none. */
static inline int EG(last2_moves)(BrettSolver *s, uint64_t P, uint64_t O, int a, int b,
                                  int beta)
{
    int best = -BRETT_SOLVE_INF, v;
    uint64_t f = EG_FLIPS(P, O, a);
    if (f) {
        best = -EG(last1)(s, O ^ f, P ^ f ^ ((uint64_t)1 << a), b);
        if (best >= beta)
            return best;
    }
    f = EG_FLIPS(P, O, b);
    if (f) {
        v = -EG(last1)(s, O ^ f, P ^ f ^ ((uint64_t)1 << b), a);
        if (v > best)
            best = v;
    }
    return best;
}

/* Two empty squares a and b: P's moves, else O's, else the game's end. */
static inline int EG(last2)(BrettSolver *s, uint64_t P, uint64_t O, int a, int b,
                            int alpha, int beta)
{
    int v;
    s->nodes++;
    v = EG(last2_moves)(s, P, O, a, b, beta);
    if (v != -BRETT_SOLVE_INF)
        return v;
    s->nodes++;                         /* P passes: O's moves */
    v = EG(last2_moves)(s, O, P, a, b, -alpha);
    return v != -BRETT_SOLVE_INF ? -v : EG(final)(s, P, 2);
}

/* The stability cutoff: O's stable discs bound P's score from above.  Returns
   that bound when it is at most alpha (the node fails low), else lowers *beta
   to it and returns BRETT_SOLVE_INF.  Computed only when it may reach alpha. */
static inline int EG(stability_cut)(const BrettSolver *s, uint64_t O, uint64_t empty,
                                    int alpha, int *beta)
{
    int bound;
    if (alpha < s->squares - 2 * EG_POPCOUNT(O))
        return BRETT_SOLVE_INF;
    bound = s->squares - 2 * EG_POPCOUNT(brett_eg_stable(O, empty, s->playable));
    if (bound <= alpha)
        return bound;
    if (bound < *beta)
        *beta = bound;
    return BRETT_SOLVE_INF;
}

/* 3..BRETT_EG_SMALL_MAX empties: a stability cutoff (from
   BRETT_EG_SMALL_STABLE_MIN), then the empty squares in parity order, a move
   where one flips; `passed`: O has just passed. */
static int EG(small)(BrettSolver *s, uint64_t P, uint64_t O, uint64_t empty, int n,
                     int parity, int alpha, int beta, int passed)
{
    int best = -BRETT_SOLVE_INF, v, sq, k;
    uint64_t f, b, m, odd = brett_eg_parity_mask(parity);
    s->nodes++;
    if (n >= BRETT_EG_SMALL_STABLE_MIN) {
        v = EG(stability_cut)(s, O, empty, alpha, &beta);
        if (v != BRETT_SOLVE_INF)
            return v;
    }
    for (k = 0; k < 2; k++) {
        m = k == 0 ? empty & odd : empty & ~odd;
        while (m) {
            sq = EG_CTZ(m);
            m &= m - 1;
            f = EG_FLIPS(P, O, sq);
            if (!f)
                continue;
            b = (uint64_t)1 << sq;
            if (n == 3) {
                const uint64_t rest = empty ^ b;
                v = -EG(last2)(s, O ^ f, P ^ f ^ b, EG_CTZ(rest), EG_CTZ(rest & (rest - 1)),
                               -beta, -alpha);
            } else {
                v = -EG(small)(s, O ^ f, P ^ f ^ b, empty ^ b, n - 1,
                               parity ^ BRETT_EG_QUADBIT(sq), -beta, -alpha, 0);
            }
            if (v > best) {
                best = v;
                if (v > alpha) {
                    if (v >= beta)
                        return v;
                    alpha = v;
                }
            }
        }
    }
    if (best == -BRETT_SOLVE_INF) {
        if (passed)
            return EG(final)(s, P, n);      /* neither side can move */
        return -EG(small)(s, O, P, empty, n, parity, -beta, -alpha, 1);
    }
    return best;
}

typedef struct {
    uint64_t flips;
    int sq;
    int key;
} EG(Move);

/* The move list of P, each with its ordering key (lower first): the opponent's
   mobility (corners twice), then odd regions first.  Returns its length. */
static inline int EG(order)(uint64_t P, uint64_t O, uint64_t empty, uint64_t moves,
                            int parity, EG(Move) *list)
{
    int n = 0, sq;
    uint64_t f, b, mob;
    const uint64_t odd = brett_eg_parity_mask(parity);
    while (moves) {
        sq = EG_CTZ(moves);
        moves &= moves - 1;
        b = (uint64_t)1 << sq;
        f = EG_FLIPS(P, O, sq);
        mob = EG_MOVES(O ^ f, P ^ f ^ b, empty ^ b);
        list[n].flips = f;
        list[n].sq = sq;
        if (f == O)                         /* a wipeout ends the game: first */
            list[n].key = BRETT_EG_WIPEOUT_KEY;
        else
            list[n].key = 16 * (EG_POPCOUNT(mob) + EG_POPCOUNT(mob & BRETT_EG_CORNERS))
                          + BRETT_EG_POT_W * EG_POPCOUNT(brett_eg_neighbours(P ^ f ^ b) & empty & ~b)
                          - ((odd & b) ? 4 : 0) - ((b & BRETT_EG_CORNERS) ? 8 : 0);
        n++;
    }
    return n;
}

/* Move the list's entry of lowest key from i..n-1 to i. */
static inline void EG(pick)(EG(Move) *list, int i, int n)
{
    int j, best = i;
    EG(Move) t;
    for (j = i + 1; j < n; j++)
        if (list[j].key < list[best].key)
            best = j;
    if (best != i) {
        t = list[i];
        list[i] = list[best];
        list[best] = t;
    }
}

/* BRETT_EG_SMALL_MAX < n < BRETT_EG_DEEP_MIN empties: a stability cutoff, fastest
   first, no table. */
static int EG(mid)(BrettSolver *s, uint64_t P, uint64_t O, uint64_t empty, int n,
                   int parity, int alpha, int beta)
{
    EG(Move) list[64];
    uint64_t moves, b;
    int nm, i, v, best = -BRETT_SOLVE_INF, sq, bound;
    s->nodes++;
    if (brett_interrupted(s->it)) {
        s->stopped = 1;
        return alpha;
    }
    bound = EG(stability_cut)(s, O, empty, alpha, &beta);
    if (bound != BRETT_SOLVE_INF)
        return bound;
    moves = EG_MOVES(P, O, empty);
    if (!moves) {
        if (!EG_MOVES(O, P, empty))
            return EG(final)(s, P, n);
        return -EG(mid)(s, O, P, empty, n, parity, -beta, -alpha);
    }
    nm = EG(order)(P, O, empty, moves, parity, list);
    for (i = 0; i < nm; i++) {
        EG(pick)(list, i, nm);
        sq = list[i].sq;
        b = (uint64_t)1 << sq;
        if (n - 1 > BRETT_EG_SMALL_MAX)
            v = -EG(mid)(s, O ^ list[i].flips, P ^ list[i].flips ^ b, empty ^ b, n - 1,
                         parity ^ BRETT_EG_QUADBIT(sq), -beta, -alpha);
        else
            v = -EG(small)(s, O ^ list[i].flips, P ^ list[i].flips ^ b, empty ^ b, n - 1,
                           parity ^ BRETT_EG_QUADBIT(sq), -beta, -alpha, 0);
        if (s->stopped)
            return alpha;
        if (v > best) {
            best = v;
            if (v > alpha) {
                if (v >= beta)
                    return v;
                alpha = v;
            }
        }
    }
    return best;
}

static int EG(deep)(BrettSolver *s, uint64_t P, uint64_t O, uint64_t empty, int n,
                    int parity, int alpha, int beta);

/* A guess of P's prospects for ordering moves: mobility and corners. */
static inline int EG(guess)(uint64_t P, uint64_t O, uint64_t empty)
{
    return 4 * (EG_POPCOUNT(EG_MOVES(P, O, empty)) - EG_POPCOUNT(EG_MOVES(O, P, empty)))
           + 16 * (EG_POPCOUNT(P & BRETT_EG_CORNERS) - EG_POPCOUNT(O & BRETT_EG_CORNERS));
}

/* A shallow alpha-beta search of `depth` plies over guess(), for move ordering;
   a finished game counts its score, well beyond any guess.  With an evaluation
   that has frames, `frame` (NULL: none yet) holds (P, O)'s, from which each
   child's follows at a fraction of the cost, and one ply from the leaves
   child() evaluates them. */
static int EG(shallow)(BrettSolver *s, uint64_t P, uint64_t O, uint64_t empty, int depth,
                       int alpha, int beta, const BrettSolverFrame *frame)
{
    const BrettSolverEval *ev = s->eval;
    BrettSolverFrame own, next;
    uint64_t moves, f, b;
    int sq, v, best = -100000;
    s->nodes++;
    if (depth == 0)
        return ev ? ev->eval(ev->ctx, P, O) * BRETT_EG_EVAL_UNIT / ev->scale
                  : EG(guess)(P, O, empty);
    moves = EG_MOVES(P, O, empty);
    if (!moves) {
        if (!EG_MOVES(O, P, empty)) {
            const int d = EG_POPCOUNT(P) - EG_POPCOUNT(O);
            return BRETT_EG_FINISHED * (d > 0 ? 1 : d < 0 ? -1 : 0) + BRETT_EG_EVAL_UNIT * d;
        }
        return -EG(shallow)(s, O, P, empty, depth, -beta, -alpha, 0);
    }
    if (!frame && ev && ev->child) {
        ev->frame(ev->ctx, P, O, &own);
        frame = &own;
    }
    while (moves) {
        sq = EG_CTZ(moves);
        moves &= moves - 1;
        b = (uint64_t)1 << sq;
        f = EG_FLIPS(P, O, sq);
        if (frame && depth == 1) {
            const uint64_t P2 = O ^ f, O2 = P ^ f ^ b, all = ~(P2 | O2);
            s->nodes++;
            v = -(ev->child(ev->ctx, frame, sq, f, EG_POPCOUNT(all),
                            EG_POPCOUNT(EG_MOVES(P2, O2, all)),
                            EG_POPCOUNT(EG_MOVES(O2, P2, all)))
                  * BRETT_EG_EVAL_UNIT / ev->scale);
        } else {
            if (frame)
                ev->advance(ev->ctx, frame, sq, f, &next);
            v = -EG(shallow)(s, O ^ f, P ^ f ^ b, empty ^ b, depth - 1, -beta, -alpha,
                             frame ? &next : 0);
        }
        if (v > best) {
            best = v;
            if (v > alpha) {
                if (v >= beta)
                    return v;
                alpha = v;
            }
        }
    }
    return best;
}

/* A selective search's early cut: beta when a shallow search's value clears beta
   by the margin, alpha when it stays below alpha by it, else BRETT_SOLVE_INF. */
static int EG(probcut)(BrettSolver *s, uint64_t P, uint64_t O, uint64_t empty, int alpha,
                       int beta)
{
    const int depth = BRETT_EG_PC_DEPTH;
    const int margin = s->selective * BRETT_EG_EVAL_UNIT;
    int bound;
    /* Not where only a wipeout reaches the window (which the evaluation does not
       see, and fastest first finds). */
    if (beta < s->squares && beta > 2 - s->squares) {
        bound = beta * BRETT_EG_EVAL_UNIT + margin;
        if (EG(shallow)(s, P, O, empty, depth, bound - 1, bound, 0) >= bound)
            return beta;
    }
    if (alpha > -s->squares && alpha < s->squares - 2) {
        bound = alpha * BRETT_EG_EVAL_UNIT - margin;
        if (EG(shallow)(s, P, O, empty, depth, bound, bound + 1, 0) <= bound)
            return alpha;
    }
    return BRETT_SOLVE_INF;
}

/* A move's ordering key from its fastest-first key and its shallow value, the
   lowest value of its siblings telling how far ahead the mover is. */
static inline int EG(key)(const BrettSolver *s, int key, int value, int lowest)
{
    if (!s->eval)
        return lowest <= -BRETT_EG_LOPSIDED ? key + value : value;
    return lowest <= -BRETT_EG_EVAL_LOPSIDED * BRETT_EG_EVAL_UNIT ? key : key + value;
}

/* The score of the position after a move (its P, O), n empties, by depth. */
static inline int EG(child)(BrettSolver *s, uint64_t P, uint64_t O, uint64_t empty, int n,
                            int parity, int alpha, int beta)
{
    if (n >= BRETT_EG_DEEP_MIN)
        return EG(deep)(s, P, O, empty, n, parity, alpha, beta);
    if (n > BRETT_EG_SMALL_MAX)
        return EG(mid)(s, P, O, empty, n, parity, alpha, beta);
    if (n >= 3)
        return EG(small)(s, P, O, empty, n, parity, alpha, beta, 0);
    if (n == 2)
        return EG(last2)(s, P, O, EG_CTZ(empty), EG_CTZ(empty & (empty - 1)), alpha, beta);
    if (n == 1)
        return EG(last1)(s, P, O, EG_CTZ(empty));
    return EG(final)(s, P, 0);
}

/* BRETT_EG_DEEP_MIN empties or more: the table, a stability cutoff, ETC, PVS. */
static int EG(deep)(BrettSolver *s, uint64_t P, uint64_t O, uint64_t empty, int n,
                    int parity, int alpha, int beta)
{
    EG(Move) list[64];
    BrettSolveEntry *e;
    uint64_t moves, b, f, P2, O2;
    int nm, i, v, best = -BRETT_SOLVE_INF, bestsq = 64, ttmove = 64, sq, bound, a0;
    s->nodes++;
    if (brett_interrupted(s->it)) {
        s->stopped = 1;
        return alpha;
    }
    bound = EG(stability_cut)(s, O, empty, alpha, &beta);
    if (bound != BRETT_SOLVE_INF)
        return bound;
    e = brett_eg_probe(s, P, O);
    if (e && brett_eg_bounds_hold(s, e)) {
        if (e->lower >= beta)
            return e->lower;
        if (e->upper <= alpha)
            return e->upper;
        if (e->lower > alpha)
            alpha = e->lower;
        if (e->upper < beta)
            beta = e->upper;
    }
    if (e)
        ttmove = e->move;
    if (!s->selective && ttmove == 64 && s->eval && s->tt && n >= BRETT_EG_IID_MIN) {
        s->selective = BRETT_EG_IID_MARGIN;
        (void)EG(deep)(s, P, O, empty, n, parity, alpha, beta);
        s->selective = 0;
        if (s->stopped)
            return alpha;
        e = brett_eg_probe(s, P, O);
        if (e)
            ttmove = e->move;
    }
    if (s->selective && n >= BRETT_EG_PC_MIN) {
        v = EG(probcut)(s, P, O, empty, alpha, beta);
        if (v != BRETT_SOLVE_INF)
            return v;
    }
    moves = EG_MOVES(P, O, empty);
    if (!moves) {
        if (!EG_MOVES(O, P, empty))
            return EG(final)(s, P, n);
        return -EG(deep)(s, O, P, empty, n, parity, -beta, -alpha);
    }
    /* ETC: a child whose table entry already refutes O. */
    if (n > BRETT_EG_ETC_MIN && s->tt) {
        uint64_t m = moves;
        while (m) {
            sq = EG_CTZ(m);
            m &= m - 1;
            b = (uint64_t)1 << sq;
            f = EG_FLIPS(P, O, sq);
            e = brett_eg_probe(s, O ^ f, P ^ f ^ b);
            if (e && brett_eg_bounds_hold(s, e) && -e->upper >= beta) {
                brett_eg_store(s, P, O, n, -e->upper, BRETT_SOLVE_INF, sq);
                return -e->upper;
            }
        }
    }
    nm = EG(order)(P, O, empty, moves, parity, list);
    if (beta <= 2 - s->squares) {
        /* Only keeping a disc to the end reaches beta (O threatens a wipeout):
           moves that give P a stable disc first, as these refute at once. */
        for (i = 0; i < nm; i++) {
            b = (uint64_t)1 << list[i].sq;
            if (brett_eg_stable(P ^ list[i].flips ^ b, empty ^ b, s->playable))
                list[i].key -= 100000;
        }
    } else if (n >= BRETT_EG_SHALLOW_MIN && alpha < s->squares - 2) {
        /* Far from the end mobility alone misleads: a shallow search adds its
           view (not in a wipeout hunt, above and here, where only taking every
           disc of O reaches beyond alpha and fastest first finds it). */
        const int depth = BRETT_EG_SHALLOW_DEPTH(n);
        const int hi = s->eval ? (BRETT_EG_SORT_DELTA - alpha) * BRETT_EG_EVAL_UNIT : 100000;
        const BrettSolverEval *ev = s->eval;
        const int framed = ev && ev->child;
        BrettSolverFrame frame, next;
        int value[64], lowest = 100000;
        if (framed)
            ev->frame(ev->ctx, P, O, &frame);
        for (i = 0; i < nm; i++) {
            b = (uint64_t)1 << list[i].sq;
            if (framed)
                ev->advance(ev->ctx, &frame, list[i].sq, list[i].flips, &next);
            value[i] = EG(shallow)(s, O ^ list[i].flips, P ^ list[i].flips ^ b, empty ^ b,
                                   depth, -100000, hi, framed ? &next : 0);
            if (value[i] < lowest)
                lowest = value[i];
        }
        for (i = 0; i < nm; i++)
            if (list[i].key != BRETT_EG_WIPEOUT_KEY)
                list[i].key = EG(key)(s, list[i].key, value[i], lowest);
    }
    for (i = 0; i < nm; i++)
        if (list[i].sq == ttmove && list[i].key != BRETT_EG_WIPEOUT_KEY)
            list[i].key = -1000000;
    a0 = alpha;
    for (i = 0; i < nm; i++) {
        EG(pick)(list, i, nm);
        sq = list[i].sq;
        b = (uint64_t)1 << sq;
        P2 = O ^ list[i].flips;
        O2 = P ^ list[i].flips ^ b;
        if (i == 0) {
            v = -EG(child)(s, P2, O2, empty ^ b, n - 1, parity ^ BRETT_EG_QUADBIT(sq), -beta,
                           -alpha);
        } else {
            v = -EG(child)(s, P2, O2, empty ^ b, n - 1, parity ^ BRETT_EG_QUADBIT(sq),
                           -alpha - 1, -alpha);
            if (v > alpha && v < beta && !s->stopped)
                v = -EG(child)(s, P2, O2, empty ^ b, n - 1, parity ^ BRETT_EG_QUADBIT(sq),
                               -beta, -v);
        }
        if (s->stopped)
            return alpha;
        if (v > best) {
            best = v;
            bestsq = sq;
            if (v > alpha) {
                if (v >= beta)
                    break;
                alpha = v;
            }
        }
    }
    if (best <= a0)
        brett_eg_store(s, P, O, n, -BRETT_SOLVE_INF, best, 64);
    else if (best >= beta)
        brett_eg_store(s, P, O, n, best, BRETT_SOLVE_INF, bestsq);
    else
        brett_eg_store(s, P, O, n, best, best, bestsq);
    return best;
}

/* The root: any number of empties. */
static int EG(root)(BrettSolver *s, uint64_t P, uint64_t O, int alpha, int beta)
{
    const uint64_t empty = s->playable & ~(P | O);
    const int n = EG_POPCOUNT(empty);
    int parity = 0, sq;
    uint64_t m = empty;
    while (m) {
        sq = EG_CTZ(m);
        m &= m - 1;
        parity ^= BRETT_EG_QUADBIT(sq);
    }
    return EG(child)(s, P, O, empty, n, parity, alpha, beta);
}

#endif /* BRETT_EG_BODY */
