"""Results as data: what a record says about how its game ended.

Formats write results as text, each its own way: GGF ``RE[+12.000]`` (the first
player's disc difference, with flags ``:r`` resigned, ``:t`` time, ``:s``
agreed, and for komi games the difference less ``KM``), SGF ``RE[B+12]``,
``RE[W+R]``, ``RE[0]``, ``RE[Draw]``, ``RE[Void]``, ``RE[?]``, WTHOR Black's
final disc count.  The headers keep the text verbatim; :func:`parse_result`
reads any of them as a :class:`Result`, and :func:`check_result` compares it
with the final board::

    >>> from brett.records.result import parse_result
    >>> parse_result("-40.00:r")
    Result(winner=1, score=-40.0, ending='resigned', text='-40.00:r')
    >>> parse_result("B+12").score, parse_result("W+R").ending
    (12.0, 'resigned')
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from ..errors import BrettError, InvalidRecordError

if TYPE_CHECKING:
    from .record import Record

ENDINGS = ("normal", "resigned", "time", "agreed", "unknown")
"""How a game ended: played out, resigned, lost on time, agreed (a score both
players accepted, GGF's ``:s``), or not known."""
_GGF = re.compile(r"([+-]?[0-9]{1,4}(?:\.[0-9]{0,6})?)(?::([a-z]))?")
_FLAGS = {None: "normal", "r": "resigned", "t": "time", "s": "agreed"}
_SGF = re.compile(r"([BW])\+([0-9]{1,4}(?:\.[0-9]{0,6})?|R|Resign|T|Time|F|Forfeit)?",
                  re.IGNORECASE)
_SGF_ENDINGS = {"r": "resigned", "resign": "resigned", "t": "time", "time": "time",
                "f": "agreed", "forfeit": "agreed"}
_TOLERANCE = 0.005  # komi and GGF scores come with two or three decimals


@dataclass(frozen=True)
class Result:
    """A recorded result: who won (0 the first player, 1 the second, None for a
    draw or when not known), the score for the first player (Reversi: disc
    difference, komi taken off; None when the record gives none), how the game
    ended (one of :data:`ENDINGS`) and the text it was read from."""

    winner: Optional[int]
    score: Optional[float]
    ending: str
    text: str

    @property
    def is_draw(self) -> bool:
        return self.winner is None and self.ending != "unknown"


def parse_result(text: str) -> Result:
    """The :class:`Result` a result text gives (GGF or SGF style); an unknown
    text is a result whose ending is ``"unknown"``, never an error."""
    value = text.strip()
    ggf = _GGF.fullmatch(value)
    if ggf and ggf.group(2) in _FLAGS:
        difference = float(ggf.group(1))
        return Result(_winner(difference), difference, _FLAGS[ggf.group(2)], text)
    sgf = _SGF.fullmatch(value)
    if sgf:
        winner = "BW".index(sgf.group(1).upper())
        how = (sgf.group(2) or "").lower()
        if how in _SGF_ENDINGS:
            return Result(winner, None, _SGF_ENDINGS[how], text)
        score = (-float(how) if winner else float(how)) if how else None
        return Result(winner, score, "normal", text)
    if value.lower() in ("draw", "jigo"):
        return Result(None, 0.0, "normal", text)
    return Result(None, None, "unknown", text)


def result_text(text: str, style: str) -> str:
    """A result text in the notation of ``style``, ``"sgf"`` (``B+12``, ``W+R``,
    ``0``) or ``"ggf"`` (``+12.000``, ``-40.000:r``), read from either: a text
    already in that notation, or one that says too little to write in it (GGF
    has no resignation without a score; an unknown text), is kept verbatim.

    >>> result_text("+57.000", "sgf"), result_text("-40.00:r", "sgf")
    ('B+57', 'W+R')
    >>> result_text("W+2", "ggf"), result_text("Draw", "ggf"), result_text("W+R", "ggf")
    ('-2.000', '+0.000', 'W+R')
    """
    value = text.strip()
    ggf = _GGF.fullmatch(value)
    is_ggf = bool(ggf and ggf.group(2) in _FLAGS)
    is_sgf = bool(_SGF.fullmatch(value)) or value.lower() in ("0", "draw", "jigo", "void",
                                                              "?")
    if (style == "sgf" and is_sgf) or (style == "ggf" and is_ggf):
        return text
    result = parse_result(value)
    if result.ending == "unknown":
        return text
    if style == "sgf":
        if result.winner is None:
            return "0"
        letter = "BW"[result.winner]
        if result.ending in ("resigned", "time"):
            return f"{letter}+{'R' if result.ending == 'resigned' else 'T'}"
        return letter if result.score is None else f"{letter}+{abs(result.score):g}"
    if result.score is None:
        return text
    flag = {"resigned": ":r", "time": ":t", "agreed": ":s"}.get(result.ending, "")
    return f"{result.score:+.3f}{flag}"


def _winner(score: float) -> Optional[int]:
    return None if abs(score) < _TOLERANCE else 0 if score > 0 else 1


def recorded_result(record: Record) -> Optional[Result]:
    """A record's result: its ``Result`` header, else WTHOR's ``BlackScore``
    (Black's disc count with the empty squares given to the winner); None when
    it has neither."""
    headers = record.headers
    if "Result" in headers:
        return parse_result(headers["Result"])
    count = headers.get("BlackScore")
    if count is None or record.game_name != "reversi" or not count.isascii() or \
            not count.isdigit() or len(count) > 3:
        return None
    squares = sum(len(row) - row.count("#") for row in record.start.split()[0].split("/"))
    score = 2 * int(count) - squares
    return Result(_winner(score), float(score), "normal", count)


def komi(headers: Mapping[str, str]) -> float:
    """The komi of a record (``KM``, as GGF and SGF write it): taken off the
    first player's disc difference; 0 when none or not a number."""
    try:
        value = float(headers.get("KM", "0"))
    except ValueError:
        return 0.0
    return value if math.isfinite(value) else 0.0


def check_result(record: Record) -> list[str]:
    """How ``record``'s result disagrees with its final board (see
    :meth:`brett.records.Record.check_result`)."""
    result = record.result
    if result is None or result.ending in ("unknown", "resigned", "time"):
        return []
    try:
        game = record.game()
    except BrettError as exc:
        raise InvalidRecordError(f"the result cannot be checked: {exc}") from None
    outcome = game.outcome()
    said = f"the result {result.text!r}"
    if outcome is None:
        if result.ending == "agreed":
            return []
        return [f"{said} is recorded but the game is not over ({len(game.move_stack)} "
                f"moves, {game.player_name(game.current_player())} to move)"]
    winner = outcome.winners[0] if len(outcome.winners) == 1 else None
    scores = _board_scores(record, game)
    if scores is None:  # a game without disc counts: only the winner is known
        if winner != result.winner:
            return [f"{said} gives {_who(game, result.winner)}, the board "
                    f"{_who(game, winner)}"]
        return []
    scores = [s - komi(record.headers) for s in scores]
    if result.score is None:
        expected = _winner(scores[0])
        if expected != result.winner:
            return [f"{said} gives {_who(game, result.winner)}, the board "
                    f"{_who(game, expected)} ({_signed(scores[0])})"]
        return []
    if any(abs(result.score - s) < _TOLERANCE for s in scores):
        return []
    return [f"{said} gives {_who(game, result.winner)} ({_signed(result.score)}), the "
            f"board {_who(game, _winner(scores[0]))} ({_signed(scores[0])})"]


def _board_scores(record: Record, game: Any) -> Optional[list[float]]:
    """The first player's scores a right result may give, or None for games
    without discs: Reversi's disc difference with the empty squares given to
    the winner (GGS, WTHOR), and as it stands (for the text results of other
    programs).  A WTHOR count allows only the first."""
    if record.game_name != "reversi":
        return None
    black, white = game.discs()
    if getattr(game, "anti", False):  # fewer discs win
        black, white = white, black
    empties = game.position().split()[0].count("-")
    raw = float(black - white)
    full = raw + (empties if raw > 0 else -empties if raw < 0 else 0)
    if "Result" not in record.headers:
        return [full]
    return [full, raw] if full != raw else [full]


def _who(game: Any, winner: Optional[int]) -> str:
    return "a draw" if winner is None else f"a win for {game.player_name(winner)}"


def _signed(score: float) -> str:
    return f"{score:+g}"


__all__ = ["ENDINGS", "Result", "check_result", "komi", "parse_result", "recorded_result",
           "result_text"]
