"""The cleaning policy, rule by rule, on hand-made records."""

from __future__ import annotations

import pytest

from schedlib.errors import InvalidValueError
from schedlib.model import FinalState, Job
from schedlib.workloads.cleaning import CleaningPolicy, CleaningReport, ExcludedJob, clean
from schedlib.workloads.swf import SWFRecord


def rec(
    job: int,
    submit: int = 0,
    runtime: int = 100,
    *,
    alloc: int = 4,
    req: int = 4,
    estimate: int = 200,
    status: int = 1,
    user: int = 7,
    group: int = -1,
) -> SWFRecord:
    return SWFRecord(
        job, submit, 0, runtime, alloc, -1, -1, req, estimate, -1, status, user, group,
        -1, -1, -1, -1, -1,
    )  # fmt: skip


def only_excluded(record: SWFRecord, **kwargs: object) -> ExcludedJob:
    result = clean([record], **kwargs)  # type: ignore[arg-type]
    assert result.jobs == ()
    (excluded,) = result.excluded
    return excluded


def only_job(record: SWFRecord, **kwargs: object) -> Job:
    result = clean([record], **kwargs)  # type: ignore[arg-type]
    assert result.excluded == ()
    (job,) = result.jobs
    return job


def test_an_ordinary_record_becomes_a_job() -> None:
    assert only_job(rec(3, submit=10)) == Job(3, 10, 4, 200, 100, user=7, group=None)


def test_unknown_submit_is_rejected_and_logged_at_the_last_known_submit() -> None:
    result = clean([rec(1, submit=50), rec(2, submit=-1), rec(3, submit=60)])
    (excluded,) = result.excluded
    assert (excluded.id, excluded.submit, excluded.state) == (2, 50, FinalState.REJECTED)
    assert excluded.reason == "submit time unknown (field 2 = -1)"
    assert result.report.rejected_unknown_submit == 1
    assert result.report.out_of_order == 0  # an unknown submit is not a step back
    assert only_excluded(rec(1, submit=-1)).submit == 0


@pytest.mark.parametrize("runtime", [-1, 0])
def test_cancelled_before_running_is_excluded_as_cancelled_in_log(runtime: int) -> None:
    excluded = only_excluded(rec(1, runtime=runtime, alloc=-1, status=5))
    assert excluded.state is FinalState.CANCELLED_IN_LOG
    assert excluded.reason == f"cancelled before it ran (status 5, runtime {runtime})"
    assert (excluded.procs, excluded.requested_time) == (4, 200)


def test_cancelled_while_running_is_simulated_and_counted() -> None:
    result = clean([rec(1, runtime=30, status=5)])
    assert result.jobs[0].runtime == 30
    assert result.report.cancelled_while_running == 1


@pytest.mark.parametrize("status", [0, 1, -1])
def test_unknown_runtime_is_rejected(status: int) -> None:
    excluded = only_excluded(rec(1, runtime=-1, status=status))
    assert excluded.state is FinalState.REJECTED
    assert excluded.reason == "runtime unknown (field 4 = -1)"


def test_requested_processors_fall_back_to_allocated_and_back() -> None:
    ctc_like = rec(1, alloc=8, req=-1)
    result = clean([ctc_like])
    assert result.jobs[0].procs == 8 and result.report.procs_fallback == 1
    assert only_job(rec(1, alloc=8, req=6)).procs == 6
    allocated = CleaningPolicy(procs_from="allocated")
    assert only_job(rec(1, alloc=8, req=6), policy=allocated).procs == 8
    result = clean([rec(1, alloc=-1, req=6)], policy=allocated)
    assert result.jobs[0].procs == 6 and result.report.procs_fallback == 1
    assert only_job(rec(1, alloc=0, req=3), policy=allocated).procs == 3


def test_both_processor_counts_unknown_is_rejected() -> None:
    excluded = only_excluded(rec(1, alloc=-1, req=-1))
    assert excluded.reason == "processor count unknown (fields 5 and 8 are both -1)"
    assert excluded.procs == 0


def test_jobs_larger_than_the_machine_are_rejected_naming_both_sizes() -> None:
    result = clean([rec(1, req=64), rec(2, req=32)], processors=32)
    (excluded,) = result.excluded
    assert excluded.reason == "asks for 64 processors; the machine has 32"
    assert (excluded.procs, result.report.rejected_oversized) == (64, 1)
    assert clean([rec(1, req=64)]).report.rejected_oversized == 0  # no size, no limit


def test_zero_runtime_is_one_second_by_default_or_kept() -> None:
    assert only_job(rec(1, runtime=0)).runtime == 1
    assert only_job(rec(1, runtime=0), policy=CleaningPolicy(zero_runtime="keep")).runtime == 0
    assert clean([rec(1, runtime=0)]).report.zero_runtime == 1


@pytest.mark.parametrize("estimate", [-1, 0])
def test_unknown_requested_time_becomes_the_runtime_or_is_rejected(estimate: int) -> None:
    result = clean([rec(1, runtime=70, estimate=estimate)])
    assert result.jobs[0].requested_time == 70
    assert result.report.requested_time_from_runtime == 1
    assert result.report.over_limit == 0
    policy = CleaningPolicy(unknown_requested_time="reject")
    excluded = only_excluded(rec(1, estimate=estimate), policy=policy)
    assert excluded.reason == f"requested time unknown (field 9 = {estimate})"
    assert excluded.requested_time is None


def test_zero_runtime_with_unknown_estimate_gets_one_second_for_both() -> None:
    job = only_job(rec(1, runtime=0, estimate=-1))
    assert (job.runtime, job.requested_time) == (1, 1)


def test_over_limit_kill_keeps_both_and_extend_raises_the_estimate() -> None:
    record = rec(1, runtime=300, estimate=200)
    killed = clean([record])
    assert (killed.jobs[0].runtime, killed.jobs[0].requested_time) == (300, 200)
    assert killed.report.over_limit == 1
    extended = clean([record], policy=CleaningPolicy(over_limit="extend"))
    assert (extended.jobs[0].runtime, extended.jobs[0].requested_time) == (300, 300)
    assert extended.report.over_limit == 1


def test_out_of_order_submits_are_sorted_stably_and_counted() -> None:
    records = [rec(5, submit=100), rec(2, submit=40), rec(9, submit=40), rec(1, submit=100)]
    result = clean(records)
    assert [(j.submit, j.id) for j in result.jobs] == [(40, 2), (40, 9), (100, 1), (100, 5)]
    assert result.report.out_of_order == 1


def test_first_rule_that_excludes_gives_the_reason() -> None:
    # unknown submit beats cancelled, cancelled beats unknown processors
    assert "submit" in only_excluded(rec(1, submit=-1, runtime=-1, status=5)).reason
    assert "cancelled" in only_excluded(rec(1, runtime=-1, status=5, alloc=-1, req=-1)).reason


def test_report_counts_add_up_and_render_as_a_row() -> None:
    records = [
        rec(1),
        rec(2, runtime=-1, status=5),
        rec(3, runtime=-1),
        rec(4, alloc=-1, req=-1),
        rec(5, req=99),
        rec(6, submit=-1),
    ]
    report = clean(records, processors=16).report
    assert (report.records, report.jobs, report.cancelled_in_log, report.rejected) == (6, 1, 1, 4)
    assert report.excluded == 5
    row = report.as_dict()
    assert row["policy_over_limit"] == "kill" and row["rejected"] == 4 and row["processors"] == 16
    assert "policy" not in row


def test_policy_and_arguments_are_validated() -> None:
    for field in ("over_limit", "unknown_requested_time", "zero_runtime", "procs_from"):
        with pytest.raises(InvalidValueError, match=f"CleaningPolicy.{field} = 'nope'"):
            CleaningPolicy(**{field: "nope"})  # type: ignore[arg-type]
    with pytest.raises(InvalidValueError, match="processors = 0"):
        clean([], processors=0)
    with pytest.raises(InvalidValueError):
        ExcludedJob(1, 0, 1, None, FinalState.COMPLETED, "not an exclusion")


def test_empty_input() -> None:
    result = clean([])
    assert result.jobs == () and result.excluded == ()
    assert result.report == CleaningReport(CleaningPolicy(), None, 0, 0)
