"""The Mine et al. (2007) reproduction: rows, replicates, readings, claims, CLI, plot."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from schedlib.cli import main as cli
from schedlib.errors import InvalidValueError
from schedlib.experiments import deferment
from schedlib.experiments.claims import claim_rows
from schedlib.experiments.deferment import (
    ExperimentSettings,
    claims,
    documented_rows,
    plot,
    reproduce,
    run_trial,
    runs,
    trial_workload,
    variants,
)
from schedlib.experiments.deferment.findings import compare
from schedlib.experiments.running import Execution
from schedlib.results.verdicts import Configurations, Tie

SMALL = ExperimentSettings(
    trials=3,
    jobs=3,
    tasks=6,
    processors=4,
    intervals=(100, 2000),
    bounds=(1, 2),
    overtaking_trials=5,
    spare_trials=2,
    spare_jobs=4,
    spare_intervals=(100,),
)


@pytest.fixture(scope="module")
def small_rows() -> list[dict[str, object]]:
    return reproduce(SMALL, Execution(workers=1))


def test_paper_defaults() -> None:
    settings = ExperimentSettings()
    assert (settings.trials, settings.jobs, settings.tasks, settings.processors) == (
        200,
        8,
        128,
        32,
    )
    assert settings.intervals == (500, 750, 1000, 2000, 4000)
    assert set(deferment.PAPER_INTERVALS) < set(settings.intervals)
    assert settings.bounds == (1, 2, 4, 8)
    assert settings.task_size == (2_000_000, 6_000_000)
    assert settings.peaks == (10_000, 20_000, 40_000)
    assert settings.overtaking_intervals == (500, 750)  # the intervals below OVERLAP
    assert (settings.overtaking_trials, settings.spare_jobs, settings.spare_trials) == (
        1000,
        32,
        30,
    )
    # FIFO in both readings and round robin, each standard and with four bounds
    assert len(variants(settings)) == 15


def test_per_trial_rows_and_summaries(small_rows: list[dict[str, object]]) -> None:
    trial = [r for r in small_rows if r["kind"] == "trial"]
    summary = [r for r in small_rows if r["kind"] == "summary"]
    main = [r for r in trial if r["experiment"] == "main"]
    assert len(main) == 3 * 9 * 2  # trials x variants x intervals
    assert {r["trial"] for r in main} == {0, 1, 2}
    for row in main:
        assert row["total"] == pytest.approx(row["computation"] + row["waiting"])
        assert row["work"] >= 100.0  # replicas only add work
        if row["bound"] is not None:
            assert row["overtaking_jobs"] == 0
    # the overtaking experiment: standard FIFO of each reading at intervals below 1000;
    # its first trials are the main ones (shared rows), trials 3 and 4 are its own
    extra = [r for r in trial if r["experiment"] == "overtaking"]
    assert {(r["algorithm"], r["bound"], r["interval"]) for r in extra} == {("fifo", None, 100)}
    assert sorted({r["trial"] for r in extra}) == [0, 1, 2, 3, 4]
    shared = {
        (r["reading"], r["trial"]): r["total"]
        for r in main
        if r["algorithm"] == "fifo" and r["bound"] is None and r["interval"] == 100
    }
    assert all(shared[r["reading"], r["trial"]] == r["total"] for r in extra if r["trial"] < 3)
    spare = [r for r in trial if r["experiment"] == "spare"]
    assert {r["jobs"] for r in spare} == {4} and len(spare) == 2 * 9
    by_experiment = {(r["experiment"]): r["trials"] for r in summary}
    assert by_experiment == {"main": 3, "overtaking": 5, "spare": 2}


def test_rows_are_the_same_on_any_executor_and_resumed(
    rows_the_same_everywhere: Callable[..., None],
) -> None:
    """One process, two, a dask LocalCluster, and two interrupted sittings then a third."""
    settings = ExperimentSettings(
        trials=3,
        jobs=2,
        tasks=4,
        processors=3,
        intervals=(50,),
        bounds=(1,),
        overtaking_trials=4,
        spare_trials=1,
        spare_jobs=3,
    )
    rows_the_same_everywhere(
        reproduce,
        settings,
        module=runs,
        function="run_trial",
        fails=lambda task: task[1:] == (1, "main"),
        then_fails=lambda task: task[1:] == (3, "overtaking"),
    )


def test_seeds_share_no_replicate() -> None:
    """Trial t of --seed s draws from stream(s, t, purpose): two seeds share no trial."""
    drawn: dict[tuple[int, ...], tuple[int, int]] = {}
    speeds: dict[float, tuple[int, int]] = {}
    settings = {s: ExperimentSettings(seed=s, jobs=1, tasks=4) for s in (0, 1)}
    for seed, setting in settings.items():
        for trial in range(50):
            sizes, grid = trial_workload(setting, trial)
            assert tuple(sizes[0]) not in drawn, (seed, trial, drawn.get(tuple(sizes[0])))
            drawn[tuple(sizes[0])] = (seed, trial)
            first = grid[0].speed.segment_at(0)
            assert first not in speeds, (seed, trial)
            speeds[first] = (seed, trial)  # type: ignore[index]


def test_more_jobs_keep_the_first_jobs() -> None:
    few, _ = trial_workload(ExperimentSettings(tasks=5), 3, 2)
    many, _ = trial_workload(ExperimentSettings(tasks=5), 3, 6)
    assert many[:2] == few


def test_identical_jobs_make_overtaking_and_deferment_impossible() -> None:
    """'All the jobs are the same construction' read as identical jobs: no job is strictly
    smaller than another, so none can overtake (it needs a strictly smaller earlier job)
    and C2 never holds: every bound gives the standard algorithm's schedule."""
    settings = ExperimentSettings(
        trials=2,
        jobs=4,
        tasks=6,
        processors=3,
        intervals=(20, 100),
        bounds=(1, 4),
        identical_jobs=True,
        overtaking_trials=0,
        spare_trials=0,
    )
    sizes, _ = trial_workload(settings, 0)
    assert all(s == sizes[0] for s in sizes)
    rows = [r for trial in range(2) for r in run_trial((settings, trial, "main"))]
    assert all(r["overtaking_jobs"] == 0 for r in rows)
    standard_schedules = {
        (r["trial"], r["algorithm"], r["reading"], r["interval"]): r["schedule"]
        for r in rows
        if r["bound"] is None
    }
    assert all(
        r["schedule"] == standard_schedules[r["trial"], r["algorithm"], r["reading"], r["interval"]]
        for r in rows
    )
    standard = {
        (r["trial"], r["algorithm"], r["reading"], r["interval"]): r
        for r in rows
        if r["bound"] is None
    }
    for r in rows:
        same = standard[r["trial"], r["algorithm"], r["reading"], r["interval"]]
        assert {k: r[k] for k in ("computation", "waiting", "total_std", "replicas")} == {
            k: same[k] for k in ("computation", "waiting", "total_std", "replicas")
        }


def test_without_replication_no_work_is_wasted() -> None:
    settings = ExperimentSettings(
        trials=1,
        jobs=2,
        tasks=4,
        processors=3,
        intervals=(50,),
        bounds=(1,),
        replication=False,
        readings=("originals-first",),
    )
    rows = run_trial((settings, 0, "main"))
    assert all(r["work"] == pytest.approx(100.0) and r["replicas"] == 0 for r in rows)


def test_the_head_job_reading_runs_one_job_at_a_time() -> None:
    settings = ExperimentSettings(
        trials=1, jobs=3, tasks=6, processors=4, intervals=(5,), bounds=(1,), readings=("head-job",)
    )
    rows = run_trial((settings, 0, "main"))
    fifo = [r for r in rows if r["algorithm"] == "fifo"]
    assert fifo[0]["total"] == fifo[1]["total"]  # deferment never acts
    assert fifo[0]["waiting"] > 0


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"bounds": (1, 0)}, "B"),  # the command line refuses it first, naming --bounds
        ({"trials": 0}, "ExperimentSettings.trials"),
        ({"intervals": ()}, "ExperimentSettings.intervals"),
        ({"intervals": (-5,)}, "ExperimentSettings.intervals"),
        ({"task_size": (5, 1)}, "ExperimentSettings.task_size"),
        ({"readings": ("lifo",)}, "ExperimentSettings.readings"),
        ({"overtaking_intervals": (600,)}, "ExperimentSettings.overtaking_intervals"),
        ({"seed": -1}, "ExperimentSettings.seed"),
    ],
)
def test_settings_are_validated(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidValueError) as error:
        ExperimentSettings(**kwargs)  # type: ignore[arg-type]
    assert error.value.field == field


# --- claims ------------------------------------------------------------------------------


def test_every_claim_is_listed_and_not_run_without_rows() -> None:
    judged = claim_rows(claims([]))
    assert [r["key"] for r in judged] == [
        "never-overtakes",
        "standard-fifo-overtakes",
        "standard-rr-overtakes",
        "nearly-equal-fifo",
        "nearly-equal-rr",
        "bound-no-effect-fifo",
        "bound-no-effect-rr",
        "fifo-computation-flat",
        "rr-computation-grows",
        "fifo-waiting-grows",
        "rr-waiting-negligible",
        "total-grows",
        "fifo-beats-rr-most-cases",
        "std-short",
        "std-long",
        "fifo-deferment-better",
        "spare-power-table-1",
        "spare-power-text",
    ]
    assert {r["verdict"] for r in judged} == {"not run"}
    assert all("§" in r["claim"] or "abstract" in r["claim"] for r in judged)


def test_one_row_per_claim_with_a_verdict_per_reading(small_rows: list[dict[str, object]]) -> None:
    measured = claims(small_rows)
    assert len(measured) == 18
    assert all([name for name, _ in c.readings] == ["head-job"] for c in measured)
    judged = claim_rows(measured)
    assert all(r["verdict"] != "not run" and r["verdict (head-job)"] != "not run" for r in judged)
    assert all("FIFO reading" not in r["data"] for r in judged)
    # round robin's claims measure the same under both readings
    for c in measured:
        if c.key in ("standard-rr-overtakes", "nearly-equal-rr", "rr-waiting-negligible"):
            assert c.readings[0][1] == c.estimate
    other = claims(small_rows, "head-job")
    assert [name for name, _ in other[0].readings] == ["originals-first"]
    assert other[5].readings[0][1] == measured[5].estimate
    # never overtakes: exactly none in every trial
    assert judged[0]["verdict"] == "holds" and "in every replicate" in judged[0]["ours"]


def test_under_the_head_job_reading_fifo_cannot_overtake_and_deferment_never_acts(
    small_rows: list[dict[str, object]],
) -> None:
    head = {c.key: c for c in claims(small_rows, "head-job")}
    overtakes = head["standard-fifo-overtakes"].estimate
    assert overtakes is not None and overtakes.value == 0  # type: ignore[union-attr]
    nearly = head["nearly-equal-fifo"].estimate
    assert isinstance(nearly, Configurations) and not nearly.counted  # every part a tie
    assert claim_rows([head["nearly-equal-fifo"]])[0]["verdict"] == "tie"


def test_identical_schedules_are_ties_not_evidence(small_rows: list[dict[str, object]]) -> None:
    """At interval 2000 the small jobs never meet: FIFO and round robin make the same schedule,
    and "in most cases FIFO is shorter" is judged on the cases where they differ."""
    most = next(c for c in claims(small_rows) if c.key == "fifo-beats-rr-most-cases").estimate
    assert isinstance(most, Configurations) and most.quantifier == "most"
    assert most.ties == ["standard at 2000", "B = 1 at 2000", "B = 2 at 2000"]
    assert [label for label, _ in most.counted] == ["standard at 100", "B = 1 at 100",
                                                    "B = 2 at 100"]  # fmt: skip
    a = {0: {"total": 5.0, "schedule": "s"}, 1: {"total": 6.0, "schedule": "t"}}
    same_values = {0: {"total": 5.0, "schedule": "u"}, 1: {"total": 6.0, "schedule": "t"}}
    assert compare(a, a, "total") == Tie("identical schedules in every trial")
    # equal measures from different schedules are a difference of 0, not a tie
    assert compare(a, same_values, "total").values == (0.0, 0.0)  # type: ignore[union-attr]
    assert compare(a, {}, "total") is None


def test_documented_rows_keep_what_the_page_needs(small_rows: list[dict[str, object]]) -> None:
    kept = documented_rows(small_rows)
    assert {r["kind"] for r in kept} == {"summary", "claim", "coincide"}
    verdicts = [r for r in kept if r["kind"] == "claim"]
    assert {r["reading"] for r in verdicts} == set(deferment.READINGS)
    assert len(verdicts) == 2 * 18
    coincide = [r for r in kept if r["kind"] == "coincide"]
    assert [r["interval"] for r in coincide] == [100, 2000]
    # every main variant appears in exactly one group per interval
    for r in coincide:
        assert sum(len(g) for g in r["groups"]) == 9
    summary = next(r for r in kept if r["kind"] == "summary")
    assert summary["total_sd"] >= 0 and "schedule" not in summary


# --- command line ------------------------------------------------------------------------


def _cli(*arguments: str) -> list[str]:
    return [
        "reproduce",
        "deferment",
        "--trials",
        "1",
        "--jobs",
        "2",
        "--intervals",
        "300",
        "--overtaking-trials",
        "0",
        "--spare-trials",
        "0",
        "--workers",
        "1",
        *arguments,
    ]


def test_cli_json_prints_the_summaries(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli(_cli("--bounds", "2", "--format", "json"))
    assert code == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["algorithm"], r["reading"], r["bound"]) for r in rows] == [
        ("fifo", "originals-first", None),
        ("fifo", "originals-first", 2),
        ("fifo", "head-job", None),
        ("fifo", "head-job", 2),
        ("round_robin", None, None),
        ("round_robin", None, 2),
    ]
    assert {"computation", "waiting", "total", "total_std", "overtaking_jobs", "work"} <= set(
        rows[0]
    )


def test_cli_claims_counted_for_the_reading_named(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli([*_cli("--bounds", "1,2", "--fifo-reading", "head-job", "--claims")]) == 0
    out = capsys.readouterr().out
    assert "18. " in out and "under the" not in out and "originals-first" not in out
    assert cli([*_cli("--bounds", "1,2", "--claims")]) == 0
    out = capsys.readouterr().out
    assert out.count("under the head-job reading: ") == 18


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--bounds", "1,0"], "argument --bounds: every value must be an integer >= 1, got 0"),
        (["--bounds", "one"], "argument --bounds: every value must be an integer >= 1, got 'one'"),
        (["--intervals", "500,0"], "argument --intervals: every value must be an integer >= 1"),
        (["--trials", "0"], "argument --trials: must be an integer >= 1, got 0"),
        (["--jobs", "0"], "argument --jobs: must be an integer >= 1, got 0"),
        (["--overtaking-trials", "-1"], "argument --overtaking-trials: must be an integer >= 0"),
        (["--spare-trials", "-1"], "argument --spare-trials: must be an integer >= 0, got -1"),
        (["--seed", "x"], "argument --seed: must be an integer >= 0"),
        (["--workers", "0"], "argument --workers: must be an integer >= 1, got 0"),
    ],
)
def test_cli_bad_values_are_refused_at_parse_time_naming_the_flag(
    arguments: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        cli(["reproduce", "deferment", *arguments])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_plot(tmp_path: Path, small_rows: list[dict[str, object]]) -> None:
    target = tmp_path / "deferment.png"
    plot(small_rows, str(target))
    assert target.stat().st_size > 1000


def test_claims_that_the_rows_contradict_do_not_hold(small_rows: list[dict[str, object]]) -> None:
    """Rows in which deferment overtakes, and in which FIFO's computation time
    at the short interval is a million time units."""
    broken = []
    for r in small_rows:
        r = dict(r)
        if r["kind"] == "trial" and r["experiment"] == "main" and r["bound"] is not None:
            r["overtaking_jobs"] = 1
        if r["kind"] == "trial" and r["algorithm"] == "fifo" and r["interval"] == 100:
            r["computation"] = 1e6
        broken.append(r)
    tested = [c for c in claims(broken) if c.key in ("never-overtakes", "fifo-computation-flat")]
    verdicts = {c["key"]: c["verdict"] for c in claim_rows(tested)}  # judged as a family of two
    assert verdicts["never-overtakes"] == "does not hold"
    assert verdicts["fifo-computation-flat"] == "does not hold"
