"""Run-level properties of the grid model (SPEC A), and broken variants that break them."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from schedlib.errors import InvalidDecisionError, InvalidValueError
from schedlib.model import EventKind, JobEvent, RunRecord
from schedlib.preemption import scheduling_pass
from schedlib.preemption.decision import Decision, NodeSnapshot
from schedlib.preemption.grid import GridModel, JobProgress, run_model, simulate_grid
from schedlib.preemption.resources import GridJob, GridNode, fits
from schedlib.preemption.topology import ring, similar_capability
from schedlib.testing.invariants import (
    check_decision,
    check_every_job_accounted,
    check_lifecycle,
    check_migrations_start,
    check_no_starvation,
    check_node_capacity,
    check_progress_conserved,
    check_push_sends_best,
)
from schedlib.testing.strategies import grids, topologies

MANY = settings(
    max_examples=300,
    suppress_health_check=list(HealthCheck),
    deadline=None,
    report_multiple_bugs=False,
    phases=[Phase.generate],  # finding one failure is enough; no need to shrink
)

# alpha > beta with an overhead can thrash without progress (see schedlib.preemption.priority):
# alpha = 2 is only drawn without overhead.
configs = st.fixed_dictionaries(
    {
        "policy": st.sampled_from(["preemptive", "fcfs"]),
        "delta": st.sampled_from([5, 2.5]),
        "balance": st.booleans(),
    }
).flatmap(
    lambda base: st.sampled_from([(0.0, 0), (0.5, 0), (0.5, 3), (0.0, 3), (2.0, 0)]).map(
        lambda weights: {**base, "alpha": weights[0], "overhead": weights[1]}
    )
)


def check_run(record: Any, nodes: list[GridNode], config: dict[str, Any]) -> None:
    check_every_job_accounted(record)
    check_lifecycle(record)
    check_node_capacity(record, nodes)
    check_migrations_start(record, nodes)
    check_progress_conserved(record, nodes, overhead=config["overhead"])
    check_push_sends_best(
        record, nodes, alpha=config["alpha"], beta=1.0, overhead=config["overhead"]
    )
    if config["policy"].startswith("preemptive") and config["alpha"] > 0:
        check_no_starvation(
            record,
            nodes,
            alpha=config["alpha"],
            beta=1.0,
            delta=config["delta"],
            overhead=config["overhead"],
        )


@settings(max_examples=200)
@given(grids(max_nodes=6, max_jobs=16, exact_estimates=False), configs, st.data())
def test_every_run_keeps_every_invariant(grid: Any, config: dict[str, Any], data: Any) -> None:
    nodes, jobs = grid
    topology = data.draw(topologies(nodes))
    observer = check_decision if config["policy"] == "preemptive" else None
    record = simulate_grid(jobs, nodes, topology=topology, observer=observer, **config)
    check_run(record, nodes, config)


@settings(max_examples=100)
@given(grids(max_nodes=4, max_jobs=12), configs, st.data())
def test_equal_priority_victims_keep_every_invariant(
    grid: Any, config: dict[str, Any], data: Any
) -> None:
    """Algorithm 1's line 5 (equal-priority victims) on whole grids: integer times and
    estimates equal to the runtimes make equal priorities common; every run ends."""
    nodes, jobs = grid
    topology = data.draw(topologies(nodes))
    config = {**config, "policy": "preemptive-equal"}
    observer = partial(check_decision, victims="equal")
    record = simulate_grid(jobs, nodes, topology=topology, observer=observer, **config)
    check_run(record, nodes, config)


@settings(max_examples=150)
@given(
    grids(max_nodes=4, max_jobs=12, exact_estimates=False),
    st.sampled_from([0.0, 0.5]),
    st.booleans(),
    st.data(),
)
def test_push_sends_the_head_of_the_queue(grid: Any, alpha: float, pull: bool, data: Any) -> None:
    """§5.3: the job PUSH offers is the head of the sender's queue (without PULL too, so that
    pushes are frequent)."""
    nodes, jobs = grid
    topology = data.draw(st.sampled_from([ring(len(nodes)), similar_capability(nodes)]))
    record = simulate_grid(jobs, nodes, topology=topology, alpha=alpha, pull=pull)
    check_push_sends_best(record, nodes, alpha=alpha, beta=1.0)


@settings(max_examples=400)
@given(grids(max_nodes=6, max_jobs=16, exact_estimates=False), configs, st.data())
def test_skipping_idle_nodes_gives_the_same_log(
    grid: Any, config: dict[str, Any], data: Any
) -> None:
    """The optimised ticks (only nodes that can act) against visiting every node every tick."""
    nodes, jobs = grid
    topology = data.draw(topologies(nodes))
    fast = simulate_grid(jobs, nodes, topology=topology, **config)
    slow = simulate_grid(jobs, nodes, topology=topology, exhaustive=True, **config)
    assert fast.events == slow.events


def test_preempted_job_resumes_with_overhead_on_a_faster_node() -> None:
    """Job 1 runs 10 s on node 0, is preempted by job 3, pushed to node 1 (twice as
    fast) when it frees at t=15, pays 4 s of overhead and does its last 90 s in 45 s."""
    nodes = [GridNode(0, (1,), 1.0), GridNode(1, (1,), 2.0)]
    jobs = [
        GridJob(1, 0, (1,), 100, 100),
        GridJob(2, 0, (1,), 30, 30),
        GridJob(3, 10, (1,), 20, 20),
    ]
    record = simulate_grid(jobs, nodes, topology=ring(2), overhead=4)
    check_run(record, nodes, {"policy": "preemptive", "alpha": 0, "overhead": 4, "delta": 5})
    life = [(e.time, e.kind.value, e.place, e.detail) for e in record.events if e.job == 1]
    assert life == [
        (0, "submit", (), ""),
        (0, "assign", (0,), ""),
        (0, "start", (0,), ""),
        (10, "preempt", (0,), ""),
        (15, "migrate", (1,), "push from 0"),
        (15, "start", (1,), ""),
        (64, "complete", (1,), ""),
    ]


def test_a_job_started_and_preempted_at_one_instant_does_not_complete() -> None:
    """Regression: job 3 restarts at t=85, then the balanced job 0 preempts it at once;
    its completion event of that instant must be dropped with the segment."""
    nodes = [GridNode(0, (1, 1)), GridNode(1, (1, 1))]
    spec = [(50, (1, 0), 1, 1), (7, (1, 1), 4, 78), (3, (1, 1), 5, 1), (5, (1, 1), 80, 3),
            (0, (1, 1), 5, 3), (0, (1, 1), 2, 2), (2, (1, 1), 1, 84), (0, (1, 1), 1, 1),
            (0, (1, 0), 1, 1)]  # fmt: skip
    jobs = [GridJob(i, t, req, est, run) for i, (t, req, est, run) in enumerate(spec)]
    config = {"policy": "preemptive", "delta": 5, "balance": True, "alpha": 0.0, "overhead": 0}
    record = simulate_grid(jobs, nodes, topology=ring(2), **config)  # type: ignore[arg-type]
    check_run(record, nodes, config)
    life = [(e.time, e.kind.value) for e in record.events if e.job == 3]
    assert (85, "start") in life and (85, "preempt") in life
    assert life[-1] == (87, "complete")


def test_unschedulable_jobs_get_a_reason_and_others_run() -> None:
    nodes = [GridNode(0, (2, 8))]
    jobs = [GridJob(1, 0, (1, 9), 5, 5), GridJob(2, 0, (2, 8), 5, 5)]
    record = simulate_grid(jobs, nodes)
    check_every_job_accounted(record)
    outcome = record.outcome_map()
    assert outcome[1].state is not None and outcome[1].state.value == "unschedulable"
    assert "exceeds the capacity of every node" in outcome[1].reason
    assert outcome[2].state is not None and outcome[2].state.value == "completed"


def test_bad_configuration_names_the_field() -> None:
    nodes = [GridNode(0, (2, 8))]
    with pytest.raises(InvalidValueError, match="delta"):
        simulate_grid([], nodes, delta=0)
    with pytest.raises(InvalidValueError, match="policy"):
        simulate_grid([], nodes, policy="sjf")
    with pytest.raises(InvalidValueError, match="must have 2 kinds"):
        simulate_grid([GridJob(1, 0, (1,), 1, 1)], nodes)
    with pytest.raises(InvalidValueError, match="topology"):
        simulate_grid([], nodes, topology=ring(3))


def test_idle_grid_stops_ticking() -> None:
    """One job on 1000 nodes: a handful of engine events, no tick per idle node."""
    nodes = [GridNode(i, (1, 4)) for i in range(1000)]
    record = simulate_grid([GridJob(1, 0, (1, 1), 50, 50)], nodes, topology=ring(1000))
    assert record.parameter("events") <= 4


# -- broken variants -----------------------------------------------------------------------


def start_everything(snap: NodeSnapshot) -> Decision:
    """Starts every waiting job, fitting or not."""
    return Decision(start=tuple(c.job for c in snap.waiting))


def push_anywhere(priority: float, requirement: Any, neighbours: Any) -> int | None:
    """Pushes to the first neighbour with a free core, whether the job fits or not."""
    for n in neighbours:
        if n.free[0] >= 1 and not fits(requirement, n.free):
            return int(n.node)
    return None


class ForgetfulModel(GridModel):
    """Restarts preempted jobs from scratch."""

    def preempted(self, p: JobProgress, now: float, speed: float) -> JobProgress:
        return (
            super()
            .preempted(p, now, speed)
            .__class__(
                p.job, p.arrival, p.wait, now, p.job.runtime, p.job.estimate, 0.0, float("inf")
            )
        )


def fails(test: Any) -> bool:
    try:
        test()
    except AssertionError:
        return True
    return False


def test_capacity_checker_catches_a_policy_that_starts_everything() -> None:
    @MANY
    @given(grids(max_nodes=2, max_jobs=8))
    def inner(grid: Any) -> None:
        nodes, jobs = grid
        model = GridModel(nodes, jobs, policy=start_everything)
        model.trusted = True  # let the broken decisions through, so the checker sees them
        check_node_capacity(run_model(model), nodes)

    assert fails(inner)


def test_a_users_invalid_decision_is_refused_naming_the_function() -> None:
    nodes = [GridNode(0, (1,))]
    jobs = [GridJob(1, 0, (1,), 10, 10), GridJob(2, 0, (1,), 10, 10)]
    with pytest.raises(InvalidDecisionError, match="decision of start_everything at t=0") as error:
        simulate_grid(jobs, nodes, policy=start_everything)
    assert "more than the capacity (1,)" in str(error.value)

    def preempt_a_stranger(snap: NodeSnapshot) -> Decision:
        return Decision(preempt=(99,))

    with pytest.raises(InvalidDecisionError, match="99 is not running on the node"):
        simulate_grid(jobs, nodes, policy=preempt_a_stranger)


def test_migration_checker_catches_a_push_that_ignores_fit() -> None:
    @MANY
    @given(grids(max_nodes=4, max_jobs=10))
    def inner(grid: Any) -> None:
        nodes, jobs = grid
        record = simulate_grid(
            jobs, nodes, topology=ring(len(nodes)), push_target=push_anywhere, pull=False
        )
        check_migrations_start(record, nodes)

    assert fails(inner)


def test_push_checker_catches_a_push_of_the_worst_waiting_job(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The mutant of issue 29: PUSH sends the last job of the queue instead of its head."""
    monkeypatch.setattr(scheduling_pass, "rank_key", lambda c: (c.priority, -c.arrival, -c.job))

    @MANY
    @given(grids(max_nodes=4, max_jobs=12))
    def inner(grid: Any) -> None:
        nodes, jobs = grid
        record = simulate_grid(jobs, nodes, topology=ring(len(nodes)), pull=False)
        check_push_sends_best(record, nodes, alpha=0.0, beta=1.0)

    assert fails(inner)


def test_progress_checker_catches_restarts_from_scratch() -> None:
    @MANY
    @given(grids(max_nodes=2, max_jobs=8))
    def inner(grid: Any) -> None:
        nodes, jobs = grid
        record = run_model(ForgetfulModel(nodes, jobs))
        check_progress_conserved(record, nodes)

    assert fails(inner)


def test_logs_name_the_migration() -> None:
    nodes = [GridNode(0, (1,)), GridNode(1, (2,))]
    jobs = [GridJob(i, 0, (1,), 100, 100) for i in range(3)]
    record = simulate_grid(jobs, nodes, topology=ring(2))
    moves = [e for e in record.events if e.kind is EventKind.MIGRATE]
    assert all(e.detail.startswith(("push from", "pull from")) for e in moves)


def test_a_waiting_job_of_equal_remaining_time_does_not_preempt() -> None:
    """Regression (issue 25, float audit S2): job 1 runs since 614.17 with 2996.40749 s of
    estimated work, job 2 arrives at 3309.17 with 301.40748999999994 s: both estimated ends
    are 3610.57749, so T_rem is equal (exactly) and SRTF keeps job 1. Subtracting first gave
    job 1 a T_rem of 301.40749000000005, and job 2 preempted it."""
    jobs = [
        GridJob(1, 614.17, (1,), 2996.40749, 2996.40749),
        GridJob(2, 3309.17, (1,), 301.40748999999994, 301.40748999999994),
    ]
    record = simulate_grid(jobs, [GridNode(0, (1,))])
    assert not [e for e in record.events if e.kind is EventKind.PREEMPT]
    assert record.outcome_map()[1].end == 3610.57749


def test_push_checker_ranks_exactly_equal_priorities_by_arrival() -> None:
    """Regression (issue 25, float audit S2): with alpha = beta = 1 at t = 102.43, jobs 2
    and 3 have exactly equal priorities ((t - 10.45) - 72.6 = (t - 79.8) - 3.2499999999999964),
    so job 2, which arrived first, heads the queue and pushing job 3 is wrong. Recomputed in
    floats, job 3's priority came out an ulp higher and the checker let the push pass."""
    jobs = [
        GridJob(1, 0, (1,), 1000, 1000),
        GridJob(2, 10.45, (1,), 72.6, 72.6),
        GridJob(3, 79.8, (1,), 3.2499999999999964, 3.2499999999999964),
    ]
    log = [JobEvent(0, 1, EventKind.SUBMIT), JobEvent(0, 1, EventKind.ASSIGN, (0,))]
    log.append(JobEvent(0, 1, EventKind.START, (0,)))
    for job in jobs[1:]:
        log += [JobEvent(job.submit, job.id, kind, place) for kind, place in _ARRIVE]
    log.append(JobEvent(102.43, 3, EventKind.MIGRATE, (1,), detail="push from 0"))
    record = RunRecord.from_log("push", jobs, log, capacity=2)
    nodes = [GridNode(0, (1,)), GridNode(1, (1,))]
    with pytest.raises(AssertionError, match="job 2 waits there"):
        check_push_sends_best(record, nodes, alpha=1.0, beta=1.0)


_ARRIVE = ((EventKind.SUBMIT, ()), (EventKind.ASSIGN, (0,)))
