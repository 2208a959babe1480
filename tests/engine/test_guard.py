"""The engine's progress guard: event budget and livelock rule, on by default.

A model that never finishes must end in `SimulationStuckError` naming the rule, the
jobs, the time and the last log entries, instead of running for ever; a model that
progresses, however slowly, must not trip it.
"""

from __future__ import annotations

import time
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlib.engine import Event, Phase, Step, default_budget, default_window, simulate
from schedlib.errors import InvalidValueError, SimulationStuckError
from schedlib.model import EventKind, JobEvent

State = tuple[int, ...]  # (work left of the single job, ticks seen)


@attrs.frozen
class Ticker:
    """One job that does `step` units of work per tick of length `period` (0: no time passes).

    Logs a `START` at every tick (a decision that changes nothing) and `COMPLETE` at the end.
    With `measure`, the model exposes `remaining_work`; `budget` sets `event_budget`.
    """

    step: float = 0.0
    period: float = 1.0
    measure: bool = True
    budget: int | None = None

    def on_event(self, state: State, event: Event) -> Step[State]:
        left = state[0] - self.step
        if left <= 0:
            return Step((0,), log=(JobEvent(event.time, 7, EventKind.COMPLETE),))
        log = (JobEvent(event.time, 7, EventKind.START, (0,)),)
        return Step((left,), events=(Event(event.time + self.period, Phase.TIMER, None),), log=log)

    def on_pass(self, state: State, now: float) -> Step[State]:
        return Step(state)

    def is_done(self, state: State) -> bool:
        return state[0] <= 0

    def unfinished(self, state: State) -> tuple[int, ...]:
        return (7,) if state[0] > 0 else ()

    def __getattr__(self, name: str) -> Any:
        # the optional hooks exist only when configured (the engine looks them up)
        if name == "remaining_work" and self.measure:
            return lambda state, now: float(state[0])
        if name == "event_budget" and self.budget is not None:
            return lambda state: self.budget
        raise AttributeError(name)


START = [Event(0, Phase.ARRIVAL, None)]


def test_no_progress_with_time_advancing_trips_the_livelock_rule_naming_everything() -> None:
    began = time.perf_counter()
    with pytest.raises(SimulationStuckError) as info:
        simulate(Ticker(step=0.0), (10,), START)
    assert time.perf_counter() - began < 10
    error = info.value
    assert error.rule == "livelock" and error.jobs == (7,)
    window = default_window(2)
    assert error.time < 2 * window  # trips within two windows of the last progress
    assert "no job progressed in 10000 events (remaining work did not decrease)" in str(error)
    assert len(error.recent) == 8 and error.recent[-1] == f"t={error.time} job 7 start on 0"


def test_time_standing_still_trips_the_livelock_rule_without_a_work_measure() -> None:
    with pytest.raises(SimulationStuckError, match=r"time stood still") as info:
        simulate(Ticker(step=1.0, period=0, measure=False), (10**9,), START)
    assert info.value.rule == "livelock" and info.value.time == 0


def test_time_advancing_without_a_work_measure_is_left_to_the_budget() -> None:
    with pytest.raises(SimulationStuckError, match=r"event budget of 100000 spent") as info:
        simulate(Ticker(step=0.0, measure=False), (10,), START)
    assert info.value.rule == "event budget" and info.value.time == default_budget(2) - 1


def test_the_models_budget_hook_and_an_explicit_budget_win() -> None:
    with pytest.raises(SimulationStuckError, match="event budget of 50 spent"):
        simulate(Ticker(step=0.0, measure=False, budget=50), (10,), START)
    with pytest.raises(SimulationStuckError, match="event budget of 30 spent"):
        simulate(Ticker(step=0.0, measure=False, budget=50), (10,), START, max_events=30)


def test_slow_but_real_progress_never_trips_the_guard() -> None:
    # a decrease of 1e-6 per tick over 50,000 ticks: five livelock windows, no trip
    trace = simulate(Ticker(step=1e-6), (0.05,), START)
    assert trace.events >= 50_000 and trace.state == (0,)


def test_the_guard_can_be_turned_off_and_the_window_set() -> None:
    with pytest.raises(SimulationStuckError, match="in 100 events") as info:
        simulate(Ticker(step=0.0), (10,), START, window=100)
    assert info.value.time <= 200
    # guard off: only an explicit budget stops the run
    with pytest.raises(SimulationStuckError, match="event budget of 30000 spent"):
        simulate(Ticker(step=0.0), (10,), START, guard=False, max_events=30_000)
    with pytest.raises(InvalidValueError, match="window = 0"):
        simulate(Ticker(), (10,), START, window=0)


@given(st.integers(1, 2000), st.integers(0, 50))
def test_many_jobs_arriving_at_one_instant_are_progress(count: int, pause: int) -> None:
    """Every arrival logs SUBMIT: an instant with thousands of arrivals is not a livelock."""

    @attrs.frozen
    class Arrivals:
        def on_event(self, state: int, event: Event) -> Step[int]:
            log = (JobEvent(event.time, event.payload, EventKind.SUBMIT),)
            return Step(state - 1, log=log, wake=True)

        def on_pass(self, state: int, now: float) -> Step[int]:
            return Step(state)

        def is_done(self, state: int) -> bool:
            return state == 0

        def unfinished(self, state: int) -> range:
            return range(state)

    events = [Event(pause, Phase.ARRIVAL, i) for i in range(count)]
    trace = simulate(Arrivals(), count, events, window=max(1, count // 3))
    assert trace.state == 0


def test_default_formulas() -> None:
    assert default_budget(0) == 100_000 and default_budget(10**4) == 10**7
    assert default_window(0) == 10_000 and default_window(10**5) == 2 * 10**5
