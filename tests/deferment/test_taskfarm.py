"""The task-farm engine model: event-driven speeds, replication, horizon, bad decisions."""

from __future__ import annotations

import math

import pytest
from hypothesis import given

from schedlib.deferment.desktopgrid import (
    MarkovSpeedHistory,
    Processor,
    SpeedHistory,
    TaskJob,
    finish_time,
)
from schedlib.deferment.farm import TaskFarm, run_grid
from schedlib.deferment.selection import (
    Allocation,
    GridView,
    Selection,
    fifo,
    round_robin,
)
from schedlib.engine import simulate
from schedlib.errors import InvalidDecisionError, InvalidValueError, SimulationStuckError
from schedlib.model import EventKind, FinalState
from schedlib.testing.invariants import (
    check_capacity,
    check_every_job_accounted,
    check_lifecycle,
    check_replicas_cancelled,
    check_tasks_complete_once,
)
from schedlib.testing.strategies import speed_histories, task_jobs


def constant(speed: float) -> Processor:
    return Processor(speed, SpeedHistory.constant(speed))


def kinds(record: object) -> list[tuple[float, int, str, int | None, tuple[int, ...]]]:
    return [(e.time, e.job, e.kind.value, e.task, e.place) for e in record.events]  # type: ignore[attr-defined]


def test_completion_is_retimed_at_each_speed_change() -> None:
    cpu = Processor(2, SpeedHistory((0, 3, 5), (2, 0, 1)))
    model = TaskFarm((cpu,), fifo())
    state, events = model.initial([TaskJob(1, 0, (10,))])
    trace = simulate(model, state, events)
    # 6 instructions by t=3, stalled over [3, 5), 4 more at speed 1: done at t=9
    assert trace.log[-1].time == 9 == finish_time(cpu.speed, 0, 10)
    # arrival, pass, speed change at 3, speed change at 5, completion (the pass after
    # the last completion is not needed: the run is done)
    assert trace.events == 5


def test_idle_processors_cost_no_events() -> None:
    """A processor's speed changes are visited only while it runs a task."""
    grid = [Processor(10_000, MarkovSpeedHistory(10_000, seed=s)) for s in range(4)]
    model = TaskFarm(grid, fifo())
    state, events = model.initial([TaskJob(1, 10_000_000, (20_000,))])
    trace = simulate(model, state, events)
    assert trace.events < 10  # ten million idle time units: ~20,000 speed changes skipped


def test_completion_exactly_at_a_speed_change_completes() -> None:
    cpu = Processor(2, SpeedHistory((0, 2), (2, 0)))  # dies for ever at t=2
    record = run_grid([TaskJob(1, 0, (4,))], [cpu], fifo())
    assert record.outcomes[0].end == 2


def test_a_task_stuck_on_a_dead_processor_is_reported() -> None:
    dead = Processor(1, SpeedHistory((0, 1), (1, 0)))
    with pytest.raises(SimulationStuckError, match="1 unfinished job"):
        run_grid([TaskJob(7, 0, (5,))], [dead], fifo())


def test_replication_rescues_a_task_on_a_dead_processor() -> None:
    dead = Processor(4, SpeedHistory((0, 1), (4, 0)))
    grid = [dead, constant(1)]
    record = run_grid([TaskJob(1, 0, (8, 2))], grid, round_robin())
    assert record.outcomes[0].end == 10  # task 1 at t=2 on processor 1, then task 0 replica
    log = kinds(record)
    assert (2, 1, "start", 0, (1,)) in log
    assert (10, 1, "cancel", 0, (0,)) in log
    assert [e.detail for e in record.events if e.kind is EventKind.START] == ["", "", "replica"]
    check_replicas_cancelled(record)
    check_tasks_complete_once(record)


def test_instances_finishing_together_complete_the_task_once() -> None:
    # task 0 runs on cpu 0 from t=0 with a stall over [1, 2); its replica starts on cpu 1
    # at t=1: both reach 3 instructions at t=4. The engine handles the completion
    # scheduled first (the replica's, scheduled at t=1) first; the original is cancelled.
    stall = Processor(1, SpeedHistory((0, 1, 2), (1, 0, 1)))
    record = run_grid([TaskJob(1, 0, (3, 1))], [stall, constant(1)], fifo())
    ends = [(e.time, e.kind.value, e.place) for e in record.events if e.task == 0]
    assert ends[-2:] == [(4, "complete", (1,)), (4, "cancel", (0,))]
    check_tasks_complete_once(record)
    check_replicas_cancelled(record)


def test_horizon_abandons_unfinished_jobs() -> None:
    dead = Processor(1, SpeedHistory((0, 1), (1, 0)))
    jobs = [TaskJob(1, 0, (5,)), TaskJob(2, 2, (1,))]
    record = run_grid(jobs, [dead, constant(1)], fifo(replication=False), horizon=10)
    states = {o.job: (o.state, o.end) for o in record.outcomes}
    assert states == {1: (FinalState.FAILED, 10), 2: (FinalState.COMPLETED, 3)}
    check_every_job_accounted(record)
    check_lifecycle(record)
    with pytest.raises(InvalidValueError, match="horizon"):
        run_grid(jobs, [dead], fifo(), horizon=1)


class Rogue:
    """A user scheduler returning a fixed (bad) decision."""

    def __init__(self, *allocations: Allocation) -> None:
        self.allocations = allocations

    def __call__(self, view: GridView) -> Selection:
        return Selection(self.allocations)


@pytest.mark.parametrize(
    ("allocations", "reason"),
    [
        ((Allocation(0, 1, 0), Allocation(0, 1, 1)), "processor 0 is not idle"),
        ((Allocation(5, 1, 0),), "processor 5 is not idle"),
        ((Allocation(0, 9, 0),), "job 9 is not a submitted unfinished job"),
        ((Allocation(0, 1, 1),), r"job 1 can only get its next unallocated task \(0\)"),
    ],
)
def test_bad_decisions_are_refused(allocations: tuple[Allocation, ...], reason: str) -> None:
    with pytest.raises(InvalidDecisionError, match=reason) as error:
        run_grid([TaskJob(1, 0, (1, 1))], [constant(1), constant(1)], Rogue(*allocations))
    assert error.value.policy == "Rogue"
    assert str(error.value).startswith("decision of Rogue at t=0")


def test_run_grid_validates_its_inputs() -> None:
    with pytest.raises(InvalidValueError, match="appears twice"):
        run_grid([TaskJob(1, 0, (1,)), TaskJob(1, 1, (1,))], [constant(1)], fifo())
    with pytest.raises(InvalidValueError, match="at least one processor"):
        run_grid([TaskJob(1, 0, (1,))], [], fifo())


def test_the_scheduler_only_ever_gets_a_view() -> None:
    seen: list[object] = []

    def spy(view: GridView) -> Selection:
        seen.append(view)
        return fifo()(view)

    run_grid([TaskJob(1, 0, (3, 3)), TaskJob(2, 1, (2,))], [constant(1), constant(2)], spy)
    assert seen and all(type(v) is GridView for v in seen)


@given(jobs=task_jobs(max_jobs=3), history=speed_histories())
def test_one_processor_matches_the_brute_force_finish_times(
    jobs: tuple[TaskJob, ...], history: SpeedHistory
) -> None:
    """Differential: on one processor, FIFO runs the tasks back to back; each completion
    is the brute-force finish time from the previous one, exactly."""
    cpu = Processor(history.max_speed or 1, history)
    record = run_grid(jobs, [cpu], fifo())
    time = 0.0
    for job in sorted(jobs, key=lambda j: (j.submit, j.id)):
        for size in job.tasks:
            time = finish_time(history, max(time, job.submit), size)
        outcome = record.outcome_map()[job.id]
        assert outcome.end == time
    check_capacity(record)
    assert not math.isinf(time)


def test_a_task_ending_exactly_at_a_speed_change_completes_there() -> None:
    """Regression (issue 25, float audit S3): $t + w / s = e$ in floats while
    $w > s (e - t)$; the task finishes in its piece (the paper's $t + w/s \\le e$), it
    does not stall through the zero-speed piece with a rounding residue."""
    now, until, speed, work = 95603.0, 104762.39, 2.52, 23081.662800000002
    assert now + work / speed == until and work > speed * (until - now)
    history = SpeedHistory((0, until, 200000.0), (speed, 0, speed))
    record = run_grid([TaskJob(1, now, (work,))], [Processor(speed, history)], fifo(bound=2))
    assert record.outcome_map()[1].end == until
    assert finish_time(history, now, work) == until
