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
| `check_site_choice` | the $K$ least loaded or earliest completing sites, ties lowest (§4, §7) |
| `check_admission` | a due copy starts unless another completes strictly earlier (§5) |
| `check_queue_priority` | reservations in queue order (FCFS, efficacy) at earliest fit (§2, §6) |
| `check_utilisation_figures` | both utilisations equal their recomputation from the log (§4) |
| `check_multisite_run` | all that apply to a run's policy, and the common ones |

The first rows check invariants any correct run keeps; the decision checkers
(`check_site_choice` to `check_utilisation_figures`) replay the log and check
that each choice is the one the paper's rule makes from what the
metascheduler knew at that moment.

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
from fractions import Fraction
from typing import Any

from schedlib.model import EventKind, JobEvent, JobId, RunRecord, Time
from schedlib.place import ProcessorSet
from schedlib.testing.invariants.common import (
    check_capacity,
    check_every_job_accounted,
    check_lifecycle,
)

__all__ = [
    "check_admission",
    "check_completion_bound",
    "check_copies_withdrawn",
    "check_messages",
    "check_multisite_reservations",
    "check_multisite_run",
    "check_one_execution_at_a_time",
    "check_queue_priority",
    "check_site_choice",
    "check_utilisation_figures",
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
    estimates: Mapping[JobId, Sequence[Time | Fraction]] | None = None,
    sites: Sequence[int] | None = None,
    equal_speed: str = "cancel",
) -> None:
    """When a copy starts, the other copies are withdrawn at that same instant.

    `cancel="all"`: no copy of the job still waits once the instant is over
    (atomic cancellation, §4). `cancel="slower"`: exactly the copies at sites
    where the job's requested time is *strictly* shorter than where it
    started still wait (§5: only slower sites cancel; "slower" includes equal
    requested times), unless the job also ended within that instant; with
    `equal_speed="keep"` the copies of equal requested time wait too. Needs
    `estimates`, compared exactly: pass the requested times computed exactly
    from the inputs ([`MultiSiteRun.exact_estimates`][schedlib.multisite.MultiSiteRun])
    so that equal ones are equal.

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
    if equal_speed not in ("cancel", "keep"):
        raise ValueError(f"equal_speed must be 'cancel' or 'keep', not {equal_speed!r}")
    if cancel == "slower" and estimates is None:
        raise ValueError("cancel='slower' needs the estimates")
    offsets = site_offsets(_sizes(record, sites))
    live: dict[JobId, set[int]] = {}
    for group in _instants(record):
        # copies dropped at their turn in this instant (completion-based admission), not
        # withdrawn by a start or an end: a kept copy may be due now and lose its admission
        dropped = {
            (e.job, e.place[0])
            for i, e in enumerate(group)
            if e.kind is EventKind.RETURN and not _withdrawn(group, i)
        }
        for job, (site, time, before) in _copies(group, offsets, live).items():
            left = live.get(job, set())
            if cancel == "all":
                expected: set[int] = set()
            else:
                assert estimates is not None
                times = estimates[job]
                mine = times[site]
                expected = {
                    s
                    for s in before
                    if (times[s] < mine or (equal_speed == "keep" and times[s] == mine))
                    and (job, s) not in dropped
                }
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
       + [\\text{queried}] \\sum_{j} 2 N_j $$

    $K_j$ the copies of job $j$ (its `ASSIGN` events), $J$ the jobs given
    copies; `queried`: sites were chosen by querying the completion time of
    each site large enough for the job, $N_j$ of them (a query and a reply per
    site queried; $N_j = N$ when every site can hold the job).

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
        sizes = _sizes(record, sites)
        procs = {j.id: j.procs for j in record.workload}
        asked = sum(2 * sum(size >= procs[j] for size in sizes) for j in copies)
        minimum += asked
        what += f", 2 per site queried: {asked} for {len(copies)} jobs"
    if messages < minimum:
        raise AssertionError(f"{messages} control messages, below the minimum {minimum} ({what})")


# --------------------------------------------------------------------- decision checkers


class _Sites:
    """Every site's queue, reservations and running copies, replayed from the log.

    `apply(e)` moves the state past one entry; between two entries it is what
    the metascheduler knew at that point of the run. A running copy holds its
    processors over $[s, s + d_{j,s})$ (start plus requested time there: its
    planned end); a reservation over $[r, r + d_{j,s})$.
    """

    def __init__(
        self,
        record: RunRecord,
        sizes: Sequence[int],
        estimates: Mapping[JobId, Sequence[Time]],
        exact: Mapping[JobId, Sequence[Fraction]] | None = None,
    ) -> None:
        self.sizes = tuple(sizes)
        self.offsets = site_offsets(self.sizes)
        self.estimates = estimates
        self.exact = exact
        self.procs = {j.id: j.procs for j in record.workload}
        self.submit = {j.id: j.submit for j in record.workload}
        n = len(self.sizes)
        self.waiting: list[dict[JobId, None]] = [{} for _ in range(n)]
        self.reserved: list[dict[JobId, Time]] = [{} for _ in range(n)]
        self.running: list[dict[JobId, Time]] = [{} for _ in range(n)]
        self.assigned: dict[JobId, list[int]] = {}

    def apply(self, e: JobEvent) -> None:
        if e.kind is EventKind.ASSIGN:
            self.waiting[e.place[0]][e.job] = None
            self.assigned.setdefault(e.job, []).append(e.place[0])
        elif e.kind is EventKind.RETURN:
            self.waiting[e.place[0]].pop(e.job, None)
            self.reserved[e.place[0]].pop(e.job, None)
        elif e.kind is EventKind.RESERVE:
            assert e.at is not None
            self.reserved[e.place[0]][e.job] = e.at
        elif e.kind is EventKind.START:
            site = _site(e.place, self.offsets)
            self.waiting[site].pop(e.job, None)
            self.reserved[site].pop(e.job, None)
            self.running[site][e.job] = e.time
        elif e.kind in _ENDS and e.place:
            self.running[_site(e.place, self.offsets)].pop(e.job, None)

    def running_at(self, job: JobId) -> int | None:
        return next((s for s, run in enumerate(self.running) if job in run), None)

    def live(self, job: JobId) -> list[int]:
        """Sites holding a waiting copy of `job`, then the one running it."""
        sites = [s for s, wait in enumerate(self.waiting) if job in wait]
        running = self.running_at(job)
        return sites + ([running] if running is not None else [])

    def held(self, site: int, without: JobId | None = None) -> list[tuple[Time, Time, int]]:
        """`(from, to, processors)` of the running copies and reservations at `site`."""
        d = self.estimates
        out = [(s, s + d[j][site], self.procs[j]) for j, s in self.running[site].items()]
        out += [
            (r, r + d[j][site], self.procs[j])
            for j, r in self.reserved[site].items()
            if j != without
        ]
        return out

    def earliest_fit(
        self, site: int, now: Time, procs: int, duration: Time, without: JobId | None = None
    ) -> Time:
        """The earliest $s \\ge$ `now` with `procs` processors free over $[s, s + d)$."""
        held = self.held(site, without)
        for start in sorted({now} | {b for _, b, _ in held if b > now}):
            points = [start] + [a for a, _, _ in held if start < a < start + duration]
            if all(
                sum(n for a, b, n in held if a <= x < b) + procs <= self.sizes[site] for x in points
            ):
                return start
        raise AssertionError(f"no fit for {procs} processors at site {site}")  # pragma: no cover

    def earliest_start(self, site: int, now: Time, procs: int) -> Time:
        """EASY: the earliest time `procs` processors are free, by the planned ends."""
        ends = [(s + self.estimates[j][site], self.procs[j]) for j, s in self.running[site].items()]
        for t in sorted({now} | {e for e, _ in ends if e > now}):
            if self.sizes[site] - sum(n for e, n in ends if e > t) >= procs:
                return t
        raise AssertionError(f"no start for {procs} processors at site {site}")  # pragma: no cover

    def load(self, site: int, now: Time) -> Fraction:
        """Instantaneous load (§4): remaining processor-seconds per processor, exactly.

        Exact rational arithmetic on the float times (each one is a dyadic
        rational), so that equal loads tie whatever the order of the sums.
        """
        d = self.estimates
        queued = sum(self.procs[j] * Fraction(d[j][site]) for j in self.waiting[site])
        running = sum(
            self.procs[j] * (Fraction(s + d[j][site]) - Fraction(now))
            for j, s in self.running[site].items()
        )
        return Fraction(queued + running) / self.sizes[site]

    def expected(self, site: int, job: JobId, now: Time, conservative: bool) -> Time:
        """When `job` would complete at `site`, as the site answers a query now."""
        d = self.estimates[job][site]
        if job in self.running[site]:
            return self.running[site][job] + d
        if job in self.reserved[site]:
            return self.reserved[site][job] + d
        if conservative:
            return self.earliest_fit(site, now, self.procs[job], d) + d
        return self.earliest_start(site, now, self.procs[job]) + d

    def key(self, site: int, job: JobId, priority: str) -> tuple[Fraction, Time, JobId]:
        """The copy's place in the site's queue: `(-efficacy or 0, submit, id)` (§6).

        The efficacy is the exact ratio of the requested times: the exact ones when
        given (equal efficacies tie), else the float ones read as rationals.
        """
        first = Fraction(0)
        if priority == "efficacy":
            times = self.exact[job] if self.exact is not None else self.estimates[job]
            best = min(Fraction(times[s]) for s in self.assigned[job])
            first = -(best / Fraction(times[site]))
        return (first, self.submit[job], job)


def _close(a: float | Fraction, b: float | Fraction, tolerance: float) -> bool:
    """Whether `a` and `b` differ by at most `tolerance` relative to their size (0: equal)."""
    x, y = float(a), float(b)
    return a == b or abs(x - y) <= tolerance * max(1.0, abs(x), abs(y))


def check_site_choice(
    record: RunRecord,
    *,
    estimates: Mapping[JobId, Sequence[Time]],
    sites: Sequence[int] | None = None,
    tolerance: float = 1e-9,
) -> None:
    """Each job goes to the $K$ best sites among those large enough; ties to the lowest index.

    At the job's `SUBMIT` (after the completions and the earlier arrivals of
    that instant), the value of each site $s$ large enough for it is, with
    `selection="load"`, its instantaneous load (§4)

    $$ L_s = \\frac{1}{P_s} \\Big( \\sum_{j \\text{ queued at } s} n_j d_{j,s}
       + \\sum_{j \\text{ running at } s} n_j (b_j + d_{j,s} - t) \\Big) $$

    ($b_j$ its start, $d_{j,s}$ its requested time there), or with
    `selection="completion"` the completion the site would promise (§7): its
    earliest fit in the site's current schedule (running copies until their
    planned ends, the reservations held; EASY sites: the running copies
    only) plus $d_{j,s}$. The `ASSIGN` entries that follow must name the
    `copies` sites of least value (every site large enough when `copies` is
    `None`), ties to the lowest index; a job no site can hold gets none.
    Policy parameters come from the record (`selection`, `copies`, `local`);
    completion selection on conservative sites needs `log_reservations=True`.

    Parameters
    ----------
    record
        A multi-site run record.
    estimates
        `estimates[job][site]`: requested time of each job at each site.
    sites
        Site sizes (default: the record's `sites` parameter).
    tolerance
        Relative difference under which two values tie (either site may then
        be chosen); `0` checks the tie rule exactly (exact times only).

    Raises
    ------
    AssertionError
        Naming the job, the time, the site left out and the one chosen, with
        their values.

    Examples
    --------
    >>> from schedlib.multisite import MultiSiteJob, RuntimeMatrix, Site, simulate_multisite
    >>> jobs = [MultiSiteJob(0, 0, 2, 10, 10), MultiSiteJob(1, 0, 2, 10, 10)]
    >>> run = simulate_multisite(jobs, [Site("a", 2), Site("b", 2)], "greedy",
    ...                          matrix=RuntimeMatrix(((1.0, 1.0),), ("x",)))
    >>> check_site_choice(run.record, estimates=run.estimates, tolerance=0)
    """
    sizes = _sizes(record, sites)
    selection = record.parameter("selection", "load")
    copies = record.parameter("copies")
    conservative = record.parameter("local") == "conservative"
    state = _Sites(record, sizes, estimates)
    events = record.events
    for i, e in enumerate(events):
        if e.kind is EventKind.SUBMIT:
            chosen = []  # its ASSIGN entries (each may be followed by its reservation there)
            for later in events[i + 1 :]:
                if later.job != e.job or later.kind not in (EventKind.ASSIGN, EventKind.RESERVE):
                    break
                if later.kind is EventKind.ASSIGN:
                    chosen.append(later.place[0])
            _verify_choice(state, e.job, e.time, chosen, selection, copies, conservative, tolerance)
        state.apply(e)


def _verify_choice(
    state: _Sites,
    job: JobId,
    now: Time,
    chosen: list[int],
    selection: str,
    copies: int | None,
    conservative: bool,
    tolerance: float,
) -> None:
    procs = state.procs[job]
    fitting = [s for s, size in enumerate(state.sizes) if size >= procs]
    if not fitting:
        if chosen:
            raise AssertionError(
                f"job {job} ({procs} processors) sent to sites {chosen} at "
                f"t={now}: no site is large enough"
            )
        return
    wanted = min(len(fitting), copies if copies is not None else len(fitting))
    if sorted(set(chosen)) != chosen or len(chosen) != wanted or not set(chosen) <= set(fitting):
        raise AssertionError(
            f"job {job} sent to sites {chosen} at t={now}: expected {wanted} distinct sites, "
            f"ascending, among those large enough {fitting}"
        )
    value: dict[int, float | Fraction] = {}
    for s in fitting:
        if selection == "load":
            value[s] = state.load(s, now)
        else:
            d = state.estimates[job][s]
            if conservative:
                value[s] = state.earliest_fit(s, now, procs, d) + d
            else:
                value[s] = state.earliest_start(s, now, procs) + d
    what = "instantaneous load" if selection == "load" else "expected completion"
    for c in chosen:
        for o in fitting:
            if o in chosen:
                continue
            tie = value[o] == value[c] if tolerance == 0 else _close(value[o], value[c], tolerance)
            if (value[o] < value[c] and not tie) or (tie and tolerance == 0 and o < c):
                rule = " (ties go to the lowest index)" if tie else ""
                raise AssertionError(
                    f"job {job} at t={now}: site {o} ({what} {float(value[o])}) left out while "
                    f"site {c} ({what} {float(value[c])}) was chosen{rule}"
                )


def _withdrawn(events: Sequence[JobEvent], i: int) -> bool:
    """Whether the `RETURN` at `i` withdraws a copy because its job started or ended now."""
    e = events[i]
    k = i - 1
    while k >= 0 and events[k].kind is EventKind.RETURN and events[k].job == e.job:
        k -= 1
    if k >= 0 and events[k].kind is EventKind.START and events[k].job == e.job:
        return True  # the copies withdrawn as the job starts (logged right after the START)
    k = i + 1
    while k < len(events) and events[k].kind is EventKind.RETURN and events[k].job == e.job:
        k += 1
    after = events[k] if k < len(events) else None
    return (
        after is not None
        and after.job == e.job
        and after.kind in (EventKind.COMPLETE, EventKind.KILL)
        and after.time == e.time
    )  # the copies withdrawn as the job ends (logged right before its end)


def check_admission(
    record: RunRecord,
    *,
    estimates: Mapping[JobId, Sequence[Time]],
    sites: Sequence[int] | None = None,
) -> None:
    """Completion-based starts: a copy due now starts unless another completes strictly earlier.

    With `start="completion"` (§5), when a copy of job $j$ is due at site $s$
    at time $t$ it starts if no other live copy $o$ (a waiting one: its
    reservation plus $d_{j,o}$; a running one: its planned end) is expected
    to complete strictly earlier, $C_o < t + d_{j,s}$; otherwise it is dropped
    (`RETURN`) - only then, and only when due. A tie keeps the copy that is
    ready now; with the record's `admission_tie` parameter `"drop"`, a tie
    drops it ($C_o \\le t + d_{j,s}$). With start-based starts no copy is ever dropped. A `RETURN`
    right after the job's `START` (the other copies withdrawn), or right before
    its end, is not a decision of this rule. Run with `log_reservations=True`.

    Raises
    ------
    AssertionError
        Naming the job, the site, the time and the copy that completes earlier
        (or the absence of one).

    Examples
    --------
    >>> from schedlib.model import Job, JobEvent
    >>> log = [JobEvent(0, 1, EventKind.SUBMIT), JobEvent(0, 1, EventKind.ASSIGN, (0,)),
    ...        JobEvent(0, 1, EventKind.ASSIGN, (1,)),
    ...        JobEvent(0, 1, EventKind.RESERVE, (0,), at=0),
    ...        JobEvent(0, 1, EventKind.RESERVE, (1,), at=0),
    ...        JobEvent(0, 1, EventKind.RETURN, (0,)), JobEvent(0, 1, EventKind.START, (1,)),
    ...        JobEvent(1, 1, EventKind.COMPLETE, (1,))]
    >>> bad = RunRecord.from_log("x", [Job(1, 0, 1, 1, 1)], log, capacity=2,
    ...     parameters={"start": "completion", "local": "conservative"})
    >>> check_admission(bad, estimates={1: (1, 1)}, sites=[1, 1])
    Traceback (most recent call last):
    AssertionError: job 1 dropped at site 0 at t=0, though no other copy completes before 1 (site 1: 1): a tie keeps the copy that is ready
    """  # noqa: E501
    sizes = _sizes(record, sites)
    by_completion = record.parameter("start") == "completion"
    conservative = record.parameter("local") == "conservative"
    drop_ties = record.parameter("admission_tie", "start") == "drop"

    def earlier(other: Time, here: Time) -> bool:
        return other < here or (drop_ties and other == here)

    state = _Sites(record, sizes, estimates)
    events = record.events
    stopped: dict[int, Time] = {}  # a copy stopped for this start (logged just before it)
    for i, e in enumerate(events):
        if e.kind is EventKind.START and by_completion:
            site = _site(e.place, state.offsets)
            here = e.time + estimates[e.job][site]
            expected_at = {
                o: state.expected(o, e.job, e.time, conservative) for o in state.live(e.job)
            }
            previous = events[i - 1] if i else None
            if previous is not None and previous.kind is EventKind.CANCEL and previous.job == e.job:
                expected_at.update(stopped)
            for o, expected in expected_at.items():
                if o != site and earlier(expected, here):
                    raise AssertionError(
                        f"job {e.job} started at site {site} at t={e.time} (done by {here}) "
                        f"though site {o} expected it done by {expected}"
                    )
        elif e.kind is EventKind.RETURN and not _withdrawn(events, i):
            site = e.place[0]
            if not by_completion:
                raise AssertionError(
                    f"job {e.job} dropped at site {site} at t={e.time}: start-based copies "
                    "are withdrawn only when the job starts or ends"
                )
            due = state.reserved[site].get(e.job)
            if due != e.time:
                raise AssertionError(
                    f"job {e.job} dropped at site {site} at t={e.time}, before it was due "
                    f"(reservation {due})"
                )
            here = e.time + estimates[e.job][site]
            others = {
                o: state.expected(o, e.job, e.time, conservative)
                for o in state.live(e.job)
                if o != site
            }
            if not any(earlier(c, here) for c in others.values()):
                listed = ", ".join(f"site {o}: {c}" for o, c in sorted(others.items()))
                rule = "" if drop_ties else ": a tie keeps the copy that is ready"
                raise AssertionError(
                    f"job {e.job} dropped at site {site} at t={e.time}, though no other copy "
                    f"completes before {here} ({listed or 'no other copy'}){rule}"
                )
        if e.kind is EventKind.CANCEL:
            o = _site(e.place, state.offsets)
            stopped = {o: state.running[o][e.job] + estimates[e.job][o]}
        state.apply(e)


def check_queue_priority(
    record: RunRecord,
    *,
    estimates: Mapping[JobId, Sequence[Time]],
    sites: Sequence[int] | None = None,
    tolerance: float = 1e-9,
    exact_estimates: Mapping[JobId, Sequence[Fraction]] | None = None,
) -> None:
    """Each site serves its queue in priority order: FCFS, or efficacy then FCFS (§2, §6).

    A copy's key at site $s$ is $(-E_{j,s}, \\text{submit}, \\text{id})$ under
    efficacy priority, $E_{j,s} = \\min_{s'} d_{j,s'} / d_{j,s}$ over the sites
    $s'$ the job was sent to (§7: relative to them), and $(0, \\text{submit},
    \\text{id})$ under FCFS. The efficacy is compared exactly, from
    `exact_estimates` when given (each $d_{j,s}$ computed exactly from the inputs,
    e.g. `Fraction(d) * Fraction(f)`: then equal efficacies tie and FCFS must
    decide, §6), else from the float `estimates` read as rationals. Read from the
    `RESERVE` entries (`log_reservations=True`):

    - conservative sites: the reservations one plan makes or moves (a run of
      `RESERVE` entries of one site at one instant) are made in ascending key
      order, each at its earliest fit given the running copies and every
      reservation held at that moment (its own old one excepted), and never
      later than its old one; when room was freed at the site since its last
      plan (an early end, a stopped copy, a withdrawn reservation) the plan
      compresses: every copy in key order is re-placed at its earliest fit, so a
      copy the plan did not move must not fit earlier at its turn either (a
      higher priority gets the freed room first); without freed room, a plan
      only places new copies;
    - EASY sites: the reservation is held by the first waiting copy in key
      order, at its earliest start behind the running copies (its shadow time).

    Parameters
    ----------
    record
        A multi-site run record.
    estimates
        `estimates[job][site]`: requested time of each job at each site (the
        times the schedule is made of).
    sites, tolerance
        Site sizes (default: the record's); relative tolerance on times.
    exact_estimates
        The same requested times computed exactly
        ([`MultiSiteRun.exact_estimates`][schedlib.multisite.MultiSiteRun]), for the
        efficacy; `None`: the float `estimates`, read exactly.

    Raises
    ------
    AssertionError
        Naming the site, the time, the jobs out of order or the reservation
        and the earliest fit.

    Examples
    --------
    >>> from schedlib.model import Job, JobEvent
    >>> log = [JobEvent(0, j, EventKind.SUBMIT) for j in (1, 2)] + [
    ...     JobEvent(0, 1, EventKind.ASSIGN, (0,)), JobEvent(0, 2, EventKind.ASSIGN, (0,)),
    ...     JobEvent(0, 2, EventKind.RESERVE, (0,), at=0),
    ...     JobEvent(0, 1, EventKind.RESERVE, (0,), at=1),
    ...     JobEvent(0, 2, EventKind.START, (0,)), JobEvent(1, 2, EventKind.COMPLETE, (0,)),
    ...     JobEvent(1, 1, EventKind.START, (0,)), JobEvent(2, 1, EventKind.COMPLETE, (0,))]
    >>> bad = RunRecord.from_log("x", [Job(1, 0, 1, 1, 1), Job(2, 0, 1, 1, 1)], log,
    ...     capacity=1, parameters={"local": "conservative", "priority": "fcfs"})
    >>> check_queue_priority(bad, estimates={1: (1,), 2: (1,)}, sites=[1])
    Traceback (most recent call last):
    AssertionError: site 0 at t=0: job 2 reserved before job 1, against the queue order (fcfs)
    """
    sizes = _sizes(record, sites)
    priority = record.parameter("priority", "fcfs")
    conservative = record.parameter("local") == "conservative"
    state = _Sites(record, sizes, estimates, exact_estimates)
    events = record.events
    freed = [False] * len(sizes)  # room freed at the site since its last plan
    last_submit: Time | None = None
    i = 0
    while i < len(events):
        e = events[i]
        if e.kind is EventKind.RESERVE and conservative:
            group = [e]
            while (
                i + len(group) < len(events)
                and events[i + len(group)].kind is EventKind.RESERVE
                and events[i + len(group)].place == e.place
                and events[i + len(group)].time == e.time
            ):
                group.append(events[i + len(group)])
            _verify_plan(state, group, priority, freed[e.place[0]], tolerance)
            freed[e.place[0]] = False
            i += len(group)
            continue
        if e.kind is EventKind.RESERVE:
            _verify_head(state, e, priority, tolerance)
        elif e.kind is EventKind.SUBMIT and e.time != last_submit:
            freed = [False] * len(sizes)  # before an instant's arrivals, every site compressed
            last_submit = e.time
        elif e.kind is EventKind.RETURN and e.job in state.reserved[e.place[0]]:
            freed[e.place[0]] = True
        elif e.kind in _ENDS and e.place:
            site = _site(e.place, state.offsets)
            start = state.running[site].get(e.job)
            if start is not None and start + estimates[e.job][site] > e.time:
                freed[site] = True  # an early end, or a running copy stopped
        state.apply(e)
        i += 1


def _verify_plan(
    state: _Sites, group: list[JobEvent], priority: str, compress: bool, tolerance: float
) -> None:
    """One conservative plan (a run of `RESERVE` entries of one site at one instant).

    Replays it in queue order: each copy placed or moved at its earliest fit given
    the running copies and the reservations held at its turn (never later than its
    old one); when room was freed since the site's last plan (`compress`), every
    copy is re-placed, so one that is not in the run must not fit earlier either.
    """
    site, now = group[0].place[0], group[0].time
    logged = {e.job: e.at for e in group}
    order = [e.job for e in group]
    by_key = sorted(order, key=lambda j: state.key(site, j, priority))
    if order != by_key:
        k = next(k for k in range(len(order)) if order[k] != by_key[k])
        raise AssertionError(
            f"site {site} at t={now}: job {order[k]} reserved before job {by_key[k]}, "
            f"against the queue order ({priority})"
        )
    if compress:
        turns = sorted({*state.waiting[site], *logged}, key=lambda j: state.key(site, j, priority))
    else:
        turns = order
    for job in turns:
        old = state.reserved[site].get(job)
        if old is None and job not in logged:
            continue  # a copy placed later (it has no reservation yet)
        if not compress and old is not None:
            raise AssertionError(
                f"site {site} at t={now}: job {job} moved from {old} to {logged[job]} "
                "though no room was freed"
            )
        fit = state.earliest_fit(site, now, state.procs[job], state.estimates[job][site], job)
        at = logged.get(job, old)
        assert at is not None
        if not _close(at, fit, tolerance) or (old is not None and at > old):
            what = "reserved at" if job in logged else "kept its reservation at"
            raise AssertionError(
                f"site {site} at t={now}: job {job} {what} {at}, its earliest fit in queue "
                f"order is {fit}" + (f" (held {old})" if old is not None else "")
            )
        state.reserved[site][job] = at


def _verify_head(state: _Sites, e: JobEvent, priority: str, tolerance: float) -> None:
    """EASY: the reservation is the first waiting copy's, at its earliest start."""
    site, now = e.place[0], e.time
    assert e.at is not None
    first = min(state.waiting[site], key=lambda j: state.key(site, j, priority))
    shadow = state.earliest_start(site, now, state.procs[e.job])
    if first != e.job or not _close(e.at, shadow, tolerance):
        raise AssertionError(
            f"site {site} at t={now}: job {e.job} holds the reservation at {e.at}; "
            f"the head in queue order ({priority}) is job {first}, whose earliest "
            f"start is {state.earliest_start(site, now, state.procs[first])}"
        )


def check_utilisation_figures(
    record: RunRecord,
    utilisation: float,
    effective: float,
    *,
    runtimes: Mapping[JobId, Sequence[Time]],
    sites: Sequence[int] | None = None,
    tolerance: float = 1e-9,
) -> None:
    """The run's utilisation and effective utilisation, recomputed from the log (§4).

    $$ U = \\frac{\\sum_i r_i n_i}{M P}, \\qquad
       U_{eff} = \\frac{\\sum_i E_i r_i n_i}{M P}, \\qquad
       M = \\max_i e_i - \\min_i b_i $$

    over the executions $i$ (`START` to `COMPLETE`, `KILL` or `CANCEL` on the
    same processors): $r_i = e_i - b_i$, $n_i$ the job's processors, $P$ all
    sites' processors, $M$ over the executions that ran to their end; $E_i$
    the job's efficacy where it ran, $\\min_{s} R_{j,s} / R_{j,s_i}$ from its
    runtimes $R$ at every site (1 when its best runtime is 0), and 0 for an
    execution stopped before its end (`CANCEL`: its cycles bought nothing).

    Parameters
    ----------
    record
        A multi-site run record.
    utilisation, effective
        The figures to check (e.g. `run.utilisation`, `run.effective_utilisation`).
    runtimes
        `runtimes[job][site]`: each job's actual runtime at each site.
    sites, tolerance
        Site sizes (default: the record's); relative tolerance.

    Raises
    ------
    AssertionError
        Naming the figure, its value and the recomputed one.

    Examples
    --------
    >>> from schedlib.model import Job, JobEvent
    >>> log = [JobEvent(0, 1, EventKind.SUBMIT), JobEvent(0, 1, EventKind.START, (0,)),
    ...        JobEvent(4, 1, EventKind.COMPLETE, (0,))]
    >>> record = RunRecord.from_log("x", [Job(1, 0, 1, 4, 4)], log, capacity=2)
    >>> check_utilisation_figures(record, 0.5, 0.25, runtimes={1: (4, 2)}, sites=[1, 1])
    >>> check_utilisation_figures(record, 0.5, 0.5, runtimes={1: (4, 2)}, sites=[1, 1])
    Traceback (most recent call last):
    AssertionError: effective utilisation 0.5, recomputed from the log: 0.25
    """
    sizes = _sizes(record, sites)
    offsets = site_offsets(sizes)
    procs = {j.id: j.procs for j in record.workload}
    opened: dict[tuple[JobId, tuple[int, ...]], Time] = {}
    runs = []
    for e in record.events:
        key = (e.job, tuple(e.place.bounds) if e.place else ())
        if e.kind is EventKind.START:
            opened[key] = e.time
        elif e.kind in _ENDS and key in opened:
            runs.append((e.job, _site(e.place, offsets), opened.pop(key), e.time,
                         e.kind is not EventKind.CANCEL))  # fmt: skip
    done = [r for r in runs if r[4]]
    span = max((r[3] for r in done), default=0) - min((r[2] for r in done), default=0)
    total = sum(sizes)
    raw = weighted = 0.0
    for job, site, start, end, completed in runs:
        cycles = (end - start) * procs[job]
        best = min(runtimes[job])
        raw += cycles
        if completed:
            weighted += cycles * (best / runtimes[job][site] if best > 0 else 1.0)
    expected = (raw / (span * total), weighted / (span * total)) if span > 0 else (0.0, 0.0)
    for name, value, recomputed in (
        ("utilisation", utilisation, expected[0]),
        ("effective utilisation", effective, expected[1]),
    ):
        if not _close(value, recomputed, tolerance):
            raise AssertionError(f"{name} {value}, recomputed from the log: {recomputed}")


def check_multisite_run(
    run: Any,
    *,
    runtimes: Mapping[JobId, Sequence[Time]] | None = None,
    tolerance: float = 1e-9,
) -> None:
    """Every checker that applies to a [`MultiSiteRun`][schedlib.multisite.MultiSiteRun].

    The common ones (accounting, lifecycle, capacity), one site per
    execution, one execution at a time, copies withdrawn as its policy says,
    utilisations and messages; the decisions: the sites each job was sent to
    and the admission of due copies; on conservative sites, with reservations
    logged, the reservation rules and the queue order (EASY: its head); with
    completion-based starts, the completion bound; given the jobs' `runtimes`
    at every site, the utilisations recomputed from the log. Under efficacy
    priority the queue order compares the efficacies from the run's
    `exact_estimates()` when it has them.

    Parameters
    ----------
    run
        A `MultiSiteRun` (its record, sites, estimates and metrics).
    runtimes
        `runtimes[job][site]`, for `check_utilisation_figures` (skipped without).
    tolerance
        Relative tolerance of the decision checkers (`0`: exact, ties included).

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
    exact = getattr(run, "exact_estimates", None)
    exact_times = (
        exact()
        if exact is not None and (p["cancel"] == "slower" or p["priority"] == "efficacy")
        else None
    )
    check_copies_withdrawn(
        record,
        cancel=p["cancel"],
        estimates=exact_times if exact_times is not None else run.estimates,
        sites=sizes,
        equal_speed=p.get("equal_speed", "cancel"),
    )
    check_utilisations(run.utilisation, run.effective_utilisation)
    check_messages(record, run.messages, queried=p["selection"] == "completion", sites=sizes)
    logged = any(e.kind is EventKind.RESERVE for e in record.events)
    conservative = p["local"] == "conservative"
    if logged or not conservative or p["selection"] == "load":
        check_site_choice(record, estimates=run.estimates, sites=sizes, tolerance=tolerance)
    if logged or p["start"] == "start":
        check_admission(record, estimates=run.estimates, sites=sizes)
    if logged:
        check_queue_priority(
            record,
            estimates=run.estimates,
            sites=sizes,
            tolerance=tolerance,
            exact_estimates=exact_times if p["priority"] == "efficacy" else None,
        )
    if conservative and logged:
        check_multisite_reservations(record, sites=sizes)
        if p["start"] == "completion":
            check_completion_bound(record, estimates=run.estimates)
    if runtimes is not None:
        check_utilisation_figures(
            record,
            run.utilisation,
            run.effective_utilisation,
            runtimes=runtimes,
            sites=sizes,
            tolerance=tolerance,
        )
