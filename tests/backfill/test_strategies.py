"""The public strategies for parallel jobs: bounds checked up front, valid output."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlib.errors import InvalidValueError
from schedlib.model import Cluster, Job
from schedlib.testing.strategies import (
    RUNTIME_MODES,
    clusters,
    parallel_instances,
    parallel_jobs,
    workloads,
)


@pytest.mark.parametrize(
    ("make", "field"),
    [
        (lambda: clusters(min_processors=0), "min_processors"),
        (lambda: clusters(min_processors=5, max_processors=4), "min_processors"),
        (lambda: parallel_jobs(job_id=-1), "job_id"),
        (lambda: parallel_jobs(max_procs=0), "max_procs"),
        (lambda: parallel_jobs(max_submit=-1), "max_submit"),
        (lambda: parallel_jobs(min_requested_time=3, max_requested_time=2), "min_requested_time"),
        (lambda: parallel_jobs(runtimes="late"), "runtimes"),
        (lambda: workloads(processors=0), "processors"),
        (lambda: workloads(processors=2, min_jobs=3, max_jobs=2), "min_jobs"),
        (lambda: parallel_instances(max_processors=0), "max_processors"),
        (lambda: parallel_instances(min_jobs=-1), "min_jobs"),
    ],
)
def test_bad_bounds_are_refused_before_drawing(make: object, field: str) -> None:
    with pytest.raises(InvalidValueError) as error:
        make()  # type: ignore[operator]
    assert error.value.field == field


@pytest.mark.parametrize("runtimes", RUNTIME_MODES)
@given(data=st.data())
def test_instances_are_valid_by_construction(runtimes: str, data: st.DataObject) -> None:
    cluster, jobs = data.draw(
        parallel_instances(max_processors=5, max_jobs=8, max_requested_time=9, runtimes=runtimes)
    )
    assert isinstance(cluster, Cluster) and 1 <= cluster.processors <= 5
    assert sorted(j.id for j in jobs) == list(range(1, len(jobs) + 1))
    for job in jobs:
        assert isinstance(job, Job) and 1 <= job.procs <= cluster.processors
        assert 1 <= job.requested_time <= 9 and 0 <= job.submit <= 50
        if runtimes == "exact":
            assert job.runtime == job.requested_time
        elif runtimes == "early":
            assert 0 <= job.runtime <= job.requested_time
        else:
            assert 0 <= job.runtime <= 2 * job.requested_time + 2


@given(job=parallel_jobs(job_id=7, max_procs=3, min_requested_time=4, max_requested_time=4))
def test_one_job(job: Job) -> None:
    assert job.id == 7 and job.procs <= 3 and job.requested_time == 4
