"""The exceptions brett raises for bad input.

All derive from :class:`BrettError`, itself a :class:`ValueError`, so callers can
catch one name.  A failed call never changes the game's state.
"""

from __future__ import annotations


class BrettError(ValueError):
    """Base class of every error brett raises for bad input."""


class InvalidMoveError(BrettError):
    """The move text or object is malformed: it is not a move of this game."""


class IllegalMoveError(BrettError):
    """The move is well formed but not legal in the current position."""


class InvalidPositionError(BrettError):
    """A position string or a set of game options is malformed or impossible."""


class InvalidRecordError(BrettError):
    """A game record cannot be read or does not replay."""


class EmptyStackError(BrettError, IndexError):
    """``pop()``, ``peek()`` or ``undo_action()`` with no move to take back
    (also an :class:`IndexError`, as ``list.pop`` raises)."""


__all__ = [
    "BrettError",
    "EmptyStackError",
    "IllegalMoveError",
    "InvalidMoveError",
    "InvalidPositionError",
    "InvalidRecordError",
]
