r"""Preemption-frequency and migration-frequency scheduling (PFS / MFS) on a pool of nodes.

The family of the term report "Preemption-frequency and migration-frequency
scheduling" for the course CSS 600 (author and year not stated in the
document; cited as *the CSS 600 term report*): jobs submitted to a head node
run round robin with a quantum; a job preempted too often is checkpointed and
migrated to the most available remote node (PFS, "Algorithms: Preemption
Frequency Scheduler"); in the remote pool the job with the highest migration
count runs first, and a job over the migration limit goes to the fastest node
and is banned from migrating (MFS, "Migration Frequency Scheduler"); each
migration costs $K = K_C + K_{C/R}$. The report's pseudo-code is incomplete
and partly inverted; the algorithm page quotes it beside the reading
implemented here.

One concept per module:

- [`pool`][schedlib.frequency.pool]: interactive and CPU-bound jobs, the head
  node and remote nodes (speed, CPU availability);
- [`pfs`][schedlib.frequency.pfs]: the PFS step on a node, a pure function;
- [`remote`][schedlib.frequency.remote]: CPU availability, the most available
  remote node, the fastest node, PFS's send;
- [`mfs`][schedlib.frequency.mfs]: the MFS order and the MFS dispatch (seeded
  random tie-break);
- [`cost`][schedlib.frequency.cost]: the migration cost $K$;
- [`policies`][schedlib.frequency.policies]: PFS, PFS+MFS and the two
  static-placement baselines (plain round robin, FCFS) as sets of rules, and
  the [`Readings`][schedlib.frequency.policies.Readings] of the report they
  are built with;
- [`simulation`][schedlib.frequency.simulation]: the pool model on the shared
  engine and [`simulate_pool`][schedlib.frequency.simulation.simulate_pool].
"""

from schedlib.frequency.cost import MigrationCost, migration_cost
from schedlib.frequency.mfs import MfsParameters, local_mf_dispatch, mfs_dispatch, mfs_order
from schedlib.frequency.pfs import (
    DEFAULT_GRACE,
    PfsParameters,
    QueuedJob,
    Slice,
    SliceEnd,
    pfs_order,
    pfs_step,
    plan_slice,
)
from schedlib.frequency.policies import (
    MFS_RULES,
    NEXT_BURST,
    POLICIES,
    REMOTE_QUEUE,
    NextBurst,
    Order,
    Planner,
    PoolRules,
    Readings,
    fifo_order,
    on_home_node,
    on_last_node,
    pfs_queue_order,
    pool_rules,
    run_to_completion,
)
from schedlib.frequency.pool import (
    HEAD,
    JobKind,
    PoolJob,
    PoolNode,
    positive_finite,
    whole_at_least,
)
from schedlib.frequency.remote import (
    Dispatch,
    Dispatcher,
    LocalQueue,
    NodeLoad,
    contended_only,
    cpu_availability,
    fastest_node,
    most_available,
    send_remote,
)
from schedlib.frequency.simulation import (
    BANNED_DETAIL,
    LANDED_DETAIL,
    NEXT_BURST_DETAIL,
    REMOTE_DETAIL,
    STAYS_DETAIL,
    SUBMITTED_DETAIL,
    UNPREEMPTED_DETAIL,
    JobStatus,
    NodeStatus,
    PoolModel,
    PoolState,
    detail_count,
    event_budget,
    simulate_pool,
)

__all__ = [
    "BANNED_DETAIL",
    "DEFAULT_GRACE",
    "HEAD",
    "LANDED_DETAIL",
    "MFS_RULES",
    "NEXT_BURST",
    "NEXT_BURST_DETAIL",
    "POLICIES",
    "REMOTE_DETAIL",
    "REMOTE_QUEUE",
    "STAYS_DETAIL",
    "SUBMITTED_DETAIL",
    "UNPREEMPTED_DETAIL",
    "Dispatch",
    "Dispatcher",
    "JobKind",
    "JobStatus",
    "LocalQueue",
    "MfsParameters",
    "MigrationCost",
    "NextBurst",
    "NodeLoad",
    "NodeStatus",
    "Order",
    "PfsParameters",
    "Planner",
    "PoolJob",
    "PoolModel",
    "PoolNode",
    "PoolRules",
    "PoolState",
    "QueuedJob",
    "Readings",
    "Slice",
    "SliceEnd",
    "contended_only",
    "cpu_availability",
    "detail_count",
    "event_budget",
    "fastest_node",
    "fifo_order",
    "local_mf_dispatch",
    "mfs_dispatch",
    "mfs_order",
    "migration_cost",
    "most_available",
    "on_home_node",
    "on_last_node",
    "pfs_order",
    "pfs_queue_order",
    "pfs_step",
    "plan_slice",
    "pool_rules",
    "positive_finite",
    "run_to_completion",
    "send_remote",
    "simulate_pool",
    "whole_at_least",
]
