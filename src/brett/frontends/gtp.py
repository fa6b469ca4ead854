"""``brett gtp``: brett as a GTP engine (the Go Text Protocol, version 2) for
Reversi, the protocol through which Quarry drives Othello engines and GRhino's
``gtp-rhino`` is driven.

The conventions follow those two programs (docs/engines.md): ``black`` moves
first; a vertex is a square as brett names it (``d3``: columns from ``a`` at the
left, rows from 1 at the top), answered in upper case (``D3``); a pass is
``pass``.  Controllers leave forced passes out (Quarry sends ``genmove white``
twice when Black has no move), so a ``play`` or ``genmove`` for the colour that
is not to move first plays the opponent's forced pass; ``genmove`` for a colour
without a move (the opponent is to move, or the game is over) answers ``pass``.

One command a line, answered ``= result`` or ``? message`` and an empty line
(``=12 ...`` when the command carried the id 12); nothing a controller sends
stops the engine but ``quit`` and the end of its input.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Callable
from typing import Optional, TextIO

from .. import __version__
from .._files import write_atomic
from .._reading import waiting_stdin
from ..errors import BrettError
from ..reversi import Reversi, ReversiMove
from ._engine import (
    LATENCY,
    SAFETY,
    SearchBudget,
    add_budget_arguments,
    budget_from_args,
    colour_name,
    empty_squares,
    must_pass,
    parse_colour,
    pass_if_forced,
    peer_square,
    read_lines,
    search,
)

NAME = "brett"
GAMES = ("othello", "reversi")
"""What ``set_game`` accepts (Quarry sends ``set_game Othello``, the name
``list_games`` gives)."""
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


class GtpError(Exception):
    """A command failed: the text of its ``? message`` answer."""


MAX_MOVE_SECONDS = 300.0
"""The longest a move's search takes, whatever the clock says (``time_settings
1e300 0 0`` would otherwise make a move wait for ever)."""


class Clock:
    """The time the controller gives (``time_settings``, ``time_left``) and a
    move's share of it, at most :data:`MAX_MOVE_SECONDS`."""

    def __init__(self) -> None:
        self.main = self.byo_time = 0.0
        self.byo_stones = 0
        self.settings_given = False
        self.left: dict[int, tuple[float, int]] = {}

    def settings(self, main: float, byo_time: float, byo_stones: int) -> None:
        self.main, self.byo_time, self.byo_stones = main, byo_time, byo_stones
        self.settings_given = True
        self.left.clear()

    def share(self, game: Reversi, player: int) -> Optional[float]:
        """The seconds this move may take, or None without a time limit."""
        if not self.settings_given and player not in self.left:
            return None
        unlimited = self.byo_time > 0 and self.byo_stones == 0  # GTP: no time limit
        if self.settings_given and (unlimited or self.main == self.byo_time == 0):
            return None
        time, stones = self.left.get(player, (self.main, 0))
        if stones > 0:  # in byo-yomi: this period's time over its stones
            share = time / stones
        else:  # main time over the moves this side still has to make
            share = time / max(1, (empty_squares(game) + 1) // 2)
            if self.byo_stones > 0:
                share += self.byo_time / self.byo_stones
        return min(MAX_MOVE_SECONDS, max(0.0, share * SAFETY - LATENCY))


class GtpEngine:
    """The protocol's state: one game, the clock, the budget of a search."""

    def __init__(self, new_game: Callable[[Optional[int]], Reversi],
                 budget: SearchBudget) -> None:
        self.new_game = new_game
        self.budget = budget
        self.size: Optional[int] = None   # boardsize, None: the options' own
        self.game = new_game(None)
        self.implied: set[int] = set()   # plies of the passes played for the controller
        self.komi = 0.0
        self.clock = Clock()
        self.quit = False
        self.commands: dict[str, Callable[[list[str]], str]] = {
            "protocol_version": lambda a: "2", "name": lambda a: NAME,
            "version": lambda a: __version__, "known_command": self.known_command,
            "list_commands": lambda a: "\n".join(self.commands), "quit": self.do_quit,
            "boardsize": self.boardsize, "clear_board": self.clear_board, "komi": self.set_komi,
            "play": self.play, "genmove": self.genmove, "reg_genmove": self.reg_genmove,
            "undo": self.undo, "showboard": lambda a: "\n" + str(self.game),
            "final_score": self.final_score, "time_settings": self.time_settings,
            "time_left": self.time_left, "loadsgf": self.loadsgf, "printsgf": self.printsgf,
            "list_games": lambda a: "Othello", "set_game": self.set_game,
        }

    # ---- one line in, one answer out
    def handle(self, line: Optional[str]) -> Optional[str]:
        """The answer to one line (with its closing empty line), None for a line
        without a command."""
        if line is None:
            return "? line too long\n\n"
        words = _CONTROL.sub("", line.replace("\t", " ")).split("#", 1)[0].split()
        if not words:
            return None
        ident = words.pop(0) if words[0].isascii() and words[0].isdigit() else ""
        if not words:
            return f"?{ident} syntax error: a command must follow the id\n\n"
        handler = self.commands.get(words[0])
        if handler is None:
            return f"?{ident} unknown command\n\n"
        try:
            result = handler(words[1:])
        except (GtpError, BrettError, ValueError, OverflowError) as exc:
            return f"?{ident} {_one_line(str(exc))}\n\n"
        except Exception as exc:  # a defect: say so, and keep answering the controller
            print(f"brett gtp: internal error in {words[0]!r}: {type(exc).__name__}: {exc}",
                  file=sys.stderr, flush=True)
            return f"?{ident} internal error: {_one_line(str(exc))}\n\n"
        return f"={ident} {result}".rstrip(" ") + "\n\n"

    # ---- administrative commands
    def known_command(self, args: list[str]) -> str:
        _arity(args, 1, "known_command COMMAND")
        return "true" if args[0] in self.commands else "false"

    def do_quit(self, args: list[str]) -> str:
        self.quit = True
        return ""

    def set_game(self, args: list[str]) -> str:
        _arity(args, 1, "set_game NAME")
        if args[0].lower() not in GAMES:
            raise GtpError("unsupported game")
        return ""

    # ---- the board
    def boardsize(self, args: list[str]) -> str:
        _arity(args, 1, "boardsize SIZE")
        size = _whole(args[0], "the size")
        try:
            game = self.new_game(size)
        except BrettError:
            raise GtpError("unacceptable size") from None
        self.size, self.game = size, game
        self.implied.clear()
        return ""

    def clear_board(self, args: list[str]) -> str:
        self.game = self.new_game(self.size)
        self.implied.clear()
        return ""

    def set_komi(self, args: list[str]) -> str:
        _arity(args, 1, "komi NUMBER")
        self.komi = _real(args[0], "komi", signed=True)
        return ""

    def play(self, args: list[str]) -> str:
        _arity(args, 2, "play COLOUR VERTEX")
        player, game = parse_colour(args[0]), self.game
        if game.is_over():
            raise GtpError("illegal move")
        passed = pass_if_forced(game, player)
        try:
            if game.turn != player:
                raise GtpError("illegal move")
            game.push(args[1].lower())
        except (BrettError, GtpError):
            if passed:
                game.pop()
            raise GtpError("illegal move") from None
        self._implied(passed)
        return ""

    def undo(self, args: list[str]) -> str:
        """Take back the controller's last move and the passes played for it."""
        stack = self.game.move_stack
        if not stack:
            raise GtpError("cannot undo")
        self.game.pop()
        while stack and len(self.game.move_stack) - 1 in self.implied:
            self.implied.discard(len(self.game.move_stack) - 1)
            self.game.pop()
        self.implied = {ply for ply in self.implied if ply < len(self.game.move_stack)}
        return ""

    def _implied(self, passed: bool) -> None:
        if passed:
            self.implied.add(len(self.game.move_stack) - 2)

    # ---- the computer's moves
    def genmove(self, args: list[str]) -> str:
        _arity(args, 1, "genmove COLOUR")
        player, game = parse_colour(args[0]), self.game
        if game.is_over():
            return "pass"
        passed = pass_if_forced(game, player)
        if game.turn != player:  # the opponent has a move: this colour has none now
            return "pass"
        move = game.parse_move("pass") if must_pass(game) else self._choose(game, player)
        game.push(move)
        self._implied(passed)
        return peer_square(move, "pass")

    def reg_genmove(self, args: list[str]) -> str:
        _arity(args, 1, "reg_genmove COLOUR")
        player, game = parse_colour(args[0]), self.game.copy()
        if game.is_over():
            return "pass"
        pass_if_forced(game, player)
        if game.turn != player or must_pass(game):
            return "pass"
        return peer_square(self._choose(game, player), "pass")

    def _choose(self, game: Reversi, player: int) -> ReversiMove:
        stats = search(self.budget.player(self.clock.share(game, player), game), game)
        move: ReversiMove = stats[0].move
        return move

    # ---- scores and time
    def final_score(self, args: list[str]) -> str:
        if not self.game.is_over():
            raise GtpError("cannot score")
        black, white = self.game.discs()
        margin = black - white - self.komi
        if margin == 0:
            return "0"
        return f"{'B' if margin > 0 else 'W'}+{abs(margin):g}"

    def time_settings(self, args: list[str]) -> str:
        _arity(args, 3, "time_settings MAIN_TIME BYO_YOMI_TIME BYO_YOMI_STONES")
        main, byo = (_real(a, "a time") for a in args[:2])
        self.clock.settings(main, byo, _whole(args[2], "the stones"))
        return ""

    def time_left(self, args: list[str]) -> str:
        _arity(args, 3, "time_left COLOUR TIME STONES")
        player = parse_colour(args[0])
        self.clock.left[player] = (_real(args[1], "the time"), _whole(args[2], "the stones"))
        return ""

    # ---- records
    def loadsgf(self, args: list[str]) -> str:
        from ..records import read

        if len(args) not in (1, 2):
            raise GtpError("syntax error: loadsgf FILE [MOVE_NUMBER]")
        last = _whole(args[1], "the move number") if len(args) == 2 else None
        if last is not None and last < 1:
            raise GtpError("syntax error: the move number counts from 1")
        try:
            records = read(args[0], "sgf")
            if not records:
                raise BrettError("the file holds no game")
            record = records[0]
            if record.game_name != "reversi":
                raise BrettError(f"a {record.game_name} record, not Reversi")
            game = Reversi.from_position(record.start)
            for move in record.moves[:None if last is None else last - 1]:
                game.push(str(move))
        except (BrettError, OSError, IndexError) as exc:
            raise GtpError(f"cannot load file: {exc}") from None
        self.game, self.size = game, game.size
        self.implied.clear()
        return ""

    def printsgf(self, args: list[str]) -> str:
        from ..records import Record
        from ..records.sgf import write_sgf

        if len(args) > 1:
            raise GtpError("syntax error: printsgf [FILE]")
        text = write_sgf([Record.from_game(self.game)])
        if not args:
            return "\n".join(line for line in text.splitlines() if line.strip())
        try:
            write_atomic(args[0], text)
        except OSError as exc:
            raise GtpError(f"cannot write {args[0]}: {exc.strerror or exc}") from None
        return ""


def _arity(args: list[str], count: int, usage: str) -> None:
    if len(args) != count:
        raise GtpError(f"syntax error: {usage}")


def _real(text: str, what: str, signed: bool = False) -> float:
    """A finite number argument, not negative unless ``signed``."""
    try:
        value = float(text)
    except ValueError:
        raise GtpError(f"syntax error: {what} is a number, not {text[:20]!r}") from None
    if not math.isfinite(value) or (value < 0 and not signed):
        raise GtpError(f"syntax error: {what} {text[:20]!r} is out of range")
    return value


def _whole(text: str, what: str) -> int:
    """A whole number argument, not negative."""
    if not (text.isascii() and text.isdigit()):
        raise GtpError(f"syntax error: {what} is a whole number, not {text[:20]!r}")
    if len(text) > 18:
        raise GtpError(f"syntax error: {what} {text[:20]!r}... is out of range")
    return int(text)


def _one_line(text: str) -> str:
    return " ".join(text.split())[:500] or "failed"


# ------------------------------------------------------------------ the command
def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_budget_arguments(parser)
    Reversi.cli_arguments(parser)


def game_factory(args: argparse.Namespace) -> Callable[[Optional[int]], Reversi]:
    """A new game from the command's Reversi options, at another size on request."""
    def new_game(size: Optional[int]) -> Reversi:
        options = argparse.Namespace(**vars(args))
        if size is not None:
            options.size = size
        return Reversi.from_cli(options)
    return new_game


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> None:
    budget = budget_from_args(args)
    new_game = game_factory(args)
    try:
        engine = GtpEngine(new_game, budget)
    except (ValueError, TypeError) as exc:
        raise BrettError(f"reversi options: {exc}") from None
    print(f"brett gtp: Reversi {engine.game.size}x{engine.game.size}, {budget.describe()}, "
          f"{colour_name(0)} moves first", file=err, flush=True)
    for line in read_lines(waiting_stdin()):
        answer = engine.handle(line)
        if answer:
            out.write(answer)
            out.flush()
        if engine.quit:
            break
