"""SVG pictures of brett games, for Jupyter (``Game._repr_svg_``) and web frontends.

>>> import brett
>>> brett.svg(brett.Reversi()).startswith("<svg")
True

:func:`svg` returns a standalone SVG document: no external resources, no
scripts, only the standard library.  The drawn elements carry classes a
stylesheet or a test can select: ``disc``, ``hole``, ``cut``, ``last-move``
(Reversi); ``square``, ``layer``, ``height`` (Focus); ``man``, ``ball``,
``goal-line``, ``end-zone``, ``path`` (Phutball); ``tongue``, ``piece``,
``goal-track``, ``goal-field``, ``goal-piece`` (Schuft); ``coord`` and
``caption`` text everywhere.  Every square, point, tongue, goal field and out
area is a ``<g class="cell" data-square="NAME">`` around what is drawn on it, so
a frontend maps a click to a square with ``closest("[data-square]")``; the
options of :func:`svg` add ``highlight``, ``last-move``, ``target`` and ``arrow``
marks (the marks above the board let clicks through).
"""

from __future__ import annotations

import html
import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ._checks import as_int, ascii_digits
from .errors import BrettError
from .game import Game

# Player colours r, g, b, y (Focus and Schuft).
COLOURS = ("#d62728", "#2ca02c", "#1f77b4", "#f2c80f")
_NAMES = ("red", "green", "blue", "yellow")


def svg(game: Game[Any], size: int = 400, *, highlight: Iterable[str] = (),
        last_move: Any = None, targets: Iterable[str] = (), arrows: Iterable[Any] = (),
        orientation: int | str = 0, coordinates: bool = True) -> str:
    """The game's position as an SVG document string: the board fits in about
    ``size`` x ``size`` pixels (50 to 4000), a caption of a few lines goes below it.
    Only the public API of the game is read (``piece_map`` and friends).

    ``highlight`` and ``targets`` name squares (points, tongues, fields) to mark;
    ``last_move`` is a move, its notation, True (the game's last move), False
    (none) or None (the game's usual mark: Reversi's dot, Phutball's last path);
    ``arrows`` holds ``(from, to)`` pairs, longer paths of names, moves or
    notation; ``orientation`` 1 (or the second player's colour) turns the board
    half round; ``coordinates=False`` leaves the labels out.  Every square is a
    ``<g class="cell" data-square="...">`` around what is drawn on it."""
    if not isinstance(game, Game) or game.game_name not in _RENDERERS:
        raise BrettError(f"cannot draw {game!r:.60}: not a brett game")
    size = as_int(size, "size", 50, 4000)
    opts = _Options.make(game, highlight, last_move, targets, arrows, orientation, coordinates)
    return _RENDERERS[game.game_name](game, size, opts)


# ------------------------------------------------------------------ options
_MAX_ITEMS = 10_000


def _items(value: Any, what: str) -> list[Any]:
    """A bounded list from an iterable option (a lone string is one item)."""
    if isinstance(value, str):
        return [value]
    try:
        items = list(itertools.islice(iter(value), _MAX_ITEMS + 1))
    except TypeError:
        raise BrettError(f"{what}={value!r:.60}: expected an iterable") from None
    if len(items) > _MAX_ITEMS:
        raise BrettError(f"{what}: more than {_MAX_ITEMS} items")
    return items


def _name(value: Any, names: set[str], what: str) -> str:
    if not isinstance(value, str) or value.strip().lower() not in names:
        raise BrettError(f"{what}: {value!r:.40} is not a square of this board")
    return value.strip().lower()


def _move(game: Any, value: Any, what: str) -> Any:
    """A move of ``game`` from a move object or its notation."""
    if isinstance(value, str):
        return game.parse_move(value)  # InvalidMoveError (a BrettError) if malformed
    if isinstance(value, game.Move) or _MOVES[game.game_name][2](value):
        return value
    raise BrettError(f"{what}={value!r:.60}: expected a move or its notation")


@dataclass
class _Options:
    """The validated keyword options of :func:`svg`, as square names."""

    names: set[str]
    highlight: set[str] = field(default_factory=set)
    targets: set[str] = field(default_factory=set)
    last: list[str] = field(default_factory=list)          # squares of the marked move
    last_paths: list[list[str]] = field(default_factory=list)  # its path (Phutball)
    usual_last: bool = True                                # last_move=None
    arrows: list[list[str]] = field(default_factory=list)
    flip: bool = False
    coordinates: bool = True
    geo: dict[str, tuple[float, float, float]] = field(default_factory=dict)

    @classmethod
    def make(cls, game: Any, highlight: Any, last_move: Any, targets: Any, arrows: Any,
             orientation: Any, coordinates: Any) -> _Options:
        names_of, squares_of, _ = _MOVES[game.game_name]
        names = set(names_of(game))
        opts = cls(names)
        opts.highlight = {_name(v, names, "highlight") for v in _items(highlight, "highlight")}
        opts.targets = {_name(v, names, "targets") for v in _items(targets, "targets")}
        if not isinstance(coordinates, bool):
            raise BrettError(f"coordinates={coordinates!r:.40}: expected True or False")
        opts.coordinates = coordinates
        opts.flip = _orientation(game, orientation) == 1
        if last_move is not None:
            opts.usual_last = False
            if last_move is True:  # the last move played (in Schuft: not a roll)
                last_move = next((m for m in reversed(game.move_stack)
                                  if isinstance(m, game.Move)), False)
            if last_move is not False:
                move = _move(game, last_move, "last_move")
                squares, paths = squares_of(game, move, _played(game, move))
                opts.last = [_name(v, names, "last_move") for v in squares]
                opts.last_paths = [[_name(v, names, "last_move") for v in p] for p in paths]
        for item in _items(arrows, "arrows"):
            if isinstance(item, (tuple, list)):
                if not 2 <= len(item) <= 100:
                    raise BrettError(f"arrows: {item!r:.60} is not a (from, to) pair or path")
                opts.arrows.append([_name(v, names, "arrows") for v in item])
                continue
            move = _move(game, item, "arrows")
            for path in squares_of(game, move, _played(game, move))[1]:
                opts.arrows.append([_name(v, names, "arrows") for v in path])
        return opts

    def cell(self, name: str, cx: float, cy: float, half: float) -> str:
        """Opens a square's group and notes its centre for the marks drawn on top."""
        self.geo[name] = (cx, cy, half)
        return f'<g class="cell" data-square="{html.escape(name)}">'

    def lit(self, name: str, shape: str, **attrs: Any) -> list[str]:
        """The highlight of one square (drawn under its pieces), or nothing."""
        if name not in self.highlight:
            return []
        return [_el(shape, "highlight", fill="#ffd43b", fill_opacity="0.55", **attrs)]

    def overlay(self, reversi_dot: bool = False) -> list[str]:
        """Last-move marks, targets and arrows, on top of everything; they let
        clicks through to the squares below."""
        body = ['<g class="marks" pointer-events="none">']
        for name in self.last:
            cx, cy, half = self.geo[name]
            if reversi_dot:
                body.append(_el("circle", "last-move", cx=cx, cy=cy, r=half * 0.2,
                                fill="#e03030"))
            else:
                body.append(_el("circle", "last-move", cx=cx, cy=cy, r=half * 0.9,
                                fill="none", stroke="#e03030",
                                stroke_width=max(half * 0.12, 1.5)))
        for name in sorted(self.targets):
            cx, cy, half = self.geo[name]
            body.append(_el("circle", "target", cx=cx, cy=cy, r=half * 0.3,
                            fill="#1c7ed6", fill_opacity="0.7"))
        for path in self.arrows:
            body += _arrow([self.geo[n][:2] for n in path], self.geo[path[-1]][2])
        body.append("</g>")
        return body if len(body) > 2 else []


def _orientation(game: Any, value: Any) -> int:
    if isinstance(value, str):
        for player in (0, 1):
            word = game.player_name(player).split()[0].lower()
            if word != "player" and value.strip().lower() == word:
                return player
        raise BrettError(f"orientation={value!r:.40}: expected 0, 1 or a first word of "
                         f"{game.player_name(0)!r} or {game.player_name(1)!r}")
    return as_int(value, "orientation", 0, 1)


def _played(game: Any, move: Any) -> int:
    """How many moves to take back to undo ``move`` (its latest time played), or 0."""
    for back, played in enumerate(reversed(game.move_stack), 1):
        if played == move:
            return back
    return 0


def _arrow(points: list[tuple[float, float]], half: float) -> list[str]:
    """A shaft through ``points`` and a head whose tip is the last point."""
    (x0, y0), (x1, y1) = points[-2], points[-1]
    length = max(((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5, 1e-9)
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    head = min(half * 0.9, length * 0.6)
    bx, by = x1 - ux * head, y1 - uy * head
    wing = head * 0.55
    shaft = [*points[:-1], (bx, by)]
    tip = [(x1, y1), (bx - uy * wing, by + ux * wing), (bx + uy * wing, by - ux * wing)]
    return ['<g class="arrow" fill="#e8590c" stroke="#e8590c" opacity="0.8">',
            _el("polyline", "arrow-shaft", fill="none", stroke_width=max(half * 0.22, 1.5),
                stroke_linejoin="round",
                points=" ".join(f"{_n(x)},{_n(y)}" for x, y in shaft)),
            _el("polygon", "arrow-head", stroke="none",
                points=" ".join(f"{_n(x)},{_n(y)}" for x, y in tip)),
            "</g>"]


# ------------------------------------------------------------------ helpers
def _n(x: float) -> str:
    """A coordinate with at most two decimals."""
    return f"{x:.2f}".rstrip("0").rstrip(".")


def _el(tag: str, cls: str = "", **attrs: Any) -> str:
    """One empty element; ``stroke_width`` becomes ``stroke-width``."""
    parts = [f'<{tag}']
    if cls:
        parts.append(f' class="{cls}"')
    for key, value in attrs.items():
        if isinstance(value, float):
            value = _n(value)
        parts.append(f' {key.replace("_", "-")}="{html.escape(str(value))}"')
    return "".join(parts) + "/>"


def _text(x: float, y: float, text: str, cls: str, font: float, anchor: str = "middle",
          **attrs: Any) -> str:
    extra = "".join(f' {k.replace("_", "-")}="{html.escape(str(v))}"' for k, v in attrs.items())
    return (f'<text class="{cls}" x="{_n(x)}" y="{_n(y)}" font-size="{_n(font)}" '
            f'text-anchor="{anchor}" dominant-baseline="central"{extra}>'
            f"{html.escape(text)}</text>")


def _document(width: float, height: float, title: str, body: list[str]) -> str:
    w, h = _n(width), _n(height)
    return "\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        f'viewBox="0 0 {w} {h}" font-family="sans-serif">',
        f"<title>{html.escape(title)}</title>",
        _el("rect", "background", x=0, y=0, width=w, height=h, fill="#ffffff"),
        *body,
        "</svg>",
    ])


def _captions(lines: list[str], y: float, width: float, font: float) -> list[str]:
    """Centred lines from ``y`` down; the font shrinks until the longest line fits."""
    fit = min(font, 1.7 * width / max(len(line) for line in lines))
    return [_text(width / 2, y + i * font * 1.35, line, "caption", fit)
            for i, line in enumerate(lines)]


# ------------------------------------------------------------------ Reversi
def _reversi_names(game: Any) -> list[str]:
    return list(game.squares)


def _reversi_squares(game: Any, move: Any, played: int) -> tuple[list[str], list[list[str]]]:
    return ([] if move.is_pass else [str(move)]), []


def _reversi(game: Any, size: int, opts: _Options) -> str:
    from .reversi import OCTAGON_CUTS

    n = game.size
    discs = game.piece_map()
    holes = set(game.holes)
    cuts = set(OCTAGON_CUTS) if game.board == "octagon" else set()
    files = "abcdefghijklmnop"
    cell = size / (n + 1.3)
    m = cell  # margin for the coordinates (top and left)
    font = max(cell * 0.4, 9.0)
    width = m + n * cell + cell * 0.3
    board_end = m + n * cell
    body = []
    if opts.usual_last and game.move_stack and str(game.peek()) in opts.names:
        opts.last = [str(game.peek())]

    def screen(i: int) -> int:
        return n - 1 - i if opts.flip else i

    for sq in range(n * n):
        row, col = divmod(sq, n)
        x, y = m + screen(col) * cell, m + screen(row) * cell
        name = f"{files[col]}{row + 1}"
        if name in holes:
            body.append(_el("rect", "hole", x=x, y=y, width=cell, height=cell,
                            fill="#555555", stroke="#1b3d2a", stroke_width=1.0))
            continue
        if name in cuts:  # not part of the octagon board: left blank
            body.append(_el("rect", "cut", x=x, y=y, width=cell, height=cell, fill="none"))
            continue
        cx, cy = x + cell / 2, y + cell / 2
        body.append(opts.cell(name, cx, cy, cell / 2))
        body.append(_el("rect", "square", x=x, y=y, width=cell, height=cell,
                        fill="#2e8b57", stroke="#1b3d2a", stroke_width=1.0))
        body += opts.lit(name, "rect", x=x, y=y, width=cell, height=cell)
        if name in discs:
            colour = "black" if discs[name] == 0 else "white"
            body.append(_el("circle", f"disc {colour}", cx=cx, cy=cy, r=cell * 0.4,
                            fill="#111111" if colour == "black" else "#f8f8f8",
                            stroke="#111111", stroke_width=1.0))
        body.append("</g>")
    body += opts.overlay(reversi_dot=True)
    if opts.coordinates:
        for i in range(n):
            body.append(_text(m + (i + 0.5) * cell, m / 2, files[screen(i)], "coord", font))
            body.append(_text(m / 2, m + (i + 0.5) * cell, str(screen(i) + 1), "coord", font))
    b, w = game.discs()
    outcome = game.outcome()
    if outcome is not None:
        result = "draw" if outcome.is_draw else ("Black" if outcome.winner == 0 else "White") \
            + " wins"
        status = f"game over, {result}: Black {b}, White {w}"
    else:
        status = f"{'Black' if game.turn == 0 else 'White'} to move: Black {b}, White {w}"
    if game.anti:
        status = f"anti-Reversi (fewer discs win): {status}"
    body += _captions([status], board_end + font * 1.2, width, font)
    return _document(width, board_end + font * 2.2, f"Reversi {game.position()}", body)


# ------------------------------------------------------------------ Focus
def _focus_names(game: Any) -> list[str]:
    return list(game.squares)


def _focus_squares(game: Any, move: Any, played: int) -> tuple[list[str], list[list[str]]]:
    if move.source is None:
        return [move.target], []
    return [move.source, move.target], [[move.source, move.target]]


def _focus(game: Any, size: int, opts: _Options) -> str:
    cell = size / 8.8
    m = cell * 0.6
    font = max(cell * 0.28, 9.0)
    board_end = m + 8 * cell
    width = board_end + cell * 0.2
    body = []
    playable = {("abcdefgh".index(name[0]), int(name[1]) - 1): name for name in game.squares}
    stacks = game.piece_map()

    def screen(i: int) -> int:
        return 7 - i if opts.flip else i

    for y in range(8):
        for x in range(8):
            sx, sy = m + screen(x) * cell, m + (7 - screen(y)) * cell
            if (x, y) not in playable:
                body.append(_el("rect", "cut", x=sx, y=sy, width=cell, height=cell,
                                fill="#ffffff"))
                continue
            name = playable[(x, y)]
            body.append(opts.cell(name, sx + cell / 2, sy + cell / 2, cell / 2))
            light = (x + y) % 2
            body.append(_el("rect", f"square {'light' if light else 'dark'}", x=sx, y=sy,
                            width=cell, height=cell, fill="#e8d2a6" if light else "#d9bd85",
                            stroke="#8a6d3b", stroke_width=1.0))
            body += opts.lit(name, "rect", x=sx, y=sy, width=cell, height=cell)
            stack = "".join("rgby"[c] for c in stacks.get(name, ()))
            if stack:
                body.append('<g class="stack">')
                layer_h = cell * 0.15
                for level, letter in enumerate(stack):  # bottom -> top
                    body.append(_el("rect", f"layer {letter}", x=sx + cell * 0.1,
                                    y=sy + cell * 0.93 - (level + 1) * layer_h,
                                    width=cell * 0.66, height=layer_h * 0.88,
                                    rx=layer_h * 0.3, fill=COLOURS["rgby".index(letter)],
                                    stroke="#222222", stroke_width=0.8))
                body.append(_text(sx + cell * 0.88, sy + cell * 0.17, str(len(stack)),
                                  "height", font * 0.85))
                body.append("</g>")
            body.append("</g>")
    body += opts.overlay()
    if opts.coordinates:
        for i in range(8):
            body.append(_text(m + (i + 0.5) * cell, m / 2, "abcdefgh"[screen(i)], "coord",
                              font))
            body.append(_text(m / 2, m + (7.5 - i) * cell, str(screen(i) + 1), "coord", font))
    players = game.num_players()
    letters = "rgby"[:players]
    outcome = game.outcome()
    if outcome is None:
        status = f"ply {game.ply}: {_NAMES[game.current_player()]} to move"
    elif outcome.is_draw:
        status = f"game over, draw ({outcome.reason})"
    else:
        status = "game over, " + " and ".join(_NAMES[p] for p in outcome.winners) + " won"
    captured = game.captured()
    lines = [status,
             "reserves " + ", ".join(f"{c} {r}" for c, r in zip(letters, game.reserves(),
                                                                   strict=True)),
             "captured " + ", ".join(
                 f"{letters[p]}: " + (" ".join(f"{letters[c]}{k}" for c, k
                                               in enumerate(captured[p]) if k) or "-")
                 for p in range(players))]
    body += _captions(lines, board_end + font * 1.4, width, font)
    return _document(width, board_end + font * (1.6 + 1.35 * len(lines)),
                     f"Focus {game.position()}", body)


# ------------------------------------------------------------------ Phutball
def _phutball_names(game: Any) -> list[str]:
    """The points, and those beyond the goal lines where a jump can end."""
    from .phutball import LETTERS

    beyond = [f"{LETTERS[c]}{r}" for r in (0, game.rows + 1) for c in range(game.columns)]
    return [*game.points, *beyond]


def _phutball_squares(game: Any, move: Any, played: int) -> tuple[list[str], list[list[str]]]:
    return list(move.points), ([list(move.points)] if move.is_jump else [])


def _phutball(game: Any, size: int, opts: _Options) -> str:
    from .phutball import LETTERS

    cols, rows = game.columns, game.rows
    pieces = game.piece_map()
    s = size / max(cols + 1, rows + 4)
    font = max(s * 0.45, 8.0)
    width = (cols + 1) * s

    def x(col: int) -> float:
        return (cols - col if opts.flip else col + 1) * s

    def y(row: int) -> float:
        return (row if opts.flip else rows + 1 - row) * s + 1.2 * s

    def band(row: int, height: int, cls: str, fill: str) -> str:
        """The board's full width from ``row`` over ``height`` rows."""
        top = min(y(row), y(row + height - 1)) - s / 2
        return _el("rect", cls, x=s / 2, y=top, width=cols * s, height=height * s, fill=fill)

    body = [band(rows + 1, 1, "end-zone", "#fde3c8"), band(0, 1, "end-zone", "#cfe2f7"),
            band(1, rows, "board", "#e6c27a")]
    for r in range(1, rows + 1):
        body.append(_el("line", "grid", x1=x(0), y1=y(r), x2=x(cols - 1), y2=y(r),
                        stroke="#5b4522", stroke_width=1.0))
    for c in range(cols):
        body.append(_el("line", "grid", x1=x(c), y1=y(1), x2=x(c), y2=y(rows),
                        stroke="#5b4522", stroke_width=1.0))
    # The goal lines: player 0 attacks row `rows` (top), player 1 row 1 (bottom).
    for r, colour in ((rows, "#d9480f"), (1, "#1864ab")):
        body.append(_el("line", "goal-line", x1=x(0), y1=y(r), x2=x(cols - 1), y2=y(r),
                        stroke=colour, stroke_width=max(s * 0.12, 2.0)))

    def path(points: list[str], cls: str) -> str:
        line = " ".join(f"{_n(x(LETTERS.index(p[0])))},{_n(y(int(p[1:])))}" for p in points)
        return _el("polyline", cls, points=line, fill="none", stroke="#e03030",
                   stroke_width=max(s * 0.08, 1.5), stroke_dasharray=_n(s * 0.2),
                   pointer_events="none")

    pending = game.pending_move
    if pending is not None and pending.is_jump:  # the open path
        body.append(path(list(pending.points), "path"))
    elif opts.usual_last and game.move_stack and game.peek().is_jump:
        body.append(path(list(game.peek().points), "path last-move"))
    for points in opts.last_paths:
        body.append(path(points, "path last-move"))
    # Each point (and each beyond a goal line) is a group around a transparent
    # square that takes the clicks, with the man or the ball on it.
    for r in range(rows + 2):
        for c in range(cols):
            name = f"{LETTERS[c]}{r}"
            px, py = x(c), y(r)
            body.append(opts.cell(name, px, py, s / 2))
            body.append(_el("rect", "point", x=px - s / 2, y=py - s / 2, width=s, height=s,
                            fill="#000000", fill_opacity="0"))
            body += opts.lit(name, "circle", cx=px, cy=py, r=s * 0.48)
            if pieces.get(name) == "man":
                body.append(_el("circle", "man", cx=px, cy=py, r=s * 0.42, fill="#111111"))
            elif name == game.ball:
                body.append(_el("circle", "ball", cx=px, cy=py, r=s * 0.42, fill="#ffffff",
                                stroke="#111111", stroke_width=max(s * 0.08, 1.5),
                                data_point=name))
            body.append("</g>")

    body += opts.overlay()
    if opts.coordinates:
        top, bottom = min(y(0), y(rows + 1)), max(y(0), y(rows + 1))
        left, right = min(x(0), x(cols - 1)), max(x(0), x(cols - 1))
        for c in range(cols):
            body.append(_text(x(c), top - 0.85 * s, LETTERS[c], "coord", font))
            body.append(_text(x(c), bottom + 0.85 * s, LETTERS[c], "coord", font))
        for r in range(1, rows + 1):
            body.append(_text(left - 0.75 * s, y(r), str(r), "coord", font * 0.9))
            body.append(_text(right + 0.75 * s, y(r), str(r), "coord", font * 0.9))
    status = str(game).splitlines()[-1]  # the text board's status line
    top = max(y(0), y(rows + 1)) + 1.8 * s
    font = max(font, size / 34)
    body += _captions([status], top, width, font)
    return _document(width, top + font, f"Phutball {game.position()}", body)


# ------------------------------------------------------------------ Schuft
def _schuft_names(game: Any) -> list[str]:
    return list(game.squares)


def _schuft_squares(game: Any, move: Any, played: int) -> tuple[list[str], list[list[str]]]:
    """A turn's steps as tongues and fields; ``x`` and ``gN`` are the mover's: who
    made ``move`` when it was ``played`` that many moves ago, else who is to move."""
    from .schuft import Roll

    if isinstance(move, Roll) or move.direction == "pass":
        return [], []
    mover = game.to_move
    if played:
        before = game.copy()
        for _ in range(played):
            before.pop()
        mover = before.to_move
    letter = "rgby"[mover or 0]
    paths = [[part if ascii_digits(part) else f"{letter}:{part}" for part in step.split("/")]
             for step in move.steps]
    squares = list(dict.fromkeys(name for p in paths for name in p))
    return squares, paths


def _schuft_roll(value: Any) -> bool:
    from .schuft import Roll

    return isinstance(value, Roll)


def _schuft(game: Any, size: int, opts: _Options) -> str:
    from .schuft import SEATS

    n = game.num_players()
    pieces = game.piece_map()
    u = size / 14.4        # one tongue's width; the ring is 9 tongues + two corners
    d = 2 * u              # the ring's depth (and a corner's side)
    m = 0.7 * u            # margin for the tongue numbers
    side = 9 * u + 2 * d
    font = max(u * 0.42, 8.0)
    width = side + 2 * m

    def at(q: int, a: float, b: float) -> tuple[float, float]:
        """Quarter q's edge: ``a`` along it clockwise, ``b`` inward from the rim
        (turned half round for ``orientation=1``)."""
        if opts.flip:
            px, py = unturned(q, a, b)
            return 2 * m + side - px, 2 * m + side - py
        return unturned(q, a, b)

    def unturned(q: int, a: float, b: float) -> tuple[float, float]:
        if q == 0:    # bottom, right to left
            return m + d + 9 * u - a, m + side - b
        if q == 1:    # left, bottom to top
            return m + b, m + d + 9 * u - a
        if q == 2:    # top, left to right
            return m + d + a, m + b
        return m + side - b, m + d + a  # right, top to bottom

    body = [_el("rect", "board", x=m, y=m, width=side, height=side, fill="#f3e7cf",
                stroke="#6b5330", stroke_width=2.0)]
    for i in range(36):
        q, j = divmod(i, 9)
        corners = (at(q, j * u, 0), at(q, (j + 1) * u, 0), at(q, (j + 0.5) * u, d * 0.95))
        outline = " ".join(f"{_n(px)},{_n(py)}" for px, py in corners)
        body.append(opts.cell(str(i + 1), *at(q, (j + 0.5) * u, d * 0.4), u / 2))
        body.append(_el("polygon", f"tongue {'light' if i % 2 else 'dark'}", points=outline,
                        fill="#c49a5a" if i % 2 else "#8c6a3c"))
        body += opts.lit(str(i + 1), "polygon", points=outline)
        if opts.coordinates:
            nx, ny = at(q, (j + 0.5) * u, -m / 2)
            body.append(_text(nx, ny, str(i + 1), "coord", font * 0.9))
        on = pieces.get(str(i + 1), ())
        count = len(on)
        step = min(0.55 * u, (d - 0.9 * u) / max(count - 1, 1))
        for k in range(count):
            cx, cy = at(q, (j + 0.5) * u, 0.45 * u + k * step)
            body.append(_el("circle", f"piece {'rgby'[on[k]]}", cx=cx, cy=cy, r=0.4 * u,
                            fill=COLOURS[on[k]], stroke="#222222", stroke_width=0.8))
        if count > 1:
            cx, cy = at(q, (j + 0.5) * u, 0.45 * u + (count - 1) * step)
            body.append(_text(cx, cy, str(count), "count", font, font_weight="bold",
                              fill="#000000" if on[0] == 3 else "#ffffff"))
        body.append("</g>")
    # Goal tracks: from corner C_q (left of quarter q, seen from seat q) toward the centre.
    centre = m + side / 2
    for p, seat in enumerate(SEATS[n]):
        letter = "rgby"[p]
        cx, cy = at(seat, 9 * u, 0)           # the rim where quarter q ends
        sx = -1 if cx < centre else 1
        sy = -1 if cy < centre else 1
        ix, iy = centre + sx * 4.5 * u, centre + sy * 4.5 * u  # the corner's inner point
        body.append(f'<g class="goal-track {letter}">')
        for goal in range(9):
            off = (goal + 0.5) * 0.5 * u
            fx, fy = ix - sx * off, iy - sy * off
            name = f"{letter}:g{goal + 1}"
            filled = name in pieces
            body.append(opts.cell(name, fx, fy, 0.3 * u))
            body += opts.lit(name, "circle", cx=fx, cy=fy, r=0.34 * u)
            body.append(_el("circle", "goal-field goal-piece" if filled else "goal-field",
                            cx=fx, cy=fy, r=0.22 * u,
                            fill=COLOURS[p] if filled else "#ffffff",
                            stroke=COLOURS[p], stroke_width=1.2))
            body.append("</g>")
        body.append("</g>")
        waiting = len(pieces.get(f"{letter}:x", ()))
        ox, oy = ix + sx * d / 2, iy + sy * d / 2
        body.append(opts.cell(f"{letter}:x", ox, oy, 0.45 * u))
        body.append(_el("rect", "out-area", x=ox - d / 2, y=oy - 0.4 * u, width=d,
                        height=0.8 * u, fill="#000000", fill_opacity="0"))
        body += opts.lit(f"{letter}:x", "rect", x=ox - d / 2, y=oy - 0.4 * u, width=d,
                         height=0.8 * u)
        body.append(_text(ox, oy, f"{letter} out {waiting}", "out", font * 0.9,
                          fill=COLOURS[p], font_weight="bold"))
        body.append("</g>")
    body += opts.overlay()
    outcome, roll, mover = game.outcome(), game.pending_roll, game.to_move
    if outcome is not None:
        status = f"game over: {outcome.reason}"
    elif mover is None:
        status = "opening roll-off"
    elif roll is None:
        status = f"{_NAMES[mover]} ({'rgby'[mover]}) to roll"
    else:
        way = {"cw": "clockwise", "ccw": "counter-clockwise",
               "choice": "choose cw or ccw"}[roll.direction]
        status = f"{_NAMES[mover]} rolled {roll} = {roll.total}: {way}"
    turn = f"turn {game.plies}" + (f"/{game.max_plies}" if game.max_plies is not None else "")
    lines = [f"{turn}; {status}"]
    if game.pending_move is not None:
        lines.append(f"so far: {game.pending_move}")
    home = [sum(f"{'rgby'[p]}:g{m}" in pieces for m in range(1, 10)) for p in range(n)]
    out = [len(pieces.get(f"{'rgby'[p]}:x", ())) for p in range(n)]
    lines.append("home " + ", ".join(f"{'rgby'[p]} {home[p]}" for p in range(n))
                 + "; out " + ", ".join(f"{'rgby'[p]} {out[p]}" for p in range(n)))
    top = m + side + m + font
    body += _captions(lines, top, width, font)
    return _document(width, top + font * 1.35 * len(lines), f"Schuft {game.position()}", body)


# One drawing function per game, found by the game's name (brett.GAMES is the list).
_RENDERERS: dict[str, Callable[[Any, int, _Options], str]] = {
    draw.__name__.lstrip("_"): draw for draw in (_reversi, _focus, _phutball, _schuft)}


def _no(value: Any) -> bool:
    return False


# Per game: the square names, a move's squares and arrow paths, and which
# objects besides ``game.Move`` count as moves (a Schuft roll).
_MOVES: dict[str, tuple[Callable[[Any], list[str]],
                        Callable[[Any, Any, int], tuple[list[str], list[list[str]]]],
                        Callable[[Any], bool]]] = {
    names.__name__[1:-6]: (names, squares, other) for names, squares, other in (
        (_reversi_names, _reversi_squares, _no), (_focus_names, _focus_squares, _no),
        (_phutball_names, _phutball_squares, _no),
        (_schuft_names, _schuft_squares, _schuft_roll))}

__all__ = ["svg"]
