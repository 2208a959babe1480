"""Multi-site scheduling against a plain reference simulator written here from the paper.

The reference follows Sabin et al. (2003) §3-§7 and SPEC section E literally, with
plain data (lists and dicts, every profile rebuilt from the intervals it holds, every
decision taken by its definition, loads and efficacies in exact rational arithmetic)
and the library's documented tie and same-instant rules:

- **Ends before arrivals**: the completions of an instant come first; before its
  arrivals, a conservative site where room was freed (an early end, a stopped copy, a
  withdrawn reservation) compresses (see the pass), so that queries see its current
  schedule.
- **Arrival** (jobs of one instant in `(submit, id)` order): the $K$ sites with the
  least value (ties: lowest index) among those large enough; the value is the
  instantaneous load (§4: remaining processor x requested time of the queued and
  running jobs, over the site's processors), or the completion time the site would
  promise (§7: its earliest fit in the site's current schedule - running jobs until
  their planned ends, the reservations held - plus the requested time there; EASY
  sites: the earliest start behind the running jobs). Each copy joins its site's
  queue at key `(-efficacy, submit, id)` (efficacy priority: best requested time over
  the chosen sites / the one here, each requested time $d \\cdot f$ computed exactly
  from the job's $d$ and its class's factors, so that equal efficacies tie and FCFS
  decides, §6) or `(0, submit, id)` (FCFS); with
  `reserve_on_arrival` (the default) a conservative site gives it its earliest fit at
  once, so that the next job's queries see it.
- **The pass** (once per instant, after completions and arrivals; again after
  zero-length jobs end): rounds over the changed sites in index order. EASY: start
  the prefix that fits; the head's earliest start behind the running jobs is its
  promise; each later job that fits now starts if the head's earliest start with it
  running is no later (the definition, not the shadow/extra formulas). Conservative:
  each copy without a reservation, in queue order, gets its earliest fit; if room was
  freed since the site last planned, every copy, in queue order, is taken out and
  put back at its earliest fit. Once every changed site has planned, the copies due
  now start, site by site: completion-based, a copy starts only if no other live copy
  is expected to complete strictly earlier (else it is dropped); a start withdraws
  the other copies (all, or under cancel-slower those where the job would run at
  least as long, compared exactly), and stops a running copy at a slower site.
- **Messages**: $2$ per site large enough for the job (those queried) when sites are
  chosen by completion time; $3(k - 1)$ per start attempt (started or dropped) with $k$
  live copies.

Every execution (job, site, start, end, processors, completed) and the message count
must be identical to `simulate_multisite`'s, on random workloads (whole-second and
float times) for every policy family the paper has: start-based EASY and
completion-based conservative, $K$ sites, both selections, FCFS and efficacy queues,
cancel-all and cancel-slower, copies reserved on arrival or at the pass.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import example, given, settings

from schedlib.multisite import (
    CONSERVATIVE_MR,
    CONSERVATIVE_MR_SLOWER,
    EFFICACY,
    GREEDY,
    GREEDY_MR,
    MetaPolicy,
    MultiSiteJob,
    RuntimeMatrix,
    Site,
    simulate_multisite,
)
from schedlib.testing.strategies import multisite_instances

Execution = tuple[int, int, float, float, int, bool]


class Copy:
    """A waiting copy of a job at a site."""

    def __init__(
        self, job: MultiSiteJob, key: tuple[Fraction, float, int], estimate: float
    ) -> None:
        self.job = job
        self.key = key
        self.estimate = estimate
        self.reservation: float | None = None


class Running:
    """A copy running at a site: held until `planned`, ends at `end`."""

    def __init__(self, job: MultiSiteJob, start: float, planned: float, end: float) -> None:
        self.job = job
        self.start = start
        self.planned = planned
        self.end = end


class Reference:
    """The plain multi-site simulator (see the module notes)."""

    def __init__(
        self,
        jobs: list[MultiSiteJob],
        sites: list[Site],
        policy: MetaPolicy,
        matrix: RuntimeMatrix,
        reserve_on_arrival: bool = True,
    ) -> None:
        self.jobs = sorted(jobs, key=lambda j: (j.submit, j.id))
        self.reserve_on_arrival = reserve_on_arrival
        self.size = [s.processors for s in sites]
        self.policy = policy
        self.conservative = policy.local == "conservative"
        self.requested = {
            j.id: [j.requested_time * f for f in matrix.factors[j.job_class]] for j in jobs
        }
        self.actual = {j.id: [j.runtime * f for f in matrix.factors[j.job_class]] for j in jobs}
        self.exact = {  # d * f in rational arithmetic, for the efficacy
            j.id: [Fraction(j.requested_time) * Fraction(f) for f in matrix.factors[j.job_class]]
            for j in jobs
        }
        n = len(sites)
        self.queue: list[list[Copy]] = [[] for _ in range(n)]
        self.running: list[list[Running]] = [[] for _ in range(n)]
        self.freed = [False] * n  # room freed since the site last planned
        self.dirty: set[int] = set()
        self.started: list[tuple[float, int, int]] = []  # (end, order, job): completion order
        self.order = 0
        self.executions: list[Execution] = []
        self.messages = 0

    # -- what a site knows ------------------------------------------------------------------

    def intervals(self, s: int, without: Copy | None = None) -> list[tuple[float, float, int]]:
        """`(from, to, procs)` held at site `s`: running jobs, then reservations."""
        held = [(r.start, r.planned, r.job.procs) for r in self.running[s]]
        for c in self.queue[s]:
            if c.reservation is not None and c is not without:
                held.append((c.reservation, c.reservation + c.estimate, c.job.procs))
        return held

    def fits(self, s: int, held: list[tuple[float, float, int]], at: float, job: Copy) -> bool:
        points = [at] + [a for a, _, _ in held if at < a < at + job.estimate]
        for x in points:
            used = sum(k for a, b, k in held if a <= x < b)
            if used + job.job.procs > self.size[s]:
                return False
        return True

    def earliest_fit(self, s: int, now: float, copy: Copy, without: Copy | None = None) -> float:
        held = self.intervals(s, without)
        for at in sorted({now} | {b for _, b, _ in held if b > now}):
            if self.fits(s, held, at, copy):
                return at
        raise AssertionError("a job that fits its site always fits after everything ends")

    def earliest_start_behind_running(
        self, s: int, now: float, procs: int, extra: Sequence[tuple[float, int]] = ()
    ) -> float:
        """EASY: the earliest time `procs` processors are free, from the planned ends."""
        ends = [(r.planned, r.job.procs) for r in self.running[s]] + list(extra)
        for at in sorted({now} | {e for e, _ in ends if e > now}):
            if self.size[s] - sum(k for e, k in ends if e > at) >= procs:
                return at
        raise AssertionError("unreachable")

    def load(self, s: int, now: float) -> Fraction:
        """Remaining processor x requested seconds per processor, in exact arithmetic."""
        queued = sum(c.job.procs * Fraction(c.estimate) for c in self.queue[s])
        running = sum(r.job.procs * (Fraction(r.planned) - Fraction(now)) for r in self.running[s])
        return (queued + running) / self.size[s]

    def completion_if_sent(self, s: int, job: MultiSiteJob, now: float) -> float:
        estimate = self.requested[job.id][s]
        if self.conservative:
            return self.earliest_fit(s, now, Copy(job, (0, 0, 0), estimate)) + estimate
        return self.earliest_start_behind_running(s, now, job.procs) + estimate

    def live(self, job: int) -> list[int]:
        waiting = [s for s in range(len(self.size)) if self.copy_at(s, job) is not None]
        running = [
            s for s in range(len(self.size)) if any(r.job.id == job for r in self.running[s])
        ]
        return waiting + running

    def copy_at(self, s: int, job: int) -> Copy | None:
        return next((c for c in self.queue[s] if c.job.id == job), None)

    def expected_completion(self, s: int, job: int, now: float) -> float:
        for r in self.running[s]:
            if r.job.id == job:
                return r.planned
        copy = self.copy_at(s, job)
        assert copy is not None
        if copy.reservation is not None:
            return copy.reservation + copy.estimate
        if self.conservative:
            return self.earliest_fit(s, now, copy) + copy.estimate
        return self.earliest_start_behind_running(s, now, copy.job.procs) + copy.estimate

    # -- transitions -------------------------------------------------------------------------

    def arrive(self, job: MultiSiteJob, now: float) -> None:
        fits = [p >= job.procs for p in self.size]
        if not any(fits):
            return
        values: list[Fraction | float]
        if self.policy.selection == "load":
            values = [self.load(s, now) if fits[s] else math.inf for s in range(len(fits))]
        else:
            self.messages += 2 * sum(fits)  # only the sites large enough are queried
            values = [
                self.completion_if_sent(s, job, now) if fits[s] else math.inf
                for s in range(len(fits))
            ]
        k = self.policy.copies or len(self.size)
        ranked = sorted((v, s) for s, v in enumerate(values) if v != math.inf)
        chosen = sorted(s for _, s in ranked[:k])
        best = min(self.exact[job.id][s] for s in chosen)
        for s in chosen:
            here = self.requested[job.id][s]
            efficacy = best / self.exact[job.id][s]  # exact inputs: equal efficacies tie
            first = -efficacy if self.policy.priority == "efficacy" else Fraction(0)
            copy = Copy(job, (first, job.submit, job.id), here)
            keys = [c.key for c in self.queue[s]]
            self.queue[s].insert(bisect_right(keys, copy.key), copy)
            self.dirty.add(s)
            if self.conservative and self.reserve_on_arrival:
                self.plan(s, now)  # its reservation at once: later queries see it

    def withdraw(self, s: int, job: int) -> None:
        copy = self.copy_at(s, job)
        assert copy is not None
        self.queue[s].remove(copy)
        if copy.reservation is not None:
            self.freed[s] = True
        self.dirty.add(s)

    def stop(self, s: int, job: int, now: float) -> None:
        r = next(r for r in self.running[s] if r.job.id == job)
        self.running[s].remove(r)
        self.executions.append((job, s, r.start, now, r.job.procs, False))
        self.started = [x for x in self.started if x[2] != job]
        if r.planned > now:
            self.freed[s] = True
        self.dirty.add(s)

    def start(self, s: int, job: int, now: float) -> None:
        live = self.live(job)
        self.messages += 3 * (len(live) - 1)
        mine = self.requested[job][s]
        previous = next((o for o in live if any(r.job.id == job for r in self.running[o])), None)
        withdrawn = [
            o
            for o in sorted(live)
            if o != s and (self.policy.cancel == "all" or self.exact[job][o] >= self.exact[job][s])
        ]
        if previous is not None:
            self.stop(previous, job, now)
        copy = self.copy_at(s, job)
        assert copy is not None
        self.queue[s].remove(copy)
        requested, actual = mine, self.actual[job][s]
        end = now + (requested if actual > requested else actual)
        self.running[s].append(Running(copy.job, now, now + requested, end))
        self.started.append((end, self.order, job))
        self.order += 1
        for o in withdrawn:
            if o != previous:
                self.withdraw(o, job)

    def complete(self, job: int, now: float) -> None:
        s = next(s for s in range(len(self.size)) if any(r.job.id == job for r in self.running[s]))
        r = next(r for r in self.running[s] if r.job.id == job)
        self.running[s].remove(r)
        self.executions.append((job, s, r.start, now, r.job.procs, True))
        if r.planned > now:
            self.freed[s] = True
        for o in self.live(job):
            self.withdraw(o, job)
        self.dirty.add(s)

    # -- decisions ---------------------------------------------------------------------------

    def easy(self, s: int, now: float) -> None:
        queue = list(self.queue[s])
        free = self.size[s] - sum(r.job.procs for r in self.running[s])
        starting: list[Copy] = []
        i = 0
        while i < len(queue) and queue[i].job.procs <= free:
            starting.append(queue[i])
            free -= queue[i].job.procs
            i += 1
        if i < len(queue):
            head = queue[i]
            ends = [(now + c.estimate, c.job.procs) for c in starting]
            promise = self.earliest_start_behind_running(s, now, head.job.procs, ends)
            for c in queue[i + 1 :]:
                if c.job.procs > free:
                    continue
                trial = [*ends, (now + c.estimate, c.job.procs)]
                if self.earliest_start_behind_running(s, now, head.job.procs, trial) <= promise:
                    starting.append(c)
                    ends = trial
                    free -= c.job.procs
        for c in starting:
            self.start(s, c.job.id, now)

    def plan(self, s: int, now: float) -> list[int]:
        for copy in self.queue[s]:
            if copy.reservation is None:
                copy.reservation = self.earliest_fit(s, now, copy)
            elif self.freed[s]:
                old = copy.reservation
                copy.reservation = self.earliest_fit(s, now, copy, without=copy)
                assert copy.reservation <= old, "compression moved a reservation later"
        self.freed[s] = False
        return [c.job.id for c in self.queue[s] if c.reservation == now]

    def start_due(self, s: int, due: list[int], now: float) -> None:
        for job in due:
            if self.copy_at(s, job) is None:
                continue  # withdrawn since: it started elsewhere this instant
            if self.policy.start == "completion":
                here = now + self.requested[job][s]
                others = {o: self.expected_completion(o, job, now) for o in self.live(job)}
                del others[s]
                if any(c < here for c in others.values()):
                    self.messages += 3 * len(others)
                    self.withdraw(s, job)
                    continue
            self.start(s, job, now)

    def scheduling_pass(self, now: float) -> None:
        while self.dirty:
            due = []
            for s in sorted(self.dirty):
                self.dirty.discard(s)
                if self.conservative:
                    due.append((s, self.plan(s, now)))
                else:
                    self.easy(s, now)
            for s, jobs in due:
                self.start_due(s, jobs, now)

    # -- the run -----------------------------------------------------------------------------

    def run(self) -> tuple[list[Execution], int]:
        pending = list(self.jobs)
        while pending or any(self.running) or any(self.queue):
            times = [x[0] for x in self.started]
            if pending:
                times.append(pending[0].submit)
            for q in self.queue:
                times += [c.reservation for c in q if c.reservation is not None]
            now = min(times)
            for q_index, q in enumerate(self.queue):
                if any(c.reservation == now for c in q):
                    self.dirty.add(q_index)
            first = True
            while True:
                ending = sorted(x for x in self.started if x[0] == now)
                for x in ending:
                    self.started.remove(x)
                    self.complete(x[2], now)
                if first and pending and pending[0].submit == now:
                    for s in range(len(self.size)):  # ends before arrivals: compress first
                        if self.conservative and self.freed[s]:
                            self.plan(s, now)
                    while pending and pending[0].submit == now:
                        self.arrive(pending.pop(0), now)
                first = False
                self.scheduling_pass(now)
                if not any(x[0] == now for x in self.started):
                    break
        return sorted(self.executions), self.messages


def reference(
    instance: Any, policy: MetaPolicy, reserve_on_arrival: bool = True
) -> tuple[list[Execution], int]:
    sites, matrix, jobs = instance
    return Reference(list(jobs), list(sites), policy, matrix, reserve_on_arrival).run()


def library(
    instance: Any, policy: MetaPolicy, reserve_on_arrival: bool = True
) -> tuple[list[Execution], int]:
    sites, matrix, jobs = instance
    run = simulate_multisite(
        jobs, sites, policy, matrix=matrix, reserve_on_arrival=reserve_on_arrival
    )
    return sorted(run.executions()), run.messages


POLICIES = [
    GREEDY,
    GREEDY_MR,
    GREEDY_MR.with_copies(2, "load"),
    GREEDY_MR.with_copies(2, "completion"),
    CONSERVATIVE_MR,
    CONSERVATIVE_MR.with_copies(1, "completion"),
    CONSERVATIVE_MR.with_copies(2, "load"),
    CONSERVATIVE_MR.with_copies(2, "completion"),
    CONSERVATIVE_MR_SLOWER,
    CONSERVATIVE_MR_SLOWER.with_copies(2, "load"),
    EFFICACY,
    EFFICACY.with_copies(2, "completion"),
    MetaPolicy("conservative-start", "conservative", None),
]
BUSY = multisite_instances(max_sites=3, max_processors=4, max_jobs=10, max_submit=6)

# A completion query at t=10 must see the processors of job 0, which ended early at 10
# at site a: job 1 then completes earliest at a (60), not at the slower b (85).
ENDED_EARLY = (
    (Site("a", 4), Site("b", 4)),
    RuntimeMatrix(((1.0, 1.5),), ("slow at b",)),
    (MultiSiteJob(0, 0, 4, 100, 10), MultiSiteJob(1, 10, 4, 50, 50)),
)
# EASY at t = 734831.4662961123: job 0 holds 3 of 5 processors until S = t + d, job 1
# (4 processors) waits for S, job 2 (2 processors, d) ends at t + d = S exactly: it
# backfills, although S - t < d in floating point.
NOW, D = 734831.4662961123, 3589.5348837209303
WINDOW_EQUALITY = (
    (Site("a", 5),),
    RuntimeMatrix(((1.0,),), ("x",)),
    (MultiSiteJob(0, NOW, 3, D, D), MultiSiteJob(1, NOW, 4, D, D), MultiSiteJob(2, NOW, 2, D, D)),
)
# The minimal case (preset `EFFICACY`): jobs 0-2 of one class at t = 3 have equal
# efficacies at site 0 (1 / f), which the quotients of the float products d * f do not;
# FCFS among equals starts job 1 there at t = 3.
EFFICACY_TIE = (
    (Site("a", 1), Site("b", 1)),
    RuntimeMatrix(((35.6 / 24.2, 1.0),), ("x",)),
    (MultiSiteJob(0, 3, 1, 4, 4), MultiSiteJob(1, 3, 1, 6, 1), MultiSiteJob(2, 3, 1, 4, 3)),
)
SPREAD = multisite_instances(max_jobs=8, max_submit=30, runtimes="any")


@pytest.mark.parametrize("reserve", [True, False], ids=["reserve-on-arrival", "reserve-at-pass"])
@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: p.name)
@settings(max_examples=40)
@given(BUSY)
@example(ENDED_EARLY)
@example(EFFICACY_TIE)
def test_every_execution_and_message_matches_the_reference(
    policy: MetaPolicy, reserve: bool, instance: Any
) -> None:
    assert library(instance, policy, reserve) == reference(instance, policy, reserve)


@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: p.name)
@settings(max_examples=30)
@given(SPREAD)
def test_spread_arrivals_and_killed_jobs_match_the_reference(
    policy: MetaPolicy, instance: Any
) -> None:
    assert library(instance, policy) == reference(instance, policy)


EVERY_SITE = [p for p in POLICIES if p.copies is None]
FLOAT = multisite_instances(max_sites=3, max_processors=4, max_jobs=10, max_submit=6, times="float")


@pytest.mark.parametrize("policy", EVERY_SITE, ids=lambda p: p.name)
@settings(max_examples=60)
@given(FLOAT)
@example(WINDOW_EQUALITY)
@example(EFFICACY_TIE)
def test_float_times_match_the_reference(policy: MetaPolicy, instance: Any) -> None:
    """The paper's Table 1 factors make every time a float; comparisons as the paper
    writes them (`t + d <= S`) must still give the same schedule. (Every site gets a
    copy here: no load is compared, whose float sums may round differently.)"""
    assert library(instance, policy) == reference(instance, policy)


def test_the_reference_serves_equal_efficacies_fcfs() -> None:
    """The reference itself on the minimal case: job 1 at site 0 from t = 3 (not job 2)."""
    executions, _ = reference(EFFICACY_TIE, EFFICACY)
    assert [x[:3] for x in executions] == [(0, 1, 3), (1, 0, 3), (2, 0, 3 + 35.6 / 24.2)]
