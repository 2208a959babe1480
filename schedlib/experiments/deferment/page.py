"""The documented rows, the generated sections of `docs/reproductions/deferment.md`, its figure.

See [`schedlib.experiments.pages`][schedlib.experiments.pages] for how a page's
sections are generated and checked.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from schedlib.experiments.deferment.findings import _Trials, claims
from schedlib.experiments.deferment.setup import PAPER_INTERVALS, READINGS, ExperimentSettings
from schedlib.experiments.options import (
    judged,
)
from schedlib.experiments.pages import markdown_table
from schedlib.results.verdicts import ProportionEstimate


def _variant_name(algorithm: str, reading: str | None, bound: int | None) -> str:
    name = f"FIFO ({reading})" if algorithm == "fifo" else "Round robin"
    return f"{name}, " + ("standard" if bound is None else f"B = {bound}")


def documented_rows(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """What the reproduction page needs of a full run (stored with the documented results).

    The per-trial rows (tens of thousands) are not stored; the page needs:

    - the summary rows;
    - `kind` = `"claim"`: the judged claims for every FIFO reading that ran
      (`reading`, `key`, `claim`, `ours`, `expected`, `verdict`), each reading
      judged on its own (Holm over its claims);
    - `kind` = `"coincide"`: per main interval, the variants whose results are
      identical in every trial (`groups`: lists of variant names).

    Examples
    --------
    >>> from schedlib.experiments.deferment import reproduce
    >>> table = reproduce(ExperimentSettings(trials=2, jobs=2, tasks=2, processors=2,
    ...     intervals=(500, 4000), bounds=(1,), overtaking_trials=0, spare_trials=0), workers=1)
    >>> kept = documented_rows(table)
    >>> sorted({r["kind"] for r in kept})
    ['claim', 'coincide', 'summary']
    >>> [len(r["groups"]) for r in kept if r["kind"] == "coincide"]
    [1, 1]
    """
    kept = [dict(r) for r in rows if r.get("kind") == "summary"]
    trials = _Trials(rows)
    for reading in trials.readings():
        for claim in judged(claims(rows, reading)):
            kept.append({"kind": "claim", "reading": reading, **claim})
    results: dict[tuple[Any, ...], dict[tuple[Any, ...], list[int]]] = {}
    for (experiment, algorithm, reading, bound, interval), cells in trials.cells.items():
        if experiment == "main":
            signature = tuple(
                (k, cells[k]["computation"], cells[k]["waiting"], cells[k]["total_std"])
                for k in sorted(cells)
            )
            name = _variant_name(algorithm, reading, bound)
            results.setdefault((interval,), {}).setdefault(signature, []).append(name)  # type: ignore[arg-type]
    for (interval,), groups in sorted(results.items()):
        kept.append({"kind": "coincide", "interval": interval, "groups": list(groups.values())})
    return kept


_SHOWN = (
    ("computation", "computation"),
    ("waiting", "waiting"),
    ("total", "total"),
    ("total_std", "std. dev. of total"),
)


def _summary_table(rows: Sequence[Mapping[str, Any]]) -> str:
    lines = []
    for r in rows:
        cell = {"algorithm": _variant_name(r["algorithm"], r["reading"], r["bound"])}
        for field, title in _SHOWN:
            cell[title] = f"{r[field]:.1f}"
        cell["overtaking jobs (trials)"] = f"{r['overtaking_jobs']} ({r['overtaking_trials']})"
        cell["replicas / trial"] = f"{r['replicas']:.1f}"
        cell["spare power consumed"] = "-" if r["work"] is None else f"{r['work']:.1f} %"
        lines.append(cell)
    return markdown_table(lines)


def page_sections(full: Mapping[str, Any], quick: Mapping[str, Any]) -> dict[str, str]:
    """The generated sections of `docs/reproductions/deferment.md`, besides the common ones
    (see [`schedlib.experiments.pages`][schedlib.experiments.pages]); the full results' rows
    went through [`documented_rows`][schedlib.experiments.deferment.documented_rows]."""
    rows = full["rows"]
    summary = [r for r in rows if r["kind"] == "summary"]
    main = [r for r in summary if r["experiment"] == "main"]
    intervals = sorted({r["interval"] for r in main})
    blocks = []
    for interval in intervals:
        at = [r for r in main if r["interval"] == interval]
        paper = "" if interval in PAPER_INTERVALS else " (ours)"
        blocks.append(
            f"**Interval {interval:g}{paper}**, {at[0]['trials']} trials\n\n" + _summary_table(at)
        )
    spare = [r for r in summary if r["experiment"] == "spare"]
    spare_blocks = [
        f"**Interval {i:g}**, {next(r for r in spare if r['interval'] == i)['trials']} trials\n\n"
        + _summary_table([r for r in spare if r["interval"] == i])
        for i in sorted({r["interval"] for r in spare})
    ]
    coincide = []
    for r in (r for r in rows if r["kind"] == "coincide"):
        groups = r["groups"]
        total = sum(len(g) for g in groups)
        if len(groups) == 1:
            coincide.append(
                f"- interval {r['interval']:g}: all {total} variants give identical "
                "results in every trial"
            )
        else:
            same = [g for g in groups if len(g) > 1]
            coincide.append(
                f"- interval {r['interval']:g}: {len(groups)} distinct results among the "
                f"{total} variants; "
                + ("identical in every trial:" if same else "no two are identical")
            )
            coincide.extend(f"    - {_group(g)}" for g in same)
    verdicts = [r for r in rows if r["kind"] == "claim"]
    readings = [name for name in READINGS if any(r["reading"] == name for r in verdicts)]
    table = []
    for key in dict.fromkeys(r["key"] for r in verdicts):
        cell = {"claim": next(r["claim"] for r in verdicts if r["key"] == key)}
        for reading in readings:
            row = next(r for r in verdicts if r["key"] == key and r["reading"] == reading)
            cell[f"{reading}: ours"] = row["ours"]
            cell[f"{reading}: verdict"] = f"**{row['verdict']}**"
        table.append(cell)
    below = {r["interval"] for r in summary if r["experiment"] == "overtaking"}
    overtaking = [r for r in summary if r["experiment"] == "overtaking"] + [
        r
        for r in main
        if r["algorithm"] == "round_robin" and r["bound"] is None and r["interval"] in below
    ]
    p0 = [
        {
            "algorithm": _variant_name(r["algorithm"], r["reading"], None),
            "interval": f"{r['interval']:g}",
            "trials": r["trials"],
            "overtaking jobs": r["overtaking_jobs"],
            "trials with one": r["overtaking_trials"],
            "share of trials": ProportionEstimate(r["overtaking_trials"], r["trials"]).describe(),
        }
        for r in overtaking
    ]
    longest = [r for r in main if r["interval"] == intervals[-1]] if intervals else []
    alone = statistics.fmean(r["computation"] for r in longest) if longest else math.nan
    return {
        "full-alone": f"{alone:.0f}",
        "model-spare-power": f"{round(_spare_power(ExperimentSettings()), -4):,.0f}",
        "full-main": "\n\n".join(blocks),
        "full-coincide": "\n".join(coincide),
        "full-spare": "\n\n".join(spare_blocks) or "(not run)",
        "full-readings": markdown_table(table),
        "full-overtaking": markdown_table(p0),
    }


def _claim_text(document: Mapping[str, Any], key: str) -> str:
    return next((c["claim"] for c in document["claims"] if c["key"] == key), key)


def _group(names: Sequence[str]) -> str:
    """Variant names grouped by family: `FIFO (head-job): standard, B = 1 + Round robin: B = 1`."""
    families: dict[str, list[str]] = {}
    for name in names:
        family, _, variant = name.rpartition(", ")
        families.setdefault(family, []).append(variant)
    return " + ".join(f"{family}: {', '.join(v)}" for family, v in families.items())


def _spare_power(settings: ExperimentSettings) -> float:
    """Expected spare power of the grid (instructions per time unit) under the load model."""
    load = settings.load
    share = load.low_share()
    level = share * sum(load.low) / 2 + (1 - share) * sum(load.high) / 2
    peaks = [settings.peaks[i % len(settings.peaks)] for i in range(settings.processors)]
    return level * sum(peaks)


def figures() -> dict[str, Callable[[Sequence[Mapping[str, Any]], str], None]]:
    """The page's figures: file name -> `draw(rows, path)`."""
    return {"deferment.png": plot}


_MEASURES = (
    ("computation", "Computation time"),
    ("waiting", "Waiting time"),
    ("total", "Total time"),
    ("total_std", "Std. dev. of total time"),
)


def plot(rows: Sequence[Mapping[str, Any]], path: str) -> None:
    """Draw the paper's Figures 1a-4b from the main experiment's summary rows into `path`.

    One panel per measure (rows) and algorithm (columns: FIFO per reading,
    round robin); in each, one group of bars per variant (Standard, Bound = n)
    and one bar per interval.

    Raises
    ------
    SchedlibError
        If matplotlib is missing (names the `plot` extra).
    """
    from schedlib.results.plotting import pyplot, save_figure

    plt = pyplot()
    main = [r for r in rows if r.get("kind") == "summary" and r["experiment"] == "main"]
    columns = list(dict.fromkeys((r["algorithm"], r["reading"]) for r in main))
    variants_ = sorted({r["bound"] for r in main}, key=lambda b: (b is not None, b or 0))
    intervals = sorted({r["interval"] for r in main})
    figure, axes = plt.subplots(
        len(_MEASURES),
        len(columns),
        figsize=(4.2 * len(columns), 3.0 * len(_MEASURES)),
        squeeze=False,
    )
    width = 0.8 / max(1, len(intervals))
    for row_index, (measure, title) in enumerate(_MEASURES):
        for col, (algorithm, reading) in enumerate(columns):
            axis = axes[row_index][col]
            for k, interval in enumerate(intervals):
                values = [
                    next(
                        (
                            r[measure]
                            for r in main
                            if r["algorithm"] == algorithm
                            and r["reading"] == reading
                            and r["bound"] == bound
                            and r["interval"] == interval
                        ),
                        math.nan,
                    )
                    for bound in variants_
                ]
                axis.bar(
                    [v + k * width for v in range(len(variants_))],
                    values,
                    width,
                    label=f"Interval = {interval:g}",
                )
            axis.set_xticks([v + width * (len(intervals) - 1) / 2 for v in range(len(variants_))])
            axis.set_xticklabels(["Std" if b is None else f"B={b}" for b in variants_])
            name = f"FIFO, {reading}" if algorithm == "fifo" else "Round-Robin"
            axis.set_title(f"{title} ({name})", fontsize="small")
    handles, labels = axes[0][0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="upper center", ncol=len(intervals), fontsize="small")
    figure.tight_layout(rect=(0, 0, 1, 0.97))
    save_figure(figure, path, dpi=70)
