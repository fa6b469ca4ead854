"""Reinforcement-learning throughput (pytest-benchmark; run explicitly):

    python -m pytest benchmarks/bench_rl.py

Random-action plies per second on 8x8 Reversi, each with its observation and its
legal-action mask, in one run:

* ``brett.vector.VectorEnv`` (compiled, no GIL) at ``threads=1`` and ``threads=2``,
  each in ``PROCESSES`` fresh processes, alternating (one process can hide a
  bimodal figure): min / median / max of plies/s and of the ratio of each pair,
  quiet and beside one and two processes that only spin (``BRETT_BUSY``, default
  "0,1,2", picks which); the medians of the quiet run go into the summary;
* one ``brett.Reversi`` stepped from Python: a random legal action from the mask,
  ``apply_action``, ``observation_tensor(out=)`` and ``legal_actions_mask(out=)``;
* pgx's Othello (JAX, jit + vmap) on the CPU at its best batch size, when pgx is
  installed (``pip install pgx jax``); its actions are drawn from its masks.  JAX
  runs on every core, so the ratio is given per CPU second too.

Also the single-game fast paths (``observation_tensor(out=)`` and
``legal_actions_mask(out=)``) per call, and every game's VectorEnv rate.  A
summary with the ratios is printed at the end.  Figures, not timed asserts.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import time
from typing import Any

import numpy as np
import pytest

import brett
from _figures import Figures, needs_cython, per_second
from brett.vector import VectorEnv

BATCH = 1024
STEPS = 200
PROCESSES = 10
BUSY = [int(b) for b in os.environ.get("BRETT_BUSY", "0,1,2").split(",")]

RESULTS = Figures("Reinforcement learning (8x8 Reversi, plies/s with observation and mask)", [
    ("VectorEnv threads=2 / pgx best batch", "VectorEnv threads=2", "pgx othello best batch"),
    ("VectorEnv threads=1 / pgx best batch", "VectorEnv threads=1", "pgx othello best batch"),
    ("VectorEnv threads=2 / one game from Python", "VectorEnv threads=2", "one game from Python"),
    ("VectorEnv threads=1 / one game from Python", "VectorEnv threads=1", "one game from Python"),
    ("VectorEnv threads=2 / threads=1", "VectorEnv threads=2", "VectorEnv threads=1"),
    ("VectorEnv threads=2 / pgx, per CPU second", "VectorEnv threads=2 per CPU second",
     "pgx othello best batch per CPU second"),
])
VECTOR = Figures(f"VectorEnv threads (8x8 Reversi, batch {BATCH}, {PROCESSES} fresh processes "
                 "each)", [])


CHILD = """
import json, sys, time
from brett.vector import VectorEnv
threads, batch, steps, rounds = json.loads(sys.argv[1])
env = VectorEnv("reversi", batch, threads=threads, seed=1)
for _ in range(100):                                 # warm up
    env.step(env.random_actions())
wall, cpu = time.perf_counter(), time.process_time()
for _ in range(rounds * steps):
    env.step(env.random_actions())
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
print(json.dumps([batch * rounds * steps / wall, batch * rounds * steps / cpu]))
"""


def _vector_env_rate(threads: int) -> tuple[float, float]:
    """Plies per second and per CPU second of one fresh process."""
    done = subprocess.run([sys.executable, "-c", CHILD, json.dumps([threads, BATCH, STEPS, 10])],
                          capture_output=True, text=True, check=True)
    wall, cpu = json.loads(done.stdout)
    return float(wall), float(cpu)


def _spread(values: list[float]) -> str:
    return (f"min {min(values):,.2f}, median {statistics.median(values):,.2f}, "
            f"max {max(values):,.2f}")


@needs_cython
@pytest.mark.parametrize("busy", BUSY)
def test_vector_env_threads(busy: int) -> None:
    """threads=1 and threads=2 in PROCESSES fresh processes each, alternating,
    beside ``busy`` processes that only spin: min / median / max of the rates and
    of the ratio of each pair."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                for _ in range(busy)]
    try:
        pairs = [(_vector_env_rate(1), _vector_env_rate(2)) for _ in range(PROCESSES)]
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
    one = [a[0] / 1e6 for a, _ in pairs]
    two = [b[0] / 1e6 for _, b in pairs]
    ratio = [b[0] / a[0] for a, b in pairs]
    beside = "quiet" if busy == 0 else f"beside {busy} busy process{'es' * (busy > 1)}"
    VECTOR[f"{beside}: threads=1, M plies/s"] = _spread(one)
    VECTOR[f"{beside}: threads=2, M plies/s"] = _spread(two)
    VECTOR[f"{beside}: threads=2 / threads=1"] = _spread(ratio)
    if busy == 0:
        RESULTS["VectorEnv threads=1"] = statistics.median(one) * 1e6
        RESULTS["VectorEnv threads=2"] = statistics.median(two) * 1e6
        RESULTS["VectorEnv threads=2 per CPU second"] = statistics.median(
            b[1] for _, b in pairs)
    assert min(one) > 0 and min(two) > 0


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
        start, cpu = time.perf_counter(), time.process_time()
        run()
        rate = batch * STEPS / (time.perf_counter() - start)
        if rate > best:
            best, best_batch = rate, batch
            per_cpu = batch * STEPS / (time.process_time() - cpu)
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)
    RESULTS["pgx othello best batch"] = best
    RESULTS["pgx othello best batch size"] = float(best_batch)
    RESULTS["pgx othello best batch per CPU second"] = per_cpu
