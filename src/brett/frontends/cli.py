"""The ``brett`` command: perft, divide, play and bench for every game, and
convert, replay and stats for record files.

Each game class contributes its own options through two classmethods,
``cli_arguments(parser)`` and ``from_cli(args)``, so this file knows no rules.
Results go to stdout; errors, prompts' complaints and progress go to stderr.
Progress shows only on a terminal and only for runs longer than half a second.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import math
import os
import random
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, TextIO

from .. import __version__
from .._checks import MAX_PERFT_DEPTH, as_int
from ..errors import BrettError
from ..game import GAMES, Game
from .protocol import summary

if TYPE_CHECKING:
    from ._checkpoint import Checkpoint

PROGRESS_AFTER = 0.5
"""Seconds before progress appears on a terminal."""
TICK = 0.25
"""Seconds between updates of the progress line (and polls of a split perft)."""
MIN_SPLIT = 64
"""The fewest subtrees a split perft asks for (8 a worker beyond 8 workers)."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C, with what the run kept (the message after ``brett: interrupted:``)."""


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP (``kill``, a closed terminal), met as Ctrl-C is: what was
    being written is whole or not there, workers and engines end; the exit code is
    128 + the signal's number."""

    def __init__(self, signum: int) -> None:
        super().__init__()
        self.signum = signum


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM and SIGHUP raise :class:`Terminated` in the main thread for the block
    (elsewhere, where no handler can be set, nothing changes)."""
    names = ("SIGTERM", "SIGHUP")
    numbers = [getattr(signal, name) for name in names if hasattr(signal, name)]
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminate(signum: int, frame: Any) -> None:
        raise Terminated(signum)

    previous = [signal.signal(number, terminate) for number in numbers]
    try:
        yield
    finally:
        for number, handler in zip(numbers, previous, strict=True):
            signal.signal(number, handler)


DESCRIPTION = ("Perft, play and benchmarks for Reversi, Focus, Phutball and Schuft; game "
               "records (convert, replay, stats); the engine protocol and the web app (serve).")


def game_class(name: str) -> Any:
    return GAMES[name]


def _not_empty(value: Optional[str], option: str, what: str) -> None:
    """An option given as an empty string (say an unset shell variable) is an
    error, not the option left out."""
    if value is not None and not value.strip():
        raise BrettError(f"{option} needs {what}")


# ------------------------------------------------------------------ the parser
def _add_option(parser: argparse.ArgumentParser, *names: str, top: bool, **kwargs: Any) -> None:
    """Add a command option.  It is accepted before and after the game's name:
    on the game's parser it is SUPPRESSed unless given, so it never overwrites
    what was given before the name; the game's own option of the same name
    (``--seed``, ``--max-plies``) serves both."""
    if not top:
        kwargs = {**kwargs, "default": argparse.SUPPRESS}
    # ArgumentError: the game defines it, and its own option serves the command too
    with contextlib.suppress(argparse.ArgumentError):
        parser.add_argument(*names, **kwargs)


def _add_common(parser: argparse.ArgumentParser, command: str, top: bool) -> None:
    _add_option(parser, "--position", top=top, metavar="STRING",
                help="start from this position string instead of the start")
    _add_option(parser, "--moves", top=top, metavar="MOVES", default="",
                help="moves to play first, separated by spaces")
    _add_option(parser, "--backend", top=top, choices=("cython", "python"),
                help="force a core (default: the fastest available)")
    if command == "perft":
        _add_option(parser, "--depth", top=top, type=int, metavar="N",
                    help="count move sequences of exactly N moves (required, 0-100)")
        _add_option(parser, "--divide", top=top, action="store_true",
                    help="print the count after each first move")
        _add_option(parser, "--count-finished", top=top, action="store_true",
                    help="count a finished game as a leaf at every greater depth")
        _add_option(parser, "--hash", top=top, type=float, metavar="MB",
                    help="keep counted subtrees in a table of MB MiB (each worker "
                         "process its own; games without dice)")
        _add_option(parser, "--symmetric", top=top, action="store_true",
                    help="with --hash: one entry for a position and its mirror images "
                         "(square Reversi boards without holes)")
        _add_option(parser, "--workers", top=top, type=int, default=1, metavar="N",
                    help="split the tree over N local processes (default 1)")
        _add_option(parser, "--threads", top=top, type=int, default=1, metavar="N",
                    help="split the tree over N threads of one process, with --hash "
                         "all through one table (default 1)")
        _add_option(parser, "--checkpoint", top=top, metavar="FILE",
                    help="record finished subtrees in FILE; run again to resume")
        _add_option(parser, "--scheduler", top=top, metavar="ADDRESS",
                    help="run the subtrees on a Dask cluster (pip install 'brett[dask]')")
    elif command == "play":
        _add_option(parser, "--seats", top=top, default="human,random", metavar="KINDS",
                    help="comma-separated, one per seat, repeated for further players: "
                         "human, random, mcts (tree search, 1 s a move), mcts:SECONDS "
                         "or level:N (1 weakest to 10 strongest) (default: human,random)")
        _add_option(parser, "--seed", top=top, type=int,
                    help="seed for the computer players and dice")
        _add_option(parser, "--json", top=top, action="store_true",
                    help="for programs: speak the JSON Lines protocol of 'brett serve' "
                         "on stdin/stdout, this game open as game_id g1")
    else:
        _add_option(parser, "--games", top=top, type=int, default=10000, metavar="N",
                    help="number of random games to play (default 10000)")
        _add_option(parser, "--seed", top=top, type=int, default=1,
                    help="seed of the playouts (default 1)")
        _add_option(parser, "--max-plies", top=top, type=int,
                    help="cut each playout after this many moves")


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The parser; only the game named in ``argv`` is imported, for its options."""
    parser = argparse.ArgumentParser(prog="brett", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"brett {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_record_commands(commands)
    _add_engine_commands(commands, argv)
    for command, text in (("perft", "count move sequences to a depth"),
                          ("play", "play a game in the terminal"),
                          ("bench", "random playouts per second")):
        sub = commands.add_parser(command, help=text, description=text)
        _add_common(sub, command, top=True)
        games = sub.add_subparsers(dest="game", required=True, metavar="GAME")
        for name in GAMES:
            gp = games.add_parser(name, help=f"{command} {name}")
            if name in argv:
                # The game's own options first, so that its --seed / --max-plies win.
                cls = game_class(name)
                cls.cli_arguments(gp)
                gp.set_defaults(loader=_loader_for(cls))
            _add_common(gp, command, top=False)
    return parser


def _add_record_commands(commands: Any) -> None:
    formats = "json, sgf, ggf, wtb (WTHOR), obf (Edax problems), pos (position list) or txt " \
              "(Othello transcripts)"
    convert = commands.add_parser("convert", help="convert game records between formats",
                                  description="convert game records between formats "
                                              f"({formats}), chosen by extension")
    convert.add_argument("input", help="the record file to read")
    convert.add_argument("output", help="the file to write (NAME.wtb also gets its name "
                                        "tables NAME.JOU and NAME.TRN beside it)")
    convert.add_argument("--from", dest="source", metavar="FORMAT",
                         help=f"the input's format ({formats})")
    convert.add_argument("--to", dest="target", metavar="FORMAT",
                         help=f"the output's format ({formats})")
    replay = commands.add_parser("replay", help="print each position of recorded games",
                                 description="print each position of recorded games")
    replay.add_argument("input", help="the record file")
    replay.add_argument("--from", dest="source", metavar="FORMAT", help="the file's format")
    replay.add_argument("--game", type=int, metavar="N", help="only the N-th game (from 1)")
    replay.add_argument("--svg", metavar="DIR",
                        help="write each position as DIR/game<N>-<ply>.svg instead")
    stats = commands.add_parser("stats", help="games, results and lengths of record files",
                                description="games, results and average length of record "
                                            "files")
    stats.add_argument("inputs", nargs="+", metavar="FILE", help="record files")
    stats.add_argument("--from", dest="source", metavar="FORMAT", help="the files' format")
    stats.add_argument("--check", action="store_true",
                       help="compare each recorded result with the final board and report "
                            "every disagreement")
    serve = commands.add_parser(
        "serve", help="the JSON Lines engine protocol on stdin/stdout, or the web app",
        description="answer JSON Lines requests on stdin, one response line each on "
                    "stdout (docs/protocol.md); with --http, serve the web app")
    serve.add_argument("--http", action="store_true",
                       help="serve the web app (play in a browser) instead")
    serve.add_argument("--port", type=int, default=8000, metavar="N",
                       help="the web app's port (default 8000; 0: any free port)")
    serve.add_argument("--host", default="127.0.0.1",
                       help="the address to listen on (default 127.0.0.1, this machine)")
    serve.add_argument("--allow-host", action="append", metavar="NAME",
                       help="with --http beyond loopback: a host name that browsers use "
                            "for this server (repeatable); requests naming another are "
                            "refused")
    for sub in (convert, replay, stats):
        for flag, table in (("--jou", "player"), ("--trn", "tournament")):
            sub.add_argument(flag, metavar="FILE", help=f"WTHOR {table} names (default: "
                             f"NAME.{flag[2:].upper()} or WTHOR.{flag[2:].upper()} beside "
                             f"the archive)")


ENGINE_COMMANDS = {
    "gtp": "a GTP engine for Reversi (for Quarry, GoGui, match runners)",
    "nboard": "an engine for the NBoard protocol (the NBoard Othello GUI)",
    "match": "a match between engines: GTP, NBoard or brett's own players",
}
"""Commands of their own modules (``frontends/<name>.py``: ``add_arguments``, ``run``)."""


def _add_engine_commands(commands: Any, argv: Sequence[str]) -> None:
    for name, text in ENGINE_COMMANDS.items():
        sub = commands.add_parser(name, help=text, description=text)
        if name in argv:  # only the command used is imported, for its options
            importlib.import_module(f"{__package__}.{name}").add_arguments(sub)


def _loader_for(cls: Any) -> Callable[[argparse.Namespace], Any]:
    def load(args: argparse.Namespace) -> Any:
        klass = cls.twin(args.backend) if args.backend else cls
        game = klass.from_position(args.position) if args.position else klass.from_cli(args)
        for move in args.moves.split():
            game.push(move)
        return game
    return load


# ------------------------------------------------------------------ progress
class Progress:
    """A one-line progress display on stderr, shown on a terminal only and only
    once a run has taken :data:`PROGRESS_AFTER` seconds."""

    def __init__(self, err: TextIO) -> None:
        self.err = err
        self.start = time.perf_counter()
        self.cpu = _cpu_seconds()
        self.live = err.isatty()
        self.shown = False
        self.lock = threading.Lock()  # a ticking thread and the caller both show

    def show(self, text: str) -> None:
        if self.live and self.wall() >= PROGRESS_AFTER:
            with self.lock:
                self.err.write(f"\r{text[:100]:<100}")
                self.err.flush()
                self.shown = True

    def done(self) -> None:
        with self.lock:
            if self.shown:
                self.err.write("\r" + " " * 100 + "\r")
                self.err.flush()
                self.shown = False

    @contextlib.contextmanager
    def ticking(self, status: Callable[[], str]) -> Iterator[None]:
        """Show ``status()`` every :data:`TICK` seconds from a thread of its own
        while the block runs: the block's thread may be inside a long core call
        (which leaves the GIL, and still stops on Ctrl-C)."""
        if not self.live:
            yield
            return
        stop = threading.Event()

        def tick() -> None:
            while not stop.wait(TICK):
                self.show(status())

        thread = threading.Thread(target=tick, name="brett progress", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()

    def wall(self) -> float:
        return time.perf_counter() - self.start

    def times(self) -> str:
        return f"{self.wall():.3f} s wall, {_cpu_seconds() - self.cpu:.3f} s CPU"


def _cpu_seconds() -> float:
    """This process's CPU time and that of its finished child processes (the
    workers of ``--workers``), where the platform tells (not on Windows)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return time.process_time()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


# ------------------------------------------------------------------ commands
NOTHING_KEPT = "nothing is kept (--checkpoint FILE keeps finished subtrees for a resume)"


class _Tally:
    """Subtrees done and their nodes, so far (read by the progress thread)."""

    def __init__(self, done: int = 0, nodes: int = 0) -> None:
        self.done, self.nodes = done, nodes

    def add(self, count: int) -> None:
        self.nodes += count
        self.done += 1


def cmd_perft(game: Game[Any], args: argparse.Namespace, out: TextIO, err: TextIO) -> None:
    if args.depth is None:
        raise BrettError(f"perft needs --depth N (0-{MAX_PERFT_DEPTH})")
    as_int(args.depth, "depth", 0, MAX_PERFT_DEPTH)
    workers = as_int(args.workers, "--workers", 1, 1024)
    _not_empty(args.checkpoint, "--checkpoint", "a file name")
    _not_empty(args.scheduler, "--scheduler", "the address of a Dask scheduler "
                                             "(tcp://HOST:8786)")
    _check_table(game, args)
    threads = as_int(args.threads, "--threads", 1, 1024)
    if threads > 1:
        if workers > 1 or args.checkpoint or args.scheduler or args.divide:
            raise BrettError("--threads goes with none of --workers, --checkpoint, "
                             "--scheduler, --divide")
        _threaded_perft(game, args, threads, out, err)
        return
    if workers > 1 or args.checkpoint or args.scheduler:
        if args.divide:
            raise BrettError("--divide goes with none of --workers, --checkpoint, --scheduler")
        total, counted, progress = _split_perft(game, args, workers, err)
        _report_perft(game, args.depth, total, progress, out, counted)
        return
    progress = Progress(err)
    tally = _Tally()

    def status() -> str:
        return (f"perft({args.depth}): {tally.done} first moves done, {tally.nodes:,} "
                f"nodes, {progress.wall():.0f} s")

    try:
        with progress.ticking(status):
            if args.depth < 2 and not args.divide:
                tally.add(game.perft(args.depth, count_finished=args.count_finished,
                                     hash_mb=args.hash, symmetric=args.symmetric))
            else:
                # One subtree per first move, so a long run can show where it is.
                for move, count in game.divide_iter(args.depth, args.count_finished,
                                                    args.hash, args.symmetric):
                    if args.divide:
                        print(f"{move} {count}", file=out, flush=True)
                    tally.add(count)
    except KeyboardInterrupt:
        raise Interrupted(f"{tally.done} first moves were done ({tally.nodes:,} nodes); "
                          f"{NOTHING_KEPT}") from None
    finally:
        progress.done()
    _report_perft(game, args.depth, tally.nodes, progress, out)


def _threaded_perft(game: Game[Any], args: argparse.Namespace, threads: int, out: TextIO,
                    err: TextIO) -> None:
    """perft on ``threads`` threads of this process (one table for all of them)."""
    progress = Progress(err)
    try:
        with progress.ticking(lambda: f"perft({args.depth}) on {threads} threads, "
                                      f"{progress.wall():.0f} s"):
            total = game.perft(args.depth, count_finished=args.count_finished,
                               hash_mb=args.hash, symmetric=args.symmetric, threads=threads)
    except KeyboardInterrupt:
        raise Interrupted("nothing is kept") from None
    finally:
        progress.done()
    _report_perft(game, args.depth, total, progress, out)


def _check_table(game: Game[Any], args: argparse.Namespace) -> None:
    """--hash and --symmetric refused now, in the options' own names, if the size
    or the board will not do."""
    if args.hash is None and not args.symmetric:
        return
    try:
        game.perft(0, hash_mb=args.hash, symmetric=args.symmetric)
    except BrettError as exc:
        text = str(exc).replace("hash_mb=", "--hash ").replace("hash_mb", "--hash")
        raise BrettError(text.replace("symmetric=True", "--symmetric")) from None


def _report_perft(game: Game[Any], depth: int, total: int, progress: Progress,
                  out: TextIO, counted: Optional[int] = None) -> None:
    """The count, and the rate of the nodes ``counted`` by this run (by default
    all of them; a resumed run took the others from its checkpoint)."""
    seconds = progress.wall()
    counted = total if counted is None else counted
    rate = counted / seconds if seconds > 0 else float("inf")
    print(f"perft({depth}) = {total}", file=out)
    print(f"{progress.times()}, {rate:,.0f} nodes/s ({type(game).backend()} core)", file=out)


def _split_perft(game: Game[Any], args: argparse.Namespace, workers: int,
                 err: TextIO) -> tuple[int, int, Progress]:
    """perft over the subtrees of ``perft_tasks``, on ``workers`` local processes
    or a Dask cluster, each finished subtree recorded in the checkpoint file (if
    any) as it completes.  The split comes from the checkpoint when it has one,
    so a run resumes with any number of workers."""
    from ..game import _perft_task
    from ._tasks import ctrl_c_deferred, running

    book, tasks = _checkpointed_tasks(game, args, workers, err)
    done = dict(book.done) if book else {}
    tally = _Tally(len(done), sum(done.values()))
    kept, kept_nodes = tally.done, tally.nodes
    progress = Progress(err)
    where = f"cluster {args.scheduler}" if args.scheduler else f"{workers} workers"
    try:
        with running(args.scheduler, workers) as runner:
            try:
                for index, (position, depth) in enumerate(tasks):
                    if index not in done:
                        runner.submit(index, _perft_task, game.game_name,
                                      type(game).backend(), position, depth,
                                      bool(args.count_finished), args.hash, args.symmetric)
                while len(done) < len(tasks):
                    result = runner.next_result(TICK)
                    if result is not None:
                        with ctrl_c_deferred():  # the file and the tally agree
                            index, count = result[0], int(result[1])
                            if book:
                                _record(book, index, count)
                            done[index] = count
                            tally.add(count)
                    progress.show(_split_status(args.depth, tally, kept, len(tasks), where,
                                                progress.wall()))
            except KeyboardInterrupt:
                raise Interrupted(_kept(book, tally, len(tasks))) from None
            except BrettError as exc:
                raise BrettError(f"{exc}; {_kept(book, tally, len(tasks))}") from None
    finally:
        progress.done()
        if book:
            book.close()
    return tally.nodes, tally.nodes - kept_nodes, progress


def _checkpointed_tasks(game: Game[Any], args: argparse.Namespace, workers: int,
                        err: TextIO) -> tuple[Optional[Checkpoint], list[tuple[str, int]]]:
    """The checkpoint (None without ``--checkpoint``), its notes told, and the
    subtrees: split as the checkpoint says, else finer for more workers."""
    from ._checkpoint import FORMAT, Checkpoint, task_digest

    book = Checkpoint(args.checkpoint) if args.checkpoint else None
    for note in book.notes if book else ():
        print(f"brett: warning: {note}", file=err, flush=True)
    split = book.header["split"] if book and book.header else max(MIN_SPLIT, 8 * workers)
    tasks = game.perft_tasks(args.depth, tasks=split)
    if book:
        book.begin({"checkpoint": FORMAT, "game": game.game_name, "position": game.position(),
                    "depth": args.depth, "count_finished": bool(args.count_finished),
                    "split": split, "tasks": len(tasks), "digest": task_digest(tasks)})
    return book, tasks


def _split_status(depth: int, tally: _Tally, kept: int, tasks: int, where: str,
                  seconds: float) -> str:
    """The progress line of a split perft (``kept``: subtrees from the checkpoint)."""
    eta = f"{seconds / (tally.done - kept) * (tasks - tally.done):.0f} s" \
        if tally.done > kept else "?"
    return (f"perft({depth}): {tally.done}/{tasks} subtrees, {tally.nodes:,} nodes, {where}, "
            f"{seconds:.0f} s, ETA {eta}")


def _record(book: Checkpoint, index: int, count: int) -> None:
    try:
        book.record(index, count)
    except OSError as exc:
        raise BrettError(f"--checkpoint {book.path}: cannot record a finished subtree: "
                         f"{exc.strerror or exc}") from None


def _kept(book: Optional[Checkpoint], tally: _Tally, tasks: int) -> str:
    """What an interrupted or failed split perft leaves for a resume."""
    done = f"{tally.done} of {tasks} subtrees were done ({tally.nodes:,} nodes)"
    if book is None:
        return f"{done}; {NOTHING_KEPT}"
    return f"{done}, kept in {book.path}: run the same command again to resume"


def cmd_bench(game: Game[Any], args: argparse.Namespace, out: TextIO, err: TextIO) -> None:
    progress = Progress(err)

    def report(done: int) -> None:
        progress.show(f"{done:,} / {args.games:,} games, {progress.wall():.0f} s")

    try:
        stats = game.random_playouts(args.games, seed=args.seed, max_plies=args.max_plies,
                                     progress=report)
    finally:
        progress.done()
    seconds = max(progress.wall(), 1e-9)
    print(f"{stats.games} random games, {stats.plies} plies in {progress.times()}: "
          f"{stats.games / seconds:,.0f} games/s, {stats.plies / seconds:,.0f} plies/s "
          f"({type(game).backend()} core)", file=out)
    print(f"wins per player {list(stats.wins)}, draws {stats.draws}, "
          f"unfinished {stats.unfinished}", file=out)


class Seat:
    """One entry of ``--seats``: a person, the random player or a tree search."""

    def __init__(self, kind: str, player: Any = None) -> None:
        self.kind = kind      # "human", "random" or "mcts"
        self.player = player  # the MCTSPlayer of an "mcts" seat

    @property
    def human(self) -> bool:
        return self.kind == "human"


SEAT_KINDS = "human, random, mcts, mcts:SECONDS or level:N (N from 1 to 10)"
MAX_SEAT_SECONDS = 3600.0
"""The longest search a computer seat may be given for one move."""
HINT_SECONDS = 1.0
"""The search of ``hint`` (``hint SECONDS`` gives another)."""
HINT_MOVES = 3


def parse_seats(text: str, seed: Optional[int] = None) -> list[Seat]:
    """The seats of ``--seats``; each search gets its own seed, derived from ``seed``."""
    seeds = random.Random(f"brett seats {seed}") if seed is not None else None
    seats = []
    for spec in text.split(","):
        name, colon, value = spec.strip().partition(":")
        name, value, shown = name.strip().lower(), value.strip(), spec.strip()
        seat_seed = None if seeds is None else seeds.getrandbits(63)
        if not colon and name in ("human", "random"):
            seats.append(Seat(name))
        elif not colon and name == "mcts":
            seats.append(Seat("mcts", _mcts(seconds=1.0, seed=seat_seed)))
        elif colon and name == "mcts":
            seconds = _seat_number(value, float)
            if seconds is None or not 0 < seconds <= MAX_SEAT_SECONDS:
                raise BrettError(f"--seats: {shown!r:.40}: the seconds a move are a number "
                                 f"above 0 and at most {MAX_SEAT_SECONDS:g}")
            seats.append(Seat("mcts", _mcts(seconds=seconds, seed=seat_seed)))
        elif colon and name == "level":
            level = _seat_number(value, int)
            if level is None or not 1 <= level <= 10:
                raise BrettError(f"--seats: {shown!r:.40}: the level is a whole number "
                                 f"from 1 to 10")
            seats.append(Seat("mcts", _mcts(level=int(level), seed=seat_seed)))
        else:
            raise BrettError(f"--seats: {shown!r:.40} is not a seat: each seat is "
                             f"{SEAT_KINDS}")
    return seats


def _seat_number(value: str, kind: Callable[[str], float]) -> Optional[float]:
    try:
        number = kind(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _mcts(seconds: Optional[float] = None, level: Optional[int] = None,
          seed: Optional[int] = None) -> Any:
    from ..ai import MCTSPlayer

    if level is not None:
        return MCTSPlayer.level(level, seed=seed)
    return MCTSPlayer(seconds=seconds, seed=seed)


def cmd_play(game: Game[Any], args: argparse.Namespace, out: TextIO, err: TextIO,
             read: Optional[Callable[[str], str]] = None) -> None:
    if args.json:
        from .stdio import serve

        if serve(None, out, game=game):
            raise KeyboardInterrupt
        return
    read = read or input  # looked up at call time, so tests can patch builtins.input
    seats = parse_seats(args.seats, args.seed)
    rng = random.Random(args.seed)
    print(game, file=out, flush=True)
    while not game.is_over():
        if game.is_chance_node():
            outcomes = game.chance_outcomes()
            action = rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
            game.apply_action(action)
            print(f"chance: {game.peek()}", file=out, flush=True)
            continue
        player = game.current_player()
        seat = seats[player % len(seats)]
        if seat.kind == "random":
            # The game's own random mover: Phutball draws a path step by step
            # instead of listing every path, which can be exponentially many.
            game.random_playout(seed=rng.getrandbits(64), max_plies=1)
            print(f"{game.player_name(player)} plays {game.peek()}", file=out, flush=True)
        elif seat.kind == "mcts":
            best = _search(seat.player, game)[0]
            info = seat.player.last_search
            game.push(best.move)
            print(f"{game.player_name(player)} plays {best.move} ({_worth(best, info)})",
                  file=out, flush=True)
        elif not _human_turn(game, player, seats, out, err, read):
            return
        print(game, file=out, flush=True)
    print(f"Result: {summary(game)}", file=out, flush=True)


def _search(player: Any, game: Game[Any]) -> list[Any]:
    """``player.analyse(game)``; a search that Ctrl-C cut short quits the game."""
    stats: list[Any] = player.analyse(game)
    if player.last_search.interrupted:
        raise KeyboardInterrupt
    return stats  # never empty: every search completes an iteration


def _hint(game: Game[Any], text: str, out: TextIO, err: TextIO) -> None:
    """``hint`` or ``hint SECONDS``: the search's best moves for the player to move."""
    value = text[len("hint"):].strip()
    seconds = _seat_number(value, float) if value else HINT_SECONDS
    if seconds is None or not 0 < seconds <= MAX_SEAT_SECONDS:
        print(f"  hint SECONDS: a number above 0 and at most {MAX_SEAT_SECONDS:g}, "
              f"not {value!r:.20}", file=err, flush=True)
        return
    player = _mcts(seconds=seconds)
    stats = _search(player, game)[:HINT_MOVES]
    moves = ", ".join(f"{s.move} ({_worth(s)})" for s in stats)
    searched = "" if stats[0].turns is not None else \
        f" ({player.last_search.iterations:,} iterations)"
    print(f"hint: {moves}{searched}", file=out, flush=True)


def _worth(stats: Any, info: Any = None) -> str:
    """What the search found of a move; Schuft's endgame tables give turns instead."""
    if stats.turns is not None:
        return f"endgame tables: {stats.turns:.1f} turns to go"
    tried = (f"{info.iterations:,} iterations" if info is not None
             else f"{stats.visits:,} visit{'s' * (stats.visits != 1)}")
    return f"{tried}, value {stats.value:.2f}"


def _human_turn(game: Game[Any], player: int, seats: list[Seat], out: TextIO, err: TextIO,
                read: Callable[[str], str]) -> bool:
    """Ask until a legal move is given; False when the player quits."""
    while True:
        print(f"{game.player_name(player)} to move (a move, ? for the legal moves, "
              f"hint, undo, quit):", file=out, flush=True)
        try:
            text = read("").strip()
        except EOFError:
            return False
        if text in ("quit", "q"):
            return False
        if text == "?":
            print(" ".join(str(m) for m in game.legal_moves), file=out, flush=True)
        elif text == "hint" or text.startswith("hint "):
            _hint(game, text, out, err)
        elif text == "undo":
            if _undo_to_human(game, seats):
                print(game, file=out, flush=True)
            else:
                print("nothing to undo: no move of yours is on the board", file=err,
                      flush=True)
        else:
            try:
                game.push(text)
                return True
            except BrettError as exc:
                print(f"  {exc}", file=err, flush=True)


def _undo_to_human(game: Game[Any], seats: list[Seat]) -> bool:
    """Take back the last move a human made and everything after it (the
    computers' replies, the dice); False if no human move is on the stack."""
    trial = game.copy()
    pops = 0
    while trial.move_stack:
        trial.pop()
        pops += 1
        if not trial.is_chance_node() and seats[trial.current_player() % len(seats)].human:
            for _ in range(pops):
                game.pop()
            return True
    return False


# ------------------------------------------------------------------ record files
def cmd_convert(args: argparse.Namespace, out: TextIO, err: TextIO) -> None:
    from ..records import format_of, stream
    from ..records.files import write_as_they_come

    records = stream(args.input, args.source, args.jou, args.trn)
    target = Path(args.output)
    kind = format_of(target, args.target)
    # A new archive's name tables go beside it under its own name, never over a
    # WTHOR.JOU that may serve other years.
    tables = [target.with_suffix(".JOU"), target.with_suffix(".TRN")] if kind == "wtb" else []
    with _replacing(target, *tables) as (temporary, *temporary_tables):
        try:  # read and written game by game: the target is replaced once all went well
            count = write_as_they_come(records, temporary, kind, *temporary_tables)
        except BrettError as exc:  # its message names the temporary file
            text = str(exc)
            for final, used in zip((target, *tables), (temporary, *temporary_tables), strict=True):
                text = text.replace(os.fspath(used), os.fspath(final))
            raise BrettError(text) from None
    print(f"{count} game{'s' * (count != 1)} written to {target}", file=out)


@contextlib.contextmanager
def _replacing(*targets: Path, sync: bool = True) -> Iterator[list[Path]]:
    """Temporary files for ``targets``, each renamed over its target when the
    block ends well (see :mod:`brett._files`); a failure is a :class:`BrettError`."""
    from .._files import replacing

    try:
        with contextlib.ExitStack() as stack:
            yield [stack.enter_context(replacing(t, sync)) for t in targets]
    except OSError as exc:
        names = ", ".join(os.fspath(t) for t in targets)
        raise BrettError(f"cannot write {names}: {exc.strerror or exc}") from None


def cmd_replay(args: argparse.Namespace, out: TextIO, err: TextIO) -> None:
    from ..records import stream
    from ..render import svg

    if args.game is not None and args.game < 1:
        raise BrettError(f"--game {args.game}: games are counted from 1")
    _not_empty(args.svg, "--svg", "a folder")
    folder = Path(args.svg) if args.svg else None
    if folder is not None:
        if folder.exists() and not folder.is_dir():
            raise BrettError(f"--svg {folder}: a file, not a folder")
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise BrettError(f"--svg {folder}: cannot make the folder: "
                             f"{exc.strerror or exc}") from None
    written = seen = 0
    for number, record in enumerate(stream(args.input, args.source, args.jou, args.trn), 1):
        seen = number
        if args.game is not None and number != args.game:
            continue
        written += _replay_one(number, record, folder, out, svg)
        if args.game is not None:
            break
    if args.game is not None and seen < args.game:
        raise BrettError(f"--game {args.game}: the file holds {_count(seen, 'game')}")
    if folder is not None:
        print(f"{written} positions written to {folder}", file=out)


def _replay_one(number: int, record: Any, folder: Optional[Path], out: TextIO,
                svg: Callable[[Any], str]) -> int:
    """Print (or draw into ``folder``) every position of one record; the
    pictures written."""
    game = record.game_class.from_position(record.start)
    moves = record.moves
    players = " vs ".join(record.headers.get(k, "?") for k in ("Black", "White"))
    written = 0
    if folder is None:
        print(f"game {number}: {record.game_name}, {players}, {len(moves)} moves", file=out)
        print(game, file=out)
    for ply, move in enumerate([None, *moves]):
        if move is not None:
            game.push(move)
        if folder is not None:
            # Without fsync: thousands of pictures, each still whole or absent.
            with _replacing(folder / f"game{number}-{ply:03d}.svg", sync=False) as paths:
                paths[0].write_text(svg(game), encoding="utf-8")
            written += 1
        elif move is not None:
            print(f"{ply}. {move}", file=out)
            print(game, file=out)
    return written


def cmd_stats(args: argparse.Namespace, out: TextIO, err: TextIO) -> None:
    from ..records import stream

    progress = Progress(err)
    games: dict[str, list[int]] = {}   # name -> [games, plies, draws, unfinished]
    wins: dict[str, dict[str, int]] = {}
    checked = disagreements = 0
    try:
        for path in args.inputs:
            for done, record in enumerate(stream(path, args.source, args.jou, args.trn), 1):
                game = record.game()
                _tally(record.game_name, game, games, wins)
                if args.check and record.result is not None and \
                        record.result.ending != "unknown":
                    checked += 1
                    found = record.check_result()
                    disagreements += bool(found)
                    for message in found:
                        progress.done()
                        print(f"{path}: game {done}: {message}", file=out)
                if done % 500 == 0:
                    progress.show(f"{Path(path).name}: {done:,} games replayed")
    finally:
        progress.done()
    total = sum(row[0] for row in games.values())
    print(f"{_count(len(args.inputs), 'file')}, {_count(total, 'game')}", file=out)
    for name, (count, plies, draws, unfinished) in sorted(games.items()):
        won = ", ".join(f"{who} {n}" for who, n in sorted(wins.get(name, {}).items()))
        print(f"{name}: {_count(count, 'game')}, average length {plies / count:.1f} moves; wins: "
              f"{won or 'none'}; draws {draws}; unfinished {unfinished}", file=out)
    if args.check:
        print(f"results checked: {_count(checked, 'game')} with a known result, "
              f"{disagreements:,} disagree with the board", file=out)


def _tally(name: str, game: Game[Any], games: dict[str, list[int]],
           wins: dict[str, dict[str, int]]) -> None:
    row = games.setdefault(name, [0, 0, 0, 0])
    row[0] += 1
    row[1] += len(game.move_stack)
    outcome = game.outcome()
    if outcome is None:
        row[3] += 1
    elif outcome.is_draw:
        row[2] += 1
    for p in outcome.winners if outcome else ():
        table = wins.setdefault(name, {})
        table[game.player_name(p)] = table.get(game.player_name(p), 0) + 1


def _count(n: int, thing: str) -> str:
    return f"{n:,} {thing}{'s' * (n != 1)}"


def cmd_serve(args: argparse.Namespace, out: TextIO, err: TextIO) -> None:
    if args.http:
        from .webserver import WebServer

        as_int(args.port, "--port", 0, 65535)
        try:
            WebServer(args.host, args.port, allow_hosts=args.allow_host or ()).run(out)
        except OSError as exc:
            raise BrettError(f"cannot serve on {args.host}:{args.port}: {exc}") from None
        return
    from .stdio import serve

    code = serve(None, out)
    if code:
        raise KeyboardInterrupt


RECORD_COMMANDS = {"convert": cmd_convert, "replay": cmd_replay, "stats": cmd_stats,
                   "serve": cmd_serve}


def main(argv: Optional[Sequence[str]] = None, out: Optional[TextIO] = None,
         err: Optional[TextIO] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    commands = {"perft": cmd_perft, "play": cmd_play, "bench": cmd_bench}
    try:
        with terminate_as_interrupt():
            args = build_parser(argv).parse_args(argv)
            if args.command in RECORD_COMMANDS:
                RECORD_COMMANDS[args.command](args, out, err)
            elif args.command in ENGINE_COMMANDS:
                importlib.import_module(f"{__package__}.{args.command}").run(args, out, err)
            else:
                commands[args.command](_load_game(args), args, out, err)
    except BrettError as exc:
        print(f"brett: error: {exc}", file=err)
        return 2
    except Terminated as exc:
        print(f"brett: terminated by signal {exc.signum}", file=err)
        return 128 + exc.signum
    except KeyboardInterrupt as exc:
        print(f"brett: interrupted{f': {exc}' if str(exc) else ''}", file=err)
        return 130
    except BrokenPipeError:
        # The reader went away (``brett play ... | head``): stop quietly, and keep
        # the interpreter's final flush from raising again.
        if out is sys.stdout:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as exc:  # the environment failed us where no command expected it
        print(f"brett: error: {exc}", file=err)
        return 2
    except MemoryError:
        print("brett: error: out of memory", file=err)
        return 2
    return 0


def _load_game(args: argparse.Namespace) -> Game[Any]:
    """The game the options describe; any failure to read them is the user's
    input at fault, so it is reported as an error, never a traceback."""
    try:
        game: Game[Any] = args.loader(args)
    except BrettError:
        raise
    except (ValueError, TypeError, LookupError, ArithmeticError) as exc:
        raise BrettError(f"{args.game} options: {exc}") from None
    return game
