"""The public testing kit: invariant checkers and hypothesis strategies.

- [`schedlib.testing.invariants`][schedlib.testing.invariants]: plain predicates over run
  records that raise `AssertionError` with an explanation. They need nothing beyond
  the base install.
- [`schedlib.testing.strategies`][schedlib.testing.strategies]: hypothesis strategies
  for workloads, clusters, availability patterns, speed histories, ... They need
  hypothesis: install the `test` extra (`pip install 'schedlib[test]'`); without it,
  importing them raises an `ImportError` that names the extra.

Point them at your own scheduler: produce a [`RunRecord`][schedlib.model.RunRecord]
and call the checkers (see the how-to "Test your own scheduler").

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

__all__ = ["invariants", "strategies"]


def __getattr__(name: str) -> ModuleType:
    # `strategies` is loaded on first use, so that the checkers work without hypothesis.
    if name == "strategies":
        return importlib.import_module("schedlib.testing.strategies")
    raise AttributeError(f"module 'schedlib.testing' has no attribute {name!r}")
