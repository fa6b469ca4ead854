"""Print each benchmark file's figures and ratios after pytest-benchmark's table."""

from __future__ import annotations

from typing import Any

from _figures import Figures


def pytest_terminal_summary(terminalreporter: Any) -> None:
    for table in Figures.tables:
        if table:
            terminalreporter.write_line("")
            for line in table.report():
                terminalreporter.write_line(line)
