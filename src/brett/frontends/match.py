"""``brett match``: games between two engines, refereed by brett.

An engine is a command line that speaks GTP or the NBoard protocol (``gtp:CMD``,
``nboard:CMD``, or a bare command whose protocol is detected), or one of brett's
own players (``mcts``, ``mcts:SECONDS``, ``level:N``, ``alphabeta``,
``alphabeta:SECONDS``, ``random``).  Engines take
Black in turn; with ``--openings`` each opening is played twice, once with each
engine as Black.  brett keeps the game: every answer is checked, and an illegal
move, a refused legal move, no answer within ``--timeout``, a crash or a
resignation loses the game and is reported.  Forced passes are played by the
referee: GTP engines are not told (the Quarry convention, docs/engines.md), NBoard
engines get ``move PA``.  Each finished game is added to ``--output`` (SGF, GGF or
JSON, written whole each time), so Ctrl-C keeps every finished game.

The engines themselves (subprocesses, their protocols) are in ``_peers.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import math
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, TextIO

from ..errors import BrettError
from ..reversi import Reversi, ReversiMove
from ._engine import must_pass
from ._peers import Budget, Forfeit, MatchLog, ProcessSeat, Seat, make_seat
from .cli import Interrupted, Progress, terminate_as_interrupt

DEFAULT_SECONDS = 1.0
Z95 = 1.959964
"""The normal quantile of a two-sided 95% interval."""
OUTPUTS = ("sgf", "ggf", "json")


# ------------------------------------------------------------------ results
@dataclass
class Tally:
    """The results so far, from the first engine's side."""

    names: tuple[str, str]
    points: list[float] = field(default_factory=list)   # 1, 0.5, 0 a game
    forfeits: list[str] = field(default_factory=list)

    @property
    def games(self) -> int:
        return len(self.points)

    def counts(self) -> tuple[int, int, int]:
        """(wins, draws, losses) of the first engine."""
        return (self.points.count(1.0), self.points.count(0.5), self.points.count(0.0))

    def score(self) -> str:
        total = sum(self.points)
        return f"{_half(total)} - {_half(self.games - total)}"

    def summary(self) -> str:
        wins, draws, losses = self.counts()
        first, second = self.names
        lines = [f"{first} vs {second}: {self.games} game{'s' * (self.games != 1)}, "
                 f"{first} {wins} won, {draws} drawn, {losses} lost: {self.score()}"]
        if self.games:
            lines.append(f"score {100 * sum(self.points) / self.games:.1f}%, "
                         f"{elo_text(self.points)} for {first}")
        lines.append(f"forfeits: {len(self.forfeits)}" + "".join(f"\n  {f}" for f in
                                                                 self.forfeits))
        return "\n".join(lines)


def _half(x: float) -> str:
    return f"{x:g}"


def elo(fraction: float) -> float:
    """The Elo difference that expects this score (0 < fraction < 1)."""
    return -400 * math.log10(1 / fraction - 1)


def elo_interval(points: Sequence[float]) -> tuple[float, float, float]:
    """The Elo difference of the mean score and its 95% interval (normal
    approximation on the games' results); infinite at a score of 0 or 1."""
    n = len(points)
    mean = sum(points) / n
    spread = math.sqrt(max(0.0, sum(p * p for p in points) / n - mean * mean) / n)

    def bounded(x: float) -> float:
        return -math.inf if x <= 0 else math.inf if x >= 1 else elo(x)
    return bounded(mean), bounded(mean - Z95 * spread), bounded(mean + Z95 * spread)


def _signed(x: float) -> str:
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return f"{round(x) or 0:+d}"


def elo_text(points: Sequence[float]) -> str:
    middle, low, high = elo_interval(points)
    if math.isinf(middle):
        return f"Elo difference {'+' if middle > 0 else '-'}infinite (every game " \
               f"{'won' if middle > 0 else 'lost'})"
    if math.isinf(low) or math.isinf(high):
        return (f"Elo difference {_signed(middle)} (95% interval {_signed(low)} to "
                f"{_signed(high)})")
    return f"Elo difference {_signed(middle)} ± {(high - low) / 2:.0f} (95%)"


# ------------------------------------------------------------------ openings
@dataclass(frozen=True)
class Opening:
    """A start: a position string and the moves to play from it."""

    position: str
    moves: tuple[str, ...] = ()


def read_openings(path: str, plies: int, base: Reversi) -> list[Opening]:
    """Openings from a record file (the first ``plies`` moves of each game) or a
    text file: one a line, a position string or moves (``f5 d6 c3`` or
    ``f5d6c3``) from the start of ``base``; blank lines and ``#`` comments skipped."""
    from ..records import FORMATS, read

    # A .txt file is this function's own text (transcripts are a kind of it).
    if Path(path).suffix.lstrip(".").lower() in set(FORMATS) - {"txt"}:
        return [Opening(r.start, tuple(str(m) for m in r.moves[:plies]))
                for r in read(path) if r.game_name == "reversi"]
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BrettError(f"--openings {path}: cannot read it: {exc}") from None
    openings = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if line:
            openings.append(_opening_line(line, base, f"--openings {path}, line {number}"))
    return openings


def _opening_line(line: str, base: Reversi, where: str) -> Opening:
    try:
        return Opening(Reversi.from_position(line).position())
    except BrettError:
        pass
    game = base.copy()
    try:
        for word in line.split():
            game.push_transcript(word)
    except BrettError as exc:
        raise BrettError(f"{where}: neither a position nor moves: {exc}") from None
    return Opening(base.position(), tuple(str(m) for m in game.move_stack))


# ------------------------------------------------------------------ the referee
@dataclass
class GameResult:
    record: Any
    points: float        # for the first engine
    text: str
    forfeit: Optional[str] = None


def play_game(seats: tuple[Seat, Seat], start: Reversi, names: tuple[str, str],
              number: int, out_format: str, date: str,
              watch: Optional[Any] = None) -> GameResult:
    """One game: ``seats`` are (Black, White); the points are for ``seats[0]`` of the
    match, the caller maps them."""
    game = start.copy()
    forfeit: Optional[Forfeit] = None
    try:
        for player, seat in enumerate(seats):
            seat.new_game(game, player)
        while not game.is_over():
            if watch is not None:
                watch(game)
            player = game.turn
            if must_pass(game):
                move = game.parse_move("pass")
            else:
                move = _checked(game, player, seats[player].choose(game, player), seats[player])
            game.push(move)
            for other, seat in enumerate(seats):
                if not move.is_pass or seat.tells_passes:
                    seat.told(game, move, player, own=other == player)
    except Forfeit as exc:
        forfeit = exc
    return _result(game, forfeit, names, number, out_format, date)


def _checked(game: Reversi, player: int, answer: str, seat: Seat) -> ReversiMove:
    text = answer.strip().lower()
    if text == "resign":
        raise Forfeit(player, f"{seat.name} resigned")
    if text in ("pa", "pass"):
        text = "pass"
    try:
        move = game.parse_move(text)
        if move not in game.legal_moves:
            raise BrettError("not legal here")
    except BrettError:
        if isinstance(seat, ProcessSeat):
            seat.restart()   # its board may differ from ours from now on
        raise Forfeit(player, f"{seat.name} played the illegal move {answer.strip()[:20]!r}") \
            from None
    return move


def _result(game: Reversi, forfeit: Optional[Forfeit], names: tuple[str, str], number: int,
            out_format: str, date: str) -> GameResult:
    from ..records import Record

    black, white = game.discs()
    winner: Optional[int]
    if forfeit is not None:
        winner = 1 - forfeit.player
        how = f"{names[1 - forfeit.player]} wins: {forfeit.reason}"
    else:
        winner = None if black == white else 0 if black > white else 1
        how = "draw" if winner is None else f"{names[winner]} wins"
    headers = {"Black": names[0], "White": names[1], "Date": date,
               "Result": _result_text(out_format, black, white, winner, forfeit,
                                      len(game.squares))}
    if out_format != "ggf":
        headers.update(Event="brett match", Round=str(number))
        if forfeit is not None:
            headers["Comment"] = how
    record = Record.from_game(game, **headers)
    points = 0.5 if winner is None else 1.0 if winner == 0 else 0.0
    text = f"{names[0]} (black) {black} - {white} {names[1]} (white): {how}"
    return GameResult(record, points, text, None if forfeit is None else forfeit.reason)


def _result_text(out_format: str, black: int, white: int, winner: Optional[int],
                 forfeit: Optional[Forfeit], squares: int) -> str:
    """RE in the output's convention: GGF Black's disc difference (a forfeit as the
    whole board, flagged ``:t`` for time and ``:r`` otherwise); SGF ``B+12``, ``0``,
    ``W+T`` (time), ``W+R`` (resigned), ``W+F`` (any other forfeit)."""
    if out_format == "ggf":
        if forfeit is None:
            return f"{black - white:+.3f}"
        flag = "t" if "in time" in forfeit.reason else "r"
        return f"{'+' if winner == 0 else '-'}{squares:.3f}:{flag}"
    if winner is None:
        return "0"
    side = "BW"[winner]
    if forfeit is None:
        return f"{side}+{abs(black - white)}"
    if "resigned" in forfeit.reason:
        return f"{side}+R"
    return f"{side}+T" if "in time" in forfeit.reason else f"{side}+F"


# ------------------------------------------------------------------ the command
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("engines", nargs=2, metavar="ENGINE",
                        help="gtp:COMMAND, nboard:COMMAND, a command (protocol detected), "
                             "mcts, mcts:SECONDS, level:N, alphabeta, alphabeta:SECONDS "
                             "or random")
    parser.add_argument("--games", type=int, default=10, metavar="N",
                        help="the number of games (default 10)")
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--seconds", type=float, metavar="S",
                        help="seconds a move for GTP engines (time_settings) and 'mcts' "
                             f"(default {DEFAULT_SECONDS:g})")
    budget.add_argument("--iterations", type=int, metavar="N",
                        help="iterations a move for 'mcts' instead (GTP engines get no clock)")
    parser.add_argument("--depth", type=int, default=10, metavar="N",
                        help="the search depth of NBoard engines (default 10)")
    parser.add_argument("--timeout", type=float, metavar="T",
                        help="seconds an engine may take for a move before it loses the "
                             "game (default 10 + 5 times --seconds)")
    parser.add_argument("--openings", metavar="FILE",
                        help="openings, each played with both colours: a record file (the "
                             "start of each game) or a text file of positions or moves, "
                             "one a line")
    parser.add_argument("--opening-plies", type=int, default=8, metavar="N",
                        help="the moves taken from each game of a record file (default 8)")
    parser.add_argument("--output", metavar="FILE",
                        help="write the games to FILE (.sgf, .ggf or .json), after each game")
    parser.add_argument("--log", metavar="FILE",
                        help="append the dialogue with the engines and their stderr to FILE")
    Reversi.cli_arguments(parser)


def _budget(args: argparse.Namespace) -> Budget:
    seconds = args.seconds
    if seconds is None and args.iterations is None:
        seconds = DEFAULT_SECONDS
    if seconds is not None and not (0 < seconds <= 3600):
        raise BrettError("--seconds: above 0 and at most 3600")
    if args.iterations is not None and not 1 <= args.iterations <= 2**31 - 1:
        raise BrettError("--iterations: 1 to 2**31-1")
    timeout = args.timeout if args.timeout is not None else 10 + 5 * (seconds or 1.0)
    if not 0 < timeout <= 86400:
        raise BrettError("--timeout: above 0 and at most 86400")
    if not 1 <= args.depth <= 60:
        raise BrettError("--depth: 1 to 60")
    return Budget(seconds, args.iterations, timeout, args.depth)


def _openings(args: argparse.Namespace, base: Reversi) -> list[Opening]:
    if args.openings is None:
        return [Opening(base.position())]
    if not 0 <= args.opening_plies <= 1000:
        raise BrettError("--opening-plies: 0 to 1000")
    openings = read_openings(args.openings, args.opening_plies, base)
    if not openings:
        raise BrettError(f"--openings {args.openings}: no Reversi opening in it")
    for opening in openings:   # every one playable, before the first game
        _start_of(opening)
    return openings


def _start_of(opening: Opening) -> Reversi:
    game = Reversi.from_position(opening.position)
    for move in opening.moves:
        game.push(move)
    if game.is_over():
        raise BrettError(f"the opening {' '.join(opening.moves)[:60]} ends the game")
    return game


def _seed_of(args: argparse.Namespace, index: int) -> Optional[int]:
    return None if args.seed is None else args.seed * 2 + index


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> None:
    if not 1 <= args.games <= 1_000_000:
        raise BrettError("--games: 1 to 1000000")
    budget = _budget(args)
    base = Reversi.from_cli(args)
    openings = _openings(args, base)
    out_format = _output_format(args.output)
    _check_output(out_format, _start_of(openings[0]))
    with _log_file(args.log) as log, terminate_as_interrupt():
        seats: list[Seat] = []
        try:
            for index, spec in enumerate(args.engines):
                seats.append(make_seat(spec, budget, _seed_of(args, index), log,
                                       f"engine{index + 1}"))
            for seat in seats:
                seat.start()
            _match(args, (seats[0], seats[1]), openings, out_format, out, err)
        finally:
            for seat in seats:
                seat.close()


def _names(seats: tuple[Seat, Seat]) -> tuple[str, str]:
    first, second = seats[0].name, seats[1].name
    return (f"{first} (1)", f"{second} (2)") if first == second else (first, second)


def _match(args: argparse.Namespace, seats: tuple[Seat, Seat], openings: list[Opening],
           out_format: str, out: TextIO, err: TextIO) -> None:
    names = _names(seats)
    tally = Tally(names)
    records: list[Any] = []
    progress = Progress(err)
    date = datetime.date.today().isoformat()
    started = time.monotonic()
    state = {"game": 0, "ply": 0}

    def status() -> str:
        return (f"game {state['game']}/{args.games}, move {state['ply']}: "
                f"{names[0]} {tally.score()} {names[1]}, {len(tally.forfeits)} forfeits, "
                f"{time.monotonic() - started:.0f} s")

    def watch(game: Reversi) -> None:
        state["ply"] = len(game.move_stack)

    print(f"match: {names[0]} vs {names[1]}, {args.games} games", file=out, flush=True)
    try:
        with progress.ticking(status):
            for number in range(1, args.games + 1):
                state["game"] = number
                flip = (number - 1) % 2 == 1
                start = _start_of(openings[(number - 1) // 2 % len(openings)])
                order = (seats[1], seats[0]) if flip else seats
                shown = (names[1], names[0]) if flip else names
                for seat in order:
                    seat.start()
                result = play_game(order, start, shown, number, out_format, date, watch)
                tally.points.append(1 - result.points if flip else result.points)
                if result.forfeit:
                    tally.forfeits.append(f"game {number}: {result.forfeit}")
                records.append(result.record)
                if args.output:
                    _write(records, args.output, out_format)
                print(f"game {number}: {result.text}  [{names[0]} {tally.score()} "
                      f"{names[1]}]", file=out, flush=True)
    except KeyboardInterrupt:
        progress.done()
        print(tally.summary(), file=out, flush=True)
        kept = f", kept in {args.output}" if args.output and records else ""
        raise Interrupted(f"{tally.games} games finished{kept}") from None
    except BrettError:   # an engine that cannot go on: what was played stands
        progress.done()
        print(tally.summary(), file=out, flush=True)
        raise
    finally:
        progress.done()
    print(tally.summary(), file=out, flush=True)
    if args.output:
        print(f"{len(records)} games written to {args.output}", file=out, flush=True)


def _output_format(path: Optional[str]) -> str:
    if path is None:
        return "sgf"
    kind = Path(path).suffix.lstrip(".").lower()
    if kind not in OUTPUTS:
        raise BrettError(f"--output {path}: a .sgf, .ggf or .json file")
    return kind


def _check_output(kind: str, game: Reversi) -> None:
    """Refuse, before any game, a format that cannot hold the games (GGF: no
    blocked squares, no octagon)."""
    from ..records import Record
    from ..records.ggf import write_ggf

    if kind == "ggf":
        write_ggf([Record.from_game(game)])


def _write(records: list[Any], path: str, kind: str) -> None:
    """Every game so far, whole or not at all (records.write writes beside the file
    and renames)."""
    from ..records import write

    write(records, path, kind)


@contextlib.contextmanager
def _log_file(path: Optional[str]) -> Iterator[Optional[MatchLog]]:
    if path is None:
        yield None
        return
    try:
        with open(path, "a", encoding="utf-8", buffering=1) as handle:
            yield MatchLog(handle)
    except OSError as exc:
        raise BrettError(f"--log {path}: {exc.strerror or exc}") from None
