"""Exact percentiles of streamed values (`SpilledValues`) against sorting them all."""

from __future__ import annotations

import math
import struct
import tracemalloc

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from schedlib.errors import InvalidValueError
from schedlib.model import FinalState, JobOutcome
from schedlib.results import quantiles
from schedlib.results.metrics import percentile, summarize_outcomes
from schedlib.results.quantiles import SpilledValues

# Values with many repeats (few distinct small integers), wide spreads, signed zeros,
# and numbers a few ulps apart, where bucketing is hardest.
CLOSE = [1.0, math.nextafter(1.0, 2), math.nextafter(math.nextafter(1.0, 2), 2)]
VALUES = st.one_of(
    st.integers(-3, 3).map(float),
    st.sampled_from([0.0, -0.0, *CLOSE, 5e-324, -5e-324]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.floats(-1e6, 1e6, allow_nan=False),
)
QS = st.one_of(st.sampled_from([0, 50, 100, 25, 99.9]), st.floats(0, 100))


def bits(x: float) -> bytes:
    """The float's bytes: tells -0.0 from 0.0 and compares NaN by value."""
    return struct.pack("<d", x)


def spilled(values: list[float], limit: int, buckets: int) -> SpilledValues:
    kept = SpilledValues(limit=limit, buckets=buckets)
    for v in values:
        kept.append(v)
    return kept


@settings(max_examples=400)
@given(
    values=st.lists(VALUES, max_size=60),
    q=QS,
    limit=st.integers(1, 9),
    buckets=st.integers(2, 5),
)
@example(values=[1.0, 2.0, 3.0, 4.0], q=50, limit=1, buckets=2)  # adjacent ranks, two buckets
@example(values=[0.0, -0.0, 0.0, -0.0, -0.0], q=50, limit=1, buckets=2)
@example(values=[-1.7e308, 1.7e308, 0.0, 1.0], q=50, limit=1, buckets=2)  # range overflows
@example(values=[5e-324, 0.0, 1e-323, 5e-324], q=37.5, limit=1, buckets=3)  # scale overflows
def test_the_same_float_as_sorting_every_value(
    values: list[float], q: float, limit: int, buckets: int
) -> None:
    with spilled(values, limit, buckets) as kept:
        assert len(kept) == len(values)
        assert kept.spilled == len(values) - len(values) % limit
        assert bits(kept.percentile(q)) == bits(percentile(values, q))
        assert bits(kept.percentile(50)) == bits(percentile(values, 50))  # asked twice


@given(values=st.lists(st.integers(0, 10**6).map(float), min_size=1, max_size=300))
def test_appending_after_a_percentile_was_asked(values: list[float]) -> None:
    half = len(values) // 2
    with spilled(values[:half], 7, 3) as kept:
        kept.percentile(50)
        for v in values[half:]:
            kept.append(v)
        assert kept.percentile(90) == percentile(values, 90)


def test_selection_rounds_on_a_large_spill() -> None:
    """Many values over many rounds: 20,000 values, 64 held, 4 buckets."""
    values = [float((i * 7919) % 10007) + (i % 3) * 0.25 for i in range(20_000)]
    with spilled(values, 64, 4) as kept:
        for q in (0, 1, 33.3, 50, 99, 100):
            assert kept.percentile(q) == percentile(values, q)


def test_no_value_gives_nan_and_bad_arguments_are_named() -> None:
    assert math.isnan(SpilledValues().percentile(50))
    with pytest.raises(InvalidValueError, match="q"):
        SpilledValues().percentile(101)
    with pytest.raises(InvalidValueError, match="limit"):
        SpilledValues(limit=0)
    with pytest.raises(InvalidValueError, match="buckets"):
        SpilledValues(buckets=1)


def test_a_nan_is_sorted_as_percentile_sorts_it_until_a_spill_then_gives_nan() -> None:
    values = [3.0, math.nan, 1.0, 2.0]
    with spilled(values, 10, 2) as kept:
        assert bits(kept.percentile(50)) == bits(percentile(values, 50))
    with spilled(values, 2, 2) as kept:
        assert math.isnan(kept.percentile(50))
    with spilled(values[2:], 1, 2) as kept:
        assert kept.percentile(50) == 1.5  # no NaN: the spilled answer


def test_close_forgets_everything() -> None:
    kept = spilled([3.0, 1.0, 2.0], 2, 2)
    kept.close()
    assert len(kept) == 0 and kept.spilled == 0 and math.isnan(kept.percentile(50))


def test_memory_stays_bounded_past_the_limit() -> None:
    """One million values, 4,096 held: the median holds what the limit allows, not 8 MB."""
    tracemalloc.start()
    try:
        with SpilledValues(limit=4096, buckets=64) as kept:
            for i in range(1_000_000):
                kept.append(float((i * 7919) % 1_000_003))
            median = kept.percentile(50)
            peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert median == percentile([float((i * 7919) % 1_000_003) for i in range(1_000_000)], 50)
    assert peak < 1_500_000, peak  # the values alone: 8 MB


def done(job: int, wait: float) -> JobOutcome:
    start = 100 + wait
    return JobOutcome(job, 100, 1, 10, FinalState.COMPLETED, "", start, start + 5, 5, (0,), 0, 0, 0)


@given(st.lists(st.integers(0, 500), min_size=1, max_size=80))
def test_a_summary_past_the_limit_is_the_summary_within_it(waits: list[int]) -> None:
    outcomes = [done(i, w) for i, w in enumerate(waits)]
    within = summarize_outcomes(outcomes, algorithm="fcfs", capacity=4)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(quantiles, "SPILL_LIMIT", 3)
        patch.setattr(quantiles, "BUCKETS", 2)
        past = summarize_outcomes(iter(outcomes), algorithm="fcfs", capacity=4)
    assert past == within
    assert within.median_wait == percentile([float(w) for w in waits], 50)
