r"""The experiment the CSS 600 term report promised: PFS, PFS+MFS, round robin, FCFS on a pool.

The report states a hypothesis ("scheduling the higher CPU-intensive jobs
using their migration frequency across a pool of computing nodes would improve
their overall runtime efficiency", and, in its conclusion, interactive jobs
"are relatively unaffected by the migration frequency based scheduling")
and leaves its evaluation "TBD". This module runs it on a documented
synthetic workload:

```text
schedlib reproduce frequency [--quick] [--seeds 10] [--seed 0] [--quantum 1] [--max-mf 2]
                             [--max-preemption 3] [--grace 1.1] [--kc 0.5] [--kcr 0.5]
                             [--sweep [--quanta 0.5,1,2,4] [--max-mfs 0,1,2,4,8]]
                             [--workers W] [--format table|json|csv] [--plot out.png]
```

**The pool** ([`POOL`][schedlib.experiments.frequency.POOL]): a head node of
speed 1, fully available, and six remote nodes of speeds 0.5 to 2 and CPU
availabilities 0.25 to 1 (rates $s \cdot a$ from 0.5 to 1.5). The fastest node
(speed 2) is also the most productive (rate 1.5) but its owner keeps a
quarter of it.

**The workload** ([`make_workload`][schedlib.experiments.frequency.make_workload],
one per seed): over 600 s, Poisson arrivals of 40 interactive and 30
CPU-bound jobs. An interactive job has 5-15 CPU bursts of exponential work
(mean 0.3 s) separated by exponential idle times (mean 10 s); one in five is
a "morphing" job (the report's image-processing application that "can start
out as an interactive application ... and eventually morph into more
CPU-intensive computation") with one burst, not the first, of 10-40 s. A
CPU-bound job has one burst of 20-120 s. The remote pool's load is about
0.7.

**Measures**, per run: the mean turnaround of the CPU-bound jobs (end minus
submission); the mean and 95th percentile of the *response time* of the
interactive jobs' bursts (a burst's completion minus its arrival at a node),
and the mean over their short bursts (at most 1 s of work: what a user of
an editor waits for); the numbers of migrations, preemptions and banned
jobs; the makespan.

**Rows.** `reproduce` gives one row per (policy, seed) and one aggregate row
per policy (`seed` = `"mean"`, with the standard deviations over seeds in
`*_sd` columns). `sweep` gives one row per ($Q$, `MAX_MF`): PFS+MFS against PFS
at the same $Q$ and seeds (paired), the changes in percent, and a verdict on
the hypothesis: `holds` when CPU-bound turnaround improves and neither
interactive response (all bursts, short bursts) gets worse, `breaks` when
any of the three gets worse, else `unclear` (a change counts when the mean
paired difference exceeds twice its standard error).

Examples
--------
>>> rows = reproduce(seeds=1, shape=QUICK_SHAPE, workers=1)
>>> [(r["policy"], r["seed"]) for r in rows][:4]
[('pfs', 0), ('pfs', 'mean'), ('pfs+mfs', 0), ('pfs+mfs', 'mean')]
>>> _verdict((-5.0, 1.0), (0.2, 0.5)), _verdict((-5.0, 1.0), (3.0, 1.0)), _verdict((-1.0, 1.0))
('holds', 'breaks', 'unclear')
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
from collections.abc import Sequence
from typing import Any

import attrs

from schedlib.errors import InvalidValueError
from schedlib.execution.parallel import parallel_map
from schedlib.execution.progress import ProgressBar
from schedlib.experiments.claims import claim
from schedlib.experiments.options import (
    add_claims_argument,
    add_quick_argument,
    apply_quick,
    check_plot_target,
    print_note,
    print_results,
)
from schedlib.frequency.cost import MigrationCost
from schedlib.frequency.pfs import DEFAULT_GRACE
from schedlib.frequency.policies import POLICIES
from schedlib.frequency.pool import JobKind, PoolJob, PoolNode
from schedlib.frequency.simulation import BANNED_DETAIL, simulate_pool
from schedlib.model import EventKind, RunRecord
from schedlib.results.metrics import percentile
from schedlib.validation import at_least, require

__all__ = [
    "DEFAULT_COST",
    "DEFAULT_SHAPE",
    "NAME",
    "PAPER",
    "POOL",
    "QUICK_SHAPE",
    "SHORT_BURST",
    "SUMMARY",
    "Run",
    "WorkloadShape",
    "add_arguments",
    "burst_responses",
    "claims",
    "data",
    "main",
    "make_workload",
    "measure",
    "plot_comparison",
    "plot_sweep",
    "reproduce",
    "run_one",
    "sweep",
]

NAME = "frequency"
PAPER = "the CSS 600 term report"
"""The paper this module reproduces, as cited in tables."""
SUMMARY = (
    "the CSS 600 term report: PFS, PFS+MFS, round robin and FCFS on a pool of interactive and "
    "CPU-bound jobs; --sweep over the quantum and MAX_MF"
)

POOL: tuple[PoolNode, ...] = (
    PoolNode(1.0, 1.0),  # the head node
    PoolNode(1.0, 1.0),
    PoolNode(1.0, 0.5),
    PoolNode(1.5, 0.5),
    PoolNode(1.5, 1.0),
    PoolNode(0.5, 1.0),
    PoolNode(2.0, 0.75),  # the fastest node
)
"""The head node and six remote nodes (speed, CPU availability)."""


def _pair(low: float, name: str) -> Any:
    def check(instance: Any, attribute: attrs.Attribute[Any], value: tuple[float, float]) -> None:
        first, last = value
        if not (low <= first <= last):
            raise InvalidValueError(
                f"WorkloadShape.{attribute.name}",
                value,
                f"must be ({name}) with {low} <= low <= high",
            )

    return check


@attrs.frozen(slots=True)
class WorkloadShape:
    """The shape of the synthetic workload (defaults: the documented one).

    Attributes
    ----------
    interactive, cpu_bound
        Numbers of jobs of each kind (each `>= 0`).
    horizon
        Arrivals fall in `[0, horizon)` seconds (Poisson, uniform order).
    bursts
        Inclusive range of an interactive job's number of bursts.
    burst_mean
        Mean work of an interactive burst (exponential), seconds.
    think_mean
        Mean idle time between bursts (exponential), seconds.
    morph_share
        Share of the interactive jobs that have one long burst.
    morph_work
        Range of that burst's work (uniform), seconds.
    cpu_work
        Range of a CPU-bound job's work (uniform), seconds.
    """

    interactive: int = attrs.field(default=40, validator=at_least(0))
    cpu_bound: int = attrs.field(default=30, validator=at_least(0))
    horizon: float = attrs.field(default=600.0, validator=at_least(0))
    bursts: tuple[int, int] = attrs.field(default=(5, 15), validator=_pair(1, "low, high"))
    burst_mean: float = attrs.field(default=0.3, validator=at_least(1e-9))
    think_mean: float = attrs.field(default=10.0, validator=at_least(1e-9))
    morph_share: float = attrs.field(default=0.2, validator=at_least(0))
    morph_work: tuple[float, float] = attrs.field(default=(10.0, 40.0), validator=_pair(1e-9, "s"))
    cpu_work: tuple[float, float] = attrs.field(default=(20.0, 120.0), validator=_pair(1e-9, "s"))


DEFAULT_SHAPE = WorkloadShape()
"""The documented workload."""
DEFAULT_COST = MigrationCost(0.5, 0.5)
"""$K_C = K_{C/R} = 0.5$ s: a migration keeps a job in transit for $K = 1$ s."""
QUICK_SHAPE = WorkloadShape(interactive=12, cpu_bound=8, horizon=150.0)
"""The workload of `--quick`: a quarter of the jobs over a quarter of the time."""


def make_workload(seed: int, shape: WorkloadShape = DEFAULT_SHAPE) -> tuple[PoolJob, ...]:
    """The jobs of one seed: interactive and CPU-bound jobs with Poisson arrivals.

    Parameters
    ----------
    seed
        The seed (every policy and parameter sees the same jobs for a seed).
    shape
        Sizes and distributions.

    Returns
    -------
    tuple of PoolJob
        Ids `0..n-1` in arrival order; works are rounded to milliseconds
        (bursts of at least 1 ms).

    Notes
    -----
    Arrival times are `horizon` times sorted uniform draws (a Poisson process
    conditioned on the count). Complexity: $O(n \\log n)$.

    Examples
    --------
    >>> jobs = make_workload(3, QUICK_SHAPE)
    >>> len(jobs), sum(j.kind is JobKind.CPU_BOUND for j in jobs)
    (20, 8)
    >>> jobs == make_workload(3, QUICK_SHAPE)
    True
    """
    rng = random.Random(f"schedlib.frequency/{seed}")

    def ms(value: float) -> float:
        return max(0.001, round(value, 3))

    kinds = [JobKind.INTERACTIVE] * shape.interactive + [JobKind.CPU_BOUND] * shape.cpu_bound
    rng.shuffle(kinds)
    submits = sorted(round(rng.uniform(0, shape.horizon), 3) for _ in kinds)
    jobs = []
    for job_id, (kind, submit) in enumerate(zip(kinds, submits, strict=True)):
        if kind is JobKind.CPU_BOUND:
            jobs.append(PoolJob.cpu_bound(job_id, submit, ms(rng.uniform(*shape.cpu_work))))
            continue
        count = rng.randint(*shape.bursts)
        work = [ms(rng.expovariate(1 / shape.burst_mean)) for _ in range(count)]
        if count > 1 and rng.random() < shape.morph_share:
            work[rng.randrange(1, count)] = ms(rng.uniform(*shape.morph_work))
        think = [round(rng.expovariate(1 / shape.think_mean), 3) for _ in range(count - 1)]
        jobs.append(PoolJob.interactive(job_id, submit, work, think))
    return tuple(jobs)


SHORT_BURST = 1.0
"""Bursts of at most this much work (seconds) count as *short* (`short_response`)."""


def burst_responses(record: RunRecord, *, longest: float = math.inf) -> list[float]:
    """Response time of the interactive jobs' bursts: completion minus arrival at a node.

    Parameters
    ----------
    record
        A run of [`PoolJob`][schedlib.frequency.pool.PoolJob]s.
    longest
        Only bursts of at most this much work.

    Examples
    --------
    >>> jobs = [PoolJob.interactive(1, 0, (1, 3), (2,)), PoolJob.cpu_bound(2, 0, 4)]
    >>> record = simulate_pool(jobs, [PoolNode()], policy="fcfs")
    >>> burst_responses(record), burst_responses(record, longest=1)
    ([1.0, 5.0], [1.0])
    """
    work = {job.id: job.work for job in record.workload if job.kind is JobKind.INTERACTIVE}
    arrived: dict[tuple[int, int], float] = {}
    out = []
    for e in record.events:
        if e.job not in work or e.task is None:
            continue
        if e.kind is EventKind.ASSIGN:
            arrived.setdefault((e.job, e.task), e.time)
        elif e.kind is EventKind.COMPLETE and work[e.job][e.task] <= longest:
            out.append(e.time - arrived[(e.job, e.task)])
    return out


def measure(record: RunRecord) -> dict[str, float]:
    """The measures of one run (see the module notes).

    Returns
    -------
    dict
        `cpu_turnaround` (mean over CPU-bound jobs), `response` and
        `response_p95` (mean and 95th percentile over the interactive jobs'
        bursts), `short_response` (mean over their bursts of at most
        [`SHORT_BURST`][schedlib.experiments.frequency.SHORT_BURST] of work),
        `migrations`, `preemptions`, `banned`, `makespan`.
    """
    cpu = {job.id for job in record.workload if job.kind is JobKind.CPU_BOUND}
    turnarounds = [o.end - o.submit for o in record.outcomes if o.job in cpu and o.end is not None]
    responses = burst_responses(record)
    short = burst_responses(record, longest=SHORT_BURST)
    return {
        "cpu_turnaround": statistics.fmean(turnarounds) if turnarounds else math.nan,
        "response": statistics.fmean(responses) if responses else math.nan,
        "response_p95": percentile(responses, 95),
        "short_response": statistics.fmean(short) if short else math.nan,
        "migrations": float(sum(o.migrations for o in record.outcomes)),
        "preemptions": float(sum(o.preemptions for o in record.outcomes)),
        "banned": float(sum(1 for e in record.events if BANNED_DETAIL in e.detail)),
        "makespan": max((o.end or 0.0) for o in record.outcomes) if record.outcomes else 0.0,
    }


_MEASURES = (
    "cpu_turnaround",
    "response",
    "response_p95",
    "short_response",
    "migrations",
    "preemptions",
    "banned",
    "makespan",
)


@attrs.frozen(slots=True)
class Run:
    """One simulation (picklable, for `parallel_map`)."""

    policy: str
    seed: int
    quantum: float = 1.0
    max_mf: int = 2
    max_preemption: int = 3
    grace: float = DEFAULT_GRACE
    cost: MigrationCost = DEFAULT_COST
    shape: WorkloadShape = DEFAULT_SHAPE


def run_one(run: Run) -> dict[str, float]:
    """Simulate one [`Run`][schedlib.experiments.frequency.Run] and return its measures."""
    record = simulate_pool(
        make_workload(run.seed, run.shape),
        POOL,
        policy=run.policy,
        quantum=run.quantum,
        grace=run.grace,
        max_preemption=run.max_preemption,
        max_mf=run.max_mf,
        cost=run.cost,
        seed=run.seed,
    )
    return measure(record)


def _run_all(
    runs: Sequence[Run], workers: int | None, show_progress: bool
) -> list[dict[str, float]]:
    batch = max(1, math.ceil(len(runs) / 10))
    results: list[dict[str, float]] = []
    with ProgressBar(len(runs), NAME, enabled=None if show_progress else False) as bar:
        for start in range(0, len(runs), batch):
            results.extend(parallel_map(run_one, runs[start : start + batch], workers=workers))
            bar(len(results))
    return results


def _sd(values: Sequence[float]) -> float:
    return statistics.stdev(values) if len(values) > 1 else 0.0


def _check(seeds: int, first_seed: int, workers: int | None) -> None:
    require(seeds, "seeds", at_least=1)
    require(first_seed, "seed", at_least=0)
    if workers is not None:
        require(workers, "workers", at_least=1)


def reproduce(
    *,
    seeds: int = 10,
    first_seed: int = 0,
    policies: Sequence[str] = POLICIES,
    quantum: float = 1.0,
    max_mf: int = 2,
    max_preemption: int = 3,
    grace: float = DEFAULT_GRACE,
    cost: MigrationCost = DEFAULT_COST,
    shape: WorkloadShape = DEFAULT_SHAPE,
    workers: int | None = None,
    show_progress: bool = False,
) -> list[dict[str, Any]]:
    """The four policies on the synthetic workload: one row per (policy, seed) and per policy.

    Parameters
    ----------
    seeds
        Number of seeds (workloads), from `first_seed` on.
    first_seed
        The first seed.
    policies
        The policies compared.
    quantum, max_mf, max_preemption, grace, cost
        $Q$, `MAX_MF`, `MAX_PREEMPTION`, $g$, $K_C$ and $K_{C/R}$.
    shape
        The workload's shape.
    workers
        Processes (`None`: every CPU); the rows do not depend on it.
    show_progress
        Draw a progress bar on standard error (only on a terminal).

    Returns
    -------
    list of dict
        Columns `policy`, `seed` (an int, or `"mean"` on the aggregate row),
        `quantum`, `max_mf`, the measures of
        [`measure`][schedlib.experiments.frequency.measure], and on aggregate
        rows their standard deviations over seeds (`cpu_turnaround_sd`,
        `interactive_response_sd`).

    Raises
    ------
    InvalidValueError
        For an unknown policy or a bad parameter.
    """
    _check(seeds, first_seed, workers)
    for policy in policies:
        if policy not in POLICIES:
            raise InvalidValueError("policy", policy, f"must be one of {', '.join(POLICIES)}")
    common = {"quantum": quantum, "max_mf": max_mf}
    runs = [
        Run(policy, seed, quantum, max_mf, max_preemption, grace, cost, shape)
        for policy in policies
        for seed in range(first_seed, first_seed + seeds)
    ]
    _validate(runs[0])
    results = _run_all(runs, workers, show_progress)
    rows: list[dict[str, Any]] = []
    for policy in policies:
        mine = [
            (run, result) for run, result in zip(runs, results, strict=True) if run.policy == policy
        ]
        for run, result in mine:
            rows.append({"policy": policy, "seed": run.seed, **common, **result})
        values = [result for _, result in mine]
        rows.append(
            {
                "policy": policy,
                "seed": "mean",
                **common,
                **{m: statistics.fmean(v[m] for v in values) for m in _MEASURES},
                "cpu_turnaround_sd": _sd([v["cpu_turnaround"] for v in values]),
                "response_sd": _sd([v["response"] for v in values]),
            }
        )
    return rows


def _validate(run: Run) -> None:
    """Fail early, in this process, on bad parameters (before any worker starts)."""
    simulate_pool(
        [],
        POOL,
        policy=run.policy,
        quantum=run.quantum,
        grace=run.grace,
        max_preemption=run.max_preemption,
        max_mf=run.max_mf,
        cost=run.cost,
    )


def _paired(new: Sequence[float], old: Sequence[float]) -> tuple[float, float]:
    """Mean paired difference and its standard error."""
    diffs = [a - b for a, b in zip(new, old, strict=True)]
    mean = statistics.fmean(diffs)
    return mean, (_sd(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else 0.0)


def _verdict(cpu: tuple[float, float], *interactive: tuple[float, float]) -> str:
    """`holds`, `breaks` or `unclear` from (mean, standard error) paired differences."""

    def clearly_up(change: tuple[float, float]) -> bool:
        return change[0] > 0 and change[0] > 2 * change[1]

    cpu_better = cpu[0] < 0 and -cpu[0] > 2 * cpu[1]
    if clearly_up(cpu) or any(clearly_up(change) for change in interactive):
        return "breaks"
    return "holds" if cpu_better else "unclear"


def claims(rows: Sequence[dict[str, Any]]) -> list[dict[str, str]]:
    """The report's claims, each checked on the per-seed rows of a run.

    Both compare policies paired over the seeds present; a change counts when
    the mean paired difference exceeds twice its standard error (as the sweep's
    verdicts). Rows of `--sweep` carry no per-seed results: both claims are
    then `not run`.

    Examples
    --------
    >>> rows = reproduce(seeds=3, shape=QUICK_SHAPE, workers=1)
    >>> [c["verdict"] in ("holds", "does not hold", "inconclusive") for c in claims(rows)]
    [True, True]
    """
    per_seed: dict[str, dict[Any, dict[str, Any]]] = {}
    for r in rows:
        if r.get("seed") != "mean" and "response" in r:
            per_seed.setdefault(r["policy"], {})[r["seed"]] = r

    def paired(policy: str, other: str, field: str) -> tuple[float, float] | None:
        a, b = per_seed.get(policy, {}), per_seed.get(other, {})
        seeds = sorted(set(a) & set(b))
        if len(seeds) < 2:
            return None
        return _paired([a[s][field] for s in seeds], [b[s][field] for s in seeds])

    def shown(change: tuple[float, float] | None) -> str:
        return "-" if change is None else f"{change[0]:+.3g} ± {change[1]:.2g} s"

    out = []
    short = paired("pfs", "round_robin", "short_response")
    out.append(
        claim(
            "PFS, serving unpreempted jobs first, answers short interactive bursts faster "
            "than plain round robin",
            f"short-burst response, PFS minus round robin: {shown(short)} (paired over seeds)",
            None if short is None else (short[0] < 0 and -short[0] > 2 * short[1]),
        )
    )
    changes = [
        paired("pfs+mfs", "pfs", f) for f in ("cpu_turnaround", "response", "short_response")
    ]
    verdict = None
    if None not in changes:
        verdict = {"holds": "holds", "breaks": "does not hold", "unclear": "unclear"}[
            _verdict(*changes)  # type: ignore[arg-type]
        ]
    out.append(
        claim(
            "migration frequency (MFS) improves CPU-bound turnaround without worsening "
            "interactive response (the report's hypothesis)",
            "PFS+MFS minus PFS: CPU-bound turnaround "
            f"{shown(changes[0])}, response {shown(changes[1])}, short bursts {shown(changes[2])}",
            verdict,
        )
    )
    return out


def sweep(
    *,
    seeds: int = 10,
    first_seed: int = 0,
    quanta: Sequence[float] = (0.5, 1.0, 2.0, 4.0),
    max_mfs: Sequence[int] = (0, 1, 2, 4, 8),
    max_preemption: int = 3,
    grace: float = DEFAULT_GRACE,
    cost: MigrationCost = DEFAULT_COST,
    shape: WorkloadShape = DEFAULT_SHAPE,
    workers: int | None = None,
    show_progress: bool = False,
) -> list[dict[str, Any]]:
    """PFS+MFS against PFS over a grid of quanta and migration limits: where the hypothesis holds.

    Parameters
    ----------
    seeds, first_seed
        The seeds; PFS+MFS and PFS see the same workloads (paired).
    quanta
        The values of $Q$.
    max_mfs
        The values of `MAX_MF` (PFS does not use it: it runs once per $Q$).
    max_preemption, grace, cost, shape, workers, show_progress
        As for [`reproduce`][schedlib.experiments.frequency.reproduce].

    Returns
    -------
    list of dict
        One row per ($Q$, `MAX_MF`) with `policy` = `"pfs+mfs"`, `seed` =
        `"mean"`: its mean CPU-bound turnaround and interactive response
        beside PFS's (`pfs_*` columns), the changes in percent of PFS's
        (`cpu_change_pct`, `response_change_pct`, `short_change_pct` for the
        short bursts) with the standard errors of the paired differences
        (`*_se_pct`), mean migrations (both) and banned jobs, and the
        `verdict` (see the module notes).

    Raises
    ------
    InvalidValueError
        For empty lists or bad values.
    """
    _check(seeds, first_seed, workers)
    if not quanta or not max_mfs:
        raise InvalidValueError(
            "quanta / max_mfs", (tuple(quanta), tuple(max_mfs)), "must not be empty"
        )
    seed_range = range(first_seed, first_seed + seeds)

    def one(policy: str, seed: int, quantum: float, max_mf: int) -> Run:
        return Run(policy, seed, quantum, max_mf, max_preemption, grace, cost, shape)

    base = [one("pfs", s, q, 0) for q in quanta for s in seed_range]
    mfs = [one("pfs+mfs", s, q, m) for q in quanta for m in max_mfs for s in seed_range]
    _validate(mfs[0])
    results = dict(zip(base + mfs, _run_all(base + mfs, workers, show_progress), strict=True))
    rows = []
    for q in quanta:
        old = [results[one("pfs", s, q, 0)] for s in seed_range]
        for m in max_mfs:
            new = [results[one("pfs+mfs", s, q, m)] for s in seed_range]
            row: dict[str, Any] = {"policy": "pfs+mfs", "seed": "mean", "quantum": q, "max_mf": m}
            changes = {}
            for column, short in _COMPARED:
                mine = [r[column] for r in new]
                theirs = [r[column] for r in old]
                reference = statistics.fmean(theirs)
                mean, se = _paired(mine, theirs)
                changes[short] = (mean, se)
                if short != "short":
                    row[f"pfs_{column}"] = reference
                    row[column] = statistics.fmean(mine)
                row[f"{short}_change_pct"] = 100 * mean / reference
                row[f"{short}_se_pct"] = 100 * se / reference
            row["pfs_migrations"] = statistics.fmean(r["migrations"] for r in old)
            row["migrations"] = statistics.fmean(r["migrations"] for r in new)
            row["banned"] = statistics.fmean(r["banned"] for r in new)
            row["verdict"] = _verdict(changes["cpu"], changes["response"], changes["short"])
            rows.append(row)
    return rows


_COMPARED = (("cpu_turnaround", "cpu"), ("response", "response"), ("short_response", "short"))


def plot_comparison(rows: Sequence[dict[str, Any]], path: str) -> None:
    """Bars of the aggregate rows of `reproduce`: CPU-bound turnaround, interactive response, moves.

    Raises
    ------
    SchedlibError
        If matplotlib is missing (names the `plot` extra).
    """
    from schedlib.results.plotting import pyplot, save_figure

    plt = pyplot()
    means = [r for r in rows if r["seed"] == "mean"]
    names = [r["policy"] for r in means]
    xs = list(range(len(means)))
    colours = ["tab:blue", "tab:orange", "tab:green", "tab:red"][: len(means)]
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.8))
    axes[0].bar(
        xs,
        [r["cpu_turnaround"] for r in means],
        yerr=[r["cpu_turnaround_sd"] for r in means],
        capsize=4,
        color=colours,
    )
    axes[0].set_title("CPU-bound jobs: mean turnaround (s)")
    width = 0.4
    axes[1].bar(
        [x - width / 2 for x in xs],
        [r["response"] for r in means],
        width,
        yerr=[r["response_sd"] for r in means],
        capsize=3,
        color=colours,
        label="all bursts",
    )
    axes[1].bar(
        [x + width / 2 for x in xs],
        [r["short_response"] for r in means],
        width,
        color=colours,
        alpha=0.5,
        hatch="//",
        label=f"bursts <= {SHORT_BURST:g} s",
    )
    axes[1].set_yscale("log")
    axes[1].set_title("interactive jobs: mean burst response (s)")
    axes[1].legend(fontsize="small")
    axes[2].bar(
        [x - width / 2 for x in xs],
        [r["preemptions"] / 100 for r in means],
        width,
        color="tab:gray",
        label="preemptions / 100",
    )
    axes[2].bar(
        [x + width / 2 for x in xs],
        [r["migrations"] for r in means],
        width,
        color="tab:purple",
        label="migrations",
    )
    axes[2].set_title("per run")
    axes[2].legend(fontsize="small")
    for ax in axes:
        ax.set_xticks(xs)
        ax.set_xticklabels(names)
        ax.grid(axis="y", alpha=0.3)
    first = means[0] if means else {"quantum": "?", "max_mf": "?"}
    fig.suptitle(
        f"Pool policies, means over seeds (Q = {first['quantum']:g} s, "
        f"MAX_MF = {first['max_mf']}); error bars: sd over seeds"
    )
    fig.tight_layout()
    save_figure(fig, path, dpi=100)


def plot_sweep(rows: Sequence[dict[str, Any]], path: str) -> None:
    """Heat maps of the sweep: PFS+MFS against PFS, in percent, with the verdict of each cell.

    Each cell shows the change, its standard error and (left panel) the
    verdict. The colour scale is clipped at ±20 % so that small changes stay
    visible; the numbers give the exact changes.

    Raises
    ------
    SchedlibError
        If matplotlib is missing (names the `plot` extra).
    """
    from schedlib.results.plotting import pyplot, save_figure

    plt = pyplot()
    quanta = sorted({r["quantum"] for r in rows})
    limits = sorted({r["max_mf"] for r in rows})
    cell = {(r["quantum"], r["max_mf"]): r for r in rows}
    panels = (
        ("cpu_change_pct", "CPU-bound turnaround"),
        ("response_change_pct", "interactive response, all bursts"),
        ("short_change_pct", f"interactive response, bursts <= {SHORT_BURST:g} s"),
    )
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    for ax, (column, title) in zip(axes, panels, strict=True):
        grid = [[cell[(q, m)][column] for m in limits] for q in quanta]
        image = ax.imshow(grid, cmap="RdYlGn_r", vmin=-20, vmax=20, aspect="auto")
        for i, q in enumerate(quanta):
            for j, m in enumerate(limits):
                row = cell[(q, m)]
                ax.text(
                    j,
                    i,
                    f"{row[column]:+.1f}\n±{row[column.replace('change', 'se')]:.1f}"
                    + (f"\n{row['verdict']}" if column == "cpu_change_pct" else ""),
                    ha="center",
                    va="center",
                    fontsize=8,
                )
        ax.set_xticks(range(len(limits)))
        ax.set_xticklabels([str(m) for m in limits])
        ax.set_yticks(range(len(quanta)))
        ax.set_yticklabels([f"{q:g}" for q in quanta])
        ax.set_xlabel("MAX_MF")
        ax.set_ylabel("quantum Q (s)")
        ax.set_title(f"{title} (% change)", fontsize=10)
        fig.colorbar(image, ax=ax, fraction=0.046)
    fig.suptitle(
        "PFS+MFS against PFS, paired over seeds: change ± standard error (negative: MFS "
        "better); the verdict of each cell under the CPU-bound change"
    )
    fig.tight_layout()
    save_figure(fig, path, dpi=100)


def _numbers(text: str, name: str, kind: type = float) -> list[Any]:
    try:
        return [kind(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise InvalidValueError(name, text, "must be a comma-separated list of numbers") from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `schedlib reproduce frequency` (the CLI adds `--format`)."""
    parser.add_argument("--seeds", type=int, default=10, help="number of seeds (default: 10)")
    parser.add_argument("--seed", type=int, default=0, help="first seed (default: 0)")
    parser.add_argument("--quantum", type=float, default=1.0, help="quantum Q in s (default: 1)")
    parser.add_argument("--max-mf", type=int, default=2, help="MAX_MF (default: 2)")
    parser.add_argument("--max-preemption", type=int, default=3, help="MAX_PREEMPTION (default: 3)")
    parser.add_argument(
        "--grace",
        type=float,
        default=DEFAULT_GRACE,
        help=f"grace factor g (default: {DEFAULT_GRACE})",
    )
    parser.add_argument(
        "--morph-share",
        type=float,
        default=None,
        help="share of interactive jobs with one long burst (default: 0.2)",
    )
    parser.add_argument("--kc", type=float, default=0.5, help="K_C, communication cost in s (0.5)")
    parser.add_argument(
        "--kcr", type=float, default=0.5, help="K_CR, checkpoint/restart cost in s (0.5)"
    )
    parser.add_argument(
        "--sweep", action="store_true", help="sweep the quantum and MAX_MF (PFS+MFS vs PFS)"
    )
    parser.add_argument("--quanta", default="0.5,1,2,4", help="sweep: quanta (0.5,1,2,4)")
    parser.add_argument("--max-mfs", default="0,1,2,4,8", help="sweep: MAX_MF values (0,1,2,4,8)")
    parser.add_argument("--workers", type=int, default=None, help="processes (default: every CPU)")
    parser.add_argument("--plot", metavar="FILE", help="also draw the results into FILE (.png)")
    add_claims_argument(parser)
    parser.set_defaults(workload="the full pool workload")
    add_quick_argument(
        parser,
        {"seeds": 5, "workload": "a quarter of the jobs over a quarter of the time"},
        full_time="2 s (--sweep: 10 s)",
        quick_time="1 s",
    )


def data(args: argparse.Namespace) -> str:
    """The data of a run: the synthetic pool workload, and the seeds."""
    which = "quick" if args.quick else "full"
    return f"synthetic pool workload ({which} shape); {args.seeds} seeds from {args.seed}"


def rows(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The reproduction's rows for parsed options (no printing, no plot)."""
    shape = QUICK_SHAPE if args.quick else DEFAULT_SHAPE
    if args.morph_share is not None:
        require(args.morph_share, "--morph-share", at_least=0, at_most=1)
        shape = attrs.evolve(shape, morph_share=args.morph_share)
    cost = MigrationCost(args.kc, args.kcr)
    common: dict[str, Any] = {
        "seeds": args.seeds,
        "first_seed": args.seed,
        "max_preemption": args.max_preemption,
        "grace": args.grace,
        "cost": cost,
        "shape": shape,
        "workers": args.workers,
        "show_progress": True,
    }
    if args.sweep:
        quanta = _numbers(args.quanta, "--quanta")
        limits = _numbers(args.max_mfs, "--max-mfs", int)
        if args.quick:
            quanta, limits = quanta[::2], limits[::2]
        return sweep(quanta=quanta, max_mfs=limits, **common)
    return reproduce(quantum=args.quantum, max_mf=args.max_mf, **common)


def main(args: argparse.Namespace) -> int:
    """Run the comparison (or the sweep) and print its rows."""
    note = apply_quick(args)
    check_plot_target(args.plot)
    table = rows(args)
    if args.plot:
        (plot_sweep if args.sweep else plot_comparison)(table, args.plot)
    print_note(note, args.format)
    print_results(table, claims(table), args, name=NAME)
    return 0
