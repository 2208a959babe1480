"""The four pool policies as sets of rules: PFS, PFS+MFS, plain round robin, FCFS.

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
keep sending jobs on, up to the migration limit. The baselines place each
job, when it is submitted, on the node of the whole pool (head node included)
with the highest CPU availability — the "matchmaking" of Condor, the
report's baseline — and never move it.

Users can assemble their own rules (or a deliberately broken variant, as the
tests do) with `attrs.evolve`.

Examples
--------
>>> rules = pool_rules("pfs+mfs", PfsParameters(1.0), MfsParameters(2), MigrationCost(1, 1))
>>> rules.name, rules.sends(0), rules.sends(3), rules.cost, rules.randomized
('pfs+mfs', True, True, 2, True)
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
from schedlib.frequency.mfs import MfsParameters, mfs_dispatch, mfs_order
from schedlib.frequency.pfs import PfsParameters, QueuedJob, Slice, SliceEnd, plan_slice
from schedlib.frequency.pfs import pfs_order as _pfs_order
from schedlib.frequency.pool import HEAD
from schedlib.frequency.remote import Dispatch, NodeLoad, send_remote

__all__ = [
    "POLICIES",
    "Dispatcher",
    "Order",
    "Planner",
    "PoolRules",
    "fifo_order",
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
Dispatcher = Callable[[QueuedJob, int, Sequence[NodeLoad]], Dispatch]
"""`(job, current node, remote loads) -> Dispatch`: where a remote-queue job goes."""


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


def _stay(job: QueuedJob, current: int, remotes: Sequence[NodeLoad]) -> Dispatch:
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
        ([`Dispatcher`][schedlib.frequency.policies.Dispatcher]).
    cost
        $K$, seconds a migrated job spends in transit.
    randomized
        Whether some rule draws from the generator (the model then gives each
        scheduling pass its own seeded generator).
    """

    name: str
    at_head: bool
    head_order: Order
    remote_order: Order
    plan: Planner
    sends: Callable[[int], bool] = _never
    dispatch_order: Order = fifo_order
    dispatch: Dispatcher = _stay
    cost: float = 0.0
    randomized: bool = False


def pool_rules(
    policy: str,
    pfs: PfsParameters,
    mfs: MfsParameters | None = None,
    cost: MigrationCost | None = None,
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
    if policy == "pfs":
        return PoolRules(
            policy,
            at_head=True,
            head_order=pfs_queue_order,
            remote_order=pfs_queue_order,
            plan=partial(plan_slice, parameters=pfs),
            sends=_head_only,
            dispatch=send_remote,
            cost=k,
        )
    if policy == "pfs+mfs":
        return PoolRules(
            policy,
            at_head=True,
            head_order=pfs_queue_order,
            remote_order=mfs_order,
            plan=partial(plan_slice, parameters=pfs),
            sends=_every_node,
            dispatch_order=mfs_order,
            dispatch=partial(mfs_dispatch, max_mf=mfs.max_mf),
            cost=k,
            randomized=True,
        )
    if policy == "round_robin":
        plain = PfsParameters(pfs.quantum, grace=1.0, max_preemption=pfs.max_preemption)
        return PoolRules(
            policy,
            at_head=False,
            head_order=fifo_order,
            remote_order=fifo_order,
            plan=partial(plan_slice, parameters=plain),
        )
    if policy == "fcfs":
        return PoolRules(
            policy,
            at_head=False,
            head_order=fifo_order,
            remote_order=fifo_order,
            plan=run_to_completion,
        )
    raise InvalidValueError("policy", policy, f"must be one of {', '.join(POLICIES)}")
