"""Hypothesis properties of the workload layers, each shown able to fail.

- write -> read gives back the records and the header (plain and gzip);
- cleaning accounts for every record: each one is a job or an excluded job,
  ids kept, both sorted by (submit, id), and the report's counts add up;
- the kill / extend choice does what it says.

Each checker is also run on a deliberately broken variant (a writer that
rounds fractional fields, a writer that drops the header, a cleaner that drops
cancelled records, a cleaner that does not sort) and hypothesis must find a
counterexample (generation only: finding one is the point, not shrinking it).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import Phase, example, given, settings
from hypothesis import strategies as st

from schedlib.model import FinalState, Job
from schedlib.workloads.cleaning import CleanedJobs, CleaningPolicy, clean
from schedlib.workloads.swf import FIELDS, SWFHeader, SWFRecord, format_record, read_swf, write_swf

# --------------------------------------------------------------------------- strategies

MAX_PROCS = 512
UNKNOWN = st.just(-1)


def _int_field(low: int, high: int) -> st.SearchStrategy[int]:
    return st.one_of(UNKNOWN, st.integers(low, high))


FRACTIONAL = st.one_of(
    UNKNOWN,
    st.just(-1.0),
    st.integers(0, 10**9),
    st.floats(0, 1e12, allow_nan=False, allow_infinity=False),
)


@st.composite
def swf_records(draw: st.DrawFn, *, max_size: int = 15) -> list[SWFRecord]:
    """Valid SWF records with unique job numbers, processors within MAX_PROCS.

    Shrinks towards few records, small numbers and -1 (unknown) fields.
    """
    ids = draw(st.lists(st.integers(0, 10**7), unique=True, max_size=max_size))
    records = []
    for number, job_id in enumerate(ids, start=1):
        fields = [
            job_id,
            draw(_int_field(0, 10**8)),  # submit
            draw(_int_field(0, 10**6)),  # wait
            draw(_int_field(0, 10**6)),  # runtime
            draw(_int_field(0, MAX_PROCS)),  # allocated procs
            draw(FRACTIONAL),  # average CPU time
            draw(FRACTIONAL),  # used memory
            draw(_int_field(0, MAX_PROCS)),  # requested procs
            draw(_int_field(0, 10**6)),  # requested time
            draw(_int_field(0, 10**9)),  # requested memory
            draw(st.sampled_from([1, 0, 5, -1, 2, 3, 4, -4, 265])),  # status (some warn)
            *(draw(_int_field(0, 10**4)) for _ in range(7)),  # user .. think time
        ]
        records.append(SWFRecord.from_values(fields, line=number))
    return records


COMMENT_TEXT = st.text(
    st.characters(exclude_categories=["Cs"], exclude_characters="\r\n"), max_size=40
)


@st.composite
def swf_headers(draw: st.DrawFn) -> SWFHeader:
    """Headers mixing known keys and free comment text; shrinks towards none."""
    items = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["Version", "MaxNodes", "Note", "Queue", "Computer", "MaxJobs"]),
                st.one_of(st.integers(1, 10**6), COMMENT_TEXT.map(str.strip)),
            ),
            max_size=6,
        )
    )
    free = draw(st.lists(COMMENT_TEXT.map(lambda text: ";" + text), max_size=4))
    header = SWFHeader.from_items(items)
    return SWFHeader([*header.comments, *free, f"; MaxProcs: {MAX_PROCS}"])


# --------------------------------------------------------------------------- round trip

Writer = Callable[[Any, Iterable[SWFRecord], SWFHeader], int]


def check_round_trip(
    write: Writer, records: Sequence[SWFRecord], header: SWFHeader, path: Path
) -> None:
    """AssertionError unless writing then reading gives the records and header back."""
    write(path, records, header)
    trace = read_swf(path)
    assert trace.records == tuple(records), "records changed by a write/read round trip"
    for got, want in zip(trace.records, records, strict=True):
        assert [type(v) for v in got.values()] == [type(v) for v in want.values()], (
            f"value types changed for job {want.job_id}"
        )
    assert trace.header == header, f"header changed: {trace.header.comments} != {header.comments}"
    assert trace.report.skipped == ()


@pytest.mark.parametrize("suffix", [".swf", ".swf.gz"])
@given(records=swf_records(), header=swf_headers())
def test_write_then_read_gives_back_records_and_header(
    tmp_path_factory: pytest.TempPathFactory,
    suffix: str,
    records: list[SWFRecord],
    header: SWFHeader,
) -> None:
    path = tmp_path_factory.mktemp("rt") / f"trace{suffix}"
    check_round_trip(write_swf, records, header, path)


def _rounding_writer(path: Any, records: Iterable[SWFRecord], header: SWFHeader) -> int:
    """Broken: writes fractional fields with two decimals."""

    def fmt(record: SWFRecord) -> str:
        return " ".join(f"{v:.2f}" if isinstance(v, float) else str(v) for v in record.values())

    text = "".join(c + "\n" for c in header.comments) + "".join(fmt(r) + "\n" for r in records)
    Path(path).write_text(text)
    return len(list(records))


def _headerless_writer(path: Any, records: Iterable[SWFRecord], header: SWFHeader) -> int:
    """Broken: forgets the header."""
    return write_swf(path, records)


@pytest.mark.parametrize("broken", [_rounding_writer, _headerless_writer])
def test_round_trip_checker_catches_a_broken_writer(tmp_path: Path, broken: Writer) -> None:
    @settings(max_examples=300, database=None, phases=[Phase.generate])  # no shrinking
    @given(records=swf_records(), header=swf_headers())
    def run(records: list[SWFRecord], header: SWFHeader) -> None:
        check_round_trip(broken, records, header, tmp_path / "broken.swf")

    with pytest.raises(AssertionError):
        run()


@given(records=swf_records(max_size=5))
def test_format_record_is_one_line_of_18_tokens(records: list[SWFRecord]) -> None:
    for record in records:
        text = format_record(record)
        assert "\n" not in text and len(text.split()) == len(FIELDS)
        (back,) = read_swf(io.StringIO(text + "\n")).records
        assert back == record


# --------------------------------------------------------------------------- cleaning

Cleaner = Callable[..., CleanedJobs]


def check_every_record_accounted(
    records: Sequence[SWFRecord], result: CleanedJobs, processors: int | None
) -> None:
    """AssertionError unless every record is exactly one job or excluded job."""
    report = result.report
    ids_in = sorted(r.job_id for r in records)
    ids_out = sorted([j.id for j in result.jobs] + [x.id for x in result.excluded])
    assert ids_out == ids_in, f"records lost or invented: {set(ids_in) ^ set(ids_out)}"
    assert report.records == len(records)
    assert report.jobs == len(result.jobs)
    assert report.excluded == len(result.excluded)
    assert report.cancelled_in_log == sum(
        1 for x in result.excluded if x.state is FinalState.CANCELLED_IN_LOG
    )
    for name, items in (("jobs", result.jobs), ("excluded", result.excluded)):
        keys = [(i.submit, i.id) for i in items]
        assert keys == sorted(keys), f"{name} not sorted by (submit, id)"
    by_id = {r.job_id: r for r in records}
    for job in result.jobs:
        record = by_id[job.id]
        assert job.submit == record.submit >= 0
        assert job.procs in (record.requested_procs, record.allocated_procs)
        assert processors is None or job.procs <= processors, f"job {job.id} too large"
        assert job.runtime == record.runtime or (record.runtime == 0 and job.runtime == 1)
    for item in result.excluded:
        assert item.reason, f"excluded job {item.id} has no reason"


@given(
    records=swf_records(),
    processors=st.one_of(st.none(), st.integers(1, MAX_PROCS)),
    policy=st.builds(
        CleaningPolicy,
        over_limit=st.sampled_from(["kill", "extend"]),
        unknown_requested_time=st.sampled_from(["runtime", "reject"]),
        zero_runtime=st.sampled_from(["one_second", "keep"]),
        procs_from=st.sampled_from(["requested", "allocated"]),
    ),
)
def test_cleaning_accounts_for_every_record(
    records: list[SWFRecord], processors: int | None, policy: CleaningPolicy
) -> None:
    result = clean(records, processors=processors, policy=policy)
    check_every_record_accounted(records, result, processors)
    if policy.zero_runtime == "keep":
        assert all(j.runtime == r.runtime for j in result.jobs for r in records if r.job_id == j.id)


def _dropping_cleaner(records: Sequence[SWFRecord], **kwargs: Any) -> CleanedJobs:
    """Broken: silently drops the records cancelled in the log."""
    result = clean(records, **kwargs)
    kept = tuple(x for x in result.excluded if x.state is not FinalState.CANCELLED_IN_LOG)
    return attrs.evolve(result, excluded=kept)


def _unsorted_cleaner(records: Sequence[SWFRecord], **kwargs: Any) -> CleanedJobs:
    """Broken: keeps file order instead of sorting by (submit, id)."""
    result = clean(records, **kwargs)
    order = {r.job_id: i for i, r in enumerate(records)}
    return attrs.evolve(result, jobs=tuple(sorted(result.jobs, key=lambda j: order[j.id])))


def _record(job: int, submit: int, runtime: int, status: int) -> SWFRecord:
    fields = [job, submit, 0, runtime, 4, -1, -1, 4, 100, -1, status]
    return SWFRecord.from_values(fields + [-1] * 7)


# a record cancelled in the log, and two jobs out of submit order: what both break
BREAKING = [_record(1, 10, -1, 5), _record(2, 20, 50, 1), _record(3, 5, 50, 1)]


@pytest.mark.parametrize("broken", [_dropping_cleaner, _unsorted_cleaner])
def test_accounting_checker_catches_a_broken_cleaner(broken: Cleaner) -> None:
    # no shrinking; the explicit example makes the catch certain, not merely likely
    @settings(max_examples=300, database=None, phases=[Phase.explicit, Phase.generate])
    @example(records=BREAKING)
    @given(records=swf_records())
    def run(records: list[SWFRecord]) -> None:
        check_every_record_accounted(records, broken(records, processors=None), None)

    with pytest.raises(AssertionError):
        run()


def _estimate_of(job: Job) -> float:
    return job.requested_time


@given(records=swf_records())
def test_kill_keeps_estimates_and_extend_raises_them(records: list[SWFRecord]) -> None:
    killed = clean(records, policy=CleaningPolicy(over_limit="kill"))
    extended = clean(records, policy=CleaningPolicy(over_limit="extend"))
    assert [j.id for j in killed.jobs] == [j.id for j in extended.jobs]
    over = sum(1 for j in killed.jobs if j.runtime > j.requested_time)
    assert killed.report.over_limit == extended.report.over_limit == over
    for k, e in zip(killed.jobs, extended.jobs, strict=True):
        assert e.runtime <= e.requested_time
        assert _estimate_of(e) == max(k.runtime, _estimate_of(k))
