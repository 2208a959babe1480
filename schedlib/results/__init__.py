"""What a finished run becomes: metrics, per-job export, tables and plots.

Every function here reads a [`RunRecord`][schedlib.model.RunRecord] (or rows
derived from one), never engine internals:
[`metrics`][schedlib.results.metrics] (the formulas),
[`export`][schedlib.results.export] (Batsim `out_jobs.csv` layout and JSON),
[`schedules`][schedlib.results.schedules] (any scheduler's per-job output read back),
[`tables`][schedlib.results.tables] (text, JSON and CSV rendering) and
[`plotting`][schedlib.results.plotting] (Gantt charts, load over time, wait CDFs, sweeps).
"""

from schedlib.results.export import (
    BATSIM_COLUMNS,
    DEFAULT_WORKLOAD_NAME,
    EXTRA_COLUMNS,
    interval_set,
    job_rows,
    write_csv,
    write_json,
    write_outcomes_csv,
    write_record,
)
from schedlib.results.metrics import (
    Summary,
    bounded_slowdown,
    makespan,
    percentile,
    ran,
    slowdown,
    summarize,
    summarize_outcomes,
    turnaround,
    utilisation,
    wait,
)
from schedlib.results.plotting import (
    plot_runs,
    plot_schedule,
    plot_sweep,
    pyplot,
)
from schedlib.results.schedules import (
    Schedule,
    ScheduledJob,
    read_schedule,
)
from schedlib.results.tables import (
    FORMATS,
    format_cell,
    jsonable,
    render,
    render_by,
)

__all__ = [
    "BATSIM_COLUMNS",
    "DEFAULT_WORKLOAD_NAME",
    "EXTRA_COLUMNS",
    "FORMATS",
    "Schedule",
    "ScheduledJob",
    "Summary",
    "bounded_slowdown",
    "format_cell",
    "interval_set",
    "job_rows",
    "jsonable",
    "makespan",
    "percentile",
    "plot_runs",
    "plot_schedule",
    "plot_sweep",
    "pyplot",
    "ran",
    "read_schedule",
    "render",
    "render_by",
    "slowdown",
    "summarize",
    "summarize_outcomes",
    "turnaround",
    "utilisation",
    "wait",
    "write_csv",
    "write_json",
    "write_outcomes_csv",
    "write_record",
]
