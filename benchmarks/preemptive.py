"""Benchmark: the full-size setting of seed 000 §6 for each scheduler at one inter-arrival time.

1000 nodes, 5000 jobs, delta = 5 s, IAT 2.0 s (alpha = 0 unless given), replicate 0
of seed 0. Each scheduler runs once in this process; the target is under 60 s per
run on a 2-core machine. The load average and the CPU seconds are printed because
the machine is shared.

```text
python benchmarks/preemptive.py [--iat 2.0] [--alpha 0] [--schedulers fcfs,local,2nn,can]
                                [--nodes 1000] [--jobs 5000] [--delta 5] [--budget 60]
```

Exit code 1 if a run exceeds the budget.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from schedlib.experiments.preemptive import DEFAULT_SCHEDULERS, Run, run_one
from schedlib.results.tables import render


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iat", type=float, default=2.0)
    parser.add_argument("--alpha", type=float, default=0.0)
    parser.add_argument("--delta", type=float, default=5.0)
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=5000)
    parser.add_argument("--schedulers", default=",".join(DEFAULT_SCHEDULERS))
    parser.add_argument("--budget", type=float, default=60.0, help="seconds per run")
    args = parser.parse_args(argv)
    rows = []
    for scheduler in args.schedulers.split(","):
        run = Run(scheduler, args.nodes, args.jobs, args.iat, args.delta, args.alpha)
        before = os.getloadavg()[0]
        start, cpu = time.perf_counter(), time.process_time()
        row = run_one(run)
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        rows.append(
            {
                "scheduler": row["scheduler"],
                "nodes": args.nodes,
                "jobs": args.jobs,
                "iat": args.iat,
                "delta": args.delta,
                "alpha": args.alpha,
                "seconds": elapsed,
                "cpu_seconds": cpu,
                "load_avg_1min": before,
                "preemptions": row["preemptions"],
                "migrations": row["migrations"],
                "within_budget": elapsed < args.budget,
            }
        )
        print(f"{scheduler}: {elapsed:.1f} s", file=sys.stderr)
    print(render(rows, "table"))
    return 0 if all(r["within_budget"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
