"""Plots of runs and sweeps (the `plot` extra): Gantt charts, load over time, wait CDFs.

- [`plot_schedule`][schedlib.results.plotting.plot_schedule]: one run — a Gantt
  chart per processor over a window where it can be read, utilisation and queue
  length over the whole run (rolling means when the run is long, the window
  stated), and the CDF of the wait times.
- [`plot_runs`][schedlib.results.plotting.plot_runs]: several runs of one
  workload (e.g. `schedlib compare`'s policies) on shared axes.
- [`plot_sweep`][schedlib.results.plotting.plot_sweep]: a sweep's runs — a
  metric against a swept parameter, one line per combination of the other
  swept parameters and of the rows' labels, error bars of one standard
  deviation over the seeds only.

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
    "GANTT_WINDOW_JOBS",
    "STEPS_SHOWN",
    "TimeAxis",
    "check_figure_path",
    "default_window",
    "describe_run",
    "load_steps",
    "nice_duration",
    "plot_runs",
    "plot_schedule",
    "plot_sweep",
    "pyplot",
    "rolling_mean",
    "run_span",
    "save_figure",
    "sweep_series",
    "swept_parameters",
]

FIGURE_SUFFIXES = (".png", ".pdf", ".svg")
"""The figure formats `--plot` and `schedlib plot` write, chosen by suffix."""

GANTT_LIMIT = 2000
"""At most this many jobs (the first to start) in a Gantt chart; the title says so."""

GANTT_WINDOW_JOBS = 500
"""Without a window, the Gantt chart shows the run until 500 jobs have started: a window
where each job's bar can be seen (on a year-long trace, a few days)."""

STEPS_SHOWN = 400
"""A load panel draws its exact step function when it changes at most this many times
in its range; beyond, a rolling mean (its window in the panel's title)."""


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
            "install the 'plot' extra: pip install '.[plot]' in schedlib's clone"
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


_NICE = (1, 2, 5, 10, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200,
         86400, 172800, 259200, 604800, 1209600, 2592000)  # fmt: skip


def nice_duration(seconds: float) -> tuple[float, str]:
    """The smallest round duration of at least `seconds` (at most 30 days), and its name.

    Examples
    --------
    >>> nice_duration(7000), nice_duration(0.2), nice_duration(400000)
    ((7200, '2 h'), (1, '1 s'), (604800, '7 d'))
    """
    chosen = next((d for d in _NICE if d >= seconds), _NICE[-1])
    for size, unit in ((86400, "d"), (3600, "h"), (60, "min"), (1, "s")):
        if chosen % size == 0:
            return chosen, f"{chosen // size} {unit}"
    raise AssertionError(chosen)  # pragma: no cover - every nice duration is whole seconds


def rolling_mean(
    times: Sequence[float],
    values: Sequence[float],
    start: float,
    end: float,
    window: float,
    *,
    points: int = 800,
) -> tuple[list[float], list[float]]:
    """A step function's mean over a sliding window, at `points` times from `start` to `end`.

    The step function is `values[i]` from `times[i]` until `times[i + 1]` (0 before the
    first time, the last value after the last); each point is its time-weighted mean over
    the `window` centred on that time.

    Examples
    --------
    >>> xs, ys = rolling_mean([0, 10], [4, 0], 0, 20, 10, points=5)
    >>> xs, ys
    ([0.0, 5.0, 10.0, 15.0, 20.0], [2.0, 4.0, 2.0, 0.0, 0.0])
    """
    import bisect

    cumulative = [0.0]
    for i in range(1, len(times)):
        cumulative.append(cumulative[-1] + values[i - 1] * (times[i] - times[i - 1]))

    def integral(t: float) -> float:
        i = bisect.bisect_right(times, t) - 1
        return 0.0 if i < 0 else cumulative[i] + values[i] * (t - times[i])

    step = (end - start) / max(points - 1, 1)
    xs = [start + k * step for k in range(points)]
    half = window / 2
    return xs, [(integral(x + half) - integral(x - half)) / window for x in xs]


def run_span(schedule: Schedule) -> tuple[float, float]:
    """From the first submission to the last end (or submission) of a run, in its time."""
    submits = [j.submit for j in schedule.jobs]
    ends = [j.end for j in schedule.jobs if j.end is not None]
    origin = min(submits, default=0)
    return origin, max([origin, *submits, *ends])


def default_window(schedule: Schedule, jobs: int = GANTT_WINDOW_JOBS) -> tuple[float, float]:
    """The window the Gantt chart shows by default: from the first submission until the
    `jobs + 1`-th job starts (so that `jobs` jobs start in it), or the whole run if no
    more than `jobs` start.

    Examples
    --------
    >>> from schedlib.results.schedules import ScheduledJob as J
    >>> run = Schedule(tuple(J(i, 0, 1, 10, 10 * i, 10 * i + 10) for i in range(1, 9)))
    >>> default_window(run, jobs=3), default_window(run)
    ((0, 40), (0, 90))
    """
    origin, last = run_span(schedule)
    starts = sorted(j.start for j in schedule.jobs if j.start is not None and j.end is not None)
    if len(starts) <= jobs:
        return origin, last
    return origin, max(starts[jobs], origin + 1)


_UNITS = ((600, 1, "s"), (10 * 3600, 60, "min"), (10 * 86400, 3600, "h"), (math.inf, 86400, "d"))
"""(span below which, seconds per unit, unit): how time axes are scaled."""


class TimeAxis:
    """How a figure shows time: from an origin (the first submission), in one unit.

    Attributes
    ----------
    origin
        The time (s, as in the file) shown as 0.
    scale
        Seconds per unit.
    unit
        `s`, `min`, `h` or `d`, chosen by the span: seconds under 10 minutes,
        minutes under 10 hours, hours under 10 days, else days.

    Examples
    --------
    >>> axis = TimeAxis.of([100, 100 + 7200, 100 + 36000])
    >>> axis.unit, axis.at(100 + 7200), axis.label()
    ('h', 2.0, 'time since the first submission, t=100 s (h)')
    """

    def __init__(self, origin: float, scale: float, unit: str) -> None:
        self.origin, self.scale, self.unit = origin, scale, unit

    @classmethod
    def of(cls, times: Sequence[float], origin: float | None = None) -> TimeAxis:
        """The axis for these times (`origin`: their first, unless given)."""
        start = min(times, default=0) if origin is None else origin
        span = max(times, default=0) - start
        scale, unit = next((f, u) for below, f, u in _UNITS if span < below)
        return cls(start, scale, unit)

    def at(self, time: float) -> float:
        """A time of the file, on this axis."""
        return (time - self.origin) / self.scale

    def label(self, what: str = "time since the first submission") -> str:
        """The axis label, naming the origin and the unit."""
        where = f", t={self.origin:g} s" if self.origin else ""
        return f"{what}{where} ({self.unit})"


def _waits(schedule: Schedule) -> list[float]:
    return sorted(j.start - j.submit for j in schedule.jobs if j.start is not None)


def _gantt(
    ax: Any,
    schedule: Schedule,
    capacity: int,
    limit: int,
    axis: TimeAxis,
    window: tuple[float, float],
    whole: bool,
) -> None:
    low, high = window
    started = sorted(
        (
            j
            for j in schedule.jobs
            if j.start is not None and j.end is not None and j.allocation
            and j.start < high and (j.end > low or j.start >= low)
        ),
        key=lambda j: (j.start, j.line),
    )  # fmt: skip
    shown = started[:limit]
    lefts, widths, bottoms, heights, colours = [], [], [], [], []
    cmap = pyplot().get_cmap("tab20")
    for k, job in enumerate(shown):
        for lo, hi in job.allocation.ranges if job.allocation else ():
            lefts.append(axis.at(job.start))  # type: ignore[arg-type]
            widths.append((job.end - job.start) / axis.scale)  # type: ignore[operator]
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
            "the file gives no processor allocations"
            if not any(j.allocation for j in schedule.jobs)
            else "no job runs in this window",
            ha="center",
            va="center",
            transform=ax.transAxes,
        )
    where = "" if whole else f" from {axis.at(low):.3g} to {axis.at(high):.3g} {axis.unit}"
    more = ""
    if len(started) > limit:
        until = axis.at(shown[-1].start)  # type: ignore[arg-type]
        more = f", the first {limit} to start: until {until:.3g} {axis.unit}"
    ax.set_title(f"Gantt chart ({len(started)} jobs{where}{more})")
    ax.set_xlabel(axis.label())
    ax.set_ylabel("processor")
    ax.set_xlim(axis.at(low), axis.at(high))
    ax.set_ylim(0, capacity)


def _cdf(ax: Any, waits: Sequence[float], label: str, scale: float) -> None:
    if waits:
        ys = [(i + 1) / len(waits) for i in range(len(waits))]
        xs = [w / scale for w in waits]
        ax.step(xs, ys, where="post", label=f"{label} ({len(waits)} jobs)")


def _smoothing(schedules: Sequence[Schedule], window: tuple[float, float]) -> float | None:
    """The rolling mean's window for load panels over `window`, or `None` to draw the exact
    steps (at most [`STEPS_SHOWN`][schedlib.results.plotting.STEPS_SHOWN] changes in it)."""
    low, high = window
    changes = max(
        (sum(1 for t in load_steps(s)[0] if low <= t <= high) for s in schedules), default=0
    )
    if changes <= STEPS_SHOWN or high <= low:
        return None
    return nice_duration((high - low) / 100)[0]


def _load(
    axes: Sequence[Any],
    schedule: Schedule,
    capacity: int,
    label: str,
    axis: TimeAxis,
    window: tuple[float, float],
    smoothing: float | None,
) -> None:
    times, busy, queued = load_steps(schedule)
    if smoothing is None:
        at = [axis.at(t) for t in times]
        axes[0].step(at, [b / capacity for b in busy], where="post", label=label)
        axes[1].step(at, queued, where="post", label=label)
        return
    for ax, values, scale in ((axes[0], busy, capacity), (axes[1], queued, 1)):
        xs, ys = rolling_mean(times, values, window[0], window[1], smoothing)
        ax.plot([axis.at(x) for x in xs], [y / scale for y in ys], label=label)


def _label_load_and_waits(
    axes: Sequence[Any],
    axis: TimeAxis,
    waits_axis: TimeAxis,
    log_wait: bool,
    window: tuple[float, float] | None = None,
    smoothing: float | None = None,
) -> None:
    utilisation, queue, waits = axes
    mean = f" (rolling mean over {nice_duration(smoothing)[1]})" if smoothing else ""
    utilisation.set_title("Utilisation" + mean)
    utilisation.set_xlabel(axis.label())
    utilisation.set_ylabel("processors in use (fraction)")
    utilisation.set_ylim(0, 1.05)
    queue.set_title("Queue length" + mean)
    queue.set_xlabel(axis.label())
    queue.set_ylabel("jobs waiting")
    if window is not None:
        for ax in (utilisation, queue):
            ax.set_xlim(axis.at(window[0]), axis.at(window[1]))
    waits.set_title("Wait times" + (" (log scale)" if log_wait else ""))
    waits.set_xlabel(f"wait ({waits_axis.unit})")
    waits.set_ylabel("fraction of the jobs that started")
    waits.set_ylim(0, 1.05)
    if log_wait:  # waits of 0 stay on the axis: linear below one unit, logarithmic above
        waits.set_xscale("symlog", linthresh=1)
        waits.set_xlim(left=0)
    for ax in axes:
        if ax.get_legend_handles_labels()[0]:
            ax.legend(loc="best", fontsize="small")


def describe_run(schedule: Schedule, capacity: int) -> str:
    """A figure's title for a run: its policy and workload when the file says them.

    Examples
    --------
    >>> describe_run(Schedule((), 128, "jobs.csv", "easy", "SDSC-SP2"), 128)
    'easy on SDSC-SP2, 128 processors'
    >>> describe_run(Schedule((), None, "jobs.csv"), 64)
    'jobs.csv, 64 processors'
    """
    workload = schedule.workload or schedule.source
    run = f"{schedule.algorithm} on {workload}" if schedule.algorithm else workload
    return f"{run}, {capacity} processors"


def plot_schedule(
    schedule: Schedule,
    *,
    capacity: int,
    title: str | None = None,
    gantt_limit: int = GANTT_LIMIT,
    log_wait: bool = False,
    window: tuple[float, float] | None = None,
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
        The figure's title (default: [`describe_run`][schedlib.results.plotting.describe_run]:
        policy, workload and machine size, as far as the file says).
    gantt_limit
        Most jobs drawn in the Gantt chart (the first to start; its title says
        until when).
    log_wait
        Draw the wait-time axis on a logarithmic scale (linear below one unit,
        so that waits of 0 stay on it).
    window
        `(start, end)`, in the file's time: the stretch of the run every time
        panel shows. Default: the Gantt chart shows
        [`default_window`][schedlib.results.plotting.default_window] (until the
        start of the 500th job), and utilisation and queue length the whole run,
        with that window shaded.

    Returns
    -------
    matplotlib.figure.Figure
        Four axes: Gantt, utilisation, queue length, wait CDF (over every job
        that started). Times are from the first submission, in seconds,
        minutes, hours or days ([`TimeAxis`][schedlib.results.plotting.TimeAxis]).
        A load panel whose range holds more than
        [`STEPS_SHOWN`][schedlib.results.plotting.STEPS_SHOWN] changes draws a
        rolling mean, over a round duration near a hundredth of the range,
        named in its title.

    Notes
    -----
    Complexity: $O(n \\log n)$ for $n$ jobs, plus drawing.
    """
    plt = pyplot()
    figure, grid = plt.subplots(2, 2, figsize=(13, 8))
    gantt, utilisation, queue, waits = grid.flat
    utilisation.sharex(queue)
    origin, last = run_span(schedule)
    whole = (origin, last)
    gantt_window = window or default_window(schedule)
    load_window = window or whole
    gantt_axis = TimeAxis.of([origin, gantt_window[1]], origin)
    load_axis = TimeAxis.of([origin, load_window[1]], origin)
    waited = _waits(schedule)
    waits_axis = TimeAxis.of([0, *waited], 0)
    _gantt(gantt, schedule, capacity, gantt_limit, gantt_axis, gantt_window, gantt_window == whole)
    smoothing = _smoothing([schedule], load_window)
    _load((utilisation, queue), schedule, capacity, "this run", load_axis, load_window, smoothing)
    if gantt_window != load_window:
        for ax in (utilisation, queue):
            ax.axvspan(
                load_axis.at(gantt_window[0]),
                load_axis.at(gantt_window[1]),
                color="0.85",
                zorder=0,
                label="the Gantt chart's window",
            )
    _cdf(waits, waited, "this run", waits_axis.scale)
    _label_load_and_waits(
        (utilisation, queue, waits), load_axis, waits_axis, log_wait, load_window, smoothing
    )
    figure.suptitle(title or describe_run(schedule, capacity))
    figure.tight_layout()
    return figure


def plot_runs(
    runs: Mapping[str, Schedule],
    *,
    capacity: int,
    title: str,
    log_wait: bool = False,
    window: tuple[float, float] | None = None,
) -> Any:
    """Several runs of one workload (one line each): utilisation, queue length, wait CDF.

    Parameters
    ----------
    runs
        Name -> run.
    capacity, title, log_wait
        As for [`plot_schedule`][schedlib.results.plotting.plot_schedule].
    window
        `(start, end)` in the runs' time (default: from the first submission to
        the last end); a range of more than
        [`STEPS_SHOWN`][schedlib.results.plotting.STEPS_SHOWN] changes draws
        rolling means, their window in the titles.

    Returns
    -------
    matplotlib.figure.Figure
        Three axes, each with one line per run, labelled by the mapping's keys;
        the first two on one time axis from the first submission.

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
    axes[1].sharex(axes[0])
    spans = [run_span(s) for s in runs.values()]
    origin = min((a for a, _ in spans), default=0)
    shown = window or (origin, max((b for _, b in spans), default=origin))
    axis = TimeAxis.of([origin, shown[1]], origin)
    waits_axis = TimeAxis.of([0, *(w for s in runs.values() for w in _waits(s))], 0)
    smoothing = _smoothing(list(runs.values()), shown)
    for name, schedule in runs.items():
        _load(axes[:2], schedule, capacity, name, axis, shown, smoothing)
        _cdf(axes[2], _waits(schedule), name, waits_axis.scale)
    _label_load_and_waits(axes, axis, waits_axis, log_wait, shown, smoothing)
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


def _sort_key(value: Any) -> tuple[bool, Any]:
    return (not _is_number(value), value if _is_number(value) else str(value))


def row_labels(
    results: Sequence[tuple[Mapping[str, Any], Sequence[Mapping[str, Any]]]],
) -> list[str]:
    """The result fields that say which row of a run a row is, not what it measured.

    Every field that is not a number (a reproduction's `scheduler`, `policy`...), then, while
    the rows of some run are still not told apart, each numeric field that takes the same
    values in every run and tells more of them apart (a `scenario` index).

    Examples
    --------
    >>> rows = [{"scenario": c, "scheduler": k, "minutes": 60 + c} for c in (0, 1) for k in "ab"]
    >>> row_labels([({"seed": 0}, rows), ({"seed": 1}, rows)])
    ['scheduler', 'scenario']
    """
    runs = [rows for _, rows in results]
    fields = list(dict.fromkeys(k for rows in runs for row in rows for k in row))
    labels = [
        k for k in fields if any(not _is_number(r.get(k)) for rows in runs for r in rows if k in r)
    ]

    def clashes(keys: Sequence[str]) -> int:
        return sum(len(rows) - len({tuple(r.get(k) for k in keys) for r in rows}) for rows in runs)

    for key in fields:
        if key in labels or not clashes(labels):
            continue
        sets = {tuple(sorted((r.get(key) for r in rows), key=_sort_key)) for rows in runs}
        if len(sets) == 1 and clashes([*labels, key]) < clashes(labels):
            labels.append(key)
    return labels


def sweep_series(
    results: Sequence[tuple[Mapping[str, Any], Sequence[Mapping[str, Any]]]], x: str
) -> dict[tuple[tuple[str, Any], ...], dict[Any, list[Mapping[str, Any]]]]:
    """A sweep's result rows by series, then by the value of `x`: what one line plots.

    A series is one combination of the swept grid keys other than `x` and the seed (read
    from each run's configuration, never from its results) and of the rows' labels
    ([`row_labels`][schedlib.results.plotting.row_labels]); rows of one run with the same
    labels are told apart by position. So the rows of one series at one value of `x` differ
    by seed only.

    Examples
    --------
    >>> results = [({"n": n, "seed": s}, [{"policy": p, "wait": n + s} for p in ("a", "b")])
    ...            for n in (1, 2) for s in (0, 1)]
    >>> series = sweep_series(results, "n")
    >>> list(series)
    [(('policy', 'a'),), (('policy', 'b'),)]
    >>> [row["wait"] for row in series[(("policy", "a"),)][2]]
    [2, 3]
    """
    configurations = [config for config, _ in results]
    others = [p for p in swept_parameters(configurations) if p != x]
    labels = row_labels(results)
    grouped: dict[tuple[tuple[str, Any], ...], dict[Any, list[Mapping[str, Any]]]] = {}
    for config, rows in results:
        seen: dict[tuple[Any, ...], int] = {}
        for row in rows:
            own = tuple((k, row.get(k)) for k in labels if k in row)
            repeat = seen[own] = seen.get(own, -1) + 1
            key = tuple((p, config.get(p)) for p in others) + own
            if repeat:
                key += (("row", repeat),)
            grouped.setdefault(key, {}).setdefault(config.get(x), []).append(row)
    return grouped


def plot_sweep(
    results: Sequence[tuple[Mapping[str, Any], Sequence[Mapping[str, Any]]]],
    *,
    x: str | None = None,
    metrics: Sequence[str] = (),
    units: Mapping[str, str] | None = None,
    title: str = "sweep",
) -> Any:
    """A sweep's metrics against one swept parameter: one line per series, spread over seeds.

    Parameters
    ----------
    results
        `(configuration, rows)` for each run of the sweep, as
        [`read_sweep`][schedlib.execution.sweep.read_sweep] gives them
        (`read_sweep(path).results.values()`). Configurations and results are
        kept apart: a result field never stands for a parameter.
    x
        The parameter on the horizontal axis, one of the swept grid keys (not
        the seed); default: the first swept one whose values are all numbers,
        else the first swept one.
    metrics
        Result fields to plot, one axes each; default: `mean_wait` if the rows
        have it, else their first numeric field that is not a label, is not
        named like a parameter, and varies.
    units
        Unit of each metric, for the axis labels (e.g. `{"mean_wait": "s"}`).
    title
        The figure's title.

    Returns
    -------
    matplotlib.figure.Figure
        One axes per metric. Each line is one series
        ([`sweep_series`][schedlib.results.plotting.sweep_series]: a
        combination of the other swept parameters and of the rows' labels);
        each point is the mean over the seeds, with an error bar of one
        standard deviation over the seeds (none with one seed; the title says
        when the seeds gave identical results). When every series is named by
        the same keys, the legend's title names them once and each entry gives
        their values.

    Raises
    ------
    InvalidValueError
        If only the seed varies (nothing to put on the horizontal axis), `x`
        is not a swept parameter, a metric is not a numeric result, or the
        rows have no numeric result.

    Examples
    --------
    >>> results = [({"n": n, "seed": s}, [{"wait": n * 10 + s}]) for n in (1, 2) for s in (0, 2)]
    >>> figure = plot_sweep(results, metrics=["wait"], units={"wait": "s"})
    >>> ax = figure.axes[0]
    >>> ax.get_xlabel(), ax.get_ylabel(), list(ax.get_lines()[0].get_ydata())
    ('n', 'wait (s)', [11.0, 21.0])
    >>> pyplot().close(figure)
    """
    results = list(results)
    if not results:
        raise InvalidValueError("sweep", "no runs", "nothing to plot")
    configs = [config for config, _ in results]
    swept = swept_parameters(configs)
    if not swept:
        raise InvalidValueError(
            "swept parameters",
            [],
            "only the seed varies across the runs: nothing to put on the horizontal axis; "
            "sweep a parameter, or plot a run",
        )
    if x is None:
        numeric = [p for p in swept if all(_is_number(c.get(p)) for c in configs)]
        x = (numeric or swept)[0]
    elif x not in swept:
        raise InvalidValueError("x", x, f"not a swept parameter of the sweep ({', '.join(swept)})")
    rows = [row for _, runs in results for row in runs]
    labels = row_labels(results)
    numbers = [
        k
        for k in dict.fromkeys(k for row in rows for k in row)
        if k not in labels and _is_number_field(rows, k)
    ]
    if not numbers:
        raise InvalidValueError("sweep", "no numeric result", "nothing to plot")
    if not metrics:  # a measure that varies, not an echo of a parameter
        keys = {k for c in configs for k in c}
        varying = [k for k in numbers if k not in keys and len({repr(r.get(k)) for r in rows}) > 1]
        if not varying:
            raise InvalidValueError(
                "metric", None, "no numeric result varies across the sweep: name the one to plot"
            )
        metrics = ["mean_wait"] if "mean_wait" in varying else varying[:1]
    for metric in metrics:
        if metric not in numbers:
            raise InvalidValueError(
                "metric", metric, f"not a numeric result of the sweep; it has {', '.join(numbers)}"
            )
    xs = sorted({c.get(x) for c in configs}, key=_sort_key)
    numeric_x = all(_is_number(v) for v in xs)
    position = {repr(v): i for i, v in enumerate(xs)}
    seeds = len({c.get("seed") for c in configs})
    series = sweep_series(results, x)
    plt = pyplot()
    wide = len(series) > 6
    figure, axes = plt.subplots(
        len(metrics), 1, figsize=(9 if wide else 8, 4.2 * len(metrics)), squeeze=False
    )
    spread = f"mean ± one standard deviation over {seeds} seeds" if seeds > 1 else "one seed"
    if seeds > 1 and _identical_over_seeds(series, metrics):
        spread = f"the {seeds} seeds give identical results"
    styles = ("-", "--", ":", "-.")
    names = {tuple(k for k, _ in key) for key in series}
    shared = next(iter(names)) if len(names) == 1 else ()  # the legend's title, said once
    for ax, metric in zip(axes[:, 0], metrics, strict=True):
        for n, (key, by_x) in enumerate(series.items()):
            at = sorted(by_x, key=_sort_key)
            points = [
                [
                    r[metric]
                    for r in by_x[v]
                    if _is_number(r.get(metric)) and not math.isnan(r[metric])
                ]
                for v in at
            ]
            kept = [(v, p) for v, p in zip(at, points, strict=True) if p]
            if not kept:
                continue
            means = [statistics.fmean(p) for _, p in kept]
            errors = [statistics.stdev(p) if len(p) > 1 else 0.0 for _, p in kept]
            where = [v if numeric_x else position[repr(v)] for v, _ in kept]
            if shared:
                label = ", ".join(str(v) for _, v in key)
            else:
                label = ", ".join(f"{k}={v}" for k, v in key) or metric
            ax.errorbar(
                where,
                means,
                yerr=errors,
                marker="os^D"[n // 10 % 4],
                linestyle=styles[n // 10 % 4],  # ten colours, then another style
                capsize=3,
                label=label,
            )
        unit = (units or {}).get(metric)
        ax.set_xlabel(x)
        ax.set_ylabel(f"{metric} ({unit})" if unit else metric)
        ax.set_title(f"{metric} against {x} ({spread})")
        if not numeric_x:
            ax.set_xticks(range(len(xs)), [str(v) for v in xs])
        elif len(xs) <= 12:
            ax.set_xticks(xs, [f"{v:g}" for v in xs])  # the values swept, no fractional ticks
        heading = ", ".join(shared) or None
        if wide:
            ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small", title=heading)
        else:
            ax.legend(loc="best", fontsize="small", title=heading)
    figure.suptitle(title)
    figure.tight_layout()
    return figure


def _identical_over_seeds(
    series: Mapping[Any, Mapping[Any, Sequence[Mapping[str, Any]]]], metrics: Sequence[str]
) -> bool:
    """Whether every point of every series gives the same value of each metric for every
    seed (a deterministic experiment swept over seeds)."""
    for by_x in series.values():
        for rows in by_x.values():
            for metric in metrics:
                values = {repr(r.get(metric)) for r in rows}
                if len(values) > 1:
                    return False
    return True


def _is_number_field(rows: Sequence[Mapping[str, Any]], key: str) -> bool:
    """Whether `key` is a numeric result: a number in every row that has it (NaN allowed)."""
    values = [row[key] for row in rows if key in row and row[key] is not None]
    return bool(values) and all(_is_number(v) for v in values)
