"""The scheduling pass of a volatile grid: the snapshot the mapping sees, its decision applied.

At every instant where something happened, the model
([`VolatileGridModel.on_pass`][schedlib.availability.grid.VolatileGridModel.on_pass])
runs [`run_pass`][schedlib.availability.scheduling_pass.run_pass]: it builds the
[`SchedulerSnapshot`][schedlib.availability.mapping.SchedulerSnapshot] of the
planned availability and the queues, calls the policy's pure mapping function
(PGS or FCFS, Verboven et al. 2008, §2.3 and §3.1), checks that its decision
can be applied, and applies it: jobs join the local queues of their resources
(`ASSIGN`) and an idle resource starts the first job of its queue (`START`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Protocol

import attrs

from schedlib.availability.mapping import (
    MappingDecision,
    PendingJob,
    ResourceView,
    SchedulerSnapshot,
)
from schedlib.availability.policies import MappingPolicy
from schedlib.availability.state import ResourceState, VolatileGridState
from schedlib.engine import Event, Step
from schedlib.errors import InvalidDecisionError
from schedlib.model import EventKind, JobEvent, JobId, Time

__all__ = ["GridSetting", "run_pass"]


class GridSetting(Protocol):
    """What a pass reads of its model.

    [`VolatileGridModel`][schedlib.availability.grid.VolatileGridModel] provides it.
    """

    queue_length: int
    policy: MappingPolicy

    def listed(self, resources: tuple[ResourceState, ...]) -> list[tuple[int, ResourceState]]: ...

    def start_next(
        self, r: ResourceState, index: int, now: Time
    ) -> tuple[ResourceState, JobEvent, Event]: ...


def run_pass(model: GridSetting, state: VolatileGridState, now: Time) -> Step[VolatileGridState]:
    """Build the snapshot, call the policy's mapping, apply its decision.

    The mapping is not called when no job waits or no available resource
    has a free queue slot (it could not assign anything).
    """
    if not state.priority and not state.regular:
        return Step(state)
    limit = model.queue_length
    if not any(r.up and len(r.queued) + (r.running is not None) < limit for r in state.resources):
        return Step(state)
    # Times, not the paper's differences ru and el: the mapping compares ends as written.
    views = tuple(
        ResourceView(index, r.planned_down, r.running, r.started, r.queued)
        for index, r in model.listed(state.resources)
    )
    snapshot = SchedulerSnapshot(now, views, state.priority, state.regular, model.queue_length)
    decision = model.policy.mapping(snapshot)
    if not decision.assignments and not decision.deferred:
        return Step(state)
    return _apply(model, state, now, decision)


def _apply(
    model: GridSetting, state: VolatileGridState, now: Time, decision: MappingDecision
) -> Step[VolatileGridState]:
    def invalid(reason: str) -> InvalidDecisionError:
        return InvalidDecisionError(model.policy.name, now, reason, decision)

    target: dict[JobId, int] = {}
    for a in decision.assignments:
        if a.job in target:
            raise invalid(f"it assigns job {a.job} twice")
        target[a.job] = a.resource
    deferred = set(decision.deferred)
    picked: dict[JobId, PendingJob] = {}
    priority, _ = _take(state.priority, target, (), picked)
    regular, moved = _take(state.regular, target, deferred, picked)
    if len(picked) != len(target):
        unknown = sorted(set(target) - set(picked))
        raise invalid(f"it assigns jobs {unknown}, which are not waiting")
    if len(moved) != len(deferred):
        missing = sorted(deferred - {j.id for j in moved})
        raise invalid(f"it defers jobs {missing}, which are not in the regular queue")
    resources = list(state.resources)
    log: list[JobEvent] = []
    touched: list[int] = []
    for a in decision.assignments:
        index = a.resource
        r = resources[index] if 0 <= index < len(resources) else None
        if r is None or not r.up:
            state_of = "no such resource" if r is None else "down"
            raise invalid(f"it assigns job {a.job} to resource {index}, which is {state_of}")
        if len(r.queued) + (r.running is not None) >= model.queue_length:
            raise invalid(f"it assigns job {a.job} to resource {index}, whose queue is full")
        resources[index] = ResourceState(
            r.up, r.cycle, r.up_since, r.planned_down, r.running, r.started,
            (*r.queued, picked[a.job]),
        )  # fmt: skip
        log.append(JobEvent(now, a.job, EventKind.ASSIGN, (index,)))
        if index not in touched:
            touched.append(index)
    events = []
    for index in touched:
        r = resources[index]
        if r.running is None:
            resources[index], started, done = model.start_next(r, index, now)
            log.append(started)
            events.append(done)
    new = attrs.evolve(
        state,
        resources=tuple(resources),
        priority=(*priority, *moved),
        regular=tuple(regular),
    )
    return Step(new, events=events, log=log)


def _take(
    queue: tuple[PendingJob, ...],
    target: Mapping[JobId, int],
    deferred: Collection[JobId],
    picked: dict[JobId, PendingJob],
) -> tuple[list[PendingJob], list[PendingJob]]:
    """Split `queue` into (kept, deferred), moving assigned jobs into `picked`.

    Stops scanning once every assigned and deferred job is found (FCFS takes
    from the head, so a pass costs what it assigns, not the queue's length).
    """
    need = len(target) - len(picked) + len(deferred)
    kept: list[PendingJob] = []
    moved: list[PendingJob] = []
    for position, job in enumerate(queue):
        if need == 0:
            kept.extend(queue[position:])
            break
        if job.id in target:
            picked[job.id] = job
            need -= 1
        elif job.id in deferred:
            moved.append(job)
            need -= 1
        else:
            kept.append(job)
    return kept, moved
