"""The engine model that runs a backfilling policy on one cluster, and its entry point.

[`schedule`][schedlib.backfill.simulation.schedule] runs FCFS, EASY or
conservative backfilling over a workload of rigid parallel jobs and returns
the [`RunRecord`][schedlib.model.RunRecord]. It plugs
[`BackfillModel`][schedlib.backfill.simulation.BackfillModel] into the shared
engine ([`schedlib.engine.simulate`][schedlib.engine.simulate]); the decisions
themselves are the pure functions of [`schedlib.backfill.policies`][schedlib.backfill.policies].

Rules of the simulation
-----------------------
- **Queue**: arrival order, i.e. submit time, then job id.
- **Planning** uses requested times; a job whose runtime exceeds its
  requested time is killed at `start + requested_time` (`KILL`, final state
  `killed_at_limit`). Whether a trace's over-running jobs are killed or have
  their estimate raised is the workload cleaning policy's choice, upstream.
- **Placement**: a starting job gets the lowest-numbered free processors, so
  every `START` names concrete processor ids.
- **Instants**: at one instant, completions come first (their processors
  are free again at once: intervals are half-open), then arrivals, then one
  scheduling pass that sees all of them.
- **Reservations** are logged as `RESERVE` events (`at` = promised start)
  when made or moved, if `log_reservations=True`: for EASY the head's shadow
  time, for conservative every job's reservation from its arrival on.
- **Excluded records** (rejected by cleaning, or cancelled in the original
  log) are logged as `SUBMIT` then `REJECT` / `LOG_CANCELLED` at their submit
  time, so every record of a trace appears in the per-job output.
- **Requested times must be positive**: a reservation of length 0 would hold
  nothing (the workload cleaning policy gives every job a positive estimate).

Conventions
-----------
The rules above are `conventions="instant"` (the default). With
`conventions="pyss"` the model follows the event order of the pyss simulator
(see the Backfilling page, "schedlib default vs pyss"): one `ARRIVAL` event
per record, each followed by a pass; the machine frees a job's processors at
its end as usual, but the scheduler learns of the end only at the job's own
[`PyssEnd`][schedlib.backfill.simulation.PyssEnd] event (phase `TIMER`, so
after the arrivals of that instant; ends of one instant in the order the
jobs started), followed by a pass. Until then an early-ending job still holds
its processors in what FCFS and EASY see, and its unused reservation in the
conservative profile; conservative re-places every waiting job at every end.
The decision functions are the same.

Engine events
-------------
One `ARRIVAL` event per instant with arrivals (each schedules the next, so
the heap stays small; keyed, so that a later step can replace it), one
`COMPLETION` event per instant at which running jobs end (keyed by that
instant), and for conservative one `TIMER` at the earliest pending
reservation. Under FCFS and EASY (instant conventions, the policy's own
decision function), arrivals that the policy would not start before the next
end are submitted at the end of the pass that precedes them, each logged at
its own time, and get no event of their own (see `BackfillModel._next_arrival`
and the Backfilling page, "Arrivals that cannot start").

Because the engine handles completions before arrivals at equal times, and
the model knows its own next arrival, the scheduling pass runs at the end of
the last event of each instant — after the arrivals if there are any, else
after the completions — exactly where the engine's `wake` would put it,
without a separate engine event.

Examples
--------
>>> from schedlib.model import Cluster, Job
>>> jobs = [Job(1, 0, 3, 10, 10), Job(2, 0, 4, 10, 10), Job(3, 1, 1, 5, 5)]
>>> record = schedule(jobs, Cluster(4), policy="easy")
>>> [(o.job, o.start, o.place) for o in record.outcomes]
[(1, 0, ProcessorSet('0-2')), (2, 10, ProcessorSet('0-3')), (3, 1, ProcessorSet('3'))]
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right, insort
from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from itertools import islice
from operator import attrgetter, itemgetter
from typing import Any, NamedTuple, Protocol

from schedlib.backfill.policies import (
    Decision,
    Plan,
    PlanDecision,
    Request,
    Snapshot,
    conservative,
    easy,
    fcfs,
)
from schedlib.backfill.processors import FreeProcessors, Ranges
from schedlib.backfill.profile import Profile
from schedlib.backfill.reservations import Reservations
from schedlib.backfill.waiting import WaitingQueue, without
from schedlib.collector import paused_gc
from schedlib.engine import Event, Phase, Step, simulate, stream
from schedlib.errors import InvalidDecisionError, InvalidValueError
from schedlib.model import (
    Cluster,
    EventKind,
    FinalState,
    Job,
    JobEvent,
    JobId,
    JobOutcome,
    OutcomeLedger,
    RunRecord,
    Time,
    trusted_event,
)
from schedlib.place import ProcessorSet

__all__ = [
    "CONVENTIONS",
    "POLICIES",
    "BackfillModel",
    "BackfillState",
    "ExcludedRecord",
    "PyssEnd",
    "schedule",
    "schedule_iter",
]

POLICIES: tuple[str, ...] = ("fcfs", "easy", "conservative")
"""The policy names [`schedule`][schedlib.backfill.simulation.schedule] accepts."""

CONVENTIONS: tuple[str, ...] = ("instant", "pyss")
"""The event-order conventions [`schedule`][schedlib.backfill.simulation.schedule] accepts."""

_EXCLUDED_KINDS = {
    FinalState.REJECTED: EventKind.REJECT,
    FinalState.CANCELLED_IN_LOG: EventKind.LOG_CANCELLED,
}

_SUBMIT = EventKind.SUBMIT
_START = EventKind.START
_COMPLETE = EventKind.COMPLETE
_KILL = EventKind.KILL
_RESERVE = EventKind.RESERVE
_ARRIVAL = Phase.ARRIVAL
_COMPLETION = Phase.COMPLETION
_TIMER = Phase.TIMER
_planned_end = itemgetter(0)
_INF = float("inf")
_ARRIVAL_KEY = "arrival"


class PyssEnd(NamedTuple):
    """Payload of the event at which, under `conventions="pyss"`, the scheduler learns of an end.

    One per job, scheduled when the job starts, in phase `TIMER`: after every
    arrival of its instant, and among the ends of one instant in the order
    the jobs started.

    Attributes
    ----------
    job
        The job's id.
    planned_end
        Its start plus its requested time.
    procs
        Its processors.
    """

    job: JobId
    planned_end: Time
    procs: int


class ExcludedRecord(Protocol):
    """A trace record that does not run, but must appear in the run's output.

    The workload layer's `ExcludedJob` qualifies (duck typing: any object with
    these attributes does).

    Attributes
    ----------
    id
        The record's job id (distinct from every job's).
    submit
        Its submission time; it is logged then.
    procs
        Processors it asked for.
    requested_time
        Its estimate, or `None` when unknown.
    state
        `FinalState.REJECTED` or `FinalState.CANCELLED_IN_LOG`.
    reason
        Why it does not run (the terminal event's detail).
    """

    @property
    def id(self) -> JobId: ...

    @property
    def submit(self) -> Time: ...

    @property
    def procs(self) -> int: ...

    @property
    def requested_time(self) -> Time | None: ...

    @property
    def state(self) -> FinalState: ...

    @property
    def reason(self) -> str: ...


# A running job: (actual end, id, planned end, procs, place, killed, ranges of place).
_Running = tuple[Time, JobId, Time, int, ProcessorSet, bool, Ranges]


class BackfillState(NamedTuple):
    """The state of a backfilling run between two events (internal; no validators).

    A named tuple: immutable, and the cheapest record to build once per event.

    Attributes
    ----------
    arrived
        Records (jobs and excluded ones) submitted so far, in arrival order.
    queue
        Waiting jobs in arrival order: a
        [`WaitingQueue`][schedlib.backfill.waiting.WaitingQueue] for FCFS
        (whose queue grows long and loses a prefix at each start), else a
        tuple (cheaper for short queues); empty for conservative (its `book`
        holds them).
    running
        Running jobs as `(actual end, id, planned end, procs, place, killed,
        ranges)` (`ranges`: `place` as processor ranges),
        sorted by actual end.
    planned
        FCFS and EASY: `(planned end, procs, id)` of the running jobs, sorted;
        empty for conservative (its profile holds them).
    free
        Free processor ids (lowest first is the placement rule).
    book
        Conservative: the waiting jobs, their reservations and the
        availability profile ([`Reservations`][schedlib.backfill.reservations.Reservations]);
        else `None`. A mutable structure private to the run, changed in
        place from one event to the next (copying the profile and the queue
        at every event cost more than the decisions): a state is current
        only until the model's next step, and the run as a whole stays a
        pure function of its inputs.
    head
        EASY: `(job id, reservation)` last logged for the head, else `None`.
    released
        Conservative with a custom `decide`: `(planned end, procs)` of jobs
        that ended early at the current instant, handed to the next
        [`Plan`][schedlib.backfill.policies.Plan] (otherwise `book` takes
        them in at once).
    changed
        Whether jobs ended since the last pass (arrival-only passes take a
        shortcut).
    timer
        Conservative: time of the pending wake-up at the earliest reservation.
    finished
        Records that reached a terminal event.
    """

    arrived: int
    queue: WaitingQueue | tuple[Request, ...]
    running: tuple[_Running, ...]
    planned: tuple[tuple[Time, int, JobId], ...]
    free: FreeProcessors
    book: Reservations | None
    head: tuple[JobId, Time] | None
    released: tuple[tuple[Time, int], ...]
    changed: bool
    timer: Time | None
    finished: int


class _Work:
    """A private mutable copy of a state, used inside one transition and then frozen."""

    __slots__ = (
        "arrived",
        "book",
        "changed",
        "events",
        "finished",
        "free",
        "head",
        "log",
        "new",
        "planned",
        "queue",
        "released",
        "running",
        "timer",
    )

    def __init__(self, state: BackfillState) -> None:
        (
            self.arrived,
            self.queue,
            self.running,
            self.planned,
            self.free,
            self.book,
            self.head,
            self.released,
            self.changed,
            self.timer,
            self.finished,
        ) = state
        self.log: list[JobEvent] = []
        self.events: list[Event] = []
        self.new = 0  # jobs queued by this transition's arrivals

    def step(self) -> Step[BackfillState]:
        state = BackfillState(
            self.arrived,
            self.queue,
            self.running,
            self.planned,
            self.free,
            self.book,
            self.head,
            self.released,
            self.changed,
            self.timer,
            self.finished,
        )
        return Step(state, self.events, (), self.log)


class _Window:
    """The records of a streamed run: read from the input as the run reaches them, then forgotten.

    It holds every record from the next one to arrive up to the first one
    submitted after the current instant (or the input's end), so that the
    model reads them by index as from tuples (through
    [`_View`][schedlib.backfill.simulation._View]s). Records are checked as
    they are read: each must fit the cluster, and the input must be in
    arrival order (submit, then id), which is what lets a stream be read
    once. The model's state only grows forward in a streamed run: a state
    handed back to the model after later ones were produced may have lost
    its records.
    """

    __slots__ = ("_base", "_items", "_last", "_model", "_source", "done", "pending")

    def __init__(
        self,
        model: BackfillModel,
        jobs: Iterable[Job],
        excluded: Iterable[ExcludedRecord],
        mixed: Iterable[Job | ExcludedRecord],
    ) -> None:
        self._model = model
        tagged = (
            ((job.submit, job.id, True, job) for job in jobs),
            ((record.submit, record.id, False, record) for record in excluded),
            ((r.submit, r.id, isinstance(r, Job), r) for r in mixed),
        )
        self._source: Iterator[tuple[Time, JobId, bool, Any]] = heapq.merge(
            *tagged, key=itemgetter(0, 1)
        )
        self._base = 0
        self._items: deque[tuple[Any, Time, Request | None]] = deque()
        self._last: tuple[Time, JobId] | None = None
        self.done = False
        self.pending: dict[JobId, Any] = {}
        """Records read and not yet claimed by the consumer of the run (by id)."""

    def __len__(self) -> int:
        return self._base + len(self._items)

    def get(self, i: int, field: int) -> Any:
        return self._items[i - self._base][field]

    def tail(self, i: int, field: int) -> list[Any]:
        return [item[field] for item in islice(self._items, max(i - self._base, 0), None)]

    def fill(self, now: Time | None, arrived: int = 0) -> None:
        """Forget the records before `arrived`; read on to the first one submitted after `now`."""
        items = self._items
        while self._base < arrived and items:
            items.popleft()
            self._base += 1
        model = self._model
        while not self.done and (not items or (now is not None and items[-1][1] <= now)):
            tagged = next(self._source, None)
            if tagged is None:
                self.done = True
                break
            submit, job_id, is_job, record = tagged
            model._check(record, is_job)
            if job_id in self.pending or job_id in model._runtime:
                raise InvalidValueError(
                    "Job.id", job_id, "appears twice among the jobs not yet ended"
                )
            key = (submit, job_id)
            if self._last is not None and not key > self._last:
                raise InvalidValueError(
                    f"record {record.id}: (submit, id)",
                    key,
                    f"a streamed workload must be in arrival order (submit, then id); "
                    f"it comes after {self._last}",
                )
            self._last = key
            request = None
            if is_job:
                request = Request(record.id, record.submit, record.procs, record.requested_time)
                model._runtime[record.id] = record.runtime
                if model.conventions == "pyss":
                    model._requested[record.id] = record.requested_time
            items.append((record, record.submit, request))
            self.pending[record.id] = record


class _View:
    """One field of a [`_Window`][schedlib.backfill.simulation._Window], indexed like a tuple."""

    __slots__ = ("_field", "_window")

    def __init__(self, window: _Window, field: int) -> None:
        self._window = window
        self._field = field

    def __len__(self) -> int:
        return len(self._window)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return self._window.tail(i.start or 0, self._field)
        return self._window.get(i, self._field)


class BackfillModel:
    """Runs one backfilling policy on one cluster, as a model of the shared engine.

    Most users call [`schedule`][schedlib.backfill.simulation.schedule]
    instead; the model is public so that it can be driven step by step.

    Parameters
    ----------
    jobs
        The jobs to run, each at most `cluster.processors` wide, in any order.
    cluster
        The machine.
    policy
        One of [`POLICIES`][schedlib.backfill.simulation.POLICIES].
    excluded
        Records that do not run (see
        [`ExcludedRecord`][schedlib.backfill.simulation.ExcludedRecord]).
    log_reservations
        Log a `RESERVE` event whenever a reservation is made or moves (see
        [`schedule`][schedlib.backfill.simulation.schedule]).
    decide
        Replaces the policy's decision function, with the same signature:
        [`Snapshot`][schedlib.backfill.policies.Snapshot] ->
        [`Decision`][schedlib.backfill.policies.Decision] for `"fcfs"` and
        `"easy"`, [`Plan`][schedlib.backfill.policies.Plan] ->
        [`PlanDecision`][schedlib.backfill.policies.PlanDecision] for
        `"conservative"`. For trying a variant on the same engine and checkers
        (the shortcuts for arrivals are then off: one event and one full pass
        per instant).
    conventions
        One of [`CONVENTIONS`][schedlib.backfill.simulation.CONVENTIONS]
        (see [`schedule`][schedlib.backfill.simulation.schedule]).
    stream
        Read the workload as the run reaches it, in arrival order (what
        [`schedule_iter`][schedlib.backfill.simulation.schedule_iter] does).
    mixed
        Jobs ([`Job`][schedlib.model.Job]) and excluded records (anything
        else) in one iterable, as a trace cleaned while it is read yields
        them; added to `jobs` and `excluded`.

    Attributes
    ----------
    records
        Every job and excluded record, in arrival order (submit, then id).
    """

    def __init__(
        self,
        jobs: Iterable[Job],
        cluster: Cluster,
        policy: str = "easy",
        *,
        excluded: Iterable[ExcludedRecord] = (),
        log_reservations: bool = False,
        decide: Callable[[Any], Any] | None = None,
        conventions: str = "instant",
        stream: bool = False,
        mixed: Iterable[Job | ExcludedRecord] = (),
    ) -> None:
        if policy not in POLICIES:
            raise InvalidValueError("policy", policy, f"must be one of {', '.join(POLICIES)}")
        if conventions not in CONVENTIONS:
            raise InvalidValueError(
                "conventions", conventions, f"must be one of {', '.join(CONVENTIONS)}"
            )
        self.policy = policy
        self.conventions = conventions
        self.cluster = cluster
        self.log_reservations = log_reservations
        self._window: _Window | None = None
        if stream:
            self._window = _Window(self, jobs, excluded, mixed)
            self.records: Any = _View(self._window, 0)
            self._submit: Any = _View(self._window, 1)
            self._request: Any = _View(self._window, 2)
            self._runtime: dict[JobId, Time] = {}
            self._requested: dict[JobId, Time] = {}
            self._window.fill(None)
        else:
            mixed = tuple(mixed)
            jobs = (*jobs, *(r for r in mixed if isinstance(r, Job)))
            excluded = (*excluded, *(r for r in mixed if not isinstance(r, Job)))
            seen: set[JobId] = set()
            for is_job, records in ((True, jobs), (False, excluded)):
                for record in records:
                    self._check(record, is_job)
                    if record.id in seen:
                        raise InvalidValueError(
                            "Job.id", record.id, "appears twice in the workload"
                        )
                    seen.add(record.id)
            self.records = tuple(sorted(jobs + excluded, key=attrgetter("submit", "id")))
            self._submit = tuple(r.submit for r in self.records)
            excluded_ids = {r.id for r in excluded}
            self._request = tuple(
                None if r.id in excluded_ids else Request(r.id, r.submit, r.procs, r.requested_time)
                for r in self.records
            )
            self._runtime = {job.id: job.runtime for job in jobs}
            self._requested = (
                {job.id: job.requested_time for job in jobs} if conventions == "pyss" else {}
            )
        self._custom = decide is not None
        self._absorbs = policy != "conservative" and conventions == "instant" and decide is None
        self._decide: Callable[[Snapshot], Decision] = decide or (
            easy if policy == "easy" else fcfs
        )
        self._plan: Callable[[Plan], PlanDecision] = decide or conservative

    def _check(self, record: Any, is_job: bool) -> None:
        """Refuse a job the cluster cannot run or an excluded record of another state."""
        if is_job:
            capacity = self.cluster.processors
            if record.procs > capacity:
                raise InvalidValueError(
                    f"Job(id={record.id}).procs",
                    record.procs,
                    f"job {record.id} needs {record.procs} processors, more than the {capacity} "
                    f"of cluster {self.cluster.name!r}",
                )
            if not record.requested_time > 0:
                raise InvalidValueError(
                    f"Job(id={record.id}).requested_time",
                    record.requested_time,
                    "must be > 0: backfilling reserves processors for the requested time, "
                    "and a reservation of length 0 would hold nothing",
                )
        elif record.state not in _EXCLUDED_KINDS:
            raise InvalidValueError(
                f"excluded record {record.id}: state",
                record.state,
                "must be FinalState.REJECTED or FinalState.CANCELLED_IN_LOG",
            )

    # ----------------------------------------------------------------- set-up

    def initial_state(self) -> BackfillState:
        """All processors free, nothing submitted."""
        capacity = self.cluster.processors
        origin = self._submit[0] if self._submit else 0
        book = None
        if self.policy == "conservative":
            book = Reservations(Profile.idle(capacity, origin))
        queue = WaitingQueue() if self.policy == "fcfs" else ()
        return BackfillState(
            0, queue, (), (), FreeProcessors.idle(capacity), book, None, (), False, None, 0
        )

    def initial_events(self) -> list[Event]:
        """The first arrival (each arrival event schedules the next one)."""
        if not self._submit:
            return []
        key = _ARRIVAL_KEY if self.conventions == "instant" else None
        return [Event(self._submit[0], _ARRIVAL, 0, key)]

    # ---------------------------------------------------------- Model protocol

    def is_done(self, state: BackfillState) -> bool:
        """Every record has reached its terminal event."""
        return state.finished == len(self.records)

    def unfinished(self, state: BackfillState) -> Collection[JobId]:
        """Ids of the jobs waiting, running, or not yet submitted."""
        queue = state.queue if state.book is None else state.book.requests
        ids = [job.id for job in queue] + [r[1] for r in state.running]
        return ids + [r.id for r in self.records[state.arrived :]]

    def on_event(self, state: BackfillState, event: Event) -> Step[BackfillState]:
        """Arrivals (payload: index of the first record), completions, or the timer."""
        if self.conventions == "pyss":
            return self._pyss_event(state, event)
        work = _Work(state)
        now = event.time
        phase = event.phase
        if phase == _ARRIVAL:
            self._arrive(work, now)
            self._pass(work, now)
            self._next_arrival(work, True)
        elif phase == _COMPLETION:
            self._complete(work, now)
            submit = self._submit
            if work.arrived == len(submit) or submit[work.arrived] != now:
                self._pass(work, now)  # no arrival follows at this instant
                self._next_arrival(work, False)
        else:  # the conservative timer: a reservation may be due
            self._timer(work, now)
        return work.step()

    def _timer(self, work: _Work, now: Time) -> None:
        work.timer = None
        book = work.book
        assert book is not None
        if now in book.starts:
            self._pass(work, now)
        else:
            work.timer = book.next_due()
            if work.timer is not None:
                work.events.append(Event(work.timer, _TIMER, None, key="timer"))

    def on_pass(self, state: BackfillState, now: Time) -> Step[BackfillState]:
        """A scheduling pass at `now` (the model runs its passes itself; see the module)."""
        work = _Work(state)
        work.changed = True
        self._pass(work, now)
        return work.step()

    # ------------------------------------------------------------- transitions

    def _arrive(self, work: _Work, now: Time) -> None:
        i = work.arrived
        if self._window is not None:
            self._window.fill(now, i)
        submit = self._submit
        j = i
        n = len(submit)
        while j < n and submit[j] == now:
            j += 1
        arrivals: list[Request] = []
        self._submit_records(work, now, i, j, arrivals)
        work.arrived = j
        if arrivals:
            self._enqueue(work, arrivals)
            work.new = len(arrivals)

    def _enqueue(self, work: _Work, arrivals: list[Request]) -> None:
        """New jobs at the end of the queue (conservative: of its book, placed at the pass)."""
        if work.book is not None:
            for request in arrivals:
                work.book.append(request)
        else:
            work.queue = work.queue + tuple(arrivals)

    def _submit_records(
        self, work: _Work, now: Time, i: int, j: int, arrivals: list[Request]
    ) -> None:
        """Log the submission of records `i` to `j - 1` at `now`; their jobs go to `arrivals`.

        An excluded record is logged `SUBMIT` then `REJECT` / `LOG_CANCELLED`
        and is finished at once.
        """
        requests = self._request
        records = self.records
        log = work.log
        for k in range(i, j):
            log.append(trusted_event(now, records[k].id, _SUBMIT))
            request = requests[k]
            if request is None:
                record = records[k]
                log.append(
                    JobEvent(now, record.id, _EXCLUDED_KINDS[record.state], detail=record.reason)
                )
                work.finished += 1
            else:
                arrivals.append(request)

    def _complete(self, work: _Work, now: Time) -> None:
        running = work.running
        k = 0
        while k < len(running) and running[k][0] == now:
            k += 1
        if not k:
            return
        work.running = running[k:]
        log = work.log
        freed: list[tuple[int, int]] = []
        for _, job_id, _, _, place, killed, ranges in running[:k]:
            if killed:
                log.append(JobEvent(now, job_id, _KILL, place, detail=self._kill_detail(job_id)))
            else:
                log.append(trusted_event(now, job_id, _COMPLETE, place))
            freed.extend(ranges)
        work.free = work.free.give_back(freed)
        work.finished += k
        work.changed = True
        if self._window is not None:  # a streamed run forgets the jobs that ended
            for _, job_id, *_ in running[:k]:
                del self._runtime[job_id]
                self._requested.pop(job_id, None)
        if self.conventions == "pyss":
            return  # the scheduler learns of each end at its own event (see PyssEnd)
        if self.policy != "conservative":
            planned = list(work.planned)
            for _, job_id, planned_end, procs, _, _, _ in running[:k]:
                del planned[bisect_left(planned, (planned_end, procs, job_id))]
            work.planned = tuple(planned)
        elif self._custom:  # handed to the next Plan
            work.released = work.released + tuple(
                (planned_end, procs)
                for _, _, planned_end, procs, _, _, _ in running[:k]
                if planned_end > now
            )
        else:
            book = work.book
            assert book is not None
            for _, _, planned_end, procs, _, _, _ in running[:k]:
                if planned_end > now:
                    book.end_early(now, planned_end, procs)

    def _next_arrival(self, work: _Work, arrived: bool) -> None:
        """After a pass: submit the arrivals that cannot start before the next end, then schedule.

        Under FCFS and EASY (instant conventions, the policy's own decision
        function), once a pass leaves a job waiting, the free processors,
        the running jobs and the head's reservation stay as they are until
        the next end (the earliest actual end among the running jobs), and
        only arrivals happen before it. An arrival then changes nothing but
        the queue unless the policy starts it: under FCFS never (the head
        is blocked), under EASY when the decision for (head, job) at the
        job's submit time starts it. So the records of every instant before
        the next end whose jobs would all stay waiting are submitted now, each
        logged at its own submit time, without an engine event each; the log
        and every decision are those of one event per instant (the tests
        compare both). The `ARRIVAL` event of the first record not submitted
        is (re)scheduled, keyed so that it replaces a pending one.
        """
        i = work.arrived
        if self._absorbs and work.queue and work.running:
            i = self._absorb(work, work.running[0][0])
            arrived = arrived or i != work.arrived
            work.arrived = i
        if arrived and i < len(self._submit):
            work.events.append(Event(self._submit[i], _ARRIVAL, i, _ARRIVAL_KEY))

    def _absorb(self, work: _Work, end: Time) -> int:
        """Submit the records of each instant before `end` while none of their jobs would start.

        Returns the index of the first record left for its `ARRIVAL` event.
        """
        i = work.arrived
        if self._window is not None:
            self._window.fill(end, i)
        submit, requests = self._submit, self._request
        n = len(submit)
        check = self._inert if self.policy == "easy" else None
        waiting: list[Request] = []
        while i < n and submit[i] < end:
            t = submit[i]
            j = i
            while j < n and submit[j] == t:
                j += 1
            if check is not None and not all(  # one instant: all of its jobs stay, or none
                check(work, t, requests[k]) for k in range(i, j) if requests[k] is not None
            ):
                break
            self._submit_records(work, t, i, j, waiting)
            i = j
        if waiting:
            work.queue = work.queue + tuple(waiting)
        return i

    def _inert(self, work: _Work, now: Time, job: Request) -> bool:
        """Whether EASY, deciding for (head, `job`) at `now`, starts nothing and keeps its head."""
        if job.procs > work.free.size:
            return True  # it cannot start now, under any policy
        head: Request = work.queue[0]
        decision = self._decide(Snapshot(now, work.free.size, work.planned, (head, job)))
        return (
            not decision.start
            and decision.head is head
            and (head.id, decision.reservation) == work.head
        )

    def _kill_detail(self, job_id: JobId) -> str:
        return f"killed at its requested time (runtime {self._runtime[job_id]} s exceeds it)"

    def _pass(self, work: _Work, now: Time) -> None:
        if self.policy == "conservative":
            self._conservative_pass(work, now)
        else:
            self._queue_pass(work, now)
        work.changed = False

    def _view(self, work: _Work, now: Time) -> tuple[int, tuple[tuple[Time, int, JobId], ...]]:
        """What FCFS and EASY see: `(free processors, (planned end, procs, id) of the running)`.

        Under `"instant"`, the machine itself. Under `"pyss"`, the scheduler's
        own profile: a job that ended early at `now` still holds its processors
        until its end event is handled, and one that reached its planned end
        holds them no more (half-open intervals), handled or not.
        """
        if self.conventions != "pyss":
            return work.free.size, work.planned
        planned = work.planned
        running = planned[bisect_right(planned, now, key=_planned_end) :]
        return self.cluster.processors - sum(entry[1] for entry in running), running

    def _queue_pass(self, work: _Work, now: Time) -> None:
        queue = work.queue
        if not queue:
            work.head = None
            return
        considered: Sequence[Request] = tuple(queue) if self._custom else queue
        first_new = 0  # > 0: `considered` is (head, *jobs from first_new on)
        if not work.changed and not self._custom:
            # Only arrivals since the last pass: the free processors, the head's
            # shadow time and its extra processors are unchanged, and time has
            # advanced, so no job that could not start then can start now. Only
            # the jobs that arrived at this instant need a look (same decision).
            first_new = len(queue) - work.new  # the jobs queued at this instant come last
            if first_new > 0:
                if self.policy == "fcfs" or not work.new:
                    return
                if min(job.procs for job in queue[first_new:]) > work.free.size:
                    return  # none of them fits now
                considered = (queue[0], *queue[first_new:])
        free, running = self._view(work, now)
        if self.policy == "fcfs" and not self._custom and queue[0].procs > free:
            work.head = None  # the head does not fit: FCFS starts nothing (what `fcfs` decides)
            return
        snapshot = Snapshot(now, free, running, considered)
        decision = self._decide(snapshot)
        if self._custom:
            _check_decision(self._decide, snapshot, decision)
        if decision.start:
            self._start(work, now, decision.start)
            positions = decision.positions
            if first_new:  # positions in (head, *new jobs)
                positions = tuple(p + first_new - 1 if p else 0 for p in positions)
            work.queue = without(queue, positions)
        head, reservation = decision.head, decision.reservation
        if head is None or reservation is None:  # the queue emptied, or FCFS
            work.head = None
        elif (head.id, reservation) != work.head:
            work.head = (head.id, reservation)
            if self.log_reservations:
                work.log.append(JobEvent(now, head.id, _RESERVE, at=reservation))

    def _conservative_pass(self, work: _Work, now: Time, compress: bool = False) -> None:
        book = work.book
        assert book is not None
        if self._custom:  # the custom decision on a Plan; the book keeps its result
            plan = Plan(
                now,
                book.freeze(),
                tuple(book.requests),
                tuple(book.starts),
                work.released,
                compress,
            )
            work.released = ()
            decision = self._plan(plan)
            _check_plan_decision(self._plan, plan, decision, work.free.size)
            book.adopt(decision.profile, decision.reservations)
            changed: Sequence[int] = decision.changed
            due: Sequence[int] = decision.positions
        else:
            if compress:  # pyss: every end compresses, even at the planned end
                book.freed(now, _INF)
            changed, due = book.decide(now)
        requests = book.requests
        if self.log_reservations:
            starts = book.starts
            work.log.extend(JobEvent(now, requests[k].id, _RESERVE, at=starts[k]) for k in changed)
        if due:
            self._start(work, now, tuple(requests[k] for k in due))
            book.pop_due(due)
        timer = book.next_due()
        if timer is not None and timer != work.timer:
            work.timer = timer
            work.events.append(Event(timer, _TIMER, None, key="timer"))

    def _start(self, work: _Work, now: Time, jobs: tuple[Request, ...]) -> None:
        free = work.free
        running = list(work.running)
        planned = list(work.planned) if self.policy != "conservative" else None
        log = work.log
        events = work.events
        runtime = self._runtime
        for job in jobs:
            procs = job.procs
            try:
                ranges, free = free.take(procs)
            except InvalidValueError as error:  # pragma: no cover - guards the model's consistency
                raise RuntimeError(f"internal error: job {job.id} at t={now}: {error}") from None
            requested = job.requested_time
            actual = runtime[job.id]
            killed = actual > requested
            place = ProcessorSet.from_ranges(ranges)
            log.append(trusted_event(now, job.id, _START, place))
            end = now + (requested if killed else actual)
            planned_end = now + requested
            entry = (end, job.id, planned_end, procs, place, killed, ranges)
            k = bisect_left(running, entry)
            if not (k < len(running) and running[k][0] == end) and not (
                k > 0 and running[k - 1][0] == end
            ):
                events.append(Event(end, _COMPLETION, None, key=("end", end)))
            running.insert(k, entry)
            if planned is not None:
                insort(planned, (planned_end, procs, job.id))
        work.free = free
        work.running = tuple(running)
        if planned is not None:
            work.planned = tuple(planned)

    # ------------------------------------------------- conventions="pyss"

    def _pyss_event(self, state: BackfillState, event: Event) -> Step[BackfillState]:
        """One event under the pyss conventions: one scheduling pass per submission and per end.

        The machine frees a job's processors at its end (phase `COMPLETION`,
        logged then), but the scheduler learns of the end only at the job's
        own [`PyssEnd`][schedlib.backfill.simulation.PyssEnd] event, after
        the submissions of that instant, and runs a pass there.
        """
        work = _Work(state)
        work.changed = True  # no shortcut: each pass sees only what pyss would
        now = event.time
        phase = event.phase
        mark = len(work.log)
        if phase == _ARRIVAL:
            if self._arrive_one(work, now, event.payload):
                self._pass(work, now)
        elif phase == _COMPLETION:
            self._complete(work, now)  # the machine only; no pass
        elif isinstance(event.payload, PyssEnd):
            job, planned_end, procs = event.payload
            if self.policy == "conservative":
                if planned_end > now:
                    if self._custom:
                        work.released = (*work.released, (planned_end, procs))
                    else:
                        assert work.book is not None
                        work.book.end_early(now, planned_end, procs)
                self._conservative_pass(work, now, compress=True)
                work.changed = False
            else:
                planned = list(work.planned)
                k = bisect_left(planned, (planned_end, procs, job))
                if k < len(planned) and planned[k][2] == job:
                    del planned[k]
                work.planned = tuple(planned)
                self._pass(work, now)
        else:
            self._timer(work, now)
        requested, runtime = self._requested, self._runtime
        for entry in work.log[mark:]:
            if entry.kind is _START:
                job_id = entry.job
                limit = requested[job_id]
                end = now + min(runtime[job_id], limit)
                payload = PyssEnd(job_id, now + limit, len(entry.place))
                work.events.append(Event(end, _TIMER, payload))
        return work.step()

    def _arrive_one(self, work: _Work, now: Time, i: int) -> bool:
        """Submit record `i` alone; whether it is a job (an excluded record needs no pass)."""
        if self._window is not None:
            self._window.fill(now, i)
        arrivals: list[Request] = []
        self._submit_records(work, now, i, i + 1, arrivals)
        work.arrived = i + 1
        if i + 1 < len(self._submit):
            work.events.append(Event(self._submit[i + 1], _ARRIVAL, i + 1))
        if not arrivals:
            return False
        self._enqueue(work, arrivals)
        return True


def _name(function: Callable[..., Any]) -> str:
    name = getattr(function, "__qualname__", None) or getattr(function, "__name__", None)
    return str(name) if name else repr(function)


def _check_started(
    function: Callable[..., Any],
    now: Time,
    queue: Sequence[Request],
    start: Any,
    positions: Any,
    free: int,
    decision: Any,
) -> None:
    """The jobs a custom decision starts are distinct waiting jobs that fit in `free`."""

    def invalid(reason: str) -> InvalidDecisionError:
        return InvalidDecisionError(_name(function), now, reason, decision)

    if len(start) != len(positions):
        raise invalid(f"it starts {len(start)} job(s) but gives {len(positions)} queue position(s)")
    waiting = {job.id for job in queue}
    seen: set[JobId] = set()
    previous = -1
    for job, k in zip(start, positions, strict=True):
        job_id = getattr(job, "id", job)
        if job_id in seen:
            raise invalid(f"it starts job {job_id} twice")
        seen.add(job_id)
        if job_id not in waiting:
            raise invalid(f"it starts job {job_id}, which is not waiting")
        if not (isinstance(k, int) and 0 <= k < len(queue)) or queue[k] != job:
            raise invalid(f"position {k!r} of job {job_id} is not its place in the queue")
        if k <= previous:
            raise invalid(f"positions {list(positions)} are not ascending")
        previous = k
    needed = sum(job.procs for job in start)
    if needed > free:
        raise invalid(
            f"it oversubscribes: the jobs it starts need {needed} processors, only {free} are free"
        )


def _check_decision(decide: Callable[..., Any], snapshot: Snapshot, decision: Any) -> None:
    """Raise `InvalidDecisionError` if a custom FCFS/EASY decision cannot be carried out."""
    if not isinstance(decision, Decision):
        raise InvalidDecisionError(
            _name(decide), snapshot.now, "it must return a backfill Decision", decision
        )
    queue = snapshot.queue
    _check_started(
        decide, snapshot.now, queue, decision.start, decision.positions, snapshot.free, decision
    )
    head = decision.head
    if head is not None:
        if head not in queue or head in decision.start:
            raise InvalidDecisionError(
                _name(decide),
                snapshot.now,
                f"its head, job {head.id}, is not a job left waiting",
                decision,
            )
        if decision.reservation is not None and not decision.reservation >= snapshot.now:
            raise InvalidDecisionError(
                _name(decide),
                snapshot.now,
                f"it reserves a start in the past (t={decision.reservation}) for job {head.id}",
                decision,
            )


def _check_plan_decision(plan_: Callable[..., Any], plan: Plan, decision: Any, free: int) -> None:
    """Raise `InvalidDecisionError` if a custom conservative decision cannot be carried out."""
    now = plan.now

    def invalid(reason: str) -> InvalidDecisionError:
        return InvalidDecisionError(_name(plan_), now, reason, decision)

    if not isinstance(decision, PlanDecision):
        raise invalid("it must return a PlanDecision")
    if not isinstance(decision.profile, Profile):
        raise invalid("its profile is not a Profile")
    queue = plan.queue
    if len(decision.reservations) != len(queue):
        raise invalid(
            f"it gives {len(decision.reservations)} reservation(s) for {len(queue)} waiting job(s)"
        )
    for job, at in zip(queue, decision.reservations, strict=True):
        if not isinstance(at, (int, float)) or not at >= now:
            raise invalid(f"job {job.id}'s reservation {at!r} is not a time at or after now")
    _check_started(plan_, now, queue, decision.start, decision.positions, free, decision)
    due = [k for k, at in enumerate(decision.reservations) if at == now]
    if list(decision.positions) != due:
        starts = [job.id for job in decision.start]
        raise invalid(
            f"it starts jobs {starts} now, but the jobs whose reservation is now are "
            f"{[queue[k].id for k in due]}"
        )


def schedule(
    jobs: Iterable[Job],
    cluster: Cluster,
    *,
    policy: str = "easy",
    excluded: Iterable[ExcludedRecord] = (),
    progress: Callable[[float, int], None] | None = None,
    log_reservations: bool = False,
    decide: Callable[[Any], Any] | None = None,
    conventions: str = "instant",
) -> RunRecord:
    """Run a backfilling policy over a workload on one cluster.

    Parameters
    ----------
    jobs
        Rigid parallel jobs (any order; the queue is in arrival order: submit
        time, then id). Each must fit the cluster.
    cluster
        The machine.
    policy
        `"fcfs"`, `"easy"` (aggressive backfilling) or `"conservative"`; see
        [`POLICIES`][schedlib.backfill.simulation.POLICIES].
    excluded
        Trace records that do not run (rejected by the cleaning policy or
        cancelled in the original log), any objects with `id`, `submit`,
        `procs`, `requested_time`, `state` and `reason`; each is logged as
        `SUBMIT` then `REJECT` or `LOG_CANCELLED` at its submit time.
    progress
        Optional callback `progress(now, events_handled)` (e.g. a
        [`ProgressBar`][schedlib.execution.progress.ProgressBar]).
    log_reservations
        Log `RESERVE` events (`at` = promised start) whenever a reservation
        is made or moves, so that the reservation invariants
        (`check_conservative_reservations`, `check_reservations_feasible`)
        can be checked from the record alone; the tests and the testing kit
        turn it on. Off by default: on full traces conservative backfilling
        moves reservations about five times per job (430,000 extra log entries
        on CTC-SP2 at 338 processors, about 55 MB more).
    decide
        A replacement decision function for the policy (see
        [`BackfillModel`][schedlib.backfill.simulation.BackfillModel]): runs a
        variant of your own on the same engine, ready for the same checkers.
    conventions
        The event order: `"instant"` (default: one scheduling pass per
        instant, after every end and arrival of it) or `"pyss"` (the pyss
        simulator's: a pass after every single submission and every single
        end, submissions first, ends in start order, early ends learnt one
        by one; see the module and the Backfilling page). A `"pyss"` run
        names it in `parameters`.

    Returns
    -------
    RunRecord
        `algorithm` is the policy name; `workload` holds the jobs and the
        excluded records together in arrival order; `capacity` is the
        cluster size.

    Raises
    ------
    InvalidValueError
        For an unknown policy or conventions (naming the valid ones), a job wider than the
        cluster (naming the job, its processors and the cluster size), a
        duplicate job id, or an excluded record with another state.

    Notes
    -----
    Complexity: per instant, $O(q + r)$ for FCFS and EASY ($q$ waiting, $r$
    running jobs; one shadow-time computation per pass) and $O(q \\cdot m)$
    for conservative when compressing ($m$ profile breakpoints scanned per
    job); plus $O(\\log E)$ engine work per event. Under `"pyss"`, one pass
    per submission and per end (about $2n$ passes for $n$ jobs), each also
    $O(r)$ to build the scheduler's view.

    References
    ----------
    Sabin et al. (2003) §2; Lifka 1995 (EASY); Mu'alem and Feitelson 2001 (conservative).

    Examples
    --------
    >>> from schedlib.model import Cluster, Job
    >>> jobs = [Job(1, 0, 2, 100, 40), Job(2, 5, 4, 50, 50), Job(3, 6, 1, 30, 30)]
    >>> for policy in POLICIES:
    ...     record = schedule(jobs, Cluster(4), policy=policy)
    ...     print(policy, [o.start for o in record.outcomes])
    fcfs [0, 40, 90]
    easy [0, 40, 6]
    conservative [0, 40, 6]

    Two jobs ending early in the same second: one pass sees both ends; pyss's
    first pass, after one end, backfills job 4 and job 3 waits for it:

    >>> jobs = [Job(1, 0, 2, 100, 10), Job(2, 0, 2, 100, 10),
    ...         Job(3, 1, 4, 10, 10), Job(4, 2, 2, 50, 50)]
    >>> for conventions in CONVENTIONS:
    ...     record = schedule(jobs, Cluster(4), policy="easy", conventions=conventions)
    ...     print(conventions, [o.start for o in record.outcomes])
    instant [0, 0, 10, 20]
    pyss [0, 0, 60, 10]
    """
    with paused_gc():  # millions of small acyclic objects (see schedlib.collector)
        return _schedule(
            jobs, cluster, policy, excluded, progress, log_reservations, decide, conventions
        )


def _schedule(
    jobs: Iterable[Job],
    cluster: Cluster,
    policy: str,
    excluded: Iterable[ExcludedRecord],
    progress: Callable[[float, int], None] | None,
    log_reservations: bool,
    decide: Callable[[Any], Any] | None,
    conventions: str,
) -> RunRecord:
    model = BackfillModel(
        jobs,
        cluster,
        policy,
        excluded=excluded,
        log_reservations=log_reservations,
        decide=decide,
        conventions=conventions,
    )
    trace = simulate(model, model.initial_state(), model.initial_events(), progress=progress)
    parameters: dict[str, Any] = {
        "policy": policy,
        "processors": cluster.processors,
        "cluster": cluster.name,
        "decide": None if decide is None else getattr(decide, "__name__", repr(decide)),
    }
    if conventions != "instant":  # absent: the default (keeps default outputs unchanged)
        parameters["conventions"] = conventions
    return RunRecord.from_log(
        policy, model.records, trace.log, capacity=cluster.processors, parameters=parameters
    )


def schedule_iter(
    jobs: Iterable[Job],
    cluster: Cluster,
    *,
    policy: str = "easy",
    excluded: Iterable[ExcludedRecord] = (),
    progress: Callable[[float, int], None] | None = None,
    conventions: str = "instant",
    mixed: Iterable[Job | ExcludedRecord] = (),
) -> Iterator[JobOutcome]:
    """Run a backfilling policy like [`schedule`][schedlib.backfill.simulation.schedule], yielding each outcome as its job ends.

    Nothing is kept once handed out — neither the log nor the outcomes — and
    the workload is read as the simulation reaches it, so memory stays flat
    for traces of tens of millions of jobs (see the Performance page).

    Parameters
    ----------
    jobs, excluded
        As for `schedule`, but each must be in arrival order (submit time,
        then id): they are read once, as the run reaches them (any iterable,
        a generator included). A trace's jobs are in that order.
    cluster, policy, progress, conventions
        As for `schedule`.
    mixed
        Jobs ([`Job`][schedlib.model.Job]) and excluded records (anything
        else) in one iterable, in arrival order: what a trace cleaned while it
        is read yields ([`clean_in_order`][schedlib.workloads.cleaning.clean_in_order]).
        Read one record ahead, where separate `jobs` and `excluded` iterables
        are each read one ahead (the next excluded record may lie far into the
        trace).

    Yields
    ------
    JobOutcome
        One per record, when it reaches its terminal event: in the order the
        jobs end (excluded records at their submit time), not in input order.
        The same outcomes as `schedule(...).outcomes`, in another order.

    Raises
    ------
    InvalidValueError
        As `schedule` (a job wider than the cluster, ...) — when the run
        reaches the record — and for a record out of arrival order, or an id
        that is already in the system (ids are checked against the jobs not
        yet ended; checking them against every past job would need memory
        growing with the trace).

    Notes
    -----
    The run is [`schedlib.engine.stream`][schedlib.engine.stream] over the
    same model as `schedule`, without the event budget (a stream's length
    is not known in advance; the livelock rule still guards it). Memory:
    $O(q + r + c)$ for $q$ waiting and $r$ running jobs and a chunk of $c$
    log entries; time: that of `schedule`.

    References
    ----------
    Sabin et al. (2003) §2; Lifka 1995 (EASY); Mu'alem and Feitelson 2001 (conservative).

    Examples
    --------
    >>> from schedlib.model import Cluster, Job
    >>> jobs = (Job(i, 10 * i, 2, 100, 30 + i) for i in range(1, 5))
    >>> [(o.job, o.start, o.end) for o in schedule_iter(jobs, Cluster(4), policy="fcfs")]
    [(1, 10, 41), (2, 20, 52), (3, 41, 74), (4, 52, 86)]
    """  # noqa: E501
    model = BackfillModel(
        jobs, cluster, policy, excluded=excluded, conventions=conventions, stream=True, mixed=mixed
    )
    assert model._window is not None
    pending = model._window.pending
    run = stream(
        model,
        model.initial_state(),
        model.initial_events(),
        max_events=_NO_BUDGET,
        progress=progress,
    )
    ledger = OutcomeLedger()
    open_job, feed, close = ledger.open, ledger.feed, ledger.close
    for entry in run:
        if entry.kind is _SUBMIT:
            open_job(pending.pop(entry.job))
        elif feed(entry):
            yield close(entry.job)


_NO_BUDGET = 1 << 62
"""A streamed run has no event budget (its length is unknown); the livelock rule guards it."""
