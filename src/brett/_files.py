"""Writing files whole or not at all.

A file is written under a temporary name in its own directory and renamed over
the target only once it is complete (and, by default, on disk), so a reader, a
full disk, a crash or a killed process leaves the old file or the new one,
never a part of either.  A failed write removes the temporary file.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Union

PathLike = Union[str, "os.PathLike[str]"]

TEMPORARY_SUFFIX = ".brett-tmp"
"""The end of every temporary file's name (``.<name>.<random>.brett-tmp``)."""


@contextlib.contextmanager
def replacing(target: PathLike, sync: bool = True) -> Iterator[Path]:
    """A new, empty temporary file beside ``target`` for the block to write; when
    the block ends without an error it replaces ``target`` (after an ``fsync``
    unless ``sync`` is false), else it is removed.  The new file gets the
    permissions of the file it replaces, or the usual ones under the umask; a
    symbolic link stays one, to the new file."""
    target = Path(target)
    if target.is_symlink():
        target = Path(os.path.realpath(target))
    temporary = _new_temporary(target)
    try:
        yield temporary
        _finish(temporary, target, sync)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise


@contextlib.contextmanager
def written_whole(target: PathLike, sync: bool = True) -> Iterator[Path]:
    """:func:`replacing` for a file's path; a pipe, a device or anything else that is
    there and is not a regular file (``/dev/stdout``) is written in place."""
    path = Path(target)
    try:
        special = path.exists() and not path.is_file()   # a link: what it points to
    except (OSError, ValueError):   # ValueError: a NUL in the name (replacing says so)
        special = False
    if special:
        yield path
        return
    with replacing(path, sync) as temporary:
        yield temporary


def write_atomic(target: PathLike, data: Union[bytes, str], sync: bool = True) -> None:
    """Write ``data`` (text as UTF-8) to ``target`` whole or not at all."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    with replacing(target, sync) as temporary:
        temporary.write_bytes(raw)


def _new_temporary(target: Path) -> Path:
    # Created here (O_EXCL: never someone else's file) with mode 0o666, so the
    # umask applies as for any new file; mkstemp would make it private (0o600).
    for _ in range(100):
        candidate = target.with_name(f".{target.name[:100]}.{secrets.token_hex(4)}"
                                     f"{TEMPORARY_SUFFIX}")
        try:
            os.close(os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except FileExistsError:
            continue
        return candidate
    raise FileExistsError(f"no free temporary name beside {target}")  # pragma: no cover


def _finish(temporary: Path, target: Path, sync: bool) -> None:
    with contextlib.suppress(OSError):  # a new file, or one we may not read: keep the default
        os.chmod(temporary, os.stat(target).st_mode & 0o7777)
    if sync:
        fd = os.open(temporary, os.O_RDWR | getattr(os, "O_BINARY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    os.replace(temporary, target)
    if sync:
        sync_directory(target.parent)


def sync_directory(folder: Path) -> None:
    """Put a rename in ``folder`` on disk (POSIX; Windows has no directory handles)."""
    if os.name != "posix":  # pragma: no cover - Windows
        return
    with contextlib.suppress(OSError):  # some file systems refuse; the data is safe anyway
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


__all__ = ["TEMPORARY_SUFFIX", "replacing", "sync_directory", "write_atomic", "written_whole"]
