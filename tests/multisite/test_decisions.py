"""The multi-site decisions of Sabin et al. (2003), checked against the paper's rules.

The invariants (`test_properties.py`) hold for many wrong schedulers; these tests pin the
*choices*: which sites a job is sent to (least instantaneous load §4, or best completion
§7, ties to the lowest index), whether a due copy starts or is dropped (§5: a tie keeps
the ready copy), the order each site serves its queue (FCFS, or efficacy relative to
the job's sites, §6-§7), and the utilisations recomputed from the log (§4). The decision
checkers run over every policy preset and every `with_copies` combination, on integer
times (ties checked exactly) and on the paper's float factors; then each decision is
shown on a small case, and each checker fails on the one-line mutant it is there to
catch (the mutants of `benchmarks/mutants.py`).
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlib.errors import InvalidValueError
from schedlib.model import EventKind
from schedlib.multisite import (
    CONSERVATIVE_MR,
    CONSERVATIVE_MR_SLOWER,
    EFFICACY,
    GREEDY,
    POLICIES,
    MetaPolicy,
    MultiSiteJob,
    MultiSiteRun,
    RuntimeMatrix,
    Site,
    policies,
    scheduling_pass,
    simulate_multisite,
    site_of,
)
from schedlib.multisite import model as model_module
from schedlib.multisite.state import SiteCore
from schedlib.testing.invariants import (
    check_admission,
    check_copies_withdrawn,
    check_multisite_run,
    check_queue_priority,
    check_site_choice,
    check_utilisation_figures,
)
from schedlib.testing.mutation import mutant
from schedlib.testing.strategies import multisite_instances

Instance = tuple[tuple[Site, ...], RuntimeMatrix, tuple[MultiSiteJob, ...]]

EVERY_COMBINATION = [
    base.with_copies(copies, selection)
    for base in POLICIES.values()
    for copies in (1, 2, 3, None)
    for selection in ("load", "completion")
]
BOUNDS = {"max_sites": 4, "max_processors": 4, "max_jobs": 8, "max_submit": 6}
TIMES = {
    times: multisite_instances(**BOUNDS, max_requested_time=6, times=times)
    for times in ("integer", "float")
}


def runtimes(instance: Instance) -> dict[int, list[float]]:
    """Each job's actual runtime at each site, from the instance (not from the model)."""
    _, matrix, jobs = instance
    return {j.id: [j.runtime * f for f in matrix.factors[j.job_class]] for j in jobs}


def run(
    instance: Instance, policy: MetaPolicy | str, reserve: bool = True, **options: Any
) -> MultiSiteRun:
    """The run, reservations logged; `reserve`: conservative sites reserve on arrival;
    `options`: more of `simulate_multisite`'s (`site_order`)."""
    sites, matrix, jobs = instance
    return simulate_multisite(
        jobs,
        sites,
        policy,
        matrix=matrix,
        log_reservations=True,
        reserve_on_arrival=reserve,
        **options,
    )


def check(
    instance: Instance, policy: MetaPolicy | str, reserve: bool = True, **options: Any
) -> MultiSiteRun:
    """The run, with every checker (ties exact: loads and efficacies are compared exactly)."""
    result = run(instance, policy, reserve, **options)
    check_multisite_run(result, runtimes=runtimes(instance), tolerance=0)
    return result


@pytest.fixture
def patch() -> Iterator[pytest.MonkeyPatch]:
    with pytest.MonkeyPatch.context() as mp:
        yield mp


# -- the decisions, one by one -------------------------------------------------------------

ONE = RuntimeMatrix(((1.0, 1.0),), ("even",))


def unit_jobs(*classes: int, submit: float = 0) -> tuple[MultiSiteJob, ...]:
    return tuple(MultiSiteJob(i, submit, 1, 1, 1, job_class=c) for i, c in enumerate(classes))


TIE = ((Site("a", 1), Site("b", 1)), ONE, unit_jobs(0))


def test_a_tie_keeps_the_copy_that_is_ready_now() -> None:
    """§5: a copy due now is dropped only if another completes *strictly* earlier.

    Two idle sites of one processor, one unit job: both copies are due at 0 and both
    would complete at 1; site a decides first and keeps its copy.
    """
    result = check(TIE, CONSERVATIVE_MR)
    assert [(x[1], x[2], x[3]) for x in result.executions()] == [(0, 0, 1.0)]


def test_admission_checker_fails_when_a_tie_drops_the_ready_copy(
    patch: pytest.MonkeyPatch,
) -> None:
    patch.setattr(
        scheduling_pass, "admit", mutant(policies.admit, "best[1] < here", "best[1] <= here")
    )
    result = run(TIE, CONSERVATIVE_MR)
    with pytest.raises(AssertionError, match="a tie keeps the copy that is ready"):
        check_admission(result.record, estimates=result.estimates)


def test_admission_tie_drop_gives_the_tie_to_the_other_copy() -> None:
    """The other reading of the tie (`admission_tie="drop"`): site a drops its copy, b runs it;
    the checker follows the record's rule, and fails the default run read under it."""
    dropping = attrs.evolve(CONSERVATIVE_MR, admission_tie="drop")
    result = check(TIE, dropping)
    assert [(x[1], x[2], x[3]) for x in result.executions()] == [(1, 0, 1.0)]
    assert result.record.parameter("admission_tie") == "drop"
    default = run(TIE, CONSERVATIVE_MR)
    relabelled = attrs.evolve(
        default.record, parameters={**dict(default.record.parameters), "admission_tie": "drop"}
    )
    with pytest.raises(AssertionError, match="though site 1 expected it done by 1"):
        check_admission(relabelled, estimates=default.estimates)


# At t = 2 sites a and c free up (the round begins with them); b runs job 3 on one of its
# two processors and holds job 5 (2 processors, its head) before job 2 (1 processor).
# Site a starts job 5 and withdraws its copy at b. By default c decides next (it was in the
# round) and starts job 2; with site_order="index" b decides first (it comes before c) and
# starts job 2, whose copy at c is then withdrawn.
SITE_ORDER = (
    (Site("a", 2), Site("b", 2), Site("c", 2)),
    RuntimeMatrix(((1.0, 1.0, 1.0), (1.0, 2.0, 1.0)), ("even", "slow at b")),
    (
        MultiSiteJob(1, 0, 2, 4, 2),
        MultiSiteJob(2, 1, 1, 4, 2),
        MultiSiteJob(3, 0, 1, 2, 4, job_class=1),
        MultiSiteJob(4, 0, 2, 2, 4),
        MultiSiteJob(5, 0, 2, 1, 4),
    ),
)


@pytest.mark.parametrize(("order", "site"), [("changed", 2), ("index", 1)])
def test_same_instant_site_order_decides_which_site_starts_a_job(order: str, site: int) -> None:
    result = check(SITE_ORDER, "greedy-mr", site_order=order)
    assert [x[1:3] for x in result.executions() if x[0] == 2] == [(site, 2.0)]
    assert result.record.parameter("site_order") == order


def test_an_unknown_site_order_is_refused() -> None:
    with pytest.raises(InvalidValueError, match="site_order"):
        run(TIE, CONSERVATIVE_MR, site_order="random")


# Cancel-slower, equal requested times (exactly): job 0's data moves to site 1 and makes its
# requested time there 100 * 0.58... + 8 * 15.625 / 10, exactly 100 * 0.70... at its origin
# site 0, though the float sums differ in the last bit (site 1's is the smaller). Job 1 holds
# site 1 until 50, so job 0 starts at site 0 at t = 1.
EQUAL_SPEED = (
    (Site("a", 1), Site("b", 1)),
    RuntimeMatrix(((0.7050460894796999, 0.5800460894796999), (100.0, 1.0)), ("j", "b")),
    (
        MultiSiteJob(1, 0, 1, 50, 50, job_class=1),
        MultiSiteJob(0, 1, 1, 100, 100, data_mb=15.625),
    ),
)


@pytest.mark.parametrize(("equal", "withdrawn_at"), [("cancel", 1), ("keep", 50.0)])
def test_cancel_slower_compares_requested_times_exactly(equal: str, withdrawn_at: float) -> None:
    """Cancel-slower's "slower" includes equal requested times (default: the copy at b goes
    when the job starts at a); `equal_speed="keep"` keeps it waiting until it is due and
    dropped."""
    sites, matrix, jobs = EQUAL_SPEED
    floats = [jobs[1].requested_time * f + (0, 8 * 15.625 / 10)[s]
              for s, f in enumerate(matrix.factors[0])]  # fmt: skip
    assert floats[1] < floats[0]  # the float sums say b is faster
    policy = attrs.evolve(CONSERVATIVE_MR_SLOWER, equal_speed=equal)
    result = simulate_multisite(
        jobs, sites, policy, matrix=matrix, transfer=True, log_reservations=True
    )
    check_multisite_run(result, tolerance=0)
    assert [x[1:3] for x in result.executions() if x[0] == 0] == [(0, 1)]
    returns = [e.time for e in result.record.events if e.kind is EventKind.RETURN and e.job == 0]
    assert returns == [withdrawn_at]


def test_copies_withdrawn_checker_fails_on_the_float_comparison() -> None:
    sites, matrix, jobs = EQUAL_SPEED
    result = simulate_multisite(
        jobs, sites, CONSERVATIVE_MR_SLOWER, matrix=matrix, transfer=True, log_reservations=True
    )
    check_copies_withdrawn(result.record, cancel="slower", estimates=result.exact_estimates())
    with pytest.raises(AssertionError, match=r"expected: \[1\]"):
        check_copies_withdrawn(result.record, cancel="slower", estimates=result.estimates)


# Job 2 runs twice as fast at c (efficacy 1 there, 1/2 at a and b); jobs 0 and 1 have
# efficacy 1 everywhere.
EFFICACY_ORDER = (
    (Site("a", 1), Site("b", 1), Site("c", 1)),
    RuntimeMatrix(((1.0, 1.0, 1.0), (1.0, 1.0, 0.5)), ("even", "fast at c")),
    unit_jobs(0, 0, 1),
)


def test_compression_serves_the_highest_efficacy_first() -> None:
    """§6: each site serves the highest efficacy first, FCFS among equals.

    Each copy is reserved on arrival: job 0 at 0, job 1 at 1, job 2 at 2 on every
    site. Job 0 starts at a; its copies at b and c go, and both sites compress in
    priority order: at b job 1 (efficacy 1) takes the slot at 0 before job 2 (1/2);
    job 1 starts there, and at c job 2 (efficacy 1) moves up to 0 and runs to 0.5.
    Served lowest efficacy first, b would start job 2 at 0, to end at 1.0.
    """
    result = check(EFFICACY_ORDER, EFFICACY)
    assert {x[0]: (x[1], x[3]) for x in result.executions()} == {
        0: (0, 1.0),
        1: (1, 1.0),
        2: (2, 0.5),
    }


def test_copies_of_one_instant_are_placed_in_efficacy_order() -> None:
    """§6, copies placed together at the pass (`reserve_on_arrival=False`).

    Jobs 0 and 2: at a job 0 (efficacy 1) is placed before job 2 (1/2) and takes
    [0, 1); at c they tie and job 0, first come, holds [0, 1) too; job 0 starts at a,
    its copy at c goes, and job 2 runs at c from 0 to 0.5. Placed lowest efficacy
    first, a would start job 2 at once, to end at 1.0.
    """
    sites, matrix, _ = EFFICACY_ORDER
    result = check((sites, matrix, unit_jobs(0, 1)), EFFICACY, reserve=False)
    assert {x[0]: (x[1], x[3]) for x in result.executions()} == {0: (0, 1.0), 1: (2, 0.5)}


@pytest.mark.parametrize("reserve", [True, False])
def test_queue_order_checker_fails_when_lowest_efficacy_comes_first(
    patch: pytest.MonkeyPatch, reserve: bool
) -> None:
    inverted = mutant(policies.queue_key, "-efficacy if", "efficacy if")
    patch.setattr(model_module, "queue_key", inverted)
    sites, matrix, jobs = EFFICACY_ORDER
    result = run((sites, matrix, jobs if reserve else unit_jobs(0, 1)), EFFICACY, reserve)
    with pytest.raises(AssertionError, match="queue order"):
        check_queue_priority(result.record, estimates=result.estimates)


ONE_COPY = (
    (Site("a", 1), Site("b", 1)),
    RuntimeMatrix(((1.0, 1.0), (1.0, 2.0)), ("even", "slow at b")),
    unit_jobs(0, 1, 0, 0, 0),
)


def test_efficacy_is_relative_to_the_sites_a_job_was_sent_to() -> None:
    """§7: with $K$ copies the efficacy is relative to the $K$ sites, so starvation-free.

    With one copy each, every job has efficacy 1 at its site and each queue is FCFS:
    job 1, the only one sent to b (where it is twice as slow as at a), runs there first,
    from 0 to 2, before job 4 (the copies placed together at the pass, in queue order).
    Relative to every site it would have efficacy 1/2 and wait behind job 4.
    """
    result = check(ONE_COPY, EFFICACY.with_copies(1, "load"), reserve=False)
    at_b = sorted((x[2], x[0]) for x in result.executions() if x[1] == 1)
    assert at_b == [(0, 1), (2.0, 4)]


def test_queue_order_checker_fails_when_efficacy_counts_every_site(
    patch: pytest.MonkeyPatch,
) -> None:
    everywhere = mutant(
        model_module.MultiSiteModel._submit_job,
        "best = min(exact[s] for s in chosen)",
        "best = min(exact)",
    )
    patch.setattr(model_module.MultiSiteModel, "_submit_job", everywhere)
    result = run(ONE_COPY, EFFICACY.with_copies(1, "load"), reserve=False)
    with pytest.raises(AssertionError, match="against the queue order"):
        check_queue_priority(result.record, estimates=result.estimates)


LEAST_LOADED = (
    (Site("a", 1), Site("b", 1)),
    RuntimeMatrix(((1.5, 1.0),), ("slow at a",)),
    (MultiSiteJob(0, 0, 1, 1, 1), MultiSiteJob(1, 1, 1, 1, 1), MultiSiteJob(2, 1, 1, 1, 1)),
)


def test_greedy_sends_each_job_to_the_least_loaded_site() -> None:
    """§4: the load is the remaining processor x requested time over the processors.

    At t=1, job 1 goes to b (load 0; a has half a second of job 0 left: load 0.5);
    then job 2 goes to a (load 0.5) rather than b (job 1 queued there: load 1), and
    starts at 1.5. Counting the running job's elapsed time instead of the time left
    gives a load of 2.5 and sends job 2 to b, to start at 2.
    """
    result = check(LEAST_LOADED, GREEDY)
    assert {x[0]: (x[1], x[2]) for x in result.executions()} == {
        0: (0, 0),
        1: (1, 1),
        2: (0, 1.5),
    }


def test_site_choice_checker_fails_when_the_load_adds_elapsed_time(
    patch: pytest.MonkeyPatch,
) -> None:
    elapsed = mutant(SiteCore.load, "- ((n * self.running_procs)", "+ ((n * self.running_procs)")
    patch.setattr(SiteCore, "load", elapsed)
    result = run(LEAST_LOADED, GREEDY)
    with pytest.raises(AssertionError, match=r"site 0 .* left out while site 1"):
        check_site_choice(result.record, estimates=result.estimates)


def test_ties_between_sites_go_to_the_lowest_index() -> None:
    """§4 with the library's tie rule: two idle sites, the first job to site a, then b."""
    result = check(((Site("a", 1), Site("b", 1)), ONE, unit_jobs(0, 0)), GREEDY)
    assert sorted((x[0], x[1]) for x in result.executions()) == [(0, 0), (1, 1)]


def test_site_choice_checker_fails_when_ties_go_to_the_highest_index(
    patch: pytest.MonkeyPatch,
) -> None:
    highest = mutant(
        policies.least_sites,
        "sorted((v, s)",
        "sorted((v, -s)",
        also=[("tuple(s for", "tuple(-s for")],
    )
    patch.setattr(model_module, "least_sites", highest)
    result = run(((Site("a", 1), Site("b", 1)), ONE, unit_jobs(0, 0)), GREEDY)
    with pytest.raises(AssertionError, match="ties go to the lowest index"):
        check_site_choice(result.record, estimates=result.estimates, tolerance=0)


WITHDRAWN = (
    (Site("a", 1), Site("b", 2), Site("c", 3)),
    RuntimeMatrix(((1.0, 1.0, 1.0),), ("even",)),
    (MultiSiteJob(0, 0, 1, 1, 1), MultiSiteJob(1, 0, 3, 1, 1), MultiSiteJob(2, 0, 1, 2, 2)),
)


def test_withdrawn_reservations_free_room_from_the_earliest_one() -> None:
    """§2 (compression) with §4 (atomic cancellation), on conservative sites.

    At c (3 processors) job 0 holds [0, 1), job 1 (3 processors) is reserved at 1 and
    job 2 at 2. At t=0 job 0 starts at a and job 2 at b: their copies at c are
    withdrawn, freeing room from 0 (job 0's reservation) and from 2. Compression must
    look from the earliest, 0: job 1 moves up and starts at 0, not at 1.
    """
    result = check(WITHDRAWN, CONSERVATIVE_MR)
    assert {x[0]: (x[1], x[2]) for x in result.executions()} == {0: (0, 0), 1: (2, 0), 2: (1, 0)}


RESTART = (
    (Site("a", 1), Site("b", 1)),
    RuntimeMatrix(((1.0, 0.5),), ("fast at b",)),
    unit_jobs(0, 0, 0),
)


def test_cancelled_executions_count_with_efficacy_zero() -> None:
    """§4: effective utilisation weights each execution's cycles by its efficacy there.

    In the restart case the two executions stopped at a (1 s of cycles) bought
    nothing: efficacy 0. The three that completed ran at b (efficacy 1): 1.5 s of
    cycles over a makespan of 1.5 s on 2 processors gives 0.5 (0.667 if the stopped
    ones kept their efficacy 1/2); raw utilisation counts all 2.5 s: 0.833.
    """
    result = check(RESTART, CONSERVATIVE_MR_SLOWER)
    assert result.effective_utilisation == 0.5
    assert result.utilisation == pytest.approx(2.5 / 3)


def test_a_copy_stopped_for_a_faster_one_gives_its_processors_back() -> None:
    """§5, cancel-slower: a job restarted at a faster site frees the slower one at once.

    Job 0 runs at b (twice as fast) over [0, 0.5); job 1 starts at a at 0 (done by 1)
    and keeps its faster copy at b. At 0.5 that copy is due and would complete at 1 too:
    a tie keeps the copy that is ready, so job 1 restarts at b and is stopped at a;
    job 2 then starts at a at 0.5, on the processor job 1 gave back.
    """
    for policy in (CONSERVATIVE_MR_SLOWER, CONSERVATIVE_MR_SLOWER.with_copies(2, "load")):
        result = check(RESTART, policy)
        assert sorted(result.executions()) == [
            (0, 1, 0, 0.5, 1, True),
            (1, 0, 0, 0.5, 1, False),
            (1, 1, 0.5, 1.0, 1, True),
            (2, 0, 0.5, 1.0, 1, False),
            (2, 1, 1.0, 1.5, 1, True),
        ]


def test_utilisation_checker_fails_when_stopped_executions_keep_their_efficacy(
    patch: pytest.MonkeyPatch,
) -> None:
    def kept(self: MultiSiteRun) -> float:
        """BROKEN: every execution weighted by its efficacy, stopped ones included."""
        weighted = [
            (self.efficacies[job][site], (end - start) * procs)
            for job, site, start, end, procs, _ in self.executions()
        ]
        total = sum(s.processors for s in self.sites)
        return model_module.effective_utilisation(weighted, self.makespan, total)

    patch.setattr(MultiSiteRun, "effective_utilisation", property(kept))
    result = run(RESTART, CONSERVATIVE_MR_SLOWER)
    with pytest.raises(AssertionError, match=r"effective utilisation 0\.66"):
        check_utilisation_figures(
            result.record,
            result.utilisation,
            result.effective_utilisation,
            runtimes=runtimes(RESTART),
        )


def test_queue_order_checker_fails_on_a_last_come_first_served_queue(
    patch: pytest.MonkeyPatch,
) -> None:
    """FCFS (§2): a site that serves the newest copy first breaks the order on both kinds
    of site (conservative: the order of its reservations; EASY: which copy is the head)."""

    def lifo(submit: float, job: int, efficacy: float, priority: Any) -> tuple[float, float, int]:
        return (0.0, -submit, -job)

    patch.setattr(model_module, "queue_key", lifo)
    sites = (Site("a", 2),)
    jobs = tuple(MultiSiteJob(i, 0, 2, 5, 5) for i in range(3))
    for policy, match in ((CONSERVATIVE_MR, "against the queue order"), ("greedy", "the head")):
        result = run((sites, RuntimeMatrix(((1.0,),), ("x",)), jobs), policy, reserve=False)
        with pytest.raises(AssertionError, match=match):
            check_queue_priority(result.record, estimates=result.estimates)


# The minimal case (preset `EFFICACY`): two sites of one processor, one class with
# factors (35.6 / 24.2, 1), three one-processor jobs at t = 3. Every job has efficacy 1 at
# site 1 and 1 / f at site 0, exactly; the quotients of the float products d * f do not
# agree (job 1's requested time 6 * f rounds differently from 4 * f).
F = 35.6 / 24.2
EFFICACY_TIE = (
    (Site("a", 1), Site("b", 1)),
    RuntimeMatrix(((F, 1.0),), ("x",)),
    (MultiSiteJob(0, 3, 1, 4, 4), MultiSiteJob(1, 3, 1, 6, 1), MultiSiteJob(2, 3, 1, 4, 3)),
)


def exact_times(instance: Instance) -> dict[int, list[Fraction]]:
    """Each job's requested time at each site, d * f in rational arithmetic (the test's own)."""
    _, matrix, jobs = instance
    return {
        j.id: [Fraction(j.requested_time) * Fraction(f) for f in matrix.factors[j.job_class]]
        for j in jobs
    }


def test_equal_efficacies_are_served_first_come_first_served() -> None:
    """§6: "in the case of identical efficacies the secondary priority will be FCFS".

    Job 0 starts at site 1 at t = 3 (done by 7, before 3 + 4f at site 0); its copy at
    site 0 goes, and site 0 compresses its queue: jobs 1 and 2 have the same efficacy
    there (1 / f), so job 1, first come, starts at t = 3 and ends at 3 + f = 4.47; job
    2 follows at 4.47. Ordered by the float quotients, job 2 went first and job 1 ran
    at site 1 from 7.
    """
    exact = exact_times(EFFICACY_TIE)
    assert exact[1][1] / exact[1][0] == exact[2][1] / exact[2][0]  # equal exactly
    assert Fraction(6.0) / Fraction(6 * F) != Fraction(4.0) / Fraction(4 * F)  # not as floats
    result = check(EFFICACY_TIE, EFFICACY)
    assert sorted(x[:4] for x in result.executions()) == [
        (0, 1, 3, 7.0),
        (1, 0, 3, 3 + F),
        (2, 0, 3 + F, 3 + F + 3 * F),
    ]
    assert result.exact_estimates() == {j: tuple(ds) for j, ds in exact.items()}


def test_queue_order_checker_fails_on_the_float_noise_order(patch: pytest.MonkeyPatch) -> None:
    """The checker recomputes efficacy from exact inputs: the order the float quotients
    gave (job 2 before job 1 at site 0) is reported, by the checker given the exact
    times and by `check_multisite_run` (which asks the run for them)."""

    def from_floats(self: model_module.MultiSiteModel, job: MultiSiteJob) -> tuple[Fraction, ...]:
        """BROKEN: the efficacy of the float products (the old rule)."""
        return tuple(Fraction(d) for d in self.estimates[job.id])

    patch.setattr(model_module.MultiSiteModel, "exact_estimates", from_floats)
    result = run(EFFICACY_TIE, EFFICACY)
    assert sorted(x[:3] for x in result.executions())[1] == (1, 1, 7.0)  # the old order
    check_queue_priority(result.record, estimates=result.estimates)  # floats: consistent
    reported = (
        r"site 0 at t=3: job 1 kept its reservation at 8\.88.*earliest fit in queue order is 3"
    )
    with pytest.raises(AssertionError, match=reported):
        check_queue_priority(
            result.record, estimates=result.estimates, exact_estimates=exact_times(EFFICACY_TIE)
        )
    with pytest.raises(AssertionError, match=reported):
        check_multisite_run(result, tolerance=0)


def test_equal_efficacies_with_transfer_are_served_first_come_first_served() -> None:
    """§7 with transfer: the requested time away from the origin is d * f + 8 D / B. Jobs
    0-2 come from site 1 with D = 1.25 d MB at 10 Mbit/s, so at site 0 each asks for
    d (f + 1) and has efficacy 1 / (f + 1) exactly (from the float products and the float
    transfer times they differ). Job 0 starts at site 1; site 0 compresses its queue in
    FCFS order among equals: job 1 at 3, job 2 behind it (job 1 is then dropped there:
    site 1 completes it earlier, at 13)."""
    sites, matrix, _ = EFFICACY_TIE
    jobs = tuple(
        MultiSiteJob(i, 3, 1, d, r, origin=1, data_mb=1.25 * d)
        for i, (d, r) in enumerate(((4, 4), (6, 1), (4, 3)))
    )
    result = simulate_multisite(
        jobs, sites, EFFICACY, matrix=matrix, transfer=True, mbps=10.0, log_reservations=True
    )
    floats = result.estimates
    assert Fraction(floats[1][1]) / Fraction(floats[1][0]) != Fraction(floats[2][1]) / Fraction(
        floats[2][0]
    )
    exact = result.exact_estimates()
    assert exact[1][1] / exact[1][0] == exact[2][1] / exact[2][0] == 1 / (Fraction(F) + 1)
    check_multisite_run(result, tolerance=0)
    events = result.record.events
    started = next(i for i, e in enumerate(events) if e.kind.value == "start")
    replanned = [
        (e.job, e.at) for e in events[started:] if e.kind.value == "reserve" and e.place == (0,)
    ]
    assert replanned[:2] == [(1, 3), (2, 3 + floats[1][0])]


# Cancel-slower with sites chosen by load (§4, §5): a running copy stopped for a faster one
# gives its processors back to its site's instantaneous load at once.
STOPPED_WORK = (
    (Site("a", 2), Site("b", 1), Site("c", 2)),
    RuntimeMatrix(((1.0, 1.0, 1.0), (1.0, 1.0, 2.0)), ("even", "slow at c")),
    (
        MultiSiteJob(0, 0, 1, 2, 2),
        MultiSiteJob(1, 0, 2, 2, 2, job_class=1),
        MultiSiteJob(2, 3, 1, 1, 1),
        MultiSiteJob(3, 3, 1, 1, 1),
    ),
)
STOPPED_PROCS = (
    (Site("a", 1), Site("b", 2), Site("c", 1), Site("d", 2)),
    RuntimeMatrix(((1.5, 1.0, 1.0, 2.0),), ("x",)),
    (MultiSiteJob(0, 0, 1, 1, 1), MultiSiteJob(1, 0, 2, 1, 1), MultiSiteJob(2, 2, 1, 1, 1)),
)
SLOWER_BY_LOAD = CONSERVATIVE_MR_SLOWER.with_copies(2, "load")


def test_a_stopped_copy_leaves_its_sites_load_at_once() -> None:
    """Two cases, checked against the load the checker recomputes from the log.

    1. Job 1 (2 processors, twice as slow at c) starts at c at 0 and keeps its copy at
       a, due at 2 when job 0 ends there; at 2 it restarts at a (a tie keeps the ready
       copy) and is stopped at c. At 3 c is idle (load 0, as b; a: 1): job 2 goes to b
       and c, then job 3 to c (load 1/2) and a, where it starts at 3. Were the stopped
       copy's planned end still counted at c, c would read 4: job 3 would go to a and b
       and start at 4.
    2. Job 1 (2 processors) runs at d (twice as slow) from 0, its faster copy waiting at
       b; at 1 it restarts at b and is stopped at d. At 2 every site is idle (load 0):
       job 2 goes to a and b (the lowest indices) and starts at b. Were the stopped
       copy's processors still counted at d, d would read -2: job 2 would go to a and d,
       and run at a (slower) to 3.5.
    """
    one = check(STOPPED_WORK, SLOWER_BY_LOAD)
    cancels = [e for e in one.record.events if e.kind.value == "cancel"]
    assert [(e.job, site_of(e.place, one.offsets), e.time) for e in cancels] == [(1, 2, 2.0)]
    assert {x[0]: (x[1], x[2]) for x in one.executions() if x[0] >= 2} == {2: (1, 3), 3: (2, 3)}
    two = check(STOPPED_PROCS, SLOWER_BY_LOAD)
    assert [(x[0], x[1], x[5]) for x in sorted(two.executions())][1:3] == [
        (1, 1, True),
        (1, 3, False),
    ]
    assert [x[1:4] for x in two.executions() if x[0] == 2] == [(1, 2, 3.0)]


# -- every decision, every policy ----------------------------------------------------------


@pytest.mark.parametrize("times", TIMES)
@pytest.mark.parametrize("policy", EVERY_COMBINATION, ids=lambda p: p.name)
@settings(max_examples=8)
@given(data=st.data())
def test_every_combination_decides_by_the_papers_rules(
    policy: MetaPolicy, times: str, data: st.DataObject
) -> None:
    if policy.start == "completion":
        policy = attrs.evolve(
            policy, admission_tie=data.draw(st.sampled_from(["start", "drop"]), "admission tie")
        )
    if policy.cancel == "slower":
        policy = attrs.evolve(
            policy, equal_speed=data.draw(st.sampled_from(["cancel", "keep"]), "equal speed")
        )
    check(
        data.draw(TIMES[times]),
        policy,
        reserve=data.draw(st.booleans(), "reserve on arrival"),
        site_order=data.draw(st.sampled_from(["changed", "index"]), "site order"),
    )
