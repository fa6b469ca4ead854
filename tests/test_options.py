"""Each game's ``OPTIONS`` (what frontends build their forms from, and what the
protocol checks option names against) tell the truth about its constructor: the
same names, order and defaults; every documented minimum, maximum and choice
accepted; one step outside refused with a BrettError."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

import brett

# Options whose range depends on another: the other's value that opens the range.
NEEDS = {("schuft", "first_player"): {"players": 4}}
GAMES = list(brett.GAMES)


def _options(name: str) -> list[Any]:
    return list(brett.GAMES[name].OPTIONS)


@pytest.mark.parametrize("name", GAMES)
def test_options_are_the_constructors_parameters(name: str) -> None:
    cls = brett.GAMES[name]
    parameters = [p for p in inspect.signature(cls.__init__).parameters.values()
                  if p.name != "self"]
    assert [o.name for o in cls.OPTIONS] == [p.name for p in parameters]
    assert [o.default for o in cls.OPTIONS] == [p.default for p in parameters]
    for option in cls.OPTIONS:
        assert option.help and set(option.types) <= {"integer", "string", "boolean", "array",
                                                      "null"}
        assert (option.minimum is None) == (option.maximum is None)


@pytest.mark.parametrize(("name", "option"), [(n, o.name) for n in GAMES for o in _options(n)
                                              if o.minimum is not None])
def test_integer_ranges_are_exact(name: str, option: str) -> None:
    cls = brett.GAMES[name]
    spec = next(o for o in cls.OPTIONS if o.name == option)
    base = NEEDS.get((name, option), {})
    for value in (spec.minimum, spec.maximum):
        cls(**base, **{option: value})
    for value in (spec.minimum - 1, spec.maximum + 1):
        with pytest.raises(brett.BrettError):
            cls(**base, **{option: value})
    if spec.step > 1:
        with pytest.raises(brett.BrettError):
            cls(**base, **{option: spec.minimum + 1})


@pytest.mark.parametrize(("name", "option"), [(n, o.name) for n in GAMES for o in _options(n)
                                              if o.choices])
def test_every_choice_is_accepted(name: str, option: str) -> None:
    cls = brett.GAMES[name]
    spec = next(o for o in cls.OPTIONS if o.name == option)
    for choice in spec.choices:
        cls(**{option: choice})
    if spec.types == ("string",):
        with pytest.raises(brett.BrettError):
            cls(**{option: "none of these"})


@pytest.mark.parametrize(("name", "option"), [(n, o.name) for n in GAMES for o in _options(n)
                                              if o.types == ("boolean",)])
def test_booleans_take_true_and_false_only(name: str, option: str) -> None:
    cls = brett.GAMES[name]
    for value in (True, False):
        cls(**{option: value})
    with pytest.raises(brett.BrettError):
        cls(**{option: 1})


def test_as_dict_is_json_ready() -> None:
    import json

    for name in GAMES:
        for option in _options(name):
            data = option.as_dict()
            assert json.loads(json.dumps(data)) == data
            assert data["name"] == option.name and data["default"] == option.default


DEPENDENT = [(n, o.name) for n in GAMES for o in _options(n) if o.only_with]


def test_some_options_depend_on_others() -> None:
    assert set(DEPENDENT) == {("focus", "teams"), ("focus", "swap"), ("focus", "mirror_rule"),
                              ("reversi", "handicap_color")}


@pytest.mark.parametrize(("name", "option"), DEPENDENT)
def test_a_dependent_option_names_real_options_and_values(name: str, option: str) -> None:
    """``only_with`` names options of the same game and values they take, and under
    each of them the dependent option takes a value other than its default."""
    cls = brett.GAMES[name]
    spec = next(o for o in cls.OPTIONS if o.name == option)
    other = {"teams": False, "swap": "random", "mirror_rule": True, "handicap_color": "white"}
    names = [o.name for o in cls.OPTIONS]
    for needed, values in spec.only_with:
        assert needed in names and needed != option and values
        for value in values:
            cls(**{needed: value, option: other[option]})
    assert spec.as_dict()["only_with"] == {n: list(v) for n, v in spec.only_with}
