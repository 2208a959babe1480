"""The pure decision rules of PFS / MFS (the CSS 600 term report), one by one.

Each rule is checked on hand-made cases at its boundaries and, where the
report describes a plainer procedure (sorting the nodes, scanning the queues),
against that procedure on generated inputs.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlib.errors import InvalidValueError
from schedlib.frequency import (
    Dispatch,
    JobKind,
    MfsParameters,
    MigrationCost,
    NodeLoad,
    PfsParameters,
    PoolJob,
    PoolNode,
    QueuedJob,
    SliceEnd,
    cpu_availability,
    fastest_node,
    fifo_order,
    mfs_dispatch,
    mfs_order,
    migration_cost,
    most_available,
    pfs_order,
    pfs_step,
    plan_slice,
    pool_rules,
    run_to_completion,
    send_remote,
)

PARAMS = PfsParameters(quantum=2, grace=1.5, max_preemption=3)


# -- parameters and types: bad values are refused, naming the parameter and the value ---


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: PfsParameters(0), "PfsParameters.quantum = 0: must be a finite number > 0"),
        (lambda: PfsParameters(-1), "PfsParameters.quantum = -1"),
        (lambda: PfsParameters(float("inf")), "PfsParameters.quantum = inf"),
        (lambda: PfsParameters(1, grace=0.99), "PfsParameters.grace = 0.99: must be a finite"),
        (lambda: PfsParameters(1, max_preemption=0), "PfsParameters.max_preemption = 0"),
        (lambda: PfsParameters(1, max_preemption=2.5), "PfsParameters.max_preemption = 2.5"),
        (lambda: PfsParameters(1, max_preemption=True), "PfsParameters.max_preemption = True"),
        (lambda: MfsParameters(-1), "MfsParameters.max_mf = -1: must be an integer >= 0"),
        (lambda: MigrationCost(-0.5, 0), "MigrationCost.communication = -0.5"),
        (lambda: MigrationCost(0, float("nan")), "MigrationCost.checkpoint_restart = nan"),
        (lambda: migration_cost(1, -2), "K_CR (checkpoint_restart) = -2"),
        (lambda: PoolNode(0), "PoolNode.speed = 0: must be a finite number > 0"),
        (lambda: PoolNode(-2), "PoolNode.speed = -2"),
        (lambda: PoolNode(1, 1.5), "PoolNode.availability = 1.5: must be in (0, 1]"),
        (lambda: PoolNode(1, 0), "PoolNode.availability = 0"),
        (lambda: PoolJob(1, 0, ()), "PoolJob.work = (): needs at least one burst"),
        (lambda: PoolJob(1, 0, (1, 0)), "PoolJob.work[1] = 0: must be a finite number > 0"),
        (lambda: PoolJob(1, 0, (1, 2), (-1,)), "PoolJob.think[0] = -1"),
        (lambda: PoolJob(1, -1, (1,)), "PoolJob.submit = -1"),
        (lambda: pool_rules("sjf", PARAMS), "policy = 'sjf'"),
    ],
)
def test_bad_values_are_refused_by_name(build: Any, message: str) -> None:
    with pytest.raises(InvalidValueError) as error:
        build()
    assert message in str(error.value)


def test_types_and_labels() -> None:
    job = PoolJob.interactive(3, 1, (0.5, 1), (4,))
    assert (job.kind, job.bursts, job.total_work, job.procs) == (JobKind.INTERACTIVE, 2, 1.5, 1)
    assert PoolJob.cpu_bound(4, 0, 60).kind is JobKind.CPU_BOUND
    assert PoolNode(2, 0.25).rate == 0.5
    assert MigrationCost(1.5, 0.5).total == 2.0
    assert PARAMS.longest_slice == 3.0


# -- the PFS step ------------------------------------------------------------------------


def test_pfs_order_serves_unpreempted_jobs_first_in_arrival_order() -> None:
    waiting = [
        QueuedJob(1, 5.0, preempted=True),
        QueuedJob(2, 5.0),
        QueuedJob(3, 5.0),
        QueuedJob(4, 5.0, preempted=True),
    ]
    assert pfs_order(waiting) == 1
    assert pfs_order([waiting[0], waiting[3]]) == 0
    with pytest.raises(InvalidValueError, match="waiting"):
        pfs_order([])


@given(st.lists(st.tuples(st.integers(0, 50), st.booleans()), min_size=1, max_size=8))
def test_pfs_order_matches_the_two_queues_of_the_report(entries: list[tuple[int, bool]]) -> None:
    """The report's two FIFO queues, unpreempted served first, built explicitly."""
    waiting = [QueuedJob(i, 1.0, preempted=p) for i, (_, p) in enumerate(entries)]
    unpreempted = [q for q in waiting if not q.preempted]
    preempted = [q for q in waiting if q.preempted]
    expected = (unpreempted or preempted)[0]
    assert waiting[pfs_order(waiting)] == expected


@pytest.mark.parametrize(
    ("remaining", "rate", "end", "duration", "pf"),
    [
        (4.0, 1.0, SliceEnd.PREEMPT, 2, 2),  # 4 s left > g*Q = 3 s
        (3.0, 1.0, SliceEnd.COMPLETE, 3.0, 0),  # exactly g*Q: the grace lets it finish
        (2.0, 1.0, SliceEnd.COMPLETE, 2.0, 0),  # exactly Q
        (6.0, 2.0, SliceEnd.COMPLETE, 3.0, 0),  # remaining *time* is what counts
        (6.5, 2.0, SliceEnd.PREEMPT, 2, 2),
    ],
)
def test_plan_slice_boundaries(
    remaining: float, rate: float, end: SliceEnd, duration: float, pf: int
) -> None:
    planned = plan_slice(QueuedJob(9, remaining, pf=1), rate, PARAMS, may_send=False)
    assert (planned.job, planned.end, planned.duration, planned.pf) == (9, end, duration, pf)


def test_plan_slice_sends_at_max_preemption_from_sending_nodes_only() -> None:
    at_limit = QueuedJob(9, 10.0, pf=2)
    assert plan_slice(at_limit, 1.0, PARAMS, may_send=True).end is SliceEnd.REMOTE
    assert plan_slice(at_limit, 1.0, PARAMS, may_send=False).end is SliceEnd.PREEMPT
    assert plan_slice(at_limit._replace(pf=1), 1.0, PARAMS, may_send=True).end is SliceEnd.PREEMPT
    banned = at_limit._replace(banned=True)
    assert plan_slice(banned, 1.0, PARAMS, may_send=True).end is SliceEnd.PREEMPT
    beyond = QueuedJob(9, 10.0, pf=7)  # e.g. a job staying on a node that does not send
    assert plan_slice(beyond, 1.0, PARAMS, may_send=True) == (9, 2, SliceEnd.REMOTE, 8)


def test_grace_one_is_plain_round_robin() -> None:
    plain = PfsParameters(2, grace=1.0, max_preemption=3)
    assert plan_slice(QueuedJob(1, 2.0), 1.0, plain, may_send=False).end is SliceEnd.COMPLETE
    assert plan_slice(QueuedJob(1, 2.5), 1.0, plain, may_send=False).end is SliceEnd.PREEMPT


def test_pfs_step_is_order_then_slice() -> None:
    waiting = [QueuedJob(1, 9.0, pf=2, preempted=True), QueuedJob(2, 1.0)]
    assert pfs_step(waiting, 1.0, PARAMS, may_send=True) == (2, 1.0, SliceEnd.COMPLETE, 0)
    assert pfs_step(waiting[:1], 1.0, PARAMS, may_send=True).end is SliceEnd.REMOTE


def test_baseline_rules() -> None:
    assert run_to_completion(QueuedJob(1, 100.0), 4.0) == (1, 25.0, SliceEnd.COMPLETE, 0)
    assert fifo_order([QueuedJob(1, 1.0, preempted=True), QueuedJob(2, 1.0)], random.Random()) == 0
    with pytest.raises(InvalidValueError):
        fifo_order([], random.Random())


# -- the remote choice -------------------------------------------------------------------

LOADS = st.lists(
    st.tuples(
        st.sampled_from([0.5, 1.0, 2.0]), st.sampled_from([0.25, 0.5, 1.0]), st.integers(0, 3)
    ),
    max_size=6,
).map(lambda specs: [NodeLoad(i + 1, s, a, n) for i, (s, a, n) in enumerate(specs)])


def _quicksort_by_cpu_availability(loads: list[NodeLoad]) -> list[NodeLoad]:
    """The report's `QuickSort_By_CPU_Availability`, most available first, ties documented."""
    if len(loads) <= 1:
        return list(loads)
    pivot, rest = loads[0], loads[1:]

    def key(n: NodeLoad) -> tuple[float, float, int]:
        return (-cpu_availability(n.availability, n.resident), -n.speed, n.node)

    before = [n for n in rest if key(n) < key(pivot)]
    after = [n for n in rest if key(n) >= key(pivot)]
    return [*_quicksort_by_cpu_availability(before), pivot, *_quicksort_by_cpu_availability(after)]


@given(LOADS, st.integers(0, 6))
def test_most_available_is_the_head_of_the_reports_sort(loads: list[NodeLoad], skip: int) -> None:
    ranked = _quicksort_by_cpu_availability([n for n in loads if n.node != skip])
    expected = ranked[0].node if ranked else None
    assert most_available(loads, exclude=skip) == expected


@given(LOADS.filter(bool))
def test_fastest_node_is_the_maximum_speed(loads: list[NodeLoad]) -> None:
    chosen = next(n for n in loads if n.node == fastest_node(loads))
    assert chosen.speed == max(n.speed for n in loads)
    assert all(
        (n.speed, n.availability) <= (chosen.speed, chosen.availability) or n.speed < chosen.speed
        for n in loads
    )


def test_remote_choice_ties_and_edges() -> None:
    tie = [NodeLoad(1, 1.0, 1.0, 1), NodeLoad(2, 1.0, 0.5, 0), NodeLoad(3, 2.0, 0.5, 0)]
    assert most_available(tie) == 3  # equal A = 1/2: the faster wins
    assert most_available(tie[:2]) == 1  # equal A and speed: the lower index
    assert fastest_node([NodeLoad(4, 2.0, 1.0, 0), NodeLoad(2, 2.0, 1.0, 9)]) == 2
    with pytest.raises(InvalidValueError, match="loads"):
        fastest_node([])
    job = QueuedJob(1, 5.0)
    assert send_remote(job, 0, tie) == Dispatch(3)
    assert send_remote(job, 3, tie[2:]) == Dispatch(None)


# -- the MFS rules -----------------------------------------------------------------------


def test_mfs_order_picks_the_highest_migration_count() -> None:
    queue = [QueuedJob(1, 1.0, mf=0), QueuedJob(2, 1.0, mf=3), QueuedJob(3, 1.0, mf=1)]
    never = random.Random(0)
    state = never.getstate()
    assert mfs_order(queue, never) == 1
    assert never.getstate() == state, "no tie: the generator must not be drawn from"
    with pytest.raises(InvalidValueError):
        mfs_order([], never)


def test_mfs_order_breaks_ties_at_random_reproducibly_and_fairly() -> None:
    queue = [QueuedJob(j, 1.0, mf=2) for j in range(3)] + [QueuedJob(9, 1.0, mf=1)]
    picks = [mfs_order(queue, random.Random(seed)) for seed in range(600)]
    assert picks == [mfs_order(queue, random.Random(seed)) for seed in range(600)]
    counts = Counter(picks)
    assert set(counts) == {0, 1, 2}
    assert all(150 <= c <= 250 for c in counts.values()), counts


REMOTES = [NodeLoad(1, 1.0, 1.0, 2), NodeLoad(2, 2.0, 0.5, 0), NodeLoad(3, 1.0, 0.5, 0)]


@pytest.mark.parametrize(
    ("job", "current", "expected"),
    [
        (QueuedJob(1, 5.0, mf=0), 0, Dispatch(2)),  # from the head: A = 1/2 on 2 and 3, 2 faster
        (QueuedJob(1, 5.0, mf=1), 1, Dispatch(None)),  # A = 1/2 there, 1/2 here: not better
        (QueuedJob(1, 5.0, mf=2), 0, Dispatch(2, True)),  # MF = MAX_MF: fastest, banned
        (QueuedJob(1, 5.0, mf=2), 2, Dispatch(None, True)),  # already on the fastest
        (QueuedJob(1, 5.0, mf=1, banned=True), 3, Dispatch(None, True)),
    ],
)
def test_mfs_dispatch_rules(job: QueuedJob, current: int, expected: Dispatch) -> None:
    assert mfs_dispatch(job, current, REMOTES, max_mf=2) == expected


def test_mfs_dispatch_moves_between_remote_nodes_only_to_a_strictly_better_one() -> None:
    job = QueuedJob(1, 5.0, mf=1)
    crowded = [NodeLoad(1, 1.0, 1.0, 3), NodeLoad(2, 1.0, 0.5, 0)]  # here 1/3, there 1/2
    assert mfs_dispatch(job, 1, crowded, max_mf=5) == Dispatch(2)
    equal = [NodeLoad(1, 1.0, 1.0, 2), NodeLoad(2, 4.0, 0.5, 0)]  # here 1/2, there 1/2
    assert mfs_dispatch(job, 1, equal, max_mf=5) == Dispatch(None)
    alone = [NodeLoad(1, 1.0, 1.0, 1)]
    assert mfs_dispatch(job, 1, alone, max_mf=5) == Dispatch(None)
    assert mfs_dispatch(job, 0, [], max_mf=5) == Dispatch(None)
    assert mfs_dispatch(job._replace(mf=5), 0, [], max_mf=5) == Dispatch(None, True)


@given(
    st.integers(0, 4),
    st.integers(0, 4),
    st.booleans(),
    LOADS.filter(bool),
    st.integers(0, 6),
)
def test_mfs_dispatch_keeps_mf_within_max_mf_plus_one(
    mf: int, max_mf: int, banned: bool, loads: list[NodeLoad], current: int
) -> None:
    if mf > max_mf:  # reachable only after a ban, and a banned job never moves
        banned = True
    decision = mfs_dispatch(QueuedJob(1, 1.0, mf=mf, banned=banned), current, loads, max_mf=max_mf)
    moves = decision.target is not None and decision.target != current
    if banned:
        assert decision == Dispatch(None, True)
    if moves:
        assert mf + 1 <= max_mf + 1
        assert decision.banned == (mf >= max_mf)
        if decision.banned:
            assert decision.target == fastest_node(loads)
    assert decision.banned or mf < max_mf


def test_cost() -> None:
    assert migration_cost(0, 0) == 0
    assert migration_cost(0.25, 1.75) == 2.0


def test_plan_slice_compares_the_grace_exactly() -> None:
    """Regression (issue 25, float audit S4): 15.400000000000002 / 0.5 and 1.1 * 28.0 both
    round to 30.800000000000004, but exactly w / r = 30.800000000000004 > g Q =
    30.80000000000000248...: the job is preempted, not given its grace."""
    params = PfsParameters(quantum=28.0, grace=1.1, max_preemption=9)
    assert 15.400000000000002 / 0.5 <= 1.1 * 28.0
    job = QueuedJob(1, 15.400000000000002)
    assert plan_slice(job, 0.5, params, may_send=False).end is SliceEnd.PREEMPT
    assert plan_slice(job._replace(remaining=15.4), 0.5, params, may_send=False).end is (
        SliceEnd.COMPLETE
    )
