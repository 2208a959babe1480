"""Multi-resource grid nodes and jobs: capacity and requirement vectors over K kinds.

A grid node offers a *capacity vector* over $K$ resource kinds (cores, memory,
disk, GPUs, ...) and a CPU speed relative to the canonical node (speed 1). A
grid job asks for a *requirement vector* over the same kinds and carries an
estimated and an actual runtime measured on the canonical node; on a node of
speed $s$ both take $1/s$ times as long (Balasubramanian et al. 2013 §6.1: "the simulated job
running time is then scaled up or down by the CPU speed relative to the
canonical node").

A job *fits* a free vector when it asks for no more than is free in every
component (Balasubramanian et al. 2013 §4, term 16: "the algorithm treats all resource types ...
as a set R"):

$$ R_j \\le R_f \\iff \\forall k:\\ R_j^k \\le R_f^k $$

By convention component 0 is the number of cores: it must be a whole number
$\\ge 1$ for a job (so [`GridJob.procs`][schedlib.preemption.resources.GridJob.procs]
can report it to run records and metrics) and $\\ge 1$ for a node. Use whole
units for every kind (cores, MB, GB) so that sums and comparisons are exact.

References
----------
Balasubramanian et al. (2013; Balasubramanian, Sussman, Sadeh, "Decentralized preemptive scheduling
across heterogeneous multi-core grid resources"), §3, §4, §6.1.

Examples
--------
>>> node = GridNode(id=0, capacity=(4, 8192, 100), speed=2.0)
>>> job = GridJob(id=1, submit=0, requirement=(2, 1024, 10), estimate=3600, runtime=3000)
>>> fits(job.requirement, node.capacity)
True
>>> runtime_on(job.runtime, node.speed)
1500.0
>>> job.procs
2
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import attrs

from schedlib.errors import InvalidValueError
from schedlib.model import JobId, Time
from schedlib.validation import at_least, finite_at_least

__all__ = [
    "DEFAULT_KINDS",
    "GridJob",
    "GridNode",
    "Vector",
    "add",
    "fits",
    "normalised",
    "runtime_on",
    "subtract",
    "total",
]

Vector = tuple[float, ...]
"""A resource vector: one amount per resource kind, component 0 = cores."""

DEFAULT_KINDS: tuple[str, ...] = ("cores", "memory", "disk")
"""The resource kinds of the experiment (Balasubramanian et al. 2013 §6.1), in vector order."""


def _vector(value: Iterable[Any]) -> Vector:
    return tuple(value)


def _check_vector(name: str, vector: Vector) -> None:
    if not vector:
        raise InvalidValueError(name, vector, "must name at least one resource kind (cores)")
    for k, amount in enumerate(vector):
        if isinstance(amount, bool) or not isinstance(amount, (int, float)):
            raise InvalidValueError(f"{name}[{k}]", amount, "must be a number")
        if not (0 <= amount < float("inf")):
            raise InvalidValueError(f"{name}[{k}]", amount, "must be a finite number >= 0")
    cores = vector[0]
    if cores < 1 or cores != int(cores):
        raise InvalidValueError(f"{name}[0]", cores, "(cores) must be a whole number >= 1")


def _validate_capacity(instance: Any, attribute: attrs.Attribute[Any], value: Vector) -> None:
    _check_vector(f"{type(instance).__name__}.{attribute.name}", value)


def _validate_speed(instance: GridNode, attribute: attrs.Attribute[Any], value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidValueError("GridNode.speed", value, "must be a number")
    if not (0 < value < float("inf")):
        raise InvalidValueError("GridNode.speed", value, "must be a finite number > 0")


@attrs.frozen(slots=True)
class GridNode:
    """A multi-core grid node: capacity over K resource kinds and a CPU speed.

    Attributes
    ----------
    id
        Node index, `>= 0`; a grid's nodes are numbered `0 .. n-1`.
    capacity
        Amount of each resource kind; component 0 is the number of cores
        (a whole number `>= 1`), the others are `>= 0`.
    speed
        CPU speed relative to the canonical node (`> 0`); work of $w$
        canonical seconds takes $w / s$ seconds here.

    Examples
    --------
    >>> GridNode(id=3, capacity=(8, 16384, 500), speed=1.5).capacity[0]
    8
    >>> GridNode(id=0, capacity=(0, 1024, 10))
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: GridNode.capacity[0] = 0: (cores) must be a whole number >= 1
    """

    id: int = attrs.field(validator=at_least(0))
    capacity: Vector = attrs.field(converter=_vector, validator=_validate_capacity)
    speed: float = attrs.field(default=1.0, validator=_validate_speed)

    @property
    def cores(self) -> int:
        """Number of cores (component 0 of the capacity)."""
        return int(self.capacity[0])


@attrs.frozen(slots=True)
class GridJob:
    """An independent job asking for a vector of resources on one node.

    Attributes
    ----------
    id
        Unique identifier, `>= 0`.
    submit
        Submission time in seconds, `>= 0`.
    requirement
        Amount of each resource kind held while executing; component 0 is the
        number of cores (a whole number `>= 1`).
    estimate
        Estimated runtime on the canonical node (speed 1), in seconds, `>= 0`.
        Priorities use it (Balasubramanian et al. 2013 §5.1: $T_{rem}$ is the *estimated* time
        for completion).
    runtime
        Actual runtime on the canonical node, in seconds, `>= 0`. Only the
        engine uses it, to schedule completions; decisions never see it.

    Examples
    --------
    >>> job = GridJob(id=4, submit=1.5, requirement=(1, 512, 5), estimate=1800, runtime=1800)
    >>> (job.procs, job.requested_time)
    (1, 1800)
    """

    id: JobId = attrs.field(validator=at_least(0))
    submit: Time = attrs.field(validator=finite_at_least(0))
    requirement: Vector = attrs.field(converter=_vector, validator=_validate_capacity)
    estimate: Time = attrs.field(validator=finite_at_least(0))
    runtime: Time = attrs.field(validator=finite_at_least(0))

    @property
    def procs(self) -> int:
        """Cores held while executing (for run records and metrics)."""
        return int(self.requirement[0])

    @property
    def requested_time(self) -> Time:
        """The canonical estimate (for run records)."""
        return self.estimate


def fits(requirement: Sequence[float], free: Sequence[float]) -> bool:
    """Whether `requirement` fits in `free`, component by component.

    Parameters
    ----------
    requirement
        The amounts asked for.
    free
        The amounts available (same kinds, same order).

    Returns
    -------
    bool
        $\\forall k: R^k \\le F^k$.

    Notes
    -----
    Complexity: $O(K)$.

    References
    ----------
    Balasubramanian et al. (2013) §4 (terms 16-17) and Algorithm 1 (`R_{j_h} <= R_f`).

    Examples
    --------
    >>> fits((2, 1024), (4, 1024)), fits((2, 2048), (4, 1024))
    (True, False)
    """
    for need, have in zip(requirement, free, strict=True):  # noqa: SIM110 - faster than all()
        if need > have:
            return False
    return True


def add(a: Sequence[float], b: Sequence[float]) -> Vector:
    """Component-wise sum.

    Examples
    --------
    >>> add((1, 2), (3, 4))
    (4, 6)
    """
    return tuple(x + y for x, y in zip(a, b, strict=True))


def subtract(a: Sequence[float], b: Sequence[float]) -> Vector:
    """Component-wise difference `a - b`.

    Examples
    --------
    >>> subtract((4, 6), (3, 4))
    (1, 2)
    """
    return tuple(x - y for x, y in zip(a, b, strict=True))


def total(vectors: Iterable[Sequence[float]], kinds: int) -> Vector:
    """Component-wise sum of `vectors` (the zero vector of length `kinds` if none).

    Summing from scratch (rather than adding and subtracting as jobs come and
    go) keeps the result exact for whole units and free of drift otherwise.

    Examples
    --------
    >>> total([(1, 10), (2, 20)], 2)
    (3, 30)
    >>> total([], 3)
    (0, 0, 0)
    """
    sums: list[float] = [0] * kinds
    for vector in vectors:
        for k, amount in enumerate(vector):
            sums[k] += amount
    return tuple(sums)


def normalised(vector: Sequence[float], capacity: Sequence[float]) -> tuple[float, ...]:
    """Each component as a share of the node's capacity (0 where the capacity is 0).

    Parameters
    ----------
    vector
        Amounts (used, requested, queued).
    capacity
        The node's capacity.

    Returns
    -------
    tuple of float
        $v^k / C^k$ (and 0 for a kind the node does not have).

    Examples
    --------
    >>> normalised((2, 512), (4, 2048))
    (0.5, 0.25)
    """
    return tuple(v / c if c else 0.0 for v, c in zip(vector, capacity, strict=True))


def runtime_on(work: Time, speed: float) -> Time:
    """Wall time on a node of `speed` for `work` canonical seconds: $w / s$.

    Examples
    --------
    >>> runtime_on(3600, 1.5)
    2400.0
    """
    return work / speed
