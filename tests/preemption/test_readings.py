"""The readings the paper leaves open, as options of the grid model: the matchmaker's view of
the load and what a PUSH receiver accepts (Balasubramanian et al. 2013 §3, §5.3, §6.2)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlib.errors import InvalidValueError
from schedlib.preemption.decision import Contender, NodeSnapshot, schedule_preemptive
from schedlib.preemption.grid import simulate_grid
from schedlib.preemption.migration import (
    NeighbourView,
    choose_push_target,
    push_acceptance,
    push_objective,
)
from schedlib.preemption.resources import GridJob, GridNode, fits, normalised
from schedlib.preemption.topology import Matchmaker, ring
from schedlib.testing.invariants import (
    check_decision,
    check_every_job_accounted,
    check_lifecycle,
    check_migrations_start,
    check_node_capacity,
    check_progress_conserved,
    check_push_sends_best,
)
from schedlib.testing.strategies import (
    grid_nodes,
    grids,
    load_keys,
    node_snapshots,
    resource_vectors,
    topologies,
)

# -- the matchmaker's view -------------------------------------------------------------------


@given(grid_nodes(max_nodes=8), st.integers(1, 4), st.integers(0, 50), st.data())
def test_the_limited_matchmaker_picks_the_lightest_of_its_candidates(
    nodes: list[GridNode], choices: int, seed: int, data: st.DataObject
) -> None:
    keys = data.draw(load_keys(nodes))
    requirement = data.draw(resource_vectors(kinds=2, max_cores=5, max_amount=9))
    job = data.draw(st.integers(0, 10_000))
    limited = Matchmaker(nodes, choices=choices, seed=seed)
    suitable = [n.id for n in nodes if fits(requirement, n.capacity)]
    candidates = limited.candidates(requirement, job)
    assert set(candidates) <= set(suitable)
    assert len(candidates) == min(choices, len(suitable)) == len(set(candidates))
    assert candidates == limited.candidates(requirement, job)  # a pure function of (seed, job)
    placed = limited.place(requirement, keys, job)
    assert placed == (min(candidates, key=lambda i: keys[i]) if suitable else None)
    if choices >= len(suitable):  # every suitable node is a candidate: the global choice
        assert placed == Matchmaker(nodes).place(requirement, keys)


def test_the_limited_matchmaker_draws_differ_by_seed_and_job() -> None:
    nodes = [GridNode(i, (1, 8)) for i in range(50)]
    draws = {
        Matchmaker(nodes, choices=2, seed=seed).candidates((1, 1), job)
        for seed in range(5)
        for job in range(20)
    }
    assert len(draws) > 80
    with pytest.raises(InvalidValueError, match="choices"):
        Matchmaker(nodes, choices=0)
    assert Matchmaker(nodes, choices=2).view == "limited:2" and Matchmaker(nodes).view == "global"


def test_a_limited_matchmaker_changes_where_jobs_go() -> None:
    nodes = [GridNode(i, (1, 8)) for i in range(8)]
    jobs = [GridJob(j, j, (1, 1), 100, 100) for j in range(6)]
    where = {}
    for name, matchmaker in (("global", None), ("limited", Matchmaker(nodes, choices=2, seed=1))):
        record = simulate_grid(jobs, nodes, matchmaker=matchmaker)
        where[name] = [e.place for e in record.events if e.kind.value == "assign"]
        assert record.parameter("matchmaker") == ("global" if matchmaker is None else "limited:2")
    assert where["global"] == [(j,) for j in range(6)]  # the idle nodes, lowest id first
    assert where["limited"] != where["global"]


# -- a PUSH that may preempt at the receiver --------------------------------------------------


def test_a_push_may_preempt_a_longer_job_at_the_receiver() -> None:
    """Node 0 (1 core) runs job 1 with job 2 waiting; node 1 (1 core) runs the long job 3.
    Pushed under the paper's reading job 2 must wait for a free core; under the other it
    preempts job 3 at node 1, which rejoins node 1's queue."""
    nodes = [GridNode(0, (1,)), GridNode(1, (1,))]
    jobs = [
        GridJob(1, 0, (1,), 1000, 1000),
        GridJob(3, 1, (1,), 9000, 9000),
        GridJob(2, 2, (1,), 2000, 2000),
    ]
    fit = simulate_grid(jobs, nodes, topology=ring(2), pull=False)
    preempt = simulate_grid(jobs, nodes, topology=ring(2), pull=False, push_receiver="preempt")
    assert not any(e.kind.value == "migrate" for e in fit.events)
    life = [(e.time, e.job, e.kind.value, e.place) for e in preempt.events if e.time == 5]
    assert life == [
        (5, 2, "migrate", (1,)),
        (5, 3, "preempt", (1,)),
        (5, 2, "start", (1,)),
    ]
    assert preempt.parameter("push_receiver") == "preempt"
    check_migrations_start(preempt, nodes, receiver="preempt")
    with pytest.raises(AssertionError, match="does not fit"):
        check_migrations_start(preempt, nodes)  # the paper's reading forbids it
    with pytest.raises(InvalidValueError, match="push_receiver"):
        simulate_grid(jobs, nodes, push_receiver="always")


@st.composite
def neighbour_views(draw: st.DrawFn) -> list[NeighbourView]:
    """One to four neighbours, each a node snapshot (running and waiting jobs) and a speed."""
    views = []
    for node in range(draw(st.integers(1, 4))):
        snap = draw(node_snapshots(max_running=4, max_waiting=3, max_priority=30))
        used = [0] * len(snap.capacity)
        for c in snap.running:
            used = [u + r for u, r in zip(used, c.requirement, strict=True)]
        speed = draw(st.sampled_from((0.5, 1.0, 2.0)))
        views.append(NeighbourView(node, snap.capacity, tuple(used), speed, snap.waiting,
                                   snap.running))  # fmt: skip
    return views


@settings(max_examples=300)
@given(st.data())
def test_a_preempting_push_lands_where_the_receiver_would_start_it(data: st.DataObject) -> None:
    """The property that breaks if the reading is broken: the chosen receiver either has room
    now or its own decision, with the job queued, starts the job by preempting only jobs of
    lower priority; it minimises BM * FM / s over the receivers that accept; and every
    receiver the paper's reading accepts still accepts."""
    views = data.draw(neighbour_views())
    capacity = min((v.capacity for v in views), key=lambda c: c[0])
    requirement = data.draw(st.sampled_from([c.requirement for v in views for c in v.queue]
                                            or [(1,) * len(capacity)]))  # fmt: skip
    requirement = tuple(min(r, c) for r, c in zip(requirement, capacity, strict=True))
    priority = float(data.draw(st.integers(-30, 0)))
    guests = {v.node: Contender(99, requirement, priority - data.draw(st.integers(0, 3)), 50)
              for v in views}  # fmt: skip
    fit = choose_push_target(priority, requirement, views)
    target = choose_push_target(priority, requirement, views, receiver="preempt", guests=guests)
    accepted: dict[int, float] = {}
    for v in views:
        if v.best_waiting is not None and v.best_waiting >= priority:
            continue
        guest = guests[v.node]
        queued = NodeSnapshot(v.capacity, v.running, (*v.queue, guest))
        decision = schedule_preemptive(queued)
        takes = fits(requirement, v.free) or guest.job in decision.start
        load = push_acceptance(v, requirement, receiver="preempt", guest=guest)
        assert (load is not None) == takes
        if load is None:
            continue
        accepted[v.node] = push_objective(load, normalised(requirement, v.capacity), speed=v.speed)
        if not fits(requirement, v.free):
            check_decision(queued, decision)
            assert all(c.priority < guest.priority for c in v.running if c.job in decision.preempt)
        with_job = [s + r for s, r in zip(load, normalised(requirement, v.capacity), strict=True)]
        assert min(load) >= 0 and max(with_job) <= 1 + 1e-12
    if fit is not None:
        assert fit in accepted
    assert target == (min(accepted, key=lambda n: (accepted[n], n)) if accepted else None)


@settings(max_examples=150)
@given(grids(max_nodes=5, max_jobs=14, exact_estimates=False), st.sampled_from([0.0, 0.5]),
       st.data())  # fmt: skip
def test_every_run_with_preempting_pushes_keeps_every_invariant(
    grid: Any, alpha: float, data: st.DataObject
) -> None:
    """Pushed jobs start at once on their receiver, no node is oversubscribed, every local
    decision (the receiver's after a push too) is valid, progress is conserved."""
    nodes, jobs = grid
    topology = data.draw(topologies(nodes))
    record = simulate_grid(jobs, nodes, topology=topology, alpha=alpha, push_receiver="preempt",
                           observer=check_decision)  # fmt: skip
    check_every_job_accounted(record)
    check_lifecycle(record)
    check_node_capacity(record, nodes)
    check_migrations_start(record, nodes, receiver="preempt")
    check_progress_conserved(record, nodes, overhead=0)
    check_push_sends_best(record, nodes, alpha=alpha, beta=1.0)
