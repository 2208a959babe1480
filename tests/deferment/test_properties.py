"""Hypothesis properties of task deferment and replication (Mine et al. 2007 §4, SPEC D).

Each property is checked on the real algorithm and shown to fail on a
deliberately broken variant defined here (so that none is vacuous).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

from schedlib.deferment import (
    Deferment,
    FarmState,
    GridView,
    Instance,
    JobProgress,
    Order,
    Selection,
    TaskFarm,
    TaskSelection,
    fifo,
    overtaking_jobs,
    round_robin,
    run_grid,
)
from schedlib.deferment.desktopgrid import Processor, SpeedHistory, TaskJob
from schedlib.engine import Event, Step
from schedlib.errors import SimulationStuckError
from schedlib.model import EventKind, JobEvent, RunRecord, Time
from schedlib.testing.invariants import (
    check_capacity,
    check_deferment_respected,
    check_every_job_accounted,
    check_idle_processors_served,
    check_lifecycle,
    check_no_overtaking,
    check_originals_before_replicas,
    check_replicas_cancelled,
    check_same_completions,
    check_tasks_complete_once,
    check_work_matches_speeds,
)
from schedlib.testing.strategies import desktop_grids

Case = tuple[tuple[TaskJob, ...], tuple[Processor, ...]]
ORDERS = (Order.FIFO, Order.ROUND_ROBIN)
MAX_EVENTS = 50_000

# Searching for counterexamples in broken variants: enough examples to find one reliably
# under the derandomized `ci` profile; each search stops at the first hit (no shrinking:
# we need a counterexample, not the smallest one).
SEARCH = settings(
    max_examples=3000,
    derandomize=True,
    database=None,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def run(case: Case, scheduler: Callable[[GridView], Selection], **kw: object) -> RunRecord:
    jobs, grid = case
    return run_grid(jobs, grid, scheduler, max_events=MAX_EVENTS, **kw)  # type: ignore[arg-type]


def check_run(record: RunRecord, grid: Sequence[Processor]) -> None:
    """Every run-level invariant of the model."""
    check_every_job_accounted(record)
    check_lifecycle(record)
    check_capacity(record)
    check_tasks_complete_once(record)
    check_replicas_cancelled(record)
    check_work_matches_speeds(record, grid)


def overtakes_under(scheduler: Callable[[GridView], Selection]) -> Callable[[Case], bool]:
    return lambda case: bool(overtaking_jobs(run(case, scheduler)))


def fails(check: Callable[[Case], None]) -> Callable[[Case], bool]:
    """Whether `check` raises AssertionError (a broken model that gets stuck does not count)."""

    def condition(case: Case) -> bool:
        try:
            check(case)
        except AssertionError:
            return True
        except SimulationStuckError:
            return False
        return False

    return condition


# The guarantee is searched harder than the default profile's budget (and never less).
GUARANTEE = settings(max_examples=max(300, settings().max_examples))


# --------------------------------------------------------------------------------------
# The strategies are adversarial: they reach the situations the guarantee must survive.


def _starts_on_a_speed_change(case: Case) -> bool:
    """Some instance starts exactly when its processor's speed changes, then stalls."""
    record = run(case, fifo(1))
    for e in record.events:
        if e.kind is EventKind.START:
            speed = case[1][e.place[0]].speed
            if isinstance(speed, SpeedHistory) and e.time in speed.times[1:]:
                _, end = speed.segment_at(e.time)
                if end != math.inf and speed.segment_at(end)[0] == 0:
                    return True
    return False


def _fast_processor_stalls_with_work(case: Case) -> bool:
    """A task on the fastest processor meets a zero-speed stretch and another job waits."""
    record = run(case, round_robin())
    fastest = max(range(len(case[1])), key=lambda p: case[1][p].peak)
    speed = case[1][fastest].speed
    return len(case[0]) > 1 and any(
        e.kind is EventKind.START
        and e.place == (fastest,)
        and speed.segment_at(e.time)[0] > 0
        and any(
            speed.segment_at(t)[0] == 0 for t in range(math.ceil(e.time), math.ceil(e.time) + 8)
        )
        for e in record.events
    )


@pytest.mark.parametrize("situation", [_starts_on_a_speed_change, _fast_processor_stalls_with_work])
def test_strategies_reach_adversarial_situations(situation: Callable[[Case], bool]) -> None:
    find(desktop_grids(), situation, settings=SEARCH)


# --------------------------------------------------------------------------------------
# The guarantee: with B >= 1, no job overtakes, for any jobs and any speed history.


@pytest.mark.parametrize("order", ORDERS, ids=lambda o: o.value)
@pytest.mark.parametrize("replication", [True, False], ids=["replication", "no-replication"])
@GUARANTEE
@given(case=desktop_grids(), bound=st.integers(1, 3))
def test_deferment_never_overtakes(order: Order, replication: bool, case: Case, bound: int) -> None:
    record = run(case, TaskSelection(order, Deferment(bound), replication))
    check_no_overtaking(record)
    check_run(record, case[1])


@pytest.mark.parametrize("order", ORDERS, ids=lambda o: o.value)
@GUARANTEE
@given(
    case=desktop_grids(final_zero=True, markov=False),
    bound=st.integers(1, 3),
    extra=st.integers(0, 12),
)
def test_deferment_never_overtakes_even_on_dead_processors(
    order: Order, case: Case, bound: int, extra: int
) -> None:
    """Processors may stop for ever: the guarantee holds on every prefix of the run.

    The run is cut at a horizon; jobs unfinished then never finish, and none
    may have been overtaken by a job that did.
    """
    horizon = max(job.submit for job in case[0]) + extra
    record = run(case, TaskSelection(order, Deferment(bound)), horizon=horizon)
    check_no_overtaking(record)
    check_every_job_accounted(record)
    check_lifecycle(record)
    check_capacity(record)
    check_tasks_complete_once(record)


@pytest.mark.parametrize("order", ORDERS, ids=lambda o: o.value)
@given(case=desktop_grids(), bound=st.integers(1, 3))
def test_every_decision_respects_deferment(order: Order, case: Case, bound: int) -> None:
    decisions: list[tuple[GridView, Selection]] = []
    scheduler = TaskSelection(order, Deferment(bound))

    def spy(view: GridView) -> Selection:
        choice = scheduler(view)
        decisions.append((view, choice))
        return choice

    run(case, spy)
    for view, choice in decisions:
        check_deferment_respected(view, choice, bound)


def _decisions(case: Case, scheduler: TaskSelection) -> list[tuple[GridView, Selection]]:
    decisions: list[tuple[GridView, Selection]] = []

    def spy(view: GridView) -> Selection:
        choice = scheduler(view)
        decisions.append((view, choice))
        return choice

    run(case, spy)
    return decisions


@pytest.mark.parametrize("order", ORDERS, ids=lambda o: o.value)
@pytest.mark.parametrize("replication", [True, False], ids=["replication", "no-replication"])
@given(case=desktop_grids(), bound=st.sampled_from([None, 1, 2]))
def test_idle_processors_get_originals_then_replicas(
    order: Order, replication: bool, case: Case, bound: int | None
) -> None:
    deferment = None if bound is None else Deferment(bound)
    for view, choice in _decisions(case, TaskSelection(order, deferment, replication)):
        check_idle_processors_served(view, choice, replication=replication)
        check_originals_before_replicas(view, choice, bound=bound)


@pytest.mark.parametrize("order", ORDERS, ids=lambda o: o.value)
def test_idle_processor_property_catches_a_scheduler_that_never_replicates(order: Order) -> None:
    """BROKEN: replication switched off while the scheduler claims it."""

    def violates(case: Case) -> bool:
        try:
            for view, choice in _decisions(case, TaskSelection(order, None, replication=False)):
                check_idle_processors_served(view, choice, replication=True)
        except AssertionError:
            return True
        return False

    find(desktop_grids(), violates, settings=SEARCH)


# --------------------------------------------------------------------------------------
# Without deferment the property is not vacuous: hypothesis finds overtaking jobs.


@pytest.mark.parametrize("order", ORDERS, ids=lambda o: o.value)
@pytest.mark.parametrize("replication", [True, False], ids=["replication", "no-replication"])
def test_standard_algorithms_overtake(order: Order, replication: bool) -> None:
    case = find(
        desktop_grids(), overtakes_under(TaskSelection(order, None, replication)), settings=SEARCH
    )
    record = run(case, TaskSelection(order, None, replication))
    with pytest.raises(AssertionError, match="overtakes"):
        check_no_overtaking(record)
    # the same case is safe with deferment
    check_no_overtaking(run(case, TaskSelection(order, Deferment(1), replication)))


# --------------------------------------------------------------------------------------
# Broken deferment tests: the guarantee fails, and the checkers notice.


def strict_c1(jobs: Sequence[JobProgress], job: JobProgress) -> bool:
    """BROKEN: C1 as `unallocated < B` (the selected task not counted): with B = 1, never."""
    from schedlib.deferment.selection import blocking_job

    return job.unallocated < 1 and blocking_job(jobs, job) is not None


def previous_job_only(jobs: Sequence[JobProgress], job: JobProgress) -> bool:
    """BROKEN: C2 looks only at the job submitted just before J."""
    earlier = [p for p in jobs if p.job.submit < job.job.submit]
    return job.unallocated <= 1 and bool(earlier) and earlier[-1].job.size < job.job.size


@pytest.mark.parametrize("broken", [strict_c1, previous_job_only], ids=lambda f: f.__name__)
@pytest.mark.parametrize("order", ORDERS, ids=lambda o: o.value)
def test_broken_deferment_is_caught(
    broken: Callable[[Sequence[JobProgress], JobProgress], bool], order: Order
) -> None:
    scheduler = TaskSelection(order, broken)
    case = find(desktop_grids(), overtakes_under(scheduler), settings=SEARCH)
    with pytest.raises(AssertionError, match="overtakes"):
        check_no_overtaking(run(case, scheduler))


def test_decision_checker_catches_a_broken_deferment() -> None:
    def violates(case: Case) -> bool:
        decisions: list[tuple[GridView, Selection]] = []
        broken = TaskSelection(Order.FIFO, strict_c1)

        def spy(view: GridView) -> Selection:
            choice = broken(view)
            decisions.append((view, choice))
            return choice

        run(case, spy)
        try:
            for view, choice in decisions:
                check_deferment_respected(view, choice, 1)
        except AssertionError:
            return True
        return False

    find(desktop_grids(), violates, settings=SEARCH)


# --------------------------------------------------------------------------------------
# Replication: changes when jobs complete, never which; every task completes once.


@pytest.mark.parametrize("order", ORDERS, ids=lambda o: o.value)
@given(case=desktop_grids(), bound=st.one_of(st.none(), st.integers(1, 3)))
def test_replication_never_changes_which_jobs_complete(
    order: Order, case: Case, bound: int | None
) -> None:
    deferment = None if bound is None else Deferment(bound)
    with_replicas = run(case, TaskSelection(order, deferment, True))
    without = run(case, TaskSelection(order, deferment, False))
    check_same_completions(with_replicas, without)
    check_run(with_replicas, case[1])
    check_run(without, case[1])


class NoCancelFarm(TaskFarm):
    """BROKEN: replicas are not cancelled when their task completes; they run on."""

    def _complete(self, state: FarmState, processor: int, now: Time) -> Step[FarmState]:
        instance = state.runs[processor]
        assert instance is not None
        runs = list(state.runs)
        runs[processor] = None
        log = [JobEvent(now, instance.job, EventKind.COMPLETE, (processor,), instance.task)]
        jobs = list(state.jobs)
        todo = state.todo
        for index, progress in enumerate(jobs):
            if progress.job.id == instance.job and instance.task in progress.running:
                progress = progress.complete(instance.task)
                if progress.finished:
                    del jobs[index]
                    todo = todo - {instance.job}
                    log.append(JobEvent(now, instance.job, EventKind.COMPLETE))
                else:
                    jobs[index] = progress
                break
        new = FarmState(tuple(jobs), (*state.idle, processor), state.last_job, tuple(runs), todo)
        return Step(new, log=log, wake=True)


class SilentCancelFarm(TaskFarm):
    """BROKEN: cancelled replicas free their processor but are never stopped (no CANCEL)."""

    def _complete(self, state: FarmState, processor: int, now: Time) -> Step[FarmState]:
        step = super()._complete(state, processor, now)
        kept = tuple(e for e in step.log if e.kind is not EventKind.CANCEL)
        return Step(step.state, step.events, step.cancel, kept, step.wake)


class FrozenSpeedFarm(TaskFarm):
    """BROKEN: a task runs at the speed its processor had when it started, for ever."""

    def advance(
        self, processor: int, job: int, task: int, replica: bool, left: float, now: Time
    ) -> tuple[Instance, Event | None]:
        speed, _ = self.processors[processor].speed.segment_at(now)
        instance = Instance(job, task, replica, left, now, speed)
        if speed <= 0:
            return instance, None
        return instance, Event(now + left / speed, 0, processor, key=processor)


def run_model(model_type: type[TaskFarm], case: Case, scheduler: TaskSelection) -> RunRecord:
    from schedlib.engine import simulate

    jobs, grid = case
    model = model_type(grid, scheduler)
    state, events = model.initial(jobs)
    trace = simulate(model, state, events, max_events=MAX_EVENTS)
    return RunRecord.from_log(scheduler.name, jobs, trace.log, capacity=len(grid))


@pytest.mark.parametrize(
    "check",
    [check_tasks_complete_once, check_replicas_cancelled],
    ids=lambda f: f.__name__,
)
def test_broken_cancellation_is_caught(check: Callable[[RunRecord], None]) -> None:
    find(
        desktop_grids(),
        fails(lambda case: check(run_model(NoCancelFarm, case, fifo()))),
        settings=SEARCH,
    )


def test_broken_replication_changes_completions() -> None:
    def compare(case: Case) -> None:
        check_same_completions(
            run_model(NoCancelFarm, case, round_robin()),
            run_model(NoCancelFarm, case, round_robin(replication=False)),
        )

    find(desktop_grids(), fails(compare), settings=SEARCH)


def test_double_booked_processor_is_caught() -> None:
    find(
        desktop_grids(),
        fails(lambda case: check_capacity(run_model(SilentCancelFarm, case, round_robin()))),
        settings=SEARCH,
    )


def test_ignoring_speed_changes_is_caught() -> None:
    def check(case: Case) -> None:
        check_work_matches_speeds(run_model(FrozenSpeedFarm, case, fifo()), case[1])

    find(desktop_grids(markov=False), fails(check), settings=SEARCH)
