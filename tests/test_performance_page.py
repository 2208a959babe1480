"""The Performance page shows what the recorded benchmark results hold, and no history.

`benchmarks/performance.py --run` measures every section in one session and keeps the
results in `benchmarks/performance.json`; `--render` writes each section's table between
its markers in `docs/performance.md` and its figure in `docs/performance/`. The page is
never edited there by hand: these tests fail when a table differs from what the file
gives, when a section has no figure, or when the page tells the story of its making.
Nothing here measures anything: the benchmarks do not run in the test suite.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest


@pytest.fixture(scope="module")
def performance(benchmark_script: Callable[[str], ModuleType]) -> ModuleType:
    return benchmark_script("performance")


def _results(performance: ModuleType) -> dict[str, Any]:
    assert performance.RESULTS.exists(), "run benchmarks/performance.py --run"
    results: dict[str, Any] = json.loads(performance.RESULTS.read_text())
    return results


def _shown(page: str, name: str, performance: ModuleType) -> str:
    begin, end = performance._markers(name)
    assert page.count(begin) == 1 and page.count(end) == 1, name
    return page.split(begin)[1].split(end)[0].strip()


def test_every_section_was_measured_in_one_session(performance: ModuleType) -> None:
    results = _results(performance)
    measured = {s.name for s in performance.SECTIONS if s.name not in performance.DATA_OF}
    assert set(results["sections"]) == measured
    assert {"cpu", "cpus", "memory_GiB", "system", "python"} <= set(results["machine"])


def test_the_page_shows_what_the_results_hold(performance: ModuleType) -> None:
    results = _results(performance)
    page = performance.PAGE.read_text()
    for name in ("machine", *(s.name for s in performance.SECTIONS)):
        assert _shown(page, name, performance) == performance.block(name, results).strip(), (
            f"section {name}: run benchmarks/performance.py --render"
        )


def test_every_section_has_its_figure(performance: ModuleType) -> None:
    page = performance.PAGE.read_text()
    for section in performance.SECTIONS:
        figure = performance.FIGURES / f"{section.name}.png"
        assert figure.is_file() and figure.stat().st_size > 0, figure
        assert f"](performance/{section.name}.png)" in _shown(page, section.name, performance)


def test_a_rendering_of_made_up_results_changes_with_them(
    performance: ModuleType, tmp_path: Path
) -> None:
    """The check above can fail: a table rendered from other numbers is another table."""
    results = _results(performance)
    block = performance.block("simulation", results)
    row = results["sections"]["simulation"]["data"]["rows"][0]
    row["cpu_s"] *= 2
    assert performance.block("simulation", results) != block


def test_the_page_reads_for_a_user_not_as_a_development_log() -> None:
    page = (Path(__file__).resolve().parent.parent / "docs" / "performance.md").read_text()
    history = re.compile(
        r"\b[Rr]ound \d|\b[Bb]efore this (work|round)|\bthe main branch\b|\bmaintainers\b"
        r"|\bwe were pointed at\b|\bfarm-|\b[Ii]ssue \d|\bversion before\b|\btarget"
    )
    found = [line for line in page.splitlines() if history.search(line)]
    assert not found, found
