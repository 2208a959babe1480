"""The desktop grid model: jobs, speed histories, the paper's Markov load model."""

from __future__ import annotations

import math
import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlib.deferment.desktopgrid import (
    LoadModel,
    MarkovSpeedHistory,
    Processor,
    SpeedHistory,
    TaskJob,
    finish_time,
    markov_grid,
    work_done,
)
from schedlib.errors import InvalidValueError
from schedlib.testing.strategies import (
    adversarial_processors,
    speed_histories,
    stalling_histories,
    task_jobs,
)


def test_job_size_is_the_sum_of_its_tasks() -> None:
    job = TaskJob(3, 1.5, [2, 3, 5])
    assert job.tasks == (2, 3, 5)
    assert (job.size, job.n_tasks, job.procs) == (10, 3, 1)


def test_job_size_does_not_depend_on_the_order_of_its_tasks() -> None:
    """Regression (issue 25, float audit S6): `sum` gives 0.6000000000000001 one way
    and 0.6 the other, so C2 and overtaking could tell two equal jobs apart."""
    assert TaskJob(1, 0, (0.1, 0.2, 0.3)).size == TaskJob(2, 0, (0.3, 0.2, 0.1)).size == 0.6
    assert type(TaskJob(1, 0, (2, 3)).size) is int  # whole sizes stay whole


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"id": -1, "submit": 0, "tasks": (1,)}, "TaskJob.id"),
        ({"id": 1, "submit": -1, "tasks": (1,)}, "TaskJob.submit"),
        ({"id": 1, "submit": math.inf, "tasks": (1,)}, "TaskJob.submit"),
        ({"id": 1, "submit": 0, "tasks": ()}, "TaskJob.tasks"),
        ({"id": 1, "submit": 0, "tasks": (1, 0)}, "TaskJob.tasks[1]"),
        ({"id": 1, "submit": 0, "tasks": (math.nan,)}, "TaskJob.tasks[0]"),
        ({"id": 1, "submit": 0, "tasks": ("3",)}, "TaskJob.tasks[0]"),
    ],
)
def test_bad_jobs_are_refused(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidValueError) as error:
        TaskJob(**kwargs)  # type: ignore[arg-type]
    assert error.value.field == field


@pytest.mark.parametrize(
    ("times", "speeds", "field"),
    [
        ((), (), "SpeedHistory.speeds"),
        ((0, 1), (1,), "SpeedHistory.speeds"),
        ((1,), (1,), "SpeedHistory.times[0]"),
        ((0, 2, 1), (1, 1, 1), "SpeedHistory.times[2]"),
        ((0, math.inf), (1, 1), "SpeedHistory.times[1]"),
        ((0,), (-1,), "SpeedHistory.speeds[0]"),
        ((0,), (math.inf,), "SpeedHistory.speeds[0]"),
    ],
)
def test_bad_histories_are_refused(
    times: tuple[float, ...], speeds: tuple[float, ...], field: str
) -> None:
    with pytest.raises(InvalidValueError) as error:
        SpeedHistory(times, speeds)
    assert error.value.field == field


def test_processor_speed_never_exceeds_its_peak() -> None:
    with pytest.raises(InvalidValueError, match="exceeds the peak"):
        Processor(2, SpeedHistory((0, 5), (1, 3)))
    with pytest.raises(InvalidValueError, match="segment_at"):
        Processor(2, "fast")  # type: ignore[arg-type]
    with pytest.raises(InvalidValueError, match=r"Processor\.peak"):
        Processor(0, SpeedHistory.constant(0))


def test_segments_are_half_open() -> None:
    history = SpeedHistory((0, 3, 7), (2, 0, 5))
    assert history.segment_at(0) == (2, 3)
    assert history.segment_at(2.999) == (2, 3)
    assert history.segment_at(3) == (0, 7)
    assert history.segment_at(7) == (5, math.inf)
    assert history.max_speed == 5


@given(history=speed_histories(), start=st.integers(0, 20), work=st.integers(1, 60))
def test_finish_time_inverts_work_done(history: SpeedHistory, start: int, work: int) -> None:
    end = finish_time(history, start, work)
    assert end > start
    assert math.isclose(work_done(history, start, end), work, rel_tol=1e-9)


def test_finish_time_is_infinite_on_a_dead_processor() -> None:
    assert finish_time(SpeedHistory((0, 2), (1, 0)), 0, 3) == math.inf
    with pytest.raises(InvalidValueError, match="work"):
        finish_time(SpeedHistory.constant(1), 0, 0)


def test_load_model_validates() -> None:
    with pytest.raises(InvalidValueError, match="to_low"):
        LoadModel(to_low=1.5)
    with pytest.raises(InvalidValueError, match=r"LoadModel\.high"):
        LoadModel(high=(0.1, 0.05))


def test_markov_history_is_a_pure_function_of_its_seed() -> None:
    probe = [0, 10, 5_000, 123.5, 20_000, 3]
    one = MarkovSpeedHistory(peak=20_000, seed=42)
    two = MarkovSpeedHistory(peak=20_000, seed=42)
    # different query orders: the lazily generated pieces are the same
    forward = [one.segment_at(t) for t in probe]
    backward = [two.segment_at(t) for t in reversed(probe)][::-1]
    assert forward == backward
    assert one == two and hash(one) == hash(two)
    assert MarkovSpeedHistory(peak=20_000, seed=43).segment_at(0) != one.segment_at(0)


def test_markov_history_matches_the_paper_load_model() -> None:
    """Table 1: visits last 1000 (low) and 100 (high) steps on average, at 95-100% / 0-5%."""
    peak = 10_000
    history = MarkovSpeedHistory(peak=peak, seed=7)
    low, high = [], []
    time = 0.0
    while time < 3_000_000:
        speed, end = history.segment_at(time)
        assert end == int(end) and end > time  # whole time steps
        (low if speed >= 0.95 * peak else high).append(end - time)
        assert 0.95 * peak <= speed <= peak or 0 <= speed <= 0.05 * peak
        time = end
    assert statistics.fmean(low[1:]) == pytest.approx(1000, rel=0.1)
    assert statistics.fmean(high[1:]) == pytest.approx(100, rel=0.1)
    share = sum(low) / (sum(low) + sum(high))
    assert share == pytest.approx(LoadModel().low_share(), abs=0.02)


def test_markov_grid_seeds_each_processor() -> None:
    grid = markov_grid([10_000, 20_000, 40_000], seed=3)
    assert [p.peak for p in grid] == [10_000, 20_000, 40_000]
    assert len({p.speed.seed for p in grid}) == 3  # type: ignore[attr-defined]
    assert grid == markov_grid([10_000, 20_000, 40_000], seed=3)


@given(jobs=task_jobs(), grid=adversarial_processors(final_zero=True))
def test_strategies_are_valid_by_construction(
    jobs: tuple[TaskJob, ...], grid: tuple[Processor, ...]
) -> None:
    assert len({job.id for job in jobs}) == len(jobs)
    for processor in grid:
        assert processor.speed.max_speed <= processor.peak


@given(history=stalling_histories())
def test_stalling_histories_stall(history: SpeedHistory) -> None:
    assert history.speeds[0] > 0 and history.speeds[1] == 0 and history.speeds[-1] > 0


@pytest.mark.parametrize(
    ("factory", "kwargs"),
    [
        (task_jobs, {"min_jobs": 3, "max_jobs": 2}),
        (task_jobs, {"max_tasks": 0}),
        (speed_histories, {"peak": 0}),
        (stalling_histories, {"max_stall": 0}),
        (adversarial_processors, {"peaks": ()}),
        (adversarial_processors, {"min_processors": 0}),
    ],
)
def test_strategy_bounds_are_checked_up_front(factory: object, kwargs: dict[str, object]) -> None:
    with pytest.raises(InvalidValueError):
        factory(**kwargs)  # type: ignore[operator]
