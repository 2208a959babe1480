r"""Reproduction of Sabin et al. (2003), §3-§7: one job stream over four heterogeneous sites.

```text
schedlib reproduce multisite [--trace ctc|sdsc|both|FILE] [--traces DIR] [--jobs 1000]
                             [--replicates 5] [--load-factors 1.0,1.2,...,2.0] [--seed 0]
                             [--quick] [--claims] [--workers W]
                             [--format table|json|csv] [--plot out.png]
```

**Workload** ([`paper_workload`][schedlib.experiments.multisite.paper_workload]):
the first `--jobs` jobs of each trace (default 1000; the paper: 5000, see
[`JOBS`][schedlib.experiments.multisite.JOBS]), submitted at each of
the paper's four sites (the last two copies three hours later), each copy's
jobs given a job class (Table 1) drawn from the replicate's own random stream
([`schedlib.replicates`][schedlib.replicates]: replicate $r$ of `--seed` $s$ draws
its classes from stream $(s, r)$, and its data sizes from another). Every site is
as large as the trace's machine (CTC-SP2: 430 processors as in the paper,
although the v3.1 header says 338; SDSC-SP2: 128). A named trace absent from
the traces folder is replaced by its own embedded slice
([`schedlib.workloads.locate`][schedlib.workloads.locate]), and every row says
which. Load factors multiply every runtime and requested time and keep the
submit times (§3).

**Replicates.** The job classes are the experiment's randomness: each of the
`--replicates` replicates draws them anew, every policy of a replicate sees the
same classes (paired comparisons), and the claims are judged over the replicates
([`schedlib.results.verdicts`][schedlib.results.verdicts]).

**Rows**, one per (trace, replicate, group, policy, $K$, selection, load factor,
transfer), with `mean_turnaround` and `max_turnaround` (s), `utilisation`,
`effective_utilisation`, `messages`, `minimum_messages` and `started` (jobs
started). Four groups:

1. `policies`: at every load factor, the five schemes with every site holding a
   copy (greedy with one), and the single-site comparison: the four copies on
   one site of the same size with runtimes divided by 4 (same offered load),
   EASY (`single-easy`) against conservative (`single-conservative`) (§4-§6);
2. `k`: at the first load factor, $K = 1..4$ copies chosen by load and by
   completion time, on the **efficacy** queue as §7 did (Figures 11-12);
3. `transfer`: the same on the efficacy queue with the data-transfer model
   (500 MB-3 GB at 10 Mbps added to jobs run away from their origin, §7,
   Figures 13-14);
4. `k-ours`: the same $K$ sweep for `greedy-mr` and `conservative-mr`: not the
   paper's (marked "ours" in the claims; EASY completion-time selection, from
   the shadow time only, is our extension: §5 says completion estimates need
   conservative backfilling).

[`claims`][schedlib.experiments.multisite.claims] checks every claim of §3-§7.

Examples
--------
>>> rows = reproduce(traces=("sdsc",), jobs=30, load_factors=(1.0,), replicates=2,
...                  workers=1, traces_folder=None)
>>> sorted({r["group"] for r in rows})
['k', 'k-ours', 'policies', 'transfer']
>>> len(claims(rows)) == len(claims([]))
True
"""

from __future__ import annotations

import argparse
import math
import statistics
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs

from schedlib.backfill import schedule
from schedlib.errors import InvalidValueError
from schedlib.execution.parallel import run_all
from schedlib.execution.progress import ProgressBar
from schedlib.experiments.claims import Claim
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
    MultiSiteJob,
    RuntimeMatrix,
    makespan,
    multisite_workload,
    paper_sites,
    raw_utilisation,
    scaled,
    simulate_multisite,
    with_data_sizes,
    with_load_factor,
)
from schedlib.replicates import stream
from schedlib.results.verdicts import Expect, MeanEstimate
from schedlib.validation import require
from schedlib.workloads.locate import KNOWN_TRACES, TraceSource, find_trace, load_trace

__all__ = [
    "COMPARED",
    "JOBS",
    "K_CONFIGURATIONS",
    "K_OURS",
    "K_PAPER",
    "LOAD_FACTORS",
    "NAME",
    "PAPER",
    "QUICK_DIFFERS",
    "SUMMARY",
    "TRACES",
    "Run",
    "add_arguments",
    "claims",
    "data",
    "figures",
    "main",
    "page_sections",
    "paper_workload",
    "plot",
    "plot_k",
    "reproduce",
    "rows",
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
TRACES = tuple(KNOWN_TRACES)
"""The paper's traces by short name ([`KNOWN_TRACES`][schedlib.workloads.locate.KNOWN_TRACES])."""
COMPARED = (*POLICIES, "single-easy", "single-conservative")
"""The schemes of the policy comparison (§4-§6), then the single-site pair (§5, Fig. 5)."""
K_PAPER = "efficacy"
"""The queue of the paper's $K$ sweeps (§7; the captions of Figures 13-14)."""
K_OURS = ("greedy-mr", "conservative-mr")
"""Our extra $K$ sweeps (not the paper's)."""
REPLICATES = 5
"""Replicates (class seeds) of a full run."""
JOBS = 1000
"""Jobs per trace of a full run. The paper ran 5000; conservative backfilling with
compression still grows faster than the square of the trace at the high load factors
(the reservations it must move do: see the Performance page), so the whole grid at
5000 jobs (700 rows with five replicates) takes many CPU hours. `--jobs 5000` runs the
paper's size."""
_POWER = (
    "power: three replicates of 300 jobs leave an interval wider than the claim's margin "
    "(inconclusive); five replicates of 1000 decide it"
)
QUICK_DIFFERS: dict[str, str] = {
    "aggressive-better-single-site": "size: a single site has no heterogeneity, so every "
    "replicate gives the same value; on 300 jobs at load factors 1.0 and 1.6 EASY beats "
    "conservative, on 1000 jobs over every load factor conservative beats EASY",
    "conservative-much-better-multisite": _POWER,
    "cancel-slower-improves-slightly": _POWER,
    "efficacy-better-turnaround": _POWER,
    "efficacy-worst-case-under-5": _POWER,
    "k2-greatest-gain": _POWER,
    "transfer-keeps-trends": _POWER,
    "greedy-mr-completion-selection-better": _POWER,
    "conservative-mr-k2-greatest-gain": _POWER,
    "conservative-mr-completion-selection-better": _POWER,
}
"""Claims whose `--quick` verdict differs from the documented full-size one, with the reason."""


def paper_workload(
    source: TraceSource, jobs: int, seed: int, replicate: int, *, data_sizes: bool = False
) -> tuple[int, tuple[MultiSiteJob, ...]]:
    """The first `jobs` jobs of a trace, four copies, classes drawn for (seed, replicate).

    Parameters
    ----------
    source
        The trace, as found by [`find_trace`][schedlib.workloads.locate.find_trace].
    jobs
        How many of its first job records.
    seed, replicate
        The stream of the job classes (and of the data sizes).
    data_sizes
        Also draw each job's data size (500 MB-3 GB, §7) from its own stream.

    Returns
    -------
    tuple
        The processors per site and the multi-site jobs.
    """
    workload = load_trace(source, limit=jobs)
    size = workload.cluster.processors
    four = multisite_workload(
        workload.jobs,
        sites=4,
        matrix=RuntimeMatrix.paper(),
        rng=stream(seed, replicate, "multisite classes"),
    )
    if data_sizes:
        four = with_data_sizes(four, stream(seed, replicate, "multisite data sizes"))
    return size, four


@attrs.frozen
class Run:
    """One simulation of the experiment (picklable, for the worker processes)."""

    source: TraceSource
    jobs: int
    seed: int
    replicate: int
    group: str
    policy: str
    k: int
    selection: str
    load_factor: float
    transfer: bool = False


def _turnarounds(pairs: Iterable[tuple[float, float | None]]) -> list[float]:
    return [end - submit for submit, end in pairs if end is not None]


def run_one(run: Run) -> dict[str, Any]:
    """Simulate one [`Run`][schedlib.experiments.multisite.Run] and return its row."""
    size, four = paper_workload(
        run.source, run.jobs, run.seed, run.replicate, data_sizes=run.transfer
    )
    loaded = with_load_factor(four, run.load_factor)
    row: dict[str, Any] = {
        "trace": run.source.name,
        "data": "embedded slice" if run.source.embedded else "real trace",
        "jobs": run.jobs,
        "processors": size,
        "replicate": run.replicate,
        "group": run.group,
        "policy": run.policy,
        "k": run.k,
        "selection": run.selection,
        "load_factor": run.load_factor,
        "transfer": run.transfer,
    }
    if run.policy.startswith("single-"):
        one = scaled(loaded, 4)
        record = schedule(
            [Job(j.id, j.submit, j.procs, j.requested_time, j.runtime) for j in one],
            Cluster(size),
            policy=run.policy.removeprefix("single-"),
        )
        ran = [o for o in record.outcomes if o.end is not None and o.start is not None]
        span = makespan((o.start for o in ran), (o.end for o in ran))  # type: ignore[misc]
        work = [(o.end - o.start) * o.procs for o in ran]  # type: ignore[operator]
        utilisation = raw_utilisation(work, span, size)
        turnarounds = _turnarounds((o.submit, o.end) for o in ran)
        return row | {
            "mean_turnaround": statistics.fmean(turnarounds),
            "max_turnaround": max(turnarounds),
            "utilisation": utilisation,
            "effective_utilisation": utilisation,
            "messages": 0,
            "minimum_messages": 0,
            "started": len(ran),
        }
    meta = POLICIES[run.policy]
    if run.k < 4 or run.selection != "load":
        meta = meta.with_copies(run.k, run.selection)  # type: ignore[arg-type]
    result = simulate_multisite(loaded, paper_sites(size), meta, transfer=run.transfer)
    outcomes = [o for o in result.record.outcomes if o.start is not None]
    turnarounds = _turnarounds((o.submit, o.end) for o in outcomes)
    return row | {
        "mean_turnaround": result.mean_turnaround,
        "max_turnaround": max(turnarounds),
        "utilisation": result.utilisation,
        "effective_utilisation": result.effective_utilisation,
        "messages": result.messages,
        "minimum_messages": result.minimum_messages,
        "started": len(outcomes),
    }


K_CONFIGURATIONS = (*((k, s) for k in (1, 2, 3) for s in ("load", "completion")), (4, "load"))
"""The $K$ sweeps' (K, selection) pairs; with $K = 4$ every site is chosen, by either rule."""


def _runs(
    sources: Sequence[TraceSource],
    jobs: int,
    seed: int,
    replicates: int,
    load_factors: Sequence[float],
) -> list[Run]:
    runs: list[Run] = []
    for source in sources:
        for r in range(replicates):
            head = (source, jobs, seed, r)
            for factor in load_factors:
                for policy in COMPARED:
                    single = policy.startswith("single-")
                    k = 1 if policy == "greedy" or single else 4
                    runs.append(
                        Run(*head, "policies", policy, k, "-" if single else "load", factor)
                    )
            for group, policies, transfer in (
                ("k", (K_PAPER,), False),
                ("transfer", (K_PAPER,), True),
                ("k-ours", K_OURS, False),
            ):
                for policy in policies:
                    for k, selection in K_CONFIGURATIONS:
                        runs.append(
                            Run(*head, group, policy, k, selection, load_factors[0], transfer)
                        )
    return runs


def _cost(run: Run) -> tuple[int, float]:
    """Longest first (conservative sites, high load), so that the workers finish together."""
    cheap = run.policy in ("greedy", "greedy-mr", "single-easy")
    return (cheap, -run.load_factor)


def reproduce(
    *,
    traces: Sequence[str] = ("ctc", "sdsc"),
    traces_folder: str | None = None,
    jobs: int = JOBS,
    replicates: int = REPLICATES,
    seed: int = 0,
    load_factors: Sequence[float] = LOAD_FACTORS,
    workers: int | None = None,
    show_progress: bool = False,
) -> list[dict[str, Any]]:
    """Run the experiment: one row per (trace, replicate, group, policy, $K$, selection,
    load factor, transfer).

    Parameters
    ----------
    traces
        `ctc`, `sdsc` or SWF files.
    traces_folder
        Where the named traces are (`--traces`); by default found as
        [`find_trace`][schedlib.workloads.locate.find_trace] says, each
        replaced by its own embedded slice when absent.
    jobs
        The first `jobs` jobs of each trace (the paper: 5000; see `JOBS`).
    replicates
        Independent draws of the job classes (and data sizes).
    seed
        The seed of the replicates' streams.
    load_factors
        Load factors of the policy comparison; the $K$ sweeps use the first.
    workers
        Processes (`None`: every CPU); the rows are the same for any number.
    show_progress
        A progress bar on standard error (only on a terminal).

    Raises
    ------
    InvalidValueError
        For `jobs < 1`, `replicates < 1`, no load factor, a factor <= 0, an
        unknown trace, the same trace twice, or more jobs than an embedded
        slice holds.

    References
    ----------
    Sabin et al. (2003), §3 (workloads, load factors), §4-§7 (policies, $K$,
    site selection, messages, data transfer).
    """
    require(jobs, "--jobs", at_least=1)
    require(replicates, "--replicates", at_least=1)
    if not load_factors or min(load_factors) <= 0:
        raise InvalidValueError("--load-factors", list(load_factors), "must be positive numbers")
    sources = [find_trace(name, folder=traces_folder) for name in traces]
    if len({s.path for s in sources}) < len(sources):
        raise InvalidValueError("--trace", list(traces), "names the same trace twice")
    for source in sources:
        if source.available_jobs is not None and jobs > source.available_jobs:
            load_trace(source, limit=jobs)  # raises, naming the slice and --traces
        held = load_trace(source, limit=jobs).records
        if held < jobs:
            warnings.warn(
                f"--jobs {jobs}: {source.name} holds only {held} job records; every run "
                f"uses those {held}",
                stacklevel=2,
            )
    runs = sorted(_runs(sources, jobs, seed, replicates, load_factors), key=_cost)
    done = [0]

    def advance(index: int, row: dict[str, Any]) -> None:
        done[0] += 1
        bar(done[0])

    with ProgressBar(len(runs), NAME, enabled=None if show_progress else False) as bar:
        rows = run_all(run_one, runs, workers=workers, on_result=advance)
    order = {name: i for i, name in enumerate(COMPARED)}
    groups = {"policies": 0, "k": 1, "transfer": 2, "k-ours": 3}
    return sorted(
        rows,
        key=lambda r: (r["trace"], groups[r["group"]], order[r["policy"]], r["k"],
                       r["selection"], r["load_factor"], r["replicate"]),
    )  # fmt: skip


# --- claims -----------------------------------------------------------------------------


Cells = dict[tuple[int, str, float], dict[str, Any]]


def _cells(rows: Iterable[Mapping[str, Any]], **match: Any) -> Cells:
    """(replicate, trace, load factor) -> the row matching `match`."""
    return {
        (r["replicate"], r["trace"], r["load_factor"]): dict(r)
        for r in rows
        if all(r.get(k) == v for k, v in match.items())
    }


def _per_replicate(values: Mapping[tuple[int, str, float], float]) -> MeanEstimate:
    """Mean over each replicate's cells (traces, load factors), one value per replicate."""
    by_replicate: dict[int, list[float]] = defaultdict(list)
    for (replicate, _, _), value in sorted(values.items()):
        by_replicate[replicate].append(value)
    return MeanEstimate([statistics.fmean(v) for _, v in sorted(by_replicate.items())], unit="%")


def _change(rows: Sequence[Mapping[str, Any]], field: str, new: Mapping[str, Any],
            old: Mapping[str, Any]) -> MeanEstimate | None:  # fmt: skip
    """Relative change of `field`, `new` against `old`, in % of `old`, per replicate."""
    a, b = _cells(rows, **new), _cells(rows, **old)
    common = sorted(set(a) & set(b))
    if not common:
        return None
    return _per_replicate({c: 100.0 * (a[c][field] - b[c][field]) / b[c][field] for c in common})


def _ks(rows: Sequence[Mapping[str, Any]], **match: Any) -> dict[tuple[int, str], dict[int, float]]:
    """(replicate, trace) -> K -> mean turnaround, for the rows matching `match` (by load)."""
    out: dict[tuple[int, str], dict[int, float]] = defaultdict(dict)
    for r in rows:
        if all(r.get(k) == v for k, v in match.items()) and r["selection"] == "load":
            out[(r["replicate"], r["trace"])][r["k"]] = r["mean_turnaround"]
    return {key: ks for key, ks in out.items() if set(ks) == {1, 2, 3, 4}}


def _first_step_largest(rows: Sequence[Mapping[str, Any]], **match: Any) -> MeanEstimate | None:
    r"""$100\,((T_1 - T_2) - \max(T_2 - T_3, T_3 - T_4)) / T_1$ per replicate (mean over traces)."""
    ks = _ks(rows, **match)
    if not ks:
        return None
    return _per_replicate({
        (replicate, trace, 0.0): 100.0 * ((t[1] - t[2]) - max(t[2] - t[3], t[3] - t[4])) / t[1]
        for (replicate, trace), t in ks.items()
    })  # fmt: skip


def _selection_change(rows: Sequence[Mapping[str, Any]], **match: Any) -> MeanEstimate | None:
    """Completion-time against load selection, % of load, mean over K = 1..3 per replicate."""
    values: dict[tuple[int, str, float], float] = {}
    for k in (1, 2, 3):
        by_completion = _cells(rows, **match, k=k, selection="completion")
        by_load = _cells(rows, **match, k=k, selection="load")
        for cell in set(by_completion) & set(by_load):
            new = by_completion[cell]["mean_turnaround"]
            old = by_load[cell]["mean_turnaround"]
            replicate, trace, _ = cell
            values[(replicate, trace, float(k))] = 100.0 * (new - old) / old
    return _per_replicate(values) if values else None


def _transfer_change(rows: Sequence[Mapping[str, Any]]) -> MeanEstimate | None:
    values: dict[tuple[int, str, float], float] = {}
    for k in (1, 2, 3, 4):
        a = _cells(rows, group="transfer", k=k, selection="load")
        b = _cells(rows, group="k", k=k, selection="load")
        for replicate, trace, factor in set(a) & set(b):
            key = (replicate, trace, factor)
            values[(replicate, trace, float(k))] = (
                100.0
                * (a[key]["mean_turnaround"] - b[key]["mean_turnaround"])
                / b[key]["mean_turnaround"]
            )
    return _per_replicate(values) if values else None


def _message_growth(rows: Sequence[Mapping[str, Any]]) -> MeanEstimate | None:
    """Messages per started job at K = 4 minus at K = 1 (transfer runs, by load), per replicate."""
    four = _cells(rows, group="transfer", k=4, selection="load")
    one = _cells(rows, group="transfer", k=1, selection="load")
    common = sorted(set(four) & set(one))
    if not common:
        return None
    estimate = _per_replicate({
        c: four[c]["messages"] / four[c]["started"] - one[c]["messages"] / one[c]["started"]
        for c in common
    })  # fmt: skip
    return attrs.evolve(estimate, unit="messages per job")


def _describe_data(rows: Sequence[Mapping[str, Any]], group: str) -> str:
    mine = [r for r in rows if r["group"] == group]
    if not mine:
        return "-"
    traces = sorted({(r["trace"], r["data"]) for r in mine})
    jobs = sorted({r["jobs"] for r in mine})
    factors = sorted({r["load_factor"] for r in mine})
    replicates = len({r["replicate"] for r in mine})
    shown = " and ".join(f"{t} ({d})" for t, d in traces)
    span = (
        f"load factor {factors[0]:g}"
        if len(factors) == 1
        else f"load factors {factors[0]:g}-{factors[-1]:g}"
    )
    return (
        f"{shown}, first {', '.join(map(str, jobs))} jobs each, four sites; {span}; "
        f"{replicates} class-seed replicates, mean over traces"
        + ("" if len(factors) == 1 else " and load factors")
    )


def claims(rows: Sequence[Mapping[str, Any]]) -> list[Claim]:
    """Every claim of §3-§7, each tested over the replicates at the strength the paper states.

    Each estimate is computed per replicate (the mean over the traces, and over
    the load factors for the policy comparison) and judged with the shared rule
    (see [`schedlib.experiments.claims`][schedlib.experiments.claims]); the
    margins of "only slightly", "much better", "almost as good" and "under 5 %"
    are stated in each claim's `expected` column and explained on the
    reproduction page.
    """
    policies = _describe_data(rows, "policies")
    k = _describe_data(rows, "k")
    transfer = _describe_data(rows, "transfer")
    ours = _describe_data(rows, "k-ours")
    full = {"group": "policies"}

    def change(field: str, a: str, b: str) -> MeanEstimate | None:
        return _change(rows, field, {**full, "policy": a}, {**full, "policy": b})

    def pct(a: str, b: str, what: str) -> str:
        return f"{a} against {b}, {what}, change in % of {b}, paired per replicate"

    turnaround, util, effective = "mean_turnaround", "utilisation", "effective_utilisation"
    out = [
        Claim("greedy-mr-slightly-better",
              "multiple requests (EASY, K = 4) decrease the average turnaround time only very "
              "slightly compared with greedy (§4, Fig. 1)",
              policies, pct("greedy-mr", "greedy", "mean turnaround"),
              Expect.between(-10.0, 0.0), change(turnaround, "greedy-mr", "greedy")),
        Claim("greedy-mr-utilisation-slightly-higher",
              "greedy-MR's utilisation improves only slightly over greedy's (§4, Fig. 2)",
              policies, pct("greedy-mr", "greedy", "utilisation"),
              Expect.between(0.0, 10.0), change(util, "greedy-mr", "greedy")),
        Claim("conservative-much-better-multisite",
              "multi-site: completion-based conservative multiple requests perform much better "
              "than start-based aggressive (EASY) ones (§5, Fig. 4)",
              policies, pct("conservative-mr", "greedy-mr", "mean turnaround"),
              Expect.below(-20.0), change(turnaround, "conservative-mr", "greedy-mr")),
        Claim("aggressive-better-single-site",
              "single site (runtimes ÷ 4): aggressive backfilling outperforms conservative "
              "(§5, Fig. 5)",
              policies, pct("single-easy", "single-conservative", "mean turnaround"),
              Expect.below(0.0), change(turnaround, "single-easy", "single-conservative")),
        Claim("aggressive-higher-raw-utilisation",
              "the aggressive scheme has better raw utilisation than the conservative one "
              "(§5, Fig. 6)",
              policies, pct("greedy-mr", "conservative-mr", "utilisation"),
              Expect.above(0.0), change(util, "greedy-mr", "conservative-mr")),
        Claim("aggressive-lower-effective-utilisation",
              "... but worse effective utilisation (§5, Fig. 7)",
              policies, pct("greedy-mr", "conservative-mr", "effective utilisation"),
              Expect.below(0.0), change(effective, "greedy-mr", "conservative-mr")),
        Claim("cancel-slower-improves-slightly",
              "cancelling only the copies at slower sites improves performance, but not to a "
              "significant extent (§5)",
              policies, pct("conservative-mr-slower", "conservative-mr", "mean turnaround"),
              Expect.between(-10.0, 0.0),
              change(turnaround, "conservative-mr-slower", "conservative-mr")),
        Claim("efficacy-better-turnaround",
              "efficacy priority improves the average turnaround time (§6, Fig. 8)",
              policies, pct("efficacy", "conservative-mr", "mean turnaround"),
              Expect.below(0.0), change(turnaround, "efficacy", "conservative-mr")),
        Claim("efficacy-higher-effective-utilisation",
              "efficacy priority leads to a higher effective utilisation (§6, Fig. 10)",
              policies, pct("efficacy", "conservative-mr", "effective utilisation"),
              Expect.above(0.0), change(effective, "efficacy", "conservative-mr")),
        Claim("fcfs-higher-raw-utilisation",
              "... in spite of the FCFS priority queue having better raw utilisation "
              "(§6, Fig. 9)",
              policies, pct("conservative-mr", "efficacy", "utilisation"),
              Expect.above(0.0), change(util, "conservative-mr", "efficacy")),
        Claim("efficacy-worst-case-under-5",
              "efficacy priority costs a minimal (< 5 %) increase in worst-case turnaround time "
              "over FCFS priority (§6)",
              policies, pct("efficacy", "conservative-mr", "maximum turnaround"),
              Expect.below(5.0), change("max_turnaround", "efficacy", "conservative-mr")),
        Claim("k2-greatest-gain",
              "efficacy queue, K sites by load: the greatest improvement is from K = 1 to "
              "K = 2, less as K grows further (§7, Fig. 11)",
              k, "(T1 - T2) - max(T2 - T3, T3 - T4), in % of T1 (T_K: mean turnaround)",
              Expect.above(0.0), _first_step_largest(rows, group="k")),
        Claim("completion-selection-better",
              "choosing the K sites by earliest completion time instead of load has a "
              "significant impact on turnaround (§7, Fig. 12)",
              k, "by completion against by load, mean turnaround, % of by load, mean over "
              "K = 1..3",
              Expect.below(-5.0), _selection_change(rows, group="k")),
        Claim("completion-small-k-almost-k4",
              "with sites chosen by completion time, submitting to fewer sites (K = 2) is almost "
              "as effective as submitting to all (§7, Fig. 12)",
              k, "K = 2 by completion against K = 4, mean turnaround, % of K = 4",
              Expect.below(10.0),
              _change(rows, "mean_turnaround", {"group": "k", "k": 2, "selection": "completion"},
                      {"group": "k", "k": 4, "selection": "load"})),
        Claim("transfer-increases-turnaround",
              "adding data-transfer time increases turnaround (§7, Fig. 13)",
              transfer, "with transfer against without, mean turnaround, % of without, "
              "mean over K = 1..4 by load",
              Expect.above(0.0), _transfer_change(rows)),
        Claim("transfer-keeps-trends",
              "... but does not affect the trends: the greatest improvement is still from "
              "K = 1 to K = 2 (§7, Fig. 13)",
              transfer, "(T1 - T2) - max(T2 - T3, T3 - T4), in % of T1, with transfer",
              Expect.above(0.0), _first_step_largest(rows, group="transfer")),
        Claim("messages-grow-with-k",
              "control messages increase substantially with K (§7, Fig. 14)",
              transfer, "messages per started job, K = 4 minus K = 1 (by load, with transfer)",
              Expect.above(3.0), _message_growth(rows)),
    ]  # fmt: skip
    for policy in K_OURS:
        out.append(
            Claim(
                f"{policy}-k2-greatest-gain",
                f"{policy}, K sites by load: the greatest improvement is from K = 1 to K = 2",
                ours,
                "(T1 - T2) - max(T2 - T3, T3 - T4), in % of T1",
                Expect.above(0.0),
                _first_step_largest(rows, group="k-ours", policy=policy),
                origin="ours",
            )
        )
        out.append(
            Claim(
                f"{policy}-completion-selection-better",
                f"{policy}: choosing sites by completion time beats choosing by load"
                + (
                    " (EASY completion time from the shadow time only)"
                    if policy == "greedy-mr"
                    else ""
                ),
                ours,
                "by completion against by load, % of by load, mean over K = 1..3",
                Expect.below(0.0),
                _selection_change(rows, group="k-ours", policy=policy),
                origin="ours",
            )
        )
    return out


# --- the page -----------------------------------------------------------------------------


def _table(rows: Sequence[Mapping[str, Any]], field: str, digits: int) -> str:
    """Mean over replicates of `field` by load factor, one line per (trace, policy)."""
    mine = [r for r in rows if r["group"] == "policies"]
    factors = sorted({r["load_factor"] for r in mine})
    lines = ["| trace | policy | " + " | ".join(f"{f:g}" for f in factors) + " |",
             "|---|---|" + "---:|" * len(factors)]  # fmt: skip
    for trace in sorted({r["trace"] for r in mine}):
        for policy in COMPARED:
            cells = []
            for f in factors:
                values = [
                    r[field]
                    for r in mine
                    if r["trace"] == trace and r["policy"] == policy and r["load_factor"] == f
                ]
                cells.append(f"{statistics.fmean(values):,.{digits}f}" if values else "-")
            lines.append(f"| {trace} | `{policy}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _k_table(rows: Sequence[Mapping[str, Any]], group: str, field: str = "mean_turnaround") -> str:
    mine = [r for r in rows if r["group"] == group]
    columns = [(k, s) for s in ("load", "completion") for k in (1, 2, 3)] + [(4, "load")]
    head = [f"K={k} {s}" if k < 4 else "K=4" for k, s in columns]
    lines = ["| trace | policy | " + " | ".join(head) + " |",
             "|---|---|" + "---:|" * len(columns)]  # fmt: skip
    for trace in sorted({r["trace"] for r in mine}):
        for policy in sorted({r["policy"] for r in mine}):
            cells = []
            for k, s in columns:
                values = [r[field] for r in mine if r["trace"] == trace and r["policy"] == policy
                          and r["k"] == k and r["selection"] == s]  # fmt: skip
                cells.append(f"{statistics.fmean(values):,.0f}" if values else "-")
            lines.append(f"| {trace} | `{policy}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _size(document: Mapping[str, Any]) -> str:
    rows = document["rows"]
    jobs = sorted({r["jobs"] for r in rows})
    replicates = len({r["replicate"] for r in rows})
    return f"{', '.join(map(str, jobs))} jobs per trace, {replicates} replicates, {len(rows)} runs"


def page_sections(full: Mapping[str, Any], quick: Mapping[str, Any]) -> dict[str, str]:
    """The generated sections of the page (see [`pages`][schedlib.experiments.pages])."""
    rows = full["rows"]
    return {
        "full-size": _size(full),
        "quick-size": _size(quick),
        "full-turnaround": _table(rows, "mean_turnaround", 0),
        "full-utilisation": _table(rows, "utilisation", 3),
        "full-effective": _table(rows, "effective_utilisation", 3),
        "full-k": _k_table(rows, "k"),
        "full-transfer": _k_table(rows, "transfer"),
        "full-messages": _k_table(rows, "transfer", "messages"),
        "full-k-ours": _k_table(rows, "k-ours"),
    }


def figures() -> dict[str, Callable[[Sequence[Mapping[str, Any]], str], None]]:
    """The page's figures: `multisite.png` (by load factor) and `multisite_k.png` (by $K$)."""
    return {"multisite.png": plot, "multisite_k.png": plot_k}


def _mean_of(rows: Sequence[Mapping[str, Any]], match: Mapping[str, Any], field: str) -> float:
    values = [r[field] for r in rows if all(r.get(k) == v for k, v in match.items())]
    return statistics.fmean(values) if values else math.nan


def plot(rows: Sequence[Mapping[str, Any]], path: str) -> None:
    """Mean turnaround and effective utilisation against load factor, per policy and trace
    (means over replicates); one row of two panels per trace, readable at page width.

    Raises
    ------
    SchedlibError
        If matplotlib is missing (names the `plot` extra).
    """
    from schedlib.results.plotting import pyplot, save_figure

    plt = pyplot()
    traces = sorted({r["trace"] for r in rows})
    factors = sorted({r["load_factor"] for r in rows if r["group"] == "policies"})
    fig, axes = plt.subplots(len(traces), 2, figsize=(9, 3.4 * len(traces)), squeeze=False)
    for row_axes, trace in zip(axes, traces, strict=True):
        for ax, field, label, scale in (
            (row_axes[0], "mean_turnaround", "mean turnaround (h)", 3600.0),
            (row_axes[1], "effective_utilisation", "effective utilisation", 1.0),
        ):
            for policy in COMPARED:
                if scale == 1.0 and policy.startswith("single-"):
                    continue  # no heterogeneity on one site
                match = {"trace": trace, "group": "policies", "policy": policy}
                ys = [_mean_of(rows, {**match, "load_factor": f}, field) / scale for f in factors]
                ax.plot(factors, ys, marker="o", markersize=3, label=policy)
            ax.set_xticks(factors)
            ax.set_xlabel("load factor")
            ax.set_ylabel(label)
            ax.set_title(f"{trace}: {label}", fontsize=10)
            ax.grid(alpha=0.3)
        row_axes[0].legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, path, dpi=90)


def plot_k(rows: Sequence[Mapping[str, Any]], path: str) -> None:
    """Mean turnaround against $K$ on the efficacy queue (§7, Figures 11-13), per trace:
    sites by load, by completion time, and by load with data transfer.

    Raises
    ------
    SchedlibError
        If matplotlib is missing (names the `plot` extra).
    """
    from schedlib.results.plotting import pyplot, save_figure

    plt = pyplot()
    traces = sorted({r["trace"] for r in rows})
    fig, axes = plt.subplots(1, len(traces), figsize=(4.5 * len(traces), 3.4), squeeze=False)
    ks = [1, 2, 3, 4]
    for ax, trace in zip(axes[0], traces, strict=True):
        for group, selection in (("k", "load"), ("k", "completion"), ("transfer", "load")):
            ys = [
                _mean_of(
                    rows,
                    {"trace": trace, "group": group, "k": k,
                     "selection": selection if k < 4 else "load"},
                    "mean_turnaround",
                ) / 3600
                for k in ks
            ]  # fmt: skip
            label = f"by {selection}" + (", data transfer" if group == "transfer" else "")
            ax.plot(ks, ys, marker="o", markersize=3, label=label)
        ax.set_xticks(ks)
        ax.set_xlabel("K (sites per job)")
        ax.set_ylabel("mean turnaround (h)")
        ax.set_title(f"{trace}: efficacy queue, by K", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, path, dpi=90)


# --- the command line ---------------------------------------------------------------------


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
        "--jobs",
        type=int,
        default=JOBS,
        help=f"first jobs of each trace (default {JOBS}; the paper: 5000, many CPU hours)",
    )
    parser.add_argument(
        "--replicates",
        type=int,
        default=REPLICATES,
        help=f"independent draws of the job classes (default {REPLICATES})",
    )
    parser.add_argument(
        "--load-factors",
        default=",".join(str(f) for f in LOAD_FACTORS),
        help="load factors (default: 1.0 to 2.0 by 0.2); the K sweeps use the first",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the replicates (default 0)")
    parser.add_argument("--workers", type=int, default=None, help="processes (default: every CPU)")
    add_claims_argument(parser)
    parser.add_argument("--plot", metavar="FILE", help="also draw the results into FILE (.png)")
    add_quick_argument(
        parser,
        {"jobs": 300, "replicates": 3, "load_factors": "1.0,1.6"},
        full_time="30 minutes",
        quick_time="50 s",
    )


def _trace_names(args: argparse.Namespace) -> tuple[str, ...]:
    return ("ctc", "sdsc") if args.trace == "both" else (args.trace,)


def data(args: argparse.Namespace) -> str:
    """The data of a run: each trace, real or embedded slice, with the jobs used."""
    sources = [find_trace(name, folder=args.traces) for name in _trace_names(args)]
    return "; ".join(source.describe(args.jobs) for source in sources) + (
        f"; {args.replicates} class-seed replicates (seed {args.seed})"
    )


def rows(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The reproduction's rows for parsed options (no printing, no plot)."""
    return reproduce(
        traces=_trace_names(args),
        traces_folder=args.traces,
        jobs=args.jobs,
        replicates=args.replicates,
        seed=args.seed,
        load_factors=_factors(args.load_factors),
        workers=args.workers,
        show_progress=True,
    )


def main(args: argparse.Namespace) -> int:
    """Run the reproduction and print its rows, then the claims and their rule."""
    note = apply_quick(args)
    check_plot_target(args.plot)
    table = rows(args)
    if args.plot:
        plot(table, args.plot)
        stem, dot, suffix = args.plot.rpartition(".")
        plot_k(table, f"{stem}_k.{suffix}" if dot else f"{args.plot}_k")
    print_note(note, args.format)
    print_results(table, claims(table), args, name=NAME)
    return 0
