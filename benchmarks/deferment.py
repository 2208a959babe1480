"""Benchmark: the full seed 003 reproduction (its three experiments, see its module).

Target: under 10 minutes on a 2-core machine, using both cores. Prints the
wall time, the CPU time of this process and its workers, the number of
simulations and the machine's load average before and after (the machine may
be shared: the load says how much of it the benchmark had).

Usage:

    python benchmarks/deferment.py [--trials 200] [--jobs 8] [--workers N]
                                   [--rows rows.json]

`--rows` also writes the reproduction's result rows (JSON), so one run gives
both the timing and the table.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time

from schedlib.execution.parallel import default_workers
from schedlib.experiments.deferment import ExperimentSettings, reproduce
from schedlib.results.tables import jsonable, render


def _cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=8)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--rows", metavar="FILE", help="also write the result rows (JSON)")
    args = parser.parse_args()
    settings = ExperimentSettings(trials=args.trials, jobs=args.jobs)
    workers = args.workers or default_workers()
    load_before = os.getloadavg()
    cpu_before = _cpu_seconds()
    start = time.perf_counter()
    rows = reproduce(settings, workers=workers)
    simulations = sum(  # the overtaking experiment shares the main trials' rows
        1
        for r in rows
        if r["kind"] == "trial"
        and not (r["experiment"] == "overtaking" and r["trial"] < settings.trials)
    )
    wall = time.perf_counter() - start
    cpu = _cpu_seconds() - cpu_before
    load_after = os.getloadavg()
    summary = {
        "trials": args.trials,
        "jobs": args.jobs,
        "simulations": simulations,
        "workers": workers,
        "cpus": os.cpu_count(),
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "ms_per_simulation_cpu": round(1000 * cpu / simulations, 1),
        "load_1min_before": round(load_before[0], 2),
        "load_1min_after": round(load_after[0], 2),
        "load_5min_after": round(load_after[1], 2),
        "under_10_minutes": wall < 600,
    }
    print(render([summary], "table"))
    if args.rows:
        with open(args.rows, "w", encoding="utf-8") as handle:
            json.dump({"benchmark": summary, "rows": jsonable(rows)}, handle, indent=2)


if __name__ == "__main__":
    main()
