"""``brett nboard``: brett as an engine of the NBoard protocol, which the NBoard
Othello GUI (Chris Welty) speaks to its engines, and Edax and NTest implement.

The GUI sends one command a line; the engine answers only where the protocol
asks for it (docs/engines.md lists what brett sends):

* ``nboard VERSION``: the session starts; brett answers ``set myname brett``.
* ``set depth N``: the search depth (1-60); without ``--level`` or ``--seconds``
  it sets the level of the tree search, ``ceil(N / 2)`` up to 10.
* ``set game GGF``: the position at the end of the game (any board NBoard and GGF
  hold: sizes 4-16, set-up positions).
* ``set contempt N``: accepted (brett scores a draw as half a win).
* ``move F5[/EVAL/TIME]`` (or a bare ``F5``, as NBoard 1.1 sent): a move played,
  ``PA`` a pass.
* ``hint N``: ``search MOVE EVAL 0 DEPTH TEXT`` for the N best moves, between
  ``status brett is thinking`` and ``status``.
* ``go``: ``=== MOVE/EVAL/TIME`` (the board is not changed: the GUI sends the
  move back with ``move``).
* ``ping N``: stops a running search (its result is sent first), then ``pong N``.
* ``learn``: ``learned`` (brett keeps no book).
* ``quit``, or the end of the input (after the running search).

EVAL is from the side to move: the search's expected result rescaled to the
disc range (+64 a sure win on 8x8, 0 even, -64 a sure loss), not a disc count.
A command that cannot be done (a move that is not legal, a GGF game that does
not parse) changes nothing and is reported as ``status error: ...`` and on
stderr; a command the protocol does not know is ignored, as the protocol asks.
"""

from __future__ import annotations

import argparse
import threading
from typing import Any, Optional, TextIO

from .._reading import waiting_stdin
from ..errors import BrettError
from ..reversi import Reversi
from ._engine import (
    SearchBudget,
    add_budget_arguments,
    budget_from_args,
    must_pass,
    pass_if_forced,
    peer_square,
    read_lines,
)

NAME = "brett"
MAX_DEPTH = 60


class NBoardEngine:
    """The protocol's state: the game, the search budget and the running search."""

    def __init__(self, budget: SearchBudget, out: TextIO, err: TextIO,
                 seed: Optional[int] = None) -> None:
        self.budget = budget
        self.out, self.err = out, err
        self.seed = seed
        self.game = Reversi()
        self.depth: Optional[int] = None
        self.contempt = 0
        self.quit = False
        self._write = threading.Lock()   # the search thread writes too
        self._worker: Optional[threading.Thread] = None
        self._player: Any = None

    # ---- output
    def send(self, line: str) -> None:
        with self._write:
            self.out.write(line + "\n")
            self.out.flush()

    def error(self, message: str) -> None:
        text = " ".join(message.split())[:300]
        self.send(f"status error: {text}")
        print(f"brett nboard: {text}", file=self.err, flush=True)

    # ---- one line in
    def handle(self, line: Optional[str]) -> None:
        if line is None:
            self.error("a line too long was ignored")
            return
        words = line.split()
        if not words:
            return
        self.stop_search()   # every command is about the position after the search
        command, rest = words[0], line.strip()[len(words[0]):].strip()
        handler = {"nboard": self.nboard, "set": self.set, "move": self.move,
                   "hint": self.hint, "go": self.go, "ping": self.ping,
                   "learn": self.learn, "quit": self.do_quit}.get(command)
        try:
            if handler is not None:
                handler(rest)
            elif not self._bare_move(command):
                print(f"brett nboard: ignored {line[:80]!r}", file=self.err, flush=True)
        except BrettError as exc:
            self.error(f"{command}: {exc}")

    def nboard(self, rest: str) -> None:
        self.send(f"set myname {NAME}")

    def set(self, rest: str) -> None:
        name, _, value = rest.partition(" ")
        value = value.strip()
        if name == "depth":
            depth = _whole(value, "the depth")
            if not 1 <= depth <= MAX_DEPTH:
                raise BrettError(f"the depth is 1 to {MAX_DEPTH}, not {depth}")
            self.depth = depth
            if not self.budget.explicit:
                self.budget = SearchBudget(level=min(10, (depth + 1) // 2),
                                           threads=self.budget.threads, seed=self.seed)
        elif name == "game":
            self.game = _game_of(value)
        elif name == "contempt":
            self.contempt = _whole(value, "the contempt")
        else:
            print(f"brett nboard: ignored 'set {name[:40]}'", file=self.err, flush=True)

    def move(self, rest: str) -> None:
        square = rest.split("/", 1)[0].strip().lower()
        if not square:
            raise BrettError("which move? move F5, or move PA for a pass")
        self._play(square)

    def _bare_move(self, word: str) -> bool:
        """NBoard 1.1 sent a move without ``move``: play it if it is one."""
        try:
            self.game.parse_move(word.split("/", 1)[0].lower())
        except BrettError:
            return False
        self._play(word.split("/", 1)[0].lower())
        return True

    def _play(self, square: str) -> None:
        game = self.game
        text = "pass" if square == "pa" else square
        if game.is_over():
            raise BrettError(f"{square.upper()}: the game is over")
        mover = game.turn
        try:
            game.push(text)
        except BrettError as first:
            # A move of the other side after a forced pass the GUI left out.
            if not pass_if_forced(game, 1 - mover):
                raise first from None
            try:
                game.push(text)
            except BrettError:
                game.pop()
                raise first from None

    def ping(self, rest: str) -> None:
        self.send(f"pong {rest}".rstrip())

    def learn(self, rest: str) -> None:
        self.send("learned")

    def do_quit(self, rest: str) -> None:
        self.quit = True

    # ---- searches, in a thread of their own so that ping can stop them
    def hint(self, rest: str) -> None:
        count = _whole(rest, "the number of moves") if rest else 1
        if count < 1:
            raise BrettError(f"hint N needs N of 1 or more, not {count}")
        self._start(self._hints, count)

    def go(self, rest: str) -> None:
        self._start(self._move, 1)

    def _start(self, job: Any, count: int) -> None:
        self._player = self.budget.player(game=self.game)
        self._worker = threading.Thread(target=self._run, name="brett nboard search",
                                        args=(job, self.game.copy(), self._player, count),
                                        daemon=True)
        self._worker.start()

    def _run(self, job: Any, game: Reversi, player: Any, count: int) -> None:
        try:
            self.send(f"status {NAME} is thinking")
            job(game, player, count)
        except BrettError as exc:
            self.error(str(exc))
        except Exception as exc:  # a defect: report it, and keep the engine answering
            self.error(f"internal error: {type(exc).__name__}: {exc}")
        finally:
            self.send("status")

    def _hints(self, game: Reversi, player: Any, count: int) -> None:
        if game.is_over():
            return
        depth = str(self.depth or 1)
        if must_pass(game):
            self.send(f"search PA 0.00 0 {depth} forced pass")
            return
        for stats in player.analyse(game)[:count]:
            self.send(f"search {peer_square(stats.move, 'PA')} {_eval(game, stats.value):.2f} "
                      f"0 {depth} {stats.visits} visits")

    def _move(self, game: Reversi, player: Any, count: int) -> None:
        if game.is_over():
            raise BrettError("go: the game is over")
        if must_pass(game):
            self.send("=== PA")
            return
        best = player.analyse(game)[0]
        seconds = player.last_search.seconds
        self.send(f"=== {peer_square(best.move, 'PA')}/{_eval(game, best.value):.2f}/"
                  f"{seconds:.2f}")

    def stop_search(self) -> None:
        """End the running search (it sends what it found) and wait for it."""
        worker = self._worker
        while worker is not None and worker.is_alive():
            self._player.stop()   # again until it ends: a stop before the search began is lost
            worker.join(0.02)
        self._worker = None

    def finish(self) -> None:
        """The input ended: let the running search end by its budget."""
        if self._worker is not None:
            self._worker.join()


def _whole(text: str, what: str) -> int:
    try:
        return int(text.split()[0]) if text.split() else int(text)
    except ValueError:
        raise BrettError(f"{what} is a whole number, not {text[:20]!r}") from None


def _eval(game: Reversi, value: float) -> float:
    """The search's mean result (0 loss .. 1 win) on the disc scale of the board."""
    return (2 * value - 1) * len(game.squares)


def _game_of(text: str) -> Reversi:
    """The position at the end of a GGF game."""
    from ..records.ggf import read_ggf

    records = read_ggf(text)
    if len(records) != 1:
        raise BrettError(f"set game takes one GGF game, not {len(records)}")
    game = records[0].game()
    if not isinstance(game, Reversi):  # pragma: no cover - GGF holds Othello only
        raise BrettError("not an Othello game")
    return game


# ------------------------------------------------------------------ the command
def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_budget_arguments(parser)
    parser.add_argument("--seed", type=int, help="seed of the searches")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> None:
    engine = NBoardEngine(budget_from_args(args), out, err, seed=args.seed)
    try:
        for line in read_lines(waiting_stdin()):
            engine.handle(line)
            if engine.quit:
                break
        else:
            engine.finish()
    finally:
        engine.stop_search()
