/* The Reversi kernels (moves, flips, perft, random playouts), written once and
 * compiled once per target by brett_reversi.h, which defines before each
 * inclusion:
 *
 *   RK(name)        the function name for this target (brett_rv_<target>_name)
 *   RK_POPCOUNT(x)  number of set bits of a uint64_t
 *   RK_CTZ(x)       index of the lowest set bit (x != 0)
 *   RK_MSB(x)       index of the highest set bit (x != 0)
 *   RK_AVX2         1: mobility and flips four directions at a time in AVX2
 *
 * No include guard: every inclusion is one more target.
 *
 * Boards up to 8x8 (the functions ending in 8): P (mover) and O (opponent)
 * bitboards, bit row * 8 + col.  `playable`
 * holds the squares of the board (smaller boards, holes and the octagon's cuts
 * are left out): such squares are neither P, O nor empty, so they end every line.
 */

#if !RK_AVX2
/* Squares reached from P across a run of `mask` in directions +d and -d. */
static inline uint64_t RK(some_moves8)(uint64_t P, uint64_t mask, int d)
{
    uint64_t fl = mask & (P << d), fr = mask & (P >> d);
    const uint64_t ml = mask & (mask << d), mr = ml >> d;
    const int d2 = d + d;
    fl |= mask & (fl << d);
    fr |= mask & (fr >> d);
    fl |= ml & (fl << d2);
    fr |= mr & (fr >> d2);
    fl |= ml & (fl << d2);
    fr |= mr & (fr >> d2);
    return (fl << d) | (fr >> d);
}
#endif

/* The empty squares where P outflanks O, in all eight directions. */
static inline uint64_t RK(moves8)(uint64_t P, uint64_t O, uint64_t empty)
{
#if RK_AVX2
    /* Lanes: directions 1 (E-W), 8 (S-N), 7 and 9 (diagonals); the horizontal
       and diagonal runs leave out columns a and h, where a shift would wrap. */
    const __m256i shift = _mm256_set_epi64x(9, 7, 8, 1);
    const __m256i shift2 = _mm256_add_epi64(shift, shift);
    const __m256i PP = _mm256_set1_epi64x((long long)P);
    const __m256i OO = _mm256_and_si256(
        _mm256_set1_epi64x((long long)O),
        _mm256_set_epi64x(0x7E7E7E7E7E7E7E7ELL, 0x7E7E7E7E7E7E7E7ELL, -1LL,
                          0x7E7E7E7E7E7E7E7ELL));
    /* Runs of O next to P, grown by one square, then by pairs (Kogge-Stone). */
    __m256i fl = _mm256_and_si256(OO, _mm256_sllv_epi64(PP, shift));
    __m256i fr = _mm256_and_si256(OO, _mm256_srlv_epi64(PP, shift));
    fl = _mm256_or_si256(fl, _mm256_and_si256(OO, _mm256_sllv_epi64(fl, shift)));
    fr = _mm256_or_si256(fr, _mm256_and_si256(OO, _mm256_srlv_epi64(fr, shift)));
    const __m256i pl = _mm256_and_si256(OO, _mm256_sllv_epi64(OO, shift));
    const __m256i pr = _mm256_srlv_epi64(pl, shift);
    fl = _mm256_or_si256(fl, _mm256_and_si256(pl, _mm256_sllv_epi64(fl, shift2)));
    fr = _mm256_or_si256(fr, _mm256_and_si256(pr, _mm256_srlv_epi64(fr, shift2)));
    fl = _mm256_or_si256(fl, _mm256_and_si256(pl, _mm256_sllv_epi64(fl, shift2)));
    fr = _mm256_or_si256(fr, _mm256_and_si256(pr, _mm256_srlv_epi64(fr, shift2)));
    const __m256i m = _mm256_or_si256(_mm256_sllv_epi64(fl, shift),
                                      _mm256_srlv_epi64(fr, shift));
    __m128i h = _mm_or_si128(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
    h = _mm_or_si128(h, _mm_unpackhi_epi64(h, h));
    return (uint64_t)_mm_cvtsi128_si64(h) & empty;
#else
    const uint64_t inner = O & 0x7E7E7E7E7E7E7E7EULL;
    return (RK(some_moves8)(P, inner, 1) | RK(some_moves8)(P, O, 8)
            | RK(some_moves8)(P, inner, 7) | RK(some_moves8)(P, inner, 9)) & empty;
#endif
}

/* The discs of O that P's disc on `sq` flips (0 if none). */
static inline uint64_t RK(flips8)(uint64_t P, uint64_t O, int sq)
{
#if RK_AVX2
    const __m256i PP = _mm256_set1_epi64x((long long)P);
    const __m256i OO = _mm256_set1_epi64x((long long)O);
    const __m256i up = _mm256_loadu_si256((const __m256i *)&BRETT_RV_RAY[sq][0]);
    const __m256i down = _mm256_loadu_si256((const __m256i *)&BRETT_RV_RAY[sq][4]);
    /* Rays towards higher bits: the nearest square that is not O is the lowest
       set bit of `o`; (o - 1) ^ o keeps the ray up to it.  Without that square
       if it is P, the rest are the flips; if it is not P, nothing changes. */
    const __m256i o = _mm256_andnot_si256(OO, up);
    const __m256i upto = _mm256_and_si256(
        _mm256_xor_si256(_mm256_add_epi64(o, _mm256_set1_epi64x(-1)), o), up);
    const __m256i run = _mm256_andnot_si256(PP, upto);
    __m256i f = _mm256_andnot_si256(_mm256_cmpeq_epi64(run, upto), run);
    /* Rays towards lower bits: P's disc nearest to `sq` is the highest bit of
       rp.  The ray squares above it flip when it is nearer than every square
       that is neither O nor P (a higher number; no ray here reaches bit 63, so
       the signed comparison is exact). */
    const __m256i shift = _mm256_set_epi64x(9, 8, 7, 1);   /* W, NE, N, NW */
    const __m256i rp = _mm256_and_si256(PP, down);
    const __m256i gap = _mm256_xor_si256(_mm256_andnot_si256(OO, down), rp);
    __m256i below = _mm256_or_si256(rp, _mm256_srlv_epi64(rp, shift));
    below = _mm256_or_si256(below, _mm256_srlv_epi64(below, _mm256_add_epi64(shift, shift)));
    below = _mm256_or_si256(below, _mm256_srlv_epi64(below, _mm256_slli_epi64(shift, 2)));
    f = _mm256_or_si256(f, _mm256_and_si256(_mm256_andnot_si256(below, down),
                                            _mm256_cmpgt_epi64(rp, gap)));
    __m128i h = _mm_or_si128(_mm256_castsi256_si128(f), _mm256_extracti128_si256(f, 1));
    h = _mm_or_si128(h, _mm_unpackhi_epi64(h, h));
    return (uint64_t)_mm_cvtsi128_si64(h);
#else
    const uint64_t *ray = BRETT_RV_RAY[sq];
    uint64_t flips = 0, r, o, first;
    int d;
    /* Rays towards higher bits: the nearest square that is not O is the lowest
       set bit; towards lower bits, the highest. */
    for (d = 0; d < 4; d++) {
        r = ray[d];
        o = r & ~O;
        first = o & (0 - o);
        if (first & P)
            flips |= r & (first - 1);
    }
    for (d = 4; d < 8; d++) {
        r = ray[d];
        o = r & ~O;
        if (o) {
            first = (uint64_t)1 << RK_MSB(o);
            if (first & P)
                flips |= r & ~((first << 1) - 1);
        }
    }
    return flips;
#endif
}

/* perft(depth >= 1) with P to move, counting the last ply in bulk; a finished
 * game counts 1 with `count_finished`, else 0.  Polls `it` at inner nodes and
 * returns 0 once it is stopped. */
static uint64_t RK(perft8)(uint64_t P, uint64_t O, uint64_t playable, int depth,
                          int count_finished, BrettInterrupt *it)
{
    const uint64_t empty = playable & ~(P | O);
    uint64_t moves = RK(moves8)(P, O, empty);
    uint64_t total = 0, f, b, m2, P2, O2, e2;
    int sq;
    if (moves == 0) {
        if (RK(moves8)(O, P, empty) == 0)
            return count_finished ? 1 : 0;      /* the game is over */
        if (depth == 1)
            return 1;                           /* the forced pass */
        return RK(perft8)(O, P, playable, depth - 1, count_finished, it);
    }
    if (depth == 1)
        return (uint64_t)RK_POPCOUNT(moves);
    if (depth == 2) {
        while (moves) {
            sq = RK_CTZ(moves);
            moves &= moves - 1;
            b = (uint64_t)1 << sq;
            f = RK(flips8)(P, O, sq);
            P2 = O ^ f;
            O2 = P ^ f ^ b;
            e2 = empty ^ b;
            m2 = RK(moves8)(P2, O2, e2);
            if (m2)
                total += (uint64_t)RK_POPCOUNT(m2);
            else if (count_finished || RK(moves8)(O2, P2, e2))
                total += 1;
        }
        return total;
    }
    if (brett_interrupted(it))
        return 0;
    while (moves) {
        sq = RK_CTZ(moves);
        moves &= moves - 1;
        f = RK(flips8)(P, O, sq);
        total += RK(perft8)(O ^ f, P ^ f ^ ((uint64_t)1 << sq), playable, depth - 1,
                           count_finished, it);
    }
    return total;
}

/* perft8 with a transposition table `t` of the subtrees already counted in this
 * call (brett_perft_table.h; the same `playable` and `count_finished` for all of
 * it), keyed by the position itself or, with `sym_n` (the side of a square board
 * without holes; 0: none), by the least of its eight images.  Subtrees of depth
 * < BRETT_RV_HASH_DEPTH are counted without it: below that a probe costs more
 * than the count.  A count past 2^64 - 1 is BRETT_PERFT_SATURATED. */
static uint64_t RK(hperft8)(uint64_t P, uint64_t O, uint64_t playable, int depth,
                           int count_finished, int sym_n, BrettPerftTable *t,
                           BrettInterrupt *it)
{
    const uint64_t empty = playable & ~(P | O);
    uint64_t moves, total = 0, f, key[2];
    int sq;
    if (depth < BRETT_RV_HASH_DEPTH)
        return RK(perft8)(P, O, playable, depth, count_finished, it);
    key[0] = P;
    key[1] = O;
    if (sym_n)
        brett_rv_canonical(&key[0], &key[1], sym_n);
    if (brett_perft_probe(t, key, 2, (uint32_t)depth, &total))
        return total;
    if (brett_interrupted(it))
        return 0;
    moves = RK(moves8)(P, O, empty);
    if (moves == 0) {
        if (RK(moves8)(O, P, empty) == 0)
            return count_finished ? 1 : 0;      /* the game is over */
        total = RK(hperft8)(O, P, playable, depth - 1, count_finished, sym_n, t, it);
    }
    while (moves) {
        sq = RK_CTZ(moves);
        moves &= moves - 1;
        f = RK(flips8)(P, O, sq);
        total = brett_perft_add(total, RK(hperft8)(O ^ f, P ^ f ^ ((uint64_t)1 << sq),
                                                   playable, depth - 1, count_finished,
                                                   sym_n, t, it));
    }
    if (!it->stopped)   /* a stopped count is short: keep none of it */
        brett_perft_store(t, key, 2, (uint32_t)depth, total);
    return total;
}

/* `ngames` random games from (black, white, player to move), each stopped after
 * `cap` plies if cap >= 0.  Adds to res = [black wins, white wins, draws,
 * unfinished, plies].  The random choices are those of the plain-Python twin. */
static void RK(playouts8)(uint64_t black, uint64_t white, int player, uint64_t playable,
                         long long ngames, uint64_t *rng, long long cap,
                         long long *res, BrettInterrupt *it)
{
    uint64_t P, O, t, empty, moves, f;
    long long g, made;
    int side, k, sq, nb, nw;
    for (g = 0; g < ngames; g++) {
        if (brett_interrupted(it))
            return;
        P = player == 0 ? black : white;
        O = player == 0 ? white : black;
        side = player;
        made = 0;
        for (;;) {
            empty = playable & ~(P | O);
            moves = RK(moves8)(P, O, empty);
            if (moves == 0) {
                if (RK(moves8)(O, P, empty) == 0) {
                    nb = RK_POPCOUNT(side == 0 ? P : O);
                    nw = RK_POPCOUNT(side == 0 ? O : P);
                    res[nb == nw ? 2 : (nb > nw ? 0 : 1)] += 1;
                    break;
                }
                if (0 <= cap && cap <= made) {
                    res[3] += 1;
                    break;
                }
                brett_rng_below(rng, 1);            /* the one-move list [pass] */
            } else {
                if (0 <= cap && cap <= made) {
                    res[3] += 1;
                    break;
                }
                k = (int)brett_rng_below(rng, (uint32_t)RK_POPCOUNT(moves));
                while (k--)
                    moves &= moves - 1;
                sq = RK_CTZ(moves);
                f = RK(flips8)(P, O, sq);
                P ^= f | ((uint64_t)1 << sq);
                O ^= f;
            }
            t = P;
            P = O;
            O = t;
            side ^= 1;
            made++;
        }
        res[4] += made;
    }
}


/* ---- Boards from 10x10 to 16x16 and the octagon (BrettBig) */

/* r = a << k and r = a >> k over four words (0 < k < 64). */
static inline void RK(wide_shl)(const uint64_t *a, int k, uint64_t *r)
{
    r[3] = (a[3] << k) | (a[2] >> (64 - k));
    r[2] = (a[2] << k) | (a[1] >> (64 - k));
    r[1] = (a[1] << k) | (a[0] >> (64 - k));
    r[0] = a[0] << k;
}

static inline void RK(wide_shr)(const uint64_t *a, int k, uint64_t *r)
{
    r[0] = (a[0] >> k) | (a[1] << (64 - k));
    r[1] = (a[1] >> k) | (a[2] << (64 - k));
    r[2] = (a[2] >> k) | (a[3] << (64 - k));
    r[3] = a[3] >> k;
}

/* The legal squares of `me` as a wide bitboard; 1 if there is any.  Each
 * direction walks the runs of opponent discs one step at a time, so the loop
 * ends after the longest run (lines are at most 14 discs long). */
static inline int RK(wide_moves)(const BrettBig *b, int me, uint64_t *moves)
{
    static const int shifts[4] = {1, 15, 16, 17};
    const uint64_t *P = b->bits[me], *O = b->bits[1 - me], *E = b->empty, *M;
    uint64_t inner[4], t[4], s[4];
    int d, i;
    for (i = 0; i < 4; i++) {
        inner[i] = O[i] & 0x7FFE7FFE7FFE7FFEULL;     /* columns 1-14 of a row */
        moves[i] = 0;
    }
    for (d = 0; d < 4; d++) {
        const int k = shifts[d];
        M = k == 16 ? O : inner;
        RK(wide_shl)(P, k, t);
        for (i = 0; i < 4; i++)
            t[i] &= M[i];
        while (t[0] | t[1] | t[2] | t[3]) {
            RK(wide_shl)(t, k, s);
            for (i = 0; i < 4; i++) {
                moves[i] |= s[i] & E[i];
                t[i] = s[i] & M[i];
            }
        }
        RK(wide_shr)(P, k, t);
        for (i = 0; i < 4; i++)
            t[i] &= M[i];
        while (t[0] | t[1] | t[2] | t[3]) {
            RK(wide_shr)(t, k, s);
            for (i = 0; i < 4; i++) {
                moves[i] |= s[i] & E[i];
                t[i] = s[i] & M[i];
            }
        }
    }
    return (moves[0] | moves[1] | moves[2] | moves[3]) != 0;
}

static inline int RK(wide_count)(const uint64_t *moves)
{
    return RK_POPCOUNT(moves[0]) + RK_POPCOUNT(moves[1]) + RK_POPCOUNT(moves[2])
           + RK_POPCOUNT(moves[3]);
}

/* The squares of a wide bitboard as mailbox indices, ascending; their number. */
static inline int RK(wide_list)(const BrettBig *b, const uint64_t *moves, int16_t *out)
{
    int w, n = 0;
    for (w = 0; w < 4; w++) {
        uint64_t m = moves[w];
        while (m) {
            out[n++] = b->bit2mb[w * 64 + RK_CTZ(m)];
            m &= m - 1;
        }
    }
    return n;
}

/* The legal squares of `me` (square indices, ascending) into `out`; their number. */
static inline int RK(big_moves)(const BrettBig *b, int me, int16_t *out)
{
    uint64_t moves[4];
    int w, n = 0, bit;
    RK(wide_moves)(b, me, moves);
    for (w = 0; w < 4; w++) {
        uint64_t m = moves[w];
        while (m) {
            bit = w * 64 + RK_CTZ(m);
            out[n++] = (int16_t)((bit >> 4) * b->n + (bit & 15));
            m &= m - 1;
        }
    }
    return n;
}

static inline int RK(big_any)(const BrettBig *b, int me)
{
    uint64_t moves[4];
    return RK(wide_moves)(b, me, moves);
}

/* Whether `me` may play on mailbox cell `mb`. */
static inline int RK(big_legal)(const BrettBig *b, int mb, int me)
{
    const int opp = 1 - me;
    int d, step, t;
    if (b->cell[mb] != BRETT_RV_EMPTY)
        return 0;
    for (d = 0; d < 8; d++) {
        step = b->dirs[d];
        t = mb + step;
        if (b->cell[t] != opp)
            continue;
        t += step;
        while (b->cell[t] == opp)
            t += step;
        if (b->cell[t] == me)
            return 1;
    }
    return 0;
}

/* Set one playable cell to BLACK, WHITE or EMPTY, bitboards included. */
static inline void RK(big_put)(BrettBig *b, int mb, int c)
{
    const int bit = b->mb2bit[mb], w = bit >> 6;
    const uint64_t m = (uint64_t)1 << (bit & 63);
    b->cell[mb] = (uint8_t)c;
    b->bits[0][w] &= ~m;
    b->bits[1][w] &= ~m;
    b->empty[w] &= ~m;
    if (c == BRETT_RV_EMPTY)
        b->empty[w] |= m;
    else
        b->bits[c][w] |= m;
}

/* Put a disc of `me` on `mb` and flip; the flipped mailbox indices go to
 * `flipped` (at most 8 * 14); returns their number. */
static inline int RK(big_make)(BrettBig *b, int mb, int me, int16_t *flipped)
{
    const int opp = 1 - me;
    int d, step, t, nf = 0, bit;
    uint64_t m;
    for (d = 0; d < 8; d++) {
        step = b->dirs[d];
        t = mb + step;
        if (b->cell[t] != opp)
            continue;
        t += step;
        while (b->cell[t] == opp)
            t += step;
        if (b->cell[t] != me)
            continue;
        for (t -= step; t != mb; t -= step) {
            b->cell[t] = (uint8_t)me;
            bit = b->mb2bit[t];
            m = (uint64_t)1 << (bit & 63);
            b->bits[me][bit >> 6] |= m;
            b->bits[opp][bit >> 6] &= ~m;
            flipped[nf++] = (int16_t)t;
        }
    }
    RK(big_put)(b, mb, me);
    return nf;
}

static inline void RK(big_unmake)(BrettBig *b, int mb, int me, const int16_t *flipped,
                                  int nf)
{
    const int opp = 1 - me;
    int i, bit;
    uint64_t m;
    for (i = 0; i < nf; i++) {
        b->cell[flipped[i]] = (uint8_t)opp;
        bit = b->mb2bit[flipped[i]];
        m = (uint64_t)1 << (bit & 63);
        b->bits[opp][bit >> 6] |= m;
        b->bits[me][bit >> 6] &= ~m;
    }
    RK(big_put)(b, mb, BRETT_RV_EMPTY);
}

/* perft(depth >= 1) with `me` to move on `b` (changed during the call, restored
 * at its end), as perft8. */
static uint64_t RK(perft_wide)(BrettBig *b, int me, int depth, int count_finished,
                               BrettInterrupt *it)
{
    uint64_t moves[4], total = 0;
    int16_t mbs[256], flipped[128];
    int nm, i, nf, mb;
    if (!RK(wide_moves)(b, me, moves)) {
        if (!RK(big_any)(b, 1 - me))
            return count_finished ? 1 : 0;
        if (depth == 1)
            return 1;
        return RK(perft_wide)(b, 1 - me, depth - 1, count_finished, it);
    }
    if (depth == 1)
        return (uint64_t)RK(wide_count)(moves);
    if (brett_interrupted(it))
        return 0;
    nm = RK(wide_list)(b, moves, mbs);
    for (i = 0; i < nm; i++) {
        mb = mbs[i];
        nf = RK(big_make)(b, mb, me, flipped);
        total += RK(perft_wide)(b, 1 - me, depth - 1, count_finished, it);
        RK(big_unmake)(b, mb, me, flipped, nf);
    }
    return total;
}

/* perft_wide with a transposition table `t` of eight-word keys (the mover's
 * wide bitboard, then the opponent's; the same board and `count_finished` for
 * all of the table), as hperft8: with `sym_n` (the side of a square board
 * without holes; 0: none) keyed by the least of the position's eight images.
 * Subtrees of depth < BRETT_RV_WIDE_HASH_DEPTH are counted without it. */
static uint64_t RK(hperft_wide)(BrettBig *b, int me, int depth, int count_finished,
                                int sym_n, BrettPerftTable *t, BrettInterrupt *it)
{
    uint64_t moves[4], key[8], total = 0;
    int16_t mbs[256], flipped[128];
    int nm, i, nf, mb;
    if (depth < BRETT_RV_WIDE_HASH_DEPTH)
        return RK(perft_wide)(b, me, depth, count_finished, it);
    if (sym_n) {
        brett_rv_wide_canonical(b->bits[me], b->bits[1 - me], sym_n, key);
    } else {
        memcpy(key, b->bits[me], sizeof b->bits[me]);
        memcpy(key + 4, b->bits[1 - me], sizeof b->bits[me]);
    }
    if (brett_perft_probe(t, key, 8, (uint32_t)depth, &total))
        return total;
    if (brett_interrupted(it))
        return 0;
    if (!RK(wide_moves)(b, me, moves)) {
        if (!RK(big_any)(b, 1 - me))
            return count_finished ? 1 : 0;
        total = RK(hperft_wide)(b, 1 - me, depth - 1, count_finished, sym_n, t, it);
    } else {
        nm = RK(wide_list)(b, moves, mbs);
        for (i = 0; i < nm; i++) {
            mb = mbs[i];
            nf = RK(big_make)(b, mb, me, flipped);
            total = brett_perft_add(total, RK(hperft_wide)(b, 1 - me, depth - 1,
                                                           count_finished, sym_n, t, it));
            RK(big_unmake)(b, mb, me, flipped, nf);
        }
    }
    if (!it->stopped)   /* a stopped count is short: keep none of it */
        brett_perft_store(t, key, 8, (uint32_t)depth, total);
    return total;
}

/* As playouts8, from `start` with `player` to move. */
static void RK(playouts_wide)(const BrettBig *start, int player, long long ngames,
                              uint64_t *rng, long long cap, long long *res,
                              BrettInterrupt *it)
{
    BrettBig b;
    int16_t moves[256], flipped[128];
    long long g, made;
    int me, nm, i, nb, nw, c;
    for (g = 0; g < ngames; g++) {
        if (brett_interrupted(it))
            return;
        memcpy(&b, start, sizeof(BrettBig));
        me = player;
        made = 0;
        for (;;) {
            nm = RK(big_moves)(&b, me, moves);
            if (nm == 0) {
                if (!RK(big_any)(&b, 1 - me)) {
                    nb = nw = 0;
                    for (i = 0; i < b.n * b.n; i++) {
                        c = b.cell[b.mb[i]];
                        nb += c == BRETT_RV_BLACK;
                        nw += c == BRETT_RV_WHITE;
                    }
                    res[nb == nw ? 2 : (nb > nw ? 0 : 1)] += 1;
                    break;
                }
                if (0 <= cap && cap <= made) {
                    res[3] += 1;
                    break;
                }
                brett_rng_below(rng, 1);            /* the one-move list [pass] */
            } else {
                if (0 <= cap && cap <= made) {
                    res[3] += 1;
                    break;
                }
                i = (int)brett_rng_below(rng, (uint32_t)nm);
                RK(big_make)(&b, b.mb[moves[i]], me, flipped);
            }
            me = 1 - me;
            made++;
        }
        res[4] += made;
    }
}
