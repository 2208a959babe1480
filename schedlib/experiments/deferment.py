"""Reproduction of Mine et al. (2007) §5: task deferment against standard FIFO and round robin.

`schedlib reproduce deferment` runs the paper's simulation (§5.1, Table 1):
32 desktop PCs with peak speeds 10000, 20000 and 40000 instructions per time
unit under the two-state load model, jobs of 128 tasks of U(2e6, 6e6)
instructions submitted at a regular interval (500, 1000, 2000 or 4000), and
ten algorithms — FIFO and round robin, standard and with task deferment
bounds 1, 2, 4 and 8 — over 200 trials. It reports, per algorithm and
interval, the paper's four measures and the number of overtaking jobs.

**Measures** (§5.1, "Performance Measures"), for a job submitted at $s$
whose first task instance starts at $b$ and whose last task completes at $e$:

| measure | definition |
|---|---|
| computation time | $e - b$ |
| waiting time | $b - s$ |
| total time | $e - s$ (= computation + waiting) |
| std. dev. of total time | population std. dev. of the total times of one trial's jobs |

The first three are averaged over all jobs of all trials, the standard
deviation over trials.

**Choices where the paper is silent** (documented on the reproduction page):
processor $i$ has peak `peaks[i % 3]` (11, 11 and 10 PCs of each speed);
task sizes are integers drawn uniformly; jobs are numbered in submission
order and job $i$ is submitted at $i \\times$ interval; every algorithm, the
standard ones included, replicates tasks (so that the comparison isolates
deferment; `replication=False` turns it off for all); within one trial all
algorithms and intervals see the same task sizes and the same speed
histories (common random numbers).

Examples
--------
>>> rows = reproduce(ExperimentSettings(trials=1, jobs=2, tasks=4, processors=3,
...                                     intervals=(500,), bounds=(1,)), workers=1)
>>> [(r["algorithm"], r["bound"], r["interval"]) for r in rows]
[('fifo', None, 500), ('fifo', 1, 500), ('round_robin', None, 500), ('round_robin', 1, 500)]
>>> rows[1]["overtaking_jobs"]
0
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import statistics
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import attrs

from schedlib.deferment.desktopgrid import LoadModel, TaskJob, markov_grid
from schedlib.deferment.farm import run_grid
from schedlib.deferment.overtaking import overtaking_jobs
from schedlib.deferment.selection import Deferment, Order, TaskSelection
from schedlib.errors import InvalidValueError
from schedlib.execution.parallel import parallel_map
from schedlib.execution.progress import ProgressBar
from schedlib.experiments.claims import claim
from schedlib.experiments.options import (
    add_claims_argument,
    add_quick_argument,
    apply_quick,
    check_plot_target,
    print_note,
    print_results,
)
from schedlib.model import EventKind, RunRecord
from schedlib.validation import at_least

__all__ = [
    "NAME",
    "PAPER",
    "PAPER_PEAKS",
    "SUMMARY",
    "ExperimentSettings",
    "add_arguments",
    "algorithms",
    "claims",
    "data",
    "job_measures",
    "main",
    "plot",
    "reproduce",
    "rows",
    "run_trial",
    "trial_workload",
]

NAME = "deferment"
PAPER = "Mine et al. (2007)"
"""The paper this module reproduces, as cited in tables."""
SUMMARY = (
    "Mine et al. (2007): FIFO and round robin, standard and with task deferment, on a desktop grid "
    "(computation, waiting and total time, overtaking jobs)"
)

PAPER_PEAKS: tuple[int, ...] = (10_000, 20_000, 40_000)
"""Peak speeds of the paper's PCs (ratios 1, 2, 4; Table 1)."""


def _positive_ints(value: Iterable[int]) -> tuple[int, ...]:
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


@attrs.frozen(slots=True)
class ExperimentSettings:
    """Parameters of the reproduction; the defaults are the paper's (Table 1).

    Attributes
    ----------
    trials
        Number of trials (paper: 200).
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
        Job submission intervals (500, 1000, 2000, 4000).
    bounds
        Task deferment bounds (1, 2, 4, 8); each must be `>= 1`.
    replication
        Whether every algorithm replicates tasks.
    load
        The PCs' load model (Table 1: switching 1/1000 and 1/100, 95-100% and
        0-5% of the peak).
    seed
        Master seed; trial `i` derives its own streams from `(seed, i)`.
    """

    trials: int = attrs.field(default=200, validator=at_least(1))
    jobs: int = attrs.field(default=8, validator=at_least(1))
    tasks: int = attrs.field(default=128, validator=at_least(1))
    task_size: tuple[int, ...] = attrs.field(
        default=(2_000_000, 6_000_000), converter=_positive_ints, validator=_check_size_range
    )
    processors: int = attrs.field(default=32, validator=at_least(1))
    peaks: tuple[float, ...] = attrs.field(
        default=PAPER_PEAKS, converter=tuple, validator=_each_at_least(1e-9)
    )
    intervals: tuple[float, ...] = attrs.field(
        default=(500, 1000, 2000, 4000), converter=tuple, validator=_each_at_least(0)
    )
    bounds: tuple[int, ...] = attrs.field(
        default=(1, 2, 4, 8), converter=_positive_ints, validator=_check_bounds
    )
    replication: bool = True
    load: LoadModel = attrs.field(factory=LoadModel)
    seed: int = 0


def algorithms(settings: ExperimentSettings) -> list[tuple[TaskSelection, int | None]]:
    """The algorithms compared: per order, standard then each deferment bound.

    Returns
    -------
    list of (TaskSelection, bound or None)
        `2 * (1 + len(bounds))` schedulers (ten with the paper's bounds).

    Examples
    --------
    >>> [s.name for s, _ in algorithms(ExperimentSettings(bounds=(2,)))]
    ['fifo', 'fifo+deferment(B=2)', 'round_robin', 'round_robin+deferment(B=2)']
    """
    chosen: list[tuple[TaskSelection, int | None]] = []
    for order in (Order.FIFO, Order.ROUND_ROBIN):
        chosen.append((TaskSelection(order, None, settings.replication), None))
        for bound in settings.bounds:
            chosen.append((TaskSelection(order, Deferment(bound), settings.replication), bound))
    return chosen


def trial_workload(settings: ExperimentSettings, trial: int) -> tuple[list[list[int]], int]:
    """The task sizes of each job of one trial, and the seed of its grid.

    Returns
    -------
    (sizes, grid_seed)
        `sizes[j]` lists the task sizes of job `j`.

    Examples
    --------
    >>> sizes, _ = trial_workload(ExperimentSettings(jobs=2, tasks=3), 0)
    >>> [len(s) for s in sizes], all(2_000_000 <= x <= 6_000_000 for s in sizes for x in s)
    ([3, 3], True)
    """
    rng = random.Random(f"schedlib.deferment/{settings.seed}/{trial}")
    low, high = settings.task_size
    sizes = [[rng.randint(low, high) for _ in range(settings.tasks)] for _ in range(settings.jobs)]
    return sizes, rng.getrandbits(63)


def job_measures(record: RunRecord) -> dict[str, float]:
    """The paper's measures of one run (§5.1), plus overtaking and replication counts.

    Returns
    -------
    dict
        `computation`, `waiting`, `total` (means over the jobs),
        `total_std` (population standard deviation of the total times),
        `overtaking_jobs` (how many jobs overtake another), `replicas`
        (replica instances started).

    Examples
    --------
    >>> from schedlib.deferment.selection import fifo
    >>> from schedlib.deferment.desktopgrid import Processor, SpeedHistory
    >>> grid = [Processor(1, SpeedHistory.constant(1))]
    >>> record = run_grid([TaskJob(1, 0, (2,)), TaskJob(2, 1, (3,))], grid, fifo())
    >>> job_measures(record)["waiting"], job_measures(record)["total"]
    (0.5, 3.0)
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
    }


def run_trial(item: tuple[ExperimentSettings, int]) -> list[dict[str, Any]]:
    """Run every algorithm at every interval for one trial.

    Parameters
    ----------
    item
        `(settings, trial index)` (one argument, for `parallel_map`).

    Returns
    -------
    list of dict
        One row per (algorithm, interval), in the order of
        [`algorithms`][schedlib.experiments.deferment.algorithms] then
        intervals, with the measures of
        [`job_measures`][schedlib.experiments.deferment.job_measures].
    """
    settings, trial = item
    sizes, grid_seed = trial_workload(settings, trial)
    peaks = [settings.peaks[i % len(settings.peaks)] for i in range(settings.processors)]
    grid = markov_grid(peaks, grid_seed, settings.load)
    rows = []
    for scheduler, bound in algorithms(settings):
        for interval in settings.intervals:
            jobs = [TaskJob(j, j * interval, sizes[j]) for j in range(settings.jobs)]
            record = run_grid(jobs, grid, scheduler)
            rows.append(
                {
                    "algorithm": scheduler.order.value,
                    "bound": bound,
                    "interval": interval,
                    **job_measures(record),
                }
            )
    return rows


def _aggregate(trials: Sequence[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    rows = []
    for cells in zip(*trials, strict=True):
        first = cells[0]
        overtaking = [c["overtaking_jobs"] for c in cells]
        rows.append(
            {
                "algorithm": first["algorithm"],
                "bound": first["bound"],
                "interval": first["interval"],
                "computation": statistics.fmean(c["computation"] for c in cells),
                "waiting": statistics.fmean(c["waiting"] for c in cells),
                "total": statistics.fmean(c["total"] for c in cells),
                "total_std": statistics.fmean(c["total_std"] for c in cells),
                "overtaking_jobs": sum(overtaking),
                "overtaking_trials": sum(1 for o in overtaking if o),
                "replicas": statistics.fmean(c["replicas"] for c in cells),
                "trials": len(cells),
            }
        )
    return rows


def reproduce(
    settings: ExperimentSettings | None = None,
    *,
    workers: int | None = None,
    show_progress: bool = False,
) -> list[dict[str, Any]]:
    """Run the whole reproduction and return one row per (algorithm, bound, interval).

    Parameters
    ----------
    settings
        The parameters (default: the paper's).
    workers
        Processes for the trials (`None`: every CPU; `1`: this process).
    show_progress
        Draw a progress bar on standard error (only on a terminal).

    Returns
    -------
    list of dict
        Keys: `algorithm` (`fifo`, `round_robin`), `bound` (`None` for the
        standard algorithm), `interval`, `computation`, `waiting`, `total`,
        `total_std` (means over trials, see the module docstring),
        `overtaking_jobs` (summed over trials), `overtaking_trials` (trials
        with at least one overtaking job), `replicas` (mean replica instances
        per trial), `trials`.

    Notes
    -----
    Trials are independent and spread over `workers` processes with
    [`parallel_map`][schedlib.execution.parallel.parallel_map]; the result does not
    depend on the number of workers. Complexity: $O(R \\cdot A \\cdot I \\cdot
    E \\log E)$ for $R$ trials, $A$ algorithms, $I$ intervals and $E$ events
    per run.

    References
    ----------
    Mine et al. (2007) §5 (Table 1, Figures 1-4).
    """
    config = settings if settings is not None else ExperimentSettings()
    items = [(config, trial) for trial in range(config.trials)]
    batch = max(1, math.ceil(len(items) / 10))
    results: list[list[dict[str, Any]]] = []
    with ProgressBar(len(items), "deferment", enabled=None if show_progress else False) as bar:
        for start in range(0, len(items), batch):
            results.extend(parallel_map(run_trial, items[start : start + batch], workers=workers))
            bar(len(results))
    return _aggregate(results)


_MEASURES = (
    ("computation", "Computation time"),
    ("waiting", "Waiting time"),
    ("total", "Total time"),
    ("total_std", "Standard deviation of total time"),
)


def plot(rows: Sequence[dict[str, Any]], path: str) -> None:
    """Draw the paper's Figures 1a-4b from the rows of `reproduce` into `path`.

    One panel per measure (rows) and order (columns); in each, one group of
    bars per algorithm variant (Standard, Bound = n) and one bar per interval.

    Raises
    ------
    SchedlibError
        If matplotlib is missing (names the `plot` extra).
    """
    from schedlib.results.plotting import pyplot, save_figure

    plt = pyplot()
    orders = ("fifo", "round_robin")
    variants = sorted({r["bound"] for r in rows}, key=lambda b: (b is not None, b or 0))
    intervals = sorted({r["interval"] for r in rows})
    figure, axes = plt.subplots(len(_MEASURES), 2, figsize=(11, 3.2 * len(_MEASURES)))
    width = 0.8 / max(1, len(intervals))
    for row_index, (measure, title) in enumerate(_MEASURES):
        for col, order in enumerate(orders):
            axis = axes[row_index][col]
            for k, interval in enumerate(intervals):
                values = [
                    next(
                        (
                            r[measure]
                            for r in rows
                            if r["algorithm"] == order
                            and r["bound"] == bound
                            and r["interval"] == interval
                        ),
                        float("nan"),
                    )
                    for bound in variants
                ]
                axis.bar(
                    [v + k * width for v in range(len(variants))],
                    values,
                    width,
                    label=f"Interval = {interval:g}",
                )
            axis.set_xticks([v + width * (len(intervals) - 1) / 2 for v in range(len(variants))])
            axis.set_xticklabels(["Standard" if b is None else f"Bound = {b}" for b in variants])
            axis.set_title(f"{title} ({'FIFO' if order == 'fifo' else 'Round-Robin'})")
            axis.set_ylabel("time")
    handles, labels = axes[0][0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="upper center", ncol=len(intervals), fontsize="small")
    figure.tight_layout(rect=(0, 0, 1, 0.97))
    save_figure(figure, path, dpi=80)


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


NEARLY_EQUAL_PERCENT = 5.0
"""Deferment's total time within this many percent of the standard algorithm's is "nearly equal"."""


def _shorter_is_longer(series: Sequence[Sequence[float]]) -> bool | str:
    """Whether totals, by increasing interval, fall.

    `True` if every step falls; `False` if the last is not below the first or
    one step rises by more than 1 %; `"unclear"` if they fall overall with
    rises under 1 % (within the noise of a few trials).
    """
    if any(t[0] <= t[-1] or any(y > 1.01 * x for x, y in itertools.pairwise(t)) for t in series):
        return False
    return True if all(x > y for t in series for x, y in itertools.pairwise(t)) else "unclear"


def claims(rows: Sequence[dict[str, Any]]) -> list[dict[str, str]]:
    """The paper's claims (§5.2, §6), each checked on the rows of a run.

    Standard algorithms are the rows with `bound` `None`; a claim whose rows
    are absent is `not run`.

    Examples
    --------
    >>> rows = [{"algorithm": a, "bound": b, "interval": i, "total": t, "overtaking_jobs": o}
    ...         for a, b, i, t, o in (("fifo", None, 500, 2200.0, 0), ("fifo", 2, 500, 2203.0, 0),
    ...                               ("round_robin", None, 500, 3000.0, 3),
    ...                               ("round_robin", 2, 500, 3004.0, 0))]
    >>> [c["verdict"] for c in claims(rows)]
    ['holds', 'holds', 'holds', 'holds', 'not run']
    """
    standard = [r for r in rows if r["bound"] is None]
    deferred = [r for r in rows if r["bound"] is not None]
    base = {(r["algorithm"], r["interval"]): r["total"] for r in standard}
    intervals = sorted({r["interval"] for r in rows})
    out = [
        claim(
            "task deferment never produces an overtaking job (§4, §5.2)",
            f"{sum(r['overtaking_jobs'] for r in deferred)} overtaking jobs "
            f"in {len(deferred)} deferment configurations",
            all(r["overtaking_jobs"] == 0 for r in deferred) if deferred else None,
        ),
        claim(
            "the standard algorithms produce overtaking jobs (§3, §5)",
            ", ".join(
                f"{r['algorithm']} at {r['interval']}: {r['overtaking_jobs']}"
                for r in standard
                if r["overtaking_jobs"]
            )
            or f"none in {len(standard)} configurations",
            any(r["overtaking_jobs"] > 0 for r in standard) if standard else None,
        ),
    ]
    changes = [
        100
        * (r["total"] - base[r["algorithm"], r["interval"]])
        / base[r["algorithm"], r["interval"]]
        for r in deferred
        if base.get((r["algorithm"], r["interval"]))
    ]
    out.append(
        claim(
            "deferment achieves nearly equal performance to the standard algorithms (§5.2)",
            f"total time {min(changes):+.1f} % to {max(changes):+.1f} % of the standard's"
            if changes
            else "-",
            all(abs(c) <= NEARLY_EQUAL_PERCENT for c in changes) if changes else None,
        )
    )
    shortest = intervals[0] if intervals else None

    def deferred_total(algorithm: str) -> list[float]:
        return [
            r["total"]
            for r in deferred
            if r["algorithm"] == algorithm and r["interval"] == shortest
        ]

    fifo, rr = deferred_total("fifo"), deferred_total("round_robin")
    out.append(
        claim(
            "FIFO with deferment performs better than round robin with deferment (§6)",
            f"total time at interval {shortest}: FIFO {min(fifo):.0f}-{max(fifo):.0f} "
            f"vs round robin {min(rr):.0f}-{max(rr):.0f}"
            if fifo and rr
            else "-",
            max(fifo) < min(rr) if fifo and rr else None,
        )
    )
    trend = {a: [base[a, i] for i in intervals if (a, i) in base] for a in ("fifo", "round_robin")}
    complete = all(len(t) == len(intervals) >= 2 for t in trend.values())
    out.append(
        claim(
            "the shorter the submission interval, the longer the total time (§5.2)",
            "; ".join(f"{a}: {' / '.join(f'{x:.0f}' for x in t)}" for a, t in trend.items())
            + f" (intervals {', '.join(str(i) for i in intervals)})",
            _shorter_is_longer(list(trend.values())) if complete else None,
        )
    )
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `schedlib reproduce deferment` (the CLI adds `--format`)."""
    parser.add_argument("--trials", type=_int, default=200, help="number of trials (200)")
    parser.add_argument(
        "--jobs", type=_int, default=8, help="jobs per trial (8, Table 1; the text says 32)"
    )
    parser.add_argument(
        "--intervals",
        type=_int_list,
        default=[500, 1000, 2000, 4000],
        metavar="LIST",
        help="job submission intervals (500,1000,2000,4000)",
    )
    parser.add_argument(
        "--bounds",
        type=_int_list,
        default=[1, 2, 4, 8],
        metavar="LIST",
        help="task deferment bounds, each >= 1 (1,2,4,8)",
    )
    parser.add_argument("--seed", type=_int, default=0, help="master seed (0)")
    parser.add_argument("--workers", type=_int, default=None, help="processes (default: every CPU)")
    parser.add_argument(
        "--no-replication",
        dest="replication",
        action="store_false",
        help="turn task replication off for every algorithm",
    )
    parser.add_argument("--plot", metavar="FILE", help="also draw Figures 1-4 into FILE (.png)")
    add_claims_argument(parser)
    add_quick_argument(parser, {"trials": 5}, full_time="6 minutes", quick_time="5 s")


def data(args: argparse.Namespace) -> str:
    """The data of a run: the synthetic desktop grid and jobs, and the trials."""
    return (
        f"synthetic: 32 processors, {args.jobs} jobs of 128 tasks; {args.trials} trials "
        f"(seed {args.seed})"
    )


def rows(args: argparse.Namespace, *, show_progress: bool = False) -> list[dict[str, Any]]:
    """The reproduction's rows for parsed options (no printing, no plot)."""
    settings = ExperimentSettings(
        trials=args.trials,
        jobs=args.jobs,
        intervals=tuple(args.intervals),
        bounds=tuple(args.bounds),
        replication=args.replication,
        seed=args.seed,
    )
    if args.workers is not None and args.workers < 1:
        raise InvalidValueError("--workers", args.workers, "must be >= 1")
    return reproduce(settings, workers=args.workers, show_progress=show_progress)


def main(args: argparse.Namespace) -> int:
    """Run the reproduction with the parsed options and print the table."""
    note = apply_quick(args)
    check_plot_target(args.plot)
    table = rows(args, show_progress=True)
    if args.plot:
        plot(table, args.plot)
    print_note(note, args.format)
    print_results(table, claims(table), args, name=NAME)
    return 0
