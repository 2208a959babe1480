"""The fast CSV row writer gives the bytes `csv.writer` gives, whatever the outcome."""

from __future__ import annotations

import csv
import io
import json
import math

import attrs
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from schedlib.model import EventKind as K
from schedlib.model import FinalState, JobEvent, JobOutcome, RunRecord
from schedlib.place import ProcessorSet
from schedlib.results.export import (
    BATSIM_COLUMNS,
    EXTRA_COLUMNS,
    _event_objects,
    _values,
    job_rows,
    run_metadata,
    write_csv,
    write_json,
    write_outcomes_csv,
)
from schedlib.results.metrics import summarize
from schedlib.results.tables import jsonable

SPECIAL = ',"\r\n'
HOSTILE = st.one_of(
    st.text(alphabet=st.sampled_from(list(SPECIAL + " \t;'x-é\x00")), max_size=8),
    st.tuples(st.text(max_size=3), st.sampled_from(SPECIAL), st.text(max_size=3)).map("".join),
)
"""Short texts made mostly of the characters `csv` cares about (one of them alone, often)."""

NUMBERS = st.one_of(
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, 0.0, -0.0, 1e-7, 1e16, 1e22, 5e-324, math.nan, math.inf, 1.0, 2.5]),
)
TIMES = st.one_of(NUMBERS, st.integers(0, 100))
"""Times: mostly hostile numbers, sometimes small integers (the common case of a run)."""

PLACES = st.one_of(
    st.lists(st.integers(0, 40), unique=True, max_size=12).map(ProcessorSet),
    st.integers(0, 10**6).map(lambda n: ProcessorSet(range(n, n + 3))),
)


@st.composite
def outcomes(draw: st.DrawFn) -> JobOutcome:
    start = draw(st.one_of(st.none(), TIMES))
    submit = draw(st.one_of(TIMES, st.just(start if start is not None else 0)))
    return JobOutcome(
        job=draw(st.integers(-5, 2**64)),
        submit=submit,
        procs=draw(st.integers(0, 10**6)),
        requested_time=draw(st.one_of(st.none(), TIMES)),
        state=draw(st.one_of(st.none(), st.sampled_from(FinalState))),
        reason=draw(st.one_of(HOSTILE, st.text(max_size=20), st.just(""))),
        start=start,
        end=draw(st.one_of(st.none(), TIMES)),
        executed=draw(TIMES),
        place=draw(PLACES),
        preemptions=draw(st.integers(0, 3)),
        migrations=draw(st.integers(0, 3)),
        failures=draw(st.integers(0, 3)),
    )


def _by_csv_writer(rows: list[JobOutcome], name: str, metadata: str = "") -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(BATSIM_COLUMNS + EXTRA_COLUMNS)
    writer.writerows(_values(o, name, metadata) for o in rows)
    return out.getvalue()


NAMES = st.one_of(st.just("SDSC-SP2"), HOSTILE.filter(bool))


@given(st.lists(outcomes(), min_size=1, max_size=6), NAMES)
@example(
    [
        JobOutcome(1, 0, 2, None, FinalState.REJECTED, 'a, "b"\nc', None, None, 0, (), 0, 0, 0),
        JobOutcome(2, 0, 2, 1e16, FinalState.COMPLETED, "x\ry", 0.0, 1e-7, -0.0, (0, 2), 1, 0, 0),
        JobOutcome(3, 5, 1, 7, None, "", 5, 5, 0, (3,), 0, 0, 0),
        JobOutcome(4, 5.0, 1, 7, FinalState.COMPLETED, "", 5, 9, 4, (3,), 0, 0, 0),
        JobOutcome(5, 0, 1, 7, FinalState.KILLED_AT_LIMIT, "", math.nan, math.inf, 0, (), 0, 0, 0),
    ],
    'na,"me',
)
def test_rows_are_csv_writer_bytes(rows: list[JobOutcome], name: str) -> None:
    # the hostile name is also the run's algorithm, written in every row's metadata
    expected = _by_csv_writer(rows, name, run_metadata(4, name))
    whole = io.StringIO()
    write_csv(RunRecord(name, (), 4, (), rows), whole, workload_name=name)
    assert whole.getvalue() == expected
    streamed = io.StringIO()
    passed = list(
        write_outcomes_csv(iter(rows), streamed, workload_name=name, metadata=run_metadata(4, name))
    )
    assert passed == rows
    assert streamed.getvalue() == expected


@pytest.mark.parametrize("special", list(SPECIAL))
@pytest.mark.parametrize("where", ["reason", "name"])
def test_each_special_character_alone_is_written_as_csv_does(special: str, where: str) -> None:
    text = f"a{special}b"
    reason, name = (text, "w") if where == "reason" else ("", text)
    rows = [JobOutcome(1, 0, 9, None, FinalState.REJECTED, reason, None, None, 0, (), 0, 0, 0)]
    out = io.StringIO()
    write_csv(RunRecord("easy", (), 4, (), rows), out, workload_name=name)
    assert out.getvalue() == _by_csv_writer(rows, name, "capacity=4 algorithm=easy")


def test_rows_read_back_with_hostile_reasons() -> None:
    reason = 'needs 9 processors, the machine has "4"\nsee the log'
    rows = [JobOutcome(1, 0, 9, None, FinalState.REJECTED, reason, None, None, 0, (), 0, 0, 0)]
    rows += [JobOutcome(9, 0, 1, 5, FinalState.COMPLETED, "", 0, 5, 5, (0,), 0, 0, 0)]
    out = io.StringIO()
    write_csv(RunRecord("easy", (), 4, (), rows), out, workload_name="a,b")
    read = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert [r["reason"] for r in read] == [reason, ""]
    assert {r["workload_name"] for r in read} == {"a,b"}
    assert read[1]["stretch"] == "1.0" and read[1]["allocated_resources"] == "0"


def test_many_rows_are_written_by_chunks_in_order() -> None:
    rows = [
        JobOutcome(i, i, 1, 9, FinalState.COMPLETED, "", i + i % 3, 2 * i + 9, i, (i % 7,), 0, 0, 0)
        for i in range(10_000)
    ]
    out = io.StringIO()
    write_csv(RunRecord("easy", (), 8, (), rows), out, workload_name="w")
    assert out.getvalue() == _by_csv_writer(rows, "w", run_metadata(8, "easy"))


def _by_json_module(record: RunRecord, name: str, events: bool) -> str:
    payload = {
        "algorithm": record.algorithm,
        "capacity": record.capacity,
        "parameters": dict(record.parameters),
        "seed": record.seed,
        "summary": summarize(record).as_dict(),
        "jobs": job_rows(record, workload_name=name),
    }
    if events:
        payload["events"] = _event_objects(record)  # the log as before
    return json.dumps(jsonable(payload), indent=1) + "\n"


@given(st.lists(outcomes(), max_size=6), NAMES, st.booleans())
@example([], "w", True)
def test_json_is_json_module_text(rows: list[JobOutcome], name: str, events: bool) -> None:
    log = [JobEvent(0, 1, K.SUBMIT), JobEvent(0, 1, K.REJECT, detail='no, "never"\n')]
    record = RunRecord("easy", (), 4, log if events else (), rows, parameters={"x": math.nan})
    out = io.StringIO()
    write_json(record, out, events=events, workload_name=name)
    assert out.getvalue() == _by_json_module(record, name, events)


def test_json_of_many_jobs_spans_chunks() -> None:
    rows = [
        JobOutcome(i, i, 1, 9, FinalState.COMPLETED, "", i, 2 * i + 9, i + 9, (i % 7,), 0, 0, 0)
        for i in range(9_000)
    ]
    rows[5000] = attrs.evolve(rows[5000], submit=math.nan)
    record = RunRecord("easy", (), 8, (), rows)
    out = io.StringIO()
    write_json(record, out, workload_name="w")
    assert out.getvalue() == _by_json_module(record, "w", False)
