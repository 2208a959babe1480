"""The PFS / MFS experiment (the CSS 600 term report): rows, determinism, workers, CLI, plots."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schedlib.cli import main as cli
from schedlib.errors import InvalidValueError
from schedlib.experiments.frequency import (
    POOL,
    QUICK_SHAPE,
    WorkloadShape,
    make_workload,
    plot_comparison,
    plot_sweep,
    reproduce,
    sweep,
)
from schedlib.frequency import POLICIES, JobKind, simulate_pool
from schedlib.testing.invariants import check_pool_run

TINY = WorkloadShape(interactive=4, cpu_bound=3, horizon=40.0, cpu_work=(5.0, 15.0))


def test_the_workload_is_documented_and_reproducible() -> None:
    jobs = make_workload(0)
    interactive = [j for j in jobs if j.kind is JobKind.INTERACTIVE]
    cpu = [j for j in jobs if j.kind is JobKind.CPU_BOUND]
    assert (len(interactive), len(cpu)) == (40, 30)
    assert all(5 <= j.bursts <= 15 for j in interactive)
    assert all(20 <= j.work[0] <= 120 and j.bursts == 1 for j in cpu)
    assert all(0 <= j.submit < 600 for j in jobs)
    assert [j.submit for j in jobs] == sorted(j.submit for j in jobs)
    morphing = [j for j in interactive if max(j.work) >= 10]
    assert 2 <= len(morphing) <= 16  # about one in five
    assert make_workload(0) == jobs != make_workload(1)
    assert POOL[0].speed == 1 and max(n.speed for n in POOL) == POOL[-1].speed == 2


def test_every_policy_passes_its_checkers_on_the_workload() -> None:
    jobs = make_workload(4, QUICK_SHAPE)
    for policy in POLICIES:
        check_pool_run(simulate_pool(jobs, POOL, policy=policy, quantum=1, seed=4), POOL)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"interactive": -1}, "WorkloadShape.interactive"),
        ({"bursts": (3, 2)}, "WorkloadShape.bursts"),
        ({"cpu_work": (0.0, 5.0)}, "WorkloadShape.cpu_work"),
    ],
)
def test_shape_is_validated(kwargs: dict[str, object], name: str) -> None:
    with pytest.raises(InvalidValueError, match=name):
        WorkloadShape(**kwargs)  # type: ignore[arg-type]


def test_one_row_per_policy_and_seed_plus_one_aggregate() -> None:
    rows = reproduce(seeds=2, shape=TINY, workers=1)
    assert [(r["policy"], r["seed"]) for r in rows] == [
        (p, s) for p in POLICIES for s in (0, 1, "mean")
    ]
    for policy in POLICIES:
        seeds = [r for r in rows if r["policy"] == policy and r["seed"] != "mean"]
        mean = next(r for r in rows if r["policy"] == policy and r["seed"] == "mean")
        assert mean["cpu_turnaround"] == pytest.approx(sum(r["cpu_turnaround"] for r in seeds) / 2)
        assert mean["cpu_turnaround_sd"] >= 0
    fcfs = [r for r in rows if r["policy"] == "fcfs"]
    assert all(r["preemptions"] == r["migrations"] == 0 for r in fcfs)


def test_results_do_not_depend_on_the_number_of_workers() -> None:
    assert reproduce(seeds=3, shape=TINY, workers=1) == reproduce(seeds=3, shape=TINY, workers=2)
    small = {"seeds": 2, "shape": TINY, "quanta": (1.0,), "max_mfs": (0, 3)}
    assert sweep(workers=1, **small) == sweep(workers=2, **small)  # type: ignore[arg-type]


def test_sweep_compares_pfs_mfs_with_pfs_paired() -> None:
    rows = sweep(seeds=2, shape=TINY, quanta=(1.0, 2.0), max_mfs=(0, 4), workers=1)
    assert [(r["quantum"], r["max_mf"]) for r in rows] == [(1, 0), (1, 4), (2, 0), (2, 4)]
    for row in rows:
        assert row["policy"] == "pfs+mfs" and row["seed"] == "mean"
        assert row["verdict"] in {"holds", "breaks", "unclear"}
        change = 100 * (row["cpu_turnaround"] / row["pfs_cpu_turnaround"] - 1)
        assert row["cpu_change_pct"] == pytest.approx(change)
    assert rows[0]["banned"] > 0  # MAX_MF = 0: every job sent on is banned
    with pytest.raises(InvalidValueError, match="quanta"):
        sweep(seeds=1, shape=TINY, quanta=(), workers=1)


def test_bad_parameters_are_refused_before_running() -> None:
    with pytest.raises(InvalidValueError, match="seeds = 0"):
        reproduce(seeds=0, shape=TINY)
    with pytest.raises(InvalidValueError, match="policy = 'sjf'"):
        reproduce(seeds=1, shape=TINY, policies=("sjf",))
    with pytest.raises(InvalidValueError, match="max_preemption = 0"):
        reproduce(seeds=1, shape=TINY, max_preemption=0, workers=1)


def test_cli_json_has_one_record_per_policy_and_seed_or_aggregate(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli(["reproduce", "frequency", "--quick", "--seeds", "1", "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [(r["policy"], r["seed"]) for r in records] == [
        (p, s) for p in POLICIES for s in (0, "mean")
    ]


def test_cli_sweep_csv_and_table(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["reproduce", "frequency", "--quick", "--seeds", "1", "--sweep", "--quanta", "1"]
    assert cli([*args, "--max-mfs", "0,2", "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("policy,seed,quantum,max_mf,") and len(lines) == 2
    assert cli([*args, "--max-mfs", "2"]) == 0
    assert "verdict" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--seeds", "0"], "seeds = 0"),
        (["--quantum", "0"], "PfsParameters.quantum = 0.0"),
        (["--grace", "0.5"], "PfsParameters.grace = 0.5"),
        (["--max-mf", "-1"], "MfsParameters.max_mf = -1"),
        (["--kc", "-1"], "MigrationCost.communication = -1.0"),
        (["--morph-share", "2"], "--morph-share = 2.0"),
        (["--sweep", "--max-mfs", "1,x"], "--max-mfs = '1,x'"),
        (["--workers", "0"], "workers = 0"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(
    option: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(["reproduce", "frequency", "--quick", *option]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_plots(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    rows = reproduce(seeds=2, shape=TINY, workers=1)
    plot_comparison(rows, str(tmp_path / "bars.png"))
    grid = sweep(seeds=2, shape=TINY, quanta=(1.0, 2.0), max_mfs=(0, 2), workers=1)
    plot_sweep(grid, str(tmp_path / "grid.png"))
    for name in ("bars.png", "grid.png"):
        assert (tmp_path / name).read_bytes()[:4] == b"\x89PNG"
