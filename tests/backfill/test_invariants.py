"""Every backfilling invariant holds for every policy, and catches a broken variant.

Property tests run each policy on hypothesis workloads (exact estimates, early
completions, and jobs killed at their limit) and apply every checker of
`schedlib.testing.invariants.backfill` plus the common ones.

The broken variants below are plain decision functions (or record
transformations) plugged into the real engine model through
`schedule(..., decide=...)`, so that only the broken rule differs from the real
policy; for each property, hypothesis must find a counterexample.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
import pytest
from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st

from schedlib.backfill import (
    POLICIES,
    Decision,
    Plan,
    PlanDecision,
    Snapshot,
    conservative,
    easy,
    schedule,
)
from schedlib.model import Cluster, EventKind, Job, JobEvent, RunRecord
from schedlib.testing.invariants import (
    check_backfilling_run,
    check_capacity,
    check_conservative_reservations,
    check_easy_head_never_delayed,
    check_every_job_accounted,
    check_fcfs_order,
    check_kill_at_limit,
    check_lifecycle,
    check_reservations_feasible,
)
from schedlib.testing.strategies import RUNTIME_MODES, parallel_instances


def greedy_backfill(snapshot: Snapshot) -> Decision:
    """EASY that ignores the head's reservation: every later job that fits now starts."""
    decision = easy(snapshot)
    if decision.head is None:
        return decision
    free = snapshot.free - sum(j.procs for j in decision.start if j.requested_time)
    started, positions = list(decision.start), list(decision.positions)
    for k, job in enumerate(snapshot.queue):
        if k in positions or job is decision.head or job.procs > free:
            continue
        started.append(job)
        positions.append(k)
        if job.requested_time:
            free -= job.procs
    order = sorted(range(len(started)), key=positions.__getitem__)
    return Decision(
        tuple(started[i] for i in order),
        tuple(positions[i] for i in order),
        decision.head,
        decision.reservation,
    )


def rebuild_from_scratch(plan: Plan) -> PlanDecision:
    """Conservative whose compression empties the schedule and places every job again."""
    if not plan.released:
        return conservative(plan)
    editor = plan.profile.edit()
    editor.advance(plan.now)
    for job, at in zip(plan.queue, plan.reservations, strict=True):
        if at is not None:
            editor.release(at, job.requested_time, job.procs)
    profile = editor.freeze()
    fresh = Plan(plan.now, profile, plan.queue, (None,) * len(plan.queue), plan.released)
    return conservative(fresh)


def optimistic_promises(record: RunRecord) -> RunRecord:
    """A scheduler that promises every job it reserves a start right away."""
    events = [
        attrs.evolve(e, at=e.time) if e.kind is EventKind.RESERVE else e for e in record.events
    ]
    return RunRecord.from_log(record.algorithm, record.workload, events, capacity=record.capacity)


def first_processors(record: RunRecord) -> RunRecord:
    """A placement that always uses processors 0..n-1, whoever holds them."""
    events = []
    for e in record.events:
        if e.place:
            e = attrs.evolve(e, place=tuple(range(len(e.place))))
        events.append(e)
    return RunRecord.from_log(record.algorithm, record.workload, events, capacity=record.capacity)


def ignore_limit(jobs: list[Job], cluster: Cluster, policy: str) -> RunRecord:
    """A simulator that lets jobs run past their requested time."""
    extended = [attrs.evolve(j, requested_time=max(j.requested_time, j.runtime)) for j in jobs]
    record = schedule(extended, cluster, policy=policy)
    return RunRecord.from_log(policy, jobs, record.events, capacity=cluster.processors)


def no_arrival_reservation(record: RunRecord) -> RunRecord:
    """A conservative run that forgot to log (make) the reservation on arrival."""
    first: set[int] = set()
    events: list[JobEvent] = []
    for e in record.events:
        if e.kind is EventKind.RESERVE and e.job not in first:
            first.add(e.job)
            continue
        events.append(e)
    return RunRecord.from_log(record.algorithm, record.workload, events, capacity=record.capacity)


# ---------------------------------------------------------------- the properties

POLICY_CHECKS = {
    "fcfs": (check_fcfs_order,),
    "easy": (check_easy_head_never_delayed, check_reservations_feasible),
    "conservative": (check_conservative_reservations, check_reservations_feasible),
}


SPREAD = {"max_processors": 6, "max_jobs": 10, "max_submit": 30}
DENSE = {"max_processors": 4, "max_jobs": 10, "max_submit": 3, "max_requested_time": 6}


def instances(runtimes: str, bounds: dict[str, int] = SPREAD) -> st.SearchStrategy[Any]:
    return parallel_instances(**bounds, runtimes=runtimes)


@pytest.mark.parametrize("bounds", [SPREAD, DENSE], ids=["spread", "dense"])
@pytest.mark.parametrize("runtimes", RUNTIME_MODES)
@pytest.mark.parametrize("policy", POLICIES)
@settings(max_examples=max(200, settings.default.max_examples))
@given(data=st.data())
def test_every_invariant_holds(
    policy: str, runtimes: str, bounds: dict[str, int], data: st.DataObject
) -> None:
    cluster, jobs = data.draw(instances(runtimes, bounds))
    record = schedule(jobs, cluster, log_reservations=True, policy=policy)
    check_every_job_accounted(record)
    check_lifecycle(record)
    check_capacity(record)
    check_kill_at_limit(record)
    for check in POLICY_CHECKS[policy]:
        check(record)


@pytest.mark.parametrize("policy", POLICIES)
@given(instance=instances("any"))
def test_backfilling_run_checks_everything(
    policy: str, instance: tuple[Cluster, list[Job]]
) -> None:
    cluster, jobs = instance
    check_backfilling_run(schedule(jobs, cluster, log_reservations=True, policy=policy), policy)


# ---------------------------------------------- each property catches a broken variant

FIND = settings(
    max_examples=3000, derandomize=True, database=None, deadline=None, phases=[Phase.generate]
)


def caught(check: Callable[[RunRecord], None], record: RunRecord) -> bool:
    try:
        check(record)
    except AssertionError:
        return True
    return False


def counterexample(
    runtimes: str, breaks: Callable[[tuple[Cluster, list[Job]]], bool], **bounds: int
) -> tuple[Cluster, list[Job]]:
    strategy = parallel_instances(
        **{"max_processors": 6, "max_jobs": 10, "max_submit": 30, **bounds}, runtimes=runtimes
    )
    return find(strategy, breaks, settings=FIND)


def test_easy_checker_catches_a_backfill_that_ignores_the_reservation() -> None:
    def breaks(instance: tuple[Cluster, list[Job]]) -> bool:
        cluster, jobs = instance
        record = schedule(
            jobs, cluster, log_reservations=True, policy="easy", decide=greedy_backfill
        )
        return caught(check_easy_head_never_delayed, record)

    counterexample("exact", breaks)


def test_conservative_checker_catches_a_rebuild_from_scratch() -> None:
    """Rebuilding every reservation from scratch can move one later (the spec's warning)."""

    def breaks(instance: tuple[Cluster, list[Job]]) -> bool:
        cluster, jobs = instance
        record = schedule(
            jobs, cluster, log_reservations=True, policy="conservative", decide=rebuild_from_scratch
        )
        return caught(check_conservative_reservations, record)

    cluster, jobs = counterexample("early", breaks)
    # The real compression never moves a reservation later on the same input.
    check_conservative_reservations(
        schedule(jobs, cluster, log_reservations=True, policy="conservative")
    )


def test_conservative_checker_catches_a_lost_arrival_reservation() -> None:
    def breaks(instance: tuple[Cluster, list[Job]]) -> bool:
        cluster, jobs = instance
        record = no_arrival_reservation(
            schedule(jobs, cluster, log_reservations=True, policy="conservative")
        )
        return caught(check_conservative_reservations, record)

    counterexample("exact", breaks, min_jobs=1)


def test_feasibility_checker_catches_promises_that_overbook() -> None:
    def breaks(instance: tuple[Cluster, list[Job]]) -> bool:
        cluster, jobs = instance
        record = optimistic_promises(
            schedule(jobs, cluster, log_reservations=True, policy="conservative")
        )
        return caught(check_reservations_feasible, record)

    counterexample("exact", breaks)


def test_capacity_checker_catches_a_placement_that_double_books() -> None:
    def breaks(instance: tuple[Cluster, list[Job]]) -> bool:
        cluster, jobs = instance
        record = first_processors(schedule(jobs, cluster, log_reservations=True, policy="easy"))
        return caught(check_capacity, record)

    counterexample("exact", breaks)


def test_fcfs_checker_catches_backfilling() -> None:
    def breaks(instance: tuple[Cluster, list[Job]]) -> bool:
        cluster, jobs = instance
        return caught(
            check_fcfs_order,
            schedule(jobs, cluster, log_reservations=True, policy="fcfs", decide=easy),
        )

    counterexample("exact", breaks)


def test_kill_checker_catches_jobs_running_past_their_limit() -> None:
    def breaks(instance: tuple[Cluster, list[Job]]) -> bool:
        cluster, jobs = instance
        return caught(check_kill_at_limit, ignore_limit(jobs, cluster, "easy"))

    counterexample("any", breaks)


@pytest.mark.parametrize("bounds", [SPREAD, DENSE], ids=["spread", "dense"])
@given(data=st.data())
def test_conservative_compression_in_one_loop_decides_like_the_job_by_job_loop(
    bounds: dict[str, int], data: st.DataObject
) -> None:
    """Without `settled`, compression re-checks the held reservations in one editor call.

    With `settled` all unknown (`-inf`), the same checks run job by job in
    the policy's own loop (every job from `now`): every field of the
    decision, `settled` included, must be the same, at every pass of a run.
    """
    cluster, jobs = data.draw(instances("early", bounds))

    def both(plan: Plan) -> PlanDecision:
        decision = conservative(plan)
        unknown = (-float("inf"),) * len(plan.queue)
        assert decision == conservative(attrs.evolve(plan, settled=unknown))
        return decision

    schedule(jobs, cluster, policy="conservative", decide=both)
