"""The jobs of a volatile grid: independent jobs of a bag of tasks, and runtime updates.

Verboven et al. (2008) schedule Bag-of-Tasks applications (§1): independent
jobs, each run on one resource, whose runtime the scheduler is told in
advance (exactly, for the paper's sleep jobs, §4.1) and may be told again
later (§2.1). [`with_estimate_errors`][schedlib.availability.jobs.with_estimate_errors]
makes those estimates inexact, as §5 asks;
[`with_overhead`][schedlib.availability.jobs.with_overhead] adds the fixed cost a real
grid spends on each job (submission, start-up), told to the scheduler or not.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

import attrs

from schedlib.errors import InvalidValueError
from schedlib.model import JobId, Time
from schedlib.validation import at_least, finite_at_least, require

__all__ = ["BagJob", "RuntimeUpdate", "with_estimate_errors", "with_overhead"]


def _runtime_default(self: Any) -> Time:
    return self.runtime  # type: ignore[no-any-return]


@attrs.frozen(slots=True)
class BagJob:
    """An independent job of a bag of tasks (Verboven et al. 2008 §1: Bag-of-Tasks applications).

    Attributes
    ----------
    id
        Unique identifier, `>= 0`.
    submit
        Submission time, `>= 0`.
    runtime
        Actual runtime in seconds, finite and `>= 0`. Never shown to the
        scheduler.
    estimate
        The runtime the scheduler is told (defaults to `runtime`: exact, as
        for the paper's sleep jobs, §4.1).

    Notes
    -----
    Runs on one resource at a time (`procs` is 1), so a
    [`RunRecord`][schedlib.model.RunRecord] can hold it.

    Examples
    --------
    >>> BagJob(1, 0, 60)
    BagJob(id=1, submit=0, runtime=60, estimate=60)
    >>> BagJob(2, 0, -1)
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: BagJob.runtime = -1: must be a finite number >= 0
    """

    id: JobId = attrs.field(validator=at_least(0))
    submit: Time = attrs.field(validator=finite_at_least(0))
    runtime: Time = attrs.field(validator=finite_at_least(0))
    estimate: Time = attrs.field(
        default=attrs.Factory(_runtime_default, takes_self=True), validator=finite_at_least(0)
    )

    @property
    def procs(self) -> int:
        """Processing units held while running: always 1."""
        return 1


@attrs.frozen(slots=True)
class RuntimeUpdate:
    """A revised runtime estimate, sent after submission (Verboven et al. 2008 §2.1).

    "An optional interface is added which allows the prediction component to
    update job runtimes even after submission to the scheduler." From `time`
    on, the scheduler uses `estimate` for the job wherever it is (waiting,
    queued on a resource, or running); assignments already made are not
    revised. Updates for jobs that have ended are ignored.

    Attributes
    ----------
    time
        When the update arrives (not before the job's submission).
    job
        The job's id.
    estimate
        The new estimated runtime, finite and `>= 0`.
    """

    time: Time = attrs.field(validator=finite_at_least(0))
    job: JobId = attrs.field(validator=at_least(0))
    estimate: Time = attrs.field(validator=finite_at_least(0))


def with_estimate_errors(
    jobs: Iterable[BagJob], *, error: float, rng: random.Random
) -> tuple[BagJob, ...]:
    """Give each job an estimate off its runtime by a random factor.

    Parameters
    ----------
    jobs
        The jobs (their `runtime` is kept).
    error
        Largest relative error, in $[0, 1)$: the estimate is
        $\\text{runtime} \\cdot f$, $f$ uniform on $[1 - \\text{error}, 1 + \\text{error}]$.
    rng
        The source of randomness.

    Returns
    -------
    tuple of BagJob
        The jobs with their new estimates, in order.

    Raises
    ------
    InvalidValueError
        If `error` is outside $[0, 1)$.

    Notes
    -----
    Verboven et al. (2008) §5: "It is however not realistic to assume job runtimes
    prediction to be 100% accurate." Complexity $O(n)$.

    Examples
    --------
    >>> jobs = with_estimate_errors([BagJob(1, 0, 100)], error=0.5, rng=random.Random(3))
    >>> 50 <= jobs[0].estimate <= 150, jobs[0].runtime
    (True, 100)
    """
    require(error, "error", at_least=0)
    if not error < 1:
        raise InvalidValueError("error", error, "must be < 1")
    return tuple(
        attrs.evolve(job, estimate=job.runtime * rng.uniform(1 - error, 1 + error)) for job in jobs
    )


def with_overhead(jobs: Iterable[BagJob], overhead: Time, *, known: bool) -> tuple[BagJob, ...]:
    """Add a fixed per-job overhead to every job's runtime, and to its estimate if `known`.

    A real grid spends some time on each job besides the job itself:
    submitting it to the resource, starting the worker's process, reporting
    the result. The resource is busy meanwhile, and a resource that goes
    down during it loses the job as during the job proper.

    Parameters
    ----------
    jobs
        The jobs.
    overhead
        Seconds added to each job's runtime (finite, `>= 0`).
    known
        Whether the scheduler is told: the estimate grows by the overhead
        too (PGS's $tl$ then counts it), or stays as it was (PGS then
        under-estimates every job by `overhead` and may start one that
        cannot end before its resource goes down).

    Returns
    -------
    tuple of BagJob
        The jobs, in order, with the same ids and submission times.

    Raises
    ------
    InvalidValueError
        If `overhead` is negative or not finite.

    Notes
    -----
    $r'_j = r_j + o$; $e'_j = e_j + o$ if known, else $e_j$. Complexity $O(n)$.

    References
    ----------
    Verboven et al. (2008) §4.3: with resources that never go down (scenario 0) the
    paper's runs take 63.2-63.5 min where the work alone takes 60.25 min.

    Examples
    --------
    >>> with_overhead([BagJob(1, 0, 10)], 1.5, known=False)
    (BagJob(id=1, submit=0, runtime=11.5, estimate=10),)
    >>> with_overhead([BagJob(1, 0, 10)], 1.5, known=True)[0].estimate
    11.5
    """
    require(overhead, "overhead", at_least=0)
    if overhead == float("inf"):
        raise InvalidValueError("overhead", overhead, "must be finite")
    return tuple(
        attrs.evolve(
            job,
            runtime=job.runtime + overhead,
            estimate=job.estimate + overhead if known else job.estimate,
        )
        for job in jobs
    )
