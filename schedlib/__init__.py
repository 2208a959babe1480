"""schedlib: reference grid and HPC job-scheduling algorithms.

Each algorithm is a pure function over immutable data (frozen attrs types),
run by one deterministic event engine ([`schedlib.engine`][schedlib.engine])
and checked by hypothesis invariant suites that ship in
[`schedlib.testing`][schedlib.testing].

The stable names below are importable from the top level; each algorithm
family lives in its own module (see the documentation's Algorithms pages).

Examples
--------
>>> import schedlib
>>> schedlib.Job(id=1, submit=0, procs=8, requested_time=3600, runtime=1800).procs
8
"""

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

__version__ = "0.1.0"

__all__ = [
    "Cluster",
    "EventKind",
    "FinalState",
    "InvalidValueError",
    "Job",
    "JobEvent",
    "JobOutcome",
    "RunRecord",
    "SchedlibError",
    "SimulationStuckError",
    "WorkloadFormatError",
    "__version__",
]
