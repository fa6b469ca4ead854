"""perft against every vector of the shared reference table (R8, F13, P8, S12).

The plain-Python twin runs the shallow depths, the compiled core everything up
to a few million leaves by default and the deep depths under the ``slow``
marker (``pytest -m slow``; out of the default run, in .ci/run).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import brett
from conftest import LOCAL_REFERENCE, REFERENCE, needs_cython, reference_vectors

VECTORS = {v["id"]: v for name in brett.GAMES for v in reference_vectors(name)}
PYTHON_MAX_NODES = {"schuft": 200_000}   # the oracle is slow: seconds per case
PYTHON_DEFAULT_MAX = 60_000
CYTHON_FAST_MAX_NODES = 5_000_000
# The deepest depth per vector on the compiled core under `slow` (each a few seconds,
# Schuft's 10.9 billion leaves a few minutes).
CYTHON_SLOW_MAX_DEPTH = {
    ("reversi-8x8-start", "perft"): 12,
    ("reversi-8x8-start", "perft_count_finished"): 11,
    ("reversi-6x6-start", "perft"): 12,
    ("reversi-6x6-start", "perft_count_finished"): 11,
    ("reversi-10x10-start", "perft"): 11,
    ("reversi-8x8-holes-b4-e2-g5", "perft"): 11,
    ("reversi-8x8-holes-b4-e2-g5", "perft_count_finished"): 11,
    ("focus-2p-start", "perft"): 5,
    ("focus-2p-start-up_to", "perft"): 4,
    ("focus-2p-start-whole", "perft"): 4,
    ("focus3-start", "perft"): 4,
    ("phutball-15x19-start", "perft"): 4,
    ("phutball-19x19-start", "perft"): 4,
    ("schuft-2p-start", "perft"): 2,
}
KINDS = ("perft", "perft_count_finished")


def _cases(backend: str, slow: bool) -> list[Any]:
    cases = []
    for vid, vector in VECTORS.items():
        for kind in KINDS:
            for depth, nodes in sorted((int(d), n) for d, n in vector.get(kind, {}).items()):
                if backend == "python":
                    chosen = not slow and nodes <= PYTHON_MAX_NODES.get(vector["game"],
                                                                        PYTHON_DEFAULT_MAX)
                elif nodes <= CYTHON_FAST_MAX_NODES:
                    chosen = not slow
                else:
                    chosen = slow and depth <= CYTHON_SLOW_MAX_DEPTH.get((vid, kind), 0)
                if chosen:
                    marks = [pytest.mark.slow] if slow else []
                    cases.append(pytest.param(vid, kind, depth, nodes, marks=marks,
                                              id=f"{vid}-{kind}-{depth}"))
    return cases


def _game(backend: str, vid: str) -> Any:
    vector = VECTORS[vid]
    game = brett.GAMES[vector["game"]].twin(backend)(**vector["options"])
    for move in vector["moves"]:
        game.push(move)
    return game


def test_local_copy_matches_shared_reference() -> None:
    if not REFERENCE.exists():
        pytest.skip("outside the brett workspace (an sdist): the local copy is the reference")
    assert json.loads(LOCAL_REFERENCE.read_text()) == json.loads(REFERENCE.read_text())


def test_every_vector_is_covered() -> None:
    """Every game has vectors, and every vector is checked on some core."""
    assert {v["game"] for v in VECTORS.values()} == set(brett.GAMES)
    covered = {c.values[:2] for b in ("python", "cython") for s in (False, True)
               for c in _cases(b, s)}
    for vid, vector in VECTORS.items():
        for kind in KINDS:
            if vector.get(kind):
                assert (vid, kind) in covered, (vid, kind)
    assert VECTORS["focus-2p-start"]["perft"]["5"] == 1_298_133_752


@pytest.mark.parametrize(("vid", "kind", "depth", "nodes"), _cases("python", False))
def test_reference_perft_python(vid: str, kind: str, depth: int, nodes: int) -> None:
    game = _game("python", vid)
    assert game.perft(depth, count_finished=kind == "perft_count_finished") == nodes


@needs_cython
@pytest.mark.parametrize(("vid", "kind", "depth", "nodes"),
                         _cases("cython", False) + _cases("cython", True))
def test_reference_perft_cython(vid: str, kind: str, depth: int, nodes: int) -> None:
    game = _game("cython", vid)
    assert game.perft(depth, count_finished=kind == "perft_count_finished") == nodes


@needs_cython
@pytest.mark.parametrize("vid", ["reversi-8x8-start", "focus-2p-start", "phut9-start",
                                 "schuft-3p-start"])
def test_divide_and_parallel_perft_agree_with_the_reference(vid: str) -> None:
    """divide sums to perft and a process pool splits it exactly (the tasks are
    rebuilt from position strings in other processes)."""
    from concurrent.futures import ProcessPoolExecutor

    game = _game("cython", vid)
    depth = {"schuft-3p-start": 1}.get(vid, 3)
    nodes = VECTORS[vid]["perft"][str(depth)]
    assert sum(game.divide(depth).values()) == nodes
    with ProcessPoolExecutor(2) as pool:
        assert game.perft(depth, executor=pool) == nodes


class RecordingExecutor:
    """Runs each task at once and remembers its size (a simulated cluster)."""

    def __init__(self) -> None:
        self.sizes: list[int] = []

    def submit(self, fn: Any, *args: Any) -> Any:
        from concurrent.futures import Future

        future: Future[int] = Future()
        result = fn(*args)
        self.sizes.append(result)
        future.set_result(result)
        return future


@pytest.mark.parametrize(("name", "options", "depth"), [
    ("reversi", {}, 8), ("focus", {}, 4), ("phutball", {"columns": 9, "rows": 9}, 3),
    ("schuft", {"players": 2}, 1)])
@pytest.mark.parametrize("workers", [2, 8, 64])
def test_parallel_perft_splits_into_small_tasks(name: str, options: dict[str, Any], depth: int,
                                                workers: int) -> None:
    """Enough subtrees to keep the workers busy (four per worker), none of them a
    large share of the whole, and exactly the serial count."""
    game = brett.GAMES[name](**options)
    pool = RecordingExecutor()
    total = game.perft(depth, executor=pool, tasks=4 * workers)
    assert total == game.perft(depth) == sum(pool.sizes)
    # Schuft's perft(1) from a roll: 216 subtrees of depth 1, which cannot split further
    assert len(pool.sizes) >= (min(4 * workers, 216) if name == "schuft" else 4 * workers)
    assert max(pool.sizes) <= total * max(0.1, 2 / workers)


def test_parallel_perft_counts_a_finished_game_like_the_serial_one() -> None:
    over = brett.Reversi.from_position("xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/xxxxxxxx/"
                                       "xxxxxxxx/xxxxxxxx/xxxxxxxx o")
    for cf in (False, True):
        assert over.perft(3, count_finished=cf, executor=RecordingExecutor()) == \
            over.perft(3, count_finished=cf) == int(cf)
    tasks = brett.Reversi().perft_tasks(5, tasks=100)  # 4, 12, 56, then 244 subtrees
    assert len(tasks) == 244 and all(depth == 1 for _, depth in tasks)
    assert brett.Reversi().perft_tasks(0) == [(brett.Reversi().position(), 0)]
    with pytest.raises(brett.BrettError):
        brett.Reversi().perft_tasks(3, tasks=0)
