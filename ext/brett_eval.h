/* brett's Reversi player in C: the pattern evaluation and an alpha-beta search
 * (8x8 boards only).  The plain-Python twin is brett/_core/_alphabeta_py.py: the
 * evaluation is the same sum, and a fixed-depth search returns the same value.
 *
 * Boards are P (the mover's discs) and O (the opponent's), bit row * 8 + col; moves
 * and flips come from the portable kernels of brett_reversi.h (brett_rv_init()
 * must have run).
 *
 * Evaluation: for each pattern instance, its squares read as a base-3 number (0
 * empty, 1 P, 2 O; the first square most significant) index the weights of its
 * pattern in the position's stage; plus a weight per move of each side's mobility
 * and a constant.  Units: 1/scale discs, for the mover.  An instance's index is
 * read a piece at a time (brett_ev_prepare splits it once into squares of
 * distinct columns, of the board or its transpose, that one multiplication
 * gathers into a byte, and a table turns into base-3 digits): 66 pieces for the
 * 46 instances instead of two tests for each of their squares (FFO #51: 15 s
 * against 19 s, the evaluation from 36% of the time to 21%).  The endgame
 * solver's ordering search evaluates the children of a position from its
 * indices (a frame), changing only the instances through the new disc and the
 * flipped ones (brett_ev_child_any: 5.5% less time on FFO #49, #51, #52, the
 * same nodes).  A frame holds the indices in both sides' eyes, so a child's
 * frame follows from its parent's the same way (brett_ev_advance_any) and the
 * ordering search computes one afresh only at its root; the solver counts the
 * mobility with its own kernels (another 8% less time on those three).
 *
 * Search: negamax with alpha-beta (principal variation search), a transposition
 * table, iterative deepening and move ordering (the table's move, then the
 * evaluation of each child near the root and the opponent's mobility below).  A pass
 * costs no depth, so every position of one iteration is met at one depth.  A
 * finished game scores its disc difference (the empty squares to the winner) times
 * scale.  The exact phase solves the root's moves with the endgame solver of
 * brett_endgame.h (or, without one, this search to the end of the game, ordering
 * by mobility only).  The search stops when `it` polls stopped: the BrettSearch's own
 * poll (brett_ab_poll, which wraps the core's) adds the deadline and a stop flag,
 * so time, stop() and Ctrl-C are all checked every few milliseconds.
 */
#ifndef BRETT_EVAL_H
#define BRETT_EVAL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "brett_bitops.h"
#include "brett_endgame.h"
#include "brett_interrupt.h"
#include "brett_reversi.h"

#define BRETT_EV_MAX_INST 64
#define BRETT_EV_MAX_LEN 10   /* a piece's digits then fit 16 bits: (3^10 - 1) / 2 */
#define BRETT_EV_MAX_SHARE 16 /* instances through one square */
#define BRETT_AB_INF (1 << 20)
#define BRETT_AB_MAX_DEPTH 60

/* A piece of a pattern instance: squares of it in distinct columns of the board
   (or of its transpose), which one multiplication gathers into a byte (bit c:
   the square in column c); `value` maps that byte to the squares' base-3 digits
   (for the mover's discs; the opponent's count twice). */
typedef struct {
    uint64_t mask;
    int transposed;
    uint16_t value[256];
} BrettEvPiece;

typedef struct {
    int16_t *w;           /* stages * size weights (owned by the caller) */
    int stages, width, size, scale;
    int ninst;
    int32_t off[BRETT_EV_MAX_INST];   /* where each instance's pattern starts */
    int len[BRETT_EV_MAX_INST];
    uint8_t sq[BRETT_EV_MAX_INST][BRETT_EV_MAX_LEN];
    /* made from sq by brett_ev_prepare: instance i's pieces end at piece_end[i] */
    BrettEvPiece *piece;
    int piece_end[BRETT_EV_MAX_INST];
    /* and square sq's instances: `shares[sq]` of them, instance share_inst[sq][j]
       where sq's digit weighs share_power[sq][j]; `framed`: they are all
       listed (no square lies in more than BRETT_EV_MAX_SHARE), so children
       may be evaluated from frames */
    int framed;
    int shares[64];
    uint8_t share_inst[64][BRETT_EV_MAX_SHARE];
    uint16_t share_power[64][BRETT_EV_MAX_SHARE];
} BrettEval;

typedef struct {
    uint64_t P, O;
    int32_t lower, upper;
    int8_t depth;         /* -1: empty */
    int8_t move;          /* -1: none */
    int8_t exact;         /* searched to the end of the game */
    int8_t pad;
} BrettTT;

typedef struct {
    BrettInterrupt it;    /* first: brett_ab_poll gets the search from it */
    int (*inner)(BrettInterrupt *it);
    double deadline;      /* brett_clock() time to stop at (0: none) */
    volatile int *flag;   /* stop() from another thread */
    int timed_out, flagged;
    const BrettEval *e;
    BrettTT *tt;
    uint64_t tt_mask;
    uint64_t nodes;
    int exact;            /* searching to the end: no evaluation */
    BrettSolver *solver;  /* the exact solver of brett_endgame.h (NULL: our own search) */
} BrettSearch;

static inline int brett_ab_empties(uint64_t P, uint64_t O)
{
    return 64 - brett_popcount64(P | O);
}

static inline uint64_t brett_ab_moves(uint64_t P, uint64_t O)
{
    return brett_rv_portable_moves8(P, O, ~(P | O));
}

/* The disc difference of a finished game for P, the empty squares to the winner. */
static inline int brett_ab_final(uint64_t P, uint64_t O)
{
    int p = brett_popcount64(P), o = brett_popcount64(O), e = 64 - p - o;
    return p > o ? p - o + e : p < o ? p - o - e : 0;
}

static inline int brett_ev_stage(const BrettEval *e, int empties)
{
    int s = empties <= 60 ? (60 - empties) / e->width : 0;
    return s < e->stages ? s : e->stages - 1;
}

/* The squares of x (at most one in each column) gathered into a byte by column:
   the eight row bytes add without a carry into the top byte. */
static inline unsigned brett_ev_gather(uint64_t x)
{
    return (unsigned)((x * 0x0101010101010101ULL) >> 56);
}

/* The squares of instance i in the transposed board (or not), split into the
   fewest pieces whose squares have distinct columns; returns their number, and
   fills `pieces` (may be NULL) from there. */
static int brett_ev_split(const BrettEval *e, int i, int transposed, BrettEvPiece *pieces)
{
    int k, g, n = 0, col, len = e->len[i];
    uint64_t used[BRETT_EV_MAX_LEN];
    uint32_t digit = 1;
    for (k = len - 1; k >= 0; k--, digit *= 3) {
        const int sq = e->sq[i][k];
        const int at = transposed ? (sq & 7) * 8 + (sq >> 3) : sq;
        col = at & 7;
        for (g = 0; g < n && (used[g] >> col & 1); g++)
            ;
        if (g == n) {
            used[n++] = 0;
            if (pieces) {
                memset(&pieces[g], 0, sizeof pieces[g]);
                pieces[g].transposed = transposed;
            }
        }
        used[g] |= (uint64_t)1 << col;
        if (pieces) {
            unsigned byte;
            pieces[g].mask |= (uint64_t)1 << at;
            for (byte = 0; byte < 256; byte++)
                if (byte >> col & 1)
                    pieces[g].value[byte] += digit;
        }
    }
    return n;
}

/* Lists each square's instances and the weight of its digit in each. */
static inline void brett_ev_share(BrettEval *e)
{
    int i, k, sq;
    unsigned power;
    memset(e->shares, 0, sizeof e->shares);
    e->framed = 0;
    for (i = 0; i < e->ninst; i++)
        for (k = e->len[i] - 1, power = 1; k >= 0; k--, power *= 3) {
            sq = e->sq[i][k];
            if (e->shares[sq] == BRETT_EV_MAX_SHARE)
                return;
            e->share_inst[sq][e->shares[sq]] = (uint8_t)i;
            e->share_power[sq][e->shares[sq]++] = (uint16_t)power;
        }
    e->framed = 1;
}

/* Lays out the pieces of e's instances (after w, off, len and sq are set); 0,
   or -1 when out of memory.  brett_ev_release frees them. */
static inline int brett_ev_prepare(BrettEval *e)
{
    int i, total = 0, side[BRETT_EV_MAX_INST];
    for (i = 0; i < e->ninst; i++) {
        const int transposed = brett_ev_split(e, i, 1, NULL);
        const int plain = brett_ev_split(e, i, 0, NULL);
        side[i] = transposed < plain;
        total += side[i] ? transposed : plain;
    }
    e->piece = (BrettEvPiece *)malloc((size_t)(total > 0 ? total : 1) * sizeof(BrettEvPiece));
    if (!e->piece)
        return -1;
    for (i = 0, total = 0; i < e->ninst; i++) {
        total += brett_ev_split(e, i, side[i], e->piece + total);
        e->piece_end[i] = total;
    }
    brett_ev_share(e);
    return 0;
}

static inline void brett_ev_release(BrettEval *e)
{
    free(e->piece);
    e->piece = NULL;
}

/* The index of each instance in (P, O). */
static inline void brett_ev_indices(const BrettEval *e, uint64_t P, uint64_t O,
                                    uint16_t *index)
{
    const BrettEvPiece *pc = e->piece;
    uint64_t boards[4];
    int i;
    boards[0] = P;
    boards[1] = O;
    boards[2] = brett_rv_transpose(P);
    boards[3] = brett_rv_transpose(O);
    for (i = 0; i < e->ninst; i++) {
        const BrettEvPiece *end = e->piece + e->piece_end[i];
        unsigned sum = 0;
        for (; pc < end; pc++) {
            const uint64_t *b = boards + 2 * pc->transposed;
            sum += pc->value[brett_ev_gather(b[0] & pc->mask)]
                   + 2u * pc->value[brett_ev_gather(b[1] & pc->mask)];
        }
        index[i] = (uint16_t)sum;
    }
}

/* The evaluation of a position of `empties` empty squares from its instances'
   indices and both sides' mobility (the mover's first). */
static inline int brett_ev_sum_mobility(const BrettEval *e, const uint16_t *index,
                                        int empties, int mobility, int opponent_mobility)
{
    const int16_t *w = e->w + (size_t)brett_ev_stage(e, empties) * e->size;
    const int16_t *extra = w + e->size - 3;
    int total = extra[2], i;
    for (i = 0; i < e->ninst; i++)
        total += w[e->off[i] + index[i]];
    return total + extra[0] * mobility + extra[1] * opponent_mobility;
}

/* The evaluation of (P, O) from its instances' indices. */
static inline int brett_ev_sum(const BrettEval *e, const uint16_t *index, uint64_t P,
                               uint64_t O)
{
    return brett_ev_sum_mobility(e, index, brett_ab_empties(P, O),
                                 brett_popcount64(brett_ab_moves(P, O)),
                                 brett_popcount64(brett_ab_moves(O, P)));
}

static inline int brett_ev_eval(const BrettEval *e, uint64_t P, uint64_t O)
{
    uint16_t index[BRETT_EV_MAX_INST];
    brett_ev_indices(e, P, O, index);
    return brett_ev_sum(e, index, P, O);
}

static int brett_ev_eval_any(const void *e, uint64_t P, uint64_t O)
{
    return brett_ev_eval((const BrettEval *)e, P, O);
}

/* A frame holds an index per instance. */
typedef char brett_ev_frame_fits[BRETT_EV_MAX_INST <= 64 ? 1 : -1];

/* The frame of (P, O) for the solver: the indices as the children's mover, O,
   sees them. */
static void brett_ev_frame_any(const void *ctx, uint64_t P, uint64_t O, BrettSolverFrame *f)
{
    brett_ev_indices((const BrettEval *)ctx, O, P, f->index);
    brett_ev_indices((const BrettEval *)ctx, P, O, f->own);
}

/* The indices `index` after a move, in the eyes of one side: the new disc on
   sq adds `placed` times its square's weight (0 to `placed`), each flipped
   disc `flipped` times its own (1 to 2 for the side whose disc it was, 2 to 1
   for the other). */
static inline void brett_ev_move_digits(const BrettEval *e, uint16_t *index, int sq,
                                        uint64_t flips, int placed, int flipped)
{
    int j;
    for (j = 0; j < e->shares[sq]; j++)
        index[e->share_inst[sq][j]] += (uint16_t)(placed * e->share_power[sq][j]);
    while (flips) {
        const int x = brett_ctz64(flips);
        flips &= flips - 1;
        for (j = 0; j < e->shares[x]; j++)
            index[e->share_inst[x][j]] += (uint16_t)(flipped * e->share_power[x][j]);
    }
}

/* The frame of the child after P's disc on sq flips `flips`, from its parent's:
   in P's eyes sq becomes P's (0 to 1) and the flipped discs too (2 to 1); in
   O's, sq becomes the opponent's (0 to 2) and so do they (1 to 2). */
static void brett_ev_advance_any(const void *ctx, const BrettSolverFrame *f, int sq,
                                 uint64_t flips, BrettSolverFrame *next)
{
    const BrettEval *e = (const BrettEval *)ctx;
    memcpy(next->index, f->own, sizeof next->index);
    memcpy(next->own, f->index, sizeof next->own);
    brett_ev_move_digits(e, next->index, sq, flips, 1, -1);
    brett_ev_move_digits(e, next->own, sq, flips, 2, 1);
}

/* A child's evaluation from its parent's frame: its mover's indices are those
   of the frame a move advances to (brett_ev_advance_any's `own`). */
static int brett_ev_child_any(const void *ctx, const BrettSolverFrame *f, int sq,
                              uint64_t flips, int empties, int mobility,
                              int opponent_mobility)
{
    const BrettEval *e = (const BrettEval *)ctx;
    uint16_t index[BRETT_EV_MAX_INST];
    memcpy(index, f->index, sizeof index);
    brett_ev_move_digits(e, index, sq, flips, 2, 1);
    return brett_ev_sum_mobility(e, index, empties, mobility, opponent_mobility);
}

/* The evaluation `e` in the form of the endgame solver's move ordering
   (brett_solver_set_eval); `e` must outlive the solver's searches. */
static inline BrettSolverEval brett_ev_solver_eval(const BrettEval *e)
{
    BrettSolverEval order;
    order.eval = brett_ev_eval_any;
    order.frame = e->framed ? brett_ev_frame_any : NULL;
    order.child = e->framed ? brett_ev_child_any : NULL;
    order.advance = e->framed ? brett_ev_advance_any : NULL;
    order.ctx = e;
    order.scale = e->scale;
    return order;
}

/* The search's poll: the deadline and the stop flag, then the core's own check
   (signals, stoppers), which re-arms the countdown. */
static int brett_ab_poll(BrettInterrupt *it)
{
    BrettSearch *s = (BrettSearch *)it;
    if (it->stopped)
        return 1;
    if (s->flag && *s->flag) {
        s->flagged = 1;
        it->stopped = 1;
        return 1;
    }
    if (s->deadline > 0 && brett_clock() >= s->deadline) {
        s->timed_out = 1;
        it->stopped = 1;
        return 1;
    }
    return s->inner(it);
}

static inline BrettTT *brett_ab_slot(BrettSearch *s, uint64_t P, uint64_t O)
{
    uint64_t h = P * 0x9E3779B97F4A7C15ULL ^ (O + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL;
    return &s->tt[(h ^ (h >> 29)) & s->tt_mask];
}

/* Sorts the first n moves by their keys, highest first (n <= 32: insertion). */
static inline void brett_ab_sort(int *mv, int *key, int n)
{
    int i, j;
    for (i = 1; i < n; i++) {
        int m = mv[i], k = key[i];
        for (j = i; j > 0 && key[j - 1] < k; j--) {
            mv[j] = mv[j - 1];
            key[j] = key[j - 1];
        }
        mv[j] = m;
        key[j] = k;
    }
}

/* Corners first, the squares next to an empty corner last: a hint below the
   evaluation's resolution, for the shallow nodes' ordering. */
static const int8_t BRETT_AB_SQUARE_BONUS[64] = {
    9, -3, 1, 1, 1, 1, -3, 9,
    -3, -6, 0, 0, 0, 0, -6, -3,
    1, 0, 0, 0, 0, 0, 0, 1,
    1, 0, 0, 0, 0, 0, 0, 1,
    1, 0, 0, 0, 0, 0, 0, 1,
    1, 0, 0, 0, 0, 0, 0, 1,
    -3, -6, 0, 0, 0, 0, -6, -3,
    9, -3, 1, 1, 1, 1, -3, 9,
};

/* The moves of `moves` in search order; their number. */
static int brett_ab_order(BrettSearch *s, uint64_t P, uint64_t O, uint64_t moves, int depth,
                          int first, int *mv)
{
    int key[64], n = 0;
    while (moves) {
        int sq = brett_ctz64(moves);
        uint64_t f = brett_rv_portable_flips8(P, O, sq), bit = (uint64_t)1 << sq;
        uint64_t nP = O & ~f, nO = P | f | bit;
        int k;
        moves &= moves - 1;
        if (sq == first)
            k = 1 << 28;
        else if (!s->exact && depth >= 3)
            k = -brett_ev_eval(s->e, nP, nO);
        else
            k = -16 * brett_popcount64(brett_ab_moves(nP, nO)) + BRETT_AB_SQUARE_BONUS[sq];
        mv[n] = sq;
        key[n] = k;
        n++;
    }
    brett_ab_sort(mv, key, n);
    return n;
}

/* The negamax value of P to move searched `depth` placements deep (fail-soft);
   meaningless once s->it.stopped is set. */
static int brett_ab_search(BrettSearch *s, uint64_t P, uint64_t O, int depth, int alpha,
                           int beta)
{
    uint64_t moves;
    BrettTT *slot;
    int mv[64], n, i, best = -BRETT_AB_INF, first = -1, best_move = -1;
    int alpha0 = alpha;

    s->nodes++;
    if (brett_interrupted(&s->it))
        return 0;
    moves = brett_ab_moves(P, O);
    if (!moves) {
        if (!brett_ab_moves(O, P))
            return brett_ab_final(P, O) * s->e->scale;
        return -brett_ab_search(s, O, P, depth, -beta, -alpha);
    }
    if (depth <= 0 && !s->exact)
        return brett_ev_eval(s->e, P, O);
    if (depth <= 0)  /* exact: the last empty square */
        depth = 1;
    slot = brett_ab_slot(s, P, O);
    if (slot->P == P && slot->O == O && slot->depth >= 0) {
        if (slot->depth >= depth && slot->exact == s->exact) {
            if (slot->lower >= beta)
                return slot->lower;
            if (slot->upper <= alpha)
                return slot->upper;
            if (slot->lower == slot->upper)
                return slot->lower;
        }
        first = slot->move;
    }
    n = brett_ab_order(s, P, O, moves, depth, first, mv);
    for (i = 0; i < n; i++) {
        int sq = mv[i], v;
        uint64_t f = brett_rv_portable_flips8(P, O, sq);
        uint64_t nP = O & ~f, nO = P | f | ((uint64_t)1 << sq);
        if (i == 0) {
            v = -brett_ab_search(s, nP, nO, depth - 1, -beta, -alpha);
        } else {
            v = -brett_ab_search(s, nP, nO, depth - 1, -alpha - 1, -alpha);
            if (v > alpha && v < beta && !s->it.stopped)
                v = -brett_ab_search(s, nP, nO, depth - 1, -beta, -alpha);
        }
        if (s->it.stopped)
            return 0;
        if (v > best) {
            best = v;
            best_move = sq;
            if (v > alpha) {
                alpha = v;
                if (v >= beta)
                    break;
            }
        }
    }
    slot->P = P;
    slot->O = O;
    slot->depth = (int8_t)depth;
    slot->exact = (int8_t)s->exact;
    slot->move = (int8_t)best_move;
    slot->lower = best > alpha0 ? best : -BRETT_AB_INF;
    slot->upper = best < beta ? best : BRETT_AB_INF;
    return best;
}

/* The root: the value of the best move (fail-soft within alpha..beta) and the move
   in *move; `mv` (n moves) is the order to try, and the best goes to its front. */
static int brett_ab_root(BrettSearch *s, uint64_t P, uint64_t O, int depth, int alpha,
                         int beta, int *mv, int n, int *move)
{
    int i, best = -BRETT_AB_INF, at = 0;
    for (i = 0; i < n; i++) {
        int sq = mv[i], v;
        uint64_t f = brett_rv_portable_flips8(P, O, sq);
        uint64_t nP = O & ~f, nO = P | f | ((uint64_t)1 << sq);
        s->nodes++;
        if (i == 0) {
            v = -brett_ab_search(s, nP, nO, depth - 1, -beta, -alpha);
        } else {
            v = -brett_ab_search(s, nP, nO, depth - 1, -alpha - 1, -alpha);
            if (v > alpha && v < beta && !s->it.stopped)
                v = -brett_ab_search(s, nP, nO, depth - 1, -beta, -alpha);
        }
        if (s->it.stopped)
            return best;
        if (v > best) {
            best = v;
            at = i;
            if (v > alpha) {
                alpha = v;
                if (v >= beta)
                    break;
            }
        }
    }
    *move = mv[at];
    for (i = at; i > 0; i--)
        mv[i] = mv[i - 1];
    mv[0] = *move;
    return best;
}

/* The exact root with the endgame solver: as brett_ab_root, in discs * scale. */
static int brett_ab_solve_root(BrettSearch *s, uint64_t P, uint64_t O, int *mv, int n,
                               int *move)
{
    int i, best = -BRETT_SOLVE_INF, at = 0, alpha = -BRETT_SOLVE_INF;
    const int beta = BRETT_SOLVE_INF;
    for (i = 0; i < n; i++) {
        int sq = mv[i], v;
        uint64_t f = brett_rv_portable_flips8(P, O, sq);
        uint64_t nP = O & ~f, nO = P | f | ((uint64_t)1 << sq);
        if (i == 0) {
            v = -brett_solver_score(s->solver, nP, nO, -beta, -alpha, &s->it, &s->nodes);
        } else {
            v = -brett_solver_score(s->solver, nP, nO, -alpha - 1, -alpha, &s->it, &s->nodes);
            if (v > alpha && v < beta && !s->it.stopped)
                v = -brett_solver_score(s->solver, nP, nO, -beta, -alpha, &s->it, &s->nodes);
        }
        if (s->it.stopped)
            return best * s->e->scale;
        if (v > best) {
            best = v;
            at = i;
            if (v > alpha)
                alpha = v;
        }
    }
    *move = mv[at];
    for (i = at; i > 0; i--)
        mv[i] = mv[i - 1];
    mv[0] = *move;
    return best * s->e->scale;
}

typedef struct {
    int move;        /* -1: no move (a pass or the game's end) */
    int score;       /* 1/scale discs for the mover */
    int depth;       /* the last depth completed (the empties when exact) */
    int exact;       /* the score is the exact result of perfect play */
    int complete;    /* not stopped before the end of the search asked for */
} BrettThought;

static void brett_ab_clear(BrettSearch *s)
{
    uint64_t i;
    for (i = 0; i <= s->tt_mask; i++) {
        s->tt[i].P = s->tt[i].O = 0;
        s->tt[i].depth = -1;
        s->tt[i].move = -1;
    }
}

/* Iterative deepening to max_depth (by the deadline); then, with `solve` empty
   squares or fewer, the exact search to the end (by the same deadline).  `soft`
   (brett_clock() time, 0: none) starts no new midgame iteration after it.  The
   result of the deepest search that completed; with none, the best move of the
   first iteration searched so far. */
static BrettThought brett_ab_think(BrettSearch *s, uint64_t P, uint64_t O, int max_depth,
                                   int solve, double soft)
{
    BrettThought r = {-1, 0, 0, 0, 0};
    int mv[64], n = 0, depth, move = -1, empties = brett_ab_empties(P, O);
    uint64_t moves = brett_ab_moves(P, O);
    brett_ab_clear(s);
    if (!moves)
        return r;
    s->exact = 0;
    n = brett_ab_order(s, P, O, moves, 3, -1, mv);
    r.move = mv[0];
    if (max_depth > empties)
        max_depth = empties;
    /* midgame iterations (short when the exact search follows) */
    for (depth = 1; depth <= max_depth; depth++) {
        int v = brett_ab_root(s, P, O, depth, -BRETT_AB_INF, BRETT_AB_INF, mv, n, &move);
        if (s->it.stopped)
            break;  /* the last iteration that completed decides */
        r.move = move;
        r.score = v;
        r.depth = depth;
        if (depth == empties)
            break;
        if (soft > 0 && brett_clock() >= soft)
            break;
        if (empties <= solve && depth >= 6)
            break;
    }
    if (!s->it.stopped && (depth >= max_depth || depth == empties) && empties > solve)
        r.complete = 1;
    if (empties <= solve && !s->it.stopped) {
        int v;
        s->exact = 1;
        if (s->solver)
            v = brett_ab_solve_root(s, P, O, mv, n, &move);
        else
            v = brett_ab_root(s, P, O, empties, -BRETT_AB_INF, BRETT_AB_INF, mv, n, &move);
        if (!s->it.stopped) {
            r.move = move;
            r.score = v;
            r.depth = empties;
            r.exact = 1;
            r.complete = 1;
        }
        s->exact = 0;
    }
    if (r.depth == empties && !r.exact) {
        /* the midgame search reached the end of every line */
        r.exact = 1;
    }
    return r;
}

#endif /* BRETT_EVAL_H */
