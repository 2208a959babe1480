"""Event model of a grid of multi-resource nodes: local decisions, PUSH/PULL, queue balancing.

[`GridModel`][schedlib.preemption.grid.GridModel] plugs into
[`schedlib.engine.simulate`][schedlib.engine.simulate];
[`simulate_grid`][schedlib.preemption.grid.simulate_grid] runs it and returns a
[`RunRecord`][schedlib.model.RunRecord]. Three modules share the work: this
one holds the model's configuration and the transitions of arrivals,
completions and ticks; [`schedlib.preemption.scheduling_pass`][schedlib.preemption.scheduling_pass]
applies the paper's decisions at each instant;
[`schedlib.preemption.state`][schedlib.preemption.state] holds the state and how a
job's progress changes.

**What happens.** Each arriving job is placed by the
[`Matchmaker`][schedlib.preemption.topology.Matchmaker] in the queue of a lightly loaded
node whose capacity covers it (a job no node can hold ends `UNSCHEDULABLE`
at once, with the reason). A node takes a local decision
([`schedule_preemptive`][schedlib.preemption.decision.schedule_preemptive] or the
FCFS baseline) when a job arrives there, when one of its jobs completes, and
at periodic ticks every $\\delta$ seconds (Balasubramanian et al. 2013, §5.1); at ticks it then
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
Balasubramanian et al. (2013) §3 (job life cycle), §5.1 (when the scheduler runs), §5.2
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

import math
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any

import attrs

from schedlib.engine import Event, Phase, Step, default_budget, simulate
from schedlib.errors import InvalidValueError
from schedlib.model import EventKind, JobEvent, JobId, RunRecord, Time
from schedlib.preemption.decision import (
    LOCAL_POLICIES,
    Contender,
    Decision,
    LocalPolicy,
    NodeSnapshot,
    progress_made,
)
from schedlib.preemption.migration import PUSH_RECEIVERS, choose_pull_job, choose_push_target
from schedlib.preemption.priority import DEFAULT_ALPHA, DEFAULT_BETA
from schedlib.preemption.resources import GridJob, GridNode, Vector, total
from schedlib.preemption.scheduling_pass import DONE, TICK, SchedulingPass
from schedlib.preemption.state import (
    GridState,
    JobProgress,
    NodeState,
    contender,
    stopped,
    waiting,
)
from schedlib.preemption.topology import LoadKey, Matchmaker, Topology, isolated, load_key
from schedlib.validation import require

__all__ = ["GridModel", "Observer", "run_model", "simulate_grid"]

Observer = Callable[[NodeSnapshot, Decision], None]
"""Called with every local decision (e.g. the decision-level invariant checkers)."""

_INF = math.inf
_DONE, _TICK = DONE, TICK


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
    push_receiver
        What a neighbour accepts a PUSH for
        ([`PUSH_RECEIVERS`][schedlib.preemption.migration.PUSH_RECEIVERS]): `"fit"`, the
        job fits its free vector now (§5.3, the default), or `"preempt"`, also when the
        neighbour's local decision would start it there by preempting lower-priority jobs
        (the pushed job then joins the receiver's queue and the receiver decides at once).
    matchmaker
        The placement of arriving jobs (default: the global
        [`Matchmaker`][schedlib.preemption.topology.Matchmaker] of `nodes`; a
        `Matchmaker(nodes, choices=d, seed=s)` for the limited view).
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
        push_receiver: str = "fit",
        matchmaker: Matchmaker | None = None,
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
        self.trusted = isinstance(policy, str)
        """Built-in policies are trusted; a user's decisions are checked before they apply."""
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
        if push_receiver not in PUSH_RECEIVERS:
            raise InvalidValueError(
                "push_receiver", push_receiver, f"must be one of {', '.join(PUSH_RECEIVERS)}"
            )
        self.push_receiver = push_receiver
        self.matchmaker = matchmaker if matchmaker is not None else Matchmaker(self.nodes)

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

    def event_budget(self, state: GridState) -> int:
        """The progress guard's event budget: ticks over a generous horizon plus per-job events.

        The horizon $H = t_{last} + 2 (\\sum_j r_j / s_{min} + n c)$ (last
        submit, every job run alone on the slowest node, one resume overhead
        each, doubled) bounds a correct run's makespan; the budget is
        $4 \\lceil H / \\delta \\rceil$ tick events plus
        [`default_budget`][schedlib.engine.loop.default_budget] of $2 n$.

        Examples
        --------
        >>> from schedlib.preemption.resources import GridJob, GridNode
        >>> model = GridModel([GridNode(0, (1,))], [GridJob(1, 0, (1,), 50, 50)], delta=5)
        >>> model.event_budget(model.initial()[0])
        100080
        """
        slowest = min(node.speed for node in self.nodes)
        last = max((job.submit for job in self.jobs), default=0)
        work = sum(job.runtime for job in self.jobs) / slowest + len(self.jobs) * self.overhead
        ticks = math.ceil((last + 2 * work) / self.delta)
        return default_budget(2 * len(self.jobs)) + 4 * ticks

    def remaining_work(self, state: GridState, now: Time) -> float:
        """Canonical work left on the grid at `now` (the progress guard's livelock measure).

        A running job's work left is its work at its segment's start minus
        [`progress_made`][schedlib.preemption.decision.progress_made] since; a
        resume overhead makes no progress, so jobs preempted at every tick
        before their overhead is paid leave it constant. Complexity: $O(n)$.
        """
        total = 0.0
        for node, here in zip(self.nodes, state.nodes, strict=True):
            for p in here.running:
                total += p.work - progress_made(now - p.since, node.speed, p.overhead)
            for p in here.waiting:
                total += p.work
        return total

    def on_event(self, state: GridState, event: Event) -> Step[GridState]:
        payload = event.payload
        if payload[0] == _TICK:
            return Step(attrs.evolve(state, tick=True, next_tick=None), wake=True)
        if payload[0] == _DONE:
            return self._complete(state, event.time, payload[1], payload[2])
        return self._arrive(state, event.time, self.jobs[payload[0]])

    def _arrive(self, state: GridState, now: Time, job: GridJob) -> Step[GridState]:
        submit = JobEvent(now, job.id, EventKind.SUBMIT)
        target = self.matchmaker.place(job.requirement, state.keys, job.id)
        if target is None:
            largest = tuple(max(n.capacity[k] for n in self.nodes) for k in range(self.kinds))
            reason = (
                f"requirement {job.requirement} exceeds the capacity of every node "
                f"(largest per kind: {largest})"
            )
            log = (submit, JobEvent(now, job.id, EventKind.UNSCHEDULABLE, detail=reason))
            new = attrs.evolve(state, arrived=state.arrived + 1, finished=state.finished + 1)
            return Step(new, log=log)
        progress = waiting(job, now)
        node = state.nodes[target]
        node = attrs.evolve(node, waiting=(*node.waiting, progress))
        nodes = list(state.nodes)
        keys = list(state.keys)
        self.store(nodes, keys, target, node)
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
        node = attrs.evolve(node, running=running, used=self.used(running))
        nodes = list(state.nodes)
        keys = list(state.keys)
        self.store(nodes, keys, where, node)
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

    # -- helpers of the transitions and of the pass -----------------------------------

    def used(self, running: Iterable[JobProgress]) -> Vector:
        """What the `running` jobs hold, summed over every kind."""
        return total((p.job.requirement for p in running), self.kinds)

    def store(self, nodes: list[NodeState], keys: list[LoadKey], i: int, node: NodeState) -> None:
        """Put node `i`'s new state in `nodes` and refresh its matchmaker key in `keys`."""
        nodes[i] = node
        keys[i] = load_key(self.nodes[i], node.used, len(node.waiting))

    def preempted(self, p: JobProgress, now: Time, speed: float) -> JobProgress:
        """A running job stopped at `now`: it keeps its progress and owes the overhead.

        The model's hook for [`stopped`][schedlib.preemption.state.stopped] with
        this model's overhead $c$ (a subclass may change what a preemption does
        to a job's progress, e.g. to test the checkers).
        """
        return stopped(p, now, speed, self.overhead)

    def contender(self, p: JobProgress, now: Time, speed: float) -> Contender:
        """Job `p` as the local decision sees it, with this model's $\\alpha$ and $\\beta$."""
        return contender(p, now, speed, self.alpha, self.beta)

    def queue(self, node: NodeState, now: Time, speed: float) -> tuple[Contender, ...]:
        """The waiting jobs of `node` as contenders, in arrival order."""
        return tuple(contender(p, now, speed, self.alpha, self.beta) for p in node.waiting)

    def could_act(self, nodes: Sequence[NodeState], i: int) -> bool:
        """Whether node `i` could decide anything at a tick (something waits, or it could pull)."""
        node = nodes[i]
        if node.waiting:
            return True
        if not (self.pull and node.used[0] < self.nodes[i].capacity[0]):
            return False
        return any(nodes[j].waiting for j in self.topology.neighbours[i])

    # -- the scheduling pass ------------------------------------------------------------

    def on_pass(self, state: GridState, now: Time) -> Step[GridState]:
        """Run one [`SchedulingPass`][schedlib.preemption.scheduling_pass.SchedulingPass]."""
        return SchedulingPass(self, state, now).run()

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
        `pull`, `push_receiver`, `matchmaker`, `balance`, `exhaustive`, `observer`,
        `push_target`, `pull_job`.

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
    Balasubramanian et al. (2013) §5, §6.1.

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
            "push_receiver": model.push_receiver,
            "matchmaker": model.matchmaker.view,
            "pull": model.pull,
            "balance": model.balance,
            "nodes": len(model.nodes),
            "events": trace.events,
        },
    )
