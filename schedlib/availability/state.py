"""The state of a volatile grid between events: the resources and the scheduler's queues.

The model ([`schedlib.availability.grid`][schedlib.availability.grid]) threads
a [`VolatileGridState`][schedlib.availability.state.VolatileGridState] through
the engine; every transition returns a new one.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from schedlib.availability.mapping import PendingJob
from schedlib.availability.patterns import UpPeriod
from schedlib.model import JobId, Time

__all__ = ["ResourceState", "VolatileGridState", "replace_at"]


@attrs.frozen(slots=True)
class ResourceState:
    """One resource between events.

    Attributes
    ----------
    up
        Whether it is available.
    cycle
        Its current (or last) up period's number, from 0.
    up_since
        When its current (or last) up period began.
    planned_down
        When that up period is planned to end.
    running
        The job it runs, if any.
    started
        When `running` started (0 when idle).
    queued
        Jobs in its local queue, in order, not started yet.
    """

    up: bool
    cycle: int
    up_since: Time
    planned_down: Time
    running: PendingJob | None
    started: Time
    queued: tuple[PendingJob, ...]


@attrs.frozen(slots=True)
class VolatileGridState:
    """The state of a volatile-grid run (immutable; the engine threads it through).

    Attributes
    ----------
    resources
        One [`ResourceState`][schedlib.availability.state.ResourceState] per resource.
    priority
        The priority queue (failed, returned and deferred jobs).
    regular
        The regular queue, in arrival order.
    failures
        Failures so far per job (only jobs that failed at least once).
    finished
        Ids of the jobs that have ended.
    periods
        The up periods that have ended, in the order they ended.
    """

    resources: tuple[ResourceState, ...]
    priority: tuple[PendingJob, ...]
    regular: tuple[PendingJob, ...]
    failures: Mapping[JobId, int]
    finished: frozenset[JobId]
    periods: tuple[UpPeriod, ...]


def replace_at(
    items: tuple[ResourceState, ...], index: int, item: ResourceState
) -> tuple[ResourceState, ...]:
    """`items` with `items[index]` replaced by `item`."""
    return (*items[:index], item, *items[index + 1 :])
