r"""The remote choice: the most available remote node, the fastest node, PFS's send, and the
report's literal remote-queue branches.

When PFS sends a job to the remote queue, the job is checkpointed and migrated
to the node `findMostAvailableRemote()` returns: "most available computing
node or least busy node", found by sorting the nodes by CPU availability and
taking the first (the CSS 600 term report, Algorithm findMostAvailableRemote).
MFS sends a job over its migration limit to "the fastest computing node".

**CPU availability.** A node's availability $a$ is the share of its CPU its
owner leaves to the pool; the pool jobs on it share that share (they run one
at a time, round robin). The CPU availability a job would see on node $i$,
with $n_i$ other pool jobs there, is

$$ A_i = \frac{a_i}{n_i + 1}. $$

$n_i$ counts the jobs running or waiting on the node and those already on
their way to it (a migration decided but not landed), so that several jobs
sent at the same instant spread over the pool. For a job already on node $i$,
$n_i$ excludes the job itself.

Ties are broken by the documented keys, never at random:

- most available: highest $A_i$, then highest speed, then lowest node index;
- fastest: highest speed, then highest availability $a_i$, then lowest index.

**Two readings of the remote queue** (the pool's
[`Readings`][schedlib.frequency.policies.Readings]): under the default reading
(`"always"`) every job of the remote queue is dispatched
([`send_remote`][schedlib.frequency.remote.send_remote] or MFS's rule); under
the report's literal branches (`"literal"`,
[`contended_only`][schedlib.frequency.remote.contended_only]) a job migrates
only while its node's two queues both hold other jobs, and otherwise rejoins
its node.

References
----------
The CSS 600 term report, Algorithm PFS (the remote-queue block), Algorithm
findMostAvailableRemote() and Algorithm send (`send_to_fastest_node`).

Examples
--------
Remote nodes 1-3: node 1 is idle but its owner keeps half of it; node 2 is
fully available and runs one job: both offer a newcomer half a CPU, and node
2 is faster; node 3 is the fastest but busy:

>>> loads = [NodeLoad(1, 1.0, 0.5, 0), NodeLoad(2, 1.5, 1.0, 1), NodeLoad(3, 2.0, 1.0, 3)]
>>> [cpu_availability(n.availability, n.resident) for n in loads]
[0.5, 0.5, 0.25]
>>> most_available(loads), fastest_node(loads)
(2, 3)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from schedlib.errors import InvalidValueError
from schedlib.frequency.pfs import QueuedJob

__all__ = [
    "EMPTY_QUEUE",
    "Dispatch",
    "Dispatcher",
    "LocalQueue",
    "NodeLoad",
    "contended_only",
    "cpu_availability",
    "fastest_node",
    "most_available",
    "send_remote",
]


class NodeLoad(NamedTuple):
    """What the pool's scheduler knows of a node when it chooses where a job goes.

    Attributes
    ----------
    node
        The node's index in the pool.
    speed
        Its speed $s$.
    availability
        Its availability $a$.
    resident
        Pool jobs on it or on their way to it.
    """

    node: int
    speed: float
    availability: float
    resident: int


class LocalQueue(NamedTuple):
    """The other jobs waiting on the node a remote-queue job is on, when it is dispatched.

    Attributes
    ----------
    unpreempted
        Jobs in the node's unpreempted queue.
    preempted
        Jobs in the node's preempted queue.
    """

    unpreempted: int = 0
    preempted: int = 0


class Dispatch(NamedTuple):
    """Where a job of the remote queue goes.

    Attributes
    ----------
    target
        The node it migrates to, or `None`: it stays on its node ($PF$ reset
        to 0), at the back of that node's preempted queue, or of its
        unpreempted queue when `unpreempted`.
    banned
        Whether the job is banned from migrating from now on.
    unpreempted
        A job that stays rejoins its node's unpreempted queue (the report's
        first literal branch) rather than its preempted queue.
    """

    target: int | None
    banned: bool = False
    unpreempted: bool = False


EMPTY_QUEUE = LocalQueue()
"""No other job waiting: the default `local` of the rules that do not look at it."""

Dispatcher = Callable[[QueuedJob, int, Sequence[NodeLoad], LocalQueue], Dispatch]
"""`(job, current node, remote loads, local queue) -> Dispatch`: where a remote-queue job goes."""


def cpu_availability(availability: float, others: int) -> float:
    """$A = a / (n + 1)$: the share of a node's CPU a job gets with `others` jobs beside it.

    Parameters
    ----------
    availability
        $a$, the node's availability.
    others
        $n$, the other pool jobs on the node (`>= 0`).

    Returns
    -------
    float
        $A$.

    Notes
    -----
    Complexity: $O(1)$.

    Examples
    --------
    >>> cpu_availability(1.0, 0), cpu_availability(0.5, 1)
    (1.0, 0.25)
    """
    return availability / (others + 1)


def _availability_key(load: NodeLoad) -> tuple[float, float, int]:
    return (cpu_availability(load.availability, load.resident), load.speed, -load.node)


def most_available(loads: Sequence[NodeLoad], *, exclude: int | None = None) -> int | None:
    """The most available node: `findMostAvailableRemote()`.

    Parameters
    ----------
    loads
        The candidate nodes.
    exclude
        A node not to choose (the job's own node), or `None`.

    Returns
    -------
    int or None
        The index of the node with the highest CPU availability
        $A_i = a_i / (n_i + 1)$ (ties: faster, then lower index), or `None`
        when there is no candidate.

    Notes
    -----
    The report sorts the nodes ("QuickSort_By_CPU_Availability") and takes the
    first; the maximum is the same node at $O(m)$ instead of
    $O(m \\log m)$ for $m$ nodes (the tests compare the two).

    References
    ----------
    The CSS 600 term report, Algorithm findMostAvailableRemote().

    Examples
    --------
    >>> loads = [NodeLoad(1, 1.0, 1.0, 1), NodeLoad(2, 2.0, 0.5, 0)]
    >>> most_available(loads), most_available(loads, exclude=2), most_available([])
    (2, 1, None)
    """
    best: tuple[float, float, int] | None = None
    for load in loads:
        if load.node == exclude:
            continue
        key = _availability_key(load)
        if best is None or key > best:
            best = key
    return None if best is None else -best[2]


def fastest_node(loads: Sequence[NodeLoad]) -> int:
    """The fastest node: highest speed, then highest availability, then lowest index.

    Raises
    ------
    InvalidValueError
        If `loads` is empty.

    References
    ----------
    The CSS 600 term report, Algorithm send (`send_to_fastest_node`).

    Examples
    --------
    >>> fastest_node([NodeLoad(1, 2.0, 0.5, 0), NodeLoad(2, 2.0, 1.0, 5), NodeLoad(3, 1.0, 1, 0)])
    2
    """
    if not loads:
        raise InvalidValueError("loads", tuple(loads), "needs at least one node")
    return max(loads, key=lambda load: (load.speed, load.availability, -load.node)).node


def send_remote(
    job: QueuedJob, current: int, remotes: Sequence[NodeLoad], local: LocalQueue = EMPTY_QUEUE
) -> Dispatch:
    """PFS's remote step: checkpoint the job and migrate it to the most available remote node.

    Parameters
    ----------
    job
        The job (PFS does not look at it).
    current
        The node the job is on.
    remotes
        The remote nodes (the head node is not one).
    local
        The jobs waiting on `current` (PFS does not look at them).

    Returns
    -------
    Dispatch
        To the most available remote node other than `current`; the job stays
        if there is none (a pool without remote nodes).

    Notes
    -----
    Complexity: $O(m)$ for $m$ remote nodes.

    References
    ----------
    The CSS 600 term report, Algorithm PFS: "checkpoint(mobile_agent);
    remote := findMostAvailableRemote(); send(mobile_agent, remote);".

    Examples
    --------
    >>> job = QueuedJob(7, 12.0, pf=3)
    >>> send_remote(job, 0, [NodeLoad(1, 1.0, 1.0, 2), NodeLoad(2, 1.0, 1.0, 0)])
    Dispatch(target=2, banned=False, unpreempted=False)
    >>> send_remote(job, 0, [])
    Dispatch(target=None, banned=False, unpreempted=False)
    """
    return Dispatch(most_available(remotes, exclude=current))


def contended_only(
    job: QueuedJob,
    current: int,
    remotes: Sequence[NodeLoad],
    local: LocalQueue,
    *,
    dispatch: Dispatcher,
) -> Dispatch:
    """The report's literal remote-queue branches: migrate only while the node is contended.

    Parameters
    ----------
    job, current, remotes
        As for [`send_remote`][schedlib.frequency.remote.send_remote].
    local
        The other jobs waiting on `current`.
    dispatch
        The rule that decides where a job goes once it may migrate
        ([`send_remote`][schedlib.frequency.remote.send_remote] under PFS,
        MFS's rule under PFS+MFS).

    Returns
    -------
    Dispatch
        By the branches of the report's remote-queue block, on the node's
        queues at the instant of the dispatch:

        | unpreempted queue | preempted queue | the job |
        |---|---|---|
        | empty | empty | stays, back of the **unpreempted** queue |
        | empty | not empty | stays, back of the preempted queue (the report is silent) |
        | not empty | empty | stays, back of the preempted queue |
        | not empty | not empty | `dispatch(job, current, remotes, local)` |

        A banned job keeps its ban when it stays.

    Notes
    -----
    The report's block:

    ```text
    if unpreempted_queue.length = 0 then
           if preempted_queue.length = 0 then
                  unpreempted_queue.addToBack( job );
    else if preempted_queue.length = 0 then
          preempted_queue.addToBack( job );
    else
          job.MF := job.MF + 1; preempt( job ); mobile_agent := job  ... send
    ```

    The second case has no branch in the report (the job would be lost);
    we keep it on its node like the third. In the first case the node is
    idle (the job's slice just ended there) and nothing else waits: the job
    starts again at once, so which queue it rejoins changes nothing in the
    schedule; the log records the branch taken. Complexity: $O(1)$ plus
    `dispatch`'s.

    References
    ----------
    The CSS 600 term report, Algorithm PFS ("check for jobs waiting in the
    remote_queue").

    Examples
    --------
    A lone job on an idle head node is not migrated; on a busy one it is:

    >>> job = QueuedJob(7, 12.0, pf=3)
    >>> remotes = [NodeLoad(1, 0.5, 1.0, 0)]
    >>> contended_only(job, 0, remotes, LocalQueue(0, 0), dispatch=send_remote)
    Dispatch(target=None, banned=False, unpreempted=True)
    >>> contended_only(job, 0, remotes, LocalQueue(2, 0), dispatch=send_remote)
    Dispatch(target=None, banned=False, unpreempted=False)
    >>> contended_only(job, 0, remotes, LocalQueue(1, 1), dispatch=send_remote)
    Dispatch(target=1, banned=False, unpreempted=False)
    """
    if local.unpreempted and local.preempted:
        return dispatch(job, current, remotes, local)
    return Dispatch(None, job.banned, unpreempted=not (local.unpreempted or local.preempted))
