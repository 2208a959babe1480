"""Execution helpers: results in input order for any worker count; no progress bar off a tty."""

from __future__ import annotations

import io

import pytest

from schedlib.errors import InvalidValueError
from schedlib.execution import ProgressBar, parallel_map


def _square(x: int) -> int:
    return x * x


def test_parallel_map_keeps_input_order_whatever_the_workers() -> None:
    items = list(range(-20, 20))
    expected = [x * x for x in items]
    assert parallel_map(_square, items, workers=1) == expected
    assert parallel_map(_square, items, workers=2) == expected


def test_parallel_map_rejects_zero_workers() -> None:
    with pytest.raises(InvalidValueError, match="workers"):
        parallel_map(_square, [1, 2], workers=0)


def test_progress_bar_draws_only_when_enabled() -> None:
    quiet = io.StringIO()
    with ProgressBar(10, "run", stream=quiet) as bar:
        bar(5)
    assert quiet.getvalue() == ""
    shown = io.StringIO()
    with ProgressBar(10, "run", stream=shown, enabled=True) as bar:
        bar(5)
    assert "run [" in shown.getvalue() and "50%" in shown.getvalue()
