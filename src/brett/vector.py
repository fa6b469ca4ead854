"""Many games stepped at once, in compiled code without the GIL.

>>> import numpy as np
>>> from brett.vector import VectorEnv
>>> env = VectorEnv("reversi", 1024, seed=1)
>>> obs, info = env.reset()
>>> obs.shape, info["action_mask"].shape
((1024, 3, 8, 8), (1024, 65))
>>> obs, rewards, terminated, truncated, info = env.step(env.random_actions())

``VectorEnv(game, num_envs, *, threads=1, seed=None, max_steps=None, **options)``
plays ``num_envs`` games of one game and its options through the integer layer
(the actions of ``Game.apply_action``).  Each ``step(actions)`` applies one action
per game and writes the observations, legal-action masks, rewards (one per player),
``terminated``, ``truncated`` and the player to move into arrays allocated once and
returned without copying: read them (or copy them) before the next step.

* Chance nodes (Schuft's dice) are resolved inside, from each game's own
  generator; every game and every player to move you see is a decision.
* A game that ended (or reached ``max_steps`` actions: truncated) keeps its final
  observation and result in the arrays for that step; the next ``step`` resets it
  to the start, ignoring its action (Gymnasium's "next step" autoreset).
* ``seed`` makes a run reproducible, for any number of ``threads``: game ``i``
  draws from its own splitmix64 stream.
* An action the mask forbids, or actions of the wrong shape or type, raise
  :class:`~brett.BrettError` naming the first bad game, and no game changes.
* ``threads=k`` starts k-1 helper threads that step the games with the calling
  thread, without the GIL: each takes small chunks of the games until none is
  left, so a step never waits for a helper that is late or asleep, and the calling
  thread steps alone while the helpers prove slower (a busy machine); ``close()``
  (or garbage collection) stops them, and the environment still steps in the
  calling thread.  One caller thread at a time: a second one
  is refused with a :class:`~brett.BrettError`.

The compiled loop is ``brett/_core/_vector_c.pyx``; with a plain-Python game class
(``brett.GAMES["reversi"].twin("python")``, or ``BRETT_NO_EXTENSIONS=1``) the same
steps run in Python over Game objects (slow, but the same arrays).  Needs numpy
(``pip install brett[rl]``).
"""

from __future__ import annotations

import os
import random
import threading
import weakref
from typing import Any, ClassVar, Optional, Union

from ._checks import MAX_PLIES, as_int, seed_value
from ._core import _vector_py
from ._core._rng import SplitMix64
from .errors import BrettError, IllegalMoveError, InvalidMoveError
from .game import GAMES, Game, _numpy, load_cores

__all__ = ["MAX_BYTES", "MAX_ENVS", "MAX_THREADS", "VectorEnv"]

MAX_ENVS = 1 << 20
MAX_THREADS = 256
MAX_BYTES = 1 << 32
"""The memory one VectorEnv may take, its games (``Game._state_bytes`` each, as
measured) and its arrays: refused beyond 4 GiB."""

_vector = load_cores("vector")


class VectorEnv:
    """``num_envs`` games of one game and its options, stepped together (see the
    module's docstring)."""

    metadata: ClassVar[dict[str, Any]] = {"autoreset_mode": "NextStep"}

    def __init__(self, game: Union[str, type[Game[Any]], Game[Any]], num_envs: int, *,
                 threads: int = 1, seed: Optional[int] = None,
                 max_steps: Optional[int] = None, **options: Any) -> None:
        np = _numpy()
        self._start = _start_game(game, options)
        self.num_envs = as_int(num_envs, "num_envs", 1, MAX_ENVS)
        self.threads = min(as_int(threads, "threads", 1, MAX_THREADS), self.num_envs)
        self.max_steps = 0 if max_steps is None else as_int(max_steps, "max_steps", 1, MAX_PLIES)
        start = self._start
        self.num_actions = start.num_distinct_actions()
        self.num_players = start.num_players()
        self.observation_shape = tuple(start.observation_tensor_shape())
        size = int(np.prod(self.observation_shape))
        arrays = 4 * size + self.num_actions + 4 * self.num_players + 14
        need = self.num_envs * (arrays + start._state_bytes)
        if need > MAX_BYTES:
            raise BrettError(f"num_envs={self.num_envs}: the games and their arrays would "
                             f"take {need:,} bytes (at most {MAX_BYTES:,}: "
                             f"brett.vector.MAX_BYTES)")
        n = self.num_envs
        self.observations = np.zeros((n, *self.observation_shape), dtype=np.float32)
        self.action_mask = np.zeros((n, self.num_actions), dtype=bool)
        self.rewards = np.zeros((n, self.num_players), dtype=np.float32)
        self.terminated = np.zeros(n, dtype=bool)
        self.truncated = np.zeros(n, dtype=bool)
        self.player = np.zeros(n, dtype=np.int32)
        self._actions = np.zeros(n, dtype=np.int64)
        self.info = {"action_mask": self.action_mask, "player": self.player}
        self._seed = self._fresh_seed(seed)
        self._stepper = self._make_stepper(np, size)
        self._busy = threading.Lock()
        self._helpers: list[threading.Thread] = []
        self._pid = os.getpid()
        if self.backend == "cython" and self.threads > 1:
            self._hire(self.threads)
        self._run(self._stepper.reset_all)

    # ---- construction
    @property
    def backend(self) -> str:
        """``"cython"`` (the compiled loop) or ``"python"``."""
        return "python" if isinstance(self._stepper, _vector_py.Stepper) else "cython"

    @staticmethod
    def _fresh_seed(seed: Any) -> int:
        value = seed_value(seed)
        return random.SystemRandom().getrandbits(64) if value is None else value

    def _seeds(self) -> list[int]:
        """Game i's generator starts at the i-th output of the seed's stream."""
        rng = SplitMix64(self._seed)
        return [rng.next() for _ in range(self.num_envs)]

    def _make_stepper(self, np: Any, size: int) -> Any:
        start = self._start
        flat = self.observations.reshape(self.num_envs, size)
        arrays = (flat, self.action_mask.view(np.uint8), self.rewards,
                  self.terminated.view(np.uint8), self.truncated.view(np.uint8), self.player)
        core = start._core
        compiled = _vector.cython is not None and start._compiled_hooks()
        if not compiled:
            games = [start.copy(stack=False) for _ in range(self.num_envs)]
            return _vector_py.Stepper(start, games, self._seeds(), self.num_actions,
                                      self.num_players, self.max_steps, *arrays)
        cores = [core.clone(False) for _ in range(self.num_envs)]
        assert _vector.cython is not None   # compiled says so
        return _vector.cython.Stepper(core.clone(False), cores, self._seeds(),
                                      self.num_actions, self.num_players,
                                      self.max_steps, *arrays)

    # ---- the Gymnasium-style API
    def reset(self, *, seed: Optional[int] = None,
              options: Optional[dict[str, Any]] = None) -> tuple[Any, dict[str, Any]]:
        """Every game back to the start (re-seeded when ``seed`` is given):
        ``(observations, info)``, info holding ``action_mask`` and ``player``."""
        if options:
            raise BrettError("reset(options=...): VectorEnv takes its options when made")
        fresh = None if seed is None else self._fresh_seed(seed)
        self._run(self._reset_all, fresh)
        return self.observations, self.info

    def _reset_all(self, seed: Optional[int]) -> Any:
        """reset's job, the new seed included: under the one-caller guard."""
        if seed is not None:
            self._seed = seed
            self._stepper.seed(self._seeds())
        return self._stepper.reset_all()

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Apply one action per game: ``(observations, rewards, terminated,
        truncated, info)``; rewards have one column per player."""
        acts = self._check_actions(actions)
        self._run(self._checked_step, acts)
        return self.observations, self.rewards, self.terminated, self.truncated, self.info

    def random_actions(self) -> Any:
        """A uniformly random legal action for every game, drawn from the games' own
        generators (reproducible with the seed).  The array is reused by the next call."""
        self._run(self._stepper.random_all, self._actions)
        return self._actions

    def close(self) -> None:
        """Stop the helper threads; the environment still steps, in the calling
        thread.  Also done when the environment is garbage-collected."""
        with self._busy:
            _dismiss(self._stepper, self._helpers, self._pid)

    def __enter__(self) -> VectorEnv:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return (f"VectorEnv({self._start.game_name!r}, {self.num_envs}, "
                f"threads={self.threads}, backend={self.backend!r})")

    # ---- Gymnasium spaces (gymnasium installed: brett[rl])
    @property
    def single_observation_space(self) -> Any:
        from gymnasium import spaces
        return spaces.Box(0.0, float("inf"), self.observation_shape, dtype=_numpy().float32)

    @property
    def single_action_space(self) -> Any:
        from gymnasium import spaces
        return spaces.Discrete(self.num_actions)

    # ---- internals
    def _check_actions(self, actions: Any) -> Any:
        np = _numpy()
        try:
            acts = np.asarray(actions)
        except Exception as e:
            raise InvalidMoveError(f"actions: {e}") from None
        if acts.shape != (self.num_envs,):
            raise InvalidMoveError(f"actions of shape {acts.shape}: expected ({self.num_envs},)")
        if acts.dtype.kind not in "iu":
            raise InvalidMoveError(f"actions of dtype {acts.dtype}: expected integers")
        if acts.dtype != np.int64 or not acts.flags.c_contiguous:
            if acts.dtype.kind == "u" and acts.size and acts.max() > np.iinfo(np.int64).max:
                bad = int(np.argmax(acts > np.iinfo(np.int64).max))
                raise IllegalMoveError(f"environment {bad}: action {int(acts[bad])} is out of "
                                       f"range; no game was changed")
            acts = np.ascontiguousarray(acts, dtype=np.int64)
        return acts

    def _hire(self, threads: int) -> None:
        """Start the compiled loop's helper threads (see _vector_c.pyx): daemons,
        sent home by close() or when this environment is collected."""
        stepper = self._stepper
        stepper.hire(threads)
        try:
            for k in range(1, threads):
                helper = threading.Thread(target=stepper.serve, args=(k,), daemon=True,
                                          name=f"brett-vector-{k}")
                helper.start()
                self._helpers.append(helper)
        except RuntimeError as e:       # the system refused a thread
            stepper.dismiss()           # wakes the helpers started so far
            _dismiss(stepper, self._helpers, self._pid)
            raise BrettError(f"VectorEnv(threads={threads}): {e}") from None
        weakref.finalize(self, _dismiss, stepper, self._helpers, self._pid)

    def _checked_step(self, acts: Any) -> int:
        bad: int = self._stepper.check_all(acts)
        if bad >= 0:
            raise IllegalMoveError(f"environment {bad}: action {int(acts[bad])} is not legal "
                                   "there (see info['action_mask']); no game was changed")
        return int(self._stepper.step_all(acts))

    def _run(self, call: Any, *args: Any) -> None:
        """One job over every environment; one caller at a time."""
        if not self._busy.acquire(blocking=False):
            raise BrettError("VectorEnv: called from two threads at once (give each "
                             "thread its own VectorEnv)")
        try:
            if self._helpers and self._pid != os.getpid():
                _dismiss(self._stepper, self._helpers, self._pid)
            bad = call(*args)
        finally:
            self._busy.release()
        if bad is not None and bad >= 0:
            raise BrettError(f"environment {bad}: its core refused a step (a bug in brett: "
                             "please report it)")


def _dismiss(stepper: Any, helpers: list[threading.Thread], pid: int) -> None:
    """Send the helpers home; in a forked child (the helpers stayed in process
    ``pid``), only forget them."""
    if not helpers:
        return
    if os.getpid() != pid:
        stepper.abandon()
    else:
        stepper.dismiss()
        for helper in helpers:
            helper.join()
    helpers.clear()


def _start_game(game: Any, options: dict[str, Any]) -> Game[Any]:
    """The position every environment starts from."""
    if isinstance(game, Game):
        if options:
            raise BrettError("VectorEnv(game instance, ...) takes no options: they are the game's")
        if game.pending_actions:
            raise BrettError("VectorEnv: the start position has a move pending")
        return game.copy(stack=False)
    return GAMES.create(game, **options)
