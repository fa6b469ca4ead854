"""The search protocol of the compiled Focus core (the s_* methods brett.ai's tree
search calls without the GIL, seen through ``brett._core._common``'s probes)
against the plain twin's ``_s_*`` hooks.

A search action is a core move, in the order of ``moves()``; Focus has no chance
nodes and no moves of several actions.  Random walks over 2, 3 and 4 players
(teams and free-for-all), the three move rules, the ply cap and the mirror rule
compare the actions, the state after every action, the playouts (which must
leave the state alone) and the winners at the end, then take everything back.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brett._core import _common
from brett._core._common import (
    probe_actions,
    probe_chance,
    probe_do,
    probe_pending,
    probe_player,
    probe_playout,
    probe_shares,
    probe_undo,
    probe_winners,
)
from brett._core._focus_py import NUM_SQUARES, TARGET, FocusState, pairs_for
from brett.focus import Focus
from brett.game import TERMINAL
from conftest import needs_cython
from test_focus import positions

pytestmark = needs_cython

SETUPS: dict[str, dict[str, Any]] = {
    "2p": {},
    "3p": {"players": 3},
    "3p-up_to-cap": {"players": 3, "move_rule": "up_to", "max_plies": 90},
    "4p-teams": {"players": 4},
    "4p-teams-whole": {"players": 4, "move_rule": "whole"},
    "4p-ffa-up_to": {"players": 4, "teams": False, "move_rule": "up_to"},
    "2p-mirror-swap-cap": {"mirror_rule": True, "swap": "random", "seed": 3,
                           "max_plies": 60, "move_rule": "whole"},
}


def twins(py_game: Any, cy_game: Any) -> tuple[Any, Any]:
    """Private clones of the two cores, as the search takes them."""
    py, cy = py_game._core.clone(False), cy_game._core.clone(False)
    assert cy.get_state() == py.get_state()
    return py, cy


def check_node(py: Any, cy: Any) -> list[int]:
    """The two cores agree on this node; its actions."""
    assert probe_player(cy) == py._player() == cy.player() == py.player()   # _s_player: _player
    assert probe_pending(cy) is False and py._s_pending() is False
    assert probe_chance(cy) == py._s_chance() == []
    actions = probe_actions(cy)
    assert actions == py._s_actions() == cy.moves()
    if probe_player(cy) == TERMINAL:
        assert actions == []
        result = py.result()
        mask = probe_winners(cy)
        assert mask == py._s_winners() == result[0] == cy.result()[0]
        if result[1] == 5:  # 4 players, teams: both members of the team win
            assert mask in (0b0101, 0b1010)
    else:
        assert actions and probe_winners(cy) == py._s_winners() == 0
    return actions


def check_playout(py: Any, cy: Any, seed: int, max_plies: int) -> None:
    """One playout: the twin's, and the first game of the compiled core's playouts();
    neither core changes."""
    state, key = cy.get_state(), cy.key()
    got = probe_playout(cy, seed, max_plies)
    wins, _, unfinished, _, rng = cy.playouts(1, seed, max_plies)
    assert got[1] == rng
    if not unfinished:
        assert got[0] == sum(1 << p for p, w in enumerate(wins) if w)
    else:
        assert got[0] == -1
    assert got == py._s_playout(seed, max_plies)
    if unfinished:
        assert probe_shares(cy)[:py._n] == py._s_shares()[:py._n]
    assert cy.get_state() == py.get_state() == state and cy.key() == py.key() == key


def walk(py: Any, cy: Any, rng: random.Random, steps: int,
         playout_plies: tuple[int, ...]) -> tuple[int, int]:
    """Up to ``steps`` random actions on both cores, every node checked, then all
    taken back; (actions made, winners' bits at the end or -1)."""
    trail = [(cy.get_state(), cy.key())]
    mask = -1
    for _ in range(steps):
        actions = check_node(py, cy)
        if rng.random() < 0.25:
            check_playout(py, cy, rng.getrandbits(64), rng.choice(playout_plies))
        if not actions:
            mask = probe_winners(cy)
            break
        action = rng.choice(actions)
        probe_do(cy, action)
        py._s_do(action)
        state = cy.get_state()
        assert state == py.get_state() and cy.key() == py.key() == cy.full_key()
        assert cy.entries == []   # s_do keeps off the public move stack
        trail.append((state, cy.key()))
    else:
        check_node(py, cy)
    made = len(trail) - 1
    while len(trail) > 1:
        trail.pop()
        probe_undo(cy)
        py._s_undo()
        assert (cy.get_state(), cy.key()) == trail[-1] == (py.get_state(), py.key())
    return made, mask


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_random_walks_from_the_start(setup: str) -> None:
    options = SETUPS[setup]
    py, cy = twins(Focus.twin("python")(**options), Focus.twin("cython")(**options))
    rng = random.Random(setup)
    deepest = 0
    for _ in range(2):
        made, _ = walk(py, cy, rng, 160, (0, 1, 5, 20))
        deepest = max(deepest, made)
    cap = options.get("max_plies")
    assert deepest == (cap if cap else 160)   # no cap: beyond the undo stack's first 64


def test_playouts_to_the_end_of_the_game() -> None:
    """Uncapped playouts (max_plies=-1) of whole 3-player games (most random
    Focus games last thousands of plies: the seeds are chosen by the compiled
    core among those that end within 3000)."""
    options = {"players": 3, "move_rule": "whole"}
    py, cy = twins(Focus.twin("python")(**options), Focus.twin("cython")(**options))
    seeds = [s for s in range(40) if cy.playouts(1, s, 3000)[2] == 0][:3]
    assert len(seeds) == 3
    for seed in seeds:
        check_playout(py, cy, seed, -1)
        assert probe_playout(cy, seed, -1)[0] != 0
        check_playout(py, cy, seed, 10)
        assert probe_playout(cy, seed, 10)[0] == -1   # cut: valued by shares
        assert probe_shares(cy)[:3] == pytest.approx(shares_after(py, seed, 10))


def shares_after(core: Any, seed: int, plies: int) -> list[float]:
    """Each player's value of a playout cut after ``plies`` random moves, from the
    public state of a clone: with s a side's stacks on top plus reserve and m the
    best other side's, 0.5 + 0.5 * (s - m) / (s + m)."""
    clone = core.clone(False)
    for _ in range(plies):
        cm, seed = clone.random_move(seed)
        clone.push(cm, None)
    state = clone.get_state()
    teams = state.players == 4 and state.teams
    tops = [sum(1 for s in state.board if s and s[-1] == p) for p in range(state.players)]
    score = [t + r for t, r in zip(tops, state.reserves, strict=True)]
    if teams:
        score = [score[0] + score[2], score[1] + score[3]]
    values = []
    for p, s in enumerate(score):
        m = max(x for q, x in enumerate(score) if q != p)
        values.append(0.5 + 0.5 * (s - m) / (s + m))
    return values * 2 if teams else values


def board(stacks: dict[str, str]) -> str:
    """A Focus board field from {square: stack bottom to top} (F12)."""
    files, cut = "abcdefgh", {"a1", "b1", "a2", "g1", "h1", "h2", "a7", "a8", "b8", "g8",
                              "h8", "h7"}
    return "/".join(",".join(stacks.get(f"{f}{y}", ".") for f in files if f"{f}{y}" not in cut)
                    for y in range(8, 0, -1))


def explore(py: Any, cy: Any, rng: random.Random, depth: int, width: int,
            ends: set[tuple[int, int, int]]) -> None:
    """A sampled tree: at most ``width`` random children per node, ``depth`` deep;
    every node checked, every child taken back; ends: (players, winners, reason)."""
    actions = check_node(py, cy)
    check_playout(py, cy, rng.getrandbits(64), rng.choice((0, 3, 200)))
    if not actions:
        ends.add((cy.get_state().players, probe_winners(cy), cy.result()[1]))
        return
    if depth == 0:
        return
    state, key = cy.get_state(), cy.key()
    for action in rng.sample(actions, min(width, len(actions))):
        probe_do(cy, action)
        py._s_do(action)
        assert cy.get_state() == py.get_state() and cy.key() == py.key()
        explore(py, cy, rng, depth - 1, width, ends)
        probe_undo(cy)
        py._s_undo()
        assert (cy.get_state(), cy.key()) == (py.get_state(), py.key()) == (state, key)


NEAR_ENDS = [   # positions a few plies from each kind of end (see test_focus.py)
    f"{board({'c3': 'r', 'c4': 'g', 'h5': 'g'})} g 0,0 -,-",
    f"{board({'c3': 'rr', 'd4': 'gg', 'f6': 'g'})} r 0,1 -,-",
    f"{board({'d4': 'bbgbg', 'd3': 'r', 'e5': 'g', 'f6': 'b'})} r 0,0,0 g3b2,-,-",
    f"{board({'d4': 'rrggg', 'd3': 'r', 'e5': 'g', 'f6': 'b'})} r 0,0,0 g5,-,- returned=4,0,0",
    f"{board({'c3': 'r', 'c4': 'g', 'h4': 'br'})} r 0,0,0 -,-,-",
    f"{board({'c3': 'r', 'c4': 'g', 'h5': 'b', 'h4': 'r'})} b 0,0,0 -,-,-",
    f"{board({'c3': 'r', 'c4': 'g', 'f6': 'b', 'f5': 'y'})} r 0,0,0,0 -,-,-,-",
    f"{board({'c3': 'g', 'c4': 'r', 'h5': 'y'})} g 0,0,0,0 -,-,-,-",
    f"{board({'c3': 'r', 'c4': 'g', 'f6': 'b', 'f5': 'y'})} r 0,0,0,0 -,-,-,- ffa",
    f"{board({'c3': 'r', 'c4': 'g', 'f5': 'yr'})} r 0,0,0,0 -,-,-,- ffa",
    f"{board({'c3': 'r', 'c4': 'gg', 'e5': 'r'})} r 0,0 -,- rule=whole cap=6 ply=3",
    f"{board({'c3': 'r', 'f6': 'g', 'd4': 'rg'})} r 0,0 -,- cap=4 mirror=ok",
]


def test_sampled_trees_reach_every_kind_of_end() -> None:
    """Near the ends of the game: 2- and 3-player wins, a team's win (both bits),
    the last player able to move, draws by the ply cap, the mirror rule."""
    rng = random.Random(11)
    ends: set[tuple[int, int, int]] = set()
    for text in NEAR_ENDS:
        py, cy = twins(Focus.twin("python").from_position(text),
                       Focus.twin("cython").from_position(text))
        explore(py, cy, rng, 4, 4, ends)
    reasons = {reason for _, _, reason in ends}
    assert {1, 2, 3, 4, 5, 7, 8} <= reasons, ends
    assert {(4, 0b0101, 5), (4, 0b1010, 5)} <= ends, ends   # a team win sets both bits
    assert all(bin(mask).count("1") == (2 if reason == 5 else reason not in (6, 7))
               for _, mask, reason in ends), ends


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(text=positions(), seed=st.integers(0, 2**64 - 1))
def test_random_walks_from_set_up_positions(text: str, seed: int) -> None:
    """Arbitrary set-up positions (first entries, returned pieces, captures,
    pending mirror replies, caps) reach the ends of the game quickly."""
    py, cy = twins(Focus.twin("python").from_position(text),
                   Focus.twin("cython").from_position(text))
    rng = random.Random(seed)
    check_playout(py, cy, rng.getrandbits(64), 60)
    walk(py, cy, rng, 30, (0, 2, 60))   # some random games from here never end


def richest_heights(rule: int) -> list[int]:
    """Per square, a stack height with the most moves under ``rule``."""
    def count(sq: int, h: int) -> int:
        return sum(1 for di in range(4) for _, d in pairs_for(rule, h) if TARGET[sq][di][d] >= 0)
    return [max(range(6), key=lambda h: count(sq, h)) for sq in range(NUM_SQUARES)]


@pytest.mark.parametrize("rule", [0, 1, 2])
def test_max_actions_bound_is_reached(rule: int) -> None:
    """The position with the most moves under each rule: every square topped by
    the mover at its richest height, a reserve piece (620, 2060 and 228 moves).
    s_max_actions (the search's buffer size, and the probe's) is that bound."""
    board = tuple((0,) * h for h in richest_heights(rule))
    state = FocusState(2, False, rule, -1, False, board, 0, (1, 0), ((0, 0), (0, 0)),
                       (0, 0), 0, 0, -2)
    py_game, cy_game = Focus.twin("python")(), Focus.twin("cython")()
    py_game._core.set_state(state)
    cy_game._core.set_state(state)
    py, cy = twins(py_game, cy_game)
    actions = check_node(py, cy)
    assert len(actions) == (620, 2060, 228)[rule]
    probe_max = getattr(_common, "probe_max_actions", None)
    if probe_max is not None:
        assert probe_max(cy) == len(actions)
    action = actions[-1]
    probe_do(cy, action)
    py._s_do(action)
    assert cy.get_state() == py.get_state()
    probe_undo(cy)
    assert cy.get_state() == state


def test_an_illegal_action_is_refused() -> None:
    cy = Focus.twin("cython")()._core.clone(False)
    state = cy.get_state()
    for action in (-1, 3172, 1 << 40, 0, 3120 + 20):   # off the table, an empty square,
        with pytest.raises(ValueError, match="illegal"):  # no reserve piece
            probe_do(cy, action)
        assert cy.get_state() == state
    probe_undo(cy)   # nothing to take back: no effect
    assert cy.get_state() == state
