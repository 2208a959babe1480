"""The starvation bound of the priority formula: it holds with alpha > 0, and alpha = 0 starves.

The adversarial input is a stream of short jobs that keeps one node busy
(`busy_streams`): with shortest remaining time first (alpha = 0) the long
job waits as long as the stream lasts; with alpha > 0 its wait is bounded by
the work of the jobs that arrived before its horizon.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from schedlib.errors import InvalidValueError
from schedlib.preemption.grid import simulate_grid
from schedlib.preemption.priority import overtake_window, starvation_bound
from schedlib.preemption.resources import GridJob, GridNode
from schedlib.testing.invariants import check_decision, check_no_starvation
from schedlib.testing.strategies import busy_streams

ALPHAS = st.sampled_from([0.5, 1.0, 2.0])


def node(cores: int) -> list[GridNode]:
    return [GridNode(0, (cores,), 1.0)]


def regular_stream(count: int, runtime: int = 5) -> list[GridJob]:
    """A 100 s job and `count` jobs of `runtime` s arriving back to back from t = 0."""
    jobs = [GridJob(0, 0, (1,), 100, 100)]
    jobs += [GridJob(i + 1, i * runtime, (1,), runtime, runtime) for i in range(count)]
    return jobs


@settings(max_examples=200)
@given(st.integers(1, 3), ALPHAS, st.data())
def test_alpha_positive_bounds_every_wait(cores: int, alpha: float, data: Any) -> None:
    jobs = data.draw(busy_streams(cores=cores, max_short=60))
    nodes = node(cores)
    record = simulate_grid(jobs, nodes, alpha=alpha, observer=check_decision)
    check_no_starvation(record, nodes, alpha=alpha, beta=1.0, delta=5)


@settings(max_examples=100)
@given(st.integers(1, 3), st.data())
def test_alpha_zero_starves_the_long_job_while_the_stream_lasts(cores: int, data: Any) -> None:
    jobs = data.draw(busy_streams(cores=cores))
    record = simulate_grid(jobs, node(cores), alpha=0.0)
    outcome = record.outcome_map()
    last_short = max(outcome[j.id].end for j in jobs[1:])  # type: ignore[type-var]
    assert outcome[0].start is not None and outcome[0].start >= last_short


def test_alpha_zero_wait_grows_with_the_stream_alpha_positive_does_not() -> None:
    waits = {}
    for alpha in (0.0, 0.5):
        for count in (10, 100, 1000):
            record = simulate_grid(regular_stream(count), node(1), alpha=alpha)
            waits[alpha, count] = record.outcome_map()[0].start
    assert [waits[0.0, n] for n in (10, 100, 1000)] == [50, 500, 5000]
    # alpha = 0.5: later jobs outrank it only for 200 s (horizon = beta * 100 / alpha).
    # At 190 s it ties with the job arriving then (-5 = 0.5 * 190 - 100) and wins on its
    # earlier arrival, whatever the stream's length; the bound is the 200 s of work of
    # the 40 jobs that arrived by 195 s.
    assert [waits[0.5, n] for n in (100, 1000)] == [190, 190]
    assert overtake_window(0, 100, alpha=0.5, beta=1.0) == 200
    assert starvation_bound([5] * 40) == 200


def test_the_bound_fails_on_alpha_zero_runs() -> None:
    """The broken variant: decisions that ignore the wait (alpha = 0) checked against
    the bound for alpha = 0.5."""

    @settings(
        max_examples=300,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
        phases=[Phase.generate],
    )
    @given(busy_streams(max_short=60))
    def inner(jobs: list[GridJob]) -> None:
        record = simulate_grid(jobs, node(1), alpha=0.0)
        check_no_starvation(record, node(1), alpha=0.5, beta=1.0, delta=5)

    with pytest.raises(AssertionError, match="more than the bound"):
        inner()


def test_the_checker_refuses_alpha_zero() -> None:
    record = simulate_grid(regular_stream(2), node(1))
    with pytest.raises(InvalidValueError, match="alpha"):
        check_no_starvation(record, node(1), alpha=0.0, beta=1.0)


def test_bound_holds_across_nodes_with_preemption_overhead() -> None:
    nodes = [GridNode(0, (2,), 1.0), GridNode(1, (1,), 2.0)]
    jobs = [GridJob(0, 0, (2,), 400, 400)]
    jobs += [GridJob(i, 3 * i, (1,), 7, 7) for i in range(1, 120)]
    from schedlib.preemption.topology import ring

    record = simulate_grid(jobs, nodes, alpha=0.5, overhead=2, topology=ring(2))
    check_no_starvation(record, nodes, alpha=0.5, beta=1.0, delta=5, overhead=2)
