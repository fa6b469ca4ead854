"""perft through a table keyed by the whole state, for any core without chance
nodes and without a table of its own: the hashed perft of Focus and Phutball,
on both twins.

The walk above the table runs here, in Python, and each subtree of ``leaf`` moves
or fewer is counted by the core's own perft (the compiled cores count those
fastest themselves: a probe there would cost more than the count).  A position's
key is its state (:meth:`Core.get_state`) packed by :mod:`marshal`: exact, so a
hit is never a collision, and small.  The table is the plain twin's
(:class:`~brett._core._perft_table.PerftTable`), sized by what its entries cost
here; it serves several threads at once under the GIL.
"""

from __future__ import annotations

import marshal
from typing import Any

from ._perft_table import ENTRY_BYTES, PerftTable
from ._stop import check as stop_check


def state_key(core: Any) -> bytes:
    """The whole state of ``core`` as bytes (equal for equal states, on both twins)."""
    return marshal.dumps(tuple(core.get_state()))


def state_table(size: int, core: Any) -> PerftTable:
    """A table of at most about ``size`` bytes for counts from ``core``: an
    entry's cost is measured on the root's key, with room for the pieces that
    moves add (a Phutball man a move)."""
    return PerftTable(size, ENTRY_BYTES + 2 * len(state_key(core)) + 64)


def state_perft(core: Any, depth: int, count_finished: bool, table: PerftTable,
                leaf: int) -> int:
    """perft(``depth``) of ``core`` (which is not changed), keeping each subtree
    deeper than ``leaf`` in ``table``."""
    walk = core.clone(False)
    return _count(walk, depth, count_finished, table.ready(("state", count_finished)), leaf)


def _count(core: Any, depth: int, count_finished: bool, table: PerftTable, leaf: int) -> int:
    if depth <= leaf:
        return int(core.perft(depth, count_finished))
    key = state_key(core)
    total = table.probe(key, depth)
    if total is not None:
        return total
    stop_check()
    total = 0
    moved = False
    for cm in core.iter_moves():   # lazily: a Phutball position can have millions
        moved = True
        core.push(cm, None)
        try:
            total += _count(core, depth - 1, count_finished, table, leaf)
        finally:
            core.pop()
    if not moved:  # a finished game: the core's own convention counts it
        return int(core.perft(depth, count_finished))
    table.store(key, depth, total)
    return total
