"""The engine: one Cython core and one plain-Python twin per game (see _base.py)."""

CHANCE = -1
"""``player()`` at a chance node (OpenSpiel's kChancePlayerId)."""
TERMINAL = -4
"""``player()`` once the game is over (OpenSpiel's kTerminalPlayerId)."""
