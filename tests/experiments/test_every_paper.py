"""`schedlib reproduce all`: every paper's reproduction and its claims, and each module's claims."""

from __future__ import annotations

import json

import pytest

from schedlib.cli import main as cli
from schedlib.experiments import REPRODUCTIONS
from schedlib.experiments.claims import VERDICTS
from schedlib.experiments.every_paper import experiments
from schedlib.experiments.options import judged


def test_every_reproduction_names_its_paper_and_checks_its_claims() -> None:
    names = [name for name, _ in experiments()]
    assert names == list(REPRODUCTIONS)
    for _, module in experiments():
        assert module.PAPER and callable(module.claims)
        untested = judged(module.claims([]))
        assert untested and all(c["verdict"] == "not run" for c in untested)


def test_reproduce_all_quick_checks_every_claim_of_every_paper(
    capsys: pytest.CaptureFixture[str], shared_quick_runs: None
) -> None:
    assert cli(["reproduce", "all", "--quick", "--workers", "1", "--format", "json"]) == 0
    captured = capsys.readouterr()
    rows = json.loads(captured.out)
    papers = {module.PAPER for _, module in experiments()}
    assert {r["paper"] for r in rows} == papers
    assert all(r["verdict"] in VERDICTS for r in rows)
    # the quick sizes test every claim the full sizes test (a claim the paper's own
    # data leave untestable, such as a change of a median that is 0, is not run at both)
    untested = [r for r in rows if r["verdict"] == "not run"]
    assert all(r["full size"] == "not run (same)" for r in untested), untested
    assert len(untested) < len(rows) / 10
    # one progress line per paper, with the reduced sizes stated
    assert captured.err.count("done in") == len(papers)
    assert captured.err.count("quick run, reduced sizes") == len(papers)


def test_reproduce_all_rejects_bad_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:  # refused by the parser, before anything runs
        cli(["reproduce", "all", "--workers", "0"])
    assert stop.value.code == 2
    assert "argument --workers: must be an integer >= 1, got 0" in capsys.readouterr().err


def _pgs_rows(
    gains: tuple[float, ...],
    pgs_failures: float,
    lost: tuple[float, ...],
    swing: float,
    base: float,
) -> list[dict[str, object]]:
    """Replicate rows: PGS takes `base` min times 1 -/+ `swing`, FCFS `gains[s]` % more;
    FCFS fails 150 times per run, losing `lost[s - 1]` s per failure."""
    return [
        {"scenario": s, "scheduler": k, "reading": "paper", "main": True, "replicate": r,
         "makespan_minutes": base * (1 + swing * (-1) ** r) * (1 + (k == "fcfs") * d / 100),
         "failures": (pgs_failures if k == "pgs" else 150.0) if s else 0.0,
         "wasted_seconds": 0.0 if k == "pgs" or not s else 150.0 * lost[s - 1]}
        for s, d in enumerate(gains)
        for k in ("pgs", "fcfs")
        for r in range(6)
    ]  # fmt: skip


def test_claims_that_the_rows_contradict_do_not_hold() -> None:
    from schedlib.experiments import pgs

    paper = (0.0, 13.31, 27.51, 38.64)
    good = [
        c["verdict"] for c in judged(pgs.claims(_pgs_rows(paper, 0.0, (20, 45, 90), 0.001, 70)))
    ]
    # the scheduling overhead (9th) is not testable: the model charges no time for a decision
    assert good == ["holds"] * 8 + ["not testable", "holds"]
    # runs of 30 min on average, half the lower bound, spread +-30 %: every bound broken
    rows = _pgs_rows((5.0, -3.0, 2.9, 1.0), 200.0, (90, 45, 20), 0.3, 30)
    bad = [c["verdict"] for c in judged(pgs.claims(rows))]
    assert bad == ["does not hold"] * 8 + ["not testable", "does not hold"]
    # deferment's contradicted claims: tests/experiments/test_deferment.py
