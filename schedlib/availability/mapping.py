"""Mapping jobs onto resources with limited uptime: PGS and the FCFS baseline.

Pure functions of a [`SchedulerSnapshot`][schedlib.availability.mapping.SchedulerSnapshot],
the information a grid scheduler has at one instant (Verboven et al. 2008 §2.1-§2.3):
the *estimated* runtime of each job and, for each available resource, its
*planned* down time, the job it runs (and when it started) and the jobs queued
for it. The snapshot has no field for actual runtimes or actual availability, so a
mapping function cannot look ahead even by accident.

The snapshot holds *times* (when the resource goes down, when its job started),
not the paper's differences $ru$ and $el$: a mapping compares the time a job would
end with the time its resource goes down, as the simulation will meet them, never a
runtime with a difference of times (with float times $et_J < pd - t$ can hold where
$t + et_J = pd$).

- [`time_left`][schedlib.availability.mapping.time_left]: the paper's $tl$ (§2.2).
- [`map_pgs`][schedlib.availability.mapping.map_pgs]: Prediction based Grid Scheduling,
  the two-phase mapping of §2.3.
- [`map_fcfs`][schedlib.availability.mapping.map_fcfs]: the standard CoBRA scheduler,
  first come first serve (§3.1).

Both return a [`MappingDecision`][schedlib.availability.mapping.MappingDecision]; the
engine model [`schedlib.availability.grid`][schedlib.availability.grid] applies it.

Examples
--------
Two idle resources, with 50 s and 120 s of planned uptime left, and three
jobs waiting in the regular queue:

>>> snap = SchedulerSnapshot(
...     now=0,
...     resources=(ResourceView(0, 50), ResourceView(1, 120)),
...     regular=(PendingJob(1, 60), PendingJob(2, 10), PendingJob(3, 45)),
...     queue_length=2,
... )
>>> [(a.job, a.resource) for a in map_pgs(snap).assignments]
[(2, 0), (1, 1), (3, 1)]
>>> [(a.job, a.resource) for a in map_fcfs(snap).assignments]
[(1, 0), (2, 0), (3, 1)]

PGS gives resource 0 the first job shorter than its 50 s (job 2) and
resource 1 the first job shorter than its 120 s (job 1); job 3 (45 s) then
goes where the least time above 45 s is left: resource 1 (60 s), not
resource 0 (40 s). FCFS fills the first resource's queue first and sends
the 60 s job to the resource that goes down in 50 s.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction
from typing import Any, Literal

import attrs

from schedlib.errors import InvalidValueError
from schedlib.model import JobId, Time
from schedlib.validation import at_least, finite_at_least

__all__ = [
    "Assignment",
    "MappingDecision",
    "PendingJob",
    "ResourceView",
    "SchedulerSnapshot",
    "map_fcfs",
    "map_pgs",
    "time_left",
    "unschedulable_reason",
]


@attrs.frozen(slots=True)
class PendingJob:
    """What the scheduler knows of a job: its id and its estimated runtime.

    Attributes
    ----------
    id
        The job's id.
    estimate
        Estimated runtime in seconds (finite, `>= 0`); exact for the paper's
        sleep jobs (Verboven et al. 2008 §4.1), possibly revised after submission (§2.1).

    Examples
    --------
    >>> PendingJob(7, 12.5)
    PendingJob(id=7, estimate=12.5)
    """

    id: JobId = attrs.field(validator=at_least(0))
    estimate: Time = attrs.field(validator=finite_at_least(0))


def _job_tuple(value: Iterable[PendingJob]) -> tuple[PendingJob, ...]:
    return value if isinstance(value, tuple) else tuple(value)


def time_left(
    remaining_uptime: Time,
    running_estimate: Time = 0,
    elapsed: Time = 0,
    queued: Iterable[Time] = (),
) -> Time:
    """The time a resource has left for computations, $tl$ (Verboven et al. 2008 §2.2).

    Parameters
    ----------
    remaining_uptime
        $ru$: the planned remaining uptime of the resource.
    running_estimate
        $et_{rj}$: estimated runtime of the job it runs (0 when idle).
    elapsed
        $el_{rj}$: how long that job has been running (0 when idle).
    queued
        $et_i$: estimated runtimes of the jobs queued for the resource but
        not yet started.

    Returns
    -------
    float
        $tl$; negative when the resource is already over-committed (a
        running job that overran its estimate, or an actual availability
        longer than planned).

    Notes
    -----
    $$tl = ru - (et_{rj} - el_{rj}) - \\sum_{i=1}^{qj} et_i$$

    | paper | parameter |
    |---|---|
    | $ru$ | `remaining_uptime` |
    | $et_{rj}$ | `running_estimate` |
    | $el_{rj}$ | `elapsed` |
    | $qj$ | `len(queued)` |
    | $et_i$ | `queued[i]` |

    The paper writes the sum from $i = 0$ to $qj$, "$qj$ the amount of jobs
    queued": we sum over exactly the $qj$ queued jobs. Complexity $O(qj)$.

    This is the formula on given numbers, for reports. A mapping does not test
    $et_J < tl$ on it: $ru$ and $el_{rj}$ are differences of times, rounded in
    floats, so `map_pgs` tests the same inequality on the times themselves
    ($\\text{end} + et_J < pd$, see its Notes).

    References
    ----------
    Verboven et al. (2008) §2.2.

    Examples
    --------
    A resource with 64 s of planned uptime left runs a job estimated at 30 s
    that started 10 s ago, and has jobs of 12 s and 8 s queued:

    >>> time_left(64, 30, 10, [12, 8])
    24
    >>> time_left(84)
    84
    """
    return remaining_uptime - (running_estimate - elapsed) - sum(queued)


@attrs.frozen(slots=True)
class ResourceView:
    """What the scheduler knows of one available resource.

    Attributes
    ----------
    resource
        The resource's index.
    planned_down
        When the resource goes down according to its *planned* availability
        (`>= 0`; infinite for a resource that never goes down). The paper's
        $ru$ at time $t$ is $\\max(0, pd - t)$.
    running
        The job it runs, or `None` when idle.
    started
        When `running` started (0 when idle); the paper's $el_{rj}$ at time $t$
        is $t - \\text{started}$.
    queued
        Jobs assigned to it and not yet started, in the order they will start.

    Examples
    --------
    >>> view = ResourceView(3, 74, PendingJob(1, 30), 0, (PendingJob(2, 12), PendingJob(4, 8)))
    >>> view.expected_end(10), view.time_left(10), view.held, view.idle
    (50, 24, 3, False)
    """

    resource: int = attrs.field(validator=at_least(0))
    planned_down: Time = attrs.field(validator=at_least(0))
    running: PendingJob | None = None
    started: Time = attrs.field(default=0, validator=finite_at_least(0))
    queued: tuple[PendingJob, ...] = attrs.field(default=(), converter=_job_tuple)

    @property
    def idle(self) -> bool:
        """Whether it runs no job."""
        return self.running is None

    @property
    def held(self) -> int:
        """Jobs it holds: the running one (if any) plus the queued ones."""
        return len(self.queued) + (self.running is not None)

    def available_until(self, now: Time) -> Time:
        """$\\max(pd, t)$: its planned down time, or `now` for a resource up past it."""
        return max(self.planned_down, now)

    def expected_end(self, now: Time) -> Time:
        """When its work ends by the estimates, summed as the simulation sums them.

        The running job's start plus its estimate (`now` when idle), plus each
        queued estimate in turn, left to right.
        """
        running = self.running
        end = now if running is None else self.started + running.estimate
        for job in self.queued:
            end += job.estimate
        return end

    def time_left(self, now: Time) -> Time:
        """The paper's $tl$ at `now`, $\\max(pd, t) - \\text{end}$, for reports.

        Notes
        -----
        $\\max(pd, t) - (s + et_{rj} + \\sum_i et_i)
        = ru - (et_{rj} - el_{rj}) - \\sum_i et_i$ with $ru = \\max(0, pd - t)$ and
        $el_{rj} = t - s$ ([`time_left`][schedlib.availability.mapping.time_left]).
        Rounded once; the mapping does not compare it (see `map_pgs`).
        """
        return self.available_until(now) - self.expected_end(now)


def _views(value: Iterable[ResourceView]) -> tuple[ResourceView, ...]:
    return value if isinstance(value, tuple) else tuple(value)


def _check_snapshot(instance: SchedulerSnapshot) -> None:
    seen_resources: set[int] = set()
    places: list[tuple[list[JobId], str]] = []
    for view in instance.resources:
        if view.resource in seen_resources:
            raise InvalidValueError(
                "SchedulerSnapshot.resources", view.resource, "resource listed twice"
            )
        seen_resources.add(view.resource)
        if view.held > instance.queue_length:
            raise InvalidValueError(
                f"SchedulerSnapshot.resources[{view.resource}]",
                view.held,
                f"holds more jobs than queue_length = {instance.queue_length}",
            )
        held = [job.id for job in view.queued]
        if view.running is not None:
            held.append(view.running.id)
        places.append((held, f"resource {view.resource}"))
    places.append(([job.id for job in instance.priority], "the priority queue"))
    places.append(([job.id for job in instance.regular], "the regular queue"))
    every = [job for ids, _ in places for job in ids]
    if len(set(every)) == len(every):
        return
    seen: set[JobId] = set()
    for ids, where in places:
        for job in ids:
            if job in seen:
                raise InvalidValueError(
                    "SchedulerSnapshot", job, f"job {job} appears twice (again in {where})"
                )
            seen.add(job)


@attrs.frozen(slots=True)
class SchedulerSnapshot:
    """The input of a mapping: what the scheduler knows at one instant.

    Attributes
    ----------
    now
        The current time.
    resources
        The available (up) resources, in the order the scheduler lists them
        (the engine model lists them by index); ties are broken by this order.
    priority
        The priority queue, in order: "jobs that have already been processed
        in some way but are still in need of scheduling (e.g. a job failed or
        no suitable resource was found in a previous mapping attempt)" (seed
        001 §2.3). Always considered before `regular`.
    regular
        The regular job queue, in arrival order.
    queue_length
        The most jobs a resource may hold at once, its running job included
        (`>= 1`; CoBRA's "maximum configured queue length", §3.1).

    Notes
    -----
    Validated on construction: resources listed once, no job in two places,
    no resource holding more than `queue_length` jobs.
    """

    now: Time
    resources: tuple[ResourceView, ...] = attrs.field(converter=_views)
    priority: tuple[PendingJob, ...] = attrs.field(default=(), converter=_job_tuple)
    regular: tuple[PendingJob, ...] = attrs.field(default=(), converter=_job_tuple)
    queue_length: int = attrs.field(default=2, validator=at_least(1))

    def __attrs_post_init__(self) -> None:
        _check_snapshot(self)


@attrs.frozen(slots=True)
class Assignment:
    """One job put in one resource's queue.

    Attributes
    ----------
    job
        The job's id.
    resource
        The resource's index.
    """

    job: JobId
    resource: int


@attrs.frozen(slots=True)
class MappingDecision:
    """The output of a mapping.

    Attributes
    ----------
    assignments
        In the order they were made; each job's position in its resource's
        queue follows this order.
    deferred
        Ids of regular-queue jobs that fit nowhere and move to the end of the
        priority queue, in order (Verboven et al. 2008 §2.3: "The jobs that have runtimes
        that are too long are put on the priority queue").
    """

    assignments: tuple[Assignment, ...] = ()
    deferred: tuple[JobId, ...] = ()


FirstJobRule = Literal["idle", "empty-queue"]
"""Which resources get a first job in PGS phase 1 (see `map_pgs`)."""


def _check_rule(first_job_for: Any) -> None:
    if first_job_for not in ("idle", "empty-queue"):
        raise InvalidValueError("first_job_for", first_job_for, "must be 'idle' or 'empty-queue'")


def map_pgs(
    snapshot: SchedulerSnapshot, *, first_job_for: FirstJobRule = "idle"
) -> MappingDecision:
    """Prediction based Grid Scheduling: the two-phase mapping of Verboven et al. (2008) §2.3.

    Jobs are considered in one order: the priority queue, then the regular
    queue. A job goes to resource $R$ only if its estimate is strictly less
    than $tl(R)$, and $tl(R)$ drops by the estimate at once.

    1. *Resource oriented.* For each resource, in snapshot order, that is
       idle with an empty queue (see `first_job_for`) and has a free slot:
       give it the first job $J$ with $et_J < tl(R)$, if any.
    2. *Job oriented.* For each remaining job in order: among resources with
       a free slot, choose the one with the smallest $tl$ strictly greater
       than $et_J$ (ties: snapshot order). If none has enough time, the job
       fits nowhere: a regular-queue job is *deferred* to the priority queue,
       a priority-queue job stays where it is. Stop as soon as no resource
       has a free slot.

    Parameters
    ----------
    snapshot
        What the scheduler knows now.
    first_job_for
        `"idle"` (default): phase 1 serves resources that run
        nothing and have nothing queued. `"empty-queue"`: it serves every
        resource with an empty queue, running or not (the paper's literal
        "Select resource R with an empty queue").

    Returns
    -------
    MappingDecision
        The assignments, in order, and the deferred jobs.

    Raises
    ------
    InvalidValueError
        For an unknown `first_job_for`.

    Notes
    -----
    A job $J$ is assigned to $R$ only if
    $$et_J < tl(R) = ru - (et_{rj} - el_{rj}) - \\sum_i et_i ,$$
    so with exact runtimes and availability it ends before $R$'s planned
    down time and $tl(R)$ stays positive.

    The test is made on times, as the simulation will meet them: with
    $ru = \\max(0, pd - t)$ and $el_{rj} = t - s_{rj}$, $tl(R) = \\max(pd, t) - \\text{end}(R)$
    where $\\text{end}(R) = s_{rj} + et_{rj} + \\sum_i et_i$ (`now` for $s_{rj} + et_{rj}$
    when idle) is summed left to right, as the jobs will run
    ([`ResourceView.expected_end`][schedlib.availability.mapping.ResourceView]), so
    $et_J < tl(R)$ is tested as $\\text{end}(R) + et_J < \\max(pd, t)$ and assigning
    $J$ adds $et_J$ to $\\text{end}(R)$. Subtracting first ($et_J < pd - t - \\dots$)
    would decide otherwise where, in float times, the job's end rounds onto the
    down time. Best fit compares the $tl$ of two resources exactly, as the paper's
    $tl$ in exact arithmetic on the snapshot's times and estimates: the float ends
    are rounded sums, so where the two float differences are within rounding of each
    other (or equal) they are compared as fractions of the summed terms.

    Complexity: $O((J + R) \\cdot R)$ for $J$ waiting jobs and $R$ resources.

    References
    ----------
    Verboven et al. (2008) §2.2 ($tl$), §2.3 (the two phases, the priority queue), §3.2
    (the *JobHandler* steps).

    Examples
    --------
    Resource 0 is idle with 100 s left; resource 1 runs a job and has 30 s
    left. The failed job 9 in the priority queue is served first:

    >>> snap = SchedulerSnapshot(
    ...     now=0,
    ...     resources=(ResourceView(0, 100), ResourceView(1, 50, PendingJob(5, 20))),
    ...     priority=(PendingJob(9, 70),),
    ...     regular=(PendingJob(1, 25), PendingJob(2, 20)),
    ...     queue_length=2,
    ... )
    >>> decision = map_pgs(snap)
    >>> [(a.job, a.resource) for a in decision.assignments]
    [(9, 0), (1, 0), (2, 1)]

    Phase 1: job 9 (70 s) is the first job shorter than resource 0's 100 s.
    Phase 2: job 1 (25 s) can go to resource 0 (100 - 70 = 30 s left) or to
    resource 1 (50 - 20 = 30 s left); the tie goes to resource 0, which is
    then full. Job 2 (20 s) goes to resource 1.
    """
    _check_rule(first_job_for)
    now = snapshot.now
    views = snapshot.resources
    until = [view.available_until(now) for view in views]
    ends = [view.expected_end(now) for view in views]
    # The terms each end is summed from, for exact comparisons of tl.
    terms = [_end_terms(view, now) for view in views]
    free = [snapshot.queue_length - view.held for view in views]
    priority = snapshot.priority
    jobs = priority + snapshot.regular
    taken = bytearray(len(jobs))
    assignments: list[Assignment] = []

    def assign(position: int, index: int) -> None:
        taken[position] = 1
        ends[index] += jobs[position].estimate
        terms[index].append(jobs[position].estimate)
        free[index] -= 1
        assignments.append(Assignment(jobs[position].id, views[index].resource))

    # Phase 1 (resource oriented): a first job for each resource with nothing to do.
    for index, view in enumerate(views):
        waiting = not view.queued and (first_job_for == "empty-queue" or view.running is None)
        if not waiting or free[index] <= 0:
            continue
        for position, job in enumerate(jobs):
            if not taken[position] and ends[index] + job.estimate < until[index]:
                assign(position, index)
                break

    # Phase 2 (job oriented): best fit by the smallest tl strictly above the estimate.
    deferred: list[int] = []
    open_ = [i for i in range(len(views)) if free[i] > 0]
    # The largest tl, rounded: a job longer than it fits nowhere (rounding is monotone).
    most = max((until[i] - ends[i] for i in open_), default=0)
    boundary = len(priority)
    estimates = [job.estimate for job in jobs]
    for position, estimate in enumerate(estimates):
        if not open_:
            break
        if taken[position]:
            continue
        best = -1
        if estimate <= most:
            for i in open_:
                if ends[i] + estimate < until[i] and (
                    best < 0 or _less_left(i, best, until, ends, terms)
                ):
                    best = i
        if best < 0:
            if position >= boundary:
                deferred.append(position)
            continue
        assign(position, best)
        if free[best] <= 0:
            open_.remove(best)
        most = max((until[i] - ends[i] for i in open_), default=0)
    return MappingDecision(tuple(assignments), tuple(jobs[p].id for p in deferred))


def _end_terms(view: ResourceView, now: Time) -> list[Time]:
    """The times and estimates `view.expected_end(now)` sums, in order."""
    running = view.running
    first = [now] if running is None else [view.started, running.estimate]
    return first + [job.estimate for job in view.queued]


_ROUNDING = 1e-9
"""Relative gap above which two rounded tl decide by themselves: far above the rounding
of an end summed from a few hundred terms (each addition errs by at most 2**-53 of the
running sum)."""


def _less_left(
    i: int, j: int, until: list[Time], ends: list[Time], terms: list[list[Time]]
) -> bool:
    """Whether resource `i` has strictly less time left than `j`, exactly.

    The float $tl$ `until - end` carries the rounding of the sum `end`; where the two
    differ by more than that can explain, they decide, and otherwise the exact $tl$,
    `until` minus the exact sum of the terms, are compared as fractions.
    """
    left_i, left_j = until[i] - ends[i], until[j] - ends[j]
    scale = abs(until[i]) + abs(until[j]) + abs(ends[i]) + abs(ends[j])
    if abs(left_i - left_j) > _ROUNDING * (1 + scale):
        return left_i < left_j
    return _exact_room(until[i], terms[i]) < _exact_room(until[j], terms[j])


def _exact_room(until: Time, terms: list[Time]) -> Fraction | float:
    """$tl$ = `until` minus the exact sum of `terms` (infinite for a resource never down)."""
    if math.isinf(until):
        return until
    return Fraction(until) - sum((Fraction(t) for t in terms), Fraction(0))


def map_fcfs(snapshot: SchedulerSnapshot) -> MappingDecision:
    """The standard CoBRA scheduler: first come, first serve (Verboven et al. 2008 §3.1).

    "The only requirement for a job to be scheduled on a resource is that
    the resource queue is not full. [...] Each job is taken from the queue
    and submitted to the first resource that has less jobs than the maximum
    configured queue length." Jobs are taken in order (priority queue, then
    regular queue) and each goes to the first resource, in snapshot order,
    holding fewer than `queue_length` jobs; the mapping stops when every
    queue is full. Runtimes and uptimes are ignored.

    Parameters
    ----------
    snapshot
        What the scheduler knows now (only the queue occupancy is used).

    Returns
    -------
    MappingDecision
        The assignments; nothing is ever deferred.

    Notes
    -----
    Failed jobs go back to the *front* of the queue ("When a resource fails
    and jobs are rescheduled they are added to the front of the queue"); the
    engine model does that by prepending them to the priority queue.

    Complexity: $O(J + R)$.

    References
    ----------
    Verboven et al. (2008) §3.1.

    Examples
    --------
    >>> snap = SchedulerSnapshot(0, (ResourceView(0, 10), ResourceView(1, 900)),
    ...                          regular=(PendingJob(1, 60), PendingJob(2, 60)), queue_length=1)
    >>> [(a.job, a.resource) for a in map_fcfs(snap).assignments]
    [(1, 0), (2, 1)]
    """
    views = snapshot.resources
    free = [snapshot.queue_length - view.held for view in views]
    assignments: list[Assignment] = []
    index = 0
    for job in snapshot.priority + snapshot.regular:
        while index < len(views) and free[index] <= 0:
            index += 1
        if index == len(views):
            break
        free[index] -= 1
        assignments.append(Assignment(job.id, views[index].resource))
    return MappingDecision(tuple(assignments))


def unschedulable_reason(estimate: Time, longest_uptime: Time) -> str | None:
    """Why a job can never be mapped by PGS, or `None` if it can.

    PGS assigns a job only where its estimate is strictly less than $tl$,
    and $tl$ never exceeds the planned uptime of a period, so a job whose
    estimate is at least the longest planned uptime of every resource can
    never be assigned.

    Parameters
    ----------
    estimate
        The job's estimated runtime.
    longest_uptime
        The longest planned uptime of any resource (over its whole pattern).

    Returns
    -------
    str or None
        The reason, for the `UNSCHEDULABLE` event, or `None`.

    Notes
    -----
    Unschedulable iff $et_J \\ge \\max_R \\max_k u_{R,k}$. Complexity $O(1)$.

    References
    ----------
    Verboven et al. (2008) §2.3 ("runtime J < uptime R").

    Examples
    --------
    >>> unschedulable_reason(900, 864)
    'estimated runtime 900 s is not shorter than the longest planned uptime of any resource (864 s)'
    >>> unschedulable_reason(240, 864) is None
    True
    """
    if estimate < longest_uptime:
        return None
    return (
        f"estimated runtime {estimate} s is not shorter than the longest planned uptime "
        f"of any resource ({longest_uptime} s)"
    )
