"""A trace read and cleaned as the run goes: the same records as a whole read, in bounded memory."""

from __future__ import annotations

import gzip
import heapq
import operator
import tracemalloc
from pathlib import Path

import pytest

from schedlib.backfill import POLICIES, schedule, schedule_iter
from schedlib.errors import InvalidValueError, WorkloadFormatError
from schedlib.workloads import (
    CleaningPolicy,
    clean,
    clean_in_order,
    load_workload,
    open_swf,
    stream_workload,
)

TRACES = Path(__file__).resolve().parents[3] / "shared" / "traces"
ORDER = operator.attrgetter("submit", "id")


def _line(job: int, submit: int, runtime: int, procs: int, requested: int, status: int) -> str:
    fields = (job, submit, 0, runtime, procs, -1, -1, procs, requested, -1, status, 1, 1)
    return " ".join(map(str, fields)) + " -1 -1 -1 -1 -1\n"


def _write(path: Path, lines: list[str], size: int | None = 8) -> Path:
    header = f"; MaxProcs: {size}\n" if size else ""
    with gzip.open(path, "wt") as out:
        out.write(header + "".join(lines))
    return path


def _trace(path: Path, records: int) -> Path:
    """`records` jobs, one a second, some cancelled before they ran, some over their request
    (killed at it), on 8 processors that are never full for long: a short queue."""
    lines = []
    for i in range(1, records + 1):
        status = 5 if i % 17 == 0 else 1
        runtime = -1 if status == 5 else 1 + i % 3  # 8 processors, 3 busy on average
        lines.append(_line(i, i, runtime, 1 + i % 2, 2 + i % 3, status))
    return _write(path, lines)


@pytest.mark.skipif(not TRACES.is_dir(), reason="needs ../shared/traces")
@pytest.mark.parametrize(
    "name",
    ["SDSC-SP2-1998-4.2-cln.swf.gz", "KTH-SP2-1996-2.1-cln.swf.gz", "CTC-SP2-1996-3.1-cln.swf.gz"],
)
def test_a_trace_cleaned_in_order_is_the_whole_cleaning_merged(name: str) -> None:
    for policy in (CleaningPolicy(), CleaningPolicy(over_limit="extend")):
        with open_swf(TRACES / name, limit=20_000) as reader:
            whole = clean(reader, processors=128, policy=policy)
        with open_swf(TRACES / name, limit=20_000) as reader:
            report: list = []  # type: ignore[type-arg]
            lazy = list(clean_in_order(reader, processors=128, policy=policy, report=report))
        assert lazy == list(heapq.merge(whole.jobs, whole.excluded, key=ORDER))
        assert report == [whole.report]


def test_the_streamed_run_gives_the_whole_run_s_outcomes(tmp_path: Path) -> None:
    path = _trace(tmp_path / "t.swf.gz", 3000)
    workload = load_workload(path)
    for policy in POLICIES:
        record = schedule(
            workload.jobs, workload.cluster, policy=policy, excluded=workload.excluded
        )
        with stream_workload(path) as trace:
            streamed = list(schedule_iter((), trace.cluster, policy=policy, mixed=trace.records))
            described = trace.workload()
        assert sorted(streamed, key=lambda o: o.job) == sorted(record.outcomes, key=lambda o: o.job)
        assert described.report == workload.report and described.cluster == workload.cluster


def test_memory_stays_flat_while_a_long_trace_streams(tmp_path: Path) -> None:
    # 60,000 records: what the run holds after 15,000 and after 60,000 outcomes is what it
    # held before the first, where a whole read would hold every job (about 200 bytes
    # each: 12 MB at the end) and a reader read ahead the whole file's columns.
    path = _trace(tmp_path / "long.swf.gz", 60_000)
    held = {}
    tracemalloc.start()
    try:
        with stream_workload(path) as trace:
            held[0] = tracemalloc.get_traced_memory()[0]
            outcomes = schedule_iter((), trace.cluster, policy="easy", mixed=trace.records)
            for k, _ in enumerate(outcomes, 1):
                if k in (15_000, 60_000):
                    held[k] = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(held) == 3
    assert max(held[15_000], held[60_000]) - held[0] < 1_000_000, held


def test_a_record_out_of_order_is_named_when_reached(tmp_path: Path) -> None:
    path = _write(tmp_path / "bad.swf.gz", [_line(1, 10, 5, 1, 9, 1), _line(2, 3, 5, 1, 9, 1)])
    named = r"bad\.swf\.gz:3: job 2 \(submit 3\) comes after job 1 \(submit 10\).*arrival order"
    with stream_workload(path) as trace, pytest.raises(WorkloadFormatError, match=named) as info:
        list(trace.records)
    assert (info.value.line, info.value.field, info.value.value) == (3, "job_id", 2)
    unknown = _write(
        tmp_path / "unknown.swf.gz", [_line(1, 0, 5, 1, 9, 1), _line(2, -1, 5, 1, 9, 1)]
    )
    with stream_workload(unknown) as trace, pytest.raises(WorkloadFormatError) as info:
        list(trace.records)
    assert "unknown.swf.gz:3: field 2 (submit) = -1" in str(info.value)
    assert (info.value.line, info.value.field, info.value.value) == (3, "submit", -1)


@pytest.mark.parametrize("late", [2, 449, 450, 451, 1999, 3000])
def test_the_line_of_a_record_out_of_order_is_named_in_any_batch(tmp_path: Path, late: int) -> None:
    """Batches hold 32 KB of lines (about 450 here): the record may open, close or sit in one."""
    lines = [_line(i, 10 * i, 5, 1, 9, 1) for i in range(1, 3001)]
    lines[late - 1] = _line(late, 10 * late - 15, 5, 1, 9, 1)  # before the record above it
    path = _write(tmp_path / "late.swf.gz", lines)
    with stream_workload(path) as trace, pytest.raises(WorkloadFormatError) as info:
        list(trace.records)
    assert info.value.line == late + 1  # the header's line first
    assert f"job {late} (submit {10 * late - 15})" in str(info.value)


def test_a_trace_without_a_size_needs_one(tmp_path: Path) -> None:
    path = _write(tmp_path / "nosize.swf.gz", [_line(1, 0, 5, 1, 9, 1)], size=None)
    with pytest.raises(WorkloadFormatError, match="--processors N"), stream_workload(path):
        pass
    with stream_workload(path, processors=4) as trace:
        assert [r.id for r in trace.records] == [1] and trace.cluster.processors == 4


def test_the_pyss_rules_are_refused(tmp_path: Path) -> None:
    path = _trace(tmp_path / "t.swf.gz", 10)
    pyss = CleaningPolicy.named("pyss")
    with stream_workload(path, cleaning=pyss) as trace, pytest.raises(InvalidValueError):
        list(trace.records)


def test_the_description_waits_for_the_end(tmp_path: Path) -> None:
    path = _trace(tmp_path / "t.swf.gz", 10)
    with stream_workload(path) as trace, pytest.raises(RuntimeError, match="not been read"):
        trace.workload()


def test_a_model_given_mixed_records_runs_as_with_them_apart(tmp_path: Path) -> None:
    from schedlib.backfill import BackfillModel
    from schedlib.engine import simulate

    workload = load_workload(_trace(tmp_path / "t.swf.gz", 300))
    mixed = list(heapq.merge(workload.jobs, workload.excluded, key=ORDER))
    apart = BackfillModel(workload.jobs, workload.cluster, "easy", excluded=workload.excluded)
    together = BackfillModel((), workload.cluster, "easy", mixed=mixed)
    assert together.records == apart.records
    logs = [simulate(m, m.initial_state(), m.initial_events()).log for m in (apart, together)]
    assert logs[0] == logs[1]
