"""Metrics, per-job export (Batsim layout) and table rendering."""

from __future__ import annotations

import csv
import io
import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlib.errors import InvalidValueError
from schedlib.model import EventKind as K
from schedlib.model import Job, JobEvent, RunRecord
from schedlib.results.export import (
    BATSIM_COLUMNS,
    EXTRA_COLUMNS,
    interval_set,
    write_csv,
    write_json,
    write_record,
)
from schedlib.results.metrics import bounded_slowdown, percentile, summarize
from schedlib.results.tables import render


def _record() -> RunRecord:
    jobs = [Job(1, 0, 2, 100, 40), Job(2, 10, 1, 20, 30), Job(3, 10, 1, 5, 1)]
    log = [
        JobEvent(0, 1, K.SUBMIT),
        JobEvent(0, 1, K.START, (0, 1)),
        JobEvent(10, 2, K.SUBMIT),
        JobEvent(10, 3, K.SUBMIT),
        JobEvent(10, 3, K.REJECT, detail="needs 9 processors, the machine has 4"),
        JobEvent(10, 2, K.START, (2,)),
        JobEvent(30, 2, K.KILL, (2,), detail="killed at its requested time"),
        JobEvent(40, 1, K.COMPLETE, (0, 1)),
    ]
    return RunRecord.from_log("easy", jobs, log, capacity=4, parameters={"policy": "easy"})


def test_summary_counts_states_and_averages_jobs_that_ran() -> None:
    s = summarize(_record())
    assert (s.jobs, s.completed, s.killed, s.rejected) == (3, 1, 1, 1)
    assert s.mean_wait == 0 and s.mean_turnaround == (40 + 20) / 2
    assert s.makespan == 40
    assert s.utilisation == pytest.approx((2 * 40 + 1 * 20) / (4 * 40))
    assert s.mean_bounded_slowdown == 1.0


def test_bounded_slowdown_threshold_must_be_positive() -> None:
    with pytest.raises(InvalidValueError, match="threshold = 0"):
        bounded_slowdown(_record().outcomes[0], 0)


@given(st.lists(st.floats(-1e6, 1e6), min_size=1), st.floats(0, 100))
def test_percentile_lies_between_min_and_max_and_is_monotone(values: list[float], q: float) -> None:
    p = percentile(values, q)
    assert min(values) <= p <= max(values)
    assert percentile(values, 0) == min(values) and percentile(values, 100) == max(values)
    assert percentile(values, q / 2) <= p + 1e-9


def test_csv_has_batsim_columns_first_and_one_row_per_job() -> None:
    buffer = io.StringIO()
    write_csv(_record(), buffer)
    rows = list(csv.DictReader(io.StringIO(buffer.getvalue())))
    header = buffer.getvalue().splitlines()[0].split(",")
    assert tuple(header) == BATSIM_COLUMNS + EXTRA_COLUMNS
    assert [r["final_state"] for r in rows] == [
        "COMPLETED_SUCCESSFULLY",
        "COMPLETED_WALLTIME_REACHED",
        "REJECTED",
    ]
    assert rows[0]["allocated_resources"] == "0-1" and rows[0]["stretch"] == "1.0"
    assert rows[2]["starting_time"] == "" and rows[2]["state"] == "rejected"
    assert rows[2]["reason"] == "needs 9 processors, the machine has 4"


def test_json_holds_summary_jobs_and_optionally_events() -> None:
    buffer = io.StringIO()
    write_json(_record(), buffer, events=True)
    payload = json.loads(buffer.getvalue())
    assert payload["summary"]["completed"] == 1 and len(payload["jobs"]) == 3
    assert payload["events"][0] == {
        "time": 0,
        "job": 1,
        "kind": "submit",
        "place": [],
        "task": None,
        "detail": "",
        "at": None,
    }


def test_write_record_chooses_format_by_suffix(tmp_path) -> None:  # type: ignore[no-untyped-def]
    write_record(_record(), tmp_path / "jobs.csv")
    write_record(_record(), tmp_path / "jobs.json")
    assert (tmp_path / "jobs.csv").read_text().startswith("job_id,")
    assert json.loads((tmp_path / "jobs.json").read_text())["algorithm"] == "easy"
    with pytest.raises(InvalidValueError, match=r"must end in \.csv or \.json"):
        write_record(_record(), tmp_path / "jobs.txt")


@given(st.sets(st.integers(0, 200)))
def test_interval_set_round_trips(units: set[int]) -> None:
    text = interval_set(units)
    parsed: set[int] = set()
    for part in text.split():
        low, _, high = part.partition("-")
        parsed.update(range(int(low), int(high or low) + 1))
    assert parsed == units


def test_render_formats_agree() -> None:
    rows = [{"policy": "fcfs", "wait": 1.5, "n": 3}, {"policy": "easy", "wait": math.nan, "n": 4}]
    table = render(rows, "table").splitlines()
    assert table[0].split() == ["policy", "wait", "n"] and table[3].split() == ["easy", "-", "4"]
    assert json.loads(render(rows, "json"))[1]["wait"] is None
    assert render(rows, "csv").splitlines()[2] == "easy,,4"
    with pytest.raises(InvalidValueError, match="format = 'xml'"):
        render(rows, "xml")


def test_a_streamed_summary_refuses_a_machine_without_processors() -> None:
    from schedlib.results.metrics import summarize_outcomes

    with pytest.raises(InvalidValueError, match="capacity"):
        summarize_outcomes([], algorithm="easy", capacity=0)
