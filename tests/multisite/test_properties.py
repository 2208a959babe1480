"""The multi-site invariants (Sabin et al. 2003) as hypothesis properties.

Each property holds for every policy it applies to, and each is shown to fail
on a deliberately broken variant (a one-line change of a rule, patched in for
one search), so that none is vacuous. The completion bound, which is also the
no-starvation bound of efficacy priority, is tested on both sides: it holds
while a site never moves a promise later, and a search finds a violation when
a site re-plans its queue from scratch instead.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings

from schedlib.backfill import schedule
from schedlib.model import Cluster, Job
from schedlib.multisite import (
    POLICIES,
    MetaPolicy,
    MultiSiteJob,
    MultiSiteRun,
    RuntimeMatrix,
    Site,
    scheduling_pass,
    simulate_multisite,
)
from schedlib.multisite import model as model_module
from schedlib.testing.invariants import (
    check_capacity,
    check_completion_bound,
    check_copies_withdrawn,
    check_messages,
    check_multisite_reservations,
    check_multisite_run,
    check_utilisations,
)
from schedlib.testing.strategies import multisite_instances

Instance = tuple[tuple[Site, ...], RuntimeMatrix, tuple[MultiSiteJob, ...]]
CASES = multisite_instances()
BUSY = multisite_instances(max_sites=3, max_processors=4, max_jobs=10, max_submit=6)

VARIANTS = [
    *POLICIES.values(),
    POLICIES["greedy-mr"].with_copies(2, "load"),
    POLICIES["greedy-mr"].with_copies(2, "completion"),
    POLICIES["conservative-mr"].with_copies(2, "completion"),
    POLICIES["conservative-mr"].with_copies(3, "load"),
    POLICIES["efficacy"].with_copies(2, "completion"),
]

SEARCH = settings(
    max_examples=3000,
    derandomize=True,
    database=None,
    deadline=None,
    phases=[Phase.generate],
    suppress_health_check=list(HealthCheck),
)


def run(instance: Instance, policy: MetaPolicy | str, **kw: Any) -> MultiSiteRun:
    sites, matrix, jobs = instance
    return simulate_multisite(jobs, sites, policy, matrix=matrix, log_reservations=True, **kw)


def counterexample(
    condition: Callable[[Instance], None], *, match: str, strategy: Any = BUSY
) -> Instance:
    """An instance on which `condition` raises an AssertionError holding `match`."""

    def fails(instance: Instance) -> bool:
        try:
            condition(instance)
        except AssertionError as error:
            return match in str(error)
        return False

    return find(strategy, fails, settings=SEARCH)


@contextmanager
def patched(module: Any, name: str, value: Any) -> Iterator[None]:
    """`module.name = value` for the duration (hypothesis' `find` runs outside fixtures)."""
    saved = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, saved)


# -- every invariant, every policy --------------------------------------------------------


@pytest.mark.parametrize("policy", VARIANTS, ids=lambda p: p.name)
@settings(max_examples=80)
@given(CASES)
def test_every_policy_keeps_every_invariant(policy: MetaPolicy, instance: Instance) -> None:
    check_multisite_run(run(instance, policy))


@pytest.mark.parametrize("policy", ["greedy-mr", "conservative-mr", "efficacy"])
@settings(max_examples=40)
@given(multisite_instances(runtimes="any"))
def test_invariants_hold_when_jobs_overrun_and_are_killed(policy: str, instance: Instance) -> None:
    check_multisite_run(run(instance, policy))


@pytest.mark.parametrize("policy", ["greedy", "conservative-mr-slower", "efficacy"])
@settings(max_examples=30)
@given(multisite_instances(max_sites=3, max_jobs=6))
def test_invariants_hold_with_data_transfer(policy: str, instance: Instance) -> None:
    sites, matrix, jobs = instance
    moved = tuple(
        MultiSiteJob(
            j.id, j.submit, j.procs, j.requested_time, j.runtime,
            job_class=j.job_class, origin=j.origin, data_mb=float(8 * (j.id % 3)),
        )
        for j in jobs
    )  # fmt: skip
    check_multisite_run(run((sites, matrix, moved), policy, transfer=True, mbps=8.0))


# -- differential: one site is single-site backfilling -------------------------------------


@pytest.mark.parametrize(
    ("policy", "local"), [("greedy", "easy"), ("conservative-mr", "conservative")]
)
@settings(max_examples=80)
@given(multisite_instances(max_sites=1, max_classes=1, max_jobs=12, runtimes="any"))
def test_one_site_schedules_exactly_as_single_site_backfilling(
    policy: str, local: str, instance: Instance
) -> None:
    sites, _, jobs = instance
    matrix = RuntimeMatrix(((1.0,),), ("only",))
    multi = run((sites, matrix, jobs), policy)
    single = schedule(
        [Job(j.id, j.submit, j.procs, j.requested_time, j.runtime) for j in jobs],
        Cluster(sites[0].processors),
        policy=local,
    )
    assert [(o.job, o.start, o.end) for o in multi.record.outcomes] == [
        (o.job, o.start, o.end) for o in single.outcomes
    ]


# -- each property fails on a broken variant -----------------------------------------------


def test_copies_checker_fails_when_the_other_copies_are_not_withdrawn() -> None:
    def keep_copies(started: int, estimates: Any, cancel: str, *rest: Any) -> tuple[int, ...]:
        return ()

    def condition(instance: Instance) -> None:
        check_copies_withdrawn(run(instance, "conservative-mr").record)

    with patched(scheduling_pass, "copies_to_cancel", keep_copies):
        counterexample(condition, match="still wait after that instant")


def test_slower_copies_checker_fails_when_every_copy_is_withdrawn() -> None:
    def condition(instance: Instance) -> None:
        result = run(instance, "conservative-mr-slower")
        check_copies_withdrawn(result.record, cancel="slower", estimates=result.estimates)

    real = scheduling_pass.copies_to_cancel

    def cancel_all(started: int, estimates: Any, cancel: str, *rest: Any) -> tuple[int, ...]:
        return real(started, estimates, "all")

    with patched(scheduling_pass, "copies_to_cancel", cancel_all):
        counterexample(condition, match="still wait after that instant (expected: [")


def test_completion_bound_fails_when_copies_start_without_asking_the_others() -> None:
    def first_come(now: float, estimate: float, others: Any, *rest: Any) -> tuple[bool, None]:
        return True, None

    def condition(instance: Instance) -> None:
        result = run(instance, "conservative-mr")
        check_completion_bound(result.record, estimates=result.estimates)

    with patched(scheduling_pass, "admit", first_come):
        counterexample(condition, match="promised completion by")


def _rebuild_on_withdraw() -> Callable[..., None]:
    """A site that, when a copy is withdrawn, re-plans its whole queue from scratch."""
    real = scheduling_pass.withdraw

    def withdraw(core: Any, site: Any, job: Any, now: float, detail: str) -> None:
        real(core, site, job, now, detail)
        book = site.book
        if book is not None:  # every reservation to come is given back: placed again from scratch
            for k, at in enumerate(book.starts):
                if at is not None and at > now:
                    request = book.requests[k]
                    book.editor.release_until(at, at + request.requested_time, request.procs)
                    book.starts[k] = None
                    book._unplaced += 1

    return withdraw


@pytest.mark.parametrize("policy", ["conservative-mr", "efficacy"])
def test_reservations_checker_fails_when_a_site_replans_from_scratch(policy: str) -> None:
    def condition(instance: Instance) -> None:
        check_multisite_reservations(run(instance, policy).record)

    with patched(scheduling_pass, "withdraw", _rebuild_on_withdraw()):
        counterexample(condition, match="reservation moved later")


def test_no_starvation_bound_of_efficacy_fails_when_a_site_replans_from_scratch() -> None:
    """The other side of the bound: without "never move a promise later" it breaks."""

    def condition(instance: Instance) -> None:
        result = run(instance, "efficacy")
        check_completion_bound(result.record, estimates=result.estimates)

    with patched(scheduling_pass, "withdraw", _rebuild_on_withdraw()):
        counterexample(condition, match="promised completion by")


def test_messages_checker_fails_when_a_start_costs_two_messages_per_copy() -> None:
    def cheap(live: int) -> int:
        return 2 * (live - 1)

    def condition(instance: Instance) -> None:
        result = run(instance, "greedy-mr")
        check_messages(result.record, result.messages)

    with patched(scheduling_pass, "attempt_messages", cheap):
        counterexample(condition, match="below the minimum")


def test_messages_checker_fails_when_queries_are_not_counted() -> None:
    def condition(instance: Instance) -> None:
        result = run(instance, POLICIES["greedy-mr"].with_copies(1, "completion"))
        check_messages(result.record, result.messages, queried=True)

    with patched(model_module, "query_messages", lambda sites: 0):
        counterexample(condition, match="below the minimum", strategy=CASES)


def test_utilisation_checker_fails_when_efficacy_is_inverted() -> None:
    def inverted(products: Any, site: int) -> float:
        return products[site] / min(products)

    def condition(instance: Instance) -> None:
        result = run(instance, "greedy")
        check_utilisations(result.utilisation, result.effective_utilisation)

    with patched(model_module, "efficacy", inverted):
        counterexample(condition, match="above utilisation")


def test_capacity_checker_fails_when_sites_share_processor_ids() -> None:
    real = scheduling_pass.global_place

    def local_ids(ranges: Any, offset: int) -> Any:
        return real(ranges, 0)

    def condition(instance: Instance) -> None:
        check_capacity(run(instance, "greedy-mr").record)

    with patched(scheduling_pass, "global_place", local_ids):
        counterexample(condition, match="oversubscribed")
