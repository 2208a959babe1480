"""Differential test: schedlib's FCFS, EASY and conservative against the benchmark's plain loop.

The plain loop (`plain_run` in benchmarks/backfill.py) is a separate
dict-and-list implementation with the same tie rules (one pass per instant,
completions before arrivals, half-open intervals, queue by submit then id,
EASY shadow time from planned ends with extra processors; conservative:
earliest fit on arrival, every waiting job re-placed in queue order when
jobs end early). Every job must
start at the same second in both, on slices of real traces (the full traces
agree too; the Performance page gives the check).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from schedlib.backfill import schedule
from schedlib.model import Cluster, Job
from schedlib.workloads import load_workload

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "backfill.py"


def _benchmark() -> ModuleType:
    spec = importlib.util.spec_from_file_location("benchmark_backfill", BENCHMARK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bench = _benchmark()


def _starts(jobs: list[Job], cluster: Cluster, policy: str) -> dict[int, float]:
    record = schedule(jobs, cluster, policy=policy)
    return {o.job: o.start for o in record.outcomes if o.start is not None}


@pytest.mark.parametrize("policy", bench.PLAIN)
@pytest.mark.parametrize(
    ("trace", "processors"),
    [("SDSC-SP2-1998-4.2-cln.swf.gz", None), ("CTC-SP2-1996-3.1-cln.swf.gz", 430)],
)
def test_same_start_for_every_job_on_a_trace_slice(
    traces_dir: Path, trace: str, processors: int | None, policy: str
) -> None:
    workload = load_workload(traces_dir / trace, processors=processors, limit=5000)
    jobs = list(workload.jobs)
    ours = _starts(jobs, workload.cluster, policy)
    plain = bench.plain_run(bench.plain_jobs(jobs), workload.cluster.processors, policy)
    assert len(ours) == len(jobs)
    assert ours == plain


CASES = [
    [
        Job(1, 0, 2, 10, 10),  # ends at 10: job 3 starts at 10 (half-open)
        Job(2, 0, 2, 20, 5),  # ends early, at 5
        Job(3, 1, 4, 10, 10),
        Job(4, 2, 1, 3, 50),  # killed at its request
        Job(5, 2, 1, 4, 0),  # zero-length
    ],
    [
        Job(1, 0, 4, 100, 10),  # ends early: the schedule is compressed at 10
        Job(2, 1, 4, 10, 10),  # reserved at 100, starts at 10
        Job(3, 2, 2, 50, 50),  # reserved at 110, moves to 20
        Job(4, 3, 2, 5, 5),
        Job(5, 10, 1, 200, 200),  # arrives at the instant of the early end
    ],
]


@pytest.mark.parametrize("jobs", CASES)
@pytest.mark.parametrize("policy", bench.PLAIN)
def test_tie_rules_on_hand_made_cases(policy: str, jobs: list[Job]) -> None:
    """Ends and starts at the same second, a killed job, early ends, a zero-length job."""
    ours = _starts(jobs, Cluster(4), policy)
    assert ours == bench.plain_run(bench.plain_jobs(jobs), 4, policy)
