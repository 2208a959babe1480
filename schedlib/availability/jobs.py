"""The jobs of a volatile grid: independent jobs of a bag of tasks, and runtime updates.

Verboven et al. (2008) schedule Bag-of-Tasks applications (§1): independent
jobs, each run on one resource, whose runtime the scheduler is told in
advance (exactly, for the paper's sleep jobs, §4.1) and may be told again
later (§2.1). [`with_estimate_errors`][schedlib.availability.jobs.with_estimate_errors]
makes those estimates inexact, as §5 asks.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

import attrs

from schedlib.errors import InvalidValueError
from schedlib.model import JobId, Time
from schedlib.validation import at_least, finite_at_least, require

__all__ = ["BagJob", "RuntimeUpdate", "with_estimate_errors"]


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
