"""The runs of the multi-site reproduction: one run, the design of the grid, the rows.

[`reproduce`][schedlib.experiments.multisite.reproduce] runs every (trace,
replicate, group, policy, $K$, selection, load factor, transfer), longest first.
"""

from __future__ import annotations

import statistics
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import attrs

from schedlib.backfill import schedule
from schedlib.errors import InvalidValueError
from schedlib.execution.parallel import run_all
from schedlib.execution.progress import ProgressBar
from schedlib.experiments.multisite.setup import (
    COMPARED,
    JOBS,
    K_OURS,
    K_PAPER,
    LOAD_FACTORS,
    NAME,
    REPLICATES,
    paper_workload,
)
from schedlib.model import Cluster, Job
from schedlib.multisite import (
    POLICIES,
    makespan,
    paper_sites,
    raw_utilisation,
    scaled,
    simulate_multisite,
    with_load_factor,
)
from schedlib.validation import require
from schedlib.workloads.locate import TraceSource, find_trace, load_trace


@attrs.frozen
class Run:
    """One simulation of the experiment (picklable, for the worker processes)."""

    source: TraceSource
    jobs: int
    seed: int
    replicate: int
    group: str
    policy: str
    k: int
    selection: str
    load_factor: float
    transfer: bool = False


def _turnarounds(pairs: Iterable[tuple[float, float | None]]) -> list[float]:
    return [end - submit for submit, end in pairs if end is not None]


def run_one(run: Run) -> dict[str, Any]:
    """Simulate one [`Run`][schedlib.experiments.multisite.Run] and return its row."""
    size, four = paper_workload(
        run.source, run.jobs, run.seed, run.replicate, data_sizes=run.transfer
    )
    loaded = with_load_factor(four, run.load_factor)
    row: dict[str, Any] = {
        "trace": run.source.name,
        "data": "embedded slice" if run.source.embedded else "real trace",
        "jobs": run.jobs,
        "processors": size,
        "replicate": run.replicate,
        "group": run.group,
        "policy": run.policy,
        "k": run.k,
        "selection": run.selection,
        "load_factor": run.load_factor,
        "transfer": run.transfer,
    }
    if run.policy.startswith("single-"):
        one = scaled(loaded, 4)
        record = schedule(
            [Job(j.id, j.submit, j.procs, j.requested_time, j.runtime) for j in one],
            Cluster(size),
            policy=run.policy.removeprefix("single-"),
        )
        ran = [o for o in record.outcomes if o.end is not None and o.start is not None]
        span = makespan((o.start for o in ran), (o.end for o in ran))  # type: ignore[misc]
        work = [(o.end - o.start) * o.procs for o in ran]  # type: ignore[operator]
        utilisation = raw_utilisation(work, span, size)
        turnarounds = _turnarounds((o.submit, o.end) for o in ran)
        return row | {
            "mean_turnaround": statistics.fmean(turnarounds),
            "max_turnaround": max(turnarounds),
            "utilisation": utilisation,
            "effective_utilisation": utilisation,
            "messages": 0,
            "minimum_messages": 0,
            "started": len(ran),
        }
    meta = POLICIES[run.policy]
    if run.k < 4 or run.selection != "load":
        meta = meta.with_copies(run.k, run.selection)  # type: ignore[arg-type]
    result = simulate_multisite(loaded, paper_sites(size), meta, transfer=run.transfer)
    outcomes = [o for o in result.record.outcomes if o.start is not None]
    turnarounds = _turnarounds((o.submit, o.end) for o in outcomes)
    return row | {
        "mean_turnaround": result.mean_turnaround,
        "max_turnaround": max(turnarounds),
        "utilisation": result.utilisation,
        "effective_utilisation": result.effective_utilisation,
        "messages": result.messages,
        "minimum_messages": result.minimum_messages,
        "started": len(outcomes),
    }


K_CONFIGURATIONS = (*((k, s) for k in (1, 2, 3) for s in ("load", "completion")), (4, "load"))
"""The $K$ sweeps' (K, selection) pairs; with $K = 4$ every site is chosen, by either rule."""


def _runs(
    sources: Sequence[TraceSource],
    jobs: int,
    seed: int,
    replicates: int,
    load_factors: Sequence[float],
) -> list[Run]:
    runs: list[Run] = []
    for source in sources:
        for r in range(replicates):
            head = (source, jobs, seed, r)
            for factor in load_factors:
                for policy in COMPARED:
                    single = policy.startswith("single-")
                    k = 1 if policy == "greedy" or single else 4
                    runs.append(
                        Run(*head, "policies", policy, k, "-" if single else "load", factor)
                    )
            for group, policies, transfer in (
                ("k", (K_PAPER,), False),
                ("transfer", (K_PAPER,), True),
                ("k-ours", K_OURS, False),
            ):
                for policy in policies:
                    for k, selection in K_CONFIGURATIONS:
                        runs.append(
                            Run(*head, group, policy, k, selection, load_factors[0], transfer)
                        )
    return runs


def _cost(run: Run) -> tuple[int, float]:
    """Longest first (conservative sites, high load), so that the workers finish together."""
    cheap = run.policy in ("greedy", "greedy-mr", "single-easy")
    return (cheap, -run.load_factor)


def reproduce(
    *,
    traces: Sequence[str] = ("ctc", "sdsc"),
    traces_folder: str | None = None,
    jobs: int = JOBS,
    replicates: int = REPLICATES,
    seed: int = 0,
    load_factors: Sequence[float] = LOAD_FACTORS,
    workers: int | None = None,
    show_progress: bool = False,
) -> list[dict[str, Any]]:
    """Run the experiment: one row per (trace, replicate, group, policy, $K$, selection,
    load factor, transfer).

    Parameters
    ----------
    traces
        `ctc`, `sdsc` or SWF files.
    traces_folder
        Where the named traces are (`--traces`); by default found as
        [`find_trace`][schedlib.workloads.locate.find_trace] says, each
        replaced by its own embedded slice when absent.
    jobs
        The first `jobs` jobs of each trace (the paper: 5000; see `JOBS`).
    replicates
        Independent draws of the job classes (and data sizes).
    seed
        The seed of the replicates' streams.
    load_factors
        Load factors of the policy comparison; the $K$ sweeps use the first.
    workers
        Processes (`None`: every CPU); the rows are the same for any number.
    show_progress
        A progress bar on standard error (only on a terminal).

    Raises
    ------
    InvalidValueError
        For `jobs < 1`, `replicates < 1`, no load factor, a factor <= 0, an
        unknown trace, the same trace twice, or more jobs than an embedded
        slice holds.

    References
    ----------
    Sabin et al. (2003), §3 (workloads, load factors), §4-§7 (policies, $K$,
    site selection, messages, data transfer).
    """
    require(jobs, "--jobs", at_least=1)
    require(replicates, "--replicates", at_least=1)
    if not load_factors or min(load_factors) <= 0:
        raise InvalidValueError("--load-factors", list(load_factors), "must be positive numbers")
    sources = [find_trace(name, folder=traces_folder) for name in traces]
    if len({s.path for s in sources}) < len(sources):
        raise InvalidValueError("--trace", list(traces), "names the same trace twice")
    for source in sources:
        if source.available_jobs is not None and jobs > source.available_jobs:
            load_trace(source, limit=jobs)  # raises, naming the slice and --traces
        held = load_trace(source, limit=jobs).records
        if held < jobs:
            warnings.warn(
                f"--jobs {jobs}: {source.name} holds only {held} job records; every run "
                f"uses those {held}",
                stacklevel=2,
            )
    runs = sorted(_runs(sources, jobs, seed, replicates, load_factors), key=_cost)
    done = [0]

    def advance(index: int, row: dict[str, Any]) -> None:
        done[0] += 1
        bar(done[0])

    with ProgressBar(len(runs), NAME, enabled=None if show_progress else False) as bar:
        rows = run_all(run_one, runs, workers=workers, on_result=advance)
    order = {name: i for i, name in enumerate(COMPARED)}
    groups = {"policies": 0, "k": 1, "transfer": 2, "k-ours": 3}
    return sorted(
        rows,
        key=lambda r: (r["trace"], groups[r["group"]], order[r["policy"]], r["k"],
                       r["selection"], r["load_factor"], r["replicate"]),
    )  # fmt: skip
