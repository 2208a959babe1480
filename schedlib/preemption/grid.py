"""Event model of a grid of multi-resource nodes: local decisions, PUSH/PULL, queue balancing.

[`GridModel`][schedlib.preemption.grid.GridModel] plugs into
[`schedlib.engine.simulate`][schedlib.engine.simulate];
[`simulate_grid`][schedlib.preemption.grid.simulate_grid] runs it and returns a
[`RunRecord`][schedlib.model.RunRecord].

**What happens.** Each arriving job is placed by the
[`Matchmaker`][schedlib.preemption.topology.Matchmaker] in the queue of a lightly loaded
node whose capacity covers it (a job no node can hold ends `UNSCHEDULABLE`
at once, with the reason). A node takes a local decision
([`schedule_preemptive`][schedlib.preemption.decision.schedule_preemptive] or the
FCFS baseline) when a job arrives there, when one of its jobs completes, and
at periodic ticks every $\\delta$ seconds (seed 000 §5.1); at ticks it then
tries one PUSH of its best waiting job, one PULL and, if enabled, one
queue-balancing move (§5.3, §8). Ticks fall on multiples of $\\delta$; at an
instant the nodes act in id order.

**Preemption keeps progress.** A preempted job's completion event is
cancelled (by its key); its remaining canonical work and estimate are kept,
and when it resumes, on this node or another, it first pays the overhead $c$
(default 0). `START`, `PREEMPT`, `MIGRATE` (place = the receiver, detail =
how and from where), `COMPLETE` and `UNSCHEDULABLE` are logged; `ASSIGN`
records the matchmaker's placement.

**No idle visits.** A tick visits only the nodes whose decision could differ
from their last one: nodes whose own state or a neighbour's state changed
since (with internode scheduling), and nodes where a waiting job's rising
priority is about to pass a running job's
([`overtake_delay`][schedlib.preemption.priority.overtake_delay]). Between such
moments a node's decision cannot change: two waiting jobs never swap ranks,
running jobs' priorities rise at least as fast as waiting ones while their
estimate lasts, and PUSH/PULL compare waiting priorities only. The ticks stop
when no node is due. `exhaustive=True` visits every node at every tick while
any job waits (the literal reading, kept as the reference: the tests check
both give the same log).

References
----------
Seed 000 §3 (job life cycle), §5.1 (when the scheduler runs), §5.2
(overhead), §5.3 (internode), §6.1 (experiment), §8 (queue balancing).

Examples
--------
One single-core node; a long job runs when a short one arrives and preempts
it; the long one resumes where it stopped:

>>> from schedlib.preemption.resources import GridJob, GridNode
>>> nodes = [GridNode(0, (1, 1024))]
>>> jobs = [GridJob(1, 0, (1, 512), 1000, 1000), GridJob(2, 100, (1, 512), 50, 50)]
>>> record = simulate_grid(jobs, nodes)
>>> [(e.time, e.job, e.kind.value) for e in record.events if e.kind.value != "assign"]
[(0, 1, 'submit'), (0, 1, 'start'), (100, 2, 'submit'), (100, 1, 'preempt'),
 (100, 2, 'start'), (150.0, 2, 'complete'), (150.0, 1, 'start'), (1050.0, 1, 'complete')]
"""

from __future__ import annotations

import bisect
import heapq
import math
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any

import attrs

from schedlib.engine import Event, Phase, Step, simulate
from schedlib.errors import InvalidValueError
from schedlib.model import EventKind, JobEvent, JobId, RunRecord, Time
from schedlib.preemption.decision import (
    LOCAL_POLICIES,
    Contender,
    Decision,
    LocalPolicy,
    NodeSnapshot,
    progress_made,
    rank_key,
    time_to_finish,
)
from schedlib.preemption.migration import (
    NeighbourView,
    balance_pull,
    balance_push,
    choose_pull_job,
    choose_push_target,
    pull_partners,
)
from schedlib.preemption.priority import DEFAULT_ALPHA, DEFAULT_BETA, overtake_delay
from schedlib.preemption.resources import GridJob, GridNode, Vector, total
from schedlib.preemption.topology import LoadKey, Matchmaker, Topology, isolated, load_key
from schedlib.validation import require

__all__ = [
    "BALANCE_DETAIL",
    "PULL_DETAIL",
    "PUSH_DETAIL",
    "GridModel",
    "GridState",
    "JobProgress",
    "NodeState",
    "Observer",
    "run_model",
    "simulate_grid",
]

PUSH_DETAIL = "push from"
"""Detail prefix of a `MIGRATE` by PUSH (the job starts at once on the receiver)."""
PULL_DETAIL = "pull from"
"""Detail prefix of a `MIGRATE` by PULL (the job starts at once on the receiver)."""
BALANCE_DETAIL = "balance from"
"""Detail prefix of a queue-balancing `MIGRATE` (the job joins the receiver's queue)."""

Observer = Callable[[NodeSnapshot, Decision], None]
"""Called with every local decision (e.g. the decision-level invariant checkers)."""

_INF = math.inf
_DONE = "done"
_TICK = "tick"


@attrs.frozen(slots=True)
class JobProgress:
    """The state of a job on its current node (running or waiting).

    Attributes
    ----------
    job
        The job.
    arrival
        When it arrived at this node.
    wait
        Non-executing seconds on this node accumulated up to `since`
        ($W$ of the priority; reset when the job migrates).
    since
        Start of the current running segment or waiting spell.
    work
        Canonical actual work left at `since`.
    estimate
        Canonical estimated work left at `since` (may go below 0 when the
        estimate was too short; $T_{rem}$ counts it as 0).
    overhead
        Overhead to pay in the current (running) or next (waiting) segment.
    end
        Completion time while running, `inf` while waiting.
    """

    job: GridJob
    arrival: Time
    wait: Time
    since: Time
    work: Time
    estimate: Time
    overhead: Time
    end: Time


@attrs.frozen(slots=True)
class NodeState:
    """One node's jobs.

    Attributes
    ----------
    running
        Executing jobs, in start order.
    waiting
        Queued jobs, in arrival order.
    used
        What the running jobs hold (summed from scratch on every change).
    wake
        Earliest time a waiting job's priority may pass a running job's,
        `inf` if never.
    """

    running: tuple[JobProgress, ...] = ()
    waiting: tuple[JobProgress, ...] = ()
    used: Vector = ()
    wake: Time = _INF


@attrs.frozen(slots=True)
class GridState:
    """The whole grid between events.

    Attributes
    ----------
    nodes
        One [`NodeState`][schedlib.preemption.grid.NodeState] per node.
    keys
        The matchmaker's load key of every node.
    touched
        Nodes with an arrival or completion at the current instant.
    due
        Nodes to visit at the next tick.
    wakes
        Nodes with a finite `wake`.
    tick
        Whether a tick falls on the current instant.
    next_tick
        Time of the pending tick event, if any.
    waiting
        Number of waiting jobs in the grid.
    arrived
        Number of arrivals handled.
    finished
        Number of jobs that reached a terminal state.
    """

    nodes: tuple[NodeState, ...]
    keys: tuple[LoadKey, ...]
    touched: frozenset[int] = frozenset()
    due: frozenset[int] = frozenset()
    wakes: frozenset[int] = frozenset()
    tick: bool = False
    next_tick: Time | None = None
    waiting: int = 0
    arrived: int = 0
    finished: int = 0


class GridModel:
    """The engine model of a grid of nodes (see the module notes).

    Parameters
    ----------
    nodes
        The nodes, `nodes[i].id == i`.
    jobs
        The workload; ids unique; requirement vectors as long as capacities.
    policy
        Local decision: `"preemptive"` (Algorithm 1), `"fcfs"` (FCFS with
        backfilling) or any `NodeSnapshot -> Decision` function.
    topology
        Neighbour graph for PUSH/PULL and balancing; `None` for local
        scheduling only.
    alpha, beta
        Priority weights (`>= 0`).
    delta
        Seconds between ticks (`> 0`).
    overhead
        Seconds charged at each resume after a preemption (`>= 0`).
    push, pull
        Enable PUSH and PULL (with a topology).
    balance
        Enable queue balancing (with a topology).
    exhaustive
        Visit every node at every tick (the reference semantics).
    observer
        Called with every local decision's snapshot and decision.
    push_target, pull_job
        The PUSH target and PULL job choices (replaceable for experiments).

    Raises
    ------
    InvalidValueError
        For a bad parameter, node ids not `0..n-1`, duplicate job ids,
        requirement vectors of the wrong length or a topology of the wrong
        size.
    """

    def __init__(
        self,
        nodes: Sequence[GridNode],
        jobs: Iterable[GridJob],
        *,
        policy: str | LocalPolicy = "preemptive",
        topology: Topology | None = None,
        alpha: float = DEFAULT_ALPHA,
        beta: float = DEFAULT_BETA,
        delta: Time = 5.0,
        overhead: Time = 0.0,
        push: bool = True,
        pull: bool = True,
        balance: bool = False,
        exhaustive: bool = False,
        observer: Observer | None = None,
        push_target: Callable[..., int | None] = choose_push_target,
        pull_job: Callable[..., JobId | None] = choose_pull_job,
    ) -> None:
        self.nodes = tuple(nodes)
        if not self.nodes:
            raise InvalidValueError("nodes", self.nodes, "must not be empty")
        self.kinds = len(self.nodes[0].capacity)
        for i, node in enumerate(self.nodes):
            if node.id != i:
                raise InvalidValueError(f"nodes[{i}].id", node.id, f"must be {i}")
            if len(node.capacity) != self.kinds:
                raise InvalidValueError(
                    f"nodes[{i}].capacity", node.capacity, f"must have {self.kinds} kinds"
                )
        self.workload = tuple(jobs)
        self.jobs = tuple(sorted(self.workload, key=lambda j: (j.submit, j.id)))
        seen: set[JobId] = set()
        for job in self.jobs:
            if job.id in seen:
                raise InvalidValueError("jobs", job.id, "job id appears twice")
            seen.add(job.id)
            if len(job.requirement) != self.kinds:
                raise InvalidValueError(
                    f"job {job.id}.requirement", job.requirement, f"must have {self.kinds} kinds"
                )
        if isinstance(policy, str):
            if policy not in LOCAL_POLICIES:
                raise InvalidValueError(
                    "policy", policy, f"must be one of {sorted(LOCAL_POLICIES)}"
                )
            self.policy_name = policy
            self.decide: LocalPolicy = LOCAL_POLICIES[policy]
        else:
            self.policy_name = getattr(policy, "__name__", "custom")
            self.decide = policy
        self.topology = topology if topology is not None else isolated(len(self.nodes))
        if len(self.topology) != len(self.nodes):
            raise InvalidValueError(
                "topology",
                self.topology.name,
                f"has {len(self.topology)} nodes, not {len(self.nodes)}",
            )
        self.alpha = require(alpha, "alpha", at_least=0)
        self.beta = require(beta, "beta", at_least=0)
        self.delta = require(delta, "delta", greater_than=0)
        self.overhead = require(overhead, "overhead", at_least=0)
        linked = any(self.topology.neighbours)
        self.push = push and linked
        self.pull = pull and linked
        self.balance = balance and linked
        self.internode = self.push or self.pull or self.balance
        self.exhaustive = exhaustive
        self.observer = observer
        self.push_target = push_target
        self.pull_job = pull_job
        self.matchmaker = Matchmaker(self.nodes)

    # -- the engine protocol -------------------------------------------------------------

    def initial(self) -> tuple[GridState, list[Event]]:
        """The initial state (empty nodes) and the arrival events."""
        zero = (0,) * self.kinds
        nodes = tuple(NodeState(used=zero) for _ in self.nodes)
        keys = tuple(load_key(n, zero, 0) for n in self.nodes)
        events = [Event(job.submit, Phase.ARRIVAL, (i,)) for i, job in enumerate(self.jobs)]
        return GridState(nodes=nodes, keys=keys), events

    def is_done(self, state: GridState) -> bool:
        return state.finished == len(self.jobs)

    def unfinished(self, state: GridState) -> Collection[JobId]:
        ids = [p.job.id for node in state.nodes for p in node.running + node.waiting]
        ids.extend(job.id for job in self.jobs[state.arrived :])
        return ids

    def on_event(self, state: GridState, event: Event) -> Step[GridState]:
        payload = event.payload
        if payload[0] == _TICK:
            return Step(attrs.evolve(state, tick=True, next_tick=None), wake=True)
        if payload[0] == _DONE:
            return self._complete(state, event.time, payload[1], payload[2])
        return self._arrive(state, event.time, self.jobs[payload[0]])

    def _arrive(self, state: GridState, now: Time, job: GridJob) -> Step[GridState]:
        submit = JobEvent(now, job.id, EventKind.SUBMIT)
        target = self.matchmaker.place(job.requirement, state.keys)
        if target is None:
            largest = tuple(max(n.capacity[k] for n in self.nodes) for k in range(self.kinds))
            reason = (
                f"requirement {job.requirement} exceeds the capacity of every node "
                f"(largest per kind: {largest})"
            )
            log = (submit, JobEvent(now, job.id, EventKind.UNSCHEDULABLE, detail=reason))
            new = attrs.evolve(state, arrived=state.arrived + 1, finished=state.finished + 1)
            return Step(new, log=log)
        progress = JobProgress(job, now, 0.0, now, job.runtime, job.estimate, 0.0, _INF)
        node = state.nodes[target]
        node = attrs.evolve(node, waiting=(*node.waiting, progress))
        nodes = list(state.nodes)
        keys = list(state.keys)
        self._store(nodes, keys, target, node)
        due = self._mark(state.due, (target,))
        new = attrs.evolve(
            state,
            nodes=tuple(nodes),
            keys=tuple(keys),
            touched=state.touched | {target},
            due=due,
            waiting=state.waiting + 1,
            arrived=state.arrived + 1,
        )
        log = (submit, JobEvent(now, job.id, EventKind.ASSIGN, (target,)))
        return Step(new, log=log, wake=True)

    def _complete(self, state: GridState, now: Time, job_id: JobId, where: int) -> Step[GridState]:
        node = state.nodes[where]
        running = tuple(p for p in node.running if p.job.id != job_id)
        node = attrs.evolve(node, running=running, used=self._used(running))
        nodes = list(state.nodes)
        keys = list(state.keys)
        self._store(nodes, keys, where, node)
        new = attrs.evolve(
            state,
            nodes=tuple(nodes),
            keys=tuple(keys),
            touched=state.touched | {where},
            due=self._mark(state.due, (where,)),
            finished=state.finished + 1,
        )
        return Step(new, log=(JobEvent(now, job_id, EventKind.COMPLETE, (where,)),), wake=True)

    def _mark(self, due: frozenset[int], changed: Iterable[int]) -> frozenset[int]:
        if not self.internode:
            return due
        extra: set[int] = set()
        for n in changed:
            extra.add(n)
            extra.update(self.topology.incoming[n])
        return due | extra

    def _used(self, running: Iterable[JobProgress]) -> Vector:
        return total((p.job.requirement for p in running), self.kinds)

    def _store(self, nodes: list[NodeState], keys: list[LoadKey], i: int, node: NodeState) -> None:
        nodes[i] = node
        keys[i] = load_key(self.nodes[i], node.used, len(node.waiting))

    def preempted(self, p: JobProgress, now: Time, speed: float) -> JobProgress:
        """A running job stopped at `now`: it keeps its progress and owes the overhead.

        Parameters
        ----------
        p
            The running job.
        now
            The preemption time.
        speed
            Its node's speed.

        Returns
        -------
        JobProgress
            The waiting job: work and estimate reduced by the progress made
            ([`progress_made`][schedlib.preemption.decision.progress_made]), overhead
            $c$ due at its next resume.
        """
        done = progress_made(now - p.since, speed, p.overhead)
        return attrs.evolve(
            p,
            since=now,
            work=max(0.0, p.work - done),
            estimate=p.estimate - done,
            overhead=self.overhead,
            end=_INF,
        )

    # -- priorities ---------------------------------------------------------------------

    def _remaining(self, p: JobProgress, now: Time, speed: float) -> Time:
        """$T_{rem}$ on the node now: owed overhead plus estimated work left, in wall seconds."""
        if p.end == _INF:
            return p.overhead + max(0.0, p.estimate) / speed
        elapsed = now - p.since
        owed = max(0.0, p.overhead - elapsed)
        left = p.estimate - progress_made(elapsed, speed, p.overhead)
        return owed + max(0.0, left) / speed

    def _contender(self, p: JobProgress, now: Time, speed: float) -> Contender:
        wait = p.wait if p.end != _INF else p.wait + (now - p.since)
        prio = self.alpha * wait - self.beta * self._remaining(p, now, speed)
        return Contender(p.job.id, p.job.requirement, prio, p.arrival)

    def _queue(self, node: NodeState, now: Time, speed: float) -> tuple[Contender, ...]:
        return tuple(self._contender(p, now, speed) for p in node.waiting)

    # -- the scheduling pass ------------------------------------------------------------

    def on_pass(self, state: GridState, now: Time) -> Step[GridState]:
        pass_ = _Pass(self, state, now)
        return pass_.run()

    def _could_act(self, nodes: Sequence[NodeState], i: int) -> bool:
        node = nodes[i]
        if node.waiting:
            return True
        if not (self.pull and node.used[0] < self.nodes[i].capacity[0]):
            return False
        return any(nodes[j].waiting for j in self.topology.neighbours[i])

    def on_tick(self, now: Time) -> bool:
        """Whether `now` is a tick instant (a multiple of $\\delta$)."""
        return round(now / self.delta) * self.delta == now

    def tick_after(self, now: Time, at_least: Time | None = None) -> Time:
        """The first tick strictly after `now` (and not before `at_least`, with slack)."""
        k = math.floor(now / self.delta) + 1
        if at_least is not None and at_least > now:
            slack = 1e-9 * max(1.0, abs(at_least))
            k = max(k, math.ceil((at_least - slack) / self.delta))
        while k * self.delta <= now:
            k += 1
        return k * self.delta


class _Pass:
    """One scheduling pass over the grid at one instant (private working copy)."""

    def __init__(self, model: GridModel, state: GridState, now: Time) -> None:
        self.m = model
        self.state = state
        self.now = now
        self.nodes = list(state.nodes)
        self.keys = list(state.keys)
        self.log: list[JobEvent] = []
        self.events: list[Event] = []
        self.completions: dict[Any, Event] = {}  # by key: a start then preempt cancels it
        self.cancel: list[Any] = []
        self.waiting = state.waiting
        self.due_next: set[int] = set()
        self.wakes = set(state.wakes)
        self.queue_cache: dict[int, tuple[Contender, ...]] = {}
        self.current = -1
        self.heap: list[int] = []
        self.in_heap: set[int] = set()
        self.tick_visit: set[int] = set()
        self.tick = False

    def run(self) -> Step[GridState]:
        m, state, now = self.m, self.state, self.now
        local = set(state.touched)
        self.tick = state.tick or m.on_tick(now)
        if self.tick:
            if m.exhaustive:
                self.tick_visit = set(range(len(self.nodes)))
            else:
                self.tick_visit = set(state.due)
                for i in state.wakes:
                    if self.nodes[i].wake <= now + 1e-9 * max(1.0, abs(now)):
                        self.tick_visit.add(i)
        # 1. the nodes where a job arrived or completed decide first (seed 000 §5.1)
        for i in sorted(local):
            self._settle(i)
        # 2. at a tick, the due nodes decide and then push, pull and balance, in id order
        self.current = -1
        self.heap = sorted(self.tick_visit)
        self.in_heap = set(self.heap)
        while self.heap:
            i = heapq.heappop(self.heap)
            self.current = i
            self._settle(i)
            if m.push and self.nodes[i].waiting:
                self._push(i)
            if m.pull:
                self._pull(i)
            if m.balance and self.nodes[i].waiting:
                self._balance(i)
        due = set(self.due_next) if self.tick else set(state.due) | self.due_next
        due = {i for i in due if m._could_act(self.nodes, i)}
        next_tick = self._next_tick(due)
        if next_tick is not None and next_tick != state.next_tick:
            self.events.append(Event(next_tick, Phase.TIMER, (_TICK,), key=_TICK))
        elif next_tick is None and state.next_tick is not None:
            self.cancel.append(_TICK)
        new = GridState(
            nodes=tuple(self.nodes),
            keys=tuple(self.keys),
            touched=frozenset(),
            due=frozenset(due),
            wakes=frozenset(self.wakes),
            tick=False,
            next_tick=next_tick,
            waiting=self.waiting,
            arrived=state.arrived,
            finished=state.finished,
        )
        events = [*self.events, *self.completions.values()]
        return Step(new, events=events, cancel=self.cancel, log=self.log)

    def _next_tick(self, due: set[int]) -> Time | None:
        m, now = self.m, self.now
        if m.exhaustive:
            return m.tick_after(now) if self.waiting else None
        candidates = []
        if due:
            candidates.append(m.tick_after(now))
        for i in self.wakes:
            candidates.append(m.tick_after(now, self.nodes[i].wake))
        return min(candidates) if candidates else None

    def _settle(self, i: int) -> None:
        """The local decision of node `i` (or forget its wake time if nothing waits)."""
        if self.nodes[i].waiting:
            self._local(i)
        elif i in self.wakes:
            self.wakes.discard(i)
            self.nodes[i] = attrs.evolve(self.nodes[i], wake=_INF)

    # -- bookkeeping --------------------------------------------------------------------

    def _changed(self, i: int) -> None:
        self.queue_cache.pop(i, None)
        m = self.m
        if not m.internode:
            return
        for j in (i, *m.topology.incoming[i]):
            if j > self.current and self.tick:
                self.tick_visit.add(j)
                if j not in self.in_heap:
                    self.in_heap.add(j)
                    heapq.heappush(self.heap, j)
            else:
                self.due_next.add(j)

    def _put(self, i: int, node: NodeState) -> None:
        self.m._store(self.nodes, self.keys, i, node)
        self._changed(i)

    def _queue(self, i: int) -> tuple[Contender, ...]:
        queue = self.queue_cache.get(i)
        if queue is None:
            queue = self.m._queue(self.nodes[i], self.now, self.m.nodes[i].speed)
            self.queue_cache[i] = queue
        return queue

    def _view(self, i: int) -> NeighbourView:
        spec = self.m.nodes[i]
        return NeighbourView(i, spec.capacity, self.nodes[i].used, spec.speed, self._queue(i))

    # -- local decision -----------------------------------------------------------------

    def _local(self, i: int) -> None:
        m, now = self.m, self.now
        node = self.nodes[i]
        spec = m.nodes[i]
        speed = spec.speed
        running = tuple(m._contender(p, now, speed) for p in node.running)
        waiting = self._queue(i)
        snapshot = NodeSnapshot.trusted(spec.capacity, running, waiting)
        decision = m.decide(snapshot)
        if m.observer is not None:
            m.observer(snapshot, decision)
        if decision.preempt or decision.start:
            node = self._apply(i, node, decision)
            self._put(i, node)
            running = tuple(m._contender(p, now, speed) for p in node.running)
            waiting = self._queue(i)
        self._set_wake(i, running, waiting)

    def _apply(self, i: int, node: NodeState, decision: Decision) -> NodeState:
        m, now = self.m, self.now
        speed = m.nodes[i].speed
        running = {p.job.id: p for p in node.running}
        waiting = {p.job.id: p for p in node.waiting}
        for job_id in decision.preempt:
            waiting[job_id] = m.preempted(running.pop(job_id), now, speed)
            self.log.append(JobEvent(now, job_id, EventKind.PREEMPT, (i,)))
            self.cancel.append((_DONE, job_id))
            self.completions.pop((_DONE, job_id), None)
        self.waiting += len(decision.preempt) - len(decision.start)
        for job_id in decision.start:
            running[job_id] = self._started(i, waiting.pop(job_id))
        order = {p.job.id: n for n, p in enumerate(node.waiting)}
        queue = sorted(waiting.values(), key=lambda p: (order.get(p.job.id, len(order)), p.arrival))
        runs = tuple(running.values())
        return NodeState(runs, tuple(queue), m._used(runs), node.wake)

    def _started(self, i: int, p: JobProgress) -> JobProgress:
        now = self.now
        speed = self.m.nodes[i].speed
        end = now + time_to_finish(p.work, speed, p.overhead)
        started = attrs.evolve(p, wait=p.wait + (now - p.since), since=now, end=end)
        self.log.append(JobEvent(now, p.job.id, EventKind.START, (i,)))
        key = (_DONE, p.job.id)
        self.completions[key] = Event(end, Phase.COMPLETION, (_DONE, p.job.id, i), key=key)
        return started

    def _set_wake(
        self, i: int, running: tuple[Contender, ...], waiting: tuple[Contender, ...]
    ) -> None:
        m, now = self.m, self.now
        wake = _INF
        if running and waiting and m.alpha > 0:
            node = self.nodes[i]
            speed = m.nodes[i].speed
            priorities = sorted(c.priority for c in waiting)
            for c, p in zip(running, node.running, strict=True):
                below = bisect.bisect_right(priorities, c.priority)
                if not below:
                    continue
                delay = overtake_delay(
                    c.priority - priorities[below - 1],
                    alpha=m.alpha,
                    beta=m.beta,
                    remaining=m._remaining(p, now, speed),
                )
                wake = min(wake, now + delay)
        node = self.nodes[i]
        if wake != node.wake:
            self.nodes[i] = attrs.evolve(node, wake=wake)
        if wake < _INF:
            self.wakes.add(i)
        else:
            self.wakes.discard(i)

    # -- internode ----------------------------------------------------------------------

    def _migrate(self, job_id: JobId, source: int, target: int, detail: str, start: bool) -> None:
        now = self.now
        src = self.nodes[source]
        p = next(q for q in src.waiting if q.job.id == job_id)
        self._put(source, attrs.evolve(src, waiting=tuple(q for q in src.waiting if q is not p)))
        moved = attrs.evolve(p, arrival=now, wait=0.0, since=now)
        self.log.append(JobEvent(now, job_id, EventKind.MIGRATE, (target,), detail=detail))
        dst = self.nodes[target]
        if start:
            self.waiting -= 1
            runs = (*dst.running, self._started(target, moved))
            dst = attrs.evolve(dst, running=runs, used=self.m._used(runs))
        else:
            dst = attrs.evolve(dst, waiting=(*dst.waiting, moved))
        self._put(target, dst)

    def _push(self, i: int) -> None:
        queue = self._queue(i)
        head = min(queue, key=rank_key)
        views = [self._view(j) for j in self.m.topology.neighbours[i]]
        target = self.m.push_target(head.priority, head.requirement, views)
        if target is not None:
            self._migrate(head.job, i, target, f"{PUSH_DETAIL} {i}", start=True)

    def _pull(self, i: int) -> None:
        m = self.m
        spec = m.nodes[i]
        node = self.nodes[i]
        if node.used[0] >= spec.capacity[0]:
            return
        neighbours = [j for j in m.topology.neighbours[i] if self.nodes[j].waiting]
        if not neighbours:
            return
        own = self._queue(i)
        own_best = max((c.priority for c in own), default=None)
        views = {j: self._view(j) for j in neighbours}
        for j in pull_partners(own_best, list(views.values())):
            job = m.pull_job(spec.capacity, node.used, views[j].queue)
            if job is not None:
                self._migrate(job, j, i, f"{PULL_DETAIL} {j}", start=True)
                return

    def _balance(self, i: int) -> None:
        mine = self._view(i)
        views = [self._view(j) for j in self.m.topology.neighbours[i]]
        move = balance_push(mine, views) or balance_pull(mine, views)
        if move is not None:
            self._migrate(
                move.job, move.source, move.target, f"{BALANCE_DETAIL} {move.source}", start=False
            )


def simulate_grid(
    jobs: Iterable[GridJob],
    nodes: Sequence[GridNode],
    *,
    algorithm: str | None = None,
    max_events: int | None = None,
    progress: Callable[[Time, int], None] | None = None,
    **options: Any,
) -> RunRecord:
    """Simulate a grid of multi-resource nodes and return the run record.

    Parameters
    ----------
    jobs, nodes
        The workload and the grid.
    algorithm
        Name for the record (default: the policy, plus `+topology` with
        internode scheduling).
    max_events, progress
        Passed to [`simulate`][schedlib.engine.simulate].
    **options
        The keyword options of [`GridModel`][schedlib.preemption.grid.GridModel]:
        `policy`, `topology`, `alpha`, `beta`, `delta`, `overhead`, `push`,
        `pull`, `balance`, `exhaustive`, `observer`, `push_target`,
        `pull_job`.

    Returns
    -------
    RunRecord
        Place of every event: `(node,)`; `capacity` = total cores.

    Raises
    ------
    InvalidValueError
        For bad input (see `GridModel`).
    TypeError
        For an unknown option.
    SimulationStuckError
        If the event budget is spent.

    Notes
    -----
    Complexity: $O(E \\log E)$ engine work for $E$ events plus, per node
    visit, $O((w + r)^2 K)$ for the local decision and $O(d (q + K))$ for
    PUSH/PULL over $d$ neighbours.

    References
    ----------
    Seed 000 §5, §6.1.

    Examples
    --------
    A job too big for every node is reported, not dropped:

    >>> from schedlib.preemption.resources import GridJob, GridNode
    >>> record = simulate_grid([GridJob(1, 0, (4, 1), 10, 10)], [GridNode(0, (2, 8))])
    >>> record.outcomes[0].state.value
    'unschedulable'
    >>> record.outcomes[0].reason
    'requirement (4, 1) exceeds the capacity of every node (largest per kind: (2, 8))'
    """
    model = GridModel(nodes, jobs, **options)
    return run_model(model, algorithm=algorithm, max_events=max_events, progress=progress)


def run_model(
    model: GridModel,
    *,
    algorithm: str | None = None,
    max_events: int | None = None,
    progress: Callable[[Time, int], None] | None = None,
) -> RunRecord:
    """Run a [`GridModel`][schedlib.preemption.grid.GridModel] to the end and record it.

    Parameters
    ----------
    model
        The model (its parameters go into the record).
    algorithm
        Name for the record (default: policy, plus `+topology` with
        internode scheduling).
    max_events, progress
        Passed to [`simulate`][schedlib.engine.simulate].

    Returns
    -------
    RunRecord
        The record; the parameter `events` is the number of engine events.
    """
    state, events = model.initial()
    trace = simulate(model, state, events, max_events=max_events, progress=progress)
    if algorithm is None:
        algorithm = model.policy_name
        if model.internode:
            algorithm += f"+{model.topology.name}"
    return RunRecord.from_log(
        algorithm,
        model.workload,
        trace.log,
        capacity=sum(n.cores for n in model.nodes),
        parameters={
            "alpha": model.alpha,
            "beta": model.beta,
            "delta": model.delta,
            "overhead": model.overhead,
            "policy": model.policy_name,
            "topology": model.topology.name,
            "push": model.push,
            "pull": model.pull,
            "balance": model.balance,
            "nodes": len(model.nodes),
            "events": trace.events,
        },
    )
