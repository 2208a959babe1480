"""The runs of the multi-site reproduction: one run, the design of the grid, the rows.

[`reproduce`][schedlib.experiments.multisite.reproduce] runs every (trace,
replicate, group, policy, $K$, selection, load factor, transfer, tie rule)
through [`run_grid`][schedlib.experiments.running.run_grid]: on local
processes or a dask cluster, the most expensive first, resumable from a file.
"""

from __future__ import annotations

import hashlib
import json
import statistics
import time
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import attrs

from schedlib.backfill import schedule
from schedlib.errors import InvalidValueError
from schedlib.experiments.multisite.setup import (
    COMPARED,
    JOBS,
    K_OURS,
    K_PAPER,
    LOAD_FACTORS,
    NAME,
    REPLICATES,
    TIE_RULES,
    paper_workload,
)
from schedlib.experiments.running import Execution, run_grid
from schedlib.model import Cluster, Job, JobOutcome
from schedlib.multisite import (
    POLICIES,
    MetaPolicy,
    makespan,
    paper_sites,
    query_messages,
    raw_utilisation,
    scaled,
    simulate_multisite,
    with_load_factor,
)
from schedlib.validation import require
from schedlib.workloads.locate import TraceSource, find_trace, load_trace

GROUPS = ("policies", "k", "transfer", "k-ours", "ties")
"""The groups of the grid, in the order of the rows."""


@attrs.frozen
class Run:
    """One simulation of the experiment (picklable, for the worker processes).

    `replicate` is `None` for a run that draws nothing (the single-site pair: one site has
    no heterogeneity, so the job classes do not matter); `tie_rule` names the other reading
    of a tie rule the run uses (a key of
    [`TIE_RULES`][schedlib.experiments.multisite.TIE_RULES]), `"-"` for the defaults.
    """

    source: TraceSource
    jobs: int
    seed: int
    replicate: int | None
    group: str
    policy: str
    k: int
    selection: str
    load_factor: float
    transfer: bool = False
    tie_rule: str = "-"


def run_key(run: Run) -> str:
    """A run's canonical text (what a resume file matches on): the trace by its name and
    data, not by its path, so that a resume file moves with its traces.

    Examples
    --------
    >>> from schedlib.workloads.locate import find_trace
    >>> run = Run(find_trace("sdsc", search=False), 30, 0, 1, "k", "efficacy", 2, "load", 1.0)
    >>> run_key(run)  # doctest: +NORMALIZE_WHITESPACE
    '{"data": "embedded slice", "group": "k", "jobs": 30, "k": 2, "load_factor": 1.0,
      "policy": "efficacy", "replicate": 1, "seed": 0, "selection": "load",
      "tie_rule": "-", "trace": "SDSC-SP2", "transfer": false}'
    """
    fields = attrs.asdict(run, recurse=False)
    source = fields.pop("source")
    fields["trace"] = source.name
    fields["data"] = "embedded slice" if source.embedded else "real trace"
    return json.dumps(fields, sort_keys=True)


def _turnarounds(pairs: Iterable[tuple[float, float | None]]) -> list[float]:
    return [end - submit for submit, end in pairs if end is not None]


def schedule_digest(outcomes: Iterable[JobOutcome]) -> str:
    """A digest of a run's schedule: each job's final state, start, end and processors.

    Two runs with the same digest gave every job the same outcome: a comparison between
    them is a tie by construction ([`Tie`][schedlib.results.verdicts.Tie]).

    Examples
    --------
    >>> from schedlib.backfill import schedule
    >>> from schedlib.model import Cluster, Job
    >>> jobs = [Job(1, 0, 2, 10, 5), Job(2, 0, 2, 10, 10)]
    >>> easy = schedule(jobs, Cluster(4), policy="easy").outcomes
    >>> schedule_digest(easy) == schedule_digest(schedule(jobs, Cluster(4)).outcomes)
    True
    >>> len(schedule_digest(easy))
    16
    """
    h = hashlib.sha256()
    for o in sorted(outcomes, key=lambda o: o.job):
        state = o.state.value if o.state is not None else None
        h.update(repr((o.job, state, o.start, o.end, o.place.ranges)).encode())
    return h.hexdigest()[:16]


def _policy(run: Run) -> tuple[MetaPolicy, dict[str, Any]]:
    """The run's policy and the further options of `simulate_multisite` its tie rule sets."""
    meta = POLICIES[run.policy]
    if run.k < 4 or run.selection != "load":
        meta = meta.with_copies(run.k, run.selection)  # type: ignore[arg-type]
    options: dict[str, Any] = {}
    if run.tie_rule == "site-order-index":
        options["site_order"] = "index"
    elif run.tie_rule == "admission-drop":
        meta = attrs.evolve(meta, admission_tie="drop")
    elif run.tie_rule == "equal-speed-keep":
        meta = attrs.evolve(meta, equal_speed="keep")
    elif run.tie_rule == "reserve-at-pass":
        options["reserve_on_arrival"] = False
    elif run.tie_rule != "-":
        raise InvalidValueError("tie_rule", run.tie_rule, f"must be one of {', '.join(TIE_RULES)}")
    return meta, options


def run_one(run: Run) -> dict[str, Any]:
    """Simulate one [`Run`][schedlib.experiments.multisite.Run] and return its row.

    The row carries the schedule's digest
    ([`schedule_digest`][schedlib.experiments.multisite.runs.schedule_digest]) and the CPU
    seconds the run took in its thread (`cpu_seconds`: the only field that varies from one
    computation to the next).
    """
    began = time.thread_time()
    replicate = run.replicate if run.replicate is not None else 0  # single site: no draw
    size, four = paper_workload(run.source, run.jobs, run.seed, replicate, data_sizes=run.transfer)
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
        "tie_rule": run.tie_rule,
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
            "query_messages": 0,
            "started": len(ran),
            "digest": schedule_digest(record.outcomes),
            "cpu_seconds": round(time.thread_time() - began, 2),
        }
    meta, options = _policy(run)
    sites = paper_sites(size)
    result = simulate_multisite(loaded, sites, meta, transfer=run.transfer, **options)
    outcomes = [o for o in result.record.outcomes if o.start is not None]
    turnarounds = _turnarounds((o.submit, o.end) for o in outcomes)
    queried = 0
    if meta.selection == "completion":  # the sites large enough for each job are queried
        queried = sum(query_messages(sum(s.processors >= j.procs for s in sites)) for j in loaded)
    return row | {
        "mean_turnaround": result.mean_turnaround,
        "max_turnaround": max(turnarounds),
        "utilisation": result.utilisation,
        "effective_utilisation": result.effective_utilisation,
        "messages": result.messages,
        "minimum_messages": result.minimum_messages,
        "query_messages": queried,
        "started": len(outcomes),
        "digest": schedule_digest(result.record.outcomes),
        "cpu_seconds": round(time.thread_time() - began, 2),
    }


K_CONFIGURATIONS = (*((k, s) for k in (1, 2, 3) for s in ("load", "completion")), (4, "load"))
"""The $K$ sweeps' (K, selection) pairs; with $K = 4$ every site is chosen, by either rule."""

TIE_RUNS: dict[str, tuple[tuple[str, int, str], ...]] = {
    "site-order-index": tuple(
        (p, 4, "load") for p in ("greedy-mr", "conservative-mr", "conservative-mr-slower",
                                 "efficacy")
    ),
    "admission-drop": tuple(
        (p, 4, "load") for p in ("conservative-mr", "conservative-mr-slower", "efficacy")
    ),
    "equal-speed-keep": (("conservative-mr-slower", 4, "load"),),
    "reserve-at-pass": tuple((K_PAPER, k, "completion") for k in (1, 2, 3)),
}  # fmt: skip
"""Where each other reading of a tie rule can change a schedule: (policy, K, selection) runs
of the `ties` group, at the first load factor. Greedy (one copy, nothing withdrawn) has a
single round per instant and no admission; only cancel-slower keeps copies; only queries
by completion time read the reservations of the same instant."""


def grid(
    sources: Sequence[TraceSource],
    jobs: int,
    seed: int,
    replicates: int,
    load_factors: Sequence[float],
) -> list[Run]:
    """Every run of the experiment, in the order of the rows' groups.

    The single-site pair is run once per (trace, load factor): it draws nothing.
    """
    runs: list[Run] = []
    first = load_factors[0]
    for source in sources:
        for factor in load_factors:
            for policy in COMPARED[-2:]:
                runs.append(Run(source, jobs, seed, None, "policies", policy, 1, "-", factor))
        for r in range(replicates):
            head = (source, jobs, seed, r)
            for factor in load_factors:
                for policy in COMPARED[:-2]:
                    k = 1 if policy == "greedy" else 4
                    runs.append(Run(*head, "policies", policy, k, "load", factor))
            for group, policies, transfer in (
                ("k", (K_PAPER,), False),
                ("transfer", (K_PAPER,), True),
                ("k-ours", K_OURS, False),
            ):
                for policy in policies:
                    for k, selection in K_CONFIGURATIONS:
                        runs.append(Run(*head, group, policy, k, selection, first, transfer))
            for rule, configurations in TIE_RUNS.items():
                for policy, k, selection in configurations:
                    runs.append(Run(*head, "ties", policy, k, selection, first, False, rule))
    return runs


def run_cost(run: Run) -> float:
    """A run's expected cost, to submit the most expensive first: conservative sites cost
    far more than EASY ones, and grow fast with the load factor and the trace's length."""
    cheap = run.policy in ("greedy", "greedy-mr", "single-easy")
    return (1.0 if cheap else 30.0) * run.load_factor**4 * (run.jobs / 1000) ** 2


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
    execution: Execution | None = None,
) -> list[dict[str, Any]]:
    """Run the experiment: one row per (trace, replicate, group, policy, $K$, selection,
    load factor, transfer, tie rule).

    Parameters
    ----------
    traces
        `ctc`, `sdsc` or SWF files.
    traces_folder
        Where the named traces are (`--traces`); by default found as
        [`find_trace`][schedlib.workloads.locate.find_trace] says, each
        replaced by its own embedded slice when absent.
    jobs
        The first `jobs` jobs of each trace (by default `JOBS`, the paper's 5000).
    replicates
        Independent draws of the job classes (and data sizes).
    seed
        The seed of the replicates' streams.
    load_factors
        Load factors of the policy comparison; the $K$ sweeps and the tie rules use the
        first.
    workers, show_progress
        Local processes (`None`: every CPU) and a progress bar on standard error (on a
        terminal only), when no `execution` is given.
    execution
        Where the grid runs and what it resumes from
        ([`Execution`][schedlib.experiments.running.Execution]: local processes, a dask
        cluster, a resume file); the rows are the same wherever they ran.

    Raises
    ------
    InvalidValueError
        For `jobs < 1`, `replicates < 1`, no load factor, a factor <= 0, an
        unknown trace, the same trace twice, more jobs than an embedded
        slice holds, or a resume file written with other options.

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
    where = execution or Execution(workers=workers, name=NAME, progress=show_progress)
    runs = grid(sources, jobs, seed, replicates, tuple(load_factors))
    rows = run_grid(run_one, runs, where, key=run_key, cost=run_cost)
    order = {name: i for i, name in enumerate(COMPARED)}
    groups = {name: i for i, name in enumerate(GROUPS)}
    rules = {name: i for i, name in enumerate(("-", *TIE_RULES))}
    return sorted(
        rows,
        key=lambda r: (r["trace"], groups[r["group"]], rules[r["tie_rule"]], order[r["policy"]],
                       r["k"], r["selection"], r["load_factor"], r["replicate"] or 0),
    )  # fmt: skip
