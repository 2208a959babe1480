"""Internode scheduling (PUSH / PULL) and queue balancing between neighbouring nodes.

After its local decision, a node looks at its neighbours (Balasubramanian et al. 2013 §5.3):

- **PUSH**: it offers its best waiting job to the neighbours whose best
  waiting priority is lower than the job's (or whose queue is empty) and
  where the job fits the free vector *now*; among them it picks the one with
  the least objective $f = BM \\cdot FM / s$ and the job moves there and
  starts at once ([`choose_push_target`][schedlib.preemption.migration.choose_push_target]).
  That is the paper's reading (`receiver="fit"`: "if the job can be backfilled at the
  neighbor node, the PUSH message is accepted", §5.3; "only jobs that can start running
  immediately will be moved", §8). The other reading, `receiver="preempt"`
  ([`PUSH_RECEIVERS`][schedlib.preemption.migration.PUSH_RECEIVERS]), also accepts a
  neighbour whose own local decision, with the job added to its queue, would start it now
  by preempting lower-priority running jobs there: the victims rejoin the receiver's
  queue, which is what the paper's explanation of its Figure 6 needs ("the jobs migrated
  to neighboring nodes would result in longer job queues for some nodes", §6.2).
- **PULL**: a node with free resources asks the neighbour whose best waiting
  priority is the closest one above its own (ties: the longest queue); that
  neighbour answers with the queued job that fits the requester's free vector
  and has the least $BM \\cdot FM$ there, or rejects, and the requester asks
  the next such neighbour ([`pull_partners`][schedlib.preemption.migration.pull_partners],
  [`choose_pull_job`][schedlib.preemption.migration.choose_pull_job]).

Queue balancing (Balasubramanian et al. 2013 §8, proposed there) moves queued jobs between
*queues* so that the normalised queue loads even out
([`queue_load`][schedlib.preemption.migration.queue_load],
[`balance_push`][schedlib.preemption.migration.balance_push],
[`balance_pull`][schedlib.preemption.migration.balance_pull]).

## The measures

For a candidate node with normalised utilisation $S^k$ (used / capacity) and
a job with normalised requirement $R^k$ (requirement / the node's capacity):

$$ BM = \\frac{\\max_k (S^k + R^k)}{\\sum_{k=1}^{K} (S^k + R^k)}, \\qquad
   FM = 1 - \\frac{\\sum_{k=1}^{K} (S^k + R^k)}{K}, \\qquad
   f_{push} = \\frac{BM \\cdot FM}{s} $$

BM measures how uneven the node's utilisation would be, FM how much of it
would stay unused; lower is better for both.

**BM: max/sum or max/average?** The paper prints $\\max / \\sum$ but names it
"Maximum Utilization / Average Utilization". The two differ by the constant
factor $K$ (the number of resource kinds, the same for every node), and BM
only enters the objective as a factor multiplied by positive terms, so
$\\arg\\min$ over candidate nodes (and every tie) is the same. We implement the
printed form, $BM \\in [1/K, 1]$.

References
----------
Balasubramanian et al. (2013) §5.3 (internode scheduling, PUSH and PULL), §8 (queue balancing);
Lee, Keleher, Sussman, HCW 2010 (the paper's [9]) and Leinberger et al. 2000
([22]) for BM, FM and the normalised loads.

Examples
--------
A half-used node receiving a job that asks for a quarter of each kind:

>>> balance_measure((0.5, 0.5), (0.25, 0.25)), fullness_measure((0.5, 0.5), (0.25, 0.25))
(0.5, 0.25)
>>> push_objective((0.5, 0.5), (0.25, 0.25), speed=2.0)
0.0625
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from schedlib.errors import InvalidValueError
from schedlib.model import JobId
from schedlib.preemption.decision import (
    Contender,
    LocalPolicy,
    NodeSnapshot,
    rank_key,
    schedule_preemptive,
)
from schedlib.preemption.resources import Vector, add, fits, normalised, subtract

__all__ = [
    "PUSH_RECEIVERS",
    "BalanceMove",
    "NeighbourView",
    "balance_measure",
    "balance_pull",
    "balance_push",
    "choose_pull_job",
    "choose_push_target",
    "fullness_measure",
    "placement_objective",
    "pull_partners",
    "push_acceptance",
    "push_objective",
    "queue_load",
    "queue_load_vector",
]


def _loaded(utilisation: Sequence[float], requirement: Sequence[float]) -> list[float]:
    return [s + r for s, r in zip(utilisation, requirement, strict=True)]


def balance_measure(utilisation: Sequence[float], requirement: Sequence[float]) -> float:
    """BM, the unevenness of a node's utilisation if the job ran there.

    Parameters
    ----------
    utilisation
        $S^k$: the node's normalised utilisation of each kind, in $[0, 1]$.
    requirement
        $R^k$: the job's requirement as a share of the node's capacity.

    Returns
    -------
    float
        $BM = \\max_k (S^k + R^k) / \\sum_k (S^k + R^k)$, in $[1/K, 1]$.

    Raises
    ------
    InvalidValueError
        If $\\sum_k (S^k + R^k) = 0$ (nothing used and nothing asked: BM is
        undefined; a job always asks for at least one core).

    Notes
    -----
    The printed formula ($\\max/\\sum$); the paper's words "maximum / average"
    give $K$ times this value and the same choices (module notes).
    Complexity: $O(K)$.

    References
    ----------
    Balasubramanian et al. (2013) §5.3.

    Examples
    --------
    >>> balance_measure((0.0, 0.0, 0.0), (0.5, 0.25, 0.25))
    0.5
    """
    loaded = _loaded(utilisation, requirement)
    whole = sum(loaded)
    if whole <= 0:
        raise InvalidValueError(
            "utilisation + requirement", tuple(loaded), "must not be all zero (BM undefined)"
        )
    return max(loaded) / whole


def fullness_measure(utilisation: Sequence[float], requirement: Sequence[float]) -> float:
    """FM, the average share of the node left unused if the job ran there.

    Parameters
    ----------
    utilisation
        $S^k$, as for [`balance_measure`][schedlib.preemption.migration.balance_measure].
    requirement
        $R^k$, likewise.

    Returns
    -------
    float
        $FM = 1 - \\sum_k (S^k + R^k) / K$.

    Notes
    -----
    Complexity: $O(K)$. References: Balasubramanian et al. (2013) §5.3.

    Examples
    --------
    >>> fullness_measure((0.5, 1.0), (0.5, 0.0))
    0.0
    """
    loaded = _loaded(utilisation, requirement)
    return 1 - sum(loaded) / len(loaded)


def placement_objective(utilisation: Sequence[float], requirement: Sequence[float]) -> float:
    """$BM \\cdot FM$, the PULL job-choice objective (lower is better).

    Examples
    --------
    >>> placement_objective((0.5, 0.5), (0.25, 0.25))
    0.125
    """
    return balance_measure(utilisation, requirement) * fullness_measure(utilisation, requirement)


def push_objective(
    utilisation: Sequence[float], requirement: Sequence[float], *, speed: float
) -> float:
    """$f_{Inter-PUSH} = BM \\cdot FM \\cdot (1 / s)$: the PUSH target objective.

    Parameters
    ----------
    utilisation
        $S^k$ of the candidate node.
    requirement
        $R^k$ of the job on that node.
    speed
        The candidate's CPU speed $s$ (`> 0`): faster nodes are preferred.

    Returns
    -------
    float
        The objective; the target is the accepting neighbour minimising it.

    Notes
    -----
    $$ f = BM \\cdot FM \\cdot \\frac{1}{CPU_{speed}} $$

    Complexity: $O(K)$.

    References
    ----------
    Balasubramanian et al. (2013) §5.3.

    Examples
    --------
    >>> push_objective((0.0, 0.0), (0.5, 0.5), speed=1.0)
    0.25
    """
    return placement_objective(utilisation, requirement) / speed


@attrs.frozen(slots=True)
class NeighbourView:
    """What a node knows of one neighbour when it pushes or pulls.

    Attributes
    ----------
    node
        The neighbour's id.
    capacity
        Its capacity vector.
    used
        What its running jobs hold now.
    speed
        Its CPU speed.
    queue
        Its waiting jobs with their priorities on that node.
    running
        Its running jobs with their priorities (only a PUSH that may preempt at the
        receiver reads them; empty otherwise).
    """

    node: int
    capacity: Vector
    used: Vector
    speed: float
    queue: tuple[Contender, ...] = ()
    running: tuple[Contender, ...] = ()

    @property
    def free(self) -> Vector:
        """Capacity minus what is used."""
        return subtract(self.capacity, self.used)

    @property
    def best_waiting(self) -> float | None:
        """The priority of its best waiting job, or `None` if its queue is empty."""
        return max((c.priority for c in self.queue), default=None)


PUSH_RECEIVERS: tuple[str, ...] = ("fit", "preempt")
"""What a neighbour accepts a PUSH for: `"fit"`, the job fits its free vector now (§5.3, the
default); `"preempt"`, also when its own local decision, with the job in its queue, would
start the job now by preempting lower-priority running jobs there."""


def push_acceptance(
    view: NeighbourView,
    requirement: Sequence[float],
    *,
    receiver: str = "fit",
    guest: Contender | None = None,
    decide: LocalPolicy = schedule_preemptive,
) -> Vector | None:
    """Whether a neighbour takes a pushed job now, and its utilisation if it does.

    Parameters
    ----------
    view
        The neighbour (with its `running` jobs for `receiver="preempt"`).
    requirement
        The job's requirement vector.
    receiver
        A reading of [`PUSH_RECEIVERS`][schedlib.preemption.migration.PUSH_RECEIVERS].
    guest
        The job as the neighbour would see it on arrival (its priority there, arrival
        now): needed by `receiver="preempt"` when the job does not fit now.
    decide
        The neighbour's local decision (`receiver="preempt"`).

    Returns
    -------
    tuple of float or None
        `None` if the neighbour refuses; else $S^k$, its normalised utilisation by the
        jobs that run beside the pushed one: what it uses now when the job fits its free
        vector, else what it would use after its decision (victims stopped, any job
        started beside the guest) without the guest itself, so that $S^k + R^k$ is its
        utilisation once the job runs there in both cases.

    Raises
    ------
    InvalidValueError
        For an unknown `receiver`, or `"preempt"` without a `guest` where one is needed.

    Notes
    -----
    With `receiver="preempt"` the neighbour accepts when
    $J \\in \\text{decide}(\\text{capacity}, \\text{running}, \\text{queue} + J).\\text{start}$:
    the decision is the receiver's own, so a job is preempted there only for a job of
    higher priority that needs its resources, as in any local decision. Complexity:
    $O(K)$ when the job fits, else one local decision.

    References
    ----------
    Balasubramanian et al. (2013) §5.3 (PUSH accepted "if the job can be backfilled at the
    neighbor node"), §6.2 (Figure 6: migrated jobs lengthen the receivers' queues).

    Examples
    --------
    A 2-core neighbour runs a long 2-core job; a short 1-core job is pushed:

    >>> long_job = Contender(5, (2, 10), -9000.0, 0)
    >>> busy = NeighbourView(1, (2, 100), (2, 10), 1.0, running=(long_job,))
    >>> push_acceptance(busy, (1, 10)) is None
    True
    >>> push_acceptance(busy, (1, 10), receiver="preempt", guest=Contender(7, (1, 10), -600.0, 30))
    (0.0, 0.0)
    """
    if receiver not in PUSH_RECEIVERS:
        raise InvalidValueError("receiver", receiver, f"must be one of {', '.join(PUSH_RECEIVERS)}")
    if fits(requirement, view.free):
        return normalised(view.used, view.capacity)
    if receiver == "fit":
        return None
    if guest is None:
        raise InvalidValueError(
            "guest", guest, "receiver='preempt' needs the job as the neighbour sees it"
        )
    snapshot = NodeSnapshot(view.capacity, view.running, (*view.queue, guest))
    decision = decide(snapshot)
    if guest.job not in decision.start:
        return None
    held = {c.job: c.requirement for c in (*view.running, *view.queue)}
    used = view.used
    for job in decision.preempt:
        used = subtract(used, held[job])
    for job in decision.start:
        if job != guest.job:
            used = add(used, held[job])
    return normalised(used, view.capacity)


def choose_push_target(
    priority: float,
    requirement: Sequence[float],
    neighbours: Sequence[NeighbourView],
    *,
    receiver: str = "fit",
    guests: Mapping[int, Contender] | None = None,
    decide: LocalPolicy = schedule_preemptive,
) -> int | None:
    """The neighbour a node pushes its best waiting job to, or `None`.

    Parameters
    ----------
    priority
        The job's priority on the sender.
    requirement
        The job's requirement vector.
    neighbours
        The sender's neighbours.
    receiver
        What a neighbour accepts the job for
        ([`PUSH_RECEIVERS`][schedlib.preemption.migration.PUSH_RECEIVERS]): `"fit"` (the
        job fits its free vector now; the default) or `"preempt"` (also when its local
        decision would start the job by preempting there; see
        [`push_acceptance`][schedlib.preemption.migration.push_acceptance]).
    guests
        For `"preempt"`: neighbour id -> the job as that neighbour would see it.
    decide
        For `"preempt"`: the neighbours' local decision.

    Returns
    -------
    int or None
        Among the neighbours that accept — best waiting priority lower than
        `priority` (or an empty queue) and
        [`push_acceptance`][schedlib.preemption.migration.push_acceptance] — the one
        minimising $BM \\cdot FM / s$ on its utilisation with the job (ties: lowest node
        id); `None` if none accepts.

    Notes
    -----
    Complexity: $O(n (K + q))$ for $n$ neighbours with $q$ queued jobs each (plus one
    local decision per neighbour the job does not fit, with `"preempt"`).

    References
    ----------
    Balasubramanian et al. (2013) §5.3 (PUSH model and $f_{Inter-PUSH}$).

    Examples
    --------
    Node 1 is busier but twice as fast; node 2 has a better job waiting:

    >>> idle = NeighbourView(0, (4, 100), (0, 0), 1.0)
    >>> busy_fast = NeighbourView(1, (4, 100), (2, 50), 2.0)
    >>> better_queue = NeighbourView(2, (4, 100), (0, 0), 4.0, (Contender(8, (1, 1), -10.0, 0),))
    >>> choose_push_target(-100.0, (1, 10), [idle, busy_fast, better_queue])
    1
    """
    best: tuple[float, int] | None = None
    for n in neighbours:
        head = n.best_waiting
        if head is not None and head >= priority:
            continue
        guest = guests.get(n.node) if guests is not None else None
        load = push_acceptance(n, requirement, receiver=receiver, guest=guest, decide=decide)
        if load is None:
            continue
        score = push_objective(load, normalised(requirement, n.capacity), speed=n.speed)
        if best is None or (score, n.node) < best:
            best = (score, n.node)
    return None if best is None else best[1]


def pull_partners(own_best: float | None, neighbours: Sequence[NeighbourView]) -> tuple[int, ...]:
    """The order in which a node with free resources asks its neighbours for a job.

    Parameters
    ----------
    own_best
        The priority of the requester's best waiting job, `None` if its
        queue is empty (then every neighbour with a queue qualifies).
    neighbours
        The requester's neighbours.

    Returns
    -------
    tuple of int
        The neighbours whose best waiting priority is above `own_best`,
        closest first; ties: the longest queue, then the lowest id.

    Notes
    -----
    Complexity: $O(n q + n \\log n)$.

    References
    ----------
    Balasubramanian et al. (2013) §5.3 (PULL model: "the node having the closest priority job at
    the head of queue that is higher ... If there are multiple such nodes,
    the request is sent to the node with maximum queue size").

    Examples
    --------
    >>> q = lambda *ps: tuple(Contender(i, (1,), p, 0) for i, p in enumerate(ps))
    >>> ns = [NeighbourView(0, (1,), (1,), 1.0, q(-50.0)), NeighbourView(1, (1,), (1,), 1.0,
    ...       q(-20.0, -90.0)), NeighbourView(2, (1,), (1,), 1.0, q(-20.0)),
    ...       NeighbourView(3, (1,), (1,), 1.0, q(-900.0))]
    >>> pull_partners(-100.0, ns)
    (0, 1, 2)
    """
    ranked = []
    for n in neighbours:
        head = n.best_waiting
        if head is None or (own_best is not None and head <= own_best):
            continue
        ranked.append((head, -len(n.queue), n.node))
    return tuple(node for _, _, node in sorted(ranked))


def choose_pull_job(
    capacity: Sequence[float], used: Sequence[float], queue: Sequence[Contender]
) -> JobId | None:
    """The job a partner hands to a requester, or `None` (PULL-reject).

    Parameters
    ----------
    capacity
        The requester's capacity.
    used
        What the requester's running jobs hold.
    queue
        The partner's waiting jobs.

    Returns
    -------
    int or None
        Among the queued jobs that fit the requester's free vector, the one
        with the least $BM \\cdot FM$ on the requester (ties: the partner's
        queue order: priority, arrival, id); `None` if none fits.

    Notes
    -----
    Complexity: $O(q K)$.

    References
    ----------
    Balasubramanian et al. (2013) §5.3 (PULL model).

    Examples
    --------
    >>> queue = (Contender(1, (4, 10), -5.0, 0), Contender(2, (1, 10), -50.0, 0),
    ...          Contender(3, (2, 60), -80.0, 0))
    >>> choose_pull_job((4, 100), (2, 40), queue)
    3
    """
    free = subtract(capacity, used)
    load = normalised(used, capacity)
    best: tuple[float, tuple[float, float, JobId], JobId] | None = None
    for c in queue:
        if not fits(c.requirement, free):
            continue
        score = placement_objective(load, normalised(c.requirement, capacity))
        key = (score, rank_key(c), c.job)
        if best is None or key < best:
            best = key
    return None if best is None else best[2]


def queue_load_vector(queue: Sequence[Contender], capacity: Sequence[float]) -> tuple[float, ...]:
    """$W_i^k = \\sum_{J_j \\in Queue_i} R_j^k$: normalised queued demand per kind.

    Parameters
    ----------
    queue
        The node's waiting jobs.
    capacity
        The node's capacity (requirements are normalised by it).

    Returns
    -------
    tuple of float
        One normalised load per kind.

    Notes
    -----
    Complexity: $O(q K)$. References: Balasubramanian et al. (2013) §8.

    Examples
    --------
    >>> queue_load_vector((Contender(1, (2, 10), 0.0, 0), Contender(2, (2, 30), 0.0, 0)), (4, 100))
    (1.0, 0.4)
    """
    sums = [0.0] * len(capacity)
    for c in queue:
        for k, share in enumerate(normalised(c.requirement, capacity)):
            sums[k] += share
    return tuple(sums)


def queue_load(queue: Sequence[Contender], capacity: Sequence[float]) -> float:
    """$L_i = \\max_k W_i^k$: the node's normalised queue load (0 for an empty queue).

    Examples
    --------
    >>> queue_load((Contender(1, (2, 10), 0.0, 0), Contender(2, (2, 30), 0.0, 0)), (4, 100))
    1.0
    """
    return max(queue_load_vector(queue, capacity), default=0.0)


@attrs.frozen(slots=True)
class BalanceMove:
    """A queue-balancing move: `job` goes from the queue of `source` to that of `target`.

    Attributes
    ----------
    job
        The job moved.
    source
        The node it leaves.
    target
        The node whose queue it joins.
    """

    job: JobId
    source: int
    target: int


def _pair_after(job: Contender, source: NeighbourView, target: NeighbourView) -> float:
    w_source = queue_load_vector(source.queue, source.capacity)
    w_target = queue_load_vector(target.queue, target.capacity)
    out = normalised(job.requirement, source.capacity)
    into = normalised(job.requirement, target.capacity)
    return max(
        max((w - r for w, r in zip(w_source, out, strict=True)), default=0.0),
        max((w + r for w, r in zip(w_target, into, strict=True)), default=0.0),
    )


def _best_move(source: NeighbourView, targets: Sequence[NeighbourView]) -> BalanceMove | None:
    source_load = queue_load(source.queue, source.capacity)
    best: tuple[float, tuple[float, float, JobId], int] | None = None
    for target in targets:
        before = max(source_load, queue_load(target.queue, target.capacity))
        head = target.best_waiting
        for c in source.queue:
            if head is not None and c.priority <= head:
                continue  # the priority condition of PUSH
            if not fits(c.requirement, target.capacity):
                continue  # could never run there
            after = _pair_after(c, source, target)
            if after >= before:
                continue
            key = (after, rank_key(c), target.node)
            if best is None or key < best:
                best = key
    if best is None:
        return None
    _after, (_priority, _arrival, job), target_node = best
    return BalanceMove(job, source.node, target_node)


def balance_push(node: NeighbourView, neighbours: Sequence[NeighbourView]) -> BalanceMove | None:
    """A queue-balancing PUSH from `node`, if its load is a local maximum.

    Parameters
    ----------
    node
        The would-be sender (its `queue` holds its waiting jobs).
    neighbours
        Its neighbours.

    Returns
    -------
    BalanceMove or None
        When $L_i > 0$ and $L_i \\ge L_n$ for every neighbour $n$: the queued
        job and receiver that minimise the pair's larger load after the move,
        $\\max(L_i', L_n')$, among the moves that lower it below
        $\\max(L_i, L_n)$, where the job's priority exceeds the receiver's
        best waiting priority (or its queue is empty) and the job fits the
        receiver's capacity. Ties: job rank, then receiver id. Else `None`.

    Notes
    -----
    $$ W_i^k = \\sum_{J_j \\in Queue_i} R_j^k / C_i^k, \\qquad L_i = \\max_k W_i^k $$

    Complexity: $O(n q K)$.

    References
    ----------
    Balasubramanian et al. (2013) §8 (queue balancing, PUSH).

    Examples
    --------
    >>> jobs = tuple(Contender(i, (1, 10), -float(i), 0) for i in range(4))
    >>> sender = NeighbourView(0, (2, 100), (2, 20), 1.0, jobs)
    >>> idle = NeighbourView(1, (2, 100), (2, 20), 1.0)
    >>> balance_push(sender, [idle])
    BalanceMove(job=0, source=0, target=1)
    """
    load = queue_load(node.queue, node.capacity)
    if load <= 0 or any(queue_load(n.queue, n.capacity) > load for n in neighbours):
        return None
    return _best_move(node, neighbours)


def _at_most(a: NeighbourView, b: NeighbourView) -> bool:
    return a.speed <= b.speed and fits(a.capacity, b.capacity)


def balance_pull(node: NeighbourView, neighbours: Sequence[NeighbourView]) -> BalanceMove | None:
    """A queue-balancing PULL by `node` from its most loaded neighbour.

    Parameters
    ----------
    node
        The would-be receiver.
    neighbours
        Its neighbours.

    Returns
    -------
    BalanceMove or None
        When $L_i > 0$ and $L_i \\le L_n$ for every neighbour $n$ that is
        equally or less capable (capacity $\\le$ in every kind and speed
        $\\le$): the best move (as in
        [`balance_push`][schedlib.preemption.migration.balance_push]) from the most
        loaded neighbour (ties: lowest id) to `node`. Else `None`.

    Notes
    -----
    Complexity: $O(n q K)$.

    References
    ----------
    Balasubramanian et al. (2013) §8 (queue balancing, PULL: "the node with a locally non-zero
    minimum normalized load among equal or less capable neighbors will
    initiate the PULL process from the most loaded node among its
    neighbors").

    Examples
    --------
    >>> mine = NeighbourView(0, (2, 100), (2, 20), 1.0, (Contender(9, (1, 10), -1.0, 0),))
    >>> jobs = tuple(Contender(i, (1, 10), -float(i), 0) for i in range(4))
    >>> loaded = NeighbourView(1, (2, 100), (2, 20), 1.0, jobs)
    >>> balance_pull(mine, [loaded])
    BalanceMove(job=0, source=1, target=0)
    """
    load = queue_load(node.queue, node.capacity)
    if load <= 0:
        return None
    loads = [(queue_load(n.queue, n.capacity), n) for n in neighbours]
    if any(other < load for other, n in loads if _at_most(n, node)):
        return None
    heaviest = max(loads, key=lambda item: (item[0], -item[1].node), default=None)
    if heaviest is None or heaviest[0] <= load:
        return None
    return _best_move(heaviest[1], [node])
