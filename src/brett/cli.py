"""The ``brett`` command: perft, divide, play and bench for every game.

Each game class contributes its own options through two classmethods,
``cli_arguments(parser)`` and ``from_cli(args)``, so this file knows no rules.
"""

from __future__ import annotations

import argparse
import importlib
import random
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, Optional, TextIO

from .errors import BrettError

GAMES = {"reversi": "Reversi", "focus": "Focus", "phutball": "Phutball", "schuft": "Schuft"}


def game_class(name: str) -> Any:
    return getattr(importlib.import_module(f"brett.{name}"), GAMES[name])


def _add_option(parser: argparse.ArgumentParser, *names: str, **kwargs: Any) -> None:
    """Add an option unless the game already defined it (``--seed``, ``--max-plies``):
    then the game's option serves both the game and the command."""
    if not any(n in parser._option_string_actions for n in names):
        parser.add_argument(*names, **kwargs)


def _add_common(parser: argparse.ArgumentParser, command: str) -> None:
    _add_option(parser, "--position", metavar="STRING",
                help="start from this position string instead of the start")
    _add_option(parser, "--moves", metavar="MOVES", default="",
                help="moves to play first, separated by spaces")
    _add_option(parser, "--backend", choices=("cython", "python"),
                help="force a core (default: the fastest available)")
    if command == "perft":
        _add_option(parser, "--depth", type=int, required=True)
        _add_option(parser, "--divide", action="store_true",
                    help="print the count after each first move")
        _add_option(parser, "--count-finished", action="store_true",
                    help="count a finished game as a leaf at every greater depth")
    elif command == "play":
        _add_option(parser, "--seats", default="human,random", metavar="KINDS",
                    help="comma-separated 'human' or 'random' per seat, repeated "
                         "for further players (default: human,random)")
        _add_option(parser, "--seed", type=int, help="seed for the random players and dice")
    else:
        _add_option(parser, "--games", type=int, default=10000)
        _add_option(parser, "--seed", type=int, default=1)
        _add_option(parser, "--max-plies", type=int, help="cap on each playout")


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The parser; only the game named in ``argv`` is imported, for its options."""
    parser = argparse.ArgumentParser(prog="brett", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for command, text in (("perft", "count move sequences to a depth"),
                          ("play", "play a game in the terminal"),
                          ("bench", "random playouts per second")):
        sub = commands.add_parser(command, help=text)
        games = sub.add_subparsers(dest="game", required=True)
        for name in GAMES:
            gp = games.add_parser(name, help=f"{command} {name}")
            if name in argv:
                # The game's own options first, so that its --seed / --max-plies win.
                cls = game_class(name)
                cls.cli_arguments(gp)
                gp.set_defaults(_loader=_loader_for(cls))
            _add_common(gp, command)
    return parser


def _loader_for(cls: Any) -> Callable[[argparse.Namespace], Any]:
    def load(args: argparse.Namespace) -> Any:
        klass = cls.twin(args.backend) if args.backend else cls
        game = klass.from_position(args.position) if args.position else klass.from_cli(args)
        for move in args.moves.split():
            game.push(move)
        return game
    return load


def cmd_perft(game: Any, args: argparse.Namespace, out: TextIO) -> None:
    start = time.perf_counter()
    if args.divide:
        counts = game.divide(args.depth, count_finished=args.count_finished)
        for move, n in counts.items():
            print(f"{move} {n}", file=out)
        total = sum(counts.values())
    else:
        total = game.perft(args.depth, count_finished=args.count_finished)
    seconds = time.perf_counter() - start
    rate = total / seconds if seconds > 0 else float("inf")
    print(f"perft({args.depth}) = {total}", file=out)
    print(f"{seconds:.3f} s, {rate:,.0f} nodes/s ({type(game).backend()} core)", file=out)


def cmd_bench(game: Any, args: argparse.Namespace, out: TextIO) -> None:
    start = time.perf_counter()
    stats = game.random_playouts(args.games, seed=args.seed, max_plies=args.max_plies)
    seconds = time.perf_counter() - start
    print(f"{stats.games} random games, {stats.plies} plies in {seconds:.3f} s: "
          f"{stats.games / seconds:,.0f} games/s, {stats.plies / seconds:,.0f} plies/s "
          f"({type(game).backend()} core)", file=out)
    print(f"wins per player {list(stats.wins)}, draws {stats.draws}, "
          f"unfinished {stats.unfinished}", file=out)


def cmd_play(game: Any, args: argparse.Namespace, out: TextIO,
             read: Optional[Callable[[str], str]] = None) -> None:
    read = read or input  # looked up at call time, so tests can patch builtins.input
    kinds = [k.strip() for k in args.seats.split(",")]
    if any(k not in ("human", "random") for k in kinds):
        raise SystemExit(f"--seats: each seat is 'human' or 'random', not {args.seats!r}")
    rng = random.Random(args.seed)
    print(game, file=out)
    while not game.is_over():
        if game.is_chance_node():
            outcomes = game.chance_outcomes()
            action = rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
            game.apply_action(action)
            print(f"roll: {game.peek()}", file=out)
            continue
        player = game.current_player()
        kind = kinds[player % len(kinds)]
        if kind == "random":
            # The game's own random mover: Phutball draws a path step by step
            # instead of listing every path, which can be exponentially many.
            game.random_playout(seed=rng.getrandbits(64), max_plies=1)
            print(f"player {player} plays {game.peek()}", file=out)
        elif not _human_turn(game, player, out, read):
            return
        print(game, file=out)
    print(f"game over: {game.outcome()}", file=out)


def _human_turn(game: Any, player: int, out: TextIO, read: Callable[[str], str]) -> bool:
    """Ask until a legal move is given; False when the player quits."""
    while True:
        try:
            text = read(f"player {player} move (? for moves, undo, quit): ").strip()
        except EOFError:
            return False
        if text in ("quit", "q"):
            return False
        if text == "?":
            print(" ".join(str(m) for m in game.legal_moves), file=out)
        elif text == "undo":
            if game.move_stack:
                game.pop()
                print(game, file=out)
        else:
            try:
                game.push(text)
                return True
            except BrettError as exc:
                print(f"  {exc}", file=out)


def main(argv: Optional[Sequence[str]] = None, out: TextIO = sys.stdout) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(argv).parse_args(argv)
    try:
        game = args._loader(args)
        {"perft": cmd_perft, "play": cmd_play, "bench": cmd_bench}[args.command](game, args, out)
    except BrettError as exc:
        print(f"brett: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
