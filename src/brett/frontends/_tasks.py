"""Running the subtrees of a split perft: on local worker processes
(:class:`LocalRunner`) or on a Dask cluster (:class:`DaskRunner`).

A runner takes tasks by index and hands back finished ones as they come, with a
timeout, so the caller's loop stays responsive (Ctrl-C, progress) on every
platform.  :meth:`stop` ends a run at once: queued tasks are dropped and local
worker processes end within a tenth of a second.  Local workers also end by
themselves when their parent process dies, even by ``kill -9``.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import queue
import signal
import threading
from collections import Counter, deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing.context import BaseContext
from typing import Any, Optional, Protocol

from .._workers import signals_held, start_worker
from ..errors import BrettError

ALLOWED_LOSSES = 3
"""How often a task may be lost with the worker process running it: one more
loss ends the run (Dask's ``allowed-failures`` default and rule)."""


class Runner(Protocol):
    def submit(self, index: int, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` as task ``index``."""

    def next_result(self, timeout: float) -> Optional[tuple[int, Any]]:
        """A finished task's index and result, or None after ``timeout`` seconds
        without one.  A task that failed raises :class:`BrettError`."""

    def stop(self) -> None:
        """End the run now: drop what is queued, end what runs where possible."""

    def close(self) -> None:
        """End a run whose tasks all finished."""


@contextlib.contextmanager
def running(scheduler: Optional[str], workers: int) -> Iterator[Runner]:
    """A runner on the Dask cluster at ``scheduler``, else on ``workers`` local
    processes; stopped at once if the block raises (Ctrl-C included)."""
    runner: Runner = DaskRunner(scheduler) if scheduler else LocalRunner(workers)
    try:
        yield runner
    except BaseException:
        with _ctrl_c_ignored():  # a second Ctrl-C must not cut the clean-up short
            runner.stop()
        raise
    runner.close()


@contextlib.contextmanager
def _ctrl_c_ignored() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def ctrl_c_deferred() -> Iterator[None]:
    """Hold back Ctrl-C until the block is done (then raise KeyboardInterrupt):
    for a few steps that must happen together, like recording a finished
    subtree and counting it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pressed: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: pressed.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if pressed:
        raise KeyboardInterrupt


# ------------------------------------------------------------------ local processes
@dataclass
class _Task:
    index: int
    fn: Callable[..., Any]
    args: tuple[Any, ...]


class LocalRunner:
    """Tasks on ``workers`` local processes, ``workers`` at a time (the rest wait
    here, so a stop has nothing queued in the pool to drain).  A worker process
    that dies (killed, out of memory) breaks a process pool for good: its tasks
    run again on a fresh pool, as Dask runs a lost worker's tasks elsewhere, up to
    :data:`ALLOWED_LOSSES` times each."""

    def __init__(self, workers: int, context: Optional[BaseContext] = None) -> None:
        self.workers = workers
        self.context: Any = context or multiprocessing.get_context()
        self.stopping = self.context.Event()
        self.pool = self._new_pool()
        self.waiting: deque[_Task] = deque()
        self.running: dict[Future[Any], _Task] = {}
        self.losses: Counter[int] = Counter()
        self.finished: queue.SimpleQueue[Future[Any]] = queue.SimpleQueue()

    def _new_pool(self) -> ProcessPoolExecutor:
        try:
            return ProcessPoolExecutor(self.workers, mp_context=self.context,
                                       initializer=start_worker, initargs=(self.stopping,))
        except ValueError as exc:  # Windows runs at most 61 workers
            raise BrettError(f"--workers {self.workers}: {exc}") from None

    def submit(self, index: int, fn: Callable[..., Any], *args: Any) -> None:
        self.waiting.append(_Task(index, fn, args))

    def next_result(self, timeout: float) -> Optional[tuple[int, Any]]:
        self._top_up()
        try:
            future = self.finished.get(timeout=timeout)
        except queue.Empty:
            return None
        task = self.running.pop(future, None)
        if task is None:
            return None  # from a pool already replaced
        try:
            return task.index, future.result()
        except BrokenProcessPool:
            self._replace_pool([task, *self.running.values()])
            return None
        except Exception as exc:
            raise BrettError(f"subtree {task.index} failed in a worker process: "
                             f"{type(exc).__name__}: {exc}") from None

    def _top_up(self) -> None:
        while self.waiting and len(self.running) < self.workers:
            task = self.waiting.popleft()
            try:
                with signals_held():   # submit may start the pool's workers
                    future = self.pool.submit(task.fn, *task.args)
                    self.running[future] = task
            except BrokenProcessPool:  # broke while no task of ours was in it
                self._replace_pool([task, *self.running.values()])
                continue
            future.add_done_callback(self.finished.put)

    def _replace_pool(self, lost: list[_Task]) -> None:
        """A fresh pool; the tasks that were in the broken one wait to run again."""
        for task in lost:
            self.losses[task.index] += 1
            if self.losses[task.index] > ALLOWED_LOSSES:
                raise BrettError(f"subtree {task.index} was lost {self.losses[task.index]} "
                                 f"times with the worker process running it (killed, or out "
                                 f"of memory?)")
        self.pool.shutdown(wait=True, cancel_futures=True)  # its processes are ended
        self.running.clear()
        self.waiting.extendleft(reversed(lost))
        self.pool = self._new_pool()

    def stop(self) -> None:
        self.waiting.clear()
        self.stopping.set()  # every worker process ends within _workers.POLL seconds
        # Waiting for the pool's thread to see them end also keeps it from racing
        # the interpreter's exit (a "Bad file descriptor" traceback on Python 3.11).
        self.pool.shutdown(wait=True, cancel_futures=True)

    def close(self) -> None:
        self.pool.shutdown(wait=True)


# ------------------------------------------------------------------ Dask
class DaskRunner:
    """Tasks on the Dask cluster at ``address``; Dask itself runs a lost worker's
    tasks again elsewhere.  Dask futures are used directly: the executor of
    ``client.get_executor()`` can fail a task whose result a dying worker held
    (``TypeError`` in distributed's ``cfexecutor``) instead of waiting for it."""

    def __init__(self, address: str) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise BrettError("--scheduler needs Dask: pip install 'brett[dask]'") from None
        try:
            self.client = Client(address, timeout=15)
        except (OSError, TimeoutError, ValueError, TypeError) as exc:
            raise BrettError(f"--scheduler {address}: {exc}") from None
        self.futures: dict[Any, int] = {}
        self.finished: queue.SimpleQueue[Any] = queue.SimpleQueue()

    def submit(self, index: int, fn: Callable[..., Any], *args: Any) -> None:
        future = self.client.submit(fn, *args, pure=False)
        self.futures[future] = index
        future.add_done_callback(self.finished.put)

    def next_result(self, timeout: float) -> Optional[tuple[int, Any]]:
        try:
            future = self.finished.get(timeout=timeout)
        except queue.Empty:
            return None
        index = self.futures.pop(future, None)
        if index is None:
            return None
        try:
            return index, future.result()
        except Exception as exc:
            raise BrettError(f"subtree {index} failed on the cluster: "
                             f"{type(exc).__name__}: {exc}") from None

    def stop(self) -> None:
        # Queued tasks are dropped; one already running on a worker finishes
        # there (Dask cannot interrupt it) and its result is discarded.
        with contextlib.suppress(Exception):
            self.client.cancel(list(self.futures), force=True)
        self.futures.clear()
        with contextlib.suppress(Exception):
            self.client.close(timeout=2)

    def close(self) -> None:
        self.client.close()


__all__ = ["ALLOWED_LOSSES", "DaskRunner", "LocalRunner", "Runner", "ctrl_c_deferred",
           "running"]
