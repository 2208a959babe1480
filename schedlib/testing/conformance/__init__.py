"""A conformance suite for your own scheduler: `check_scheduler` and `parametrize_with_checks`.

[`check_scheduler`][schedlib.testing.conformance.check_scheduler] runs every
check that applies to a scheduler of a family as a hypothesis property and
raises [`ConformanceError`][schedlib.testing.conformance.ConformanceError] on
the first failure, with the shrunk counterexample printed as Python you can
paste into a test. [`parametrize_with_checks`][schedlib.testing.conformance.parametrize_with_checks]
turns a list of schedulers into one pytest test per (scheduler, check), with
ids like `easy-head[my_policy]`.

Every family checks the basics (accounting, lifecycle, capacity, no start
before submission, determinism, and where the family's inputs allow it,
that decisions do not read actual runtimes); each scheduler also names the
guarantees it claims (e.g. `"easy-head"`). See
[`CHECKS`][schedlib.testing.conformance.CHECKS] or the how-to "Test your own
scheduler" for the table of every check.

The checks need hypothesis (the `test` extra); it is imported only when a
check runs, so this module imports with the base install.

Examples
--------
>>> from schedlib.backfill import easy
>>> check_scheduler(easy, "backfill", guarantees=["easy-head"], max_examples=5)
>>> [c.name for c in checks_for(easy, "backfill", guarantees=["easy-head"])]
['accounting', 'lifecycle', 'capacity', 'no-early-start', 'determinism', 'non-clairvoyant', 'easy-head']
"""  # noqa: E501

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from schedlib.testing.conformance import backfill as _backfill  # noqa: F401  (registers)
from schedlib.testing.conformance import families as _families  # noqa: F401  (registers)
from schedlib.testing.conformance.core import (
    Candidate,
    Check,
    ConformanceError,
    Family,
    as_candidates,
    check_no_start_before_submit,
    families,
    run_check,
)

__all__ = [
    "CHECKS",
    "DEFAULT_MAX_EXAMPLES",
    "Candidate",
    "Check",
    "ConformanceError",
    "Family",
    "check_no_start_before_submit",
    "check_scheduler",
    "checks_for",
    "parametrize_with_checks",
]

CHECKS: tuple[Check, ...] = tuple(check for family in families() for check in family.checks)
"""Every check of every family, basics first within each family."""

DEFAULT_MAX_EXAMPLES = 50
"""Examples per check when `max_examples` is not given."""


def _candidate(
    scheduler: Any,
    family: str | None,
    guarantees: Sequence[str],
    form: str | None,
    options: Mapping[str, Any] | None,
) -> Candidate:
    if isinstance(scheduler, Candidate):
        return scheduler
    (candidate,) = as_candidates([scheduler], family, guarantees, options)
    return Candidate(
        candidate.scheduler,
        candidate.family,
        candidate.guarantees,
        form,
        options=candidate.options,
    )


def checks_for(
    scheduler: Any,
    family: str | None = None,
    *,
    guarantees: Sequence[str] = (),
    form: str | None = None,
) -> tuple[Check, ...]:
    """The checks [`check_scheduler`][schedlib.testing.conformance.check_scheduler] would run.

    Parameters
    ----------
    scheduler, family, guarantees, form
        As for `check_scheduler`.

    Returns
    -------
    tuple of Check
        The family's basics for the scheduler's form, then its guarantees.

    Raises
    ------
    InvalidValueError
        For an unknown family, form or guarantee.

    Examples
    --------
    >>> from schedlib.backfill import conservative
    >>> [c.name for c in checks_for(conservative, "backfill", form="plan",
    ...                             guarantees=["conservative-reservations"])][-2:]
    ['non-clairvoyant', 'conservative-reservations']
    """
    return _candidate(scheduler, family, guarantees, form, None).checks()


def check_scheduler(
    scheduler: Any,
    family: str | None = None,
    *,
    guarantees: Sequence[str] = (),
    max_examples: int | None = None,
    seed: int | None = None,
    form: str | None = None,
    checks: Iterable[str] | None = None,
    options: Mapping[str, Any] | None = None,
    shrink: bool = True,
) -> None:
    """Check a scheduler against every invariant of its family; raise on the first failure.

    Parameters
    ----------
    scheduler
        Your scheduler in one of the family's forms (for backfilling: a
        decision function `Snapshot -> Decision` run on schedlib's engine,
        a conservative planner `Plan -> PlanDecision` with `form="plan"`,
        or a function `(jobs, cluster)` returning a `RunRecord` or
        `(starts, ends[, places[, killed]])`), or a
        [`Candidate`][schedlib.testing.conformance.Candidate].
    family
        The family's name, e.g. `"backfill"` (not needed for a `Candidate`).
    guarantees
        Checks it claims beyond the basics, e.g. `["easy-head"]`.
    max_examples
        Inputs tried per check (default
        [`DEFAULT_MAX_EXAMPLES`][schedlib.testing.conformance.DEFAULT_MAX_EXAMPLES]).
    seed
        Hypothesis seed (same seed, same inputs); `None`: derandomized.
    form
        The scheduler's form, when it cannot be told from its signature.
    checks
        Run only these checks (by name); default: every one that applies.
    options
        Family options, e.g. bounds of the drawn inputs (`max_jobs`, ...).
    shrink
        Shrink a failing input to a small one before reporting it (default);
        `False` reports the first failing input found (faster).

    Raises
    ------
    ConformanceError
        An `AssertionError` naming the check, the violated invariant and the
        smallest input found, printed so that it can be pasted into a test.
    InvalidValueError
        For an unknown family, form or guarantee.
    ImportError
        Without hypothesis.

    Notes
    -----
    Each check is a hypothesis property over the family's strategy; a failing
    input is shrunk before it is reported. A scheduler that raises on a valid
    input fails the check it raised in. Complexity: `max_examples` runs per
    check (two for determinism and clairvoyance), plus shrinking on failure.

    Examples
    --------
    A variant of EASY that lets every job that fits start at once, delaying
    the head of the queue:

    >>> from schedlib.backfill import Decision, easy
    >>> def impatient(snapshot):
    ...     d = easy(snapshot)
    ...     free = snapshot.free - sum(j.procs for j in d.start)
    ...     start = list(d.start)
    ...     for job in snapshot.queue:
    ...         if job not in start and job != d.head and job.procs <= free:
    ...             start.append(job)
    ...             free -= job.procs
    ...     start.sort(key=snapshot.queue.index)
    ...     positions = tuple(snapshot.queue.index(j) for j in start)
    ...     return Decision(tuple(start), positions, d.head, d.reservation)
    >>> check_scheduler(impatient, "backfill", guarantees=["easy-head"],
    ...                 checks=["easy-head"], max_examples=50)
    Traceback (most recent call last):
    ...
    schedlib.testing.conformance.core.ConformanceError: check 'easy-head' failed for scheduler impatient: EASY head job ...
    """  # noqa: E501
    candidate = _candidate(scheduler, family, guarantees, form, options)
    chosen = candidate.checks()
    if checks is not None:
        wanted = list(checks)
        known = {c.name for c in chosen}
        for name in wanted:
            if name not in known:
                from schedlib.errors import InvalidValueError

                raise InvalidValueError(
                    "checks", name, f"applies to this scheduler only: {', '.join(sorted(known))}"
                )
        chosen = tuple(c for c in chosen if c.name in wanted)
    __tracebackhide__ = True  # pytest shows the caller's line and the message, not the suite
    for check in chosen:
        _run_without_suite_frames(
            candidate,
            check,
            max_examples=DEFAULT_MAX_EXAMPLES if max_examples is None else max_examples,
            seed=seed,
            shrink=shrink,
        )


def _run_without_suite_frames(
    candidate: Candidate, check: Check, *, max_examples: int, seed: int | None, shrink: bool
) -> None:
    """Run one check; a `ConformanceError` is raised from here, without the frames of the
    suite and of hypothesis beneath (its message holds all there is to know)."""
    __tracebackhide__ = True
    try:
        run_check(candidate, check, max_examples=max_examples, seed=seed, shrink=shrink)
    except ConformanceError as error:
        raise error.with_traceback(None) from None


class _CheckOne:
    """One (scheduler, check) pair: call it with the candidate to run the check."""

    def __init__(
        self, check: Check, max_examples: int | None, seed: int | None, shrink: bool
    ) -> None:
        self.check = check
        self.max_examples = max_examples
        self.seed = seed
        self.shrink = shrink

    def __call__(self, candidate: Candidate) -> None:
        __tracebackhide__ = True
        _run_without_suite_frames(
            candidate,
            self.check,
            max_examples=DEFAULT_MAX_EXAMPLES if self.max_examples is None else self.max_examples,
            seed=self.seed,
            shrink=self.shrink,
        )

    def __repr__(self) -> str:
        return f"<check {self.check.name}>"


def parametrize_with_checks(
    schedulers: Iterable[Any],
    family: str | None = None,
    *,
    guarantees: Sequence[str] = (),
    max_examples: int | None = None,
    seed: int | None = None,
    options: Mapping[str, Any] | None = None,
    shrink: bool = True,
) -> Callable[[Callable[..., Any]], Any]:
    """A pytest decorator: one test per (scheduler, check), with ids like `easy-head[my_policy]`.

    The decorated test takes two arguments, `scheduler` (a
    [`Candidate`][schedlib.testing.conformance.Candidate]) and `check` (a
    callable), and calls `check(scheduler)`. Checks a candidate lists in
    `expected_failures` are marked `xfail(strict=True)`: they must fail.

    Parameters
    ----------
    schedulers
        Schedulers (plain ones take `family` and `guarantees` from here) or
        `Candidate`s (which carry their own).
    family, guarantees, options
        For the plain schedulers.
    max_examples, seed, shrink
        As for [`check_scheduler`][schedlib.testing.conformance.check_scheduler].

    Returns
    -------
    Callable
        `pytest.mark.parametrize("scheduler, check", ...)`.

    Notes
    -----
    Nothing runs when the decorator is built: each test runs its one check
    (`max_examples` inputs) when pytest calls it.

    Raises
    ------
    InvalidValueError
        For an unknown family, form or guarantee, or two candidates of one
        family with the same name (a name shared by several families gets
        the family in its ids: `capacity[availability:fcfs]`).

    Examples
    --------
    >>> from schedlib.backfill import easy, fcfs
    >>> mark = parametrize_with_checks([easy, fcfs], "backfill", max_examples=10)
    >>> [p.id for p in mark.args[1]][:2]
    ['accounting[easy]', 'lifecycle[easy]']
    """
    import pytest

    from schedlib.errors import InvalidValueError

    candidates = as_candidates(schedulers, family, guarantees, options)
    keys = [(c.family, c.name) for c in candidates]
    for key in keys:
        if keys.count(key) > 1:
            raise InvalidValueError("schedulers", key[1], f"two {key[0]} schedulers have this name")
    names = [c.name for c in candidates]
    params = []
    for candidate in candidates:
        # The name alone, unless schedulers of several families share it.
        ambiguous = names.count(candidate.name) > 1
        label = f"{candidate.family}:{candidate.name}" if ambiguous else candidate.name
        for check in candidate.checks():
            marks: tuple[Any, ...] = ()
            if check.name in candidate.expected_failures:
                marks = (pytest.mark.xfail(strict=True, raises=ConformanceError),)
            params.append(
                pytest.param(
                    candidate,
                    _CheckOne(check, max_examples, seed, shrink),
                    id=f"{check.name}[{label}]",
                    marks=marks,
                )
            )
        unknown = candidate.expected_failures - {c.name for c in candidate.checks()}
        if unknown:
            raise InvalidValueError(
                f"Candidate({candidate.name}).expected_failures",
                sorted(unknown),
                "names checks that are not run for it",
            )
    return pytest.mark.parametrize("scheduler, check", params)
