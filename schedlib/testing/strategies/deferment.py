"""Hypothesis strategies for the desktop grid: multi-task jobs and adversarial speed histories.

The no-overtaking guarantee of task deferment (Mine et al. 2007 §4) must hold for
*any* speed history, so these strategies do not only sample the paper's
Markov model: they build adversarial histories — zero-speed stretches, a fast
processor that stalls, speeds that change exactly when tasks start or end.
Sizes, submissions and change times count small whole numbers of ticks of a
[`clock`][schedlib.testing.strategies.clock] (`times`: `"integer"`, a tick is one
second; `"float"`, a tick such as 0.1 that rounds; `"mixed"`, the default, either)
and speeds are small integers, so that submissions, completions and speed changes
often fall on the same instant: exactly with whole ticks, equal or an ulp apart with
float ticks (where a model that subtracts before comparing decides differently).

Examples
--------
>>> from hypothesis import given
>>> @given(desktop_grids())
... def test(case):
...     jobs, grid = case
...     assert jobs and grid
>>> test()
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from schedlib.deferment.desktopgrid import (
    LoadModel,
    Processor,
    SpeedHistory,
    TaskJob,
    markov_grid,
)
from schedlib.errors import InvalidValueError
from schedlib.testing.strategies.clock import TIME_MODES, Clock, clocks
from schedlib.validation import require

__all__ = [
    "adversarial_processors",
    "desktop_grids",
    "markov_processors",
    "speed_histories",
    "stalling_histories",
    "task_jobs",
]


def _times(times: str) -> None:
    if times not in TIME_MODES:
        raise InvalidValueError("times", times, f"must be one of {', '.join(TIME_MODES)}")


def _check_range(low: int, high: int, name: str) -> None:
    require(low, f"min_{name}", at_least=0)
    if high < low:
        raise InvalidValueError(f"max_{name}", high, f"must be >= min_{name} = {low}")


def _check_grid(min_processors: int, max_processors: int, peaks: Sequence[int]) -> None:
    _check_range(min_processors, max_processors, "processors")
    require(min_processors, "min_processors", at_least=1)
    if not peaks:
        raise InvalidValueError("peaks", peaks, "needs at least one peak speed")
    for peak in peaks:
        require(peak, "peaks[i]", at_least=1)


@st.composite
def _jobs(
    draw: Any,
    min_jobs: int,
    max_jobs: int,
    max_tasks: int,
    max_size: int,
    max_submit: int,
    times: str,
) -> tuple[TaskJob, ...]:
    clock: Clock = draw(clocks(times))
    count = draw(st.integers(min_jobs, max_jobs))
    jobs = []
    for job_id in range(count):
        submit = clock.span(draw(st.integers(0, max_submit)))
        sizes = draw(st.lists(st.integers(1, max_size), min_size=1, max_size=max_tasks))
        jobs.append(TaskJob(job_id, submit, tuple(clock.span(size) for size in sizes)))
    return tuple(jobs)


def task_jobs(
    *,
    min_jobs: int = 1,
    max_jobs: int = 4,
    max_tasks: int = 4,
    max_size: int = 8,
    max_submit: int = 6,
    times: str = "mixed",
) -> st.SearchStrategy[tuple[TaskJob, ...]]:
    """Workloads of multi-task jobs; sizes and submission times are whole numbers of ticks.

    Parameters
    ----------
    min_jobs, max_jobs
        Number of jobs (ids `0, 1, ...`).
    max_tasks
        Most tasks per job (at least one each).
    max_size
        Largest task size (instructions, `>= 1`).
    max_submit
        Latest submission time (`>= 0`).
    times
        What a tick is: `"mixed"` (default), `"integer"` or `"float"` (see the module).

    Returns
    -------
    SearchStrategy of tuple of TaskJob
        Shrinks towards fewer jobs, one task of size 1 each, all submitted at 0,
        whole ticks.

    Raises
    ------
    InvalidValueError
        For bounds that are negative or inverted.
    """
    _check_range(min_jobs, max_jobs, "jobs")
    require(max_tasks, "max_tasks", at_least=1)
    require(max_size, "max_size", at_least=1)
    require(max_submit, "max_submit", at_least=0)
    _times(times)
    return _jobs(min_jobs, max_jobs, max_tasks, max_size, max_submit, times)


@st.composite
def _history(
    draw: Any, peak: int, max_pieces: int, max_duration: int, final_zero: bool, times: str
) -> SpeedHistory:
    clock: Clock = draw(clocks(times))
    speeds = st.sampled_from(sorted({peak, 0, 1, max(1, peak // 2)}, reverse=True))
    count = draw(st.integers(1, max_pieces))
    changes, values, time = [], [], 0
    for index in range(count):
        last = index == count - 1
        speed = draw(speeds if not last or final_zero else st.integers(1, peak))
        changes.append(clock.span(time))
        values.append(speed)
        time += draw(st.integers(1, max_duration))
    return SpeedHistory(tuple(changes), tuple(values))


def speed_histories(
    *,
    peak: int = 4,
    max_pieces: int = 5,
    max_duration: int = 6,
    final_zero: bool = False,
    times: str = "mixed",
) -> st.SearchStrategy[SpeedHistory]:
    """Adversarial piecewise-constant speed histories (integer speeds, times in ticks).

    Each piece lasts 1 to `max_duration` ticks at a speed among the peak,
    half the peak, 1 and 0 (a stall).

    Parameters
    ----------
    peak
        Peak speed, an integer `>= 1`; no speed exceeds it.
    max_pieces
        Most pieces (the last one lasts for ever).
    max_duration
        Longest finite piece.
    final_zero
        Allow the last (infinite) piece to be a stall: a processor that dies
        for ever. Off by default, so that every task eventually completes.
    times
        What a tick is: `"mixed"` (default), `"integer"` or `"float"` (see the module).

    Returns
    -------
    SearchStrategy of SpeedHistory
        Shrinks towards a constant speed (the peak, or 1 for the last piece).

    Raises
    ------
    InvalidValueError
        For `peak`, `max_pieces` or `max_duration` below 1.
    """
    require(peak, "peak", at_least=1)
    require(max_pieces, "max_pieces", at_least=1)
    require(max_duration, "max_duration", at_least=1)
    _times(times)
    return _history(peak, max_pieces, max_duration, final_zero, times)


@st.composite
def _stalling(draw: Any, peak: int, max_start: int, max_stall: int, times: str) -> SpeedHistory:
    clock: Clock = draw(clocks(times))
    start = draw(st.integers(1, max_start))
    stall = draw(st.integers(1, max_stall))
    after = draw(st.integers(1, peak))
    return SpeedHistory((0, clock.span(start), clock.span(start + stall)), (peak, 0, after))


def stalling_histories(
    *, peak: int = 4, max_start: int = 6, max_stall: int = 30, times: str = "mixed"
) -> st.SearchStrategy[SpeedHistory]:
    """A fast processor that stalls: the peak speed, then zero for a while, then back.

    Parameters
    ----------
    peak
        Peak speed, an integer `>= 1`.
    max_start
        Latest time the stall begins (`>= 1`).
    max_stall
        Longest stall (`>= 1`).
    times
        What a tick is (see the module); `max_start` and `max_stall` count ticks.

    Returns
    -------
    SearchStrategy of SpeedHistory
        Shrinks towards a stall of 1 unit at time 1, then speed 1.

    Raises
    ------
    InvalidValueError
        For bounds below 1.
    """
    require(peak, "peak", at_least=1)
    require(max_start, "max_start", at_least=1)
    require(max_stall, "max_stall", at_least=1)
    _times(times)
    return _stalling(peak, max_start, max_stall, times)


def markov_processors(
    *, min_processors: int = 1, max_processors: int = 3, peaks: Sequence[int] = (1, 2, 4)
) -> st.SearchStrategy[tuple[Processor, ...]]:
    """Grids sampled from the paper's load model, switching fast (to keep runs short).

    The switching probabilities are 1/5 (low -> high) and 1/3 (high -> low)
    instead of the paper's 1/1000 and 1/100, so that small jobs see changes.

    Parameters
    ----------
    min_processors, max_processors
        Number of processors (`>= 1`).
    peaks
        Peak speeds to choose from.

    Returns
    -------
    SearchStrategy of tuple of Processor
        Shrinks towards fewer processors with the first peak and seed 0.

    Raises
    ------
    InvalidValueError
        For bad bounds or no peaks.
    """
    _check_grid(min_processors, max_processors, peaks)
    load = LoadModel(to_high=1 / 5, to_low=1 / 3)
    chosen = st.lists(
        st.sampled_from(tuple(peaks)), min_size=min_processors, max_size=max_processors
    )
    return st.builds(lambda p, seed: markov_grid(p, seed, load), chosen, st.integers(0, 2**32 - 1))


@st.composite
def _adversarial(
    draw: Any,
    min_processors: int,
    max_processors: int,
    peaks: tuple[int, ...],
    max_pieces: int,
    max_duration: int,
    final_zero: bool,
    times: str,
) -> tuple[Processor, ...]:
    count = draw(st.integers(min_processors, max_processors))
    grid = []
    for _ in range(count):
        peak = draw(st.sampled_from(peaks))
        history = draw(
            st.one_of(
                st.just(SpeedHistory.constant(peak)),
                speed_histories(
                    peak=peak,
                    max_pieces=max_pieces,
                    max_duration=max_duration,
                    final_zero=final_zero,
                    times=times,
                ),
                stalling_histories(peak=peak, max_start=max_duration, times=times),
            )
        )
        grid.append(Processor(peak, history))
    return tuple(grid)


def adversarial_processors(
    *,
    min_processors: int = 1,
    max_processors: int = 3,
    peaks: Sequence[int] = (1, 2, 4),
    max_pieces: int = 5,
    max_duration: int = 6,
    final_zero: bool = False,
    times: str = "mixed",
) -> st.SearchStrategy[tuple[Processor, ...]]:
    """Grids whose processors have adversarial histories.

    Each processor gets a peak from `peaks` and one of: a constant speed, a
    [`speed_histories`][schedlib.testing.strategies.speed_histories] sample
    (zero-speed stretches, changes on integer instants) or a
    [`stalling_histories`][schedlib.testing.strategies.stalling_histories]
    sample (a fast processor that stalls).

    Parameters
    ----------
    min_processors, max_processors
        Number of processors (`>= 1`).
    peaks
        Integer peak speeds to choose from.
    max_pieces, max_duration
        As for `speed_histories`.
    final_zero
        Allow processors that stall for ever.
    times
        What a tick is (see the module).

    Returns
    -------
    SearchStrategy of tuple of Processor
        Shrinks towards fewer processors of the first peak at constant speed.

    Raises
    ------
    InvalidValueError
        For bad bounds or no peaks.
    """
    _check_grid(min_processors, max_processors, peaks)
    _times(times)
    return _adversarial(
        min_processors,
        max_processors,
        tuple(peaks),
        max_pieces,
        max_duration,
        final_zero,
        times,
    )


def desktop_grids(
    *,
    max_jobs: int = 4,
    max_tasks: int = 4,
    max_size: int = 8,
    max_submit: int = 6,
    max_processors: int = 3,
    markov: bool = True,
    final_zero: bool = False,
    times: str = "mixed",
) -> st.SearchStrategy[tuple[tuple[TaskJob, ...], tuple[Processor, ...]]]:
    """A workload and a grid: `(jobs, processors)`.

    The grid is adversarial
    ([`adversarial_processors`][schedlib.testing.strategies.adversarial_processors])
    or, when `markov` is on, possibly sampled from the load model
    ([`markov_processors`][schedlib.testing.strategies.markov_processors]).

    Parameters
    ----------
    max_jobs, max_tasks, max_size, max_submit
        As for [`task_jobs`][schedlib.testing.strategies.task_jobs].
    max_processors
        Most processors (`>= 1`).
    markov
        Also draw Markov-sampled grids.
    final_zero
        Allow processors that stall for ever (runs may then need a horizon).
    times
        What a tick is, for the jobs and the adversarial histories (see the module).

    Returns
    -------
    SearchStrategy of (tuple of TaskJob, tuple of Processor)
        Shrinks towards one job of one unit task on one constant processor.

    Raises
    ------
    InvalidValueError
        For bad bounds.
    """
    jobs = task_jobs(
        max_jobs=max_jobs,
        max_tasks=max_tasks,
        max_size=max_size,
        max_submit=max_submit,
        times=times,
    )
    grids = adversarial_processors(
        max_processors=max_processors, final_zero=final_zero, times=times
    )
    if markov:
        grids = st.one_of(grids, markov_processors(max_processors=max_processors))
    return st.tuples(jobs, grids)
