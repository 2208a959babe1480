"""Decision-level properties of the local schedulers, and broken variants.

Every checker is run on the real policy (it must pass) and on a deliberately
broken policy defined here (hypothesis must find a counterexample).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations, product
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

from schedlib.errors import InvalidValueError
from schedlib.preemption import decision as decision_module
from schedlib.preemption.decision import (
    Contender,
    Decision,
    NodeSnapshot,
    PreemptionRound,
    apply_decision,
    free_vector,
    rank_key,
    schedule_fcfs_backfill,
    schedule_preemptive,
    schedule_preemptive_equal,
    victim_key,
)
from schedlib.preemption.resources import add, fits, total
from schedlib.testing.invariants import (
    check_decision,
    check_decision_valid,
    check_fill_maximal,
    check_preemptions_justified,
    check_victim_order,
    check_victims_needed,
    check_waiting_blocked,
)
from schedlib.testing.strategies import node_snapshots

Checker = Callable[[NodeSnapshot, Decision], None]
Policy = Callable[[NodeSnapshot], Decision]
SEARCH = settings(
    max_examples=2000,
    database=None,
    suppress_health_check=list(HealthCheck),
    deadline=None,
    phases=[Phase.generate],  # finding one counterexample is enough
)


def violates(checker: Checker, policy: Policy, snapshots: Any = None) -> bool:
    """Whether hypothesis finds a snapshot (from `node_snapshots()` by default) on which
    `policy` fails `checker`."""

    def fails(snap: NodeSnapshot) -> bool:
        try:
            checker(snap, policy(snap))
        except AssertionError:
            return True
        return False

    try:
        find(node_snapshots() if snapshots is None else snapshots, fails, settings=SEARCH)
    except Exception as error:  # hypothesis.errors.NoSuchExample
        if type(error).__name__ == "NoSuchExample":
            return False
        raise
    return True


# -- the real policies pass ----------------------------------------------------------------


@settings(max_examples=600)
@given(node_snapshots())
def test_preemptive_decisions_have_every_property(snap: NodeSnapshot) -> None:
    check_decision(snap, schedule_preemptive(snap))


@settings(max_examples=400)
@given(node_snapshots(kinds=3, max_running=7, max_waiting=8))
def test_preemptive_decisions_with_three_kinds(snap: NodeSnapshot) -> None:
    check_decision(snap, schedule_preemptive(snap))


@settings(max_examples=400)
@given(node_snapshots(max_priority=3))
def test_equal_victim_decisions_have_every_property(snap: NodeSnapshot) -> None:
    """Algorithm 1's line 5 (equal-priority victims): few priorities, so ties are the rule."""
    check_decision(snap, schedule_preemptive(snap, victims="equal"), victims="equal")


def paper_order(c: Contender, capacity: tuple[float, ...]) -> tuple[float, float, float, int]:
    """Victim order as §5.1 states it, written independently of `victim_key`: lowest priority
    first, then the smaller requirement (J'_Rmin, as a share of the node), arrival, id."""
    share = sum(r / k for r, k in zip(c.requirement, capacity, strict=True) if k)
    return (c.priority, share, c.arrival, c.job)


def brute_force_victims(
    head: Contender,
    candidates: list[Contender],
    free: tuple[float, ...],
    capacity: tuple[float, ...],
) -> set[int]:
    """Every subset of the candidates that makes room, and the one sparing the latest in victim
    order: its membership read from the last candidate down is lexicographically least."""
    order = sorted(candidates, key=lambda c: paper_order(c, capacity))
    best: tuple[int, ...] | None = None
    chosen: set[int] = set()
    for mask in product((0, 1), repeat=len(order)):
        taken = [c for c, bit in zip(order, mask, strict=True) if bit]
        if not fits(head.requirement, add(free, total((c.requirement for c in taken), len(free)))):
            continue
        key = tuple(reversed(mask))
        if best is None or key < best:
            best, chosen = key, {c.job for c in taken}
    return chosen


def round_victims_match_brute_force(snap: NodeSnapshot, victims: str) -> None:
    decision = schedule_preemptive(snap, victims=victims)
    jobs = {c.job: c for c in snap.running + snap.waiting}
    unstopped = {c.job for c in snap.running}
    for rnd in decision.rounds:
        head = jobs[rnd.head]
        candidates = [
            jobs[j]
            for j in rnd.running
            if jobs[j].priority < head.priority
            or (victims == "equal" and jobs[j].priority == head.priority and j in unstopped)
        ]
        expected = brute_force_victims(head, candidates, rnd.free, snap.capacity)
        assert set(rnd.victims) == expected, (rnd, expected)
        unstopped -= set(rnd.victims)


@st.composite
def full_nodes(draw: st.DrawFn) -> NodeSnapshot:
    """A node whose cores are all taken by jobs of priority -3..-1 (ties on purpose) and one
    waiting job of priority 0 that does not fit: every example is a preemption round with
    up to 8 candidates."""
    kinds = draw(st.integers(2, 3))
    capacity = (draw(st.integers(2, 8)), *(draw(st.integers(1, 6)) for _ in range(kinds - 1)))
    free = list(capacity)
    running = []
    while free[0] >= 1:
        cores = draw(st.integers(1, min(2, int(free[0]))))
        rest = [draw(st.integers(0, int(f))) for f in free[1:]]
        requirement = (cores, *rest)
        free = [f - r for f, r in zip(free, requirement, strict=True)]
        running.append(Contender(len(running), requirement, -float(draw(st.integers(1, 3))), 0))
    head = Contender(
        len(running),
        (draw(st.integers(1, capacity[0])), *(draw(st.integers(0, c)) for c in capacity[1:])),
        0.0,
        1,
    )
    return NodeSnapshot(capacity, tuple(running), (head,))


@settings(max_examples=300)
@given(full_nodes())
def test_victims_of_one_round_are_the_brute_force_choice(snap: NodeSnapshot) -> None:
    """Differential, one round with many candidates: the victims against an enumeration of
    every victim set, in the paper's order (lowest priority, then J'_Rmin)."""
    round_victims_match_brute_force(snap, "lower")
    check_victim_order(snap, schedule_preemptive(snap))


@settings(max_examples=400)
@given(node_snapshots(max_running=5, max_waiting=4, max_priority=6))
def test_victims_are_the_brute_force_choice(snap: NodeSnapshot) -> None:
    """Differential, whole decisions (several rounds, both readings)."""
    round_victims_match_brute_force(snap, "lower")
    round_victims_match_brute_force(snap, "equal")


@pytest.mark.timeout(10)
def test_equal_victims_do_not_loop_on_the_issue_case() -> None:
    """Issue 29: a node of 3 cores runs (1 core, -10) and (2 cores, -5); (2 cores, -5) waits.
    With equal-priority victims, jobs 2 and 3 took each other's cores for ever."""
    tie = NodeSnapshot(
        (3,),
        running=(Contender(1, (1,), -10.0, 0), Contender(2, (2,), -5.0, 0)),
        waiting=(Contender(3, (2,), -5.0, 1),),
    )
    assert schedule_preemptive(tie) == Decision()
    decision = schedule_preemptive(tie, victims="equal")
    assert decision == Decision(preempt=(2,), start=(3,))
    check_decision(tie, decision, victims="equal")


@pytest.mark.timeout(10)
def test_a_stopped_job_is_no_equal_victim_again_in_the_decision() -> None:
    """Jobs 2 and 3 (equal priority) both run since before the decision; job 4 takes job 2's
    place, job 2 takes job 3's; job 3 may not take job 2's back (it was stopped already)."""
    snap = NodeSnapshot(
        (3, 2),
        running=(
            Contender(1, (1, 0), -10.0, 0),
            Contender(2, (1, 1), -5.0, 0),
            Contender(3, (1, 1), -5.0, 0),
        ),
        waiting=(Contender(4, (1, 1), -5.0, 1),),
    )
    decision = schedule_preemptive(snap, victims="equal")
    assert decision == Decision(preempt=(3,), start=(4,))
    assert [(r.head, r.victims) for r in decision.rounds] == [(4, (2,)), (2, (3,))]
    check_decision(snap, decision, victims="equal")


def test_an_unknown_victims_reading_is_refused() -> None:
    with pytest.raises(InvalidValueError, match="victims = 'same'"):
        schedule_preemptive(NodeSnapshot((1,)), victims="same")
    with pytest.raises(InvalidValueError, match="victims = 'same'"):
        check_decision(NodeSnapshot((1,)), Decision(), victims="same")


@given(node_snapshots())
def test_fcfs_backfill_fills_and_never_preempts(snap: NodeSnapshot) -> None:
    decision = schedule_fcfs_backfill(snap)
    assert decision.preempt == ()
    check_decision_valid(snap, decision)
    check_fill_maximal(snap, decision)


@given(node_snapshots())
def test_decisions_are_idempotent(snap: NodeSnapshot) -> None:
    after = apply_decision(snap, schedule_preemptive(snap))
    assert schedule_preemptive(after) == Decision()


@given(node_snapshots(max_running=4, max_waiting=3))
def test_victims_are_inclusion_minimal_by_brute_force(snap: NodeSnapshot) -> None:
    """No proper subset of the victims would have let the started jobs start too."""
    decision = schedule_preemptive(snap)
    after = apply_decision(snap, decision)
    started = [c for c in after.running if c.job in decision.start]
    kept = [c for c in snap.running if c.job not in decision.preempt]
    victims = [c for c in snap.running if c.job in decision.preempt]
    for size in range(len(victims)):
        for spared in combinations(victims, len(victims) - size):
            if len(spared) == 0:
                continue
            held = total((c.requirement for c in kept + list(spared) + started), len(snap.capacity))
            assert not fits(held, snap.capacity), (
                f"sparing {[c.job for c in spared]} would still have fitted"
            )


def test_paper_figure_1() -> None:
    snap = NodeSnapshot(
        (4, 4096),
        running=(Contender(1, (1, 1024), -3000, 0), Contender(2, (2, 1024), -5000, 10)),
        waiting=(Contender(3, (2, 1024), -600, 20), Contender(4, (1, 512), -4000, 30)),
    )
    assert schedule_preemptive(snap) == Decision(preempt=(2,), start=(4, 3))


def test_a_victim_that_fits_again_is_kept_running() -> None:
    # Job 0 is preempted for job 2 first (smaller of the two lowest); then job 1 is
    # preempted for job 3, which leaves a core free: job 0 fits again and keeps running.
    snap = NodeSnapshot(
        (3, 1),
        running=(Contender(0, (1, 0), -1.0, 0), Contender(1, (2, 0), -1.0, 0)),
        waiting=(Contender(2, (1, 0), 0.0, 0), Contender(3, (1, 0), 0.0, 0)),
    )
    decision = schedule_preemptive(snap)
    assert decision == Decision(preempt=(1,), start=(2, 3))
    check_decision(snap, decision)


def test_equal_priorities_never_preempt() -> None:
    snap = NodeSnapshot(
        (1,), running=(Contender(1, (1,), -5.0, 0),), waiting=(Contender(2, (1,), -5.0, 1),)
    )
    assert schedule_preemptive(snap) == Decision()


def test_snapshot_validation_names_the_field() -> None:
    with pytest.raises(InvalidValueError, match="has 1 kinds, the capacity has 2"):
        NodeSnapshot((2, 2), waiting=(Contender(1, (1,), 0.0, 0),))
    with pytest.raises(InvalidValueError, match="job id appears twice"):
        NodeSnapshot(
            (2,), running=(Contender(1, (1,), 0.0, 0),), waiting=(Contender(1, (1,), 0.0, 0),)
        )
    with pytest.raises(InvalidValueError, match="is not running"):
        apply_decision(NodeSnapshot((2,)), Decision(preempt=(3,)))


# -- broken variants: each checker catches one ---------------------------------------------


def no_backfill(snap: NodeSnapshot) -> Decision:
    """Starts the head while it fits, then stops (no backfilling, no preemption)."""
    free = list(free_vector(snap))
    started = []
    for c in sorted(snap.waiting, key=rank_key):
        if not fits(c.requirement, free):
            break
        free = [f - r for f, r in zip(free, c.requirement, strict=True)]
        started.append(c.job)
    return Decision(start=tuple(started))


def fill_only(snap: NodeSnapshot) -> Decision:
    """Backfills but never preempts."""
    return schedule_fcfs_backfill(
        NodeSnapshot(
            snap.capacity,
            snap.running,
            tuple(Contender(c.job, c.requirement, c.priority, -c.priority) for c in snap.waiting),
        )
    )


def preempt_all_lower(snap: NodeSnapshot) -> Decision:
    """Preempts every job below the best started one ("just enough" ignored)."""
    decision = schedule_preemptive(snap)
    if not decision.preempt:
        return decision
    priority = {c.job: c.priority for c in snap.running + snap.waiting}
    top = max(priority[j] for j in decision.start)
    extra = tuple(c.job for c in snap.running if c.priority < top and c.job not in decision.preempt)
    return Decision(preempt=decision.preempt + extra, start=decision.start)


def preempt_equal(snap: NodeSnapshot) -> Decision:
    """Preempts running jobs of equal priority too (<= instead of <)."""
    shifted = NodeSnapshot(
        snap.capacity,
        snap.running,
        tuple(Contender(c.job, c.requirement, c.priority + 0.5, c.arrival) for c in snap.waiting),
    )
    return schedule_preemptive(shifted)


def ignore_memory(snap: NodeSnapshot) -> Decision:
    """Checks only the cores when filling (oversubscribes the other kinds)."""
    free = free_vector(snap)[0]
    started = []
    for c in sorted(snap.waiting, key=rank_key):
        if c.requirement[0] <= free:
            free -= c.requirement[0]
            started.append(c.job)
    return Decision(start=tuple(started))


def keep_unneeded_victims(snap: NodeSnapshot) -> Decision:
    """Stops victims lowest priority first until the job fits, and never releases one again.

    The mutant of the reliability audit: `FindOptimal`'s second pass (drop the
    victims whose release is not needed) is skipped.
    """
    free = list(free_vector(snap))
    running = {c.job: c for c in snap.running}
    started: list[int] = []
    queue = []
    for c in sorted(snap.waiting, key=rank_key):
        if fits(c.requirement, free):
            free = [f - r for f, r in zip(free, c.requirement, strict=True)]
            running[c.job] = c
            started.append(c.job)
        else:
            queue.append(c)
    preempted: list[int] = []
    rounds = []
    for head in queue:
        if not running or head.priority <= min(c.priority for c in running.values()):
            break
        lower = sorted(
            (c for c in running.values() if c.priority < head.priority),
            key=lambda c: victim_key(c, snap.capacity),
        )
        released, chosen = list(free), []
        for c in lower:
            chosen.append(c)
            released = [f + r for f, r in zip(released, c.requirement, strict=True)]
            if fits(head.requirement, released):
                break
        else:
            continue
        rounds.append(PreemptionRound(head.job, [c.job for c in chosen], free))
        for c in chosen:
            del running[c.job]
            (started.remove if c.job in started else preempted.append)(c.job)
        free = [f - r for f, r in zip(released, head.requirement, strict=True)]
        running[head.job] = head
        started.append(head.job)
    for c in sorted(snap.waiting, key=rank_key):  # fill again
        if c.job not in running and fits(c.requirement, free):
            free = [f - r for f, r in zip(free, c.requirement, strict=True)]
            running[c.job] = c
            started.append(c.job)
    return Decision(preempt=preempted, start=started, rounds=rounds)


_VICTIM_KEY = victim_key


def victims_highest_first(snap: NodeSnapshot) -> Decision:
    """The ascending pass takes the highest-priority candidates first."""

    def key(c: Contender, capacity: tuple[float, ...]) -> tuple[float, ...]:
        priority, *rest = _VICTIM_KEY(c, capacity)
        return (-priority, *rest)

    with mock.patch.object(decision_module, "victim_key", key):
        return schedule_preemptive(snap)


def victims_largest_first(snap: NodeSnapshot) -> Decision:
    """Among equal priorities the larger requirement is taken first (J'_Rmin ignored)."""

    def key(c: Contender, capacity: tuple[float, ...]) -> tuple[float, ...]:
        priority, size, *rest = _VICTIM_KEY(c, capacity)
        return (priority, -size, *rest)

    with mock.patch.object(decision_module, "victim_key", key):
        return schedule_preemptive(snap)


def victims_dropped_lowest_first(snap: NodeSnapshot) -> Decision:
    """The second pass tries to spare the lowest-priority victims first."""
    with mock.patch.object(decision_module, "reversed", lambda xs: iter(xs), create=True):
        return schedule_preemptive(snap)


AUDIT_CASE = NodeSnapshot(
    (4,),
    running=(Contender(1, (1,), -4.0, 0), Contender(2, (3,), -4.0, 0)),
    waiting=(Contender(4, (2,), -2.0, 0), Contender(3, (2,), -4.0, 0)),
)


def test_victims_are_released_when_not_needed_audit_case() -> None:
    """The smallest case of the reliability audit: preempt job 2 and start job 4, nothing more."""
    decision = schedule_preemptive(AUDIT_CASE)
    assert decision == Decision(preempt=(2,), start=(4,))
    assert decision.rounds == (PreemptionRound(head=4, victims=(2,), free=(0,)),)
    check_decision(AUDIT_CASE, decision)
    lazy = keep_unneeded_victims(AUDIT_CASE)
    assert lazy == Decision(preempt=(1, 2), start=(4, 3))
    with pytest.raises(AssertionError, match="victim 1 is not needed"):
        check_victims_needed(AUDIT_CASE, lazy)


def test_unexplained_preemptions_are_reported() -> None:
    with pytest.raises(AssertionError, match="no round of the decision names them"):
        check_victims_needed(AUDIT_CASE, Decision(preempt=(2,), start=(4,)))


def test_a_victim_unneeded_in_hindsight_is_still_justified_per_round() -> None:
    # Round 1 stops job 1 for job 5 while job 2 still runs; round 2 stops job 2 for
    # job 3. In hindsight job 1 was not needed, and job 6 (equal priority) takes its
    # cores in the final fill; per round, every victim was needed.
    snap = NodeSnapshot(
        (5,),
        running=(Contender(1, (2,), -3.0, 3), Contender(2, (3,), -2.0, 3)),
        waiting=(
            Contender(3, (2,), 0.0, 3),
            Contender(4, (3,), -2.0, 0),
            Contender(5, (1,), 0.0, 0),
            Contender(6, (2,), -3.0, 2),
        ),
    )
    decision = schedule_preemptive(snap)
    assert decision == Decision(preempt=(1, 2), start=(5, 3, 6))
    assert [r.victims for r in decision.rounds] == [(1,), (2,)]
    check_decision(snap, decision)


@pytest.mark.parametrize(
    ("checker", "broken"),
    [
        (check_decision_valid, ignore_memory),
        (check_fill_maximal, no_backfill),
        (check_preemptions_justified, preempt_all_lower),
        (check_preemptions_justified, preempt_equal),
        (check_victims_needed, keep_unneeded_victims),
        (check_victims_needed, preempt_all_lower),
        (check_waiting_blocked, fill_only),
    ],
    ids=lambda x: getattr(x, "__name__", str(x)),
)
def test_each_checker_catches_its_broken_variant(checker: Checker, broken: Policy) -> None:
    assert violates(checker, broken)


@pytest.mark.parametrize(
    "broken",
    [victims_highest_first, victims_largest_first, victims_dropped_lowest_first],
    ids=lambda x: x.__name__,
)
def test_the_victim_order_checker_catches_each_wrong_order(broken: Policy) -> None:
    assert violates(check_victim_order, broken, full_nodes())


def test_the_equal_reading_breaks_the_strict_justification() -> None:
    """Equal-priority victims fail the default (strict) check; they pass their own
    (`test_equal_victim_decisions_have_every_property`)."""
    assert violates(check_preemptions_justified, schedule_preemptive_equal)


def test_best_only_is_weaker_than_every_waiting() -> None:
    # Job 3 is not the best waiting job, yet preempting job 1 would let it start.
    snap = NodeSnapshot(
        (2,),
        running=(Contender(1, (1,), -9.0, 0), Contender(2, (1,), -1.0, 0)),
        waiting=(Contender(4, (2,), -2.0, 0), Contender(3, (1,), -5.0, 0)),
    )
    lazy = Decision()
    with pytest.raises(AssertionError):
        check_waiting_blocked(snap, lazy)
    # job 4 (best) needs both cores, but job 2 ranks above it: the best job is blocked
    check_waiting_blocked(snap, lazy, best_only=True)
