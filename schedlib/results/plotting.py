"""Plots of runs and sweeps (the `plot` extra): Gantt charts, load over time, wait CDFs.

- [`plot_schedule`][schedlib.results.plotting.plot_schedule]: one run — a Gantt
  chart per processor, utilisation and queue length over time, and the CDF of
  the wait times.
- [`plot_runs`][schedlib.results.plotting.plot_runs]: several runs of one
  workload (e.g. `schedlib compare`'s policies) on shared axes.
- [`plot_sweep`][schedlib.results.plotting.plot_sweep]: a sweep's rows — a
  metric against a parameter, one line per combination of the other swept
  parameters, error bars of one standard deviation over the seeds.

Every figure has a title, axis labels with units, and legends. matplotlib is
imported only through [`pyplot`][schedlib.results.plotting.pyplot], which
raises a clear error when it is missing: call it before any long computation.

Examples
--------
With the `plot` extra installed:

>>> plt = pyplot()
>>> plt.__name__, plt.get_backend().lower()
('matplotlib.pyplot', 'agg')
>>> from schedlib.place import ProcessorSet as P
>>> from schedlib.results.schedules import Schedule, ScheduledJob as J
>>> run = Schedule((J(1, 0, 2, 10, 0, 10, P("0-1")), J(2, 1, 4, 10, 10, 15, P("0-3"))))
>>> figure = plot_schedule(run, capacity=4, title="two jobs")
>>> [ax.get_title() for ax in figure.axes]
['Gantt chart (2 jobs)', 'Utilisation', 'Queue length', 'Wait times']
>>> plt.close(figure)
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from schedlib.errors import InvalidValueError, SchedlibError
from schedlib.results.atomic import atomic_write
from schedlib.results.export import check_output_path
from schedlib.results.schedules import Schedule

__all__ = [
    "FIGURE_SUFFIXES",
    "GANTT_LIMIT",
    "check_figure_path",
    "load_steps",
    "plot_runs",
    "plot_schedule",
    "plot_sweep",
    "pyplot",
    "save_figure",
    "swept_parameters",
]

FIGURE_SUFFIXES = (".png", ".pdf", ".svg")
"""The figure formats `--plot` and `schedlib plot` write, chosen by suffix."""

GANTT_LIMIT = 2000
"""At most this many jobs (the first to start) in a Gantt chart; the title says so."""


def pyplot() -> Any:
    """Return `matplotlib.pyplot` with the non-interactive Agg backend.

    Raises
    ------
    SchedlibError
        If matplotlib is not installed, naming the `plot` extra.
    """
    try:
        import matplotlib
    except ImportError as error:
        raise SchedlibError(
            "plotting needs matplotlib, which is not installed; "
            "install the 'plot' extra: pip install 'schedlib[plot]'"
        ) from error
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def check_figure_path(path: str | Path, *, option: str = "plot") -> Path:
    """Check that a figure can be written to `path`, before any work.

    Raises
    ------
    InvalidValueError
        If the suffix is not one of [`FIGURE_SUFFIXES`][schedlib.results.plotting.FIGURE_SUFFIXES],
        or the folder does not exist or cannot be written to (naming `option`).

    Examples
    --------
    >>> check_figure_path("out.txt")
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: plot = 'out.txt': must end in .png, .pdf or .svg
    """
    return check_output_path(path, FIGURE_SUFFIXES, option=option)


def save_figure(figure: Any, path: str | Path, *, dpi: int = 120) -> Path:
    """Write `figure` to `path` (format by suffix, `dpi` for raster formats) and close it.

    The file is written whole or not at all
    ([`atomic_write`][schedlib.results.atomic.atomic_write]).
    """
    target = check_figure_path(path)
    with atomic_write(target, binary=True) as stream:
        figure.savefig(stream, format=target.suffix[1:].lower(), dpi=dpi, bbox_inches="tight")
    pyplot().close(figure)
    return target


def load_steps(schedule: Schedule) -> tuple[list[float], list[int], list[int]]:
    """Processors in use and jobs waiting, as step functions of time.

    Returns
    -------
    tuple of lists
        `(times, busy, queued)`: from `times[i]` until the next time,
        `busy[i]` processors run jobs and `queued[i]` jobs wait. A job waits
        from its submission to its start; one that never started does not
        wait (it was rejected).

    Notes
    -----
    Complexity: $O(n \\log n)$.

    Examples
    --------
    >>> from schedlib.results.schedules import ScheduledJob as J
    >>> load_steps(Schedule((J(1, 0, 2, 10, 0, 10), J(2, 1, 4, 10, 10, 15))))
    ([0, 1, 10, 15], [2, 2, 4, 0], [0, 1, 0, 0])
    """
    changes: dict[float, list[int]] = {}
    for job in schedule.jobs:
        if job.start is None or job.end is None:
            continue
        for time, more, waiting in (
            (job.submit, 0, 1),
            (job.start, job.procs, -1),
            (job.end, -job.procs, 0),
        ):
            change = changes.setdefault(time, [0, 0])
            change[0] += more
            change[1] += waiting
    times: list[float] = []
    busy: list[int] = []
    queued: list[int] = []
    used = waiting = 0
    for time in sorted(changes):
        used += changes[time][0]
        waiting += changes[time][1]
        times.append(time)
        busy.append(used)
        queued.append(waiting)
    return times, busy, queued


def _waits(schedule: Schedule) -> list[float]:
    return sorted(j.start - j.submit for j in schedule.jobs if j.start is not None)


def _gantt(ax: Any, schedule: Schedule, capacity: int, limit: int) -> None:
    started = sorted(
        (j for j in schedule.jobs if j.start is not None and j.end is not None and j.allocation),
        key=lambda j: (j.start, j.line),
    )
    shown = started[:limit]
    lefts, widths, bottoms, heights, colours = [], [], [], [], []
    cmap = pyplot().get_cmap("tab20")
    for k, job in enumerate(shown):
        for lo, hi in job.allocation.ranges if job.allocation else ():
            lefts.append(job.start)
            widths.append(job.end - job.start)  # type: ignore[operator]
            bottoms.append(lo)
            heights.append(hi - lo)
            colours.append(cmap(k % 20))
    if lefts:
        ax.bar(
            lefts,
            heights,
            width=widths,
            bottom=bottoms,
            align="edge",
            color=colours,
            edgecolor="black",
            linewidth=0.3,
            label="a job (one colour per job)",
        )
        ax.legend(loc="upper right", fontsize="small")
    else:
        ax.text(
            0.5,
            0.5,
            "the file gives no processor allocations",
            ha="center",
            va="center",
            transform=ax.transAxes,
        )
    more = f", the first {limit} to start" if len(started) > limit else ""
    ax.set_title(f"Gantt chart ({len(started)} jobs{more})")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("processor")
    ax.set_ylim(0, capacity)


def _cdf(ax: Any, waits: Sequence[float], label: str) -> None:
    if waits:
        ys = [(i + 1) / len(waits) for i in range(len(waits))]
        ax.step(waits, ys, where="post", label=f"{label} ({len(waits)} jobs)")


def _load(axes: Sequence[Any], schedule: Schedule, capacity: int, label: str) -> None:
    times, busy, queued = load_steps(schedule)
    axes[0].step(times, [b / capacity for b in busy], where="post", label=label)
    axes[1].step(times, queued, where="post", label=label)


def _label_load_and_waits(axes: Sequence[Any]) -> None:
    utilisation, queue, waits = axes
    utilisation.set_title("Utilisation")
    utilisation.set_xlabel("time (s)")
    utilisation.set_ylabel("processors in use (fraction)")
    utilisation.set_ylim(0, 1.05)
    queue.set_title("Queue length")
    queue.set_xlabel("time (s)")
    queue.set_ylabel("jobs waiting")
    waits.set_title("Wait times")
    waits.set_xlabel("wait (s)")
    waits.set_ylabel("fraction of the jobs that started")
    waits.set_ylim(0, 1.05)
    for ax in axes:
        if ax.get_legend_handles_labels()[0]:
            ax.legend(loc="best", fontsize="small")


def plot_schedule(
    schedule: Schedule, *, capacity: int, title: str | None = None, gantt_limit: int = GANTT_LIMIT
) -> Any:
    """One run: Gantt chart per processor, utilisation, queue length, wait-time CDF.

    Parameters
    ----------
    schedule
        The run (e.g. from [`read_schedule`][schedlib.results.schedules.read_schedule]
        or [`Schedule.from_record`][schedlib.results.schedules.Schedule.from_record]).
    capacity
        Processors of the machine.
    title
        The figure's title (default: the schedule's source).
    gantt_limit
        Most jobs drawn in the Gantt chart (the first to start).

    Returns
    -------
    matplotlib.figure.Figure
        Four axes: Gantt, utilisation, queue length, wait CDF.

    Notes
    -----
    Complexity: $O(n \\log n)$ for $n$ jobs, plus drawing.
    """
    plt = pyplot()
    figure, grid = plt.subplots(2, 2, figsize=(13, 8))
    gantt, utilisation, queue, waits = grid.flat
    _gantt(gantt, schedule, capacity, gantt_limit)
    _load((utilisation, queue), schedule, capacity, "this run")
    _cdf(waits, _waits(schedule), "this run")
    _label_load_and_waits((utilisation, queue, waits))
    figure.suptitle(title or schedule.source)
    figure.tight_layout()
    return figure


def plot_runs(runs: Mapping[str, Schedule], *, capacity: int, title: str) -> Any:
    """Several runs of one workload (one line each): utilisation, queue length, wait CDF.

    Returns
    -------
    matplotlib.figure.Figure
        Three axes, each with one line per run, labelled by the mapping's keys.

    Examples
    --------
    >>> from schedlib.results.schedules import ScheduledJob as J
    >>> a = Schedule((J(1, 0, 2, 10, 0, 10),))
    >>> b = Schedule((J(1, 0, 2, 10, 5, 15),))
    >>> figure = plot_runs({"a": a, "b": b}, capacity=2, title="two runs")
    >>> [t.get_text() for t in figure.axes[2].get_legend().get_texts()]
    ['a (1 jobs)', 'b (1 jobs)']
    >>> pyplot().close(figure)
    """
    plt = pyplot()
    figure, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    for name, schedule in runs.items():
        _load(axes[:2], schedule, capacity, name)
        _cdf(axes[2], _waits(schedule), name)
    _label_load_and_waits(axes)
    figure.suptitle(title)
    figure.tight_layout()
    return figure


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def swept_parameters(configurations: Sequence[Mapping[str, Any]]) -> list[str]:
    """The parameters that take more than one value across `configurations` (not `seed`).

    Examples
    --------
    >>> swept_parameters([{"a": 1, "b": 2, "seed": 0}, {"a": 1, "b": 3, "seed": 1}])
    ['b']
    """
    names: list[str] = []
    for config in configurations:
        names += [k for k in config if k not in names]
    return [
        name
        for name in names
        if name != "seed" and len({repr(c.get(name)) for c in configurations}) > 1
    ]


def plot_sweep(
    rows: Sequence[Mapping[str, Any]],
    parameters: Sequence[str],
    *,
    x: str | None = None,
    metrics: Sequence[str] = (),
    units: Mapping[str, str] | None = None,
    title: str = "sweep",
) -> Any:
    """A sweep's metrics against one parameter, with error bars over the seeds.

    Parameters
    ----------
    rows
        The sweep's rows (configuration fields and metrics together, as
        [`SweepFile.rows`][schedlib.execution.sweep.SweepFile.rows] gives them).
    parameters
        The configuration's field names (the rest of a row are results).
    x
        The parameter on the horizontal axis; default: the first swept
        parameter whose values are all numbers, else the first swept one.
    metrics
        Results to plot, one axes each; default: `mean_wait` if the rows
        have it, else the first numeric result.
    units
        Unit of each metric, for the axis labels (e.g. `{"mean_wait": "s"}`).
    title
        The figure's title.

    Returns
    -------
    matplotlib.figure.Figure
        One axes per metric: the mean over the seeds at each value of `x`,
        one line per combination of the other swept parameters, error bars
        of one standard deviation (none with a single seed).

    Raises
    ------
    InvalidValueError
        If nothing is swept, `x` or a metric is unknown, or a metric is not numeric.

    Examples
    --------
    >>> rows = [{"n": n, "seed": s, "wait": n * 10 + s} for n in (1, 2) for s in (0, 2)]
    >>> figure = plot_sweep(rows, ["n", "seed"], metrics=["wait"], units={"wait": "s"})
    >>> ax = figure.axes[0]
    >>> ax.get_xlabel(), ax.get_ylabel(), list(ax.get_lines()[0].get_ydata())
    ('n', 'wait (s)', [11.0, 21.0])
    >>> pyplot().close(figure)
    """
    if not rows:
        raise InvalidValueError("sweep", "no rows", "nothing to plot")
    configs = [{k: row.get(k) for k in parameters} for row in rows]
    swept = swept_parameters(configs)
    if not swept:
        raise InvalidValueError("sweep", "one configuration", "no parameter takes two values")
    if x is None:
        numeric = [p for p in swept if all(_is_number(c[p]) for c in configs)]
        x = (numeric or swept)[0]
    elif x not in parameters:
        raise InvalidValueError("x", x, f"not a parameter of the sweep ({', '.join(swept)})")
    results = [k for k in rows[0] if k not in parameters and _is_number(rows[0][k])]
    if not metrics:
        metrics = ["mean_wait"] if "mean_wait" in results else results[:1]
    for metric in metrics:
        if metric not in results:
            raise InvalidValueError(
                "metric",
                metric,
                f"not a numeric result of the sweep ({', '.join(results[:12])} ...)",
            )
    others = [p for p in swept if p != x]
    xs = sorted(
        {row[x] for row in rows}, key=lambda v: (not _is_number(v), v if _is_number(v) else str(v))
    )
    position = {repr(v): i for i, v in enumerate(xs)}
    plt = pyplot()
    figure, axes = plt.subplots(len(metrics), 1, figsize=(8, 4 * len(metrics)), squeeze=False)
    for ax, metric in zip(axes[:, 0], metrics, strict=True):
        groups: dict[tuple[Any, ...], dict[int, list[float]]] = {}
        for row in rows:
            key = tuple(row.get(p) for p in others)
            value = row[metric]
            if _is_number(value) and not math.isnan(value):
                groups.setdefault(key, {}).setdefault(position[repr(row[x])], []).append(value)
        for key, points in groups.items():
            at = sorted(points)
            means = [statistics.fmean(points[i]) for i in at]
            errors = [statistics.stdev(points[i]) if len(points[i]) > 1 else 0.0 for i in at]
            label = ", ".join(f"{p}={v}" for p, v in zip(others, key, strict=True)) or metric
            xvalues = [xs[i] for i in at] if all(_is_number(v) for v in xs) else at
            ax.errorbar(xvalues, means, yerr=errors, marker="o", capsize=3, label=label)
        unit = (units or {}).get(metric)
        ax.set_xlabel(x)
        ax.set_ylabel(f"{metric} ({unit})" if unit else metric)
        ax.set_title(f"{metric} against {x} (mean ± one standard deviation over the seeds)")
        if not all(_is_number(v) for v in xs):
            ax.set_xticks(range(len(xs)), [str(v) for v in xs])
        ax.legend(loc="best", fontsize="small")
    figure.suptitle(title)
    figure.tight_layout()
    return figure
