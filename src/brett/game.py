"""The shared base of every brett game: both API layers on one object.

A public game class derives from :class:`Game` and holds its state in a *core*
(``self._core``): the Cython extension type or its plain-Python twin, both
implementing the protocol :class:`brett._core._base.Core`.  Everything that is
the same for every game lives here, once: the move stack, push / pop, the
legal-move view, perft, divide, playouts, copies, pickling, equality, the
integer (OpenSpiel-style) layer with chance nodes and with moves made of
several actions, and the thread and argument checks.  A game module supplies
only rule hooks:

* ``parse_move``, ``_move_from_core`` / ``_core_from_move`` and
  ``_illegal_reason`` (notation and why a move is illegal);
* ``position`` / ``from_position``, ``outcome``, ``__str__``, ``piece_at`` /
  ``piece_map``, ``observation_tensor_shape`` / ``_observation``,
  ``num_players``, ``num_distinct_actions`` and its options;
* ``_effects`` (what a move changes, for :meth:`Game.effects`);
* for the integer layer: ``_action_of_core`` / ``_core_of_action`` and, where a
  move takes several actions (Phutball's jumps, Schuft's decisions),
  ``_step_options``, ``_actions_of`` and ``_partial_move``.

See docs/architecture.md for the layers and what each may touch.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import importlib
import os
import platform
import random
import threading
import time
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    ClassVar,
    Generic,
    Literal,
    NamedTuple,
    Optional,
    TypeVar,
    Union,
    cast,
    overload,
)

from ._checks import (
    MAX_COUNT,
    MAX_PERFT_DEPTH,
    MAX_PLIES,
    as_int,
    optional_cap,
    seed_value,
)
from ._core import CHANCE, TERMINAL
from ._core._stop import Stopper
from ._core._stop import check as stop_check
from .errors import (
    BrettError,
    EmptyStackError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
)

if TYPE_CHECKING:
    from concurrent.futures import Executor
    from types import ModuleType

    import numpy
    import numpy.typing

    from ._core._base import Core, HashedCore
    from .focus import Focus, FocusMove
    from .phutball import Phutball, PhutballMove
    from .reversi import Reversi, ReversiMove
    from .schuft import Roll, Schuft, SchuftMove

AnyGame = Union["Reversi", "Focus", "Phutball", "Schuft"]
"""A game of any of brett's games (what a record or a protocol message holds):
narrow it with ``isinstance`` or ``game.game_name``."""
AnyMove = Union["ReversiMove", "FocusMove", "PhutballMove", "SchuftMove", "Roll"]
"""A move (or a Schuft roll) of any game."""

MoveT = TypeVar("MoveT")
_MaskT = TypeVar("_MaskT", bound="numpy.typing.NDArray[Any]")
G = TypeVar("G", bound="Game[Any]")

MORE = object()
"""In :meth:`Game._step_options`: the action does not finish the move."""

WRITE_WAIT = 0.5
"""Seconds a change of a multi-action game waits for another thread's call on
it before it refuses (BrettError "in use by another thread")."""


# --------------------------------------------------------------------- backends
class CoreModules(NamedTuple):
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
    cap = _kernel_cap()
    if not os.environ.get("BRETT_NO_EXTENSIONS"):
        try:
            cython = importlib.import_module(f"brett._core._{name}_c")
        except ImportError:
            if os.environ.get("BRETT_REQUIRE_EXTENSIONS"):
                raise
    if cython is not None and hasattr(cython, "use_kernels"):
        cython.use_kernels(cap)
    cores = CoreModules(python, cython)
    _LOADED[name] = cores
    return cores


def core_backends() -> dict[str, str]:
    """Which core each imported game runs on: ``{"reversi": "cython", ...}``."""
    return {name: ("cython" if c.cython else "python") for name, c in sorted(_LOADED.items())}


KERNELS_ENV = "BRETT_KERNELS"


# The compiled kernels, slowest first (the Reversi core's LEVELS).
KERNEL_LEVELS = ("portable", "avx2", "avx512")


def _kernel_cap() -> str:
    """``BRETT_KERNELS``: ``auto`` (the default) takes the fastest kernels the CPU
    runs; a level of :data:`KERNEL_LEVELS` takes the fastest up to that one
    (``portable`` on any CPU: tests, bug reports, comparisons)."""
    value = os.environ.get(KERNELS_ENV, "").strip().lower() or "auto"
    if value != "auto" and value not in KERNEL_LEVELS:
        raise BrettError(f"{KERNELS_ENV}={value!r}: expected 'auto' or one of "
                         f"{', '.join(KERNEL_LEVELS)}")
    return value


class CpuFeatures(NamedTuple):
    """What :func:`cpu_features` reports."""

    arch: str
    """The machine, as ``platform.machine()`` names it (``x86_64``, ``arm64``, ...)."""
    features: tuple[str, ...]
    """The instruction-set extensions found that brett's kernels can use
    (``popcnt``, ``bmi1``, ``bmi2``, ``lzcnt``, ``avx2``, ``avx512``: AVX-512 F, CD,
    BW, DQ and VL; empty off x86-64)."""
    kernels: dict[str, str]
    """Per game, what its perft and playouts run on: ``avx512`` or ``avx2``
    (x86-64-v4 or -v3 kernels chosen at import), ``portable`` (compiled C for any
    CPU of the platform) or ``python`` (the plain-Python twin)."""
    forced_portable: bool
    """True when ``BRETT_KERNELS=portable`` asked for the portable kernels."""


def cpu_features() -> CpuFeatures:
    """The CPU extensions brett found and the kernels each game runs on.

    Wheels are built for each platform's baseline; the Reversi core picks its
    AVX-512 or AVX2 kernels at import where the CPU has them (x86-64-v4, -v3)."""
    features: tuple[str, ...] = ()
    kernels = {}
    for name in GAMES:
        GAMES[name]                     # imports the game and its cores
        cores = _LOADED[name]
        if cores.cython is None:
            kernels[name] = "python"
        else:
            kernels[name] = (cores.cython.kernels() if hasattr(cores.cython, "kernels")
                             else "portable")
    if any(kind != "python" for kind in kernels.values()):
        from ._core import _common

        features = tuple(_common.cpu_features())
    return CpuFeatures(platform.machine(), features, kernels,
                       _kernel_cap() == "portable")


# ---------------------------------------------------------------------- registry
class GameRegistry(Mapping[str, "type[Game[Any]]"]):
    """``brett.GAMES``: every game by name, its class imported on first use."""

    _CLASSES: ClassVar[dict[str, str]] = {
        "reversi": "Reversi", "focus": "Focus", "phutball": "Phutball", "schuft": "Schuft"}

    @overload
    def __getitem__(self, name: Literal["reversi"]) -> type[Reversi]: ...
    @overload
    def __getitem__(self, name: Literal["focus"]) -> type[Focus]: ...
    @overload
    def __getitem__(self, name: Literal["phutball"]) -> type[Phutball]: ...
    @overload
    def __getitem__(self, name: Literal["schuft"]) -> type[Schuft]: ...
    @overload
    def __getitem__(self, name: str) -> type[Game[Any]]: ...

    def __getitem__(self, name: str) -> type[Game[Any]]:
        if not isinstance(name, str) or name not in self._CLASSES:
            raise KeyError(name)
        cls: type[Game[Any]] = getattr(importlib.import_module(f"brett.{name}"),
                                       self._CLASSES[name])
        return cls

    def __iter__(self) -> Iterator[str]:
        return iter(self._CLASSES)

    def __len__(self) -> int:
        return len(self._CLASSES)

    def __repr__(self) -> str:
        return "brett.GAMES(" + ", ".join(self._CLASSES) + ")"

    def lookup(self, name: Any, error: type[BrettError] = BrettError) -> type[Game[Any]]:
        """The class of game ``name``, or ``error`` listing the known names."""
        if not isinstance(name, str) or name not in self._CLASSES:
            raise error(f"unknown game {name!r}: expected one of {', '.join(self._CLASSES)}")
        return self[name]

    def create(self, game: Union[str, type[Game[Any]]], **options: Any) -> Game[Any]:
        """A new game of ``game`` (a name or a class) with ``options``, checked by
        name against the class's ``OPTIONS`` (an unknown one is an
        :class:`InvalidPositionError` listing those it takes)."""
        cls = game if isinstance(game, type) and issubclass(game, Game) else self.lookup(game)
        known = [o.name for o in cls.OPTIONS]
        for name in options:
            if name not in known:
                raise InvalidPositionError(f"unknown option {name!r} for {cls.game_name}: it "
                                           f"takes {', '.join(known)}")
        return cls(**options)


GAMES = GameRegistry()


# ----------------------------------------------------------------------- options
@dataclasses.dataclass(frozen=True)
class GameOption:
    """One keyword argument of a game's constructor, described for frontends: the
    web app builds its form from these, the protocol checks option names with them
    (``brett.Reversi.OPTIONS``).  ``types`` are JSON's names of the values the
    option takes (``"integer"``, ``"string"``, ``"boolean"``, ``"array"``,
    ``"null"``); integers lie in ``minimum``..``maximum`` in steps of ``step``; a
    string is one of ``choices`` when they are given.  ``only_with`` names the
    other options it depends on, each with the values under which this one means
    something (Focus's ``teams`` only with ``players`` 4): a form hides it
    otherwise."""

    name: str
    types: tuple[str, ...]
    default: Any
    help: str
    minimum: Optional[int] = None
    maximum: Optional[int] = None
    step: int = 1
    choices: tuple[str, ...] = ()
    only_with: tuple[tuple[str, tuple[Any, ...]], ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """The option as JSON-ready data (what the protocol's ``games`` answers)."""
        data: dict[str, Any] = {"name": self.name, "types": list(self.types),
                                "default": self.default, "help": self.help}
        if self.minimum is not None:
            data.update(minimum=self.minimum, maximum=self.maximum, step=self.step)
        if self.choices:
            data["choices"] = list(self.choices)
        if self.only_with:
            data["only_with"] = {name: list(values) for name, values in self.only_with}
        return data


SEED_OPTION = GameOption("seed", ("integer", "null"), None,
                         "seed of the game's random choices (none: a fresh one)")
MAX_PLIES_OPTION = GameOption("max_plies", ("integer", "null"), None,
                              "end the game as unfinished after this many moves (none: no cap)",
                              1, MAX_PLIES)


# ---------------------------------------------------------------------- results
class Outcome(NamedTuple):
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


class PlayoutStats(NamedTuple):
    """What :meth:`Game.random_playouts` counted."""

    games: int
    wins: tuple[int, ...]
    draws: int
    unfinished: int
    plies: int


# ----------------------------------------------------------------- legal moves
@dataclasses.dataclass(frozen=True)
class Clicks(Generic[MoveT]):
    """What :meth:`LegalMoveView.clicks` answers for a person entering a move
    click by click."""

    prefix: tuple[str, ...]
    """The clicks so far."""
    moves: tuple[MoveT, ...]
    """The legal moves these clicks make (usually one, none while unfinished)."""
    next: tuple[str, ...]
    """The clicks that may come next, each leading to at least one legal move."""
    unmarked: frozenset[str] = frozenset()
    """The clicks of :attr:`next` a board need not mark: a Phutball man may be
    placed on any empty point, so only the ball (and then its landings) is marked."""

    @property
    def marked(self) -> tuple[str, ...]:
        """The clicks of :attr:`next` a board marks as targets."""
        return tuple(c for c in self.next if c not in self.unmarked)


class LegalMoveView(Generic[MoveT]):
    """The legal moves of a game, generated on demand (like python-chess).

    Iterate it, test ``move in view``, ``view.count()`` (``count(limit=N)`` where
    there may be too many to count), ``bool(view)``.  There is
    deliberately no ``len()``: it would generate the moves a second time.
    Iteration streams: the moves are generated one by one on a private copy of
    the position (a Phutball position can have millions of jump paths), so a
    loop that stops early costs only what it read, and pushing moves while
    iterating is safe.  While a move is half made through the integer layer
    (:attr:`Game.pending_actions`) the view is empty.
    """

    __slots__ = ("_game",)

    def __init__(self, game: Game[MoveT]) -> None:
        self._game = game

    def __iter__(self) -> Iterator[MoveT]:
        game = self._game
        if game._pending:
            return iter(())
        return map(game._move_from_core, game._core.iter_moves())

    def __contains__(self, move: object) -> bool:
        game = self._game
        if game._pending:
            return False
        try:
            cm, _ = game._resolve(move)
        except BrettError:
            return False
        return bool(game._core.is_legal(cm))

    def clicks(self, *prefix: str) -> Clicks[MoveT]:
        """Click-to-move: the legal moves that the clicks ``prefix`` make, and the
        clicks that may come next.  A move's clicks are its squares in the order
        a person enters them (each game's guide lists them: Reversi the square or
        ``"pass"``; Focus the stack, the target, the number of pieces, or
        ``"reserve"`` and the target; Phutball the point, or the ball, each
        landing and ``"stop"``; Schuft each step's field and target).  Clicks
        that no legal move begins with give no moves and no next click.  Never
        lists a Phutball position's millions of paths: the jumps are walked one
        landing at a time."""
        game = self._game
        if game._pending:
            game._refuse_pending("clicks")
        if not all(isinstance(c, str) and len(c) <= 40 for c in prefix) or len(prefix) > 256:
            raise InvalidMoveError(f"clicks are square names, not {prefix!r:.80}")
        return game._clicks(tuple(c.lower() for c in prefix))

    def count(self, limit: Optional[int] = None) -> int:
        """The number of legal moves (counted, not listed).

        With ``limit`` (0 .. 2**63 - 1), counting stops once more than ``limit``
        moves are found: the answer is the number of moves if it is at most
        ``limit``, else ``limit + 1`` ("more than ``limit``").  Use it where a
        position may have too many moves to count: a crowded Phutball board
        can have more jump paths than any machine can count (counting them is
        #P-hard in general), and an unbounded ``count()`` then runs until
        Ctrl-C or a :class:`~brett.Stopper` ends it."""
        cap = -1 if limit is None else as_int(limit, "limit", 0, MAX_COUNT)
        if self._game._pending:
            return 0
        return int(self._game._core.count(cap))

    def __bool__(self) -> bool:
        """Whether there is a legal move: the first one found decides."""
        return self.count(limit=0) > 0

    def __repr__(self) -> str:
        shown = []
        for i, move in enumerate(self):
            if i == 20:
                shown.append("...")
                break
            shown.append(str(move))
        return f"<LegalMoveView ({', '.join(shown)})>"


# ------------------------------------------------------------------------ base
class Game(Generic[MoveT]):
    """The Pythonic and the integer API shared by all brett games."""

    game_name: ClassVar[str] = ""
    Move: ClassVar[Any] = object
    """The game's move class: :class:`~brett.reversi.ReversiMove`,
    :class:`~brett.focus.FocusMove`, :class:`~brett.phutball.PhutballMove` or
    :class:`~brett.schuft.SchuftMove` (``object`` on this base class)."""
    _move_types: ClassVar[tuple[type, ...]] = (object,)
    """What ``push`` accepts besides notation (the Move class, chance outcomes)."""
    _cores: ClassVar[CoreModules]
    _core_class_name: ClassVar[str] = ""
    _core_class: ClassVar[type]
    _public: ClassVar[type]
    _twin_cache: ClassVar[dict[tuple[type, str], type]] = {}
    has_chance: ClassVar[bool] = False
    """True for games with chance nodes (Schuft's rolls)."""
    multi_action: ClassVar[bool] = False
    """True where a move may take several integer actions (Phutball, Schuft)."""
    _canonicalize: ClassVar[bool] = False
    """True where several step lists are one move and push records one of them."""
    OPTIONS: ClassVar[tuple[GameOption, ...]] = ()
    """The constructor's keyword arguments, described for frontends (tested equal
    to the constructor's parameters)."""

    _core: Core
    _root: Any
    _rng: random.Random
    _pending: tuple[int, ...] = ()
    _built: dict[int, tuple[Any, tuple[int, ...]]]
    _options_memo: Optional[tuple[Any, dict[int, Any]]] = None
    _hooks_known: ClassVar[Optional[bool]] = None   # see _compiled_hooks
    _clicks_memo: Optional[tuple[Any, list[tuple[tuple[str, ...], Any]]]] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "_cores" in cls.__dict__:  # a public game class: its core is the selected one
            cls._core_class = getattr(cls._cores.selected, cls._core_class_name)
            cls._public = cls

    # ---- set-up (for the game modules)
    def _setup(self, state: Any, rng: Optional[random.Random] = None) -> None:
        """Load ``state`` into a new core; the move stack starts empty."""
        core = self._core_class()
        core.set_state(state)
        self._core = core
        self._root = state
        self._rng = rng if rng is not None else random.Random()
        self._pending = ()
        self._built = {}
        self._lock = threading.RLock()

    def _with_core(self: G, core: Core) -> G:
        """A view of this game on another core (same options), e.g. a child position."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._core = core
        new._pending = ()
        new._built = {}
        new._lock = threading.RLock()
        return new

    @contextlib.contextmanager
    def _changing(self) -> Iterator[None]:
        """Hold the lock of a multi-action game for a change of its core and
        pending actions, which must change together: readers of the pair wait
        for it; another thread's change waits a moment, then refuses."""
        if not self._lock.acquire(timeout=WRITE_WAIT):
            from ._core._base import busy_error  # not at import: brett imports lazily

            raise busy_error()
        try:
            yield
        finally:
            self._lock.release()

    @classmethod
    def twin(cls: type[G], backend: str) -> type[G]:
        """This game's class on the ``"cython"`` or ``"python"`` core.

        The public class already runs on the fastest core available; the
        plain-Python twin is the readable reference the tests compare against.
        The twin class is a subclass of the public class.
        """
        core_cls = getattr(cls._cores.get(backend), cls._core_class_name)
        if cls._core_class is core_cls:
            return cls
        public: Any = cls._public
        if public._core_class is core_cls:
            return public  # type: ignore[no-any-return]
        key = (public, backend)
        cached = Game._twin_cache.get(key)
        if cached is None:
            cached = type(public.__name__, (public,), {
                "_core_class": core_cls,
                "__module__": public.__module__,
                "__qualname__": public.__qualname__,
                "__doc__": public.__doc__,
            })
            Game._twin_cache[key] = cached
        return cached  # type: ignore[return-value]

    @classmethod
    def backend(cls) -> str:
        """``"cython"`` or ``"python"``: the core this class runs on."""
        cy = cls._cores.cython
        if cy is not None and cls._core_class is getattr(cy, cls._core_class_name):
            return "cython"
        return "python"

    # ---- hooks every game supplies (declared for readers and type checkers)
    if TYPE_CHECKING:
        def parse_move(self, text: str) -> MoveT:
            """Notation → a Move; :class:`InvalidMoveError` if malformed."""

        def _move_from_core(self, cm: Any) -> MoveT: ...

        def _core_from_move(self, move: Any) -> Any: ...

        def position(self) -> str:
            """The position string (the game's rules say its form)."""

        @classmethod
        def from_position(cls: type[G], position: str) -> G:
            """The game at a position string."""

        def outcome(self) -> Optional[Outcome]:
            """None while the game runs."""

        def num_players(self) -> int: ...

        def num_distinct_actions(self) -> int: ...

        def piece_at(self, square: str) -> Any: ...

        def piece_map(self) -> dict[str, Any]: ...

        def observation_tensor_shape(self) -> tuple[int, ...]: ...

        def _observation(self) -> list[float]: ...

    def _illegal_reason(self, move: Any) -> str:
        """Why a well-formed move is not legal here (games refine this)."""
        return "it is not a legal move in this position"

    def _canonical(self, cm: Any, move: Any) -> tuple[Any, Any]:
        """The core move and Move that ``push`` records for a legal ``cm``."""
        return cm, move

    def _action_of_core(self, cm: Any) -> int:
        """The action of a core move (a chance outcome at a chance node)."""
        return int(cm)

    def _core_of_action(self, action: int) -> Any:
        """The core move of an action (single-action games and chance outcomes)."""
        return action

    def _step_options(self, pending: tuple[int, ...]) -> dict[int, Any]:
        """Multi-action games: the legal actions after ``pending``, each mapped
        to the core move it completes or to :data:`MORE`."""
        return {self._action_of_core(cm): cm for cm in self._core.moves()}

    def _step(self, pending: tuple[int, ...], action: int) -> Any:
        """What ``action`` does after ``pending``: the core move it completes,
        :data:`MORE`, or None if it is not legal (games may answer faster)."""
        return self._next_options(pending).get(action)

    def _next_options(self, pending: tuple[int, ...]) -> dict[int, Any]:
        """:meth:`_step_options`, remembered for the last position asked about: a
        caller asks for the legal actions, then applies one of them."""
        where = (self._memo_key(), pending)
        memo = self._options_memo
        if memo is not None and memo[0] == where:
            return memo[1]
        options = self._step_options(pending)
        self._options_memo = (where, options)
        return options

    def _memo_key(self) -> tuple[int, int]:
        """What the one-position memos (step options, clicks) are kept for: the
        core only changes by moves, so its key and stack length tell positions apart."""
        core = self._core
        return len(core.entries), core.key()

    _table_leaf: ClassVar[Optional[int]] = 2
    """perft through a table keyed by the state (the cores without a table of their
    own for this board): subtrees of this many moves or fewer are counted by the
    core itself, unkept; None: no such table (a game with dice)."""

    _search_plies = -1
    """brett.ai: the playout cap of a search when the player sets none (-1: the
    games end by themselves soon enough; a cut playout goes to the core's leader)."""

    def _exact_moves(self) -> Optional[list[tuple[MoveT, float]]]:
        """brett.ai: every legal move with its exact worth, best first, when the
        game knows it without a search (Schuft's endgame tables), else None."""
        return None

    def _search_move(self, steps: list[int]) -> MoveT:
        """The move made of one turn's search actions (brett.ai): a core move
        (Phutball: the steps of a jump, overridden)."""
        return self._move_from_core(steps[0])  # type: ignore[no-any-return]

    def _chance_actions(self) -> list[int]:
        """The outcome actions at a chance node, sorted (games may answer faster)."""
        return sorted(self._action_of_core(cm) for cm, _ in self._core.chance_moves())

    def _actions_of(self, move: Any) -> tuple[int, ...]:
        """The actions that make ``move`` from the current position."""
        return (self._action_of_core(self._core_from_move(move)),)

    def _click_path(self, move: Any) -> tuple[str, ...]:
        """The clicks that enter ``move`` (games refine this)."""
        return (str(move),)

    def _clicks(self, prefix: tuple[str, ...]) -> Clicks[MoveT]:
        """:meth:`LegalMoveView.clicks` by filtering the legal moves (games with
        huge move lists answer faster)."""
        size = len(prefix)
        moves: list[MoveT] = []
        following: dict[str, None] = {}
        where = self._memo_key()
        memo = self._clicks_memo  # a person clicks several times in one position
        if memo is None or memo[0] != where:
            memo = (where, [(self._click_path(m), m) for m in self.legal_moves])
            self._clicks_memo = memo
        for path, move in memo[1]:
            if path[:size] == prefix:
                if len(path) == size:
                    moves.append(move)
                else:
                    following.setdefault(path[size])
        return Clicks(prefix, tuple(moves), tuple(following))

    def _partial_move(self, actions: tuple[int, ...]) -> MoveT:
        """Multi-action games: the move (or the start of one) ``actions`` make."""
        raise BrettError(f"{self.game_name}: no partial moves")

    # ---- moves
    @property
    def legal_moves(self) -> LegalMoveView[MoveT]:
        """The legal moves: a lazy view (iterate, ``in``, ``count()``, ``bool``)."""
        return LegalMoveView(self)

    def _coerce(self, move: Any) -> Any:
        """Notation or a Move object → a Move object, or InvalidMoveError."""
        if type(move) is str:
            return self.parse_move(move)
        if not isinstance(move, self._move_types):
            raise InvalidMoveError(
                f"{move!r} is not a {self.game_name} move: "
                f"expected a {self.Move.__name__} or its notation as a string")
        return move

    def _resolve(self, move: Any) -> tuple[Any, Any]:
        """User input → (core move, the Move to record); typed errors."""
        move = self._coerce(move)
        cm = self._core_from_move(move)
        if self._canonicalize:
            return self._canonical(cm, move)
        return cm, move

    def _refuse_pending(self, what: str, error: type[BrettError] = BrettError) -> None:
        if self._pending:
            raise error(
                f"{what}: a move is half made through the integer layer "
                f"(pending actions {list(self._pending)}); finish it with apply_action() "
                f"or take the actions back with undo_action()")

    def _illegal(self, move: Any) -> IllegalMoveError:
        reason = ("the game is over" if self._core.player() == TERMINAL
                  else self._illegal_reason(move))
        return IllegalMoveError(f"illegal move {str(move)!r}: {reason}")

    def push(self, move: MoveT | str) -> MoveT:
        """Play a move (a Move or its notation); returns the Move played.

        :class:`InvalidMoveError` for malformed input and
        :class:`IllegalMoveError` for a move not legal here; either way the
        state is unchanged.
        """
        if self.multi_action:
            with self._changing():
                return self._push_move(move)
        return self._push_move(move)

    def _push_move(self, move: Any) -> MoveT:
        if self._pending:
            self._coerce(move)  # garbage is still an InvalidMoveError
            self._refuse_pending(f"cannot push {str(move)!r}", IllegalMoveError)
        if type(move) is str:
            move = self.parse_move(move)
        elif not isinstance(move, self._move_types):
            move = self._coerce(move)  # raises
        cm = self._core_from_move(move)
        if self._canonicalize:
            cm, move = self._canonical(cm, move)
        if not self._core.push(cm, move):
            raise self._illegal(move)
        return move  # type: ignore[return-value]

    def effects(self, move: MoveT | str) -> Any:
        """What ``move`` (a Move or its notation) would change, without playing it:
        a small frozen record of the game's own type (``ReversiEffects``,
        ``FocusEffects``, ``PhutballEffects``, ``SchuftEffects``; each game's guide
        describes its fields).  The move is checked as :meth:`push` checks it, with
        the same errors, and the game is never changed.  Where several step lists
        are one move (Schuft), the record describes the move ``push`` would record.
        """
        if self._pending:
            self._coerce(move)  # garbage is still an InvalidMoveError
            self._refuse_pending(f"cannot tell the effects of {str(move)!r}", IllegalMoveError)
        before = self._with_core(self._core.clone(False))  # still, whatever other threads do
        cm, move = before._resolve(move)
        after = before._with_core(before._core.clone(False))
        if not after._core.push(cm, move):
            raise before._illegal(move)
        return before._effects(move, after)

    def _effects(self, move: Any, after: Any) -> Any:
        """The effects record of the legal ``move``: this game is the position
        before it, ``after`` a view of the position after it (games supply this)."""
        raise NotImplementedError(f"{type(self).__name__} does not describe move effects")

    def pop(self) -> MoveT:
        """Take back the last move and return it; :class:`EmptyStackError`
        (an IndexError) if none was made."""
        if self.multi_action:
            with self._changing():
                return self._pop_move()
        return self._pop_move()

    def _pop_move(self) -> MoveT:
        if self._pending:
            self._refuse_pending("pop")
        try:
            move: MoveT = self._core.pop()
        except IndexError:  # none made, or another thread took the last one
            raise EmptyStackError("pop from an empty move stack") from None
        return move

    def peek(self) -> MoveT:
        """The last move played; :class:`EmptyStackError` if none was made."""
        try:
            move: MoveT = self._core.entries[-1]
        except IndexError:
            raise EmptyStackError("peek at an empty move stack") from None
        return move

    @property
    def move_stack(self) -> list[MoveT]:
        """The moves (and chance outcomes) played since the start position (a copy)."""
        return list(self._core.entries)

    @property
    def pending_actions(self) -> tuple[int, ...]:
        """The actions of a move half made through the integer layer (else empty)."""
        return self._pending

    @property
    def pending_move(self) -> Optional[MoveT]:
        """The move half made through the integer layer, as far as it goes (a
        Phutball path so far, a Schuft turn so far); None when nothing is pending."""
        with self._lock:
            return self._partial_move(self._pending) if self._pending else None

    def current_player(self) -> int:
        """The player to move; :data:`CHANCE` (-1) or :data:`TERMINAL` (-4)."""
        return int(self._core.player())

    @property
    def turn(self) -> int:
        """The player to move (same as :meth:`current_player`)."""
        return int(self._core.player())

    def is_over(self) -> bool:
        return bool(self._core.player() == TERMINAL)

    # ---- search helpers
    def perft(self, depth: int, count_finished: bool = False,
              executor: Optional[Executor] = None, tasks: int = 64,
              hash_mb: Optional[float] = None, symmetric: bool = False,
              threads: int = 1) -> int:
        """The number of legal move sequences of exactly ``depth`` moves
        (``depth`` from 0 to :data:`MAX_PERFT_DEPTH`; chance nodes use no depth).

        With ``count_finished=True`` a finished game counts as one leaf at every
        greater depth (Aart Bik's / OpenSpiel's convention).  With an
        ``executor`` (anything with ``submit``, whose futures have ``result``: a
        :class:`concurrent.futures.Executor` such as a process pool, or a Dask or
        Ray client) the tree is split into at least ``tasks`` subtrees where it is
        deep enough (see :meth:`perft_tasks`), each run as a task rebuilt from
        its position string, and the counts are added exactly; if a task fails
        or Ctrl-C comes, the tasks not yet started are cancelled.  On Dask, pass
        the client itself: its futures wait for a task that a lost worker must
        run again, where ``client.get_executor()``'s can fail.  The game is never
        changed, and several threads may run perft on one game at once; Ctrl-C
        stops a compiled search within milliseconds.

        With ``hash_mb`` (every game without dice) the count keeps the subtrees
        it has counted in a transposition table of at most that many megabytes
        (MiB), made for this call and freed after it (with an ``executor``, each
        worker thread keeps one for the tasks it runs, for as long as it lives):
        a position reached again by another move order is counted once, and deep
        counts take a fraction of the time.  Reversi has a table in the core,
        on every board; Focus and Phutball one keyed by the whole state, walked
        in Python above the core's own counts of the last few moves (it pays at
        depths where positions repeat often: see docs/reversi.md).
        ``symmetric=True`` keeps one entry for a position and its seven mirror
        images (square Reversi boards without holes).  The counts are
        exact either way.

        With ``threads`` above 1 (and no ``executor``) the ``tasks`` subtrees are
        counted on that many threads of this process, and with ``hash_mb`` all of
        them through one table (its whole size taken at once): a transposition
        between two threads' subtrees is counted once, which a table per worker
        process cannot do.  The compiled cores count in parallel.
        """
        depth = _check_depth(depth)
        cf = bool(count_finished)
        threads = as_int(threads, "threads", 1, MAX_THREADS)
        self._refuse_pending("perft")
        if threads > 1:
            if executor is not None:
                raise BrettError("perft takes threads or an executor, not both")
            return self._perft_on_threads(self._perft_counter(cf, hash_mb, symmetric,
                                                              shared=True),
                                          self.perft_tasks(depth, tasks), threads)
        if executor is None:
            return self._perft_counter(cf, hash_mb, symmetric)(self._core, depth)
        self._perft_counter(cf, hash_mb, symmetric, size_only=True)
        futures = [executor.submit(_perft_task, self.game_name, type(self).backend(),
                                   position, sub, cf, hash_mb, symmetric)
                   for position, sub in self.perft_tasks(depth, tasks)]
        try:
            return sum(int(f.result()) for f in futures)
        except BaseException:
            for future in futures:
                future.cancel()
            raise

    def _perft_on_threads(self, count: Callable[[Core, int], int],
                          subtrees: list[tuple[str, int]], threads: int) -> int:
        """The counts of ``subtrees`` added, counted on ``threads`` threads; Ctrl-C,
        a Stopper of this thread or a failed subtree stops them all."""
        import concurrent.futures  # lazily: `import brett` stays light

        stopper = Stopper()
        cls = type(self)

        def subtree(position: str, depth: int) -> int:
            with stopper:
                return count(cls.from_position(position)._core, depth)

        with concurrent.futures.ThreadPoolExecutor(threads, "brett-perft") as pool:
            futures = [pool.submit(subtree, *task) for task in subtrees]
            try:
                pending: set[concurrent.futures.Future[int]] = set(futures)
                while pending:
                    done, pending = concurrent.futures.wait(
                        pending, timeout=0.05, return_when=concurrent.futures.FIRST_EXCEPTION)
                    for future in done:
                        future.result()   # the first failure
                    stop_check()
                return sum(future.result() for future in futures)
            except BaseException:
                stopper.stop()
                for future in futures:
                    future.cancel()
                raise

    def perft_tasks(self, depth: int, tasks: int = 64) -> list[tuple[str, int]]:
        """Independent subtrees whose perfts add up to ``perft(depth)``:
        ``(position string, depth)`` pairs, made by expanding the tree level by
        level until there are at least ``tasks`` of them (or no level is left to
        expand: a subtree keeps depth 1 or more, a chance node uses no depth).
        Each pair is one task of a parallel or distributed perft (any
        ``count_finished`` applies to every task as to the whole)."""
        depth = _check_depth(depth)
        tasks = as_int(tasks, "tasks", 1, MAX_TASKS)
        self._refuse_pending("perft")
        frontier = [(self._core.clone(False), depth)]
        while len(frontier) < tasks:
            grown: list[tuple[Core, int]] = []
            level, size = collections.deque(frontier), len(frontier)
            del frontier[:]   # a parent is let go once split (a Schuft core's scratch is 1 MB)
            while level:
                core, left = level.popleft()
                grown.extend(self._expand(core, left, MAX_TASKS - len(grown)) or [(core, left)])
            frontier = grown
            if len(grown) == size:
                break  # nothing could be split further
        return [(self._task_position(core), left) for core, left in frontier]

    def _task_position(self, core: Core) -> str:
        stop_check()  # 100,000 position strings take seconds on a plain core
        return self._with_core(core).position()

    def _expand(self, core: Core, depth: int, room: int) -> list[tuple[Core, int]]:
        """The children of a subtree (empty if it cannot be split, or would give
        more than ``room`` tasks: a crowded Phutball position stays one task)."""
        player = core.player()
        if player == TERMINAL or (player != CHANCE and depth < 2) or core.count(room) > room:
            return []
        chance = player == CHANCE
        items = [cm for cm, _ in core.chance_moves()] if chance else core.moves()
        children = []
        for cm in items:
            stop_check()  # a push checks legality: a plain Schuft child costs ~30 ms
            child = core.clone(False)
            child.push(cm, None)
            children.append((child, depth if chance else depth - 1))
        return children

    def divide(self, depth: int, count_finished: bool = False,
               hash_mb: Optional[float] = None, symmetric: bool = False) -> dict[MoveT, int]:
        """perft(depth - 1) after each legal move: ``{move: count}`` (at a chance
        node ``{outcome: perft(depth)}``, since an outcome uses no depth).
        ``hash_mb`` and ``symmetric`` as for :meth:`perft`: one table serves
        every first move."""
        return dict(self.divide_iter(depth, count_finished, hash_mb, symmetric))

    def divide_iter(self, depth: int, count_finished: bool = False,
                    hash_mb: Optional[float] = None,
                    symmetric: bool = False) -> Iterator[tuple[MoveT, int]]:
        """:meth:`divide` one first move at a time, as ``(move, count)`` pairs (a
        long run can show its progress); the game is not changed."""
        depth = _check_depth(depth, low=1)
        self._refuse_pending("divide")
        count = self._perft_counter(bool(count_finished), hash_mb, symmetric)
        return self._divide(self._core.clone(False), depth, count)

    def _divide(self, snap: Core, depth: int,
                count: Callable[[Core, int], int]) -> Iterator[tuple[MoveT, int]]:
        chance = snap.player() == CHANCE
        items: Iterable[Any] = ([cm for cm, _ in snap.chance_moves()] if chance
                                else snap.iter_moves())
        for cm in items:
            stop_check()  # perft(0) of each of millions of Phutball paths never polls
            snap.push(cm, None)
            try:
                counted = count(snap, depth if chance else depth - 1)
            finally:
                snap.pop()
            yield self._move_from_core(cm), counted

    def _perft_counter(self, count_finished: bool, hash_mb: Optional[float], symmetric: Any,
                       size_only: bool = False, kept: bool = False,
                       shared: bool = False) -> Callable[[Core, int], int]:
        """The perft of a core of this game to a depth: plain, or with one table of
        ``hash_mb`` for all the counts it makes: the core's own (Reversi's),
        else one keyed by the whole state.  BrettError for a size, or
        symmetries, that the board has no table for (``size_only``: the size is
        checked, no table is made; ``kept``: the table is this thread's kept one,
        see _kept_table; ``shared``: several threads count through it at once)."""
        if not isinstance(symmetric, bool):
            raise BrettError(f"symmetric={symmetric!r:.40}: expected True or False")
        if hash_mb is None:
            if symmetric:
                raise BrettError("symmetric=True goes with a table: give hash_mb")
            return lambda core, depth: int(core.perft(depth, count_finished))
        size = _table_bytes(hash_mb)
        if not self._has_own_table(count_finished, symmetric):
            if symmetric:
                raise BrettError("symmetric=True: the mirror images are kept for square "
                                 "Reversi boards without holes")
            return self._state_counter(count_finished, size, size_only, kept)
        make = self._core.perft_table  # type: ignore[attr-defined]
        try:
            if kept:
                table = _kept_table(make, size, type(self._core))
            else:
                table = make(1, False) if size_only else make(size, shared)
        except MemoryError:
            raise BrettError(f"hash_mb={hash_mb!r}: no memory for the table") from None

        def count(core: Core, depth: int) -> int:
            try:
                return int(cast("HashedCore", core).perft_hashed(depth, count_finished,
                                                              table, symmetric))
            except OverflowError as exc:   # a count that would wrap
                raise BrettError(f"perft({depth}): {exc}") from None

        return count

    def _has_own_table(self, count_finished: bool, symmetric: bool) -> bool:
        """Whether the core's own perft table holds this board (and its
        symmetries, if asked for): Reversi's."""
        core = cast("HashedCore", self._core)
        if getattr(core, "perft_table", None) is None:
            return False
        try:
            core.perft_hashed(0, count_finished, core.perft_table(1, False), symmetric)
        except ValueError:   # a board without a table or symmetries
            return False
        return True

    def _state_counter(self, count_finished: bool, size: int, size_only: bool,
                       kept: bool) -> Callable[[Core, int], int]:
        """perft through a table keyed by the whole state (see _state_perft)."""
        from ._core._state_perft import state_perft, state_table

        leaf = self._table_leaf
        if leaf is None:
            raise BrettError(f"{self.game_name} keeps no perft table: hash_mb is for games "
                             "without chance nodes")
        root = self._core
        if size_only:
            table = None
        elif kept:
            table = _kept_table(lambda size: state_table(size, root), size,
                                ("state", type(root)))
        else:
            try:
                table = state_table(size, root)
            except MemoryError:
                raise BrettError(f"hash_mb={size / 2**20:g}: no memory for the table") \
                    from None

        def count(core: Core, depth: int) -> int:
            assert table is not None, "a size_only counter counts nothing"
            return state_perft(core, depth, count_finished, table, leaf)

        return count

    def _rng_seed(self, seed: Any) -> int:
        value = seed_value(seed)
        return (self._rng.getrandbits(64) if value is None else value) & (2**64 - 1)

    def random_playout(self, seed: Optional[int] = None,
                       max_plies: Optional[int] = None) -> Optional[Outcome]:
        """Play uniformly random legal moves (and chance outcomes) onto this game
        until it ends or ``max_plies`` moves were made; they go on the move
        stack.  Returns the outcome (None if cut short).  The same seed plays
        the same game on both cores and as :meth:`random_playouts` does.

        Phutball draws a jump path step by step (a uniform choice among the
        placements and jump directions, then among the further jumps and
        *stop*), as its integer layer plays; a uniform choice over whole paths
        would need them all counted.
        """
        cap = optional_cap(max_plies, low=0, error=BrettError)
        rng = self._rng_seed(seed)
        with self._changing() if self.multi_action else contextlib.nullcontext():
            self._play_randomly(rng, cap)
        return self.outcome()

    def _play_randomly(self, rng: int, cap: int) -> None:
        core = self._core
        core.enter()
        start = len(core.entries)
        try:
            self._refuse_pending("random_playout")
            plies = 0
            while True:
                player = core.player()
                if player == TERMINAL or 0 <= cap <= plies:
                    break
                stop_check()
                cm, rng = core.random_move(rng)
                core.push(cm, self._move_from_core(cm))
                plies += player != CHANCE
        except BaseException:  # Ctrl-C or a Stopper: the game stays as it was
            while len(core.entries) > start:
                core.pop()
            raise
        finally:
            core.leave()

    def random_playouts(self, n: int, seed: Optional[int] = None,
                        max_plies: Optional[int] = None,
                        progress: Optional[Callable[[int], Any]] = None) -> PlayoutStats:
        """Run ``n`` random games from here inside the core (no Python objects per
        move; the game is unchanged) and count their results.  ``max_plies``
        cuts each game (0 .. 2**31 - 1 moves; chance outcomes do not count).
        ``progress``, if given, is called with the number of games done every
        fraction of a second; the games are the same either way."""
        count = as_int(n, "n", 0, MAX_COUNT)
        cap = optional_cap(max_plies, low=0, error=BrettError)
        rng = self._rng_seed(seed)
        self._refuse_pending("random_playouts")
        if progress is None:
            wins, draws, unfinished, plies, _ = self._core.playouts(count, rng, cap)
            return PlayoutStats(count, tuple(int(w) for w in wins), int(draws),
                                int(unfinished), int(plies))
        totals = [0] * (self.num_players() + 3)
        done, chunk = 0, 16
        while done < count:
            k = min(chunk, count - done)
            start = time.perf_counter()
            wins, draws, unfinished, plies, rng = self._core.playouts(k, rng, cap)
            for i, value in enumerate((*wins, draws, unfinished, plies)):
                totals[i] += int(value)
            done += k
            progress(done)
            if time.perf_counter() - start < 0.1:  # about 5 to 10 reports a second
                chunk *= 2
        *wins, draws, unfinished, plies = totals
        return PlayoutStats(count, tuple(wins), draws, unfinished, plies)

    # ---- integer (OpenSpiel-style) layer
    def _check_action(self, action: Any) -> int:
        """``action`` as a Python int (numpy integers welcome), or InvalidMoveError."""
        if type(action) is int and 0 <= action < self.num_distinct_actions():
            return action
        return as_int(action, "action", 0, self.num_distinct_actions() - 1, InvalidMoveError)

    def legal_actions(self) -> list[int]:
        """The legal actions as sorted ints (chance outcomes at a chance node)."""
        if self.multi_action:
            with self._lock:
                return self._legal_actions()
        return self._legal_actions()

    def _legal_actions(self) -> list[int]:
        core = self._core
        player = core.player()
        if player == TERMINAL:
            return []
        if player == CHANCE:
            return self._chance_actions()
        if self.multi_action:
            return sorted(self._next_options(self._pending))
        return sorted(self._action_of_core(cm) for cm in core.moves())

    @overload
    def legal_actions_mask(self, out: None = None) -> numpy.typing.NDArray[numpy.bool_]: ...

    @overload
    def legal_actions_mask(self, out: _MaskT) -> _MaskT: ...

    def legal_actions_mask(self, out: Any = None) -> Any:
        """Which actions are legal: a numpy ``bool`` array of length
        :meth:`num_distinct_actions` (needs numpy: ``pip install brett[numpy]``).
        With ``out`` (a writable C-contiguous ``bool``, ``uint8`` or ``int8`` array
        of that length) the mask is written there, by compiled code where the core
        is compiled, and ``out`` returned."""
        numpy = _numpy()
        size = self.num_distinct_actions()
        if out is None:
            out = numpy.zeros(size, dtype=bool)
        elif not _is_array(out, numpy, (size,), _MASK_TYPES):
            raise BrettError(
                f"legal_actions_mask(out=...): expected a writable C-contiguous bool, uint8 "
                f"or int8 numpy array of shape ({size},)")
        if self.multi_action:
            with self._lock:
                self._fill_mask(out, size)
        else:
            self._fill_mask(out, size)
        return out

    def _fill_mask(self, out: Any, size: int) -> None:
        if self._pending or not self._compiled_hooks() \
                or not _hooks().fill_mask(self._core, out, size):
            out[:] = 0
            out[self._legal_actions()] = 1

    def observation_tensor(self, out: Optional[numpy.typing.NDArray[numpy.float32]] = None
                           ) -> numpy.typing.NDArray[numpy.float32]:
        """The position from the view of the player to move, as a ``float32``
        numpy array of shape :meth:`observation_tensor_shape` (the game's guide
        documents the planes).  Needs numpy (``pip install brett[numpy]``).  With
        ``out`` (a writable C-contiguous float32 array of that shape) the
        observation is written there, by compiled code where the core is
        compiled, and ``out`` returned."""
        numpy = _numpy()
        shape = self.observation_tensor_shape()
        if out is None:
            out = numpy.empty(shape, dtype=numpy.float32)
        elif not _is_array(out, numpy, shape, "f"):
            raise BrettError(
                f"observation_tensor(out=...): expected a writable C-contiguous float32 "
                f"numpy array of shape {shape}")
        if self.multi_action:
            with self._lock:
                self._fill_observation(out, shape)
        else:
            self._fill_observation(out, shape)
        return out

    def _fill_observation(self, out: Any, shape: tuple[int, ...]) -> None:
        if self._pending or not self._compiled_hooks() \
                or not _hooks().fill_observation(self._core, out, shape):
            numpy = _numpy()
            out[...] = numpy.asarray(self._observation(), dtype=numpy.float32).reshape(shape)

    _state_bytes: ClassVar[int] = 64 << 10
    """The memory one game of this kind holds (state, move stack, scratch), an upper
    bound measured per game on either core: what VectorEnv counts for each of its
    environments beside the arrays (:doc:`docs/rl.md <rl>`)."""

    @classmethod
    def _compiled_hooks(cls) -> bool:
        """Whether this class's core plays the integer layer in C (the v_* hooks)."""
        known = cls.__dict__.get("_hooks_known")
        if known is None:
            known = cls.backend() == "cython" and _hooks().vector_supported(cls._core_class())
            cls._hooks_known = known
        return bool(known)

    def action_to_move(self, action: int) -> MoveT:
        """The move (or chance outcome) an action plays here.  In a game whose
        moves take several actions, the move so far with this action added."""
        if not self.multi_action:
            return self._move_from_core(self._core_of_action(self._check_action(action)))
        with self._lock:  # the range of actions may depend on the node: checked under the lock
            a = self._check_action(action)
            if self.has_chance and self._core.player() == CHANCE:
                return self._move_from_core(self._core_of_action(a))
            return self._partial_move((*self._pending, a))

    def move_to_action(self, move: MoveT | str) -> int:
        """The action of a move (for a move of several actions: its last one, from
        the position before it, or the next one while a move is pending)."""
        move = self._coerce(move)
        if self.multi_action:
            with self._lock:
                return self._action_of_move(move)
        return self._action_of_core(self._core_from_move(move))

    def _action_of_move(self, move: Any) -> int:
        return self._action_of_core(self._core_from_move(move))

    def apply_action(self, action: int) -> None:
        """Play one action; :class:`IllegalMoveError` if it is not legal here
        (the state is unchanged).  Where a move takes several actions, the
        move goes on the move stack with its last action."""
        if not self.multi_action:
            self._apply_one(self._check_action(action))
            return
        with self._changing():
            a = self._check_action(action)  # a chance node's range: checked under the lock
            if self.has_chance and self._core.player() == CHANCE:
                self._apply_one(a)
            else:
                self._apply_step(a)

    def _apply_one(self, a: int) -> None:
        """Play the move of a single action (a chance outcome or a whole move)."""
        cm = self._core_of_action(a)
        if not self._core.push(cm, self._move_from_core(cm)):
            raise self._illegal_action(a)

    def _apply_step(self, a: int) -> None:
        """Play one action of a move that may take several."""
        core = self._core
        core.enter()
        try:
            if core.player() == TERMINAL:
                raise self._illegal_action(a)
            pending = self._pending
            done = self._step(pending, a)
            if done is None:
                raise self._illegal_action(a, sorted(self._next_options(pending)))
            if done is MORE:
                self._pending = (*pending, a)
                return
            cm, move = self._canonical(done, self._move_from_core(done))
            if not core.push(cm, move):
                raise self._illegal_action(a)
            self._pending = ()
            self._built[len(core.entries) - 1] = (move, (*pending, a))
        finally:
            core.leave()

    def _illegal_action(self, action: int, legal: Optional[list[int]] = None) -> IllegalMoveError:
        if self._core.player() == TERMINAL:
            return IllegalMoveError(f"action {action}: the game is over")
        text = f"action {action} is not legal here"
        if legal is not None:
            shown = ", ".join(map(str, legal[:30])) + (", ..." if len(legal) > 30 else "")
            text += f" (legal: {shown})"
        return IllegalMoveError(text)

    def undo_action(self) -> None:
        """Take back one action: a pending action of a half-made move, else the
        last move's last action (its other actions become pending again).
        :class:`EmptyStackError` when there is nothing to take back."""
        if not self.multi_action:
            try:
                self._core.pop()
            except IndexError:  # none made, or another thread took the last one
                raise EmptyStackError("undo_action with nothing to undo") from None
            return
        with self._changing():
            self._undo_step()

    def _undo_step(self) -> None:
        core = self._core
        core.enter()
        try:
            if self._pending:
                self._pending = self._pending[:-1]
                return
            entries = core.entries
            if not entries:
                raise EmptyStackError("undo_action with nothing to undo")
            last = entries[-1]
            built = self._built.pop(len(entries) - 1, None)
            core.pop()
            actions = built[1] if built is not None and built[0] is last \
                else self._actions_of(last)
            self._pending = actions[:-1]
        finally:
            core.leave()

    def is_chance_node(self) -> bool:
        return bool(self._core.player() == CHANCE)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``[(action, probability)]`` at a chance node, else ``[]``."""
        return [(self._action_of_core(cm), float(p)) for cm, p in self._core.chance_moves()]

    def _sample_chance(self) -> Any:
        """A chance outcome (core move) drawn from the game's seeded generator."""
        outcomes = self._core.chance_moves()
        if not outcomes:
            raise IllegalMoveError("not a chance node: nothing to sample")
        if len({p for _, p in outcomes}) == 1:
            return outcomes[self._rng.randrange(len(outcomes))][0]
        return self._rng.choices([cm for cm, _ in outcomes], [p for _, p in outcomes])[0]

    def player_name(self, player: int) -> str:
        """How the game names a player in text, capitalised (``"Black (x)"``,
        ``"Red (r)"``, ``"Up (attacks the top)"``)."""
        return f"player {player}"

    def returns(self) -> list[float]:
        """Per player: +1 win, -1 loss, 0 draw or not finished."""
        outcome = self.outcome()
        if outcome is None:
            return [0.0] * self.num_players()
        return outcome.returns(self.num_players())

    # ---- identity, copies, pickling
    def copy(self: G, stack: bool = True) -> G:
        """An independent copy; with ``stack=False`` the copy starts at the
        current position with an empty move stack (pending actions are kept)."""
        new = object.__new__(type(self))
        with self._lock:  # the core and the pending actions of one moment
            new.__dict__.update(self.__dict__)
            core = self._core.clone(bool(stack))
            built = dict(self._built)
        new._lock = threading.RLock()
        new._rng = random.Random()
        new._rng.setstate(self._rng.getstate())
        new._core = core
        if stack:
            new._built = built
        else:
            new._root = core.get_state()
            new._built = {}
        return new

    def __copy__(self: G) -> G:
        return self.copy()

    def __deepcopy__(self: G, memo: dict[int, Any]) -> G:
        return self.copy()

    def start_position(self) -> str:
        """The position string the move stack starts from."""
        core = self._core_class()
        core.set_state(self._root)
        return self._with_core(core).position()

    def __reduce__(self) -> tuple[Any, ...]:
        # Public state only: a pickle loads on either core and on later versions.
        with self._lock:
            moves, pending = list(self._core.entries), list(self._pending)
        return (_restore, (self.game_name, type(self).backend(), self.start_position(),
                           [str(m) for m in moves], pending, self._rng.getstate()))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game) or other.game_name != self.game_name:
            return NotImplemented
        return self.position() == other.position()

    def __hash__(self) -> int:
        if self.multi_action:
            with self._lock:
                key, pending = int(self._core.key()), self._pending
        else:
            key, pending = int(self._core.key()), ()
        return hash((key, pending)) if pending else key

    def __repr__(self) -> str:
        return f"{type(self).__name__}.from_position({self.position()!r})"

    def _repr_svg_(self) -> str:
        """The position as SVG, so Jupyter draws the game (see :func:`brett.svg`)."""
        from .render import svg

        return svg(self)


_MASK_TYPES = "?Bb"
"""The dtype characters an ``out`` mask may have: bool, uint8, int8."""


def _is_array(out: Any, numpy: Any, shape: tuple[int, ...], chars: str) -> bool:
    """Whether ``out`` is a writable C-contiguous numpy array of ``shape`` and one of
    the dtype characters ``chars``."""
    return bool(isinstance(out, numpy.ndarray) and out.dtype.char in chars
                and out.shape == shape and out.flags.c_contiguous and out.flags.writeable)


def _hooks() -> Any:
    """The compiled helpers of the integer layer (only asked on a compiled core)."""
    from ._core import _common
    return _common


def _numpy() -> Any:
    try:
        import numpy
    except ImportError:
        raise ImportError("this needs numpy: pip install 'brett[numpy]'") from None
    return numpy


def _restore(name: str, backend: str, start: str, moves: list[str], pending: list[int],
             rng_state: Any) -> Game[Any]:
    """Rebuild a pickled game (module level, so pickle finds it)."""
    game = _class_for(name, backend).from_position(start)
    for move in moves:
        game.push(move)
    for action in pending:
        game.apply_action(action)
    game._rng.setstate(rng_state)
    return game


MAX_TASKS = 100_000
"""The most subtrees :meth:`Game.perft_tasks` makes."""
MAX_THREADS = 1024
"""The most threads of one :meth:`Game.perft`."""


def _perft_task(name: str, backend: str, position: str, depth: int, count_finished: bool,
                hash_mb: Optional[float] = None, symmetric: bool = False) -> int:
    """One subtree of a parallel perft; a module-level function so it pickles."""
    game = _class_for(name, backend).from_position(position)
    if hash_mb is None:
        return int(game.perft(depth, count_finished))
    game._refuse_pending("perft")
    counter = game._perft_counter(count_finished, hash_mb, symmetric, kept=True)
    return counter(game._core, _check_depth(depth))


_KEPT = threading.local()


def _kept_table(make: Callable[[int], Any], size: int, kind: Hashable) -> Any:
    """The perft table this thread keeps for the tasks it runs: the next task of
    a parallel count finds the subtrees of the ones before (a table per task
    would count again every transposition between tasks).  One table a thread,
    made anew for another size or core; a core empties it for another board or
    convention.  It lives as long as the thread (a worker of a pool)."""
    kept = getattr(_KEPT, "table", None)
    if kept is None or kept[0] != (kind, size):
        _KEPT.table = None   # the old table is freed before the new one is made
        kept = _KEPT.table = ((kind, size), make(size))
    return kept[1]


def _table_bytes(hash_mb: Any) -> int:
    """A perft table's size in bytes from ``hash_mb`` (MiB): more than 0, at most
    this machine's memory."""
    limit = _physical_mb()
    if isinstance(hash_mb, bool) or not isinstance(hash_mb, (int, float)) \
            or not 0 < hash_mb <= limit:
        raise BrettError(f"hash_mb={hash_mb!r:.40}: expected a number of MiB above 0 and "
                         f"at most {limit} (this machine's memory)")
    return max(1, int(hash_mb * 2**20))


def _physical_mb() -> int:
    """This machine's memory in MiB (1 TiB where the system does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
    except (AttributeError, ValueError, OSError):
        return 2**20


def _class_for(name: str, backend: str) -> type[Game[Any]]:
    """The game's class on ``backend``, or on the core this installation has
    (a pickle or task made where the compiled core existed, run where it does not)."""
    cls = GAMES[name]
    try:
        return cls.twin(backend)
    except BrettError:
        return cls


def _check_depth(depth: Any, low: int = 0) -> int:
    return as_int(depth, "depth", low, MAX_PERFT_DEPTH)


__all__ = [
    "CHANCE",
    "GAMES",
    "MAX_PERFT_DEPTH",
    "MAX_PLIES",
    "TERMINAL",
    "AnyGame",
    "AnyMove",
    "CoreModules",
    "Game",
    "GameOption",
    "GameRegistry",
    "LegalMoveView",
    "Outcome",
    "PlayoutStats",
    "core_backends",
    "load_cores",
]
