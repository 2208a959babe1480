r"""The cost of a migration: $K = K_C + K_{C/R}$.

The CSS 600 term report, "Migration Frequency Scheduler, MFS": "$K: K_C +
K_{C/R}$ — $K_C$ is the communication overhead; $K_{C/R}$ is a job's
checkpoint/restart overhead". The report names the terms and never uses them;
we charge $K$ as *time in transit*: a job migrated at $t$ leaves its node at
$t$ (`MIGRATE`), makes no progress and holds no CPU until $t + K$, and joins
the target node's queue then (`ASSIGN`). Its work is kept (the checkpoint),
so a migration costs time, never work.

Examples
--------
>>> MigrationCost(communication=0.5, checkpoint_restart=1.5).total
2.0
>>> MigrationCost(communication=-1)
Traceback (most recent call last):
...
schedlib.errors.InvalidValueError: MigrationCost.communication = -1: must be a finite number >= 0
"""

from __future__ import annotations

import attrs

from schedlib.model import Time
from schedlib.validation import finite_at_least, require

__all__ = ["MigrationCost", "migration_cost"]


@attrs.frozen(slots=True)
class MigrationCost:
    """The two overheads of a migration, in seconds.

    Attributes
    ----------
    communication
        $K_C$: sending the checkpoint to the target node; finite, `>= 0`.
    checkpoint_restart
        $K_{C/R}$: taking the checkpoint and restarting from it; finite,
        `>= 0`.

    References
    ----------
    The CSS 600 term report, "Migration Frequency Scheduler, MFS" (Variables).
    """

    communication: Time = attrs.field(default=0.0, validator=finite_at_least(0))
    checkpoint_restart: Time = attrs.field(default=0.0, validator=finite_at_least(0))

    @property
    def total(self) -> Time:
        """$K = K_C + K_{C/R}$."""
        return migration_cost(self.communication, self.checkpoint_restart)


def migration_cost(communication: Time, checkpoint_restart: Time) -> Time:
    """$K = K_C + K_{C/R}$: seconds a migrated job spends in transit.

    Parameters
    ----------
    communication
        $K_C$, `>= 0`.
    checkpoint_restart
        $K_{C/R}$, `>= 0`.

    Returns
    -------
    float
        $K$.

    Notes
    -----
    $$ K = K_C + K_{C/R} $$

    | report | here |
    |---|---|
    | $K_C$ | `communication` |
    | $K_{C/R}$ | `checkpoint_restart` |

    Complexity: $O(1)$.

    Raises
    ------
    InvalidValueError
        If a term is negative or not a number.

    References
    ----------
    The CSS 600 term report, "Migration Frequency Scheduler, MFS".

    Examples
    --------
    >>> migration_cost(1, 2)
    3
    """
    require(communication, "K_C (communication)", at_least=0)
    require(checkpoint_restart, "K_CR (checkpoint_restart)", at_least=0)
    return communication + checkpoint_restart
