"""Task selection: FIFO, round robin, the deferment test (C1, C2, B) and replication."""

from __future__ import annotations

import typing

import attrs
import pytest

from schedlib.deferment import (
    Allocation,
    Deferment,
    GridView,
    JobProgress,
    Order,
    Selection,
    TaskSelection,
    blocking_job,
    few_unallocated,
    fifo,
    must_defer,
    overtakes,
    round_robin,
    select_tasks,
    validate_bound,
)
from schedlib.deferment.desktopgrid import TaskJob
from schedlib.errors import InvalidValueError
from schedlib.model import Time


def progress(job_id: int, submit: Time, sizes: tuple[int, ...], allocated: int = 0) -> JobProgress:
    return JobProgress(
        TaskJob(job_id, submit, sizes), allocated, tuple(range(allocated)), allocated - 1
    )


def picks(selection: Selection) -> list[tuple[int, int, int, bool]]:
    return [(a.processor, a.job, a.task, a.replica) for a in selection.allocations]


@pytest.mark.parametrize("bound", [0, -1, 1.5, True, None, "1"])
def test_bound_below_one_is_refused_everywhere(bound: object) -> None:
    for make in (validate_bound, Deferment, fifo, round_robin):
        if bound is None and make in (fifo, round_robin):
            continue  # None means "standard"
        with pytest.raises(InvalidValueError) as error:
            make(bound)  # type: ignore[operator]
        assert error.value.field == "B"
    job = progress(1, 0, (1,))
    with pytest.raises(InvalidValueError, match="B = 0"):
        must_defer((job,), job, 0)


@pytest.mark.parametrize("bound", [1, 2, 8])
def test_bound_of_one_or_more_is_accepted(bound: int) -> None:
    assert validate_bound(bound) == bound
    assert Deferment(bound).bound == bound
    assert fifo(bound).deferment == Deferment(bound)


def test_c1_counts_the_selected_task() -> None:
    job = progress(1, 0, (1, 1, 1), allocated=2)  # one task left: the selected one
    assert few_unallocated(job, 1)
    assert not few_unallocated(progress(1, 0, (1, 1, 1), allocated=1), 1)


def test_c2_needs_an_earlier_strictly_smaller_unfinished_job() -> None:
    big = progress(3, 10, (5, 5))
    smaller_earlier = progress(1, 0, (3,))
    same_size_earlier = progress(2, 0, (10,))
    smaller_same_time = progress(4, 10, (1,))
    assert blocking_job((smaller_earlier, big), big) == smaller_earlier
    assert blocking_job((same_size_earlier, big), big) is None
    assert blocking_job((big, smaller_same_time), big) is None
    assert blocking_job((big,), big) is None


def test_fifo_serves_jobs_in_submission_order() -> None:
    view = GridView(0, (progress(1, 0, (1, 1)), progress(2, 0, (1,))), (5, 6, 7, 8))
    assert picks(fifo(replication=False)(view)) == [
        (5, 1, 0, False),
        (6, 1, 1, False),
        (7, 2, 0, False),
    ]


def test_round_robin_rotates_over_jobs_and_remembers() -> None:
    jobs = (progress(1, 0, (1, 1, 1)), progress(2, 1, (1, 1)), progress(3, 2, (1,)))
    first = round_robin()(GridView(0, jobs, (0, 1)))
    assert picks(first) == [(0, 1, 0, False), (1, 2, 0, False)]
    assert first.last_job == (1, 2)
    # the next pass continues after job 2
    jobs = (jobs[0].allocate(0), jobs[1].allocate(0), jobs[2])
    second = round_robin()(GridView(1, jobs, (4,), first.last_job))
    assert picks(second) == [(4, 3, 0, False)]
    # the job served last may have finished: the turn goes to the next one
    third = round_robin()(GridView(2, (jobs[0], jobs[2]), (4,), (1, 2)))
    assert picks(third) == [(4, 3, 0, False)]


def test_replicas_go_round_robin_over_running_tasks_after_all_originals() -> None:
    done = JobProgress(TaskJob(1, 0, (1, 1, 1)), 3, (0, 2), cursor=2)
    waiting = progress(2, 1, (1,))
    choice = fifo()(GridView(0, (done, waiting), (0, 1, 2, 3)))
    assert picks(choice) == [(0, 2, 0, False), (1, 1, 0, True), (2, 1, 2, True), (3, 1, 0, True)]
    assert picks(fifo(replication=False)(GridView(0, (done,), (0,)))) == []


def test_deferred_task_waits_and_the_processor_serves_others() -> None:
    small = progress(1, 0, (3,), allocated=1)
    big = progress(2, 5, (4, 4), allocated=1)
    later = progress(3, 6, (1, 1))
    view = GridView(6, (small, big, later), (9, 8))
    choice = fifo(bound=1)(view)
    assert choice.deferred == (2,)
    assert picks(choice) == [(9, 3, 0, False), (8, 3, 1, False)]
    # with B = 1 only the last task is held; a job with more tasks left goes on
    assert picks(fifo(bound=1)(GridView(6, (small, progress(2, 5, (4, 4))), (9,)))) == [
        (9, 2, 0, False)
    ]
    # bound 2 holds the last two tasks
    assert fifo(bound=2)(GridView(6, (small, progress(2, 5, (4, 4))), (9,))).deferred == (2,)


def test_a_deferred_job_gets_no_replicas() -> None:
    tiny = progress(0, 0, (1,), allocated=1)
    other = progress(1, 0, (9,), allocated=1)
    big = progress(2, 5, (4, 4), allocated=1)  # waits for job 0 (earlier, smaller)
    choice = round_robin(bound=1)(GridView(6, (tiny, other, big), (3, 4, 5)))
    assert choice.deferred == (2,)
    assert picks(choice) == [(3, 0, 0, True), (4, 1, 0, True), (5, 0, 0, True)]


def test_nothing_to_do() -> None:
    assert select_tasks(GridView(0, (), (1,)), order=Order.FIFO) == Selection()
    assert select_tasks(GridView(0, (progress(1, 0, (1,)),), ()), order=Order.FIFO) == Selection()


def test_progress_refuses_impossible_allocations() -> None:
    job = progress(1, 0, (1, 1, 1), allocated=1)
    with pytest.raises(InvalidValueError, match="next unallocated task"):
        job.allocate(2)
    with pytest.raises(InvalidValueError, match="not running"):
        job.complete(1)
    assert job.allocate(0).cursor == 0  # a replica of task 0


def test_the_scheduler_cannot_see_speeds() -> None:
    """Look-ahead is impossible by the types: nothing in a view holds a speed history."""
    seen: set[object] = set()

    def fields(cls: type) -> dict[str, object]:
        if attrs.has(cls):
            attrs.resolve_types(cls)
            return {f.name: f.type for f in attrs.fields(cls)}
        if hasattr(cls, "_fields"):  # a NamedTuple
            return dict(typing.get_type_hints(cls))
        return {}

    def walk(annotation: object) -> None:
        if annotation in seen:
            return
        seen.add(annotation)
        for argument in typing.get_args(annotation):
            walk(argument)
        if isinstance(annotation, type):
            assert not hasattr(annotation, "segment_at"), annotation  # not a SpeedSource
            for name, kind in fields(annotation).items():
                assert "speed" not in name, f"{annotation.__name__}.{name}"
                walk(kind)

    for cls in (GridView, JobProgress, TaskJob):
        walk(cls)
    assert set(GridView._fields) == {"now", "jobs", "idle", "last_job"}
    assert JobProgress in seen and TaskJob in seen


def test_task_selection_names() -> None:
    assert TaskSelection(Order.FIFO, Deferment(2), False).name == "fifo+deferment(B=2)-replication"
    assert TaskSelection(Order.FIFO, lambda jobs, job: False).name == "fifo+<lambda>"


def test_overtaking_relation_is_strict() -> None:
    early, late = TaskJob(1, 0, (5,)), TaskJob(2, 1, (9,))
    assert overtakes(late, 3, early, 4)
    assert not overtakes(late, 4, early, 4)  # finishing together is not overtaking
    assert overtakes(late, 3, early, None)  # the earlier job never finished
    assert not overtakes(late, None, early, 4)
    same_time = TaskJob(3, 0, (9,))
    assert not overtakes(same_time, 3, early, 4)  # not submitted strictly later
    same_size = TaskJob(4, 1, (5,))
    assert not overtakes(same_size, 3, early, 4)  # not strictly larger


def test_allocation_is_a_plain_record() -> None:
    assert Allocation(1, 2, 3) == Allocation(processor=1, job=2, task=3, replica=False)
