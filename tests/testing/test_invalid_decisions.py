"""A custom backfilling decision that cannot be carried out is the user's error, not ours.

`schedule(..., decide=f)` validates what `f` returns (only then: the default
path is not slowed) and raises `InvalidDecisionError` naming `f`, the time and
what is invalid, instead of an internal error from deep inside the model.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
import pytest

from schedlib.backfill import (
    Decision,
    Plan,
    PlanDecision,
    Request,
    Snapshot,
    conservative,
    easy,
    fcfs,
    schedule,
)
from schedlib.errors import InvalidDecisionError
from schedlib.model import Cluster, Job

JOBS = [Job(1, 0, 3, 10, 10), Job(2, 0, 3, 10, 10), Job(3, 1, 1, 5, 5)]
GHOST = Request(99, 0, 1, 5)


def oversubscribes(snapshot: Snapshot) -> Decision:
    queue = snapshot.queue
    return Decision(queue, tuple(range(len(queue))))


def starts_twice(snapshot: Snapshot) -> Decision:
    d = easy(snapshot)
    if d.start:
        return Decision(d.start + d.start[:1], d.positions + d.positions[:1])
    return d


def starts_a_ghost(snapshot: Snapshot) -> Decision:
    return Decision((GHOST,), (0,))


remembered: list[Request] = []


def restarts_a_running_job(snapshot: Snapshot) -> Decision:
    d = easy(snapshot)
    if remembered and snapshot.now > 0:
        return Decision((remembered[0],), (0,))
    remembered.extend(d.start)
    return d


def wrong_position(snapshot: Snapshot) -> Decision:
    d = easy(snapshot)
    if d.start:
        return attrs.evolve(d, positions=tuple(p + 1 for p in d.positions))
    return d


def not_a_decision(snapshot: Snapshot) -> Any:
    return [job.id for job in snapshot.queue]


def reserves_in_the_past(snapshot: Snapshot) -> Decision:
    d = easy(snapshot)
    if d.head is not None:
        return attrs.evolve(d, reservation=snapshot.now - 1)
    return d


CASES: dict[str, tuple[Callable[[Snapshot], Any], str]] = {
    "oversubscribes": (oversubscribes, "oversubscribes: the jobs it starts need 6 processors"),
    "twice": (starts_twice, "starts job 1 twice"),
    "ghost": (starts_a_ghost, "starts job 99, which is not waiting"),
    "running": (restarts_a_running_job, "which is not waiting"),
    "position": (wrong_position, "is not its place in the queue"),
    "type": (not_a_decision, "must return a backfill Decision"),
    "past": (reserves_in_the_past, "reserves a start in the past"),
}


@pytest.mark.parametrize("policy", ["fcfs", "easy"])
@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_an_invalid_decision_names_the_function_time_and_fault(policy: str, case: str) -> None:
    decide, fault = CASES[case]
    remembered.clear()
    with pytest.raises(InvalidDecisionError, match=fault) as info:
        schedule(JOBS, Cluster(4), policy=policy, decide=decide)
    message = str(info.value)
    assert decide.__name__ in message and "at t=" in message
    assert info.value.policy.endswith(decide.__name__)
    assert "internal error" not in message


def plan_starts_too_early(plan: Plan) -> PlanDecision:
    d = conservative(plan)
    late = [k for k, at in enumerate(d.reservations) if at > plan.now]
    if not late:
        return d
    k = late[0]
    reservations = list(d.reservations)
    reservations[k] = plan.now
    positions = tuple(sorted((*d.positions, k)))
    return attrs.evolve(
        d,
        reservations=tuple(reservations),
        start=tuple(plan.queue[p] for p in positions),
        positions=positions,
    )


def plan_forgets_a_reservation(plan: Plan) -> PlanDecision:
    d = conservative(plan)
    return attrs.evolve(d, reservations=d.reservations[:-1]) if d.reservations else d


def plan_skips_a_due_job(plan: Plan) -> PlanDecision:
    d = conservative(plan)
    return attrs.evolve(d, start=(), positions=()) if d.start else d


def plan_in_the_past(plan: Plan) -> PlanDecision:
    d = conservative(plan)
    if d.reservations:
        return attrs.evolve(d, reservations=(plan.now - 5, *d.reservations[1:]))
    return d


PLAN_CASES: dict[str, tuple[Callable[[Plan], Any], str]] = {
    "oversubscribes": (plan_starts_too_early, "oversubscribes"),
    "count": (plan_forgets_a_reservation, "reservation\\(s\\) for 3 waiting job\\(s\\)"),
    "due": (plan_skips_a_due_job, "the jobs whose reservation is now are"),
    "past": (plan_in_the_past, "is not a time at or after now"),
}


@pytest.mark.parametrize("case", PLAN_CASES, ids=list(PLAN_CASES))
def test_an_invalid_conservative_plan_is_reported(case: str) -> None:
    plan, fault = PLAN_CASES[case]
    jobs = [*JOBS, Job(4, 0, 2, 10, 10)]
    with pytest.raises(InvalidDecisionError, match=fault) as info:
        schedule(jobs, Cluster(4), policy="conservative", decide=plan)
    assert plan.__name__ in str(info.value)


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
def test_valid_custom_decisions_still_run(policy: str) -> None:
    decide = {"fcfs": fcfs, "easy": easy, "conservative": conservative}[policy]
    custom = schedule(JOBS, Cluster(4), policy=policy, decide=decide)
    assert custom.outcomes == schedule(JOBS, Cluster(4), policy=policy).outcomes
