"""The multi-site reproduction (Sabin et al. 2003): rows, determinism, fallback, CLI, plot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schedlib.cli import main as cli
from schedlib.experiments.multisite import claims, reproduce

FIELDS = {
    "trace", "policy", "k", "selection", "load_factor", "mean_turnaround", "utilisation",
    "effective_utilisation", "messages",
}  # fmt: skip
SMALL = ["--trace", "sdsc", "--jobs", "30", "--load-factors", "1.0"]


def test_rows_cover_the_grid_and_hold_the_documented_fields() -> None:
    rows = reproduce(traces=("sdsc",), jobs=30, load_factors=(1.0, 1.4), workers=1)
    assert all(set(r) >= FIELDS for r in rows)
    grid = {(r["policy"], r["k"], r["selection"], r["load_factor"]) for r in rows}
    assert len(grid) == len(rows)
    for policy in ("greedy-mr", "conservative-mr", "conservative-mr-slower", "efficacy"):
        assert {(policy, 4, "load", 1.0), (policy, 4, "load", 1.4)} <= grid
    assert {("greedy", 1, "load", 1.4), ("single-easy", 1, "-", 1.4)} <= grid
    assert {(p, k, s, 1.0) for p in ("greedy-mr", "conservative-mr") for k in (1, 2, 3)
            for s in ("load", "completion")} <= grid  # fmt: skip
    for r in rows:
        assert 0 <= r["effective_utilisation"] <= r["utilisation"] <= 1
        assert r["messages"] >= r["minimum_messages"]
    assert {c["verdict"] for c in claims(rows)} <= {
        "holds",
        "does not hold",
        "inconclusive",
        "not run",
    }


def test_identical_rows_whatever_the_number_of_workers() -> None:
    kw = {"traces": ("sdsc",), "jobs": 25, "load_factors": (1.2,)}
    assert reproduce(workers=1, **kw) == reproduce(workers=2, **kw)


def test_each_absent_trace_is_replaced_by_its_own_slice_and_said_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SCHEDLIB_TRACES", str(tmp_path))  # an empty folder
    rows = reproduce(jobs=20, load_factors=(1.0,), workers=1)
    by_trace = {r["trace"]: r for r in rows if r["policy"] == "greedy"}
    assert set(by_trace) == {"CTC-SP2", "SDSC-SP2"}
    assert {r["data"] for r in rows} == {"embedded slice"}
    assert by_trace["CTC-SP2"]["processors"] == 430
    assert by_trace["CTC-SP2"]["mean_turnaround"] != by_trace["SDSC-SP2"]["mean_turnaround"]
    assert cli(["reproduce", "multisite", "--jobs", "5001", "--load-factors", "1"]) == 2
    assert "holds 5000 jobs" in capsys.readouterr().err


def test_the_same_trace_twice_is_refused(traces_dir: Path) -> None:
    from schedlib.errors import InvalidValueError

    path = str(traces_dir / "SDSC-SP2-1998-4.2-cln.swf.gz")
    with pytest.raises(InvalidValueError, match="same trace twice"):
        reproduce(traces=(path, path), jobs=5, load_factors=(1.0,), workers=1)


def test_cli_json_has_one_record_per_configuration(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["reproduce", "multisite", *SMALL, "--workers", "1", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows and all(set(r) >= FIELDS for r in rows)


def test_cli_table_ends_with_the_claims(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["reproduce", "multisite", *SMALL, "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "verdict" in out and "K = 1 to K = 2" in out


def test_bad_options_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert cli(["reproduce", "multisite", "--trace", str(tmp_path / "none.swf")]) == 2
    assert "--trace" in capsys.readouterr().err
    assert cli(["reproduce", "multisite", *SMALL[:4], "--load-factors", "1,x"]) == 2
    assert "--load-factors" in capsys.readouterr().err
    assert cli(["reproduce", "multisite", "--jobs", "0"]) == 2


def test_plot(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    figure = tmp_path / "multisite.png"
    assert cli(["reproduce", "multisite", *SMALL, "--workers", "1", "--plot", str(figure)]) == 0
    assert figure.stat().st_size > 10_000
