r"""Reproduction of Mine et al. (2007) §5: task deferment against standard FIFO and round robin.

`schedlib reproduce deferment` runs the paper's simulation (§5.1, Table 1):
32 desktop PCs with peak speeds 10000, 20000 and 40000 instructions per time
unit under the two-state load model, jobs of 128 tasks of U(2e6, 6e6)
instructions submitted at a regular interval, and FIFO and round robin,
standard and with task deferment bounds 1, 2, 4 and 8, over 200 trials. It
measures the paper's four measures, the overtaking jobs, the replicas and the
spare power consumed, and checks every claim of the paper
([`claims`][schedlib.experiments.deferment.claims]) under the shared verdict rules
([`schedlib.results.verdicts`][schedlib.results.verdicts]), paired over trials.

**Three experiments**, every random draw of trial $t$ under `--seed` $s$ from
[`stream(s, t, purpose)`][schedlib.replicates.stream] (purposes `"tasks"` and
`"speeds"`), so that within a trial every algorithm and interval sees the same
task sizes and speed histories (common random numbers: the same trial under two
algorithms is a pair):

| experiment | jobs | trials | algorithms | intervals |
|---|---:|---:|---|---|
| `main` | 8 (Table 1) | 200 | all | 500, 750, 1000, 2000, 4000 |
| `overtaking` | 8 | 1000 (the main 200 and 800 more) | standard FIFO | 500, 750 |
| `spare` | 32 (the text of §5.1) | 30 | all | 500 |

The paper's intervals are 500, 1000, 2000 and 4000. At 2000 and above a job
(about 990 time units alone on the grid) is finished when the next one
arrives, and at 1000 it is in its replica tail: every algorithm of the
originals-first reading gives the same schedule there, so we add 750, where
jobs overlap and the algorithms differ. The `overtaking` trials give claim
P0 ("the standard algorithms overtake") the power to see FIFO's rare
overtaking jobs; they reuse the main trials' streams, so trials 0-199 are the
main ones.

**Two readings of FIFO with replication** (§4 does not say whether a job whose
tasks are all allocated is served before a later job's originals; see
[`ReplicaOrder`][schedlib.deferment.selection.ReplicaOrder]):

- `originals-first` (the default): a pass hands out the originals of every job
  before any replica;
- `head-job`: FIFO serves the head job, replicas included, until it completes,
  so jobs run one at a time.

Round robin always hands out originals first. Both readings run by default;
the claims are judged for the default reading (`--fifo-reading head-job`
judges the other) and the reproduction page shows both.

**Measures** (§5.1, "Performance Measures"), for a job submitted at $s$ whose
first task instance starts at $b$ and whose last task completes at $e$:

| measure | definition |
|---|---|
| computation time | $e - b$ |
| waiting time | $b - s$ |
| total time | $e - s$ (= computation + waiting) |
| std. dev. of total time | population std. dev. of the total times of one trial's jobs |
| spare power consumed | instructions computed by every instance (cancelled replicas' work
  included), % of the tasks' instructions |

Per trial, the first three are means over the trial's jobs.

**Choices where the paper is silent** (documented on the reproduction page):
processor $i$ has peak `peaks[i % 3]` (11, 11 and 10 PCs of each speed);
task sizes are integers drawn uniformly; jobs are numbered in submission
order and job $i$ is submitted at $i \times$ interval; every algorithm, the
standard ones included, replicates tasks (so that the comparison isolates
deferment; `--no-replication` turns it off for all); the jobs' task sizes are
drawn independently (`--identical-jobs`: every job gets the first job's tasks,
the other reading of "all the jobs are the same construction").

Examples
--------
>>> settings = ExperimentSettings(trials=2, jobs=2, tasks=4, processors=3, intervals=(500,),
...                               bounds=(1,), overtaking_trials=2, spare_trials=0)
>>> table = reproduce(settings, workers=1)
>>> [(r["algorithm"], r["reading"], r["bound"]) for r in table
...  if r["kind"] == "summary" and r["experiment"] == "main"]
[('fifo', 'originals-first', None), ('fifo', 'originals-first', 1), ('fifo', 'head-job', None),
 ('fifo', 'head-job', 1), ('round_robin', None, None), ('round_robin', None, 1)]
>>> [c.key for c in claims(table)][:3]
['never-overtakes', 'standard-fifo-overtakes', 'standard-rr-overtakes']
"""

from __future__ import annotations

import argparse
import math
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

import attrs

from schedlib.deferment.desktopgrid import LoadModel, Processor, TaskJob, markov_grid, work_done
from schedlib.deferment.farm import run_grid
from schedlib.deferment.overtaking import overtaking_jobs
from schedlib.deferment.selection import Deferment, Order, ReplicaOrder, TaskSelection
from schedlib.errors import InvalidValueError
from schedlib.execution.parallel import parallel_map
from schedlib.execution.progress import ProgressBar
from schedlib.experiments.claims import Claim
from schedlib.experiments.options import (
    add_claims_argument,
    add_quick_argument,
    apply_quick,
    check_plot_target,
    judged,
    print_note,
    print_results,
)
from schedlib.experiments.pages import markdown_table
from schedlib.model import EventKind, RunRecord
from schedlib.replicates import stream
from schedlib.results.verdicts import Expect, MeanEstimate, ProportionEstimate, paired_difference
from schedlib.validation import at_least

__all__ = [
    "DEFAULT_READING",
    "NAME",
    "OVERLAP",
    "PAPER",
    "PAPER_INTERVALS",
    "PAPER_PEAKS",
    "QUICK_DIFFERS",
    "READINGS",
    "SUMMARY",
    "ExperimentSettings",
    "Variant",
    "add_arguments",
    "claims",
    "data",
    "documented_rows",
    "figures",
    "job_measures",
    "main",
    "page_sections",
    "plot",
    "reproduce",
    "rows",
    "run_trial",
    "summarize",
    "trial_workload",
    "variants",
]

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

QUICK_DIFFERS: dict[str, str] = {
    "standard-fifo-overtakes": "standard FIFO overtakes in well under 1 % of the trials: the "
    "full run looks at 1000 trials, the quick run's few trials see none (inconclusive)",
    "bound-no-effect-rr": "the bound's effect on round robin is a fraction of a percent, but "
    "its spread from trial to trial is wider than the 1 % margin: a few trials cannot put "
    "the interval inside the margin (inconclusive)",
    "rr-waiting-negligible": "round robin's waiting time, in % of its computation time, "
    "varies from trial to trial as much as the 2 % margin: a few trials cannot put the "
    "interval under it (inconclusive)",
}
"""Claims whose `--quick` verdict differs from the documented full-size one, and why
(`tests/experiments/test_pages.py` keeps this list exact)."""

OVERLAP = 1000
"""Intervals below this one make jobs overlap: a job alone on the paper's grid takes about 990
time units, so at 1000 and above it is done, or in its replica tail, when the next arrives."""
NEARLY_EQUAL = 5.0
"""Margin of "nearly equal" (and of "varies little", "small"): within 5 % (see the page)."""
NO_RELATION = 1.0
"""Margin of "no relationship" with the bound: the extreme bounds within 1 % of the total time."""
NEGLIGIBLE = 2.0
"""Margin of "negligible": a waiting time under 2 % of the computation time."""


def _ints(value: Iterable[int]) -> tuple[int, ...]:
    return tuple(value)


def _floats(value: Iterable[float]) -> tuple[float, ...]:
    return tuple(value)


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
        default=(2_000_000, 6_000_000), converter=_ints, validator=_check_size_range
    )
    processors: int = attrs.field(default=32, validator=at_least(1))
    peaks: tuple[float, ...] = attrs.field(
        default=PAPER_PEAKS, converter=_floats, validator=_each_at_least(1e-9)
    )
    intervals: tuple[float, ...] = attrs.field(
        default=(500, 750, 1000, 2000, 4000), converter=_floats, validator=_each_at_least(0)
    )
    bounds: tuple[int, ...] = attrs.field(
        default=(1, 2, 4, 8), converter=_ints, validator=_check_bounds
    )
    readings: tuple[str, ...] = attrs.field(
        default=tuple(READINGS), converter=_names, validator=_check_readings
    )
    replication: bool = True
    identical_jobs: bool = False
    overtaking_trials: int = attrs.field(default=1000, validator=at_least(0))
    overtaking_intervals: tuple[float, ...] = attrs.field(converter=_floats)
    spare_jobs: int = attrs.field(default=32, validator=at_least(1))
    spare_trials: int = attrs.field(default=30, validator=at_least(0))
    spare_intervals: tuple[float, ...] = attrs.field(
        default=(500,), converter=_floats, validator=_each_at_least(0)
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


def job_measures(record: RunRecord, grid: Sequence[Processor] | None = None) -> dict[str, float]:
    """The paper's measures of one run (§5.1), plus overtaking, replicas and spare power.

    Parameters
    ----------
    record
        A finished run of [`run_grid`][schedlib.deferment.farm.run_grid].
    grid
        The processors it ran on, to measure the spare power consumed (`work`
        is NaN without them).

    Returns
    -------
    dict
        `computation`, `waiting`, `total` (means over the jobs),
        `total_std` (population standard deviation of the total times),
        `overtaking_jobs` (how many jobs overtake another), `replicas`
        (replica instances started), `work` (instructions computed by every
        instance, % of the tasks' instructions).

    Examples
    --------
    >>> from schedlib.deferment.selection import fifo
    >>> from schedlib.deferment.desktopgrid import SpeedHistory
    >>> grid = [Processor(1, SpeedHistory.constant(1))]
    >>> m = job_measures(run_grid([TaskJob(1, 0, (2,)), TaskJob(2, 1, (3,))], grid, fifo()), grid)
    >>> m["waiting"], m["total"], m["work"]
    (0.5, 3.0, 100.0)
    """
    computation, waiting, total = [], [], []
    for outcome in record.outcomes:
        assert outcome.start is not None and outcome.end is not None, outcome
        computation.append(outcome.end - outcome.start)
        waiting.append(outcome.start - outcome.submit)
        total.append(outcome.end - outcome.submit)
    replicas = sum(1 for e in record.events if e.kind is EventKind.START and e.detail == "replica")
    return {
        "computation": statistics.fmean(computation),
        "waiting": statistics.fmean(waiting),
        "total": statistics.fmean(total),
        "total_std": statistics.pstdev(total),
        "overtaking_jobs": len(overtaking_jobs(record)),
        "replicas": replicas,
        "work": math.nan if grid is None else _work(record, grid),
    }


def _work(record: RunRecord, grid: Sequence[Processor]) -> float:
    """Instructions computed by every task instance, % of the tasks' instructions."""
    sizes = {job.id: job.tasks for job in record.workload}
    started: dict[int, float] = {}
    computed = 0.0
    for e in record.events:
        if e.task is None or not e.place:
            continue
        (processor,) = e.place
        if e.kind is EventKind.START:
            started[processor] = e.time
        elif e.kind is EventKind.COMPLETE:
            computed += sizes[e.job][e.task]
        elif e.kind is EventKind.CANCEL:
            computed += work_done(grid[processor].speed, started[processor], e.time)
    needed = sum(sum(tasks) for tasks in sizes.values())
    return 100.0 * computed / needed


_EXPERIMENTS = ("main", "overtaking", "spare")


def run_trial(item: tuple[ExperimentSettings, int, str]) -> list[dict[str, Any]]:
    """Run one trial of one experiment: its algorithms at its intervals.

    Parameters
    ----------
    item
        `(settings, trial index, experiment)` (one argument, for `parallel_map`);
        the experiment is `main` (every variant at every interval), `overtaking`
        (the standard FIFO variants at `overtaking_intervals`) or `spare`
        (every variant, `spare_jobs` jobs, at `spare_intervals`).

    Returns
    -------
    list of dict
        One row per (variant, interval): `kind` = `"trial"`, `experiment`,
        `trial`, `jobs`, `algorithm`, `reading`, `bound`, `interval` and the
        measures of [`job_measures`][schedlib.experiments.deferment.job_measures].
    """
    settings, trial, experiment = item
    chosen = variants(settings)
    count, intervals = settings.jobs, settings.intervals
    if experiment == "overtaking":
        chosen = [v for v in chosen if v.algorithm == "fifo" and v.bound is None]
        intervals = settings.overtaking_intervals
    elif experiment == "spare":
        count, intervals = settings.spare_jobs, settings.spare_intervals
    elif experiment != "main":
        raise InvalidValueError("experiment", experiment, f"must be one of {_EXPERIMENTS}")
    sizes, grid = trial_workload(settings, trial, count)
    rows = []
    for variant in chosen:
        for interval in intervals:
            jobs = [TaskJob(j, j * interval, sizes[j]) for j in range(count)]
            record = run_grid(jobs, grid, variant.scheduler)
            rows.append(
                {
                    "kind": "trial",
                    "experiment": experiment,
                    "trial": trial,
                    "jobs": count,
                    "algorithm": variant.algorithm,
                    "reading": variant.reading,
                    "bound": variant.bound,
                    "interval": interval,
                    **job_measures(record, grid),
                }
            )
    return rows


_CONFIG = ("algorithm", "reading", "bound", "interval")
_MEANS = ("computation", "waiting", "total", "total_std", "replicas", "work")


def summarize(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One summary row per (experiment, configuration) from the per-trial rows.

    Returns
    -------
    list of dict
        `kind` = `"summary"`, `experiment`, `jobs`, `algorithm`, `reading`,
        `bound`, `interval`, the means over trials of `computation`, `waiting`,
        `total`, `total_std`, `replicas` and `work`, `overtaking_jobs`
        (summed), `overtaking_trials` (trials with one or more) and `trials`.
    """
    groups: dict[tuple[Any, ...], list[Mapping[str, Any]]] = {}
    for r in rows:
        if r.get("kind") == "trial":
            key = (r["experiment"], r["jobs"], *(r[k] for k in _CONFIG))
            groups.setdefault(key, []).append(r)
    out = []
    for (experiment, jobs, *config), cells in groups.items():
        row: dict[str, Any] = {"kind": "summary", "experiment": experiment, "jobs": jobs}
        row.update(zip(_CONFIG, config, strict=True))
        for field in _MEANS:
            row[field] = statistics.fmean(c[field] for c in cells)
        row["overtaking_jobs"] = sum(c["overtaking_jobs"] for c in cells)
        row["overtaking_trials"] = sum(1 for c in cells if c["overtaking_jobs"])
        row["trials"] = len(cells)
        out.append(row)
    return out


def _items(settings: ExperimentSettings) -> list[tuple[ExperimentSettings, int, str]]:
    items = [(settings, t, "spare") for t in range(settings.spare_trials)]
    items += [(settings, t, "main") for t in range(settings.trials)]
    items += [
        (settings, t, "overtaking") for t in range(settings.trials, settings.overtaking_trials)
    ]
    return items


def _overtaking_copies(
    settings: ExperimentSettings, rows: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """The main trials' rows that the `overtaking` experiment shares (its first trials)."""
    return [
        {**r, "experiment": "overtaking"}
        for r in rows
        if r["experiment"] == "main"
        and r["trial"] < settings.overtaking_trials
        and r["algorithm"] == "fifo"
        and r["bound"] is None
        and r["interval"] in settings.overtaking_intervals
    ]


def reproduce(
    settings: ExperimentSettings | None = None,
    *,
    workers: int | None = None,
    show_progress: bool = False,
) -> list[dict[str, Any]]:
    """Run the three experiments: every per-trial row, then the summary rows.

    Parameters
    ----------
    settings
        The parameters (default: the paper's and ours, see the module notes).
    workers
        Processes for the trials (`None`: every CPU; `1`: this process).
    show_progress
        Draw a progress bar on standard error (only on a terminal).

    Returns
    -------
    list of dict
        The rows of [`run_trial`][schedlib.experiments.deferment.run_trial]
        (`kind` = `"trial"`), then those of
        [`summarize`][schedlib.experiments.deferment.summarize] (`kind` = `"summary"`).

    Notes
    -----
    The `overtaking` experiment's first trials are the main ones (the same
    streams): their rows are shared, not run twice. Trials are independent and
    spread over `workers` processes with
    [`parallel_map`][schedlib.execution.parallel.parallel_map]; the result does not
    depend on the number of workers. Complexity: $O(R \\cdot A \\cdot I \\cdot
    E \\log E)$ for $R$ trials, $A$ algorithms, $I$ intervals and $E$ events
    per run.

    References
    ----------
    Mine et al. (2007) §5 (Table 1, Figures 1-4).
    """
    config = settings if settings is not None else ExperimentSettings()
    items = _items(config)
    batch = max(1, math.ceil(len(items) / 20))
    results: list[dict[str, Any]] = []
    done = 0
    with ProgressBar(len(items), "deferment", enabled=None if show_progress else False) as bar:
        for start in range(0, len(items), batch):
            for part in parallel_map(run_trial, items[start : start + batch], workers=workers):
                results.extend(part)
            done += len(items[start : start + batch])
            bar(done)
    results += _overtaking_copies(config, results)
    results.sort(key=lambda r: (_EXPERIMENTS.index(r["experiment"]), r["trial"]))
    return results + summarize(results)


# --- the claims -----------------------------------------------------------------------------


class _Trials:
    """Per-trial rows indexed by experiment and configuration: trial -> row."""

    def __init__(self, rows: Iterable[Mapping[str, Any]]) -> None:
        self.cells: dict[tuple[Any, ...], dict[int, Mapping[str, Any]]] = {}
        for r in rows:
            if r.get("kind") == "trial":
                key = (r["experiment"], *(r[k] for k in _CONFIG))
                self.cells.setdefault(key, {})[r["trial"]] = r

    def get(
        self,
        experiment: str,
        algorithm: str,
        reading: str | None,
        bound: int | None,
        interval: float,
    ) -> dict[int, Mapping[str, Any]]:
        return self.cells.get((experiment, algorithm, reading, bound, interval), {})

    def intervals(self, experiment: str) -> list[float]:
        return sorted({k[4] for k in self.cells if k[0] == experiment})

    def bounds(self, experiment: str, algorithm: str) -> list[int]:
        return sorted(
            {
                k[3]
                for k in self.cells
                if k[0] == experiment and k[1] == algorithm and k[3] is not None
            }
        )

    def readings(self) -> list[str]:
        return [r for r in READINGS if any(k[1] == "fifo" and k[2] == r for k in self.cells)]


def _pairs(
    new: Mapping[int, Mapping[str, Any]],
    old: Mapping[int, Mapping[str, Any]],
    field: str,
    base: str | None = None,
) -> tuple[list[float], list[float], list[float]]:
    """Values of `field` in both configurations over their common trials, and of `base` in `old`."""
    common = sorted(set(new) & set(old))
    return (
        [new[t][field] for t in common],
        [old[t][field] for t in common],
        [old[t][base or field] for t in common],
    )


def _relative(
    new: Mapping[int, Mapping[str, Any]], old: Mapping[int, Mapping[str, Any]], field: str
) -> MeanEstimate | None:
    a, b, _ = _pairs(new, old, field)
    return paired_difference(a, b, relative=True) if a else None


def _weakest(
    candidates: Sequence[tuple[str, MeanEstimate | None]],
    expect: Expect,
    needed: int | None = None,
) -> tuple[str, MeanEstimate | None]:
    """The candidate that decides a claim over several configurations.

    All must hold (`needed` = `None`): the one with the largest $p$-value of
    the claim (an intersection-union test). At least `needed` must hold: the
    `needed`-th best supported. Ties keep the candidates' order.
    """
    present = [(label, e) for label, e in candidates if e is not None and e.n > 0]
    if not present or (needed is not None and needed > len(present)):
        return ("-", None)
    ranked = sorted(present, key=lambda c: expect.p_values(c[1])[0])
    return ranked[(needed or len(ranked)) - 1]


def _label(algorithm: str, bound: int | None, interval: float | None = None) -> str:
    name = {"fifo": "FIFO", "round_robin": "RR"}[algorithm]
    variant = f"{name} " + ("standard" if bound is None else f"B = {bound}")
    return variant if interval is None else f"{variant} at {interval:g}"


def _fmt(value: float) -> str:
    return f"{value:.1f}"


def _span(values: Sequence[float]) -> str:
    return f"{_fmt(min(values))}-{_fmt(max(values))}" if values else "-"


def _reading_of(t: _Trials, reading: str | None) -> str:
    present = t.readings()
    if reading is not None:
        return reading
    return DEFAULT_READING if DEFAULT_READING in present or not present else present[0]


def claims(rows: Sequence[Mapping[str, Any]], reading: str | None = None) -> list[Claim]:
    """Every claim of the paper (§3-§6, abstract), each measured on the rows of a run.

    Parameters
    ----------
    rows
        Rows of [`reproduce`][schedlib.experiments.deferment.reproduce] (the
        per-trial ones are used).
    reading
        The FIFO reading whose rows the claims read (default: the default
        reading if it ran, else the one that ran). Round robin has one reading.

    Returns
    -------
    list of Claim
        Eighteen claims (four of the paper's split per algorithm, the abstract's
        spare-power claim at 8 and 32 jobs), paired over trials (common random
        numbers); a claim whose rows are absent has no estimate (`not run`).
        The reproduction page gives each claim's margin and why.

    Notes
    -----
    A claim about several configurations ("regardless of the interval", "the
    shorter the interval, the longer", "both FIFO and Round-Robin") holds when
    it holds in each: its estimate is the configuration with the weakest
    evidence (the largest one-sided $p$-value of the claim; an
    intersection-union test). "In most cases" needs more than half: the
    estimate is the $(\\lfloor k/2 \\rfloor + 1)$-th best supported of $k$.

    Examples
    --------
    >>> [c.estimate for c in claims([])][:2]
    [None, None]
    >>> len(claims([]))
    18
    """
    return _Claims(_Trials(rows), reading).all()


class _Claims:
    """The claims of one run for one FIFO reading (one method per claim or pair)."""

    def __init__(self, trials: _Trials, reading: str | None) -> None:
        self.t = trials
        self.reading = _reading_of(trials, reading)
        self.intervals = trials.intervals("main")
        first = self.intervals[0] if self.intervals else None
        cells = trials.get("main", "round_robin", None, None, first) if first else {}
        self.count = len(cells)
        jobs = next(iter(cells.values()))["jobs"] if cells else "-"
        self.setting = f"{jobs}-job trials (main experiment, {self.count} trials)"
        self.note = f"FIFO reading: {self.reading}"

    def reading_of(self, algorithm: str) -> str | None:
        return self.reading if algorithm == "fifo" else None

    def bounds(self, algorithm: str) -> list[int | None]:
        return [None, *self.t.bounds("main", algorithm)]

    def cells(
        self, algorithm: str, bound: int | None, interval: float | None, experiment: str = "main"
    ) -> dict[int, Mapping[str, Any]]:
        if interval is None:
            return {}
        return self.t.get(experiment, algorithm, self.reading_of(algorithm), bound, interval)

    def data(self, what: str, fifo: bool = True) -> str:
        return f"{self.setting}, {what}" + (f"; {self.note}" if fifo else "")

    def all(self) -> list[Claim]:
        return [
            self.never_overtakes(),
            *self.standard_overtakes(),
            *self.nearly_equal(),
            *self.bound_no_effect(),
            self.fifo_computation_flat(),
            self.rr_computation_grows(),
            self.fifo_waiting_grows(),
            self.rr_waiting_negligible(),
            self.total_grows(),
            self.fifo_beats_rr(),
            *self.std_order(),
            self.fifo_deferment_better(),
            *self.spare_power(),
        ]

    def never_overtakes(self) -> Claim:
        per_trial: dict[int, float] = {}
        for algorithm in ("fifo", "round_robin"):
            for bound in self.bounds(algorithm)[1:]:
                for interval in self.intervals:
                    for trial, row in self.cells(algorithm, bound, interval).items():
                        per_trial[trial] = per_trial.get(trial, 0) + row["overtaking_jobs"]
        values = [per_trial[k] for k in sorted(per_trial)]
        return Claim(
            "never-overtakes",
            "Task deferment never results in an overtaking job (abstract, §4, §6)",
            self.data("every deferment variant and interval"),
            "overtaking jobs per trial, summed over the deferment variants and intervals "
            "(never: none in any trial)",
            Expect.below(0.01),
            MeanEstimate(values, unit="jobs") if values else None,
        )

    def standard_overtakes(self) -> list[Claim]:
        at = self.t.intervals("overtaking")
        out = []
        for key, algorithm, name in (
            ("standard-fifo-overtakes", "fifo", "FIFO"),
            ("standard-rr-overtakes", "round_robin", "Round-Robin"),
        ):
            experiment = "overtaking" if algorithm == "fifo" else "main"
            hit: dict[int, bool] = {}
            for interval in at:
                for trial, row in self.cells(algorithm, None, interval, experiment).items():
                    hit[trial] = hit.get(trial, False) or row["overtaking_jobs"] > 0
            seen = sorted(k for k, v in hit.items() if v)
            shown = ", ".join(str(k) for k in seen[:6]) + (" ..." if len(seen) > 6 else "")
            trials = f"{len(hit)} trials" + (
                f" (the main {self.count} and {len(hit) - self.count} more)"
                if len(hit) > self.count
                else ""
            )
            out.append(
                Claim(
                    key,
                    f"In {name}, overtaking jobs occur (§3: 'In both the FIFO and Round-Robin "
                    "scheduling algorithms, overtaking jobs can occur'; §5, preliminary "
                    "simulation)",
                    f"standard {name}, 8 jobs, {trials} at intervals "
                    f"{', '.join(f'{i:g}' for i in at) or '-'}"
                    + (f"; {self.note}" if algorithm == "fifo" else ""),
                    "share of trials with an overtaking job (exact binomial interval)",
                    Expect.above(0.0),
                    ProportionEstimate(len(seen), len(hit)) if hit else None,
                    ours=f"in trial(s) {shown}" if seen else "",
                )
            )
        return out

    def nearly_equal(self) -> list[Claim]:
        out = []
        expect = Expect.between(-NEARLY_EQUAL, NEARLY_EQUAL)
        for algorithm, name in (("fifo", "FIFO"), ("round_robin", "Round-Robin")):
            candidates = [
                (
                    _label(algorithm, b, i),
                    _relative(self.cells(algorithm, b, i), self.cells(algorithm, None, i), "total"),
                )
                for b in self.bounds(algorithm)[1:]
                for i in self.intervals
            ]
            label, estimate = _weakest(candidates, expect)
            out.append(
                Claim(
                    f"nearly-equal-{_short(algorithm)}",
                    f"{name} with the proposed policy achieves nearly equal performance to "
                    f"standard {name} (§5.2, §6, abstract)",
                    self.data(
                        f"{len(candidates)} (bound, interval) configurations", algorithm == "fifo"
                    ),
                    "deferment minus standard, mean total time, % of standard, paired per trial; "
                    f"the configuration with the weakest evidence ({label})",
                    expect,
                    estimate,
                )
            )
        return out

    def bound_no_effect(self) -> list[Claim]:
        out = []
        expect = Expect.between(-NO_RELATION, NO_RELATION)
        for algorithm, name in (("fifo", "FIFO"), ("round_robin", "Round-Robin")):
            bounds = self.bounds(algorithm)[1:]
            candidates: list[tuple[str, MeanEstimate | None]] = []
            if len(bounds) >= 2:
                low, high = bounds[0], bounds[-1]
                for i in self.intervals:
                    for field in ("computation", "waiting", "total", "total_std"):
                        a, b, base = _pairs(
                            self.cells(algorithm, high, i),
                            self.cells(algorithm, low, i),
                            field,
                            "total",
                        )
                        values = [100.0 * (x - y) / z for x, y, z in zip(a, b, base, strict=True)]
                        candidates.append(
                            (f"{field} at {i:g}", MeanEstimate(values, unit="%") if a else None)
                        )
            label, estimate = _weakest(candidates, expect)
            pair = f"B = {bounds[-1]} minus B = {bounds[0]}" if len(bounds) >= 2 else "-"
            out.append(
                Claim(
                    f"bound-no-effect-{_short(algorithm)}",
                    f"{name} shows no relationship between the task deferment bound and the "
                    "computation, waiting or total time or its standard deviation (§5.2, §6)",
                    self.data(
                        f"the four measures at {len(self.intervals)} intervals", algorithm == "fifo"
                    ),
                    f"{pair}, each measure in % of the total time, paired per trial; the measure "
                    f"and interval with the weakest evidence ({label})",
                    expect,
                    estimate,
                )
            )
        return out

    def fifo_computation_flat(self) -> Claim:
        expect = Expect.between(-NEARLY_EQUAL, NEARLY_EQUAL)
        longest = self.intervals[-1] if self.intervals else None
        candidates = [
            (
                _label("fifo", b, i),
                _relative(self.cells("fifo", b, i), self.cells("fifo", b, longest), "computation"),
            )
            for b in self.bounds("fifo")
            for i in self.intervals[:-1]
        ]
        label, estimate = _weakest(candidates, expect)
        return Claim(
            "fifo-computation-flat",
            "In FIFO, regardless of the interval, the average computation time varies little "
            "(§5.2, Fig. 1a)",
            self.data("every FIFO variant"),
            f"computation time at each interval minus at the longest ({_g(longest)}), % of the "
            f"latter, paired per trial; the weakest of {len(candidates)} ({label})",
            expect,
            estimate,
        )

    def trend(self, algorithms: Sequence[str], field: str) -> list[tuple[str, MeanEstimate | None]]:
        steps = list(zip(self.intervals, self.intervals[1:], strict=False))
        return [
            (
                f"{_label(a, b)}, {short:g} vs {long:g}",
                _relative(self.cells(a, b, short), self.cells(a, b, long), field),
            )
            for a in algorithms
            for b in self.bounds(a)
            for short, long in steps
        ]

    def rr_computation_grows(self) -> Claim:
        candidates = self.trend(["round_robin"], "computation")
        label, estimate = _weakest(candidates, Expect.above(0.0))
        return Claim(
            "rr-computation-grows",
            "In Round-Robin, the shorter the interval, the longer the average computation time "
            "(§5.2, Fig. 1b)",
            self.data("every round-robin variant", fifo=False),
            "computation time at an interval minus at the next longer one, % of the latter, "
            f"paired per trial; the weakest of {len(candidates)} steps ({label})",
            Expect.above(0.0),
            estimate,
        )

    def fifo_waiting_grows(self) -> Claim:
        shortest, longest = (
            (self.intervals[0], self.intervals[-1]) if self.intervals else (None, None)
        )
        candidates = []
        for b in self.bounds("fifo"):
            a, c, _ = _pairs(
                self.cells("fifo", b, shortest), self.cells("fifo", b, longest), "waiting"
            )
            candidates.append((_label("fifo", b), paired_difference(a, c) if a else None))
        label, estimate = _weakest(candidates, Expect.above(0.0))
        return Claim(
            "fifo-waiting-grows",
            "In FIFO, a shorter interval tends to result in a longer average waiting time "
            "(§5.2, Fig. 2a)",
            self.data("every FIFO variant"),
            f"waiting time at the shortest interval ({_g(shortest)}) minus at the longest "
            f"({_g(longest)}), time units, paired per trial; the weakest variant ({label})",
            Expect.above(0.0),
            estimate,
        )

    def rr_waiting_negligible(self) -> Claim:
        candidates = []
        for b in self.bounds("round_robin"):
            for i in self.intervals:
                rows = [r for _, r in sorted(self.cells("round_robin", b, i).items())]
                values = [100.0 * r["waiting"] / r["computation"] for r in rows]
                candidates.append(
                    (
                        _label("round_robin", b, i),
                        MeanEstimate(values, unit="%") if values else None,
                    )
                )
        label, estimate = _weakest(candidates, Expect.below(NEGLIGIBLE))
        return Claim(
            "rr-waiting-negligible",
            "In Round-Robin, regardless of the interval, the average waiting time is negligible "
            "compared to the computation time (§5.2, Fig. 2b)",
            self.data("every round-robin variant and interval", fifo=False),
            "waiting time in % of the computation time, per trial; the weakest of "
            f"{len(candidates)} ({label})",
            Expect.below(NEGLIGIBLE),
            estimate,
        )

    def total_grows(self) -> Claim:
        candidates = self.trend(["fifo", "round_robin"], "total")
        label, estimate = _weakest(candidates, Expect.above(0.0))
        return Claim(
            "total-grows",
            "In both FIFO and Round-Robin, the shorter the interval, the longer the average "
            "total time (§5.2, Fig. 3a, 3b)",
            self.data("every variant"),
            "total time at an interval minus at the next longer one, % of the latter, paired "
            f"per trial; the weakest of {len(candidates)} steps ({label})",
            Expect.above(0.0),
            estimate,
        )

    def versus(
        self, field: str, at: Sequence[float], fifo_first: bool
    ) -> list[tuple[str, MeanEstimate | None]]:
        """FIFO against round robin (or the reverse), same variant and interval."""
        out = []
        for b in self.bounds("fifo"):
            for i in at:
                f, r = self.cells("fifo", b, i), self.cells("round_robin", b, i)
                label = f"{'standard' if b is None else f'B = {b}'} at {i:g}"
                out.append(
                    (label, _relative(f, r, field) if fifo_first else _relative(r, f, field))
                )
        return out

    def fifo_beats_rr(self) -> Claim:
        cases = self.versus("total", self.intervals, fifo_first=True)
        needed = len(cases) // 2 + 1
        label, estimate = _weakest(cases, Expect.below(0.0), needed=needed)
        return Claim(
            "fifo-beats-rr-most-cases",
            "In most cases, the average total time of FIFO algorithms is shorter than that of "
            "Round-Robin algorithms (§5.2, Fig. 3)",
            self.data(f"{len(cases)} cases (variant, interval)"),
            "FIFO minus round robin, same variant and interval, total time, % of round robin, "
            f"paired per trial; more than half must hold: the {_ordinal(needed)} best supported of "
            f"{len(cases)} ({label})",
            Expect.below(0.0),
            estimate,
        )

    def std_order(self) -> list[Claim]:
        half = len(self.intervals) // 2
        out = []
        for key, at, fifo_first, text in (
            (
                "std-short",
                self.intervals[:half],
                False,
                "For shorter intervals, Round-Robin has a smaller standard deviation of total time",
            ),
            (
                "std-long",
                self.intervals[len(self.intervals) - half :],
                True,
                "For longer intervals, FIFO has a smaller standard deviation of total time",
            ),
        ):
            cases = self.versus("total_std", at, fifo_first)
            label, estimate = _weakest(cases, Expect.below(0.0))
            smaller, other = ("FIFO", "round robin") if fifo_first else ("round robin", "FIFO")
            out.append(
                Claim(
                    key,
                    f"{text} (§5.2, Fig. 4)",
                    self.data(
                        f"every variant at intervals {', '.join(f'{i:g}' for i in at) or '-'} "
                        f"(the {'longer' if fifo_first else 'shorter'} half)"
                    ),
                    f"{smaller} minus {other}, same variant and interval, std. dev. of total time, "
                    f"% of {other}, paired per trial; the weakest of {len(cases)} ({label})",
                    Expect.below(0.0),
                    estimate,
                )
            )
        return out

    def fifo_deferment_better(self) -> Claim:
        def overall(algorithm: str) -> dict[int, float]:
            totals: dict[int, list[float]] = {}
            for b in self.bounds(algorithm)[1:]:
                for i in self.intervals:
                    for trial, row in self.cells(algorithm, b, i).items():
                        totals.setdefault(trial, []).append(row["total"])
            return {k: statistics.fmean(v) for k, v in totals.items()}

        f, r = overall("fifo"), overall("round_robin")
        common = sorted(set(f) & set(r))
        estimate = (
            paired_difference([f[k] for k in common], [r[k] for k in common], relative=True)
            if common
            else None
        )
        return Claim(
            "fifo-deferment-better",
            "The algorithm based on FIFO with the proposed policy has better performance than "
            "the one based on Round-Robin (§6)",
            self.data("every bound and interval"),
            "FIFO with deferment minus round robin with deferment, total time averaged over "
            "the bounds and intervals, % of round robin, paired per trial",
            Expect.below(0.0),
            estimate,
        )

    def spare_power(self) -> list[Claim]:
        out = []
        expect = Expect.below(NEARLY_EQUAL)
        for key, experiment, where in (
            ("spare-power-table-1", "main", "Table 1"),
            ("spare-power-text", "spare", "the text of §5.1"),
        ):
            at = self.t.intervals(experiment)
            candidates = []
            trials: set[int] = set()
            jobs = "-"
            shown = []
            for algorithm in ("fifo", "round_robin"):
                replicas = []
                for b in self.bounds(algorithm):
                    for i in at:
                        mine = self.cells(algorithm, b, i, experiment)
                        trials |= set(mine)
                        if mine and i == at[0]:
                            jobs = str(next(iter(mine.values()))["jobs"])
                            replicas.append(statistics.fmean(r["replicas"] for r in mine.values()))
                        if b is not None:
                            standard = self.cells(algorithm, None, i, experiment)
                            candidates.append(
                                (_label(algorithm, b, i), _relative(mine, standard, "work"))
                            )
                if len(replicas) > 1:
                    shown.append(
                        f"{_label(algorithm, None)} {replicas[0]:.1f}, with deferment "
                        f"{_span(replicas[1:])}"
                    )
            label, estimate = _weakest(candidates, expect)
            out.append(
                Claim(
                    key,
                    "The proposed algorithms' consumption of spare computing power is small "
                    f"(abstract in Japanese: 余剰計算力の消費量が小さい), {jobs} jobs ({where})",
                    f"{jobs}-job trials ({experiment} experiment, {len(trials)} trials) at "
                    f"intervals {', '.join(f'{i:g}' for i in at) or '-'}; {self.note}",
                    "spare power consumed (instructions computed, cancelled replicas "
                    "included), deferment minus the standard algorithm, % of the standard's, "
                    f"paired per trial; the weakest of {len(candidates)} ({label})",
                    expect,
                    estimate,
                    ours=f"replicas per trial at {_g(at[0] if at else None)}: " + "; ".join(shown)
                    if shown
                    else "",
                )
            )
        return out


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _short(algorithm: str) -> str:
    return "fifo" if algorithm == "fifo" else "rr"


def _g(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


# --- the documented results and the page --------------------------------------------------


def _variant_name(algorithm: str, reading: str | None, bound: int | None) -> str:
    name = f"FIFO ({reading})" if algorithm == "fifo" else "Round robin"
    return f"{name}, " + ("standard" if bound is None else f"B = {bound}")


def documented_rows(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """What the reproduction page needs of a full run (stored with the documented results).

    The per-trial rows (tens of thousands) are not stored; the page needs:

    - the summary rows;
    - `kind` = `"claim"`: the judged claims for every FIFO reading that ran
      (`reading`, `key`, `claim`, `ours`, `expected`, `verdict`), each reading
      judged on its own (Holm over its claims);
    - `kind` = `"coincide"`: per main interval, the variants whose results are
      identical in every trial (`groups`: lists of variant names).

    Examples
    --------
    >>> table = reproduce(ExperimentSettings(trials=2, jobs=2, tasks=2, processors=2,
    ...     intervals=(500, 4000), bounds=(1,), overtaking_trials=0, spare_trials=0), workers=1)
    >>> kept = documented_rows(table)
    >>> sorted({r["kind"] for r in kept})
    ['claim', 'coincide', 'summary']
    >>> [len(r["groups"]) for r in kept if r["kind"] == "coincide"]
    [1, 1]
    """
    kept = [dict(r) for r in rows if r.get("kind") == "summary"]
    trials = _Trials(rows)
    for reading in trials.readings():
        for claim in judged(claims(rows, reading)):
            kept.append({"kind": "claim", "reading": reading, **claim})
    results: dict[tuple[Any, ...], dict[tuple[Any, ...], list[int]]] = {}
    for (experiment, algorithm, reading, bound, interval), cells in trials.cells.items():
        if experiment == "main":
            signature = tuple(
                (k, cells[k]["computation"], cells[k]["waiting"], cells[k]["total_std"])
                for k in sorted(cells)
            )
            name = _variant_name(algorithm, reading, bound)
            results.setdefault((interval,), {}).setdefault(signature, []).append(name)  # type: ignore[arg-type]
    for (interval,), groups in sorted(results.items()):
        kept.append({"kind": "coincide", "interval": interval, "groups": list(groups.values())})
    return kept


_SHOWN = (
    ("computation", "computation"),
    ("waiting", "waiting"),
    ("total", "total"),
    ("total_std", "std. dev. of total"),
)


def _summary_table(rows: Sequence[Mapping[str, Any]]) -> str:
    lines = []
    for r in rows:
        cell = {"algorithm": _variant_name(r["algorithm"], r["reading"], r["bound"])}
        for field, title in _SHOWN:
            cell[title] = f"{r[field]:.1f}"
        cell["overtaking jobs (trials)"] = f"{r['overtaking_jobs']} ({r['overtaking_trials']})"
        cell["replicas / trial"] = f"{r['replicas']:.1f}"
        cell["spare power consumed"] = "-" if r["work"] is None else f"{r['work']:.1f} %"
        lines.append(cell)
    return markdown_table(lines)


def page_sections(full: Mapping[str, Any], quick: Mapping[str, Any]) -> dict[str, str]:
    """The generated sections of `docs/reproductions/deferment.md` (besides the common ones).

    Parameters
    ----------
    full, quick
        Documented-results dicts (see
        [`results_document`][schedlib.experiments.pages.results_document]); the
        full one's rows went through
        [`documented_rows`][schedlib.experiments.deferment.documented_rows].
    """
    rows = full["rows"]
    summary = [r for r in rows if r["kind"] == "summary"]
    main = [r for r in summary if r["experiment"] == "main"]
    intervals = sorted({r["interval"] for r in main})
    blocks = []
    for interval in intervals:
        at = [r for r in main if r["interval"] == interval]
        paper = "" if interval in PAPER_INTERVALS else " (ours)"
        blocks.append(
            f"**Interval {interval:g}{paper}**, {at[0]['trials']} trials\n\n" + _summary_table(at)
        )
    spare = [r for r in summary if r["experiment"] == "spare"]
    spare_blocks = [
        f"**Interval {i:g}**, {next(r for r in spare if r['interval'] == i)['trials']} trials\n\n"
        + _summary_table([r for r in spare if r["interval"] == i])
        for i in sorted({r["interval"] for r in spare})
    ]
    coincide = []
    for r in (r for r in rows if r["kind"] == "coincide"):
        groups = r["groups"]
        total = sum(len(g) for g in groups)
        if len(groups) == 1:
            coincide.append(
                f"- interval {r['interval']:g}: all {total} variants give identical "
                "results in every trial"
            )
        else:
            same = [g for g in groups if len(g) > 1]
            coincide.append(
                f"- interval {r['interval']:g}: {len(groups)} distinct results among the "
                f"{total} variants; "
                + ("identical in every trial:" if same else "no two are identical")
            )
            coincide.extend(f"    - {_group(g)}" for g in same)
    verdicts = [r for r in rows if r["kind"] == "claim"]
    readings = [name for name in READINGS if any(r["reading"] == name for r in verdicts)]
    table = []
    for key in dict.fromkeys(r["key"] for r in verdicts):
        cell = {"claim": next(r["claim"] for r in verdicts if r["key"] == key)}
        for reading in readings:
            row = next(r for r in verdicts if r["key"] == key and r["reading"] == reading)
            cell[f"{reading}: ours"] = row["ours"]
            cell[f"{reading}: verdict"] = f"**{row['verdict']}**"
        table.append(cell)
    below = {r["interval"] for r in summary if r["experiment"] == "overtaking"}
    overtaking = [r for r in summary if r["experiment"] == "overtaking"] + [
        r
        for r in main
        if r["algorithm"] == "round_robin" and r["bound"] is None and r["interval"] in below
    ]
    p0 = [
        {
            "algorithm": _variant_name(r["algorithm"], r["reading"], None),
            "interval": f"{r['interval']:g}",
            "trials": r["trials"],
            "overtaking jobs": r["overtaking_jobs"],
            "trials with one": r["overtaking_trials"],
            "share of trials": ProportionEstimate(r["overtaking_trials"], r["trials"]).describe(),
        }
        for r in overtaking
    ]
    longest = [r for r in main if r["interval"] == intervals[-1]] if intervals else []
    alone = statistics.fmean(r["computation"] for r in longest) if longest else math.nan
    differs = [f"- {_claim_text(full, key)}: {why}" for key, why in QUICK_DIFFERS.items()]
    return {
        "quick-differs": "\n".join(differs) or "(none)",
        "full-alone": f"{alone:.0f}",
        "model-spare-power": f"{round(_spare_power(ExperimentSettings()), -4):,.0f}",
        "full-main": "\n\n".join(blocks),
        "full-coincide": "\n".join(coincide),
        "full-spare": "\n\n".join(spare_blocks) or "(not run)",
        "full-readings": markdown_table(table),
        "full-overtaking": markdown_table(p0),
    }


def _claim_text(document: Mapping[str, Any], key: str) -> str:
    return next((c["claim"] for c in document["claims"] if c["key"] == key), key)


def _group(names: Sequence[str]) -> str:
    """Variant names grouped by family: `FIFO (head-job): standard, B = 1 + Round robin: B = 1`."""
    families: dict[str, list[str]] = {}
    for name in names:
        family, _, variant = name.rpartition(", ")
        families.setdefault(family, []).append(variant)
    return " + ".join(f"{family}: {', '.join(v)}" for family, v in families.items())


def _spare_power(settings: ExperimentSettings) -> float:
    """Expected spare power of the grid (instructions per time unit) under the load model."""
    load = settings.load
    share = load.low_share()
    level = share * sum(load.low) / 2 + (1 - share) * sum(load.high) / 2
    peaks = [settings.peaks[i % len(settings.peaks)] for i in range(settings.processors)]
    return level * sum(peaks)


def figures() -> dict[str, Callable[[Sequence[Mapping[str, Any]], str], None]]:
    """The page's figures: file name -> `draw(rows, path)`."""
    return {"deferment.png": plot}


_MEASURES = (
    ("computation", "Computation time"),
    ("waiting", "Waiting time"),
    ("total", "Total time"),
    ("total_std", "Std. dev. of total time"),
)


def plot(rows: Sequence[Mapping[str, Any]], path: str) -> None:
    """Draw the paper's Figures 1a-4b from the main experiment's summary rows into `path`.

    One panel per measure (rows) and algorithm (columns: FIFO per reading,
    round robin); in each, one group of bars per variant (Standard, Bound = n)
    and one bar per interval.

    Raises
    ------
    SchedlibError
        If matplotlib is missing (names the `plot` extra).
    """
    from schedlib.results.plotting import pyplot, save_figure

    plt = pyplot()
    main = [r for r in rows if r.get("kind") == "summary" and r["experiment"] == "main"]
    columns = list(dict.fromkeys((r["algorithm"], r["reading"]) for r in main))
    variants_ = sorted({r["bound"] for r in main}, key=lambda b: (b is not None, b or 0))
    intervals = sorted({r["interval"] for r in main})
    figure, axes = plt.subplots(
        len(_MEASURES),
        len(columns),
        figsize=(4.2 * len(columns), 3.0 * len(_MEASURES)),
        squeeze=False,
    )
    width = 0.8 / max(1, len(intervals))
    for row_index, (measure, title) in enumerate(_MEASURES):
        for col, (algorithm, reading) in enumerate(columns):
            axis = axes[row_index][col]
            for k, interval in enumerate(intervals):
                values = [
                    next(
                        (
                            r[measure]
                            for r in main
                            if r["algorithm"] == algorithm
                            and r["reading"] == reading
                            and r["bound"] == bound
                            and r["interval"] == interval
                        ),
                        math.nan,
                    )
                    for bound in variants_
                ]
                axis.bar(
                    [v + k * width for v in range(len(variants_))],
                    values,
                    width,
                    label=f"Interval = {interval:g}",
                )
            axis.set_xticks([v + width * (len(intervals) - 1) / 2 for v in range(len(variants_))])
            axis.set_xticklabels(["Std" if b is None else f"B={b}" for b in variants_])
            name = f"FIFO, {reading}" if algorithm == "fifo" else "Round-Robin"
            axis.set_title(f"{title} ({name})", fontsize="small")
    handles, labels = axes[0][0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="upper center", ncol=len(intervals), fontsize="small")
    figure.tight_layout(rect=(0, 0, 1, 0.97))
    save_figure(figure, path, dpi=70)


# --- the command line -------------------------------------------------------------------------


def _int_list(text: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated integers, got {text!r}"
        ) from None


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None


_READING_CHOICES = (*READINGS, "both")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `schedlib reproduce deferment` (the CLI adds `--format`)."""
    parser.add_argument("--trials", type=_int, default=200, help="trials (200)")
    parser.add_argument(
        "--jobs", type=_int, default=8, help="jobs per trial (8, Table 1; the text says 32)"
    )
    parser.add_argument(
        "--intervals",
        type=_int_list,
        default=[500, 750, 1000, 2000, 4000],
        metavar="LIST",
        help="job submission intervals (500,750,1000,2000,4000: the paper's and 750)",
    )
    parser.add_argument(
        "--bounds",
        type=_int_list,
        default=[1, 2, 4, 8],
        metavar="LIST",
        help="task deferment bounds, each >= 1 (1,2,4,8)",
    )
    parser.add_argument(
        "--fifo-reading",
        choices=_READING_CHOICES,
        default="both",
        help="FIFO with replication: serve every job's originals before any replica "
        "(originals-first), or the head job, replicas included, until it completes (head-job); "
        "both (default) runs both and judges the claims for originals-first",
    )
    parser.add_argument(
        "--overtaking-trials",
        type=_int,
        default=1000,
        help="trials of standard FIFO at intervals 500 and 750 for the overtaking claim, the "
        "main trials included (1000)",
    )
    parser.add_argument(
        "--spare-trials",
        type=_int,
        default=30,
        help="trials of the 32-job spare-power experiment at interval 500 (30; 0: none)",
    )
    parser.add_argument(
        "--identical-jobs",
        action="store_true",
        help="give every job the same task sizes (a reading of 'all the jobs are the same "
        "construction' under which no job can overtake and deferment never acts)",
    )
    parser.add_argument(
        "--seed", type=_int, default=0, help="seed (0): trial t draws from (seed, t)"
    )
    parser.add_argument("--workers", type=_int, default=None, help="processes (default: every CPU)")
    parser.add_argument(
        "--no-replication",
        dest="replication",
        action="store_false",
        help="turn task replication off for every algorithm",
    )
    parser.add_argument("--plot", metavar="FILE", help="also draw Figures 1-4 into FILE (.png)")
    add_claims_argument(parser)
    add_quick_argument(
        parser,
        {"trials": 8, "overtaking_trials": 8, "spare_trials": 3, "fifo_reading": DEFAULT_READING},
        full_time="10 minutes",
        quick_time="15 s",
    )


def _settings(args: argparse.Namespace) -> ExperimentSettings:
    readings = tuple(READINGS) if args.fifo_reading == "both" else (args.fifo_reading,)
    intervals = tuple(args.intervals)
    return ExperimentSettings(
        trials=args.trials,
        jobs=args.jobs,
        intervals=intervals,
        bounds=tuple(args.bounds),
        readings=readings,
        replication=args.replication,
        identical_jobs=args.identical_jobs,
        overtaking_trials=args.overtaking_trials,
        spare_trials=args.spare_trials,
        seed=args.seed,
    )


def data(args: argparse.Namespace) -> str:
    """The data of a run: the synthetic desktop grid and jobs, the trials of each experiment."""
    s = _settings(args)
    spare = (
        f"; {s.spare_jobs}-job spare-power experiment, {s.spare_trials} trials at "
        f"{', '.join(f'{i:g}' for i in s.spare_intervals)}"
        if s.spare_trials
        else ""
    )
    extra = max(s.overtaking_trials, s.trials)
    return (
        f"synthetic desktop grid ({s.processors} PCs, the paper's load model), {s.jobs} jobs of "
        f"{s.tasks} tasks{' (identical jobs)' if s.identical_jobs else ''}; {s.trials} trials "
        f"at intervals {', '.join(f'{i:g}' for i in s.intervals)}; standard FIFO over "
        f"{extra} trials for the overtaking claim{spare}; FIFO readings "
        f"{', '.join(s.readings)}; seed {s.seed}"
    )


def rows(args: argparse.Namespace, *, show_progress: bool = False) -> list[dict[str, Any]]:
    """The reproduction's rows for parsed options (no printing, no plot)."""
    if args.workers is not None and args.workers < 1:
        raise InvalidValueError("--workers", args.workers, "must be >= 1")
    return reproduce(_settings(args), workers=args.workers, show_progress=show_progress)


def main(args: argparse.Namespace) -> int:
    """Run the reproduction and print the summary rows, then the claims and their rule."""
    note = apply_quick(args)
    check_plot_target(args.plot)
    table = rows(args, show_progress=True)
    if args.plot:
        plot(table, args.plot)
    print_note(note, args.format)
    reading = DEFAULT_READING if args.fifo_reading == "both" else args.fifo_reading
    summary = [{k: v for k, v in r.items() if k != "kind"} for r in table if r["kind"] == "summary"]
    documented = NAME if reading == DEFAULT_READING else None
    print_results(summary, claims(table, reading), args, name=documented)
    return 0
