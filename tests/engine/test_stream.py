"""`stream` hands out `simulate`'s log; runs pause the cyclic collector yet reclaim cycles."""

from __future__ import annotations

import gc
import weakref

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlib.collector import YOUNG_EVERY
from schedlib.engine import Event, Phase, Step, simulate, stream
from schedlib.engine.loop import STREAM_CHUNK
from schedlib.errors import SimulationStuckError
from schedlib.model import EventKind, JobEvent


class Sleepers:
    """Each job arrives, starts at once and completes `length` later; the state counts ends."""

    def __init__(self, total: int) -> None:
        self.total = total

    def on_event(self, state: int, event: Event) -> Step[int]:
        job, length = event.payload
        if event.phase == Phase.ARRIVAL:
            done = Event(event.time + length, Phase.COMPLETION, (job, length))
            log = (
                JobEvent(event.time, job, EventKind.SUBMIT),
                JobEvent(event.time, job, EventKind.START, (0,)),
            )
            return Step(state, events=(done,), log=log, wake=True)
        return Step(state + 1, log=(JobEvent(event.time, job, EventKind.COMPLETE, (0,)),))

    def on_pass(self, state: int, now: float) -> Step[int]:
        return Step(state)

    def is_done(self, state: int) -> bool:
        return state == self.total

    def unfinished(self, state: int) -> tuple[int, ...]:
        return tuple(range(self.total - state))


jobs = st.lists(st.tuples(st.integers(0, 50), st.integers(0, 20)), max_size=60)


@given(jobs)
def test_stream_hands_out_simulate_s_log(spec: list[tuple[int, int]]) -> None:
    events = [Event(t, Phase.ARRIVAL, (k, length)) for k, (t, length) in enumerate(spec)]
    model = Sleepers(len(spec))
    trace = simulate(model, 0, events)
    run = stream(model, 0, events)
    assert list(run) == list(trace.log)
    assert (run.state, run.end, run.events) == (trace.state, trace.end, trace.events)


def test_a_long_stream_comes_in_chunks_and_keeps_nothing() -> None:
    n = 3 * STREAM_CHUNK
    events = [Event(k, Phase.ARRIVAL, (k, 5)) for k in range(n)]
    run = stream(Sleepers(n), 0, events)
    first = next(run)
    assert first.kind is EventKind.SUBMIT
    assert run.events < n  # the run has not gone to the end to hand out the first entry
    assert sum(1 for _ in run) == 3 * n - 1
    assert run._run.log == []


def test_a_stuck_stream_raises_when_the_iteration_reaches_it() -> None:
    events = [Event(0, Phase.ARRIVAL, (0, 5))]
    run = stream(Sleepers(2), 0, events)  # job 1 never arrives
    with pytest.raises(SimulationStuckError, match="no event left"):
        list(run)


class Node:
    """A weak-referenceable object to build cycles of."""

    other: Node | None = None


class Cyclic(Sleepers):
    """Makes one reference cycle per event, each with a finalizer that counts its collection."""

    def __init__(self, total: int, collected: list[int]) -> None:
        super().__init__(total)
        self.collected = collected

    def on_event(self, state: int, event: Event) -> Step[int]:
        a, b = Node(), Node()
        a.other, b.other = b, a  # a cycle: only the cyclic collector frees it
        weakref.finalize(a, self.collected.append, 1)
        return super().on_event(state, event)


def test_cycles_made_during_a_run_are_reclaimed_during_the_run() -> None:
    collected: list[int] = []
    n = YOUNG_EVERY  # two events per job: the young generation is collected at least once
    events = [Event(k, Phase.ARRIVAL, (k, 1)) for k in range(n)]
    enabled = gc.isenabled()
    seen_during: list[int] = []

    def progress(now: float, handled: int) -> None:
        seen_during.append(len(collected))
        assert not gc.isenabled()  # paused while the engine runs

    simulate(Cyclic(n, collected), 0, events, progress=progress)
    assert gc.isenabled() == enabled  # restored
    assert max(seen_during) > 0  # reclaimed while the run went on, not only after it
