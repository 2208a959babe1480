"""Run independent simulations on several cores, deterministically.

Reproductions run many independent trials;
[`parallel_map`][schedlib.execution.parallel.parallel_map] spreads them over
processes and returns results in input order, so the output does not depend
on the number of workers.

Examples
--------
>>> parallel_map(abs, [-1, 2, -3], workers=1)
[1, 2, 3]
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

from schedlib.validation import require

__all__ = ["default_workers", "parallel_map"]

T = TypeVar("T")
R = TypeVar("R")


def default_workers() -> int:
    """The number of CPUs this process may use (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def parallel_map(
    function: Callable[[T], R], items: Iterable[T], *, workers: int | None = None
) -> list[R]:
    """`[function(x) for x in items]`, computed by `workers` processes.

    Parameters
    ----------
    function
        A picklable (module-level) pure function.
    items
        Its arguments (picklable).
    workers
        Number of processes; `None` means every available CPU; `1` runs in
        this process (no pickling, easiest to debug).

    Returns
    -------
    list
        The results, in the order of `items`.
    """
    todo = list(items)
    count = default_workers() if workers is None else require(workers, "workers", at_least=1)
    if count == 1 or len(todo) <= 1:
        return [function(x) for x in todo]
    chunk = max(1, len(todo) // (count * 8))
    with ProcessPoolExecutor(max_workers=min(count, len(todo))) as pool:
        return list(pool.map(function, todo, chunksize=chunk))
