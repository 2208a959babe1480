"""The set-up of the CSS 600 term report's experiment: the pool, the workload, the measures.

The pool of seven nodes ([`POOL`][schedlib.experiments.frequency.POOL]), the
synthetic workload of one replicate
([`make_workload`][schedlib.experiments.frequency.make_workload]), the three tests
of the report's hypothesis, and what is measured of a run
([`measure`][schedlib.experiments.frequency.measure]).
"""

from __future__ import annotations

import math
import statistics
from typing import Any

import attrs

from schedlib.errors import InvalidValueError
from schedlib.experiments.claims import WORDS, expectation
from schedlib.frequency.cost import MigrationCost
from schedlib.frequency.policies import Readings
from schedlib.frequency.pool import JobKind, PoolJob, PoolNode
from schedlib.frequency.simulation import BANNED_DETAIL
from schedlib.model import EventKind, RunRecord
from schedlib.replicates import stream
from schedlib.results.digest import schedule_digest
from schedlib.results.metrics import percentile
from schedlib.results.verdicts import Expect
from schedlib.validation import at_least

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
UNAFFECTED = "not significant"
"""The word of [`WORDS`][schedlib.experiments.claims.WORDS] that "relatively unaffected" gets."""
MARGIN = WORDS[UNAFFECTED][0]
"""Equivalence margin of "relatively unaffected", in percent of PFS's response (that of
"not significant" in [`WORDS`][schedlib.experiments.claims.WORDS], the same in every
reproduction)."""
SHORT_BURST = 1.0
"""Bursts of at most this much work (seconds) count as *short* (`short_response`)."""
SWEEP_QUANTA: tuple[float, ...] = (0.5, 1.0, 2.0, 4.0)
"""$Q$ of the sweep."""
SWEEP_MAX_MFS: tuple[int, ...] = (0, 1, 2, 4, 8)
"""`MAX_MF` of the sweep."""
SWEEP_READINGS: tuple[Readings, ...] = (Readings(), Readings(next_burst="last-node"))
"""The readings the sweep runs under by default: the default, and next bursts on the last node."""

HYPOTHESIS: tuple[tuple[str, str, str, Expect], ...] = (
    ("cpu", "cpu_turnaround", "CPU-bound turnaround", expectation("better")),
    ("response", "response", "interactive response, all bursts", expectation(UNAFFECTED)),
    (
        "short",
        "short_response",
        f"interactive response, bursts of at most {SHORT_BURST:g} s",
        expectation(UNAFFECTED),
    ),
)
"""The three tests of the hypothesis: `(key, measure, what, expectation)` on the change of
PFS+MFS against PFS, in percent of PFS's value, paired per replicate: "would improve" is
`better` (below 0), "relatively unaffected" is `not significant` (within the margin)."""
WORD_OF = {"cpu": "better", "response": UNAFFECTED, "short": UNAFFECTED}
"""The word of each test of [`HYPOTHESIS`][schedlib.experiments.frequency.HYPOTHESIS]."""


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
    >>> from schedlib.frequency.simulation import simulate_pool
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


def measure(record: RunRecord) -> dict[str, float | str]:
    """The measures of one run (see the module notes).

    Returns
    -------
    dict
        `cpu_turnaround` (mean over CPU-bound jobs), `response` and
        `response_p95` (mean and 95th percentile over the interactive jobs'
        bursts), `short_response` (mean over their bursts of at most
        [`SHORT_BURST`][schedlib.experiments.frequency.SHORT_BURST] of work),
        `migrations`, `preemptions`, `banned` (jobs banned, moved to the
        fastest node or on it already), `makespan`, `schedule` (the run's
        [`schedule_digest`][schedlib.results.digest.schedule_digest]: two runs with the
        same digest made the same schedule).
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
        "schedule": schedule_digest(record),
    }
