"""What a finished run becomes: metrics, per-job export, tables and plots.

Every function here reads a [`RunRecord`][schedlib.model.RunRecord] (or rows
derived from one), never engine internals:
[`metrics`][schedlib.results.metrics] (the formulas),
[`export`][schedlib.results.export] (Batsim `out_jobs.csv` layout and JSON),
[`tables`][schedlib.results.tables] (text, JSON and CSV rendering) and
[`plotting`][schedlib.results.plotting] (matplotlib access for `--plot`).
"""

from schedlib.results.export import (
    BATSIM_COLUMNS,
    EXTRA_COLUMNS,
    interval_set,
    job_rows,
    write_csv,
    write_json,
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
    turnaround,
    utilisation,
    wait,
)
from schedlib.results.plotting import (
    pyplot,
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
    "EXTRA_COLUMNS",
    "FORMATS",
    "Summary",
    "bounded_slowdown",
    "format_cell",
    "interval_set",
    "job_rows",
    "jsonable",
    "makespan",
    "percentile",
    "pyplot",
    "ran",
    "render",
    "render_by",
    "slowdown",
    "summarize",
    "turnaround",
    "utilisation",
    "wait",
    "write_csv",
    "write_json",
    "write_record",
]
