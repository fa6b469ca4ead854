# cython: language_level=3
"""Shared by every Cython core: signal polling and :class:`CoreBase`."""

cimport cython
from cpython.pythread cimport PyThread_get_thread_ident
from libc.stdint cimport SIZE_MAX
from libc.stdlib cimport realloc

cdef extern from "Python.h":
    # Declared without an exception value: the exception a handler raises must
    # stay set (Cython would otherwise report it as unraisable in a noexcept
    # function) until raise_if_stopped hands it to the caller.
    int check_signals "PyErr_CheckSignals" ()

from ._base import busy_error


cdef void *grow_array(void *array, Py_ssize_t *capacity, Py_ssize_t need, size_t size,
                      Py_ssize_t first) except NULL:
    """``array`` (``capacity[0]`` items) grown to at least ``need`` items."""
    cdef Py_ssize_t cap = capacity[0] if capacity[0] > 0 else max(first, 1)
    cdef void *grown
    if array != NULL and need <= capacity[0]:
        return array
    while cap < need:
        cap *= 2
    if <size_t>cap > SIZE_MAX // size:  # the byte count would overflow (32-bit)
        raise MemoryError()
    grown = realloc(array, <size_t>cap * size)
    if grown == NULL:
        raise MemoryError()
    capacity[0] = cap
    return grown


cdef int poll_signals(Interrupt *it) noexcept nogil:
    """Run Python's signal handlers; a handler's exception (KeyboardInterrupt)
    stays set and stops the search (see raise_if_stopped)."""
    if it.stopped:
        return 1
    it.countdown = it.every
    with gil:
        if check_signals() != 0:
            it.stopped = 1
    return it.stopped


cdef int raise_if_stopped(Interrupt *it) except -1:
    """Propagate the exception a signal handler left set during the search."""
    return -1 if it.stopped else 0


@cython.auto_pickle(False)
cdef class CoreBase:
    """The move stack and the thread guard every compiled core shares.

    Every method of a compiled core holds the GIL from start to end (searches
    release it only on private copies), so a push or pop is atomic; enter() /
    leave() let the game layer make several calls as one."""

    def __cinit__(self, *args, **kwargs):
        self.entries = []
        self.busy = 0
        self.owner = 0

    def enter(self):
        cdef unsigned long me = PyThread_get_thread_ident()
        if self.busy and self.owner != me:
            raise busy_error()
        self.busy += 1
        self.owner = me

    def leave(self):
        if self.busy:
            self.busy -= 1

    cdef int claim(self) except -1:
        """Refuse a mutation while another thread is inside enter()."""
        if self.busy and self.owner != PyThread_get_thread_ident():
            raise busy_error()
        return 0
