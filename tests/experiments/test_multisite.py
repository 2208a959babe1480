"""The multi-site reproduction (Sabin et al. 2003): rows, replicates, data, claims, CLI, plot."""

from __future__ import annotations

import gzip
import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from schedlib.cli import main as cli
from schedlib.errors import InvalidValueError
from schedlib.execution.tasks import read_resume_file
from schedlib.experiments.claims import claim_rows
from schedlib.experiments.multisite import (
    COMPARED,
    K_CONFIGURATIONS,
    K_OURS,
    TIE_RULES,
    TIE_RUNS,
    Run,
    claims,
    paper_workload,
    reproduce,
    run_one,
)
from schedlib.experiments.running import Execution
from schedlib.results.verdicts import Configurations, MeanEstimate, Tie
from schedlib.workloads.locate import find_trace

FIELDS = {
    "trace", "data", "jobs", "processors", "replicate", "group", "policy", "k", "selection",
    "load_factor", "transfer", "tie_rule", "mean_turnaround", "max_turnaround", "utilisation",
    "effective_utilisation", "messages", "minimum_messages", "query_messages", "started",
    "digest", "cpu_seconds",
}  # fmt: skip
PRINTED = FIELDS - {"cpu_seconds"}
SMALL = ["--trace", "sdsc", "--jobs", "30", "--load-factors", "1.0", "--replicates", "2"]


def _same(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows without their CPU seconds (the one field that varies between computations)."""
    return [{k: v for k, v in r.items() if k != "cpu_seconds"} for r in rows]


@pytest.fixture(scope="module")
def small_rows() -> list[dict[str, Any]]:
    return reproduce(traces=("sdsc",), jobs=30, load_factors=(1.0, 1.4), replicates=2, workers=1)


def test_rows_cover_the_grid_and_hold_the_documented_fields(
    small_rows: list[dict[str, Any]],
) -> None:
    rows = small_rows
    assert all(set(r) == FIELDS for r in rows)
    keys = [(r["replicate"], r["group"], r["policy"], r["k"], r["selection"], r["load_factor"],
             r["tie_rule"]) for r in rows]  # fmt: skip
    assert len(set(keys)) == len(rows)
    grid = set(keys)
    for factor in (1.0, 1.4):  # the single-site pair draws nothing: one run, no replicate
        for policy in COMPARED[-2:]:
            assert (None, "policies", policy, 1, "-", factor, "-") in grid
    for replicate in (0, 1):
        for factor in (1.0, 1.4):
            for policy in COMPARED[:-2]:
                k = 1 if policy == "greedy" else 4
                assert (replicate, "policies", policy, k, "load", factor, "-") in grid
        for group, policies in (
            ("k", ("efficacy",)),
            ("transfer", ("efficacy",)),
            ("k-ours", K_OURS),
        ):
            for policy in policies:
                for k, selection in K_CONFIGURATIONS:
                    assert (replicate, group, policy, k, selection, 1.0, "-") in grid
        for rule, configurations in TIE_RUNS.items():
            for policy, k, selection in configurations:
                assert (replicate, "ties", policy, k, selection, 1.0, rule) in grid
    assert set(TIE_RUNS) == set(TIE_RULES)
    assert len(rows) == 2 * 2 + 2 * (2 * 5 + 3 * 7 + 7 + sum(map(len, TIE_RUNS.values())))
    for r in rows:
        assert 0 <= r["effective_utilisation"] <= r["utilisation"] <= 1
        assert r["messages"] >= r["minimum_messages"] >= r["query_messages"]
        assert r["max_turnaround"] >= r["mean_turnaround"]
        assert r["transfer"] == (r["group"] == "transfer")
        assert r["query_messages"] == (
            2 * 4 * r["started"] if r["selection"] == "completion" else 0
        )


def test_every_claim_is_judged_and_none_is_left_untested(small_rows: list[dict[str, Any]]) -> None:
    judged = claim_rows(claims(small_rows))
    assert [c["key"] for c in judged] == [c["key"] for c in claim_rows(claims([]))]
    assert not [c["key"] for c in judged if c["verdict"] == "not run"]
    assert all(c["verdict"] == "not run" for c in claim_rows(claims([])))
    ours = {c["key"] for c in judged if "(ours" in c["claim"]}
    assert ours == {f"{p}-{what}" for p in K_OURS
                    for what in ("k2-greatest-gain", "completion-selection-better")}  # fmt: skip
    words = {c.key: c.word for c in claims(small_rows)}
    assert words["greedy-mr-slightly-better"] == "very slightly"
    assert words["conservative-much-better-multisite"] == "much"
    assert words["completion-small-k-almost-k4"] == "almost as"
    assert words["efficacy-worst-case-under-5"] == ""  # the paper states the number


def test_each_claim_is_judged_per_trace_and_the_single_site_pair_exactly() -> None:
    rows = reproduce(jobs=25, load_factors=(1.0, 1.6), replicates=2, workers=1)
    found = {c.key: c for c in claims(rows)}
    for claim in found.values():
        assert isinstance(claim.estimate, Configurations)
        assert claim.estimate.quantifier == "every"
        assert {label.split(",")[0] for label, _ in claim.estimate.parts} == {
            "CTC-SP2", "SDSC-SP2"
        }  # fmt: skip
    single = found["aggressive-better-single-site"].estimate
    assert isinstance(single, Configurations)
    for _, part in single.parts:
        assert isinstance(part, MeanEstimate) and part.deterministic
    assert "load factors" in found["aggressive-better-single-site"].ours


def test_a_comparison_of_identical_schedules_is_a_tie(small_rows: list[dict[str, Any]]) -> None:
    """Relabel conservative-mr's rows as efficacy's: both sides are then the same schedules."""
    copied = [r for r in small_rows if r["policy"] != "efficacy" or r["group"] != "policies"]
    copied += [{**r, "policy": "efficacy"} for r in small_rows
               if r["policy"] == "conservative-mr" and r["group"] == "policies"]  # fmt: skip
    found = {c["key"]: c for c in claim_rows(claims(copied))}
    assert found["efficacy-better-turnaround"]["verdict"] == "tie"
    estimate = {c.key: c for c in claims(copied)}["efficacy-better-turnaround"].estimate
    assert isinstance(estimate, Configurations)
    assert all(isinstance(part, Tie) for _, part in estimate.parts)


def test_replicates_draw_independent_classes_and_policies_share_them() -> None:
    source = find_trace("sdsc", folder=None, search=False)
    classes = {
        (seed, r): tuple(j.job_class for j in paper_workload(source, 40, seed, r)[1])
        for seed in (0, 1)
        for r in (0, 1)
    }
    assert len(set(classes.values())) == 4  # no two (seed, replicate) pairs share a draw
    assert paper_workload(source, 40, 0, 1) == paper_workload(source, 40, 0, 1)


def test_a_claim_contradicted_by_the_rows_does_not_hold(small_rows: list[dict[str, Any]]) -> None:
    """Make EASY's single-site turnaround twice conservative's: the claim then fails exactly."""
    worse = [
        {**r, "mean_turnaround": 2 * r["mean_turnaround"]} if r["policy"] == "single-easy" else r
        for r in small_rows
    ]
    verdicts = {c["key"]: c for c in claim_rows(claims(worse))}
    assert verdicts["aggressive-better-single-site"]["verdict"] == "does not hold"
    assert verdicts["aggressive-better-single-site"]["p"] == "0"  # judged exactly


def test_single_site_rows_do_not_depend_on_the_class_draw() -> None:
    source = find_trace("sdsc", folder=None, search=False)
    one = run_one(Run(source, 40, 0, None, "policies", "single-easy", 1, "-", 1.0))
    assert one["replicate"] is None
    drawn = [run_one(Run(source, 40, 0, r, "policies", "single-easy", 1, "-", 1.0))
             for r in (0, 1)]  # fmt: skip
    assert {r["digest"] for r in drawn} == {one["digest"]}


GRID: dict[str, Any] = {"traces": ("sdsc",), "jobs": 25, "load_factors": (1.2,), "replicates": 1}


def test_identical_rows_whatever_the_number_of_workers() -> None:
    alone = _same(reproduce(workers=1, **GRID))
    assert _same(reproduce(workers=2, **GRID)) == alone
    assert _same(reproduce(execution=Execution(workers=2, name="multisite"), **GRID)) == alone


def test_identical_rows_on_a_dask_local_cluster() -> None:
    """Dask's workers import `run_one` by name, from the installed package."""
    distributed = pytest.importorskip("distributed")
    alone = _same(reproduce(workers=1, **GRID))
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        where = Execution(executor=client.get_executor(), name="multisite")
        assert _same(reproduce(execution=where, **GRID)) == alone


def test_identical_rows_after_two_interruptions(tmp_path: Path) -> None:
    """A sitting cut short loses only what had not finished: the file is cut twice (once
    mid-line, as a crash leaves it) and the grid resumed each time."""
    alone = _same(reproduce(workers=1, **GRID))
    path = tmp_path / "runs.jsonl"
    options = {"jobs": 25}

    def sitting() -> list[dict[str, Any]]:
        where = Execution(workers=1, resume=str(path), options=options, name="multisite")
        return _same(reproduce(execution=where, **GRID))

    assert sitting() == alone
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[: len(lines) // 3]))  # the first interruption
    assert sitting() == alone
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[: len(lines) // 2]) + lines[len(lines) // 2][:40])  # a crash
    resumed = read_resume_file(path)
    assert resumed.damaged == 1 and 0 < len(resumed.results) < len(alone)
    assert sitting() == alone
    assert len(read_resume_file(path).results) == len(alone)
    with pytest.raises(InvalidValueError, match="jobs = 25 there, 30 here"):
        reproduce(
            execution=Execution(
                workers=1, resume=str(path), options={"jobs": 30}, name="multisite"
            ),
            **GRID,
        )


def test_each_absent_trace_is_replaced_by_its_own_slice_and_said_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SCHEDLIB_TRACES", str(tmp_path))  # an empty folder
    rows = reproduce(jobs=20, load_factors=(1.0,), replicates=1, workers=1)
    by_trace = {r["trace"]: r for r in rows if r["policy"] == "greedy"}
    assert set(by_trace) == {"CTC-SP2", "SDSC-SP2"}
    assert {r["data"] for r in rows} == {"embedded slice"}
    assert by_trace["CTC-SP2"]["processors"] == 430
    assert by_trace["CTC-SP2"]["mean_turnaround"] != by_trace["SDSC-SP2"]["mean_turnaround"]
    assert cli(["reproduce", "multisite", "--jobs", "5001", "--load-factors", "1"]) == 2
    assert "holds 5000 jobs" in capsys.readouterr().err


def test_the_same_trace_twice_is_refused(traces_dir: Path) -> None:
    path = str(traces_dir / "SDSC-SP2-1998-4.2-cln.swf.gz")
    with pytest.raises(InvalidValueError, match="same trace twice"):
        reproduce(traces=(path, path), jobs=5, load_factors=(1.0,), workers=1)


def test_cli_json_has_one_record_per_run(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["reproduce", "multisite", *SMALL, "--workers", "1", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows and all(set(r) == PRINTED for r in rows)


def test_cli_resumes_and_prints_the_same_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["reproduce", "multisite", *SMALL, "--format", "json"]
    assert cli([*argv, "--workers", "1"]) == 0
    alone = capsys.readouterr().out
    path = str(tmp_path / "runs.jsonl")
    assert cli([*argv, "--workers", "2", "--resume", path]) == 0
    assert capsys.readouterr().out == alone
    assert cli([*argv, "--workers", "1", "--resume", path]) == 0
    assert capsys.readouterr().out == alone
    assert cli([*argv[:-2], "--replicates", "3", "--workers", "1", "--resume", path]) == 2
    assert "replicates = 2 there, 3 here" in capsys.readouterr().err


def test_cli_table_names_its_data_and_ends_with_the_claims_and_their_rule(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli(["reproduce", "multisite", *SMALL, "--workers", "1", "--claims"]) == 0
    out = capsys.readouterr().out
    assert "data: SDSC-SP2 (" in out and "2 class-seed replicates" in out
    assert "verdict:" in out and out.rstrip().splitlines()[-1].startswith("rule: ±")


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--jobs", "0"),
        ("--jobs", "x"),
        ("--replicates", "0"),
        ("--load-factors", "1,0"),
        ("--load-factors", "1,x"),
        ("--workers", "0"),
        ("--dask-local", "0"),
    ],
)
def test_a_bad_value_is_refused_at_parse_time_in_one_line_naming_the_flag(
    flag: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        cli(["reproduce", "multisite", flag, value])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert f"argument {flag}:" in err


def test_bad_options_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert cli(["reproduce", "multisite", "--trace", str(tmp_path / "none.swf")]) == 2
    assert "--trace" in capsys.readouterr().err


def test_plot(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    figure = tmp_path / "multisite.png"
    assert cli(["reproduce", "multisite", *SMALL, "--workers", "1", "--plot", str(figure)]) == 0
    assert figure.stat().st_size > 10_000
    assert (tmp_path / "multisite_k.png").stat().st_size > 10_000


def _first_records(folder: Path, count: int) -> Path:
    """An SWF file of the embedded SDSC-SP2 slice's header and first `count` records."""
    packed = resources.files("schedlib") / "data" / "SDSC-SP2-1998-4.2-cln-first5000.swf.gz"
    lines = gzip.decompress(packed.read_bytes()).decode().splitlines(keepends=True)
    header = [line for line in lines if line.startswith(";")]
    records = [line for line in lines if not line.startswith(";")][:count]
    path = folder / f"first{count}.swf"
    path.write_text("".join(header + records))
    return path


def test_more_jobs_than_the_trace_holds_is_said(tmp_path: Path) -> None:
    trace = _first_records(tmp_path, 20)
    with pytest.warns(UserWarning, match="holds only 20 job records"):
        reproduce(traces=(str(trace),), jobs=25, load_factors=(1.0,), replicates=1, workers=1)


def test_the_command_says_it_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = str(_first_records(tmp_path, 10))
    argv = ["reproduce", "multisite", "--trace", trace, "--jobs", "12", "--replicates", "1",
            "--load-factors", "1", "--workers", "1", "--claims"]  # fmt: skip
    assert cli(argv) == 0
    err = capsys.readouterr().err
    assert "schedlib: warning: --jobs 12: first10.swf holds only 10 job records" in err
    assert "UserWarning" not in err


def test_the_how_to_commands_parse(capsys: pytest.CaptureFixture[str]) -> None:
    """Every `schedlib reproduce multisite` and `generate.py` command of the how-to "Run the
    paper-size multi-site reproduction on a cluster" is accepted by its parser as written."""
    import re
    import shlex
    import sys

    from schedlib.experiments.catalog import _parse, _parser

    root = Path(__file__).resolve().parents[2]
    page = (root / "docs" / "howto" / "run-multisite-on-a-cluster.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)```", page, re.DOTALL)
    commands = [
        shlex.split(line.split(">")[0].split("#")[0])
        for block in blocks
        for line in block.replace("\\\n", " ").splitlines()
        if line.strip()
    ]
    reproduce = [c[3:] for c in commands if c[:3] == ["schedlib", "reproduce", "multisite"]]
    generate = [c[2:] for c in commands if c[:2] == ["python", "docs/reproductions/generate.py"]]
    assert len(reproduce) == 2 and len(generate) == 1
    for argv in reproduce:
        assert argv[argv.index("--format") + 1] == "json"  # the command line's own option
        argv = argv[: argv.index("--format")] + argv[argv.index("--format") + 2 :]
        args = _parse(_parser("multisite"), argv, "the how-to's command")
        assert args.jobs == 5000 and args.resume == "runs-5000.jsonl"
    sys.path.insert(0, str(root / "docs" / "reproductions"))
    try:
        import generate as script  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(root / "docs" / "reproductions"))
    with pytest.raises(SystemExit):
        script.main(["--help"])
    described = capsys.readouterr().out
    flags = [word for word in generate[0] if word.startswith("--")]
    assert flags and all(flag in described for flag in flags), flags
    assert generate[0][generate[0].index("--jobs") + 1] == "5000"
    assert generate[0][generate[0].index("--resume") + 1] == "runs-5000.jsonl"
