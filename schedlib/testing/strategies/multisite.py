"""Hypothesis strategies for multi-site instances: sites, a runtime matrix and a job stream.

Valid by construction: every job fits the largest site (a job too large for
some sites is still drawn, and those sites never get its copy), times are
whole seconds and runtime factors are by default multiples of 1/2, so every
time a run computes is exact in binary floating point; `factors=` draws others
(the paper's Table 1, [`PAPER_FACTORS`][schedlib.testing.strategies.multisite.PAPER_FACTORS],
gives float times, as in the paper's experiments). They shrink towards one
site of one processor, one job class of the first factor, few jobs submitted
at 0, exact estimates.

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

from collections.abc import Sequence

from hypothesis import strategies as st

from schedlib.errors import InvalidValueError
from schedlib.multisite.jobs import MultiSiteJob
from schedlib.multisite.sites import RuntimeMatrix, Site
from schedlib.validation import require

__all__ = ["EXACT_FACTORS", "MULTISITE_RUNTIMES", "PAPER_FACTORS", "multisite_instances"]

EXACT_FACTORS = (1.0, 0.5, 1.5, 2.0)
"""Runtime factors drawn by default (exact in binary)."""

PAPER_FACTORS = tuple(sorted({f for row in RuntimeMatrix.paper().factors for f in row}))
"""Every factor of the paper's Table 1, normalised: the times computed become floats."""

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
    palette: tuple[float, ...],
) -> tuple[tuple[Site, ...], RuntimeMatrix, tuple[MultiSiteJob, ...]]:
    n = draw(st.integers(1, max_sites))
    sites = tuple(Site(f"site{s}", draw(st.integers(1, max_processors))) for s in range(n))
    classes = draw(st.integers(1, max_classes))
    rows = tuple(tuple(draw(st.sampled_from(palette)) for _ in range(n)) for _ in range(classes))
    matrix = RuntimeMatrix(rows, tuple(f"class{c}" for c in range(classes)))
    widest = max(s.processors for s in sites)
    jobs = []
    for job_id in range(draw(st.integers(1, max_jobs))):
        requested = draw(st.integers(1, max_requested_time))
        if runtimes == "exact":
            runtime = requested
        elif runtimes == "early":
            runtime = draw(st.sampled_from((requested, draw(st.integers(0, requested)))))
        else:
            runtime = draw(st.integers(0, 2 * requested + 2))
        jobs.append(
            MultiSiteJob(
                job_id,
                draw(st.integers(0, max_submit)),
                draw(st.integers(1, widest)),
                requested,
                runtime,
                job_class=draw(st.integers(0, classes - 1)),
                origin=draw(st.integers(0, n - 1)),
            )
        )
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
    factors: Sequence[float] = EXACT_FACTORS,
) -> st.SearchStrategy[tuple[tuple[Site, ...], RuntimeMatrix, tuple[MultiSiteJob, ...]]]:
    """`(sites, matrix, jobs)`: 1..`max_sites` sites, a runtime matrix and a job stream.

    Job ids are `0..n-1`; each job has a class (a matrix row) and an origin
    site. `runtimes` is `"exact"` (runtime = requested time: reservations
    are kept exactly), `"early"` (at most the requested time, half of them
    exact) or `"any"` (also beyond it: killed at the limit). Each runtime
    factor of the matrix is drawn from `factors`.

    Raises
    ------
    InvalidValueError
        If a bound is below 1 (`max_submit` below 0), `runtimes` is unknown,
        or `factors` is empty or holds a factor that is not a finite number > 0.
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
    chosen = tuple(factors)
    if not chosen or not all(0 < f < float("inf") for f in chosen):
        raise InvalidValueError("factors", chosen, "must be finite numbers > 0, at least one")
    return _instance(
        max_sites,
        max_processors,
        max_classes,
        max_jobs,
        max_submit,
        max_requested_time,
        runtimes,
        chosen,
    )
