"""The runs of the deferment reproduction: one trial, the three experiments, the summaries.

[`run_trial`][schedlib.experiments.deferment.run_trial] runs one trial of one
experiment and measures it ([`job_measures`][schedlib.experiments.deferment.job_measures]);
[`reproduce`][schedlib.experiments.deferment.reproduce] runs every trial and
[`summarize`][schedlib.experiments.deferment.summarize] averages them.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from schedlib.deferment.desktopgrid import Processor, TaskJob, work_done
from schedlib.deferment.farm import run_grid as run_farm
from schedlib.deferment.overtaking import overtaking_jobs
from schedlib.errors import InvalidValueError
from schedlib.experiments.deferment.setup import ExperimentSettings, trial_workload, variants
from schedlib.experiments.running import Execution, run_grid
from schedlib.model import EventKind, RunRecord
from schedlib.results.digest import schedule_digest


def job_measures(
    record: RunRecord, grid: Sequence[Processor] | None = None
) -> dict[str, float | str]:
    """The paper's measures of one run (§5.1), plus overtaking, replicas and spare power.

    Parameters
    ----------
    record
        A finished run of [`run_grid`][schedlib.deferment.farm.run_grid] (the task farm).
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
        instance, % of the tasks' instructions), `schedule` (the run's
        [`schedule_digest`][schedlib.results.digest.schedule_digest]: two runs with
        the same digest made the same schedule).

    Examples
    --------
    >>> from schedlib.deferment.selection import fifo
    >>> from schedlib.deferment.desktopgrid import SpeedHistory
    >>> grid = [Processor(1, SpeedHistory.constant(1))]
    >>> m = job_measures(run_farm([TaskJob(1, 0, (2,)), TaskJob(2, 1, (3,))], grid, fifo()), grid)
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
        "schedule": schedule_digest(record),
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
        `(settings, trial index, experiment)` (one task of the grid: picklable, and
        module-level so that a dask worker imports it by name);
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
            record = run_farm(jobs, grid, variant.scheduler)
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
_SPREAD = ("computation", "waiting", "total", "total_std")
"""The measures whose standard deviation over trials a summary row keeps (for the figure)."""


def summarize(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One summary row per (experiment, configuration) from the per-trial rows.

    Returns
    -------
    list of dict
        `kind` = `"summary"`, `experiment`, `jobs`, `algorithm`, `reading`,
        `bound`, `interval`, the means over trials of `computation`, `waiting`,
        `total`, `total_std`, `replicas` and `work`, the standard deviations over
        trials of the first four (`computation_sd`, ...), `overtaking_jobs`
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
        for field in _SPREAD:
            spread = [c[field] for c in cells]
            row[f"{field}_sd"] = statistics.stdev(spread) if len(spread) > 1 else 0.0
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


def task_key(item: tuple[ExperimentSettings, int, str]) -> str:
    """A task's key in a resume file: `EXPERIMENT TRIAL` (the settings are the file's options).

    Examples
    --------
    >>> task_key((ExperimentSettings(), 7, "main"))
    'main 7'
    """
    _, trial, experiment = item
    return f"{experiment} {trial}"


def task_cost(item: tuple[ExperimentSettings, int, str]) -> float:
    """A task's expected cost: its runs times their jobs (the 32-job trials go first).

    Examples
    --------
    >>> settings = ExperimentSettings()
    >>> task_cost((settings, 0, "spare")) > task_cost((settings, 0, "main"))
    True
    """
    settings, _, experiment = item
    count = len(variants(settings))
    if experiment == "spare":
        return count * len(settings.spare_intervals) * settings.spare_jobs**2
    if experiment == "overtaking":
        return len(settings.readings) * len(settings.overtaking_intervals) * settings.jobs**2
    return count * len(settings.intervals) * settings.jobs**2


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
    settings: ExperimentSettings | None = None, execution: Execution | None = None
) -> list[dict[str, Any]]:
    """Run the three experiments: every per-trial row, then the summary rows.

    Parameters
    ----------
    settings
        The parameters (default: the paper's and ours, see the module notes).
    execution
        Where the trials run (local processes, a dask cluster, resumed from a file: see
        [`Execution`][schedlib.experiments.running.Execution]; `None`: every local CPU).

    Returns
    -------
    list of dict
        The rows of [`run_trial`][schedlib.experiments.deferment.run_trial]
        (`kind` = `"trial"`), then those of
        [`summarize`][schedlib.experiments.deferment.summarize] (`kind` = `"summary"`).

    Notes
    -----
    The `overtaking` experiment's first trials are the main ones (the same
    streams): their rows are shared, not run twice. Each (experiment, trial) is
    one task of [`run_grid`][schedlib.experiments.running.run_grid] (the 32-job
    trials first); the rows do not depend on where they ran. Complexity:
    $O(R \\cdot A \\cdot I \\cdot E \\log E)$ for $R$ trials, $A$ algorithms, $I$
    intervals and $E$ events per run.

    References
    ----------
    Mine et al. (2007) §5 (Table 1, Figures 1-4).
    """
    config = settings if settings is not None else ExperimentSettings()
    parts = run_grid(run_trial, _items(config), execution, key=task_key, cost=task_cost)
    results = [row for part in parts for row in part]
    results += _overtaking_copies(config, results)
    results.sort(key=lambda r: (_EXPERIMENTS.index(r["experiment"]), r["trial"]))
    return results + summarize(results)
