"""The shared base of every brett game: both API layers on one object.

A public game class is a plain Python mixin (the game's ``_XxxAPI``, derived from
:class:`Game`) over a *core* class that holds the state::

    class Reversi(_ReversiAPI, _cores.selected.ReversiCore):
        '''docstring only: every method lives in the mixin'''

The core is either the Cython extension type or its plain-Python twin; both
implement the same **core protocol**, and nothing above it re-implements rules:

``_core_set_state(state)`` / ``_core_get_state()``
    load / return the whole state as a game-specific plain Python structure.
``_core_moves()``
    the legal *core moves* (small hashable values, ints where possible), in a
    fixed canonical order that both twins share.
``_core_count()``, ``_core_is_legal(cm)``
    the number of legal moves; whether one core move is legal (False once the
    game is over).
``_core_push(cm)`` / ``_core_pop()``
    make / unmake a move (no legality check; the mixin checks first).
``_core_key()``
    the 64-bit Zobrist key, a pure function of the position (same on both twins).
``_core_player()``
    the player to move, :data:`CHANCE` at a chance node, :data:`TERMINAL` when over.
``_core_perft(depth, count_finished)``
    perft with bulk counting.
``_core_playouts(n, seed, max_plies)``
    ``n`` random games from here without Python objects, state restored; returns
    ``(wins_per_player, draws, unfinished, plies)``.

The game mixin supplies the rules' Python side: ``Move``, ``parse_move``,
``_move_from_core`` / ``_core_from_move``, ``position`` / ``from_position``,
``outcome``, the text board and ``num_distinct_actions``.
"""

from __future__ import annotations

import contextlib
import importlib
import operator
import os
import random
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar, Optional, TypeVar

from ._core._rng import SplitMix64
from .errors import BrettError, IllegalMoveError, InvalidMoveError

CHANCE = -1
"""``current_player()`` at a chance node (OpenSpiel's kChancePlayerId)."""
TERMINAL = -4
"""``current_player()`` once the game is over (OpenSpiel's kTerminalPlayerId)."""

G = TypeVar("G", bound="Game")


# --------------------------------------------------------------------- backends
@dataclass(frozen=True)
class CoreModules:
    """The twin core modules of one game and the one selected."""

    python: ModuleType
    cython: Optional[ModuleType]

    @property
    def selected(self) -> ModuleType:
        return self.cython if self.cython is not None else self.python

    def get(self, backend: str) -> ModuleType:
        if backend == "python":
            return self.python
        if backend == "cython":
            if self.cython is None:
                raise BrettError(
                    "the compiled (Cython) core is not available: "
                    "brett was installed without extensions or BRETT_NO_EXTENSIONS is set"
                )
            return self.cython
        raise BrettError(f"unknown backend {backend!r}: expected 'cython' or 'python'")


_LOADED: dict[str, CoreModules] = {}


def load_cores(name: str) -> CoreModules:
    """Import ``brett._core._<name>_py`` and, unless disabled, ``_<name>_c``.

    ``BRETT_NO_EXTENSIONS=1`` selects the plain-Python twin;
    ``BRETT_REQUIRE_EXTENSIONS=1`` turns a missing compiled core into an error
    (used by CI and the wheel tests, so a broken build cannot pass silently).
    """
    python = importlib.import_module(f"brett._core._{name}_py")
    cython = None
    if not os.environ.get("BRETT_NO_EXTENSIONS"):
        try:
            cython = importlib.import_module(f"brett._core._{name}_c")
        except ImportError:
            if os.environ.get("BRETT_REQUIRE_EXTENSIONS"):
                raise
    cores = CoreModules(python, cython)
    _LOADED[name] = cores
    return cores


def core_backends() -> dict[str, str]:
    """Which core each imported game runs on: ``{"reversi": "cython", ...}``."""
    return {name: ("cython" if c.cython else "python") for name, c in sorted(_LOADED.items())}


# ---------------------------------------------------------------------- results
@dataclass(frozen=True)
class Outcome:
    """How a finished game ended.

    ``winners`` holds every winning player (two for a team, none for a draw);
    ``scores`` one number per player where the game has a score (discs for
    Reversi, goal pieces for Schuft), else an empty tuple; ``reason`` says why.
    """

    winners: tuple[int, ...]
    scores: tuple[int, ...]
    reason: str

    @property
    def winner(self) -> Optional[int]:
        """The winning player (the lower-numbered one of a team); None on a draw."""
        return self.winners[0] if self.winners else None

    @property
    def is_draw(self) -> bool:
        return not self.winners

    def returns(self, num_players: int) -> list[float]:
        """+1 for each winner, -1 for each loser, 0 for everyone on a draw."""
        if not self.winners:
            return [0.0] * num_players
        return [1.0 if p in self.winners else -1.0 for p in range(num_players)]


@dataclass(frozen=True)
class PlayoutStats:
    """What :meth:`Game.random_playouts` counted."""

    games: int
    wins: tuple[int, ...]
    draws: int
    unfinished: int
    plies: int


# ----------------------------------------------------------------- legal moves
class LegalMoveView:
    """The legal moves of a game, generated on demand (like python-chess).

    Iterate it, test ``move in view``, ``view.count()``, ``bool(view)``.  There is
    deliberately no ``len()``: it would generate the moves a second time.
    """

    __slots__ = ("_game",)

    def __init__(self, game: Game) -> None:
        self._game = game

    def __iter__(self) -> Iterator[Any]:
        conv = self._game._move_from_core
        return iter([conv(cm) for cm in self._game._core_moves()])

    def __contains__(self, move: object) -> bool:
        try:
            self._game._resolve(move)
        except BrettError:
            return False
        return True

    def count(self) -> int:
        return int(self._game._core_count())

    def __bool__(self) -> bool:
        return self._game._core_count() > 0

    def __repr__(self) -> str:
        return f"<LegalMoveView ({', '.join(str(m) for m in self)})>"


# ------------------------------------------------------------------------ base
class Game:
    """The Pythonic and the integer API shared by all brett games (a mixin)."""

    game_name: ClassVar[str] = ""
    Move: ClassVar[type] = object
    _cores: ClassVar[CoreModules]
    _core_class_name: ClassVar[str] = ""
    _twin_cache: ClassVar[dict[str, type]] = {}

    # The mixin's own attributes; everything else of the state lives in the core.
    _stack: list[Any]
    _root_state: Any
    _rng: random.Random

    # ---- set-up helpers for subclasses
    def _init_game(self, state: Any, seed: Optional[int]) -> None:
        """Load ``state`` into the core and start an empty move stack."""
        self._core_set_state(state)
        self._root_state = state
        self._stack = []
        if not hasattr(self, "_rng"):
            self._rng = random.Random(seed)

    @classmethod
    def twin(cls: type[G], backend: str) -> type[G]:
        """This game's class on the ``"cython"`` or ``"python"`` core.

        The public class already runs on the fastest core available; the
        plain-Python twin is the readable reference the tests compare against.
        """
        core_cls = getattr(cls._cores.get(backend), cls._core_class_name)
        if issubclass(cls, core_cls):
            return cls
        key = f"{cls.__module__}.{cls.__qualname__}:{backend}"
        cached = Game._twin_cache.get(key)
        if cached is None:
            api = cls.__bases__[0]
            cached = type(cls.__name__, (api, core_cls), {
                "__module__": cls.__module__,
                "__qualname__": cls.__qualname__,
                "__doc__": cls.__doc__,
            })
            Game._twin_cache[key] = cached
        return cached  # type: ignore[return-value]

    @classmethod
    def backend(cls) -> str:
        """``"cython"`` or ``"python"``: the core this class runs on."""
        cy = cls._cores.cython
        if cy is not None and issubclass(cls, getattr(cy, cls._core_class_name)):
            return "cython"
        return "python"

    # ---- what each game's mixin and core provide (declared for readers and mypy)
    parse_move: Callable[[str], Any]
    """Parse move notation into a ``Move``; :class:`InvalidMoveError` if malformed."""
    _move_from_core: Callable[[Any], Any]
    _core_from_move: Callable[[Any], Any]
    position: Callable[[], str]
    outcome: Callable[[], Optional[Outcome]]
    num_players: Callable[[], int]
    num_distinct_actions: Callable[[], int]
    _core_set_state: Callable[[Any], None]
    _core_get_state: Callable[[], Any]
    _core_moves: Callable[[], list[Any]]
    _core_count: Callable[[], int]
    _core_is_legal: Callable[[Any], bool]
    _core_push: Callable[[Any], None]
    _core_pop: Callable[[], None]
    _core_key: Callable[[], int]
    _core_player: Callable[[], int]
    _core_perft: Callable[[int, bool], int]
    _core_playouts: Callable[[int, int, int], tuple[Any, int, int, int]]

    if TYPE_CHECKING:
        @classmethod
        def from_position(cls, position: str) -> Any:
            """Load a position string (each game defines it)."""

    def _illegal_reason(self, move: Any) -> str:
        """Why a well-formed move is not legal here (games refine this)."""
        return "it is not a legal move in this position"

    # ---- moves
    @property
    def legal_moves(self) -> LegalMoveView:
        return LegalMoveView(self)

    def _resolve(self, move: Any) -> tuple[Any, Any]:
        """User input → (core move, canonical Move), or a typed error."""
        if isinstance(move, str):
            move = self.parse_move(move)
        elif not isinstance(move, self.Move):
            raise InvalidMoveError(
                f"{move!r} is not a {self.game_name} move: "
                f"expected a {self.Move.__name__} or its notation as a string"
            )
        cm = self._core_from_move(move)
        if not self._core_is_legal(cm):  # the core says False when the game is over
            reason = ("the game is over" if self._core_player() == TERMINAL
                      else self._illegal_reason(move))
            raise IllegalMoveError(f"illegal move {str(move)!r}: {reason}")
        return cm, move

    def push(self, move: Any) -> Any:
        """Play a move (a ``Move`` or its notation); returns the ``Move`` played.

        Raises :class:`InvalidMoveError` for malformed input and
        :class:`IllegalMoveError` for a move not legal here; either way the
        state is unchanged.
        """
        cm, move = self._resolve(move)
        self._core_push(cm)
        self._stack.append(move)
        return move

    def pop(self) -> Any:
        """Take back the last move and return it; ``IndexError`` if none was made."""
        if not self._stack:
            raise IndexError("pop from an empty move stack")
        self._core_pop()
        return self._stack.pop()

    def peek(self) -> Any:
        """The last move played; ``IndexError`` if none was made."""
        if not self._stack:
            raise IndexError("peek at an empty move stack")
        return self._stack[-1]

    @property
    def move_stack(self) -> list[Any]:
        """The moves played since the start position (a copy)."""
        return list(self._stack)

    def current_player(self) -> int:
        """The player to move; :data:`CHANCE` (-1) or :data:`TERMINAL` (-4)."""
        return int(self._core_player())

    @property
    def turn(self) -> int:
        """The player to move (same as :meth:`current_player`)."""
        return int(self._core_player())

    def is_over(self) -> bool:
        return self._core_player() == TERMINAL

    # ---- search helpers
    def perft(self, depth: int, count_finished: bool = False,
              executor: Optional[Executor] = None) -> int:
        """The number of legal move sequences of exactly ``depth`` moves.

        With ``count_finished=True`` a finished game counts as one leaf at every
        greater depth (Aart Bik's / OpenSpiel's convention).  With an
        ``executor`` (any :class:`concurrent.futures.Executor`: a process pool,
        a Dask or Ray client) the subtrees after each first move run as
        separate tasks, each rebuilt from its position string.
        """
        depth = _check_depth(depth)
        if executor is None or depth < 2:
            return int(self._core_perft(depth, bool(count_finished)))
        cls = type(self)
        futures = [executor.submit(_perft_task, cls.__module__, cls.__qualname__,
                                   cls.backend(), position, depth - 1, bool(count_finished))
                   for position in self._child_positions()]
        return sum(f.result() for f in futures)

    def _child_positions(self) -> list[str]:
        """The position string after each legal move (for parallel perft)."""
        positions = []
        for cm in self._core_moves():
            self._core_push(cm)
            try:
                positions.append(self.position())
            finally:
                self._core_pop()
        return positions

    def divide(self, depth: int, count_finished: bool = False) -> dict[Any, int]:
        """perft(depth - 1) after each legal move: ``{move: count}``."""
        depth = _check_depth(depth)
        if depth == 0:
            raise ValueError("divide needs depth >= 1")
        result = {}
        for cm in self._core_moves():
            self._core_push(cm)
            try:
                result[self._move_from_core(cm)] = int(self._core_perft(depth - 1, count_finished))
            finally:
                self._core_pop()
        return result

    def random_playout(self, seed: Optional[int] = None,
                       max_plies: Optional[int] = None) -> Optional[Outcome]:
        """Play uniformly random legal moves onto this game (they go on the move
        stack) until it ends or ``max_plies`` moves were made; return the outcome
        (None if cut short).  The same seed plays the same game on both cores.
        """
        rng = SplitMix64(self._rng.getrandbits(64) if seed is None else seed)
        plies = 0
        while self._core_player() != TERMINAL and (max_plies is None or plies < max_plies):
            moves = self._core_moves()
            cm = moves[rng.below(len(moves))]
            self._core_push(cm)
            self._stack.append(self._move_from_core(cm))
            plies += 1
        return self.outcome()

    def random_playouts(self, n: int, seed: Optional[int] = None,
                        max_plies: Optional[int] = None) -> PlayoutStats:
        """Run ``n`` random games from here inside the core (fast, no Python
        objects per move); the state is unchanged.  Returns win/draw counts."""
        if n < 0:
            raise ValueError(f"n must be >= 0, not {n}")
        seed = self._rng.getrandbits(64) if seed is None else seed
        cap = -1 if max_plies is None else int(max_plies)
        wins, draws, unfinished, plies = self._core_playouts(int(n), seed & (2**64 - 1), cap)
        return PlayoutStats(int(n), tuple(wins), draws, unfinished, plies)

    # ---- integer (OpenSpiel-style) layer: by default an action is the core move
    def legal_actions(self) -> list[int]:
        """The legal actions as sorted ints."""
        if self._core_player() == CHANCE:
            return [a for a, _ in self.chance_outcomes()]
        return sorted(self._core_moves())

    def legal_actions_mask(self) -> Any:
        """Which actions are legal, as a vector of length ``num_distinct_actions()``:
        a numpy ``bool`` array when numpy is installed, else ``bytes`` of 0 and 1."""
        mask = bytearray(self.num_distinct_actions())
        for a in self.legal_actions():
            mask[a] = 1
        try:
            import numpy
        except ImportError:
            return bytes(mask)
        return numpy.frombuffer(bytes(mask), dtype=numpy.uint8).astype(bool)

    def action_to_move(self, action: int) -> Any:
        return self._move_from_core(self._check_action(action))

    def move_to_action(self, move: Any) -> int:
        if isinstance(move, str):
            move = self.parse_move(move)
        return int(self._core_from_move(move))

    def _check_action(self, action: Any) -> int:
        """``action`` as a Python int (numpy integers welcome), or InvalidMoveError."""
        try:
            value = operator.index(action)
        except TypeError:
            value = -1
        if isinstance(action, bool) or not 0 <= value < self.num_distinct_actions():
            raise InvalidMoveError(
                f"action {action!r} is not an int in 0..{self.num_distinct_actions() - 1}")
        return value

    def apply_action(self, action: int) -> None:
        """Play an action; :class:`IllegalMoveError` if it is not legal (state unchanged)."""
        self.push(self.action_to_move(action))

    def undo_action(self) -> None:
        """Take back the last action."""
        self.pop()

    def is_chance_node(self) -> bool:
        return self._core_player() == CHANCE

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``[(action, probability)]`` at a chance node, else ``[]``."""
        return []

    def returns(self) -> list[float]:
        """Per player: +1 win, -1 loss, 0 draw or not finished."""
        outcome = self.outcome()
        if outcome is None:
            return [0.0] * self.num_players()
        return outcome.returns(self.num_players())

    # ---- identity, copies, pickling
    def copy(self: G, stack: bool = True) -> G:
        """An independent copy; with ``stack=False`` the copy starts at the
        current position with an empty move stack."""
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._rng = random.Random()
        new._rng.setstate(self._rng.getstate())
        if stack:
            new._core_set_state(self._root_state)
            new._stack = []
            for move in self._stack:
                new._replay(move)
        else:
            new._root_state = self._core_get_state()
            new._core_set_state(new._root_state)
            new._stack = []
        return new

    def _replay(self, move: Any) -> None:
        """Re-apply a move already known legal (copies and unpickling)."""
        self._core_push(self._core_from_move(move))
        self._stack.append(move)

    def __copy__(self: G) -> G:
        return self.copy()

    def __deepcopy__(self: G, memo: dict[int, Any]) -> G:
        return self.copy()

    def __reduce__(self) -> tuple[Any, ...]:
        cls = type(self)
        state = dict(self.__dict__)
        return (_restore, (cls.__module__, cls.__qualname__, cls.backend()), state)

    def __setstate__(self, state: dict[str, Any]) -> None:
        stack = state.pop("_stack")
        self.__dict__.update(state)
        self._core_set_state(self._root_state)
        self._stack = []
        for move in stack:
            self._replay(move)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game) or other.game_name != self.game_name:
            return NotImplemented
        return self.position() == other.position()

    def __hash__(self) -> int:
        return int(self._core_key())

    def __repr__(self) -> str:
        return f"{type(self).__name__}.from_position({self.position()!r})"

    def _repr_svg_(self) -> str:
        """The position as SVG, so Jupyter draws the game (see :func:`brett.svg`)."""
        from .render import svg

        return svg(self)


def _restore(module: str, qualname: str, backend: str) -> Game:
    cls = getattr(importlib.import_module(module), qualname)
    # Pickled where the extension existed, loaded where it does not: use the fallback.
    with contextlib.suppress(BrettError):
        cls = cls.twin(backend)
    game: Game = cls.__new__(cls)
    return game


def _perft_task(module: str, qualname: str, backend: str, position: str,
                depth: int, count_finished: bool) -> int:
    """One subtree of a parallel perft; a module-level function so it pickles."""
    cls = _restore(module, qualname, backend).__class__
    return int(cls.from_position(position).perft(depth, count_finished))


def _check_depth(depth: int) -> int:
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
        raise ValueError(f"depth must be an int >= 0, not {depth!r}")
    return depth


__all__ = [
    "CHANCE",
    "TERMINAL",
    "CoreModules",
    "Game",
    "LegalMoveView",
    "Outcome",
    "PlayoutStats",
    "core_backends",
    "load_cores",
]

