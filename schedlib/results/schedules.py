"""Read a finished schedule from a file: per-job rows of any scheduler, compactly.

A *schedule* says, for each job, when it was submitted, how many processors
it held, when it started and ended and on which processors. This module reads
one from

- a per-job CSV in Batsim's `out_jobs.csv` layout (Batsim's own, or
  schedlib's, see [`export`][schedlib.results.export]): the columns `job_id`,
  `submission_time`, `requested_number_of_resources`, `starting_time` and
  `finish_time` are needed (`execution_time` stands in for a missing
  `finish_time`); `requested_time`, `allocated_resources` (an interval set
  such as `0-3 8`) and `final_state` are read when present. An empty
  `starting_time`, or the final state `REJECTED` (whatever times Batsim
  writes for it), means the job never started;
- schedlib's JSON output (`schedlib run --output run.json`), which also says
  the machine size and the policy (so does schedlib's CSV, in its `metadata`
  column);
- an SWF trace, whose wait times give the start times (start = submit +
  wait, end = start + run time; a job with an unknown wait or run time never
  started), with the machine size from the header's `MaxProcs`.

Allocations are read as [`ProcessorSet`][schedlib.place.ProcessorSet]s
(ranges of processor ids, never expanded), so a 300,000-job schedule of a
90,000-processor machine fits in memory and is read in seconds. An allocation
that names a processor twice (`0-3 2`) is malformed: the reader refuses it,
naming the line. The checkers of
[`schedlib.testing.invariants`][schedlib.testing.invariants] (`schedule_violations`)
read what this module returns.

Examples
--------
>>> import io
>>> text = ("job_id,submission_time,requested_number_of_resources,requested_time,"
...         "starting_time,finish_time,allocated_resources\\n"
...         "1,0,4,100,0,50,0-3\\n2,10,2,100,,,\\n")
>>> schedule = read_schedule_csv(io.StringIO(text))
>>> [(j.id, j.submit, j.start, j.end, j.allocation) for j in schedule.jobs]
[(1, 0, 0, 50, ProcessorSet('0-3')), (2, 10, None, None, None)]
>>> parse_interval_set("0-3 8")
((0, 3), (8, 8))
"""

from __future__ import annotations

import csv
import gzip
import itertools
import json
import math
import re
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any, NamedTuple

import attrs

from schedlib.collector import paused_gc
from schedlib.errors import InvalidValueError, WorkloadFormatError
from schedlib.model import RunRecord
from schedlib.place import ProcessorSet

__all__ = [
    "Schedule",
    "ScheduledJob",
    "UpTime",
    "parse_interval_set",
    "paused_gc",
    "read_schedule",
    "read_schedule_csv",
    "read_schedule_swf",
    "read_up_times",
    "unit_intervals",
]

Interval = tuple[int, int]

_GZIP_MAGIC = b"\x1f\x8b"

_INTERVAL = re.compile(r"([0-9]+)(?:-([0-9]+))?")
_INTERVAL_SET = re.compile(r"\s*(?:[0-9]+(?:-[0-9]+)?(?:\s+|\Z))*\Z")


class ScheduledJob(NamedTuple):
    """One job of a schedule read from a file (a named tuple: cheap to build by the 100,000).

    Attributes
    ----------
    id
        Job id (an `int` when every id of the file is an integer, else a `str`).
    submit
        Submission time (s).
    procs
        Processors it held (or requested, if it never ran).
    requested_time
        Its requested time (s), `None` if unknown.
    start, end
        When it started and ended (s), `None` if it did not.
    allocation
        The processors it ran on, `None` when the file does not say.
    state
        The file's final state for the job (e.g. Batsim's
        `COMPLETED_SUCCESSFULLY`), `""` if none.
    line
        Where it was read (1-based line, or 0).
    """

    id: Any
    submit: float
    procs: int
    requested_time: float | None
    start: float | None
    end: float | None
    allocation: ProcessorSet | None = None
    state: str = ""
    line: int = 0


@attrs.frozen(slots=True)
class Schedule:
    """A schedule read from a file.

    Attributes
    ----------
    jobs
        Its jobs, in file order.
    capacity
        Processors of the machine, if the file says (SWF header, schedlib's
        JSON, or the `metadata` column of schedlib's CSV).
    source
        The file's name.
    algorithm
        The policy that made it, if the file says (schedlib's JSON and CSV), else `""`.
    workload
        The workload's name, if the file says (the `workload_name` column), else `""`.
    """

    jobs: tuple[ScheduledJob, ...]
    capacity: int | None = None
    source: str = "<stream>"
    algorithm: str = ""
    workload: str = ""

    @classmethod
    def from_record(cls, record: RunRecord, source: str | None = None) -> Schedule:
        """The schedule of a finished run: each job's first start and last end, and the
        processors of its last start (as in the exported CSV).

        Examples
        --------
        >>> from schedlib.model import EventKind as K, Job, JobEvent
        >>> rec = RunRecord.from_log("fcfs", [Job(1, 0, 2, 10, 4)],
        ...     [JobEvent(0, 1, K.SUBMIT), JobEvent(1, 1, K.START, (0, 1)),
        ...      JobEvent(5, 1, K.COMPLETE, (0, 1))], capacity=2)
        >>> Schedule.from_record(rec).jobs[0]
        ScheduledJob(id=1, submit=0, procs=2, requested_time=10, start=1, end=5, allocation=ProcessorSet('0-1'), state='completed', line=0)
        """  # noqa: E501
        jobs = tuple(
            ScheduledJob(
                o.job,
                o.submit,
                o.procs,
                o.requested_time,
                o.start,
                o.end if o.start is not None else None,
                o.place if o.start is not None and o.place else None,
                o.state.value if o.state is not None else "",
            )
            for o in record.outcomes
        )
        name = record.parameter("workload")
        workload = str(name) if name else ""
        return cls(jobs, record.capacity, source or record.algorithm, record.algorithm, workload)


def unit_intervals(units: Iterable[int]) -> tuple[Interval, ...]:
    """Processor ids as sorted inclusive intervals of consecutive ids.

    Examples
    --------
    >>> unit_intervals([8, 0, 1, 2, 3])
    ((0, 3), (8, 8))
    """
    out: list[Interval] = []
    for unit in sorted(set(units)):
        if out and out[-1][1] == unit - 1:
            out[-1] = (out[-1][0], unit)
        else:
            out.append((unit, unit))
    return tuple(out)


def parse_interval_set(text: str) -> tuple[Interval, ...]:
    """Read a Batsim interval set (`"0-3 8"`) as sorted inclusive intervals.

    Raises
    ------
    ValueError
        If a part is not `N` or `N-M` with `0 <= N <= M`.

    Examples
    --------
    >>> parse_interval_set("8 0-3"), parse_interval_set("")
    (((0, 3), (8, 8)), ())
    """
    if not _INTERVAL_SET.match(text):
        bad = next(p for p in text.split() if not _INTERVAL.fullmatch(p))
        raise ValueError(f"{bad!r} is not N or N-M")
    intervals = sorted((int(a), int(b or a)) for a, b in _INTERVAL.findall(text))
    for lo, hi in intervals:
        if hi < lo:
            raise ValueError(f"'{lo}-{hi}' ends before it begins")
    return tuple(intervals)


def _number(text: str) -> float:
    try:
        return int(text)
    except ValueError:
        value = float(text)
    if not math.isfinite(value):
        raise ValueError("not a finite number")
    return int(value) if value.is_integer() else value


_NEEDED = ("job_id", "submission_time", "requested_number_of_resources", "starting_time")
_OPTIONAL = (
    "requested_time",
    "finish_time",
    "execution_time",
    "allocated_resources",
    "final_state",
)


class _Rows:
    """Turn rows (sequences of strings, in header order) into jobs, naming file, line and
    column on errors."""

    def __init__(self, source: str, columns: Iterable[str]) -> None:
        self.source = source
        self.width = len(list(columns))
        names = {name.strip(): i for i, name in reversed(list(enumerate(columns)))}
        missing = [c for c in _NEEDED if c not in names]
        if "finish_time" not in names and "execution_time" not in names:
            missing.append("finish_time")
        if missing:
            raise WorkloadFormatError(
                source, 1, f"missing column(s) {', '.join(missing)}: not a per-job schedule"
            )
        self.index = {c: names.get(c) for c in _NEEDED + _OPTIONAL}
        self.jobs: list[ScheduledJob] = []

    def _fail(self, line: int, column: str, text: str, reason: str) -> WorkloadFormatError:
        return WorkloadFormatError(
            self.source, line, f"column {column} = {text!r}: {reason}", field=column, value=text
        )

    def _value(self, row: list[str], column: str, line: int, *, empty: bool) -> Any:
        i = self.index[column]
        text = row[i].strip() if i is not None else ""
        if not text:
            if empty:
                return None
            raise WorkloadFormatError(self.source, line, f"column {column} is empty", field=column)
        try:
            return _number(text)
        except ValueError:
            raise self._fail(line, column, text, "not a number") from None

    def add(self, row: list[str], line: int) -> None:
        if len(row) != self.width:
            raise WorkloadFormatError(
                self.source, line, f"{len(row)} fields, the header has {self.width}"
            )
        value = self._value
        job_id = row[self.index["job_id"]].strip()  # type: ignore[index]
        if not job_id:
            raise WorkloadFormatError(self.source, line, "column job_id is empty", field="job_id")
        submit = value(row, "submission_time", line, empty=False)
        procs = value(row, "requested_number_of_resources", line, empty=False)
        if not isinstance(procs, int) or procs < 0:
            raise self._fail(line, "requested_number_of_resources", str(procs), "not a count")
        requested = value(row, "requested_time", line, empty=True)
        start = value(row, "starting_time", line, empty=True)
        end = value(row, "finish_time", line, empty=True)
        if end is None and start is not None:
            duration = value(row, "execution_time", line, empty=True)
            end = None if duration is None else start + duration
        allocation = None
        i = self.index["allocated_resources"]
        text = row[i].strip() if i is not None else ""
        if text:
            try:
                allocation = ProcessorSet.parse(text)
            except InvalidValueError as error:
                raise self._fail(line, "allocated_resources", text, error.reason) from None
        i = self.index["final_state"]
        state = row[i].strip() if i is not None else ""
        self.jobs.append(
            ScheduledJob(job_id, submit, procs, requested, start, end, allocation, state, line)
        )

    def add_all(self, numbered: Iterable[tuple[list[str], int]]) -> None:
        """Add rows; well-formed ones take a fast path, anything else (blanks, errors) the
        careful one above, which gives the same job or names the fault."""
        get = self.index.get
        i_id, i_sub, i_procs, i_start = (self.index[c] for c in _NEEDED)
        i_req, i_end, i_alloc, i_state = (
            get(c) for c in ("requested_time", "finish_time", "allocated_resources", "final_state")
        )
        width, append, intervals, job = (
            self.width,
            self.jobs.append,
            ProcessorSet.parse,
            ScheduledJob,
        )
        number = _number
        for row, line in numbered:
            try:
                start_text = row[i_start]  # type: ignore[index]
                end_text = row[i_end] if i_end is not None else ""
                if len(row) != width or bool(start_text) != bool(end_text):
                    raise ValueError
                job_id = row[i_id]  # type: ignore[index]
                procs = int(row[i_procs])  # type: ignore[index]
                if procs < 0 or not job_id or job_id != job_id.strip():
                    raise ValueError
                req_text = row[i_req] if i_req is not None else ""
                alloc_text = row[i_alloc] if i_alloc is not None else ""
                append(
                    job(
                        job_id,
                        number(row[i_sub]),  # type: ignore[index]
                        procs,
                        number(req_text) if req_text else None,
                        number(start_text) if start_text else None,
                        number(end_text) if end_text else None,
                        intervals(alloc_text) if alloc_text.strip() else None,
                        row[i_state].strip() if i_state is not None else "",
                        line,
                    )
                )
            except (ValueError, IndexError, TypeError):
                self.add(row, line)

    def schedule(self, capacity: int | None, algorithm: str = "", workload: str = "") -> Schedule:
        jobs = [
            j._replace(start=None, end=None, allocation=None)
            if j.state == "REJECTED" and j.start is not None
            else j
            for j in self.jobs
        ]
        if all(j.id.lstrip("-").isdigit() for j in jobs):
            jobs = [j._replace(id=int(j.id)) for j in jobs]
        return Schedule(tuple(jobs), capacity, self.source, algorithm, workload)


def _run_context(header: list[str], row: list[str] | None) -> tuple[int | None, str, str]:
    """The machine size, policy and workload a schedlib CSV states in its first row's
    `metadata` (`capacity=128 algorithm=easy`) and `workload_name` columns."""
    if row is None:
        return None, "", ""
    names = {name.strip(): i for i, name in enumerate(header)}
    fields: dict[str, str] = {}
    i = names.get("metadata")
    if i is not None and i < len(row):
        fields = dict(part.partition("=")[::2] for part in row[i].split() if "=" in part)
    j = names.get("workload_name")
    workload = row[j].strip() if j is not None and j < len(row) else ""
    text = fields.get("capacity", "")
    capacity = int(text) if text.isdigit() and int(text) > 0 else None
    return capacity, fields.get("algorithm", ""), workload


def read_schedule_csv(stream: IO[str], source: str = "<stream>") -> Schedule:
    """Read a per-job CSV (Batsim `out_jobs.csv` layout) from an open text stream.

    Raises
    ------
    WorkloadFormatError
        Naming the line and column of the first malformed value, or the
        missing columns.

    Notes
    -----
    Complexity: $O(n)$ for $n$ rows.
    """
    reader = csv.reader(stream)
    header = next(reader, None)
    if header is None:
        raise WorkloadFormatError(source, None, "empty file: no header line")
    rows = _Rows(source, header)
    numbered = ((row, reader.line_num) for row in reader if row)
    first = next(numbered, None)
    if first is not None:
        rows.add_all(itertools.chain([first], numbered))
    return rows.schedule(*_run_context(header, first[0] if first else None))


def _read_json(path: Path) -> Schedule:
    source = str(path)
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise WorkloadFormatError(source, error.lineno, f"not JSON: {error.msg}") from None
    except UnicodeDecodeError:
        raise WorkloadFormatError(source, None, "not a text file (not UTF-8)") from None
    if not isinstance(payload, dict) or not isinstance(payload.get("jobs"), list):
        raise WorkloadFormatError(source, None, "no 'jobs' list: not a schedlib run (JSON)")
    jobs = payload["jobs"]
    columns = list(jobs[0]) if jobs and isinstance(jobs[0], dict) else [*_NEEDED, "finish_time"]
    rows = _Rows(source, columns)
    for index, row in enumerate(jobs):
        if not isinstance(row, dict):
            raise WorkloadFormatError(source, None, f"jobs[{index}] is not an object")
        rows.add(["" if row.get(c) is None else str(row[c]) for c in columns], index + 1)
    capacity = payload.get("capacity")
    algorithm = payload.get("algorithm")
    workload = jobs[0].get("workload_name") if jobs and isinstance(jobs[0], dict) else ""
    return rows.schedule(
        capacity if isinstance(capacity, int) and capacity > 0 else None,
        algorithm if isinstance(algorithm, str) else "",
        workload if isinstance(workload, str) else "",
    )


def read_schedule_swf(source: Any) -> Schedule:
    """Read an SWF trace as a schedule: start = submit + wait, end = start + run time.

    A record with an unknown (`-1`) wait or run time, or no processors, never
    started, nor did a cancelled one (status 5) with a run time of 0. The
    processors held are field 5 (allocated), else field 8 (requested). The
    capacity is the header's `MaxProcs`, if any.

    Raises
    ------
    WorkloadFormatError
        On the first line that is not SWF (naming it).

    Notes
    -----
    Complexity: $O(n)$ for $n$ records.
    """
    from schedlib.workloads.swf import open_swf

    jobs = []
    with open_swf(source) as reader:
        for r in reader:
            procs = r.allocated_procs if r.allocated_procs > 0 else r.requested_procs
            cancelled = r.status == 5 and r.runtime == 0  # cancelled while it waited
            started = r.wait >= 0 and r.runtime >= 0 and procs > 0 and not cancelled
            start = r.submit + r.wait if started else None
            end = start + r.runtime if start is not None else None
            requested = r.requested_time if r.requested_time > 0 else None
            jobs.append(
                ScheduledJob(
                    r.job_id,
                    r.submit,
                    max(procs, 0),
                    requested,
                    start,
                    end,
                    None,
                    f"status {r.status}",
                    r.line,
                )
            )
        capacity = reader.header.max_procs
        name = reader.source
    return Schedule(tuple(jobs), capacity, name)


def _is_swf(path: Path) -> bool:
    name = path.name.lower()
    return name.endswith((".swf", ".swf.gz"))


def read_schedule(path: str | Path) -> Schedule:
    """Read a schedule from a file, by its name: `.swf`/`.swf.gz`, `.json`, else CSV.

    A CSV may be gzip-compressed (`.csv.gz`). As for SWF traces, compression
    is told from the content (the gzip magic bytes), not the name: a file
    named `.gz` that holds plain text is read as plain text, and corrupt or
    truncated gzip data gives the same message as for a trace.

    Raises
    ------
    WorkloadFormatError
        If the file is malformed (naming the line and column).
    OSError
        If it cannot be read.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "jobs.csv")
    >>> _ = open(path, "w").write("job_id,submission_time\\n1,0\\n")
    >>> read_schedule(path)
    Traceback (most recent call last):
    ...
    schedlib.errors.WorkloadFormatError: ...jobs.csv:1: missing column(s) requested_number_of_resources, starting_time, finish_time: not a per-job schedule
    """  # noqa: E501
    target = Path(path)
    if _is_swf(target):
        return read_schedule_swf(target)
    if target.suffix.lower() == ".json":
        return _read_json(target)
    with target.open("rb") as probe:
        compressed = probe.read(2) == _GZIP_MAGIC
    opener: Any = gzip.open if compressed else open
    try:
        with opener(target, "rt", encoding="utf-8", newline="") as stream, paused_gc():
            return read_schedule_csv(stream, str(target))
    except UnicodeDecodeError:
        raise WorkloadFormatError(str(target), None, "not a text file (not UTF-8)") from None
    except (gzip.BadGzipFile, EOFError, zlib.error) as error:
        raise WorkloadFormatError(
            str(target), None, f"corrupt or truncated gzip data: {type(error).__name__}: {error}"
        ) from None
    except csv.Error as error:
        raise WorkloadFormatError(str(target), None, f"not CSV: {error}") from None


@attrs.frozen(slots=True)
class UpTime:
    """When one processor was up, and when it was planned to go down.

    Attributes
    ----------
    processor
        Processor id.
    start
        When it came up (s).
    planned_end
        When it was planned to go down (s); `inf` for never.
    """

    processor: int
    start: float
    planned_end: float


def read_up_times(path: str | Path) -> list[UpTime]:
    """Read processors' up periods from a CSV file with the header `processor,start,planned_end`.

    One row per period during which a processor was up: its id, when it came
    up and when it was planned to go down (empty or `inf`: never). A processor
    with no row is never up.

    Raises
    ------
    WorkloadFormatError
        Naming the line and column of a malformed value, or a missing column.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "up.csv")
    >>> _ = open(path, "w").write("processor,start,planned_end\\n0,0,84\\n0,100,\\n")
    >>> read_up_times(path)
    [UpTime(processor=0, start=0, planned_end=84), UpTime(processor=0, start=100, planned_end=inf)]
    """
    source = str(path)
    try:
        return _read_up_times(path, source)
    except UnicodeDecodeError:
        raise WorkloadFormatError(source, None, "not a text file (not UTF-8)") from None
    except csv.Error as error:
        raise WorkloadFormatError(source, None, f"not CSV: {error}") from None


def _read_up_times(path: str | Path, source: str) -> list[UpTime]:
    periods = []
    with open(path, encoding="utf-8", newline="") as stream:
        reader = csv.DictReader(stream)
        missing = [
            c for c in ("processor", "start", "planned_end") if c not in (reader.fieldnames or ())
        ]
        if missing:
            raise WorkloadFormatError(
                source,
                1,
                f"missing column(s) {', '.join(missing)}: expected processor,start,planned_end",
            )
        for row in reader:
            values = []
            for column in ("processor", "start", "planned_end"):
                text = (row.get(column) or "").strip()
                if column == "planned_end" and text in ("", "inf"):
                    values.append(math.inf)
                    continue
                try:
                    value = _number(text)
                except ValueError:
                    raise WorkloadFormatError(
                        source,
                        reader.line_num,
                        f"column {column} = {text!r}: not a number",
                        field=column,
                        value=text,
                    ) from None
                if column == "processor" and (not isinstance(value, int) or value < 0):
                    raise WorkloadFormatError(
                        source,
                        reader.line_num,
                        f"column processor = {text!r}: not a processor id",
                        field=column,
                        value=text,
                    )
                values.append(value)
            periods.append(UpTime(int(values[0]), values[1], values[2]))
    return periods
