"""The set-up of Balasubramanian et al. (2013) §6.1: the grid, the jobs, the schedulers.

The distributions of the nodes and jobs (our numbers for the shape §6.1 gives),
the replicate's grid ([`make_nodes`][schedlib.experiments.preemptive.make_nodes])
and jobs ([`make_jobs`][schedlib.experiments.preemptive.make_jobs]), their offered
load, the schedulers compared and the side studies.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from schedlib.preemption.resources import GridJob, GridNode
from schedlib.replicates import stream
from schedlib.validation import require

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
