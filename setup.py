"""Build brett's Cython cores.

Metadata lives in pyproject.toml; this file only lists the extensions.
Switches (environment variables):

* ``BRETT_NO_EXTENSIONS=1`` – build no extension (the plain-Python twins run).
* ``BRETT_DEBUG_BUILD=1``   – Cython's bounds, wraparound and initialisation
  checks forced on everywhere, C ``assert`` enabled, ``-O0 -g``.  The cores keep
  their hot state in C arrays and never switch checks off file-wide.
* ``BRETT_BUILD_ONLY=focus,reversi`` – compile only these cores (quick local
  rebuilds while working on one game).
"""

import os
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

CORE_DIR = Path("src/brett/_core")
DEBUG = bool(os.environ.get("BRETT_DEBUG_BUILD"))


def _wanted(name: str) -> bool:
    only = os.environ.get("BRETT_BUILD_ONLY")
    return not only or name in {n.strip() for n in only.split(",")}


def extensions():
    if os.environ.get("BRETT_NO_EXTENSIONS") or sys.implementation.name != "cpython":
        return []
    from Cython.Build import cythonize
    from setuptools import Extension

    exts = []
    for pyx in sorted(CORE_DIR.glob("_*_c.pyx")):
        game = pyx.stem[1:-2]
        if _wanted(game):
            exts.append(Extension(f"brett._core.{pyx.stem}", [str(pyx)], include_dirs=["ext"]))
    directives = {"language_level": 3, "embedsignature": True}
    if DEBUG:
        # Every unchecked index in the cores must survive these checks.
        directives.update(boundscheck=True, wraparound=True, cdivision=False,
                          initializedcheck=True)
    return cythonize(exts, compiler_directives=directives, quiet=True)


class BuildExt(build_ext):
    """Per-compiler flags: MSVC spells them differently from GCC and Clang."""

    def build_extensions(self):
        msvc = self.compiler.compiler_type == "msvc"
        for ext in self.extensions:
            if msvc:
                ext.extra_compile_args += ["/Od", "/Zi"] if DEBUG else ["/O2"]
            else:
                ext.extra_compile_args += ["-O0", "-g"] if DEBUG else ["-O3"]
                ext.extra_compile_args += ["-Wno-unreachable-code"]
            if DEBUG:
                ext.undef_macros = ["NDEBUG"]
        super().build_extensions()


setup(ext_modules=extensions(), cmdclass={"build_ext": BuildExt})
