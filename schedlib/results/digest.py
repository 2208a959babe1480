r"""A run's schedule in a few characters: two runs with the same digest made the same schedule.

A reproduction compares policies run on the same inputs. Where two of them make
the same schedule by construction (a rule that never acts, jobs that never
meet), their comparison is a tie, not evidence (see
[`Tie`][schedlib.results.verdicts.Tie]); the rows carry each run's
[`schedule_digest`][schedlib.results.digest.schedule_digest] so that a claim
can tell an identical schedule from a difference that happens to be zero.

Examples
--------
>>> from schedlib.model import EventKind, Job, JobEvent, RunRecord
>>> def run(end):
...     job = Job(id=1, submit=0, procs=1, requested_time=10, runtime=5)
...     log = [JobEvent(0, 1, EventKind.SUBMIT), JobEvent(0, 1, EventKind.START, (0,)),
...            JobEvent(end, 1, EventKind.COMPLETE, (0,))]
...     return RunRecord.from_log("demo", [job], log, capacity=1)
>>> schedule_digest(run(5.0)) == schedule_digest(run(5.0)) != schedule_digest(run(5.5))
True
>>> len(schedule_digest(run(5.0)))
16
"""

from __future__ import annotations

import hashlib

from schedlib.model import RunRecord

__all__ = ["schedule_digest"]


def schedule_digest(record: RunRecord) -> str:
    """A digest of every event of `record`: time, kind, job, task, place and detail, in order.

    Two records with the same digest have the same log (up to a collision of
    64-bit hashes); times enter as their exact `repr`, so a difference in the
    last bit of a float changes the digest. The policy's name and parameters do
    not enter: two policies that schedule alike get the same digest.

    Returns
    -------
    str
        16 hexadecimal digits (the first 64 bits of a SHA-256).

    Notes
    -----
    Complexity: $O(E)$ for $E$ events.
    """
    text = "\n".join(
        f"{e.time!r} {e.kind.value} {e.job} {e.task} {e.place} {e.detail!r} {e.at!r}"
        for e in record.events
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
