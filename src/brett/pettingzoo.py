"""Every brett game as a PettingZoo AEC environment (docs/rl.md, "PettingZoo").

>>> from brett.pettingzoo import env
>>> aec = env("reversi", size=6)
>>> aec.reset(seed=1)
>>> for agent in aec.agent_iter():
...     observation, reward, terminated, truncated, info = aec.last()
...     if terminated or truncated:
...         action = None
...     else:
...         action = aec.action_space(agent).sample(observation["action_mask"])
...     aec.step(action)

Agents ``player_0`` .. ``player_{n-1}`` act when brett's ``current_player()``
says so; chance (Schuft's dice) is drawn inside the environment from its own
generator and reported in ``infos[agent]["chance"]``; a move of several actions
(a Phutball jump path, a Schuft turn) is several steps of the same agent.  An
illegal action raises :class:`brett.IllegalMoveError` and changes nothing.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from . import _rl
from .errors import BrettError, InvalidMoveError
from .game import Game

__all__ = ["env", "raw_env"]


class raw_env(AECEnv[str, dict[str, np.ndarray], Optional[int]]):
    """A brett game as an AEC environment: ``raw_env(game, render_mode=None,
    max_cycles=None, **options)`` with the game's name (a key of
    ``brett.GAMES``) and its constructor's options.

    ``max_cycles`` truncates an episode after that many steps (actions of any
    agent); the game's own ``max_plies`` option instead ends it as a draw
    (termination).  Where the options leave ``seed`` open, ``reset(seed=...)``
    draws the game's seed (Reversi's random holes, Focus's random swap) from
    the environment's generator, so one seed fixes the whole episode."""

    # The class's; each instance names its game (PettingZoo reads env.metadata).
    metadata: dict[str, Any] = {  # noqa: RUF012
        "name": "brett_v0", "render_modes": list(_rl.RENDER_MODES),
        "is_parallelizable": False, "render_fps": 1}

    def __init__(self, game: str, render_mode: Optional[str] = None,
                 max_cycles: Optional[int] = None, **options: Any) -> None:
        super().__init__()
        self._cls = _rl.game_class(game)
        self.render_mode = _rl.check_render_mode(render_mode)
        self.max_cycles = _rl.optional_count(max_cycles, "max_cycles")
        self._options = dict(options)
        probe = _rl.new_game(self._cls, self._options, None)  # checks the options now
        self.metadata = {**type(self).metadata, "name": f"brett_{self._cls.game_name}_v0"}
        self.possible_agents = [f"player_{p}" for p in range(probe.num_players())]
        self._index = {agent: p for p, agent in enumerate(self.possible_agents)}
        # One space object per agent, so seeding one does not seed the others.
        self.observation_spaces = {a: _rl.observation_space(probe) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(probe.num_distinct_actions())
                              for a in self.possible_agents}
        self._game: Optional[Game[Any]] = None
        self._rng: Optional[np.random.Generator] = None
        self._steps = 0
        self.agents: list[str] = []

    # ---- spaces
    def _agent(self, agent: Any) -> str:
        if not isinstance(agent, str) or agent not in self._index:
            raise BrettError(f"unknown agent {agent!r:.40}: expected one of "
                             f"{', '.join(self.possible_agents)}")
        return agent

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[self._agent(agent)]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[self._agent(agent)]

    @property
    def game(self) -> Game[Any]:
        """A copy of the brett game being played (changing it changes nothing here)."""
        return self._live().copy()

    def _live(self) -> Game[Any]:
        if self._game is None:
            raise BrettError("call reset() first: there is no game yet")
        return self._game

    # ---- the AEC API
    def reset(self, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None) -> None:
        """Start a new game.  ``seed`` seeds the environment's generator (the
        game's seed where the options leave it open, and every chance outcome);
        without it the generator goes on (a first reset seeds it from the OS).
        ``options`` is accepted for the API and ignored: the game's options are
        the constructor's."""
        if seed is not None or self._rng is None:
            self._rng, _ = seeding.np_random(seed)
        assert self._rng is not None
        game = _rl.new_game(self._cls, self._options, self._rng)
        chance = _rl.resolve_chance(game, self._rng)
        self._game = game
        self._steps = 0
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._set_infos(chance)
        self._settle(self.agents[0])
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The board from the view of the player to move (brett's observation
        tensor, the same for every agent) and the legal actions, as ``int8``
        ones, for the agent to act (zeros for the others and once the game is over)."""
        agent = self._agent(agent)
        game = self._live()
        return _rl.observe(game, game.current_player() == self._index[agent])

    def step(self, action: Optional[int]) -> None:
        """Play ``action`` for ``agent_selection``.  An action that is not legal
        raises :class:`brett.IllegalMoveError` (out of range or not an integer:
        :class:`brett.InvalidMoveError`) and changes nothing."""
        game = self._live()
        if not self.agents:
            raise BrettError("the episode is over: call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise InvalidMoveError(f"{agent} is done: its only action is None")
            self._was_dead_step(action)
            return
        if action is None:
            raise InvalidMoveError(f"{agent} is to act: None is not an action")
        game.apply_action(_rl.check_action(game, action))  # raises, changing nothing
        self._steps += 1
        chance = _rl.resolve_chance(game, self._live_rng())
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if game.is_over():
            for a, value in zip(self.possible_agents, game.returns(), strict=True):
                self.rewards[a] = float(value)
                self.terminations[a] = True
        elif self.max_cycles is not None and self._steps >= self.max_cycles:
            for a in self.agents:
                self.truncations[a] = True
        self._set_infos(chance)
        self._settle(agent)
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _live_rng(self) -> np.random.Generator:
        assert self._rng is not None  # set by reset, as the game is
        return self._rng

    def _set_infos(self, chance: list[dict[str, Any]]) -> None:
        """Every agent's info: the chance outcomes drawn since the last step
        (fresh objects for each agent, which users may keep)."""
        if self._cls.has_chance:
            self.infos = {a: {"chance": [dict(c) for c in chance]} for a in self.agents}
        else:
            self.infos = {a: {} for a in self.agents}

    def _settle(self, last: str) -> None:
        """Point ``agent_selection`` at the player to move (at the end: at the
        agent that acted last, and the agents leave one by one)."""
        player = self._live().current_player()
        self.agent_selection = self.possible_agents[player] if player >= 0 else last

    def render(self) -> Optional[str]:
        """``ansi``: the text board; ``svg``: the SVG document; ``human``: the SVG
        shown in Jupyter (else the text board printed), returning None."""
        return _rl.render(self._game, self.render_mode)

    def close(self) -> None:
        """Nothing to release: the game lives in memory."""


def env(game: str, render_mode: Optional[str] = None, **options: Any) -> raw_env:
    """The AEC environment of the brett game ``game`` with its ``options`` (and
    ``max_cycles``); see :class:`raw_env`.  It is not wrapped: it checks the
    order of calls and the actions itself and raises :class:`brett.BrettError`."""
    return raw_env(game, render_mode=render_mode, **options)
