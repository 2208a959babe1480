"""The machinery of the conformance suite: checks, families, candidates and the runner.

A *family* knows how to draw an input of its model (a hypothesis strategy),
how to run a scheduler given in one of the family's *forms* on it (turning
the result into a [`RunRecord`][schedlib.model.RunRecord]), which checks it
offers, and how to print an input so that it can be pasted into a test. A
*check* is a named property of one run (or of two runs, for determinism and
clairvoyance) over the family's inputs; it calls the existing checkers of
[`schedlib.testing.invariants`][schedlib.testing.invariants].

Hypothesis is imported only when a check runs, so that `schedlib.testing`
imports with the base install.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs

__all__ = [
    "Candidate",
    "Check",
    "ConformanceError",
    "Family",
    "Violation",
    "family_of",
    "register",
]


class ConformanceError(AssertionError):
    """A scheduler fails a conformance check; the message holds a pasteable counterexample.

    Parameters
    ----------
    check
        Name of the failed check (e.g. `"easy-head"`).
    scheduler
        Name of the scheduler under test.
    reason
        The violated invariant, as the checker explained it.
    instance
        The smallest input hypothesis found (after shrinking).
    reproduction
        Python source that rebuilds the input and re-runs the check.

    Examples
    --------
    >>> err = ConformanceError("capacity", "mine", "unit 0 oversubscribed", None, "jobs = []")
    >>> isinstance(err, AssertionError), err.check
    (True, 'capacity')
    >>> print(str(err).splitlines()[0])
    check 'capacity' failed for scheduler mine: unit 0 oversubscribed
    """

    def __init__(
        self, check: str, scheduler: str, reason: str, instance: Any, reproduction: str
    ) -> None:
        self.check = check
        self.scheduler = scheduler
        self.reason = reason
        self.instance = instance
        self.reproduction = reproduction
        super().__init__(
            f"check {check!r} failed for scheduler {scheduler}: {reason}\n"
            "Smallest counterexample found (paste it into a test):\n\n"
            + "\n".join("    " + line if line else "" for line in reproduction.splitlines())
        )


class Violation(AssertionError):
    """Raised inside a property: an input on which a check fails (shrunk by hypothesis)."""

    def __init__(self, reason: str, instance: Any) -> None:
        super().__init__(reason)
        self.reason = reason
        self.instance = instance


@attrs.frozen
class Check:
    """One named property a scheduler of a family must have.

    Attributes
    ----------
    name
        Short id, used in test ids (`easy-head[my_policy]`).
    family
        The family it belongs to.
    asserts
        What it asserts, in one sentence (the table of the how-to).
    reference
        Where the property comes from (author-year and section).
    basic
        Always run (`True`), or only when the scheduler claims it as a
        guarantee (`False`).
    verify
        `verify(run, instance)`: raises `AssertionError` when the property
        fails on `instance`; `run(instance)` runs the scheduler (fresh each
        call) and returns its record.
    forms
        The forms of scheduler it applies to (empty: all).
    snippet
        Python source re-running the check on `record` (for the printed
        counterexample).
    """

    name: str
    family: str
    asserts: str
    reference: str
    basic: bool
    verify: Callable[[Callable[[Any], Any], Any], None] = attrs.field(repr=False)
    forms: frozenset[str] = frozenset()
    snippet: str = ""


@attrs.frozen
class Family:
    """How to test schedulers of one model.

    Attributes
    ----------
    name
        The family's name (`check_scheduler(..., family=name)`).
    forms
        `form -> describe`: the ways a scheduler may be given, with a
        one-line description.
    default_form
        `default_form(scheduler)`: the form of a scheduler given without one.
    runner
        `runner(form, scheduler, options) -> run`, where `run(instance)`
        runs the scheduler on one input and returns a record.
    instances
        `instances(options, check)`: the hypothesis strategy of inputs for
        `check` (imported lazily; needs hypothesis).
    reproduce
        `reproduce(instance, form, scheduler_name, check, options)`: Python
        source rebuilding `instance` and re-running `check`.
    checks
        The family's checks, basics first.
    """

    name: str
    forms: Mapping[str, str]
    default_form: Callable[[Any], str]
    runner: Callable[[str, Any, Mapping[str, Any]], Callable[[Any], Any]]
    instances: Callable[[Mapping[str, Any], Check], Any]
    reproduce: Callable[[Any, str, str, Check, Mapping[str, Any]], str]
    checks: tuple[Check, ...]

    def check(self, name: str) -> Check:
        """The check called `name` (`KeyError` naming the valid ones otherwise)."""
        for check in self.checks:
            if check.name == name:
                return check
        raise KeyError(
            f"family {self.name!r} has no check {name!r}; its checks are "
            + ", ".join(c.name for c in self.checks)
        )


_FAMILIES: dict[str, Family] = {}


def register(family: Family) -> Family:
    """Add `family` to the registry (module import time) and return it."""
    _FAMILIES[family.name] = family
    return family


def family_of(name: str) -> Family:
    """The registered family called `name`.

    Raises
    ------
    InvalidValueError
        Naming the known families.

    Examples
    --------
    >>> import schedlib.testing
    >>> family_of("deferment").forms
    {'scheduler': 'GridView -> Selection (e.g. fifo(1)), run by run_grid'}
    """
    from schedlib.errors import InvalidValueError

    if name not in _FAMILIES:
        raise InvalidValueError("family", name, f"must be one of {', '.join(sorted(_FAMILIES))}")
    return _FAMILIES[name]


def families() -> tuple[Family, ...]:
    """Every registered family, in registration order."""
    return tuple(_FAMILIES.values())


def _name_of(scheduler: Any) -> str:
    if isinstance(scheduler, str):
        return scheduler
    name = getattr(scheduler, "__name__", None) or getattr(scheduler, "name", None)
    return str(name) if name else type(scheduler).__name__


def _names(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(names)


def _name_set(names: Iterable[str]) -> frozenset[str]:
    return frozenset(names)


@attrs.frozen
class Candidate:
    """A scheduler to check, with the family it belongs to and what it claims.

    Attributes
    ----------
    scheduler
        The scheduler, in one of the family's forms.
    family
        The family's name.
    guarantees
        Names of the checks it claims beyond the family's basics.
    form
        Which form `scheduler` is in; `None`: the family's default for it
        (for backfilling: a function of one argument is a decision function,
        of two a `(jobs, cluster)` scheduler).
    name
        Its name in messages and test ids (default: the function's name).
    options
        Family options (e.g. for backfilling `runtimes`, `max_jobs`).
    expected_failures
        Names of checks it is known to fail:
        [`parametrize_with_checks`][schedlib.testing.parametrize_with_checks]
        marks those tests as strict `xfail`.

    Examples
    --------
    >>> from schedlib.backfill import easy
    >>> c = Candidate(easy, "backfill", guarantees=["easy-head"])
    >>> c.name, c.guarantees
    ('easy', ('easy-head',))
    """

    scheduler: Any
    family: str
    guarantees: tuple[str, ...] = attrs.field(default=(), converter=_names)
    form: str | None = None
    name: str = attrs.field(default=attrs.Factory(lambda self: _name_of(self.scheduler), True))
    options: Mapping[str, Any] = attrs.field(factory=dict)
    expected_failures: frozenset[str] = attrs.field(default=frozenset(), converter=_name_set)

    def resolved_form(self) -> str:
        """The form, given or inferred (checked against the family's forms)."""
        from schedlib.errors import InvalidValueError

        family = family_of(self.family)
        form = self.form or family.default_form(self.scheduler)
        if form not in family.forms:
            raise InvalidValueError(
                "form", form, f"family {self.family!r} accepts {', '.join(family.forms)}"
            )
        return form

    def checks(self) -> tuple[Check, ...]:
        """The checks that apply: the basics for its form, then its guarantees.

        Raises
        ------
        InvalidValueError
            For a guarantee the family does not offer, or one that does not
            apply to the form.
        """
        from schedlib.errors import InvalidValueError

        family = family_of(self.family)
        form = self.resolved_form()
        offered = {c.name: c for c in family.checks if not c.basic}
        chosen = [c for c in family.checks if c.basic and (not c.forms or form in c.forms)]
        for name in self.guarantees:
            if name not in offered:
                raise InvalidValueError(
                    "guarantees",
                    name,
                    f"family {self.family!r} offers {', '.join(offered) or 'none'}",
                )
            check = offered[name]
            if check.forms and form not in check.forms:
                raise InvalidValueError(
                    "guarantees",
                    name,
                    f"applies only to schedulers given as {', '.join(sorted(check.forms))}",
                )
            if check not in chosen:
                chosen.append(check)
        return tuple(chosen)


def run_check(
    candidate: Candidate, check: Check, *, max_examples: int, seed: int | None, shrink: bool = True
) -> None:
    """Run one check as a hypothesis property; raise `ConformanceError` on failure."""
    try:
        from hypothesis import HealthCheck, Phase, given, settings
        from hypothesis import seed as seeded
        from hypothesis.errors import Flaky
    except ImportError as error:  # pragma: no cover - exercised without hypothesis
        raise ImportError(
            "schedlib.testing.check_scheduler needs hypothesis, which is not installed; "
            "install the 'test' extra: pip install 'schedlib[test]'"
        ) from error

    family = family_of(candidate.family)
    form = candidate.resolved_form()
    run = family.runner(form, candidate.scheduler, candidate.options)
    label = reproduction_label(candidate)

    def prop(instance: Any) -> None:
        try:
            check.verify(run, instance)
        except Violation:
            raise
        except AssertionError as error:
            raise Violation(str(error), instance) from error
        except Exception as error:  # the scheduler crashed: that fails the check too
            raise Violation(
                f"the scheduler raised {type(error).__name__}: {error}", instance
            ) from error

    strategy: Any = family.instances(candidate.options, check)
    test: Any = given(strategy)(prop)  # type: ignore[no-untyped-call]
    test = settings(
        max_examples=max_examples,
        derandomize=seed is None,
        database=None,
        deadline=None,
        print_blob=False,
        report_multiple_bugs=False,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.explicit, Phase.reuse, Phase.generate, *([Phase.shrink] if shrink else [])],
    )(test)
    if seed is not None:
        test = seeded(seed)(test)
    try:
        test()
    except Violation as violation:
        source = family.reproduce(violation.instance, form, label, check, candidate.options)
        raise ConformanceError(
            check.name, candidate.name, violation.reason, violation.instance, source
        ) from None
    except Flaky as flaky:  # failed once, then passed on the same input
        found = _violation_in(flaky)
        reason = "the same input failed once and passed when run again (hidden state?)"
        if found is None:
            raise ConformanceError(check.name, candidate.name, reason, None, str(flaky)) from None
        source = family.reproduce(found.instance, form, label, check, candidate.options)
        raise ConformanceError(
            check.name, candidate.name, f"{reason}: {found.reason}", found.instance, source
        ) from None


def reproduction_label(candidate: Candidate) -> str:
    """How the printed counterexample names the scheduler: a policy name as a string literal,
    else the candidate's name if it is a Python name, else the function's, else `scheduler`
    (bind your scheduler to that name before running the printed code).

    Examples
    --------
    >>> from schedlib.backfill import easy
    >>> [reproduction_label(Candidate(s, "backfill", name=n))
    ...  for s, n in (("easy", "easy"), (easy, "my_easy"), (easy, "easy-variant"))]
    ["'easy'", 'my_easy', 'easy']
    """
    if isinstance(candidate.scheduler, str):
        return repr(candidate.scheduler)
    function = getattr(candidate.scheduler, "__name__", "")
    for label in (candidate.name, function):
        if isinstance(label, str) and label.isidentifier() and label != "<lambda>":
            return label
    return "scheduler"


def _violation_in(error: BaseException) -> Violation | None:
    """The first `Violation` inside an exception (group), or `None`."""
    if isinstance(error, Violation):
        return error
    for inner in getattr(error, "exceptions", ()):
        found = _violation_in(inner)
        if found is not None:
            return found
    cause = error.__cause__ or error.__context__
    return _violation_in(cause) if cause is not None else None


def as_candidates(
    schedulers: Iterable[Any] | Any,
    family: str | None,
    guarantees: Sequence[str],
    options: Mapping[str, Any] | None,
) -> list[Candidate]:
    """Wrap plain schedulers into candidates (a `Candidate` is kept as it is)."""
    from schedlib.errors import InvalidValueError

    out = []
    for item in schedulers:
        if isinstance(item, Candidate):
            out.append(item)
            continue
        if family is None:
            raise InvalidValueError(
                "family", None, f"needed for {_name_of(item)} (or pass a Candidate)"
            )
        out.append(Candidate(item, family, tuple(guarantees), options=dict(options or {})))
    return out


# ------------------------------------------------------- checks every family shares


def check_no_start_before_submit(record: Any) -> None:
    """No job (or task) starts before its job is submitted.

    Raises
    ------
    AssertionError
        Naming the job, its submission and its start.

    Examples
    --------
    >>> from schedlib.model import Job, RunRecord
    >>> jobs = [Job(1, 5, 1, 10, 10)]
    >>> check_no_start_before_submit(RunRecord.from_schedule(jobs, {1: 5}, {1: 15}, capacity=1))
    >>> check_no_start_before_submit(RunRecord.from_schedule(jobs, {1: 2}, {1: 12}, capacity=1))
    Traceback (most recent call last):
    ...
    AssertionError: job 1 starts at t=2, before its submission at t=5
    """
    from schedlib.model import EventKind

    submit = {job.id: job.submit for job in record.workload}
    for e in record.events:
        if e.kind is EventKind.START and e.job in submit and e.time < submit[e.job]:
            raise AssertionError(
                f"job {e.job} starts at t={e.time}, before its submission at t={submit[e.job]}"
            )


def basic_checks(
    family: str,
    record_of: Callable[[Any, Any], Any],
    capacity: Callable[[Any, Any], None],
    *,
    capacity_asserts: str,
    reference: str,
    capacity_snippet: str = "",
) -> tuple[Check, ...]:
    """The basics every family checks, on the record `record_of(result, instance)`.

    Parameters
    ----------
    family
        The family's name.
    record_of
        `record_of(result, instance)`: the `RunRecord` of a run's result.
    capacity
        `capacity(record, instance)`: the family's capacity checker.
    capacity_asserts, reference, capacity_snippet
        What the capacity check asserts, where the model comes from, and
        the source re-running the capacity check on `record`.

    Returns
    -------
    tuple of Check
        `accounting`, `lifecycle`, `capacity`, `no-early-start`, `determinism`.

    Examples
    --------
    >>> from schedlib.testing.invariants import check_capacity
    >>> basics = basic_checks("mine", lambda result, instance: result,
    ...                       lambda record, instance: check_capacity(record),
    ...                       capacity_asserts="no unit used twice", reference="mine")
    >>> [c.name for c in basics]
    ['accounting', 'lifecycle', 'capacity', 'no-early-start', 'determinism']
    """
    from schedlib.testing.invariants import check_every_job_accounted, check_lifecycle

    def on_record(check: Callable[[Any], None]) -> Callable[[Callable[[Any], Any], Any], None]:
        def verify(run: Callable[[Any], Any], instance: Any) -> None:
            check(record_of(run(instance), instance))

        return verify

    def verify_capacity(run: Callable[[Any], Any], instance: Any) -> None:
        capacity(record_of(run(instance), instance), instance)

    def deterministic(run: Callable[[Any], Any], instance: Any) -> None:
        first = record_of(run(instance), instance).events
        second = record_of(run(instance), instance).events
        if first != second:
            n = min(len(first), len(second))
            k = next((i for i in range(n) if first[i] != second[i]), n)
            a = first[k] if k < len(first) else "the end of the log"
            b = second[k] if k < len(second) else "the end of the log"
            raise AssertionError(f"two runs on the same input differ: {a!r} then {b!r}")

    own = "schedlib model (every job given to a run is accounted for)"
    return (
        Check(
            "accounting",
            family,
            "every job ends in exactly one terminal state, and the log names no other job",
            own,
            True,
            on_record(check_every_job_accounted),
            snippet=_call("check_every_job_accounted"),
        ),
        Check(
            "lifecycle",
            family,
            "the log is well formed: time never goes back, one submission first, "
            "starts and ends paired",
            "schedlib model",
            True,
            on_record(check_lifecycle),
            snippet=_call("check_lifecycle"),
        ),
        Check(
            "capacity",
            family,
            capacity_asserts,
            reference,
            True,
            verify_capacity,
            snippet=capacity_snippet,
        ),
        Check(
            "no-early-start",
            family,
            "no job starts before its submission",
            reference,
            True,
            on_record(check_no_start_before_submit),
            snippet=_call("check_no_start_before_submit", module="schedlib.testing.conformance"),
        ),
        Check(
            "determinism",
            family,
            "two runs on the same input give the same log",
            "schedlib model (explicit tie-breaking and seeds, no hidden state)",
            True,
            deterministic,
        ),
    )


def _call(*names: str, module: str = "schedlib.testing.invariants") -> str:
    """Source importing and calling checkers on `record` (for the printed counterexample)."""
    calls = "\n".join(f"{name}(record)" for name in names)
    return f"from {module} import {', '.join(names)}\n{calls}"
