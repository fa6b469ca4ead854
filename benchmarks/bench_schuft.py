"""Schuft benchmarks (pytest-benchmark; run explicitly, not part of the test run):

    PYTHONPATH=src python -m pytest benchmarks/bench_schuft.py

Random full games/s and decisions/s on both cores: whole random turns inside the
core (``random_playouts``), random integer-layer decisions inside the core
(``random_decision_playouts``) and through the Python integer layer (the way
OpenSpiel is driven from Python); perft(1)
from the start and perft(2) a few turns before the end of a game, and, when
``open_spiel`` is installed, OpenSpiel's ``maedn`` (a dice race game) driven
through pyspiel in the same run for the ratio.  A summary is printed at the end.
Figures, not timed asserts.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from _figures import BACKENDS, Figures, per_second
from brett.schuft import Schuft

RESULTS = Figures("Schuft", [
    ('games cython / python', 'games 2p cython', 'games 2p python'),
    ('turns cython / python', 'turns (core playouts) 2p cython', 'turns (core playouts) 2p python'),
    ('API decisions cython / python',
     'decisions (Python API) 2p cython',
     'decisions (Python API) 2p python'),
    ('perft(1) 2p cython / python', 'perft(1) start 2p cython', 'perft(1) start 2p python'),
    ('core decisions cython / python',
     'decisions (core playouts) 2p cython',
     'decisions (core playouts) 2p python'),
    ('core decisions cython / maedn decisions',
     'decisions (core playouts) 2p cython',
     'decisions (Python API) maedn openspiel'),
    ('core whole turns cython / maedn decisions',
     'turns (core playouts) 2p cython',
     'decisions (Python API) maedn openspiel'),
    ('API decisions cython / maedn decisions',
     'decisions (Python API) 2p cython',
     'decisions (Python API) maedn openspiel'),
])



def _near_end(players: int = 2, seed: int = 3) -> str:
    """A chance node about two rounds of turns before the end of a seeded game."""
    game = Schuft(players=players)
    game.random_playout(seed=seed)
    for _ in range(4 * players):
        game.pop()
    return game.position()


@pytest.mark.parametrize("backend", BACKENDS)
def test_random_games(benchmark: Any, backend: str) -> None:
    """Whole random games inside the core (roll, enumerate, pick; no Python objects)."""
    game = Schuft.twin(backend)(players=2)
    games = 500 if backend == "cython" else 2
    stats = benchmark.pedantic(game.random_playouts, args=(games,), kwargs={"seed": 1},
                               rounds=3 if backend == "cython" else 1, iterations=1)
    RESULTS[f"games 2p {backend}"] = per_second(benchmark, games)
    RESULTS[f"turns (core playouts) 2p {backend}"] = per_second(benchmark, stats.plies)
    benchmark.extra_info.update(games=games, turns=stats.plies)


@pytest.mark.parametrize("backend", BACKENDS)
def test_random_decision_games(benchmark: Any, backend: str) -> None:
    """Whole random games inside the core, every turn made of random integer-layer
    decisions (one step each, like one piece move in maedn)."""
    game = Schuft.twin(backend)(players=2)
    games = 5000 if backend == "cython" else 5
    stats = benchmark.pedantic(game.random_decision_playouts, args=(games,),
                               kwargs={"seed": 1}, rounds=3 if backend == "cython" else 1,
                               iterations=1)
    RESULTS[f"decision games 2p {backend}"] = per_second(benchmark, games)
    RESULTS[f"decisions (core playouts) 2p {backend}"] = per_second(benchmark, stats.plies)
    benchmark.extra_info.update(games=games, decisions=stats.plies)


def _integer_layer_game(game: Any, rng: random.Random) -> tuple[int, int]:
    """One random game through apply_action: (decisions, chance events)."""
    decisions = chances = 0
    while not game.is_over():
        actions = game.legal_actions()
        if game.is_chance_node():
            chances += 1
        else:
            decisions += 1
        game.apply_action(actions[rng.randrange(len(actions))])
    return decisions, chances


@pytest.mark.parametrize("backend", BACKENDS)
def test_decisions_through_the_integer_layer(benchmark: Any, backend: str) -> None:
    """Decisions/s driving the game from Python, one step action at a time."""
    cls = Schuft.twin(backend)
    games = 20 if backend == "cython" else 1
    counts: list[int] = []

    def run() -> None:
        rng = random.Random(1)
        counts.clear()
        for _ in range(games):
            counts.append(_integer_layer_game(cls(players=2), rng)[0])
    benchmark.pedantic(run, rounds=1, iterations=1)
    RESULTS[f"decisions (Python API) 2p {backend}"] = per_second(benchmark, sum(counts))
    benchmark.extra_info.update(decisions=sum(counts))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("players", [2, 4])
def test_perft_1_from_the_start(benchmark: Any, backend: str, players: int) -> None:
    game = Schuft.twin(backend)(players=players)
    nodes = benchmark.pedantic(game.perft, args=(1,), rounds=5 if backend == "cython" else 1,
                               iterations=1)
    assert nodes == {2: 142656, 4: 165750}[players]
    RESULTS[f"perft(1) start {players}p {backend}"] = per_second(benchmark, nodes)


@pytest.mark.parametrize("backend", BACKENDS)
def test_perft_2_near_the_end(benchmark: Any, backend: str) -> None:
    game = Schuft.twin(backend).from_position(_near_end())
    if backend == "python":
        game.roll("9-9-8")  # the twin: one roll's subtree only
    nodes = benchmark.pedantic(game.perft, args=(2,), rounds=1, iterations=1)
    benchmark.extra_info.update(nodes=nodes)
    RESULTS[f"perft(2) near end {'one roll ' if backend == 'python' else ''}{backend}"] = \
        per_second(benchmark, nodes)


# ------------------------------------------------------------ OpenSpiel, if present
def test_openspiel_maedn_decisions(benchmark: Any) -> None:
    pyspiel = pytest.importorskip("pyspiel")   # optional comparison, not a dependency
    game = pyspiel.load_game("maedn")
    rng = random.Random(1)
    counts: list[int] = []

    def run(n: int) -> None:
        counts.clear()
        for _ in range(n):
            state = game.new_initial_state()
            decisions = 0
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
                else:
                    actions = state.legal_actions()
                    state.apply_action(actions[rng.randrange(len(actions))])
                    decisions += 1
            counts.append(decisions)
    benchmark.pedantic(run, args=(200,), rounds=1, iterations=1)
    RESULTS["decisions (Python API) maedn openspiel"] = per_second(benchmark, sum(counts))
    RESULTS["games maedn openspiel"] = per_second(benchmark, 200)
