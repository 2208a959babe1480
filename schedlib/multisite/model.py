r"""The multi-site model on the shared engine, and its entry point.

[`simulate_multisite`][schedlib.multisite.model.simulate_multisite] runs one
stream of parallel jobs over several heterogeneous sites under a
[`MetaPolicy`][schedlib.multisite.policies.MetaPolicy] and returns a
[`MultiSiteRun`][schedlib.multisite.model.MultiSiteRun]: the
[`RunRecord`][schedlib.model.RunRecord], the message count and the paper's
metrics. All sites run in **one** simulation on the shared engine
([`schedlib.engine.simulate`][schedlib.engine.simulate]).

Rules of the simulation
-----------------------
- **Speeds.** A job of class $c$ asks for its requested time times
  $f_{c,s}$ at site $s$ and runs for its runtime times $f_{c,s}$
  ([`RuntimeMatrix`][schedlib.multisite.sites.RuntimeMatrix]); with
  `transfer=True`, a job run away from its origin site also moves its data
  first: both grow by [`transfer_time`][schedlib.multisite.jobs.transfer_time]
  (§7). A job whose runtime exceeds its requested time is killed at the limit.
- **Arrival** (phase `ARRIVAL`, in `(submit, id)` order): the metascheduler
  picks $K$ sites ([`least_sites`][schedlib.multisite.policies.least_sites] by
  instantaneous load, or by the completion time each site's schedule gives),
  among the sites large enough for the job; a job no site can hold ends
  `UNSCHEDULABLE` with the reason. Each copy joins its site's queue (`ASSIGN`,
  place `(site,)`) at its [`queue_key`][schedlib.multisite.policies.queue_key].
- **The pass** ([`run_pass`][schedlib.multisite.scheduling_pass.run_pass]) runs
  once per instant, after every completion and arrival of that instant.
- **Processors** have global ids: site $s$ owns
  $[o_s, o_s + P_s)$ with $o_s = \sum_{s' < s} P_{s'}$; a copy that starts takes
  its site's lowest free ones. `START`, `COMPLETE`, `KILL` and `CANCEL` name
  them; `ASSIGN`, `RESERVE` (with `log_reservations`) and `RETURN` (a waiting copy
  withdrawn) name the site as `(site,)`.
- **Ties.** Sites are decided in index order (`site_order`: only those changed
  when a round began, by default); copies are cancelled in site order; a due
  copy is dropped only when another completes strictly earlier
  (`MetaPolicy.admission_tie`); cancel-slower withdraws the copies whose exact
  requested time is at least the starting one's (`MetaPolicy.equal_speed`).

Examples
--------
Two sites of 4 processors; job 1 (class 0) runs twice as fast at site 1; with
copies at both sites and completion-based starts it waits for site 1:

>>> from schedlib.multisite.jobs import MultiSiteJob
>>> from schedlib.multisite.sites import RuntimeMatrix, Site
>>> from schedlib.multisite.policies import CONSERVATIVE_MR
>>> sites = [Site("slow", 4), Site("fast", 4)]
>>> matrix = RuntimeMatrix(((2.0, 1.0),), ("only",))
>>> jobs = [MultiSiteJob(0, 0, 4, 10, 10), MultiSiteJob(1, 1, 4, 10, 10)]
>>> run = simulate_multisite(jobs, sites, CONSERVATIVE_MR, matrix=matrix)
>>> [(o.job, o.start, o.end, o.place) for o in run.record.outcomes]
[(0, 0, 10.0, ProcessorSet('4-7')), (1, 10.0, 20.0, ProcessorSet('4-7'))]
>>> run.messages
6
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from fractions import Fraction

import attrs

from schedlib.backfill import Request, shadow_time
from schedlib.engine import Event, Phase, Step, simulate
from schedlib.errors import InvalidValueError
from schedlib.model import EventKind, JobEvent, JobId, RunRecord, Time
from schedlib.multisite.formulas import (
    effective_utilisation,
    efficacy,
    makespan,
    raw_utilisation,
)
from schedlib.multisite.jobs import LINK_MBPS, MultiSiteJob, exact_requested_times, transfer_time
from schedlib.multisite.policies import (
    POLICIES,
    MetaPolicy,
    attempt_messages,
    least_sites,
    query_messages,
    queue_key,
)
from schedlib.multisite.scheduling_pass import (
    SITE_ORDERS,
    SiteOrder,
    plan_site,
    run_pass,
    withdraw,
)
from schedlib.multisite.sites import RuntimeMatrix, Site
from schedlib.multisite.state import RunCore, SiteCore

__all__ = ["MultiSiteModel", "MultiSiteRun", "simulate_multisite", "site_of"]


def _policy(policy: MetaPolicy | str) -> MetaPolicy:
    if isinstance(policy, MetaPolicy):
        return policy
    try:
        return POLICIES[policy]
    except (KeyError, TypeError):
        raise InvalidValueError(
            "policy", policy, f"must be a MetaPolicy or one of {', '.join(POLICIES)}"
        ) from None


class MultiSiteModel:
    """The engine model of several sites under one metascheduler (see the module notes).

    Parameters
    ----------
    jobs
        The workload, ids unique.
    sites
        The sites, in order; site $s$ is column $s$ of `matrix`.
    policy
        A [`MetaPolicy`][schedlib.multisite.policies.MetaPolicy] or the name of
        one of the paper's ([`POLICIES`][schedlib.multisite.policies.POLICIES]).
    matrix
        Runtime factor of each class at each site; default Table 1.
    transfer
        Add the data-transfer time to jobs run away from their origin.
    mbps
        The network rate for `transfer`, Mbit/s.
    log_reservations
        Log `RESERVE` events (conservative: every reservation made or moved;
        EASY: the head's), place `(site,)`.
    reserve_on_arrival
        Conservative sites give each copy its reservation when it arrives,
        before the next job of the same instant is handled (default), so that
        a completion-time query sees the copies placed earlier in the same
        instant; `False`: the copies of one instant are placed together at
        its scheduling pass, in queue order, and a query sees none of them
        (see the Multi-site page, "Same-instant order").
    site_order
        Which sites decide in each round of one instant
        ([`run_pass`][schedlib.multisite.scheduling_pass.run_pass]): `"changed"`
        (default), the sites changed when the round began, in index order; or
        `"index"`, every site in index order, each deciding if it has changed by
        the time the sweep reaches it.

    Raises
    ------
    InvalidValueError
        For no site, a matrix of another width, duplicate job ids, a job
        whose class or origin does not exist, or an unknown `site_order`.
    """

    def __init__(
        self,
        jobs: Iterable[MultiSiteJob],
        sites: Sequence[Site],
        policy: MetaPolicy | str = "greedy",
        *,
        matrix: RuntimeMatrix | None = None,
        transfer: bool = False,
        mbps: float = LINK_MBPS,
        log_reservations: bool = False,
        reserve_on_arrival: bool = True,
        site_order: SiteOrder = "changed",
    ) -> None:
        if site_order not in SITE_ORDERS:
            raise InvalidValueError("site_order", site_order, f"must be one of {SITE_ORDERS}")
        self.site_order: SiteOrder = site_order
        self.sites = tuple(sites)
        if not self.sites:
            raise InvalidValueError("sites", self.sites, "needs at least one site")
        self.matrix = matrix if matrix is not None else RuntimeMatrix.paper()
        if self.matrix.sites != len(self.sites):
            raise InvalidValueError(
                "matrix",
                f"{self.matrix.sites} columns",
                f"needs one column per site ({len(self.sites)} sites); "
                "pass matrix=RuntimeMatrix(...) for other than the paper's four",
            )
        self.policy = _policy(policy)
        self.transfer = transfer
        self.mbps = mbps
        self.log_reservations = log_reservations
        self.reserve_on_arrival = reserve_on_arrival
        self.jobs = tuple(sorted(jobs, key=lambda j: (j.submit, j.id)))
        self.offsets = tuple(
            sum(s.processors for s in self.sites[:i]) for i in range(len(self.sites))
        )
        self.capacity = sum(s.processors for s in self.sites)
        estimates: dict[JobId, tuple[Time, ...]] = {}
        runtimes: dict[JobId, tuple[Time, ...]] = {}
        for job in self.jobs:
            if job.id in estimates:
                raise InvalidValueError("jobs", job.id, "job id appears twice")
            if job.job_class >= len(self.matrix.factors):
                raise InvalidValueError(
                    f"MultiSiteJob(id={job.id}).job_class", job.job_class, "is not a matrix row"
                )
            if job.origin >= len(self.sites):
                raise InvalidValueError(
                    f"MultiSiteJob(id={job.id}).origin", job.origin, "is not a site"
                )
            moved = transfer_time(job.data_mb, mbps) if transfer else 0.0
            extra = [0.0 if s == job.origin else moved for s in range(len(self.sites))]
            factors = self.matrix.factors[job.job_class]
            estimates[job.id] = tuple(
                job.requested_time * f + x for f, x in zip(factors, extra, strict=True)
            )
            runtimes[job.id] = tuple(
                job.runtime * f + x for f, x in zip(factors, extra, strict=True)
            )
        self.estimates: Mapping[JobId, tuple[Time, ...]] = estimates
        self.runtimes: Mapping[JobId, tuple[Time, ...]] = runtimes
        self._submit = tuple(j.submit for j in self.jobs)
        self._by_id = {j.id: j for j in self.jobs}
        self._exact: dict[JobId, tuple[Fraction, ...]] = {}  # filled as cancel-slower asks

    @property
    def name(self) -> str:
        """The policy's name."""
        return self.policy.name

    # ----------------------------------------------------------------- set-up

    def initial(self) -> tuple[RunCore, list[Event]]:
        """A fresh core (every site idle) and the first arrival event."""
        conservative = self.policy.local == "conservative"
        core = RunCore(
            [
                SiteCore(i, self.offsets[i], s.processors, conservative)
                for i, s in enumerate(self.sites)
            ]
        )
        events = [Event(self._submit[0], Phase.ARRIVAL, ("arrive", 0))] if self.jobs else []
        return core, events

    # ---------------------------------------------------------- Model protocol

    def is_done(self, core: RunCore) -> bool:
        """Every job has ended."""
        return core.finished == len(self.jobs)

    def unfinished(self, core: RunCore) -> Collection[JobId]:
        """Jobs waiting or running, and those not submitted yet."""
        ids = set(core.copies) | set(core.running_at)
        return sorted(ids | {j.id for j in self.jobs[core.arrived :]})

    def remaining_work(self, core: RunCore, now: Time) -> float:
        """Processor-seconds the running copies still need at `now` (the livelock measure).

        Waiting copies are not counted: every other event of this model
        logs a submission or an end, which the engine counts as progress.
        Complexity: $O(r)$ for $r$ running copies.
        """
        return sum(
            entry[3] * max(0.0, entry[0] - now) for site in core.sites for entry in site.running
        )

    def on_event(self, core: RunCore, event: Event) -> Step[RunCore]:
        """An arrival, the end of a running copy, or a conservative site's wake-up."""
        now = event.time
        tag = event.payload[0]
        if tag == "arrive":
            self._arrive(core, now)
        elif tag == "end":
            self._complete(core, now, event.payload[1], event.payload[2])
        else:
            site = core.sites[event.payload[1]]
            site.timer = None
            core.dirty.add(site.index)
        return _step(core, wake=True)

    def on_pass(self, core: RunCore, now: Time) -> Step[RunCore]:
        """The scheduling pass ([`run_pass`][schedlib.multisite.scheduling_pass.run_pass])."""
        run_pass(self, core, now)
        return _step(core)

    # ------------------------------------------------------------- transitions

    def _arrive(self, core: RunCore, now: Time) -> None:
        # Ends before arrivals: a conservative site whose schedule the ends (or the
        # withdrawals) of this instant changed releases and compresses it first, so that
        # the arrivals' queries and reservations see its current schedule.
        for site in core.sites:
            if site.book is not None and site.book.pending:
                plan_site(self, core, site, now)
        i = core.arrived
        n = len(self.jobs)
        while i < n and self._submit[i] == now:
            self._submit_job(core, self.jobs[i], now)
            i += 1
        core.arrived = i
        if i < n:
            core.events.append(Event(self._submit[i], Phase.ARRIVAL, ("arrive", i)))

    def _submit_job(self, core: RunCore, job: MultiSiteJob, now: Time) -> None:
        core.log.append(JobEvent(now, job.id, EventKind.SUBMIT))
        fits = [s.processors >= job.procs for s in self.sites]
        if not any(fits):
            largest = max(s.processors for s in self.sites)
            reason = f"needs {job.procs} processors; the largest site has {largest}"
            core.log.append(JobEvent(now, job.id, EventKind.UNSCHEDULABLE, detail=reason))
            core.finished += 1
            return
        estimates = self.estimates[job.id]
        if self.policy.selection == "load":
            values = [core.sites[s].load(now) if fits[s] else math.inf for s in range(len(fits))]
        else:
            core.messages += query_messages(sum(fits))  # only the sites that can hold it
            values = [
                self.completion_if_sent(core.sites[s], job.procs, estimates[s], now)
                if fits[s]
                else math.inf
                for s in range(len(fits))
            ]
        wanted = self.policy.copies if self.policy.copies is not None else len(self.sites)
        chosen = sorted(least_sites(values, wanted))
        by_efficacy = self.policy.priority == "efficacy"
        # From exact inputs: equal efficacies are equal, and FCFS decides among them (§6).
        exact = self.exact_estimates(job) if by_efficacy else ()
        best = min(exact[s] for s in chosen) if by_efficacy else Fraction(1)
        core.copies[job.id] = {}
        for s in chosen:
            site = core.sites[s]
            ratio = best / exact[s] if by_efficacy else 1
            key = queue_key(job.submit, job.id, ratio, self.policy.priority)
            at = bisect_right(site.keys, key)
            site.keys.insert(at, key)
            request = Request(job.id, job.submit, job.procs, estimates[s])
            if site.book is not None:
                site.book.insert(at, request)  # into `site.queue` too (the same list)
            else:
                site.queue.insert(at, request)
            site.queued_work.add(job.procs, estimates[s])
            core.copies[job.id][s] = None
            core.log.append(JobEvent(now, job.id, EventKind.ASSIGN, (s,)))
            core.dirty.add(s)
            if self.reserve_on_arrival and site.book is not None:
                plan_site(self, core, site, now)  # its reservation now (it starts at the pass)

    def exact_estimates(self, job: MultiSiteJob) -> tuple[Fraction, ...]:
        """`job`'s requested time at each site, exactly
        ([`exact_requested_times`][schedlib.multisite.jobs.exact_requested_times]): what
        its efficacy is computed from."""
        factors = self.matrix.factors[job.job_class]
        return exact_requested_times(job, factors, mbps=self.mbps if self.transfer else None)

    def exact_requested(self, job: JobId) -> tuple[Fraction, ...]:
        """The requested time of job `job` at each site, exactly (what cancel-slower compares):
        [`exact_estimates`][schedlib.multisite.model.MultiSiteModel.exact_estimates] of the
        job, computed once per job and run."""
        times = self._exact.get(job)
        if times is None:
            times = self._exact[job] = self.exact_estimates(self._by_id[job])
        return times

    def completion_if_sent(self, site: SiteCore, procs: int, estimate: Time, now: Time) -> Time:
        """The completion time `site` would promise a job sent to it now (a query, §7).

        Conservative sites: its earliest fit in the site's current schedule
        (the ends of this instant given back and the schedule compressed
        before any arrival is handled; with `reserve_on_arrival`, the copies
        sent earlier in this instant hold their reservations); EASY sites:
        its shadow time behind the running jobs (our extension: §5 says
        completion estimates need conservative backfilling). Plus its
        requested time there.
        """
        if site.book is not None:
            return site.book.earliest_fit(now, procs, estimate) + estimate
        start, _ = shadow_time(now, site.free.size, tuple(site.planned), procs)
        return start + estimate

    def _complete(self, core: RunCore, now: Time, index: int, job: JobId) -> None:
        site = core.sites[index]
        k = next(i for i, entry in enumerate(site.running) if entry[1] == job)
        _, _, planned_end, procs, place, killed, ranges, _ = site.running.pop(k)
        site.free = site.free.give_back(ranges)
        site.running_work.add(-procs, planned_end)
        site.running_procs -= procs
        if site.book is None:
            site.planned.remove((planned_end, procs, job))
        elif planned_end > now:
            site.book.end_early(now, planned_end, procs)
        del core.running_at[job]
        for other in list(core.copies.get(job, ())):  # faster copies kept waiting (§5)
            withdraw(core, core.sites[other], job, now, f"completed at site {index}")
        core.copies.pop(job, None)
        if killed:
            detail = "killed at its requested time (its runtime there exceeds it)"
            core.log.append(JobEvent(now, job, EventKind.KILL, place, detail=detail))
        else:
            core.log.append(JobEvent(now, job, EventKind.COMPLETE, place))
        core.finished += 1
        core.dirty.add(index)


def _step(core: RunCore, *, wake: bool = False) -> Step[RunCore]:
    step = Step(core, tuple(core.events), tuple(core.cancel), tuple(core.log), wake)
    core.events, core.cancel, core.log = [], [], []
    return step


def site_of(place: Sequence[int], offsets: Sequence[int]) -> int:
    """The site whose processors `place` names (by the first id).

    Examples
    --------
    >>> site_of((130, 131), offsets=(0, 128, 256))
    1
    """
    return bisect_right(offsets, place[0]) - 1


@attrs.frozen
class MultiSiteRun:
    """The result of [`simulate_multisite`][schedlib.multisite.model.simulate_multisite].

    Attributes
    ----------
    record
        The run record (the log, one outcome per job).
    sites
        The sites.
    offsets
        First global processor id of each site.
    messages
        Control messages exchanged (§7).
    minimum_messages
        The paper's minimum for this run: $3(K_j - 1)$ per started job with
        $K_j$ copies, plus $2N_j$ per job when sites are chosen by completion time,
        $N_j$ the sites large enough for job $j$ (those queried; every site in the
        paper's experiment).
    efficacies
        Job -> its efficacy at each site over *all* sites (the paper's
        effective-utilisation weight).
    estimates
        Job -> its requested time at each site (the time its copy there
        asks for, data transfer included).
    events
        Engine events handled.
    matrix
        The runtime matrix the run used (`None` for a run built by hand).
    mbps
        The network rate when data moved (`transfer=True`), else `None`.
    """

    record: RunRecord
    sites: tuple[Site, ...]
    offsets: tuple[int, ...]
    messages: int
    minimum_messages: int
    efficacies: Mapping[JobId, tuple[float, ...]]
    estimates: Mapping[JobId, tuple[Time, ...]]
    events: int
    matrix: RuntimeMatrix | None = None
    mbps: float | None = None

    def exact_estimates(self) -> dict[JobId, tuple[Fraction, ...]]:
        """Job -> its requested time at each site from exact inputs: what efficacy compares.

        [`exact_requested_times`][schedlib.multisite.jobs.exact_requested_times] of
        each job with the run's matrix (and network rate, when data moved); for a
        run without its matrix, the float `estimates` read as exact rationals.
        Complexity: $O(J N)$ fraction products for $J$ jobs and $N$ sites.
        """
        if self.matrix is None:
            return {j: tuple(Fraction(d) for d in ds) for j, ds in self.estimates.items()}
        factors = self.matrix.factors
        return {
            job.id: exact_requested_times(job, factors[job.job_class], mbps=self.mbps)
            for job in self.record.workload
            if isinstance(job, MultiSiteJob)
        }

    def executions(self) -> list[tuple[JobId, int, Time, Time, int, bool]]:
        """Every execution: `(job, site, start, end, procs, completed)`; `completed` is
        false for a copy stopped before its end (`CANCEL`)."""
        procs = {j.id: j.procs for j in self.record.workload}
        opened: dict[tuple[JobId, tuple[int, ...]], Time] = {}
        out = []
        for e in self.record.events:
            key = (e.job, e.place.bounds)
            if e.kind is EventKind.START:
                opened[key] = e.time
            elif e.kind in (EventKind.COMPLETE, EventKind.KILL, EventKind.CANCEL) and key in opened:
                began = opened.pop(key)
                site = site_of(e.place, self.offsets)
                out.append(
                    (e.job, site, began, e.time, procs[e.job], e.kind is not EventKind.CANCEL)
                )
        return out

    @property
    def mean_turnaround(self) -> float:
        """Mean of end - submit over the jobs that ran to their end (completed or killed)."""
        values = [
            o.end - o.submit
            for o in self.record.outcomes
            if o.end is not None and o.start is not None
        ]
        return sum(values) / len(values) if values else math.nan

    @property
    def makespan(self) -> Time:
        """Last end minus first start of the executions that completed (§4)."""
        done = [x for x in self.executions() if x[5]]
        return makespan((x[2] for x in done), (x[3] for x in done))

    @property
    def utilisation(self) -> float:
        """Raw utilisation: every execution's processor-seconds over makespan × all processors."""
        products = [(end - start) * procs for _, _, start, end, procs, _ in self.executions()]
        return raw_utilisation(products, self.makespan, sum(s.processors for s in self.sites))

    @property
    def effective_utilisation(self) -> float:
        """Effective utilisation: each completed execution weighted by its efficacy there (§4)."""
        weighted = [
            (self.efficacies[job][site] if completed else 0.0, (end - start) * procs)
            for job, site, start, end, procs, completed in self.executions()
        ]
        return effective_utilisation(weighted, self.makespan, sum(s.processors for s in self.sites))


def simulate_multisite(
    jobs: Iterable[MultiSiteJob],
    sites: Sequence[Site],
    policy: MetaPolicy | str = "greedy",
    *,
    matrix: RuntimeMatrix | None = None,
    transfer: bool = False,
    mbps: float = LINK_MBPS,
    log_reservations: bool = False,
    reserve_on_arrival: bool = True,
    site_order: SiteOrder = "changed",
    max_events: int | None = None,
    progress: Callable[[Time, int], None] | None = None,
) -> MultiSiteRun:
    """Schedule a stream of parallel jobs over heterogeneous sites under one metascheduler.

    Parameters
    ----------
    jobs, sites, policy, matrix, transfer, mbps, log_reservations, reserve_on_arrival, site_order
        See [`MultiSiteModel`][schedlib.multisite.model.MultiSiteModel].
    max_events, progress
        Passed to [`simulate`][schedlib.engine.simulate].

    Returns
    -------
    MultiSiteRun
        The record (capacity: every site's processors), the messages and the metrics.

    Raises
    ------
    InvalidValueError
        For bad inputs (see `MultiSiteModel`).
    SimulationStuckError
        If the event budget is spent.

    Notes
    -----
    Complexity per instant: each changed site's backfilling decision
    ($O(q + r \\log r)$ for EASY, $O(q \\cdot m)$ when a conservative site
    compresses), plus $O(N)$ per arrival and per cancellation.

    References
    ----------
    Sabin et al. (2003), §3-§7.
    """
    model = MultiSiteModel(
        jobs,
        sites,
        policy,
        matrix=matrix,
        transfer=transfer,
        mbps=mbps,
        log_reservations=log_reservations,
        reserve_on_arrival=reserve_on_arrival,
        site_order=site_order,
    )
    core, events = model.initial()
    trace = simulate(model, core, events, max_events=max_events, progress=progress)
    record = RunRecord.from_log(
        model.policy.name,
        model.jobs,
        trace.log,
        capacity=model.capacity,
        parameters={
            "local": model.policy.local,
            "copies": model.policy.copies,
            "selection": model.policy.selection,
            "start": model.policy.start,
            "cancel": model.policy.cancel,
            "priority": model.policy.priority,
            "admission_tie": model.policy.admission_tie,
            "equal_speed": model.policy.equal_speed,
            "sites": tuple((s.name, s.processors) for s in model.sites),
            "transfer": transfer,
            "reserve_on_arrival": reserve_on_arrival,
            "site_order": site_order,
            "messages": trace.state.messages,
        },
    )
    copies: dict[JobId, int] = {}
    started: set[JobId] = set()
    for e in trace.log:
        if e.kind is EventKind.ASSIGN:
            copies[e.job] = copies.get(e.job, 0) + 1
        elif e.kind is EventKind.START:
            started.add(e.job)
    minimum = sum(attempt_messages(copies[j]) for j in started)
    if model.policy.selection == "completion":  # a query to each site large enough
        procs = {j.id: j.procs for j in model.jobs}
        minimum += sum(
            query_messages(sum(s.processors >= procs[j] for s in model.sites)) for j in copies
        )
    efficacies = {
        job.id: tuple(
            efficacy(model.runtimes[job.id], s) if min(model.runtimes[job.id]) > 0 else 1.0
            for s in range(len(model.sites))
        )
        for job in model.jobs
    }
    return MultiSiteRun(
        record,
        model.sites,
        model.offsets,
        trace.state.messages,
        minimum,
        efficacies,
        model.estimates,
        trace.events,
        model.matrix,
        model.mbps if model.transfer else None,
    )
