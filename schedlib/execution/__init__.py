"""How runs are executed: independent simulations on several cores, progress bars.

[`parallel_map`][schedlib.execution.parallel.parallel_map] runs independent
simulations in worker processes and returns their results in input order, so
numbers never depend on the worker count;
[`run_tasks`][schedlib.execution.tasks.run_tasks] runs a reproduction's grid
on any executor, expensive runs first, resumable from a file;
[`ProgressBar`][schedlib.execution.progress.ProgressBar] reports on standard
error, only on a terminal.
"""

from schedlib.execution.config import (
    SweepConfig,
    parse_sweep_config,
    read_sweep_config,
)
from schedlib.execution.parallel import (
    RunFailedError,
    default_workers,
    parallel_map,
    run_all,
)
from schedlib.execution.progress import (
    ProgressBar,
    remaining_time,
)
from schedlib.execution.sweep import (
    SweepFile,
    configurations,
    read_sweep,
    sweep,
)
from schedlib.execution.tasks import (
    GridInterrupted,
    ResumeFile,
    read_resume_file,
    run_tasks,
)

__all__ = [
    "GridInterrupted",
    "ProgressBar",
    "ResumeFile",
    "RunFailedError",
    "SweepConfig",
    "SweepFile",
    "configurations",
    "default_workers",
    "parallel_map",
    "parse_sweep_config",
    "read_resume_file",
    "read_sweep",
    "read_sweep_config",
    "remaining_time",
    "run_all",
    "run_tasks",
    "sweep",
]
