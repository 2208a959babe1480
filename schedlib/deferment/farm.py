"""Engine model: multi-task jobs on a desktop grid whose processor speeds vary.

Runs a task-selection [`Scheduler`][schedlib.deferment.selection.Scheduler] (FIFO, round
robin, with or without task deferment — Mine et al. (2007) §3-§4) on processors with
piecewise-constant speed histories
([`schedlib.deferment.desktopgrid`][schedlib.deferment.desktopgrid]),
through the shared engine [`simulate`][schedlib.engine.simulate].

**Events.** Jobs arrive (`ARRIVAL`). A running instance has at most one
pending event, keyed by its processor: when it starts, and at every speed
change of its processor, the model looks at the current speed piece
`[t, e)` of speed $s$ and the instructions left $w$. If $t + w/s \\le e$ (compared
as written, not as $w \\le s (e - t)$: float times) the instance completes in this
piece, at $t + w/s$ (a `COMPLETION` event);
otherwise a `RECOVERY` event at $e$ (the speed change) updates
$w \\leftarrow w - s (e - t)$ and looks again. A completion time is thus
computed once per speed piece, and re-timed by replacing the keyed event;
idle processors cost nothing, and a zero speed stretch costs one event. No
loop over time steps.

**Scheduling.** Every completion and arrival asks for a scheduling pass; the
pass hands the scheduler a [`GridView`][schedlib.deferment.selection.GridView] (jobs,
allocated and running tasks, idle processors — never speeds) and applies its
[`Selection`][schedlib.deferment.selection.Selection], checking every allocation.

**Replication.** The first instance of a task to complete completes the task;
its other instances are cancelled at that instant (Mine et al. 2007 §4) and
their processors become idle.

**Log.** `SUBMIT`; task-level `START` / `COMPLETE` / `CANCEL` with `task=` the
task index and `place=(processor,)` (`detail="replica"` on a replica's
start; `detail="completed on P"` on the cancellation of the other instances when
processor `P` completes the task); the job-level `COMPLETE` (`task=None`) when
its last task completes.

Examples
--------
Two jobs on one processor of speed 10 that stalls over `[2, 5)`:

>>> from schedlib.deferment.selection import fifo
>>> from schedlib.deferment.desktopgrid import Processor, SpeedHistory, TaskJob
>>> cpu = Processor(10, SpeedHistory(times=(0, 2, 5), speeds=(10, 0, 10)))
>>> record = run_grid([TaskJob(1, 0, (30,)), TaskJob(2, 0, (10,))], [cpu], fifo())
>>> [(e.time, e.job, e.kind.value, e.task) for e in record.events]
[(0, 1, 'submit', None), (0, 2, 'submit', None), (0, 1, 'start', 0),
 (6.0, 1, 'complete', 0), (6.0, 1, 'complete', None), (6.0, 2, 'start', 0),
 (7.0, 2, 'complete', 0), (7.0, 2, 'complete', None)]
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any

import attrs

from schedlib.deferment.desktopgrid import Processor, SpeedSource, TaskJob
from schedlib.deferment.scheduling_pass import position, run_pass
from schedlib.deferment.selection import JobProgress, Scheduler
from schedlib.deferment.state import FarmState, Instance, advance
from schedlib.engine import Event, Phase, Step, default_budget, simulate
from schedlib.errors import InvalidValueError
from schedlib.model import EventKind, JobEvent, JobId, RunRecord, Time

__all__ = ["TaskFarm", "run_grid"]

_START, _COMPLETE, _CANCEL = EventKind.START, EventKind.COMPLETE, EventKind.CANCEL
_COMPLETION, _RECOVERY, _ARRIVAL = Phase.COMPLETION, Phase.RECOVERY, Phase.ARRIVAL


def _processor_tuple(value: Iterable[Processor]) -> tuple[Processor, ...]:
    return tuple(value)


@attrs.frozen(slots=True)
class TaskFarm:
    """The engine model: processors, and the scheduler under test.

    The speed histories live here, out of the scheduler's reach: the
    scheduler only ever receives [`GridView`][schedlib.deferment.selection.GridView]s.

    Attributes
    ----------
    processors
        The grid; processor `i` is `processors[i]`.
    scheduler
        The task-selection function.
    horizon
        Optional end of the simulated window: at this instant (after the
        completions and arrivals of that instant) every running instance is
        cancelled and every unfinished job is abandoned (`ABANDON`, detail
        "not finished by the horizon"). `None`: run until every job
        completes.

    Notes
    -----
    Complexity per event: $O(P + n)$ for $P$ processors and $n$ unfinished
    jobs (plus the scheduler's cost on a pass and $O(\\log k)$ to find a speed
    piece).
    """

    processors: tuple[Processor, ...] = attrs.field(converter=_processor_tuple)
    scheduler: Scheduler
    horizon: Time | None = None
    speeds: tuple[SpeedSource, ...] = attrs.field(init=False, repr=False, eq=False)
    """The processors' speed histories (derived from `processors`)."""

    @speeds.default
    def _speed_sources(self) -> tuple[SpeedSource, ...]:
        return tuple(p.speed for p in self.processors)

    def initial(self, jobs: Iterable[TaskJob]) -> tuple[FarmState, list[Event]]:
        """The initial state and the arrival events of `jobs` (ties by id)."""
        ordered = sorted(jobs, key=lambda job: (job.submit, job.id))
        count = len(self.processors)
        state = FarmState(
            (), tuple(range(count)), None, (None,) * count, frozenset(j.id for j in ordered)
        )
        events = [Event(job.submit, _ARRIVAL, job) for job in ordered]
        if self.horizon is not None:
            last = ordered[-1].submit if ordered else 0
            if not self.horizon >= last:
                raise InvalidValueError(
                    "horizon", self.horizon, f"must be >= the last submission time {last}"
                )
            events.append(Event(self.horizon, Phase.TIMER, None))
        return state, events

    def on_event(self, state: FarmState, event: Event) -> Step[FarmState]:
        """Arrival, instance completion, or speed change of a busy processor."""
        phase = event.phase
        if phase == _COMPLETION:
            return self._complete(state, event.payload, event.time)
        if phase == _RECOVERY:
            return self._speed_change(state, event.payload, event.time)
        if phase == Phase.TIMER:
            return self._cut(state, event.time)
        job: TaskJob = event.payload
        return Step(
            FarmState(
                (*state.jobs, JobProgress(job)),
                state.idle,
                state.last_job,
                state.runs,
                state.todo,
                state.replicated,
            ),
            log=(JobEvent(event.time, job.id, EventKind.SUBMIT),),
            wake=True,
        )

    def on_pass(self, state: FarmState, now: Time) -> Step[FarmState]:
        """Run the [scheduling pass][schedlib.deferment.scheduling_pass.run_pass]."""
        return run_pass(self, state, now)

    def is_done(self, state: FarmState) -> bool:
        """Every job finished."""
        return not state.todo

    def unfinished(self, state: FarmState) -> Collection[JobId]:
        """Ids of the unfinished jobs."""
        return sorted(state.todo)

    def remaining_work(self, state: FarmState, now: Time) -> float:
        """Instructions left at `now` (the engine's livelock measure).

        Unallocated tasks count their size; a running task the least that any
        of its instances has left. Complexity: $O(T + P)$.
        """
        best: dict[tuple[JobId, int], float] = {}
        for run in state.runs:
            if run is not None:
                left = max(0.0, run.left - run.speed * (now - run.since))
                key = (run.job, run.task)
                best[key] = min(left, best.get(key, left))
        total = 0.0
        for p in state.jobs:
            total += sum(p.job.tasks[p.allocated :])
            total += sum(best.get((p.job.id, t), p.job.tasks[t]) for t in p.running)
        return total

    def advance(
        self, processor: int, job: JobId, task: int, replica: bool, left: float, now: Time
    ) -> tuple[Instance, Event | None]:
        """An instance on `processor` at `now`, and its next event.

        The model's hook for how instances execute (a subclass may change it,
        e.g. to test the checkers); see
        [`advance`][schedlib.deferment.state.advance].
        """
        return advance(self.speeds[processor], processor, job, task, replica, left, now)

    def _speed_change(self, state: FarmState, processor: int, now: Time) -> Step[FarmState]:
        instance = state.runs[processor]
        assert instance is not None, f"speed event for idle processor {processor} at t={now}"
        left = instance.left - instance.speed * (now - instance.since)
        runs = list(state.runs)
        runs[processor], event = self.advance(
            processor,
            instance.job,
            instance.task,
            instance.replica,
            left,
            now,
        )
        new = state._replace(runs=tuple(runs))
        return Step(new, events=(event,) if event is not None else ())

    def _cut(self, state: FarmState, now: Time) -> Step[FarmState]:
        log = [
            JobEvent(now, run.job, _CANCEL, (processor,), run.task, "horizon")
            for processor, run in enumerate(state.runs)
            if run is not None
        ]
        reason = f"not finished by the horizon t={now}"
        log.extend(
            JobEvent(now, job, EventKind.ABANDON, detail=reason) for job in sorted(state.todo)
        )
        count = len(state.runs)
        return Step(
            FarmState((), tuple(range(count)), state.last_job, (None,) * count, frozenset()),
            cancel=[p for p, run in enumerate(state.runs) if run is not None],
            log=log,
        )

    def _complete(self, state: FarmState, processor: int, now: Time) -> Step[FarmState]:
        instance = state.runs[processor]
        assert instance is not None, f"completion on idle processor {processor} at t={now}"
        job_id, task = instance.job, instance.task
        runs = [*state.runs[:processor], None, *state.runs[processor + 1 :]]
        log = [JobEvent(now, job_id, _COMPLETE, (processor,), task)]
        freed = [processor]
        replicated = state.replicated
        if (job_id, task) in replicated:
            replicated = replicated - {(job_id, task)}
            superseded = f"completed on {processor}"
            for other, running in enumerate(runs):
                if running is not None and running[1] == task and running[0] == job_id:
                    runs[other] = None
                    freed.append(other)
                    log.append(JobEvent(now, job_id, _CANCEL, (other,), task, superseded))
        jobs = state.jobs
        index = position(jobs, job_id)
        progress = jobs[index].complete(task)
        todo = state.todo
        if progress.finished:
            jobs = jobs[:index] + jobs[index + 1 :]
            todo = todo - {job_id}
            log.append(JobEvent(now, job_id, _COMPLETE))
        else:
            jobs = (*jobs[:index], progress, *jobs[index + 1 :])
        return Step(
            FarmState(jobs, (*state.idle, *freed), state.last_job, tuple(runs), todo, replicated),
            cancel=freed[1:],
            log=log,
            wake=True,
        )


def run_grid(
    jobs: Sequence[TaskJob],
    processors: Sequence[Processor],
    scheduler: Scheduler,
    *,
    algorithm: str | None = None,
    parameters: dict[str, Any] | None = None,
    seed: int | None = None,
    horizon: Time | None = None,
    max_events: int | None = None,
    progress: Callable[[Time, int], None] | None = None,
) -> RunRecord:
    """Simulate `jobs` on `processors` under `scheduler` and return the run record.

    Parameters
    ----------
    jobs
        The jobs (unique ids).
    processors
        The grid, at least one processor; processor `i` is `processors[i]`.
    scheduler
        A [`Scheduler`][schedlib.deferment.selection.Scheduler], e.g.
        [`fifo(bound=2)`][schedlib.deferment.selection.fifo].
    algorithm
        Name stored in the record; default: the scheduler's `name`, else its
        type name.
    parameters, seed
        Stored in the record.
    horizon
        Optional end of the simulated window (see
        [`TaskFarm`][schedlib.deferment.farm.TaskFarm]); must be `>=` every
        submission time. Jobs unfinished then end as `ABANDON`.
    max_events
        Event budget (default: [`default_budget`][schedlib.engine.loop.default_budget]
        of $T (P + 1)$ for $T$ tasks and $P$ processors: at most one instance
        of a task per processor, each started and ended once; speed changes
        of busy processors come on top, so pass a larger budget for very
        long speed histories). The engine's livelock rule, on the instructions
        left, usually stops a broken scheduler much sooner.
    progress
        Passed to [`simulate`][schedlib.engine.simulate].

    Returns
    -------
    RunRecord
        With `capacity` = the number of processors; every job completes (or,
        with a horizon, is abandoned at the horizon).

    Raises
    ------
    InvalidValueError
        For duplicate job ids, an empty grid, or an invalid allocation by
        the scheduler.
    SimulationStuckError
        When a task can never complete (it only runs on processors whose
        speed is zero for ever), naming the unfinished jobs.

    Notes
    -----
    Complexity: $O(E \\log E)$ for $E$ events: two per task instance plus one
    per speed change of a busy processor, one per arrival, and one pass per
    instant with an arrival or completion.

    References
    ----------
    Mine et al. (2007) §2 (model), §5 (simulation).

    Examples
    --------
    >>> from schedlib.deferment.selection import round_robin
    >>> from schedlib.deferment.desktopgrid import SpeedHistory
    >>> grid = [Processor(2, SpeedHistory.constant(2))] * 2
    >>> record = run_grid([TaskJob(1, 0, (4, 4, 4))], grid, round_robin())
    >>> record.outcomes[0].end, record.algorithm
    (4.0, 'round_robin')
    """
    grid = tuple(processors)
    if not grid:
        raise InvalidValueError("processors", grid, "the grid needs at least one processor")
    seen: set[JobId] = set()
    for job in jobs:
        if job.id in seen:
            raise InvalidValueError("TaskJob.id", job.id, "appears twice in the workload")
        seen.add(job.id)
    model = TaskFarm(grid, scheduler, horizon)
    state, arrivals = model.initial(jobs)
    if max_events is None:
        tasks = sum(len(job.tasks) for job in jobs)
        max_events = default_budget(tasks * (len(grid) + 1))
    trace = simulate(model, state, arrivals, max_events=max_events, progress=progress)
    name = algorithm or getattr(scheduler, "name", None) or type(scheduler).__name__
    return RunRecord.from_log(
        name, jobs, trace.log, capacity=len(grid), parameters=parameters, seed=seed
    )
