"""The multi-site model: workloads as in the paper, rules at their boundaries, clear errors."""

from __future__ import annotations

import random

import pytest

from schedlib.errors import InvalidValueError
from schedlib.model import EventKind, FinalState, Job
from schedlib.multisite import (
    CONSERVATIVE_MR,
    CONSERVATIVE_MR_SLOWER,
    EFFICACY,
    GREEDY,
    GREEDY_MR,
    SHIFT,
    MetaPolicy,
    MultiSiteJob,
    RuntimeMatrix,
    Site,
    multisite_workload,
    paper_sites,
    simulate_multisite,
    transfer_time,
    with_data_sizes,
    with_load_factor,
)
from schedlib.testing.invariants import check_multisite_run

TWO = (Site("a", 4), Site("b", 4))
SAME = RuntimeMatrix(((1.0, 1.0),), ("only",))


def test_the_paper_workload_is_four_copies_two_shifted_by_three_hours() -> None:
    trace = [Job(10 + i, 100 * i, 1 + i, 50, 40) for i in range(3)]
    jobs = multisite_workload(trace, sites=4, matrix=RuntimeMatrix.paper(), rng=random.Random(0))
    assert len(jobs) == 12 and SHIFT == 3 * 3600
    by_copy = {c: sorted((j for j in jobs if j.origin == c), key=lambda j: j.id) for c in range(4)}
    for copy, copies in by_copy.items():
        assert [j.id for j in copies] == [copy * 3 + i for i in range(3)]
        assert [j.original for j in copies] == [10, 11, 12]
        shift = SHIFT if copy >= 2 else 0
        assert [j.submit for j in copies] == [0 + shift, 100 + shift, 200 + shift]
    assert [(j.submit, j.id) for j in jobs] == sorted((j.submit, j.id) for j in jobs)


def test_classes_are_drawn_by_the_given_generator_only() -> None:
    trace = [Job(i, i, 1, 5, 5) for i in range(50)]
    matrix = RuntimeMatrix.paper()
    first = multisite_workload(trace, sites=4, matrix=matrix, rng=random.Random(7))
    again = multisite_workload(trace, sites=4, matrix=matrix, rng=random.Random(7))
    other = multisite_workload(trace, sites=4, matrix=matrix, rng=random.Random(8))
    assert first == again and first != other
    assert {j.job_class for j in first} == set(range(len(matrix.factors)))


def test_load_factor_multiplies_times_and_keeps_the_span() -> None:
    jobs = (MultiSiteJob(0, 0, 1, 10, 8), MultiSiteJob(1, 50, 2, 20, 30))
    heavier = with_load_factor(jobs, 1.4)
    assert [j.submit for j in heavier] == [0, 50]
    assert [(j.requested_time, j.runtime) for j in heavier] == [(14.0, 11.2), (28.0, 42.0)]
    with pytest.raises(InvalidValueError, match="factor"):
        with_load_factor(jobs, 0)


def test_transfer_time_is_size_over_the_link() -> None:
    assert transfer_time(500, 10) == pytest.approx(400.0)  # 500 MB = 4000 Mb at 10 Mb/s
    sizes = [j.data_mb for j in with_data_sizes([MultiSiteJob(i, 0, 1, 1, 1) for i in range(200)],
                                                  random.Random(0))]  # fmt: skip
    assert min(sizes) >= 500 and max(sizes) <= 3000


def test_a_job_run_away_from_its_origin_pays_the_transfer() -> None:
    busy = MultiSiteJob(0, 0, 4, 1000, 1000, origin=0)
    job = MultiSiteJob(1, 0, 4, 100, 100, origin=0, data_mb=125.0)  # 1000 Mb: 100 s at 10 Mb/s
    run = simulate_multisite([busy, job], TWO, GREEDY_MR, matrix=SAME, transfer=True)
    outcome = run.record.outcome_map()[1]
    assert outcome.place[0] >= 4  # site b: away from its origin
    assert outcome.end - outcome.start == pytest.approx(200.0)
    check_multisite_run(run)


def test_greedy_sends_each_job_to_the_least_loaded_site_lowest_index_on_ties() -> None:
    jobs = [MultiSiteJob(0, 0, 4, 10, 10), MultiSiteJob(1, 0, 4, 10, 10)]
    run = simulate_multisite(jobs, TWO, GREEDY, matrix=SAME)
    assigned = [(e.job, e.place) for e in run.record.events if e.kind is EventKind.ASSIGN]
    assert assigned == [(0, (0,)), (1, (1,))]
    assert run.messages == 0 and run.minimum_messages == 0


def test_multiple_requests_cost_three_messages_per_other_copy_per_start() -> None:
    jobs = [MultiSiteJob(i, 0, 4, 10, 10) for i in range(3)]
    run = simulate_multisite(jobs, TWO, GREEDY_MR, matrix=SAME)
    assert run.minimum_messages == 3 * 3 * (2 - 1)
    assert run.messages >= run.minimum_messages
    returns = [e for e in run.record.events if e.kind is EventKind.RETURN]
    assert len(returns) == 3  # each job's other copy, withdrawn when it starts


def test_completion_selection_adds_two_messages_per_site_per_job() -> None:
    jobs = [MultiSiteJob(i, i, 1, 10, 10) for i in range(5)]
    policy = GREEDY_MR.with_copies(1, "completion")
    run = simulate_multisite(jobs, TWO, policy, matrix=SAME)
    assert run.minimum_messages == 5 * 2 * 2 and run.messages >= run.minimum_messages


def test_completion_selection_queries_only_the_sites_large_enough() -> None:
    """§7's $2N$ counts the sites queried: a site too small for the job is not asked."""
    sites = (Site("small", 2), Site("large", 8), Site("large too", 8))
    matrix = RuntimeMatrix(((1.0, 1.0, 1.0),), ("only",))
    jobs = [MultiSiteJob(0, 0, 6, 10, 10), MultiSiteJob(1, 0, 1, 10, 10)]
    run = simulate_multisite(jobs, sites, GREEDY_MR.with_copies(1, "completion"), matrix=matrix)
    assert run.messages == run.minimum_messages == 2 * 2 + 2 * 3
    check_multisite_run(run)


def test_completion_based_start_waits_for_the_faster_site() -> None:
    fast_b = RuntimeMatrix(((3.0, 1.0),), ("only",))
    jobs = [MultiSiteJob(0, 0, 4, 10, 10), MultiSiteJob(1, 0, 4, 10, 10)]
    run = simulate_multisite(jobs, TWO, CONSERVATIVE_MR, matrix=fast_b, log_reservations=True)
    # Job 1 could start at once on slow site a (done at 30) but completes at 20 on b.
    assert [(o.job, o.start, o.end) for o in run.record.outcomes] == [(0, 0, 10.0), (1, 10.0, 20.0)]
    dropped = [e.detail for e in run.record.events if e.kind is EventKind.RETURN and e.job == 1]
    assert dropped and "completes earlier at site 1" in dropped[0]
    check_multisite_run(run)


def test_slower_only_cancellation_restarts_the_job_on_a_faster_site() -> None:
    fast_b = RuntimeMatrix(((4.0, 1.0),), ("only",))
    jobs = [MultiSiteJob(0, 0, 4, 10, 10), MultiSiteJob(1, 0, 4, 10, 10, origin=0)]
    run = simulate_multisite(
        jobs, TWO, CONSERVATIVE_MR_SLOWER, matrix=fast_b, log_reservations=True
    )
    check_multisite_run(run)
    assert run.record.outcome_map()[1].end == 20.0


def test_a_job_larger_than_every_site_is_unschedulable_and_named() -> None:
    jobs = [MultiSiteJob(0, 0, 5, 10, 10), MultiSiteJob(1, 0, 2, 10, 10)]
    run = simulate_multisite(jobs, TWO, GREEDY_MR, matrix=SAME)
    outcome = run.record.outcome_map()[0]
    assert outcome.state is FinalState.UNSCHEDULABLE and "5" in outcome.reason
    assert run.record.outcome_map()[1].state is FinalState.COMPLETED


def test_a_job_goes_only_to_the_sites_large_enough() -> None:
    sites = (Site("small", 2), Site("large", 8))
    jobs = [MultiSiteJob(0, 0, 6, 10, 10)]
    run = simulate_multisite(jobs, sites, GREEDY_MR, matrix=SAME)
    assert [e.place for e in run.record.events if e.kind is EventKind.ASSIGN] == [(1,)]


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: MetaPolicy("x", copies=0), "copies"),
        (lambda: MetaPolicy("x", local="easy", start="completion"), "conservative"),
        (lambda: MetaPolicy("x", local="fifo"), "local"),
        (lambda: simulate_multisite([], (), GREEDY), "sites"),
        (lambda: simulate_multisite([], TWO, GREEDY), "matrix"),
        (lambda: simulate_multisite([], TWO, "nope", matrix=SAME), "nope"),
        (lambda: MultiSiteJob(0, 0, 1, 0, 1), "requested_time"),
        (lambda: MultiSiteJob(0, 0, 1, 5, -1), "runtime"),
        (lambda: Site("x", 0), "processors"),
        (
            lambda: simulate_multisite(
                [MultiSiteJob(0, 0, 1, 5, 5), MultiSiteJob(0, 1, 1, 5, 5)], TWO, matrix=SAME
            ),
            "twice",
        ),
        (
            lambda: simulate_multisite(
                [MultiSiteJob(0, 0, 1, 5, 5, job_class=3)], TWO, matrix=SAME
            ),
            "job_class",
        ),
    ],
)
def test_bad_input_is_refused_with_the_parameter_named(call: object, match: str) -> None:
    with pytest.raises(InvalidValueError, match=match):
        call()  # type: ignore[operator]


def test_paper_sites_and_matrix_agree() -> None:
    sites = paper_sites(128)
    assert len(sites) == RuntimeMatrix.paper().sites == 4
    assert all(s.processors == 128 for s in sites)


# -- round 2 of the multi-site issue: queries from the current schedule, same-instant
# copies, restarts ---------------------------------------------------------------------


def test_a_completion_query_answers_from_the_schedule_after_the_ends_of_the_instant() -> None:
    """Job 0 ends at t=10 on a (requested 100); job 1 arrives at t=10: a is free again.

    Site b runs job 1 1.5 times slower (done at 85); a, with job 0's processors given
    back, completes it at 60. A query answered from the stale schedule (job 0 held
    until 100) would send it to b.
    """
    matrix = RuntimeMatrix(((1.0, 1.5),), ("only",))
    jobs = [MultiSiteJob(0, 0, 4, 100, 10), MultiSiteJob(1, 10, 4, 50, 50)]
    for policy in (CONSERVATIVE_MR, EFFICACY):
        for on_arrival in (True, False):
            run = simulate_multisite(
                jobs,
                TWO,
                policy.with_copies(1, "completion"),
                matrix=matrix,
                reserve_on_arrival=on_arrival,
            )
            outcome = run.record.outcome_map()[1]
            assert (outcome.start, outcome.end, outcome.place) == (10.0, 60.0, (0, 1, 2, 3))
            check_multisite_run(run)


def test_queries_see_the_copies_reserved_earlier_in_the_same_instant_by_default() -> None:
    """Two identical jobs at t=0, two idle sites, K=1 by completion time."""
    jobs = [MultiSiteJob(0, 0, 4, 10, 10), MultiSiteJob(1, 0, 4, 10, 10)]
    policy = CONSERVATIVE_MR.with_copies(1, "completion")
    default = simulate_multisite(jobs, TWO, policy, matrix=SAME)
    assert [(o.start, o.place) for o in default.record.outcomes] == [
        (0, (0, 1, 2, 3)),
        (0, (4, 5, 6, 7)),
    ]
    together = simulate_multisite(jobs, TWO, policy, matrix=SAME, reserve_on_arrival=False)
    assert [(o.start, o.place) for o in together.record.outcomes] == [
        (0, (0, 1, 2, 3)),
        (10.0, (0, 1, 2, 3)),
    ]  # both sent to a while b stays idle: neither query saw the other copy
    assert default.record.parameter("reserve_on_arrival") is True
    for run in (default, together):
        check_multisite_run(run)


def test_a_job_restarted_on_a_faster_site_reports_the_start_that_completed() -> None:
    """Cancel-slower-only: job 1 starts on slow a at 0, restarts on fast b at 5.

    Its outcome reports the execution that completed (start 5, end 15); the cancelled
    start at 0 stays in the log and in `executed`.
    """
    fast_b = RuntimeMatrix(((4.0, 1.0),), ("only",))
    jobs = [MultiSiteJob(0, 0, 4, 100, 5), MultiSiteJob(1, 0, 4, 10, 10, origin=0)]
    run = simulate_multisite(jobs, TWO, CONSERVATIVE_MR_SLOWER, matrix=fast_b)
    check_multisite_run(run)
    events = [(e.time, e.kind, e.place) for e in run.record.events if e.job == 1]
    assert (0, EventKind.START, (0, 1, 2, 3)) in events
    assert (5.0, EventKind.CANCEL, (0, 1, 2, 3)) in events
    outcome = run.record.outcome_map()[1]
    assert (outcome.start, outcome.end, outcome.place) == (5.0, 15.0, (4, 5, 6, 7))
    assert outcome.executed == 15.0  # 5 s cancelled at a, 10 s completed at b
    assert [(x[1], x[2], x[3], x[5]) for x in run.executions() if x[0] == 1] == [
        (0, 0, 5.0, False),
        (1, 5.0, 15.0, True),
    ]


def test_equal_loads_tie_exactly_whatever_the_float_times() -> None:
    """A site whose jobs have all gone holds load 0 exactly, not a rounding residue.

    Site a runs jobs 0 and 2 (0.1 s, then 0.3 s queued behind it), b job 1; all end
    before t=1. Job 3 then finds both sites idle and goes to the lower index. With
    float running sums, a kept a residue of the additions and subtractions of
    $n \\cdot d$ and job 3 went to b.
    """
    jobs = [
        MultiSiteJob(0, 0, 4, 0.1, 0.1),
        MultiSiteJob(1, 0, 2, 0.3, 0.1),
        MultiSiteJob(2, 0, 4, 0.3, 0.3),
        MultiSiteJob(3, 1, 4, 0.7, 0.2),
    ]
    run = simulate_multisite(jobs, TWO, GREEDY, matrix=SAME)
    assigned = [(e.job, e.place) for e in run.record.events if e.kind is EventKind.ASSIGN]
    assert assigned == [(0, (0,)), (1, (1,)), (2, (0,)), (3, (0,))]


def test_jobs_of_equal_efficacy_keep_their_fcfs_order_whatever_the_float_quotients() -> None:
    """At site a all three jobs have efficacy f_b = 16.3/17.7: FCFS order 0, 1, 2.

    Computed from exact inputs (`d * f` as fractions) the three efficacies are equal.
    Their float products `d f_b` round differently with `d` (5 and 19 here): as the ratio
    of the rounded products (even compared exactly) job 2's efficacy at a came out above
    jobs 0 and 1's, so job 2 went first there and started at a at 0. In FCFS order, job 0
    is dropped at a (b completes it earlier) and starts at b; a moves job 1 up, and it
    starts there at 0; job 2 follows job 0 at b.
    """
    matrix = RuntimeMatrix(((1.0, 16.3 / 17.7),), ("IS-8 at the SGI and the Cray",))
    jobs = [
        MultiSiteJob(0, 0, 4, 5, 5),
        MultiSiteJob(1, 0, 4, 5, 5),
        MultiSiteJob(2, 0, 2, 19, 19),
    ]
    run = simulate_multisite(
        jobs, TWO, EFFICACY, matrix=matrix, log_reservations=True, reserve_on_arrival=False
    )
    check_multisite_run(run)
    assert [(o.job, o.start, o.place[0]) for o in run.record.outcomes] == [
        (0, 0, 4),
        (1, 0, 0),
        (2, 5 * 16.3 / 17.7, 4),
    ]


def test_the_multisite_checkers_compare_times_exactly() -> None:
    """A promise broken by less than 1e-9 s is broken: the checkers use no tolerance."""
    from schedlib.model import JobEvent, RunRecord
    from schedlib.testing.invariants import check_completion_bound, check_multisite_reservations

    later = 1.0 + 2.0**-40
    log = [
        JobEvent(0, 1, EventKind.SUBMIT),
        JobEvent(0, 1, EventKind.ASSIGN, (0,)),
        JobEvent(0, 1, EventKind.RESERVE, (0,), at=1.0),
        JobEvent(0.5, 1, EventKind.RESERVE, (0,), at=later),
        JobEvent(later, 1, EventKind.START, (0,)),
        JobEvent(later + 2, 1, EventKind.COMPLETE, (0,)),
    ]
    record = RunRecord.from_log("x", [Job(1, 0, 1, 2, 2)], log, capacity=1)
    with pytest.raises(AssertionError, match="reservation moved later"):
        check_multisite_reservations(record, sites=[1])
    with pytest.raises(AssertionError, match=r"promised completion by 3\.0 "):
        check_completion_bound(record, estimates={1: (2,)})
