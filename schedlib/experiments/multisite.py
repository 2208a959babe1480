r"""Reproduction of Sabin et al. (2003), §3-§7: one job stream over four heterogeneous sites.

```text
schedlib reproduce multisite [--trace ctc|sdsc|both|FILE] [--jobs 1000] [--quick]
                             [--load-factors 1.0,1.2,...,2.0] [--seed 0] [--workers W]
                             [--format table|json|csv] [--plot out.png]
```

**Workload** ([`paper_workload`][schedlib.experiments.multisite.paper_workload]):
the first `--jobs` jobs of a trace, submitted at each of the paper's four
sites (the last two copies three hours later), each copy's jobs given a job
class by a seeded generator; every site is as large as the trace's machine
(CTC-SP2: 430 processors as in the paper, although the v3.1 header says 338;
SDSC-SP2: 128). Load factors multiply every runtime and requested time and
keep the submit times.

**Rows**, one per (trace, policy, k, selection, load factor), with the
fields `trace`, `jobs`, `processors`, `policy`, `k` ($K$: copies per job,
`4` = every site), `selection` (`load`, `completion`, or `-` for the
single-site runs), `load_factor`, `mean_turnaround` (s), `utilisation`,
`effective_utilisation`, `messages`, `minimum_messages`. Three groups:

1. `--load-factors` × the five policies (greedy, greedy-mr, conservative-mr,
   conservative-mr-slower, efficacy) with every site holding a copy (§4-§6);
2. at load factor 1.0, $K = 1..4$ with both site selections for
   multiple-request EASY (`greedy-mr`) and completion-based conservative
   (`conservative-mr`) (§7);
3. at every load factor, the single-site comparison: the four copies on one
   site of the same size with runtimes divided by 4 (same offered load),
   EASY (`single-easy`) against conservative (`single-conservative`).

[`claims`][schedlib.experiments.multisite.claims] checks the paper's
claims on the rows.

Examples
--------
>>> rows = reproduce(traces=("sdsc",), jobs=40, load_factors=(1.0,), workers=1)
>>> sorted({r["policy"] for r in rows})[:3]
['conservative-mr', 'conservative-mr-slower', 'efficacy']
>>> [c["verdict"] for c in claims(rows)][:1]
['holds']
"""

from __future__ import annotations

import argparse
import math
import random
from collections.abc import Sequence
from typing import Any

from schedlib.backfill import schedule
from schedlib.errors import InvalidValueError
from schedlib.execution.parallel import run_all
from schedlib.execution.progress import ProgressBar
from schedlib.experiments.claims import claim, known, mean
from schedlib.experiments.options import (
    add_claims_argument,
    add_quick_argument,
    apply_quick,
    check_plot_target,
    print_note,
    print_results,
)
from schedlib.model import Cluster, Job
from schedlib.multisite import (
    POLICIES,
    RuntimeMatrix,
    makespan,
    multisite_workload,
    paper_sites,
    raw_utilisation,
    scaled,
    simulate_multisite,
    with_load_factor,
)
from schedlib.workloads.locate import KNOWN_TRACES, TraceSource, find_trace, load_trace

__all__ = [
    "LOAD_FACTORS",
    "PAPER",
    "TRACES",
    "claims",
    "data",
    "paper_workload",
    "plot",
    "reproduce",
    "run_one",
]

NAME = "multisite"
PAPER = "Sabin et al. (2003)"
"""The paper this module reproduces, as cited in tables."""
SUMMARY = (
    "Sabin et al. (2003): greedy, multiple requests, efficacy on four heterogeneous sites "
    "(CTC-SP2, SDSC-SP2)"
)

LOAD_FACTORS = (1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
"""The paper's load factors (§3)."""

K_POLICIES = ("greedy-mr", "conservative-mr")
"""The policies of the $K$ sweep (§7)."""

TRACES = tuple(KNOWN_TRACES)
"""The paper's traces by short name ([`KNOWN_TRACES`][schedlib.workloads.locate.KNOWN_TRACES])."""


def paper_workload(source: TraceSource, jobs: int, seed: int) -> tuple[int, tuple[Any, ...]]:
    """The first `jobs` jobs of a trace, four copies, classes drawn with `seed`.

    Returns the processors per site and the multi-site jobs.
    """
    workload = load_trace(source, limit=jobs)
    size = workload.cluster.processors
    stream = multisite_workload(
        workload.jobs, sites=4, matrix=RuntimeMatrix.paper(), rng=random.Random(seed)
    )
    return size, stream


def run_one(
    item: tuple[TraceSource, int, int, str, int, str, float],
) -> dict[str, Any]:
    """One row: `(trace, jobs, seed, policy, k, selection, load factor)`."""
    source, jobs, seed, policy, k, selection, factor = item
    size, stream = paper_workload(source, jobs, seed)
    row: dict[str, Any] = {
        "trace": source.name,
        "data": "embedded slice" if source.embedded else "real trace",
        "jobs": jobs,
        "processors": size,
        "policy": policy,
        "k": k,
        "selection": selection,
        "load_factor": factor,
    }
    loaded = with_load_factor(stream, factor)
    if policy.startswith("single-"):
        one = scaled(loaded, 4)
        record = schedule(
            [Job(j.id, j.submit, j.procs, j.requested_time, j.runtime) for j in one],
            Cluster(size),
            policy=policy.removeprefix("single-"),
        )
        ran = [(o.submit, o.start, o.end, o.procs) for o in record.outcomes if o.end is not None]
        starts = [b for _, b, _, _ in ran if b is not None]
        ends = [e for _, _, e, _ in ran]
        span = makespan(starts, ends)
        work = [(e - b) * n for _, b, e, n in ran if b is not None]
        utilisation = raw_utilisation(work, span, size)
        row |= {
            "mean_turnaround": sum(e - s for s, _, e, _ in ran) / len(ran),
            "utilisation": utilisation,
            "effective_utilisation": utilisation,
            "messages": 0,
            "minimum_messages": 0,
        }
    else:
        meta = POLICIES[policy]
        if k < 4 or selection != "load":
            meta = meta.with_copies(k, selection)  # type: ignore[arg-type]
        run = simulate_multisite(loaded, paper_sites(size), meta)
        row |= {
            "mean_turnaround": run.mean_turnaround,
            "utilisation": run.utilisation,
            "effective_utilisation": run.effective_utilisation,
            "messages": run.messages,
            "minimum_messages": run.minimum_messages,
        }
    return row


def _items(
    sources: Sequence[TraceSource], jobs: int, seed: int, load_factors: Sequence[float]
) -> list[tuple[Any, ...]]:
    items: list[tuple[Any, ...]] = []
    for source in sources:
        head = (source, jobs, seed)
        for factor in load_factors:
            for policy in POLICIES:
                k = 1 if policy == "greedy" else 4
                items.append((*head, policy, k, "load", factor))
            for policy in ("single-easy", "single-conservative"):
                items.append((*head, policy, 1, "-", factor))
        factor = load_factors[0]
        for policy in K_POLICIES:
            for k in (1, 2, 3):
                for selection in ("load", "completion"):
                    items.append((*head, policy, k, selection, factor))
            items.append((*head, policy, 4, "completion", factor))
    # Longest first (conservative, high load), so that the workers finish together.
    return sorted(items, key=lambda it: (-("conservative" in it[3] or it[3] == "efficacy"), -it[6]))


def reproduce(
    *,
    traces: Sequence[str] = ("ctc", "sdsc"),
    traces_folder: str | None = None,
    jobs: int = 1000,
    seed: int = 0,
    load_factors: Sequence[float] = LOAD_FACTORS,
    workers: int | None = None,
    show_progress: bool = False,
) -> list[dict[str, Any]]:
    """Run the experiment; one row per (trace, policy, k, selection, load factor).

    Parameters
    ----------
    traces
        `ctc`, `sdsc` or SWF files.
    traces_folder
        Where the named traces are (`--traces`); by default found as
        [`find_trace`][schedlib.workloads.locate.find_trace] says, each
        replaced by its own embedded slice when absent.
    jobs
        The first `jobs` jobs of each trace (the paper: 5000).
    seed
        Seed of the job classes.
    load_factors
        Load factors of the policy comparison; the $K$ sweep uses the first.
    workers
        Processes (`None`: every CPU); the rows are the same for any number.
    show_progress
        A progress bar on standard error (only on a terminal).

    Raises
    ------
    InvalidValueError
        For `jobs < 1`, no load factor, a factor <= 0 or an unknown trace.

    References
    ----------
    Sabin et al. (2003), §3 (workloads, load factors), §4-§7 (policies, $K$,
    site selection, messages).
    """
    if jobs < 1:
        raise InvalidValueError("--jobs", jobs, "must be >= 1")
    if not load_factors or min(load_factors) <= 0:
        raise InvalidValueError("--load-factors", list(load_factors), "must be positive numbers")
    sources = [find_trace(name, folder=traces_folder) for name in traces]
    if len({s.path for s in sources}) < len(sources):
        raise InvalidValueError("--trace", list(traces), "names the same trace twice")
    for source in sources:
        if source.available_jobs is not None and jobs > source.available_jobs:
            load_trace(source, limit=jobs)  # raises, naming the slice and --traces
    items = _items(sources, jobs, seed, load_factors)
    done = [0]

    def advance(index: int, row: dict[str, Any]) -> None:
        done[0] += 1
        bar(done[0])

    with ProgressBar(len(items), NAME, enabled=None if show_progress else False) as bar:
        rows = run_all(run_one, items, workers=workers, on_result=advance)
    order = {name: i for i, name in enumerate([*POLICIES, "single-easy", "single-conservative"])}
    return sorted(
        rows,
        key=lambda r: (r["trace"], r["k"] != 4 and r["policy"] != "greedy", order[r["policy"]],
                       r["k"], r["selection"], r["load_factor"]),
    )  # fmt: skip


def claims(rows: Sequence[dict[str, Any]]) -> list[dict[str, str]]:
    """The paper's findings, each checked on `rows`.

    One row per finding (see [`claim`][schedlib.experiments.claims.claim]).

    Each compares means over the traces and load factors present; a finding
    whose policies are absent from `rows` is `not run`.
    """
    full = {"k": 4, "selection": "load"}
    out = []
    g = mean(rows, "mean_turnaround", policy="greedy-mr", **full)
    c = mean(rows, "mean_turnaround", policy="conservative-mr", **full)
    se = mean(rows, "mean_turnaround", policy="single-easy")
    sc = mean(rows, "mean_turnaround", policy="single-conservative")
    out.append(
        claim(
            "multi-site: conservative (completion-based) multiple requests beat aggressive "
            "(EASY, start-based) ones on turnaround (§5)",
            f"mean turnaround {c:.0f} s vs {g:.0f} s",
            (c < g) if known(g, c) else None,
        )
    )
    out.append(
        claim(
            "in contrast, on a single site aggressive (EASY) backfilling beats conservative "
            "on turnaround for these traces (§5, Fig. 5)",
            f"the four copies on one site: EASY {se:.0f} s vs conservative {sc:.0f} s",
            (se < sc) if known(se, sc) else None,
        )
    )
    e = mean(rows, "mean_turnaround", policy="efficacy", **full)
    eu = mean(rows, "effective_utilisation", policy="efficacy", **full)
    cu = mean(rows, "effective_utilisation", policy="conservative-mr", **full)
    out.append(
        claim(
            "efficacy priority improves turnaround over conservative multiple requests (§6)",
            f"mean turnaround {e:.0f} s vs {c:.0f} s",
            (e < c) if known(e, c) else None,
        )
    )
    out.append(
        claim(
            "efficacy priority improves effective utilisation (§6)",
            f"effective utilisation {eu:.3f} vs {cu:.3f}",
            (eu > cu) if known(eu, cu) else None,
        )
    )
    for policy in K_POLICIES:
        t = {
            k: mean(rows, "mean_turnaround", policy=policy, k=k, selection="load")
            for k in (1, 2, 3)
        }
        lowest = min((r["load_factor"] for r in rows if r["k"] != 4), default=1.0)
        t[4] = mean(
            rows, "mean_turnaround", policy=policy, k=4, selection="load", load_factor=lowest
        )
        gain = t[1] - t[4]
        first = (t[1] - t[2]) / gain if known(gain, t[2]) and gain > 0 else math.nan
        out.append(
            claim(
                f"{policy}: most of the gain of multiple requests comes from K = 1 to K = 2 (§7)",
                f"K=1..4: {', '.join(f'{t[k]:.0f}' for k in (1, 2, 3, 4))} s; "
                f"K=2 takes {first:.0%} of the gain",
                (first > 0.5) if known(first) else None,
            )
        )
        load2 = mean(rows, "mean_turnaround", policy=policy, k=2, selection="load")
        comp2 = mean(rows, "mean_turnaround", policy=policy, k=2, selection="completion")
        out.append(
            claim(
                f"{policy}: choosing sites by completion time makes small K almost as good "
                "as K = 4 (§7)",
                f"K=2 by completion {comp2:.0f} s, by load {load2:.0f} s, K=4 {t[4]:.0f} s",
                (comp2 < load2 and comp2 <= 1.25 * t[4]) if known(comp2, load2, t[4]) else None,
            )
        )
    return out


def plot(rows: Sequence[dict[str, Any]], path: str) -> None:
    """Turnaround against load factor per policy and trace, and turnaround against K.

    Raises
    ------
    SchedlibError
        If matplotlib is missing (names the `plot` extra).
    """
    from schedlib.results.plotting import pyplot, save_figure

    plt = pyplot()
    traces = sorted({r["trace"] for r in rows})
    fig, axes = plt.subplots(len(traces), 3, figsize=(15, 4 * len(traces)), squeeze=False)
    for row_axes, trace in zip(axes, traces, strict=True):
        mine = [r for r in rows if r["trace"] == trace]
        lines = [*POLICIES, "single-easy", "single-conservative"]
        for column, field, label in (
            (0, "mean_turnaround", "mean turnaround (s)"),
            (1, "effective_utilisation", "effective utilisation"),
        ):
            ax = row_axes[column]
            for policy in lines:
                points = sorted(
                    (r["load_factor"], r[field])
                    for r in mine
                    if r["policy"] == policy
                    and r["selection"] != "completion"
                    and (r["k"] == 4 or policy == "greedy" or policy.startswith("single-"))
                )
                if points:
                    ax.plot(*zip(*points, strict=True), marker="o", label=policy)
            ax.set_xlabel("load factor")
            ax.set_ylabel(label)
            ax.set_title(f"{trace}: {label} by load")
            ax.legend(fontsize=7)
        ax = row_axes[2]
        for policy in K_POLICIES:
            for selection in ("load", "completion"):
                points = sorted(
                    (r["k"], r["mean_turnaround"])
                    for r in mine
                    if r["policy"] == policy and r["selection"] == selection
                    and r["load_factor"] == min(x["load_factor"] for x in mine)
                )  # fmt: skip
                if points:
                    ax.plot(*zip(*points, strict=True), marker="o", label=f"{policy}, {selection}")
        ax.set_xlabel("K (copies per job)")
        ax.set_ylabel("mean turnaround (s)")
        ax.set_title(f"{trace}: turnaround by K (lowest load factor)")
        ax.legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, path, dpi=90)


def _factors(text: str) -> list[float]:
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise InvalidValueError("--load-factors", text, "must be comma-separated numbers") from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `schedlib reproduce multisite` (the CLI adds `--format`)."""
    parser.add_argument(
        "--trace",
        default="both",
        help="ctc, sdsc, both (default) or an SWF file; a named trace is read from the traces "
        "folder (--traces), else replaced by its own embedded slice (first 5000 jobs; said in "
        "the rows)",
    )
    parser.add_argument(
        "--traces",
        metavar="DIR",
        default=None,
        help="folder of the real traces (default: $SCHEDLIB_TRACES, else ./shared/traces or "
        "../shared/traces from the working directory)",
    )
    parser.add_argument(
        "--jobs", type=int, default=1000, help="first jobs of each trace (default 1000; paper 5000)"
    )
    parser.add_argument(
        "--load-factors",
        default=",".join(str(f) for f in LOAD_FACTORS),
        help="load factors (default: 1.0 to 2.0 by 0.2)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the job classes (default 0)")
    parser.add_argument("--workers", type=int, default=None, help="processes (default: every CPU)")
    add_claims_argument(parser)
    parser.add_argument("--plot", metavar="FILE", help="also draw the results into FILE (.png)")
    add_quick_argument(
        parser,
        {"jobs": 300, "load_factors": "1.0,1.6"},
        full_time="6 min",
        quick_time="30 s",
    )


def _trace_names(args: argparse.Namespace) -> tuple[str, ...]:
    return ("ctc", "sdsc") if args.trace == "both" else (args.trace,)


def data(args: argparse.Namespace) -> str:
    """The data of a run: each trace, real or embedded slice, with the jobs used."""
    sources = [find_trace(name, folder=args.traces) for name in _trace_names(args)]
    return "; ".join(source.describe(args.jobs) for source in sources) + (
        f"; job classes drawn with seed {args.seed}"
    )


def rows(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The reproduction's rows for parsed options (no printing, no plot)."""
    return reproduce(
        traces=_trace_names(args),
        traces_folder=args.traces,
        jobs=args.jobs,
        seed=args.seed,
        load_factors=_factors(args.load_factors),
        workers=args.workers,
        show_progress=True,
    )


def main(args: argparse.Namespace) -> int:
    """Run the reproduction and print one row per (trace, policy, k, selection, load factor)."""
    note = apply_quick(args)
    check_plot_target(args.plot)
    table = rows(args)
    if args.plot:
        plot(table, args.plot)
    print_note(note, args.format)
    print_results(table, claims(table), args, name=NAME)
    return 0
