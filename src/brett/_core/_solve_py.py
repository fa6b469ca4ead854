"""The exact Reversi endgame solver in plain Python: the readable oracle that the
compiled twin (``_solve_c``, over ``ext/brett_endgame.h``) is tested against.

``solve(black, white, blocked, player, alpha, beta, all_best=True)`` takes an 8x8 position
(ints as bit sets, bit ``row * 8 + col``; ``blocked``: the holes, which are
neither a disc nor empty and end every line) and a window, and returns
``(score, best, nodes)``:

* ``score``: the final disc difference for the player to move, empty squares
  going to the winner, clamped to ``[alpha, beta]``: strictly inside, the exact
  score; ``alpha``, at most that; ``beta``, at least that;
* ``best``: the core moves that reach it, ascending (squares, or ``PASS`` for a
  forced pass; empty once the game is over; every move when the score fails
  low, as none is then known to be better; with ``all_best`` false only the
  first found);
* ``nodes``: the positions searched (not comparable between the twins).

A plain negamax with alpha-beta and no other technique: fine for a dozen empty
squares, hopeless for twenty.  A ``brett.Stopper`` ends it; Ctrl-C too.
"""

from __future__ import annotations

from ._stop import check as stop_check

INF = 65
"""Beyond every score: the window (-INF, INF) asks for the exact score."""

PASS = 64
"""The core move of a forced pass on the 8x8 board."""

FULL = (1 << 64) - 1
NOT_A = 0xFEFEFEFEFEFEFEFE      # a shift towards column h must not wrap onto column a
NOT_H = 0x7F7F7F7F7F7F7F7F

# (shift, mask after the shift): left shifts raise the square index.
DIRECTIONS = ((1, NOT_A), (9, NOT_A), (8, FULL), (7, NOT_H),
              (-1, NOT_H), (-9, NOT_H), (-8, FULL), (-7, NOT_A))

POLL = 1024
"""Nodes between two looks at the thread's stoppers."""


def _shift(x: int, d: int, mask: int) -> int:
    return ((x << d) & FULL & mask) if d > 0 else ((x >> -d) & mask)


def moves(me: int, opp: int, empty: int) -> int:
    """The empty squares where ``me`` outflanks ``opp``."""
    found = 0
    for d, mask in DIRECTIONS:
        run = _shift(me, d, mask) & opp
        while run:
            step = _shift(run, d, mask)
            found |= step & empty
            run = step & opp
    return found


def flips(me: int, opp: int, sq: int) -> int:
    """The discs of ``opp`` that a disc of ``me`` on ``sq`` flips."""
    flipped = 0
    for d, mask in DIRECTIONS:
        run = 0
        x = _shift(1 << sq, d, mask)
        while x & opp:
            run |= x
            x = _shift(x, d, mask)
        if x & me:
            flipped |= run
    return flipped


def _squares(bits: int) -> list[int]:
    return [sq for sq in range(64) if bits >> sq & 1]


class _Search:
    def __init__(self, playable: int) -> None:
        self.playable = playable
        self.squares = bin(playable).count("1")
        self.nodes = 0

    def final(self, me: int, empty: int) -> int:
        """The score of a finished game for me: the difference, empties to the winner."""
        n = bin(empty).count("1")
        d = 2 * bin(me).count("1") - (self.squares - n)
        return d + n if d > 0 else d - n if d < 0 else 0

    def negamax(self, me: int, opp: int, alpha: int, beta: int) -> int:
        self.nodes += 1
        if self.nodes % POLL == 0:
            stop_check()
        empty = self.playable & ~(me | opp)
        mine = moves(me, opp, empty)
        if not mine:
            if not moves(opp, me, empty):
                return self.final(me, empty)
            return -self.negamax(opp, me, -beta, -alpha)
        best = -INF
        for sq in _squares(mine):
            f = flips(me, opp, sq)
            v = -self.negamax(opp ^ f, me ^ f ^ (1 << sq), -beta, -alpha)
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
                    if v >= beta:
                        break
        return best


def solve(black: int, white: int, blocked: int, player: int, alpha: int,
          beta: int, all_best: bool = True) -> tuple[int, list[int], int]:
    """``(score, best core moves, nodes)`` for the player to move, searched in the
    window (alpha, beta); see the module's documentation."""
    if player not in (0, 1):
        raise ValueError(f"player {player}: expected 0 or 1")
    if any(not 0 <= x <= FULL for x in (black, white, blocked)):
        raise ValueError("bitboards are 64-bit")
    if black & white or (black | white) & blocked:
        raise ValueError("a square holds two things")
    if not -INF <= alpha < beta <= INF:
        raise ValueError(f"window ({alpha}, {beta}): expected -{INF} <= alpha < beta <= {INF}")
    me, opp = (black, white) if player == 0 else (white, black)
    search = _Search(FULL & ~blocked)
    empty = search.playable & ~(me | opp)
    mine = moves(me, opp, empty)
    best: list[int] = []
    if not mine:
        if not moves(opp, me, empty):
            score = search.final(me, empty)
        else:
            score = -search.negamax(opp, me, -beta, -alpha)
            best.append(PASS)
    else:
        score = search.negamax(me, opp, alpha, beta)
        for sq in _squares(mine):
            if _reaches(search, me, opp, sq, score, alpha, beta):
                best.append(sq)
                if not all_best:
                    break
    return min(max(score, alpha), beta), best, search.nodes


def _reaches(search: _Search, me: int, opp: int, sq: int, score: int, alpha: int,
             beta: int) -> bool:
    """Whether the move to sq reaches the root's score (every move does when the
    score fails low, as none is then known to be better)."""
    if score <= alpha:
        return True
    f = flips(me, opp, sq)
    child = (opp ^ f, me ^ f ^ (1 << sq))
    if score >= beta:
        return -search.negamax(*child, -beta, 1 - beta) >= beta
    return -search.negamax(*child, -score - 1, 1 - score) == score
