"""The search protocol of the compiled Schuft core (the s_* hooks brett.ai's tree
search drives, seen through the probes of ``brett._core._common``) against the
plain twin's ``_s_*`` methods.

A search action is a core move: a whole turn's representative (in the order of
``moves()``) at a decision node, ``ROLL_FLAG | r`` (the 216 rolls of
``chance_moves()``, also in the opening roll-off) at a chance node.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from brett._core import CHANCE, TERMINAL
from brett.schuft import Schuft
from conftest import needs_cython

pytestmark = needs_cython

ROLL_FLAG = 1 << 48

SETUPS: dict[str, dict[str, Any]] = {
    "2p": {"players": 2},
    "2p-roll-off": {"players": 2, "first_player": "roll", "seed": 3},
    "3p": {"players": 3, "seed": 5},
    "3p-cap": {"players": 3, "first_player": 2, "max_plies": 25},
    "4p": {"players": 4, "first_player": 1},
    "4p-roll-off-cap": {"players": 4, "first_player": "roll", "seed": 1, "max_plies": 40},
}


def probes() -> Any:
    from brett._core import _common
    return _common


def twins(game_c: Any, game_py: Any) -> tuple[Any, Any]:
    """Private clones of both cores, as the search takes them."""
    c, py = game_c._core.clone(False), game_py._core.clone(False)
    assert c.get_state() == py.get_state() and c.key() == py.key()
    return c, py


def build(options: dict[str, Any]) -> tuple[Any, Any]:
    return Schuft.twin("cython")(**options), Schuft.twin("python")(**options)


def snapshot(core: Any) -> tuple[Any, int]:
    return core.get_state(), core.key()


def check_playout(c: Any, py: Any, seed: int, cap: int) -> int:
    """probe_playout == the twin's _s_playout == playouts(1, ...), state unchanged."""
    p = probes()
    before = snapshot(c)
    mask, rng = p.probe_playout(c, seed, cap)
    assert (mask, rng) == py._s_playout(seed, cap)
    wins, _, _, _, state = c.playouts(1, seed, cap)
    assert rng == state
    assert mask == sum(1 << q for q, w in enumerate(wins) if w)
    assert snapshot(c) == before
    assert mask & (mask - 1) == 0  # one winner, or none (a draw or an unfinished game)
    return int(mask)


def check_node(c: Any, py: Any) -> int:
    """Compare the node on both twins; return the player to move."""
    p = probes()
    player = p.probe_player(c)
    assert player == c.player() == py._player()
    assert not p.probe_pending(c) and not py._s_pending()
    actions, chance = p.probe_actions(c), p.probe_chance(c)
    assert actions == py._s_actions()
    assert chance == py._s_chance()
    if player == CHANCE:
        assert actions == []
        assert chance == c.chance_moves()
        assert [a for a, _ in chance] == [ROLL_FLAG | r for r in range(216)]
        assert all(prob == 1 / 216 for _, prob in chance)
    elif player == TERMINAL:
        assert actions == [] and chance == []
        assert p.probe_winners(c) == py._s_winners()
    else:
        assert chance == []
        assert actions == c.moves() and actions  # a pass is one move (0)
        assert len(set(actions)) == len(actions)
        assert all(0 <= a < ROLL_FLAG for a in actions)
    return int(player)


def walk(c: Any, py: Any, rng: random.Random, *, limit: int = 10_000,
         playout_every: int = 0, caps: tuple[int, ...] = (-1,)) -> list[tuple[Any, int]]:
    """Random actions on both twins until the game ends (or ``limit``); the
    states before every action."""
    p = probes()
    history: list[tuple[Any, int]] = []
    for i in range(limit):
        player = check_node(c, py)
        if playout_every and i % playout_every == 0:
            check_playout(c, py, rng.getrandbits(64), caps[(i // playout_every) % len(caps)])
        if player == TERMINAL:
            break
        if player == CHANCE:
            action = rng.choice(p.probe_chance(c))[0]
        else:
            action = rng.choice(p.probe_actions(c))
        history.append(snapshot(c))
        p.probe_do(c, action)
        py._s_do(action)
        assert snapshot(c) == snapshot(py)
    assert c.entries == []  # s_do keeps off the public move stack
    return history


def unwind(c: Any, py: Any, history: list[tuple[Any, int]]) -> None:
    p = probes()
    for state, key in reversed(history):
        p.probe_undo(c)
        py._s_undo()
        assert snapshot(c) == (state, key) == snapshot(py)
    assert c.entries == []


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_random_games_match_the_twin_and_undo(setup: str) -> None:
    """Whole random games from the start (the roll-off included) on both twins:
    the same actions, chance outcomes and states at every node; the winners at
    the end; then every action taken back (a stack of hundreds of records)."""
    options = SETUPS[setup]
    game_c, game_py = build(options)
    start = game_c.position()
    c, py = twins(game_c, game_py)
    rng = random.Random(setup)
    history = walk(c, py, rng, playout_every=60, caps=(0, 3, 30, 1))
    p = probes()
    assert p.probe_player(c) == TERMINAL
    cap = options.get("max_plies")
    winners = p.probe_winners(c)
    assert winners == py._s_winners()
    won = [q for q in range(options["players"]) if c.get_state()[3][q] == 0x1FF]
    assert winners == sum(1 << q for q in won)
    if cap is None:
        assert len(won) == 1 and len(history) > 100
    assert check_playout(c, py, 7, -1) == winners  # a playout of a finished game
    unwind(c, py, history)
    assert snapshot(c) == snapshot(game_c._core)
    assert game_c.position() == start and game_c._core.entries == []


def near_end(players: int, seed: int) -> Any:
    """A position two rounds before the end of a seeded random game."""
    game = Schuft(players=players)
    game.random_playout(seed=seed)
    assert game.is_over()
    for _ in range(4 * players):
        game.pop()
    return game.position()


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (4, 3), (4, 8)])
def test_endings_winners_and_uncapped_playouts(players: int, seed: int) -> None:
    """Near the end of games: uncapped playouts agree with the twin (each has one
    winner), and random walks to the end agree on the winners."""
    position = near_end(players, seed)
    game_c = Schuft.twin("cython").from_position(position)
    game_py = Schuft.twin("python").from_position(position)
    c, py = twins(game_c, game_py)
    masks = {check_playout(c, py, s, -1) for s in range(6)}
    assert 0 not in masks
    for walk_seed in range(3):
        history = walk(c, py, random.Random(walk_seed), playout_every=2, caps=(-1, 1, 2))
        assert probes().probe_player(c) == TERMINAL
        assert bin(probes().probe_winners(c)).count("1") == 1
        unwind(c, py, history)
        assert snapshot(c) == snapshot(game_c._core)


def test_a_position_with_many_turns() -> None:
    """Sum 15, both directions, nine lone pieces: 1400 distinct turns, all in
    the twin's order; each one made and taken back."""
    cells = ["."] * 36
    for k in range(9):
        cells[1 + 4 * k] = "r1"
    position = f"{','.join(cells)}/.........,........./0,9/r/5-3-7/0/-"
    game_c = Schuft.twin("cython").from_position(position)
    game_py = Schuft.twin("python").from_position(position)
    c, py = twins(game_c, game_py)
    p = probes()
    actions = p.probe_actions(c)
    assert len(actions) == 1400 and actions == py._s_actions()
    before = snapshot(c)
    for action in actions[::7]:
        p.probe_do(c, action)
        py._s_do(action)
        assert snapshot(c) == snapshot(py)
        assert check_node(c, py) == CHANCE
        p.probe_undo(c)
        py._s_undo()
        assert snapshot(c) == before == snapshot(py)


def test_roll_off_ties_re_roll_and_undo() -> None:
    """Tied sums in the opening roll-off start a new round of the tied players
    (chance nodes all the way); the rolls are taken back exactly."""
    game_c, game_py = build({"players": 3, "first_player": "roll"})
    c, py = twins(game_c, game_py)
    p = probes()
    # roll 0 is 1-1-2 (sum 4), roll 215 9-9-8 (26), roll 3 1-1-6 (8), roll 200 9-5-4 (18)
    rounds = [([0, 215, 215], ((1, 2), ())),  # green and blue tie at 26: again
              ([215, 215], ((1, 2), ())),     # and again
              ([3, 200], None)]               # blue wins the roll-off
    history = []
    for rolls, rolloff in rounds:
        for r in rolls:
            assert check_node(c, py) == CHANCE
            history.append(snapshot(c))
            p.probe_do(c, ROLL_FLAG | r)
            py._s_do(ROLL_FLAG | r)
            assert snapshot(c) == snapshot(py)
        assert c.get_state()[9] == rolloff
    assert c.to_move() == 2 and c.roll() == -1
    assert p.probe_player(c) == CHANCE  # the winner of the roll-off rolls for the turn
    history += walk(c, py, random.Random(4), limit=30)
    unwind(c, py, history)
    assert snapshot(c) == snapshot(game_c._core)


def test_a_pass_is_one_action() -> None:
    """A blocked player's only action is the pass (0); it ends the turn (the
    next player's roll follows) and is taken back exactly."""
    cells = ["."] * 36
    cells[18], cells[19], cells[20] = "g3", "r1", "g3"  # tongues 19-21
    position = f"{','.join(cells)}/rrrrrrrr.,ggg....../0,0/r/5-8-2/7/-"
    game_c = Schuft.twin("cython").from_position(position)
    game_py = Schuft.twin("python").from_position(position)
    c, py = twins(game_c, game_py)
    p = probes()
    assert check_node(c, py) == 0 and p.probe_actions(c) == [0]
    before = snapshot(c)
    p.probe_do(c, 0)
    py._s_do(0)
    assert snapshot(c) == snapshot(py)
    assert c.to_move() == 1 and c.roll() == -1 and c.get_state()[7] == 8
    assert check_node(c, py) == CHANCE
    p.probe_undo(c)
    py._s_undo()
    assert snapshot(c) == before == snapshot(py)
