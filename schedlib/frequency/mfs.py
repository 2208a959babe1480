r"""The migration-frequency scheduler (MFS): highest migration count first, and the migration limit.

The CSS 600 term report, "Migration Frequency Scheduler, MFS": "The MFS
schedules a job for execution if it has a higher migration count than other
potential jobs in the queue of jobs; selecting a job at random breaks ties,
and a job that exceeds the maximum migration frequency, MF, is sent to the
fastest computing node and banned for further migrations."

Two pure rules, applied by the pool model under the `pfs+mfs` policy:

- [`mfs_order`][schedlib.frequency.mfs.mfs_order]: among waiting jobs, the
  one with the highest migration count $MF$ goes first; ties are broken at
  random with an explicit, seeded `random.Random`. It orders the queues of the
  remote nodes and the pool's remote queue.
- [`mfs_dispatch`][schedlib.frequency.mfs.mfs_dispatch]: where a job of the
  remote queue goes. If the move would take its $MF$ over `MAX_MF`, it goes
  to the fastest remote node (or stays, if it is already there) and is
  banned from migrating again. Otherwise it migrates to the most available
  remote node — from a remote node only if that node is strictly more
  available than its own (the report's
  `current_node.CPU_Avail < node.CPU_Avail`); else it stays.

Each migration adds 1 to $MF$, so $MF \le$ `MAX_MF` $+ 1$ for every job.

**Two readings of the move condition** (the pool's
[`Readings`][schedlib.frequency.policies.Readings]): the one above
(`"availability"`: a move needs a strictly more available node), and the
report's `localMF` test read literally (`"local-mf"`,
[`local_mf_dispatch`][schedlib.frequency.mfs.local_mf_dispatch]): a job on a
remote node whose $MF$ is at most `localMF` stays there.

References
----------
The CSS 600 term report, "Migration Frequency Scheduler, MFS" (Algorithm
MFS(M, n, R) and Algorithm send).

Examples
--------
>>> import random
>>> queue = [QueuedJob(1, 5.0, mf=1), QueuedJob(2, 5.0, mf=2), QueuedJob(3, 5.0, mf=2)]
>>> queue[mfs_order(queue, random.Random(0))].mf
2
>>> remotes = [NodeLoad(1, 1.0, 1.0, 0), NodeLoad(2, 2.0, 0.5, 4)]
>>> mfs_dispatch(QueuedJob(2, 5.0, mf=1), 0, remotes, max_mf=2)
Dispatch(target=1, banned=False, unpreempted=False)
>>> mfs_dispatch(QueuedJob(2, 5.0, mf=2), 1, remotes, max_mf=2)
Dispatch(target=2, banned=True, unpreempted=False)
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import attrs

from schedlib.errors import InvalidValueError
from schedlib.frequency.pfs import QueuedJob
from schedlib.frequency.pool import HEAD, whole_at_least
from schedlib.frequency.remote import (
    EMPTY_QUEUE,
    Dispatch,
    LocalQueue,
    NodeLoad,
    cpu_availability,
    fastest_node,
    most_available,
)

__all__ = ["MfsParameters", "local_mf_dispatch", "mfs_dispatch", "mfs_order"]


@attrs.frozen(slots=True)
class MfsParameters:
    """The parameter of MFS.

    Attributes
    ----------
    max_mf
        The report's `MAX_MF`: a job may migrate freely while its migration
        count is below it; the move that would take $MF$ over it sends the job
        to the fastest node and bans it. An integer `>= 0` (0: every job the
        head node sends goes straight to the fastest node, banned).

    Examples
    --------
    >>> MfsParameters(-1)
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: MfsParameters.max_mf = -1: must be an integer >= 0
    """

    max_mf: int = attrs.field(default=2, validator=whole_at_least(0))


def mfs_order(waiting: Sequence[QueuedJob], rng: random.Random) -> int:
    """Index of the job MFS runs (or dispatches) next: highest $MF$, ties at random.

    Parameters
    ----------
    waiting
        The candidates (not empty).
    rng
        The generator that breaks ties; it is drawn from exactly once
        (`rng.randrange(k)`) when $k \\ge 2$ candidates share the highest
        $MF$, and not at all otherwise.

    Returns
    -------
    int
        An index into `waiting`: among the candidates with the highest $MF$
        (in their order in `waiting`), the one at position
        `rng.randrange(k)`.

    Raises
    ------
    InvalidValueError
        If `waiting` is empty.

    Notes
    -----
    Complexity: $O(n)$.

    References
    ----------
    The CSS 600 term report, "Migration Frequency Scheduler, MFS": "a higher
    migration count than other potential jobs in the queue of jobs;
    selecting a job at random breaks ties".

    Examples
    --------
    >>> jobs = [QueuedJob(j, 1.0, mf=1) for j in range(4)]
    >>> [mfs_order(jobs, random.Random(seed)) for seed in range(6)]
    [3, 1, 0, 1, 1, 2]
    >>> mfs_order([QueuedJob(1, 1.0, mf=0), QueuedJob(2, 1.0, mf=3)], random.Random(0))
    1
    """
    if not waiting:
        raise InvalidValueError("waiting", tuple(waiting), "must not be empty")
    top = max(queued.mf for queued in waiting)
    ties = [index for index, queued in enumerate(waiting) if queued.mf == top]
    if len(ties) == 1:
        return ties[0]
    return ties[rng.randrange(len(ties))]


def mfs_dispatch(
    job: QueuedJob,
    current: int,
    remotes: Sequence[NodeLoad],
    local: LocalQueue = EMPTY_QUEUE,
    *,
    max_mf: int,
) -> Dispatch:
    """Where MFS sends a job of the remote queue.

    Parameters
    ----------
    job
        The job (its `mf` and `banned`).
    current
        The node it is on (the head node or a remote node).
    remotes
        The remote nodes, with their loads (`current` counted among the
        residents of its own node).
    local
        The jobs waiting on `current` (MFS does not look at them).
    max_mf
        `MAX_MF`, `>= 0`.

    Returns
    -------
    Dispatch
        In order:

        1. a banned job stays;
        2. $MF \\ge$ `MAX_MF` (this move would exceed it): to the fastest
           remote node, banned (`target=None` if it is already there, or if
           the pool has no remote node);
        3. the most available remote node other than `current`, if `current`
           is the head node, or if that node's CPU availability
           $a / (n + 1)$ is strictly above the job's share of its own node
           $a_c / n_c$ ($n_c$ counting the job); else (or without another
           remote node) it stays.

    Notes
    -----
    | report | here |
    |---|---|
    | `job.MF` | `job.mf` |
    | `MAX_MF` | `max_mf` |
    | `current_node.CPU_Avail < node.CPU_Avail` | rule 3 |
    | `send_to_fastest_node` | rule 2 |

    Complexity: $O(m)$ for $m$ remote nodes.

    References
    ----------
    The CSS 600 term report, Algorithm MFS(M, n, R) and Algorithm send.

    Examples
    --------
    Node 1 is shared by the job and one other job ($A = 1/2$), node 2 is idle
    but its owner keeps most of it ($A = 1/4$): the job stays.

    >>> remotes = [NodeLoad(1, 1.0, 1.0, 2), NodeLoad(2, 4.0, 0.25, 0)]
    >>> mfs_dispatch(QueuedJob(5, 9.0, mf=1), 1, remotes, max_mf=3).target is None
    True
    >>> mfs_dispatch(QueuedJob(5, 9.0, mf=3), 1, remotes, max_mf=3)[:2]
    (2, True)
    >>> mfs_dispatch(QueuedJob(5, 9.0, mf=3), 2, remotes, max_mf=3)[:2]
    (None, True)
    """
    if job.banned:
        return Dispatch(None, True)
    if job.mf >= max_mf:
        fastest = fastest_node(remotes) if remotes else current
        return Dispatch(None if fastest == current else fastest, True)
    target = most_available(remotes, exclude=current)
    here = next((load for load in remotes if load.node == current), None)
    if target is None:
        return Dispatch(None)
    if here is not None:
        there = next(load for load in remotes if load.node == target)
        mine = cpu_availability(here.availability, max(0, here.resident - 1))
        if not cpu_availability(there.availability, there.resident) > mine:
            return Dispatch(None)
    return Dispatch(target)


def local_mf_dispatch(
    job: QueuedJob,
    current: int,
    remotes: Sequence[NodeLoad],
    local: LocalQueue = EMPTY_QUEUE,
    *,
    max_mf: int,
) -> Dispatch:
    """MFS with the report's `localMF` test: a job on a remote node with $MF \\le$ `localMF` stays.

    Parameters
    ----------
    job, current, remotes, local, max_mf
        As for [`mfs_dispatch`][schedlib.frequency.mfs.mfs_dispatch].

    Returns
    -------
    Dispatch
        For a job on a remote node that is not banned and has
        $MF \\le$ `localMF`: it stays (`PFS(job, 1)`); otherwise
        [`mfs_dispatch`][schedlib.frequency.mfs.mfs_dispatch]'s decision. A
        job on the head node is sent by PFS's `send`, which has no such test:
        `mfs_dispatch`'s decision too.

    Notes
    -----
    The report's MFS:

    ```text
    if current_node.CPU_Avail < node.CPU_Avail then
           if job.MF <= localMF then
                  PFS(job, 1);
           else
                  job.MF := job.MF + 1;
                  send(M[i], node);
    ```

    `localMF` is never defined. PFS sets each of its local limits to the
    global one (`LocalQuantum := MAX_QUANTUM; LocalPF := MAX_PREEMPTION;`);
    we read MFS's alike: `localMF` $=$ `MAX_MF`. A job reaches a remote node
    with $MF \\le$ `MAX_MF` (or is banned on the way) and can raise its count
    only by moving on, so under this reading no job ever moves from one remote
    node to another: every migration leaves the head node (a job's next burst
    that returns there may be sent again, and banned at the limit).
    Complexity: $O(m)$ for $m$ remote nodes.

    References
    ----------
    The CSS 600 term report, Algorithm MFS(M, n, R) (`if job.MF <= localMF`).

    Examples
    --------
    >>> crowded = [NodeLoad(1, 1.0, 1.0, 3), NodeLoad(2, 1.0, 0.5, 0)]  # here 1/3, there 1/2
    >>> local_mf_dispatch(QueuedJob(1, 5.0, mf=1), 1, crowded, max_mf=2).target is None
    True
    >>> mfs_dispatch(QueuedJob(1, 5.0, mf=1), 1, crowded, max_mf=2).target
    2
    >>> local_mf_dispatch(QueuedJob(1, 5.0, mf=0), 0, crowded, max_mf=2).target
    2
    """
    if current != HEAD and not job.banned and job.mf <= max_mf:
        return Dispatch(None)
    return mfs_dispatch(job, current, remotes, local, max_mf=max_mf)
