"""Reusable attrs validators and argument checks.

Each raises [`InvalidValueError`][schedlib.errors.InvalidValueError] naming the
class and field (or the parameter) and the offending value. They are public so
that users defining their own model types get the same messages.

Examples
--------
>>> import attrs
>>> @attrs.frozen
... class Box:
...     size: int = attrs.field(validator=at_least(1))
>>> Box(0)
Traceback (most recent call last):
...
schedlib.errors.InvalidValueError: Box.size = 0: must be >= 1
>>> require(3, "B", at_least=1)
3
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import Any, TypeVar

import attrs

from schedlib.errors import InvalidValueError

__all__ = [
    "at_least",
    "finite_at_least",
    "greater_than",
    "integer",
    "one_of",
    "positive_int",
    "require",
]

N = TypeVar("N", int, float)
Validator = Callable[[Any, "attrs.Attribute[Any]", Any], None]


def _name(instance: Any, attribute: attrs.Attribute[Any]) -> str:
    return f"{type(instance).__name__}.{attribute.name}"


def _is_number(value: Any) -> bool:
    kind = type(value)
    if kind is int or kind is float:  # fast path: the common case
        return True
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _validator(accepts: Callable[[Any], bool], requirement: str) -> Validator:
    def check(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
        if not (_is_number(value) and accepts(value)):
            raise InvalidValueError(_name(instance, attribute), value, requirement)

    return check


def at_least(bound: float) -> Validator:
    """Validator: the value is a number `>= bound` (and not NaN).

    Parameters
    ----------
    bound
        Smallest accepted value.

    Returns
    -------
    Callable
        An attrs validator.
    """
    return _validator(lambda value: value >= bound, f"must be >= {bound}")


def finite_at_least(bound: float) -> Validator:
    """Validator: the value is a finite number `>= bound`.

    Parameters
    ----------
    bound
        Smallest accepted value.

    Returns
    -------
    Callable
        An attrs validator.
    """
    return _validator(
        lambda value: bound <= value < math.inf, f"must be a finite number >= {bound}"
    )


def greater_than(bound: float) -> Validator:
    """Validator: the value is a number strictly greater than `bound`.

    Parameters
    ----------
    bound
        Exclusive lower bound.

    Returns
    -------
    Callable
        An attrs validator.
    """
    return _validator(lambda value: value > bound, f"must be > {bound}")


def one_of(*choices: Any) -> Validator:
    """Validator: the value is one of `choices`.

    Parameters
    ----------
    *choices
        The accepted values (shown with `str` in the message).

    Returns
    -------
    Callable
        An attrs validator.

    Examples
    --------
    >>> @attrs.frozen
    ... class Light:
    ...     colour: str = attrs.field(validator=one_of("red", "green"))
    >>> Light("blue")
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: Light.colour = 'blue': must be one of red, green
    """
    allowed = ", ".join(str(c) for c in choices)

    def check(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
        if value not in choices:
            raise InvalidValueError(_name(instance, attribute), value, f"must be one of {allowed}")

    return check


def require(
    value: N,
    name: str,
    *,
    at_least: float | None = None,
    greater_than: float | None = None,
    at_most: float | None = None,
) -> N:
    """Check a function argument and return it unchanged.

    Parameters
    ----------
    value
        The argument.
    name
        Parameter name used in the message.
    at_least, greater_than, at_most
        Bounds to enforce (inclusive, exclusive, inclusive).

    Returns
    -------
    int or float
        `value`, so that the call can be used inline.

    Raises
    ------
    InvalidValueError
        If `value` is not a number or breaks a bound.

    Examples
    --------
    >>> require(0, "B", at_least=1)
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: B = 0: must be >= 1
    """
    if not _is_number(value) or value != value:
        raise InvalidValueError(name, value, "must be a number")
    if at_least is not None and not value >= at_least:
        raise InvalidValueError(name, value, f"must be >= {at_least}")
    if greater_than is not None and not value > greater_than:
        raise InvalidValueError(name, value, f"must be > {greater_than}")
    if at_most is not None and not value <= at_most:
        raise InvalidValueError(name, value, f"must be <= {at_most}")
    return value


def integer(text: str, at_least: int) -> int:
    """`text` as an integer >= `at_least`, or an argparse error saying what was expected.

    Examples
    --------
    >>> integer("3", 0)
    3
    >>> integer("x", 1)
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be an integer >= 1, got 'x'
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be an integer >= {at_least}, got {text.strip()!r}"
        ) from None
    if value < at_least:
        raise argparse.ArgumentTypeError(f"must be an integer >= {at_least}, got {value}")
    return value


def positive_int(text: str) -> int:
    """An argparse `type=` for a count: an integer >= 1.

    Examples
    --------
    >>> positive_int("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be an integer >= 1, got 0
    """
    return integer(text, 1)
