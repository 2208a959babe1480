"""The decision functions on hand-made snapshots (formulas, ties, edge cases)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from schedlib.backfill import (
    Plan,
    Profile,
    Request,
    Snapshot,
    conservative,
    easy,
    fcfs,
    shadow_time,
)


def ids(jobs: tuple[Request, ...]) -> list[int]:
    return [job.id for job in jobs]


def test_shadow_time_when_the_head_fits_now() -> None:
    assert shadow_time(5, 4, ((10, 2, 1),), 3) == (5, 1)


def test_shadow_time_counts_every_job_ending_at_that_instant() -> None:
    # 1 free; jobs of 2 and 3 processors both end at 20: the head of 2 starts at
    # 20 and 4 processors are extra then (not 2).
    running = ((20, 2, 1), (20, 3, 2), (30, 4, 3))
    assert shadow_time(0, 1, running, 2) == (20, 4)


def test_fcfs_starts_the_prefix_only() -> None:
    queue = (Request(1, 0, 2, 10), Request(2, 0, 3, 10), Request(3, 0, 1, 1))
    decision = fcfs(Snapshot(0, 4, (), queue))
    assert ids(decision.start) == [1] and decision.positions == (0,)
    assert decision.head is None and decision.reservation is None


def test_easy_backfills_with_extra_processors_past_the_shadow() -> None:
    # 8 processors, 3 free; a job of 5 ends at 100. Head needs 6: shadow 100,
    # extra = 3 + 5 - 6 = 2. Job 3 (2 procs, long) uses the extra processors;
    # then job 4 (1 proc, long) no longer fits the extra; job 5 ends in time.
    queue = (
        Request(2, 0, 6, 50),
        Request(3, 0, 2, 500),
        Request(4, 0, 1, 500),
        Request(5, 0, 1, 100),
    )
    decision = easy(Snapshot(0, 3, ((100, 5, 1),), queue))
    assert ids(decision.start) == [3, 5] and decision.positions == (1, 3)
    assert (decision.head.id, decision.reservation) == (2, 100)  # type: ignore[union-attr]


def test_easy_computes_the_shadow_after_starting_the_prefix() -> None:
    # Job 1 starts now (10 s); the head (job 2) then waits for it: shadow 10.
    queue = (Request(1, 0, 2, 10), Request(2, 0, 4, 10), Request(3, 0, 2, 10))
    decision = easy(Snapshot(0, 4, (), queue))
    assert ids(decision.start) == [1, 3]  # job 3 ends by the shadow time
    assert decision.reservation == 10


def test_easy_with_an_empty_queue() -> None:
    assert easy(Snapshot(0, 4, (), ())).start == ()


def test_conservative_reserves_new_jobs_in_queue_order() -> None:
    profile = Profile.idle(4).reserve(0, 10, 3)
    queue = (Request(1, 0, 2, 5), Request(2, 0, 1, 20), Request(3, 0, 1, 3))
    decision = conservative(Plan(0, profile, queue, (None, None, None)))
    # job 3 fits at 10 beside job 1 (1 processor is left there once job 2 holds one)
    assert decision.reservations == (10, 0, 10)
    assert ids(decision.start) == [2]
    assert decision.profile.steps() == ((0, 0), (13, 1), (15, 3), (20, 4))


def test_conservative_without_a_release_keeps_reservations() -> None:
    profile = Profile.idle(4).reserve(0, 10, 3).reserve(10, 5, 2)
    plan = Plan(2, profile, (Request(1, 0, 2, 5),), (10,))
    assert conservative(plan).reservations == (10,)


def test_conservative_compresses_when_processors_come_back() -> None:
    # A job holding 3 processors until 10 ends at 2: job 1 moves from 10 to 2.
    profile = Profile.idle(4).reserve(0, 10, 3).reserve(10, 5, 2)
    plan = Plan(2, profile, (Request(1, 0, 2, 5),), (10,), released=((10, 3),))
    decision = conservative(plan)
    assert decision.reservations == (2,) and ids(decision.start) == [1]
    assert decision.profile.steps() == ((2, 2), (7, 4))


@given(
    free=st.integers(0, 8),
    running=st.lists(st.tuples(st.integers(1, 50), st.integers(1, 4)), max_size=5),
    procs=st.integers(1, 8),
)
def test_shadow_time_is_the_earliest_fit_of_the_running_profile(
    free: int, running: list[tuple[int, int]], procs: int
) -> None:
    """EASY's shadow time and extra processors, against the availability profile."""
    capacity = free + sum(held for _, held in running)
    if procs > capacity:
        return
    profile = Profile.idle(capacity)
    for end, held in running:
        profile = profile.reserve(0, end, held)
    ends = tuple(sorted((end, held, k) for k, (end, held) in enumerate(running)))
    shadow, extra = shadow_time(0, free, ends, procs)
    assert shadow == profile.earliest_fit(0, procs, 1)
    assert extra == profile.free_at(shadow) - procs


def test_easy_backfills_a_job_ending_exactly_at_the_shadow_time_with_float_times() -> None:
    """`t + d <= S` as written: here `S - t < d` by one rounding, yet `t + d == S`.

    The minimal case of the multi-site runs (runtimes times Table 1 factors): 2
    processors free, a running job holds 3 until S, the head needs 4, job 3 needs
    2 for d. It ends exactly at the shadow time, so it must start now.
    """
    now, d = 734831.4662961123, 3589.5348837209303
    shadow = now + d
    assert shadow - now < d  # the subtraction loses the equality
    queue = (Request(2, 0, 4, 100.0), Request(3, 0, 2, d))
    decision = easy(Snapshot(now, 2, ((shadow, 3, 1),), queue))
    assert ids(decision.start) == [3]
    assert (decision.head.id, decision.reservation) == (2, shadow)  # type: ignore[union-attr]
