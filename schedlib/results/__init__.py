"""What a finished run becomes: metrics, per-job export, tables and plots.

Every function here reads a [`RunRecord`][schedlib.model.RunRecord] (or rows
derived from one), never engine internals:
[`metrics`][schedlib.results.metrics] (the formulas),
[`quantiles`][schedlib.results.quantiles] (exact percentiles of streamed values),
[`export`][schedlib.results.export] (Batsim `out_jobs.csv` layout and JSON),
[`schedules`][schedlib.results.schedules] (any scheduler's per-job output read back),
[`digest`][schedlib.results.digest] (a run's schedule in a few characters, to tell
identical schedules apart), [`tables`][schedlib.results.tables] (text, JSON and CSV
rendering) and
[`plotting`][schedlib.results.plotting] (Gantt charts, load over time, wait CDFs, sweeps).

The names listed in `__all__` are importable from here too; each is loaded
from its submodule on first use (importing the metrics alone does not import
the plotting or schedule-reading code).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from schedlib.lazy import lazy_names

if TYPE_CHECKING:
    from schedlib.results.digest import schedule_digest
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
    from schedlib.results.quantiles import SpilledValues
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

_HOME = {
    "BATSIM_COLUMNS": "export",
    "DEFAULT_WORKLOAD_NAME": "export",
    "EXTRA_COLUMNS": "export",
    "FORMATS": "tables",
    "Schedule": "schedules",
    "ScheduledJob": "schedules",
    "SpilledValues": "quantiles",
    "Summary": "metrics",
    "bounded_slowdown": "metrics",
    "format_cell": "tables",
    "interval_set": "export",
    "job_rows": "export",
    "jsonable": "tables",
    "makespan": "metrics",
    "percentile": "metrics",
    "plot_runs": "plotting",
    "plot_schedule": "plotting",
    "plot_sweep": "plotting",
    "pyplot": "plotting",
    "ran": "metrics",
    "schedule_digest": "digest",
    "read_schedule": "schedules",
    "render": "tables",
    "render_by": "tables",
    "slowdown": "metrics",
    "summarize": "metrics",
    "summarize_outcomes": "metrics",
    "turnaround": "metrics",
    "utilisation": "metrics",
    "wait": "metrics",
    "write_csv": "export",
    "write_json": "export",
    "write_outcomes_csv": "export",
    "write_record": "export",
}
"""The submodule of each name of `__all__`."""


__getattr__, __dir__ = lazy_names(__name__, _HOME)

__all__ = [
    "BATSIM_COLUMNS",
    "DEFAULT_WORKLOAD_NAME",
    "EXTRA_COLUMNS",
    "FORMATS",
    "Schedule",
    "ScheduledJob",
    "SpilledValues",
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
    "schedule_digest",
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
