"""One-line mutants of a function, to check that a test can fail.

A property that passes on a deliberately broken copy of the code under test
checks nothing. [`mutant`][schedlib.testing.mutation.mutant] builds such a
copy: the function's source with one piece of text replaced, compiled in the
function's own module namespace (so it sees the same helpers). The original
function is untouched; pass the copy wherever the code accepts a policy or
rule as a parameter.

Examples
--------
>>> def double(x):
...     return 2 * x
>>> triple = mutant(double, "2 * x", "3 * x")
>>> double(5), triple(5)
(10, 15)
>>> mutant(double, "4 * x", "5 * x")
Traceback (most recent call last):
...
ValueError: '4 * x' occurs 0 times in double (expected exactly once)
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

__all__ = ["mutant"]

F = TypeVar("F", bound=Callable[..., Any])


def mutant(function: F, old: str, new: str, *, also: Sequence[tuple[str, str]] = ()) -> F:
    """A copy of `function` with the text `old` of its source replaced by `new`.

    Parameters
    ----------
    function
        A plain Python function defined in a source file (decorators are
        dropped from the copy).
    old, new
        The text to replace; `old` must occur exactly once in the source.
    also
        Further `(old, new)` replacements, applied in order after the first.

    Returns
    -------
    Callable
        The mutated function, named like the original.

    Raises
    ------
    ValueError
        If `old` does not occur exactly once.

    Notes
    -----
    Complexity: $O(L)$ for a source of $L$ characters (one compilation).
    """
    source = textwrap.dedent(inspect.getsource(function))
    for before, after in ((old, new), *also):
        count = source.count(before)
        if count != 1:
            raise ValueError(
                f"{before!r} occurs {count} times in {function.__name__} (expected exactly once)"
            )
        source = source.replace(before, after)
    lines = source.splitlines(keepends=True)
    while lines and lines[0].lstrip().startswith("@"):
        lines.pop(0)
    namespace: dict[str, Any] = dict(function.__globals__)
    exec(compile("".join(lines), f"<mutant of {function.__qualname__}>", "exec"), namespace)
    copy: F = namespace[function.__name__]
    return copy
