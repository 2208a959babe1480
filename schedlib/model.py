"""Shared immutable types: jobs, clusters, the event log and the run record.

Every type is a frozen attrs class: change goes through `attrs.evolve`, which
runs the validators again. Types that only one algorithm family uses live in
that family's module (e.g. availability patterns in `schedlib.availability.patterns`);
this module holds what every family shares.

**Time.** Simulated time is a number of seconds, typed [`Time`][schedlib.model.Time]
(`float`; Python `int` values are accepted and stay exact). Models fed from SWF
traces use integer seconds only, so every comparison there is exact. Models
whose event times are computed (a runtime divided by a speed) compute each
event time once and store it; they never compare two times computed two
different ways. See the Background page for the engine's tie rules.

**The log.** A run is described by a tuple of [`JobEvent`][schedlib.model.JobEvent]
(submit, start, preempt, migrate, fail, complete, ...). Per-job
[`JobOutcome`][schedlib.model.JobOutcome] values and every metric are functions
of that log, never of engine internals.

Examples
--------
>>> job = Job(id=1, submit=0, procs=4, requested_time=100, runtime=60)
>>> job.procs
4
>>> Job(id=2, submit=0, procs=0, requested_time=100, runtime=60)
Traceback (most recent call last):
...
schedlib.errors.InvalidValueError: Job.procs = 0: must be >= 1
"""

from __future__ import annotations

import enum
import math
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import repeat
from typing import Any, Protocol, TypeAlias, TypeVar

import attrs

from schedlib.collector import paused_gc
from schedlib.errors import InvalidValueError
from schedlib.place import ProcessorSet
from schedlib.validation import at_least, finite_at_least

__all__ = [
    "TERMINAL_STATES",
    "Cluster",
    "EventKind",
    "FinalState",
    "Job",
    "JobEvent",
    "JobId",
    "JobLike",
    "JobOutcome",
    "OutcomeLedger",
    "RunRecord",
    "Time",
]

Time: TypeAlias = float
"""Simulated time in seconds (an `int` is accepted and stays exact)."""

JobId: TypeAlias = int
"""Job identifier, unique within a workload."""


def _optional_int(value: Any) -> int | None:
    return None if value is None else int(value)


@attrs.frozen(slots=True)
class Job:
    """A rigid parallel job, as in a Standard Workload Format trace.

    Attributes
    ----------
    id
        Unique identifier (SWF field 1).
    submit
        Submission time in seconds, `>= 0` (SWF field 2).
    procs
        Processors the job holds from start to end, `>= 1`.
    requested_time
        The user's runtime estimate in seconds, `>= 0` (SWF field 9); the
        scheduler plans with it and kills the job when it is reached.
    runtime
        Actual runtime in seconds, `>= 0` (SWF field 4). Never shown to a
        scheduling decision; only the engine's model uses it to schedule the
        completion.
    user, group
        Owner identifiers where the trace knows them, else `None`.

    Examples
    --------
    >>> Job(id=7, submit=10, procs=2, requested_time=3600, runtime=1200, user=3)
    Job(id=7, submit=10, procs=2, requested_time=3600, runtime=1200, user=3, group=None)
    """

    id: JobId = attrs.field(validator=at_least(0))
    submit: Time = attrs.field(validator=finite_at_least(0))
    procs: int = attrs.field(validator=at_least(1))
    requested_time: Time = attrs.field(validator=finite_at_least(0))
    runtime: Time = attrs.field(validator=finite_at_least(0))
    user: int | None = attrs.field(default=None, converter=_optional_int)
    group: int | None = attrs.field(default=None, converter=_optional_int)


def _trusted_job_builder() -> Callable[..., Job]:
    new = object.__new__
    # the slots' own setters: they bypass the frozen class's __setattr__ (which refuses)
    set_id, set_submit, set_procs, set_requested, set_runtime, set_user, set_group = (
        Job.__dict__[field.name].__set__ for field in attrs.fields(Job)
    )

    def trusted_job(
        id: JobId,
        submit: Time,
        procs: int,
        requested_time: Time,
        runtime: Time,
        user: int | None,
        group: int | None,
    ) -> Job:
        """Build a [`Job`][schedlib.model.Job] from values already checked, skipping the checks.

        For readers that validate a whole trace in bulk (the SWF cleaning): the result
        equals `Job(...)` of the same values (same equality, hash, repr and pickle)
        but costs about a quarter of it. The caller guarantees what `Job` would
        check: `id` an `int >= 0`; `submit`, `requested_time`, `runtime` finite
        numbers `>= 0`; `procs` an `int >= 1`; `user`, `group` an `int` or `None`.
        Not part of the public API: code outside the package uses `Job(...)`.

        Parameters
        ----------
        id, submit, procs, requested_time, runtime, user, group
            The seven fields of [`Job`][schedlib.model.Job], in order, all given.

        Returns
        -------
        Job
            The job.

        Notes
        -----
        Complexity: $O(1)$; it writes the slots directly, as a frozen instance
        cannot be assigned to.

        Examples
        --------
        >>> trusted_job(7, 10, 2, 3600, 1200, 3, None) == Job(7, 10, 2, 3600, 1200, 3)
        True
        """
        job: Job = new(Job)
        set_id(job, id)
        set_submit(job, submit)
        set_procs(job, procs)
        set_requested(job, requested_time)
        set_runtime(job, runtime)
        set_user(job, user)
        set_group(job, group)
        return job

    return trusted_job


trusted_job = _trusted_job_builder()

_Frozen = TypeVar("_Frozen", bound=attrs.AttrsInstance)


def trusted_instances(cls: type[_Frozen], columns: Sequence[Sequence[Any]]) -> list[_Frozen]:
    """Build many instances of a frozen, slotted attrs class column by column, skipping checks.

    The bulk form of `trusted_job`, for any such class
    (`Job`, or a reader's own record types): `columns` holds one sequence per
    field, in the class's field order, all of the same length. Each instance
    equals the one the class would build from the same values (same equality,
    hash, repr and pickle); no validator or converter runs, so the caller
    guarantees what they would check. Every slot is written by C-level passes
    over a column, with no Python call per instance. Not part of the public API.

    Parameters
    ----------
    cls
        A class made by `attrs.frozen(slots=True)`.
    columns
        One sequence of values per field of `cls`, in field order.

    Returns
    -------
    list
        The instances, in column order.

    Notes
    -----
    Complexity: $O(n f)$ for $n$ instances of $f$ fields.

    Examples
    --------
    >>> trusted_instances(Job, [(7, 8), (10, 10), (2, 1), (3600, 60), (1200, 5), (3, 3), (None, 1)])
    [Job(id=7, submit=10, procs=2, requested_time=3600, runtime=1200, user=3, group=None), \
Job(id=8, submit=10, procs=1, requested_time=60, runtime=5, user=3, group=1)]
    """
    fields = attrs.fields(cls)
    size = len(columns[0]) if columns else 0
    if len(columns) != len(fields) or any(len(column) != size for column in columns):
        raise InvalidValueError(
            "trusted_instances columns",
            [len(column) for column in columns],
            f"expected {len(fields)} columns of equal length",
        )
    instances: list[_Frozen] = list(map(object.__new__, repeat(cls, size)))
    for field, column in zip(fields, columns, strict=True):
        # the slot's own setter: it bypasses the frozen class's __setattr__ (which refuses)
        deque(map(cls.__dict__[field.name].__set__, instances, column), 0)
    return instances


@attrs.frozen(slots=True)
class Cluster:
    """A homogeneous machine of identical processors.

    Attributes
    ----------
    processors
        Number of processors, `>= 1`.
    name
        A label used in reports (e.g. `"SDSC-SP2"`).

    Examples
    --------
    >>> Cluster(128, "SDSC-SP2")
    Cluster(processors=128, name='SDSC-SP2')
    """

    processors: int = attrs.field(validator=at_least(1))
    name: str = "cluster"


class JobLike(Protocol):
    """What a run record needs to know of an input job.

    Any object with `id` and `submit` attributes qualifies. `procs` (processing
    units held while executing, default 1) and `requested_time` (default
    `None`) are read with `getattr` when present.
    """

    @property
    def id(self) -> JobId: ...

    @property
    def submit(self) -> Time: ...


class EventKind(enum.Enum):
    """What happened to a job at one instant.

    Terminal kinds end a job's life and determine its
    [`FinalState`][schedlib.model.FinalState]: `COMPLETE` (with `task=None`),
    `KILL`, `ABANDON`, `UNSCHEDULABLE`, `REJECT` and `LOG_CANCELLED`.

    An *execution segment* is opened by `START` and closed by the next
    `PREEMPT`, `FAIL`, `CANCEL`, `COMPLETE` or `KILL` with the same job, task
    and place.
    """

    # Plain enum members compare by identity, so identity hashing is consistent
    # with equality and skips Enum's Python-level __hash__ (hot in every run).
    __hash__ = object.__hash__

    SUBMIT = "submit"
    """The job enters the system."""
    ASSIGN = "assign"
    """The job is put in the local queue of `place` (not yet running)."""
    RETURN = "return"
    """The job is taken back from the local queue of `place` to the scheduler."""
    RESERVE = "reserve"
    """A reservation is made or moved: the job is promised a start at `at`."""
    START = "start"
    """The job (or task instance) starts or resumes executing on `place`."""
    PREEMPT = "preempt"
    """Execution on `place` stops; progress is kept."""
    MIGRATE = "migrate"
    """The (waiting or checkpointed) job moves to `place`."""
    FAIL = "fail"
    """Execution on `place` is lost (the resource went down); the job may retry."""
    CANCEL = "cancel"
    """An instance or copy on `place` is withdrawn (replica, multi-site copy)."""
    COMPLETE = "complete"
    """Finished: a task when `task` is set, else the whole job (terminal)."""
    KILL = "kill"
    """Killed on reaching its requested time (terminal)."""
    ABANDON = "abandon"
    """Failed and given up (terminal)."""
    UNSCHEDULABLE = "unschedulable"
    """Can never run on this system, e.g. larger than any machine (terminal)."""
    REJECT = "reject"
    """Rejected before simulation by a workload cleaning policy (terminal)."""
    LOG_CANCELLED = "cancelled_in_log"
    """Cancelled before it ran in the original trace (terminal)."""


class FinalState(enum.Enum):
    """How a job's life ended. Every job of a run ends in exactly one."""

    __hash__ = object.__hash__  # as for EventKind

    COMPLETED = "completed"
    KILLED_AT_LIMIT = "killed_at_limit"
    FAILED = "failed"
    UNSCHEDULABLE = "unschedulable"
    REJECTED = "rejected"
    CANCELLED_IN_LOG = "cancelled_in_log"


TERMINAL_STATES: Mapping[EventKind, FinalState] = {
    EventKind.COMPLETE: FinalState.COMPLETED,
    EventKind.KILL: FinalState.KILLED_AT_LIMIT,
    EventKind.ABANDON: FinalState.FAILED,
    EventKind.UNSCHEDULABLE: FinalState.UNSCHEDULABLE,
    EventKind.REJECT: FinalState.REJECTED,
    EventKind.LOG_CANCELLED: FinalState.CANCELLED_IN_LOG,
}
"""The final state each terminal event kind gives (`COMPLETE` only with `task=None`)."""

_SEGMENT_ENDS = frozenset(
    {EventKind.PREEMPT, EventKind.FAIL, EventKind.CANCEL, EventKind.COMPLETE, EventKind.KILL}
)


def _place(value: Iterable[int]) -> ProcessorSet:
    # Pass-through when already a set (the backfill path builds them from ranges).
    return value if type(value) is ProcessorSet else ProcessorSet(value)


def _event_tuple(value: Iterable[JobEvent]) -> tuple[JobEvent, ...]:
    return tuple(value)


def _outcome_tuple(value: Iterable[JobOutcome]) -> tuple[JobOutcome, ...]:
    return tuple(value)


def _any_tuple(value: Iterable[Any]) -> tuple[Any, ...]:
    return tuple(value)


@attrs.frozen(slots=True)
class JobEvent:
    """One entry of a run's log.

    Attributes
    ----------
    time
        When it happened.
    job
        The job concerned.
    kind
        What happened.
    place
        Where, as a [`ProcessorSet`][schedlib.place.ProcessorSet]: processor
        ids for a parallel job, the node, resource or processor for
        single-place models, empty when not placed. Any iterable of distinct
        ids `>= 0` is accepted (`(node,)`, `range(4)`, `"0-3"`) and kept as
        ranges; the set compares equal to the tuple of its ids.
    task
        Task index for task-level events of multi-task jobs, else `None`.
    detail
        Free text: a reason for `UNSCHEDULABLE`/`REJECT`, the origin of a
        migration, ...
    at
        For `RESERVE`: the start time promised; else `None`.

    Examples
    --------
    >>> JobEvent(5, 1, EventKind.START, (0, 1)).place
    ProcessorSet('0-1')
    >>> JobEvent(5, 1, EventKind.START, (0, 1)).place == (0, 1)
    True
    >>> JobEvent(0, 2, EventKind.RESERVE, at=3600).at
    3600
    """

    time: Time
    job: JobId
    kind: EventKind
    place: ProcessorSet = attrs.field(default=ProcessorSet(), converter=_place)
    task: int | None = None
    detail: str = ""
    at: Time | None = None


def _trusted_event_builder() -> Callable[..., JobEvent]:
    new = object.__new__
    empty = ProcessorSet()
    set_time, set_job, set_kind, set_place, set_task, set_detail, set_at = (
        JobEvent.__dict__[field.name].__set__ for field in attrs.fields(JobEvent)
    )

    def trusted_event(
        time: Time, job: JobId, kind: EventKind, place: ProcessorSet = empty
    ) -> JobEvent:
        """Build a [`JobEvent`][schedlib.model.JobEvent] without task, detail or `at`, skipping the conversion.

        For models that log millions of entries (backfilling): the result
        equals `JobEvent(time, job, kind, place)` (same equality, hash, repr
        and pickle) at about 60 % of its cost. The caller guarantees that
        `place` is a [`ProcessorSet`][schedlib.place.ProcessorSet]. Not part
        of the public API.

        Parameters
        ----------
        time, job, kind, place
            The first four fields of [`JobEvent`][schedlib.model.JobEvent];
            `task` is `None`, `detail` empty and `at` `None`.

        Returns
        -------
        JobEvent
            The entry.

        Notes
        -----
        Complexity: $O(1)$; it writes the slots directly, as a frozen
        instance cannot be assigned to.

        Examples
        --------
        >>> trusted_event(5, 1, EventKind.START, ProcessorSet("0-3")) == JobEvent(5, 1, EventKind.START, range(4))
        True
        """  # noqa: E501
        entry: JobEvent = new(JobEvent)
        set_time(entry, time)
        set_job(entry, job)
        set_kind(entry, kind)
        set_place(entry, place)
        set_task(entry, None)
        set_detail(entry, "")
        set_at(entry, None)
        return entry

    return trusted_event


trusted_event = _trusted_event_builder()


@attrs.frozen(slots=True)
class JobOutcome:
    """What became of one job: a summary of its log entries.

    Attributes
    ----------
    job
        The job's id.
    submit
        Submission time.
    procs
        Processing units held while executing.
    requested_time
        The job's estimate, if it has one.
    state
        Final state, or `None` if the log has no terminal event for the job
        (a correct run never produces that; the invariant checkers report it).
    reason
        The terminal event's detail (why a job was rejected, ...).
    start
        First start, or `None` if it never ran.
    end
        Time of the terminal event, or `None`.
    executed
        Total time spent executing, summed over segments (and over task
        instances for multi-task jobs).
    place
        Place of the last start (a [`ProcessorSet`][schedlib.place.ProcessorSet];
        empty if it never started).
    preemptions, migrations, failures
        Counts of those events.
    """

    job: JobId
    submit: Time
    procs: int
    requested_time: Time | None
    state: FinalState | None
    reason: str
    start: Time | None
    end: Time | None
    executed: Time
    place: ProcessorSet = attrs.field(converter=_place)
    preemptions: int
    migrations: int
    failures: int


def _pairs(value: Mapping[str, Any] | Iterable[tuple[str, Any]]) -> tuple[tuple[str, Any], ...]:
    items = value.items() if isinstance(value, Mapping) else value
    return tuple(sorted((str(k), v) for k, v in items))


@attrs.frozen(slots=True)
class RunRecord:
    """The immutable record of one simulation run.

    Attributes
    ----------
    algorithm
        Name of the scheduler that ran (e.g. `"easy"`).
    workload
        The input jobs, in input order (any [`JobLike`][schedlib.model.JobLike]).
    capacity
        Processing units of the system (for utilisation).
    events
        The log, in the order things happened.
    outcomes
        One [`JobOutcome`][schedlib.model.JobOutcome] per input job, in input order.
    parameters
        Every other input of the run as sorted `(name, value)` pairs.
    seed
        The random seed, if the run used randomness.

    Notes
    -----
    Build records with [`RunRecord.from_log`][schedlib.model.RunRecord.from_log],
    which derives the outcomes from the log.
    """

    algorithm: str
    workload: tuple[Any, ...] = attrs.field(converter=_any_tuple)
    capacity: int
    events: tuple[JobEvent, ...] = attrs.field(converter=_event_tuple)
    outcomes: tuple[JobOutcome, ...] = attrs.field(converter=_outcome_tuple)
    parameters: tuple[tuple[str, Any], ...] = attrs.field(default=(), converter=_pairs)
    seed: int | None = None

    @classmethod
    def from_log(
        cls,
        algorithm: str,
        workload: Iterable[Any],
        events: Iterable[JobEvent],
        *,
        capacity: int,
        parameters: Mapping[str, Any] | None = None,
        seed: int | None = None,
    ) -> RunRecord:
        """Build a record, deriving each job's outcome from the log.

        Parameters
        ----------
        algorithm
            Scheduler name.
        workload
            Input jobs, any objects with `id` and `submit` (and optionally
            `procs`, `requested_time`).
        events
            The log.
        capacity
            Processing units of the system.
        parameters
            Other inputs of the run.
        seed
            Random seed, if any.

        Returns
        -------
        RunRecord
            The record. Log entries for jobs not in `workload` are kept in
            `events` but get no outcome (the invariant checkers report them).

        Notes
        -----
        Complexity: $O(n + e)$ for $n$ jobs and $e$ log entries.

        Examples
        --------
        >>> jobs = [Job(id=1, submit=0, procs=2, requested_time=10, runtime=5)]
        >>> log = [JobEvent(0, 1, EventKind.SUBMIT), JobEvent(3, 1, EventKind.START, (0, 1)),
        ...        JobEvent(8, 1, EventKind.COMPLETE, (0, 1))]
        >>> record = RunRecord.from_log("fcfs", jobs, log, capacity=4)
        >>> out = record.outcomes[0]
        >>> (out.state.value, out.start, out.end, out.executed)
        ('completed', 3, 8, 5)
        """
        jobs = tuple(workload)
        log = tuple(events)
        with paused_gc():  # one outcome per job, none in a cycle (see schedlib.collector)
            outcomes = _derive_outcomes(jobs, log)
        return cls(
            algorithm=algorithm,
            workload=jobs,
            capacity=capacity,
            events=log,
            outcomes=outcomes,
            parameters=parameters or {},
            seed=seed,
        )

    @classmethod
    def from_schedule(
        cls,
        jobs: Iterable[Any],
        starts: Mapping[JobId, Time],
        ends: Mapping[JobId, Time],
        places: Mapping[JobId, Iterable[int]] | None = None,
        *,
        capacity: int,
        killed: Iterable[JobId] = (),
        algorithm: str = "external",
        parameters: Mapping[str, Any] | None = None,
    ) -> RunRecord:
        r"""Turn another scheduler's output (start and end per job) into a record for the checkers.

        Parameters
        ----------
        jobs
            The input jobs (anything with `id` and `submit`, and `procs` /
            `requested_time` where known), e.g. [`Job`][schedlib.model.Job]s.
        starts, ends
            When each job started and ended. A job with a start but no end
            gets no terminal event, and a job with neither is only submitted:
            [`check_every_job_accounted`][schedlib.testing.invariants.check_every_job_accounted]
            then reports it — nothing is filled in for the scheduler.
        places
            The processor ids each job ran on, where the scheduler says; jobs
            not in it start on no place (check capacity by counts then).
        capacity
            Processors of the machine.
        killed
            Jobs that were killed at their requested time rather than completed.
        algorithm, parameters
            Stored in the record.

        Returns
        -------
        RunRecord
            One `SUBMIT`, `START` and `COMPLETE` (or `KILL`) per job, in time
            order; at equal times ends come before submissions and
            submissions before starts (intervals are half-open), and a
            zero-length job ends right after its own start.

        Raises
        ------
        InvalidValueError
            If `starts`, `ends`, `places` or `killed` name a job that is not in
            `jobs`, a job id appears twice, an end has no start, a time is
            not a finite number, or a place names a processor twice or one
            that is negative.

        Notes
        -----
        The record describes what the other scheduler says happened; it is
        not checked here — that is what the checkers are for. Complexity:
        $O(n \log n)$ for $n$ jobs.

        Examples
        --------
        >>> jobs = [Job(1, 0, 2, 100, 50), Job(2, 10, 4, 100, 30)]
        >>> record = RunRecord.from_schedule(jobs, {1: 0, 2: 50}, {1: 50, 2: 80},
        ...                                  {1: (0, 1), 2: (0, 1, 2, 3)}, capacity=4)
        >>> [(e.time, e.job, e.kind.value) for e in record.events]
        [(0, 1, 'submit'), (0, 1, 'start'), (10, 2, 'submit'), (50, 1, 'complete'), (50, 2, 'start'), (80, 2, 'complete')]
        >>> [o.state.value for o in record.outcomes]
        ['completed', 'completed']
        """  # noqa: E501
        workload = tuple(jobs)
        ids: set[JobId] = set()
        for job in workload:
            if job.id in ids:
                raise InvalidValueError("jobs", job.id, "job id appears twice")
            ids.add(job.id)
        stopped = frozenset(killed)
        place_of: dict[JobId, ProcessorSet] = {}
        for job_id, where in (places or {}).items():
            try:
                place_of[job_id] = ProcessorSet(where)
            except InvalidValueError as error:
                raise InvalidValueError(f"places[{job_id}]", error.value, error.reason) from None
        for name, given in (("starts", starts), ("ends", ends), ("places", place_of)):
            for job_id in given:
                if job_id not in ids:
                    raise InvalidValueError(name, job_id, "names a job that is not in jobs")
        for job_id in stopped - ids:
            raise InvalidValueError("killed", job_id, "names a job that is not in jobs")
        for name, times in (("starts", starts), ("ends", ends)):
            for job_id, t in times.items():
                if not isinstance(t, (int, float)) or not math.isfinite(t):
                    raise InvalidValueError(f"{name}[{job_id}]", t, "must be a finite number")
        for job_id in ends:
            if job_id not in starts:
                raise InvalidValueError("ends", job_id, "the job ends but never starts")
        # At one instant: ends, then submissions, then the starts of zero-length jobs, each
        # followed by its own end, then the other starts (intervals are half-open).
        keyed: list[tuple[Time, int, int, int, JobEvent]] = []
        for position, job in enumerate(workload):
            submit = JobEvent(job.submit, job.id, EventKind.SUBMIT)
            keyed.append((job.submit, 1, position, 0, submit))
            if job.id not in starts:
                continue
            where = place_of.get(job.id, ())
            began = starts[job.id]
            instant = job.id in ends and ends[job.id] == began
            order = 2 if instant else 3
            keyed.append(
                (began, order, position, 0, JobEvent(began, job.id, EventKind.START, where))
            )
            if job.id in ends:
                kind = EventKind.KILL if job.id in stopped else EventKind.COMPLETE
                t = ends[job.id]
                end = JobEvent(t, job.id, kind, where)
                keyed.append((t, 2, position, 1, end) if instant else (t, 0, position, 0, end))
        keyed.sort(key=lambda item: item[:4])
        return cls.from_log(
            algorithm,
            workload,
            [event for *_, event in keyed],
            capacity=capacity,
            parameters=parameters,
        )

    def parameter(self, name: str, default: Any = None) -> Any:
        """The value of one run parameter, or `default`.

        Examples
        --------
        >>> RunRecord.from_log("x", [], [], capacity=1, parameters={"a": 1}).parameter("a")
        1
        """
        for key, value in self.parameters:
            if key == name:
                return value
        return default

    def outcome_map(self) -> dict[JobId, JobOutcome]:
        """Outcomes keyed by job id (a new dict on each call)."""
        return {o.job: o for o in self.outcomes}


def _derive_outcomes(jobs: tuple[Any, ...], log: tuple[JobEvent, ...]) -> tuple[JobOutcome, ...]:
    ledger = OutcomeLedger()
    acc = ledger._acc
    for job in jobs:  # a repeated id shares one ledger (the checkers report it)
        acc[job.id] = [job, None, "", None, None, 0, (), 0, 0, 0]
    feed = ledger.feed
    for event in log:
        feed(event)
    return tuple([_outcome(job, acc[job.id]) for job in jobs])


def _outcome(job: Any, a: list[Any]) -> JobOutcome:
    return JobOutcome(
        job.id, job.submit, getattr(job, "procs", 1), getattr(job, "requested_time", None), *a[1:]
    )


class OutcomeLedger:
    """Each job's outcome, built from its log entries as they come (for runs read as a stream).

    [`RunRecord.from_log`][schedlib.model.RunRecord.from_log] feeds a whole
    log to one; a streaming run feeds the entries as they happen and gets
    each job's [`JobOutcome`][schedlib.model.JobOutcome] by closing it at
    its terminal entry (the ledger then forgets it: memory stays bounded by
    the jobs in the system).

    Notes
    -----
    Per job: `start` is the first `START`, `place` the last one's, `executed`
    sums every segment from a `START` to the `PREEMPT`, `FAIL`, `CANCEL`,
    `COMPLETE` or `KILL` of the same job, task and place; the terminal entry
    gives `state`, `end` and `reason`. A job-level execution (`task=None`)
    stopped by `CANCEL` is withdrawn, not paused (a multi-site copy stopped
    for a faster one): the job's next `START` becomes its `start`, the start
    of the execution that completes (the cancelled one stays in the log and
    in `executed`). Entries of jobs never opened are ignored. Complexity:
    $O(1)$ per entry.

    Examples
    --------
    >>> ledger = OutcomeLedger()
    >>> _ = ledger.open(Job(1, 0, 2, 10, 5))
    >>> ledger.feed(JobEvent(0, 1, EventKind.START, (0, 1)))
    False
    >>> ledger.feed(JobEvent(5, 1, EventKind.COMPLETE, (0, 1)))
    True
    >>> out = ledger.close(1)
    >>> (out.state.value, out.start, out.end, out.executed), ledger.open_jobs
    (('completed', 0, 5, 5), 0)
    """

    __slots__ = ("_acc", "_restarted", "_segments")

    def __init__(self) -> None:
        # Per job, in JobOutcome's field order after requested_time, behind the job itself:
        # [job, state, reason, start, end, executed, place, preemptions, migrations, failures]
        self._acc: dict[JobId, list[Any]] = {}
        # Segments keyed by the place's bounds: equal for equal places, hashed in O(ranges).
        self._segments: dict[tuple[JobId, int | None, tuple[int, ...]], Time] = {}
        # Jobs whose job-level execution was cancelled: their next START is their start.
        self._restarted: set[JobId] = set()

    @property
    def open_jobs(self) -> int:
        """Jobs opened and not yet ended."""
        return len(self._acc)

    def open(self, job: Any) -> list[Any]:
        """Start the ledger of `job` (anything with `id` and `submit`); its accumulator.

        Raises
        ------
        InvalidValueError
            If a job with the same id is open.
        """
        if job.id in self._acc:
            raise InvalidValueError("job id", job.id, "a job with this id is already in the run")
        entry = [job, None, "", None, None, 0, (), 0, 0, 0]
        self._acc[job.id] = entry
        return entry

    def feed(self, event: JobEvent) -> bool:
        """Account one log entry; whether it is its job's terminal entry."""
        kind = event.kind
        if kind is _SUBMIT:
            return False
        a = self._acc.get(event.job)
        if a is None:
            return False
        if kind is _START:
            self._segments[(event.job, event.task, event.place.bounds)] = event.time
            if a[3] is None:
                a[3] = event.time
            elif self._restarted and event.job in self._restarted:
                self._restarted.discard(event.job)
                a[3] = event.time
            a[6] = event.place
            return False
        if kind in _SEGMENT_ENDS:
            began = self._segments.pop((event.job, event.task, event.place.bounds), None)
            if began is not None:
                a[5] += event.time - began
                if kind is _CANCEL and event.task is None:
                    self._restarted.add(event.job)
            if kind is _COMPLETE:
                if event.task is not None:
                    return False
                a[4], a[1], a[2] = event.time, _COMPLETED, event.detail
                return True
        if kind is EventKind.PREEMPT:
            a[7] += 1
        elif kind is EventKind.MIGRATE:
            a[8] += 1
        elif kind is EventKind.FAIL:
            a[9] += 1
        elif kind in TERMINAL_STATES:
            a[4], a[1], a[2] = event.time, TERMINAL_STATES[kind], event.detail
            return True
        return False

    def close(self, job: JobId) -> JobOutcome:
        """The outcome of `job` as accounted so far; the ledger forgets the job.

        Raises
        ------
        KeyError
            If `job` is not open.
        """
        a = self._acc.pop(job)
        self._restarted.discard(job)
        return _outcome(a[0], a)


_SUBMIT, _START, _COMPLETE = EventKind.SUBMIT, EventKind.START, EventKind.COMPLETE
_CANCEL = EventKind.CANCEL
_COMPLETED = FinalState.COMPLETED
