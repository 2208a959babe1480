"""The public strategies for parallel jobs: bounds checked up front, valid output."""

from __future__ import annotations

import pytest
from hypothesis import find, given
from hypothesis import strategies as st

from schedlib.errors import InvalidValueError
from schedlib.model import Cluster, Job
from schedlib.testing.strategies import (
    FLOAT_ORIGINS,
    FLOAT_TICKS,
    RUNTIME_MODES,
    TIME_MODES,
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
        (lambda: parallel_jobs(times="decimal"), "times"),
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


def _ticks(value: float, tick: float, origin: float = 0.0) -> int | None:
    """The `k` with `value == origin + k * tick` as the strategies compute it, if any."""
    k = round((value - origin) / tick)
    expected = k if tick == 1 else (origin + k * tick if origin else k * tick)
    return k if value == expected else None


def _clocks_of(jobs: list[Job]) -> list[tuple[float, float]]:
    """Every (tick, origin) that all the workload's times are made of.

    Several can: 3.5 is 35 ticks of 0.1 and 5 ticks of 0.7 (both exact), so the
    clock the strategy drew is one of these, not necessarily the first.
    """
    return [
        (tick, origin)
        for tick, origin in [(1, 0.0)] + [(t, o) for t in FLOAT_TICKS for o in FLOAT_ORIGINS]
        if all(
            _ticks(j.submit, tick, origin) is not None
            and _ticks(j.requested_time, tick) is not None
            and _ticks(j.runtime, tick) is not None
            for j in jobs
        )
    ]


def _violations(
    jobs: list[Job], processors: int, runtimes: str, times: str, tick: float, origin: float
) -> list[str]:
    """What the workload breaks of the strategy's bounds, read on the clock (tick, origin)."""
    broken = []
    if (times == "integer" or (jobs and tick == 1)) and not (
        tick == 1 and all(type(x) is int for j in jobs for x in (j.submit, j.runtime))
    ):
        broken.append("whole seconds must be ints")
    if (
        times == "float"
        and jobs
        and not (tick in FLOAT_TICKS and all(isinstance(j.submit, float) for j in jobs))
    ):
        broken.append("float times must be float ticks")
    for job in jobs:
        submit, requested = _ticks(job.submit, tick, origin), _ticks(job.requested_time, tick)
        runtime = _ticks(job.runtime, tick)
        assert submit is not None and requested is not None and runtime is not None
        if not (isinstance(job, Job) and 1 <= job.procs <= processors):
            broken.append(f"job {job.id}: procs {job.procs}")
        if not (1 <= requested <= 9 and 0 <= submit <= 50):
            broken.append(f"job {job.id}: requested {requested}, submit {submit} ticks")
        if runtimes == "exact":
            ok = job.runtime == job.requested_time
        elif runtimes == "early":
            ok = 0 <= runtime <= requested
        else:
            ok = 0 <= runtime <= 2 * requested + 2
        if not ok:
            broken.append(f"job {job.id}: runtime {runtime} ticks ({runtimes})")
    return broken


@pytest.mark.parametrize("times", TIME_MODES)
@pytest.mark.parametrize("runtimes", RUNTIME_MODES)
@given(data=st.data())
def test_instances_are_valid_by_construction(
    runtimes: str, times: str, data: st.DataObject
) -> None:
    cluster, jobs = data.draw(
        parallel_instances(
            max_processors=5, max_jobs=8, max_requested_time=9, runtimes=runtimes, times=times
        )
    )
    assert isinstance(cluster, Cluster) and 1 <= cluster.processors <= 5
    assert sorted(j.id for j in jobs) == list(range(1, len(jobs) + 1))
    candidates = _clocks_of(jobs)
    assert candidates, f"no tick makes {jobs}"
    reasons = {
        clock: _violations(jobs, cluster.processors, runtimes, times, *clock)
        for clock in candidates
    }
    assert any(not broken for broken in reasons.values()), reasons


def test_float_times_shrink_towards_whole_seconds() -> None:
    _, jobs = find(parallel_instances(min_jobs=1), lambda instance: True)
    assert [(j.submit, j.requested_time) for j in jobs] == [(0, 1)]
    _, jobs = find(parallel_instances(min_jobs=1, times="float"), lambda instance: True)
    assert [(j.submit, j.requested_time) for j in jobs] == [(0.0, FLOAT_TICKS[0])]


@given(job=parallel_jobs(job_id=7, max_procs=3, min_requested_time=4, max_requested_time=4))
def test_one_job(job: Job) -> None:
    tick = job.requested_time / 4
    assert job.id == 7 and job.procs <= 3 and tick in (1, *FLOAT_TICKS)
