"""Job overtaking: the relation task deferment rules out, measured on a run's record.

A job $J$ *overtakes* a job $J'$ when $J'$ was submitted earlier, $J'$ is
strictly smaller, and $J$ finishes first (Mine et al. 2007, §1). These are
functions of a finished [`RunRecord`][schedlib.model.RunRecord], used by the
reproduction and by the no-overtaking invariant.
"""

from __future__ import annotations

from schedlib.deferment.desktopgrid import TaskJob
from schedlib.model import FinalState, JobId, RunRecord, Time

__all__ = ["overtakes", "overtaking_jobs", "overtaking_pairs"]


def overtakes(job: TaskJob, end: Time | None, other: TaskJob, other_end: Time | None) -> bool:
    """Whether `job` (finished at `end`) overtakes `other` (finished at `other_end`).

    Parameters
    ----------
    job, other
        The two jobs (anything with `submit` and `size`).
    end, other_end
        Their finish times, `None` for a job that did not finish.

    Returns
    -------
    bool
        True when `other` was submitted strictly earlier, is strictly smaller,
        and `job` finished strictly first (an unfinished `other` finishes
        "never").

    Notes
    -----
    $$J \\succ J' \\iff s(J') < s(J) \\wedge |J'| < |J| \\wedge e(J) < e(J')$$

    | paper | parameter |
    |---|---|
    | overtaking job $J$ | `job` |
    | overtaken job $J'$ | `other` |

    Complexity: $O(1)$.

    References
    ----------
    Mine et al. (2007) §1 and abstract (definition of an overtaking job).

    Examples
    --------
    >>> a, b = TaskJob(1, 0, (5,)), TaskJob(2, 1, (9,))
    >>> overtakes(b, 10, a, 12), overtakes(b, 12, a, 12), overtakes(a, 1, b, 12)
    (True, False, False)
    """
    if end is None:
        return False
    return (
        other.submit < job.submit
        and other.size < job.size
        and (other_end is None or end < other_end)
    )


def overtaking_pairs(record: RunRecord) -> tuple[tuple[JobId, JobId], ...]:
    """Every pair `(J, J')` of a run where job `J` overtakes job `J'`.

    Parameters
    ----------
    record
        A run whose workload jobs have `submit` and `size` (e.g.
        [`TaskJob`][schedlib.deferment.desktopgrid.TaskJob]); a job's finish time is its
        completion, and a job that did not complete never finishes.

    Returns
    -------
    tuple of (JobId, JobId)
        Sorted pairs (overtaking job, overtaken job).

    Notes
    -----
    Complexity: $O(n^2)$ for $n$ jobs.

    References
    ----------
    Mine et al. (2007) §1.

    Examples
    --------
    >>> from schedlib.model import EventKind as K, JobEvent
    >>> jobs = [TaskJob(1, 0, (5,)), TaskJob(2, 1, (9,))]
    >>> log = [JobEvent(0, 1, K.SUBMIT), JobEvent(1, 2, K.SUBMIT),
    ...        JobEvent(4, 2, K.COMPLETE), JobEvent(6, 1, K.COMPLETE)]
    >>> overtaking_pairs(RunRecord.from_log("x", jobs, log, capacity=1))
    ((2, 1),)
    """
    jobs = record.workload
    ends = {o.job: o.end if o.state is FinalState.COMPLETED else None for o in record.outcomes}
    pairs = [
        (job.id, other.id)
        for job in jobs
        if ends.get(job.id) is not None
        for other in jobs
        if overtakes(job, ends[job.id], other, ends.get(other.id))
    ]
    return tuple(sorted(pairs))


def overtaking_jobs(record: RunRecord) -> tuple[JobId, ...]:
    """The overtaking jobs of a run: those overtaking at least one other job.

    Parameters
    ----------
    record
        As for [`overtaking_pairs`][schedlib.deferment.overtaking.overtaking_pairs].

    Returns
    -------
    tuple of JobId
        Sorted, without repetition.

    Notes
    -----
    Complexity: $O(n^2)$ for $n$ jobs.

    References
    ----------
    Mine et al. (2007) §1.
    """
    return tuple(sorted({job for job, _ in overtaking_pairs(record)}))
