"""The common checkers catch what they claim to catch."""

from __future__ import annotations

import subprocess
import sys

import pytest

from schedlib.model import EventKind as K
from schedlib.model import Job, JobEvent, RunRecord
from schedlib.testing.invariants import (
    check_capacity,
    check_every_job_accounted,
    check_lifecycle,
    execution_segments,
)

JOBS = [Job(1, 0, 2, 10, 5), Job(2, 0, 1, 10, 5)]


def record(*events: JobEvent, capacity: int = 3) -> RunRecord:
    return RunRecord.from_log("x", JOBS, events, capacity=capacity)


GOOD = [
    JobEvent(0, 1, K.SUBMIT),
    JobEvent(0, 2, K.SUBMIT),
    JobEvent(0, 1, K.START, (0, 1)),
    JobEvent(0, 2, K.START, (2,)),
    JobEvent(5, 1, K.COMPLETE, (0, 1)),
    JobEvent(5, 2, K.PREEMPT, (2,)),
    JobEvent(5, 2, K.START, (0,)),
    JobEvent(6, 2, K.COMPLETE, (0,)),
]


def test_a_correct_record_passes_every_check() -> None:
    r = record(*GOOD)
    check_every_job_accounted(r)
    check_lifecycle(r)
    check_capacity(r)
    assert [(s.job, s.start, s.end) for s in execution_segments(r)] == [
        (1, 0, 5),
        (2, 0, 5),
        (2, 5, 6),
    ]


@pytest.mark.parametrize(
    ("events", "message"),
    [
        (GOOD[:-1], "job 2 has no terminal event"),
        (
            [*GOOD, JobEvent(7, 2, K.START, (1,))],
            "job 2 has start on \\[1\\] at t=7 after its terminal",
        ),
        ([*GOOD, JobEvent(7, 3, K.SUBMIT)], "names job 3, which is not in the workload"),
        ([e for e in GOOD if e.job == 1], "job 2 never appears in the log"),
    ],
)
def test_accounting_violations(events: list[JobEvent], message: str) -> None:
    with pytest.raises(AssertionError, match=message):
        check_every_job_accounted(record(*events))


@pytest.mark.parametrize(
    ("events", "message"),
    [
        ([GOOD[2], *GOOD], "first event is start"),
        ([JobEvent(1, 1, K.SUBMIT), *GOOD[1:]], "submitted at t=1, but its submit time is 0"),
        ([*GOOD[:4], JobEvent(0, 2, K.START, (2,)), *GOOD[4:]], "while already running there"),
        ([*GOOD[:2], JobEvent(3, 1, K.COMPLETE, (0, 1))], "but it is not running there"),
        ([*GOOD[:3], JobEvent(4, 1, K.KILL, (0,))], "not running there"),
        ([*GOOD[:5], JobEvent(4, 2, K.COMPLETE, (2,))], "log goes back in time"),
        ([*GOOD[:3], JobEvent(3, 1, K.UNSCHEDULABLE)], "while still running on"),
    ],
)
def test_lifecycle_violations(events: list[JobEvent], message: str) -> None:
    with pytest.raises(AssertionError, match=message):
        check_lifecycle(record(*events))


def test_capacity_violations() -> None:
    double = [*GOOD[:3], JobEvent(0, 2, K.START, (1,))]
    with pytest.raises(
        AssertionError, match="unit 1 oversubscribed at t=0: job 2 starts while job 1"
    ):
        check_capacity(record(*double))
    with pytest.raises(AssertionError, match="outside the machine of 2"):
        check_capacity(record(*GOOD, capacity=2))
    with pytest.raises(AssertionError, match="job 1 holds 2 unit\\(s\\) but starts on \\[0\\]"):
        check_capacity(record(GOOD[0], JobEvent(0, 1, K.START, (0,))))
    check_capacity(record(GOOD[0], JobEvent(0, 1, K.START, (0,))), exact_size=False)


def test_checkers_import_without_hypothesis_and_strategies_name_the_extra() -> None:
    code = (
        "import sys; sys.modules['hypothesis'] = None\n"
        "from schedlib.testing.invariants import check_capacity\n"
        "import schedlib.testing\n"
        "print('checkers ok')\n"
        "try:\n    schedlib.testing.strategies\nexcept ImportError as e:\n    print(e)\n"
        "try:\n    import schedlib.testing.strategies\nexcept ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    assert lines[0] == "checkers ok"
    assert len(lines) == 3
    assert all("pip install '.[test]' from a clone" in line for line in lines[1:])


def test_a_job_id_appears_once_in_the_workload() -> None:
    twice = RunRecord.from_log("x", [*JOBS, Job(1, 1, 1, 5, 5)], GOOD, capacity=3)
    with pytest.raises(AssertionError, match="job id 1 appears twice in the workload"):
        check_every_job_accounted(twice)


def test_a_job_is_submitted_once() -> None:
    again = [*GOOD[:2], JobEvent(0, 1, K.SUBMIT), *GOOD[2:]]
    with pytest.raises(AssertionError, match=r"job 1 is submitted twice \(t=0\)"):
        check_lifecycle(record(*again))
