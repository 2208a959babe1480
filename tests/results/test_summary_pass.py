"""The one-pass summary gives the figures of the per-job metric functions, float for float."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from schedlib.model import FinalState, JobOutcome, RunRecord
from schedlib.results.metrics import (
    Summary,
    bounded_slowdown,
    percentile,
    ran,
    slowdown,
    summarize,
    summarize_outcomes,
    turnaround,
    wait,
)

TIMES = st.one_of(
    st.integers(0, 10**6),
    st.floats(0, 1e7, allow_nan=False),
    st.sampled_from([0, 0.0, -0.0, 1e-7, 10, 10.0, 9.999999999999998, 5e-324]),
)


@st.composite
def outcomes(draw: st.DrawFn) -> JobOutcome:
    submit = draw(TIMES)
    start = draw(st.one_of(st.none(), TIMES))
    end = draw(st.one_of(st.none(), TIMES))
    return JobOutcome(
        job=1,
        submit=submit,
        procs=draw(st.integers(0, 64)),
        requested_time=None,
        state=draw(st.one_of(st.none(), st.sampled_from(FinalState))),
        reason="",
        start=start,
        end=end,
        executed=draw(TIMES),
        place=(),
        preemptions=0,
        migrations=0,
        failures=0,
    )


def _total(values: Any) -> Any:
    """Left to right from the integer 0, as the summary adds (not `sum`, which compensates
    float rounding from Python 3.12 on)."""
    total = 0
    for value in values:
        total += value
    return total


def _reference(outcomes: list[JobOutcome], threshold: float) -> dict[str, Any]:
    """The summary from the per-job functions, summed in the outcomes' order."""
    done = [o for o in outcomes if ran(o)]
    waits = [wait(o) for o in done]
    slows = [s for s in map(slowdown, done) if s is not None]
    starts = [o.start for o in done]
    ends = [o.end for o in done]
    span = max(ends) - min(starts) if done else 0  # type: ignore[type-var,operator]
    used = _total(o.procs * o.executed for o in outcomes)
    n = len(done)
    return {
        "jobs": len(outcomes),
        "completed": sum(o.state is FinalState.COMPLETED for o in outcomes),
        "killed": sum(o.state is FinalState.KILLED_AT_LIMIT for o in outcomes),
        "cancelled": sum(o.state is FinalState.CANCELLED_IN_LOG for o in outcomes),
        "mean_wait": _total(waits) / n if n else math.nan,  # type: ignore[arg-type]
        "median_wait": percentile([float(w) for w in waits], 50),  # kept as doubles
        "max_wait": float(max(waits)) if n else math.nan,  # type: ignore[type-var]
        "mean_turnaround": _total(map(turnaround, done)) / n if n else math.nan,  # type: ignore[arg-type]
        "mean_slowdown": _total(slows) / len(slows) if slows else math.nan,
        "mean_bounded_slowdown": (
            _total(bounded_slowdown(o, threshold) for o in done) / n if n else math.nan  # type: ignore[misc]
        ),
        "utilisation": used / (4 * span) if span > 0 else 0.0,
        "makespan": float(span),
    }


def _same(a: Any, b: Any) -> bool:
    """Equal as written out: same type and same text (so -0.0 is not 0.0, NaN is NaN)."""
    return type(a) is type(b) and repr(a) == repr(b)


@given(st.lists(outcomes(), max_size=8), st.sampled_from([10.0, 10, 0.5, 1e-9]))
@example(
    [
        JobOutcome(1, 0, 2, None, FinalState.COMPLETED, "", 3, 13, 10, (), 0, 0, 0),
        JobOutcome(2, 0, 2, None, FinalState.KILLED_AT_LIMIT, "", 1, 5, 0, (), 0, 0, 0),
        JobOutcome(3, 0.5, 1, None, FinalState.COMPLETED, "", 0.5, 9, 8.5, (), 0, 0, 0),
        JobOutcome(4, 0, 1, None, FinalState.FAILED, "", 0, 2, 2, (), 0, 0, 1),
    ],
    10.0,
)
@example(  # equal waits 0 and -0.0: the first is the maximum, as `max` has it
    [
        JobOutcome(1, 0, 1, None, FinalState.COMPLETED, "", 0, 3, 3, (), 0, 0, 0),
        JobOutcome(2, 0, 1, None, FinalState.COMPLETED, "", -0.0, 3, 3, (), 0, 0, 0),
    ],
    10.0,
)
@example(  # integer sums stay exact past 2**53 (a float sum would round)
    [
        JobOutcome(1, 0, 1, None, FinalState.COMPLETED, "", 2**53 + 1, 2**54, 5, (), 0, 0, 0),
        JobOutcome(2, 0, 1, None, FinalState.COMPLETED, "", 1, 9, 8, (), 0, 0, 0),
    ],
    10.0,
)
def test_one_pass_summary_equals_the_per_job_functions(
    outcomes: list[JobOutcome], threshold: float
) -> None:
    record = RunRecord("easy", (), 4, (), outcomes)
    got = summarize(record, threshold=threshold)
    assert isinstance(got, Summary)
    for name, value in _reference(outcomes, threshold).items():
        assert _same(getattr(got, name), value), (name, getattr(got, name), value)
    streamed = summarize_outcomes(
        iter(outcomes), algorithm="easy", capacity=4, threshold=threshold, median=False
    )
    assert _same(streamed.mean_bounded_slowdown, got.mean_bounded_slowdown)
    assert math.isnan(streamed.median_wait)
