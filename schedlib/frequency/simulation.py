r"""The pool model on the shared engine, and `simulate_pool`.

Runs a pool policy ([`PoolRules`][schedlib.frequency.policies.PoolRules]: PFS,
PFS+MFS, plain round robin or FCFS) on a head node and remote nodes
([`PoolNode`][schedlib.frequency.pool.PoolNode]) through
[`simulate`][schedlib.engine.simulate]. The rules decide; the model only
applies their decisions.

**Time.** Seconds, as floats. Every event time is computed once, as the
current time plus a duration the rules chose (a quantum $Q$, a remaining time
$w / r$, an idle time, the migration cost $K$), and stored in its event;
nothing compares two times computed in two different ways. With the
integers and powers of two the testing strategies draw, every time is exact.

**Events**, in the engine's phases:

- `COMPLETION` — a slice ends on node $v$ (keyed by nothing: slices are never
  cut short). The burst completes (`COMPLETE` with `task` = the burst, detail
  `PF=0`; the job's own `COMPLETE` after its last burst; otherwise its next
  burst arrives after the idle time), or the job is preempted (`PREEMPT`,
  detail `PF=k`) and joins the back of $v$'s preempted queue, or, when the
  slice ended `REMOTE`, the pool's remote queue (detail `PF=k; to remote
  queue`).
- `ARRIVAL` — a job is submitted (`SUBMIT`, then `ASSIGN` to its node,
  detail `submitted`), its next burst arrives (`ASSIGN`, `next burst`, on the
  node the rules' `next_burst` picks: the node its submission joined, or the
  node its last burst ended on), or a migrated job lands (`ASSIGN`,
  `landed`). Each joins the back of the node's queue as *unpreempted*.
- `PASS` — one per instant, after everything else of that instant: first the
  remote queue is emptied (in `dispatch_order`): each job migrates
  (`MIGRATE` to the target, detail `from v; MF=m` and `; banned` when it is
  banned; it lands $K$ seconds later) or stays on its node (`ASSIGN` to it,
  detail `stays`, with `; unpreempted` when it rejoins the unpreempted queue
  rather than the back of the preempted one, and `; banned` when it is
  banned there); $PF$ is reset to 0 either way. Then every idle node with
  waiting jobs, in index order, starts the job its order picks (`START`), for
  the slice the rules plan.

**Equal times.** Slices ending at $t$ are handled before jobs arriving at $t$
(engine phases), and both before the pass at $t$: a job preempted at $t$
is queued before a job that arrives at $t$ (this matters for plain round
robin, whose single queue then holds the preempted job first). Arrivals at
one instant join queues in the order their events were scheduled: submissions
by `(submit, id)`, then next bursts and landings in the order they were
decided. A migration with $K = 0$ lands at the same instant, in a second pass.

**Randomness.** Only `pfs+mfs` draws (MFS ties). Pass $p$ of a run with seed
$\sigma$ gets its own generator `random.Random(f"{σ}:{p}")`, so a run is a
pure function of its inputs and seed.

**Termination.** A run of $b$ bursts of works $w_j$ on nodes of slowest rate
$r_{min}$ handles at most
[`event_budget`][schedlib.frequency.simulation.event_budget] events (each
preempted slice does $Q r \ge Q r_{min}$ work); `simulate_pool` passes that
budget to the engine, so a livelocking rule set raises
[`SimulationStuckError`][schedlib.errors.SimulationStuckError] instead of
hanging.

Examples
--------
A head node and one remote node twice as fast; an interactive job with two
short bursts and a CPU-bound job of 6 s of work; $Q = 1$, `MAX_PREEMPTION` 2,
$K = 0.5$:

>>> from schedlib.frequency.pool import PoolJob, PoolNode
>>> jobs = [PoolJob.cpu_bound(1, 0, 6), PoolJob.interactive(2, 0.5, (0.5, 0.25), (1,))]
>>> record = simulate_pool(jobs, [PoolNode(1), PoolNode(2)], policy="pfs", quantum=1,
...                        max_preemption=2, cost=MigrationCost(0.25, 0.25))
>>> for e in record.events:
...     print(e.time, e.job, e.kind.value, tuple(e.place), e.task, e.detail)
0 1 submit () None
0 1 assign (0,) 0 submitted
0 1 start (0,) 0
0.5 2 submit () None
0.5 2 assign (0,) 0 submitted
1 1 preempt (0,) 0 PF=1
1 2 start (0,) 0
1.5 2 complete (0,) 0 PF=0
1.5 1 start (0,) 0
2.5 1 preempt (0,) 0 PF=2; to remote queue
2.5 2 assign (0,) 1 next burst
2.5 1 migrate (1,) 0 from 0; MF=1
2.5 2 start (0,) 1
2.75 2 complete (0,) 1 PF=0
2.75 2 complete () None
3.0 1 assign (1,) 0 landed
3.0 1 start (1,) 0
4.0 1 preempt (1,) 0 PF=1
4.0 1 start (1,) 0
5.0 1 complete (1,) 0 PF=0
5.0 1 complete () None
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable, Collection, Iterable, Sequence
from fractions import Fraction
from typing import Any, NamedTuple

import attrs

from schedlib.engine import Event, Phase, Step, simulate
from schedlib.errors import InvalidValueError
from schedlib.frequency.cost import MigrationCost
from schedlib.frequency.mfs import MfsParameters
from schedlib.frequency.pfs import (
    DEFAULT_GRACE,
    PfsParameters,
    QueuedJob,
    Slice,
    SliceEnd,
    work_left,
)
from schedlib.frequency.policies import PoolRules, Readings, pool_rules
from schedlib.frequency.pool import HEAD, PoolJob, PoolNode
from schedlib.frequency.remote import LocalQueue, NodeLoad, most_available
from schedlib.model import EventKind, JobEvent, JobId, RunRecord, Time

__all__ = [
    "BANNED_DETAIL",
    "LANDED_DETAIL",
    "NEXT_BURST_DETAIL",
    "REMOTE_DETAIL",
    "STAYS_DETAIL",
    "SUBMITTED_DETAIL",
    "UNPREEMPTED_DETAIL",
    "JobStatus",
    "NodeStatus",
    "PoolModel",
    "PoolState",
    "detail_count",
    "event_budget",
    "simulate_pool",
]

SUBMITTED_DETAIL = "submitted"
"""Detail of the `ASSIGN` of a job to its first node."""
NEXT_BURST_DETAIL = "next burst"
"""Detail of the `ASSIGN` of a job's next burst (after its idle time)."""
LANDED_DETAIL = "landed"
"""Detail of the `ASSIGN` of a migrated job to its target node."""
REMOTE_DETAIL = "to remote queue"
"""Marks the `PREEMPT` that sends a job to the remote queue."""
STAYS_DETAIL = "stays"
"""Detail of the `ASSIGN` of a remote-queue job that stays on its node (starts the detail)."""
UNPREEMPTED_DETAIL = "unpreempted"
"""Marks a stay that rejoins the node's unpreempted queue (the report's literal branch)."""
BANNED_DETAIL = "banned"
"""Marks the `MIGRATE` or the stay that bans a job from migrating again."""

_START, _PREEMPT, _COMPLETE = EventKind.START, EventKind.PREEMPT, EventKind.COMPLETE
_ASSIGN, _MIGRATE = EventKind.ASSIGN, EventKind.MIGRATE
_COMPLETION, _ARRIVAL = Phase.COMPLETION, Phase.ARRIVAL
_SUBMIT, _NEXT, _LAND = 0, 1, 2
_COUNTER = re.compile(r"\b(PF|MF)=(\d+)")


def detail_count(detail: str, name: str) -> int | None:
    """The value of the counter `name` (`"PF"` or `"MF"`) in a log entry's detail, or `None`.

    Examples
    --------
    >>> detail_count("PF=3; to remote queue", "PF"), detail_count("from 0; MF=1", "PF")
    (3, None)
    """
    for key, value in _COUNTER.findall(detail):
        if key == name:
            return int(value)
    return None


class _NoDraws(random.Random):
    """The generator rules get when they declare no randomness: drawing from it is an error."""

    def random(self) -> float:
        raise InvalidValueError("rng", "a non-randomized rule", "drew a random number")

    def getrandbits(self, k: int) -> int:
        raise InvalidValueError("rng", "a non-randomized rule", "drew random bits")


_NO_DRAWS = _NoDraws(0)


class _PassRandom(random.Random):
    """`random.Random(key)`, seeded on its first draw: most passes draw nothing.

    Seeding a generator from a string costs about as much as the rest of a
    pass; a pass that breaks no tie never pays it. The draws are those of
    `random.Random(key)`, bit for bit (tests/frequency compare the records).
    """

    def __init__(self, key: str) -> None:  # the C state is seeded before any draw
        self._key: str | None = key
        self.gauss_next = None

    def _ready(self) -> None:
        if self._key is not None:
            key, self._key = self._key, None
            super().seed(key)

    def seed(self, a: Any = None, version: int = 2) -> None:
        self._key = None
        super().seed(a, version)

    def random(self) -> float:
        self._ready()
        return super().random()

    def getrandbits(self, k: int) -> int:
        self._ready()
        return super().getrandbits(k)

    def getstate(self) -> Any:
        self._ready()
        return super().getstate()

    def setstate(self, state: Any) -> None:
        self._key = None
        super().setstate(state)


class JobStatus(NamedTuple):
    """A job between events.

    Attributes
    ----------
    burst
        Index of its current burst (`== bursts` once finished).
    remaining
        Work left in the current burst, exact (a fraction where a float would
        round, see [`work_left`][schedlib.frequency.pfs.work_left]).
    pf, mf, banned
        Its preemption count, migration count, and whether it is banned.
    node
        The node it is on or travelling to (-1 before its submission).
    home
        The node its submission joined (-1 before it).
    """

    burst: int
    remaining: float | Fraction
    pf: int
    mf: int
    banned: bool
    node: int
    home: int


class NodeStatus(NamedTuple):
    """A node between events.

    Attributes
    ----------
    waiting
        `(job index, preempted)` of its waiting jobs, in queue order.
    running
        Index of the job running, or -1 when idle.
    slice
        The running job's [`Slice`][schedlib.frequency.pfs.Slice].
    resident
        Jobs running, waiting or travelling to it (its load $n$).
    """

    waiting: tuple[tuple[int, bool], ...]
    running: int
    slice: Slice | None
    resident: int


class PoolState(NamedTuple):
    """The model's state between events (an immutable value).

    Attributes
    ----------
    jobs
        One [`JobStatus`][schedlib.frequency.simulation.JobStatus] per input job.
    nodes
        One [`NodeStatus`][schedlib.frequency.simulation.NodeStatus] per node.
    remote
        The remote queue: indices of the jobs waiting to be dispatched.
    left
        Jobs not finished.
    passes
        Scheduling passes so far (numbers each pass's generator).
    """

    jobs: tuple[JobStatus, ...]
    nodes: tuple[NodeStatus, ...]
    remote: tuple[int, ...]
    left: int
    passes: int


def _replace(items: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*items[:index], value, *items[index + 1 :])


def _node_tuple(value: Iterable[PoolNode]) -> tuple[PoolNode, ...]:
    return tuple(value)


def _job_tuple(value: Iterable[PoolJob]) -> tuple[PoolJob, ...]:
    return tuple(value)


@attrs.frozen(slots=True)
class PoolModel:
    """The engine model: the pool, the jobs, and the rules under test.

    Attributes
    ----------
    jobs
        The input jobs (unique ids).
    nodes
        The pool; node 0 is the head node.
    rules
        The policy ([`PoolRules`][schedlib.frequency.policies.PoolRules]).
    seed
        Seed of the per-pass generators (randomized rules only).

    Notes
    -----
    Complexity per event: $O(n + m)$ for $n$ jobs and $m$ nodes (tuples are
    copied on change), plus the rules' cost on a pass.
    """

    jobs: tuple[PoolJob, ...] = attrs.field(converter=_job_tuple)
    nodes: tuple[PoolNode, ...] = attrs.field(converter=_node_tuple)
    rules: PoolRules
    seed: int = 0
    _remotes: tuple[int, ...] = attrs.field(init=False, repr=False, eq=False)

    @_remotes.default
    def _remote_indices(self) -> tuple[int, ...]:
        return tuple(range(HEAD + 1, len(self.nodes)))

    def initial(self) -> tuple[PoolState, list[Event]]:
        """The initial state and the submissions, ordered by `(submit, id)`."""
        order = sorted(range(len(self.jobs)), key=lambda i: (self.jobs[i].submit, self.jobs[i].id))
        state = PoolState(
            tuple(JobStatus(0, job.work[0], 0, 0, False, -1, -1) for job in self.jobs),
            tuple(NodeStatus((), -1, None, 0) for _ in self.nodes),
            (),
            len(self.jobs),
            0,
        )
        return state, [Event(self.jobs[i].submit, _ARRIVAL, (_SUBMIT, i)) for i in order]

    # -- events ----------------------------------------------------------------------------

    def on_event(self, state: PoolState, event: Event) -> Step[PoolState]:
        """A slice ends (`COMPLETION`) or a job arrives at a node (`ARRIVAL`)."""
        if event.phase == _COMPLETION:
            return self._slice_end(state, event.payload, event.time)
        kind, index = event.payload
        return self._arrive(state, kind, index, event.time)

    def _loads(self, state: PoolState, indices: Iterable[int]) -> list[NodeLoad]:
        nodes = self.nodes
        return [
            NodeLoad(v, nodes[v].speed, nodes[v].availability, state.nodes[v].resident)
            for v in indices
        ]

    def _arrive(self, state: PoolState, kind: int, index: int, now: Time) -> Step[PoolState]:
        job = self.jobs[index]
        status = state.jobs[index]
        log: list[JobEvent] = []
        nodes = state.nodes
        if kind == _SUBMIT:
            log.append(JobEvent(now, job.id, EventKind.SUBMIT))
            if self.rules.at_head:
                target = HEAD
            else:
                chosen = most_available(self._loads(state, range(len(self.nodes))))
                target = HEAD if chosen is None else chosen
            status = status._replace(node=target, home=target)
            detail = SUBMITTED_DETAIL
        elif kind == _NEXT:
            target = self.rules.next_burst(status.node, status.home)
            if not 0 <= target < len(self.nodes):
                raise InvalidValueError("PoolRules.next_burst", target, f"is not a node (t={now})")
            status = status._replace(node=target)
            detail = NEXT_BURST_DETAIL
        else:
            target = status.node
            detail = LANDED_DETAIL
        node = nodes[target]
        resident = node.resident if kind == _LAND else node.resident + 1
        log.append(JobEvent(now, job.id, _ASSIGN, (target,), status.burst, detail))
        return Step(
            state._replace(
                jobs=_replace(state.jobs, index, status),
                nodes=_replace(
                    nodes,
                    target,
                    node._replace(waiting=(*node.waiting, (index, False)), resident=resident),
                ),
            ),
            log=log,
            wake=True,
        )

    def _slice_end(self, state: PoolState, v: int, now: Time) -> Step[PoolState]:
        node = state.nodes[v]
        index, planned = node.running, node.slice
        assert index >= 0 and planned is not None, f"slice end on idle node {v} at t={now}"
        job = self.jobs[index]
        status = state.jobs[index]
        burst = status.burst
        events: list[Event] = []
        if planned.end is SliceEnd.COMPLETE:
            log = [JobEvent(now, job.id, _COMPLETE, (v,), burst, f"PF={planned.pf}")]
            left = state.left
            if burst + 1 == len(job.work):
                log.append(JobEvent(now, job.id, _COMPLETE))
                left -= 1
                status = status._replace(burst=burst + 1, remaining=0.0, pf=planned.pf)
            else:
                status = status._replace(
                    burst=burst + 1, remaining=job.work[burst + 1], pf=planned.pf
                )
                events.append(Event(now + job.think[burst], _ARRIVAL, (_NEXT, index)))
            new_node = node._replace(running=-1, slice=None, resident=node.resident - 1)
            return Step(
                state._replace(
                    jobs=_replace(state.jobs, index, status),
                    nodes=_replace(state.nodes, v, new_node),
                    left=left,
                ),
                events=events,
                log=log,
                wake=True,
            )
        remaining = work_left(status.remaining, planned.duration, self.nodes[v].rate)
        status = status._replace(remaining=remaining, pf=planned.pf)
        remote = state.remote
        if planned.end is SliceEnd.REMOTE:
            detail = f"PF={planned.pf}; {REMOTE_DETAIL}"
            remote = (*remote, index)
            new_node = node._replace(running=-1, slice=None)
        else:
            detail = f"PF={planned.pf}"
            new_node = node._replace(running=-1, slice=None, waiting=(*node.waiting, (index, True)))
        return Step(
            state._replace(
                jobs=_replace(state.jobs, index, status),
                nodes=_replace(state.nodes, v, new_node),
                remote=remote,
            ),
            log=(JobEvent(now, job.id, _PREEMPT, (v,), burst, detail),),
            wake=True,
        )

    # -- the scheduling pass -------------------------------------------------------------

    def _view(self, status: JobStatus, index: int, preempted: bool) -> QueuedJob:
        return QueuedJob(
            self.jobs[index].id,
            status.remaining,
            status.pf,
            status.mf,
            status.banned,
            preempted,
        )

    def on_pass(self, state: PoolState, now: Time) -> Step[PoolState]:
        """Dispatch the remote queue, then start a slice on every idle node with work."""
        rules = self.rules
        rng = _PassRandom(f"{self.seed}:{state.passes}") if rules.randomized else _NO_DRAWS
        log: list[JobEvent] = []
        events: list[Event] = []
        jobs: Sequence[JobStatus] = state.jobs
        nodes = list(state.nodes)
        remote = list(state.remote)
        if remote:
            jobs = list(state.jobs)  # a pass without dispatches changes no job: no copy
        while remote:
            assert isinstance(jobs, list)
            views = [self._view(jobs[i], i, True) for i in remote]
            k = _checked(rules.dispatch_order(views, rng), len(views), "dispatch_order", now)
            index = remote.pop(k)
            status = jobs[index]
            here = status.node
            loads = [
                NodeLoad(v, self.nodes[v].speed, self.nodes[v].availability, nodes[v].resident)
                for v in self._remotes
            ]
            node = nodes[here]
            fresh = sum(1 for _, preempted in node.waiting if not preempted)
            local = LocalQueue(fresh, len(node.waiting) - fresh)
            dispatch = rules.dispatch(views[k], here, loads, local)
            target = dispatch.target
            if target is None or target == here:
                banned = status.banned or dispatch.banned
                jobs[index] = status._replace(pf=0, banned=banned)
                entry = (index, not dispatch.unpreempted)
                nodes[here] = node._replace(waiting=(*node.waiting, entry))
                detail = STAYS_DETAIL + (f"; {UNPREEMPTED_DETAIL}" if dispatch.unpreempted else "")
                detail += f"; {BANNED_DETAIL}" if banned else ""
                log.append(
                    JobEvent(now, self.jobs[index].id, _ASSIGN, (here,), status.burst, detail)
                )
                continue
            if not 0 <= target < len(self.nodes):
                raise InvalidValueError("Dispatch.target", target, f"is not a node (t={now})")
            mf = status.mf + 1
            jobs[index] = status._replace(pf=0, mf=mf, banned=dispatch.banned, node=target)
            nodes[here] = nodes[here]._replace(resident=nodes[here].resident - 1)
            nodes[target] = nodes[target]._replace(resident=nodes[target].resident + 1)
            detail = f"from {here}; MF={mf}" + (f"; {BANNED_DETAIL}" if dispatch.banned else "")
            log.append(
                JobEvent(now, self.jobs[index].id, _MIGRATE, (target,), status.burst, detail)
            )
            events.append(Event(now + rules.cost, _ARRIVAL, (_LAND, index)))
        for v, node in enumerate(nodes):
            if node.running >= 0 or not node.waiting:
                continue
            views = [self._view(jobs[i], i, pre) for i, pre in node.waiting]
            order = rules.head_order if v == HEAD else rules.remote_order
            k = _checked(order(views, rng), len(views), "order", now)
            index = node.waiting[k][0]
            planned = rules.plan(views[k], self.nodes[v].rate, may_send=rules.sends(v))
            if planned.job != views[k].job or not planned.duration >= 0:
                raise InvalidValueError("Slice", planned, f"is not a slice of {views[k]}")
            nodes[v] = node._replace(
                waiting=node.waiting[:k] + node.waiting[k + 1 :], running=index, slice=planned
            )
            job_id = self.jobs[index].id
            log.append(JobEvent(now, job_id, _START, (v,), jobs[index].burst))
            events.append(Event(now + planned.duration, _COMPLETION, v))
        return Step(
            PoolState(tuple(jobs), tuple(nodes), (), state.left, state.passes + 1),
            events=events,
            log=log,
        )

    def is_done(self, state: PoolState) -> bool:
        """Every job finished."""
        return state.left == 0

    def unfinished(self, state: PoolState) -> Collection[JobId]:
        """Ids of the jobs not finished."""
        return sorted(
            job.id
            for job, status in zip(self.jobs, state.jobs, strict=True)
            if status.burst < len(job.work)
        )


def _checked(index: int, size: int, rule: str, now: Time) -> int:
    if not (isinstance(index, int) and 0 <= index < size):
        raise InvalidValueError(
            f"PoolRules.{rule}", index, f"is not an index below {size} (t={now})"
        )
    return index


def event_budget(jobs: Sequence[PoolJob], nodes: Sequence[PoolNode], quantum: Time) -> int:
    """An upper bound on the events any run of the named policies handles.

    Parameters
    ----------
    jobs
        The workload.
    nodes
        The pool (not empty).
    quantum
        $Q$, `> 0`.

    Returns
    -------
    int
        $$ E_{max} = 8 + \\sum_{\\text{bursts } b} \\left(4 + 4 \\left\\lceil
           \\frac{w_b}{Q\\, r_{min}} \\right\\rceil\\right) $$
        with $r_{min}$ the slowest node rate.

    Notes
    -----
    Why it holds, for rules whose preempted slices last $Q$ and whose only
    migrations follow a `REMOTE` preemption (all four named policies): each
    preempted slice of a burst does $Q r \\ge Q r_{min}$ work and leaves some,
    so a burst is preempted fewer than $\\lceil w_b / (Q r_{min}) \\rceil = P_b$
    times; it has at most $P_b + 1$ slices (one event each), at most $P_b$
    migrations (one landing each) and one arrival; every such event asks for
    at most one scheduling pass. So a burst accounts for at most
    $2 (2 + 2 P_b)$ events. A run that exceeds the budget is not making
    progress: [`simulate_pool`][schedlib.frequency.simulation.simulate_pool]
    stops it with [`SimulationStuckError`][schedlib.errors.SimulationStuckError].
    This is also the termination proof: every run of the named policies
    completes every job (no starvation). Complexity: $O(b)$.

    Examples
    --------
    >>> event_budget([PoolJob.cpu_bound(1, 0, 10)], [PoolNode(1), PoolNode(2, 0.25)], 2)
    52
    """
    rate = min(node.rate for node in nodes)
    total = 8
    for job in jobs:
        for work in job.work:
            total += 4 + 4 * math.ceil(work / (quantum * rate))
    return total


def simulate_pool(
    jobs: Sequence[PoolJob],
    nodes: Sequence[PoolNode],
    *,
    policy: str | PoolRules = "pfs+mfs",
    quantum: Time = 1.0,
    grace: float = DEFAULT_GRACE,
    max_preemption: int = 3,
    max_mf: int = 2,
    cost: MigrationCost | None = None,
    readings: Readings | None = None,
    seed: int = 0,
    max_events: int | None = None,
    progress: Callable[[Time, int], None] | None = None,
) -> RunRecord:
    """Simulate `jobs` on the pool `nodes` under `policy`; return the run record.

    Parameters
    ----------
    jobs
        The workload (unique ids).
    nodes
        The pool: node 0 is the head node, the others are remote nodes (at
        least one node).
    policy
        `"pfs"`, `"pfs+mfs"`, `"round_robin"` or `"fcfs"` (see
        [`pool_rules`][schedlib.frequency.policies.pool_rules]), or your own
        [`PoolRules`][schedlib.frequency.policies.PoolRules].
    quantum
        $Q$ in seconds, `> 0`.
    grace
        $g$, `>= 1` (the report: 1.1).
    max_preemption
        `MAX_PREEMPTION`, an integer `>= 1`.
    max_mf
        `MAX_MF`, an integer `>= 0` (used by `pfs+mfs`).
    cost
        $K_C$ and $K_{C/R}$ ([`MigrationCost`][schedlib.frequency.cost.MigrationCost]);
        default 0.
    readings
        The readings of the report
        ([`Readings`][schedlib.frequency.policies.Readings]; default: next
        bursts on the head node, every remote-queue job dispatched, MFS moves to a
        strictly more available node);
        ignored when `policy` is a `PoolRules` (it carries its own).
    seed
        Seed of the MFS tie-breaks.
    max_events
        Event budget; default
        [`event_budget`][schedlib.frequency.simulation.event_budget] of the
        input (a run of the named policies never reaches it).
    progress
        Passed to [`simulate`][schedlib.engine.simulate].

    Returns
    -------
    RunRecord
        `capacity` = the number of nodes; places are `(node,)`; `task` is the
        burst index on burst-level entries; `parameters` holds `policy`,
        `quantum`, `grace`, `max_preemption`, `max_mf`, `cost` ($K$),
        `next_burst`, `remote_queue` and `mfs` (the readings). Every job
        completes.

    Raises
    ------
    InvalidValueError
        For bad parameters ($Q \\le 0$, $g < 1$, `MAX_PREEMPTION` $< 1$,
        `MAX_MF` $< 0$, negative costs), an empty pool, duplicate job ids,
        an unknown policy, or a rule returning an invalid decision. (A node
        of speed 0 cannot be built: [`PoolNode`][schedlib.frequency.pool.PoolNode]
        refuses it.)
    SimulationStuckError
        If the event budget is spent (only rules that livelock reach it).

    Notes
    -----
    Complexity: $O(E (n + m))$ for $E \\le E_{max}$ events, $n$ jobs and $m$
    nodes.

    References
    ----------
    The CSS 600 term report, "Algorithms" (PFS and MFS) and "Baseline
    schedulers".

    Examples
    --------
    >>> from schedlib.frequency.pool import PoolJob, PoolNode
    >>> pool = [PoolNode(1), PoolNode(1, 0.5), PoolNode(2)]
    >>> jobs = [PoolJob.cpu_bound(j, 0, 8) for j in range(3)]
    >>> record = simulate_pool(jobs, pool, policy="pfs+mfs", quantum=1, max_preemption=1)
    >>> [(o.job, o.end, o.migrations) for o in record.outcomes]
    [(0, 6.5, 1), (1, 8.0, 1), (2, 10.25, 2)]
    >>> simulate_pool(jobs, pool, quantum=0)
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: PfsParameters.quantum = 0: must be a finite number > 0
    """
    pool = tuple(nodes)
    if not pool:
        raise InvalidValueError("nodes", pool, "the pool needs at least one node (the head node)")
    seen: set[JobId] = set()
    for job in jobs:
        if job.id in seen:
            raise InvalidValueError("PoolJob.id", job.id, "appears twice in the workload")
        seen.add(job.id)
    pfs = PfsParameters(quantum, grace=grace, max_preemption=max_preemption)
    mfs = MfsParameters(max_mf)
    charge = cost if cost is not None else MigrationCost()
    if isinstance(policy, PoolRules):
        rules = policy
    else:
        rules = pool_rules(policy, pfs, mfs, charge, readings)
    model = PoolModel(jobs, pool, rules, seed)
    state, arrivals = model.initial()
    budget = event_budget(jobs, pool, quantum) if max_events is None else max_events
    trace = simulate(model, state, arrivals, max_events=budget, progress=progress)
    parameters = {
        "policy": rules.name,
        "quantum": quantum,
        "grace": grace,
        "max_preemption": max_preemption,
        "max_mf": max_mf,
        "cost": rules.cost,
        "next_burst": rules.readings.next_burst,
        "remote_queue": rules.readings.remote_queue,
        "mfs": rules.readings.mfs,
    }
    return RunRecord.from_log(
        rules.name, jobs, trace.log, capacity=len(pool), parameters=parameters, seed=seed
    )
