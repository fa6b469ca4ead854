"""What the record tests and fuzzers share."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import brett


@contextlib.contextmanager
def on_core(backend: str) -> Iterator[None]:
    """The readers build games from the public classes (``brett.GAMES``): point
    each at ``backend``'s core for the duration."""
    classes = [brett.GAMES[name] for name in brett.GAMES]
    saved = [cls.__dict__["_core_class"] for cls in classes]
    try:
        for cls in classes:
            cls._core_class = getattr(cls._cores.get(backend), cls._core_class_name)
        yield
    finally:
        for cls, core in zip(classes, saved, strict=True):
            cls._core_class = core
