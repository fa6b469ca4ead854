"""Computer player benchmarks (pytest-benchmark; run explicitly, not part of the tests):

    PYTHONPATH=src python -m pytest benchmarks/bench_ai.py

MCTS iterations per second from each game's opening on both cores, the gain of
``threads=2`` over one thread (iterations per second of wall time, same budget),
and, when ``open_spiel`` is installed, OpenSpiel's C++ ``MCTSBot`` with its
random-rollout evaluator on Othello.  The strength figures (matches against
random players and against OpenSpiel) come from ``benchmarks/match.py``.
"""

from __future__ import annotations

from typing import Any

import pytest

from _figures import BACKENDS, Figures, needs_cython, per_second
from brett import GAMES
from brett.ai import MCTSPlayer

SETUPS = {  # name: (game, options); Schuft starts after the roll-off and a roll
    "reversi": ("reversi", {}), "focus": ("focus", {}),
    "phutball": ("phutball", {}), "schuft": ("schuft", {}),
}
ITERATIONS = {"cython": {"reversi": 100_000, "focus": 100_000, "phutball": 40_000,
                         "schuft": 100_000},
              "python": {"reversi": 1_000, "focus": 300, "phutball": 1_000, "schuft": 1_000}}

RESULTS = Figures("Computer players (MCTS)", [
    *[(f"{name} iterations/s cython / python", f"{name} cython", f"{name} python")
      for name in SETUPS],
    *[(f"{name} iterations/s threads=2 / threads=1", f"{name} cython threads=2",
       f"{name} cython") for name in SETUPS],
    ("othello iterations/s brett / OpenSpiel MCTSBot", "reversi cython",
     "othello openspiel MCTSBot"),
])


def opening(name: str, backend: str) -> Any:
    game_name, options = SETUPS[name]
    game = GAMES[game_name].twin(backend)(**options)
    while game.is_chance_node():       # Schuft: the roll-off, then the first roll
        game.apply_action(game.legal_actions()[7])
    return game


def search(game: Any, iterations: int, threads: int) -> int:
    player = MCTSPlayer(iterations=iterations, seed=1, threads=threads)
    player.choose(game)
    assert player.last_search is not None
    return player.last_search.iterations


@pytest.mark.parametrize("name", SETUPS)
@pytest.mark.parametrize("backend", BACKENDS)
def test_mcts_iterations(benchmark: Any, backend: str, name: str) -> None:
    game = opening(name, backend)
    iterations = ITERATIONS[backend][name]
    done = benchmark.pedantic(search, args=(game, iterations, 1), rounds=3, iterations=1)
    assert done == iterations
    RESULTS[f"{name} {backend}"] = per_second(benchmark, done)


@needs_cython
@pytest.mark.parametrize("name", SETUPS)
def test_mcts_two_threads(benchmark: Any, name: str) -> None:
    game = opening(name, "cython")
    iterations = ITERATIONS["cython"][name]
    done = benchmark.pedantic(search, args=(game, iterations, 2), rounds=3, iterations=1)
    assert done == iterations
    RESULTS[f"{name} cython threads=2"] = per_second(benchmark, done)


def test_openspiel_mcts_othello(benchmark: Any) -> None:
    pyspiel = pytest.importorskip("pyspiel")   # optional comparison, not a dependency
    game = pyspiel.load_game("othello")
    simulations = 2_000

    def step() -> int:
        bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, 1), 2.0, simulations,
                              1000, False, 1, False)
        bot.step(game.new_initial_state())
        return simulations
    done = benchmark.pedantic(step, rounds=3, iterations=1)
    RESULTS["othello openspiel MCTSBot"] = per_second(benchmark, done)
