"""Each rule of the preemptive checkers fails on a small decision or log that breaks it.

The decision tests run the checkers on every decision of many runs, and the runs through
the run-level checkers; a rule that is never shown a broken input could be switched off
unnoticed. Each test here breaks one rule of a correct input and asserts that the
checker reports it.

Decision level: `TWO_ROUNDS` is the library's decision on a node of 4 cores running jobs 1
and 2 (2 cores each, priorities -10 and -9) with jobs 3 and 4 waiting (2 cores each,
priorities -1 and -2): round 1 stops job 1 for job 3, round 2 job 2 for job 4. Each test
edits one round of its explanation (`Decision.rounds`), keeping the decision itself valid.
"""

from __future__ import annotations

import attrs
import pytest

from schedlib.model import EventKind as K
from schedlib.model import JobEvent, RunRecord
from schedlib.preemption.decision import (
    Contender,
    Decision,
    NodeSnapshot,
    schedule_preemptive,
)
from schedlib.preemption.resources import GridJob, GridNode
from schedlib.testing.invariants import (
    check_decision,
    check_migrations_start,
    check_node_capacity,
    check_push_sends_best,
    check_victim_order,
    check_victims_needed,
)

E = JobEvent
SNAPSHOT = NodeSnapshot(
    (4,),
    running=(Contender(1, (2,), -10.0, 0), Contender(2, (2,), -9.0, 0)),
    waiting=(Contender(3, (2,), -1.0, 0), Contender(4, (2,), -2.0, 0)),
)
TWO_ROUNDS = schedule_preemptive(SNAPSHOT)


def with_round(number: int, **changes: object) -> Decision:
    """`TWO_ROUNDS` with round `number` (1 or 2) changed."""
    rounds = list(TWO_ROUNDS.rounds)
    rounds[number - 1] = attrs.evolve(rounds[number - 1], **changes)
    return attrs.evolve(TWO_ROUNDS, rounds=rounds)


def test_the_two_rounds_are_the_ones_described() -> None:
    assert (TWO_ROUNDS.preempt, TWO_ROUNDS.start) == ((1, 2), (3, 4))
    assert [(r.head, r.victims, r.free, r.running) for r in TWO_ROUNDS.rounds] == [
        (3, (1,), (0,), (1, 2)),
        (4, (2,), (0,), (2, 3)),
    ]
    check_decision(SNAPSHOT, TWO_ROUNDS)


# -- check_victims_needed ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("decision", "match"),
    [
        (with_round(1, head=9), r"round 1 \(for job 9\): job 9 is not on the node"),
        (with_round(1, free=(0, 0)), r"free vector \(0, 0\) has the wrong number"),
        (with_round(1, free=(1,)), r"round 1 .* free vector \(1,\) exceeds the snapshot's"),
        (with_round(2, free=(1,)), r"round 2 .* free vector \(1,\), the previous round"),
        (
            attrs.evolve(with_round(2, victims=(2,)), start=(3,)),
            r"round 2 \(for job 4\): job 4 does not run after the decision",
        ),
        (with_round(1, victims=(1, 9)), "round 1 .* victim 9 is not on the node"),
        (
            attrs.evolve(
                with_round(2, victims=(1, 2)),
                rounds=[
                    attrs.evolve(TWO_ROUNDS.rounds[0], victims=()),
                    attrs.evolve(TWO_ROUNDS.rounds[1], victims=(1, 2)),
                ],
            ),
            r"round 1 \(for job 3\): job 3's \(2,\) does not fit in \(0,\)",
        ),
    ],
    ids=[
        "head-not-on-the-node",
        "free-vector-of-another-size",
        "first-free-above-the-snapshots",
        "free-not-what-the-previous-round-leaves",
        "head-not-running-after",
        "victim-not-on-the-node",
        "victims-too-few",
    ],
)
def test_each_round_of_the_explanation_holds(decision: Decision, match: str) -> None:
    """Each round names a job on the node that runs afterwards, its free vector follows
    from the snapshot or the round before, and its victims are on the node and make room."""
    with pytest.raises(AssertionError, match=match):
        check_victims_needed(SNAPSHOT, decision)


def test_a_victim_has_a_strictly_lower_priority() -> None:
    """Job 1 at priority -1, equal to job 3's: not a victim of job 3 (under "lower")."""
    equal = attrs.evolve(SNAPSHOT, running=(Contender(1, (2,), -1.0, 0), SNAPSHOT.running[1]))
    with pytest.raises(AssertionError, match=r"victim 1 has priority -1\.0, not strictly below"):
        check_victims_needed(equal, TWO_ROUNDS)


# -- check_victim_order --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("decision", "match"),
    [
        (with_round(1, running=(1, 2, 9)), r"round 1 .* jobs \[9\] are not on the node"),
        (with_round(1, running=(1,)), r"should hold the snapshot's running jobs \(missing \[2\]\)"),
        (
            with_round(2, running=(2,)),
            r"round 2 .* running \[2\], the previous round leaves \[2, 3\]",
        ),
        (with_round(1, free=(1,)), r"round 1 .* free vector \(1,\), its running jobs leave"),
        (with_round(1, victims=(1, 4)), r"round 1 .* victims \[4\] are not candidates"),
        (with_round(1, victims=()), "candidate 1 is spared although job 3 cannot fit without it"),
        (with_round(1, victims=(1, 2)), "candidate 1 is preempted although job 3 fits without it"),
    ],
    ids=[
        "running-job-not-on-the-node",
        "first-running-misses-a-job",
        "running-not-what-the-previous-round-leaves",
        "free-not-what-running-leaves",
        "victim-not-a-candidate",
        "needed-candidate-spared",
        "victim-not-needed",
    ],
)
def test_each_round_takes_the_lowest_candidates_it_needs(decision: Decision, match: str) -> None:
    with pytest.raises(AssertionError, match=match):
        check_victim_order(SNAPSHOT, decision)


# -- run level -------------------------------------------------------------------------------

NODES = [GridNode(0, (2,)), GridNode(1, (1,))]
JOBS = [GridJob(1, 0, (1,), 5, 5), GridJob(2, 0, (2,), 5, 5)]
RUN = [
    E(0, 1, K.SUBMIT), E(0, 2, K.SUBMIT), E(0, 1, K.ASSIGN, (0,)), E(0, 2, K.ASSIGN, (0,)),
    E(0, 1, K.START, (0,)), E(1, 1, K.PREEMPT, (0,)), E(1, 1, K.MIGRATE, (1,)),
    E(1, 1, K.START, (1,)), E(1, 2, K.START, (0,)), E(5, 1, K.COMPLETE, (1,)),
    E(6, 2, K.COMPLETE, (0,)),
]  # fmt: skip


def record(log: list[JobEvent]) -> RunRecord:
    return RunRecord.from_log("hand-built", JOBS, log, capacity=3)


def test_the_run_passes_the_run_level_checkers() -> None:
    check_node_capacity(record(RUN), NODES)
    check_migrations_start(record(RUN), NODES)


def test_a_place_names_one_node() -> None:
    log = [E(1, 2, K.START, (0, 1)) if e == RUN[8] else e for e in RUN]
    log = [E(6, 2, K.COMPLETE, (0, 1)) if e == RUN[10] else e for e in log]
    with pytest.raises(AssertionError, match=r"place \[0, 1\] should name one node"):
        check_node_capacity(record(log), NODES)


def test_a_job_runs_on_a_node_of_the_grid() -> None:
    log = [E(1, 2, K.START, (5,)) if e == RUN[8] else e for e in RUN]
    log = [E(6, 2, K.COMPLETE, (5,)) if e == RUN[10] else e for e in log]
    with pytest.raises(AssertionError, match="job 2 runs on node 5, not in the grid"):
        check_node_capacity(record(log), NODES)


def test_a_running_job_does_not_migrate() -> None:
    """Job 1 migrates at 1 before its preemption is logged: it is still running."""
    log = [RUN[6] if e == RUN[5] else RUN[5] if e == RUN[6] else e for e in RUN]
    with pytest.raises(AssertionError, match="job 1 migrates to node 1 at t=1 while running"):
        check_migrations_start(record(log), NODES)


def test_a_job_migrates_only_to_a_node_that_can_hold_it() -> None:
    """Job 2 needs 2 cores; node 1 has 1."""
    log = [*RUN[:8], E(1, 2, K.MIGRATE, (1,)), E(1, 2, K.START, (1,)), RUN[9]]
    with pytest.raises(AssertionError, match=r"node 1, whose capacity \(1,\) cannot hold"):
        check_migrations_start(record(log), NODES)


def test_a_migrated_job_starts_on_its_receiver_at_once() -> None:
    log = [E(2, 1, K.START, (1,)) if e == RUN[7] else e for e in RUN]
    with pytest.raises(AssertionError, match="does not start there at once"):
        check_migrations_start(record(log), NODES)


def test_a_pushed_job_waits_on_the_sender() -> None:
    """A push names its sender: job 2 waits on node 0, not on node 1."""
    log = [*RUN[:4], E(0, 1, K.START, (0,)), E(1, 2, K.MIGRATE, (0,), detail="push from 1")]
    with pytest.raises(
        AssertionError, match="job 2 is pushed from node 1 at t=1 but does not wait"
    ):
        check_push_sends_best(record(log), NODES, alpha=0, beta=1)
