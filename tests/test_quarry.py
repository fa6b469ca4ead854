"""Quarry, the GTK frontend, plays a whole game of ``brett gtp`` against GRhino's
``gtp-rhino`` on a virtual X display (Xvfb), driven by xdotool as a person would
drive it; the test reads the final board off a screenshot (ImageMagick's
``import``), saves the game from Quarry's menu and replays Quarry's SGF in brett.
The other way round, Quarry opens games brett wrote (``quarry game.sgf``) and its
screen shows brett's final board.

Quarry keeps its engines in ``~/.quarry`` (a section per engine, named by the
engine's ``name`` and ``version`` answers, and the engines of a new game under
``[New Game Parameters]``): the test writes one in a temporary HOME.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import brett
from brett.records import Record, read, write
from peers import peer

GRID = bytes((0xCC, 0xEE, 0xBB))      # Quarry's Reversi grid colour (set in the config)
GAME_SECONDS = 300


def quarry_config(rhino: str) -> str:
    brett_name = f"brett {brett.__version__}"
    return f'''# Quarry configuration written by brett's tests
[GTP Engine "{brett_name}"]
Screen name format\t= "%n %v"
Name\t\t\t= "brett"
Version\t\t\t= "{brett.__version__}"
Command line\t\t= "{sys.executable} -m brett gtp --level 3"
Supported games\t\t= "Reversi"

[GTP Engine "GTP GRhino 0.16.1"]
Screen name format\t= "%n %v"
Name\t\t\t= "GTP GRhino"
Version\t\t\t= "0.16.1"
Command line\t\t= "{rhino} --level 1"
Supported games\t\t= "Reversi"

[Reversi Board Appearance]
Use background texture\t= false
Background color\t= "#087834"
Grid and labels color\t= "#cceebb"

[New Game Parameters]
Game\t\t\t= "Reversi"
White player name\t= "w"
White is computer\t= true
Engine playing white\t= "GTP GRhino 0.16.1"
Black player name\t= "b"
Black is computer\t= true
Engine playing black\t= "{brett_name}"

[New Reversi Game Parameters]
Board size\t\t= 8
Time control type\t= 1
Time limit for game\t= 01:00
'''


class Display:
    """An Xvfb server on a free display, and the tools that act on it.  Every tool
    is found first (a missing one skips the test with nothing started)."""

    def __init__(self, folder: Path) -> None:
        xvfb, self.xdotool, self.importer = peer("Xvfb"), peer("xdotool"), peer("import")
        read, write = os.pipe()
        try:
            self.server = subprocess.Popen([xvfb, "-displayfd", str(write), "-screen", "0",
                                            "1280x1024x24", "-nolisten", "tcp"],
                                           pass_fds=[write], stderr=subprocess.DEVNULL)
        finally:
            os.close(write)
        try:
            with os.fdopen(read) as pipe:
                self.name = f":{pipe.readline().strip()}"
        except BaseException:
            self.close()
            raise
        self.env = {**os.environ, "DISPLAY": self.name, "HOME": str(folder)}

    def tool(self, *args: str, timeout: float = 60) -> str:
        return subprocess.run([self.xdotool, *args], env=self.env, capture_output=True,
                              text=True, timeout=timeout).stdout

    def window(self, pattern: str, timeout: float = 120) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.tool("search", "--name", pattern).split()
            if found:
                return found[-1]
            time.sleep(0.2)
        raise AssertionError(f"no window {pattern!r} on {self.name}")

    def keys(self, window: str, *keys: str) -> None:
        """Keys to a window (no window manager: the focus is given by hand)."""
        self.tool("windowfocus", "--sync", window)
        self.tool("key", "--delay", "50", *keys)

    def type(self, window: str, text: str) -> None:
        self.tool("windowfocus", "--sync", window)
        self.tool("type", "--delay", "20", text)

    def screenshot(self, path: Path | None = None) -> tuple[int, int, bytes]:
        """The screen as raw RGB (and as a PNG at ``path``)."""
        raw = subprocess.run([self.importer, "-window", "root", "-depth", "8", "ppm:-"],
                             env=self.env, capture_output=True, check=True, timeout=60).stdout
        if path is not None:
            subprocess.run([self.importer, "-window", "root", str(path)], env=self.env,
                           check=True, timeout=60)
        header = re.match(rb"P6\s+(\d+)\s+(\d+)\s+255\s", raw)
        assert header, raw[:20]
        return int(header[1]), int(header[2]), raw[header.end():]

    def close(self) -> None:
        self.server.kill()
        self.server.wait()


@contextlib.contextmanager
def quarry_on_a_display(home: Path, *args: str) -> Iterator[tuple[Display, Any]]:
    """Quarry started with ``args`` on a fresh Xvfb display, ``home`` its HOME and
    working folder; at the end it is killed if it still runs, and the display closed."""
    display = Display(home)
    try:
        app = subprocess.Popen([peer("quarry"), *args], env=display.env, cwd=home,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except BaseException:
        display.close()
        raise
    try:
        yield display, app
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()
        display.close()


def _lines(counts: list[int]) -> list[float]:
    """The middles of runs of indices whose count is near the largest."""
    top = max(counts)
    runs: list[list[int]] = []
    for i, count in enumerate(counts):
        if top and count >= 0.6 * top:
            if runs and i - runs[-1][-1] <= 2:
                runs[-1].append(i)
            else:
                runs.append([i])
    return [sum(run) / len(run) for run in runs]


def board_on_screen(width: int, height: int, pixels: bytes, size: int = 8) -> dict[str, int]:
    """The discs Quarry shows on its ``size`` x ``size`` board: grid lines in the
    grid colour, each cell's colour sampled off its centre (the last move's mark
    is a cross at the centre)."""
    rows = [pixels[y * width * 3:(y + 1) * width * 3] for y in range(height)]
    ys = _lines([_count(row) for row in rows])
    assert len(ys) == size + 1, f"no board on the screen: {ys}"
    y0 = int(ys[0]) + 3   # just under the top line: the cells' edges, no disc
    xs = _lines([int(rows[y0][x * 3:x * 3 + 3] == GRID) for x in range(width)])
    assert len(xs) == len(ys) == size + 1, (xs, ys)
    board = {}
    for r in range(size):
        for c in range(size):
            x = int(xs[c] + 0.7 * (xs[c + 1] - xs[c]))
            y = int(ys[r] + 0.7 * (ys[r + 1] - ys[r]))
            red, green, _ = (sum(rows[y + dy][(x + dx) * 3 + k] for dy in (-1, 0, 1)
                                 for dx in (-1, 0, 1)) // 9 for k in range(3))
            if green > red + 40:
                continue                       # the green board: empty
            board[f"{'abcdefghijklmnop'[c]}{r + 1}"] = 0 if red < 128 else 1
    return board


def _count(row: bytes) -> int:
    return sum(1 for x in range(0, len(row), 3) if row[x:x + 3] == GRID) if GRID in row else 0


def wait_for_the_end(display: Display) -> dict[str, int]:
    """The board on screen once it shows a finished game, twice in a row."""
    deadline = time.monotonic() + GAME_SECONDS
    last: Any = None
    while time.monotonic() < deadline:
        try:
            board = board_on_screen(*display.screenshot())
        except AssertionError:     # the board is not drawn yet
            board = None
        if board is not None and board == last and _over(board):
            return board
        last = board
        time.sleep(1.0)
    raise AssertionError(f"the game did not end in {GAME_SECONDS} s: {last}")


def _over(board: dict[str, int]) -> bool:
    rows = ["".join("xo"[board[f"{f}{r}"]] if f"{f}{r}" in board else "-"
                    for f in "abcdefgh") for r in range(1, 9)]
    return brett.Reversi.from_position("/".join(rows) + " x").is_over()


def test_quarry_plays_brett_against_gtp_rhino(tmp_path: Path) -> None:
    (tmp_path / ".quarry").write_text(quarry_config(peer("gtp-rhino")))
    with quarry_on_a_display(tmp_path, f"--gtp-log={tmp_path}/gtp") as (display, app):
        display.keys(display.window("^Quarry Control Center$"), "alt+n")    # New Game
        new_game = display.window("^New Game$")
        display.keys(new_game, "alt+f")                                     # Forward
        display.keys(new_game, "alt+p")                                     # Play
        board = wait_for_the_end(display)
        display.screenshot(tmp_path / "quarry.png")
        game_window = display.window(r" vs\. ")
        display.keys(game_window, "ctrl+shift+s")                           # Save As
        dialog = display.window("^Save As")
        saved = tmp_path / "game.sgf"
        display.keys(dialog, "ctrl+a")
        display.type(dialog, str(saved))
        display.keys(dialog, "Return")
        deadline = time.monotonic() + 60
        while not saved.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        display.keys(game_window, "ctrl+q")
        app.wait(60)
    # Quarry's own SGF (two-letter points, forced passes left out) read by brett
    [record] = read(saved)
    game = record.game()
    headers = record.headers
    assert record.game_name == "reversi" and game.size == 8
    assert headers["Black"] == f"brett {brett.__version__}"
    assert headers["White"] == "GTP GRhino 0.16.1"
    assert game.is_over()
    assert board == game.piece_map()          # the screen shows the game Quarry saved
    black, white = game.discs()
    assert headers["Result"] == ("0" if black == white else
                                 f"{'B' if black > white else 'W'}+{abs(black - white)}")
    assert record.check_result() == []
    replayed = subprocess.run([sys.executable, "-m", "brett", "replay", str(saved)],
                              capture_output=True, text=True, timeout=120)
    assert replayed.returncode == 0, replayed.stderr
    assert str(game) in replayed.stdout and "game over" in replayed.stdout
    # Quarry's log of its dialogue with brett (written when Quarry quits)
    logs = [p.read_text() for p in tmp_path.glob("gtp.*")]
    [log] = [text for text in logs if "= brett" in text]
    assert "> time_settings 60 0 0" in log and "> time_left black " in log
    assert "> genmove black" in log and not re.search(r"^\s*\?", log, re.MULTILINE)


def _with_a_pass() -> brett.Reversi:
    """The first seeded whole 8x8 game with a (forced) pass in it."""
    for seed in range(200):
        game = brett.Reversi()
        game.random_playout(seed=seed)
        if any(move.is_pass for move in game.move_stack):
            return game
    raise AssertionError("no game with a pass in 200 seeds")


def _partial_10x10() -> brett.Reversi:
    """30 moves of a 10x10 game (Quarry's other Reversi size): rows up to ``j``."""
    game = brett.Reversi(size=10)
    game.random_playout(seed=1, max_plies=30)
    return game


APPEARANCE = """# Quarry configuration written by brett's tests
[Reversi Board Appearance]
Use background texture\t= false
Background color\t= "#087834"
Grid and labels color\t= "#cceebb"
"""


def board_shown(display: Display, size: int, expected: dict[str, int]) -> dict[str, int]:
    """The board on screen as soon as it is ``expected``, else the last board read
    twice alike in 30 s (Quarry may take a moment to draw or to follow a key)."""
    deadline = time.monotonic() + 30
    last: Any = None
    steady: Any = None
    while time.monotonic() < deadline:
        try:
            board = board_on_screen(*display.screenshot(), size=size)
        except AssertionError:     # the board is not drawn yet
            board = None
        if board == expected:
            return board
        steady = board if board is not None and board == last else steady
        last = board
        time.sleep(0.5)
    assert steady is not None, f"no {size}x{size} board on the screen: {last}"
    return dict(steady)


@pytest.mark.parametrize("make", [_with_a_pass, _partial_10x10],
                         ids=["whole-8x8-with-passes", "partial-10x10"])
def test_quarry_opens_a_game_brett_wrote(tmp_path: Path, make: Any) -> None:
    """brett writes a game (``brett convert`` from JSON to SGF: two-letter points,
    passes as ``B[]``); ``quarry game.sgf`` opens it at the start, and at the last
    node (Go, Variation Last Node: Alt+End) its screen shows brett's final board,
    square by square (the screenshot stays as ``quarry-opens-8x8.png`` or
    ``quarry-opens-10x10.png``)."""
    game = make()
    size = game.size
    start = brett.Reversi(size=size).piece_map()
    final = game.piece_map()
    assert final != start
    source, sgf = tmp_path / "game.json", tmp_path / "game.sgf"
    write([Record.from_game(game, Black="brett black", White="brett white")], source)
    converted = subprocess.run([sys.executable, "-m", "brett", "convert", str(source), str(sgf)],
                               capture_output=True, text=True, timeout=120)
    assert converted.returncode == 0, converted.stderr
    text = sgf.read_text()
    assert f"GM[2]SZ[{size}]" in text and not re.search(r"[BW]\[[a-z][0-9]", text)
    assert ("B[]" in text or "W[]" in text) == any(m.is_pass for m in game.move_stack)
    (tmp_path / ".quarry").write_text(APPEARANCE)
    with quarry_on_a_display(tmp_path, str(sgf)) as (display, app):
        window = display.window(r"brett white .* vs\. brett black .*game\.sgf")
        assert board_shown(display, size, start) == start      # opened at the root
        display.keys(window, "alt+End")                         # Variation Last Node
        shown = board_shown(display, size, final)
        display.screenshot(tmp_path / f"quarry-opens-{size}x{size}.png")
        display.keys(window, "ctrl+q")
        app.wait(30)
    wrong = sorted(square for square in {*shown, *final}
                   if shown.get(square) != final.get(square))
    assert shown == final, f"Quarry shows {len(wrong)} squares unlike brett's: {wrong}"


def test_a_missing_tool_starts_no_display(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Display finds every tool before it starts Xvfb: a skip for a missing
    xdotool leaves no X server running."""
    started: list[Any] = []

    def only_xvfb(name: str) -> str:
        if name == "xdotool":
            pytest.skip("xdotool missing (this test's pretence)")
        return f"/usr/bin/{name}"

    monkeypatch.setattr(sys.modules[__name__], "peer", only_xvfb)
    monkeypatch.setattr(subprocess, "Popen", lambda *args, **kwargs: started.append(args))
    with pytest.raises(pytest.skip.Exception):
        Display(tmp_path)
    assert started == []
