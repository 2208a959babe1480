"""Reading another scheduler's schedule, and checking it: the paths real files take.

- A per-job CSV may give `execution_time` instead of `finish_time` (a layout the reader
  documents): the end is then the start plus the duration, for every row, whichever
  path of the reader the row takes.
- Overtaking (Mine et al. 2007 §1) needs a job to finish *strictly* before the smaller,
  earlier one: equal finish times are no overtaking.
"""

from __future__ import annotations

import io

import pytest

from schedlib.errors import WorkloadFormatError
from schedlib.results.schedules import Schedule, ScheduledJob, read_schedule_csv
from schedlib.testing.invariants.schedules import overtaking_violations, schedule_violations

HEADER = "job_id,submission_time,requested_number_of_resources,starting_time,execution_time\n"


def test_execution_time_stands_in_for_a_missing_finish_time() -> None:
    """Decision: without `finish_time`, end = starting_time + execution_time."""
    text = HEADER + "1,0,2,5,10\n2,1,1,6,0.5\n3,2,1,,\n4,3,1,40,\n"
    jobs = {j.id: (j.start, j.end) for j in read_schedule_csv(io.StringIO(text)).jobs}
    assert jobs == {
        1: (5, 15),  # 5 + 10, not 10
        2: (6, 6.5),
        3: (None, None),  # never started
        4: (40, None),  # started, duration unknown: never ended (a lifecycle violation)
    }


def test_a_schedule_given_by_durations_is_checked_like_one_given_by_ends() -> None:
    """The same schedule, by durations and by ends: the same jobs, the same verdict."""
    by_ends = (
        "job_id,submission_time,requested_number_of_resources,starting_time,finish_time\n"
        "1,0,2,0,10\n2,0,2,10,30\n3,5,2,10,12\n"
    )
    by_durations = HEADER + "1,0,2,0,10\n2,0,2,10,20\n3,5,2,10,2\n"
    ends = read_schedule_csv(io.StringIO(by_ends))
    durations = read_schedule_csv(io.StringIO(by_durations))
    assert [j[:6] for j in durations.jobs] == [j[:6] for j in ends.jobs]
    verdict = [v.kind for v in schedule_violations(durations, capacity=4)]
    assert verdict == [v.kind for v in schedule_violations(ends, capacity=4)] == []
    # On 2 processors jobs 2 and 3 overlap over [10, 12): both readings say so.
    assert [v.kind for v in schedule_violations(durations, capacity=2)] == ["capacity"]


def test_a_schedule_with_neither_finish_nor_execution_time_is_refused() -> None:
    text = "job_id,submission_time,requested_number_of_resources,starting_time\n1,0,1,0\n"
    with pytest.raises(WorkloadFormatError, match=r"missing column.*finish_time"):
        read_schedule_csv(io.StringIO(text))


def _job(job: int, submit: float, procs: int, start: float, end: float) -> ScheduledJob:
    return ScheduledJob(job, submit, procs, None, start, end)


def test_equal_finish_times_are_no_overtaking() -> None:
    """Decision: J overtakes an earlier, smaller J' only if it finishes strictly first."""
    earlier_smaller = _job(1, 0, 1, 0, 10)  # size 10
    later_larger = _job(2, 1, 4, 5, 10)  # size 20, ends at the same instant
    assert list(overtaking_violations(Schedule((earlier_smaller, later_larger)))) == []
    # One second sooner, it does overtake: the other side of the rule.
    sooner = _job(2, 1, 4, 5, 9.0)  # size 16
    (violation,) = overtaking_violations(Schedule((earlier_smaller, sooner)))
    assert violation.jobs == (2, 1) and "job 2" in violation.message
