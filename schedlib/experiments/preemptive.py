"""Reproduction of Balasubramanian et al. (2013) §6: preemptive and internode scheduling.

A grid of 1000 multi-core nodes receives 5000 jobs with Poisson arrivals;
four schedulers are compared at several mean inter-arrival times (IAT),
scheduling intervals $\\delta$ and wait weights $\\alpha$ (§6.1-6.2):

| scheduler | local decision | internode |
|---|---|---|
| `fcfs` | FCFS with backfilling (non-preemptive, [9]) | none |
| `local` | preemptive priority, Algorithm 1 | none |
| `2nn` | preemptive priority | PUSH/PULL over 2-NN |
| `can` | preemptive priority | PUSH/PULL over CAN' |

(`2nn+balance` and `can+balance` add the queue balancing of §8.)

```text
schedlib reproduce preemptive [--nodes 1000 --jobs 5000] [--iat 1.5,2.0,2.5,3.0,4.0]
                              [--delta 5] [--alpha 0,0.5] [--schedulers fcfs,local,2nn,can]
                              [--seed 0] [--workers W] [--accuracy 1.0] [--overhead 0]
                              [--format table|json|csv] [--plot out.png]
```

**The setup** (§6.1 gives the shape, not the numbers; ours are stated here
and on the *Reproduction: preemptive* page). Resource kinds: cores, memory
(MB), disk (GB). Nodes: 1/2/4/8 cores with weights 40/30/20/10 %, memory
1-16 GB and disk 20-500 GB with weights 30/30/20/12/8 % (mostly small), speed
0.5/0.75/1/1.25/1.5 with weights 10/20/40/20/10 % (mean 1, the canonical
node). Jobs are "skewed the same way": 1/2/4/8 cores with weights
40/30/20/10 %, memory 0.5-8 GB and disk 10-250 GB with weights
30/30/20/12/8 %. Estimated runtime $U(0.5T, 1.5T)$ on the canonical node,
$T = 3600$ s; the actual runtime equals the estimate by default (the paper
gives one runtime only; `--accuracy a` draws it in $[a \\cdot est, est]$).
Arrivals: exponential gaps of mean IAT; every IAT sees the same jobs (the
same requirements and runtimes, gaps scaled), a common-random-numbers design.

**Metrics.** `wait` is a job's non-executing time from submission to
completion (turnaround minus time executing; it includes the waits after
preemptions). `node_wait` is the paper's definition (§3, §6.1): the
non-executing time after the job reached the node it finished on (time
before a migration is not counted). `tail10_*` is the median over the 10 %
longest-waiting jobs (the paper's Figure 4a); `load` the offered load
$\\lambda \\cdot E[\\text{cores} \\cdot \\text{work}] / \\sum \\text{cores} \\cdot \\text{speed}$.

References
----------
Balasubramanian et al. (2013) §6.1 (setup), §6.2 (Figures 3-6, preemption counts).

Examples
--------
>>> nodes = make_nodes(4, seed=1)
>>> [n.cores for n in nodes]
[8, 8, 1, 8]
>>> rows = reproduce(nodes=8, jobs=20, iats=(2.0,), alphas=(0.0,), schedulers=("fcfs", "local"),
...                  workers=1)
>>> [(r["scheduler"], r["completed"]) for r in rows]
[('FCFS+backfill', 20), ('local preemptive', 20)]
"""

from __future__ import annotations

import argparse
import itertools
import random
from collections.abc import Iterable, Sequence
from typing import Any

import attrs

from schedlib.errors import InvalidValueError
from schedlib.execution.parallel import parallel_map
from schedlib.experiments.claims import claim
from schedlib.experiments.claims import values as distinct
from schedlib.experiments.options import (
    add_claims_argument,
    add_quick_argument,
    apply_quick,
    check_plot_target,
    print_note,
    print_results,
)
from schedlib.model import EventKind, RunRecord
from schedlib.preemption.grid import simulate_grid
from schedlib.preemption.resources import GridJob, GridNode
from schedlib.preemption.topology import Topology, ring, similar_capability
from schedlib.results.metrics import percentile
from schedlib.validation import require

__all__ = [
    "JOB_CORES",
    "LABELS",
    "NAME",
    "NODE_CORES",
    "NOISE_PERCENT",
    "PAPER",
    "SCHEDULERS",
    "SUMMARY",
    "Run",
    "add_arguments",
    "claims",
    "data",
    "main",
    "make_jobs",
    "make_nodes",
    "offered_load",
    "plot",
    "reproduce",
    "rows",
    "run_one",
    "sweep",
    "waits",
]

NAME = "preemptive"
PAPER = "Balasubramanian et al. (2013)"
"""The paper this module reproduces, as cited in tables."""
SUMMARY = (
    "Balasubramanian et al. (2013): FCFS+backfilling vs local preemptive vs internode "
    "(2-NN, CAN') scheduling"
)

T: float = 3600.0
"""Mean estimated runtime on the canonical node, in seconds (Balasubramanian et al. 2013 §6.1)."""

NODE_CORES = ((1, 2, 4, 8), (40, 30, 20, 10))
"""Cores per node and their weights in percent (mostly small)."""
NODE_MEMORY = ((1024, 2048, 4096, 8192, 16384), (30, 30, 20, 12, 8))
"""Memory per node in MB and weights."""
NODE_DISK = ((20, 50, 100, 200, 500), (30, 30, 20, 12, 8))
"""Disk per node in GB and weights."""
NODE_SPEED = ((0.5, 0.75, 1.0, 1.25, 1.5), (10, 20, 40, 20, 10))
"""CPU speed relative to the canonical node, and weights (mean 1)."""
JOB_CORES = ((1, 2, 4, 8), (40, 30, 20, 10))
"""Cores per job and weights: "skewed the same way" as the nodes."""
JOB_MEMORY = ((512, 1024, 2048, 4096, 8192), (30, 30, 20, 12, 8))
"""Memory per job in MB and weights."""
JOB_DISK = ((10, 25, 50, 100, 250), (30, 30, 20, 12, 8))
"""Disk per job in GB and weights."""

SCHEDULERS: tuple[str, ...] = ("fcfs", "local", "2nn", "can", "2nn+balance", "can+balance")
"""Scheduler names accepted by `--schedulers`."""
LABELS: dict[str, str] = {
    "fcfs": "FCFS+backfill",
    "local": "local preemptive",
    "2nn": "internode 2-NN",
    "can": "internode CAN'",
    "2nn+balance": "internode 2-NN + balancing",
    "can+balance": "internode CAN' + balancing",
}
"""How each scheduler is named in the results."""
DEFAULT_SCHEDULERS = ("fcfs", "local", "2nn", "can")


def _draw(rng: random.Random, table: tuple[tuple[Any, ...], tuple[int, ...]]) -> Any:
    values, weights = table
    return rng.choices(values, weights)[0]


def make_nodes(count: int, *, seed: int = 0) -> list[GridNode]:
    """The grid: `count` nodes drawn from the setup's distributions.

    Parameters
    ----------
    count
        Number of nodes, `>= 1`.
    seed
        Random seed.

    Returns
    -------
    list of GridNode
        Ids `0..count-1`; capacity `(cores, memory MB, disk GB)`.

    Notes
    -----
    Complexity: $O(n)$. References: Balasubramanian et al. (2013) §6.1.
    """
    require(count, "nodes", at_least=1)
    rng = random.Random(f"preemptive:{seed}:nodes")
    return [
        GridNode(
            i,
            (_draw(rng, NODE_CORES), _draw(rng, NODE_MEMORY), _draw(rng, NODE_DISK)),
            _draw(rng, NODE_SPEED),
        )
        for i in range(count)
    ]


def make_jobs(count: int, iat: float, *, seed: int = 0, accuracy: float = 1.0) -> list[GridJob]:
    """The workload: `count` jobs with Poisson arrivals of mean inter-arrival `iat`.

    Parameters
    ----------
    count
        Number of jobs, `>= 1`.
    iat
        Mean inter-arrival time in seconds, `> 0`.
    seed
        Random seed; the jobs' requirements, runtimes and (unit) gaps depend
        on it only, so every `iat` sees the same jobs.
    accuracy
        Actual runtime drawn uniformly in `[accuracy * estimate, estimate]`;
        `1` (default) makes it equal to the estimate.

    Returns
    -------
    list of GridJob
        Ids `0..count-1` in arrival order.

    Raises
    ------
    InvalidValueError
        For a bad count, `iat <= 0` or `accuracy` outside `(0, 1]`.

    Notes
    -----
    Estimates are $U(0.5T, 1.5T)$ with $T = 3600$ s. Complexity: $O(n)$.

    References
    ----------
    Balasubramanian et al. (2013) §6.1.

    Examples
    --------
    >>> a, b = make_jobs(3, 1.0), make_jobs(3, 2.0)
    >>> [j.requirement for j in a] == [j.requirement for j in b]
    True
    >>> round(b[2].submit / a[2].submit, 9)
    2.0
    """
    require(count, "jobs", at_least=1)
    require(iat, "iat", greater_than=0)
    require(accuracy, "accuracy", greater_than=0, at_most=1)
    rng = random.Random(f"preemptive:{seed}:jobs")
    clock = 0.0
    jobs = []
    for i in range(count):
        clock += rng.expovariate(1.0)
        requirement = (_draw(rng, JOB_CORES), _draw(rng, JOB_MEMORY), _draw(rng, JOB_DISK))
        estimate = rng.uniform(0.5 * T, 1.5 * T)
        share = rng.uniform(accuracy, 1.0)
        runtime = estimate if accuracy == 1 else estimate * share
        jobs.append(GridJob(i, clock * iat, requirement, estimate, runtime))
    return jobs


def offered_load(jobs: Sequence[GridJob], nodes: Sequence[GridNode]) -> float:
    """Core-seconds of work per second of arrivals over the grid's core-speed capacity.

    $$ \\rho = \\frac{\\sum_j c_j w_j / (t_{last} - t_{first})}{\\sum_i c_i s_i} $$

    Examples
    --------
    >>> offered_load([GridJob(0, 0, (1,), 10, 10), GridJob(1, 10, (1,), 10, 10)],
    ...              [GridNode(0, (2,), 1.0)])
    1.0
    """
    span = jobs[-1].submit - jobs[0].submit if len(jobs) > 1 else 0
    if span <= 0:
        return float("nan")
    work = sum(j.procs * j.runtime for j in jobs)
    return work / span / sum(n.cores * n.speed for n in nodes)


def _topology(name: str, nodes: Sequence[GridNode]) -> Topology | None:
    if name.startswith("2nn"):
        return ring(len(nodes))
    if name.startswith("can"):
        return similar_capability(nodes)
    return None


@attrs.frozen(slots=True)
class Run:
    """One simulation of the sweep (picklable, for `parallel_map`).

    Attributes
    ----------
    scheduler
        One of [`SCHEDULERS`][schedlib.experiments.preemptive.SCHEDULERS].
    nodes, jobs
        Grid and workload sizes.
    iat, delta, alpha, beta
        Mean inter-arrival time, tick interval, priority weights.
    seed
        Random seed of the grid and the workload.
    accuracy
        Runtime accuracy (see [`make_jobs`][schedlib.experiments.preemptive.make_jobs]).
    overhead
        Preemption overhead in seconds.
    """

    scheduler: str
    nodes: int
    jobs: int
    iat: float
    delta: float
    alpha: float
    beta: float = 1.0
    seed: int = 0
    accuracy: float = 1.0
    overhead: float = 0.0


def waits(record: RunRecord) -> tuple[list[float], list[float]]:
    """Per completed job: non-executing time since submission, and since reaching its last node.

    Returns
    -------
    tuple of lists
        `(wait, node_wait)` in workload order (see the module notes).
    """
    arrived: dict[int, int] = {}
    for n, e in enumerate(record.events):
        if e.kind in (EventKind.ASSIGN, EventKind.MIGRATE):
            arrived[e.job] = n
    since_arrival = RunRecord.from_log(
        record.algorithm,
        record.workload,
        [e for n, e in enumerate(record.events) if n >= arrived.get(e.job, 0)],
        capacity=record.capacity,
    )
    total, local = [], []
    for o, o_node in zip(record.outcomes, since_arrival.outcomes, strict=True):
        if o.state is None or o.state.value != "completed" or o.end is None:
            continue
        total.append(o.end - o.submit - o.executed)
        reached = record.events[arrived[o.job]].time if o.job in arrived else o.submit
        local.append(o.end - reached - o_node.executed)
    return total, local


def _tail(values: Sequence[float]) -> float:
    data = sorted(values)
    if not data:
        return float("nan")
    count = max(1, -(-len(data) // 10))
    return percentile(data[-count:], 50)


def run_one(run: Run) -> tuple[dict[str, Any], list[float]]:
    """Simulate one configuration; return its result row and every job's wait.

    Parameters
    ----------
    run
        The configuration.

    Returns
    -------
    tuple
        The row (flat dict) and the waits (for the CDF plot).
    """
    nodes = make_nodes(run.nodes, seed=run.seed)
    jobs = make_jobs(run.jobs, run.iat, seed=run.seed, accuracy=run.accuracy)
    base = run.scheduler.removesuffix("+balance")
    record = simulate_grid(
        jobs,
        nodes,
        policy="fcfs" if base == "fcfs" else "preemptive",
        topology=_topology(base, nodes),
        alpha=run.alpha,
        beta=run.beta,
        delta=run.delta,
        overhead=run.overhead,
        balance=run.scheduler.endswith("+balance"),
        algorithm=run.scheduler,
    )
    wait, node_wait = waits(record)
    outcomes = record.outcomes
    row = {
        "scheduler": LABELS[run.scheduler],
        "iat": run.iat,
        "delta": run.delta,
        "alpha": run.alpha,
        "load": offered_load(jobs, nodes),
        "completed": len(wait),
        "unschedulable": sum(
            1 for o in outcomes if o.state is not None and o.state.value == "unschedulable"
        ),
        "median_wait": percentile(wait, 50),
        "mean_wait": sum(wait) / len(wait) if wait else float("nan"),
        "tail10_wait": _tail(wait),
        "median_node_wait": percentile(node_wait, 50),
        "mean_node_wait": sum(node_wait) / len(node_wait) if node_wait else float("nan"),
        "tail10_node_wait": _tail(node_wait),
        "preemptions": sum(o.preemptions for o in outcomes),
        "migrations": sum(o.migrations for o in outcomes),
    }
    return row, wait


def _runs(
    nodes: int,
    jobs: int,
    iats: Iterable[float],
    deltas: Iterable[float],
    alphas: Iterable[float],
    schedulers: Iterable[str],
    **common: Any,
) -> list[Run]:
    runs = []
    for scheduler in schedulers:
        for iat in iats:
            for delta in deltas:
                for alpha in alphas:
                    runs.append(Run(scheduler, nodes, jobs, iat, delta, alpha, **common))
    return runs


def _canonical(run: Run) -> Run:
    """FCFS ignores alpha and delta: one simulation serves every (delta, alpha)."""
    if run.scheduler == "fcfs":
        return attrs.evolve(run, delta=5.0, alpha=0.0)
    return run


def sweep(
    runs: Sequence[Run], *, workers: int | None = None
) -> list[tuple[dict[str, Any], list[float]]]:
    """Simulate `runs` (on `workers` processes), FCFS once per IAT; results in input order."""
    unique = list(dict.fromkeys(_canonical(r) for r in runs))
    done = dict(zip(unique, parallel_map(run_one, unique, workers=workers), strict=True))
    results = []
    for run in runs:
        row, wait = done[_canonical(run)]
        results.append(({**row, "delta": run.delta, "alpha": run.alpha}, wait))
    return results


def reproduce(
    *,
    nodes: int = 1000,
    jobs: int = 5000,
    iats: Sequence[float] = (1.5, 2.0, 2.5, 3.0, 4.0),
    deltas: Sequence[float] = (5.0,),
    alphas: Sequence[float] = (0.0, 0.5),
    schedulers: Sequence[str] = DEFAULT_SCHEDULERS,
    beta: float = 1.0,
    seed: int = 0,
    accuracy: float = 1.0,
    overhead: float = 0.0,
    workers: int | None = None,
) -> list[dict[str, Any]]:
    """The result table: one row per (scheduler, iat, delta, alpha).

    Parameters
    ----------
    nodes, jobs
        Grid and workload sizes.
    iats, deltas, alphas
        The values to sweep.
    schedulers
        Names from [`SCHEDULERS`][schedlib.experiments.preemptive.SCHEDULERS].
    beta, seed, accuracy, overhead
        Fixed parameters.
    workers
        Processes for [`parallel_map`][schedlib.execution.parallel.parallel_map].

    Returns
    -------
    list of dict
        Flat rows (see the module notes for the columns).

    Raises
    ------
    InvalidValueError
        For an unknown scheduler, an empty list or a bad value.
    """
    runs = _checked_runs(
        nodes, jobs, iats, deltas, alphas, schedulers, beta, seed, accuracy, overhead
    )
    return [row for row, _ in sweep(runs, workers=workers)]


def _checked_runs(
    nodes: int,
    jobs: int,
    iats: Sequence[float],
    deltas: Sequence[float],
    alphas: Sequence[float],
    schedulers: Sequence[str],
    beta: float,
    seed: int,
    accuracy: float,
    overhead: float,
) -> list[Run]:
    require(nodes, "nodes", at_least=1)
    require(jobs, "jobs", at_least=1)
    require(beta, "beta", at_least=0)
    require(accuracy, "accuracy", greater_than=0, at_most=1)
    require(overhead, "overhead", at_least=0)
    for name, values in (
        ("iat", iats),
        ("delta", deltas),
        ("alpha", alphas),
        ("schedulers", schedulers),
    ):
        if not values:
            raise InvalidValueError(name, tuple(values), "must not be empty")
    for iat in iats:
        require(iat, "iat", greater_than=0)
    for delta in deltas:
        require(delta, "delta", greater_than=0)
    for alpha in alphas:
        require(alpha, "alpha", at_least=0)
    for scheduler in schedulers:
        if scheduler not in SCHEDULERS:
            raise InvalidValueError(
                "scheduler", scheduler, f"must be one of {', '.join(SCHEDULERS)}"
            )
    return _runs(
        nodes,
        jobs,
        iats,
        deltas,
        alphas,
        schedulers,
        beta=beta,
        seed=seed,
        accuracy=accuracy,
        overhead=overhead,
    )


def plot(results: Sequence[tuple[dict[str, Any], list[float]]], path: str) -> None:
    """Draw the wait-time CDF of each scheduler, one panel per IAT (the paper's Figure 5).

    Uses the first (delta, alpha) of the sweep. As in the paper, the bottom
    of the curves (jobs that hardly waited) is cut: the y axis starts at the
    smallest fraction of jobs that waited under one minute.

    Raises
    ------
    SchedlibError
        If matplotlib is missing (the `plot` extra).
    """
    from schedlib.results.plotting import pyplot, save_figure

    plt = pyplot()
    first = results[0][0]
    chosen = [
        (row, w)
        for row, w in results
        if row["delta"] == first["delta"] and row["alpha"] == first["alpha"]
    ]
    iats = list(dict.fromkeys(row["iat"] for row, _ in chosen))
    columns = min(3, len(iats))
    rows = -(-len(iats) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(4.4 * columns, 3.4 * rows), squeeze=False)
    panels = [ax for line in axes for ax in line]
    for ax in panels[len(iats) :]:
        ax.set_visible(False)
    for ax, iat in zip(panels, iats, strict=False):
        floor = 1.0
        for row, w in chosen:
            if row["iat"] != iat or not w:
                continue
            data = sorted(w)
            ys = [(k + 1) / len(data) for k in range(len(data))]
            ax.step(data, ys, where="post", label=row["scheduler"])
            floor = min(floor, sum(1 for x in data if x < 60) / len(data))
        ax.set_ylim(max(0.0, floor - 0.02), 1.0)
        ax.set_title(f"inter-arrival {iat} s")
        ax.set_xlabel("wait time (s)")
        ax.grid(alpha=0.3)
    for line in axes:
        line[0].set_ylabel("fraction of jobs")
    panels[len(iats) - 1].legend(loc="lower right", fontsize="small")
    fig.suptitle(f"Wait-time CDF (delta = {first['delta']} s, alpha = {first['alpha']})")
    fig.tight_layout()
    save_figure(fig, path, dpi=120)


def _numbers(text: str, name: str) -> list[float]:
    try:
        return [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise InvalidValueError(name, text, "must be a comma-separated list of numbers") from None


NOISE_PERCENT = 1.0
"""Two schedulers' mean waits closer than this (in percent) are a tie: one seed per point."""


def _compare(mine: float, theirs: float) -> int:
    """-1 if `mine` is clearly lower than `theirs`, +1 if clearly higher, 0 within the noise."""
    scale = max(abs(theirs), 1e-9)
    if (theirs - mine) / scale * 100 > NOISE_PERCENT:
        return -1
    if (mine - theirs) / scale * 100 > NOISE_PERCENT:
        return 1
    return 0


def _lower_everywhere(comparisons: Sequence[int]) -> bool | str | None:
    """`True` if clearly lower at every point, `False` if clearly higher at one, else unclear."""
    if not comparisons:
        return None
    if any(c > 0 for c in comparisons):
        return False
    return True if all(c < 0 for c in comparisons) else "unclear"


def claims(rows: Sequence[dict[str, Any]]) -> list[dict[str, str]]:
    """The paper's findings (§6.2, §7), each checked on the rows of a run.

    Compared at the smallest scheduling interval present; a difference below
    [`NOISE_PERCENT`][schedlib.experiments.preemptive.NOISE_PERCENT] counts as a tie
    (verdict `unclear` when ties are all that separates the schedulers).

    Examples
    --------
    >>> rows = reproduce(nodes=8, jobs=30, iats=(2.0,), alphas=(0.0,), schedulers=("fcfs", "local"),
    ...                  workers=1)
    >>> [c["verdict"] for c in claims(rows)][-1]
    'not run'
    """
    delta = min(distinct(rows, "delta"), default=None)
    iats = sorted(distinct(rows, "iat"))
    at: dict[tuple[str, float, float], dict[str, Any]] = {
        (r["scheduler"], r["iat"], r["alpha"]): r for r in rows if r["delta"] == delta
    }
    fcfs, local = LABELS["fcfs"], LABELS["local"]
    internode = [LABELS[s] for s in ("2nn", "can") if any(k[0] == LABELS[s] for k in at)]

    def series(scheduler: str, field: str, alpha: float = 0.0) -> list[float] | None:
        found = [at.get((scheduler, iat, alpha)) for iat in iats]
        return None if not iats or None in found else [r[field] for r in found]  # type: ignore[index]

    def shown(numbers: Sequence[float], spec: str = ".0f") -> str:
        return ", ".join(format(x, spec) for x in numbers)

    out = []
    f_med, l_med = series(fcfs, "median_wait"), series(local, "median_wait")
    out.append(
        claim(
            "preemptive scheduling beats FCFS+backfilling on median wait at every load (Fig. 3)",
            f"median wait, alpha 0, IAT {shown(iats, 'g')} s: local {shown(l_med or [])} "
            f"vs FCFS {shown(f_med or [])} s",
            None
            if f_med is None or l_med is None
            else all(m < f if f > 0 else m == 0 for m, f in zip(l_med, f_med, strict=True)),
        )
    )
    l_mean = series(local, "mean_wait")
    others = {name: series(name, "mean_wait") for name in internode}
    known_others = {k: v for k, v in others.items() if v is not None}
    out.append(
        claim(
            "internode migration beats local scheduling on mean wait (Fig. 3)",
            f"mean wait, alpha 0: local {shown(l_mean or [])}; "
            + "; ".join(f"{k} {shown(v)}" for k, v in known_others.items())
            + " s",
            None
            if l_mean is None or not known_others
            else _lower_everywhere(
                [
                    _compare(x, y)
                    for v in known_others.values()
                    for x, y in zip(v, l_mean, strict=True)
                ]
            ),
        )
    )
    f_mean = series(fcfs, "mean_wait")
    out.append(
        claim(
            "FCFS+backfilling waits decrease as the inter-arrival time grows (Fig. 5)",
            f"FCFS mean wait {shown(f_mean or [])} s",
            None
            if f_mean is None or len(f_mean) < 2
            else all(a > b for a, b in itertools.pairwise(f_mean)),
        )
    )
    loaded = sorted({r["iat"] for r in rows if r["delta"] == delta and r["load"] > 1})
    pairs = [
        (at[local, i, 0.0], at[local, i, 0.5])
        for i in loaded
        if (local, i, 0.0) in at and (local, i, 0.5) in at
    ]
    out.append(
        claim(
            "alpha = 0.5 lowers the wait of the longest-waiting jobs at the cost of the "
            "median, under load (Fig. 4)",
            "local, alpha 0 -> 0.5, top-10 % median: "
            + ", ".join(f"{a['tail10_wait']:.0f} -> {b['tail10_wait']:.0f}" for a, b in pairs)
            + "; median: "
            + ", ".join(f"{a['median_wait']:.0f} -> {b['median_wait']:.0f}" for a, b in pairs)
            + f" s (IAT {shown(loaded, 'g')}, load > 1)",
            all(
                b["tail10_wait"] < a["tail10_wait"] and b["median_wait"] >= a["median_wait"]
                for a, b in pairs
            )
            if pairs
            else None,
        )
    )
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `schedlib reproduce preemptive` (the CLI adds `--format`)."""
    parser.add_argument("--nodes", type=int, default=1000, help="grid nodes (default: 1000)")
    parser.add_argument("--jobs", type=int, default=5000, help="jobs (default: 5000)")
    parser.add_argument(
        "--iat",
        default="1.5,2.0,2.5,3.0,4.0",
        help="mean inter-arrival times in s, comma-separated (default: 1.5,2.0,2.5,3.0,4.0)",
    )
    parser.add_argument("--delta", default="5", help="scheduling intervals in s (default: 5)")
    parser.add_argument("--alpha", default="0,0.5", help="wait weights (default: 0,0.5)")
    parser.add_argument(
        "--beta", type=float, default=1.0, help="remaining-time weight (default: 1)"
    )
    parser.add_argument(
        "--schedulers",
        default=",".join(DEFAULT_SCHEDULERS),
        help=f"comma-separated, from {', '.join(SCHEDULERS)} "
        f"(default: {','.join(DEFAULT_SCHEDULERS)})",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    parser.add_argument(
        "--accuracy",
        type=float,
        default=1.0,
        help="actual runtime in [accuracy*estimate, estimate] (default: 1)",
    )
    parser.add_argument(
        "--overhead",
        type=float,
        default=0.0,
        help="seconds charged at each resume after a preemption (default: 0)",
    )
    parser.add_argument("--workers", type=int, default=None, help="processes (default: every CPU)")
    parser.add_argument("--plot", metavar="FILE", help="also draw the wait-time CDF to FILE")
    add_claims_argument(parser)
    add_quick_argument(
        parser,
        {"nodes": 200, "jobs": 1000, "iat": "7.5,12.5,20"},  # the loads of 1.5, 2.5, 4.0
        full_time="6 minutes",
        quick_time="5 s",
    )


def _results(args: argparse.Namespace) -> list[tuple[dict[str, Any], Any]]:
    schedulers = [s.strip() for s in args.schedulers.split(",") if s.strip()]
    runs = _checked_runs(
        args.nodes,
        args.jobs,
        _numbers(args.iat, "iat"),
        _numbers(args.delta, "delta"),
        _numbers(args.alpha, "alpha"),
        schedulers,
        args.beta,
        args.seed,
        args.accuracy,
        args.overhead,
    )
    if args.workers is not None:
        require(args.workers, "workers", at_least=1)
    return sweep(runs, workers=args.workers)


def data(args: argparse.Namespace) -> str:
    """The data of a run: the synthetic grid and jobs, and the seed."""
    return f"synthetic: {args.nodes} nodes, {args.jobs} jobs per IAT; seed {args.seed}"


def rows(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The reproduction's rows for parsed options (no printing, no plot)."""
    return [row for row, _ in _results(args)]


def main(args: argparse.Namespace) -> int:
    """Run the sweep and print one row per (scheduler, iat, delta, alpha)."""
    note = apply_quick(args)
    check_plot_target(args.plot)
    results = _results(args)
    if args.plot:
        plot(results, args.plot)
    table = [row for row, _ in results]
    print_note(note, args.format)
    print_results(table, claims(table), args, name=NAME)
    return 0
