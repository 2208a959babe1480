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
from collections.abc import Callable, Collection, Hashable, Iterable, Iterator
from typing import Any, Generic, NoReturn, Protocol, TypeVar

import attrs

from schedlib.collector import YOUNG_EVERY, collect_young, paused_gc
from schedlib.engine.events import Event, Phase, Step
from schedlib.errors import InvalidValueError, SimulationStuckError
from schedlib.model import EventKind, JobEvent, JobId, Time

__all__ = [
    "BUDGET_FACTOR",
    "BUDGET_MINIMUM",
    "STREAM_CHUNK",
    "WINDOW_FACTOR",
    "WINDOW_MINIMUM",
    "Model",
    "Stream",
    "Trace",
    "default_budget",
    "default_window",
    "simulate",
    "stream",
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

    **Garbage collection.** A run allocates millions of small acyclic objects;
    the loop runs with Python's automatic cyclic collection paused (see
    [`schedlib.collector`][schedlib.collector]) and collects the youngest
    generation itself every `YOUNG_EVERY` events, so cycles a model makes are
    still reclaimed. The collector's previous setting is restored on return.

    Complexity: $O(E \\log E)$ heap work for $E$ events, plus the model's cost.
    """
    run = _Run(model, state, events, max_events, guard, window, progress, keep=True)
    with paused_gc():
        for _ in run:
            pass
    return Trace(state=run.state, log=tuple(run.log), end=run.now, events=run.handled)


def stream(
    model: Model[S],
    state: S,
    events: Iterable[Event] = (),
    *,
    max_events: int | None = None,
    guard: bool = True,
    window: int | None = None,
    progress: Callable[[Time, int], None] | None = None,
) -> Stream[S]:
    """Run `model` like [`simulate`][schedlib.engine.simulate], yielding log entries as they happen.

    Nothing of the log is kept: memory stays flat however long the run
    (the model's own state aside), for runs of tens of millions of jobs.
    Parameters, rules and errors are those of `simulate`; the errors are
    raised when the iteration reaches them.

    Returns
    -------
    Stream
        An iterator of [`JobEvent`][schedlib.model.JobEvent]s, in order;
        its `state`, `end` and `events` attributes follow the run.

    Notes
    -----
    Entries are handed out in chunks of up to `STREAM_CHUNK` (1024)
    entries, i.e. at most that many entries after they happened. Automatic
    garbage collection is paused only while the engine runs, never while the
    consumer holds control. Complexity: that of `simulate`.

    Examples
    --------
    >>> from schedlib.model import EventKind, JobEvent
    >>> class Once:
    ...     def on_event(self, state, event):
    ...         return Step(frozenset(), log=(JobEvent(event.time, 1, EventKind.COMPLETE),))
    ...     def on_pass(self, state, now):
    ...         return Step(state)
    ...     def is_done(self, state):
    ...         return not state
    ...     def unfinished(self, state):
    ...         return tuple(state)
    >>> run = stream(Once(), frozenset({1}), [Event(3, Phase.ARRIVAL)])
    >>> [(e.time, e.kind.value) for e in run], run.end, run.events
    ([(3, 'complete')], 3, 1)
    """
    run = _Run(model, state, events, max_events, guard, window, progress, keep=False)
    return Stream(run)


STREAM_CHUNK = 1024
"""Log entries handed out at once by [`stream`][schedlib.engine.loop.stream]."""


class Stream(Generic[S]):
    """The iterator [`stream`][schedlib.engine.loop.stream] returns: log entries as they happen.

    Attributes
    ----------
    state
        The model's state after the events handled so far (the final state
        once the iteration is over).
    end
        Time of the last event handled so far.
    events
        Number of events handled so far.
    """

    def __init__(self, run: _Run[S]) -> None:
        self._run = run
        self._chunks = iter(run)
        self._entries: Iterator[JobEvent] = iter(())

    def __iter__(self) -> Stream[S]:
        return self

    def __next__(self) -> JobEvent:
        for entry in self._entries:
            return entry
        while True:
            with paused_gc():
                chunk = next(self._chunks)  # StopIteration ends the stream
            if chunk:
                self._entries = iter(chunk)
                return next(self._entries)

    @property
    def state(self) -> S:
        return self._run.state

    @property
    def end(self) -> Time:
        return self._run.now

    @property
    def events(self) -> int:
        return self._run.handled


class _Run(Generic[S]):
    """The event loop itself, shared by `simulate` and `stream`.

    Iterating it runs the loop: with `keep`, the log accumulates in `log` and
    nothing is yielded before the end; without, the log is yielded in chunks
    of `STREAM_CHUNK` entries and then forgotten.
    """

    def __init__(
        self,
        model: Model[S],
        state: S,
        events: Iterable[Event],
        max_events: int | None,
        guard: bool,
        window: int | None,
        progress: Callable[[Time, int], None] | None,
        keep: bool,
    ) -> None:
        heap: list[tuple[Time, int, int, Event | None]] = []
        live: dict[Hashable, int] = {}
        seq = 0
        for initial in events:
            if initial.key is not None:
                live[initial.key] = seq
            heap.append((initial.time, initial.phase, seq, initial))
            seq += 1
        heapq.heapify(heap)
        self.model, self.state, self.heap, self.live, self.seq = model, state, heap, live, seq
        self.now: Time = heap[0][0] if heap else 0
        self.handled = 0
        self.progress = progress
        self.keep = keep
        self.log: list[JobEvent] = []
        # progress guard: the event budget, the livelock window and its measure
        budget: int | None = max_events
        self.remaining: Callable[[S, Time], float] | None = None
        if guard:
            items = seq + len(model.unfinished(state))
            if budget is None:
                hook = getattr(model, "event_budget", None)
                budget = int(hook(state)) if hook is not None else default_budget(items)
            if window is None:
                hook = getattr(model, "livelock_window", None)
                window = int(hook(state)) if hook is not None else default_window(items)
            self.remaining = getattr(model, "remaining_work", None)
        else:
            window = None
        if window is not None and window < 1:
            raise InvalidValueError("window", window, "must be >= 1")
        self.window = window
        self.budget = budget
        self.measure: float | None = None
        if window is not None:
            remaining = self.remaining
            self.measure = remaining(state, self.now) if remaining is not None else self.now

    def __iter__(self) -> Iterator[list[JobEvent]]:
        model, heap, live = self.model, self.heap, self.live
        state, seq, now, handled = self.state, self.seq, self.now, self.handled
        log = self.log
        keep = self.keep
        chunk = STREAM_CHUNK
        progress = self.progress
        pass_at: Time | None = None
        push, pop = heapq.heappush, heapq.heappop
        on_event, on_pass, is_done = model.on_event, model.on_pass, model.is_done
        never = 1 << 62
        window = self.window
        next_window = window if window is not None else never
        limit = self.budget if self.budget is not None else never
        check = min(next_window, limit)
        young = YOUNG_EVERY
        progressed = False  # a progress entry was handed out since the last window check
        seen = 0  # entries of `log` already scanned for progress
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
                push(heap, (new.time, new.phase, seq, new))
                seq += 1
            if step.wake and event is not None and pass_at != now:
                pass_at = now
                push(heap, (now, _PASS, seq, None))
                seq += 1
            if handled >= check and not is_done(state):
                self.state, self.now, self.handled = state, now, handled
                if handled >= limit:
                    self._stuck(f"event budget of {limit} spent", "event budget")
                if handled >= next_window and window is not None:
                    progressed = progressed or _any_progress(log, seen)
                    seen = len(log)
                    self._check_livelock(progressed)
                    progressed = False
                    next_window = handled + window
                check = min(next_window, limit)
            if progress is not None and handled % _PROGRESS_EVERY == 0:
                progress(now, handled)
            if not handled % young:
                collect_young()
            if not keep and len(log) >= chunk:
                self.state, self.now, self.handled, self.seq = state, now, handled, seq
                progressed = progressed or _any_progress(log, seen)
                out = log[:]
                log.clear()
                seen = 0
                yield out
        self.state, self.now, self.handled, self.seq = state, now, handled, seq
        if not is_done(state):
            raise SimulationStuckError(now, _sorted(model.unfinished(state)), "no event left")
        if not keep and log:
            out = log[:]
            log.clear()
            yield out

    def _check_livelock(self, progressed: bool) -> None:
        """The livelock rule at a window check (see `simulate`)."""
        remaining = self.remaining
        value = remaining(self.state, self.now) if remaining is not None else self.now
        measure = self.measure
        assert measure is not None
        moved = value < measure if remaining is not None else value > measure
        if not progressed and not moved:
            what = "remaining work did not decrease" if remaining else "time stood still"
            self._stuck(f"livelock: no job progressed in {self.window} events ({what})", "livelock")
        self.measure = value

    def _stuck(self, reason: str, rule: str) -> NoReturn:
        raise SimulationStuckError(
            self.now,
            _sorted(self.model.unfinished(self.state)),
            reason,
            rule=rule,
            recent=[_describe(e) for e in self.log[-_RECENT:]],
        )


def _any_progress(log: list[JobEvent], start: int) -> bool:
    """Whether an entry of `log` from `start` on shows a job's progress."""
    return any(e.kind in _PROGRESS_KINDS for e in log[start:])


def _describe(entry: JobEvent) -> str:
    place = f" on {entry.place}" if entry.place else ""
    task = f" task {entry.task}" if entry.task is not None else ""
    detail = f" ({entry.detail})" if entry.detail else ""
    return f"t={entry.time} job {entry.job}{task} {entry.kind.value}{place}{detail}"


def _sorted(jobs: Collection[Any]) -> list[Any]:
    try:
        return sorted(jobs)
    except TypeError:
        return list(jobs)
