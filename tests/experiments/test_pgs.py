"""The reproduction of Verboven et al. (2008) §4 (Table 2): readings, claims, command line."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import attrs
import pytest

from schedlib.availability.patterns import DELAY_RESOLUTION
from schedlib.cli import main as cli
from schedlib.errors import InvalidValueError
from schedlib.execution import RunFailedError
from schedlib.execution.tasks import read_resume_file
from schedlib.experiments import pgs
from schedlib.experiments.claims import claim_rows
from schedlib.experiments.pgs import runs
from schedlib.experiments.pgs.runs import _effective
from schedlib.experiments.running import Execution
from schedlib.replicates import stream_seed
from schedlib.results.verdicts import Configurations, MeanEstimate, NotTestable, Tie


@pytest.mark.parametrize(
    ("number", "count", "longest"), [(1, 960, 60), (2, 480, 120), (3, 240, 240)]
)
def test_job_sets_hold_482_minutes_of_work(number: int, count: int, longest: float) -> None:
    jobs = pgs.job_set(number)
    assert len(jobs) == count
    assert sum(j.runtime for j in jobs) == 482 * 60
    runtimes = [j.runtime for j in jobs]
    assert runtimes == sorted(runtimes) and runtimes[-1] == longest
    assert [j.id for j in jobs] == list(range(count))
    assert all(j.submit == 0 and j.estimate == j.runtime for j in jobs)
    shuffled = pgs.job_set(number, "shuffled", random.Random(1))
    assert sorted(j.runtime for j in shuffled) == runtimes
    assert shuffled == pgs.job_set(number, "shuffled", random.Random(1))
    assert shuffled != pgs.job_set(number, "shuffled", random.Random(2))
    sweeps = [j.runtime for j in pgs.job_set(number, "sweeps")]
    copies = count // 240
    assert sweeps == [runtimes[i] for i in range(0, count, copies)] * copies


def test_lower_bound_is_60_minutes_15_seconds() -> None:
    assert pgs.LOWER_BOUND_MINUTES * 60 == 60 * 60 + 15


def test_bad_experiment_inputs() -> None:
    with pytest.raises(InvalidValueError, match="job set"):
        pgs.job_set(4)
    with pytest.raises(InvalidValueError, match="order"):
        pgs.job_set(1, "random")
    with pytest.raises(InvalidValueError, match="rng"):
        pgs.job_set(1, "shuffled")
    with pytest.raises(InvalidValueError, match="scenario"):
        pgs.reproduce(scenarios=(5,))
    with pytest.raises(InvalidValueError, match="runs"):
        pgs.reproduce(runs=0)
    with pytest.raises(InvalidValueError, match="reading = 'nothing'"):
        pgs.reproduce(compare=["nothing"])
    with pytest.raises(InvalidValueError, match=r"Reading\.overhead = -1"):
        pgs.Reading(overhead=-1)
    with pytest.raises(InvalidValueError, match=r"Reading\.phases = 'late'"):
        pgs.Reading(phases="late")
    with pytest.raises(InvalidValueError, match="phases"):
        pgs.paper_resources(True, (0.0,))
    with pytest.raises(InvalidValueError, match=r"Reading\.queue_length = 0"):
        pgs.Reading(queue_length=0)
    with pytest.raises(InvalidValueError, match=r"Reading\.pgs_order = 'increasing'"):
        pgs.Reading(pgs_order="increasing")
    with pytest.raises(InvalidValueError, match=r"Reading\.first_job = 'all'"):
        pgs.Reading(first_job="all")


def test_resources_follow_table_1() -> None:
    resources = pgs.paper_resources()
    assert [r.planned.uptime(0) for r in resources] == [84, 117, 163, 228, 318, 443, 619, 864]
    assert all(r.planned.downtime(0) == 1 and r.restart.mean == 0.2 for r in resources)
    assert all(r.phase == 0 for r in resources)
    assert all(r.planned.longest_uptime == float("inf") for r in pgs.paper_resources(False))
    phases = pgs.draw_phases(random.Random(3))
    assert all(p / DELAY_RESOLUTION == int(p / DELAY_RESOLUTION) for p in phases)
    assert [r.phase for r in pgs.paper_resources(True, phases)] == list(phases)


def test_scenario_0_reaches_the_lower_bound_and_pgs_never_fails() -> None:
    rows = pgs.reproduce(runs=2, scenarios=(0, 3), workers=1)
    by = {(r["scenario"], r["scheduler"]): r for r in rows if "replicate" not in r}
    assert set(by) == {(0, "pgs"), (0, "fcfs"), (3, "pgs"), (3, "fcfs")}
    for scheduler in ("pgs", "fcfs"):
        zero = by[(0, scheduler)]
        assert zero["runs"] == 1 and zero["failures"] == 0 and zero["stdev"] == 0
        assert pgs.LOWER_BOUND_MINUTES <= zero["makespan_minutes"] < 61
    assert by[(3, "pgs")]["failures"] == by[(3, "pgs")]["wasted_seconds"] == 0
    assert by[(3, "fcfs")]["failures"] > 0 and by[(3, "fcfs")]["wasted_seconds"] > 0
    assert by[(3, "pgs")]["makespan_minutes"] < by[(3, "fcfs")]["makespan_minutes"]
    assert by[(3, "pgs")]["runs"] == 2
    assert by[(3, "pgs")]["paper_minutes"] == 87.88
    difference = by[(3, "pgs")]["difference_percent"]
    assert difference == by[(3, "fcfs")]["difference_percent"] > 0
    assert all(r["abandoned"] == r["unschedulable"] == 0 for r in rows)
    replicates = [r for r in rows if "replicate" in r]
    # scenario 0 draws nothing: one deterministic run per scheduler, never copied
    assert len(replicates) == 2 * 1 + 2 * 2 and all(r["main"] for r in rows)
    assert [r["deterministic"] for r in replicates if r["scenario"] == 0] == [True, True]
    assert {r["replicate"] for r in replicates if r["scenario"] == 3} == {0, 1}
    fcfs_3 = [
        r["makespan_minutes"] for r in replicates if r["scenario"] == 3 and r["scheduler"] == "fcfs"
    ]
    assert len(set(fcfs_3)) == 2  # each replicate draws its own restarts


def test_each_run_accounts_for_every_resource_minute() -> None:
    """Busy + idle + down is the total runtime on each of the 8 resources; busy is the work."""
    rows = pgs.reproduce(runs=1, scenarios=(3,), workers=1)
    for row in rows:
        total = row["makespan_minutes"]
        for busy, idle, down in zip(
            row["busy_minutes"], row["idle_minutes"], row["down_minutes"], strict=True
        ):
            assert busy + idle + down == pytest.approx(total, abs=1e-9)
        if row["scheduler"] == "pgs":  # PGS loses no work: busy is the 482 min of the job set
            assert sum(row["busy_minutes"]) == pytest.approx(482, abs=1e-9)
    pgs_3 = next(r for r in rows if r["scheduler"] == "pgs" and "replicate" in r)
    # the short-uptime resources run out of jobs short enough for them first
    assert pgs_3["last_start_minutes"][:3] == sorted(pgs_3["last_start_minutes"][:3])
    assert max(pgs_3["last_start_minutes"][:3]) < 0.5 * pgs_3["makespan_minutes"]


def test_pgs_can_take_the_jobs_in_its_own_order() -> None:
    """`--pgs-order`: PGS takes the jobs shuffled while FCFS sees the submission order."""
    mixed = pgs.READINGS["pgs-shuffled"]
    pgs_jobs = pgs.replicate_inputs(mixed, 3, 0, 4, "pgs")[0]
    fcfs_jobs = pgs.replicate_inputs(mixed, 3, 0, 4, "fcfs")[0]
    assert [j.runtime for j in fcfs_jobs] == [j.runtime for j in pgs.job_set(3)]
    assert pgs_jobs == pgs.replicate_inputs(pgs.READINGS["shuffled"], 3, 0, 4, "pgs")[0]
    rows = pgs.reproduce(runs=2, scenarios=(0, 3), workers=1, compare=["shuffled", "pgs-shuffled"])

    def schedules(reading: str, scheduler: str) -> list[str]:
        return [r["schedule"] for r in rows if r.get("replicate") is not None
                and r["reading"] == reading and r["scheduler"] == scheduler]  # fmt: skip

    assert schedules("pgs-shuffled", "fcfs") == schedules("paper", "fcfs")
    assert schedules("pgs-shuffled", "pgs") == schedules("shuffled", "pgs")
    assert schedules("pgs-shuffled", "pgs") != schedules("paper", "pgs")
    # PGS's scenario 0 is no longer deterministic once its order is drawn
    zero = [r for r in rows if r.get("replicate") is not None and r["scenario"] == 0
            and r["reading"] == "pgs-shuffled"]  # fmt: skip
    assert sorted((r["scheduler"], r["deterministic"]) for r in zero) == [
        ("fcfs", True), ("pgs", False), ("pgs", False)
    ]  # fmt: skip


def test_two_seeds_share_no_replicate() -> None:
    """`--seed 0` and `--seed 1` draw different restarts, phases and orders in every replicate."""
    reading = pgs.Reading(order="shuffled", phases="random")
    drawn = [
        pgs.replicate_inputs(reading, 1, seed, replicate)
        for seed in (0, 1)
        for replicate in range(10)
    ]
    restarts = [restart for _, _, restart in drawn]
    phases = [tuple(r.phase for r in resources) for _, resources, _ in drawn]
    orders = [tuple(j.runtime for j in jobs) for jobs, _, _ in drawn]
    for values in (restarts, phases, orders):
        assert len(set(values)) == len(drawn)
    assert restarts[0] == stream_seed(0, 0, "restarts")
    # and the runs themselves: the restart delays differ between the two seeds
    rows = {s: pgs.reproduce(runs=2, seed=s, scenarios=(1,), workers=1) for s in (0, 1)}
    spans = {s: {r["makespan_minutes"] for r in rows[s] if r.get("replicate") is not None}
             for s in (0, 1)}  # fmt: skip
    assert not spans[0] & spans[1]


def test_the_same_replicate_gives_both_schedulers_and_every_reading_the_same_draws() -> None:
    paper = pgs.replicate_inputs(pgs.READINGS["phases"], 2, 5, 3)
    implied = pgs.replicate_inputs(pgs.READINGS["implied"], 2, 5, 3)
    assert paper[1] == implied[1] and paper[2] == implied[2]
    assert [j.runtime - 1.375 for j in implied[0]] == [j.runtime for j in pgs.job_set(2, "sweeps")]


@pytest.mark.parametrize(
    ("reading", "scenario", "scheduler", "simpler"),
    [
        (pgs.Reading(order="sweeps"), 3, "pgs", pgs.Reading()),
        (pgs.Reading(phases="random"), 0, "fcfs", pgs.Reading()),
        (pgs.Reading(overhead=1.375, overhead_known=True), 2, "fcfs", pgs.Reading(overhead=1.375)),
        (pgs.Reading(pgs_order="shuffled", first_job="empty-queue"), 1, "fcfs", pgs.Reading()),
        (pgs.Reading(order="sweeps", pgs_order="increasing"), 3, "pgs", pgs.Reading()),
    ],
)
def test_runs_simulated_once_are_the_same_runs(
    reading: pgs.Reading, scenario: int, scheduler: str, simpler: pgs.Reading
) -> None:
    assert _effective(reading, scenario, scheduler) == simpler
    task = pgs.Task(scenario, scheduler, reading, 7, 1)
    assert pgs.run_once(task) == pgs.run_once(attrs.evolve(task, reading=simpler))
    kept = _effective(reading, 1, "pgs")
    assert kept == reading  # elsewhere each rule keeps the reading as it is


def test_the_implied_overhead_gives_the_papers_scenario_0() -> None:
    rows = pgs.reproduce(runs=1, scenarios=(0,), reading=pgs.READINGS["overhead"], workers=1)
    for r in rows:
        if "replicate" not in r:
            paper = pgs.PAPER_TABLE_2[(0, r["scheduler"])][0]
            assert abs(r["makespan_minutes"] - paper) < 0.1 if r["scheduler"] == "fcfs" else True
            assert r["makespan_minutes"] > 63


def test_an_unknown_overhead_makes_pgs_fail_and_a_known_one_does_not() -> None:
    unknown = pgs.run_once(pgs.Task(1, "pgs", pgs.READINGS["overhead"], 0, 0))
    known = pgs.run_once(pgs.Task(1, "pgs", pgs.READINGS["overhead-known"], 0, 0))
    assert unknown["failures"] > 0 and known["failures"] == 0


def test_paper_margins_come_from_table_2() -> None:
    margins = [pgs.paper_margin(s) for s in (1, 2, 3)]
    assert margins == sorted(margins)
    assert 0.8 < margins[0] < 0.9 and 2.9 < margins[2] < 3.0


def _rows(gains: dict[int, list[float]], **changes: Any) -> list[dict[str, Any]]:
    """Fabricated replicate rows: PGS takes 100 min, FCFS 100 (1 + gain / 100); a scenario
    given one value is one deterministic run."""
    rows = []
    for s, values in gains.items():
        for r, gain in enumerate(values):
            for k, minutes in (("pgs", 100.0), ("fcfs", 100.0 * (1 + gain / 100))):
                failures = 0 if k == "pgs" or s == 0 else 100 + s
                rows.append({"scenario": s, "scheduler": k, "reading": "paper", "main": True,
                             "replicate": r, "deterministic": len(values) == 1,
                             "makespan_minutes": minutes, "failures": failures,
                             "wasted_seconds": failures * 10.0 * s, "schedule": f"{k}{s}{r}",
                             **changes})  # fmt: skip
    return rows


def _verdicts(rows: list[dict[str, Any]], reading: str | None = None) -> dict[str, str]:
    return {c["key"]: c["verdict"] for c in claim_rows(pgs.claims(rows, reading=reading))}


NEAR = {0: [0.0], 1: [13.0, 13.6] * 3, 2: [27.0, 28.0] * 3, 3: [38.0, 39.2] * 3}
"""Gains near the paper's in every scenario; scenario 0 one deterministic run."""


def test_claims_follow_the_rows() -> None:
    assert all(c.estimate is None for c in pgs.claims([]))
    assert {c["verdict"] for c in claim_rows(pgs.claims([]))} == {"not run"}
    verdicts = _verdicts(_rows(NEAR))
    assert {k: v for k, v in verdicts.items() if v != "holds"} == {
        "overhead-same": "not testable"
    }, verdicts
    assert list(verdicts) == [c.key for c in pgs.claims([])]
    small = {0: [0.0], 1: [0.6, 0.8] * 3, 2: [2.7, 2.9] * 3, 3: [10.0, 12.0] * 3}
    verdicts = _verdicts(_rows(small))
    assert [k for k, v in verdicts.items() if v not in ("holds", "not testable")] == [
        "size-1", "size-2", "size-3"
    ]  # fmt: skip
    assert {verdicts[k] for k in ("size-1", "size-2", "size-3")} == {"does not hold"}
    # a claim whose scenario is missing is not run
    partial = claim_rows(pgs.claims(_rows({0: [0.0]})))
    assert [c["key"] for c in partial if c["verdict"] != "not run"] == [
        "sd-small", "overhead-same", "lower-bound"
    ]  # fmt: skip


def test_a_deterministic_scenario_is_one_run_judged_exactly_and_overhead_is_not_testable() -> None:
    claims = {c.key: c for c in pgs.claims(_rows(NEAR))}
    overhead = claims["overhead-same"]
    assert isinstance(overhead.estimate, NotTestable)
    assert "no time for a scheduling decision" in overhead.estimate.reason
    assert "deterministic: one run, n = 1" in overhead.ours
    bound = claims["lower-bound"].estimate
    assert isinstance(bound, Configurations)
    zero = dict(bound.parts)["scenario 0, PGS"]
    assert isinstance(zero, MeanEstimate) and zero.deterministic and zero.n == 1
    spread = dict(claims["sd-small"].estimate.parts)  # type: ignore[union-attr]
    assert spread["scenario 0, FCFS"] == MeanEstimate.once(0.0, "% of the mean")


def test_claims_over_several_scenarios_are_judged_per_scenario() -> None:
    """ "More efficient", growth, failures and lost work: one configuration per scenario (or
    per step between two), never the per-replicate smallest of several changes."""
    claims = {c.key: c for c in pgs.claims(_rows(NEAR))}
    for key, labels in (
        ("more-efficient", ["scenario 1", "scenario 2", "scenario 3"]),
        ("failures-more-frequent", ["scenario 1", "scenario 2", "scenario 3"]),
        ("grows-with-length", ["scenario 1 to 2", "scenario 2 to 3"]),
        ("lost-work-grows", ["scenario 1 to 2", "scenario 2 to 3"]),
    ):
        estimate = claims[key].estimate
        assert isinstance(estimate, Configurations) and estimate.quantifier == "every"
        assert [label for label, _ in estimate.parts] == labels
    units = {key: claims[key].estimate.unit for key in claims if claims[key].estimate  # type: ignore[union-attr]
             and not isinstance(claims[key].estimate, NotTestable)}  # fmt: skip
    assert units == {
        "more-efficient": "%", "size-1": "%", "size-2": "%", "size-3": "%",
        "grows-with-length": "percentage points", "failures-more-frequent": "failures per run",
        "lost-work-grows": "s per failure", "sd-small": "% of the mean", "lower-bound": "min",
    }  # fmt: skip
    # the gain shrinks in scenario 2 in every replicate: one scenario is enough to fail
    one_bad = {**NEAR, 2: [-1.0, -1.2] * 3}
    verdicts = _verdicts(_rows(one_bad))
    assert verdicts["more-efficient"] == "does not hold"
    assert verdicts["grows-with-length"] == "does not hold"


def test_a_scenario_where_pgs_and_fcfs_run_the_same_schedules_is_a_tie() -> None:
    """Identical schedules (from the rows' digests, not equal means) are no evidence either
    way: the scenario is a tie in the PGS-against-FCFS claims, shown and not counted."""
    rows = _rows({**NEAR, 2: [0.0] * 6})
    for r in rows:
        if r["scenario"] == 2:
            r["schedule"], r["failures"], r["wasted_seconds"] = "same", 0, 0.0
    claims = {c.key: c for c in pgs.claims(rows)}
    for key in ("more-efficient", "failures-more-frequent"):
        parts = dict(claims[key].estimate.parts)  # type: ignore[union-attr]
        assert parts["scenario 2"] == Tie(), key
        assert not any(isinstance(p, Tie) for s, p in parts.items() if s != "scenario 2")
    assert _verdicts(rows)["more-efficient"] == "holds"
    # equal means on different schedules are not a tie
    equal = _rows({**NEAR, 2: [0.0] * 6})
    parts = dict(pgs.claims(equal)[0].estimate.parts)  # type: ignore[union-attr]
    assert isinstance(parts["scenario 2"], MeanEstimate)


def test_claims_are_judged_on_the_chosen_reading_and_carry_the_others() -> None:
    good = {0: [0.0], 1: [1.0, 1.2] * 2, 2: [3.0, 3.2] * 2, 3: [10.0, 10.4] * 2}
    worse = {0: [0.0], 1: [1.0, 1.2] * 2, 2: [-3.0, -3.2] * 2, 3: [10.0, 10.4] * 2}
    rows = _rows(good) + _rows(worse, reading="other", main=False)
    assert _verdicts(rows)["more-efficient"] == "holds"
    assert _verdicts(rows, reading="other")["more-efficient"] == "does not hold"
    row = next(c for c in claim_rows(pgs.claims(rows)) if c["key"] == "more-efficient")
    assert row["verdict"] == "holds" and row["verdict (other)"] == "does not hold"


def test_a_wide_spread_breaks_the_standard_deviation_claim() -> None:
    rows = _rows({1: [1.0, 1.1] * 4, 2: [3.0, 3.1] * 4, 3: [9.0] * 8})
    for r in rows:  # FCFS in scenario 3 swings by ±20 % from replicate to replicate
        if r["scenario"] == 3 and r["scheduler"] == "fcfs":
            r["makespan_minutes"] *= 0.8 if r["replicate"] % 2 else 1.2
    sd = next(c for c in claim_rows(pgs.claims(rows)) if c["key"] == "sd-small")
    assert sd["verdict"] == "does not hold"
    assert "scenario 3, FCFS: does not hold" in sd["ours"]
    assert "largest sample standard deviation: 21" in sd["ours"] and "%²" not in sd["ours"]


def test_cli_json_has_one_record_per_scenario_and_scheduler(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    image = tmp_path / "pgs.png"
    code = cli(
        ["reproduce", "pgs", "--runs", "2", "--readings", "none", "--workers", "1",
         "--format", "json", "--plot", str(image)]
    )  # fmt: skip
    assert code == 0
    records = json.loads(capsys.readouterr().out)
    assert [(r["scenario"], r["scheduler"]) for r in records] == [
        (s, p) for s in range(4) for p in ("pgs", "fcfs")
    ]
    for r in records:
        assert {"makespan_minutes", "failures", "wasted_seconds", "runs", "reading"} <= set(r)
        assert r["lower_bound_minutes"] == 60.25 and r["reading"] == "paper"
    pgs_rows = {r["scenario"]: r for r in records if r["scheduler"] == "pgs"}
    differences = [pgs_rows[s]["difference_percent"] for s in (1, 2, 3)]
    assert differences == sorted(differences) and differences[0] > 0
    assert image.stat().st_size > 0


def test_cli_runs_a_chosen_reading_and_judges_it(capsys) -> None:  # type: ignore[no-untyped-def]
    argv = ["reproduce", "pgs", "--runs", "2", "--readings", "none", "--workers", "1",
            "--order", "sweeps", "--overhead", "1.375", "--overhead-known",
            "--phases", "random"]  # fmt: skip
    assert cli([*argv, "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert {r["reading"] for r in records} == {"implied"}
    assert cli([*argv, "--claims"]) == 0
    out = capsys.readouterr().out
    assert "implied reading" in out and "10. " in out


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--runs", "0"], "argument --runs: must be an integer >= 1, got 0"),
        (["--queue-length", "0"], "argument --queue-length: must be an integer >= 1, got 0"),
        (["--overhead", "-1"], "argument --overhead: must be a finite number >= 0, got -1"),
        (["--workers", "0"], "argument --workers: must be an integer >= 1, got 0"),
        (["--pgs-order", "sorted"], "argument --pgs-order: invalid choice: 'sorted'"),
    ],
)
def test_cli_refuses_bad_options_at_parse_time_in_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], said: str
) -> None:
    with pytest.raises(SystemExit) as stop:
        cli(["reproduce", "pgs", *argv])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1, err


def test_readings_are_named_and_distinct() -> None:
    assert pgs.READINGS["paper"] == pgs.PAPER_READING == pgs.Reading()
    assert len(set(pgs.READINGS.values())) == len(pgs.READINGS)
    assert pgs.reading_name(attrs.evolve(pgs.PAPER_READING, phases="random")) == "phases"


def test_every_scenario_claims_fail_when_one_scenario_breaks_them() -> None:
    base = {1: [1.0, 1.2] * 3, 2: [3.0, 3.2] * 3, 3: [10.0, 10.4] * 3}
    rows = _rows(base)
    for r in rows:  # scenario 2: PGS fails more often than FCFS, and FCFS loses less per failure
        if r["scenario"] == 2 and r["scheduler"] == "pgs":
            r["failures"] = 500
        if r["scheduler"] == "fcfs" and r["scenario"]:
            r["failures"] = {1: 100, 2: 300, 3: 900}[r["scenario"]]
            r["wasted_seconds"] = r["failures"] * {1: 30.0, 2: 20.0, 3: 10.0}[r["scenario"]]
    verdicts = {c["key"]: c["verdict"] for c in claim_rows(pgs.claims(rows))}
    assert verdicts["failures-more-frequent"] == "does not hold"
    # the work lost in all grows (3000, 6000, 9000 s), but not the work lost per failure
    assert verdicts["lost-work-grows"] == "does not hold"
    assert verdicts["more-efficient"] == verdicts["grows-with-length"] == "holds"


def _grid(execution: Execution) -> list[dict[str, Any]]:
    """A small grid: scenarios 0 and 3, two replicates, the main reading and `pgs-shuffled`."""
    return pgs.reproduce(runs=2, scenarios=(0, 3), compare=["pgs-shuffled"], execution=execution)


OPTIONS = {"runs": 2, "scenarios": [0, 3], "readings": ["pgs-shuffled"]}


def test_the_rows_are_the_same_on_one_process_local_processes_and_a_dask_cluster() -> None:
    alone = _grid(Execution(workers=1))
    assert _grid(Execution(workers=2)) == alone
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        assert _grid(Execution(executor=client.get_executor())) == alone


def test_rows_resumed_after_two_interruptions_are_the_uninterrupted_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alone = _grid(Execution(workers=1))
    path = tmp_path / "runs.jsonl"
    resumed = Execution(workers=1, resume=str(path), options=OPTIONS, name="pgs")
    real = runs.run_once
    mixed = pgs.Reading(pgs_order="shuffled")
    keys = [repr(pgs.Task(3, "fcfs", pgs.Reading(), 0, 1)), repr(pgs.Task(3, "pgs", mixed, 0, 0))]
    failing = set(keys)
    calls: list[str] = []

    def interrupted(task: pgs.Task) -> dict[str, Any]:
        calls.append(repr(task))
        if repr(task) in failing:
            raise MemoryError("the machine ran out of memory")
        return real(task)

    monkeypatch.setattr(runs, "run_once", interrupted)
    with pytest.raises(RunFailedError):
        _grid(resumed)
    first = len(read_resume_file(path).results)
    failing.discard(keys[1])  # PGS runs cost more: they run, and fail, first
    with pytest.raises(RunFailedError):
        _grid(resumed)
    assert first < len(read_resume_file(path).results)
    failing.clear()
    calls.clear()
    assert _grid(resumed) == alone
    assert 1 <= len(calls) < len(read_resume_file(path).results)  # only what had not finished
    with pytest.raises(InvalidValueError, match="runs = 2 there, 3 here"):
        _grid(attrs.evolve(resumed, options={**OPTIONS, "runs": 3}))


def test_the_conclusion_spans_the_readings_where_pgs_takes_the_jobs_smallest_first() -> None:
    """The page's conclusion quotes the range of PGS's scenario-3 runtimes over the readings in
    which PGS takes the jobs in increasing order (or sweeps), and the idle minutes of the
    three shortest-uptime resources, all from the documented rows."""
    from schedlib.experiments import documented
    from schedlib.experiments.pgs.page import _conclusion, _idle_numbers, _pgs_increasing

    full = documented.load("pgs")
    assert full is not None
    rows = full["rows"]
    summary = {(r["reading"], r["scenario"], r["scheduler"]): r for r in rows
               if "replicate" not in r}  # fmt: skip
    smallest_first = [n for n in pgs.READINGS if _pgs_increasing(n)]
    assert "pgs-shuffled" not in smallest_first and "sweeps" in smallest_first
    spans = [summary[(n, 3, "pgs")]["makespan_minutes"] for n in smallest_first]
    text = _conclusion(rows, full["claims"])
    assert f"scenario 3 takes {min(spans):.2f}-{max(spans):.2f} min" in text
    idle = _idle_numbers(rows, "paper")
    assert idle["short"] == pytest.approx(sum(summary[("paper", 3, "pgs")]["idle_minutes"][:3]))
    assert f"{idle['short']:.0f} are on the 84, 117 and 163 s resources" in text
    assert "±" not in text  # standard deviations are written "sd" on the page
