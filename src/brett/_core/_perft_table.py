"""The plain twin of a hashed perft's table (ext/brett_perft_table.h).

The same buckets as the compiled table: two entries each, the first keeping the
deepest subtree that fell in the bucket, the second the latest.  Keys are exact
positions (a core's ``_table_key``), so a hit is never a collision and the counts
are those of the plain perft whatever the table keeps.  Its size in bytes is
honoured by what an entry costs here (:data:`ENTRY_BYTES`), not the C table's 32.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Optional

ENTRY_BYTES = 192
"""About what one entry costs in CPython: its tuple, key, and count."""


class PerftTable:
    """A hashed perft's table of at most about ``size`` bytes, each entry costing
    about ``entry_bytes``."""

    def __init__(self, size: int, entry_bytes: int = ENTRY_BYTES) -> None:
        buckets = 1
        while buckets * 2 * 2 * entry_bytes <= size and buckets < 1 << 40:
            buckets *= 2
        self.size = size
        self._mask = buckets - 1
        self._slots: list[Optional[tuple[Hashable, int, int]]] = [None] * (2 * buckets)
        self._context: Any = None

    def __reduce__(self) -> Any:
        raise TypeError("a perft table is not pickled: make one where it is used")

    def ready(self, context: Any) -> PerftTable:
        """The table, emptied if its counts were made in another context (board,
        convention, symmetries)."""
        if context != self._context:
            self._slots = [None] * len(self._slots)
            self._context = context
        return self

    def _bucket(self, key: Hashable, depth: int) -> int:
        return 2 * (hash((key, depth)) & self._mask)

    def probe(self, key: Hashable, depth: int) -> Optional[int]:
        """The count kept for ``key`` at ``depth``, or None."""
        at = self._bucket(key, depth)
        for entry in self._slots[at:at + 2]:
            if entry is not None and entry[1] == depth and entry[0] == key:
                return entry[2]
        return None

    def store(self, key: Hashable, depth: int, count: int) -> None:
        at = self._bucket(key, depth)
        deepest = self._slots[at]
        fresh = (key, depth, count)
        if deepest is None or depth >= deepest[1]:
            if deepest is not None and (deepest[0], deepest[1]) != (key, depth):
                self._slots[at + 1] = deepest   # the deepest so far becomes the latest
            self._slots[at] = fresh
        else:
            self._slots[at + 1] = fresh
