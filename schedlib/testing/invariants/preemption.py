"""Checkers for multi-resource nodes with preemption and migration (Balasubramanian et al. 2013).

Two levels:

- **decision level** — a [`NodeSnapshot`][schedlib.preemption.decision.NodeSnapshot]
  and the [`Decision`][schedlib.preemption.decision.Decision] taken on it:
  [`check_decision_valid`][schedlib.testing.invariants.check_decision_valid],
  [`check_fill_maximal`][schedlib.testing.invariants.check_fill_maximal],
  [`check_preemptions_justified`][schedlib.testing.invariants.check_preemptions_justified],
  [`check_victims_needed`][schedlib.testing.invariants.check_victims_needed],
  [`check_victim_order`][schedlib.testing.invariants.check_victim_order],
  [`check_waiting_blocked`][schedlib.testing.invariants.check_waiting_blocked], and
  [`check_decision`][schedlib.testing.invariants.check_decision] running all six
  (usable as the `observer` of
  [`simulate_grid`][schedlib.preemption.grid.simulate_grid]);
- **run level** — a [`RunRecord`][schedlib.model.RunRecord] whose places are
  `(node,)` and whose workload holds
  [`GridJob`][schedlib.preemption.resources.GridJob]s, plus the nodes:
  [`check_node_capacity`][schedlib.testing.invariants.check_node_capacity],
  [`check_migrations_start`][schedlib.testing.invariants.check_migrations_start],
  [`check_progress_conserved`][schedlib.testing.invariants.check_progress_conserved],
  [`check_push_sends_best`][schedlib.testing.invariants.check_push_sends_best],
  [`check_no_starvation`][schedlib.testing.invariants.check_no_starvation].

The decision-level checkers take the reading of the victims (`victims="lower"`,
the default, or `"equal"`: see
[`schedule_preemptive`][schedlib.preemption.decision.schedule_preemptive]); under
`"equal"` a running job of the same priority as the job it makes room for may be
a victim if it was running when the decision began and was not stopped earlier
in it.

Run-level checkers read only the record (and the nodes): they apply to any
scheduler that logs `START`/`PREEMPT`/`COMPLETE` on `(node,)` places and
`ASSIGN`/`MIGRATE` when a job joins a node. Use them together with the common
ones (`check_every_job_accounted`, `check_lifecycle`).

Examples
--------
>>> from schedlib.preemption.decision import Contender, Decision, NodeSnapshot
>>> snap = NodeSnapshot((2,), waiting=(Contender(1, (1,), 0.0, 0), Contender(2, (1,), -1.0, 0)))
>>> check_decision(snap, Decision(start=(1, 2)))
>>> check_fill_maximal(snap, Decision(start=(1,)))
Traceback (most recent call last):
...
AssertionError: job 2 waits although it fits the free vector (1,) after the decision
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from schedlib.errors import InvalidValueError
from schedlib.model import EventKind, JobEvent, JobId, RunRecord, Time
from schedlib.preemption.decision import (
    VICTIM_READINGS,
    Contender,
    Decision,
    NodeSnapshot,
    apply_decision,
    free_vector,
    progress_made,
)
from schedlib.preemption.priority import overtake_window, starvation_bound
from schedlib.preemption.resources import GridNode, Vector, add, fits, total
from schedlib.preemption.scheduling_pass import BALANCE_DETAIL, PUSH_DETAIL
from schedlib.testing.invariants.common import Segment, execution_segments

__all__ = [
    "check_decision",
    "check_decision_valid",
    "check_fill_maximal",
    "check_migrations_start",
    "check_no_starvation",
    "check_node_capacity",
    "check_preemptions_justified",
    "check_progress_conserved",
    "check_push_sends_best",
    "check_victim_order",
    "check_victims_needed",
    "check_waiting_blocked",
    "is_balancing_move",
]

_TOLERANCE = 1e-9


# -- decision level ----------------------------------------------------------------------


def _after(snapshot: NodeSnapshot, decision: Decision) -> NodeSnapshot:
    try:
        return apply_decision(snapshot, decision)
    except InvalidValueError as error:
        raise AssertionError(f"invalid decision {decision}: {error}") from None


def check_decision_valid(snapshot: NodeSnapshot, decision: Decision) -> None:
    """The decision preempts running jobs, starts waiting ones, and fits the node.

    Raises
    ------
    AssertionError
        If a job is named twice, preempted while not running, started while
        not waiting, or the jobs running afterwards exceed the capacity in
        some kind.

    Examples
    --------
    >>> from schedlib.preemption.decision import Contender, Decision, NodeSnapshot
    >>> snap = NodeSnapshot((1,), waiting=(Contender(1, (1,), 0.0, 0), Contender(2, (1,), 0.0, 0)))
    >>> check_decision_valid(snap, Decision(start=(1, 2)))
    Traceback (most recent call last):
    ...
    AssertionError: invalid decision Decision(preempt=(), start=(1, 2)): NodeSnapshot.running ...
    """
    _after(snapshot, decision)


def check_fill_maximal(snapshot: NodeSnapshot, decision: Decision) -> None:
    """After the decision no waiting job fits the free vector.

    Raises
    ------
    AssertionError
        Naming the first waiting job (in queue order) that would fit.
    """
    after = _after(snapshot, decision)
    free = free_vector(after)
    for c in sorted(after.waiting, key=lambda c: (-c.priority, c.arrival, c.job)):
        if fits(c.requirement, free):
            raise AssertionError(
                f"job {c.job} waits although it fits the free vector {free} after the decision"
            )


def _reading(victims: str) -> bool:
    """Whether `victims` is the equal-priority reading (after checking its name)."""
    if victims not in VICTIM_READINGS:
        raise InvalidValueError("victims", victims, f"must be one of {', '.join(VICTIM_READINGS)}")
    return victims == "equal"


def check_preemptions_justified(
    snapshot: NodeSnapshot, decision: Decision, *, victims: str = "lower"
) -> None:
    """A job is preempted only for a strictly higher-priority job that needed its resources.

    For every preempted job $V$: some job started by the decision has a
    priority strictly above $P(V)$ (at least $P(V)$ with `victims="equal"`),
    and $V$ could not have been kept running (it does not fit the free vector
    left after the decision).

    Raises
    ------
    AssertionError
        Naming the victim and why its preemption was not justified.
    InvalidValueError
        For an unknown `victims` reading.
    """
    equal = _reading(victims)
    after = _after(snapshot, decision)
    free = free_vector(after)
    priority = {c.job: c.priority for c in snapshot.running + snapshot.waiting}
    best_started = max((priority[j] for j in decision.start), default=-math.inf)
    for job in decision.preempt:
        victim = next(c for c in snapshot.running if c.job == job)
        if not (best_started >= victim.priority if equal else best_started > victim.priority):
            raise AssertionError(
                f"job {job} (priority {victim.priority}) is preempted but no job of "
                f"{'at least its' if equal else 'strictly higher'} priority starts "
                f"(best started: {best_started})"
            )
        if fits(victim.requirement, free):
            raise AssertionError(
                f"job {job} is preempted although its resources {victim.requirement} were not "
                f"needed (they are still free after the decision: {free})"
            )


def _candidate(
    c: Contender, head: Contender, equal: bool, unstopped: set[JobId] | frozenset[JobId]
) -> bool:
    """Whether running job `c` may be a victim of `head` (lower, or equal and unstopped)."""
    if c.priority < head.priority:
        return True
    return equal and c.priority == head.priority and c.job in unstopped


def check_victims_needed(
    snapshot: NodeSnapshot,
    decision: Decision,
    *,
    victims: str = "lower",
    tolerance: float = 1e-9,
) -> None:
    """Every preempted job was needed by a strictly higher-priority job, at that moment.

    Audits the decision's explanation
    ([`Decision.rounds`][schedlib.preemption.decision.Decision]): each round
    names the job $J$ it makes room for, its victims $V_1, \\dots, V_m$ and
    the free vector $F$ before it. For every round:

    $$ P(V_i) < P(J), \\qquad R_J \\le F + \\sum_i R_{V_i}, \\qquad
       R_J \not\\le F + \\sum_{i \ne j} R_{V_i} \\ \text{for every } j $$

    — the victims have strictly lower priority, they make room for $J$, and
    each one is needed ("just the right amount", Balasubramanian et al. 2013,
    §5.1, `FindOptimal`). With `victims="equal"` a victim may also have
    $P(V_i) = P(J)$ if it was running when the decision began and is not a
    victim of an earlier round. Every preempted job is a victim of some
    round, $J$ ends up running, the first round's $F$ is at most the
    snapshot's free vector, and each round's $F$ follows from the previous
    round.

    The property is per round, as the algorithm decides: a victim needed for
    the first job may look unneeded in hindsight once a later round frees
    more (the Priority and preemption page shows such a case).

    Raises
    ------
    AssertionError
        Naming the round and the victim or inconsistency.
    InvalidValueError
        For an unknown `victims` reading.

    Examples
    --------
    The case from the reliability audit: job 1 is stopped for job 4 although
    job 2's three cores suffice — job 1 would only make room for job 3, of
    equal priority:

    >>> from schedlib.preemption.decision import Contender, Decision, PreemptionRound
    >>> snap = NodeSnapshot(
    ...     (4,), running=(Contender(1, (1,), -4.0, 0), Contender(2, (3,), -4.0, 0)),
    ...     waiting=(Contender(4, (2,), -2.0, 0), Contender(3, (2,), -4.0, 0)))
    >>> lazy = Decision(preempt=(1, 2), start=(4, 3),
    ...                 rounds=[PreemptionRound(head=4, victims=(1, 2), free=(0,))])
    >>> check_victims_needed(snap, lazy)
    Traceback (most recent call last):
    ...
    AssertionError: round 1 (for job 4): victim 1 is not needed: job 4's (2,) fits in (3,) ...
    """
    equal = _reading(victims)
    jobs = {c.job: c for c in snapshot.running + snapshot.waiting}
    unexplained = set(decision.preempt) - {v for r in decision.rounds for v in r.victims}
    if unexplained:
        raise AssertionError(
            f"jobs {sorted(unexplained)} are preempted but no round of the decision names them"
        )
    after = _after(snapshot, decision)
    running = {c.job for c in after.running}
    unstopped = {c.job for c in snapshot.running}
    expected: list[float] = list(free_vector(snapshot))
    first = True
    for number, rnd in enumerate(decision.rounds, start=1):
        where = f"round {number} (for job {rnd.head})"
        if rnd.head not in jobs:
            raise AssertionError(f"{where}: job {rnd.head} is not on the node")
        head = jobs[rnd.head]
        free = rnd.free
        if len(free) != len(expected):
            raise AssertionError(f"{where}: free vector {free} has the wrong number of kinds")
        slack = [tolerance * max(1.0, abs(e)) for e in expected]
        if first and any(f > e + t for f, e, t in zip(free, expected, slack, strict=True)):
            raise AssertionError(f"{where}: free vector {free} exceeds the snapshot's {expected}")
        if not first and any(abs(f - e) > t for f, e, t in zip(free, expected, slack, strict=True)):
            raise AssertionError(
                f"{where}: free vector {free}, the previous round leaves {expected}"
            )
        first = False
        if rnd.head not in running:
            raise AssertionError(f"{where}: job {rnd.head} does not run after the decision")
        chosen = []
        for v in rnd.victims:
            if v not in jobs:
                raise AssertionError(f"{where}: victim {v} is not on the node")
            victim = jobs[v]
            if not _candidate(victim, head, equal, unstopped):
                rule = (
                    "not below it, nor equal and running since before the decision"
                    if equal
                    else "not strictly below"
                )
                raise AssertionError(
                    f"{where}: victim {v} has priority {victim.priority}, {rule} "
                    f"job {rnd.head}'s {head.priority}"
                )
            chosen.append(victim)
        unstopped.difference_update(rnd.victims)
        released = add(free, total((c.requirement for c in chosen), len(free)))
        if not fits(head.requirement, released):
            raise AssertionError(
                f"{where}: job {rnd.head}'s {head.requirement} does not fit in {released}"
            )
        for victim in chosen:
            without = tuple(r - a for r, a in zip(released, victim.requirement, strict=True))
            if fits(head.requirement, without):
                raise AssertionError(
                    f"{where}: victim {victim.job} is not needed: job {rnd.head}'s "
                    f"{head.requirement} fits in {without} without it"
                )
        expected = [r - a for r, a in zip(released, head.requirement, strict=True)]


def _paper_victim_order(c: Contender, capacity: Vector) -> tuple[float, float, Time, JobId]:
    """Victim order as §5.1 states it (with our tie rules), restated so that the checker does not
    trust [`victim_key`][schedlib.preemption.decision.victim_key]: lowest priority first, then
    the smaller requirement as a share of the node ($\\sum_k R^k / C^k$, the paper's $J'_{Rmin}$),
    then arrival, then id."""
    share = sum(r / k for r, k in zip(c.requirement, capacity, strict=True) if k)
    return (c.priority, share, c.arrival, c.job)


def check_victim_order(
    snapshot: NodeSnapshot,
    decision: Decision,
    *,
    victims: str = "lower",
    tolerance: float = 1e-9,
) -> None:
    """Each round preempts the lowest candidates in victim order, sparing the highest it can.

    A round of [`Decision.rounds`][schedlib.preemption.decision.Decision] makes
    room for job $J$ with the free vector $F$; its candidates are the jobs
    running just before it (the round's `running`) that $J$ may preempt
    (strictly lower priority; with `victims="equal"` also equal priority,
    running since before the decision and not yet stopped in it), in victim
    order $C_1, \\dots, C_n$ (lowest priority first, then the smaller requirement as a
    share of the node, the paper's $J'_{Rmin}$, then arrival, then id: the order
    [`victim_key`][schedlib.preemption.decision.victim_key] implements, restated here).
    With $S$ the round's victims, checks for every candidate

    $$ C_i \\in S \\iff R_J \\not\\le F + \\sum_{j < i} R_{C_j}
       + \\sum_{j > i,\\ C_j \\in S} R_{C_j} $$

    — a candidate is preempted exactly when $J$ could not fit without it,
    taking every candidate before it in victim order and keeping the choices
    made for the candidates after it. This is Algorithm 1's "lowest priority
    first" (`FindJobstoPreempt`) followed by "just the right amount"
    (`FindOptimal`) read as: among the victim sets that make room, the one
    that spares the candidates latest in victim order (its membership,
    read from $C_n$ down to $C_1$, is lexicographically least).

    It also checks the rounds' `running` lists: the first holds the
    snapshot's running jobs plus waiting ones (started by the fill) and
    leaves exactly $F$ free; each next one is the previous minus its victims
    plus its job.

    Raises
    ------
    AssertionError
        Naming the round and the candidate wrongly spared or taken.
    InvalidValueError
        For an unknown `victims` reading.

    Examples
    --------
    Job 9 needs 2 cores; of the three 1-core jobs below it, the two lowest
    must be taken and the -500 job spared:

    >>> from schedlib.preemption.decision import (Contender, Decision, NodeSnapshot,
    ...                                           PreemptionRound)
    >>> snap = NodeSnapshot((3,), running=(Contender(3, (1,), -900.0, 0),
    ...     Contender(4, (1,), -1000.0, 0), Contender(5, (1,), -500.0, 0)),
    ...     waiting=(Contender(9, (2,), -100.0, 7),))
    >>> wrong = Decision(preempt=(5, 3), start=(9,),
    ...     rounds=[PreemptionRound(9, victims=(5, 3), free=(0,), running=(3, 4, 5))])
    >>> check_victim_order(snap, wrong)
    Traceback (most recent call last):
    ...
    AssertionError: round 1 (for job 9): candidate 3 is preempted although job 9 fits ...
    """
    equal = _reading(victims)
    jobs = {c.job: c for c in snapshot.running + snapshot.waiting}
    capacity = snapshot.capacity
    kinds = len(capacity)
    unstopped = {c.job for c in snapshot.running}
    previous: set[JobId] | None = None
    for number, rnd in enumerate(decision.rounds, start=1):
        where = f"round {number} (for job {rnd.head})"
        unknown = [j for j in (rnd.head, *rnd.running, *rnd.victims) if j not in jobs]
        if unknown:
            raise AssertionError(f"{where}: jobs {unknown} are not on the node")
        running = set(rnd.running)
        if previous is None:
            missing = unstopped - running
            extra = [j for j in running - unstopped if j not in {c.job for c in snapshot.waiting}]
            if missing or extra:
                raise AssertionError(
                    f"{where}: running {sorted(running)} should hold the snapshot's running "
                    f"jobs (missing {sorted(missing)}) and only waiting ones besides"
                )
        elif running != previous:
            raise AssertionError(
                f"{where}: running {sorted(running)}, the previous round leaves {sorted(previous)}"
            )
        used = total((jobs[j].requirement for j in running), kinds)
        left = [c - u for c, u in zip(capacity, used, strict=True)]
        if any(
            abs(f - e) > tolerance * max(1.0, abs(c))
            for f, e, c in zip(rnd.free, left, capacity, strict=True)
        ):
            raise AssertionError(f"{where}: free vector {rnd.free}, its running jobs leave {left}")
        head = jobs[rnd.head]
        order = sorted(
            (jobs[j] for j in running if _candidate(jobs[j], head, equal, unstopped)),
            key=lambda c: _paper_victim_order(c, capacity),
        )
        chosen = set(rnd.victims)
        strays = chosen - {c.job for c in order}
        if strays:
            raise AssertionError(f"{where}: victims {sorted(strays)} are not candidates")
        for i, c in enumerate(order):
            others = [d.requirement for d in order[:i]]
            others += [d.requirement for d in order[i + 1 :] if d.job in chosen]
            needed = not fits(head.requirement, add(rnd.free, total(others, kinds)))
            if needed and c.job not in chosen:
                raise AssertionError(
                    f"{where}: candidate {c.job} is spared although job {rnd.head} cannot fit "
                    "without it (taking every candidate before it in victim order)"
                )
            if not needed and c.job in chosen:
                raise AssertionError(
                    f"{where}: candidate {c.job} is preempted although job {rnd.head} fits "
                    "without it (taking every candidate before it in victim order)"
                )
        unstopped.difference_update(chosen)
        previous = (running - chosen) | {rnd.head}


def check_waiting_blocked(
    snapshot: NodeSnapshot, decision: Decision, *, best_only: bool = False
) -> None:
    """No waiting job could start even by preempting every lower-priority running job.

    After the decision, for each waiting job $J$ (only the best ones with
    `best_only=True`, our reading of the paper's statement):

    $$ R_J \\not\\le R_f + \\sum_{J' \\text{ running},\\ P(J') < P(J)} R_{J'} $$

    The starvation bound needs it for every waiting job (the default). It holds
    under both readings of the victims: with equal-priority victims
    (`victims="equal"` of
    [`schedule_preemptive`][schedlib.preemption.decision.schedule_preemptive]) a
    job of priority $P(J)$ may take cores $J$ could not, but only cores $J$
    could not have reached through strictly lower jobs either.

    Raises
    ------
    AssertionError
        Naming the waiting job and the vector it would fit in.
    """
    after = _after(snapshot, decision)
    free = free_vector(after)
    waiting = after.waiting
    if best_only and waiting:
        top = max(c.priority for c in waiting)
        waiting = tuple(c for c in waiting if c.priority == top)
    for c in waiting:
        lower = [r.requirement for r in after.running if r.priority < c.priority]
        available = add(free, total(lower, len(free)))
        if fits(c.requirement, available):
            raise AssertionError(
                f"job {c.job} (priority {c.priority}) waits although preempting the running "
                f"jobs of lower priority would free {available}, enough for {c.requirement}"
            )


def check_decision(snapshot: NodeSnapshot, decision: Decision, *, victims: str = "lower") -> None:
    """All decision-level properties of the preemptive policy.

    Runs [`check_decision_valid`][schedlib.testing.invariants.check_decision_valid],
    [`check_fill_maximal`][schedlib.testing.invariants.check_fill_maximal],
    [`check_preemptions_justified`][schedlib.testing.invariants.check_preemptions_justified],
    [`check_victims_needed`][schedlib.testing.invariants.check_victims_needed],
    [`check_victim_order`][schedlib.testing.invariants.check_victim_order]
    and [`check_waiting_blocked`][schedlib.testing.invariants.check_waiting_blocked],
    under the reading `victims` (`"lower"` or `"equal"`) where it matters.
    """
    check_decision_valid(snapshot, decision)
    check_fill_maximal(snapshot, decision)
    check_preemptions_justified(snapshot, decision, victims=victims)
    check_victims_needed(snapshot, decision, victims=victims)
    check_victim_order(snapshot, decision, victims=victims)
    check_waiting_blocked(snapshot, decision)


# -- run level ---------------------------------------------------------------------------


def _requirements(record: RunRecord) -> dict[JobId, Vector]:
    return {job.id: tuple(job.requirement) for job in record.workload}


def _node_of(place: Sequence[int], event: str) -> int:
    assert len(place) == 1, f"{event}: place {list(place)} should name one node"
    return place[0]


def check_node_capacity(
    record: RunRecord, nodes: Sequence[GridNode], *, tolerance: float = _TOLERANCE
) -> None:
    """No resource of any node is oversubscribed at any instant.

    Sweeps the execution segments of every node (half-open: a segment ending
    at $t$ frees its resources for one starting at $t$) and checks, in every
    kind, that the running jobs' requirements add up to at most the node's
    capacity.

    Parameters
    ----------
    record
        The run (places `(node,)`, workload of grid jobs).
    nodes
        The grid's nodes, `nodes[i].id == i`.
    tolerance
        Relative slack for non-integer amounts.

    Raises
    ------
    AssertionError
        Naming the node, the time, the kind and the jobs running.
    """
    need = _requirements(record)
    by_node: dict[int, list[Segment]] = {}
    for seg in execution_segments(record):
        node = _node_of(seg.place, f"job {seg.job}")
        assert 0 <= node < len(nodes), f"job {seg.job} runs on node {node}, not in the grid"
        by_node.setdefault(node, []).append(seg)
    for node, segments in by_node.items():
        capacity = nodes[node].capacity
        points: list[tuple[Time, int, JobId]] = []
        for seg in segments:
            if seg.end > seg.start:
                points.append((seg.start, 1, seg.job))
                points.append((seg.end, 0, seg.job))
        points.sort()
        running: set[JobId] = set()
        for time, starts, job in points:
            if not starts:
                running.discard(job)
                continue
            running.add(job)
            used = total((need[j] for j in running), len(capacity))
            for k, (u, c) in enumerate(zip(used, capacity, strict=True)):
                assert u <= c + tolerance * max(1.0, abs(c)), (
                    f"node {node} oversubscribed at t={time}: kind {k} uses {u} > capacity {c} "
                    f"(jobs {sorted(running)})"
                )


def is_balancing_move(event: JobEvent) -> bool:
    """Whether a `MIGRATE` is a queue-balancing move (the job joins a queue, not a core).

    Examples
    --------
    >>> from schedlib.model import EventKind as K, JobEvent
    >>> is_balancing_move(JobEvent(0, 1, K.MIGRATE, (2,), detail="balance from 0"))
    True
    """
    return event.kind is EventKind.MIGRATE and event.detail.startswith(BALANCE_DETAIL)


def check_migrations_start(
    record: RunRecord,
    nodes: Sequence[GridNode],
    *,
    queued: Callable[[JobEvent], bool] = is_balancing_move,
    receiver: str = "fit",
    tolerance: float = _TOLERANCE,
) -> None:
    """A migrated job fits its receiver and starts there at once.

    Every `MIGRATE` of a job that is not running must be followed, as the
    job's next event and at the same instant, by its `START` on the receiver,
    and the job must fit the receiver's free vector at that moment. Moves for
    which `queued(event)` holds (queue balancing) only need the job not to
    be running and the receiver's capacity to cover it. With
    `receiver="preempt"` (a PUSH may preempt at the receiver,
    [`PUSH_RECEIVERS`][schedlib.preemption.migration.PUSH_RECEIVERS]) a pushed job
    must still start at once, after the receiver's preemptions at that instant, so its
    fit is left to [`check_node_capacity`][schedlib.testing.invariants.check_node_capacity].

    Raises
    ------
    AssertionError
        Naming the job, the time and the receiver.
    """
    need = _requirements(record)
    events = record.events
    following: list[JobEvent | None] = [None] * len(events)
    later: dict[JobId, JobEvent] = {}
    for n in range(len(events) - 1, -1, -1):
        following[n] = later.get(events[n].job)
        later[events[n].job] = events[n]
    used: dict[int, Vector] = {}
    running: dict[JobId, int] = {}
    ends = (EventKind.PREEMPT, EventKind.COMPLETE, EventKind.KILL, EventKind.FAIL)
    for n, e in enumerate(events):
        if e.kind is EventKind.START:
            node = _node_of(e.place, f"start of job {e.job}")
            used[node] = add(used.get(node, (0,) * len(need[e.job])), need[e.job])
            running[e.job] = node
        elif e.kind in ends and e.job in running:
            node = running.pop(e.job)
            used[node] = tuple(u - r for u, r in zip(used[node], need[e.job], strict=True))
        if e.kind is not EventKind.MIGRATE:
            continue
        target = _node_of(e.place, f"migration of job {e.job}")
        assert e.job not in running, (
            f"job {e.job} migrates to node {target} at t={e.time} while running"
        )
        capacity = nodes[target].capacity
        assert fits(need[e.job], capacity), (
            f"job {e.job} migrates at t={e.time} to node {target}, whose capacity {capacity} "
            f"cannot hold {need[e.job]}"
        )
        if queued(e):
            continue
        nxt = following[n]
        assert (
            nxt is not None
            and nxt.kind is EventKind.START
            and nxt.time == e.time
            and nxt.place == e.place
        ), (
            f"job {e.job} migrates to node {target} at t={e.time} but does not start there at "
            f"once (next: {nxt})"
        )
        if receiver == "preempt" and e.detail.startswith(PUSH_DETAIL):
            continue
        held = used.get(target, (0,) * len(capacity))
        free = tuple(c - u for c, u in zip(capacity, held, strict=True))
        assert all(
            r <= f + tolerance * max(1.0, abs(c))
            for r, f, c in zip(need[e.job], free, capacity, strict=True)
        ), f"job {e.job} migrates to node {target} at t={e.time} but does not fit its free {free}"


def _job_segments(record: RunRecord) -> dict[JobId, list[Segment]]:
    out: dict[JobId, list[Segment]] = {}
    for seg in sorted(execution_segments(record), key=lambda s: (s.start, s.end)):
        out.setdefault(seg.job, []).append(seg)
    return out


def _progress(
    segments: Sequence[Segment], nodes: Sequence[GridNode], overhead: Time, before: Time
) -> Time:
    """Canonical work done by `segments` up to `before` (the first segment pays no overhead)."""
    done = 0.0
    for n, seg in enumerate(segments):
        if seg.start >= before:
            break
        end = min(seg.end, before)
        done += progress_made(end - seg.start, nodes[seg.place[0]].speed, overhead if n else 0.0)
    return done


def check_progress_conserved(
    record: RunRecord,
    nodes: Sequence[GridNode],
    *,
    overhead: Time = 0.0,
    tolerance: float = 1e-6,
) -> None:
    """Run segments add up to the work: progress survives preemption and migration.

    For every completed job, with segments $\\ell_1, \\dots, \\ell_m$ on nodes
    of speeds $s_1, \\dots, s_m$ (every segment after the first resumes a
    preempted job and first pays the overhead $c$):

    $$ \\sum_i \\max(0, \\ell_i - c\\,[i > 1]) \\, s_i = \\text{runtime} $$

    Parameters
    ----------
    record
        The run.
    nodes
        The grid's nodes.
    overhead
        $c$, the run's preemption overhead.
    tolerance
        Relative slack (times are floats).

    Raises
    ------
    AssertionError
        Naming the job, the work done and its runtime.
    """
    segments = _job_segments(record)
    outcomes = record.outcome_map()
    for job in record.workload:
        outcome = outcomes[job.id]
        if outcome.state is None or outcome.state.value != "completed":
            continue
        done = _progress(segments.get(job.id, []), nodes, overhead, math.inf)
        assert abs(done - job.runtime) <= tolerance * max(1.0, job.runtime), (
            f"job {job.id} completed after {done} canonical seconds of work in "
            f"{len(segments.get(job.id, []))} segment(s), but its runtime is {job.runtime}"
        )


def _stays(record: RunRecord) -> dict[int, list[tuple[JobId, Time, Time, bool]]]:
    """Per node: (job, arrival, departure, by balancing) of every stay of a job there."""
    stays: dict[int, list[tuple[JobId, Time, Time, bool]]] = {}
    current: dict[JobId, tuple[int, Time, bool]] = {}
    for e in record.events:
        if e.kind in (EventKind.ASSIGN, EventKind.MIGRATE):
            if e.job in current:
                node, since, balanced = current.pop(e.job)
                stays.setdefault(node, []).append((e.job, since, e.time, balanced))
            current[e.job] = (e.place[0], e.time, is_balancing_move(e))
        elif e.kind is EventKind.COMPLETE and e.job in current:
            node, since, balanced = current.pop(e.job)
            stays.setdefault(node, []).append((e.job, since, e.time, balanced))
    for job, (node, since, balanced) in current.items():
        stays.setdefault(node, []).append((job, since, math.inf, balanced))
    return stays


def _spells(
    record: RunRecord,
) -> list[tuple[JobId, int, Time, Time, Time, bool]]:
    """Waiting spells: (job, node, stay arrival, spell start, spell end, began by balancing)."""
    spells = []
    place: dict[JobId, tuple[int, Time, bool]] = {}
    waiting_since: dict[JobId, Time] = {}
    for e in record.events:
        if e.kind in (EventKind.ASSIGN, EventKind.MIGRATE):
            if e.job in waiting_since:
                node, arrival, balanced = place[e.job]
                begin = waiting_since.pop(e.job)
                spells.append((e.job, node, arrival, begin, e.time, balanced and begin == arrival))
            place[e.job] = (e.place[0], e.time, is_balancing_move(e))
            waiting_since[e.job] = e.time
        elif e.kind is EventKind.START and e.job in waiting_since:
            node, arrival, balanced = place[e.job]
            begin = waiting_since.pop(e.job)
            spells.append((e.job, node, arrival, begin, e.time, balanced and begin == arrival))
        elif e.kind is EventKind.PREEMPT:
            waiting_since[e.job] = e.time
    return spells


def check_no_starvation(
    record: RunRecord,
    nodes: Sequence[GridNode],
    *,
    alpha: float,
    beta: float,
    delta: Time = 0.0,
    overhead: Time = 0.0,
    tolerance: float = 1e-6,
) -> None:
    """Every waiting spell is at most the starvation bound of `schedlib.preemption.priority`.

    For a spell of job $J$ on a node of speed $s$, from $b$ (arrival or
    preemption) to its end (start or migration): $W_J(b)$ is $J$'s
    non-executing time on the node before $b$, $T_J$ its estimated remaining
    time there, $h_J = b - W_J(b) + \\beta T_J / \\alpha$ the horizon, and
    $S_J$ the other jobs present on the node during the spell that arrived
    there no later than $h_J$. Checks

    $$ t_{end} - b \\le \\sum_{K \\in S_J} \\Big(\\frac{r_K}{s} + c\\, n_K\\Big)
       + \\delta\\,[\\text{balancing arrival}] $$

    with $r_K$ the remaining canonical work of $K$ when the overlap begins
    and $n_K$ its segments on the node during the spell.

    Parameters
    ----------
    record
        The run (workload of grid jobs with `estimate` and `runtime`).
    nodes
        The grid's nodes.
    alpha, beta
        The priority weights the run used; `alpha > 0` (with `alpha = 0`
        there is no bound).
    delta
        The run's tick interval (only for queue-balancing arrivals).
    overhead
        The run's preemption overhead.
    tolerance
        Relative slack.

    Raises
    ------
    InvalidValueError
        If `alpha <= 0`.
    AssertionError
        Naming the job, node, spell, its length and the bound.
    """
    if not alpha > 0:
        raise InvalidValueError("alpha", alpha, "must be > 0: with alpha = 0 no wait is bounded")
    jobs: Mapping[JobId, Any] = {job.id: job for job in record.workload}
    segments = _job_segments(record)
    stays = _stays(record)
    for job_id, node, arrival, begin, end, balanced in _spells(record):
        speed = nodes[node].speed
        own = segments.get(job_id, [])
        ran_here = sum(
            min(s.end, begin) - max(s.start, arrival)
            for s in own
            if s.place == (node,) and s.start < begin and s.end > arrival
        )
        wait_before = (begin - arrival) - ran_here
        job = jobs[job_id]
        before = [s for s in own if s.start < begin]
        owed = overhead if before else 0.0
        remaining = owed + max(0.0, job.estimate - _progress(own, nodes, overhead, begin)) / speed
        horizon = begin + overtake_window(wait_before, remaining, alpha=alpha, beta=beta)
        work: list[Time] = []
        pieces = 0
        for other, came, left, _ in stays.get(node, []):
            if other == job_id or came > horizon or left <= begin or came >= end:
                continue
            theirs = segments.get(other, [])
            work.append(jobs[other].runtime - _progress(theirs, nodes, overhead, max(begin, came)))
            pieces += sum(
                1
                for s in theirs
                if s.place == (node,) and s.start < end and s.end > begin and s.end > came
            )
        bound = starvation_bound(
            work, speed=speed, overhead=overhead, segments=pieces, delta=delta if balanced else 0.0
        )
        assert end - begin <= bound + tolerance * max(1.0, bound), (
            f"job {job_id} waited {end - begin} s on node {node} from t={begin} (horizon "
            f"{horizon}), more than the bound {bound} from {len(work)} competing job(s)"
        )


def check_push_sends_best(
    record: RunRecord,
    nodes: Sequence[GridNode],
    *,
    alpha: float,
    beta: float,
    overhead: Time = 0.0,
    tolerance: float = 1e-9,
) -> None:
    """PUSH offers the head of the sender's queue: no job waiting there ranks above the pushed one.

    For every `MIGRATE` logged as a PUSH (detail `push from i`) at $t$, the
    jobs waiting on node $i$ just before it (in log order, so after node
    $i$'s own decision at $t$) are ranked as the local decision ranks them
    ([`rank_key`][schedlib.preemption.decision.rank_key]): priority
    $P = \\alpha W - \\beta T_{rem}$ highest first, then arrival at the node,
    then id, with

    $$ W = (t - a_i) - \\text{time executed on } i \\text{ since } a_i, \\qquad
       T_{rem} = c\\,[\\text{preempted before}] + \\max\\Big(0,\\ e - \\sum_k
       \\max(0, \\ell_k - c\\,[k > 1])\\, s_k\\Big) / s_i $$

    ($a_i$ its arrival at node $i$, $e$ its estimate, $\\ell_k$ and $s_k$ the
    lengths and node speeds of its execution segments so far, $c$ the
    overhead). The pushed job must come first (Balasubramanian et al. 2013,
    §5.3: "the job at the head of the queue ... is pushed").

    Parameters
    ----------
    record
        The run (places `(node,)`, workload of grid jobs with `estimate`).
    nodes
        The grid's nodes.
    alpha, beta, overhead
        The priority weights and the preemption overhead the run used.
    tolerance
        Relative slack when comparing priorities: they are recomputed here
        exactly (fractions of the record's times), while the run's stored
        estimates were reduced in floats at each preemption. Equal priorities
        are compared by arrival and id when exactly equal, as the decisions
        compare them ([`ExactPriority`][schedlib.preemption.priority.ExactPriority]).

    Raises
    ------
    AssertionError
        Naming the push, the pushed job and the waiting job that ranks above it.

    Examples
    --------
    Node 0 holds jobs 1 (running) and 2, 3 (waiting, 3 the shorter); node 1 is
    idle: a push that sends job 2 is refused.

    >>> from schedlib.model import EventKind as K, JobEvent, RunRecord
    >>> from schedlib.preemption.resources import GridJob, GridNode
    >>> jobs = [GridJob(1, 0, (1,), 50, 50), GridJob(2, 0, (1,), 40, 40),
    ...         GridJob(3, 0, (1,), 30, 30)]
    >>> log = [JobEvent(0, j, K.SUBMIT) for j in (1, 2, 3)]
    >>> log += [JobEvent(0, j, K.ASSIGN, (0,)) for j in (1, 2, 3)]
    >>> log += [JobEvent(0, 1, K.START, (0,)),
    ...         JobEvent(5, 2, K.MIGRATE, (1,), detail="push from 0")]
    >>> record = RunRecord.from_log("x", jobs, log, capacity=2)
    >>> check_push_sends_best(record, [GridNode(0, (1,)), GridNode(1, (1,))], alpha=0, beta=1)
    Traceback (most recent call last):
    ...
    AssertionError: push of job 2 from node 0 at t=5: job 3 waits there with priority -30.0 ...
    """
    estimate = {job.id: job.estimate for job in record.workload}
    where: dict[JobId, tuple[int, Time]] = {}  # job -> (node, arrival there)
    since: dict[JobId, tuple[int, Time]] = {}  # running job -> (node, segment start)
    segments: dict[JobId, list[tuple[int, Time, Time]]] = {}
    finished: set[JobId] = set()
    stops = (EventKind.PREEMPT, EventKind.COMPLETE, EventKind.KILL, EventKind.FAIL)

    zero, cost = Fraction(0), Fraction(overhead)

    def rank(job: JobId, node: int, now: Time) -> tuple[Fraction, Time, JobId]:
        # Exact: a difference of times rounds, and equal priorities must stay equal.
        arrival = where[job][1]
        done, ran_here = zero, zero
        for k, (place, start, end) in enumerate(segments.get(job, [])):
            ran = Fraction(end) - Fraction(start)
            done += max(zero, ran - (cost if k else zero)) * Fraction(nodes[place].speed)
            if place == node and start >= arrival:
                ran_here += ran
        owed = cost if segments.get(job) else zero
        left = max(zero, Fraction(estimate[job]) - done) / Fraction(nodes[node].speed)
        wait = Fraction(now) - Fraction(arrival) - ran_here
        return (Fraction(alpha) * wait - Fraction(beta) * (owed + left), arrival, job)

    for e in record.events:
        if e.kind is EventKind.START:
            since[e.job] = (_node_of(e.place, f"start of job {e.job}"), e.time)
        elif e.kind in stops:
            if e.job in since:
                node, start = since.pop(e.job)
                segments.setdefault(e.job, []).append((node, start, e.time))
            if e.kind is not EventKind.PREEMPT:
                finished.add(e.job)
        elif e.kind in (EventKind.ASSIGN, EventKind.MIGRATE):
            target = _node_of(e.place, f"placement of job {e.job}")
            if e.kind is EventKind.MIGRATE and e.detail.startswith(PUSH_DETAIL):
                sender = int(e.detail[len(PUSH_DETAIL) :])
                assert where.get(e.job, (None,))[0] == sender, (
                    f"job {e.job} is pushed from node {sender} at t={e.time} but does not "
                    "wait there"
                )
                pushed = rank(e.job, sender, e.time)
                slack = Fraction(tolerance) * max(Fraction(1), abs(pushed[0]))
                for other, (node, _) in where.items():
                    if node != sender or other == e.job or other in since or other in finished:
                        continue
                    theirs = rank(other, sender, e.time)
                    if theirs[0] > pushed[0] + slack or (
                        theirs[0] == pushed[0] and theirs[1:] < pushed[1:]
                    ):
                        raise AssertionError(
                            f"push of job {e.job} from node {sender} at t={e.time}: job {other} "
                            f"waits there with priority {float(theirs[0])} (arrived {theirs[1]}), "
                            f"ranking above the pushed job's {float(pushed[0])} "
                            f"(arrived {pushed[1]})"
                        )
            where[e.job] = (target, e.time)
