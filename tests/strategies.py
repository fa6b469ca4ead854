"""Hypothesis strategies for every game: options, set-up positions and random
walks through both API layers (public API only).

``games(name, backend)`` draws a game of one kind at a reachable (or, for
Phutball and Focus, set-up) position, sometimes with a move half made through
the integer layer.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

import brett
from conftest import random_move

GAMES = list(brett.GAMES)

REVERSI = st.one_of(
    st.fixed_dictionaries({"board": st.just("octagon"), "handicap": st.integers(0, 4),
                           "holes": st.sampled_from([0, 2, "random"]),
                           "seed": st.integers(0, 2**32)}),
    st.fixed_dictionaries({"size": st.sampled_from([4, 6, 8, 8, 10, 16]),
                           "handicap": st.integers(0, 4),
                           "handicap_color": st.sampled_from(["black", "white"]),
                           "seed": st.integers(0, 2**32)}),
    st.fixed_dictionaries({"size": st.sampled_from([6, 8, 12]),
                           "holes": st.sampled_from([1, 3, 4, "random"]),
                           "seed": st.integers(0, 2**32)}),
)
FOCUS = st.one_of(
    st.fixed_dictionaries({"players": st.sampled_from([2, 3, 4]),
                           "move_rule": st.sampled_from(["exact", "up_to", "whole"]),
                           "max_plies": st.sampled_from([None, 20, 80])}),
    st.fixed_dictionaries({"players": st.just(4), "teams": st.booleans()}),
    st.fixed_dictionaries({"mirror_rule": st.booleans(), "swap": st.just("random"),
                           "seed": st.integers(0, 2**32)}),
)
SCHUFT = st.fixed_dictionaries({
    "players": st.sampled_from([2, 3, 4]),
    "first_player": st.sampled_from([0, 1, "roll"]),
    "max_plies": st.sampled_from([None, 5, 40]),
    "seed": st.integers(0, 2**32),
})
OPTIONS = {"reversi": REVERSI, "focus": FOCUS, "schuft": SCHUFT}


@st.composite
def phutball_positions(draw: Any) -> str:
    """Any size 5..25 with few men, or up to 9x9 with many, as a position string."""
    big = draw(st.booleans())
    top = 25 if big else 9
    cols, rows = draw(st.integers(5, top)), draw(st.integers(5, top))
    density = draw(st.sampled_from([0.0, 0.05, 0.15] if big else [0.3, 0.5, 0.7]))
    rng = random.Random(draw(st.integers(0, 2**32)))
    ball = (rng.randint(2, rows - 1), rng.randrange(cols))
    fields = []
    for r in range(rows, 0, -1):
        row = "".join("*" if (r, c) == ball else "O" if rng.random() < density else "."
                      for c in range(cols))
        fields.append("".join(ch if ch != "." else "1" for ch in row))
    text = "/".join(_runs(f) for f in fields) + f" {draw(st.integers(0, 1))}"
    if (cols, rows) != (15, 19):
        text += f" {cols}x{rows}"
    cap = draw(st.sampled_from([None, 3, 40]))
    if cap is not None:
        text += f" plies:{draw(st.integers(0, cap - 1))}/{cap}"
    # Dense random boards can hold billions of jump paths: keep what a test can walk.
    game = brett.Phutball.from_position(text)
    assume(game.legal_moves.count() <= 2000)
    return text


def _runs(row: str) -> str:
    """Collapse runs of "1" into their length (the P7 digits)."""
    out = []
    for key, group in itertools.groupby(row):
        n = len(list(group))
        out.append(str(n) if key == "1" else key * n)
    return "".join(out)


def walk(game: Any, rng: random.Random, steps: int, actions: float) -> Any:
    """Random moves (push) and, with probability ``actions``, integer actions
    (apply_action), which may leave a move half made."""
    for _ in range(steps):
        if game.is_over():
            break
        if game.pending_actions or rng.random() < actions:
            game.apply_action(rng.choice(game.legal_actions()))
        else:
            game.push(random_move(game, rng))
    return game


@st.composite
def games(draw: Any, name: str, backend: str, max_steps: int = 30,
          actions: float = 0.3) -> Any:
    """A game of kind ``name`` on ``backend`` at a random position."""
    cls = brett.GAMES[name].twin(backend)
    if name == "phutball":
        game = cls.from_position(draw(phutball_positions()))
    else:
        game = cls(**draw(OPTIONS[name]))
    steps = draw(st.integers(0, max_steps))
    return walk(game, random.Random(draw(st.integers(0, 2**32))), steps, actions)


def snapshot(game: Any) -> tuple[Any, ...]:
    """Everything observable about a position (bounded: at most 300 moves listed)."""
    return (game.position(), hash(game), [str(m) for m in game.move_stack],
            game.pending_actions, game.current_player(), game.outcome(),
            [str(m) for m in itertools.islice(game.legal_moves, 300)],
            game.legal_moves.count(), game.legal_actions(), game.piece_map())


JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=True),
    st.text(max_size=30), st.binary(max_size=10), st.lists(st.integers(), max_size=3),
    st.tuples(st.integers(), st.text(max_size=3)), st.sampled_from(
        ["d3", "pass", "c3-c5", "+e5", "h11", "h10-h12", "cw 1/9", "5-8-2", "ccw", "9-9-9",
         "a" * 5000, "1" * 5000, "²", "١٢", "\x00", "d3\n", " pass "]),
)
