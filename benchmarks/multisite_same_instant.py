"""The effect of `reserve_on_arrival` on the multi-site K sweep: one row per (K, choice).

Completion-time site selection asks each site when it would complete a job sent to it
now. Copies 0 and 1, 2 and 3 of the paper's workload always arrive at the same
instant; whether the second one's query sees the reservation the first one just got
is `simulate_multisite(..., reserve_on_arrival=...)`. This script runs the paper's
K sweep rows concerned (conservative-mr, K = 1, 2, 3 by completion time, load factor
1.0, the first `--jobs` jobs of the trace, seed 0) both ways and prints the mean
turnaround of each, for the Multi-site page.

Usage:

    python benchmarks/multisite_same_instant.py [--trace sdsc|ctc] [--jobs 1000]
                                                [--workers 2] [--format table|json|csv]
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from schedlib.execution.parallel import run_all
from schedlib.experiments.multisite import paper_workload
from schedlib.multisite import CONSERVATIVE_MR, paper_sites, simulate_multisite, with_load_factor
from schedlib.results.tables import FORMATS, render
from schedlib.workloads.locate import find_trace


def one(item: tuple[str, int, int, bool]) -> dict[str, Any]:
    """One run: `(trace, jobs, k, reserve_on_arrival)`."""
    trace, jobs, k, on_arrival = item
    source = find_trace(trace)
    size, stream = paper_workload(source, jobs, 0)
    run = simulate_multisite(
        with_load_factor(stream, 1.0),
        paper_sites(size),
        CONSERVATIVE_MR.with_copies(k, "completion"),
        reserve_on_arrival=on_arrival,
    )
    return {
        "trace": source.name + (" (embedded slice)" if source.embedded else ""),
        "jobs": jobs,
        "k": k,
        "reserve_on_arrival": on_arrival,
        "mean_turnaround": round(run.mean_turnaround),
    }


def rows(trace: str, jobs: int, workers: int) -> list[dict[str, Any]]:
    """Every row, in (K, choice) order."""
    items = [(trace, jobs, k, on) for k in (1, 2, 3) for on in (True, False)]
    return run_all(one, items, workers=workers)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", default="sdsc")
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--format", choices=FORMATS, default="table")
    args = parser.parse_args(argv)
    sys.stdout.write(render(rows(args.trace, args.jobs, args.workers), args.format))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
