"""Markers of the workload tests."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: reads a real trace of more than 100,000 records (still runs in CI)"
    )
