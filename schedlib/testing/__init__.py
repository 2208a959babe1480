"""The public testing kit: invariant checkers and hypothesis strategies.

- [`schedlib.testing.invariants`][schedlib.testing.invariants]: plain predicates over run
  records that raise `AssertionError` with an explanation. They need nothing beyond
  the base install.
- [`schedlib.testing.strategies`][schedlib.testing.strategies]: hypothesis strategies
  for workloads, clusters, availability patterns, speed histories, ... They need
  hypothesis: install the `test` extra (`pip install '.[test]' from a clone`); without it,
  importing them raises an `ImportError` that names the extra.

- [`check_scheduler`][schedlib.testing.conformance.check_scheduler] and
  [`parametrize_with_checks`][schedlib.testing.conformance.parametrize_with_checks]
  (from [`schedlib.testing.conformance`][schedlib.testing.conformance]): the
  conformance suite, every applicable check of a family run against your own
  scheduler as hypothesis properties (they need hypothesis when they run, not
  to import).

Point them at your own scheduler (see the how-to "Test your own scheduler").

Examples
--------
>>> from schedlib.testing import invariants
>>> callable(invariants.check_capacity)
True
"""

from __future__ import annotations

import importlib
from types import ModuleType

from schedlib.testing import invariants
from schedlib.testing.conformance import (
    Candidate,
    ConformanceError,
    check_scheduler,
    parametrize_with_checks,
)

__all__ = [
    "Candidate",
    "ConformanceError",
    "check_scheduler",
    "invariants",
    "parametrize_with_checks",
    "strategies",
]


def __getattr__(name: str) -> ModuleType:
    # `strategies` is loaded on first use, so that the checkers work without hypothesis.
    if name == "strategies":
        return importlib.import_module("schedlib.testing.strategies")
    raise AttributeError(f"module 'schedlib.testing' has no attribute {name!r}")
