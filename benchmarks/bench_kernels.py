"""Kernels chosen at run time, against a native build and against Edax:

    python -m pytest benchmarks/bench_kernels.py

* Reversi 8x8 perft(11) on every kernel level the CPU runs ("portable" and, on
  x86-64-v3 and -v4, "avx2" and "avx512"), in this process (pytest-benchmark,
  wall time).
* The default build (the baseline of the platform, as wheels are built) against
  the same code compiled with ``-march=native`` into a temporary directory: every
  game's perft or playouts in child processes, builds alternating, CPU time.
  Needs Cython and a C compiler (GCC or Clang; skipped elsewhere).
* Reversi 8x8 perft(12) against Edax, if ``BRETT_EDAX`` names an Edax binary
  (built by you, e.g. ``make build ARCH=x86-64-v3`` in its src/, with its data/
  directory beside it): leaf nodes per second of CPU time, each program timing
  its own perft(12) (Edax's ``perft`` command counts the last ply in bulk, as
  brett does, and prints the user CPU time of each depth).

A summary with the ratios, the CPU and the kernels is printed at the end.
Figures, not timed asserts.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

import pytest

import brett
from _edax import edax_count
from _figures import Figures, needs_cython, per_second
from brett.game import _LOADED
from brett.reversi import Reversi

ROOT = Path(__file__).resolve().parents[1]


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


_INFO = brett.cpu_features()
RESULTS = Figures(
    f"Kernels ({_cpu_name()}, {_INFO.arch}, extensions: {', '.join(_INFO.features) or 'none'};"
    f" kernels: {', '.join(f'{g} {k}' for g, k in _INFO.kernels.items())})", [
        ("perft 8x8 d12 brett / Edax (leaves per CPU s)", "perft 8x8 d12 brett",
         "perft 8x8 d12 edax"),
    ])

# (label, game, options, call, argument): what the build comparison runs.
WORKLOADS = [
    ("reversi 8x8 perft(11)", "reversi", {}, "perft", 11),
    ("reversi 10x10 perft(10)", "reversi", {"size": 10}, "perft", 10),
    ("reversi 8x8 playouts", "reversi", {}, "random_playouts", 100_000),
    ("focus perft(5)", "focus", {}, "perft", 5),
    ("phutball 15x19 perft(4)", "phutball", {}, "perft", 4),
    ("schuft 2p playouts", "schuft", {"players": 2}, "random_playouts", 500),
]

# Run in a child: each workload's units (leaves or games) per second of CPU time,
# the best of its runs (at least three, and for at least 1.5 s of CPU time: the
# first run in a process can be much slower, and a short one is at the mercy of
# the machine's other work).
CHILD = """
import json, sys, time
from brett import GAMES, cpu_features
out = {"kernels": cpu_features().kernels}
for label, name, options, call, arg in json.loads(sys.argv[1]):
    game = GAMES[name](**options)
    runs, spent = 0, 0.0
    while runs < 3 or spent < 1.5:
        started = time.process_time()
        if call == "perft":
            units = game.perft(arg)
        else:
            game.random_playouts(arg, seed=1)
            units = arg
        seconds = time.process_time() - started
        out[label] = max(out.get(label, 0), units / seconds)
        runs, spent = runs + 1, spent + seconds
print(json.dumps(out))
"""


# ------------------------------------------------------------ every kernel level
LEVELS = (_LOADED["reversi"].cython.available_kernels()
          if _LOADED.get("reversi") and _LOADED["reversi"].cython else ["portable"])


@needs_cython
@pytest.mark.parametrize("kernel", LEVELS)
def test_reversi_kernels(benchmark: Any, kernel: str) -> None:
    core = _LOADED["reversi"].cython
    name = core.use_kernels(kernel)
    try:
        game = Reversi.twin("cython")()
        nodes = benchmark.pedantic(game.perft, args=(11,), rounds=3, iterations=1)
    finally:
        core.use_kernels()
    benchmark.extra_info.update(kernels=name, nodes=nodes)
    RESULTS[f"perft 8x8 d11 {kernel}"] = per_second(benchmark, nodes)
    if kernel != "portable":
        RESULTS.ratios.append((f"perft 8x8 d11 {kernel} / portable kernels",
                               f"perft 8x8 d11 {kernel}", "perft 8x8 d11 portable"))


# ---------------------------------------------------------- default vs -march=native
def _build_native(where: Path) -> Path:
    """The same sources compiled with -march=native, beside a copy of the package."""
    env = dict(os.environ, CFLAGS="-march=native")
    subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--force",
                    "--build-lib", str(where / "lib"), "--build-temp", str(where / "tmp")],
                   cwd=ROOT, env=env, check=True, capture_output=True)
    package = where / "lib" / "brett"
    source = Path(brett.__file__).parent
    for item in source.rglob("*"):
        target = package / item.relative_to(source)
        if item.is_file() and not target.exists() and not item.name.endswith(
                (".so", ".pyd", ".c")) and "__pycache__" not in item.parts:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(item, target)
    return where / "lib"


def _measure(path: Path) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(path), PYTHONDONTWRITEBYTECODE="1")
    env.pop("BRETT_KERNELS", None)
    result = subprocess.run([sys.executable, "-c", CHILD, json.dumps(WORKLOADS)], env=env,
                            capture_output=True, text=True, check=True, cwd=tempfile.gettempdir())
    return dict(json.loads(result.stdout))


@needs_cython
def test_default_build_against_native() -> None:
    compiler = sysconfig.get_config_var("CC") or ""
    if sys.platform == "win32" or not shutil.which(compiler.split()[0] if compiler else "cc"):
        pytest.skip("needs GCC or Clang (-march=native)")
    pytest.importorskip("Cython")
    default_path = Path(brett.__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as tmp:
        native_path = _build_native(Path(tmp))
        best: dict[str, dict[str, float]] = {"default": {}, "native": {}}
        for _ in range(5):                       # alternating, best of five each
            for build, path in (("default", default_path), ("native", native_path)):
                rates = _measure(path)
                assert rates.pop("kernels")["reversi"] == _INFO.kernels["reversi"]
                for label, rate in rates.items():
                    best[build][label] = max(best[build].get(label, 0.0), rate)
    for label, *_ in WORKLOADS:
        RESULTS[f"{label} default build"] = best["default"][label]
        RESULTS[f"{label} -march=native"] = best["native"][label]
        RESULTS.ratios.append((f"{label} default / native build",
                               f"{label} default build", f"{label} -march=native"))


# --------------------------------------------------------------------------- Edax
@needs_cython
def test_reversi_perft12_against_edax() -> None:
    binary = os.environ.get("BRETT_EDAX")
    if not binary:
        pytest.skip("set BRETT_EDAX to an Edax binary to compare with it")
    import time

    game = Reversi()
    brett_best = edax_best = 0.0
    for _ in range(2):                           # alternating, best of two each
        started = time.process_time()
        nodes = game.perft(12)
        brett_best = max(brett_best, nodes / (time.process_time() - started))
        edax_nodes, seconds = edax_count(Path(binary), "perft", 12)
        assert edax_nodes == nodes
        edax_best = max(edax_best, edax_nodes / seconds)
    RESULTS["perft 8x8 d12 brett"] = brett_best
    RESULTS["perft 8x8 d12 edax"] = edax_best
