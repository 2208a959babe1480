"""The runs of the frequency reproduction: one run, the comparison and the sweep.

[`reproduce`][schedlib.experiments.frequency.reproduce] runs the comparison (every
policy under each reading, per replicate, and their aggregates) and the sweep
over $Q$ and `MAX_MF`, each cell judged on the three tests of the hypothesis.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from schedlib.errors import InvalidValueError
from schedlib.experiments.frequency.setup import (
    _MEASURES,
    DEFAULT_COST,
    DEFAULT_SHAPE,
    HYPOTHESIS,
    MAX_MF,
    POOL,
    QUANTUM,
    REPLICATES,
    SWEEP_MAX_MFS,
    SWEEP_QUANTA,
    SWEEP_READINGS,
    WorkloadShape,
    make_workload,
    measure,
)
from schedlib.experiments.running import Execution, float_tuple, int_tuple, run_grid
from schedlib.frequency.cost import MigrationCost
from schedlib.frequency.pfs import DEFAULT_GRACE
from schedlib.frequency.policies import Readings
from schedlib.frequency.simulation import simulate_pool
from schedlib.replicates import stream_seed
from schedlib.results.verdicts import (
    ClaimTest,
    MeanEstimate,
    Part,
    Tie,
    judge,
    paired_difference,
)
from schedlib.validation import at_least


@attrs.frozen(slots=True)
class Run:
    """One simulation: one task of the grid (picklable; equal runs are run once)."""

    policy: str
    seed: int
    replicate: int
    quantum: float
    max_mf: int
    readings: Readings
    max_preemption: int
    grace: float
    cost: MigrationCost
    shape: WorkloadShape


def run_one(run: Run) -> dict[str, float | str]:
    """Simulate one [`Run`][schedlib.experiments.frequency.Run] and return its measures
    (module-level, so that a dask worker imports it by name)."""
    record = simulate_pool(
        make_workload(run.seed, run.replicate, run.shape),
        POOL,
        policy=run.policy,
        quantum=run.quantum,
        grace=run.grace,
        max_preemption=run.max_preemption,
        max_mf=run.max_mf,
        cost=run.cost,
        readings=run.readings,
        seed=stream_seed(run.seed, run.replicate, "ties"),
    )
    return measure(record)


def run_key(run: Run) -> str:
    """A run's key in a resume file: policy, reading, replicate, $Q$ and `MAX_MF` (the other
    parameters are the file's options).

    Examples
    --------
    >>> run_key(Settings().run("pfs+mfs", 3, Readings()))
    'pfs+mfs head-node/always/availability r3 Q=1 MAX_MF=4'
    """
    return (
        f"{run.policy} {run.readings.label} r{run.replicate} Q={run.quantum:g} MAX_MF={run.max_mf}"
    )


def run_cost(run: Run) -> float:
    """A run's expected cost: quanta per second of work (the shortest quanta go first).

    Examples
    --------
    >>> settings = Settings()
    >>> run_cost(settings.run("pfs", 0, Readings(), quantum=0.5)) > run_cost(
    ...     settings.run("pfs", 0, Readings(), quantum=4.0))
    True
    """
    return 1.0 / run.quantum


def _readings(value: Iterable[Readings]) -> tuple[Readings, ...]:
    return tuple(value)


@attrs.frozen(slots=True)
class Settings:
    """What `reproduce` runs (defaults: the documented full-size run).

    Attributes
    ----------
    replicates, seed
        Replicates `(seed, 0..replicates-1)`.
    quantum, max_mf
        $Q$ and `MAX_MF` of the comparison.
    max_preemption, grace, cost, shape
        `MAX_PREEMPTION`, $g$, $K_C$ and $K_{C/R}$, the workload.
    readings
        The readings the comparison runs `pfs+mfs` under.
    quanta, max_mfs
        The sweep's grid.
    sweep_readings
        The readings the sweep runs under (empty: no sweep).
    """

    replicates: int = attrs.field(default=REPLICATES, validator=at_least(1))
    seed: int = attrs.field(default=0, validator=at_least(0))
    quantum: float = QUANTUM
    max_mf: int = MAX_MF
    max_preemption: int = 3
    grace: float = DEFAULT_GRACE
    cost: MigrationCost = DEFAULT_COST
    shape: WorkloadShape = DEFAULT_SHAPE
    readings: tuple[Readings, ...] = attrs.field(default=Readings.every(), converter=_readings)
    quanta: tuple[float, ...] = attrs.field(default=SWEEP_QUANTA, converter=float_tuple)
    max_mfs: tuple[int, ...] = attrs.field(default=SWEEP_MAX_MFS, converter=int_tuple)
    sweep_readings: tuple[Readings, ...] = attrs.field(default=SWEEP_READINGS, converter=_readings)

    def run(self, policy: str, replicate: int, readings: Readings, **grid: Any) -> Run:
        """The run of `policy` in one replicate (`quantum`, `max_mf` overridable)."""
        return Run(
            policy,
            self.seed,
            replicate,
            grid.get("quantum", self.quantum),
            grid.get("max_mf", self.max_mf),
            readings,
            self.max_preemption,
            self.grace,
            self.cost,
            self.shape,
        )


BASELINES = ("round_robin", "fcfs")
_STATIC = "-"


def _without_mfs(readings: Readings) -> Readings:
    """The readings `pfs` runs under (it has no MFS: the default MFS reading)."""
    return attrs.evolve(readings, mfs="availability")


def _label(policy: str, readings: Readings) -> str:
    """The readings column of a row: `-` where a reading does not apply."""
    if policy in BASELINES:
        return _STATIC
    if policy == "pfs":
        return f"{readings.next_burst}/{readings.remote_queue}/-"
    return readings.label


def _comparison(settings: Settings) -> list[tuple[str, Readings]]:
    """(policy, readings) of the comparison, in the order of its rows."""
    pfs = list(dict.fromkeys(_without_mfs(r) for r in settings.readings))
    return [
        *(("pfs", r) for r in pfs),
        *(("pfs+mfs", r) for r in settings.readings),
        *((policy, Readings()) for policy in BASELINES),
    ]


def _validate(settings: Settings) -> None:
    """Fail early, in this process, on bad parameters (before any worker starts)."""
    if not settings.readings:
        raise InvalidValueError("readings", (), "the comparison needs at least one reading")
    if settings.sweep_readings and not (settings.quanta and settings.max_mfs):
        raise InvalidValueError(
            "quanta / max_mfs", (settings.quanta, settings.max_mfs), "must not be empty"
        )
    for quantum in (settings.quantum, *settings.quanta):
        for max_mf in (settings.max_mf, *settings.max_mfs):
            simulate_pool(
                [],
                POOL,
                policy="pfs+mfs",
                quantum=quantum,
                grace=settings.grace,
                max_preemption=settings.max_preemption,
                max_mf=max_mf,
                cost=settings.cost,
            )


def _run_all(runs: Sequence[Run], execution: Execution | None) -> dict[Run, dict[str, Any]]:
    unique = list(dict.fromkeys(runs))
    results = run_grid(run_one, unique, execution, key=run_key, cost=run_cost)
    return dict(zip(unique, results, strict=True))


def _sd(values: Sequence[float]) -> float:
    return statistics.stdev(values) if len(values) > 1 else 0.0


def reproduce(
    settings: Settings = Settings(), execution: Execution | None = None
) -> list[dict[str, Any]]:
    """The comparison and the sweep (see the module notes): their rows.

    Each distinct run is simulated once, as one task of
    [`run_grid`][schedlib.experiments.running.run_grid] (the shortest quanta first).

    Parameters
    ----------
    settings
        What runs.
    execution
        Where the runs go (local processes, a dask cluster, resumed from a file: see
        [`Execution`][schedlib.experiments.running.Execution]; `None`: every local CPU);
        the rows do not depend on it.

    Returns
    -------
    list of dict
        The comparison's rows (per replicate, then an aggregate per
        configuration), then the sweep's.

    Raises
    ------
    InvalidValueError
        For a bad parameter.
    """
    _validate(settings)
    replicates = range(settings.replicates)
    comparison = _comparison(settings)
    runs = [settings.run(p, r, read) for p, read in comparison for r in replicates]
    for read in settings.sweep_readings:
        for q in settings.quanta:
            runs += [settings.run("pfs", r, _without_mfs(read), quantum=q) for r in replicates]
            for m in settings.max_mfs:
                runs += [settings.run("pfs+mfs", r, read, quantum=q, max_mf=m) for r in replicates]
    results = _run_all(runs, execution)
    out: list[dict[str, Any]] = []
    for policy, read in comparison:
        head = {
            "part": "compare",
            "policy": policy,
            "readings": _label(policy, read),
            "quantum": settings.quantum,
            "max_mf": settings.max_mf,
            "seed": settings.seed,
        }
        values = [results[settings.run(policy, r, read)] for r in replicates]
        out += [{**head, "replicate": r, **v} for r, v in zip(replicates, values, strict=True)]
        out.append(
            {
                **head,
                "replicate": "mean",
                "replicates": settings.replicates,
                **{m: statistics.fmean(v[m] for v in values) for m in _MEASURES},
                **{f"{m}_sd": _sd([v[m] for v in values]) for m in _SPREAD},
            }
        )
    out += _sweep_rows(settings, results)
    return out


_SPREAD = ("cpu_turnaround", "response", "short_response")


def _sweep_rows(settings: Settings, results: Mapping[Run, dict[str, Any]]) -> list[dict[str, Any]]:
    replicates = range(settings.replicates)
    cells: list[dict[str, Any]] = []
    tests: list[ClaimTest] = []
    for read in settings.sweep_readings:
        for q in settings.quanta:
            old = [
                results[settings.run("pfs", r, _without_mfs(read), quantum=q)] for r in replicates
            ]
            for m in settings.max_mfs:
                new = [
                    results[settings.run("pfs+mfs", r, read, quantum=q, max_mf=m)]
                    for r in replicates
                ]
                row: dict[str, Any] = {
                    "part": "sweep",
                    "policy": "pfs+mfs",
                    "readings": read.label,
                    "quantum": q,
                    "max_mf": m,
                    "seed": settings.seed,
                    "replicates": settings.replicates,
                }
                for key, column, _, expect in HYPOTHESIS:
                    change = _change(new, old, column)
                    estimate = change if isinstance(change, MeanEstimate) else None
                    row[f"pfs_{column}"] = statistics.fmean(v[column] for v in old)
                    row[column] = statistics.fmean(v[column] for v in new)
                    row[f"{key}_change_pct"] = math.nan if estimate is None else estimate.mean
                    row[f"{key}_half_width"] = (
                        math.nan if estimate is None else estimate.half_width()
                    )
                    tests.append(ClaimTest(change, expect))
                row["pfs_migrations"] = statistics.fmean(v["migrations"] for v in old)
                row["migrations"] = statistics.fmean(v["migrations"] for v in new)
                row["banned"] = statistics.fmean(v["banned"] for v in new)
                cells.append(row)
    verdicts = [j.verdict for j in judge(tests)]
    width = len(HYPOTHESIS)
    for i, row in enumerate(cells):
        mine = verdicts[i * width : (i + 1) * width]
        for (key, *_), verdict in zip(HYPOTHESIS, mine, strict=True):
            row[f"{key}_verdict"] = verdict
        row["verdict"] = conjunction(mine)
    return cells


TIE = "identical schedules in every replicate"
"""Why a comparison is a tie."""


def _change(
    new: Sequence[Mapping[str, Any]], old: Sequence[Mapping[str, Any]], column: str
) -> Part:
    """The per-replicate change of `column`, in percent of the old value: a
    [`Tie`][schedlib.results.verdicts.Tie] when both sides made the same schedule in every
    replicate, `None` when undefined (a NaN or a zero baseline)."""
    if new and all(
        a.get("schedule") is not None and a.get("schedule") == b.get("schedule")
        for a, b in zip(new, old, strict=True)
    ):
        return Tie(TIE)
    pairs = [(_number(a[column]), _number(b[column])) for a, b in zip(new, old, strict=True)]
    if not pairs or any(math.isnan(a) or math.isnan(b) or b == 0 for a, b in pairs):
        return None
    return paired_difference([a for a, _ in pairs], [b for _, b in pairs], relative=True)


def _number(value: Any) -> float:
    return math.nan if value is None else float(value)


def conjunction(verdicts: Sequence[str]) -> str:
    """The verdict of "every part holds" from the parts' verdicts, each already corrected
    for its family (Holm): an intersection-union, which needs no further correction.

    It holds when every part holds and does not hold when one part does not (both keep
    the family's error rate, as each part's verdict does); a part that is a tie (identical
    schedules) is no evidence, so the whole is a tie when every part is, else inconclusive
    unless another part does not hold.
    [`Configurations`][schedlib.results.verdicts.Configurations] is the same rule for parts
    that share one expectation; the hypothesis's three tests do not (below 0, within the
    margin).

    Examples
    --------
    >>> conjunction(["holds", "holds"]), conjunction(["holds", "inconclusive"])
    ('holds', 'inconclusive')
    >>> conjunction(["inconclusive", "does not hold"]), conjunction(["holds", "not run"])
    ('does not hold', 'not run')
    >>> conjunction(["tie", "tie"]), conjunction(["holds", "tie"])
    ('tie', 'inconclusive')
    """
    if "does not hold" in verdicts:
        return "does not hold"
    if "not run" in verdicts:
        return "not run"
    if all(v == "holds" for v in verdicts):
        return "holds"
    if verdicts and all(v == "tie" for v in verdicts):
        return "tie"
    return "inconclusive"
