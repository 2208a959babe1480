r"""One scheduling pass over the grid: local decisions, then PUSH, PULL and balancing.

The engine runs one pass per instant at which something happened
([`GridModel.on_pass`][schedlib.preemption.grid.GridModel.on_pass]). The pass
asks the paper's decision functions — the local decision
([`schedule_preemptive`][schedlib.preemption.decision.schedule_preemptive] or the
FCFS baseline), the PUSH target, the PULL partner and job, the balancing move
([`schedlib.preemption.migration`][schedlib.preemption.migration]) — and applies
what they return to the nodes:

1. the nodes where a job arrived or completed decide first (Balasubramanian
   et al. 2013, §5.1: the scheduler runs on every arrival and completion);
2. at a tick (every $\delta$ seconds), the due nodes decide and then PUSH their
   best waiting job, PULL one job and, if enabled, make one balancing move
   (§5.3, §8), in id order; a node that changes makes its neighbours due. A
   PUSH that may preempt at the receiver (`push_receiver="preempt"`) puts the job
   in the receiver's queue and runs the receiver's local decision at once, which
   starts it (the acceptance test ran that very decision).

It also keeps the bookkeeping that lets later ticks skip nodes whose decision
cannot change (see [`schedlib.preemption.grid`][schedlib.preemption.grid]).
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

import attrs

from schedlib.engine import Event, Phase, Step
from schedlib.errors import InvalidDecisionError, InvalidValueError
from schedlib.model import EventKind, JobEvent, JobId, Time
from schedlib.preemption.decision import (
    Contender,
    Decision,
    NodeSnapshot,
    apply_decision,
    rank_key,
)
from schedlib.preemption.migration import (
    NeighbourView,
    balance_pull,
    balance_push,
    pull_partners,
)
from schedlib.preemption.priority import overtake_delay
from schedlib.preemption.resources import GridNode, Vector, fits
from schedlib.preemption.state import (
    GridState,
    JobProgress,
    NodeState,
    moved,
    remaining_time,
    resumed,
)
from schedlib.preemption.topology import LoadKey, Topology

__all__ = ["BALANCE_DETAIL", "PULL_DETAIL", "PUSH_DETAIL", "GridSetting", "SchedulingPass"]

PUSH_DETAIL = "push from"
"""Detail prefix of a `MIGRATE` by PUSH (the job starts at once on the receiver)."""
PULL_DETAIL = "pull from"
"""Detail prefix of a `MIGRATE` by PULL (the job starts at once on the receiver)."""
BALANCE_DETAIL = "balance from"
"""Detail prefix of a queue-balancing `MIGRATE` (the job joins the receiver's queue)."""

DONE = "done"
"""Payload tag of a completion event, `(DONE, job, node)`, keyed `(DONE, job)`."""
TICK = "tick"
"""Payload tag and key of the periodic tick event."""

_INF = float("inf")
_DONE, _TICK = DONE, TICK


class GridSetting(Protocol):
    """What a pass reads of its model: the grid, the options, the decisions and the helpers.

    [`GridModel`][schedlib.preemption.grid.GridModel] provides it.
    """

    nodes: tuple[GridNode, ...]
    topology: Topology
    alpha: float
    beta: float
    push: bool
    push_receiver: str
    pull: bool
    balance: bool
    internode: bool
    exhaustive: bool
    trusted: bool
    policy_name: str
    decide: Callable[[NodeSnapshot], Decision]
    observer: Callable[[NodeSnapshot, Decision], None] | None
    push_target: Callable[..., int | None]
    pull_job: Callable[..., JobId | None]

    def used(self, running: Iterable[JobProgress]) -> Vector: ...

    def store(
        self, nodes: list[NodeState], keys: list[LoadKey], i: int, node: NodeState
    ) -> None: ...

    def preempted(self, p: JobProgress, now: Time, speed: float) -> JobProgress: ...

    def contender(self, p: JobProgress, now: Time, speed: float) -> Contender: ...

    def queue(self, node: NodeState, now: Time, speed: float) -> tuple[Contender, ...]: ...

    def could_act(self, nodes: Sequence[NodeState], i: int) -> bool: ...

    def on_tick(self, now: Time) -> bool: ...

    def tick_after(self, now: Time, at_least: Time | None = None) -> Time: ...


class SchedulingPass:
    """One scheduling pass over the grid at one instant (a working copy private to the pass).

    Built by [`GridModel.on_pass`][schedlib.preemption.grid.GridModel.on_pass];
    [`run`][schedlib.preemption.scheduling_pass.SchedulingPass.run] returns the
    engine step. Nothing outside the pass sees its lists and sets change.
    """

    def __init__(self, model: GridSetting, state: GridState, now: Time) -> None:
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
        """Decide at the touched nodes, then (at a tick) at the due nodes; return the step.

        A node whose wake time (when a waiting job's priority may pass a running
        job's, from [`overtake_delay`][schedlib.preemption.priority.overtake_delay]
        on float priorities) falls at most $10^{-9}$ relative after the tick is
        visited at that tick, so that a wake computed an ulp late (a difference of
        float priorities) is not put off to the next tick; the decision at the
        visit compares exact priorities
        ([`ExactPriority`][schedlib.preemption.priority.ExactPriority]). The slack
        is a tolerance on times, not a comparison as written: a wake truly
        within $10^{-9}$ relative after the tick is visited early (an audit of
        the float comparisons found no instance where it matters; kept, and
        documented here).
        """
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
        # 1. the nodes where a job arrived or completed decide first (§5.1)
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
        due = {i for i in due if m.could_act(self.nodes, i)}
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
        if self.wakes:
            # tick_after is non-decreasing in its second argument: the earliest wake decides
            candidates.append(m.tick_after(now, min(self.nodes[i].wake for i in self.wakes)))
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
        self.m.store(self.nodes, self.keys, i, node)
        self._changed(i)

    def _queue(self, i: int) -> tuple[Contender, ...]:
        queue = self.queue_cache.get(i)
        if queue is None:
            queue = self.m.queue(self.nodes[i], self.now, self.m.nodes[i].speed)
            self.queue_cache[i] = queue
        return queue

    def _view(self, i: int, *, running: bool = False) -> NeighbourView:
        m, spec, node = self.m, self.m.nodes[i], self.nodes[i]
        jobs = tuple(m.contender(p, self.now, spec.speed) for p in node.running) if running else ()
        return NeighbourView(i, spec.capacity, node.used, spec.speed, self._queue(i), jobs)

    # -- local decision -----------------------------------------------------------------

    def _local(self, i: int) -> None:
        m, now = self.m, self.now
        node = self.nodes[i]
        spec = m.nodes[i]
        speed = spec.speed
        running = tuple(m.contender(p, now, speed) for p in node.running)
        waiting = self._queue(i)
        snapshot = NodeSnapshot.trusted(spec.capacity, running, waiting)
        decision = m.decide(snapshot)
        if not m.trusted:
            _check_decision(m.policy_name, now, i, snapshot, decision)
        if m.observer is not None:
            m.observer(snapshot, decision)
        if decision.preempt or decision.start:
            node = self._apply(i, node, decision)
            self._put(i, node)
            running = tuple(m.contender(p, now, speed) for p in node.running)
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
        return NodeState(runs, tuple(queue), m.used(runs), node.wake)

    def _started(self, i: int, p: JobProgress) -> JobProgress:
        now = self.now
        started = resumed(p, now, self.m.nodes[i].speed)
        end = started.end
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
                    remaining=remaining_time(p, now, speed),
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
        arrived = moved(p, now)
        self.log.append(JobEvent(now, job_id, EventKind.MIGRATE, (target,), detail=detail))
        dst = self.nodes[target]
        if start:
            self.waiting -= 1
            runs = (*dst.running, self._started(target, arrived))
            dst = attrs.evolve(dst, running=runs, used=self.m.used(runs))
        else:
            dst = attrs.evolve(dst, waiting=(*dst.waiting, arrived))
        self._put(target, dst)

    def _push(self, i: int) -> None:
        m, now = self.m, self.now
        queue = self._queue(i)
        head = min(queue, key=rank_key)
        neighbours = m.topology.neighbours[i]
        if m.push_receiver == "fit":
            views = [self._view(j) for j in neighbours]
            target = m.push_target(head.priority, head.requirement, views)
            if target is not None:
                self._migrate(head.job, i, target, f"{PUSH_DETAIL} {i}", start=True)
            return
        # the receiver may preempt: it takes the job into its queue and decides at once, on
        # the snapshot the acceptance test saw, so the job starts there now
        views = [self._view(j, running=True) for j in neighbours]
        arrived = moved(next(p for p in self.nodes[i].waiting if p.job.id == head.job), now)
        guests = {j: m.contender(arrived, now, m.nodes[j].speed) for j in neighbours}
        target = m.push_target(
            head.priority, head.requirement, views, receiver="preempt", guests=guests,
            decide=m.decide,
        )  # fmt: skip
        if target is None:
            return
        fits_now = fits(head.requirement, next(v for v in views if v.node == target).free)
        self._migrate(head.job, i, target, f"{PUSH_DETAIL} {i}", start=fits_now)
        if not fits_now:
            self._local(target)

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


def _check_decision(
    policy: str, now: Time, node: int, snapshot: NodeSnapshot, decision: Decision
) -> None:
    """Refuse a decision of a user's policy that the node cannot carry out.

    [`apply_decision`][schedlib.preemption.decision.apply_decision] checks it:
    jobs named twice, preempted while not running, started while not waiting,
    or more than the node's capacity running afterwards.
    """
    try:
        apply_decision(snapshot, decision)
    except InvalidValueError as error:
        raise InvalidDecisionError(
            policy, now, f"on node {node}: {error.field} {error.value!r} {error.reason}", decision
        ) from None
