"""The set-up of Mine et al. (2007) §5.1: the desktop grid, the jobs, the algorithms compared.

The experiment's settings
([`ExperimentSettings`][schedlib.experiments.deferment.ExperimentSettings]: Table 1's
and ours), the two readings of FIFO with replication, the variants
compared, and one trial's task sizes and grid
([`trial_workload`][schedlib.experiments.deferment.trial_workload]).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

import attrs

from schedlib.deferment.desktopgrid import LoadModel, Processor, markov_grid
from schedlib.deferment.selection import Deferment, Order, ReplicaOrder, TaskSelection
from schedlib.errors import InvalidValueError
from schedlib.experiments.running import float_tuple, int_tuple
from schedlib.replicates import stream
from schedlib.validation import at_least

NAME = "deferment"
PAPER = "Mine et al. (2007)"
"""The paper this module reproduces, as cited in tables."""
SUMMARY = (
    "Mine et al. (2007): FIFO and round robin, standard and with task deferment, on a desktop grid "
    "(computation, waiting and total time, overtaking jobs, spare power)"
)

PAPER_PEAKS: tuple[int, ...] = (10_000, 20_000, 40_000)
"""Peak speeds of the paper's PCs (ratios 1, 2, 4; Table 1)."""
PAPER_INTERVALS: tuple[int, ...] = (500, 1000, 2000, 4000)
"""The paper's job submission intervals (Table 1); the others we run are ours."""

READINGS: dict[str, ReplicaOrder] = {
    "originals-first": ReplicaOrder.ORIGINALS_FIRST,
    "head-job": ReplicaOrder.JOB_ORDER,
}
"""The readings of FIFO with replication, by name (round robin always serves originals first)."""
DEFAULT_READING = "originals-first"
"""The reading the claims are judged for unless `--fifo-reading` names the other."""


OVERLAP = 1000
"""Intervals below this one make jobs overlap: a job alone on the paper's grid takes about 990
time units, so at 1000 and above it is done, or in its replica tail, when the next arrives."""


def _names(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


def _each_at_least(bound: float) -> Callable[[Any, attrs.Attribute[Any], Any], None]:
    def check(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
        name = f"{type(instance).__name__}.{attribute.name}"
        if not value:
            raise InvalidValueError(name, value, "needs at least one value")
        for item in value:
            if not isinstance(item, (int, float)) or isinstance(item, bool) or not item >= bound:
                raise InvalidValueError(name, item, f"must be >= {bound}")

    return check


def _check_bounds(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    for bound in value:
        Deferment(bound)


def _check_size_range(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    low, high = value
    if not (isinstance(low, int) and isinstance(high, int) and 1 <= low <= high):
        raise InvalidValueError(
            "ExperimentSettings.task_size", value, "must be integers 1 <= lowest <= highest"
        )


def _check_readings(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if not value or len(set(value)) != len(value):
        raise InvalidValueError("ExperimentSettings.readings", value, "needs distinct readings")
    for reading in value:
        if reading not in READINGS:
            raise InvalidValueError(
                "ExperimentSettings.readings", reading, f"must be one of {', '.join(READINGS)}"
            )


@attrs.frozen(slots=True)
class ExperimentSettings:
    """Parameters of the reproduction; the defaults are the paper's (Table 1) and ours.

    Attributes
    ----------
    trials
        Trials of the main experiment (paper: 200).
    jobs
        Jobs per trial (Table 1: 8; the text of §5.1 says 32).
    tasks
        Tasks per job (128).
    task_size
        Inclusive range of a task's size in instructions (2,000,000-6,000,000).
    processors
        Number of PCs (32).
    peaks
        Peak speeds, given to the PCs in turn (10000, 20000, 40000).
    intervals
        Job submission intervals: the paper's 500, 1000, 2000, 4000 and our 750.
    bounds
        Task deferment bounds (1, 2, 4, 8); each must be `>= 1`.
    readings
        The readings of FIFO run (names of [`READINGS`][schedlib.experiments.deferment.READINGS]).
    replication
        Whether every algorithm replicates tasks.
    identical_jobs
        Give every job the first job's task sizes ("all the jobs are the same
        construction" read literally; off by default, see the page).
    overtaking_trials
        Trials of the standard FIFO algorithms for claim P0, the main ones
        included (`<= trials`: no extra trial).
    overtaking_intervals
        Intervals of those trials (each one of `intervals`; default: those
        below [`OVERLAP`][schedlib.experiments.deferment.OVERLAP]).
    spare_jobs, spare_trials, spare_intervals
        The 32-job experiment of the spare-power claim (`spare_trials = 0`: none).
    load
        The PCs' load model (Table 1: switching 1/1000 and 1/100, 95-100% and
        0-5% of the peak).
    seed
        The seed: trial `t` draws from `stream(seed, t, purpose)`.
    """

    trials: int = attrs.field(default=200, validator=at_least(1))
    jobs: int = attrs.field(default=8, validator=at_least(1))
    tasks: int = attrs.field(default=128, validator=at_least(1))
    task_size: tuple[int, ...] = attrs.field(
        default=(2_000_000, 6_000_000), converter=int_tuple, validator=_check_size_range
    )
    processors: int = attrs.field(default=32, validator=at_least(1))
    peaks: tuple[float, ...] = attrs.field(
        default=PAPER_PEAKS, converter=float_tuple, validator=_each_at_least(1e-9)
    )
    intervals: tuple[float, ...] = attrs.field(
        default=(500, 750, 1000, 2000, 4000), converter=float_tuple, validator=_each_at_least(0)
    )
    bounds: tuple[int, ...] = attrs.field(
        default=(1, 2, 4, 8), converter=int_tuple, validator=_check_bounds
    )
    readings: tuple[str, ...] = attrs.field(
        default=tuple(READINGS), converter=_names, validator=_check_readings
    )
    replication: bool = True
    identical_jobs: bool = False
    overtaking_trials: int = attrs.field(default=1000, validator=at_least(0))
    overtaking_intervals: tuple[float, ...] = attrs.field(converter=float_tuple)
    spare_jobs: int = attrs.field(default=32, validator=at_least(1))
    spare_trials: int = attrs.field(default=30, validator=at_least(0))
    spare_intervals: tuple[float, ...] = attrs.field(
        default=(500,), converter=float_tuple, validator=_each_at_least(0)
    )
    load: LoadModel = attrs.field(factory=LoadModel)
    seed: int = attrs.field(default=0, validator=at_least(0))

    @overtaking_intervals.default
    def _overlapping(self) -> tuple[float, ...]:
        return tuple(i for i in self.intervals if i < OVERLAP)

    def __attrs_post_init__(self) -> None:
        for interval in self.overtaking_intervals:
            if interval not in self.intervals:
                raise InvalidValueError(
                    "ExperimentSettings.overtaking_intervals",
                    interval,
                    f"must be one of the intervals {list(self.intervals)}",
                )


class Variant(NamedTuple):
    """One algorithm of the experiment: its order, FIFO reading, bound and scheduler."""

    algorithm: str
    """`fifo` or `round_robin`."""
    reading: str | None
    """The FIFO reading (`None` for round robin, which always serves originals first)."""
    bound: int | None
    """The task deferment bound, `None` for the standard algorithm."""
    scheduler: TaskSelection


def variants(settings: ExperimentSettings) -> list[Variant]:
    """The algorithms compared: FIFO per reading, then round robin; standard, then each bound.

    Examples
    --------
    >>> [(v.scheduler.name, v.reading) for v in variants(ExperimentSettings(bounds=(2,)))]
    [('fifo', 'originals-first'), ('fifo+deferment(B=2)', 'originals-first'),
     ('fifo[job-order]', 'head-job'), ('fifo+deferment(B=2)[job-order]', 'head-job'),
     ('round_robin', None), ('round_robin+deferment(B=2)', None)]
    """
    chosen: list[Variant] = []
    families: list[tuple[str, str | None, Order, ReplicaOrder]] = [
        ("fifo", reading, Order.FIFO, READINGS[reading]) for reading in settings.readings
    ]
    families.append(("round_robin", None, Order.ROUND_ROBIN, ReplicaOrder.ORIGINALS_FIRST))
    for algorithm, reading, order, replicas in families:
        for bound in (None, *settings.bounds):
            deferment = None if bound is None else Deferment(bound)
            scheduler = TaskSelection(order, deferment, settings.replication, replicas)
            chosen.append(Variant(algorithm, reading, bound, scheduler))
    return chosen


def trial_workload(
    settings: ExperimentSettings, trial: int, jobs: int | None = None
) -> tuple[list[list[int]], tuple[Processor, ...]]:
    """The task sizes of each job of one trial, and its grid.

    Sizes come from `stream(seed, trial, "tasks")`, the processors' speed
    histories from a seed drawn from `stream(seed, trial, "speeds")`.

    Parameters
    ----------
    settings
        The experiment.
    trial
        The trial (replicate) index.
    jobs
        Number of jobs (default: `settings.jobs`); the first jobs of a trial
        are the same whatever the number.

    Examples
    --------
    >>> sizes, grid = trial_workload(ExperimentSettings(jobs=2, tasks=3), 0)
    >>> [len(s) for s in sizes], all(2_000_000 <= x <= 6_000_000 for s in sizes for x in s)
    ([3, 3], True)
    >>> len(grid), grid[0].peak, grid[1].peak
    (32, 10000, 20000)
    """
    count = settings.jobs if jobs is None else jobs
    rng = stream(settings.seed, trial, "tasks")
    low, high = settings.task_size
    sizes = [[rng.randint(low, high) for _ in range(settings.tasks)] for _ in range(count)]
    if settings.identical_jobs:
        sizes = [list(sizes[0]) for _ in sizes]
    peaks = [settings.peaks[i % len(settings.peaks)] for i in range(settings.processors)]
    grid_seed = stream(settings.seed, trial, "speeds").getrandbits(63)
    return sizes, markov_grid(peaks, grid_seed, settings.load)
