"""Build brett's Cython cores.

Metadata lives in pyproject.toml; this file only lists the extensions.
Switches (environment variables):

* ``BRETT_NO_EXTENSIONS=1`` – build no extension (the plain-Python twins run).
* ``BRETT_DEBUG_BUILD=1``   – Cython's bounds, wraparound and initialisation
  checks forced on everywhere, C ``assert`` enabled, ``-O0 -g``.  The cores keep
  their hot state in C arrays, which Cython's checks do not cover: use
  ``BRETT_SANITIZE=1`` for those.
* ``BRETT_SANITIZE=1``      – GCC / Clang only: AddressSanitizer and
  UndefinedBehaviorSanitizer (``-fsanitize=address,undefined``), ``-O1 -g``.
  The interpreter is not instrumented, so the ASan runtime must be preloaded
  when the tests run (see docs/development.md).
* ``BRETT_BUILD_ONLY=focus,reversi`` – compile only these cores (quick local
  rebuilds while working on one game); the shared ``_common`` module always.

Release builds carry no debug information (``-g0``), which keeps the wheels
small; the debug and sanitizer builds keep it.
"""

import os
import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

CORE_DIR = Path("src/brett/_core")
DEBUG = bool(os.environ.get("BRETT_DEBUG_BUILD"))
SANITIZE = bool(os.environ.get("BRETT_SANITIZE"))


def _wanted(name: str) -> bool:
    only = os.environ.get("BRETT_BUILD_ONLY")
    return not only or name in {n.strip() for n in only.split(",")}


def extensions():
    if os.environ.get("BRETT_NO_EXTENSIONS") or sys.implementation.name != "cpython":
        return []
    from Cython.Build import cythonize
    from setuptools import Extension

    sources = [CORE_DIR / "_common.pyx"]
    sources += [pyx for pyx in sorted(CORE_DIR.glob("_*_c.pyx")) if _wanted(pyx.stem[1:-2])]
    exts = [Extension(f"brett._core.{pyx.stem}", [str(pyx)], include_dirs=["ext"])
            for pyx in sources]
    directives = {"language_level": 3, "embedsignature": True, "autotestdict": False}
    if DEBUG:
        # Every unchecked index in the cores must survive these checks.
        directives.update(boundscheck=True, wraparound=True, cdivision=False,
                          initializedcheck=True)
    # Checked and sanitized builds: #line directives, so reports name .pyx lines.
    return cythonize(exts, compiler_directives=directives, quiet=True,
                     emit_linenums=DEBUG or SANITIZE)


def _x87_math(compiler: list[str]) -> bool:
    """Whether this GCC or Clang command compiles for 32-bit x86 with x87 floating
    point (its predefined macros say so; this works for cross compilers too)."""
    try:
        done = subprocess.run([*compiler, "-dM", "-E", "-x", "c", os.devnull],
                              capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return False
    return "__i386__" in done.stdout and "__SSE2_MATH__" not in done.stdout


class BuildExt(build_ext):
    """Per-compiler flags: MSVC spells them differently from GCC and Clang."""

    def build_extensions(self):
        msvc = self.compiler.compiler_type == "msvc"
        if SANITIZE and msvc:
            raise SystemExit("BRETT_SANITIZE=1 needs GCC or Clang")
        # 32-bit x86: SSE2 arithmetic instead of the x87's 80-bit registers, whose
        # double rounding gave the tree search values one unit in the last place
        # away from its Python twin's (the twins agree exactly).  Every x86 CPU
        # since 2003 has SSE2; MSVC assumes it by default.
        x87 = not msvc and _x87_math(self.compiler.compiler_so)
        for ext in self.extensions:
            if msvc:
                ext.extra_compile_args += ["/Od", "/Zi"] if DEBUG else ["/O2"]
            else:
                if SANITIZE:
                    flags = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer",
                             "-fno-sanitize-recover=undefined"]
                    ext.extra_compile_args += [*flags, "-g", "-O0" if DEBUG else "-O1"]
                    ext.extra_link_args += flags
                elif DEBUG:
                    ext.extra_compile_args += ["-O0", "-g"]
                else:
                    ext.extra_compile_args += ["-O3", "-g0"]
                # No fused multiply-add contraction (GCC's default where FMA exists,
                # e.g. aarch64): the tree search must round as its Python twin does.
                ext.extra_compile_args += ["-Wno-unreachable-code", "-ffp-contract=off"]
                if x87:
                    ext.extra_compile_args += ["-msse2", "-mfpmath=sse"]
            if DEBUG:
                ext.undef_macros = ["NDEBUG"]
        super().build_extensions()


setup(ext_modules=extensions(), cmdclass={"build_ext": BuildExt})
