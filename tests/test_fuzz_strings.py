"""Hostile strings: position strings, move texts, click prefixes and
constructor options of every game, on both cores.

A seeded mutation fuzzer starts from valid inputs (positions reached by random
play, half-made moves included; the legal moves' notation; click paths) and
breaks them: characters deleted, inserted, replaced, runs repeated, pieces of
other inputs spliced in, digits beyond ASCII.  Hypothesis adds text of its own.
Nothing but a BrettError may escape; what parses round-trips (a position string
loads back as an equal game, a move's notation parses back to the move); the
compiled core accepts exactly what the plain twin (the oracle) accepts.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import brett
from conftest import NO_EXTENSIONS, SETUPS, advance, setup_factory

NAMES = list(brett.GAMES)
ODD = ["²", "٣", "１", "\x00", "\u200b", "é", "\n", "\t", "-", "/", ",", ":", "*", "x", "0",
       "9", "99999999999999999999", " ", "+", "O", "."]
"""Characters and runs that parsers have tripped on: digits beyond ASCII (which
str.isdigit() takes), separators, huge numbers."""
MUTANTS = 600
"""Mutated strings per game, core and kind of input (the default run: ~20 s)."""


def fails_cleanly(call: Callable[[], Any], text: Any) -> Any:
    """``call()``'s result, or None after a BrettError; any other error fails."""
    try:
        return call()
    except brett.BrettError:
        return None
    except Exception as exc:  # the bug this file hunts
        pytest.fail(f"{type(exc).__name__}: {exc} for {text!r:.300}")


def mutate(text: str, rng: random.Random, others: list[str]) -> str:
    """``text`` with one to three random edits."""
    for _ in range(rng.randint(1, 3)):
        i = rng.randint(0, len(text))
        j = min(len(text), i + rng.randint(1, 8))
        kind = rng.randrange(7)
        if kind == 0 and text:
            text = text[:i] + text[j:]                             # delete
        elif kind == 1:
            text = text[:i] + rng.choice(ODD) + text[i:]           # insert
        elif kind == 2 and i < len(text):
            text = text[:i] + rng.choice(ODD + list(text)) + text[i + 1:]  # replace
        elif kind == 3:
            text = text[:i] + text[i:j] * rng.choice((2, 3, 50)) + text[j:]  # repeat
        elif kind == 4 and others:
            other = rng.choice(others)                              # splice
            k = rng.randint(0, len(other))
            text = text[:i] + other[k:k + rng.randint(1, 20)] + text[j:]
        elif kind == 5:
            text = text[:i]                                         # truncate
        else:
            text = text.swapcase() if rng.random() < 0.5 else text.strip()
    return text


def corpus(name: str, backend: str) -> list[Any]:
    """Games of ``name`` at reachable positions (every set-up, a few plies in),
    one with a move half made through the integer layer where there are such."""
    games = []
    for setup in (s for s in SETUPS if SETUPS[s][0] == name):
        for plies in (0, 5, 17):
            games.append(advance(setup_factory(setup, backend)(), plies, plies))
    cls = brett.GAMES[name].twin(backend)
    if cls.multi_action:
        for game in games[:4]:
            half = game.copy()
            for _ in range(3):
                actions = half.legal_actions()
                if half.is_over() or not actions:
                    break
                half.apply_action(actions[-1])
            games.append(half)
    return games


def check_position(cls: type, oracle: type, text: str) -> None:
    game = fails_cleanly(lambda: cls.from_position(text), text)
    twin = fails_cleanly(lambda: oracle.from_position(text), text)
    assert (game is None) == (twin is None), f"the cores disagree on {text!r:.300}"
    if game is None:
        return
    again = cls.from_position(game.position())
    assert again == game and again.position() == game.position() == twin.position()
    count = game.legal_moves.count(limit=1000)  # a crowded Phutball board: uncountable
    assert count == twin.legal_moves.count(limit=1000)
    assert bool(game.legal_moves) == (count > 0 and not game.pending_actions)


def check_move(game: Any, text: str) -> None:
    move = fails_cleanly(lambda: game.parse_move(text), text)
    if move is not None:
        assert game.parse_move(str(move)) == move
    before = game.position()
    played = fails_cleanly(lambda: game.push(text), text)
    if played is None:
        assert game.position() == before  # a failed push changes nothing
        return
    assert game.parse_move(str(played)) == played
    assert game.pop() == played and game.position() == before


def click_paths(game: Any, rng: random.Random, count: int) -> list[tuple[str, ...]]:
    """Prefixes of click paths, following the clicks offered."""
    paths = []
    for _ in range(count):
        prefix: tuple[str, ...] = ()
        for _ in range(rng.randint(0, 5)):
            offered = game.legal_moves.clicks(*prefix).next
            if not offered:
                break
            prefix = (*prefix, rng.choice(offered))
        paths.append(prefix)
    return paths


@pytest.mark.parametrize("name", NAMES)
def test_mutated_position_strings(name: str, backend: str) -> None:
    cls, oracle = brett.GAMES[name].twin(backend), brett.GAMES[name].twin("python")
    seeds = [g.position() for g in corpus(name, backend)]
    rng = random.Random(f"positions {name}")
    for text in seeds:
        check_position(cls, oracle, text)
    for _ in range(MUTANTS):
        check_position(cls, oracle, mutate(rng.choice(seeds), rng, seeds))


@pytest.mark.parametrize("name", NAMES)
def test_mutated_move_texts(name: str, backend: str) -> None:
    games = [g for g in corpus(name, backend) if not g.pending_actions]
    rng = random.Random(f"moves {name}")
    texts = [str(m) for g in games for m in itertools.islice(g.legal_moves, 20)]
    texts += [str(g.action_to_move(a)) for g in games if g.is_chance_node()
              for a, _ in g.chance_outcomes()[:5]]
    for _ in range(MUTANTS):
        check_move(rng.choice(games), mutate(rng.choice(texts), rng, texts))
    for text in texts[:50]:
        check_move(rng.choice(games), text)


@pytest.mark.parametrize("name", NAMES)
def test_mutated_click_prefixes(name: str, backend: str) -> None:
    games = [g for g in corpus(name, backend) if not g.pending_actions]
    rng = random.Random(f"clicks {name}")
    for game in games:
        for prefix in click_paths(game, rng, 4):
            clicks = game.legal_moves.clicks(*prefix)
            assert all(m in game.legal_moves for m in clicks.moves)
            bad = list(prefix) or ["a1"]
            bad[rng.randrange(len(bad))] = mutate(rng.choice(bad), rng, bad)
            fails_cleanly(lambda g=game, p=tuple(bad): g.legal_moves.clicks(*p), bad)


HOSTILE = [None, True, -1, 0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 25, 26, 2**31, 2**64, 1.5, "2", "²",
           "٣", "", "random", "roll", "octagon", "white", "a1", "x" * 10**5, [], ["a1"],
           ("b2", "g7"), b"a1", {"a": 1}, float("nan"), -(2**63)]
OPTION_NAMES = {
    "reversi": ["size", "board", "holes", "handicap", "handicap_color", "seed"],
    "focus": ["players", "teams", "move_rule", "mirror_rule", "swap", "max_plies", "seed"],
    "phutball": ["columns", "rows", "ball", "max_plies", "seed"],
    "schuft": ["players", "first_player", "max_plies", "seed"],
}


@pytest.mark.parametrize("name", NAMES)
def test_hostile_constructor_options(name: str, backend: str) -> None:
    cls = brett.GAMES[name].twin(backend)
    rng = random.Random(f"options {name}")
    for _ in range(MUTANTS):
        options = {key: rng.choice(HOSTILE)
                   for key in rng.sample(OPTION_NAMES[name], rng.randint(1, 3))}
        game = fails_cleanly(lambda o=options: cls(**o), options)
        if game is not None:
            assert cls.from_position(game.position()) == game


POSITION_TEXT = st.text(st.sampled_from("0123456789/ ,.:-=*+xOrgbyeabcdhjnp²٣\n"),
                        max_size=80)


@pytest.mark.parametrize("backend", ["python", pytest.param("cython", marks=pytest.mark.skipif(
    NO_EXTENSIONS, reason="BRETT_NO_EXTENSIONS=1"))])
@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=POSITION_TEXT, move=st.text(max_size=30))
def test_arbitrary_text(name: str, backend: str, text: str, move: str) -> None:
    cls, oracle = brett.GAMES[name].twin(backend), brett.GAMES[name].twin("python")
    check_position(cls, oracle, text)
    check_move(cls(), move)
