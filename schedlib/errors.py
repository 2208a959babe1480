"""Exception types of schedlib.

Every message names what was wrong and where: the field and its value for an
invalid object, the file, line and field for a malformed workload, the time
and the jobs concerned for a simulation that cannot progress.

All exceptions derive from [`SchedlibError`][schedlib.errors.SchedlibError],
so `except SchedlibError` catches every error this library raises on purpose.

Examples
--------
>>> err = InvalidValueError("Job.runtime", -5, "must be >= 0")
>>> str(err)
'Job.runtime = -5: must be >= 0'
>>> isinstance(err, ValueError)
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = [
    "InvalidDecisionError",
    "InvalidValueError",
    "SchedlibError",
    "SimulationStuckError",
    "WorkloadFormatError",
]


class SchedlibError(Exception):
    """Base class of every error schedlib raises on purpose."""


class InvalidValueError(SchedlibError, ValueError):
    """A value that an object or function cannot accept.

    Parameters
    ----------
    field
        Qualified name of the field or parameter, e.g. `"Job.runtime"` or `"B"`.
    value
        The offending value.
    reason
        What the value must satisfy, e.g. `"must be >= 0"`.

    Examples
    --------
    >>> InvalidValueError("B", 0, "must be >= 1 (B = 0 removes the guarantee)").field
    'B'
    """

    def __init__(self, field: str, value: Any, reason: str) -> None:
        self.field = field
        self.value = value
        self.reason = reason
        super().__init__(f"{field} = {value!r}: {reason}")


class InvalidDecisionError(InvalidValueError):
    """A scheduling decision that cannot be applied: the decision function is at fault.

    Raised when a decision function — yours, plugged into a model — returns
    something the model cannot carry out: it starts a job twice, starts a job
    that is not waiting, oversubscribes a resource, uses a processor that is
    not idle, ... The message names the function, the time, what is wrong
    and what it returned, so the bug is found in the function, not in the
    library.

    Parameters
    ----------
    policy
        Name of the decision function.
    time
        When it decided.
    reason
        What is invalid about the decision.
    decision
        What it returned.

    Examples
    --------
    >>> err = InvalidDecisionError("my_easy", 40, "it starts job 3, which is not waiting", [3])
    >>> str(err)
    'decision of my_easy at t=40 = [3]: it starts job 3, which is not waiting'
    >>> isinstance(err, InvalidValueError)
    True
    """

    def __init__(self, policy: str, time: float, reason: str, decision: Any) -> None:
        self.policy = policy
        self.time = time
        self.decision = decision
        super().__init__(f"decision of {policy} at t={time}", decision, reason)


class WorkloadFormatError(SchedlibError, ValueError):
    """A workload file that is not what it claims to be.

    Parameters
    ----------
    path
        The file (or `"<stream>"` when reading from an open stream).
    line
        1-based line number, or `None` when the error concerns the whole file.
    message
        What is wrong; names the field and value when one is at fault.
    field
        Name of the offending field, if any.
    value
        The offending token, if any.

    Examples
    --------
    >>> str(WorkloadFormatError("log.swf", 12, "field 4 (run_time) = 'x': not an integer"))
    "log.swf:12: field 4 (run_time) = 'x': not an integer"
    """

    def __init__(
        self,
        path: str,
        line: int | None,
        message: str,
        *,
        field: str | None = None,
        value: Any = None,
    ) -> None:
        self.path = path
        self.line = line
        self.field = field
        self.value = value
        self.message = message
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {message}")


class SimulationStuckError(SchedlibError, RuntimeError):
    """Work remains but the simulation cannot progress.

    Raised by the engine when no event is left while jobs are unfinished, or
    when its progress guard trips (the event budget is spent, or no job made
    progress over the livelock window; see [`simulate`][schedlib.engine.simulate]).
    The message names the time, the rule, the stuck jobs and, for a guard
    trip, the last log entries (the model's last decisions).

    Parameters
    ----------
    time
        Simulated time at which the engine gave up.
    jobs
        Identifiers of the unfinished jobs.
    reason
        Why the engine stopped.
    rule
        Which rule tripped: `"no event left"`, `"event budget"` or
        `"livelock"` (default: the reason).
    recent
        The last log entries before the engine gave up (most recent last).

    Examples
    --------
    >>> str(SimulationStuckError(10.0, [3, 7], "no event left"))
    'simulation stuck at t=10.0: no event left; 2 unfinished job(s): 3, 7'
    >>> error = SimulationStuckError(4, [1], "event budget of 9 spent", rule="event budget",
    ...                              recent=["t=4 job 1 preempt (0,)"])
    >>> error.rule, str(error).endswith("last log entries: t=4 job 1 preempt (0,)")
    ('event budget', True)
    """

    def __init__(
        self,
        time: float,
        jobs: Iterable[Any],
        reason: str,
        *,
        rule: str | None = None,
        recent: Iterable[Any] = (),
    ) -> None:
        self.time = time
        self.jobs = tuple(jobs)
        self.reason = reason
        self.rule = reason if rule is None else rule
        self.recent = tuple(recent)
        shown = ", ".join(str(j) for j in self.jobs[:20])
        more = f" (and {len(self.jobs) - 20} more)" if len(self.jobs) > 20 else ""
        tail = (
            f"; last log entries: {'; '.join(str(r) for r in self.recent)}" if self.recent else ""
        )
        super().__init__(
            f"simulation stuck at t={time}: {reason}; "
            f"{len(self.jobs)} unfinished job(s): {shown}{more}{tail}"
        )
