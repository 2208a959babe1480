r"""The experiment the CSS 600 term report promised: PFS, PFS+MFS and two baselines on a pool.

The report states a hypothesis ("scheduling the higher CPU-intensive jobs
using their migration frequency across a pool of computing nodes would improve
their overall runtime efficiency", and, in its conclusion, interactive jobs
"are relatively unaffected by the migration frequency based scheduling")
and leaves its evaluation "TBD". This module runs it on a documented
synthetic workload, under every reading of the report the library offers
([`Readings`][schedlib.frequency.policies.Readings]):

```text
schedlib reproduce frequency [--quick] [--replicates 40] [--seed 0] [--quantum 1] [--max-mf 4]
                             [--max-preemption 3] [--grace 1.1] [--kc 0.5] [--kcr 0.5]
                             [--morph-share 0.2] [--readings LABEL,...]
                             [--quanta 0.5,1,2,4] [--max-mfs 0,1,2,4,8]
                             [--sweep-readings LABEL,...|none]
                             [--workers W] [--format table|json|csv] [--claims]
                             [--plot out.png] [--plot-sweep sweep.png]
```

**The pool** ([`POOL`][schedlib.experiments.frequency.POOL]): a head node of
speed 1, fully available, and six remote nodes of speeds 0.5 to 2 and CPU
availabilities 0.25 to 1 (rates $s \cdot a$ from 0.5 to 1.5). The fastest node
(speed 2) is also the most productive (rate 1.5) but its owner keeps a
quarter of it.

**The workload** ([`make_workload`][schedlib.experiments.frequency.make_workload],
one per replicate): over 600 s, Poisson arrivals of 40 interactive and 30
CPU-bound jobs. An interactive job has 5-15 CPU bursts of exponential work
(mean 0.3 s) separated by exponential idle times (mean 10 s); one in five is
a "morphing" job (the report's image-processing application that "can start
out as an interactive application ... and eventually morph into more
CPU-intensive computation") with one burst, not the first, of 10-40 s. A
CPU-bound job has one burst of 20-120 s. Replicate $r$ of `--seed s` draws
its jobs from [`stream(s, r, "workload")`][schedlib.replicates.stream] and
its MFS tie-breaks from `stream(s, r, "ties")`; every policy and reading sees
the same jobs in the same replicate (paired comparisons).

**Measures**, per run: the mean turnaround of the CPU-bound jobs (end minus
submission); the mean and 95th percentile of the *response time* of the
interactive jobs' bursts (a burst's completion minus its arrival at a node),
and the mean over their short bursts (at most 1 s of work: what a user of
an editor waits for); the numbers of migrations, preemptions and banned
jobs; the makespan.

**What runs.** *The comparison*, at $Q$ = `--quantum` and `MAX_MF` =
`--max-mf`: `pfs+mfs` under each reading of `--readings` (default: all
eight), `pfs` under each of their next-burst and remote-queue readings (it
has no MFS), and the two static-placement baselines (`round_robin`, `fcfs`:
placed at submission, never moved; the readings do not change them).
*The sweep*: `pfs+mfs` against `pfs` over `--quanta` $\times$ `--max-mfs`, for
each reading of `--sweep-readings` (default: the default readings, and the
same with next bursts on the last node).

**Rows.** The comparison gives one row per (policy, reading, replicate)
(`part` = `"compare"`, `replicate` = $r$) and one aggregate per (policy,
reading) (`replicate` = `"mean"`, with standard deviations `*_sd`); the sweep
one row per (reading, $Q$, `MAX_MF`) (`part` = `"sweep"`) with the three
changes of PFS+MFS against PFS in percent (mean of the per-replicate changes)
and the half-widths of their 95 % intervals, and the verdicts of the three
tests of [`HYPOTHESIS`][schedlib.experiments.frequency.HYPOTHESIS], judged
together over the whole sweep (Holm) by
[`judge`][schedlib.results.verdicts.judge]; a cell `holds` when all three
hold, `does not hold` when one does not hold, else `inconclusive`.

Examples
--------
>>> settings = Settings(replicates=2, shape=TINY_SHAPE, readings=(Readings(),), sweep_readings=())
>>> rows = reproduce(settings, workers=1)
>>> [(r["policy"], r["readings"], r["replicate"]) for r in rows][1:3]
[('pfs', 'head-node/always/-', 1), ('pfs', 'head-node/always/-', 'mean')]
>>> sorted({c.key for c in claims(rows)} - {c.key for c in claims([])})
[]
"""

from __future__ import annotations

import argparse
import math
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import Any

import attrs

from schedlib.errors import InvalidValueError
from schedlib.execution.parallel import parallel_map
from schedlib.execution.progress import ProgressBar
from schedlib.experiments.claims import Claim, claim_rows
from schedlib.experiments.options import (
    add_claims_argument,
    add_quick_argument,
    apply_quick,
    check_plot_target,
    print_note,
    print_results,
)
from schedlib.experiments.pages import markdown_table
from schedlib.frequency.cost import MigrationCost
from schedlib.frequency.pfs import DEFAULT_GRACE
from schedlib.frequency.policies import Readings
from schedlib.frequency.pool import JobKind, PoolJob, PoolNode
from schedlib.frequency.simulation import BANNED_DETAIL, simulate_pool
from schedlib.model import EventKind, RunRecord
from schedlib.replicates import stream, stream_seed
from schedlib.results.metrics import percentile
from schedlib.results.tables import render
from schedlib.results.verdicts import (
    ClaimTest,
    Expect,
    MeanEstimate,
    judge,
    paired_difference,
)
from schedlib.validation import at_least, require

__all__ = [
    "DEFAULT_COST",
    "DEFAULT_SHAPE",
    "HYPOTHESIS",
    "MARGIN",
    "MAX_MF",
    "NAME",
    "PAPER",
    "POOL",
    "QUANTUM",
    "QUICK_DIFFERS",
    "REPLICATES",
    "SHORT_BURST",
    "SUMMARY",
    "SWEEP_MAX_MFS",
    "SWEEP_QUANTA",
    "SWEEP_READINGS",
    "TINY_SHAPE",
    "Run",
    "Settings",
    "WorkloadShape",
    "add_arguments",
    "burst_responses",
    "claims",
    "data",
    "figures",
    "main",
    "make_workload",
    "measure",
    "page_sections",
    "plot_comparison",
    "plot_readings",
    "plot_sweep",
    "reproduce",
    "rows",
    "run_one",
]

NAME = "frequency"
PAPER = "the CSS 600 term report"
"""The paper this module reproduces, as cited in tables."""
SUMMARY = (
    "the CSS 600 term report: PFS, PFS+MFS and two static-placement baselines on a pool of "
    "interactive and CPU-bound jobs, under each reading of the report; a sweep over Q and MAX_MF"
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

REPLICATES = 40
"""Independent replicates by default (the page says why they suffice)."""
QUANTUM = 1.0
"""$Q$ of the comparison, in seconds."""
MAX_MF = 4
"""`MAX_MF` of the comparison: the report calls the ban the "worst case" (see the page)."""
MARGIN = 5.0
"""Equivalence margin of "relatively unaffected", in percent of PFS's response."""
SHORT_BURST = 1.0
"""Bursts of at most this much work (seconds) count as *short* (`short_response`)."""
SWEEP_QUANTA: tuple[float, ...] = (0.5, 1.0, 2.0, 4.0)
"""$Q$ of the sweep."""
SWEEP_MAX_MFS: tuple[int, ...] = (0, 1, 2, 4, 8)
"""`MAX_MF` of the sweep."""
SWEEP_READINGS: tuple[Readings, ...] = (Readings(), Readings(next_burst="last-node"))
"""The readings the sweep runs under by default: the default, and next bursts on the last node."""

HYPOTHESIS: tuple[tuple[str, str, str, Expect], ...] = (
    ("cpu", "cpu_turnaround", "CPU-bound turnaround", Expect.below(0.0)),
    ("response", "response", "interactive response, all bursts", Expect.between(-MARGIN, MARGIN)),
    (
        "short",
        "short_response",
        f"interactive response, bursts of at most {SHORT_BURST:g} s",
        Expect.between(-MARGIN, MARGIN),
    ),
)
"""The three tests of the hypothesis: `(key, measure, what, expectation)` on the change of
PFS+MFS against PFS, in percent of PFS's value, paired per replicate."""

QUICK_DIFFERS: dict[str, str] = {
    "mfs-response/head-node/always/availability": "power: with 15 replicates the interval "
    "of a change near 0 is wider than the equivalence margin; 40 narrow it inside",
    "mfs-short/last-node/always/local-mf": "power: a harm just above the margin is told apart "
    "from it only by the 40 replicates of the full run",
    "mfs-short/last-node/literal/availability": "power: a change just inside the margin is "
    "told apart from it only by the 40 replicates of the full run",
}
"""Claims whose `--quick` verdict differs from the documented full-size one (key -> why)."""


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
TINY_SHAPE = WorkloadShape(interactive=4, cpu_bound=3, horizon=40.0, cpu_work=(5.0, 15.0))
"""A seven-job workload for examples and tests."""
DEFAULT_COST = MigrationCost(0.5, 0.5)
"""$K_C = K_{C/R} = 0.5$ s: a migration keeps a job in transit for $K = 1$ s."""


def make_workload(
    seed: int, replicate: int = 0, shape: WorkloadShape = DEFAULT_SHAPE
) -> tuple[PoolJob, ...]:
    """The jobs of one replicate: interactive and CPU-bound jobs with Poisson arrivals.

    Parameters
    ----------
    seed, replicate
        The run's seed and the replicate: the jobs are drawn from
        [`stream(seed, replicate, "workload")`][schedlib.replicates.stream].
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
    >>> jobs = make_workload(3, 1, TINY_SHAPE)
    >>> len(jobs), sum(j.kind is JobKind.CPU_BOUND for j in jobs)
    (7, 3)
    >>> jobs == make_workload(3, 1, TINY_SHAPE) != make_workload(3, 2, TINY_SHAPE)
    True
    """
    rng = stream(seed, replicate, "workload")

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


def measure(record: RunRecord) -> dict[str, float]:
    """The measures of one run (see the module notes).

    Returns
    -------
    dict
        `cpu_turnaround` (mean over CPU-bound jobs), `response` and
        `response_p95` (mean and 95th percentile over the interactive jobs'
        bursts), `short_response` (mean over their bursts of at most
        [`SHORT_BURST`][schedlib.experiments.frequency.SHORT_BURST] of work),
        `migrations`, `preemptions`, `banned` (jobs banned, moved to the
        fastest node or on it already), `makespan`.
    """
    cpu = {job.id for job in record.workload if job.kind is JobKind.CPU_BOUND}
    turnarounds = [o.end - o.submit for o in record.outcomes if o.job in cpu and o.end is not None]
    responses = burst_responses(record)
    short = burst_responses(record, longest=SHORT_BURST)
    banned = {e.job for e in record.events if BANNED_DETAIL in e.detail.split("; ")}
    return {
        "cpu_turnaround": statistics.fmean(turnarounds) if turnarounds else math.nan,
        "response": statistics.fmean(responses) if responses else math.nan,
        "response_p95": percentile(responses, 95),
        "short_response": statistics.fmean(short) if short else math.nan,
        "migrations": float(sum(o.migrations for o in record.outcomes)),
        "preemptions": float(sum(o.preemptions for o in record.outcomes)),
        "banned": float(len(banned)),
        "makespan": max((o.end or 0.0) for o in record.outcomes) if record.outcomes else 0.0,
    }


# --- the runs ------------------------------------------------------------------------------


@attrs.frozen(slots=True)
class Run:
    """One simulation (picklable, for `parallel_map`; equal runs are run once)."""

    policy: str
    seed: int
    replicate: int
    quantum: float
    max_mf: int
    readings: Readings
    max_preemption: int
    grace: float
    cost: MigrationCost
    shape: WorkloadShape


def run_one(run: Run) -> dict[str, float]:
    """Simulate one [`Run`][schedlib.experiments.frequency.Run] and return its measures."""
    record = simulate_pool(
        make_workload(run.seed, run.replicate, run.shape),
        POOL,
        policy=run.policy,
        quantum=run.quantum,
        grace=run.grace,
        max_preemption=run.max_preemption,
        max_mf=run.max_mf,
        cost=run.cost,
        readings=run.readings,
        seed=stream_seed(run.seed, run.replicate, "ties"),
    )
    return measure(record)


def _readings(value: Iterable[Readings]) -> tuple[Readings, ...]:
    return tuple(value)


def _floats(value: Iterable[float]) -> tuple[float, ...]:
    return tuple(value)


def _ints(value: Iterable[int]) -> tuple[int, ...]:
    return tuple(value)


@attrs.frozen(slots=True)
class Settings:
    """What `reproduce` runs (defaults: the documented full-size run).

    Attributes
    ----------
    replicates, seed
        Replicates `(seed, 0..replicates-1)`.
    quantum, max_mf
        $Q$ and `MAX_MF` of the comparison.
    max_preemption, grace, cost, shape
        `MAX_PREEMPTION`, $g$, $K_C$ and $K_{C/R}$, the workload.
    readings
        The readings the comparison runs `pfs+mfs` under.
    quanta, max_mfs
        The sweep's grid.
    sweep_readings
        The readings the sweep runs under (empty: no sweep).
    """

    replicates: int = attrs.field(default=REPLICATES, validator=at_least(1))
    seed: int = attrs.field(default=0, validator=at_least(0))
    quantum: float = QUANTUM
    max_mf: int = MAX_MF
    max_preemption: int = 3
    grace: float = DEFAULT_GRACE
    cost: MigrationCost = DEFAULT_COST
    shape: WorkloadShape = DEFAULT_SHAPE
    readings: tuple[Readings, ...] = attrs.field(default=Readings.every(), converter=_readings)
    quanta: tuple[float, ...] = attrs.field(default=SWEEP_QUANTA, converter=_floats)
    max_mfs: tuple[int, ...] = attrs.field(default=SWEEP_MAX_MFS, converter=_ints)
    sweep_readings: tuple[Readings, ...] = attrs.field(default=SWEEP_READINGS, converter=_readings)

    def run(self, policy: str, replicate: int, readings: Readings, **grid: Any) -> Run:
        """The run of `policy` in one replicate (`quantum`, `max_mf` overridable)."""
        return Run(
            policy,
            self.seed,
            replicate,
            grid.get("quantum", self.quantum),
            grid.get("max_mf", self.max_mf),
            readings,
            self.max_preemption,
            self.grace,
            self.cost,
            self.shape,
        )


BASELINES = ("round_robin", "fcfs")
_STATIC = "-"


def _without_mfs(readings: Readings) -> Readings:
    """The readings `pfs` runs under (it has no MFS: the default MFS reading)."""
    return attrs.evolve(readings, mfs="availability")


def _label(policy: str, readings: Readings) -> str:
    """The readings column of a row: `-` where a reading does not apply."""
    if policy in BASELINES:
        return _STATIC
    if policy == "pfs":
        return f"{readings.next_burst}/{readings.remote_queue}/-"
    return readings.label


def _comparison(settings: Settings) -> list[tuple[str, Readings]]:
    """(policy, readings) of the comparison, in the order of its rows."""
    pfs = list(dict.fromkeys(_without_mfs(r) for r in settings.readings))
    return [
        *(("pfs", r) for r in pfs),
        *(("pfs+mfs", r) for r in settings.readings),
        *((policy, Readings()) for policy in BASELINES),
    ]


def _validate(settings: Settings) -> None:
    """Fail early, in this process, on bad parameters (before any worker starts)."""
    require(settings.replicates, "replicates", at_least=1)
    if not settings.readings:
        raise InvalidValueError("readings", (), "the comparison needs at least one reading")
    if settings.sweep_readings and not (settings.quanta and settings.max_mfs):
        raise InvalidValueError(
            "quanta / max_mfs", (settings.quanta, settings.max_mfs), "must not be empty"
        )
    for quantum in (settings.quantum, *settings.quanta):
        for max_mf in (settings.max_mf, *settings.max_mfs):
            simulate_pool(
                [],
                POOL,
                policy="pfs+mfs",
                quantum=quantum,
                grace=settings.grace,
                max_preemption=settings.max_preemption,
                max_mf=max_mf,
                cost=settings.cost,
            )


def _run_all(
    runs: Sequence[Run], workers: int | None, show_progress: bool
) -> dict[Run, dict[str, float]]:
    unique = list(dict.fromkeys(runs))
    batch = max(1, math.ceil(len(unique) / 20))
    results: list[dict[str, float]] = []
    with ProgressBar(len(unique), NAME, enabled=None if show_progress else False) as bar:
        for start in range(0, len(unique), batch):
            results.extend(parallel_map(run_one, unique[start : start + batch], workers=workers))
            bar(len(results))
    return dict(zip(unique, results, strict=True))


def _sd(values: Sequence[float]) -> float:
    return statistics.stdev(values) if len(values) > 1 else 0.0


def reproduce(
    settings: Settings = Settings(),
    *,
    workers: int | None = None,
    show_progress: bool = False,
) -> list[dict[str, Any]]:
    """The comparison and the sweep (see the module notes): their rows.

    Parameters
    ----------
    settings
        What runs.
    workers
        Processes (`None`: every CPU); the rows do not depend on it.
    show_progress
        Draw a progress bar on standard error (only on a terminal).

    Returns
    -------
    list of dict
        The comparison's rows (per replicate, then an aggregate per
        configuration), then the sweep's.

    Raises
    ------
    InvalidValueError
        For a bad parameter.
    """
    _validate(settings)
    replicates = range(settings.replicates)
    comparison = _comparison(settings)
    runs = [settings.run(p, r, read) for p, read in comparison for r in replicates]
    for read in settings.sweep_readings:
        for q in settings.quanta:
            runs += [settings.run("pfs", r, _without_mfs(read), quantum=q) for r in replicates]
            for m in settings.max_mfs:
                runs += [settings.run("pfs+mfs", r, read, quantum=q, max_mf=m) for r in replicates]
    results = _run_all(runs, workers, show_progress)
    out: list[dict[str, Any]] = []
    for policy, read in comparison:
        head = {
            "part": "compare",
            "policy": policy,
            "readings": _label(policy, read),
            "quantum": settings.quantum,
            "max_mf": settings.max_mf,
            "seed": settings.seed,
        }
        values = [results[settings.run(policy, r, read)] for r in replicates]
        out += [{**head, "replicate": r, **v} for r, v in zip(replicates, values, strict=True)]
        out.append(
            {
                **head,
                "replicate": "mean",
                "replicates": settings.replicates,
                **{m: statistics.fmean(v[m] for v in values) for m in _MEASURES},
                **{f"{m}_sd": _sd([v[m] for v in values]) for m in _SPREAD},
            }
        )
    out += _sweep_rows(settings, results)
    return out


_SPREAD = ("cpu_turnaround", "response", "short_response")


def _sweep_rows(
    settings: Settings, results: Mapping[Run, dict[str, float]]
) -> list[dict[str, Any]]:
    replicates = range(settings.replicates)
    cells: list[dict[str, Any]] = []
    tests: list[ClaimTest] = []
    for read in settings.sweep_readings:
        for q in settings.quanta:
            old = [
                results[settings.run("pfs", r, _without_mfs(read), quantum=q)] for r in replicates
            ]
            for m in settings.max_mfs:
                new = [
                    results[settings.run("pfs+mfs", r, read, quantum=q, max_mf=m)]
                    for r in replicates
                ]
                row: dict[str, Any] = {
                    "part": "sweep",
                    "policy": "pfs+mfs",
                    "readings": read.label,
                    "quantum": q,
                    "max_mf": m,
                    "seed": settings.seed,
                    "replicates": settings.replicates,
                }
                for key, column, _, expect in HYPOTHESIS:
                    change = _change(new, old, column)
                    row[f"pfs_{column}"] = statistics.fmean(v[column] for v in old)
                    row[column] = statistics.fmean(v[column] for v in new)
                    row[f"{key}_change_pct"] = change.mean if change is not None else math.nan
                    row[f"{key}_half_width"] = (
                        change.half_width() if change is not None else math.nan
                    )
                    tests.append(ClaimTest(change, expect))
                row["pfs_migrations"] = statistics.fmean(v["migrations"] for v in old)
                row["migrations"] = statistics.fmean(v["migrations"] for v in new)
                row["banned"] = statistics.fmean(v["banned"] for v in new)
                cells.append(row)
    verdicts = [j.verdict for j in judge(tests)]
    width = len(HYPOTHESIS)
    for i, row in enumerate(cells):
        mine = verdicts[i * width : (i + 1) * width]
        for (key, *_), verdict in zip(HYPOTHESIS, mine, strict=True):
            row[f"{key}_verdict"] = verdict
        row["verdict"] = conjunction(mine)
    return cells


def _change(
    new: Sequence[Mapping[str, float]], old: Sequence[Mapping[str, float]], column: str
) -> MeanEstimate | None:
    """The per-replicate change of `column`, in percent of the old value (None if undefined)."""
    pairs = [(_number(a[column]), _number(b[column])) for a, b in zip(new, old, strict=True)]
    if not pairs or any(math.isnan(a) or math.isnan(b) or b == 0 for a, b in pairs):
        return None
    return paired_difference([a for a, _ in pairs], [b for _, b in pairs], relative=True)


def conjunction(verdicts: Sequence[str]) -> str:
    """The verdict of "every part holds" from the parts' verdicts.

    Examples
    --------
    >>> conjunction(["holds", "holds"]), conjunction(["holds", "inconclusive"])
    ('holds', 'inconclusive')
    >>> conjunction(["inconclusive", "does not hold"]), conjunction(["holds", "not run"])
    ('does not hold', 'not run')
    """
    if "does not hold" in verdicts:
        return "does not hold"
    if "not run" in verdicts:
        return "not run"
    if all(v == "holds" for v in verdicts):
        return "holds"
    return "inconclusive"


# --- the claims --------------------------------------------------------------------------


def _per_replicate(rows: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str], dict[int, Any]]:
    found: dict[tuple[str, str], dict[int, Any]] = {}
    for r in rows:
        if r.get("part") == "compare" and isinstance(r.get("replicate"), int):
            found.setdefault((r["policy"], r["readings"]), {})[r["replicate"]] = r
    return found


def _context(rows: Sequence[Mapping[str, Any]]) -> str:
    compare = [r for r in rows if r.get("part") == "compare" and isinstance(r["replicate"], int)]
    if not compare:
        return "synthetic pool workload (not run)"
    count = len({r["replicate"] for r in compare})
    first = compare[0]
    return (
        f"synthetic pool workload (make_workload), {count} replicates of seed {first['seed']}; "
        f"Q = {first['quantum']:g} s, MAX_MF = {first['max_mf']}"
    )


def claims(rows: Sequence[Mapping[str, Any]]) -> list[Claim]:
    """The report's claims, each an estimate over the replicates of the comparison.

    1. `pfs-interactive-vs-batch` (the report's "Baseline schedulers" and its
       table: batch schedulers have "no support for interactive jobs"; the MF
       scheduler supports them): PFS's short-burst response against `fcfs`
       (static placement, run to completion), expected at most half of it.
    2. `pfs-interactive-vs-round-robin` (ours): against plain time-slicing.
    3. For each reading $R$ (the hypothesis, and its conclusion): the three
       tests of [`HYPOTHESIS`][schedlib.experiments.frequency.HYPOTHESIS],
       `mfs-cpu/R`, `mfs-response/R`, `mfs-short/R`.

    `claims([])` gives every claim, `not run`.

    Examples
    --------
    >>> [c.key for c in claims([])][:4]
    ['pfs-interactive-vs-batch', 'pfs-interactive-vs-round-robin', \
'mfs-cpu/head-node/always/availability', 'mfs-response/head-node/always/availability']
    """
    runs = _per_replicate(rows)
    data = _context(rows)

    def change(policy: str, readings: str, other: str, other_readings: str, column: str) -> Any:
        mine, theirs = runs.get((policy, readings), {}), runs.get((other, other_readings), {})
        common = sorted(set(mine) & set(theirs))
        if not common:
            return None
        return _change([mine[r] for r in common], [theirs[r] for r in common], column)

    pfs = _label("pfs", Readings())
    short = f"mean response of the interactive bursts of at most {SHORT_BURST:g} s of work"
    out = [
        Claim(
            "pfs-interactive-vs-batch",
            "batch schedulers (Condor, OpenPBS) have 'no support for interactive jobs'; the MF "
            "scheduler supports them ('Baseline schedulers'; 'Table comparing related "
            "schedulers')",
            data,
            f"pfs minus fcfs (static placement, run to completion), {short}, % of fcfs, "
            "paired per replicate",
            Expect.below(-50.0),
            change("pfs", pfs, "fcfs", _STATIC, "short_response"),
        ),
        Claim(
            "pfs-interactive-vs-round-robin",
            "PFS, serving unpreempted jobs first, answers short interactive bursts faster than "
            "plain round robin",
            data,
            f"pfs minus round_robin (static placement, time-sliced), {short}, % of round_robin, "
            "paired per replicate",
            Expect.below(0.0),
            change("pfs", pfs, "round_robin", _STATIC, "short_response"),
            origin="ours",
        ),
    ]
    texts = {
        "cpu": "scheduling the CPU-intensive jobs by their migration frequency 'would improve "
        "their overall runtime efficiency' (Hypothesis)",
        "response": "interactive jobs 'are relatively unaffected by the migration frequency "
        "based scheduling' (Conclusion)",
        "short": "the low-CPU bursts of interactive jobs are 'relatively unaffected' "
        "(Conclusion: 'the interactive (low CPU-bursts) jobs')",
    }
    for read in Readings.every():
        for key, column, what, expect in HYPOTHESIS:
            out.append(
                Claim(
                    f"mfs-{key}/{read.label}",
                    f"{texts[key]}; reading {read.label}",
                    data,
                    f"pfs+mfs minus pfs, {what}, % of pfs, paired per replicate",
                    expect,
                    change(
                        "pfs+mfs",
                        read.label,
                        "pfs",
                        _label("pfs", _without_mfs(read)),
                        column,
                    ),
                )
            )
    return out


# --- figures -----------------------------------------------------------------------------


def _means(rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [r for r in rows if r.get("part") == "compare" and r.get("replicate") == "mean"]


def plot_comparison(rows: Sequence[Mapping[str, Any]], path: str) -> None:
    """Bars of the comparison at the default readings: turnaround, response, moves.

    Raises
    ------
    SchedlibError
        If matplotlib is missing (names the `plot` extra).
    """
    from schedlib.results.plotting import pyplot, save_figure

    plt = pyplot()
    default = {_label("pfs", Readings()), Readings().label, _STATIC}
    means = [r for r in _means(rows) if r["readings"] in default]
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
    first = means[0] if means else {"quantum": math.nan, "max_mf": "?", "replicates": "?"}
    fig.suptitle(
        f"The four policies at the default readings (Q = {first['quantum']:g} s, "
        f"MAX_MF = {first['max_mf']}), means over {first['replicates']} replicates; "
        "error bars: sd over replicates"
    )
    fig.tight_layout()
    save_figure(fig, path, dpi=100)


def _reading_estimates(
    rows: Sequence[Mapping[str, Any]],
) -> list[tuple[str, list[tuple[float, float]]]]:
    """Per reading: (change, half-width) of each test of the hypothesis."""
    found = {c.key: c.estimate for c in claims(rows)}
    out = []
    for read in Readings.every():
        values = []
        for key, *_ in HYPOTHESIS:
            estimate = found.get(f"mfs-{key}/{read.label}")
            values.append(
                (math.nan, math.nan)
                if estimate is None
                else (estimate.value, estimate.half_width())  # type: ignore[union-attr]
            )
        out.append((read.label, values))
    return out


def plot_readings(rows: Sequence[Mapping[str, Any]], path: str) -> None:
    """The hypothesis under each reading: the three changes with their 95 % intervals.

    Raises
    ------
    SchedlibError
        If matplotlib is missing (names the `plot` extra).
    """
    from schedlib.results.plotting import pyplot, save_figure

    plt = pyplot()
    estimates = _reading_estimates(rows)
    fig, axes = plt.subplots(1, len(HYPOTHESIS), figsize=(15, 4.6), sharey=True)
    ys = list(range(len(estimates)))
    for ax, (index, (_, _, what, expect)) in zip(axes, enumerate(HYPOTHESIS), strict=True):
        values = [e[index] for _, e in estimates]
        ax.errorbar(
            [v for v, _ in values],
            ys,
            xerr=[h for _, h in values],
            fmt="o",
            color="tab:blue",
            capsize=3,
        )
        ax.axvline(0.0, color="black", linewidth=0.8)
        if expect.low is not None and expect.high is not None:
            ax.axvspan(expect.low, expect.high, color="tab:green", alpha=0.15)
        ax.set_title(f"{what}\n(% change; expected {expect.describe('%')})", fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(ys)
    axes[0].set_yticklabels([label for label, _ in estimates], fontsize=8)
    axes[0].invert_yaxis()
    fig.suptitle("PFS+MFS against PFS under each reading: mean change and 95 % interval")
    fig.tight_layout()
    save_figure(fig, path, dpi=100)


def plot_sweep(
    rows: Sequence[Mapping[str, Any]], path: str, *, readings: str | None = None
) -> None:
    """Heat maps of the sweep under one reading: the three changes in percent, with verdicts.

    Parameters
    ----------
    rows
        Rows of `reproduce`.
    path
        The PNG to write.
    readings
        The reading's label (default: the first one swept).

    Raises
    ------
    SchedlibError
        If matplotlib is missing (names the `plot` extra).
    InvalidValueError
        If the rows hold no sweep under that reading.
    """
    from schedlib.results.plotting import pyplot, save_figure

    plt = pyplot()
    sweep = [r for r in rows if r.get("part") == "sweep"]
    label = readings if readings is not None else (sweep[0]["readings"] if sweep else None)
    sweep = [r for r in sweep if r["readings"] == label]
    if not sweep:
        raise InvalidValueError("readings", label, "the rows hold no sweep under this reading")
    quanta = sorted({r["quantum"] for r in sweep})
    limits = sorted({r["max_mf"] for r in sweep})
    cell = {(r["quantum"], r["max_mf"]): r for r in sweep}
    fig, axes = plt.subplots(1, len(HYPOTHESIS), figsize=(15, 4.4))
    for ax, (key, _, what, _) in zip(axes, HYPOTHESIS, strict=True):
        grid = [[_number(cell[(q, m)][f"{key}_change_pct"]) for m in limits] for q in quanta]
        image = ax.imshow(grid, cmap="RdYlGn_r", vmin=-20, vmax=20, aspect="auto")
        for i, q in enumerate(quanta):
            for j, m in enumerate(limits):
                row = cell[(q, m)]
                ax.text(
                    j,
                    i,
                    f"{_number(row[f'{key}_change_pct']):+.1f}\n"
                    f"±{_number(row[f'{key}_half_width']):.1f}\n{row[f'{key}_verdict']}",
                    ha="center",
                    va="center",
                    fontsize=7,
                )
        ax.set_xticks(range(len(limits)))
        ax.set_xticklabels([str(m) for m in limits])
        ax.set_yticks(range(len(quanta)))
        ax.set_yticklabels([f"{q:g}" for q in quanta])
        ax.set_xlabel("MAX_MF")
        ax.set_ylabel("quantum Q (s)")
        ax.set_title(f"{what} (% change)", fontsize=9)
        fig.colorbar(image, ax=ax, fraction=0.046)
    fig.suptitle(
        f"PFS+MFS against PFS, reading {label}: mean change ± 95 % half-width and the verdict "
        "of each test (Holm over the whole sweep); colours clipped at ±20 %"
    )
    fig.tight_layout()
    save_figure(fig, path, dpi=100)


def _number(value: Any) -> float:
    return math.nan if value is None else float(value)


def figures() -> dict[str, Callable[[Sequence[Mapping[str, Any]], str], None]]:
    """The page's figures: file name -> `draw(rows, path)`."""
    out: dict[str, Callable[[Sequence[Mapping[str, Any]], str], None]] = {
        "frequency.png": plot_comparison,
        "frequency_readings.png": plot_readings,
    }
    for read in SWEEP_READINGS:
        out[_sweep_figure(read)] = partial(plot_sweep, readings=read.label)
    return out


def _sweep_figure(readings: Readings) -> str:
    return f"frequency_sweep_{readings.next_burst.replace('-', '_')}.png"


# --- the page ------------------------------------------------------------------------------


def _fmt(value: Any, digits: int = 1, sign: bool = False) -> str:
    number = _number(value)
    if math.isnan(number):
        return "-"
    return f"{number:+.{digits}f}" if sign else f"{number:.{digits}f}"


def _compare_table(rows: Sequence[Mapping[str, Any]]) -> str:
    table = []
    for r in _means(rows):
        table.append(
            {
                "policy": f"`{r['policy']}`",
                "readings": f"`{r['readings']}`",
                "CPU-bound turnaround (s)": f"{_fmt(r['cpu_turnaround'])} ± "
                f"{_fmt(r['cpu_turnaround_sd'])}",
                "response, all bursts (s)": f"{_fmt(r['response'], 2)} ± "
                f"{_fmt(r['response_sd'], 2)}",
                "p95 (s)": _fmt(r["response_p95"], 2),
                "response, short bursts (s)": _fmt(r["short_response"], 2),
                "migrations": _fmt(r["migrations"]),
                "preemptions": _fmt(r["preemptions"], 0),
                "banned": _fmt(r["banned"]),
            }
        )
    return markdown_table(table)


def _readings_table(document: Mapping[str, Any]) -> str:
    judged = {c["key"]: c for c in document["claims"]}
    table = []
    for read in Readings.every():
        row: dict[str, str] = {"reading": f"`{read.label}`"}
        verdicts = []
        for key, _, what, _ in HYPOTHESIS:
            claim_row = judged[f"mfs-{key}/{read.label}"]
            verdicts.append(claim_row["verdict"])
            row[what] = f"{claim_row['ours']} **{claim_row['verdict']}**"
        row["the hypothesis"] = f"**{conjunction(verdicts)}**"
        table.append(row)
    return markdown_table(table)


def _sweep_table(rows: Sequence[Mapping[str, Any]], label: str) -> str:
    table = []
    for r in rows:
        if r.get("part") != "sweep" or r["readings"] != label:
            continue
        row: dict[str, str] = {"$Q$": f"{r['quantum']:g}", "`MAX_MF`": str(r["max_mf"])}
        for key, _, what, _ in HYPOTHESIS:
            row[what] = (
                f"{_fmt(r[f'{key}_change_pct'], sign=True)} ± {_fmt(r[f'{key}_half_width'])} "
                f"({r[f'{key}_verdict']})"
            )
        row["banned / run"] = _fmt(r["banned"])
        row["verdict"] = f"**{r['verdict']}**"
        table.append(row)
    return markdown_table(table)


def _hypothesis_by_reading(document: Mapping[str, Any]) -> dict[str, str]:
    judged = {c["key"]: c["verdict"] for c in document["claims"]}
    return {
        read.label: conjunction([judged[f"mfs-{key}/{read.label}"] for key, *_ in HYPOTHESIS])
        for read in Readings.every()
    }


def _readings_where(document: Mapping[str, Any], verdict: str) -> str:
    found = [f"`{label}`" for label, v in _hypothesis_by_reading(document).items() if v == verdict]
    return ", ".join(found) if found else "none"


def _half_widths(rows: Sequence[Mapping[str, Any]], key: str) -> tuple[float, float]:
    """The smallest and largest 95 % half-width of test `key` over the readings (percent)."""
    widths = [
        c.estimate.half_width()  # type: ignore[union-attr]
        for c in claims(rows)
        if c.key.startswith(f"mfs-{key}/") and c.estimate is not None
    ]
    return (min(widths), max(widths)) if widths else (math.nan, math.nan)


def _default_cell(document: Mapping[str, Any]) -> str:
    judged = {c["key"]: c for c in document["claims"]}
    label = Readings().label
    parts = [f"{what} {judged[f'mfs-{key}/{label}']['ours']}" for key, _, what, _ in HYPOTHESIS]
    return "; ".join(parts)


def _setup_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """The setup of the documented run, from the module's constants and the rows."""
    means = _means(rows)
    first = means[0] if means else {"quantum": math.nan, "max_mf": "?", "replicates": 0}
    sweep = [r for r in rows if r.get("part") == "sweep"]
    shape, cost = DEFAULT_SHAPE, DEFAULT_COST
    remote = ", ".join(f"({n.speed:g}, {n.availability:g})" for n in POOL[1:])
    rates = [n.rate for n in POOL[1:]]
    count = int(_number(first["replicates"]))
    seed = first.get("seed", 0)
    quanta = ", ".join(f"{q:g}" for q in sorted({r["quantum"] for r in sweep}))
    limits = ", ".join(str(m) for m in sorted({r["max_mf"] for r in sweep}))
    swept = ", ".join(f"`{x}`" for x in dict.fromkeys(r["readings"] for r in sweep))
    table = [
        (
            "pool",
            f"a head node (speed {POOL[0].speed:g}, availability {POOL[0].availability:g}) "
            f"and {len(POOL) - 1} remote nodes, (speed, availability): {remote} — rates "
            f"$s a$ from {min(rates):g} to {max(rates):g}, {sum(rates):g} in all",
        ),
        (
            "interactive jobs",
            f"{shape.interactive} per replicate; {shape.bursts[0]}-"
            f"{shape.bursts[1]} CPU bursts of exponential work (mean {shape.burst_mean:g} s) "
            f"separated by exponential idle times (mean {shape.think_mean:g} s)",
        ),
        (
            "morphing jobs",
            f"a share {shape.morph_share:g} of the interactive jobs (`--morph-share`) "
            f"has one burst, not its first, of {shape.morph_work[0]:g}-{shape.morph_work[1]:g} s "
            "(the report's image-processing job that \"morph[s] into more CPU-intensive "
            'computation")',
        ),
        (
            "CPU-bound jobs",
            f"{shape.cpu_bound} per replicate, one burst of "
            f"$U({shape.cpu_work[0]:g}, {shape.cpu_work[1]:g})$ s of work",
        ),
        ("arrivals", f"uniform over {shape.horizon:g} s (a Poisson process given the count)"),
        (
            "comparison",
            f"$Q$ = {_number(first['quantum']):g} s, $g$ = {DEFAULT_GRACE:g} (the "
            f"report's), `MAX_PREEMPTION` {Settings().max_preemption}, `MAX_MF` "
            f"{first['max_mf']}, $K_C$ = {cost.communication:g} s, "
            f"$K_{{C/R}}$ = {cost.checkpoint_restart:g} s ($K$ = {cost.total:g} s)",
        ),
        (
            "sweep",
            f"$Q \\in \\{{{quanta}\\}}$ × `MAX_MF` $\\in \\{{{limits}\\}}$ under {swept}",
        ),
        ("replicates", f"{count} (seed {seed}, replicates 0..{count - 1})"),
        (
            "policies",
            "`pfs`, `pfs+mfs` (under each reading), and the static-placement baselines "
            "`round_robin` and `fcfs`",
        ),
    ]
    return markdown_table([{"": f"**{k}**", " ": v} for k, v in table])


def _stability(full: Mapping[str, Any], sizes: Sequence[int] = (20, 30)) -> str:
    """How many of the documented verdicts the first `n` replicates of the run would change."""
    rows = full["rows"]
    documented = {c["key"]: c["verdict"] for c in full["claims"]}
    parts = []
    for n in sizes:
        fewer = [
            r for r in rows if not (isinstance(r.get("replicate"), int) and r["replicate"] >= n)
        ]
        changed = [
            (documented[row["key"]], row["verdict"])
            for row in claim_rows(claims(fewer))
            if row["verdict"] != documented[row["key"]]
        ]
        weaker = sum(1 for _, now in changed if now == "inconclusive")
        parts.append(
            f"at {n} replicates {len(changed)} of the {len(documented)} verdicts differ from "
            f"those at {len({r['replicate'] for r in rows if isinstance(r.get('replicate'), int)})}"
            f" ({weaker} of them decided at full size and inconclusive with fewer)"
        )
    return "; ".join(parts)


def _quick_differs() -> str:
    if not QUICK_DIFFERS:
        return "none"
    return "; ".join(f"`{key}` ({why})" for key, why in QUICK_DIFFERS.items())


def _identical(rows: Sequence[Mapping[str, Any]]) -> str:
    """The readings of `pfs+mfs` whose runs measure the same in every replicate."""
    runs = _per_replicate(rows)
    seen: dict[tuple[Any, ...], list[str]] = {}
    for (policy, label), by_replicate in runs.items():
        if policy == "pfs+mfs":
            key = tuple(tuple(by_replicate[r][m] for m in _MEASURES) for r in sorted(by_replicate))
            seen.setdefault(key, []).append(f"`{label}`")
    groups = [" and ".join(labels) for labels in seen.values() if len(labels) > 1]
    return "; ".join(groups) if groups else "no two readings"


def page_sections(full: Mapping[str, Any], quick: Mapping[str, Any]) -> dict[str, str]:
    """The generated sections of `docs/reproductions/frequency.md` (besides the claims tables).

    Parameters
    ----------
    full, quick
        Documented results (see
        [`results_document`][schedlib.experiments.pages.results_document]).
    """
    rows = full["rows"]
    compare = [r for r in rows if r.get("part") == "compare" and r.get("replicate") == "mean"]
    first = compare[0] if compare else {"replicates": 0, "quantum": math.nan, "max_mf": "?"}
    cpu_low, cpu_high = _half_widths(rows, "cpu")
    response = [_half_widths(rows, key) for key in ("response", "short")]
    quick_means = _means(quick["rows"])
    sections = {
        "full-replicates": str(first["replicates"]),
        "full-quantum": f"{_number(first['quantum']):g}",
        "full-max-mf": str(first["max_mf"]),
        "full-margin": f"{MARGIN:g}",
        "full-compare": _compare_table(rows),
        "full-readings": _readings_table(full),
        "full-holds": _readings_where(full, "holds"),
        "full-fails": _readings_where(full, "does not hold"),
        "full-inconclusive": _readings_where(full, "inconclusive"),
        "full-default-cell": _default_cell(full),
        "full-cpu-widths": f"{cpu_low:.1f} to {cpu_high:.1f}",
        "full-response-widths": (
            f"{min(w[0] for w in response):.1f} to {max(w[1] for w in response):.1f}"
        ),
        "quick-replicates": str(quick_means[0]["replicates"]) if quick_means else "0",
        "full-setup": _setup_table(rows),
        "full-short": f"{SHORT_BURST:g}",
        "full-identical": _identical(rows),
        "full-stability": _stability(full),
        "quick-differs": _quick_differs(),
    }
    for read in SWEEP_READINGS:
        sections[f"full-sweep-{read.next_burst}"] = _sweep_table(rows, read.label)
    return sections


# --- command line --------------------------------------------------------------------------


def _numbers(text: str, name: str, kind: type = float) -> list[Any]:
    try:
        return [kind(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise InvalidValueError(name, text, "must be a comma-separated list of numbers") from None


def _readings_option(text: str, name: str) -> tuple[Readings, ...]:
    if text.strip() in ("", "none"):
        return ()
    if text.strip() == "all":
        return Readings.every()
    try:
        return tuple(Readings.from_label(part.strip()) for part in text.split(","))
    except InvalidValueError as error:
        raise InvalidValueError(name, text, str(error)) from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `schedlib reproduce frequency` (the CLI adds `--format`)."""
    parser.add_argument(
        "--replicates",
        type=int,
        default=REPLICATES,
        help=f"independent replicates (default: {REPLICATES})",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed; replicates are (seed, 0..R-1) (default: 0)"
    )
    parser.add_argument(
        "--quantum", type=float, default=QUANTUM, help=f"comparison: Q in s ({QUANTUM:g})"
    )
    parser.add_argument("--max-mf", type=int, default=MAX_MF, help=f"comparison: MAX_MF ({MAX_MF})")
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
        "--readings",
        default="all",
        help="comparison: readings next_burst/remote_queue/mfs, comma-separated, or 'all' "
        "(default: all eight)",
    )
    parser.add_argument("--quanta", default="0.5,1,2,4", help="sweep: quanta (0.5,1,2,4)")
    parser.add_argument("--max-mfs", default="0,1,2,4,8", help="sweep: MAX_MF values (0,1,2,4,8)")
    parser.add_argument(
        "--sweep-readings",
        default=",".join(r.label for r in SWEEP_READINGS),
        help="sweep: readings, comma-separated, or 'none' (default: "
        + ",".join(r.label for r in SWEEP_READINGS)
        + ")",
    )
    parser.add_argument("--workers", type=int, default=None, help="processes (default: every CPU)")
    parser.add_argument("--plot", metavar="FILE", help="draw the comparison into FILE (.png)")
    parser.add_argument(
        "--plot-sweep", metavar="FILE", help="draw the sweep of the first swept reading (.png)"
    )
    add_claims_argument(parser)
    add_quick_argument(
        parser,
        {"replicates": 15, "quanta": "1", "max_mfs": "0,4"},
        full_time="2 min (4 with other work on the machine)",
        quick_time="20 s",
    )


def settings_of(args: argparse.Namespace) -> Settings:
    """The [`Settings`][schedlib.experiments.frequency.Settings] of parsed options."""
    shape = DEFAULT_SHAPE
    if args.morph_share is not None:
        require(args.morph_share, "--morph-share", at_least=0, at_most=1)
        shape = attrs.evolve(shape, morph_share=args.morph_share)
    require(args.replicates, "replicates", at_least=1)
    require(args.seed, "seed", at_least=0)
    if args.workers is not None:
        require(args.workers, "workers", at_least=1)
    return Settings(
        replicates=args.replicates,
        seed=args.seed,
        quantum=args.quantum,
        max_mf=args.max_mf,
        max_preemption=args.max_preemption,
        grace=args.grace,
        cost=MigrationCost(args.kc, args.kcr),
        shape=shape,
        readings=_readings_option(args.readings, "--readings"),
        quanta=tuple(_numbers(args.quanta, "--quanta")),
        max_mfs=tuple(_numbers(args.max_mfs, "--max-mfs", int)),
        sweep_readings=_readings_option(args.sweep_readings, "--sweep-readings"),
    )


def data(args: argparse.Namespace) -> str:
    """The data of a run: the synthetic pool workload, its replicates, and the sweep."""
    settings = settings_of(args)
    shape = settings.shape
    sweep = (
        f"; sweep over Q in {{{', '.join(f'{q:g}' for q in settings.quanta)}}} x MAX_MF in "
        f"{{{', '.join(str(m) for m in settings.max_mfs)}}} under "
        + ", ".join(r.label for r in settings.sweep_readings)
        if settings.sweep_readings
        else ""
    )
    return (
        f"synthetic pool workload ({shape.interactive} interactive and {shape.cpu_bound} "
        f"CPU-bound jobs over {shape.horizon:g} s, morphing share {shape.morph_share:g}) on "
        f"the 7-node pool; {settings.replicates} replicates (seed {settings.seed}, replicates "
        f"0..{settings.replicates - 1}); comparison at Q = {settings.quantum:g} s, MAX_MF = "
        f"{settings.max_mf}{sweep}"
    )


def rows(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The reproduction's rows for parsed options (no printing, no plot)."""
    return reproduce(settings_of(args), workers=args.workers, show_progress=True)


def main(args: argparse.Namespace) -> int:
    """Run the comparison and the sweep, print their rows (the table: the aggregates) and claims."""
    note = apply_quick(args)
    check_plot_target(args.plot)
    check_plot_target(args.plot_sweep)
    table = rows(args)
    if args.plot:
        plot_comparison(table, args.plot)
    if args.plot_sweep:
        plot_sweep(table, args.plot_sweep)
    print_note(note, args.format)
    if args.format != "table":
        print_results(table, claims(table), args, name=NAME)
        return 0
    sweep = [r for r in table if r["part"] == "sweep"]
    if sweep and not args.claims:
        print(render([{k: v for k, v in r.items() if k in _SWEEP_SHOWN} for r in sweep]))
        print()
    print_results([dict(r) for r in _means(table)], claims(table), args, name=NAME)
    return 0


_SWEEP_SHOWN = (
    "readings",
    "quantum",
    "max_mf",
    *(f"{key}_{what}" for key, *_ in HYPOTHESIS for what in ("change_pct", "half_width")),
    "banned",
    "verdict",
)
