"""The search protocol of the Schuft cores (the s_* hooks brett.ai's tree search
drives, seen through the probes of ``brett._core._common``) against the plain
twin's ``_s_*`` methods and the integer layer of ``Game``.

A search action is a decision of the integer layer (``Game.legal_actions()``: the
direction at a roll of 15, ``(value - 1) * 37 + source`` for one die's piece, the
pass) at a decision node, ``ROLL_FLAG | r`` at a chance node; ``s_pending`` while a
turn is being built.  Playouts finish the turn in progress at random and are cut
after ``max_plies`` turns, then valued by the race (``s_shares``).  The search of
whole turns that came before stays as the cores' "turns" mode, a benchmark aid.
"""

from __future__ import annotations

import math
import platform
import random
import sys
from collections.abc import Iterator
from typing import Any

import pytest

import brett
from brett._core import CHANCE, TERMINAL
from brett.ai import MCTSPlayer
from brett.schuft import ACTION_CCW, ACTION_CW, ACTION_PASS, Schuft, _cores
from conftest import needs_cython

pytestmark = needs_cython

ROLL_FLAG = 1 << 48
X87 = platform.machine() in ("i386", "i486", "i586", "i686") and sys.maxsize < 2**32
"""A 32-bit x86 interpreter does its float arithmetic on the x87, each result rounded
twice (to 64 bits of mantissa, then to 53): the plain twin's race values may then
differ from the compiled core's (SSE2) in the last bit."""

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


@pytest.fixture
def turns_mode() -> Iterator[None]:
    """The whole-turn search of the benchmark's opponent, on both twins."""
    for module in (_cores.cython, _cores.python):
        module.set_search_mode("turns")
    try:
        yield
    finally:
        for module in (_cores.cython, _cores.python):
            module.set_search_mode("decisions")


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
    """probe_playout == the twin's _s_playout, the same race values after a cut,
    the state unchanged."""
    p = probes()
    before = snapshot(c)
    pending = p.probe_pending(c)
    mask, rng = p.probe_playout(c, seed, cap)
    assert (mask, rng) == py._s_playout(seed, cap)
    assert snapshot(c) == before == snapshot(py) and p.probe_pending(c) == pending
    if mask < 0:
        shares = p.probe_shares(c)
        expected = py._s_shares()
        if X87:
            assert all(math.isclose(a, b, rel_tol=4 * sys.float_info.epsilon)
                       for a, b in zip(shares, expected, strict=True))
        else:
            assert shares == expected
        players = c.get_state()[0]
        assert all(0.0 < s < 1.0 for s in shares[:players]) and shares[players:] == [0.0] * (
            4 - players)
        assert abs(sum(shares) - 1.0) < 1e-12
    else:
        assert mask & (mask - 1) == 0  # one winner, or a draw (the game's cap)
    return int(mask)


# ----------------------------------------------------------------- decision by decision
def walk(game: Any, c: Any, py: Any, rng: random.Random, *, limit: int = 20_000,
         playout_every: int = 0, caps: tuple[int, ...] = (-1,)) -> list[tuple[Any, int]]:
    """Random search actions on both twins and the same integer actions on ``game``
    until the game ends: at every node the actions are legal_actions(), pending
    is pending_actions, and between turns the states are the game's.  The
    states before every action."""
    p = probes()
    history: list[tuple[Any, int]] = []
    for i in range(limit):
        player = p.probe_player(c)
        assert player == py._player() == game.current_player()
        assert p.probe_pending(c) == py._s_pending() == bool(game.pending_actions)
        if not game.pending_actions:
            assert snapshot(c) == snapshot(game._core)
        actions, chance = p.probe_actions(c), p.probe_chance(c)
        assert actions == py._s_actions() and chance == py._s_chance()
        if playout_every and i % playout_every == 0:
            check_playout(c, py, rng.getrandbits(64), caps[(i // playout_every) % len(caps)])
        if player == TERMINAL:
            assert actions == [] and chance == []
            assert p.probe_winners(c) == py._s_winners()
            break
        if player == CHANCE:
            assert actions == [] and [a for a, _ in chance] == [ROLL_FLAG | r for r in range(216)]
            action = rng.choice(chance)[0]
            game.apply_action(action - ROLL_FLAG)
        else:
            assert chance == [] and actions == game.legal_actions()
            action = rng.choice(actions)
            game.apply_action(action)
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
        assert p.probe_pending(c) == py._s_pending()
    assert c.entries == [] and not p.probe_pending(c)


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_random_games_decision_by_decision(setup: str) -> None:
    """Whole random games from the start (the roll-off included) on both twins and
    on the game's integer layer: the same actions, chance outcomes, states and
    playouts (cut or not, from the middle of turns) at every node; the winners at
    the end; then every action taken back (a stack of hundreds of records)."""
    options = SETUPS[setup]
    game_c, game_py = build(options)
    start = game_c.position()
    c, py = twins(game_c, game_py)
    shadow = Schuft(**options)
    rng = random.Random(setup)
    history = walk(shadow, c, py, rng, playout_every=40, caps=(0, 1, 3, -1, 2))
    p = probes()
    assert p.probe_player(c) == TERMINAL
    winners = p.probe_winners(c)
    won = [q for q in range(options["players"]) if c.get_state()[3][q] == 0x1FF]
    assert winners == sum(1 << q for q in won)
    if options.get("max_plies") is None:
        assert len(won) == 1 and len(history) > 100
    assert check_playout(c, py, 7, -1) == winners  # a playout of a finished game
    unwind(c, py, history)
    assert snapshot(c) == snapshot(game_c._core)
    assert game_c.position() == start and game_c._core.entries == []


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (4, 3)])
def test_endings_by_decisions(players: int, seed: int) -> None:
    """Near the end of games (hits, pieces out, full goals): random decision
    sequences agree with the twin and the integer layer, and undo exactly."""
    game = Schuft(players=players)
    game.random_playout(seed=seed)
    for _ in range(4 * players):
        game.pop()
    position = game.position()
    game_c = Schuft.twin("cython").from_position(position)
    game_py = Schuft.twin("python").from_position(position)
    c, py = twins(game_c, game_py)
    for walk_seed in range(3):
        shadow = Schuft.from_position(position)
        history = walk(shadow, c, py, random.Random(walk_seed), playout_every=1,
                       caps=(-1, 0, 1, 2))
        assert probes().probe_player(c) == TERMINAL
        assert bin(probes().probe_winners(c)).count("1") == 1
        unwind(c, py, history)
        assert snapshot(c) == snapshot(game_c._core)


def test_a_turn_made_by_decisions_is_the_pushed_turn() -> None:
    """Sum 15, both directions, nine lone pieces: every decision sequence (all of
    them, depth first) ends in the state of pushing its turn, and the search's
    move of those actions is that turn's representative."""
    cells = ["."] * 36
    for k in range(9):
        cells[1 + 4 * k] = "r1"
    position = f"{','.join(cells)}/.........,........./0,9/r/5-3-7/0/-"
    game = Schuft.twin("cython").from_position(position)
    c, py = twins(game, Schuft.twin("python").from_position(position))
    p = probes()
    assert p.probe_actions(c) == [ACTION_CW, ACTION_CCW] == py._s_actions()
    seen: set[Any] = set()

    def dfs(actions: list[int]) -> None:
        if not p.probe_pending(c) and actions:
            move = game._search_move(actions)
            assert move in game.legal_moves
            after = game.copy()
            after.push(move)
            assert snapshot(c) == snapshot(after._core) == snapshot(py)
            seen.add(str(move))
            return
        for action in p.probe_actions(c):
            p.probe_do(c, action)
            py._s_do(action)
            dfs([*actions, action])
            p.probe_undo(c)
            py._s_undo()

    dfs([])
    assert seen == {str(m) for m in game.legal_moves} and len(seen) == 1400
    assert snapshot(c) == snapshot(game._core)


def test_illegal_search_actions_change_nothing() -> None:
    """s_do refuses what is not a legal decision here (ValueError), on both twins."""
    game_c, game_py = build({"players": 2})
    game_c.roll("9-9-8")
    game_py.roll("9-9-8")
    c, py = twins(game_c, game_py)
    p = probes()
    before = snapshot(c)
    legal = p.probe_actions(c)
    for action in (ACTION_CW, ACTION_CCW, ACTION_PASS, 336, 0, 40, (9 - 1) * 37 + 3):
        assert action not in legal
        with pytest.raises(ValueError):
            p.probe_do(c, action)
        with pytest.raises(ValueError):
            py._s_do(action)
        assert snapshot(c) == before == snapshot(py)


def test_a_pass_is_one_action() -> None:
    """A blocked player's only action is the pass; it ends the turn (the next
    player's roll follows) and is taken back exactly."""
    cells = ["."] * 36
    cells[18], cells[19], cells[20] = "g3", "r1", "g3"  # tongues 19-21
    position = f"{','.join(cells)}/rrrrrrrr.,ggg....../0,0/r/5-8-2/7/-"
    game = Schuft.twin("cython").from_position(position)
    c, py = twins(game, Schuft.twin("python").from_position(position))
    p = probes()
    assert p.probe_actions(c) == [ACTION_PASS] == py._s_actions() == game.legal_actions()
    before = snapshot(c)
    p.probe_do(c, ACTION_PASS)
    py._s_do(ACTION_PASS)
    assert snapshot(c) == snapshot(py) and not p.probe_pending(c)
    assert c.to_move() == 1 and c.roll() == -1 and c.get_state()[7] == 8
    assert p.probe_player(c) == CHANCE
    p.probe_undo(c)
    py._s_undo()
    assert snapshot(c) == before == snapshot(py)
    assert str(game._search_move([ACTION_PASS])) == "pass"


def test_search_move_completes_a_turn_and_refuses_others() -> None:
    game = Schuft(players=2)
    game.roll("9-9-8")  # clockwise
    first = game.legal_actions()[0]
    move = game._search_move([first])  # cut short: completed by the first legal steps
    assert move in game.legal_moves and len(move.steps) == 3
    with pytest.raises(brett.BrettError):
        game._search_move([ACTION_CW])
    with pytest.raises(brett.BrettError):
        game._search_move([first, 335])
    game.pop()
    game.roll("5-8-2")  # 15: the direction first
    with pytest.raises(brett.BrettError):
        game._search_move([first])
    assert game._search_move([ACTION_CCW]).direction == "ccw"


def test_race_values() -> None:
    """The race value of a playout cut at once: more pieces home, a better share;
    the shares sum to 1 over the players, 0 for the seats not playing."""
    p = probes()
    cells = ["."] * 36
    cells[0], cells[18], cells[22] = "r3", "g3", "g3"
    ahead = f"{','.join(cells)}/rrrrrr...,ggg....../0,0/r/-/4/-"
    cells = ["."] * 36  # the same, seats swapped: red 3 home and green 6
    cells[18], cells[0], cells[4] = "g3", "r3", "r3"
    behind = f"{','.join(cells)}/rrr......,gggggg.../0,0/r/-/4/-"
    shares = []
    for position in (ahead, behind):
        c = Schuft.twin("cython").from_position(position)._core.clone(False)
        py = Schuft.twin("python").from_position(position)._core.clone(False)
        assert check_playout(c, py, 1, 0) == -1
        shares.append(p.probe_shares(c))
    assert shares[0][0] > 0.5 > shares[0][1] and shares[1][0] < 0.5 < shares[1][1]
    assert shares[0][0] == pytest.approx(shares[1][1])
    four = Schuft(players=4, first_player=1)._core.clone(False)
    assert p.probe_playout(four, 3, 0)[0] == -1
    assert p.probe_shares(four) == pytest.approx([0.25] * 4)  # the symmetric start


def test_a_deep_hole_in_the_goal_costs_more() -> None:
    """Two players alike but for their goal's one free field: the player whose
    hole is g9 (a 9 from the last tongue fills it) has the smaller share than the
    one whose hole is g1; both twins agree (check_playout)."""
    p = probes()
    cells = ["."] * 36
    cells[4], cells[22] = "r1", "g1"                  # one piece each, as far from home
    position = f"{','.join(cells)}/rrrrrrrr.,.gggggggg/0,0/r/-/4/-"
    c = Schuft.twin("cython").from_position(position)._core.clone(False)
    py = Schuft.twin("python").from_position(position)._core.clone(False)
    assert check_playout(c, py, 1, 0) == -1
    red, green = p.probe_shares(c)[:2]
    assert green > 0.5 > red


def test_search_mode_switch() -> None:
    for module in (_cores.cython, _cores.python):
        assert module.search_mode() == "decisions"
        with pytest.raises(brett.BrettError):
            module.set_search_mode("moves")
        assert module.search_mode() == "decisions"


# ----------------------------------------------------------------- the search itself
TREES = {  # position maker, player options
    "2p-15": (lambda g: g.roll("5-8-2"), {"iterations": 300}),
    "2p-cw": (lambda g: g.roll("9-9-8"), {"iterations": 200, "max_plies": 3}),
    "2p-uncut": (lambda g: g.roll("1-1-2"), {"iterations": 40, "max_plies": 1000}),
    "3p": (lambda g: g.roll("6-4-7"), {"iterations": 150, "threads": 2}),
}


@pytest.mark.parametrize("case", sorted(TREES))
def test_the_twins_grow_the_same_tree(case: str) -> None:
    """Same seed, same budget: the compiled search and the plain twin give the same
    analyse() list, exactly (moves, visits and float values), and tree sizes."""
    make, options = TREES[case]
    games = []
    for backend in ("cython", "python"):
        game = Schuft.twin(backend)(players=3 if case == "3p" else 2, seed=1)
        make(game)
        games.append(game)
    players = [MCTSPlayer(seed=11, **options) for _ in games]
    stats = [pl.analyse(g) for pl, g in zip(players, games, strict=True)]
    assert stats[0] == stats[1] and sum(s.visits for s in stats[0]) == options["iterations"]
    infos = [pl.last_search for pl in players]
    assert infos[0] is not None and infos[1] is not None
    assert infos[0].nodes == infos[1].nodes > options["iterations"]
    assert all(s.move in games[0].legal_moves for s in stats[0])


def test_a_hint_concentrates_its_visits() -> None:
    """At a small budget (some 0.05 s) the hint's top move has a large share of the
    visits; the whole-turn search spreads its budget over hundreds of turns, one
    visit each (below)."""
    for roll in ("9-9-8", "1-1-2", "5-8-2"):
        game = Schuft(players=2)
        game.roll(roll)
        top = MCTSPlayer(iterations=20_000, seed=5).analyse(game)
        assert top[0].visits >= 2_000 and top[0].visits > top[-1].visits
        assert top[0].move in game.legal_moves


def test_the_whole_turn_search_spreads_its_visits(turns_mode: None) -> None:
    game = Schuft(players=2)
    game.roll("9-9-8")
    spread = MCTSPlayer(iterations=200, seed=5).analyse(game)
    assert spread[0].visits <= 2 and len(spread) == 200
    assert spread[0].move in game.legal_moves


@pytest.mark.parametrize("backend", ["cython", "python"])
def test_a_searched_game_completes(backend: str) -> None:
    """Two searching players (2 and 3 players): every move pushed is legal, the
    game ends."""
    for players, iterations in ((2, 60), (3, 30)):
        game = Schuft.twin(backend)(players=players, seed=players, max_plies=60)
        engines = [MCTSPlayer(iterations=iterations if backend == "cython" else 8, seed=q)
                   for q in range(players)]
        turns = 0
        while not game.is_over():
            mover = game.current_player()
            move = engines[max(mover, 0)].choose(game)
            assert mover < 0 or move in game.legal_moves
            game.push(move)
            turns += mover >= 0
        assert turns > 10 and game.outcome() is not None


def test_the_search_is_faster_by_decisions() -> None:
    """The decision search runs far more iterations a second than the search of
    whole turns (a loose bound: the machine may be busy)."""
    game = Schuft(players=2)
    game.roll("5-8-2")
    fast = MCTSPlayer(iterations=20_000, seed=1)
    fast.choose(game)
    assert fast.last_search is not None and fast.last_search.rate > 20_000


# ----------------------------------------------------------------- the whole-turn mode
def test_turns_mode_searches_whole_turns(turns_mode: None) -> None:
    """The benchmark's opponent: a search action is a whole turn (moves()), made
    and taken back on both twins; playouts run whole random turns to the end."""
    game_c, game_py = build({"players": 3, "seed": 2})
    rng = random.Random(3)
    for game in (game_c, game_py):
        game.roll("5-3-7")
    c, py = twins(game_c, game_py)
    p = probes()
    history = []
    for _ in range(30):
        player = p.probe_player(c)
        actions = p.probe_actions(c)
        assert actions == py._s_actions() and not p.probe_pending(c)
        if player == TERMINAL:
            break
        if player >= 0:
            assert actions == c.moves()
        action = rng.choice(actions) if player >= 0 else rng.choice(p.probe_chance(c))[0]
        history.append(snapshot(c))
        p.probe_do(c, action)
        py._s_do(action)
        assert snapshot(c) == snapshot(py)
        mask, state = p.probe_playout(c, 9, 12)
        assert (mask, state) == py._s_playout(9, 12) and mask >= 0
        wins, _, _, _, after = c.playouts(1, 9, 12)
        assert state == after and mask == sum(1 << q for q, w in enumerate(wins) if w)
    unwind(c, py, history)
    move = game_c._search_move([c.moves()[5]])
    assert move == list(game_c.legal_moves)[5]
