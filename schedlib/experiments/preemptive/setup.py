"""The set-up of Balasubramanian et al. (2013) §6.1: the grid, the jobs, the schedulers.

The distributions of the nodes and jobs (our numbers for the shape §6.1 gives),
the replicate's grid ([`make_nodes`][schedlib.experiments.preemptive.make_nodes])
and jobs ([`make_jobs`][schedlib.experiments.preemptive.make_jobs]), their offered
load, the schedulers compared and the side studies.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

import attrs

from schedlib.errors import InvalidValueError
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
"""The share of longest-waiting jobs whose mean node wait is the tail of Figure 6 (`top4`):
200 of 5000, the wider end of the "last 100-200 jobs" the figure shows; `top2` is half of
it (100 of 5000)."""
QUANTILES: tuple[float, ...] = (
    *(q / 100 for q in range(40, 95)),
    *(q / 1000 for q in range(950, 1001, 5)),
)
"""The node-wait quantiles kept per row: 40 % to 95 % by 1 % (the paper's Figure 5 omits
the 2000 of 5000 jobs that hardly wait), then by 0.5 % up to the longest (Figure 6)."""

NODE_CORES = ((1, 2, 4, 8), (40, 30, 20, 10))
"""Cores per node and their weights in percent (mostly small)."""
NODE_MEMORY = ((1024, 2048, 4096, 8192, 16384), (30, 30, 20, 12, 8))
"""Memory per node in MB and weights."""
NODE_DISK = ((20, 50, 100, 200, 500), (30, 30, 20, 12, 8))
"""Disk per node in GB and weights."""
NODE_SPEED = ((0.5, 0.75, 1.0, 1.25, 1.5), (10, 20, 40, 20, 10))
"""CPU speed relative to the canonical node, and weights (mean 1)."""
JOB_CORES = ((1, 2, 4, 8), (40, 30, 20, 10))
"""Cores per job and weights under the `skewed` sizes: "skewed the same way" as the nodes."""
JOB_MEMORY = ((512, 1024, 2048, 4096, 8192), (30, 30, 20, 12, 8))
"""Memory per job in MB and weights (`skewed` sizes)."""
JOB_DISK = ((10, 25, 50, 100, 250), (30, 30, 20, 12, 8))
"""Disk per job in GB and weights (`skewed` sizes)."""
SMALL_CORES = ((1,), (100,))
"""Cores per job under the `small` sizes: one."""
SMALL_MEMORY = ((256, 512, 1024, 2048, 4096), (30, 30, 20, 12, 8))
"""Memory per job in MB under the `small` sizes: the `skewed` values halved, the same weights."""
SMALL_DISK = ((5, 12.5, 25, 50, 125), (30, 30, 20, 12, 8))
"""Disk per job in GB under the `small` sizes: halved."""
JOB_SIZES: dict[str, tuple[tuple[tuple[Any, ...], tuple[int, ...]], ...]] = {
    "small": (SMALL_CORES, SMALL_MEMORY, SMALL_DISK),
    "skewed": (JOB_CORES, JOB_MEMORY, JOB_DISK),
}
"""The job sizes of each reading (`--sizes`), as (cores, memory, disk) tables of values and
weights. A replicate's jobs draw the same random numbers under both, so a `small` job is its
`skewed` twin with one core and half the memory and disk."""
KINDS = ("cores", "memory", "disk")
"""The resource kinds, in the order of the capacity and requirement vectors."""

MATCHMAKERS = ("global", "limited:D")
"""The matchmaker's views (`--matchmaker`): `global` (the lightest suitable node of the
grid) or `limited:D` (the less loaded of D suitable nodes drawn at random per job)."""
LIMITED_CHOICES = 2
"""The D of the `limited` matchmaker the readings compare with the global one."""
WARM_UPS = ("preloaded", "none")
"""The warm-ups (`--warm-up`): `preloaded`, the grid has received jobs for `WARM_UP` seconds
before the measured ones arrive (those jobs are not measured), or `none` (an empty grid)."""
WARM_UP: float = 1.5 * T
"""Seconds of arrivals before the measured jobs under `--warm-up preloaded` (1.5 T: a job's
longest run on a speed-1 node; the mean run over the grid's speeds is about 1.1 T)."""
PUSHES = ("fit", "preempt")
"""What a PUSH receiver accepts a job for (`--push`): `fit`, the job fits its free resources
now (§5.3, "if the job can be backfilled at the neighbor node"), or `preempt`, it may also
preempt lower-priority jobs there."""
READING_KINDS = ("sizes", "matchmaker", "warm-up", "push")
"""The set-up choices the paper leaves open, each a named option (`--readings` names them)."""


@attrs.frozen
class Reading:
    """One reading of the set-up the paper leaves open (Balasubramanian et al. 2013 §3, §6.1).

    Attributes
    ----------
    sizes
        A key of [`JOB_SIZES`][schedlib.experiments.preemptive.JOB_SIZES].
    matchmaker
        `"global"` or `"limited:D"` with D >= 1.
    warm_up
        `"preloaded"` or `"none"` ([`WARM_UPS`][schedlib.experiments.preemptive.WARM_UPS]).
    push
        `"fit"` or `"preempt"` ([`PUSHES`][schedlib.experiments.preemptive.PUSHES]).

    Raises
    ------
    InvalidValueError
        For a value that is none of these, naming the option.

    Examples
    --------
    >>> DEFAULT_READING.describe()
    'small jobs, global matchmaker, preloaded grid, PUSH when the job fits'
    >>> [name for name, _ in DEFAULT_READING.variations(READING_KINDS)]
    ['sizes=skewed', 'matchmaker=limited:2', 'warm-up=none', 'push=preempt']
    >>> Reading(matchmaker="limited:0")
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: --matchmaker = 'limited:0': must be global or limited:D with D >= 1
    """  # noqa: E501

    sizes: str = "small"
    matchmaker: str = "global"
    warm_up: str = "preloaded"
    push: str = "fit"

    def __attrs_post_init__(self) -> None:
        for option, value, allowed in (
            ("--sizes", self.sizes, tuple(JOB_SIZES)),
            ("--warm-up", self.warm_up, WARM_UPS),
            ("--push", self.push, PUSHES),
        ):
            if value not in allowed:
                raise InvalidValueError(option, value, f"must be one of {', '.join(allowed)}")
        choices_of(self.matchmaker)

    @property
    def choices(self) -> int | None:
        """The matchmaker's D (`None`: the global view)."""
        return choices_of(self.matchmaker)

    @property
    def warm_up_seconds(self) -> float:
        """Seconds of arrivals before the measured jobs."""
        return WARM_UP if self.warm_up == "preloaded" else 0.0

    def describe(self) -> str:
        """The reading in words."""
        matchmaker = (
            "global matchmaker"
            if self.choices is None
            else f"matchmaker choosing among {self.choices} random suitable nodes"
        )
        warm = "preloaded grid" if self.warm_up == "preloaded" else "empty grid at the start"
        push = "PUSH when the job fits" if self.push == "fit" else "PUSH may preempt"
        return f"{self.sizes} jobs, {matchmaker}, {warm}, {push}"

    def variations(self, kinds: Sequence[str]) -> list[tuple[str, Reading]]:
        """The readings that differ from this one in one of `kinds` each: `(name, reading)`,
        named `KIND=VALUE` (the other job sizes, the other matchmaker view, the other
        warm-up, the other PUSH)."""
        out = []
        for kind in kinds:
            if kind == "sizes":
                other = attrs.evolve(self, sizes=next(s for s in JOB_SIZES if s != self.sizes))
                value = other.sizes
            elif kind == "matchmaker":
                value = f"limited:{LIMITED_CHOICES}" if self.choices is None else "global"
                other = attrs.evolve(self, matchmaker=value)
            elif kind == "warm-up":
                other = attrs.evolve(self, warm_up=next(w for w in WARM_UPS if w != self.warm_up))
                value = other.warm_up
            elif kind == "push":
                other = attrs.evolve(self, push=next(p for p in PUSHES if p != self.push))
                value = other.push
            else:
                raise InvalidValueError(
                    "--readings", kind, f"must be among {', '.join(READING_KINDS)}"
                )
            out.append((f"{kind}={value}", other))
        return out


def choices_of(matchmaker: str) -> int | None:
    """The D of a matchmaker's name (`None` for `global`).

    Raises
    ------
    InvalidValueError
        For anything but `global` or `limited:D` with D >= 1.

    Examples
    --------
    >>> choices_of("global"), choices_of("limited:3")
    (None, 3)
    """
    if matchmaker == "global":
        return None
    head, _, count = matchmaker.partition(":")
    if head == "limited" and count.isdigit() and int(count) >= 1:
        return int(count)
    raise InvalidValueError("--matchmaker", matchmaker, "must be global or limited:D with D >= 1")


DEFAULT_READING = Reading()
"""The reading of the documented run, argued on the reproduction page: small jobs, the
global matchmaker, a preloaded grid, PUSH when the job fits."""

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
SIDE_STUDIES: tuple[str, ...] = ("delta", "alpha1", "alpha-above-1", "victims")
"""The side studies (`--side`): a second interval, alpha 1 at every IAT, alpha 1.05, 1.25
and 2 at the largest IAT, the other reading of the victims."""
REPLICATES = 8
"""Replicates of a full run: enough for the large effects to be decided under Holm's
correction over the claims, at about 9 minutes on 2 cores."""
SIDE_DELTA = 2.5
"""The second scheduling interval of §6.2."""
SIDE_ALPHAS = (1.0, 1.05, 1.25, 2.0)
"""The wait weights of "alpha set to 1 or higher" (§6.2): 1 (the tie point alpha = beta) at
every IAT, the others at the largest IAT only."""

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
    count: int,
    iat: float,
    *,
    seed: int = 0,
    replicate: int = 0,
    accuracy: float = 1.0,
    sizes: str = "small",
    warm_up: float = 0.0,
) -> list[GridJob]:
    """The workload of one replicate: `count` jobs with Poisson arrivals of mean gap `iat`.

    Parameters
    ----------
    count
        Number of measured jobs, `>= 1`.
    iat
        Mean inter-arrival time in seconds, `> 0`.
    seed, replicate
        The run's seed and the replicate: the jobs' requirements, runtimes
        and (unit) gaps come from [`stream`][schedlib.replicates.stream]`(seed,
        replicate, "jobs")` only, so every `iat` sees the same jobs.
    accuracy
        Actual runtime drawn uniformly in `[accuracy * estimate, estimate]`;
        `1` (default) makes it equal to the estimate.
    sizes
        A key of [`JOB_SIZES`][schedlib.experiments.preemptive.JOB_SIZES]: `small`
        (default) or `skewed`; both draw the same random numbers.
    warm_up
        Seconds of arrivals before the measured jobs (a preloaded grid): jobs
        `count, count + 1, ...` arrive at the same rate over `[0, warm_up)`, drawn
        from `stream(seed, replicate, "warm-up jobs")` backwards from `warm_up`
        (so a larger `iat` sees a prefix of them), and the measured jobs arrive
        from `warm_up` on.

    Returns
    -------
    list of GridJob
        The measured jobs (ids `0..count-1`, in arrival order), then the warm-up
        jobs (ids from `count`, latest first).

    Raises
    ------
    InvalidValueError
        For a bad count, `iat <= 0`, `accuracy` outside `(0, 1]`, unknown sizes or a
        negative warm-up.

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
    >>> [j.requirement for j in make_jobs(2, 1.0, sizes="skewed")]
    [(1, 512, 25), (2, 512, 50)]
    >>> [j.requirement for j in make_jobs(2, 1.0)]
    [(1, 256, 12.5), (1, 256, 25)]
    >>> warm = make_jobs(3, 100.0, warm_up=400.0)
    >>> [j.id for j in warm]
    [0, 1, 2, 3, 4, 5, 6, 7]
    >>> min(j.submit for j in warm[:3]) > 400 > max(j.submit for j in warm[3:])
    True
    """
    require(count, "jobs", at_least=1)
    require(iat, "iat", greater_than=0)
    require(accuracy, "accuracy", greater_than=0, at_most=1)
    require(warm_up, "warm_up", at_least=0)
    if sizes not in JOB_SIZES:
        raise InvalidValueError("--sizes", sizes, f"must be one of {', '.join(JOB_SIZES)}")
    tables = JOB_SIZES[sizes]

    def job(rng: random.Random, i: int, submit: float) -> GridJob:
        requirement = tuple(_draw(rng, table) for table in tables)
        estimate = rng.uniform(0.5 * T, 1.5 * T)
        share = rng.uniform(accuracy, 1.0)
        runtime = estimate if accuracy == 1 else estimate * share
        return GridJob(i, submit, requirement, estimate, runtime)

    rng = stream(seed, replicate, "jobs")
    clock = 0.0
    jobs = []
    for i in range(count):
        clock += rng.expovariate(1.0)
        jobs.append(job(rng, i, warm_up + clock * iat))
    if warm_up > 0:
        rng = stream(seed, replicate, "warm-up jobs")
        back = rng.expovariate(1.0) * iat
        while back < warm_up:
            jobs.append(job(rng, len(jobs), warm_up - back))
            back += rng.expovariate(1.0) * iat
    return jobs


def offered_loads(jobs: Sequence[GridJob], nodes: Sequence[GridNode]) -> tuple[float, ...]:
    """Per resource kind: resource-seconds of work arriving per second over the grid's capacity.

    $$ \\rho^k = \\frac{\\sum_j R_j^k w_j / (t_{last} - t_{first})}{\\sum_i C_i^k s_i} $$

    with $w_j$ the job's canonical work and $s_i$ the node's speed (a job holds its
    resources for $w_j / s_i$ seconds on node $i$). Cores are kind 0. NaN for fewer than
    two arrivals.

    Examples
    --------
    >>> offered_loads([GridJob(0, 0, (1, 4), 10, 10), GridJob(1, 10, (1, 2), 10, 10)],
    ...               [GridNode(0, (2, 8), 1.0)])
    (1.0, 0.75)
    """
    kinds = len(nodes[0].capacity) if nodes else 0
    span = jobs[-1].submit - jobs[0].submit if len(jobs) > 1 else 0
    if span <= 0:
        return (math.nan,) * kinds
    return tuple(
        math.fsum(j.requirement[k] * j.runtime for j in jobs)
        / span
        / math.fsum(n.capacity[k] * n.speed for n in nodes)
        for k in range(kinds)
    )


def offered_load(jobs: Sequence[GridJob], nodes: Sequence[GridNode]) -> float:
    """The offered load of the cores (kind 0 of
    [`offered_loads`][schedlib.experiments.preemptive.offered_loads]).

    $$ \\rho = \\frac{\\sum_j c_j w_j / (t_{last} - t_{first})}{\\sum_i c_i s_i} $$

    Examples
    --------
    >>> offered_load([GridJob(0, 0, (1,), 10, 10), GridJob(1, 10, (1,), 10, 10)],
    ...              [GridNode(0, (2,), 1.0)])
    1.0
    """
    return offered_loads(jobs, nodes)[0]
