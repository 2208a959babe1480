"""FCFS, EASY and conservative against a brute-force simulator written plainly here.

The reference steps through every integer instant, keeps the machine as an
array of used processors per time unit, and applies each policy's definition
literally:

- FCFS: start jobs from the head while they fit;
- EASY: start the prefix that fits; the head's reservation is its earliest
  start given the running jobs' planned ends; a later job starts now if it
  fits now and the head's earliest start, recomputed with that job running,
  is no later (the definition, not the shadow/extra formulas);
- conservative: on arrival, the earliest fit in the array of all promises;
  when a job ends early, every waiting job in queue order is taken out and
  put back at its earliest fit; jobs whose reservation is now start.

Same tie rules as the library: completions, then arrivals, then the pass; the
queue in (submit, id) order; a job that ends the instant it starts frees its
processors for another pass at that instant. Every job's start time must match.

A second reference, `by_events`, applies the same definitions to float times: it
goes from event to event (submissions and ends) instead of through every
integer, and keeps the promises as intervals $[s, s + d)$, compared only as
written ($s \\le x < s + d$, never $x - s < d$). On float ticks (a tenth, a
third, a Table 1 factor of the multi-site runs) a time that is equal in real
arithmetic to another, such as a job ending exactly at the head's shadow time,
comes out equal or an ulp apart depending on how it was summed; the library must
decide as the definition does either way.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlib.backfill import POLICIES, schedule
from schedlib.model import Cluster, Job
from schedlib.testing.strategies import RUNTIME_MODES, parallel_instances


def brute_force(jobs: list[Job], processors: int, policy: str) -> dict[int, int]:
    """Start time of every job, by the definitions above."""
    queue_order = sorted(jobs, key=lambda j: (j.submit, j.id))
    horizon = max((j.submit for j in jobs), default=0) + sum(j.requested_time for j in jobs) + 2
    pending = list(queue_order)
    waiting: list[Job] = []
    running: dict[int, tuple[int, int, Job]] = {}  # id -> (start, actual end, job)
    reservation: dict[int, int] = {}
    start: dict[int, int] = {}

    def used(with_reservations: bool, extra: Job | None = None, at: int = 0) -> list[int]:
        array = [0] * (horizon + 50)
        for began, _, job in running.values():
            for x in range(began, began + job.requested_time):
                array[x] += job.procs
        if with_reservations:
            for job in waiting:
                if job.id in reservation:
                    for x in range(reservation[job.id], reservation[job.id] + job.requested_time):
                        array[x] += job.procs
        if extra is not None:
            for x in range(at, at + extra.requested_time):
                array[x] += extra.procs
        return array

    def earliest(array: list[int], t: int, job: Job) -> int:
        s = t
        while any(array[x] + job.procs > processors for x in range(s, s + job.requested_time)):
            s += 1
        return s

    def begin(job: Job, t: int) -> None:
        start[job.id] = t
        running[job.id] = (t, t + min(job.runtime, job.requested_time), job)
        waiting.remove(job)
        reservation.pop(job.id, None)

    def free_now(t: int) -> int:
        return processors - used(False)[t]

    def scheduling_pass(t: int, compress: bool) -> None:
        if policy in ("fcfs", "easy"):
            while waiting and waiting[0].procs <= free_now(t):
                begin(waiting[0], t)
            if policy == "fcfs" or not waiting:
                return
            head = waiting[0]
            promised = earliest(used(False), t, head)
            for job in list(waiting[1:]):
                if job.procs > free_now(t):
                    continue
                if earliest(used(False, job, t), t, head) <= promised:
                    begin(job, t)
            return
        if compress:
            for job in waiting:
                if job.id in reservation:
                    del reservation[job.id]
                    reservation[job.id] = earliest(used(True), t, job)
        for job in waiting:
            if job.id not in reservation:
                reservation[job.id] = earliest(used(True), t, job)
        for job in list(waiting):
            if reservation[job.id] == t:
                begin(job, t)

    t = 0
    while pending or waiting or running:
        arrivals = True
        while True:
            ended = [job for _, end, job in running.values() if end == t]
            early = any(j.runtime < j.requested_time for j in ended)
            for job in ended:
                del running[job.id]
            if arrivals:
                while pending and pending[0].submit == t:
                    waiting.append(pending.pop(0))
            scheduling_pass(t, early)
            arrivals = False
            if not any(end == t for _, end, _ in running.values()):
                break
        t += 1
        assert t <= horizon + 50, "the reference simulator is stuck"
    return start


SPREAD = {"max_processors": 5, "max_jobs": 9, "max_submit": 20, "max_requested_time": 8}
DENSE = {"max_processors": 3, "max_jobs": 9, "max_submit": 2, "max_requested_time": 5}


@pytest.mark.parametrize("bounds", [SPREAD, DENSE], ids=["spread", "dense"])
@pytest.mark.parametrize("runtimes", RUNTIME_MODES)
@pytest.mark.parametrize("policy", POLICIES)
@settings(max_examples=max(200, settings.default.max_examples))
@given(data=st.data())
def test_start_times_match_the_brute_force(
    policy: str, runtimes: str, bounds: dict[str, int], data: st.DataObject
) -> None:
    cluster, jobs = data.draw(parallel_instances(**bounds, runtimes=runtimes, times="integer"))
    record = schedule(jobs, cluster, policy=policy)
    ours = {o.job: o.start for o in record.outcomes}
    assert ours == brute_force(jobs, cluster.processors, policy)


def test_the_brute_force_itself_on_a_known_case() -> None:
    """The spec's from-scratch counterexample: conservative keeps job 4 at t=1."""
    jobs = [
        Job(1, 0, 1, 1, 1),
        Job(2, 0, 1, 2, 1),
        Job(3, 0, 2, 1, 1),
        Job(4, 0, 1, 1, 1),
    ]
    assert brute_force(jobs, 2, "conservative") == {1: 0, 2: 0, 3: 2, 4: 1}
    assert brute_force(jobs, 2, "easy") == {1: 0, 2: 0, 3: 1, 4: 2}
    assert brute_force(jobs, 2, "fcfs") == {1: 0, 2: 0, 3: 1, 4: 2}
    for policy in POLICIES:
        record = schedule(jobs, Cluster(2), policy=policy)
        assert {o.job: o.start for o in record.outcomes} == brute_force(jobs, 2, policy)


def by_events(jobs: list[Job], processors: int, policy: str) -> dict[int, float]:
    """Start time of every job, by the definitions above, from event to event (float times)."""
    queue_order = sorted(jobs, key=lambda j: (j.submit, j.id))
    pending = list(queue_order)
    waiting: list[Job] = []
    running: dict[int, tuple[float, float, Job]] = {}  # id -> (start, actual end, job)
    reservation: dict[int, float] = {}
    start: dict[int, float] = {}

    def promises(with_reservations: bool) -> list[tuple[float, float, int]]:
        """(start, start + requested time, procs) of every promise."""
        held = [(b, b + job.requested_time, job.procs) for b, _, job in running.values()]
        if with_reservations:
            held += [
                (reservation[job.id], reservation[job.id] + job.requested_time, job.procs)
                for job in waiting
                if job.id in reservation
            ]
        return held

    def used(held: list[tuple[float, float, int]], x: float) -> int:
        return sum(n for b, e, n in held if b <= x < e)

    def earliest(held: list[tuple[float, float, int]], t: float, job: Job) -> float:
        """The first candidate (t, or an end after it) where the job fits for its whole length."""
        for c in sorted({t, *(e for _, e, _ in held if e > t)}):
            points = [c, *(b for b, _, _ in held if c < b < c + job.requested_time)]
            if all(used(held, x) + job.procs <= processors for x in points):
                return c
        raise AssertionError("the reference found no fit")  # the last end always fits

    def begin(job: Job, t: float) -> None:
        start[job.id] = t
        runs = job.runtime if job.runtime < job.requested_time else job.requested_time
        running[job.id] = (t, t + runs, job)
        waiting.remove(job)
        reservation.pop(job.id, None)

    def free_now(t: float) -> int:
        return processors - used(promises(False), t)

    def scheduling_pass(t: float, compress: bool) -> None:
        if policy in ("fcfs", "easy"):
            while waiting and waiting[0].procs <= free_now(t):
                begin(waiting[0], t)
            if policy == "fcfs" or not waiting:
                return
            head = waiting[0]
            promised = earliest(promises(False), t, head)
            for job in list(waiting[1:]):
                if job.procs > free_now(t):
                    continue
                trial = [*promises(False), (t, t + job.requested_time, job.procs)]
                if earliest(trial, t, head) <= promised:
                    begin(job, t)
            return
        if compress:
            for job in waiting:
                if job.id in reservation:
                    del reservation[job.id]
                    reservation[job.id] = earliest(promises(True), t, job)
        for job in waiting:
            if job.id not in reservation:
                reservation[job.id] = earliest(promises(True), t, job)
        for job in list(waiting):
            if reservation[job.id] == t:
                begin(job, t)

    t = queue_order[0].submit if queue_order else 0.0
    for _ in range(10 * len(jobs) + 10):
        arrivals = True
        while True:
            ended = [job for _, end, job in running.values() if end == t]
            early = any(j.runtime < j.requested_time for j in ended)
            for job in ended:
                del running[job.id]
            if arrivals:
                while pending and pending[0].submit == t:
                    waiting.append(pending.pop(0))
            scheduling_pass(t, early)
            arrivals = False
            if not any(end == t for _, end, _ in running.values()):
                break
        if not (pending or waiting or running):
            return start
        later = [end for _, end, _ in running.values()] + [j.submit for j in pending[:1]]
        later += [r for r in reservation.values() if r > t]
        t = min(later)
    raise AssertionError("the reference simulator is stuck")


@pytest.mark.parametrize("bounds", [SPREAD, DENSE], ids=["spread", "dense"])
@pytest.mark.parametrize("runtimes", RUNTIME_MODES)
@pytest.mark.parametrize("policy", POLICIES)
@settings(max_examples=max(200, settings.default.max_examples))
@given(data=st.data())
def test_start_times_match_the_event_reference_on_float_times(
    policy: str, runtimes: str, bounds: dict[str, int], data: st.DataObject
) -> None:
    cluster, jobs = data.draw(parallel_instances(**bounds, runtimes=runtimes, times="float"))
    record = schedule(jobs, cluster, policy=policy)
    ours = {o.job: o.start for o in record.outcomes}
    assert ours == by_events(jobs, cluster.processors, policy)


@pytest.mark.parametrize("policy", POLICIES)
@settings(max_examples=100)
@given(data=st.data())
def test_the_event_reference_agrees_with_the_integer_one(policy: str, data: st.DataObject) -> None:
    cluster, jobs = data.draw(parallel_instances(**DENSE, runtimes="any", times="integer"))
    assert by_events(jobs, cluster.processors, policy) == brute_force(
        jobs, cluster.processors, policy
    )
