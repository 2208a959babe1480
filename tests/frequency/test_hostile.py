"""Hostile workloads for the pool model: named regression cases.

A thousand jobs at one instant, bursts of a nanosecond, jobs submitted out of order,
sub-second and irregular float times, a pool of one node; zero work and duplicate ids
are refused naming the field. Every policy keeps every pool invariant on each. Pool
jobs run on one node each and carry no requested time, so the cases "as wide as the
machine", "runtime above the request" and "all rejected" have no counterpart here.
The literal reading of the report's pseudo-code livelocks at one instant; the
engine's livelock rule stops it even when the event budget is lifted.
"""

from __future__ import annotations

import time

import attrs
import pytest

from schedlib.errors import InvalidValueError, SimulationStuckError
from schedlib.frequency import PoolJob, PoolNode, QueuedJob, Slice, SliceEnd, pool_rules
from schedlib.frequency import simulate_pool as run
from schedlib.frequency.pfs import PfsParameters
from schedlib.testing.invariants import check_pool_run

POOL = [PoolNode(), PoolNode(2), PoolNode(0.5)]
POLICIES = ["pfs", "pfs+mfs", "round_robin", "fcfs"]

CASES: dict[str, list[PoolJob]] = {
    "1000 jobs at one instant": [PoolJob.cpu_bound(i, 0, 0.5 + i % 4) for i in range(1000)],
    "nanosecond bursts": [PoolJob.interactive(i, i % 3, (1e-9, 1e-9), (1e-9,)) for i in range(30)],
    "submitted out of order": [PoolJob.cpu_bound(i, (7 * i) % 11, 1 + i % 3) for i in range(22)],
    "sub-second float times": [
        PoolJob.interactive(i, i * 0.013, (0.37, 0.011 * (i + 1)), (0.29,)) for i in range(60)
    ],
}


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("name", CASES)
def test_named_hostile_cases_hold_every_invariant(name: str, policy: str) -> None:
    jobs = CASES[name]
    if name == "1000 jobs at one instant" and policy == "pfs+mfs":
        jobs = jobs[:300]  # MFS looks at every remote queue per migration (time budget)
    record = run(jobs, POOL, policy=policy, quantum=1, max_preemption=2, max_mf=1)
    check_pool_run(record, POOL)


def test_a_pool_of_one_node_runs_everything_there() -> None:
    record = run(CASES["submitted out of order"], [PoolNode()], policy="pfs+mfs", quantum=1)
    check_pool_run(record, [PoolNode()])
    assert {e.place for e in record.events if e.place} == {(0,)}


def test_zero_work_is_refused_naming_the_field() -> None:
    with pytest.raises(InvalidValueError, match=r"PoolJob.work\[0\] = 0"):
        PoolJob.cpu_bound(1, 0, 0)


def test_duplicate_job_ids_are_refused() -> None:
    jobs = [PoolJob.cpu_bound(1, 0, 1), PoolJob.cpu_bound(1, 2, 1)]
    with pytest.raises(InvalidValueError, match="appears twice"):
        run(jobs, POOL)


def preempt_at_once(job: QueuedJob, rate: float, *, may_send: bool) -> Slice:
    """BROKEN: every slice is preempted before it does any work (zero-length slices)."""
    return Slice(job.job, 0.0, SliceEnd.PREEMPT, job.pf)


def test_a_rule_set_that_livelocks_at_one_instant_is_stopped_without_a_budget() -> None:
    rules = attrs.evolve(pool_rules("pfs", PfsParameters(1)), plan=preempt_at_once)
    began = time.perf_counter()
    with pytest.raises(SimulationStuckError) as info:
        run([PoolJob.cpu_bound(1, 0, 2.5)], POOL, policy=rules, quantum=1, max_events=10**12)
    assert time.perf_counter() - began < 20
    assert info.value.rule == "livelock" and info.value.jobs == (1,)
    assert "time stood still" in str(info.value)
