"""The runs of the PGS reproduction: one run, the grid of runs, and their summaries.

[`reproduce`][schedlib.experiments.pgs.reproduce] runs every (reading, scenario,
scheduler, replicate), each distinct simulation once, and adds one summary row
per (reading, scenario, scheduler) beside the paper's Table 2.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from schedlib.availability.grid import DEFAULT_QUEUE_LENGTH, simulate_volatile_grid
from schedlib.errors import InvalidValueError
from schedlib.execution.parallel import parallel_map
from schedlib.experiments.pgs.setup import (
    _SETS,
    LOWER_BOUND_MINUTES,
    PAPER_DIFFERENCE,
    PAPER_READING,
    PAPER_TABLE_2,
    READINGS,
    SCENARIOS,
    SCHEDULERS,
    Reading,
    reading_name,
    replicate_inputs,
)
from schedlib.validation import require


def _deterministic(reading: Reading, scenario: int) -> bool:
    """Whether a scenario's runs under `reading` draw nothing (no restart, no shuffle)."""
    return not SCENARIOS[scenario][1] and not reading.random_order


def _effective(reading: Reading, scenario: int, scheduler: str) -> Reading:
    """The simplest reading that gives the same run as `reading` for this scenario and scheduler.

    Sweeps are the increasing order for job set 3 (one copy of each size);
    phases do not matter to resources that never go down; FCFS never reads
    an estimate, so whether the overhead is known makes no difference to it.
    Runs that are the same are simulated once (a test checks each rule).
    """
    number, restarting = SCENARIOS[scenario]
    order = reading.order
    if order == "sweeps" and _SETS[number][0] == 1:
        order = "increasing"
    return Reading(
        order,
        reading.overhead,
        reading.overhead_known and scheduler == "pgs" and reading.overhead > 0,
        reading.phases if restarting else "zero",
    )


Item = tuple[int, str, Reading, int, int, int, str]


def run_once(item: Item) -> dict[str, Any]:
    """One run: `(scenario, scheduler, reading, seed, replicate, queue_length, resource_order)`.

    Module-level so that [`parallel_map`][schedlib.execution.parallel.parallel_map]
    can send it to worker processes.

    Returns
    -------
    dict
        `makespan_minutes`, `failures`, `wasted_seconds`, `abandoned`,
        `unschedulable`.
    """
    scenario, scheduler, reading, seed, replicate, queue_length, resource_order = item
    jobs, resources, restart_seed = replicate_inputs(reading, scenario, seed, replicate)
    run = simulate_volatile_grid(
        jobs,
        resources,
        policy=scheduler,
        queue_length=queue_length,
        seed=restart_seed,
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
    runs: int = 20,
    seed: int = 0,
    queue_length: int = DEFAULT_QUEUE_LENGTH,
    scenarios: Sequence[int] = (0, 1, 2, 3),
    reading: Reading = PAPER_READING,
    compare: Sequence[str] = (),
    resource_order: str = "rejoined",
    workers: int | None = None,
) -> list[dict[str, Any]]:
    """Run the experiment: one row per (reading, scenario, scheduler, replicate), then summaries.

    Parameters
    ----------
    runs
        Independent replicates $0, \\dots, R - 1$ per (scenario, scheduler).
        A scenario that draws nothing (no restart, no shuffle) is simulated
        once and its result given to every replicate.
    seed
        The run's seed (replicate $r$ draws from `stream(seed, r, ...)`).
    queue_length
        Jobs a resource holds at once, its running job included (the paper
        does not give CoBRA's setting).
    scenarios
        Which of the scenarios 0-3 to run.
    reading
        The reading the claims are judged on (rows with `main` true).
    compare
        Names of further [`READINGS`][schedlib.experiments.pgs.READINGS] to run
        (one equal to `reading` is not run twice).
    resource_order
        `"rejoined"` or `"index"`: the order of the available resources (see
        [`VolatileGridModel`][schedlib.availability.grid.VolatileGridModel]).
    workers
        Processes to use (`None`: every CPU).

    Returns
    -------
    list of dict
        First one row per (reading, scenario, scheduler, replicate):
        `scenario`, `scheduler`, `reading`, `main`, `replicate`,
        `makespan_minutes`, `failures`, `wasted_seconds`, `abandoned`,
        `unschedulable`. Then one summary row per (reading, scenario,
        scheduler), without `replicate`: `runs`, `makespan_minutes` (mean),
        `stdev`, `paper_minutes`, `paper_stdev`, `difference_percent`
        ((FCFS - PGS) / PGS of the means, as Table 2),
        `paper_difference_percent`, `failures` and `wasted_seconds` (means per
        run), `abandoned`, `unschedulable` (totals), `lower_bound_minutes`.

    Raises
    ------
    InvalidValueError
        For `runs < 1`, `queue_length < 1`, an unknown scenario, reading or
        resource order.

    References
    ----------
    Verboven et al. (2008) §4.2-§4.3, Tables 1 and 2.
    """
    require(runs, "runs", at_least=1)
    require(queue_length, "queue_length", at_least=1)
    for scenario in scenarios:
        if scenario not in SCENARIOS:
            raise InvalidValueError("scenario", scenario, "must be 0, 1, 2 or 3")
    for name in compare:
        if name not in READINGS:
            raise InvalidValueError("reading", name, f"must be one of {', '.join(READINGS)}")
    if resource_order not in ("rejoined", "index"):
        raise InvalidValueError("resource_order", resource_order, "must be 'rejoined' or 'index'")
    order = resource_order
    plan = [(reading_name(reading), reading, True)]
    plan += [(n, READINGS[n], False) for n in dict.fromkeys(compare) if READINGS[n] != reading]
    unique: dict[Item, int] = {}
    cells: list[tuple[str, bool, int, str, int, Item]] = []
    for name, r, main in plan:
        for scenario in scenarios:
            for scheduler in SCHEDULERS:
                for replicate in range(runs):
                    simulated = 0 if _deterministic(r, scenario) else replicate
                    same = _effective(r, scenario, scheduler)
                    item = (scenario, scheduler, same, seed, simulated, queue_length, order)
                    unique.setdefault(item, len(unique))
                    cells.append((name, main, scenario, scheduler, replicate, item))
    results = parallel_map(run_once, list(unique), workers=workers)
    table = [
        {"scenario": s, "scheduler": k, "reading": name, "main": main, "replicate": replicate,
         **results[unique[item]]}
        for name, main, s, k, replicate, item in cells
    ]  # fmt: skip
    return table + _summaries(table)


def _summaries(replicates: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per (reading, scenario, scheduler): means, spreads and the paper's figures."""
    groups: dict[tuple[str, int, str], list[Mapping[str, Any]]] = {}
    main: dict[str, bool] = {}
    for row in replicates:
        groups.setdefault((row["reading"], row["scenario"], row["scheduler"]), []).append(row)
        main[row["reading"]] = row["main"]
    out = []
    for (name, scenario, scheduler), group in groups.items():
        spans = [r["makespan_minutes"] for r in group]
        means = {
            k: statistics.fmean(r["makespan_minutes"] for r in groups[(name, scenario, k)])
            for k in SCHEDULERS
        }
        paper_mean, paper_stdev = PAPER_TABLE_2[(scenario, scheduler)]
        out.append(
            {
                "scenario": scenario,
                "scheduler": scheduler,
                "reading": name,
                "main": main[name],
                "runs": len(group),
                "makespan_minutes": statistics.fmean(spans),
                "stdev": statistics.stdev(spans) if len(spans) > 1 else 0.0,
                "paper_minutes": paper_mean,
                "paper_stdev": paper_stdev,
                "difference_percent": 100 * (means["fcfs"] - means["pgs"]) / means["pgs"],
                "paper_difference_percent": PAPER_DIFFERENCE[scenario],
                "failures": statistics.fmean(r["failures"] for r in group),
                "wasted_seconds": statistics.fmean(r["wasted_seconds"] for r in group),
                "abandoned": sum(r["abandoned"] for r in group),
                "unschedulable": sum(r["unschedulable"] for r in group),
                "lower_bound_minutes": LOWER_BOUND_MINUTES,
            }
        )
    return out
