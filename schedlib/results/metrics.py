"""Metrics of a finished run: functions of its record, never of engine internals.

Per-job metrics take a [`JobOutcome`][schedlib.model.JobOutcome] and return
`None` for a job that never ran. [`summarize`][schedlib.results.metrics.summarize]
aggregates a whole [`RunRecord`][schedlib.model.RunRecord].

Notes
-----
For a job with submission time $s$, first start $b$, end $e$ and executed time
$r$ (the sum of its execution segments; $r = e - b$ when it was never
interrupted):

| metric | formula |
|---|---|
| wait | $w = b - s$ |
| turnaround | $T = e - s$ |
| slowdown | $T / r$ (undefined when $r = 0$) |
| bounded slowdown | $\\max\\left(1, \\dfrac{T}{\\max(r, \\tau)}\\right)$, $\\tau$ = 10 s default |

For a run on $C$ processing units, with $p_j$ units held by job $j$:

$$\\text{makespan} = \\max_j e_j - \\min_j b_j, \\qquad
U = \\frac{\\sum_j p_j r_j}{C \\cdot \\text{makespan}}$$

over the jobs that ran (the makespan definition is that of Sabin et al.,
Sabin et al. (2003) §6: last completion minus first start).

References
----------
Feitelson, Rudolph, Schwiegelshohn, Sevcik, Wong, "Theory and practice in
parallel job scheduling", JSSPP 1997 (bounded slowdown).

Examples
--------
>>> from schedlib.model import FinalState, JobOutcome
>>> o = JobOutcome(job=1, submit=0, procs=2, requested_time=100, state=FinalState.COMPLETED,
...                reason="", start=30, end=35, executed=5, place=(0, 1),
...                preemptions=0, migrations=0, failures=0)
>>> wait(o), turnaround(o), slowdown(o), bounded_slowdown(o)
(30, 35, 7.0, 3.5)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

import attrs

from schedlib.model import FinalState, JobOutcome, RunRecord, Time
from schedlib.results.quantiles import SpilledValues, interpolate, rank_position
from schedlib.validation import require

__all__ = [
    "SUMMARY_EXPLAINED",
    "SUMMARY_UNITS",
    "Summary",
    "bounded_slowdown",
    "makespan",
    "percentile",
    "ran",
    "slowdown",
    "summarize",
    "turnaround",
    "utilisation",
    "wait",
]

DEFAULT_BSLD_THRESHOLD: float = 10.0
"""Default $\\tau$ of the bounded slowdown, in seconds."""

_RAN = frozenset({FinalState.COMPLETED, FinalState.KILLED_AT_LIMIT})


def ran(outcome: JobOutcome) -> bool:
    """Whether the job ran to its end (completed, or killed at its limit).

    Examples
    --------
    >>> from schedlib.model import JobOutcome
    >>> ran(JobOutcome(1, 0, 1, None, FinalState.REJECTED, "too big", None, 0, 0, (), 0, 0, 0))
    False
    """
    return outcome.state in _RAN and outcome.start is not None and outcome.end is not None


def wait(outcome: JobOutcome) -> Time | None:
    """Wait time $b - s$: first start minus submission; `None` if never started."""
    return None if outcome.start is None else outcome.start - outcome.submit


def turnaround(outcome: JobOutcome) -> Time | None:
    """Turnaround $e - s$ of a job that ran; else `None`."""
    return outcome.end - outcome.submit if ran(outcome) else None  # type: ignore[operator]


def slowdown(outcome: JobOutcome) -> float | None:
    """Slowdown $T / r$; `None` if the job did not run or executed for 0 s."""
    t = turnaround(outcome)
    if t is None or outcome.executed <= 0:
        return None
    return t / outcome.executed


def bounded_slowdown(
    outcome: JobOutcome, threshold: float = DEFAULT_BSLD_THRESHOLD
) -> float | None:
    """Bounded slowdown $\\max(1, T / \\max(r, \\tau))$; `None` if the job did not run.

    Parameters
    ----------
    outcome
        The job's outcome.
    threshold
        $\\tau$ in seconds, `> 0`.
    """
    require(threshold, "threshold", greater_than=0)
    t = turnaround(outcome)
    if t is None:
        return None
    return max(1.0, t / max(outcome.executed, threshold))


def makespan(outcomes: Iterable[JobOutcome]) -> Time:
    """Last end minus first start over the jobs that ran (0 if none ran).

    Examples
    --------
    >>> makespan([])
    0
    """
    starts, ends = [], []
    for o in outcomes:
        if ran(o):
            starts.append(o.start)
            ends.append(o.end)
    return max(ends) - min(starts) if starts else 0  # type: ignore[operator,type-var]


def utilisation(record: RunRecord) -> float:
    """Share of the capacity used over the makespan, in $[0, 1]$.

    Counts the executed time of every job, including jobs that failed or
    were preempted (their executed time did occupy processors).
    """
    return summarize_outcomes(
        record.outcomes, algorithm=record.algorithm, capacity=record.capacity, median=False
    ).utilisation


def percentile(values: Sequence[float], q: float) -> float:
    """The `q`-th percentile (0-100) by linear interpolation between ranks.

    Returns NaN for an empty sequence.

    Examples
    --------
    >>> percentile([1, 2, 3, 4], 50)
    2.5
    >>> percentile([5], 90)
    5.0
    """
    require(q, "q", at_least=0, at_most=100)
    if not values:
        return math.nan
    data = sorted(values)
    pos, low, high = rank_position(len(data), q)
    return interpolate(data[low], data[high], pos, low)


@attrs.frozen(slots=True)
class Summary:
    """Aggregate metrics of one run; means are over the jobs that ran.

    Attributes
    ----------
    algorithm
        Scheduler name.
    jobs
        Number of input jobs.
    completed, killed, failed, unschedulable, rejected, cancelled
        Jobs per final state (they add up to `jobs` for a correct run).
    mean_wait, median_wait, max_wait
        Wait statistics in seconds.
    mean_turnaround
        Mean turnaround in seconds.
    mean_slowdown
        Mean slowdown over the jobs that executed for more than 0 s.
    mean_bounded_slowdown
        Mean bounded slowdown.
    utilisation
        See [`utilisation`][schedlib.results.metrics.utilisation].
    makespan
        See [`makespan`][schedlib.results.metrics.makespan].
    """

    algorithm: str
    jobs: int
    completed: int
    killed: int
    failed: int
    unschedulable: int
    rejected: int
    cancelled: int
    mean_wait: float
    median_wait: float
    max_wait: float
    mean_turnaround: float
    mean_slowdown: float
    mean_bounded_slowdown: float
    utilisation: float
    makespan: float

    def as_dict(self) -> dict[str, Any]:
        """The summary as a plain dict (for tables, JSON and CSV)."""
        return attrs.asdict(self)


SUMMARY_UNITS: Mapping[str, str] = MappingProxyType(
    {
        "jobs": "jobs",
        "completed": "jobs",
        "killed": "jobs",
        "failed": "jobs",
        "unschedulable": "jobs",
        "rejected": "jobs",
        "cancelled": "jobs",
        "mean_wait": "s",
        "median_wait": "s",
        "max_wait": "s",
        "mean_turnaround": "s",
        "mean_slowdown": "ratio",
        "mean_bounded_slowdown": "ratio",
        "utilisation": "fraction",
        "makespan": "s",
    }
)
"""The unit of each [`Summary`][schedlib.results.metrics.Summary] field, for tables."""

SUMMARY_EXPLAINED: Mapping[str, str] = MappingProxyType(
    {
        "jobs": "records of the workload, simulated or not; the six states below add up to it",
        "completed": "ran to their end",
        "killed": "stopped on reaching their requested time (runtime above the request)",
        "failed": "lost to a failure and given up",
        "unschedulable": "can never run on this machine (e.g. wider than it)",
        "rejected": "excluded before the simulation by the cleaning policy, with a reason",
        "cancelled": "cancelled in the original log before they ran (not simulated)",
        "mean_wait": "mean of start - submit over the jobs that ran",
        "median_wait": "median of start - submit over the jobs that ran",
        "max_wait": "largest start - submit",
        "mean_turnaround": "mean of end - submit over the jobs that ran",
        "mean_slowdown": "mean of (end - submit) / executed over the jobs that executed > 0 s",
        "mean_bounded_slowdown": "mean of max(1, (end - submit) / max(executed, 10 s))",
        "utilisation": "processor-seconds executed / (processors x makespan), in [0, 1]",
        "makespan": "last end - first start of the jobs that ran",
    }
)
"""What each [`Summary`][schedlib.results.metrics.Summary] field means, in one line."""


def summarize(record: RunRecord, *, threshold: float = DEFAULT_BSLD_THRESHOLD) -> Summary:
    """Aggregate a run record into a [`Summary`][schedlib.results.metrics.Summary].

    Parameters
    ----------
    record
        A finished run.
    threshold
        $\\tau$ of the bounded slowdown, in seconds.

    Returns
    -------
    Summary
        Counts per final state and the means of the per-job metrics.

    Notes
    -----
    Complexity: $O(n \\log n)$ for $n$ jobs (the median sorts).

    Examples
    --------
    >>> from schedlib.model import EventKind as K, Job, JobEvent, RunRecord
    >>> jobs = [Job(1, 0, 1, 10, 4), Job(2, 0, 1, 10, 6)]
    >>> log = [JobEvent(0, 1, K.SUBMIT), JobEvent(0, 2, K.SUBMIT),
    ...        JobEvent(0, 1, K.START, (0,)), JobEvent(4, 1, K.COMPLETE, (0,)),
    ...        JobEvent(4, 2, K.START, (0,)), JobEvent(10, 2, K.COMPLETE, (0,))]
    >>> s = summarize(RunRecord.from_log("fcfs", jobs, log, capacity=1))
    >>> (s.completed, s.mean_wait, s.mean_turnaround, s.utilisation)
    (2, 2.0, 7.0, 1.0)
    """
    return summarize_outcomes(
        record.outcomes, algorithm=record.algorithm, capacity=record.capacity, threshold=threshold
    )


def summarize_outcomes(
    outcomes: Iterable[JobOutcome],
    *,
    algorithm: str,
    capacity: int,
    threshold: float = DEFAULT_BSLD_THRESHOLD,
    median: bool = True,
) -> Summary:
    """[`summarize`][schedlib.results.metrics.summarize] over outcomes read once, in one pass.

    For runs handed out as a stream (e.g.
    [`schedule_iter`][schedlib.backfill.simulation.schedule_iter]): the
    outcomes may come in any order and are not kept.

    Parameters
    ----------
    outcomes
        Every job's outcome, any iterable (consumed once).
    algorithm, capacity
        As in the run record.
    threshold
        $\\tau$ of the bounded slowdown, in seconds.
    median
        Compute `median_wait`, exactly, in bounded memory: up to
        [`SPILL_LIMIT`][schedlib.results.quantiles.SPILL_LIMIT] waits are
        held, the rest go to a temporary file (8 bytes a job on disk, removed
        at the end; see [`SpilledValues`][schedlib.results.quantiles.SpilledValues]).
        With `False`, `median_wait` is NaN and nothing is written.

    Returns
    -------
    Summary
        The same figures as `summarize` gives for a record with these
        outcomes in this order.

    Raises
    ------
    InvalidValueError
        If `capacity` is not an integer >= 1, or `threshold` is not > 0
        (checked once, before the first outcome is read).

    Notes
    -----
    Means are running sums divided by counts, in the order given (for a
    record's outcomes: the same arithmetic as `summarize`). The per-job
    metrics ([`slowdown`][schedlib.results.metrics.slowdown],
    [`bounded_slowdown`][schedlib.results.metrics.bounded_slowdown], ...) are
    inlined in the one loop, with the same operations on the same values, so
    the figures are the same floats as summing those functions' results. Complexity:
    $O(n)$ time and $O(1)$ memory without the median; with it, $O(n \\log n)$
    time for up to `SPILL_LIMIT` jobs and $O(n)$ time beyond (a few passes
    over the temporary file), $O(1)$ memory either way.

    Examples
    --------
    >>> from schedlib.model import FinalState, JobOutcome
    >>> done = JobOutcome(1, 0, 2, 10, FinalState.COMPLETED, "", 5, 9, 4, (0, 1), 0, 0, 0)
    >>> s = summarize_outcomes(iter([done]), algorithm="easy", capacity=4, median=False)
    >>> (s.jobs, s.mean_wait, s.utilisation), math.isnan(s.median_wait)
    ((1, 5.0, 0.5), True)
    """
    require(capacity, "capacity", at_least=1)
    require(threshold, "threshold", greater_than=0)
    counts: dict[FinalState | None, int] = {state: 0 for state in FinalState}
    counts[None] = 0
    jobs = 0
    ran_count = slow_count = 0
    wait_sum: float = 0
    turn_sum: float = 0
    slow_sum: float = 0
    bsld_sum: float = 0
    most_wait: float | None = None
    first_start: Time | None = None
    last_end: Time | None = None
    used: float = 0
    waits = SpilledValues() if median else None
    keep = waits.append if waits is not None else None
    completed, killed = FinalState.COMPLETED, FinalState.KILLED_AT_LIMIT
    # One pass, each metric inlined (`ran`, `slowdown`, `bounded_slowdown`): the same
    # operations on the same values in the same order, so the same floats.
    for o in outcomes:
        jobs += 1
        state = o.state
        counts[state] += 1
        executed = o.executed
        used += o.procs * executed
        if state is not completed and state is not killed:
            continue
        start, end = o.start, o.end
        if start is None or end is None:
            continue
        ran_count += 1
        submit = o.submit
        waited = start - submit
        wait_sum += waited
        if keep is not None:
            keep(waited)
        if most_wait is None or waited > most_wait:
            most_wait = waited
        turned = end - submit
        turn_sum += turned
        if executed > 0:
            slow_count += 1
            slow_sum += turned / executed
        bounded = turned / (threshold if threshold > executed else executed)
        bsld_sum += bounded if bounded > 1.0 else 1.0
        if first_start is None or start < first_start:
            first_start = start
        if last_end is None or end > last_end:
            last_end = end
    span = last_end - first_start if first_start is not None and last_end is not None else 0
    median_wait = math.nan
    if waits is not None:
        median_wait = waits.percentile(50)
        waits.close()
    return Summary(
        algorithm=algorithm,
        jobs=jobs,
        completed=counts[FinalState.COMPLETED],
        killed=counts[FinalState.KILLED_AT_LIMIT],
        failed=counts[FinalState.FAILED],
        unschedulable=counts[FinalState.UNSCHEDULABLE],
        rejected=counts[FinalState.REJECTED],
        cancelled=counts[FinalState.CANCELLED_IN_LOG],
        mean_wait=wait_sum / ran_count if ran_count else math.nan,
        median_wait=median_wait,
        max_wait=float(most_wait) if most_wait is not None else math.nan,
        mean_turnaround=turn_sum / ran_count if ran_count else math.nan,
        mean_slowdown=slow_sum / slow_count if slow_count else math.nan,
        mean_bounded_slowdown=bsld_sum / ran_count if ran_count else math.nan,
        utilisation=used / (capacity * span) if span > 0 else 0.0,
        makespan=float(span),
    )
