"""Where a volatile grid's time went, per resource: a hand-built log, and every simulated run."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlib.availability import (
    BagJob,
    UpPeriod,
    idle_by_resource,
    run_window,
    simulate_volatile_grid,
)
from schedlib.errors import InvalidValueError
from schedlib.model import EventKind as K
from schedlib.model import JobEvent, RunRecord
from schedlib.testing.strategies import volatile_grids
from schedlib.testing.strategies.availability import VolatileGrid

INF = math.inf


def _hand_built() -> tuple[RunRecord, list[UpPeriod]]:
    """Three resources over the window [0, 100].

    - resource 0 (up 0-40, down 40-42, up from 42): job 1 runs 0-30; job 4 starts at 35
      and fails at 40 when the resource goes down; job 4 again 42-47; then nothing.
    - resource 1 (always up): job 2 runs 0-60, job 3 60-100 (the last completion).
    - resource 2 (up 0-10, down 10-11, up 11-50, down 50-52, up from 52): runs nothing.
    """
    log = [
        JobEvent(0, 1, K.SUBMIT), JobEvent(0, 2, K.SUBMIT), JobEvent(0, 3, K.SUBMIT),
        JobEvent(0, 4, K.SUBMIT),
        JobEvent(0, 1, K.START, (0,)), JobEvent(0, 2, K.START, (1,)),
        JobEvent(30, 1, K.COMPLETE, (0,)), JobEvent(35, 4, K.START, (0,)),
        JobEvent(40, 4, K.FAIL, (0,)), JobEvent(42, 4, K.START, (0,)),
        JobEvent(47, 4, K.COMPLETE, (0,)), JobEvent(60, 2, K.COMPLETE, (1,)),
        JobEvent(60, 3, K.START, (1,)), JobEvent(100, 3, K.COMPLETE, (1,)),
    ]  # fmt: skip
    jobs = [BagJob(1, 0, 30), BagJob(2, 0, 60), BagJob(3, 0, 40), BagJob(4, 0, 5)]
    periods = [
        UpPeriod(0, 0, 0, 40, 40), UpPeriod(0, 1, 42, 82, 82), UpPeriod(0, 2, 83, 123, INF),
        UpPeriod(1, 0, 0, INF, INF),
        UpPeriod(2, 0, 0, 10, 10), UpPeriod(2, 1, 11, 50, 50), UpPeriod(2, 2, 52, 91, 91),
        UpPeriod(2, 3, 92, 131, INF),
    ]  # fmt: skip
    return RunRecord.from_log("hand", jobs, log, capacity=3), periods


def test_a_hand_built_log_is_split_into_busy_idle_and_down_per_resource() -> None:
    record, periods = _hand_built()
    assert run_window(record) == (0, 100)
    zero, one, two = idle_by_resource(record, periods)
    # resource 0: busy 30 + 5 (lost) + 5; down 40-42 and 82-83; idle the rest of 100
    assert (zero.busy, zero.down, zero.idle) == (40, 3, 57)
    assert (zero.last_start, zero.last_end, zero.starts) == (42, 47, 3)
    assert (one.busy, one.down, one.idle) == (100, 0, 0)
    assert (one.last_start, one.last_end, one.starts) == (60, 100, 2)
    # resource 2: down 10-11, 50-52, 91-92; never ran a job
    assert (two.busy, two.down, two.idle) == (0, 4, 96)
    assert (two.last_start, two.last_end, two.starts) == (None, None, 0)
    assert sum(r.not_running or 0 for r in (zero, one, two)) == 3 * 100 - (40 + 100)


def test_without_up_periods_the_idle_time_is_not_split() -> None:
    record, _ = _hand_built()
    split = idle_by_resource(record)
    assert [(r.busy, r.idle, r.down, r.not_running) for r in split] == [
        (40, None, None, None), (100, None, None, None), (0, None, None, None)
    ]  # fmt: skip
    assert len(idle_by_resource(record, resources=4)) == 4


def test_logs_that_say_nothing_of_a_resource_are_refused() -> None:
    jobs = [BagJob(1, 0, 5)]
    nowhere = [JobEvent(0, 1, K.START, (0, 1)), JobEvent(5, 1, K.COMPLETE, (0, 1))]
    with pytest.raises(InvalidValueError, match="names no single resource"):
        idle_by_resource(RunRecord.from_log("x", jobs, nowhere, capacity=2))
    unstarted = [JobEvent(0, 2, K.START, (0,)), JobEvent(5, 1, K.COMPLETE, (0,))]
    with pytest.raises(InvalidValueError, match="unstarted"):
        idle_by_resource(RunRecord.from_log("x", jobs, unstarted, capacity=1))
    with pytest.raises(InvalidValueError, match="no start or no end"):
        idle_by_resource(RunRecord.from_log("x", jobs, [JobEvent(0, 1, K.SUBMIT)], capacity=1))


@given(volatile_grids(max_runtime=60), st.sampled_from(["pgs", "fcfs"]), st.integers(0, 99))
def test_every_run_accounts_for_each_resource_second(
    grid: VolatileGrid, policy: str, seed: int
) -> None:
    """Busy + idle + down is the total runtime on every resource; busy is the executions."""
    jobs, resources, queue_length = grid
    run = simulate_volatile_grid(
        jobs, resources, policy=policy, queue_length=queue_length, seed=seed,
        max_failures=5, max_events=50_000,
    )  # fmt: skip
    if not any(e.kind is K.START for e in run.record.events):
        return
    start, end = run_window(run.record)
    if all(o.state is not None and o.state.value == "completed" for o in run.record.outcomes):
        assert end - start == run.makespan
    assert end - start >= run.makespan
    split = idle_by_resource(run.record, run.up_periods)
    assert len(split) == len(resources)
    for r in split:
        assert r.idle is not None and r.down is not None
        assert r.busy + r.idle + r.down == pytest.approx(end - start, abs=1e-9)
        assert r.idle >= -1e-9 and r.down >= -1e-9
    executed = sum(o.executed for o in run.record.outcomes)
    assert sum(r.busy for r in split) == pytest.approx(executed, abs=1e-9)
    assert sum(r.starts for r in split) == sum(e.kind is K.START for e in run.record.events)
