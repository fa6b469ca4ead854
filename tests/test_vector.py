"""brett.vector.VectorEnv: the compiled loop against its plain twin (the same
arrays, step for step, on every setup), threads, seeds, resets, truncation and
bad input."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap
import threading
from typing import Any

import numpy as np
import pytest

import brett
from brett.vector import VectorEnv
from conftest import SETUPS, needs_cython

ARRAYS = ("observations", "action_mask", "rewards", "terminated", "truncated", "player")


def snapshot(env: VectorEnv) -> dict[str, Any]:
    return {name: getattr(env, name).copy() for name in ARRAYS}


def run(env: VectorEnv, steps: int) -> list[dict[str, Any]]:
    """Random actions from the env's own generators; every step's arrays."""
    seen = [snapshot(env)]
    for _ in range(steps):
        env.step(env.random_actions())
        seen.append(snapshot(env))
    return seen


def assert_same(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> None:
    assert len(a) == len(b)
    for step, (x, y) in enumerate(zip(a, b, strict=True)):
        for name in ARRAYS:
            assert np.array_equal(x[name], y[name]), (step, name)


def make(setup: str, backend: str, num_envs: int, **kw: Any) -> VectorEnv:
    """The game's own ``seed`` option and VectorEnv's meet only through a game."""
    name, options = SETUPS[setup]
    cls = brett.GAMES[name].twin(backend)
    if "seed" in options:
        return VectorEnv(cls(**options), num_envs, **kw)
    return VectorEnv(cls, num_envs, **kw, **options)


STEPS = {"focus": 120, "phutball": 150, "reversi": 150, "schuft": 150}


@needs_cython
@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_compiled_loop_matches_the_plain_twin(setup: str) -> None:
    steps = STEPS[SETUPS[setup][0]]
    compiled = make(setup, "cython", 3, seed=11, max_steps=60)
    plain = make(setup, "python", 3, seed=11, max_steps=60)
    assert (compiled.backend, plain.backend) == ("cython", "python")
    a, b = run(compiled, steps), run(plain, steps)
    assert_same(a, b)
    finished = sum(int(s["terminated"].sum() + s["truncated"].sum()) for s in a)
    assert finished > 0, "no game ended: the test saw no reset"


@needs_cython
@pytest.mark.parametrize("setup", ["reversi", "schuft", "focus-3p", "phutball-9x9"])
def test_any_number_of_threads_gives_the_same_run(setup: str) -> None:
    runs = []
    for threads in (1, 2, 3):
        with make(setup, "cython", 7, seed=5, threads=threads, max_steps=40) as env:
            assert env.threads == threads
            runs.append(run(env, 80))
    assert_same(runs[0], runs[1])
    assert_same(runs[0], runs[2])


@needs_cython
@pytest.mark.parametrize("setup", ["reversi", "schuft"])
def test_steps_finish_alike_while_the_helpers_are_held_up(setup: str) -> None:
    """Helpers that take no chunk (held, as if never scheduled) for whole steps,
    then again and again at random: each step still finishes, in the calling
    thread alone, with the same run as one thread."""
    alone = make(setup, "cython", 300, seed=6, max_steps=50)
    expected = run(alone, 90)
    with make(setup, "cython", 300, seed=6, threads=3, max_steps=50) as env:
        stepper = env._stepper
        seen = [snapshot(env)]
        for step in range(90):
            stepper.hold(step < 30 or step % 7 in (2, 3))
            env.step(env.random_actions())
            seen.append(snapshot(env))
        stepper.hold(False)
    assert_same(expected, seen)


def helpers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("brett-vector-")]


@needs_cython
def test_helper_threads_go_home_and_the_env_still_steps() -> None:
    before = len(helpers())
    env = make("reversi", "cython", 9, seed=3, threads=3)
    assert len(helpers()) == before + 2
    alone = make("reversi", "cython", 9, seed=3)
    env.close()
    env.close()                                 # idempotent
    assert len(helpers()) == before
    # closed, it steps in the calling thread: the same run as one thread
    assert_same(run(env, 30), run(alone, 30))
    dropped = make("reversi", "cython", 9, seed=3, threads=3)
    dropped.step(dropped.random_actions())
    del dropped                                 # collected: its helpers go too
    gc.collect()
    assert len(helpers()) == before


def _step_in_child(env: VectorEnv, queue: Any) -> None:
    env.step(env.random_actions())
    queue.put(snapshot(env))


@needs_cython
@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX's")
def test_a_forked_child_steps_without_the_parents_helpers() -> None:
    import multiprocessing
    context = multiprocessing.get_context("fork")
    env = make("reversi", "cython", 64, seed=4, threads=2)
    alone = make("reversi", "cython", 64, seed=4)
    queue = context.Queue()
    child = context.Process(target=_step_in_child, args=(env, queue))
    child.start()
    try:
        got = queue.get(timeout=120)        # a child waiting on absent helpers: Empty
        child.join(timeout=120)
    finally:
        if child.is_alive():
            child.kill()
    assert child.exitcode == 0
    alone.step(alone.random_actions())
    assert_same([got], [snapshot(alone)])
    env.step(env.random_actions())              # the parent's helpers still serve it
    assert_same([snapshot(env)], [snapshot(alone)])
    env.close()


@pytest.mark.parametrize("threads", [1, 2])
def test_two_threads_at_once_are_refused(backend: str, threads: int) -> None:
    """One VectorEnv, two caller threads stepping it: the second is refused
    clearly while the first steps, and the first's run is unharmed."""
    env = make("reversi", backend, 64 if backend == "cython" else 4, seed=8, threads=threads)
    refused: list[str] = []
    stop = threading.Event()

    def intruder() -> None:
        for _ in range(20_000):
            if stop.is_set():
                return
            try:
                env.random_actions()
            except brett.BrettError as e:
                refused.append(str(e))

    thread = threading.Thread(target=intruder)
    thread.start()
    try:
        for _ in range(40):
            try:
                env.step(env.random_actions())
            except brett.BrettError as e:        # the intruder held it: try again
                assert "two threads" in str(e)
    finally:
        stop.set()
        thread.join(timeout=60)
    assert all("two threads" in r for r in refused)
    env.close()
    for _ in range(5):                          # it still steps, every action legal
        env.step(env.random_actions())


def test_a_reseeding_reset_waits_its_turn_too(backend: str) -> None:
    """A reset with a seed while another thread steps is refused before it
    changes anything: the seed and the games stay as they were."""
    env = make("schuft", backend, 4, seed=1)
    ahead = run(make("schuft", backend, 4, seed=1), 30)
    assert env._busy.acquire(blocking=False)    # another caller, mid-step
    try:
        with pytest.raises(brett.BrettError, match="two threads"):
            env.reset(seed=2)
    finally:
        env._busy.release()
    assert_same(ahead, run(env, 30))            # still the run of seed 1


def test_seeds(backend: str) -> None:
    a = run(make("schuft", backend, 4, seed=1), 30)
    b = run(make("schuft", backend, 4, seed=1), 30)
    c = run(make("schuft", backend, 4, seed=2), 30)
    assert_same(a, b)
    with pytest.raises(AssertionError):
        assert_same(a, c)
    env = make("schuft", backend, 4, seed=2)
    env.reset(seed=1)
    assert_same(a, run(env, 30))


def test_a_finished_game_shows_its_end_then_resets(backend: str) -> None:
    cls = brett.GAMES["reversi"].twin(backend)
    env = VectorEnv(cls, 2, seed=3, size=4)
    start = snapshot(env)
    for _ in range(100):
        env.step(env.random_actions())
        if env.terminated.any():
            break
    i = int(np.argmax(env.terminated))
    assert env.terminated[i] and env.player[i] == brett.TERMINAL
    assert not env.action_mask[i].any()
    assert sorted(env.rewards[i].tolist()) in ([-1.0, 1.0], [0.0, 0.0])
    acts = env.random_actions().copy()
    acts[i] = 12345  # the finished game's action is ignored
    env.step(acts)
    assert not env.terminated[i]
    assert np.array_equal(env.observations[i], start["observations"][i])
    assert np.array_equal(env.action_mask[i], start["action_mask"][i])
    assert env.rewards[i].tolist() == [0.0, 0.0]


def test_rewards_are_the_games_returns(backend: str) -> None:
    """Replaying one env's actions on a Game gives the rewards it reported."""
    cls = brett.GAMES["focus"].twin(backend)
    env = VectorEnv(cls, 1, seed=9, max_plies=40)
    game = cls(max_plies=40)
    for _ in range(200):
        acts = env.random_actions().copy()
        env.step(acts)
        game.apply_action(int(acts[0]))
        assert np.array_equal(env.observations[0], game.observation_tensor())
        if env.terminated[0]:
            assert env.rewards[0].tolist() == game.returns()
            return
    pytest.fail("no Focus game with a 40-ply cap ended in 200 steps")


def test_truncation(backend: str) -> None:
    env = make("reversi", backend, 2, seed=1, max_steps=5)
    for _ in range(4):
        env.step(env.random_actions())
        assert not env.truncated.any()
    env.step(env.random_actions())
    assert env.truncated.all() and not env.terminated.any()
    assert not env.rewards.any()
    env.step(env.random_actions())
    assert not env.truncated.any()


def test_chance_is_resolved_inside(backend: str) -> None:
    env = make("schuft-4p-roll-off", backend, 5, seed=4)
    for _ in range(60):
        assert ((env.player >= 0) | env.terminated).all()
        env.step(env.random_actions())


def test_start_from_a_game(backend: str) -> None:
    game = brett.GAMES["reversi"].twin(backend)()
    game.push("d3")
    env = VectorEnv(game, 2, seed=1)
    assert np.array_equal(env.observations[0], game.observation_tensor())
    assert env.player.tolist() == [1, 1]


def test_bad_actions_change_nothing(backend: str) -> None:
    env = make("reversi", backend, 4, seed=2)
    env.step(env.random_actions())
    before = snapshot(env)
    legal = env.random_actions().copy()
    illegal = legal.copy()
    illegal[2] = int(np.flatnonzero(~env.action_mask[2])[0])
    with pytest.raises(brett.IllegalMoveError, match="environment 2"):
        env.step(illegal)
    for bad in (legal[:3], legal.astype(np.float64), legal.reshape(2, 2), "abc", [[1]] * 4,
                np.array([0, 0, 0, 2**64 - 1], dtype=np.uint64), legal.astype(bool)):
        with pytest.raises(brett.BrettError):
            env.step(bad)
    out_of_range = legal.copy()
    out_of_range[1] = env.num_actions
    with pytest.raises(brett.IllegalMoveError, match="environment 1"):
        env.step(out_of_range)
    assert_same([before], [snapshot(env)])
    # the arrays handed out are the env's, not what it checks actions against
    env.action_mask[:] = True
    with pytest.raises(brett.IllegalMoveError, match="environment 2"):
        env.step(illegal)
    env.step(legal)


@pytest.mark.parametrize("args, kwargs", [
    (("reversi", 0), {}), (("reversi", 2**21), {}), (("reversi", 2), {"threads": 0}),
    (("chess", 2), {}), ((3, 2), {}), (("reversi", 2), {"size": 5}),
    (("reversi", 2), {"max_steps": 0}), (("reversi", 2), {"seed": "x"}),
    (("reversi", 2), {"bogus": 1}), (("reversi", 1.5), {}),
    (("phutball", 1 << 20), {"columns": 99, "rows": 99}),
])
def test_bad_arguments(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    with pytest.raises(brett.BrettError):
        VectorEnv(*args, **kwargs)


def test_a_game_instance_takes_no_options() -> None:
    with pytest.raises(brett.BrettError):
        VectorEnv(brett.Reversi(), 2, size=6)


def test_spaces() -> None:
    gymnasium = pytest.importorskip("gymnasium")
    env = VectorEnv("reversi", 3, seed=1)
    assert isinstance(env.single_action_space, gymnasium.spaces.Discrete)
    assert env.single_action_space.n == 65
    assert env.single_observation_space.shape == (3, 8, 8)
    assert env.single_observation_space.contains(env.observations[0])


MEMORY_CASES = [("reversi", {}), ("reversi", {"size": 16}), ("focus", {"players": 4}),
                ("phutball", {}), ("phutball", {"columns": 25, "rows": 25}),
                ("schuft", {"players": 4})]


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads Linux's /proc")
@pytest.mark.parametrize("backend", ["python", pytest.param("cython", marks=needs_cython)])
@pytest.mark.parametrize(("game", "options"), MEMORY_CASES)
def test_the_memory_guard_counts_what_the_games_really_take(
        game: str, options: dict[str, Any], backend: str) -> None:
    """What 2,000 more environments take (resident memory, in a fresh process, after
    a first VectorEnv made the one-off allocations) is at most what the guard counts
    for them, and 2**20 of them are refused (Schuft's were counted at 740 bytes of
    arrays and took 106 KB each)."""
    script = textwrap.dedent(f"""
        import brett
        from brett.vector import VectorEnv
        def resident():
            with open("/proc/self/status") as status:
                line = next(line for line in status if line.startswith("VmRSS"))
            return int(line.split()[1]) * 1024
        start = brett.GAMES[{game!r}].twin({backend!r})(**{options!r})
        first = VectorEnv(start, 200, seed=1)
        first.step(first.random_actions())
        before = resident()
        env = VectorEnv(start, 2000, seed=2)
        env.step(env.random_actions())
        grown = resident() - before
        arrays = sum(a.nbytes for a in (env.observations, env.action_mask, env.rewards,
                                        env.terminated, env.truncated, env.player))
        try:
            VectorEnv(start, 2**20)
            refused = 0
        except brett.BrettError:
            refused = 1
        print(grown, arrays + 2000 * start._state_bytes, refused)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    grown, counted, refused = map(int, done.stdout.split())
    assert refused
    assert grown <= counted, f"2,000 environments took {grown:,} bytes, counted {counted:,}"
