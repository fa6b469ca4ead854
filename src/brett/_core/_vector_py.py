"""The stepping loop of brett.vector.VectorEnv in plain Python: the twin of
``_vector_c.pyx`` (read that file's docstring), step for step, over Game objects
and their public integer layer, with the same draws from the same generators,
so both fill the same arrays."""

from __future__ import annotations

from typing import Any

from ._rng import SplitMix64

__all__ = ["Stepper", "unit"]


def unit(rng: SplitMix64) -> float:
    """A float in [0, 1) from the next 53 bits (the C loop's ``_unit``)."""
    return (rng.next() >> 11) * (1.0 / 9007199254740992.0)


class Stepper:
    """The games and generators of ``n`` environments; writes into the arrays
    brett.vector.VectorEnv allocated (numpy)."""

    def __init__(self, start: Any, games: list[Any], seeds: list[int], nact: int,
                 nplayers: int, max_steps: int, obs: Any, mask: Any, rewards: Any,
                 terminated: Any, truncated: Any, player: Any) -> None:
        self.start = start
        self.games = games
        self.rng = [SplitMix64(s) for s in seeds]
        self.nact, self.nplayers, self.max_steps = nact, nplayers, max_steps
        self.obs, self.mask, self.rewards = obs, mask, rewards
        self.terminated, self.truncated, self.player = terminated, truncated, player
        n = len(games)
        self.masks = [[False] * nact for _ in range(n)]
        self.steps = [0] * n
        self.done = [False] * n

    def seed(self, seeds: list[int]) -> None:
        self.rng = [SplitMix64(s) for s in seeds]

    def rng_states(self) -> list[int]:
        return [r.state for r in self.rng]

    def _resolve_chance(self, i: int) -> None:
        game = self.games[i]
        while game.is_chance_node():
            outcomes = game.chance_outcomes()
            u = unit(self.rng[i])
            cum = 0.0
            k = 0
            while k < len(outcomes) - 1:
                cum += outcomes[k][1]
                if u < cum:
                    break
                k += 1
            game.apply_action(outcomes[k][0])

    def _report(self, i: int) -> None:
        game = self.games[i]
        mask = game.legal_actions_mask()
        self.masks[i] = mask.tolist()
        self.mask[i] = mask
        self.obs[i] = game.observation_tensor().reshape(-1)
        who = game.current_player()
        over = game.is_over()
        cut = not over and self.max_steps > 0 and self.steps[i] >= self.max_steps
        self.player[i] = who
        self.terminated[i] = over
        self.truncated[i] = cut
        self.done[i] = over or cut
        self.rewards[i] = game.returns() if over else [0.0] * self.nplayers

    def _reset_one(self, i: int) -> None:
        self.games[i] = self.start.copy(stack=False)
        self.steps[i] = 0
        self._resolve_chance(i)
        self._report(i)

    # the whole-range entry points of the C loop (threads do not help under the GIL)
    def reset_all(self) -> int:
        return self.reset(0, len(self.games))

    def step_all(self, actions: Any) -> int:
        return self.step(actions, 0, len(self.games))

    def random_all(self, out: Any) -> int:
        self.random_actions(out, 0, len(self.games))
        return -1

    def reset(self, lo: int, hi: int) -> int:
        for i in range(lo, hi):
            self._reset_one(i)
        return -1

    def check_all(self, actions: Any) -> int:
        for i in range(len(self.games)):
            if self.done[i]:
                continue
            a = int(actions[i])
            if not (0 <= a < self.nact and self.masks[i][a]):
                return i
        return -1

    def step(self, actions: Any, lo: int, hi: int) -> int:
        for i in range(lo, hi):
            if self.done[i]:
                self._reset_one(i)
                continue
            self.games[i].apply_action(int(actions[i]))
            self.steps[i] += 1
            self._resolve_chance(i)
            self._report(i)
        return -1

    def random_actions(self, out: Any, lo: int, hi: int) -> None:
        for i in range(lo, hi):
            out[i] = 0
            if self.done[i]:
                continue
            legal = [a for a, ok in enumerate(self.masks[i]) if ok]
            if legal:
                out[i] = legal[self.rng[i].below(len(legal))]
