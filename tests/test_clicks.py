"""Click-to-move (``game.legal_moves.clicks``) on every game and both cores: walking
the clicks from nothing gives exactly the legal moves, every move is reached by its
own clicks, and wrong clicks lead nowhere."""

from __future__ import annotations

import random
from typing import Any

import pytest

import brett
from brett.errors import BrettError, InvalidMoveError
from conftest import SETUPS, advance


def _walk(game: Any, prefix: tuple[str, ...] = (), limit: int = 20000) -> list[Any]:
    """Every move reachable by following ``next`` from ``prefix`` (depth first)."""
    found: list[Any] = []
    stack = [prefix]
    while stack and len(found) < limit:
        clicks = game.legal_moves.clicks(*stack.pop())
        found.extend(clicks.moves)
        stack.extend((*clicks.prefix, c) for c in reversed(clicks.next))
    return found


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_walking_the_clicks_gives_exactly_the_legal_moves(setup: str, backend: str) -> None:
    name, options = SETUPS[setup]
    for seed in range(3):
        game = advance(brett.GAMES[name].twin(backend)(**options), 6 + 9 * seed, seed)
        if game.is_over():
            continue
        legal = list(game.legal_moves)
        walked = _walk(game)
        assert sorted(map(str, walked)) == sorted(map(str, legal)), (setup, seed)
        assert len(walked) == len(set(walked))  # each move reached once
        for move in random.Random(seed).sample(legal, min(8, len(legal))):
            path = game._click_path(move) if name != "phutball" else None
            if path is not None:
                assert move in game.legal_moves.clicks(*path).moves


def test_reversi_focus_and_schuft_clicks() -> None:
    reversi = brett.Reversi()
    assert reversi.legal_moves.clicks().next == ("d3", "c4", "f5", "e6")
    assert [str(m) for m in reversi.legal_moves.clicks("D3").moves] == ["d3"]
    focus = brett.Focus()
    assert focus.legal_moves.clicks("d2").next == ("d3", "e2", "d1", "c2")
    assert [str(m) for m in focus.legal_moves.clicks("d2", "d3", "1").moves] == ["d2-d3"]
    schuft = brett.Schuft(players=2)
    schuft.roll("5-8-2")  # 15: the direction is a choice, clicked first
    assert schuft.legal_moves.clicks().next == ("ccw", "cw")
    after = schuft.legal_moves.clicks("cw", "1")
    assert after.moves == () and all(n.isdigit() or ":" in n for n in after.next)


def test_a_phutball_jump_is_entered_landing_by_landing(backend: str) -> None:
    game = brett.Phutball.twin(backend).from_position("9/5O3/4O4/4O4/4*4/9/9/9/9 0 9x9")
    clicks = game.legal_moves.clicks
    assert clicks().next[-1] == "e5" and len(clicks().next) == 77 + 1  # the empties, the ball
    assert clicks("e5").next == ("e8",)
    assert clicks("e5", "e8").next == ("g8", "stop")
    assert [str(m) for m in clicks("e5", "e8", "stop").moves] == ["e5-e8"]
    assert [str(m) for m in clicks("e5", "e8", "g8", "stop").moves] == ["e5-e8-g8"]
    assert clicks("e5", "e9").moves == () and clicks("e5", "e9").next == ()  # no such jump
    assert [str(m) for m in clicks("a1").moves] == ["a1"] and clicks("e6").moves == ()
    # the crowded lattice has hundreds of thousands of paths: clicks never list them
    lattice = brett.Phutball.twin(backend).from_position(
        "13/13/3O1O1O5/2O1O1O1O4/3O1O1O5/2O1O1O1O4/3O*O1O5/2O1O1O1O4/"
        "3O1O1O5/2O1O1O1O4/3O1O1O5/13/13 0 13x13")
    ball = lattice.ball
    first = lattice.legal_moves.clicks(ball).next
    assert first and all(lattice.legal_moves.clicks(ball, landing).next for landing in first)


def test_bad_clicks(backend: str) -> None:
    game = brett.Reversi.twin(backend)()
    assert game.legal_moves.clicks("a1").moves == () and game.legal_moves.clicks("zz").next == ()
    for bad in ((None,), (3,), ("x" * 41,)):
        with pytest.raises(InvalidMoveError):
            game.legal_moves.clicks(*bad)  # type: ignore[arg-type]
    jumping = brett.Phutball.twin(backend)(columns=9, rows=9)
    jumping.push("e6")
    jumping.apply_action(81)
    with pytest.raises(BrettError, match="half made"):
        jumping.legal_moves.clicks()


def test_only_the_clicks_worth_a_mark_are_marked(backend: str) -> None:
    """A Phutball man may go on any empty point: those clicks are not marked, the
    ball is (while it can jump), and so is each landing; other games mark all."""
    game = brett.Phutball.twin(backend).from_position("9/5O3/4O4/4O4/4*4/9/9/9/9 0 9x9")
    first = game.legal_moves.clicks()
    assert first.marked == ("e5",) and len(first.next) == 78
    assert set(first.next) - set(first.marked) == first.unmarked
    assert game.legal_moves.clicks("e5").marked == ("e8",)
    assert game.legal_moves.clicks("e5", "e8").marked == ("g8", "stop")
    assert brett.Phutball.twin(backend)(columns=9, rows=9).legal_moves.clicks().marked == ()
    for cls in (brett.Reversi, brett.Focus):
        clicks = cls.twin(backend)().legal_moves.clicks()
        assert clicks.marked == clicks.next and clicks.unmarked == frozenset()
