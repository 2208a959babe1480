"""Task deferment: multi-job task selection on a desktop grid with no job overtaking.

Mine et al. (2007; Mine et al.) §4. Several users submit jobs of independent tasks
([`TaskJob`][schedlib.deferment.desktopgrid.TaskJob]) to one desktop grid whose
processors' speeds vary unpredictably. A job $J$ *overtakes* a job $J'$ when
$J'$ was submitted earlier, $J'$ is strictly smaller, and $J$ finishes first
(§1). FIFO and round-robin task selection both let jobs overtake (§3); *task
deferment* forbids it without any prediction of the speeds: when task $T$ of
job $J$ is selected, it is deferred while

- **C1**: $J$ has at most $B$ unallocated tasks ($T$ included), and
- **C2**: some job $J'$ strictly smaller than $J$, submitted before $J$ and
  unfinished when $J$ was submitted, is still unfinished,

with the *task deferment bound* $B \\ge 1$. See the algorithm page of the
documentation for the proof that no job then overtakes.

A scheduler here is a pure function `GridView -> Selection`
([`Scheduler`][schedlib.deferment.selection.Scheduler]). The
[`GridView`][schedlib.deferment.selection.GridView] snapshot holds the unfinished jobs,
which tasks are allocated and running, and which processors are idle, and
nothing about processor speeds: look-ahead into the speed histories is
impossible by construction. [`schedlib.deferment.farm`][schedlib.deferment.farm] runs a
scheduler on a grid.

Examples
--------
Job 1 (size 3) was submitted before job 2 (size 8); job 2 has a single
unallocated task left, so with $B = 1$ that task is deferred while job 1 is
unfinished, and the idle processor gets a replica of job 1's task instead:

>>> from schedlib.deferment.desktopgrid import TaskJob
>>> small = JobProgress(TaskJob(1, 0, (3,)), allocated=1, running=(0,), cursor=0)
>>> big = JobProgress(TaskJob(2, 5, (4, 4)), allocated=1, running=(0,), cursor=0)
>>> view = GridView(now=6, jobs=(small, big), idle=(7,))
>>> fifo()(view).allocations      # standard FIFO: job 2's last task goes out
(Allocation(processor=7, job=2, task=1, replica=False),)
>>> choice = fifo(bound=1)(view)  # with deferment
>>> choice.allocations, choice.deferred
((Allocation(processor=7, job=1, task=0, replica=True),), (2,))
"""

from __future__ import annotations

import bisect
import enum
from collections.abc import Callable, Sequence
from typing import NamedTuple

import attrs

from schedlib.deferment.desktopgrid import TaskJob
from schedlib.errors import InvalidValueError
from schedlib.model import JobId, Time

__all__ = [
    "Allocation",
    "Deferment",
    "DefermentTest",
    "GridView",
    "JobKey",
    "JobProgress",
    "Order",
    "ReplicaOrder",
    "Scheduler",
    "Selection",
    "TaskSelection",
    "blocking_job",
    "few_unallocated",
    "fifo",
    "must_defer",
    "round_robin",
    "select_tasks",
    "validate_bound",
]

JobKey = tuple[Time, JobId]
"""A job's place in submission order: `(submit, id)`."""


class JobProgress(NamedTuple):
    """What a scheduler knows of one submitted, unfinished job (an immutable record).

    Tasks are allocated (get their first instance, the *original*) in index
    order, so the unallocated tasks are always `allocated, ..., n_tasks - 1`.

    Attributes
    ----------
    job
        The job.
    allocated
        Number of tasks allocated so far (tasks `0 .. allocated - 1`).
    running
        Allocated tasks not completed yet, ascending. Each has at least one
        instance (the original or replicas) on some processor.
    cursor
        The task selected last for this job (`-1` before the first): the
        round-robin position among its tasks.

    Examples
    --------
    >>> p = JobProgress(TaskJob(4, 0, (1, 1, 1)))
    >>> p = p.allocate(0).allocate(1)
    >>> p.unallocated, p.running, p.finished
    (1, (0, 1), False)
    >>> p.complete(0).running
    (1,)
    """

    job: TaskJob
    allocated: int = 0
    running: tuple[int, ...] = ()
    cursor: int = -1

    @property
    def key(self) -> JobKey:
        """Submission order key `(submit, id)`."""
        return (self.job.submit, self.job.id)

    @property
    def unallocated(self) -> int:
        """Number of tasks not allocated yet."""
        return len(self.job.tasks) - self.allocated

    @property
    def finished(self) -> bool:
        """Whether every task is allocated and none is running (all completed)."""
        return self.allocated == len(self.job.tasks) and not self.running

    def allocate(self, task: int) -> JobProgress:
        """The progress after starting an instance of `task`.

        `task` must be the next unallocated task (an original) or a running
        one (a replica).

        Raises
        ------
        InvalidValueError
            For any other task.
        """
        if task == self.allocated and task < len(self.job.tasks):
            return JobProgress(self.job, task + 1, (*self.running, task), task)
        index = bisect.bisect_left(self.running, task)
        if index < len(self.running) and self.running[index] == task:
            return JobProgress(self.job, self.allocated, self.running, task)
        raise InvalidValueError(
            "Allocation.task",
            task,
            f"job {self.job.id} can only get its next unallocated task "
            f"({self.allocated}) or a replica of a running one {list(self.running)}",
        )

    def complete(self, task: int) -> JobProgress:
        """The progress after `task` completed (on any of its instances).

        Raises
        ------
        InvalidValueError
            If `task` is not running.
        """
        running = self.running
        index = bisect.bisect_left(running, task)
        if index == len(running) or running[index] != task:
            raise InvalidValueError(
                "task", task, f"job {self.job.id} is not running it ({list(running)})"
            )
        return JobProgress(
            self.job, self.allocated, running[:index] + running[index + 1 :], self.cursor
        )

    def next_replica(self) -> int | None:
        """The running task after `cursor` in round-robin order, or `None`.

        Examples
        --------
        >>> JobProgress(TaskJob(1, 0, (1, 1, 1)), 3, (0, 2), cursor=0).next_replica()
        2
        >>> JobProgress(TaskJob(1, 0, (1, 1, 1)), 3, (0, 2), cursor=2).next_replica()
        0
        """
        running = self.running
        if not running:
            return None
        index = bisect.bisect_right(running, self.cursor)
        return running[index] if index < len(running) else running[0]


class GridView(NamedTuple):
    """The snapshot a scheduler decides from: no speeds, no future (an immutable record).

    Attributes
    ----------
    now
        The current time.
    jobs
        Every submitted, unfinished job, in submission order (`(submit, id)`).
    idle
        Idle processors, in the order they should be served (the model
        passes them in the order they became idle).
    last_job
        Round-robin memory: the key of the job served last, or `None`.
    """

    now: Time
    jobs: tuple[JobProgress, ...]
    idle: tuple[int, ...]
    last_job: JobKey | None = None


class Allocation(NamedTuple):
    """Start an instance of task `task` of job `job` on processor `processor` (a record).

    Attributes
    ----------
    processor
        An idle processor.
    job
        A job of the view.
    task
        The job's next unallocated task (an original) or a running task (a
        replica).
    replica
        Whether this instance is a replica.
    """

    processor: int
    job: JobId
    task: int
    replica: bool = False


class Selection(NamedTuple):
    """A scheduler's decision for one scheduling pass (an immutable record).

    Attributes
    ----------
    allocations
        Instances to start now, at most one per idle processor.
    last_job
        The round-robin memory to keep for the next pass.
    deferred
        Jobs whose next task was deferred in this pass (for explanation).
    """

    allocations: tuple[Allocation, ...] = ()
    last_job: JobKey | None = None
    deferred: tuple[JobId, ...] = ()


Scheduler = Callable[[GridView], Selection]
"""A scheduler: a pure function of the snapshot (it never sees speeds)."""

DefermentTest = Callable[[Sequence[JobProgress], JobProgress], bool]
"""`test(jobs, job) -> bool`: whether `job`'s next task must be deferred now.

`jobs` are the submitted unfinished jobs in submission order, `job` one of them."""


def validate_bound(bound: int) -> int:
    """Check a task deferment bound $B$ and return it.

    Raises
    ------
    InvalidValueError
        Unless `bound` is an integer `>= 1`. $B = 0$ is refused: condition
        C1 then never holds for a selected task, deferment never happens, and
        the no-overtaking guarantee is lost.

    Examples
    --------
    >>> validate_bound(2)
    2
    >>> validate_bound(0)
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: B = 0: must be an integer >= 1 (0 never defers: no guarantee)
    """
    if not isinstance(bound, int) or isinstance(bound, bool) or bound < 1:
        raise InvalidValueError(
            "B",
            bound,
            "must be an integer >= 1 (0 never defers: no guarantee)",
        )
    return bound


def few_unallocated(job: JobProgress, bound: int) -> bool:
    """Condition C1: `job` has at most `bound` unallocated tasks.

    The selected task counts: it is still unallocated when it is tested.

    Notes
    -----
    $$C_1(J) \\iff u(J) \\le B$$

    | paper | parameter |
    |---|---|
    | $J$ | `job` |
    | $B$ (task deferment bound) | `bound` |

    Complexity: $O(1)$.

    References
    ----------
    Mine et al. (2007) §4, condition C1.

    Examples
    --------
    >>> few_unallocated(JobProgress(TaskJob(1, 0, (1, 1)), allocated=1), 1)
    True
    """
    return job.unallocated <= bound


def blocking_job(jobs: Sequence[JobProgress], job: JobProgress) -> JobProgress | None:
    """Condition C2: the first unfinished job strictly smaller than `job` submitted before it.

    Parameters
    ----------
    jobs
        The submitted, unfinished jobs in submission order (a
        [`GridView`][schedlib.deferment.selection.GridView]'s `jobs`).
    job
        The job whose task is selected.

    Returns
    -------
    JobProgress or None
        A job $J'$ making C2 true, or `None` when C2 is false.

    Notes
    -----
    The paper's C2 asks for a $J'$ smaller than $J$, *running when $J$ was
    submitted*, and still running. A job unfinished now and submitted
    strictly before $J$ was necessarily unfinished when $J$ was submitted,
    so C2 needs no history:

    $$C_2(J) \\iff \\exists J' \\text{ unfinished}:\\ s(J') < s(J) \\wedge |J'| < |J|$$

    Jobs submitted at the same instant as $J$ do not count: neither can
    overtake the other (overtaking needs a strictly earlier submission).

    | paper | parameter |
    |---|---|
    | $J$ | `job` |
    | $J'$ | the returned job |

    Complexity: $O(n)$ for $n$ unfinished jobs.

    References
    ----------
    Mine et al. (2007) §4, condition C2.

    Examples
    --------
    >>> a = JobProgress(TaskJob(1, 0, (5,)))
    >>> b = JobProgress(TaskJob(2, 3, (9,)))
    >>> blocking_job((a, b), b).job.id
    1
    >>> blocking_job((a, b), a) is None
    True
    """
    submit, size = job.job.submit, job.job.size
    for other in jobs:
        if not other.job.submit < submit:
            break
        if other.job.size < size:
            return other
    return None


def must_defer(jobs: Sequence[JobProgress], job: JobProgress, bound: int) -> bool:
    """The deferment test: C1 and C2 both hold for the next task of `job`.

    Parameters
    ----------
    jobs
        The submitted, unfinished jobs in submission order.
    job
        The job whose next unallocated task is selected.
    bound
        The task deferment bound $B \\ge 1$.

    Returns
    -------
    bool
        Whether the task must be deferred (stay unallocated) for now.

    Raises
    ------
    InvalidValueError
        If `bound` is not an integer `>= 1`.

    Notes
    -----
    $$\\text{defer}(T) \\iff C_1(J) \\wedge C_2(J)$$

    (see [`few_unallocated`][schedlib.deferment.selection.few_unallocated] and
    [`blocking_job`][schedlib.deferment.selection.blocking_job]). Complexity: $O(n)$.

    References
    ----------
    Mine et al. (2007) §4.

    Examples
    --------
    >>> a = JobProgress(TaskJob(1, 0, (5,)), allocated=1, running=(0,))
    >>> b = JobProgress(TaskJob(2, 3, (9, 9)), allocated=1, running=(0,))
    >>> must_defer((a, b), b, bound=1), must_defer((b,), b, bound=1)
    (True, False)
    """
    return _defer(jobs, job, validate_bound(bound))


def _defer(jobs: Sequence[JobProgress], job: JobProgress, bound: int) -> bool:
    return few_unallocated(job, bound) and blocking_job(jobs, job) is not None


@attrs.frozen(slots=True)
class Deferment:
    """The deferment test with bound $B$, as a `DefermentTest`.

    Attributes
    ----------
    bound
        The task deferment bound, an integer `>= 1`.

    Raises
    ------
    InvalidValueError
        For `bound < 1`.

    Examples
    --------
    >>> Deferment(0)
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: B = 0: must be an integer >= 1 (0 never defers: no guarantee)
    """

    bound: int = attrs.field()

    @bound.validator
    def _check(self, attribute: attrs.Attribute[int], value: int) -> None:
        validate_bound(value)

    def __call__(self, jobs: Sequence[JobProgress], job: JobProgress) -> bool:
        return _defer(jobs, job, self.bound)


class Order(enum.Enum):
    """How jobs take turns (Mine et al. 2007 §4)."""

    FIFO = "fifo"
    """Jobs in submission order: a job's tasks go before any later job's."""
    ROUND_ROBIN = "round_robin"
    """Jobs in turn: each allocation goes to the job after the one served last."""


class ReplicaOrder(enum.Enum):
    """When a pass hands out replicas, relative to originals (an open reading of §4-§5.2).

    The paper says that a task is replicated when "the task is again
    selected", and that FIFO "selects jobs in ascending order based on
    submission time": it does not say whether a job whose tasks are all
    allocated is selected (for a replica) before a later job's originals.
    """

    ORIGINALS_FIRST = "originals-first"
    """A pass gives idle processors the originals of every job (in the policy
    order) before any replica: a later job's tasks are not held back by an
    earlier job's stragglers (§5.2: under FIFO a job waits "until the tasks of
    all earlier submitted jobs have been assigned")."""
    JOB_ORDER = "job-order"
    """The policy order picks the job first; a job whose tasks are all
    allocated takes a replica in its turn. Under FIFO the head job is served,
    replicas included, until it completes, so jobs run one at a time."""


def select_tasks(
    view: GridView,
    *,
    order: Order,
    deferment: DefermentTest | None = None,
    replication: bool = True,
    replica_order: ReplicaOrder = ReplicaOrder.ORIGINALS_FIRST,
) -> Selection:
    """Choose what every idle processor runs: FIFO or round-robin, deferment, replication.

    For each idle processor in turn (in the view's order), with
    `replica_order` [`ORIGINALS_FIRST`][schedlib.deferment.selection.ReplicaOrder] (the
    default):

    1. **Originals.** Walk the jobs in the policy order — FIFO: submission
       order; round robin: starting after the job served last, cyclically —
       and take the first job with an unallocated task that the deferment test
       does not defer; allocate its next task (tasks go in index order).
    2. **Replicas** (when `replication` is on and no original can go out):
       walk the jobs in the same order and take the first job with no
       unallocated task and a running task; allocate a replica of its next
       running task in round-robin order after the one selected last.
    3. Otherwise leave the processor (and every later one) idle.

    With [`JOB_ORDER`][schedlib.deferment.selection.ReplicaOrder] (and
    replication on), steps 1 and 2 are one walk: the first job in the policy
    order that can take a task gets it — an original if it has an unallocated
    task the deferment test does not defer, else a replica of a running task
    when all its tasks are allocated.

    Parameters
    ----------
    view
        The snapshot.
    order
        [`Order.FIFO`][schedlib.deferment.selection.Order] or `Order.ROUND_ROBIN`.
    deferment
        The deferment test (e.g. [`Deferment(B)`][schedlib.deferment.selection.Deferment]),
        or `None` for the standard algorithm.
    replication
        Whether to replicate running tasks (Mine et al. 2007 §4, task replication).
    replica_order
        Whether replicas wait for every job's originals (the default) or are
        served in their job's turn (see
        [`ReplicaOrder`][schedlib.deferment.selection.ReplicaOrder]); without
        replication both are the same.

    Returns
    -------
    Selection
        The allocations, the round-robin memory, the deferred jobs.

    Notes
    -----
    **Interpretations** (the paper is silent; ours):

    - a task's "first instance runs on a slow processor" is not observable
      without speed information, which the scheduler does not have; we read
      it operationally: a task still running when it is selected again (all
      tasks of its job allocated and a processor free) is on a slow
      processor, and gets a replica — as in Fujimoto and Hagihara's
      round-robin algorithm (Mine et al. 2007 ref. [14]);
    - by default, originals of every job go before any replica, so a later
      job's tasks are not held back by an earlier job's stragglers (the
      paper's §5.2 reading of FIFO waiting times: a job waits until the tasks
      of all earlier jobs *have been assigned*); `replica_order` offers the
      other reading;
    - a job with deferred tasks gets no replicas (it still has unallocated
      tasks); replicas of the jobs it waits for speed up its release;
    - the deferment test is evaluated at most once per job per pass: a job
      deferred in a pass stays deferred for the rest of it (true of C1 and
      C2, which cannot change within a pass);
    - ties: jobs by `(submit, id)`, tasks by index, processors in view order.

    Complexity: $O(m \\cdot n \\cdot c)$ per pass for $m$ idle processors,
    $n$ unfinished jobs and a deferment test of cost $c$ ($O(n)$ for the
    paper's), plus $O(\\log k)$ per replica for $k$ running tasks.

    References
    ----------
    Mine et al. (2007) §3 (FIFO, round robin) and §4 (task deferment, task replication).

    Examples
    --------
    Round robin alternates between jobs 1 and 2:

    >>> a = JobProgress(TaskJob(1, 0, (1, 1)))
    >>> b = JobProgress(TaskJob(2, 0, (1, 1)))
    >>> choice = select_tasks(GridView(0, (a, b), (0, 1, 2)), order=Order.ROUND_ROBIN)
    >>> [(x.processor, x.job, x.task) for x in choice.allocations]
    [(0, 1, 0), (1, 2, 0), (2, 1, 1)]

    Job 1's only task runs; job 2 waits. FIFO gives the idle processor job 2's
    task by default, a replica of job 1's task in job order:

    >>> running = JobProgress(TaskJob(1, 0, (4,)), allocated=1, running=(0,), cursor=0)
    >>> view = GridView(0, (running, JobProgress(TaskJob(2, 0, (1,)))), (1,))
    >>> select_tasks(view, order=Order.FIFO).allocations
    (Allocation(processor=1, job=2, task=0, replica=False),)
    >>> select_tasks(view, order=Order.FIFO, replica_order=ReplicaOrder.JOB_ORDER).allocations
    (Allocation(processor=1, job=1, task=0, replica=True),)
    """
    jobs = list(view.jobs)
    idle = view.idle
    count = len(jobs)
    if not count or not idle:
        return Selection((), view.last_job, ())
    round_robin = order is Order.ROUND_ROBIN
    in_turn = replication and replica_order is ReplicaOrder.JOB_ORDER
    keys = [(p.job.submit, p.job.id) for p in jobs] if round_robin else []
    last = view.last_job
    blocked = [False] * count
    deferred: list[JobId] = []
    allocations: list[Allocation] = []
    last_processor = len(idle)
    for served, processor in enumerate(idle, 1):
        first = bisect.bisect_right(keys, last) % count if round_robin and last is not None else 0
        chosen = -1
        task: int | None = None
        for step in range(count):
            index = (first + step) % count
            progress = jobs[index]
            if blocked[index]:
                continue
            if progress.allocated == len(progress.job.tasks):
                if in_turn and progress.running:
                    chosen, task = index, progress.next_replica()
                    break
                continue
            if deferment is not None and deferment(jobs, progress):
                blocked[index] = True
                deferred.append(progress.job.id)
                continue
            chosen, task = index, progress.allocated
            break
        if chosen < 0 and replication and not in_turn:
            for step in range(count):
                index = (first + step) % count
                progress = jobs[index]
                if progress.running and progress.allocated == len(progress.job.tasks):
                    chosen, task = index, progress.next_replica()
                    break
        if chosen < 0 or task is None:
            break
        progress = jobs[chosen]
        replica = task < progress.allocated
        if served < last_processor:  # the working copy matters only for later processors
            jobs[chosen] = progress.allocate(task)
        allocations.append(Allocation(processor, progress.job.id, task, replica))
        if round_robin:
            last = keys[chosen]
    return Selection(tuple(allocations), last, tuple(deferred))


def _name_deferment(deferment: DefermentTest | None) -> str:
    if deferment is None:
        return ""
    if isinstance(deferment, Deferment):
        return f"+deferment(B={deferment.bound})"
    return f"+{getattr(deferment, '__name__', type(deferment).__name__)}"


@attrs.frozen(slots=True)
class TaskSelection:
    """A ready-made `Scheduler`: `select_tasks` with fixed options.

    Attributes
    ----------
    order
        FIFO or round robin.
    deferment
        The deferment test, or `None` (standard algorithm).
    replication
        Whether to replicate running tasks.
    replica_order
        When replicas are served (see
        [`ReplicaOrder`][schedlib.deferment.selection.ReplicaOrder]).

    Examples
    --------
    >>> round_robin(bound=4).name
    'round_robin+deferment(B=4)'
    >>> fifo(replica_order=ReplicaOrder.JOB_ORDER).name
    'fifo[job-order]'
    """

    order: Order
    deferment: DefermentTest | None = None
    replication: bool = True
    replica_order: ReplicaOrder = ReplicaOrder.ORIGINALS_FIRST

    @property
    def name(self) -> str:
        """A label such as `fifo`, `fifo+deferment(B=2)`, `fifo[job-order]` or
        `round_robin-replication`."""
        suffix = "" if self.replication else "-replication"
        if self.replica_order is not ReplicaOrder.ORIGINALS_FIRST:
            suffix += f"[{self.replica_order.value}]"
        return f"{self.order.value}{_name_deferment(self.deferment)}{suffix}"

    def __call__(self, view: GridView) -> Selection:
        return select_tasks(
            view,
            order=self.order,
            deferment=self.deferment,
            replication=self.replication,
            replica_order=self.replica_order,
        )


def fifo(
    bound: int | None = None,
    *,
    replication: bool = True,
    replica_order: ReplicaOrder = ReplicaOrder.ORIGINALS_FIRST,
) -> TaskSelection:
    """FIFO-based task selection, with task deferment when `bound` is given.

    Parameters
    ----------
    bound
        The task deferment bound $B \\ge 1$, or `None` for standard FIFO.
    replication
        Whether to replicate running tasks.
    replica_order
        When replicas are served: after every job's originals (the default),
        or in their job's turn, so that the head job is served until it
        completes (see [`ReplicaOrder`][schedlib.deferment.selection.ReplicaOrder]).

    Returns
    -------
    TaskSelection
        The scheduler.

    Raises
    ------
    InvalidValueError
        If `bound` is given and is not an integer `>= 1`.

    References
    ----------
    Mine et al. (2007) §3 (FIFO) and §4 (FIFO based algorithm).

    Examples
    --------
    >>> fifo(2).name, fifo().name
    ('fifo+deferment(B=2)', 'fifo')
    """
    deferment = None if bound is None else Deferment(bound)
    return TaskSelection(Order.FIFO, deferment, replication, replica_order)


def round_robin(
    bound: int | None = None,
    *,
    replication: bool = True,
    replica_order: ReplicaOrder = ReplicaOrder.ORIGINALS_FIRST,
) -> TaskSelection:
    """Round-robin-based task selection, with task deferment when `bound` is given.

    Parameters
    ----------
    bound
        The task deferment bound $B \\ge 1$, or `None` for standard round robin.
    replication
        Whether to replicate running tasks.
    replica_order
        When replicas are served: after every job's originals (the default),
        or in their job's round-robin turn (see
        [`ReplicaOrder`][schedlib.deferment.selection.ReplicaOrder]).

    Returns
    -------
    TaskSelection
        The scheduler.

    Raises
    ------
    InvalidValueError
        If `bound` is given and is not an integer `>= 1`.

    References
    ----------
    Mine et al. (2007) §3 (round robin) and §4 (round-robin based algorithm).

    Examples
    --------
    >>> round_robin(0)
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: B = 0: must be an integer >= 1 (0 never defers: no guarantee)
    """
    deferment = None if bound is None else Deferment(bound)
    return TaskSelection(Order.ROUND_ROBIN, deferment, replication, replica_order)
