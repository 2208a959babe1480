"""The PFS / MFS experiment (the CSS 600 term report): replicates, rows, claims, CLI, plots."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from schedlib.cli import main as cli
from schedlib.errors import InvalidValueError
from schedlib.experiments import frequency as experiment
from schedlib.experiments.catalog import parse_options
from schedlib.experiments.claims import claim_rows
from schedlib.experiments.frequency import (
    HYPOTHESIS,
    POOL,
    TINY_SHAPE,
    Settings,
    claims,
    conjunction,
    make_workload,
    reading_groups,
    reproduce,
    run_one,
    runs,
)
from schedlib.experiments.options import apply_quick
from schedlib.experiments.running import Execution
from schedlib.frequency import POLICIES, JobKind, Readings, simulate_pool
from schedlib.replicates import stream_seed
from schedlib.testing.invariants import check_pool_run

TINY = Settings(
    replicates=3,
    shape=TINY_SHAPE,
    readings=(Readings(), Readings("last-node", "literal", "local-mf")),
    quanta=(1.0, 2.0),
    max_mfs=(0, 4),
    sweep_readings=(Readings(),),
)


@pytest.fixture(scope="module")
def tiny_rows() -> list[dict[str, object]]:
    return reproduce(TINY, Execution(workers=1))


def test_the_workload_is_documented_and_reproducible() -> None:
    jobs = make_workload(0, 0)
    interactive = [j for j in jobs if j.kind is JobKind.INTERACTIVE]
    cpu = [j for j in jobs if j.kind is JobKind.CPU_BOUND]
    assert (len(interactive), len(cpu)) == (40, 30)
    assert all(5 <= j.bursts <= 15 for j in interactive)
    assert all(20 <= j.work[0] <= 120 and j.bursts == 1 for j in cpu)
    assert all(0 <= j.submit < 600 for j in jobs)
    assert [j.submit for j in jobs] == sorted(j.submit for j in jobs)
    morphing = [j for j in interactive if max(j.work) >= 10]
    assert 2 <= len(morphing) <= 16  # about one in five
    assert make_workload(0, 0) == jobs != make_workload(0, 1)
    assert POOL[0].speed == 1 and max(n.speed for n in POOL) == POOL[-1].speed == 2


def test_two_seeds_share_no_replicate() -> None:
    """`--seed 0` and `--seed 1` draw 40 replicates each: no workload, no tie stream twice."""
    workloads = [make_workload(s, r, TINY_SHAPE) for s in (0, 1) for r in range(40)]
    assert len(set(workloads)) == 80
    ties = {stream_seed(s, r, "ties") for s in (0, 1) for r in range(40)}
    assert len(ties) == 80


@pytest.mark.parametrize("readings", Readings.every(), ids=lambda r: r.label)
def test_every_policy_passes_every_checker_on_the_experiments_workload(readings: Readings) -> None:
    """Float times (ms works, rates 0.5 to 1.5) on the pool of the experiment."""
    jobs = make_workload(4, 0, experiment.WorkloadShape(interactive=12, cpu_bound=8, horizon=150))
    for policy in POLICIES:
        record = simulate_pool(
            jobs, POOL, policy=policy, quantum=1, max_mf=2, readings=readings, seed=4
        )
        check_pool_run(record, POOL)


def test_rows_one_per_configuration_and_replicate_then_an_aggregate(
    tiny_rows: list[dict[str, object]],
) -> None:
    compare = [r for r in tiny_rows if r["part"] == "compare"]
    configs = [
        ("pfs", "head-node/always/-"),
        ("pfs", "last-node/literal/-"),
        ("pfs+mfs", "head-node/always/availability"),
        ("pfs+mfs", "last-node/literal/local-mf"),
        ("round_robin", "-"),
        ("fcfs", "-"),
    ]
    assert [(r["policy"], r["readings"], r["replicate"]) for r in compare] == [
        (*c, r) for c in configs for r in (0, 1, 2, "mean")
    ]
    for policy, readings in configs:
        mine = [r for r in compare if (r["policy"], r["readings"]) == (policy, readings)]
        mean = mine[-1]
        cpu = [float(r["cpu_turnaround"]) for r in mine[:-1]]  # type: ignore[arg-type]
        assert mean["cpu_turnaround"] == pytest.approx(sum(cpu) / 3)
        assert mean["replicates"] == 3 and mean["seed"] == 0
    fcfs = [r for r in compare if r["policy"] == "fcfs"]
    assert all(r["preemptions"] == r["migrations"] == 0 for r in fcfs)


def test_a_row_is_its_runs_measures(tiny_rows: list[dict[str, object]]) -> None:
    row = next(r for r in tiny_rows if r["policy"] == "pfs+mfs" and r["replicate"] == 1)
    run = TINY.run("pfs+mfs", 1, Readings())
    assert {k: row[k] for k in run_one(run)} == run_one(run)
    assert isinstance(row["schedule"], str) and len(row["schedule"]) == 16


def test_sweep_rows_are_judged_together_and_agree_with_their_estimates(
    tiny_rows: list[dict[str, object]],
) -> None:
    sweep = [r for r in tiny_rows if r["part"] == "sweep"]
    assert [(r["readings"], r["quantum"], r["max_mf"]) for r in sweep] == [
        ("head-node/always/availability", q, m) for q in (1.0, 2.0) for m in (0, 4)
    ]
    for row in sweep:
        parts = [row[f"{key}_verdict"] for key, *_ in HYPOTHESIS]
        assert row["verdict"] == conjunction(parts)  # type: ignore[arg-type]
        assert all(v in ("holds", "does not hold", "inconclusive") for v in parts)
        assert row["banned"] >= 0  # type: ignore[operator]
    zero = next(r for r in sweep if r["max_mf"] == 0 and r["quantum"] == 1.0)
    assert zero["banned"] > 0  # type: ignore[operator]  # MAX_MF = 0: every job sent is banned


def test_claims_of_no_rows_are_every_claim_not_run() -> None:
    empty = claim_rows(claims([]))
    assert [r["key"] for r in empty] == [
        "pfs-interactive-vs-batch",
        "pfs-interactive-vs-round-robin",
        "mfs-cpu",
        "mfs-response",
        "mfs-short",
    ]
    assert {r["verdict"] for r in empty} == {"not run"}
    assert set(experiment.QUICK_DIFFERS) <= {r["key"] for r in empty}


def test_one_row_per_claim_with_a_verdict_per_reading(tiny_rows: list[dict[str, object]]) -> None:
    judged = {r["key"]: r for r in claim_rows(claims(tiny_rows))}
    assert len(judged) == 5
    assert judged["pfs-interactive-vs-batch"]["ours"].endswith("(n = 3)")
    other = "verdict (last-node/literal/local-mf)"
    assert all(r["verdict"] != "not run" and r[other] != "not run" for r in judged.values())
    assert not any(k.startswith("verdict (head-node/literal") for k in judged["mfs-cpu"])
    assert "3 replicates of seed 0" in judged["mfs-cpu"]["data"]
    assert "make_workload" not in judged["mfs-cpu"]["data"]
    assert judged["mfs-response"]["expected"].startswith("within [-5, 5] %")


def _with_readings(
    rows: list[dict[str, object]], copies: dict[str, str]
) -> list[dict[str, object]]:
    """`rows` and, for each `label: source`, the pfs+mfs rows of `source` again as `label`."""
    extra = [
        {**r, "readings": label}
        for label, source in copies.items()
        for r in rows
        if r["part"] == "compare" and r["policy"] == "pfs+mfs" and r["readings"] == source
    ]
    return [*rows, *extra]


def test_readings_with_identical_runs_are_said_once(tiny_rows: list[dict[str, object]]) -> None:
    """A reading whose runs are another's is one column named by both; one whose runs are the
    default's is no column at all; the same PFS+MFS runs beside another PFS are not the same."""
    rows = _with_readings(
        tiny_rows,
        {
            "head-node/always/local-mf": "head-node/always/availability",
            "last-node/always/local-mf": "last-node/literal/local-mf",
        },
    )
    groups = reading_groups(rows)
    assert groups[0] == ["head-node/always/availability", "head-node/always/local-mf"]
    measured = claims(rows)
    columns = [name for name, _ in measured[2].readings]
    assert not any("head-node/always/local-mf" in name for name in columns)
    assert "head-node/always/local-mf run as the default" in measured[2].data
    # last-node/always/local-mf is compared with pfs under last-node/always, which TINY
    # did not run: no digest to match, so it is no group of last-node/literal/local-mf's
    assert ["last-node/literal/local-mf"] in groups
    rows = _with_readings(
        tiny_rows, {"last-node/literal/availability": "last-node/literal/local-mf"}
    )
    assert ["last-node/literal/availability", "last-node/literal/local-mf"] in reading_groups(rows)
    columns = [name for name, _ in claims(rows)[2].readings]
    assert columns == ["last-node/literal/availability = last-node/literal/local-mf"]


def test_identical_schedules_are_a_tie(tiny_rows: list[dict[str, object]]) -> None:
    """PFS+MFS rows replaced by PFS's own (the same schedules): every MFS claim is a tie."""
    pfs = {
        r["replicate"]: r
        for r in tiny_rows
        if r["part"] == "compare" and r["policy"] == "pfs" and r["readings"] == "head-node/always/-"
    }
    rows = [
        {**pfs[r["replicate"]], "policy": "pfs+mfs", "readings": r["readings"]}
        if r["part"] == "compare"
        and r["policy"] == "pfs+mfs"
        and r["readings"] == "head-node/always/availability"
        else r
        for r in tiny_rows
    ]
    judged = {r["key"]: r for r in claim_rows(claims(rows))}
    assert {judged[f"mfs-{key}"]["verdict"] for key, *_ in HYPOTHESIS} == {"tie"}
    assert judged["mfs-cpu"]["ours"] == "tie: identical schedules in every replicate"


def test_rows_are_the_same_on_any_executor_and_resumed(
    rows_the_same_everywhere: Callable[..., None],
) -> None:
    """One process, two, a dask LocalCluster, and two interrupted sittings then a third."""
    settings = Settings(
        replicates=2,
        shape=TINY_SHAPE,
        readings=(Readings(),),
        quanta=(1.0, 2.0),
        max_mfs=(0,),
        sweep_readings=(Readings(),),
    )
    rows_the_same_everywhere(
        reproduce,
        settings,
        module=runs,
        function="run_one",
        fails=lambda run: run.policy == "fcfs" and run.replicate == 1,
        then_fails=lambda run: run.quantum == 2.0 and run.policy == "pfs+mfs",
    )


def test_bad_settings_are_refused_before_running() -> None:
    with pytest.raises(InvalidValueError, match="replicates = 0"):
        Settings(replicates=0)
    alone = Execution(workers=1)
    with pytest.raises(InvalidValueError, match="max_preemption = 0"):
        reproduce(Settings(replicates=1, shape=TINY_SHAPE, max_preemption=0), alone)
    with pytest.raises(InvalidValueError, match="readings"):
        reproduce(Settings(replicates=1, shape=TINY_SHAPE, readings=()), alone)
    with pytest.raises(InvalidValueError, match="quanta"):
        reproduce(Settings(replicates=1, shape=TINY_SHAPE, quanta=()), alone)


def test_data_names_the_workload_the_replicates_and_the_sweep() -> None:
    args = parse_options("frequency", {"quick": True})
    apply_quick(args)
    text = experiment.data(args)
    assert "40 interactive and 30 CPU-bound jobs over 600 s" in text
    assert "15 replicates (seed 0, replicates 0..14)" in text
    assert "sweep over Q in {1} x MAX_MF in {0, 4}" in text


def test_cli_json_has_every_row(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "reproduce",
        "frequency",
        "--replicates",
        "2",
        "--readings",
        "head-node/always/availability",
    ]
    argv += ["--sweep-readings", "none", "--workers", "1", "--format", "json"]
    assert cli(argv) == 0
    records = json.loads(capsys.readouterr().out)
    assert [(r["policy"], r["replicate"]) for r in records] == [
        (p, r) for p in ("pfs", "pfs+mfs", "round_robin", "fcfs") for r in (0, 1, "mean")
    ]


def test_cli_table_shows_the_sweep_the_aggregates_and_the_claims(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = [
        "reproduce",
        "frequency",
        "--replicates",
        "2",
        "--readings",
        "head-node/always/availability",
    ]
    argv += ["--quanta", "1", "--max-mfs", "0", "--workers", "1"]
    assert cli(argv) == 0
    out = capsys.readouterr().out
    assert "cpu_change_pct" in out and "verdict" in out and "rule:" in out
    assert "pfs-interactive-vs-batch" not in out  # keys are for machines; the text is shown
    assert "Hypothesis" in out


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--replicates", "0"], "argument --replicates: must be an integer >= 1, got 0"),
        (["--seed", "-1"], "argument --seed: must be an integer >= 0, got -1"),
        (["--quantum", "-1"], "argument --quantum: must be a finite number > 0, got -1"),
        (["--quantum", "0"], "argument --quantum: must be a finite number > 0, got 0"),
        (["--grace", "0.5"], "argument --grace: must be a finite number >= 1, got 0.5"),
        (["--max-mf", "-1"], "argument --max-mf: must be an integer >= 0, got -1"),
        (["--max-preemption", "0"], "argument --max-preemption: must be an integer >= 1, got 0"),
        (["--kc", "-1"], "argument --kc: must be a finite number >= 0, got -1"),
        (["--kcr", "nan"], "argument --kcr: must be a finite number >= 0, got nan"),
        (["--morph-share", "2"], "argument --morph-share: must be a finite number >= 0 and <= 1"),
        (["--quanta", "1,0"], "argument --quanta: every value must be a finite number > 0, got 0"),
        (["--max-mfs", "1,x"], "argument --max-mfs: every value must be an integer >= 0, got 'x'"),
        (["--workers", "0"], "argument --workers: must be an integer >= 1, got 0"),
    ],
)
def test_cli_bad_values_are_refused_at_parse_time_naming_the_flag(
    option: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        cli(["reproduce", "frequency", "--quick", *option])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--readings", "head/always/availability"], "--readings = 'head/always/availability'"),
        (["--sweep-readings", "head-node/always"], "--sweep-readings = 'head-node/always'"),
    ],
)
def test_cli_bad_readings_are_one_line_and_exit_2(
    option: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(["reproduce", "frequency", "--quick", *option]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_figures(tiny_rows: list[dict[str, object]], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    for name, draw in experiment.figures().items():
        if "last_node" in name:
            with pytest.raises(InvalidValueError, match="no sweep under this reading"):
                draw(tiny_rows, str(tmp_path / name))
            continue
        draw(tiny_rows, str(tmp_path / name))
        assert (tmp_path / name).read_bytes()[:4] == b"\x89PNG"
