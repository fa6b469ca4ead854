"""What every computer player shares: :class:`Player` (``choose``), the
per-move statistics and search summaries they report, :class:`RandomPlayer`, and
the check of a positive budget."""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass
from typing import Any, Generic, Optional, TypeVar

from .._checks import seed_value
from ..errors import BrettError
from ..game import Game

MoveT = TypeVar("MoveT")


@dataclass(frozen=True)
class MoveStats(Generic[MoveT]):
    """One move of :meth:`MCTSPlayer.analyse`: how often the search tried it and
    its mean value for the player to move (1 win, 0 loss, 0.5 draw)."""

    move: MoveT
    visits: int
    value: float
    turns: Optional[float] = None
    """Schuft endgames the tables know (at most three pieces left, none out): the
    expected own turns still needed after the move, played alone as fast as the
    dice allow.  No search runs then: ``visits`` is 0 and ``value`` is
    ``1 / (1 + turns)`` (1 for the move that wins)."""


@dataclass(frozen=True)
class SearchInfo:
    """What the last search of a player did."""

    iterations: int
    seconds: float
    nodes: int
    threads: int
    interrupted: bool

    @property
    def rate(self) -> float:
        """Iterations per second of wall time."""
        return self.iterations / self.seconds if self.seconds > 0 else 0.0


class Player:
    """What a computer player offers: :meth:`choose` a move for the player to move."""

    def choose(self, game: Game[MoveT]) -> MoveT:  # pragma: no cover - interface
        raise NotImplementedError

    @staticmethod
    def _check(game: Any) -> Game[Any]:
        if not isinstance(game, Game):
            raise BrettError(f"expected a brett game, got {type(game).__name__}")
        if game.is_over():
            raise BrettError("the game is over: there is no move to choose")
        game._refuse_pending("choose a move")
        return game


class RandomPlayer(Player):
    """Plays a uniformly random legal move (a chance outcome by its probability);
    a Phutball jump is drawn step by step, as ``random_playout`` does."""

    def __init__(self, seed: Optional[int] = None) -> None:
        self._rng = random.Random(seed_value(seed))
        self._lock = threading.Lock()

    def choose(self, game: Game[MoveT]) -> MoveT:
        game = self._check(game)
        with self._lock:
            rng = self._rng.getrandbits(64)
        cm, _ = game._core.random_move(rng)
        return game._move_from_core(cm)  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return "RandomPlayer()"


def _positive(value: Any, name: str, zero: bool = False) -> float:
    try:  # a number, not its notation: float("1") would pass
        number = float("nan") if isinstance(value, (str, bytes, bytearray)) else float(value)
    except (TypeError, ValueError, OverflowError):
        number = float("nan")
    if isinstance(value, bool) or not (number >= 0 if zero else number > 0) \
            or number == float("inf"):
        raise BrettError(f"{name}={value!r}: expected a {'non-negative' if zero else 'positive'}"
                         " finite number")
    return number
