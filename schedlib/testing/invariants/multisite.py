r"""Checkers for runs of one job stream over several sites (multiple requests, efficacy).

Each takes a finished [`RunRecord`][schedlib.model.RunRecord] of a multi-site
run and returns `None` when its property holds, raising `AssertionError`
naming the job, the site and the time otherwise. They read only the log, so
they apply to any metascheduler that writes one in this shape:

- processors have global ids: site $s$ owns $[o_s, o_s + P_s)$ with
  $o_s = \sum_{s' < s} P_{s'}$; `START`, `COMPLETE`, `KILL` and `CANCEL` (a
  running copy stopped) name processors;
- `ASSIGN` (a copy joins a site's queue), `RETURN` (a waiting copy
  withdrawn) and `RESERVE` (a copy's reservation, `at`) name the site as
  `(site,)`.

The site sizes come from the `sites` argument, or from the record's
`parameters["sites"]` (`((name, processors), ...)`, as
[`simulate_multisite`][schedlib.multisite.simulate_multisite] writes them).
`estimates[job][site]` is a job's requested time at a site
([`MultiSiteRun.estimates`][schedlib.multisite.MultiSiteRun]).

| checker | property (Sabin et al. 2003) |
|---|---|
| `check_within_one_site` | every execution uses the processors of one site (§3) |
| `check_one_execution_at_a_time` | a job never runs twice at once and completes exactly once (§4) |
| `check_copies_withdrawn` | when a copy starts, the other copies go at that instant (§4, §5) |
| `check_multisite_reservations` | a site's reservation never moves later and is kept (§2, §5) |
| `check_completion_bound` | a job ends by its first promise at every site (§5, §6) |
| `check_utilisations` | $0 \le$ effective utilisation $\le$ utilisation $\le 1$ (§4) |
| `check_messages` | at least $3(K-1)$ messages per start, $2N$ more per query (§7) |
| `check_multisite_run` | all that apply to a run's policy, and the common ones |

Examples
--------
>>> from schedlib.multisite import MultiSiteJob, RuntimeMatrix, Site, simulate_multisite
>>> jobs = [MultiSiteJob(i, i, 2, 10, 5) for i in range(6)]
>>> matrix = RuntimeMatrix(((1.0, 2.0),), ("only",))
>>> run = simulate_multisite(jobs, [Site("a", 4), Site("b", 2)], "conservative-mr",
...                          matrix=matrix, log_reservations=True)
>>> check_multisite_run(run)
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from typing import Any

from schedlib.model import EventKind, JobEvent, JobId, RunRecord, Time
from schedlib.place import ProcessorSet
from schedlib.testing.invariants.common import (
    check_capacity,
    check_every_job_accounted,
    check_lifecycle,
)

__all__ = [
    "check_completion_bound",
    "check_copies_withdrawn",
    "check_messages",
    "check_multisite_reservations",
    "check_multisite_run",
    "check_one_execution_at_a_time",
    "check_utilisations",
    "check_within_one_site",
    "site_offsets",
]

_EPS = 1e-9
_ENDS = (EventKind.COMPLETE, EventKind.KILL, EventKind.CANCEL)


def site_offsets(sizes: Sequence[int]) -> tuple[int, ...]:
    """First global processor id of each site: $o_s = \\sum_{s' < s} P_{s'}$.

    Examples
    --------
    >>> site_offsets([4, 2, 8])
    (0, 4, 6)
    """
    offsets, total = [], 0
    for size in sizes:
        offsets.append(total)
        total += size
    return tuple(offsets)


def _sizes(record: RunRecord, sites: Sequence[int] | None) -> tuple[int, ...]:
    if sites is not None:
        return tuple(sites)
    described = record.parameter("sites")
    if not described:
        raise ValueError("the site sizes are needed: pass sites=[P_0, P_1, ...]")
    return tuple(int(procs) for _, procs in described)


def _site(place: Sequence[int], offsets: Sequence[int]) -> int:
    return bisect_right(offsets, place[0]) - 1


def _instants(record: RunRecord) -> list[list[JobEvent]]:
    groups: list[list[JobEvent]] = []
    for event in record.events:
        if groups and groups[-1][0].time == event.time:
            groups[-1].append(event)
        else:
            groups.append([event])
    return groups


def check_within_one_site(record: RunRecord, *, sites: Sequence[int] | None = None) -> None:
    """Every execution runs on processors of a single site, and never more than it has.

    With [`check_capacity`][schedlib.testing.invariants.common.check_capacity]
    (no processor id held twice at once) this gives per-site capacity:
    $\\sum_{j \\text{ running at } s} n_j \\le P_s$ at every instant.

    Raises
    ------
    AssertionError
        Naming the job, its processors and the sites they belong to.

    Examples
    --------
    >>> from schedlib.model import Job, JobEvent
    >>> bad = RunRecord.from_log("x", [Job(1, 0, 2, 5, 5)], [
    ...     JobEvent(0, 1, EventKind.SUBMIT), JobEvent(0, 1, EventKind.START, (3, 4)),
    ...     JobEvent(5, 1, EventKind.COMPLETE, (3, 4))], capacity=6)
    >>> check_within_one_site(bad, sites=[4, 2])
    Traceback (most recent call last):
    AssertionError: job 1 started at t=0 on processors 3-4 of sites [0, 1]: an execution must stay within one site
    """  # noqa: E501
    sizes = _sizes(record, sites)
    offsets = site_offsets(sizes)
    total = sum(sizes)
    for e in record.events:
        if e.kind is not EventKind.START:
            continue
        if e.place and e.place.ranges[-1][1] > total:
            raise AssertionError(
                f"job {e.job} started at t={e.time} on processors {e.place}: "
                f"the sites have ids 0..{total - 1}"
            )
        owners = sorted(
            {
                site
                for lo, hi in e.place.ranges
                for site in range(_site((lo,), offsets), _site((hi - 1,), offsets) + 1)
            }
        )
        if len(owners) != 1:
            raise AssertionError(
                f"job {e.job} started at t={e.time} on processors {e.place} of sites "
                f"{owners}: an execution must stay within one site"
            )


def check_one_execution_at_a_time(record: RunRecord) -> None:
    """A job runs at one site at a time, and exactly one of its executions runs to its end.

    Every `START` is closed by `COMPLETE`, `KILL` or `CANCEL` before the job's
    next `START`; a job that ran ends with exactly one `COMPLETE` or `KILL`
    (cancelled executions are the copies stopped for a faster one).

    Raises
    ------
    AssertionError
        Naming the job, the time and what overlapped or was missing.

    Examples
    --------
    >>> from schedlib.model import Job, JobEvent
    >>> bad = RunRecord.from_log("x", [Job(1, 0, 1, 5, 5)], [
    ...     JobEvent(0, 1, EventKind.SUBMIT), JobEvent(0, 1, EventKind.START, (0,)),
    ...     JobEvent(1, 1, EventKind.START, (1,)), JobEvent(5, 1, EventKind.COMPLETE, (0,)),
    ...     JobEvent(6, 1, EventKind.COMPLETE, (1,))], capacity=2)
    >>> check_one_execution_at_a_time(bad)
    Traceback (most recent call last):
    AssertionError: job 1 started on processors 1 at t=1 while still running on processors 0 since t=0
    """  # noqa: E501
    running: dict[JobId, tuple[Time, ProcessorSet]] = {}
    finished: dict[JobId, int] = {}
    started: set[JobId] = set()
    for e in record.events:
        if e.kind is EventKind.START:
            if e.job in running:
                since, place = running[e.job]
                raise AssertionError(
                    f"job {e.job} started on processors {e.place} at t={e.time} while still "
                    f"running on processors {place} since t={since}"
                )
            running[e.job] = (e.time, e.place)
            started.add(e.job)
        elif e.kind in _ENDS and e.job in running:
            del running[e.job]
            if e.kind is not EventKind.CANCEL:
                finished[e.job] = finished.get(e.job, 0) + 1
    for job in sorted(started):
        if finished.get(job, 0) != 1:
            raise AssertionError(
                f"job {job} ran to its end {finished.get(job, 0)} times: exactly once expected"
            )


def _copies(
    events: Sequence[JobEvent], offsets: Sequence[int], live: dict[JobId, set[int]]
) -> dict[JobId, tuple[int, Time, frozenset[int]]]:
    """Apply one instant's events to the waiting copies.

    Returns, for each job started in the instant, its last start's site,
    time and the sites of its other copies waiting just before that start
    (none when the job also ended within the instant: its copies go then).
    """
    starts: dict[JobId, tuple[int, Time, frozenset[int]]] = {}
    for e in events:
        if e.kind is EventKind.ASSIGN:
            live.setdefault(e.job, set()).add(e.place[0])
        elif e.kind is EventKind.RETURN:
            live.get(e.job, set()).discard(e.place[0])
        elif e.kind is EventKind.START:
            site = _site(e.place, offsets)
            copies = live.setdefault(e.job, set())
            copies.discard(site)
            starts[e.job] = (site, e.time, frozenset(copies))
        elif e.kind in (EventKind.COMPLETE, EventKind.KILL) and e.job in starts:
            site, time, _ = starts[e.job]
            starts[e.job] = (site, time, frozenset())  # ended within the instant: none kept
    return starts


def check_copies_withdrawn(
    record: RunRecord,
    *,
    cancel: str = "all",
    estimates: Mapping[JobId, Sequence[Time]] | None = None,
    sites: Sequence[int] | None = None,
) -> None:
    """When a copy starts, the other copies are withdrawn at that same instant.

    `cancel="all"`: no copy of the job still waits once the instant is over
    (atomic cancellation, §4). `cancel="slower"`: exactly the copies at sites
    where the job's requested time is *strictly* shorter than where it
    started still wait (§5: only slower sites cancel), unless the job also
    ended within that instant; needs `estimates`.

    Raises
    ------
    AssertionError
        Naming the job, the site it started at, the time and the copies left
        (or withdrawn) against the rule.

    Examples
    --------
    >>> from schedlib.model import Job, JobEvent
    >>> log = [JobEvent(0, 1, EventKind.SUBMIT), JobEvent(0, 1, EventKind.ASSIGN, (0,)),
    ...        JobEvent(0, 1, EventKind.ASSIGN, (1,)), JobEvent(0, 1, EventKind.START, (0,)),
    ...        JobEvent(5, 1, EventKind.COMPLETE, (0,))]
    >>> bad = RunRecord.from_log("x", [Job(1, 0, 1, 5, 5)], log, capacity=2)
    >>> check_copies_withdrawn(bad, sites=[1, 1])
    Traceback (most recent call last):
    AssertionError: job 1 started at site 0 at t=0 but its copies at sites [1] still wait after that instant (expected: none)
    """  # noqa: E501
    if cancel not in ("all", "slower"):
        raise ValueError(f"cancel must be 'all' or 'slower', not {cancel!r}")
    if cancel == "slower" and estimates is None:
        raise ValueError("cancel='slower' needs the estimates")
    offsets = site_offsets(_sizes(record, sites))
    live: dict[JobId, set[int]] = {}
    for group in _instants(record):
        for job, (site, time, before) in _copies(group, offsets, live).items():
            left = live.get(job, set())
            if cancel == "all":
                expected: set[int] = set()
            else:
                assert estimates is not None
                mine = estimates[job][site]
                expected = {s for s in before if estimates[job][s] < mine}
            if left != expected:
                raise AssertionError(
                    f"job {job} started at site {site} at t={time} but its copies at sites "
                    f"{sorted(left)} still wait after that instant (expected: "
                    f"{sorted(expected) or 'none'})"
                )


def check_multisite_reservations(record: RunRecord, *, sites: Sequence[int] | None = None) -> None:
    """Conservative sites: a copy's reservation never moves later, and it is kept.

    Per (job, site), the `RESERVE` times are non-increasing (a withdrawn copy
    or an early end elsewhere only frees room, §2 compression); a copy that
    starts at a site starts exactly at its last reservation there; a copy
    never waits past its reservation (it starts or is withdrawn by then).
    Run with `log_reservations=True`.

    Raises
    ------
    AssertionError
        Naming the job, the site, the old and the new promise.

    Examples
    --------
    >>> from schedlib.model import Job, JobEvent
    >>> log = [JobEvent(0, 1, EventKind.SUBMIT), JobEvent(0, 1, EventKind.ASSIGN, (0,)),
    ...        JobEvent(0, 1, EventKind.RESERVE, (0,), at=3),
    ...        JobEvent(1, 1, EventKind.RESERVE, (0,), at=4),
    ...        JobEvent(4, 1, EventKind.START, (0,)), JobEvent(9, 1, EventKind.COMPLETE, (0,))]
    >>> bad = RunRecord.from_log("x", [Job(1, 0, 1, 5, 5)], log, capacity=1)
    >>> check_multisite_reservations(bad, sites=[1])
    Traceback (most recent call last):
    AssertionError: job 1 at site 0: reservation moved later at t=1, from 3 to 4
    """
    offsets = site_offsets(_sizes(record, sites))
    promise: dict[tuple[JobId, int], Time] = {}
    for group in _instants(record):
        now = group[0].time
        for e in group:
            if e.kind is EventKind.RESERVE:
                key = (e.job, e.place[0])
                assert e.at is not None
                old = promise.get(key)
                if old is not None and e.at > old:
                    raise AssertionError(
                        f"job {e.job} at site {key[1]}: reservation moved later at t={e.time}, "
                        f"from {old} to {e.at}"
                    )
                promise[key] = e.at
            elif e.kind is EventKind.START:
                key = (e.job, _site(e.place, offsets))
                at = promise.pop(key, None)
                if at is not None and at != e.time:
                    raise AssertionError(
                        f"job {e.job} at site {key[1]}: started at t={e.time}, "
                        f"its reservation was {at}"
                    )
            elif e.kind is EventKind.RETURN:
                promise.pop((e.job, e.place[0]), None)
        for (job, site), at in promise.items():
            if at < now:
                raise AssertionError(
                    f"job {job} at site {site}: still waiting at t={now}, past its reservation {at}"
                )


def check_completion_bound(record: RunRecord, *, estimates: Mapping[JobId, Sequence[Time]]) -> None:
    """Completion-based starts: a job ends by its earliest first promise over its sites.

    $$ e_j \\le \\min_{s} \\big( r^{(1)}_{j,s} + d_{j,s} \\big) $$

    over the sites $s$ that gave job $j$ a reservation, $r^{(1)}_{j,s}$ the
    first one (logged `RESERVE`), $d_{j,s}$ its requested time there.

    **Why.** Reservations never move later, so the completion a site expects
    for its copy never grows. A copy starts only when no other live copy is
    expected to complete strictly earlier, and a copy is dropped only when
    another is; so the least expected completion over the live copies never
    grows, and the job ends by it. This is also the no-starvation bound of
    efficacy priority (§6): ordering a queue by efficacy decides only where
    a *new* copy is placed, never moving an existing promise, so every job
    runs, by the bound above, however many more efficient jobs arrive. It
    fails when a site re-plans its queue from scratch in priority order.

    Raises
    ------
    AssertionError
        Naming the job, its end and the site whose promise it broke.

    Examples
    --------
    >>> from schedlib.model import Job, JobEvent
    >>> log = [JobEvent(0, 1, EventKind.SUBMIT), JobEvent(0, 1, EventKind.RESERVE, (0,), at=0),
    ...        JobEvent(0, 1, EventKind.RESERVE, (1,), at=2),
    ...        JobEvent(0, 1, EventKind.START, (0,)), JobEvent(10, 1, EventKind.COMPLETE, (0,))]
    >>> bad = RunRecord.from_log("x", [Job(1, 0, 1, 10, 10)], log, capacity=2)
    >>> check_completion_bound(bad, estimates={1: (10, 5)})
    Traceback (most recent call last):
    AssertionError: job 1 ended at t=10 but site 1 promised completion by 7 (reservation 2 + requested 5)
    """  # noqa: E501
    first: dict[JobId, dict[int, Time]] = {}
    for e in record.events:
        if e.kind is EventKind.RESERVE:
            assert e.at is not None
            first.setdefault(e.job, {}).setdefault(e.place[0], e.at)
    for outcome in record.outcomes:
        promises = first.get(outcome.job)
        if outcome.end is None or not promises:
            continue
        site, at = min(promises.items(), key=lambda item: item[1] + estimates[outcome.job][item[0]])
        bound = at + estimates[outcome.job][site]
        if outcome.end > bound:
            raise AssertionError(
                f"job {outcome.job} ended at t={outcome.end} but site {site} promised "
                f"completion by {bound} (reservation {at} + requested "
                f"{estimates[outcome.job][site]})"
            )


def check_utilisations(utilisation: float, effective: float) -> None:
    """$0 \\le U_{eff} \\le U \\le 1$: efficacy is at most 1, and no processor is used twice.

    Raises
    ------
    AssertionError
        Naming both values.

    Examples
    --------
    >>> check_utilisations(0.8, 0.6)
    >>> check_utilisations(0.8, 0.9)
    Traceback (most recent call last):
    AssertionError: effective utilisation 0.9 above utilisation 0.8 (efficacy is at most 1)
    """
    if math.isnan(utilisation) and math.isnan(effective):
        return  # nothing ran
    if not 0 <= utilisation <= 1 + _EPS:
        raise AssertionError(f"utilisation {utilisation} outside [0, 1]")
    if effective < -_EPS:
        raise AssertionError(f"effective utilisation {effective} below 0")
    if effective > utilisation + _EPS:
        raise AssertionError(
            f"effective utilisation {effective} above utilisation {utilisation} "
            "(efficacy is at most 1)"
        )


def check_messages(
    record: RunRecord,
    messages: int,
    *,
    queried: bool = False,
    sites: Sequence[int] | None = None,
) -> None:
    """The control messages are at least the paper's minimum (§7).

    $$ M \\ge \\sum_{j \\text{ started}} 3 (K_j - 1)
       + [\\text{queried}] \\cdot 2 N J $$

    $K_j$ the copies of job $j$ (its `ASSIGN` events), $N$ the sites, $J$ the
    jobs given copies; `queried`: sites were chosen by querying each site's
    completion time (a query and a reply per site and job).

    Raises
    ------
    AssertionError
        Naming the count and the minimum.

    Examples
    --------
    >>> from schedlib.model import Job, JobEvent
    >>> log = [JobEvent(0, 1, EventKind.SUBMIT), JobEvent(0, 1, EventKind.ASSIGN, (0,)),
    ...        JobEvent(0, 1, EventKind.ASSIGN, (1,)), JobEvent(0, 1, EventKind.START, (0,)),
    ...        JobEvent(0, 1, EventKind.RETURN, (1,)), JobEvent(5, 1, EventKind.COMPLETE, (0,))]
    >>> record = RunRecord.from_log("x", [Job(1, 0, 1, 5, 5)], log, capacity=2)
    >>> check_messages(record, 3, sites=[1, 1])
    >>> check_messages(record, 2, sites=[1, 1])
    Traceback (most recent call last):
    AssertionError: 2 control messages, below the minimum 3 (3(K-1) per start for 1 started jobs)
    """
    copies: dict[JobId, int] = {}
    started: set[JobId] = set()
    for e in record.events:
        if e.kind is EventKind.ASSIGN:
            copies[e.job] = copies.get(e.job, 0) + 1
        elif e.kind is EventKind.START:
            started.add(e.job)
    minimum = sum(3 * (copies.get(j, 1) - 1) for j in started)
    what = f"3(K-1) per start for {len(started)} started jobs"
    if queried:
        n = len(_sizes(record, sites))
        minimum += 2 * n * len(copies)
        what += f", 2N = {2 * n} per job for {len(copies)} jobs"
    if messages < minimum:
        raise AssertionError(f"{messages} control messages, below the minimum {minimum} ({what})")


def check_multisite_run(run: Any) -> None:
    """Every checker that applies to a [`MultiSiteRun`][schedlib.multisite.MultiSiteRun].

    The common ones (accounting, lifecycle, capacity), one site per
    execution, one execution at a time, copies withdrawn as its policy says,
    utilisations and messages; on conservative sites, with reservations
    logged, the reservation rules; with completion-based starts, the
    completion bound.

    Raises
    ------
    AssertionError
        From the first checker that fails.
    """
    record: RunRecord = run.record
    p = dict(record.parameters)
    sizes = [site.processors for site in run.sites]
    check_every_job_accounted(record)
    check_lifecycle(record)
    check_capacity(record)
    check_within_one_site(record, sites=sizes)
    check_one_execution_at_a_time(record)
    check_copies_withdrawn(record, cancel=p["cancel"], estimates=run.estimates, sites=sizes)
    check_utilisations(run.utilisation, run.effective_utilisation)
    check_messages(record, run.messages, queried=p["selection"] == "completion", sites=sizes)
    logged = any(e.kind is EventKind.RESERVE for e in record.events)
    if p["local"] == "conservative" and logged:
        check_multisite_reservations(record, sites=sizes)
        if p["start"] == "completion":
            check_completion_bound(record, estimates=run.estimates)
