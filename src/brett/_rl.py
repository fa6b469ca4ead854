"""What brett.pettingzoo and brett.gymnasium share: a game driven through the
integer layer, its spaces, chance drawn from the environment's generator, and
rendering.  Public API of the games only (docs/architecture.md, layer 4)."""

from __future__ import annotations

import operator
from typing import Any, Optional

import numpy as np
from gymnasium import spaces

from ._checks import as_int
from .errors import BrettError, IllegalMoveError, InvalidMoveError
from .game import GAMES, Game

RENDER_MODES = ("human", "ansi", "svg")
"""``human``: show the SVG in Jupyter, else print the text board (returns None);
``ansi``: the text board as a string; ``svg``: the SVG document as a string."""

SEED_LIMIT = 2**63
"""Game seeds drawn from an environment's generator lie in 0 .. 2**63 - 1."""


def game_class(game: Any) -> type[Game[Any]]:
    """The class of the brett game named ``game``; BrettError for anything else."""
    return GAMES.lookup(game)


def check_render_mode(mode: Any) -> Optional[str]:
    if mode is not None and mode not in RENDER_MODES:
        raise BrettError(f"render_mode={mode!r}: expected None or one of "
                         f"{', '.join(RENDER_MODES)}")
    return mode


def optional_count(value: Any, name: str) -> Optional[int]:
    """None or an int of at least 1 (numpy integers welcome), else BrettError."""
    if value is None:
        return None
    try:
        number = operator.index(value)
    except TypeError:
        raise BrettError(f"{name}={value!r:.40}: expected None or a positive integer") from None
    if isinstance(value, bool) or number < 1:
        raise BrettError(f"{name}={value!r:.40}: expected None or a positive integer")
    return number


def new_game(cls: type[Game[Any]], options: dict[str, Any],
             rng: Optional[np.random.Generator]) -> Game[Any]:
    """A game with ``options``; where the options leave ``seed`` open and a
    generator is given, the game's own seed (random holes, a random swap) is
    drawn from it, so an environment's seed fixes the whole episode."""
    if rng is not None and options.get("seed") is None:
        options = {**options, "seed": int(rng.integers(SEED_LIMIT))}
    return GAMES.create(cls, **options)


def observation_high(game: Game[Any]) -> np.ndarray:
    """The largest value each entry of the observation can take (the game guides
    document the planes): 1 everywhere except counts of pieces, bounded by the
    pieces a game starts with."""
    obs = game.observation_tensor()
    high = np.ones(obs.shape, dtype=np.float32)
    if game.game_name == "focus":
        n = game.num_players()
        playable = obs[5 * n] > 0
        total = obs[:5 * n].sum() + obs[5 * n + 1:, playable][:, 0].sum()
        high[5 * n + 1:] = total  # reserve planes: a player holds at most every piece
    elif game.game_name == "schuft":
        for p in range(game.num_players()):
            block = obs[46 * p:46 * p + 46]
            pieces = block.sum()  # tongue counts, goal bits and the out count: all a player has
            high[46 * p:46 * p + 36] = pieces
            high[46 * p + 45] = pieces
    return high


def observation_space(game: Game[Any]) -> spaces.Dict:
    """``Dict(observation=Box(float32), action_mask=Box(int8, 0..1))``."""
    high = observation_high(game)
    size = game.num_distinct_actions()
    return spaces.Dict({
        "observation": spaces.Box(np.zeros_like(high), high, dtype=np.float32),
        "action_mask": spaces.Box(0, 1, (size,), dtype=np.int8),
    })


def check_action(game: Game[Any], action: Any) -> int:
    """``action`` as an int: :class:`InvalidMoveError` outside the action space,
    :class:`IllegalMoveError` inside it but not legal now (whatever the game's
    own reason, so both environments answer every illegal action alike)."""
    value = as_int(action, "action", 0, game.num_distinct_actions() - 1, InvalidMoveError)
    if game.is_over():
        raise IllegalMoveError(f"action {value}: the game is over")
    if not game.legal_actions_mask()[value]:
        legal = game.legal_actions()
        shown = ", ".join(map(str, legal[:30])) + (", ..." if len(legal) > 30 else "")
        raise IllegalMoveError(f"action {value} is not legal here (legal: {shown})")
    return value


def observe(game: Game[Any], acting: bool) -> dict[str, np.ndarray]:
    """The observation dict: fresh arrays every call (users keep them); the mask
    is zeros unless ``acting`` (the observer is the one to move)."""
    mask = np.zeros(game.num_distinct_actions(), dtype=np.int8)
    if acting and not game.is_over():
        game.legal_actions_mask(out=mask)
    return {"observation": game.observation_tensor(), "action_mask": mask}


def resolve_chance(game: Game[Any], rng: np.random.Generator) -> list[dict[str, Any]]:
    """Draw chance outcomes from ``rng`` until a decision node or the end: what
    was drawn, as ``[{"action": int, "move": str}]``."""
    drawn = []
    while game.is_chance_node():
        outcomes = game.chance_outcomes()
        probs = np.array([p for _, p in outcomes], dtype=np.float64)
        if np.all(probs == probs[0]):
            index = int(rng.integers(len(outcomes)))
        else:
            index = int(rng.choice(len(outcomes), p=probs / probs.sum()))
        action = outcomes[index][0]
        text = str(game.action_to_move(action))
        game.apply_action(action)
        drawn.append({"action": action, "move": text})
    return drawn


def random_move(game: Game[Any], rng: np.random.Generator) -> None:
    """Play one whole move of uniformly random actions (a Phutball jump and a
    Schuft turn step by step, as brett's random players draw them)."""
    game.apply_action(int(rng.choice(game.legal_actions())))
    while game.pending_actions:
        game.apply_action(int(rng.choice(game.legal_actions())))


def render(game: Optional[Game[Any]], mode: Optional[str]) -> Optional[str]:
    """Render ``game`` in ``mode`` (see :data:`RENDER_MODES`)."""
    if mode is None:
        return None
    if game is None:
        raise BrettError("render before reset(): there is no game yet")
    if mode == "ansi":
        return str(game)
    from .render import svg

    if mode == "svg":
        return svg(game)
    show(game, svg)
    return None


def show(game: Game[Any], svg: Any) -> None:
    """The human mode: the SVG in a Jupyter notebook, else the text board."""
    try:
        from IPython import get_ipython
        from IPython.display import SVG, display
    except ImportError:
        shell = None
    else:
        shell = get_ipython()
    if shell is not None and getattr(shell, "kernel", None) is not None:
        display(SVG(svg(game)))
    else:
        print(game, flush=True)
