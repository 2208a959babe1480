"""The effect of `reserve_on_arrival` on the multi-site K sweep: one row per (K, choice).

Completion-time site selection asks each site when it would complete a job sent to it
now. Copies 0 and 1, 2 and 3 of the paper's workload always arrive at the same
instant; whether the second one's query sees the reservation the first one just got
is `simulate_multisite(..., reserve_on_arrival=...)`. This script runs the paper's
K sweep rows concerned (conservative-mr, K = 1, 2, 3 by completion time, load factor
1.0, the first `--jobs` jobs of the trace, the job classes of replicates 0 to
`--replicates` - 1 of seed 0, as in the reproduction) both ways and prints the mean
turnaround of each; `--markdown` prints the Multi-site page's table instead (mean over
the replicates, and the paired change with its 95 % interval).

Usage:

    python benchmarks/multisite_same_instant.py [--trace sdsc|ctc] [--jobs 1000]
                                                [--replicates 3] [--workers 2]
                                                [--format table|json|csv] [--markdown]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from typing import Any

from schedlib.execution.parallel import run_all
from schedlib.experiments.multisite import paper_workload
from schedlib.multisite import CONSERVATIVE_MR, paper_sites, simulate_multisite, with_load_factor
from schedlib.results.tables import FORMATS, render
from schedlib.results.verdicts import paired_difference
from schedlib.workloads.locate import find_trace


def one(item: tuple[str, int, int, int, bool]) -> dict[str, Any]:
    """One run: `(trace, jobs, replicate, k, reserve_on_arrival)`."""
    trace, jobs, replicate, k, on_arrival = item
    source = find_trace(trace)
    size, stream = paper_workload(source, jobs, 0, replicate)
    run = simulate_multisite(
        with_load_factor(stream, 1.0),
        paper_sites(size),
        CONSERVATIVE_MR.with_copies(k, "completion"),
        reserve_on_arrival=on_arrival,
    )
    return {
        "trace": source.name + (" (embedded slice)" if source.embedded else ""),
        "jobs": jobs,
        "replicate": replicate,
        "k": k,
        "reserve_on_arrival": on_arrival,
        "mean_turnaround": round(run.mean_turnaround),
    }


def rows(trace: str, jobs: int, workers: int, replicates: int = 3) -> list[dict[str, Any]]:
    """Every row, in (K, replicate, choice) order."""
    items = [
        (trace, jobs, r, k, on)
        for k in (1, 2, 3)
        for r in range(replicates)
        for on in (True, False)
    ]
    return run_all(one, items, workers=workers)


def markdown(found: list[dict[str, Any]]) -> str:
    """The page's table: per K, the mean turnaround each way and the paired change."""
    lines = [
        "| $K$ | `reserve_on_arrival=True` (default) | `False` | change, % of `False` |",
        "|---|---:|---:|---:|",
    ]
    for k in sorted({r["k"] for r in found}):
        on = [r["mean_turnaround"] for r in found if r["k"] == k and r["reserve_on_arrival"]]
        off = [r["mean_turnaround"] for r in found if r["k"] == k and not r["reserve_on_arrival"]]
        change = paired_difference(on, off, relative=True)
        lines.append(
            f"| {k} | {statistics.fmean(on):,.0f} | {statistics.fmean(off):,.0f} | "
            f"{change.describe()} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", default="sdsc")
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--replicates", type=int, default=3)
    parser.add_argument("--format", choices=FORMATS, default="table")
    parser.add_argument("--markdown", action="store_true", help="the page's table")
    args = parser.parse_args(argv)
    for name in ("jobs", "replicates", "workers"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} {getattr(args, name)}: must be >= 1")
    found = rows(args.trace, args.jobs, args.workers, args.replicates)
    sys.stdout.write(markdown(found) if args.markdown else render(found, args.format))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
