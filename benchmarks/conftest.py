"""Benchmarks run in one process (the project's pytest options spread tests over
every core with pytest-xdist, under which pytest-benchmark measures nothing), and
each benchmark file's figures and ratios are printed after pytest-benchmark's table."""

from __future__ import annotations

from typing import Any

import pytest

from _figures import Figures


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config.option, "dist"):  # before xdist and pytest-benchmark look at it
        config.option.dist, config.option.numprocesses = "no", 0


def pytest_terminal_summary(terminalreporter: Any) -> None:
    for table in Figures.tables:
        if table:
            terminalreporter.write_line("")
            for line in table.report():
                terminalreporter.write_line(line)
