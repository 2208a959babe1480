"""Hostile workloads for the preemptive grid: named regression cases.

A thousand jobs at one instant, zero-length jobs, jobs exactly as large as a node and
larger than every node, runtimes above the estimate, estimates of 0, submissions out of
order, a workload whose every job is unschedulable, sub-second times, duplicate ids.
Every decision is checked as it is taken, and the run's capacity, progress and
accounting invariants hold — or the input is refused naming the field.
"""

from __future__ import annotations

import time

import pytest

from schedlib.errors import InvalidValueError, SimulationStuckError
from schedlib.model import FinalState
from schedlib.preemption import GridJob, GridNode, ring, simulate_grid
from schedlib.preemption.decision import Decision, NodeSnapshot, rank_key
from schedlib.testing.invariants import (
    check_decision,
    check_every_job_accounted,
    check_lifecycle,
    check_migrations_start,
    check_node_capacity,
    check_progress_conserved,
)

NODES = [GridNode(i, (1 + i % 4, 1024 * (1 + i % 3)), speed=0.5 + 0.25 * (i % 3)) for i in range(6)]

CASES: dict[str, list[GridJob]] = {
    "1000 jobs at one instant": [
        GridJob(i, 0, (1 + i % 3, 256 * (1 + i % 4)), 10 + i % 7, 10 + i % 5) for i in range(1000)
    ],
    "zero-length jobs": [GridJob(i, i % 2, (1, 100), 0, 0) for i in range(30)],
    "as large as a node": [GridJob(i, i, (4, 3072), 20, 20) for i in range(10)],
    "larger than every node": [GridJob(i, i, (8, 100), 20, 20) for i in range(3)]
    + [GridJob(3, 0, (1, 100), 5, 5)],
    "runtime above the estimate": [GridJob(i, 0, (1, 100), 5, 5 + 10 * i) for i in range(20)],
    "sub-second times": [GridJob(i, i * 0.07, (1 + i % 2, 100), 0.3, 0.25) for i in range(200)],
    "estimates of 0": [GridJob(i, i % 4, (1, 100), 0, 3 + i % 5) for i in range(20)],
    "submitted out of order": [GridJob(i, (7 * i) % 13, (1, 100), 5, 5) for i in range(26)],
    "all unschedulable": [GridJob(i, i, (9, 100), 5, 5) for i in range(4)],
}


@pytest.mark.parametrize("alpha", [0.0, 0.5])
@pytest.mark.parametrize("topology", [None, "ring"])
@pytest.mark.parametrize("name", CASES)
def test_named_hostile_cases_hold_every_invariant(
    name: str, topology: str | None, alpha: float
) -> None:
    jobs = CASES[name]
    record = simulate_grid(
        jobs,
        NODES,
        topology=ring(len(NODES)) if topology else None,
        alpha=alpha,
        observer=check_decision,
    )
    check_every_job_accounted(record)
    check_lifecycle(record)
    check_node_capacity(record, NODES)
    check_migrations_start(record, NODES)
    check_progress_conserved(record, NODES)
    if name == "all unschedulable":
        assert {o.state for o in record.outcomes} == {FinalState.UNSCHEDULABLE}
        assert len(record.outcomes) == 4
    if name == "larger than every node":
        states = [o.state for o in record.outcomes]
        assert states == [FinalState.UNSCHEDULABLE] * 3 + [FinalState.COMPLETED]
        assert "exceeds the capacity of every node" in record.outcomes[0].reason


def test_duplicate_job_ids_are_refused() -> None:
    with pytest.raises(InvalidValueError, match="appears twice"):
        simulate_grid([GridJob(1, 0, (1, 1), 5, 5), GridJob(1, 1, (1, 1), 5, 5)], NODES)


def rotate(snapshot: NodeSnapshot) -> Decision:
    """Broken: the best waiting job preempts every running job, even of higher priority."""
    waiting = sorted(snapshot.waiting, key=rank_key)
    if not waiting:
        return Decision()
    return Decision(preempt=tuple(c.job for c in snapshot.running), start=(waiting[0].job,))


@pytest.mark.parametrize("exhaustive", [False, True])
def test_a_livelocking_policy_is_stopped_by_the_guard_within_seconds(exhaustive: bool) -> None:
    # Each resume owes an overhead of one tick and is preempted at the next tick: time
    # advances, no work is ever done. Without the guard this run never ends.
    nodes = [GridNode(0, (1,))]
    jobs = [
        GridJob(1, 0, (1,), 100, 100),
        GridJob(2, 0, (1,), 100, 100),
        GridJob(3, 1, (1,), 100, 100),
    ]
    began = time.perf_counter()
    with pytest.raises(SimulationStuckError) as info:
        simulate_grid(
            jobs, nodes, policy=rotate, overhead=5, delta=5, alpha=2.0, exhaustive=exhaustive
        )
    assert time.perf_counter() - began < 20
    error = info.value
    assert error.rule == "livelock" and error.jobs == (1, 2, 3)
    assert "remaining work did not decrease" in str(error)
    assert any("preempt" in entry for entry in error.recent)


def test_the_same_policy_without_overhead_finishes() -> None:
    # the broken variant only livelocks when preemption costs the whole interval
    nodes = [GridNode(0, (1,))]
    jobs = [GridJob(1, 0, (1,), 100, 100), GridJob(2, 0, (1,), 100, 100)]
    record = simulate_grid(jobs, nodes, policy=rotate, delta=5)
    check_every_job_accounted(record)
    check_progress_conserved(record, nodes)
