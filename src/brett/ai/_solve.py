"""The exact Reversi endgame solver: :func:`solve` and its :class:`Solution`."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Generic, Optional

from .._checks import as_int
from ..errors import BrettError
from ..game import Game, load_cores
from ._base import MoveT
from ._reversi import _POOL, _alphabeta

_solve = load_cores("solve")

SOLVE_INF = 65
"""Beyond every score: the default window (-SOLVE_INF, SOLVE_INF) is exact."""


@dataclass(frozen=True)
class Solution(Generic[MoveT]):
    """What :func:`solve` found.

    ``score``: the final disc difference with best play by both sides, from the
    view of the player to move (their discs minus the opponent's, empty squares
    to the winner, as in tournaments).  ``bound``: ``"exact"``, or with a window
    ``"upper"`` (the true score is at most ``score``, the window's low end) or
    ``"lower"`` (at least ``score``, its high end).  ``best_moves``: every move
    that reaches the score (for a bound: every move proven to reach it, or every
    move when all fail low), in square order, or one of them with
    ``all_best=False``; ``[pass]`` when the player must pass, ``[]`` when the
    game is over.  ``nodes``: positions searched.
    """

    score: int
    best_moves: list[MoveT]
    nodes: int
    seconds: float
    bound: str = "exact"


def solve(game: Game[MoveT], *, exact: bool = True,
          window: Optional[tuple[int, int]] = None,
          all_best: bool = True) -> Solution[MoveT]:
    """Solve an 8x8 Reversi position exactly: the final disc difference with
    perfect play and every move that achieves it (the game is not changed).

    >>> import brett
    >>> from brett.ai import solve
    >>> game = brett.Reversi.from_position(
    ...     "xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxoo/xxxxxxo-/xxxxxx-- x")
    >>> solution = solve(game)
    >>> solution.score, [str(m) for m in solution.best_moves]
    (64, ['h7', 'g8'])

    * ``exact=False``: a win/draw/loss solve (much faster): the window (-1, 1),
      so ``score`` is exact only for a draw (0); otherwise it is 1 with bound
      ``"lower"`` (a win) or -1 with bound ``"upper"`` (a loss).
    * ``window=(alpha, beta)``, ``-65 <= alpha < beta <= 65``: a score strictly
      inside is exact; else ``score`` is the end it failed on (see
      :class:`Solution`); a narrow window is faster.
    * ``all_best=False``: one best move, not every one (as Edax reports): the
      search's own best move is checked first, so this costs little beyond the
      score, while proving every other move can cost far more (FFO #59: +64 in a
      fraction of a second, its other best moves out of reach).
    * Board: 8x8 Reversi, holes allowed (neither side's, not empty: a hole ends
      lines and counts for nobody).  Other sizes, the octagon and anti-Reversi
      raise :class:`~brett.BrettError`, as does any other game.
    * Time grows about threefold per empty square: 20 empties take under a
      second, 24 some ten seconds, 30 minutes.  Any position is accepted;
      Ctrl-C or a :class:`~brett.Stopper` held by the calling thread ends the
      search within milliseconds (``KeyboardInterrupt`` / ``Stopped``).
    * The compiled solver (``ext/brett_endgame.h``, without the GIL, so threads
      solve in parallel; its moves ordered by :class:`ReversiPlayer`'s pattern
      evaluation) runs when brett was built with extensions, else the
      plain-Python twin, which suits a dozen empties at most.
    """
    if not isinstance(game, Game):
        raise BrettError(f"solve() needs a brett game, got {type(game).__name__}")
    size, board = getattr(game, "size", None), getattr(game, "board", None)
    if game.game_name != "reversi" or board != "square" or size != 8:
        shape = (game.game_name if game.game_name != "reversi"
                 else "the octagon" if board != "square" else f"{size}x{size} Reversi")
        raise BrettError(f"solve() solves 8x8 Reversi only, not {shape}")
    if getattr(game, "anti", False):
        raise BrettError("solve() does not solve anti-Reversi (fewer discs win)")
    for name, flag in (("exact", exact), ("all_best", all_best)):
        if not isinstance(flag, bool):
            raise BrettError(f"{name}={flag!r}: expected True or False")
    if window is None:
        alpha, beta = (-SOLVE_INF, SOLVE_INF) if exact else (-1, 1)
    elif not exact:
        raise BrettError("give exact=False or a window, not both")
    else:
        if not isinstance(window, (tuple, list)) or len(window) != 2:
            raise BrettError(f"window={window!r}: expected (alpha, beta)")
        alpha = as_int(window[0], "window's alpha", -SOLVE_INF, SOLVE_INF - 1)
        beta = as_int(window[1], "window's beta", alpha + 1, SOLVE_INF)
    _, black, white, blocked, player = game._core.get_state()
    start = time.perf_counter()
    if _solve.cython is None:
        score, best, nodes = _solve.python.solve(black, white, blocked, player, alpha, beta,
                                                 all_best)
    else:
        # The pattern evaluation (an Evaluator's, lent by ReversiPlayer's pool)
        # orders the compiled solver's moves.
        evaluator = _POOL.take("cython") if _alphabeta.cython is not None else None
        try:
            score, best, nodes = _solve.cython.solve(black, white, blocked, player, alpha,
                                                     beta, all_best, evaluator)
        finally:
            if evaluator is not None:
                _POOL.give("cython", evaluator)
    seconds = time.perf_counter() - start
    bound = "upper" if score <= alpha else "lower" if score >= beta else "exact"
    moves = [game._move_from_core(cm) for cm in best]
    return Solution(score, moves, nodes, seconds, bound)
