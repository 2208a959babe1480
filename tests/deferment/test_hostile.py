"""Hostile workloads for the task farm: named regression cases.

Many jobs at one instant, processors that stall for a while and for ever, single-task
jobs of one instruction, jobs with as many tasks as processors, submissions out of order,
float sizes and sub-second submissions, duplicate ids; tasks of 0 instructions are
refused naming the field (a task farm has no requested times, so "runtime above the
request" and "estimate 0" have no counterpart, and no job is ever rejected). With deferment no job
overtakes; every task completes once; replicas are cancelled; the processors are never
double-booked.
"""

from __future__ import annotations

import time

import pytest

from schedlib.deferment import Processor, SpeedHistory, TaskJob, fifo, round_robin, run_grid
from schedlib.deferment.farm import TaskFarm
from schedlib.deferment.state import Instance
from schedlib.engine import Event, Phase, simulate
from schedlib.errors import InvalidValueError, SimulationStuckError
from schedlib.model import Time
from schedlib.testing.invariants import (
    check_capacity,
    check_every_job_accounted,
    check_lifecycle,
    check_no_overtaking,
    check_replicas_cancelled,
    check_tasks_complete_once,
)

GRID = [
    Processor(10, SpeedHistory.constant(10)),
    Processor(20, SpeedHistory(times=(0, 5, 50), speeds=(20, 0, 20))),  # stalls over [5, 50)
    Processor(40, SpeedHistory(times=(0, 3), speeds=(40, 0))),  # dies at t=3 for ever
]

CASES: dict[str, list[TaskJob]] = {
    "200 jobs at one instant": [TaskJob(i, 0, (1 + i % 5,) * (1 + i % 3)) for i in range(200)],
    "one-instruction tasks": [TaskJob(i, i % 2, (1,)) for i in range(50)],
    "sub-second submissions": [TaskJob(i, i * 0.01, (3, 7)) for i in range(60)],
    "big after small, same instant": [TaskJob(0, 0, (50,)), TaskJob(1, 0, (1, 1, 1, 1))],
    "as many tasks as processors": [TaskJob(i, i, (5, 7, 9)) for i in range(10)],
    "submitted out of order": [TaskJob(i, (7 * i) % 13, (2, 3)) for i in range(26)],
    "float sizes and times": [TaskJob(i, i * 0.37, (0.013 * (i + 1), 2.5)) for i in range(40)],
}


@pytest.mark.parametrize("bound", [None, 1, 2])
@pytest.mark.parametrize("order", [fifo, round_robin])
@pytest.mark.parametrize("name", CASES)
def test_named_hostile_cases_hold_every_invariant(name: str, order, bound: int | None) -> None:  # type: ignore[no-untyped-def]
    record = run_grid(CASES[name], GRID, order(bound))
    check_every_job_accounted(record)
    check_lifecycle(record)
    check_capacity(record)
    check_tasks_complete_once(record)
    check_replicas_cancelled(record)
    if bound is not None:
        check_no_overtaking(record)


def test_a_task_of_zero_instructions_is_refused_naming_the_field() -> None:
    with pytest.raises(InvalidValueError, match=r"TaskJob.tasks\[1\] = 0"):
        TaskJob(1, 0, (1, 0))


def test_duplicate_job_ids_are_refused() -> None:
    with pytest.raises(InvalidValueError, match="appears twice"):
        run_grid([TaskJob(1, 0, (1,)), TaskJob(1, 1, (1,))], GRID, fifo())


class ForgetfulFarm(TaskFarm):
    """BROKEN: an instance restarts from scratch at every speed change (progress is lost)."""

    def advance(
        self, processor: int, job: int, task: int, replica: bool, left: float, now: Time
    ) -> tuple[Instance, Event | None]:
        speed, until = self.processors[processor].speed.segment_at(now)
        instance = Instance(job, task, replica, 8.0, now, speed)  # every task has 8 instructions
        if speed * (until - now) >= 8.0:
            return instance, Event(now + 8.0 / speed, Phase.COMPLETION, processor, key=processor)
        return instance, Event(until, Phase.RECOVERY, processor, key=processor)


def test_a_livelocking_farm_is_stopped_by_the_guard_within_seconds() -> None:
    # Speed 1 in pieces of 5 time units: a task of 8 instructions never completes when
    # each piece starts it over. Without the guard this run never ends.
    flicker = SpeedHistory(times=tuple(range(0, 200_000, 5)), speeds=(1.0,) * 40_000)
    model = ForgetfulFarm((Processor(1, flicker),), fifo())
    state, events = model.initial([TaskJob(1, 0, (8.0,)), TaskJob(2, 1, (8.0,))])
    began = time.perf_counter()
    with pytest.raises(SimulationStuckError) as info:
        simulate(model, state, events)
    assert time.perf_counter() - began < 20
    assert info.value.rule == "livelock" and info.value.jobs == (1, 2)
    assert "remaining work did not decrease" in str(info.value)
