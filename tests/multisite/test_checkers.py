"""Each rule of the multi-site checkers fails on a small hand-built log that breaks it.

The property and decision tests run the checkers over many correct runs; a rule that is
never shown a broken log could be switched off unnoticed (the round-4 audit found most of
these rules only ever run on correct logs). Each test writes a log of a few entries that
breaks one rule, names the rule, and asserts that the checker reports it; where the
broken log differs from a correct one by one entry, the correct one is shown to pass.

Logs follow the multi-site layout: processors have global ids (site $s$ owns
$[o_s, o_s + P_s)$), `ASSIGN`, `RETURN` and `RESERVE` name the site as `(site,)`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from schedlib.model import EventKind as K
from schedlib.model import Job, JobEvent, RunRecord
from schedlib.testing.invariants import (
    check_admission,
    check_completion_bound,
    check_copies_withdrawn,
    check_multisite_reservations,
    check_one_execution_at_a_time,
    check_queue_priority,
    check_site_choice,
    check_utilisations,
    check_within_one_site,
)

E = JobEvent


def record(
    log: Sequence[JobEvent], jobs: Sequence[Job] = (), *, capacity: int = 2, **parameters: Any
) -> RunRecord:
    """A record of `log` (default workload: one job of 1 processor per job logged)."""
    workload = list(jobs) or [Job(j, 0, 1, 5, 5) for j in sorted({e.job for e in log})]
    return RunRecord.from_log("hand-built", workload, log, capacity=capacity, parameters=parameters)


# -- check_within_one_site -----------------------------------------------------------------


def test_an_execution_on_processors_that_no_site_owns_is_reported() -> None:
    """Two sites of one processor own ids 0 and 1: processor 2 is nobody's."""
    log = [E(0, 1, K.SUBMIT), E(0, 1, K.START, (2,)), E(5, 1, K.COMPLETE, (2,))]
    check_within_one_site(record(log[:1]), sites=[1, 1])
    with pytest.raises(AssertionError, match=r"processors 2: the sites have ids 0\.\.1"):
        check_within_one_site(record(log, capacity=3), sites=[1, 1])


def test_an_execution_across_two_sites_is_reported() -> None:
    """§3: a job runs within one site. Processors 1-2 are site 0's last and site 1's first."""
    jobs = [Job(1, 0, 2, 5, 5)]
    good = [E(0, 1, K.SUBMIT), E(0, 1, K.START, (2, 3)), E(5, 1, K.COMPLETE, (2, 3))]
    check_within_one_site(record(good, jobs, capacity=4), sites=[2, 2])
    bad = [E(0, 1, K.SUBMIT), E(0, 1, K.START, (1, 2)), E(5, 1, K.COMPLETE, (1, 2))]
    with pytest.raises(AssertionError, match=r"of sites \[0, 1\]: an execution must stay within"):
        check_within_one_site(record(bad, jobs, capacity=4), sites=[2, 2])


# -- check_one_execution_at_a_time ---------------------------------------------------------


def test_a_job_started_twice_at_once_is_reported() -> None:
    log = [E(0, 1, K.SUBMIT), E(0, 1, K.START, (0,)), E(1, 1, K.START, (1,)),
           E(5, 1, K.COMPLETE, (0,)), E(6, 1, K.COMPLETE, (1,))]  # fmt: skip
    with pytest.raises(AssertionError, match="while still running on processors 0 since t=0"):
        check_one_execution_at_a_time(record(log))


@pytest.mark.parametrize(
    ("ends", "times"),
    [([K.CANCEL], 0), ([K.COMPLETE, K.COMPLETE], 2)],
    ids=["only-cancelled", "completed-twice"],
)
def test_a_job_that_ran_ends_exactly_once(ends: list[K], times: int) -> None:
    """§4: the copies stopped for a faster one are cancelled; the job itself ends once."""
    log = [E(0, 1, K.SUBMIT)]
    for k, kind in enumerate(ends):
        log += [E(k, 1, K.START, (0,)), E(k + 0.5, 1, kind, (0,))]
    good = [E(0, 1, K.SUBMIT), E(0, 1, K.START, (0,)), E(1, 1, K.CANCEL, (0,)),
            E(1, 1, K.START, (1,)), E(2, 1, K.COMPLETE, (1,))]  # fmt: skip
    check_one_execution_at_a_time(record(good))
    with pytest.raises(AssertionError, match=f"job 1 ran to its end {times} times"):
        check_one_execution_at_a_time(record(log))


# -- check_copies_withdrawn ----------------------------------------------------------------

TWO_COPIES = [E(0, 1, K.SUBMIT), E(0, 1, K.ASSIGN, (0,)), E(0, 1, K.ASSIGN, (1,))]


def test_cancel_all_leaves_no_copy_waiting_after_a_start() -> None:
    """§4 (atomic cancellation): the copy at site 1 must go at the instant job 1 starts."""
    start = [E(0, 1, K.START, (0,))]
    done = [E(5, 1, K.COMPLETE, (0,))]
    check_copies_withdrawn(
        record([*TWO_COPIES, *start, E(0, 1, K.RETURN, (1,)), *done]), sites=[1, 1]
    )
    with pytest.raises(AssertionError, match=r"copies at sites \[1\] still wait .* none"):
        check_copies_withdrawn(record([*TWO_COPIES, *start, *done]), sites=[1, 1])


@pytest.mark.parametrize(
    ("withdrawn", "match"),
    [((), r"sites \[1\] still wait .*expected: none"), ((1,), r"sites \[\] still wait .*\[1\]")],
    ids=["slower-copy-kept", "faster-copy-withdrawn"],
)
def test_cancel_slower_withdraws_exactly_the_slower_copies(
    withdrawn: tuple[int, ...], match: str
) -> None:
    """§5: only the copies where the job runs at least as long go. Job 1 starts at site 0
    (requested 5); at site 1 it asks 5 (not shorter: must go), or 3 (faster: must stay)."""
    start = [E(0, 1, K.START, (0,))]
    returns = [E(0, 1, K.RETURN, (s,)) for s in withdrawn]
    log = [*TWO_COPIES, *start, *returns, E(5, 1, K.COMPLETE, (0,))]
    if withdrawn:  # the copy at site 1 is the faster one: it must stay
        estimates = {1: (5.0, 3.0)}
        good = [*TWO_COPIES, *start, E(5, 1, K.RETURN, (1,)), E(5, 1, K.COMPLETE, (0,))]
    else:
        estimates = {1: (5.0, 5.0)}
        good = [*TWO_COPIES, *start, E(0, 1, K.RETURN, (1,)), E(5, 1, K.COMPLETE, (0,))]
    check_copies_withdrawn(record(good), cancel="slower", estimates=estimates, sites=[1, 1])
    with pytest.raises(AssertionError, match=match):
        check_copies_withdrawn(record(log), cancel="slower", estimates=estimates, sites=[1, 1])


# -- check_multisite_reservations ----------------------------------------------------------


def test_a_reservation_never_moves_later() -> None:
    """§2: compression only moves a reservation earlier."""
    log = [E(0, 1, K.SUBMIT), E(0, 1, K.ASSIGN, (0,)), E(0, 1, K.RESERVE, (0,), at=3),
           E(1, 1, K.RESERVE, (0,), at=4), E(4, 1, K.START, (0,)),
           E(9, 1, K.COMPLETE, (0,))]  # fmt: skip
    with pytest.raises(AssertionError, match="reservation moved later at t=1, from 3 to 4"):
        check_multisite_reservations(record(log), sites=[1])


def test_a_copy_starts_at_its_reservation() -> None:
    """§2: a conservative site keeps its promise: reserved at 3, the copy starts at 3."""
    head = [E(0, 1, K.SUBMIT), E(0, 1, K.ASSIGN, (0,)), E(0, 1, K.RESERVE, (0,), at=3)]
    check_multisite_reservations(
        record([*head, E(3, 1, K.START, (0,)), E(8, 1, K.COMPLETE, (0,))]), sites=[1]
    )
    with pytest.raises(AssertionError, match="started at t=2, its reservation was 3"):
        check_multisite_reservations(
            record([*head, E(2, 1, K.START, (0,)), E(7, 1, K.COMPLETE, (0,))]), sites=[1]
        )


def test_a_copy_never_waits_past_its_reservation() -> None:
    head = [E(0, 1, K.SUBMIT), E(0, 1, K.ASSIGN, (0,)), E(0, 1, K.RESERVE, (0,), at=3),
            E(0, 2, K.SUBMIT)]  # fmt: skip
    log = [*head, E(4, 2, K.ASSIGN, (0,)), E(5, 1, K.START, (0,)), E(10, 1, K.COMPLETE, (0,))]
    with pytest.raises(AssertionError, match="still waiting at t=4, past its reservation 3"):
        check_multisite_reservations(record(log), sites=[1])


# -- check_completion_bound ----------------------------------------------------------------


def test_a_job_ends_by_its_earliest_first_promise() -> None:
    """§5-§6: site 1 first promised completion by 2 + 5 = 7; the job ended at 10."""
    log = [E(0, 1, K.SUBMIT), E(0, 1, K.RESERVE, (0,), at=0), E(0, 1, K.RESERVE, (1,), at=2),
           E(0, 1, K.START, (0,)), E(10, 1, K.COMPLETE, (0,))]  # fmt: skip
    check_completion_bound(record(log), estimates={1: (10, 8)})
    with pytest.raises(AssertionError, match="ended at t=10 but site 1 promised completion by 7"):
        check_completion_bound(record(log), estimates={1: (10, 5)})


# -- check_utilisations --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("utilisation", "effective", "match"),
    [
        (1.2, 0.5, r"utilisation 1\.2 outside \[0, 1\]"),
        (-0.1, -0.2, r"utilisation -0\.1 outside \[0, 1\]"),
        (0.5, -0.1, r"effective utilisation -0\.1 below 0"),
        (0.5, 0.6, "above utilisation 0.5"),
    ],
)
def test_utilisations_lie_in_order_between_0_and_1(
    utilisation: float, effective: float, match: str
) -> None:
    """§4: $0 \\le U_{eff} \\le U \\le 1$."""
    check_utilisations(1.0, 1.0)
    with pytest.raises(AssertionError, match=match):
        check_utilisations(utilisation, effective)


# -- check_site_choice ---------------------------------------------------------------------

LOAD_K1 = {"selection": "load", "copies": 1, "local": "easy"}


def test_no_copy_goes_to_a_site_too_small_for_the_job() -> None:
    """Sites of one processor cannot hold a job of two: it gets no copy at all."""
    jobs = [Job(1, 0, 2, 5, 5)]
    log = [E(0, 1, K.SUBMIT), E(0, 1, K.ASSIGN, (0,))]
    check_site_choice(record(log[:1], jobs, **LOAD_K1), estimates={1: (5, 5)}, sites=[1, 1])
    with pytest.raises(AssertionError, match="sent to sites \\[0\\] at t=0: no site is large"):
        check_site_choice(record(log, jobs, **LOAD_K1), estimates={1: (5, 5)}, sites=[1, 1])


@pytest.mark.parametrize(
    ("sites", "why"),
    [((0, 1), "two copies for K = 1"), ((1, 0), "not ascending"), ((2,), "site 2 too small")],
)
def test_a_job_goes_to_k_distinct_sites_large_enough(sites: tuple[int, ...], why: str) -> None:
    """§4/§7: K sites, each named once in ascending order, among those large enough."""
    jobs = [Job(1, 0, 2, 5, 5)]
    log = [E(0, 1, K.SUBMIT), *(E(0, 1, K.ASSIGN, (s,)) for s in sites)]
    good = [E(0, 1, K.SUBMIT), E(0, 1, K.ASSIGN, (0,))]
    est = {1: (5, 5, 5)}
    check_site_choice(record(good, jobs, **LOAD_K1), estimates=est, sites=[2, 2, 1])
    with pytest.raises(AssertionError, match="expected 1 distinct sites, ascending"):
        check_site_choice(record(log, jobs, **LOAD_K1), estimates=est, sites=[2, 2, 1])


# -- check_admission -----------------------------------------------------------------------

DUE = [
    E(0, 1, K.SUBMIT),
    E(0, 1, K.ASSIGN, (0,)),
    E(0, 1, K.ASSIGN, (1,)),
    E(0, 1, K.RESERVE, (0,), at=0),
    E(0, 1, K.RESERVE, (1,), at=0),
]
COMPLETION = {"start": "completion", "local": "conservative"}


def test_a_copy_does_not_start_when_another_completes_strictly_earlier() -> None:
    """§5: both copies are due at 0; site 1 completes by 5, site 0 by 10: site 0's copy is
    dropped and site 1's starts, never the other way round."""
    est = {1: (10, 5)}
    good = [*DUE, E(0, 1, K.RETURN, (0,)), E(0, 1, K.START, (1,)), E(5, 1, K.COMPLETE, (1,))]
    check_admission(record(good, **COMPLETION), estimates=est, sites=[1, 1])
    bad = [*DUE, E(0, 1, K.START, (0,)), E(0, 1, K.RETURN, (1,)), E(10, 1, K.COMPLETE, (0,))]
    with pytest.raises(AssertionError, match="though site 1 expected it done by 5"):
        check_admission(record(bad, **COMPLETION), estimates=est, sites=[1, 1])


def test_start_based_copies_are_withdrawn_only_when_the_job_starts_or_ends() -> None:
    """§4: with start-based starts nothing is dropped: a RETURN before the start is a break."""
    log = [*DUE, E(0, 1, K.RETURN, (0,)), E(0, 1, K.START, (1,)), E(5, 1, K.COMPLETE, (1,))]
    with pytest.raises(AssertionError, match="start-based copies are withdrawn only when"):
        check_admission(
            record(log, start="start", local="conservative"), estimates={1: (5, 5)}, sites=[1, 1]
        )


def test_a_copy_is_dropped_only_when_due() -> None:
    """§5: site 0's copy is reserved at 4; dropping it at 0 is not the admission rule."""
    log = [E(0, 1, K.SUBMIT), E(0, 1, K.ASSIGN, (0,)), E(0, 1, K.ASSIGN, (1,)),
           E(0, 1, K.RESERVE, (0,), at=4), E(0, 1, K.RESERVE, (1,), at=1),
           E(0, 1, K.RETURN, (0,)), E(1, 1, K.START, (1,)), E(6, 1, K.COMPLETE, (1,))]  # fmt: skip
    with pytest.raises(AssertionError, match="dropped at site 0 at t=0, before it was due"):
        check_admission(record(log, **COMPLETION), estimates={1: (5, 5)}, sites=[1, 1])


# -- check_queue_priority ------------------------------------------------------------------

CONSERVATIVE = {"local": "conservative", "priority": "fcfs"}


def test_a_plan_without_freed_room_moves_no_reservation() -> None:
    """§2: without an early end or a withdrawal since the site's last plan, a plan only
    places new copies; job 1's reservation at 0 re-made at 0 by a later plan is a move."""
    jobs = [Job(1, 0, 1, 5, 5), Job(2, 1, 1, 5, 5)]
    log = [E(0, 1, K.SUBMIT), E(0, 1, K.ASSIGN, (0,)), E(0, 1, K.RESERVE, (0,), at=0),
           E(0, 1, K.START, (0,)), E(1, 2, K.SUBMIT), E(1, 2, K.ASSIGN, (0,)),
           E(1, 2, K.RESERVE, (0,), at=5)]  # fmt: skip
    check_queue_priority(
        record(log, jobs, capacity=1, **CONSERVATIVE), estimates={1: (5,), 2: (5,)}, sites=[1]
    )
    moved = [*log, E(2, 2, K.RESERVE, (0,), at=5)]
    with pytest.raises(AssertionError, match="job 2 moved from 5 to 5 though no room was freed"):
        check_queue_priority(
            record(moved, jobs, capacity=1, **CONSERVATIVE), estimates={1: (5,), 2: (5,)}, sites=[1]
        )


@pytest.mark.parametrize("at", [6, 4], ids=["later-than-the-fit", "earlier-than-the-fit"])
def test_a_reservation_is_made_at_the_earliest_fit(at: float) -> None:
    """§2: job 1 runs over [0, 5): job 2's earliest fit is 5, not 6 (nor 4, overlapping)."""
    jobs = [Job(1, 0, 1, 5, 5), Job(2, 0, 1, 5, 5)]
    head = [E(0, 1, K.SUBMIT), E(0, 1, K.ASSIGN, (0,)), E(0, 1, K.RESERVE, (0,), at=0),
            E(0, 2, K.SUBMIT), E(0, 2, K.ASSIGN, (0,))]  # fmt: skip
    est = {1: (5,), 2: (5,)}
    good = [*head, E(0, 2, K.RESERVE, (0,), at=5)]
    check_queue_priority(record(good, jobs, capacity=1, **CONSERVATIVE), estimates=est, sites=[1])
    bad = [*head, E(0, 2, K.RESERVE, (0,), at=at)]
    with pytest.raises(
        AssertionError, match=f"job 2 reserved at {at}, its earliest fit in queue order is 5"
    ):
        check_queue_priority(
            record(bad, jobs, capacity=1, **CONSERVATIVE), estimates=est, sites=[1]
        )


def test_easy_holds_the_reservation_for_the_first_copy_in_queue_order() -> None:
    """§2 (EASY): jobs 1 and 2 (2 processors each) wait behind job 0 on a site of 2; the
    head, job 1 (first come), holds the reservation at 5, not job 2."""
    jobs = [Job(0, 0, 2, 5, 5), Job(1, 1, 2, 5, 5), Job(2, 2, 2, 5, 5)]
    head = [E(0, 0, K.SUBMIT), E(0, 0, K.ASSIGN, (0,)), E(0, 0, K.START, (0, 1)),
            E(1, 1, K.SUBMIT), E(1, 1, K.ASSIGN, (0,)), E(1, 1, K.RESERVE, (0,), at=5),
            E(2, 2, K.SUBMIT), E(2, 2, K.ASSIGN, (0,))]  # fmt: skip
    est = {0: (5,), 1: (5,), 2: (5,)}
    easy = {"local": "easy", "priority": "fcfs"}
    check_queue_priority(record(head, jobs, **easy), estimates=est, sites=[2])
    bad = [*head, E(2, 2, K.RESERVE, (0,), at=5)]
    with pytest.raises(AssertionError, match="job 2 holds the reservation at 5; the head in queue"):
        check_queue_priority(record(bad, jobs, **easy), estimates=est, sites=[2])
