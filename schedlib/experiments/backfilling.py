"""Compare single-site backfilling policies on one workload (`schedlib compare`, `schedlib run`).

Examples
--------
>>> from schedlib.workloads import load_workload
>>> rows = compare(load_workload(limit=300))
>>> [(r["policy"], r["processors"], r["jobs"]) for r in rows]
[('fcfs', 128, 300), ('easy', 128, 300), ('conservative', 128, 300)]
>>> rows[0]["mean_wait"] >= rows[1]["mean_wait"]
True
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from schedlib.backfill import POLICIES, schedule
from schedlib.backfill.forms import run_scheduler
from schedlib.experiments.run_options import load_policy
from schedlib.model import RunRecord
from schedlib.results.metrics import Summary, summarize
from schedlib.workloads import Workload

if TYPE_CHECKING:
    from schedlib.execution.progress import ProgressBar

__all__ = [
    "SUMMARY_CONTEXT",
    "compare",
    "count_notes",
    "run_policy",
    "summary",
    "summary_fields",
    "summary_row",
]

SUMMARY_CONTEXT = ("workload", "processors")
"""Columns of a summary row that describe the run rather than measure it."""


def run_policy(
    workload: Workload,
    policy: str,
    *,
    show_progress: bool = False,
    conventions: str = "instant",
    form: str | None = None,
) -> RunRecord:
    """Simulate one backfilling policy, shipped or yours, on a prepared workload.

    Parameters
    ----------
    workload
        A cleaned workload (see [`load_workload`][schedlib.workloads.load_workload]);
        its excluded records are reported in the run with their final state.
    policy
        `"fcfs"`, `"easy"` or `"conservative"`, or a scheduler of yours as
        `MODULE:FUNCTION` or `path/to/file.py:FUNCTION` (see
        [`load_policy`][schedlib.experiments.run_options.load_policy]).
    show_progress
        Draw a progress bar on standard error (only when it is a terminal).
    conventions
        Event-order conventions, `"instant"` (default) or `"pyss"` (see
        [`schedule`][schedlib.backfill.simulation.schedule]).
    form
        The form of your scheduler (`decide`, `plan` or `schedule`; default:
        from its signature); `None` for a shipped policy.

    Returns
    -------
    RunRecord
        One outcome per record of the workload, simulated or excluded; its
        `algorithm` is the policy's name (your function's, for yours).
    """
    scheduler = None if policy in POLICIES else load_policy(policy, form)

    def run(progress: ProgressBar | None) -> RunRecord:
        common: dict[str, Any] = {
            "excluded": workload.excluded,
            "progress": progress,
            "conventions": conventions,
        }
        if scheduler is not None:
            return run_scheduler(scheduler, workload.jobs, workload.cluster, form=form, **common)
        return schedule(workload.jobs, workload.cluster, policy=policy, **common)

    if not (show_progress and sys.stderr.isatty()):
        return run(None)  # no bar: no callback, and the progress machinery is not imported
    from schedlib.execution.progress import ProgressBar

    horizon = workload.jobs[-1].submit if workload.jobs else 0
    label = policy if scheduler is None else getattr(scheduler, "__name__", policy)
    with ProgressBar(horizon, label) as bar:
        return run(bar)


def summary_row(workload: Workload, record: RunRecord) -> dict[str, Any]:
    """One flat row of metrics for a run, naming the workload and machine size.

    The columns are `workload`, `processors`, `policy`, then every field of
    [`Summary`][schedlib.results.metrics.Summary] but its algorithm name.
    """
    return summary_fields(workload, summarize(record))


def count_notes(workload: Workload) -> list[str]:
    """What the job counts of a run's table are, for this workload, in plain words.

    The table's `jobs` counts every record of the trace, simulated or not; the
    records the cleaning excluded appear in the rows `cancelled` and `rejected`;
    jobs the log says were cancelled while running are simulated for their logged
    runtime and so counted in `completed` (or `killed`).

    Examples
    --------
    >>> from schedlib.workloads import load_workload
    >>> for line in count_notes(load_workload()):
    ...     print(line)
    jobs: the 5000 records of the trace: 4641 simulated, 359 not (cancelled: 359 cancelled in the log before they started)
    completed and killed: include 1085 jobs cancelled while running in the log, each simulated for the time it ran there
    """  # noqa: E501
    report = workload.report
    lines = []
    if report.excluded:
        parts = []
        if report.cancelled_in_log:
            parts.append(
                f"cancelled: {report.cancelled_in_log} cancelled in the log before they started"
            )
        if report.rejected:
            parts.append(f"rejected: {report.rejected} refused by the cleaning, as said above")
        lines.append(
            f"jobs: the {report.records} records of the trace: {report.jobs} simulated, "
            f"{report.excluded} not ({'; '.join(parts)})"
        )
    if report.cancelled_while_running:
        lines.append(
            f"completed and killed: include {report.cancelled_while_running} jobs cancelled "
            "while running in the log, each simulated for the time it ran there"
        )
    return lines


def summary_fields(workload: Workload, summary: Summary) -> dict[str, Any]:
    """The row of [`summary_row`][schedlib.experiments.backfilling.summary_row] from a summary.

    For runs streamed without a record (`schedlib run --stream`).

    Parameters
    ----------
    workload
        The workload run (its name and machine size fill the context columns).
    summary
        The run's metrics, e.g. from
        [`summarize_outcomes`][schedlib.results.metrics.summarize_outcomes].

    Returns
    -------
    dict
        `workload`, `processors`, `policy`, then every other field of the summary.

    Examples
    --------
    >>> from schedlib.model import FinalState, JobOutcome
    >>> from schedlib.results.metrics import summarize_outcomes
    >>> from schedlib.workloads import Workload
    >>> from schedlib.model import Job
    >>> workload = Workload.from_jobs([Job(1, 0, 2, 10, 4)], 4, name="tiny")
    >>> done = JobOutcome(1, 0, 2, 10, FinalState.COMPLETED, "", 0, 4, 4, (0, 1), 0, 0, 0)
    >>> row = summary_fields(workload, summarize_outcomes([done], algorithm="easy", capacity=4))
    >>> row["workload"], row["processors"], row["policy"], row["utilisation"]
    ('tiny', 4, 'easy', 0.5)
    """
    fields = summary.as_dict()
    policy = fields.pop("algorithm")
    return {
        "workload": workload.name,
        "processors": workload.cluster.processors,
        "policy": policy,
        **fields,
    }


def compare(
    workload: Workload,
    policies: Iterable[str] = POLICIES,
    *,
    show_progress: bool = False,
    conventions: str = "instant",
) -> list[dict[str, Any]]:
    """Run each policy on `workload` and return one row of metrics per policy.

    Parameters
    ----------
    workload
        A cleaned workload.
    policies
        Policy names, in the order of the rows (default: FCFS, EASY, conservative).
    show_progress
        Draw a progress bar per policy on standard error (only on a terminal).
    conventions
        Event-order conventions for every run (see `run_policy`).

    Returns
    -------
    list of dict
        [`summary_row`][schedlib.experiments.backfilling.summary_row] per policy.
    """
    return [
        summary_row(
            workload,
            run_policy(workload, policy, show_progress=show_progress, conventions=conventions),
        )
        for policy in policies
    ]


def summary(
    *,
    policy: str = "easy",
    workload: str | None = None,
    processors: int | None = None,
    limit: int | None = None,
    over_limit: str = "kill",
    conventions: str = "instant",
    cleaning: str = "default",
    form: str | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """One backfilling run from plain parameters: what `schedlib run` prints, as a row.

    The unit of a sweep over `schedlib run` (see
    [`sweep`][schedlib.execution.sweep.sweep]); module-level, so it runs in
    any worker process.

    Parameters
    ----------
    policy
        `"fcfs"`, `"easy"` or `"conservative"`, or yours as `MODULE:FUNCTION`
        or `path/to/file.py:FUNCTION` (each worker loads it).
    workload
        An SWF file; `None`: the embedded default.
    processors, limit, over_limit, conventions, cleaning, form
        As the command-line options of the same names.
    seed
        Accepted for sweeps; a backfilling run uses no randomness, so every
        seed gives the same row.

    Returns
    -------
    dict
        [`summary_row`][schedlib.experiments.backfilling.summary_row].

    Examples
    --------
    >>> row = summary(policy="fcfs", limit=100)
    >>> row["policy"], row["jobs"], row["processors"]
    ('fcfs', 100, 128)
    """
    from schedlib.workloads import CleaningPolicy, load_workload
    from schedlib.workloads.cleaning import CLEANINGS

    prepared = load_workload(
        workload,
        processors=processors,
        cleaning=CleaningPolicy(over_limit=over_limit, rules=CLEANINGS[cleaning]),  # type: ignore[arg-type]
        limit=limit,
    )
    return summary_row(prepared, run_policy(prepared, policy, conventions=conventions, form=form))
