"""Hypothesis strategies for the inputs of every model.

All strategies are valid by construction (no filtering), take keyword-only
bounds checked up front, and say in their docstring what they shrink towards.
They are grouped by model in submodules and all re-exported here:

- `parallel`: rigid parallel jobs, workloads and clusters (backfilling).
- `availability`: availability patterns and grid jobs (PGS).
- `multiresource`: multi-resource nodes, jobs and topologies (preemption).
- `desktopgrid`: multi-task jobs and adversarial speed histories (deferment).
"""

from schedlib.testing.strategies.availability import *  # noqa: F403
from schedlib.testing.strategies.desktopgrid import *  # noqa: F403
from schedlib.testing.strategies.multiresource import *  # noqa: F403
from schedlib.testing.strategies.parallel import *  # noqa: F403
