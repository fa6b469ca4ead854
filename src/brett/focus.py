"""Focus (Sid Sackson, 1963) for 2, 3 and 4 players, rules F1–F13 (docs/rules/focus.md).

The rules engine lives in the cores (``brett._core._focus_c`` / ``_focus_py``);
this module holds the Python side: options, notation, position strings,
outcome, board access, the text board and the CLI options.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Optional, Union

from ._checks import (
    MAX_PLIES,
    as_int,
    digits,
    flag,
    option_int,
    optional_cap,
    seed_value,
    text_field,
)
from ._core import _focus_py as _fp
from ._core._focus_py import (
    COLOURS,
    ENTRY_BASE,
    MAX_COUNT,
    MIRROR_BROKEN,
    MIRROR_OK,
    NUM_ACTIONS,
    NUM_SQUARES,
    PAIR_INDEX,
    REASONS,
    RULES,
    SQUARE_INDEX,
    SQUARE_NAMES,
    SQUARE_XY,
    XY_INDEX,
    FocusState,
)
from .errors import BrettError, InvalidMoveError, InvalidPositionError
from .game import (
    MAX_PLIES_OPTION,
    SEED_OPTION,
    TERMINAL,
    Game,
    GameOption,
    Outcome,
    load_cores,
)

if TYPE_CHECKING:
    import argparse

_cores = load_cores("focus")

_NAMES = ("red", "green", "blue", "yellow")
_RANK_WIDTH = {8: 4, 7: 6, 2: 6, 1: 4}

# Start positions (F3), rank 8 first; '#' cut, '.' empty.
_START = {
    2: ("##....##", "#rrggrr#", ".ggrrgg.", ".rrggrr.",
        ".ggrrgg.", ".rrggrr.", "#ggrrgg#", "##....##"),
    3: ("##....##", "#rrggbb#", ".ggbbrr.", ".bbrrgg.",
        ".rrggbb.", ".ggbbrr.", "#bbrrgg#", "##....##"),
    4: ("##rrby##", "#yyybyb#", "rrrrbyby", "yyyybyby",
        "grgrgggg", "grgrbbbb", "#rgrggg#", "##grbb##"),
}


def _start_board(players: int) -> list[list[int]]:
    board: list[list[int]] = [[] for _ in range(NUM_SQUARES)]
    for row, text in enumerate(_START[players]):
        y = 7 - row
        for x, ch in enumerate(text):
            if ch in COLOURS:
                board[XY_INDEX[(x, y)]] = [COLOURS.index(ch)]
    return board


def _is_symmetric(board: list[list[int]]) -> bool:
    """F9: the 2-player board maps onto itself under a 180° turn with colours swapped."""
    for sq, stack in enumerate(board):
        if [1 - c for c in board[_fp.MIRROR_SQUARE[sq]]] != stack:
            return False
    return True


def _square(text: Any, what: str, error: type[BrettError] = InvalidMoveError) -> int:
    if not isinstance(text, str) or len(text) > 8:
        raise error(f"{what} {text!r} is not a square name like 'c3'")
    sq = SQUARE_INDEX.get(text.strip().lower())
    if sq is None:
        raise error(f"{what} {text!r} is not one of the 52 playable squares (F1)")
    return sq


# ------------------------------------------------------------------ the move
@dataclass(frozen=True)
class FocusMove:
    """A Focus move: a stack move ``c3-c5`` (``c3-c4:2`` when the count of pieces
    differs from the distance) or a reserve entry ``+e5`` (``source=None``).

    >>> FocusMove("c3", "c5")
    FocusMove(source='c3', target='c5', count=2)
    >>> str(FocusMove("c3", "c4", 2)), str(FocusMove(None, "e5"))
    ('c3-c4:2', '+e5')
    """

    source: Optional[str]
    target: str
    count: Optional[int] = None

    def __post_init__(self) -> None:
        dst = _square(self.target, "target")
        object.__setattr__(self, "target", SQUARE_NAMES[dst])
        if self.count is not None:
            object.__setattr__(self, "count", as_int(self.count, "count", 1, 5, InvalidMoveError))
        if self.source is None:
            if self.count not in (None, 1):
                raise InvalidMoveError(f"an entry places one piece, not {self.count!r}")
            object.__setattr__(self, "count", 1)
            return
        src = _square(self.source, "source")
        object.__setattr__(self, "source", SQUARE_NAMES[src])
        (x0, y0), (x1, y1) = SQUARE_XY[src], SQUARE_XY[dst]
        if (x0 != x1) == (y0 != y1):
            raise InvalidMoveError(
                f"{self.source}-{self.target}: a stack moves in a straight line "
                "north, east, south or west (F5)")
        distance = abs(x1 - x0) + abs(y1 - y0)
        count = distance if self.count is None else self.count
        if not distance <= count <= 5:
            raise InvalidMoveError(
                f"{self.source}-{self.target}:{count}: the count of pieces must be from "
                f"the distance ({distance}) to 5")
        object.__setattr__(self, "count", count)

    @property
    def is_entry(self) -> bool:
        return self.source is None

    @property
    def distance(self) -> int:
        if self.source is None:
            return 0
        (x0, y0), (x1, y1) = SQUARE_XY[SQUARE_INDEX[self.source]], \
            SQUARE_XY[SQUARE_INDEX[self.target]]
        return abs(x1 - x0) + abs(y1 - y0)

    def __str__(self) -> str:
        if self.source is None:
            return f"+{self.target}"
        if self.count == self.distance:
            return f"{self.source}-{self.target}"
        return f"{self.source}-{self.target}:{self.count}"


@dataclass(frozen=True)
class FocusEffects:
    """What a Focus move changes (:meth:`Focus.effects`).

    ``source`` is the square the pieces leave (None for an ``entry`` from the
    reserve), ``target`` where they land; ``moved`` the pieces moved, bottom to
    top, as players (colours).  ``left`` holds the pieces that overflow off the
    bottom of the target stack (F6), bottom first, split into ``captured`` (every
    other colour, a team partner's too) and ``reserved`` (the mover's own, which go
    to the mover's reserve).  ``player`` is the mover.
    """

    source: Optional[str]
    target: str
    moved: tuple[int, ...]
    left: tuple[int, ...]
    captured: tuple[int, ...]
    reserved: tuple[int, ...]
    entry: bool
    player: int


_MOVE_RE = re.compile(r"([a-h][1-8])-([a-h][1-8])(?::([0-9]))?")
_ENTRY_RE = re.compile(r"\+([a-h][1-8])")
_DIGITS = re.compile(r"[0-9]+")


def _action_of(move: FocusMove) -> int:
    dst = SQUARE_INDEX[move.target]
    if move.source is None:
        return ENTRY_BASE + dst
    src = SQUARE_INDEX[move.source]
    (x0, y0), (x1, y1) = SQUARE_XY[src], SQUARE_XY[dst]
    direction = 0 if y1 > y0 else 1 if x1 > x0 else 2 if y1 < y0 else 3
    assert move.count is not None
    return (src * 4 + direction) * 15 + PAIR_INDEX[(move.count, move.distance)]


def _move_of(action: int) -> FocusMove:
    src, dst, k, _, _ = _fp.decode(action)
    if dst < 0:
        raise InvalidMoveError(f"action {action} would move a stack off the board")
    if src < 0:
        return FocusMove(None, SQUARE_NAMES[dst])
    return FocusMove(SQUARE_NAMES[src], SQUARE_NAMES[dst], k)


def parse_move(text: str) -> FocusMove:
    """``c3-c5``, ``c3-c4:2`` or ``+e5`` (case-insensitive) → a :class:`FocusMove`."""
    if not isinstance(text, str) or len(text) > 40:
        raise InvalidMoveError(f"{text!r} is not Focus move notation")
    s = text.strip().lower()
    m = _ENTRY_RE.fullmatch(s)
    if m:
        return FocusMove(None, m.group(1))
    m = _MOVE_RE.fullmatch(s)
    if not m:
        raise InvalidMoveError(
            f"{text!r} is not Focus move notation: expected e.g. 'c3-c5', 'c3-c4:2' "
            "or '+e5' (F10)")
    count = None if m.group(3) is None else int(m.group(3))
    return FocusMove(m.group(1), m.group(2), count)


# ------------------------------------------------------------------ the game
class Focus(Game[FocusMove]):
    """Focus (Sid Sackson) for 2, 3 or 4 players: ``Focus(players=2, teams=True,
    move_rule="exact", swap=None, mirror_rule=False, max_plies=None, seed=None)``.

    >>> game = Focus()
    >>> game.perft(2)
    4460
    >>> game.push("c3-c4")
    FocusMove(source='c3', target='c4', count=1)
    >>> game.stack("c4"), game.piece_at("c4")
    ('gr', (1, 0))

    Integer actions (``legal_actions()``, ``apply_action()``), a fixed encoding
    for every variant, 3172 in all.  Squares ``s`` are numbered 0..51 over the
    playable squares from rank 1 to rank 8, files a to h within a rank (c1 = 0,
    f8 = 51); directions 0..3 = north, east, south, west:

    * stack move, top ``k`` pieces over ``d`` squares (``1 <= d <= k <= 5``):
      ``(s * 4 + dir) * 15 + k * (k - 1) // 2 + d - 1``   (0..3119)
    * reserve entry onto ``s``: ``3120 + s``   (3120..3171)
    """

    game_name: ClassVar[str] = "focus"
    Move: ClassVar[type] = FocusMove
    _move_types: ClassVar[tuple[type, ...]] = (FocusMove,)
    _cores = _cores
    _core_class_name: ClassVar[str] = "FocusCore"
    _state_bytes = 56 << 10   # measured: 8.0 KB compiled, 38 to 40 KB plain
    if TYPE_CHECKING:  # precise types for the type checker; the base does the work
        def effects(self, move: FocusMove | str) -> FocusEffects: ...

    OPTIONS = (
        GameOption("players", ("integer",), 2, "number of players", 2, 4),
        GameOption("teams", ("boolean",), True, "four players play as two teams (red and blue "
                   "against green and yellow)", only_with=(("players", (4,)),)),
        GameOption("move_rule", ("string",), "exact", "how far a stack moves",
                   choices=("exact", "up_to", "whole")),
        GameOption("swap", ("string", "array", "null"), None,
                   "2 players: trade a red and a green piece, 'random' or two squares like "
                   "c3,d3 (F9)", only_with=(("players", (2,)),)),
        GameOption("mirror_rule", ("boolean",), False,
                   "2 players: the mirror rule of F9", only_with=(("players", (2,)),)),
        MAX_PLIES_OPTION,
        SEED_OPTION,
    )
    _search_plies = 30   # random Focus games run for thousands of moves: brett.ai cuts them

    _swap: Optional[tuple[str, str]]

    def __init__(self, players: int = 2, teams: bool = True, move_rule: str = "exact",
                 swap: Union[str, tuple[str, str], list[str], None] = None,
                 mirror_rule: bool = False, max_plies: Optional[int] = None,
                 seed: Optional[int] = None) -> None:
        players = option_int(players, "players", 2, 4)
        teams = flag(teams, "teams")
        mirror_rule = flag(mirror_rule, "mirror_rule")
        if not isinstance(move_rule, str) or move_rule not in RULES:
            raise InvalidPositionError(
                f"move_rule={move_rule!r}: expected one of {', '.join(map(repr, RULES))}")
        cap = optional_cap(max_plies)
        rng = random.Random(seed_value(seed, error=InvalidPositionError))
        if players != 2 and (swap is not None or mirror_rule):
            raise InvalidPositionError(
                "swap and mirror_rule are 2-player options (F9), "
                f"not for players={players}")
        board = _start_board(players)
        self._swap = None
        if swap is not None:
            self._swap = self._apply_swap(board, swap, rng)
        state = FocusState(
            players=players, teams=teams and players == 4, rule=RULES.index(move_rule),
            max_plies=cap, mirror_rule=mirror_rule,
            board=tuple(tuple(s) for s in board), to_move=0,
            reserves=(1,) * 3 if players == 3 else (0,) * players,
            captured=((0,) * players,) * players, returned=(0,) * players,
            first=0b111 if players == 3 else 0, ply=0,
            mirror=MIRROR_OK if mirror_rule else MIRROR_BROKEN)
        self._setup(state, rng)

    @staticmethod
    def _apply_swap(board: list[list[int]], swap: Any, rng: random.Random) -> tuple[str, str]:
        """F9: trade one red and one green piece; returns the two squares."""
        if isinstance(swap, str) and swap == "random":
            reds = [sq for sq, s in enumerate(board) if s == [0]]
            greens = [sq for sq, s in enumerate(board) if s == [1]]
            while True:
                a, b = rng.choice(reds), rng.choice(greens)
                board[a], board[b] = board[b], board[a]
                if not _is_symmetric(board):
                    return SQUARE_NAMES[a], SQUARE_NAMES[b]
                board[a], board[b] = board[b], board[a]
        if not isinstance(swap, (tuple, list)) or len(swap) != 2:
            raise InvalidPositionError(
                f"swap={swap!r}: expected None, 'random' or two squares like ('c3', 'd3')")
        a, b = (_square(s, "swap square", InvalidPositionError) for s in swap)
        if sorted((board[a], board[b])) != [[0], [1]]:
            raise InvalidPositionError(
                f"swap={swap!r}: needs one square with a red and one with a green piece")
        board[a], board[b] = board[b], board[a]
        if _is_symmetric(board):
            raise InvalidPositionError(
                f"swap={swap!r}: these two squares are mirror images, so the swap leaves the "
                "position symmetric (F9)")
        return SQUARE_NAMES[a], SQUARE_NAMES[b]

    # ---- options read back from the core state
    def _state(self) -> FocusState:
        state: FocusState = self._core.get_state()
        return state

    def num_players(self) -> int:
        return int(self._root.players)

    def player_name(self, player: int) -> str:
        return f"{_NAMES[player].capitalize()} ({COLOURS[player]})"

    def num_distinct_actions(self) -> int:
        """3172: 3120 stack-move actions plus 52 entries (see the class docstring)."""
        return NUM_ACTIONS

    @property
    def move_rule(self) -> str:
        return RULES[self._root.rule]

    @property
    def teams(self) -> bool:
        return bool(self._root.teams)

    @property
    def mirror_rule(self) -> bool:
        return bool(self._root.mirror_rule)

    @property
    def max_plies(self) -> Optional[int]:
        cap = self._root.max_plies
        return None if cap < 0 else int(cap)

    @property
    def swap(self) -> Optional[tuple[str, str]]:
        """The two squares traded before the first move (F9), or None."""
        return self._swap

    def reserves(self) -> tuple[int, ...]:
        """Pieces each player has in reserve."""
        return tuple(self._state().reserves)

    def captured(self) -> tuple[tuple[int, ...], ...]:
        """``captured()[p][c]``: pieces of colour c that player p has captured."""
        return tuple(self._state().captured)

    def stack(self, square: str) -> str:
        """The stack on a square, bottom to top, as piece letters ('' when empty)."""
        sq = _square(square, "square", InvalidPositionError)
        return "".join(COLOURS[c] for c in self._state().board[sq])

    @property
    def ply(self) -> int:
        return int(self._state().ply)

    # ---- board access
    @property
    def squares(self) -> list[str]:
        """The 52 playable squares, rank 1 to rank 8 (the action numbering)."""
        return list(SQUARE_NAMES)

    def piece_at(self, square: str) -> Optional[tuple[int, ...]]:
        """The stack on ``square``, bottom to top, as players (colours), or None."""
        sq = _square(square, "square", InvalidMoveError)
        stack = self._state().board[sq]
        return tuple(stack) if stack else None

    def piece_map(self) -> dict[str, tuple[int, ...]]:
        """``{square: stack bottom to top}`` for every occupied square."""
        board = self._state().board
        return {SQUARE_NAMES[sq]: tuple(stack) for sq, stack in enumerate(board) if stack}

    # ---- moves
    @staticmethod
    def parse_move(text: str) -> FocusMove:
        """``c3-c5``, ``c3-c4:2`` or ``+e5`` (case-insensitive) → a :class:`FocusMove`."""
        return parse_move(text)

    def _move_from_core(self, cm: int) -> FocusMove:
        return _move_of(cm)

    def _core_from_move(self, move: FocusMove) -> int:
        return _action_of(move)

    def _click_path(self, move: FocusMove) -> tuple[str, ...]:
        """The stack, the target, the number of pieces; or ``"reserve"``, the target."""
        if move.source is None:
            return ("reserve", move.target)
        return (move.source, move.target, str(move.count))

    def _effects(self, move: FocusMove, after: Focus) -> FocusEffects:
        player = self._state().to_move
        board = self._state().board
        dst = SQUARE_INDEX[move.target]
        if move.source is None:
            moved: tuple[int, ...] = (player,)
        else:
            assert move.count is not None
            moved = tuple(board[SQUARE_INDEX[move.source]][-move.count:])
        stack = (*board[dst], *moved)
        left = stack[:len(stack) - len(after._state().board[dst])]
        return FocusEffects(
            move.source, move.target, moved, left,
            captured=tuple(c for c in left if c != player),
            reserved=tuple(c for c in left if c == player),
            entry=move.source is None, player=player)

    def _illegal_reason(self, move: FocusMove) -> str:
        state = self._state()
        p = state.to_move
        letter = COLOURS[p]
        if move.source is None:
            if state.reserves[p] == 0:
                return f"{_NAMES[p]} ({letter}) has no piece in reserve"
            return "the first entry must go onto an empty square (F8)"
        if state.first >> p & 1:
            return f"{_NAMES[p]} must first enter the reserve piece onto an empty square (F8)"
        stack = state.board[SQUARE_INDEX[move.source]]
        if not stack:
            return f"{move.source} is empty"
        if stack[-1] != p:
            return f"the stack on {move.source} belongs to {_NAMES[stack[-1]]}, not {_NAMES[p]}"
        if move.count is not None and move.count > len(stack):
            return f"the stack on {move.source} has only {len(stack)} piece(s)"
        rule = RULES[state.rule]
        if rule == "exact":
            return "under move_rule='exact' the top k pieces move exactly k squares"
        if rule == "whole":
            return (f"under move_rule='whole' the whole stack of {len(stack)} moves exactly "
                    f"{len(stack)} squares")
        return "it is not a legal move in this position"

    # ---- observation
    def observation_tensor_shape(self) -> tuple[int, int, int]:
        """``(6 * players + 1, 8, 8)`` planes, row = rank - 1, column = file:

        * planes ``level * n + i`` (level 0..4 from the bottom): 1 where a piece of
          the ``i``-th player after the mover (``i = 0``: the mover) stands at that
          level;
        * plane ``5 * n``: 1 on the 52 playable squares;
        * planes ``5 * n + 1 + i``: the reserve of player ``i`` (same order) on
          every playable square.

        The view is the player to move's (player 0's once the game is over).
        """
        return (6 * self.num_players() + 1, 8, 8)

    def _observation(self) -> list[float]:
        st = self._state()
        n = st.players
        me = max(self._core.player(), 0)
        values = [0.0] * ((6 * n + 1) * 64)
        for sq, stack in enumerate(st.board):
            x, y = SQUARE_XY[sq]
            cell = y * 8 + x
            for level, colour in enumerate(stack):
                values[(level * n + (colour - me) % n) * 64 + cell] = 1.0
            values[5 * n * 64 + cell] = 1.0
            for i in range(n):
                values[(5 * n + 1 + i) * 64 + cell] = float(st.reserves[(me + i) % n])
        return values

    # ---- result
    def outcome(self) -> Optional[Outcome]:
        result = self._core.result()  # type: ignore[attr-defined]
        if result is None:
            return None
        winners, reason = result
        n = self.num_players()
        return Outcome(tuple(p for p in range(n) if winners >> p & 1), (), REASONS[reason])

    # ---- position strings (F12)
    def position(self) -> str:
        """``<board> <to-move> <reserves> <captured> [options]`` (see
        :doc:`docs/focus.md <focus>`)."""
        st = self._state()
        ranks = []
        for y in range(7, -1, -1):
            cells = []
            for x in range(8):
                sq = XY_INDEX.get((x, y))
                if sq is not None:
                    stack = st.board[sq]
                    cells.append("".join(COLOURS[c] for c in stack) or ".")
            ranks.append(",".join(cells))
        n = st.players
        parts = ["/".join(ranks), COLOURS[st.to_move], ",".join(map(str, st.reserves)),
                 ",".join("".join(f"{COLOURS[c]}{row[c]}" for c in range(n) if row[c]) or "-"
                          for row in st.captured)]
        if n == 4 and not st.teams:
            parts.append("ffa")
        if st.rule:
            parts.append(f"rule={RULES[st.rule]}")
        if st.max_plies >= 0:
            parts.append(f"cap={st.max_plies}")
        if st.ply:
            parts.append(f"ply={st.ply}")
        if st.first:
            parts.append("first=" + "".join(COLOURS[p] for p in range(n) if st.first >> p & 1))
        if any(st.returned):
            parts.append("returned=" + ",".join(map(str, st.returned)))
        if st.mirror_rule:
            m = st.mirror
            parts.append("mirror=" + ("ok" if m == MIRROR_OK else "no" if m == MIRROR_BROKEN
                                      else str(_move_of(m))))
        if self._swap is not None:
            parts.append(f"swap={self._swap[0]},{self._swap[1]}")
        return " ".join(parts)

    @classmethod
    def from_position(cls, position: str) -> Focus:
        """The game at a position string; :class:`InvalidPositionError` if malformed."""
        state, swap = _parse_position(position)
        game = cls.__new__(cls)
        game._swap = swap
        game._setup(state)
        return game

    # ---- text board
    def __str__(self) -> str:
        st = self._state()
        stacks = self.piece_map()
        lines = [("     " + "".join(f"{f:<8}" for f in "abcdefgh")).rstrip()]
        for y in range(7, -1, -1):
            cells = []
            for x in range(8):
                sq = XY_INDEX.get((x, y))
                if sq is None:
                    cells.append("#")
                    continue
                stack = stacks.get(SQUARE_NAMES[sq])
                cells.append("".join(COLOURS[c] for c in stack) + f":{len(stack)}"
                             if stack else ".")
            lines.append(f"{y + 1}    " + "".join(f"{c:<8}" for c in cells).rstrip())
        n = st.players
        player = self._core.player()
        turn = "game over" if player == TERMINAL else \
            f"{COLOURS[player]} ({_NAMES[player]}) to move"
        lines.append(f"stacks bottom→top:height; ply {st.ply}; {turn}")
        lines.append("reserves " + " ".join(f"{COLOURS[p]}{st.reserves[p]}" for p in range(n))
                     + "; captured " + " ".join(
                         f"{COLOURS[p]}:" + ("".join(f"{COLOURS[c]}{st.captured[p][c]}"
                                                     for c in range(n) if st.captured[p][c])
                                             or "-") for p in range(n)))
        outcome = self.outcome()
        if outcome is not None:
            who = "draw" if outcome.is_draw else "winner " + "+".join(
                COLOURS[p] for p in outcome.winners)
            lines.append(f"result: {who} ({outcome.reason})")
        return "\n".join(lines)

    # ---- CLI
    @classmethod
    def cli_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--players", type=int, choices=(2, 3, 4), default=2,
                            help="number of players (default 2)")
        parser.add_argument("--no-teams", action="store_true",
                            help="4 players: free-for-all instead of teams")
        parser.add_argument("--move-rule", choices=RULES, default="exact",
                            help="F11 variant (default exact)")
        parser.add_argument("--swap", metavar="SQ,SQ|random",
                            help="trade a red and a green piece (F9)")
        parser.add_argument("--mirror-rule", action="store_true",
                            help="2 players: the mirror rule (F9)")
        parser.add_argument("--max-plies", type=int, help="ply cap: reaching it is a draw")
        parser.add_argument("--seed", type=int, help="seed for the random swap")

    @classmethod
    def from_cli(cls, args: argparse.Namespace) -> Focus:
        swap: Any = args.swap
        if swap is not None and swap != "random":
            swap = tuple(swap.split(","))
        return cls(players=args.players, teams=not args.no_teams, move_rule=args.move_rule,
                   swap=swap, mirror_rule=args.mirror_rule, max_plies=args.max_plies,
                   seed=args.seed)


# ------------------------------------------------------------ position parsing
def _parse_position(text: Any) -> tuple[FocusState, Optional[tuple[str, str]]]:
    def bad(reason: str) -> InvalidPositionError:
        return InvalidPositionError(f"bad Focus position {text!r}: {reason}")

    text_field(text, "a Focus position", limit=2000)
    fields = text.split()
    if len(fields) < 4:
        raise bad("expected '<board> <to-move> <reserves> <captured> [options]'")
    board_text, to_move_text, reserves_text, captured_text = fields[:4]
    reserves_parts = reserves_text.split(",")
    n = len(reserves_parts)
    if n not in (2, 3, 4):
        raise bad(f"reserves {reserves_text!r}: need one count per player (2, 3 or 4)")

    def count(value: str, what: str, limit: int = NUM_SQUARES) -> int:
        if not _DIGITS.fullmatch(value) or len(value) > 3 or int(value) > limit:
            raise bad(f"{what} {value!r} is not a count from 0 to {limit}")
        return int(value)

    reserves = tuple(count(v, "reserve") for v in reserves_parts)
    letters = COLOURS[:n]

    ranks = board_text.split("/")
    if len(ranks) != 8:
        raise bad(f"the board needs 8 ranks separated by '/', found {len(ranks)}")
    board: list[tuple[int, ...]] = [() for _ in range(NUM_SQUARES)]
    for rank_index, rank in enumerate(ranks):
        y = 7 - rank_index
        cells = rank.split(",")
        width = _RANK_WIDTH.get(y + 1, 8)
        if len(cells) != width:
            raise bad(f"rank {y + 1} needs {width} squares, found {len(cells)}")
        xs = [x for x in range(8) if (x, y) in XY_INDEX]
        for x, cell in zip(xs, cells):  # noqa: B905 (lengths checked above)
            if cell == ".":
                continue
            if not cell or len(cell) > 5 or any(c not in letters for c in cell):
                raise bad(f"square {SQUARE_NAMES[XY_INDEX[(x, y)]]}: {cell!r} is not '.' or a "
                          f"stack of 1 to 5 pieces from {letters!r}")
            board[XY_INDEX[(x, y)]] = tuple(letters.index(c) for c in cell)

    if len(to_move_text) != 1 or to_move_text not in letters:
        raise bad(f"to-move {to_move_text!r} is not one of {', '.join(letters)}")
    to_move = letters.index(to_move_text)

    captured_parts = captured_text.split(",")
    if len(captured_parts) != n:
        raise bad(f"captured {captured_text!r}: need {n} comma-separated entries "
                  "('-' or colour letters with counts like 'g3b1')")
    captured: list[tuple[int, ...]] = []
    for p, part in enumerate(captured_parts):
        row: list[int] = [0] * n
        if part != "-":
            items = re.findall(r"([a-z])([0-9]+)", part)
            if not items or "".join(a + b for a, b in items) != part:
                raise bad(f"captured entry {part!r} is not '-' or like 'g3b1'")
            for letter, value in items:
                if letter not in letters or letters.index(letter) == p:
                    raise bad(f"captured entry {part!r}: {letters[p]} cannot capture "
                              f"{letter!r} pieces")
                colour = letters.index(letter)
                if row[colour]:
                    raise bad(f"captured entry {part!r} names {letter!r} twice")
                row[colour] = count(value, "captured count")
                if row[colour] == 0:
                    raise bad(f"captured entry {part!r}: leave out zero counts")
        captured.append(tuple(row))

    teams = n == 4
    rule = 0
    cap = -1
    ply = 0
    first = 0
    returned: tuple[int, ...] = (0,) * n
    mirror_rule = False
    mirror = MIRROR_BROKEN
    swap: Optional[tuple[str, str]] = None
    seen = set()
    mirror_text = None
    for token in fields[4:]:
        key, eq, value = token.partition("=")
        if key in seen:
            raise bad(f"option {key!r} given twice")
        seen.add(key)
        if token == "ffa":
            if n != 4:
                raise bad("'ffa' (free-for-all) is a 4-player option")
            teams = False
        elif not eq or not value:
            raise bad(f"unknown option {token!r}")
        elif key == "rule":
            if value not in RULES[1:]:
                raise bad(f"rule={value!r}: expected 'up_to' or 'whole' (exact is the default)")
            rule = RULES.index(value)
        elif key == "cap":
            cap = digits(value, f"bad Focus position {text!r}: cap=", MAX_PLIES, low=1)
        elif key == "ply":
            ply = digits(value, f"bad Focus position {text!r}: ply=", MAX_PLIES, low=1)
        elif key == "first":
            if n != 3:
                raise bad("'first' (owed first entries, F8) is a 3-player option")
            if len(set(value)) != len(value) or any(c not in letters for c in value):
                raise bad(f"first={value!r}: expected distinct letters from {letters!r}")
            for letter in value:
                p = letters.index(letter)
                if reserves[p] == 0:
                    raise bad(f"first={value!r}: {letter} owes a first entry but has no reserve")
                first |= 1 << p
        elif key == "returned":
            if n != 3:
                raise bad("'returned' (own pieces sent to reserve, F7) is a 3-player option")
            parts = value.split(",")
            if len(parts) != 3:
                raise bad(f"returned={value!r}: need 3 counts")
            returned = tuple(count(v, "returned count", MAX_COUNT) for v in parts)
        elif key == "mirror":
            if n != 2:
                raise bad("'mirror' (the mirror rule, F9) is a 2-player option")
            mirror_rule = True
            mirror_text = value
        elif key == "swap":
            if n != 2:
                raise bad("'swap' (F9) is a 2-player option")
            squares = value.split(",")
            if len(squares) != 2 or any(s not in SQUARE_INDEX for s in squares) \
                    or squares[0] == squares[1]:
                raise bad(f"swap={value!r}: expected two squares like 'c3,d3'")
            swap = (squares[0], squares[1])
        else:
            raise bad(f"unknown option {token!r}")
    if mirror_text is not None:
        if mirror_text == "ok":
            mirror = MIRROR_OK
        elif mirror_text == "no":
            mirror = MIRROR_BROKEN
        else:
            try:
                mirror = _action_of(parse_move(mirror_text))
            except InvalidMoveError as exc:
                raise bad(f"mirror={mirror_text!r}: expected 'ok', 'no' or the move player 1 "
                          "must answer") from exc
            if mirror_text != str(_move_of(mirror)):
                raise bad(f"mirror={mirror_text!r}: write the move as {_move_of(mirror)}")
            if to_move != 1:
                raise bad(f"mirror={mirror_text!r}: a pending mirror reply needs g to move")
    for c in range(n):
        total = sum(s.count(c) for s in board) + reserves[c] + sum(row[c] for row in captured)
        if total > NUM_SQUARES:
            raise bad(f"{total} pieces of colour {letters[c]!r}: at most {NUM_SQUARES}")
    state = FocusState(n, teams, rule, cap, mirror_rule, tuple(board), to_move, reserves,
                       tuple(captured), returned, first, ply, mirror)
    return state, swap


__all__ = ["NUM_ACTIONS", "Focus", "FocusEffects", "FocusMove"]
