"""Type stubs of the compiled endgame solver (see _solve_c.pyx and its twin _solve_py.py)."""

from typing import Any

INF: int
PASS: int
LEVELS: tuple[str, ...]

def available_kernels() -> list[str]: ...
def use_kernels(cap: str = "auto") -> str: ...
def kernels() -> str: ...
def solve(black: int, white: int, blocked: int, player: int, alpha: int,
          beta: int, all_best: bool = True,
          evaluator: Any = None) -> tuple[int, list[int], int]: ...
