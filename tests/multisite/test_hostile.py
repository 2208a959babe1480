"""Hostile workloads for the multi-site model: named regression cases.

Thousands of jobs at one instant, zero-length jobs, jobs as wide as the largest site
and wider than every site, runtimes above the request (killed at the limit), a
request of 0 (refused), submissions out of order, sub-second times, duplicate ids, a
stream whose every job is unschedulable. Every policy keeps its invariants on each. A
broken site that never acknowledges the end of a job is stopped by the engine's
progress guard.
"""

from __future__ import annotations

import time

import pytest

from schedlib.engine import Event, Phase, Step
from schedlib.errors import InvalidValueError, SimulationStuckError
from schedlib.model import FinalState
from schedlib.multisite import MultiSiteJob, RuntimeMatrix, Site, simulate_multisite
from schedlib.multisite.model import MultiSiteModel
from schedlib.multisite.policies import POLICIES
from schedlib.multisite.state import RunCore
from schedlib.testing.invariants import (
    check_every_job_accounted,
    check_lifecycle,
)

SITES = [Site("a", 8), Site("b", 4), Site("c", 16)]
MATRIX = RuntimeMatrix(((1.0, 2.0, 0.5), (1.5, 1.0, 1.0)), ("x", "y"))


def job(i: int, submit: float, procs: int, requested: float, runtime: float) -> MultiSiteJob:
    return MultiSiteJob(i, submit, procs, requested, runtime, job_class=i % 2)


CASES: dict[str, list[MultiSiteJob]] = {
    "2000 jobs at one instant": [job(i, 0, 1 + i % 8, 10 + i % 7, 5 + i % 9) for i in range(2000)],
    "300 jobs at one instant": [job(i, 0, 1 + i % 8, 10 + i % 7, 5 + i % 9) for i in range(300)],
    "zero-length jobs": [job(i, i % 3, 1 + i % 4, 1, 0) for i in range(40)],
    "as wide as the largest site": [job(i, i, 16, 20, 20) for i in range(10)],
    "wider than every site": [job(0, 0, 17, 20, 20), job(1, 0, 2, 5, 5)],
    "runtime above the request": [job(i, 0, 2, 5, 5 + 10 * i) for i in range(20)],
    "sub-second times": [job(i, i * 0.07, 1 + i % 3, 0.4, 0.3) for i in range(200)],
    "all unschedulable": [job(i, i, 20 + i, 10, 10) for i in range(5)],
    "submitted out of order": [job(i, (7 * i) % 13, 1 + i % 8, 6, 5) for i in range(26)],
}


# Conservative sites replan a queue of q jobs in O(q m): 2000 jobs waiting at one instant
# take minutes there (0.7 s at 300), so the largest case runs on EASY sites only.
RUNS = [
    (name, policy)
    for name in CASES
    for policy in sorted(POLICIES)
    if name != "2000 jobs at one instant" or policy in ("greedy", "greedy-mr")
]


@pytest.mark.parametrize(("name", "policy"), RUNS)
def test_named_hostile_cases_hold_every_invariant(name: str, policy: str) -> None:
    run = simulate_multisite(CASES[name], SITES, policy, matrix=MATRIX)
    record = run.record
    check_every_job_accounted(record)
    check_lifecycle(record)
    states = [o.state for o in record.outcomes]
    if name == "runtime above the request":
        assert states[0] is FinalState.COMPLETED
        assert all(s is FinalState.KILLED_AT_LIMIT for s in states[1:])
    if name == "wider than every site":
        assert states == [FinalState.UNSCHEDULABLE, FinalState.COMPLETED]
        assert "largest site has 16" in (record.outcomes[0].reason or "")
    if name == "all unschedulable":
        assert states == [FinalState.UNSCHEDULABLE] * 5


def test_a_request_of_zero_is_refused_naming_the_field() -> None:
    with pytest.raises(InvalidValueError, match=r"MultiSiteJob\.requested_time = 0"):
        job(1, 0, 1, 0, 5)


def test_duplicate_job_ids_are_refused() -> None:
    with pytest.raises(InvalidValueError, match="twice"):
        simulate_multisite([job(1, 0, 1, 5, 5), job(1, 1, 1, 5, 5)], SITES, matrix=MATRIX)


class NeverAcknowledged(MultiSiteModel):
    """BROKEN: a site reports the end of a job again and again instead of completing it."""

    def on_event(self, core: RunCore, event: Event) -> Step[RunCore]:
        if event.payload[0] != "end":
            return super().on_event(core, event)
        again = Event(
            event.time + 1, Phase.COMPLETION, event.payload, key=("end", event.payload[2])
        )
        return Step(core, events=(again,))


def test_a_site_that_never_acknowledges_an_end_is_stopped_within_seconds() -> None:
    from schedlib.engine import simulate

    model = NeverAcknowledged(
        [job(1, 0, 2, 5, 5), job(2, 1, 2, 5, 5)], SITES, "greedy", matrix=MATRIX
    )
    core, events = model.initial()
    began = time.perf_counter()
    with pytest.raises(SimulationStuckError) as info:
        simulate(model, core, events)
    assert time.perf_counter() - began < 20
    assert info.value.rule == "livelock" and info.value.jobs == (1, 2)
    assert "remaining work did not decrease" in str(info.value)
