"""Benchmark: FCFS, EASY and conservative backfilling on full real traces.

Targets (on a 2-core machine, full SDSC-SP2: 59,715 records, 128
processors): FCFS <= 1 s, EASY <= 2 s, conservative <= 8 s of simulation, and
peak memory under 150 MB, growing at most linearly with the trace.

Every (trace, size, policy) runs in a fresh subprocess, so that memory figures
do not mix. In each, the trace is read and cleaned first (timed apart, as
`parse_s`), then `schedule()` runs (the `wall_s` and `cpu_s` columns: the
whole simulation, building the run record included). `jobs_per_s` counts the
simulated jobs (excluded records are logged but not simulated). `peak_MB` is
the subprocess's peak resident set size (`ru_maxrss`: interpreter, trace,
workload, log and record together); `plain_s` is the plain-loop baseline's
time (`plain_run` below: a dict-and-list loop with the same tie rules,
processor counts only, best of 3; for conservative only with
`--plain-conservative`: that loop re-places every waiting job at every early
end, without our skips, and is up to 11 times slower than schedlib, so it is
a check there, not a yardstick) and `x_plain` our `wall_s` as a multiple of
it (1.0 = as fast as a hand-written loop); `traced_MB` is the `tracemalloc` peak of
the simulation alone when `--tracemalloc` is given (it slows the run, so
times are then not comparable). The load average before and after says how
much of the machine the benchmark had (it may be shared). `target` is the
throughput asked for (simulation and record, jobs/s: FCFS 100,000, EASY
60,000, conservative 20,000 on SDSC-SP2 and CTC-SP2 at 430 processors, full
traces) and `met` whether `jobs_per_s` reaches it in this run.

Usage:

    python benchmarks/backfill.py [--traces DIR] [--policies fcfs easy conservative]
                                  [--limit N] [--repeat 1] [--tracemalloc]
                                  [--format table|json|csv] [--plain-conservative]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from bisect import bisect_right
from heapq import heappop, heappush
from pathlib import Path
from typing import Any

from schedlib.results.tables import FORMATS, render

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TRACES = ROOT.parent / "shared" / "traces"
RUNS = [
    ("SDSC-SP2-1998-4.2-cln.swf.gz", None),  # header: 128 processors
    ("CTC-SP2-1996-3.1-cln.swf.gz", None),  # header: 338 (batch partition)
    ("CTC-SP2-1996-3.1-cln.swf.gz", 430),  # the size seed 004 uses
]
POLICIES = ("fcfs", "easy", "conservative")
# Issue 16's throughput targets (simulation and record, jobs/s), on SDSC-SP2 and CTC-SP2 at 430.
TARGETS = {"fcfs": 100_000, "easy": 60_000, "conservative": 20_000}
TARGET_RUNS = {("SDSC-SP2-1998-4.2-cln.swf.gz", None), ("CTC-SP2-1996-3.1-cln.swf.gz", 430)}
PLAIN = ("fcfs", "easy", "conservative")  # the policies the plain loop covers

# A job for the plain loop: (id, submit, procs, requested time, runtime).
PlainJob = tuple[int, float, int, float, float]


def plain_loop(jobs: list[PlainJob], capacity: int, policy: str) -> dict[int, float]:
    """The plain-loop baseline: FCFS or EASY with dicts, lists and counts only.

    Written apart from schedlib, for the benchmark's ratio and as a
    differential oracle (tests/backfill/test_plain_loop.py), with the same
    tie rules (the Background page, "The order of events"): one scheduling
    pass per instant, completions before arrivals, half-open intervals (a job
    ending at t frees its processors for a job starting at t); a zero-length
    job's completion comes after the pass that started it, and is followed by
    another pass at the same instant. The queue is in submit order, then id.
    Jobs run `min(runtime, requested)` (killed at their request). EASY: start
    from the head while jobs fit; the first that does not is the head, whose
    shadow time comes from the planned ends (start + requested) of the
    running jobs, counting those started in this pass, with the extra
    processors free then; a later job starts if it fits now and either ends
    by the shadow time (by its request) or uses only extra processors.
    Processor counts only (no placement). Returns each job's start time.
    """
    order = sorted(jobs, key=lambda j: (j[1], j[0]))
    n = len(order)
    easy = policy == "easy"
    free = capacity
    queue: list[PlainJob] = []
    ends: list[tuple[float, int, float]] = []  # heap of (actual end, procs, planned end)
    planned: list[tuple[float, int]] = []  # (planned end, procs) of the running, EASY
    start: dict[int, float] = {}
    i = 0
    while i < n or ends:
        now = ends[0][0] if ends else order[i][1]
        if i < n and order[i][1] < now:
            now = order[i][1]
        while ends and ends[0][0] == now:
            _, procs, planned_end = heappop(ends)
            free += procs
            if easy:
                planned.remove((planned_end, procs))
        while i < n and order[i][1] == now:
            queue.append(order[i])
            i += 1
        # the pass
        k = 0
        while k < len(queue) and queue[k][2] <= free:
            job = queue[k]
            free -= job[2]
            start[job[0]] = now
            heappush(ends, (now + min(job[4], job[3]), job[2], now + job[3]))
            if easy:
                planned.append((now + job[3], job[2]))
            k += 1
        del queue[:k]
        if easy and queue and free:
            need = queue[0][2]
            planned.sort()
            available, shadow = free, now
            for end, held in planned:
                if available >= need and end > shadow:
                    break
                available += held
                shadow = end
            extra = available - need
            kept = [queue[0]]
            for job in queue[1:]:
                procs = job[2]
                if free and procs <= free and (now + job[3] <= shadow or procs <= extra):
                    free -= procs
                    if now + job[3] > shadow:
                        extra -= procs
                    start[job[0]] = now
                    heappush(ends, (now + min(job[4], job[3]), procs, now + job[3]))
                    planned.append((now + job[3], procs))
                else:
                    kept.append(job)
            queue = kept
    return start


class _PlainProfile:
    """Free processors over time as parallel lists: `free[i]` holds on `[times[i], times[i+1])`."""

    def __init__(self, capacity: int, origin: float) -> None:
        self.times: list[float] = [origin]
        self.free: list[int] = [capacity]

    def _point(self, t: float) -> int:
        """Index of a breakpoint at `t` (split there if needed)."""
        times = self.times
        i = bisect_right(times, t) - 1
        if times[i] != t:
            i += 1
            times.insert(i, t)
            self.free.insert(i, self.free[i - 1])
        return i

    def add(self, start: float, end: float, procs: int) -> None:
        """`procs` more free processors on `[start, end)` (negative: reserve)."""
        if end <= start:
            return
        i = self._point(start)
        j = self._point(end)
        free = self.free
        for k in range(i, j):
            free[k] += procs

    def drop_before(self, now: float) -> None:
        i = bisect_right(self.times, now) - 1
        if i > 0:
            del self.times[:i]
            del self.free[:i]

    def earliest(self, now: float, procs: int, length: float) -> float:
        """Earliest `t >= now` with `procs` free on all of `[t, t + length)`."""
        times, free = self.times, self.free
        k = bisect_right(times, now) - 1
        start = now
        while True:
            if free[k] < procs:  # the last segment (all reservations over) always fits
                k += 1
                start = times[k]
                continue
            # free from `start`; does it hold until start + length?
            if k + 1 == len(times) or times[k + 1] >= start + length:
                return start
            k += 1


def plain_conservative(jobs: list[PlainJob], capacity: int) -> dict[int, float]:
    """The plain-loop conservative backfilling (same tie rules as `plain_loop`).

    Every job gets the earliest fit in the availability profile when it
    arrives (queue order). At an instant where jobs ended before their
    requested time, their unused reservations are released and every waiting
    job, in queue order, is re-placed at its earliest fit (never later than
    its old reservation: it still fits there); then the arrivals of the
    instant are placed; then every job whose reservation is now starts.
    Instants: arrivals, ends and reservation times. Returns each start.
    """
    order = sorted(jobs, key=lambda j: (j[1], j[0]))
    n = len(order)
    profile = _PlainProfile(capacity, order[0][1] if order else 0)
    waiting: list[list[Any]] = []  # [job, reservation], queue order
    ends: list[tuple[float, float, int]] = []  # heap of (actual end, planned end, procs)
    start: dict[int, float] = {}
    i = 0
    while i < n or ends or waiting:
        candidates = []
        if i < n:
            candidates.append(order[i][1])
        if ends:
            candidates.append(ends[0][0])
        if waiting:
            candidates.append(min(w[1] for w in waiting))
        now = min(candidates)
        early = False
        while ends and ends[0][0] == now:
            _, planned_end, procs = heappop(ends)
            if planned_end > now:
                profile.add(now, planned_end, procs)
                early = True
        profile.drop_before(now)
        if early:
            for entry in waiting:
                job, old = entry
                profile.add(old, old + job[3], job[2])
                at = profile.earliest(now, job[2], job[3])
                profile.add(at, at + job[3], -job[2])
                entry[1] = at
        while i < n and order[i][1] == now:
            job = order[i]
            at = profile.earliest(now, job[2], job[3])
            profile.add(at, at + job[3], -job[2])
            waiting.append([job, at])
            i += 1
        kept = []
        for entry in waiting:
            job, at = entry
            if at == now:
                start[job[0]] = now
                heappush(ends, (now + min(job[4], job[3]), now + job[3], job[2]))
            else:
                kept.append(entry)
        waiting = kept
    return start


def plain_run(jobs: list[PlainJob], capacity: int, policy: str) -> dict[int, float]:
    """`plain_loop` for FCFS and EASY, `plain_conservative` for conservative."""
    if policy == "conservative":
        return plain_conservative(jobs, capacity)
    return plain_loop(jobs, capacity, policy)


def plain_jobs(workload_jobs: Any) -> list[PlainJob]:
    """schedlib's jobs as the plain loop's tuples."""
    return [(j.id, j.submit, j.procs, j.requested_time, j.runtime) for j in workload_jobs]


def measure(
    path: str,
    processors: int | None,
    policy: str,
    limit: int | None,
    traced: bool,
    plain_conservative_too: bool = False,
) -> dict[str, Any]:
    """One run, in this process (called in a fresh subprocess)."""
    import tracemalloc

    from schedlib.backfill import schedule
    from schedlib.workloads import load_workload

    start = time.perf_counter()
    workload = load_workload(path, processors=processors, limit=limit)
    parse = time.perf_counter() - start
    if traced:
        tracemalloc.start()
    cpu = time.process_time()
    start = time.perf_counter()
    record = schedule(workload.jobs, workload.cluster, policy=policy, excluded=workload.excluded)
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu
    traced_peak = tracemalloc.get_traced_memory()[1] if traced else None
    if traced:
        tracemalloc.stop()
    plain_s = None
    # the plain loop on the same jobs (conversion included), best of 3
    if policy in PLAIN and (policy != "conservative" or plain_conservative_too):
        capacity = workload.cluster.processors
        plain_s = min(_time_plain(workload.jobs, capacity, policy) for _ in range(3))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux
    return {
        "trace": Path(path).name.replace(".swf.gz", ""),
        "processors": workload.cluster.processors,
        "records": workload.records,
        "jobs": len(workload.jobs),
        "policy": policy,
        "parse_s": round(parse, 2),
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "jobs_per_s": round(len(workload.jobs) / wall),
        "plain_s": None if plain_s is None else round(plain_s, 3),
        "x_plain": None if plain_s is None else round(wall / plain_s, 1),
        "peak_MB": round(peak, 1),
        "traced_MB": None if traced_peak is None else round(traced_peak / 2**20, 1),
        "log_entries": len(record.events),
    }


def _time_plain(jobs: Any, capacity: int, policy: str) -> float:
    start = time.perf_counter()
    plain_run(plain_jobs(jobs), capacity, policy)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=Path, default=DEFAULT_TRACES, help="folder of the traces")
    parser.add_argument("--policies", nargs="+", choices=POLICIES, default=list(POLICIES))
    parser.add_argument("--limit", type=int, default=None, help="only the first N records")
    parser.add_argument("--repeat", type=int, default=1, help="runs per case (the best is kept)")
    parser.add_argument("--tracemalloc", action="store_true", help="also trace the allocations")
    parser.add_argument("--format", choices=FORMATS, default="table")
    parser.add_argument(
        "--plain-conservative",
        action="store_true",
        help="also time the plain conservative loop (slow: 25-180 s a trace, best of 3)",
    )
    parser.add_argument(
        "--one", nargs=3, metavar=("PATH", "PROCESSORS", "POLICY"), help=argparse.SUPPRESS
    )
    parser.add_argument(
        "--plain-process",
        nargs=2,
        metavar=("PATH", "POLICY"),
        help="only read PATH and run the plain loop of POLICY on it (a whole process to "
        "time from outside, e.g. with /usr/bin/time -v, beside `schedlib run`)",
    )
    args = parser.parse_args()
    if args.plain_process:
        from schedlib.workloads import load_workload

        path, policy = args.plain_process
        workload = load_workload(path)
        starts = plain_run(plain_jobs(workload.jobs), workload.cluster.processors, policy)
        print(len(starts))
        return
    if args.one:  # the child: one measurement, printed as JSON
        path, processors, policy = args.one
        size = None if processors == "header" else int(processors)
        row = measure(path, size, policy, args.limit, args.tracemalloc, args.plain_conservative)
        print(json.dumps(row))
        return
    load_before = os.getloadavg()
    rows = []
    for trace, processors in RUNS:
        for policy in args.policies:
            best: dict[str, Any] | None = None
            for _ in range(args.repeat):
                command = [
                    sys.executable,
                    __file__,
                    "--one",
                    str(args.traces / trace),
                    "header" if processors is None else str(processors),
                    policy,
                ]
                if args.limit:
                    command += ["--limit", str(args.limit)]
                if args.tracemalloc:
                    command.append("--tracemalloc")
                if args.plain_conservative:
                    command.append("--plain-conservative")
                result = subprocess.run(command, capture_output=True, text=True, check=True)
                row = json.loads(result.stdout)
                if best is None or row["wall_s"] < best["wall_s"]:
                    best = row
            assert best is not None
            best["load_1min"] = round(os.getloadavg()[0], 2)
            target = (
                TARGETS[policy] if (trace, processors) in TARGET_RUNS and not args.limit else None
            )
            best["target"] = target
            best["met"] = (
                None if target is None else ("yes" if best["jobs_per_s"] >= target else "no")
            )
            rows.append(best)
    load_after = os.getloadavg()
    print(render(rows, args.format))
    if args.format == "table":
        print(
            f"\nload average (1, 5, 15 min) before: {tuple(round(x, 2) for x in load_before)}, "
            f"after: {tuple(round(x, 2) for x in load_after)}; {os.cpu_count()} CPUs; "
            f"peak_MB = ru_maxrss of each run's own subprocess"
        )


if __name__ == "__main__":
    main()
