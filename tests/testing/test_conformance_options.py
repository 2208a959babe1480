"""The conformance suite's options do what they say.

- `checks=` runs exactly the named checks, no others;
- a candidate's `expected_failures` become *strict* xfails: a check that passes
  (XPASS) fails the test;
- `seed=None` is derandomized: the same inputs on every run (a given seed too, and
  two seeds draw different inputs);
- the multi-site `copies-withdrawn` check follows the policy's own cancel rule:
  under cancel-slower, the copies at faster sites stay.
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from schedlib.backfill import easy, schedule
from schedlib.model import Cluster, Job, RunRecord
from schedlib.multisite import MultiSiteJob, RuntimeMatrix, Site, scheduling_pass
from schedlib.testing import Candidate, ConformanceError, check_scheduler, parametrize_with_checks
from schedlib.testing.conformance.core import family_of


def first_processors(jobs: list[Job], cluster: Cluster) -> RunRecord:
    """BROKEN: EASY's times, but every job placed on processors 0..n-1 (deterministic)."""
    record = schedule(jobs, cluster, policy="easy")
    events = [
        attrs.evolve(e, place=tuple(range(len(e.place)))) if e.place else e for e in record.events
    ]
    return RunRecord.from_log("first", record.workload, events, capacity=cluster.processors)


def test_the_checks_option_runs_only_the_named_checks() -> None:
    """Decision: `checks=["determinism"]` runs determinism alone.

    The scheduler is deterministic and oversubscribes processors: asked for
    determinism only it passes; asked for capacity, it fails there.
    """
    check_scheduler(first_processors, "backfill", checks=["determinism"], max_examples=30)
    with pytest.raises(ConformanceError) as info:
        check_scheduler(
            first_processors, "backfill", checks=["capacity"], max_examples=30, shrink=False
        )
    assert info.value.check == "capacity"


def test_expected_failures_are_strict_xfails() -> None:
    """Decision: a check listed in `expected_failures` that passes fails the test (XPASS)."""
    mark = parametrize_with_checks(
        [Candidate(easy, "backfill", ["easy-head"], expected_failures=["easy-head"])]
    )
    params = {p.id: p for p in mark.args[1]}
    (xfail,) = params["easy-head[easy]"].marks
    assert xfail.name == "xfail"
    assert xfail.kwargs["strict"] is True and xfail.kwargs["raises"] is ConformanceError
    assert all(not p.marks for name, p in params.items() if name != "easy-head[easy]")


class Recorder:
    """A `(jobs, cluster)` scheduler (EASY) that keeps every input it is run on."""

    def __init__(self) -> None:
        self.inputs: list[tuple[int, tuple[Job, ...]]] = []
        self.__name__ = "recorder"

    def __call__(self, jobs: list[Job], cluster: Cluster) -> RunRecord:
        self.inputs.append((cluster.processors, tuple(jobs)))
        return schedule(jobs, cluster, policy="easy")


def _drawn(seed: int | None) -> list[tuple[int, tuple[Job, ...]]]:
    recorder = Recorder()
    check_scheduler(
        Candidate(recorder, "backfill", form="schedule"),
        checks=["accounting"],
        max_examples=12,
        seed=seed,
    )
    return recorder.inputs


def test_seed_none_draws_the_same_inputs_on_every_run() -> None:
    """Decision: `seed=None` is derandomized (the same inputs, so the same counterexample)."""
    first = _drawn(None)
    assert len(first) >= 10 and len({jobs for _, jobs in first}) > 5
    assert _drawn(None) == first
    assert _drawn(7) == _drawn(7)
    assert _drawn(7) != _drawn(8)  # a seed does choose the inputs


# A faster copy is kept under cancel-slower: job 1 (class 1) starts at site 1 at t=0 and
# its copy at site 0, where it would run twice as fast, keeps waiting (Sabin et al. §5).
KEPT_FASTER = (
    (Site("a", 1), Site("b", 1)),
    RuntimeMatrix(((1.0, 1.0), (0.5, 1.0)), ("even", "faster at a")),
    (MultiSiteJob(0, 0, 1, 1, 1, job_class=0), MultiSiteJob(1, 0, 1, 1, 1, job_class=1)),
)


def _copies_withdrawn(policy: str, instance: Any) -> None:
    family = family_of("multisite")
    run = family.runner(family.default_form(policy), policy, {})
    family.check("copies-withdrawn").verify(run, instance)


def test_copies_withdrawn_follows_the_policys_cancel_rule() -> None:
    """Decision: under cancel-slower the check expects the faster copies to stay."""
    _copies_withdrawn("conservative-mr-slower", KEPT_FASTER)
    _copies_withdrawn("conservative-mr", KEPT_FASTER)
    # The other side: a cancel-slower run that withdraws every copy fails the check.
    real = scheduling_pass.copies_to_cancel

    def every_copy(started: int, estimates: Any, cancel: Any, *rest: Any) -> tuple[int, ...]:
        return real(started, estimates, "all")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scheduling_pass, "copies_to_cancel", every_copy)
        with pytest.raises(AssertionError, match="expected: \\[0\\]"):
            _copies_withdrawn("conservative-mr-slower", KEPT_FASTER)
