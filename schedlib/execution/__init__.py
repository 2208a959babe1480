"""How runs are executed: independent simulations on several cores, progress bars.

[`parallel_map`][schedlib.execution.parallel.parallel_map] runs independent
simulations in worker processes and returns their results in input order, so
numbers never depend on the worker count;
[`ProgressBar`][schedlib.execution.progress.ProgressBar] reports on standard
error, only on a terminal.
"""

from schedlib.execution.parallel import (
    default_workers,
    parallel_map,
)
from schedlib.execution.progress import (
    ProgressBar,
)

__all__ = [
    "ProgressBar",
    "default_workers",
    "parallel_map",
]
