"""Computer players for every game, and Reversi's exact endgame solver.

>>> import brett
>>> from brett.ai import MCTSPlayer, RandomPlayer
>>> game = brett.Reversi()
>>> player = MCTSPlayer(iterations=200, seed=1)
>>> move = player.choose(game)          # the game is not changed
>>> move in game.legal_moves
True
>>> best = player.analyse(game)[0]      # per-move statistics, best first
>>> best.visits > 0 and 0.0 <= best.value <= 1.0
True

* :class:`RandomPlayer`: a uniformly random legal move.
* :class:`MCTSPlayer`: Monte Carlo tree search in the compiled core, every game
  (``_mcts.py`` tells how it treats each).
* :class:`PUCTPlayer`: PUCT search with your evaluator (``_puct.py``).
* :class:`ReversiPlayer`: alpha-beta over learned patterns, then the exact solver
  (``_reversi.py``).
* :func:`solve`: an 8x8 Reversi position solved exactly (``_solve.py``).

Each module holds one player or search and imports only what is below it:
``_base`` (:class:`Player`, :class:`MoveStats`, :class:`SearchInfo`,
:class:`RandomPlayer`), then ``_mcts``, ``_puct``, ``_reversi`` and ``_solve``;
``_schuft_endgame`` holds Schuft's solo endgame tables, which Schuft's rules and
``MCTSPlayer`` read.
"""

from . import _mcts
from ._base import MoveStats, Player, RandomPlayer, SearchInfo
from ._mcts import MCTSPlayer
from ._puct import PUCTPlayer
from ._reversi import ReversiPlayer, ReversiSearchInfo
from ._solve import Solution, solve

LEVELS = _mcts.LEVELS
"""``MCTSPlayer.level(n)``: (iterations, seconds) per level; the first budget reached
ends the search, so the low levels are the same on any machine and the high ones
bounded in time."""

__all__ = ["LEVELS", "MCTSPlayer", "MoveStats", "PUCTPlayer", "Player", "RandomPlayer",
           "ReversiPlayer", "ReversiSearchInfo", "SearchInfo", "Solution", "solve"]
