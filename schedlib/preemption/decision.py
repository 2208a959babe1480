"""The local decision on one multi-resource node (Balasubramanian et al. 2013 §5.1, Algorithm 1).

A decision is a pure function of a [`NodeSnapshot`][schedlib.preemption.decision.NodeSnapshot]
(the node's capacity, its running and waiting jobs with their priorities) and
returns a [`Decision`][schedlib.preemption.decision.Decision]: which running jobs to
preempt and which waiting jobs to start. Two policies:

- [`schedule_preemptive`][schedlib.preemption.decision.schedule_preemptive]: priority
  order, fill, backfill, and preemption of lower-priority jobs that frees
  "just the right amount of resources" for the best waiting job (Algorithm 1
  as we read it);
- [`schedule_fcfs_backfill`][schedlib.preemption.decision.schedule_fcfs_backfill]: the
  non-preemptive baseline, first come first served with backfilling
  (the paper's reference [9]).

Preempted jobs keep their progress (checkpoint and resume). An optional
overhead $c$ is charged at every resume after a preemption: the job holds its
resources for $c$ seconds before it progresses again
([`progress_made`][schedlib.preemption.decision.progress_made],
[`time_to_finish`][schedlib.preemption.decision.time_to_finish]); the overhead it owes
counts in its estimated remaining time $T_{rem}$ (see
[`schedlib.preemption.priority`][schedlib.preemption.priority] for why). The paper sets it to 0
(§5.2: a context switch costs under 0.02 % of a 5 s interval).

Interpretation choices (documented on the *Priority and preemption* page):

1. **Order.** Waiting jobs are ranked by priority, highest first, then by
   arrival at the node, then by job id.
2. **Fill and backfill** are one greedy walk down the ranked queue: every job
   that fits the free vector starts (the head jobs first, then any later job
   that fits). Jobs started this way are ordinary running jobs in the rest of
   the decision (they "are also prone to preemption", §5.1).
3. **Victims.** For the highest-ranked job $J_h$ that did not fit, if
   $P(J_h) > P_{min}(running)$: candidates are the running jobs of strictly
   lower priority (the reading `victims="lower"`, the default), taken lowest
   priority first (ties: smaller requirement, the paper's $J'_{Rmin}$,
   measured as $\\sum_k R^k / C^k$; then arrival, then id) until $J_h$ fits.
   Then every chosen victim whose release is not needed is dropped again,
   highest priority first. The result frees "just enough": dropping any one
   victim would leave $J_h$ unable to fit.
   The other reading, `victims="equal"`, is Algorithm 1's
   `FindJobstoPreempt` line 5 (it stops only at a running job of priority
   *above* $P(J_h)$): running jobs of *equal* priority are candidates too,
   after the strictly lower ones, but only those that were running when the
   decision began and have not been stopped in it (see the termination
   note of [`schedule_preemptive`][schedlib.preemption.decision.schedule_preemptive]).
4. If $J_h$ cannot fit even with all lower-priority jobs preempted, it waits
   this turn and the next ranked job is tried, while its priority exceeds
   the lowest running priority. Jobs preempted in this decision rejoin the
   ranked queue at once (with their priority).
5. **Fill again** at the end over every waiting job, victims included; a
   victim that fits is simply kept running (it is not preempted at all).

With these choices every decision is *blocking*: afterwards no waiting job
fits the free vector, and no waiting job could start even by preempting every
running job of strictly lower priority. The starvation bound of
[`schedlib.preemption.priority`][schedlib.preemption.priority] rests on this.
It holds under both readings of the victims.

**Fit.** A job fits when $R_J^k \\le R_f^k$ in every kind
([`fits`][schedlib.preemption.resources.fits]), in the fill as in the
preemption tests. Algorithm 1 prints the fill's test (`ScheduleJobs` line 4)
as a strict `R_jh < R_f` and every preemption test (`ScheduleJobs` line 13,
`FindJobstoPreempt` line 8, `FindOptimal` line 1) as `<=`; we read the fill's
`<` as `<=` too: taken literally (in every kind) it would never start a job
that asks for exactly what is free, so a 1-core job could never run on an
idle 1-core node (40 % of the experiment's nodes and jobs are 1-core).

References
----------
Balasubramanian et al. (2013) §4 (terms), §5.1 (local scheduling, Algorithm 1: `ScheduleJobs`,
`FindJobstoPreempt`, `FindOptimal`), §5.2 (context switches).

Examples
--------
Figure 1 of the paper in miniature: a 4-core node runs job 1 (1 core) and job
2 (2 cores, the lowest priority); job 3 (2 cores, short, so high priority)
and job 4 (1 core) wait. Job 4 is backfilled into the free core, job 2 is
preempted for job 3:

>>> snap = NodeSnapshot(
...     capacity=(4, 4096),
...     running=(Contender(1, (1, 1024), -3000, 0), Contender(2, (2, 1024), -5000, 10)),
...     waiting=(Contender(3, (2, 1024), -600, 20), Contender(4, (1, 512), -4000, 30)),
... )
>>> schedule_preemptive(snap)
Decision(preempt=(2,), start=(4, 3))
>>> schedule_fcfs_backfill(snap)
Decision(preempt=(), start=(4,))
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Iterable, Sequence

import attrs

from schedlib.errors import InvalidValueError
from schedlib.model import JobId, Time
from schedlib.preemption.resources import Vector, fits, subtract, total

__all__ = [
    "LOCAL_POLICIES",
    "VICTIM_READINGS",
    "Contender",
    "Decision",
    "LocalPolicy",
    "NodeSnapshot",
    "PreemptionRound",
    "apply_decision",
    "free_vector",
    "progress_made",
    "rank_key",
    "schedule_fcfs_backfill",
    "schedule_preemptive",
    "schedule_preemptive_equal",
    "time_to_finish",
    "victim_key",
]


@attrs.frozen(slots=True)
class Contender:
    """A job as one node's decision sees it (running or waiting).

    Attributes
    ----------
    job
        The job's id.
    requirement
        Its requirement vector (same kinds as the node's capacity).
    priority
        Its priority now ([`priority`][schedlib.preemption.priority.priority]).
    arrival
        When it arrived at this node (ties between equal priorities; the
        FCFS order).
    """

    job: JobId
    requirement: Vector
    priority: float
    arrival: Time


def _contenders(value: Iterable[Contender]) -> tuple[Contender, ...]:
    return tuple(value)


def _ids(value: Iterable[JobId]) -> tuple[JobId, ...]:
    return tuple(value)


def _amounts(value: Iterable[float]) -> Vector:
    return tuple(value)


def _check_snapshot(snapshot: NodeSnapshot) -> None:
    kinds = len(snapshot.capacity)
    if kinds == 0:
        raise InvalidValueError("NodeSnapshot.capacity", snapshot.capacity, "must not be empty")
    seen: set[JobId] = set()
    for field, group in (("running", snapshot.running), ("waiting", snapshot.waiting)):
        for c in group:
            if not isinstance(c, Contender):
                raise InvalidValueError(f"NodeSnapshot.{field}", c, "must hold Contender values")
            if len(c.requirement) != kinds:
                raise InvalidValueError(
                    f"NodeSnapshot.{field}[job {c.job}].requirement",
                    c.requirement,
                    f"has {len(c.requirement)} kinds, the capacity has {kinds}",
                )
            if c.job in seen:
                raise InvalidValueError(f"NodeSnapshot.{field}", c.job, "job id appears twice")
            if math.isnan(c.priority):
                raise InvalidValueError(
                    f"NodeSnapshot.{field}[job {c.job}].priority", c.priority, "must not be NaN"
                )
            seen.add(c.job)
    used = total((c.requirement for c in snapshot.running), kinds)
    if not fits(used, snapshot.capacity):
        raise InvalidValueError(
            "NodeSnapshot.running", used, f"uses more than the capacity {snapshot.capacity}"
        )


@attrs.frozen(slots=True)
class NodeSnapshot:
    """What a node knows when it decides: capacity, running and waiting jobs.

    Attributes
    ----------
    capacity
        The node's capacity vector.
    running
        Jobs executing now; together they fit the capacity.
    waiting
        Jobs in the node's queue (never started, or preempted and resumable).

    Examples
    --------
    >>> NodeSnapshot((2,), running=(Contender(1, (3,), 0.0, 0),))
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: NodeSnapshot.running = (3,): uses more than the capacity (2,)
    """

    capacity: Vector = attrs.field(converter=_amounts)
    running: tuple[Contender, ...] = attrs.field(default=(), converter=_contenders)
    waiting: tuple[Contender, ...] = attrs.field(default=(), converter=_contenders)

    def __attrs_post_init__(self) -> None:
        _check_snapshot(self)

    @classmethod
    def trusted(
        cls, capacity: Vector, running: tuple[Contender, ...], waiting: tuple[Contender, ...]
    ) -> NodeSnapshot:
        """Build a snapshot without validation (for engines that maintain the invariants)."""
        snap = object.__new__(cls)
        object.__setattr__(snap, "capacity", capacity)
        object.__setattr__(snap, "running", running)
        object.__setattr__(snap, "waiting", waiting)
        return snap


@attrs.frozen(slots=True)
class PreemptionRound:
    """Why jobs were preempted: one round of `FindJobstoPreempt` (Algorithm 1).

    Attributes
    ----------
    head
        The waiting job the round makes room for (it starts in the round).
    victims
        The running jobs stopped for it, in the order they were chosen (a
        victim that fits again in the final fill is kept running after all).
    free
        The node's free vector just before the round.
    running
        The jobs running just before the round (the candidates are those of
        lower priority among them), in start order. It does not take part in
        equality or `repr`; [`check_victim_order`][schedlib.testing.invariants.check_victim_order]
        audits the victims against it.

    Examples
    --------
    >>> PreemptionRound(head=9, victims=(4,), free=(1,), running=(4, 5))
    PreemptionRound(head=9, victims=(4,), free=(1,))
    """

    head: JobId
    victims: tuple[JobId, ...] = attrs.field(converter=_ids)
    free: Vector = attrs.field(converter=_amounts)
    running: tuple[JobId, ...] = attrs.field(default=(), converter=_ids, eq=False, repr=False)


def _rounds(value: Iterable[PreemptionRound]) -> tuple[PreemptionRound, ...]:
    return tuple(value)


@attrs.frozen(slots=True)
class Decision:
    """The result of one local decision.

    Attributes
    ----------
    preempt
        Running jobs to stop (they keep their progress and rejoin the queue),
        in the order they were chosen.
    start
        Waiting jobs to start, in the order they were chosen.
    rounds
        The explanation of the preemptions, one
        [`PreemptionRound`][schedlib.preemption.decision.PreemptionRound] per
        job that preempted others, in order. It does not take part in
        equality or `repr` (two decisions that do the same are equal), and a
        policy that never preempts leaves it empty.
        [`check_victims_needed`][schedlib.testing.invariants.check_victims_needed]
        audits it.
    """

    preempt: tuple[JobId, ...] = attrs.field(default=(), converter=_ids)
    start: tuple[JobId, ...] = attrs.field(default=(), converter=_ids)
    rounds: tuple[PreemptionRound, ...] = attrs.field(
        default=(), converter=_rounds, eq=False, repr=False
    )


LocalPolicy = Callable[[NodeSnapshot], Decision]
"""A local decision: `snapshot -> decision`."""


def rank_key(c: Contender) -> tuple[float, Time, JobId]:
    """Queue order: priority (highest first), then arrival at the node, then id.

    Examples
    --------
    >>> sorted([Contender(2, (1,), -5.0, 0), Contender(1, (1,), -5.0, 0)], key=rank_key)[0].job
    1
    """
    return (-c.priority, c.arrival, c.job)


def victim_key(c: Contender, capacity: Sequence[float]) -> tuple[float, float, Time, JobId]:
    """Victim order: priority (lowest first), then requirement size, arrival, id.

    The size of a requirement is $\\sum_k R^k / C^k$, its share of the node
    summed over the kinds: among equal priorities the smaller job (the paper's
    $J'_{Rmin}$) is preempted first.

    Examples
    --------
    >>> victim_key(Contender(7, (2, 1024), -100.0, 5), (4, 4096))
    (-100.0, 0.75, 5, 7)
    """
    size = sum(r / c_ for r, c_ in zip(c.requirement, capacity, strict=True) if c_)
    return (c.priority, size, c.arrival, c.job)


def free_vector(snapshot: NodeSnapshot) -> Vector:
    """Capacity minus what the running jobs hold.

    Examples
    --------
    >>> free_vector(NodeSnapshot((4, 100), running=(Contender(1, (1, 30), 0.0, 0),)))
    (3, 70)
    """
    kinds = len(snapshot.capacity)
    return subtract(snapshot.capacity, total((c.requirement for c in snapshot.running), kinds))


def _sub(free: list[float], req: Vector) -> None:
    for k, amount in enumerate(req):
        free[k] -= amount


def _add(free: list[float], req: Vector) -> None:
    for k, amount in enumerate(req):
        free[k] += amount


VICTIM_READINGS: tuple[str, ...] = ("lower", "equal")
"""Which running jobs a waiting job may preempt: `"lower"` (strictly lower priority, the
prose of §5.1; the default) or `"equal"` (lower or equal, Algorithm 1's `FindJobstoPreempt`
line 5)."""


def schedule_preemptive(snapshot: NodeSnapshot, *, victims: str = "lower") -> Decision:
    """Algorithm 1: fill, backfill, then preempt just enough for the best waiting jobs.

    Parameters
    ----------
    snapshot
        The node now, with every job's current priority.
    victims
        The reading of which running jobs may be preempted
        ([`VICTIM_READINGS`][schedlib.preemption.decision.VICTIM_READINGS]):
        `"lower"` (default), only jobs of strictly lower priority (§5.1: the
        scheduler "compares the priority of the second lowest priority job");
        `"equal"`, also jobs of equal priority that were running when the
        decision began and have not been stopped in it (`FindJobstoPreempt`
        line 5 breaks only on a job of *higher* priority).

    Returns
    -------
    Decision
        Jobs to preempt and jobs to start; applying it never oversubscribes
        the node.

    Raises
    ------
    InvalidValueError
        For an unknown `victims` reading.

    Notes
    -----
    Steps (interpretation choices 1-5 in the module notes):

    1. rank the queue by $(-P, \\text{arrival}, \\text{id})$;
    2. fill: start every job that fits, in rank order ($R_{j} \\le R_f$);
    3. for each job $J_h$ still waiting, in rank order, while
       $P(J_h) > P_{min}(J_{running})$: if
       $R_{J_h} \\le R_f + \\sum_{J' \\in C} R_{J'}$ over the candidates $C$
       (running, $P(J') < P(J_h)$; with `victims="equal"` also
       $P(J') = P(J_h)$ for the jobs running since before the decision and
       not stopped in it), preempt candidates in victim order
       ([`victim_key`][schedlib.preemption.decision.victim_key]) until it
       fits, drop the victims not needed (last chosen first), start $J_h$;
    4. fill again.

    **Termination.** Each round starts one job and stops only candidates.
    Read the running jobs' priorities as a list sorted from the highest:
    a round whose victims all rank strictly below $J_h$ makes that list
    lexicographically larger (an entry below $P(J_h)$ is replaced by
    $P(J_h)$), and there are finitely many such lists, so such rounds cannot
    go on for ever. With `victims="equal"` a round may also stop a job of
    priority $P(J_h)$, which can undo that progress; but each such round
    stops one of the jobs that were running when the decision began, and a
    stopped job is never a candidate of equal priority again in the same
    decision, so there are at most $r$ of them. Without that last rule two
    jobs of equal priority would preempt each other for ever (a node of 3
    cores running a 1-core job of priority -10 and a 2-core job of priority
    -5, with a 2-core job of priority -5 waiting; see the example).

    Complexity: $O((w + r)^2 K)$ for $w$ waiting and $r$ running jobs and
    $K$ kinds in practice (a handful of jobs preempt); the termination bound
    above is not polynomial in general.

    References
    ----------
    Balasubramanian et al. (2013) §5.1, Algorithm 1 (`ScheduleJobs`, `FindJobstoPreempt`,
    `FindOptimal`).

    Examples
    --------
    The best waiting job (priority -100) needs 2 cores; the victims are taken
    lowest priority first until it fits (jobs 4, then 3), then job 4 is
    dropped again because job 3's core suffices together with the free one:

    >>> snap = NodeSnapshot((3,), running=(
    ...     Contender(3, (1,), -900.0, 0), Contender(4, (1,), -1000.0, 0),
    ...     Contender(5, (1,), -50.0, 0)), waiting=(Contender(9, (2,), -100.0, 7),))
    >>> schedule_preemptive(NodeSnapshot((4,), snap.running, snap.waiting))
    Decision(preempt=(4,), start=(9,))
    >>> schedule_preemptive(snap)
    Decision(preempt=(4, 3), start=(9,))

    Equal priorities: under the default reading job 3
    waits; under Algorithm 1's line 5 it takes job 2's cores, and job 2,
    stopped, may not take them back within the decision:

    >>> tie = NodeSnapshot((3,), running=(Contender(1, (1,), -10.0, 0),
    ...     Contender(2, (2,), -5.0, 0)), waiting=(Contender(3, (2,), -5.0, 1),))
    >>> schedule_preemptive(tie), schedule_preemptive(tie, victims="equal")
    (Decision(preempt=(), start=()), Decision(preempt=(2,), start=(3,)))
    """
    if victims not in VICTIM_READINGS:
        raise InvalidValueError("victims", victims, f"must be one of {', '.join(VICTIM_READINGS)}")
    capacity = snapshot.capacity
    kinds = len(capacity)
    running: dict[JobId, Contender] = {c.job: c for c in snapshot.running}
    was_running = frozenset(running)
    # equal-priority candidates (victims="equal"): running since before the decision, not stopped
    unstopped: set[JobId] = set(running) if victims == "equal" else set()
    free = list(subtract(capacity, total((c.requirement for c in snapshot.running), kinds)))
    started: dict[JobId, None] = {}  # insertion-ordered set
    preempted: dict[JobId, None] = {}
    rounds: list[PreemptionRound] = []

    def start(c: Contender) -> None:
        _sub(free, c.requirement)
        running[c.job] = c
        if c.job in was_running:
            preempted.pop(c.job, None)  # kept running after all
        else:
            started[c.job] = None

    def stop(c: Contender) -> None:
        _add(free, c.requirement)
        del running[c.job]
        unstopped.discard(c.job)
        if c.job in was_running:
            preempted[c.job] = None
        else:
            started.pop(c.job, None)

    # 1-2. rank and fill
    queue: list[tuple[tuple[float, Time, JobId], Contender]] = []
    for c in sorted(snapshot.waiting, key=rank_key):
        if fits(c.requirement, free):
            start(c)
        else:
            queue.append((rank_key(c), c))
    # 3. preempt for the best waiting jobs
    blocked: list[tuple[tuple[float, Time, JobId], Contender]] = []
    while queue:
        key, head = queue.pop(0)
        if not running or head.priority <= min(c.priority for c in running.values()):
            blocked.append((key, head))
            blocked.extend(queue)
            queue = []
            break
        lower = sorted(
            (
                c
                for c in running.values()
                if c.priority < head.priority
                or (c.priority == head.priority and c.job in unstopped)
            ),
            key=lambda c: victim_key(c, capacity),
        )
        released = list(free)
        chosen: list[Contender] = []
        for c in lower:
            chosen.append(c)
            _add(released, c.requirement)
            if fits(head.requirement, released):
                break
        else:
            blocked.append((key, head))
            continue
        for c in reversed(chosen[:]):
            trial = [r - a for r, a in zip(released, c.requirement, strict=True)]
            if fits(head.requirement, trial):
                released = trial
                chosen.remove(c)
        rounds.append(
            PreemptionRound(head.job, tuple(c.job for c in chosen), tuple(free), tuple(running))
        )
        for c in chosen:
            stop(c)
            bisect.insort(queue, (rank_key(c), c), key=lambda item: item[0])
        start(head)
    # 4. fill again (victims included: a victim that fits is kept running)
    for _key, c in sorted(blocked, key=lambda item: item[0]):
        if fits(c.requirement, free):
            start(c)
    return Decision(preempt=tuple(preempted), start=tuple(started), rounds=rounds)


def schedule_preemptive_equal(snapshot: NodeSnapshot) -> Decision:
    """[`schedule_preemptive`][schedlib.preemption.decision.schedule_preemptive] with
    `victims="equal"` (Algorithm 1's line 5: equal-priority victims), as a named policy.

    Examples
    --------
    >>> tie = NodeSnapshot((1,), running=(Contender(1, (1,), -5.0, 0),),
    ...                    waiting=(Contender(2, (1,), -5.0, 1),))
    >>> schedule_preemptive_equal(tie)
    Decision(preempt=(), start=())
    """
    return schedule_preemptive(snapshot, victims="equal")


def schedule_fcfs_backfill(snapshot: NodeSnapshot) -> Decision:
    """The non-preemptive baseline: first come first served with backfilling.

    Parameters
    ----------
    snapshot
        The node now (priorities are ignored).

    Returns
    -------
    Decision
        No preemption; the jobs to start.

    Notes
    -----
    The queue is in arrival order (then id); the head starts while it fits,
    then any later job that fits now (backfilling without reservation, as in
    the paper's reference [9]). Complexity: $O(w \\log w \\cdot K)$.

    References
    ----------
    Balasubramanian et al. (2013) §6.1 ("FCFS scheduler with backfilling"), reference [9].

    Examples
    --------
    >>> snap = NodeSnapshot((4,), running=(Contender(1, (2,), 0.0, 0),),
    ...     waiting=(Contender(2, (4,), 0.0, 1), Contender(3, (2,), 0.0, 2)))
    >>> schedule_fcfs_backfill(snap)
    Decision(preempt=(), start=(3,))
    """
    free = list(free_vector(snapshot))
    chosen: list[JobId] = []
    for c in sorted(snapshot.waiting, key=lambda c: (c.arrival, c.job)):
        if fits(c.requirement, free):
            _sub(free, c.requirement)
            chosen.append(c.job)
    return Decision(start=tuple(chosen))


LOCAL_POLICIES: dict[str, LocalPolicy] = {
    "preemptive": schedule_preemptive,
    "preemptive-equal": schedule_preemptive_equal,
    "fcfs": schedule_fcfs_backfill,
}
"""The local policies by name: `"preemptive"` (Algorithm 1, strictly lower victims),
`"preemptive-equal"` (Algorithm 1 with equal-priority victims, line 5), `"fcfs"`."""


def apply_decision(snapshot: NodeSnapshot, decision: Decision) -> NodeSnapshot:
    """The node after a decision (priorities unchanged).

    Parameters
    ----------
    snapshot
        The node before.
    decision
        A decision about it.

    Returns
    -------
    NodeSnapshot
        Running jobs minus the preempted plus the started; waiting jobs minus
        the started plus the preempted.

    Raises
    ------
    InvalidValueError
        If the decision preempts a job that is not running, starts one that
        is not waiting, names a job twice, or oversubscribes the node.

    Examples
    --------
    >>> snap = NodeSnapshot((2,), waiting=(Contender(1, (1,), 0.0, 0),))
    >>> after = apply_decision(snap, Decision(start=(1,)))
    >>> [c.job for c in after.running], after.waiting
    ([1], ())
    """
    running = {c.job: c for c in snapshot.running}
    waiting = {c.job: c for c in snapshot.waiting}
    if len(set(decision.preempt)) != len(decision.preempt):
        raise InvalidValueError("Decision.preempt", decision.preempt, "names a job twice")
    if len(set(decision.start)) != len(decision.start):
        raise InvalidValueError("Decision.start", decision.start, "names a job twice")
    for job in decision.preempt:
        if job not in running:
            raise InvalidValueError("Decision.preempt", job, "is not running on the node")
        waiting[job] = running.pop(job)
    for job in decision.start:
        if job not in waiting or job in decision.preempt:
            raise InvalidValueError("Decision.start", job, "is not waiting on the node")
        running[job] = waiting.pop(job)
    return NodeSnapshot(snapshot.capacity, tuple(running.values()), tuple(waiting.values()))


def progress_made(elapsed: Time, speed: float, overhead: Time = 0.0) -> Time:
    """Canonical work done by an execution segment of `elapsed` wall seconds.

    The first `overhead` seconds of a resumed segment restore the checkpoint
    and make no progress.

    Parameters
    ----------
    elapsed
        Length of the segment on the node.
    speed
        The node's speed $s$.
    overhead
        $c$, charged when the segment resumes a preempted job (0 otherwise).

    Returns
    -------
    float
        $\\max(0, \\ell - c) \\cdot s$.

    Notes
    -----
    Complexity: $O(1)$. References: Balasubramanian et al. (2013) §5.2 (context-switch cost).

    Examples
    --------
    >>> progress_made(100, 2.0), progress_made(100, 2.0, overhead=30), progress_made(20, 2.0, 30)
    (200.0, 140.0, 0.0)
    """
    return max(0.0, elapsed - overhead) * speed


def time_to_finish(work: Time, speed: float, overhead: Time = 0.0) -> Time:
    """Wall seconds a segment needs to finish `work` canonical seconds: $c + w / s$.

    Examples
    --------
    >>> time_to_finish(3600, 1.5), time_to_finish(3600, 1.5, overhead=5)
    (2400.0, 2405.0)
    """
    return overhead + work / speed
