"""The task farm's scheduling pass: the scheduler's selection, checked and started.

At every instant where a job arrived or an instance completed, the model
([`TaskFarm.on_pass`][schedlib.deferment.farm.TaskFarm.on_pass]) hands the
task-selection function a [`GridView`][schedlib.deferment.selection.GridView]
(jobs, allocated and running tasks, idle processors — never speeds) and
[`run_pass`][schedlib.deferment.scheduling_pass.run_pass] checks every
allocation it returns and starts the instances (Mine et al. 2007, §3-§4).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from schedlib.deferment.selection import Allocation, GridView, JobProgress, Scheduler
from schedlib.deferment.state import FarmState, Instance
from schedlib.engine import Event, Step
from schedlib.errors import InvalidDecisionError
from schedlib.model import EventKind, JobEvent, JobId, Time

__all__ = ["FarmSetting", "run_pass"]


class FarmSetting(Protocol):
    """What a pass reads of its model.

    [`TaskFarm`][schedlib.deferment.farm.TaskFarm] provides it.
    """

    @property
    def scheduler(self) -> Scheduler: ...

    def advance(
        self, processor: int, job: JobId, task: int, replica: bool, left: float, now: Time
    ) -> tuple[Instance, Event | None]: ...


_START = EventKind.START


def run_pass(farm: FarmSetting, state: FarmState, now: Time) -> Step[FarmState]:
    """Ask the scheduler, check and start the instances it allocates.

    Parameters
    ----------
    farm
        The model: its processors and the scheduler under test.
    state
        The state at `now`.
    now
        The instant of the pass.

    Returns
    -------
    Step
        The new state, the instances' first events, `START` log entries.

    Raises
    ------
    InvalidDecisionError
        When the scheduler allocates a processor that is not idle, a job that
        is not submitted and unfinished, or a task that is neither the job's
        next unallocated task nor a running one.
    """
    idle = state.idle
    if not idle or not state.jobs:
        return Step(state)
    selection = farm.scheduler(GridView(now, state.jobs, idle, state.last_job))
    if not selection.allocations:
        if selection.last_job == state.last_job:
            return Step(state)
        return Step(state._replace(last_job=selection.last_job))
    jobs = list(state.jobs)
    runs = list(state.runs)
    used: list[int] = []
    log: list[JobEvent] = []
    events: list[Event] = []
    replicated = state.replicated
    name = getattr(farm.scheduler, "name", None) or type(farm.scheduler).__name__
    for allocation in selection.allocations:
        processor, job_id, task = allocation.processor, allocation.job, allocation.task

        def invalid(reason: str, allocation: Allocation = allocation) -> InvalidDecisionError:
            return InvalidDecisionError(name, now, f"{allocation!r}: {reason}", selection)

        if processor not in idle or processor in used:
            raise invalid(f"processor {processor} is not idle")
        index = position(jobs, job_id)
        if index < 0:
            raise invalid(f"job {job_id} is not a submitted unfinished job")
        progress = jobs[index]
        if task != progress.allocated and task not in progress.running:
            raise invalid(
                f"job {job_id} can only get its next unallocated task ({progress.allocated}) "
                f"or a replica of a running one {list(progress.running)}"
            )
        jobs[index] = progress.allocate(task)
        used.append(processor)
        replica = task < progress.allocated
        if replica:
            replicated = replicated | {(job_id, task)}
        size = float(progress.job.tasks[task])
        runs[processor], event = farm.advance(processor, job_id, task, replica, size, now)
        if event is not None:
            events.append(event)
        log.append(JobEvent(now, job_id, _START, (processor,), task, "replica" if replica else ""))
    rest = tuple(p for p in idle if p not in used) if len(used) < len(idle) else ()
    return Step(
        FarmState(tuple(jobs), rest, selection.last_job, tuple(runs), state.todo, replicated),
        events=events,
        log=log,
    )


def position(jobs: Sequence[JobProgress], job: JobId) -> int:
    """Index of `job` in `jobs`, or -1."""
    for index, progress in enumerate(jobs):
        if progress.job.id == job:
            return index
    return -1
