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
from schedlib.experiments.claims import claim_rows
from schedlib.experiments.multisite import (
    COMPARED,
    K_CONFIGURATIONS,
    K_OURS,
    Run,
    claims,
    paper_workload,
    reproduce,
    run_one,
)
from schedlib.workloads.locate import find_trace

FIELDS = {
    "trace", "data", "jobs", "processors", "replicate", "group", "policy", "k", "selection",
    "load_factor", "transfer", "mean_turnaround", "max_turnaround", "utilisation",
    "effective_utilisation", "messages", "minimum_messages", "started",
}  # fmt: skip
SMALL = ["--trace", "sdsc", "--jobs", "30", "--load-factors", "1.0", "--replicates", "2"]


@pytest.fixture(scope="module")
def small_rows() -> list[dict[str, Any]]:
    return reproduce(traces=("sdsc",), jobs=30, load_factors=(1.0, 1.4), replicates=2, workers=1)


def test_rows_cover_the_grid_and_hold_the_documented_fields(
    small_rows: list[dict[str, Any]],
) -> None:
    rows = small_rows
    assert all(set(r) == FIELDS for r in rows)
    keys = [(r["replicate"], r["group"], r["policy"], r["k"], r["selection"], r["load_factor"])
            for r in rows]  # fmt: skip
    assert len(set(keys)) == len(rows)
    grid = set(keys)
    for replicate in (0, 1):
        for factor in (1.0, 1.4):
            for policy in COMPARED:
                k = 1 if policy == "greedy" or policy.startswith("single-") else 4
                selection = "-" if policy.startswith("single-") else "load"
                assert (replicate, "policies", policy, k, selection, factor) in grid
        for group, policies in (
            ("k", ("efficacy",)),
            ("transfer", ("efficacy",)),
            ("k-ours", K_OURS),
        ):
            for policy in policies:
                for k, selection in K_CONFIGURATIONS:
                    assert (replicate, group, policy, k, selection, 1.0) in grid
    for r in rows:
        assert 0 <= r["effective_utilisation"] <= r["utilisation"] <= 1
        assert r["messages"] >= r["minimum_messages"]
        assert r["max_turnaround"] >= r["mean_turnaround"]
        assert r["transfer"] == (r["group"] == "transfer")


def test_every_claim_is_judged_and_none_is_left_untested(small_rows: list[dict[str, Any]]) -> None:
    judged = claim_rows(claims(small_rows))
    assert [c["key"] for c in judged] == [c["key"] for c in claim_rows(claims([]))]
    assert not [c["key"] for c in judged if c["verdict"] == "not run"]
    assert all(c["verdict"] == "not run" for c in claim_rows(claims([])))
    ours = {c["key"] for c in judged if "(ours" in c["claim"]}
    assert ours == {f"{p}-{what}" for p in K_OURS
                    for what in ("k2-greatest-gain", "completion-selection-better")}  # fmt: skip


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
    """Swap the two single-site policies' results: aggressive is then worse everywhere."""
    swapped = []
    for r in small_rows:
        if r["policy"] == "single-easy":
            r = {**r, "policy": "single-conservative"}
        elif r["policy"] == "single-conservative":
            r = {**r, "policy": "single-easy"}
        swapped.append(r)
    verdicts = {c["key"]: c["verdict"] for c in claim_rows(claims(swapped))}
    before = {c["key"]: c["verdict"] for c in claim_rows(claims(small_rows))}
    assert before["aggressive-better-single-site"] != verdicts["aggressive-better-single-site"]
    assert verdicts["aggressive-better-single-site"] in ("does not hold", "inconclusive")


def test_single_site_rows_do_not_depend_on_the_class_draw() -> None:
    source = find_trace("sdsc", folder=None, search=False)
    rows = [run_one(Run(source, 40, 0, r, "policies", "single-easy", 1, "-", 1.0)) for r in (0, 1)]
    assert rows[0]["mean_turnaround"] == rows[1]["mean_turnaround"]


def test_identical_rows_whatever_the_number_of_workers() -> None:
    kw: dict[str, Any] = {"traces": ("sdsc",), "jobs": 25, "load_factors": (1.2,), "replicates": 1}
    assert reproduce(workers=1, **kw) == reproduce(workers=2, **kw)


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
    assert rows and all(set(r) == FIELDS for r in rows)


def test_cli_table_names_its_data_and_ends_with_the_claims_and_their_rule(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli(["reproduce", "multisite", *SMALL, "--workers", "1", "--claims"]) == 0
    out = capsys.readouterr().out
    assert "data: SDSC-SP2 (" in out and "2 class-seed replicates" in out
    assert "verdict:" in out and out.rstrip().splitlines()[-1].startswith("rule: ±")


def test_bad_options_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert cli(["reproduce", "multisite", "--trace", str(tmp_path / "none.swf")]) == 2
    assert "--trace" in capsys.readouterr().err
    assert cli(["reproduce", "multisite", *SMALL[:4], "--load-factors", "1,x"]) == 2
    assert "--load-factors" in capsys.readouterr().err
    assert cli(["reproduce", "multisite", "--jobs", "0"]) == 2
    assert cli(["reproduce", "multisite", "--replicates", "0"]) == 2
    assert "--replicates" in capsys.readouterr().err


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
