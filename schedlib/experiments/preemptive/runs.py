"""The runs of the preemptive reproduction: one run, the design, the sweep, the means.

[`design`][schedlib.experiments.preemptive.design] lists every simulation (the
main grid and the side studies, per replicate, under the default reading and each
reading that varies from it), [`sweep`][schedlib.experiments.preemptive.sweep] runs
them through [`run_grid`][schedlib.experiments.running.run_grid] (a run that no
reading or study changes runs once: FCFS once per IAT, replicate and reading of the
set-up) and [`aggregate`][schedlib.experiments.preemptive.aggregate] averages them
over the replicates;
[`victim_readings_differ`][schedlib.experiments.preemptive.victim_readings_differ] runs the
small grids that tell the two readings of the victims apart.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from schedlib.errors import InvalidValueError
from schedlib.experiments.preemptive.setup import (
    DEFAULT_READING,
    DEFAULT_SCHEDULERS,
    KINDS,
    LABELS,
    PAPER_IATS,
    PAPER_NODES,
    QUANTILES,
    READING_KINDS,
    REPLICATES,
    SCHEDULERS,
    SIDE_ALPHAS,
    SIDE_DELTA,
    SIDE_STUDIES,
    TOP_SHARE,
    Reading,
    make_jobs,
    make_nodes,
    offered_loads,
)
from schedlib.experiments.running import Execution, run_grid
from schedlib.model import EventKind, RunRecord
from schedlib.preemption.decision import VICTIM_READINGS
from schedlib.preemption.grid import simulate_grid
from schedlib.preemption.resources import GridJob, GridNode
from schedlib.preemption.topology import Matchmaker, Topology, ring, similar_capability
from schedlib.replicates import stream, stream_seed
from schedlib.results.metrics import percentile
from schedlib.validation import require

DEFAULT_NAME = "default"
"""The `reading` column of the rows of the reading the options give (the paper's count)."""


def _topology(name: str, nodes: Sequence[GridNode]) -> Topology | None:
    if name.startswith("2nn"):
        return ring(len(nodes))
    if name.startswith("can"):
        return similar_capability(nodes)
    return None


@attrs.frozen(slots=True)
class Run:
    """One simulation of the sweep (picklable: a task of
    [`run_grid`][schedlib.experiments.running.run_grid]).

    Attributes
    ----------
    scheduler
        One of [`SCHEDULERS`][schedlib.experiments.preemptive.SCHEDULERS].
    nodes, jobs
        Grid and workload sizes (`jobs` measured jobs, warm-up jobs besides).
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
    sizes, matchmaker, warm_up, push
        The reading of the set-up ([`Reading`][schedlib.experiments.preemptive.Reading]).
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
    sizes: str = DEFAULT_READING.sizes
    matchmaker: str = DEFAULT_READING.matchmaker
    warm_up: str = DEFAULT_READING.warm_up
    push: str = DEFAULT_READING.push

    @property
    def reading(self) -> Reading:
        """The run's reading of the set-up."""
        return Reading(self.sizes, self.matchmaker, self.warm_up, self.push)


@attrs.frozen(slots=True)
class Planned:
    """A run of the design with the part of the design that asked for it.

    Attributes
    ----------
    reading
        `"default"` or the name of the reading that varies from it (`sizes=skewed`).
    study
        `main` or a side study (`delta`, `alpha`, `victims`).
    run
        The simulation.
    """

    reading: str
    study: str
    run: Run


def _waits_by_job(record: RunRecord) -> dict[int, tuple[float, float]]:
    """Per completed job: (non-executing time since submission, since reaching its last node)."""
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
    out = {}
    for o, o_node in zip(record.outcomes, since_arrival.outcomes, strict=True):
        if o.state is None or o.state.value != "completed" or o.end is None:
            continue
        reached = record.events[arrived[o.job]].time if o.job in arrived else o.submit
        out[o.job] = (o.end - o.submit - o.executed, o.end - reached - o_node.executed)
    return out


def waits(record: RunRecord) -> tuple[list[float], list[float]]:
    """Per completed job: non-executing time since submission, and since reaching its last node.

    Returns
    -------
    tuple of lists
        `(wait, node_wait)` in workload order (see the module notes).
    """
    found = _waits_by_job(record)
    order = [o.job for o in record.outcomes if o.job in found]
    return [found[j][0] for j in order], [found[j][1] for j in order]


def _tail10(values: Sequence[float]) -> float:
    """Median of the 10 % longest waits (Figure 4a)."""
    data = sorted(values)
    if not data:
        return math.nan
    count = max(1, -(-len(data) // 10))
    return percentile(data[-count:], 50)


def _top(values: Sequence[float], share: float) -> float:
    """Mean of the `share` longest waits (Figure 6: the last 100-200 of 5000 jobs)."""
    data = sorted(values)
    if not data:
        return math.nan
    count = max(1, round(share * len(data)))
    return math.fsum(data[-count:]) / count


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values) if values else math.nan


def _policy(run: Run) -> str:
    if run.scheduler == "fcfs":
        return "fcfs"
    return "preemptive" if run.victims == "lower" else "preemptive-equal"


def _digest(record: RunRecord) -> str:
    """A fingerprint of a run's schedule: every job's outcome (state, end, time executed,
    preemptions, migrations). Two runs with the same digest ran the same schedule."""
    text = repr(
        [(o.job, o.state.value if o.state else None, o.end, o.executed, o.preemptions,
          o.migrations) for o in record.outcomes]
    )  # fmt: skip
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _departures(record: RunRecord, low: float, high: float) -> int:
    """Completions of any job (warm-up jobs too) within `[low, high]`."""
    return sum(1 for e in record.events if e.kind is EventKind.COMPLETE and low <= e.time <= high)


def run_one(run: Run) -> dict[str, Any]:
    """Simulate one configuration of one replicate; return its result row.

    Parameters
    ----------
    run
        The configuration.

    Returns
    -------
    dict
        The row (see the module notes for the columns), over the measured jobs
        (ids `0..jobs-1`; a preloaded grid's warm-up jobs run but are not
        measured): offered load per resource kind (`load_cores`, `load_memory`,
        `load_disk`), `departures`, completions per measured arrival within the
        measured jobs' arrival span, the waits and their tails, `waited` (the share of
        the jobs whose node wait is not 0), preemptions,
        migrations, the schedule's `digest`, and `node_wait_quantiles`, the node
        wait at each of [`QUANTILES`][schedlib.experiments.preemptive.QUANTILES] (for
        the CDF figure).
    """
    reading = run.reading
    nodes = make_nodes(run.nodes, seed=run.seed, replicate=run.replicate)
    jobs = make_jobs(
        run.jobs, run.iat, seed=run.seed, replicate=run.replicate, accuracy=run.accuracy,
        sizes=run.sizes, warm_up=reading.warm_up_seconds,
    )  # fmt: skip
    measured = jobs[: run.jobs]
    base = run.scheduler.removesuffix("+balance")
    choices = reading.choices
    matchmaker = (
        None
        if choices is None
        else Matchmaker(
            nodes, choices=choices, seed=stream_seed(run.seed, run.replicate, "matchmaker")
        )
    )
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
        push_receiver=run.push,
        matchmaker=matchmaker,
        algorithm=run.scheduler,
    )
    found = _waits_by_job(record)
    kept = [found[j.id] for j in measured if j.id in found]
    wait = [w for w, _ in kept]
    node_wait = [w for _, w in kept]
    mine = [o for o in record.outcomes if o.job < run.jobs]
    low, high = measured[0].submit, measured[-1].submit
    loads = offered_loads(measured, nodes)
    return {
        "scheduler": LABELS[run.scheduler],
        "replicate": run.replicate,
        "seed": run.seed,
        "nodes": run.nodes,
        "jobs": run.jobs,
        "iat": run.iat,
        "paper_iat": run.iat * run.nodes / PAPER_NODES,
        "delta": run.delta,
        "alpha": run.alpha,
        "victims": run.victims,
        "sizes": run.sizes,
        "matchmaker": run.matchmaker,
        "warm_up": run.warm_up,
        "push": run.push,
        **{f"load_{kind}": load for kind, load in zip(KINDS, loads, strict=True)},
        "departures": _departures(record, low, high) / len(measured),
        "completed": len(wait),
        "unschedulable": sum(
            1 for o in mine if o.state is not None and o.state.value == "unschedulable"
        ),
        "median_wait": percentile(wait, 50),
        "mean_wait": _mean(wait),
        "waited": sum(1 for w in node_wait if w > 0) / len(node_wait) if node_wait else math.nan,
        "median_node_wait": percentile(node_wait, 50),
        "mean_node_wait": _mean(node_wait),
        "tail10_node_wait": _tail10(node_wait),
        "top4_node_wait": _top(node_wait, TOP_SHARE),
        "top2_node_wait": _top(node_wait, TOP_SHARE / 2),
        "max_node_wait": max(node_wait, default=math.nan),
        "preemptions": sum(o.preemptions for o in mine),
        "migrations": sum(o.migrations for o in mine),
        "digest": _digest(record),
        "node_wait_quantiles": [round(percentile(node_wait, 100 * q), 1) for q in QUANTILES],
    }


def _canonical(run: Run) -> Run:
    """The run that gives the same schedule: FCFS ignores alpha, delta, the victims and the
    PUSH reading; local scheduling (no neighbours) ignores the PUSH reading."""
    if run.scheduler == "fcfs":
        return attrs.evolve(run, delta=5.0, alpha=0.0, victims="lower", push="fit")
    if run.scheduler == "local":
        return attrs.evolve(run, push="fit")
    return run


def _cost(run: Run) -> float:
    """A run's rough cost, to start the expensive ones first: jobs (warm-up included) per
    second of arrivals, more with large jobs, with internode scheduling and with
    alpha > beta (waiting jobs overtake running ones at every tick)."""
    jobs = run.jobs + run.reading.warm_up_seconds / run.iat
    weight = jobs * run.nodes / (run.iat * PAPER_NODES)
    if run.sizes == "skewed":
        weight *= 3
    if run.scheduler != "local" and run.scheduler != "fcfs":
        weight *= 1.5
    if run.alpha > run.beta:
        weight *= 20
    return weight


def _key(run: Run) -> str:
    return repr(run)


def sweep(planned: Sequence[Planned], execution: Execution | None = None) -> list[dict[str, Any]]:
    """Simulate the planned runs where `execution` says, each distinct schedule once; rows in
    input order with their `reading` and `study` (a run asked twice given once)."""
    wanted = list(dict.fromkeys(planned))
    unique = list(dict.fromkeys(_canonical(p.run) for p in wanted))
    rows = run_grid(run_one, unique, execution, key=_key, cost=_cost)
    done = dict(zip(unique, rows, strict=True))
    return [
        {
            "reading": p.reading,
            "study": p.study,
            **done[_canonical(p.run)],
            "delta": p.run.delta,
            "alpha": p.run.alpha,
            "victims": p.run.victims,
            "push": p.run.push,
        }
        for p in wanted
    ]


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
    reading: Reading = DEFAULT_READING,
    readings: Sequence[str] = READING_KINDS,
) -> list[Planned]:
    """Every simulation of a run: the main grid and the side studies, for each replicate,
    under `reading` and under each reading that varies one of `readings` from it.

    Parameters
    ----------
    nodes, jobs
        Grid and workload sizes.
    iats, deltas, alphas, schedulers
        The main grid (every combination).
    victims
        The reading of the victims in the main grid.
    side
        The side studies to add ([`SIDE_STUDIES`][schedlib.experiments.preemptive.SIDE_STUDIES]):
        `delta` (the preemptive schedulers at delta 2.5 s, alpha 0), `alpha1` (local
        preemption at alpha 1, every IAT), `alpha-above-1` (local preemption at alpha
        1.05, 1.25 and 2, the largest IAT only: waiting jobs then overtake running
        ones at every tick, and a busy IAT takes minutes per run), `victims` (local
        preemption at alpha 0 under the other reading of the victims; the default
        reading only).
    replicates, seed
        Replicates `0..replicates-1` of `seed`.
    beta, accuracy, overhead
        Fixed parameters.
    reading
        The reading of the set-up (the rows' `reading` is `"default"`).
    readings
        The kinds of [`READING_KINDS`][schedlib.experiments.preemptive.READING_KINDS]
        to vary one at a time from `reading` (rows named `KIND=VALUE`).

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
    variations = reading.variations(readings)
    common = {"beta": beta, "accuracy": accuracy, "overhead": overhead, "seed": seed}
    out: list[Planned] = []
    for name, chosen in [(DEFAULT_NAME, reading), *variations]:
        setup = {"sizes": chosen.sizes, "matchmaker": chosen.matchmaker,
                 "warm_up": chosen.warm_up, "push": chosen.push}  # fmt: skip

        def runs(study: str, scheduler: str, iat: float, delta: float, alpha: float,
                 victims_reading: str, name: str = name,
                 setup: dict[str, str] = setup) -> list[Planned]:  # fmt: skip
            return [
                Planned(name, study, Run(scheduler, nodes, jobs, iat, delta, alpha,
                                         victims=victims_reading, replicate=r,
                                         **common, **setup))  # type: ignore[arg-type]
                for r in range(replicates)
            ]  # fmt: skip

        for scheduler, iat, delta, alpha in itertools.product(schedulers, iats, deltas, alphas):
            out += runs("main", scheduler, iat, delta, alpha, victims)
        preemptive = [s for s in schedulers if s != "fcfs"]
        if "delta" in side:
            for scheduler, iat in itertools.product(preemptive, iats):
                out += runs("delta", scheduler, iat, SIDE_DELTA, 0.0, victims)
        if "local" in schedulers and "alpha1" in side:
            for iat in iats:
                out += runs("alpha", "local", iat, deltas[0], SIDE_ALPHAS[0], victims)
        if "local" in schedulers and "alpha-above-1" in side:
            for alpha in SIDE_ALPHAS[1:]:
                out += runs("alpha", "local", max(iats), deltas[0], alpha, victims)
        if "local" in schedulers and "victims" in side and name == DEFAULT_NAME:
            other = next(v for v in VICTIM_READINGS if v != victims)
            for iat in iats:
                out += runs("victims", "local", iat, deltas[0], 0.0, other)
    return list(dict.fromkeys(out))


def reproduce(*, execution: Execution | None = None, workers: int | None = None,
              **options: Any) -> list[dict[str, Any]]:  # fmt: skip
    """The result rows of a design: one per (reading, configuration, replicate).

    Parameters
    ----------
    execution
        Where the runs go ([`Execution`][schedlib.experiments.running.Execution]).
    workers
        Local processes, when no `execution` is given.
    **options
        The keyword options of [`design`][schedlib.experiments.preemptive.design]
        (the paper's setting by default): `nodes`, `jobs`, `iats`, `deltas`,
        `alphas`, `schedulers` (the main grid), `victims`, `side`,
        `replicates`, `seed`, `beta`, `accuracy`, `overhead`, `reading`, `readings`.

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
    return sweep(design(**options), execution or Execution(workers=workers))


_CONFIG = ("reading", "study", "scheduler", "paper_iat", "iat", "delta", "alpha", "victims")
_NUMBERS = (
    "load_cores",
    "load_memory",
    "load_disk",
    "departures",
    "completed",
    "unschedulable",
    "waited",
    "median_node_wait",
    "mean_node_wait",
    "median_wait",
    "mean_wait",
    "tail10_node_wait",
    "top4_node_wait",
    "top2_node_wait",
    "max_node_wait",
    "preemptions",
    "migrations",
)


def aggregate(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per configuration: the mean over its replicates of every number.

    Examples
    --------
    >>> rows = [{"reading": "default", "study": "main", "scheduler": "x", "paper_iat": 2.0,
    ...          "iat": 2.0, "delta": 5, "alpha": 0, "victims": "lower", "replicate": r,
    ...          "load_cores": 1.0 + r, "preemptions": 2 * r} for r in range(2)]
    >>> [(a["replicates"], a["load_cores"], a["preemptions"]) for a in aggregate(rows)]
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
