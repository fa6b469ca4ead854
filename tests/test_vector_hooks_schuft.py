"""The integer layer in C of the compiled Schuft core (the ``v_*`` hooks) against
``brett.GAMES["schuft"]``: whole random games of 2-4 players to their end (with
the roll-off, passes, the direction chosen at 15, hits, pieces going home), the ply
cap, and a half-played turn kept out of the core protocol."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import numpy
import pytest

import brett
from brett._core import _common
from conftest import needs_cython
from test_vector_hooks import core_view, game_view, pick

pytestmark = needs_cython

ACTION_CW, ACTION_CCW, ACTION_PASS = 333, 334, 335
KINDS = {ACTION_CW: "cw", ACTION_CCW: "ccw", ACTION_PASS: "pass"}


def schuft(**options: Any) -> Any:
    return brett.GAMES["schuft"].twin("cython")(**options)


def play_along(game: Any, core: Any, rng: random.Random, events: Counter[str],
               max_actions: int = 100_000) -> None:
    """Step ``game`` and ``core`` with the same random actions to the end, comparing
    every view and refusing an illegal action (or one out of range) on both."""
    for _ in range(max_actions):
        assert core_view(core, game) == game_view(game)
        if game.is_over():
            assert _common.vector_apply(core, rng.randrange(336)) == -1
            events["won" if any(game.returns()) else "drawn"] += 1
            return
        legal = set(game.legal_actions())
        bad = rng.choice([a for a in range(-1, 340) if a not in legal])
        before = core_view(core, game)
        assert _common.vector_apply(core, bad) == -1
        assert core_view(core, game) == before
        state = game._core.get_state()
        action = pick(game, rng)
        if game.is_chance_node():
            events["roll-off roll" if state[9] is not None else "roll"] += 1
        else:
            events[KINDS.get(action, "step")] += 1
        game.apply_action(action)
        assert _common.vector_apply(core, action) == 0, action
        after = game._core.get_state()
        if state[6] >= 0 and not game.pending_actions:  # a turn was made
            mover = state[5]
            if any(after[4][p] > state[4][p] for p in range(state[0]) if p != mover):
                events["hit"] += 1
            if after[3][mover] != state[3][mover]:
                events["home"] += 1
    pytest.fail("the game did not end")


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("first", [0, "roll"])
def test_whole_games(players: int, first: Any) -> None:
    events: Counter[str] = Counter()
    for seed in range(3):
        game = schuft(players=players, first_player=first, seed=seed)
        start = game._core.clone(False)
        core = game._core.clone(False)
        play_along(game, core, random.Random(seed), events)
        # a reset after the end gives the start back, and a second game follows it
        _common.vector_reset(core, start)
        game = schuft(players=players, first_player=first, seed=seed)
        play_along(game, core, random.Random(100 + seed), events)
    assert events["won"] == 6
    # every kind of decision and what turns do happened in these games
    for kind in ("roll", "step", "cw", "ccw", "hit", "home"):
        assert events[kind] > 0, (kind, events)
    if first == "roll":
        assert events["roll-off roll"] >= 2 * players
    else:
        assert events["roll-off roll"] == 0


def test_the_kinds_of_decisions_all_happen() -> None:
    """A pass and both directions at a roll of 15 (rare per game: many games)."""
    events: Counter[str] = Counter()
    seed = 0
    while not (events["pass"] and events["cw"] and events["ccw"]):
        assert seed < 40, events
        game = schuft(players=2 + seed % 3, seed=seed)
        play_along(game, game._core.clone(False), random.Random(seed), events)
        seed += 1


def entering(blocked: tuple[int, ...]) -> Any:
    """Red (seat 0) to roll with eight pieces home and one out; two green pieces on
    each tongue of ``blocked``; a cap of 2 turns."""
    tongues = ["."] * 36
    for tongue in blocked:
        tongues[tongue - 1] = "g2"
    tongues[19] = f"g{9 - 2 * len(blocked)}"
    text = ",".join(tongues) + "/rrrrrrrr.,........./1,0/r/-/0/2"
    return brett.GAMES["schuft"].twin("cython").from_position(text)


def test_a_pass_and_the_ply_cap() -> None:
    """The roll 1-1-2 (counter-clockwise) would bring red's last piece in on
    tongue 9 or 8, both held by two green pieces: red passes, and the cap of 2
    turns ends the game drawn after green's turn."""
    game = entering((8, 9))
    core = game._core.clone(False)
    game.apply_action(0)  # the roll 1-1-2
    assert _common.vector_apply(core, 0) == 0
    assert game.legal_actions() == [ACTION_PASS]
    assert core_view(core, game) == game_view(game)
    for action in (ACTION_CW, ACTION_CCW, 0, 8, 37 + 9):
        assert _common.vector_apply(core, action) == -1
    assert core_view(core, game) == game_view(game)
    play_along(game, core, random.Random(1), Counter())
    assert game.is_over() and game.returns() == [0.0, 0.0] and game.plies == 2
    assert _common.vector_player(core) == brett.TERMINAL


@pytest.mark.parametrize(("blocked", "only"), [(8, 0), (9, 37)])
def test_one_die_value_alone_can_enter(blocked: int, only: int) -> None:
    """At 1-1-2 only the 1s (dice III and IV) or only the 2 (die V) can bring the
    piece in: that step is the one legal action, not a pass."""
    game = entering((blocked,))
    core = game._core.clone(False)
    game.apply_action(0)
    assert _common.vector_apply(core, 0) == 0
    assert game.legal_actions() == [only]
    assert _common.vector_apply(core, ACTION_PASS) == -1
    play_along(game, core, random.Random(2), Counter())


@pytest.mark.parametrize("players", [2, 4])
def test_a_half_played_turn_stays_out_of_the_core_protocol(players: int) -> None:
    rng = random.Random(players)
    game = schuft(players=players, seed=3)
    core = game._core.clone(False)
    halfway = 0
    for _ in range(3000):
        if game.is_over():
            break
        before = game._core.get_state()
        action = pick(game, rng)
        game.apply_action(action)
        assert _common.vector_apply(core, action) == 0
        if not game.pending_actions:
            assert core.get_state() == game._core.get_state()
            continue
        halfway += 1
        # the core keeps the position before the turn; copies and the search
        # protocol see no pending decision
        assert core.get_state() == before
        view = core_view(core, game)
        for copy in (core.clone(False), core.clone(True)):
            fresh = brett.GAMES["schuft"].twin("cython").from_position(game.position())
            fresh._core.set_state(before)
            fresh._pending = ()
            assert core_view(copy, fresh) == game_view(fresh)
        assert core_view(core, game) == view
    assert halfway > 50
    # no undo records were kept however many moves were made
    with pytest.raises(IndexError):
        core.pop()


def test_loading_a_state_ends_a_half_played_turn() -> None:
    game = schuft(players=2, seed=1)
    core = game._core.clone(False)
    rng = random.Random(5)
    while not game.pending_actions:
        action = pick(game, rng)
        game.apply_action(action)
        assert _common.vector_apply(core, action) == 0
    core.set_state(game._core.get_state())
    plain = game.copy()
    while plain.pending_actions:
        plain.undo_action()
    assert core_view(core, plain) == game_view(plain)


def test_observation_of_a_half_played_turn_shows_its_steps() -> None:
    """The shown board moves as the steps are made, and only the roll stays."""
    game = schuft(players=3, seed=2)
    core = game._core.clone(False)
    size = game.observation_tensor_shape()[0]
    obs = numpy.zeros(size, dtype=numpy.float32)
    rng = random.Random(9)
    changed = 0
    for _ in range(400):
        _common.vector_observe(core, obs)
        before = obs.copy()
        action = pick(game, rng)
        stepping = not game.is_chance_node() and action < ACTION_CW
        game.apply_action(action)
        assert _common.vector_apply(core, action) == 0
        _common.vector_observe(core, obs)
        assert obs.tolist() == game.observation_tensor().tolist()
        if stepping and game.pending_actions:
            changed += int(not numpy.array_equal(obs, before))
    assert changed > 20


@pytest.mark.parametrize("players", [2, 3])
def test_every_roll_at_positions_of_a_game(players: int) -> None:
    """All 216 rolls at chance nodes along a random game (late ones too, where few
    pieces can move and a single die value may decide between a step and a pass)."""
    rng = random.Random(players)
    game = schuft(players=players, seed=4)
    turns = 0
    while not game.is_over():
        if game.is_chance_node() and game._core.get_state()[9] is None and turns % 6 == 0:
            for roll in range(216):
                after = game.copy(stack=False)
                core = after._core.clone(False)
                after.apply_action(roll)
                assert _common.vector_apply(core, roll) == 0
                assert core_view(core, after) == game_view(after)
                action = rng.choice(after.legal_actions())
                after.apply_action(action)
                assert _common.vector_apply(core, action) == 0
                assert core_view(core, after) == game_view(after)
        turns += not game.is_chance_node()
        game.apply_action(pick(game, rng))
