r"""The multi-site scheduling pass: each site's backfilling, then the metascheduler's rules.

At every instant where something happened, [`run_pass`][schedlib.multisite.scheduling_pass.run_pass]
takes the local decision of every site whose state changed, lowest site first:

1. the site's backfilling rule from [`schedlib.backfill`][schedlib.backfill]
   — [`easy`][schedlib.backfill.easy] on a [`Snapshot`][schedlib.backfill.Snapshot],
   or [`conservative`][schedlib.backfill.conservative] on a
   [`Plan`][schedlib.backfill.Plan] (compressing after early ends and withdrawn
   reservations) — says which copies start now;
2. under completion-based starts each of them is first put to
   [`admit`][schedlib.multisite.policies.admit]: it starts only if no other
   copy is expected to complete strictly earlier; otherwise it is dropped
   (`RETURN` on the site) and its reservation freed;
3. a copy that starts takes the site's lowest-numbered free processors, and the
   copies [`copies_to_cancel`][schedlib.multisite.policies.copies_to_cancel]
   names are withdrawn at once, in ascending site order (`RETURN`; a running
   copy at a slower site is stopped: `CANCEL`) — the atomic cancellation of
   Sabin et al. (2003), §4;
4. every site touched by a withdrawal decides again at the same instant, until
   no site has anything left to decide: with `site_order="changed"` (the
   default) each round decides the sites changed when it began, in index
   order, and a site changed during the round waits for the next one; with
   `site_order="index"` a round sweeps the sites in index order and a site
   changed during the sweep decides when the sweep reaches it (the paper is
   silent on this order; see the Multi-site page, "Same-instant order").

The control messages of each start attempt, successful or denied, are counted
as they happen ([`attempt_messages`][schedlib.multisite.policies.attempt_messages]).
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Mapping
from fractions import Fraction
from typing import Literal, Protocol

from schedlib.backfill import Request, Snapshot, easy, shadow_time
from schedlib.engine import Event, Phase
from schedlib.model import EventKind, JobEvent, JobId, Time
from schedlib.multisite.policies import (
    MetaPolicy,
    admit,
    attempt_messages,
    copies_to_cancel,
)
from schedlib.multisite.state import RunCore, SiteCore
from schedlib.place import ProcessorSet

__all__ = [
    "SITE_ORDERS",
    "MultiSiteSetting",
    "SiteOrder",
    "expected_completion",
    "global_place",
    "plan_site",
    "run_pass",
    "stop_running",
    "withdraw",
]


SiteOrder = Literal["changed", "index"]
SITE_ORDERS: tuple[SiteOrder, ...] = ("changed", "index")
"""Which sites decide in a round of one instant: those changed when the round began
(`"changed"`, the default), or every site in index order, each deciding if changed by the
time the sweep reaches it (`"index"`)."""


class MultiSiteSetting(Protocol):
    """What the pass reads of its model.

    [`MultiSiteModel`][schedlib.multisite.model.MultiSiteModel] provides it.
    """

    policy: MetaPolicy
    log_reservations: bool
    site_order: SiteOrder
    estimates: Mapping[JobId, tuple[Time, ...]]
    runtimes: Mapping[JobId, tuple[Time, ...]]

    def exact_requested(self, job: JobId) -> tuple[Fraction, ...]:
        """The job's requested time at each site, exactly (what cancel-slower compares)."""
        ...  # pragma: no cover - a protocol


def run_pass(model: MultiSiteSetting, core: RunCore, now: Time) -> None:
    """Decide at every changed site until no site has anything to decide.

    Each round takes the changed sites in index order: an EASY site decides
    and starts its jobs; a conservative site first places and compresses its
    reservations. Only then, with every changed conservative site's schedule
    up to date, are their due copies admitted and started, site by site, so
    that a site asked for a copy's expected completion answers from its
    actual reservations. Starts and withdrawals change other sites: with
    `model.site_order == "changed"` the next round decides them; with
    `"index"` a site after the current one in index order decides in this
    round, when the sweep reaches it (a conservative one plans again first),
    and one before it in the next round.
    """
    if model.site_order == "index":
        _sweep_by_index(model, core, now)
        return
    while core.dirty:
        due: list[tuple[SiteCore, tuple[JobId, ...]]] = []
        for index in sorted(core.dirty):
            site = core.sites[index]
            core.dirty.discard(index)
            if site.book is None:
                _easy_pass(model, core, site, now)
            else:
                due.append((site, plan_site(model, core, site, now)))
        for site, jobs in due:
            _start_due(model, core, site, jobs, now)


def _sweep_by_index(model: MultiSiteSetting, core: RunCore, now: Time) -> None:
    """`run_pass` with `site_order="index"`: every site in index order, each deciding if it
    has changed by the time the sweep reaches it, until no site has anything to decide."""
    while core.dirty:
        due: dict[int, tuple[JobId, ...]] = {}
        for index in sorted(core.dirty):
            site = core.sites[index]
            if site.book is not None:
                core.dirty.discard(index)
                due[index] = plan_site(model, core, site, now)
        for site in core.sites:
            index = site.index
            if site.book is None:
                if index in core.dirty:
                    core.dirty.discard(index)
                    _easy_pass(model, core, site, now)
                continue
            if index in core.dirty:  # changed since the sweep began, by a site before it
                core.dirty.discard(index)
                due[index] = plan_site(model, core, site, now)
            if index in due:
                _start_due(model, core, site, due.pop(index), now)


def _easy_pass(model: MultiSiteSetting, core: RunCore, site: SiteCore, now: Time) -> None:
    if not site.queue:
        site.head = None
        return
    decision = easy(Snapshot(now, site.free.size, tuple(site.planned), tuple(site.queue)))
    for job in decision.start:
        _start(model, core, site, job.id, now)
    head, reservation = decision.head, decision.reservation
    if head is None or reservation is None:
        site.head = None
    elif (head.id, reservation) != site.head:
        site.head = (head.id, reservation)
        if model.log_reservations:
            core.log.append(
                JobEvent(now, head.id, EventKind.RESERVE, (site.index,), at=reservation)
            )


def plan_site(
    model: MultiSiteSetting, core: RunCore, site: SiteCore, now: Time
) -> tuple[JobId, ...]:
    """Bring a conservative site's schedule up to date; return the copies due now, in queue order.

    Gives back the processors of the copies that ended early (and of the
    reservations withdrawn) since its last plan, compresses its reservations,
    and places the copies that have none yet ([`conservative`][schedlib.backfill.conservative]).
    Starting the due copies is the pass's work: called again with nothing
    changed, it changes nothing and returns the same copies.
    """
    book = site.book
    assert book is not None
    changed, due = book.decide(now)
    queue = site.queue
    if model.log_reservations:
        starts = book.starts
        core.log.extend(
            JobEvent(now, queue[k].id, EventKind.RESERVE, (site.index,), at=starts[k])
            for k in changed
        )
    return tuple(queue[k].id for k in due)


def _start_due(
    model: MultiSiteSetting, core: RunCore, site: SiteCore, jobs: tuple[JobId, ...], now: Time
) -> None:
    """Start (or, completion-based, admit or drop) the copies due now at a conservative site."""
    for job in jobs:
        if site.index not in core.copies.get(job, ()):
            continue  # withdrawn since: the job started elsewhere this instant
        if model.policy.start == "completion":
            others = {
                o: expected_completion(model, core, o, job, now)
                for o in _live_sites(core, job)
                if o != site.index
            }
            requested = site.queue[site.position(job)].requested_time
            ok, better = admit(now, requested, others, model.policy.admission_tie)
            if not ok:
                core.messages += attempt_messages(len(others) + 1)
                withdraw(core, site, job, now, f"dropped: completes earlier at site {better}")
                continue
        _start(model, core, site, job, now)
    assert site.book is not None
    due = site.book.next_due()
    if due is not None and due != site.timer:
        site.timer = due
        key = ("timer", site.index)
        core.events.append(Event(due, Phase.TIMER, key, key=key))


def global_place(ranges: tuple[tuple[int, int], ...], offset: int) -> ProcessorSet:
    """The processors of a site's local `ranges` (counted from 0) in the global numbering.

    Built from the ranges, shifted by the site's first global id (no id is
    expanded). Complexity: $O(r)$ for $r$ ranges.

    Examples
    --------
    >>> global_place(((0, 2), (5, 6)), 128)
    ProcessorSet('128-129 133')
    """
    if not offset:
        return ProcessorSet.from_ranges(ranges)
    return ProcessorSet.from_ranges(tuple((lo + offset, hi + offset) for lo, hi in ranges))


def _live_sites(core: RunCore, job: JobId) -> list[int]:
    """The sites holding a waiting copy of `job`, then the one running it (if any)."""
    sites = list(core.copies.get(job, ()))
    running = core.running_at.get(job)
    if running is not None:
        sites.append(running)
    return sites


def expected_completion(
    model: MultiSiteSetting, core: RunCore, site: int, job: JobId, now: Time
) -> Time:
    """When `job` is expected to complete at `site`, as that site would answer a query.

    A running copy: its planned end. A waiting copy with a reservation: the
    reservation plus the requested time there. A copy not yet placed (it
    arrived at this instant and the site has not decided yet): its earliest
    fit in the site's current schedule, plus the requested time.
    """
    here = core.sites[site]
    if core.running_at.get(job) == site:
        for entry in here.running:
            if entry[1] == job:
                return entry[2]
    estimate = model.estimates[job][site]
    if here.book is not None:
        k = here.position(job)
        reserved = here.book.starts[k]
        if reserved is not None:
            return reserved + estimate
        return here.book.earliest_fit(now, here.queue[k].procs, estimate) + estimate
    procs = here.queue[here.position(job)].procs
    start, _ = shadow_time(now, here.free.size, tuple(here.planned), procs)
    return start + estimate


def _start(model: MultiSiteSetting, core: RunCore, site: SiteCore, job: JobId, now: Time) -> None:
    """Start `job`'s copy at `site`: stop its running copy (if any), then withdraw the others.

    The order within the instant is `CANCEL` of the running copy (cancelling
    only slower copies may leave the job running at a slower site when a
    faster one starts it), `START` here, then one `RETURN` per withdrawn
    copy, in site order.
    """
    live = _live_sites(core, job)
    core.messages += attempt_messages(len(live))
    policy = model.policy
    # "slower" compares the requested times exactly, so that equal ones are equal
    times = model.exact_requested(job) if policy.cancel == "slower" else model.estimates[job]
    estimates = {s: times[s] for s in live}
    withdrawn = copies_to_cancel(site.index, estimates, policy.cancel, policy.equal_speed)
    previous = core.running_at.get(job)
    if previous is not None:
        stop_running(core, core.sites[previous], job, now, f"restarted at site {site.index}")
    k = site.position(job)
    request = site.queue[k]
    if site.book is not None:  # due now: its reservation holds it, running, until its planned end
        site.book.pop_due([k])
        del site.keys[k]
        site.queued_work.add(-request.procs, request.requested_time)
    else:
        _dequeue(site, k)
    del core.copies[job][site.index]
    ranges, site.free = site.free.take(request.procs)
    place = global_place(ranges, site.offset)
    requested = request.requested_time
    actual = model.runtimes[job][site.index]
    killed = actual > requested
    end = now + (requested if killed else actual)
    planned_end = now + requested
    insort(site.running, (end, job, planned_end, request.procs, place, killed, ranges, now))
    if site.book is None:
        insort(site.planned, (planned_end, request.procs, job))
    site.running_work.add(request.procs, planned_end)
    site.running_procs += request.procs
    core.log.append(JobEvent(now, job, EventKind.START, place))
    core.events.append(Event(end, Phase.COMPLETION, ("end", site.index, job), key=("end", job)))
    core.running_at[job] = site.index
    for other in withdrawn:
        if other != previous:
            withdraw(core, core.sites[other], job, now, f"started at site {site.index}")


def _dequeue(site: SiteCore, k: int) -> tuple[Request, Time | None]:
    """Take copy `k` out of the queue (a conservative site gives its reservation back)."""
    del site.keys[k]
    if site.book is not None:
        request, reserved = site.book.withdraw(k)
    else:
        request, reserved = site.queue.pop(k), None
    site.queued_work.add(-request.procs, request.requested_time)
    return request, reserved


def withdraw(core: RunCore, site: SiteCore, job: JobId, now: Time, detail: str) -> None:
    """Take `job`'s waiting copy out of `site`'s queue (`RETURN`), freeing its reservation."""
    _dequeue(site, site.position(job))
    del core.copies[job][site.index]
    core.log.append(JobEvent(now, job, EventKind.RETURN, (site.index,), detail=detail))
    core.dirty.add(site.index)


def stop_running(core: RunCore, site: SiteCore, job: JobId, now: Time, detail: str) -> None:
    """Stop `job`'s running copy at `site` (`CANCEL`): its processors come back now."""
    k = next(i for i, entry in enumerate(site.running) if entry[1] == job)
    _, _, planned_end, procs, place, _, ranges, _ = site.running.pop(k)
    site.free = site.free.give_back(ranges)
    site.running_work.add(-procs, planned_end)
    site.running_procs -= procs
    if site.book is None:
        del site.planned[bisect_left(site.planned, (planned_end, procs, job))]
    elif planned_end > now:
        site.book.end_early(now, planned_end, procs)
    core.cancel.append(("end", job))
    core.log.append(JobEvent(now, job, EventKind.CANCEL, place, detail=detail))
    core.dirty.add(site.index)
