"""The Mine et al. (2007) reproduction: rows, determinism, CLI, plot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schedlib.cli import main as cli
from schedlib.errors import InvalidValueError
from schedlib.experiments.deferment import (
    ExperimentSettings,
    algorithms,
    plot,
    reproduce,
    run_trial,
)

SMALL = ExperimentSettings(trials=2, jobs=3, tasks=6, processors=4, intervals=(100, 2000))


def test_paper_defaults() -> None:
    settings = ExperimentSettings()
    assert (settings.trials, settings.jobs, settings.tasks, settings.processors) == (
        200,
        8,
        128,
        32,
    )
    assert settings.intervals == (500, 1000, 2000, 4000)
    assert settings.bounds == (1, 2, 4, 8)
    assert settings.task_size == (2_000_000, 6_000_000)
    assert settings.peaks == (10_000, 20_000, 40_000)
    assert len(algorithms(settings)) == 10


def test_one_row_per_algorithm_bound_and_interval() -> None:
    rows = reproduce(SMALL, workers=1)
    assert len(rows) == 10 * 2
    keys = {(r["algorithm"], r["bound"], r["interval"]) for r in rows}
    assert len(keys) == 20
    for row in rows:
        assert row["trials"] == 2
        assert row["total"] == pytest.approx(row["computation"] + row["waiting"])
        if row["bound"] is not None:
            assert row["overtaking_jobs"] == 0 == row["overtaking_trials"]


def test_trials_are_measured_per_job() -> None:
    rows = run_trial((SMALL, 0))
    assert len(rows) == 20
    for row in rows:
        assert row["computation"] > 0 and row["waiting"] >= 0 and row["total_std"] >= 0


def test_results_do_not_depend_on_the_number_of_workers() -> None:
    settings = ExperimentSettings(trials=3, jobs=2, tasks=4, processors=3, intervals=(50,))
    assert reproduce(settings, workers=1) == reproduce(settings, workers=2)


def test_seed_changes_the_draws() -> None:
    settings = ExperimentSettings(trials=1, jobs=2, tasks=4, processors=3, intervals=(50,))
    other = ExperimentSettings(trials=1, jobs=2, tasks=4, processors=3, intervals=(50,), seed=1)
    assert reproduce(settings, workers=1) != reproduce(other, workers=1)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"bounds": (1, 0)}, "B"),
        ({"trials": 0}, "ExperimentSettings.trials"),
        ({"intervals": ()}, "ExperimentSettings.intervals"),
        ({"intervals": (-5,)}, "ExperimentSettings.intervals"),
        ({"task_size": (5, 1)}, "ExperimentSettings.task_size"),
    ],
)
def test_settings_are_validated(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidValueError) as error:
        ExperimentSettings(**kwargs)  # type: ignore[arg-type]
    assert error.value.field == field


def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli(
        [
            "reproduce",
            "deferment",
            "--trials",
            "1",
            "--jobs",
            "2",
            "--intervals",
            "300",
            "--bounds",
            "2",
            "--workers",
            "1",
            "--format",
            "json",
        ]
    )
    assert code == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["algorithm"], r["bound"]) for r in rows] == [
        ("fifo", None),
        ("fifo", 2),
        ("round_robin", None),
        ("round_robin", 2),
    ]
    assert {"computation", "waiting", "total", "total_std", "overtaking_jobs"} <= set(rows[0])


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--bounds", "1,0"], "B = 0"),
        (["--workers", "0"], "--workers"),
        (["--trials", "0"], "trials"),
    ],
)
def test_cli_bad_values_exit_2(
    arguments: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(["reproduce", "deferment", *arguments]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_cli_bad_syntax_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli(["reproduce", "deferment", "--bounds", "one"])
    assert exit_.value.code == 2
    assert "comma-separated integers" in capsys.readouterr().err


def test_plot(tmp_path: Path) -> None:
    rows = reproduce(ExperimentSettings(trials=1, jobs=2, tasks=3, processors=2), workers=1)
    target = tmp_path / "deferment.png"
    plot(rows, str(target))
    assert target.stat().st_size > 1000
