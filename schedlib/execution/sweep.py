"""Sweeps: a parameter grid × seeds of any experiment, on any executor, resumable.

[`sweep`][schedlib.execution.sweep.sweep] runs `run(**configuration)` for every
point of the cartesian product of a parameter grid and a list of seeds, through
[`run_all`][schedlib.execution.parallel.run_all] — local processes by default,
or any `concurrent.futures.Executor`, such as a dask.distributed cluster's
`Client.get_executor()`. Every run is a pure function of its configuration, so
the numbers are the same whatever the executor and whatever the completion
order; the result lists configurations in grid order.

**Nothing is lost.** With an `output` file, each configuration's result is
appended as one JSON line the moment it completes (and flushed), so an
interrupted sweep keeps everything finished before the interruption, and
`resume=True` skips the configurations already in the file. A line cut short
by a crash is ignored (and counted) when the file is read back.

Examples
--------
>>> def area(width, height, seed):
...     return {"area": width * height + seed}
>>> rows = sweep({"width": [1, 2], "height": [10]}, area, seeds=[0, 100], workers=1)
>>> [(r["width"], r["seed"], r["area"]) for r in rows]
[(1, 0, 10), (1, 100, 110), (2, 0, 20), (2, 100, 120)]
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

import attrs

from schedlib.errors import InvalidValueError, WorkloadFormatError
from schedlib.execution.parallel import run_all
from schedlib.execution.progress import ProgressBar

__all__ = ["SweepFile", "already_done", "configurations", "read_sweep", "sweep"]

Row = dict[str, Any]
Result = Mapping[str, Any] | Sequence[Mapping[str, Any]]


def configurations(
    grid: Mapping[str, Sequence[Any]],
    *,
    seeds: Sequence[int] = (0,),
    fixed: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Every point of the grid, for every seed, in a fixed order.

    Parameters
    ----------
    grid
        Parameter name -> the values to try (the first parameter varies slowest).
    seeds
        Seeds to run each point with (the fastest-varying coordinate).
    fixed
        Parameters shared by every configuration.

    Returns
    -------
    list of dict
        `{**fixed, **point, "seed": seed}` per configuration.

    Raises
    ------
    InvalidValueError
        If a parameter has no value, or a name is both fixed and swept.

    Examples
    --------
    >>> configurations({"policy": ["easy", "fcfs"]}, seeds=[1, 2], fixed={"limit": 5})
    [{'limit': 5, 'policy': 'easy', 'seed': 1}, {'limit': 5, 'policy': 'easy', 'seed': 2}, {'limit': 5, 'policy': 'fcfs', 'seed': 1}, {'limit': 5, 'policy': 'fcfs', 'seed': 2}]
    """  # noqa: E501
    fixed = dict(fixed or {})
    for name, values in grid.items():
        if isinstance(values, (str, bytes)) or not list(values):
            raise InvalidValueError(f"grid[{name!r}]", values, "must be a non-empty list of values")
        if name in fixed or name == "seed":
            raise InvalidValueError(f"grid[{name!r}]", values, "is also fixed (or is the seed)")
    if not list(seeds):
        raise InvalidValueError("seeds", seeds, "must hold at least one seed")
    names = list(grid)
    return [
        {**fixed, **dict(zip(names, point, strict=True)), "seed": seed}
        for point in itertools.product(*(list(grid[n]) for n in names))
        for seed in seeds
    ]


def key_of(configuration: Mapping[str, Any]) -> str:
    """The canonical text of a configuration: what `resume` matches on.

    Examples
    --------
    >>> key_of({"seed": 1, "policy": "easy"})
    '{"policy": "easy", "seed": 1}'
    """
    return json.dumps(dict(configuration), sort_keys=True, default=str)


@attrs.frozen
class SweepFile:
    """A sweep's output file read back.

    Attributes
    ----------
    results
        Configuration key -> `(configuration, rows)`, for each complete line.
    damaged
        Lines that could not be read (a line cut short by a crash); ignored.
    complete
        Whether the file ends with the trailer line a sweep writes when every
        configuration has finished (`{"complete": true, "configurations": N}`);
        `False` for a sweep that was interrupted or is still running.
    """

    results: Mapping[str, tuple[dict[str, Any], list[Row]]]
    damaged: int
    complete: bool = False

    def rows(self) -> list[Row]:
        """Every row, each with its configuration's fields first, in file order."""
        return [{**config, **row} for config, rows in self.results.values() for row in rows]


def read_sweep(path: str | os.PathLike[str]) -> SweepFile:
    """Read a sweep's JSON-lines output: one line per configuration.

    Each line is `{"configuration": {...}, "rows": [{...}, ...]}`; a finished
    sweep ends with the trailer `{"complete": true, "configurations": N}`
    (a resumed sweep may hold earlier trailers too; only the last line counts).

    Raises
    ------
    WorkloadFormatError
        If a complete line is not such an object (naming the file and line).
    OSError
        If the file cannot be read.
    """
    results: dict[str, tuple[dict[str, Any], list[Row]]] = {}
    damaged = 0
    complete = False
    text = Path(path).read_text()
    lines = text.split("\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            if number == len(lines):  # the last line, without its newline: cut short
                damaged += 1
                continue
            raise WorkloadFormatError(str(path), number, "not a JSON line") from None
        complete = isinstance(entry, dict) and entry.get("complete") is True
        if complete:
            continue
        if not (
            isinstance(entry, dict)
            and isinstance(entry.get("configuration"), dict)
            and isinstance(entry.get("rows"), list)
        ):
            raise WorkloadFormatError(
                str(path), number, "expected an object with 'configuration' and 'rows'"
            )
        results[key_of(entry["configuration"])] = (entry["configuration"], entry["rows"])
    return SweepFile(results, damaged, complete)


def already_done(previous: SweepFile, todo: Sequence[Mapping[str, Any]]) -> dict[str, list[Row]]:
    """The rows of the configurations of `todo` that `previous` already holds, by key.

    Examples
    --------
    >>> done = SweepFile({key_of({"a": 1, "seed": 0}): ({"a": 1, "seed": 0}, [{"x": 2}])}, 0)
    >>> already_done(done, configurations({"a": [1, 2]}))
    {'{"a": 1, "seed": 0}': [{'x': 2}]}
    """
    wanted = {key_of(c) for c in todo}
    return {k: rows for k, (_, rows) in previous.results.items() if k in wanted}


class _Run:
    """`run(**configuration)` as rows (picklable when `run` is)."""

    def __init__(self, run: Callable[..., Result]) -> None:
        self.run = run

    def __call__(self, configuration: dict[str, Any]) -> list[Row]:
        result = self.run(**configuration)
        if isinstance(result, Mapping):
            return [dict(result)]
        return [dict(row) for row in result]


def sweep(
    grid: Mapping[str, Sequence[Any]],
    run: Callable[..., Result],
    *,
    seeds: Sequence[int] = (0,),
    fixed: Mapping[str, Any] | None = None,
    executor: Executor | None = None,
    workers: int | None = None,
    output: str | os.PathLike[str] | None = None,
    resume: bool = False,
    progress: bool = False,
) -> list[Row]:
    """Run `run(**configuration)` for every configuration of the grid × seeds.

    Parameters
    ----------
    grid, seeds, fixed
        The configurations (see [`configurations`][schedlib.execution.sweep.configurations]).
    run
        A picklable (module-level) function of the configuration's parameters
        (`seed` included) returning a dict of results, or a list of dicts.
    executor
        Any `concurrent.futures.Executor` (e.g. `dask.distributed.Client(...).get_executor()`);
        `None`: local processes.
    workers
        Processes of the local pool (`None`: every CPU, `1`: this process).
    output
        A JSON-lines file; each configuration's rows are appended as it
        completes, and a trailer line when all have (see
        [`read_sweep`][schedlib.execution.sweep.read_sweep]): a file without
        it is the output of an interrupted sweep.
    resume
        Skip the configurations already in `output` (their rows are read back).
    progress
        Draw a progress bar on standard error (on a terminal only).

    Returns
    -------
    list of dict
        For each configuration, in grid order, its rows, each prefixed with
        the configuration's parameters.

    Raises
    ------
    RunFailedError
        If a run raises (naming its configuration); completed configurations
        are already in `output`.
    InvalidValueError
        For a bad grid, or `resume` without `output`, or an existing `output`
        without `resume` (it would be mixed with an older sweep).

    Notes
    -----
    Results are identical for any executor and worker count: each run is a
    pure function of its configuration. Complexity: one run per
    configuration, $\\prod_p |values_p| \\times |seeds|$ in all.
    """
    todo = configurations(grid, seeds=seeds, fixed=fixed)
    done: dict[str, list[Row]] = {}
    if resume and output is None:
        raise InvalidValueError("resume", resume, "needs an output file to resume from")
    if output is not None:
        path = Path(output)
        if path.exists() and path.stat().st_size and not resume:
            raise InvalidValueError(
                "output", str(path), "exists already: pass resume=True (--resume) or remove it"
            )
        if resume and path.exists():
            previous = read_sweep(path)
            done = already_done(previous, todo)
            if previous.damaged:
                _drop_damaged_tail(path)
    pending = [c for c in todo if key_of(c) not in done]
    bar = ProgressBar(len(todo), "sweep", enabled=None if progress else False)
    finished = len(todo) - len(pending)
    sink = open(output, "a") if output is not None else None  # noqa: SIM115 - closed below

    def record(index: int, rows: list[Row]) -> None:
        nonlocal finished
        if sink is not None:
            sink.write(json.dumps({"configuration": pending[index], "rows": rows}, default=str))
            sink.write("\n")
            sink.flush()
        finished += 1
        bar(finished)

    try:
        results = run_all(_Run(run), pending, executor=executor, workers=workers, on_result=record)
        if sink is not None:  # the trailer: every configuration of this sweep is in the file
            sink.write(json.dumps({"complete": True, "configurations": len(todo)}) + "\n")
    finally:
        if sink is not None:
            sink.close()
        bar.close()
    done.update((key_of(c), rows) for c, rows in zip(pending, results, strict=True))
    return [{**c, **row} for c in todo for row in done[key_of(c)]]


def _drop_damaged_tail(path: Path) -> None:
    """Cut a last line left unfinished by a crash, so appending starts on a fresh line."""
    text = path.read_text()
    if text and not text.endswith("\n"):
        path.write_text(text[: text.rfind("\n") + 1])
