"""Schuft's solo endgame tables: the expected number of own turns a player still
needs to bring home its last one, two or three pieces, playing as fast as the dice
allow.

"Solo" means no other player's piece is on the ring: nothing blocks, nothing is
hit.  Near the end of a race that is nearly so, and the tables then give the
fastest play exactly (:meth:`brett.Schuft._exact_moves`, used by
:class:`brett.ai.MCTSPlayer`).  ``tools/make_schuft_endgame.py`` computes them
(value iteration over rules S4-S7) and writes ``brett/data/schuft_endgame.bin``.

A piece is described by its *place*: its clockwise steps to its seat's last tongue
(0..35, :func:`to_corner`); a goal field gm (m = 1..9) is *hole* ``m - 1``.  Level
``n`` is the table of ``n`` pieces and ``n`` free holes (ascending):

* level 1: ``hole * 36 + place``;
* level 2: ``(PAIRS.index(holes) * 36 + place_a) * 36 + place_b`` (both orders);
* level 3: ``TRIPLES.index(holes) * 8436 + sorted_places().index(sorted places)``.

The file is little-endian: a header (magic, version, scale, levels), the uint16
values of each level in turn (``round(turns * scale)``) and a CRC-32 of everything
before it.
"""

from __future__ import annotations

import array
import functools
import math
import struct
import sys
import zlib
from collections.abc import Sequence
from itertools import combinations, combinations_with_replacement
from typing import Any, Optional

from .._core import data_file
from ..errors import BrettError

MAGIC = b"BRSE"
VERSION = 2
HEADER = struct.Struct("<4sHHH")  # magic, version, scale, levels
FILE = "schuft_endgame.bin"
RING = 36
PAIRS: tuple[tuple[int, ...], ...] = tuple(combinations(range(9), 2))
TRIPLES: tuple[tuple[int, ...], ...] = tuple(combinations(range(9), 3))
MAX_LEVEL = 3


@functools.cache
def sorted_places() -> tuple[tuple[int, int, int], ...]:
    """Every three places in ascending order, in the order of level 3."""
    return tuple(combinations_with_replacement(range(RING), 3))  # type: ignore[arg-type]


SIZES = (9 * RING, len(PAIRS) * RING * RING, len(TRIPLES) * math.comb(RING + 2, 3))
"""The number of states of levels 1, 2 and 3."""


@functools.cache
def _indexes() -> tuple[dict[tuple[int, ...], int], ...]:
    return ({pair: i for i, pair in enumerate(PAIRS)},
            {triple: i for i, triple in enumerate(TRIPLES)},
            {places: i for i, places in enumerate(sorted_places())})


class Tables:
    """A checked tables file; :meth:`turns` looks a position up."""

    def __init__(self, data: bytes, where: str = FILE) -> None:
        if len(data) < HEADER.size + 4:
            raise BrettError(f"{where}: {len(data)} bytes, too short for Schuft's tables")
        magic, version, scale, levels = HEADER.unpack_from(data)
        if magic != MAGIC or version != VERSION:
            raise BrettError(f"{where}: not a version {VERSION} brett Schuft endgame file")
        if not 1 <= levels <= MAX_LEVEL or scale < 1:
            raise BrettError(f"{where}: bad header (scale {scale}, levels {levels})")
        if len(data) != HEADER.size + 2 * sum(SIZES[:levels]) + 4:
            raise BrettError(f"{where}: {len(data)} bytes, not the size its header gives")
        (crc,) = struct.unpack_from("<I", data, len(data) - 4)
        if crc != zlib.crc32(data[:-4]):
            raise BrettError(f"{where}: checksum mismatch: the tables file is corrupt")
        values = array.array("H", data[HEADER.size:-4])
        if sys.byteorder == "big":  # the file is little-endian
            values.byteswap()
        self.scale = scale
        self.levels: list[array.array[int]] = []
        start = 0
        for size in SIZES[:levels]:
            self.levels.append(values[start:start + size])
            start += size

    def turns(self, holes: Sequence[int], places: Sequence[int]) -> float:
        """Expected own turns for pieces at ``places`` to fill the free goal fields
        ``holes`` (ascending, as many as pieces, at most the file's levels; none:
        0.0)."""
        n = len(holes)
        if n == 0:
            return 0.0
        if n == 1:
            at = holes[0] * RING + places[0]
        elif n == 2:
            at = (_indexes()[0][tuple(holes)] * RING + places[0]) * RING + places[1]
        else:
            _, triple, place = _indexes()
            at = triple[tuple(holes)] * len(place) + place[tuple(sorted(places))]
        return self.levels[n - 1][at] / self.scale


def encode(levels: Sequence[Sequence[float]], scale: int = 256) -> bytes:
    """A tables file of the ``levels`` (1, then 2, ...: :data:`SIZES` values each),
    in turns."""
    if not 1 <= len(levels) <= MAX_LEVEL or any(
            len(values) != size for values, size in zip(levels, SIZES[:len(levels)], strict=True)):
        raise BrettError(f"expected 1 to {MAX_LEVEL} levels of {SIZES} values")
    values = array.array("H")
    for level in levels:
        scaled = [round(x * scale) for x in level]
        if not all(0 <= v < 65536 for v in scaled):
            raise BrettError(f"a value does not fit 16 bits at scale {scale}")
        values.extend(scaled)
    if sys.byteorder == "big":
        values.byteswap()
    body = HEADER.pack(MAGIC, VERSION, scale, len(levels)) + values.tobytes()
    return body + struct.pack("<I", zlib.crc32(body))


@functools.cache
def tables() -> Tables:
    """The shipped tables (read and checked once)."""
    return Tables(data_file(FILE, "Schuft's endgame tables file"))


def endgame(state: Sequence[Any], player: int, seat: int,
            most: int = MAX_LEVEL) -> Optional[tuple[list[int], list[int]]]:
    """``(holes, places)`` of ``player`` (at ``seat``) in a core state tuple when
    it has at most ``most`` pieces not home and none out; else None."""
    _, owners, counts, goals, outs, *_ = state
    holes = [m for m in range(9) if not goals[player] >> m & 1]
    if len(holes) > most or outs[player]:
        return None
    places = []
    for i in range(RING):
        if owners[i] == player:
            places += [to_corner(seat, i)] * counts[i]
    return holes, places


def to_corner(seat: int, i: int) -> int:
    """Clockwise steps from tongue index ``i`` (0-based) to ``seat``'s last tongue."""
    return (9 * seat + 8 - i) % RING
