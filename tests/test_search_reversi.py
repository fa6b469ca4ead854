"""The search protocol of the compiled Reversi core (the ``s_*`` hooks of
_common.pxd, seen through ``brett._core._common``'s probes) against the plain
twin's ``_s_*`` methods: actions, make/undo, playouts and winners, on the
bitboard boards (4, 6, 8, with holes) and the mailbox boards (10, 16, the
octagon, random holes)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brett._core._common import (
    probe_actions,
    probe_chance,
    probe_do,
    probe_pending,
    probe_player,
    probe_playout,
    probe_undo,
    probe_winners,
)
from brett.reversi import Reversi
from conftest import needs_cython

pytestmark = needs_cython

TERMINAL = -4

SETUPS: dict[str, dict[str, Any]] = {
    "4": {"size": 4},
    "6": {"size": 6},
    "8": {},
    "8-holes": {"holes": ["b4", "e2", "g5", "a8"]},
    "6-holes": {"size": 6, "holes": ["a1", "f6"]},
    "10": {"size": 10},
    "16": {"size": 16},
    "octagon": {"board": "octagon", "handicap": 2},
    "12-random-holes": {"size": 12, "holes": "random", "seed": 4},
    "16-holes": {"size": 16, "holes": 4, "seed": 2},
}


def cores(options: dict[str, Any]) -> tuple[Any, Any]:
    """Private clones of one game's compiled core and of its plain twin's."""
    c = Reversi.twin("cython")(**options)._core.clone(False)
    py = Reversi.twin("python")(**options)._core.clone(False)
    assert type(c).__module__.endswith("_reversi_c") and type(py).__module__.endswith("_reversi_py")
    assert c.get_state() == py.get_state() and c.key() == py.key()
    return c, py


def check_playout(c: Any, py: Any, seed: int, max_plies: int) -> None:
    """s_playout: the twin's draw, core.playouts(1, ...)'s game, state unchanged."""
    state, key = c.get_state(), c.key()
    got = probe_playout(c, seed, max_plies)
    assert got == py._s_playout(seed, max_plies)
    assert c.get_state() == state and c.key() == key
    assert py._get_state() == state
    wins, draws, unfinished, _, rng = c.playouts(1, seed, max_plies)
    assert got == (wins[0] | wins[1] << 1, rng)
    assert (got[0] == 0) == (draws + unfinished == 1)


def walk(options: dict[str, Any], seed: int, playout_every: int) -> dict[str, int]:
    return walk_cores(*cores(options), seed, playout_every)


def walk_cores(c: Any, py: Any, seed: int, playout_every: int) -> dict[str, int]:
    """A random game on both twins by the search hooks, compared at every step,
    then undone move by move back to the start."""
    rng = random.Random(seed)
    n2 = c.get_state()[0] ** 2
    seen = [(c.get_state(), c.key())]
    stats = {"passes": 0, "plies": 0, "decisive": 0}
    while True:
        player = probe_player(c)
        assert player == py._player() == c.player()
        actions = probe_actions(c)
        assert actions == py._s_actions() == c.moves()
        assert len(actions) <= n2 and len(set(actions)) == len(actions)
        assert probe_chance(c) == [] and not probe_pending(c)
        if stats["plies"] % playout_every == 0 or player == TERMINAL:
            check_playout(c, py, rng.getrandbits(64), -1)
            check_playout(c, py, rng.getrandbits(64), rng.randrange(0, 12))
        if player == TERMINAL:
            assert actions == []
            winners = probe_winners(c)
            assert winners == py._s_winners()
            black, white = c.discs()
            assert winners == (0 if black == white else 1 if black > white else 2)
            stats["decisive"] += winners != 0
            break
        action = rng.choice(actions)
        stats["passes"] += action == n2
        stats["plies"] += 1
        probe_do(c, action)
        py._s_do(action)
        state = c.get_state()
        assert state == py.get_state() and c.key() == py.key()
        assert c.entries == []          # s_do leaves the public move stack alone
        seen.append((state, c.key()))
    # undo the whole game (the 16x16 games outgrow the clone's undo stack)
    seen.pop()
    while seen:
        probe_undo(c)
        py._s_undo()
        state, key = seen.pop()
        assert c.get_state() == state == py.get_state()
        assert c.key() == key == py.key()
    assert probe_actions(c) == py._s_actions()
    return stats


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_random_games_match_the_twin(setup: str) -> None:
    options = SETUPS[setup]
    big = options.get("size", 8) > 8 or options.get("board") == "octagon"
    games = 4 if big else 20
    total = {"passes": 0, "plies": 0, "decisive": 0}
    for seed in range(games):
        stats = walk(options, seed * 7919 + len(setup), playout_every=25 if big else 4)
        for k in total:
            total[k] += stats[k]
    assert total["plies"] > 0 and total["decisive"] > 0


@pytest.mark.parametrize("n", [6, 8, 10, 16])
def test_many_blocked_squares(n: int) -> None:
    """Boards riddled with blocked squares (any set the state allows, far more
    than the game's four holes), so that lines end everywhere."""
    for seed in range(6 if n <= 8 else 3):
        r = random.Random(seed)
        h = n // 2
        centre = {(h - 1) * n + h - 1, (h - 1) * n + h, h * n + h - 1, h * n + h}
        blocked = sum(1 << sq for sq in range(n * n)
                      if sq not in centre and r.random() < 0.15)
        black = 1 << (h - 1) * n + h | 1 << h * n + h - 1
        white = 1 << (h - 1) * n + h - 1 | 1 << h * n + h
        c, py = cores({"size": n})
        state = (n, black, white, blocked, seed & 1)
        c.set_state(state)
        py._set_state(state)
        assert c.get_state() == py.get_state() == state and c.key() == py.key()
        walk_cores(c, py, seed, playout_every=10)


def test_passes_and_draws_on_small_boards() -> None:
    """4x4 games pass and draw often: the walks above must meet both."""
    passes = draws = 0
    for seed in range(60):
        stats = walk({"size": 4}, 1000 + seed, playout_every=1000)
        passes += stats["passes"]
        draws += stats["decisive"] == 0
    assert passes > 0 and draws > 0


@pytest.mark.parametrize("options", [{"size": 6}, {"size": 10}, {"board": "octagon"}])
def test_forced_pass_and_terminal_positions(options: dict[str, Any]) -> None:
    """Positions built by hand: a forced pass, then the end of the game."""
    c, py = cores(options)
    n, _, _, blocked, _ = c.get_state()
    free = [sq for sq in range(n * n) if not blocked >> sq & 1]
    # Black fills the board but for two empty squares in a row next to one
    # White disc: White cannot move (pass), Black can.
    a, w = free[0], free[2]
    black = sum(1 << sq for sq in free[3:])
    for player in (1, 0):
        state = (n, black, 1 << w, blocked, player)
        c.set_state(state)
        py._set_state(state)
        assert probe_actions(c) == py._s_actions()
        assert probe_player(c) == py._player() == player
    c.set_state((n, black, 1 << w, blocked, 1))
    py._set_state((n, black, 1 << w, blocked, 1))
    assert probe_actions(c) == [n * n]
    probe_do(c, n * n)
    py._s_do(n * n)
    assert c.get_state() == py.get_state() and c.key() == py.key()
    assert probe_player(c) == 0
    probe_undo(c)
    assert c.get_state() == (n, black, 1 << w, blocked, 1)
    # no White disc left: the game is over, Black wins
    state = (n, black | 1 << w, 0, blocked, 0)
    c.set_state(state)
    py._set_state(state)
    assert probe_player(c) == TERMINAL and probe_actions(c) == []
    assert probe_winners(c) == py._s_winners() == 1
    assert probe_playout(c, 5, -1) == py._s_playout(5, -1)
    # one disc each in far corners: no move for either, a draw
    state = (n, 1 << a, 1 << free[-1], blocked, 1)
    c.set_state(state)
    py._set_state(state)
    assert probe_player(c) == TERMINAL and probe_winners(c) == py._s_winners() == 0
    # White ahead
    state = (n, 1 << a, (1 << free[-1]) | (1 << free[-2]), blocked, 0)
    c.set_state(state)
    py._set_state(state)
    assert probe_player(c) == TERMINAL and probe_winners(c) == py._s_winners() == 2


def test_bad_actions_raise() -> None:
    for options in ({"size": 4}, {"size": 16}):
        c, _ = cores(options)
        state = c.get_state()
        n2 = state[0] ** 2
        for bad in (-1, n2 + 1, 2**40):
            with pytest.raises(ValueError):
                probe_do(c, bad)
        assert c.get_state() == state
        probe_undo(c)                   # nothing to undo: no change
        assert c.get_state() == state


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=st.sampled_from(["4", "6", "8-holes", "octagon"]), seed=st.integers(0, 2**32),
       plies=st.integers(0, 40), max_plies=st.integers(-1, 30), rng=st.integers(0, 2**64 - 1))
def test_playouts_mid_game(setup: str, seed: int, plies: int, max_plies: int, rng: int) -> None:
    c, py = cores(SETUPS[setup])
    r = random.Random(seed)
    for _ in range(plies):
        actions = probe_actions(c)
        if not actions:
            break
        a = r.choice(actions)
        probe_do(c, a)
        py._s_do(a)
    check_playout(c, py, rng, max_plies)


def test_public_push_pop_unchanged() -> None:
    """pop() shares the unmake of s_undo: the public stack still round-trips."""
    for options in ({"size": 6}, {"size": 16}, {"board": "octagon"}):
        game = Reversi.twin("cython")(**options)
        start = (game._core.get_state(), game._core.key())
        r = random.Random(3)
        pushed = 0
        while not game.is_over() and pushed < 60:
            game.push(r.choice(list(game.legal_moves)))
            pushed += 1
        for _ in range(pushed):
            game.pop()
        assert (game._core.get_state(), game._core.key()) == start
