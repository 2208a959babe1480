"""Each rule of the PGS / volatile-grid checkers fails on a small hand-built log or decision.

The property tests run the checkers over many correct runs; a rule that is never shown a
broken input could be switched off unnoticed. Each test here breaks one rule (most by one
entry of a correct log: `BASE`, an FCFS run on one resource that goes down at 10 and is
up again from 12) and asserts that the checker reports it.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from schedlib.availability import BagJob
from schedlib.availability.mapping import (
    Assignment,
    MappingDecision,
    PendingJob,
    ResourceView,
    SchedulerSnapshot,
)
from schedlib.availability.patterns import UpPeriod
from schedlib.model import EventKind as K
from schedlib.model import JobEvent, RunRecord
from schedlib.testing.invariants import (
    check_failures_handled,
    check_mapping_decision,
    check_no_instant_failures,
    check_queue_order,
    check_unschedulable_reported,
    check_within_uptime,
)

E = JobEvent
JOBS = [BagJob(1, 0, 6), BagJob(2, 0, 6), BagJob(3, 0, 3)]
PERIODS = [UpPeriod(0, 0, 0, 10, 10), UpPeriod(0, 1, 12, 22, float("inf"))]
# FCFS, queue length 2: job 2 fails when resource 0 goes down at 10, job 3 (queued) comes
# back; both are assigned again at 12 and complete.
BASE = [
    E(0, 1, K.SUBMIT), E(0, 2, K.SUBMIT), E(0, 3, K.SUBMIT),
    E(0, 1, K.ASSIGN, (0,)), E(0, 2, K.ASSIGN, (0,)), E(0, 1, K.START, (0,)),
    E(6, 1, K.COMPLETE, (0,)), E(6, 2, K.START, (0,)), E(6, 3, K.ASSIGN, (0,)),
    E(10, 2, K.FAIL, (0,)), E(10, 3, K.RETURN, (0,)),
    E(12, 2, K.ASSIGN, (0,)), E(12, 3, K.ASSIGN, (0,)), E(12, 2, K.START, (0,)),
    E(18, 2, K.COMPLETE, (0,)), E(18, 3, K.START, (0,)), E(21, 3, K.COMPLETE, (0,)),
]  # fmt: skip


def record(log: Sequence[JobEvent], jobs: Sequence[BagJob] = JOBS) -> RunRecord:
    return RunRecord.from_log("fcfs", jobs, log, capacity=2)


def without(entry: JobEvent) -> list[JobEvent]:
    return [e for e in BASE if e != entry]


def with_entry(entry: JobEvent, *, after: JobEvent) -> list[JobEvent]:
    k = BASE.index(after)
    return [*BASE[: k + 1], entry, *BASE[k + 1 :]]


def test_the_base_log_passes_the_checkers() -> None:
    """(Not `check_within_uptime`: FCFS starts job 2 at 6, to end after the down time.)"""
    check_failures_handled(record(BASE), PERIODS, max_failures=2)
    check_queue_order(record(BASE))
    check_no_instant_failures(record(BASE))
    check_unschedulable_reported(record(BASE), longest_uptime=10)


# -- check_mapping_decision ----------------------------------------------------------------

SNAPSHOT = SchedulerSnapshot(
    0,
    (ResourceView(0, 100), ResourceView(1, 100)),
    priority=(PendingJob(9, 5),),
    regular=(PendingJob(1, 5), PendingJob(2, 5)),
)


@pytest.mark.parametrize(
    ("decision", "match"),
    [
        (MappingDecision((Assignment(1, 0), Assignment(1, 1))), "job 1 is assigned twice"),
        (MappingDecision((), (9,)), "job 9 is deferred but is not in the regular queue"),
        (MappingDecision((), (2, 1)), "deferred jobs out of queue order at job 1"),
    ],
    ids=["assigned-twice", "deferred-from-the-priority-queue", "deferred-out-of-order"],
)
def test_a_decision_applies_to_its_snapshot(decision: MappingDecision, match: str) -> None:
    """Each job is assigned once; only regular-queue jobs are deferred, in queue order."""
    check_mapping_decision(SNAPSHOT, MappingDecision((Assignment(1, 0),), (2,)))
    with pytest.raises(AssertionError, match=match):
        check_mapping_decision(SNAPSHOT, decision)


# -- check_within_uptime, check_no_instant_failures ------------------------------------------


def test_an_entry_names_one_resource() -> None:
    log = [E(0, 1, K.SUBMIT), E(0, 1, K.START, (0, 1)), E(6, 1, K.COMPLETE, (0, 1))]
    with pytest.raises(AssertionError, match=r"start at t=0 names place \[0, 1\], not one"):
        check_within_uptime(record(log), PERIODS)


def test_no_job_starts_on_a_resource_that_is_down() -> None:
    """Resource 0 is down over [10, 12): job 3 cannot start there at 11."""
    late = [E(0, 3, K.SUBMIT), E(11, 3, K.START, (0,)), E(14, 3, K.COMPLETE, (0,))]
    with pytest.raises(
        AssertionError, match="job 3 starts on resource 0 at t=11, while it is down"
    ):
        check_within_uptime(record(late), PERIODS)


def test_no_job_fails_at_the_instant_it_starts() -> None:
    log = [E(0, 2, K.SUBMIT), E(10, 2, K.START, (0,)), E(10, 2, K.FAIL, (0,))]
    with pytest.raises(AssertionError, match="fails at that instant"):
        check_no_instant_failures(record(log))


# -- check_unschedulable_reported ----------------------------------------------------------

LONG = [BagJob(1, 0, 6), BagJob(4, 0, 20)]


def test_a_job_longer_than_every_uptime_is_never_assigned() -> None:
    log = [E(0, 1, K.SUBMIT), E(0, 4, K.SUBMIT), E(0, 4, K.ASSIGN, (0,)),
           E(0, 4, K.UNSCHEDULABLE, detail="longer than every uptime")]  # fmt: skip
    with pytest.raises(AssertionError, match="never shorter than the longest uptime 10"):
        check_unschedulable_reported(record(log, LONG), longest_uptime=10)


@pytest.mark.parametrize(
    ("end", "match"),
    [
        (E(20, 4, K.COMPLETE, (0,)), "can never fit an uptime of at most 10 s, but ended"),
        (E(0, 4, K.UNSCHEDULABLE, detail="too long"), "a reason that does not name the uptime"),
    ],
    ids=["completed", "reason-without-uptime"],
)
def test_a_job_longer_than_every_uptime_ends_unschedulable_naming_it(
    end: JobEvent, match: str
) -> None:
    good = [E(0, 4, K.SUBMIT), E(0, 4, K.UNSCHEDULABLE, detail="longer than every uptime")]
    check_unschedulable_reported(record(good, LONG[1:]), longest_uptime=10)
    with pytest.raises(AssertionError, match=match):
        check_unschedulable_reported(record([E(0, 4, K.SUBMIT), end], LONG[1:]), longest_uptime=10)


# -- check_failures_handled ----------------------------------------------------------------


def test_an_execution_lies_within_one_up_period() -> None:
    """Job 1 cannot complete at 11: its resource went down at 10."""
    log = [E(11, 1, K.COMPLETE, (0,)) if e == BASE[6] else e for e in BASE]
    with pytest.raises(AssertionError, match=r"job 1's execution on resource 0 from t=0 to t=11"):
        check_failures_handled(record(log), PERIODS)


def test_a_job_starts_on_the_resource_it_was_queued_on() -> None:
    periods = [*PERIODS, UpPeriod(1, 0, 0, 30, float("inf"))]
    log = [E(6, 2, K.START, (1,)) if e == BASE[7] else e for e in BASE]
    with pytest.raises(AssertionError, match=r"job 2 queued on resource 0 has start on \[1\]"):
        check_failures_handled(record(log), periods)


def test_only_a_queued_job_returns() -> None:
    """Without its assignment at 6, job 3 has nothing to return from at 10."""
    with pytest.raises(AssertionError, match="job 3 returns at t=10 but was not queued"):
        check_failures_handled(record(without(BASE[8])), PERIODS)


def test_a_job_fails_only_when_its_resource_goes_down() -> None:
    log = with_entry(E(8, 3, K.FAIL, (0,)), after=BASE[8])
    with pytest.raises(AssertionError, match="fail on resource 0 at t=8, when the resource did"):
        check_failures_handled(record(log), PERIODS)


def test_a_job_is_abandoned_only_at_the_instant_it_fails() -> None:
    """Job 3 came back from the down resource (`RETURN`): it did not fail."""
    log = with_entry(E(12, 3, K.ABANDON, detail="given up"), after=BASE[10])
    with pytest.raises(AssertionError, match="abandoned at t=12 without failing at that instant"):
        check_failures_handled(record(log), PERIODS)


def abandoned(detail: str) -> list[JobEvent]:
    """BASE with job 2 abandoned at its failure at 10 (its retry dropped)."""
    retry = (BASE[11], BASE[13], BASE[14])  # job 2 assigned, started, completed again
    log = [e for e in with_entry(E(10, 2, K.ABANDON, detail=detail), after=BASE[9])]
    return [e for e in log if e not in retry]


@pytest.mark.parametrize(
    ("detail", "max_failures", "match"),
    [("", None, "abandoned at t=10 without a reason"),
     ("failed once", 2, r"abandoned after 1 failure\(s\); max_failures is 2")],
    ids=["no-reason", "before-max-failures"],
)  # fmt: skip
def test_a_job_is_abandoned_with_a_reason_after_max_failures(
    detail: str, max_failures: int | None, match: str
) -> None:
    given_up = abandoned("failed once")
    check_failures_handled(record(given_up), PERIODS, max_failures=1)
    with pytest.raises(AssertionError, match=match):
        check_failures_handled(record(abandoned(detail)), PERIODS, max_failures=max_failures)


def test_a_failed_job_is_assigned_again_before_it_runs() -> None:
    """Without its assignment at 12, job 2 starts again at 12 straight from its failure."""
    with pytest.raises(AssertionError, match="failed at t=10 and has start at t=12 without being"):
        check_failures_handled(record(without(BASE[11])), PERIODS)


def test_a_job_fails_at_most_max_failures_times() -> None:
    """Resource 0 also goes down at 22: job 2, run again from 12, fails a second time."""
    periods = [UpPeriod(0, 0, 0, 10, 10), UpPeriod(0, 1, 12, 22, 22)]
    log = [*BASE[:14], E(22, 2, K.FAIL, (0,))]
    with pytest.raises(AssertionError, match="job 2 fails 2 times; max_failures is 1"):
        check_failures_handled(record(log), periods, max_failures=1)


def test_a_job_that_failed_max_failures_times_is_abandoned() -> None:
    """With max_failures = 1, job 2's one failure must end it (`ABANDON`), not a retry."""
    with pytest.raises(AssertionError, match=r"job 2 failed 1 times \(max_failures = 1\) but"):
        check_failures_handled(record(BASE), PERIODS, max_failures=1)


# -- check_queue_order ---------------------------------------------------------------------


def test_only_a_waiting_job_is_assigned() -> None:
    log = with_entry(E(12, 9, K.ASSIGN, (0,)), after=BASE[12])
    with pytest.raises(AssertionError, match="t=12: job 9 is assigned but is not waiting"):
        check_queue_order(record(log))
