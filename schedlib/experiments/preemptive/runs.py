"""The runs of the preemptive reproduction: one run, the design, the sweep, the means.

[`design`][schedlib.experiments.preemptive.design] lists every simulation (the
main grid and the side studies, per replicate),
[`sweep`][schedlib.experiments.preemptive.sweep] runs them (FCFS once per IAT and
replicate) and [`aggregate`][schedlib.experiments.preemptive.aggregate] averages
them over the replicates;
[`victim_readings_differ`][schedlib.experiments.preemptive.victim_readings_differ] runs the
small grids that tell the two readings of the victims apart.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from schedlib.errors import InvalidValueError
from schedlib.execution.parallel import parallel_map
from schedlib.experiments.preemptive.setup import (
    DEFAULT_SCHEDULERS,
    LABELS,
    PAPER_IATS,
    PAPER_NODES,
    QUANTILES,
    REPLICATES,
    SCHEDULERS,
    SIDE_ALPHAS,
    SIDE_DELTA,
    SIDE_STUDIES,
    TOP_SHARE,
    make_jobs,
    make_nodes,
    offered_load,
)
from schedlib.model import EventKind, RunRecord
from schedlib.preemption.decision import VICTIM_READINGS
from schedlib.preemption.grid import simulate_grid
from schedlib.preemption.resources import GridJob, GridNode
from schedlib.preemption.topology import Topology, ring, similar_capability
from schedlib.replicates import stream
from schedlib.results.metrics import percentile
from schedlib.validation import require


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
