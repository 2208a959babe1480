"""Benchmark: conservative backfilling at scale, and a comparison with another version.

Four measurements, each in a fresh subprocess (CPU seconds of the measured call, and the
subprocess's peak resident set):

- `row`: one row of the multi-site grid — conservative-mr, K = 4 by load, SDSC-SP2,
  load factor 2.0, seed 0 — at `--sizes` jobs (the growth of the paper's own size,
  5000), with where its time goes: per conservative site, the scheduling decisions
  (`Reservations.decide`), the compressions among them, the new jobs placed, the
  completion queries (`Reservations.earliest_fit`), and the queue length and profile
  breakpoints each compression works on, and the reservations set or moved
  (`RESERVE` log entries), and the CPU microseconds per reservation moved (what any
  faster implementation must beat);
- `hostile`: the 2000 jobs submitted at one instant of `tests/multisite/test_hostile.py`
  on its three conservative sites (conservative-mr);
- `single`: single-site conservative on CTC-SP2 repeated back to back
  (`benchmarks/growth.py`'s `repeated`, each copy on an empty machine), streamed
  (`schedule_iter`), at `--single-sizes` jobs;
- `grid`: a few more rows at the largest size (other load factors, an EASY row), from
  which the whole multi-site grid's time is *estimated* (the grid is not run).

`--before PYTHON` also runs the `row` and `hostile` measurements under another
interpreter (another checkout's virtual environment: the version before), paired
with ours (A B A B ...). The counters need `Reservations`: the version before gets
its time only.

`--write` keeps the results in `benchmarks/conservative_scale.json` and prints the
tables; `--render` prints them from the file alone. The Performance page's section on
conservative backfilling at scale is measured and written by `benchmarks/performance.py`,
which runs this script's children (`--child row|hostile|single`).

Usage:

    python benchmarks/conservative_scale.py [--sizes 1000 2000 5000] [--before PYTHON]
                                            [--single-sizes 10000 100000 1000000]
                                            [--skip-hostile] [--skip-single] [--skip-grid]
                                            [--write | --render]
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import time
from itertools import pairwise
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "conservative_scale.json"
ROW = {"trace": "sdsc", "policy": "conservative-mr", "load_factor": 2.0}
SINGLE_TRACE = ROOT.parent / "shared" / "traces" / "CTC-SP2-1996-3.1-cln.swf.gz"


# -- the children ------------------------------------------------------------------------------


class Counters:
    """Counts of what the conservative sites do, by wrapping `Reservations` (ours only)."""

    def __init__(self) -> None:
        self.books: list[int] = []  # ids of the sites' books, in creation (site) order
        self.decides: dict[int, int] = {}
        self.compressions: dict[int, int] = {}
        self.queue: dict[int, list[int]] = {}  # queue length at each compression
        self.profile: dict[int, list[int]] = {}  # breakpoints at each compression
        self.placed = 0
        self.changed = 0
        self.queries = 0

    def install(self) -> bool:
        try:
            from schedlib.backfill.reservations import Reservations
        except ImportError:  # the version before: time only
            return False
        counters = self
        init, decide = Reservations.__init__, Reservations.decide
        compress, place, fit = (
            Reservations._compress,
            Reservations._place,
            Reservations.earliest_fit,
        )

        def w_init(book: Any, *args: Any, **kwargs: Any) -> None:
            init(book, *args, **kwargs)
            counters.books.append(id(book))

        def w_decide(book: Any, now: Any) -> Any:
            counters.decides[id(book)] = counters.decides.get(id(book), 0) + 1
            return decide(book, now)

        def w_compress(book: Any, now: Any) -> Any:
            key = id(book)
            counters.compressions[key] = counters.compressions.get(key, 0) + 1
            counters.queue.setdefault(key, []).append(len(book.requests))
            counters.profile.setdefault(key, []).append(len(book.editor._times))
            new = book.starts.count(None)
            changed = compress(book, now)
            counters.placed += new
            counters.changed += len(changed) - new
            return changed

        def w_place(book: Any, now: Any) -> Any:
            changed = place(book, now)
            counters.placed += len(changed)
            return changed

        def w_fit(book: Any, *args: Any) -> Any:
            counters.queries += 1
            return fit(book, *args)

        Reservations.__init__ = w_init  # type: ignore[method-assign]
        Reservations.decide = w_decide  # type: ignore[method-assign]
        Reservations._compress = w_compress  # type: ignore[method-assign]
        Reservations._place = w_place  # type: ignore[method-assign]
        Reservations.earliest_fit = w_fit  # type: ignore[method-assign]
        return True

    def summary(self) -> dict[str, Any]:
        sites = [book for book in self.books if book in self.decides]
        every_queue = [q for book in sites for q in self.queue.get(book, [])]
        every_profile = [m for book in sites for m in self.profile.get(book, [])]
        return {
            "decisions": sum(self.decides.values()),
            "compressions": sum(self.compressions.values()),
            "placed": self.placed,
            "moved": self.changed,
            "queries": self.queries,
            "queue_mean": round(sum(every_queue) / max(len(every_queue), 1), 1),
            "queue_max_by_site": [max(self.queue.get(book, [0])) for book in sites],
            "profile_mean": round(sum(every_profile) / max(len(every_profile), 1), 1),
            "profile_max": max(every_profile, default=0),
        }


def _peak_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def child_row(jobs: int, policy: str, factor: float) -> dict[str, Any]:
    """One multi-site row (SDSC-SP2, K = 4 by load), with the counters when available."""
    from schedlib.experiments.multisite import paper_workload
    from schedlib.multisite import POLICIES, paper_sites, simulate_multisite, with_load_factor
    from schedlib.workloads.locate import find_trace

    counters = Counters()
    counted = counters.install()
    size, stream = paper_workload(find_trace(ROW["trace"]), jobs, 0, 0)
    loaded = with_load_factor(stream, factor)
    start = time.process_time()
    run = simulate_multisite(loaded, paper_sites(size), POLICIES[policy])
    cpu = time.process_time() - start
    row: dict[str, Any] = {"cpu_s": round(cpu, 2), "peak_MB": _peak_mb()}
    row["mean_turnaround"] = repr(run.mean_turnaround)
    if counted:
        row |= counters.summary()
    return row


def child_hostile() -> dict[str, Any]:
    """The 2000 jobs at one instant of the hostile-case tests, conservative-mr."""
    sys.path.insert(0, str(ROOT / "tests" / "multisite"))
    from test_hostile import CASES, MATRIX, SITES  # type: ignore[import-not-found]

    from schedlib.multisite import simulate_multisite

    counters = Counters()
    counted = counters.install()
    start = time.process_time()
    run = simulate_multisite(
        CASES["2000 jobs at one instant"], SITES, "conservative-mr", matrix=MATRIX
    )
    row: dict[str, Any] = {"cpu_s": round(time.process_time() - start, 2), "peak_MB": _peak_mb()}
    row["mean_turnaround"] = repr(run.mean_turnaround)
    if counted:
        row |= counters.summary()
    return row


def child_single(jobs: int) -> dict[str, Any]:
    """Single-site conservative on CTC-SP2 repeated to `jobs` jobs, streamed."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from growth import period, repeated  # type: ignore[import-not-found]

    from schedlib.backfill import schedule_iter
    from schedlib.workloads import load_workload

    workload = load_workload(SINGLE_TRACE)
    trace = list(workload.jobs)
    span = period(trace, workload.cluster, "conservative")
    loaded = _peak_mb()
    start = time.process_time()
    count = sum(
        1
        for _ in schedule_iter(repeated(trace, jobs, span), workload.cluster, policy="conservative")
    )
    cpu = time.process_time() - start
    assert count == jobs, (count, jobs)
    return {
        "cpu_s": round(cpu, 2),
        "jobs_per_cpu_s": round(jobs / cpu),
        "peak_MB": _peak_mb(),
        "loaded_MB": loaded,
    }


# -- the parent --------------------------------------------------------------------------------


def _run(python: str, *args: str) -> dict[str, Any]:
    command = [python, str(Path(__file__).resolve()), "--child", *args]
    result = subprocess.run(command, capture_output=True, text=True, check=True, cwd="/")
    row: dict[str, Any] = json.loads(result.stdout)
    row["load_1min"] = round(os.getloadavg()[0], 2)
    return row


TRACES = ROOT.parent / "shared" / "traces"


def _process(command: list[str]) -> tuple[float, float]:
    """CPU seconds (user + system) and peak MB of one whole child process."""
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd="/")
    _, status, usage = os.wait4(child.pid, 0)
    if status:
        raise RuntimeError(f"{' '.join(command)} failed")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def _run_command(python: str, trace: Path, out: str) -> list[str]:
    """`schedlib run --policy conservative` on `trace`, under `python`."""
    command = [python, "-m", "schedlib", "run", "--policy", "conservative"]
    return [*command, "--workload", str(trace), "--output", out]


def whole(before: str | None, pairs: int) -> dict[str, Any]:
    """Whole processes, paired A B A B: ours against the plain EASY loop (and the version
    before) on SDSC-SP2; ours alone on CEA-Curie for its peak memory."""
    sdsc = TRACES / "SDSC-SP2-1998-4.2-cln.swf.gz"
    plain = [sys.executable, str(ROOT / "benchmarks" / "backfill.py")]
    plain += ["--plain-process", str(sdsc), "easy"]
    ours = _run_command(sys.executable, sdsc, "/tmp/conservative_scale_ours.csv")
    previous = (
        None if before is None else _run_command(before, sdsc, "/tmp/conservative_scale_before.csv")
    )
    ratios_plain: list[float] = []
    ratios_before: list[float] = []
    cpu_ours: list[float] = []
    cpu_plain: list[float] = []
    for _ in range(pairs):
        a, _ = _process(ours)
        b, _ = _process(plain)
        cpu_ours.append(a)
        cpu_plain.append(b)
        ratios_plain.append(a / b)
        if previous is not None:
            c, _ = _process(previous)
            ratios_before.append(a / c)
    curie_cpu, curie_peak = _process(
        _run_command(
            sys.executable,
            TRACES / "CEA-Curie-2011-2.1-cln.swf.gz",
            "/tmp/conservative_scale_curie.csv",
        )
    )
    median = statistics.median
    return {
        "pairs": pairs,
        "sdsc_cpu_s": round(median(cpu_ours), 2),
        "plain_easy_cpu_s": round(median(cpu_plain), 2),
        "x_plain_easy": round(median(ratios_plain), 2),
        "x_before": round(median(ratios_before), 2) if ratios_before else None,
        "curie_cpu_s": round(curie_cpu, 1),
        "curie_peak_MB": round(curie_peak, 1),
    }


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """Every measurement asked for, in subprocesses."""
    python = sys.executable
    results: dict[str, Any] = {
        "date": datetime.date.today().isoformat(),
        "cpus": os.cpu_count(),
        "row": ROW,
        "growth": [],
        "hostile": {},
        "single": [],
        "grid": [],
    }
    if not args.skip_whole:
        results["whole"] = whole(args.before, args.pairs)
        print(json.dumps(results["whole"]), file=sys.stderr, flush=True)
    for n in args.sizes:
        entry: dict[str, Any] = {"jobs": n}
        if args.before and n <= args.before_max:
            entry["before"] = _run(
                args.before, "row", str(n), ROW["policy"], str(ROW["load_factor"])
            )
        entry["after"] = _run(python, "row", str(n), ROW["policy"], str(ROW["load_factor"]))
        print(json.dumps(entry), file=sys.stderr, flush=True)
        results["growth"].append(entry)
    if not args.skip_hostile:
        if args.before:
            results["hostile"]["before"] = _run(args.before, "hostile")
        results["hostile"]["after"] = _run(python, "hostile")
        print(json.dumps(results["hostile"]), file=sys.stderr, flush=True)
    if not args.skip_single:
        for n in args.single_sizes:
            row = {"jobs": n} | _run(python, "single", str(n))
            print(json.dumps(row), file=sys.stderr, flush=True)
            results["single"].append(row)
    if not args.skip_grid:
        n = max(args.sizes)
        for policy, factor in (("conservative-mr", 1.0), ("greedy-mr", 2.0)):
            row = {"jobs": n, "policy": policy, "load_factor": factor}
            row |= _run(python, "row", str(n), policy, str(factor))
            print(json.dumps(row), file=sys.stderr, flush=True)
            results["grid"].append(row)
    return results


# -- the page ----------------------------------------------------------------------------------


def _exponent(rows: list[dict[str, Any]], side: str) -> list[str]:
    """Growth exponents log(t2/t1)/log(n2/n1) between consecutive sizes."""
    out = ["—"]
    for a, b in pairwise(rows):
        if side in a and side in b:
            ratio = b[side]["cpu_s"] / a[side]["cpu_s"]
            out.append(f"{math.log(ratio) / math.log(b['jobs'] / a['jobs']):.2f}")
        else:
            out.append("—")
    return out


def _n(x: float) -> str:
    return f"{x:,}"


def row_cpu(results: dict[str, Any], jobs: int) -> tuple[float, bool]:
    """CPU seconds of the row at `jobs`: measured, or extrapolated from the last two sizes
    (then `False`)."""
    growth = results["growth"]
    for entry in growth:
        if entry["jobs"] == jobs:
            return entry["after"]["cpu_s"], True
    a, b = growth[-2], growth[-1]
    slope = math.log(b["after"]["cpu_s"] / a["after"]["cpu_s"]) / math.log(b["jobs"] / a["jobs"])
    return b["after"]["cpu_s"] * (jobs / b["jobs"]) ** slope, False


def grid_estimate(results: dict[str, Any]) -> tuple[float, int] | None:
    """Estimated CPU seconds of the whole grid at the largest size, and its row count.

    Rows of the conservative family (conservative-mr, conservative-mr-slower,
    efficacy, single-conservative) cost what the conservative-mr row costs at their
    load factor (interpolated linearly between the measured 1.0 and 2.0); the EASY
    family's rows what the greedy-mr row at 2.0 costs (an upper bound).
    """
    grid = {(r["policy"], r["load_factor"]): r for r in results["grid"]}
    if ("conservative-mr", 1.0) not in grid or ("greedy-mr", 2.0) not in grid:
        return None
    low = grid[("conservative-mr", 1.0)]["cpu_s"]
    high, _ = row_cpu(results, grid[("conservative-mr", 1.0)]["jobs"])
    easy = grid[("greedy-mr", 2.0)]["cpu_s"]
    factors = (1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
    total = 0.0
    rows = 0
    for _trace in range(2):
        for factor in factors:
            cons = low + (high - low) * (factor - 1.0)
            total += 4 * cons + 3 * easy  # 3 conservative policies + single; 2 greedy + single
            rows += 7
        # the K sweep at the first load factor: 7 rows each of greedy-mr and conservative-mr
        total += 7 * low + 7 * easy
        rows += 14
    return total, rows


def table(results: dict[str, Any]) -> str:
    """The page's tables, from the recorded results."""
    lines = [
        f"Measured {results['date']} by `python benchmarks/conservative_scale.py --write` "
        f"({results['cpus']} CPUs, shared; CPU seconds of the run in its own subprocess; "
        "before = the main branch before this work, paired with ours in the same session).",
        "",
        "**One row** (conservative-mr, K = 4 by load, SDSC-SP2, load factor 2.0):",
        "",
        "| jobs | CPU before (s) | CPU now (s) | exponent now | peak MB | compressions "
        "| queue at a compression (mean; max per site) | profile breakpoints (mean; max) "
        "| reservations moved | CPU per reservation moved (µs) | new jobs placed "
        "| completion queries |",
        "|---:|---:|---:|---:|---:|---:|---|---|---:|---:|---:|---:|",
    ]
    exponents = _exponent(results["growth"], "after")
    for entry, exponent in zip(results["growth"], exponents, strict=True):
        after = entry["after"]
        before = entry.get("before")
        lines.append(
            f"| {_n(entry['jobs'])} | {before['cpu_s'] if before else '—'} | {after['cpu_s']} "
            f"| {exponent} | {after['peak_MB']} | {_n(after['compressions'])} "
            f"| {after['queue_mean']}; {', '.join(map(str, after['queue_max_by_site']))} "
            f"| {after['profile_mean']}; {after['profile_max']} | {_n(after['moved'])} "
            f"| {1e6 * after['cpu_s'] / after['moved']:.1f} "
            f"| {_n(after['placed'])} | {_n(after['queries'])} |"
        )
    growth = results["growth"]
    if len(growth) > 1:
        a, b = growth[-2], growth[-1]
        for n in (5000, 10_000):
            cpu, measured = row_cpu(results, n)
            if not measured:
                lines += [
                    "",
                    f"{_n(n)} jobs: not run with this version; at the exponent from "
                    f"{_n(a['jobs'])} to {_n(b['jobs'])} jobs it would take about "
                    f"{cpu / 60:.0f} CPU minutes (an extrapolation).",
                ]
    hostile = results.get("hostile") or {}
    if hostile:
        before = hostile.get("before")
        after = hostile["after"]
        lines += [
            "",
            "**2000 jobs at one instant** (`tests/multisite/test_hostile.py`, three "
            "conservative sites, conservative-mr):",
            "",
            "| CPU before (s) | CPU now (s) | compressions | queue at a compression (mean) "
            "| profile breakpoints (mean; max) | reservations moved |",
            "|---:|---:|---:|---:|---|---:|",
            f"| {before['cpu_s'] if before else '—'} | {after['cpu_s']} "
            f"| {_n(after['compressions'])} | {after['queue_mean']} "
            f"| {after['profile_mean']}; {after['profile_max']} | {_n(after['moved'])} |",
        ]
    if results.get("single"):
        lines += [
            "",
            "**Single-site conservative, CTC-SP2 repeated** (streamed, `schedule_iter`):",
            "",
            "| jobs | CPU (s) | jobs per CPU second | peak MB (before the run) |",
            "|---:|---:|---:|---|",
        ]
        lines += [
            f"| {_n(r['jobs'])} | {r['cpu_s']} | {_n(r['jobs_per_cpu_s'])} "
            f"| {r['peak_MB']} ({r['loaded_MB']}) |"
            for r in results["single"]
        ]
    estimate = grid_estimate(results)
    if estimate is not None:
        total, rows = estimate
        n = results["grid"][0]["jobs"]
        measured = ", ".join(
            f"{r['policy']} at {r['load_factor']}: {r['cpu_s']} s" for r in results["grid"]
        )
        lines += [
            "",
            f"**The whole grid at {_n(n)} jobs per trace** ({rows} rows, both traces, one "
            "class draw; the reproduction's five replicates take five times as long): "
            f"*estimated*, not run, at {total / 3600:.1f} CPU hours, about "
            f"{total / 2 / 3600:.1f} hours of wall time on 2 workers (conservative-family "
            "rows priced as the conservative-mr row at their load factor, interpolated "
            f"between the measured ones; EASY-family rows as greedy-mr at 2.0; measured: "
            f"{measured}).",
        ]
    lines += _targets(results, estimate)
    return "\n".join(lines) + "\n"


def _targets(results: dict[str, Any], estimate: tuple[float, int] | None) -> list[str]:
    """Issue 26's targets against what was measured."""
    growth = {entry["jobs"]: entry["after"] for entry in results["growth"]}
    rows: list[tuple[str, str, bool | None]] = []
    if 5000 not in growth and len(growth) > 1:
        cpu, _ = row_cpu(results, 5000)
        slope = math.log(cpu / growth[1000]["cpu_s"]) / math.log(5) if 1000 in growth else None
        rows.append(("one row at 5,000 jobs <= 90 s CPU", f"{cpu:.0f} s (extrapolated)", cpu <= 90))
        if slope is not None:
            rows.append(
                (
                    "growth exponent 1,000 to 5,000 <= 1.4",
                    f"{slope:.2f} (extrapolated)",
                    slope <= 1.4,
                )
            )
        first, last = min(growth), max(growth)
        moved = math.log(growth[last]["moved"] / growth[first]["moved"]) / math.log(last / first)
        rows.append(
            (
                f"(for scale: reservations moved, exponent {_n(first)} to {_n(last)})",
                f"{moved:.2f}",
                None,
            )
        )
    if 5000 in growth:
        cpu = growth[5000]["cpu_s"]
        rows.append(("one row at 5,000 jobs <= 90 s CPU", f"{cpu} s", cpu <= 90))
        if 1000 in growth:
            slope = math.log(cpu / growth[1000]["cpu_s"]) / math.log(5)
            rows.append(("growth exponent 1,000 to 5,000 <= 1.4", f"{slope:.2f}", slope <= 1.4))
            moved = math.log(growth[5000]["moved"] / growth[1000]["moved"]) / math.log(5)
            rows.append(
                ("(for scale: reservations moved, exponent 1,000 to 5,000)", f"{moved:.2f}", None)
            )
    if estimate is not None:
        hours = estimate[0] / 2 / 3600
        rows.append(
            (
                "whole grid at 5,000 jobs <= 30 min wall on 2 workers",
                f"{hours:.1f} h (estimate)",
                hours <= 0.5,
            )
        )
    hostile = (results.get("hostile") or {}).get("after")
    if hostile:
        rows.append(
            ("2000 jobs at one instant <= 5 s", f"{hostile['cpu_s']} s", hostile["cpu_s"] <= 5)
        )
    whole = results.get("whole")
    if whole:
        x = whole["x_plain_easy"]
        rows.append(
            (
                "single-site conservative, SDSC-SP2, whole process <= 2.4 x the plain EASY loop",
                f"{x} x ({whole['sdsc_cpu_s']} s against {whole['plain_easy_cpu_s']} s; "
                f"{whole['x_before']} x the version before)",
                x <= 2.4,
            )
        )
        peak = whole["curie_peak_MB"]
        rows.append(
            ("CEA-Curie conservative, whole process, peak < 500 MB", f"{peak} MB", peak < 500)
        )
    single = results.get("single") or []
    if len(single) > 1:
        low, high = single[0]["peak_MB"], single[-1]["peak_MB"]
        rows.append(
            (
                f"streamed run flat ({_n(single[0]['jobs'])} to {_n(single[-1]['jobs'])} jobs)",
                f"{low} to {high} MB",
                high <= low * 1.05,
            )
        )
    if not rows:
        return []
    out = ["", "**The targets:**", "", "| target | measured | met |", "|---|---|---|"]
    for target, measured, met in rows:
        out.append(f"| {target} | {measured} | {'—' if met is None else 'yes' if met else 'no'} |")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[1000, 2000, 5000])
    parser.add_argument("--single-sizes", nargs="+", type=int, default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--before", help="the interpreter of the version before")
    parser.add_argument("--before-max", type=int, default=2000, help="largest size run before")
    parser.add_argument("--skip-hostile", action="store_true")
    parser.add_argument("--skip-single", action="store_true")
    parser.add_argument("--skip-grid", action="store_true")
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--render", action="store_true")
    parser.add_argument("--skip-whole", action="store_true")
    parser.add_argument("--pairs", type=int, default=5, help="whole-process pairs")
    parser.add_argument(
        "--only-whole", action="store_true", help="measure `whole` into the recorded results"
    )
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, *rest = args.child
        if kind == "row":
            print(json.dumps(child_row(int(rest[0]), rest[1], float(rest[2]))))
        elif kind == "hostile":
            print(json.dumps(child_hostile()))
        else:
            print(json.dumps(child_single(int(rest[0]))))
        return
    if args.only_whole:
        results = json.loads(RESULTS.read_text())
        results["whole"] = whole(args.before, args.pairs)
        RESULTS.write_text(json.dumps(results, indent=1) + "\n")
        print(table(results))
        return
    if args.render:
        print(table(json.loads(RESULTS.read_text())))
        return
    results = measure(args)
    if args.write:
        RESULTS.write_text(json.dumps(results, indent=1) + "\n")
    print(table(results))


if __name__ == "__main__":
    main()
