"""Reproduction of Verboven et al. (2008) §4: PGS against CoBRA's FCFS on resources that restart.

Eight resources with the uptimes of Table 1 (84 ... 864 s), each restarted
after 1 s and available again 1.2 s after going down on average (§4.2), run
three sets of sleep jobs of 482 minutes each, submitted in increasing order
of size; scenario 0 runs job set 1 on resources that never go down (§4.3).
The total runtime (makespan) of PGS and FCFS is compared, as in Table 2.

```text
schedlib reproduce pgs [--runs N] [--seed S] [--queue-length Q] [--order ORDER]
                       [--resource-order {rejoined,index}] [--workers W]
                       [--format table|json|csv] [--plot out.png]
```

Examples
--------
>>> jobs = job_set(3)
>>> len(jobs), sum(j.runtime for j in jobs) / 60
(240, 482.0)
>>> LOWER_BOUND_MINUTES
60.25
"""

from __future__ import annotations

import argparse
import random
import statistics
from collections.abc import Sequence
from typing import Any

from schedlib.availability.grid import DEFAULT_QUEUE_LENGTH, simulate_volatile_grid
from schedlib.availability.jobs import BagJob
from schedlib.availability.patterns import (
    AvailabilityPattern,
    ResourceAvailability,
    RestartDelay,
)
from schedlib.errors import InvalidValueError
from schedlib.execution.parallel import parallel_map
from schedlib.experiments.claims import claim
from schedlib.experiments.options import (
    add_claims_argument,
    add_quick_argument,
    apply_quick,
    check_plot_target,
    print_note,
    print_results,
)
from schedlib.validation import require

__all__ = [
    "LOWER_BOUND_MINUTES",
    "NAME",
    "ORDERS",
    "PAPER",
    "PAPER_TABLE_2",
    "SCENARIOS",
    "SUMMARY",
    "TABLE_1_UPTIMES",
    "add_arguments",
    "claims",
    "data",
    "job_set",
    "main",
    "paper_resources",
    "plot",
    "reproduce",
    "rows",
    "run_once",
]

NAME = "pgs"
PAPER = "Verboven et al. (2008)"
"""The paper this module reproduces, as cited in tables."""
SUMMARY = "Verboven et al. (2008) §4: PGS vs FCFS on 8 restarting resources (Table 2)"

TABLE_1_UPTIMES: tuple[int, ...] = (84, 117, 163, 228, 318, 443, 619, 864)
"""Uptime of each resource at restart, in seconds (Verboven et al. 2008 §4.2, Table 1)."""

DOWNTIME = 1
"""Seconds a resource stays down before it is restarted (§4.2)."""

STARTUP = RestartDelay(0.2, "uniform")
"""The startup time after the restart: 1 s + 0.2 s on average = the paper's 1.2 s (§4.2)."""

LOWER_BOUND_MINUTES = 482 / 8
"""482 minutes of work on 8 resources: 60 min 15 s (§4.2)."""

SCENARIOS: dict[int, tuple[int, bool]] = {0: (1, False), 1: (1, True), 2: (2, True), 3: (3, True)}
"""Scenario -> (job set, whether resources restart) (§4.3)."""

PAPER_TABLE_2: dict[tuple[int, str], tuple[float, float]] = {
    (0, "pgs"): (63.54, 0.19),
    (1, "pgs"): (65.54, 0.39),
    (2, "pgs"): (68.46, 0.73),
    (3, "pgs"): (87.88, 2.03),
    (0, "fcfs"): (63.21, 0.12),
    (1, "fcfs"): (74.26, 0.63),
    (2, "fcfs"): (87.3, 1.68),
    (3, "fcfs"): (121.83, 2.25),
}
"""(scenario, scheduler) -> (mean total runtime in minutes, standard deviation), Table 2."""

PAPER_DIFFERENCE: dict[int, float] = {0: -0.51, 1: 13.31, 2: 27.51, 3: 38.64}
"""The paper's "Difference" row of Table 2, in percent: (FCFS - PGS) / PGS."""

_SETS = {1: (4, 0.25), 2: (2, 0.5), 3: (1, 1)}  # copies of each size, size step


ORDERS = ("increasing", "shuffled", "decreasing")
"""Orders in which a job set can be submitted (the paper's is `"increasing"`)."""


def job_set(number: int, order: str = "increasing", seed: int = 0) -> tuple[BagJob, ...]:
    """The sleep jobs of job set 1, 2 or 3 (Verboven et al. 2008 §4.2), in submission order.

    Set 1: 960 jobs of 0.25 to 60 s in steps of 0.25 s, 4 of each; set 2: 480
    jobs of 0.5 to 120 s, 2 of each; set 3: 240 jobs of 1 to 240 s. All are
    submitted at time 0; ids follow the submission order, so the queue does.

    Parameters
    ----------
    number
        1, 2 or 3.
    order
        `"increasing"` (the paper's: "a series of increasingly larger sleep
        jobs", §4.2; the copies of one size next to each other),
        `"shuffled"` (a seeded random order) or `"decreasing"`.
    seed
        Seed of the shuffled order.

    Returns
    -------
    tuple of BagJob
        Jobs with exact estimates (sleep jobs).

    Raises
    ------
    InvalidValueError
        For another number or order.

    Examples
    --------
    >>> [j.runtime for j in job_set(1)[:5]]
    [0.25, 0.25, 0.25, 0.25, 0.5]
    >>> [j.runtime for j in job_set(3, "decreasing")[:3]]
    [240, 239, 238]
    """
    if number not in _SETS:
        raise InvalidValueError("job set", number, "must be 1, 2 or 3")
    if order not in ORDERS:
        raise InvalidValueError("order", order, f"must be one of {', '.join(ORDERS)}")
    copies, step = _SETS[number]
    sizes = [step * k for k in range(1, 240 + 1)]
    runtimes = [int(size) if size == int(size) else size for size in sizes for _ in range(copies)]
    if order == "decreasing":
        runtimes.reverse()
    elif order == "shuffled":
        random.Random(f"pgs-order:{seed}").shuffle(runtimes)
    return tuple(BagJob(i, 0, runtime) for i, runtime in enumerate(runtimes))


def paper_resources(restarting: bool = True) -> tuple[ResourceAvailability, ...]:
    """The 8 resources of §4.2: Table 1 uptimes, 1 s down plus a 0.2 s mean startup.

    Parameters
    ----------
    restarting
        `False` gives resources that never go down (scenario 0).

    Returns
    -------
    tuple of ResourceAvailability
        Exact availability: the actual pattern is the planned one.
    """
    if not restarting:
        return tuple(ResourceAvailability(AvailabilityPattern.always_up()) for _ in TABLE_1_UPTIMES)
    return tuple(
        ResourceAvailability(AvailabilityPattern.repeating(up, DOWNTIME), restart=STARTUP)
        for up in TABLE_1_UPTIMES
    )


Item = tuple[int, str, int, int, str, str]


def run_once(item: Item) -> dict[str, Any]:
    """One run: `(scenario, scheduler, seed, queue_length, order, resource_order)` -> measures.

    Module-level so that [`parallel_map`][schedlib.execution.parallel.parallel_map]
    can send it to worker processes.

    Returns
    -------
    dict
        `makespan_minutes`, `failures`, `wasted_seconds`, `abandoned`,
        `unschedulable`.
    """
    scenario, scheduler, seed, queue_length, order, resource_order = item
    number, restarting = SCENARIOS[scenario]
    run = simulate_volatile_grid(
        job_set(number, order, seed),
        paper_resources(restarting),
        policy=scheduler,
        queue_length=queue_length,
        seed=seed,
        resource_order=resource_order,  # type: ignore[arg-type]
    )
    states = [o.state.value if o.state else "lost" for o in run.record.outcomes]
    return {
        "makespan_minutes": run.makespan / 60,
        "failures": run.failures,
        "wasted_seconds": float(run.wasted_work),
        "abandoned": states.count("failed"),
        "unschedulable": states.count("unschedulable"),
    }


def reproduce(
    *,
    runs: int = 10,
    seed: int = 0,
    queue_length: int = DEFAULT_QUEUE_LENGTH,
    scenarios: Sequence[int] = (0, 1, 2, 3),
    order: str = "increasing",
    resource_order: str = "rejoined",
    workers: int | None = None,
) -> list[dict[str, Any]]:
    """Run the experiment; one row per (scenario, scheduler).

    Parameters
    ----------
    runs
        Runs per (scenario, scheduler), seeds `seed`, `seed + 1`, ...; a
        scenario without randomness (no restarts, jobs not shuffled) is run
        once.
    seed
        First seed of the restart delays.
    queue_length
        Jobs a resource holds at once, its running job included (the paper
        does not give CoBRA's setting).
    scenarios
        Which of the scenarios 0-3 to run.
    order
        Submission order of the jobs (see `job_set`).
    resource_order
        `"rejoined"` or `"index"`: the order of the available resources (see
        [`VolatileGridModel`][schedlib.availability.grid.VolatileGridModel]).
    workers
        Processes to use (`None`: every CPU).

    Returns
    -------
    list of dict
        Per row: `scenario`, `scheduler`, `makespan_minutes` (mean), `stdev`,
        `paper_minutes`, `paper_stdev`, `difference_percent` ((FCFS - PGS) /
        PGS, as Table 2), `paper_difference_percent`, `failures` and
        `wasted_seconds` (means per run), `abandoned`, `unschedulable`
        (totals), `lower_bound_minutes`, `runs`.

    Raises
    ------
    InvalidValueError
        For `runs < 1`, `queue_length < 1`, an unknown scenario or order.

    References
    ----------
    Verboven et al. (2008) §4.2-§4.3, Tables 1 and 2.
    """
    require(runs, "runs", at_least=1)
    require(queue_length, "queue_length", at_least=1)
    for scenario in scenarios:
        if scenario not in SCENARIOS:
            raise InvalidValueError("scenario", scenario, "must be 0, 1, 2 or 3")
    if order not in ORDERS:
        raise InvalidValueError("order", order, f"must be one of {', '.join(ORDERS)}")
    if resource_order not in ("rejoined", "index"):
        raise InvalidValueError("resource_order", resource_order, "must be 'rejoined' or 'index'")
    items: list[Item] = []
    for scenario in scenarios:
        random_input = SCENARIOS[scenario][1] or order == "shuffled"
        count = runs if random_input else 1
        for scheduler in ("pgs", "fcfs"):
            items.extend(
                (scenario, scheduler, seed + i, queue_length, order, resource_order)
                for i in range(count)
            )
    results = parallel_map(run_once, items, workers=workers)
    grouped: dict[tuple[int, str], list[dict[str, Any]]] = {}
    for (scenario, scheduler, *_), result in zip(items, results, strict=True):
        grouped.setdefault((scenario, scheduler), []).append(result)
    rows = []
    for scenario in scenarios:
        pgs_mean = statistics.fmean(r["makespan_minutes"] for r in grouped[(scenario, "pgs")])
        fcfs_mean = statistics.fmean(r["makespan_minutes"] for r in grouped[(scenario, "fcfs")])
        difference = 100 * (fcfs_mean - pgs_mean) / pgs_mean
        for scheduler in ("pgs", "fcfs"):
            group = grouped[(scenario, scheduler)]
            spans = [r["makespan_minutes"] for r in group]
            paper_mean, paper_stdev = PAPER_TABLE_2[(scenario, scheduler)]
            rows.append(
                {
                    "scenario": scenario,
                    "scheduler": scheduler,
                    "makespan_minutes": statistics.fmean(spans),
                    "stdev": statistics.stdev(spans) if len(spans) > 1 else 0.0,
                    "paper_minutes": paper_mean,
                    "paper_stdev": paper_stdev,
                    "difference_percent": difference,
                    "paper_difference_percent": PAPER_DIFFERENCE[scenario],
                    "failures": statistics.fmean(r["failures"] for r in group),
                    "wasted_seconds": statistics.fmean(r["wasted_seconds"] for r in group),
                    "abandoned": sum(r["abandoned"] for r in group),
                    "unschedulable": sum(r["unschedulable"] for r in group),
                    "lower_bound_minutes": LOWER_BOUND_MINUTES,
                    "runs": len(group),
                }
            )
    return rows


def plot(rows: Sequence[dict[str, Any]], path: str) -> None:
    """Bar chart of our total runtimes beside the paper's (Table 2, Figure 2).

    Parameters
    ----------
    rows
        Rows of [`reproduce`][schedlib.experiments.pgs.reproduce].
    path
        Output image file.

    Raises
    ------
    SchedlibError
        If matplotlib is missing (names the `plot` extra).
    """
    from schedlib.results.plotting import pyplot, save_figure

    plt = pyplot()
    scenarios = sorted({r["scenario"] for r in rows})
    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.2
    series = [
        ("pgs", "makespan_minutes", "PGS (ours)", "tab:blue", None),
        ("pgs", "paper_minutes", "PGS (paper)", "tab:blue", "//"),
        ("fcfs", "makespan_minutes", "FCFS (ours)", "tab:orange", None),
        ("fcfs", "paper_minutes", "FCFS (paper)", "tab:orange", "//"),
    ]
    for offset, (scheduler, column, label, colour, hatch) in enumerate(series):
        heights = [
            next(r[column] for r in rows if r["scenario"] == s and r["scheduler"] == scheduler)
            for s in scenarios
        ]
        xs = [s + (offset - 1.5) * width for s in scenarios]
        ax.bar(
            xs,
            heights,
            width,
            label=label,
            color=colour,
            hatch=hatch,
            alpha=0.55 if hatch else 1.0,
        )
    ax.axhline(LOWER_BOUND_MINUTES, color="black", linestyle=":", label="lower bound")
    ax.set_xticks(scenarios)
    ax.set_xticklabels([f"scenario {s}" for s in scenarios])
    ax.set_ylabel("total runtime (minutes)")
    ax.set_title("PGS vs FCFS (Verboven et al. 2008, Table 2)")
    ax.legend(fontsize="small")
    fig.tight_layout()
    save_figure(fig, path)


NOISE_PERCENT = 0.5
"""A makespan difference smaller than this (in percent) is noise (the startup times' spread)."""


def claims(rows: Sequence[dict[str, Any]]) -> list[dict[str, str]]:
    """The paper's claims (§4.3, §6), each checked on the rows of a run.

    A claim whose scenarios are absent from `rows` is `not run`.

    Examples
    --------
    >>> rows = [{"scenario": s, "scheduler": k, "difference_percent": d, "failures": f,
    ...          "paper_difference_percent": 0.0}
    ...         for s, d in ((0, 0.0), (1, 0.7), (2, 2.9), (3, 8.6))
    ...         for k, f in (("pgs", 0), ("fcfs", 0 if s == 0 else 150))]
    >>> [c["verdict"] for c in claims(rows)]
    ['holds', 'holds', 'holds', 'holds']
    """
    gain = {r["scenario"]: r["difference_percent"] for r in rows}
    paper = {r["scenario"]: r["paper_difference_percent"] for r in rows}
    failures = {(r["scenario"], r["scheduler"]): r["failures"] for r in rows}
    restarting = [s for s in (1, 2, 3) if s in gain]

    def listed(values: dict[int, float], scenarios: Sequence[int]) -> str:
        return ", ".join(f"{values[s]:+.2f} %" for s in scenarios)

    scenarios = sorted(gain)
    out = [
        claim(
            "PGS is never worse than FCFS, beyond noise (§4.3, §6)",
            f"makespan gain of PGS over FCFS, scenarios {scenarios}: {listed(gain, scenarios)}",
            all(gain[s] > -NOISE_PERCENT for s in scenarios) if scenarios else None,
        ),
        claim(
            "the advantage grows with the job length: scenario 1 < 2 < 3 (Table 2)",
            f"{listed(gain, restarting)} (paper {listed(paper, restarting)})",
            (gain[1] < gain[2] < gain[3]) if len(restarting) == 3 else None,
        ),
        claim(
            "the advantage comes from FCFS's failures: PGS never runs a job into a "
            "resource's downtime (§4.3)",
            "failures per run, PGS / FCFS: "
            + ", ".join(
                f"{failures.get((s, 'pgs'), 0):g} / {failures.get((s, 'fcfs'), 0):g}"
                for s in restarting
            ),
            all(failures.get((s, "pgs"), 0) == 0 < failures.get((s, "fcfs"), 0) for s in restarting)
            if restarting
            else None,
        ),
        claim(
            "no overhead when the resources stay up (scenario 0, §4.3)",
            f"difference {gain[0]:+.2f} %" if 0 in gain else "-",
            abs(gain[0]) < NOISE_PERCENT if 0 in gain else None,
        ),
    ]
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `schedlib reproduce pgs` (the CLI adds `--format`)."""
    parser.add_argument(
        "--runs", type=int, default=10, help="runs per scenario and scheduler (default: 10)"
    )
    parser.add_argument("--seed", type=int, default=0, help="first seed (default: 0)")
    parser.add_argument(
        "--queue-length",
        type=int,
        default=DEFAULT_QUEUE_LENGTH,
        metavar="Q",
        help=f"jobs a resource holds, running one included (default: {DEFAULT_QUEUE_LENGTH})",
    )
    parser.add_argument(
        "--order",
        choices=ORDERS,
        default="increasing",
        help="submission order of the jobs (default: increasing, as in the paper)",
    )
    parser.add_argument(
        "--resource-order",
        choices=("rejoined", "index"),
        default="rejoined",
        help="order of the available resources: by the time they last came up "
        "(default) or by index",
    )
    parser.add_argument("--workers", type=int, default=None, help="processes (default: every CPU)")
    parser.add_argument("--plot", metavar="FILE", help="also draw the bar chart to FILE (.png)")
    add_claims_argument(parser)
    add_quick_argument(parser, {"runs": 2}, full_time="15 s", quick_time="2 s")


def data(args: argparse.Namespace) -> str:
    """The data of a run: the paper's job sets on Table 1's resources, and the replicates."""
    return (
        f"synthetic: the paper's three job sets on Table 1's eight resources; "
        f"{args.runs} runs (seed {args.seed}, replicates 0..{args.runs - 1})"
    )


def rows(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The reproduction's rows for parsed options (no printing, no plot)."""
    return reproduce(
        runs=args.runs,
        seed=args.seed,
        queue_length=args.queue_length,
        order=args.order,
        resource_order=args.resource_order,
        workers=args.workers,
    )


def main(args: argparse.Namespace) -> int:
    """Run the reproduction and print one row per (scenario, scheduler)."""
    note = apply_quick(args)
    check_plot_target(args.plot)
    table = rows(args)
    if args.plot:
        plot(table, args.plot)
    print_note(note, args.format)
    print_results(table, claims(table), args, name=NAME)
    return 0
