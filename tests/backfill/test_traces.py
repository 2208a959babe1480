"""Every policy on the first 2000 records of real traces, every invariant checked.

CTC-SP2 runs at the header's 338 processors (its batch partition) and at the 430
that Sabin et al. (2003) uses (see the traces' README).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from schedlib.backfill import POLICIES, schedule
from schedlib.model import FinalState
from schedlib.testing.invariants import check_backfilling_run
from schedlib.workloads import load_workload

TRACES = [
    ("SDSC-SP2-1998-4.2-cln.swf.gz", None),
    ("CTC-SP2-1996-3.1-cln.swf.gz", None),
    ("CTC-SP2-1996-3.1-cln.swf.gz", 430),
]


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize(("trace", "processors"), TRACES)
def test_every_invariant_on_a_real_trace(
    traces_dir: Path, trace: str, processors: int | None, policy: str
) -> None:
    workload = load_workload(traces_dir / trace, processors=processors, limit=2000)
    record = schedule(
        workload.jobs,
        workload.cluster,
        log_reservations=True,
        policy=policy,
        excluded=workload.excluded,
    )
    check_backfilling_run(record, policy)
    assert len(record.outcomes) == 2000  # every record of the slice, simulated or excluded
    states = {o.state for o in record.outcomes}
    assert FinalState.COMPLETED in states


def test_backfilling_helps_on_a_real_trace(traces_dir: Path) -> None:
    """Sanity: on SDSC-SP2, backfilling waits less than FCFS (the usual finding)."""
    workload = load_workload(traces_dir / "SDSC-SP2-1998-4.2-cln.swf.gz", limit=2000)
    mean_wait = {}
    for policy in POLICIES:
        record = schedule(workload.jobs, workload.cluster, log_reservations=True, policy=policy)
        waits = [o.start - o.submit for o in record.outcomes if o.start is not None]
        mean_wait[policy] = sum(waits) / len(waits)
    assert mean_wait["easy"] < mean_wait["fcfs"]
    assert mean_wait["conservative"] < mean_wait["fcfs"]
