"""The task farm's state between events, and how a task instance executes on its processor.

An [`Instance`][schedlib.deferment.state.Instance] is one copy (original or
replica) of a task running on a processor whose speed varies; its processor's
speed history is piecewise constant, so it needs one event per speed piece at
most ([`advance`][schedlib.deferment.state.advance]).
[`FarmState`][schedlib.deferment.state.FarmState] holds everything the model
([`schedlib.deferment.farm`][schedlib.deferment.farm]) threads through the engine.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from schedlib.deferment.desktopgrid import SpeedSource
from schedlib.deferment.selection import JobKey, JobProgress
from schedlib.engine import Event, Phase
from schedlib.model import JobId, Time

__all__ = ["FarmState", "Instance", "advance"]

_COMPLETION, _RECOVERY = Phase.COMPLETION, Phase.RECOVERY


class Instance(NamedTuple):
    """An instance (original or replica) of a task running on a processor.

    Attributes
    ----------
    job
        The job.
    task
        The task index.
    replica
        Whether it is a replica.
    left
        Instructions left to compute at `since`.
    since
        Start of the current speed piece (or of the instance).
    speed
        The processor's speed on the current piece.
    """

    job: JobId
    task: int
    replica: bool
    left: float
    since: Time
    speed: float


class FarmState(NamedTuple):
    """The model's state between events (an immutable record).

    Attributes
    ----------
    jobs
        Submitted, unfinished jobs in submission order (what the scheduler sees).
    idle
        Idle processors, in the order they became idle (on one completion:
        its processor, then those of the cancelled replicas, by id).
    last_job
        The scheduler's round-robin memory.
    runs
        Per processor, the instance it runs, or `None`.
    todo
        Ids of the jobs not finished yet (submitted or not).
    replicated
        Tasks `(job, task)` that have had a replica since they started (only
        their completion needs to look for other instances to cancel).
    """

    jobs: tuple[JobProgress, ...]
    idle: tuple[int, ...]
    last_job: JobKey | None
    runs: tuple[Instance | None, ...]
    todo: frozenset[JobId]
    replicated: frozenset[tuple[JobId, int]] = frozenset()


def advance(
    source: SpeedSource,
    processor: int,
    job: JobId,
    task: int,
    replica: bool,
    left: float,
    now: Time,
) -> tuple[Instance, Event | None]:
    r"""An instance at the start of the speed piece holding `now`, and its next event.

    Parameters
    ----------
    source
        The speed history of `processor`.
    processor
        Where the instance runs (the key of its event).
    job, task, replica
        What runs.
    left
        Instructions left at `now`.
    now
        The current instant.

    Returns
    -------
    (Instance, Event or None)
        The instance, and a `COMPLETION` event at $t + w / s$ when it finishes
        in this piece $[t, e)$ of speed $s$ ($t + w / s \le e$), else a
        `RECOVERY` event at the piece's end $e$, or `None` when the speed is 0
        for ever.

    Notes
    -----
    Complexity: $O(\log k)$ to find the piece among $k$.

    Examples
    --------
    >>> from schedlib.deferment.desktopgrid import SpeedHistory
    >>> history = SpeedHistory(times=(0, 2), speeds=(10, 5))
    >>> instance, event = advance(history, 0, job=1, task=0, replica=False, left=30, now=0)
    >>> event.time, event.phase.name
    (2, 'RECOVERY')
    >>> advance(history, 0, 1, 0, False, left=10, now=2)[1].time
    4.0
    """
    speed, until = source.segment_at(now)
    instance = Instance(job, task, replica, left, now, speed)
    if speed > 0:
        finish = now + left / speed
        if finish <= until:  # as written: w <= s (e - t) loses equality in floats
            return instance, Event(finish, _COMPLETION, processor, key=processor)
    if until == math.inf:
        return instance, None  # stalled for ever: only a replica can finish the task
    return instance, Event(until, _RECOVERY, processor, key=processor)
