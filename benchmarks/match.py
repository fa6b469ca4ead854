"""Matches between brett's computer players (and OpenSpiel's MCTSBot).

    PYTHONPATH=src python benchmarks/match.py reversi --games 100 --seconds 0.1
    PYTHONPATH=src python benchmarks/match.py focus --players 4 --games 100
    PYTHONPATH=src python benchmarks/match.py all --games 100 --seconds 0.1
    PYTHONPATH=src python benchmarks/match.py openspiel --games 40 --seconds 0.1
    PYTHONPATH=src python benchmarks/match.py schuft --games 100 --seconds 0.05
    PYTHONPATH=src python benchmarks/match.py schuft --games 200 --iterations 20000
    PYTHONPATH=src python benchmarks/match.py schuft-turns --games 100 --seconds 0.05

The first seat plays :class:`brett.ai.MCTSPlayer` (``--seconds`` per move, one
thread) against :class:`brett.ai.RandomPlayer` in the others; who starts
rotates from game to game.  A game still running after ``--max-plies`` moves
counts as not won.  ``openspiel`` plays brett's MCTSPlayer against OpenSpiel's
C++ ``MCTSBot`` (random-rollout evaluator) in Othello with the same wall time
per move (the bot's own wall-clock limit, which fits its simulation count to the
time in every position), and both players' iterations per second are reported.
``schuft-turns`` plays Schuft's search decision by decision (brett.ai's) against the
search of whole turns that came before it (the cores' private "turns" search mode,
kept for this match; playouts to the end), the same wall time per move, seats
rotating.  Figures, not asserts: the issue's thresholds are printed next to the
results.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections import Counter
from typing import Any, Optional

import brett
import brett.ai
from brett.ai import MCTSPlayer, RandomPlayer

# (game, options, label, the threshold for MCTS against random)
SETUPS = {
    "reversi": ("reversi", {}, "Reversi 8x8", 0.95),
    "focus": ("focus", {}, "Focus 2 players", 0.95),
    "focus4": ("focus", {"players": 4, "teams": False}, "Focus 4 players, free-for-all", 0.70),
    "phutball9": ("phutball", {"columns": 9, "rows": 9}, "Phutball 9x9", 0.95),
    "phutball": ("phutball", {}, "Phutball 15x19", 0.95),
    "schuft": ("schuft", {}, "Schuft 2 players", 0.98),
}
EXTRA = ["schuft-turns", "openspiel"]


def outcome(game: Any, winner: Optional[int], seat: int) -> str:
    """How one finished (or cut) game went for ``seat``."""
    if winner is None:
        return "draw" if game.is_over() else "unfinished"
    return "win" if winner == seat else "loss"


def play(game: Any, seats: list[Any], max_plies: int) -> tuple[Optional[int], int]:
    """Play one game: the winning seat's player index, or None (draw / unfinished),
    and the moves played (chance outcomes not counted)."""
    plies = 0
    while not game.is_over() and plies < max_plies:
        player = game.current_player()
        mover = seats[0] if player < 0 else seats[player]
        game.push(mover.choose(game))
        plies += player >= 0
    return (game.outcome().winner if game.is_over() else None), plies


def lengths(plies: list[int]) -> str:
    """The moves of the games won: median and 90th percentile (a race's speed)."""
    if not plies:
        return "no game won"
    ranked = sorted(plies)
    return (f"games won took {ranked[len(ranked) // 2]} moves (median), "
            f"{ranked[min(len(ranked) - 1, len(ranked) * 9 // 10)]} (90th percentile)")


def match_random(key: str, games: int, seconds: float, max_plies: int, seed: int,
                 budget_iterations: Optional[int] = None) -> None:
    name, options, label, target = SETUPS[key]
    cls = brett.GAMES[name]
    results: Counter[str] = Counter()
    iterations, searching = 0, 0.0
    won_plies: list[int] = []
    started = time.perf_counter()
    for g in range(games):
        game = cls(**options)
        n = game.num_players()
        budget = ({"iterations": budget_iterations} if budget_iterations
                  else {"seconds": seconds})
        mcts = MCTSPlayer(seed=seed + g, **budget)
        seat = g % n                                  # the seat MCTS takes this game
        seats: list[Any] = [RandomPlayer(seed=seed * 1000 + g * 10 + i) for i in range(n)]
        seats[seat] = mcts
        winner, plies = play(game, seats, max_plies)
        results[outcome(game, winner, seat)] += 1
        if winner == seat:
            won_plies.append(plies)
        iterations += mcts.total_iterations
        searching += mcts.total_seconds
    elapsed = time.perf_counter() - started
    wins, draws, unfinished = results["win"], results["draw"], results["unfinished"]
    rate = iterations / searching if searching else 0.0
    per_move = f"{budget_iterations} iterations" if budget_iterations else f"{seconds} s"
    print(f"{label}: MCTS ({per_move}/move) won {wins}/{games} = {wins / games:.0%} "
          f"(draws {draws}, unfinished {unfinished}; target >= {target:.0%}); "
          f"{rate:,.0f} iterations/s; {elapsed:.0f} s", flush=True)
    if name == "schuft":
        print(f"  {lengths(won_plies)}", flush=True)


# ------------------------------------------------------------------ Schuft's two searches
class _TurnsSearch(MCTSPlayer):
    """Schuft's search of whole turns a node with playouts to the end, as it was
    before the search went decision by decision (the cores' "turns" mode), and
    before the endgame tables (made with ``exact=False``: it searches the last
    pieces too)."""

    def choose(self, game: Any) -> Any:
        cores = brett.schuft._cores.get(game.backend())
        cores.set_search_mode("turns")
        try:
            return super().choose(game)
        finally:
            cores.set_search_mode("decisions")


def match_schuft_turns(games: int, seconds: float, max_plies: int, seed: int) -> None:
    results: Counter[str] = Counter()
    rates: dict[str, list[float]] = {"decisions": [0, 0.0], "turns": [0, 0.0]}
    started = time.perf_counter()
    for g in range(games):
        game = brett.Schuft(players=2, seed=seed + g)
        seat = g % 2                                  # the seat of the new search
        new = MCTSPlayer(seconds=seconds, seed=seed + g)
        old = _TurnsSearch(seconds=seconds, seed=seed * 1000 + g, max_plies=2**31 - 1,
                           exact=False)
        seats: list[Any] = [old, old]
        seats[seat] = new
        winner, _ = play(game, seats, max_plies)
        results[outcome(game, winner, seat)] += 1
        for key, player in (("decisions", new), ("turns", old)):
            rates[key][0] += player.total_iterations
            rates[key][1] += player.total_seconds
    elapsed = time.perf_counter() - started
    rate = {key: n / s if s else 0.0 for key, (n, s) in rates.items()}
    wins, draws, unfinished = results["win"], results["draw"], results["unfinished"]
    losses = games - wins - draws - unfinished
    print(f"Schuft 2 players: decisions vs whole turns ({seconds} s/move each) won "
          f"{wins}/{games} = {wins / games:.0%}, lost {losses} (draws {draws}, unfinished "
          f"{unfinished}; target >= 70%); iterations/s: decisions {rate['decisions']:,.0f}, "
          f"whole turns {rate['turns']:,.0f} = {rate['decisions'] / max(rate['turns'], 1):.0f}x "
          f"(target >= 50x); {elapsed:.0f} s", flush=True)


# ------------------------------------------------------------------ OpenSpiel
def match_openspiel(games: int, seconds: float, seed: int) -> None:
    import pyspiel

    spiel_game = pyspiel.load_game("othello")

    def bot_for(bot_seed: int) -> Any:
        # The bot's own wall-clock limit: each of its moves takes the same time
        # as brett's (a simulation count calibrated at the opening would leave
        # it short in the endgame, where its rollouts are shorter).
        evaluator = pyspiel.RandomRolloutEvaluator(1, bot_seed)
        return pyspiel.MCTSBot(spiel_game, evaluator, 2.0, 10**9, 1000, False,
                               bot_seed, False, max_wall_clock_time=seconds)

    print(f"OpenSpiel C++ MCTSBot (random rollouts, uct_c 2), {seconds} s of wall time "
          "per move", flush=True)

    wins = draws = 0
    iterations, searching, bot_times, bot_sims = 0, 0.0, 0.0, 0
    for g in range(games):
        brett_colour = g % 2
        game = brett.Reversi()
        state = spiel_game.new_initial_state()
        player = MCTSPlayer(seconds=seconds, seed=seed + g)
        bot = bot_for(seed + g)
        while not game.is_over():
            if game.current_player() == brett_colour:
                move = player.choose(game)
                action = _spiel_action(game, move)
            else:
                start = time.perf_counter()
                root = bot.mcts_search(state)   # what step() does, with the count
                action = root.best_child().action
                bot_times += time.perf_counter() - start
                bot_sims += root.explore_count
                move = _brett_move(game, action)
            game.push(move)
            state.apply_action(action)
        iterations += player.total_iterations
        searching += player.total_seconds
        winner = game.outcome().winner
        wins += winner == brett_colour
        draws += winner is None
        result = "won" if winner == brett_colour else "drew" if winner is None else "lost"
        print(f"  game {g + 1}: brett {result} as {('Black', 'White')[brett_colour]}",
              flush=True)
    rate = iterations / searching
    bot_rate = bot_sims / bot_times if bot_times else 0.0
    print(f"Othello: brett MCTSPlayer won {wins}/{games} = {wins / games:.0%} against "
          f"OpenSpiel's MCTSBot (draws {draws}; target >= 75%), {seconds} s per move; "
          f"thinking time: brett {searching:.1f} s, OpenSpiel {bot_times:.1f} s", flush=True)
    print(f"iterations/s: brett {rate:,.0f}, OpenSpiel {bot_rate:,.0f} "
          f"= {rate / bot_rate:.1f}x (target >= 20x)", flush=True)


def _spiel_action(game: Any, move: Any) -> int:
    """OpenSpiel's othello action: row * 8 + column, 64 for a pass."""
    return 64 if move.square is None else move.square


def _brett_move(game: Any, action: int) -> Any:
    return game.parse_move("pass") if action == 64 else game.action_to_move(action)


def _cpu() -> str:
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main(argv: Optional[list[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("setup", choices=[*SETUPS, "all", *EXTRA])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=0.1)
    parser.add_argument("--max-plies", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=None,
                        help="against random: this many iterations a move instead of --seconds")
    args = parser.parse_args(argv)
    print(f"# {_cpu()}, Python {sys.version.split()[0]}, search core: "
          f"{brett.ai.MCTSPlayer and brett.core_backends().get('search')}", flush=True)
    if args.setup == "openspiel":
        match_openspiel(args.games, args.seconds, args.seed)
        return
    if args.setup != "schuft-turns":
        for key in (SETUPS if args.setup == "all" else [args.setup]):
            match_random(key, args.games, args.seconds, args.max_plies, args.seed,
                         args.iterations)
    if args.setup in ("all", "schuft-turns"):
        match_schuft_turns(args.games, args.seconds, args.max_plies, args.seed)


if __name__ == "__main__":
    main()
