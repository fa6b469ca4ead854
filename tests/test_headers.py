"""The C headers of ext/ outside Python: ext/tests/harness.c, built by every
compiler the project promises to build with, warnings as errors, and run.

* GCC and Clang (``-Wall -Wextra -Werror``), run here.
* mingw-w64 for x86-64 Windows, run under Wine: the Windows code paths (the
  performance-counter clock, Win32 threads and semaphores under the hand-off),
  once with the GCC builtins and once with ``BRETT_MSVC=1``, the branches MSVC
  compiles (its ``<intrin.h>`` intrinsics: Interlocked exchanges, ``__cpuidex``,
  ``_BitScanForward64``, ``_mm_popcnt_u64``...), which mingw-w64's headers have too.

A missing compiler or Wine skips, naming its Debian package; BRETT_REQUIRE_PEERS=1
(.ci/run) fails instead.  .ci/platforms builds and runs the same harness for
aarch64, s390x and i386 under qemu.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from peers import peer

EXT = Path(__file__).resolve().parents[1] / "ext"
HARNESS = EXT / "tests" / "harness.c"
WARNINGS = ["-Wall", "-Wextra", "-Werror"]
RUN_SECONDS = 600   # the harness takes seconds; a busy machine or Wine's first start more


def build(compiler: str, output: Path, *flags: str) -> None:
    command = [peer(compiler), "-O2", *WARNINGS, *flags, f"-I{EXT}", f"-I{EXT / 'tests' / 'stub'}",
               "-o", str(output), str(HARNESS)]
    if not compiler.endswith("mingw32-gcc"):
        command.append("-pthread")
    done = subprocess.run(command, capture_output=True, text=True, timeout=RUN_SECONDS)
    assert done.returncode == 0, f"{' '.join(command)}\n{done.stderr}"


def check_output(done: subprocess.CompletedProcess[str]) -> str:
    out = done.stdout
    assert done.returncode == 0, f"exit {done.returncode}\n{out}\n{done.stderr[-3000:]}"
    summary = re.search(r"harness: (\d+) checks, (\d+) failed", out)
    assert summary, out
    # each kernel level the CPU runs adds its perfts, playouts and solver checks
    levels = len(re.findall(r"^kernels \w+:", out, re.MULTILINE))
    assert levels >= 1 and int(summary[1]) >= 17 + 13 * levels and summary[2] == "0", out
    assert "evaluation pieces: 6000 random boards" in out, out
    assert re.search(r"evaluation frames: \d+ children of 2000 random boards", out), out
    assert "last flips: 20000 full boards" in out, out
    assert "stability: 400 positions, 1600 games, 0 flip a stable disc" in out, out
    return out


def test_the_harness_includes_every_header() -> None:
    """A header of ext/ that the harness leaves out is compiled by nothing here."""
    included = set(re.findall(r'#include "(brett_\w+\.h)"', HARNESS.read_text()))
    headers = {path.name for path in EXT.glob("brett_*.h")}
    # the kernel bodies are included by brett_reversi.h, once per level
    assert headers - {"brett_reversi_kernel.h", "brett_reversi_x86.h"} <= included


@pytest.mark.parametrize("compiler", ["gcc", "clang"])
def test_native_compilers(compiler: str, tmp_path: Path) -> None:
    binary = tmp_path / "harness"
    build(compiler, binary)
    out = check_output(subprocess.run([str(binary)], capture_output=True, text=True,
                                      timeout=RUN_SECONDS))
    assert "perft(9) 3005288" in out and "FFO #40 +38" in out


@pytest.fixture(scope="module")
def wine_prefix(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of a fresh 64-bit Wine prefix of the tests' own."""
    peer("wine")
    prefix = tmp_path_factory.mktemp("wine")
    return {**os.environ, "WINEPREFIX": str(prefix), "WINEARCH": "win64",
            "WINEDEBUG": "-all", "DISPLAY": ""}


@pytest.mark.parametrize("branches", ["gcc", "msvc"])
def test_windows_under_wine(branches: str, wine_prefix: dict[str, str],
                            tmp_path: Path) -> None:
    exe = tmp_path / "harness.exe"
    # MSVC compiles _xgetbv without flags; GCC's header wants the XSAVE target.
    flags = ["-DBRETT_MSVC=1", "-mxsave"] if branches == "msvc" else []
    build("x86_64-w64-mingw32-gcc", exe, *flags)
    out = check_output(subprocess.run([peer("wine"), str(exe)], capture_output=True,
                                      text=True, timeout=RUN_SECONDS, env=wine_prefix))
    assert ("MSVC intrinsic branches" in out) == (branches == "msvc"), out
    assert "compiled by gcc" in out and "perft(9) 3005288" in out
