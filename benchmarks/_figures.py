"""What every benchmark file shares: the compiled-core marker and a figure table
whose ratios are printed in pytest's terminal summary (see conftest.py)."""

from __future__ import annotations

import os
from typing import Any, ClassVar

import pytest

needs_cython = pytest.mark.skipif(bool(os.environ.get("BRETT_NO_EXTENSIONS")),
                                  reason="BRETT_NO_EXTENSIONS=1: no compiled core")
BACKENDS = ["python", pytest.param("cython", marks=needs_cython)]


def per_second(benchmark: Any, count: float) -> float:
    """``count`` per second of the fastest round."""
    return count / benchmark.stats.stats.min


class Figures(dict):  # type: ignore[type-arg]
    """One file's figures, name → value, and the ratios to print from them."""

    tables: ClassVar[list[Figures]] = []

    def __init__(self, title: str, ratios: list[tuple[str, str, str]]) -> None:
        super().__init__()
        self.title = title
        self.ratios = ratios
        Figures.tables.append(self)

    def report(self) -> list[str]:
        lines = [f"{self.title} benchmark summary (this machine, one run)"]
        lines += [f"  {name:<48} {value if isinstance(value, str) else format(value, ',.1f'):>16}"
                  for name, value in self.items()]
        for label, numerator, denominator in self.ratios:
            if self.get(numerator) and self.get(denominator):
                lines.append(f"  {label:<48} {self[numerator] / self[denominator]:>15,.2f}x")
        return lines
