"""Benchmark the SWF workload layer: records per second and peak memory.

Each measurement runs in a fresh Python subprocess, so that its peak resident
memory (`ru_maxrss`) is its own; the growth column is that peak minus the
resident memory after the imports, i.e. what reading the trace cost.

Measured:

- the lazy reader (`iter_swf`) over CEA-Curie (312,826 records) and SDSC-SP2:
  memory must stay flat;
- the whole-file reader (`read_swf`) over CEA-Curie, for contrast;
- `load_workload` (read + clean + sort) on SDSC-SP2, CTC-SP2 and CEA-Curie.

Usage::

    python benchmarks/read_traces.py [--traces DIR] [--repeat N] [--format table|json|csv]

Times are wall-clock seconds, best of `--repeat` runs (default 3); the machine's
load average is printed first, because other processes slow everything down.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TRACES = Path(os.environ.get("SCHEDLIB_TRACES", ROOT.parent / "shared" / "traces"))

CASES = [
    ("iter_swf (lazy)", "CEA-Curie-2011-2.1-cln.swf.gz"),
    ("iter_swf (lazy)", "SDSC-SP2-1998-4.2-cln.swf.gz"),
    ("read_swf (whole file)", "CEA-Curie-2011-2.1-cln.swf.gz"),
    ("load_workload", "SDSC-SP2-1998-4.2-cln.swf.gz"),
    ("load_workload", "CTC-SP2-1996-3.1-cln.swf.gz"),
    ("load_workload", "CEA-Curie-2011-2.1-cln.swf.gz"),
]


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def child(task: str, path: str) -> dict[str, Any]:
    """Run one measurement in this process (called in the subprocess)."""
    from schedlib.workloads import iter_swf, load_workload, read_swf

    baseline = _rss_mb()
    start, cpu = time.perf_counter(), time.process_time()
    if task.startswith("iter_swf"):
        records = sum(1 for _ in iter_swf(path))
    elif task.startswith("read_swf"):
        records = len(read_swf(path).records)
    else:
        records = load_workload(path).records
    seconds = time.perf_counter() - start
    return {
        "records": records,
        "seconds": seconds,
        "cpu_seconds": time.process_time() - cpu,
        "peak_rss_mb": _rss_mb(),
        "growth_mb": _rss_mb() - baseline,
    }


def measure(task: str, path: Path, repeat: int) -> dict[str, Any]:
    best: dict[str, Any] | None = None
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, __file__, "--child", task, str(path)],
            check=True,
            capture_output=True,
            text=True,
        )
        result = json.loads(out.stdout)
        if best is None or result["seconds"] < best["seconds"]:
            best = result
    assert best is not None
    return {
        "task": task,
        "trace": path.name.removesuffix(".swf.gz"),
        "records": best["records"],
        "seconds": round(best["seconds"], 2),
        "cpu_seconds": round(best["cpu_seconds"], 2),
        "records_per_s": round(best["records"] / best["seconds"]),
        "peak_rss_mb": round(best["peak_rss_mb"], 1),
        "growth_mb": round(best["growth_mb"], 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--traces", type=Path, default=DEFAULT_TRACES, help="folder of traces")
    parser.add_argument("--repeat", type=int, default=3, help="runs per case (best is kept)")
    parser.add_argument("--format", choices=("table", "json", "csv"), default="table")
    parser.add_argument("--child", nargs=2, metavar=("TASK", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(*args.child)))
        return 0

    from schedlib.results.tables import render

    load = os.getloadavg()
    print(
        f"# {os.cpu_count()} CPUs, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
        f"Python {sys.version.split()[0]}; best of {args.repeat}",
        file=sys.stderr,
    )
    rows = [measure(task, args.traces / name, args.repeat) for task, name in CASES]
    print(render(rows, args.format))
    return 0


if __name__ == "__main__":
    sys.exit(main())
