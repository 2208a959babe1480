r"""Where a volatile grid's time went: per resource, busy, idle while up, down, and when it
last started a job.

A run's total runtime $T$ on $R$ resources offers $R \cdot T$ resource-seconds; the
jobs' executions use some of them (the work done, plus the work lost to failures),
and the rest is *idle*. [`idle_by_resource`][schedlib.availability.idle.idle_by_resource]
splits that idle time per resource into the time the resource was up with nothing to
run and the time it was down (restarting), and says when it started its last job:
after that instant it was given nothing more, so it had *run out of jobs that fit*
(under PGS, jobs shorter than its time left). It reads only the run's log (and, for the
down time, the up periods the run reports), never the engine's state.

Examples
--------
Two resources; resource 0 runs job 1 (0-30 s) and job 3 (31-40 s, failing at 40 s
when it goes down until 41 s), resource 1 runs job 2 (0-50 s):

>>> from schedlib.availability.jobs import BagJob
>>> from schedlib.availability.patterns import UpPeriod
>>> from schedlib.model import EventKind as K, JobEvent, RunRecord
>>> log = [JobEvent(0, 1, K.START, (0,)), JobEvent(0, 2, K.START, (1,)),
...        JobEvent(30, 1, K.COMPLETE, (0,)), JobEvent(31, 3, K.START, (0,)),
...        JobEvent(40, 3, K.FAIL, (0,)), JobEvent(41, 3, K.START, (0,)),
...        JobEvent(50, 2, K.COMPLETE, (1,)), JobEvent(50, 3, K.COMPLETE, (0,))]
>>> jobs = [BagJob(1, 0, 30), BagJob(2, 0, 50), BagJob(3, 0, 9)]
>>> record = RunRecord.from_log("demo", jobs, log, capacity=2)
>>> periods = [UpPeriod(0, 0, 0, 40, 40), UpPeriod(0, 1, 41, 81, float("inf")),
...            UpPeriod(1, 0, 0, float("inf"), float("inf"))]
>>> [(r.busy, r.idle, r.down, r.last_start) for r in idle_by_resource(record, periods)]
[(48, 1, 1, 41), (50, 0, 0, 0)]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import attrs

from schedlib.availability.patterns import UpPeriod
from schedlib.errors import InvalidValueError
from schedlib.model import EventKind, JobId, RunRecord, Time

__all__ = ["ResourceTime", "idle_by_resource", "run_window"]

_ENDS = frozenset({EventKind.COMPLETE, EventKind.FAIL, EventKind.PREEMPT})


@attrs.frozen
class ResourceTime:
    """How one resource spent a run's total runtime (seconds).

    Attributes
    ----------
    resource
        Index of the resource.
    busy
        Executing a job: completed executions and executions lost to failures.
    idle
        Up with nothing to run (`None` when the run's up periods were not given: then
        `down` is `None` too and `idle` would include the down time; see
        [`idle_by_resource`][schedlib.availability.idle.idle_by_resource]).
    down
        Down (going down, restarting), within the run's window.
    last_start
        When it started its last job: it was given nothing more after that (`None`:
        it never ran a job).
    last_end
        When its last execution ended (completed or failed).
    starts
        Executions it started (failed ones included).

    Notes
    -----
    `busy + idle + down` is the length of the run's window, the total runtime.
    """

    resource: int
    busy: Time
    idle: Time | None
    down: Time | None
    last_start: Time | None
    last_end: Time | None
    starts: int

    @property
    def not_running(self) -> Time | None:
        """Idle and down together: the window minus `busy` (`None` if unknown)."""
        if self.idle is None or self.down is None:
            return None
        return self.idle + self.down


def run_window(record: RunRecord) -> tuple[Time, Time]:
    """The window in which jobs ran: the first start to the last end of an execution.

    When every job completes (as in every run of the paper's experiment), the last
    execution to end is a completion and the window is the total runtime
    ([`makespan`][schedlib.results.metrics.makespan]); executions lost to failures after
    the last completion (a job given up) extend it.

    Raises
    ------
    InvalidValueError
        If the log has no start or no end of an execution.

    Examples
    --------
    >>> from schedlib.model import EventKind as K, JobEvent
    >>> log = [JobEvent(2, 1, K.START, (0,)), JobEvent(9, 1, K.COMPLETE, (0,))]
    >>> run_window(RunRecord.from_log("x", [], log, capacity=1))
    (2, 9)
    """
    starts = [e.time for e in record.events if e.kind is EventKind.START]
    ends = [e.time for e in record.events if e.kind in _ENDS]
    if not starts or not ends:
        raise InvalidValueError("record", record.algorithm, "has no start or no end of a job")
    return min(starts), max(ends)


def _resource(event_place: Sequence[int], resources: int, time: Time) -> int:
    if len(event_place) != 1 or not 0 <= event_place[0] < resources:
        raise InvalidValueError(
            "log entry place", tuple(event_place), f"at t={time} names no single resource"
        )
    return event_place[0]


def idle_by_resource(
    record: RunRecord,
    up_periods: Iterable[UpPeriod] | None = None,
    *,
    resources: int | None = None,
) -> tuple[ResourceTime, ...]:
    r"""Busy, idle and down time per resource over a run's total runtime, from its log.

    Parameters
    ----------
    record
        A finished run whose log places each execution on one resource (`place=(i,)`,
        as [`simulate_volatile_grid`][schedlib.availability.grid.simulate_volatile_grid]
        writes it).
    up_periods
        When each resource was actually up (the run's
        [`up_periods`][schedlib.availability.grid.VolatileGridRun]); without them the
        idle time is not split from the down time (`idle` and `down` are `None`).
    resources
        How many resources (default: the record's `capacity`).

    Returns
    -------
    tuple of ResourceTime
        One per resource, by index.

    Raises
    ------
    InvalidValueError
        If no job ran, or an execution is on no single resource, or one ends that
        did not start.

    Notes
    -----
    With the window $[t_0, t_1]$ in which jobs ran (the total runtime when every job
    completes, [`run_window`][schedlib.availability.idle.run_window]), resource $i$'s busy time is
    the length of its executions $[s, e)$ (a `START` to the job's next `COMPLETE`,
    `FAIL` or `PREEMPT`), its down time the part of the window outside its up periods,
    and its idle time the rest:

    $$ \mathrm{idle}_i = (t_1 - t_0) - \mathrm{busy}_i - \mathrm{down}_i . $$

    Summed over resources, busy + idle + down $= R\,(t_1 - t_0)$. Complexity:
    $O(e + P)$ for $e$ log entries and $P$ up periods.

    References
    ----------
    Verboven et al. (2008) §4.3: the total runtime of Table 2 is this window.
    """
    count = record.capacity if resources is None else resources
    start, end = run_window(record)
    busy = [0.0] * count
    starts = [0] * count
    last_start: list[Time | None] = [None] * count
    last_end: list[Time | None] = [None] * count
    running: dict[JobId, tuple[Time, int]] = {}
    for event in record.events:
        if event.kind is EventKind.START:
            index = _resource(event.place, count, event.time)
            running[event.job] = (event.time, index)
            starts[index] += 1
            last_start[index] = event.time
        elif event.kind in _ENDS:
            if event.job not in running:
                raise InvalidValueError(
                    "log", event.job, f"ends ({event.kind.value}) at t={event.time} unstarted"
                )
            began, index = running.pop(event.job)
            busy[index] += event.time - began
            last_end[index] = event.time
    down: list[Time | None] = [None] * count
    idle: list[Time | None] = [None] * count
    if up_periods is not None:
        up = [0.0] * count
        for period in up_periods:
            if 0 <= period.resource < count:
                overlap = min(period.end, end) - max(period.start, start)
                if overlap > 0 and math.isfinite(overlap):
                    up[period.resource] += overlap
        for index in range(count):
            down[index] = (end - start) - up[index]
            idle[index] = up[index] - busy[index]
    return tuple(
        ResourceTime(
            index,
            _exact(busy[index]),
            None if idle[index] is None else _exact(idle[index]),
            None if down[index] is None else _exact(down[index]),
            last_start[index],
            last_end[index],
            starts[index],
        )
        for index in range(count)
    )


def _exact(value: Time | None) -> Time:
    """An integral float as an int (so that a log in whole seconds gives whole seconds)."""
    assert value is not None
    return int(value) if float(value).is_integer() else value
