"""WTHOR: the French Othello Federation's binary tournament archive.

A ``.wtb`` file holds the games of one year: a 16-byte header, then one record
per game (tournament, Black and White as indices into the ``.TRN`` and ``.JOU``
name tables, Black's recorded and theoretical disc counts, the moves as bytes
``10 * row + column``, passes left out).  brett reads and writes 8x8 and 10x10
archives (the header's board size; 10x10 records hold 96 move bytes, and a
column 10 is written as the next row's column 0, the only reading a byte allows)::

    >>> import brett, pathlib, tempfile
    >>> from brett.records import Record
    >>> from brett.records.wthor import read_wthor, write_wthor
    >>> game = brett.Reversi()
    >>> for move in ("f5", "d6", "c3"):
    ...     _ = game.push(move)
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> write_wthor([Record.from_game(game, Black="Ann", White="Bob", Date="2026")],
    ...             folder / "GAMES.wtb", jou=folder / "WTHOR.JOU")
    1
    >>> record = next(read_wthor(folder / "GAMES.wtb", jou=folder / "WTHOR.JOU"))
    >>> [str(m) for m in record.moves], record.headers["Black"], record.headers["Date"]
    (['f5', 'd6', 'c3'], 'Ann', '2026')

Headers read: ``Black``, ``White`` (with ``jou``), ``Event`` (with ``trn``),
``Date`` (the year of the file), ``BlackScore`` (the recorded final count of
Black's discs) and ``TheoreticalScore``.  Passes are inserted on reading (a
record's moves include ``pass``) and dropped on writing.  Reading replays every
move through the integer layer of the compiled core: a year's file (10,000
games) reads in a fraction of a second.  Both stream: the archive is read and
written in chunks, one game at a time.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import stat
import struct
from collections.abc import Iterable, Iterator, Sequence
from typing import IO, Optional, Union, overload

from .._files import replacing, write_atomic
from ..errors import BrettError, IllegalMoveError, InvalidRecordError
from ..reversi import Reversi
from ._io import CHUNK, PathLike, Source, ascii_int, open_binary, path_name, read_file, source_name
from .record import Record, check_strings

HEADER = struct.Struct("<4BIHHBBBB")   # century, year, month, day, games, records, year, ...
GAME = struct.Struct("<HHHBB")          # tournament, black, white, score, theoretical score
NAME_SIZE = {"jou": 20, "trn": 26}
MOVES = {8: 60, 10: 96}
MAX_FILE = 64 * 2**20
"""The largest ``.wtb``, ``.JOU`` or ``.TRN`` file read (64 MiB: a million games)."""
_NUMBERS = [str(n) for n in range(256)]  # the scores, one string each for every game


def _board_size(byte: int, where: str) -> int:
    size = 8 if byte in (0, 8) else byte
    if size not in MOVES:
        raise InvalidRecordError(f"{where}: board size {byte}: brett reads 8x8 and 10x10 WTHOR")
    return size


def _names(path: Optional[PathLike], kind: str) -> Optional[list[str]]:
    """The name table of a ``.JOU`` (players) or ``.TRN`` (tournaments) file."""
    if path is None:
        return None
    data = read_file(path, MAX_FILE, kind.upper())
    width = NAME_SIZE[kind]
    if len(data) < HEADER.size:
        raise InvalidRecordError(f"{path_name(path)}: {len(data)} bytes, shorter than a header")
    count = HEADER.unpack_from(data)[5]
    if len(data) < HEADER.size + count * width:
        raise InvalidRecordError(f"{path_name(path)}: the header announces {count} names of "
                                 f"{width} bytes, the file holds {len(data)} bytes")
    return [data[HEADER.size + i * width:HEADER.size + (i + 1) * width]
            .split(b"\0", 1)[0].decode("latin-1").strip() for i in range(count)]


def _name(table: list[str], index: int, what: str) -> str:
    if index >= len(table):
        raise InvalidRecordError(f"{what} index {index}, the table has {len(table)}")
    return table[index]


def read_wthor(wtb: Source, jou: Optional[PathLike] = None,
               trn: Optional[PathLike] = None) -> Iterator[Record]:
    """The games of a ``.wtb`` file (a path or a file open in binary mode), one
    by one, each replayed and checked, read in chunks (memory holds one chunk
    and the name tables).  The header, the name tables and a regular file's
    length are checked before the first record; a record is returned only once
    all its moves replayed: a malformed file gives an
    :class:`InvalidRecordError` naming the game and the move."""
    where = source_name(wtb)
    with open_binary(wtb, "WTHOR") as handle:
        header = _read(handle, HEADER.size, where)
        if len(header) < HEADER.size:
            raise InvalidRecordError(f"{where}: {len(header)} bytes, shorter than the "
                                     f"16-byte header")
        _, _, _, _, count, _, year, size_byte, _, _, _ = HEADER.unpack(header)
        size = _board_size(size_byte, where)
        record_size = GAME.size + MOVES[size]
        length = _length(handle)
        if length is not None and length != HEADER.size + count * record_size:
            raise InvalidRecordError(f"{where}: the header announces {count} games of "
                                     f"{record_size} bytes, the file holds "
                                     f"{length - HEADER.size} after it")
        players, events = _names(jou, "jou"), _names(trn, "trn")
        yield from _games(handle, count, size, year, players, events, where)


def _read(handle: IO[bytes], size: int, where: str) -> bytes:
    try:
        return handle.read(size) or b""
    except OSError as exc:
        raise InvalidRecordError(f"cannot read the WTHOR file {where}: {exc}") from None


def _length(handle: IO[bytes]) -> Optional[int]:
    """The size of a regular file (None for pipes, devices and other streams)."""
    try:  # io.UnsupportedOperation (no file number) is an OSError
        info = os.fstat(handle.fileno())
    except (OSError, AttributeError, ValueError):
        return None
    return info.st_size if stat.S_ISREG(info.st_mode) else None


def _games(handle: IO[bytes], count: int, size: int, year: int,
           players: Optional[list[str]], events: Optional[list[str]],
           where: str) -> Iterator[Record]:
    template = Reversi(size=size)
    start = template.position()
    names = [str(template.action_to_move(a)) for a in range(size * size + 1)]
    square = _square_table(size)
    record_size = GAME.size + MOVES[size]
    batch = max(1, CHUNK // record_size)
    date = str(year)
    number = 0
    while number < count:
        data = _read(handle, min(batch, count - number) * record_size, where)
        if len(data) < min(batch, count - number) * record_size:
            raise InvalidRecordError(f"{where}: the header announces {count} games, the file "
                                     f"ends in game {number + len(data) // record_size + 1}")
        for offset in range(0, len(data), record_size):
            number += 1
            tournament, black, white, score, theory = GAME.unpack_from(data, offset)
            try:  # the place is named only for an error: a year of games makes no strings
                actions = _replay(template, data[offset + GAME.size:offset + record_size],
                                  square)
                headers = {"Date": date, "BlackScore": _NUMBERS[score],
                           "TheoreticalScore": _NUMBERS[theory]}
                if players is not None:
                    headers["Black"] = _name(players, black, "player")
                    headers["White"] = _name(players, white, "player")
                if events is not None:
                    headers["Event"] = _name(events, tournament, "tournament")
            except InvalidRecordError as exc:
                raise InvalidRecordError(f"{where}: game {number}, {exc}") from None
            yield Record("reversi", start, headers, line=_Line(actions, names))
    if _read(handle, 1, where):
        raise InvalidRecordError(f"{where}: more than the {count} games the header announces")


class _Line(Sequence[str]):
    """A game's moves as their actions, each named when read: a year of games
    costs a few bytes a move, not a string object."""

    __slots__ = ("actions", "names")

    def __init__(self, actions: bytes, names: list[str]) -> None:
        self.actions, self.names = actions, names

    def __len__(self) -> int:
        return len(self.actions)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: Union[int, slice]) -> Union[str, list[str]]:
        if isinstance(index, slice):
            return [self.names[a] for a in self.actions[index]]
        return self.names[self.actions[index]]


def _square_table(size: int) -> list[int]:
    """Move byte → action (-1: not a square)."""
    table = [-1] * 256
    for row in range(size):
        for col in range(size):
            table[10 * (row + 1) + col + 1] = row * size + col
    return table


def _replay(game: Reversi, moves: bytes, square: list[int]) -> bytes:
    """The actions of one game's move bytes (each below 256), passes inserted,
    each checked; ``game`` is left as it was."""
    actions = bytearray()
    try:
        _play(game, moves, square, actions)
    finally:
        undo = game.undo_action
        for _ in actions:
            undo()
    return bytes(actions)


def _play(game: Reversi, moves: bytes, square: list[int], actions: bytearray) -> None:
    apply = game.apply_action
    passing = game.size * game.size
    ended = False
    for index, byte in enumerate(moves):
        if byte == 0:
            ended = True
            continue
        action = square[byte]
        if ended or action < 0:
            reason = "a move after the padding" if ended else f"byte {byte} is not a square"
            raise InvalidRecordError(f"move {index + 1}: {reason}")
        try:
            apply(action)
        except IllegalMoveError:
            try:  # the side to move could not move: WTHOR leaves the pass out
                apply(passing)
            except BrettError:
                raise _illegal(game, action, index) from None
            actions.append(passing)
            try:
                apply(action)
            except BrettError:
                raise _illegal(game, action, index) from None
        actions.append(action)


def _illegal(game: Reversi, action: int, index: int) -> InvalidRecordError:
    return InvalidRecordError(f"move {index + 1}: {game.action_to_move(action)} is not legal here")


def write_wthor(records: Iterable[Record], wtb_path: PathLike, jou: Optional[PathLike] = None,
                trn: Optional[PathLike] = None) -> int:
    """Write Reversi records from the standard start (8x8 or 10x10, one size per
    file) as a ``.wtb`` file, and the player and tournament tables when paths are
    given; the number of games written.  Each file is written whole or not at all
    (under a temporary name beside it, renamed when complete).  Passes are dropped;
    ``BlackScore`` and ``TheoreticalScore`` come from the headers when present,
    else from the final position."""
    return write_wthor_file(records, wtb_path, jou, trn, whole=True)


def write_wthor_file(records: Iterable[Record], wtb_path: PathLike, jou: Optional[PathLike],
                     trn: Optional[PathLike], whole: bool) -> int:
    """:func:`write_wthor`; with ``whole`` false straight into the files (which are
    temporary ones of the caller's)."""
    size = 8
    count = 0
    players: dict[str, int] = {}
    events: dict[str, int] = {}
    years: set[int] = set()
    today = datetime.date.today()
    try:
        with (replacing(path_name(wtb_path)) if whole else
              contextlib.nullcontext(path_name(wtb_path))) as target, \
                open(target, "wb") as handle:
            handle.write(bytes(HEADER.size))
            for number, record in enumerate(records, 1):
                game = _checked(record, number)
                if number == 1:
                    size = game.size
                if game.size != size or size not in MOVES or \
                        record.start != Reversi(size=size).position():
                    raise InvalidRecordError(f"record {number}: WTHOR holds games from the "
                                             f"standard start of one board size, 8x8 or 10x10")
                handle.write(_game_bytes(record, game, players, events, number))
                count = number
                played = ascii_int(record.headers.get("Date", "")[:4], 4)
                if played is not None and len(years) < 2:
                    years.add(played)
            year = years.pop() if len(years) == 1 else 0
            handle.seek(0)
            handle.write(HEADER.pack(today.year // 100, today.year % 100, today.month,
                                     today.day, count, 0, year, 0 if size == 8 else size,
                                     0, 0, 0))
    except BrettError:
        raise
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the name
        raise InvalidRecordError(f"cannot write {path_name(wtb_path)}: {exc}") from None
    for path, table, kind in ((jou, players, "jou"), (trn, events, "trn")):
        if path is not None:
            _write(path, _name_file(table, NAME_SIZE[kind], today), whole)
    return count


def _checked(record: Record, number: int) -> Reversi:
    if not isinstance(record, Record) or record.game_name != "reversi":
        raise InvalidRecordError(f"record {number}: WTHOR holds Reversi games only")
    check_strings(record, number)
    game = record.game()
    if not isinstance(game, Reversi):
        raise InvalidRecordError(f"record {number}: WTHOR holds Reversi games only")
    return game


def _game_bytes(record: Record, game: Reversi, players: dict[str, int],
                events: dict[str, int], number: int) -> bytes:
    size = game.size
    codes = []
    for move in game.move_stack:
        if move.square is not None:  # passes are left out
            codes.append(10 * (move.square // size + 1) + move.square % size + 1)
    black_discs = sum(1 for owner in game.piece_map().values() if owner == 0)
    white_discs = sum(1 for owner in game.piece_map().values() if owner == 1)
    empties = size * size - black_discs - white_discs
    if game.is_over() and empties:  # the recorded count gives the empties to the winner
        black_discs += empties if black_discs > white_discs else \
            empties // 2 if black_discs == white_discs else 0
    score = _byte(record.headers.get("BlackScore"), black_discs, "BlackScore", number)
    theory = _byte(record.headers.get("TheoreticalScore"), score, "TheoreticalScore", number)
    index = [players.setdefault(record.headers.get(key, "?"), len(players))
             for key in ("Black", "White")]
    event = events.setdefault(record.headers.get("Event", "?"), len(events))
    if max(*index, event) > 0xFFFF:
        raise InvalidRecordError(f"record {number}: more than 65,536 names in one table")
    return GAME.pack(event, index[0], index[1], score, theory) + \
        bytes(codes).ljust(MOVES[size], b"\0")


def _byte(text: Optional[str], default: int, what: str, number: int) -> int:
    if text is None:
        return default
    count = ascii_int(text, 3)
    if count is None or count > 255:
        raise InvalidRecordError(f"record {number}: {what} {text!r:.20} is not a disc count")
    return count


def _name_file(table: dict[str, int], width: int, today: datetime.date) -> bytes:
    header = HEADER.pack(today.year // 100, today.year % 100, today.month, today.day,
                         0, len(table), 0, 0, 0, 0, 0)
    names = sorted(table, key=table.__getitem__)
    return header + b"".join(name.encode("latin-1", "replace")[:width - 1].ljust(width, b"\0")
                             for name in names)


def _write(path: PathLike, data: bytes, whole: bool) -> None:
    try:
        if whole:
            write_atomic(path_name(path), data)
        else:
            with open(path, "wb") as handle:
                handle.write(data)
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the name
        raise InvalidRecordError(f"cannot write {path_name(path)}: {exc}") from None


__all__ = ["MAX_FILE", "read_wthor", "write_wthor"]
