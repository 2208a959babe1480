"""The schedulers of a volatile grid: a mapping function plus what it does with failed jobs.

A [`MappingPolicy`][schedlib.availability.policies.MappingPolicy] pairs one of
the pure mapping functions of [`schedlib.availability.mapping`][schedlib.availability.mapping]
(the paper's decision rule) with the two rules that differ between PGS and the
CoBRA baseline in Verboven et al. (2008): where jobs that come back from a
resource that went down rejoin the queue (§3.1, §3.2), and whether a job that
can never fit is screened out on arrival (§2.3).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from types import MappingProxyType
from typing import Literal

import attrs

from schedlib.availability.mapping import (
    MappingDecision,
    SchedulerSnapshot,
    map_fcfs,
    map_pgs,
    unschedulable_reason,
)
from schedlib.errors import InvalidValueError
from schedlib.model import Time

__all__ = [
    "FCFS",
    "PGS",
    "PGS_EMPTY_QUEUE",
    "POLICIES",
    "MappingPolicy",
    "Requeue",
    "resolve_policy",
]


Requeue = Literal["front", "back"]


@attrs.frozen(slots=True)
class MappingPolicy:
    """A scheduler for the volatile grid: a mapping plus what it does with failed jobs.

    Attributes
    ----------
    name
        Name used in run records.
    mapping
        The pure mapping function `snapshot -> decision`.
    requeue
        Where jobs that come back from a resource that went down join the
        priority queue: `"back"` (PGS, Verboven et al. (2008) §3.2: "all its queued jobs
        are added to the priorityQueue") or `"front"` (FCFS, §3.1: "they are
        added to the front of the queue").
    screen
        `screen(estimate, longest_uptime) -> reason or None`, applied to each
        job when it arrives and when its estimate is revised while it waits:
        a reason ends the job `UNSCHEDULABLE`. PGS uses
        [`unschedulable_reason`][schedlib.availability.mapping.unschedulable_reason] (it
        reads planned uptimes); FCFS has none (`None`).
    """

    name: str
    mapping: Callable[[SchedulerSnapshot], MappingDecision]
    requeue: Requeue = attrs.field(
        default="back", validator=attrs.validators.in_(("front", "back"))
    )
    screen: Callable[[Time, Time], str | None] | None = unschedulable_reason


PGS = MappingPolicy("pgs", map_pgs, "back")
"""Prediction based Grid Scheduling (Verboven et al. 2008 §2.3, §3.2)."""

PGS_EMPTY_QUEUE = MappingPolicy(
    "pgs-empty-queue", partial(map_pgs, first_job_for="empty-queue"), "back"
)
"""PGS whose phase 1 also serves busy resources with an empty queue (the literal reading)."""

FCFS = MappingPolicy("fcfs", map_fcfs, "front", screen=None)
"""The standard CoBRA scheduler, first come first serve (Verboven et al. 2008 §3.1)."""

POLICIES: Mapping[str, MappingPolicy] = MappingProxyType(
    {p.name: p for p in (PGS, PGS_EMPTY_QUEUE, FCFS)}
)
"""The built-in policies by name."""


def resolve_policy(policy: MappingPolicy | str) -> MappingPolicy:
    """The policy itself, or the built-in policy of that name.

    Raises
    ------
    InvalidValueError
        For an unknown name or anything else.

    Examples
    --------
    >>> resolve_policy("fcfs").requeue
    'front'
    """
    if isinstance(policy, MappingPolicy):
        return policy
    try:
        return POLICIES[policy]
    except (KeyError, TypeError):
        raise InvalidValueError(
            "policy", policy, f"must be a MappingPolicy or one of {', '.join(POLICIES)}"
        ) from None
