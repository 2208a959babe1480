"""The event engine: ordering, scheduling passes, cancellation, stuck detection.

The central property is differential: `simulate` handles events in exactly the
order of a brute-force reference loop that picks the minimum
`(time, phase, sequence)` from a plain list at every step.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlib.engine import Event, Phase, Step, simulate
from schedlib.errors import InvalidValueError, SimulationStuckError
from schedlib.model import EventKind, JobEvent


@attrs.frozen
class Script:
    """A test model driven by its events' payloads.

    Payload: `(name, spawns, cancels, wake)`; `spawns` are `(delay, phase, key, payload)`
    events to schedule relative to now, `cancels` keys to cancel. The state is the tuple
    of handled names (passes appear as `("pass", time)`), and the model is done once
    `budget` events were handled (so runs also stop with events left).
    """

    budget: int = 10_000

    def on_event(self, state: tuple[Any, ...], event: Event) -> Step[tuple[Any, ...]]:
        name, spawns, cancels, wake = event.payload
        new = tuple(
            Event(event.time + delay, phase, payload, key) for delay, phase, key, payload in spawns
        )
        return Step((*state, (name, event.time)), events=new, cancel=cancels, wake=wake)

    def on_pass(self, state: tuple[Any, ...], now: float) -> Step[tuple[Any, ...]]:
        return Step((*state, ("pass", now)), wake=True)  # wake from a pass is ignored

    def is_done(self, state: tuple[Any, ...]) -> bool:
        return len(state) >= self.budget

    def unfinished(self, state: tuple[Any, ...]) -> tuple[int, ...]:
        return ()


def reference(model: Script, events: list[Event]) -> tuple[Any, ...]:
    """The engine's rules, written as plainly as possible."""
    pending: list[tuple[float, int, int, Event | None]] = []
    live: dict[Hashable, int] = {}
    seq = 0

    def add(event: Event | None, time: float, phase: int) -> None:
        nonlocal seq
        if event is not None and event.key is not None:
            live[event.key] = seq
        pending.append((time, phase, seq, event))
        seq += 1

    for e in events:
        add(e, e.time, e.phase)
    state: tuple[Any, ...] = ()
    pass_at = None
    while pending and not model.is_done(state):
        item = min(pending, key=lambda x: (x[0], x[1], x[2]))
        pending.remove(item)
        time, _, number, event = item
        if event is None:
            pass_at = None
            step = model.on_pass(state, time)
        else:
            if event.key is not None:
                if live.get(event.key) != number:
                    continue
                del live[event.key]
            step = model.on_event(state, event)
        state = step.state
        for key in step.cancel:
            live.pop(key, None)
        for new in step.events:
            add(new, new.time, new.phase)
        if step.wake and event is not None and pass_at != time:
            pass_at = time
            add(None, time, Phase.PASS)
    return state


keys = st.sampled_from(["a", "b", "c", None, None])
phases = st.sampled_from(list(Phase)[:-1])  # models never schedule the engine's PASS
leaf = st.tuples(
    st.integers(0, 3),
    phases,
    keys,
    st.tuples(
        st.text("xyz", max_size=2),
        st.just(()),
        st.lists(keys.filter(bool), max_size=2).map(tuple),
        st.booleans(),
    ),
)
payloads = st.tuples(
    st.text("pqrs", min_size=1, max_size=3),
    st.lists(leaf, max_size=3).map(tuple),
    st.lists(st.sampled_from(["a", "b", "c"]), max_size=2).map(tuple),
    st.booleans(),
)
initial = st.lists(
    st.builds(Event, time=st.integers(0, 6), phase=phases, payload=payloads, key=keys),
    max_size=12,
)


@given(initial, st.integers(1, 40))
def test_engine_matches_brute_force_reference(events: list[Event], budget: int) -> None:
    model = Script(budget=budget)
    try:
        got = simulate(model, (), events).state
    except SimulationStuckError:
        got = None
    expected = reference(model, events)
    if got is None:  # stuck: the reference must also have run out before the budget
        assert not model.is_done(expected)
    else:
        assert got == expected


@given(initial)
def test_time_never_decreases_and_at_most_one_pass_per_instant(events: list[Event]) -> None:
    model = Script(budget=60)
    try:
        handled = simulate(model, (), events).state
    except SimulationStuckError as stuck:
        assert stuck.reason == "no event left"
        return
    times = [t for _, t in handled]
    assert times == sorted(times)
    passes = [t for name, t in handled if name == "pass"]
    # a second pass at the same instant needs an event handled in between (a wake)
    for i in range(1, len(handled)):
        if handled[i][0] == "pass" and handled[i - 1][0] == "pass":
            assert handled[i][1] != handled[i - 1][1]
    assert all(isinstance(t, int) for t in passes)


def _event(
    time: float,
    phase: Phase,
    name: str,
    wake: bool = False,
    key: str | None = None,
    spawns: tuple[Any, ...] = (),
    cancels: tuple[str, ...] = (),
) -> Event:
    return Event(time, phase, (name, spawns, cancels, wake), key)


def test_equal_times_resolve_by_phase_then_scheduling_order() -> None:
    events = [
        _event(5, Phase.ARRIVAL, "arrive-1", wake=True),
        _event(5, Phase.TIMER, "tick"),
        _event(5, Phase.COMPLETION, "complete"),
        _event(5, Phase.ARRIVAL, "arrive-2", wake=True),
        _event(5, Phase.RECOVERY, "up"),
        _event(5, Phase.FAILURE, "down"),
        _event(1, Phase.PASS + 1, "late-phase"),
    ]
    handled = simulate(Script(budget=8), (), events).state
    assert [name for name, _ in handled] == [
        "late-phase",
        "complete",
        "down",
        "up",
        "arrive-1",
        "arrive-2",
        "tick",
        "pass",
    ]


def test_a_pass_sees_events_it_causes_at_the_same_instant_only_afterwards() -> None:
    # The pass at t=0 is followed by a zero-length completion at t=0 and a second pass.
    zero = (0, Phase.COMPLETION, None, ("zero-length done", (), (), True))
    handled = simulate(
        Script(budget=3), (), [_event(0, Phase.ARRIVAL, "a", True, spawns=(zero,))]
    ).state
    assert handled == (("a", 0), ("zero-length done", 0), ("pass", 0))


def test_cancel_and_replace_by_key() -> None:
    retimed = (3, Phase.COMPLETION, "done", ("retimed", (), (), False))
    events = [
        _event(10, Phase.COMPLETION, "original", key="done"),
        _event(1, Phase.RECOVERY, "speed change", spawns=(retimed,)),
        _event(2, Phase.COMPLETION, "victim", key="v"),
        _event(1, Phase.TIMER, "preempt", cancels=("v", "never-scheduled")),
    ]
    handled = simulate(Script(budget=3), (), events).state
    assert [name for name, _ in handled] == ["speed change", "preempt", "retimed"]
    assert handled[-1] == ("retimed", 4)


def test_an_event_in_the_past_is_rejected() -> None:
    back = (-1, Phase.ARRIVAL, None, ("back", (), (), False))
    with pytest.raises(InvalidValueError, match=r"Event.time = 4: is before the current time 5"):
        simulate(Script(), (), [_event(5, Phase.ARRIVAL, "a", spawns=(back,))])


@attrs.frozen
class Waiting:
    """Jobs that never run: the engine must name them instead of hanging."""

    def on_event(self, state: frozenset[int], event: Event) -> Step[frozenset[int]]:
        again = (
            Event(event.time + 1, Phase.TIMER, "forever") if event.payload == "forever" else None
        )
        log = (JobEvent(event.time, 0, EventKind.SUBMIT),)
        return Step(state, events=(again,) if again else (), log=log)

    def on_pass(self, state: frozenset[int], now: float) -> Step[frozenset[int]]:
        return Step(state)

    def is_done(self, state: frozenset[int]) -> bool:
        return not state

    def unfinished(self, state: frozenset[int]) -> frozenset[int]:
        return state


def test_stuck_run_names_the_jobs() -> None:
    with pytest.raises(SimulationStuckError) as info:
        simulate(Waiting(), frozenset({3, 1, 2}), [Event(7, Phase.ARRIVAL, None)])
    assert info.value.jobs == (1, 2, 3)
    assert info.value.time == 7
    assert "no event left" in str(info.value) and "1, 2, 3" in str(info.value)


def test_livelock_is_stopped_by_the_event_budget() -> None:
    with pytest.raises(SimulationStuckError, match="event budget of 50 spent"):
        simulate(Waiting(), frozenset({9}), [Event(0, Phase.TIMER, "forever")], max_events=50)


def test_run_stops_when_done_even_with_events_left_and_returns_the_log() -> None:
    events = [_event(t, Phase.ARRIVAL, f"e{t}") for t in range(10)]
    trace = simulate(Script(budget=3), (), events)
    assert len(trace.state) == 3 and trace.end == 2 and trace.events == 3


def test_progress_callback_is_called() -> None:
    calls: list[tuple[float, int]] = []
    events = [_event(t, Phase.ARRIVAL, "x") for t in range(5000)]
    simulate(Script(budget=5000), (), events, progress=lambda now, n: calls.append((now, n)))
    assert calls == [(4095, 4096)]
