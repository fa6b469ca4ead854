"""Faults of the environment as users of the ``brett`` command meet them: a full
disk, a read-only folder.  Each test drives the command as a subprocess.

A full disk is simulated with ``RLIMIT_FSIZE``: past the limit a write stores
what fits and then fails (``EFBIG`` once ``SIGXFSZ`` is ignored), as a write to
a full disk stores what fits and fails with ``ENOSPC``; it needs no root and no
special file system.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import brett
from brett.formats import read_records, write_records
from brett.record import Record
from test_cli import brett_cli

posix = pytest.mark.skipif(
    os.name != "posix", reason="RLIMIT_FSIZE and read-only folders are POSIX: NOT TESTED "
                               "on this platform")


# ------------------------------------------------------------------ helpers
def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "brett", *args]


# ------------------------------------------------------------------ a full disk
def _file_size_limit(limit: int) -> Callable[[], None]:
    def limit_file_size() -> None:  # runs in the child, before brett starts
        import resource

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past it fails instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return limit_file_size


def _on_a_full_disk(limit: int, *args: str) -> subprocess.CompletedProcess[str]:
    """The command, no file of it able to grow past ``limit`` bytes."""
    return subprocess.run(_command(*args), capture_output=True, text=True, timeout=300,
                          preexec_fn=_file_size_limit(limit))


def _records(folder: Path, games: int = 20) -> Path:
    records = []
    for seed in range(games):
        game = brett.Reversi()
        game.random_playout(seed=seed)
        records.append(Record.from_game(game, Black="ann", White="bob", Event="open"))
    source = folder / "games.json"
    write_records(records, source)
    return source


@posix
@pytest.mark.parametrize("target", ["out.sgf", "out.json", "out.wtb"])
def test_a_full_disk_leaves_the_old_output_whole(tmp_path: Path, target: str) -> None:
    """``brett convert`` onto an existing file on a full disk used to leave it
    truncated: the old file now stays as it was, and no temporary file is left."""
    source = _records(tmp_path)
    output = tmp_path / target
    output.write_bytes(b"the old file")
    before = sorted(tmp_path.iterdir())
    full = _on_a_full_disk(700, "convert", str(source), str(output))
    assert full.returncode == 2 and full.stdout == ""
    assert full.stderr.startswith(f"brett: error: cannot write {output}: ")
    assert "Traceback" not in full.stderr and ".brett-tmp" not in full.stderr
    assert output.read_bytes() == b"the old file" and sorted(tmp_path.iterdir()) == before
    done = brett_cli("convert", str(source), str(output))
    assert done.returncode == 0
    assert [r.game() for r in read_records(output)] == [r.game() for r in read_records(source)]


@posix
def test_a_full_disk_leaves_no_partial_picture(tmp_path: Path) -> None:
    source = _records(tmp_path, 1)
    folder = tmp_path / "pictures"
    full = _on_a_full_disk(4000, "replay", str(source), "--svg", str(folder))
    assert full.returncode == 2 and full.stdout == "" and "Traceback" not in full.stderr
    assert full.stderr.startswith(f"brett: error: cannot write {folder / 'game1-000.svg'}: ")
    assert list(folder.iterdir()) == []  # a picture is whole or absent
    done = brett_cli("replay", str(source), "--svg", str(folder))
    pictures = sorted(folder.iterdir())
    assert done.returncode == 0 and len(pictures) > 20
    assert all(p.read_text().rstrip().endswith("</svg>") for p in pictures)


# ------------------------------------------------------------------ read-only
def _writable(folder: Path) -> bool:
    probe = folder / ".brett-probe"
    try:
        probe.write_bytes(b"")
    except OSError:
        return False
    probe.unlink()
    return True


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[Path]:
    """A folder nobody may write to: a read-only one, or for root (whom
    permissions do not stop) Linux's /sys."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        if not _writable(folder):
            yield folder
        elif Path("/sys").is_dir() and not _writable(Path("/sys")):
            yield Path("/sys")
        else:  # pragma: no cover - root, and no /sys
            pytest.skip("NOT TESTED: running as root with no read-only folder at hand")
    finally:
        folder.chmod(0o755)


@posix
@pytest.mark.parametrize("command", ["convert", "replay --svg"])
def test_a_read_only_folder_is_a_clear_error(tmp_path: Path, read_only: Path,
                                             command: str) -> None:
    source = _records(tmp_path, 1)
    args = {"convert": ["convert", str(source), str(read_only / "out.sgf")],
            "replay --svg": ["replay", str(source), "--svg", str(read_only)]}[command]
    result = brett_cli(*args)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("brett: error: ") and "Traceback" not in result.stderr
    assert len(result.stderr.splitlines()) == 1 and str(read_only) in result.stderr
