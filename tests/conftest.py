"""Shared test configuration: hypothesis profiles and the location of the real traces.

Profiles (choose with `--hypothesis-profile=NAME` or `HYPOTHESIS_PROFILE=NAME`):

- `default`: 100 examples per property, random, with the example database;
- `ci`: derandomized, no database, bounded examples (what CI and the README run);
- `thorough`: 2000 examples per property, for long local runs.

The real SWF traces are read from `$SCHEDLIB_TRACES`, else `../shared/traces`
beside the repository. Tests that need them skip when they are absent, unless
`SCHEDLIB_REQUIRE_TRACES=1` (set by `.ci/run`), which makes their absence an error.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("default", max_examples=100, deadline=None)
settings.register_profile(
    "ci",
    max_examples=60,
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "thorough", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

ROOT = Path(__file__).resolve().parent.parent
TRACES = Path(os.environ.get("SCHEDLIB_TRACES", ROOT.parent / "shared" / "traces"))


@pytest.fixture(scope="session")
def traces_dir() -> Path:
    """Folder of the real SWF traces (`../shared/traces`)."""
    if not TRACES.is_dir():
        message = f"real traces not found at {TRACES} (set SCHEDLIB_TRACES)"
        if os.environ.get("SCHEDLIB_REQUIRE_TRACES") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return TRACES


@pytest.fixture(scope="session")
def benchmark_script() -> Callable[[str], ModuleType]:
    """A loader of the scripts in `benchmarks/` by name (they are not a package)."""

    def load(name: str) -> ModuleType:
        spec = importlib.util.spec_from_file_location(
            f"benchmark_{name}", ROOT / "benchmarks" / f"{name}.py"
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up
        spec.loader.exec_module(module)
        return module

    return load
