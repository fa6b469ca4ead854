"""Argument checks shared by every game: one range per kind of number, the same
on both cores, and a :class:`BrettError` that says what was expected.

numpy integers are accepted wherever an int is (``operator.index``); ``bool``,
floats and strings are not.
"""

from __future__ import annotations

import operator
from typing import Any, Optional

from .errors import BrettError, InvalidPositionError

MAX_PERFT_DEPTH = 100
"""The deepest ``perft`` / ``divide``: far beyond what any machine can count from
a start position, and shallow enough that no search can exhaust a thread's stack."""
MAX_PLIES = 2**31 - 1
"""The largest ply cap and ply count (the cores keep them in 32-bit ints)."""
MAX_COUNT = 2**63 - 1
"""The most playouts one call may run."""
MAX_TEXT = 65536
"""The longest position string (or move text) any parser reads."""


def as_int(value: Any, name: str, low: int, high: int,
           error: type[BrettError] = BrettError) -> int:
    """``value`` as a Python int in ``low..high``, or ``error`` naming the range."""
    if isinstance(value, bool):
        value_int = None
    else:
        try:
            value_int = operator.index(value)
        except TypeError:
            value_int = None
    if value_int is None or not low <= value_int <= high:
        raise error(f"{name}={value!r:.40}: expected an int from {low} to {high}")
    return value_int


def option_int(value: Any, name: str, low: int, high: int) -> int:
    """A game option: like :func:`as_int`, raising :class:`InvalidPositionError`."""
    return as_int(value, name, low, high, InvalidPositionError)


def optional_cap(value: Any, name: str = "max_plies", low: int = 1,
                 error: type[BrettError] = InvalidPositionError) -> int:
    """A ply cap: None (no cap, returned as -1) or an int in ``low..MAX_PLIES``."""
    if value is None:
        return -1
    return as_int(value, name, low, MAX_PLIES, error)


def seed_value(seed: Any, name: str = "seed",
               error: type[BrettError] = BrettError) -> Optional[int]:
    """None or an int of any size (numpy ints too); ``error`` otherwise."""
    if seed is None:
        return None
    if isinstance(seed, bool):
        raise error(f"{name}={seed!r}: expected None or an int")
    try:
        return operator.index(seed)
    except TypeError:
        raise error(f"{name}={seed!r:.40}: expected None or an int") from None


def flag(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidPositionError(f"{name}={value!r:.40}: expected True or False")
    return value


def text_field(text: Any, what: str, limit: int = MAX_TEXT,
               error: type[BrettError] = InvalidPositionError) -> str:
    """A string to parse, refused before any work if it is not one or too long."""
    if not isinstance(text, str):
        raise error(f"{what} must be a string, not {type(text).__name__}")
    if len(text) > limit:
        raise error(f"{what} is {len(text)} characters long: at most {limit} are read")
    return text


def ascii_digits(text: str, width: int = 18) -> bool:
    """Whether ``text`` is 1 to ``width`` ASCII digits: what ``int`` may convert.
    (``str.isdigit`` is not: it takes ``²``, which ``int`` refuses, and
    ``int`` refuses more than 4300 digits.)"""
    return 0 < len(text) <= width and text.isascii() and text.isdigit()


def digits(text: str, what: str, high: int, error: type[BrettError] = InvalidPositionError,
           low: int = 0) -> int:
    """A decimal field of ASCII digits in ``low..high`` (no sign, no leading zero),
    checked by its length before it is converted."""
    if not ascii_digits(text, len(str(high))) \
            or (len(text) > 1 and text[0] == "0") or not low <= int(text) <= high:
        raise error(f"{what} {text[:20]!r}: expected a number from {low} to {high}")
    return int(text)


__all__ = [
    "MAX_COUNT",
    "MAX_PERFT_DEPTH",
    "MAX_PLIES",
    "MAX_TEXT",
    "as_int",
    "ascii_digits",
    "digits",
    "flag",
    "option_int",
    "optional_cap",
    "seed_value",
    "text_field",
]
