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
- [`mapping`][schedlib.availability.mapping]: $tl$, PGS and FCFS as pure `SchedulerSnapshot ->
  MappingDecision` functions;
- [`grid`][schedlib.availability.grid]: the volatile-grid model on the shared engine and
  [`simulate_volatile_grid`][schedlib.availability.grid.simulate_volatile_grid].
"""

from schedlib.availability.grid import (
    FCFS,
    PGS,
    PGS_EMPTY_QUEUE,
    POLICIES,
    BagJob,
    MappingPolicy,
    RuntimeUpdate,
    VolatileGridModel,
    VolatileGridRun,
    VolatileGridState,
    simulate_volatile_grid,
    wasted_work,
    with_estimate_errors,
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

__all__ = [
    "DELAY_RESOLUTION",
    "FCFS",
    "PGS",
    "PGS_EMPTY_QUEUE",
    "POLICIES",
    "Assignment",
    "AvailabilityPattern",
    "BagJob",
    "MappingDecision",
    "MappingPolicy",
    "PendingJob",
    "ResourceAvailability",
    "ResourceView",
    "RestartDelay",
    "RuntimeUpdate",
    "SchedulerSnapshot",
    "UpPeriod",
    "VolatileGridModel",
    "VolatileGridRun",
    "VolatileGridState",
    "map_fcfs",
    "map_pgs",
    "parse_availability",
    "read_availability",
    "simulate_volatile_grid",
    "time_left",
    "unschedulable_reason",
    "wasted_work",
    "with_estimate_errors",
]
