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
from schedlib.model import RunRecord
from schedlib.results.metrics import Summary, summarize
from schedlib.workloads import Workload

if TYPE_CHECKING:
    from schedlib.execution.progress import ProgressBar

__all__ = [
    "SUMMARY_CONTEXT",
    "compare",
    "run_policy",
    "summary",
    "summary_fields",
    "summary_row",
]

SUMMARY_CONTEXT = ("workload", "processors")
"""Columns of a summary row that describe the run rather than measure it."""


def run_policy(
    workload: Workload, policy: str, *, show_progress: bool = False, conventions: str = "instant"
) -> RunRecord:
    """Simulate one backfilling policy on a prepared workload.

    Parameters
    ----------
    workload
        A cleaned workload (see [`load_workload`][schedlib.workloads.load_workload]);
        its excluded records are reported in the run with their final state.
    policy
        `"fcfs"`, `"easy"` or `"conservative"`.
    show_progress
        Draw a progress bar on standard error (only when it is a terminal).
    conventions
        Event-order conventions, `"instant"` (default) or `"pyss"` (see
        [`schedule`][schedlib.backfill.simulation.schedule]).

    Returns
    -------
    RunRecord
        One outcome per record of the workload, simulated or excluded.
    """

    def run(progress: ProgressBar | None) -> RunRecord:
        return schedule(
            workload.jobs,
            workload.cluster,
            policy=policy,
            excluded=workload.excluded,
            progress=progress,
            conventions=conventions,
        )

    if not (show_progress and sys.stderr.isatty()):
        return run(None)  # no bar: no callback, and the progress machinery is not imported
    from schedlib.execution.progress import ProgressBar

    horizon = workload.jobs[-1].submit if workload.jobs else 0
    with ProgressBar(horizon, policy) as bar:
        return run(bar)


def summary_row(workload: Workload, record: RunRecord) -> dict[str, Any]:
    """One flat row of metrics for a run, naming the workload and machine size.

    The columns are `workload`, `processors`, `policy`, then every field of
    [`Summary`][schedlib.results.metrics.Summary] but its algorithm name.
    """
    return summary_fields(workload, summarize(record))


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
    seed: int = 0,
) -> dict[str, Any]:
    """One backfilling run from plain parameters: what `schedlib run` prints, as a row.

    The unit of a sweep over `schedlib run` (see
    [`sweep`][schedlib.execution.sweep.sweep]); module-level, so it runs in
    any worker process.

    Parameters
    ----------
    policy
        `"fcfs"`, `"easy"` or `"conservative"`.
    workload
        An SWF file; `None`: the embedded default.
    processors, limit, over_limit
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

    prepared = load_workload(
        workload,
        processors=processors,
        cleaning=CleaningPolicy(over_limit=over_limit),  # type: ignore[arg-type]
        limit=limit,
    )
    return summary_row(prepared, run_policy(prepared, policy))
