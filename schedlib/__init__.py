"""schedlib: reference grid and HPC job-scheduling algorithms.

Each algorithm is a pure function over immutable data (frozen attrs types),
run by one deterministic event engine ([`schedlib.engine`][schedlib.engine])
and checked by hypothesis invariant suites that ship in
[`schedlib.testing`][schedlib.testing].

The stable names below are importable from the top level; each algorithm
family lives in its own module (see the documentation's Algorithms pages).
`schedlib.sweep` is [`schedlib.execution.sweep.sweep`][schedlib.execution.sweep.sweep]
(a parameter grid x seeds of any experiment, on any executor), loaded on first
use: the package root itself imports only the ground floor.

Examples
--------
>>> import schedlib
>>> schedlib.Job(id=1, submit=0, procs=8, requested_time=3600, runtime=1800).procs
8
"""

from typing import Any as _Any

from schedlib import docstrings as _docstrings
from schedlib.errors import (
    InvalidValueError,
    SchedlibError,
    SimulationStuckError,
    WorkloadFormatError,
)
from schedlib.model import (
    Cluster,
    EventKind,
    FinalState,
    Job,
    JobEvent,
    JobOutcome,
    RunRecord,
)
from schedlib.place import ProcessorSet

__version__ = "0.1.0"

_docstrings.install()  # help() shows the docstrings' cross-references as plain text


def __getattr__(name: str) -> _Any:
    # Conveniences from higher layers, loaded on first use (see the layer test).
    if name == "sweep":
        from schedlib.execution.sweep import sweep

        return sweep
    raise AttributeError(f"module 'schedlib' has no attribute {name!r}")


__all__ = [
    "Cluster",
    "EventKind",
    "FinalState",
    "InvalidValueError",
    "Job",
    "JobEvent",
    "JobOutcome",
    "ProcessorSet",
    "RunRecord",
    "SchedlibError",
    "SimulationStuckError",
    "WorkloadFormatError",
    "__version__",
]
