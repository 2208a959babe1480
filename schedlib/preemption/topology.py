"""Neighbour graphs between grid nodes, and the matchmaker placing arriving jobs.

Internode scheduling (Balasubramanian et al. 2013 §5.3) moves jobs only between *neighbours*.
The paper's experiment (§6.1) uses two graphs, both built here:

- **2-NN** ([`ring`][schedlib.preemption.topology.ring]): "each node is connected to
  exactly two other nodes". The neighbours are "arbitrarily generated"; we
  link node $i$ to $i - 1$ and $i + 1$ (mod $n$): node ids carry no
  information in the experiment (nodes are generated in random order), so
  this is an arbitrary ring.
- **CAN'** ([`similar_capability`][schedlib.preemption.topology.similar_capability]):
  "a CAN-like network with 3-4 neighbors ... each node is connected to 4
  other nodes that have similar resource capabilities". We sort the nodes by
  capability (capacity vector, then speed, then id) and link each to the 2
  before and the 2 after it in that order (a path, so the two ends have 2
  and 3 neighbours: "3-4 neighbours").

Any other graph can be given as neighbour lists
([`Topology`][schedlib.preemption.topology.Topology], validated) or as edges
([`from_edges`][schedlib.preemption.topology.from_edges]).

The **matchmaker** ([`Matchmaker`][schedlib.preemption.topology.Matchmaker]) places
each arriving job on a lightly loaded node that satisfies its requirement
(§3: "matchmaking is the initial job assignment to a node that satisfies all
the resource requirements of the job, and also does load balancing to find a
(relatively) lightly loaded node"). It is complete (if some node's capacity
satisfies the job it finds one) and deterministic. Two views of the load
([`MATCHMAKER_VIEWS`][schedlib.preemption.topology.MATCHMAKER_VIEWS]):

- **global** (the default, `choices=None`): among *every* node whose capacity covers
  the requirement it takes the least [`load_key`][schedlib.preemption.topology.load_key]
  — fewest waiting jobs, then lowest dominant share of resources in use, then the
  least capable node (parsimony: keep big nodes for big jobs), then the lowest id;
- **limited** (`choices=d`): the less loaded (same key) of $d$ suitable nodes drawn at
  random for the job, without replacement (all of them when fewer are suitable). The
  draw for a job is a pure function of the matchmaker's `seed` and the job's id, so a
  run stays a pure function of its inputs.

**The paper's matchmaker is neither.** The paper's matchmaking is the decentralized
CAN scheme of Kim et al. (its reference [8]): the job is routed through the overlay to
an owner node, which searches from there with the load information its neighbours
exchange, possibly stale (§3, §5.3: "the potential receiver information may not be
up-to-date"). The paper does not give enough of it to simulate. The global view
satisfies every property §3 asks of a matchmaker (expressive, load balancing,
parsimonious, complete) with perfect information; the limited view is a stand-in for a
decentralized search that sees a few candidates only ("the power of $d$ choices"). A
globally balanced placement leaves less imbalance for PUSH and PULL to correct.

References
----------
Balasubramanian et al. (2013) §3 (CAN, matchmaking), §5.3 (neighbours), §6.1 (2-NN and CAN').

Examples
--------
>>> from schedlib.preemption.resources import GridNode
>>> nodes = [GridNode(0, (1, 1024)), GridNode(1, (8, 8192)), GridNode(2, (2, 2048)),
...          GridNode(3, (1, 2048))]
>>> ring(4).neighbours
((3, 1), (0, 2), (1, 3), (2, 0))
>>> similar_capability(nodes).neighbours
((3, 2), (2, 3), (3, 1, 0), (0, 2, 1))
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

import attrs

from schedlib.errors import InvalidValueError
from schedlib.model import JobId
from schedlib.preemption.resources import GridNode, Vector, fits
from schedlib.validation import require

__all__ = [
    "MATCHMAKER_VIEWS",
    "LoadKey",
    "Matchmaker",
    "Topology",
    "capability_key",
    "from_edges",
    "isolated",
    "load_key",
    "ring",
    "similar_capability",
]


def _neighbour_lists(value: Iterable[Iterable[int]]) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(row) for row in value)


def _validate_neighbours(
    instance: Topology, attribute: attrs.Attribute[Any], value: tuple[tuple[int, ...], ...]
) -> None:
    n = len(value)
    for i, row in enumerate(value):
        seen: set[int] = set()
        for j in row:
            where = f"Topology.neighbours[{i}]"
            if isinstance(j, bool) or not isinstance(j, int):
                raise InvalidValueError(where, j, "neighbours must be node ids (int)")
            if not 0 <= j < n:
                raise InvalidValueError(where, j, f"is not a node id (the graph has {n} nodes)")
            if j == i:
                raise InvalidValueError(where, j, "a node cannot be its own neighbour")
            if j in seen:
                raise InvalidValueError(where, j, "appears twice")
            seen.add(j)


def _incoming(neighbours: tuple[tuple[int, ...], ...]) -> tuple[tuple[int, ...], ...]:
    rows: list[list[int]] = [[] for _ in neighbours]
    for i, row in enumerate(neighbours):
        for j in row:
            rows[j].append(i)
    return tuple(tuple(r) for r in rows)


@attrs.frozen(slots=True)
class Topology:
    """A neighbour graph over nodes `0 .. n-1` (directed in general).

    Attributes
    ----------
    neighbours
        `neighbours[i]`: the nodes node `i` may push to and pull from, in a
        fixed order; ids in range, no self-loops, no duplicates.
    name
        A label for reports (`"2-NN"`, `"CAN'"`, ...).
    incoming
        `incoming[j]`: the nodes that have `j` among their neighbours
        (derived).

    Examples
    --------
    >>> Topology([[1], [0, 1]])
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: Topology.neighbours[1] = 1: a node cannot be its own ...
    """

    neighbours: tuple[tuple[int, ...], ...] = attrs.field(
        converter=_neighbour_lists, validator=_validate_neighbours
    )
    name: str = "graph"
    incoming: tuple[tuple[int, ...], ...] = attrs.field(init=False, repr=False, eq=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "incoming", _incoming(self.neighbours))

    def __len__(self) -> int:
        return len(self.neighbours)


def isolated(n: int) -> Topology:
    """`n` nodes without neighbours (local scheduling only).

    Examples
    --------
    >>> isolated(2).neighbours
    ((), ())
    """
    require(n, "n", at_least=0)
    return Topology([()] * n, name="none")


def ring(n: int) -> Topology:
    """The 2-NN graph: node $i$ linked to $i - 1$ and $i + 1$ (mod $n$).

    Parameters
    ----------
    n
        Number of nodes, `>= 0`.

    Returns
    -------
    Topology
        Named `"2-NN"`; every node has two neighbours when $n \\ge 3$.

    Notes
    -----
    Complexity: $O(n)$. References: Balasubramanian et al. (2013) §6.1 ("each node is connected
    to exactly two other nodes (abbreviated as 2-NN)").

    Examples
    --------
    >>> ring(3).neighbours, ring(2).neighbours, ring(1).neighbours
    (((2, 1), (0, 2), (1, 0)), ((1,), (0,)), ((),))
    """
    require(n, "n", at_least=0)
    rows = []
    for i in range(n):
        row: list[int] = []
        for j in ((i - 1) % n, (i + 1) % n):
            if j != i and j not in row:
                row.append(j)
        rows.append(tuple(row))
    return Topology(rows, name="2-NN")


def capability_key(node: GridNode) -> tuple[Any, ...]:
    """Sort key of node capability: capacity vector, then speed, then id.

    Examples
    --------
    >>> capability_key(GridNode(5, (2, 1024), 1.5))
    ((2, 1024), 1.5, 5)
    """
    return (node.capacity, node.speed, node.id)


def similar_capability(nodes: Sequence[GridNode], *, degree: int = 4) -> Topology:
    """The CAN' graph: each node linked to the nodes closest to it in capability order.

    Parameters
    ----------
    nodes
        The grid's nodes; `nodes[i].id` must be `i`.
    degree
        Even number of neighbours of an inner node (`>= 2`): `degree / 2`
        on each side in [`capability_key`][schedlib.preemption.topology.capability_key]
        order.

    Returns
    -------
    Topology
        Named `"CAN'"`; symmetric; the nodes at the two ends of the order
        have fewer neighbours (2 and 3 for `degree=4`).

    Raises
    ------
    InvalidValueError
        If `degree` is odd or `< 2`, or node ids are not `0 .. n-1` in order.

    Notes
    -----
    Neighbours are listed nearest first (previous, then next). Complexity:
    $O(n \\log n)$. References: Balasubramanian et al. (2013) §6.1 ("each node is connected to 4
    other nodes that have similar resource capabilities").

    Examples
    --------
    >>> nodes = [GridNode(i, (c, 1024)) for i, c in enumerate((8, 1, 4, 2, 1))]
    >>> similar_capability(nodes).neighbours[2]  # the 4-core node
    (3, 0, 4)
    """
    require(degree, "degree", at_least=2)
    if degree % 2:
        raise InvalidValueError("degree", degree, "must be even (half on each side)")
    _check_ids(nodes)
    order = sorted(nodes, key=capability_key)
    position = {node.id: p for p, node in enumerate(order)}
    rows = []
    for node in nodes:
        p = position[node.id]
        row = []
        for step in range(1, degree // 2 + 1):
            for q in (p - step, p + step):
                if 0 <= q < len(order):
                    row.append(order[q].id)
        rows.append(tuple(row))
    return Topology(rows, name="CAN'")


def from_edges(n: int, edges: Iterable[tuple[int, int]], *, directed: bool = False) -> Topology:
    """A topology from an edge list.

    Parameters
    ----------
    n
        Number of nodes.
    edges
        Pairs `(i, j)`; with `directed=False` each pair links both ways
        (a pair given twice, in either direction, counts once).
    directed
        Whether `(i, j)` makes `j` a neighbour of `i` only.

    Returns
    -------
    Topology
        Neighbours in the order the edges list them.

    Raises
    ------
    InvalidValueError
        For an id out of range or a self-loop.

    Examples
    --------
    >>> from_edges(3, [(0, 1), (1, 2), (2, 1)]).neighbours
    ((1,), (0, 2), (1,))
    """
    require(n, "n", at_least=0)
    rows: list[list[int]] = [[] for _ in range(n)]
    for i, j in edges:
        for a, b in ((i, j),) if directed else ((i, j), (j, i)):
            if not (isinstance(a, int) and 0 <= a < n):
                raise InvalidValueError("edge", (i, j), f"names a node outside 0..{n - 1}")
            if b not in rows[a]:
                rows[a].append(b)
    return Topology(rows, name="graph")


def _check_ids(nodes: Sequence[GridNode]) -> None:
    for i, node in enumerate(nodes):
        if node.id != i:
            raise InvalidValueError(f"nodes[{i}].id", node.id, f"must be {i} (ids are 0..n-1)")


LoadKey = tuple[int, float, Vector, int]
"""The matchmaker's load key of a node (lower is more lightly loaded)."""


def load_key(node: GridNode, used: Sequence[float], waiting: int) -> LoadKey:
    """How loaded a node looks to the matchmaker (lower is lighter).

    Parameters
    ----------
    node
        The node.
    used
        What its running jobs hold.
    waiting
        Its number of waiting jobs.

    Returns
    -------
    tuple
        `(waiting jobs, dominant share in use, capacity, id)`: the dominant
        share is $\\max_k u^k / C^k$; the capacity vector makes the least
        capable of equally loaded nodes win (parsimony).

    Examples
    --------
    >>> load_key(GridNode(4, (4, 1000)), (1, 500), 0)
    (0, 0.5, (4, 1000), 4)
    """
    share = max((u / c for u, c in zip(used, node.capacity, strict=True) if c), default=0.0)
    return (waiting, share, node.capacity, node.id)


MATCHMAKER_VIEWS: tuple[str, ...] = ("global", "limited")
"""The matchmaker's views of the load: `"global"` (every suitable node, the default) and
`"limited"` (the less loaded of $d$ random suitable nodes)."""


class Matchmaker:
    """Deterministic placement of arriving jobs on lightly loaded, suitable nodes.

    Parameters
    ----------
    nodes
        The grid's nodes (`nodes[i].id == i`).
    choices
        `None` (default): the global view, every suitable node is a candidate.
        An integer $d \\ge 1$: the limited view, $d$ suitable nodes drawn at random
        for each job (see the module notes).
    seed
        The limited view's seed (an integer $\\ge 0$): the candidates of job $j$ are
        drawn from a `random.Random` seeded with `"schedlib/matchmaker:{seed}:{j}"`,
        so they depend on nothing but the seed and the job's id.

    Raises
    ------
    InvalidValueError
        For node ids not `0..n-1`, `choices < 1` or a negative seed.

    Notes
    -----
    Nodes are grouped by capacity vector once; a requirement's suitable nodes
    are computed once per distinct requirement and kept (the answers never
    depend on the cache). A global placement is then one `min` over the suitable
    nodes' load keys: $O(n)$ with a small constant; a limited one draws $d$ of
    them: $O(d)$ after the first placement of its requirement.

    The global view sees every node's load key: a view that the paper's
    decentralized CAN matchmaking does not have (see the module notes).

    References
    ----------
    Balasubramanian et al. (2013) §3 (matchmaking: requirements satisfied, lightly loaded node,
    completeness, parsimony; Kim et al. [8] for the CAN scheme); Mitzenmacher (2001), "The
    power of two choices in randomized load balancing", *IEEE TPDS* 12(10) (the limited view).

    Examples
    --------
    >>> nodes = [GridNode(0, (1, 1024)), GridNode(1, (4, 4096)), GridNode(2, (4, 4096))]
    >>> mm = Matchmaker(nodes)
    >>> keys = [load_key(n, (0, 0), 0) for n in nodes]
    >>> mm.place((1, 512), keys), mm.place((2, 512), keys), mm.place((8, 512), keys)
    (0, 1, None)
    >>> keys[1] = load_key(nodes[1], (4, 0), 1)
    >>> mm.place((2, 512), keys)
    2

    With one random candidate a job may land on the busier node; the draw depends on
    the job's id only:

    >>> limited = Matchmaker(nodes, choices=1, seed=3)
    >>> [limited.place((2, 512), keys, job=j) for j in range(6)]
    [1, 2, 1, 2, 2, 2]
    >>> limited.place((2, 512), keys, job=1) == limited.place((2, 512), keys, job=1)
    True
    """

    def __init__(
        self, nodes: Sequence[GridNode], *, choices: int | None = None, seed: int = 0
    ) -> None:
        _check_ids(nodes)
        if choices is not None:
            require(choices, "choices", at_least=1)
        require(seed, "seed", at_least=0)
        self.choices = choices
        self.seed = seed
        groups: dict[Vector, list[int]] = {}
        for node in nodes:
            groups.setdefault(node.capacity, []).append(node.id)
        self._groups = tuple((cap, tuple(ids)) for cap, ids in groups.items())
        self._suitable: dict[Vector, tuple[int, ...]] = {}

    @property
    def view(self) -> str:
        """`"global"` or `"limited:d"`."""
        return "global" if self.choices is None else f"limited:{self.choices}"

    def suitable(self, requirement: Vector) -> tuple[int, ...]:
        """Ids of the nodes whose capacity covers `requirement`, ascending."""
        found = self._suitable.get(requirement)
        if found is None:
            ids: list[int] = []
            for capacity, members in self._groups:
                if len(capacity) == len(requirement) and fits(requirement, capacity):
                    ids.extend(members)
            found = tuple(sorted(ids))
            self._suitable[requirement] = found
        return found

    def candidates(self, requirement: Vector, job: JobId = 0) -> tuple[int, ...]:
        """The nodes the matchmaker compares for job `job`: every suitable node (global
        view), or `choices` of them drawn for this job (limited view), ascending."""
        suitable = self.suitable(requirement)
        if self.choices is None or len(suitable) <= self.choices:
            return suitable
        rng = random.Random(f"schedlib/matchmaker:{self.seed}:{job}")
        return tuple(sorted(rng.sample(suitable, self.choices)))

    def place(self, requirement: Vector, keys: Sequence[LoadKey], job: JobId = 0) -> int | None:
        """The node for job `job` with `requirement`, given every node's load key.

        Returns
        -------
        int or None
            The candidate with the least key (see
            [`candidates`][schedlib.preemption.topology.Matchmaker.candidates]), or
            `None` if no node's capacity covers the requirement.
        """
        candidates = self.candidates(requirement, job)
        if not candidates:
            return None
        return min(candidates, key=keys.__getitem__)
