"""The reader's bulk path and the trusted job constructor change nothing but the speed.

The reader checks a batch of lines at once when nothing in it is unusual, and
falls back to the line-by-line path otherwise; cleaning an open reader takes
only the fields it needs and builds jobs without checking them again. Here the
bulk path is compared with the line-by-line path (records, their types, the
report, the error), the reader's cleaning with the cleaning of its records
(under every policy), and `trusted_job` with `Job`, on generated traces full
of what makes a batch unusual, cut into small batches so that both paths meet
in one file.
"""

from __future__ import annotations

import io
import pickle
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlib.errors import InvalidValueError, WorkloadFormatError
from schedlib.model import Job, trusted_instances, trusted_job
from schedlib.workloads import cleaning, swf
from schedlib.workloads.cleaning import CleaningPolicy, clean
from schedlib.workloads.swf import open_swf

ODD = ["-2", "-5", "-1.0", "-0.5", "1e3", "1.2.3", "x", "+3", "1_0", "-0", "007", "٣", "4.", ".5"]
POLICIES = [
    CleaningPolicy(),
    CleaningPolicy(over_limit="extend"),
    CleaningPolicy(procs_from="allocated", zero_runtime="keep", unknown_requested_time="reject"),
    CleaningPolicy.named("pyss"),
]
SMALL = st.sampled_from([-1, -1, 0, 1, 2, 3, 8, 60, 3600])


@st.composite
def traces(draw: st.DrawFn) -> str:
    """An SWF text: mostly ordinary records, with every kind of oddity now and then
    (rarely enough that many batches of a few lines are ordinary)."""

    rare = draw(st.randoms(use_true_random=False))  # uniform, unlike small integers

    def now_and_then(chance: int = 12) -> bool:
        return rare.randrange(chance + 1) == 0

    lines = [draw(st.sampled_from(["; Version: 2.2", "; MaxProcs: 8", "; MaxProcs: 64"]))]
    job, submit = draw(st.integers(0, 3)), 0
    for _ in range(draw(st.integers(0, 60))):
        if now_and_then(20):
            lines.append(draw(st.sampled_from(["", "; a late comment", "1 2 3"])))
            continue
        job += draw(st.sampled_from([0, -1, -3, 2])) if now_and_then() else 1
        submit += -10 if now_and_then() else draw(st.sampled_from([0, 5, 30]))
        values = [draw(SMALL) for _ in range(18)]
        values[0] = -1 if now_and_then(30) else job
        values[1] = -1 if now_and_then(30) else submit
        values[10] = draw(st.sampled_from([0, 5, -1, 7, -4])) if now_and_then() else 1
        tokens = [str(v) for v in values]
        if draw(st.booleans()):
            tokens[5] = draw(st.sampled_from(["12.5", "0.25", "3", "7.0"]))  # a fraction
        if now_and_then(8):
            tokens[draw(st.integers(0, 17))] = draw(st.sampled_from(ODD))
        lines.append(draw(st.sampled_from([" ", "  ", "\t"])).join(tokens))
    return "\n".join(lines) + draw(st.sampled_from(["\n", ""]))


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """A few lines per batch, so that one trace mixes bulk and line-by-line batches."""
    monkeypatch.setattr(swf, "_CHUNK", 160)
    monkeypatch.setattr(swf, "_BATCH_LINES", 3)


def _line_by_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(swf, "_clean_batch", lambda *args: None)


def outcome(text: str, path: Path, *, strict: bool, stream: bool) -> Any:
    """Everything a read says: the records (with their types), the report, the error."""
    path.write_text(text, encoding="utf-8")
    records: list[str] = []
    error = None
    with open_swf(io.StringIO(text) if stream else path, strict=strict) as reader:
        try:
            records.extend(repr(tuple(record)) for record in reader)
        except WorkloadFormatError as failure:
            error = (str(failure), failure.line, failure.field, failure.value)
        return records, error, repr(reader.report)


@pytest.mark.usefixtures("small_batches")
@settings(max_examples=300, deadline=None)
@given(text=traces(), strict=st.booleans(), stream=st.booleans())
def test_bulk_path_reads_as_the_line_by_line_path(
    tmp_path_factory: pytest.TempPathFactory, text: str, strict: bool, stream: bool
) -> None:
    path = tmp_path_factory.mktemp("bulk") / "t.swf"
    bulk = outcome(text, path, strict=strict, stream=stream)
    with pytest.MonkeyPatch.context() as patch:
        _line_by_line(patch)
        assert outcome(text, path, strict=strict, stream=stream) == bulk


def cleaned(text: str, path: Path, policy: CleaningPolicy, *, through_reader: bool) -> Any:
    path.write_text(text, encoding="utf-8")
    with open_swf(path, strict=False) as reader:
        source: Any = reader if through_reader else list(reader)
        result = clean(source, processors=16, policy=policy)
        return repr(result), result, repr(reader.report)


@pytest.mark.usefixtures("small_batches")
@settings(max_examples=300, deadline=None)
@given(text=traces(), policy=st.sampled_from(POLICIES))
def test_cleaning_a_reader_gives_what_cleaning_its_records_gives(
    tmp_path_factory: pytest.TempPathFactory, text: str, policy: CleaningPolicy
) -> None:
    path = tmp_path_factory.mktemp("clean") / "t.swf"
    fast = cleaned(text, path, policy, through_reader=True)
    assert fast == cleaned(text, path, policy, through_reader=False)


def test_the_generated_traces_take_both_paths(
    small_batches: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The comparisons above are worth something only if both paths are taken."""
    taken = {True: 0, False: 0}
    real = swf._clean_batch

    def counting(*args: Any) -> Any:
        columns = real(*args)
        taken[columns is not None] += 1
        return columns

    monkeypatch.setattr(swf, "_clean_batch", counting)
    lines = [f"{job} {job} 0 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1" for job in range(1, 40)]
    lines[20] = lines[20].replace(" 1 1 1 ", " 7 1 1 ")  # a status that draws a warning
    path = tmp_path / "t.swf"
    path.write_text("\n".join(lines) + "\n")
    with open_swf(path) as reader:
        assert len(list(reader)) == 39
    assert taken[True] > 3 and taken[False] >= 1


VALUES = st.tuples(
    st.integers(0, 10**12),
    st.one_of(st.integers(0, 10**9), st.floats(0, 1e9)),
    st.integers(1, 10**6),
    st.one_of(st.integers(0, 10**9), st.floats(0, 1e9)),
    st.one_of(st.integers(0, 10**9), st.floats(0, 1e9)),
    st.one_of(st.none(), st.integers(0, 10**6)),
    st.one_of(st.none(), st.integers(0, 10**6)),
)


@given(values=VALUES)
def test_trusted_job_is_the_job_job_would_build(values: tuple[Any, ...]) -> None:
    trusted, checked = trusted_job(*values), Job(*values)
    assert trusted == checked and hash(trusted) == hash(checked)
    assert repr(trusted) == repr(checked)
    assert pickle.dumps(trusted) == pickle.dumps(checked)
    assert type(trusted) is Job


@pytest.mark.parametrize(
    "token", ["-2", "-1.5", "x", "1.2.3", "1e3", "7.5", ".", "5.", "-0", "1" * 400 + ".5"]
)
@pytest.mark.parametrize("field", range(18))
def test_an_odd_token_in_any_field_reads_the_same_through_cleaning(
    tmp_path: Path, field: int, token: str
) -> None:
    """Fields cleaning does not read are still checked, as in records (a fraction
    only where SWF allows one), in a batch that is otherwise ordinary."""
    lines = [f"{job} {job} 0 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1" for job in range(1, 9)]
    tokens = lines[4].split()
    tokens[field] = token
    lines[4] = " ".join(tokens)
    text = "\n".join(lines) + "\n"
    for policy in (CleaningPolicy(), CleaningPolicy.named("pyss")):
        fast = cleaned(text, tmp_path / "t.swf", policy, through_reader=True)
        assert fast == cleaned(text, tmp_path / "t.swf", policy, through_reader=False)


@given(rows=st.lists(VALUES, max_size=5))
def test_trusted_instances_are_the_jobs_job_would_build(rows: list[tuple[Any, ...]]) -> None:
    columns = [[row[i] for row in rows] for i in range(7)]
    trusted, checked = trusted_instances(Job, columns), [Job(*row) for row in rows]
    assert trusted == checked and list(map(hash, trusted)) == list(map(hash, checked))
    assert repr(trusted) == repr(checked)
    assert pickle.dumps(trusted) == pickle.dumps(checked)


def test_trusted_instances_refuses_columns_that_do_not_fit() -> None:
    with pytest.raises(InvalidValueError, match="7 columns of equal length"):
        trusted_instances(Job, [[1], [0], [1], [5], [5], [None]])
    with pytest.raises(InvalidValueError, match="7 columns of equal length"):
        trusted_instances(Job, [[1], [0], [1], [5], [5], [None], []])


def test_the_generated_traces_take_the_bulk_cleaning_paths(
    small_batches: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cleaning a reader's batch in bulk is compared above only if batches take it
    with records the rule chain decides, processor fallbacks (some or all of a
    batch) and unknown requested times (some or all of a batch)."""
    seen: list[tuple[Any, ...]] = []
    real = cleaning._Cleaning.rows

    def rows(self: Any, items: Any) -> None:
        seen.append(tuple(items))
        real(self, iter(seen[-1]))

    monkeypatch.setattr(cleaning._Cleaning, "rows", rows)
    line = "{} {} 0 {} 2 -1 -1 {} {} -1 1 1 1 -1 -1 -1 -1 -1"
    lines = [line.format(job, job, 10, 2, 20) for job in range(1, 61)]
    for job in (3, 5, 6):  # runtime 0, unknown requested processors, unknown request
        lines[job] = line.format(job + 1, job + 1, 0 if job == 3 else 10, -1 if job == 5 else 2,
                                 -1 if job == 6 else 20)  # fmt: skip
    for job in range(20, 40):  # every requested processor count unknown
        lines[job] = line.format(job + 1, job + 1, 10, -1, 20)
    for job in range(40, 60):  # every requested time unknown
        lines[job] = line.format(job + 1, job + 1, 10, 2, -1)
    path = tmp_path / "t.swf"
    path.write_text("\n".join(lines) + "\n")
    with open_swf(path) as reader:
        result = clean(reader, processors=16)
    by_rows = [row[0] for batch in seen for row in batch]
    # the zero runtime and the unknown request by the chain; the fallback in bulk; of the
    # all-unknown runs, at most the few that share a batch with known values
    assert 4 in by_rows and 7 in by_rows and 6 not in by_rows and len(by_rows) <= 6, by_rows
    assert (result.report.jobs, result.report.procs_fallback) == (60, 21)
    assert (result.report.zero_runtime, result.report.requested_time_from_runtime) == (1, 21)


@pytest.mark.parametrize(
    ("ids", "submits"),
    [([2, 1, 3], [5, 5, 6]), ([1, 2, 3], [5, 4, 6]), ([1, 2, 3], [5, 5, 5])],
)
def test_a_batch_out_of_order_is_cleaned_as_its_rows(ids: list[int], submits: list[int]) -> None:
    """The bulk cleaning does not trust its columns to be in (submit, id) order."""
    n = len(ids)
    columns = (ids, submits, [10] * n, [2] * n, [2] * n, [20] * n, [1] * n, [1] * n, [1] * n)
    bulk = cleaning._Cleaning(16, CleaningPolicy(), checked=True)
    bulk.batch(columns)
    by_rows = cleaning._Cleaning(16, CleaningPolicy(), checked=True)
    by_rows.rows(zip(*columns, strict=True))
    assert repr(bulk.result()) == repr(by_rows.result())
