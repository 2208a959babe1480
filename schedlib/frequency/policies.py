"""The four pool policies as sets of rules: PFS, PFS+MFS, and two static-placement baselines.

A policy is a [`PoolRules`][schedlib.frequency.policies.PoolRules] value: the
pure decision functions the pool model
([`schedlib.frequency.simulation`][schedlib.frequency.simulation]) calls, and
nothing else. [`pool_rules`][schedlib.frequency.policies.pool_rules] builds the
named ones:

| policy | joins | head order | remote order | slice | sends | remote queue |
|---|---|---|---|---|---|---|
| `pfs` | head | PFS | PFS | $Q$, grace $g$ | head | FIFO, most available |
| `pfs+mfs` | head | PFS | MFS | $Q$, grace $g$ | all nodes | MFS order and dispatch |
| `round_robin` | most available | FIFO | FIFO | $Q$, no grace | never | — |
| `fcfs` | most available | FIFO | FIFO | to completion | never | — |

("joins": where a submitted job is queued; "sends": the nodes whose jobs go
to the remote queue after `MAX_PREEMPTION` preemptions.)

Under `pfs` a job that reached the remote pool stays there until it completes
(the report's assumption: "a job that reaches the remote pool ... is
guaranteed to run to completion"); under `pfs+mfs` remote nodes run MFS and
keep sending jobs on, up to the migration limit.

**The baselines are static placement.** `round_robin` and `fcfs` place each
job, when it is submitted, on the node of the whole pool (head node included)
with the highest CPU availability, and never move it: time-sliced there, or
run to completion. They stand for batch schedulers without migration
(OpenPBS's central scheduler sends each job to one node's MOM to run). They
are *not* Condor: the report says Condor migrates jobs ("distributed systems
like Condor migrate jobs based on finding the best computing nodes").

**Readings.** Where the report leaves a choice open, a
[`Readings`][schedlib.frequency.policies.Readings] value names the one taken
(each a decision rule of its own):

- `next_burst`: where an interactive job's next burst arrives — back on the
  node its submission joined (`"head-node"`, the default: the head node
  under `pfs` and `pfs+mfs`) or on the node its last burst ended on
  (`"last-node"`). The baselines never move a job, so both readings put its
  bursts on the node it was placed on.
- `remote_queue`: `"always"` (the default: every job of the remote
  queue is dispatched) or the report's literal branches (`"literal"`:
  [`contended_only`][schedlib.frequency.remote.contended_only]).
- `mfs`: `"availability"` (the default: a job moves from a remote node to a
  strictly more available one, up to the migration limit) or the report's `localMF`
  test (`"local-mf"`: [`local_mf_dispatch`][schedlib.frequency.mfs.local_mf_dispatch]);
  `pfs+mfs` only.

Users can assemble their own rules (or a deliberately broken variant, as the
tests do) with `attrs.evolve`.

Examples
--------
>>> rules = pool_rules("pfs+mfs", PfsParameters(1.0), MfsParameters(2), MigrationCost(1, 1))
>>> rules.name, rules.sends(0), rules.sends(3), rules.cost, rules.randomized
('pfs+mfs', True, True, 2, True)
>>> rules.next_burst(3, 0), Readings(next_burst="last-node").label
(0, 'last-node/always/availability')
>>> pool_rules("lottery", PfsParameters(1.0))
Traceback (most recent call last):
...
schedlib.errors.InvalidValueError: policy = 'lottery': must be one of pfs, pfs+mfs, ...
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from functools import partial

import attrs

from schedlib.errors import InvalidValueError
from schedlib.frequency.cost import MigrationCost
from schedlib.frequency.mfs import MfsParameters, local_mf_dispatch, mfs_dispatch, mfs_order
from schedlib.frequency.pfs import PfsParameters, QueuedJob, Slice, SliceEnd, plan_slice
from schedlib.frequency.pfs import pfs_order as _pfs_order
from schedlib.frequency.pool import HEAD
from schedlib.frequency.remote import (
    Dispatch,
    Dispatcher,
    LocalQueue,
    NodeLoad,
    contended_only,
    send_remote,
)
from schedlib.validation import one_of

__all__ = [
    "MFS_RULES",
    "NEXT_BURST",
    "POLICIES",
    "REMOTE_QUEUE",
    "Dispatcher",
    "NextBurst",
    "Order",
    "Planner",
    "PoolRules",
    "Readings",
    "fifo_order",
    "on_home_node",
    "on_last_node",
    "pfs_queue_order",
    "pool_rules",
    "run_to_completion",
]

POLICIES: tuple[str, ...] = ("pfs", "pfs+mfs", "round_robin", "fcfs")
"""The named policies of [`pool_rules`][schedlib.frequency.policies.pool_rules]."""

Order = Callable[[Sequence[QueuedJob], random.Random], int]
"""`(waiting jobs, generator) -> index` of the job that goes next."""
Planner = Callable[..., Slice]
"""`(job, rate, *, may_send) -> Slice`: the slice a job gets on a node."""
NextBurst = Callable[[int, int], int]
"""`(last node, home node) -> node`: where a job's next burst arrives."""

NEXT_BURST: tuple[str, ...] = ("head-node", "last-node")
"""Readings of where an interactive job's next burst runs (the first is the default)."""
REMOTE_QUEUE: tuple[str, ...] = ("always", "literal")
"""Readings of the remote queue (the first is the default)."""
MFS_RULES: tuple[str, ...] = ("availability", "local-mf")
"""Readings of MFS's move condition (the first is the default)."""


@attrs.frozen(slots=True)
class Readings:
    """The readings of the report taken where it leaves a choice open (see the module notes).

    Attributes
    ----------
    next_burst
        `"head-node"` (default) or `"last-node"`.
    remote_queue
        `"always"` (default) or `"literal"`.
    mfs
        `"availability"` (default) or `"local-mf"`.

    Examples
    --------
    >>> Readings().label, Readings.from_label("last-node/literal/local-mf").mfs
    ('head-node/always/availability', 'local-mf')
    >>> Readings(next_burst="home")
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: Readings.next_burst = 'home': must be one of head-node, \
last-node
    """

    next_burst: str = attrs.field(default=NEXT_BURST[0], validator=one_of(*NEXT_BURST))
    remote_queue: str = attrs.field(default=REMOTE_QUEUE[0], validator=one_of(*REMOTE_QUEUE))
    mfs: str = attrs.field(default=MFS_RULES[0], validator=one_of(*MFS_RULES))

    @property
    def label(self) -> str:
        """`next_burst/remote_queue/mfs`, e.g. `head-node/always/availability`."""
        return f"{self.next_burst}/{self.remote_queue}/{self.mfs}"

    @classmethod
    def from_label(cls, label: str) -> Readings:
        """The readings a [`label`][schedlib.frequency.policies.Readings.label] names.

        Raises
        ------
        InvalidValueError
            If the label does not have three parts, or a part is unknown.
        """
        parts = label.split("/")
        if len(parts) != 3:
            raise InvalidValueError(
                "readings",
                label,
                "must be next_burst/remote_queue/mfs, e.g. head-node/always/availability",
            )
        return cls(*parts)

    @classmethod
    def every(cls) -> tuple[Readings, ...]:
        """Every combination, the default first.

        Examples
        --------
        >>> len(Readings.every()), Readings.every()[0] == Readings()
        (8, True)
        """
        return tuple(cls(n, r, m) for n in NEXT_BURST for r in REMOTE_QUEUE for m in MFS_RULES)


def on_home_node(last: int, home: int) -> int:
    """The `"head-node"` reading: a job's next burst arrives on the node its submission joined.

    The report: "Job starts and ends execution on the central scheduler"; interactive
    jobs "do not participate in migration".

    Examples
    --------
    >>> on_home_node(3, 0)
    0
    """
    return home


def on_last_node(last: int, home: int) -> int:
    """The `"last-node"` reading: a job's next burst arrives on the node its last burst ended on.

    Examples
    --------
    >>> on_last_node(3, 0)
    3
    """
    return last


def fifo_order(waiting: Sequence[QueuedJob], rng: random.Random) -> int:
    """The first job in queue order (plain round robin, FCFS); `rng` is not used.

    Examples
    --------
    >>> fifo_order([QueuedJob(3, 1.0, preempted=True), QueuedJob(1, 1.0)], random.Random(0))
    0
    """
    if not waiting:
        raise InvalidValueError("waiting", tuple(waiting), "must not be empty")
    return 0


def pfs_queue_order(waiting: Sequence[QueuedJob], rng: random.Random) -> int:
    """[`pfs_order`][schedlib.frequency.pfs.pfs_order] as an `Order` (`rng` is not used)."""
    return _pfs_order(waiting)


def run_to_completion(job: QueuedJob, rate: float, *, may_send: bool = False) -> Slice:
    """The FCFS slice: the whole remaining burst, never preempted.

    Examples
    --------
    >>> run_to_completion(QueuedJob(2, 6.0), 2.0)
    Slice(job=2, duration=3.0, end=<SliceEnd.COMPLETE: 'complete'>, pf=0)
    """
    return Slice(job.job, job.remaining / rate, SliceEnd.COMPLETE, 0)


def _never(node: int) -> bool:
    return False


def _head_only(node: int) -> bool:
    return node == HEAD


def _every_node(node: int) -> bool:
    return True


def _stay(job: QueuedJob, current: int, remotes: Sequence[NodeLoad], local: LocalQueue) -> Dispatch:
    return Dispatch(None, job.banned)


@attrs.frozen(slots=True)
class PoolRules:
    """The decision rules of one pool policy.

    Attributes
    ----------
    name
        Stored in the run record as its `algorithm`.
    at_head
        Submissions join the head node (`True`), or the node of the pool
        with the highest CPU availability (`False`).
    head_order, remote_order
        Which waiting job runs next on the head node, on a remote node
        ([`Order`][schedlib.frequency.policies.Order]).
    plan
        The slice a job gets ([`Planner`][schedlib.frequency.policies.Planner]).
    sends
        `sends(node)`: whether jobs preempted `MAX_PREEMPTION` times on
        `node` go to the remote queue.
    dispatch_order
        Which remote-queue job is dispatched next (several can wait at one
        instant).
    dispatch
        Where a remote-queue job goes
        ([`Dispatcher`][schedlib.frequency.remote.Dispatcher]).
    next_burst
        Where a job's next burst arrives
        ([`NextBurst`][schedlib.frequency.policies.NextBurst]).
    cost
        $K$, seconds a migrated job spends in transit.
    randomized
        Whether some rule draws from the generator (the model then gives each
        scheduling pass its own seeded generator).
    readings
        The readings the rules were built with (stored in the run record).
    """

    name: str
    at_head: bool
    head_order: Order
    remote_order: Order
    plan: Planner
    sends: Callable[[int], bool] = _never
    dispatch_order: Order = fifo_order
    dispatch: Dispatcher = _stay
    next_burst: NextBurst = on_home_node
    cost: float = 0.0
    randomized: bool = False
    readings: Readings = Readings()


def pool_rules(
    policy: str,
    pfs: PfsParameters,
    mfs: MfsParameters | None = None,
    cost: MigrationCost | None = None,
    readings: Readings | None = None,
) -> PoolRules:
    """The rules of a named policy.

    Parameters
    ----------
    policy
        One of [`POLICIES`][schedlib.frequency.policies.POLICIES].
    pfs
        $Q$, $g$, `MAX_PREEMPTION` (`round_robin` uses $Q$ only; `fcfs` none).
    mfs
        `MAX_MF` (used by `pfs+mfs`); default `MfsParameters()`.
    cost
        $K_C$ and $K_{C/R}$; default no cost.
    readings
        The readings (default `Readings()`: head node, always, availability).

    Returns
    -------
    PoolRules
        See the table in the module notes.

    Raises
    ------
    InvalidValueError
        For an unknown policy.
    """
    mfs = mfs if mfs is not None else MfsParameters()
    k = (cost if cost is not None else MigrationCost()).total
    read = readings if readings is not None else Readings()
    follow = on_home_node if read.next_burst == "head-node" else on_last_node
    if policy in ("pfs", "pfs+mfs"):
        dispatch: Dispatcher = send_remote
        if policy == "pfs+mfs":
            rule = local_mf_dispatch if read.mfs == "local-mf" else mfs_dispatch
            dispatch = partial(rule, max_mf=mfs.max_mf)
        if read.remote_queue == "literal":
            dispatch = partial(contended_only, dispatch=dispatch)
        both = policy == "pfs+mfs"
        return PoolRules(
            policy,
            at_head=True,
            head_order=pfs_queue_order,
            remote_order=mfs_order if both else pfs_queue_order,
            plan=partial(plan_slice, parameters=pfs),
            sends=_every_node if both else _head_only,
            dispatch_order=mfs_order if both else fifo_order,
            dispatch=dispatch,
            next_burst=follow,
            cost=k,
            randomized=both,
            readings=read,
        )
    if policy == "round_robin":
        plain = PfsParameters(pfs.quantum, grace=1.0, max_preemption=pfs.max_preemption)
        return PoolRules(
            policy,
            at_head=False,
            head_order=fifo_order,
            remote_order=fifo_order,
            plan=partial(plan_slice, parameters=plain),
            next_burst=follow,
            readings=read,
        )
    if policy == "fcfs":
        return PoolRules(
            policy,
            at_head=False,
            head_order=fifo_order,
            remote_order=fifo_order,
            plan=run_to_completion,
            next_burst=follow,
            readings=read,
        )
    raise InvalidValueError("policy", policy, f"must be one of {', '.join(POLICIES)}")
