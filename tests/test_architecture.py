"""The architecture's rules (docs/architecture.md), checked."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path
from typing import Any

import pytest

import brett
from brett._core._base import Core
from brett.game import Game
from conftest import NO_EXTENSIONS

SRC = Path(brett.__file__).parent
BASE_ONLY = ("push", "pop", "perft", "divide", "random_playout", "random_playouts",
             "legal_actions", "apply_action", "undo_action", "current_player", "is_over",
             "copy", "returns")
PROTOCOL = [name for name, member in vars(Core).items()
            if callable(member) and not name.startswith("_")]


@pytest.mark.parametrize("name", list(brett.GAMES))
def test_game_modules_supply_hooks_not_base_behaviour(name: str) -> None:
    cls = brett.GAMES[name]
    assert issubclass(cls, Game) and cls.game_name == name
    overridden = [m for m in BASE_ONLY if m in vars(cls)]
    assert overridden == [], f"{cls.__name__} redefines {overridden}"


def _cores(name: str) -> list[Any]:
    brett.GAMES[name]()   # a game's cores are loaded with its first use
    cores = brett.game._LOADED[name]
    core_cls = brett.GAMES[name]._core_class_name
    found = [getattr(cores.python, core_cls)]
    if not NO_EXTENSIONS:
        assert cores.cython is not None
        found.append(getattr(cores.cython, core_cls))
    return found


@pytest.mark.parametrize("name", list(brett.GAMES))
def test_both_twins_implement_the_core_protocol(name: str) -> None:
    assert {"set_state", "push", "pop", "perft", "playouts", "enter"} <= set(PROTOCOL)
    signatures = []
    for core_cls in _cores(name):
        core = core_cls()
        assert isinstance(core, Core), core_cls
        assert isinstance(core.entries, list)
        signatures.append({method: [p for p in inspect.signature(getattr(core, method))
                                    .parameters] for method in PROTOCOL})
    for method in PROTOCOL:
        expected = len(inspect.signature(getattr(Core, method)).parameters) - 1
        for sig in signatures:
            assert len(sig[method]) == expected, (name, method, sig[method])
    # Twin-specific extras are the same on both twins too.
    extras = [{m for m in dir(c) if not m.startswith("_")} - set(PROTOCOL) - {"entries"}
              for c in _cores(name)]
    assert all(e == extras[0] for e in extras), extras


FRONTENDS = sorted(p.relative_to(SRC).as_posix() for p in (SRC / "frontends").glob("*.py"))
RECORDS = sorted(p.relative_to(SRC).as_posix() for p in (SRC / "records").glob("*.py"))


def private_reads(module: str) -> set[str]:
    """The attributes starting with one underscore that ``module`` reads off any
    object except ``self``."""
    tree = ast.parse((SRC / module).read_text())
    return {node.attr for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and not (isinstance(node.value, ast.Name) and node.value.id == "self")}


ADAPTERS = ["openspiel.py", "pettingzoo.py", "gymnasium.py", "_rl.py"]


@pytest.mark.parametrize("module", ["render.py", *RECORDS, *FRONTENDS, *ADAPTERS])
def test_features_over_the_games_use_the_public_api(module: str) -> None:
    """No attribute that starts with an underscore is read off any object (of
    a game or otherwise) in these modules, except a class's own on ``self``."""
    private = sorted(private_reads(module))
    assert private == [], f"{module} reads {private}"


@pytest.mark.parametrize("module", sorted(p.name for p in (SRC / "ai").glob("*.py")))
def test_the_computer_players_use_only_the_search_hooks_of_a_game(module: str) -> None:
    """brett.ai reaches under the public API only for what a search needs (see
    docs/architecture.md, layer 5): the core to clone and the base's search hooks
    (and Player's own check of a game)."""
    private = private_reads(f"ai/{module}")
    assert private <= {"_core", "_move_from_core", "_search_move", "_search_plies",
                       "_refuse_pending", "_exact_moves", "_check"}, private


def test_the_vector_env_uses_only_the_core_of_a_game() -> None:
    """vector.py reaches under the public API only for the core it clones (its
    compiled loop steps the clones through the v_* hooks), the base's answer
    whether that core has them, and each game's measured memory per copy."""
    assert private_reads("vector.py") <= {"_core", "_compiled_hooks", "_state_bytes"}


def test_the_game_list_is_written_once() -> None:
    """The names of all four games appear together only in the registry."""
    names = list(brett.GAMES)
    for path in SRC.rglob("*.py"):
        if path.name == "game.py":
            continue
        text = path.read_text()
        assert not all(f'"{n}"' in text for n in names), path

