"""Checkers over a schedule read from a file, for anyone's scheduler, at the scale of whole traces.

The other checkers of this package replay a [`RunRecord`][schedlib.model.RunRecord]
and stop at the first violation. These read a
[`Schedule`][schedlib.results.schedules.Schedule] (per-job submit, start, end,
processors and allocation, as `schedlib check` reads it from a Batsim-layout
CSV or an SWF trace) and *yield every* violation, in $O(n \\log n)$ time for
$n$ jobs whatever the machine size (allocations stay intervals of processor
ids). They check the same properties, with the same conventions: intervals of
execution are half-open $[b, e)$, so at one instant ends come before
submissions, submissions before starts; queue order is arrival order (submit
time, then job id); a running job's *planned end* is its start plus its
requested time.

| generator | kind | property |
|---|---|---|
| `accounting_violations` | `accounting` | each job id once |
| `lifecycle_violations` | `lifecycle` | not before submission; an end, after the start |
| `capacity_violations` | `capacity` | no processor used twice at once, nor outside the machine |
| `fcfs_violations` | `fcfs` | no job starts before an earlier-submitted one |
| `easy_head_violations` | `easy-head` | the first waiting job starts by its shadow time |
| `overtaking_violations` | `overtaking` | no job overtakes a smaller, earlier one |
| `uptime_violations` | `uptime` | every job ends by its processors' planned down time |

[`schedule_violations`][schedlib.testing.invariants.schedules.schedule_violations]
runs those that apply; [`CheckReport`][schedlib.testing.invariants.schedules.CheckReport]
collects them for `schedlib check`.

Examples
--------
>>> from schedlib.results.schedules import Schedule, ScheduledJob as J
>>> from schedlib.place import ProcessorSet as P
>>> ok = Schedule((J(1, 0, 2, 10, 0, 5, P("0-1")), J(2, 0, 2, 10, 5, 9, P("0-1"))))
>>> list(schedule_violations(ok, capacity=2, policy="fcfs"))
[]
>>> bad = Schedule((J(1, 0, 2, 10, 0, 5, P("0-1")), J(2, 0, 2, 10, 4, 9, P("1-2"))))
>>> [v.message for v in schedule_violations(bad, capacity=2)]  # doctest: +NORMALIZE_WHITESPACE
['job 2 runs on processor 2 at t=4, outside the machine of 2',
 'processor 1 oversubscribed at t=4: job 2 starts while job 1 runs there (until t=5)']
"""

from __future__ import annotations

import bisect
import heapq
import math
import operator
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import attrs

from schedlib.collector import paused_gc
from schedlib.errors import InvalidValueError
from schedlib.results.schedules import Schedule, ScheduledJob, UpTime
from schedlib.testing.invariants.event_order import InstantVerdict, explain_instant

__all__ = [
    "EVENT_ORDERS",
    "VIOLATION_KINDS",
    "CheckReport",
    "Violation",
    "accounting_violations",
    "capacity_violations",
    "check_report",
    "easy_head_violations",
    "fcfs_violations",
    "lifecycle_violations",
    "overtaking_violations",
    "schedule_violations",
    "uptime_violations",
]

VIOLATION_KINDS = (
    "accounting",
    "lifecycle",
    "capacity",
    "fcfs",
    "easy-head",
    "overtaking",
    "uptime",
)
"""The kinds of violation, in the order `schedlib check` reports them."""

EVENT_ORDERS = ("any", "fixed")
"""How [`easy_head_violations`][schedlib.testing.invariants.schedules.easy_head_violations] orders
the events of one instant: any order that explains the schedule, or one fixed order."""


@attrs.frozen(slots=True)
class Violation:
    """One broken invariant.

    Attributes
    ----------
    kind
        One of [`VIOLATION_KINDS`][schedlib.testing.invariants.schedules.VIOLATION_KINDS].
    message
        What is wrong, naming the jobs and times.
    jobs
        The jobs involved (the offending one first).
    time
        When it happened (s), if it happened at one instant.
    """

    kind: str
    message: str
    jobs: tuple[Any, ...] = ()
    time: float | None = None

    def as_dict(self) -> dict[str, Any]:
        """The violation as a JSON-ready dict."""
        return {
            "kind": self.kind,
            "message": self.message,
            "jobs": list(self.jobs),
            "time": self.time,
        }


_LOG_ORDER = operator.itemgetter(0, 1, 2, 3)
"""Sort key of the log tuples below: time, group, file position, phase."""


def _ran(schedule: Schedule) -> list[tuple[int, ScheduledJob]]:
    """(file position, job) of the jobs that started and ended."""
    return [
        (i, j) for i, j in enumerate(schedule.jobs) if j.start is not None and j.end is not None
    ]


def _key(job: ScheduledJob) -> tuple[Any, Any]:
    return (job.submit, job.id)


def accounting_violations(schedule: Schedule) -> Iterator[Violation]:
    """Each job id appears once.

    Notes
    -----
    Complexity: $O(n)$.

    Examples
    --------
    >>> from schedlib.results.schedules import ScheduledJob as J
    >>> [v.message for v in accounting_violations(Schedule((J(7, 0, 1, 5, 0, 5, line=2),
    ...                                                     J(7, 1, 1, 5, 5, 9, line=3))))]
    ['job id 7 appears twice (lines 2 and 3)']
    """
    seen: dict[Any, int] = {}
    for job in schedule.jobs:
        if job.id in seen:
            yield Violation(
                "accounting",
                f"job id {job.id} appears twice (lines {seen[job.id]} and {job.line})",
                (job.id,),
            )
        else:
            seen[job.id] = job.line


def lifecycle_violations(schedule: Schedule) -> Iterator[Violation]:
    """Every job starts no earlier than its submission, ends after it starts, and a job
    that starts ends (and one that ends started).

    A zero-length execution (end = start) is allowed. A job with neither start
    nor end never ran (rejected, cancelled): that is no violation.

    Notes
    -----
    Complexity: $O(n)$.
    """
    for job in schedule.jobs:
        if job.start is None:
            if job.end is not None:
                yield Violation(
                    "lifecycle",
                    f"job {job.id} ends at t={job.end} but never starts",
                    (job.id,),
                    job.end,
                )
            continue
        if job.start < job.submit:
            yield Violation(
                "lifecycle",
                f"job {job.id} starts at t={job.start}, {job.submit - job.start:g} s before "
                f"its submission at t={job.submit}",
                (job.id,),
                job.start,
            )
        if job.end is None:
            yield Violation(
                "lifecycle",
                f"job {job.id} starts at t={job.start} but never ends",
                (job.id,),
                job.start,
            )
        elif job.end < job.start:
            yield Violation(
                "lifecycle",
                f"job {job.id} ends at t={job.end}, before it starts at t={job.start}",
                (job.id,),
                job.end,
            )


def _events(ran: Sequence[tuple[int, ScheduledJob]]) -> list[tuple[Any, ...]]:
    """Start and end events in the order of the log: at one instant ends first, then
    the starts of zero-length jobs (each right followed by its end), then the other
    starts; file order within each group. Tuples (time, group, position, is_end, job)."""
    events: list[tuple[Any, ...]] = []
    for position, job in ran:
        if job.end == job.start:
            events.append((job.start, 1, position, 0, job))
            events.append((job.start, 1, position, 1, job))
        elif job.end > job.start:  # type: ignore[operator]
            events.append((job.start, 2, position, 0, job))
            events.append((job.end, 0, position, 1, job))
    events.sort(key=_LOG_ORDER)
    return events


def _unit_text(lo: int, hi: int) -> str:
    """Processors `lo .. hi - 1`, in words."""
    return f"processor {lo}" if hi == lo + 1 else f"processors {lo}-{hi - 1}"


def capacity_violations(schedule: Schedule, capacity: int) -> Iterator[Violation]:
    """No processor is used by two jobs at once, nor outside the machine.

    For jobs with an allocation: it names exactly `procs` distinct processors
    in `range(capacity)`, and no processor is held by two jobs at one instant
    (intervals half-open, so a processor freed at $t$ may be reused at $t$).
    When some job that ran has no allocation (e.g. an SWF trace), the check
    is by counts instead: at no instant do the running jobs hold more than
    `capacity` processors. Also, no job that ran is wider than the machine
    (one that never started was rightly rejected).

    Notes
    -----
    Complexity: $O((n + a) \\log (n + a))$ for $n$ jobs and $a$ allocation
    intervals, whatever the machine size (a sweep over time keeping the held
    intervals of processor ids sorted).
    """
    for job in schedule.jobs:
        if job.procs > capacity and job.start is not None:  # rejecting it is right
            yield Violation(
                "capacity",
                f"job {job.id} needs {job.procs} processors, more than the machine's {capacity}",
                (job.id,),
                job.start,
            )
    ran = [(i, j) for i, j in _ran(schedule) if j.end >= j.start]  # type: ignore[operator]
    by_counts = any(j.allocation is None for _, j in ran)
    for _, job in ran:
        allocation = job.allocation
        if allocation is None:
            continue
        if len(allocation) != job.procs:
            yield Violation(
                "capacity",
                f"job {job.id} holds {job.procs} processor(s) but runs on {len(allocation)} "
                f"at t={job.start}",
                (job.id,),
                job.start,
            )
        if allocation and allocation.ranges[-1][1] > capacity:
            yield Violation(
                "capacity",
                f"job {job.id} runs on processor {allocation.ranges[-1][1] - 1} at "
                f"t={job.start}, outside the machine of {capacity}",
                (job.id,),
                job.start,
            )
    if by_counts:
        yield from _count_violations(ran, capacity)
    else:
        yield from _overlap_violations(ran)


def _count_violations(
    ran: Sequence[tuple[int, ScheduledJob]], capacity: int
) -> Iterator[Violation]:
    used = 0
    running: dict[int, ScheduledJob] = {}  # by file position
    for time, _, position, is_end, job in _events(ran):
        if is_end:
            used -= job.procs
            running.pop(position, None)
            continue
        used += job.procs
        running[position] = job
        if used > capacity:
            others = heapq.nsmallest(5, (j for p, j in running.items() if p != position), key=_key)
            named = ", ".join(str(j.id) for j in others)
            more = " ..." if len(running) > 6 else ""
            who = f"jobs {named}{more} run" if len(running) > 2 else f"job {named} runs"
            yield Violation(
                "capacity",
                f"{used} of {capacity} processors in use at t={time}: job {job.id} "
                f"({job.procs} processors) starts while {who}",
                (job.id, *(j.id for j in others)),
                time,
            )


def _overlap_violations(ran: Sequence[tuple[int, ScheduledJob]]) -> Iterator[Violation]:
    # The held ranges of processor ids (half-open) are disjoint: their first ids, sorted,
    # and for each first id the range's end and its holder.
    los: list[int] = []
    held: dict[int, tuple[int, ScheduledJob]] = {}
    for time, _, _, is_end, job in _events(ran):
        assert job.allocation is not None
        if is_end:
            for lo, _hi in job.allocation.ranges:
                if lo in held and held[lo][1] is job:
                    del held[lo]
                    del los[bisect.bisect_left(los, lo)]
            continue
        for lo, hi in job.allocation.ranges:
            i = bisect.bisect_left(los, hi)  # disjoint: only the one before can overlap
            if i and held[los[i - 1]][0] > lo:
                other_lo = los[i - 1]
                other_hi, other = held[other_lo]
                yield Violation(
                    "capacity",
                    f"{_unit_text(max(lo, other_lo), min(hi, other_hi))} oversubscribed at "
                    f"t={time}: job {job.id} starts while job {other.id} runs there "
                    f"(until t={other.end})",
                    (job.id, other.id),
                    time,
                )
                continue  # not held: the held intervals stay disjoint
            los.insert(i, lo)
            held[lo] = (hi, job)


def fcfs_violations(schedule: Schedule) -> Iterator[Violation]:
    """No job starts before a job submitted earlier (in arrival order: submit, then id).

    Each job that starts before some earlier job is reported once, naming the
    earlier job that started last.

    Notes
    -----
    Complexity: $O(n \\log n)$.
    """
    started = sorted((_key(j), j) for j in schedule.jobs if j.start is not None)
    latest: ScheduledJob | None = None
    for _, job in started:
        assert job.start is not None
        if latest is not None and job.start < latest.start:  # type: ignore[operator]
            yield Violation(
                "fcfs",
                f"job {job.id} (submitted at t={job.submit}) starts at t={job.start}, before "
                f"job {latest.id} (submitted at t={latest.submit}), which starts at "
                f"t={latest.start}",
                (job.id, latest.id),
                job.start,
            )
        if latest is None or job.start >= latest.start:  # type: ignore[operator]
            latest = job


class _Fenwick:
    """Prefix sums over positions 0..n-1 with a search for the first prefix reaching a sum."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.tree = [0] * (n + 1)
        self.step = 1 << max(n.bit_length() - 1, 0)

    def add(self, i: int, delta: int) -> None:
        i += 1
        while i <= self.n:
            self.tree[i] += delta
            i += i & -i

    def prefix(self, stop: int) -> int:
        """sum(0..stop-1)."""
        total = 0
        while stop > 0:
            total += self.tree[stop]
            stop -= stop & -stop
        return total

    def first_reaching(self, target: int) -> int:
        """The smallest position p with sum(0..p) >= target (n if none)."""
        pos, total, step = 0, 0, self.step
        while step:
            nxt = pos + step
            if nxt <= self.n and total + self.tree[nxt] < target:
                pos = nxt
                total += self.tree[nxt]
            step >>= 1
        return pos  # 0-based position of the prefix end


def easy_head_violations(
    schedule: Schedule,
    capacity: int,
    *,
    order: str = "any",
    undecided: list[float] | None = None,
) -> Iterator[Violation]:
    """The head of the queue never starts later than its shadow time (EASY's promise).

    The *head* is the first waiting job in arrival order (submit time, then
    job id); its shadow time is the earliest instant at which it would fit if
    every running job ended at its planned end (start + requested time). The
    head must start at or before the smallest shadow time found while it was
    the head: at the end of every instant, and whenever a job queued behind it
    starts (a backfill), just before that start. A job that never started
    leaves the queue at its submission (it was rejected). A job that runs past
    its requested time can make the promise impossible: the violation then
    names a shadow time earlier than that job's end.

    A file says when things happened, not in which order the events of one
    instant were seen, so `order` says what is assumed:

    - `"any"` (the default): a schedule passes if **some** order of each
      instant's events explains it. Most simulators (pyss, Batsim's EASY, ...)
      handle simultaneous job ends and arrivals one at a time, with a
      scheduling pass after each, so a job may be backfilled after only some
      of an instant's ends were seen, against the later shadow time those
      give. Within an instant: the heads that start then start in queue
      order, each once it fits; a backfill starts only while the head does
      not fit and, when the head is a job that starts later, only if its
      shadow time (from the ends seen so far) is no earlier than its start;
      processors are counted, as EASY decides. Arrivals of an instant may be
      seen in any order (the queue stays in arrival order). The search is
      [`explain_instant`][schedlib.testing.invariants.event_order.explain_instant];
      a head delay that no order explains is reported, with the shadow time
      just before a backfill that no order allows, the instant's ends that
      backfill does not need left unseen. An instant at which the starts need
      more processors than the machine has (a capacity violation) is not
      searched; one whose search exceeds its budget is not either, and its
      time is appended to `undecided`.
    - `"fixed"`: the order of a single scheduling pass per instant that sees
      every event of the instant: all ends, then the submissions, then the
      starts in file order (the same replay as
      [`check_easy_head_never_delayed`][schedlib.testing.invariants.check_easy_head_never_delayed]
      on a record whose log has that order). Stricter: it flags schedules of
      simulators that run a pass after each event.

    Parameters
    ----------
    schedule
        The schedule; every job that ran needs its requested time.
    capacity
        Processors of the machine.
    order
        `"any"` or `"fixed"`, as above.
    undecided
        With `order="any"`: the times of the instants whose search gave up
        are appended here.

    Raises
    ------
    InvalidValueError
        If a job that started has no requested time (EASY's promise needs
        it), or for an unknown `order`.

    Notes
    -----
    Complexity: $O(n \\log n)$ plus the searches: the running jobs'
    processors are summed by planned end in a Fenwick tree, so each shadow
    time costs $O(\\log n)$; an instant is searched only when some job that
    waited since an earlier instant does not start and another job does.

    Examples
    --------
    >>> from schedlib.results.schedules import ScheduledJob as J
    >>> # job 2 (the head, 4 processors) could start at t=10; job 3 backfills and delays it
    >>> jobs = (J(1, 0, 2, 10, 0, 10), J(2, 1, 4, 10, 20, 30), J(3, 2, 2, 20, 2, 20))
    >>> [v.message for v in easy_head_violations(Schedule(jobs), capacity=4)]
    ['EASY head job 2 starts at t=20, 10 s later than its shadow time t=10 (computed at t=1 from the planned ends of the running jobs)']

    Two jobs end at t=10; job 4 is backfilled there, job 3 (the head) starts at
    t=11. Seen one at a time, job 4 can start after job 1's end, while job 2
    (planned until t=11) still holds what job 3 needs; only the fixed order,
    which sees both ends first, objects:

    >>> jobs = (J(1, 0, 1, 10, 0, 10), J(2, 0, 2, 11, 0, 10), J(3, 1, 3, 5, 11, 16),
    ...         J(4, 5, 1, 100, 10, 110))
    >>> list(easy_head_violations(Schedule(jobs), capacity=3))
    []
    >>> [v.jobs for v in easy_head_violations(Schedule(jobs), capacity=3, order="fixed")]
    [(3,)]
    """  # noqa: E501
    if order not in EVENT_ORDERS:
        raise InvalidValueError("order", order, f"must be one of {', '.join(EVENT_ORDERS)}")
    for job in schedule.jobs:
        if job.start is not None and job.requested_time is None:
            raise InvalidValueError(
                "requested_time",
                None,
                f"job {job.id} (line {job.line}) has none; the EASY check needs the requested "
                "time of every job that ran",
            )
    replay = _EasyReplay(schedule, capacity)
    yield from replay.run(order, undecided)


def _planned(job: ScheduledJob) -> float:
    """A job's planned end: its start plus its requested time (both known once it ran)."""
    return job.start + job.requested_time  # type: ignore[operator]


def _start_key(job: ScheduledJob, now: float, s_h: float) -> tuple[int, bool, bool]:
    """A job starting at `now` as the search sees it: processors, planned to end at or after
    the waiting head's start `s_h`, zero length."""
    return (job.procs, now + job.requested_time >= s_h, job.end == job.start)  # type: ignore[operator]


class _EasyReplay:
    """The log of a schedule replayed for EASY's promise (see `easy_head_violations`)."""

    def __init__(self, schedule: Schedule, capacity: int) -> None:
        self.jobs = jobs = schedule.jobs
        self.capacity = capacity
        ran = [(i, j) for i, j in _ran(schedule) if j.end >= j.start]  # type: ignore[operator]
        self.planned = sorted({j.start + j.requested_time for _, j in ran})  # type: ignore[operator]
        self.rank = {end: i for i, end in enumerate(self.planned)}
        self.held = _Fenwick(len(self.planned))
        # Every log event, in the log's order: (time, group, position, phase, job); group 0
        # ends, 1 submissions (and rejections right after), 2 zero-length starts (then their
        # end), 3 starts.
        log: list[tuple[Any, ...]] = []
        for position, job in enumerate(jobs):
            log.append((job.submit, 1, position, 0, job))
            if job.start is None or job.end is None:
                if job.start is None:
                    log.append((job.submit, 1, position, 1, job))  # rejected on arrival
                continue
            if job.end == job.start:
                log.append((job.start, 2, position, 0, job))
                log.append((job.start, 2, position, 1, job))
            elif job.end > job.start:
                log.append((job.start, 3, position, 0, job))
                log.append((job.end, 0, position, 1, job))
        log.sort(key=_LOG_ORDER)
        self.log = log
        self.waiting: list[tuple[Any, Any, int]] = []  # heap of (submit, id, position), lazy
        self.gone: set[int] = set()
        self.in_use = 0
        self.bound: dict[int, tuple[float, float, str]] = {}  # head -> (shadow, when, how)
        # The shadow time of an unchanged head on an unchanged machine never decreases.
        self.last: list[Any] = [None, True]  # [head at the last computation, machine changed]

    def head(self) -> int | None:
        waiting, gone = self.waiting, self.gone
        while waiting and waiting[0][2] in gone:
            heapq.heappop(waiting)
        return waiting[0][2] if waiting else None

    def shadow(self, now: float, procs: int) -> float:
        free = self.capacity - self.in_use
        if free >= procs:
            return now
        p = self.held.first_reaching(procs - free)
        return self.planned[p] if p < len(self.planned) else math.inf

    def keep(self, first: int, shadow: float, now: float, how: str = "") -> None:
        if first not in self.bound or shadow < self.bound[first][0]:
            self.bound[first] = (shadow, now, how)

    def promise(self, now: float) -> None:
        first = self.head()
        last = self.last
        if first is None or (first == last[0] and not last[1]):
            return
        last[0], last[1] = first, False
        self.keep(first, self.shadow(now, self.jobs[first].procs), now)

    def hold(self, job: ScheduledJob, sign: int) -> None:
        self.held.add(self.rank[_planned(job)], sign * job.procs)
        self.in_use += sign * job.procs
        self.last[1] = True

    def run(self, order: str, undecided: list[float] | None) -> Iterator[Violation]:
        log = self.log
        fixed = order == "fixed"
        i = 0
        while i < len(log):
            now = log[i][0]
            k = i
            while k < len(log) and log[k][0] == now:
                k += 1
            if not fixed and log[k - 1][1] >= 2 and self.head() is not None:
                self.search(now, log[i:k], undecided)  # someone waits, someone starts
            for index in range(i, k):
                _, group, position, phase, job = log[index]
                if group == 1 and phase == 0:
                    heapq.heappush(self.waiting, (job.submit, job.id, position))
                elif phase == 0:  # a start
                    first = self.head() if fixed else None
                    if first is not None and _key(job) > _key(self.jobs[first]):
                        self.promise(now)  # a backfill: the head's shadow just before it
                    self.gone.add(position)
                    self.hold(job, 1)
                elif group == 1:  # rejected on arrival
                    self.gone.add(position)
                else:  # an end
                    self.hold(job, -1)
            i = k
            self.promise(now)
        for position, (shadow, when, how) in sorted(self.bound.items()):
            job = self.jobs[position]
            if job.start is None or job.start > shadow:
                late = (
                    "never starts, although"
                    if job.start is None
                    else f"starts at t={job.start}, {job.start - shadow:g} s later than"
                )
                yield Violation(
                    "easy-head",
                    f"EASY head job {job.id} {late} its shadow time t={shadow} "
                    f"(computed at t={when} from the planned ends of the running jobs{how})",
                    (job.id,),
                    shadow,
                )

    def search(
        self, now: float, events: list[tuple[Any, ...]], undecided: list[float] | None
    ) -> None:
        """At an instant, before its events: if no order of them keeps the promise of the
        first job waiting since before it that does not start then, bound that job's shadow
        time (see `least_delaying`)."""
        starting = set()
        for e in reversed(events):  # the starts come last
            if e[1] < 2:
                break
            if e[3] == 0:
                starting.add(e[2])
        jobs, gone = self.jobs, self.gone
        heads: list[int] = []
        while True:  # the waiting jobs that start now, in queue order, then the first that does not
            first = self.head()
            if first is None or first not in starting:
                break
            heads.append(first)
            gone.add(first)  # it starts now: it leaves the queue in any order
        if first is None or len(heads) == len(starting):
            return
        target = jobs[first]
        s_h = target.start if target.start is not None else math.inf
        ends = [e[4] for e in events if e[1] == 0]
        backfills = [jobs[p] for p in sorted(starting - set(heads))]
        free = self.capacity - self.in_use
        heads_jobs = [jobs[h] for h in heads]
        lasting = [j for j in [*backfills, *heads_jobs] if j.end != j.start]
        if sum(j.procs for j in lasting) > free + sum(j.procs for j in ends):
            return  # the machine is overbooked: the capacity check reports it
        late = self.in_use - self.held.prefix(bisect.bisect_left(self.planned, s_h))
        demand = self.capacity - target.procs + 1
        # The one-pass order (every end seen, the heads started, then the backfills) keeps the
        # promise when the first backfill does: most instants stop here.
        late_ends = sum(j.procs for j in ends if _planned(j) >= s_h)
        late_heads = sum(
            j.procs for j in heads_jobs if j.end != j.start and _start_key(j, now, s_h)[1]
        )
        if late - late_ends + late_heads >= demand:
            return
        verdict = explain_instant(
            free=free,
            late=late,
            demand=demand,
            ends=[(j.procs, _planned(j) >= s_h) for j in ends],
            heads=[_start_key(j, now, s_h) for j in heads_jobs],
            backfills=[_start_key(j, now, s_h) for j in backfills],
        )
        if verdict.explained is None:
            if undecided is not None:
                undecided.append(now)
            return
        if verdict.explained:
            return
        self.keep(
            first,
            *self.least_delaying(now, target, ends, heads_jobs, backfills, verdict),
        )
        self.last[1] = True

    def least_delaying(
        self,
        now: float,
        target: ScheduledJob,
        ends: list[ScheduledJob],
        heads: list[ScheduledJob],
        backfills: list[ScheduledJob],
        verdict: InstantVerdict,
    ) -> tuple[float, float, str]:
        """The head's shadow time just before the failing backfill the search kept (the one
        with the most processors planned past the head's start), the instant's ends that
        backfill does not need left unseen (the latest planned first); and, for the
        message, how it was computed."""
        s_h = target.start if target.start is not None else math.inf

        seen: list[ScheduledJob] = []
        for (procs, is_late), count in verdict.ends_by_group:
            group = [j for j in ends if (j.procs, _planned(j) >= s_h) == (procs, is_late)]
            seen += sorted(group, key=_planned)[:count]
        started = [j for j in heads[: verdict.heads_started] if j.end != j.start]
        for key, count in verdict.backfills_by_group:
            group = [j for j in backfills if _start_key(j, now, s_h) == key]
            started += [j for j in group if j.end != j.start][:count]
        failing = next(j for j in backfills if _start_key(j, now, s_h) == verdict.failing_group)
        need = 0 if failing.end == failing.start else failing.procs
        free = self.capacity - self.in_use + sum(j.procs for j in seen)
        free -= sum(j.procs for j in started)
        for job in sorted(seen, key=_planned, reverse=True):
            if free - job.procs >= need:
                seen.remove(job)
                free -= job.procs
        changes = [(_planned(j), -j.procs) for j in seen]
        changes += [(now + j.requested_time, j.procs) for j in started]  # type: ignore[operator]
        for end, procs in changes:
            self.held.add(self.rank[end], procs)
            self.in_use += procs
        shadow = self.shadow(now, target.procs)
        for end, procs in changes:
            self.held.add(self.rank[end], -procs)
            self.in_use -= procs
        how = (
            f", just before job {failing.id} starts, with only the ends of that instant it needs "
            "seen; no order of the instant's events avoids the delay"
        )
        return shadow, now, how


def overtaking_violations(schedule: Schedule) -> Iterator[Violation]:
    """No job overtakes a smaller job submitted earlier (Mine et al. 2007 §1).

    Job $J$ overtakes $J'$ when $J'$ was submitted strictly earlier, is
    strictly smaller, and $J$ finished strictly first. A job's size here is
    its work, processors × execution time (processor-seconds), so only jobs
    that ran (started and ended) are compared: one that never started was
    rejected, and one that never ended is a lifecycle violation. Each
    overtaking job is reported once, naming the overtaken job that finished
    last.

    Notes
    -----
    Complexity: $O(n \\log n)$: jobs in submission order, the latest finish
    among earlier jobs kept by size in a Fenwick tree of prefix maxima.

    Examples
    --------
    >>> from schedlib.results.schedules import ScheduledJob as J
    >>> jobs = (J(1, 0, 1, 10, 5, 7), J(2, 1, 2, 10, 1, 3), J(3, 2, 1, 10, None, None))
    >>> [v.message for v in overtaking_violations(Schedule(jobs))]
    ['job 2 (submitted t=1, size 4, finished t=3) overtakes job 1 (submitted t=0, size 2, finished t=7)']
    """  # noqa: E501
    ran = [j for j in schedule.jobs if j.start is not None and j.end is not None]

    def size(job: ScheduledJob) -> float:
        return job.procs * (job.end - job.start)  # type: ignore[operator]

    sizes = sorted({size(j) for j in ran})
    rank = {s: i for i, s in enumerate(sizes)}
    n = len(sizes)
    best: list[tuple[float, int]] = [(-math.inf, -1)] * (n + 1)  # prefix max of (end, index)
    order = sorted(range(len(ran)), key=lambda k: ran[k].submit)
    k = 0
    while k < len(order):
        group_end = k
        while group_end < len(order) and ran[order[group_end]].submit == ran[order[k]].submit:
            group_end += 1
        for idx in order[k:group_end]:  # among strictly earlier, strictly smaller jobs
            job = ran[idx]
            i, top = rank[size(job)], (-math.inf, -1)
            while i > 0:
                top = max(top, best[i])
                i -= i & -i
            if top[0] > job.end:  # type: ignore[operator]
                other = ran[top[1]]
                yield Violation(
                    "overtaking",
                    f"job {job.id} (submitted t={job.submit}, size {size(job):g}, finished "
                    f"t={job.end}) overtakes job {other.id} (submitted t={other.submit}, "
                    f"size {size(other):g}, finished t={other.end})",
                    (job.id, other.id),
                    job.end,
                )
        for idx in order[k:group_end]:
            i = rank[size(ran[idx])] + 1
            item = (ran[idx].end, idx)
            while i <= n:
                best[i] = max(best[i], item)  # type: ignore[assignment]
                i += i & -i
        k = group_end


def uptime_violations(schedule: Schedule, up: Iterable[UpTime]) -> Iterator[Violation]:
    """Every job runs on processors that are up from its start until its end, within
    one up period each, ending by that period's planned down time.

    Needs allocations (the processors each job ran on).

    Notes
    -----
    Complexity: $O(p \\log u)$ for $p$ processor-executions (the processors of
    every job, expanded) and $u$ up periods.
    """
    periods: dict[int, list[UpTime]] = {}
    for period in sorted(up, key=lambda u: (u.processor, u.start)):
        periods.setdefault(period.processor, []).append(period)
    starts = {p: [u.start for u in us] for p, us in periods.items()}
    for _, job in _ran(schedule):
        if job.allocation is None:
            yield Violation(
                "uptime",
                f"job {job.id} has no allocation: its processors are unknown",
                (job.id,),
                job.start,
            )
            continue
        for lo, hi in job.allocation.ranges:
            for unit in range(lo, hi):
                i = bisect.bisect_right(starts.get(unit, []), job.start) - 1  # type: ignore[type-var]
                if i < 0:
                    yield Violation(
                        "uptime",
                        f"job {job.id} starts on processor {unit} at t={job.start}, while "
                        "it is down",
                        (job.id,),
                        job.start,
                    )
                    break
                planned = periods[unit][i].planned_end
                if job.end > planned:  # type: ignore[operator]
                    yield Violation(
                        "uptime",
                        f"job {job.id} runs on processor {unit} from t={job.start} to "
                        f"t={job.end}, after its planned down time t={planned}",
                        (job.id,),
                        job.start,
                    )
                    break
            else:
                continue
            break


def schedule_violations(
    schedule: Schedule,
    *,
    capacity: int,
    policy: str | None = None,
    no_overtaking: bool = False,
    up: Iterable[UpTime] | None = None,
    order: str = "any",
    undecided: list[float] | None = None,
) -> Iterator[Violation]:
    """Every violation of the checks that apply, kind by kind.

    Parameters
    ----------
    schedule
        The schedule.
    capacity
        Processors of the machine.
    policy
        `"easy"` adds the EASY head check, `"fcfs"` the start-order check,
        `None` neither.
    no_overtaking
        Add the no-overtaking check.
    up
        Up periods of the processors: add the uptime check.
    order, undecided
        For the EASY check: which orders of an instant's events may explain
        the schedule (see
        [`easy_head_violations`][schedlib.testing.invariants.schedules.easy_head_violations]).

    Raises
    ------
    ValueError
        For an unknown policy or order, or an EASY check of jobs without requested time.
    """
    periods = None if up is None else list(up)
    for kind in _kinds(policy, no_overtaking=no_overtaking, uptime=periods is not None):
        if kind == "accounting":
            yield from accounting_violations(schedule)
        elif kind == "lifecycle":
            yield from lifecycle_violations(schedule)
        elif kind == "capacity":
            yield from capacity_violations(schedule, capacity)
        elif kind == "fcfs":
            yield from fcfs_violations(schedule)
        elif kind == "easy-head":
            yield from easy_head_violations(schedule, capacity, order=order, undecided=undecided)
        elif kind == "overtaking":
            yield from overtaking_violations(schedule)
        else:
            yield from uptime_violations(schedule, periods or ())


def _kinds(policy: str | None, *, no_overtaking: bool, uptime: bool) -> tuple[str, ...]:
    """The kinds of violation checked, in report order."""
    if policy not in (None, "easy", "fcfs"):
        raise ValueError(f"policy = {policy!r}: must be easy or fcfs")
    wanted = {"fcfs": policy == "fcfs", "easy-head": policy == "easy"}
    wanted.update(overtaking=no_overtaking, uptime=uptime)
    return tuple(kind for kind in VIOLATION_KINDS if wanted.get(kind, True))


@attrs.frozen(slots=True)
class CheckReport:
    """What `schedlib check` found.

    Attributes
    ----------
    source
        The file checked.
    jobs, ran
        How many jobs it has, how many of them ran.
    capacity
        The machine size checked against.
    checks
        The checks run, by kind.
    shown
        The first violations (all kinds, in order).
    counts
        Violations per kind (every kind checked, zeros included).
    notes
        What the reader should know beyond the verdict (e.g. negative times,
        instants the EASY check could not search); `schedlib check` prints
        them as warnings.
    """

    source: str
    jobs: int
    ran: int
    capacity: int
    checks: tuple[str, ...]
    shown: tuple[Violation, ...]
    counts: tuple[tuple[str, int], ...]
    notes: tuple[str, ...] = ()

    @property
    def total(self) -> int:
        """How many violations in all."""
        return sum(n for _, n in self.counts)

    @property
    def ok(self) -> bool:
        """Whether no check failed."""
        return self.total == 0

    def summary(self) -> str:
        """One line: the verdict, the file, the checks and the counts."""
        checks = ", ".join(self.checks)
        if self.ok:
            return (
                f"OK: {self.source}: {self.jobs} jobs ({self.ran} ran) on {self.capacity} "
                f"processors pass {checks}"
            )
        broken = ", ".join(f"{n} {kind}" for kind, n in self.counts if n)
        return (
            f"FAILED: {self.source}: {self.jobs} jobs ({self.ran} ran) on {self.capacity} "
            f"processors: {self.total} violation(s): {broken}"
        )

    def lines(self) -> list[str]:
        """The text report: each violation shown, the count per kind if some were not
        shown, then the summary line."""
        out = [f"{v.kind}: {v.message}" for v in self.shown]
        if self.total > len(self.shown):
            out.append(f"... {self.total - len(self.shown)} more not shown; per kind:")
            out += [f"  {kind}: {n}" for kind, n in self.counts if n]
        out.append(self.summary())
        return out

    def as_dict(self) -> dict[str, Any]:
        """The report as a JSON-ready dict."""
        return {
            "source": self.source,
            "ok": self.ok,
            "jobs": self.jobs,
            "ran": self.ran,
            "capacity": self.capacity,
            "checks": list(self.checks),
            "violations": self.total,
            "counts": dict(self.counts),
            "shown": [v.as_dict() for v in self.shown],
            "notes": list(self.notes),
        }


def check_report(
    schedule: Schedule,
    *,
    capacity: int,
    policy: str | None = None,
    no_overtaking: bool = False,
    up: Iterable[UpTime] | None = None,
    show: int = 20,
    order: str = "any",
) -> CheckReport:
    """Run [`schedule_violations`][schedlib.testing.invariants.schedules.schedule_violations]
    and keep the first `show` violations and the count of each kind.

    The report's notes say how many jobs have negative times (allowed: a
    file's time origin is its own) and how many instants the EASY check
    could not search.

    Examples
    --------
    >>> from schedlib.results.schedules import ScheduledJob as J
    >>> s = Schedule((J(1, 0, 3, 10, 0, 5), J(2, 0, 3, 10, 1, 9)), source="x.csv")
    >>> report = check_report(s, capacity=4)
    >>> print("\\n".join(report.lines()))
    capacity: 6 of 4 processors in use at t=1: job 2 (3 processors) starts while job 1 runs
    FAILED: x.csv: 2 jobs (2 ran) on 4 processors: 1 violation(s): 1 capacity
    >>> check_report(Schedule((J(1, -5, 3, 10, 0, 5),)), capacity=4).notes
    ('1 job(s) have negative times (the first: job 1, submitted at t=-5)',)
    """
    periods = None if up is None else list(up)
    checks = _kinds(policy, no_overtaking=no_overtaking, uptime=periods is not None)
    counts: Counter[str] = Counter()
    shown: list[Violation] = []
    undecided: list[float] = []
    with paused_gc():
        for v in schedule_violations(
            schedule,
            capacity=capacity,
            policy=policy,
            no_overtaking=no_overtaking,
            up=periods,
            order=order,
            undecided=undecided,
        ):
            counts[v.kind] += 1
            if len(shown) < show:
                shown.append(v)
    notes = list(_negative_times(schedule))
    if undecided:
        notes.append(
            f"{len(undecided)} instant(s) had too many simultaneous events to search every "
            f"order (the first: t={undecided[0]}); EASY's promise there was checked at the end "
            "of the instant only"
        )
    return CheckReport(
        source=schedule.source,
        jobs=len(schedule.jobs),
        ran=sum(1 for j in schedule.jobs if j.start is not None),
        capacity=capacity,
        checks=checks,
        shown=tuple(shown),
        counts=tuple((kind, counts[kind]) for kind in checks),
        notes=tuple(notes),
    )


def _negative_times(schedule: Schedule) -> Iterator[str]:
    """A note naming the first job with a negative submission or start time, and how many."""
    negative = [j for j in schedule.jobs if j.submit < 0 or (j.start is not None and j.start < 0)]
    if negative:
        first = negative[0]
        what = (
            f"submitted at t={first.submit}" if first.submit < 0 else f"started at t={first.start}"
        )
        where = f", line {first.line}" if first.line else ""
        yield (
            f"{len(negative)} job(s) have negative times (the first: job {first.id}{where}, {what})"
        )
