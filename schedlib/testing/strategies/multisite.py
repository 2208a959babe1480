"""Hypothesis strategies for multi-site instances: sites, a runtime matrix and a job stream.

Valid by construction: every job fits the largest site (a job too large for
some sites is still drawn, and those sites never get its copy). Times are
counted in ticks of a [`Clock`][schedlib.testing.strategies.clock.Clock]
(`times`). With whole seconds (`"integer"`) the runtime factors are multiples
of 1/2 ([`EXACT_FACTORS`][schedlib.testing.strategies.multisite.EXACT_FACTORS]),
so every time a run computes is exact in binary floating point. With
`"float"` the tick is a float and the factors are normalised factors of Table 1
of Sabin et al. (2003)
([`FLOAT_FACTORS`][schedlib.testing.strategies.multisite.FLOAT_FACTORS]), as in
the paper's runs: times that are equal in real arithmetic come out equal or an
ulp apart. `"mixed"` (the default) gives whole seconds to instances with an
odd number of jobs and a float tick to the others, with the factors of 1/2:
the instance is an integer one scaled by the tick, chosen from its shape with
no draw of its own, so a derandomized search (the conformance suite's) meets
the same shapes as with whole seconds, half of them in float time. They
shrink towards one site of one processor, one job class of factor 1, few
jobs submitted at 0, exact estimates and whole seconds.

Examples
--------
>>> from hypothesis import given
>>> @given(multisite_instances(max_sites=3, max_jobs=4))
... def test(instance):
...     sites, matrix, jobs = instance
...     assert matrix.sites == len(sites)
...     assert all(job.procs <= max(s.processors for s in sites) for job in jobs)
>>> test()
"""

from __future__ import annotations

from hypothesis import strategies as st

from schedlib.errors import InvalidValueError
from schedlib.multisite.jobs import MultiSiteJob
from schedlib.multisite.sites import RuntimeMatrix, Site
from schedlib.testing.strategies.clock import (
    FLOAT_ORIGINS,
    FLOAT_TICKS,
    TIME_MODES,
    Clock,
    clocks,
)
from schedlib.validation import require

__all__ = ["EXACT_FACTORS", "FLOAT_FACTORS", "MULTISITE_RUNTIMES", "multisite_instances"]

EXACT_FACTORS = (1.0, 0.5, 1.5, 2.0)
"""Runtime factors drawn with whole seconds (exact in binary)."""

FLOAT_FACTORS: tuple[float, ...] = tuple(
    RuntimeMatrix.paper().factor(c, s) for c, s in ((0, 3), (0, 2), (0, 0), (1, 1))
)
"""Runtime factors drawn with a float tick, one for each of `EXACT_FACTORS`: normalised
factors of Table 1 (1, 16.3/17.7, 23.3/17.7, 34.3/17.2)."""

MULTISITE_RUNTIMES = ("exact", "early", "any")
"""Accepted values of `runtimes`: = requested; at most requested; also over it (killed)."""


@st.composite
def _instance(
    draw: st.DrawFn,
    max_sites: int,
    max_processors: int,
    max_classes: int,
    max_jobs: int,
    max_submit: int,
    max_requested_time: int,
    runtimes: str,
    times: str,
) -> tuple[tuple[Site, ...], RuntimeMatrix, tuple[MultiSiteJob, ...]]:
    n = draw(st.integers(1, max_sites))
    sizes = [draw(st.integers(1, max_processors)) for _ in range(n)]
    classes = draw(st.integers(1, max_classes))
    factors = [[draw(st.sampled_from(EXACT_FACTORS)) for _ in range(n)] for _ in range(classes)]
    widest = max(sizes)
    drawn = []
    for _ in range(draw(st.integers(1, max_jobs))):
        requested = draw(st.integers(1, max_requested_time))
        if runtimes == "exact":
            runtime = requested
        elif runtimes == "early":
            runtime = draw(st.sampled_from((requested, draw(st.integers(0, requested)))))
        else:
            runtime = draw(st.integers(0, 2 * requested + 2))
        submit = draw(st.integers(0, max_submit))
        procs = draw(st.integers(1, widest))
        job_class = draw(st.integers(0, classes - 1))
        drawn.append((submit, procs, requested, runtime, job_class, draw(st.integers(0, n - 1))))
    # The time scale last: the rest is drawn as with whole seconds, then scaled.
    if times == "mixed":  # from the shape drawn, with no draw of its own (see the module)
        clock = Clock(1, 0)
        if len(drawn) % 2 == 0:
            total = sum(job[0] + job[2] for job in drawn)
            clock = Clock(FLOAT_TICKS[total % len(FLOAT_TICKS)], FLOAT_ORIGINS[n % 2])
    else:
        clock = draw(clocks(times))
    if times == "float":
        factors = [[FLOAT_FACTORS[EXACT_FACTORS.index(f)] for f in row] for row in factors]
    sites = tuple(Site(f"site{s}", size) for s, size in enumerate(sizes))
    matrix = RuntimeMatrix(factors, tuple(f"class{c}" for c in range(classes)))
    jobs = [
        MultiSiteJob(
            job_id,
            clock.at(submit),
            procs,
            clock.span(requested),
            clock.span(runtime),
            job_class=job_class,
            origin=origin,
        )
        for job_id, (submit, procs, requested, runtime, job_class, origin) in enumerate(drawn)
    ]
    return sites, matrix, tuple(jobs)


def multisite_instances(
    *,
    max_sites: int = 4,
    max_processors: int = 6,
    max_classes: int = 3,
    max_jobs: int = 8,
    max_submit: int = 10,
    max_requested_time: int = 12,
    runtimes: str = "early",
    times: str = "mixed",
) -> st.SearchStrategy[tuple[tuple[Site, ...], RuntimeMatrix, tuple[MultiSiteJob, ...]]]:
    """`(sites, matrix, jobs)`: 1..`max_sites` sites, a runtime matrix and a job stream.

    Job ids are `0..n-1`; each job has a class (a matrix row) and an origin
    site. `runtimes` is `"exact"` (runtime = requested time: reservations
    are kept exactly), `"early"` (at most the requested time, half of them
    exact) or `"any"` (also beyond it: killed at the limit). `times` is
    `"mixed"`, `"integer"` or `"float"` (see the module); `max_submit` and
    `max_requested_time` count ticks.

    Raises
    ------
    InvalidValueError
        If a bound is below 1 (`max_submit` below 0), or `runtimes` or `times`
        is unknown.
    """
    for name, value in (
        ("max_sites", max_sites),
        ("max_processors", max_processors),
        ("max_classes", max_classes),
        ("max_jobs", max_jobs),
        ("max_requested_time", max_requested_time),
    ):
        require(value, name, at_least=1)
    require(max_submit, "max_submit", at_least=0)
    if runtimes not in MULTISITE_RUNTIMES:
        raise InvalidValueError("runtimes", runtimes, f"must be one of {MULTISITE_RUNTIMES}")
    if times not in TIME_MODES:
        raise InvalidValueError("times", times, f"must be one of {', '.join(TIME_MODES)}")
    return _instance(
        max_sites,
        max_processors,
        max_classes,
        max_jobs,
        max_submit,
        max_requested_time,
        runtimes,
        times,
    )
