"""The numbers the Multi-site page states come from its script (re-run here)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from schedlib.workloads.locate import find_trace

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "algorithms" / "multisite.md"


def _script() -> object:
    spec = importlib.util.spec_from_file_location(
        "multisite_same_instant", ROOT / "benchmarks" / "multisite_same_instant.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _page_table() -> str:
    text = PAGE.read_text(encoding="utf-8")
    after = text.split("<!-- same-instant-table -->\n", 1)[1]
    return after.split("<!-- /same-instant-table -->", 1)[0]


def test_the_same_instant_table_is_what_the_script_prints() -> None:
    if find_trace("sdsc").embedded:
        pytest.skip("the real SDSC-SP2 trace is not available")
    script = _script()
    rows = script.rows("sdsc", 1000, workers=1, replicates=3)  # type: ignore[attr-defined]
    assert _page_table() == script.markdown(rows)  # type: ignore[attr-defined]
