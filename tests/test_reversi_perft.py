"""Reversi perft against every Reversi vector of the shared reference table (R8).

The plain-Python twin runs the shallow depths, the Cython core everything up to a
few million leaves by default, and the deep depths under the ``slow`` marker.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from brett.reversi import Reversi
from conftest import reference_vectors

VECTORS = {v["id"]: v for v in reference_vectors("reversi")}
PYTHON_MAX_NODES = 60_000           # the oracle is slow: keep it to seconds
CYTHON_FAST_MAX_NODES = 5_000_000   # default run
# Deepest depth per vector on the compiled core under `slow` (each well under 10 s here).
CYTHON_SLOW_MAX_DEPTH = {
    ("reversi-8x8-start", "perft"): 12,
    ("reversi-8x8-start", "perft_count_finished"): 11,
    ("reversi-6x6-start", "perft"): 12,
    ("reversi-6x6-start", "perft_count_finished"): 11,
    ("reversi-10x10-start", "perft"): 11,
    ("reversi-8x8-holes-b4-e2-g5", "perft"): 11,
    ("reversi-8x8-holes-b4-e2-g5", "perft_count_finished"): 11,
}


needs_cython = pytest.mark.skipif(
    bool(os.environ.get("BRETT_NO_EXTENSIONS")),
    reason="BRETT_NO_EXTENSIONS=1: this run tests the plain-Python twin only")


def _cases(backend: str, slow: bool) -> list[Any]:
    cases = []
    for vid, vector in VECTORS.items():
        for kind in ("perft", "perft_count_finished"):
            for depth, nodes in sorted((int(d), n) for d, n in vector.get(kind, {}).items()):
                if backend == "python":
                    chosen = not slow and nodes <= PYTHON_MAX_NODES
                elif nodes <= CYTHON_FAST_MAX_NODES:
                    chosen = not slow
                else:
                    chosen = slow and depth <= CYTHON_SLOW_MAX_DEPTH.get((vid, kind), 0)
                if chosen:
                    cases.append(pytest.param(vid, kind, depth, nodes,
                                              id=f"{vid}-{kind}-{depth}"))
    return cases


def _game(backend: str, vid: str) -> Any:
    vector = VECTORS[vid]
    game = Reversi.twin(backend)(**vector["options"])
    for move in vector["moves"]:
        game.push(move)
    return game


def test_every_reversi_vector_is_covered() -> None:
    assert {"reversi-8x8-start", "reversi-6x6-start", "reversi-10x10-start",
            "reversi-8x8-holes-b4-e2-g5", "reversi-octagon-start",
            "reversi-8x8-handicap2-start"} <= set(VECTORS)
    covered = {c.values[:3] for b in ("python", "cython") for s in (False, True)
               for c in _cases(b, s)}
    for vid, vector in VECTORS.items():
        for kind in ("perft", "perft_count_finished"):
            if vector.get(kind):
                assert any(c[0] == vid and c[1] == kind for c in covered), (vid, kind)


@pytest.mark.parametrize(("vid", "kind", "depth", "nodes"), _cases("python", False))
def test_reference_perft_python(vid: str, kind: str, depth: int, nodes: int) -> None:
    game = _game("python", vid)
    assert game.perft(depth, count_finished=kind == "perft_count_finished") == nodes


@needs_cython
@pytest.mark.parametrize(("vid", "kind", "depth", "nodes"), _cases("cython", False))
def test_reference_perft_cython(vid: str, kind: str, depth: int, nodes: int) -> None:
    game = _game("cython", vid)
    before = game.position(), hash(game)
    assert game.perft(depth, count_finished=kind == "perft_count_finished") == nodes
    assert (game.position(), hash(game)) == before


@pytest.mark.slow
@needs_cython
@pytest.mark.parametrize(("vid", "kind", "depth", "nodes"), _cases("cython", True))
def test_reference_perft_cython_deep(vid: str, kind: str, depth: int, nodes: int) -> None:
    game = _game("cython", vid)
    assert game.perft(depth, count_finished=kind == "perft_count_finished") == nodes


def test_divide_sums_to_perft(backend: str) -> None:
    game = Reversi.twin(backend)(size=6, holes=["a1", "f6"])
    counts = game.divide(4)
    assert sorted(str(m) for m in counts) == sorted(str(m) for m in game.legal_moves)
    assert sum(counts.values()) == game.perft(4)


def test_count_finished_counts_finished_games_as_leaves(backend: str) -> None:
    # A finished 4x4 game: counted only with count_finished, at every depth.
    cls = Reversi.twin(backend)
    game = cls.from_position("xxxx/xxxx/xxxx/xxxo x n=4")
    assert game.is_over()
    assert [game.perft(d) for d in range(4)] == [1, 0, 0, 0]
    assert [game.perft(d, count_finished=True) for d in range(4)] == [1, 1, 1, 1]


def test_forced_pass_counts_as_a_move(backend: str) -> None:
    cls = Reversi.twin(backend)
    # o a1, x b1, x to move: x outflanks nothing and must pass; o then takes b1 with c1.
    game = cls.from_position("ox--/----/----/---- x n=4")
    assert [str(m) for m in game.legal_moves] == ["pass"]
    assert [game.perft(d) for d in range(1, 4)] == [1, 1, 0]
    assert game.perft(3, count_finished=True) == 1
    game.push("pass")
    assert [str(m) for m in game.legal_moves] == ["c1"]
    game.push("c1")
    assert game.is_over() and game.current_player() == -4
    outcome = game.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.scores) == (1, (0, 3))
    assert outcome.reason == "neither player can move"


@needs_cython
@pytest.mark.parametrize("options", [
    {"size": 12}, {"size": 14}, {"size": 16, "holes": 4, "seed": 2},
    {"size": 12, "handicap": 4, "handicap_color": "white", "holes": ["a2", "l11"]},
    {"board": "octagon", "handicap": 4, "holes": 3, "seed": 5},
    {"size": 4}, {"size": 6, "handicap": 3, "holes": "random", "seed": 9},
    {"size": 8, "handicap": 1, "handicap_color": "white", "holes": ["b1", "h7", "a4", "g2"]},
], ids=str)
def test_twins_agree_on_perft_for_other_options(options: dict[str, Any]) -> None:
    """No reference table exists for these boards: the two cores must agree."""
    py = Reversi.twin("python")(**options)
    cy = Reversi.twin("cython")(**options)
    assert py.position() == cy.position() and hash(py) == hash(cy)
    for depth in range(1, 6):
        for cf in (False, True):
            assert py.perft(depth, cf) == cy.perft(depth, cf), (depth, cf)
    # a position some plies in, where passes and flips across holes start to matter
    py.random_playout(seed=4, max_plies=24)
    for move in py.move_stack:
        cy.push(str(move))
    assert py.position() == cy.position()
    assert [py.perft(d) for d in range(1, 5)] == [cy.perft(d) for d in range(1, 5)]


@needs_cython
@pytest.mark.parametrize("seed", range(6))
def test_twins_agree_on_endgame_perft(seed: int) -> None:
    """Near the end passes and finished games appear inside the tree."""
    py = Reversi.twin("python")(holes="random", seed=seed)
    py.random_playout(seed=seed, max_plies=52)
    cy = Reversi.twin("cython").from_position(py.position())
    for depth in range(1, 9):
        assert py.perft(depth) == cy.perft(depth)
        assert py.perft(depth, True) == cy.perft(depth, True)
