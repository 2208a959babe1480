"""The `schedlib reproduce preemptive` experiment at small scale, its readings and its claims."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from schedlib.cli import main as cli
from schedlib.errors import InvalidValueError
from schedlib.execution import RunFailedError
from schedlib.experiments.claims import claim_rows
from schedlib.experiments.preemptive import (
    CAN,
    DEFAULT_READING,
    FCFS,
    LOCAL,
    NN,
    READING_KINDS,
    Reading,
    claims,
    design,
    make_jobs,
    make_nodes,
    offered_load,
    offered_loads,
    reproduce,
    untestable,
    waits,
)
from schedlib.experiments.preemptive import runs as runs_module
from schedlib.experiments.preemptive.page import glance, summary
from schedlib.experiments.running import Execution
from schedlib.model import EventKind as K
from schedlib.model import JobEvent, RunRecord
from schedlib.preemption.resources import GridJob
from schedlib.results.verdicts import Configurations, NotTestable, Tie

SMALL = ["--nodes", "12", "--jobs", "40", "--iat", "200,400", "--alpha", "0,0.5", "--workers", "1"]
"""A small grid at the paper's loads (IAT 2.4 and 4.8 s on 1000 nodes): a preloaded grid of 12
nodes gets 27 and 14 warm-up jobs, not thousands."""
ONE = [*SMALL, "--side", "", "--replicates", "2", "--readings", "none"]


def test_json_has_one_record_per_configuration_and_replicate(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli(["reproduce", "preemptive", *ONE, "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    keys = {(r["scheduler"], r["iat"], r["delta"], r["alpha"], r["replicate"]) for r in rows}
    assert len(rows) == len(keys) == 4 * 2 * 1 * 2 * 2
    for row in rows:
        assert row["completed"] + row["unschedulable"] == 40  # warm-up jobs are not measured
        assert row["tail10_node_wait"] >= row["median_node_wait"]
        assert row["max_node_wait"] >= row["top2_node_wait"] >= row["top4_node_wait"]
        assert row["median_node_wait"] <= row["median_wait"] + 1e-9
        assert row["paper_iat"] == pytest.approx(row["iat"] * 12 / 1000)
        assert row["reading"] == "default" and 0 <= row["waited"] <= 1
    fcfs = [r for r in rows if r["scheduler"] == "FCFS+backfill"]
    assert all(r["preemptions"] == 0 and r["migrations"] == 0 for r in fcfs)
    by_alpha = {(r["iat"], r["alpha"], r["replicate"]): r["digest"] for r in fcfs}
    assert by_alpha[200.0, 0.0, 1] == by_alpha[200.0, 0.5, 1]  # FCFS ignores alpha: one run
    assert by_alpha[200.0, 0.0, 0] != by_alpha[200.0, 0.0, 1]  # replicates differ


def test_the_design_runs_each_reading_and_the_side_studies() -> None:
    planned = design(
        nodes=12, jobs=40, iats=(2.0, 4.0), deltas=(5.0,), alphas=(0.0, 0.5),
        schedulers=("fcfs", "local", "2nn", "can"), replicates=2,
    )  # fmt: skip
    studies = {(p.reading, p.study, p.run.scheduler, p.run.iat, p.run.delta, p.run.alpha,
                p.run.victims) for p in planned}  # fmt: skip
    assert ("default", "delta", "can", 4.0, 2.5, 0.0, "lower") in studies
    assert ("default", "alpha", "local", 2.0, 5.0, 1.0, "lower") in studies
    for alpha in (1.05, 1.25, 2.0):
        assert ("default", "alpha", "local", 4.0, 5.0, alpha, "lower") in studies
        assert ("default", "alpha", "local", 2.0, 5.0, alpha, "lower") not in studies
    assert ("default", "victims", "local", 2.0, 5.0, 0.0, "equal") in studies
    names = {p.reading for p in planned}
    assert names == {"default", "sizes=skewed", "matchmaker=limited:2", "warm-up=none",
                     "push=preempt"}  # fmt: skip
    assert not any(p.study == "victims" and p.reading != "default" for p in planned)
    skewed = {p.run.sizes for p in planned if p.reading == "sizes=skewed"}
    assert skewed == {"skewed"} and len(planned) == len(set(planned))
    with pytest.raises(InvalidValueError, match="side = 'beta'"):
        design(nodes=2, jobs=2, iats=(1,), deltas=(5,), alphas=(0,), schedulers=("fcfs",),
               side=("beta",))  # fmt: skip


def test_a_run_no_reading_changes_runs_once() -> None:
    """FCFS and local scheduling do not depend on the PUSH reading: the push=preempt reading
    reuses their runs (the same digest), and internode runs differ."""
    rows = reproduce(nodes=12, jobs=30, iats=(200.0,), alphas=(0.0,), side=(), replicates=1,
                     readings=("push",), workers=1)  # fmt: skip
    by = {(r["reading"], r["scheduler"]): r["digest"] for r in rows}
    assert by["default", FCFS] == by["push=preempt", FCFS]
    assert by["default", LOCAL] == by["push=preempt", LOCAL]
    assert {r["push"] for r in rows if r["reading"] == "push=preempt"} == {"preempt"}


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
    assert lines[0].startswith("reading,study,scheduler,replicate,iat,paper_iat,delta,alpha")
    assert len(lines) == 1 + 2 * 2 * 2 * 2
    assert figure.stat().st_size > 0


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--jobs", "1000000000", "argument --jobs: must be at most 100000, got 1000000000 "
         "(the paper: 5000; a run's time grows with its jobs)"),
        ("--nodes", "0", "argument --nodes: must be an integer >= 1, got 0"),
        ("--replicates", "0", "argument --replicates: must be an integer >= 1, got 0"),
        ("--iat", "1.5,0", "argument --iat: every value must be a finite number > 0, got 0"),
        ("--iat", "fast", "argument --iat: every value must be a finite number > 0"),
        ("--delta", "0", "argument --delta: every value must be a finite number > 0, got 0"),
        ("--alpha", "-1", "argument --alpha: every value must be a finite number >= 0, got -1"),
        ("--beta", "-1", "argument --beta: must be a finite number >= 0, got -1"),
        ("--accuracy", "0", "argument --accuracy: must be a finite number > 0 and <= 1, got 0"),
        ("--accuracy", "2", "argument --accuracy: must be a finite number > 0 and <= 1, got 2"),
        ("--overhead", "-1", "argument --overhead: must be a finite number >= 0, got -1"),
        ("--matchmaker", "limited:0", "argument --matchmaker: must be global or limited:D"),
        ("--readings", "size", "argument --readings: must be all, none or among"),
        ("--sizes", "huge", "argument --sizes: invalid choice: 'huge'"),
        ("--workers", "0", "argument --workers: must be an integer >= 1, got 0"),
    ],
)  # fmt: skip
def test_a_bad_value_is_refused_at_parse_time_in_one_line_naming_the_flag(
    option: str, value: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:  # refused by the parser, before anything runs
        cli(["reproduce", "preemptive", *SMALL, option, value])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [("--schedulers", "sjf", "scheduler = 'sjf'"), ("--side", "gamma", "side = 'gamma'")],
)
def test_bad_names_in_lists_are_one_line_and_exit_2(
    option: str, value: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(["reproduce", "preemptive", *SMALL, option, value]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_the_help_names_every_reading(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli(["reproduce", "preemptive", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for words in ("--sizes {small,skewed}", "--matchmaker {global,limited:D}",
                  "--warm-up {preloaded,none}", "--push {fit,preempt}", "--readings",
                  "sizes, matchmaker, warm-up, push"):  # fmt: skip
        assert words in text, words


# -- the set-up and its readings --------------------------------------------------------------


def test_the_same_jobs_at_every_inter_arrival_time_and_under_both_sizes() -> None:
    a, b = make_jobs(50, 1.5), make_jobs(50, 4.0)
    assert [(j.requirement, j.estimate) for j in a] == [(j.requirement, j.estimate) for j in b]
    assert all(1800 <= j.estimate <= 5400 and j.runtime == j.estimate for j in a)
    skewed = make_jobs(50, 1.5, sizes="skewed")
    for small, twin in zip(a, skewed, strict=True):
        assert small.requirement == (1, twin.requirement[1] / 2, twin.requirement[2] / 2)
        assert (small.submit, small.estimate) == (twin.submit, twin.estimate)
    noisy = make_jobs(50, 1.5, accuracy=0.5)
    assert all(0.5 * j.estimate <= j.runtime <= j.estimate for j in noisy)
    with pytest.raises(InvalidValueError, match="accuracy"):
        make_jobs(5, 1.0, accuracy=0)
    with pytest.raises(InvalidValueError, match="--sizes"):
        make_jobs(5, 1.0, sizes="huge")
    nodes = make_nodes(1000)
    small = sum(1 for n in nodes if n.cores <= 2) / len(nodes)
    assert 0.6 < small < 0.8
    assert 0.9 < sum(n.speed for n in nodes) / len(nodes) < 1.1
    assert offered_load(make_jobs(5000, 4.0, sizes="skewed"), nodes) == pytest.approx(0.9, abs=0.1)
    loads = offered_loads(make_jobs(5000, 1.5), nodes)
    assert loads[0] == pytest.approx(0.96, abs=0.05) and loads[0] > loads[1] and loads[0] > loads[2]


def test_a_preloaded_grid_keeps_the_measured_jobs_and_adds_earlier_ones() -> None:
    cold = make_jobs(200, 2.0)
    warm = make_jobs(200, 2.0, warm_up=5400.0)
    assert [j.requirement for j in warm[:200]] == [j.requirement for j in cold]
    assert all(w.submit == pytest.approx(c.submit + 5400) for w, c in zip(warm, cold, strict=False))
    early = warm[200:]
    assert early and all(0 <= j.submit < 5400 for j in early)
    assert len(early) == pytest.approx(5400 / 2.0, rel=0.1)
    assert [j.id for j in warm] == list(range(len(warm)))
    later = make_jobs(200, 4.0, warm_up=5400.0)[200:]  # a larger IAT sees a prefix of them
    assert [j.requirement for j in later] == [j.requirement for j in early[: len(later)]]


def test_the_readings_vary_one_choice_each() -> None:
    assert Reading("small", "global", "preloaded", "fit") == DEFAULT_READING
    variations = dict(DEFAULT_READING.variations(READING_KINDS))
    assert variations["sizes=skewed"] == Reading("skewed", "global", "preloaded", "fit")
    assert variations["matchmaker=limited:2"].choices == 2
    assert variations["warm-up=none"].warm_up_seconds == 0.0
    assert variations["push=preempt"].push == "preempt"
    assert (
        dict(Reading(matchmaker="limited:3").variations(["matchmaker"]))["matchmaker=global"]
        == DEFAULT_READING
    )
    with pytest.raises(InvalidValueError, match="--push"):
        Reading(push="always")


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


# -- where the grid runs: the same rows everywhere, resumed or not ---------------------------

GRID = {"nodes": 10, "jobs": 25, "iats": (200.0,), "alphas": (0.0,), "replicates": 2,
        "side": ("delta",), "readings": ("push",)}  # fmt: skip


def test_rows_are_the_same_on_one_process_two_processes_and_a_dask_cluster() -> None:
    alone = reproduce(**GRID, workers=1)  # type: ignore[arg-type]
    assert reproduce(**GRID, workers=2) == alone  # type: ignore[arg-type]
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                 dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):  # fmt: skip
        on_dask = reproduce(**GRID, execution=Execution(executor=client.get_executor()))  # type: ignore[arg-type]
    assert on_dask == alone


def test_rows_are_the_same_after_two_interruptions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alone = reproduce(**GRID, workers=1)  # type: ignore[arg-type]
    resume = str(tmp_path / "runs.jsonl")
    where = Execution(workers=1, resume=resume, options={"grid": "test"}, name="preemptive")
    real = runs_module.run_one
    calls = {"n": 0}

    def failing_after(limit: int) -> Any:
        def run(run: Any) -> Any:
            calls["n"] += 1
            if calls["n"] > limit:
                raise MemoryError("the machine ran out of memory")
            return real(run)

        return run

    for limit in (3, 4):  # interrupted after 3 runs, then again after 4 more
        calls["n"] = 0
        monkeypatch.setattr(runs_module, "run_one", failing_after(limit))
        with pytest.raises(RunFailedError):
            reproduce(**GRID, execution=where)  # type: ignore[arg-type]
    done = len(Path(resume).read_text().splitlines()) - 1
    assert done == 7
    text = Path(resume).read_text()
    Path(resume).write_text(text[: len(text) - 20])  # and a crash cut the last line short
    monkeypatch.setattr(runs_module, "run_one", real)
    assert reproduce(**GRID, execution=where) == alone  # type: ignore[arg-type]


# -- claims ----------------------------------------------------------------------------------


def test_every_claim_is_not_run_without_rows() -> None:
    found = claims([])
    assert all(c.estimate is None for c in found)
    assert len({c.key for c in found}) == len(found) == 20
    assert {r["verdict"] for r in claim_rows(found)} == {"not run"}
    assert [c.origin for c in found][-1] == "ours" and {c.origin for c in found[:-1]} == {"paper"}


def row(scheduler: str, iat: float, replicate: int, **values: Any) -> dict[str, Any]:
    base = {
        "reading": "default", "scheduler": scheduler, "study": "main", "replicate": replicate,
        "seed": 0, "nodes": 1000, "jobs": 5000, "iat": iat, "paper_iat": iat, "delta": 5.0,
        "alpha": 0.0, "victims": "lower", "sizes": "small", "warm_up": "preloaded",
        "load_cores": 0.5, "load_memory": 0.3, "load_disk": 0.3, "departures": 1.0,
        "median_node_wait": 0.0, "mean_node_wait": 0.0, "median_wait": 0.0, "mean_wait": 0.0,
        "tail10_node_wait": 0.0, "top4_node_wait": 0.0, "top2_node_wait": 0.0,
        "max_node_wait": 0.0, "preemptions": 0,
    }  # fmt: skip
    merged = {**base, **values}
    merged.setdefault("digest", "/".join(str(merged[k]) for k in ("scheduler", "iat", "replicate",
                                                                   "alpha", "delta")))  # fmt: skip
    return merged


def verdict(rows: list[dict[str, Any]], key: str, reading: str = "") -> str:
    column = f"verdict ({reading})" if reading else "verdict"
    return next(r[column] for r in claim_rows(claims(rows)) if r["key"] == key)


def estimate(rows: list[dict[str, Any]], key: str) -> Any:
    return next(c.estimate for c in claims(rows) if c.key == key)


def test_two_zero_medians_are_not_testable_and_keep_an_every_claim_from_holding() -> None:
    rows = [row(s, 3.0, r) for s in (FCFS, LOCAL) for r in range(5)]
    assert isinstance(estimate(rows, "local-beats-fcfs-median"), NotTestable)
    assert verdict(rows, "local-beats-fcfs-median") == "not testable"
    assert untestable(rows)["local-beats-fcfs-median"] == ("every configuration",)
    rows += [row(s, 1.5, r, median_node_wait=w + r) for s, w in ((FCFS, 3000), (LOCAL, 1000))
             for r in range(5)]  # fmt: skip
    found = estimate(rows, "local-beats-fcfs-median")
    assert isinstance(found, Configurations)
    assert dict(found.parts)["IAT 3"] == NotTestable("every median is 0")
    assert verdict(rows, "local-beats-fcfs-median") == "inconclusive"  # IAT 3 is no evidence
    assert untestable(rows)["local-beats-fcfs-median"] == ("IAT 3",)


def test_identical_schedules_are_a_tie_and_left_out() -> None:
    """Local preemption at delta 2.5 s ran the very schedule of delta 5 s (the same digest):
    a tie, not evidence that the change is negligible."""
    rows = []
    for r in range(4):
        for scheduler in (LOCAL, NN):
            five = row(scheduler, 1.5, r, median_node_wait=1000.0 + 10 * r,
                       mean_node_wait=2000.0 + r, preemptions=500 + r)  # fmt: skip
            half = {**five, "study": "delta", "delta": 2.5}
            if scheduler == NN:
                half = {**half, "digest": f"other/{r}", "mean_node_wait": 2000.0 + r + (r % 2),
                        "median_node_wait": 1000.0 + 10 * r + (r % 2),
                        "preemptions": 500 + r + (r % 2)}  # fmt: skip
            rows += [five, half]
    found = estimate(rows, "delta-preemptions-unchanged")
    assert isinstance(found, Configurations)
    assert isinstance(dict(found.parts)["local, IAT 1.5"], Tie)
    assert found.ties == ["local, IAT 1.5"]
    assert verdict(rows, "delta-preemptions-unchanged") == "holds"
    assert verdict(rows, "delta-changes-little") == "holds"


def test_the_median_claim_reads_medians_not_means() -> None:
    """Local has the lower mean but the higher median: Fig. 3's claim does not hold."""
    rows = [
        row(s, 1.5, r, median_node_wait=m + r, mean_node_wait=a + r)
        for s, m, a in ((FCFS, 1000, 5000), (LOCAL, 2000, 3000))
        for r in range(5)
    ]
    assert verdict(rows, "local-beats-fcfs-median") == "does not hold"


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


def test_the_steady_state_asks_load_below_one_and_departures_keeping_up() -> None:
    rows = [row(s, iat, r, load_cores=load, departures=leaving)
            for s in (FCFS, LOCAL) for iat, load, leaving in ((1.5, 0.97, 0.7), (4.0, 0.36, 1.0))
            for r in range(3)]  # fmt: skip
    found = estimate(rows, "steady-state")
    assert isinstance(found, Configurations)
    parts = dict(found.parts)
    assert parts["IAT 1.5: load"].mean == pytest.approx(3.0)  # 3 points below 100 %
    assert parts["IAT 1.5: FCFS departures"].mean == pytest.approx(-20.0)  # 20 points under 90 %
    assert verdict(rows, "steady-state") == "does not hold"
    kept_up = [{**r, "departures": 0.98} for r in rows]
    assert verdict(kept_up, "steady-state") == "holds"
    overloaded = [{**r, "load_memory": 1.2} for r in kept_up]  # the busiest kind counts
    assert verdict(overloaded, "steady-state") == "does not hold"


def test_preemptions_are_counted_per_job_against_one_eighth() -> None:
    rows = [row(s, 1.5, r, preemptions=p + r) for s, p in ((LOCAL, 600), (NN, 590), (CAN, 610))
            for r in range(4)]  # fmt: skip
    found = estimate(rows, "preemptions-one-eighth")
    assert found.unit == "preemptions per job"
    assert dict(found.parts)["local, IAT 1.5"].mean == pytest.approx(601.5 / 5000)
    assert verdict(rows, "preemptions-one-eighth") == "holds"


def test_each_reading_is_judged_in_its_own_column() -> None:
    base = [row(s, 1.5, r, median_node_wait=w + r) for s, w in ((FCFS, 3000), (LOCAL, 1000))
            for r in range(5)]  # fmt: skip
    other = [{**x, "reading": "sizes=skewed",
              "median_node_wait": x["median_node_wait"] * (3 if x["scheduler"] == LOCAL else 1)}
             for x in base]  # fmt: skip
    assert verdict(base + other, "local-beats-fcfs-median") == "holds"
    assert verdict(base + other, "local-beats-fcfs-median", "sizes=skewed") == "does not hold"


def test_a_small_run_judges_every_claim(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["reproduce", "preemptive", *SMALL, "--replicates", "2", "--readings", "none",
            "--claims", "--format", "json"]  # fmt: skip
    assert cli(args) == 0
    found = json.loads(capsys.readouterr().out)
    assert [c["key"] for c in found] == [c.key for c in claims([])]
    assert all(c["rule"].startswith("rule:") and c["data"].startswith("synthetic") for c in found)


def test_fig_4a_is_checked_on_can_at_every_iat() -> None:
    """The claim is CAN''s, at every IAT: a tail that alpha = 0.5 raises at IAT 4 decides it,
    whatever local does."""
    rows = [
        row(s, iat, r, tail10_node_wait=t + r, alpha=alpha)
        for s in (CAN, LOCAL)
        for iat, tails in ((1.5, (9000, 8000)), (4.0, (80, 190)))
        for alpha, t in zip((0.0, 0.5), tails if s == CAN else (9000, 8000), strict=True)
        for r in range(5)
    ]
    assert verdict(rows, "alpha-lowers-tail-can") == "does not hold"
    assert verdict(rows, "alpha-lowers-tail-local-2nn") == "holds"


def test_alpha_one_and_alpha_above_one_are_judged_apart() -> None:
    """At the tie point alpha = beta = 1 preemptions fall; above it they explode: two claims,
    one verdict each, never one resting on the other."""
    rows = []
    for r in range(4):
        rows += [row(LOCAL, iat, r, preemptions=600 + r) for iat in (1.5, 4.0)]
        rows += [row(LOCAL, iat, r, alpha=1.0, study="alpha", preemptions=300 + r)
                 for iat in (1.5, 4.0)]  # fmt: skip
        rows += [row(LOCAL, 4.0, r, alpha=a, study="alpha", preemptions=20000 * a + r)
                 for a in (1.05, 1.25, 2.0)]  # fmt: skip
    assert verdict(rows, "alpha1-more-preemptions") == "does not hold"
    assert verdict(rows, "alpha-above-1-more-preemptions") == "holds"
    above = estimate(rows, "alpha-above-1-more-preemptions")
    assert [label for label, _ in above.parts] == ["alpha 1.05, IAT 4", "alpha 1.25, IAT 4",
                                                   "alpha 2, IAT 4"]  # fmt: skip


def test_the_tail_claims_show_the_top_2_percent_and_the_longest_wait_beside() -> None:
    tails = ((LOCAL, 1000.0), (NN, 2000.0), (CAN, 2500.0))
    rows = [row(s, 1.5, r, top4_node_wait=t + r, top2_node_wait=2 * t + r, max_node_wait=3 * t)
            for s, t in tails for r in range(4)]  # fmt: skip
    found = next(c for c in claims(rows) if c.key == "fig6a-local-best-tail")
    assert "local: top-4 % mean 1,002 s, top-2 % mean 2,002 s, maximum 3,000 s" in found.ours
    assert verdict(rows, "fig6a-local-best-tail") == "holds"


def test_our_claim_is_last_and_outside_the_papers_count() -> None:
    rows = claim_rows(claims([]))
    assert rows[-1]["key"] == "internode-beats-local-median-total"
    assert rows[-1]["claim"].endswith("(ours, not the paper's)")
    assert "20. internode < local, median total wait (ours)" in glance(rows)
    assert "Claims of the paper (19; ours apart)" in glance(rows)


def test_the_glance_has_one_column_per_reading_and_the_summary_names_the_changes() -> None:
    base = [row(s, 1.5, r, median_node_wait=w + r) for s, w in ((FCFS, 3000), (LOCAL, 1000))
            for r in range(5)]  # fmt: skip
    other = [{**x, "reading": "sizes=skewed",
              "median_node_wait": x["median_node_wait"] * (3 if x["scheduler"] == LOCAL else 1)}
             for x in base]  # fmt: skip
    rows = claim_rows(claims(base + other))
    table = glance(rows)
    assert table.splitlines()[0] == "| claim | default | skewed sizes |"
    assert "| 2. local < FCFS, median (§6.2, Fig. 3) | **holds** | does not hold |" in table
    assert "skewed sizes changes 1 (2 to does not hold)" in summary(rows)
