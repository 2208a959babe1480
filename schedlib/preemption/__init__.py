r"""Preemptive priority scheduling with backfilling and PUSH/PULL migration on multi-core grids.

The family of Balasubramanian, Sussman and Sadeh, "Decentralized Preemptive
Scheduling across Heterogeneous Multi-core Grid Resources" (JSSPP 2013, LNCS 8429):
job priorities (§5.1), the local preemptive decision on one node with its
FCFS-with-backfilling baseline (§5.1, Algorithm 1), internode PUSH/PULL
migration (§5.3) and queue balancing (§8), on a grid of multi-resource nodes
(§3, §6.1).

One concept per module:

- [`resources`][schedlib.preemption.resources]: multi-resource nodes and jobs (capacity and
  requirement vectors);
- [`priority`][schedlib.preemption.priority]: $P = \alpha W - \beta T_{rem}$ and the starvation
  bound;
- [`decision`][schedlib.preemption.decision]: the local decision, a pure `NodeSnapshot -> Decision`
  function;
- [`migration`][schedlib.preemption.migration]: PUSH target, PULL partner and job, queue-balancing
  moves;
- [`topology`][schedlib.preemption.topology]: neighbour graphs and the matchmaker;
- [`state`][schedlib.preemption.state]: the grid's state and how a job's progress changes;
- [`scheduling_pass`][schedlib.preemption.scheduling_pass]: one pass at an instant, applying the
  decisions;
- [`grid`][schedlib.preemption.grid]: the grid model on the shared engine and
  [`simulate_grid`][schedlib.preemption.grid.simulate_grid].
"""

from schedlib.preemption.decision import (
    LOCAL_POLICIES,
    VICTIM_READINGS,
    Contender,
    Decision,
    LocalPolicy,
    NodeSnapshot,
    apply_decision,
    free_vector,
    progress_made,
    rank_key,
    schedule_fcfs_backfill,
    schedule_preemptive,
    schedule_preemptive_equal,
    time_to_finish,
    victim_key,
)
from schedlib.preemption.grid import (
    GridModel,
    Observer,
    run_model,
    simulate_grid,
)
from schedlib.preemption.migration import (
    PUSH_RECEIVERS,
    BalanceMove,
    NeighbourView,
    balance_measure,
    balance_pull,
    balance_push,
    choose_pull_job,
    choose_push_target,
    fullness_measure,
    placement_objective,
    pull_partners,
    push_acceptance,
    push_objective,
    queue_load,
    queue_load_vector,
)
from schedlib.preemption.priority import (
    DEFAULT_ALPHA,
    DEFAULT_BETA,
    overtake_delay,
    overtake_window,
    priority,
    starvation_bound,
)
from schedlib.preemption.resources import (
    DEFAULT_KINDS,
    GridJob,
    GridNode,
    Vector,
    add,
    fits,
    normalised,
    runtime_on,
    subtract,
    total,
)
from schedlib.preemption.scheduling_pass import (
    BALANCE_DETAIL,
    PULL_DETAIL,
    PUSH_DETAIL,
    GridSetting,
    SchedulingPass,
)
from schedlib.preemption.state import (
    GridState,
    JobProgress,
    NodeState,
    contender,
    moved,
    remaining_time,
    resumed,
    stopped,
    waiting,
)
from schedlib.preemption.topology import (
    MATCHMAKER_VIEWS,
    LoadKey,
    Matchmaker,
    Topology,
    capability_key,
    from_edges,
    isolated,
    load_key,
    ring,
    similar_capability,
)

__all__ = [
    "BALANCE_DETAIL",
    "DEFAULT_ALPHA",
    "DEFAULT_BETA",
    "DEFAULT_KINDS",
    "LOCAL_POLICIES",
    "MATCHMAKER_VIEWS",
    "PULL_DETAIL",
    "PUSH_DETAIL",
    "PUSH_RECEIVERS",
    "VICTIM_READINGS",
    "BalanceMove",
    "Contender",
    "Decision",
    "GridJob",
    "GridModel",
    "GridNode",
    "GridSetting",
    "GridState",
    "JobProgress",
    "LoadKey",
    "LocalPolicy",
    "Matchmaker",
    "NeighbourView",
    "NodeSnapshot",
    "NodeState",
    "Observer",
    "SchedulingPass",
    "Topology",
    "Vector",
    "add",
    "apply_decision",
    "balance_measure",
    "balance_pull",
    "balance_push",
    "capability_key",
    "choose_pull_job",
    "choose_push_target",
    "contender",
    "fits",
    "free_vector",
    "from_edges",
    "fullness_measure",
    "isolated",
    "load_key",
    "moved",
    "normalised",
    "overtake_delay",
    "overtake_window",
    "placement_objective",
    "priority",
    "progress_made",
    "pull_partners",
    "push_acceptance",
    "push_objective",
    "queue_load",
    "queue_load_vector",
    "rank_key",
    "remaining_time",
    "resumed",
    "ring",
    "run_model",
    "runtime_on",
    "schedule_fcfs_backfill",
    "schedule_preemptive",
    "schedule_preemptive_equal",
    "similar_capability",
    "simulate_grid",
    "starvation_bound",
    "stopped",
    "subtract",
    "time_to_finish",
    "total",
    "victim_key",
    "waiting",
]
