"""The jobs and nodes of a pool: interactive and CPU-bound jobs, a head node and remote nodes.

The CSS 600 term report ("Preemption-frequency and migration-frequency
scheduling") describes a pool of commodity machines: jobs are submitted to a
*head node*, which runs them round robin and sends the ones that keep being
preempted to *remote computing nodes*; the nodes differ in speed ("the fastest
node in the pool") and in CPU availability ("the most available computing
node or least busy node"). Its jobs are *interactive* applications (a text
editor, a music player: short CPU bursts separated by idle time) and
*CPU-bound* batch jobs (one long burst).

**Jobs.** A [`PoolJob`][schedlib.frequency.pool.PoolJob] is a sequence of CPU
bursts: burst $k$ needs `work[k]` seconds of CPU on a node of rate 1; after
it completes, the job is idle (the user thinks, the program waits for input)
for `think[k]` seconds, then its next burst arrives at the node the job is on.
A CPU-bound job has a single burst. The job's `kind` is a label for the
measures only: no scheduling rule ever reads it (the report's scheduler
"assumes no information about a submitted job").

**Nodes.** A [`PoolNode`][schedlib.frequency.pool.PoolNode] has a speed $s$
(the CPU's speed relative to a reference machine) and a CPU availability
$a \\in (0, 1]$ (the share of the CPU its owner leaves to the pool). It
executes one pool job at a time, at the rate $r = s \\cdot a$ units of work
per second. Node 0 of a pool is the head node; nodes 1, 2, ... are the remote
nodes.

Examples
--------
>>> editor = PoolJob.interactive(1, 0, work=(0.25, 0.5), think=(5,))
>>> editor.kind.value, editor.bursts, editor.total_work
('interactive', 2, 0.75)
>>> PoolNode(speed=2, availability=0.5).rate
1.0
>>> PoolNode(speed=0)
Traceback (most recent call last):
...
schedlib.errors.InvalidValueError: PoolNode.speed = 0: must be a finite number > 0
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable
from typing import Any

import attrs

from schedlib.errors import InvalidValueError
from schedlib.model import JobId, Time
from schedlib.validation import at_least, finite_at_least

__all__ = ["HEAD", "JobKind", "PoolJob", "PoolNode", "positive_finite", "whole_at_least"]

HEAD = 0
"""Index of the head node in a pool: jobs are submitted there."""


class JobKind(enum.Enum):
    """What a job is, for the measures only (never read by a scheduling rule)."""

    __hash__ = object.__hash__  # plain enum: identity hashing, as in schedlib.model

    INTERACTIVE = "interactive"
    """Short CPU bursts separated by idle time (a GUI application)."""
    CPU_BOUND = "cpu_bound"
    """One long CPU burst (a batch job)."""


def positive_finite(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    """Validator: the value is a finite number `> 0` (not a bool).

    Examples
    --------
    >>> @attrs.frozen
    ... class Box:
    ...     size: float = attrs.field(validator=positive_finite)
    >>> Box(float("inf"))
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: Box.size = inf: must be a finite number > 0
    """
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not (number and 0 < value < math.inf):
        raise InvalidValueError(
            f"{type(instance).__name__}.{attribute.name}", value, "must be a finite number > 0"
        )


def whole_at_least(bound: int) -> Any:
    """Validator: the value is an `int` (not a bool) `>= bound`.

    Examples
    --------
    >>> @attrs.frozen
    ... class Limit:
    ...     most: int = attrs.field(validator=whole_at_least(1))
    >>> Limit(1.5)
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: Limit.most = 1.5: must be an integer >= 1
    """

    def check(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or value < bound:
            raise InvalidValueError(
                f"{type(instance).__name__}.{attribute.name}",
                value,
                f"must be an integer >= {bound}",
            )

    return check


def _floats(value: Iterable[float]) -> tuple[float, ...]:
    return tuple(value)


def _each(bound: float, strict: bool) -> Any:
    def check(instance: Any, attribute: attrs.Attribute[Any], value: tuple[float, ...]) -> None:
        name = f"{type(instance).__name__}.{attribute.name}"
        for index, item in enumerate(value):
            number = isinstance(item, (int, float)) and not isinstance(item, bool)
            ok = number and math.isfinite(item) and (item > bound if strict else item >= bound)
            if not ok:
                relation = ">" if strict else ">="
                raise InvalidValueError(
                    f"{name}[{index}]", item, f"must be a finite number {relation} {bound}"
                )

    return check


@attrs.frozen(slots=True)
class PoolJob:
    """A job of the pool: one or more CPU bursts, idle time between them.

    Attributes
    ----------
    id
        Unique identifier, `>= 0`.
    submit
        Submission time in seconds (its first burst arrives then), `>= 0`.
    work
        CPU work of each burst, in seconds on a node of rate 1; at least one
        burst, each finite and `> 0`.
    think
        Idle time after each burst but the last, in seconds, each finite and
        `>= 0`; `len(think) == len(work) - 1`.
    kind
        A label for the measures ([`JobKind`][schedlib.frequency.pool.JobKind]).

    Notes
    -----
    Runs on one node at a time (`procs` is 1), so a
    [`RunRecord`][schedlib.model.RunRecord] can hold it.

    Examples
    --------
    >>> PoolJob.cpu_bound(7, 10, 600)
    PoolJob(id=7, submit=10, work=(600,), think=(), kind=<JobKind.CPU_BOUND: 'cpu_bound'>)
    >>> PoolJob(1, 0, work=(1, 2), think=())
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: PoolJob.think = (): needs one idle time per burst but \
the last (1)
    """

    id: JobId = attrs.field(validator=at_least(0))
    submit: Time = attrs.field(validator=finite_at_least(0))
    work: tuple[float, ...] = attrs.field(converter=_floats, validator=_each(0, strict=True))
    think: tuple[float, ...] = attrs.field(
        default=(), converter=_floats, validator=_each(0, strict=False)
    )
    kind: JobKind = JobKind.CPU_BOUND

    def __attrs_post_init__(self) -> None:
        if not self.work:
            raise InvalidValueError("PoolJob.work", self.work, "needs at least one burst")
        if len(self.think) != len(self.work) - 1:
            raise InvalidValueError(
                "PoolJob.think",
                self.think,
                f"needs one idle time per burst but the last ({len(self.work) - 1})",
            )

    @classmethod
    def cpu_bound(cls, id: JobId, submit: Time, work: float) -> PoolJob:
        """A CPU-bound job: a single burst of `work` seconds."""
        return cls(id, submit, (work,), (), JobKind.CPU_BOUND)

    @classmethod
    def interactive(
        cls, id: JobId, submit: Time, work: Iterable[float], think: Iterable[float]
    ) -> PoolJob:
        """An interactive job: bursts `work`, separated by the idle times `think`."""
        return cls(id, submit, tuple(work), tuple(think), JobKind.INTERACTIVE)

    @property
    def bursts(self) -> int:
        """Number of CPU bursts."""
        return len(self.work)

    @property
    def total_work(self) -> float:
        """Sum of the bursts' work."""
        return sum(self.work)

    @property
    def procs(self) -> int:
        """Processing units held while executing: always 1."""
        return 1


@attrs.frozen(slots=True)
class PoolNode:
    """A computing node of the pool.

    Attributes
    ----------
    speed
        $s$: CPU speed relative to a reference machine, finite and `> 0` (a
        node of speed 0 could never finish anything).
    availability
        $a$: the share of the CPU its owner leaves to the pool, in $(0, 1]$.
    rate
        $r = s \\cdot a$: work done per second by the pool job it runs
        (derived).

    Examples
    --------
    >>> PoolNode(1.5)
    PoolNode(speed=1.5, availability=1.0)
    >>> PoolNode(1, availability=0)
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: PoolNode.availability = 0: must be in (0, 1]
    """

    speed: float = attrs.field(default=1.0, validator=positive_finite)
    availability: float = attrs.field(default=1.0)
    rate: float = attrs.field(init=False, repr=False, eq=False)

    @availability.validator
    def _check_availability(self, attribute: attrs.Attribute[Any], value: Any) -> None:
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not (number and 0 < value <= 1):
            raise InvalidValueError("PoolNode.availability", value, "must be in (0, 1]")

    @rate.default
    def _rate(self) -> float:
        return self.speed * self.availability
