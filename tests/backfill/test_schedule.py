"""The `schedule` entry point: its contract, bad input, excluded records, the model."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlib.backfill import POLICIES, BackfillModel, easy, fcfs, schedule
from schedlib.engine import simulate
from schedlib.errors import InvalidValueError
from schedlib.model import Cluster, EventKind, FinalState, Job
from schedlib.results.export import job_rows
from schedlib.testing.invariants import check_backfilling_run
from schedlib.testing.strategies import parallel_instances


@attrs.frozen
class Excluded:
    """Shaped like the workload layer's ExcludedJob (duck typing)."""

    id: int
    submit: int
    procs: int
    requested_time: int | None
    state: FinalState
    reason: str


def starts(record: object) -> dict[int, int | None]:
    return {o.job: o.start for o in record.outcomes}  # type: ignore[attr-defined]


def test_policies_are_the_three_names() -> None:
    assert POLICIES == ("fcfs", "easy", "conservative")


def test_unknown_policy_lists_the_valid_ones() -> None:
    with pytest.raises(InvalidValueError, match="fcfs, easy, conservative") as error:
        schedule([], Cluster(4), policy="sjf")
    assert error.value.field == "policy"


def test_a_job_larger_than_the_cluster_is_bad_input() -> None:
    with pytest.raises(InvalidValueError) as error:
        schedule([Job(7, 0, 5, 10, 10)], Cluster(4, "small"), policy="easy")
    message = str(error.value)
    assert "job 7" in message and "5 processors" in message and "4" in message
    assert "small" in message


def test_a_zero_requested_time_is_bad_input() -> None:
    with pytest.raises(InvalidValueError, match="requested_time") as error:
        schedule([Job(3, 0, 1, 0, 0)], Cluster(4))
    assert "Job(id=3)" in str(error.value)


def test_duplicate_ids_are_bad_input() -> None:
    with pytest.raises(InvalidValueError, match="twice"):
        schedule([Job(1, 0, 1, 5, 5), Job(1, 3, 1, 5, 5)], Cluster(4))
    excluded = [Excluded(1, 0, 1, 5, FinalState.REJECTED, "x")]
    with pytest.raises(InvalidValueError, match="twice"):
        schedule([Job(1, 0, 1, 5, 5)], Cluster(4), excluded=excluded)


def test_excluded_records_must_be_rejected_or_cancelled() -> None:
    with pytest.raises(InvalidValueError, match="REJECTED"):
        schedule([], Cluster(4), excluded=[Excluded(1, 0, 1, 5, FinalState.COMPLETED, "x")])


@pytest.mark.parametrize("policy", POLICIES)
def test_excluded_records_appear_in_the_output(policy: str) -> None:
    jobs = [Job(2, 5, 1, 10, 10), Job(4, 0, 2, 10, 10)]
    excluded = [
        Excluded(3, 5, 0, None, FinalState.CANCELLED_IN_LOG, "cancelled before it ran"),
        Excluded(1, 0, 9, 10, FinalState.REJECTED, "more processors than the machine"),
    ]
    record = schedule(jobs, Cluster(4), policy=policy, excluded=excluded, log_reservations=True)
    check_backfilling_run(record, policy)
    assert [r.id for r in record.workload] == [1, 4, 2, 3]  # arrival order
    outcome = record.outcome_map()
    assert outcome[1].state is FinalState.REJECTED
    assert outcome[1].reason == "more processors than the machine"
    assert outcome[3].state is FinalState.CANCELLED_IN_LOG
    assert (outcome[3].start, outcome[3].end) == (None, 5)
    kinds = [(e.job, e.kind) for e in record.events if e.job in (1, 3)]
    assert kinds == [
        (1, EventKind.SUBMIT),
        (1, EventKind.REJECT),
        (3, EventKind.SUBMIT),
        (3, EventKind.LOG_CANCELLED),
    ]
    assert {row["job_id"] for row in job_rows(record)} == {1, 2, 3, 4}


@pytest.mark.parametrize("policy", POLICIES)
def test_a_job_over_its_limit_is_killed_there(policy: str) -> None:
    record = schedule([Job(1, 3, 2, 10, 25), Job(2, 3, 2, 10, 4)], Cluster(4), policy=policy)
    killed, completed = record.outcomes
    assert (killed.state, killed.start, killed.end) == (FinalState.KILLED_AT_LIMIT, 3, 13)
    assert (completed.state, completed.end) == (FinalState.COMPLETED, 7)
    kill = next(e for e in record.events if e.kind is EventKind.KILL)
    assert kill.job == 1 and "requested time" in kill.detail and "25" in kill.detail


def test_placement_takes_the_lowest_numbered_free_processors() -> None:
    jobs = [Job(1, 0, 2, 10, 10), Job(2, 0, 3, 5, 5), Job(3, 6, 2, 10, 10)]
    record = schedule(jobs, Cluster(6), policy="easy")
    places = {o.job: o.place for o in record.outcomes}
    assert places == {1: (0, 1), 2: (2, 3, 4), 3: (2, 3)}
    rows = {row["job_id"]: row["allocated_resources"] for row in job_rows(record)}
    assert rows == {1: "0-1", 2: "2-4", 3: "2-3"}


@pytest.mark.parametrize("policy", POLICIES)
def test_queue_order_is_submit_then_id_whatever_the_input_order(policy: str) -> None:
    jobs = [Job(9, 0, 2, 10, 10), Job(5, 0, 2, 10, 10), Job(7, 0, 2, 10, 10)]
    record = schedule(jobs, Cluster(2), policy=policy)
    assert starts(record) == {5: 0, 7: 10, 9: 20}


def test_the_worked_example_of_the_docs() -> None:
    """Backfilling lets the short job 3 through; FCFS makes it wait."""
    jobs = [Job(1, 0, 2, 100, 40), Job(2, 5, 4, 50, 50), Job(3, 6, 1, 30, 30)]
    expected = {"fcfs": [0, 40, 90], "easy": [0, 40, 6], "conservative": [0, 40, 6]}
    for policy in POLICIES:
        assert [o.start for o in schedule(jobs, Cluster(4), policy=policy).outcomes] == (
            expected[policy]
        )


def test_conservative_keeps_a_promise_that_rebuilding_would_break() -> None:
    """Sabin et al. (2003) §2: compression in queue order never moves a reservation later."""
    jobs = [Job(1, 0, 1, 1, 1), Job(2, 0, 1, 2, 1), Job(3, 0, 2, 1, 1), Job(4, 0, 1, 1, 1)]
    record = schedule(jobs, Cluster(2), policy="conservative", log_reservations=True)
    promised = [(e.time, e.job, e.at) for e in record.events if e.kind is EventKind.RESERVE]
    assert promised == [(0, 1, 0), (0, 2, 0), (0, 3, 2), (0, 4, 1)]
    assert starts(record) == {1: 0, 2: 0, 3: 2, 4: 1}


def test_a_timer_starts_a_job_whose_reservation_falls_when_nothing_happens() -> None:
    """Compression is one pass: job 3 is placed (at 10) before job 4 moves away and
    frees an earlier slot; at t=10 no job ends and none arrives, yet job 3 starts."""
    jobs = [Job(1, 0, 1, 10, 2), Job(2, 0, 1, 4, 4), Job(3, 0, 2, 2, 2), Job(4, 0, 1, 6, 6)]
    record = schedule(jobs, Cluster(2), policy="conservative", log_reservations=True)
    assert starts(record) == {1: 0, 2: 0, 3: 10, 4: 2}
    assert not [e for e in record.events if e.time == 10 and e.job != 3]
    check_backfilling_run(record, "conservative")


@given(instance=parallel_instances(max_processors=5, max_jobs=10, runtimes="any"))
def test_reservation_logging_changes_nothing_else(instance: tuple[Cluster, list[Job]]) -> None:
    cluster, jobs = instance
    for policy in POLICIES:
        logged = schedule(jobs, cluster, policy=policy, log_reservations=True)
        quiet = schedule(jobs, cluster, policy=policy)
        assert [e for e in logged.events if e.kind is not EventKind.RESERVE] == list(quiet.events)
        assert all(e.kind is not EventKind.RESERVE for e in quiet.events)


@pytest.mark.parametrize("policy", ["fcfs", "easy"])
@pytest.mark.parametrize("log_reservations", [False, True])
@given(instance=parallel_instances(max_processors=5, max_jobs=25, runtimes="early"))
def test_the_arrival_shortcuts_decide_like_a_full_pass_at_every_instant(
    policy: str, log_reservations: bool, instance: tuple[Cluster, list[Job]]
) -> None:
    """Arrivals-only passes look at the head and the new jobs; arrivals before the next
    end that cannot start are submitted without an engine event each. A custom `decide`
    turns both off: one event and one full pass per instant. The logs are the same."""
    cluster, jobs = instance
    decide = easy if policy == "easy" else fcfs
    full = schedule(jobs, cluster, policy=policy, decide=decide, log_reservations=log_reservations)
    fast = schedule(jobs, cluster, policy=policy, log_reservations=log_reservations)
    assert full.events == fast.events


def test_an_empty_workload() -> None:
    record = schedule([], Cluster(3), policy="conservative")
    assert record.outcomes == () and record.events == ()
    assert record.parameter("processors") == 3 and record.capacity == 3


def test_the_record_names_its_inputs() -> None:
    record = schedule([Job(1, 0, 1, 5, 5)], Cluster(3, "box"), policy="fcfs")
    assert record.algorithm == "fcfs"
    assert dict(record.parameters) == {
        "cluster": "box",
        "decide": None,
        "policy": "fcfs",
        "processors": 3,
    }


def test_progress_is_reported_on_long_runs() -> None:
    jobs = [Job(i, i, 1 + i % 4, 10, 5 + i % 7) for i in range(8000)]
    calls: list[tuple[float, int]] = []
    schedule(jobs, Cluster(8), policy="easy", progress=lambda now, n: calls.append((now, n)))
    assert calls and all(n % 4096 == 0 for _, n in calls)


def test_the_model_plugs_into_the_engine_step_by_step() -> None:
    model = BackfillModel([Job(1, 0, 2, 10, 10), Job(2, 1, 2, 10, 10)], Cluster(2), "easy")
    state = model.initial_state()
    assert not model.is_done(state)
    assert sorted(model.unfinished(state)) == [1, 2]
    trace = simulate(model, state, model.initial_events())
    assert model.is_done(trace.state) and trace.end == 20
    assert model.unfinished(trace.state) == []
    # A pass on the final state changes nothing.
    assert model.on_pass(trace.state, trace.end).log == ()


@given(st.sampled_from(POLICIES))
def test_wide_jobs_only_wait(policy: str) -> None:
    record = schedule([Job(1, 0, 4, 5, 5), Job(2, 0, 4, 5, 5)], Cluster(4), policy=policy)
    assert starts(record) == {1: 0, 2: 5}


def test_an_early_end_gives_back_exactly_up_to_the_planned_end_with_float_times() -> None:
    """Job 1 holds the machine over [5.4, 14.4) and ends at 6.2; job 2 must start then.

    `6.2 + (14.4 - 6.2)` is 14.399999999999999: giving the processors back for
    `planned_end - now` seconds would leave a sliver reserved just before 14.4, and
    job 2 (9 s, reserved at 14.4) could not move across it.
    """
    assert 6.2 + (14.4 - 6.2) < 14.4
    jobs = [Job(1, 5.4, 4, 9.0, 0.8), Job(2, 5.4, 4, 9.0, 9.0)]
    record = schedule(jobs, Cluster(4), policy="conservative")
    assert [(o.job, o.start) for o in record.outcomes] == [(1, 5.4), (2, 6.2)]
