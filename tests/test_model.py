"""Model types: validators name the field and value; outcomes derive from the log."""

from __future__ import annotations

import math

import attrs
import pytest

from schedlib.errors import InvalidValueError
from schedlib.model import Cluster, FinalState, Job, JobEvent, RunRecord
from schedlib.model import EventKind as K


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("procs", 0, "Job.procs = 0: must be >= 1"),
        ("runtime", -5, "Job.runtime = -5: must be a finite number >= 0"),
        ("submit", math.nan, "Job.submit = nan"),
        ("requested_time", math.inf, "Job.requested_time = inf"),
        ("procs", True, "Job.procs = True"),
        ("id", -1, "Job.id = -1: must be >= 0"),
    ],
)
def test_job_rejects_impossible_values(field: str, value: object, message: str) -> None:
    fields = dict(id=1, submit=0, procs=1, requested_time=10, runtime=5)
    fields[field] = value
    with pytest.raises(InvalidValueError, match=message.replace("(", r"\(")) as info:
        Job(**fields)  # type: ignore[arg-type]
    assert info.value.field == f"Job.{field}"


def test_evolve_revalidates_and_types_are_frozen() -> None:
    job = Job(1, 0, 2, 10, 5)
    with pytest.raises(InvalidValueError):
        attrs.evolve(job, procs=-3)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        job.procs = 3  # type: ignore[misc]
    with pytest.raises(InvalidValueError, match=r"Cluster\.processors = 0"):
        Cluster(0)


def test_outcomes_follow_preemption_migration_failure_and_tasks() -> None:
    jobs = [Job(1, 0, 2, 100, 30), Job(2, 5, 1, 100, 10)]
    log = [
        JobEvent(0, 1, K.SUBMIT),
        JobEvent(0, 1, K.START, (0, 1)),
        JobEvent(5, 2, K.SUBMIT),
        JobEvent(10, 1, K.PREEMPT, (0, 1)),
        JobEvent(10, 1, K.MIGRATE, (4,)),
        JobEvent(12, 1, K.START, (4, 5)),
        JobEvent(15, 1, K.FAIL, (4, 5)),
        JobEvent(20, 1, K.START, (2, 3)),
        JobEvent(50, 1, K.COMPLETE, (2, 3)),
        JobEvent(6, 2, K.START, (9,), task=0),
        JobEvent(6, 2, K.START, (8,), task=1),
        JobEvent(9, 2, K.COMPLETE, (9,), task=0),
        JobEvent(11, 2, K.CANCEL, (8,), task=1),
        JobEvent(11, 2, K.COMPLETE),
    ]
    first, second = RunRecord.from_log("x", jobs, log, capacity=10).outcomes
    assert (first.state, first.start, first.end, first.executed, first.place) == (
        FinalState.COMPLETED,
        0,
        50,
        10 + 3 + 30,
        (2, 3),
    )
    assert (first.preemptions, first.migrations, first.failures) == (1, 1, 1)
    assert (second.state, second.start, second.end, second.executed) == (
        FinalState.COMPLETED,
        6,
        11,
        3 + 5,
    )


@pytest.mark.parametrize(
    ("kind", "state"),
    [
        (K.KILL, FinalState.KILLED_AT_LIMIT),
        (K.ABANDON, FinalState.FAILED),
        (K.UNSCHEDULABLE, FinalState.UNSCHEDULABLE),
        (K.REJECT, FinalState.REJECTED),
        (K.LOG_CANCELLED, FinalState.CANCELLED_IN_LOG),
    ],
)
def test_each_terminal_kind_gives_its_final_state(kind: K, state: FinalState) -> None:
    log = [JobEvent(0, 1, K.SUBMIT), JobEvent(3, 1, kind, detail="why")]
    out = RunRecord.from_log("x", [Job(1, 0, 1, 1, 1)], log, capacity=1).outcomes[0]
    assert (out.state, out.end, out.reason) == (state, 3, "why")


def test_record_keeps_parameters_sorted_and_readable() -> None:
    record = RunRecord.from_log("x", [], [], capacity=4, parameters={"b": 2, "a": 1}, seed=7)
    assert record.parameters == (("a", 1), ("b", 2))
    assert record.parameter("b") == 2 and record.parameter("zz", "none") == "none"
    assert record.seed == 7 and record.outcome_map() == {}


def test_from_schedule_builds_a_record_the_checkers_read() -> None:
    from schedlib.testing.invariants import (
        check_capacity,
        check_every_job_accounted,
        check_lifecycle,
    )

    jobs = [Job(1, 0, 2, 100, 50), Job(2, 0, 2, 100, 30), Job(3, 5, 1, 10, 20)]
    good = RunRecord.from_schedule(
        jobs,
        {1: 0, 2: 0, 3: 50},
        {1: 50, 2: 30, 3: 60},
        {1: (0, 1), 2: (2, 3), 3: (0,)},
        capacity=4,
        killed=[3],
    )
    check_capacity(good)
    check_every_job_accounted(good)
    check_lifecycle(good)
    assert [o.state.value for o in good.outcomes] == ["completed", "completed", "killed_at_limit"]
    # the same schedule with job 2 placed on job 1's processors: oversubscribed
    bad = RunRecord.from_schedule(
        jobs, {1: 0, 2: 0}, {1: 50, 2: 30}, {1: (0, 1), 2: (1, 2)}, capacity=4
    )
    with pytest.raises(AssertionError, match="unit 1 oversubscribed at t=0"):
        check_capacity(bad)
    # job 3 never started: reported, not filled in
    with pytest.raises(AssertionError, match="job 3 has no terminal event"):
        check_every_job_accounted(bad)
    with pytest.raises(InvalidValueError, match="names a job that is not in jobs"):
        RunRecord.from_schedule(jobs, {9: 0}, {}, capacity=4)
    with pytest.raises(InvalidValueError, match="ends but never starts"):
        RunRecord.from_schedule(jobs, {}, {1: 5}, capacity=4)
    with pytest.raises(InvalidValueError, match="finite"):
        RunRecord.from_schedule(jobs, {1: float("nan")}, {}, capacity=4)
