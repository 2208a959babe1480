r"""The grid's state between events, and how a job's progress changes on its node.

[`JobProgress`][schedlib.preemption.state.JobProgress] is one job on its
current node, running or waiting; [`NodeState`][schedlib.preemption.state.NodeState]
holds a node's jobs and [`GridState`][schedlib.preemption.state.GridState] the
whole grid. The functions below are the only ways a job's progress changes:
it starts or resumes ([`resumed`][schedlib.preemption.state.resumed]), is
stopped by a preemption and keeps its progress
([`stopped`][schedlib.preemption.state.stopped]), or moves to another node
([`moved`][schedlib.preemption.state.moved]); and what the priority of
Balasubramanian et al. (2013), §5.1, reads of it, $W$ and $T_{rem}$
([`contender`][schedlib.preemption.state.contender]).

Times are wall seconds on the job's node; work and estimates are canonical
seconds (on a node of speed 1). A job owes the resume overhead $c$ at the
start of every segment that follows a preemption (§5.2).

Examples
--------
A job of 100 canonical seconds runs 30 s on a node of speed 2, is stopped, and
owes an overhead of 5 s when it resumes:

>>> from schedlib.preemption.resources import GridJob
>>> p = waiting(GridJob(1, 0, (1,), 100, 100), now=0)
>>> p = resumed(p, now=0, speed=2.0)
>>> p.end
50.0
>>> p = stopped(p, now=30, speed=2.0, overhead=5)
>>> (p.work, p.estimate, p.overhead, p.end)
(40.0, 40.0, 5, inf)
>>> resumed(p, now=40, speed=2.0).end
65.0
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import partial

import attrs

from schedlib.model import Time
from schedlib.preemption.decision import Contender, progress_made, time_to_finish
from schedlib.preemption.priority import ExactPriority
from schedlib.preemption.resources import GridJob, Vector
from schedlib.preemption.topology import LoadKey

__all__ = [
    "GridState",
    "JobProgress",
    "NodeState",
    "contender",
    "exact_priority",
    "moved",
    "remaining_time",
    "resumed",
    "stopped",
    "waiting",
]

_INF = math.inf


@attrs.frozen(slots=True)
class JobProgress:
    """The state of a job on its current node (running or waiting).

    Attributes
    ----------
    job
        The job.
    arrival
        When it arrived at this node.
    wait
        Non-executing seconds on this node accumulated up to `since`
        ($W$ of the priority; reset when the job migrates).
    since
        Start of the current running segment or waiting spell.
    work
        Canonical actual work left at `since`.
    estimate
        Canonical estimated work left at `since` (may go below 0 when the
        estimate was too short; $T_{rem}$ counts it as 0).
    overhead
        Overhead to pay in the current (running) or next (waiting) segment.
    end
        Completion time while running, `inf` while waiting.
    """

    job: GridJob
    arrival: Time
    wait: Time
    since: Time
    work: Time
    estimate: Time
    overhead: Time
    end: Time


@attrs.frozen(slots=True)
class NodeState:
    """One node's jobs.

    Attributes
    ----------
    running
        Executing jobs, in start order.
    waiting
        Queued jobs, in arrival order.
    used
        What the running jobs hold (summed from scratch on every change).
    wake
        Earliest time a waiting job's priority may pass a running job's,
        `inf` if never.
    """

    running: tuple[JobProgress, ...] = ()
    waiting: tuple[JobProgress, ...] = ()
    used: Vector = ()
    wake: Time = _INF


@attrs.frozen(slots=True)
class GridState:
    """The whole grid between events.

    Attributes
    ----------
    nodes
        One [`NodeState`][schedlib.preemption.state.NodeState] per node.
    keys
        The matchmaker's load key of every node.
    touched
        Nodes with an arrival or completion at the current instant.
    due
        Nodes to visit at the next tick.
    wakes
        Nodes with a finite `wake`.
    tick
        Whether a tick falls on the current instant.
    next_tick
        Time of the pending tick event, if any.
    waiting
        Number of waiting jobs in the grid.
    arrived
        Number of arrivals handled.
    finished
        Number of jobs that reached a terminal state.
    """

    nodes: tuple[NodeState, ...]
    keys: tuple[LoadKey, ...]
    touched: frozenset[int] = frozenset()
    due: frozenset[int] = frozenset()
    wakes: frozenset[int] = frozenset()
    tick: bool = False
    next_tick: Time | None = None
    waiting: int = 0
    arrived: int = 0
    finished: int = 0


def waiting(job: GridJob, now: Time) -> JobProgress:
    """A job that has just arrived at a node: nothing done, nothing owed.

    Examples
    --------
    >>> from schedlib.preemption.resources import GridJob
    >>> waiting(GridJob(1, 0, (1,), 80, 60), now=5).work
    60
    """
    return JobProgress(job, now, 0.0, now, job.runtime, job.estimate, 0.0, _INF)


def resumed(p: JobProgress, now: Time, speed: float) -> JobProgress:
    """A waiting job that starts (or resumes) at `now` on a node of speed `speed`.

    Notes
    -----
    The wait so far is banked, and the job ends at
    $t + c + w / s$ ([`time_to_finish`][schedlib.preemption.decision.time_to_finish]).
    Complexity: $O(1)$.

    Examples
    --------
    >>> from schedlib.preemption.resources import GridJob
    >>> p = resumed(waiting(GridJob(1, 0, (1,), 80, 60), now=0), now=10, speed=1.5)
    >>> (p.wait, p.since, p.end)
    (10.0, 10, 50.0)
    """
    end = now + time_to_finish(p.work, speed, p.overhead)
    return attrs.evolve(p, wait=p.wait + (now - p.since), since=now, end=end)


def stopped(p: JobProgress, now: Time, speed: float, overhead: Time) -> JobProgress:
    """A running job preempted at `now`: it keeps its progress and owes `overhead`.

    Parameters
    ----------
    p
        The running job.
    now
        The preemption time.
    speed
        Its node's speed.
    overhead
        The overhead $c$ it will owe at its next resume.

    Returns
    -------
    JobProgress
        The waiting job: work and estimate reduced by the progress made
        ([`progress_made`][schedlib.preemption.decision.progress_made]).

    Notes
    -----
    Complexity: $O(1)$.

    References
    ----------
    Balasubramanian et al. (2013), §5.1 (preempted jobs are checkpointed and
    resumed), §5.2 (context-switch overhead).

    Examples
    --------
    >>> from schedlib.preemption.resources import GridJob
    >>> p = resumed(waiting(GridJob(1, 0, (1,), 80, 60), now=0), now=0, speed=1.0)
    >>> stopped(p, now=20, speed=1.0, overhead=0).work
    40.0
    """
    done = progress_made(now - p.since, speed, p.overhead)
    return attrs.evolve(
        p,
        since=now,
        work=max(0.0, p.work - done),
        estimate=p.estimate - done,
        overhead=overhead,
        end=_INF,
    )


def moved(p: JobProgress, now: Time) -> JobProgress:
    """A waiting job migrated at `now`: it arrives at its new node, its $W$ starts again.

    Examples
    --------
    >>> from schedlib.preemption.resources import GridJob
    >>> p = waiting(GridJob(1, 0, (1,), 80, 60), now=0)
    >>> (moved(p, 30).arrival, moved(p, 30).wait)
    (30, 0.0)
    """
    return attrs.evolve(p, arrival=now, wait=0.0, since=now)


def remaining_time(p: JobProgress, now: Time, speed: float) -> Time:
    r"""$T_{rem}$ on the node now: owed overhead plus estimated work left, in wall seconds.

    Notes
    -----
    For a waiting job $c + \max(0, e) / s$; for a running one, the part of
    $c$ not yet paid plus $\max(0, e - \text{progress}) / s$. Complexity: $O(1)$.

    Examples
    --------
    >>> from schedlib.preemption.resources import GridJob
    >>> p = waiting(GridJob(1, 0, (1,), 80, 60), now=0)
    >>> remaining_time(p, 0, 2.0), remaining_time(resumed(p, 0, 2.0), 10, 2.0)
    (40.0, 30.0)
    """
    if p.end == _INF:
        return p.overhead + max(0.0, p.estimate) / speed
    elapsed = now - p.since
    owed = max(0.0, p.overhead - elapsed)
    left = p.estimate - progress_made(elapsed, speed, p.overhead)
    return owed + max(0.0, left) / speed


def exact_priority(p: JobProgress, now: Time, speed: float, alpha: float, beta: float) -> Fraction:
    r"""$P = \alpha W - \beta T_{rem}$ of the job now, in exact arithmetic on its stored times.

    Notes
    -----
    The formulas of [`remaining_time`][schedlib.preemption.state.remaining_time] and
    [`contender`][schedlib.preemption.state.contender], each number read as the
    fraction it is: a waiting job has $W = W_0 + (t - \text{since})$ and
    $T_{rem} = c + \max(0, e) / s$; a running one $W = W_0$ and
    $T_{rem} = \max(0, c - \ell) + \max(0, e - \max(0, \ell - c) s) / s$ with
    $\ell = t - \text{since}$. Complexity: $O(1)$ fraction operations.

    Examples
    --------
    >>> from schedlib.preemption.resources import GridJob
    >>> p = resumed(waiting(GridJob(1, 0.1, (1,), 0.3, 0.3), now=0.1), now=0.2, speed=1.0)
    >>> exact_priority(p, 0.30000000000000004, 1.0, alpha=0.0, beta=1.0) == -(
    ...     Fraction(0.2) + Fraction(0.3) - Fraction(0.30000000000000004))
    True
    """
    zero, s = Fraction(0), Fraction(speed)
    since, c, e = Fraction(p.since), Fraction(p.overhead), Fraction(p.estimate)
    elapsed = Fraction(now) - since
    if p.end == _INF:
        wait = Fraction(p.wait) + elapsed
        remaining = c + max(zero, e) / s
    else:
        wait = Fraction(p.wait)
        left = e - max(zero, elapsed - c) * s
        remaining = max(zero, c - elapsed) + max(zero, left) / s
    return Fraction(alpha) * wait - Fraction(beta) * remaining


_SLACK = 2.0**-46
"""Relative bound on the rounding of a priority computed in floats: each of its few
operations rounds by at most $2^{-53}$ of the magnitudes it combines (with a wide margin)."""

_TINY = 2.0**-1000
"""Absolute part of the bound, for results in the subnormal range (there the rounding
is absolute, not relative)."""


def contender(p: JobProgress, now: Time, speed: float, alpha: float, beta: float) -> Contender:
    r"""The job as the local decision sees it, with $P = \alpha W - \beta T_{rem}$.

    Notes
    -----
    $W$ counts the current waiting spell of a waiting job; a running job's
    $W$ is what it had banked when it started. The priority is an
    [`ExactPriority`][schedlib.preemption.priority.ExactPriority]: computed in floats,
    it compares as [`exact_priority`][schedlib.preemption.state.exact_priority] (a
    running job's $T_{rem}$ is a difference of times, so two equal priorities can
    round apart: a job arriving with the $T_{rem}$ of the running one would preempt
    it). Its slack is $2^{-46}$ times the sum of the magnitudes the float
    computation combines, plus $2^{-1000}$. Complexity: $O(1)$.

    References
    ----------
    Balasubramanian et al. (2013), §5.1 (the priority function).

    Examples
    --------
    >>> from schedlib.preemption.resources import GridJob
    >>> p = waiting(GridJob(1, 0, (1,), 80, 60), now=0)
    >>> contender(p, 10, 1.0, alpha=0.5, beta=1.0).priority   # 0.5 * 10 - 80
    -75.0
    """
    running = p.end != _INF
    wait = p.wait if running else p.wait + (now - p.since)
    prio = alpha * wait - beta * remaining_time(p, now, speed)
    times = abs(p.wait) + abs(now) + abs(p.since)
    work = abs(p.overhead) + abs(p.estimate) / speed
    scale = abs(alpha) * times + abs(beta) * (work + times if running else work)
    exact = partial(exact_priority, p, now, speed, alpha, beta)
    return Contender(
        p.job.id, p.job.requirement, ExactPriority(prio, _SLACK * scale + _TINY, exact), p.arrival
    )
