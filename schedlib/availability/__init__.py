"""Availability-aware mapping (PGS) of bags of tasks onto resources that go down and come back.

The family of Verboven, Hellinckx, Broeckhove and Arickx, "Dynamic Grid
Scheduling Using Job Runtime Requirements and Variable Resource
Availability" (Euro-Par 2008 Workshops): planned availability of resources
(§2.2), the time left $tl$ and the PGS two-phase mapping (§2.2-§2.3), the
CoBRA first-come-first-serve baseline (§3.1), and the volatile grid they run on
(§3-§4).

One concept per module:

- [`patterns`][schedlib.availability.patterns]: repeating up/down availability patterns and restart
  delays;
- [`jobs`][schedlib.availability.jobs]: the independent jobs of a bag and their runtime updates;
- [`mapping`][schedlib.availability.mapping]: $tl$, PGS and FCFS as pure `SchedulerSnapshot ->
  MappingDecision` functions;
- [`policies`][schedlib.availability.policies]: a mapping paired with its rules for failed and
  hopeless jobs;
- [`state`][schedlib.availability.state]: the resources and queues between events;
- [`scheduling_pass`][schedlib.availability.scheduling_pass]: the snapshot the mapping sees, its
  decision checked and applied;
- [`grid`][schedlib.availability.grid]: the volatile-grid model on the shared engine and
  [`simulate_volatile_grid`][schedlib.availability.grid.simulate_volatile_grid];
- [`idle`][schedlib.availability.idle]: where a run's time went, per resource (busy, idle
  while up, down, and when it started its last job), from the run's log.
"""

from schedlib.availability.grid import (
    DEFAULT_MAX_FAILURES,
    DEFAULT_QUEUE_LENGTH,
    ResourceOrder,
    VolatileGridModel,
    VolatileGridRun,
    simulate_volatile_grid,
    wasted_work,
)
from schedlib.availability.idle import ResourceTime, idle_by_resource, run_window
from schedlib.availability.jobs import (
    BagJob,
    RuntimeUpdate,
    with_estimate_errors,
    with_overhead,
)
from schedlib.availability.mapping import (
    Assignment,
    MappingDecision,
    PendingJob,
    ResourceView,
    SchedulerSnapshot,
    map_fcfs,
    map_pgs,
    time_left,
    unschedulable_reason,
)
from schedlib.availability.patterns import (
    DELAY_RESOLUTION,
    AvailabilityPattern,
    ResourceAvailability,
    RestartDelay,
    UpPeriod,
    parse_availability,
    read_availability,
)
from schedlib.availability.policies import (
    FCFS,
    PGS,
    PGS_EMPTY_QUEUE,
    POLICIES,
    MappingPolicy,
    Requeue,
    resolve_policy,
)
from schedlib.availability.scheduling_pass import (
    GridSetting,
    run_pass,
)
from schedlib.availability.state import (
    ResourceState,
    VolatileGridState,
    replace_at,
)

__all__ = [
    "DEFAULT_MAX_FAILURES",
    "DEFAULT_QUEUE_LENGTH",
    "DELAY_RESOLUTION",
    "FCFS",
    "PGS",
    "PGS_EMPTY_QUEUE",
    "POLICIES",
    "Assignment",
    "AvailabilityPattern",
    "BagJob",
    "GridSetting",
    "MappingDecision",
    "MappingPolicy",
    "PendingJob",
    "Requeue",
    "ResourceAvailability",
    "ResourceOrder",
    "ResourceState",
    "ResourceTime",
    "ResourceView",
    "RestartDelay",
    "RuntimeUpdate",
    "SchedulerSnapshot",
    "UpPeriod",
    "VolatileGridModel",
    "VolatileGridRun",
    "VolatileGridState",
    "idle_by_resource",
    "map_fcfs",
    "map_pgs",
    "parse_availability",
    "read_availability",
    "replace_at",
    "resolve_policy",
    "run_pass",
    "run_window",
    "simulate_volatile_grid",
    "time_left",
    "unschedulable_reason",
    "wasted_work",
    "with_estimate_errors",
    "with_overhead",
]
