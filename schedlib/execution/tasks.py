r"""A grid of independent runs, on local processes or any executor, expensive runs first,
resumable from a file.

A reproduction is a grid of runs, each a pure function of its task (a picklable
value). [`run_tasks`][schedlib.execution.tasks.run_tasks] runs them through
[`run_all`][schedlib.execution.parallel.run_all] — this process, local
processes, or any `concurrent.futures.Executor` such as a dask.distributed
cluster's — submitting the most expensive first (so that the last minutes are
not spent waiting for one long run), and returns the results in task order.

**Nothing finished is lost.** With a `resume` file, each task's result is
appended as one JSON line the moment it completes (one `write` of a whole line,
flushed and synced), after a header line naming what was asked (the
reproduction and its options). Run again with the same file and the same
options, it reads the results back and runs only the tasks not in it; a file
written with other options is refused, naming the first difference; a last line
cut short by a crash is dropped.

**The same results everywhere.** A result goes through JSON whether it was
just computed or read back (tuples become lists, keys strings), so a run on
local processes, on a cluster, or resumed in any number of sittings returns
identical results.

Examples
--------
>>> import json, os, tempfile
>>> def square(x):
...     return {"x": x, "square": x * x}
>>> folder = tempfile.mkdtemp()
>>> path = os.path.join(folder, "runs.jsonl")
>>> first = run_tasks(square, [3, 1, 2], key=str, options={"n": 3}, resume=path, workers=1)
>>> [r["square"] for r in first]
[9, 1, 4]
>>> again = run_tasks(square, [3, 1, 2], key=str, options={"n": 3}, resume=path, workers=1)
>>> again == first, len(open(path).read().splitlines())     # the header and three results
(True, 4)
>>> from schedlib.errors import InvalidValueError
>>> try:
...     run_tasks(square, [3], key=str, options={"n": 4}, resume=path, workers=1)
... except InvalidValueError as error:
...     print(error)
--resume = '...runs.jsonl': was written with other options: n = 3 there, 4 here;
use another file, or the options it was written with
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor
from pathlib import Path
from typing import Any, TypeVar

import attrs

from schedlib.errors import InvalidValueError, WorkloadFormatError
from schedlib.execution.parallel import run_all
from schedlib.execution.progress import ProgressBar

__all__ = ["GridInterrupted", "ResumeFile", "jsonable_result", "read_resume_file", "run_tasks"]

T = TypeVar("T")

_HEADER = "schedlib runs"


class GridInterrupted(KeyboardInterrupt):
    """Ctrl-C during a grid with a resume file: says how many runs the file keeps.

    A `KeyboardInterrupt`, so whatever stops on Ctrl-C stops on it; its text is one line
    for the command to print after "interrupted: ".

    Examples
    --------
    >>> stop = GridInterrupted("3 of 8 runs are in runs.jsonl; run the same command again")
    >>> isinstance(stop, KeyboardInterrupt)
    True
    >>> print(f"interrupted: {stop}")
    interrupted: 3 of 8 runs are in runs.jsonl; run the same command again
    """


def jsonable_result(result: Any) -> Any:
    """`result` as it reads back from a JSON line (what every result of a grid becomes).

    Examples
    --------
    >>> jsonable_result({"a": (1, 2.5), 3: float("nan")})
    {'a': [1, 2.5], '3': nan}
    """
    return json.loads(json.dumps(result, default=str))


@attrs.frozen
class ResumeFile:
    """A resume file read back.

    Attributes
    ----------
    name
        What wrote it (a reproduction's name).
    options
        The options it was written with.
    results
        Task key -> result, for each complete line.
    damaged
        Lines cut short by a crash (the last line only); dropped on resuming.
    """

    name: str
    options: Mapping[str, Any]
    results: Mapping[str, Any]
    damaged: int = 0


def read_resume_file(path: str | os.PathLike[str]) -> ResumeFile:
    """Read a resume file: a header line, then one `{"key": ..., "result": ...}` line per task.

    Raises
    ------
    WorkloadFormatError
        If the header or a complete line is not what a grid writes (naming the
        file and the line).
    OSError
        If the file cannot be read.
    """
    lines = Path(path).read_text(encoding="utf-8").split("\n")
    header: dict[str, Any] | None = None
    results: dict[str, Any] = {}
    damaged = 0
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
        if header is None:
            if not (isinstance(entry, dict) and entry.get(_HEADER) is not None):
                raise WorkloadFormatError(
                    str(path), number, "not a resume file of schedlib (no header line)"
                )
            header = entry
            continue
        if not (isinstance(entry, dict) and isinstance(entry.get("key"), str)
                and "result" in entry):  # fmt: skip
            raise WorkloadFormatError(
                str(path), number, "expected an object with 'key' and 'result'"
            )
        results[entry["key"]] = entry["result"]
    if header is None:
        return ResumeFile("", {}, {}, damaged)
    return ResumeFile(str(header[_HEADER]), dict(header.get("options", {})), results, damaged)


def _difference(written: Mapping[str, Any], asked: Mapping[str, Any]) -> str:
    """The first option that differs, as `name = there, here`."""
    for name in sorted(set(written) | set(asked)):
        there, here = written.get(name, "(absent)"), asked.get(name, "(absent)")
        if there != here:
            return f"{name} = {_show(there)} there, {_show(here)} here"
    return "none"  # pragma: no cover - called only when they differ


def _show(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return str(value)


def _key_fields(key: str) -> dict[str, Any] | None:
    """A key's fields when it is a JSON object (the multi-site grid's keys), else `None`."""
    try:
        value = json.loads(key)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _strangers_note(path: Path, done: Mapping[str, Any], grid: Sequence[str]) -> str | None:
    """A note on the runs of a resume file that are not runs of this grid (`None`: none).

    They are kept in the file and not used. The same options normally make the same grid;
    a run that read its traces elsewhere (the real trace in one sitting, the embedded slice
    in another) or another version's grid does not. The note names how the first one
    differs from the nearest run of the grid, field by field when keys are JSON objects.

    Examples
    --------
    >>> grid = ['{"data": "real trace", "load_factor": 1.0}']
    >>> print(_strangers_note(Path("runs.jsonl"), {'{"data": "embedded slice", '
    ...       '"load_factor": 1.0}': {}}, grid))  # doctest: +NORMALIZE_WHITESPACE
    --resume runs.jsonl: 1 of its 1 runs are not runs of this grid and are not used (the
    first differs from the nearest run of the grid in data: 'embedded slice' there, 'real
    trace' here)
    """
    members = set(grid)
    extra = [k for k in done if k not in members]
    if not extra:
        return None
    note = (
        f"--resume {path}: {len(extra)} of its {len(done)} runs are not runs of this grid "
        "and are not used"
    )
    there = _key_fields(extra[0])
    fields = [f for f in map(_key_fields, grid) if f is not None]
    if there is None or not fields:
        return note

    def differing(here: dict[str, Any]) -> list[str]:
        return [n for n in sorted(set(there) | set(here)) if there.get(n) != here.get(n)]

    nearest = min(fields, key=lambda here: len(differing(here)))
    named = "; ".join(
        f"{n}: {there.get(n, '(absent)')!r} there, {nearest.get(n, '(absent)')!r} here"
        for n in differing(nearest)[:3]
    )
    return f"{note} (the first differs from the nearest run of the grid in {named})"


def _open_resume(path: Path, name: str, options: Mapping[str, Any]) -> tuple[dict[str, Any], Any]:
    """The results already in `path` and the file opened for appending (header written)."""
    asked = jsonable_result(dict(options))
    done: dict[str, Any] = {}
    if path.exists() and path.stat().st_size:
        previous = read_resume_file(path)
        if previous.name != name or dict(previous.options) != asked:
            what = (
                f"by `{previous.name}`, not `{name}`"
                if previous.name != name
                else f"with other options: {_difference(previous.options, asked)}"
            )
            raise InvalidValueError(
                "--resume",
                str(path),
                f"was written {what}; use another file, or the options it was written with",
            )
        done = dict(previous.results)
        text = path.read_text(encoding="utf-8")
        if not text.endswith("\n"):  # a line cut short by a crash: start on a fresh one
            path.write_text(text[: text.rfind("\n") + 1], encoding="utf-8")
        sink = open(path, "a", encoding="utf-8")  # noqa: SIM115 - closed by the caller
    else:
        sink = open(path, "w", encoding="utf-8")  # noqa: SIM115 - closed by the caller
        _append(sink, {_HEADER: name, "options": asked})
    return done, sink


def _append(sink: Any, entry: Mapping[str, Any]) -> None:
    """One whole line in one write, flushed and synced: a crash loses at most this line."""
    sink.write(json.dumps(entry, default=str) + "\n")
    sink.flush()
    os.fsync(sink.fileno())


def run_tasks(
    function: Callable[[T], Any],
    tasks: Sequence[T],
    *,
    key: Callable[[T], str],
    options: Mapping[str, Any] | None = None,
    name: str = "",
    executor: Executor | None = None,
    workers: int | None = None,
    resume: str | os.PathLike[str] | None = None,
    cost: Callable[[T], float] | None = None,
    label: str | None = None,
    progress: bool = False,
    report: Callable[[str], None] | None = None,
) -> list[Any]:
    """`[function(t) for t in tasks]` (through JSON), expensive runs first, resumable.

    Parameters
    ----------
    function
        A picklable (module-level) pure function of a task; its result must be
        JSON-serialisable (numbers, strings, lists, dicts with string keys).
    tasks
        The grid's tasks (picklable); two tasks with the same key must be the
        same run.
    key
        A task's canonical text (what a resume file matches on).
    options
        What the whole grid was asked with, as written in the resume file's
        header: a resume with other options is refused.
    name
        What runs the grid (`reproduce multisite`), for the header.
    executor
        Any `concurrent.futures.Executor` (a dask cluster's `get_executor()`);
        `None`: local processes.
    workers
        Processes of the local pool (`None`: every CPU; `1`: this process).
    resume
        A file to append each finished result to, and to read finished results
        back from (created when absent).
    cost
        A task's expected cost: tasks are submitted most expensive first (ties in
        task order). Results are returned in task order whatever the cost.
    label
        Progress bar label (`None`: `name`).
    progress
        Draw a progress bar on standard error (on a terminal only).
    report
        Told, in one line, what a resumed grid found in `resume` ("resuming: 9 of 714
        runs are in runs.jsonl"), when it found some.

    Returns
    -------
    list
        One result per task, in the order of `tasks`, each as it reads back from
        JSON.

    Raises
    ------
    InvalidValueError
        If `resume` was written with other options or by another grid.
    RunFailedError
        If a run raises (naming its task); finished results are in `resume`.
    GridInterrupted
        On Ctrl-C with a `resume` file (a `KeyboardInterrupt` saying how many runs it
        keeps).

    Warns
    -----
    UserWarning
        When `resume` holds runs that are not runs of this grid (not used; see
        `_strangers_note`).

    Notes
    -----
    Complexity: one run per distinct key; reading back is linear in the file.
    """
    keys = [key(t) for t in tasks]
    unique: dict[str, T] = {}
    for k, t in zip(keys, tasks, strict=True):
        unique.setdefault(k, t)
    done: dict[str, Any] = {}
    sink = None
    if resume is not None:
        done, sink = _open_resume(Path(resume), name, options or {})
    if resume is not None:
        note = _strangers_note(Path(resume), done, list(unique))
        if note is not None:
            warnings.warn(note, stacklevel=2)
    pending = [k for k in unique if k not in done]
    if report is not None and len(pending) < len(unique):
        report(f"resuming: {len(unique) - len(pending)} of {len(unique)} runs are in {resume}")
    if cost is not None:
        order = {k: i for i, k in enumerate(pending)}
        pending.sort(key=lambda k: (-cost(unique[k]), order[k]))
    bar = ProgressBar(len(unique), label or name, enabled=None if progress else False)
    finished = len(unique) - len(pending)

    def record(index: int, result: Any) -> None:
        nonlocal finished
        k = pending[index]
        done[k] = jsonable_result(result)
        if sink is not None:
            _append(sink, {"key": k, "result": done[k]})
        finished += 1
        bar(finished)

    try:
        bar(finished)
        run_all(function, [unique[k] for k in pending], executor=executor, workers=workers,
                on_result=record)  # fmt: skip
    except KeyboardInterrupt:
        if resume is None:
            raise
        raise GridInterrupted(
            f"{finished} of {len(unique)} runs are in {resume}; run the same command again "
            "to continue"
        ) from None
    finally:
        if sink is not None:
            sink.close()
        bar.close()
    return [done[k] for k in keys]
