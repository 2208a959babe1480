"""Checkers for multi-task jobs on a desktop grid (Mine et al. 2007: task deferment, replication).

Run-level checkers take a [`RunRecord`][schedlib.model.RunRecord] whose
workload jobs are [`TaskJob`][schedlib.deferment.desktopgrid.TaskJob]s (anything with
`id`, `submit`, `tasks` and `size`) and whose log has task-level `START`,
`COMPLETE` and `CANCEL` entries (`task=` the task index, `place=(processor,)`),
as [`run_grid`][schedlib.deferment.farm.run_grid] writes. One decision-level
checker takes a scheduler's snapshot and decision. "Processors never run two
instances at once" is [`check_capacity`][schedlib.testing.invariants.check_capacity].

Examples
--------
>>> from schedlib.deferment.selection import fifo
>>> from schedlib.deferment.desktopgrid import Processor, SpeedHistory, TaskJob
>>> from schedlib.deferment.farm import run_grid
>>> stalls = Processor(4, SpeedHistory(times=(0, 20), speeds=(0, 4)))  # stalled until t=20
>>> grid = [stalls, Processor(1, SpeedHistory.constant(1))]
>>> jobs = [TaskJob(1, 0, (2, 2)), TaskJob(2, 1, (5,))]
>>> record = run_grid(jobs, grid, fifo(bound=1))
>>> check_no_overtaking(record); check_tasks_complete_once(record)
>>> check_no_overtaking(run_grid(jobs, grid, fifo()))
Traceback (most recent call last):
...
AssertionError: job 2 (submitted t=1, size 5, finished t=7.0) overtakes job 1 (... finished t=9.0)
"""

from __future__ import annotations

import math
from collections import Counter, deque
from collections.abc import Sequence
from typing import Any

from schedlib.deferment.desktopgrid import Processor, finish_time, work_done
from schedlib.deferment.overtaking import overtaking_pairs
from schedlib.deferment.selection import GridView, JobProgress, Selection
from schedlib.model import EventKind, FinalState, JobId, RunRecord, Time
from schedlib.testing.invariants.common import execution_segments

__all__ = [
    "check_deferment_respected",
    "check_idle_processors_served",
    "check_no_overtaking",
    "check_originals_before_replicas",
    "check_processors_served_in_idle_order",
    "check_replicas_cancelled",
    "check_same_completions",
    "check_tasks_complete_once",
    "check_work_matches_speeds",
]


def check_no_overtaking(record: RunRecord) -> None:
    """No job overtakes another (Mine et al. 2007 §1).

    Job $J$ overtakes $J'$ when $J'$ was submitted strictly earlier, is
    strictly smaller, and $J$ completed strictly first (a job that did not
    complete finishes "never"). See
    [`overtakes`][schedlib.deferment.overtaking.overtakes].

    Raises
    ------
    AssertionError
        Naming the first overtaking pair with submission times, sizes and
        finish times.
    """
    pairs = overtaking_pairs(record)
    if not pairs:
        return
    jobs = {job.id: job for job in record.workload}
    ends = record.outcome_map()
    first, second = pairs[0]

    def describe(job_id: JobId) -> str:
        job, outcome = jobs[job_id], ends[job_id]
        end = outcome.end if outcome.state is FinalState.COMPLETED else "never"
        return f"job {job_id} (submitted t={job.submit}, size {job.size:g}, finished t={end})"

    more = f" (and {len(pairs) - 1} more pair(s))" if len(pairs) > 1 else ""
    raise AssertionError(f"{describe(first)} overtakes {describe(second)}{more}")


def _task_completions(record: RunRecord) -> dict[tuple[JobId, int], list[Time]]:
    done: dict[tuple[JobId, int], list[Time]] = {}
    for e in record.events:
        if e.kind is EventKind.COMPLETE and e.task is not None:
            done.setdefault((e.job, e.task), []).append(e.time)
    return done


def check_tasks_complete_once(record: RunRecord) -> None:
    """Every task of every completed job completes exactly once, and the job with its last task.

    - no task completes twice, and only tasks the job has complete;
    - a job completes (`COMPLETE` with `task=None`) exactly when all its
      tasks have completed, at the time of the last one;
    - no instance of a task starts after the task completed.

    Raises
    ------
    AssertionError
        Naming the job, the task and the times.
    """
    done = _task_completions(record)
    jobs = {job.id: job for job in record.workload}
    for (job_id, task), times in sorted(done.items()):
        tasks = len(jobs[job_id].tasks)
        assert 0 <= task < tasks, f"job {job_id} completes task {task}, but it has {tasks} task(s)"
        assert len(times) == 1, f"job {job_id} task {task} completes {len(times)} times, at {times}"
    for outcome in record.outcomes:
        job = jobs[outcome.job]
        finished = [done.get((job.id, k), [None])[0] for k in range(len(job.tasks))]
        if outcome.state is FinalState.COMPLETED:
            missing = [k for k, t in enumerate(finished) if t is None]
            assert not missing, (
                f"job {job.id} completes at t={outcome.end} but its task(s) {missing} never did"
            )
            last = max(t for t in finished if t is not None)
            assert outcome.end == last, (
                f"job {job.id} completes at t={outcome.end}, its last task at t={last}"
            )
        else:
            assert None in finished, (
                f"job {job.id} ends as {outcome.state} although all its tasks completed"
            )
    completed: set[tuple[JobId, int]] = set()
    for e in record.events:
        if e.task is None:
            continue
        if e.kind is EventKind.COMPLETE:
            completed.add((e.job, e.task))
        elif e.kind is EventKind.START:
            assert (e.job, e.task) not in completed, (
                f"job {e.job} task {e.task} starts on {list(e.place)} at t={e.time} "
                "after it completed"
            )


def check_replicas_cancelled(record: RunRecord) -> None:
    """When a task completes, its other instances are cancelled at that instant (§4).

    Every instance of a completed task is closed at the task's completion
    time: one by the `COMPLETE`, every other one by a `CANCEL`; none keeps
    running (or completes again) after it.

    Raises
    ------
    AssertionError
        Naming the job, task, processor and times of an instance that outlives
        its task or was never closed.
    """
    done = {key: times[0] for key, times in _task_completions(record).items()}
    started: Counter[tuple[JobId, int]] = Counter(
        (e.job, e.task)
        for e in record.events
        if e.kind is EventKind.START and e.task is not None and (e.job, e.task) in done
    )
    closed: Counter[tuple[JobId, int]] = Counter()
    for segment in execution_segments(record):
        assert segment.task is not None
        key = (segment.job, segment.task)
        if key not in done:
            continue
        closed[key] += 1
        kind = "cancelled" if segment.closed_by is EventKind.CANCEL else "ends"
        assert segment.end == done[key], (
            f"job {segment.job} task {segment.task}: the instance on {list(segment.place)} "
            f"{kind} at t={segment.end}, but the task completed at t={done[key]}"
        )
    for key, count in sorted(started.items()):
        assert closed[key] == count, (
            f"job {key[0]} task {key[1]}: {count - closed[key]} instance(s) still running "
            f"after the task completed at t={done[key]}"
        )


def check_same_completions(record: RunRecord, other: RunRecord) -> None:
    """Two runs complete the same jobs, and the same tasks the same number of times.

    Used to check that task replication changes only *when* jobs complete,
    never *which* (compare a run with replication and one without, on the
    same jobs and grid).

    Raises
    ------
    AssertionError
        Naming a job completed in one run only, or a task completed a
        different number of times.
    """

    def completed(run: RunRecord) -> set[JobId]:
        return {o.job for o in run.outcomes if o.state is FinalState.COMPLETED}

    def tasks(run: RunRecord) -> Counter[tuple[JobId, int]]:
        return Counter(
            (e.job, e.task)
            for e in run.events
            if e.kind is EventKind.COMPLETE and e.task is not None
        )

    mine, theirs = completed(record), completed(other)
    assert mine == theirs, (
        f"jobs completed only by {record.algorithm!r}: {sorted(mine - theirs)}; "
        f"only by {other.algorithm!r}: {sorted(theirs - mine)}"
    )
    a, b = tasks(record), tasks(other)
    for key in sorted(set(a) | set(b)):
        assert a[key] == b[key], (
            f"job {key[0]} task {key[1]} completes {a[key]} time(s) in {record.algorithm!r} "
            f"but {b[key]} in {other.algorithm!r}"
        )


def check_work_matches_speeds(
    record: RunRecord, processors: Sequence[Processor], *, rel_tol: float = 1e-9
) -> None:
    """Each instance computes what its processor's speed allows, no more, no less.

    An instance closed by `COMPLETE` on processor $p$ over $[b, e)$ ends at
    the brute-force [`finish_time`][schedlib.deferment.desktopgrid.finish_time]
    $f_p(b, w)$ of its task's size $w$; a cancelled instance computed at most
    $w$ ([`work_done`][schedlib.deferment.desktopgrid.work_done]). This checks the
    event-driven re-timing on speed changes against a direct walk of the
    speed pieces.

    Parameters
    ----------
    record
        The run.
    processors
        The grid it ran on (processor `i` is `processors[i]`).
    rel_tol
        Relative tolerance on times and work.

    Raises
    ------
    AssertionError
        Naming the job, task, processor and the two times.
    """
    sizes: dict[JobId, Any] = {job.id: job.tasks for job in record.workload}
    for segment in execution_segments(record):
        if segment.task is None:
            continue
        (processor,) = segment.place
        speed = processors[processor].speed
        size = sizes[segment.job][segment.task]
        where = f"job {segment.job} task {segment.task} on processor {processor}"
        if segment.closed_by is EventKind.COMPLETE:
            expected = finish_time(speed, segment.start, size)
            assert math.isclose(segment.end, expected, rel_tol=rel_tol, abs_tol=1e-12), (
                f"{where}: started t={segment.start}, completed t={segment.end}, "
                f"but its speed history finishes {size:g} instructions at t={expected}"
            )
        else:
            done = work_done(speed, segment.start, segment.end)
            assert done <= size * (1 + rel_tol), (
                f"{where}: computed {done:g} instructions over [{segment.start}, {segment.end}) "
                f"without completing a task of {size:g}"
            )


def _deferred(jobs: Sequence[JobProgress], progress: JobProgress, bound: int | None) -> bool:
    """Whether task deferment with bound `bound` (`None`: none) holds back `progress`'s next task.

    C1 and C2 of Mine et al. (2007) §4 restated independently of
    [`must_defer`][schedlib.deferment.selection.must_defer] (a reference check).
    """
    if bound is None:
        return False
    c1 = progress.unallocated <= bound
    c2 = any(
        other.job.submit < progress.job.submit and other.job.size < progress.job.size
        for other in jobs
    )
    return c1 and c2


def check_deferment_respected(view: GridView, selection: Selection, bound: int) -> None:
    """A scheduler's decision never allocates a task that task deferment defers.

    Replays the allocations of `selection` on `view` in order: each must use a
    distinct idle processor and a job of the view; an original (the job's
    next unallocated task) must not be one that task deferment defers at that
    point (conditions C1 and C2 with bound $B$, Mine et al. (2007) §4, restated here
    independently of [`must_defer`][schedlib.deferment.selection.must_defer]); a
    replica must be of a running task.

    Parameters
    ----------
    view
        The snapshot the scheduler was given.
    selection
        Its decision.
    bound
        The task deferment bound $B \\ge 1$.

    Raises
    ------
    AssertionError
        Naming the allocation, and for a deferred task the job it waits for.
    """
    jobs: list[JobProgress] = list(view.jobs)
    free = list(view.idle)
    for allocation in selection.allocations:
        assert allocation.processor in free, (
            f"{allocation} uses processor {allocation.processor}, not idle (idle: {free})"
        )
        free.remove(allocation.processor)
        index = next((i for i, p in enumerate(jobs) if p.job.id == allocation.job), None)
        assert index is not None, f"{allocation} names a job that is not in the view"
        progress = jobs[index]
        if allocation.task == progress.allocated:
            assert not _deferred(jobs, progress, bound), (
                f"{allocation} at t={view.now}: job {allocation.job} has "
                f"{progress.unallocated} unallocated task(s) <= B = {bound} (C1) and an "
                "earlier, smaller job is unfinished (C2): the task must be deferred"
            )
        else:
            assert allocation.task in progress.running, (
                f"{allocation}: task {allocation.task} is neither the next unallocated task "
                f"({progress.allocated}) nor running {list(progress.running)}"
            )
        jobs[index] = progress.allocate(allocation.task)


def check_idle_processors_served(
    view: GridView, selection: Selection, *, replication: bool = True
) -> None:
    """A processor stays idle only when nothing could be handed to it.

    After the decision's allocations (replayed on `view`), if some idle
    processor is left over:

    - every job with unallocated tasks is one the decision deferred (an
      original that is not deferred always goes out first); and
    - with `replication`, no job has all its tasks allocated and one still
      running: such a task gets a replica on the idle processor (Mine et
      al. 2007, §4, task replication — the straggler may be on a slow
      processor).

    Parameters
    ----------
    view
        The snapshot the scheduler was given.
    selection
        Its decision.
    replication
        Whether the scheduler claims to replicate running tasks.

    Raises
    ------
    AssertionError
        Naming the idle processor and the job it could have served.

    Examples
    --------
    >>> from schedlib.deferment.desktopgrid import TaskJob
    >>> from schedlib.deferment.selection import JobProgress, Selection
    >>> straggler = JobProgress(TaskJob(1, 0, (5,)), allocated=1, running=(0,), cursor=0)
    >>> check_idle_processors_served(GridView(3, (straggler,), idle=(4,)), Selection((), None, ()))
    Traceback (most recent call last):
    ...
    AssertionError: t=3: processor 4 stays idle although job 1's running task 0 could get a replica
    """
    jobs = {p.job.id: p for p in view.jobs}
    idle = list(view.idle)
    for allocation in selection.allocations:
        if allocation.processor in idle:
            idle.remove(allocation.processor)
        progress = jobs.get(allocation.job)
        if progress is not None and (
            allocation.task == progress.allocated or allocation.task in progress.running
        ):
            jobs[allocation.job] = progress.allocate(allocation.task)
    if not idle:
        return
    deferred = set(selection.deferred)
    for progress in jobs.values():
        if progress.unallocated and progress.job.id not in deferred:
            raise AssertionError(
                f"t={view.now}: processor {idle[0]} stays idle although job {progress.job.id} "
                f"has {progress.unallocated} unallocated task(s) and is not deferred"
            )
        if replication and not progress.unallocated and progress.running:
            raise AssertionError(
                f"t={view.now}: processor {idle[0]} stays idle although job {progress.job.id}'s "
                f"running task {progress.running[0]} could get a replica"
            )


def check_originals_before_replicas(
    view: GridView, selection: Selection, *, bound: int | None = None
) -> None:
    """No replica goes out while an original could: originals of every job come first.

    The [`ORIGINALS_FIRST`][schedlib.deferment.selection.ReplicaOrder] reading of
    Mine et al. (2007) §4-§5.2 (the library's default): a pass hands idle processors
    the originals of every job before any replica. The decision's allocations
    are replayed on `view` in order; when one is a replica (a task the job has
    already allocated), no job may then have an unallocated task that task
    deferment does not hold back (C1 and C2 with bound `bound`, restated
    here; `None`: the standard algorithm, which holds none back).

    Parameters
    ----------
    view
        The snapshot the scheduler was given.
    selection
        Its decision.
    bound
        The scheduler's task deferment bound $B \\ge 1$, or `None`.

    Raises
    ------
    AssertionError
        Naming the replica and the job whose original could have gone out.

    Examples
    --------
    >>> from schedlib.deferment.desktopgrid import TaskJob
    >>> from schedlib.deferment.selection import Allocation, JobProgress, Selection
    >>> running = JobProgress(TaskJob(1, 0, (4,)), allocated=1, running=(0,), cursor=0)
    >>> view = GridView(0, (running, JobProgress(TaskJob(2, 0, (1,)))), idle=(1,))
    >>> check_originals_before_replicas(view, Selection((Allocation(1, 2, 0),)))
    >>> check_originals_before_replicas(view, Selection((Allocation(1, 1, 0, True),)))
    Traceback (most recent call last):
    ...
    AssertionError: t=0: processor 1 gets a replica of job 1 task 0 while job 2's task 0 could ...
    """
    jobs: list[JobProgress] = list(view.jobs)
    for allocation in selection.allocations:
        index = next((i for i, p in enumerate(jobs) if p.job.id == allocation.job), None)
        assert index is not None, f"{allocation} names a job that is not in the view"
        progress = jobs[index]
        if allocation.task < progress.allocated:
            waiting = next(
                (p for p in jobs if p.unallocated and not _deferred(jobs, p, bound)), None
            )
            if waiting is not None:
                raise AssertionError(
                    f"t={view.now}: processor {allocation.processor} gets a replica of job "
                    f"{allocation.job} task {allocation.task} while job {waiting.job.id}'s task "
                    f"{waiting.allocated} could go out"
                )
        jobs[index] = progress.allocate(allocation.task)


def check_processors_served_in_idle_order(record: RunRecord) -> None:
    """Idle processors are served in the order they became idle (the task farm's tie rule).

    [`TaskFarm`][schedlib.deferment.farm.TaskFarm] hands the scheduler its idle
    processors in the order they became idle, and
    [`select_tasks`][schedlib.deferment.selection.select_tasks] serves them in
    that order (the pull model of desktop grids). Replayed on the log: every
    processor is idle at the start, by increasing id; a completing instance
    frees its processor, then the instances it cancels free theirs, by
    increasing id, at the same instant; every `START` must take the processor
    idle the longest.

    Parameters
    ----------
    record
        A run of [`run_grid`][schedlib.deferment.farm.run_grid] (`capacity` is the
        number of processors).

    Raises
    ------
    AssertionError
        Naming the start that took another processor, or cancellations out of
        order.

    Examples
    --------
    >>> from schedlib.deferment.selection import fifo
    >>> from schedlib.deferment.desktopgrid import Processor, SpeedHistory, TaskJob
    >>> from schedlib.deferment.farm import run_grid
    >>> grid = [Processor(1, SpeedHistory.constant(1))] * 3
    >>> check_processors_served_in_idle_order(run_grid([TaskJob(1, 0, (2, 1))], grid, fifo()))
    """
    queue: deque[int] = deque(range(record.capacity))
    completed: tuple[Time, JobId, int] | None = None
    last_cancelled = -1
    for e in record.events:
        if e.task is None or not e.place:
            continue
        (processor,) = e.place
        if e.kind is EventKind.START:
            assert queue and queue[0] == processor, (
                f"t={e.time}: job {e.job} task {e.task} starts on processor {processor}, "
                f"but processor {queue[0] if queue else None} has been idle longer "
                f"(idle, longest first: {list(queue)})"
            )
            queue.popleft()
        elif e.kind is EventKind.COMPLETE:
            queue.append(processor)
            completed, last_cancelled = (e.time, e.job, e.task), -1
        elif e.kind is EventKind.CANCEL and e.detail != "horizon":
            assert completed == (e.time, e.job, e.task) and processor > last_cancelled, (
                f"t={e.time}: job {e.job} task {e.task} cancelled on processor {processor} "
                "out of order (the completing instance's processor first, then the "
                "cancelled ones by increasing id)"
            )
            queue.append(processor)
            last_cancelled = processor
