"""Execution helpers: results in input order for any worker count; no progress bar off a tty."""

from __future__ import annotations

import io
from concurrent.futures import ThreadPoolExecutor

import pytest

from schedlib.errors import InvalidValueError
from schedlib.execution import ProgressBar, RunFailedError, parallel_map, run_all


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


def _fragile(x: int) -> int:
    if x == 7:
        raise ZeroDivisionError("seven is bad luck")
    return x


def test_a_failing_run_names_its_input_whatever_the_workers() -> None:
    for workers in (1, 2):
        with pytest.raises(RunFailedError, match="the run of 7 failed: ZeroDivisionError") as error:
            parallel_map(_fragile, range(10), workers=workers)
        assert error.value.item == "7" and not error.value.user_error


def test_run_all_reports_each_result_as_it_completes_and_returns_input_order() -> None:
    seen: list[tuple[int, int]] = []
    with ThreadPoolExecutor(max_workers=3) as pool:
        results = run_all(
            _square, range(6), executor=pool, on_result=lambda i, r: seen.append((i, r))
        )
    assert results == [0, 1, 4, 9, 16, 25]
    assert sorted(seen) == [(i, i * i) for i in range(6)]
