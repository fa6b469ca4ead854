"""brett: a fast rules engine for Reversi (with blocked squares), Focus, Phutball and Schuft.

>>> import brett
>>> game = brett.Reversi()
>>> game.perft(3)
56

The game classes load lazily, so ``import brett`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .errors import (
    BrettError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    InvalidRecordError,
)
from .game import CHANCE, TERMINAL, Game, Outcome, PlayoutStats, core_backends
from .records import dump, load
from .render import svg

__version__ = "0.1.0"

_GAMES = {"Reversi": "reversi", "Focus": "focus", "Phutball": "phutball", "Schuft": "schuft"}

if TYPE_CHECKING:
    from .focus import Focus
    from .phutball import Phutball
    from .reversi import Reversi
    from .schuft import Schuft


def __getattr__(name: str) -> Any:
    module = _GAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'brett' has no attribute {name!r}")
    cls = getattr(importlib.import_module(f"brett.{module}"), name)
    globals()[name] = cls
    return cls


def core_backend() -> str:
    """``"cython"`` when every game runs on its compiled core, ``"python"`` when
    none does (``BRETT_NO_EXTENSIONS=1`` or no compiled build), else ``"mixed"``."""
    for module in _GAMES.values():
        importlib.import_module(f"brett.{module}")
    kinds = set(core_backends().values())
    return kinds.pop() if len(kinds) == 1 else "mixed"


__all__ = [
    "CHANCE",
    "TERMINAL",
    "BrettError",
    "Focus",
    "Game",
    "IllegalMoveError",
    "InvalidMoveError",
    "InvalidPositionError",
    "InvalidRecordError",
    "Outcome",
    "Phutball",
    "PlayoutStats",
    "Reversi",
    "Schuft",
    "__version__",
    "core_backend",
    "core_backends",
    "dump",
    "load",
    "svg",
]
