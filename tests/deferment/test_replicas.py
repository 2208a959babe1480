"""Replicas go only where no original can: direct properties of every decision.

Mine et al. (2007) §4, in the library's default reading (`ReplicaOrder.ORIGINALS_FIRST`):
an idle processor gets an original task when one may go out; otherwise (with
replication) a replica of a running task of a job whose every task is already
allocated. A job with deferred tasks still has originals to hand out, so it gets no
replica. Each property is checked on every decision of random runs and on random
snapshots, and hypothesis finds a counterexample on each one-line mutant of the
selection (built with `schedlib.testing.mutation.mutant`).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st

from schedlib.deferment import Deferment, GridView, JobProgress, Order, Selection, run_grid
from schedlib.deferment import selection as selection_module
from schedlib.deferment.desktopgrid import TaskJob
from schedlib.testing.invariants import (
    check_idle_processors_served,
    check_originals_before_replicas,
)
from schedlib.testing.mutation import mutant
from schedlib.testing.strategies import desktop_grids

Scheduler = Callable[[GridView], Selection]


def check_replicas_only_of_fully_allocated_jobs(view: GridView, choice: Selection) -> None:
    """Every replica is of a running task of a job with no unallocated task left.

    The decision's allocations are replayed in order: an original handed out earlier
    in the same decision counts as allocated and running.
    """
    allocated = {p.job.id: p.allocated for p in view.jobs}
    running = {p.job.id: set(p.running) for p in view.jobs}
    sizes = {p.job.id: len(p.job.tasks) for p in view.jobs}
    for a in choice.allocations:
        if not a.replica:
            allocated[a.job] = max(allocated[a.job], a.task + 1)
            running[a.job].add(a.task)
            continue
        left = sizes[a.job] - allocated[a.job]
        assert left == 0, (
            f"t={view.now}: processor {a.processor} gets a replica of job {a.job} task {a.task} "
            f"although the job has {left} unallocated task(s)"
        )
        assert a.task in running[a.job], f"t={view.now}: replica of job {a.job}'s idle task"


def decisions(case: tuple[tuple[TaskJob, ...], tuple[object, ...]], scheduler: Scheduler) -> list:  # type: ignore[type-arg]
    seen: list[tuple[GridView, Selection]] = []

    def spy(view: GridView) -> Selection:
        choice = scheduler(view)
        seen.append((view, choice))
        return choice

    jobs, grid = case
    run_grid(jobs, grid, spy)  # type: ignore[arg-type]
    return seen


def scheduler_of(select: Callable[..., Selection], order: Order, bound: int | None) -> Scheduler:
    deferment = None if bound is None else Deferment(bound)
    return lambda view: select(view, order=order, deferment=deferment, replication=True)


def check_originals_then_replicas(view: GridView, choice: Selection, bound: int | None) -> None:
    """The property of every decision: idle processors served, originals before replicas,
    replicas only of fully allocated jobs."""
    check_idle_processors_served(view, choice, replication=True)
    check_originals_before_replicas(view, choice, bound=bound)
    check_replicas_only_of_fully_allocated_jobs(view, choice)


@pytest.mark.parametrize("order", list(Order), ids=lambda o: o.value)
@given(case=desktop_grids(), bound=st.sampled_from([None, 1, 2]))
def test_every_decision_serves_idle_processors_with_originals_then_replicas(
    order: Order,
    case: tuple,
    bound: int | None,  # type: ignore[type-arg]
) -> None:
    for view, choice in decisions(case, scheduler_of(selection_module.select_tasks, order, bound)):
        check_originals_then_replicas(view, choice, bound)


@st.composite
def views(draw: st.DrawFn) -> GridView:
    """Snapshots of a few unfinished jobs in every allocation state, 1-3 idle processors."""
    jobs = []
    for i in range(draw(st.integers(1, 4))):
        size = draw(st.integers(1, 4))
        allocated = draw(st.integers(0, size))
        running = tuple(sorted(draw(st.sets(st.integers(0, max(0, allocated - 1)), max_size=size))))
        running = tuple(t for t in running if t < allocated)
        if allocated == size and not running:
            running = (size - 1,)  # unfinished: something still runs
        cursor = draw(st.sampled_from(running)) if running else -1
        jobs.append(JobProgress(TaskJob(i, i, (1.0,) * size), allocated, running, cursor))
    last = draw(st.one_of(st.none(), st.sampled_from([(j.job.submit, j.job.id) for j in jobs])))
    idle = tuple(range(10, 10 + draw(st.integers(1, 3))))
    return GridView(now=9, jobs=tuple(jobs), idle=idle, last_job=last)


@pytest.mark.parametrize("order", list(Order), ids=lambda o: o.value)
@settings(max_examples=300)
@given(view=views(), bound=st.sampled_from([None, 1, 2]))
def test_every_snapshot_is_served_with_originals_then_replicas(
    order: Order, view: GridView, bound: int | None
) -> None:
    choice = scheduler_of(selection_module.select_tasks, order, bound)(view)
    check_originals_then_replicas(view, choice, bound)


# Job 1 (one task, running) was submitted before job 2 (task 0 running, task 1 not
# allocated). With B = 1, job 2's last task is deferred while job 1 runs.
SMALL = JobProgress(TaskJob(1, 0, (3,)), allocated=1, running=(0,), cursor=0)
BIG = JobProgress(TaskJob(2, 5, (4, 4)), allocated=1, running=(0,), cursor=0)


@pytest.mark.parametrize("order", list(Order), ids=lambda o: o.value)
def test_an_idle_processor_gets_a_replica_when_no_original_is_left(order: Order) -> None:
    done = JobProgress(TaskJob(1, 0, (3, 3)), allocated=2, running=(1,), cursor=1)
    view = GridView(now=4, jobs=(done,), idle=(5, 6))
    choice = selection_module.select_tasks(view, order=order, replication=True)
    assert [(a.processor, a.job, a.task, a.replica) for a in choice.allocations] == [
        (5, 1, 1, True),
        (6, 1, 1, True),
    ]
    check_idle_processors_served(view, choice, replication=True)


def test_a_job_with_a_deferred_task_gets_no_replica_even_when_its_turn_comes_first() -> None:
    # round robin served job 1 last, so job 2 comes first; its task 1 is deferred
    view = GridView(now=6, jobs=(SMALL, BIG), idle=(7,), last_job=(0, 1))
    choice = selection_module.select_tasks(
        view, order=Order.ROUND_ROBIN, deferment=Deferment(1), replication=True
    )
    assert choice.deferred == (2,)
    assert [(a.job, a.task, a.replica) for a in choice.allocations] == [(1, 0, True)]
    check_replicas_only_of_fully_allocated_jobs(view, choice)


MUTANTS = {
    "no replica for an idle processor": (
        "        if chosen < 0 and replication and not in_turn:",
        "        if chosen < 0 and replication and not in_turn and False:",
    ),
    "replica of a job with deferred tasks": (
        "if progress.running and progress.allocated == len(progress.job.tasks):",
        "if progress.running and progress.allocated <= len(progress.job.tasks):",
    ),
    "replicas before originals": (
        "        if chosen < 0 and replication and not in_turn:",
        "        if replication and not in_turn:",
    ),
    "replicas in their job's turn": (
        "    in_turn = replication and replica_order is ReplicaOrder.JOB_ORDER",
        "    in_turn = replication",
    ),
}
FIND = settings(max_examples=2000, derandomize=True, database=None, deadline=None,
                phases=[Phase.explicit, Phase.generate])  # fmt: skip


EQUIVALENT = {("replica of a job with deferred tasks", Order.FIFO)}
"""Mutants that cannot change a decision of this order: under FIFO the replica walk reaches
the earliest unfinished job first, which is never deferred (no job is earlier)."""


@pytest.mark.parametrize(
    ("name", "order"),
    [(n, o) for n in MUTANTS for o in Order if (n, o) not in EQUIVALENT],
    ids=lambda x: x.value if isinstance(x, Order) else x,
)
def test_the_snapshot_property_fails_on_one_line_mutants(name: str, order: Order) -> None:
    old, new = MUTANTS[name]
    broken = mutant(selection_module.select_tasks, old, new)

    def violated(example: tuple[GridView, int | None]) -> bool:
        view, bound = example
        try:
            check_originals_then_replicas(view, scheduler_of(broken, order, bound)(view), bound)
        except AssertionError:
            return True
        return False

    find(st.tuples(views(), st.sampled_from([None, 1, 2])), violated, settings=FIND)
