"""Hypothesis strategies for resources with planned availability and bags of jobs (PGS).

Every strategy is valid by construction and takes keyword-only bounds checked
up front. With `times="integer"` they draw times that are whole seconds or
quarter seconds (and restart delays on the 1/1024 s grid), so that every sum
the simulation makes is exact: "a job ends exactly when its resource goes
down" is then decided exactly. With `times="float"` runtimes, estimates and
the snapshot's durations are multiples of a quarter of a float tick
([`clock`][schedlib.testing.strategies.clock]; the snapshot's instants count
from the clock's origin, submissions from 0, not from the clock's far origin:
the resources' availability cycles would fill the engine's livelock window
before the first job arrives), so that such ties come out equal or an ulp apart;
`"mixed"` (the default) draws either. They shrink towards fewer and shorter
items, one `(uptime, downtime)` pair, fixed restart delays, exact estimates
and whole seconds.

Examples
--------
>>> from hypothesis import given
>>> @given(volatile_grids(max_jobs=3, max_resources=2))
... def test(grid):
...     jobs, resources, queue_length = grid
...     assert len(resources) <= 2 and len(jobs) <= 3 and queue_length >= 1
>>> test()
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st

from schedlib.availability.jobs import BagJob
from schedlib.availability.mapping import PendingJob, ResourceView, SchedulerSnapshot
from schedlib.availability.patterns import (
    AvailabilityPattern,
    ResourceAvailability,
    RestartDelay,
)
from schedlib.errors import InvalidValueError
from schedlib.testing.strategies.clock import TIME_MODES, Clock, clocks
from schedlib.validation import require

__all__ = [
    "availability_patterns",
    "bag_jobs",
    "resource_availabilities",
    "restart_delays",
    "scheduler_snapshots",
    "volatile_grids",
]

VolatileGrid = tuple[tuple[BagJob, ...], tuple[ResourceAvailability, ...], int]


def _quarters(low: float, high: float, tick: float = 1) -> st.SearchStrategy[float]:
    """Multiples of `tick / 4` from `low` to `high` ticks, shrinking towards `low`."""
    if tick == 1:
        return st.integers(int(low * 4), int(high * 4)).map(lambda q: q / 4)
    return st.integers(int(low * 4), int(high * 4)).map(lambda q: q * tick / 4)


def _times(times: str) -> None:
    if times not in TIME_MODES:
        raise InvalidValueError("times", times, f"must be one of {', '.join(TIME_MODES)}")


def _check_range(name_low: str, low: float, name_high: str, high: float) -> None:
    require(low, name_low, at_least=0)
    require(high, name_high, at_least=0)
    if low > high:
        raise InvalidValueError(name_low, low, f"must be <= {name_high} ({high})")


def availability_patterns(
    *,
    max_pairs: int = 3,
    min_uptime: int = 1,
    max_uptime: int = 100,
    max_downtime: int = 10,
) -> st.SearchStrategy[AvailabilityPattern]:
    """Repeating patterns of 1 to `max_pairs` `(uptime, downtime)` pairs, whole seconds.

    Shrinks towards one pair `(min_uptime, 0)`.

    Raises
    ------
    InvalidValueError
        If `max_pairs < 1`, `min_uptime < 1`, `min_uptime > max_uptime` or
        `max_downtime < 0`.
    """
    require(max_pairs, "max_pairs", at_least=1)
    require(min_uptime, "min_uptime", at_least=1)
    _check_range("min_uptime", min_uptime, "max_uptime", max_uptime)
    require(max_downtime, "max_downtime", at_least=0)
    pair = st.tuples(st.integers(min_uptime, max_uptime), st.integers(0, max_downtime))
    return st.lists(pair, min_size=1, max_size=max_pairs).map(AvailabilityPattern)


def restart_delays(*, max_mean: float = 2) -> st.SearchStrategy[RestartDelay]:
    """Restart delays: fixed, uniform or exponential, mean a multiple of 0.25 up to `max_mean`.

    Shrinks towards a fixed delay of 0.

    Raises
    ------
    InvalidValueError
        If `max_mean < 0`.
    """
    require(max_mean, "max_mean", at_least=0)
    return st.builds(
        RestartDelay,
        _quarters(0, max_mean),
        st.sampled_from(("fixed", "uniform", "exponential")),
    )


@st.composite
def _resource(
    draw: st.DrawFn,
    exact: bool,
    max_pairs: int,
    min_uptime: int,
    max_uptime: int,
    max_downtime: int,
    max_delay: float,
    phases: bool,
) -> ResourceAvailability:
    planned = draw(
        availability_patterns(
            max_pairs=max_pairs,
            min_uptime=min_uptime,
            max_uptime=max_uptime,
            max_downtime=max_downtime,
        )
    )
    actual = None
    if not exact:
        # Each actual uptime is the planned one plus or minus up to half of it.
        shifted = []
        for up, down in planned.periods:
            half = int(up // 2)
            change = draw(st.integers(-half, half))
            shifted.append((max(1, up + change), down))
        actual = AvailabilityPattern(shifted)
    restart = draw(restart_delays(max_mean=max_delay))
    phase = 0.0
    if phases:
        first = (actual or planned).uptime(0)
        phase = draw(_quarters(0, first - 0.25))
    return ResourceAvailability(planned, actual, restart, phase)


def resource_availabilities(
    *,
    exact: bool = True,
    max_pairs: int = 2,
    min_uptime: int = 1,
    max_uptime: int = 100,
    max_downtime: int = 5,
    max_delay: float = 1,
    phases: bool = True,
) -> st.SearchStrategy[ResourceAvailability]:
    """One resource's availability: a planned pattern, the actual one, a restart delay, a phase.

    Shrinks towards one pair `(min_uptime, 0)`, followed exactly, no
    restart delay and a starting phase of 0.

    Parameters
    ----------
    exact
        If true, the resource follows its plan; else each actual uptime is
        the planned one changed by up to half of it (at least 1 s).
    max_pairs, min_uptime, max_uptime, max_downtime
        Bounds of the pattern (see `availability_patterns`).
    max_delay
        Largest mean restart delay.
    phases
        If true, the resource may have been up for a while when the run
        begins (a multiple of 0.25 s, shorter than its first actual uptime);
        else it comes up at time 0.

    Raises
    ------
    InvalidValueError
        For bad bounds.
    """
    availability_patterns(
        max_pairs=max_pairs, min_uptime=min_uptime, max_uptime=max_uptime, max_downtime=max_downtime
    )
    require(max_delay, "max_delay", at_least=0)
    return _resource(exact, max_pairs, min_uptime, max_uptime, max_downtime, max_delay, phases)


@st.composite
def _bag(
    draw: st.DrawFn,
    min_jobs: int,
    max_jobs: int,
    max_runtime: float,
    max_submit: int,
    estimate_error: float,
    times: str,
) -> tuple[BagJob, ...]:
    clock: Clock = draw(clocks(times))
    count = draw(st.integers(min_jobs, max_jobs))
    jobs = []
    for i in range(count):
        runtime = draw(_quarters(0, max_runtime, clock.tick))
        submit = clock.span(draw(st.integers(0, max_submit)))  # from 0: see the module
        estimate = runtime
        if estimate_error > 0:
            # A factor on the 1/8 grid in [1 - error, 1 + error], shrinking to 1.
            steps = int(Fraction(estimate_error).limit_denominator(8) * 8)
            factor = 1 + draw(st.integers(-steps, steps)) / 8
            estimate = runtime * max(factor, 0)
        jobs.append(BagJob(i, submit, runtime, estimate))
    return tuple(jobs)


def bag_jobs(
    *,
    min_jobs: int = 0,
    max_jobs: int = 12,
    max_runtime: float = 120,
    max_submit: int = 50,
    estimate_error: float = 0,
    times: str = "mixed",
) -> st.SearchStrategy[tuple[BagJob, ...]]:
    """Bags of independent jobs, ids `0..n-1`, runtimes multiples of a quarter tick.

    Shrinks towards `min_jobs` jobs of runtime 0 submitted at 0, with exact
    estimates.

    Parameters
    ----------
    min_jobs, max_jobs
        How many jobs.
    max_runtime
        Longest runtime, in ticks.
    max_submit
        Latest submission time, in ticks from the origin.
    estimate_error
        `0` (default) gives exact estimates; else each estimate is the
        runtime times a factor $1 + k/8$ within $\\pm$ `estimate_error`
        (at most 1).
    times
        `"mixed"`, `"integer"` (a tick is 1 s) or `"float"` (see the module).

    Raises
    ------
    InvalidValueError
        For negative bounds, `min_jobs > max_jobs`, `estimate_error`
        outside $[0, 1]$, or another `times`.
    """
    _check_range("min_jobs", min_jobs, "max_jobs", max_jobs)
    require(max_runtime, "max_runtime", at_least=0)
    require(max_submit, "max_submit", at_least=0)
    require(estimate_error, "estimate_error", at_least=0, at_most=1)
    _times(times)
    return _bag(min_jobs, max_jobs, max_runtime, max_submit, estimate_error, times)


@st.composite
def _snapshot(
    draw: st.DrawFn,
    max_resources: int,
    max_jobs: int,
    max_queue_length: int,
    max_time: float,
    times: str,
) -> SchedulerSnapshot:
    clock: Clock = draw(clocks(times))
    tick = clock.tick
    queue_length = draw(st.integers(1, max_queue_length))
    next_id = iter(range(10**9))
    job = st.builds(lambda e: PendingJob(next(next_id), e), _quarters(0, max_time, tick))
    now = clock.origin + draw(_quarters(0, max_time, tick))
    views = []
    for index in range(draw(st.integers(1, max_resources))):
        # The planned down time: `remaining` after now, or (a resource up past its
        # plan) before it; sums and differences round with a float clock.
        remaining = draw(_quarters(0, max_time, tick))
        planned_down = max(0, now - remaining) if draw(st.booleans()) else now + remaining
        held = draw(st.integers(0, queue_length))
        running = draw(job) if held and draw(st.booleans()) else None
        started: float = 0
        if running is not None:  # has run at most its estimate (to the tick)
            elapsed = draw(_quarters(0, running.estimate / tick, tick))
            started = max(0, now - min(elapsed, running.estimate))
        queued = tuple(draw(job) for _ in range(held - (running is not None)))
        views.append(ResourceView(index, planned_down, running, started, queued))
    priority = tuple(draw(st.lists(job, max_size=max_jobs // 2)))
    regular = tuple(draw(st.lists(job, max_size=max_jobs - len(priority))))
    return SchedulerSnapshot(now, tuple(views), priority, regular, queue_length)


def scheduler_snapshots(
    *,
    max_resources: int = 4,
    max_jobs: int = 10,
    max_queue_length: int = 3,
    max_time: float = 100,
    times: str = "mixed",
) -> st.SearchStrategy[SchedulerSnapshot]:
    """What a scheduler knows at one instant: available resources and waiting jobs.

    Resources are numbered `0..n-1` in snapshot order; each holds at most
    `queue_length` jobs; a running job has run no longer than its estimate;
    job ids are unique across resources and queues. Estimates, the time to
    the planned down time (after `now`, or before it for a resource up past
    its plan) and elapsed times are multiples of a quarter tick up to
    `max_time` ticks; `now` counts from the clock's origin (`times`: see the
    module).

    Shrinks towards one resource going down in 0 s, no waiting job and
    `queue_length` 1.

    Raises
    ------
    InvalidValueError
        If a bound is `< 1` (`max_jobs` may be 0, `max_time` > 0).
    """
    require(max_resources, "max_resources", at_least=1)
    require(max_jobs, "max_jobs", at_least=0)
    require(max_queue_length, "max_queue_length", at_least=1)
    require(max_time, "max_time", greater_than=0)
    _times(times)
    return _snapshot(max_resources, max_jobs, max_queue_length, max_time, times)


def volatile_grids(
    *,
    exact: bool = True,
    max_jobs: int = 10,
    max_resources: int = 3,
    max_queue_length: int = 3,
    max_runtime: float = 120,
    max_submit: int = 50,
    max_uptime: int = 100,
    estimate_error: float = 0,
    times: str = "mixed",
    phases: bool = True,
) -> st.SearchStrategy[VolatileGrid]:
    """Whole instances: `(jobs, resources, queue_length)`.

    Shrinks towards no jobs, one resource up for 1 s at a time from time 0
    and queue length 1.

    Parameters
    ----------
    exact
        Resources follow their planned availability (see
        `resource_availabilities`).
    max_jobs, max_runtime, max_submit, estimate_error, times
        See `bag_jobs`.
    max_resources, max_uptime
        How many resources (at least one) and their longest uptime.
    max_queue_length
        Largest queue length drawn (from 1).
    phases
        Resources may start part-way through their first uptime (see
        `resource_availabilities`).

    Raises
    ------
    InvalidValueError
        For bad bounds.
    """
    require(max_resources, "max_resources", at_least=1)
    require(max_queue_length, "max_queue_length", at_least=1)
    require(max_uptime, "max_uptime", at_least=1)
    return st.tuples(
        bag_jobs(
            max_jobs=max_jobs,
            max_runtime=max_runtime,
            max_submit=max_submit,
            estimate_error=estimate_error,
            times=times,
        ),
        st.lists(
            resource_availabilities(exact=exact, max_uptime=max_uptime, phases=phases),
            min_size=1,
            max_size=max_resources,
        ).map(tuple),
        st.integers(1, max_queue_length),
    )
