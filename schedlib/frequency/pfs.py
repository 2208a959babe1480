r"""The preemption-frequency scheduler (PFS): one step of round robin on a node.

The CSS 600 term report, "Preemption Frequency Scheduler, PFS": "The PFS
schedules jobs on a round robin order to be executed within a specified time
window. A job is preempted if execution is not completed with the time
quantum and this preemption frequency PF, is used to determine local
execution versus sending the job to the remote execution pool."

Our reading of its pseudo-code (quoted beside it on the algorithm page, which
says why each choice was made):

1. **Order.** A node keeps its waiting jobs in arrival order, each marked
   *unpreempted* (not preempted since it arrived at the node) or *preempted*.
   The next job is the first unpreempted one; if there is none, the first
   preempted one ([`pfs_order`][schedlib.frequency.pfs.pfs_order]).
2. **Slice.** The chosen job runs for one quantum $Q$ of wall time, unless
   its remaining time on the node is at most $g Q$ (the *grace* factor, 1.1
   in the report): then it runs to the end of its burst
   ([`plan_slice`][schedlib.frequency.pfs.plan_slice]).
3. **End of the slice.** A completed burst resets the job's preemption
   count: $PF \leftarrow 0$. A preempted job gets $PF \leftarrow PF + 1$ and
   goes to the back of the node's preempted queue, or, when $PF$ reaches
   `MAX_PREEMPTION` on a node that sends jobs away (and the job is not
   banned from migrating), to the pool's *remote queue*.

Every function here is pure: it reads a snapshot and returns a decision; the
pool model ([`schedlib.frequency.simulation`][schedlib.frequency.simulation])
applies it.

References
----------
The CSS 600 term report, "Algorithms: Preemption Frequency Scheduler, PFS"
(Algorithm PFS(L, n)).

Examples
--------
A node of rate 1, quantum 2, grace 1.5, `MAX_PREEMPTION` 2; job 1 has been
preempted once, job 2 just arrived with 3 s of work left:

>>> params = PfsParameters(quantum=2, grace=1.5, max_preemption=2)
>>> waiting = (QueuedJob(1, 10.0, pf=1, preempted=True), QueuedJob(2, 3.0))
>>> pfs_step(waiting, 1.0, params, may_send=True)
Slice(job=2, duration=3.0, end=<SliceEnd.COMPLETE: 'complete'>, pf=0)
>>> pfs_step(waiting[:1], 1.0, params, may_send=True)
Slice(job=1, duration=2, end=<SliceEnd.REMOTE: 'remote'>, pf=2)
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, NamedTuple

import attrs

from schedlib.errors import InvalidValueError
from schedlib.frequency.pool import positive_finite, whole_at_least
from schedlib.model import JobId, Time

__all__ = [
    "DEFAULT_GRACE",
    "PfsParameters",
    "QueuedJob",
    "Slice",
    "SliceEnd",
    "pfs_order",
    "pfs_step",
    "plan_slice",
    "work_left",
]

DEFAULT_GRACE = 1.1
"""The report's grace factor: "LocalQuantum * 1.1 >= job.RemainingExecutionTime"."""


def _grace(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not (number and 1 <= value < math.inf):
        raise InvalidValueError(
            f"{type(instance).__name__}.{attribute.name}",
            value,
            "must be a finite number >= 1 (a grace factor below 1 would preempt jobs that "
            "finish within their quantum)",
        )


@attrs.frozen(slots=True)
class PfsParameters:
    """The parameters of PFS on every node of the pool.

    Attributes
    ----------
    quantum
        $Q$, the report's `MAX_QUANTUM`: wall seconds a job runs before it is
        preempted; finite and `> 0`.
    grace
        $g$: a job whose remaining time is at most $g Q$ runs to completion
        instead of being preempted; finite and `>= 1` (the report: 1.1; $g = 1$
        turns the grace off).
    max_preemption
        The report's `MAX_PREEMPTION`: a job preempted this many times on a
        node that sends jobs away goes to the remote queue; an integer `>= 1`.

    Examples
    --------
    >>> PfsParameters(quantum=0, max_preemption=3)
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: PfsParameters.quantum = 0: must be a finite number > 0
    >>> PfsParameters(quantum=1, grace=0.9, max_preemption=3)
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: PfsParameters.grace = 0.9: must be a finite number >= 1 ...
    """

    quantum: Time = attrs.field(validator=positive_finite)
    grace: float = attrs.field(default=DEFAULT_GRACE, validator=_grace, kw_only=True)
    max_preemption: int = attrs.field(default=3, validator=whole_at_least(1), kw_only=True)

    @property
    def longest_slice(self) -> Time:
        """$g Q$: the longest a slice of a preemptive policy can last."""
        return self.grace * self.quantum


class QueuedJob(NamedTuple):
    """A waiting job as its node's scheduler sees it.

    Attributes
    ----------
    job
        The job's id.
    remaining
        CPU work left in its current burst (seconds on a node of rate 1):
        exact, a fraction where the float would round (the simulation
        subtracts each slice's work exactly, [`work_left`][schedlib.frequency.pfs.work_left]).
    pf
        Its preemption count $PF$ on this node.
    mf
        Its migration count $MF$.
    banned
        Whether it is banned from migrating (it went over `MAX_MF`).
    preempted
        Whether it sits in the preempted queue (it was preempted since it
        arrived at the node) rather than the unpreempted one.
    """

    job: JobId
    remaining: float | Fraction
    pf: int = 0
    mf: int = 0
    banned: bool = False
    preempted: bool = False


class SliceEnd(enum.Enum):
    """How a slice ends."""

    __hash__ = object.__hash__

    COMPLETE = "complete"
    """The burst is done; $PF$ is reset to 0."""
    PREEMPT = "preempt"
    """Preempted after one quantum: back of the node's preempted queue."""
    REMOTE = "remote"
    """Preempted, and $PF$ reached `MAX_PREEMPTION`: to the pool's remote queue."""


class Slice(NamedTuple):
    """The decision of one PFS step: which job runs, how long, and what follows.

    Attributes
    ----------
    job
        The job that runs.
    duration
        Wall seconds the slice lasts.
    end
        How it ends ([`SliceEnd`][schedlib.frequency.pfs.SliceEnd]).
    pf
        The job's preemption count after the slice.
    """

    job: JobId
    duration: Time
    end: SliceEnd
    pf: int


def pfs_order(waiting: Sequence[QueuedJob]) -> int:
    """Index of the job PFS runs next: the first unpreempted job, else the first preempted one.

    Parameters
    ----------
    waiting
        The node's waiting jobs, in the order they joined its queues.

    Returns
    -------
    int
        An index into `waiting`.

    Raises
    ------
    InvalidValueError
        If `waiting` is empty.

    Notes
    -----
    The unpreempted and preempted queues of the report are both FIFO, so one
    arrival-ordered sequence holds them: the unpreempted queue is its
    unpreempted entries, in order. Complexity: $O(n)$ for $n$ waiting jobs.

    References
    ----------
    The CSS 600 term report, Algorithm PFS: "{check for jobs waiting in the
    unpreempted_queue}" before "{check for jobs waiting in the preempted_queue}".

    Examples
    --------
    >>> pfs_order([QueuedJob(1, 5.0, preempted=True), QueuedJob(2, 5.0)])
    1
    >>> pfs_order([QueuedJob(1, 5.0, preempted=True), QueuedJob(3, 1.0, preempted=True)])
    0
    """
    if not waiting:
        raise InvalidValueError("waiting", tuple(waiting), "must not be empty")
    for index, queued in enumerate(waiting):
        if not queued.preempted:
            return index
    return 0


def plan_slice(job: QueuedJob, rate: float, parameters: PfsParameters, *, may_send: bool) -> Slice:
    """The slice PFS gives `job` on a node of rate `rate`, and how it ends.

    Parameters
    ----------
    job
        The job chosen to run.
    rate
        $r$: the node's work per second ($s \\cdot a$), `> 0`.
    parameters
        $Q$, $g$ and `MAX_PREEMPTION`.
    may_send
        Whether the node sends jobs to the remote queue (the head node
        does); a banned job is never sent.

    Returns
    -------
    Slice
        With the remaining time $t = w / r$ of the job's burst:

        - $t \\le g Q$: runs $t$ seconds, completes the burst, $PF = 0$;
        - otherwise: runs $Q$ seconds, $PF + 1$, and ends `REMOTE` if
          $PF + 1 \\ge$ `MAX_PREEMPTION`, `may_send` and the job is not
          banned, else `PREEMPT`.

    Notes
    -----
    $$ \\text{duration} = \\begin{cases} w / r & \\text{if } w / r \\le g Q \\\\
       Q & \\text{otherwise} \\end{cases} $$

    | report | here |
    |---|---|
    | `LocalQuantum` (`MAX_QUANTUM`) | `parameters.quantum` ($Q$) |
    | `1.1` in `LocalQuantum * 1.1` | `parameters.grace` ($g$) |
    | `LocalPF` (`MAX_PREEMPTION`) | `parameters.max_preemption` |
    | `job.RemainingExecutionTime` | `job.remaining / rate` |
    | `job.PF` | `job.pf` |

    With $g \\ge 1$ a preempted slice always does $Q r$ work, the fact the
    termination bound rests on.

    The test $w / r \\le g Q$ is exact: $w / r$ and $g Q$ are each rounded in
    floats, and where they fall within $10^{-12}$ of each other (relative) they
    are compared as fractions, $w \\le g Q r$: rounded, a burst that needs an
    ulp more than $g Q$ could be granted the grace.
    Complexity: $O(1)$.

    References
    ----------
    The CSS 600 term report, Algorithm PFS (the tests on
    `job.RemainingExecutionTime` and `job.PF >= LocalPF`).

    Examples
    --------
    >>> params = PfsParameters(quantum=1, grace=1.1, max_preemption=3)
    >>> plan_slice(QueuedJob(4, 1.05), 1.0, params, may_send=True).end.value
    'complete'
    >>> plan_slice(QueuedJob(4, 1.2, pf=2), 1.0, params, may_send=True)
    Slice(job=4, duration=1, end=<SliceEnd.REMOTE: 'remote'>, pf=3)
    >>> plan_slice(QueuedJob(4, 1.2, pf=2), 1.0, params, may_send=False).end.value
    'preempt'
    """
    needed = job.remaining / rate
    if _within(job.remaining, rate, parameters.grace, parameters.quantum):
        return Slice(job.job, float(needed), SliceEnd.COMPLETE, 0)
    pf = job.pf + 1
    send = may_send and not job.banned and pf >= parameters.max_preemption
    return Slice(job.job, parameters.quantum, SliceEnd.REMOTE if send else SliceEnd.PREEMPT, pf)


def _within(work: float | Fraction, rate: float, grace: float, quantum: float) -> bool:
    """$w / r \\le g Q$, exactly: floats decide when clearly apart, fractions at a near tie."""
    needed, bound = float(work / rate), grace * quantum
    if abs(needed - bound) > 1e-12 * bound:
        return needed < bound
    return Fraction(work) <= Fraction(grace) * Fraction(quantum) * Fraction(rate)


def work_left(work: float | Fraction, duration: float, rate: float) -> float | Fraction:
    """The work left after a slice of `duration` s at `rate`, exact: $\\max(0, w - d r)$.

    A float where it is exact, else a fraction: subtracting slices in floats
    drifts from the burst's work by an ulp each time, which the grace test
    ($w / r \\le g Q$) can see.

    Examples
    --------
    >>> work_left(2.17, 0.7, 1.0)
    1.47
    >>> 1.0 - 0.3 - 0.3 == Fraction(1.0) - 2 * Fraction(0.3)
    False
    >>> work_left(work_left(1.0, 0.3, 1.0), 0.3, 1.0) == Fraction(1.0) - 2 * Fraction(0.3)
    True
    """
    left = Fraction(work) - Fraction(duration) * Fraction(rate)
    if left <= 0:
        return 0.0
    rounded = float(left)
    return rounded if rounded == left else left


def pfs_step(
    waiting: Sequence[QueuedJob], rate: float, parameters: PfsParameters, *, may_send: bool
) -> Slice:
    """One PFS step on an idle node: the job to run next and its slice.

    Parameters
    ----------
    waiting
        The node's waiting jobs in arrival order (not empty).
    rate
        The node's rate $r$.
    parameters
        $Q$, $g$, `MAX_PREEMPTION`.
    may_send
        Whether the node sends jobs to the remote queue.

    Returns
    -------
    Slice
        [`plan_slice`][schedlib.frequency.pfs.plan_slice] of the job
        [`pfs_order`][schedlib.frequency.pfs.pfs_order] picks.

    Notes
    -----
    Complexity: $O(n)$ for $n$ waiting jobs.

    Examples
    --------
    >>> params = PfsParameters(quantum=1, max_preemption=1)
    >>> pfs_step([QueuedJob(1, 9.0, pf=0, preempted=True), QueuedJob(2, 5.0)], 2.0, params,
    ...          may_send=False)
    Slice(job=2, duration=1, end=<SliceEnd.PREEMPT: 'preempt'>, pf=1)
    """
    return plan_slice(waiting[pfs_order(waiting)], rate, parameters, may_send=may_send)
