"""Train a small Reversi policy with brett.vector.VectorEnv (numpy only).

    python examples/train_vector.py               # about ten seconds
    python examples/train_vector.py --games 3000  # a tiny budget (the tests run this)

The learner plays Black against a random White in every game of a VectorEnv.
Its policy is linear: the logits of the legal actions are ``obs @ W + b`` (``obs``
the 3 x n x n observation, flattened); it learns by REINFORCE, the final result
(+1, 0, -1) against the batch's mean as the baseline.  Before and after training
it plays ``--eval`` games against the random player and prints its score; the
score after training is what the example shows: well above one half.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from brett.vector import VectorEnv


def masked_softmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    logits = np.where(mask, logits, -np.inf)
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    return p / p.sum(axis=1, keepdims=True)


class Policy:
    def __init__(self, obs_size: int, num_actions: int, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.W = np.zeros((obs_size, num_actions))
        self.b = np.zeros(num_actions)

    def probs(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return masked_softmax(obs @ self.W + self.b, mask)

    def sample(self, p: np.ndarray) -> np.ndarray:
        u = self.rng.random((len(p), 1))
        return np.minimum((p.cumsum(axis=1) < u).sum(axis=1), p.shape[1] - 1)


def play(env: VectorEnv, policy: Policy, games: int, learn: bool = False,
         rate: float = 1.0) -> float:
    """Play ``games`` finished games (Black: the policy, White: random); the policy's
    mean score (win 1, draw 0.5, loss 0).  With ``learn``, a REINFORCE update
    after every batch of finished games."""
    n = env.num_envs
    obs, info = env.reset()
    trace: list[list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = [[] for _ in range(n)]
    finished: list[tuple[float, list[Any]]] = []
    scores: list[float] = []
    while len(scores) < games:
        flat = obs.reshape(n, -1).astype(np.float64)
        mask = info["action_mask"]
        actions = env.random_actions().copy()         # White, and the finished games
        black = np.flatnonzero(info["player"] == 0)
        if len(black):
            p = policy.probs(flat[black], mask[black])
            chosen = policy.sample(p)
            actions[black] = chosen
            for k, i in enumerate(black):
                trace[i].append((flat[i], p[k], chosen[k]))
        obs, rewards, terminated, truncated, info = env.step(actions)
        for i in np.flatnonzero(terminated | truncated):
            result = float(rewards[i, 0])
            scores.append((result + 1) / 2)
            finished.append((result, trace[i]))
            trace[i] = []
        if learn and len(finished) >= 64:
            update(policy, finished, rate)
            finished = []
    return float(np.mean(scores[:games]))


def update(policy: Policy, finished: list[tuple[float, list[Any]]], rate: float) -> None:
    baseline = np.mean([r for r, _ in finished])
    gW = np.zeros_like(policy.W)
    gb = np.zeros_like(policy.b)
    steps = 0
    for result, moves in finished:
        advantage = result - baseline
        for x, p, a in moves:
            grad = -p
            grad[a] += 1.0                      # d log p(a) / d logits
            gW += advantage * np.outer(x, grad)
            gb += advantage * grad
            steps += 1
    policy.W += rate * gW / max(steps, 1)
    policy.b += rate * 10 * gb / max(steps, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000, help="training games")
    parser.add_argument("--eval", type=int, default=1000, help="evaluation games")
    parser.add_argument("--size", type=int, default=6, help="board size")
    parser.add_argument("--envs", type=int, default=256, help="games played at once")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    env = VectorEnv("reversi", args.envs, seed=args.seed, size=args.size)
    policy = Policy(int(np.prod(env.observation_shape)), env.num_actions, args.seed)
    before = play(env, policy, args.eval)
    play(env, policy, args.games, learn=True)
    after = play(env, policy, args.eval)
    print(f"score against the random player: {before:.3f} before training, "
          f"{after:.3f} after {args.games} games")


if __name__ == "__main__":
    main()
