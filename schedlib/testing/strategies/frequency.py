"""Hypothesis strategies for pools run by PFS / MFS: nodes, jobs with CPU bursts, parameters.

By default everything is drawn so that simulated times are exact: speeds
are powers of two, availabilities 1 or 1/2 (so node rates are powers of
two), works, idle times, submissions, quanta and costs are small integers
and grace factors are 1, 1.5 or 2. Many events then fall on the same
instant — slices ending as jobs arrive, several jobs preempted at once,
bursts that fit their quantum exactly — which is where scheduling rules go
wrong. With `float_times=True` ([`pools`][schedlib.testing.strategies.frequency.pools],
[`pool_jobs`][schedlib.testing.strategies.frequency.pool_jobs]) works, idle
times and submissions are arbitrary floats and rates, quanta and costs are
not powers of two: times are rounded as real runs round them.

Examples
--------
>>> from hypothesis import given
>>> @given(pools())
... def test(case):
...     jobs, nodes, settings = case
...     assert jobs and nodes and settings["quantum"] > 0
>>> test()
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from schedlib.errors import InvalidValueError
from schedlib.frequency.pool import PoolJob, PoolNode
from schedlib.validation import require

__all__ = [
    "EXACT_AVAILABILITIES",
    "EXACT_SPEEDS",
    "FLOAT_AVAILABILITIES",
    "FLOAT_SPEEDS",
    "pool_jobs",
    "pool_nodes",
    "pool_settings",
    "pools",
]

EXACT_SPEEDS: tuple[float, ...] = (1.0, 2.0, 0.5)
"""Node speeds drawn by default (powers of two: exact times)."""
EXACT_AVAILABILITIES: tuple[float, ...] = (1.0, 0.5)
"""Node availabilities drawn by default."""
FLOAT_SPEEDS: tuple[float, ...] = (1.0, 1.5, 0.75, 2.5)
"""Node speeds drawn with `float_times=True`."""
FLOAT_AVAILABILITIES: tuple[float, ...] = (1.0, 0.6, 0.35)
"""Node availabilities drawn with `float_times=True`."""


def _range(low: int, high: int, name: str, floor: int = 0) -> None:
    require(low, f"min_{name}", at_least=floor)
    if high < low:
        raise InvalidValueError(f"max_{name}", high, f"must be >= min_{name} = {low}")


def _choices(values: Sequence[Any], name: str, positive: bool = True) -> tuple[Any, ...]:
    chosen = tuple(values)
    if not chosen:
        raise InvalidValueError(name, chosen, "needs at least one value")
    for value in chosen:
        require(value, f"{name}[i]", **({"greater_than": 0} if positive else {"at_least": 0}))
    return chosen


def pool_nodes(
    *,
    min_remote: int = 0,
    max_remote: int = 3,
    speeds: Sequence[float] = EXACT_SPEEDS,
    availabilities: Sequence[float] = EXACT_AVAILABILITIES,
) -> st.SearchStrategy[tuple[PoolNode, ...]]:
    """A pool: a head node and `min_remote..max_remote` remote nodes.

    Shrinks towards the head node alone, of the first speed and availability.

    Raises
    ------
    InvalidValueError
        If `min_remote < 0`, `max_remote < min_remote`, or a speed or
        availability list is empty or holds a value outside its range.
    """
    _range(min_remote, max_remote, "remote")
    speed_choices = _choices(speeds, "speeds")
    for value in _choices(availabilities, "availabilities"):
        require(value, "availabilities[i]", at_most=1)
    node = st.builds(
        PoolNode, st.sampled_from(speed_choices), st.sampled_from(tuple(availabilities))
    )
    return st.lists(node, min_size=min_remote + 1, max_size=max_remote + 1).map(tuple)


@st.composite
def _jobs(
    draw: st.DrawFn,
    min_jobs: int,
    max_jobs: int,
    max_bursts: int,
    max_work: int,
    max_think: int,
    max_submit: int,
    float_times: bool,
) -> tuple[PoolJob, ...]:
    def number(low: float, high: float) -> st.SearchStrategy[Any]:
        if float_times:  # hundredths (sums and differences round onto boundaries) or any float
            hundredths = st.integers(round(low * 100), round(high * 100)).map(lambda n: n / 100)
            return hundredths | st.floats(low, high, allow_nan=False, allow_infinity=False)
        return st.integers(int(low), int(high))

    count = draw(st.integers(min_jobs, max_jobs))
    jobs = []
    for job_id in range(count):
        submit = draw(number(0, max_submit))
        work = draw(
            st.lists(number(0.01 if float_times else 1, max_work), min_size=1, max_size=max_bursts)
        )
        if len(work) == 1:
            jobs.append(PoolJob.cpu_bound(job_id, submit, work[0]))
            continue
        think = draw(st.lists(number(0, max_think), min_size=len(work) - 1, max_size=len(work) - 1))
        jobs.append(PoolJob.interactive(job_id, submit, work, think))
    return tuple(jobs)


def pool_jobs(
    *,
    min_jobs: int = 1,
    max_jobs: int = 6,
    max_bursts: int = 3,
    max_work: int = 12,
    max_think: int = 4,
    max_submit: int = 8,
    float_times: bool = False,
) -> st.SearchStrategy[tuple[PoolJob, ...]]:
    """Workloads: jobs with ids `0..n-1`, each of 1 to `max_bursts` bursts.

    A job with one burst is labelled CPU-bound, a job with several
    interactive (the label is never read by a rule). Works, idle times and
    submissions are integers, or with `float_times` floats (works at least
    0.01): hundredths, such as 2.17, whose differences with quanta such as 0.7
    round onto the grace boundary, or any float. Shrinks towards one CPU-bound
    job of work 1 (0.01) submitted at 0.

    Raises
    ------
    InvalidValueError
        If a bound is out of range (`min_jobs >= 1`, `max_bursts`,
        `max_work >= 1`, `max_think`, `max_submit >= 0`).
    """
    _range(min_jobs, max_jobs, "jobs", floor=1)
    require(max_bursts, "max_bursts", at_least=1)
    require(max_work, "max_work", at_least=1)
    require(max_think, "max_think", at_least=0)
    require(max_submit, "max_submit", at_least=0)
    return _jobs(min_jobs, max_jobs, max_bursts, max_work, max_think, max_submit, float_times)


def pool_settings(
    *,
    quanta: Sequence[float] = (1, 2),
    graces: Sequence[float] = (1.0, 1.5, 2.0),
    max_preemptions: Sequence[int] = (1, 2, 3),
    max_mfs: Sequence[int] = (0, 1, 2),
    costs: Sequence[float] = (0, 1, 2),
    seeds: Sequence[int] = (0, 1, 2),
) -> st.SearchStrategy[dict[str, Any]]:
    """Keyword arguments for [`simulate_pool`][schedlib.frequency.simulation.simulate_pool].

    `quantum`, `grace`, `max_preemption`, `max_mf`, `cost` (a
    [`MigrationCost`][schedlib.frequency.cost.MigrationCost] whose $K$ is
    drawn from `costs`, split between $K_C$ and $K_{C/R}$) and `seed`. Shrinks
    towards the first value of each list.

    Raises
    ------
    InvalidValueError
        If a list is empty or holds a value outside its parameter's range.
    """
    from schedlib.frequency.cost import MigrationCost

    qs = _choices(quanta, "quanta")
    gs = _choices(graces, "graces")
    for g in gs:
        require(g, "graces[i]", at_least=1)
    ps = _choices(max_preemptions, "max_preemptions")
    for p in ps:
        require(p, "max_preemptions[i]", at_least=1)
    ms = _choices(max_mfs, "max_mfs", positive=False)
    ks = _choices(costs, "costs", positive=False)
    return st.fixed_dictionaries(
        {
            "quantum": st.sampled_from(qs),
            "grace": st.sampled_from(gs),
            "max_preemption": st.sampled_from(ps),
            "max_mf": st.sampled_from(ms),
            "cost": st.sampled_from(ks).map(lambda k: MigrationCost(k / 2, k / 2)),
            "seed": st.sampled_from(tuple(seeds)),
        }
    )


def pools(
    *,
    min_remote: int = 0,
    max_remote: int = 3,
    max_jobs: int = 6,
    max_bursts: int = 3,
    max_work: int = 12,
    float_times: bool = False,
) -> st.SearchStrategy[tuple[tuple[PoolJob, ...], tuple[PoolNode, ...], dict[str, Any]]]:
    """`(jobs, nodes, settings)`: a whole input of `simulate_pool` (policy aside).

    With `float_times`, float works, idle times and submissions
    ([`pool_jobs`][schedlib.testing.strategies.frequency.pool_jobs]), speeds
    [`FLOAT_SPEEDS`][schedlib.testing.strategies.frequency.FLOAT_SPEEDS],
    availabilities
    [`FLOAT_AVAILABILITIES`][schedlib.testing.strategies.frequency.FLOAT_AVAILABILITIES],
    quanta 0.7 or 1.3, grace 1, 1.1 or 1.5 and $K$ 0, 0.3 or 1.1.

    Shrinks as its parts do: one job of work 1, the head node alone, the
    first settings.

    Raises
    ------
    InvalidValueError
        If a bound is out of range (see the parts).
    """
    jobs = pool_jobs(
        max_jobs=max_jobs, max_bursts=max_bursts, max_work=max_work, float_times=float_times
    )
    if not float_times:
        nodes = pool_nodes(min_remote=min_remote, max_remote=max_remote)
        return st.tuples(jobs, nodes, pool_settings())
    nodes = pool_nodes(
        min_remote=min_remote,
        max_remote=max_remote,
        speeds=FLOAT_SPEEDS,
        availabilities=FLOAT_AVAILABILITIES,
    )
    floats = pool_settings(quanta=(0.7, 1.3), graces=(1.0, 1.1, 1.5), costs=(0, 0.3, 1.1))
    return st.tuples(jobs, nodes, floats)
