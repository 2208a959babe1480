"""`schedule_iter`: the same outcomes as `schedule`, read and handed out as a stream."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlib.backfill import CONVENTIONS, POLICIES, schedule, schedule_iter
from schedlib.backfill.simulation import BackfillModel
from schedlib.engine import stream
from schedlib.engine.loop import STREAM_CHUNK
from schedlib.errors import InvalidValueError
from schedlib.model import Cluster, FinalState, Job, OutcomeLedger
from schedlib.testing.strategies import parallel_instances
from schedlib.workloads import ExcludedJob

TRACES = Path(__file__).resolve().parents[3] / "shared" / "traces"


def arrival_order(records: list) -> list:  # type: ignore[type-arg]
    return sorted(records, key=lambda r: (r.submit, r.id))


@pytest.mark.parametrize("conventions", CONVENTIONS)
@pytest.mark.parametrize("policy", POLICIES)
@given(
    instance=parallel_instances(max_processors=6, max_jobs=14, runtimes="any"),
    cancelled=st.sets(st.integers(0, 13), max_size=4),
)
def test_streamed_outcomes_are_the_record_s(
    policy: str, conventions: str, instance: tuple[Cluster, list[Job]], cancelled: set[int]
) -> None:
    cluster, jobs = instance
    excluded = [
        ExcludedJob(1000 + k, jobs[k].submit, 1, None, FinalState.CANCELLED_IN_LOG, "cancelled")
        for k in sorted(cancelled)
        if k < len(jobs)
    ]
    record = schedule(jobs, cluster, policy=policy, excluded=excluded, conventions=conventions)
    streamed = list(
        schedule_iter(
            iter(arrival_order(jobs)),
            cluster,
            policy=policy,
            excluded=iter(arrival_order(excluded)),
            conventions=conventions,
        )
    )
    assert sorted(streamed, key=lambda o: o.job) == sorted(record.outcomes, key=lambda o: o.job)
    # handed out as jobs end: terminal times never go back
    ends = [o.end for o in streamed]
    assert ends == sorted(ends)


@pytest.mark.skipif(not TRACES.is_dir(), reason="needs ../shared/traces")
@pytest.mark.parametrize("policy", POLICIES)
def test_a_trace_slice_streams_to_the_same_outcomes(policy: str) -> None:
    from schedlib.workloads import load_workload

    workload = load_workload(TRACES / "KTH-SP2-1996-2.1-cln.swf.gz", limit=3000)
    record = schedule(workload.jobs, workload.cluster, policy=policy, excluded=workload.excluded)
    streamed = schedule_iter(
        arrival_order(list(workload.jobs)),
        workload.cluster,
        policy=policy,
        excluded=arrival_order(list(workload.excluded)),
    )
    assert sorted(streamed, key=lambda o: o.job) == sorted(record.outcomes, key=lambda o: o.job)


def endless(period: int, procs: int) -> Iterator[Job]:
    """A job every `period` seconds, forever."""
    for i in itertools.count():
        yield Job(i, period * i, 1 + i % procs, 50, 10 + i % 40)


@pytest.mark.parametrize("policy", POLICIES)
def test_memory_stays_bounded_by_the_jobs_in_the_system(policy: str) -> None:
    # An endless workload: only a stream can run it, and what the model and the ledger
    # hold stays bounded while 20,000 jobs go through.
    model = BackfillModel(endless(30, 4), Cluster(4), policy, stream=True)
    assert model._window is not None
    run = stream(model, model.initial_state(), model.initial_events(), max_events=1 << 62)
    ledger = OutcomeLedger()
    ended = 0
    most = 0
    for entry in run:
        if entry.kind.value == "submit":
            ledger.open(model._window.pending.pop(entry.job))
        elif ledger.feed(entry):
            ledger.close(entry.job)
            ended += 1
            most = max(most, len(model._window) - model._window._base, len(model._runtime))
            if ended == 20_000:
                break
    # records read ahead of the consumer: at most one chunk of log entries behind
    assert most < 50 and ledger.open_jobs < 50 and len(model._window.pending) <= STREAM_CHUNK


def test_a_record_out_of_arrival_order_is_named() -> None:
    jobs = [Job(1, 0, 1, 10, 10), Job(2, 50, 1, 10, 10), Job(3, 20, 1, 10, 10)]
    with pytest.raises(InvalidValueError, match=r"record 3: \(submit, id\).*arrival order"):
        list(schedule_iter(jobs, Cluster(2)))


def test_an_id_twice_in_the_system_is_named() -> None:
    jobs = [Job(1, 0, 1, 100, 100), Job(1, 5, 1, 10, 10)]
    with pytest.raises(InvalidValueError, match=r"Job\.id.*twice"):
        list(schedule_iter(jobs, Cluster(2)))


def test_a_job_wider_than_the_cluster_is_named_when_reached() -> None:
    jobs = [Job(1, 0, 1, 10, 10), Job(2, 5, 9, 10, 10)]
    outcomes = schedule_iter(jobs, Cluster(4))
    with pytest.raises(InvalidValueError, match=r"Job\(id=2\)\.procs"):
        list(outcomes)


def test_an_empty_stream() -> None:
    assert list(schedule_iter([], Cluster(4))) == []
    assert list(schedule_iter(iter(()), Cluster(4), policy="conservative")) == []
