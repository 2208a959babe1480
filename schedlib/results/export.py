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
| `metadata` | empty |
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
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from schedlib.errors import InvalidValueError
from schedlib.model import FinalState, JobOutcome, RunRecord
from schedlib.results.atomic import atomic_write
from schedlib.results.metrics import summarize
from schedlib.results.schedules import unit_intervals
from schedlib.results.tables import jsonable

__all__ = [
    "BATSIM_COLUMNS",
    "DEFAULT_WORKLOAD_NAME",
    "EXTRA_COLUMNS",
    "interval_set",
    "job_rows",
    "write_csv",
    "write_json",
    "write_outcomes_csv",
    "write_record",
]

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

    Examples
    --------
    >>> interval_set([])
    ''
    >>> interval_set([5, 1, 2])
    '1-2 5'
    """
    return " ".join(str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in unit_intervals(units))


def _row(o: JobOutcome, workload_name: str) -> dict[str, Any]:
    started = o.start is not None and o.end is not None
    execution = o.end - o.start if started else None  # type: ignore[operator]
    turnaround = o.end - o.submit if started else None  # type: ignore[operator]
    return {
        "job_id": o.job,
        "workload_name": workload_name,
        "profile": "",
        "submission_time": o.submit,
        "requested_number_of_resources": o.procs,
        "requested_time": o.requested_time,
        "success": 1 if o.state is FinalState.COMPLETED else 0,
        "final_state": _BATSIM_STATE.get(o.state, "") if o.state is not None else "",
        "starting_time": o.start if started else None,
        "execution_time": execution,
        "finish_time": o.end if started else None,
        "waiting_time": o.start - o.submit if started else None,  # type: ignore[operator]
        "turnaround_time": turnaround,
        "stretch": turnaround / execution if execution else None,  # type: ignore[operator]
        "allocated_resources": interval_set(o.place) if started else "",
        "consumed_energy": -1,
        "metadata": "",
        "state": o.state.value if o.state is not None else "unfinished",
        "reason": o.reason,
        "executed": o.executed,
        "preemptions": o.preemptions,
        "migrations": o.migrations,
        "failures": o.failures,
    }


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
    return [_row(o, name) for o in record.outcomes]


def _workload_name(record: RunRecord, given: str | None) -> str:
    return given or str(record.parameter("workload") or DEFAULT_WORKLOAD_NAME)


def write_csv(record: RunRecord, stream: IO[str], *, workload_name: str | None = None) -> None:
    """Write the per-job CSV to an open text stream (`workload_name` as for `job_rows`)."""
    name = _workload_name(record, workload_name)
    for _ in write_outcomes_csv(record.outcomes, stream, workload_name=name):
        pass


def write_outcomes_csv(
    outcomes: Iterable[JobOutcome], stream: IO[str], *, workload_name: str = DEFAULT_WORKLOAD_NAME
) -> Iterator[JobOutcome]:
    """Write the per-job CSV of outcomes as they come; yields each outcome once its row is written.

    For runs handed out as a stream
    ([`schedule_iter`][schedlib.backfill.simulation.schedule_iter]): each row
    is written when its job ends, and nothing is kept. The header is written
    at once; iterate the result to write the rows (a generator: a caller
    may also compute metrics on the outcomes it passes through).

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
    writer = csv.writer(stream, lineterminator="\n")
    columns = BATSIM_COLUMNS + EXTRA_COLUMNS
    writer.writerow(columns)
    return _write_rows(outcomes, writer, columns, workload_name)


def _write_rows(
    outcomes: Iterable[JobOutcome], writer: Any, columns: tuple[str, ...], workload_name: str
) -> Iterator[JobOutcome]:
    for outcome in outcomes:
        row = _row(outcome, workload_name)
        writer.writerow(["" if row[c] is None else row[c] for c in columns])
        yield outcome


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
    """
    payload: dict[str, Any] = {
        "algorithm": record.algorithm,
        "capacity": record.capacity,
        "parameters": dict(record.parameters),
        "seed": record.seed,
        "summary": summarize(record).as_dict(),
        "jobs": job_rows(record, workload_name=workload_name),
    }
    if events:
        payload["events"] = [
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
    json.dump(jsonable(payload), stream, indent=1)
    stream.write("\n")


def write_record(record: RunRecord, path: str | Path, *, workload_name: str | None = None) -> None:
    """Write `record` to `path`, as CSV or JSON according to its suffix.

    `workload_name` fills the `workload_name` column (see `job_rows`).

    The file is written whole or not at all
    ([`atomic_write`][schedlib.results.atomic.atomic_write]): a run killed
    while writing leaves no truncated file at `path`.

    Raises
    ------
    InvalidValueError
        If the suffix is neither `.csv` nor `.json`.
    """
    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in (".csv", ".json"):
        raise InvalidValueError("output", str(path), "must end in .csv or .json")
    with atomic_write(target) as stream:
        if suffix == ".csv":
            write_csv(record, stream, workload_name=workload_name)
        else:
            write_json(record, stream, workload_name=workload_name)
