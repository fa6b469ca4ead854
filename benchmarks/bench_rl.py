"""Reinforcement-learning throughput (pytest-benchmark; run explicitly):

    python -m pytest benchmarks/bench_rl.py

Random-action plies per second on 8x8 Reversi, each with its observation and its
legal-action mask, in one run:

* ``brett.vector.VectorEnv`` (compiled, no GIL) at ``threads=1`` and ``threads=2``;
* one ``brett.Reversi`` stepped from Python: a random legal action from the mask,
  ``apply_action``, ``observation_tensor(out=)`` and ``legal_actions_mask(out=)``;
* pgx's Othello (JAX, jit + vmap) on the CPU at its best batch size, when pgx is
  installed (``pip install pgx jax``); its actions are drawn from its masks.

Also the single-game fast paths (``observation_tensor(out=)`` and
``legal_actions_mask(out=)``) per call, and every game's VectorEnv rate.  A
summary with the ratios is printed at the end.  Figures, not timed asserts.
"""

from __future__ import annotations

import random
import time
from typing import Any

import numpy as np
import pytest

import brett
from _figures import Figures, needs_cython, per_second
from brett.vector import VectorEnv

BATCH = 1024
STEPS = 200

RESULTS = Figures("Reinforcement learning (8x8 Reversi, plies/s with observation and mask)", [
    ("VectorEnv threads=2 / pgx best batch", "VectorEnv threads=2", "pgx othello best batch"),
    ("VectorEnv threads=1 / pgx best batch", "VectorEnv threads=1", "pgx othello best batch"),
    ("VectorEnv threads=2 / one game from Python", "VectorEnv threads=2", "one game from Python"),
    ("VectorEnv threads=1 / one game from Python", "VectorEnv threads=1", "one game from Python"),
    ("VectorEnv threads=2 / threads=1", "VectorEnv threads=2", "VectorEnv threads=1"),
])


@needs_cython
@pytest.mark.parametrize("threads", [1, 2])
def test_vector_env(benchmark: Any, threads: int) -> None:
    env = VectorEnv("reversi", BATCH, threads=threads, seed=1)

    def run() -> int:
        for _ in range(STEPS):
            env.step(env.random_actions())
        return BATCH * STEPS

    plies = benchmark.pedantic(run, rounds=5, iterations=1, warmup_rounds=1)
    RESULTS[f"VectorEnv threads={threads}"] = per_second(benchmark, plies)


@needs_cython
def test_one_game_from_python(benchmark: Any) -> None:
    game = brett.Reversi()
    obs = np.empty(game.observation_tensor_shape(), dtype=np.float32)
    mask = np.empty(game.num_distinct_actions(), dtype=bool)
    choose = random.Random(1).choice
    game.legal_actions_mask(out=mask)

    def run() -> int:
        nonlocal game
        for _ in range(20_000):
            game.apply_action(choose(np.flatnonzero(mask).tolist()))
            game.observation_tensor(out=obs)
            game.legal_actions_mask(out=mask)
            if game.is_over():
                game = brett.Reversi()
                game.legal_actions_mask(out=mask)
        return 20_000

    plies = benchmark.pedantic(run, rounds=3, iterations=1)
    RESULTS["one game from Python"] = per_second(benchmark, plies)


@needs_cython
@pytest.mark.parametrize("call", ["observation_tensor", "legal_actions_mask"])
def test_fast_paths(benchmark: Any, call: str) -> None:
    game = brett.Reversi()
    out = (np.empty(game.observation_tensor_shape(), dtype=np.float32)
           if call == "observation_tensor" else np.empty(65, dtype=bool))
    method = getattr(game, call)

    def run() -> int:
        for _ in range(100_000):
            method(out=out)
        return 100_000

    calls = benchmark.pedantic(run, rounds=3, iterations=1)
    RESULTS[f"{call}(out=) calls"] = per_second(benchmark, calls)


@needs_cython
@pytest.mark.parametrize("name", ["focus", "phutball", "schuft"])
def test_vector_env_other_games(benchmark: Any, name: str) -> None:
    options = {"max_plies": 200} if name in ("focus", "phutball") else {}
    env = VectorEnv(name, 1024, threads=2, seed=1, **options)

    def run() -> int:
        for _ in range(20):
            env.step(env.random_actions())
        return 1024 * 20

    plies = benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=1)
    RESULTS[f"VectorEnv {name} threads=2 (actions/s)"] = per_second(benchmark, plies)


def test_pgx_othello(benchmark: Any) -> None:
    """pgx's Othello, jit-compiled step over a vmapped batch, at its best batch."""
    pgx = pytest.importorskip("pgx")
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    env = pgx.make("othello")
    init = jax.jit(jax.vmap(env.init))
    step = jax.jit(jax.vmap(env.step))

    @jax.jit
    def act(key: Any, mask: Any) -> Any:
        return jax.random.categorical(key, jnp.log(mask.astype(jnp.float32)), axis=-1)

    best = 0.0
    for batch in (256, 1024, 4096):
        key = jax.random.PRNGKey(0)
        state = init(jax.random.split(key, batch))

        def run(state: Any = state, key: Any = key) -> Any:
            for _ in range(STEPS):
                key, sub = jax.random.split(key)
                state = step(state, act(sub, state.legal_action_mask))
            state.observation.block_until_ready()
            return state

        run()  # compile
        start = time.perf_counter()
        run()
        rate = batch * STEPS / (time.perf_counter() - start)
        if rate > best:
            best, best_batch = rate, batch
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)
    RESULTS["pgx othello best batch"] = best
    RESULTS["pgx othello best batch size"] = float(best_batch)
