"""A bag of independent jobs on grid resources that go down and come back.

The engine model of Verboven et al. (2008; Verboven et al., "Dynamic Grid Scheduling Using
Job Runtime Requirements and Variable Resource Availability"): homogeneous
resources with planned availability
([`schedlib.availability.patterns`][schedlib.availability.patterns]), a scheduler that maps
waiting jobs onto the resources' local queues with a mapping function
([`schedlib.availability.mapping`][schedlib.availability.mapping]: PGS or the CoBRA FCFS baseline),
and resources that run the jobs of their queue one at a time.

What happens, in engine phases (see the Background page):

- `ARRIVAL`: a job is submitted (`SUBMIT`) and joins the regular queue, or,
  under a policy that screens jobs (PGS), ends `UNSCHEDULABLE` at once when
  its estimate is not shorter than the longest planned uptime of any resource.
- `PASS`: the policy maps waiting jobs (`ASSIGN` to a resource's queue); an
  idle resource starts the first job of its queue at once (`START`).
- `COMPLETION`: the job ends (`COMPLETE`) and the resource starts the next
  job of its queue — unless the resource goes down at that very instant:
  the job then stays queued and returns to the scheduler with the queue
  (`RETURN`), instead of "failing" after 0 s of work.
- `FAILURE`: a resource goes down. Its running job fails and loses its work
  (`FAIL`); its queued jobs go back to the scheduler (`RETURN`); both join the
  priority queue — at its end under PGS (Verboven et al. 2008 §3.2), at its front under
  FCFS (§3.1). A job that has failed `max_failures` times is given up
  (`ABANDON`, with the reason), so no policy can livelock on a job that
  never fits.
- `RECOVERY`: the resource comes back after its downtime plus a restart
  delay, for the next planned uptime, counted from now. At time 0 every
  resource is up, since `-phase` (its starting phase, 0 by default).
- `TIMER`: a [`RuntimeUpdate`][schedlib.availability.jobs.RuntimeUpdate] revises
  a job's estimate after submission (the optional interface of §2.1).

The run ends as soon as every job has ended, although availability cycles
are endless.

Examples
--------
Two jobs of 50 s on a resource up for 84 s at a time (down 1 s) and one
that is up for 30 s at a time:

>>> from schedlib.availability.patterns import AvailabilityPattern, ResourceAvailability
>>> resources = [ResourceAvailability(AvailabilityPattern.repeating(30, 1)),
...              ResourceAvailability(AvailabilityPattern.repeating(84, 1))]
>>> jobs = [BagJob(1, 0, 50), BagJob(2, 0, 50)]
>>> pgs = simulate_volatile_grid(jobs, resources, policy="pgs")
>>> pgs.makespan, pgs.failures
(135, 0)
>>> fcfs = simulate_volatile_grid(jobs, resources, policy="fcfs")
>>> fcfs.makespan, fcfs.failures, fcfs.wasted_work
(142, 3, 42)

PGS runs job 1 at once on the long resource, and job 2 there when it
comes back at 85 s. FCFS puts both jobs in the short resource's queue: job 1
fails at 30 s, both move to the long resource, where job 2 starts at 80 s
and fails at 84 s, fails again on the short one at 92 s, and completes at
142 s.
"""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Iterable, Sequence
from types import MappingProxyType
from typing import Literal

import attrs

from schedlib.availability.jobs import BagJob, RuntimeUpdate
from schedlib.availability.mapping import (
    PendingJob,
)
from schedlib.availability.patterns import ResourceAvailability, UpPeriod
from schedlib.availability.policies import MappingPolicy, resolve_policy
from schedlib.availability.scheduling_pass import run_pass
from schedlib.availability.state import ResourceState, VolatileGridState, replace_at
from schedlib.engine import Event, Phase, Step, default_budget, default_window, simulate
from schedlib.errors import InvalidValueError
from schedlib.model import EventKind, JobEvent, JobId, RunRecord, Time
from schedlib.results.metrics import makespan
from schedlib.validation import require

__all__ = [
    "DEFAULT_MAX_FAILURES",
    "DEFAULT_QUEUE_LENGTH",
    "ResourceOrder",
    "VolatileGridModel",
    "VolatileGridRun",
    "simulate_volatile_grid",
    "wasted_work",
]

ResourceOrder = Literal["rejoined", "index"]
"""Order of the available resources in each snapshot (see `VolatileGridModel`)."""

DEFAULT_QUEUE_LENGTH = 2
"""Jobs a resource holds at once by default: one running, one queued."""

DEFAULT_MAX_FAILURES = 100
"""Failures after which a job is abandoned, by default."""


_ARRIVE, _DONE, _DOWN, _UP, _UPDATE = "arrive", "done", "down", "up", "update"


class VolatileGridModel:
    """The engine model (see the module docstring); plugs into `schedlib.engine.simulate`.

    Parameters
    ----------
    jobs
        The workload, ids unique.
    resources
        One [`ResourceAvailability`][schedlib.availability.patterns.ResourceAvailability]
        per resource; resource $i$ is `place=(i,)` in the log.
    policy
        A [`MappingPolicy`][schedlib.availability.policies.MappingPolicy] or the name of a
        built-in one (`"pgs"`, `"pgs-empty-queue"`, `"fcfs"`).
    queue_length
        Jobs a resource holds at once, its running job included (`>= 1`).
    seed
        Seed of the random restart delays: the delay after cycle $k$ of
        resource $r$ is drawn from `random.Random(f"{seed}:{r}:{k}")`, so it
        does not depend on what else happens.
    max_failures
        A job that fails this many times is abandoned (`>= 1`).
    updates
        Runtime updates (§2.1), any order.
    resource_order
        The order of the available resources in each snapshot, which decides
        FCFS's "first resource" and every tie: `"rejoined"` (default) lists
        them by the time they last became available, then by index — a
        resource that comes back joins the end of the list, as a container
        moved back from the "previously available" list (Verboven et al. 2008 §3.2);
        `"index"` lists them by index. Under `"index"`, FCFS sends a job that
        fails on a short resource back to the first short resource that is
        up, again and again; only `max_failures` ends that.

    Raises
    ------
    InvalidValueError
        For duplicate job ids, no resource, an unknown policy, bad bounds, or
        an update for an unknown job or before its submission.
    """

    def __init__(
        self,
        jobs: Iterable[BagJob],
        resources: Sequence[ResourceAvailability],
        *,
        policy: MappingPolicy | str = "pgs",
        queue_length: int = DEFAULT_QUEUE_LENGTH,
        seed: int = 0,
        max_failures: int = DEFAULT_MAX_FAILURES,
        updates: Iterable[RuntimeUpdate] = (),
        resource_order: ResourceOrder = "rejoined",
    ) -> None:
        if resource_order not in ("rejoined", "index"):
            raise InvalidValueError(
                "resource_order", resource_order, "must be 'rejoined' or 'index'"
            )
        self.resource_order = resource_order
        self.jobs: tuple[BagJob, ...] = tuple(jobs)
        self.resources: tuple[ResourceAvailability, ...] = tuple(resources)
        if not self.resources:
            raise InvalidValueError("resources", self.resources, "needs at least one resource")
        self.policy = resolve_policy(policy)
        self.queue_length = require(queue_length, "queue_length", at_least=1)
        self.max_failures = require(max_failures, "max_failures", at_least=1)
        self.seed = seed
        self._runtime: dict[JobId, Time] = {}
        for job in self.jobs:
            if job.id in self._runtime:
                raise InvalidValueError("jobs", job.id, "job id appears twice")
            self._runtime[job.id] = job.runtime
        submit = {job.id: job.submit for job in self.jobs}
        self.updates: tuple[RuntimeUpdate, ...] = tuple(updates)
        for update in self.updates:
            if update.job not in submit:
                raise InvalidValueError("RuntimeUpdate.job", update.job, "no such job")
            if update.time < submit[update.job]:
                raise InvalidValueError(
                    "RuntimeUpdate.time",
                    update.time,
                    f"is before job {update.job}'s submission at {submit[update.job]}",
                )
        self.longest_uptime: Time = max(r.planned.longest_uptime for r in self.resources)

    # -- set-up -------------------------------------------------------------------------

    def initial_state(self) -> VolatileGridState:
        """Every resource up at time 0 in cycle 0, up since `-phase`; no job yet.

        A resource whose plan is wrong may still be up at time 0 although its planned
        first uptime is shorter than its phase: its planned down time is then in the
        past, and is kept at 0 (the scheduler's remaining uptime is 0 either way, since
        $ru = \\max(0, pd - t)$).
        """
        resources = tuple(
            ResourceState(True, 0, -r.phase, max(r.planned.next_down(-r.phase, 0), 0), None, 0, ())
            for r in self.resources
        )
        return VolatileGridState(resources, (), (), MappingProxyType({}), frozenset(), ())

    def initial_events(self) -> list[Event]:
        """Arrivals (by submission time, then job id), first failures, runtime updates."""
        events = [
            Event(job.submit, Phase.ARRIVAL, (_ARRIVE, job))
            for job in sorted(self.jobs, key=lambda j: (j.submit, j.id))
        ]
        for index, r in enumerate(self.initial_state().resources):
            down = self.goes_down_at(index, r)
            if math.isfinite(down):
                events.append(Event(down, Phase.FAILURE, (_DOWN, index)))
        events.extend(
            Event(u.time, Phase.TIMER, (_UPDATE, u))
            for u in sorted(self.updates, key=lambda u: (u.time, u.job))
        )
        return events

    def run(self, *, max_events: int | None = None) -> VolatileGridRun:
        """Simulate from the initial state with [`simulate`][schedlib.engine.simulate].

        Parameters
        ----------
        max_events
            Optional budget of engine events.

        Returns
        -------
        VolatileGridRun
            The record, the up periods, the end time and the event count.

        Raises
        ------
        SimulationStuckError
            If the event budget is spent.
        """
        trace = simulate(self, self.initial_state(), self.initial_events(), max_events=max_events)
        state = trace.state
        still_up = [
            UpPeriod(index, r.cycle, r.up_since, r.planned_down, math.inf)
            for index, r in enumerate(state.resources)
            if r.up
        ]
        periods = sorted((*state.periods, *still_up), key=lambda p: (p.resource, p.start))
        record = RunRecord.from_log(
            self.policy.name,
            self.jobs,
            trace.log,
            capacity=len(self.resources),
            parameters={
                "queue_length": self.queue_length,
                "max_failures": self.max_failures,
                "longest_uptime": self.longest_uptime,
                "updates": len(self.updates),
                "resource_order": self.resource_order,
            },
            seed=self.seed,
        )
        return VolatileGridRun(record, tuple(periods), trace.end, trace.events)

    # -- the Model protocol ---------------------------------------------------------------

    def is_done(self, state: VolatileGridState) -> bool:
        """Whether every job has ended."""
        return len(state.finished) == len(self.jobs)

    def unfinished(self, state: VolatileGridState) -> Collection[JobId]:
        """Ids of the jobs that have not ended."""
        return [job.id for job in self.jobs if job.id not in state.finished]

    def event_budget(self, state: VolatileGridState) -> int:
        """The progress guard's event budget: the default budget times the resources.

        Availability cycles never end, so a run's events grow with its length
        times the number of resources $R$: the budget is $R$ times the default
        for $n$ jobs and $R$ resources. The livelock rule (on the work left)
        and `max_failures` (no job fails for ever) bound the run first.
        Complexity: $O(1)$.
        """
        count = len(self.resources)
        return default_budget(len(self.jobs) + count) * max(1, count)

    def livelock_window(self, state: VolatileGridState) -> int:
        """The livelock window: the default window times the resources.

        A job may wait for a resource whose next up period is long enough
        while every other resource goes down and comes back many times;
        $R$ times the default window leaves each resource that many cycles.
        Complexity: $O(1)$.
        """
        count = len(self.resources)
        return default_window(len(self.jobs) + count) * max(1, count)

    def remaining_work(self, state: VolatileGridState, now: Time) -> float:
        """Seconds of work left at `now` (the engine's livelock measure).

        The runtimes of the jobs not ended, minus what each running job has
        done since it started (work lost by a failure comes back). A policy
        that leaves every job waiting while the resources cycle keeps it
        constant. Complexity: $O(n + R)$.
        """
        left = sum(self._runtime[j.id] for j in self.jobs if j.id not in state.finished)
        return left - sum(now - r.started for r in state.resources if r.running is not None)

    def on_event(self, state: VolatileGridState, event: Event) -> Step[VolatileGridState]:
        """Handle an arrival, completion, failure, recovery or runtime update."""
        kind = event.payload[0]
        if kind == _DONE:
            return self._complete(state, event.time, event.payload[1])
        if kind == _ARRIVE:
            return self._arrive(state, event.time, event.payload[1])
        if kind == _DOWN:
            return self._down(state, event.time, event.payload[1])
        if kind == _UP:
            return self._up(state, event.time, event.payload[1])
        return self._update(state, event.time, event.payload[1])

    def on_pass(self, state: VolatileGridState, now: Time) -> Step[VolatileGridState]:
        """Run the [scheduling pass][schedlib.availability.scheduling_pass.run_pass]."""
        return run_pass(self, state, now)

    # -- transitions ----------------------------------------------------------------------

    def _arrive(self, state: VolatileGridState, now: Time, job: BagJob) -> Step[VolatileGridState]:
        log = [JobEvent(now, job.id, EventKind.SUBMIT)]
        reason = self._screen(job.estimate)
        if reason is not None:
            log.append(JobEvent(now, job.id, EventKind.UNSCHEDULABLE, detail=reason))
            return Step(attrs.evolve(state, finished=state.finished | {job.id}), log=log)
        pending = PendingJob(job.id, job.estimate)
        return Step(attrs.evolve(state, regular=(*state.regular, pending)), log=log, wake=True)

    def listed(self, resources: tuple[ResourceState, ...]) -> list[tuple[int, ResourceState]]:
        """The available resources with their indices, in this model's `resource_order`."""
        up = [(index, r) for index, r in enumerate(resources) if r.up]
        if self.resource_order == "rejoined":
            up.sort(key=lambda item: (item[1].up_since, item[0]))
        return up

    def _screen(self, estimate: Time) -> str | None:
        screen = self.policy.screen
        return None if screen is None else screen(estimate, self.longest_uptime)

    def goes_down_at(self, index: int, r: ResourceState) -> Time:
        """When resource `index`, in state `r`, actually goes down (infinite: never).

        The actual uptime of its current cycle counted from when it came up,
        $t_{\\text{up}} + u^{\\text{actual}}_k$: the model (not the scheduler) knows
        it. The `FAILURE` event is scheduled at this very value, so a completion
        handler can compare its time with it exactly (the same sum of the same
        numbers, never a float computed two ways). Complexity: $O(1)$.
        """
        return r.up_since + self.resources[index].truth.uptime(r.cycle)

    def start_next(
        self, r: ResourceState, index: int, now: Time
    ) -> tuple[ResourceState, JobEvent, Event]:
        """Start the first job of `r`'s queue at `now`: the resource, its log entry, its end."""
        job = r.queued[0]
        resource = ResourceState(r.up, r.cycle, r.up_since, r.planned_down, job, now, r.queued[1:])
        done = Event(
            now + self._runtime[job.id],
            Phase.COMPLETION,
            (_DONE, index, job.id),
            key=(_DONE, index),
        )
        return resource, JobEvent(now, job.id, EventKind.START, (index,)), done

    def _complete(self, state: VolatileGridState, now: Time, index: int) -> Step[VolatileGridState]:
        r = state.resources[index]
        job = r.running
        assert job is not None  # a completion is cancelled when its resource goes down
        log = [JobEvent(now, job.id, EventKind.COMPLETE, (index,))]
        events = []
        freed = ResourceState(r.up, r.cycle, r.up_since, r.planned_down, None, 0, r.queued)
        if freed.queued and self.goes_down_at(index, r) != now:
            freed, started, done = self.start_next(freed, index, now)
            log.append(started)
            events.append(done)
        resources = replace_at(state.resources, index, freed)
        new = attrs.evolve(state, resources=resources, finished=state.finished | {job.id})
        return Step(new, events=events, log=log, wake=bool(new.priority or new.regular))

    def _down(self, state: VolatileGridState, now: Time, index: int) -> Step[VolatileGridState]:
        r = state.resources[index]
        spec = self.resources[index]
        period = UpPeriod(index, r.cycle, r.up_since, r.planned_down, now)
        log: list[JobEvent] = []
        back: list[PendingJob] = []
        failures = state.failures
        finished = state.finished
        if r.running is not None:
            job = r.running
            log.append(JobEvent(now, job.id, EventKind.FAIL, (index,)))
            count = failures.get(job.id, 0) + 1
            failures = MappingProxyType({**failures, job.id: count})
            if count >= self.max_failures:
                reason = (
                    f"failed {count} times (max_failures = {self.max_failures}); "
                    f"last on resource {index} at t={now}"
                )
                log.append(JobEvent(now, job.id, EventKind.ABANDON, detail=reason))
                finished = finished | {job.id}
            else:
                back.append(job)
        for job in r.queued:
            log.append(JobEvent(now, job.id, EventKind.RETURN, (index,)))
            back.append(job)
        if self.policy.requeue == "front":
            priority = (*back, *state.priority)
        else:
            priority = (*state.priority, *back)
        delay = spec.restart.draw(
            random.Random(f"{self.seed}:{index}:{r.cycle}") if spec.restart.is_random else None
        )
        back_up = Event(now + spec.truth.downtime(r.cycle) + delay, Phase.RECOVERY, (_UP, index))
        down = ResourceState(False, r.cycle, r.up_since, r.planned_down, None, 0, ())
        new = VolatileGridState(
            replace_at(state.resources, index, down),
            priority,
            state.regular,
            failures,
            finished,
            (*state.periods, period),
        )
        return Step(new, events=(back_up,), cancel=((_DONE, index),), log=log, wake=bool(back))

    def _up(self, state: VolatileGridState, now: Time, index: int) -> Step[VolatileGridState]:
        r = state.resources[index]
        spec = self.resources[index]
        cycle = r.cycle + 1
        up = ResourceState(True, cycle, now, spec.planned.next_down(now, cycle), None, 0, ())
        events = []
        down = self.goes_down_at(index, up)
        if math.isfinite(down):
            events.append(Event(down, Phase.FAILURE, (_DOWN, index)))
        new = attrs.evolve(state, resources=replace_at(state.resources, index, up))
        return Step(new, events=events, wake=bool(state.priority or state.regular))

    def _update(
        self, state: VolatileGridState, now: Time, update: RuntimeUpdate
    ) -> Step[VolatileGridState]:
        if update.job in state.finished:
            return Step(state)
        revised = PendingJob(update.job, update.estimate)

        def swap(jobs: tuple[PendingJob, ...]) -> tuple[PendingJob, ...]:
            return tuple(revised if j.id == update.job else j for j in jobs)

        waiting = any(j.id == update.job for j in (*state.priority, *state.regular))
        if waiting:
            reason = self._screen(update.estimate)
            if reason is not None:
                keep = tuple(j for j in state.priority if j.id != update.job)
                regular = tuple(j for j in state.regular if j.id != update.job)
                log = (JobEvent(now, update.job, EventKind.UNSCHEDULABLE, detail=reason),)
                new = attrs.evolve(
                    state, priority=keep, regular=regular, finished=state.finished | {update.job}
                )
                return Step(new, log=log)
            new = attrs.evolve(state, priority=swap(state.priority), regular=swap(state.regular))
            return Step(new, wake=True)
        resources = tuple(
            ResourceState(
                r.up,
                r.cycle,
                r.up_since,
                r.planned_down,
                revised if r.running is not None and r.running.id == update.job else r.running,
                r.started,
                swap(r.queued),
            )
            for r in state.resources
        )
        new = attrs.evolve(state, resources=resources)
        return Step(new, wake=bool(state.priority or state.regular))


def wasted_work(record: RunRecord) -> Time:
    """Seconds of execution lost to failures: executed time beyond what completed.

    Parameters
    ----------
    record
        A finished run whose workload items have a `runtime` (e.g. `BagJob`).

    Returns
    -------
    float
        $\\sum_j \\text{executed}_j - \\sum_{j\\ \\text{completed}} \\text{runtime}_j$.

    Examples
    --------
    >>> from schedlib.model import EventKind as K
    >>> log = [JobEvent(0, 1, K.SUBMIT), JobEvent(0, 1, K.START, (0,)),
    ...        JobEvent(30, 1, K.FAIL, (0,)), JobEvent(31, 1, K.START, (0,)),
    ...        JobEvent(81, 1, K.COMPLETE, (0,))]
    >>> wasted_work(RunRecord.from_log("x", [BagJob(1, 0, 50)], log, capacity=1))
    30
    """
    runtime = {job.id: job.runtime for job in record.workload}
    return sum(
        o.executed - (runtime[o.job] if o.state is not None and o.state.value == "completed" else 0)
        for o in record.outcomes
    )


@attrs.frozen(slots=True)
class VolatileGridRun:
    """The result of [`simulate_volatile_grid`][schedlib.availability.grid.simulate_volatile_grid].

    Attributes
    ----------
    record
        The run record (log, outcomes, parameters).
    up_periods
        Every period during which a resource was actually up, by resource
        then start; periods still open at the end have an infinite `end`.
    end
        Time of the last event handled.
    events
        Number of events handled.
    """

    record: RunRecord
    up_periods: tuple[UpPeriod, ...]
    end: Time
    events: int

    @property
    def makespan(self) -> Time:
        """Last end minus first start of the jobs that completed (the paper's total runtime)."""
        return makespan(self.record.outcomes)

    @property
    def failures(self) -> int:
        """Number of `FAIL` events (executions lost because a resource went down)."""
        return sum(o.failures for o in self.record.outcomes)

    @property
    def wasted_work(self) -> Time:
        """See [`wasted_work`][schedlib.availability.grid.wasted_work]."""
        return wasted_work(self.record)


def simulate_volatile_grid(
    jobs: Iterable[BagJob],
    resources: Sequence[ResourceAvailability],
    *,
    policy: MappingPolicy | str = "pgs",
    queue_length: int = DEFAULT_QUEUE_LENGTH,
    seed: int = 0,
    max_failures: int = DEFAULT_MAX_FAILURES,
    updates: Iterable[RuntimeUpdate] = (),
    resource_order: ResourceOrder = "rejoined",
    max_events: int | None = None,
) -> VolatileGridRun:
    """Run a bag of jobs on resources with planned availability.

    Parameters
    ----------
    jobs, resources, policy, queue_length, seed, max_failures, updates, resource_order
        See [`VolatileGridModel`][schedlib.availability.grid.VolatileGridModel].
    max_events
        Optional budget of engine events (a guard for policies of your own
        that might never place a job).

    Returns
    -------
    VolatileGridRun
        The record, the up periods, the end time and the event count.

    Raises
    ------
    InvalidValueError
        For bad inputs, or a policy decision that cannot be applied.
    SimulationStuckError
        If the event budget is spent (never for the built-in policies).

    Notes
    -----
    Complexity: $O(E \\cdot (J + R) R)$ for $E$ events, $J$ jobs and $R$
    resources (one mapping per instant with an event).

    References
    ----------
    Verboven et al. (2008) §2-§4.
    """
    model = VolatileGridModel(
        jobs,
        resources,
        policy=policy,
        queue_length=queue_length,
        seed=seed,
        max_failures=max_failures,
        updates=updates,
        resource_order=resource_order,
    )
    return model.run(max_events=max_events)
