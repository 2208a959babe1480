"""Checkers for runs of rigid parallel jobs on one cluster (FCFS, EASY, conservative).

Each takes a finished [`RunRecord`][schedlib.model.RunRecord] whose workload
jobs have `id`, `submit`, `procs` and `requested_time` (and `runtime` for
[`check_kill_at_limit`][schedlib.testing.invariants.backfill.check_kill_at_limit]),
returns `None` when the property holds, and raises `AssertionError` naming
the job, the time and the reservation otherwise. Queue order is arrival
order: submit time, then job id. A running job's *planned end* is its start
plus its requested time. The reservation checkers read the `RESERVE` events:
run [`schedule`][schedlib.backfill.simulation.schedule] with
`log_reservations=True` for them.

| checker | property |
|---|---|
| `check_fcfs_order` | no job starts before one submitted earlier |
| `check_easy_head_never_delayed` | the first waiting job never starts after its shadow time |
| `check_conservative_reservations` | a start promised on arrival, never later, kept |
| `check_reservations_feasible` | the promises never need more than the machine |
| `check_kill_at_limit` | a job runs $\\min(r, d)$, killed iff $r > d$ |
| `check_backfilling_run` | all that apply to a policy, and the common ones |

Examples
--------
>>> from schedlib.backfill import schedule
>>> from schedlib.model import Cluster, Job
>>> jobs = [Job(1, 0, 2, 10, 10), Job(2, 0, 4, 10, 10), Job(3, 1, 2, 5, 5)]
>>> for policy in ("fcfs", "easy", "conservative"):
...     record = schedule(jobs, Cluster(4), policy=policy, log_reservations=True)
...     check_backfilling_run(record, policy)
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from typing import Any

from schedlib.model import EventKind, FinalState, JobEvent, JobId, RunRecord, Time
from schedlib.testing.invariants.common import (
    check_capacity,
    check_every_job_accounted,
    check_lifecycle,
    is_terminal,
)

__all__ = [
    "check_backfilling_run",
    "check_conservative_reservations",
    "check_easy_head_never_delayed",
    "check_fcfs_order",
    "check_kill_at_limit",
    "check_reservations_feasible",
]

_START = EventKind.START
_SUBMIT = EventKind.SUBMIT
_RESERVE = EventKind.RESERVE


def _jobs(record: RunRecord) -> dict[JobId, Any]:
    return {job.id: job for job in record.workload}


def _instants(record: RunRecord) -> Iterator[tuple[Time, list[JobEvent]]]:
    """The log grouped by time, in order."""
    group: list[JobEvent] = []
    for event in record.events:
        if group and event.time != group[0].time:
            yield group[0].time, group
            group = []
        group.append(event)
    if group:
        yield group[0].time, group


def check_fcfs_order(record: RunRecord) -> None:
    """No job starts before a job submitted earlier (FCFS never overtakes).

    For jobs $i, j$ that both started, with $i$ before $j$ in arrival order
    (submit time, then id): $b_i \\le b_j$.

    Raises
    ------
    AssertionError
        Naming the two jobs and their start times.

    Examples
    --------
    >>> from schedlib.backfill import schedule
    >>> from schedlib.model import Cluster, Job
    >>> jobs = [Job(1, 0, 3, 10, 10), Job(2, 1, 4, 10, 10), Job(3, 2, 1, 5, 5)]
    >>> check_fcfs_order(schedule(jobs, Cluster(4), policy="fcfs"))
    >>> check_fcfs_order(schedule(jobs, Cluster(4), policy="easy"))
    Traceback (most recent call last):
    ...
    AssertionError: job 3 (submitted at t=2) starts at t=2, before job 2 (submitted at t=1), ...
    """
    started = sorted((o.submit, o.job, o.start) for o in record.outcomes if o.start is not None)
    latest: tuple[Time, JobId, Time] | None = None
    for submit, job, start in started:
        if latest is not None and start < latest[2]:
            raise AssertionError(
                f"job {job} (submitted at t={submit}) starts at t={start}, before job "
                f"{latest[1]} (submitted at t={latest[0]}), which starts at t={latest[2]}"
            )
        if latest is None or start >= latest[2]:
            latest = (submit, job, start)


def _shadow(now: Time, capacity: int, running: dict[JobId, tuple[Time, int]], procs: int) -> Time:
    """Earliest instant >= now at which `procs` processors are free if every running job
    ends at its planned end."""
    free = capacity - sum(held for _, held in running.values())
    if free >= procs:
        return now
    for end, held in sorted(running.values()):
        free += held
        if free >= procs:
            return end
    raise AssertionError(  # pragma: no cover - only for jobs wider than the machine
        f"a job of {procs} processors never fits the {capacity} processors"
    )


def check_easy_head_never_delayed(record: RunRecord) -> None:
    """The head of the queue never starts later than its shadow time (EASY's promise).

    Replays the log. The *head* is the first waiting job in arrival order. Its
    shadow time $S$ is the earliest instant at which it would fit if every
    running job ended at its planned end (start + requested time). $S$ is
    computed from the log alone, at the end of every instant and just before
    every start of a job queued behind the head (a backfill, checked against
    the machine as it was before that start). The head must start at or
    before the smallest $S$ found while it was the head. Because running jobs
    are killed at their planned end, this holds for any actual runtimes.

    Also, for the `RESERVE` events the run logged (if any): a job's
    reservations never move later, and it starts no later than each.

    Raises
    ------
    AssertionError
        Naming the head, its shadow time, when it was computed, and its start.

    Examples
    --------
    >>> from schedlib.backfill import schedule
    >>> from schedlib.model import Cluster, Job
    >>> jobs = [Job(1, 0, 3, 10, 10), Job(2, 1, 4, 10, 10), Job(3, 2, 1, 5, 5)]
    >>> check_easy_head_never_delayed(schedule(jobs, Cluster(4), policy="easy"))
    """
    jobs = _jobs(record)
    capacity = record.capacity
    start_of = {o.job: o.start for o in record.outcomes}
    running: dict[JobId, tuple[Time, int]] = {}
    waiting: list[tuple[Time, JobId]] = []  # a heap with lazy deletion
    gone: set[JobId] = set()
    bound: dict[JobId, tuple[Time, Time]] = {}  # head -> (smallest shadow, when computed)

    def head() -> Any:
        while waiting and waiting[0][1] in gone:
            heapq.heappop(waiting)
        return jobs[waiting[0][1]] if waiting else None

    def promise(now: Time) -> None:
        job = head()
        if job is None:
            return
        shadow = _shadow(now, capacity, running, job.procs)
        if job.id not in bound or shadow < bound[job.id][0]:
            bound[job.id] = (shadow, now)

    for now, events in _instants(record):
        for e in events:
            if e.kind is _SUBMIT:
                heapq.heappush(waiting, (jobs[e.job].submit, e.job))
            elif e.kind is _START:
                job = jobs[e.job]
                first = head()
                if first is not None and (job.submit, job.id) > (first.submit, first.id):
                    promise(now)  # a backfill: the head's shadow just before it
                gone.add(e.job)
                running[e.job] = (now + job.requested_time, job.procs)
            elif is_terminal(e):
                gone.add(e.job)
                running.pop(e.job, None)
        promise(now)
    for job_id, (shadow, when) in bound.items():
        start = start_of.get(job_id)
        if start is None or start > shadow:
            started = "never starts" if start is None else f"starts at t={start}"
            raise AssertionError(
                f"EASY head job {job_id} {started}, later than its shadow time t={shadow} "
                f"(computed at t={when} from the planned ends of the running jobs)"
            )
    _check_logged_reservations(record, start_of)


def _reservations(record: RunRecord) -> dict[JobId, list[JobEvent]]:
    made: dict[JobId, list[JobEvent]] = {}
    for e in record.events:
        if e.kind is _RESERVE:
            made.setdefault(e.job, []).append(e)
    return made


def _check_logged_reservations(
    record: RunRecord, start_of: dict[JobId, Time | None]
) -> dict[JobId, list[JobEvent]]:
    made = _reservations(record)
    for job_id, promises in made.items():
        previous: tuple[Time, Time] | None = None  # (promised start, when made)
        for e in promises:
            assert e.at is not None, f"job {job_id}: RESERVE at t={e.time} without a time"
            assert e.at >= e.time, (
                f"job {job_id}: reservation made at t={e.time} promises a start in the past "
                f"(t={e.at})"
            )
            if previous is not None and e.at > previous[0]:
                raise AssertionError(
                    f"job {job_id}: reservation moved later, from t={previous[0]} "
                    f"(made at t={previous[1]}) to t={e.at} (at t={e.time})"
                )
            previous = (e.at, e.time)
        start = start_of.get(job_id)
        last = promises[-1]
        assert last.at is not None
        if start is None or start > last.at:
            started = "never starts" if start is None else f"starts at t={start}"
            raise AssertionError(
                f"job {job_id} {started}, later than its reservation t={last.at} "
                f"(made at t={last.time})"
            )
    return made


def check_conservative_reservations(record: RunRecord) -> None:
    """Conservative backfilling keeps its promises.

    From the `RESERVE` events of the run:

    - every job that runs gets a reservation when it arrives (logged at its
      submit time, before it starts);
    - no reservation ever moves later (compression only moves them earlier);
    - every job starts no later than the reservation it got on arrival, nor
      than any later one.

    Raises
    ------
    AssertionError
        Naming the job, the reservation and when it was made.

    Examples
    --------
    >>> from schedlib.backfill import schedule
    >>> from schedlib.model import Cluster, Job
    >>> jobs = [Job(1, 0, 3, 10, 4), Job(2, 1, 4, 10, 10), Job(3, 2, 1, 5, 5)]
    >>> check_conservative_reservations(schedule(jobs, Cluster(4), policy="conservative",
    ...                                        log_reservations=True))
    >>> check_conservative_reservations(schedule(jobs, Cluster(4), policy="easy",
    ...                                          log_reservations=True))
    Traceback (most recent call last):
    ...
    AssertionError: job 1 runs but got no reservation on arrival (t=0) ...
    """
    start_of = {o.job: o.start for o in record.outcomes}
    made = _check_logged_reservations(record, start_of)
    for outcome in record.outcomes:
        if outcome.start is None:
            continue
        first = made.get(outcome.job)
        if not first or first[0].time != outcome.submit:
            raise AssertionError(
                f"job {outcome.job} runs but got no reservation on arrival (t={outcome.submit})"
                " (for schedlib's own runs: schedule(..., log_reservations=True))"
            )


def check_reservations_feasible(record: RunRecord) -> None:
    """The promises made never need more processors than the machine has.

    At the end of every instant, every running job holds its processors until
    its planned end, and every waiting job with a logged reservation (its
    latest one) holds its processors over $[\\text{reservation},
    \\text{reservation} + \\text{requested})$; at no future instant may that
    exceed the capacity. This holds for EASY (the head's reservation) and
    conservative backfilling (every job's).

    Raises
    ------
    AssertionError
        Naming the instant, the time of the overbooking and the jobs involved.

    Examples
    --------
    >>> from schedlib.backfill import schedule
    >>> from schedlib.model import Cluster, Job
    >>> jobs = [Job(1, 0, 3, 10, 4), Job(2, 1, 4, 10, 10), Job(3, 2, 1, 5, 5)]
    >>> check_reservations_feasible(schedule(jobs, Cluster(4), policy="conservative",
    ...                                    log_reservations=True))
    """
    jobs = _jobs(record)
    capacity = record.capacity
    held: dict[JobId, tuple[Time, Time, int]] = {}  # job -> (from, until, procs)
    for now, events in _instants(record):
        for e in events:
            job = jobs.get(e.job)
            if job is None:
                continue
            if e.kind is _RESERVE and e.at is not None:
                held[e.job] = (e.at, e.at + job.requested_time, job.procs)
            elif e.kind is _START:
                held[e.job] = (now, now + job.requested_time, job.procs)
            elif is_terminal(e):
                held.pop(e.job, None)
        changes: dict[Time, int] = {}
        for begin, end, procs in held.values():
            if end > begin:
                changes[max(begin, now)] = changes.get(max(begin, now), 0) + procs
                changes[end] = changes.get(end, 0) - procs
        used = 0
        for t in sorted(changes):
            used += changes[t]
            if used > capacity:
                holders = sorted(j for j, (b, e_, _) in held.items() if b <= t < e_)
                raise AssertionError(
                    f"at t={now}, the promises need {used} of {capacity} processors at t={t} "
                    f"(running or reserved: jobs {holders})"
                )


def check_kill_at_limit(record: RunRecord) -> None:
    """Each job runs $\\min(\\text{runtime}, \\text{requested})$ and is killed iff it overruns.

    For every job of the workload that has `runtime` and `requested_time`
    and started: its end is $b + \\min(r, d)$; it ends with `KILL` (final
    state `killed_at_limit`) exactly when $r > d$, else with `COMPLETE`.

    Raises
    ------
    AssertionError
        Naming the job, its times and how it ended.

    Examples
    --------
    >>> from schedlib.backfill import schedule
    >>> from schedlib.model import Cluster, Job
    >>> record = schedule([Job(1, 0, 1, 10, 25)], Cluster(1))
    >>> check_kill_at_limit(record); record.outcomes[0].state.value, record.outcomes[0].end
    ('killed_at_limit', 10)
    """
    jobs = _jobs(record)
    for o in record.outcomes:
        job = jobs[o.job]
        runtime = getattr(job, "runtime", None)
        requested = getattr(job, "requested_time", None)
        if o.start is None or runtime is None or requested is None:
            continue
        killed = runtime > requested
        expected_end = o.start + min(runtime, requested)
        expected_state = FinalState.KILLED_AT_LIMIT if killed else FinalState.COMPLETED
        if o.end != expected_end or o.state is not expected_state:
            raise AssertionError(
                f"job {o.job} (runtime {runtime}, requested {requested}) started at t={o.start} "
                f"must end at t={expected_end} as {expected_state.value}, but ends at "
                f"t={o.end} as {o.state.value if o.state else None}"
            )


def check_backfilling_run(record: RunRecord, policy: str) -> None:
    """Every checker that applies to a run of `policy` (`"fcfs"`, `"easy"`, `"conservative"`).

    The common ones (every job accounted for, well-formed lifecycle,
    capacity with exact sizes), kill at the limit, and the policy's own:
    FCFS order; EASY head never delayed; conservative reservations; and, for
    both backfilling policies, feasible reservations. The record must log its
    reservations (`schedule(..., log_reservations=True)`).

    Raises
    ------
    AssertionError
        From the first checker that fails.
    ValueError
        For an unknown policy.
    """
    if policy not in ("fcfs", "easy", "conservative"):
        raise ValueError(f"policy = {policy!r}: must be one of fcfs, easy, conservative")
    check_every_job_accounted(record)
    check_lifecycle(record)
    check_capacity(record)
    check_kill_at_limit(record)
    if policy == "fcfs":
        check_fcfs_order(record)
    else:
        check_reservations_feasible(record)
        if policy == "easy":
            check_easy_head_never_delayed(record)
        else:
            check_conservative_reservations(record)
