"""Invariant checkers over run records: plain predicates raising `AssertionError`.

Every checker takes a finished [`RunRecord`][schedlib.model.RunRecord] (plus
the model inputs it needs) and returns `None` when its property holds. They
read only the record, so they apply to any scheduler that produces one,
including yours.

The checkers are grouped by model in submodules and all re-exported here:

- `common`: every model (accounting, lifecycle, capacity).
- `backfill`: rigid parallel jobs on one cluster (EASY, conservative).
- `availability`: resources with planned availability (PGS).
- `preemption`: multi-resource nodes with preemption and migration.
- `deferment`: multi-task jobs on a desktop grid (no overtaking).
- `frequency`: pools run by PFS / MFS (the CSS 600 term report).
- `multisite`: one job stream over several sites (multiple requests, efficacy).
- `schedules`: schedules read from files (any scheduler's per-job output), every
  violation at once, at the scale of whole traces (`schedlib check`).
"""

from schedlib.testing.invariants.availability import *  # noqa: F403
from schedlib.testing.invariants.backfill import *  # noqa: F403
from schedlib.testing.invariants.common import *  # noqa: F403
from schedlib.testing.invariants.deferment import *  # noqa: F403
from schedlib.testing.invariants.frequency import *  # noqa: F403
from schedlib.testing.invariants.multisite import *  # noqa: F403
from schedlib.testing.invariants.preemption import *  # noqa: F403
from schedlib.testing.invariants.schedules import *  # noqa: F403
