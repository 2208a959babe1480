"""The one deterministic event loop every model runs on.

The engine knows nothing of any paper. A model is an object with four pure
methods (see [`Model`][schedlib.engine.Model]); the engine pops events from a
heap keyed `(time, phase, sequence)`, hands each to the model, applies the
returned [`Step`][schedlib.engine.Step], and collects the log.

Examples
--------
A model where each job simply runs for its length on an infinite machine;
its state is the set of jobs not yet finished:

>>> from schedlib.model import EventKind, JobEvent
>>> class Sleep:
...     def on_event(self, state, event):
...         job, length, kind = event.payload
...         if kind == "arrive":
...             done = Event(event.time + length, Phase.COMPLETION, (job, length, "done"))
...             log = (JobEvent(event.time, job, EventKind.START, (0,)),)
...             return Step(state, events=(done,), log=log)
...         log = (JobEvent(event.time, job, EventKind.COMPLETE, (0,)),)
...         return Step(state - {job}, log=log)
...     def on_pass(self, state, now):
...         return Step(state)
...     def is_done(self, state):
...         return not state
...     def unfinished(self, state):
...         return tuple(sorted(state))
>>> trace = simulate(Sleep(), frozenset({1}), [Event(0, Phase.ARRIVAL, (1, 5, "arrive"))])
>>> [(e.time, e.kind.value) for e in trace.log]
[(0, 'start'), (5, 'complete')]
>>> simulate(Sleep(), frozenset({1, 2}), [Event(0, Phase.ARRIVAL, (1, 5, "arrive"))])
Traceback (most recent call last):
...
schedlib.errors.SimulationStuckError: simulation stuck at t=5: no event left; 1 unfinished job(s): 2

A model that re-schedules the same instant forever is stopped by the progress
guard (on by default) instead of hanging:

>>> class Spin(Sleep):
...     def on_event(self, state, event):
...         return Step(state, events=(Event(event.time, Phase.TIMER, event.payload),))
>>> simulate(Spin(), frozenset({1}), [Event(0, Phase.ARRIVAL, (1, 5, "arrive"))])
Traceback (most recent call last):
...
schedlib.errors.SimulationStuckError: simulation stuck at t=0: livelock: no job progressed ...
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Collection, Hashable, Iterable
from typing import Any, Generic, NoReturn, Protocol, TypeVar

import attrs

from schedlib.engine.events import Event, Phase, Step
from schedlib.errors import InvalidValueError, SimulationStuckError
from schedlib.model import EventKind, JobEvent, JobId, Time

__all__ = [
    "BUDGET_FACTOR",
    "BUDGET_MINIMUM",
    "WINDOW_FACTOR",
    "WINDOW_MINIMUM",
    "Model",
    "Trace",
    "default_budget",
    "default_window",
    "simulate",
]

S = TypeVar("S")
_PASS = Phase.PASS
_PROGRESS_EVERY = 4096
_RECENT = 8

BUDGET_FACTOR = 1000
"""Events allowed per input item (initial event or unfinished job) by the default budget."""
BUDGET_MINIMUM = 100_000
"""Smallest default event budget."""
WINDOW_FACTOR = 2
"""Livelock window: events per input item (initial event or unfinished job)."""
WINDOW_MINIMUM = 10_000
"""Smallest livelock window, in events."""

# Log entries that show progress: a job entered, ended, or a task completed.
_PROGRESS_KINDS = frozenset(
    {
        EventKind.SUBMIT,
        EventKind.COMPLETE,
        EventKind.KILL,
        EventKind.ABANDON,
        EventKind.UNSCHEDULABLE,
        EventKind.REJECT,
        EventKind.LOG_CANCELLED,
    }
)


class Model(Protocol[S]):
    """What a model provides to the engine; every method is pure.

    A model object holds configuration (the algorithm under test is one of
    its parameters); all changing data lives in the state value `S`, which
    the model never mutates in place.

    Three optional methods tune the progress guard of
    [`simulate`][schedlib.engine.simulate] (they are looked up, not required):

    - `event_budget(state) -> int`: the largest number of events a correct
      run from `state` can need (default:
      [`default_budget`][schedlib.engine.loop.default_budget]);
    - `livelock_window(state) -> int`: the livelock window in events, for
      models where many events may pass legitimately without progress
      (default: [`default_window`][schedlib.engine.loop.default_window]);
    - `remaining_work(state, now) -> float`: the work left over all jobs at
      `now` (e.g. processor-seconds); the livelock rule then asks that it
      decreases, instead of only that time advances.
    """

    def on_event(self, state: S, event: Event) -> Step[S]:
        """Handle one event (never the scheduling pass)."""
        ...

    def on_pass(self, state: S, now: Time) -> Step[S]:
        """Run the scheduling pass at `now`."""
        ...

    def is_done(self, state: S) -> bool:
        """Whether every job has reached a terminal state."""
        ...

    def unfinished(self, state: S) -> Collection[JobId]:
        """Ids of the jobs not yet finished (named when the run is stuck)."""
        ...


@attrs.frozen(slots=True)
class Trace(Generic[S]):
    """What [`simulate`][schedlib.engine.simulate] returns.

    Attributes
    ----------
    state
        The model's final state.
    log
        Every log entry, in order.
    end
        Time of the last event handled.
    events
        Number of events handled (scheduling passes included).
    """

    state: S
    log: tuple[JobEvent, ...]
    end: Time
    events: int


def default_budget(items: int) -> int:
    """The default event budget for `items` input items.

    $B = \\max(B_{min}, c_B \\cdot n)$ with $n$ the number of initial events
    plus unfinished jobs, $c_B$ = `BUDGET_FACTOR` (1000) and $B_{min}$ =
    `BUDGET_MINIMUM` (100,000). Models with more events per job (resource
    availability cycles, periodic ticks) supply their own `event_budget`.

    Complexity: $O(1)$.

    Examples
    --------
    >>> default_budget(3), default_budget(5000)
    (100000, 5000000)
    """
    return max(BUDGET_MINIMUM, BUDGET_FACTOR * items)


def default_window(items: int) -> int:
    """The livelock window, in events, for `items` input items.

    $W = \\max(W_{min}, c_W \\cdot n)$ with $c_W$ = `WINDOW_FACTOR` (2) and
    $W_{min}$ = `WINDOW_MINIMUM` (10,000): long enough for every job to
    arrive at one instant and be looked at once more.

    Complexity: $O(1)$.

    Examples
    --------
    >>> default_window(3), default_window(100_000)
    (10000, 200000)
    """
    return max(WINDOW_MINIMUM, WINDOW_FACTOR * items)


def simulate(
    model: Model[S],
    state: S,
    events: Iterable[Event] = (),
    *,
    max_events: int | None = None,
    guard: bool = True,
    window: int | None = None,
    progress: Callable[[Time, int], None] | None = None,
) -> Trace[S]:
    """Run `model` from `state` until every job is finished.

    Parameters
    ----------
    model
        The model (see [`Model`][schedlib.engine.Model]).
    state
        Initial state.
    events
        Initial events (usually the arrivals); any iterable, consumed once.
    max_events
        Budget of handled events; exceeding it raises
        [`SimulationStuckError`][schedlib.errors.SimulationStuckError].
        `None` (default): the model's `event_budget(state)` if it has one,
        else [`default_budget`][schedlib.engine.loop.default_budget] of the
        number of initial events plus unfinished jobs.
    guard
        The progress guard (default on). `False` turns off the default
        budget and the livelock rule (an explicit `max_events` still holds):
        the run may then never end.
    window
        Livelock window in events (default: the model's
        `livelock_window(state)` if it has one, else
        [`default_window`][schedlib.engine.loop.default_window] of the input
        size). Every `window` events the engine checks that some job made
        progress since the previous check (see Notes).
    progress
        Optional callback `progress(now, handled)`, called every 4096 events.

    Returns
    -------
    Trace
        Final state, log, end time and event count.

    Raises
    ------
    SimulationStuckError
        If no event is left while `model.is_done(state)` is false, the event
        budget is spent, or no job progressed over a livelock window; names
        the unfinished jobs, the time, the rule (`error.rule`) and the last
        log entries (`error.recent`).
    InvalidValueError
        If a step schedules an event in the past.

    Notes
    -----
    Events are ordered by the key $(t, \\text{phase}, \\text{seq})$: time, then
    [`Phase`][schedlib.engine.Phase], then the order of scheduling. When a
    step sets `wake`, one scheduling pass is queued at the current instant in
    phase `PASS` (at most one per instant), so it sees every completion and
    arrival of that instant. The run stops as soon as the model is done, even
    if events remain (e.g. endless availability cycles).

    **Progress guard.** Two rules, checked only every `window` events (and
    at the budget), so the loop pays one integer comparison per event:

    1. *event budget*: at most `max_events` events are handled;
    2. *livelock*: between two checks, some job made progress: a log entry
       `SUBMIT`, `COMPLETE` (job or task) or another terminal kind appeared,
       or the model's `remaining_work(state, now)` decreased (for a model
       without that method: simulated time advanced). A livelock therefore
       trips between `window` and `2 * window` events after the last progress.

    Complexity: $O(E \\log E)$ heap work for $E$ events, plus the model's cost.
    """
    heap: list[tuple[Time, int, int, Event | None]] = []
    live: dict[Hashable, int] = {}
    seq = 0
    for initial in events:
        if initial.key is not None:
            live[initial.key] = seq
        heap.append((initial.time, int(initial.phase), seq, initial))
        seq += 1
    heapq.heapify(heap)
    log: list[JobEvent] = []
    now: Time = heap[0][0] if heap else 0
    pass_at: Time | None = None
    handled = 0
    push, pop = heapq.heappush, heapq.heappop
    on_event, on_pass, is_done = model.on_event, model.on_pass, model.is_done
    # progress guard: `check` is the next event count at which a rule is looked at
    budget: int | None = max_events
    remaining: Callable[[S, Time], float] | None = None
    if guard:
        items = seq + len(model.unfinished(state))
        if budget is None:
            hook = getattr(model, "event_budget", None)
            budget = int(hook(state)) if hook is not None else default_budget(items)
        if window is None:
            hook = getattr(model, "livelock_window", None)
            window = int(hook(state)) if hook is not None else default_window(items)
        remaining = getattr(model, "remaining_work", None)
    else:
        window = None
    if window is not None and window < 1:
        raise InvalidValueError("window", window, "must be >= 1")
    never = 1 << 62
    next_window = window if window is not None else never
    limit = budget if budget is not None else never
    check = min(next_window, limit)
    seen = 0  # log entries already scanned for progress
    measure: float | None = None
    if window is not None:
        measure = remaining(state, now) if remaining is not None else now
    while heap and not is_done(state):
        time, _phase, number, event = pop(heap)
        if event is None:
            pass_at = None
            step = on_pass(state, time)
        else:
            key = event.key
            if key is not None:
                if live.get(key) != number:
                    continue  # cancelled or replaced
                del live[key]
            step = on_event(state, event)
        now = time
        handled += 1
        state = step.state
        if step.log:
            log.extend(step.log)
        for key in step.cancel:
            live.pop(key, None)
        for new in step.events:
            if new.time < now:
                raise InvalidValueError(
                    "Event.time", new.time, f"is before the current time {now} ({new!r})"
                )
            if new.key is not None:
                live[new.key] = seq
            push(heap, (new.time, int(new.phase), seq, new))
            seq += 1
        if step.wake and event is not None and pass_at != now:
            pass_at = now
            push(heap, (now, _PASS, seq, None))
            seq += 1
        if handled >= check and not is_done(state):
            if handled >= limit:
                _stuck(model, state, now, log, f"event budget of {limit} spent", "event budget")
            if handled >= next_window and window is not None:
                progressed = any(e.kind in _PROGRESS_KINDS for e in log[seen:])
                seen = len(log)
                value = remaining(state, now) if remaining is not None else now
                assert measure is not None
                moved = value < measure if remaining is not None else value > measure
                if not progressed and not moved:
                    what = "remaining work did not decrease" if remaining else "time stood still"
                    _stuck(
                        model,
                        state,
                        now,
                        log,
                        f"livelock: no job progressed in {window} events ({what})",
                        "livelock",
                    )
                measure = value
                next_window = handled + window
            check = min(next_window, limit)
        if progress is not None and handled % _PROGRESS_EVERY == 0:
            progress(now, handled)
    if not is_done(state):
        raise SimulationStuckError(now, _sorted(model.unfinished(state)), "no event left")
    return Trace(state=state, log=tuple(log), end=now, events=handled)


def _describe(entry: JobEvent) -> str:
    place = f" on {entry.place}" if entry.place else ""
    task = f" task {entry.task}" if entry.task is not None else ""
    detail = f" ({entry.detail})" if entry.detail else ""
    return f"t={entry.time} job {entry.job}{task} {entry.kind.value}{place}{detail}"


def _stuck(
    model: Model[S], state: S, now: Time, log: list[JobEvent], reason: str, rule: str
) -> NoReturn:
    raise SimulationStuckError(
        now,
        _sorted(model.unfinished(state)),
        reason,
        rule=rule,
        recent=[_describe(e) for e in log[-_RECENT:]],
    )


def _sorted(jobs: Collection[Any]) -> list[Any]:
    try:
        return sorted(jobs)
    except TypeError:
        return list(jobs)
