"""The runs of the PGS reproduction: one run, the grid of runs, and their summaries.

[`reproduce`][schedlib.experiments.pgs.reproduce] runs every (reading, scenario,
scheduler, replicate) through [`run_grid`][schedlib.experiments.running.run_grid]
(locally, on a dask cluster, resumable), each distinct simulation once, and adds one
summary row per (reading, scenario, scheduler) beside the paper's Table 2. A run that
draws nothing (scenario 0, whose resources never go down, with a fixed order) is one
row, marked `deterministic`: no replicate could change it.
"""

from __future__ import annotations

import hashlib
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from schedlib.availability.grid import simulate_volatile_grid
from schedlib.availability.idle import idle_by_resource
from schedlib.errors import InvalidValueError
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
from schedlib.experiments.running import Execution, run_grid
from schedlib.validation import require

PER_RESOURCE = ("busy_minutes", "idle_minutes", "down_minutes", "last_start_minutes")
"""The per-resource fields of a run's row (one value per resource of Table 1, in order)."""


def deterministic(reading: Reading, scenario: int, scheduler: str) -> bool:
    """Whether `scheduler`'s run of `scenario` under `reading` draws nothing: no restart (the
    resources never go down) and no shuffled order. Such a run is done once (n = 1).

    Examples
    --------
    >>> deterministic(Reading(), 0, "pgs"), deterministic(Reading(), 1, "pgs")
    (True, False)
    >>> deterministic(Reading(pgs_order="shuffled"), 0, "pgs")
    False
    """
    return not SCENARIOS[scenario][1] and not reading.random_order(scheduler)


def _effective(reading: Reading, scenario: int, scheduler: str) -> Reading:
    """The simplest reading that gives the same run as `reading` for this scenario and scheduler.

    Sweeps are the increasing order for job set 3 (one copy of each size);
    phases do not matter to resources that never go down; FCFS never reads an
    estimate, so whether the overhead is known makes no difference to it, and it
    takes the jobs in the submission order whatever PGS's order and step 1 are;
    a PGS order equal to the submission order is no separate order. Runs that
    are the same are simulated once (a test checks each rule).
    """
    number, restarting = SCENARIOS[scenario]

    def simplest(order: str) -> str:
        return "increasing" if order == "sweeps" and _SETS[number][0] == 1 else order

    pgs = scheduler == "pgs"
    pgs_order = simplest(reading.order_for("pgs")) if pgs else None
    return Reading(
        simplest(reading.order),
        reading.overhead,
        reading.overhead_known and pgs and reading.overhead > 0,
        reading.phases if restarting else "zero",
        pgs_order if pgs_order != simplest(reading.order) else None,
        reading.queue_length,
        reading.first_job if pgs else "idle",
    )


@attrs.frozen
class Task:
    """One run of the grid: what [`run_once`][schedlib.experiments.pgs.run_once] simulates.

    Its `repr` is its key in a resume file (attrs classes of plain values print the same
    in every process).

    Attributes
    ----------
    scenario
        0-3 (§4.3).
    scheduler
        `"pgs"` or `"fcfs"`.
    reading
        The [`Reading`][schedlib.experiments.pgs.Reading] (the simplest one giving the
        same run).
    seed, replicate
        Replicate `replicate` of `--seed seed` (0 and 0 for a deterministic run).
    resource_order
        `"rejoined"` or `"index"` (see
        [`VolatileGridModel`][schedlib.availability.grid.VolatileGridModel]).
    """

    scenario: int
    scheduler: str
    reading: Reading
    seed: int
    replicate: int
    resource_order: str = "rejoined"

    @property
    def cost(self) -> float:
        """The expected cost of the run: its jobs, PGS's mapping about 1.5 times FCFS's."""
        copies, _ = _SETS[SCENARIOS[self.scenario][0]]
        return 240 * copies * (1.5 if self.scheduler == "pgs" else 1.0)


def _digest(outcomes: Sequence[Any]) -> str:
    """A digest of every job's schedule (start, end, resource, failures): equal digests mean
    the same schedule."""
    text = ";".join(
        f"{o.job}:{o.start!r}:{o.end!r}:{tuple(o.place)}:{o.failures}" for o in outcomes
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def run_once(task: Task) -> dict[str, Any]:
    """One run (module-level, so that local processes and dask workers import it by name).

    Returns
    -------
    dict
        `makespan_minutes`, `failures`, `wasted_seconds`, `abandoned`,
        `unschedulable`, `schedule` (a digest of every job's start, end, resource
        and failures: two runs with the same digest made the same schedule), and per
        resource of Table 1, in order (see
        [`idle_by_resource`][schedlib.availability.idle.idle_by_resource]):
        `busy_minutes`, `idle_minutes` (up with nothing to run), `down_minutes` and
        `last_start_minutes` (when it started its last job; `None` if it ran none).
    """
    reading = task.reading
    jobs, resources, restart_seed = replicate_inputs(
        reading, task.scenario, task.seed, task.replicate, task.scheduler
    )
    run = simulate_volatile_grid(
        jobs,
        resources,
        policy=reading.policy(task.scheduler),
        queue_length=reading.queue_length,
        seed=restart_seed,
        resource_order=task.resource_order,  # type: ignore[arg-type]
    )
    states = [o.state.value if o.state else "lost" for o in run.record.outcomes]
    split = idle_by_resource(run.record, run.up_periods)

    def minutes(value: float | None) -> float | None:
        return None if value is None else float(value) / 60

    return {
        "makespan_minutes": run.makespan / 60,
        "failures": run.failures,
        "wasted_seconds": float(run.wasted_work),
        "abandoned": states.count("failed"),
        "unschedulable": states.count("unschedulable"),
        "schedule": _digest(run.record.outcomes),
        "busy_minutes": [minutes(r.busy) for r in split],
        "idle_minutes": [minutes(r.idle) for r in split],
        "down_minutes": [minutes(r.down) for r in split],
        "last_start_minutes": [minutes(r.last_start) for r in split],
    }


def reproduce(
    *,
    runs: int = 20,
    seed: int = 0,
    scenarios: Sequence[int] = (0, 1, 2, 3),
    reading: Reading = PAPER_READING,
    compare: Sequence[str] = (),
    resource_order: str = "rejoined",
    execution: Execution | None = None,
    workers: int | None = None,
) -> list[dict[str, Any]]:
    """Run the experiment: one row per (reading, scenario, scheduler, replicate), then summaries.

    Parameters
    ----------
    runs
        Independent replicates $0, \\dots, R - 1$ per (scenario, scheduler).
        A run that draws nothing (no restart, no shuffle) is simulated once and
        is one row (`deterministic`, replicate 0).
    seed
        The run's seed (replicate $r$ draws from `stream(seed, r, ...)`).
    scenarios
        Which of the scenarios 0-3 to run.
    reading
        The reading the claims are judged on (rows with `main` true); its
        `queue_length` is the jobs a resource holds.
    compare
        Names of further [`READINGS`][schedlib.experiments.pgs.READINGS] to run
        (one equal to `reading` is not run twice).
    resource_order
        `"rejoined"` or `"index"`: the order of the available resources (see
        [`VolatileGridModel`][schedlib.availability.grid.VolatileGridModel]).
    execution
        Where the grid runs (local processes, a dask cluster, a resume file: see
        [`Execution`][schedlib.experiments.running.Execution]); default: `workers`
        local processes.
    workers
        Local processes when `execution` is not given (`None`: every CPU).

    Returns
    -------
    list of dict
        First one row per (reading, scenario, scheduler, replicate):
        `scenario`, `scheduler`, `reading`, `main`, `replicate`, `deterministic`,
        and the fields of [`run_once`][schedlib.experiments.pgs.run_once]. Then one
        summary row per (reading, scenario, scheduler), without `replicate`:
        `runs` (1 for a deterministic run), `makespan_minutes` (mean), `stdev`,
        `paper_minutes`, `paper_stdev`, `difference_percent` ((FCFS - PGS) / PGS
        of the means, as Table 2), `paper_difference_percent`, `failures` and
        `wasted_seconds` (means per run), `abandoned`, `unschedulable` (totals),
        `lower_bound_minutes`, and the per-resource fields averaged over the runs.

    Raises
    ------
    InvalidValueError
        For `runs < 1`, an unknown scenario, reading or resource order.

    References
    ----------
    Verboven et al. (2008) §4.2-§4.3, Tables 1 and 2.
    """
    require(runs, "runs", at_least=1)
    for scenario in scenarios:
        if scenario not in SCENARIOS:
            raise InvalidValueError("scenario", scenario, "must be 0, 1, 2 or 3")
    for name in compare:
        if name not in READINGS:
            raise InvalidValueError("reading", name, f"must be one of {', '.join(READINGS)}")
    if resource_order not in ("rejoined", "index"):
        raise InvalidValueError("resource_order", resource_order, "must be 'rejoined' or 'index'")
    plan = [(reading_name(reading), reading, True)]
    plan += [(n, READINGS[n], False) for n in dict.fromkeys(compare) if READINGS[n] != reading]
    cells: list[tuple[str, bool, int, str, int, bool, Task]] = []
    for name, r, main in plan:
        for scenario in scenarios:
            for scheduler in SCHEDULERS:
                once = deterministic(r, scenario, scheduler)
                same = _effective(r, scenario, scheduler)
                for replicate in range(1 if once else runs):
                    task = Task(
                        scenario, scheduler, same, 0 if once else seed,
                        0 if once else replicate, resource_order,
                    )  # fmt: skip
                    cells.append((name, main, scenario, scheduler, replicate, once, task))
    tasks = [cell[-1] for cell in cells]
    where = execution if execution is not None else Execution(workers=workers)
    results = run_grid(run_once, tasks, where, key=repr, cost=lambda t: t.cost)
    table = [
        {"scenario": s, "scheduler": k, "reading": name, "main": main, "replicate": replicate,
         "deterministic": once, **result}
        for (name, main, s, k, replicate, once, _), result in zip(cells, results, strict=True)
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
                **{field: _per_resource_mean(group, field) for field in PER_RESOURCE},
            }
        )
    return out


def _per_resource_mean(group: Sequence[Mapping[str, Any]], field: str) -> list[float | None]:
    """The mean over the runs of `group` of each resource's `field` (`None` where a run has
    none, e.g. a resource that never started a job)."""
    columns = zip(*(r[field] for r in group), strict=True)
    return [
        None if any(v is None for v in values) else statistics.fmean(values) for values in columns
    ]
