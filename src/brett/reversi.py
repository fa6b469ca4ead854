"""Reversi (Othello) with blocked squares, other board sizes, the octagon and handicaps.

The rules are docs/rules/reversi.md (R1–R8).  Squares are written ``d3``: file
``a…`` left to right, row ``1…n`` top to bottom.  The integer layer numbers the
squares ``row * n + col`` (``a1`` = 0, ``b1`` = 1, …) and the pass ``n * n``.
"""

from __future__ import annotations

import operator
import random
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Optional, Union

from ._checks import as_int, ascii_digits, option_int, seed_value, text_field
from ._core._reversi_py import SIZES
from .errors import BrettError, InvalidMoveError, InvalidPositionError
from .game import SEED_OPTION, TERMINAL, Game, GameOption, Outcome, load_cores

if TYPE_CHECKING:
    import argparse

_cores = load_cores("reversi")

FILES = "abcdefghijklmnop"
_SQUARE = re.compile(r"([a-p])([0-9]{1,2})")
_TOKEN = re.compile(r"pass|[a-p][0-9]{1,2}")
# The octagon ("88 Othello"): a 10x10 board without three squares per corner.
OCTAGON_CUTS = ("a1", "b1", "a2", "i1", "j1", "j2", "a9", "a10", "b10", "j9", "i10", "j10")


# ------------------------------------------------------------------------ moves
class ReversiMove:
    """A Reversi move: a square index ``row * size + col``, or ``None`` for a pass.

    >>> ReversiMove.from_str("d3")
    ReversiMove(19, 8)
    >>> str(ReversiMove(None, 8))
    'pass'
    """

    __slots__ = ("size", "square")
    square: Optional[int]
    size: int

    def __init__(self, square: Optional[int], size: int = 8) -> None:
        size = as_int(size, "size", 4, 16, InvalidMoveError)
        if size not in SIZES:
            raise InvalidMoveError(f"bad board size {size!r} for a move: expected one of {SIZES}")
        if square is not None:
            square = as_int(square, "square", 0, size * size - 1, InvalidMoveError)
        object.__setattr__(self, "square", square)
        object.__setattr__(self, "size", size)

    @classmethod
    def from_str(cls, text: str, size: int = 8) -> ReversiMove:
        """Parse ``"d3"`` or ``"pass"`` (any case) for a board of ``size``."""
        if not isinstance(text, str) or len(text) > 40:
            raise InvalidMoveError(f"{text!r} is not a move: expected a string like 'd3' or 'pass'")
        t = text.strip().lower()
        if t == "pass":
            return cls(None, size)
        m = _SQUARE.fullmatch(t)
        if m is None:
            raise InvalidMoveError(f"{text!r} is not a move: expected a square like 'd3' or 'pass'")
        col, row = FILES.index(m.group(1)), int(m.group(2)) - 1
        if m.group(2).startswith("0") or not (0 <= col < size and 0 <= row < size):
            raise InvalidMoveError(f"{text!r} is not a square of the {size}x{size} board")
        return cls(row * size + col, size)

    @property
    def is_pass(self) -> bool:
        return self.square is None

    @property
    def row(self) -> Optional[int]:
        return None if self.square is None else self.square // self.size

    @property
    def col(self) -> Optional[int]:
        return None if self.square is None else self.square % self.size

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("ReversiMove is immutable")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ReversiMove):
            return NotImplemented
        return self.square == other.square and self.size == other.size

    def __hash__(self) -> int:
        return hash((self.square, self.size))

    def __str__(self) -> str:
        if self.square is None:
            return "pass"
        row, col = divmod(self.square, self.size)
        return f"{FILES[col]}{row + 1}"

    def __repr__(self) -> str:
        return f"ReversiMove({self.square!r}, {self.size!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (ReversiMove, (self.square, self.size))


@dataclass(frozen=True)
class ReversiEffects:
    """What a Reversi move changes (:meth:`Reversi.effects`): the ``square``
    played (None for a pass), the ``player`` who plays it and the ``flipped``
    discs, as square names in board order (``a1``, ``b1``, ..., ``a2``, ...)."""

    square: Optional[str]
    player: int
    flipped: tuple[str, ...]


_MOVE_TABLES: dict[int, tuple[ReversiMove, ...]] = {}
_NOTATION: dict[int, dict[str, ReversiMove]] = {}


def _move_table(n: int) -> tuple[ReversiMove, ...]:
    """Every move of an n x n board by core move (the pass last), built once."""
    table = _MOVE_TABLES.get(n)
    if table is None:
        table = (*(ReversiMove(sq, n) for sq in range(n * n)), ReversiMove(None, n))
        _MOVE_TABLES[n] = table
        _NOTATION[n] = {str(m): m for m in table}
    return table


def _square_name(sq: int, n: int) -> str:
    return f"{FILES[sq % n]}{sq // n + 1}"


def _parse_square(text: Any, n: int, what: str,
                  error: type[BrettError] = InvalidPositionError) -> int:
    if not isinstance(text, str) or len(text) > 8 or not _SQUARE.fullmatch(text.strip().lower()):
        raise error(f"{what} {text!r:.40}: expected a square name like 'b2'")
    try:
        move = ReversiMove.from_str(text, n)
    except InvalidMoveError as exc:
        raise error(f"{what} {text!r}: {exc}") from None
    if move.square is None:
        raise error(f"{what} {text!r}: expected a square, not a pass")
    return move.square


# ------------------------------------------------------------------------ the game
class Reversi(Game[ReversiMove]):
    """Reversi / Othello with blocked squares, sizes 4-16, the octagon and handicaps.

    ``Reversi(size=8, board="square", holes=0, handicap=0, handicap_color="black",
    seed=None)``; see :doc:`docs/reversi.md <reversi>`.

    >>> game = Reversi()
    >>> [str(m) for m in game.legal_moves]
    ['d3', 'c4', 'f5', 'e6']
    >>> game.perft(3)
    56
    >>> game.push("f5")
    ReversiMove(37, 8)
    >>> game.legal_actions()    # f4 d6 f6 as row * 8 + col
    [29, 43, 45]
    >>> game.piece_at("e5"), game.piece_at("a1")
    (0, None)
    """

    game_name: ClassVar[str] = "reversi"
    Move: ClassVar[type] = ReversiMove
    _move_types: ClassVar[tuple[type, ...]] = (ReversiMove,)
    _cores = _cores
    _core_class_name: ClassVar[str] = "ReversiCore"
    _state_bytes = 24 << 10   # measured: 5.8 KB (8×8) to 9.2 KB (16×16, plain twin)
    if TYPE_CHECKING:  # precise types for the type checker; the base does the work
        def effects(self, move: ReversiMove | str) -> ReversiEffects: ...

    OPTIONS = (
        GameOption("size", ("integer", "null"), None,
                   "board size (none: 8, and 10 for the octagon)", 4, 16, 2),
        GameOption("board", ("string",), "square", "board shape", choices=("square", "octagon")),
        GameOption("holes", ("integer", "string", "array"), 0,
                   "blocked squares: a count 0-4, 'random', or squares like b2,g7", 0, 4),
        GameOption("handicap", ("integer",), 0, "handicap corners", 0, 4),
        GameOption("handicap_color", ("string",), "black", "who gets the handicap corners",
                   choices=("black", "white"), only_with=(("handicap", (1, 2, 3, 4)),)),
        SEED_OPTION,
        GameOption("anti", ("boolean",), False, "anti-Reversi: the player with fewer discs wins"),
    )

    _size: int
    _anti: bool
    _octagon: bool
    _holes: tuple[int, ...]
    _pass: int
    _moves: tuple[ReversiMove, ...]
    _notation: dict[str, ReversiMove]

    def __init__(self, size: Optional[int] = None, board: str = "square",
                 holes: Union[int, str, Iterable[str]] = 0, handicap: int = 0,
                 handicap_color: str = "black", seed: Optional[int] = None,
                 anti: bool = False) -> None:
        if not isinstance(board, str) or board not in ("square", "octagon"):
            raise InvalidPositionError(f"board={board!r}: expected 'square' or 'octagon'")
        octagon = board == "octagon"
        if octagon:
            if size is not None and option_int(size, "size", 4, 16) != 10:
                raise InvalidPositionError(f"size={size!r}: the octagon board is always 10x10")
            n = 10
        else:
            n = 8 if size is None else option_int(size, "size", 4, 16)
            if n not in SIZES:
                raise InvalidPositionError(
                    f"size={size!r}: expected an even board size from 4 to 16")
        count = option_int(handicap, "handicap", 0, 4)
        if not isinstance(handicap_color, str) or handicap_color not in ("black", "white"):
            raise InvalidPositionError(
                f"handicap_color={handicap_color!r}: expected 'black' or 'white'")
        if not isinstance(anti, bool):
            raise InvalidPositionError(f"anti={anti!r}: expected True or False")
        rng = random.Random(seed_value(seed, error=InvalidPositionError))
        self._anti = anti
        self._setup_shape(n, octagon)
        cuts = self._cut_squares()
        discs: list[set[int]] = [set(), set()]
        h = n // 2
        discs[1] |= {(h - 1) * n + h - 1, h * n + h}      # White: top-left, bottom-right
        discs[0] |= {(h - 1) * n + h, h * n + h - 1}      # Black: the other two
        corners = self._handicap_squares()[:count]
        discs[0 if handicap_color == "black" else 1] |= set(corners)
        hole_set = self._choose_holes(holes, set(corners) | cuts, rng)
        self._holes = tuple(sorted(hole_set))
        state = (n, _bits(discs[0]), _bits(discs[1]), _bits(hole_set | cuts), 0)
        self._setup(state, rng)
        self._core.set_anti(anti)  # type: ignore[attr-defined]

    # ---- set-up helpers
    def _setup_shape(self, n: int, octagon: bool) -> None:
        self._size = n
        self._octagon = octagon
        self._pass = n * n
        self._moves = _move_table(n)
        self._notation = _NOTATION[n]

    def _cut_squares(self) -> set[int]:
        if not self._octagon:
            return set()
        return {_parse_square(s, 10, "cut square") for s in OCTAGON_CUTS}

    def _handicap_squares(self) -> list[int]:
        """The handicap corners in order: top-left, bottom-right, top-right, bottom-left."""
        n = self._size
        if self._octagon:  # [decision] b2, i9, i2, b9
            return [1 * n + 1, 8 * n + 8, 1 * n + 8, 8 * n + 1]
        return [0, n * n - 1, n - 1, (n - 1) * n]

    def _eligible_holes(self, taken: set[int]) -> list[int]:
        """Playable squares outside the central 4x4 block and not otherwise used (R3)."""
        n = self._size
        lo, hi = n // 2 - 2, n // 2 + 1
        return [sq for sq in range(n * n)
                if sq not in taken and not (lo <= sq // n <= hi and lo <= sq % n <= hi)]

    def _choose_holes(self, holes: Any, taken: set[int], rng: random.Random) -> set[int]:
        eligible = self._eligible_holes(taken)
        if isinstance(holes, str) and holes != "random":
            holes = [s for s in holes.split(",") if s.strip()]
        if holes == "random":
            return self._random_holes(rng.randint(1, 4), eligible, holes, rng)
        if not isinstance(holes, (str, bool)):
            try:
                count = operator.index(holes)
            except TypeError:
                pass
            else:
                if not 0 <= count <= 4:
                    raise InvalidPositionError(
                        f"holes={holes!r}: expected 0 to 4 holes, 'random' or a list of squares")
                return self._random_holes(count, eligible, holes, rng)
        if isinstance(holes, (bool, bytes)) or not isinstance(holes, Iterable):
            raise InvalidPositionError(
                f"holes={holes!r}: expected 0-4, 'random' or a list of squares")
        chosen: set[int] = set()
        for i, name in enumerate(holes):
            if i >= 4:
                raise InvalidPositionError(f"holes={holes!r}: at most 4 holes")
            sq = _parse_square(name.strip() if isinstance(name, str) else name, self._size,
                               "hole")
            if sq in chosen:
                raise InvalidPositionError(f"hole {name!r} is listed twice")
            if sq not in eligible:
                raise InvalidPositionError(
                    f"hole {name!r} is not allowed: holes must be playable squares outside "
                    f"the central 4x4 block and not a handicap corner")
            chosen.add(sq)
        return chosen

    def _random_holes(self, count: int, eligible: list[int], holes: Any,
                      rng: random.Random) -> set[int]:
        if count > len(eligible):
            raise InvalidPositionError(
                f"holes={holes!r}: the {self._shape_name()} board has "
                f"{len(eligible)} squares eligible for holes")
        return set(rng.sample(eligible, count))

    def _shape_name(self) -> str:
        return "octagon" if self._octagon else f"{self._size}x{self._size}"

    # ---- options
    @property
    def size(self) -> int:
        """The board's side (10 for the octagon)."""
        return self._size

    @property
    def board(self) -> str:
        """``"square"`` or ``"octagon"``."""
        return "octagon" if self._octagon else "square"

    @property
    def holes(self) -> list[str]:
        """The blocked squares (not the octagon's cut squares), e.g. ``['b4', 'e2']``."""
        return [_square_name(sq, self._size) for sq in self._holes]

    @property
    def squares(self) -> list[str]:
        """Every playable square (not holes, not the octagon's cuts), row by row."""
        blocked = self._core.get_state()[3]
        return [_square_name(sq, self._size) for sq in range(self._pass)
                if not blocked >> sq & 1]

    # ---- board access
    def piece_at(self, square: str) -> Optional[int]:
        """The player whose disc is on ``square`` (0 Black, 1 White), or None."""
        sq = _parse_square(square, self._size, "square", InvalidMoveError)
        _, black, white, _, _ = self._core.get_state()
        return 0 if black >> sq & 1 else 1 if white >> sq & 1 else None

    def piece_map(self) -> dict[str, int]:
        """``{square: player}`` for every disc on the board."""
        n, black, white, _, _ = self._core.get_state()
        return {_square_name(sq, n): 0 if black >> sq & 1 else 1
                for sq in range(n * n) if (black | white) >> sq & 1}

    # ---- moves
    def parse_move(self, text: str) -> ReversiMove:
        """``"d3"`` or ``"pass"`` (case-insensitive) → :class:`ReversiMove`."""
        move = self._notation.get(text) if isinstance(text, str) else None
        return move if move is not None else ReversiMove.from_str(text, self._size)

    def _move_from_core(self, cm: int) -> ReversiMove:
        return self._moves[cm]

    def _core_from_move(self, move: ReversiMove) -> int:
        if move.size != self._size:
            raise InvalidMoveError(
                f"{move!r} is a move for a {move.size}x{move.size} board, "
                f"this board is {self._shape_name()}")
        sq = move.square
        return self._pass if sq is None else sq

    def _effects(self, move: ReversiMove, after: Reversi) -> ReversiEffects:
        n, black, white, _, player = self._core.get_state()
        _, black2, white2, _, _ = after._core.get_state()
        changed = (black ^ black2) & (white ^ white2)  # a disc changed colour
        flipped = []
        while changed:
            low = changed & -changed
            flipped.append(_square_name(low.bit_length() - 1, n))
            changed ^= low
        square = None if move.square is None else _square_name(move.square, n)
        return ReversiEffects(square, player, tuple(flipped))

    def _illegal_reason(self, move: Any) -> str:
        if move.square is None:
            return "pass is only allowed when no disc can be placed"
        state = self._core.get_state()
        bit = 1 << move.square
        if state[3] & bit:
            return "the square is a hole" if move.square in self._holes else \
                "the square is not on the octagon board"
        if (state[1] | state[2]) & bit:
            return "the square is occupied"
        if self._core.moves() == [self._pass]:
            return "no disc can be placed: the player must pass"
        return "it outflanks no opponent disc"

    def transcript(self) -> str:
        """The moves so far without separators, e.g. ``'f5d6c3'`` (R6)."""
        return "".join(str(m) for m in self._core.entries)

    def push_transcript(self, text: str) -> list[ReversiMove]:
        """Play a transcript like ``'f5d6c3pass'``; all or nothing."""
        text = text_field(text, "a transcript", error=InvalidMoveError)
        t = re.sub(r"\s+", "", text.lower())
        tokens = _TOKEN.findall(t)
        if "".join(tokens) != t:
            raise InvalidMoveError(f"{text[:60]!r} is not a transcript of moves like 'f5d6c3pass'")
        played = []
        try:
            for token in tokens:
                played.append(self.push(token))
        except BaseException:
            for _ in played:
                self.pop()
            raise
        return played

    # ---- result
    def num_players(self) -> int:
        return 2

    def player_name(self, player: int) -> str:
        return ("Black (x)", "White (o)")[player]

    def num_distinct_actions(self) -> int:
        """``n * n + 1``: every square ``row * n + col``, then the pass."""
        return self._pass + 1

    def discs(self) -> tuple[int, int]:
        """(Black's discs, White's discs) now."""
        b, w = self._core.discs()  # type: ignore[attr-defined]
        return (int(b), int(w))

    @property
    def anti(self) -> bool:
        """Anti-Reversi: the player with fewer discs wins (the moves are the same)."""
        return self._anti

    def outcome(self) -> Optional[Outcome]:
        """None while the game runs; else the winner by disc count (more discs,
        or fewer in anti-Reversi), scores (black, white)."""
        if self._core.player() != TERMINAL:
            return None
        black, white = self.discs()
        winners: tuple[int, ...] = () if black == white else \
            ((0,) if (black > white) != self._anti else (1,))
        state = self._core.get_state()
        full = (state[1] | state[2] | state[3]) == (1 << self._pass) - 1
        reason = "board full" if full else "neither player can move"
        return Outcome(winners, (black, white), reason)

    # ---- position string (R7)
    def position(self) -> str:
        n, black, white, blocked, player = self._core.get_state()
        rows = []
        for row in range(n):
            chars = []
            for col in range(n):
                bit = 1 << (row * n + col)
                chars.append("x" if black & bit else "o" if white & bit
                             else "#" if blocked & bit else "-")
            rows.append("".join(chars))
        text = "/".join(rows) + (" x" if player == 0 else " o")
        if self._octagon:
            text += " octagon"
        elif n != 8:
            text += f" n={n}"
        return text + " anti" * self._anti

    @classmethod
    def from_position(cls, position: str) -> Reversi:
        """The game at a position string (R7); :class:`InvalidPositionError` if malformed."""
        text = text_field(position, "a Reversi position", limit=400)
        parts = text.split()
        anti = len(parts) > 2 and parts[-1] == "anti"
        if anti:
            parts.pop()
        if len(parts) not in (2, 3):
            raise InvalidPositionError(
                f"position {text!r}: expected 'rows side [n=N|octagon] [anti]'")
        rows = parts[0].split("/")
        n = len(rows)
        octagon = False
        if len(parts) == 3:
            tag = parts[2]
            if tag == "octagon":
                octagon = True
                expected = 10
            elif re.fullmatch(r"n=[0-9]{1,2}", tag):
                expected = int(tag[2:])
            else:
                raise InvalidPositionError(
                    f"position {text!r}: bad board tag {tag!r}, expected 'n=N' or 'octagon'")
        else:
            expected = 8
        if expected not in SIZES:
            raise InvalidPositionError(f"position {text!r}: bad board size {expected}")
        if n != expected:
            raise InvalidPositionError(
                f"position {text!r}: {n} rows, expected {expected}")
        if any(len(r) != n for r in rows):
            raise InvalidPositionError(f"position {text!r}: every row needs {n} squares")
        if any(c not in "xo-#" for r in rows for c in r):
            raise InvalidPositionError(
                f"position {text!r}: squares are 'x' (black), 'o' (white), '-' or '#'")
        if parts[1] not in ("x", "o"):
            raise InvalidPositionError(
                f"position {text!r}: side to move {parts[1]!r}, expected 'x' or 'o'")
        game = cls.__new__(cls)
        game._anti = anti
        game._setup_shape(n, octagon)
        flat = "".join(rows)
        cuts = game._cut_squares()
        for sq in cuts:
            if flat[sq] != "#":
                raise InvalidPositionError(
                    f"position {text!r}: {_square_name(sq, n)} is not on the octagon board")
        blocked = {sq for sq, c in enumerate(flat) if c == "#"}
        game._holes = tuple(sorted(blocked - cuts))
        state = (n, _bits(sq for sq, c in enumerate(flat) if c == "x"),
                 _bits(sq for sq, c in enumerate(flat) if c == "o"), _bits(blocked),
                 0 if parts[1] == "x" else 1)
        game._setup(state)
        game._core.set_anti(anti)  # type: ignore[attr-defined]
        return game

    def __str__(self) -> str:
        n = self._size
        discs = self.piece_map()
        blocked = self._core.get_state()[3]
        lines = ["   " + " ".join(FILES[:n])]
        for row in range(n):
            cells = []
            for col in range(n):
                sq = row * n + col
                piece = discs.get(_square_name(sq, n))
                cells.append("x" if piece == 0 else "o" if piece == 1
                             else "#" if blocked >> sq & 1 else ".")
            lines.append(f"{row + 1:>2} " + " ".join(cells))
        b, w = self.discs()
        if self.is_over():
            lines.append(f"game over: x {b}, o {w}")
        else:
            lines.append(f"{'x' if self.turn == 0 else 'o'} to move (x {b}, o {w})")
        return "\n".join(lines)

    # ---- observation (OpenSpiel othello's layout)
    def observation_tensor_shape(self) -> tuple[int, int, int]:
        """``(3, n, n)``: empty playable squares, the mover's discs, the opponent's."""
        return (3, self._size, self._size)

    def _observation(self) -> list[float]:
        n, black, white, blocked, player = self._core.get_state()
        mine, theirs = (black, white) if player == 0 else (white, black)
        empty = ~(black | white | blocked)
        return [float(plane >> sq & 1) for plane in (empty, mine, theirs) for sq in range(n * n)]

    # ---- CLI
    @classmethod
    def cli_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--size", type=int, help="board size: 4, 6, 8 (default) ... 16")
        parser.add_argument("--board", choices=("square", "octagon"), default="square",
                            help="board shape (default square)")
        parser.add_argument("--holes", default="0", metavar="HOLES",
                            help="blocked squares: a count 0-4, 'random' or a list like b2,g7")
        parser.add_argument("--handicap", type=int, default=0, help="handicap corners, 0-4")
        parser.add_argument("--handicap-color", choices=("black", "white"), default="black",
                            help="who gets the handicap corners (default black)")
        parser.add_argument("--seed", type=int, help="seed for random holes (and random players)")
        parser.add_argument("--anti", action="store_true",
                            help="anti-Reversi: the player with fewer discs wins")

    @classmethod
    def from_cli(cls, args: argparse.Namespace) -> Reversi:
        holes: Union[int, str] = args.holes
        if isinstance(holes, str) and ascii_digits(holes.strip()):
            holes = int(holes)
        return cls(size=args.size, board=args.board, holes=holes, handicap=args.handicap,
                   handicap_color=args.handicap_color, seed=args.seed,
                   anti=getattr(args, "anti", False))


def _bits(squares: Iterable[int]) -> int:
    value = 0
    for sq in squares:
        value |= 1 << sq
    return value


__all__ = ["OCTAGON_CUTS", "Reversi", "ReversiEffects", "ReversiMove"]
