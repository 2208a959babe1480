"""The `schedlib reproduce preemptive` experiment at small scale, and its claims."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from schedlib.cli import main as cli
from schedlib.errors import InvalidValueError
from schedlib.experiments.claims import claim_rows
from schedlib.experiments.preemptive import (
    FCFS,
    LOCAL,
    claims,
    design,
    make_jobs,
    make_nodes,
    offered_load,
    reproduce,
    untestable,
    waits,
)
from schedlib.model import EventKind as K
from schedlib.model import JobEvent, RunRecord
from schedlib.preemption.resources import GridJob

SMALL = ["--nodes", "12", "--jobs", "40", "--iat", "2,4", "--alpha", "0,0.5", "--workers", "1"]
ONE = [*SMALL, "--side", "", "--replicates", "2"]


def test_json_has_one_record_per_configuration_and_replicate(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli(["reproduce", "preemptive", *ONE, "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    keys = {(r["scheduler"], r["iat"], r["delta"], r["alpha"], r["replicate"]) for r in rows}
    assert len(rows) == len(keys) == 4 * 2 * 1 * 2 * 2
    for row in rows:
        assert row["completed"] + row["unschedulable"] == 40
        assert row["median_wait"] >= 0 and row["tail10_wait"] >= row["median_wait"]
        assert row["median_node_wait"] <= row["median_wait"] + 1e-9
        assert row["paper_iat"] == pytest.approx(row["iat"] * 12 / 1000)
    fcfs = [r for r in rows if r["scheduler"] == "FCFS+backfill"]
    assert all(r["preemptions"] == 0 and r["migrations"] == 0 for r in fcfs)
    by_alpha = {(r["iat"], r["alpha"], r["replicate"]): r["mean_wait"] for r in fcfs}
    assert by_alpha[2.0, 0.0, 1] == by_alpha[2.0, 0.5, 1]  # FCFS ignores alpha
    assert by_alpha[2.0, 0.0, 0] != by_alpha[2.0, 0.0, 1]  # replicates differ


def test_the_side_studies_add_their_configurations() -> None:
    runs = design(
        nodes=12, jobs=40, iats=(2.0, 4.0), deltas=(5.0,), alphas=(0.0, 0.5),
        schedulers=("fcfs", "local", "2nn", "can"), replicates=2,
    )  # fmt: skip
    studies = {(r.study, r.scheduler, r.iat, r.delta, r.alpha, r.victims) for r in runs}
    assert ("delta", "can", 4.0, 2.5, 0.0, "lower") in studies
    assert ("alpha", "local", 2.0, 5.0, 1.0, "lower") in studies
    assert ("alpha", "local", 4.0, 5.0, 2.0, "lower") in studies
    assert not any(s[0] == "alpha" and s[4] == 2.0 and s[2] == 2.0 for s in studies)
    assert ("victims", "local", 2.0, 5.0, 0.0, "equal") in studies
    assert len(runs) == len(set(runs))
    with pytest.raises(InvalidValueError, match="side = 'beta'"):
        design(nodes=2, jobs=2, iats=(1,), deltas=(5,), alphas=(0,), schedulers=("fcfs",),
               side=("beta",))  # fmt: skip


def test_table_shows_means_over_replicates_then_the_claims(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli(["reproduce", "preemptive", *ONE, "--schedulers", "fcfs,local"]) == 0
    out = capsys.readouterr().out
    assert "replicates" in out.splitlines()[0]
    assert "local-beats-fcfs-median" not in out  # keys are not shown, the claims are
    assert "significantly lower (median) wait times" in out
    assert "rule: ± is the half-width" in out


def test_csv_and_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    figure = tmp_path / "cdf.png"
    args = ["reproduce", "preemptive", *ONE, "--schedulers", "fcfs,can+balance"]
    assert cli([*args, "--format", "csv", "--plot", str(figure)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("study,scheduler,replicate,iat,paper_iat,delta,alpha,victims")
    assert len(lines) == 1 + 2 * 2 * 2 * 2
    assert figure.stat().st_size > 0


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--iat", "0", "iat = 0"),
        ("--iat", "fast", "comma-separated list of numbers"),
        ("--schedulers", "sjf", "scheduler = 'sjf'"),
        ("--delta", "", "delta = ()"),
        ("--nodes", "0", "nodes = 0"),
        ("--replicates", "0", "replicates = 0"),
        ("--side", "gamma", "side = 'gamma'"),
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


def test_two_seeds_share_no_replicate() -> None:
    """`--seed 0` and `--seed 1` (5 replicates each) draw ten different grids and workloads."""
    workloads = set()
    grids = set()
    for seed in (0, 1):
        for replicate in range(5):
            jobs = make_jobs(30, 2.0, seed=seed, replicate=replicate)
            workloads.add(tuple((j.submit, j.requirement, j.estimate) for j in jobs))
            nodes = make_nodes(30, seed=seed, replicate=replicate)
            grids.add(tuple((n.capacity, n.speed) for n in nodes))
    assert len(workloads) == len(grids) == 10


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


# -- claims ----------------------------------------------------------------------------------


def test_every_claim_is_not_run_without_rows() -> None:
    found = claims([])
    assert all(c.estimate is None for c in found)
    assert len({c.key for c in found}) == len(found) >= 17
    assert {r["verdict"] for r in claim_rows(found)} == {"not run"}
    assert {c.origin for c in found} == {"paper", "ours"}


def row(scheduler: str, iat: float, replicate: int, **values: Any) -> dict[str, Any]:
    base = {
        "scheduler": scheduler, "study": "main", "replicate": replicate, "seed": 0,
        "nodes": 1000, "jobs": 5000, "iat": iat, "paper_iat": iat, "delta": 5.0, "alpha": 0.0,
        "victims": "lower", "load": 1.0, "median_node_wait": 0.0, "mean_node_wait": 0.0,
        "median_wait": 0.0, "mean_wait": 0.0, "tail10_node_wait": 0.0, "top_node_wait": 0.0,
        "preemptions": 0,
    }  # fmt: skip
    return {**base, **values}


def verdict(rows: list[dict[str, Any]], key: str) -> str:
    return next(r["verdict"] for r in claim_rows(claims(rows)) if r["key"] == key)


def test_two_zero_medians_are_untestable_not_a_pass() -> None:
    """Where every median is 0 (the old rule counted 0 vs 0 as 'holds'), nothing is tested."""
    rows = [row(s, 3.0, r) for s in (FCFS, LOCAL) for r in range(5)]
    assert verdict(rows, "local-beats-fcfs-median") == "not run"
    assert untestable(rows)["local-beats-fcfs-median"] == (3.0,)
    rows += [row(s, 1.5, r, median_node_wait=w + r) for s, w in ((FCFS, 3000), (LOCAL, 1000))
             for r in range(5)]  # fmt: skip
    assert verdict(rows, "local-beats-fcfs-median") == "holds"  # on IAT 1.5 only
    assert "untestable at IAT 3" in next(c.ours for c in claims(rows) if c.key.startswith("local"))


def test_the_median_claim_reads_medians_not_means() -> None:
    """Local has the lower mean but the higher median: Fig. 3's claim does not hold."""
    rows = [
        row(s, 1.5, r, median_node_wait=m + r, mean_node_wait=a + r)
        for s, m, a in ((FCFS, 1000, 5000), (LOCAL, 2000, 3000))
        for r in range(5)
    ]
    assert verdict(rows, "local-beats-fcfs-median") == "does not hold"
    assert verdict(rows, "preemptive-lower-mean-than-fcfs") == "holds"  # §7's mean claim


def test_one_iat_against_the_claim_decides_a_claim_at_every_iat() -> None:
    medians = {1.5: ((FCFS, 3000), (LOCAL, 1000)), 2.0: ((FCFS, 1000), (LOCAL, 2000))}
    rows = [
        row(s, iat, r, median_node_wait=w + r)
        for iat, pair in medians.items()
        for s, w in pair
        for r in range(5)
    ]
    assert verdict(rows, "local-beats-fcfs-median") == "does not hold"


def test_the_victims_side_study_is_left_out_of_the_claims() -> None:
    rows = [row(s, 1.5, r, median_node_wait=w + r) for s, w in ((FCFS, 3000), (LOCAL, 1000))
            for r in range(5)]  # fmt: skip
    other = [{**x, "study": "victims", "victims": "equal", "median_node_wait": 9e9} for x in rows
             if x["scheduler"] == LOCAL]  # fmt: skip
    assert verdict(rows + other, "local-beats-fcfs-median") == "holds"


def test_the_offered_load_decides_the_steady_state_claim() -> None:
    rows = [
        row(FCFS, iat, r, load=load) for iat, load in ((1.5, 2.4), (4.0, 0.9)) for r in range(3)
    ]
    found = next(c for c in claims(rows) if c.key == "steady-state")
    assert found.estimate is not None and math.isclose(found.estimate.value, 2.4)
    assert "IAT 1.5: 2.40" in found.ours
    assert verdict(rows, "steady-state") == "does not hold"


def test_a_small_run_judges_every_claim(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["reproduce", "preemptive", *SMALL, "--replicates", "2", "--claims", "--format", "json"]
    assert cli(args) == 0
    found = json.loads(capsys.readouterr().out)
    assert [c["key"] for c in found] == [c.key for c in claims([])]
    assert all(c["rule"].startswith("rule:") and c["data"].startswith("synthetic") for c in found)


def test_fig_4a_is_checked_on_can_at_every_iat() -> None:
    """The claim is CAN''s, at every IAT (the old check used local under load > 1 only): a
    tail that alpha = 0.5 raises at IAT 4 decides it, whatever local does."""
    CAN = "internode CAN'"
    rows = [
        {**row(s, iat, r, tail10_node_wait=t + r, load=load), "alpha": alpha}
        for s in (CAN, LOCAL)
        for iat, load, tails in ((1.5, 2.4, (9000, 8000)), (4.0, 0.9, (80, 190)))
        for alpha, t in zip((0.0, 0.5), tails if s == CAN else (9000, 8000), strict=True)
        for r in range(5)
    ]
    assert verdict(rows, "alpha-lowers-tail-can") == "does not hold"
    assert verdict(rows, "alpha-lowers-tail-local-2nn") == "holds"
