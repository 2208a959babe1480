"""`schedlib reproduce all`: every paper's reproduction and its claims, and each module's claims."""

from __future__ import annotations

import json

import pytest

from schedlib.cli import main as cli
from schedlib.experiments import REPRODUCTIONS
from schedlib.experiments.claims import VERDICTS, claim
from schedlib.experiments.every_paper import experiments
from schedlib.experiments.options import judged


def test_every_reproduction_names_its_paper_and_checks_its_claims() -> None:
    names = [name for name, _ in experiments()]
    assert names == list(REPRODUCTIONS)
    for _, module in experiments():
        assert module.PAPER and callable(module.claims)
        untested = judged(module.claims([]))
        assert untested and all(c["verdict"] == "not run" for c in untested)


def test_a_claim_refuses_an_unknown_verdict() -> None:
    with pytest.raises(ValueError, match="verdict"):
        claim("c", "x", "maybe")


def test_reproduce_all_quick_checks_every_claim_of_every_paper(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli(["reproduce", "all", "--quick", "--workers", "1", "--format", "json"]) == 0
    captured = capsys.readouterr()
    rows = json.loads(captured.out)
    papers = {module.PAPER for _, module in experiments()}
    assert {r["paper"] for r in rows} == papers
    assert all(r["verdict"] in VERDICTS for r in rows)
    # the quick sizes still test every claim
    assert not [r["claim"] for r in rows if r["verdict"] == "not run"]
    # one progress line per paper, with the reduced sizes stated
    assert captured.err.count("done in") == len(papers)
    assert captured.err.count("quick run, reduced sizes") == len(papers)


def test_reproduce_all_rejects_bad_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["reproduce", "all", "--workers", "0"]) == 2
    assert "--workers" in capsys.readouterr().err


def _pgs_rows(gains: tuple[float, ...], pgs_failures: float) -> list[dict[str, object]]:
    return [
        {"scenario": s, "scheduler": k, "difference_percent": d, "paper_difference_percent": 0.0,
         "failures": (pgs_failures if k == "pgs" else 150.0) if s else 0.0}
        for s, d in enumerate(gains)
        for k in ("pgs", "fcfs")
    ]  # fmt: skip


def test_claims_that_the_rows_contradict_do_not_hold() -> None:
    from schedlib.experiments import deferment, pgs

    good = [c["verdict"] for c in pgs.claims(_pgs_rows((0.0, 0.7, 2.9, 8.6), 0.0))]
    assert good == ["holds"] * 4
    bad = [c["verdict"] for c in pgs.claims(_pgs_rows((1.0, -3.0, 2.9, 1.0), 2.0))]
    assert bad == ["does not hold"] * 4
    overtaken = [
        {"algorithm": a, "bound": b, "interval": 500, "total": 100.0, "overtaking_jobs": o}
        for a, b, o in (("fifo", None, 0), ("fifo", 2, 1), ("round_robin", None, 0))
    ]
    verdicts = {c["claim"][:20]: c["verdict"] for c in deferment.claims(overtaken)}
    assert verdicts["task deferment never"] == "does not hold"
    assert verdicts["the standard algorit"] == "does not hold"
