"""The invariants of PFS / MFS (the CSS 600 term report) as hypothesis properties.

Each property holds for every policy it applies to, and each is shown to fail
on a deliberately broken variant defined here (a one-line change of a rule),
so that none is vacuous. The wait bounds are tested on both sides: they hold
under their stated assumptions, and a search finds a violation when one
assumption is dropped.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

from schedlib.frequency import (
    MfsParameters,
    MigrationCost,
    PfsParameters,
    PoolJob,
    PoolNode,
    PoolRules,
    QueuedJob,
    Slice,
    SliceEnd,
    mfs_dispatch,
    plan_slice,
    pool_rules,
    simulate_pool,
)
from schedlib.model import EventKind, RunRecord
from schedlib.testing.invariants import (
    check_bursts_complete,
    check_capacity,
    check_every_job_accounted,
    check_grace,
    check_lifecycle,
    check_migration_limits,
    check_pool_run,
    check_preemption_counts,
    check_priority_wait,
    check_round_robin_wait,
    check_short_bursts_stay,
    check_work_conserved,
)
from schedlib.testing.strategies import pools

Case = tuple[tuple[PoolJob, ...], tuple[PoolNode, ...], dict[str, Any]]
CASES = pools(max_remote=3, max_jobs=7)
BUSY = pools(min_remote=1, max_remote=2, max_jobs=8)  # more jobs per node: long waits
PREEMPTIVE = ("pfs", "pfs+mfs")

# Counterexample searches on broken variants: derandomized, generation only (we need one
# counterexample, not the smallest), stopping at the first.
SEARCH = settings(
    max_examples=2000,
    derandomize=True,
    database=None,
    deadline=None,
    phases=[Phase.generate],
    suppress_health_check=list(HealthCheck),
)


def run(case: Case, policy: str | PoolRules) -> RunRecord:
    jobs, nodes, kw = case
    return simulate_pool(jobs, nodes, policy=policy, **kw)


def rules_of(case: Case, policy: str) -> PoolRules:
    kw = case[2]
    pfs = PfsParameters(kw["quantum"], grace=kw["grace"], max_preemption=kw["max_preemption"])
    return pool_rules(policy, pfs, MfsParameters(kw["max_mf"]), kw["cost"])


def counterexample(
    condition: Callable[[Case], None],
    strategy: st.SearchStrategy[Case] = CASES,
    *,
    match: str,
) -> Case:
    """A case on which `condition` raises an AssertionError whose message holds `match`.

    The search fails the test (hypothesis raises NoSuchExample) when there is none.
    """

    def fails(case: Case) -> bool:
        try:
            condition(case)
        except AssertionError as error:
            return match in str(error)
        return False

    return find(strategy, fails, settings=SEARCH)


# -- every job completes; bursts complete once, in order ---------------------------------


@pytest.mark.parametrize("policy", ["pfs", "pfs+mfs", "round_robin", "fcfs"])
@settings(max_examples=150)
@given(CASES)
def test_every_job_and_every_burst_completes(policy: str, case: Case) -> None:
    record = run(case, policy)
    check_every_job_accounted(record)
    check_lifecycle(record)
    check_capacity(record)
    check_bursts_complete(record)
    assert all(o.state is not None and o.state.value == "completed" for o in record.outcomes)


def test_bursts_checker_fails_on_a_lost_burst() -> None:
    jobs = (PoolJob.interactive(1, 0, (1, 1), (1,)),)
    record = simulate_pool(jobs, [PoolNode()], policy="pfs")
    lost = attrs.evolve(
        record, events=[e for e in record.events if not (e.kind is EventKind.COMPLETE and e.task)]
    )
    with pytest.raises(AssertionError, match="1 of its 2 burst"):
        check_bursts_complete(lost)


# -- work is conserved across preemption and migration, plus K in transit ----------------


@pytest.mark.parametrize("policy", ["pfs", "pfs+mfs", "round_robin", "fcfs"])
@settings(max_examples=150)
@given(CASES)
def test_work_is_conserved_and_each_migration_costs_k(policy: str, case: Case) -> None:
    record = run(case, policy)
    check_work_conserved(record, case[1], cost=record.parameter("cost"))


def test_work_checker_fails_when_migration_is_free() -> None:
    """Broken variant: the model lands migrated jobs at once (`cost=0`) while K > 0."""

    def condition(case: Case) -> None:
        rules = attrs.evolve(rules_of(case, "pfs+mfs"), cost=0.0)
        check_work_conserved(run(case, rules), case[1], cost=case[2]["cost"].total)

    counterexample(condition, match="not its landing there")


def test_work_checker_fails_when_work_is_taken_for_time() -> None:
    """Broken variant of the PFS step: `needed = job.remaining` instead of `job.remaining / rate`
    (the remaining work read as remaining time), wrong on every node of rate other than 1."""

    def as_time(job: QueuedJob, rate: float, *, may_send: bool, parameters: PfsParameters) -> Slice:
        planned = plan_slice(
            job._replace(remaining=job.remaining / rate), 1.0, parameters, may_send=may_send
        )
        if planned.end is SliceEnd.COMPLETE:  # mutation: completes after w, not w / r, seconds
            return planned._replace(duration=job.remaining)
        return planned

    def condition(case: Case) -> None:
        rules = rules_of(case, "pfs")
        pfs = rules.plan.keywords["parameters"]  # type: ignore[attr-defined]
        broken = attrs.evolve(rules, plan=lambda j, r, **kw: as_time(j, r, parameters=pfs, **kw))
        check_work_conserved(run(case, broken), case[1], cost=case[2]["cost"].total)

    counterexample(condition, match="of work done in its segments")


# -- PF: counts preemptions, is 0 after completion, sends at MAX_PREEMPTION --------------


def check_pf(record: RunRecord, case: Case) -> None:
    kw = case[2]
    policy = record.parameter("policy")
    check_preemption_counts(
        record,
        max_preemption=kw["max_preemption"],
        sending_nodes=(0,) if policy == "pfs" else range(len(case[1])),
    )


@pytest.mark.parametrize("policy", PREEMPTIVE)
@settings(max_examples=150)
@given(CASES)
def test_pf_counts_preemptions_and_is_zero_after_completion(policy: str, case: Case) -> None:
    check_pf(run(case, policy), case)


def test_pf_checker_fails_when_completion_does_not_reset_pf() -> None:
    """Broken variant: a completed burst keeps its PF (the reset on completion removed)."""

    def keep(job: QueuedJob, rate: float, **kw: Any) -> Slice:
        planned = plan_slice(job, rate, **kw)
        return planned._replace(pf=job.pf) if planned.end is SliceEnd.COMPLETE else planned

    def condition(case: Case) -> None:
        rules = rules_of(case, "pfs")
        pfs = rules.plan.keywords["parameters"]  # type: ignore[attr-defined]
        broken = attrs.evolve(rules, plan=lambda j, r, **kw: keep(j, r, parameters=pfs, **kw))
        check_pf(run(case, broken), case)

    counterexample(condition, match="must be reset to 0 on completion")


# -- MF <= MAX_MF + 1; a banned job never migrates again ----------------------------------


@settings(max_examples=200)
@given(CASES)
def test_mf_stays_within_max_mf_plus_one_and_banned_jobs_stay(case: Case) -> None:
    record = run(case, "pfs+mfs")
    check_migration_limits(record, case[1], max_mf=case[2]["max_mf"])
    assert max((o.migrations for o in record.outcomes), default=0) <= case[2]["max_mf"] + 1


def test_mf_checker_fails_with_an_off_by_one_limit() -> None:
    """Broken variant: MFS tests `MF > MAX_MF` instead of `MF >= MAX_MF` before a move."""

    def condition(case: Case) -> None:
        rules = rules_of(case, "pfs+mfs")

        def late(job: QueuedJob, current: int, loads: Sequence[Any], local: Any) -> Any:
            return mfs_dispatch(
                job._replace(mf=job.mf - 1), current, loads, local, max_mf=case[2]["max_mf"]
            )

        check_migration_limits(
            run(case, attrs.evolve(rules, dispatch=late)), case[1], max_mf=case[2]["max_mf"]
        )

    counterexample(condition, match="is not marked banned")


def test_mf_checker_fails_on_a_migration_beyond_the_limit() -> None:
    pool = [PoolNode(1), PoolNode(1), PoolNode(2, 0.25)]
    record = simulate_pool(
        [PoolJob.cpu_bound(1, 0, 12)], pool, policy="pfs+mfs", quantum=1, max_preemption=1, max_mf=1
    )
    moves = [e for e in record.events if e.kind is EventKind.MIGRATE]
    assert [e.detail for e in moves] == ["from 0; MF=1", "from 1; MF=2; banned"]
    check_migration_limits(record, pool, max_mf=1)
    again = attrs.evolve(moves[-1], time=moves[-1].time + 1, detail="from 2; MF=3; banned")
    beyond = attrs.evolve(record, events=[*record.events, again])
    with pytest.raises(AssertionError, match="MF exceeds MAX_MF \\+ 1 = 2"):
        check_migration_limits(beyond, pool, max_mf=1)


def test_ban_checker_fails_when_the_ban_is_ignored() -> None:
    """Broken variant: PFS forgets the ban, so a banned job enters the remote queue again."""

    def forget(job: QueuedJob, rate: float, **kw: Any) -> Slice:
        return plan_slice(job._replace(banned=False), rate, **kw)

    def condition(case: Case) -> None:
        rules = rules_of(case, "pfs+mfs")
        pfs = rules.plan.keywords["parameters"]  # type: ignore[attr-defined]
        broken = attrs.evolve(rules, plan=lambda j, r, **kw: forget(j, r, parameters=pfs, **kw))
        check_migration_limits(run(case, broken), case[1], max_mf=case[2]["max_mf"])

    counterexample(condition, match="enters the remote queue again")


# -- jobs that finish within their first quantum never migrate ------------------------------


@pytest.mark.parametrize("policy", ["pfs", "pfs+mfs", "round_robin"])
@settings(max_examples=150)
@given(CASES)
def test_short_jobs_are_never_preempted_nor_migrated(policy: str, case: Case) -> None:
    record = run(case, policy)
    grace = case[2]["grace"] if policy != "round_robin" else 1.0
    check_short_bursts_stay(record, case[1], quantum=case[2]["quantum"], grace=grace)


def test_short_jobs_checker_fails_when_the_quantum_boundary_is_strict() -> None:
    """Broken variant: `<` for `<=` and no grace — a burst of exactly Q r is preempted."""

    def strict(job: QueuedJob, rate: float, *, may_send: bool, quantum: float, limit: int) -> Slice:
        if job.remaining / rate < quantum:  # mutation: was `<= grace * quantum`
            return Slice(job.job, job.remaining / rate, SliceEnd.COMPLETE, 0)
        pf = job.pf + 1
        send = may_send and not job.banned and pf >= limit
        return Slice(job.job, quantum, SliceEnd.REMOTE if send else SliceEnd.PREEMPT, pf)

    def condition(case: Case) -> None:
        kw = case[2]
        broken = attrs.evolve(
            rules_of(case, "pfs"),
            plan=lambda j, r, **o: strict(
                j, r, quantum=kw["quantum"], limit=kw["max_preemption"], **o
            ),
        )
        check_short_bursts_stay(run(case, broken), case[1], quantum=kw["quantum"])

    counterexample(condition, match="all fit in their first quantum")


# -- the wait bounds, both sides -----------------------------------------------------------


def check_rr(record: RunRecord, case: Case, on: Sequence[int] | None = None) -> None:
    grace = 1.0 if record.parameter("policy") == "round_robin" else case[2]["grace"]
    check_round_robin_wait(record, quantum=case[2]["quantum"], grace=grace, on=on)


@pytest.mark.parametrize("policy", ["pfs", "round_robin"])
@settings(max_examples=200)
@given(BUSY)
def test_round_robin_wait_bound_holds_on_round_robin_nodes(policy: str, case: Case) -> None:
    check_rr(run(case, policy), case)


@settings(max_examples=200)
@given(BUSY)
def test_pfs_mfs_head_node_keeps_the_round_robin_bound_remote_nodes_the_mfs_bound(
    case: Case,
) -> None:
    record = run(case, "pfs+mfs")
    check_rr(record, case, on=(0,))
    kw = case[2]
    remotes = range(1, len(case[1]))
    check_priority_wait(record, case[1], quantum=kw["quantum"], grace=kw["grace"], on=remotes)


@settings(max_examples=150)
@given(BUSY)
def test_every_policy_passes_every_checker_that_applies(case: Case) -> None:
    for policy in ("pfs", "pfs+mfs", "round_robin", "fcfs"):
        check_pool_run(run(case, policy), case[1])


def test_round_robin_bound_fails_on_mfs_ordered_nodes() -> None:
    """Assumption dropped: round-robin order. MFS serves the highest MF first (ties at
    random), so a job can wait for several slices of the same other job."""
    counterexample(lambda case: check_rr(run(case, "pfs+mfs"), case), BUSY, match="more than R + A")


def test_round_robin_bound_fails_when_slices_are_not_cut() -> None:
    """Assumption dropped: slices of at most g Q. FCFS runs bursts to completion."""

    def condition(case: Case) -> None:
        check_round_robin_wait(
            run(case, "fcfs"), quantum=case[2]["quantum"], grace=case[2]["grace"]
        )

    counterexample(condition, BUSY, match="more than g*Q*(R+A)")


def test_round_robin_bound_fails_when_a_preempted_job_jumps_the_queue() -> None:
    """Broken variant of PFS order: the *last* preempted job goes first (a LIFO queue)."""

    def lifo(waiting: Sequence[QueuedJob], rng: random.Random) -> int:
        fresh = [i for i, q in enumerate(waiting) if not q.preempted]
        return fresh[0] if fresh else len(waiting) - 1  # mutation: was `0`

    def condition(case: Case) -> None:
        broken = attrs.evolve(rules_of(case, "pfs"), head_order=lifo, remote_order=lifo)
        check_rr(run(case, broken), case)

    counterexample(condition, BUSY, match="more than R + A")


def test_mfs_bound_fails_when_the_lowest_mf_goes_first() -> None:
    """Assumption dropped: highest-MF-first order (here the lowest goes first)."""

    def lowest(waiting: Sequence[QueuedJob], rng: random.Random) -> int:
        return min(range(len(waiting)), key=lambda i: (waiting[i].mf, i))

    def condition(case: Case) -> None:
        kw = case[2]
        broken = attrs.evolve(rules_of(case, "pfs+mfs"), remote_order=lowest)
        remotes = range(1, len(case[1]))
        check_priority_wait(
            run(case, broken), case[1], quantum=kw["quantum"], grace=kw["grace"], on=remotes
        )

    counterexample(condition, BUSY, match="with MF >=")


def test_the_bounds_on_a_hand_made_case() -> None:
    """Two CPU-bound jobs on one remote node under PFS+MFS; the one migrated twice goes first."""
    pool = [PoolNode(1), PoolNode(1), PoolNode(1, 0.5)]
    jobs = [PoolJob.cpu_bound(j, 0, 10) for j in range(3)]
    record = simulate_pool(
        jobs, pool, policy="pfs+mfs", quantum=1, grace=1, max_preemption=1, max_mf=2, seed=3
    )
    check_pool_run(record, pool)
    with pytest.raises(AssertionError, match="more than R \\+ A"):
        check_round_robin_wait(record, quantum=1, grace=1)


def test_cost_strategy_splits_k() -> None:
    assert MigrationCost(1, 1).total == 2


def first_slice_waits(record: RunRecord, on: Sequence[int]) -> list[tuple[int, int, int]]:
    """Per arrival at a node of `on`: (job, slices of others before its first slice, 1 + U),
    U = the other jobs on the node then that have not started since they arrived."""
    fresh: dict[int, set[int]] = {}  # node -> jobs waiting for their first slice there
    opened: dict[int, list[int]] = {}  # job -> [node, slices seen, 1 + U]
    out = []
    for e in record.events:
        if e.kind is EventKind.ASSIGN and e.place[0] in on:
            v = e.place[0]
            opened[e.job] = [v, 0, 1 + len(fresh.setdefault(v, set()))]
            fresh[v].add(e.job)
        elif e.kind is EventKind.START:
            v = e.place[0]
            fresh.get(v, set()).discard(e.job)
            spell = opened.pop(e.job, None)
            if spell is not None:
                out.append((e.job, spell[1], spell[2]))
            for job, other in opened.items():
                if other[0] == v and job != e.job:
                    other[1] += 1
    return out


@settings(max_examples=150)
@given(BUSY)
def test_a_new_arrival_waits_at_most_one_plus_the_unpreempted_jobs_ahead(case: Case) -> None:
    """The first-slice form of the bound: PFS order serves arrivals FIFO, ahead of preempted
    jobs, so an interactive burst waits for the running slice and the unpreempted jobs ahead."""
    for policy, on in (("pfs", range(len(case[1]))), ("pfs+mfs", (0,))):
        for job, slices, bound in first_slice_waits(run(case, policy), list(on)):
            assert slices <= bound, (policy, job, slices, bound)


def test_first_slice_bound_fails_under_round_robin_order() -> None:
    """Plain round robin queues an arrival behind the preempted jobs too."""

    def condition(case: Case) -> None:
        for job, slices, bound in first_slice_waits(run(case, "round_robin"), range(4)):
            assert slices <= bound, f"job {job}: {slices} > 1 + U = {bound}"

    counterexample(condition, BUSY, match="> 1 + U")


# -- the grace boundary in float times (issue 25, float audit S4) -------------------------


@st.composite
def grace_boundaries(draw: st.DrawFn) -> tuple[float, PoolNode, float, float]:
    """A burst of work within a few ulps of (k + g) Q r: after k quanta it needs g Q."""
    quantum = draw(st.sampled_from((0.7, 1.3, 0.1)))
    grace = draw(st.sampled_from((1.1, 1.5, 1.0)))
    node = PoolNode(draw(st.sampled_from((1.0, 1.5, 0.75))), draw(st.sampled_from((1.0, 0.6))))
    k = draw(st.integers(0, 4))
    work = (k * quantum + grace * quantum) * node.rate  # rounded, as a real work would be
    for _ in range(abs(nudge := draw(st.integers(-2, 2)))):
        work = math.nextafter(work, math.inf if nudge > 0 else -math.inf)
    return work, node, quantum, grace


@settings(max_examples=200)
@given(grace_boundaries())
def test_slices_follow_the_grace_exactly(case: tuple[float, PoolNode, float, float]) -> None:
    """On the boundary w / r = (k + g) Q the job gets its grace iff it is exactly within it."""
    work, node, quantum, grace = case
    record = simulate_pool(
        [PoolJob.cpu_bound(0, 0, work)], [node], policy="pfs", quantum=quantum, grace=grace
    )
    check_grace(record, [node], quantum=quantum, grace=grace)
    check_pool_run(record, [node])
