"""Hypothesis strategies for the inputs of every model.

All strategies are valid by construction (no filtering), take keyword-only
bounds checked up front, and say in their docstring what they shrink towards.
They are grouped by model in submodules and all re-exported here:

- `clock`: whole seconds or float ticks, the time scale the others draw on.
- `backfill`: rigid parallel jobs, workloads and clusters (backfilling).
- `availability`: availability patterns and grid jobs (PGS).
- `preemption`: multi-resource nodes, jobs and topologies (preemption).
- `deferment`: multi-task jobs and adversarial speed histories (deferment).
- `frequency`: pools, jobs with CPU bursts and PFS / MFS parameters.
- `multisite`: sites, a runtime matrix and a job stream (multiple requests).

They need hypothesis (the `test` extra); without it, importing this package
raises an `ImportError` that names the extra.
"""

try:
    import hypothesis  # noqa: F401
except ImportError as error:  # pragma: no cover - exercised in a subprocess test
    raise ImportError(
        "schedlib.testing.strategies needs hypothesis, which is not installed; "
        "install the 'test' extra: pip install '.[test]' from a clone"
    ) from error

from schedlib.testing.strategies.availability import *  # noqa: F403
from schedlib.testing.strategies.backfill import *  # noqa: F403
from schedlib.testing.strategies.clock import *  # noqa: F403
from schedlib.testing.strategies.deferment import *  # noqa: F403
from schedlib.testing.strategies.frequency import *  # noqa: F403
from schedlib.testing.strategies.multisite import *  # noqa: F403
from schedlib.testing.strategies.preemption import *  # noqa: F403
