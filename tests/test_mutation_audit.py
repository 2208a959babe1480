"""The mutation audit: its list, its recorded outcomes and the Guarantees page agree.

`benchmarks/mutants.py --write` records each mutant's outcome (with the patch it ran)
in `benchmarks/mutants.json` and writes the page's kill-rate table from them. The page is
never edited by hand: these tests fail when a mutant was added or changed and not run
again, or when the table differs from what the outcomes give. And a patch that no longer
applies is an error, counted neither as killed nor as survived.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "benchmark_mutants", ROOT / "benchmarks" / "mutants.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


mutants = _script()


def _results() -> dict[str, dict[str, object]]:
    assert mutants.RESULTS.exists(), "run benchmarks/mutants.py --write"
    results: dict[str, dict[str, object]] = json.loads(mutants.RESULTS.read_text())
    return results


def test_every_mutant_was_run_as_it_is_listed() -> None:
    listed = {m.name: m for m in mutants.MUTANTS}
    results = _results()
    assert list(results) == list(listed), "run benchmarks/mutants.py --write again"
    for name, result in results.items():
        m = listed[name]
        ran = (result["family"], result["path"], result["old"], result["new"], result["tests"])
        assert ran == (m.family, m.path, m.old, m.new, list(m.tests)), (
            f"{name} changed since it was run: run benchmarks/mutants.py --write --only {name}"
        )


def test_the_guarantees_page_shows_the_table_the_outcomes_give() -> None:
    page = mutants.PAGE.read_text()
    block = page.split(mutants.TABLE_BEGIN)[1].split(mutants.TABLE_END)[0]
    assert block.strip() == mutants.table(_results()).strip(), "run benchmarks/mutants.py --write"


def test_every_patch_applies_to_the_code() -> None:
    assert mutants.stale(mutants.MUTANTS) == {}


def test_a_patch_that_no_longer_applies_is_an_error_not_a_kill() -> None:
    moved = mutants.Mutant(
        "moved", "engine", "schedlib/engine/loop.py", "text that is not there", "x", ("tests",), ""
    )
    assert "occurs 0 times" in mutants.stale((moved,))["moved"]
    outcome, _, by = mutants.run(moved, timeout=60, verbose=False)
    assert outcome.startswith("error: patch does not apply") and by == ""
    results = {
        "moved": {"family": "engine", "outcome": outcome},
        "phase-order": {"family": "engine", "outcome": "killed"},
        "guard-budget-off": {"family": "engine", "outcome": "survived"},
    }
    by_family = {row[0]: row[1:] for row in mutants.kill_rates(results)}
    assert by_family == {"engine": (1, 2, 1), "all": (1, 2, 1)}  # killed, counted, errors
    assert "| engine | 3 | 1 | 1 | 1 | 50 % |" in mutants.table(results)
