"""Stopping brett's long calls from another thread: :class:`Stopper`.

Ctrl-C reaches only the main thread; a server, a GUI or a pool of workers needs
to end a ``perft``, a count or a search running in a thread of its own.  A
thread that holds a :class:`Stopper` (``with stopper:``) has every long brett
call inside stop soon after :meth:`Stopper.stop` is called from any thread: the
compiled cores check :func:`check` where they poll for signals (every few
milliseconds), the plain twins in their loops, and the call raises
:class:`~brett.errors.Stopped`.  The game is never changed by a stopped call.
"""

from __future__ import annotations

import threading
from types import TracebackType
from typing import Optional

from ..errors import Stopped

_HELD: dict[int, list[Stopper]] = {}
"""The stoppers each thread holds, innermost last (empty: nothing to check)."""
_lock = threading.Lock()


class Stopper:
    """A flag that stops brett's long calls in the threads holding it.

    >>> import brett, threading
    >>> stopper = brett.Stopper()
    >>> stopper.stop()           # here from this thread; usually from another one
    >>> with stopper:
    ...     brett.Reversi().perft(20)
    Traceback (most recent call last):
    brett.errors.Stopped: stopped by a Stopper

    One stopper may be held by several threads (it stops them all) and a thread
    may hold several, nested (any of them stops it).  :meth:`stop` is final: a
    stopper is not reset.
    """

    __slots__ = ("_stopped",)

    def __init__(self) -> None:
        self._stopped = False

    def stop(self) -> None:
        """Stop the calls of every thread that holds this stopper (any thread may call it)."""
        self._stopped = True

    @property
    def stopped(self) -> bool:
        """Whether :meth:`stop` was called."""
        return self._stopped

    def __enter__(self) -> Stopper:
        ident = threading.get_ident()
        with _lock:
            _HELD.setdefault(ident, []).append(self)
        return self

    def __exit__(self, kind: Optional[type[BaseException]], value: Optional[BaseException],
                 traceback: Optional[TracebackType]) -> None:
        ident = threading.get_ident()
        with _lock:
            held = _HELD.get(ident)
            if held:
                held.remove(self)
                if not held:
                    del _HELD[ident]

    def __repr__(self) -> str:
        return f"<Stopper {'stopped' if self._stopped else 'running'}>"


def requested() -> bool:
    """Whether a stopper that this thread holds was stopped."""
    if not _HELD:
        return False
    held = _HELD.get(threading.get_ident())
    return held is not None and any(s._stopped for s in held)


def check() -> None:
    """Raise :class:`~brett.errors.Stopped` if a stopper this thread holds was stopped
    (cheap when no thread holds one: the long loops of the plain twins call it)."""
    if _HELD and requested():
        raise Stopped("stopped by a Stopper")


__all__ = ["Stopper", "check", "requested"]
