"""Every brett game as an OpenSpiel game (docs/rl.md, "OpenSpiel").

>>> import pyspiel
>>> import brett.openspiel                    # registers brett_reversi, brett_focus, ...
>>> game = pyspiel.load_game("brett_reversi", {"size": 6})
>>> state = game.new_initial_state()
>>> state.apply_action(state.legal_actions()[0])

Importing the module registers every game of ``brett.GAMES`` as ``brett_<name>``
(:func:`register` again does nothing).  The options are OpenSpiel parameters
(:data:`PARAMETERS`), typed as OpenSpiel wants: lists are strings separated by
``;`` (a ``,`` would split OpenSpiel's game string), an option that is a count or
a word is two (Reversi's ``holes`` and ``num_holes``, Schuft's ``first_player``
and ``roll_off``), None is ``0`` or ``""``, ``seed`` defaults to 0 so that a game
string names one game, and the games that can go on for ever take a required
``max_plies`` (default :data:`DEFAULT_MAX_PLIES`) from which ``max_game_length``
is a true bound.  Bad values raise :class:`brett.BrettError`; unknown names and
wrong types are OpenSpiel's ``pyspiel.SpielError``.

A state steps a live brett game through its integer layer, never parsing a
position string; ``clone`` copies the game, OpenSpiel's serialization pickles
its position string (pending actions included).  The observation is brett's,
from the view of the player to move, whichever player OpenSpiel asks for (all
the games have perfect information).  OpenSpiel has no ``undo_action`` for
games written in Python.
"""

from __future__ import annotations

import operator
import re
from typing import Any, ClassVar, Optional

import numpy as np
import pyspiel
from open_spiel.python.observation import IIGObserverForPublicInfoGame

from .errors import BrettError, InvalidPositionError
from .focus import Focus
from .game import GAMES, Game
from .phutball import Phutball
from .reversi import Reversi
from .schuft import NUM_ROLLS, Schuft

__all__ = ["DEFAULT_MAX_PLIES", "GAME_CLASSES", "PARAMETERS", "PREFIX", "BrettGame",
           "BrettState", "load", "register"]

PREFIX = "brett_"
"""OpenSpiel's name of a brett game: ``brett_`` and its name in ``brett.GAMES``."""

DEFAULT_MAX_PLIES = 1000
"""The ply cap of the games that need one (a draw when reached): moves of Focus
and Phutball, turns of Schuft.  Random games of 2-player Focus last tens of
thousands of moves; 15x19 Phutball about 200."""

_INT_MAX = 2**31 - 1  # OpenSpiel's ints (parameters, max_game_length) are C ints
_SEPARATORS = re.compile(r"[;,\s]+")
_Utility = pyspiel.GameType.Utility


# ------------------------------------------------------------------ parameters
def _int(params: dict[str, Any], key: str) -> int:
    value = params[key]
    if not isinstance(value, bool):
        try:
            return operator.index(value)
        except TypeError:
            pass
    raise InvalidPositionError(f"{key}={value!r:.40}: expected an int")


def _bool(params: dict[str, Any], key: str) -> bool:
    value = params[key]
    if not isinstance(value, bool):
        raise InvalidPositionError(f"{key}={value!r:.40}: expected True or False")
    return value


def _str(params: dict[str, Any], key: str) -> str:
    value = params[key]
    if not isinstance(value, str) or len(value) > 200:
        raise InvalidPositionError(f"{key}={value!r:.40}: expected a string")
    return value.strip().lower()


def _items(text: str) -> list[str]:
    """``"b2;g7"`` (or ``"b2,g7"``, ``"b2 g7"``) as ``["b2", "g7"]``."""
    return [item for item in _SEPARATORS.split(text) if item]


def _cap(params: dict[str, Any], per_ply: int) -> int:
    """``max_plies``, checked so that ``per_ply`` actions a ply fit an int."""
    cap = _int(params, "max_plies")
    top = _INT_MAX // per_ply
    if not 1 <= cap <= top:
        raise InvalidPositionError(f"max_plies={cap}: expected an int from 1 to {top}")
    return cap


class _Spec:
    """What OpenSpiel needs to know of one brett game beyond its public API:
    its parameters and how they become the constructor's options, a bound of
    its length, and whether it is zero-sum."""

    game: ClassVar[type[Game[Any]]]
    parameters: ClassVar[dict[str, Any]]
    registered_utility: ClassVar[Any] = _Utility.ZERO_SUM
    chance_outcomes: ClassVar[int] = 0
    """The chance actions are 0 .. chance_outcomes - 1."""

    def options(self, params: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """The constructor's options, and the parameters in their canonical form."""
        raise NotImplementedError

    def max_game_length(self, proto: Game[Any], params: dict[str, Any]) -> int:
        raise NotImplementedError

    def utility(self, proto: Game[Any]) -> Any:
        """ZERO_SUM where every finished game's returns add up to 0 (one winner
        and one loser, two against two, or a draw), else GENERAL_SUM."""
        return _Utility.ZERO_SUM


class _ReversiSpec(_Spec):
    game = Reversi
    parameters: ClassVar[dict[str, Any]] = {
        "size": 0, "board": "square", "holes": "", "num_holes": 0, "handicap": 0,
        "handicap_color": "black", "seed": 0, "anti": False}

    def options(self, params: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        size, count = _int(params, "size"), _int(params, "num_holes")
        holes = _str(params, "holes")
        squares = _items(holes)
        if squares and count:
            raise InvalidPositionError(
                f"holes={holes!r} and num_holes={count}: give the squares or a count, not both")
        options = {"size": size or None, "board": _str(params, "board"),
                   "holes": squares[0] if squares == ["random"] else squares or count,
                   "handicap": _int(params, "handicap"),
                   "handicap_color": _str(params, "handicap_color"),
                   "seed": _int(params, "seed"), "anti": _bool(params, "anti")}
        canonical = {**params, "holes": ";".join(squares), "board": options["board"],
                     "handicap_color": options["handicap_color"]}
        return options, canonical

    def max_game_length(self, proto: Game[Any], params: dict[str, Any]) -> int:
        empty = len(proto.squares) - len(proto.piece_map())  # type: ignore[attr-defined]
        return 2 * empty


class _FocusSpec(_Spec):
    game = Focus
    parameters: ClassVar[dict[str, Any]] = {
        "players": 2, "teams": True, "move_rule": "exact", "swap": "", "mirror_rule": False,
        "max_plies": DEFAULT_MAX_PLIES, "seed": 0}
    registered_utility = _Utility.GENERAL_SUM  # each game says which it is

    def options(self, params: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        swap = _items(_str(params, "swap"))
        options = {"players": _int(params, "players"), "teams": _bool(params, "teams"),
                   "move_rule": _str(params, "move_rule"),
                   "swap": None if not swap else swap[0] if swap == ["random"] else swap,
                   "mirror_rule": _bool(params, "mirror_rule"),
                   "max_plies": _cap(params, 1), "seed": _int(params, "seed")}
        return options, {**params, "swap": ";".join(swap), "move_rule": options["move_rule"]}

    def max_game_length(self, proto: Game[Any], params: dict[str, Any]) -> int:
        return int(params["max_plies"])

    def utility(self, proto: Game[Any]) -> Any:
        # One winner, or a draw: zero-sum for two; 3 players and the 4-player
        # free-for-all give [1, -1, -1(, -1)].  Teams win and lose in pairs.
        n = proto.num_players()
        teams = n == 4 and proto.teams  # type: ignore[attr-defined]
        return _Utility.ZERO_SUM if n == 2 or teams else _Utility.GENERAL_SUM


class _PhutballSpec(_Spec):
    game = Phutball
    parameters: ClassVar[dict[str, Any]] = {
        "columns": 15, "rows": 19, "ball": "", "max_plies": DEFAULT_MAX_PLIES}

    def options(self, params: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        ball = _str(params, "ball")
        options = {"columns": _int(params, "columns"), "rows": _int(params, "rows"),
                   "ball": ball or None, "max_plies": _cap(params, 2)}
        return options, {**params, "ball": ball}

    def max_game_length(self, proto: Game[Any], params: dict[str, Any]) -> int:
        # Placements p and ball moves b: p + b <= max_plies.  Every jump removes
        # at least one man, and the game starts without men, so all the jumps
        # of a game are at most p; each ball move adds one stop at most.
        return 2 * int(params["max_plies"])


class _SchuftSpec(_Spec):
    game = Schuft
    parameters: ClassVar[dict[str, Any]] = {
        "players": 2, "first_player": 0, "roll_off": False, "max_plies": DEFAULT_MAX_PLIES}
    registered_utility = _Utility.GENERAL_SUM
    chance_outcomes = NUM_ROLLS  # a roll of the three dice, for a turn or the roll-off

    def options(self, params: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        first, roll_off = _int(params, "first_player"), _bool(params, "roll_off")
        if roll_off and first:
            raise InvalidPositionError(
                f"first_player={first} and roll_off=True: the roll-off decides who starts")
        options = {"players": _int(params, "players"),
                   "first_player": "roll" if roll_off else first,
                   "max_plies": _cap(params, 4)}
        return options, dict(params)

    def max_game_length(self, proto: Game[Any], params: dict[str, Any]) -> int:
        # A turn: a direction (at a roll of 15) and up to three steps, or a pass.
        return 4 * int(params["max_plies"])

    def utility(self, proto: Game[Any]) -> Any:
        return _Utility.ZERO_SUM if proto.num_players() == 2 else _Utility.GENERAL_SUM


_SPECS: tuple[_Spec, ...] = (_ReversiSpec(), _FocusSpec(), _PhutballSpec(), _SchuftSpec())

PARAMETERS: dict[str, dict[str, Any]] = {
    PREFIX + spec.game.game_name: dict(spec.parameters) for spec in _SPECS}
"""Every OpenSpiel game's parameters and their defaults."""


def _spec_of(cls: type[Game[Any]]) -> _Spec:
    for spec in _SPECS:
        if issubclass(cls, spec.game):
            return spec
    raise BrettError(f"{cls.game_name}: no OpenSpiel description of this game")


def _game_type(cls: type[Game[Any]], utility: Any) -> pyspiel.GameType:
    spec = _spec_of(cls)
    players = [o for o in cls.OPTIONS if o.name == "players"]
    low, high = (players[0].minimum, players[0].maximum) if players else (2, 2)
    chance = pyspiel.GameType.ChanceMode
    return pyspiel.GameType(
        short_name=PREFIX + cls.game_name,
        long_name=f"brett {cls.__name__}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=chance.EXPLICIT_STOCHASTIC if cls.has_chance else chance.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=high,
        min_num_players=low,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(spec.parameters))


# ------------------------------------------------------------------ states
class _Live:
    """The brett game a state steps, in the state's ``__dict__``, which
    OpenSpiel deep-copies to clone a state (here: a copy of the game) and
    pickles to serialize one (here: its position string and core)."""

    __slots__ = ("game",)

    def __init__(self, game: Game[Any]) -> None:
        self.game = game

    def __deepcopy__(self, memo: dict[int, Any]) -> _Live:
        return _Live(self.game.copy(stack=False))

    def __reduce__(self) -> tuple[Any, ...]:
        game = self.game
        return (_revive, (game.game_name, game.backend(), game.position()))


class _Fresh(_Live):
    """A start position copied only when first used: OpenSpiel's ``clone``
    makes a new initial state and then overwrites its game with the copy."""

    __slots__ = ("start",)

    def __init__(self, start: Game[Any]) -> None:
        self.start = start

    def __getattr__(self, name: str) -> Any:
        if name != "game":
            raise AttributeError(name)
        self.game = self.start.copy(stack=False)
        return self.game

    def __deepcopy__(self, memo: dict[int, Any]) -> _Live:
        try:
            return _Live(object.__getattribute__(self, "game").copy(stack=False))
        except AttributeError:
            return _Fresh(self.start)


def _revive(name: str, backend: str, position: str) -> _Live:
    return _Live(GAMES[name].twin(backend).from_position(position))


class BrettState(pyspiel.State):  # type: ignore[misc]
    """An OpenSpiel state over a live brett game (see the module's docstring)."""

    def __init__(self, game: BrettGame, live: _Live) -> None:
        super().__init__(game)
        self._live = live

    @property
    def brett_game(self) -> Game[Any]:
        """The brett game this state steps.  Read it; to change it, ``copy()``
        it first (OpenSpiel's history would no longer match)."""
        return self._live.game

    def current_player(self) -> int:
        # brett's CHANCE (-1) and TERMINAL (-4) are OpenSpiel's PlayerId values.
        return self._live.game.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        return self._live.game.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self._live.game.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        self._live.game.apply_action(action)

    def _action_to_string(self, player: int, action: int) -> str:
        """brett's text of the move the action plays or grows (``d3``,
        ``h10-h12``, ``cw 12/17``, a roll ``5-8-2``)."""
        try:
            return str(self._live.game.action_to_move(action))
        except BrettError:  # not an action of this node
            return f"action {action}"

    def is_terminal(self) -> bool:
        return self._live.game.is_over()

    def returns(self) -> list[float]:
        return self._live.game.returns()

    def __str__(self) -> str:
        return str(self._live.game)


class _Observer:
    """brett's observation tensor (the view of the player to move, for every
    ``player``) and its position string."""

    def __init__(self, shape: tuple[int, ...], params: Optional[dict[str, Any]]) -> None:
        if params:
            raise BrettError(f"observation parameters are not supported: {params!r:.80}")
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state: BrettState, player: int) -> None:
        state.brett_game.observation_tensor(out=self.dict["observation"])

    def string_from(self, state: BrettState, player: int) -> str:
        return state.brett_game.position()


# ------------------------------------------------------------------ games
class BrettGame(pyspiel.Game):  # type: ignore[misc]
    """A brett game as an OpenSpiel game.  OpenSpiel makes them through
    ``pyspiel.load_game("brett_reversi", params)`` from one subclass per game
    (:data:`GAME_CLASSES`); ``BrettGame(params, cls=brett.Reversi.twin("python"))``
    makes one on any brett class."""

    brett_game_class: ClassVar[Optional[type[Game[Any]]]] = None
    """The brett class of a registered subclass."""

    def __init__(self, params: Optional[dict[str, Any]] = None, *,
                 cls: Optional[type[Game[Any]]] = None) -> None:
        cls = cls if cls is not None else type(self).brett_game_class
        if cls is None:
            raise BrettError("BrettGame needs a brett game class: cls=brett.Reversi, ...")
        spec = _spec_of(cls)
        given = dict(params or {})
        unknown = sorted(set(given) - set(spec.parameters))
        if unknown:
            raise BrettError(f"{PREFIX}{cls.game_name}: unknown parameter {unknown[0]!r:.40}; "
                             f"expected {', '.join(spec.parameters)}")
        full = {**spec.parameters, **given}
        options, canonical = spec.options(full)
        try:
            proto = cls(**options)
        except TypeError as exc:  # an option of the wrong kind that the checks let by
            raise InvalidPositionError(f"{cls.game_name}: {exc}") from None
        utility = spec.utility(proto)
        info = pyspiel.GameInfo(
            num_distinct_actions=proto.num_distinct_actions(),
            max_chance_outcomes=spec.chance_outcomes,
            num_players=proto.num_players(),
            min_utility=-1.0, max_utility=1.0,
            utility_sum=0.0 if utility == _Utility.ZERO_SUM else None,
            max_game_length=spec.max_game_length(proto, full))
        # Only what differs from the defaults, so the game string stays short.
        shown = {k: v for k, v in canonical.items() if v != spec.parameters[k]}
        super().__init__(_game_type(cls, utility), info, shown)
        self._proto = proto
        self._options = options

    @property
    def brett_class(self) -> type[Game[Any]]:
        """The brett class (and so the core) the states play on."""
        return type(self._proto)

    @property
    def brett_options(self) -> dict[str, Any]:
        """The brett constructor's options these parameters mean."""
        return dict(self._options)

    def __reduce__(self) -> tuple[Any, ...]:
        # pyspiel's own pickle of a game rebuilds the C++ side only.
        cls = self.brett_class
        backend = None if cls is GAMES[cls.game_name] else cls.backend()
        return (_unpickle_game, (cls.game_name, dict(self.get_parameters()), backend))

    def new_initial_state(self, state: Any = None) -> BrettState:
        if state is not None:
            raise BrettError("new_initial_state takes no argument: the games start "
                             "where their parameters say")
        return BrettState(self, _Fresh(self._proto))

    def make_py_observer(self, iig_obs_type: Any = None,
                         params: Optional[dict[str, Any]] = None) -> Any:
        """brett's observation; for a perfect-recall information state, the
        history of actions (OpenSpiel's observer of public-information games)."""
        if iig_obs_type is None or (iig_obs_type.public_info
                                    and not iig_obs_type.perfect_recall):
            return _Observer(self._proto.observation_tensor_shape(), params)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


GAME_CLASSES: dict[str, type[BrettGame]] = {}
"""The registered OpenSpiel game classes by OpenSpiel name (``brett_reversi``, ...)."""


def register() -> list[str]:
    """Register every brett game with pyspiel (again: nothing happens); the
    OpenSpiel names, ``brett_<name>``."""
    known = set(pyspiel.registered_names())
    for name in GAMES:
        short = PREFIX + name
        if short in GAME_CLASSES:
            continue
        cls = GAMES[name]
        # A class, not a closure: pyspiel keeps its creators until the process
        # exits, and a closure freed then (without the GIL) aborts Python.
        game_class = type(f"{cls.__name__}Game", (BrettGame,), {
            "brett_game_class": cls, "__module__": __name__,
            "__doc__": f"{cls.__name__} as the OpenSpiel game {short}."})
        if short not in known:
            pyspiel.register_game(_game_type(cls, _spec_of(cls).registered_utility),
                                  game_class)
        GAME_CLASSES[short] = game_class
        globals()[game_class.__name__] = game_class  # found by name: pickles of games
    return list(GAME_CLASSES)


def load(game: str, params: Optional[dict[str, Any]] = None, *,
         backend: Optional[str] = None) -> BrettGame:
    """The OpenSpiel game ``game`` (``"brett_reversi"`` or brett's
    ``"reversi"``) with ``params``; ``backend="python"`` plays it on brett's
    plain-Python twin (its states keep that core through serialization)."""
    name = game[len(PREFIX):] if isinstance(game, str) and game.startswith(PREFIX) else game
    cls = GAMES.lookup(name)
    if backend is not None:
        cls = cls.twin(backend)
    return BrettGame(params, cls=cls)


def _unpickle_game(name: str, params: dict[str, Any], backend: Optional[str]) -> BrettGame:
    return load(name, params, backend=backend)


register()
