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
    assert fill(page, {"reproduction-times": running_times_table()}) == page
