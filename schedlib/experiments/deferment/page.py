"""The documented rows, the generated sections of `docs/reproductions/deferment.md`, its figure.

See [`schedlib.experiments.pages`][schedlib.experiments.pages] for how a page's
sections are generated and checked.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from schedlib.experiments.claims import claim_rows
from schedlib.experiments.deferment.findings import (
    TIME,
    _reading_of,
    _Trials,
    claims,
    described,
)
from schedlib.experiments.deferment.setup import PAPER_INTERVALS, READINGS, ExperimentSettings
from schedlib.experiments.pages import glance_markdown, markdown_table, top_level_parts
from schedlib.results.verdicts import ProportionEstimate


def _variant_name(algorithm: str, reading: str | None, bound: int | None) -> str:
    name = f"FIFO ({reading})" if algorithm == "fifo" else "Round robin"
    return f"{name}, " + ("standard" if bound is None else f"B = {bound}")


def documented_rows(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """What the reproduction page needs of a full run (stored with the documented results).

    The per-trial rows (tens of thousands) are not stored; the page needs:

    - the summary rows;
    - `kind` = `"claim"`: each claim as measured under every FIFO reading that ran
      (`reading`, `key`, `claim`, `ours`, `verdict`, `p`), each reading judged on its
      own (Holm over its claims; the default reading's are the paper's count);
    - `kind` = `"coincide"`: per main interval, the variants that made the same
      schedule in every trial (`groups`: lists of variant names).

    Examples
    --------
    >>> from schedlib.experiments.deferment import reproduce
    >>> from schedlib.experiments.running import Execution
    >>> table = reproduce(ExperimentSettings(trials=2, jobs=2, tasks=2, processors=2,
    ...     intervals=(500, 4000), bounds=(1,), overtaking_trials=0, spare_trials=0),
    ...     Execution(workers=1))
    >>> kept = documented_rows(table)
    >>> sorted({r["kind"] for r in kept})
    ['claim', 'coincide', 'summary']
    >>> [len(r["groups"]) for r in kept if r["kind"] == "coincide"]
    [1, 1]
    """
    kept = [dict(r) for r in rows if r.get("kind") == "summary"]
    trials = _Trials(rows)
    measured = claims(rows)
    judged = claim_rows(measured)
    first = _reading_of(trials, None)
    for claim, row in zip(measured, judged, strict=True):
        shown = [(first, claim.estimate, row["verdict"], row["p"])]
        shown += [(name, m, row[f"verdict ({name})"], "") for name, m in claim.readings]
        for reading, estimate, verdict, p in shown:
            kept.append({"kind": "claim", "reading": reading, "key": claim.key,
                         "claim": claim.text, "ours": described(estimate, claim.expect),
                         "verdict": verdict, "p": p})  # fmt: skip
    results: dict[tuple[Any, ...], dict[tuple[Any, ...], list[int]]] = {}
    for (experiment, algorithm, reading, bound, interval), cells in trials.cells.items():
        if experiment == "main":
            signature = tuple((k, cells[k].get("schedule")) for k in sorted(cells))
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


def _summary_tables(rows: Sequence[Mapping[str, Any]]) -> str:
    """Two tables of summary rows: the times (means over the trials, in time units), and
    overtaking, replicas and spare power."""
    times, others = [], []
    for r in rows:
        name = _variant_name(r["algorithm"], r["reading"], r["bound"])
        times.append(
            {
                "algorithm": name,
                **{f"{title} ({TIME})": f"{r[field]:.1f}" for field, title in _SHOWN},
            }
        )
        others.append({
            "algorithm": name,
            "overtaking jobs (in trials)": f"{r['overtaking_jobs']} ({r['overtaking_trials']})",
            "replicas per trial": f"{r['replicas']:.1f}",
            "spare power consumed (%)": "-" if r["work"] is None else f"{r['work']:.1f}",
        })  # fmt: skip
    return markdown_table(times) + "\n\n" + markdown_table(others)


def glance_estimate(ours: str) -> str:
    """What the verdicts at a glance show of a claim's `ours`: its first part; for a claim
    over configurations, the count that hold (without the list of which went which way)
    and the range of their means.

    Examples
    --------
    >>> glance_estimate("every: 1 of 2 configurations hold, 1 does not (a: holds; b: does "
    ...                 "not hold); 3 ties (same) not counted; means -1 % to 2 %")
    'every: 1 of 2 configurations hold, 1 does not, means -1 % to 2 %'
    >>> glance_estimate("0.4 % [0.109, 1.02] (4 of 1000); in trial(s) 491, 506")
    '0.4 % [0.109, 1.02] (4 of 1000)'
    """
    parts = top_level_parts(ours)
    head = parts[0]
    if " configurations hold" not in head:
        return head
    head = re.sub(r" \([^()]*; [^()]*\)", "", head)  # the list of which went which way
    if " 0 of 0 configurations" in head:  # every configuration a tie
        return next((p.replace(" not counted", "") for p in parts[1:] if " tie" in p), head)
    span = next((p for p in parts[1:] if p.startswith("mean")), "")
    return head + (f", {span}" if span else "")


def _collapsed(title: str, text: str) -> str:
    """`text` in a collapsible block (closed) titled `title`."""
    body = "\n".join(f"    {line}" if line else "" for line in text.splitlines())
    return f'??? note "{title}"\n\n{body}'


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
            _collapsed(f"Interval {interval:g}{paper}: {at[0]['trials']} trials",
                       _summary_tables(at))
        )  # fmt: skip
    spare = [r for r in summary if r["experiment"] == "spare"]
    spare_blocks = [
        _collapsed(
            f"Interval {i:g}: {next(r for r in spare if r['interval'] == i)['trials']} trials",
            _summary_tables([r for r in spare if r["interval"] == i]),
        )
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
    others = readings[1:]
    table = []
    for i, key in enumerate(dict.fromkeys(r["key"] for r in verdicts), start=1):
        cell = {"#": str(i)}
        for reading in others:
            row = next(r for r in verdicts if r["key"] == key and r["reading"] == reading)
            cell[f"under {reading}: ours"] = glance_estimate(row["ours"])
            cell["verdict"] = f"**{row['verdict']}**"
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
            "share of trials (exact 95 % interval)": ProportionEstimate(
                r["overtaking_trials"], r["trials"]
            ).describe(),
        }
        for r in overtaking
    ]
    longest = [r for r in main if r["interval"] == intervals[-1]] if intervals else []
    alone = statistics.fmean(r["computation"] for r in longest) if longest else math.nan
    glance = [{**c, "ours": glance_estimate(c["ours"])} for c in full["claims"]]
    return {
        "full-glance": glance_markdown(glance),
        "full-alone": f"{alone:.0f}",
        "model-spare-power": f"{round(_spare_power(ExperimentSettings()), -4):,.0f}",
        "full-main": "\n\n".join(blocks),
        "full-coincide": "\n".join(coincide),
        "full-spare": "\n\n".join(spare_blocks) or "(not run)",
        "full-readings": markdown_table(table) if others else "(no other reading)",
        "full-overtaking": markdown_table(p0),
    }


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
    ("computation", "computation time"),
    ("waiting", "waiting time"),
    ("total", "total time"),
    ("total_std", "std. dev. of total time"),
)

_LINES: tuple[tuple[str, str | None, bool, str], ...] = (
    # (algorithm, reading, with the largest bound, legend)
    ("fifo", "originals-first", False, "FIFO (originals-first), standard"),
    ("fifo", "originals-first", True, "FIFO (originals-first), B = {B}"),
    ("fifo", "head-job", False, "FIFO (head-job), every variant"),
    ("round_robin", None, False, "round robin, standard"),
    ("round_robin", None, True, "round robin, B = {B}"),
)
"""The lines of the figure: the standard algorithms and the largest bound (the other bounds
lie between them, see the tables); under head-job the FIFO variants coincide."""


def _colour(algorithm: str, reading: str | None) -> tuple[str, str]:
    """The colour and marker of a line: FIFO's and round robin's fixed colours; FIFO under
    the head-job reading in orange (a second FIFO)."""
    from schedlib.experiments.figures import PALETTE, colour, marker

    if algorithm == "fifo" and reading != "originals-first":
        return PALETTE["orange"], "^"
    name = "fifo" if algorithm == "fifo" else "round robin"
    return colour(name), marker(name)


def plot(rows: Sequence[Mapping[str, Any]], path: str) -> None:
    """Draw the paper's Figures 1-4 (computation, waiting, total time and the standard
    deviation of total time) from the main experiment's summary rows into `path`.

    One panel per measure, all in time units on one shared y axis; x is the submission
    interval (logarithmic); one line per algorithm (standard, and deferment with the
    largest bound dashed), its colour fixed across the reproductions' figures, with the
    95 % interval of the mean over trials as a band.

    Raises
    ------
    SchedlibError
        If matplotlib is missing (names the `plot` extra).
    """
    from schedlib.experiments.figures import figure, label, save
    from schedlib.results.verdicts import t_quantile

    main = [r for r in rows if r.get("kind") == "summary" and r["experiment"] == "main"]
    intervals = sorted({r["interval"] for r in main})
    largest = max((r["bound"] for r in main if r["bound"] is not None), default=None)
    fig, axes = figure(2, 2, height=5.6, sharex=True, sharey=True)
    for ax, (measure, title) in zip(axes, _MEASURES, strict=True):
        for algorithm, reading, deferred, text in _LINES:
            if deferred and largest is None:
                continue
            bound = largest if deferred else None
            cells = {
                r["interval"]: r
                for r in main
                if (r["algorithm"], r["reading"], r["bound"]) == (algorithm, reading, bound)
            }
            xs = [i for i in intervals if i in cells]
            if not xs:
                continue
            tint, symbol = _colour(algorithm, reading)
            means = [cells[i][measure] for i in xs]
            halves = [
                t_quantile(0.975, cells[i]["trials"] - 1)
                * cells[i].get(f"{measure}_sd", 0.0)
                / math.sqrt(cells[i]["trials"])
                if cells[i]["trials"] > 1
                else 0.0
                for i in xs
            ]
            ax.plot(xs, means, "--" if deferred else "-", color=tint,
                    marker=symbol, markersize=4, linewidth=1.4,
                    label=text.format(B=bound))  # fmt: skip
            ax.fill_between(xs, [m - h for m, h in zip(means, halves, strict=True)],
                            [m + h for m, h in zip(means, halves, strict=True)],
                            color=tint, alpha=0.2, linewidth=0)  # fmt: skip
        ax.set_title(title)
        ax.set_xscale("log")
        ax.set_xticks(intervals)
        ax.set_xticklabels([f"{i:g}" for i in intervals])
        ax.minorticks_off()
    for ax in axes[2:]:
        ax.set_xlabel(label("submission interval", "time units"))
    for ax in axes[::2]:
        ax.set_ylabel(label("mean over the trials", "time units"))
    handles, texts = axes[0].get_legend_handles_labels()
    fig.legend(handles, texts, loc="outside lower center", ncol=2)
    save(fig, path)
