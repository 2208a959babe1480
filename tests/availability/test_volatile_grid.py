"""Run-level properties of PGS and FCFS on resources that go down (Verboven et al. 2008)."""

from __future__ import annotations

import random
from collections.abc import Callable

import attrs
import hypothesis
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlib.availability import (
    FCFS,
    PGS,
    BagJob,
    MappingPolicy,
    RuntimeUpdate,
    VolatileGridModel,
    VolatileGridRun,
    simulate_volatile_grid,
    wasted_work,
    with_estimate_errors,
)
from schedlib.availability.mapping import (
    MappingDecision,
    ResourceView,
    SchedulerSnapshot,
    map_pgs,
    unschedulable_reason,
)
from schedlib.availability.patterns import (
    AvailabilityPattern,
    ResourceAvailability,
    RestartDelay,
)
from schedlib.errors import InvalidDecisionError, InvalidValueError, SimulationStuckError
from schedlib.model import EventKind
from schedlib.testing.invariants import (
    check_capacity,
    check_every_job_accounted,
    check_failures_handled,
    check_lifecycle,
    check_mapping_decision,
    check_no_failures,
    check_no_instant_failures,
    check_queue_order,
    check_time_left,
    check_unschedulable_reported,
    check_within_uptime,
)
from schedlib.testing.strategies import volatile_grids
from schedlib.testing.strategies.availability import VolatileGrid

BUDGET = 50_000
"""Engine events allowed per small run: a run that needs more is looping."""

SEARCH = hypothesis.settings(
    max_examples=1000,
    derandomize=True,
    database=None,
    deadline=None,
    phases=(hypothesis.Phase.generate,),
)
"""Searches for counterexamples: found reliably under derandomization, not shrunk."""

seeds = st.integers(0, 2**16)
grids = st.one_of(volatile_grids(), volatile_grids(max_submit=0, max_queue_length=4))
"""Instances; the second kind (all jobs at once, deeper queues) fills queues fast."""


def run(
    grid: VolatileGrid,
    policy: MappingPolicy | str = "pgs",
    *,
    seed: int = 0,
    max_failures: int = 5,
    resource_order: str = "rejoined",
    budget: int = BUDGET,
) -> VolatileGridRun:
    jobs, resources, queue_length = grid
    return simulate_volatile_grid(
        jobs,
        resources,
        policy=policy,
        queue_length=queue_length,
        seed=seed,
        max_failures=max_failures,
        resource_order=resource_order,  # type: ignore[arg-type]
        max_events=budget,
    )


def longest(grid: VolatileGrid) -> float:
    return max(r.planned.longest_uptime for r in grid[1])


def check_sound(result: VolatileGridRun, max_failures: int = 5) -> None:
    """What every run must satisfy, whatever the policy and the estimates."""
    record = result.record
    check_every_job_accounted(record)
    check_lifecycle(record)
    check_capacity(record)
    check_failures_handled(record, result.up_periods, max_failures=max_failures)
    check_no_instant_failures(record)


def check_pgs_promises(result: VolatileGridRun, longest_uptime: float) -> None:
    """PGS with exact runtimes and exact availability (SPEC B invariants)."""
    check_sound(result)
    check_within_uptime(result.record, result.up_periods)
    check_no_failures(result.record)
    check_unschedulable_reported(result.record, longest_uptime)


def violates(check: Callable[[], None]) -> bool:
    try:
        check()
    except (AssertionError, SimulationStuckError):
        return True
    return False


# -- PGS keeps its promises -------------------------------------------------------------


@given(grids, seeds)
def test_pgs_never_schedules_beyond_the_uptime(grid: VolatileGrid, seed: int) -> None:
    check_pgs_promises(run(grid, seed=seed), longest(grid))


@given(grids, seeds)
def test_pgs_literal_phase_one_keeps_the_promises_too(grid: VolatileGrid, seed: int) -> None:
    check_pgs_promises(run(grid, "pgs-empty-queue", seed=seed), longest(grid))


@given(volatile_grids(max_runtime=60), seeds)
def test_pgs_with_index_order_keeps_the_promises(grid: VolatileGrid, seed: int) -> None:
    check_pgs_promises(run(grid, seed=seed, resource_order="index"), longest(grid))


def _checked_pgs(snapshot: SchedulerSnapshot) -> MappingDecision:
    decision = map_pgs(snapshot)
    check_mapping_decision(snapshot, decision)
    check_time_left(snapshot, decision)  # tl > 0 after every assignment, so never negative
    return decision


@given(st.one_of(grids, volatile_grids(estimate_error=0.5)), seeds)
def test_every_decision_of_a_run_keeps_tl_positive(grid: VolatileGrid, seed: int) -> None:
    """The decision-level checks, on every snapshot a real run produces."""
    check_sound(run(grid, MappingPolicy("pgs-checked", _checked_pgs), seed=seed))


# -- FCFS: sound, but it does break the uptime property ---------------------------------


@given(volatile_grids(), seeds, st.sampled_from(("rejoined", "index")))
def test_fcfs_loses_nothing_and_never_livelocks(grid: VolatileGrid, seed: int, order: str) -> None:
    result = run(grid, "fcfs", seed=seed, resource_order=order)
    check_sound(result)
    assert result.failures == sum(e.kind is EventKind.FAIL for e in result.record.events)


@given(volatile_grids(max_jobs=12, max_uptime=60), seeds, st.sampled_from(("rejoined", "index")))
def test_fcfs_assigns_in_queue_order_with_failed_jobs_in_front(
    grid: VolatileGrid, seed: int, order: str
) -> None:
    check_queue_order(run(grid, "fcfs", seed=seed, resource_order=order).record)


TIES = volatile_grids(max_submit=0, max_queue_length=4, max_runtime=30, max_uptime=30,
                      times="integer")  # fmt: skip
"""Short whole and quarter seconds, all jobs at once: jobs often end as their resource goes down."""


@given(st.one_of(grids, TIES), seeds, st.sampled_from(("fcfs", "pgs")))
def test_no_failure_lasts_zero_seconds(grid: VolatileGrid, seed: int, policy: str) -> None:
    """A job is never started on a resource at the instant it goes down (issue 29, item 10)."""
    check_no_instant_failures(run(grid, policy, seed=seed).record)


def test_a_job_queued_behind_one_that_ends_at_the_down_time_returns_without_failing() -> None:
    # Resource 0 is up 10 s at a time; FCFS queues job 2 behind job 1, which ends at
    # exactly 10 s, when the resource goes down: job 2 returns, it does not fail.
    grid = ((BagJob(1, 0, 10), BagJob(2, 0, 5)), _resources(10), 2)
    result = run(grid, "fcfs")
    at_ten = [(e.job, e.kind) for e in result.record.events if e.time == 10]
    assert at_ten[:2] == [(1, EventKind.COMPLETE), (2, EventKind.RETURN)]
    assert result.failures == 0 and result.makespan == 16  # job 2 runs again 11..16
    check_sound(result)


FCFS_REQUEUE_BACK = MappingPolicy("fcfs-requeue-back", FCFS.mapping, "back", screen=None)
"""Broken: jobs that come back from a failed resource join the back of the priority queue."""


def test_queue_order_property_catches_failed_jobs_requeued_at_the_back() -> None:
    hypothesis.find(
        volatile_grids(max_jobs=12, max_uptime=60),
        lambda g: violates(lambda: check_queue_order(run(g, FCFS_REQUEUE_BACK).record)),
        settings=SEARCH,
    )


def test_requeue_rule_smallest_case() -> None:
    # hypothesis's smallest case: two resources up 1 s at a time, one 1.25 s job on
    # each. Both fail at t=1, resource 0's first: at the front, job 1 (failed last)
    # comes first; at the back, job 0 would.
    jobs = (BagJob(0, 0, 1.25), BagJob(1, 0, 1.25))
    resources = (ResourceAvailability(AvailabilityPattern.repeating(1, 0)),) * 2
    grid = (jobs, resources, 1)
    fcfs = run(grid, "fcfs").record
    check_queue_order(fcfs)
    assigned = [e.job for e in fcfs.events if e.kind is EventKind.ASSIGN and e.time == 1]
    assert assigned == [1, 0]
    broken = run(grid, FCFS_REQUEUE_BACK).record
    check_queue_order(broken, requeue="back")  # the other reading accepts it
    with pytest.raises(AssertionError, match="job 0 is assigned before job 1"):
        check_queue_order(broken)


def test_fcfs_violates_the_uptime_property() -> None:
    """The uptime property is not vacuous: hypothesis finds FCFS breaking it."""
    grid = hypothesis.find(
        volatile_grids(),
        lambda g: violates(lambda: check_within_uptime(*_record(run(g, "fcfs")))),
        settings=SEARCH,
    )
    assert grid[0]


def test_fcfs_fails_jobs() -> None:
    hypothesis.find(
        volatile_grids(),
        lambda g: violates(lambda: check_no_failures(run(g, "fcfs").record)),
        settings=SEARCH,
    )


def _record(result: VolatileGridRun) -> tuple:  # type: ignore[type-arg]
    return result.record, result.up_periods


# -- with estimate errors or wrong availability, PGS degrades gracefully ----------------


@given(volatile_grids(estimate_error=0.5), seeds)
def test_pgs_with_estimate_errors_loses_nothing(grid: VolatileGrid, seed: int) -> None:
    result = run(grid, seed=seed)
    check_sound(result)
    check_unschedulable_reported(result.record, longest(grid))


@given(volatile_grids(exact=False), seeds)
def test_pgs_with_wrong_availability_loses_nothing(grid: VolatileGrid, seed: int) -> None:
    check_sound(run(grid, seed=seed))


def test_a_resource_up_at_time_0_past_its_planned_down_time_gets_nothing() -> None:
    """The plan says 28 s up, the resource is up for 29 s and has been up 28.25 s at time 0:
    its planned down time is in the past, so PGS gives it no job until it comes back."""
    resource = ResourceAvailability(
        AvailabilityPattern(((28, 0), (1, 0))), AvailabilityPattern(((29, 0), (1, 0))),
        phase=28.25,
    )  # fmt: skip
    result = run(((BagJob(0, 0, 0.5),), (resource,), 1))
    check_sound(result)
    start = next(e for e in result.record.events if e.kind is EventKind.START)
    assert start.time == 0.75  # when it comes back, 29 - 28.25 s after time 0


def test_estimate_errors_do_cause_failures_that_are_retried() -> None:
    """Not vacuous: with underestimates PGS does fail jobs, and retries them."""

    def retried(g: VolatileGrid) -> bool:
        events = run(g).record.events
        failed = {e.job for e in events if e.kind is EventKind.FAIL}
        done = {e.job for e in events if e.kind is EventKind.COMPLETE}
        return bool(failed & done)

    hypothesis.find(volatile_grids(estimate_error=0.5), retried, settings=SEARCH)


# -- deliberately broken PGS variants ---------------------------------------------------


def _ignoring_the_queue(snapshot: SchedulerSnapshot) -> MappingDecision:
    """Broken: tl computed without the running and queued jobs."""
    bare = SchedulerSnapshot(
        snapshot.now,
        tuple(ResourceView(v.resource, v.planned_down) for v in snapshot.resources),
        snapshot.priority,
        snapshot.regular,
        snapshot.queue_length,
    )
    held = {v.resource: v.held for v in snapshot.resources}
    kept = []
    for a in map_pgs(bare).assignments:
        if held[a.resource] < snapshot.queue_length:
            kept.append(a)
            held[a.resource] += 1
    return MappingDecision(tuple(kept), map_pgs(bare).deferred)


IGNORING_THE_QUEUE = MappingPolicy("pgs-ignoring-queue", _ignoring_the_queue)
NO_SCREEN = MappingPolicy("pgs-no-screen", map_pgs, screen=None)
EAGER_SCREEN = MappingPolicy(
    "pgs-eager-screen", map_pgs, screen=lambda est, longest: unschedulable_reason(est, longest / 2)
)


def test_uptime_property_catches_a_tl_that_ignores_the_queue() -> None:
    grid = hypothesis.find(
        volatile_grids(),
        lambda g: violates(lambda: check_within_uptime(*_record(run(g, IGNORING_THE_QUEUE)))),
        settings=SEARCH,
    )
    assert len(grid[0]) >= 2


def test_no_failure_property_catches_a_tl_that_ignores_the_queue() -> None:
    hypothesis.find(
        volatile_grids(),
        lambda g: violates(lambda: check_no_failures(run(g, IGNORING_THE_QUEUE).record)),
        settings=SEARCH,
    )


def test_termination_catches_a_missing_unschedulable_screen() -> None:
    """Without the screen a too-long job is never placed: the run loops (budget spent)."""
    small = 3000
    grid = hypothesis.find(
        volatile_grids(),
        lambda g: violates(lambda: run(g, NO_SCREEN, budget=small)),
        settings=SEARCH,
    )
    assert any(job.estimate >= longest(grid) for job in grid[0])
    check_pgs_promises(run(grid, budget=small), longest(grid))  # the real PGS ends


def test_unschedulable_property_catches_false_rejections() -> None:
    hypothesis.find(
        volatile_grids(),
        lambda g: violates(
            lambda: check_unschedulable_reported(run(g, EAGER_SCREEN).record, longest(g))
        ),
        settings=SEARCH,
    )


class Forgetful(VolatileGridModel):
    """Broken PGS model: a job that fails is silently dropped instead of retried."""

    def on_event(self, state, event):  # type: ignore[no-untyped-def]
        step = super().on_event(state, event)
        failed = {e.job for e in step.log if e.kind is EventKind.FAIL}
        if not failed:
            return step
        keep = tuple(j for j in step.state.priority if j.id not in failed)
        dropped = attrs.evolve(step.state, priority=keep, finished=step.state.finished | failed)
        return attrs.evolve(step, state=dropped)


def test_failure_handling_property_catches_lost_retries() -> None:
    def broken(g: VolatileGrid) -> bool:
        jobs, resources, q = g
        result = Forgetful(jobs, resources, queue_length=q).run(max_events=BUDGET)
        return violates(lambda: check_failures_handled(result.record, result.up_periods))

    hypothesis.find(volatile_grids(estimate_error=0.5), broken, settings=SEARCH)


# -- examples from the paper's rules ----------------------------------------------------


def _resources(*uptimes: int, down: int = 1) -> tuple[ResourceAvailability, ...]:
    return tuple(ResourceAvailability(AvailabilityPattern.repeating(u, down)) for u in uptimes)


def test_a_job_longer_than_every_uptime_is_unschedulable_under_pgs() -> None:
    jobs = [BagJob(1, 0, 100), BagJob(2, 0, 10)]
    result = simulate_volatile_grid(jobs, _resources(84, 100))
    outcome = result.record.outcome_map()[1]
    assert outcome.state is not None and outcome.state.value == "unschedulable"
    assert "longest planned uptime" in outcome.reason and "100" in outcome.reason
    assert result.record.outcome_map()[2].state.value == "completed"  # type: ignore[union-attr]


def test_fcfs_gives_up_a_job_that_never_fits_instead_of_looping() -> None:
    for order in ("rejoined", "index"):
        result = simulate_volatile_grid(
            [BagJob(1, 0, 100)],
            _resources(84, 50),
            policy="fcfs",
            max_failures=4,
            resource_order=order,  # type: ignore[arg-type]
        )
        outcome = result.record.outcomes[0]
        assert outcome.state.value == "failed"  # type: ignore[union-attr]
        assert outcome.failures == 4 and "max_failures = 4" in outcome.reason
        assert result.wasted_work == result.record.outcomes[0].executed


def test_failed_jobs_go_to_the_front_under_fcfs_and_the_back_under_pgs() -> None:
    # Resource 0 is up 10 s at a time, resource 1 always. Job 1 (20 s) fails
    # on resource 0 under FCFS; job 2 (5 s) waits. With one slot per resource,
    # the failed job 1 is served before job 2 under FCFS.
    resources = (
        ResourceAvailability(AvailabilityPattern.repeating(10, 0)),
        ResourceAvailability(AvailabilityPattern.always_up()),
    )
    jobs = [BagJob(1, 0, 20), BagJob(3, 0, 30), BagJob(2, 1, 5)]
    fcfs = simulate_volatile_grid(jobs, resources, policy=FCFS, queue_length=1)
    assigns = [(e.time, e.job, e.place) for e in fcfs.record.events if e.kind is EventKind.ASSIGN]
    assert assigns[:3] == [(0, 1, (0,)), (0, 3, (1,)), (10, 1, (0,))]
    assert fcfs.failures >= 1
    pgs = simulate_volatile_grid(jobs, resources, policy=PGS, queue_length=1)
    assert pgs.failures == 0


def test_restart_delay_is_seeded_and_the_run_is_deterministic() -> None:
    delay = RestartDelay(0.2, "uniform")
    resources = tuple(
        ResourceAvailability(AvailabilityPattern.repeating(u, 1), restart=delay) for u in (30, 45)
    )
    jobs = [BagJob(i, 0, 7 + i) for i in range(12)]
    first = simulate_volatile_grid(jobs, resources, policy="fcfs", seed=3)
    again = simulate_volatile_grid(jobs, resources, policy="fcfs", seed=3)
    other = simulate_volatile_grid(jobs, resources, policy="fcfs", seed=4)
    assert first.record == again.record and first.up_periods == again.up_periods
    assert [p.start for p in first.up_periods] != [p.start for p in other.up_periods]
    assert all(p.end == p.planned_end for p in first.up_periods if p.end != float("inf"))


def test_the_run_stops_although_availability_cycles_forever() -> None:
    result = simulate_volatile_grid([BagJob(1, 0, 5)], _resources(10))
    assert result.end == 5 and result.events < 10


def test_runtime_updates() -> None:
    jobs = [BagJob(1, 0, 50), BagJob(2, 0, 20, estimate=20), BagJob(3, 0, 5)]
    resources = _resources(60)
    updates = [
        RuntimeUpdate(0, 2, 70),  # waiting: now longer than every uptime
        RuntimeUpdate(1, 1, 55),  # running: tl of resource 0 shrinks
        RuntimeUpdate(200, 3, 1),  # job 3 has ended by then: ignored
    ]
    result = simulate_volatile_grid(jobs, resources, updates=updates, queue_length=1)
    out = result.record.outcome_map()
    assert out[2].state.value == "unschedulable" and out[2].end == 0  # type: ignore[union-attr]
    assert out[1].state.value == out[3].state.value == "completed"  # type: ignore[union-attr]
    assert result.record.parameter("updates") == 3
    with pytest.raises(InvalidValueError, match="no such job"):
        simulate_volatile_grid(jobs, resources, updates=[RuntimeUpdate(0, 9, 1)])
    with pytest.raises(InvalidValueError, match="before job 1's submission"):
        simulate_volatile_grid([BagJob(1, 5, 1)], resources, updates=[RuntimeUpdate(0, 1, 1)])


def test_a_revised_estimate_is_used_by_the_next_mapping() -> None:
    # Job 1 claims 10 s but runs 40 s on the 50 s resource 0; job 0 keeps
    # resource 1 busy. Job 2 (15 s) arrives at 6 s: with the estimate 10 it is
    # queued behind job 1 and fails at 50 s; revised to 40 s at 5 s, it goes
    # to resource 1.
    jobs = [BagJob(0, 0, 100), BagJob(1, 0, 40, estimate=10), BagJob(2, 6, 15)]
    resources = _resources(50, 200)
    stale = simulate_volatile_grid(jobs, resources)
    assert stale.failures == 1
    revised = simulate_volatile_grid(jobs, resources, updates=[RuntimeUpdate(5, 1, 40)])
    assert revised.failures == 0
    starts = {e.job: e.place for e in revised.record.events if e.kind is EventKind.START}
    assert starts[2] == (1,)


@given(volatile_grids(), seeds, st.lists(st.tuples(st.integers(0, 60), st.integers(0, 9),
       st.integers(0, 150)), max_size=6))  # fmt: skip
def test_random_runtime_updates_lose_nothing(grid: VolatileGrid, seed: int, raw: list) -> None:  # type: ignore[type-arg]
    jobs, resources, q = grid
    by_id = {j.id: j for j in jobs}
    updates = [RuntimeUpdate(max(t, by_id[j].submit), j, e) for t, j, e in raw if j in by_id]
    result = simulate_volatile_grid(
        jobs, resources, queue_length=q, seed=seed, updates=updates, max_failures=5,
        max_events=BUDGET,
    )  # fmt: skip
    check_sound(result)


# -- measures and errors ----------------------------------------------------------------


def test_wasted_work_counts_lost_execution() -> None:
    result = simulate_volatile_grid([BagJob(1, 0, 50)], _resources(30, 84), policy="fcfs")
    assert result.failures == 1
    assert result.wasted_work == 30 == wasted_work(result.record)
    assert result.makespan == 80  # fails at 30 on resource 0, then runs 30..80 on resource 1


def test_estimate_errors_are_seeded() -> None:
    jobs = [BagJob(i, 0, 100) for i in range(50)]
    noisy = with_estimate_errors(jobs, error=0.3, rng=random.Random(1))
    assert all(70 <= j.estimate <= 130 and j.runtime == 100 for j in noisy)
    assert noisy == with_estimate_errors(jobs, error=0.3, rng=random.Random(1))
    assert with_estimate_errors(jobs, error=0, rng=random.Random(1)) == tuple(jobs)
    for bad in (-0.1, 1, 2):
        with pytest.raises(InvalidValueError, match="error"):
            with_estimate_errors(jobs, error=bad, rng=random.Random(1))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"jobs": [BagJob(1, 0, 1), BagJob(1, 0, 2)]}, "appears twice"),
        ({"resources": ()}, "at least one resource"),
        ({"policy": "sjf"}, "must be a MappingPolicy or one of"),
        ({"queue_length": 0}, "queue_length"),
        ({"max_failures": 0}, "max_failures"),
        ({"resource_order": "random"}, "resource_order"),
    ],
)
def test_bad_model_inputs(kwargs: dict, message: str) -> None:  # type: ignore[type-arg]
    arguments = {"jobs": [BagJob(1, 0, 1)], "resources": _resources(10)} | kwargs
    with pytest.raises(InvalidValueError, match=message):
        simulate_volatile_grid(**arguments)


@pytest.mark.parametrize(
    ("decision", "message"),
    [
        (lambda s: MappingDecision(((_a(99, 0)),)), r"assigns jobs \[99\], which are not waiting"),
        (lambda s: MappingDecision((_a(1, 0), _a(1, 0))), "assigns job 1 twice"),
        (lambda s: MappingDecision((_a(1, 5),)), "to resource 5, which is no such resource"),
        (lambda s: MappingDecision((_a(1, 0), _a(2, 0))), "to resource 0, whose queue is full"),
        (lambda s: MappingDecision((), (99,)), r"defers jobs \[99\], which are not in the regular"),
    ],
)
def test_decisions_that_cannot_be_applied_are_errors(decision, message: str) -> None:  # type: ignore[no-untyped-def]
    policy = MappingPolicy("bad", decision)
    with pytest.raises(InvalidDecisionError, match=message) as error:
        simulate_volatile_grid(
            [BagJob(1, 0, 1), BagJob(2, 0, 1)], _resources(10), policy=policy, queue_length=1
        )
    assert error.value.policy == "bad" and str(error.value).startswith("decision of bad at t=0")


def _a(job: int, resource: int):  # type: ignore[no-untyped-def]
    from schedlib.availability.mapping import Assignment

    return Assignment(job, resource)


def test_no_job_ends_after_its_planned_down_time_in_float_times() -> None:
    """Regression (issue 25, float audit S1): the time left of the resource subtracted in
    floats was 3406.2515000000003 > 3406.2515, so PGS assigned job 3, which started at
    842563.0430000001, would have ended at 845969.2945000001 and failed at the planned down
    time 845969.2945. Compared as written (end + et_J < down), job 3 waits for the next
    up period."""
    down = 845969.2945
    resources = [ResourceAvailability(AvailabilityPattern([(down, 10.0)]))]
    jobs = [
        BagJob(1, 822007.982, 4388.925),
        BagJob(2, 822007.982, 16166.136),
        BagJob(3, 826043.5819999999, 3406.2515),
    ]
    run = simulate_volatile_grid(jobs, resources, queue_length=3)
    check_within_uptime(run.record, run.up_periods)
    check_no_failures(run.record)
    assert [e.time for e in run.record.events if e.job == 3 and e.kind is EventKind.START] == [
        down + 10.0
    ]
