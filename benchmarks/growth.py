"""Benchmark: cost growth with the trace length, and the flat memory of a streamed run.

A synthetic trace of N jobs repeats a real one (SDSC-SP2 by default) back to
back: copy k has its submit times shifted by k times the copy's period and its
ids by k times (the largest id + 1). The period is the time from the trace's
first submission to the end of its last job under the policy, plus 1 s, so
each copy starts on an empty machine and sees the same history as the first
(a shorter shift would carry each copy's backlog into the next, and the jobs in
the system would grow with N). The cost per job should not depend on N.

Two tables, each row measured in a fresh subprocess:

- `growth`: `schedule()` (the whole run record kept) at 10k, 100k and 1M
  jobs: `jobs_per_s` must stay flat (`x_first` is the rate as a multiple of
  the smallest size's) and `peak_MB` grows with the record;
- `stream`: `schedule_iter()` (outcomes handed out as jobs end, the jobs
  generated as the run reaches them) at 1M and 10M jobs: `peak_MB` must stay
  flat. `gen_s` is the time to generate the jobs alone (included in `wall_s`);
- `command` (with `--command`): the whole `schedlib run --stream` command on the
  same synthetic trace written as an SWF file (the trace's records repeated, job
  numbers and submit times shifted as above, so the command reads, cleans and
  checks them as any trace) at the `--stream-sizes`: `peak_MB` must stay flat.
  The files go to a temporary directory (about 73 MB per million jobs).

`peak_MB` is the subprocess's peak resident set size (`ru_maxrss`). The
machine may be shared: the load average is printed; compare ratios.

Usage:

    python benchmarks/growth.py [--trace PATH] [--policies fcfs easy]
                                [--sizes 10000 100000 1000000]
                                [--stream-sizes 1000000 10000000] [--skip-growth]
                                [--skip-stream] [--command] [--format table|json|csv]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from itertools import islice
from pathlib import Path
from typing import Any

from schedlib.results.tables import FORMATS, render

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TRACE = ROOT.parent / "shared" / "traces" / "SDSC-SP2-1998-4.2-cln.swf.gz"


def period(jobs: Sequence[Any], cluster: Any, policy: str) -> float:
    """From the first submission to the end of the last job under `policy`, plus 1 s."""
    from schedlib.backfill import schedule

    record = schedule(jobs, cluster, policy=policy)
    return max(o.end for o in record.outcomes) - jobs[0].submit + 1


def copies(items: Sequence[Any], n: int) -> Iterator[tuple[int, Any]]:
    """The first `n` items of `items` repeated back to back, each with its copy's number k."""
    made = copy = 0
    while made < n:
        for item in islice(items, n - made):
            yield copy, item
        made += min(len(items), n - made)
        copy += 1


def repeated(jobs: Sequence[Any], n: int, span: float) -> Iterator[Any]:
    """The first `n` jobs of `jobs` repeated back to back, copy k shifted by k x `span`."""
    from schedlib.model import Job

    width = max(job.id for job in jobs) + 1
    for copy, job in copies(jobs, n):
        yield Job(
            job.id + copy * width,
            job.submit + copy * span,
            job.procs,
            job.requested_time,
            job.runtime,
        )


def measure(trace: str, policy: str, n: int, streamed: bool) -> dict[str, Any]:
    """One run, in this process (called in a fresh subprocess)."""
    from schedlib.backfill import schedule, schedule_iter
    from schedlib.workloads import load_workload

    workload = load_workload(trace)
    jobs = list(workload.jobs)
    cluster = workload.cluster
    span = period(jobs, cluster, policy)
    base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    gen_s = None
    if streamed:
        start = time.perf_counter()
        for _ in repeated(jobs, n, span):
            pass
        gen_s = time.perf_counter() - start
        start, cpu = time.perf_counter(), time.process_time()
        count = sum(1 for _ in schedule_iter(repeated(jobs, n, span), cluster, policy=policy))
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    else:
        synthetic = list(repeated(jobs, n, span))
        start, cpu = time.perf_counter(), time.process_time()
        record = schedule(synthetic, cluster, policy=policy)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        count = len(record.outcomes)
    assert count == n, (count, n)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "mode": "stream" if streamed else "record",
        "policy": policy,
        "jobs": n,
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "gen_s": None if gen_s is None else round(gen_s, 2),
        "jobs_per_s": round(n / wall),
        "peak_MB": round(peak, 1),
        "loaded_MB": round(base_rss, 1),
        "period_s": span,
    }


def write_repeated(trace: Path, policy: str, n: int, destination: Path) -> None:
    """The trace's first `n` records repeated as in `repeated`, written as an SWF file."""
    from schedlib.workloads import load_workload
    from schedlib.workloads.swf import read_swf, write_swf

    workload = load_workload(trace)
    span = period(list(workload.jobs), workload.cluster, policy)
    parsed = read_swf(trace)
    records = parsed.records
    width = max(r.job_id for r in records) + 1
    shifted = (
        r._replace(job_id=r.job_id + copy * width, submit=r.submit + copy * span)
        for copy, r in copies(records, n)
    )
    write_swf(destination, shifted, parsed.header)


def command_run(trace: Path, policy: str, n: int) -> dict[str, Any]:
    """`schedlib run --stream` on `n` repeated records, in a child process of its own."""
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "repeated.swf"
        start = time.perf_counter()
        # in a process of its own: this one stays small (a child's peak may count the parent's
        # pages at the fork)
        write = [sys.executable, __file__, "--write", str(trace), policy, str(n), str(source)]
        subprocess.run(write, check=True)
        write_s = time.perf_counter() - start
        command = [sys.executable, "-m", "schedlib", "run", "--stream", "--policy", policy]
        command += ["--workload", str(source), "--output", str(Path(folder) / "out.csv")]
        start = time.perf_counter()
        errors = Path(folder) / "stderr.txt"
        with errors.open("wb") as stderr:  # a file, not a pipe: nothing waits for a reader
            child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=stderr)
            _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        if status:
            raise RuntimeError(f"{' '.join(command)} failed: {errors.read_text()!r}")
    return {
        "mode": "command",
        "policy": policy,
        "jobs": n,
        "wall_s": round(wall, 2),
        "gen_s": round(write_s, 2),
        "jobs_per_s": round(n / wall),
        "peak_MB": round(usage.ru_maxrss / 1024, 1),
        "load_1min": round(os.getloadavg()[0], 2),
    }


def _child(trace: Path, policy: str, n: int, streamed: bool) -> dict[str, Any]:
    command = [sys.executable, __file__, "--one", str(trace), policy, str(n)]
    if streamed:
        command.append("--streamed")
    result = subprocess.run(command, capture_output=True, text=True, check=True)
    row: dict[str, Any] = json.loads(result.stdout)
    row["load_1min"] = round(os.getloadavg()[0], 2)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", type=Path, default=DEFAULT_TRACE)
    parser.add_argument("--policies", nargs="+", default=["fcfs", "easy"])
    parser.add_argument("--sizes", nargs="+", type=int, default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--stream-sizes", nargs="+", type=int, default=[1_000_000, 10_000_000])
    parser.add_argument("--skip-growth", action="store_true")
    parser.add_argument("--skip-stream", action="store_true")
    parser.add_argument("--command", action="store_true", help="also `schedlib run --stream`")
    parser.add_argument("--format", choices=FORMATS, default="table")
    parser.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--write", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--streamed", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write:
        trace, policy, n, destination = args.write
        write_repeated(Path(trace), policy, int(n), Path(destination))
        return
    if args.one:
        trace, policy, n = args.one
        print(json.dumps(measure(trace, policy, int(n), args.streamed)))
        return
    load_before = os.getloadavg()
    rows: list[dict[str, Any]] = []
    for policy in args.policies:
        if not args.skip_growth:
            first = None
            for n in args.sizes:
                row = _child(args.trace, policy, n, False)
                first = first or row["jobs_per_s"]
                row["x_first"] = round(row["jobs_per_s"] / first, 2)
                rows.append(row)
        if not args.skip_stream:
            for n in args.stream_sizes:
                rows.append(_child(args.trace, policy, n, True))
        if args.command:
            for n in args.stream_sizes:
                rows.append(command_run(args.trace, policy, n))
    print(render(rows, args.format))
    if args.format == "table":
        print(
            f"\nload average before: {tuple(round(x, 2) for x in load_before)}, after: "
            f"{tuple(round(x, 2) for x in os.getloadavg())}; {os.cpu_count()} CPUs; "
            "peak_MB = ru_maxrss of the run's subprocess\n(loaded_MB: after reading the trace "
            "and one run of it to find the period)"
        )


if __name__ == "__main__":
    main()
