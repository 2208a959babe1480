"""The mapping functions: tl, PGS and FCFS per decision (Verboven et al. 2008 §2.2-§3.1)."""

from __future__ import annotations

import math

import hypothesis
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlib.availability.mapping import (
    Assignment,
    MappingDecision,
    PendingJob,
    ResourceView,
    SchedulerSnapshot,
    map_fcfs,
    map_pgs,
    time_left,
    unschedulable_reason,
)
from schedlib.errors import InvalidValueError
from schedlib.testing.invariants import check_mapping_decision, check_time_left
from schedlib.testing.strategies import scheduler_snapshots

SEARCH = settings(
    max_examples=2000,
    derandomize=True,
    database=None,
    deadline=None,
    phases=(hypothesis.Phase.generate,),
)
"""Searches for counterexamples on broken variants: found reliably, not shrunk (faster)."""


# -- tl -------------------------------------------------------------------------------


def test_time_left_is_the_papers_formula() -> None:
    # ru = 64, et_rj = 30, el_rj = 10, queued 12 and 8: 64 - 20 - 20.
    assert time_left(64, 30, 10, [12, 8]) == 24
    assert time_left(84) == 84
    assert time_left(10, 30, 35) == 15  # a job past its estimate gives time back
    assert ResourceView(0, 64, PendingJob(1, 30), 10, (PendingJob(2, 12),)).time_left == 32
    assert ResourceView(0, math.inf).time_left == math.inf


@given(st.integers(0, 1000), st.integers(0, 100), st.integers(0, 100), st.lists(st.integers(0, 50)))
def test_time_left_drops_by_each_queued_estimate(
    ru: int, et: int, el: int, queued: list[int]
) -> None:
    assert time_left(ru, et, el, queued) == ru - et + el - sum(queued)
    if queued:
        assert time_left(ru, et, el, queued) == time_left(ru, et, el, queued[:-1]) - queued[-1]


# -- a reference implementation, written from the paper's text --------------------------


def reference_pgs(snapshot: SchedulerSnapshot) -> MappingDecision:
    """Verboven et al. (2008) §2.3 written as plainly as possible, for a differential test."""
    tl = {v.resource: v.time_left for v in snapshot.resources}
    slots = {v.resource: snapshot.queue_length - v.held for v in snapshot.resources}
    order = [v.resource for v in snapshot.resources]
    waiting = list(snapshot.priority) + list(snapshot.regular)
    regular = {j.id for j in snapshot.regular}
    done: list[Assignment] = []
    for view in snapshot.resources:  # phase 1
        if view.running is None and not view.queued and slots[view.resource] > 0:
            for job in waiting:
                if job.estimate < tl[view.resource]:
                    waiting.remove(job)
                    done.append(Assignment(job.id, view.resource))
                    tl[view.resource] -= job.estimate
                    slots[view.resource] -= 1
                    break
    deferred = []
    for job in list(waiting):  # phase 2
        if not any(slots[r] > 0 for r in order):
            break
        fits = [r for r in order if slots[r] > 0 and tl[r] > job.estimate]
        if not fits:
            if job.id in regular:
                deferred.append(job.id)
            continue
        best = min(fits, key=lambda r: (tl[r], order.index(r)))
        done.append(Assignment(job.id, best))
        tl[best] -= job.estimate
        slots[best] -= 1
    return MappingDecision(tuple(done), tuple(deferred))


def reference_fcfs(snapshot: SchedulerSnapshot) -> MappingDecision:
    """Verboven et al. (2008) §3.1: each job to the first resource whose queue is not full."""
    slots = {v.resource: snapshot.queue_length - v.held for v in snapshot.resources}
    done = []
    for job in list(snapshot.priority) + list(snapshot.regular):
        free = [r for r in slots if slots[r] > 0]
        if not free:
            break
        done.append(Assignment(job.id, free[0]))
        slots[free[0]] -= 1
    return MappingDecision(tuple(done))


snapshots = st.one_of(scheduler_snapshots(), scheduler_snapshots(max_time=5))
"""Snapshots; short times make ties between tl and estimates frequent."""


@given(snapshots)
def test_pgs_matches_the_reference(snapshot: SchedulerSnapshot) -> None:
    assert map_pgs(snapshot) == reference_pgs(snapshot)


@given(scheduler_snapshots())
def test_fcfs_matches_the_reference(snapshot: SchedulerSnapshot) -> None:
    assert map_fcfs(snapshot) == reference_fcfs(snapshot)


# -- the invariants ---------------------------------------------------------------------


@given(snapshots)
def test_pgs_decisions_are_applicable_and_fit_strictly(snapshot: SchedulerSnapshot) -> None:
    for rule in ("idle", "empty-queue"):
        decision = map_pgs(snapshot, first_job_for=rule)  # type: ignore[arg-type]
        check_mapping_decision(snapshot, decision)
        check_time_left(snapshot, decision)  # strict: tl stays positive
        check_time_left(snapshot, decision, strict=False)  # so never negative


@given(scheduler_snapshots())
def test_fcfs_decisions_are_applicable(snapshot: SchedulerSnapshot) -> None:
    check_mapping_decision(snapshot, map_fcfs(snapshot))


@given(scheduler_snapshots())
def test_pgs_fills_every_slot_it_can(snapshot: SchedulerSnapshot) -> None:
    """After PGS, no waiting job fits a resource with a free slot."""
    decision = map_pgs(snapshot)
    assigned = {a.job for a in decision.assignments}
    left = {v.resource: v.time_left for v in snapshot.resources}
    free = {v.resource: snapshot.queue_length - v.held for v in snapshot.resources}
    estimate = {j.id: j.estimate for j in (*snapshot.priority, *snapshot.regular)}
    for a in decision.assignments:
        left[a.resource] -= estimate[a.job]
        free[a.resource] -= 1
    for job in (*snapshot.priority, *snapshot.regular):
        if job.id not in assigned:
            assert not any(free[r] > 0 and left[r] > job.estimate for r in left), job


def test_fcfs_violates_the_time_left_property() -> None:
    """The tl property is not vacuous: FCFS, which ignores uptimes, breaks it."""
    found = hypothesis.find(
        scheduler_snapshots(), lambda s: _fails(check_time_left, s, map_fcfs(s)), settings=SEARCH
    )
    assert found.regular or found.priority


def _fails(check, snapshot: SchedulerSnapshot, decision: MappingDecision, **kw) -> bool:  # type: ignore[no-untyped-def]
    try:
        check(snapshot, decision, **kw)
    except AssertionError:
        return True
    return False


# -- deliberately broken PGS variants: each property must catch one ---------------------


def pgs_greater_or_equal(snapshot: SchedulerSnapshot) -> MappingDecision:
    """Broken: best fit with `tl >= estimate` instead of `tl > estimate`."""
    shifted = SchedulerSnapshot(
        snapshot.now,
        tuple(
            ResourceView(v.resource, v.remaining_uptime + 0.125, v.running, v.elapsed, v.queued)
            for v in snapshot.resources
        ),
        snapshot.priority,
        snapshot.regular,
        snapshot.queue_length,
    )
    return map_pgs(shifted)  # times are multiples of 0.25: +1/8 turns > into >=


def pgs_ignoring_the_queue(snapshot: SchedulerSnapshot) -> MappingDecision:
    """Broken: tl without the queued jobs' runtimes (and without the running job's)."""
    bare = SchedulerSnapshot(
        snapshot.now,
        tuple(
            ResourceView(v.resource, v.remaining_uptime, None, 0, ()) for v in snapshot.resources
        ),
        snapshot.priority,
        snapshot.regular,
        snapshot.queue_length,
    )
    held = {v.resource: v.held for v in snapshot.resources}
    decision = map_pgs(bare)
    # Keep only what fits the real queues, so that the decision stays applicable.
    kept, used = [], dict.fromkeys(held, 0)
    for a in decision.assignments:
        if held[a.resource] + used[a.resource] < snapshot.queue_length:
            kept.append(a)
            used[a.resource] += 1
    return MappingDecision(tuple(kept), decision.deferred)


def test_strict_fit_catches_greater_or_equal() -> None:
    found = hypothesis.find(
        scheduler_snapshots(),
        lambda s: _fails(check_time_left, s, pgs_greater_or_equal(s)),
        settings=SEARCH,
    )
    assert found.resources


def test_never_negative_catches_ignoring_the_queue() -> None:
    found = hypothesis.find(
        scheduler_snapshots(),
        lambda s: _fails(check_time_left, s, pgs_ignoring_the_queue(s), strict=False),
        settings=SEARCH,
    )
    assert any(v.held for v in found.resources)


def test_reference_catches_a_wrong_tie_break() -> None:
    """The differential test is not vacuous: reversed resource order differs."""

    def reversed_ties(s: SchedulerSnapshot) -> MappingDecision:
        flipped = SchedulerSnapshot(
            s.now, tuple(reversed(s.resources)), s.priority, s.regular, s.queue_length
        )
        return map_pgs(flipped)

    hypothesis.find(
        scheduler_snapshots(), lambda s: reversed_ties(s) != reference_pgs(s), settings=SEARCH
    )


def test_decision_checker_catches_overfull_queues() -> None:
    jobs = (PendingJob(1, 1), PendingJob(2, 1))
    snap = SchedulerSnapshot(0, (ResourceView(0, 50),), regular=jobs, queue_length=1)
    bad = MappingDecision((Assignment(1, 0), Assignment(2, 0)))
    with pytest.raises(AssertionError, match="queue_length is 1"):
        check_mapping_decision(snap, bad)
    with pytest.raises(AssertionError, match="not waiting"):
        check_mapping_decision(snap, MappingDecision((Assignment(9, 0),)))
    with pytest.raises(AssertionError, match="not available"):
        check_mapping_decision(snap, MappingDecision((Assignment(1, 3),)))
    with pytest.raises(AssertionError, match="both assigned and deferred"):
        check_mapping_decision(snap, MappingDecision((Assignment(1, 0),), (1,)))


# -- the paper's rules, by example --------------------------------------------------------


def test_priority_queue_is_served_first() -> None:
    snap = SchedulerSnapshot(
        0,
        (ResourceView(0, 100),),
        priority=(PendingJob(7, 50),),
        regular=(PendingJob(1, 10),),
        queue_length=1,
    )
    assert map_pgs(snap).assignments == (Assignment(7, 0),)
    assert map_fcfs(snap).assignments == (Assignment(7, 0),)


def test_best_fit_takes_the_smallest_time_left_strictly_above() -> None:
    views = (ResourceView(0, 100, PendingJob(1, 1)), ResourceView(1, 31, PendingJob(2, 1)),
             ResourceView(2, 41, PendingJob(3, 1)))  # fmt: skip
    # tl: 99, 30, 40. A 30 s job does not fit tl = 30 (strict), goes to 40.
    snap = SchedulerSnapshot(0, views, regular=(PendingJob(9, 30),), queue_length=2)
    assert map_pgs(snap).assignments == (Assignment(9, 2),)


def test_jobs_that_fit_nowhere_are_deferred_and_priority_jobs_stay() -> None:
    snap = SchedulerSnapshot(
        0,
        (ResourceView(0, 20),),
        priority=(PendingJob(5, 90),),
        regular=(PendingJob(1, 60), PendingJob(2, 5), PendingJob(3, 70)),
        queue_length=3,
    )
    decision = map_pgs(snap)
    assert decision.assignments == (Assignment(2, 0),)
    assert decision.deferred == (1, 3)


def test_mapping_stops_when_every_queue_is_full() -> None:
    snap = SchedulerSnapshot(
        0, (ResourceView(0, 20),), regular=(PendingJob(1, 5), PendingJob(2, 60)), queue_length=1
    )
    assert map_pgs(snap) == MappingDecision((Assignment(1, 0),), ())


def test_first_job_rule_empty_queue_serves_busy_resources() -> None:
    busy, idle = ResourceView(0, 100, PendingJob(1, 10)), ResourceView(1, 50)
    snap = SchedulerSnapshot(0, (busy, idle), regular=(PendingJob(2, 40), PendingJob(3, 45)))
    # "idle": phase 1 serves only resource 1 (job 2); phase 2 puts job 3 on resource 0.
    assert map_pgs(snap).assignments == (Assignment(2, 1), Assignment(3, 0))
    # "empty-queue": phase 1 also serves the busy resource 0 first.
    decision = map_pgs(snap, first_job_for="empty-queue")
    assert decision.assignments == (Assignment(2, 0), Assignment(3, 1))
    with pytest.raises(InvalidValueError, match="first_job_for"):
        map_pgs(snap, first_job_for="busy")  # type: ignore[arg-type]


def test_unschedulable_reason() -> None:
    assert unschedulable_reason(863.75, 864) is None
    reason = unschedulable_reason(864, 864)
    assert reason is not None and "864" in reason and "uptime" in reason


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: SchedulerSnapshot(0, (ResourceView(0, 1), ResourceView(0, 2))), "listed twice"),
        (
            lambda: SchedulerSnapshot(
                0, (ResourceView(0, 1),), priority=(PendingJob(1, 1),), regular=(PendingJob(1, 2),)
            ),
            "job 1 appears twice",
        ),
        (
            lambda: SchedulerSnapshot(
                0, (ResourceView(0, 9, PendingJob(1, 1), 0, (PendingJob(2, 1),)),), queue_length=1
            ),
            "more jobs than queue_length",
        ),
        (lambda: SchedulerSnapshot(0, (), queue_length=0), "must be >= 1"),
        (lambda: PendingJob(1, -1), "must be a finite number >= 0"),
        (lambda: ResourceView(0, -1), "must be >= 0"),
    ],
)
def test_bad_snapshots_are_rejected(build, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidValueError, match=message):
        build()
