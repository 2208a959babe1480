"""The public testing kit: invariant checkers and hypothesis strategies.

- [`schedlib.testing.invariants`][schedlib.testing.invariants]: plain predicates over run
  records that raise `AssertionError` with an explanation.
- [`schedlib.testing.strategies`][schedlib.testing.strategies]: hypothesis strategies
  for workloads, clusters, availability patterns, speed histories, ...

Point them at your own scheduler: produce a [`RunRecord`][schedlib.model.RunRecord]
and call the checkers (see the how-to "Test your own scheduler").

This package needs hypothesis: install the `test` extra
(`pip install 'schedlib[test]'`).
"""

try:
    import hypothesis  # noqa: F401
except ImportError as error:  # pragma: no cover - exercised in a subprocess test
    raise ImportError(
        "schedlib.testing needs hypothesis, which is not installed; "
        "install the 'test' extra: pip install 'schedlib[test]'"
    ) from error

from schedlib.testing import invariants, strategies

__all__ = ["invariants", "strategies"]
