"""Monte Carlo tree search (UCT) over the search protocol of a plain-Python core.

The twin of ``_search_c.pyx`` and its specification: the same iterations, the
same arithmetic, the same random draws, so a seeded search grows the same tree
on both (the tests compare them).  See ``_search_c.pyx`` for the algorithm.
"""

from __future__ import annotations

import math
import threading
from typing import Any

from . import CHANCE, TERMINAL
from ._base import PyCore
from ._rng import SplitMix64

MAX_VISITS = 0x7FFFFFFF


class StopFlag:
    """Set by :meth:`set` (any thread) to end the searches that share it."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def set(self) -> None:
        self._event.set()

    def is_set(self) -> bool:
        return self._event.is_set()


class _Node:
    __slots__ = ("action", "children", "isq", "mean", "mover", "pending", "prob", "value",
                 "visits")

    def __init__(self, action: int, mover: int, prob: float) -> None:
        self.action = action
        self.value = 0.0
        self.mean = 0.0
        self.isq = 0.0
        self.prob = prob
        self.children: list[_Node] | None = None
        self.visits = 0
        self.mover = mover
        self.pending = -1


class Tree:
    """One search tree over a private core, grown by :meth:`run`."""

    def __init__(self, core: PyCore, seed: int, exploration: float, max_plies: int,
                 max_nodes: int) -> None:
        self.core = core
        self.rng = SplitMix64(seed)
        self.c = float(exploration)
        self.max_plies = max_plies
        self.max_nodes = max(max_nodes, 1)
        self.nodes: list[_Node] = [_Node(-1, CHANCE, 1.0)]
        self.nodes[0].pending = 0
        self.iterations = 0

    def _expand(self, node: _Node) -> bool:
        core = self.core
        player = core._player()
        options = (core._s_chance() if player == CHANCE
                   else [(a, 1.0) for a in core._s_actions()])
        full = len(self.nodes) + len(options) > self.max_nodes and node is not self.nodes[0]
        if not options or full:
            return False
        node.children = [_Node(a, player, p) for a, p in options]
        self.nodes.extend(node.children)
        return True

    def _select(self, node: _Node) -> _Node:
        assert node.children is not None
        best, top = node.children[0], -1.0
        reach = self.c * math.sqrt(math.log(node.visits)) if node.visits else 0.0
        for child in node.children:
            if child.visits == 0:
                return child
            score = child.mean + reach * child.isq
            if score > top:
                best, top = child, score
        return best

    def _sample(self, node: _Node) -> _Node:
        assert node.children is not None
        u = (self.rng.next() >> 11) * (1.0 / 9007199254740992.0)
        cum = 0.0
        for child in node.children:
            cum += child.prob
            if u < cum:
                return child
        return node.children[-1]

    def _iterate(self) -> None:
        core = self.core
        node = self.nodes[0]
        path = [node]
        try:
            while True:
                player = core._player()
                if player == TERMINAL:
                    mask = core._s_winners()
                    break
                if node.children is None and (
                        (node is not self.nodes[0] and node.visits == 0)
                        or not self._expand(node)):
                    mask, self.rng.state = core._s_playout(self.rng.state, self.max_plies)
                    break
                child = self._sample(node) if player == CHANCE else self._select(node)
                core._s_do(child.action)
                if child.pending < 0:
                    child.pending = int(core._s_pending())
                path.append(child)
                node = child
        finally:
            for _ in range(len(path) - 1):
                core._s_undo()
        shares = core._s_shares() if mask < 0 else None
        for node in path:
            node.visits += 1
            if node.mover >= 0:
                node.value += (shares[node.mover] if shares is not None else 0.5 if mask == 0
                               else (1.0 if (mask >> node.mover) & 1 else 0.0))
                node.mean = node.value / node.visits
                node.isq = 1.0 / math.sqrt(node.visits)

    def run(self, iterations: int, stop: StopFlag) -> int:
        """Up to ``iterations`` more iterations (-1: until stopped), at least one
        unless the game is over; the number done."""
        if self.core._player() == TERMINAL:
            return 0
        done = 0
        with self.core._guard:
            while ((iterations < 0 or done < iterations) and (done == 0 or not stop.is_set())
                   and self.nodes[0].visits < MAX_VISITS):
                self._iterate()
                done += 1
                self.iterations += 1  # read by MCTSPlayer.progress() meanwhile
        return done

    def root(self) -> list[tuple[int, int, float, int, Any]]:
        """``[(action, visits, value sum, pending, node)]`` of the root's children."""
        return self.children(self.nodes[0])

    def children(self, at: Any) -> list[tuple[int, int, float, int, Any]]:
        return [(c.action, c.visits, c.value, c.pending, c) for c in at.children or ()]

    @property
    def size(self) -> int:
        """The number of nodes."""
        return len(self.nodes)
