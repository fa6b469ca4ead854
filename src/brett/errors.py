"""The exceptions brett raises for bad input.

All derive from :class:`BrettError`, itself a :class:`ValueError`, so callers can
catch one name.  A failed call never changes the game's state.  :class:`Stopped`
is apart: it ends a long call that the caller asked to stop (``brett.Stopper``).
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


class Stopped(Exception):
    """A long call (perft, a count, a search) ended early because a
    :class:`~brett.Stopper` the thread holds was stopped.  Not a
    :class:`BrettError`: nothing was wrong with the input; the game is unchanged."""


__all__ = [
    "BrettError",
    "EmptyStackError",
    "IllegalMoveError",
    "InvalidMoveError",
    "InvalidPositionError",
    "InvalidRecordError",
    "Stopped",
]
