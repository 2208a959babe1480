"""Engine events, the order of simultaneous events, and transition results.

A model talks to the engine in two types only: it receives
[`Event`][schedlib.engine.Event]s and returns [`Step`][schedlib.engine.Step]s.

Examples
--------
>>> Event(5, Phase.ARRIVAL, "job 1") < Event(5, Phase.PASS, None)
True
>>> Step("new state", wake=True).wake
True
"""

from __future__ import annotations

import enum
from collections.abc import Hashable, Iterable
from typing import Any, Generic, TypeVar

import attrs

from schedlib.model import JobEvent, Time

__all__ = ["Event", "Phase", "Step"]

S = TypeVar("S")


class Phase(enum.IntEnum):
    """Order of events that fall at the same instant (lowest first).

    At equal times: work that ends releases its resources first, then
    resources fail, then resources recover or change, then jobs arrive, then
    model timers fire, and last the scheduling pass runs once over everything
    that happened at that instant. Events of the same time and phase are
    handled in the order they were scheduled (first scheduled, first handled).

    Intervals are half-open, `[start, end)`: a job ending at `t` frees its
    processors for a job starting at `t`, and a job that ends exactly when its
    resource goes down has completed.
    """

    COMPLETION = 0
    """Work ends (a job, a task, an execution segment)."""
    FAILURE = 1
    """A resource goes down; work still running on it is lost."""
    RECOVERY = 2
    """A resource comes back up, or its speed or capacity changes."""
    ARRIVAL = 3
    """A job is submitted."""
    TIMER = 4
    """A model timer (a periodic scheduling tick, a retry, a deadline)."""
    PASS = 5
    """The scheduling pass; owned by the engine, at most one per instant."""


@attrs.frozen(slots=True, order=False)
class Event:
    """Something that will happen at a future instant.

    Attributes
    ----------
    time
        When, in seconds; never earlier than the instant it is scheduled at.
    phase
        Order among events at the same time; a [`Phase`][schedlib.engine.Phase]
        or any int (lower first).
    payload
        Model-defined, immutable data describing the event.
    key
        Optional hashable handle. A later step may cancel the event by key,
        and scheduling another event with a live key replaces the old one
        (e.g. a completion re-timed after a speed change).
    """

    time: Time
    phase: int
    payload: Any = None
    key: Hashable | None = None

    def __lt__(self, other: Event) -> bool:
        return (self.time, self.phase) < (other.time, other.phase)


def _tuple(value: Iterable[Any]) -> tuple[Any, ...]:
    return value if isinstance(value, tuple) else tuple(value)


@attrs.frozen(slots=True)
class Step(Generic[S]):
    """The result of one transition: a new state plus what follows from it.

    Attributes
    ----------
    state
        The model's new state.
    events
        Events to schedule.
    cancel
        Keys of pending events to withdraw (unknown keys are ignored).
    log
        Log entries describing what happened to jobs.
    wake
        Ask for a scheduling pass at the current instant, after every other
        event of that instant. Ignored when returned by the pass itself (to
        act again later, schedule a `TIMER` event).
    """

    state: S
    events: tuple[Event, ...] = attrs.field(default=(), converter=_tuple)
    cancel: tuple[Hashable, ...] = attrs.field(default=(), converter=_tuple)
    log: tuple[JobEvent, ...] = attrs.field(default=(), converter=_tuple)
    wake: bool = False
