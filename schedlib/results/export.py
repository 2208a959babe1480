"""Write a run's per-job records as CSV (Batsim's `out_jobs.csv` layout) or JSON.

The CSV starts with the seventeen columns of Batsim's `out_jobs.csv`, in
Batsim's order, so tools that read Batsim output (e.g. evalys, including its
Gantt charts) read ours unmodified; schedlib's own columns follow.

| column | meaning |
|---|---|
| `job_id` | job id |
| `workload_name` | the workload's name (Batsim's job ids are `workload_name!job_id`) |
| `profile` | Batsim's execution profile: empty (schedlib jobs have none) |
| `submission_time` | submit time (s) |
| `requested_number_of_resources` | processors (processing units) held |
| `requested_time` | the job's estimate (s), empty if it has none |
| `success` | 1 if completed, else 0 |
| `final_state` | Batsim's state name (below) |
| `starting_time` | first start (s), empty if it never ran |
| `execution_time` | `finish_time - starting_time` |
| `finish_time` | end (s) |
| `waiting_time` | `starting_time - submission_time` |
| `turnaround_time` | `finish_time - submission_time` |
| `stretch` | `turnaround_time / execution_time` (empty when execution time is 0) |
| `allocated_resources` | processors of the last start as an interval set, e.g. `0-3 8` |
| `consumed_energy` | `-1`: energy is not modelled |
| `metadata` | the run's machine size and policy, `capacity=128 algorithm=easy` (`run_metadata`) |
| `state` | schedlib's [`FinalState`][schedlib.model.FinalState] |
| `reason` | why a job was rejected, killed, ... |
| `executed` | time spent executing, summed over segments |
| `preemptions`, `migrations`, `failures` | event counts |

Batsim states: `COMPLETED_SUCCESSFULLY` (completed), `COMPLETED_WALLTIME_REACHED`
(killed at its requested time), `COMPLETED_FAILED` (failed and given up) and
`REJECTED` (never ran: unschedulable, rejected by cleaning, or cancelled in the log).

Examples
--------
>>> interval_set((0, 1, 2, 3, 8, 10, 11))
'0-3 8 10-11'
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import IO, Any

from schedlib.errors import InvalidValueError
from schedlib.model import FinalState, JobOutcome, RunRecord
from schedlib.place import ProcessorSet
from schedlib.results.atomic import atomic_write
from schedlib.results.metrics import summarize
from schedlib.results.tables import jsonable

__all__ = [
    "BATSIM_COLUMNS",
    "DEFAULT_WORKLOAD_NAME",
    "EXTRA_COLUMNS",
    "RECORD_SUFFIXES",
    "check_output_path",
    "interval_set",
    "job_rows",
    "run_metadata",
    "write_csv",
    "write_json",
    "write_outcomes_csv",
    "write_record",
]

RECORD_SUFFIXES = (".csv", ".json")
"""The formats [`write_record`][schedlib.results.export.write_record] writes, chosen by suffix."""


def check_output_path(path: str | Path, suffixes: tuple[str, ...], *, option: str) -> Path:
    """Check, before any work, that a result can be written to `path`.

    Its suffix must be one of `suffixes` (any case), its folder must exist
    and be writable, and it must not be a folder itself.

    Parameters
    ----------
    path
        The file to write.
    suffixes
        The accepted suffixes, e.g. `(".csv", ".json")`.
    option
        How the user named it, for the message (e.g. `"--output"`).

    Raises
    ------
    InvalidValueError
        Naming the option, the path and what is wrong.

    Examples
    --------
    >>> check_output_path("out.xlsx", RECORD_SUFFIXES, option="--output")
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: --output = 'out.xlsx': must end in .csv or .json
    >>> check_output_path("/nonexistent/dir/x.csv", RECORD_SUFFIXES, option="--output")
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: --output = '/nonexistent/dir/x.csv': its folder /nonexistent/dir does not exist
    """  # noqa: E501
    target = Path(path)
    if target.suffix.lower() not in suffixes:
        allowed = ", ".join(suffixes[:-1]) + " or " + suffixes[-1] if suffixes[1:] else suffixes[0]
        raise InvalidValueError(option, str(path), f"must end in {allowed}")
    folder = target.parent
    if not folder.is_dir():
        raise InvalidValueError(option, str(path), f"its folder {folder} does not exist")
    if target.is_dir():
        raise InvalidValueError(option, str(path), "is a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InvalidValueError(option, str(path), f"its folder {folder} is not writable")
    return target


BATSIM_COLUMNS = (
    "job_id",
    "workload_name",
    "profile",
    "submission_time",
    "requested_number_of_resources",
    "requested_time",
    "success",
    "final_state",
    "starting_time",
    "execution_time",
    "finish_time",
    "waiting_time",
    "turnaround_time",
    "stretch",
    "allocated_resources",
    "consumed_energy",
    "metadata",
)
"""The columns of Batsim's `out_jobs.csv`, in its order."""

DEFAULT_WORKLOAD_NAME = "w0"
"""The `workload_name` written when the run does not name its workload (Batsim's first
workload's name)."""

EXTRA_COLUMNS = ("state", "reason", "executed", "preemptions", "migrations", "failures")
"""schedlib's columns, after Batsim's."""

_COLUMNS = BATSIM_COLUMNS + EXTRA_COLUMNS

_BATSIM_STATE = {
    FinalState.COMPLETED: "COMPLETED_SUCCESSFULLY",
    FinalState.KILLED_AT_LIMIT: "COMPLETED_WALLTIME_REACHED",
    FinalState.FAILED: "COMPLETED_FAILED",
    FinalState.UNSCHEDULABLE: "REJECTED",
    FinalState.REJECTED: "REJECTED",
    FinalState.CANCELLED_IN_LOG: "REJECTED",
}


def interval_set(units: Iterable[int]) -> str:
    """Write processor ids as a Batsim interval set (`"0-3 8"`).

    A [`ProcessorSet`][schedlib.place.ProcessorSet] is written from its
    ranges, in $O(r)$ for $r$ ranges; other iterables are sorted first (an id
    given twice is written once).

    Examples
    --------
    >>> interval_set([])
    ''
    >>> interval_set([5, 1, 2])
    '1-2 5'
    """
    if type(units) is ProcessorSet:
        return str(units)
    return str(ProcessorSet(sorted(set(units))))


def run_metadata(capacity: int | None, algorithm: str) -> str:
    """What schedlib writes in Batsim's free-form `metadata` column of every row: the run's
    machine size and policy, so that a reader of the file alone knows them.

    Examples
    --------
    >>> run_metadata(128, "easy")
    'capacity=128 algorithm=easy'
    """
    return f"capacity={capacity} algorithm={algorithm}"


def _values(o: JobOutcome, workload_name: str, metadata: str = "") -> list[Any]:
    """One job's values, in the order of `BATSIM_COLUMNS + EXTRA_COLUMNS` (the JSON rows).

    The reference of the CSV row: [`_row_writer`][schedlib.results.export._row_writer]
    writes what `csv.writer` writes of these values (a test checks it).
    """
    state = o.state
    started = o.start is not None and o.end is not None
    if started:
        start, end, submit = o.start, o.end, o.submit
        execution = end - start  # type: ignore[operator]
        turnaround = end - submit  # type: ignore[operator]
        timing = [
            start,
            execution,
            end,
            start - submit,  # type: ignore[operator]
            turnaround,
            turnaround / execution if execution else None,
            str(o.place),
        ]
    else:
        timing = [None, None, None, None, None, None, ""]
    return [
        o.job,
        workload_name,
        "",
        o.submit,
        o.procs,
        o.requested_time,
        1 if state is FinalState.COMPLETED else 0,
        _BATSIM_STATE.get(state, "") if state is not None else "",
        *timing,
        -1,
        metadata,
        state.value if state is not None else "unfinished",
        o.reason,
        o.executed,
        o.preemptions,
        o.migrations,
        o.failures,
    ]


_STATE_TEXT: dict[FinalState | None, tuple[str, str]] = {
    state: (
        f"{1 if state is FinalState.COMPLETED else 0},{_BATSIM_STATE.get(state, '')}",
        state.value,
    )
    for state in FinalState
}
"""Per final state: the `success,final_state` text and the `state` text."""
_STATE_TEXT[None] = ("0,", "unfinished")

_CSV_SPECIAL = frozenset(',"\r\n')
"""Characters that may make `csv.writer` quote a field (it decides: see `_csv_text`)."""

_KEPT = 1 << 16
"""The most texts a row writer keeps per kind (it starts afresh past that)."""


def _csv_text(text: str) -> str:
    """`text` as `csv.writer` writes it as one field of a row (quoted if need be).

    Examples
    --------
    >>> _csv_text("plain"), _csv_text('a "b", c')
    ('plain', '"a ""b"", c"')
    """
    if _CSV_SPECIAL.isdisjoint(text):
        return text
    spare = io.StringIO()
    csv.writer(spare, lineterminator="\n").writerow([text])
    return spare.getvalue()[:-1]


def _row_writer(workload_name: str, metadata: str = "") -> Callable[[JobOutcome], str]:
    """A function giving one outcome's CSV line (with its newline), as `csv.writer` writes it.

    A job's line is one f-string: no per-field list nor `csv.writer` call
    per row. Every field but the workload name and the reason is a number,
    empty, a fixed word or an interval set, none of which `csv` quotes; the
    workload name and each reason holding a comma, a quote or a line break
    are written by `csv.writer` itself (`_csv_text`), once per distinct text.
    The interval-set text of each allocation is kept by its bounds (an
    allocation repeats often).

    Notes
    -----
    Complexity: $O(1)$ per row, plus $O(r)$ for an interval set of $r$
    ranges not met before, $O(m)$ for a reason of $m$ characters to quote.
    """
    places: dict[tuple[int, ...], str] = {}
    quoted: dict[str, str] = {}
    name = _csv_text(workload_name)
    meta = _csv_text(metadata)
    states = _STATE_TEXT

    def row(o: JobOutcome) -> str:
        reason = o.reason
        if reason and not _CSV_SPECIAL.isdisjoint(reason):
            text = quoted.get(reason)
            if text is None:
                if len(quoted) >= _KEPT:
                    quoted.clear()
                text = quoted[reason] = _csv_text(reason)
            reason = text
        head, word = states[o.state]
        asked: object = o.requested_time
        if asked is None:
            asked = ""
        pre, mig, fail = o.preemptions, o.migrations, o.failures
        if pre or mig or fail:
            tail = f"{word},{reason},{o.executed},{pre},{mig},{fail}\n"
        else:
            tail = f"{word},{reason},{o.executed},0,0,0\n"
        start, end = o.start, o.end
        if start is None or end is None:
            return f"{o.job},{name},,{o.submit},{o.procs},{asked},{head},,,,,,,,-1,{meta},{tail}"
        place = o.place
        bounds = place.bounds
        where = places.get(bounds)
        if where is None:
            if len(places) >= _KEPT:
                places.clear()
            where = places[bounds] = str(place)
        submit = o.submit
        execution = end - start
        waited = start - submit
        if not waited and type(waited) is int and type(execution) is int:
            # integer times, no wait: the turnaround is the execution time, the stretch 1
            took = f"{execution}"
            return (
                f"{o.job},{name},,{submit},{o.procs},{asked},{head},{start},{took},{end},"
                f"0,{took},{'1.0' if execution else ''},{where},-1,{meta},{tail}"
            )
        turnaround = end - submit
        return (
            f"{o.job},{name},,{submit},{o.procs},{asked},{head},{start},{execution},{end},"
            f"{waited},{turnaround},{turnaround / execution if execution else ''},"
            f"{where},-1,{meta},{tail}"
        )

    return row


def _row(o: JobOutcome, workload_name: str, metadata: str) -> dict[str, Any]:
    return dict(zip(_COLUMNS, _values(o, workload_name, metadata), strict=True))


def job_rows(record: RunRecord, *, workload_name: str | None = None) -> list[dict[str, Any]]:
    """One dict per job with the columns above, in input order.

    `workload_name` defaults to the run's `workload` parameter, else
    [`DEFAULT_WORKLOAD_NAME`][schedlib.results.export.DEFAULT_WORKLOAD_NAME].

    Examples
    --------
    >>> from schedlib.model import EventKind as K, Job, JobEvent
    >>> rec = RunRecord.from_log("fcfs", [Job(1, 0, 2, 10, 4)],
    ...     [JobEvent(0, 1, K.SUBMIT), JobEvent(1, 1, K.START, (0, 1)),
    ...      JobEvent(5, 1, K.COMPLETE, (0, 1))], capacity=2)
    >>> row = job_rows(rec)[0]
    >>> row["final_state"], row["waiting_time"], row["stretch"], row["allocated_resources"]
    ('COMPLETED_SUCCESSFULLY', 1, 1.25, '0-1')
    """
    name = _workload_name(record, workload_name)
    metadata = run_metadata(record.capacity, record.algorithm)
    return [_row(o, name, metadata) for o in record.outcomes]


def _workload_name(record: RunRecord, given: str | None) -> str:
    return given or str(record.parameter("workload") or DEFAULT_WORKLOAD_NAME)


_HEADER = ",".join(_COLUMNS) + "\n"
"""The CSV's first line (no column name needs quoting)."""

_CHUNK = 4096
"""Rows joined into one string per `write` call."""


def write_csv(record: RunRecord, stream: IO[str], *, workload_name: str | None = None) -> None:
    """Write the per-job CSV to an open text stream (`workload_name` as for `job_rows`).

    The bytes are those `csv.writer` (with `lineterminator="\\n"`) writes
    of the rows of `job_rows`, produced faster: one f-string per row, rows
    joined and written by chunks of a few thousand (no per-job dict is kept:
    memory is that of the record plus one chunk).

    Notes
    -----
    Complexity: $O(n)$ for $n$ jobs.
    """
    row = _row_writer(
        _workload_name(record, workload_name), run_metadata(record.capacity, record.algorithm)
    )
    write = stream.write
    write(_HEADER)
    rows = map(row, record.outcomes)
    while chunk := "".join(islice(rows, _CHUNK)):
        write(chunk)


def write_outcomes_csv(
    outcomes: Iterable[JobOutcome],
    stream: IO[str],
    *,
    workload_name: str = DEFAULT_WORKLOAD_NAME,
    metadata: str = "",
) -> Iterator[JobOutcome]:
    """Write the per-job CSV of outcomes as they come; yields each outcome once its row is written.

    For runs handed out as a stream
    ([`schedule_iter`][schedlib.backfill.simulation.schedule_iter]): each row
    is written when its job ends, and nothing is kept. The header is written
    at once; iterate the result to write the rows (a generator: a caller
    may also compute metrics on the outcomes it passes through). The rows
    are those of [`write_csv`][schedlib.results.export.write_csv], byte for byte,
    when `metadata` is the record's
    [`run_metadata`][schedlib.results.export.run_metadata].

    Examples
    --------
    >>> import io
    >>> from schedlib.model import FinalState, JobOutcome
    >>> done = JobOutcome(7, 0, 2, 10, FinalState.COMPLETED, "", 1, 5, 4, (0, 1), 0, 0, 0)
    >>> out = io.StringIO()
    >>> [o.job for o in write_outcomes_csv([done], out)]
    [7]
    >>> out.getvalue().splitlines()[1].split(",")[:4]
    ['7', 'w0', '', '0']
    """
    stream.write(_HEADER)
    return _write_rows(outcomes, stream.write, _row_writer(workload_name, metadata))


def _write_rows(
    outcomes: Iterable[JobOutcome], write: Callable[[str], Any], row: Callable[[JobOutcome], str]
) -> Iterator[JobOutcome]:
    for outcome in outcomes:
        write(row(outcome))
        yield outcome


_JSON_FLAT = json.JSONEncoder(separators=("\0", ": "))
"""Encodes lists of values on one line, items separated by NUL (which `json` escapes
inside strings, so a raw NUL is always a separator)."""

_JSON_JOB = "{\n   " + ",\n   ".join(f"{json.dumps(c)}: %s" for c in _COLUMNS) + "\n  }"
"""One job's object as `json.dump(..., indent=1)` lays it out inside `jobs`."""


def _json_jobs(rows: list[list[Any]]) -> str:
    """Jobs' values (`_values`) as `json.dump(jsonable(...), indent=1)` writes their objects.

    The objects are separated as inside `jobs`, without the list's brackets
    nor the indentation before the first one. The values are encoded in one
    call of `json`'s C encoder, then each job's values are laid out with
    their keys; NaN and infinities (written as `null`, as `jsonable` does)
    send the values through `jsonable` first.

    Examples
    --------
    >>> _json_jobs([[7, "w"] + [None] * 21]).splitlines()[:3]
    ['{', '   "job_id": 7,', '   "workload_name": "w",']
    >>> _json_jobs([[1.5] * 23, [float("nan")] * 23]).count("null")
    23
    """
    text = _JSON_FLAT.encode(rows)
    if "NaN" in text or "Infinity" in text:  # a float (or a string holding it)
        text = _JSON_FLAT.encode(jsonable(rows))
    job = _JSON_JOB
    return ",\n  ".join([job % tuple(row.split("\0")) for row in text[2:-2].split("]\0[")])


def _event_objects(record: RunRecord) -> list[dict[str, Any]]:
    """The log as `write_json` writes it under `events`: one object per entry."""
    return [
        {
            "time": e.time,
            "job": e.job,
            "kind": e.kind.value,
            "place": list(e.place),
            "task": e.task,
            "detail": e.detail,
            "at": e.at,
        }
        for e in record.events
    ]


def write_json(
    record: RunRecord,
    stream: IO[str],
    *,
    events: bool = False,
    workload_name: str | None = None,
) -> None:
    """Write the run as one JSON object.

    The object has `algorithm`, `capacity`, `parameters`, `seed`, `summary`
    (see [`summarize`][schedlib.results.metrics.summarize]) and `jobs` (the CSV rows);
    with `events=True` also the full log as `events`.

    Notes
    -----
    The text is that of `json.dump(..., indent=1)` of those objects (NaN
    and infinities written as `null`), but the jobs are encoded by chunks
    of a few thousand with `json`'s C encoder (see `_json_jobs`).
    Complexity: $O(n + e)$ for $n$ jobs and $e$ log entries.
    """
    head: dict[str, Any] = {
        "algorithm": record.algorithm,
        "capacity": record.capacity,
        "parameters": dict(record.parameters),
        "seed": record.seed,
        "summary": summarize(record).as_dict(),
    }
    write = stream.write
    text = json.dumps(jsonable(head), indent=1)
    write(text[: -len("\n}")])
    write(',\n "jobs": ')
    name = _workload_name(record, workload_name)
    metadata = run_metadata(record.capacity, record.algorithm)
    jobs = (_values(o, name, metadata) for o in record.outcomes)
    opening = "[\n  "
    while chunk := list(islice(jobs, _CHUNK)):
        write(opening)
        write(_json_jobs(chunk))
        opening = ",\n  "
    write("[]" if opening == "[\n  " else "\n ]")
    if events:
        log = _event_objects(record)
        text = json.dumps(jsonable({"events": log}), indent=1)
        write(",\n" + text[len("{\n") : -len("\n}")])
    write("\n}\n")


def write_record(record: RunRecord, path: str | Path, *, workload_name: str | None = None) -> None:
    """Write `record` to `path`, as CSV or JSON according to its suffix.

    `workload_name` fills the `workload_name` column (see `job_rows`).

    The file is written whole or not at all
    ([`atomic_write`][schedlib.results.atomic.atomic_write]): a run killed
    while writing leaves no truncated file at `path`.

    Raises
    ------
    InvalidValueError
        If the suffix is neither `.csv` nor `.json`, or the folder does not
        exist or cannot be written to.
    """
    target = check_output_path(path, RECORD_SUFFIXES, option="output")
    suffix = target.suffix.lower()
    with atomic_write(target) as stream:
        if suffix == ".csv":
            write_csv(record, stream, workload_name=workload_name)
        else:
            write_json(record, stream, workload_name=workload_name)
