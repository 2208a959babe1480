r"""Checkers for pools run by PFS / MFS and their baselines (the CSS 600 term report).

Run-level checkers take a [`RunRecord`][schedlib.model.RunRecord] whose
workload jobs have `id`, `submit` and `work` (one entry per CPU burst, as
[`PoolJob`][schedlib.frequency.pool.PoolJob]) and whose log is written the way
[`simulate_pool`][schedlib.frequency.simulation.simulate_pool] writes it:
burst-level `ASSIGN` / `START` / `PREEMPT` / `COMPLETE` / `MIGRATE` with
`task` = the burst and `place` = `(node,)`; the counters in the details
(`PF=k` on `PREEMPT` and burst `COMPLETE`, `MF=m` on `MIGRATE`); the marks
`to remote queue` on a `PREEMPT` that sends the job to the remote queue and
`banned` on the `MIGRATE` that bans it. Some also take the nodes
([`PoolNode`][schedlib.frequency.pool.PoolNode]: `speed`, `availability`,
`rate`). Use them with the common ones (`check_every_job_accounted`,
`check_lifecycle`, `check_capacity`: one job per node at a time).

| property | checker |
|---|---|
| every burst completes, once, in order | `check_bursts_complete` |
| work survives preemption and migration; a move costs $K$ | `check_work_conserved` |
| $PF$ counts, is 0 after completion, sends at `MAX_PREEMPTION` | `check_preemption_counts` |
| $MF \le$ `MAX_MF` $+ 1$; a banned job never migrates again | `check_migration_limits` |
| jobs done within their first quantum never migrate | `check_short_bursts_stay` |
| the wait bound of round-robin order (PFS, plain round robin) | `check_round_robin_wait` |
| the wait bound of highest-$MF$-first order (MFS) | `check_priority_wait` |
| placements, next bursts, remote-queue decisions, given the loads | `check_pool_decisions` |
| the remote queue emptied each instant, FIFO or highest $MF$ first | `check_dispatch_order` |
| each node starts the job its order picks (PFS, FIFO, MFS) | `check_start_order` |

[`check_pool_run`][schedlib.testing.invariants.check_pool_run] runs every one
that applies to a record of `simulate_pool`, reading the parameters from the
record.

Examples
--------
>>> from schedlib.frequency import PoolJob, PoolNode, simulate_pool
>>> pool = [PoolNode(1), PoolNode(2), PoolNode(1, 0.5)]
>>> jobs = [PoolJob.cpu_bound(1, 0, 9), PoolJob.interactive(2, 1, (0.5, 0.5), (2,))]
>>> record = simulate_pool(jobs, pool, policy="pfs+mfs", quantum=1, max_preemption=2)
>>> check_pool_run(record, pool)

FCFS on the head node alone: the interactive job waits behind the whole
CPU-bound job, far beyond the round-robin bound:

>>> alone = simulate_pool(jobs, [PoolNode(1)], policy="fcfs")
>>> check_round_robin_wait(alone, quantum=1, grace=1)
Traceback (most recent call last):
...
AssertionError: job 2 waited 8.0 s on node 0 from t=1 (R=1, A=0), more than g*Q*(R+A) = 1 s ...
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Iterator, Sequence
from fractions import Fraction
from typing import Any

import attrs

from schedlib.errors import InvalidValueError
from schedlib.frequency.policies import Readings
from schedlib.frequency.pool import HEAD
from schedlib.frequency.simulation import (
    BANNED_DETAIL,
    LANDED_DETAIL,
    NEXT_BURST_DETAIL,
    REMOTE_DETAIL,
    STAYS_DETAIL,
    SUBMITTED_DETAIL,
    UNPREEMPTED_DETAIL,
    detail_count,
)
from schedlib.model import EventKind, JobEvent, JobId, RunRecord, Time
from schedlib.testing.invariants.common import execution_segments

__all__ = [
    "POOL_ORDERS",
    "PoolReplay",
    "WaitSpell",
    "check_bursts_complete",
    "check_dispatch_order",
    "check_grace",
    "check_migration_limits",
    "check_pool_decisions",
    "check_pool_run",
    "check_preemption_counts",
    "check_priority_wait",
    "check_round_robin_wait",
    "check_short_bursts_stay",
    "check_start_order",
    "check_work_conserved",
    "expected_dispatch",
    "replay_pool",
    "wait_spells",
]

_TOLERANCE = 1e-9


def _close(a: float, b: float, tolerance: float) -> bool:
    return abs(a - b) <= tolerance * max(1.0, abs(a), abs(b))


def check_bursts_complete(record: RunRecord) -> None:
    """Every burst of every job completes exactly once, in order, and then the job completes.

    Raises
    ------
    AssertionError
        Naming the job and the burst missing, repeated or out of order.

    Examples
    --------
    >>> from schedlib.frequency import PoolJob, PoolNode, simulate_pool
    >>> jobs = [PoolJob.interactive(1, 0, (1, 2, 3), (1, 1))]
    >>> check_bursts_complete(simulate_pool(jobs, [PoolNode(1)], policy="pfs"))
    """
    done: dict[JobId, list[int]] = {job.id: [] for job in record.workload}
    finished: dict[JobId, Time] = {}
    for e in record.events:
        if e.kind is not EventKind.COMPLETE:
            continue
        if e.task is None:
            finished[e.job] = e.time
            continue
        assert e.job not in finished, f"job {e.job}: burst {e.task} completes after the job"
        expected = len(done[e.job])
        assert e.task == expected, (
            f"job {e.job}: burst {e.task} completes at t={e.time}, expected burst {expected}"
        )
        done[e.job].append(e.task)
    for job in record.workload:
        count = len(job.work)
        assert len(done[job.id]) == count, (
            f"job {job.id}: {len(done[job.id])} of its {count} burst(s) completed"
        )
        assert job.id in finished, f"job {job.id}: all bursts completed but the job did not"


def check_work_conserved(
    record: RunRecord,
    nodes: Sequence[Any],
    *,
    cost: Time,
    tolerance: float = 1e-9,
) -> None:
    """Preemption and migration keep the work done; every migration costs exactly $K$ in transit.

    For every burst $b$ of every job, with execution segments of lengths
    $\\ell_i$ on nodes of rates $r_i$:

    $$ \\sum_i \\ell_i \\, r_i = w_b, $$

    and every `MIGRATE` of a job at $t$ to node $v$ is followed, as the job's
    next entry, by its `ASSIGN` to $v$ (detail `landed`) at exactly $t + K$:
    in transit it neither runs nor waits in a queue, and it arrives with its
    work (a checkpoint, not a restart).

    Parameters
    ----------
    record
        The run.
    nodes
        The pool (`rate` of each node).
    cost
        $K = K_C + K_{C/R}$.
    tolerance
        Relative slack on sums of floats.

    Raises
    ------
    AssertionError
        Naming the job, the burst, the work done and the work needed, or the
        migration that did not land after $K$.
    """
    work: dict[tuple[JobId, int], float] = {}
    for seg in execution_segments(record):
        assert seg.task is not None, f"job {seg.job}: a segment without a burst index"
        key = (seg.job, seg.task)
        work[key] = work.get(key, 0.0) + (seg.end - seg.start) * nodes[seg.place[0]].rate
    for job in record.workload:
        for burst, needed in enumerate(job.work):
            done = work.get((job.id, burst), 0.0)
            assert _close(done, needed, tolerance), (
                f"job {job.id} burst {burst}: {done} of work done in its segments, "
                f"but it needs {needed}"
            )
    in_transit: dict[JobId, JobEvent] = {}
    for e in record.events:
        move = in_transit.pop(e.job, None)
        if move is not None:
            assert (
                e.kind is EventKind.ASSIGN
                and e.place == move.place
                and e.detail == LANDED_DETAIL
                and _close(e.time, move.time + cost, tolerance)
            ), (
                f"job {e.job} migrated to node {move.place[0]} at t={move.time} with K={cost}, "
                f"but its next entry is {e.kind.value} on {list(e.place)} at t={e.time} "
                f"({e.detail!r}), not its landing there at t={move.time + cost}"
            )
        if e.kind is EventKind.MIGRATE:
            in_transit[e.job] = e
    assert not in_transit, f"jobs {sorted(in_transit)} migrated and never landed"


def _is_stay(e: JobEvent) -> bool:
    """Whether `e` is the `ASSIGN` of a remote-queue job that stays on its node."""
    return e.kind is EventKind.ASSIGN and e.detail.startswith(STAYS_DETAIL)


def _is_dispatch(e: JobEvent) -> bool:
    """Whether `e` dispatches a job of the remote queue (it migrates, or it stays)."""
    return e.kind is EventKind.MIGRATE or _is_stay(e)


def _marked_banned(e: JobEvent) -> bool:
    return _is_dispatch(e) and BANNED_DETAIL in e.detail.split("; ")


def _banned_from(record: RunRecord) -> dict[JobId, int]:
    """Per job, the log position of its ban: its first dispatch marked `banned`."""
    banned: dict[JobId, int] = {}
    for n, e in enumerate(record.events):
        if e.job not in banned and _marked_banned(e):
            banned[e.job] = n
    return banned


def check_preemption_counts(
    record: RunRecord,
    *,
    max_preemption: int,
    sending_nodes: Collection[int] = (),
) -> None:
    """$PF$ counts preemptions since its last reset, is 0 after completion, sends at the limit.

    Replays every job's preemption count from the log: it resets to 0 when
    a burst completes, when the job leaves the remote queue (migrated or not)
    and when it migrates, and grows by one at each `PREEMPT`. Checks that

    - each `PREEMPT` logs the replayed count (`PF=k`), and each burst
      `COMPLETE` logs `PF=0` (the reset on completion);
    - a `PREEMPT` sends the job to the remote queue only when $PF \\ge$
      `MAX_PREEMPTION`;
    - on `sending_nodes`, a job that is not banned is sent exactly when its
      count reaches `MAX_PREEMPTION` (so it never exceeds it there). A job
      is banned from its first dispatch marked `banned`.

    Parameters
    ----------
    record
        The run.
    max_preemption
        `MAX_PREEMPTION`.
    sending_nodes
        Nodes that send jobs to the remote queue (PFS: the head node; PFS+MFS:
        every node).

    Raises
    ------
    AssertionError
        Naming the job, the entry and the count expected.
    """
    banned = _banned_from(record)
    pf: dict[JobId, int] = {}
    pending: dict[JobId, bool] = {}  # in the remote queue: reset at the next pass
    for n, e in enumerate(record.events):
        if pending.pop(e.job, False) or e.kind is EventKind.MIGRATE:
            pf[e.job] = 0
        if e.kind is EventKind.PREEMPT:
            count = pf.get(e.job, 0) + 1
            pf[e.job] = count
            logged = detail_count(e.detail, "PF")
            assert logged == count, (
                f"job {e.job} preempted on {list(e.place)} at t={e.time} logs PF={logged}, "
                f"but it has been preempted {count} time(s) since its last reset"
            )
            sent = REMOTE_DETAIL in e.detail
            assert not sent or count >= max_preemption, (
                f"job {e.job} sent to the remote queue at t={e.time} with PF={count} < "
                f"MAX_PREEMPTION={max_preemption}"
            )
            is_banned = e.job in banned and banned[e.job] < n
            if e.place and e.place[0] in sending_nodes and not is_banned:
                assert sent == (count >= max_preemption), (
                    f"job {e.job} on sending node {e.place[0]} at t={e.time}: PF={count}, "
                    f"MAX_PREEMPTION={max_preemption}, but it was "
                    f"{'sent' if sent else 'not sent'} to the remote queue"
                )
            if sent:
                pending[e.job] = True
        elif e.kind is EventKind.COMPLETE and e.task is not None:
            logged = detail_count(e.detail, "PF")
            assert logged == 0, (
                f"job {e.job} completes burst {e.task} at t={e.time} with PF={logged}: "
                "PF must be reset to 0 on completion"
            )
            pf[e.job] = 0


def check_migration_limits(record: RunRecord, nodes: Sequence[Any], *, max_mf: int) -> None:
    """$MF \\le$ `MAX_MF` $+ 1$, the ban move goes to the fastest node, banned jobs stay.

    With $m$ the number of `MIGRATE`s of a job so far:

    - every `MIGRATE` logs `MF=m`, and $m \\le$ `MAX_MF` $+ 1$;
    - a `MIGRATE` is marked `banned` exactly when the job had $m - 1 \\ge$
      `MAX_MF` before it, and then goes to a fastest remote node (highest
      speed); a job that stays is marked `banned` only with $m \\ge$
      `MAX_MF`;
    - a job is banned from its first dispatch marked `banned` (a move to
      the fastest node, or a stay on it): after that it never enters the
      remote queue again and never migrates.

    Parameters
    ----------
    record
        A PFS+MFS run.
    nodes
        The pool (node 0 is the head node; `speed` of each).
    max_mf
        `MAX_MF`.

    Raises
    ------
    AssertionError
        Naming the job and the offending migration.
    """
    fastest = max((node.speed for node in nodes[HEAD + 1 :]), default=None)
    banned = _banned_from(record)
    mf: dict[JobId, int] = {}
    for n, e in enumerate(record.events):
        since = banned.get(e.job)
        if e.kind is EventKind.PREEMPT and REMOTE_DETAIL in e.detail:
            assert since is None or since >= n, (
                f"job {e.job}, banned at entry {since}, enters the remote queue again at t={e.time}"
            )
        if _is_stay(e) and _marked_banned(e):
            assert mf.get(e.job, 0) >= max_mf, (
                f"job {e.job} is banned at t={e.time} with MF={mf.get(e.job, 0)} < MAX_MF={max_mf}"
            )
        if e.kind is not EventKind.MIGRATE:
            continue
        before = mf.get(e.job, 0)
        count = before + 1
        mf[e.job] = count
        assert detail_count(e.detail, "MF") == count, (
            f"job {e.job}'s migration at t={e.time} logs {e.detail!r}, but it is migration {count}"
        )
        assert count <= max_mf + 1, (
            f"job {e.job} migrates a {count}th time at t={e.time}: MF exceeds MAX_MF + 1 = "
            f"{max_mf + 1}"
        )
        marked = BANNED_DETAIL in e.detail
        assert marked == (before >= max_mf), (
            f"job {e.job}'s migration {count} at t={e.time} (MAX_MF={max_mf}) is "
            f"{'' if marked else 'not '}marked banned"
        )
        if marked:
            speed = nodes[e.place[0]].speed
            assert speed == fastest, (
                f"job {e.job} is banned at t={e.time} but sent to node {e.place[0]} of speed "
                f"{speed}, not to a fastest node (speed {fastest})"
            )
        if since is not None and since < n:
            entry = record.events[since]
            raise AssertionError(
                f"job {e.job}, banned at t={entry.time}, migrates again at t={e.time}"
            )


def check_short_bursts_stay(
    record: RunRecord, nodes: Sequence[Any], *, quantum: Time, grace: float = 1.0
) -> None:
    """Jobs whose bursts all finish within their first slice are never preempted or migrated.

    A burst of work $w$ whose first slice is on a node of rate $r$ is
    *short* when $w / r \\le g Q$, compared exactly (with the default $g = 1$: it
    finishes within its first quantum). A job all of whose bursts are short must have no
    `PREEMPT` and no `MIGRATE`.

    Parameters
    ----------
    record
        The run.
    nodes
        The pool (`rate` of each node).
    quantum
        $Q$.
    grace
        $g$ (1 checks "within the first quantum"; the run's $g$ checks the
        stronger "within the first slice").

    Raises
    ------
    AssertionError
        Naming the job and what happened to it.
    """
    bound = Fraction(grace) * Fraction(quantum)

    def _within_grace(work: float, rate: float) -> bool:
        return Fraction(work) <= bound * Fraction(rate)

    first_node: dict[tuple[JobId, int], int] = {}
    moved: dict[JobId, JobEvent] = {}
    for e in record.events:
        if e.kind is EventKind.START and e.task is not None:
            first_node.setdefault((e.job, e.task), e.place[0])
        elif e.kind in (EventKind.PREEMPT, EventKind.MIGRATE):
            moved.setdefault(e.job, e)
    for job in record.workload:
        if job.id not in moved:
            continue
        short = all(  # w / r <= g Q, exactly (rounded, an ulp decides)
            (job.id, b) in first_node and _within_grace(w, nodes[first_node[(job.id, b)]].rate)
            for b, w in enumerate(job.work)
        )
        event = moved[job.id]
        assert not short, (
            f"job {job.id}'s bursts {list(job.work)} all fit in their first quantum "
            f"(Q={quantum}, g={grace}), yet it has a {event.kind.value} at t={event.time}"
        )


def check_grace(record: RunRecord, nodes: Sequence[Any], *, quantum: Time, grace: float) -> None:
    """Every slice ends as the grace rule says, compared exactly.

    Replays each burst's work left, exactly: $w$ at its first slice, less
    $Q r$ for each slice preempted on a node of rate $r$ (with $g \\ge 1$ a
    preempted slice runs a full quantum). A slice on a node of rate $r$ that
    starts with $w'$ left must complete the burst iff $w' / r \\le g Q$, as
    fractions: rounded, an ulp decides (PFS, the test on
    `job.RemainingExecutionTime`; round robin is $g = 1$).

    Parameters
    ----------
    record
        The run (a PFS, PFS+MFS or round-robin record).
    nodes
        The pool (`rate` of each node).
    quantum, grace
        $Q$ and $g$ ($g \\ge 1$).

    Raises
    ------
    AssertionError
        Naming the job, the burst, the slice and the work left.
    """
    bound = Fraction(grace) * Fraction(quantum)
    left: dict[tuple[JobId, int | None], Fraction] = {}
    work = {job.id: job.work for job in record.workload}
    for segment in execution_segments(record):
        if segment.task is None or segment.closed_by not in (EventKind.COMPLETE, EventKind.PREEMPT):
            continue
        key = (segment.job, segment.task)
        rate = Fraction(nodes[segment.place[0]].rate)
        before = left.get(key, Fraction(work[segment.job][segment.task]))
        completes = before <= bound * rate
        assert completes is (segment.closed_by is EventKind.COMPLETE), (
            f"job {segment.job} burst {segment.task}: the slice from t={segment.start} on node "
            f"{segment.place[0]} starts with {float(before)} of work left at rate {float(rate)} "
            f"(w / r {'<=' if completes else '>'} g Q = {grace} * {quantum}) yet ends with "
            f"{segment.closed_by.value}"
        )
        left[key] = before - Fraction(quantum) * rate


@attrs.frozen(slots=True)
class WaitSpell:
    r"""One stretch of time a job waits on a node, with what happened there meanwhile.

    A spell of job $J$ on node $v$ runs from $J$'s `ASSIGN` to $v$ or its
    `PREEMPT` on $v$ (log position $p$, time `begin`) to its next `START` on
    $v$ or its departure from $v$ (position $q$, time `end`).

    Attributes
    ----------
    job, node, begin, end
        The spell.
    slices
        Slices of other jobs on $v$ that overlap it: the one running at $p$,
        and those starting in $(p, q)$.
    resident
        $R$: other jobs on $v$ at $p$ (assigned there and not departed:
        waiting, running, or in the remote queue).
    arrivals
        $A$: `ASSIGN`s of other jobs to $v$ in $(p, q)$.
    mf
        $J$'s migration count during the spell.
    ahead
        The remaining burst work of every other job present on $v$ with a
        migration count $\ge$ `mf`: those resident at $p$ (their work then)
        and those arriving in $(p, q)$ (their work on arrival). Empty when the
        walk was not given the pool.
    """

    job: JobId
    node: int
    begin: Time
    end: Time
    slices: int
    resident: int
    arrivals: int
    mf: int
    ahead: tuple[float, ...]


def wait_spells(record: RunRecord, pool: Sequence[Any] | None = None) -> list[WaitSpell]:
    r"""Every waiting spell of every job (see [`WaitSpell`][schedlib.testing.invariants.WaitSpell]).

    Parameters
    ----------
    record
        The run.
    pool
        The nodes (`rate` of each), to replay the remaining work of the jobs
        and fill `ahead`; `None` leaves it empty.

    Returns
    -------
    list of WaitSpell
        In the order the spells end.

    Notes
    -----
    Complexity: $O(e \cdot s)$ for $e$ log entries and at most $s$ jobs
    waiting on one node at a time.
    """
    work = {job.id: job.work for job in record.workload}
    resident: dict[int, set[JobId]] = {}
    running: dict[int, tuple[JobId, Time]] = {}
    where: dict[JobId, int] = {}
    mf: dict[JobId, int] = {}
    burst: dict[JobId, int] = {}
    left: dict[JobId, float] = {}
    open_: dict[JobId, list[Any]] = {}
    done: list[WaitSpell] = []

    def remaining(job: JobId, now: Time) -> float:
        on = where.get(job)
        run = running.get(on) if on is not None else None
        if pool is None or on is None or run is None or run[0] != job:
            return left.get(job, 0.0)
        rate: float = pool[on].rate
        return left[job] - (now - run[1]) * rate

    def ahead_of(job: JobId, others: Any, now: Time) -> list[float]:
        if pool is None:
            return []
        return [remaining(x, now) for x in others if x != job and mf.get(x, 0) >= mf.get(job, 0)]

    def open_spell(job: JobId, v: int, now: Time) -> None:
        run = running.get(v)
        others = resident.get(v, set()) - {job}
        open_[job] = [v, now, 1 if run is not None and run[0] != job else 0, len(others), 0]
        open_[job].append(ahead_of(job, others, now))

    def close(job: JobId, now: Time) -> None:
        spell = open_.pop(job, None)
        if spell is not None:
            v, begin, slices, r, a, ahead = spell
            done.append(WaitSpell(job, v, begin, now, slices, r, a, mf.get(job, 0), tuple(ahead)))

    for e in record.events:
        kind = e.kind
        if _is_stay(e):
            continue  # back in its node's queue, within the spell its preemption opened
        if kind is EventKind.ASSIGN:
            v = e.place[0]
            if burst.get(e.job) != e.task:
                task = e.task if e.task is not None else 0
                burst[e.job] = task
                left[e.job] = work[e.job][task]
            for job, spell in open_.items():
                if spell[0] == v and job != e.job:
                    spell[4] += 1
                    if pool is not None and mf.get(e.job, 0) >= mf.get(job, 0):
                        spell[5].append(left[e.job])
            resident.setdefault(v, set()).add(e.job)
            where[e.job] = v
            open_spell(e.job, v, e.time)
        elif kind is EventKind.START:
            v = e.place[0]
            close(e.job, e.time)
            running[v] = (e.job, e.time)
            for job, spell in open_.items():
                if spell[0] == v and job != e.job:
                    spell[2] += 1
        elif kind is EventKind.PREEMPT or (kind is EventKind.COMPLETE and e.task is not None):
            v = e.place[0]
            left[e.job] = remaining(e.job, e.time)
            running.pop(v, None)
            if kind is EventKind.PREEMPT:
                open_spell(e.job, v, e.time)
            else:
                resident.get(v, set()).discard(e.job)
                where.pop(e.job, None)
        elif kind is EventKind.MIGRATE:
            close(e.job, e.time)
            mf[e.job] = mf.get(e.job, 0) + 1
            origin = where.pop(e.job, None)
            if origin is not None:
                resident.get(origin, set()).discard(e.job)
    return done


def _spells_on(
    record: RunRecord, pool: Sequence[Any] | None, on: Collection[int] | None
) -> list[WaitSpell]:
    return [spell for spell in wait_spells(record, pool) if on is None or spell.node in on]


def check_round_robin_wait(
    record: RunRecord,
    *,
    quantum: Time,
    grace: float,
    on: Collection[int] | None = None,
    tolerance: float = 1e-9,
) -> None:
    r"""The wait bound of round-robin order: a job waits at most $R + A$ slices of at most $g Q$.

    **Claim.** On a node that serves its queue in PFS order (unpreempted jobs
    first, each queue FIFO, a preempted job at the back of the preempted
    queue) or in plain FIFO round-robin order, and whose slices last at most
    $g Q$, a job $J$ waiting from $b$ (its arrival at the node, or its
    preemption there) to $e$ (its next slice there) sees at most $R + A$
    slices of other jobs, so

    $$ e - b \le g\, Q\, (R + A), $$

    with $R$ the other jobs on the node at $b$ and $A$ the arrivals (new
    jobs, next bursts, migrated jobs) at the node during the wait.

    **Why.** Each other job present at $b$ or arriving during the wait runs
    at most one slice before $J$: an unpreempted job ahead of $J$ runs once
    and then goes behind $J$ (to the preempted queue) or leaves; a preempted
    job ahead of $J$ runs once and goes behind it or leaves; a job behind $J$
    does not run before $J$. A job that leaves and comes back is a new
    arrival. The node never idles while $J$ waits (the pass starts a slice as
    soon as it is free), and every slice lasts at most $g Q$.

    **Assumptions**, each needed (the tests drop each one and find a
    violation): the order is round robin (MFS's highest-$MF$-first order
    breaks it); slices are cut at $g Q$ (FCFS breaks the time part); the
    number of arrivals $A$ is finite (a stream of short jobs starves a
    preempted job under PFS for as long as it lasts: $A$ grows without
    bound).

    Parameters
    ----------
    record
        The run.
    quantum, grace
        $Q$ and $g$ of the run ($g = 1$ for plain round robin).
    on
        Check only the spells on these nodes (`None`: all), e.g. the head
        node of a PFS+MFS run, whose remote nodes use MFS order.
    tolerance
        Relative slack on times.

    Raises
    ------
    AssertionError
        Naming the job, the node, the spell and the counts.
    """
    longest = grace * quantum
    for spell in _spells_on(record, None, on):
        r, a = spell.resident, spell.arrivals
        assert spell.slices <= r + a, (
            f"job {spell.job} waited {spell.slices} slices of other jobs on node {spell.node} "
            f"from t={spell.begin} to t={spell.end}, more than R + A = {r} + {a}"
        )
        bound = longest * (r + a)
        assert spell.end - spell.begin <= bound + tolerance * max(1.0, bound), (
            f"job {spell.job} waited {spell.end - spell.begin} s on node {spell.node} from "
            f"t={spell.begin} (R={r}, A={a}), more than g*Q*(R+A) = {bound} s "
            f"(g={grace}, Q={quantum})"
        )


def check_priority_wait(
    record: RunRecord,
    pool: Sequence[Any],
    *,
    quantum: Time,
    grace: float,
    on: Collection[int] | None = None,
    tolerance: float = 1e-9,
) -> None:
    r"""The wait bound of MFS order: a job waits only for the work of jobs with as many migrations.

    **Claim.** On a node of rate $r$ that serves its queue highest migration
    count first (ties in any order, random included), with slices of at most
    $g Q$, a job $J$ with migration count $MF_J$ waiting from $b$ to $e$
    waits at most

    $$ e - b \le g Q + \frac{1}{r} \sum_{X} w_X
       \qquad\text{and at most}\qquad
       1 + \sum_X \left\lceil \frac{w_X}{Q r} \right\rceil
       \text{ slices,} $$

    the sum over the other jobs $X$ on the node with $MF_X \ge MF_J$ —
    present at $b$, with their remaining burst work $w_X$ then, or arriving
    during the wait, with their work on arrival.

    **Why.** While $J$ waits, the order never picks a job with a lower count
    than $J$'s; a job's count only changes when it leaves the node; the slice
    running at $b$ ends within $g Q$; a job $X$ runs on the node for at most
    its remaining work $w_X / r$ seconds, in at most
    $\lceil w_X / (Q r) \rceil$ slices (each preempted slice does $Q r$
    work). The node never idles while $J$ waits. So a job waits for at most
    the work of the jobs at least as "migrated" as itself: finite for a
    finite workload (no starvation), but not bounded by the number of jobs —
    one long job with a higher count holds it back for its whole length.

    **Assumption**: the order is highest-count first (a lowest-count-first
    order breaks it; so does PFS order, which lets an unpreempted job with a
    lower count go first).

    Parameters
    ----------
    record
        The run.
    pool
        The nodes (`rate` of each).
    quantum, grace
        $Q$ and $g$ of the run.
    on
        Check only the spells on these nodes (`None`: all), e.g. the remote
        nodes of a PFS+MFS run.
    tolerance
        Relative slack on times and works.

    Raises
    ------
    AssertionError
        Naming the job, the node, the spell and the bound.
    """
    for spell in _spells_on(record, pool, on):
        rate = pool[spell.node].rate
        count = 1 + sum(math.ceil(w / (quantum * rate) - tolerance) for w in spell.ahead)
        assert spell.slices <= count, (
            f"job {spell.job} (MF={spell.mf}) waited {spell.slices} slices on node "
            f"{spell.node} from t={spell.begin} to t={spell.end}, more than the {count} "
            f"the work of the {len(spell.ahead)} job(s) with MF >= {spell.mf} needs"
        )
        bound = grace * quantum + sum(spell.ahead) / rate
        assert spell.end - spell.begin <= bound + tolerance * max(1.0, bound), (
            f"job {spell.job} (MF={spell.mf}) waited {spell.end - spell.begin} s on node "
            f"{spell.node} from t={spell.begin}, more than g*Q + sum(w)/r = {bound} s "
            f"({len(spell.ahead)} job(s) with MF >= {spell.mf})"
        )


@attrs.define
class PoolReplay:
    r"""The pool's state rebuilt from a run's log alone, entry by entry.

    [`replay_pool`][schedlib.testing.invariants.frequency.replay_pool] yields each log
    entry with this state *before* the entry is applied: what the scheduler
    knew when it made the decision the entry records. Nothing is read from
    the model; the state follows the log as
    [`simulate_pool`][schedlib.frequency.simulation.simulate_pool] documents it.

    Attributes
    ----------
    resident
        Per node, the jobs on it or travelling to it: $n_i$ of the load
        $A_i = a_i / (n_i + 1)$. A submission or next burst adds its job to
        its node; a completed burst removes it; a migration moves it at once
        from its node to its target (a landing adds nothing).
    waiting
        Per node, `(job, preempted)` of its waiting jobs, in queue order.
    remote
        The remote queue, in the order jobs entered it.
    node, home, last
        Per job: the node it is on (or travelling to); the node its
        submission joined; the node its last completed burst ended on.
    mf
        Per job, its migrations so far.
    """

    resident: list[int]
    waiting: list[list[tuple[JobId, bool]]]
    remote: list[JobId] = attrs.field(factory=list)
    node: dict[JobId, int] = attrs.field(factory=dict)
    home: dict[JobId, int] = attrs.field(factory=dict)
    last: dict[JobId, int] = attrs.field(factory=dict)
    mf: dict[JobId, int] = attrs.field(factory=dict)

    def local(self, v: int) -> tuple[int, int]:
        """`(unpreempted, preempted)` waiting on node `v`."""
        fresh = sum(1 for _, preempted in self.waiting[v] if not preempted)
        return fresh, len(self.waiting[v]) - fresh

    def apply(self, e: JobEvent) -> None:
        """Apply one log entry."""
        j = e.job
        if e.kind is EventKind.ASSIGN:
            v = e.place[0]
            preempted = False
            if _is_stay(e):
                if j in self.remote:
                    self.remote.remove(j)
                preempted = UNPREEMPTED_DETAIL not in e.detail.split("; ")
            elif e.detail != LANDED_DETAIL:
                self.resident[v] += 1
                self.node[j] = v
                if e.detail == SUBMITTED_DETAIL:
                    self.home[j] = v
            self.waiting[v].append((j, preempted))
        elif e.kind is EventKind.START:
            queue = self.waiting[e.place[0]]
            at = next((i for i, (x, _) in enumerate(queue) if x == j), None)
            if at is not None:
                del queue[at]
        elif e.kind is EventKind.PREEMPT:
            if REMOTE_DETAIL in e.detail:
                self.remote.append(j)
            else:
                self.waiting[e.place[0]].append((j, True))
        elif e.kind is EventKind.COMPLETE and e.task is not None:
            self.resident[e.place[0]] -= 1
            self.last[j] = e.place[0]
        elif e.kind is EventKind.MIGRATE:
            if j in self.remote:
                self.remote.remove(j)
            here = self.node.get(j)
            if here is not None:
                self.resident[here] -= 1
            self.resident[e.place[0]] += 1
            self.node[j] = e.place[0]
            self.mf[j] = self.mf.get(j, 0) + 1


def replay_pool(record: RunRecord, size: int) -> Iterator[tuple[JobEvent, PoolReplay]]:
    """Each log entry of a pool run, with the pool's state just before it.

    Parameters
    ----------
    record
        A run of `simulate_pool`.
    size
        The number of nodes.

    Yields
    ------
    tuple of JobEvent and PoolReplay
        The entry and the state before it (one object, updated in place after
        each yield: read it before asking for the next entry).

    Notes
    -----
    Complexity: $O(e \\cdot w)$ for $e$ log entries and at most $w$ jobs
    waiting on a node or in the remote queue.

    Examples
    --------
    >>> from schedlib.frequency import PoolJob, PoolNode, simulate_pool
    >>> jobs = [PoolJob.cpu_bound(1, 0, 3), PoolJob.cpu_bound(2, 0, 3)]
    >>> record = simulate_pool(jobs, [PoolNode(), PoolNode()], quantum=1, max_preemption=1)
    >>> [(e.kind.value, e.job, list(state.resident)) for e, state in replay_pool(record, 2)][3:6]
    [('assign', 2, [1, 0]), ('start', 1, [2, 0]), ('preempt', 1, [2, 0])]
    """
    state = PoolReplay([0] * size, [[] for _ in range(size)])
    for e in record.events:
        yield e, state
        state.apply(e)


def _most_available(
    candidates: Iterable[int], nodes: Sequence[Any], resident: Sequence[int]
) -> int | None:
    """Highest $a / (n + 1)$, then highest speed, then lowest index (an independent oracle)."""
    ranked = sorted(
        candidates,
        key=lambda v: (-(nodes[v].availability / (resident[v] + 1)), -nodes[v].speed, v),
    )
    return ranked[0] if ranked else None


def _fastest(candidates: Iterable[int], nodes: Sequence[Any]) -> int | None:
    ranked = sorted(candidates, key=lambda v: (-nodes[v].speed, -nodes[v].availability, v))
    return ranked[0] if ranked else None


def _loads(nodes: Sequence[Any], resident: Sequence[int], on: Iterable[int]) -> str:
    def one(v: int) -> str:
        a, n = nodes[v].availability, resident[v]
        return f"node {v}: a={a}, n={n}, A={a / (n + 1):.4g}"

    return ", ".join(one(v) for v in on)


def expected_dispatch(
    state: PoolReplay,
    job: JobId,
    nodes: Sequence[Any],
    *,
    policy: str,
    readings: Readings,
    max_mf: int,
) -> tuple[int | None, bool, bool]:
    r"""`(target or None, banned, unpreempted)`: the report's decision for a remote-queue job.

    An oracle written apart from the library's rules, from the policy and
    readings alone (see the algorithm page): under the literal remote-queue
    reading a job migrates only when its node's unpreempted and preempted
    queues both hold other jobs, else it stays (unpreempted when both are
    empty); under `pfs` it goes to the most available remote node other
    than its own; under `pfs+mfs`, with `local-mf` a job on a remote node
    with $MF \le$ `MAX_MF` stays; a job with $MF \ge$ `MAX_MF` goes to the
    fastest remote node, banned (stays, banned, if it is there); otherwise it
    goes to the most available remote node other than its own — from a
    remote node only if that node offers strictly more than $a_c / n_c$.

    Parameters
    ----------
    state
        The pool's state at the dispatch
        ([`replay_pool`][schedlib.testing.invariants.frequency.replay_pool]).
    job
        The job dispatched.
    nodes
        The pool.
    policy
        `"pfs"` or `"pfs+mfs"`.
    readings
        The readings ([`Readings`][schedlib.frequency.policies.Readings]).
    max_mf
        `MAX_MF`.
    """
    here = state.node[job]
    mf = state.mf.get(job, 0)
    remotes = list(range(HEAD + 1, len(nodes)))
    if readings.remote_queue == "literal":
        fresh, preempted = state.local(here)
        if not (fresh and preempted):
            return None, False, fresh == 0 and preempted == 0
    if policy == "pfs+mfs":
        if readings.mfs == "local-mf" and here != HEAD and mf <= max_mf:
            return None, False, False
        if mf >= max_mf:
            fastest = _fastest(remotes, nodes)
            return (None if fastest in (None, here) else fastest), True, False
    target = _most_available([v for v in remotes if v != here], nodes, state.resident)
    if target is not None and policy == "pfs+mfs" and here != HEAD:
        there = nodes[target].availability / (state.resident[target] + 1)
        if not there > nodes[here].availability / state.resident[here]:
            target = None
    return target, False, False


def check_pool_decisions(record: RunRecord, nodes: Sequence[Any]) -> None:
    r"""Every placement decision of a named policy is the report's, given the actual loads.

    Rebuilds the pool's loads from the log
    ([`replay_pool`][schedlib.testing.invariants.frequency.replay_pool]) and checks, at
    the instant of each decision, with the policy and readings of the
    record's parameters:

    - **submission**: under `pfs` and `pfs+mfs` a job joins the head node;
      under the baselines the node of the whole pool with the highest
      $A_i = a_i / (n_i + 1)$ (ties: faster, then lower index);
    - **next burst**: on the node the job's submission joined (`head-node`)
      or the node its last burst ended on (`last-node`);
    - **remote queue** (every migration, and every job that stays): the
      decision of [`expected_dispatch`][schedlib.testing.invariants.frequency.expected_dispatch]
      — in particular a migration goes to the most available node given the
      loads at that instant, jobs already sent at the same instant counted on
      their targets.

    Parameters
    ----------
    record
        A run of a named policy (`pfs`, `pfs+mfs`, `round_robin`, `fcfs`).
    nodes
        The pool.

    Raises
    ------
    AssertionError
        Naming the job, the decision, the expected one and the loads.
    InvalidValueError
        If the record's policy is not a named one.
    """
    policy = record.parameter("policy")
    if policy not in ("pfs", "pfs+mfs", "round_robin", "fcfs"):
        raise InvalidValueError(
            "policy", policy, "check_pool_decisions knows the named policies only"
        )
    readings = Readings(
        record.parameter("next_burst", "head-node"),
        record.parameter("remote_queue", "always"),
        record.parameter("mfs", "availability"),
    )
    max_mf = record.parameter("max_mf")
    everyone = range(len(nodes))
    for e, state in replay_pool(record, len(nodes)):
        if e.kind is EventKind.ASSIGN and e.detail == SUBMITTED_DETAIL:
            if policy in ("pfs", "pfs+mfs"):
                expected = HEAD
            else:
                expected = _most_available(everyone, nodes, state.resident)  # type: ignore[assignment]
            assert e.place[0] == expected, (
                f"job {e.job} submitted at t={e.time} joins node {e.place[0]}, not node "
                f"{expected} ({policy}; loads: {_loads(nodes, state.resident, everyone)})"
            )
        elif e.kind is EventKind.ASSIGN and e.detail == NEXT_BURST_DETAIL:
            head = readings.next_burst == "head-node"
            expected = state.home[e.job] if head else state.last[e.job]
            which = "its submission joined" if head else "its last burst ended on"
            assert e.place[0] == expected, (
                f"job {e.job}'s burst {e.task} arrives at t={e.time} on node {e.place[0]}, "
                f"not on node {expected}, the node {which}"
            )
        elif _is_dispatch(e) and policy in ("pfs", "pfs+mfs"):
            got = (
                e.place[0] if e.kind is EventKind.MIGRATE else None,
                _marked_banned(e),
                UNPREEMPTED_DETAIL in e.detail.split("; "),
            )
            want = expected_dispatch(
                state, e.job, nodes, policy=policy, readings=readings, max_mf=max_mf
            )
            remotes = range(HEAD + 1, len(nodes))
            assert got == want, (
                f"job {e.job} in the remote queue at t={e.time} (on node {state.node[e.job]}, "
                f"MF={state.mf.get(e.job, 0)}, waiting there (unpreempted, preempted) = "
                f"{state.local(state.node[e.job])}): (target, banned, unpreempted) = {got}, "
                f"expected {want} ({policy}, {readings.remote_queue} remote queue, "
                f"{readings.mfs} MFS; loads: {_loads(nodes, state.resident, remotes)})"
            )


POOL_ORDERS = ("fifo", "pfs", "mfs")
"""The queue orders the order checkers know (FIFO, PFS's, MFS's)."""


def _check_order(order: str) -> None:
    if order not in POOL_ORDERS:
        raise InvalidValueError("order", order, f"must be one of {', '.join(POOL_ORDERS)}")


def _mfs_first(job: JobId, among: Iterable[JobId], state: PoolReplay) -> bool:
    return state.mf.get(job, 0) == max(state.mf.get(x, 0) for x in among)


def check_dispatch_order(record: RunRecord, size: int, *, order: str) -> None:
    r"""The remote queue is emptied at each instant, in its order (FIFO under PFS, MFS under MFS).

    With the remote queue rebuilt from the log (a `PREEMPT` marked `to remote
    queue` enters it; a `MIGRATE` or a stay dispatches its job), checks that

    - every dispatch takes a job of the remote queue, and under `order="fifo"`
      the first one; under `order="mfs"` one with the highest migration count
      $MF$ of those waiting there (ties in any order);
    - the queue is empty before any node starts a job and before time moves
      on (it is emptied by the pass of the instant its jobs entered it).

    Parameters
    ----------
    record
        A run of `simulate_pool`.
    size
        The number of nodes.
    order
        `"fifo"` (PFS) or `"mfs"` (PFS+MFS).

    Raises
    ------
    AssertionError
        Naming the instant, the job dispatched and the queue.
    """
    _check_order(order)
    now: Time | None = None
    for e, state in replay_pool(record, size):
        if e.time != now or e.kind is EventKind.START:
            assert not state.remote, (
                f"jobs {state.remote} still in the remote queue at t={now} "
                f"when {e.kind.value} of job {e.job} at t={e.time} happens"
            )
            now = e.time
        if not _is_dispatch(e):
            continue
        queue = list(state.remote)
        assert e.job in queue, (
            f"job {e.job} dispatched at t={e.time} is not in the remote queue {queue}"
        )
        first = queue[0] == e.job if order == "fifo" else _mfs_first(e.job, queue, state)
        assert first, (
            f"job {e.job} (MF={state.mf.get(e.job, 0)}) dispatched at t={e.time} out of "
            f"{order.upper()} order: the remote queue holds {queue} with MF "
            f"{[state.mf.get(x, 0) for x in queue]}"
        )
    assert not state.remote if record.events else True, f"jobs {state.remote} never dispatched"


def check_start_order(record: RunRecord, size: int, *, head: str, remote: str) -> None:
    r"""Each node starts the job its order picks: PFS, FIFO or MFS.

    With every node's queue rebuilt from the log (`(job, preempted)` in the
    order jobs joined it), checks at each `START` on node $v$ that the job
    started is

    - `"pfs"`: the first unpreempted job, else the first preempted one;
    - `"fifo"`: the first job in the queue;
    - `"mfs"`: a job with the highest $MF$ of those waiting (ties in any
      order).

    Parameters
    ----------
    record
        A run of `simulate_pool`.
    size
        The number of nodes.
    head, remote
        The order of the head node, of the remote nodes.

    Raises
    ------
    AssertionError
        Naming the node, the instant, the job started and the queue.
    """
    _check_order(head)
    _check_order(remote)
    for e, state in replay_pool(record, size):
        if e.kind is not EventKind.START:
            continue
        v = e.place[0]
        queue = list(state.waiting[v])
        order = head if v == HEAD else remote
        jobs = [j for j, _ in queue]
        assert e.job in jobs, f"job {e.job} starts on node {v} at t={e.time} without waiting there"
        if order == "mfs":
            ok = _mfs_first(e.job, jobs, state)
        else:
            fresh = [j for j, preempted in queue if not preempted]
            ok = e.job == (fresh[0] if order == "pfs" and fresh else jobs[0])
        assert ok, (
            f"node {v} starts job {e.job} at t={e.time} out of {order.upper()} order: its queue "
            f"(job, preempted, MF) is {[(j, p, state.mf.get(j, 0)) for j, p in queue]}"
        )


def check_pool_run(record: RunRecord, nodes: Sequence[Any]) -> None:
    """Every pool checker that applies to a record of `simulate_pool`.

    Reads `policy`, `quantum`, `grace`, `max_preemption`, `max_mf` and `cost`
    from the record's parameters and runs the common checkers
    (`check_every_job_accounted`, `check_lifecycle`, `check_capacity`) and
    the pool checkers: for every named policy the decisions (placements,
    next bursts, remote queue) and the queue orders; all the others for PFS
    and PFS+MFS (for PFS+MFS the round-robin wait bound on the head node and
    the MFS wait bound on the remote nodes); the round-robin wait bound with
    $g = 1$ for plain round robin; completion and work for FCFS. A record of
    rules of your own (another policy name) gets the checks that hold for
    any rules.

    Raises
    ------
    AssertionError
        From the first checker that fails.
    """
    from schedlib.testing.invariants.common import (
        check_capacity,
        check_every_job_accounted,
        check_lifecycle,
    )

    policy = record.parameter("policy")
    quantum = record.parameter("quantum")
    grace = record.parameter("grace")
    check_every_job_accounted(record)
    check_lifecycle(record)
    check_capacity(record)
    check_bursts_complete(record)
    check_work_conserved(record, nodes, cost=record.parameter("cost"))
    size = len(nodes)
    if policy in ("pfs", "pfs+mfs", "round_robin", "fcfs"):
        check_pool_decisions(record, nodes)
    if policy in ("round_robin", "fcfs"):
        check_start_order(record, size, head="fifo", remote="fifo")
    if policy == "round_robin":
        check_round_robin_wait(record, quantum=quantum, grace=1.0)
        check_short_bursts_stay(record, nodes, quantum=quantum)
        check_grace(record, nodes, quantum=quantum, grace=1.0)
    if policy not in ("pfs", "pfs+mfs"):
        return
    max_preemption = record.parameter("max_preemption")
    check_short_bursts_stay(record, nodes, quantum=quantum, grace=grace)
    check_grace(record, nodes, quantum=quantum, grace=grace)
    if policy == "pfs":
        check_preemption_counts(record, max_preemption=max_preemption, sending_nodes=(HEAD,))
        check_dispatch_order(record, size, order="fifo")
        check_start_order(record, size, head="pfs", remote="pfs")
        check_round_robin_wait(record, quantum=quantum, grace=grace)
        return
    max_mf = record.parameter("max_mf")
    check_preemption_counts(record, max_preemption=max_preemption, sending_nodes=range(len(nodes)))
    check_migration_limits(record, nodes, max_mf=max_mf)
    check_dispatch_order(record, size, order="mfs")
    check_start_order(record, size, head="pfs", remote="mfs")
    check_round_robin_wait(record, quantum=quantum, grace=grace, on=(HEAD,))
    remotes = range(HEAD + 1, len(nodes))
    check_priority_wait(record, nodes, quantum=quantum, grace=grace, on=remotes)
