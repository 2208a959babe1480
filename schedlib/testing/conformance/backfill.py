"""Conformance checks for backfilling schedulers: rigid parallel jobs on one cluster.

A scheduler of this family is given in one of three forms:

| form | the scheduler | run by |
|---|---|---|
| `"decide"` | `Snapshot -> Decision` (like `easy`) | `schedule(policy="easy", decide=f)` |
| `"plan"` | `Plan -> PlanDecision` (like `conservative`) | `schedule(policy="conservative", ...)` |
| `"schedule"` | `(jobs, cluster) -> RunRecord` or a tuple | `RunRecord.from_schedule` |

The tuple is `(starts, ends[, places[, killed]])`: mappings job id -> time,
job id -> processor ids, and the ids of the jobs killed at their limit.

A function of one argument defaults to `"decide"`, of two to `"schedule"`;
pass `form="plan"` for a conservative planner. Inputs come from
[`parallel_instances`][schedlib.testing.strategies.parallel_instances]
, half dense (at most 4 processors, 10 jobs submitted in $[0, 3]$,
requested times up to 6 s: many conflicts) and half spread out (6
processors, 8 jobs over $[0, 20]$), with exact, early and overrunning
runtimes; `options` may override `max_processors`, `max_jobs`,
`max_submit`, `max_requested_time` and `runtimes`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from schedlib.backfill.forms import form_of, to_record
from schedlib.model import Cluster, EventKind, Job, RunRecord
from schedlib.testing.conformance.core import Check, Family, _call, basic_checks, register
from schedlib.testing.invariants import (
    check_capacity,
    check_conservative_reservations,
    check_easy_head_never_delayed,
    check_fcfs_order,
    check_kill_at_limit,
    check_reservations_feasible,
)

__all__ = [
    "BACKFILL",
    "check_bounded_wait",
    "check_non_clairvoyant",
    "to_record",
]

Instance = tuple[Cluster, list[Job]]
Run = Callable[[Any], RunRecord]

SABIN = "Sabin et al. (2003) §2"
LIFKA = "Lifka (1995); Mu'alem and Feitelson (2001) §2"
MUALEM = "Mu'alem and Feitelson (2001) §2"


# ---------------------------------------------------------------- checks of this module


def check_bounded_wait(record: RunRecord) -> None:
    """No starvation: every job starts within a bound that later arrivals cannot push.

    Let jobs be in queue order (submit time, then id), $k_j$ the number of
    jobs before job $j$ and $R$ the longest requested time of the workload.
    Every job that is not excluded starts, and

    $$ b_j \\le s_j + k_j\\,R . $$

    The bound depends on the jobs submitted before $j$ and on $R$ only: no
    number of later arrivals (of requested time at most $R$) can raise it, so
    a policy whose waiting jobs can be overtaken for ever by a stream of later
    ones (greedy first fit without a reservation) breaks it once the stream is
    long enough.

    Notes
    -----
    Why EASY, conservative backfilling and FCFS keep it (Mu'alem and Feitelson
    2001, §2: the reservation of the first waiting job prevents starvation):
    when a job becomes the first waiting one at time $T$, every running job
    ends by $T + R$ at the latest (it is killed at its requested time), so its
    shadow time, and its start, are at most $T + R$. If $q$ jobs wait ahead of
    $j$ at its submission, $j$ starts by $s_j + (q + 1) R$; and $j$ waits at
    all only if some job queued before it holds processors then (else the
    first waiting job would fit an empty machine), so $q + 1 \\le k_j$.
    Under conservative backfilling $j$'s reservation on arrival is at most
    $s_j + (q + 1) R$ by the same count, and it never moves later.
    Complexity: $O(n \\log n)$.

    Raises
    ------
    AssertionError
        Naming the job, its start (or that it never starts) and the bound.

    Examples
    --------
    >>> jobs = [Job(1, 0, 1, 10, 10), Job(2, 0, 1, 10, 10)]
    >>> check_bounded_wait(RunRecord.from_schedule(jobs, {1: 0, 2: 10}, {1: 10, 2: 20}, capacity=1))
    >>> check_bounded_wait(RunRecord.from_schedule(jobs, {1: 0, 2: 11}, {1: 10, 2: 21}, capacity=1))
    Traceback (most recent call last):
    ...
    AssertionError: job 2 starts at t=11, later than its bound t=10 = submit 0 + 1 job(s) before it x longest requested time 10
    """  # noqa: E501
    jobs = sorted(record.workload, key=lambda j: (j.submit, j.id))
    if not jobs:
        return
    longest = max(j.requested_time for j in jobs)
    excluded = {
        e.job for e in record.events if e.kind in (EventKind.REJECT, EventKind.LOG_CANCELLED)
    }
    start = {o.job: o.start for o in record.outcomes}
    for k, job in enumerate(jobs):
        if job.id in excluded:
            continue
        bound = job.submit + k * longest
        begun = start.get(job.id)
        if begun is None or begun > bound:
            when = "never starts" if begun is None else f"starts at t={begun}"
            raise AssertionError(
                f"job {job.id} {when}, later than its bound t={bound} = submit {job.submit} + "
                f"{k} job(s) before it x longest requested time {longest}"
            )


def _once(check: Callable[[RunRecord], None]) -> Callable[[Run, Instance], None]:
    def verify(run: Run, instance: Instance) -> None:
        check(run(instance))

    return verify


def check_non_clairvoyant(
    run: Callable[[Cluster, list[Job]], RunRecord], cluster: Cluster, jobs: list[Job]
) -> None:
    """Runs differing only in one job's actual runtime agree until a difference can be seen.

    For each job in turn, its runtime is replaced by each of 0, its requested
    time and more than twice that; the two runs must log the same events
    before the first moment that job's end could differ (its start plus the
    smallest of the two runtimes and its requested time).

    Parameters
    ----------
    run
        `run(cluster, jobs)`: a fresh run of the scheduler, as a record.
    cluster, jobs
        The input.

    Raises
    ------
    AssertionError
        Naming the job, the two runtimes and the first entry of the logs that differs.

    Notes
    -----
    Complexity: up to $3n + 1$ runs for $n$ jobs.

    Examples
    --------
    >>> from schedlib.backfill import schedule
    >>> def easy(cluster, jobs):
    ...     return schedule(jobs, cluster, policy="easy")
    >>> check_non_clairvoyant(easy, Cluster(2), [Job(1, 0, 2, 10, 4), Job(2, 1, 1, 5, 5)])
    """
    a = run(cluster, jobs)
    start_a = {o.job: o.start for o in a.outcomes}
    for k, job in enumerate(jobs):
        for other in (0, job.requested_time, 2 * job.requested_time + 1):
            if other == job.runtime:
                continue
            changed = [*jobs[:k], attrs.evolve(job, runtime=other), *jobs[k + 1 :]]
            b = run(cluster, changed)
            start = start_a.get(job.id)
            horizon = (
                float("inf")
                if start is None
                else start + min(other, job.runtime, job.requested_time)
            )
            before_a = [e for e in a.events if e.time < horizon]
            before_b = [e for e in b.events if e.time < horizon]
            if before_a == before_b:
                continue
            n = min(len(before_a), len(before_b))
            i = next((i for i in range(n) if before_a[i] != before_b[i]), n)
            x = before_a[i] if i < len(before_a) else "nothing"
            y = before_b[i] if i < len(before_b) else "nothing"
            raise AssertionError(
                "the decisions depend on actual runtimes, which a real scheduler does not "
                f"know: with job {job.id}'s runtime {job.runtime} changed to {other} (its end "
                f"cannot differ before t={horizon}), the run differs at {x!r} versus {y!r}"
            )


def _non_clairvoyant(run: Run, instance: Instance) -> None:
    cluster, jobs = instance[0], instance[1]
    check_non_clairvoyant(lambda c, j: run((c, j)), cluster, list(jobs))


def _easy_head(record: RunRecord) -> None:
    check_easy_head_never_delayed(record)


def _conservative(record: RunRecord) -> None:
    check_conservative_reservations(record)
    check_reservations_feasible(record)


CHECKS = (
    *basic_checks(
        "backfill",
        lambda record, instance: record,
        lambda record, instance: check_capacity(record),
        capacity_asserts="no processor is used twice at once or beyond the machine, and each "
        "job holds exactly its processors",
        reference=SABIN,
        capacity_snippet=_call("check_capacity"),
    ),
    Check(
        "non-clairvoyant",
        "backfill",
        "runs whose inputs differ only in actual runtimes agree until the first moment "
        "an end could differ: decisions use requested times only",
        SABIN + " (the scheduler knows user estimates, not runtimes)",
        True,
        _non_clairvoyant,
    ),
    Check(
        "kill-at-limit",
        "backfill",
        "each job runs min(runtime, requested time) and is killed exactly when it overruns",
        MUALEM,
        False,
        _once(check_kill_at_limit),
        snippet=_call("check_kill_at_limit"),
    ),
    Check(
        "fcfs-order",
        "backfill",
        "no job starts before a job submitted earlier",
        SABIN + " (FCFS)",
        False,
        _once(check_fcfs_order),
        snippet=_call("check_fcfs_order"),
    ),
    Check(
        "easy-head",
        "backfill",
        "the first waiting job never starts later than its shadow time, and logged "
        "reservations never move later",
        LIFKA,
        False,
        _once(_easy_head),
        snippet=_call("check_easy_head_never_delayed"),
    ),
    Check(
        "conservative-reservations",
        "backfill",
        "every job gets a reservation on arrival, reservations never move later, every "
        "job starts by its reservation, and the promises fit the machine",
        MUALEM + "; " + SABIN,
        False,
        _once(_conservative),
        frozenset({"decide", "plan"}),
        snippet=_call("check_conservative_reservations", "check_reservations_feasible"),
    ),
    Check(
        "no-starvation",
        "backfill",
        "every job starts within k x R of its submission (k jobs submitted before it, R the "
        "longest requested time): a bound no stream of later arrivals can push; its inputs "
        "put such a stream behind a job as wide as the machine, so greedy first fit without "
        "a reservation fails it",
        MUALEM + " (reservations prevent starvation)",
        False,
        _once(check_bounded_wait),
        snippet=_call("check_bounded_wait", module="schedlib.testing.conformance.backfill"),
    ),
)


# -------------------------------------------------------------------------- the family


def _runner(form: str, scheduler: Any, options: Mapping[str, Any]) -> Run:
    from schedlib.backfill import schedule

    name = getattr(scheduler, "__name__", type(scheduler).__name__)

    def run(instance: Any) -> RunRecord:
        cluster, jobs = instance[0], instance[1]
        if form == "schedule":
            return to_record(scheduler(list(jobs), cluster), list(jobs), cluster, name)
        policy = "conservative" if form == "plan" else "easy"
        return schedule(jobs, cluster, policy=policy, decide=scheduler, log_reservations=True)

    return run


_STRATEGY_OPTIONS = ("max_processors", "max_jobs", "max_submit", "max_requested_time", "runtimes")


def _instances(options: Mapping[str, Any], check: Check) -> Any:
    from hypothesis import strategies as st

    from schedlib.testing.strategies import parallel_instances

    given = {k: v for k, v in options.items() if k in _STRATEGY_OPTIONS}
    if check.name == "no-starvation":
        return _behind_a_stream(parallel_instances(**{"max_jobs": 5, "max_submit": 5, **given}))
    dense = {"max_processors": 4, "max_jobs": 10, "max_submit": 3, "max_requested_time": 6}
    spread = {"max_processors": 6, "max_jobs": 8, "max_submit": 20}
    inputs = st.one_of(
        *(
            parallel_instances(**{"runtimes": "any", **bounds, **given})
            for bounds in (dense, spread)
        )
    )
    return inputs


def _behind_a_stream(instances: Any) -> Any:
    """Inputs that starve a wide job under a policy without a reservation: a drawn input, then
    a job as wide as the machine, then a stream of 20 to 60 narrower jobs, each arriving
    before the previous one ends (so the machine is never wholly free while the stream
    lasts)."""
    from hypothesis import strategies as st

    @st.composite
    def draw(data: Any) -> Instance:
        cluster, jobs = data(instances)
        width = cluster.processors
        wide_at = data(st.integers(0, 6))
        gap = data(st.integers(1, 3))
        length = data(st.integers(gap + 1, 3 * gap + 2))
        procs = data(st.integers(1, max(1, width - 1)))
        count = data(st.integers(20, 60))
        first = max((j.id for j in jobs), default=0) + 1
        wide = Job(first, wide_at, width, length, length)
        stream = [
            Job(first + 1 + i, wide_at + 1 + i * gap, procs, length, length) for i in range(count)
        ]
        return cluster, [*jobs, wide, *stream]

    return draw()


def _reproduce(
    instance: Any, form: str, name: str, check: Check, options: Mapping[str, Any]
) -> str:
    """Source that rebuilds the input, runs the scheduler as the suite did (`run`) and
    re-runs the failed check, for every form and every check."""
    cluster, jobs = instance
    lines = [
        "from schedlib.model import Cluster, Job",
        f"cluster = {cluster!r}",
        "jobs = [",
        *(f"    {job!r}," for job in jobs),
        "]",
        *_run_source(form, name),
        "record = run(cluster, jobs)",
        *_check_source(check),
        f"# violated: {check.name}: {check.asserts}",
    ]
    return "\n".join(lines)


def _run_source(form: str, name: str) -> list[str]:
    """`def run(cluster, jobs)`: a fresh run of the scheduler `name`, as a record."""
    if form == "schedule":
        return [
            "from schedlib.testing.conformance.backfill import to_record",
            "def run(cluster, jobs):",
            f"    return to_record({name}(list(jobs), cluster), list(jobs), cluster)",
        ]
    policy = "conservative" if form == "plan" else "easy"
    return [
        "from schedlib.backfill import schedule",
        "def run(cluster, jobs):",
        f'    return schedule(jobs, cluster, policy="{policy}", decide={name}, '
        "log_reservations=True)",
    ]


def _check_source(check: Check) -> list[str]:
    """The lines re-running `check` on `record` (and on fresh runs, for the checks of two)."""
    if check.name == "determinism":
        return [
            "again = run(cluster, jobs)",
            'assert again.events == record.events, "two runs on the same input differ"',
        ]
    if check.name == "non-clairvoyant":
        return [
            "from schedlib.testing.conformance.backfill import check_non_clairvoyant",
            "check_non_clairvoyant(run, cluster, jobs)",
        ]
    return check.snippet.splitlines()


BACKFILL = register(
    Family(
        "backfill",
        {
            "decide": "Snapshot -> Decision, run as FCFS/EASY on schedlib's engine",
            "plan": "Plan -> PlanDecision, run as conservative backfilling on schedlib's engine",
            "schedule": "(jobs, cluster) -> RunRecord or (starts, ends[, places[, killed]])",
        },
        form_of,
        _runner,
        _instances,
        _reproduce,
        CHECKS,
    )
)
