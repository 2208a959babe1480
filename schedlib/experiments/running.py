"""What the reproductions' runs share: runs spread over processes with a progress bar, and
the converters of their settings' tuple fields.

Examples
--------
>>> map_with_progress(abs, [-1, 2, -3], label="demo", workers=1, show_progress=False)
[1, 2, 3]
>>> int_tuple([1, 2]), float_tuple(x / 2 for x in (1, 2))
((1, 2), (0.5, 1.0))
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from schedlib.execution.parallel import parallel_map
from schedlib.execution.progress import ProgressBar

__all__ = ["float_tuple", "int_tuple", "map_with_progress"]

T = TypeVar("T")
R = TypeVar("R")


def map_with_progress(
    function: Callable[[T], R],
    items: Sequence[T],
    *,
    label: str,
    workers: int | None,
    show_progress: bool,
    batches: int = 20,
) -> list[R]:
    """`[function(x) for x in items]` on `workers` processes, in about `batches` batches.

    A progress bar named `label` advances after each batch, on standard error and
    only on a terminal (`show_progress`); the results are in the order of `items`
    whatever the number of workers (see
    [`parallel_map`][schedlib.execution.parallel.parallel_map]).
    """
    batch = max(1, math.ceil(len(items) / batches))
    results: list[R] = []
    with ProgressBar(len(items), label, enabled=None if show_progress else False) as bar:
        for start in range(0, len(items), batch):
            results.extend(parallel_map(function, items[start : start + batch], workers=workers))
            bar(len(results))
    return results


def int_tuple(value: Iterable[int]) -> tuple[int, ...]:
    """A settings field's integers as a tuple (an attrs converter, typed for mypy)."""
    return tuple(value)


def float_tuple(value: Iterable[float]) -> tuple[float, ...]:
    """A settings field's numbers as a tuple (an attrs converter, typed for mypy)."""
    return tuple(value)
