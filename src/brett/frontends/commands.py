"""What each command of the engine protocol does (docs/protocol.md).

Each command is a function of the session and the request (its fields already
checked against :attr:`Command.fields`) that returns the answer's fields, or
for a search a :class:`~brett.frontends.sessions.Job` whose answer comes later.
Quick commands run under the session's lock, one at a time; ``stop``,
``hello``, ``games`` and ``quit`` take no lock, so they are answered even while
another request of the session is being worked on.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Optional, Union

from .. import Stopped, __version__
from .._checks import MAX_PERFT_DEPTH
from ..errors import BrettError, InvalidRecordError
from ..game import GAMES, Game
from ..render import svg as draw_svg
from .protocol import (
    PROTOCOL_VERSION,
    Busy,
    Field,
    Interrupted,
    LimitExceeded,
    ProtocolError,
    effects,
    integer,
    show,
    state,
    text,
)

if TYPE_CHECKING:
    from .sessions import Answer, Job, Session, Slot

MAX_LIST = 100_000
"""The most moves a ``legal`` or ``hint`` answer lists (``limit`` may ask for fewer)."""
MAX_LIST_TEXT = 1 << 20
"""The most characters of move text one ``legal`` answer lists (a Phutball jump path
can be hundreds of characters long)."""
MAX_COUNT = 1_000_000
"""``legal`` counts moves up to this many (a crowded Phutball board has more jump
paths than anything can count); past it, ``"more": true``."""
MAX_SECONDS = 60.0
"""The longest search budget a ``play`` or ``hint`` may ask for."""
MAX_ITERATIONS = 100_000_000
"""The largest ``iterations`` budget of ``play`` and ``hint``."""
DEFAULT_SECONDS = 1.0
"""The search of ``play`` and ``hint`` when no budget is given."""
RECORD_TEXT = 1 << 20
"""The longest record text ``load`` reads (characters): a request's own limit."""
RECORD_FORMATS = ("json", "sgf", "ggf", "pos", "txt")
"""The record formats of ``save`` and ``load``: brett's JSON, SGF, GGF (GGS archives
too), position lists and Othello transcripts (the text formats of brett.records)."""


@dataclasses.dataclass(frozen=True)
class Command:
    fields: dict[str, Field]
    run: Callable[[Session, Answer], Union[Answer, Job]]
    locked: bool = True
    long: bool = False   # may take long: one such request of an address at a time


# ------------------------------------------------------------------ fields
GAME_ID = {"game_id": text()}
PLY = {"ply": integer(0, 2**31 - 1)}
SEED = {"seed": Field(("integer",))}
PROGRESS = {"progress": Field(("boolean",))}
BUDGET = {"level": integer(1, 10), "seconds": Field(("number",), low=0, high=MAX_SECONDS,
                                                    above=True),
          "iterations": integer(1, MAX_ITERATIONS), **SEED, **PROGRESS}
LIMIT = {"limit": integer(0, MAX_LIST)}


def unknown_command(name: Any) -> ProtocolError:
    known = ", ".join(sorted(COMMANDS))
    if name is None:
        return ProtocolError(f"a request needs \"cmd\": one of {known}")
    return ProtocolError(f"unknown command {show(name)}: expected one of {known}")


# ------------------------------------------------------------------ session
def hello(session: Session, request: Answer) -> Answer:
    return {"protocol": PROTOCOL_VERSION, "brett": __version__, "session": session.token,
            "games": list(GAMES), "limits": session.limits.public()}


def games(session: Session, request: Answer) -> Answer:
    return {"games": [{"name": name, "chance": GAMES[name].has_chance,
                       "options": [o.as_dict() for o in GAMES[name].OPTIONS],
                       "records": record_formats(name)}
                      for name in GAMES]}


def record_formats(name: str) -> list[str]:
    """The record formats ``save`` writes for game ``name``: JSON and position lists
    for every game, SGF where the game has an SGF game number, GGF and transcripts
    for Othello."""
    from ..records.sgf import GAME_NUMBERS

    return ["json", *(["sgf"] if name in GAME_NUMBERS else []),
            *(["ggf"] if name == "reversi" else []), "pos",
            *(["txt"] if name == "reversi" else [])]


def quit_(session: Session, request: Answer) -> Answer:
    session.quit = True
    return {}


def stop(session: Session, request: Answer) -> Answer:
    """Stop this session's searches: the one answering ``request`` (its id), those
    on ``game_id``, or all of them."""
    if "request" in request:
        wanted = json.dumps(request["request"])
        count = session.stop(lambda job: json.dumps(job.ident) == wanted,
                             "stopped by a stop request")
    elif "game_id" in request:
        count = session.stop(lambda job: job.slot.game_id == request["game_id"],
                             "stopped by a stop request")
    else:
        count = session.stop(lambda job: True, "stopped by a stop request", bounded=True)
    return {"stopped": count}


# ------------------------------------------------------------------ games
def new(session: Session, request: Answer) -> Answer:
    cls = GAMES.lookup(request["game"], BrettError)
    options = request.get("options", {})
    names = [o.name for o in cls.OPTIONS]
    for name in options:
        if name not in names:
            raise ProtocolError(f"unknown option {show(name)} for {cls.game_name}: it takes "
                                + ", ".join(f'"{n}"' for n in names))
    return opened(session, cls(**options))


def opened(session: Session, game: Game[Any]) -> Answer:
    """Open ``game`` in the session: the fields of a ``new`` answer."""
    slot = session.add_game(game)
    return {"game_id": slot.game_id, "game": game.game_name, **state(game)}


def close(session: Session, request: Answer) -> Answer:
    session.close_game(session.slot(request["game_id"]), "the game was closed")
    return {}


def list_(session: Session, request: Answer) -> Answer:
    return {"games": [{"game_id": slot.game_id, "game": slot.game.game_name,
                       "ply": len(slot.game.move_stack), "over": slot.game.is_over()}
                      for slot in session.games.values()]}


def view(slot: Slot, ply: Optional[int]) -> Game[Any]:
    """The game, or a copy of it back at move ``ply`` (history navigation)."""
    game = slot.game
    played = len(game.move_stack)
    if ply is None or ply == played:
        return game
    if ply > played:
        raise ProtocolError(f"\"ply\" {ply}: the game has {played} moves")
    past = game.copy()
    for _ in range(played - ply):
        past.pop()
    return past


def state_(session: Session, request: Answer) -> Answer:
    slot = session.slot(request["game_id"])
    return {"game_id": slot.game_id, "game": slot.game.game_name,
            **state(view(slot, request.get("ply")))}


def legal(session: Session, request: Answer) -> Answer:
    """The legal moves, bounded: at most ``limit`` of them and :data:`MAX_LIST_TEXT`
    characters, counted up to :data:`MAX_COUNT`, all within the server's
    ``legal_seconds`` (a ``stop`` ends it sooner).  Cut short, it says ``"more":
    true`` and ``count`` is the least number of moves there are."""
    game = session.slot(request["game_id"]).game
    limit = request.get("limit", MAX_LIST)
    seconds = session.limits.legal_seconds
    with session.within(seconds) as stopper:
        if "prefix" in request:
            return _clicks(game, request["prefix"], limit, seconds)
        moves: list[str] = []
        try:
            cut = _list(game.legal_moves, limit, moves, lambda: stopper.stopped)
            count = len(moves) if cut else game.legal_moves.count(limit=MAX_COUNT)
        except Stopped:
            cut, count = True, len(moves)
    return {"moves": moves, "count": min(count, MAX_COUNT), "more": cut or count > MAX_COUNT}


def _list(moves: Iterable[Any], limit: int, into: list[str],
          stopped: Callable[[], bool] = lambda: False) -> bool:
    """Append the text of ``moves`` to ``into``, at most ``limit`` of them and about
    :data:`MAX_LIST_TEXT` characters; whether it was cut short (by the text bound or
    ``stopped()``) before the moves or the limit ran out."""
    text = 0
    for move in moves:
        if len(into) >= limit:
            return False
        if text >= MAX_LIST_TEXT or stopped():
            return True
        into.append(str(move))
        text += len(into[-1])
    return False


def _clicks(game: Game[Any], prefix: Any, limit: int, seconds: float) -> Answer:
    """Click-to-move: the moves these clicks make, and which clicks may come next."""
    if not all(isinstance(c, str) for c in prefix):
        raise ProtocolError(f"\"prefix\" must be an array of strings (got {show(prefix)})")
    try:
        clicks = game.legal_moves.clicks(*prefix)
    except Stopped:
        raise Interrupted(f"legal stopped after {seconds:g} s, the server's limit for "
                          "it, or by a stop request") from None
    moves: list[str] = []
    _list(clicks.moves, limit, moves)
    return {"moves": moves, "count": len(clicks.moves), "next": list(clicks.next),
            "marked": list(clicks.marked)}


def _free(slot: Slot) -> Game[Any]:
    """The game, unless a ``play`` holds it."""
    job = slot.playing
    if job is not None:
        raise Busy(f"the computer is choosing a move in {slot.game_id} (request "
                   f"{show(job.ident)}): wait for its answer, or send stop")
    return slot.game


def move(session: Session, request: Answer) -> Answer:
    slot = session.slot(request["game_id"])
    game = _free(slot)
    change = effects(game, request["move"])     # checks the move too
    played = game.push(request["move"])
    return {"game_id": slot.game_id, "played": str(played), "effects": change, **state(game)}


def undo(session: Session, request: Answer) -> Answer:
    slot = session.slot(request["game_id"])
    taken = _free(slot).pop()
    return {"game_id": slot.game_id, "undone": str(taken), **state(slot.game)}


def roll(session: Session, request: Answer) -> Answer:
    slot = session.slot(request["game_id"])
    game = _free(slot)
    if not game.is_chance_node():
        raise BrettError("not a chance node: there is nothing to roll")
    played = game.push(request["roll"])
    return {"game_id": slot.game_id, "played": str(played), **state(game)}


def random_move(session: Session, request: Answer) -> Answer:
    slot = session.slot(request["game_id"])
    game = _free(slot)
    if game.is_over():
        raise BrettError("the game is over")
    game.random_playout(seed=request.get("seed"), max_plies=1)
    return {"game_id": slot.game_id, "played": str(game.peek()), **state(game)}


SVG_OPTIONS = tuple(inspect.signature(draw_svg).parameters)[1:]


def svg(session: Session, request: Answer) -> Answer:
    slot = session.slot(request["game_id"])
    options = request.get("options", {})
    for name in options:
        if name not in SVG_OPTIONS:
            raise ProtocolError(f"unknown svg option {show(name)}: it takes "
                                + ", ".join(f'"{n}"' for n in SVG_OPTIONS))
    return {"svg": draw_svg(view(slot, request.get("ply")), **options)}


# ------------------------------------------------------------------ records
def save(session: Session, request: Answer) -> Answer:
    from ..records import Record, to_dict, to_text

    game = session.slot(request["game_id"]).game
    kind = request.get("format", "json")
    if kind == "json":
        return {"format": kind, "record": to_dict(game)}
    return {"format": kind, "record": to_text([Record.from_game(game)], kind)}


def load(session: Session, request: Answer) -> Answer:
    game, count = _read_record(request["record"], request.get("format"))
    return {**opened(session, game), "records": count}


def _read_record(record: Any, kind: Optional[str]) -> tuple[Game[Any], int]:
    """The game of a record (an object, or text in one of :data:`RECORD_FORMATS`),
    and how many games the text held (the first is loaded)."""
    from ..records import from_dict, from_text

    if isinstance(record, dict):
        if kind not in (None, "json"):
            raise ProtocolError(f"a record object is a JSON record, not {kind}")
        return from_dict(record), 1
    first, count = None, 0
    for each in from_text(record, kind):   # every record is read: a bad one is an error
        first, count = first or each, count + 1
    if first is None:
        raise InvalidRecordError("the text holds no game")
    return first.game(), count


# ------------------------------------------------------------------ searches
def perft(session: Session, request: Answer) -> Job:
    slot = session.slot(request["game_id"])
    snapshot = slot.game.copy(stack=False)
    depth, finished = request["depth"], request.get("count_finished", False)

    def work(job: Job) -> Answer:
        if not job.wants_progress or depth == 0:
            return {"depth": depth, "nodes": snapshot.perft(depth, finished)}
        done = nodes = 0
        job.report = lambda: {"moves_done": done, "nodes": nodes}
        for _, count in snapshot.divide_iter(depth, finished):
            done, nodes = done + 1, nodes + count
        return {"depth": depth, "nodes": nodes}

    return session.search(request, slot, work, session.limits.perft_seconds)


def play(session: Session, request: Answer) -> Union[Answer, Job]:
    """The computer chooses a move and plays it (at a chance node: a roll, at once)."""
    slot = session.slot(request["game_id"])
    game = _free(slot)
    player = _player(session, request)
    if game.is_over():
        raise BrettError("the game is over")
    if game.is_chance_node():
        played = game.push(player.choose(game))
        return {"game_id": slot.game_id, "played": str(played), **state(game),
                "iterations": 0, "seconds": 0.0, "interrupted": False}
    snapshot = game.copy(stack=False)

    def work(job: Job) -> Answer:
        job.report = _search_report(player)
        best = player.analyse(snapshot)[0]
        with session.lock:
            if session.games.get(slot.game_id) is not slot:
                raise Interrupted(job.reason if job.stopper.stopped else "the game was closed")
            change = effects(game, best.move)
            played = game.push(best.move)
            slot.touch()
        return {"game_id": slot.game_id, "played": str(played), "effects": change,
                **state(game), **_search_info(player), "value": best.value}

    return session.search(request, slot, work, session.limits.search_seconds + 5,
                          on_stop=player.stop, budget=player.seconds)


def hint(session: Session, request: Answer) -> Job:
    """The search's statistics of each move, best first; nothing is played."""
    slot = session.slot(request["game_id"])
    player = _player(session, request)
    if slot.game.is_over():
        raise BrettError("the game is over")
    if slot.game.is_chance_node():
        raise BrettError("a chance node: the dice decide, there is nothing to analyse")
    snapshot = slot.game.copy(stack=False)
    limit = request.get("limit", MAX_LIST)
    ply = len(slot.game.move_stack)

    def work(job: Job) -> Answer:
        job.report = _search_report(player)
        stats = player.analyse(snapshot)
        return {"game_id": slot.game_id, "ply": ply,
                "moves": [_move_stats(s) for s in stats[:limit]], **_search_info(player)}

    return session.search(request, slot, work, session.limits.search_seconds + 5,
                          on_stop=player.stop, budget=player.seconds)


def _player(session: Session, request: Answer) -> Any:
    """The MCTSPlayer of a ``play`` or ``hint`` request's budget: ``level``, or
    ``seconds`` and/or ``iterations`` (the first reached ends the search)."""
    from ..ai import LEVELS, MCTSPlayer

    seed = request.get("seed")
    cap = session.limits.search_seconds
    if "level" in request:
        if "seconds" in request or "iterations" in request:
            raise ProtocolError("\"level\" is a budget of its own: give it without "
                                "\"seconds\" and \"iterations\"")
        level_iterations, level_seconds = LEVELS[request["level"]]
        return MCTSPlayer(seconds=min(level_seconds, cap), iterations=level_iterations,
                          seed=seed)
    seconds: Optional[float] = request.get("seconds")
    iterations: Optional[int] = request.get("iterations")
    if seconds is not None and seconds > cap:
        raise LimitExceeded(f"\"seconds\" {seconds:g}: this server searches at most {cap:g} s")
    if seconds is None:
        seconds = DEFAULT_SECONDS if iterations is None else cap
    return MCTSPlayer(seconds=seconds, iterations=iterations, seed=seed)


def _search_report(player: Any) -> Callable[[], Answer]:
    def report() -> Answer:
        now = player.progress()
        iterations, seconds = now if now is not None else (0, 0.0)
        return {"iterations": iterations, "seconds": round(seconds, 3)}
    return report


def _move_stats(stats: Any) -> dict[str, Any]:
    """A hint's move; ``turns`` only where Schuft's endgame tables answered."""
    row = {"move": str(stats.move), "visits": stats.visits, "value": stats.value}
    if stats.turns is not None:
        row["turns"] = stats.turns
    return row


def _search_info(player: Any) -> Answer:
    info = player.last_search
    return {"iterations": info.iterations, "seconds": round(info.seconds, 6),
            "interrupted": info.interrupted}


# ------------------------------------------------------------------ the table
COMMANDS: dict[str, Command] = {
    "hello": Command({}, hello, locked=False),
    "games": Command({}, games, locked=False),
    "new": Command({"game": text(), "options": Field(("object",))}, new),
    "close": Command(GAME_ID, close),
    "list": Command({}, list_),
    "state": Command({**GAME_ID, **PLY}, state_),
    "legal": Command({**GAME_ID, **LIMIT, "prefix": Field(("array",))}, legal, long=True),
    "move": Command({**GAME_ID, "move": text()}, move),
    "undo": Command(GAME_ID, undo),
    "roll": Command({**GAME_ID, "roll": text()}, roll),
    "random_move": Command({**GAME_ID, **SEED}, random_move),
    "svg": Command({**GAME_ID, **PLY, "options": Field(("object",))}, svg),
    "save": Command({**GAME_ID, "format": Field(("string",), choices=RECORD_FORMATS)}, save),
    "load": Command({"record": Field(("object", "string"), required=True, length=RECORD_TEXT),
                     "format": Field(("string",), choices=RECORD_FORMATS)}, load, long=True),
    "perft": Command({**GAME_ID, "depth": integer(0, MAX_PERFT_DEPTH, required=True),
                      "count_finished": Field(("boolean",)), **PROGRESS}, perft),
    "play": Command({**GAME_ID, **BUDGET}, play),
    "hint": Command({**GAME_ID, **BUDGET, **LIMIT}, hint),
    "stop": Command({"game_id": text(required=False),
                     "request": Field(("string", "integer", "number", "null", "boolean"))},
                    stop, locked=False),
    "quit": Command({}, quit_, locked=False),
}

__all__ = ["COMMANDS", "MAX_LIST", "Command", "opened"]
