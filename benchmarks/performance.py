"""The Performance page: every benchmark run together on one machine, then its tables and figures.

    python benchmarks/performance.py --run       # measure everything (its time is on the page)
    python benchmarks/performance.py --render    # the page's tables and figures from the results
    python benchmarks/performance.py --add-rows 5000   # one more size of the conservative row

`--run` measures each section below in fresh subprocesses and keeps the results,
with a description of the machine and its load, in `benchmarks/performance.json`
(`--only NAME ...` re-measures some sections and keeps the others). `--render`
writes, from that file alone, each section's table between its markers in
`docs/performance.md` and its figure as `docs/performance/NAME.png`.
`tests/test_performance_page.py` checks that the page shows what the file holds.

Each section is a [`Section`]: a name, a `measure` function returning what it
measured (plain JSON), a `table` function turning that into Markdown, and a
`figure` function drawing it. To add a measurement to the page, write those three,
append the section to `SECTIONS`, put its markers in the page
(`<!-- performance:NAME -->` ... `<!-- /performance:NAME -->`) with a sentence on
what it measures, and run `--run --only NAME` then `--render`.

Every figure is a ratio to a baseline measured in the same session, or the growth
of one measurement with the trace's length: the machine this runs on is shared,
and the same run varies by 30-50 % from one minute to the next.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import itertools
import json
import math
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "benchmarks"
RESULTS = BENCHMARKS / "performance.json"
PAGE = ROOT / "docs" / "performance.md"
FIGURES = ROOT / "docs" / "performance"
TRACES = Path(os.environ.get("SCHEDLIB_TRACES", ROOT.parent / "shared" / "traces"))

SDSC = "SDSC-SP2-1998-4.2-cln.swf.gz"
CTC = "CTC-SP2-1996-3.1-cln.swf.gz"
KTH = "KTH-SP2-1996-2.1-cln.swf.gz"
CURIE = "CEA-Curie-2011-2.1-cln.swf.gz"
POLICIES = ("fcfs", "easy", "conservative")
SIMULATED = ((SDSC, None), (CTC, 430), (KTH, None))  # (trace, processors; None: the header's)
NAMES = {SDSC: "SDSC-SP2", CTC: "CTC-SP2", KTH: "KTH-SP2", CURIE: "CEA-Curie"}


def script(name: str) -> ModuleType:
    """Another script of `benchmarks/`, imported by path (they are not a package)."""
    spec = importlib.util.spec_from_file_location(f"benchmark_{name}", BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _peak_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


# -- children: one measurement each, in a fresh interpreter, printed as JSON -------------------


def child_simulation(
    trace: str, processors: int | None, policy: str, repeat: int
) -> dict[str, Any]:
    """`schedule()` (simulation and record) and the plain loop on the same jobs, alternated,
    best of `repeat` CPU times each."""
    from schedlib.backfill import schedule
    from schedlib.workloads import load_workload

    backfill = script("backfill")
    workload = load_workload(TRACES / trace, processors=processors)
    capacity = workload.cluster.processors
    ours: list[float] = []
    plain: list[float] = []
    events = 0
    for _ in range(repeat):
        start = time.process_time()
        record = schedule(
            workload.jobs, workload.cluster, policy=policy, excluded=workload.excluded
        )
        ours.append(time.process_time() - start)
        events = len(record.events)
        del record
        jobs = backfill.plain_jobs(workload.jobs)
        start = time.process_time()
        backfill.plain_run(jobs, capacity, policy)
        plain.append(time.process_time() - start)
        if policy == "conservative":
            break  # its plain loop re-places every waiting job at every early end: once is enough
    return {
        "trace": NAMES[trace],
        "processors": capacity,
        "records": workload.records,
        "jobs": len(workload.jobs),
        "policy": policy,
        "log_entries": events,
        "cpu_s": round(min(ours), 3),
        "plain_cpu_s": round(min(plain), 3),
        "peak_MB": _peak_mb(),
    }


def child_reading(trace: str, task: str) -> dict[str, Any]:
    """`load_workload` (read, check, clean, sort) or the baseline (decompress and split)."""
    workloads = script("workloads")
    start = time.process_time()
    records = workloads.child(task, str(TRACES / trace))["records"]
    return {"records": records, "cpu_s": time.process_time() - start, "peak_MB": _peak_mb()}


CHILDREN: dict[str, Callable[..., dict[str, Any]]] = {
    "simulation": child_simulation,
    "reading": child_reading,
}


def _child(name: str, *args: Any) -> dict[str, Any]:
    command = [sys.executable, str(Path(__file__).resolve()), "--child", name, json.dumps(args)]
    result = subprocess.run(command, capture_output=True, text=True, check=True)
    row: dict[str, Any] = json.loads(result.stdout)
    return row


def _process(command: list[str]) -> dict[str, float]:
    """CPU seconds (user + system), wall seconds and peak MB of one whole process."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if status:
        raise RuntimeError(f"{' '.join(command)} failed")
    return {
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "wall_s": wall,
        "peak_MB": usage.ru_maxrss / 1024,
    }


def _best(runs: list[dict[str, float]]) -> dict[str, float]:
    """The run of least CPU time, rounded."""
    best = min(runs, key=lambda r: r["cpu_s"])
    return {key: round(value, 3 if key != "peak_MB" else 1) for key, value in best.items()}


# -- the sections ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Section:
    """One measured thing of the page: how to measure it, its table and its figure."""

    name: str
    alt: str
    measure: Callable[[argparse.Namespace], dict[str, Any]]
    table: Callable[[dict[str, Any]], str]
    figure: Callable[[dict[str, Any], Any], None]


def _n(x: float) -> str:
    return f"{x:,.0f}"


def _x(x: float) -> str:
    return f"{x:.2f}" if x < 10 else f"{x:.1f}"


def _markdown(columns: list[str], rows: list[list[str]]) -> str:
    """A Markdown table; a column whose name ends with ` <` is left-aligned, others right."""
    names = [c.removesuffix(" <") for c in columns]
    aligns = ["---" if c.endswith(" <") else "---:" for c in columns]
    lines = [f"| {' | '.join(names)} |", f"|{'|'.join(aligns)}|"]
    lines += [f"| {' | '.join(row)} |" for row in rows]
    return "\n".join(lines)


def _paired_bars(
    ax: Any,
    labels: list[str],
    ours: list[float],
    baseline: list[float],
    names: tuple[str, str],
    notes: list[str] | None = None,
) -> None:
    """schedlib's bar beside its baseline's, for each label; `notes` above schedlib's bars."""
    at = range(len(labels))
    ax.bar([k - 0.2 for k in at], ours, 0.4, label=names[0])
    ax.bar([k + 0.2 for k in at], baseline, 0.4, label=names[1], color="0.7")
    for k, note in enumerate(notes or []):
        ax.annotate(note, (k - 0.2, ours[k]), ha="center", va="bottom", fontsize="small")
    ax.set_xticks(list(at), labels, fontsize="small")


def _by_run(ax: Any, rows: list[dict[str, Any]], value: Callable[[dict[str, Any]], float]) -> None:
    """One line per run kind (record kept, streamed) and policy, against the jobs."""
    for mode, style in (("record", "-o"), ("stream", "--s")):
        for policy in ("fcfs", "easy"):
            mine = [r for r in rows if (r["mode"], r["policy"]) == (mode, policy)]
            kind = "record kept" if mode == "record" else "streamed"
            ax.plot([r["jobs"] for r in mine], [value(r) for r in mine], style,
                    label=f"{policy}, {kind}")  # fmt: skip
    ax.set_xscale("log")
    ax.set_xlabel("jobs in the trace (log)")


# simulation ------------------------------------------------------------------------------------


def measure_simulation(options: argparse.Namespace) -> dict[str, Any]:
    rows = []
    for trace, processors in SIMULATED:
        for policy in POLICIES:
            row = _child("simulation", trace, processors, policy, options.repeat)
            print(f"  simulation {row['trace']} {policy}: {row['cpu_s']} s", file=sys.stderr)
            rows.append(row)
    return {"rows": rows}


def table_simulation(results: dict[str, Any]) -> str:
    columns = ["trace <", "processors", "jobs simulated", "policy <", "CPU (s)",
               "jobs per CPU second", "plain loop (s)", "ours ÷ plain loop", "peak MB"]  # fmt: skip
    return _markdown(columns, [
        [r["trace"], str(r["processors"]), _n(r["jobs"]), r["policy"], f"{r['cpu_s']:.2f}",
         _n(r["jobs"] / r["cpu_s"]), f"{r['plain_cpu_s']:.2f}",
         _x(r["cpu_s"] / r["plain_cpu_s"]), f"{r['peak_MB']:.0f}"]
        for r in results["rows"]
    ])  # fmt: skip


def figure_simulation(results: dict[str, Any], plt: Any) -> Any:
    rows = results["rows"]
    figure, ax = plt.subplots(figsize=(9, 4.2))
    _paired_bars(
        ax,
        [f"{r['trace']}\n{r['policy']}" for r in rows],
        [r["jobs"] / r["cpu_s"] for r in rows],
        [r["jobs"] / r["plain_cpu_s"] for r in rows],
        ("schedlib", "plain loop (same rules, no record)"),
        [f"×{_x(r['cpu_s'] / r['plain_cpu_s'])}" for r in rows],
    )
    ax.set_yscale("log")
    ax.set_ylabel("jobs per CPU second (log)")
    ax.set_title("A whole trace simulated, with its run record (label: CPU time ÷ plain loop)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, fontsize="small")
    return figure


# the whole command -----------------------------------------------------------------------------


def measure_command(options: argparse.Namespace) -> dict[str, Any]:
    python = sys.executable
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        out = str(Path(folder) / "jobs.csv")
        for policy in POLICIES:
            ours = [python, "-m", "schedlib", "run", "--policy", policy]
            ours += ["--workload", str(TRACES / SDSC), "--output", out]
            plain = [python, str(BENCHMARKS / "backfill.py"), "--plain-process"]
            plain += [str(TRACES / SDSC), policy]
            a, b = [], []
            for _ in range(options.repeat):
                a.append(_process(ours))
                b.append(_process(plain))
            rows.append({"command": f"run --policy {policy}", "ours": _best(a), "plain": _best(b)})
            print(f"  command run {policy}: {rows[-1]['ours']['cpu_s']} s", file=sys.stderr)
        a, b = [], []
        for _ in range(options.repeat):
            a.append(_process([python, "-m", "schedlib", "run", "--help"]))
            b.append(_process([python, "-c", "pass"]))
        rows.append({"command": "run --help", "ours": _best(a), "plain": _best(b)})
    return {"trace": NAMES[SDSC], "rows": rows}


def table_command(results: dict[str, Any]) -> str:
    columns = [f"command ({results['trace']}, output to CSV) <", "CPU (s)", "wall (s)",
               "peak MB", "baseline <", "baseline CPU (s)", "ours ÷ baseline"]  # fmt: skip
    rows = []
    for r in results["rows"]:
        ours, plain = r["ours"], r["plain"]
        baseline = "`python -c pass`" if r["command"] == "run --help" else "reading + plain loop"
        rows.append([f"`schedlib {r['command']}`", f"{ours['cpu_s']:.2f}", f"{ours['wall_s']:.2f}",
                     f"{ours['peak_MB']:.0f}", baseline, f"{plain['cpu_s']:.2f}",
                     _x(ours["cpu_s"] / plain["cpu_s"])])  # fmt: skip
    return _markdown(columns, rows)


def figure_command(results: dict[str, Any], plt: Any) -> Any:
    rows = results["rows"]
    figure, ax = plt.subplots(figsize=(8, 3.8))
    _paired_bars(
        ax,
        [f"schedlib {r['command']}" for r in rows],
        [r["ours"]["cpu_s"] for r in rows],
        [r["plain"]["cpu_s"] for r in rows],
        ("schedlib", "baseline: the trace read + the plain loop; for --help, python -c pass"),
        [f"{r['ours']['peak_MB']:.0f} MB" for r in rows],
    )
    ax.set_ylabel("CPU seconds, whole process")
    ax.set_title(f"The whole command on {results['trace']} (label: peak memory)")
    ax.legend(loc="upper left", fontsize="small")
    return figure


# reading -------------------------------------------------------------------------------------


def measure_reading(options: argparse.Namespace) -> dict[str, Any]:
    rows = []
    for trace in (SDSC, CTC, CURIE):
        runs: dict[str, list[dict[str, Any]]] = {"load": [], "plain": []}
        for _ in range(options.repeat):
            for task in ("load", "plain"):
                runs[task].append(_child("reading", trace, task))
        load = min(runs["load"], key=lambda r: r["cpu_s"])
        plain = min(runs["plain"], key=lambda r: r["cpu_s"])
        assert load["records"] == plain["records"], (trace, load, plain)
        rows.append(
            {
                "trace": NAMES[trace],
                "records": load["records"],
                "cpu_s": round(load["cpu_s"], 3),
                "plain_cpu_s": round(plain["cpu_s"], 3),
                "peak_MB": load["peak_MB"],
            }
        )
        print(f"  reading {NAMES[trace]}: {rows[-1]['cpu_s']} s", file=sys.stderr)
    return {"rows": rows}


def table_reading(results: dict[str, Any]) -> str:
    columns = ["trace <", "records", "CPU (s)", "records per CPU second",
               "baseline: decompress and split (s)", "ours ÷ baseline", "peak MB"]  # fmt: skip
    return _markdown(columns, [
        [r["trace"], _n(r["records"]), f"{r['cpu_s']:.2f}", _n(r["records"] / r["cpu_s"]),
         f"{r['plain_cpu_s']:.2f}", _x(r["cpu_s"] / r["plain_cpu_s"]), f"{r['peak_MB']:.0f}"]
        for r in results["rows"]
    ])  # fmt: skip


def figure_reading(results: dict[str, Any], plt: Any) -> Any:
    rows = results["rows"]
    figure, ax = plt.subplots(figsize=(7, 3.6))
    _paired_bars(
        ax,
        [r["trace"] for r in rows],
        [r["records"] / r["cpu_s"] for r in rows],
        [r["records"] / r["plain_cpu_s"] for r in rows],
        ("load_workload (read, check, clean, sort)", "baseline: decompress and split the lines"),
    )
    ax.set_ylabel("records per CPU second")
    ax.set_title("Reading a whole trace")
    ax.legend(loc="upper left", fontsize="small")
    return figure


# growth and memory ---------------------------------------------------------------------------

GROWTH_SIZES = (10_000, 100_000, 1_000_000)
STREAM_SIZES = (100_000, 1_000_000)


def _growth_child(policy: str, n: int, streamed: bool) -> dict[str, Any]:
    command = [sys.executable, str(BENCHMARKS / "growth.py"), "--one", str(TRACES / SDSC)]
    command += [policy, str(n)]
    if streamed:
        command.append("--streamed")
    result = subprocess.run(command, capture_output=True, text=True, check=True)
    row: dict[str, Any] = json.loads(result.stdout)
    return row


def measure_growth(options: argparse.Namespace) -> dict[str, Any]:
    rows = []
    for policy in ("fcfs", "easy"):
        for streamed, sizes in ((False, GROWTH_SIZES), (True, STREAM_SIZES)):
            for n in sizes:
                row = _growth_child(policy, n, streamed)
                keep = ("mode", "policy", "jobs", "cpu_s", "gen_s", "peak_MB", "loaded_MB")
                rows.append({key: row[key] for key in keep})
                print(f"  growth {row['mode']} {policy} {n}: {row['cpu_s']} s", file=sys.stderr)
    return {"trace": NAMES[SDSC], "rows": rows}


def _per_job_us(row: dict[str, Any]) -> float:
    return 1e6 * row["cpu_s"] / row["jobs"]


def table_growth(results: dict[str, Any]) -> str:
    columns = ["run <", "policy <", "jobs", "CPU (s)", "µs per job",
               "µs per job ÷ the smallest size's"]  # fmt: skip
    first: dict[tuple[str, str], float] = {}
    rows = []
    for r in results["rows"]:
        first.setdefault((r["mode"], r["policy"]), _per_job_us(r))
        mode = "record kept (`schedule`)" if r["mode"] == "record" else "streamed (`schedule_iter`)"
        rows.append([mode, r["policy"], _n(r["jobs"]), f"{r['cpu_s']:.2f}",
                     f"{_per_job_us(r):.1f}",
                     _x(_per_job_us(r) / first[(r["mode"], r["policy"])])])  # fmt: skip
    return _markdown(columns, rows)


def figure_growth(results: dict[str, Any], plt: Any) -> Any:
    figure, ax = plt.subplots(figsize=(7, 3.8))
    _by_run(ax, results["rows"], _per_job_us)
    ax.set_ylim(bottom=0)
    ax.set_ylabel("CPU µs per job")
    ax.set_title(f"Cost per job as the trace grows ({results['trace']} repeated)")
    ax.legend(fontsize="small")
    return figure


def table_memory(results: dict[str, Any]) -> str:
    columns = ["run <", "policy <", "jobs", "peak MB", "before the run (MB)",
               "peak ÷ before the run"]  # fmt: skip
    return _markdown(columns, [
        ["record kept" if r["mode"] == "record" else "streamed", r["policy"], _n(r["jobs"]),
         f"{r['peak_MB']:.0f}", f"{r['loaded_MB']:.0f}", _x(r["peak_MB"] / r["loaded_MB"])]
        for r in results["rows"]
    ])  # fmt: skip


def figure_memory(results: dict[str, Any], plt: Any) -> Any:
    figure, ax = plt.subplots(figsize=(7, 3.8))
    _by_run(ax, results["rows"], lambda r: r["peak_MB"])
    baseline = min(r["loaded_MB"] for r in results["rows"])
    ax.axhline(baseline, color="0.6", linewidth=1, label="the process before the run")
    ax.set_yscale("log")
    ax.set_ylabel("peak resident memory, MB (log)")
    ax.set_title(f"Memory as the trace grows ({results['trace']} repeated)")
    ax.legend(fontsize="small")
    return figure


# conservative backfilling at scale ---------------------------------------------------------

ROW_SIZES = (1000, 2000, 5000)
"""Sizes of the conservative row (5000: the paper's; ~450 CPU s, `--add-rows 5000` alone)."""
SINGLE_SIZES = (10_000, 100_000)


def _scale_child(*args: str) -> dict[str, Any]:
    command = [sys.executable, str(BENCHMARKS / "conservative_scale.py"), "--child", *args]
    environment = {**os.environ, "SCHEDLIB_TRACES": str(TRACES)}
    result = subprocess.run(
        command, capture_output=True, text=True, check=True, cwd="/", env=environment
    )
    row: dict[str, Any] = json.loads(result.stdout)
    return row


def measure_conservative(options: argparse.Namespace) -> dict[str, Any]:
    scale = script("conservative_scale")
    row = scale.ROW
    rows = []
    for n in ROW_SIZES:
        rows.append(
            {"jobs": n} | _scale_child("row", str(n), row["policy"], str(row["load_factor"]))
        )
        print(f"  conservative row {n}: {rows[-1]['cpu_s']} s", file=sys.stderr)
    hostile = _scale_child("hostile")
    print(f"  conservative hostile: {hostile['cpu_s']} s", file=sys.stderr)
    single = [{"jobs": n} | _scale_child("single", str(n)) for n in SINGLE_SIZES]
    return {"row": row, "rows": rows, "hostile": hostile, "single": single}


def _exponents(rows: list[dict[str, Any]], key: str) -> list[str]:
    out = ["—"]
    for a, b in itertools.pairwise(rows):
        out.append(f"{math.log(b[key] / a[key]) / math.log(b['jobs'] / a['jobs']):.2f}")
    return out


def _per_move_us(row: dict[str, Any]) -> float:
    """CPU microseconds per reservation moved: what a faster compression must beat."""
    return 1e6 * row["cpu_s"] / row["moved"]


def table_conservative(results: dict[str, Any]) -> str:
    row, hostile = results["row"], results["hostile"]
    cpu = _exponents(results["rows"], "cpu_s")
    moved = _exponents(results["rows"], "moved")
    growth = _markdown(
        ["jobs", "CPU (s)", "growth exponent of the CPU", "reservations moved",
         "growth exponent of the moves", "CPU per reservation moved (µs)",
         "queue at a compression (mean jobs)"],
        [[_n(r["jobs"]) + ("*" if "measured" in r else ""), f"{r['cpu_s']:.2f}", a,
          _n(r["moved"]), b, f"{_per_move_us(r):.1f}", str(r["queue_mean"])]
         for r, a, b in zip(results["rows"], cpu, moved, strict=True)],
    )  # fmt: skip
    for factor, at in sorted(results.get("rows_at", {}).items()):
        exponents = _exponents(at, "cpu_s")
        growth += (
            f"\n\nThe same row at load factor {float(factor):.1f}, where the queues stay short:\n\n"
            + _markdown(
                ["jobs", "CPU (s)", "growth exponent of the CPU", "reservations moved",
                 "CPU per reservation moved (µs)"],
                [[_n(r["jobs"]) + ("*" if "measured" in r else ""), f"{r['cpu_s']:.2f}", a,
                  _n(r["moved"]), f"{_per_move_us(r):.1f}"]
                 for r, a in zip(at, exponents, strict=True)],
            )
        )  # fmt: skip
    every = [*results["rows"], *(r for at in results.get("rows_at", {}).values() for r in at)]
    later = sorted({r["measured"] for r in every if "measured" in r})
    if later:
        growth += (
            f"\n\n\\* measured on {', '.join(later)} by `python benchmarks/performance.py "
            "--add-rows N`, alone in its subprocess like the others."
        )
    single = _markdown(
        ["jobs", "CPU (s)", "jobs per CPU second", "peak MB", "MB before the run"],
        [[_n(r["jobs"]), f"{r['cpu_s']:.2f}", _n(r["jobs_per_cpu_s"]), f"{r['peak_MB']:.0f}",
          f"{r['loaded_MB']:.0f}"] for r in results["single"]],
    )  # fmt: skip
    return "\n".join([
        f"**One multi-site row** ({row['policy']}, K = 4 sites by load, SDSC-SP2, load factor "
        f"{row['load_factor']}):",
        "",
        growth,
        "",
        "**2000 jobs submitted at one instant** to three conservative sites "
        f"(conservative-mr): {hostile['cpu_s']:.2f} CPU seconds, "
        f"{_n(hostile['compressions'])} compressions over queues of "
        f"{hostile['queue_mean']:.0f} jobs on average, {_n(hostile['moved'])} reservations moved.",
        "",
        "**Single-site conservative, CTC-SP2 repeated, streamed** (`schedule_iter`):",
        "",
        single,
    ])  # fmt: skip


def figure_conservative(results: dict[str, Any], plt: Any) -> Any:
    rows = results["rows"]
    figure, ax = plt.subplots(figsize=(7, 3.8))
    jobs = [r["jobs"] for r in rows]
    ax.plot(jobs, [r["cpu_s"] for r in rows], "-o", label="CPU seconds")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("jobs (log)")
    ax.set_ylabel("CPU seconds (log)")
    twin = ax.twinx()
    twin.plot(jobs, [r["moved"] for r in rows], "--s", color="C1", label="reservations moved")
    twin.set_yscale("log")
    twin.set_ylabel("reservations moved (log)")
    lines = ax.get_lines() + twin.get_lines()
    ax.legend(lines, [line.get_label() for line in lines], loc="upper left", fontsize="small")
    ax.set_title("One multi-site conservative row as its trace grows")
    return figure


SECTIONS: tuple[Section, ...] = (
    Section(
        "simulation",
        "jobs per CPU second of each policy and trace, against the plain loop",
        measure_simulation,
        table_simulation,
        figure_simulation,
    ),
    Section(
        "command",
        "CPU seconds of the whole command against its baseline",
        measure_command,
        table_command,
        figure_command,
    ),
    Section(
        "reading",
        "records per CPU second of load_workload against decompress-and-split",
        measure_reading,
        table_reading,
        figure_reading,
    ),
    Section(
        "growth",
        "CPU microseconds per job against the trace's length",
        measure_growth,
        table_growth,
        figure_growth,
    ),
    Section(
        "memory",
        "peak memory against the trace's length, record kept and streamed",
        lambda options: {},
        table_memory,
        figure_memory,
    ),
    Section(
        "conservative",
        "CPU seconds and reservations moved of a multi-site row",
        measure_conservative,
        table_conservative,
        figure_conservative,
    ),
)
"""The page's sections, in its order. `memory` draws on what `growth` measured."""

DATA_OF = {"memory": "growth"}
"""Sections that show another section's measurements."""


# -- the machine, the page -------------------------------------------------------------------


def machine() -> dict[str, Any]:
    """What the measurements ran on."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return {
        "cpu": model,
        "cpus": os.cpu_count(),
        "memory_GiB": round(memory, 1),
        "system": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
    }


def machine_text(results: dict[str, Any]) -> str:
    m = results["machine"]
    loads = [s["load"] for s in results["sections"].values() if "load" in s]
    low = min(a for a, _ in loads)
    high = max(b for _, b in loads)
    minutes = sum(s["seconds"] for s in results["sections"].values()) / 60
    return (
        f"Measured on {results['date']} by `python benchmarks/performance.py --run`, every "
        f"section in one session of {minutes:.0f} minutes, on {m['cpus']} logical CPUs "
        f"({m['cpu']}; {m['memory_GiB']} GiB of memory, {m['system']}, Python "
        f"{m['python']}), a virtual machine shared with other work: the 1-minute load "
        f"average was between {low:.1f} and {high:.1f} at the start and end of the sections."
    )


def _markers(name: str) -> tuple[str, str]:
    return f"<!-- performance:{name} -->", f"<!-- /performance:{name} -->"


def block(name: str, results: dict[str, Any]) -> str:
    """What the page shows between the markers of `name`."""
    if name == "machine":
        return machine_text(results)
    section = next(s for s in SECTIONS if s.name == name)
    data = results["sections"][DATA_OF.get(name, name)]["data"]
    return f"![{section.alt}](performance/{name}.png)\n\n{section.table(data)}"


def render(results: dict[str, Any], page: Path = PAGE, figures: Path = FIGURES) -> None:
    """Write every section's table into the page and its figure beside it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    text = page.read_text()
    for name in ("machine", *(s.name for s in SECTIONS)):
        begin, end = _markers(name)
        if text.count(begin) != 1 or text.count(end) != 1:
            raise SystemExit(f"{page}: put the markers {begin} and {end} in the page once")
        head, rest = text.split(begin)
        _, tail = rest.split(end)
        text = f"{head}{begin}\n{block(name, results)}\n{end}{tail}"
    page.write_text(text)
    figures.mkdir(exist_ok=True)
    for section in SECTIONS:
        data = results["sections"][DATA_OF.get(section.name, section.name)]["data"]
        figure = section.figure(data, plt)
        figure.tight_layout()
        figure.savefig(figures / f"{section.name}.png", dpi=100, metadata={"Software": None})
        plt.close(figure)


def run(options: argparse.Namespace) -> dict[str, Any]:
    """Measure the sections asked for; keep the others' results from the file."""
    results: dict[str, Any] = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    sections = results.setdefault("sections", {})
    chosen = options.only or [s.name for s in SECTIONS if s.name not in DATA_OF]
    if options.only and set(sections) - set(chosen):
        print(
            "keeping from the file: " + ", ".join(sorted(set(sections) - set(chosen))),
            file=sys.stderr,
        )
    for section in SECTIONS:
        if section.name not in chosen or section.name in DATA_OF:
            continue
        print(f"{section.name} ...", file=sys.stderr, flush=True)
        before = os.getloadavg()[0]
        began = time.perf_counter()
        data = section.measure(options)
        sections[section.name] = {
            "data": data,
            "load": [round(before, 2), round(os.getloadavg()[0], 2)],
            "seconds": round(time.perf_counter() - began),
        }
        results["machine"] = machine()
        results["date"] = datetime.date.today().isoformat()
        RESULTS.write_text(json.dumps(results, indent=1) + "\n")  # kept as each one ends
    return results


def add_rows(
    sizes: list[int], row_from: list[str] | None = None, load_factor: float | None = None
) -> dict[str, Any]:
    """Measure the conservative row at more sizes (each in its own subprocess, dated) and
    keep them in the stored section beside the others, sorted by size; at another load
    factor than the section's row, in `rows_at[LOAD FACTOR]`."""
    results: dict[str, Any] = json.loads(RESULTS.read_text())
    data = results["sections"]["conservative"]["data"]
    row = data["row"]
    factor = row["load_factor"] if load_factor is None else load_factor
    kept = (
        data["rows"]
        if factor == row["load_factor"]
        else data.setdefault("rows_at", {}).setdefault(f"{factor:g}", [])
    )
    for i, n in enumerate(sizes):
        if row_from is not None:
            measured = json.loads(Path(row_from[i]).read_text())
        else:
            measured = _scale_child("row", str(n), row["policy"], str(factor))
        entry = {"jobs": n} | measured | {"measured": datetime.date.today().isoformat()}
        kept[:] = [r for r in kept if r["jobs"] != n] + [entry]
        print(f"  conservative row {n} at {factor:g}: {entry['cpu_s']} s", file=sys.stderr)
    kept.sort(key=lambda r: r["jobs"])
    RESULTS.write_text(json.dumps(results, indent=1) + "\n")
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", action="store_true", help="measure, then render")
    parser.add_argument("--render", action="store_true", help="render the page from the file")
    parser.add_argument(
        "--only", nargs="+", choices=[s.name for s in SECTIONS if s.name not in DATA_OF]
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (best kept)")
    parser.add_argument(
        "--add-rows",
        nargs="+",
        type=int,
        metavar="N",
        help="measure the conservative row at N more jobs into the stored section, then render",
    )
    parser.add_argument(
        "--row-from",
        nargs="+",
        metavar="FILE",
        help="one per --add-rows N: the row's measurement already made by "
        "`conservative_scale.py --child row N POLICY FACTOR` (its JSON output)",
    )
    parser.add_argument(
        "--load-factor",
        type=float,
        default=None,
        help="with --add-rows: the rows' load factor (default: the section's, 2.0)",
    )
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.add_rows:
        results = add_rows(options.add_rows, options.row_from, options.load_factor)
        render(results)
        print(f"wrote {PAGE} and {FIGURES}/*.png from {RESULTS}", file=sys.stderr)
        return
    if options.child:
        name, arguments = options.child
        print(json.dumps(CHILDREN[name](*json.loads(arguments))))
        return
    if not (options.run or options.render):
        parser.error("give --run (measure and render) or --render")
    results = run(options) if options.run else json.loads(RESULTS.read_text())
    render(results)
    print(f"wrote {PAGE} and {FIGURES}/*.png from {RESULTS}", file=sys.stderr)


if __name__ == "__main__":
    main()
