"""Property tests for Focus: the two cores agree, push/pop and positions round-trip."""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brett._core._rng import SplitMix64
from brett.focus import Focus

needs_cython = pytest.mark.skipif(bool(os.environ.get("BRETT_NO_EXTENSIONS")),
                                  reason="BRETT_NO_EXTENSIONS=1: only the plain twin")
SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


@st.composite
def options(draw: Any) -> dict[str, Any]:
    players = draw(st.sampled_from([2, 3, 4]))
    opts: dict[str, Any] = {
        "players": players,
        "move_rule": draw(st.sampled_from(["exact", "up_to", "whole"])),
        "max_plies": draw(st.one_of(st.none(), st.integers(1, 120))),
        "seed": draw(st.integers(0, 2**32)),
    }
    if players == 4:
        opts["teams"] = draw(st.booleans())
    if players == 2:
        opts["mirror_rule"] = draw(st.booleans())
        opts["swap"] = draw(st.sampled_from([None, "random", ("c3", "d3")]))
    return opts


def full_state(game: Any) -> tuple[Any, ...]:
    return (game.position(), hash(game), game.current_player(), game.outcome(),
            game.reserves(), game.captured())


@SETTINGS
@given(opts=options(), seed=st.integers(0, 2**64 - 1), plies=st.integers(0, 150))
def test_push_pop_restores_everything(backend: str, opts: dict[str, Any], seed: int,
                                      plies: int) -> None:
    game = Focus.twin(backend)(**opts)
    rng = SplitMix64(seed)
    history = [full_state(game)]
    for _ in range(plies):
        moves = list(game.legal_moves)
        if not moves:
            break
        game.push(moves[rng.below(len(moves))])
        history.append(full_state(game))
        # the position string reloads to the same state and key
        again = type(game).from_position(game.position())
        assert full_state(again) == history[-1]
        assert list(again.legal_moves) == list(game.legal_moves)
    while game.move_stack:
        history.pop()
        game.pop()
        assert full_state(game) == history[-1]


@SETTINGS
@given(opts=options(), seed=st.integers(0, 2**64 - 1), plies=st.integers(0, 200))
def test_legal_actions_agree_with_legal_moves(backend: str, opts: dict[str, Any], seed: int,
                                              plies: int) -> None:
    game = Focus.twin(backend)(**opts)
    game.random_playout(seed=seed, max_plies=plies)
    actions = game.legal_actions()
    assert actions == sorted(set(actions))
    assert [game.action_to_move(a) for a in actions] == list(game.legal_moves)
    assert game.legal_moves.count() == len(actions) == list(game.legal_actions_mask()).count(1)
    for a in actions[:20]:
        assert game.action_to_move(a) in game.legal_moves
    if game.is_over():
        assert actions == [] and game.outcome() is not None
        assert len(game.returns()) == game.num_players()
    else:
        assert game.current_player() in range(game.num_players())


@needs_cython
@SETTINGS
@given(opts=options(), seed=st.integers(0, 2**64 - 1), plies=st.integers(0, 400))
def test_twins_agree_move_for_move(opts: dict[str, Any], seed: int, plies: int) -> None:
    py = Focus.twin("python")(**opts)
    cy = Focus.twin("cython")(**opts)
    rng = SplitMix64(seed)
    for _ in range(plies):
        assert cy._core_moves() == py._core_moves()
        assert cy._core_count() == py._core_count() == len(py._core_moves())
        assert cy._core_key() == py._core_key() == cy._core_full_key()
        assert cy.position() == py.position()
        assert cy.current_player() == py.current_player()
        assert cy.outcome() == py.outcome()
        moves = py._core_moves()
        if not moves:
            break
        cm = moves[rng.below(len(moves))]
        py.push(py.action_to_move(cm))
        cy.apply_action(cm)
    assert cy.position() == py.position() and cy._core_key() == py._core_key()
    assert cy.perft(2) == py.perft(2)
    assert cy.perft(2, count_finished=True) == py.perft(2, count_finished=True)
    assert cy._core_get_state() == py._core_get_state()


@needs_cython
@settings(max_examples=15, deadline=None)
@given(opts=options(), seed=st.integers(0, 2**64 - 1))
def test_twins_play_the_same_playouts(opts: dict[str, Any], seed: int) -> None:
    py = Focus.twin("python")(**opts)
    cy = Focus.twin("cython")(**opts)
    assert cy.random_playouts(3, seed=seed, max_plies=150) == \
        py.random_playouts(3, seed=seed, max_plies=150)
    assert cy.random_playout(seed=seed, max_plies=100) == \
        py.random_playout(seed=seed, max_plies=100)
    assert cy.move_stack == py.move_stack and cy.position() == py.position()


@needs_cython
@settings(max_examples=25, deadline=None)
@given(opts=options(), seed=st.integers(0, 2**64 - 1), plies=st.integers(0, 300),
       action=st.integers(-5, 3200))
def test_twins_agree_on_single_actions(opts: dict[str, Any], seed: int, plies: int,
                                       action: int) -> None:
    py = Focus.twin("python")(**opts)
    cy = Focus.twin("cython")(**opts)
    py.random_playout(seed=seed, max_plies=plies)
    for move in py.move_stack:
        cy.push(move)
    assert cy._core_is_legal(action) == py._core_is_legal(action)


SQUARES = [f"{f}{r}" for r in range(1, 9) for f in "abcdefgh"
           if f"{f}{r}" not in {"a1", "b1", "a2", "g1", "h1", "h2", "a7", "a8", "b8", "g8",
                                 "h8", "h7"}]


@st.composite
def positions(draw: Any) -> str:
    """Arbitrary (mostly unreachable) positions: sparse stacks, reserves, captures, options."""
    n = draw(st.sampled_from([2, 3, 4]))
    letters = "rgby"[:n]
    stacks = draw(st.dictionaries(st.sampled_from(SQUARES),
                                  st.text(alphabet=letters, min_size=1, max_size=5),
                                  max_size=20))
    ranks = []
    for y in range(8, 0, -1):
        ranks.append(",".join(stacks.get(sq, ".") for sq in SQUARES if sq.endswith(str(y))))
    reserves = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    captured = []
    for p in range(n):
        counts = {c: draw(st.integers(0, 4)) for c in letters if c != letters[p]}
        captured.append("".join(f"{c}{k}" for c, k in counts.items() if k) or "-")
    fields = ["/".join(ranks), draw(st.sampled_from(letters)), ",".join(map(str, reserves)),
              ",".join(captured)]
    if n == 4 and draw(st.booleans()):
        fields.append("ffa")
    rule = draw(st.sampled_from(["exact", "up_to", "whole"]))
    if rule != "exact":
        fields.append(f"rule={rule}")
    if draw(st.booleans()):
        fields.append(f"cap={draw(st.integers(1, 40))}")
    fields.append(f"ply={draw(st.integers(1, 30))}")
    if n == 3:
        owing = [letters[p] for p in range(3) if reserves[p] and draw(st.booleans())]
        if owing:
            fields.append("first=" + "".join(owing))
        fields.append("returned=" + ",".join(str(draw(st.integers(0, 6))) for _ in range(3)))
    if n == 2 and draw(st.booleans()):
        fields.append("mirror=" + draw(st.sampled_from(["ok", "no"])))
    return " ".join(fields)


@needs_cython
@settings(max_examples=150, deadline=None)
@given(text=positions(), seed=st.integers(0, 2**64 - 1))
def test_twins_agree_on_arbitrary_positions(text: str, seed: int) -> None:
    py = Focus.twin("python").from_position(text)
    cy = Focus.twin("cython").from_position(text)
    assert cy.position() == py.position()
    assert Focus.twin("python").from_position(py.position()).position() == py.position()
    assert cy.outcome() == py.outcome() and cy.current_player() == py.current_player()
    assert cy._core_moves() == py._core_moves()
    assert cy._core_key() == py._core_key() == cy._core_full_key()
    assert cy.perft(2) == py.perft(2)
    assert cy.random_playout(seed=seed, max_plies=60) == py.random_playout(seed=seed,
                                                                            max_plies=60)
    assert cy.position() == py.position() and cy._core_key() == py._core_key()
    while py.move_stack:
        py.pop()
        cy.pop()
    assert cy.position() == py.position() == Focus.from_position(text).position()
