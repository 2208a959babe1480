"""The Performance page's generated section shows what the recorded results give.

`benchmarks/conservative_scale.py --write` keeps its measurements in
`benchmarks/conservative_scale.json` and writes the tables of the page's section
*Conservative backfilling at scale* from them. The page is never edited there by hand:
this test fails when the tables differ from what the file gives.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest


@pytest.fixture(scope="module")
def scale(benchmark_script: Callable[[str], ModuleType]) -> ModuleType:
    return benchmark_script("conservative_scale")


def _results(scale: ModuleType) -> dict[str, Any]:
    assert scale.RESULTS.exists(), "run benchmarks/conservative_scale.py --write"
    results: dict[str, Any] = json.loads(scale.RESULTS.read_text())
    return results


def test_the_page_shows_the_tables_the_results_give(scale: ModuleType) -> None:
    page = scale.PAGE.read_text()
    assert page.count(scale.BEGIN) == 1 and page.count(scale.END) == 1
    block = page.split(scale.BEGIN)[1].split(scale.END)[0]
    assert block.strip() == scale.table(_results(scale)).strip(), (
        "run benchmarks/conservative_scale.py --render"
    )


def test_the_rows_ran_the_same_schedules_before_and_after(scale: ModuleType) -> None:
    """A speed-up that changed the schedule would not be one: same mean turnaround."""
    results = _results(scale)
    for entry in results["growth"]:
        if "before" in entry:
            assert entry["before"]["mean_turnaround"] == entry["after"]["mean_turnaround"]
    hostile = results["hostile"]
    if "before" in hostile:
        assert hostile["before"]["mean_turnaround"] == hostile["after"]["mean_turnaround"]
