"""Every brett game as a single-agent Gymnasium environment against a built-in
opponent (docs/rl.md, "Gymnasium").

>>> import gymnasium
>>> import brett.gymnasium
>>> env = gymnasium.make("brett/Reversi-v0", size=6)
>>> observation, info = env.reset(seed=1)
>>> terminated = truncated = False
>>> while not (terminated or truncated):
...     action = env.action_space.sample(observation["action_mask"])
...     observation, reward, terminated, truncated, info = env.step(action)

Importing this module registers ``brett/Reversi-v0``, ``brett/Focus-v0``,
``brett/Phutball-v0`` and ``brett/Schuft-v0`` (one id per game of
``brett.GAMES``); ``gymnasium.make("brett.gymnasium:brett/Reversi-v0")`` imports
it on the way.
"""

from __future__ import annotations

import operator
from typing import Any, Optional, SupportsFloat, Union

import gymnasium
import numpy as np
from gymnasium import spaces

from . import _rl
from .ai import MCTSPlayer, Player
from .errors import BrettError, IllegalMoveError
from .game import GAMES, Game

__all__ = ["BrettEnv", "env_id"]

ILLEGAL_ACTIONS = ("penalize", "raise")
ILLEGAL_REWARD = -1.0
"""The reward of an illegal action under ``illegal_action="penalize"`` (a loss)."""


class BrettEnv(gymnasium.Env[dict[str, Any], np.int64]):
    """One seat of a brett game; the other seats are played by ``opponent``.

    ``BrettEnv(game, opponent="random", agent_player=0, render_mode=None,
    illegal_action="penalize", **options)``:

    * ``game``: a key of ``brett.GAMES``; ``options``: its constructor's options
      (where they leave ``seed`` open, the game's seed is drawn from the
      environment's generator at each reset).
    * ``opponent``: ``"random"`` (uniformly random actions from the environment's
      generator), a level 1..10 of :class:`brett.ai.MCTSPlayer` (seeded from the
      environment's generator at each reset), or any :class:`brett.ai.Player`.
      It plays every seat but the agent's.
    * ``agent_player``: the agent's seat, or ``"random"`` (drawn at each reset;
      ``info["agent_player"]`` tells it).
    * ``illegal_action``: ``"penalize"`` ends the episode with reward -1 and
      ``info["illegal_action"] = True``, the game unchanged; ``"raise"`` raises
      :class:`brett.IllegalMoveError`.  An action outside the action space
      always raises :class:`brett.InvalidMoveError`.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 (gymnasium reads the class's)
        "render_modes": list(_rl.RENDER_MODES), "render_fps": 1}

    def __init__(self, game: str, opponent: Union[str, int, Player] = "random",
                 agent_player: Union[int, str] = 0, render_mode: Optional[str] = None,
                 illegal_action: str = "penalize", **options: Any) -> None:
        self._cls = _rl.game_class(game)
        self.render_mode = _rl.check_render_mode(render_mode)
        if illegal_action not in ILLEGAL_ACTIONS:
            raise BrettError(f"illegal_action={illegal_action!r:.40}: expected "
                             f"{' or '.join(ILLEGAL_ACTIONS)}")
        self.illegal_action = illegal_action
        self._options = dict(options)
        probe = _rl.new_game(self._cls, self._options, None)  # checks the options now
        self._players = probe.num_players()
        self._seat = _seat(agent_player, self._players)
        self._opponent_spec = _opponent(opponent)
        self.observation_space = _rl.observation_space(probe)
        self.action_space = spaces.Discrete(probe.num_distinct_actions())
        self._game: Optional[Game[Any]] = None
        self._opponent: Optional[Player] = None
        self._agent = 0
        self._done = True

    @property
    def game(self) -> Game[Any]:
        """A copy of the brett game being played (changing it changes nothing here)."""
        return self._live().copy()

    @property
    def agent_player(self) -> int:
        """The agent's seat in the current episode."""
        self._live()
        return self._agent

    def _live(self) -> Game[Any]:
        if self._game is None:
            raise BrettError("call reset() first: there is no game yet")
        return self._game

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start a new game and play the opponents' moves until the agent is to
        act.  ``options`` is accepted for the API and ignored."""
        super().reset(seed=seed)
        rng = self.np_random
        game = _rl.new_game(self._cls, self._options, rng)
        self._agent = int(rng.integers(self._players)) if self._seat is None else self._seat
        spec = self._opponent_spec
        if isinstance(spec, Player):
            self._opponent = spec
        elif isinstance(spec, int):
            self._opponent = MCTSPlayer.level(spec, seed=int(rng.integers(_rl.SEED_LIMIT)))
        else:  # "random": actions drawn from the environment's generator
            self._opponent = None
        self._game = game
        self._done = False
        info = self._advance()
        if self.render_mode == "human":
            self.render()
        return _rl.observe(game, not self._done), info

    def step(self, action: Union[int, np.integer[Any]]
             ) -> tuple[dict[str, Any], SupportsFloat, bool, bool, dict[str, Any]]:
        """Play the agent's action, then the opponents' moves until the agent is
        to act again or the game is over; reward: the agent's return at the end."""
        game = self._live()
        if self._done:
            raise BrettError("the episode is over: call reset()")
        try:
            game.apply_action(_rl.check_action(game, action))
        except IllegalMoveError:  # nothing changed
            if self.illegal_action == "raise":
                raise
            self._done = True
            info = {"agent_player": self._agent, "illegal_action": True}
            return _rl.observe(game, False), ILLEGAL_REWARD, True, False, info
        info = self._advance()
        reward = float(game.returns()[self._agent]) if game.is_over() else 0.0
        if self.render_mode == "human":
            self.render()
        return _rl.observe(game, not self._done), reward, self._done, False, info

    def _advance(self) -> dict[str, Any]:
        """Draw chance and play the opponents until the agent acts or the game
        ends; what happened, for ``info``."""
        game = self._live()
        rng = self.np_random
        chance = _rl.resolve_chance(game, rng)
        moves = []
        while not game.is_over() and game.current_player() != self._agent:
            player = game.current_player()
            if self._opponent is None:
                _rl.random_move(game, rng)
                text = str(game.peek())
            else:
                text = str(game.push(self._opponent.choose(game)))
            moves.append({"player": player, "move": text})
            chance += _rl.resolve_chance(game, rng)
        self._done = game.is_over()
        info: dict[str, Any] = {"agent_player": self._agent, "opponent_moves": moves}
        if self._cls.has_chance:
            info["chance"] = chance
        return info

    def render(self) -> Optional[str]:  # type: ignore[override]
        """``ansi``: the text board; ``svg``: the SVG document; ``human``: the SVG
        shown in Jupyter (else the text board printed), returning None."""
        return _rl.render(self._game, self.render_mode)

    def close(self) -> None:
        """Nothing to release: the game lives in memory."""


def _seat(value: Any, players: int) -> Optional[int]:
    """The agent's seat (None: drawn at each reset)."""
    if value == "random" and isinstance(value, str):
        return None
    try:
        seat = operator.index(value)
    except TypeError:
        seat = -1
    if isinstance(value, bool) or not 0 <= seat < players:
        raise BrettError(f"agent_player={value!r:.40}: expected 0 .. {players - 1} or 'random'")
    return seat


def _opponent(value: Any) -> Union[str, int, Player]:
    """``"random"``, an MCTS level 1..10 or a :class:`brett.ai.Player`."""
    if isinstance(value, Player) or (isinstance(value, str) and value == "random"):
        return value
    try:
        level = operator.index(value)
    except TypeError:
        level = 0
    if isinstance(value, bool) or not 1 <= level <= 10:
        raise BrettError(f"opponent={value!r:.40}: expected 'random', an MCTS level 1..10 "
                         f"or a brett.ai player")
    return level


def env_id(game: str) -> str:
    """The Gymnasium id of a brett game: ``brett/Reversi-v0`` for ``"reversi"``."""
    return f"brett/{_rl.game_class(game).__name__}-v0"


def _register() -> None:
    for name in GAMES:
        if env_id(name) not in gymnasium.registry:
            gymnasium.register(env_id(name), entry_point="brett.gymnasium:BrettEnv",
                               kwargs={"game": name})


_register()
