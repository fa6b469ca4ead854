"""PUCT search with your evaluator: :class:`PUCTPlayer` (re-exported by :mod:`brett.ai`).

An AlphaZero-style tree search over the integer layer of any game: an
``evaluator(observations, masks) -> (priors, values)`` values the leaves in
batches (virtual loss spreads a batch over distinct leaves), and the root's
visit counts are the policy target.  ``evaluator=None`` is uniform priors and
random-rollout values, the plain MCTS's knowledge.  See docs/ai.md.

The search drives a private copy of the game through its public integer layer
(``apply_action`` / ``undo_action``, ``observation_tensor(out=)``,
``legal_actions_mask(out=)``, ``chance_outcomes``, ``returns``,
``random_playouts``), so it runs on both twins of every game, and a seeded search
with a simulation budget grows the same tree on both: every random draw comes
from one numpy generator, in the same order.

The tree lives in flat arrays: visits ``N``, value sums ``W`` (from the view of
the player who chose the node: its owner) and priors ``P`` as numpy vectors
over all nodes, a node's children contiguous (``first``, ``count``), so a
selection step is a few vector operations on a slice.
"""

from __future__ import annotations

import bisect
import math
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, TypeVar

from .._checks import as_int, optional_cap, seed_value
from .._core import CHANCE, TERMINAL
from .._core._stop import check as stop_check
from .._core._stop import requested as stop_requested
from ..errors import BrettError
from ..game import Game, _numpy
from ._base import MoveStats, Player, SearchInfo, _positive

if TYPE_CHECKING:
    import numpy
    import numpy.typing

    Evaluator = Callable[[numpy.typing.NDArray[numpy.float32], numpy.typing.NDArray[numpy.bool_]],
                         tuple[Any, Any]]

__all__ = ["PUCTPlayer", "PUCTSearchInfo"]

MoveT = TypeVar("MoveT")

UNKNOWN = -100          # a node's player before its first visit
MAX_BATCH = 65536
MAX_NODES = 50_000_000
MAX_ROLLOUTS = 10_000
TINY = 1e-12            # divides a node's value sum by its visits even with fractional virtual loss
VALUE_SLACK = 1e-5      # float32 networks put a tanh a hair outside [-1, 1]


@dataclass(frozen=True)
class PUCTSearchInfo(SearchInfo):
    """What the last search of a :class:`PUCTPlayer` did: ``iterations`` counts the
    simulations (leaves valued), ``evaluations`` the calls of the evaluator and
    ``leaves`` the positions they were given (their ratio is the mean batch)."""

    evaluations: int = 0
    leaves: int = 0


class PUCTPlayer(Player):
    """PUCT tree search with an evaluator of your own (AlphaZero style).

    ``evaluator(observations, masks) -> (priors, values)``: ``observations`` a
    float32 array ``[B, *game.observation_tensor_shape()]``, ``masks`` a bool array
    ``[B, game.num_distinct_actions()]`` of the legal actions; ``priors``
    ``[B, num_actions]`` (non-negative, masked to the legal actions and
    renormalised here; all zero: uniform), ``values`` ``[B]`` (or ``[B, 1]``) from
    the view of the player to move at each position, or ``[B, num_players]``, one
    per player, all in [-1, 1] (1 a win, -1 a loss, as ``returns()``).  A scalar
    value in a game of n players gives the others ``-v / (n - 1)`` each.  The
    arrays are reused between calls: copy what you keep.  ``evaluator=None``:
    uniform priors and the mean result of ``rollouts`` random playouts (each cut
    after ``max_plies`` moves, default the game's own search setting; a cut game
    counts as a draw).

    The budget is ``simulations`` and/or ``seconds`` (whichever ends first); leaves
    go to the evaluator ``batch_size`` at a time, ``virtual_loss`` spreading a
    batch over distinct leaves.  ``c_puct`` weighs the priors; an unvisited child
    counts as a draw (0).  ``dirichlet_fraction`` of the root's priors is
    Dirichlet(``dirichlet_alpha``) noise (0: none); ``temperature`` 0 plays the
    most visited move, T > 0 samples in proportion to visits ** (1 / T).  The
    tree is capped at ``max_nodes`` nodes (a full tree values leaves without
    growing).  A seeded search with a ``simulations`` budget is reproducible and
    the same on both twins of a game.
    """

    def __init__(self, evaluator: Optional[Evaluator] = None, *, simulations: Optional[int] = 800,
                 seconds: Optional[float] = None, batch_size: int = 8, c_puct: float = 1.5,
                 dirichlet_alpha: float = 0.3, dirichlet_fraction: float = 0.25,
                 temperature: float = 0.0, virtual_loss: float = 1.0,
                 seed: Optional[int] = None, rollouts: int = 1, max_plies: Optional[int] = None,
                 max_nodes: int = 2_000_000) -> None:
        if evaluator is not None and not callable(evaluator):
            raise BrettError(f"evaluator={evaluator!r:.60}: expected a callable or None")
        if simulations is None and seconds is None:
            raise BrettError("give a budget: simulations and/or seconds")
        self.evaluator = evaluator
        self.simulations = (None if simulations is None
                            else as_int(simulations, "simulations", 1, 2**31 - 1))
        self.seconds = None if seconds is None else _positive(seconds, "seconds")
        self.batch_size = as_int(batch_size, "batch_size", 1, MAX_BATCH)
        self.c_puct = _positive(c_puct, "c_puct", zero=True)
        self.dirichlet_alpha = _positive(dirichlet_alpha, "dirichlet_alpha")
        self.dirichlet_fraction = _positive(dirichlet_fraction, "dirichlet_fraction", zero=True)
        if self.dirichlet_fraction > 1:
            raise BrettError(f"dirichlet_fraction={dirichlet_fraction!r}: expected 0 to 1")
        self.temperature = _positive(temperature, "temperature", zero=True)
        self.virtual_loss = _positive(virtual_loss, "virtual_loss", zero=True)
        self.rollouts = as_int(rollouts, "rollouts", 1, MAX_ROLLOUTS)
        self.max_plies = optional_cap(max_plies, error=BrettError)
        self.max_nodes = as_int(max_nodes, "max_nodes", 1, MAX_NODES)
        self._seeds = random.Random(seed_value(seed))
        self._seed_lock = threading.Lock()
        self._busy = threading.Lock()
        self._stop: Optional[threading.Event] = None
        self.last_search: Optional[PUCTSearchInfo] = None
        self.last_policy: Optional[numpy.typing.NDArray[numpy.float64]] = None
        """The root's visit distribution of the last search (see :meth:`policy`)."""

    def __repr__(self) -> str:
        return (f"PUCTPlayer(evaluator={self.evaluator!r}, simulations={self.simulations}, "
                f"seconds={self.seconds}, batch_size={self.batch_size})")

    # ---- public
    def choose(self, game: Game[MoveT]) -> MoveT:
        """The move to play (a whole move, also where it takes several actions: the
        first action by ``temperature``, the rest along the most visited steps);
        at a chance node an outcome drawn by its probability.  The game is not
        changed."""
        game = self._check(game)
        if game.is_chance_node():
            return game.action_to_move(self._draw_outcome(game))
        tree = self._search(game)
        first = tree.pick(self.temperature)
        return tree.complete(first)  # type: ignore[no-any-return]

    def choose_action(self, game: Game[Any]) -> int:
        """The next integer action (by ``temperature``), also in the middle of a
        move of several actions; at a chance node an outcome drawn by its
        probability.  :attr:`last_policy` holds the search's policy target."""
        game = self._check_root(game)
        if game.is_chance_node():
            return self._draw_outcome(game)
        tree = self._search(game)
        return int(tree.action[tree.first[0] + tree.pick(self.temperature)])

    def policy(self, game: Game[Any]) -> numpy.typing.NDArray[numpy.float64]:
        """Search and return the root's visit counts as a distribution over all
        ``num_distinct_actions()`` actions (0 on illegal ones, summing to 1): the
        policy target of self-play.  Works in the middle of a multi-action move."""
        game = self._check_root(game)
        if game.is_chance_node():
            raise BrettError("a chance node: the dice decide, there is no policy to search")
        self._search(game)
        assert self.last_policy is not None
        return self.last_policy.copy()

    def analyse(self, game: Game[MoveT]) -> list[MoveStats[MoveT]]:
        """Every move the search tried, best first (most visits, then value), with
        its visits and mean value for the player to move (1 win, 0 loss, 0.5 draw,
        as :meth:`MCTSPlayer.analyse <brett.ai.MCTSPlayer.analyse>`).  A move of
        several actions is its first action completed along the most visited steps;
        first actions that complete to the same move are one row."""
        game = self._check(game)
        if game.is_chance_node():
            raise BrettError("a chance node: the dice decide, there is nothing to analyse")
        tree = self._search(game)
        f, k = tree.first[0], tree.count[0]
        visits = tree.N[f:f + k]
        # root actions that complete to one move (a Schuft turn's steps in another
        # order) make one row, their visits and values added, as MCTSPlayer's
        merged: dict[str, list[Any]] = {}
        for i in range(k):
            if visits[i] > 0:
                move = tree.complete(i)
                row = merged.setdefault(str(move), [0, 0.0, i, move])
                row[0] += int(visits[i])
                row[1] += float(tree.W[f + i])
        ranked = sorted(merged.values(), key=lambda row: (-row[0], -row[1] / row[0], row[2]))
        return [MoveStats(move, n, (1.0 + w / n) / 2.0) for n, w, _, move in ranked]

    def stop(self) -> None:
        """End the running search (from any thread); it returns its best move so far."""
        flag = self._stop
        if flag is not None:
            flag.set()

    # ---- helpers
    def _check_root(self, game: Any) -> Game[Any]:
        if not isinstance(game, Game):
            raise BrettError(f"expected a brett game, got {type(game).__name__}")
        if game.is_over():
            raise BrettError("the game is over: there is no move to choose")
        return game

    def _next_seed(self) -> int:
        with self._seed_lock:
            return self._seeds.getrandbits(64)

    def _draw_outcome(self, game: Game[Any]) -> int:
        outcomes = game.chance_outcomes()
        rng = random.Random(self._next_seed())
        return int(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])

    def _search(self, game: Game[Any]) -> _Tree:
        if not self._busy.acquire(blocking=False):
            raise BrettError("this PUCTPlayer is searching in another thread: "
                             "give each thread its own player")
        try:
            stop = threading.Event()
            self._stop = stop
            tree = _Tree(self, game, self._next_seed())
            start = time.perf_counter()
            deadline = None if self.seconds is None else start + self.seconds
            interrupted = tree.run(self.simulations, deadline, stop)
            elapsed = time.perf_counter() - start
            stop_check()  # a Stopper of this thread ended the search: Stopped, as every call
            self.last_search = PUCTSearchInfo(tree.simulations, elapsed, tree.size, 1,
                                              interrupted, tree.evaluations, tree.leaves)
            self.last_policy = tree.policy()
            return tree
        finally:
            self._stop = None
            self._busy.release()


class _Tree:
    """One search: the tree, the private game it moves through, the batch buffers."""

    def __init__(self, player: PUCTPlayer, game: Game[Any], seed: int) -> None:
        np = _numpy()  # an ImportError that says how to install it
        self.np = np
        self.player = player
        self.start = game.copy(stack=False)   # untouched: moves are completed on copies
        self.game = self.start.copy(stack=False)
        self.rng = np.random.default_rng(seed)
        self.players = game.num_players()
        self.actions = game.num_distinct_actions()
        self.evaluator = player.evaluator
        self.batch = 1 if self.evaluator is None else player.batch_size
        self.c_puct = player.c_puct
        self.vl = player.virtual_loss
        self.plies = player.max_plies if player.max_plies >= 0 else game._search_plies
        self.obs = np.zeros((self.batch, *game.observation_tensor_shape()), dtype=np.float32)
        self.masks = np.zeros((self.batch, self.actions), dtype=bool)
        capacity = 1024
        self.N = np.zeros(capacity)
        self.W = np.zeros(capacity)
        self.P = np.zeros(capacity)
        self.owner = np.full(capacity, CHANCE, dtype=np.intp)  # CHANCE: no one's value
        # the structure as lists: a scalar read is cheaper than a numpy one
        self.first = [-1]
        self.count = [0]
        self.action = [-1]
        self.mover = [UNKNOWN]
        self.size = 1
        self.terminal: dict[int, Any] = {}        # node -> its returns (+ a 0 for CHANCE)
        self.cumulative: dict[int, list[float]] = {}  # chance node -> cumulative probabilities
        self.simulations = self.evaluations = self.leaves = 0
        self.held: list[Any] = []   # paths under virtual loss until their batch ends

    # ---- the loop
    def run(self, simulations: Optional[int], deadline: Optional[float],
            stop: threading.Event) -> bool:
        """Simulate until the budget is spent; True if stopped (stop(), a Stopper,
        Ctrl-C) before that.  The root and one child are always searched."""
        interrupted = False
        try:
            while True:
                searched = self.root_searched()
                if searched and simulations is not None and self.simulations >= simulations:
                    break
                if searched and (stop.is_set() or stop_requested()):
                    interrupted = True
                    break
                if searched and deadline is not None and time.perf_counter() >= deadline:
                    break
                want = self.batch if simulations is None else max(
                    1, min(self.batch, simulations - self.simulations))
                self.step(want)
        except KeyboardInterrupt:
            if not self.root_searched():
                raise
            interrupted = True
            self.repair()
        return interrupted

    def root_searched(self) -> bool:
        f = self.first[0]
        return f >= 0 and bool(self.N[f:f + self.count[0]].any())

    def step(self, want: int) -> None:
        """Select up to ``want`` distinct leaves under virtual loss, value them
        (terminal ones at once, the rest in one evaluator call), back them up."""
        np = self.np
        vl = self.vl
        leaves: list[tuple[int, Any, Any, int, Any]] = []  # node, path, legal, mover, value
        waiting: set[int] = set()
        taken = collisions = 0
        while taken < want and collisions < want:
            node, path, applied, kind, values = self.descend()
            game = self.game
            try:
                idx = np.array(path, dtype=np.intp)
                N, W = self.N, self.W  # after descend(): a chance expansion may grow them
                if kind == TERMINAL:
                    N[idx] += 1.0
                    W[idx] += values[self.owner[idx]]
                    self.simulations += 1
                    taken += 1
                    continue
                N[idx] += vl
                W[idx] -= vl
                self.held.append(idx)
                if node in waiting:
                    collisions += 1
                    continue
                waiting.add(node)
                taken += 1
                row = len(leaves)
                mask = self.masks[row]
                game.legal_actions_mask(out=mask)
                legal = np.flatnonzero(mask)
                value = None
                if self.evaluator is None:
                    value = self.rollout()
                else:
                    game.observation_tensor(out=self.obs[row])
                leaves.append((node, idx, legal, kind, value))
            finally:
                for _ in range(applied):
                    game.undo_action()
        priors = values = None
        if leaves and self.evaluator is not None:
            priors, values = self.evaluate(len(leaves))
        for row, (node, idx, legal, kind, value) in enumerate(leaves):
            if priors is None:
                prior = np.full(len(legal), 1.0 / max(1, len(legal)))
            else:
                prior = _prior_row(np, priors[row], legal, row)
                value = self.value_vector(values[row], kind)
            self.expand(node, legal, prior, kind)
            N, W = self.N, self.W
            N[idx] += 1.0
            W[idx] += value[self.owner[idx]]
            self.simulations += 1
        self.release()

    def release(self) -> None:
        """Take the batch's virtual loss back."""
        N, W, vl = self.N, self.W, self.vl
        held = self.held
        while held:  # one path at a time: a Ctrl-C in here leaves the rest to repair()
            idx = held.pop()
            N[idx] -= vl
            W[idx] += vl

    def repair(self) -> None:
        """After Ctrl-C: the virtual loss back, so the root's counts are visits."""
        self.release()

    def descend(self) -> tuple[int, list[int], int, int, Any]:
        """From the root to a leaf on the game: the leaf, the path, the actions
        applied (to undo), the player to move at the leaf and, at the end of the
        game, its returns (plus a 0 for CHANCE).  Chance nodes are expanded on the
        way and an outcome drawn, so a leaf is a decision or a terminal position;
        in a full tree a chance leaf's position gets its outcomes drawn."""
        game = self.game
        first, count, mover = self.first, self.count, self.mover
        N, W, P = self.N, self.W, self.P
        node, path, applied = 0, [0], 0
        c_puct = self.c_puct
        try:
            while True:
                kind = mover[node]
                if kind == UNKNOWN:
                    kind = game.current_player()
                    mover[node] = kind
                    if kind == TERMINAL:
                        self.terminal[node] = self.returns()
                if kind == TERMINAL:
                    return node, path, applied, kind, self.terminal[node]
                f = first[node]
                if kind == CHANCE:
                    if f < 0:
                        f = self.expand_chance(node)
                        N, W, P = self.N, self.W, self.P  # grown
                    if f < 0:  # a full tree: no nodes for the outcomes
                        while game.is_chance_node():
                            game.apply_action(self.sample_outcome(game))
                            applied += 1
                        kind = game.current_player()
                        return node, path, applied, kind, (self.returns() if kind == TERMINAL
                                                           else None)
                    cum = self.cumulative[node]
                    i = min(bisect.bisect_right(cum, self.rng.random() * cum[-1]), count[node] - 1)
                else:
                    if f < 0:
                        return node, path, applied, kind, None
                    end = f + count[node]
                    n = N[f:end]
                    score = W[f:end] / (n + TINY) + (c_puct * math.sqrt(N[node])) * P[f:end] \
                        / (n + 1.0)
                    i = int(score.argmax())
                node = f + i
                game.apply_action(self.action[node])
                applied += 1
                path.append(node)
        except BaseException:
            for _ in range(applied):
                game.undo_action()
            raise

    def returns(self) -> Any:
        np = self.np
        return np.append(np.asarray(self.game.returns(), dtype=float), 0.0)

    def sample_outcome(self, game: Game[Any]) -> int:
        outcomes = game.chance_outcomes()
        cum = list(_accumulate([p for _, p in outcomes]))
        i = min(bisect.bisect_right(cum, self.rng.random() * cum[-1]), len(cum) - 1)
        return outcomes[i][0]

    # ---- growing the tree
    def reserve(self, k: int) -> int:
        """Room for ``k`` more nodes: their first index, or -1 if the tree is full."""
        start = self.size
        if start + k > self.player.max_nodes and start > 1:
            return -1
        capacity = len(self.N)
        if start + k > capacity:
            np = self.np
            grown = max(2 * capacity, start + k)
            for name in ("N", "W", "P"):
                old = getattr(self, name)
                new = np.zeros(grown)
                new[:capacity] = old
                setattr(self, name, new)
            owner = np.full(grown, CHANCE, dtype=np.intp)
            owner[:capacity] = self.owner
            self.owner = owner
        self.size = start + k
        self.first.extend([-1] * k)
        self.count.extend([0] * k)
        self.mover.extend([UNKNOWN] * k)
        return start

    def expand(self, node: int, legal: Any, prior: Any, kind: int) -> None:
        k = len(legal)
        if k == 0 or self.first[node] >= 0:
            return
        f = self.reserve(k)
        if f < 0:
            return
        if node == 0 and self.player.dirichlet_fraction > 0:
            frac = self.player.dirichlet_fraction
            noise = self.rng.dirichlet([self.player.dirichlet_alpha] * k)
            prior = (1.0 - frac) * prior + frac * noise
        self.P[f:f + k] = prior
        self.owner[f:f + k] = kind
        self.action.extend(int(a) for a in legal)
        self.first[node] = f
        self.count[node] = k

    def expand_chance(self, node: int) -> int:
        outcomes = self.game.chance_outcomes()
        k = len(outcomes)
        f = self.reserve(k)
        if f < 0:
            return -1
        probs = [p for _, p in outcomes]
        self.P[f:f + k] = probs
        self.action.extend(a for a, _ in outcomes)
        self.cumulative[node] = list(_accumulate(probs))
        self.first[node] = f
        self.count[node] = k
        return f

    # ---- values
    def rollout(self) -> Any:
        """The mean result of random playouts from the game's position (a pending
        move first completed by random actions), per player, plus a 0 for CHANCE."""
        np, game = self.np, self.game
        made = 0
        try:
            while game.pending_actions and not game.is_over():
                legal = game.legal_actions()
                game.apply_action(legal[int(self.rng.integers(len(legal)))])
                made += 1
            if game.is_over():
                out = np.asarray(game.returns(), dtype=float)
            else:
                n = self.player.rollouts
                stats = game.random_playouts(n, seed=int(self.rng.integers(2**63)),
                                             max_plies=None if self.plies < 0 else self.plies)
                wins = np.asarray(stats.wins, dtype=float)
                decided = n - stats.draws - stats.unfinished
                out = (2.0 * wins - decided) / n
        finally:
            for _ in range(made):
                game.undo_action()
        return np.append(out, 0.0)

    def evaluate(self, rows: int) -> tuple[Any, Any]:
        """Call the evaluator on the first ``rows`` positions of the buffers and
        check what it returns."""
        assert self.evaluator is not None
        answer = self.evaluator(self.obs[:rows], self.masks[:rows])
        self.evaluations += 1
        self.leaves += rows
        return _check_answer(self.np, answer, rows, self.actions, self.players)

    def value_vector(self, value: Any, mover: int) -> Any:
        """One position's value per player (plus a 0 for CHANCE)."""
        np = self.np
        if np.ndim(value) == 0:
            v = float(value)
            out = np.full(self.players + 1, -v / max(1, self.players - 1))
            out[mover] = v
            out[-1] = 0.0
            return out
        return np.append(value, 0.0)

    # ---- results
    def policy(self) -> Any:
        np = self.np
        out = np.zeros(self.actions)
        f, k = self.first[0], self.count[0]
        visits = self.N[f:f + k]
        out[self.action[f:f + k]] = visits / visits.sum()
        return out

    def pick(self, temperature: float) -> int:
        """The root child to play: most visits (then value, then order) at
        temperature 0, else drawn in proportion to visits ** (1 / temperature)."""
        np = self.np
        f, k = self.first[0], self.count[0]
        visits = self.N[f:f + k]
        if temperature == 0:
            return _most_visited(np, visits, self.W[f:f + k])
        logs = np.where(visits > 0, np.log(np.maximum(visits, TINY)), -np.inf) / temperature
        weights = np.exp(logs - logs.max())
        cum = np.cumsum(weights)
        return int(min(np.searchsorted(cum, self.rng.random() * cum[-1], side="right"), k - 1))

    def complete(self, child: int) -> Any:
        """The whole move that the root's ``child`` starts: while the move is
        pending, the most visited next step (off the visited tree: the highest
        prior, or an evaluator's / a random choice where nothing was expanded)."""
        np = self.np
        work = self.start.copy(stack=False)
        node = self.first[0] + child   # -1 once off the tree
        work.apply_action(self.action[node])
        while work.pending_actions and not work.is_over():
            f = -1 if node < 0 else self.first[node]
            if f >= 0:
                k = self.count[node]
                visits = self.N[f:f + k]
                i = (_most_visited(np, visits, self.W[f:f + k]) if visits.any()
                     else int(self.P[f:f + k].argmax()))
                node = f + i
                work.apply_action(self.action[node])
                continue
            node = -1
            work.apply_action(self.off_tree(work))
        return work.peek()

    def off_tree(self, work: Game[Any]) -> int:
        legal = work.legal_actions()
        if self.evaluator is None:
            return legal[int(self.rng.integers(len(legal)))]
        np = self.np
        work.observation_tensor(out=self.obs[0])
        work.legal_actions_mask(out=self.masks[0])
        priors, _ = self.evaluate(1)
        row = _prior_row(np, priors[0], np.asarray(legal), 0)
        return int(legal[int(row.argmax())])


def _accumulate(values: list[float]) -> Any:
    total = 0.0
    for v in values:
        total += v
        yield total


def _most_visited(np: Any, visits: Any, sums: Any) -> int:
    best = visits.max()
    candidates = np.flatnonzero(visits == best)
    if len(candidates) == 1:
        return int(candidates[0])
    means = sums[candidates] / max(best, TINY)
    return int(candidates[int(means.argmax())])


def _as_numbers(np: Any, value: Any, name: str) -> Any:
    try:
        array = np.asarray(value)
    except Exception as error:  # any object: what numpy says names the problem
        raise BrettError(f"evaluator: {name} is not an array of numbers ({error})") from None
    if array.dtype.kind not in "fiu":
        raise BrettError(f"evaluator: {name} has dtype {array.dtype}: expected real numbers")
    return array.astype(np.float64)


def _check_answer(np: Any, answer: Any, rows: int, actions: int, players: int) -> tuple[Any, Any]:
    """The evaluator's ``(priors, values)`` as float64 arrays of the shapes
    expected, or a BrettError that names what is wrong."""
    try:
        first, second = answer
    except (TypeError, ValueError):
        raise BrettError(f"evaluator: expected a pair (priors, values), got "
                         f"{type(answer).__name__}") from None
    priors = _as_numbers(np, first, "priors")
    values = _as_numbers(np, second, "values")
    if priors.shape != (rows, actions):
        raise BrettError(f"evaluator: priors of shape {priors.shape}, expected ({rows}, {actions})"
                         " (batch, num_distinct_actions)")
    if values.shape == (rows, 1):
        values = values[:, 0]
    if values.shape not in ((rows,), (rows, players)):
        raise BrettError(f"evaluator: values of shape {values.shape}, expected ({rows},) (the "
                         f"mover's view) or ({rows}, {players}) (per player)")
    if not np.isfinite(values).all():
        raise BrettError("evaluator: values contain NaN or infinity")
    if np.abs(values).max() > 1.0 + VALUE_SLACK:
        raise BrettError(f"evaluator: value {float(values.flat[np.abs(values).argmax()])} "
                         "is outside [-1, 1]")
    return priors, np.clip(values, -1.0, 1.0)


def _prior_row(np: Any, row: Any, legal: Any, index: int) -> Any:
    """One position's priors on its legal actions, normalised (all zero: uniform)."""
    prior = row[legal]
    if not np.isfinite(prior).all():
        raise BrettError(f"evaluator: priors of position {index} contain NaN or infinity "
                         "on legal actions")
    if (prior < 0).any():
        raise BrettError(f"evaluator: priors of position {index} are negative on legal actions "
                         "(expected probabilities: apply a softmax to logits)")
    total = prior.sum()
    if not np.isfinite(total):
        raise BrettError(f"evaluator: priors of position {index} overflow when summed")
    if total <= 0:
        return np.full(len(legal), 1.0 / max(1, len(legal)))
    return prior / total
