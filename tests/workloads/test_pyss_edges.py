"""The pyss cleaning rules at their edges (the rules: `schedlib.workloads.cleaning`).

pyss narrows a job *wider* than the machine to N processors (counted in
`procs_capped`); a job exactly N wide is left alone. A record whose runtime is 0 (or
negative) becomes a 1-second job: requested time 1, runtime 1 (counted in
`one_second`), whatever its request.
"""

from __future__ import annotations

from schedlib.workloads import CleaningPolicy, clean
from schedlib.workloads.swf import SWFRecord

PYSS = CleaningPolicy.named("pyss")


def rec(job: int, submit: int, runtime: int, alloc: int, requested: int) -> SWFRecord:
    return SWFRecord(
        job, submit, 0, runtime, alloc, -1, -1, -1, requested, -1, 1, 3, 4, -1, -1, -1, -1, -1
    )


def test_a_job_exactly_as_wide_as_the_machine_is_not_capped() -> None:
    """Decision: capped means wider than N (procs > N), not as wide (procs = N)."""
    result = clean([rec(1, 0, 10, 64, 20), rec(2, 1, 10, 65, 20)], processors=64, policy=PYSS)
    assert [(j.id, j.procs) for j in result.jobs] == [(1, 64), (2, 64)]
    assert result.report.procs_capped == 1  # job 2 only
    exact = clean([rec(1, 0, 10, 64, 20)], processors=64, policy=PYSS)
    assert exact.report.procs_capped == 0
    assert "narrowed" not in exact.report.summary()


def test_a_runtime_zero_record_becomes_a_one_second_job() -> None:
    """Decision: runtime <= 0 makes a 1-second job (request 1, runtime 1), counted."""
    result = clean([rec(1, 0, 0, 4, 600), rec(2, 5, 1, 4, 600)], processors=64, policy=PYSS)
    jobs = {j.id: (j.procs, j.requested_time, j.runtime) for j in result.jobs}
    assert jobs == {1: (4, 1, 1), 2: (4, 600, 1)}  # job 2 (runtime 1) keeps its request
    assert result.report.one_second == 1
