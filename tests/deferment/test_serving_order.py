"""Who gets an idle processor: the two replica readings, the job order, the processor order.

Mine et al. (2007) §4 leaves open whether a job whose tasks are all allocated is
served (a replica) before a later job's originals. The library offers both readings
([`ReplicaOrder`][schedlib.deferment.selection.ReplicaOrder]): `ORIGINALS_FIRST` (the
default) and `JOB_ORDER` (under FIFO, the head job is served, replicas included, until
it completes). Each reading has a property here that fails on a one-line mutant of the
selection; so does the order in which the model serves freed processors, and every
decision is compared with a plain reference selection written apart from
`select_tasks`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest
from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st

from schedlib.deferment import (
    Deferment,
    GridView,
    JobProgress,
    Order,
    ReplicaOrder,
    Selection,
    TaskFarm,
    TaskSelection,
    fifo,
    overtaking_jobs,
    run_grid,
)
from schedlib.deferment import farm as farm_module
from schedlib.deferment import scheduling_pass as pass_module
from schedlib.deferment import selection as selection_module
from schedlib.deferment.desktopgrid import Processor, SpeedHistory, TaskJob
from schedlib.deferment.selection import Allocation
from schedlib.engine import simulate
from schedlib.model import EventKind, FinalState, RunRecord
from schedlib.testing.invariants import (
    check_originals_before_replicas,
    check_processors_served_in_idle_order,
)
from schedlib.testing.mutation import mutant
from schedlib.testing.strategies import desktop_grids

Case = tuple[tuple[TaskJob, ...], tuple[Processor, ...]]
Select = Callable[..., Selection]
ORDERS = (Order.FIFO, Order.ROUND_ROBIN)
READINGS = (ReplicaOrder.ORIGINALS_FIRST, ReplicaOrder.JOB_ORDER)
MAX_EVENTS = 50_000
SEARCH = settings(
    max_examples=3000,
    derandomize=True,
    database=None,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],
)


def constant(speed: float) -> Processor:
    return Processor(speed, SpeedHistory.constant(speed))


# --------------------------------------------------------------------------------------
# The example: two processors of speed 1, job 1 = [4] and job 2 = [1] at t = 0.


def test_two_processor_example_originals_first() -> None:
    """Processor 1 gets job 2's task; job 1's task gets a replica only once job 2 is done."""
    record = run_grid([TaskJob(1, 0, (4,)), TaskJob(2, 0, (1,))], [constant(1)] * 2, fifo())
    starts = [
        (e.time, e.job, e.task, e.place, e.detail)
        for e in record.events
        if e.kind is EventKind.START
    ]
    assert starts == [(0, 1, 0, (0,), ""), (0, 2, 0, (1,), ""), (1.0, 1, 0, (1,), "replica")]
    assert {o.job: o.end for o in record.outcomes} == {1: 4.0, 2: 1.0}


def test_two_processor_example_head_job() -> None:
    """Processor 1 gets a replica of job 1's task; job 2 starts when job 1 completes."""
    scheduler = fifo(replica_order=ReplicaOrder.JOB_ORDER)
    record = run_grid([TaskJob(1, 0, (4,)), TaskJob(2, 0, (1,))], [constant(1)] * 2, scheduler)
    starts = [
        (e.time, e.job, e.task, e.place, e.detail)
        for e in record.events
        if e.kind is EventKind.START
    ]
    assert starts == [
        (0, 1, 0, (0,), ""),
        (0, 1, 0, (1,), "replica"),
        (4.0, 2, 0, (0,), ""),
        (4.0, 2, 0, (1,), "replica"),
    ]
    assert {o.job: o.end for o in record.outcomes} == {1: 4.0, 2: 5.0}
    assert record.algorithm == "fifo[job-order]"


def test_without_replication_the_readings_coincide() -> None:
    jobs = [TaskJob(1, 0, (4, 2)), TaskJob(2, 0, (1,)), TaskJob(3, 1, (3, 3))]
    grid = [constant(1), constant(2)]
    for order in ORDERS:
        runs = [
            run_grid(jobs, grid, TaskSelection(order, None, False, reading)) for reading in READINGS
        ]
        assert runs[0].events == runs[1].events


# --------------------------------------------------------------------------------------
# A plain reference selection, written from the paper apart from `select_tasks`.


def _deferred(jobs: Sequence[JobProgress], job: JobProgress, bound: int | None) -> bool:
    if bound is None or job.unallocated > bound:
        return False
    return any(o.job.submit < job.job.submit and o.job.size < job.job.size for o in jobs)


def reference(
    view: GridView, order: Order, bound: int | None, replication: bool, reading: ReplicaOrder
) -> Selection:
    """Each idle processor, in view order, goes to the first job of the policy order
    that may take an original; failing that (or in the same walk, in job order), a
    replica of the next running task of the first job whose tasks are all allocated."""
    jobs = {p.job.id: p for p in view.jobs}
    ids = [p.job.id for p in view.jobs]  # submission order
    last = view.last_job
    deferred: list[int] = []
    allocations: list[Allocation] = []

    def walk() -> list[int]:
        if order is Order.FIFO or last is None:
            return ids
        after = [i for i in ids if (jobs[i].job.submit, i) > last]
        return after + [i for i in ids if i not in after]

    def original(i: int) -> bool:
        p = jobs[i]
        if not p.unallocated:
            return False
        if _deferred(list(jobs.values()), p, bound):
            if i not in deferred:
                deferred.append(i)
            return False
        return True

    def replicable(i: int) -> bool:
        return replication and not jobs[i].unallocated and bool(jobs[i].running)

    for processor in view.idle:
        choice: tuple[int, int] | None = None
        for i in walk():
            if original(i):
                choice = (i, jobs[i].allocated)
                break
            if reading is ReplicaOrder.JOB_ORDER and replicable(i):
                choice = (i, jobs[i].next_replica())  # type: ignore[assignment]
                break
        if choice is None and reading is ReplicaOrder.ORIGINALS_FIRST:
            for i in walk():
                if replicable(i):
                    choice = (i, jobs[i].next_replica())  # type: ignore[assignment]
                    break
        if choice is None:
            break
        i, task = choice
        replica = task < jobs[i].allocated
        jobs[i] = jobs[i].allocate(task)
        allocations.append(Allocation(processor, i, task, replica))
        if order is Order.ROUND_ROBIN:
            last = (jobs[i].job.submit, i)
    return Selection(tuple(allocations), last, tuple(deferred))


@st.composite
def views(draw: st.DrawFn) -> GridView:
    """Snapshots of a few unfinished jobs in every allocation state, 1-4 idle processors."""
    jobs = []
    for i in range(draw(st.integers(1, 4))):
        count = draw(st.integers(1, 4))
        allocated = draw(st.integers(0, count))
        running = tuple(sorted(draw(st.sets(st.integers(0, count - 1), max_size=count))))
        running = tuple(t for t in running if t < allocated)
        if allocated == count and not running:
            running = (count - 1,)  # unfinished: something still runs
        cursor = draw(st.sampled_from(running)) if running else -1
        sizes = tuple(draw(st.lists(st.integers(1, 3), min_size=count, max_size=count)))
        jobs.append(
            JobProgress(TaskJob(i, draw(st.integers(0, 2)) + i, sizes), allocated, running, cursor)
        )
    jobs.sort(key=lambda p: (p.job.submit, p.job.id))
    keys = [(p.job.submit, p.job.id) for p in jobs]
    last = draw(st.one_of(st.none(), st.sampled_from(keys)))
    idle = tuple(draw(st.permutations(range(10, 10 + draw(st.integers(1, 4))))))
    return GridView(now=9, jobs=tuple(jobs), idle=idle, last_job=last)


OPTIONS = st.tuples(
    st.sampled_from(ORDERS),
    st.sampled_from([None, 1, 2]),
    st.booleans(),
    st.sampled_from(READINGS),
)


def _select(
    select: Select,
    view: GridView,
    order: Order,
    bound: int | None,
    replication: bool,
    reading: ReplicaOrder,
) -> Selection:
    deferment = None if bound is None else Deferment(bound)
    return select(
        view, order=order, deferment=deferment, replication=replication, replica_order=reading
    )


@settings(max_examples=400)
@given(view=views(), options=OPTIONS)
def test_every_snapshot_is_served_as_the_reference_serves_it(
    view: GridView, options: tuple[Order, int | None, bool, ReplicaOrder]
) -> None:
    assert _select(selection_module.select_tasks, view, *options) == reference(view, *options)


def _decisions(case: Case, scheduler: Callable[[GridView], Selection]) -> list[GridView]:
    seen: list[GridView] = []

    def spy(view: GridView) -> Selection:
        seen.append(view)
        return scheduler(view)

    jobs, grid = case
    run_grid(jobs, grid, spy, max_events=MAX_EVENTS)
    return seen


@given(case=desktop_grids(), options=OPTIONS)
def test_every_decision_of_a_run_is_the_reference_one(
    case: Case, options: tuple[Order, int | None, bool, ReplicaOrder]
) -> None:
    order, bound, replication, reading = options
    scheduler = TaskSelection(
        order, None if bound is None else Deferment(bound), replication, reading
    )
    for view in _decisions(case, scheduler):
        assert scheduler(view) == reference(view, *options)


# --------------------------------------------------------------------------------------
# JOB_ORDER under FIFO: jobs run one at a time, so neither overtaking nor deferment occurs.


def check_one_job_at_a_time(record: RunRecord) -> None:
    """No task of a job starts before every job earlier in (submit, id) order completed."""
    key = {job.id: (job.submit, job.id) for job in record.workload}
    ends = {o.job: o.end for o in record.outcomes if o.state is FinalState.COMPLETED}
    for e in record.events:
        if e.kind is EventKind.START:
            for other, end in ((j, ends.get(j)) for j in key if key[j] < key[e.job]):
                assert end is not None and end <= e.time, (
                    f"t={e.time}: job {e.job} task {e.task} starts while earlier job {other} "
                    f"runs (it completes at t={end})"
                )


@given(case=desktop_grids(), bound=st.sampled_from([1, 2, 8]))
def test_fifo_in_job_order_runs_one_job_at_a_time(case: Case, bound: int) -> None:
    jobs, grid = case
    standard = run_grid(
        jobs, grid, fifo(replica_order=ReplicaOrder.JOB_ORDER), max_events=MAX_EVENTS
    )
    check_one_job_at_a_time(standard)
    assert not overtaking_jobs(standard)
    deferred = run_grid(
        jobs, grid, fifo(bound, replica_order=ReplicaOrder.JOB_ORDER), max_events=MAX_EVENTS
    )
    assert deferred.events == standard.events  # deferment never triggers


# --------------------------------------------------------------------------------------
# The order in which freed processors are served.


@pytest.mark.parametrize("order", ORDERS, ids=lambda o: o.value)
@pytest.mark.parametrize("reading", READINGS, ids=lambda r: r.value)
@given(case=desktop_grids(), bound=st.sampled_from([None, 1, 2]))
def test_freed_processors_are_served_longest_idle_first(
    order: Order, reading: ReplicaOrder, case: Case, bound: int | None
) -> None:
    jobs, grid = case
    scheduler = TaskSelection(order, None if bound is None else Deferment(bound), True, reading)
    check_processors_served_in_idle_order(run_grid(jobs, grid, scheduler, max_events=MAX_EVENTS))


# --------------------------------------------------------------------------------------
# Each property fails on a one-line mutant of the code it pins.

SELECTION_MUTANTS = {
    "replicas before originals": (
        "        if chosen < 0 and replication and not in_turn:",
        "        if replication and not in_turn:",
    ),
    "every pass in job order": (
        "    in_turn = replication and replica_order is ReplicaOrder.JOB_ORDER",
        "    in_turn = replication",
    ),
    "job order never": (
        "    in_turn = replication and replica_order is ReplicaOrder.JOB_ORDER",
        "    in_turn = False",
    ),
    "processors by id": (
        "    for served, processor in enumerate(idle, 1):",
        "    for served, processor in enumerate(sorted(idle), 1):",
    ),
}


def _broken_selection(name: str) -> Select:
    old, new = SELECTION_MUTANTS[name]
    return mutant(selection_module.select_tasks, old, new)


def _scheduler(
    select: Select, order: Order, bound: int | None, reading: ReplicaOrder
) -> Callable[[GridView], Selection]:
    return lambda view: _select(select, view, order, bound, True, reading)


def _fails(check: Callable[[], None]) -> bool:
    try:
        check()
    except AssertionError:
        return True
    return False


@pytest.mark.parametrize("order", ORDERS, ids=lambda o: o.value)
@pytest.mark.parametrize("name", ["replicas before originals", "every pass in job order"])
def test_originals_first_property_fails_when_replicas_go_first(order: Order, name: str) -> None:
    broken = _broken_selection(name)

    def violated(case: Case) -> bool:
        scheduler = _scheduler(broken, order, 1, ReplicaOrder.ORIGINALS_FIRST)

        def check() -> None:
            for view in _decisions(case, scheduler):
                check_originals_before_replicas(view, scheduler(view), bound=1)

        return _fails(check)

    find(desktop_grids(), violated, settings=SEARCH)


def test_one_job_at_a_time_property_fails_when_fifo_is_not_in_job_order() -> None:
    broken = _broken_selection("job order never")

    def violated(case: Case) -> bool:
        jobs, grid = case
        scheduler = _scheduler(broken, Order.FIFO, None, ReplicaOrder.JOB_ORDER)
        record = run_grid(jobs, grid, scheduler, max_events=MAX_EVENTS)
        return _fails(lambda: check_one_job_at_a_time(record))

    find(desktop_grids(), violated, settings=SEARCH)


def _farm_with(method: str, function: Callable[..., object]) -> type[TaskFarm]:
    return type("BrokenFarm", (TaskFarm,), {method: function})


def _pass_mutant(old: str, new: str) -> Callable[..., object]:
    broken = mutant(pass_module.run_pass, old, new)
    return lambda self, state, now: broken(self, state, now)


FARM_MUTANTS: dict[str, Callable[[], type[TaskFarm]]] = {
    "freed processors first (LIFO)": lambda: _farm_with(
        "_complete",
        mutant(
            farm_module.TaskFarm._complete,
            "FarmState(jobs, (*state.idle, *freed),",
            "FarmState(jobs, (*freed, *state.idle),",
        ),
    ),
    "cancelled replicas by decreasing id": lambda: _farm_with(
        "_complete",
        mutant(
            farm_module.TaskFarm._complete,
            "for other, running in enumerate(runs):",
            "for other, running in reversed(list(enumerate(runs))):",
        ),
    ),
    "leftover idle processors by id": lambda: _farm_with(
        "on_pass",
        _pass_mutant(
            "rest = tuple(p for p in idle if p not in used)",
            "rest = tuple(sorted(p for p in idle if p not in used))",
        ),
    ),
}


@pytest.mark.parametrize("name", [*FARM_MUTANTS, "processors by id"])
def test_processor_order_property_fails_on_mutants(name: str) -> None:
    if name in FARM_MUTANTS:
        model_type = FARM_MUTANTS[name]()
        select: Select = selection_module.select_tasks
    else:
        model_type, select = TaskFarm, _broken_selection(name)

    def violated(case: Case) -> bool:
        jobs, grid = case
        # with replication no processor stays idle while a job runs; without, some do
        for replication in (True, False):

            def scheduler(view: GridView, replication: bool = replication) -> Selection:
                return _select(
                    select, view, Order.ROUND_ROBIN, None, replication, ReplicaOrder.ORIGINALS_FIRST
                )

            model = model_type(grid, scheduler)
            state, events = model.initial(jobs)
            trace = simulate(model, state, events, max_events=MAX_EVENTS)
            record = RunRecord.from_log("broken", jobs, trace.log, capacity=len(grid))
            if _fails(lambda r=record: check_processors_served_in_idle_order(r)):  # type: ignore[misc]
                return True
        return False

    find(desktop_grids(), violated, settings=SEARCH)
