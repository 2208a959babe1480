"""The set-up of Verboven et al. (2008) §4.2-§4.3: the machines, the jobs, the paper's figures.

Table 1's eight restarting resources, the three job sets of sleep jobs, the
scenarios, Table 2's figures, and the readings of the paper's rig
([`Reading`][schedlib.experiments.pgs.Reading]); one replicate's jobs and
resources ([`replicate_inputs`][schedlib.experiments.pgs.replicate_inputs]).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import attrs

from schedlib.availability.grid import DEFAULT_QUEUE_LENGTH
from schedlib.availability.jobs import BagJob, with_overhead
from schedlib.availability.patterns import (
    DELAY_RESOLUTION,
    AvailabilityPattern,
    ResourceAvailability,
    RestartDelay,
)
from schedlib.errors import InvalidValueError
from schedlib.replicates import stream, stream_seed
from schedlib.validation import at_least, finite_at_least, one_of

NAME = "pgs"
PAPER = "Verboven et al. (2008)"
"""The paper this module reproduces, as cited in tables."""
SUMMARY = "Verboven et al. (2008) §4: PGS vs FCFS on 8 restarting resources (Table 2)"

TABLE_1_UPTIMES: tuple[int, ...] = (84, 117, 163, 228, 318, 443, 619, 864)
"""Uptime of each resource at restart, in seconds (Verboven et al. 2008 §4.2, Table 1)."""

DOWNTIME = 1
"""Seconds a resource stays down before it is restarted (§4.2)."""

STARTUP = RestartDelay(0.2, "uniform")
"""The startup time after the restart: 1 s + 0.2 s on average = the paper's 1.2 s (§4.2)."""

LOWER_BOUND_MINUTES = 482 / 8
"""482 minutes of work on 8 resources: 60 min 15 s (§4.2)."""

SCENARIOS: dict[int, tuple[int, bool]] = {0: (1, False), 1: (1, True), 2: (2, True), 3: (3, True)}
"""Scenario -> (job set, whether resources restart) (§4.3)."""

RESTARTING = (1, 2, 3)
"""The scenarios whose resources restart."""

SCHEDULERS = ("pgs", "fcfs")

PAPER_TABLE_2: dict[tuple[int, str], tuple[float, float]] = {
    (0, "pgs"): (63.54, 0.19),
    (1, "pgs"): (65.54, 0.39),
    (2, "pgs"): (68.46, 0.73),
    (3, "pgs"): (87.88, 2.03),
    (0, "fcfs"): (63.21, 0.12),
    (1, "fcfs"): (74.26, 0.63),
    (2, "fcfs"): (87.3, 1.68),
    (3, "fcfs"): (121.83, 2.25),
}
"""(scenario, scheduler) -> (mean total runtime in minutes, standard deviation), Table 2."""

PAPER_DIFFERENCE: dict[int, float] = {0: -0.51, 1: 13.31, 2: 27.51, 3: 38.64}
"""The paper's "Difference" row of Table 2, in percent: (FCFS - PGS) / PGS."""

PAPER_RUNS = 10
"""Runs behind each of the paper's means ("Each test is run ten times", §4.3)."""

_SETS = {1: (4, 0.25), 2: (2, 0.5), 3: (1, 1)}  # copies of each size, size step

ORDERS = ("increasing", "sweeps", "shuffled", "decreasing")
"""Orders in which a job set can be submitted (the paper's is `"increasing"`)."""

PHASES = ("zero", "random")
"""Starting phases of the resources: all come up at time 0, or each part-way through its
first uptime."""

IMPLIED_OVERHEAD: float = 1.375
"""The per-job overhead, in seconds, that the paper's scenario 0 implies.

With resources that never go down, the paper's FCFS takes 63.21 min (Table 2)
where our simulation without overhead takes 60.50 min (the 60.25 min of work
plus the last jobs' tail); each resource runs 120 of the 960 jobs, so the gap
is $(63.21 - 60.50) \\cdot 60 / 120 = 1.355$ s per job. We round it to
$1.375 = 11/8$ s, a binary fraction, so that every event time stays exact
(`tests/experiments/test_pgs.py` checks that scenario 0 then takes the
paper's time within 0.1 min).
"""


FIRST_JOBS = ("idle", "empty-queue")
"""Which resources PGS's step 1 gives a first job: the idle ones with an empty queue (the
library's reading), or every resource with an empty queue, running or not (the literal
"Select resource R with an empty queue", §2.3)."""


@attrs.frozen
class Reading:
    """One reading of the paper's set-up: how the jobs reach the schedulers, what a job costs,
    how long the queues are.

    Attributes
    ----------
    order
        Submission order of each job set: `"increasing"` (the paper's "series
        of increasingly larger sleep jobs", §4.2, the copies of one size next to
        each other), `"sweeps"` (the copies as successive sweeps: set 1 is
        0.25 ... 60 s four times over, set 2 twice, set 3 once), `"shuffled"`
        (a random order per replicate) or `"decreasing"`.
    overhead
        Seconds each job occupies its resource beyond its sleep time (finite,
        `>= 0`; see [`with_overhead`][schedlib.availability.jobs.with_overhead]).
    overhead_known
        Whether PGS's $tl$ counts the overhead (its estimates include it).
    phases
        `"zero"`: every resource comes up at time 0; `"random"`: each has
        already been up for a uniform random part of its first uptime
        ([`draw_phases`][schedlib.experiments.pgs.draw_phases]).
    pgs_order
        The order in which PGS takes the jobs, when it differs from the submission
        order FCFS sees (`None`: the same, `order`). The paper says PGS iterates
        "over the jobs" (§2.3) but not in which order its *JobHandler* holds them
        (§3.2); one of [`ORDERS`][schedlib.experiments.pgs.ORDERS].
    queue_length
        Jobs a resource holds at once, its running job included (CoBRA's "maximum
        configured queue length", §3.1, is not given; `>= 1`).
    first_job
        Which resources PGS's step 1 serves: one of
        [`FIRST_JOBS`][schedlib.experiments.pgs.FIRST_JOBS].

    Examples
    --------
    >>> Reading().options()
    ''
    >>> Reading("sweeps", 1.375, True, "random").options()
    '--order sweeps --overhead 1.375 --overhead-known --phases random'
    >>> Reading(pgs_order="shuffled", queue_length=3).options()
    '--pgs-order shuffled --queue-length 3'
    >>> Reading(order="sorted")
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: Reading.order = 'sorted': must be one of increasing, ...
    """

    order: str = attrs.field(default="increasing", validator=one_of(*ORDERS))
    overhead: float = attrs.field(default=0.0, converter=float, validator=finite_at_least(0))
    overhead_known: bool = False
    phases: str = attrs.field(default="zero", validator=one_of(*PHASES))
    pgs_order: str | None = attrs.field(
        default=None, validator=attrs.validators.optional(one_of(*ORDERS))
    )
    queue_length: int = attrs.field(default=DEFAULT_QUEUE_LENGTH, validator=at_least(1))
    first_job: str = attrs.field(default="idle", validator=one_of(*FIRST_JOBS))

    @pgs_order.validator
    def _another_order(self, attribute: attrs.Attribute[str | None], value: str | None) -> None:
        if value is not None and value == self.order:
            raise InvalidValueError(
                "Reading.pgs_order", value, "is the submission order: give None for the same"
            )

    def options(self) -> str:
        """The command-line options that select this reading (empty for the paper's)."""
        parts = []
        if self.order != "increasing":
            parts.append(f"--order {self.order}")
        if self.overhead:
            parts.append(f"--overhead {self.overhead:g}")
            if self.overhead_known:
                parts.append("--overhead-known")
        if self.phases != "zero":
            parts.append(f"--phases {self.phases}")
        if self.pgs_order is not None:
            parts.append(f"--pgs-order {self.pgs_order}")
        if self.queue_length != DEFAULT_QUEUE_LENGTH:
            parts.append(f"--queue-length {self.queue_length}")
        if self.first_job != "idle":
            parts.append(f"--first-job {self.first_job}")
        return " ".join(parts)

    def order_for(self, scheduler: str) -> str:
        """The order in which `scheduler` (`"pgs"` or `"fcfs"`) gets the jobs.

        Examples
        --------
        >>> r = Reading(pgs_order="shuffled")
        >>> r.order_for("pgs"), r.order_for("fcfs")
        ('shuffled', 'increasing')
        """
        return self.pgs_order if scheduler == "pgs" and self.pgs_order is not None else self.order

    def policy(self, scheduler: str) -> str:
        """The [mapping policy][schedlib.availability.policies] `scheduler` runs under.

        Examples
        --------
        >>> Reading(first_job="empty-queue").policy("pgs"), Reading().policy("fcfs")
        ('pgs-empty-queue', 'fcfs')
        """
        if scheduler == "pgs" and self.first_job == "empty-queue":
            return "pgs-empty-queue"
        return scheduler

    def random_order(self, scheduler: str | None = None) -> bool:
        """Whether the order `scheduler` sees (default: either's) is drawn per replicate."""
        if scheduler is None:
            return "shuffled" in (self.order, self.order_for("pgs"))
        return self.order_for(scheduler) == "shuffled"


PAPER_READING = Reading()
"""The paper as written: increasing sizes for both schedulers, no overhead, every resource up
from time 0, queues of 2, step 1 for idle resources."""

READINGS: dict[str, Reading] = {
    "paper": PAPER_READING,
    "sweeps": Reading(order="sweeps"),
    "phases": Reading(phases="random"),
    "overhead": Reading(overhead=IMPLIED_OVERHEAD),
    "overhead-known": Reading(overhead=IMPLIED_OVERHEAD, overhead_known=True),
    "implied": Reading("sweeps", IMPLIED_OVERHEAD, True, "random"),
    "queue-1": Reading(queue_length=1),
    "queue-3": Reading(queue_length=3),
    "step-1-busy": Reading(first_job="empty-queue"),
    "pgs-shuffled": Reading(pgs_order="shuffled"),
    "shuffled": Reading(order="shuffled"),
    "decreasing": Reading(order="decreasing"),
}
"""The named readings whose gains and verdicts the page tabulates (`--readings all`).

`implied` combines the three readings the paper implies (sweeps, random phases,
an overhead known to $tl$); `queue-1` and `queue-3` are other lengths of CoBRA's
queue; `step-1-busy` gives a first job to every resource with an empty queue, busy or
not; `pgs-shuffled` lets PGS take the jobs in a random order while FCFS sees them in
increasing order (the paper's FCFS fits increasing order, and the spread of its PGS a
mixed one); `shuffled` and `decreasing` are submission orders the paper does not
suggest, shown for the sensitivity of both schedulers to the order.
"""


def reading_name(reading: Reading) -> str:
    """The name of `reading` in [`READINGS`][schedlib.experiments.pgs.READINGS], or `custom`.

    Examples
    --------
    >>> reading_name(Reading(order="sweeps")), reading_name(Reading(overhead=2.0))
    ('sweeps', 'custom')
    """
    return next((name for name, r in READINGS.items() if r == reading), "custom")


def job_set(
    number: int, order: str = "increasing", rng: random.Random | None = None
) -> tuple[BagJob, ...]:
    """The sleep jobs of job set 1, 2 or 3 (Verboven et al. 2008 §4.2), in submission order.

    Set 1: 960 jobs of 0.25 to 60 s in steps of 0.25 s, 4 of each; set 2: 480
    jobs of 0.5 to 120 s, 2 of each; set 3: 240 jobs of 1 to 240 s. All are
    submitted at time 0; ids follow the submission order, so the queue does.

    Parameters
    ----------
    number
        1, 2 or 3.
    order
        One of [`ORDERS`][schedlib.experiments.pgs.ORDERS] (see
        [`Reading`][schedlib.experiments.pgs.Reading]).
    rng
        The source of the shuffled order (required for `"shuffled"`).

    Returns
    -------
    tuple of BagJob
        Jobs with exact estimates (sleep jobs).

    Raises
    ------
    InvalidValueError
        For another number or order, or a shuffled order without `rng`.

    Examples
    --------
    >>> [j.runtime for j in job_set(1)[:5]]
    [0.25, 0.25, 0.25, 0.25, 0.5]
    >>> [j.runtime for j in job_set(3, "decreasing")[:3]]
    [240, 239, 238]
    >>> [j.runtime for j in job_set(2, "sweeps")[238:242]]
    [119.5, 120, 0.5, 1]
    """
    if number not in _SETS:
        raise InvalidValueError("job set", number, "must be 1, 2 or 3")
    if order not in ORDERS:
        raise InvalidValueError("order", order, f"must be one of {', '.join(ORDERS)}")
    copies, step = _SETS[number]
    sizes = [step * k for k in range(1, 240 + 1)]
    sizes = [int(size) if size == int(size) else size for size in sizes]
    if order == "sweeps":
        runtimes = [size for _ in range(copies) for size in sizes]
    else:
        runtimes = [size for size in sizes for _ in range(copies)]
    if order == "decreasing":
        runtimes.reverse()
    elif order == "shuffled":
        if rng is None:
            raise InvalidValueError("rng", None, "a random.Random is needed for a shuffled order")
        rng.shuffle(runtimes)
    return tuple(BagJob(i, 0, runtime) for i, runtime in enumerate(runtimes))


def draw_phases(rng: random.Random) -> tuple[float, ...]:
    """Random starting phases of the eight resources: each uniform in its first uptime.

    Resource $i$ has been up for $\\phi_i \\sim U[0, u_i)$ seconds at time 0
    ($u_i$ its Table 1 uptime), rounded down to a multiple of
    [`DELAY_RESOLUTION`][schedlib.availability.patterns.DELAY_RESOLUTION] so that
    event times stay exact. (The down part of a cycle, 1.2 s of 85-865 s, is
    left out: every resource is up at time 0.)

    Examples
    --------
    >>> phases = draw_phases(random.Random(0))
    >>> len(phases), all(0 <= p < u for p, u in zip(phases, TABLE_1_UPTIMES))
    (8, True)
    """
    return tuple(
        math.floor(rng.uniform(0, up) / DELAY_RESOLUTION) * DELAY_RESOLUTION
        for up in TABLE_1_UPTIMES
    )


def paper_resources(
    restarting: bool = True, phases: Sequence[float] | None = None
) -> tuple[ResourceAvailability, ...]:
    """The 8 resources of §4.2: Table 1 uptimes, 1 s down plus a 0.2 s mean startup.

    Parameters
    ----------
    restarting
        `False` gives resources that never go down (scenario 0).
    phases
        Seconds each resource has already been up at time 0 (default: 0 for
        all); ignored for resources that never go down.

    Returns
    -------
    tuple of ResourceAvailability
        Exact availability: the actual pattern is the planned one.
    """
    if not restarting:
        return tuple(ResourceAvailability(AvailabilityPattern.always_up()) for _ in TABLE_1_UPTIMES)
    offsets = tuple(phases) if phases is not None else (0,) * len(TABLE_1_UPTIMES)
    if len(offsets) != len(TABLE_1_UPTIMES):
        raise InvalidValueError("phases", offsets, f"needs {len(TABLE_1_UPTIMES)} values")
    return tuple(
        ResourceAvailability(
            AvailabilityPattern.repeating(up, DOWNTIME), restart=STARTUP, phase=phase
        )
        for up, phase in zip(TABLE_1_UPTIMES, offsets, strict=True)
    )


def replicate_inputs(
    reading: Reading, scenario: int, seed: int, replicate: int, scheduler: str = "fcfs"
) -> tuple[tuple[BagJob, ...], tuple[ResourceAvailability, ...], int]:
    """The jobs (in the order `scheduler` takes them), the resources and the restart seed of
    one replicate of one scenario.

    Every random draw comes from
    [`stream`][schedlib.replicates.stream]`(seed, replicate, purpose)`: the
    shuffled order (`"order"`), the starting phases (`"phases"`) and the seed
    of the restart delays (`"restarts"`). Both schedulers and every reading
    get the same draws in the same replicate (a shuffled order is the same
    permutation for both when both are shuffled).

    Examples
    --------
    >>> a = replicate_inputs(Reading(phases="random"), 1, 0, 0)
    >>> b = replicate_inputs(Reading(phases="random"), 1, 1, 0)
    >>> a[1] != b[1] and a[2] != b[2]
    True
    >>> mixed = Reading(pgs_order="decreasing")
    >>> [replicate_inputs(mixed, 3, 0, 0, k)[0][0].runtime for k in ("pgs", "fcfs")]
    [240, 1]
    """
    number, restarting = SCENARIOS[scenario]
    order = reading.order_for(scheduler)
    order_rng = stream(seed, replicate, "order") if order == "shuffled" else None
    jobs = job_set(number, order, order_rng)
    if reading.overhead:
        jobs = with_overhead(jobs, reading.overhead, known=reading.overhead_known)
    phases = draw_phases(stream(seed, replicate, "phases")) if reading.phases == "random" else None
    resources = paper_resources(restarting, phases)
    return jobs, resources, stream_seed(seed, replicate, "restarts")
