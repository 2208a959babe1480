"""The generated sections of `docs/reproductions/multisite.md`.

See [`schedlib.experiments.pages`][schedlib.experiments.pages] for how a page's
sections are generated and checked. Every time on the page and in its figures is
in seconds (the CPU time of the paper-size estimate in CPU hours, said in its
headers); utilisations are in %; every ± is the half-width of the 95 % interval
over the class-seed replicates (as in the claims). The figures are drawn in
[`plots`][schedlib.experiments.multisite.plots].
"""

from __future__ import annotations

import itertools
import json
import math
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from schedlib.experiments.claims import claim_rows
from schedlib.experiments.figures import mean_interval
from schedlib.experiments.multisite.findings import claims
from schedlib.experiments.multisite.runs import TIE_RUNS
from schedlib.experiments.multisite.setup import (
    COMPARED,
    K_OURS,
    K_PAPER,
    PAPER_JOBS,
    TIE_RULES,
)
from schedlib.experiments.pages import glance_markdown, markdown_table
from schedlib.results.verdicts import Configurations, MeanEstimate

Row = Mapping[str, Any]
SECOND = 1.0
"""Every time on the page and in its figures is in seconds, like the rows."""
HOUR = 3600.0
"""Seconds per CPU hour (the paper-size estimate only)."""
MULTI = COMPARED[:-2]
"""The multi-site schemes (§4-§6)."""
SINGLE = COMPARED[-2:]
"""The single-site pair (§5, Fig. 5)."""
KS = (1, 2, 3, 4)


def _defaults(rows: Sequence[Row]) -> list[Row]:
    return [r for r in rows if r.get("tie_rule", "-") == "-"]


def _pick(rows: Sequence[Row], **match: Any) -> list[Row]:
    return [r for r in rows if all(r.get(k) == v for k, v in match.items())]


def _digits(value: float) -> int:
    """Decimals that show three significant digits of a share in % (and every digit of a
    time in seconds of 100 s or more)."""
    size = abs(value)
    return 2 if size < 10 else 1 if size < 100 else 0


def _mean_pm(values: Sequence[float], digits: int | None = None) -> str:
    """`mean ± half-width` of the 95 % interval over replicates (just the mean for one)."""
    if not values:
        return "-"
    mean, low, _ = mean_interval(values)
    d = _digits(mean) if digits is None else digits
    if len(values) < 2:
        return f"{mean:,.{d}f}"
    return f"{mean:,.{d}f} ± {mean - low:,.{d}f}"


def _factors(rows: Sequence[Row]) -> list[float]:
    return sorted({r["load_factor"] for r in rows if r["group"] == "policies"})


def _by_load_factor(rows: Sequence[Row], field: str, scale: float, unit: str) -> str:
    """Per trace, a line per load factor and a column per multi-site scheme: the mean over
    the replicates ± its interval."""
    mine = _pick(_defaults(rows), group="policies")
    blocks = []
    for trace in sorted({r["trace"] for r in mine}):
        table = []
        for f in _factors(rows):
            line = {"load factor": f"{f:g}"}
            for policy in MULTI:
                values = [
                    r[field] / scale for r in _pick(mine, trace=trace, policy=policy, load_factor=f)
                ]
                line[f"`{policy}` ({unit})"] = _mean_pm(values)
            table.append(line)
        blocks.append(f"**{trace}**:\n\n" + markdown_table(table))
    return "\n\n".join(blocks)


def _single_table(rows: Sequence[Row]) -> str:
    """The single-site pair: mean turnaround (s) per load factor, EASY and conservative on
    each trace (one run each)."""
    mine = _pick(rows, group="policies")
    traces = sorted({r["trace"] for r in mine if r["policy"] in SINGLE})
    table = []
    for f in _factors(rows):
        line = {"load factor": f"{f:g}"}
        for trace in traces:
            for policy, name in zip(SINGLE, ("EASY", "conservative"), strict=True):
                values = [
                    r["mean_turnaround"] / SECOND
                    for r in _pick(mine, trace=trace, policy=policy, load_factor=f)
                ]
                line[f"{trace}, single-site {name} (s)"] = _mean_pm(values)
        table.append(line)
    return markdown_table(table)


def _collapsible(title: str, body: str) -> str:
    """A closed collapsible block (`??? note`) holding `body`."""
    inner = "\n".join(("    " + line) if line else "" for line in body.splitlines())
    return f'??? note "{title}"\n{inner}'


def _k_table(rows: Sequence[Row], policy: str) -> str:
    """Per trace: mean turnaround (s) at each K, by load and by completion time, without and
    (for the efficacy queue) with data transfer."""
    blocks = []
    mine = _defaults(rows)
    transfer = policy == K_PAPER
    for trace in sorted({r["trace"] for r in mine if r["group"] in ("k", "k-ours")}):
        table = []
        for k in KS:
            line = {"K": str(k)}
            columns = [
                ("k" if transfer else "k-ours", "load", "by load (s)"),
                ("k" if transfer else "k-ours", "completion", "by completion (s)"),
            ]
            if transfer:
                columns += [
                    ("transfer", "load", "by load, transfer (s)"),
                    ("transfer", "completion", "by completion, transfer (s)"),
                ]
            for group, selection, heading in columns:
                chosen = selection if k < 4 else "load"  # K = 4: every site, by either rule
                values = [
                    r["mean_turnaround"] / SECOND
                    for r in _pick(
                        mine, trace=trace, group=group, policy=policy, k=k, selection=chosen
                    )
                ]
                line[heading] = _mean_pm(values)
            table.append(line)
        blocks.append(f"**{trace}**:\n\n" + markdown_table(table))
    return "\n\n".join(blocks)


def _messages_table(rows: Sequence[Row]) -> str:
    """Per trace: control messages per job at each K (efficacy queue, with transfer), by load
    and by completion time, and how many of the latter are the completion-time queries."""
    blocks = []
    mine = _pick(_defaults(rows), group="transfer")
    for trace in sorted({r["trace"] for r in mine}):
        table = []
        for k in KS:
            load = _pick(mine, trace=trace, k=k, selection="load")
            done = _pick(mine, trace=trace, k=k, selection="completion" if k < 4 else "load")
            table.append(
                {
                    "K": str(k),
                    "by load (messages per job)": _mean_pm(
                        [r["messages"] / r["started"] for r in load], 2
                    ),
                    "by completion (messages per job)": _mean_pm(
                        [r["messages"] / r["started"] for r in done], 2
                    ),
                    "of which queries (per job)": _mean_pm(
                        [r["query_messages"] / r["started"] for r in done], 2
                    ),
                }
            )
        blocks.append(f"**{trace}**:\n\n" + markdown_table(table))
    return "\n\n".join(blocks)


def _queries_per_job(rows: Sequence[Row]) -> str:
    found = {
        r["query_messages"] / r["started"]
        for r in _pick(_defaults(rows), group="transfer", selection="completion")
    }
    return ", ".join(f"{q:g}" for q in sorted(found)) or "-"


def _default_twin(rows: Sequence[Row]) -> dict[tuple[Any, ...], Row]:
    """(trace, replicate, policy, K, selection, load factor) -> the row with the default rules
    that a `ties` row is compared with."""
    twins: dict[tuple[Any, ...], Row] = {}
    for r in _defaults(rows):
        if r["group"] in ("policies", "k"):
            key = (
                r["trace"],
                r["replicate"],
                r["policy"],
                r["k"],
                r["selection"],
                r["load_factor"],
            )
            twins.setdefault(key, r)
    return twins


def _ties_table(rows: Sequence[Row]) -> str:
    """Per tie rule: its option, the runs of the other reading, how many schedules changed,
    and the change of mean turnaround per trace (% of the default's)."""
    twins = _default_twin(rows)
    ties = _pick(rows, group="ties")
    traces = sorted({r["trace"] for r in ties})
    table = []
    for rule, (option, _) in TIE_RULES.items():
        mine = _pick(ties, tie_rule=rule)
        pairs = []
        for r in mine:
            twin = twins.get(
                (r["trace"], r["replicate"], r["policy"], r["k"], r["selection"], r["load_factor"])
            )
            if twin is not None:
                pairs.append((r, twin))
        changed = sum(1 for r, t in pairs if r["digest"] != t["digest"])
        policies = sorted({(p, k, s) for p, k, s in TIE_RUNS[rule]})
        where = ", ".join(f"`{p}`" + (f" K={k} by {s}" if k < 4 else "") for p, k, s in policies)
        line = {
            "tie rule (other reading)": f"`{option}`",
            "runs": where,
            "schedules changed": f"{changed} of {len(pairs)}",
        }
        for trace in traces:
            values = [
                100.0 * (r["mean_turnaround"] - t["mean_turnaround"]) / t["mean_turnaround"]
                for r, t in pairs
                if r["trace"] == trace
            ]
            line[f"{trace} mean turnaround (% change)"] = (
                _mean_pm(values, 2) if any(v != 0 for v in values) else ("0" if values else "-")
            )
        table.append(line)
    return markdown_table(table)


def _ties_factor(rows: Sequence[Row]) -> str:
    factors = sorted({r["load_factor"] for r in rows if r["group"] == "ties"})
    return ", ".join(f"{f:g}" for f in factors) or "-"


_EASY = ("greedy", "greedy-mr")
_CPU_GROUPS = (
    "EASY sites (CPU s)",
    "conservative sites (CPU s)",
    "single site (CPU s)",
    "K sweeps, tie rules (CPU s)",
)


def _cpu_group(r: Row) -> str:
    """The column of the CPU table a run counts in."""
    if r["group"] != "policies":
        return _CPU_GROUPS[3]
    if r["policy"] in SINGLE:
        return _CPU_GROUPS[2]
    return _CPU_GROUPS[0] if r["policy"] in _EASY else _CPU_GROUPS[1]


def cpu_by_group(rows: Sequence[Row]) -> dict[str, dict[str, float]]:
    """CPU seconds of the runs of `rows` per group of runs (`policies` split into the EASY
    family, the conservative family and the single-site pair; `k`, `transfer`, `k-ours`,
    `ties`) and load factor: what the documented result records beside its rows.

    Examples
    --------
    >>> rows = [{"group": "policies", "policy": "greedy", "load_factor": 1.0,
    ...          "cpu_seconds": 2.0},
    ...         {"group": "k", "policy": "efficacy", "load_factor": 1.0, "cpu_seconds": 1.5}]
    >>> cpu_by_group(rows)
    {'policies, EASY family': {'1': 2.0}, 'k': {'1': 1.5}}
    """
    out: dict[str, dict[str, float]] = {}
    for r in rows:
        if r.get("cpu_seconds") is None:
            continue
        group = r["group"]
        if group == "policies":
            group += (
                ", single site"
                if r["policy"] in SINGLE
                else ", EASY family"
                if r["policy"] in _EASY
                else ", conservative family"
            )
        by_factor = out.setdefault(group, {})
        factor = f"{r['load_factor']:g}"
        by_factor[factor] = round(by_factor.get(factor, 0.0) + r["cpu_seconds"], 2)
    return out


def documented_summary(rows: Sequence[Row]) -> dict[str, Any]:
    """What the documented result stores beside its rows: the CPU seconds per group of runs
    and load factor (`cpu_by_group`)."""
    return {"cpu_seconds": cpu_by_group(rows)}


def _cpu_table(rows: Sequence[Row]) -> str:
    """CPU seconds of the documented run per load factor and group of runs."""
    table = []
    for f in [*_factors(rows), math.inf]:
        mine = [
            r
            for r in rows
            if r.get("cpu_seconds") is not None and (f == math.inf or r["load_factor"] == f)
        ]
        line = {"load factor": "all" if f == math.inf else f"{f:g}"}
        for heading in _CPU_GROUPS:
            seconds = sum(r["cpu_seconds"] for r in mine if _cpu_group(r) == heading)
            line[heading] = f"{seconds:,.0f}"
        line["all (CPU s)"] = f"{sum(r['cpu_seconds'] for r in mine):,.0f}"
        table.append(line)
    return markdown_table(table)


def cpu_hours(rows: Sequence[Row]) -> float:
    """The CPU hours of all the runs of `rows` (their `cpu_seconds`)."""
    return sum(r.get("cpu_seconds") or 0.0 for r in rows) / HOUR


PERFORMANCE = Path(__file__).resolve().parents[3] / "benchmarks" / "performance.json"
"""The Performance page's measurements (in a clone, not in the installed package): the
growth of one conservative row with the trace, from which the paper-size run is estimated."""


Growth = tuple[int, int, float, float]
"""One row measured at two sizes: (smaller jobs, larger jobs, CPU seconds at each)."""


def row_growth(path: Path = PERFORMANCE) -> dict[float, Growth]:
    """The growth of one multi-site conservative row (conservative-mr, SDSC-SP2) with the
    trace, per load factor measured on the Performance page (2.0, and 1.0 where measured):
    load factor -> (smallest size, largest size, CPU seconds at each); empty outside a
    clone."""
    if not path.exists():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    section = data.get("sections", {}).get("conservative", {}).get("data", {})
    measured = {float(section["row"]["load_factor"]): section.get("rows", [])} if section else {}
    for factor, at in section.get("rows_at", {}).items():
        measured[float(factor)] = at
    return {
        f: (at[0]["jobs"], at[-1]["jobs"], at[0]["cpu_s"], at[-1]["cpu_s"])
        for f, at in sorted(measured.items())
        if len(at) >= 2
    }


def growth_exponent(growth: Growth) -> float:
    r"""The exponent $e$ of $t \propto n^e$ between the two measured sizes.

    Examples
    --------
    >>> round(growth_exponent((1000, 2000, 1.0, 4.0)), 6)
    2.0
    """
    n1, n2, t1, t2 = growth
    return math.log(t2 / t1) / math.log(n2 / n1)


def exponent_at(factor: float, growth: Mapping[float, Growth]) -> float:
    """The growth exponent at a load factor: linear between the measured load factors,
    the nearest one's outside them.

    Examples
    --------
    >>> g = {1.0: (1000, 5000, 1.0, 5.0), 2.0: (1000, 5000, 1.0, 125.0)}
    >>> round(exponent_at(1.5, g), 6), round(exponent_at(2.0, g), 6)
    (2.0, 3.0)
    """
    points = sorted((f, growth_exponent(g)) for f, g in growth.items())
    if factor <= points[0][0]:
        return points[0][1]
    for (f1, e1), (f2, e2) in itertools.pairwise(points):
        if factor <= f2:
            return e1 + (e2 - e1) * (factor - f1) / (f2 - f1)
    return points[-1][1]


def running_time(cpu_hours: float, workers: int = 2) -> str:
    """A run's time as `--help` states it: the wall time on `workers` cores, then the CPU
    time, in minutes below an hour of CPU and in hours from there.

    Examples
    --------
    >>> running_time(0.485), running_time(11.9)
    ('15 minutes (29 CPU minutes)', '6 hours (12 CPU hours)')
    """
    if cpu_hours < 1:
        minutes = cpu_hours * 60
        return f"{minutes / workers:.0f} minutes ({minutes:.0f} CPU minutes)"
    return f"{cpu_hours / workers:.0f} hours ({cpu_hours:.0f} CPU hours)"


def _at_paper_size(rows: Sequence[Row]) -> bool:
    """Whether every run of `rows` is at the paper's size (`PAPER_JOBS` per trace)."""
    return {r["jobs"] for r in rows} == {PAPER_JOBS}


def _hours_by_factor(rows: Sequence[Row]) -> list[tuple[float, float]]:
    """The CPU hours of the runs of `rows` per load factor."""
    return [
        (f, sum(r.get("cpu_seconds") or 0.0 for r in rows if r["load_factor"] == f) / HOUR)
        for f in _factors(rows)
    ]


def _paper_size_lines(
    rows: Sequence[Row], growth: Mapping[float, Growth]
) -> list[tuple[float, float, float, float]] | None:
    """Per load factor: (factor, measured CPU hours, growth exponent, paper-size CPU hours),
    the estimate `measured * (PAPER_JOBS / jobs) ** e`; `None` when the rows are not of one
    size or no growth is measured."""
    jobs = sorted({r["jobs"] for r in rows})
    if len(jobs) != 1 or not growth:
        return None
    ratio = PAPER_JOBS / jobs[0]
    lines = []
    for f, hours in _hours_by_factor(rows):
        e = exponent_at(f, growth)
        lines.append((f, hours, e, hours * ratio**e))
    return lines


def paper_size_hours(rows: Sequence[Row], growth: Mapping[float, Growth]) -> float | None:
    r"""The CPU hours of the paper-size run: measured when `rows` are at the paper's size,
    else estimated from them and the measured `growth` (`None`: not estimated).

    Notes
    -----
    Estimated as $\sum_f h_f \, (5000 / n)^{e_f}$: $h_f$ the CPU hours of the runs at load
    factor $f$ on $n$ jobs per trace, $e_f$ the growth exponent at $f$ (`exponent_at`).

    Examples
    --------
    >>> rows = [{"group": "policies", "jobs": 1000, "load_factor": 2.0, "cpu_seconds": 3600.0}]
    >>> paper_size_hours(rows, {2.0: (1000, 5000, 1.0, 25.0)})  # grows as n^2: x 25
    25.0
    >>> paper_size_hours([{**rows[0], "jobs": 5000}], {})  # measured
    1.0
    """
    if _at_paper_size(rows):
        return cpu_hours(rows)
    lines = _paper_size_lines(rows, growth)
    return None if lines is None else sum(line[3] for line in lines)


def _paper_size(
    rows: Sequence[Row], growth: Mapping[float, Growth], performance: str = "../performance.md"
) -> str:
    """The paper-size run (`PAPER_JOBS` per trace): measured when the documented run is at
    the paper's size, else estimated per load factor from the documented run's CPU seconds
    and the measured growth of one conservative row (`performance`: the link to the
    Performance page from the page it is shown on)."""
    if _at_paper_size(rows):
        measured = [
            {"load factor": f"{f:g}", f"{PAPER_JOBS:,} jobs, measured (CPU h)": f"{hours:.1f}"}
            for f, hours in _hours_by_factor(rows)
        ]
        total = cpu_hours(rows)
        return (
            markdown_table(measured)
            + "\n\n"
            + textwrap.fill(
                f"The documented run is at the paper's size: {total:.1f} CPU hours in all, "
                f"measured (the rows' own CPU seconds), {total / 2:.1f} hours on 2 workers.",
                90,
            )
        )
    lines = _paper_size_lines(rows, growth)
    if lines is None:
        return "Not estimated (no measured growth: see the Performance page)."
    jobs = rows[0]["jobs"]
    table = [
        {
            "load factor": f"{f:g}",
            f"{jobs:,} jobs, measured (CPU h)": f"{hours:.2f}",
            "growth exponent": f"{e:.2f}",
            f"{PAPER_JOBS:,} jobs, estimated (CPU h)": f"{estimate:.1f}",
        }
        for f, hours, e, estimate in lines
    ]
    total = sum(line[3] for line in lines)
    measured_growth = "; ".join(
        f"at load factor {f:.1f}, {growth_exponent(g):.2f} ({g[0]:,} jobs: {g[2]:.1f} CPU s; "
        f"{g[1]:,} jobs: {g[3]:.1f} CPU s)"
        for f, g in sorted(growth.items())
    )
    return (
        markdown_table(table)
        + "\n\n"
        + textwrap.fill(
            f"In all about {total:.1f} CPU hours, {total / 2:.1f} hours on 2 workers. Each "
            f"load factor's runs are taken to grow as $n^e$ from {jobs:,} to "
            f"{PAPER_JOBS:,} jobs, $e$ the growth of the costliest run, one conservative-mr "
            f"row on SDSC-SP2, measured on the [Performance "
            f"page]({performance}#conservative-backfilling-at-scale): {measured_growth}; "
            "linear in between (the $K$ sweeps and tie rules run at load factor 1.0). EASY "
            "runs grow more slowly: an estimate from above for them.",
            90,
        )
    )


def _longest_run(rows: Sequence[Row]) -> str:
    longest = max(rows, key=lambda r: r.get("cpu_seconds") or 0.0, default=None)
    if longest is None or not longest.get("cpu_seconds"):
        return "-"
    return (
        f"{longest['cpu_seconds']:,.0f} CPU seconds (`{longest['policy']}` on "
        f"{longest['trace']} at load factor {longest['load_factor']:g})"
    )


def _size(document: Mapping[str, Any]) -> str:
    rows = document["rows"]
    jobs = sorted({r["jobs"] for r in rows})
    replicates = len({r["replicate"] for r in rows if r["replicate"] is not None})
    return f"{', '.join(map(str, jobs))} jobs per trace, {replicates} replicates, {len(rows)} runs"


def _compact(rows: Sequence[Row]) -> dict[str, str]:
    """Claim key -> its estimate per trace with that trace's verdict, for the glance table."""
    out = {}
    for c in claims(rows):
        if not isinstance(c.estimate, Configurations):
            continue
        verdicts = dict(c.estimate.part_verdicts(c.expect))
        parts = []
        for label_, part in c.estimate.parts:
            if isinstance(part, MeanEstimate):
                shown = part.describe().replace(f" (n = {part.n})", "")
                shown = shown.replace(" (deterministic: one run, n = 1)", ", one run")
            else:
                shown = part.describe() if part is not None else "not run"
            parts.append(f"{label_}: {shown} ({verdicts[label_]})")
        out[c.key] = "<br>".join(parts)
    return out


def _glance(full: Mapping[str, Any]) -> str:
    compact = _compact(full["rows"])
    shown = [{**c, "ours": compact.get(c["key"], c["ours"])} for c in full["claims"]]
    return glance_markdown(shown)


_SHARE = {2: "half", 4: "a quarter", 5: "a fifth", 10: "a tenth"}


def _jobs(rows: Sequence[Row]) -> str:
    """The documented run's jobs per trace against the paper's, in words."""
    jobs = sorted({r["jobs"] for r in rows})
    if jobs == [PAPER_JOBS]:
        return f"{PAPER_JOBS:,} jobs per trace, the paper's size"
    shown = ", ".join(f"{j:,}" for j in jobs)
    if len(jobs) == 1 and PAPER_JOBS % jobs[0] == 0:
        share = _SHARE.get(PAPER_JOBS // jobs[0], f"1/{PAPER_JOBS // jobs[0]}")
        return f"{shown} jobs per trace, {share} of the paper's {PAPER_JOBS:,}"
    return f"{shown} jobs per trace (the paper: {PAPER_JOBS:,})"


def _numbers(keys: Sequence[int]) -> str:
    """`1`, `1 and 2`, `1, 2 and 3`."""
    text = [str(k) for k in keys]
    return text[0] if len(text) == 1 else ", ".join(text[:-1]) + " and " + text[-1]


def _reproduces(full: Mapping[str, Any]) -> str:
    """Which of the paper's claims hold, do not hold, or cannot be decided (the numbers of
    the glance table), and for the undecided ones what each trace says taken alone."""
    judged = {c["key"]: c["verdict"] for c in full["claims"]}
    by_verdict: dict[str, list[int]] = {}
    alone: dict[str, list[int]] = {}
    for number, c in enumerate(claims(full["rows"]), start=1):
        if c.origin != "paper" or not isinstance(c.estimate, Configurations):
            continue
        verdict = judged[c.key]
        by_verdict.setdefault(verdict, []).append(number)
        if verdict != "inconclusive":
            continue
        traces = [v for _, v in c.estimate.part_verdicts(c.expect)]
        kind = (
            "hold on each trace taken alone, but not after the correction over the paper's claims"
            if all(v == "holds" for v in traces)
            else "fail on one trace taken alone"
            if "does not hold" in traces
            else "hold on one trace only"
            if "holds" in traces
            else "are decided on neither trace"
        )
        alone.setdefault(kind, []).append(number)

    def named(numbers: Sequence[int]) -> str:
        return ("claim " if len(numbers) == 1 else "claims ") + _numbers(numbers)

    def agreed(kind: str, numbers: Sequence[int]) -> str:
        if len(numbers) > 1:
            return kind
        verb, _, rest = kind.partition(" ")
        return {"hold": "holds", "fail": "fails", "are": "is"}.get(verb, verb) + " " + rest

    parts = [
        f"{verdict}: {named(by_verdict[verdict])}"
        for verdict in ("holds", "does not hold", "inconclusive")
        if verdict in by_verdict
    ]
    text = "; ".join(parts) + "."
    if alone:
        text += (
            " Of the inconclusive ones, "
            + "; ".join(
                f"{named(numbers)} {agreed(kind, numbers)}" for kind, numbers in alone.items()
            )
            + "."
        )
    return text


def page_sections(full: Mapping[str, Any], quick: Mapping[str, Any]) -> dict[str, str]:
    """The generated sections of the page (see [`pages`][schedlib.experiments.pages])."""
    rows = full["rows"]
    replicates = sorted({r["replicate"] for r in rows if r["replicate"] is not None})
    return {
        "full-glance": _glance(full),
        "full-reproduces": _reproduces(full),
        "full-jobs": _jobs(rows),
        "full-size": _size(full),
        "full-replicates": str(len(replicates)),
        "quick-size": _size(quick),
        "full-tables": "\n\n".join(
            [
                _collapsible(
                    "Mean turnaround (s) by load factor",
                    _by_load_factor(rows, "mean_turnaround", SECOND, "s"),
                ),
                _collapsible(
                    "Utilisation (%) by load factor",
                    _by_load_factor(rows, "utilisation", 0.01, "%"),
                ),
                _collapsible(
                    "Effective utilisation (%) by load factor",
                    _by_load_factor(rows, "effective_utilisation", 0.01, "%"),
                ),
            ]
        ),
        "full-single": _single_table(rows),
        "full-k": _k_table(rows, K_PAPER),
        "full-messages": _messages_table(rows),
        "full-queries": _queries_per_job(rows),
        "full-k-ours": "\n\n".join(
            _collapsible(f"`{policy}`: mean turnaround (s) by K (ours)", _k_table(rows, policy))
            for policy in K_OURS
        ),
        "full-ties": _ties_table(rows),
        "full-ties-factor": _ties_factor(rows),
        "full-cpu": _cpu_table(rows),
        "full-cpu-total": f"{cpu_hours(rows):.2f}",
        "full-longest": _longest_run(rows),
        "full-paper-size": _paper_size(rows, row_growth()),
    }


HOWTO = "docs/howto/run-multisite-on-a-cluster.md"
"""The how-to page whose numbers come from the documented run (its CPU time)."""
PERFORMANCE_PAGE = "docs/performance.md"
"""The Performance page, whose section on the multi-site reproduction comes from it too."""


def extra_pages(full: Mapping[str, Any], quick: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """The generated sections of the other pages that quote the documented run: the how-to
    page's and the Performance page's CPU time (path relative to the repository ->
    sections)."""
    rows = full["rows"]
    estimate = _paper_size(rows, row_growth())
    return {
        HOWTO: {
            "cpu-total": f"{cpu_hours(rows):.2f} CPU hours",
            "cpu-jobs": _jobs(rows),
            "cpu-table": _cpu_table(rows),
            "longest": _longest_run(rows),
            "paper-size": estimate,
        },
        PERFORMANCE_PAGE: {
            "multisite-cpu": (
                f"The documented multi-site run ({_size(full)}; {cpu_hours(rows):.2f} CPU "
                "hours), CPU seconds per group of runs and load factor:\n\n"
                + _cpu_table(rows)
                + (
                    "\n\nThe paper's size:\n\n"
                    if _at_paper_size(rows)
                    else "\n\nThe paper's size, estimated:\n\n"
                )
                + _paper_size(rows, row_growth(), performance="")
            )
        },
    }


def claims_of(rows: Sequence[Row]) -> list[dict[str, str]]:
    """The judged claims of `rows` (what the page's tables show)."""
    return claim_rows(claims(rows))
