"""Checkers every model's run records must pass.

Each checker takes a [`RunRecord`][schedlib.model.RunRecord], returns `None`
when the property holds and raises `AssertionError` explaining the first
violation otherwise.

Examples
--------
>>> from schedlib.model import EventKind as K, Job, JobEvent, RunRecord
>>> jobs = [Job(1, 0, 2, 10, 5)]
>>> good = RunRecord.from_log("x", jobs, [JobEvent(0, 1, K.SUBMIT),
...     JobEvent(0, 1, K.START, (0, 1)), JobEvent(5, 1, K.COMPLETE, (0, 1))], capacity=2)
>>> check_every_job_accounted(good); check_lifecycle(good); check_capacity(good)
>>> lost = RunRecord.from_log("x", jobs, [JobEvent(0, 1, K.SUBMIT)], capacity=2)
>>> check_every_job_accounted(lost)
Traceback (most recent call last):
...
AssertionError: job 1 has no terminal event (its last event: submit at t=0)
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Hashable
from typing import Any

import attrs

from schedlib.model import TERMINAL_STATES, EventKind, JobEvent, JobId, RunRecord, Time
from schedlib.place import ProcessorSet

__all__ = [
    "Segment",
    "check_capacity",
    "check_every_job_accounted",
    "check_lifecycle",
    "execution_segments",
    "is_terminal",
]

_SEGMENT_ENDS = frozenset(
    {EventKind.PREEMPT, EventKind.FAIL, EventKind.CANCEL, EventKind.COMPLETE, EventKind.KILL}
)


def is_terminal(event: JobEvent) -> bool:
    """Whether `event` ends its job's life (a task's `COMPLETE` does not)."""
    return event.kind in TERMINAL_STATES and not (
        event.kind is EventKind.COMPLETE and event.task is not None
    )


@attrs.frozen(slots=True)
class Segment:
    """One uninterrupted stretch of execution `[start, end)` of a job (or task) on `place`."""

    job: JobId
    task: int | None
    place: ProcessorSet
    start: Time
    end: Time
    closed_by: EventKind


def execution_segments(record: RunRecord) -> list[Segment]:
    """Pair each `START` with the event that ends it (same job, task and place).

    Returns
    -------
    list of Segment
        In the order the segments end. Segments never closed are not returned
        ([`check_lifecycle`][schedlib.testing.invariants.check_lifecycle]
        reports them).
    """
    open_: dict[tuple[Hashable, ...], Time] = {}
    segments = []
    for e in record.events:
        key = (e.job, e.task, e.place.bounds)  # equal for equal places, cheap to hash
        if e.kind is EventKind.START:
            open_[key] = e.time
        elif e.kind in _SEGMENT_ENDS and key in open_:
            segments.append(Segment(e.job, e.task, e.place, open_.pop(key), e.time, e.kind))
    return segments


def _describe(e: JobEvent) -> str:
    where = f" on {list(e.place)}" if e.place else ""
    task = f" task {e.task}" if e.task is not None else ""
    return f"{e.kind.value}{task}{where} at t={e.time}"


def check_every_job_accounted(record: RunRecord) -> None:
    """Every input job ends in exactly one terminal state, and nothing else appears.

    Checks that job ids are unique, that every log entry names an input job,
    that each job has exactly one terminal event (completed, killed, failed,
    unschedulable, rejected or cancelled in the log) and that nothing happens
    to a job after it.

    Raises
    ------
    AssertionError
        Naming the first job that is lost, ends twice, or is unknown.
    """
    ids: dict[Any, int] = {}
    for job in record.workload:
        assert job.id not in ids, f"job id {job.id} appears twice in the workload"
        ids[job.id] = 0
    last: dict[Any, JobEvent] = {}
    for e in record.events:
        assert e.job in ids, f"the log names job {e.job}, which is not in the workload"
        if e.job in last and is_terminal(last[e.job]):
            raise AssertionError(
                f"job {e.job} has {_describe(e)} after its terminal {_describe(last[e.job])}"
            )
        last[e.job] = e
    for job_id in ids:
        final = last.get(job_id)
        assert final is not None, f"job {job_id} never appears in the log (lost)"
        assert is_terminal(final), (
            f"job {job_id} has no terminal event (its last event: {_describe(final)})"
        )


def check_lifecycle(record: RunRecord) -> None:
    """The log is well formed, job by job.

    - log times never decrease;
    - each job's first event is its single `SUBMIT`, at its submission time;
    - a `START` never reopens a segment that is open (same job, task, place);
    - an event ending a segment on a place ends one that is open there;
    - no segment of a job is still open at its terminal event.

    Raises
    ------
    AssertionError
        Naming the first malformed event.
    """
    submit = {job.id: job.submit for job in record.workload}
    seen: set[Any] = set()
    open_: dict[Any, dict[tuple[int | None, Hashable], ProcessorSet]] = {}
    previous: Time | None = None
    for e in record.events:
        assert previous is None or e.time >= previous, (
            f"log goes back in time: {_describe(e)} of job {e.job} after t={previous}"
        )
        previous = e.time
        if e.job not in seen:
            assert e.kind is EventKind.SUBMIT, (
                f"job {e.job}'s first event is {_describe(e)}, not its submission"
            )
            assert e.job not in submit or e.time == submit[e.job], (
                f"job {e.job} submitted at t={e.time}, but its submit time is {submit[e.job]}"
            )
            seen.add(e.job)
            open_[e.job] = {}
            continue
        assert e.kind is not EventKind.SUBMIT, f"job {e.job} is submitted twice (t={e.time})"
        segs = open_[e.job]
        key = (e.task, e.place.bounds)
        if e.kind is EventKind.START:
            assert key not in segs, f"job {e.job}: {_describe(e)} while already running there"
            segs[key] = e.place
        elif e.kind in _SEGMENT_ENDS and e.place:
            assert key in segs, f"job {e.job}: {_describe(e)} but it is not running there"
            del segs[key]
        if is_terminal(e):
            assert not segs, (
                f"job {e.job} ends ({_describe(e)}) while still running on "
                f"{sorted(list(p) for p in segs.values())}"
            )


def check_capacity(record: RunRecord, *, exact_size: bool = True) -> None:
    """No processing unit is ever used twice at once, nor beyond the machine.

    Walks the log in order (the engine logs what happens at an instant in the
    order it happens, so processors freed at $t$ may be reused at $t$:
    intervals are half-open). Every unit in a `START`'s place must lie in
    `range(record.capacity)` and be free; an event ending a segment frees the
    units of its place that the job holds.

    Parameters
    ----------
    record
        The run.
    exact_size
        Also require that each `START` uses exactly as many units as the job
        holds (`procs`); turn off for models whose place names a node rather
        than processors.

    Raises
    ------
    AssertionError
        Naming the lowest unit in conflict, the time and the jobs.

    Notes
    -----
    Works on the places' ranges, never on single units: the busy units are
    kept as disjoint ranges, each with its holder, sorted by first unit.
    Complexity: $O(e \\cdot r \\cdot (\\log b + b))$ at worst for $e$ log
    entries of at most $r$ ranges and $b$ busy ranges (the insertion in a
    sorted list; a C `memmove`), whatever the machine size.
    """
    procs = {job.id: getattr(job, "procs", 1) for job in record.workload}
    capacity = record.capacity
    los: list[int] = []  # first unit of each busy range, sorted
    busy: dict[int, tuple[int, Any]] = {}  # first unit -> (end, holder)
    for e in record.events:
        if e.kind is EventKind.START:
            place = e.place
            if exact_size:
                assert len(place) == procs.get(e.job, len(place)), (
                    f"job {e.job} holds {procs.get(e.job)} unit(s) but starts on {list(place)}"
                    f" at t={e.time}"
                )
            for lo, hi in place.ranges:
                unit, holder = _first_busy(los, busy, lo, min(hi, capacity))
                assert unit is None, (
                    f"unit {unit} oversubscribed at t={e.time}: job {e.job} starts while "
                    f"job {holder} runs there"
                )
                assert hi <= capacity, (
                    f"job {e.job} starts on unit {max(lo, capacity)} at t={e.time}, outside "
                    f"the machine of {capacity}"
                )
            for lo, hi in place.ranges:
                los.insert(bisect_right(los, lo), lo)
                busy[lo] = (hi, e.job)
        elif e.kind in _SEGMENT_ENDS:
            for lo, hi in e.place.ranges:
                _release(los, busy, lo, hi, e.job)


def _first_busy(
    los: list[int], busy: dict[int, tuple[int, Any]], lo: int, hi: int
) -> tuple[int | None, Any]:
    """The lowest busy unit of `lo .. hi - 1` and its holder, or `(None, None)`."""
    if lo >= hi:
        return None, None
    i = bisect_right(los, lo)
    if i and busy[los[i - 1]][0] > lo:  # a busy range starting at or before lo covers it
        return lo, busy[los[i - 1]][1]
    if i < len(los) and los[i] < hi:
        return los[i], busy[los[i]][1]
    return None, None


def _release(los: list[int], busy: dict[int, tuple[int, Any]], lo: int, hi: int, job: Any) -> None:
    """Free the units of `lo .. hi - 1` that `job` holds (others' units stay busy)."""
    i = bisect_right(los, lo)
    if i and busy[los[i - 1]][0] > lo:
        i -= 1
    while i < len(los) and los[i] < hi:
        first = los[i]
        end, holder = busy[first]
        if holder != job:
            i += 1
            continue
        del los[i]
        del busy[first]
        if first < lo:  # keep the part before
            los.insert(i, first)
            busy[first] = (lo, holder)
            i += 1
        if end > hi:  # keep the part after
            los.insert(i, hi)
            busy[hi] = (end, holder)
            i += 1
