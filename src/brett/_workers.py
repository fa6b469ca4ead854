"""Worker processes that never outlive their parent.

:func:`start_worker` is the initializer of a process pool's workers (any start
method: fork, spawn, forkserver).  It leaves Ctrl-C to the parent, which a
terminal also sends it to, and starts a watchdog thread that ends the worker at
once when the parent asks (an event) or dies, even by ``kill -9``: without it a
worker whose parent was killed sleeps forever, waiting for work.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
from collections.abc import Iterator
from typing import Any

POLL = 0.1
"""How often, in seconds, a worker checks that its parent still wants it."""
STOPPED_EXIT = 3
"""The exit code of a worker ended by its watchdog."""


_STOPPING = [getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
             if hasattr(signal, name)]


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Hold Ctrl-C, SIGTERM and SIGHUP (POSIX) while a pool may start workers: a
    new worker has the parent's handlers until :func:`start_worker` runs, and a
    Ctrl-C in between printed a traceback from it.  The parent gets a held signal
    when the block ends."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPPING)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def start_worker(stop: Any) -> None:
    """Initialize a worker process; ``stop`` is a ``multiprocessing`` event the
    parent sets to end every worker within :data:`POLL` seconds."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A forked worker inherits the parent's handlers, such as the command line's
    # that turn SIGTERM and SIGHUP into an exception: here they end the process.
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):   # held by signals_held while it started
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPPING)
    threading.Thread(target=_watch, args=(stop,), name="brett watchdog", daemon=True).start()


def _watch(stop: Any) -> None:
    parent = multiprocessing.parent_process()
    ppid = os.getppid()
    while not stop.is_set():
        if parent is not None:
            # The sentinel is ready when the parent is gone (Windows included) ...
            if multiprocessing.connection.wait([parent.sentinel], POLL):
                break
        else:  # pragma: no cover - every pool worker has a parent process
            stop.wait(POLL)
        # ... but under fork a sibling forked later holds its pipe open too: on
        # POSIX a dead parent also shows as a new parent process id.
        if os.name == "posix" and os.getppid() != ppid:
            break
    os._exit(STOPPED_EXIT)  # now, whatever the main thread is computing


__all__ = ["POLL", "STOPPED_EXIT", "signals_held", "start_worker"]
