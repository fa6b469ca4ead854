"""What brett's text engines (``brett gtp``, ``brett nboard``) and the match
runner (``brett match``) share: bounded line reading, Reversi squares as the
other programs write them, forced passes that a controller leaves out, and the
search budget of a move.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Iterator
from typing import IO, Any, Optional

from .._reading import bounded_lines
from ..errors import BrettError
from ..reversi import Reversi, ReversiMove

MAX_LINE = 1 << 20
"""The longest command line read (a GGF game of ``set game`` is a few KB)."""

COLOURS = {"b": 0, "black": 0, "w": 1, "white": 1}
"""Colour words of GTP (any case): Black (player 0) moves first, as in brett."""

DEFAULT_SECONDS = 1.0
"""A move's search without ``--level`` or ``--seconds`` and without a clock."""

SAFETY = 0.9
"""The part of the clock's share of a move that the search may use."""

LATENCY = 0.05
"""Seconds kept for answering (start-up of the search, the pipe)."""


def read_lines(stream: IO[bytes], limit: int = MAX_LINE) -> Iterator[Optional[str]]:
    """Each line of ``stream`` without its end of line, decoded as UTF-8 (bad bytes
    replaced), or None for a line longer than ``limit`` (which is skipped whole:
    memory stays bounded whatever the controller sends)."""
    for raw in bounded_lines(stream, limit):
        yield None if raw is None else raw.decode("utf-8", "replace").rstrip("\r\n")


def colour_name(player: int) -> str:
    return ("black", "white")[player]


def parse_colour(text: str) -> int:
    try:
        return COLOURS[text.lower()]
    except KeyError:
        raise BrettError(f"{text[:20]!r} is not a colour: expected black, white, b or w") \
            from None


def must_pass(game: Reversi) -> bool:
    """The player to move has no move but the pass."""
    moves = iter(game.legal_moves)
    first = next(moves, None)
    return first is not None and first.is_pass


def pass_if_forced(game: Reversi, player: int) -> bool:
    """Play the forced pass of the opponent when ``player`` is asked to move: GTP
    controllers of Othello (Quarry) and GRhino leave forced passes out, the next
    command simply names the other colour.  True if a pass was played."""
    if not game.is_over() and game.turn != player and must_pass(game):
        game.push("pass")
        return True
    return False


def peer_square(move: ReversiMove, pass_text: str) -> str:
    """A move as GTP and NBoard peers write it: ``D3`` (upper case, as GRhino and
    Quarry), or ``pass_text`` for a pass."""
    return pass_text if move.is_pass else str(move).upper()


def empty_squares(game: Reversi) -> int:
    black, white = game.discs()
    return len(game.squares) - black - white


class SearchBudget:
    """How long a move's tree search may run: ``--level N`` (the iterations and
    the seconds of ``MCTSPlayer.level(N)``), ``--seconds S``, or by default
    :data:`DEFAULT_SECONDS`; a clock's share of a move (``seconds_cap``) replaces
    the default and shortens the others."""

    def __init__(self, level: Optional[int] = None, seconds: Optional[float] = None,
                 threads: int = 1, seed: Optional[int] = None) -> None:
        from ..ai import LEVELS, MCTSPlayer

        if level is not None and seconds is not None:
            raise BrettError("give --level or --seconds, not both")
        self.iterations: Optional[int] = None
        self.seconds = DEFAULT_SECONDS
        self.explicit = level is not None or seconds is not None
        if level is not None:
            if not isinstance(level, int) or not 1 <= level <= 10:
                raise BrettError(f"--level {level}: a whole number from 1 to 10")
            self.iterations, self.seconds = LEVELS[level]
        elif seconds is not None:
            self.seconds = seconds
        MCTSPlayer(seconds=self.seconds, threads=threads)  # checks seconds and threads
        self.threads = threads
        self._seeds = random.Random(seed)
        self.seeded = seed is not None

    def player(self, seconds_cap: Optional[float] = None, game: Optional[Reversi] = None) -> Any:
        """A fresh player for one move: the alpha-beta ``ReversiPlayer`` for standard
        8x8 ``game`` by time (``--seconds``, the default or a clock), else (``--level``,
        other boards, no game given) an ``MCTSPlayer``."""
        from ..ai import MCTSPlayer, ReversiPlayer

        seconds = self.seconds
        if seconds_cap is not None:
            seconds = min(seconds, seconds_cap) if self.explicit else seconds_cap
        seed = self._seeds.getrandbits(63) if self.seeded else None
        if self.iterations is None and game is not None and alpha_beta_plays(game):
            return ReversiPlayer(seconds=max(seconds, 0.001), seed=seed)
        return MCTSPlayer(seconds=max(seconds, 0.001), iterations=self.iterations, seed=seed,
                          threads=self.threads)

    def describe(self) -> str:
        parts = [f"{self.iterations:,} iterations or "] if self.iterations else []
        return "".join(parts) + f"{self.seconds:g} s a move"


def alpha_beta_plays(game: Reversi) -> bool:
    """Whether ``ReversiPlayer`` plays this game: 8x8, no holes, not anti-Reversi."""
    return game.size == 8 and len(game.squares) == 64 and not game.anti


def add_budget_arguments(parser: argparse.ArgumentParser) -> None:
    choice = parser.add_mutually_exclusive_group()
    choice.add_argument("--level", type=int, metavar="N",
                        help="play at level N (1 weakest to 10 strongest, as "
                             "MCTSPlayer.level(N)); a clock can only shorten it")
    choice.add_argument("--seconds", type=float, metavar="S",
                        help="search S seconds a move (default 1, or the clock's share "
                             "of the time left when the controller sets one)")
    parser.add_argument("--threads", type=int, default=1, metavar="N",
                        help="search threads (default 1)")


def budget_from_args(args: argparse.Namespace) -> SearchBudget:
    return SearchBudget(level=args.level, seconds=args.seconds, threads=args.threads,
                        seed=getattr(args, "seed", None))


def search(player: Any, game: Reversi) -> list[Any]:
    """``player.analyse(game)`` (best first) in the main thread, where an
    interrupted search can only be Ctrl-C: that quits."""
    stats: list[Any] = player.analyse(game)
    if player.last_search.interrupted:
        raise KeyboardInterrupt
    return stats
