"""The progress guard's bookkeeping: what it remembers from one livelock window to the next.

At each window check the guard must forget the progress it has already counted (the
flag is reset, the log position advances), measure the remaining work against its value
at the *previous* check (not at the start), and schedule the next check a whole window
later. The single ticker of `test_guard.py` never logs progress, so none of this is
exercised there; each model below makes one piece of bookkeeping decide the outcome,
with the time at which the guard must stop it (window W = 10,000 events here).
"""

from __future__ import annotations

import attrs

from schedlib.engine import Event, Phase, Step, default_budget, default_window, simulate
from schedlib.errors import SimulationStuckError
from schedlib.model import EventKind, JobEvent

JOB = 7
START = [Event(0, Phase.ARRIVAL, None)]
WINDOW = default_window(2)  # one initial event + one unfinished job
BUDGET = default_budget(2)


def _stuck(model: object, state: object) -> SimulationStuckError:
    try:
        simulate(model, state, START)  # type: ignore[arg-type]
    except SimulationStuckError as error:
        return error
    raise AssertionError("the run ended: the guard was expected to stop it")


@attrs.frozen
class SubmitThenTick:
    """Logs one `SUBMIT`, then ticks once a second for ever, logging a `START` each time.

    Its remaining work (1.0) never changes. State: ticks seen.
    """

    def on_event(self, state: int, event: Event) -> Step[int]:
        kind = EventKind.SUBMIT if state == 0 else EventKind.START
        log = (JobEvent(event.time, JOB, kind),)
        return Step(state + 1, events=(Event(event.time + 1, Phase.TIMER),), log=log)

    def on_pass(self, state: int, now: float) -> Step[int]:
        return Step(state)

    def is_done(self, state: int) -> bool:
        return False

    def unfinished(self, state: int) -> tuple[int, ...]:
        return (JOB,)

    def remaining_work(self, state: int, now: float) -> float:
        return 1.0


def test_progress_counted_at_one_check_does_not_count_at_the_next() -> None:
    """Decision: a window check counts only the progress logged since the previous check.

    The submission at t=0 is progress for the first window (checked at event 10,000,
    t=9,999); the second window (events 10,001..20,000) logs none and the work stays:
    livelock at event 20,000, t=19,999. Remembering the submission (a flag never reset,
    or a log re-read from its start) lets the run go on to the event budget (t=99,999).
    """
    error = _stuck(SubmitThenTick(), 0)
    assert error.rule == "livelock"
    assert error.time == 2 * WINDOW - 1 == 19_999
    assert "remaining work did not decrease" in str(error)


@attrs.frozen
class WorkThenStall:
    """Does one unit of work per tick for `busy` ticks, then ticks without working.

    Logs a `START` at every tick (no progress entry): only the work measure shows
    progress. State: work left.
    """

    busy: int = 15_000

    def on_event(self, state: float, event: Event) -> Step[float]:
        left = state - 1 if event.time < self.busy else state
        log = (JobEvent(event.time, JOB, EventKind.START),)
        return Step(left, events=(Event(event.time + 1, Phase.TIMER),), log=log)

    def on_pass(self, state: float, now: float) -> Step[float]:
        return Step(state)

    def is_done(self, state: float) -> bool:
        return state <= 0

    def unfinished(self, state: float) -> tuple[int, ...]:
        return (JOB,)

    def remaining_work(self, state: float, now: float) -> float:
        return state


def test_remaining_work_is_compared_with_the_previous_check_not_the_start() -> None:
    """Decision: the work measure must decrease *since the last check*.

    Work decreases for 15,000 ticks: the checks at events 10,000 and 20,000 see it
    decrease; at event 30,000 (t=29,999) it equals the value at 20,000: livelock.
    Comparing with the value at the start would see progress for ever (budget, t=99,999).
    """
    error = _stuck(WorkThenStall(), 10.0**9)
    assert error.rule == "livelock"
    assert error.time == 3 * WINDOW - 1 == 29_999


@attrs.frozen
class ProgressWithIdlePasses:
    """Completes one task per tick and wakes a pass that decides nothing; `ticks` tasks.

    Events alternate tick (a task `COMPLETE`: progress) and pass (no log). No work
    measure. State: tasks left.
    """

    ticks: int = 20_000

    def on_event(self, state: int, event: Event) -> Step[int]:
        log = (JobEvent(event.time, JOB, EventKind.COMPLETE, task=state),)
        later = (Event(event.time + 1, Phase.TIMER),) if state > 1 else ()
        return Step(state - 1, events=later, log=log, wake=True)

    def on_pass(self, state: int, now: float) -> Step[int]:
        return Step(state)

    def is_done(self, state: int) -> bool:
        return state == 0

    def unfinished(self, state: int) -> tuple[int, ...]:
        return (JOB,) if state else ()


def test_idle_passes_between_progress_are_no_livelock() -> None:
    """Decision: the livelock rule looks at whole windows, not at single events.

    40,000 events, every other one an idle pass: each window of 10,000 events holds
    5,000 completed tasks, so the run ends normally. Checking at every event once the
    first window is over (the next check never moved a window on) sees an idle pass with
    nothing new and trips a false livelock at t=5,000.
    """
    model = ProgressWithIdlePasses()
    trace = simulate(model, model.ticks, START)
    assert trace.state == 0 and trace.events == 2 * model.ticks - 1  # no pass after the last
    assert trace.events > 3 * WINDOW and trace.events < BUDGET
