"""Prepare SWF records for simulation: an explicit, named cleaning policy.

Real archive logs are full of records a simulator cannot run as they are:
jobs cancelled before they started, unknown processor counts or estimates,
runtimes above the requested time, zero runtimes, submit times out of order.
The parsing layer ([`schedlib.workloads.swf`][schedlib.workloads.swf]) keeps
them all; this module decides, record by record, under a
[`CleaningPolicy`][schedlib.workloads.cleaning.CleaningPolicy], whether each
becomes a [`Job`][schedlib.model.Job] (possibly adjusted) or an
[`ExcludedJob`][schedlib.workloads.cleaning.ExcludedJob] with its final state
and reason, and counts every change in a
[`CleaningReport`][schedlib.workloads.cleaning.CleaningReport]. Nothing is
dropped: every record read is either a job or an excluded job.

The rules, applied in this order (the first that excludes a record gives its
reason):

1. submit time unknown (field 2 = -1) -> `REJECTED`;
2. status 5 (cancelled) with runtime <= 0 -> `CANCELLED_IN_LOG` (cancelled
   before it ran); a cancelled job that ran (runtime > 0) is simulated for its
   logged runtime and counted in `cancelled_while_running`;
3. runtime unknown (field 4 = -1) -> `REJECTED`;
4. processors: the requested count (field 8) by default, the allocated count
   (field 5) when the request is unknown, the CTC-SP2 case (counted in
   `procs_fallback`; `procs_from="allocated"` reverses the preference); both
   unknown -> `REJECTED`;
5. more processors than the machine -> `REJECTED`, naming both numbers;
6. runtime 0 -> 1 s (`zero_runtime="one_second"`, default) or kept at 0;
7. requested time unknown (field 9 <= 0) -> the runtime, i.e. an exact
   estimate (`unknown_requested_time="runtime"`, default) or `REJECTED`;
8. runtime above the requested time: with `over_limit="kill"` (default) both
   stay as they are and the simulator kills the job when it reaches its
   requested time (final state `KILLED_AT_LIMIT`); with `"extend"` the
   requested time is raised to the runtime;
9. the jobs (and the excluded jobs) are sorted by `(submit, id)`, a stable
   sort; records whose submit time is earlier than the previous known one are
   counted in `out_of_order`.

**The pyss rules** (`CleaningPolicy.named("pyss")`, `rules="pyss"`) are the
cleaning of the Hebrew University's pyss simulator (its `_job_input_to_job`,
`src/base/prototype.py`), for comparing start times job by job with it. No
record is excluded; with $N$ processors:

- a record with runtime $\\le 0$, allocated processors (field 5) $\\le 0$ or
  submit $< 0$ becomes a 1-second job: requested time 1, runtime 1,
  processors $\\max(1, \\text{allocated})$ (at most $N$: pyss cannot run a
  wider one), submit $\\max(\\text{submit}, 1)$ (counted in `one_second`);
- every other record: requested time $\\max(d, r, 1)$, runtime
  $\\max(\\min(d, r), 1)$, processors $\\max(\\min(\\text{allocated}, N), 1)$
  from field 5 ($d$ the request, field 9; $r$ the runtime, field 4). A job
  over its request runs for the request and reserves its runtime (counted
  in `over_limit`); a missing request ($d = -1$) gives runtime 1 and
  requested time $r$ (counted in `requested_time_from_runtime`); a job
  wider than the machine is narrowed to $N$ (counted in `procs_capped`);
- then the sort of rule 9.

Examples
--------
>>> from schedlib.workloads.swf import SWFReader, SWFRecord
>>> def rec(job, submit, runtime, procs, requested, status=1):
...     return SWFRecord(job, submit, 0, runtime, procs, -1, -1, procs, requested, -1,
...                      status, 1, 1, -1, -1, -1, -1, -1)
>>> result = clean([rec(1, 0, 100, 4, 50), rec(2, 5, -1, -1, 60, status=5),
...                 rec(3, 9, 0, 2, 10)], processors=8)
>>> [(j.id, j.runtime, j.requested_time) for j in result.jobs]
[(1, 100, 50), (3, 1, 10)]
>>> [(x.id, x.state.value, x.reason) for x in result.excluded]
[(2, 'cancelled_in_log', 'cancelled before it ran (status 5, runtime -1)')]
>>> (result.report.over_limit, result.report.zero_runtime, result.report.cancelled_in_log)
(1, 1, 1)
"""

from __future__ import annotations

import heapq
import math
import operator
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from itertools import chain, compress
from typing import Any, Literal

import attrs

from schedlib.errors import InvalidValueError, WorkloadFormatError
from schedlib.model import FinalState, Job, JobId, Time, trusted_instances, trusted_job
from schedlib.validation import at_least, finite_at_least, one_of, require
from schedlib.workloads.swf import SWFReader, SWFRecord

__all__ = [
    "CLEANINGS",
    "CleanedJobs",
    "CleaningPolicy",
    "CleaningReport",
    "ExcludedJob",
    "clean",
]

OverLimit = Literal["kill", "extend"]
UnknownRequestedTime = Literal["runtime", "reject"]
ZeroRuntime = Literal["one_second", "keep"]
ProcsFrom = Literal["requested", "allocated"]
Rules = Literal["schedlib", "pyss"]

CLEANINGS: dict[str, Rules] = {"default": "schedlib", "pyss": "pyss"}
"""Named cleaning policies (for `--cleaning`): name -> `CleaningPolicy.rules`."""


@attrs.frozen(slots=True)
class CleaningPolicy:
    """How SWF records become simulated jobs. Every rule is explicit here.

    Attributes
    ----------
    over_limit
        Jobs whose runtime exceeds their requested time: `"kill"` (default)
        keeps both and the simulator kills the job at its requested time
        (final state `KILLED_AT_LIMIT`); `"extend"` raises the requested time
        to the runtime.
    unknown_requested_time
        Records with no requested time (field 9 <= 0): `"runtime"` (default)
        uses the runtime as the estimate (an exact estimate); `"reject"`
        excludes them (`REJECTED`).
    zero_runtime
        Records with runtime 0: `"one_second"` (default) runs them for 1 s
        (the log rounds to whole seconds; a 0-s job would start and end at
        the same instant); `"keep"` runs them for 0 s.
    procs_from
        Which processor count a job asks for: `"requested"` (field 8,
        default; what the scheduler knew at submission) falling back to
        `"allocated"` (field 5) when unknown, or the reverse.
    rules
        `"schedlib"` (default): the rules above. `"pyss"`: the pyss
        simulator's cleaning (see the module documentation); the four fields
        above must then keep their defaults, since pyss's rules fix them all.
        [`CleaningPolicy.named`][schedlib.workloads.cleaning.CleaningPolicy.named]
        gives both by name.

    Examples
    --------
    >>> CleaningPolicy()
    CleaningPolicy(over_limit='kill', unknown_requested_time='runtime', zero_runtime='one_second', procs_from='requested', rules='schedlib')
    >>> CleaningPolicy(over_limit="cap")
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: CleaningPolicy.over_limit = 'cap': must be one of kill, extend
    """  # noqa: E501

    over_limit: OverLimit = attrs.field(default="kill", validator=one_of("kill", "extend"))
    unknown_requested_time: UnknownRequestedTime = attrs.field(
        default="runtime", validator=one_of("runtime", "reject")
    )
    zero_runtime: ZeroRuntime = attrs.field(
        default="one_second", validator=one_of("one_second", "keep")
    )
    procs_from: ProcsFrom = attrs.field(
        default="requested", validator=one_of("requested", "allocated")
    )
    rules: Rules = attrs.field(default="schedlib", validator=one_of(*CLEANINGS.values()))

    def __attrs_post_init__(self) -> None:
        if self.rules == "pyss":
            for field in attrs.fields(CleaningPolicy)[:4]:
                value = getattr(self, field.name)
                if value != field.default:
                    raise InvalidValueError(
                        f"CleaningPolicy.{field.name}",
                        value,
                        f"must stay {field.default!r} with rules='pyss' (pyss's rules fix it)",
                    )

    @classmethod
    def named(cls, name: str) -> CleaningPolicy:
        """The policy called `name`: `"default"` (ours) or `"pyss"` (the pyss simulator's).

        Raises
        ------
        InvalidValueError
            For another name, listing the valid ones.

        Examples
        --------
        >>> CleaningPolicy.named("pyss").rules
        'pyss'
        >>> CleaningPolicy.named("default") == CleaningPolicy()
        True
        """
        if name not in CLEANINGS:
            raise InvalidValueError("cleaning", name, f"must be one of {', '.join(CLEANINGS)}")
        return cls(rules=CLEANINGS[name])


@attrs.frozen(slots=True)
class ExcludedJob:
    """A record that is not simulated, and why.

    The simulator logs each one as `SUBMIT` then `REJECT` or `LOG_CANCELLED`
    at its submit time, so that it appears in the per-job output.

    Attributes
    ----------
    id
        The job number.
    submit
        Submit time; for a record whose submit time is unknown, the last known
        submit time before it in the file (0 if none), so it is logged where
        it appears.
    procs
        Processors it asked for (by the policy's `procs_from` rule); 0 when
        unknown.
    requested_time
        Its requested time, or `None` when unknown.
    state
        `FinalState.REJECTED` or `FinalState.CANCELLED_IN_LOG`.
    reason
        Why, naming the field and value (e.g. `"runtime unknown (field 4 = -1)"`).
    """

    id: JobId = attrs.field(validator=at_least(0))
    submit: Time = attrs.field(validator=finite_at_least(0))
    procs: int = attrs.field(validator=at_least(0))
    requested_time: Time | None
    state: FinalState = attrs.field(
        validator=one_of(FinalState.REJECTED, FinalState.CANCELLED_IN_LOG)
    )
    reason: str


@attrs.frozen(slots=True)
class CleaningReport:
    """What a cleaning pass did, rule by rule.

    `records == jobs + cancelled_in_log + rejected`: every record read is
    accounted for.

    Attributes
    ----------
    policy
        The policy applied.
    processors
        The machine size jobs were checked against (`None`: no limit).
    records
        Records in.
    jobs
        Jobs out (simulated).
    cancelled_in_log
        Records cancelled before they ran (status 5, runtime <= 0): excluded.
    rejected_unknown_submit, rejected_unknown_runtime, rejected_unknown_procs
        Records rejected because field 2, field 4, or both fields 5 and 8
        are unknown.
    rejected_unknown_requested_time
        Records rejected for having no requested time (only with
        `unknown_requested_time="reject"`).
    rejected_oversized
        Records asking for more processors than the machine has.
    procs_fallback
        Jobs whose preferred processor field was unknown, so the other one
        was used (requested unknown -> allocated, by default).
    requested_time_from_runtime
        Jobs with no requested time that got their runtime as the estimate.
    zero_runtime
        Jobs with runtime 0 (run for 1 s, or kept at 0, by the policy).
    over_limit
        Jobs whose runtime exceeds their requested time: to be killed at
        the limit (`"kill"`) or whose estimate was raised (`"extend"`).
    cancelled_while_running
        Jobs with status 5 that ran (runtime > 0): simulated for their
        logged runtime.
    out_of_order
        Records whose submit time is earlier than the previous known one
        (the stable sort by `(submit, id)` put them in place).
    one_second
        pyss rules only: records with runtime <= 0, allocated processors
        <= 0 or submit < 0, run as 1-second jobs.
    procs_capped
        pyss rules only: jobs wider than the machine, narrowed to it.
    """

    policy: CleaningPolicy
    processors: int | None
    records: int
    jobs: int
    cancelled_in_log: int = 0
    rejected_unknown_submit: int = 0
    rejected_unknown_runtime: int = 0
    rejected_unknown_procs: int = 0
    rejected_unknown_requested_time: int = 0
    rejected_oversized: int = 0
    procs_fallback: int = 0
    requested_time_from_runtime: int = 0
    zero_runtime: int = 0
    over_limit: int = 0
    cancelled_while_running: int = 0
    out_of_order: int = 0
    one_second: int = 0
    procs_capped: int = 0

    @property
    def rejected(self) -> int:
        """Records rejected, for any reason."""
        return (
            self.rejected_unknown_submit
            + self.rejected_unknown_runtime
            + self.rejected_unknown_procs
            + self.rejected_unknown_requested_time
            + self.rejected_oversized
        )

    @property
    def excluded(self) -> int:
        """Records not simulated: cancelled in the log or rejected."""
        return self.cancelled_in_log + self.rejected

    def summary(self) -> str:
        """One line: records in, jobs out, and every exclusion and adjustment with its count.

        Examples
        --------
        >>> r = CleaningReport(CleaningPolicy(), 128, 10, 7, cancelled_in_log=2,
        ...                    rejected_oversized=1, over_limit=3)
        >>> print(r.summary())
        10 records -> 7 jobs; excluded: 2 cancelled in the log, 1 wider than the machine (128 processors); adjusted: 3 over their requested time (killed at the limit)
        """  # noqa: E501
        excluded = [
            (self.cancelled_in_log, "cancelled in the log"),
            (self.rejected_unknown_submit, "unknown submit time"),
            (self.rejected_unknown_runtime, "unknown runtime"),
            (self.rejected_unknown_procs, "unknown processor count"),
            (self.rejected_unknown_requested_time, "unknown requested time"),
            (
                self.rejected_oversized,
                f"wider than the machine ({self.processors} processors)",
            ),
        ]
        if self.policy.rules == "pyss":
            limit = "runtime cut to the request, request raised to the runtime"
        elif self.policy.over_limit == "kill":
            limit = "killed at the limit"
        else:
            limit = "request extended"
        adjusted = [
            (self.procs_fallback, "processor count taken from the other field"),
            (self.requested_time_from_runtime, "no requested time: runtime used"),
            (self.zero_runtime, "zero runtime"),
            (self.over_limit, f"over their requested time ({limit})"),
            (self.cancelled_while_running, "cancelled while running (simulated as logged)"),
            (self.out_of_order, "out of submit order (sorted)"),
            (self.one_second, "run as 1-second jobs (pyss rules)"),
            (self.procs_capped, "narrowed to the machine (pyss rules)"),
        ]
        line = f"{self.records} records -> {self.jobs} jobs"
        for title, items in (("excluded", excluded), ("adjusted", adjusted)):
            shown = [f"{count} {what}" for count, what in items if count]
            if shown:
                line += f"; {title}: " + ", ".join(shown)
        return line

    def as_dict(self) -> dict[str, Any]:
        """The counts as a flat dict (policy fields prefixed `policy_`), for tables.

        Examples
        --------
        >>> CleaningReport(CleaningPolicy(), 128, 0, 0).as_dict()["policy_over_limit"]
        'kill'
        """
        row: dict[str, Any] = {
            f"policy_{key}": value for key, value in attrs.asdict(self.policy).items()
        }
        for field in attrs.fields(CleaningReport):
            if field.name != "policy":
                row[field.name] = getattr(self, field.name)
        row["rejected"] = self.rejected
        row["excluded"] = self.excluded
        return row


@attrs.frozen(slots=True)
class CleanedJobs:
    """The result of [`clean`][schedlib.workloads.cleaning.clean].

    Attributes
    ----------
    jobs
        The jobs to simulate, sorted by `(submit, id)`.
    excluded
        The records not simulated, sorted by `(submit, id)`.
    report
        The counts.
    """

    jobs: tuple[Job, ...]
    excluded: tuple[ExcludedJob, ...]
    report: CleaningReport


_COUNTERS = (
    "cancelled_in_log",
    "rejected_unknown_submit",
    "rejected_unknown_runtime",
    "rejected_unknown_procs",
    "rejected_unknown_requested_time",
    "rejected_oversized",
    "procs_fallback",
    "requested_time_from_runtime",
    "zero_runtime",
    "over_limit",
    "cancelled_while_running",
    "out_of_order",
    "one_second",
    "procs_capped",
)


_submit_order = operator.attrgetter("submit", "id")

# The fields cleaning reads: by name on any record, by position in a reader's columns.
# `procs_from="allocated"` swaps the two processor counts: the preferred one comes first.
_USED = ("job_id", "submit", "runtime", "requested_procs", "allocated_procs", "requested_time",
         "status", "user", "group")  # fmt: skip
_SWAPPED = tuple(
    {"requested_procs": "allocated_procs", "allocated_procs": "requested_procs"}.get(name, name)
    for name in _USED
)
_UNKNOWN_AS_NONE = {-1: None}  # user and group: -1 (unknown) becomes None


def _columns(
    reader: SWFReader, procs_from: ProcsFrom, lines: bool = False
) -> Iterator[tuple[Any, ...]]:
    """The nine columns cleaning reads, a batch of records at a time: those of `_USED`
    (or `_SWAPPED`), already checked by the reader (integers, `>= 0` or `-1`); with
    `lines`, the records' line numbers as a tenth."""
    names = _USED if procs_from == "requested" else _SWAPPED
    positions = [SWFRecord._fields.index(name) for name in names]
    pick = operator.itemgetter(*positions, *([SWFRecord._fields.index("line")] if lines else []))
    return map(pick, reader.batches(positions))


def _unknown_or_zero(column: list[int]) -> list[int]:
    """Where `column` (values `>= -1`) holds -1 or 0, in order (C-level scans)."""
    if min(column) > 0:
        return []
    return _positions(column, -1) + _positions(column, 0)


def _positions(column: list[int], value: int) -> list[int]:
    """Where `value` stands in `column`, in order (C-level scans, one per hit)."""
    found: list[int] = []
    index, start = column.index, 0
    try:
        while True:
            start = index(value, start) + 1
            found.append(start - 1)
    except ValueError:
        return found


def _unknown_as_none(column: list[int]) -> list[int | None]:
    """A user or group column with `-1` (unknown) as `None`."""
    unknown = column.count(-1)
    if not unknown:
        return column  # type: ignore[return-value]
    if unknown == len(column):
        return [None] * unknown
    return list(map(_UNKNOWN_AS_NONE.get, column, column))


class _Cleaning:
    """A cleaning under our rules in progress: the counts, the jobs and excluded
    records so far, and what one record needs to know of those before it."""

    __slots__ = ("checked", "counts", "disorder", "excluded", "in_order", "jobs", "last_id",
                 "last_submit", "make_job", "policy", "processors")  # fmt: skip

    def __init__(self, processors: int | None, policy: CleaningPolicy, checked: bool) -> None:
        self.processors, self.policy, self.checked = processors, policy, checked
        self.make_job: Callable[..., Job] = trusted_job if checked else Job
        self.counts = dict.fromkeys(_COUNTERS, 0)
        self.jobs: list[Job] = []
        # ExcludedJob fields as tuples when checked (built in bulk at the end), else ExcludedJob
        self.excluded: list[Any] = []
        self.last_submit = 0  # the last known submit time; also the last record's time
        self.in_order, self.last_id = True, -1  # are the records sorted by (submit, id)?
        # the first record out of that order: (its id, its time, the previous id and time)
        self.disorder: tuple[JobId, Time, JobId, Time] | None = None

    def rows(self, rows: Iterable[tuple[Any, ...]]) -> None:
        """Rules 1-8, one record at a time, in file order."""
        policy, limit, checked, make_job = self.policy, self.processors, self.checked, self.make_job
        extend = policy.over_limit == "extend"
        keep_unknown_estimate = policy.unknown_requested_time == "runtime"
        zero_to_one = policy.zero_runtime == "one_second"
        most = math.inf if limit is None else limit
        counts, excluded = self.counts, self.excluded
        add_job = self.jobs.append
        last_submit, in_order, last_id = self.last_submit, self.in_order, self.last_id
        last_at = last_submit
        rejected, cancelled = FinalState.REJECTED, FinalState.CANCELLED_IN_LOG

        # `procs` is the preferred processor count (policy.procs_from), `other` the other one
        for job_id, submit, runtime, procs, other, requested, status, user, group in rows:
            fallback = procs <= 0 < other
            if fallback:
                procs = other

            # rules 1-5 and 7 (reject): the first that applies excludes the record
            at = submit
            if submit == -1:
                at, counter = last_submit, "rejected_unknown_submit"
                reason = "submit time unknown (field 2 = -1)"
            else:
                if submit < last_submit:
                    counts["out_of_order"] += 1
                last_submit = submit
                if runtime > 0 and 0 < procs <= most and (requested > 0 or keep_unknown_estimate):
                    counter = ""  # the common case: none of the rules below applies
                elif status == 5 and runtime <= 0:
                    counter = "cancelled_in_log"
                    reason = f"cancelled before it ran (status 5, runtime {runtime})"
                elif runtime == -1:
                    counter, reason = "rejected_unknown_runtime", "runtime unknown (field 4 = -1)"
                elif procs <= 0:
                    counter = "rejected_unknown_procs"
                    reason = "processor count unknown (fields 5 and 8 are both -1)"
                elif procs > most:
                    counter = "rejected_oversized"
                    reason = f"asks for {procs} processors; the machine has {limit}"
                elif requested <= 0 and not keep_unknown_estimate:
                    counter = "rejected_unknown_requested_time"
                    reason = f"requested time unknown (field 9 = {requested})"
                else:
                    counter = ""
            if at <= last_at and (at < last_at or job_id < last_id):
                if in_order:
                    self.disorder = (job_id, at, last_id, last_at)
                in_order = False
            last_at, last_id = at, job_id
            if counter:
                counts[counter] += 1
                state = cancelled if counter == "cancelled_in_log" else rejected
                estimate = requested if requested > 0 else None
                item = (job_id, at, max(procs, 0), estimate, state, reason)
                excluded.append(item if checked else ExcludedJob(*item))
                continue
            # 6. zero runtime
            if runtime == 0:
                counts["zero_runtime"] += 1
                if zero_to_one:
                    runtime = 1
            # 7. unknown requested time (when not rejected above)
            if requested <= 0:
                counts["requested_time_from_runtime"] += 1
                requested = runtime
            # 8. runtime above the requested time
            elif runtime > requested:
                counts["over_limit"] += 1
                if extend:
                    requested = runtime
            if fallback:
                counts["procs_fallback"] += 1
            if status == 5:
                counts["cancelled_while_running"] += 1
            add_job(
                make_job(
                    job_id,
                    submit,
                    procs,
                    requested,
                    runtime,
                    None if user == -1 else user,
                    None if group == -1 else group,
                )
            )
        self.last_submit, self.in_order, self.last_id = last_submit, in_order, last_id

    def batch(self, columns: tuple[Any, ...]) -> None:
        """Rules 1-8 for a batch of a reader's records, a column at a time.

        Applies when the batch is in `(submit, id)` order and follows the records
        before it (so no submit time is unknown or out of order): the jobs are built
        in bulk, and only the records some rule acts on, other than 8, the processor
        fallback and rule 7 when every requested time is unknown, go through
        [`rows`][schedlib.workloads.cleaning._Cleaning.rows] (their results replace
        theirs in the bulk). Any other batch goes through `rows` whole. Job numbers
        are unique (the reader checks it)."""
        ids, submits, runtimes, procs, other, requested, status, users, groups = columns
        s0, last = submits[0], self.last_submit
        if (
            type(ids) is not list
            or s0 < last
            or (s0 == last and ids[0] < self.last_id)
            or submits != sorted(submits)
            or ids != sorted(ids)
        ):
            self.rows(zip(*columns, strict=True))
            return
        policy, counts = self.policy, self.counts
        most = math.inf if self.processors is None else self.processors
        odd = set(_unknown_or_zero(runtimes))  # records a rule acts on
        unknown = _unknown_or_zero(procs)  # rule 4: the other count instead
        if len(unknown) == len(ids):
            chosen = other
        elif unknown:
            chosen = procs.copy()
            deque(map(chosen.__setitem__, unknown, map(other.__getitem__, unknown)), 0)
        else:
            chosen = procs
        odd.update(_unknown_or_zero(chosen))
        if max(chosen) > most:
            odd.update(i for i, count in enumerate(chosen) if count > most)
        estimates = requested
        from_runtime = max(requested) <= 0
        if from_runtime and policy.unknown_requested_time == "runtime":
            estimates = runtimes  # every requested time unknown: the runtime (rule 7)
        else:
            from_runtime = False
            odd.update(_unknown_or_zero(requested))
        order = sorted(odd)
        simple = len(ids) - len(order)
        if from_runtime:
            counts["requested_time_from_runtime"] += simple
        else:
            over = list(map(operator.gt, runtimes, estimates))
            count = over.count(True)
            if count:
                counts["over_limit"] += count - sum(over[i] for i in order)
                if policy.over_limit == "extend":
                    estimates = list(map(max, estimates, runtimes))
        if unknown:
            counts["procs_fallback"] += len(unknown) - len(odd.intersection(unknown))
        cancelled = status.count(5)
        if cancelled:
            counts["cancelled_while_running"] += cancelled - sum(status[i] == 5 for i in order)
        built = trusted_instances(
            Job,
            (ids, submits, chosen, estimates, runtimes, _unknown_as_none(users),
             _unknown_as_none(groups)),
        )  # fmt: skip
        if order:  # the rule chain decides these; its jobs take their places
            jobs = self.jobs
            before = len(jobs)
            self.rows(zip(*([column[i] for i in order] for column in columns), strict=True))
            made = {job.id: job for job in jobs[before:]}
            del jobs[before:]
            keep = bytearray(b"\x01") * len(ids)
            for i in order:
                job = made.get(ids[i])
                if job is None:
                    keep[i] = 0
                else:
                    built[i] = job
            if len(made) < len(order):
                built = list(compress(built, keep))
        self.jobs.extend(built)
        self.last_submit, self.last_id = submits[-1], ids[-1]

    def result(self) -> CleanedJobs:
        """Rule 9 and the report."""
        jobs, excluded = self.jobs, self.excluded
        if self.checked and excluded:
            excluded = trusted_instances(ExcludedJob, list(zip(*excluded, strict=True)))
        total = len(jobs) + len(excluded)
        report = CleaningReport(self.policy, self.processors, total, len(jobs), **self.counts)
        return _finish(jobs, excluded, self.in_order, report)


def _finish(
    jobs: list[Job],
    excluded: list[ExcludedJob],
    in_order: bool,
    report: CleaningReport,
) -> CleanedJobs:
    """Rule 9: the stable sort by `(submit, id)`, skipped when the records came in that order."""
    if not in_order:
        jobs.sort(key=_submit_order)
        excluded.sort(key=_submit_order)
    return CleanedJobs(tuple(jobs), tuple(excluded), report)


def clean(
    records: Iterable[SWFRecord],
    *,
    processors: int | None = None,
    policy: CleaningPolicy | None = None,
) -> CleanedJobs:
    """Turn SWF records into jobs to simulate and excluded jobs, by a policy.

    Parameters
    ----------
    records
        The records, in file order (any iterable, read once: a lazy reader
        works). An open [`SWFReader`][schedlib.workloads.swf.SWFReader] itself
        (not yet iterated) is read fastest: its records are checked as the file
        is read and come a column at a time, so the jobs are built in bulk
        without checking them again.
    processors
        The machine size: jobs asking for more are rejected. `None`: no limit.
    policy
        The cleaning policy (default: `CleaningPolicy()`).

    Returns
    -------
    CleanedJobs
        Jobs and excluded jobs, each sorted by `(submit, id)`, and the report.

    Raises
    ------
    InvalidValueError
        If `processors` is not an integer >= 1, or a record built in code
        makes a job `Job` refuses (e.g. a negative job number).

    Notes
    -----
    The rules and their order are listed in the module documentation.
    Complexity: $O(n \\log n)$ for $n$ records (the sort), $O(n)$ when
    already in order (then no sort is done).

    Examples
    --------
    >>> from schedlib.workloads.swf import SWFReader, SWFRecord
    >>> record = SWFRecord(1, 0, 0, 10, 64, -1, -1, 64, 20, -1, 1, 1, 1, -1, -1, -1, -1, -1)
    >>> clean([record], processors=32).excluded[0].reason
    'asks for 64 processors; the machine has 32'
    """
    if processors is not None:
        require(processors, "processors", at_least=1)
    policy = CleaningPolicy() if policy is None else policy
    reader = isinstance(records, SWFReader)
    if policy.rules == "pyss":
        if reader:
            columns = _columns(records, policy.procs_from)  # type: ignore[arg-type]
            rows: Iterable[tuple[Any, ...]] = chain.from_iterable(
                zip(*batch, strict=True) for batch in columns
            )
        else:
            rows = map(operator.attrgetter(*_USED), records)  # procs_from is "requested"
        return _clean_pyss(rows, trusted_job if reader else Job, processors, policy)
    cleaning = _Cleaning(processors, policy, reader)
    if reader:
        for batch in _columns(records, policy.procs_from):  # type: ignore[arg-type]
            cleaning.batch(batch)
    else:
        names = _USED if policy.procs_from == "requested" else _SWAPPED
        cleaning.rows(map(operator.attrgetter(*names), records))
    return cleaning.result()


def clean_in_order(
    reader: SWFReader,
    *,
    processors: int | None = None,
    policy: CleaningPolicy | None = None,
    report: list[CleaningReport] | None = None,
) -> Iterator[Job | ExcludedJob]:
    """Clean a reader's records as they are read: jobs and excluded jobs, in arrival order.

    The lazy form of [`clean`][schedlib.workloads.cleaning.clean] for a trace
    too long to hold: each batch of the reader is cleaned by the same rules and
    handed out at once, then forgotten. Rule 9 (the sort) becomes a check: the
    records must already be in `(submit, id)` order, as archive traces are.

    Parameters
    ----------
    reader
        An open [`SWFReader`][schedlib.workloads.swf.SWFReader], not yet iterated.
    processors, policy
        As for `clean`; only our rules (`policy.rules == "schedlib"`).
    report
        If given, the [`CleaningReport`][schedlib.workloads.cleaning.CleaningReport]
        is appended to it once the last record has been handed out.

    Yields
    ------
    Job or ExcludedJob
        Every record, cleaned, in file order (which is arrival order).

    Raises
    ------
    WorkloadFormatError
        When a record comes before the one read ahead of it in `(submit, id)`
        order, or has no submit time (it could not be placed without a sort);
        raised when the iteration reaches it.
    InvalidValueError
        For the pyss rules (they need the whole trace) or an invalid `processors`.

    Notes
    -----
    Memory: one batch of the reader. Complexity: $O(n)$ for $n$ records.

    Examples
    --------
    >>> import io
    >>> from schedlib.workloads.swf import SWFReader
    >>> rows = ["1 0 0 10 2 -1 -1 2 20 -1 1", "2 5 0 -1 2 -1 -1 2 20 -1 5"]
    >>> text = "".join(row + " 1 1 -1 -1 -1 -1 -1" + chr(10) for row in rows)
    >>> found = []
    >>> [(r.id, type(r).__name__) for r in clean_in_order(SWFReader(io.StringIO(text)), report=found)]
    [(1, 'Job'), (2, 'ExcludedJob')]
    >>> found[0].cancelled_in_log
    1
    """  # noqa: E501
    if processors is not None:
        require(processors, "processors", at_least=1)
    policy = CleaningPolicy() if policy is None else policy
    if policy.rules != "schedlib":
        raise InvalidValueError(
            "cleaning",
            policy.rules,
            "a trace cleaned as it is read follows our rules only (the pyss rules may "
            "move submit times and need the whole trace)",
        )
    cleaning = _Cleaning(processors, policy, True)
    jobs = excluded = 0
    for *batch, lines in _columns(reader, policy.procs_from, lines=True):
        cleaning.batch(tuple(batch))
        if cleaning.disorder is not None or cleaning.counts["rejected_unknown_submit"]:
            if cleaning.disorder is not None:
                job, at, before, then = cleaning.disorder
                what = f"job {job} (submit {at}) comes after job {before} (submit {then})"
                line, field, value = lines[batch[0].index(job)], "job_id", job
            else:
                what = "field 2 (submit) = -1: a record without a submit time"
                line, field, value = lines[batch[1].index(-1)], "submit", -1
            raise WorkloadFormatError(
                reader.source,
                line,
                f"{what}: a trace read as it runs must be in arrival order, (submit, id) "
                f"(read it whole instead: it is then sorted)",
                field=field,
                value=value,
            )
        made, left = cleaning.jobs, cleaning.excluded
        cleaning.jobs, cleaning.excluded = [], []
        jobs += len(made)
        if not left:
            yield from made
            continue
        out: list[Job | ExcludedJob] = trusted_instances(ExcludedJob, list(zip(*left, strict=True)))
        excluded += len(out)
        yield from heapq.merge(made, out, key=_submit_order)
    if report is not None:
        counts = cleaning.counts
        report.append(CleaningReport(policy, processors, jobs + excluded, jobs, **counts))


def _clean_pyss(
    rows: Iterable[tuple[Any, ...]],
    make_job: Callable[..., Job],
    processors: int | None,
    policy: CleaningPolicy,
) -> CleanedJobs:
    """The pyss simulator's cleaning (see the module documentation): every record runs."""
    counts = dict.fromkeys(_COUNTERS, 0)
    jobs: list[Job] = []
    add_job = jobs.append
    total = 0
    last_submit = 0
    in_order, last_at, last_id = True, 0, -1
    limit = processors
    for job_id, submit, runtime, _, allocated, requested, status, user, group in rows:
        total += 1
        if submit >= 0:
            if submit < last_submit:
                counts["out_of_order"] += 1
            last_submit = submit
        if status == 5 and runtime > 0:
            counts["cancelled_while_running"] += 1
        if runtime <= 0 or allocated <= 0 or submit < 0:
            counts["one_second"] += 1
            procs, estimate, runtime, submit = max(1, allocated), 1, 1, max(submit, 1)
        else:
            procs = max(allocated, 1)
            if requested < runtime:
                counts["over_limit" if requested > 0 else "requested_time_from_runtime"] += 1
            estimate, runtime = max(requested, runtime, 1), max(min(requested, runtime), 1)
        if limit is not None and procs > limit:
            counts["procs_capped"] += 1
            procs = limit
        if submit <= last_at and (submit < last_at or job_id < last_id):
            in_order = False
        last_at, last_id = submit, job_id
        add_job(
            make_job(
                job_id,
                submit,
                procs,
                estimate,
                runtime,
                None if user == -1 else user,
                None if group == -1 else group,
            )
        )
    report = CleaningReport(policy, processors, total, len(jobs), **counts)
    return _finish(jobs, [], in_order, report)
