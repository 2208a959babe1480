"""Hypothesis strategies for multi-resource nodes, grid jobs, node snapshots and topologies.

Every strategy is valid by construction (a job's requirement is drawn below
the capacity of a node it is meant for, running jobs of a snapshot are drawn
inside the free vector), takes keyword-only bounds checked up front, and uses
whole units and speeds that are powers of two, so that all times and sums are
exact. They shrink towards fewer and smaller items, speed 1, early submission
and the first listed choices.

Examples
--------
>>> from hypothesis import given
>>> @given(node_snapshots(max_running=2, max_waiting=2))
... def test(snap):
...     assert len(snap.running) <= 2
>>> test()
"""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st

from schedlib.errors import InvalidValueError
from schedlib.preemption.decision import Contender, NodeSnapshot
from schedlib.preemption.resources import GridJob, GridNode, Vector
from schedlib.preemption.topology import (
    LoadKey,
    Topology,
    from_edges,
    isolated,
    load_key,
    ring,
    similar_capability,
)
from schedlib.validation import require

__all__ = [
    "busy_streams",
    "grid_jobs",
    "grid_nodes",
    "grids",
    "load_keys",
    "node_snapshots",
    "resource_vectors",
    "topologies",
]

EXACT_SPEEDS: tuple[float, ...] = (1.0, 0.5, 2.0)
"""Default node speeds: powers of two keep every computed time exact."""


def _bounds(**bounds: int) -> None:
    for name, value in bounds.items():
        require(value, name, at_least=1)


def resource_vectors(
    *, kinds: int = 2, max_cores: int = 4, max_amount: int = 8
) -> st.SearchStrategy[Vector]:
    """Capacity-like vectors: cores in `1..max_cores`, other kinds in `1..max_amount`.

    Shrinks towards `(1, 1, ...)`.

    Raises
    ------
    InvalidValueError
        If a bound is `< 1`.
    """
    _bounds(kinds=kinds, max_cores=max_cores, max_amount=max_amount)
    parts = [st.integers(1, max_cores)] + [st.integers(1, max_amount)] * (kinds - 1)
    return st.tuples(*parts)


def _requirement_within(capacity: Vector) -> st.SearchStrategy[Vector]:
    parts = [st.integers(1, int(capacity[0]))] + [st.integers(0, int(c)) for c in capacity[1:]]
    return st.tuples(*parts)


def grid_nodes(
    *,
    min_nodes: int = 1,
    max_nodes: int = 4,
    kinds: int = 2,
    max_cores: int = 4,
    max_amount: int = 8,
    speeds: Sequence[float] = EXACT_SPEEDS,
) -> st.SearchStrategy[list[GridNode]]:
    """Lists of nodes with ids `0..n-1`.

    Shrinks towards one node with one core, one unit of every other kind and
    the first speed of `speeds`.

    Raises
    ------
    InvalidValueError
        If a bound is `< 1`, `min_nodes > max_nodes` or `speeds` is empty or
        not all positive.
    """
    _bounds(min_nodes=min_nodes, max_nodes=max_nodes, kinds=kinds)
    if min_nodes > max_nodes:
        raise InvalidValueError("min_nodes", min_nodes, f"must be <= max_nodes ({max_nodes})")
    if not speeds or any(not s > 0 for s in speeds):
        raise InvalidValueError("speeds", tuple(speeds), "must be non-empty and all > 0")
    one = st.tuples(
        resource_vectors(kinds=kinds, max_cores=max_cores, max_amount=max_amount),
        st.sampled_from(tuple(speeds)),
    )
    return st.lists(one, min_size=min_nodes, max_size=max_nodes).map(
        lambda specs: [GridNode(i, cap, speed) for i, (cap, speed) in enumerate(specs)]
    )


def load_keys(nodes: Sequence[GridNode]) -> st.SearchStrategy[list[LoadKey]]:
    """The matchmaker's load keys of `nodes` (one per node, in order): each kind used
    from 0 to its capacity, and 0-3 jobs waiting.

    Shrinks towards idle nodes with no job waiting.

    Examples
    --------
    >>> from schedlib.preemption.resources import GridNode
    >>> len(load_keys([GridNode(0, (2, 4)), GridNode(1, (1, 1))]).example())
    2
    """

    def one(node: GridNode) -> st.SearchStrategy[LoadKey]:
        used = st.tuples(*(st.integers(0, int(c)) for c in node.capacity))
        return st.builds(load_key, st.just(node), used, st.integers(0, 3))

    return st.tuples(*(one(n) for n in nodes)).map(list)


@st.composite
def _jobs(
    draw: st.DrawFn,
    nodes: Sequence[GridNode],
    min_jobs: int,
    max_jobs: int,
    max_submit: int,
    max_runtime: int,
    exact_estimates: bool,
) -> list[GridJob]:
    count = draw(st.integers(min_jobs, max_jobs))
    jobs = []
    for i in range(count):
        host = nodes[draw(st.integers(0, len(nodes) - 1))]
        requirement = draw(_requirement_within(host.capacity))
        runtime = draw(st.integers(1, max_runtime))
        estimate = runtime if exact_estimates else draw(st.integers(1, max_runtime))
        submit = draw(st.integers(0, max_submit))
        jobs.append(GridJob(i, submit, requirement, estimate, runtime))
    return jobs


def grid_jobs(
    nodes: Sequence[GridNode],
    *,
    min_jobs: int = 1,
    max_jobs: int = 10,
    max_submit: int = 100,
    max_runtime: int = 100,
    exact_estimates: bool = True,
) -> st.SearchStrategy[list[GridJob]]:
    """Workloads for `nodes`: each job fits the capacity of at least one node.

    Jobs get ids `0..n-1`, integer submission times in `0..max_submit` and
    integer runtimes in `1..max_runtime`; the estimate equals the runtime
    unless `exact_estimates=False` (then it is drawn independently).
    Shrinks towards few jobs submitted at 0 with one core and runtime 1.

    Raises
    ------
    InvalidValueError
        If `nodes` is empty or a bound is out of range.
    """
    if not nodes:
        raise InvalidValueError("nodes", tuple(nodes), "must not be empty")
    require(min_jobs, "min_jobs", at_least=0)
    require(max_jobs, "max_jobs", at_least=min_jobs)
    require(max_submit, "max_submit", at_least=0)
    require(max_runtime, "max_runtime", at_least=1)
    return _jobs(nodes, min_jobs, max_jobs, max_submit, max_runtime, exact_estimates)


@st.composite
def _grids(
    draw: st.DrawFn, max_nodes: int, max_jobs: int, kinds: int, exact_estimates: bool
) -> tuple[list[GridNode], list[GridJob]]:
    nodes = draw(grid_nodes(max_nodes=max_nodes, kinds=kinds))
    jobs = draw(grid_jobs(nodes, max_jobs=max_jobs, exact_estimates=exact_estimates))
    return nodes, jobs


def grids(
    *, max_nodes: int = 4, max_jobs: int = 10, kinds: int = 2, exact_estimates: bool = True
) -> st.SearchStrategy[tuple[list[GridNode], list[GridJob]]]:
    """`(nodes, jobs)` pairs from [`grid_nodes`][schedlib.testing.strategies.grid_nodes]
    and [`grid_jobs`][schedlib.testing.strategies.grid_jobs].

    Shrinks as they do.
    """
    _bounds(max_nodes=max_nodes, max_jobs=max_jobs, kinds=kinds)
    return _grids(max_nodes, max_jobs, kinds, exact_estimates)


@st.composite
def _snapshots(
    draw: st.DrawFn,
    kinds: int,
    max_cores: int,
    max_amount: int,
    max_running: int,
    max_waiting: int,
    max_priority: int,
) -> NodeSnapshot:
    capacity = draw(resource_vectors(kinds=kinds, max_cores=max_cores, max_amount=max_amount))
    free = list(capacity)
    priority = st.integers(-max_priority, 0).map(float)
    arrival = st.integers(0, 20)
    job = 0
    running = []
    for _ in range(draw(st.integers(0, max_running))):
        if free[0] < 1:
            break
        requirement = draw(_requirement_within(tuple(free)))
        free = [f - r for f, r in zip(free, requirement, strict=True)]
        running.append(Contender(job, requirement, draw(priority), draw(arrival)))
        job += 1
    waiting = []
    for _ in range(draw(st.integers(0, max_waiting))):
        waiting.append(
            Contender(job, draw(_requirement_within(capacity)), draw(priority), draw(arrival))
        )
        job += 1
    return NodeSnapshot(capacity, tuple(running), tuple(waiting))


def node_snapshots(
    *,
    kinds: int = 2,
    max_cores: int = 6,
    max_amount: int = 8,
    max_running: int = 5,
    max_waiting: int = 6,
    max_priority: int = 20,
) -> st.SearchStrategy[NodeSnapshot]:
    """Node snapshots for local decisions.

    The running jobs fit the capacity (each is drawn inside what is still
    free); waiting jobs fit the capacity. Priorities are whole numbers in
    `-max_priority..0` (ties are frequent, on purpose). Shrinks towards an
    empty node of one core.

    Raises
    ------
    InvalidValueError
        If a bound is `< 1` (`max_running`, `max_waiting` may be 0).
    """
    _bounds(kinds=kinds, max_cores=max_cores, max_amount=max_amount, max_priority=max_priority)
    require(max_running, "max_running", at_least=0)
    require(max_waiting, "max_waiting", at_least=0)
    return _snapshots(kinds, max_cores, max_amount, max_running, max_waiting, max_priority)


@st.composite
def _edges(draw: st.DrawFn, n: int) -> Topology:
    pairs = [(i, j) for i in range(n) for j in range(n) if i < j]
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True)) if pairs else []
    return from_edges(n, chosen)


def topologies(nodes: Sequence[GridNode]) -> st.SearchStrategy[Topology]:
    """Neighbour graphs over `nodes`: 2-NN, CAN', none, or random undirected edges.

    Shrinks towards the 2-NN ring.

    Raises
    ------
    InvalidValueError
        If `nodes` is empty.
    """
    if not nodes:
        raise InvalidValueError("nodes", tuple(nodes), "must not be empty")
    n = len(nodes)
    return st.one_of(
        st.just(ring(n)), st.just(similar_capability(nodes)), st.just(isolated(n)), _edges(n)
    )


@st.composite
def _busy(
    draw: st.DrawFn, cores: int, long_runtime: int, max_short: int, max_short_runtime: int
) -> list[GridJob]:
    long_job = GridJob(0, 0, (cores,), long_runtime, long_runtime)
    jobs = [long_job]
    first = draw(st.integers(1, max_short_runtime))
    jobs.append(GridJob(1, 0, (draw(st.integers(1, cores)),), first, first))
    clock, previous = 0, first
    for i in range(2, draw(st.integers(1, max_short)) + 2):
        clock += draw(st.integers(0, previous))  # before the previous one ends
        runtime = draw(st.integers(1, max_short_runtime))
        jobs.append(GridJob(i, clock, (draw(st.integers(1, cores)),), runtime, runtime))
        previous = runtime
    return jobs


def busy_streams(
    *, cores: int = 1, long_runtime: int = 100, max_short: int = 30, max_short_runtime: int = 10
) -> st.SearchStrategy[list[GridJob]]:
    """An adversarial stream for one node of `cores` cores: a long job and short ones.

    Job 0 needs the whole node for `long_runtime` seconds and arrives at 0
    together with job 1. Then up to `max_short` short jobs (runtimes
    `1..max_short_runtime`, each shorter than job 0) arrive one after
    another, each no later than its predecessor's runtime after the
    predecessor's arrival, so that with preemptive shortest-remaining-time
    first the node never idles and job 0 never gets the whole node while the
    stream lasts. Shrinks towards few one-second jobs arriving together.

    Raises
    ------
    InvalidValueError
        If a bound is `< 1` or `max_short_runtime >= long_runtime`.
    """
    _bounds(cores=cores, long_runtime=long_runtime, max_short=max_short)
    require(max_short_runtime, "max_short_runtime", at_least=1)
    if max_short_runtime >= long_runtime:
        raise InvalidValueError(
            "max_short_runtime", max_short_runtime, f"must be < long_runtime ({long_runtime})"
        )
    return _busy(cores, long_runtime, max_short, max_short_runtime)
