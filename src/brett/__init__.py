"""brett: a fast rules engine for Reversi (with blocked squares), Focus, Phutball and Schuft.

>>> import brett
>>> game = brett.Reversi()
>>> game.perft(3)
56
>>> sorted(brett.GAMES)
['focus', 'phutball', 'reversi', 'schuft']

The game classes (and the record and SVG helpers) load on first use, so
``import brett`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._checks import MAX_PERFT_DEPTH, MAX_PLIES
from ._core._stop import Stopper
from .errors import (
    BrettError,
    EmptyStackError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    InvalidRecordError,
    Stopped,
)
from .game import CHANCE as CHANCE
from .game import (
    GAMES,
    AnyGame,
    AnyMove,
    CpuFeatures,
    Game,
    GameOption,
    LegalMoveView,
    Outcome,
    PlayoutStats,
    core_backends,
    cpu_features,
)
from .game import TERMINAL as TERMINAL

__version__ = "0.2.0"

_LAZY = {
    "Reversi": "brett.reversi",
    "Focus": "brett.focus",
    "Phutball": "brett.phutball",
    "Schuft": "brett.schuft",
    "dump": "brett.records",
    "load": "brett.records",
    "load_record": "brett.records",
    "svg": "brett.render",
}

if TYPE_CHECKING:
    from .focus import Focus
    from .phutball import Phutball
    from .records import dump, load, load_record
    from .render import svg
    from .reversi import Reversi
    from .schuft import Schuft


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'brett' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


def core_backend() -> str:
    """``"cython"`` when every game runs on its compiled core, ``"python"`` when
    none does (``BRETT_NO_EXTENSIONS=1`` or no compiled build), else ``"mixed"``."""
    for name in GAMES:
        GAMES[name]
    kinds = set(core_backends().values())
    return kinds.pop() if len(kinds) == 1 else "mixed"


__all__ = [
    "CHANCE",
    "GAMES",
    "MAX_PERFT_DEPTH",
    "MAX_PLIES",
    "TERMINAL",
    "AnyGame",
    "AnyMove",
    "BrettError",
    "CpuFeatures",
    "EmptyStackError",
    "Focus",
    "Game",
    "GameOption",
    "IllegalMoveError",
    "InvalidMoveError",
    "InvalidPositionError",
    "InvalidRecordError",
    "LegalMoveView",
    "Outcome",
    "Phutball",
    "PlayoutStats",
    "Reversi",
    "Schuft",
    "Stopped",
    "Stopper",
    "__version__",
    "core_backend",
    "core_backends",
    "cpu_features",
    "dump",
    "load",
    "load_record",
    "svg",
]
