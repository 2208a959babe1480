r"""The jobs of a multi-site run, and the workload transforms of the paper's experiments.

A [`MultiSiteJob`][schedlib.multisite.jobs.MultiSiteJob] is a rigid parallel job
with its runtime and requested time *on the reference machine*, its job class
(which decides its speed at each site) and its origin site. The transforms are
pure functions usable on any SWF trace (Sabin et al. 2003, §3):

- [`multisite_workload`][schedlib.multisite.jobs.multisite_workload]: the trace
  submitted at every site ("two centers each in the Pacific and Eastern U.S. time
  zones": the copies of the last two sites shifted by three hours), each job given
  a class by an explicit seed;
- [`with_load_factor`][schedlib.multisite.jobs.with_load_factor]: runtimes and
  requested times multiplied, submit times (the trace's span) kept;
- [`scaled`][schedlib.multisite.jobs.scaled]: runtimes divided (the single-site
  comparison divides them by 4 "to make the overall load comparable", §5);
- [`with_data_sizes`][schedlib.multisite.jobs.with_data_sizes] and
  [`transfer_time`][schedlib.multisite.jobs.transfer_time]: the data a job moves
  when it runs away from its origin (§7: 500 MB to 3 GB at 10 Mbps).

Examples
--------
>>> from schedlib.model import Job
>>> from schedlib.multisite.sites import RuntimeMatrix
>>> import random
>>> trace = [Job(7, 0, 4, 100, 60), Job(9, 50, 2, 30, 30)]
>>> jobs = multisite_workload(trace, sites=4, matrix=RuntimeMatrix.paper(), rng=random.Random(0))
>>> [(j.id, j.submit, j.origin, j.original) for j in jobs][:4]
[(0, 0, 0, 7), (2, 0, 1, 7), (1, 50, 0, 9), (3, 50, 1, 9)]
>>> [(j.id, j.submit) for j in jobs if j.origin == 2]
[(4, 10800), (5, 10850)]
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from fractions import Fraction

import attrs

from schedlib.errors import InvalidValueError
from schedlib.model import JobId, Time
from schedlib.multisite.sites import RuntimeMatrix, assign_classes
from schedlib.validation import at_least, finite_at_least, require

__all__ = [
    "DATA_MB",
    "LINK_MBPS",
    "SHIFT",
    "MultiSiteJob",
    "exact_requested_times",
    "multisite_workload",
    "scaled",
    "transfer_time",
    "with_data_sizes",
    "with_load_factor",
]

SHIFT: Time = 3 * 3600
"""Three hours: the shift of the copies submitted at the last two sites."""

DATA_MB: tuple[float, float] = (500.0, 3000.0)
"""Range of a job's data size, MB (executable plus data; §7)."""

LINK_MBPS: float = 10.0
"""Network rate, Mbit/s (§7)."""


def _positive_time(instance: object, attribute: attrs.Attribute[Time], value: Time) -> None:
    if not value > 0 or value == float("inf"):
        raise InvalidValueError(
            f"MultiSiteJob.{attribute.name}",
            value,
            "must be a finite number > 0 (a reservation of length 0 holds nothing)",
        )


@attrs.frozen(slots=True)
class MultiSiteJob:
    """A rigid parallel job submitted to the metascheduler.

    Attributes
    ----------
    id
        Unique identifier, `>= 0`.
    submit
        Submission time, `>= 0`.
    procs
        Processors it needs at whichever site runs it, `>= 1`.
    requested_time
        The user's estimate on the reference machine, `> 0`.
    runtime
        Actual runtime on the reference machine, `>= 0` (never shown to a decision).
    job_class
        Row of the runtime matrix: its speed at each site.
    origin
        The site it was submitted at (data stays there).
    original
        Its job number in the trace it comes from.
    data_mb
        Executable plus data, in MB, moved when it runs at another site (0: none).

    Examples
    --------
    >>> MultiSiteJob(1, 0, 8, 3600, 1800, job_class=2, origin=1)
    MultiSiteJob(id=1, submit=0, procs=8, requested_time=3600, runtime=1800, job_class=2, origin=1, original=-1, data_mb=0.0)
    """  # noqa: E501

    id: JobId = attrs.field(validator=at_least(0))
    submit: Time = attrs.field(validator=finite_at_least(0))
    procs: int = attrs.field(validator=at_least(1))
    requested_time: Time = attrs.field(validator=_positive_time)
    runtime: Time = attrs.field(validator=finite_at_least(0))
    job_class: int = attrs.field(default=0, validator=at_least(0))
    origin: int = attrs.field(default=0, validator=at_least(0))
    original: int = -1
    data_mb: float = attrs.field(default=0.0, validator=finite_at_least(0))


def transfer_time(data_mb: float, mbps: float = LINK_MBPS) -> Time:
    """Seconds to move `data_mb` megabytes at `mbps` megabits per second.

    Notes
    -----
    $t = 8 \\cdot D / B$ for $D$ MB and $B$ Mbit/s (1 MB = $10^6$ bytes).

    Examples
    --------
    >>> transfer_time(500), transfer_time(3000)
    (400.0, 2400.0)
    """
    require(mbps, "mbps", greater_than=0)
    return 8.0 * data_mb / mbps


def exact_requested_times(
    job: MultiSiteJob, factors: Sequence[float], *, mbps: float | None = None
) -> tuple[Fraction, ...]:
    """The job's requested time at each site, computed exactly from its inputs.

    Parameters
    ----------
    job
        The job: its requested time $d_j$ on the reference machine, its origin
        and its data size $D_j$.
    factors
        Its class's runtime factor $f_{c,s}$ at each site (a row of the
        [`RuntimeMatrix`][schedlib.multisite.sites.RuntimeMatrix]).
    mbps
        The network rate $B$ when the job's data moves (`transfer=True`);
        `None`: no transfer.

    Returns
    -------
    tuple of Fraction
        $d_{j,s} = d_j f_{c,s}$, plus $8 D_j / B$ at every site but its origin
        when `mbps` is given, in rational arithmetic on the stored numbers.

    Notes
    -----
    The simulation runs on the float times `requested_time * f + transfer`;
    this is what the efficacy priority compares (§6: "in the case of identical
    efficacies the secondary priority will be FCFS"). Without transfer the
    efficacy $\\min_{s'} d_{j,s'} / d_{j,s} = \\min_{s'} f_{c,s'} / f_{c,s}$
    does not depend on $d_j$: jobs of one class sent to the same sites are
    equal, which the ratio of two float products, each rounded its own way,
    is not (see the Multi-site page, "The formulas"). Complexity: $O(N)$ for
    $N$ sites.

    Examples
    --------
    >>> f = (35.6 / 24.2, 1.0)
    >>> Fraction(4) / Fraction(4 * f[0]) == Fraction(6) / Fraction(6 * f[0])  # rounded apart
    False
    >>> a = exact_requested_times(MultiSiteJob(0, 0, 1, 4, 4), f)
    >>> b = exact_requested_times(MultiSiteJob(1, 0, 1, 6, 1), f)
    >>> a[1] / a[0] == b[1] / b[0]
    True
    >>> exact_requested_times(MultiSiteJob(2, 0, 1, 10, 10, data_mb=500), (1.0, 2.0), mbps=10)
    (Fraction(10, 1), Fraction(420, 1))
    """
    d = Fraction(job.requested_time)
    moved = Fraction(0)
    if mbps is not None:
        require(mbps, "mbps", greater_than=0)
        moved = 8 * Fraction(job.data_mb) / Fraction(mbps)
    return tuple(d * Fraction(f) + (0 if s == job.origin else moved) for s, f in enumerate(factors))


def multisite_workload(
    jobs: Iterable[object],
    *,
    sites: int,
    matrix: RuntimeMatrix,
    rng: random.Random,
    shifted: Sequence[int] | None = None,
    shift: Time = SHIFT,
) -> tuple[MultiSiteJob, ...]:
    """The trace submitted once at every site, with classes drawn by `rng`.

    Parameters
    ----------
    jobs
        The trace's jobs (anything with `id`, `submit`, `procs`,
        `requested_time`, `runtime`, e.g. [`Job`][schedlib.model.Job]), in
        any order; they are taken in `(submit, id)` order.
    sites
        How many sites submit the trace (copies).
    matrix
        The runtime matrix (its number of classes).
    rng
        Draws each job's class (one draw per job of every copy).
    shifted
        The sites whose copy is shifted by `shift`; default: the last two
        when there are four or more, else none (the paper's four sites, two
        of them three hours west).
    shift
        The shift in seconds.

    Returns
    -------
    tuple of MultiSiteJob
        Ids `copy * n + i` for the `i`-th job of the `copy` at site `copy`;
        sorted by `(submit, id)`.

    Raises
    ------
    InvalidValueError
        If `sites < 1`, a shifted site does not exist, or a job has a
        requested time of 0.
    """
    require(sites, "sites", at_least=1)
    ordered = sorted(jobs, key=lambda j: (j.submit, j.id))  # type: ignore[attr-defined]
    if shifted is None:
        shifted = (sites - 2, sites - 1) if sites >= 4 else ()
    for s in shifted:
        if not 0 <= s < sites:
            raise InvalidValueError("shifted", s, f"is not a site (0..{sites - 1})")
    n = len(ordered)
    classes = assign_classes(n * sites, matrix, rng)
    out = []
    for copy in range(sites):
        offset = shift if copy in shifted else 0
        for i, job in enumerate(ordered):
            out.append(
                MultiSiteJob(
                    copy * n + i,
                    job.submit + offset,  # type: ignore[attr-defined]
                    job.procs,  # type: ignore[attr-defined]
                    job.requested_time,  # type: ignore[attr-defined]
                    job.runtime,  # type: ignore[attr-defined]
                    classes[copy * n + i],
                    copy,
                    job.id,  # type: ignore[attr-defined]
                )
            )
    out.sort(key=lambda j: (j.submit, j.id))
    return tuple(out)


def with_load_factor(jobs: Iterable[MultiSiteJob], factor: float) -> tuple[MultiSiteJob, ...]:
    """Runtimes and requested times multiplied by `factor`; submit times (the span) kept.

    "The performance of scheduling strategies at different loads was simulated
    by multiplying the runtimes of all jobs by a load factor" (§3).

    Examples
    --------
    >>> with_load_factor([MultiSiteJob(1, 5, 2, 100, 80)], 1.2)[0].runtime
    96.0
    """
    require(factor, "factor", greater_than=0)
    return tuple(
        attrs.evolve(j, requested_time=j.requested_time * factor, runtime=j.runtime * factor)
        for j in jobs
    )


def scaled(jobs: Iterable[MultiSiteJob], divisor: float) -> tuple[MultiSiteJob, ...]:
    """Runtimes and requested times divided by `divisor` (the single-site comparison uses 4).

    Examples
    --------
    >>> scaled([MultiSiteJob(1, 5, 2, 100, 80)], 4)[0].requested_time
    25.0
    """
    require(divisor, "divisor", greater_than=0)
    return with_load_factor(jobs, 1 / divisor)


def with_data_sizes(
    jobs: Iterable[MultiSiteJob], rng: random.Random, *, sizes: tuple[float, float] = DATA_MB
) -> tuple[MultiSiteJob, ...]:
    """Each job given a data size drawn uniformly from `sizes` (MB) by `rng`.

    Examples
    --------
    >>> [round(j.data_mb) for j in with_data_sizes([MultiSiteJob(1, 0, 1, 9, 9)], random.Random(2))]
    [2890]
    """
    low, high = sizes
    if not 0 <= low <= high:
        raise InvalidValueError("sizes", sizes, "must be (low, high) with 0 <= low <= high")
    return tuple(attrs.evolve(j, data_mb=rng.uniform(low, high)) for j in jobs)
