"""The readings of the CSS 600 term report, and the run-level checkers of every decision.

Each reading is a pure rule (`on_home_node` / `on_last_node`, `contended_only`,
`local_mf_dispatch`) composed by `pool_rules`. Each is tested against the report's
text, on hand-made runs where the two readings of a question part, and in runs:
`check_pool_decisions` rebuilds the loads from the log and re-decides every placement,
next burst and remote-queue dispatch with an oracle written apart from the rules;
`check_dispatch_order` and `check_start_order` re-check every queue's order. Every
policy and every reading is run through them, with exact and with float times, and
each checker is shown to fail on a broken variant (a one-line change of a rule).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, Phase, example, find, given, settings
from hypothesis import strategies as st

from schedlib.errors import InvalidValueError
from schedlib.frequency import (
    HEAD,
    MFS_RULES,
    NEXT_BURST,
    POLICIES,
    REMOTE_QUEUE,
    Dispatch,
    LocalQueue,
    MfsParameters,
    NodeLoad,
    PfsParameters,
    PoolJob,
    PoolNode,
    PoolRules,
    QueuedJob,
    Readings,
    contended_only,
    fifo_order,
    local_mf_dispatch,
    mfs_dispatch,
    on_home_node,
    on_last_node,
    pfs_queue_order,
    pool_rules,
    send_remote,
    simulate_pool,
)
from schedlib.model import EventKind, RunRecord
from schedlib.testing.invariants import (
    check_dispatch_order,
    check_pool_decisions,
    check_pool_run,
    check_start_order,
)
from schedlib.testing.strategies import pool_jobs, pool_nodes, pool_settings, pools

Case = tuple[tuple[PoolJob, ...], tuple[PoolNode, ...], dict[str, Any]]
EXACT = pools(max_remote=3, max_jobs=6)
FLOATS = pools(max_remote=3, max_jobs=6, float_times=True)
# Many migrations: CPU-bound jobs, at least two remote nodes, every preemption sends.
MOVES = st.tuples(
    pool_jobs(min_jobs=2, max_jobs=6, max_bursts=2, max_work=10, max_submit=3),
    pool_nodes(min_remote=2, max_remote=3),
    pool_settings(quanta=(1,), graces=(1.0,), max_preemptions=(1,), max_mfs=(1, 2, 4)),
)
EVERY = Readings.every()
SEARCH = settings(
    max_examples=2000,
    derandomize=True,
    database=None,
    deadline=None,
    phases=[Phase.generate],
    suppress_health_check=list(HealthCheck),
)


DEFAULT = Readings()


def run(case: Case, policy: str | PoolRules, readings: Readings = DEFAULT) -> RunRecord:
    jobs, nodes, kw = case
    return simulate_pool(jobs, nodes, policy=policy, readings=readings, **kw)


def rules_of(case: Case, policy: str, readings: Readings = DEFAULT) -> PoolRules:
    kw = case[2]
    pfs = PfsParameters(kw["quantum"], grace=kw["grace"], max_preemption=kw["max_preemption"])
    return pool_rules(policy, pfs, MfsParameters(kw["max_mf"]), kw["cost"], readings)


def counterexample(condition: Any, strategy: st.SearchStrategy[Case], *, match: str) -> Case:
    """A case on which `condition` raises an AssertionError whose message holds `match`."""

    def fails(case: Case) -> bool:
        try:
            condition(case)
        except AssertionError as error:
            return match in str(error)
        return False

    return find(strategy, fails, settings=SEARCH)


# -- the readings as values ----------------------------------------------------------------


def test_readings_are_named_validated_and_enumerated() -> None:
    assert Readings() == Readings("head-node", "always", "availability")
    assert (NEXT_BURST[0], REMOTE_QUEUE[0], MFS_RULES[0]) == ("head-node", "always", "availability")
    assert len(EVERY) == len(set(EVERY)) == 8 and EVERY[0] == Readings()
    assert all(Readings.from_label(r.label) == r for r in EVERY)
    for bad, name in [
        (lambda: Readings(next_burst="home"), "Readings.next_burst = 'home'"),
        (lambda: Readings(remote_queue="fifo"), "Readings.remote_queue = 'fifo'"),
        (lambda: Readings(mfs="localMF"), "Readings.mfs = 'localMF'"),
        (lambda: Readings.from_label("head-node/always"), "readings = 'head-node/always'"),
    ]:
        with pytest.raises(InvalidValueError, match=name):
            bad()


def test_the_record_names_its_readings() -> None:
    readings = Readings("last-node", "literal", "local-mf")
    record = simulate_pool([PoolJob.cpu_bound(1, 0, 1)], [PoolNode()], readings=readings)
    assert [record.parameter(k) for k in ("next_burst", "remote_queue", "mfs")] == [
        "last-node",
        "literal",
        "local-mf",
    ]


# -- where the next burst runs ---------------------------------------------------------------


def test_next_burst_rules() -> None:
    assert [on_home_node(2, 0), on_last_node(2, 0)] == [0, 2]
    pfs = PfsParameters(1)
    assert pool_rules("pfs", pfs).next_burst is on_home_node
    assert pool_rules("pfs", pfs, readings=Readings("last-node")).next_burst is on_last_node


# A morphing job: a long burst sent to the remote node, then a short one.
MORPH = [PoolJob.interactive(1, 0, (4, 0.5), (1,))]
TWO = [PoolNode(1), PoolNode(2)]


@pytest.mark.parametrize(("reading", "node"), [("head-node", 0), ("last-node", 1)])
@pytest.mark.parametrize("policy", ["pfs", "pfs+mfs"])
def test_the_next_burst_runs_on_the_head_node_or_where_the_last_one_ended(
    policy: str, reading: str, node: int
) -> None:
    record = simulate_pool(
        MORPH, TWO, policy=policy, quantum=1, grace=1, max_preemption=1,
        readings=Readings(next_burst=reading),
    )  # fmt: skip
    ends = [(e.task, e.place) for e in record.events if e.kind is EventKind.COMPLETE and e.task]
    nexts = [e.place for e in record.events if e.detail == "next burst"]
    assert ends == [(1, (node,))] and nexts == [(node,)]
    check_pool_run(record, TWO)


@pytest.mark.parametrize("policy", ["round_robin", "fcfs"])
def test_the_baselines_keep_every_burst_on_the_node_they_placed_the_job_on(policy: str) -> None:
    pool = [PoolNode(1), PoolNode(2), PoolNode(1, 0.5)]
    jobs = [PoolJob.cpu_bound(0, 0, 6), PoolJob.interactive(1, 0, (1, 1, 1), (1, 1))]
    for reading in NEXT_BURST:
        record = simulate_pool(jobs, pool, policy=policy, readings=Readings(reading))
        places = {e.place for e in record.events if e.job == 1 and e.place}
        assert places == {(0,)}, (reading, places)  # node 1 took job 0; the head node job 1
        check_pool_run(record, pool)


# -- the remote queue: always dispatched, or the report's literal branches -------------------


def report_branches(unpreempted: int, preempted: int) -> str:
    """The report's remote-queue block, transcribed: what happens to the job."""
    if unpreempted == 0:
        if preempted == 0:
            return "unpreempted_queue.addToBack"
        return "no branch"
    elif preempted == 0:
        return "preempted_queue.addToBack"
    else:
        return "send"


@given(st.integers(0, 3), st.integers(0, 3), st.booleans())
def test_contended_only_follows_the_reports_branches(
    unpreempted: int, preempted: int, banned: bool
) -> None:
    job = QueuedJob(7, 9.0, pf=3, banned=banned)
    remotes = [NodeLoad(1, 1.0, 1.0, 0), NodeLoad(2, 2.0, 1.0, 0)]
    local = LocalQueue(unpreempted, preempted)
    decision = contended_only(job, 0, remotes, local, dispatch=send_remote)
    branch = report_branches(unpreempted, preempted)
    if branch == "send":
        assert decision == send_remote(job, 0, remotes, local) == Dispatch(2)
    else:  # stays; the report's missing branch is read as its neighbour's
        fresh = branch == "unpreempted_queue.addToBack"
        assert decision == Dispatch(None, banned, unpreempted=fresh)


SLOW = [PoolNode(1), PoolNode(0.5)]


@pytest.mark.parametrize("policy", ["pfs", "pfs+mfs"])
def test_a_lone_job_on_an_idle_head_node_migrates_only_under_always(policy: str) -> None:
    """The issue's case: the default reading sends a lone job to a slower node; the literal
    branches keep it where it is, since nothing else waits there."""
    job = [PoolJob.cpu_bound(1, 0, 6)]
    kw: dict[str, Any] = {"policy": policy, "quantum": 1, "grace": 1, "max_preemption": 2}
    spec = simulate_pool(job, SLOW, **kw)
    literal = simulate_pool(job, SLOW, readings=Readings(remote_queue="literal"), **kw)
    assert spec.outcomes[0].migrations == 1 and spec.outcomes[0].end == 2 + 4 / 0.5
    assert literal.outcomes[0].migrations == 0 and literal.outcomes[0].end == 6
    stays = [e.detail for e in literal.events if e.detail.startswith("stays")]
    assert stays == ["stays; unpreempted", "stays; unpreempted"]  # PF reached 2 twice
    for record in (spec, literal):
        check_pool_run(record, SLOW)


def test_under_the_literal_reading_a_job_migrates_only_when_both_queues_hold_jobs() -> None:
    """Three CPU-bound jobs on the head node: the first reaches the limit while one job is
    unpreempted and none preempted (stays); later ones when both queues hold jobs (sent)."""
    jobs = [PoolJob.cpu_bound(j, 0, 8) for j in range(3)]
    pool = [PoolNode(1), PoolNode(1), PoolNode(1)]
    record = simulate_pool(
        jobs, pool, policy="pfs", quantum=1, grace=1, max_preemption=1,
        readings=Readings(remote_queue="literal"),
    )  # fmt: skip
    dispatches = [
        (e.time, e.job, e.kind.value, e.detail)
        for e in record.events
        if e.kind is EventKind.MIGRATE or e.detail.startswith("stays")
    ]
    assert dispatches[0] == (1, 0, "assign", "stays")  # jobs 1, 2 unpreempted, none preempted
    assert dispatches[1] == (2, 1, "migrate", "from 0; MF=1")  # job 2 unpreempted, job 0 not
    check_pool_run(record, pool)


# -- MFS: the availability test, or the report's localMF test ------------------------------

LOADS = st.lists(
    st.tuples(
        st.sampled_from([0.5, 1.0, 2.0]), st.sampled_from([0.25, 0.5, 1.0]), st.integers(1, 3)
    ),
    min_size=1,
    max_size=4,
).map(lambda specs: [NodeLoad(i + 1, s, a, n) for i, (s, a, n) in enumerate(specs)])


@given(st.integers(0, 4), st.integers(0, 3), st.booleans(), LOADS, st.integers(0, 4))
def test_local_mf_keeps_a_remote_job_with_mf_at_most_max_mf(
    mf: int, max_mf: int, banned: bool, loads: list[NodeLoad], current: int
) -> None:
    """`if job.MF <= localMF then PFS(job, 1)` with localMF := MAX_MF, on remote nodes only;
    the head node's sends (PFS's `send`) are MFS's."""
    job = QueuedJob(1, 5.0, mf=mf, banned=banned)
    literal = local_mf_dispatch(job, current, loads, max_mf=max_mf)
    spec = mfs_dispatch(job, current, loads, max_mf=max_mf)
    if current != HEAD and not banned and mf <= max_mf:
        assert literal == Dispatch(None)
    else:
        assert literal == spec


@settings(max_examples=100)
@given(MOVES)
def test_under_local_mf_no_job_moves_between_remote_nodes(case: Case) -> None:
    """A job reaches a remote node from the head node with MF <= MAX_MF... and can raise its
    count only by moving on from there, or by coming back to the head node (a next burst,
    under the head-node reading) and being sent again: every move leaves the head node."""
    for burst in NEXT_BURST:
        record = run(case, "pfs+mfs", Readings(burst, mfs="local-mf"))
        moves = [e for e in record.events if e.kind is EventKind.MIGRATE]
        assert all(e.detail.startswith(f"from {HEAD};") for e in moves)
        if burst == "last-node":  # a job never returns to the head node: MF <= 1 <= MAX_MF
            assert all(o.migrations <= 1 for o in record.outcomes)


def test_spec_mfs_moves_jobs_between_remote_nodes_where_local_mf_does_not() -> None:
    jobs = [PoolJob.cpu_bound(j, 0, 12) for j in range(3)]
    pool = [PoolNode(1), PoolNode(1, 0.5), PoolNode(1, 0.5)]
    kw: dict[str, Any] = {"policy": "pfs+mfs", "quantum": 1, "grace": 1, "max_preemption": 1}
    spec = simulate_pool(jobs, pool, max_mf=3, **kw)
    local = simulate_pool(jobs, pool, max_mf=3, readings=Readings(mfs="local-mf"), **kw)
    assert max(o.migrations for o in spec.outcomes) > 1
    assert max(o.migrations for o in local.outcomes) == 1


@settings(max_examples=60)
@given(MOVES, st.sampled_from(REMOTE_QUEUE), st.sampled_from(NEXT_BURST))
def test_with_max_mf_zero_local_mf_is_spec_event_for_event(
    case: Case, remote: str, burst: str
) -> None:
    """With MAX_MF = 0 every job the head node sends is banned at once: the readings agree."""
    zero = (case[0], case[1], {**case[2], "max_mf": 0})
    spec = run(zero, "pfs+mfs", Readings(burst, remote, "availability"))
    local = run(zero, "pfs+mfs", Readings(burst, remote, "local-mf"))
    assert spec.events == local.events


# -- every decision, in runs of every policy and reading, exact and float times -------------

# Found by hypothesis against the two one-line mutants of the model's load bookkeeping
# (issue 28): with them the target of a migration changes on these three-node pools.
SOURCE_KEEPS_THE_JOB = (
    (PoolJob.cpu_bound(0, 0, 5), PoolJob.cpu_bound(1, 0, 2), PoolJob.cpu_bound(2, 0, 2)),
    (PoolNode(1, 0.5), PoolNode(0.5, 1), PoolNode(1, 1)),
    {"quantum": 1, "grace": 1, "max_preemption": 1, "max_mf": 4},
)
LANDING_COUNTED_TWICE = (
    (PoolJob.cpu_bound(0, 0, 1), PoolJob.cpu_bound(1, 0, 1)),
    (PoolNode(1, 0.5), PoolNode(1, 1), PoolNode(1, 1)),
    {"quantum": 1, "grace": 1, "max_preemption": 1, "max_mf": 4},
)


def check_every_decision(record: RunRecord, nodes: Sequence[PoolNode]) -> None:
    policy = record.parameter("policy")
    check_pool_decisions(record, nodes)
    orders = {"pfs": ("pfs", "pfs"), "pfs+mfs": ("pfs", "mfs")}.get(policy, ("fifo", "fifo"))
    check_start_order(record, len(nodes), head=orders[0], remote=orders[1])
    if policy in ("pfs", "pfs+mfs"):
        order = "mfs" if policy == "pfs+mfs" else "fifo"
        check_dispatch_order(record, len(nodes), order=order)


def _readings_of(policy: str) -> list[Readings]:
    if policy in ("pfs", "pfs+mfs"):
        return list(EVERY)
    return [Readings(n) for n in NEXT_BURST]  # the baselines read nothing else


COMBINATIONS = [(p, r) for p in POLICIES for r in _readings_of(p)]


@pytest.mark.parametrize(("policy", "readings"), COMBINATIONS, ids=lambda x: getattr(x, "label", x))
@settings(max_examples=40)
@given(EXACT)
def test_every_decision_is_the_reports_exact_times(
    policy: str, readings: Readings, case: Case
) -> None:
    check_every_decision(run(case, policy, readings), case[1])


@pytest.mark.parametrize(("policy", "readings"), COMBINATIONS, ids=lambda x: getattr(x, "label", x))
@settings(max_examples=40)
@given(FLOATS)
def test_every_decision_is_the_reports_float_times(
    policy: str, readings: Readings, case: Case
) -> None:
    check_every_decision(run(case, policy, readings), case[1])


@pytest.mark.parametrize("readings", EVERY, ids=lambda r: r.label)
@settings(max_examples=80)
@given(MOVES)
@example(SOURCE_KEEPS_THE_JOB)
@example(LANDING_COUNTED_TWICE)
def test_every_migration_goes_where_the_loads_say_with_many_migrations(
    readings: Readings, case: Case
) -> None:
    for policy in ("pfs", "pfs+mfs"):
        check_every_decision(run(case, policy, readings), case[1])


def test_the_mutants_cases_migrate_to_the_most_available_node() -> None:
    """The two cases above, by hand: who goes where, and why."""

    def moves(case: Case) -> list[tuple[float, int, int, str]]:
        record = run(case, "pfs+mfs")
        check_every_decision(record, case[1])
        return [
            (e.time, e.job, e.place[0], e.detail.split(";")[0])
            for e in record.events
            if e.kind is EventKind.MIGRATE
        ]

    # t=1: job 0 to node 1 (A = 1 on both remote nodes: the lower index); it lands at once
    # and completes there at 1.5, so at t=2 node 1 is idle again and wins the same tie. Were
    # its landing counted a second time, node 1 would still hold one job at t=2 (A = 1/2)
    # and job 1 would go to node 2.
    assert moves(LANDING_COUNTED_TWICE) == [(1, 0, 1, "from 0"), (2, 1, 1, "from 0")]
    # t=5: job 1 has completed on node 1; job 2, preempted on node 2 beside job 0 (its share
    # a_c / n_c = 1/2), moves to the idle node 1 (A = 1). t=6: job 2 completes there, and job
    # 0, preempted on node 2 where it is now alone (share 1), stays: node 1 offers 1, not
    # strictly more. Were node 2 still counting job 2, job 0's share would read 1/2 and it
    # would move to node 1.
    assert moves(SOURCE_KEEPS_THE_JOB) == [
        (1, 0, 2, "from 0"),
        (2, 1, 1, "from 0"),
        (3, 2, 2, "from 0"),
        (5, 2, 1, "from 2"),
    ]


# -- each checker fails on a broken rule ---------------------------------------------------


def _least_available(job: QueuedJob, current: int, loads: Sequence[NodeLoad], local: Any) -> Any:
    others = [load for load in loads if load.node != current]
    if not others:
        return Dispatch(None)
    return Dispatch(min(others, key=lambda x: (x.availability / (x.resident + 1), x.node)).node)


def test_decisions_checker_fails_when_a_job_goes_to_a_less_available_node() -> None:
    def condition(case: Case) -> None:
        broken = attrs.evolve(rules_of(case, "pfs"), dispatch=_least_available)
        check_pool_decisions(run(case, broken), case[1])

    counterexample(condition, MOVES, match="in the remote queue")


def test_decisions_checker_fails_when_mfs_ignores_loads_set_by_earlier_moves() -> None:
    """Broken variant: every job of one instant is sent on the loads before the pass."""

    def stale(job: QueuedJob, current: int, loads: Sequence[NodeLoad], local: Any) -> Any:
        first = [load._replace(resident=0) for load in loads]
        return mfs_dispatch(job, current, first, local, max_mf=99)

    def condition(case: Case) -> None:
        broken = attrs.evolve(rules_of(case, "pfs+mfs"), dispatch=stale)
        check_pool_decisions(run((case[0], case[1], {**case[2], "max_mf": 99}), broken), case[1])

    counterexample(condition, MOVES, match="in the remote queue")


def test_decisions_checker_fails_when_the_next_burst_goes_elsewhere() -> None:
    def condition(case: Case) -> None:
        broken = attrs.evolve(rules_of(case, "pfs"), next_burst=on_last_node)  # reading: head
        check_pool_decisions(run(case, broken), case[1])

    counterexample(condition, MOVES, match="the node its submission")


def test_decisions_checker_fails_when_the_literal_test_reads_or_for_and() -> None:
    """Broken variant of the literal branches: migrate when *either* queue holds a job."""

    def either(job: QueuedJob, current: int, loads: Sequence[NodeLoad], local: LocalQueue) -> Any:
        if local.unpreempted or local.preempted:  # mutation: was `and`
            return send_remote(job, current, loads, local)
        return Dispatch(None, job.banned, unpreempted=True)

    def condition(case: Case) -> None:
        literal = Readings(remote_queue="literal")
        broken = attrs.evolve(rules_of(case, "pfs", literal), dispatch=either)
        check_pool_decisions(run(case, broken), case[1])

    counterexample(condition, MOVES, match="in the remote queue")


def test_decisions_checker_fails_when_local_mf_compares_strictly() -> None:
    """Broken variant of the localMF test: `MF < localMF` for `MF <= localMF`."""

    def strict(job: QueuedJob, current: int, loads: Sequence[NodeLoad], local: Any) -> Any:
        return local_mf_dispatch(job._replace(mf=job.mf + 1), current, loads, local, max_mf=2)

    def condition(case: Case) -> None:
        rules = rules_of(case, "pfs+mfs", Readings(mfs="local-mf"))
        broken = attrs.evolve(rules, dispatch=strict)
        check_pool_decisions(run((case[0], case[1], {**case[2], "max_mf": 2}), broken), case[1])

    counterexample(condition, MOVES, match="in the remote queue")


def test_decisions_checker_fails_when_a_baseline_places_every_job_on_the_head_node() -> None:
    def condition(case: Case) -> None:
        broken = attrs.evolve(rules_of(case, "round_robin"), at_head=True)
        check_pool_decisions(run(case, broken), case[1])

    counterexample(condition, EXACT, match="joins node 0, not node")


def test_dispatch_order_checker_fails_when_mfs_dispatches_first_in_first_out() -> None:
    """The issue's mutant: the remote queue dispatched FIFO under MFS."""

    def condition(case: Case) -> None:
        broken = attrs.evolve(rules_of(case, "pfs+mfs"), dispatch_order=fifo_order)
        check_dispatch_order(run(case, broken), len(case[1]), order="mfs")

    counterexample(condition, MOVES, match="out of MFS order")


def test_queue_order_checker_fails_on_pfs_order_on_mfs_nodes() -> None:
    def condition(case: Case) -> None:
        broken = attrs.evolve(rules_of(case, "pfs+mfs"), remote_order=pfs_queue_order)
        check_start_order(run(case, broken), len(case[1]), head="pfs", remote="mfs")

    counterexample(condition, MOVES, match="out of MFS order")


def test_queue_order_checker_fails_when_pfs_serves_the_preempted_queue_first() -> None:
    def preempted_first(waiting: Sequence[QueuedJob], rng: random.Random) -> int:
        old = [i for i, q in enumerate(waiting) if q.preempted]
        return old[0] if old else 0

    def condition(case: Case) -> None:
        broken = attrs.evolve(rules_of(case, "pfs"), head_order=preempted_first)
        check_start_order(run(case, broken), len(case[1]), head="pfs", remote="pfs")

    counterexample(condition, EXACT, match="out of PFS order")


def test_queue_order_checker_fails_when_a_baseline_serves_its_queue_backwards() -> None:
    def last(waiting: Sequence[QueuedJob], rng: random.Random) -> int:
        return len(waiting) - 1

    def condition(case: Case) -> None:
        broken = attrs.evolve(rules_of(case, "round_robin"), head_order=last, remote_order=last)
        check_start_order(run(case, broken), len(case[1]), head="fifo", remote="fifo")

    counterexample(condition, EXACT, match="out of FIFO order")


def test_the_checkers_refuse_what_they_do_not_know() -> None:
    record = simulate_pool([PoolJob.cpu_bound(1, 0, 1)], [PoolNode()])
    mine = attrs.evolve(pool_rules("pfs", PfsParameters(1)), name="mine")
    with pytest.raises(InvalidValueError, match="policy = 'mine'"):
        check_pool_decisions(
            simulate_pool([PoolJob.cpu_bound(1, 0, 1)], [PoolNode()], policy=mine), []
        )
    with pytest.raises(InvalidValueError, match="order = 'lifo'"):
        check_dispatch_order(record, 1, order="lifo")
    with pytest.raises(InvalidValueError, match="order = 'random'"):
        check_start_order(record, 1, head="pfs", remote="random")
