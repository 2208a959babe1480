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
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Collection, Hashable, Iterable
from typing import Any, Generic, Protocol, TypeVar

import attrs

from schedlib.engine.events import Event, Phase, Step
from schedlib.errors import InvalidValueError, SimulationStuckError
from schedlib.model import JobEvent, JobId, Time

__all__ = ["Model", "Trace", "simulate"]

S = TypeVar("S")
_PASS = Phase.PASS
_PROGRESS_EVERY = 4096


class Model(Protocol[S]):
    """What a model provides to the engine; every method is pure.

    A model object holds configuration (the algorithm under test is one of
    its parameters); all changing data lives in the state value `S`, which
    the model never mutates in place.
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


def simulate(
    model: Model[S],
    state: S,
    events: Iterable[Event] = (),
    *,
    max_events: int | None = None,
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
        Optional budget of handled events; exceeding it raises
        [`SimulationStuckError`][schedlib.errors.SimulationStuckError]
        (a guard against models that livelock).
    progress
        Optional callback `progress(now, handled)`, called every 4096 events.

    Returns
    -------
    Trace
        Final state, log, end time and event count.

    Raises
    ------
    SimulationStuckError
        If no event is left while `model.is_done(state)` is false, or the
        event budget is spent; names the unfinished jobs.
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
        if max_events is not None and handled >= max_events and not is_done(state):
            raise SimulationStuckError(
                now, _sorted(model.unfinished(state)), f"event budget of {max_events} spent"
            )
        if progress is not None and handled % _PROGRESS_EVERY == 0:
            progress(now, handled)
    if not is_done(state):
        raise SimulationStuckError(now, _sorted(model.unfinished(state)), "no event left")
    return Trace(state=state, log=tuple(log), end=now, events=handled)


def _sorted(jobs: Collection[Any]) -> list[Any]:
    try:
        return sorted(jobs)
    except TypeError:
        return list(jobs)
