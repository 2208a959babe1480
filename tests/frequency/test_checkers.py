"""Each rule of the pool checkers fails on a small log that breaks it.

The property tests run the checkers over many correct runs; a rule that is never shown a
broken log could be switched off unnoticed. Each test here takes a correct run of
`simulate_pool` (or writes a log by hand), breaks one rule by editing one or two entries,
and asserts that the checker names the break. Every edited log is first shown to be what
the rule forbids and nothing else: the unedited run passes the same checker.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import attrs
import pytest

from schedlib.frequency import PoolJob, PoolNode, simulate_pool
from schedlib.model import EventKind, JobEvent, RunRecord
from schedlib.testing.invariants import (
    check_bursts_complete,
    check_dispatch_order,
    check_grace,
    check_migration_limits,
    check_preemption_counts,
    check_priority_wait,
    check_start_order,
    check_work_conserved,
)

TWO = [PoolNode(), PoolNode()]
PAIR = [PoolJob.cpu_bound(1, 0, 3), PoolJob.cpu_bound(2, 0, 3)]


def pool_run(
    jobs: Sequence[PoolJob] = PAIR, nodes: Sequence[PoolNode] = TWO, **options: Any
) -> RunRecord:
    """A PFS+MFS run with a remote queue at work: quantum 1, sent after one preemption."""
    return simulate_pool(jobs, nodes, **{"quantum": 1, "max_preemption": 1, **options})


def edited(record: RunRecord, edit: Callable[[list[JobEvent]], list[JobEvent]]) -> RunRecord:
    """The record with its log edited (the workload and parameters kept)."""
    return RunRecord.from_log(
        record.algorithm,
        record.workload,
        edit(list(record.events)),
        capacity=record.capacity,
        parameters=dict(record.parameters),
    )


def find(events: Sequence[JobEvent], kind: EventKind, job: int, time: float) -> int:
    return next(
        i for i, e in enumerate(events) if e.kind is kind and e.job == job and e.time == time
    )


def test_no_node_starts_a_job_while_the_remote_queue_still_waits() -> None:
    """`check_dispatch_order`: the remote queue is emptied by the pass of its instant, before
    any node starts a job. At t=1 job 1 is sent to the remote queue and migrates to node 1,
    then node 0 starts job 2; moved before the migration, that start happens while job 1
    still waits in the remote queue, though the time does not move on."""
    record = pool_run()
    check_dispatch_order(record, 2, order="mfs")

    def start_first(events: list[JobEvent]) -> list[JobEvent]:
        start = events.pop(find(events, EventKind.START, 2, 1))
        events.insert(find(events, EventKind.MIGRATE, 1, 1), start)
        return events

    broken = edited(record, start_first)
    message = r"jobs \[1\] still in the remote queue at t=1 when start of job 2"
    with pytest.raises(AssertionError, match=message):
        check_dispatch_order(broken, 2, order="mfs")


def replace(record: RunRecord, kind: EventKind, job: int, time: float, **changes: Any) -> RunRecord:
    """The record with one entry changed (`attrs.evolve` of its fields)."""

    def edit(events: list[JobEvent]) -> list[JobEvent]:
        k = find(events, kind, job, time)
        events[k] = attrs.evolve(events[k], **changes)
        return events

    return edited(record, edit)


def insert(record: RunRecord, entry: JobEvent, *, after: tuple[EventKind, int, float]) -> RunRecord:
    """The record with `entry` logged right after the entry `after` = (kind, job, time)."""

    def edit(events: list[JobEvent]) -> list[JobEvent]:
        events.insert(find(events, *after) + 1, entry)
        return events

    return edited(record, edit)


# -- check_bursts_complete -------------------------------------------------------------------


def test_a_burst_completes_before_its_job() -> None:
    record = pool_run()
    check_bursts_complete(record)

    def job_first(events: list[JobEvent]) -> list[JobEvent]:
        burst = find(events, EventKind.COMPLETE, 1, 3)
        events.insert(burst, events.pop(burst + 1))  # the job's COMPLETE, then its burst's
        return events

    with pytest.raises(AssertionError, match="job 1: burst 0 completes after the job"):
        check_bursts_complete(edited(record, job_first))


def test_bursts_complete_in_order() -> None:
    record = replace(pool_run(), EventKind.COMPLETE, 1, 3, task=1)
    with pytest.raises(AssertionError, match=r"burst 1 completes at t=3\.0, expected burst 0"):
        check_bursts_complete(record)


def test_a_job_whose_bursts_all_completed_completes() -> None:
    def drop_job_end(events: list[JobEvent]) -> list[JobEvent]:
        return [e for e in events if not (e.kind is EventKind.COMPLETE and e.task is None)]

    with pytest.raises(AssertionError, match="all bursts completed but the job did not"):
        check_bursts_complete(edited(pool_run(), drop_job_end))


# -- check_work_conserved --------------------------------------------------------------------


def test_every_segment_belongs_to_a_burst() -> None:
    """Job 2's slice on node 0 over [1, 2) logged without its burst index."""
    record = replace(pool_run(), EventKind.START, 2, 1, task=None)
    record = replace(record, EventKind.PREEMPT, 2, 2, task=None)
    check_work_conserved(pool_run(), TWO, cost=0)
    with pytest.raises(AssertionError, match="job 2: a segment without a burst index"):
        check_work_conserved(record, TWO, cost=0)


def test_every_migration_lands() -> None:
    """A migration of job 1 logged after its end: it never lands (work is conserved)."""
    record = pool_run()
    late = JobEvent(5, 1, EventKind.MIGRATE, (0,), task=0, detail="from 1; MF=2")
    with pytest.raises(AssertionError, match=r"jobs \[1\] migrated and never landed"):
        check_work_conserved(edited(record, lambda events: [*events, late]), TWO, cost=0)


# -- check_preemption_counts -----------------------------------------------------------------


def test_each_preemption_logs_its_count() -> None:
    record = replace(pool_run(), EventKind.PREEMPT, 2, 2, detail="PF=2; to remote queue")
    check_preemption_counts(pool_run(), max_preemption=1)
    with pytest.raises(AssertionError, match="logs PF=2, but it has been preempted 1 time"):
        check_preemption_counts(record, max_preemption=1)


def test_a_job_is_sent_to_the_remote_queue_only_at_max_preemption() -> None:
    """The run sends at PF = 1; read against MAX_PREEMPTION = 2 that is one too early."""
    with pytest.raises(AssertionError, match="with PF=1 < MAX_PREEMPTION=2"):
        check_preemption_counts(pool_run(), max_preemption=2)


def test_a_sending_node_sends_a_job_that_reaches_max_preemption() -> None:
    """Node 0 sends jobs: job 2 preempted there at PF = 1 = MAX_PREEMPTION must be sent."""
    record = replace(pool_run(), EventKind.PREEMPT, 2, 2, detail="PF=1")
    check_preemption_counts(pool_run(), max_preemption=1, sending_nodes=(0,))
    with pytest.raises(AssertionError, match=r"on sending node 0 at t=2: PF=1, .* not sent"):
        check_preemption_counts(record, max_preemption=1, sending_nodes=(0,))


# -- check_migration_limits ------------------------------------------------------------------

SPEEDS = [PoolNode(), PoolNode(1), PoolNode(2)]
TRIO = [PoolJob.cpu_bound(1, 0, 4), PoolJob.cpu_bound(2, 0, 4), PoolJob.cpu_bound(3, 0, 4)]


def banned_run() -> RunRecord:
    """MAX_MF = 0: every job's first migration bans it, to node 2 (the fastest)."""
    return pool_run(TRIO, SPEEDS, max_mf=0)


def test_a_banned_job_never_enters_the_remote_queue_again() -> None:
    record = banned_run()
    check_migration_limits(record, SPEEDS, max_mf=0)
    again = replace(record, EventKind.PREEMPT, 1, 2, detail="PF=1; to remote queue")
    with pytest.raises(AssertionError, match="enters the remote queue again at t=2"):
        check_migration_limits(again, SPEEDS, max_mf=0)


def test_each_migration_logs_its_count() -> None:
    record = replace(pool_run(), EventKind.MIGRATE, 1, 1, detail="from 0; MF=2")
    with pytest.raises(AssertionError, match="logs 'from 0; MF=2', but it is migration 1"):
        check_migration_limits(record, TWO, max_mf=2)


def test_a_job_staying_banned_has_reached_max_mf() -> None:
    """In the pair run (MAX_MF = 2) job 1 stays at t=2 with MF = 1: it may not be banned."""
    record = replace(pool_run(), EventKind.ASSIGN, 1, 2, detail="stays; banned")
    check_migration_limits(pool_run(), TWO, max_mf=2)
    with pytest.raises(AssertionError, match="banned at t=2 with MF=1 < MAX_MF=2"):
        check_migration_limits(record, TWO, max_mf=2)


def test_a_banned_job_goes_to_a_fastest_node() -> None:
    record = replace(banned_run(), EventKind.MIGRATE, 1, 1, place=(1,))
    with pytest.raises(AssertionError, match="sent to node 1 of speed 1, not to a fastest"):
        check_migration_limits(record, SPEEDS, max_mf=0)


def test_a_banned_job_never_migrates_again() -> None:
    """Job 3 stays on node 0 banned at t=3 (MF = 0 = MAX_MF), then migrates all the same."""
    stay = JobEvent(3, 3, EventKind.ASSIGN, (0,), task=0, detail="stays; banned")
    record = insert(banned_run(), stay, after=(EventKind.PREEMPT, 3, 3))
    with pytest.raises(AssertionError, match="job 3, banned at t=3, migrates again at t=3"):
        check_migration_limits(record, SPEEDS, max_mf=0)


# -- check_grace -----------------------------------------------------------------------------


def test_a_slice_that_can_finish_within_the_grace_completes() -> None:
    """Job 1 has 1 s of work and Q = 1, g = 1: its first slice must complete it, not be
    preempted after 0.5 s."""
    jobs = [PoolJob.cpu_bound(1, 0, 1)]
    log = [JobEvent(0, 1, EventKind.SUBMIT), JobEvent(0, 1, EventKind.ASSIGN, (0,), task=0),
           JobEvent(0, 1, EventKind.START, (0,), task=0),
           JobEvent(0.5, 1, EventKind.PREEMPT, (0,), task=0, detail="PF=1"),
           JobEvent(0.5, 1, EventKind.START, (0,), task=0),
           JobEvent(1.0, 1, EventKind.COMPLETE, (0,), task=0, detail="PF=0"),
           JobEvent(1.0, 1, EventKind.COMPLETE)]  # fmt: skip
    record = RunRecord.from_log("pfs", jobs, log, capacity=1)
    with pytest.raises(AssertionError, match=r"w / r <= g Q = 1 \* 1\) yet ends with preempt"):
        check_grace(record, [PoolNode()], quantum=1, grace=1)


# -- check_priority_wait ---------------------------------------------------------------------


def behind(slices: Sequence[tuple[float, float]], start: float) -> RunRecord:
    """One node: job 1 waits from 0 behind job 2 (1 s of work, MF = 0, in `slices`), then
    runs its own 1 s from `start`."""
    jobs = [PoolJob.cpu_bound(1, 0, 1), PoolJob.cpu_bound(2, 0, 1)]
    log = []
    for j in (2, 1):
        log += [JobEvent(0, j, EventKind.SUBMIT), JobEvent(0, j, EventKind.ASSIGN, (0,), task=0)]
    for begin, end in slices:
        log.append(JobEvent(begin, 2, EventKind.START, (0,), task=0))
        closing = EventKind.COMPLETE if end == slices[-1][1] else EventKind.PREEMPT
        log.append(JobEvent(end, 2, closing, (0,), task=0))
    log += [
        JobEvent(slices[-1][1], 2, EventKind.COMPLETE),
        JobEvent(start, 1, EventKind.START, (0,), task=0),
        JobEvent(start + 1, 1, EventKind.COMPLETE, (0,), task=0),
        JobEvent(start + 1, 1, EventKind.COMPLETE),
    ]
    return RunRecord.from_log("mfs", jobs, log, capacity=1)


def test_a_job_waits_for_no_more_slices_than_the_work_ahead_needs() -> None:
    """MFS bound: job 2 (1 s of work, Q r = 1) needs one slice; job 1 waits behind three of
    its slices (each cut short): more than 1 + ceil(1 / 1) = 2."""
    check_priority_wait(behind([(0, 1.0)], 1.0), [PoolNode()], quantum=1, grace=1.1)
    record = behind([(0, 0.3), (0.3, 0.6), (0.6, 1.0)], 1.0)
    with pytest.raises(AssertionError, match=r"waited 3 slices on node 0 .* more than the 2"):
        check_priority_wait(record, [PoolNode()], quantum=1, grace=1.1)


def test_a_job_waits_no_longer_than_the_work_ahead_takes() -> None:
    """MFS bound: job 2's one slice of 1 s is all that is ahead of job 1, which may wait
    g Q + 1 = 2.1 s at most; here the node idles from 1 to 5 while job 1 waits."""
    with pytest.raises(AssertionError, match=r"waited 5\.0 s on node 0 from t=0, more than g\*Q"):
        check_priority_wait(behind([(0, 1.0)], 5.0), [PoolNode()], quantum=1, grace=1.1)


# -- check_dispatch_order --------------------------------------------------------------------


def test_every_job_sent_to_the_remote_queue_is_dispatched() -> None:
    """A log that ends with job 1 in the remote queue (sent at t=1, never dispatched)."""

    def cut(events: list[JobEvent]) -> list[JobEvent]:
        return events[: find(events, EventKind.PREEMPT, 1, 1) + 1]

    with pytest.raises(AssertionError, match=r"jobs \[1\] never dispatched"):
        check_dispatch_order(edited(pool_run(), cut), 2, order="mfs")


def test_only_a_job_of_the_remote_queue_is_dispatched() -> None:
    """Job 2 runs on node 0 at t=1: it is not in the remote queue and cannot migrate."""
    stray = JobEvent(1, 2, EventKind.MIGRATE, (1,), task=0, detail="from 0; MF=1")
    record = insert(pool_run(), stray, after=(EventKind.MIGRATE, 1, 1))
    with pytest.raises(AssertionError, match=r"job 2 dispatched at t=1 is not in the remote queue"):
        check_dispatch_order(record, 2, order="mfs")


def test_the_remote_queue_is_served_in_its_order() -> None:
    """At t=2 jobs 2 (MF = 0) then 1 (MF = 1) enter the remote queue. FIFO serves job 2
    first; MFS serves job 1 (the higher MF) first, as the run did."""
    record = pool_run()
    check_dispatch_order(record, 2, order="mfs")
    with pytest.raises(AssertionError, match=r"job 1 \(MF=1\) dispatched at t=2 out of FIFO"):
        check_dispatch_order(record, 2, order="fifo")

    def job_2_first(events: list[JobEvent]) -> list[JobEvent]:
        move = events.pop(find(events, EventKind.MIGRATE, 2, 2))
        events.insert(find(events, EventKind.ASSIGN, 1, 2), move)
        return events

    with pytest.raises(AssertionError, match=r"job 2 \(MF=0\) dispatched at t=2 out of MFS"):
        check_dispatch_order(edited(record, job_2_first), 2, order="mfs")


# -- check_start_order -----------------------------------------------------------------------


def test_a_node_starts_only_a_job_waiting_there() -> None:
    record = replace(pool_run(), EventKind.START, 2, 1, place=(1,))
    check_start_order(pool_run(), 2, head="pfs", remote="mfs")
    with pytest.raises(AssertionError, match="job 2 starts on node 1 at t=1 without waiting"):
        check_start_order(record, 2, head="pfs", remote="mfs")
