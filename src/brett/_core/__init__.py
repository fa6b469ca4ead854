"""The engine: one Cython core and one plain-Python twin per game (see _base.py)."""

from importlib import resources

from ..errors import BrettError

CHANCE = -1
"""``player()`` at a chance node (OpenSpiel's kChancePlayerId)."""
TERMINAL = -4
"""``player()`` once the game is over (OpenSpiel's kTerminalPlayerId)."""


def data_file(name: str, what: str) -> bytes:
    """The bytes of ``brett/data/<name>`` (shipped with the package); ``what`` it
    holds names it in the error when it is missing."""
    try:
        return (resources.files("brett") / "data" / name).read_bytes()
    except OSError as error:
        raise BrettError(f"{what} {name} is missing: {error}") from None
