"""load_workload, the machine size rule, and the Workload type."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

from schedlib.errors import InvalidValueError, WorkloadFormatError
from schedlib.model import Cluster, FinalState, Job
from schedlib.workloads import (
    CleaningPolicy,
    ExcludedJob,
    Workload,
    load_workload,
    workload_name,
)

LINE = "{job} {submit} 0 {runtime} {procs} -1 -1 {procs} 200 -1 {status} 1 1 -1 -1 -1 -1 -1\n"


def trace(tmp_path: Path, header: str, *jobs: tuple[int, int, int, int]) -> Path:
    """A small SWF file; each job is (number, submit, procs, status); status 5 jobs
    were cancelled before they ran (runtime -1), the others ran for 100 s."""
    path = tmp_path / "small.swf"
    body = "".join(
        LINE.format(job=j, submit=s, procs=p, status=st, runtime=-1 if st == 5 else 100)
        for j, s, p, st in jobs
    )
    path.write_text(header + body)
    return path


JOBS = ((1, 0, 4, 1), (2, 10, 16, 1), (3, 5, 2, 5))


@pytest.mark.parametrize(
    ("header", "processors", "size", "source"),
    [
        ("; MaxNodes: 8\n; MaxProcs: 32\n", None, 32, "header MaxProcs"),
        ("; MaxNodes: 20\n", None, 20, "header MaxNodes"),
        ("; Version: 2.2\n", None, 16, "largest job"),
        ("; MaxProcs: 32\n", 430, 430, "argument"),
    ],
)
def test_machine_size_argument_then_maxprocs_then_maxnodes_then_largest_job(
    tmp_path: Path, header: str, processors: int | None, size: int, source: str
) -> None:
    w = load_workload(trace(tmp_path, header, *JOBS), processors=processors)
    assert w.cluster == Cluster(size, "small")
    assert (w.processors_source, w.report.processors) == (source, size)
    assert f"{size} processors ({source})" in w.describe()


def test_maxnodes_smaller_than_a_job_rejects_it(tmp_path: Path) -> None:
    w = load_workload(trace(tmp_path, "; MaxNodes: 8\n", *JOBS))
    assert [(x.id, x.reason) for x in w.excluded if x.state is FinalState.REJECTED] == [
        (2, "asks for 16 processors; the machine has 8")
    ]


def test_a_smaller_machine_than_the_trace_rejects_what_does_not_fit(tmp_path: Path) -> None:
    w = load_workload(trace(tmp_path, "; MaxProcs: 32\n", *JOBS), processors=4)
    assert [j.id for j in w.jobs] == [1]
    assert w.report.rejected_oversized == 1 and w.report.cancelled_in_log == 1
    assert w.records == 3 == w.parse_report.records  # type: ignore[union-attr]


def test_jobs_and_excluded_are_sorted_by_submit_then_id(tmp_path: Path) -> None:
    w = load_workload(trace(tmp_path, "", (9, 50, 1, 1), (4, 50, 1, 1), (7, 20, 1, 5)))
    assert [j.id for j in w.jobs] == [4, 9]
    assert [(x.id, x.state) for x in w.excluded] == [(7, FinalState.CANCELLED_IN_LOG)]


def test_limit_policy_and_lenient_mode(tmp_path: Path) -> None:
    path = trace(tmp_path, "; MaxProcs: 32\n", *JOBS)
    assert load_workload(path, limit=2).records == 2
    extended = load_workload(path, cleaning=CleaningPolicy(over_limit="extend"))
    assert extended.report.policy.over_limit == "extend"
    path.write_text(path.read_text() + "garbage line\n")
    with pytest.raises(WorkloadFormatError, match=r"small\.swf:5: expected 18 fields"):
        load_workload(path)
    lenient = load_workload(path, strict=False)
    assert lenient.records == 3
    assert [s.line for s in lenient.parse_report.skipped] == [5]  # type: ignore[union-attr]


def test_bad_arguments(tmp_path: Path) -> None:
    path = trace(tmp_path, "", *JOBS)
    with pytest.raises(InvalidValueError, match="processors = 0"):
        load_workload(path, processors=0)
    with pytest.raises(InvalidValueError, match="limit"):
        load_workload(path, limit=-3)
    with pytest.raises(FileNotFoundError):
        load_workload(tmp_path / "missing.swf")


def test_workload_name_strips_swf_and_gz() -> None:
    assert workload_name("a/b/KTH-SP2-1996-2.1-cln.swf.gz") == "KTH-SP2-1996-2.1-cln"
    assert workload_name("trace.swf") == "trace"
    assert workload_name("trace.txt") == "trace.txt"


def test_workload_from_jobs_and_its_validation() -> None:
    jobs = [Job(2, 5, 1, 10, 10), Job(1, 5, 2, 10, 8)]
    excluded = [ExcludedJob(3, 0, 1, None, FinalState.CANCELLED_IN_LOG, "cancelled")]
    w = Workload.from_jobs(jobs, 4, name="toy", excluded=excluded)
    assert [j.id for j in w.jobs] == [1, 2] and w.records == 3
    assert (w.report.records, w.report.jobs, w.report.cancelled_in_log) == (3, 2, 1)
    with pytest.raises(InvalidValueError, match="unique"):
        Workload.from_jobs([Job(1, 0, 1, 1, 1), Job(1, 3, 1, 1, 1)], 4)
    with pytest.raises(InvalidValueError, match="processors"):
        Workload.from_jobs(jobs, 0)
    with pytest.raises(InvalidValueError, match=r"Workload.jobs .*sorted by \(submit, id\)"):
        attrs.evolve(w, jobs=tuple(reversed(w.jobs)))
