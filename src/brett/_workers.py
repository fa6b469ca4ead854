"""Worker processes that never outlive their parent.

:func:`start_worker` is the initializer of a process pool's workers (any start
method: fork, spawn, forkserver).  It leaves Ctrl-C to the parent, which a
terminal also sends it to, and starts a watchdog thread that ends the worker at
once when the parent asks (an event) or dies, even by ``kill -9``: without it a
worker whose parent was killed sleeps forever, waiting for work.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
from typing import Any

POLL = 0.1
"""How often, in seconds, a worker checks that its parent still wants it."""
STOPPED_EXIT = 3
"""The exit code of a worker ended by its watchdog."""


def start_worker(stop: Any) -> None:
    """Initialize a worker process; ``stop`` is a ``multiprocessing`` event the
    parent sets to end every worker within :data:`POLL` seconds."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A forked worker inherits the parent's handlers, such as the command line's
    # that turn SIGTERM and SIGHUP into an exception: here they end the process.
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
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


__all__ = ["POLL", "STOPPED_EXIT", "start_worker"]
