"""Hostile workloads for the volatile grid: named regression cases.

A thousand jobs at one instant, zero-length jobs, jobs exactly as long as the longest
uptime (never assignable by PGS: the estimate must be strictly shorter) and longer than
every uptime, underestimated runtimes, estimates of 0, submissions out of order,
sub-second times, duplicate ids, a bag whose every job is unschedulable. PGS and FCFS
hold their invariants on each.
"""

from __future__ import annotations

import time

import pytest

from schedlib.availability import (
    AvailabilityPattern,
    BagJob,
    ResourceAvailability,
    simulate_volatile_grid,
)
from schedlib.availability.mapping import MappingDecision
from schedlib.availability.policies import MappingPolicy
from schedlib.engine import default_window
from schedlib.errors import InvalidValueError, SimulationStuckError
from schedlib.model import FinalState
from schedlib.testing.invariants import (
    check_every_job_accounted,
    check_failures_handled,
    check_lifecycle,
    check_queue_order,
    check_unschedulable_reported,
    check_within_uptime,
)

RESOURCES = tuple(ResourceAvailability(AvailabilityPattern.repeating(u, 1)) for u in (30, 60, 90))
LONGEST = 90

CASES: dict[str, list[BagJob]] = {
    "1000 jobs at one instant": [BagJob(i, 0, 1 + i % 20) for i in range(1000)],
    "zero-length jobs": [BagJob(i, i % 3, 0) for i in range(40)],
    "exactly the longest uptime": [BagJob(0, 0, LONGEST), BagJob(1, 0, 10)],
    "longer than every uptime": [BagJob(0, 0, 500), BagJob(1, 0, 10)],
    "underestimated runtimes": [BagJob(i, 0, 25 + i, estimate=5) for i in range(12)],
    "sub-second times": [BagJob(i, i * 0.1, 0.35 + (i % 4) * 0.2) for i in range(200)],
    "all unschedulable": [BagJob(i, i, 100 + i) for i in range(5)],
    "estimates of 0": [BagJob(i, i % 3, 5 + i, estimate=0) for i in range(12)],
    "submitted out of order": [BagJob(i, (7 * i) % 13, 4 + i % 5) for i in range(26)],
}


@pytest.mark.parametrize("policy", ["pgs", "fcfs"])
@pytest.mark.parametrize("name", CASES)
def test_named_hostile_cases_hold_every_invariant(name: str, policy: str) -> None:
    run = simulate_volatile_grid(CASES[name], RESOURCES, policy=policy, max_failures=5)
    record = run.record
    check_every_job_accounted(record)
    check_lifecycle(record)
    check_failures_handled(record, run.up_periods, max_failures=5)
    if policy == "pgs":
        check_unschedulable_reported(record, LONGEST)
        if name not in ("underestimated runtimes", "estimates of 0"):
            check_within_uptime(record, run.up_periods)
    else:
        check_queue_order(record)
    if policy == "pgs" and name in ("exactly the longest uptime", "longer than every uptime"):
        assert record.outcomes[0].state is FinalState.UNSCHEDULABLE
        assert record.outcomes[1].state is FinalState.COMPLETED
    if policy == "pgs" and name == "all unschedulable":
        assert {o.state for o in record.outcomes} == {FinalState.UNSCHEDULABLE}


def test_duplicate_job_ids_are_refused() -> None:
    with pytest.raises(InvalidValueError, match="appears twice"):
        simulate_volatile_grid([BagJob(1, 0, 5), BagJob(1, 1, 5)], RESOURCES)


def test_a_scheduler_that_never_maps_is_stopped_by_the_guard_within_seconds() -> None:
    # Broken: the mapping always waits for a better resource. Availability cycles are
    # endless, so without the guard this run never ends; the livelock rule stops it.
    idle = MappingPolicy("never", lambda snapshot: MappingDecision(), "front", None)
    began = time.perf_counter()
    with pytest.raises(SimulationStuckError) as info:
        simulate_volatile_grid([BagJob(1, 0, 5), BagJob(2, 3, 5)], RESOURCES, policy=idle)
    assert time.perf_counter() - began < 30
    assert info.value.rule == "livelock" and info.value.jobs == (1, 2)
    assert "remaining work did not decrease" in str(info.value)


def test_a_long_legitimate_wait_among_many_cycling_resources_does_not_trip_the_guard() -> None:
    # Job 1 waits for the one resource whose up period is long enough; that resource is
    # down for 1200 s while 20 short-lived resources go down and come back every 3 s:
    # over 10,000 events without progress, more than the default livelock window. The
    # volatile grid's window grows with its resources, so this run ends normally.
    long = ResourceAvailability(AvailabilityPattern.repeating(1000, 1200))
    short = ResourceAvailability(AvailabilityPattern.repeating(2, 1))
    jobs = [BagJob(0, 0, 900), BagJob(1, 1, 500)]
    run = simulate_volatile_grid(jobs, (long, *[short] * 20), policy="pgs")
    assert [o.state for o in run.record.outcomes] == [FinalState.COMPLETED] * 2
    assert run.record.outcomes[1].start == 2200
    assert run.events > default_window(len(jobs) + 21)
