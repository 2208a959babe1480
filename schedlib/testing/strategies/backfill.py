"""Hypothesis strategies for rigid parallel jobs, workloads and clusters (backfilling).

Every strategy is valid by construction (no filtering) and takes keyword-only
bounds checked up front. They shrink towards fewer jobs, submit time 0, one
processor, the shortest requested time, exact estimates (runtime = requested
time), small machines and whole seconds.

Times are counted in *ticks*: a bound such as `max_submit` or
`max_requested_time` is a number of ticks, and the `times` bound says what a
tick is:

| `times` | a tick | what it exercises |
|---|---|---|
| `"integer"` | 1 s: every time is an exact integer | the integer traces |
| `"float"` | a float tick ([`clock`][schedlib.testing.strategies.clock]) | rounding |
| `"mixed"` (default) | either (integers first: shrinks towards them) | both |

With float ticks, times that are equal in real arithmetic (a job ending as
another's reservation begins) come out equal or an ulp apart depending on how
they were summed: a model that compares $S - t$ with $d$ instead of $t + d$
with $S$, as the papers write it, is caught there (the integer ticks never
show it).

The `runtimes` bound says how actual runtimes relate to requested times:

| `runtimes` | runtime | what it exercises |
|---|---|---|
| `"exact"` | = requested time | perfect estimates: exact reservations |
| `"early"` | in $[0, d]$; $= d$ half the time | early ends: compression, shadows moving |
| `"any"` | in $[0, 2d + 2]$; a third exact, early, over | also kills at the limit |

Examples
--------
>>> from hypothesis import given
>>> @given(parallel_instances(max_processors=4, max_jobs=5))
... def test(instance):
...     cluster, jobs = instance
...     assert all(1 <= job.procs <= cluster.processors for job in jobs)
...     assert len({job.id for job in jobs}) == len(jobs)
>>> test()
"""

from __future__ import annotations

from typing import NamedTuple

from hypothesis import strategies as st

from schedlib.errors import InvalidValueError
from schedlib.model import Cluster, Job
from schedlib.testing.strategies.clock import TIME_MODES, Clock, clocks
from schedlib.validation import require

__all__ = [
    "RUNTIME_MODES",
    "clusters",
    "parallel_instances",
    "parallel_jobs",
    "workloads",
]

RUNTIME_MODES = ("exact", "early", "any")
"""Accepted values of the `runtimes` bound."""


def _check_range(name_low: str, low: int, name_high: str, high: int, floor: int = 0) -> None:
    require(low, name_low, at_least=floor)
    require(high, name_high, at_least=floor)
    if low > high:
        raise InvalidValueError(name_low, low, f"must be <= {name_high} ({high})")


class _JobBounds(NamedTuple):
    """The bounds every job strategy shares, checked once."""

    max_submit: int
    min_requested_time: int
    max_requested_time: int
    runtimes: str
    times: str

    @classmethod
    def checked(
        cls,
        max_submit: int,
        min_requested_time: int,
        max_requested_time: int,
        runtimes: str,
        times: str,
    ) -> _JobBounds:
        require(max_submit, "max_submit", at_least=0)
        _check_range(
            "min_requested_time", min_requested_time, "max_requested_time", max_requested_time
        )
        if runtimes not in RUNTIME_MODES:
            raise InvalidValueError(
                "runtimes", runtimes, f"must be one of {', '.join(RUNTIME_MODES)}"
            )
        if times not in TIME_MODES:
            raise InvalidValueError("times", times, f"must be one of {', '.join(TIME_MODES)}")
        return cls(max_submit, min_requested_time, max_requested_time, runtimes, times)


def clusters(*, min_processors: int = 1, max_processors: int = 16) -> st.SearchStrategy[Cluster]:
    """Clusters of `min_processors` to `max_processors` processors.

    Shrinks towards `min_processors`.

    Raises
    ------
    InvalidValueError
        If `min_processors < 1` or `min_processors > max_processors`.

    Examples
    --------
    >>> from hypothesis import find
    >>> find(clusters(min_processors=2), lambda c: True)
    Cluster(processors=2, name='cluster')
    """
    _check_range("min_processors", min_processors, "max_processors", max_processors, floor=1)
    return st.integers(min_processors, max_processors).map(Cluster)


@st.composite
def _job(
    draw: st.DrawFn, job_id: int, max_procs: int, bounds: _JobBounds, clock: Clock | None
) -> Job:
    if clock is None:
        clock = draw(clocks(bounds.times))
    submit = draw(st.integers(0, bounds.max_submit))
    procs = draw(st.integers(1, max_procs))
    requested = draw(st.integers(bounds.min_requested_time, bounds.max_requested_time))
    if bounds.runtimes == "exact":
        runtime = requested
    elif bounds.runtimes == "early":  # exact about half the time; shrinks towards exact
        runtime = requested - draw(st.integers(0, 0) | st.integers(1, requested))
    else:  # exact, early or over the limit, each about a third of the time
        runtime = requested + draw(
            st.integers(0, 0) | st.integers(-requested, -1) | st.integers(1, requested + 2)
        )
    return Job(
        id=job_id,
        submit=clock.at(submit),
        procs=procs,
        requested_time=clock.span(requested),
        runtime=clock.span(runtime),
    )


@st.composite
def _workload(
    draw: st.DrawFn, processors: int, min_jobs: int, max_jobs: int, bounds: _JobBounds
) -> list[Job]:
    n = draw(st.integers(min_jobs, max_jobs))
    clock = draw(clocks(bounds.times))
    ids = draw(st.permutations(range(1, n + 1)))
    return [draw(_job(job_id, processors, bounds, clock)) for job_id in ids]


def parallel_jobs(
    *,
    job_id: int = 1,
    max_procs: int = 8,
    max_submit: int = 50,
    min_requested_time: int = 1,
    max_requested_time: int = 20,
    runtimes: str = "early",
    times: str = "mixed",
) -> st.SearchStrategy[Job]:
    """One rigid parallel job with the given id.

    Parameters
    ----------
    job_id
        The job's id, `>= 0`.
    max_procs
        Largest processor count (at least 1 is drawn).
    max_submit
        Submission time in `[0, max_submit]` ticks (from the clock's origin).
    min_requested_time, max_requested_time
        Range of the requested time in ticks (`>= 0`; the backfilling
        simulator needs `>= 1`, the default).
    runtimes
        `"exact"`, `"early"` or `"any"` (see the module).
    times
        `"mixed"`, `"integer"` or `"float"`: what a tick is (see the module).

    Returns
    -------
    SearchStrategy[Job]
        Shrinking towards submit 0, 1 processor, `min_requested_time`,
        runtime = requested time and whole seconds.

    Raises
    ------
    InvalidValueError
        For a bound out of range or an unknown `runtimes`.
    """
    require(job_id, "job_id", at_least=0)
    require(max_procs, "max_procs", at_least=1)
    bounds = _JobBounds.checked(max_submit, min_requested_time, max_requested_time, runtimes, times)
    return _job(job_id, max_procs, bounds, None)


def workloads(
    *,
    processors: int,
    min_jobs: int = 0,
    max_jobs: int = 12,
    max_submit: int = 50,
    min_requested_time: int = 1,
    max_requested_time: int = 20,
    runtimes: str = "early",
    times: str = "mixed",
) -> st.SearchStrategy[list[Job]]:
    """Lists of jobs that all fit a machine of `processors` processors.

    Job ids are a permutation of `1..n`, so ties on submit time are broken by
    ids in every order; the list itself is in no particular order.

    Parameters
    ----------
    processors
        The machine size: every job asks for 1 to `processors` processors.
    min_jobs, max_jobs
        Number of jobs.
    max_submit, min_requested_time, max_requested_time, runtimes, times
        As for [`parallel_jobs`][schedlib.testing.strategies.backfill.parallel_jobs]
        (one tick for the whole workload).

    Returns
    -------
    SearchStrategy[list[Job]]
        Shrinking towards `min_jobs` jobs, ids in list order, and the
        shrinking of each job.

    Raises
    ------
    InvalidValueError
        For a bound out of range or an unknown `runtimes`.

    Examples
    --------
    >>> from hypothesis import find
    >>> find(workloads(processors=4, min_jobs=2), lambda jobs: True)  # doctest: +ELLIPSIS
    [Job(id=1, submit=0, procs=1, requested_time=1, runtime=1, ...), Job(id=2, ...)]
    """
    require(processors, "processors", at_least=1)
    _check_range("min_jobs", min_jobs, "max_jobs", max_jobs)
    bounds = _JobBounds.checked(max_submit, min_requested_time, max_requested_time, runtimes, times)
    return _workload(processors, min_jobs, max_jobs, bounds)


@st.composite
def _instance(
    draw: st.DrawFn,
    min_processors: int,
    max_processors: int,
    min_jobs: int,
    max_jobs: int,
    bounds: _JobBounds,
) -> tuple[Cluster, list[Job]]:
    cluster = draw(clusters(min_processors=min_processors, max_processors=max_processors))
    return cluster, draw(_workload(cluster.processors, min_jobs, max_jobs, bounds))


def parallel_instances(
    *,
    min_processors: int = 1,
    max_processors: int = 8,
    min_jobs: int = 0,
    max_jobs: int = 12,
    max_submit: int = 50,
    min_requested_time: int = 1,
    max_requested_time: int = 20,
    runtimes: str = "early",
    times: str = "mixed",
) -> st.SearchStrategy[tuple[Cluster, list[Job]]]:
    """A cluster and a workload that fits it: the input of a backfilling run.

    Parameters
    ----------
    min_processors, max_processors
        Machine size range.
    min_jobs, max_jobs, max_submit, min_requested_time, max_requested_time, runtimes, times
        As for [`workloads`][schedlib.testing.strategies.backfill.workloads].

    Returns
    -------
    SearchStrategy[tuple[Cluster, list[Job]]]
        Shrinking towards a small machine, few jobs and exact estimates.

    Raises
    ------
    InvalidValueError
        For a bound out of range or an unknown `runtimes`.
    """
    _check_range("min_processors", min_processors, "max_processors", max_processors, floor=1)
    _check_range("min_jobs", min_jobs, "max_jobs", max_jobs)
    bounds = _JobBounds.checked(max_submit, min_requested_time, max_requested_time, runtimes, times)
    return _instance(min_processors, max_processors, min_jobs, max_jobs, bounds)
