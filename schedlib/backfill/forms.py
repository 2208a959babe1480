"""Your own backfilling scheduler, in any of the three forms schedlib runs and checks.

| form | your scheduler | run as |
|---|---|---|
| `"decide"` | `Snapshot -> Decision` (like [`easy`][schedlib.backfill.policies.easy]) | `schedule(policy="easy", decide=f)` |
| `"plan"` | `Plan -> PlanDecision` (like [`conservative`][schedlib.backfill.policies.conservative]) | `schedule(policy="conservative", decide=f)` |
| `"schedule"` | `(jobs, cluster)` returning a `RunRecord` or `(starts, ends[, places[, killed]])` | your function, once; [`to_record`][schedlib.backfill.forms.to_record] |

A function of one required argument is taken to be `"decide"`, of two
`"schedule"`; a conservative planner needs `form="plan"`. The same forms are
what `schedlib run --policy MODULE:FUNCTION [--form FORM]` runs and what the
conformance kit ([`check_scheduler`][schedlib.testing.conformance.check_scheduler],
`schedlib conform`) checks.

Examples
--------
>>> from schedlib.backfill import Decision
>>> from schedlib.model import Cluster, Job
>>> def narrowest_first(snapshot):
...     free, chosen = snapshot.free, []
...     for k, job in sorted(enumerate(snapshot.queue), key=lambda kj: (kj[1].procs, kj[0])):
...         if job.procs <= free:
...             chosen.append(k)
...             free -= job.procs
...     chosen.sort()
...     return Decision(tuple(snapshot.queue[k] for k in chosen), tuple(chosen))
>>> form_of(narrowest_first)
'decide'
>>> jobs = [Job(1, 0, 2, 10, 10), Job(2, 1, 4, 10, 10), Job(3, 2, 1, 10, 10)]
>>> record = run_scheduler(narrowest_first, jobs, Cluster(4))
>>> [(o.job, o.start) for o in record.outcomes], record.algorithm
([(1, 0), (2, 12), (3, 2)], 'narrowest_first')
"""  # noqa: E501

from __future__ import annotations

import functools
import inspect
import traceback
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs

from schedlib.errors import InvalidValueError, SchedlibError
from schedlib.model import Cluster, EventKind, FinalState, Job, JobEvent, RunRecord

__all__ = [
    "FORMS",
    "SchedulerFailedError",
    "check_form",
    "form_of",
    "run_scheduler",
    "to_record",
]

FORMS: Mapping[str, str] = {
    "decide": "Snapshot -> Decision, run as FCFS/EASY on schedlib's engine",
    "plan": "Plan -> PlanDecision, run as conservative backfilling on schedlib's engine",
    "schedule": "(jobs, cluster) -> RunRecord or (starts, ends[, places[, killed]])",
}
"""Each form a backfilling scheduler may take, with what it is and how it is run."""

_ARGUMENTS = {"decide": 1, "plan": 1, "schedule": 2}
_SIGNATURES = {
    "decide": "Snapshot -> Decision",
    "plan": "Plan -> PlanDecision",
    "schedule": "(jobs, cluster) -> starts and ends",
}


class SchedulerFailedError(SchedlibError):
    """Your scheduler raised: the message names it, the exception and where in your code.

    Examples
    --------
    >>> str(SchedulerFailedError("mine", ZeroDivisionError("division by zero"), "my.py:3"))
    'mine raised ZeroDivisionError at my.py:3: division by zero'
    """

    def __init__(self, name: str, error: BaseException, where: str | None) -> None:
        self.name = name
        self.error = error
        self.where = where
        at = f" at {where}" if where else ""
        super().__init__(f"{name} raised {type(error).__name__}{at}: {error}")


def _required_positional(scheduler: Any) -> int | None:
    """How many positional arguments `scheduler` requires (`None`: cannot tell)."""
    try:
        parameters = inspect.signature(scheduler).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_POSITIONAL for p in parameters):
        return None
    return sum(
        1
        for p in parameters
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    )


def form_of(scheduler: Any) -> str:
    """The form of a scheduler given without one: `"schedule"` if it requires two
    positional arguments (or more), else `"decide"`.

    Examples
    --------
    >>> form_of(lambda snapshot: None), form_of(lambda jobs, cluster: None)
    ('decide', 'schedule')
    """
    required = _required_positional(scheduler)
    return "schedule" if required is not None and required >= 2 else "decide"


def _name(scheduler: Any) -> str:
    return str(getattr(scheduler, "__name__", None) or type(scheduler).__name__)


def check_form(scheduler: Any, form: str, *, option: str = "form") -> None:
    """Check that `scheduler` can be called in `form`, before any run.

    Raises
    ------
    InvalidValueError
        For an unknown form (naming `option` and the forms), a scheduler that is
        not callable, or one whose signature does not take the form's arguments
        (one for `decide` and `plan`, two for `schedule`).

    Examples
    --------
    >>> def two(jobs, cluster): ...
    >>> check_form(two, "decide", option="--form")
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: --form = 'decide': two takes 2 arguments (jobs, cluster); a decide scheduler takes 1 (Snapshot -> Decision); give --form schedule
    """  # noqa: E501
    if form not in FORMS:
        raise InvalidValueError(option, form, f"must be one of {', '.join(FORMS)}")
    name = _name(scheduler)
    if not callable(scheduler):
        raise InvalidValueError(
            option, form, f"{name} is a {type(scheduler).__name__}, not a function"
        )
    wanted = _ARGUMENTS[form]
    try:
        parameters = list(inspect.signature(scheduler).parameters.values())
    except (TypeError, ValueError):
        return  # a builtin or C function: trust it
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    variadic = any(p.kind is p.VAR_POSITIONAL for p in parameters)
    if len(required) <= wanted and (variadic or len(positional) >= wanted):
        return
    takes = ", ".join(p.name for p in required) or "nothing"
    fits = {1: "decide (or plan)", 2: "schedule"}.get(len(required))
    hint = f"; give {option} {fits}" if fits else ""
    raise InvalidValueError(
        option,
        form,
        f"{name} takes {len(required)} argument{'s' * (len(required) != 1)} ({takes}); "
        f"a {form} scheduler takes {wanted} ({_SIGNATURES[form]}){hint}",
    )


def to_record(result: Any, jobs: list[Job], cluster: Cluster, name: str = "scheduler") -> RunRecord:
    """The record of what a `(jobs, cluster)` scheduler returned.

    Parameters
    ----------
    result
        A [`RunRecord`][schedlib.model.RunRecord] (returned as it is), or a
        tuple `(starts, ends[, places[, killed]])` of mappings job id -> time,
        job id -> processor ids, and the ids of the jobs killed at their limit.
    jobs, cluster
        The input the scheduler was given.
    name
        The scheduler's name (the record's `algorithm`).

    Raises
    ------
    TypeError
        For any other result, naming what it is.

    Examples
    --------
    >>> jobs = [Job(1, 0, 1, 10, 10)]
    >>> to_record(({1: 0}, {1: 10}), jobs, Cluster(1)).outcomes[0].end
    10
    """
    if isinstance(result, RunRecord):
        return result
    if not isinstance(result, tuple) or not 2 <= len(result) <= 4:
        raise TypeError(
            f"{name} must return a RunRecord or a tuple (starts, ends[, places[, killed]]), "
            f"not {type(result).__name__}"
        )
    starts, ends, *more = result
    places = more[0] if more else None
    killed = more[1] if len(more) > 1 else ()
    return RunRecord.from_schedule(
        jobs, starts, ends, places, capacity=cluster.processors, killed=killed, algorithm=name
    )


def _where(error: BaseException) -> str | None:
    """`file:line` of the innermost frame of the traceback outside schedlib, if any."""
    package = Path(__file__).resolve().parent.parent
    found = None
    for frame in traceback.extract_tb(error.__traceback__):
        path = Path(frame.filename)
        try:
            path.resolve().relative_to(package)
        except ValueError:
            found = f"{path.name}:{frame.lineno}"
    return found


def _guarded(scheduler: Callable[..., Any], name: str) -> Callable[..., Any]:
    """`scheduler`, with whatever it raises (other than schedlib's own errors) reported
    as a `SchedulerFailedError` naming it and the line of its code."""

    @functools.wraps(scheduler)
    def call(*args: Any) -> Any:
        try:
            return scheduler(*args)
        except SchedlibError:
            raise
        except Exception as error:
            raise SchedulerFailedError(name, error, _where(error)) from error

    return call


def _rank(event: JobEvent) -> int:
    """At one instant: ends first, then submissions (with an excluded record's terminal entry
    right after its submission), then starts (half-open intervals, as `from_schedule`)."""
    if event.kind is EventKind.START:
        return 2
    if event.kind in (EventKind.SUBMIT, EventKind.REJECT, EventKind.LOG_CANCELLED):
        return 1
    return 0


def _with_excluded(record: RunRecord, excluded: Iterable[Any], name: str) -> RunRecord:
    """A `schedule`-form record completed with the trace's excluded records, logged like
    the engine logs them (`SUBMIT` then `REJECT` / `LOG_CANCELLED` at their submit time)."""
    extra = list(excluded)
    if not extra:
        return record
    kinds = {
        FinalState.REJECTED: EventKind.REJECT,
        FinalState.CANCELLED_IN_LOG: EventKind.LOG_CANCELLED,
    }
    added = []
    for item in extra:
        added += [
            JobEvent(item.submit, item.id, EventKind.SUBMIT),
            JobEvent(item.submit, item.id, kinds[item.state], detail=item.reason),
        ]
    events = sorted([*record.events, *added], key=lambda e: (e.time, _rank(e)))
    workload = sorted([*record.workload, *extra], key=lambda j: (j.submit, j.id))
    return RunRecord.from_log(
        name, workload, events, capacity=record.capacity, parameters=dict(record.parameters)
    )


def run_scheduler(
    scheduler: Callable[..., Any],
    jobs: Iterable[Job],
    cluster: Cluster,
    *,
    form: str | None = None,
    excluded: Iterable[Any] = (),
    progress: Callable[[float, int], None] | None = None,
    conventions: str = "instant",
    name: str | None = None,
) -> RunRecord:
    """Run your backfilling scheduler, in any of its [`FORMS`][schedlib.backfill.forms.FORMS],
    and return the record of the run, as for a shipped policy.

    Parameters
    ----------
    scheduler
        A decision function, a planner (`form="plan"`) or a `(jobs, cluster)` scheduler.
    jobs, cluster, excluded, progress, conventions
        As for [`schedule`][schedlib.backfill.simulation.schedule] (`progress`
        and `conventions` apply to the forms run on schedlib's engine).
    form
        Its form; default [`form_of`][schedlib.backfill.forms.form_of].
    name
        The record's `algorithm` (default: the function's name).

    Returns
    -------
    RunRecord
        One outcome per job and excluded record.

    Raises
    ------
    InvalidValueError
        For a form that does not fit the scheduler (see
        [`check_form`][schedlib.backfill.forms.check_form]).
    InvalidDecisionError
        For a decision the engine cannot carry out (naming your function and the time).
    SchedulerFailedError
        When your scheduler raises, naming it, the exception and the line of your code.
    TypeError
        For a `schedule`-form result that is neither a record nor a tuple.
    """
    from schedlib.backfill.simulation import schedule

    chosen = form or form_of(scheduler)
    check_form(scheduler, chosen)
    label = name or _name(scheduler)
    guarded = _guarded(scheduler, label)
    if chosen == "schedule":
        given = list(jobs)
        result = guarded(list(given), cluster)
        try:
            record = to_record(result, given, cluster, label)
        except InvalidValueError as error:
            raise InvalidValueError(
                f"the result of {label}: {error.field}", error.value, error.reason
            ) from None
        return _with_excluded(record, excluded, label)
    policy = "conservative" if chosen == "plan" else "easy"
    record = schedule(
        jobs,
        cluster,
        policy=policy,
        excluded=excluded,
        progress=progress,
        decide=guarded,
        conventions=conventions,
    )
    return attrs.evolve(record, algorithm=label)
