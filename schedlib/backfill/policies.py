"""Backfilling decisions: pure functions from a snapshot of one cluster to what starts now.

Three policies over one queue in arrival order (submit time, then job id),
planning with the users' requested times:

- [`fcfs`][schedlib.backfill.policies.fcfs]: start jobs from the head of the
  queue while they fit; nothing overtakes.
- [`easy`][schedlib.backfill.policies.easy] (aggressive backfilling, Lifka's
  EASY): only the head holds a reservation; a later job may start now if that
  does not delay it.
- [`conservative`][schedlib.backfill.policies.conservative]: every job holds a
  reservation from its arrival on; a job may start early only in a hole that
  delays no reservation; when jobs end early, the schedule is compressed.

Each function reads only what a real scheduler knows at that instant: the
waiting jobs' sizes and requested times ([`Request`][schedlib.backfill.policies.Request]
has no actual runtime), the processors free now, and the planned end
(start + requested time) of each running job. The engine model in
[`schedlib.backfill.simulation`][schedlib.backfill.simulation] applies the
decisions.

Requested times are positive (the engine model rejects a zero estimate: a
reservation of length 0 would hold nothing).

References
----------
Sabin et al. (2003; Sabin et al., "Scheduling of parallel jobs in a heterogeneous
multi-site environment"), §2: FCFS, backfilling, conservative and aggressive
(EASY). D. Lifka, "The ANL/IBM SP scheduling system", JSSPP 1995 (EASY).
A. Mu'alem and D. Feitelson, "Utilization, predictability, workloads, and user
runtime estimates in scheduling the IBM SP2 with backfilling", IEEE TPDS
12(6), 2001 (conservative backfilling and compression).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice

import attrs

from schedlib.backfill.profile import Profile
from schedlib.backfill.reservations import Reservations
from schedlib.model import JobId, Time

_INF = float("inf")

__all__ = [
    "Decision",
    "Plan",
    "PlanDecision",
    "Request",
    "Snapshot",
    "conservative",
    "easy",
    "fcfs",
    "shadow_time",
]


@attrs.frozen(slots=True)
class Request:
    """What a backfilling decision may know of a waiting job (never its actual runtime).

    Attributes
    ----------
    id
        The job's id.
    submit
        Its submission time.
    procs
        Processors it needs, `>= 1`.
    requested_time
        The user's estimate in seconds, `> 0`; reservations use it.
    """

    id: JobId
    submit: Time
    procs: int
    requested_time: Time


@attrs.frozen(slots=True)
class Snapshot:
    """What FCFS and EASY see at one instant.

    Attributes
    ----------
    now
        The current time.
    free
        Processors free now.
    running
        `(planned end, procs, job id)` of every running job, sorted; the
        planned end is start + requested time (a job is killed there at the
        latest).
    queue
        Waiting jobs in arrival order (submit time, then id): a tuple, or
        the model's [`WaitingQueue`][schedlib.backfill.waiting.WaitingQueue]
        (an immutable sequence read the same way).
    """

    now: Time
    free: int
    running: tuple[tuple[Time, int, JobId], ...]
    queue: Sequence[Request]


@attrs.frozen(slots=True)
class Decision:
    """What to do now under FCFS or EASY.

    Attributes
    ----------
    start
        Jobs to start now, in this order (a prefix of the queue, then the
        backfilled ones in queue order).
    positions
        Their positions in `snapshot.queue`, ascending.
    head
        The first job left waiting, which holds the reservation (EASY), or
        `None` when the queue empties (always `None` under FCFS).
    reservation
        The head's reservation: its shadow time (EASY), else `None`.
    """

    start: tuple[Request, ...]
    positions: tuple[int, ...]
    head: Request | None = None
    reservation: Time | None = None


def _start_prefix(queue: Sequence[Request], free: int) -> tuple[list[Request], int, int]:
    """Start jobs from the head while they fit: (started, free left, index of the head)."""
    started: list[Request] = []
    for job in queue:  # an iterator: cheap on any sequence
        if job.procs > free:
            break
        started.append(job)
        free -= job.procs
    return started, free, len(started)


def fcfs(snapshot: Snapshot) -> Decision:
    """First come, first served: start jobs from the head of the queue while they fit.

    Parameters
    ----------
    snapshot
        The cluster now.

    Returns
    -------
    Decision
        The longest prefix $q_1, \\dots, q_k$ of the queue with
        $\\sum_{i \\le k} n_i \\le F$ ($F$ free processors); no reservation.

    Notes
    -----
    No job ever starts before a job submitted earlier. Complexity: $O(k)$.

    References
    ----------
    Sabin et al. (2003) §2 ("the simplest way to schedule jobs at a single site is to use
    a First-Come-First-Served (FCFS) policy").

    Examples
    --------
    >>> q = (Request(1, 0, 2, 10), Request(2, 0, 3, 10), Request(3, 0, 1, 10))
    >>> [j.id for j in fcfs(Snapshot(now=0, free=4, running=(), queue=q)).start]
    [1]
    """
    started, _, i = _start_prefix(snapshot.queue, snapshot.free)
    return Decision(tuple(started), tuple(range(i)))


def shadow_time(
    now: Time, free: int, running: tuple[tuple[Time, int, JobId], ...], procs: int
) -> tuple[Time, int]:
    """The head's reservation under EASY: its shadow time and the extra processors.

    Parameters
    ----------
    now
        The current time.
    free
        Processors free now ($F$).
    running
        `(planned end, procs, id)` of the running jobs, sorted by planned end.
    procs
        Processors the head needs ($n_h$), at most the machine size.

    Returns
    -------
    tuple
        `(shadow, extra)`:

        $$S = \\min\\{e_i : F + \\sum_{j : e_j \\le e_i} n_j \\ge n_h\\}
        \\quad (S = t \\text{ if } F \\ge n_h), \\qquad
        X = F + \\sum_{j : e_j \\le S} n_j - n_h$$

        where $e_j$ is the planned end of running job $j$ and $n_j$ its
        processors: the head can start at $S$ at the latest, and $X$
        processors are still free at $S$ once it has.

    Notes
    -----
    | symbol | parameter |
    |---|---|
    | $t$ | `now` |
    | $F$ | `free` |
    | $e_j, n_j$ | `running` |
    | $n_h$ | `procs` |

    Complexity: $O(r)$ for $r$ running jobs (one walk, once per pass).

    References
    ----------
    Lifka 1995; Mu'alem and Feitelson 2001, §2 ("shadow time", "extra nodes").

    Examples
    --------
    Two of 10 processors free; jobs of 4 and 3 processors end at 50 and 80; a
    head of 5 processors can start at 50, and 1 processor is extra then:

    >>> shadow_time(0, 2, ((50, 4, 1), (80, 3, 2)), 5)
    (50, 1)
    """
    available = free
    shadow = now
    for end, held, _ in running:  # planned ends are all > now
        if available >= procs and end > shadow:
            break
        available += held  # jobs ending at the shadow time itself count too
        shadow = end
    return shadow, available - procs


def easy(snapshot: Snapshot) -> Decision:
    """Aggressive (EASY) backfilling: only the head of the queue holds a reservation.

    Start jobs from the head while they fit. The first job that does not fit
    is the *head*: it gets a reservation at its shadow time $S$ with $X$
    extra processors (see [`shadow_time`][schedlib.backfill.policies.shadow_time]).
    Then every later job $j$, in queue order, starts now if

    $$n_j \\le F \\quad\\text{and}\\quad \\big(t + d_j \\le S \\ \\text{ or } \\ n_j \\le X\\big)$$

    (it fits now, and either ends by the shadow time or uses only extra
    processors); $F$ drops by $n_j$ for each started job, and $X$ too when it
    runs past $S$. Such a job never delays the head's reservation.

    Parameters
    ----------
    snapshot
        The cluster now.

    Returns
    -------
    Decision
        The jobs to start and the head's reservation.

    Notes
    -----
    | symbol | meaning |
    |---|---|
    | $t$ | `snapshot.now` |
    | $F$ | `snapshot.free` (as it decreases) |
    | $n_j, d_j$ | `procs`, `requested_time` of job $j$ |
    | $S, X$ | shadow time and extra processors of the head |

    Because running jobs are killed at their requested time, the head's
    reservation never moves later while it waits, whatever the actual runtimes.
    One shadow-time computation per pass. Complexity: $O(q + r \\log r)$ for
    $q$ waiting and $r$ running jobs.

    References
    ----------
    Sabin et al. (2003) §2 ("in aggressive backfilling, only the job at the head of the
    queue has a reservation"); Lifka 1995; Mu'alem and Feitelson 2001.

    Examples
    --------
    10 processors, 2 free; a running job holds 8 until t=100. The head needs
    4 processors: its shadow time is 100, with 6 extra processors. Job 3
    (2 processors, 50 s) ends before 100 and starts now:

    >>> q = (Request(2, 0, 4, 60), Request(3, 0, 2, 50), Request(4, 0, 1, 10))
    >>> d = easy(Snapshot(now=0, free=2, running=((100, 8, 1),), queue=q))
    >>> [j.id for j in d.start], d.head.id, d.reservation
    ([3], 2, 100)
    """
    now = snapshot.now
    queue = snapshot.queue
    started, free, i = _start_prefix(queue, snapshot.free)
    if i == len(queue):
        return Decision(tuple(started), tuple(range(i)))
    head = queue[i]
    running = snapshot.running
    if started:
        planned = tuple((now + j.requested_time, j.procs, j.id) for j in started)
        running = tuple(sorted(running + planned))
    shadow, extra = shadow_time(now, free, running, head.procs)
    positions = list(range(i))
    for k, job in enumerate(islice(queue, i + 1, None), i + 1):
        if not free:
            break
        procs = job.procs
        if procs > free:
            continue
        if now + job.requested_time <= shadow:  # as written: never `d <= S - t` (floats)
            started.append(job)
            positions.append(k)
            free -= procs
        elif procs <= extra:
            started.append(job)
            positions.append(k)
            free -= procs
            extra -= procs
    return Decision(tuple(started), tuple(positions), head, shadow)


@attrs.frozen(slots=True)
class Plan:
    """What conservative backfilling sees at one instant.

    Attributes
    ----------
    now
        The current time.
    profile
        Free processors over time, with every running job held until its
        planned end and every reservation in `reservations` taken; its origin
        is at most `now`.
    queue
        Waiting jobs in arrival order.
    reservations
        Each waiting job's reservation (its promised start), in queue order;
        `None` for a job that has just arrived and has none yet.
    released
        `(planned end, procs)` of the jobs that ended early at `now`: their
        processors come back over $[now, \\text{planned end})$, and then every
        reservation is re-placed (compression).
    compress
        Re-place every reservation even without releases: the caller freed
        room in `profile` itself (e.g. a withdrawn reservation).
    freed_from
        With `compress`: the earliest start of the room the caller freed
        (`None`: unknown, as early as `now`).
    settled
        For each waiting job, the earliest start of any room freed since its
        reservation was last placed (`inf`: none), as returned in the last
        [`PlanDecision`][schedlib.backfill.policies.PlanDecision]; `None`
        when unknown (every job is then re-placed). A job whose reservation
        starts before that point cannot move, and compression skips it.
    """

    now: Time
    profile: Profile
    queue: tuple[Request, ...]
    reservations: tuple[Time | None, ...]
    released: tuple[tuple[Time, int], ...] = ()
    compress: bool = False
    freed_from: Time | None = None
    settled: tuple[Time, ...] | None = None


@attrs.frozen(slots=True)
class PlanDecision:
    """What conservative backfilling decides at one instant.

    Attributes
    ----------
    reservations
        The new reservation of each waiting job, in queue order (never later
        than the old one).
    profile
        The profile with the new reservations.
    start
        Jobs whose reservation is now: they start now, in queue order.
    positions
        Their positions in `plan.queue`, ascending.
    changed
        Positions of the jobs whose reservation was made or moved, ascending.
    settled
        For each waiting job, the earliest start of room freed since its
        reservation was placed or checked (`inf`: none); hand it back in the
        next [`Plan`][schedlib.backfill.policies.Plan].
    """

    reservations: tuple[Time, ...]
    profile: Profile
    start: tuple[Request, ...]
    positions: tuple[int, ...] = ()
    changed: tuple[int, ...] = ()
    settled: tuple[Time, ...] = ()


def _settle(
    settled: list[Time], checked: list[bool], low: int, high: int, after: Time, freed: Time
) -> None:
    """`settled[k] = min(settled[k], after if checked[k] else freed)` for `low <= k < high`.

    A checked job's entry is `inf` (it was just checked), so it becomes `after`.
    """
    if False not in checked[low:high]:
        settled[low:high] = [after] * (high - low)
    else:
        settled[low:high] = [
            after if done else (freed if freed < x else x)
            for x, done in zip(settled[low:high], checked[low:high], strict=True)
        ]


def conservative(plan: Plan) -> PlanDecision:
    """Conservative backfilling: every job holds a reservation from its arrival on.

    In queue order, each job without a reservation gets the earliest one that
    fits in the profile of all earlier promises (running jobs until their
    planned end, reservations until start + requested time):

    $$s_j = \\min\\{s \\ge t : f(\\tau) \\ge n_j \\ \\forall \\tau \\in [s, s + d_j)\\}$$

    When jobs ended early (`plan.released`), their processors come back and every waiting
    job, in queue order, is taken out of the profile and put back at its
    earliest fit while all others keep theirs. Its old place is still free,
    so $s_j^{new} \\le s_j^{old}$: no reservation ever moves later. The jobs
    whose reservation is now start.

    Parameters
    ----------
    plan
        The cluster now, with the current reservations.

    Returns
    -------
    PlanDecision
        New reservations, the new profile, and the jobs to start now.

    Notes
    -----
    | symbol | meaning |
    |---|---|
    | $t$ | `plan.now` |
    | $f(\\tau)$ | free processors in `plan.profile` at $\\tau$ |
    | $n_j, d_j$ | `procs`, `requested_time` of job $j$ |
    | $s_j$ | its reservation |

    Rebuilding every reservation from scratch (emptying the profile of
    reservations and placing the jobs again in queue order) does *not* keep
    that promise: a job placed earlier in the rebuild may take the hole an
    existing reservation relied on.

    **Skipping jobs that cannot move** (same result, less work). When job $j$
    was last placed or checked, no start before $s_j$ fitted. Since then the
    profile changed only by taking room (arrivals) and by freeing room that
    starts no earlier than $\\phi_j$ (`settled`: ends at `now`, withdrawn
    reservations from `freed_from`, and the old places of jobs moved in this
    pass). A window $[x, x + d_j)$ with $x < s_j$ needs checking only
    before $s_j$ (the rest lies inside the job's own place, where at least
    $n_j$ processors are free), and it can newly fit only if it reaches into
    room freed since: $x + d_j > \\phi_j$. So if $\\phi_j \\ge s_j$ the job
    still fits nowhere earlier and compression skips it without a scan;
    otherwise the scan starts at the latest of $t$ and the breakpoints $b$
    with $b + d_j \\le \\phi_j$ (`ProfileEditor.reach_start`), not at $t$. Early
    ends free room from `now` and re-check every job from `now`; a
    reservation withdrawn far ahead re-checks only the jobs that start after
    it, from just before it.

    Complexity: $O(q \\cdot m)$ when compressing, $m$ breakpoints scanned per
    job re-checked; $O(a \\cdot m)$ otherwise for $a$ arrivals.

    References
    ----------
    Sabin et al. (2003), §2 ("in conservative backfill, every job is given a
    reservation when it enters the system"); Mu'alem and Feitelson 2001, §2
    (compression).

    Examples
    --------
    4 processors; a running job holds 3 until t=10. Job 1 (2 processors,
    5 s) gets a reservation at 10; job 2 (1 processor, 10 s) fits now:

    >>> p = Profile.idle(4).reserve(0, 10, 3)
    >>> q = (Request(1, 0, 2, 5), Request(2, 0, 1, 10))
    >>> d = conservative(Plan(now=0, profile=p, queue=q, reservations=(None, None)))
    >>> d.reservations, [j.id for j in d.start]
    ((10, 0), [2])
    """
    now = plan.now
    queue = plan.queue
    book = Reservations.of(plan.profile, queue, plan.reservations, plan.settled)
    book.editor.advance(now)
    for planned_end, procs in plan.released:
        book.end_early(now, planned_end, procs)
    if plan.compress:
        book.freed(now if plan.freed_from is None else plan.freed_from, _INF)
    changed, positions = book.decide(now)
    result: tuple[Time, ...] = tuple(book.starts)  # type: ignore[arg-type]
    started = tuple(queue[k] for k in positions)
    return PlanDecision(
        result, book.freeze(), started, tuple(positions), tuple(changed), tuple(book.lows)
    )
