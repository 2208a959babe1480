"""Benchmark: reading and cleaning full SWF traces (`load_workload`), in records per second.

Target: `load_workload` (read, check, clean, sort) at 300,000 records/s or more
on the full SDSC-SP2 (59,715 records), CTC-SP2 (77,222) and CEA-Curie
(312,826) traces.

Every run is a fresh subprocess, which imports the package, then times one
call (wall clock, and its CPU time). Each trace is read by two tasks, run in
turn (A B A B ...) so that a drift in the machine's speed hits both:

- `load`: `load_workload(path)` with the default cleaning;
- `plain`: a baseline of our own that only decompresses the file and splits
  its lines into fields (`gzip.open(path, "rt")`, `line.split()`), with no
  number read, no check, no job built.

The best of `--repeat` runs of each is kept. `records_per_s` is the trace's
records over `load`'s best wall time (`records_per_cpu_s` over its CPU time,
which a machine shared with other work inflates less); `x_plain` is that wall
time as a multiple of
the baseline's: what reading numbers, checking and cleaning cost over merely
getting the text. The load average is printed first: other processes slow
everything down.

Usage:

    python benchmarks/workloads.py [--traces DIR] [--repeat 5] [--all]
                                   [--format table|json|csv]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TRACES = Path(os.environ.get("SCHEDLIB_TRACES", ROOT.parent / "shared" / "traces"))
TRACES = (
    "SDSC-SP2-1998-4.2-cln.swf.gz",
    "CTC-SP2-1996-3.1-cln.swf.gz",
    "CEA-Curie-2011-2.1-cln.swf.gz",
)
TARGET = 300_000  # records per second


def plain(path: str) -> int:
    """The baseline: decompress and split every job line into fields; the record count."""
    import gzip

    records = 0
    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as text:
        for line in text:
            fields = line.split()
            if fields and not fields[0].startswith(";"):
                records += 1
    return records


def child(task: str, path: str) -> dict[str, Any]:
    """Run one measurement in this process (called in the subprocess)."""
    from schedlib.workloads import load_workload

    start, cpu = time.perf_counter(), time.process_time()
    records = load_workload(path).records if task == "load" else plain(path)
    return {
        "records": records,
        "seconds": time.perf_counter() - start,
        "cpu_seconds": time.process_time() - cpu,
    }


def run_child(task: str, path: Path) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", task, str(path)],
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def measure(path: Path, repeat: int) -> dict[str, Any]:
    """Best of `repeat` runs of `load` and of `plain`, alternated."""
    best: dict[str, dict[str, Any]] = {}
    for _ in range(repeat):
        for task in ("load", "plain"):
            result = run_child(task, path)
            if task not in best or result["seconds"] < best[task]["seconds"]:
                best[task] = result
    load, base = best["load"], best["plain"]
    if load["records"] != base["records"]:
        raise SystemExit(
            f"{path.name}: load_workload gave {load['records']} records, "
            f"the baseline {base['records']}"
        )
    rate = load["records"] / load["seconds"]
    return {
        "trace": path.name.removesuffix(".swf.gz"),
        "records": load["records"],
        "load_s": round(load["seconds"], 3),
        "load_cpu_s": round(load["cpu_seconds"], 3),
        "records_per_s": round(rate),
        "records_per_cpu_s": round(load["records"] / load["cpu_seconds"]),
        "plain_s": round(base["seconds"], 3),
        "plain_records_per_s": round(base["records"] / base["seconds"]),
        "x_plain": round(load["seconds"] / base["seconds"], 2),
        "target_met": rate >= TARGET,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--traces", type=Path, default=DEFAULT_TRACES, help="folder of traces")
    parser.add_argument("--repeat", type=int, default=5, help="runs per task (best is kept)")
    parser.add_argument("--all", action="store_true", help="every *.swf.gz trace in the folder")
    parser.add_argument("--format", choices=("table", "json", "csv"), default="table")
    parser.add_argument("--child", nargs=2, metavar=("TASK", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(*args.child)))
        return 0

    from schedlib.results.tables import render

    paths = sorted(args.traces.glob("*.swf.gz")) if args.all else [args.traces / t for t in TRACES]
    load = os.getloadavg()
    print(
        f"# {os.cpu_count()} CPUs, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
        f"Python {sys.version.split()[0]}; best of {args.repeat}; target {TARGET:,} records/s",
        file=sys.stderr,
    )
    rows = [measure(path, args.repeat) for path in paths]
    print(render(rows, args.format))
    return 0


if __name__ == "__main__":
    sys.exit(main())
