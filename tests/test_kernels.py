"""The kernels chosen at run time: brett.cpu_features(), BRETT_KERNELS and every
path of the Reversi kernels this CPU runs (the portable ones everywhere, AVX2 and
AVX-512 where the CPU has them), on 8x8 bitboards and on the mailbox boards,
against the reference tables and the plain-Python twin."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import brett
from brett.game import _LOADED, KERNEL_LEVELS
from brett.reversi import Reversi
from conftest import NO_EXTENSIONS, needs_cython
from test_perft import VECTORS
from test_reliability import CtrlC, ctrl_c_raises  # noqa: F401  (a fixture)

AVX2_NEEDS = {"popcnt", "bmi1", "bmi2", "lzcnt", "avx2"}
AVX512_NEEDS = AVX2_NEEDS | {"avx512"}
KNOWN_FEATURES = AVX512_NEEDS
X86_64 = {"x86_64", "amd64"}


def _compiled_reversi() -> Any:
    brett.GAMES["reversi"]
    return _LOADED["reversi"].cython


# Every kernel level this build and CPU run (the compiled-core tests need one).
RUNNABLE = ["portable"] if NO_EXTENSIONS else _compiled_reversi().available_kernels()


@pytest.fixture(params=RUNNABLE)
def kernel(request: pytest.FixtureRequest) -> Iterator[str]:
    """Each compiled-Reversi test once on every kernel level this CPU runs; the
    fastest are restored afterwards."""
    core = _compiled_reversi()
    name = core.use_kernels(request.param)
    try:
        assert name == request.param
        yield name
    finally:
        core.use_kernels()


def _run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "BRETT_KERNELS"}
    environ.update(env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=environ, timeout=120, check=False)


# ------------------------------------------------------------------ cpu_features
def test_cpu_features_reports_every_game() -> None:
    info = brett.cpu_features()
    assert isinstance(info, brett.CpuFeatures)
    assert set(info.kernels) == set(brett.GAMES)
    assert set(info.features) <= KNOWN_FEATURES
    assert info.arch and not info.forced_portable
    if NO_EXTENSIONS:
        assert set(info.kernels.values()) == {"python"} and info.features == ()
        return
    assert info.kernels["focus"] == info.kernels["phutball"] == info.kernels["schuft"] \
        == "portable"
    # Each level runs exactly where the CPU has every extension it uses.
    features = set(info.features)
    expected = ["portable"] + ["avx2"] * (features >= AVX2_NEEDS) \
        + ["avx512"] * (features >= AVX512_NEEDS)
    assert info.kernels["reversi"] == expected[-1]
    assert _compiled_reversi().available_kernels() == expected
    if info.arch.lower() not in X86_64:
        assert info.features == () and expected == ["portable"]


@needs_cython
def test_the_environment_forces_the_portable_kernels() -> None:
    code = ("import json, brett; info = brett.cpu_features(); "
            "print(json.dumps([info.kernels, info.forced_portable, "
            "brett.Reversi().perft(7)]))")
    kernels, forced, nodes = json.loads(_run(code, BRETT_KERNELS="portable").stdout)
    assert kernels["reversi"] == "portable" and forced is True
    assert nodes == VECTORS["reversi-8x8-start"]["perft"]["7"]
    kernels, forced, _ = json.loads(_run(code, BRETT_KERNELS="auto").stdout)
    assert kernels["reversi"] == brett.cpu_features().kernels["reversi"] and forced is False


@needs_cython
@pytest.mark.parametrize("cap", ["portable", "avx2", "avx512", "auto"])
def test_the_environment_caps_the_kernels(cap: str) -> None:
    """BRETT_KERNELS=<level> runs the fastest level this CPU has up to that one."""
    code = "import brett; print(brett.cpu_features().kernels['reversi'])"
    allowed = RUNNABLE if cap == "auto" else [
        k for k in RUNNABLE if KERNEL_LEVELS.index(k) <= KERNEL_LEVELS.index(cap)]
    assert _run(code, BRETT_KERNELS=cap.upper()).stdout.strip() == allowed[-1]


@needs_cython
def test_the_api_and_the_core_name_the_same_levels() -> None:
    assert tuple(_compiled_reversi().LEVELS) == KERNEL_LEVELS


@needs_cython
def test_an_unknown_level_is_refused_by_the_core() -> None:
    with pytest.raises(ValueError, match="unknown kernels"):
        _compiled_reversi().use_kernels("sse9")
    assert _compiled_reversi().kernels() == RUNNABLE[-1]


@pytest.mark.parametrize("value", ["fast", "avx", "1"])
def test_a_bad_kernels_setting_is_a_clear_error(value: str) -> None:
    result = _run("import brett\ntry:\n    brett.Reversi()\nexcept brett.BrettError as e:\n"
                  "    print('BrettError', e)", BRETT_KERNELS=value)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("BrettError") and "BRETT_KERNELS" in result.stdout


# ------------------------------------------------------------------- both paths
REVERSI = [vid for vid, vector in VECTORS.items() if vector["game"] == "reversi"]


def _vector_cases(max_nodes: int) -> list[Any]:
    cases = []
    for vid in REVERSI:
        for kind in ("perft", "perft_count_finished"):
            for depth, nodes in VECTORS[vid].get(kind, {}).items():
                if nodes <= max_nodes:
                    cases.append(pytest.param(vid, kind, int(depth), nodes,
                                              id=f"{vid}-{kind}-{depth}"))
    return cases


@needs_cython
@pytest.mark.parametrize(("vid", "kind", "depth", "nodes"), _vector_cases(30_000_000))
def test_every_kernel_matches_the_reference(kernel: str, vid: str, kind: str, depth: int,
                                          nodes: int) -> None:
    vector = VECTORS[vid]
    game = Reversi.twin("cython")(**vector["options"])
    for move in vector["moves"]:
        game.push(move)
    assert game.perft(depth, count_finished=kind == "perft_count_finished") == nodes


def test_the_vectors_cover_both_board_kinds_and_holes() -> None:
    sizes = {VECTORS[vid]["options"].get("size", 8) for vid in REVERSI}
    assert {6, 8, 10} <= sizes
    assert any("holes" in VECTORS[vid]["options"] for vid in REVERSI)
    assert any(VECTORS[vid]["options"].get("board") == "octagon" for vid in REVERSI)


BOARDS = [{}, {"size": 4}, {"size": 6}, {"size": 6, "holes": ["a2", "f5"]},
          {"holes": "random", "seed": 7}, {"handicap": 2},
          # the mailbox boards
          {"size": 10}, {"size": 12, "holes": "random", "seed": 2}, {"size": 16},
          {"board": "octagon"}]


def _random_position(options: dict[str, Any], seed: int, plies: int) -> tuple[Any, Any]:
    """The same random position on the compiled core and on the plain twin."""
    compiled = Reversi.twin("cython")(**options)
    python = Reversi.twin("python")(**options)
    rng = random.Random(seed)
    for _ in range(plies):
        moves = list(compiled.legal_moves)
        if not moves:
            break
        move = rng.choice(moves)
        compiled.push(move)
        python.push(move)
    return compiled, python


@needs_cython
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(board=st.integers(0, len(BOARDS) - 1), seed=st.integers(0, 2**32),
       plies=st.integers(0, 120), depth=st.integers(1, 3), finished=st.booleans(),
       level=st.sampled_from(RUNNABLE))
def test_every_kernel_agrees_with_the_twin_on_random_positions(
        board: int, seed: int, plies: int, depth: int, finished: bool, level: str) -> None:
    core = _compiled_reversi()
    core.use_kernels(level)
    try:
        compiled, python = _random_position(BOARDS[board], seed, plies)
        assert compiled.perft(depth, count_finished=finished) == \
            python.perft(depth, count_finished=finished)
        cap = plies % 7 * 10 or None
        assert compiled.random_playouts(3, seed=seed, max_plies=cap) == \
            python.random_playouts(3, seed=seed, max_plies=cap)
    finally:
        core.use_kernels()


@needs_cython
def test_every_kernel_plays_the_same_random_games(kernel: str) -> None:
    """Thousands of whole games: the same results and plies as the portable
    kernels (and those as the fastest)."""
    core = _compiled_reversi()
    game = Reversi.twin("cython")()
    stats = game.random_playouts(3000, seed=11)
    other = core.use_kernels(RUNNABLE[-1] if kernel == "portable" else "portable")
    try:
        assert game.random_playouts(3000, seed=11) == stats
    finally:
        core.use_kernels(kernel)
    assert stats.games == 3000 and stats.plies > 3000 * 55
    assert {kernel, other} <= set(RUNNABLE)


@needs_cython
@pytest.mark.timing
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to oneself is POSIX")
@pytest.mark.parametrize("call", ["perft", "random_playouts"])
@pytest.mark.usefixtures("ctrl_c_raises")
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_ctrl_c_stops_every_kernel(kernel: str, call: str) -> None:
    """Every kernel polls for signals: a Ctrl-C stops them at once, game unchanged."""
    game = Reversi.twin("cython")()
    game.push("d3")
    before = (game.position(), hash(game), len(game.move_stack))
    presser = CtrlC(0.2)
    started = time.monotonic()
    presser.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            game.perft(30) if call == "perft" else game.random_playouts(10**12)
    finally:
        presser.stop()
    assert time.monotonic() - started - 0.2 < 10  # milliseconds on an idle machine
    assert (game.position(), hash(game), len(game.move_stack)) == before
