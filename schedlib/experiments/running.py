"""What the reproductions' runs share: where the grid runs (local processes, a dask cluster,
resumable from a file), and the converters of their settings' tuple fields.

A reproduction's `runs` room builds its grid as a list of picklable tasks and hands it
to [`run_grid`][schedlib.experiments.running.run_grid] with the command's
[`Execution`][schedlib.experiments.running.Execution]; the rows are the same whether
the grid ran in this process, on local processes, on a dask cluster or in several
sittings (`--resume FILE`).

Examples
--------
>>> run_grid(abs, [-1, 2, -3], Execution(workers=1))
[1, 2, 3]
>>> int_tuple([1, 2]), float_tuple(x / 2 for x in (1, 2))
((1, 2), (0.5, 1.0))
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Executor
from typing import Any, TypeVar

import attrs

from schedlib.execution.cluster import executor as cluster_executor
from schedlib.execution.tasks import run_tasks

T = TypeVar("T")

__all__ = [
    "RUNTIME_OPTIONS",
    "Execution",
    "deciding_options",
    "execution_of",
    "float_tuple",
    "int_tuple",
    "run_grid",
]

RUNTIME_OPTIONS = frozenset(
    {"workers", "scheduler", "dask_local", "resume", "format", "claims", "plot", "handler",
     "command", "reproduction", "experiment", "quick_settings", "quick_defaults",
     "quick_typed", "running_times"}
)  # fmt: skip
"""Options that say where and how a grid runs or prints, not what it computes: a resume file
records every other option, and refuses a rerun that changes one of them."""


@attrs.frozen
class Execution:
    """Where a reproduction's grid runs, and what it resumes from.

    Attributes
    ----------
    workers
        Local processes (`None`: every CPU; `1`: this process).
    executor
        Any `concurrent.futures.Executor` (a dask cluster's); `None`: local processes.
    resume
        A file each finished run is appended to, and read back from on a rerun.
    options
        The options that decide the rows (written in the resume file's header).
    name
        The reproduction (`multisite`).
    progress
        Draw a progress bar on standard error (on a terminal only).
    report
        Told, in one line, how much a resumed grid found in its file (`None`: nobody).
    """

    workers: int | None = None
    executor: Executor | None = attrs.field(default=None, eq=False)
    resume: str | None = None
    options: Mapping[str, Any] = attrs.field(factory=dict, eq=False)
    name: str = ""
    progress: bool = False
    report: Callable[[str], None] | None = attrs.field(default=None, eq=False)


def run_grid(
    function: Callable[[T], Any],
    tasks: Sequence[T],
    execution: Execution | None,
    *,
    key: Callable[[T], str] = repr,
    cost: Callable[[T], float] | None = None,
) -> list[Any]:
    """A reproduction's grid: `[function(t) for t in tasks]` where `execution` says, each result
    as it reads back from JSON (see [`run_tasks`][schedlib.execution.tasks.run_tasks]).

    Parameters
    ----------
    function
        One run (module-level, picklable), returning JSON-serialisable rows.
    tasks
        The grid (picklable; equal keys are one run).
    execution
        Where it runs (`None`: this process's default, every CPU).
    key
        A task's canonical text, stable from one process to the next (the resume file
        matches on it; `repr` of attrs classes of plain values is).
    cost
        A task's expected cost: the most expensive are submitted first.

    Examples
    --------
    >>> run_grid(abs, [-2, 1, -3], Execution(workers=1), cost=abs)
    [2, 1, 3]
    """
    where = execution or Execution()
    return run_tasks(
        function,
        tasks,
        key=key,
        options=where.options,
        name=f"reproduce {where.name}" if where.name else "reproduce",
        executor=where.executor,
        workers=where.workers,
        resume=where.resume,
        cost=cost,
        label=where.name or None,
        progress=where.progress,
        report=where.report,
    )


def deciding_options(args: argparse.Namespace) -> dict[str, Any]:
    """The options of parsed `args` that decide a reproduction's rows (not
    [`RUNTIME_OPTIONS`][schedlib.experiments.running.RUNTIME_OPTIONS]).

    Examples
    --------
    A set is written with its members sorted, so that a resume file written by one process
    matches in another (a set's own order changes with the process's string hashing).

    >>> deciding_options(argparse.Namespace(jobs=5000, workers=2, resume="runs.jsonl"))
    {'jobs': 5000}
    >>> deciding_options(argparse.Namespace(typed=frozenset({"nodes", "iat", "jobs"})))
    {'typed': "frozenset({'iat', 'jobs', 'nodes'})"}
    """
    return {k: _stable(v) for k, v in sorted(vars(args).items()) if k not in RUNTIME_OPTIONS}


def _stable(value: Any) -> Any:
    """A set as a string with its members sorted (an empty one as `repr` writes it)."""
    if not isinstance(value, set | frozenset) or not value:
        return value
    members = ", ".join(sorted(repr(x) for x in value))
    return f"{type(value).__name__}({{{members}}})"


@contextlib.contextmanager
def execution_of(
    args: argparse.Namespace, name: str, *, progress: bool = True
) -> Iterator[Execution]:
    """The [`Execution`][schedlib.experiments.running.Execution] of parsed options
    (`--workers`, `--scheduler`, `--dask-local`, `--resume`), for the time of a `with`
    block (a dask cluster lives that long)."""
    with cluster_executor(
        getattr(args, "scheduler", None), getattr(args, "dask_local", None)
    ) as executor:
        yield Execution(
            workers=getattr(args, "workers", None),
            executor=executor,
            resume=getattr(args, "resume", None),
            options=deciding_options(args),
            name=name,
            progress=progress,
            report=_to_standard_error,
        )


def _to_standard_error(line: str) -> None:
    print(f"schedlib: {line}", file=sys.stderr)


def int_tuple(value: Iterable[int]) -> tuple[int, ...]:
    """A settings field's integers as a tuple (an attrs converter, typed for mypy)."""
    return tuple(value)


def float_tuple(value: Iterable[float]) -> tuple[float, ...]:
    """A settings field's numbers as a tuple (an attrs converter, typed for mypy)."""
    return tuple(value)
