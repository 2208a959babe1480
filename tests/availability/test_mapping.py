"""The mapping functions: tl, PGS and FCFS per decision (Verboven et al. 2008 §2.2-§3.1)."""

from __future__ import annotations

import math
from fractions import Fraction

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
    # The same resource as times: down at 74, its job started at 0, now = 10.
    assert ResourceView(0, 74, PendingJob(1, 30), 0, (PendingJob(2, 12),)).time_left(10) == 32
    assert ResourceView(0, 74, PendingJob(1, 30), 0).expected_end(10) == 30
    assert ResourceView(0, 5, PendingJob(1, 30), 0).time_left(40) == 10  # up past its plan
    assert ResourceView(0, math.inf).time_left(3) == math.inf


@given(st.integers(0, 1000), st.integers(0, 100), st.integers(0, 100), st.lists(st.integers(0, 50)))
def test_time_left_drops_by_each_queued_estimate(
    ru: int, et: int, el: int, queued: list[int]
) -> None:
    assert time_left(ru, et, el, queued) == ru - et + el - sum(queued)
    if queued:
        assert time_left(ru, et, el, queued) == time_left(ru, et, el, queued[:-1]) - queued[-1]


# -- a reference implementation, written from the paper's text --------------------------


def _exact_tl(snapshot: SchedulerSnapshot) -> dict[int, Fraction | float]:
    """The paper's tl of each resource, ru - (et_rj - el_rj) - sum(et_i), in exact arithmetic
    on the snapshot's times (ru = max(0, pd - now), el = now - started)."""
    now = Fraction(snapshot.now)
    tl: dict[int, Fraction | float] = {}
    for v in snapshot.resources:
        if math.isinf(v.planned_down):
            tl[v.resource] = math.inf
            continue
        left = max(Fraction(0), Fraction(v.planned_down) - now)
        if v.running is not None:
            left -= Fraction(v.running.estimate) - (now - Fraction(v.started))
        tl[v.resource] = left - sum(Fraction(job.estimate) for job in v.queued)
    return tl


def _ends(snapshot: SchedulerSnapshot) -> dict[int, float]:
    """When each resource's work ends by the estimates, summed in the order the jobs run."""
    ends = {}
    for v in snapshot.resources:
        end = snapshot.now if v.running is None else v.started + v.running.estimate
        for job in v.queued:
            end += job.estimate
        ends[v.resource] = end
    return ends


def reference_pgs(snapshot: SchedulerSnapshot) -> MappingDecision:
    """Verboven et al. (2008) §2.3 written as plainly as possible, for a differential test.

    tl in exact arithmetic; "et_J < tl" as the job's end before the down time, summed as
    the simulation will: the resource's expected end plus et_J, in floats."""
    tl = _exact_tl(snapshot)
    end = _ends(snapshot)
    down = {v.resource: max(v.planned_down, snapshot.now) for v in snapshot.resources}

    def fits(job: PendingJob, r: int) -> bool:
        return end[r] + job.estimate < down[r]

    def take(job: PendingJob, r: int) -> None:
        done.append(Assignment(job.id, r))
        tl[r] -= Fraction(job.estimate)
        end[r] += job.estimate
        slots[r] -= 1

    slots = {v.resource: snapshot.queue_length - v.held for v in snapshot.resources}
    order = [v.resource for v in snapshot.resources]
    waiting = list(snapshot.priority) + list(snapshot.regular)
    regular = {j.id for j in snapshot.regular}
    done: list[Assignment] = []
    for view in snapshot.resources:  # phase 1
        if view.running is None and not view.queued and slots[view.resource] > 0:
            for job in waiting:
                if fits(job, view.resource):
                    waiting.remove(job)
                    take(job, view.resource)
                    break
    deferred = []
    for job in list(waiting):  # phase 2
        if not any(slots[r] > 0 for r in order):
            break
        room = [r for r in order if slots[r] > 0 and fits(job, r)]
        if not room:
            if job.id in regular:
                deferred.append(job.id)
            continue
        take(job, min(room, key=lambda r: (tl[r], order.index(r))))
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


@settings(max_examples=600)
@given(scheduler_snapshots(times="float", max_time=5))
def test_pgs_matches_the_reference_in_float_times(snapshot: SchedulerSnapshot) -> None:
    """Short float times: ends that round onto down times, rounded tl that tie or not."""
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
    end = _ends(snapshot)
    down = {v.resource: max(v.planned_down, snapshot.now) for v in snapshot.resources}
    free = {v.resource: snapshot.queue_length - v.held for v in snapshot.resources}
    estimate = {j.id: j.estimate for j in (*snapshot.priority, *snapshot.regular)}
    for a in decision.assignments:
        end[a.resource] += estimate[a.job]
        free[a.resource] -= 1
    for job in (*snapshot.priority, *snapshot.regular):
        if job.id not in assigned:
            assert not any(free[r] > 0 and end[r] + job.estimate < down[r] for r in end), job


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
            ResourceView(v.resource, v.planned_down + 0.125, v.running, v.started, v.queued)
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
        tuple(ResourceView(v.resource, v.planned_down) for v in snapshot.resources),
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


def pgs_subtracting_first(snapshot: SchedulerSnapshot) -> MappingDecision:
    """Broken (the code before issue 25): tl = ru - (et_rj - el_rj) - sum(et_i) from the
    differences ru = max(0, pd - now), el = now - started, then `et_J < tl` in floats."""
    now, views = snapshot.now, snapshot.resources
    tl = [
        time_left(
            max(0, v.planned_down - now),
            0 if v.running is None else v.running.estimate,
            0 if v.running is None else now - v.started,
            [job.estimate for job in v.queued],
        )
        for v in views
    ]
    slots = [snapshot.queue_length - v.held for v in views]
    waiting = [*snapshot.priority, *snapshot.regular]
    done: list[Assignment] = []

    def take(job: PendingJob, i: int) -> None:
        waiting.remove(job)
        done.append(Assignment(job.id, views[i].resource))
        tl[i] -= job.estimate
        slots[i] -= 1

    for i, view in enumerate(views):  # phase 1
        first = [j for j in waiting if j.estimate < tl[i]]
        if view.running is None and not view.queued and slots[i] > 0 and first:
            take(first[0], i)
    deferred = []
    for job in list(waiting):  # phase 2
        if not any(slots):
            break
        room = [i for i in range(len(views)) if slots[i] > 0 and job.estimate < tl[i]]
        if room:
            take(job, min(room, key=lambda i: (tl[i], i)))
        elif job in snapshot.regular:
            deferred.append(job.id)
    return MappingDecision(tuple(done), tuple(deferred))


@given(scheduler_snapshots(times="integer"))
def test_subtracting_first_is_harmless_in_whole_seconds(snapshot: SchedulerSnapshot) -> None:
    """Every sum of quarter seconds is exact, so the old code agrees there: the strategies
    must draw float times for the properties to see it (below)."""
    assert pgs_subtracting_first(snapshot) == map_pgs(snapshot)


def test_reference_and_checker_catch_subtracting_first_in_float_times() -> None:
    """Float times (a float tick, a far origin): the differential test and check_time_left
    each find a snapshot where subtracting first decides otherwise."""
    floats = scheduler_snapshots(times="float", max_time=5)
    hypothesis.find(floats, lambda s: pgs_subtracting_first(s) != reference_pgs(s), settings=SEARCH)
    hypothesis.find(
        floats, lambda s: _fails(check_time_left, s, pgs_subtracting_first(s)), settings=SEARCH
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
             ResourceView(2, 41, PendingJob(3, 1)))  # fmt: skip  # started at 0
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


# -- float times: compare as the paper writes (issue 25, float audit S1) ----------------

TIE_NOW = 27471.4
TIE_VIEWS = (  # exactly equal tl (98777.56), unequal once subtracted in floats
    ResourceView(0, 126000.54999999999, PendingJob(100, 7611.0), 27222.99),
    ResourceView(1, 120954.60299999999, PendingJob(101, 12097.2), 17690.843),
)


def test_best_fit_breaks_an_exact_tie_by_snapshot_order() -> None:
    """Regression: in floats, tl(0) = 91166.56 > tl(1) = 91166.55999999998, but exactly
    they are equal, so the tie goes to resource 0 (the old code chose resource 1)."""
    tl = _exact_tl(SchedulerSnapshot(TIE_NOW, TIE_VIEWS))
    assert tl[0] == tl[1]
    snap = SchedulerSnapshot(TIE_NOW, TIE_VIEWS, regular=(PendingJob(1, 10.0),))
    assert map_pgs(snap).assignments == (Assignment(1, 0),)
    assert map_pgs(snap) == reference_pgs(snap)


def test_best_fit_sees_a_difference_that_rounds_away() -> None:
    """1.0 - 0.1 and 1.0 - nextafter(0.1) round to the same float, but resource 1 has
    exactly less time left: best fit takes it (comparing rounded tl would tie, to 0)."""
    later = math.nextafter(0.1, 1)
    assert 1.0 - later == 1.0 - 0.1
    views = (ResourceView(0, 1.0, PendingJob(1, 0.1)), ResourceView(1, 1.0, PendingJob(2, later)))
    snap = SchedulerSnapshot(0.05, views, regular=(PendingJob(3, 0.5),))
    assert map_pgs(snap).assignments == (Assignment(3, 1),)
    assert map_pgs(snap) == reference_pgs(snap)


def test_best_fit_compares_the_exact_sums_not_the_rounded_ends() -> None:
    """Found by hypothesis: job 2 brings resource 1's end to 0.375 + 0.05 + 0.15..., which
    rounds so that its rounded tl looks larger than resource 0's; summed exactly, resource
    1 has less time left, so best fit gives job 3 to resource 1."""
    views = (
        ResourceView(0, 0.675, None, 0, (PendingJob(1, 0.17500000000000002),)),
        ResourceView(1, 0.7, PendingJob(4, 0.05), 0.375),
        ResourceView(2, 0.375),
    )
    regular = (PendingJob(2, 0.15000000000000002), PendingJob(3, 0.0))
    snap = SchedulerSnapshot(0.375, views, regular=regular, queue_length=3)
    exact = Fraction(0.675) - Fraction(0.17500000000000002) - Fraction(0.375)
    exact_1 = Fraction(0.7) - Fraction(0.375) - Fraction(0.05) - Fraction(0.15000000000000002)
    rounded = 0.675 - (0.375 + 0.17500000000000002)
    rounded_1 = 0.7 - (0.375 + 0.05 + 0.15000000000000002)
    assert exact_1 < exact and not rounded_1 < rounded
    assert map_pgs(snap).assignments == (Assignment(2, 1), Assignment(3, 1))
    assert map_pgs(snap) == reference_pgs(snap)


def test_an_end_on_the_down_time_does_not_fit_even_when_the_difference_says_so() -> None:
    """d - e rounds to 2551.435200000007 > et_J, but e + et_J = d exactly in floats: the job
    would end on the down time, not strictly before it (one subtraction is enough to err)."""
    end, estimate, down = 220927.8, 2551.4352, 223479.2352
    assert estimate < down - end and end + estimate == down
    snap = SchedulerSnapshot(end, (ResourceView(0, down),), regular=(PendingJob(1, estimate),))
    assert map_pgs(snap) == reference_pgs(snap) == MappingDecision((), (1,))
    with pytest.raises(AssertionError, match=r"(?s)job 1 .* goes down at 223479\.2352"):
        check_time_left(snap, MappingDecision((Assignment(1, 0),)))
    check_time_left(snap, MappingDecision((Assignment(1, 0),)), strict=False)  # ends on it


AUDIT_NOW = 826043.5819999999
AUDIT_VIEW = ResourceView(  # job 1 runs since 822007.982, job 2 is queued
    0, 845969.2945, PendingJob(1, 4388.925), 822007.982, (PendingJob(2, 16166.136),)
)


def test_a_job_whose_end_rounds_onto_the_down_time_is_not_assigned() -> None:
    """Regression: tl subtracted in floats is 3406.2515000000003 > 3406.2515 = et_J, but
    the job would start at 842563.0430000001 and end at 845969.2945000001, after the
    planned down time 845969.2945: PGS must not assign it, the checker must see it."""
    snap = SchedulerSnapshot(
        AUDIT_NOW, (AUDIT_VIEW,), regular=(PendingJob(3, 3406.2515),), queue_length=3
    )
    assert AUDIT_VIEW.expected_end(AUDIT_NOW) + 3406.2515 > AUDIT_VIEW.planned_down
    assert map_pgs(snap) == MappingDecision((), (3,))
    with pytest.raises(AssertionError, match=r"(?s)job 3 .* goes down at 845969\.2945"):
        check_time_left(snap, MappingDecision((Assignment(3, 0),)))


def test_a_job_as_long_as_the_largest_time_left_rounded_is_still_placed() -> None:
    """Phase 2 skips a job longer than the largest tl; equal is not longer. Resource 0 is
    down at 29.3 and busy until 6.9: tl rounds to 22.4 exactly the job's estimate, yet it
    fits (exactly, and as the simulation sums it: 6.9 + 22.4 < 29.3). The skip must
    compare `estimate <= most`, both sides rounded the same way, and place it."""
    view = ResourceView(0, 29.3, PendingJob(5, 6.9), 0)
    assert 29.3 - 6.9 == 22.4 and 6.9 + 22.4 < 29.3
    assert Fraction(6.9) + Fraction(22.4) < Fraction(29.3)
    snap = SchedulerSnapshot(1, (view,), regular=(PendingJob(1, 22.4),))
    assert map_pgs(snap) == reference_pgs(snap) == MappingDecision((Assignment(1, 0),))
    check_time_left(snap, map_pgs(snap))
