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
``caption`` text everywhere.  Discs and the last-move mark carry
``data-square``, each Focus stack is a ``<g class="stack" data-square=...>``
and the ball has ``data-point``, for frontends that map clicks to squares.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from ._checks import as_int
from .errors import BrettError
from .game import Game

# Player colours r, g, b, y (Focus and Schuft).
COLOURS = ("#d62728", "#2ca02c", "#1f77b4", "#f2c80f")
_NAMES = ("red", "green", "blue", "yellow")


def svg(game: Game[Any], size: int = 400) -> str:
    """The game's position as an SVG document string: the board fits in about
    ``size`` x ``size`` pixels (50 to 4000), a caption of a few lines goes below it.
    Only the public API of the game is read (``piece_map`` and friends)."""
    if not isinstance(game, Game) or game.game_name not in _RENDERERS:
        raise BrettError(f"cannot draw {game!r:.60}: not a brett game")
    size = as_int(size, "size", 50, 4000)
    return _RENDERERS[game.game_name](game, size)


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
def _reversi(game: Any, size: int) -> str:
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
    last = str(game.peek()) if game.move_stack else None
    for sq in range(n * n):
        row, col = divmod(sq, n)
        x, y = m + col * cell, m + row * cell
        name = f"{files[col]}{row + 1}"
        if name in holes:
            body.append(_el("rect", "hole", x=x, y=y, width=cell, height=cell,
                            fill="#555555", stroke="#1b3d2a", stroke_width=1.0))
            continue
        if name in cuts:  # not part of the octagon board: left blank
            body.append(_el("rect", "cut", x=x, y=y, width=cell, height=cell, fill="none"))
            continue
        body.append(_el("rect", "square", x=x, y=y, width=cell, height=cell,
                        fill="#2e8b57", stroke="#1b3d2a", stroke_width=1.0))
        cx, cy = x + cell / 2, y + cell / 2
        if name in discs:
            colour = "black" if discs[name] == 0 else "white"
            body.append(_el("circle", f"disc {colour}", cx=cx, cy=cy, r=cell * 0.4,
                            fill="#111111" if colour == "black" else "#f8f8f8",
                            stroke="#111111", stroke_width=1.0, data_square=name))
        if name == last:
            body.append(_el("circle", "last-move", cx=cx, cy=cy, r=cell * 0.1, fill="#e03030",
                            data_square=name))
    for i in range(n):
        body.append(_text(m + (i + 0.5) * cell, m / 2, files[i], "coord", font))
        body.append(_text(m / 2, m + (i + 0.5) * cell, str(i + 1), "coord", font))
    b, w = game.discs()
    outcome = game.outcome()
    if outcome is not None:
        result = "draw" if outcome.is_draw else ("Black" if outcome.winner == 0 else "White") \
            + " wins"
        status = f"game over, {result}: Black {b}, White {w}"
    else:
        status = f"{'Black' if game.turn == 0 else 'White'} to move: Black {b}, White {w}"
    body += _captions([status], board_end + font * 1.2, width, font)
    return _document(width, board_end + font * 2.2, f"Reversi {game.position()}", body)


# ------------------------------------------------------------------ Focus
def _focus(game: Any, size: int) -> str:
    cell = size / 8.8
    m = cell * 0.6
    font = max(cell * 0.28, 9.0)
    board_end = m + 8 * cell
    width = board_end + cell * 0.2
    body = []
    playable = {("abcdefgh".index(name[0]), int(name[1]) - 1): name for name in game.squares}
    stacks = game.piece_map()
    for y in range(8):
        for x in range(8):
            sx, sy = m + x * cell, m + (7 - y) * cell
            if (x, y) not in playable:
                body.append(_el("rect", "cut", x=sx, y=sy, width=cell, height=cell,
                                fill="#ffffff"))
                continue
            body.append(_el("rect", "square", x=sx, y=sy, width=cell, height=cell,
                            fill="#e8d2a6" if (x + y) % 2 else "#d9bd85",
                            stroke="#8a6d3b", stroke_width=1.0))
            name = playable[(x, y)]
            stack = "".join("rgby"[c] for c in stacks.get(name, ()))
            if not stack:
                continue
            body.append(f'<g class="stack" data-square="{name}">')
            layer_h = cell * 0.15
            for level, letter in enumerate(stack):  # bottom -> top
                body.append(_el("rect", f"layer {letter}", x=sx + cell * 0.1,
                                y=sy + cell * 0.93 - (level + 1) * layer_h,
                                width=cell * 0.66, height=layer_h * 0.88, rx=layer_h * 0.3,
                                fill=COLOURS["rgby".index(letter)],
                                stroke="#222222", stroke_width=0.8))
            body.append(_text(sx + cell * 0.88, sy + cell * 0.17, str(len(stack)),
                              "height", font * 0.85))
            body.append("</g>")
    for i in range(8):
        body.append(_text(m + (i + 0.5) * cell, m / 2, "abcdefgh"[i], "coord", font))
        body.append(_text(m / 2, m + (7.5 - i) * cell, str(i + 1), "coord", font))
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
def _phutball(game: Any, size: int) -> str:
    from .phutball import LETTERS

    cols, rows = game.columns, game.rows
    pieces = game.piece_map()

    def cell_of(point: str) -> int:
        return int(point[1:]) * cols + LETTERS.index(point[0])

    men = [cell_of(p) for p, kind in pieces.items() if kind == "man"]
    ball = cell_of(game.ball)
    s = size / max(cols + 1, rows + 4)
    font = max(s * 0.45, 8.0)
    width = (cols + 1) * s

    def x(col: int) -> float:
        return (col + 1) * s

    def y(row: int) -> float:
        return (rows + 1 - row) * s + 1.2 * s

    body = [
        _el("rect", "end-zone", x=x(0) - s / 2, y=y(rows + 1) - s / 2, width=cols * s,
            height=s, fill="#fde3c8"),
        _el("rect", "end-zone", x=x(0) - s / 2, y=y(0) - s / 2, width=cols * s,
            height=s, fill="#cfe2f7"),
        _el("rect", "board", x=x(0) - s / 2, y=y(rows) - s / 2, width=cols * s,
            height=rows * s, fill="#e6c27a"),
    ]
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
    for cell in men:
        body.append(_el("circle", "man", cx=x(cell % cols), cy=y(cell // cols), r=s * 0.42,
                        fill="#111111"))
    shown = game.pending_move or (game.peek() if game.move_stack else None)
    if shown is not None and shown.is_jump:  # the open path, or the last move's
        cells = [cell_of(p) for p in shown.points]
        points = " ".join(f"{_n(x(c % cols))},{_n(y(c // cols))}" for c in cells)
        body.append(_el("polyline", "path", points=points, fill="none", stroke="#e03030",
                        stroke_width=max(s * 0.08, 1.5), stroke_dasharray=_n(s * 0.2)))
    body.append(_el("circle", "ball", cx=x(ball % cols), cy=y(ball // cols), r=s * 0.42,
                    fill="#ffffff", stroke="#111111", stroke_width=max(s * 0.08, 1.5),
                    data_point=game.ball))
    for c in range(cols):
        body.append(_text(x(c), y(rows + 1) - 0.85 * s, LETTERS[c], "coord", font))
        body.append(_text(x(c), y(0) + 0.85 * s, LETTERS[c], "coord", font))
    for r in range(1, rows + 1):
        body.append(_text(x(0) - 0.75 * s, y(r), str(r), "coord", font * 0.9))
        body.append(_text(x(cols - 1) + 0.75 * s, y(r), str(r), "coord", font * 0.9))
    status = str(game).splitlines()[-1]  # the text board's status line
    top = y(0) + 1.8 * s
    font = max(font, size / 34)
    body += _captions([status], top, width, font)
    return _document(width, top + font, f"Phutball {game.position()}", body)


# ------------------------------------------------------------------ Schuft
def _schuft(game: Any, size: int) -> str:
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
        """Quarter q's edge: ``a`` along it clockwise, ``b`` inward from the rim."""
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
        body.append(_el("polygon", "tongue", points=" ".join(
            f"{_n(px)},{_n(py)}" for px, py in corners),
            fill="#c49a5a" if i % 2 else "#8c6a3c"))
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
    # Goal tracks: from corner C_q (left of quarter q, seen from seat q) toward the centre.
    centre = m + side / 2
    for p, seat in enumerate(SEATS[n]):
        cx, cy = at(seat, 9 * u, 0)           # the rim where quarter q ends
        sx = -1 if cx < centre else 1
        sy = -1 if cy < centre else 1
        ix, iy = centre + sx * 4.5 * u, centre + sy * 4.5 * u  # the corner's inner point
        body.append(f'<g class="goal-track {"rgby"[p]}">')
        for field in range(9):
            off = (field + 0.5) * 0.5 * u
            fx, fy = ix - sx * off, iy - sy * off
            filled = f"{'rgby'[p]}:g{field + 1}" in pieces
            body.append(_el("circle", "goal-field goal-piece" if filled else "goal-field",
                            cx=fx, cy=fy, r=0.22 * u,
                            fill=COLOURS[p] if filled else "#ffffff",
                            stroke=COLOURS[p], stroke_width=1.2))
        body.append("</g>")
        waiting = len(pieces.get(f"{'rgby'[p]}:x", ()))
        body.append(_text(ix + sx * d / 2, iy + sy * d / 2, f"{'rgby'[p]} out {waiting}",
                          "out", font * 0.9, fill=COLOURS[p], font_weight="bold"))
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
_RENDERERS: dict[str, Callable[[Any, int], str]] = {
    draw.__name__.lstrip("_"): draw for draw in (_reversi, _focus, _phutball, _schuft)}

__all__ = ["svg"]
