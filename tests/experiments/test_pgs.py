"""The reproduction of Verboven et al. (2008) §4 (Table 2) and its command line."""

from __future__ import annotations

import json

import pytest

from schedlib.cli import main as cli
from schedlib.errors import InvalidValueError
from schedlib.experiments import pgs


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
    shuffled = pgs.job_set(number, "shuffled", seed=1)
    assert sorted(j.runtime for j in shuffled) == runtimes
    assert shuffled == pgs.job_set(number, "shuffled", seed=1) != pgs.job_set(number, "shuffled")


def test_lower_bound_is_60_minutes_15_seconds() -> None:
    assert pgs.LOWER_BOUND_MINUTES * 60 == 60 * 60 + 15


def test_bad_experiment_inputs() -> None:
    with pytest.raises(InvalidValueError, match="job set"):
        pgs.job_set(4)
    with pytest.raises(InvalidValueError, match="order"):
        pgs.job_set(1, "random")
    with pytest.raises(InvalidValueError, match="scenario"):
        pgs.reproduce(scenarios=(5,))
    with pytest.raises(InvalidValueError, match="runs"):
        pgs.reproduce(runs=0)


def test_resources_follow_table_1() -> None:
    resources = pgs.paper_resources()
    assert [r.planned.uptime(0) for r in resources] == [84, 117, 163, 228, 318, 443, 619, 864]
    assert all(r.planned.downtime(0) == 1 and r.restart.mean == 0.2 for r in resources)
    assert all(r.planned.longest_uptime == float("inf") for r in pgs.paper_resources(False))


def test_scenario_0_reaches_the_lower_bound_and_pgs_never_fails() -> None:
    rows = pgs.reproduce(runs=2, scenarios=(0, 3), workers=1)
    by = {(r["scenario"], r["scheduler"]): r for r in rows}
    assert set(by) == {(0, "pgs"), (0, "fcfs"), (3, "pgs"), (3, "fcfs")}
    for scheduler in ("pgs", "fcfs"):
        zero = by[(0, scheduler)]
        assert zero["runs"] == 1 and zero["failures"] == 0  # no randomness, no restart
        assert pgs.LOWER_BOUND_MINUTES <= zero["makespan_minutes"] < 61
    assert by[(3, "pgs")]["failures"] == by[(3, "pgs")]["wasted_seconds"] == 0
    assert by[(3, "fcfs")]["failures"] > 0 and by[(3, "fcfs")]["wasted_seconds"] > 0
    assert by[(3, "pgs")]["makespan_minutes"] < by[(3, "fcfs")]["makespan_minutes"]
    assert by[(3, "pgs")]["runs"] == 2
    assert by[(3, "pgs")]["paper_minutes"] == 87.88
    difference = by[(3, "pgs")]["difference_percent"]
    assert difference == by[(3, "fcfs")]["difference_percent"] > 0
    assert all(r["abandoned"] == r["unschedulable"] == 0 for r in rows)


def test_cli_json_has_one_record_per_scenario_and_scheduler(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    image = tmp_path / "pgs.png"
    code = cli(
        ["reproduce", "pgs", "--runs", "1", "--workers", "1", "--format", "json",
         "--plot", str(image)]
    )  # fmt: skip
    assert code == 0
    records = json.loads(capsys.readouterr().out)
    assert [(r["scenario"], r["scheduler"]) for r in records] == [
        (s, p) for s in range(4) for p in ("pgs", "fcfs")
    ]
    for r in records:
        assert {"makespan_minutes", "failures", "wasted_seconds", "runs"} <= set(r)
        assert r["lower_bound_minutes"] == 60.25
    # The paper's claims: PGS never worse beyond noise, advantage grows with job length.
    pgs_rows = {r["scenario"]: r for r in records if r["scheduler"] == "pgs"}
    differences = [pgs_rows[s]["difference_percent"] for s in (1, 2, 3)]
    assert differences == sorted(differences) and differences[0] > 0
    assert image.stat().st_size > 0


def test_cli_rejects_bad_options(capsys) -> None:  # type: ignore[no-untyped-def]
    assert cli(["reproduce", "pgs", "--runs", "0"]) == 2
    assert "runs = 0: must be >= 1" in capsys.readouterr().err
    assert cli(["reproduce", "pgs", "--queue-length", "0", "--runs", "1"]) == 2
    assert "queue_length = 0" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli(["reproduce", "pgs", "--order", "sorted"])
