"""Reproduction pages cannot go stale: each says what `docs/reproductions/generate.py` writes.

The full-size sections come from the documented results shipped in
`schedlib/experiments/documented/NAME.json`; the quick sections from a `--quick`
run made here. A quick verdict that differs from the documented full-size one
must be listed, with its reason, in the module's `QUICK_DIFFERS`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from schedlib.experiments import REPRODUCTIONS, documented, reproduction
from schedlib.experiments.documented import differing_claims
from schedlib.experiments.pages import (
    common_sections,
    fill,
    quick_document,
    reference_sections,
    running_times_table,
    sections,
)

PAGES = Path(__file__).resolve().parents[2] / "docs" / "reproductions"
PENDING: set[str] = set()
"""Reproductions whose page is not generated yet (emptied as each one moves over)."""
GENERATED = [name for name in REPRODUCTIONS if name not in PENDING]


@pytest.fixture(scope="session")
def quick_documents(shared_quick_runs: None) -> dict[str, dict[str, Any]]:
    return {name: quick_document(name) for name in GENERATED}


@pytest.mark.parametrize("name", GENERATED)
def test_the_page_says_what_the_generator_writes(
    name: str, quick_documents: dict[str, dict[str, Any]]
) -> None:
    module = reproduction(name)
    full = documented.load(name)
    assert full is not None, f"run: python docs/reproductions/generate.py {name} --full"
    generated = {**common_sections(full, quick_documents[name]),
                 **module.page_sections(full, quick_documents[name])}  # fmt: skip
    text = (PAGES / f"{name}.md").read_text(encoding="utf-8")
    on_page = sections(text)
    assert set(on_page) == set(generated)
    stale = sorted(k for k in generated if on_page[k] != generated[k])
    assert not stale, f"stale sections {stale}: run python docs/reproductions/generate.py {name}"
    assert fill(text, generated) == text


@pytest.mark.parametrize("name", GENERATED)
def test_quick_verdicts_agree_with_the_documented_ones_or_are_listed(
    name: str, quick_documents: dict[str, dict[str, Any]]
) -> None:
    module = reproduction(name)
    full = documented.load(name)
    assert full is not None
    quick = quick_documents[name]
    assert [c["key"] for c in quick["claims"]] == [c["key"] for c in full["claims"]]
    differs = differing_claims(quick["claims"], full)
    assert set(differs) == set(module.QUICK_DIFFERS), differs
    for key in differs:
        row = next(c for c in quick["claims"] if c["key"] == key)
        assert row["full size"].endswith(f"(differs: {module.QUICK_DIFFERS[key]})")


@pytest.mark.parametrize("name", GENERATED)
def test_the_documented_results_name_their_command_commit_and_data(name: str) -> None:
    full = documented.load(name)
    assert full is not None
    assert full["command"].startswith(f"schedlib reproduce {name}")
    assert full["commit"] not in ("", "-") and full["date"] not in ("", "-")
    assert full["data"] and full["rule"].startswith("rule:")
    assert all(c["data"] not in ("", "-") for c in full["claims"])


def test_the_reference_page_states_the_rule_and_the_words_the_code_uses() -> None:
    page = (PAGES / "index.md").read_text(encoding="utf-8")
    assert sections(page) == reference_sections()
    assert fill(page, reference_sections()) == page


def test_the_performance_page_states_the_running_times_each_help_states() -> None:
    page = (PAGES.parent / "performance.md").read_text(encoding="utf-8")
    assert sections(page)["reproduction-times"] == running_times_table()
    assert fill(page, {**sections(page), "reproduction-times": running_times_table()}) == page


# -- the multi-site page's own claims ---------------------------------------------------------

ROOT = PAGES.parents[1]


def _multisite() -> tuple[Any, dict[str, Any]]:
    full = documented.load("multisite")
    assert full is not None
    return reproduction("multisite"), full


def test_multisite_other_pages_say_what_the_generator_writes() -> None:
    """The how-to and the Performance page quote the documented run's CPU time as generated."""
    module, full = _multisite()
    for relative, generated in module.extra_pages(full, full).items():
        text = (ROOT / relative).read_text(encoding="utf-8")
        on_page = sections(text)
        assert {k: on_page[k] for k in generated} == generated, relative
        assert fill(text, {**on_page, **generated}) == text


def test_multisite_page_says_the_documented_size_and_the_papers() -> None:
    """'The documented run is N jobs per trace' (and its share of the paper's 5,000): the
    rows' size, the default of `--jobs` (so the default run reproduces the page) and
    `--help`."""
    from schedlib.experiments.catalog import parse_options
    from schedlib.experiments.multisite import JOBS, PAPER_JOBS

    module, full = _multisite()
    jobs = {r["jobs"] for r in full["rows"]}
    assert jobs == {JOBS} and PAPER_JOBS == 5000
    text = module.page_sections(full, full)["full-jobs"]
    if JOBS == PAPER_JOBS:
        assert text == f"{JOBS:,} jobs per trace, the paper's size"
    else:
        assert text.startswith(f"{JOBS:,} jobs per trace, ") and f"paper's {PAPER_JOBS:,}" in text
    assert parse_options("multisite", {}).jobs == JOBS
    assert full["command"].startswith("schedlib reproduce multisite")
    assert "--jobs" not in full["command"] or f"--jobs {JOBS}" in full["command"]


def test_multisite_help_states_the_documented_runs_time() -> None:
    """`--help` says how long the full run takes, the paper's size: the documented run's CPU
    time, and on 2 workers."""
    from schedlib.experiments.multisite import JOBS, PAPER_JOBS, page
    from schedlib.experiments.multisite.cli import FULL_TIME

    _, full = _multisite()
    hours = page.cpu_hours(full["rows"])
    assert JOBS == PAPER_JOBS
    assert page.running_time(hours) == FULL_TIME
    assert page.paper_size_hours(full["rows"], page.row_growth()) == hours


def test_multisite_paper_size_is_measured_once_the_documented_run_is_at_it() -> None:
    """At the paper's size the section gives the measured CPU hours per load factor (no
    estimate, no growth exponent), their sum and the time on 2 workers."""
    from schedlib.experiments.multisite import PAPER_JOBS, page

    rows = [
        {"group": "policies", "jobs": PAPER_JOBS, "load_factor": f, "cpu_seconds": seconds}
        for f, seconds in ((1.0, 1800.0), (1.0, 1800.0), (2.0, 18000.0))
    ]
    text = page._paper_size(rows, {})
    assert "| 1 | 1.0 |" in text and "| 2 | 5.0 |" in text
    assert "estimated" not in text and "exponent" not in text
    assert "6.0 CPU hours in all" in text and "3.0 hours on 2 workers" in text
    assert page.paper_size_hours(rows, {}) == 6.0
    smaller = [{**r, "jobs": 1000} for r in rows]
    assert page.paper_size_hours(smaller, {}) is None  # nothing to grow it by
    growth = {1.0: (1000, 5000, 1.0, 5.0), 2.0: (1000, 5000, 1.0, 125.0)}
    assert page.paper_size_hours(smaller, growth) == pytest.approx(1.0 * 5 + 5.0 * 125)


def test_multisite_documented_cpu_seconds_are_the_rows_sums() -> None:
    """The CPU seconds per group and load factor stored in the documented result (and shown
    on the page) add up the rows' own, and every row carries its CPU seconds."""
    module, full = _multisite()
    assert all(r.get("cpu_seconds") is not None for r in full["rows"])
    assert full["cpu_seconds"] == module.documented_summary(full["rows"])["cpu_seconds"]
    stored = sum(v for by_factor in full["cpu_seconds"].values() for v in by_factor.values())
    assert stored == pytest.approx(sum(r["cpu_seconds"] for r in full["rows"]), abs=0.1)


def test_multisite_paper_size_estimate_grows_each_load_factor_by_its_exponent() -> None:
    """'5,000 jobs, estimated' = the measured CPU hours times 5 to the stated exponent (for a
    documented run below the paper's size: the documented rows labelled 1000 jobs)."""
    from schedlib.experiments.multisite import page

    module, documented_run = _multisite()
    rows = [{**r, "jobs": 1000} for r in documented_run["rows"]]
    full = {**documented_run, "rows": rows}
    growth = page.row_growth()
    assert growth, "the Performance page has no conservative row measured at two sizes"
    text = module.page_sections(full, full)["full-paper-size"]
    lines = [line for line in text.splitlines() if line.startswith("| ") and "CPU h" not in line]
    assert len(lines) == len({r["load_factor"] for r in full["rows"]})
    for line in lines:
        factor, hours, exponent, estimate = (c.strip() for c in line.strip("|").split("|"))
        e = page.exponent_at(float(factor), growth)
        assert exponent == f"{e:.2f}"
        measured = sum(r["cpu_seconds"] for r in full["rows"] if r["load_factor"] == float(factor))
        assert hours == f"{measured / 3600:.2f}"
        assert float(estimate) == pytest.approx(measured / 3600 * 5**e, abs=0.051)


def test_multisite_messages_at_k4_pay_no_completion_query() -> None:
    """'Choosing K < 4 sites by completion time asks every site, a query and a reply each:
    8 messages per job; with K = 4 no site is asked': in the documented rows."""
    _, full = _multisite()
    transfer = [r for r in full["rows"] if r["group"] == "transfer" and r["tie_rule"] == "-"]
    assert transfer
    for r in transfer:
        asked = r["selection"] == "completion" and r["k"] < 4
        assert r["query_messages"] == (8 * r["started"] if asked else 0), r


def test_multisite_page_times_are_in_seconds() -> None:
    """Every time on the page is in seconds like the rows: no hours in a table header."""
    module, full = _multisite()
    generated = module.page_sections(full, full)
    assert not any("(h)" in text for text in generated.values())
    assert "single-site EASY (s)" in generated["full-single"]


@pytest.mark.parametrize("name", sorted(REPRODUCTIONS))
def test_moved_verdicts_lists_each_changed_verdict_of_every_reading_and_nothing_else(
    name: str,
) -> None:
    """What generate.py prints when it replaces a stored result: nothing for the same
    result; a changed default verdict, a changed reading's verdict, a claim gone and a claim
    new, each once, with both verdicts."""
    import copy

    stored = documented.load(name)
    assert stored is not None
    assert documented.moved_verdicts(stored, stored) == []
    after = copy.deepcopy(stored)
    first, second, *_ = after["claims"]
    first["verdict"] = "holds" if first["verdict"] != "holds" else "does not hold"
    readings = [c for c in second if c.startswith("verdict (")]
    if readings:
        second[readings[0]] = "moved"
    gone = after["claims"].pop()
    after["claims"].append({"key": "new-claim", "verdict": "holds", "ours": "1 %"})
    moved = {(m["claim"], m["column"]): (m["before"], m["after"])
             for m in documented.moved_verdicts(stored, after)}  # fmt: skip
    columns = [c for c in gone if c == "verdict" or c.startswith("verdict (")]
    expected = {
        (first["key"], "verdict"): (stored["claims"][0]["verdict"], first["verdict"]),
        ("new-claim", "verdict"): ("(absent)", "holds"),
        **{(gone["key"], c): (gone[c], "(absent)") for c in columns},
    }
    if readings:
        expected[(second["key"], readings[0])] = (stored["claims"][1][readings[0]], "moved")
    assert moved == expected


def test_multisite_page_prose_says_what_the_documented_verdicts_say() -> None:
    """The typed summary under "What reproduces and what does not" (the generated list of
    verdicts precedes it) states what the documented claims say, trace by trace: it cannot
    go stale when the documented run changes."""
    from schedlib.experiments.multisite import claims

    _, full = _multisite()
    verdict = {c["key"]: c["verdict"] for c in full["claims"]}
    per_trace = {}
    for c in claims(full["rows"]):
        assert c.estimate is not None
        parts = dict(c.estimate.parts)
        per_trace[c.key] = {
            label: (v, getattr(parts[label], "mean", None))
            for label, v in c.estimate.part_verdicts(c.expect)
        }
    text = (PAGES / "multisite.md").read_text(encoding="utf-8")
    section = text[text.index("**What reproduces and what does not.**") : text.index("Every ±")]
    said = " ".join(section.split())
    # "§7's claims about K, data transfer and messages reproduce on both traces, except that
    # choosing the sites by completion time falls short of a 'significant' change on CTC-SP2"
    assert "§7's claims about $K$, data transfer and messages reproduce on both traces" in said
    assert 'falls short of a "significant" change on CTC-SP2' in said
    section7 = [
        "k2-greatest-gain",
        "completion-small-k-almost-k4",
        "transfer-increases-turnaround",
        "transfer-keeps-trends",
        "messages-grow-with-k",
    ]
    assert all(verdict[k] == "holds" for k in section7)
    completion = per_trace["completion-selection-better"]
    assert completion["CTC-SP2"][0] != "holds" and completion["SDSC-SP2"][0] == "holds"
    # "Of the policy comparisons (§4-§6), most reproduce, efficacy priority's among them"
    assert "most reproduce, efficacy priority's among them" in said
    policies = [c["key"] for c in full["claims"][:11]]
    assert sum(verdict[k] == "holds" for k in policies) > len(policies) / 2
    for key in ("efficacy-better-turnaround", "efficacy-higher-effective-utilisation",
                "fcfs-higher-raw-utilisation", "efficacy-worst-case-under-5"):  # fmt: skip
        assert verdict[key] == "holds", key
    # "three go the other way on both traces: multiple requests improve turnaround far more
    # than 'only very slightly', cancelling only the slower copies makes turnaround worse,
    # and on one site EASY does not beat conservative backfilling (it is ahead at the low
    # load factors, behind at the high ones)"
    assert "three go the other way on both traces" in said
    other_way = {
        "greedy-mr-slightly-better": lambda m: m < 0,
        "cancel-slower-improves-slightly": lambda m: m > 0,
        "aggressive-better-single-site": lambda m: m > 0,
    }
    for key, direction in other_way.items():
        assert {v for v, _ in per_trace[key].values()} == {"does not hold"}, key
        assert all(direction(m) for _, m in per_trace[key].values()), key
    assert "it is ahead at the low load factors, behind at the high ones" in said
    single = {
        (r["trace"], r["load_factor"], r["policy"]): r["mean_turnaround"]
        for r in full["rows"]
        if r["policy"] in ("single-easy", "single-conservative")
    }
    for trace in ("CTC-SP2", "SDSC-SP2"):
        low = (single[trace, 1.0, "single-easy"], single[trace, 1.0, "single-conservative"])
        assert low[0] < low[1], trace  # EASY ahead at the lowest load factor
        at = {f: (single[trace, f, "single-easy"], single[trace, f, "single-conservative"])
              for f in (1.8, 2.0)}  # fmt: skip
        assert at[1.8][1] < at[1.8][0], trace  # the QUICK_DIFFERS reason: conservative ahead
        assert at[2.0][1] < 0.9 * at[2.0][0], trace  # ... and far ahead (over 10 %) at 2.0
