"""Checkers for resources with planned availability (PGS, Verboven et al. (2008)).

Two levels:

- *Decision level*: a [`SchedulerSnapshot`][schedlib.availability.mapping.SchedulerSnapshot]
  and the [`MappingDecision`][schedlib.availability.mapping.MappingDecision] a mapping
  returned for it: [`check_mapping_decision`][schedlib.testing.invariants.check_mapping_decision],
  [`check_time_left`][schedlib.testing.invariants.check_time_left].
- *Run level*: a [`RunRecord`][schedlib.model.RunRecord] plus the up periods
  of the resources ([`VolatileGridRun.up_periods`][schedlib.availability.grid.VolatileGridRun]):
  [`check_within_uptime`][schedlib.testing.invariants.check_within_uptime],
  [`check_no_failures`][schedlib.testing.invariants.check_no_failures],
  [`check_unschedulable_reported`][schedlib.testing.invariants.check_unschedulable_reported],
  [`check_failures_handled`][schedlib.testing.invariants.check_failures_handled],
  [`check_no_instant_failures`][schedlib.testing.invariants.check_no_instant_failures].
  Use them with the common checkers (`check_every_job_accounted`,
  `check_lifecycle`, `check_capacity`).

Run-level checkers read the jobs' `runtime` (and `estimate`, defaulting to
the runtime) from the record's workload, and the place of every event as
`(resource,)`.

Examples
--------
>>> from schedlib.availability import PendingJob, ResourceView, SchedulerSnapshot, map_fcfs, map_pgs
>>> snap = SchedulerSnapshot(0, (ResourceView(0, 50),), regular=(PendingJob(1, 60),))
>>> check_time_left(snap, map_pgs(snap))
>>> try:
...     check_time_left(snap, map_fcfs(snap))
... except AssertionError as error:
...     print(str(error).splitlines()[0])
job 1 (estimate 60) assigned to resource 0 at t=0, which has only tl = 50 s left
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from typing import Literal

from schedlib.availability.mapping import MappingDecision, SchedulerSnapshot
from schedlib.availability.patterns import UpPeriod
from schedlib.model import EventKind, JobEvent, JobId, RunRecord, Time
from schedlib.place import ProcessorSet
from schedlib.testing.invariants.common import execution_segments, is_terminal

__all__ = [
    "check_failures_handled",
    "check_mapping_decision",
    "check_no_failures",
    "check_no_instant_failures",
    "check_queue_order",
    "check_time_left",
    "check_unschedulable_reported",
    "check_within_uptime",
]


def check_mapping_decision(snapshot: SchedulerSnapshot, decision: MappingDecision) -> None:
    """A decision is applicable to its snapshot.

    - every assigned job is waiting (priority or regular queue) and is
      assigned at most once;
    - every assigned resource is in the snapshot (available) and never holds
      more than `queue_length` jobs;
    - deferred jobs come from the regular queue, once, and are not assigned;
    - deferred jobs keep their relative order.

    Raises
    ------
    AssertionError
        Naming the job or resource at fault.
    """
    waiting = {job.id for job in snapshot.priority}
    regular = [job.id for job in snapshot.regular]
    waiting.update(regular)
    held = {view.resource: view.held for view in snapshot.resources}
    assigned: set[JobId] = set()
    for a in decision.assignments:
        assert a.job in waiting, f"job {a.job} is assigned at t={snapshot.now} but is not waiting"
        assert a.job not in assigned, f"job {a.job} is assigned twice at t={snapshot.now}"
        assigned.add(a.job)
        assert a.resource in held, (
            f"job {a.job} is assigned to resource {a.resource}, which is not available "
            f"at t={snapshot.now}"
        )
        held[a.resource] += 1
        assert held[a.resource] <= snapshot.queue_length, (
            f"resource {a.resource} holds {held[a.resource]} jobs at t={snapshot.now} after "
            f"job {a.job} is assigned; queue_length is {snapshot.queue_length}"
        )
    position = {job: i for i, job in enumerate(regular)}
    previous = -1
    for job in decision.deferred:
        assert job in position, f"job {job} is deferred but is not in the regular queue"
        assert job not in assigned, f"job {job} is both assigned and deferred"
        assert position[job] > previous, f"deferred jobs out of queue order at job {job}"
        previous = position[job]


def check_time_left(
    snapshot: SchedulerSnapshot, decision: MappingDecision, *, strict: bool = True
) -> None:
    """Every assignment fits in the time its resource has left (Verboven et al. 2008 §2.2-§2.3).

    Replays the assignments in order, each lowering its resource's $tl$ by
    the job's estimate, and requires $et_J < tl$ before each one (the
    paper's "strictly greater"): so $tl$ stays positive. With
    `strict=False` it requires only $et_J \\le tl$: $tl$ never goes negative.

    Notes
    -----
    Compared on times, as written: $tl = ru - (et_{rj} - el_{rj}) - \\sum_i et_i$
    with $ru = \\max(0, pd - t)$ and $el_{rj} = t - s_{rj}$ is
    $\\max(pd, t) - \\text{end}$, $\\text{end} = s_{rj} + et_{rj} + \\sum_i et_i$ summed as
    the jobs will run (`now` for an idle resource); the check is
    $\\text{end} + et_J < \\max(pd, t)$. A checker that subtracted first would
    pass an assignment whose end rounds past the down time.

    Parameters
    ----------
    snapshot
        The mapping's input.
    decision
        Its output.
    strict
        Require the paper's strict inequality (default).

    Raises
    ------
    AssertionError
        Naming the job, its estimate, the resource and its $tl$.
    """
    now = snapshot.now
    estimates = {job.id: job.estimate for job in (*snapshot.priority, *snapshot.regular)}
    ends: dict[int, Time] = {}
    until: dict[int, Time] = {}
    for view in snapshot.resources:
        # Computed here, independently of ResourceView.expected_end and map_pgs, so
        # that a wrong formula there is caught.
        end = now if view.running is None else view.started + view.running.estimate
        for job in view.queued:
            end = end + job.estimate
        ends[view.resource] = end
        until[view.resource] = view.planned_down if view.planned_down > now else now
    for a in decision.assignments:
        if a.job not in estimates or a.resource not in ends:
            continue  # check_mapping_decision reports those
        estimate, end, down = estimates[a.job], ends[a.resource], until[a.resource]
        fits = end + estimate < down if strict else end + estimate <= down
        assert fits, (
            f"job {a.job} (estimate {estimate}) assigned to resource {a.resource} at "
            f"t={now}, which has only tl = {down - end} s left\n"
            f"(its work ends at {end}, it goes down at {down})"
        )
        ends[a.resource] = end + estimate


class _Periods:
    """Up periods of each resource, sorted by start, for lookups by time."""

    def __init__(self, periods: Iterable[UpPeriod]) -> None:
        self.by_resource: dict[int, list[UpPeriod]] = {}
        for p in sorted(periods, key=lambda p: (p.resource, p.start)):
            self.by_resource.setdefault(p.resource, []).append(p)
        self.starts = {r: [p.start for p in ps] for r, ps in self.by_resource.items()}

    def around(self, resource: int, time: Time) -> list[UpPeriod]:
        """Periods of `resource` with `start <= time <= end` (latest first)."""
        periods = self.by_resource.get(resource, [])
        i = bisect.bisect_right(self.starts.get(resource, []), time)
        return [p for p in reversed(periods[max(0, i - 2) : i]) if p.start <= time <= p.end]

    def downs(self, resource: int) -> set[Time]:
        return {p.end for p in self.by_resource.get(resource, [])}


def _where(event: JobEvent) -> int:
    assert len(event.place) == 1, (
        f"job {event.job}: {event.kind.value} at t={event.time} names place "
        f"{list(event.place)}, not one resource"
    )
    return event.place[0]


def check_within_uptime(record: RunRecord, up_periods: Iterable[UpPeriod]) -> None:
    """No job starts unless it can end by its resource's next planned down time.

    For every `START` of job $j$ on resource $r$ at $s$: $r$ is up at $s$
    and $s + \\text{runtime}_j \\le$ the planned end of that up period. With
    exact runtimes and exact availability this is PGS's guarantee (Verboven et al. 2008
    §2: "no job is scheduled onto a resource that will not be available for
    the required runtime"); FCFS breaks it.

    Parameters
    ----------
    record
        The run; its workload items have `runtime`.
    up_periods
        When each resource was actually up, and its planned down time.

    Raises
    ------
    AssertionError
        Naming the job, resource, start time and planned down time.
    """
    periods = _Periods(up_periods)
    runtime = {job.id: job.runtime for job in record.workload}
    for e in record.events:
        if e.kind is not EventKind.START:
            continue
        resource = _where(e)
        around = periods.around(resource, e.time)
        assert around, f"job {e.job} starts on resource {resource} at t={e.time}, while it is down"
        planned_end = around[0].planned_end
        assert e.time + runtime[e.job] <= planned_end, (
            f"job {e.job} (runtime {runtime[e.job]}) starts on resource {resource} at "
            f"t={e.time} and would end at t={e.time + runtime[e.job]}, after the resource's "
            f"planned down time t={planned_end}"
        )


def check_no_failures(record: RunRecord) -> None:
    """No job ever fails or is abandoned.

    Raises
    ------
    AssertionError
        Naming the first `FAIL` or `ABANDON`.
    """
    for e in record.events:
        assert e.kind not in (EventKind.FAIL, EventKind.ABANDON), (
            f"job {e.job} has {e.kind.value} on {list(e.place)} at t={e.time}"
        )


def check_no_instant_failures(record: RunRecord) -> None:
    """No failure lasts 0 s: no job starts on a resource at the instant it goes down.

    Every `FAIL` closes an execution segment that began strictly before it.
    A job started at the very instant its resource goes down would "fail"
    without running at all, and be counted as a failure and a restart: the
    model must leave it queued, to return to the scheduler with the rest of
    the queue.

    Parameters
    ----------
    record
        A volatile-grid run.

    Raises
    ------
    AssertionError
        Naming the job, the resource and the instant.

    Examples
    --------
    >>> from schedlib.model import EventKind as K
    >>> log = [JobEvent(0, 1, K.SUBMIT), JobEvent(0, 1, K.START, (0,)),
    ...        JobEvent(0, 1, K.FAIL, (0,))]
    >>> check_no_instant_failures(RunRecord.from_log("x", [], log, capacity=1))
    Traceback (most recent call last):
    ...
    AssertionError: job 1 starts on resource 0 at t=0 and fails at that instant (a 0 s failure)
    """
    for seg in execution_segments(record):
        if seg.closed_by is EventKind.FAIL and not seg.start < seg.end:
            raise AssertionError(
                f"job {seg.job} starts on resource {_where_place(seg.place)} at t={seg.start} "
                "and fails at that instant (a 0 s failure)"
            )


def _where_place(place: ProcessorSet) -> str:
    return str(place[0]) if len(place) == 1 else str(list(place))


def check_unschedulable_reported(record: RunRecord, longest_uptime: Time) -> None:
    """Jobs longer than every uptime end `UNSCHEDULABLE`, never assigned; no other job does.

    A job whose estimate is not shorter than `longest_uptime` must never be
    assigned nor started, and must end `UNSCHEDULABLE` with a reason that
    names the uptime. Every other job must not end `UNSCHEDULABLE`. Reads the
    `estimate` of each workload item (its `runtime` if it has none); for runs
    without runtime updates.

    Parameters
    ----------
    record
        The run.
    longest_uptime
        The longest planned uptime of any resource.

    Raises
    ------
    AssertionError
        Naming the job, its estimate and what happened to it.
    """
    estimate = {job.id: getattr(job, "estimate", job.runtime) for job in record.workload}
    too_long = {job for job, est in estimate.items() if est >= longest_uptime}
    for e in record.events:
        if e.job in too_long:
            assert e.kind not in (EventKind.ASSIGN, EventKind.START), (
                f"job {e.job} (estimate {estimate[e.job]}) is never shorter than the longest "
                f"uptime {longest_uptime}, but has {e.kind.value} on {list(e.place)} at t={e.time}"
            )
    for o in record.outcomes:
        if o.job in too_long:
            assert o.state is not None and o.state.value == "unschedulable", (
                f"job {o.job} (estimate {estimate[o.job]}) can never fit an uptime of at most "
                f"{longest_uptime} s, but ended {o.state.value if o.state else 'never'}"
            )
            assert "uptime" in o.reason, (
                f"job {o.job} is unschedulable with a reason that does not name the uptime: "
                f"{o.reason!r}"
            )
        else:
            assert o.state is None or o.state.value != "unschedulable", (
                f"job {o.job} (estimate {estimate[o.job]}) fits the longest uptime "
                f"{longest_uptime} s, but is reported unschedulable: {o.reason!r}"
            )


def check_failures_handled(
    record: RunRecord, up_periods: Iterable[UpPeriod], *, max_failures: int | None = None
) -> None:
    """Failures happen exactly when resources go down, and failed jobs are retried or given up.

    - every execution segment and every stay in a resource's queue (from
      `ASSIGN` to `START` or `RETURN`) lies within one up period of that
      resource (a job that started at the very instant its resource went
      down would pass here:
      [`check_no_instant_failures`][schedlib.testing.invariants.check_no_instant_failures]
      reports it);
    - a `FAIL` or `RETURN` on $r$ happens exactly when an up period of $r$
      ends, and a segment closed by `FAIL` ends at the end of the period it
      started in; a `COMPLETE` never comes after it;
    - a failed job is later assigned again, or ends at once (`ABANDON`);
      with `max_failures`, exactly the jobs that failed that many times are
      abandoned, with a reason.

    Parameters
    ----------
    record
        The run.
    up_periods
        When each resource was actually up.
    max_failures
        The run's cap on failures per job, if it should be checked.

    Raises
    ------
    AssertionError
        Naming the job, the resource and the time.
    """
    periods = _Periods(up_periods)

    def within(resource: int, start: Time, end: Time, kind: EventKind, what: str) -> None:
        candidates = periods.around(resource, start)
        if kind in (EventKind.FAIL, EventKind.RETURN):
            ok = any(p.end == end for p in candidates)
            rule = "the end of its up period"
        else:
            ok = any(end <= p.end for p in candidates)
            rule = "within one up period"
        assert ok, (
            f"{what} on resource {resource} from t={start} to t={end} ({kind.value}) is not {rule}"
        )

    for seg in execution_segments(record):
        resource = seg.place[0] if len(seg.place) == 1 else -1
        within(resource, seg.start, seg.end, seg.closed_by, f"job {seg.job}'s execution")
    queued: dict[JobId, tuple[int, Time]] = {}
    failed: dict[JobId, Time] = {}
    count: dict[JobId, int] = {}
    for e in record.events:
        if e.kind is EventKind.ASSIGN:
            failed.pop(e.job, None)
            queued[e.job] = (_where(e), e.time)
        elif e.kind in (EventKind.START, EventKind.RETURN) and e.job in queued:
            resource, since = queued.pop(e.job)
            assert resource == _where(e), (
                f"job {e.job} queued on resource {resource} has {e.kind.value} on "
                f"{list(e.place)} at t={e.time}"
            )
            within(resource, since, e.time, e.kind, f"job {e.job}'s stay in the queue")
        elif e.kind is EventKind.RETURN:
            raise AssertionError(f"job {e.job} returns at t={e.time} but was not queued")
        if e.kind in (EventKind.FAIL, EventKind.RETURN):
            assert e.time in periods.downs(_where(e)), (
                f"job {e.job}: {e.kind.value} on resource {_where(e)} at t={e.time}, when the "
                f"resource did not go down"
            )
        if e.kind is EventKind.FAIL:
            failed[e.job] = e.time
            count[e.job] = count.get(e.job, 0) + 1
        elif e.kind is EventKind.ABANDON:
            assert failed.pop(e.job, None) == e.time, (
                f"job {e.job} is abandoned at t={e.time} without failing at that instant"
            )
            assert e.detail, f"job {e.job} is abandoned at t={e.time} without a reason"
            if max_failures is not None:
                assert count[e.job] == max_failures, (
                    f"job {e.job} is abandoned after {count[e.job]} failure(s); "
                    f"max_failures is {max_failures}"
                )
        elif is_terminal(e):
            failed.pop(e.job, None)
        elif e.kind in (EventKind.COMPLETE, EventKind.START) and e.job in failed:
            raise AssertionError(
                f"job {e.job} failed at t={failed[e.job]} and has {e.kind.value} at t={e.time} "
                f"without being assigned again"
            )
        if max_failures is not None and e.kind is EventKind.FAIL:
            assert count[e.job] <= max_failures, (
                f"job {e.job} fails {count[e.job]} times; max_failures is {max_failures}"
            )
    if max_failures is not None:
        over = [job for job, n in count.items() if n >= max_failures]
        final = _final_kinds(record.events)
        for job in over:
            assert final.get(job) is EventKind.ABANDON, (
                f"job {job} failed {count[job]} times (max_failures = {max_failures}) but "
                f"ended {final[job].value if job in final else 'never'}"
            )
    stranded = sorted(failed)
    assert not stranded, (
        f"job {stranded[0]} failed at t={failed[stranded[0]]} and was never retried nor given up"
    )


def check_queue_order(record: RunRecord, *, requeue: Literal["front", "back"] = "front") -> None:
    """Jobs are assigned in queue order, failed jobs requeued at the front (FCFS) or back.

    Replays the scheduler's two queues from the log: a submitted job joins
    the end of the regular queue; when a resource goes down, the jobs it
    loses (`FAIL`, unless given up at once, then `RETURN`, in log order)
    join the priority queue — before every job already there with
    `requeue="front"` (the CoBRA baseline, Verboven et al. 2008, §3.1:
    "they are added to the front of the queue"), after them with
    `requeue="back"`. Every `ASSIGN` must then take the first job of the
    priority queue followed by the regular queue: a first-come-first-serve
    scheduler never lets a job pass one queued before it. (PGS does not
    assign in queue order; this property is FCFS's.)

    Parameters
    ----------
    record
        A volatile-grid run (places `(resource,)`).
    requeue
        Where jobs that come back from a failed resource join the priority queue.

    Raises
    ------
    AssertionError
        Naming the job assigned, the job it passed and the time.

    Examples
    --------
    >>> from schedlib.model import EventKind as K
    >>> log = [JobEvent(0, 1, K.SUBMIT), JobEvent(0, 2, K.SUBMIT),
    ...        JobEvent(0, 2, K.ASSIGN, (0,))]
    >>> check_queue_order(RunRecord.from_log("fcfs", [], log, capacity=1))
    Traceback (most recent call last):
    ...
    AssertionError: t=0: job 2 is assigned before job 1, which is ahead of it in the queue
    """
    if requeue not in ("front", "back"):
        raise ValueError(f"requeue must be 'front' or 'back', got {requeue!r}")
    priority: list[JobId] = []
    regular: list[JobId] = []
    batch: list[JobId] = []
    batch_key: tuple[Time, ProcessorSet] | None = None

    def flush() -> None:
        nonlocal batch, batch_key
        if batch:
            priority[:] = [*batch, *priority] if requeue == "front" else [*priority, *batch]
        batch, batch_key = [], None

    def drop(job: JobId) -> None:
        for queue in (priority, regular, batch):
            if job in queue:
                queue.remove(job)

    for e in record.events:
        kind = e.kind
        if kind in (EventKind.FAIL, EventKind.RETURN):
            if batch_key != (e.time, e.place):
                flush()
                batch_key = (e.time, e.place)
            batch.append(e.job)
            continue
        if kind is EventKind.ABANDON:
            drop(e.job)
            continue
        flush()
        if kind is EventKind.SUBMIT:
            regular.append(e.job)
        elif kind is EventKind.ASSIGN:
            queue = priority + regular
            if e.job not in queue:
                raise AssertionError(f"t={e.time}: job {e.job} is assigned but is not waiting")
            if queue[0] != e.job:
                raise AssertionError(
                    f"t={e.time}: job {e.job} is assigned before job {queue[0]}, which is ahead "
                    f"of it in the queue"
                )
            drop(e.job)
        elif is_terminal(e):
            drop(e.job)


def _final_kinds(events: Sequence[JobEvent]) -> dict[JobId, EventKind]:
    last: dict[JobId, EventKind] = {}
    for e in events:
        last[e.job] = e.kind
    return last
