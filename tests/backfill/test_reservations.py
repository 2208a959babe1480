"""The incremental compression of `Reservations` against the straightforward one.

The straightforward compression is conservative backfilling's definition, written
plainly: at a pass where room came back, every waiting job in queue order is taken out
of the profile and put back at its earliest fit from now (new jobs placed at their
turn); at any other pass only the new jobs are placed. `Reservations` skips the jobs
and the windows that cannot have changed (see its module). The two must give the same
schedule: the same reservations, moves and starts — every `RESERVE` entry of the log —
on random workloads (float and integer times), on slices of the real traces, and in
the multi-site model, where reservations are also withdrawn and copies are inserted
in efficacy order.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlib.backfill import (
    Plan,
    PlanDecision,
    Profile,
    ProfileEditor,
    Request,
    Reservations,
    conservative,
    schedule,
)
from schedlib.model import Time
from schedlib.multisite import POLICIES, simulate_multisite
from schedlib.testing.strategies import multisite_instances, parallel_instances
from schedlib.testing.strategies.clock import Clock, clocks
from schedlib.workloads import load_workload
from schedlib.workloads.locate import traces_folder

# -- the reference ------------------------------------------------------------------------


def straightforward(plan: Plan) -> PlanDecision:
    """Conservative backfilling by its definition: every waiting job re-placed in queue order."""
    now = plan.now
    editor = plan.profile.edit()
    editor.advance(now)
    for planned_end, procs in plan.released:
        editor.release_until(now, planned_end, procs)
    compress = bool(plan.released) or plan.compress
    starts = list(plan.reservations)
    changed = []
    for k, job in enumerate(plan.queue):
        old = starts[k]
        if old is not None:
            if not compress:
                continue
            editor.release_until(old, old + job.requested_time, job.procs)  # taken out
        at = editor.earliest_fit(now, job.procs, job.requested_time)
        editor.reserve(at, job.requested_time, job.procs)
        if at != old:
            starts[k] = at
            changed.append(k)
    due = tuple(k for k, at in enumerate(starts) if at == now)
    return PlanDecision(
        tuple(starts),  # type: ignore[arg-type]
        editor.freeze(),
        tuple(plan.queue[k] for k in due),
        due,
        tuple(changed),
    )


def straightforward_compress(book: Reservations, now: Time) -> list[int]:
    """`Reservations._compress` by the definition (the same reference, for the models)."""
    book._floor, book._ceiling = float("inf"), -float("inf")
    editor = book.editor
    changed = []
    for k, job in enumerate(book.requests):
        old = book.starts[k]
        if old is not None:
            editor.release_until(old, old + job.requested_time, job.procs)  # type: ignore[attr-defined]
        at = editor.earliest_fit(now, job.procs, job.requested_time)  # type: ignore[attr-defined]
        editor.reserve(at, job.requested_time, job.procs)  # type: ignore[attr-defined]
        if at != old:
            book.starts[k] = at
            changed.append(k)
    return changed


@contextmanager
def by_definition() -> Iterator[None]:
    """Every `Reservations` compresses by the definition for the duration."""
    saved = Reservations._compress
    Reservations._compress = straightforward_compress  # type: ignore[method-assign]
    try:
        yield
    finally:
        Reservations._compress = saved  # type: ignore[method-assign]


def log_of(record: Any) -> list[tuple[Any, ...]]:
    return [(e.time, e.job, e.kind, e.place, e.at) for e in record.events]


# -- the reference itself -------------------------------------------------------------------


def test_the_reference_compresses_as_the_backfilling_page_says() -> None:
    """The page's example: 2 processors, job 2 ends a second early; job 4 keeps t = 1."""
    profile = Profile.idle(2).reserve(0, 1, 1).reserve(0, 2, 1).reserve(2, 1, 2).reserve(1, 1, 1)
    queue = (Request(3, 0, 2, 1), Request(4, 0, 1, 1))
    plan = Plan(1, profile, queue, (2, 1), released=((2, 1),))
    for decide in (straightforward, conservative):
        decision = decide(plan)
        assert decision.reservations == (2, 1) and [j.id for j in decision.start] == [4]


# -- single site ------------------------------------------------------------------------------

SPREAD = {"max_processors": 6, "max_jobs": 14, "max_submit": 30, "max_requested_time": 10}
DENSE = {"max_processors": 4, "max_jobs": 16, "max_submit": 4, "max_requested_time": 8}


@pytest.mark.parametrize("times", ["integer", "float"])
@pytest.mark.parametrize("bounds", [SPREAD, DENSE], ids=["spread", "dense"])
@pytest.mark.parametrize("conventions", ["instant", "pyss"])
@settings(max_examples=60)
@given(data=st.data())
def test_one_cluster_schedules_as_the_definition(
    times: str, bounds: dict[str, int], conventions: str, data: st.DataObject
) -> None:
    cluster, jobs = data.draw(parallel_instances(**bounds, runtimes="any", times=times))
    ours = schedule(
        jobs, cluster, policy="conservative", log_reservations=True, conventions=conventions
    )
    reference = schedule(
        jobs,
        cluster,
        policy="conservative",
        log_reservations=True,
        conventions=conventions,
        decide=straightforward,
    )
    assert log_of(ours) == log_of(reference)


@pytest.mark.parametrize("times", ["integer", "float"])
@settings(max_examples=60)
@given(data=st.data())
def test_the_pure_decision_function_decides_as_the_definition(
    times: str, data: st.DataObject
) -> None:
    cluster, jobs = data.draw(parallel_instances(**DENSE, runtimes="early", times=times))
    ours = schedule(
        jobs, cluster, policy="conservative", log_reservations=True, decide=conservative
    )
    reference = schedule(
        jobs, cluster, policy="conservative", log_reservations=True, decide=straightforward
    )
    assert log_of(ours) == log_of(reference)


# -- multi-site: withdrawals, insertions in efficacy order ---------------------------------------

CONSERVATIVE_VARIANTS = [
    POLICIES["conservative-mr"],
    POLICIES["conservative-mr-slower"],
    POLICIES["efficacy"],
    POLICIES["efficacy"].with_copies(2, "completion"),
    POLICIES["conservative-mr"].with_copies(3, "load"),
]


@pytest.mark.parametrize("policy", CONSERVATIVE_VARIANTS, ids=lambda p: p.name)
@pytest.mark.parametrize("times", ["integer", "float"])
@settings(max_examples=40)
@given(data=st.data())
def test_every_conservative_site_schedules_as_the_definition(
    policy: Any, times: str, data: st.DataObject
) -> None:
    sites, matrix, jobs = data.draw(
        multisite_instances(max_sites=3, max_processors=5, max_jobs=12, times=times)
    )
    on_arrival = data.draw(st.booleans())
    ours = simulate_multisite(
        jobs, sites, policy, matrix=matrix, log_reservations=True, reserve_on_arrival=on_arrival
    )
    with by_definition():
        reference = simulate_multisite(
            jobs,
            sites,
            policy,
            matrix=matrix,
            log_reservations=True,
            reserve_on_arrival=on_arrival,
        )
    assert log_of(ours.record) == log_of(reference.record)


# -- one book under random operations: arrivals, early ends, withdrawals ---------------------


class OtherEditor(ProfileEditor):
    """A profile editor of another class: `Reservations` uses only its public methods."""


class ByDefinition(Reservations):
    """A book that compresses by the definition (the reference, beside the real one)."""

    _compress = straightforward_compress


OPERATIONS = st.lists(
    st.one_of(
        st.tuples(st.just("arrive"), st.integers(1, 5), st.integers(1, 8)),
        st.tuples(st.just("withdraw"), st.integers(0, 40)),
        st.tuples(st.just("end"), st.integers(0, 40)),
        st.tuples(st.just("wait"), st.integers(1, 4)),
    ),
    max_size=40,
)


def replay(clock: Clock, capacity: int, operations: list[tuple[Any, ...]]) -> None:
    """Drive a book and its reference through `operations`; they must decide alike.

    `("arrive", procs, ticks)` queues a job (procs capped at the capacity),
    `("withdraw", i)` takes queued job `i` (modulo the queue) out, `("end", i)` ends
    running job `i` (modulo those before their planned end) now, `("wait", ticks)`
    moves the clock on, no later than the earliest reservation (the model's timer).
    Both books decide after every operation.
    """
    ours, reference = Reservations(Profile.idle(capacity)), ByDefinition(Profile.idle(capacity))
    # a subclass of the editor: compression goes through its public methods
    methods = Reservations(OtherEditor(capacity, [clock.at(0)], [capacity]))
    books = (ours, reference, methods)
    ticks = 0
    now = clock.at(0)
    running: list[tuple[Time, int]] = []  # (planned end, procs) of the started jobs
    for job_id, (operation, *args) in enumerate(operations):
        if operation == "arrive":
            request = Request(job_id, now, min(args[0], capacity), clock.span(args[1]))
            for book in books:
                book.append(request)
        elif operation == "withdraw" and len(ours):
            k = args[0] % len(ours)
            assert ours.withdraw(k) == reference.withdraw(k) == methods.withdraw(k)
        elif operation == "end":
            early = [r for r in running if r[0] > now]
            if early:
                planned_end, procs = early[args[0] % len(early)]
                running.remove((planned_end, procs))
                for book in books:
                    book.end_early(now, planned_end, procs)
        elif operation == "wait":
            ticks += args[0]
            due = ours.next_due()
            now = clock.at(ticks)
            if due is not None and due < now:
                now = due
        decision = ours.decide(now)
        assert decision == reference.decide(now) == methods.decide(now), (operation, now)
        assert ours.starts == reference.starts == methods.starts
        assert ours.freeze() == reference.freeze() == methods.freeze()
        started = decision[1]
        running += [
            (now + ours.requests[k].requested_time, ours.requests[k].procs) for k in started
        ]
        for book in books:
            book.pop_due(started)


@pytest.mark.parametrize("times", ["integer", "float"])
@settings(max_examples=300)
@given(clock=st.data(), capacity=st.integers(1, 5), operations=OPERATIONS)
def test_a_book_under_random_operations_decides_as_the_definition(
    times: str, clock: st.DataObject, capacity: int, operations: list[tuple[Any, ...]]
) -> None:
    """Withdrawals anywhere in the queue free room that starts after `now`, and early ends
    free room up to their planned end: a job checked before a later move of the same pass
    must still see that move's room at the next compression."""
    replay(clock.draw(clocks(times)), capacity, operations)


# Operation sequences on which a book that forgets the room freed by the moves after a
# job (for the next compression) decides differently from the definition: rare among
# random sequences (about one in a few hundred), so kept as fixed cases. Found by a
# search over random sequences (seeded), each the shortest of its search.
FORGETFUL = [
    (
        3,
        "arrive 1 5; end 1; arrive 1 8; arrive 2 3; arrive 3 6; arrive 1 7; arrive 1 2; end 8; "
        "withdraw 9; end 3",
    ),
    (
        2,
        "arrive 2 7; arrive 1 6; wait 2; arrive 2 4; arrive 2 2; arrive 1 3; end 10; wait 4; "
        "withdraw 9",
    ),
]


@pytest.mark.parametrize(("capacity", "script"), FORGETFUL)
def test_a_job_checked_before_a_later_move_sees_its_room_at_the_next_compression(
    capacity: int, script: str
) -> None:
    operations = [
        (word, *map(int, rest)) for word, *rest in (step.split() for step in script.split(";"))
    ]
    replay(Clock(1, 0), capacity, operations)


# -- slices of the real traces ---------------------------------------------------------------------

FOLDER = traces_folder()
SLICES = [
    ("SDSC-SP2-1998-4.2-cln.swf.gz", None, 1500),
    ("CTC-SP2-1996-3.1-cln.swf.gz", 430, 1500),
    ("CTC-SP2-1996-3.1-cln.swf.gz", 338, 1500),
    ("KTH-SP2-1996-2.1-cln.swf.gz", None, 1500),
]


@pytest.mark.parametrize(("trace", "processors", "limit"), SLICES)
def test_real_trace_slices_schedule_as_the_definition(
    trace: str, processors: int | None, limit: int
) -> None:
    if FOLDER is None or not (FOLDER / trace).is_file():
        pytest.skip(f"{trace} is not available")
    workload = load_workload(FOLDER / trace, processors=processors, limit=limit)
    args = (workload.jobs, workload.cluster)
    kw: dict[str, Any] = {"policy": "conservative", "log_reservations": True}
    ours = schedule(*args, **kw)
    reference = schedule(*args, **kw, decide=straightforward)
    assert log_of(ours) == log_of(reference)


def test_a_multisite_slice_of_a_real_trace_schedules_as_the_definition() -> None:
    from schedlib.experiments.multisite import paper_workload
    from schedlib.multisite import paper_sites, with_load_factor
    from schedlib.workloads.locate import find_trace

    source = find_trace("sdsc")
    if source.embedded:
        pytest.skip("the real SDSC-SP2 trace is not available")
    size, stream = paper_workload(source, 150, 0, 0)
    loaded = with_load_factor(stream, 2.0)
    for policy in ("conservative-mr", "efficacy"):
        ours = simulate_multisite(loaded, paper_sites(size), policy, log_reservations=True)
        with by_definition():
            reference = simulate_multisite(loaded, paper_sites(size), policy, log_reservations=True)
        assert log_of(ours.record) == log_of(reference.record)


def test_a_job_wider_than_the_room_freed_is_not_moved() -> None:
    """The freed envelope bounds the scan: a window starting after it is never looked at."""
    book = Reservations(Profile.idle(4).reserve(0, 10, 2).reserve(0, 20, 2).edit())
    book.append(Request(1, 0, 4, 5))  # reserved at 20: all 4 processors
    book.append(Request(2, 0, 2, 30))  # 2 free only from 20, held by job 1 over [20, 25)
    assert book.decide(0) == ([0, 1], [])
    assert book.starts == [20, 25]
    book.end_early(3, 10, 2)  # [3, 10) x 2 comes back: job 2 (2 procs, 30 s) cannot use it
    assert book.decide(3) == ([], [])
    reference = Reservations(Profile.idle(4).reserve(0, 10, 2).reserve(0, 20, 2).edit())
    reference.append(Request(1, 0, 4, 5))
    reference.append(Request(2, 0, 2, 30))
    reference.decide(0)
    reference.end_early(3, 10, 2)
    reference.editor.advance(3)
    assert straightforward_compress(reference, 3) == [] and reference.starts == book.starts
    assert reference.freeze() == book.freeze()
