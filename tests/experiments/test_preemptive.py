"""The `schedlib reproduce preemptive` experiment at small scale."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schedlib.cli import main as cli
from schedlib.errors import InvalidValueError
from schedlib.experiments.preemptive import (
    make_jobs,
    make_nodes,
    offered_load,
    reproduce,
    waits,
)
from schedlib.model import EventKind as K
from schedlib.model import JobEvent, RunRecord
from schedlib.preemption.resources import GridJob

SMALL = ["--nodes", "12", "--jobs", "40", "--iat", "2,4", "--alpha", "0,0.5", "--workers", "1"]


def test_json_has_one_record_per_scheduler_iat_delta_alpha(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli(["reproduce", "preemptive", *SMALL, "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    keys = {(r["scheduler"], r["iat"], r["delta"], r["alpha"]) for r in rows}
    assert len(rows) == len(keys) == 4 * 2 * 1 * 2
    for row in rows:
        assert row["completed"] + row["unschedulable"] == 40
        assert row["median_wait"] >= 0 and row["tail10_wait"] >= row["median_wait"]
        assert row["median_node_wait"] <= row["median_wait"] + 1e-9
    fcfs = [r for r in rows if r["scheduler"] == "FCFS+backfill"]
    assert all(r["preemptions"] == 0 and r["migrations"] == 0 for r in fcfs)
    by_alpha = {(r["iat"], r["alpha"]): r["mean_wait"] for r in fcfs}
    assert by_alpha[2.0, 0.0] == by_alpha[2.0, 0.5]  # FCFS ignores alpha


def test_csv_and_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    figure = tmp_path / "cdf.png"
    args = ["reproduce", "preemptive", *SMALL, "--schedulers", "fcfs,can+balance"]
    assert cli([*args, "--format", "csv", "--plot", str(figure)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("scheduler,iat,delta,alpha,load")
    assert len(lines) == 1 + 2 * 2 * 2
    assert figure.stat().st_size > 0


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--iat", "0", "iat = 0"),
        ("--iat", "fast", "comma-separated list of numbers"),
        ("--schedulers", "sjf", "scheduler = 'sjf'"),
        ("--delta", "", "delta = ()"),
        ("--nodes", "0", "nodes = 0"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    option: str, value: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(["reproduce", "preemptive", *SMALL, option, value]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_the_same_jobs_at_every_inter_arrival_time() -> None:
    a, b = make_jobs(50, 1.5), make_jobs(50, 4.0)
    assert [(j.requirement, j.estimate) for j in a] == [(j.requirement, j.estimate) for j in b]
    assert all(1800 <= j.estimate <= 5400 and j.runtime == j.estimate for j in a)
    noisy = make_jobs(50, 1.5, accuracy=0.5)
    assert all(0.5 * j.estimate <= j.runtime <= j.estimate for j in noisy)
    with pytest.raises(InvalidValueError, match="accuracy"):
        make_jobs(5, 1.0, accuracy=0)
    nodes = make_nodes(1000)
    small = sum(1 for n in nodes if n.cores <= 2) / len(nodes)
    assert 0.6 < small < 0.8
    assert 0.9 < sum(n.speed for n in nodes) / len(nodes) < 1.1
    assert offered_load(make_jobs(5000, 4.0), nodes) == pytest.approx(0.9, abs=0.1)


def test_waits_count_time_after_preemption_and_since_the_last_node() -> None:
    jobs = [GridJob(1, 0, (1,), 10, 10)]
    log = [
        JobEvent(0, 1, K.SUBMIT),
        JobEvent(0, 1, K.ASSIGN, (0,)),
        JobEvent(2, 1, K.START, (0,)),
        JobEvent(6, 1, K.PREEMPT, (0,)),
        JobEvent(9, 1, K.MIGRATE, (1,)),
        JobEvent(9, 1, K.START, (1,)),
        JobEvent(12, 1, K.PREEMPT, (1,)),
        JobEvent(13, 1, K.START, (1,)),
        JobEvent(16, 1, K.COMPLETE, (1,)),
    ]
    total, node = waits(RunRecord.from_log("x", jobs, log, capacity=1))
    assert total == [16 - 10]  # 2 before the start, 3 before the move, 1 after the preemption
    assert node == [1]  # only the second preemption happened on the last node


def test_reproduce_rejects_an_empty_sweep() -> None:
    with pytest.raises(InvalidValueError, match="alpha"):
        reproduce(nodes=2, jobs=2, alphas=(), workers=1)
