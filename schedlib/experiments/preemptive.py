r"""Reproduction of Balasubramanian et al. (JSSPP 2013) §6: preemptive and internode scheduling.

A grid of 1000 multi-core nodes receives 5000 jobs with Poisson arrivals;
four schedulers are compared at several mean inter-arrival times (IAT),
scheduling intervals $\delta$ and wait weights $\alpha$ (§6.1-6.2):

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
                              [--victims lower|equal] [--side delta,alpha1,alpha2,victims]
                              [--replicates 8] [--seed 0] [--workers W] [--accuracy 1.0]
                              [--overhead 0] [--claims] [--quick]
                              [--format table|json|csv] [--plot out.png]
```

**The design.** The *main grid* runs every scheduler at every IAT, $\alpha$
and $\delta$ given. Three *side studies* add what the paper's other findings
need (`--side`, all four by default): `delta` runs the preemptive schedulers
again with $\delta = 2.5$ s at $\alpha = 0$; `alpha1` runs local preemption with
$\alpha = 1$ at every IAT and `alpha2` with $\alpha = 2$ at the largest IAT only
(with $\alpha > \beta$ jobs take each other's cores at every tick: a full-size run at
IAT 2.0 preempts hundreds of times per job and takes minutes); `victims` runs local
preemption at $\alpha = 0$ under the other reading of the victims
([`VICTIM_READINGS`][schedlib.preemption.decision.VICTIM_READINGS]). Each
configuration runs once per replicate $r = 0 \dots R-1$: the grid and the jobs
of replicate $r$ are drawn from
[`stream`][schedlib.replicates.stream]`(seed, r, "nodes")` and
`stream(seed, r, "jobs")`, and every scheduler and IAT of a replicate sees the
same grid and the same jobs (gaps scaled): comparisons are paired per replicate.

**The setup** (§6.1 gives the shape, not the numbers; ours are stated here
and on the *Reproduction: preemptive* page). Resource kinds: cores, memory
(MB), disk (GB). Nodes: 1/2/4/8 cores with weights 40/30/20/10 %, memory
1-16 GB and disk 20-500 GB with weights 30/30/20/12/8 % (mostly small), speed
0.5/0.75/1/1.25/1.5 with weights 10/20/40/20/10 % (mean 1, the canonical
node). Jobs are "skewed the same way": 1/2/4/8 cores with weights
40/30/20/10 %, memory 0.5-8 GB and disk 10-250 GB with weights
30/30/20/12/8 %. Estimated runtime $U(0.5T, 1.5T)$ on the canonical node,
$T = 3600$ s; the actual runtime equals the estimate by default (the paper
gives one runtime only; `--accuracy a` draws it in $[a \cdot est, est]$).

**Metrics.** `wait` is a job's non-executing time from submission to
completion (turnaround minus time executing; it includes the waits after
preemptions). `node_wait` is the paper's definition (§3, §6.1): the
non-executing time after the job reached the node it finished on (time
before a migration is not counted); the claims use it. `tail10_*` is the
median over the 10 % longest-waiting jobs (the paper's Figure 4a), `top_*` the
mean over the 4 % longest-waiting jobs (200 of 5000: the paper's Figure 6 shows
"the last 100-200 jobs"), `load` the offered load
$\lambda \cdot E[\text{cores} \cdot \text{work}] / \sum \text{cores} \cdot \text{speed}$,
and `paper_iat` the IAT that gives the same load on the paper's 1000 nodes
($\text{IAT} \cdot n / 1000$), by which the claims name IATs.

References
----------
Balasubramanian, Sussman and Sadeh (2013), "Decentralized Preemptive Scheduling across
Heterogeneous Multi-core Grid Resources", JSSPP 2013, LNCS 8429: §6.1 (setup), §6.2
(Figures 3-6, preemption counts), §7.

Examples
--------
>>> nodes = make_nodes(4, seed=1)
>>> [n.cores for n in nodes]
[1, 1, 2, 4]
>>> rows = reproduce(nodes=8, jobs=20, iats=(2.0,), alphas=(0.0,), schedulers=("fcfs", "local"),
...                  side=(), replicates=1, workers=1)
>>> [(r["scheduler"], r["completed"], r["unschedulable"]) for r in rows]
[('FCFS+backfill', 18, 2), ('local preemptive', 18, 2)]
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs

from schedlib.errors import InvalidValueError
from schedlib.execution.parallel import parallel_map
from schedlib.experiments.claims import Claim
from schedlib.experiments.options import (
    add_claims_argument,
    add_quick_argument,
    apply_quick,
    check_plot_target,
    print_note,
    print_results,
)
from schedlib.experiments.pages import markdown_table
from schedlib.model import EventKind, RunRecord
from schedlib.preemption.decision import VICTIM_READINGS
from schedlib.preemption.grid import simulate_grid
from schedlib.preemption.resources import GridJob, GridNode
from schedlib.preemption.topology import Topology, ring, similar_capability
from schedlib.replicates import stream
from schedlib.results.metrics import percentile
from schedlib.results.verdicts import Estimate, Expect, MeanEstimate
from schedlib.validation import require

__all__ = [
    "JOB_CORES",
    "LABELS",
    "NAME",
    "NODE_CORES",
    "PAPER",
    "QUICK_DIFFERS",
    "SCHEDULERS",
    "SIDE_STUDIES",
    "SUMMARY",
    "Run",
    "add_arguments",
    "aggregate",
    "claims",
    "data",
    "figures",
    "main",
    "make_jobs",
    "make_nodes",
    "offered_load",
    "page_sections",
    "plot",
    "reproduce",
    "rows",
    "run_one",
    "sweep",
    "untestable",
    "victim_readings_differ",
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
PAPER_NODES = 1000
"""The paper's grid size: `paper_iat = iat * nodes / PAPER_NODES` (same offered load)."""
PAPER_IATS: tuple[float, ...] = (1.5, 2.0, 2.5, 3.0, 4.0)
"""The paper's mean inter-arrival times (§6.1)."""
TOP_SHARE = 0.04
"""The share of longest-waiting jobs whose mean wait is the `top_*` tail (200 of 5000, Fig. 6)."""
QUANTILES: tuple[float, ...] = tuple(q / 100 for q in range(40, 101))
"""The node-wait quantiles kept per row (40 % to 100 %: the paper's Figure 5 omits the
2000 of 5000 jobs that hardly wait)."""

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
SIDE_STUDIES: tuple[str, ...] = ("delta", "alpha1", "alpha2", "victims")
"""The side studies (`--side`): a second interval, alpha 1 at every IAT, alpha 2 at the
largest IAT, the other reading of the victims."""
REPLICATES = 8
"""Replicates of a full run: enough for the large effects to be decided under Holm's
correction over the claims, at about 9 minutes on 2 cores."""
SIDE_DELTA = 2.5
"""The second scheduling interval of §6.2."""
SIDE_ALPHAS = (1.0, 2.0)
"""The wait weights of "alpha set to 1 or higher" (§6.2); 2 runs at the largest IAT only."""

FCFS, LOCAL, NN, CAN = (LABELS[s] for s in ("fcfs", "local", "2nn", "can"))


def _draw(rng: random.Random, table: tuple[tuple[Any, ...], tuple[int, ...]]) -> Any:
    values, weights = table
    return rng.choices(values, weights)[0]


def make_nodes(count: int, *, seed: int = 0, replicate: int = 0) -> list[GridNode]:
    """The grid of one replicate: `count` nodes drawn from the setup's distributions.

    Parameters
    ----------
    count
        Number of nodes, `>= 1`.
    seed, replicate
        The run's seed and the replicate: the nodes come from
        [`stream`][schedlib.replicates.stream]`(seed, replicate, "nodes")`.

    Returns
    -------
    list of GridNode
        Ids `0..count-1`; capacity `(cores, memory MB, disk GB)`.

    Notes
    -----
    Complexity: $O(n)$. References: Balasubramanian et al. (2013) §6.1.
    """
    require(count, "nodes", at_least=1)
    rng = stream(seed, replicate, "nodes")
    return [
        GridNode(
            i,
            (_draw(rng, NODE_CORES), _draw(rng, NODE_MEMORY), _draw(rng, NODE_DISK)),
            _draw(rng, NODE_SPEED),
        )
        for i in range(count)
    ]


def make_jobs(
    count: int, iat: float, *, seed: int = 0, replicate: int = 0, accuracy: float = 1.0
) -> list[GridJob]:
    """The workload of one replicate: `count` jobs with Poisson arrivals of mean gap `iat`.

    Parameters
    ----------
    count
        Number of jobs, `>= 1`.
    iat
        Mean inter-arrival time in seconds, `> 0`.
    seed, replicate
        The run's seed and the replicate: the jobs' requirements, runtimes
        and (unit) gaps come from [`stream`][schedlib.replicates.stream]`(seed,
        replicate, "jobs")` only, so every `iat` sees the same jobs.
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
    >>> make_jobs(3, 1.0, replicate=1)[0] == a[0]
    False
    """
    require(count, "jobs", at_least=1)
    require(iat, "iat", greater_than=0)
    require(accuracy, "accuracy", greater_than=0, at_most=1)
    rng = stream(seed, replicate, "jobs")
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
    victims
        The reading of the victims (`"lower"` or `"equal"`).
    seed, replicate
        The run's seed and the replicate (they choose the grid and the jobs).
    accuracy
        Runtime accuracy (see [`make_jobs`][schedlib.experiments.preemptive.make_jobs]).
    overhead
        Preemption overhead in seconds.
    study
        Which part of the design asked for it: `main` or a side study.
    """

    scheduler: str
    nodes: int
    jobs: int
    iat: float
    delta: float
    alpha: float
    beta: float = 1.0
    victims: str = "lower"
    seed: int = 0
    replicate: int = 0
    accuracy: float = 1.0
    overhead: float = 0.0
    study: str = attrs.field(default="main", eq=False)


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


def _tail10(values: Sequence[float]) -> float:
    """Median of the 10 % longest waits (Figure 4a)."""
    data = sorted(values)
    if not data:
        return math.nan
    count = max(1, -(-len(data) // 10))
    return percentile(data[-count:], 50)


def _top(values: Sequence[float]) -> float:
    """Mean of the `TOP_SHARE` longest waits (Figure 6)."""
    data = sorted(values)
    if not data:
        return math.nan
    count = max(1, round(TOP_SHARE * len(data)))
    return math.fsum(data[-count:]) / count


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values) if values else math.nan


def _policy(run: Run) -> str:
    if run.scheduler == "fcfs":
        return "fcfs"
    return "preemptive" if run.victims == "lower" else "preemptive-equal"


def run_one(run: Run) -> dict[str, Any]:
    """Simulate one configuration of one replicate; return its result row.

    Parameters
    ----------
    run
        The configuration.

    Returns
    -------
    dict
        The row (see the module notes for the columns); in replicate 0,
        `node_wait_quantiles` holds the node wait at each of
        [`QUANTILES`][schedlib.experiments.preemptive.QUANTILES] (for the CDF
        figure; `None` in the other replicates, to keep the stored results small).
    """
    nodes = make_nodes(run.nodes, seed=run.seed, replicate=run.replicate)
    jobs = make_jobs(
        run.jobs, run.iat, seed=run.seed, replicate=run.replicate, accuracy=run.accuracy
    )
    base = run.scheduler.removesuffix("+balance")
    record = simulate_grid(
        jobs,
        nodes,
        policy=_policy(run),
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
    return {
        "scheduler": LABELS[run.scheduler],
        "study": run.study,
        "replicate": run.replicate,
        "seed": run.seed,
        "nodes": run.nodes,
        "jobs": run.jobs,
        "iat": run.iat,
        "paper_iat": run.iat * run.nodes / PAPER_NODES,
        "delta": run.delta,
        "alpha": run.alpha,
        "victims": run.victims,
        "load": offered_load(jobs, nodes),
        "completed": len(wait),
        "unschedulable": sum(
            1 for o in outcomes if o.state is not None and o.state.value == "unschedulable"
        ),
        "median_wait": percentile(wait, 50),
        "mean_wait": _mean(wait),
        "tail10_wait": _tail10(wait),
        "top_wait": _top(wait),
        "median_node_wait": percentile(node_wait, 50),
        "mean_node_wait": _mean(node_wait),
        "tail10_node_wait": _tail10(node_wait),
        "top_node_wait": _top(node_wait),
        "preemptions": sum(o.preemptions for o in outcomes),
        "migrations": sum(o.migrations for o in outcomes),
        "node_wait_quantiles": (
            [round(percentile(node_wait, 100 * q), 1) for q in QUANTILES]
            if run.replicate == 0
            else None
        ),
    }


def _canonical(run: Run) -> Run:
    """FCFS ignores alpha, delta and the victims: one simulation serves them all."""
    if run.scheduler == "fcfs":
        return attrs.evolve(run, delta=5.0, alpha=0.0, victims="lower")
    return run


def sweep(runs: Sequence[Run], *, workers: int | None = None) -> list[dict[str, Any]]:
    """Simulate `runs` (on `workers` processes), FCFS once per IAT and replicate; rows in
    input order, a configuration asked twice given once."""
    wanted = list(dict.fromkeys(runs))
    unique = list(dict.fromkeys(_canonical(r) for r in wanted))
    done = dict(zip(unique, parallel_map(run_one, unique, workers=workers), strict=True))
    out = []
    for run in wanted:
        row = done[_canonical(run)]
        out.append(
            {
                **row,
                "study": run.study,
                "delta": run.delta,
                "alpha": run.alpha,
                "victims": run.victims,
            }
        )
    return out


def design(
    *,
    nodes: int = 1000,
    jobs: int = 5000,
    iats: Sequence[float] = PAPER_IATS,
    deltas: Sequence[float] = (5.0,),
    alphas: Sequence[float] = (0.0, 0.5),
    schedulers: Sequence[str] = DEFAULT_SCHEDULERS,
    victims: str = "lower",
    side: Sequence[str] = SIDE_STUDIES,
    replicates: int = REPLICATES,
    seed: int = 0,
    beta: float = 1.0,
    accuracy: float = 1.0,
    overhead: float = 0.0,
) -> list[Run]:
    """Every simulation of a run: the main grid and the side studies, for each replicate.

    Parameters
    ----------
    nodes, jobs
        Grid and workload sizes.
    iats, deltas, alphas, schedulers
        The main grid (every combination).
    victims
        The reading of the victims in the main grid.
    side
        The side studies to add ([`SIDE_STUDIES`][schedlib.experiments.preemptive.SIDE_STUDIES]).
    replicates, seed
        Replicates `0..replicates-1` of `seed`.
    beta, accuracy, overhead
        Fixed parameters.

    Raises
    ------
    InvalidValueError
        For an unknown scheduler, side study or reading, an empty list or a bad value.
    """
    require(nodes, "nodes", at_least=1)
    require(jobs, "jobs", at_least=1)
    require(beta, "beta", at_least=0)
    require(accuracy, "accuracy", greater_than=0, at_most=1)
    require(overhead, "overhead", at_least=0)
    require(replicates, "replicates", at_least=1)
    require(seed, "seed", at_least=0)
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
    for study in side:
        if study not in SIDE_STUDIES:
            raise InvalidValueError("side", study, f"must be one of {', '.join(SIDE_STUDIES)}")
    if victims not in VICTIM_READINGS:
        raise InvalidValueError("victims", victims, f"must be one of {', '.join(VICTIM_READINGS)}")
    common = {"beta": beta, "accuracy": accuracy, "overhead": overhead, "seed": seed}

    def runs(study: str, scheduler: str, iat: float, delta: float, alpha: float, reading: str):  # type: ignore[no-untyped-def]
        return [
            Run(scheduler, nodes, jobs, iat, delta, alpha, victims=reading, replicate=r,
                study=study, **common)  # type: ignore[arg-type]
            for r in range(replicates)
        ]  # fmt: skip

    out: list[Run] = []
    for scheduler, iat, delta, alpha in itertools.product(schedulers, iats, deltas, alphas):
        out += runs("main", scheduler, iat, delta, alpha, victims)
    preemptive = [s for s in schedulers if s != "fcfs"]
    if "delta" in side:
        for scheduler, iat in itertools.product(preemptive, iats):
            out += runs("delta", scheduler, iat, SIDE_DELTA, 0.0, victims)
    if "local" in schedulers and "alpha1" in side:
        for iat in iats:
            out += runs("alpha", "local", iat, deltas[0], SIDE_ALPHAS[0], victims)
    if "local" in schedulers and "alpha2" in side:
        out += runs("alpha", "local", max(iats), deltas[0], SIDE_ALPHAS[1], victims)
    if "local" in schedulers and "victims" in side:
        other = next(v for v in VICTIM_READINGS if v != victims)
        for iat in iats:
            out += runs("victims", "local", iat, deltas[0], 0.0, other)
    return list(dict.fromkeys(out))


def reproduce(*, workers: int | None = None, **options: Any) -> list[dict[str, Any]]:
    """The result rows of a design: one per (configuration, replicate).

    Parameters
    ----------
    workers
        Processes for [`parallel_map`][schedlib.execution.parallel.parallel_map].
    **options
        The keyword options of [`design`][schedlib.experiments.preemptive.design]
        (the paper's setting by default): `nodes`, `jobs`, `iats`, `deltas`,
        `alphas`, `schedulers` (the main grid), `victims`, `side`,
        `replicates`, `seed`, `beta`, `accuracy`, `overhead`.

    Returns
    -------
    list of dict
        Flat rows (see the module notes for the columns).

    Raises
    ------
    InvalidValueError
        For an unknown scheduler, an empty list or a bad value.
    TypeError
        For an unknown option.
    """
    return sweep(design(**options), workers=workers)


# -- aggregates ------------------------------------------------------------------------------

_CONFIG = ("study", "scheduler", "paper_iat", "iat", "delta", "alpha", "victims")
_NUMBERS = (
    "load",
    "completed",
    "unschedulable",
    "median_wait",
    "mean_wait",
    "tail10_wait",
    "top_wait",
    "median_node_wait",
    "mean_node_wait",
    "tail10_node_wait",
    "top_node_wait",
    "preemptions",
    "migrations",
)


def aggregate(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per configuration: the mean over its replicates of every number.

    Examples
    --------
    >>> rows = [{"study": "main", "scheduler": "x", "paper_iat": 2.0, "iat": 2.0, "delta": 5,
    ...          "alpha": 0, "victims": "lower", "replicate": r, "load": 1.0 + r,
    ...          "preemptions": 2 * r} for r in range(2)]
    >>> [(a["replicates"], a["load"], a["preemptions"]) for a in aggregate(rows)]
    [(2, 1.5, 1.0)]
    """
    groups: dict[tuple[Any, ...], list[Mapping[str, Any]]] = {}
    for row in rows:
        groups.setdefault(tuple(row.get(k) for k in _CONFIG), []).append(row)
    out = []
    for key, members in groups.items():
        mean: dict[str, Any] = dict(zip(_CONFIG, key, strict=True))
        mean["replicates"] = len(members)
        for field in _NUMBERS:
            found = [m[field] for m in members if m.get(field) is not None]
            mean[field] = _mean(found) if found else None
        out.append(mean)
    return out


# -- claims ----------------------------------------------------------------------------------

Index = dict[tuple[str, float, float, float], dict[int, Mapping[str, Any]]]
"""(scheduler, paper IAT, delta, alpha) -> replicate -> row."""
Config = tuple[str, float, float]
"""A configuration the claims compare: (scheduler label, delta, alpha)."""
SHORT = {FCFS: "FCFS", LOCAL: "local", NN: "2-NN", CAN: "CAN'"}


def _index(rows: Iterable[Mapping[str, Any]]) -> Index:
    out: Index = {}
    for row in rows:
        if row.get("study") == "victims":
            continue
        key = (row["scheduler"], round(row["paper_iat"], 6), row["delta"], row["alpha"])
        out.setdefault(key, {})[row["replicate"]] = row
    return out


def _rel(a: float, b: float) -> float:
    """`a` against `b` in percent of the larger (of `b` when `a < b`); 0 when both are 0.

    Examples
    --------
    >>> _rel(50.0, 100.0), _rel(100.0, 50.0), _rel(0.0, 0.0)
    (-50.0, 50.0, 0.0)
    """
    top = max(abs(a), abs(b))
    return 0.0 if top == 0 else 100.0 * (a - b) / top


def _zero_rule(field: str) -> bool:
    """Whether a comparison of `field` says nothing when both values are 0 (a median)."""
    return field.startswith(("median", "tail10"))


@attrs.frozen
class _Pair:
    """`a` against `b` on one field, at one IAT (`b` at `iat_b` if given)."""

    iat: float
    a: Config
    b: Config
    field: str
    iat_b: float | None = None

    def names(self) -> tuple[str, str]:
        if self.iat_b is not None:
            return (f"IAT {self.iat:g}", f"IAT {self.iat_b:g}")
        parts: list[list[str]] = [[], []]
        for k, (x, y) in enumerate(zip(self.a, self.b, strict=True)):
            if x != y or (k == 0 and self.a == self.b):
                shown = [SHORT.get(str(x), str(x)), SHORT.get(str(y), str(y))]
                if k == 1:
                    shown = [f"delta {x:g}", f"delta {y:g}"]
                elif k == 2:
                    shown = [f"alpha {x:g}", f"alpha {y:g}"]
                parts[0].append(shown[0])
                parts[1].append(shown[1])
        if self.a[0] == self.b[0] and self.a != self.b:
            parts[0].insert(0, SHORT.get(self.a[0], self.a[0]))
        return (" ".join(parts[0]), " ".join(parts[1]))


def _values(index: Index, iat: float, config: Config, field: str) -> dict[int, float]:
    found = index.get((config[0], round(iat, 6), config[1], config[2]), {})
    return {r: row[field] for r, row in found.items() if row.get(field) is not None}


def _fmt(x: float) -> str:
    return f"{x:.3g}" if abs(x) < 1000 else f"{x:.0f}"


@attrs.frozen
class _Compared:
    """The pairs a claim compares, with their values in the replicates common to all.

    A median pair whose two values are both 0 in a replicate says nothing there
    (more than half the jobs never waited under either): it is left out of that
    replicate. An IAT whose every pair is so in every replicate is *untestable*.
    """

    pairs: tuple[tuple[_Pair, dict[int, float], dict[int, float]], ...]
    replicates: tuple[int, ...]
    untestable: tuple[float, ...]
    dropped: int

    def at(self, r: int) -> list[tuple[_Pair, float, float]]:
        return [
            (p, a[r], b[r])
            for p, a, b in self.pairs
            if not (_zero_rule(p.field) and a[r] == 0 and b[r] == 0)
        ]

    def estimate(
        self,
        statistic: Callable[[Sequence[float]], float],
        per_pair: Callable[[float, float], float] = _rel,
        unit: str = "%",
    ) -> Estimate | None:
        """Per replicate, `statistic` of `per_pair(a, b)` over its testable pairs."""
        values = []
        for r in self.replicates:
            found = [per_pair(a, b) for _, a, b in self.at(r)]
            if found:
                values.append(statistic(found))
        return MeanEstimate(tuple(values), unit=unit) if values else None

    def shown(self) -> str:
        parts = []
        several = len({p.field for p, _, _ in self.pairs}) > 1
        for p, a, b in self.pairs:
            name_a, name_b = p.names()
            mean_a = _mean([a[r] for r in self.replicates])
            mean_b = _mean([b[r] for r in self.replicates])
            where = "" if p.iat_b is not None else f"IAT {p.iat:g}: "
            field = f"{p.field.split('_')[0]} " if several else ""
            parts.append(f"{where}{field}{name_a} {_fmt(mean_a)} vs {name_b} {_fmt(mean_b)}")
        if parts:
            parts[-1] += " (means over replicates)"
        if self.untestable:
            where = ", ".join(f"{i:g}" for i in self.untestable)
            parts.append(f"untestable at IAT {where} (medians 0 in every replicate)")
        if self.dropped:
            parts.append(f"{self.dropped} comparisons of two zero medians left out")
        return "; ".join(parts)


def _compare(index: Index, pairs: Sequence[_Pair]) -> _Compared:
    """Collect each pair's values in the replicates every pair has."""
    found = []
    for p in pairs:
        a = _values(index, p.iat, p.a, p.field)
        b = _values(index, p.iat if p.iat_b is None else p.iat_b, p.b, p.field)
        if a and b:
            found.append((p, a, b))
    common = sorted(set.intersection(*(set(a) & set(b) for _, a, b in found))) if found else []
    silent = {
        id(p)
        for p, a, b in found
        if _zero_rule(p.field) and all(a[r] == 0 and b[r] == 0 for r in common)
    }
    kept = tuple((p, a, b) for p, a, b in found if id(p) not in silent)
    iats = {p.iat for p, _, _ in found}
    untestable = tuple(sorted(i for i in iats if all(p.iat != i for p, _, _ in kept)))
    dropped = sum(
        1 for p, a, b in kept for r in common if _zero_rule(p.field) and a[r] == 0 and b[r] == 0
    )
    return _Compared(kept, tuple(common), untestable, dropped)


def _data(rows: Sequence[Mapping[str, Any]], what: str) -> str:
    if not rows:
        return f"synthetic grid and jobs (§6.1); {what}"
    first = rows[0]
    replicates = len({r["replicate"] for r in rows})
    scale = "" if first["nodes"] == PAPER_NODES else " (IATs at the paper's scale)"
    return (
        f"synthetic, {first['nodes']} nodes × {first['jobs']} jobs, {replicates} replicates "
        f"of seed {first['seed']}{scale}; {what}"
    )


def _farthest(values: Sequence[float]) -> float:
    """The value farthest from 1 by ratio ($|\\ln x|$ largest; a 0 is the farthest).

    Examples
    --------
    >>> _farthest([0.5, 1.8]), _farthest([0.5, 2.2]), _farthest([0.0, 9.0])
    (0.5, 2.2, 0.0)
    """
    return max(values, key=lambda x: math.inf if x <= 0 else abs(math.log(x)))


def _ratio(a: float, b: float) -> float:
    """`a / b`, capped at 1000 (1000 when only `b` is 0, 1 when both are)."""
    if b == 0:
        return 1000.0 if a else 1.0
    return min(1000.0, a / b)


def _checked(rows: Sequence[Mapping[str, Any]]) -> list[tuple[Claim, tuple[float, ...]]]:
    """Every claim, with the IATs where it is untestable (see `claims`)."""
    index = _index(rows)
    used = [r for r in rows if r.get("study") != "victims"]
    iats = sorted({key[1] for key in index})
    preemptive = (LOCAL, NN, CAN)
    out: list[tuple[Claim, tuple[float, ...]]] = []

    def add(
        key: str,
        text: str,
        what: str,
        measure: str,
        expect: Expect,
        compared: _Compared | None,
        estimate: Estimate | None,
        ours: str | None = None,
        origin: str = "paper",
    ) -> None:
        shown = ours if ours is not None else (compared.shown() if compared else "")
        claim = Claim(key, text, _data(used, what), measure, expect, estimate, shown, origin)
        out.append((claim, compared.untestable if compared else ()))

    def over_iats(a: Config, b: Config, field: str, at: Iterable[float] = ()) -> list[_Pair]:
        return [_Pair(i, a, b, field) for i in (tuple(at) or iats)]

    # §6.1: steady state
    compared = _compare(index, over_iats((FCFS, 5.0, 0.0), (FCFS, 5.0, 0.0), "load"))
    loads = ", ".join(f"IAT {p.iat:g}: {_mean(list(a.values())):.2f}" for p, a, _ in compared.pairs)
    add(
        "steady-state",
        "the runs are in a steady state: job arrival and departure rates are similar, the "
        "system neither highly overloaded nor underutilized (§6.1)",
        "offered load at every IAT",
        "offered load (work arriving over capacity) at the IAT where it is farthest from 1, "
        "per replicate",
        Expect.between(0.8, 1.25),
        compared,
        compared.estimate(_farthest, lambda a, b: a, unit=""),
        f"offered load {loads}" if loads else "",
    )

    # Fig. 3 and §7 against FCFS
    compared = _compare(index, over_iats((LOCAL, 5.0, 0.0), (FCFS, 5.0, 0.0), "median_node_wait"))
    add(
        "local-beats-fcfs-median",
        "local preemptive scheduling gives significantly lower (median) wait times than FCFS "
        "with backfilling, for all inter-arrival times (§6.2, Fig. 3)",
        "delta 5 s, alpha 0, every IAT",
        "local minus FCFS median node wait, % of the larger, worst IAT per replicate",
        Expect.below(-10.0),
        compared,
        compared.estimate(max),
    )
    compared = _compare(
        index,
        [
            p
            for s in preemptive
            for p in over_iats((s, 5.0, 0.0), (FCFS, 5.0, 0.0), "mean_node_wait")
        ],
    )
    add(
        "preemptive-lower-mean-than-fcfs",
        "the preemptive algorithm yields lower average wait times than FCFS (§7)",
        "delta 5 s, alpha 0, every IAT; local, 2-NN and CAN'",
        "preemptive minus FCFS mean node wait, % of the larger, worst scheduler and IAT per "
        "replicate",
        Expect.below(0.0),
        compared,
        compared.estimate(max),
    )

    # Fig. 3: internode against local
    for key, field, words, origin in (
        ("internode-beats-local-median", "median_node_wait", "node wait (the paper's)", "paper"),
        ("internode-beats-local-median-total", "median_wait", "total wait", "ours"),
    ):
        compared = _compare(
            index,
            [p for s in (NN, CAN) for p in over_iats((s, 5.0, 0.0), (LOCAL, 5.0, 0.0), field)],
        )
        text = (
            "internode scheduling (2-NN and CAN') gives significantly lower median wait times "
            "than local preemptive scheduling (§6.2, Fig. 3)"
        )
        if origin == "ours":
            text += ", measured on the total wait (from submission, so including the time "
            text += "queued before a migration)"
        add(
            key,
            text,
            f"delta 5 s, alpha 0, every IAT; {words}",
            f"internode minus local median {words}, % of the larger, worst topology and IAT "
            "per replicate",
            Expect.below(-10.0),
            compared,
            compared.estimate(max),
            origin=origin,
        )

    # Fig. 3: the gap between CAN' and 2-NN grows with the IAT
    compared = _compare(index, over_iats((NN, 5.0, 0.0), (CAN, 5.0, 0.0), "median_node_wait"))
    gaps = []
    for r in compared.replicates:
        low = [_rel(a, b) for p, a, b in compared.at(r) if p.iat <= 2.0]
        high = [_rel(a, b) for p, a, b in compared.at(r) if p.iat > 2.0]
        if low and high:
            gaps.append(_mean(high) - _mean(low))
    add(
        "can-2nn-gap-grows",
        "the difference in wait times between CAN' and 2-NN is low at IAT 1.5 and 2.0 and "
        "increases with the inter-arrival time (§6.2, Fig. 3)",
        "delta 5 s, alpha 0, every IAT",
        "2-NN minus CAN' median node wait, % of the larger: mean over IAT > 2 minus mean over "
        "IAT <= 2, per replicate",
        Expect.above(0.0),
        compared,
        MeanEstimate(tuple(gaps), unit="points") if gaps else None,
    )

    # Fig. 4: alpha = 0.5 against 0
    for key, schedulers, text in (
        (
            "alpha-lowers-tail-can",
            (CAN,),
            "alpha = 0.5 lowers the wait times of the top 10 % of long-waiting jobs in CAN' "
            "(§6.2, Fig. 4a)",
        ),
        (
            "alpha-lowers-tail-local-2nn",
            (LOCAL, NN),
            "alpha = 0.5 also lowers the wait times of the top 10 % of long-waiting jobs in "
            '2-NN and local preemptive scheduling ("similar results", §6.2)',
        ),
    ):
        compared = _compare(
            index,
            [
                p
                for s in schedulers
                for p in over_iats((s, 5.0, 0.5), (s, 5.0, 0.0), "tail10_node_wait")
            ],
        )
        add(
            key,
            text,
            "delta 5 s, alpha 0.5 against 0, every IAT",
            "alpha 0.5 minus alpha 0, median node wait of the 10 % longest-waiting jobs, % of "
            "the larger, worst IAT per replicate",
            Expect.below(0.0),
            compared,
            compared.estimate(max),
        )
    compared = _compare(
        index,
        [
            p
            for s in preemptive
            for alpha in (0.5, *SIDE_ALPHAS)
            for p in over_iats((s, 5.0, 0.0), (s, 5.0, alpha), "median_node_wait")
        ],
    )
    add(
        "alpha0-lowest-median",
        "alpha = 0 yields the lowest median wait times across all jobs (§6.2, Fig. 4b, §7)",
        "delta 5 s; alpha 0 against 0.5 (local, 2-NN, CAN'), 1 and 2 (local)",
        "alpha 0 minus alpha > 0, median node wait, % of the larger, worst case per replicate",
        Expect.below(0.0),
        compared,
        compared.estimate(max),
    )

    # §6.2: preemptions
    jobs = next((r["jobs"] for r in used), 1)
    compared = _compare(
        index,
        [p for s in preemptive for p in over_iats((s, 5.0, 0.0), (s, 5.0, 0.0), "preemptions")],
    )
    counts = "; ".join(
        f"IAT {p.iat:g}: {SHORT[p.a[0]]} {_mean(list(a.values())):.0f}"
        for p, a, _ in compared.pairs
    )
    add(
        "preemptions-one-eighth",
        "the preemptions number about 1/8 of the jobs submitted: from 556 (IAT 1.5) to 471 "
        "(IAT 4) for local, 570 to 480 for internode scheduling, delta 5 s (§6.2)",
        "delta 5 s, alpha 0, every IAT; local, 2-NN and CAN'",
        "preemptions per job over 1/8, at the scheduler and IAT where it is farthest from 1, "
        "per replicate",
        Expect.between(1 / 1.5, 1.5),
        compared,
        compared.estimate(_farthest, lambda a, b: 8.0 * a / jobs, unit="× 1/8"),
        f"preemptions of {jobs} jobs: {counts}" if counts else "",
    )
    compared = _compare(
        index,
        [
            _Pair(b, (FCFS, 5.0, 0.0), (FCFS, 5.0, 0.0), "mean_node_wait", iat_b=a)
            for a, b in itertools.pairwise(iats)
        ],
    )
    add(
        "fcfs-waits-fall-with-iat",
        "with FCFS the waiting times decrease as the inter-arrival time grows (§6.2, Fig. 5)",
        "FCFS, every IAT",
        "FCFS mean node wait at an IAT minus at the IAT before, % of the larger, largest step "
        "per replicate",
        Expect.below(0.0),
        compared,
        compared.estimate(max),
    )

    # §6.2: delta = 2.5 s
    compared = _compare(
        index,
        [
            _Pair(i, (s, SIDE_DELTA, 0.0), (s, 5.0, 0.0), field)
            for s in preemptive
            for i in iats
            for field in ("median_node_wait", "mean_node_wait")
            if not (s == CAN and i == 4.0)
        ],
    )
    add(
        "delta-changes-little",
        "with delta = 2.5 s the improvements in median and average wait times are almost "
        "negligible, except for CAN' at IAT 4 (§6.2)",
        "alpha 0, delta 2.5 s against 5 s, every IAT; local, 2-NN, CAN'",
        "delta 2.5 s minus 5 s, median and mean node wait, % of the larger, largest absolute "
        "change per replicate",
        Expect.below(5.0),
        compared,
        compared.estimate(lambda xs: max(abs(x) for x in xs)),
    )
    compared = _compare(
        index, [_Pair(4.0, (CAN, SIDE_DELTA, 0.0), (CAN, 5.0, 0.0), "median_node_wait")]
    )
    add(
        "delta-halves-can-median",
        "with delta = 2.5 s CAN' at IAT 4 responds very well: almost 50 % decrease in median "
        "wait time (§6.2)",
        "CAN', IAT 4, alpha 0, delta 2.5 s against 5 s",
        "delta 2.5 s minus 5 s, median node wait, % of the larger, per replicate",
        Expect.between(-60.0, -40.0),
        compared,
        compared.estimate(max),
    )
    compared = _compare(
        index,
        [
            _Pair(i, (s, SIDE_DELTA, 0.0), (s, 5.0, 0.0), "preemptions")
            for s in preemptive
            for i in iats
        ],
    )
    add(
        "delta-preemptions-unchanged",
        "with delta = 2.5 s there are no significant differences in the numbers of "
        "preemptions (§6.2)",
        "alpha 0, delta 2.5 s against 5 s, every IAT; local, 2-NN, CAN'",
        "delta 2.5 s minus 5 s, preemptions, % of the larger, largest absolute change per "
        "replicate",
        Expect.below(5.0),
        compared,
        compared.estimate(lambda xs: max(abs(x) for x in xs)),
    )

    # Fig. 6: the tails
    for key, iat, text in (
        (
            "fig6a-local-best-tail",
            1.5,
            "at IAT 1.5 the local preemptive scheduler does better than internode scheduling "
            "on the longest waits (§6.2, Fig. 6a)",
        ),
        (
            "fig6b-local-best-tail",
            2.5,
            "at IAT 2.5 a similar trend: local does better than internode on the longest waits "
            "(§6.2, Fig. 6b)",
        ),
    ):
        compared = _compare(
            index,
            [_Pair(iat, (s, 5.0, 0.0), (LOCAL, 5.0, 0.0), "top_node_wait") for s in (NN, CAN)],
        )
        add(
            key,
            text,
            f"IAT {iat:g}, delta 5 s, alpha 0",
            "internode minus local, mean node wait of the 4 % longest-waiting jobs, % of the "
            "larger, smallest over 2-NN and CAN' per replicate",
            Expect.above(0.0),
            compared,
            compared.estimate(min),
        )
    compared = _compare(
        index,
        [_Pair(4.0, (NN, 5.0, 0.0), (s, 5.0, 0.0), "top_node_wait") for s in (LOCAL, CAN)],
    )
    add(
        "fig6c-2nn-best-tail",
        "at IAT 4 internode 2-NN does better than both local preemptive and internode CAN' on "
        "the longest waits (§6.2, Fig. 6c)",
        "IAT 4, delta 5 s, alpha 0",
        "2-NN minus the other, mean node wait of the 4 % longest-waiting jobs, % of the larger, "
        "largest over local and CAN' per replicate",
        Expect.below(0.0),
        compared,
        compared.estimate(max),
    )

    # §6.2: alpha >= 1
    raised = [(LOCAL, 5.0, alpha) for alpha in SIDE_ALPHAS]
    compared = _compare(
        index, [p for c in raised for p in over_iats(c, (LOCAL, 5.0, 0.0), "preemptions")]
    )
    add(
        "alpha-ge-1-more-preemptions",
        "the number of preemptions increases considerably when alpha is set to 1 or higher (§6.2)",
        "local, delta 5 s; alpha 1 at every IAT, 2 at the largest, against 0",
        "preemptions with alpha >= 1 over those with alpha 0, smallest ratio per replicate",
        Expect.above(2.0),
        compared,
        compared.estimate(min, _ratio, unit="×"),
    )
    compared = _compare(
        index,
        [
            p
            for c in raised
            for field in ("median_node_wait", "mean_node_wait")
            for p in over_iats(c, (LOCAL, 5.0, 0.0), field)
        ],
    )
    add(
        "alpha-ge-1-higher-waits",
        "alpha = 1 or higher results in high median and average wait times (§6.2)",
        "local, delta 5 s; alpha 1 at every IAT, 2 at the largest, against 0",
        "alpha >= 1 minus alpha 0, median and mean node wait, % of the larger, smallest per "
        "replicate",
        Expect.above(0.0),
        compared,
        compared.estimate(min),
    )
    return out


def claims(rows: Sequence[Mapping[str, Any]]) -> list[Claim]:
    """The paper's findings (§6.1, §6.2, §7), each checked on the rows of a run.

    Every estimate is paired per replicate (each replicate runs every
    scheduler on the same grid and jobs). Waits are the paper's *node wait*
    unless a claim says otherwise. A claim "at every IAT" takes, per
    replicate, the worst IAT (the largest difference where the claim expects
    a negative one). A comparison of two medians that are both 0 in a
    replicate says nothing there (more than half of the jobs never waited
    under either scheduler) and is left out of that replicate; an IAT where
    that holds in every replicate is *untestable* (said in the figures), and
    a claim with nothing left to test is `not run`. Margins come from the
    paper's words: "significant(ly)" lower is by more than 10 %; "almost
    negligible" and "no significant differences" are within 5 %;
    "approximately 1/8" is within a factor 1.5 of it (the paper's own
    counts, 471-570 of 5000, are within a factor 1.33; the estimate is the
    count at the IAT farthest from 1/8, so that both the size and the trend
    count); "increase
    considerably" is at least twice; "almost 50 %" is between 40 and 60 %;
    "steady state ... neither highly overloaded nor underutilized" is an
    offered load within a factor 1.25 of 1 (between 0.8 and 1.25) at every IAT.

    Examples
    --------
    >>> [c.estimate for c in claims([])][:2]
    [None, None]
    >>> len(claims([])) == len({c.key for c in claims([])})
    True
    """
    return [claim for claim, _ in _checked(rows)]


def untestable(rows: Sequence[Mapping[str, Any]]) -> dict[str, tuple[float, ...]]:
    """For each claim, the IATs where it compares medians that are 0 in every replicate.

    Examples
    --------
    >>> untestable([])["local-beats-fcfs-median"]
    ()
    """
    return {claim.key: where for claim, where in _checked(rows)}


# -- the readings of the victims --------------------------------------------------------------


def victim_readings_differ(count: int = 360, *, seed: int = 0) -> tuple[int, int]:
    """How many of `count` small integer-time grids run differently under the two readings.

    Each grid has 1-4 nodes of 1-4 cores and 1-4 units of memory, 4-12 jobs
    with integer submission times in 0..20 and runtimes (equal to the
    estimates) in 1..10, so that equal priorities are frequent; alpha 0,
    PUSH/PULL over a ring. Drawn from [`stream`][schedlib.replicates.stream]`(seed, k,
    "victim readings")`.

    Returns
    -------
    tuple of int
        `(runs whose logs differ, count)`.

    Examples
    --------
    >>> victim_readings_differ(5)
    (0, 5)
    """
    differ = 0
    for k in range(count):
        rng = stream(seed, k, "victim readings")
        nodes = [
            GridNode(i, (rng.randint(1, 4), rng.randint(1, 4))) for i in range(rng.randint(1, 4))
        ]
        jobs = []
        for j in range(rng.randint(4, 12)):
            host = rng.choice(nodes)
            runtime = rng.randint(1, 10)
            requirement = (rng.randint(1, host.cores), rng.randint(0, int(host.capacity[1])))
            jobs.append(GridJob(j, rng.randint(0, 20), requirement, runtime, runtime))
        logs = [
            simulate_grid(jobs, nodes, policy=policy, topology=ring(len(nodes))).events
            for policy in ("preemptive", "preemptive-equal")
        ]
        differ += logs[0] != logs[1]
    return differ, count


# -- the page --------------------------------------------------------------------------------


def _table(rows: Sequence[Mapping[str, Any]], columns: Sequence[tuple[str, str, str]]) -> str:
    shown = []
    for row in rows:
        cells = {}
        for field, title, spec in columns:
            value = row.get(field)
            cells[title] = "-" if value is None else format(value, spec) if spec else value
        shown.append(cells)
    return markdown_table(shown, [title for _, title, _ in columns])


_RESULT_COLUMNS = (
    ("scheduler", "scheduler", ""),
    ("paper_iat", "IAT (s)", ".1f"),
    ("load", "load", ".2f"),
    ("median_node_wait", "median node wait", ".0f"),
    ("median_wait", "median wait", ".0f"),
    ("mean_node_wait", "mean node wait", ".0f"),
    ("mean_wait", "mean wait", ".0f"),
    ("tail10_node_wait", "top-10 % median", ".0f"),
    ("top_node_wait", "top-4 % mean", ".0f"),
    ("preemptions", "preemptions", ".0f"),
    ("migrations", "migrations", ".0f"),
)


def _select(
    rows: Sequence[Mapping[str, Any]], *, study: str | None = None, **match: Any
) -> list[dict[str, Any]]:
    picked = [
        r
        for r in rows
        if (study is None or r.get("study") == study)
        and all(r.get(k) == v for k, v in match.items())
    ]
    return sorted(aggregate(picked), key=lambda r: (r["paper_iat"], _order(r["scheduler"])))


def _order(label: str) -> int:
    labels = list(LABELS.values())
    return labels.index(label) if label in labels else len(labels)


def page_sections(full: Mapping[str, Any], quick: Mapping[str, Any]) -> dict[str, str]:
    """The generated sections of `docs/reproductions/preemptive.md` (see
    [`schedlib.experiments.pages`][schedlib.experiments.pages])."""
    rows = full["rows"]
    main = [r for r in rows if r.get("study") == "main"]
    replicates = len({r["replicate"] for r in rows})
    first = rows[0] if rows else {}
    loads = _select(rows, study="main", scheduler=FCFS, delta=5.0, alpha=0.0)
    sections = {
        "full-size": f"{first.get('nodes')} nodes, {first.get('jobs')} jobs per IAT, "
        f"{replicates} replicates",
        "full-loads": _table(
            loads,
            (("paper_iat", "IAT (s)", ".1f"), ("load", "offered load (mean)", ".2f")),
        ),
        "full-unschedulable": _unschedulable(main),
        "full-alpha0": _table(
            _select(rows, study="main", delta=5.0, alpha=0.0, victims="lower"), _RESULT_COLUMNS
        ),
        "full-alpha05": _table(
            _select(rows, study="main", delta=5.0, alpha=0.5, victims="lower"), _RESULT_COLUMNS
        ),
        "full-delta": _delta_table(rows),
        "full-alpha-high": _table(
            sorted(
                [
                    *_select(rows, scheduler=LOCAL, delta=5.0, alpha=0.0, victims="lower"),
                    *_select(rows, study="alpha"),
                ],
                key=lambda r: (r["alpha"], r["paper_iat"]),
            ),
            (
                ("alpha", "alpha", "g"),
                ("paper_iat", "IAT (s)", ".1f"),
                ("median_node_wait", "median node wait", ".0f"),
                ("mean_node_wait", "mean node wait", ".0f"),
                ("preemptions", "preemptions", ".0f"),
            ),
        ),
        "full-victims": _victims_table(rows),
        "victims-small": "{} of {}".format(*victim_readings_differ()),
        "full-untestable": _untestable_text(full["claims"], rows),
    }
    return sections


def _unschedulable(rows: Sequence[Mapping[str, Any]]) -> str:
    """How many jobs no node can hold, per replicate (the same at every IAT)."""
    counts = sorted({r["unschedulable"] for r in rows})
    jobs = rows[0]["jobs"] if rows else 0
    if not counts:
        return "-"
    if len(counts) == 1:
        return f"{counts[0]} of {jobs} in every replicate"
    return f"{counts[0]} to {counts[-1]} of {jobs}, depending on the replicate"


def _delta_table(rows: Sequence[Mapping[str, Any]]) -> str:
    five = {
        (r["scheduler"], r["paper_iat"]): r
        for r in _select(rows, delta=5.0, alpha=0.0, victims="lower")
    }
    out = []
    for r in _select(rows, study="delta"):
        base = five.get((r["scheduler"], r["paper_iat"]))
        if base is None:
            continue
        out.append(
            {
                "scheduler": r["scheduler"],
                "paper_iat": r["paper_iat"],
                "median": f"{base['median_node_wait']:.0f} → {r['median_node_wait']:.0f}",
                "mean": f"{base['mean_node_wait']:.0f} → {r['mean_node_wait']:.0f}",
                "preemptions": f"{base['preemptions']:.0f} → {r['preemptions']:.0f}",
            }
        )
    return _table(
        out,
        (
            ("scheduler", "scheduler", ""),
            ("paper_iat", "IAT (s)", ".1f"),
            ("median", "median node wait, delta 5 → 2.5 s", ""),
            ("mean", "mean node wait", ""),
            ("preemptions", "preemptions", ""),
        ),
    )


def _victims_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """Local preemption at alpha 0 under both readings, and how many replicates agree exactly."""
    other = [r for r in rows if r.get("study") == "victims"]
    if not other:
        return "(not run)"
    reading = other[0]["victims"]
    main = {
        (r["paper_iat"], r["replicate"]): r
        for r in rows
        if r.get("study") == "main"
        and r["scheduler"] == LOCAL
        and r["delta"] == other[0]["delta"]
        and r["alpha"] == 0.0
        and r["victims"] != reading
    }
    out = []
    for iat in sorted({r["paper_iat"] for r in other}):
        pairs = [
            (main[iat, r["replicate"]], r)
            for r in other
            if r["paper_iat"] == iat and (iat, r["replicate"]) in main
        ]
        if not pairs:
            continue
        both = {
            field: " / ".join(f"{_mean([p[k][field] for p in pairs]):.0f}" for k in (0, 1))
            for field in ("median_node_wait", "mean_node_wait", "preemptions")
        }
        out.append(
            {
                "paper_iat": iat,
                "median": both["median_node_wait"],
                "mean": both["mean_node_wait"],
                "preemptions": both["preemptions"],
                "identical": f"{sum(_numbers_of(a) == _numbers_of(b) for a, b in pairs)} of "
                f"{len(pairs)}",
            }
        )
    first, second = ("lower", "equal") if reading == "equal" else ("equal", "lower")
    return _table(
        out,
        (
            ("paper_iat", "IAT (s)", ".1f"),
            ("median", f"median node wait, {first} / {second}", ""),
            ("mean", "mean node wait", ""),
            ("preemptions", "preemptions", ""),
            ("identical", "replicates with identical results", ""),
        ),
    )


def _numbers_of(row: Mapping[str, Any]) -> tuple[Any, ...]:
    return tuple(row.get(f) for f in (*_NUMBERS, "node_wait_quantiles"))


def _untestable_text(claim_rows: Sequence[Mapping[str, str]], rows: Sequence[Any]) -> str:
    found = untestable(rows)
    titles = {c["key"]: c["claim"] for c in claim_rows}
    lines = []
    for key, where in found.items():
        if where:
            verdict = next((c["verdict"] for c in claim_rows if c["key"] == key), "-")
            lines.append(
                f"- `{key}` ({titles.get(key, key)}): untestable at IAT "
                f"{', '.join(f'{w:g}' for w in where)}; verdict on the other IATs: {verdict}"
            )
    return "\n".join(lines) if lines else "(none)"


# -- figures ---------------------------------------------------------------------------------


def plot(rows: Sequence[Mapping[str, Any]], path: str) -> None:
    """Draw the tail of the node-wait CDF of each scheduler, one panel per IAT (Figure 5).

    Uses replicate 0 of the main grid at $\\delta = 5$ s, $\\alpha = 0$ (or
    the first $\\delta$, $\\alpha$ of the run). As in the paper, the 40 %
    of the jobs that wait least are cut.

    Raises
    ------
    SchedlibError
        If matplotlib is missing (the `plot` extra).
    """
    from schedlib.results.plotting import pyplot, save_figure

    plt = pyplot()
    main = [r for r in rows if r.get("study") == "main" and r.get("replicate") == 0]
    if not main:
        main = [r for r in rows if r.get("replicate") == 0]
    delta = 5.0 if any(r["delta"] == 5.0 for r in main) else main[0]["delta"]
    alpha = 0.0 if any(r["alpha"] == 0.0 for r in main) else main[0]["alpha"]
    chosen = [r for r in main if r["delta"] == delta and r["alpha"] == alpha]
    iats = sorted({r["paper_iat"] for r in chosen})
    columns = min(3, len(iats))
    lines = -(-len(iats) // columns)
    fig, axes = plt.subplots(lines, columns, figsize=(4.4 * columns, 3.4 * lines), squeeze=False)
    panels = [ax for line in axes for ax in line]
    for ax in panels[len(iats) :]:
        ax.set_visible(False)
    for ax, iat in zip(panels, iats, strict=False):
        for row in sorted(chosen, key=lambda r: _order(r["scheduler"])):
            if row["paper_iat"] != iat:
                continue
            ax.plot(row["node_wait_quantiles"], QUANTILES, label=row["scheduler"])
        ax.set_ylim(QUANTILES[0], 1.0)
        ax.set_title(f"IAT {iat:g} s (paper scale)")
        ax.set_xlabel("node wait (s)")
        ax.grid(alpha=0.3)
    for line in axes:
        line[0].set_ylabel("fraction of jobs")
    panels[len(iats) - 1].legend(loc="lower right", fontsize="small")
    fig.suptitle(f"Node-wait CDF, top 60 % (delta = {delta:g} s, alpha = {alpha:g}, replicate 0)")
    fig.tight_layout()
    save_figure(fig, path, dpi=110)


def plot_medians(rows: Sequence[Mapping[str, Any]], path: str) -> None:
    """Median node wait against the IAT (Figure 3) and the top-10 % median, alpha 0 and 0.5
    (Figure 4a): the mean over replicates, the bars spanning the replicates."""
    from schedlib.results.plotting import pyplot, save_figure

    plt = pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
    for label in (FCFS, LOCAL, NN, CAN):
        for ax, field, alphas in (
            (left, "median_node_wait", (0.0,)),
            (right, "tail10_node_wait", (0.0, 0.5)),
        ):
            for alpha in alphas:
                picked = [
                    r
                    for r in rows
                    if r.get("study") == "main"
                    and r["scheduler"] == label
                    and r["delta"] == 5.0
                    and r["alpha"] == (0.0 if label == FCFS else alpha)
                ]
                if not picked or (label == FCFS and alpha):
                    continue
                iats = sorted({r["paper_iat"] for r in picked})
                per = [[r[field] for r in picked if r["paper_iat"] == i] for i in iats]
                means = [_mean(v) for v in per]
                spread = [
                    [m - min(v) for m, v in zip(means, per, strict=True)],
                    [max(v) - m for m, v in zip(means, per, strict=True)],
                ]
                name = label if len(alphas) == 1 or label == FCFS else f"{label}, alpha {alpha:g}"
                ax.errorbar(
                    iats, means, yerr=spread, capsize=3, marker="o", ms=3, label=name,
                    linestyle="-" if alpha == 0 else "--",
                )  # fmt: skip
    left.set_title("median node wait, alpha 0 (Fig. 3)")
    right.set_title("median of the 10 % longest node waits (Fig. 4a)")
    for ax in (left, right):
        ax.set_xlabel("inter-arrival time (s, paper scale)")
        ax.set_ylabel("seconds")
        ax.grid(alpha=0.3)
    left.legend(fontsize="small")
    right.legend(fontsize="x-small", ncol=2)
    fig.tight_layout()
    save_figure(fig, path, dpi=110)


def figures() -> dict[str, Callable[[Sequence[Mapping[str, Any]], str], None]]:
    """The page's figures: file name -> draw(rows, path)."""
    return {"preemptive_cdf.png": plot, "preemptive_medians.png": plot_medians}


# -- command line ----------------------------------------------------------------------------


def _numbers(text: str, name: str) -> list[float]:
    try:
        return [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise InvalidValueError(name, text, "must be a comma-separated list of numbers") from None


def _names(text: str) -> list[str]:
    return [s.strip() for s in text.split(",") if s.strip()]


_TAILS = (
    "the longest-waiting 4 % of 500 jobs are 20 jobs: on a 100-node grid their mean wait "
    "varies more from replicate to replicate than the schedulers differ, so 6 replicates "
    "are inconclusive where 8 of the full grid decide"
)
QUICK_DIFFERS: dict[str, str] = {
    "internode-beats-local-median-total": "on a 100-node grid the total-wait medians of "
    "internode and local scheduling differ by a few percent either way from replicate to "
    "replicate; 6 replicates cannot tell the sign, 8 of the full grid can",
    "preemptions-one-eighth": "with 500 jobs a replicate preempts only a handful of jobs "
    "at the lightest load, and that count varies so much between replicates that 6 of them "
    "are inconclusive; the full grid's counts are steady",
    "fig6a-local-best-tail": _TAILS,
    "fig6b-local-best-tail": _TAILS,
    "fig6c-2nn-best-tail": _TAILS,
}
"""Claims whose `--quick` verdict differs from the documented full-size one, and why (the
quick run has a tenth of the grid and of the jobs, three IATs and 6 replicates)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `schedlib reproduce preemptive` (the CLI adds `--format`)."""
    parser.add_argument("--nodes", type=int, default=1000, help="grid nodes (default: 1000)")
    parser.add_argument("--jobs", type=int, default=5000, help="jobs (default: 5000)")
    parser.add_argument(
        "--iat",
        default="1.5,2.0,2.5,3.0,4.0",
        help="mean inter-arrival times in s, comma-separated (default: 1.5,2.0,2.5,3.0,4.0); "
        "the claims name them at the paper's scale, IAT x nodes / 1000",
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
    parser.add_argument(
        "--victims",
        choices=VICTIM_READINGS,
        default="lower",
        help="which running jobs a waiting job may preempt: strictly lower priority (the "
        "prose of §5.1, default) or also equal (Algorithm 1, FindJobstoPreempt line 5)",
    )
    parser.add_argument(
        "--side",
        default=",".join(SIDE_STUDIES),
        help="side studies: delta (2.5 s), alpha1 (alpha 1 at every IAT), alpha2 (alpha 2 at "
        "the largest IAT), victims (the other reading); comma-separated, '' for none "
        f"(default: {','.join(SIDE_STUDIES)})",
    )
    parser.add_argument(
        "--replicates",
        type=int,
        default=REPLICATES,
        help=f"independent replicates (grid and jobs) of --seed (default: {REPLICATES})",
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
    parser.add_argument(
        "--plot", metavar="FILE", help="also draw the node-wait CDF (replicate 0) to FILE"
    )
    add_claims_argument(parser)
    add_quick_argument(
        parser,
        # the paper's loads at IAT 1.5, 2.5 and 4.0 on a tenth of the grid; no alpha = 2 run
        {
            "nodes": 100,
            "jobs": 500,
            "iat": "15,25,40",
            "side": "delta,alpha1,victims",
            "replicates": 6,
        },
        full_time="9 minutes",
        quick_time="20 s",
    )


def _runs(args: argparse.Namespace) -> list[Run]:
    if args.workers is not None:
        require(args.workers, "workers", at_least=1)
    return design(
        nodes=args.nodes,
        jobs=args.jobs,
        iats=_numbers(args.iat, "iat"),
        deltas=_numbers(args.delta, "delta"),
        alphas=_numbers(args.alpha, "alpha"),
        schedulers=_names(args.schedulers),
        victims=args.victims,
        side=_names(args.side),
        replicates=args.replicates,
        seed=args.seed,
        beta=args.beta,
        accuracy=args.accuracy,
        overhead=args.overhead,
    )


def data(args: argparse.Namespace) -> str:
    """The data of a run: the synthetic grid and jobs, their offered loads and the replicates."""
    iats = _numbers(args.iat, "iat")
    replicates = range(args.replicates)
    loads = []
    for iat in (min(iats), max(iats)) if iats else ():
        nodes_jobs = [
            (
                make_nodes(args.nodes, seed=args.seed, replicate=r),
                make_jobs(args.jobs, iat, seed=args.seed, replicate=r, accuracy=args.accuracy),
            )
            for r in replicates
        ]
        loads.append(_mean([offered_load(j, n) for n, j in nodes_jobs]))
    load = f", offered load {loads[0]:.2f} to {loads[-1]:.2f}" if loads else ""
    return (
        f"synthetic grid and jobs (§6.1, our numbers): {args.nodes} nodes, {args.jobs} jobs "
        f"per IAT {args.iat}{load}; {args.replicates} replicates of seed {args.seed}"
    )


def rows(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The reproduction's rows for parsed options (no printing, no plot)."""
    return sweep(_runs(args), workers=args.workers)


_SHOWN = ("study", "scheduler", "replicate", "iat", "paper_iat", "delta", "alpha", "victims",
          *_NUMBERS)  # fmt: skip


def main(args: argparse.Namespace) -> int:
    """Run the design; print one row per configuration and replicate (JSON, CSV) or the means
    over replicates (table), then the claims."""
    note = apply_quick(args)
    check_plot_target(args.plot)
    runs = _runs(args)
    found = sweep(runs, workers=args.workers)
    if args.plot:
        plot(found, args.plot)
    if args.format == "table":
        table = aggregate(found)
    else:
        table = [{k: r[k] for k in _SHOWN} for r in found]
    print_note(note, args.format)
    print_results(table, claims(found), args, name=NAME)
    return 0
