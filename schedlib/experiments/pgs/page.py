"""The generated sections of `docs/reproductions/pgs.md` and its figures.

See [`schedlib.experiments.pages`][schedlib.experiments.pages] for how a page's
sections are generated and checked.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from schedlib.experiments.figures import mean_interval
from schedlib.experiments.pages import markdown_table
from schedlib.experiments.pgs.findings import (
    SD_BOUND_PERCENT,
    SPREAD_BOUND_PERCENT,
    _gains,
    _lost_per_failure,
    _series,
    paper_margin,
)
from schedlib.experiments.pgs.runs import PER_RESOURCE
from schedlib.experiments.pgs.setup import (
    IMPLIED_OVERHEAD,
    LOWER_BOUND_MINUTES,
    PAPER_DIFFERENCE,
    PAPER_READING,
    PAPER_RUNS,
    PAPER_TABLE_2,
    READINGS,
    RESTARTING,
    TABLE_1_UPTIMES,
    Reading,
)
from schedlib.results.verdicts import t_quantile


def _summary_rows(rows: Sequence[Mapping[str, Any]], reading: str | None = None) -> list[Any]:
    out = [r for r in rows if "replicate" not in r or r.get("replicate") is None]
    if reading is None:
        return [r for r in out if r.get("main", True)]
    return [r for r in out if r.get("reading") == reading]


def _replicates(
    rows: Sequence[Mapping[str, Any]], reading: str, scenario: int, scheduler: str
) -> list[Mapping[str, Any]]:
    """The replicate rows of one (reading, scenario, scheduler), by replicate."""
    picked = [
        r for r in rows
        if r.get("replicate") is not None and r["reading"] == reading
        and r["scenario"] == scenario and r["scheduler"] == scheduler
    ]  # fmt: skip
    return sorted(picked, key=lambda r: r["replicate"])


def _paper_interval(scenario: int, scheduler: str) -> float:
    """Half-width of the 95 % interval of the paper's mean over its 10 runs (Table 2)."""
    _, sd = PAPER_TABLE_2[(scenario, scheduler)]
    return t_quantile(0.975, PAPER_RUNS - 1) * sd / math.sqrt(PAPER_RUNS)


def plot(rows: Sequence[Mapping[str, Any]], path: str) -> None:
    """Our total runtimes beside the paper's (Table 2, Figure 2), main reading: each a dot
    with its 95 % interval (ours over the replicates, the paper's over its 10 runs).

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
    from schedlib.experiments.figures import colour, figure, interval_bars, label, marker, save

    name = _main_name(rows)
    scenarios = sorted({r["scenario"] for r in rows if r.get("reading") == name})
    fig, ax = figure(height=3.2)
    for offset, scheduler in ((-0.12, "pgs"), (0.12, "fcfs")):
        ours = [
            [r["makespan_minutes"] for r in _replicates(rows, name, s, scheduler)]
            for s in scenarios
        ]
        interval_bars(ax, [s + offset - 0.04 for s in scenarios], ours, scheduler,
                      text=f"{scheduler.upper()}, ours")  # fmt: skip
        paper = [PAPER_TABLE_2[(s, scheduler)][0] for s in scenarios]
        ax.errorbar(
            [s + offset + 0.04 for s in scenarios], paper,
            yerr=[_paper_interval(s, scheduler) for s in scenarios],
            fmt=marker(scheduler), color=colour(scheduler), markerfacecolor="white",
            capsize=3, markersize=5, linewidth=1.2, label=f"{scheduler.upper()}, paper (Table 2)",
        )  # fmt: skip
    ax.axhline(LOWER_BOUND_MINUTES, color="grey", linestyle=":", linewidth=1,
               label="lower bound, 60.25 min")  # fmt: skip
    ax.set_xticks(scenarios)
    ax.set_xticklabels([f"scenario {s}" for s in scenarios])
    ax.set_ylabel(label("total runtime", "min"))
    ax.set_title(f"Table 2, ours ({name} reading) and the paper's; bars: 95 % intervals")
    ax.legend(loc="upper left", ncol=2)
    save(fig, path)


def _gain_values(rows: Sequence[Mapping[str, Any]], reading: str, scenario: int) -> list[float]:
    """(FCFS - PGS) / PGS in %, per replicate (one value for a deterministic pair)."""
    estimate = _gains(_series(rows, reading), scenario)
    return list(estimate.values) if estimate is not None else []


def plot_readings(rows: Sequence[Mapping[str, Any]], path: str) -> None:
    """The Difference of each reading in scenarios 1-3 (dots with their 95 % intervals)
    beside the paper's (a line, its 95 % interval shaded): a forest plot, one panel per
    scenario, the readings on a shared axis.

    Raises
    ------
    SchedlibError
        If matplotlib is missing (names the `plot` extra).
    """
    from schedlib.experiments.figures import PALETTE, colour, figure, label, save

    names = list(dict.fromkeys(r["reading"] for r in rows if r.get("replicate") is not None))
    fig, axes = figure(1, len(RESTARTING), height=0.32 * len(names) + 1.4, sharey=True)
    ys = list(range(len(names)))[::-1]
    other = PALETTE["blue"]
    for ax, scenario in zip(axes, RESTARTING, strict=True):
        paper, margin = PAPER_DIFFERENCE[scenario], paper_margin(scenario)
        ax.axvspan(paper - margin, paper + margin, color="grey", alpha=0.25, linewidth=0)
        ax.axvline(paper, color="black", linewidth=1)
        for y, name in zip(ys, names, strict=True):
            low_mean_high = mean_interval(_gain_values(rows, name, scenario))
            mean, low, high = low_mean_high
            shade = colour("pgs") if _pgs_increasing(name) else other
            ax.errorbar([mean], [y], xerr=[[mean - low], [high - mean]], fmt="o",
                        color=shade, capsize=3, markersize=4.5, linewidth=1.2)  # fmt: skip
        ax.set_title(f"scenario {scenario}")
        ax.set_xlabel(label("(FCFS - PGS) / PGS", "%"))
    axes[0].set_yticks(ys)
    axes[0].set_yticklabels(names)
    handles = [
        axes[0].errorbar([], [], fmt="o", color=colour("pgs"), label="PGS takes the jobs in "
                         "increasing order"),
        axes[0].errorbar([], [], fmt="o", color=other, label="in another order (shuffled, "
                         "decreasing)"),
    ]  # fmt: skip
    fig.legend(handles=handles, loc="outside lower center", ncol=2)
    fig.suptitle("The gain under each reading (95 % intervals); the paper's figure with its "
                 "95 % interval shaded", fontsize="medium")  # fmt: skip
    save(fig, path)


IDLE_READINGS = ("paper", "pgs-shuffled")
"""The readings whose idle time per resource the idle figure shows side by side."""


def plot_idle(rows: Sequence[Mapping[str, Any]], path: str) -> None:
    """Where PGS's time goes in scenario 3, per resource: busy, idle while up and down
    (means over the replicates, minutes of the total runtime), and when each resource
    started its last job (a dot with its 95 % interval); the paper's reading beside
    `pgs-shuffled`, on a shared axis.

    Raises
    ------
    SchedlibError
        If matplotlib is missing (names the `plot` extra).
    """
    from schedlib.experiments.figures import colour, figure, label, save

    present = {r["reading"] for r in rows}
    names = [n for n in IDLE_READINGS if n in present]
    summary = [r for r in rows if "replicate" not in r]
    fig, axes = figure(1, len(names), height=3.4, sharex=True, sharey=True)
    axes = [axes] if len(names) == 1 else list(axes)
    ys = list(range(len(TABLE_1_UPTIMES)))
    parts = (("busy_minutes", "busy", colour("pgs")), ("idle_minutes", "idle while up",
             "#BBBBBB"), ("down_minutes", "down", "black"))  # fmt: skip
    for ax, name in zip(axes, names, strict=True):
        cell = _cell(summary, name, IDLE_SCENARIO, "pgs")
        left = [0.0] * len(ys)
        for field, text, shade in parts:
            widths = cell[field]
            ax.barh(ys, widths, left=left, color=shade, height=0.6, label=text)
            left = [a + b for a, b in zip(left, widths, strict=True)]
        starts = [
            [r["last_start_minutes"][i] for r in _replicates(rows, name, IDLE_SCENARIO, "pgs")]
            for i in ys
        ]
        stats = [mean_interval(v) for v in starts]
        ax.errorbar([m for m, _, _ in stats], ys,
                    xerr=[[m - lo for m, lo, _ in stats], [hi - m for m, _, hi in stats]],
                    fmt="D", color=colour("shuffled"), markersize=4, capsize=2,
                    label="last job started")  # fmt: skip
        ax.set_title(f"{name} reading\nPGS's total runtime {cell['makespan_minutes']:.1f} min")
        ax.set_xlabel(label(f"scenario {IDLE_SCENARIO}, time in the run", "min"))
    axes[0].set_yticks(ys)
    axes[0].set_yticklabels([f"{u} s" for u in TABLE_1_UPTIMES])
    axes[0].set_ylabel(label("resource uptime", "s"))
    handles, texts = axes[0].get_legend_handles_labels()
    fig.legend(handles, texts, loc="outside lower center", ncol=4)
    save(fig, path)


def figures() -> dict[str, Callable[[Sequence[Mapping[str, Any]], str], None]]:
    """The page's figures: file name -> `draw(rows, path)`."""
    return {"pgs.png": plot, "pgs_readings.png": plot_readings, "pgs_idle.png": plot_idle}


def documented_rows(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The rows the documented results keep: every row, the replicate rows without their
    per-resource fields (the summary rows keep their means), so that the file stays small
    while the claims can still be judged from it.

    Examples
    --------
    >>> kept = documented_rows([{"replicate": 0, "idle_minutes": [1.0], "failures": 0},
    ...                         {"runs": 1, "idle_minutes": [1.0]}])
    >>> kept
    [{'replicate': 0, 'failures': 0}, {'runs': 1, 'idle_minutes': [1.0]}]
    """
    return [
        {k: v for k, v in r.items() if r.get("replicate") is None or k not in PER_RESOURCE}
        for r in rows
    ]


def _minutes(mean: float, sd: float, runs: int = 2) -> str:
    """A mean total runtime and its standard deviation over the runs (± is kept for 95 %
    intervals on the page)."""
    return f"{mean:.2f} (one run)" if runs == 1 else f"{mean:.2f} (sd {sd:.2f})"


def _cell(
    summary: Sequence[Mapping[str, Any]], reading: str, scenario: int, scheduler: str
) -> Mapping[str, Any]:
    """The summary row of one (reading, scenario, scheduler)."""
    return next(
        r
        for r in summary
        if r["reading"] == reading and r["scenario"] == scenario and r["scheduler"] == scheduler
    )


def _main_name(rows: Sequence[Mapping[str, Any]]) -> str:
    return next((r["reading"] for r in rows if r.get("main")), "paper")


def _main_pairs(
    rows: Sequence[Mapping[str, Any]],
) -> list[tuple[int, Mapping[str, Any], Mapping[str, Any]]]:
    """(scenario, PGS summary, FCFS summary) of the main reading, by scenario."""
    summary = _summary_rows(rows)
    name = summary[0]["reading"] if summary else ""
    return [
        (s, _cell(summary, name, s, "pgs"), _cell(summary, name, s, "fcfs"))
        for s in sorted({r["scenario"] for r in summary})
    ]


def _table_2(rows: Sequence[Mapping[str, Any]]) -> str:
    lines = []
    for s, p, f in _main_pairs(rows):
        lines.append(
            {
                "scenario": s,
                "PGS ours (min)": _minutes(p["makespan_minutes"], p["stdev"], p["runs"]),
                "PGS paper (min)": _minutes(p["paper_minutes"], p["paper_stdev"]),
                "FCFS ours (min)": _minutes(f["makespan_minutes"], f["stdev"], f["runs"]),
                "FCFS paper (min)": _minutes(f["paper_minutes"], f["paper_stdev"]),
                "difference ours / paper (%)": f"{p['difference_percent']:.2f} / "
                f"{p['paper_difference_percent']:.2f}",
            }
        )
    return markdown_table(lines)


def _failures_table(rows: Sequence[Mapping[str, Any]]) -> str:
    lines = []
    for s, p, f in _main_pairs(rows):
        lines.append(
            {
                "scenario": s,
                "PGS failures per run": f"{p['failures']:.1f}",
                "FCFS failures per run": f"{f['failures']:.1f}",
                "FCFS work lost (min per run)": f"{f['wasted_seconds'] / 60:.1f}",
                "FCFS lost per failure (s)": f"{_lost_per_failure(f):.1f}",
                "abandoned / unschedulable (jobs)": f"{p['abandoned'] + f['abandoned']} / "
                f"{p['unschedulable'] + f['unschedulable']}",
            }
        )
    return markdown_table(lines)


IDLE_SCENARIO = 3
"""The scenario whose idle time per resource the page breaks down."""


def _idle_rows(summary: Mapping[str, Any]) -> list[dict[str, str]]:
    """One row per resource of Table 1: busy, idle while up, down, and the last start."""
    out = []
    fields = zip(TABLE_1_UPTIMES, *(summary[f] for f in PER_RESOURCE), strict=True)
    for uptime, busy, idle, down, last in fields:
        out.append(
            {
                "resource uptime (s)": str(uptime),
                "busy (min)": f"{busy:.1f}",
                "idle while up (min)": f"{idle:.1f}",
                "down (min)": f"{down:.1f}",
                "last job started at (min)": "-" if last is None else f"{last:.1f}",
            }
        )
    return out


def _idle_table(rows: Sequence[Mapping[str, Any]], reading: str) -> str:
    """PGS's time per resource in scenario 3 under `reading` (means over the runs), and a
    total row."""
    summary = [r for r in rows if "replicate" not in r]
    cell = _cell(summary, reading, IDLE_SCENARIO, "pgs")
    lines = _idle_rows(cell)
    totals = [sum(cell[f]) for f in PER_RESOURCE[:3]]
    lines.append(
        {
            "resource uptime (s)": "**all 8**",
            "busy (min)": f"{totals[0]:.1f}",
            "idle while up (min)": f"{totals[1]:.1f}",
            "down (min)": f"{totals[2]:.1f}",
            "last job started at (min)": f"total runtime {cell['makespan_minutes']:.2f}",
        }
    )
    return markdown_table(lines)


def _idle_numbers(rows: Sequence[Mapping[str, Any]], reading: str) -> dict[str, float]:
    """The idle figures the page's prose quotes: on the three shortest-uptime resources,
    and in all, in scenario 3 for PGS under `reading`."""
    summary = [r for r in rows if "replicate" not in r]
    cell = _cell(summary, reading, IDLE_SCENARIO, "pgs")
    idle, down = cell["idle_minutes"], cell["down_minutes"]
    return {
        "short": sum(idle[:3]),
        "all": sum(idle),
        "down": sum(down),
        "not-running": sum(idle) + sum(down),
        **{f"last-{i}": cell["last_start_minutes"][i] for i in range(3)},
    }


def _named(name: str) -> str:
    return f"`{name}`"


def _readings_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """One row per reading, the columns the size claims are judged on first: the difference
    in scenarios 1-3, then PGS's and FCFS's total runtime in scenario 3 (mean and sd); the
    paper's Table 2 last."""
    summary = [r for r in rows if "replicate" not in r]
    names = list(dict.fromkeys(r["reading"] for r in summary))
    lines = []
    for name in names:
        main = _cell(summary, name, 1, "pgs")["main"]
        cells = {
            "reading": _named(name) + (" (main)" if main else ""),
            **{
                _difference_header(s): f"{_cell(summary, name, s, 'pgs')['difference_percent']:.2f}"
                for s in RESTARTING
            },
        }
        for scheduler in ("pgs", "fcfs"):
            cell = _cell(summary, name, 3, scheduler)
            cells[f"{scheduler.upper()}, scenario 3 (min)"] = _minutes(
                cell["makespan_minutes"], cell["stdev"], cell["runs"]
            )
        lines.append(cells)
    paper = {
        "reading": "**the paper** (Table 2)",
        **{_difference_header(s): f"{PAPER_DIFFERENCE[s]:.2f}" for s in RESTARTING},
    }
    for scheduler in ("pgs", "fcfs"):
        paper[f"{scheduler.upper()}, scenario 3 (min)"] = _minutes(*PAPER_TABLE_2[(3, scheduler)])
    lines.append(paper)
    return markdown_table(lines)


def _difference_header(scenario: int) -> str:
    return (
        f"difference, scenario {scenario} (%)"
        if scenario == RESTARTING[0]
        else (f"scenario {scenario} (%)")
    )


def _reading_totals(rows: Sequence[Mapping[str, Any]]) -> str:
    """A collapsible block: each reading's options and its total runtimes in every scenario
    (means over the runs)."""
    summary = [r for r in rows if "replicate" not in r]
    names = list(dict.fromkeys(r["reading"] for r in summary))
    every = (0, *RESTARTING)
    lines = []
    for name in names:
        reading = READINGS.get(name)
        lines.append(
            {
                "reading": _named(name),
                "options": f"`{reading.options()}`" if reading and reading.options() else "-",
                **{
                    f"{scheduler.upper()} (min), scenarios 0 / 1 / 2 / 3": " / ".join(
                        f"{_cell(summary, name, s, scheduler)['makespan_minutes']:.2f}"
                        for s in every
                    )
                    for scheduler in ("pgs", "fcfs")
                },
            }
        )
    lines.append(
        {
            "reading": "**the paper** (Table 2)",
            "options": "-",
            **{
                f"{scheduler.upper()} (min), scenarios 0 / 1 / 2 / 3": " / ".join(
                    f"{PAPER_TABLE_2[(s, scheduler)][0]:.2f}" for s in every
                )
                for scheduler in ("pgs", "fcfs")
            },
        }
    )
    table = markdown_table(lines)
    body = "\n".join(f"    {line}" for line in table.splitlines())
    return '??? note "Each reading\'s options and its total runtimes in every scenario"\n' + body


def _verdict_columns(claims: Sequence[Mapping[str, str]]) -> list[str]:
    """The readings that have a verdict column in the judged claims (besides the main one)."""
    first = claims[0] if claims else {}
    return [k[len("verdict (") : -1] for k in first if k.startswith("verdict (")]


def _size_fits(claims: Sequence[Mapping[str, str]]) -> str:
    """A sentence: under which readings the size of each scenario's difference holds."""
    names = ["paper", *_verdict_columns(claims)]

    def verdict(c: Mapping[str, str], name: str) -> str:
        return c["verdict"] if name == "paper" else c[f"verdict ({name})"]

    held = {
        name: [s for s in RESTARTING for c in claims
               if c["key"] == f"size-{s}" and verdict(c, name) == "holds"]
        for name in names
    }  # fmt: skip
    some = {name: s for name, s in held.items() if s}
    if not some:
        return "under no reading does any of the three differences lie within the paper's precision"
    listed = "; ".join(
        f"{_named(name)} (scenario{'s' if len(s) > 1 else ''} {', '.join(map(str, s))})"
        for name, s in some.items()
    )
    every = [name for name, s in some.items() if len(s) == len(RESTARTING)]
    whole = (
        f"all three hold only under {', '.join(_named(n) for n in every)}"
        if every
        else "no reading brings all three within it"
    )
    return (
        "the size of a scenario's difference lies within the paper's precision only under "
        f"{listed}: {whole}"
    )


def _not_holding(judged: Sequence[Mapping[str, str]]) -> str:
    """A sentence naming the claims that do not hold (or are inconclusive) on the main reading."""
    failed = [f"`{c['key']}` ({c['verdict']})" for c in judged if c["verdict"] != "holds"]
    if not failed:
        return "every claim holds"
    return "every claim holds except " + ", ".join(failed)


def _span(values: Sequence[float], digits: int = 2) -> str:
    low, high = min(values), max(values)
    return (
        f"{low:.{digits}f}"
        if f"{low:.{digits}f}" == f"{high:.{digits}f}"
        else (f"{low:.{digits}f}-{high:.{digits}f}")
    )


def _pgs_increasing(name: str) -> bool:
    """Whether PGS takes the jobs smallest first under the named reading (increasing or
    sweeps, the only orders the paper's words allow)."""
    reading: Reading = READINGS.get(name, PAPER_READING)
    return reading.order_for("pgs") in ("increasing", "sweeps")


def _conclusion(rows: Sequence[Mapping[str, Any]], claims: Sequence[Mapping[str, str]]) -> str:
    """The page's conclusion: what was tried, what reproduces, why PGS's magnitudes do not."""
    summary = [r for r in rows if "replicate" not in r]
    names = list(dict.fromkeys(r["reading"] for r in summary))

    def value(name: str, scenario: int, scheduler: str, field: str = "makespan_minutes") -> float:
        return float(_cell(summary, name, scenario, scheduler)[field])

    def minutes(name: str, scenario: int, scheduler: str) -> str:
        return (
            f"{value(name, scenario, scheduler):.2f} min (sd "
            f"{value(name, scenario, scheduler, 'stdev'):.2f})"
        )

    main = _main_name(rows)
    increasing = [n for n in names if _pgs_increasing(n)]
    pgs_3 = [value(n, 3, "pgs") for n in increasing]
    gains_3 = [value(n, 3, "pgs", "difference_percent") for n in increasing]
    queues = sorted({READINGS[n].queue_length for n in names if n in READINGS})
    mixed = "pgs-shuffled" if "pgs-shuffled" in names else None
    idle = _idle_numbers(rows, main)
    paper_pgs, paper_pgs_sd = PAPER_TABLE_2[(3, "pgs")]
    paper_fcfs, paper_fcfs_sd = PAPER_TABLE_2[(3, "fcfs")]
    holding = [c["key"] for c in claims if c["verdict"] == "holds"]
    shorts = ", ".join(f"{u}" for u in TABLE_1_UPTIMES[:2]) + f" and {TABLE_1_UPTIMES[2]}"
    text = (
        f"Besides the paper's set-up as written, we tried {len(names) - 1} readings of its rig "
        f"([below](#the-readings)): a per-job overhead of {IMPLIED_OVERHEAD:g} s, told to "
        "PGS's $tl$ or not; random starting phases; the copies of a size as sweeps; queues of "
        + ", ".join(str(q) for q in queues[:-1])
        + f" or {queues[-1]} jobs; PGS's step 1 for busy resources too; PGS taking the jobs "
        "in a shuffled order while FCFS sees them in increasing order; and both schedulers "
        "on shuffled or decreasing orders. "
        f"**What reproduces:** the direction of the paper's findings ({len(holding)} of its "
        f"{len(claims)} claims hold under the paper's reading: "
        + ", ".join(f"`{k}`" for k in holding)
        + "), and the paper's FCFS in increasing order: "
        f"{minutes(main, 3, 'fcfs')} in scenario 3 against its {paper_fcfs:.2f} min (sd "
        f"{paper_fcfs_sd:.2f})"
    )
    if "shuffled" in names:
        text += f"; shuffled, FCFS takes {minutes('shuffled', 3, 'fcfs')}"
    text += (
        f". In scenarios 1 and 2 our FCFS is {paper_gap(summary, main, 'fcfs', (1, 2))} "
        "below the paper's. "
        "**What does not:** the size of PGS's gain. Under every reading in which PGS takes "
        f"the jobs in increasing order, scenario 3 takes {_span(pgs_3)} min (the paper's "
        f"{paper_pgs:.2f}, sd {paper_pgs_sd:.2f}) and the gain stays at {_span(gains_3, 1)} % "
        f"(the paper's {PAPER_DIFFERENCE[3]:.2f} %)."
    )
    if mixed is not None:
        text += (
            " The paper's spread fits a mixed order: when PGS takes the jobs shuffled, its "
            f"total runtime varies from run to run with sd {value(mixed, 3, 'pgs', 'stdev'):.2f} "
            f"min (in increasing order, {value(main, 3, 'pgs', 'stdev'):.2f}), but it then "
            f"takes {value(mixed, 3, 'pgs'):.2f} min, below the paper's: the paper's PGS lies "
            "between the two orders, as a partly mixed order would, and no reading the paper's "
            "words allow gives it."
        )
    text += (
        " The time PGS loses in increasing order is not lost work (PGS loses none: "
        f"{value(main, 3, 'pgs', 'failures'):g} failures per run) but short-uptime "
        f"resources left idle: of the {idle['all']:.0f} resource-minutes PGS's resources "
        f"are up and idle in scenario 3, {idle['short']:.0f} are on the {shorts} s "
        f"resources, which start their last job at {idle['last-0']:.1f}, "
        f"{idle['last-1']:.1f} and {idle['last-2']:.1f} min: after that, no job left is "
        "short enough for them."
    )
    return text


def paper_gap(
    summary: Sequence[Mapping[str, Any]], reading: str, scheduler: str, scenarios: Sequence[int]
) -> str:
    """How far below (or above) the paper's minutes `scheduler` is, e.g. `5.9-6.8 min`."""
    gaps = [
        float(_cell(summary, reading, s, scheduler)["paper_minutes"])
        - float(_cell(summary, reading, s, scheduler)["makespan_minutes"])
        for s in scenarios
    ]
    return f"{_span(gaps, 1)} min"


def page_sections(full: Mapping[str, Any], quick: Mapping[str, Any]) -> dict[str, str]:
    """The generated sections of `docs/reproductions/pgs.md`, besides the claims tables (see
    [`schedlib.experiments.pages`][schedlib.experiments.pages])."""
    rows = full["rows"]
    summary = [r for r in rows if "replicate" not in r]

    def value(reading: str, scenario: int, scheduler: str, field: str) -> float:
        return float(_cell(summary, reading, scenario, scheduler)[field])

    readings = list(dict.fromkeys(r["reading"] for r in summary))
    main = _main_name(rows)
    increasing = [n for n in readings if _pgs_increasing(n)]
    best_increasing = min(increasing, key=lambda n: value(n, 3, "pgs", "makespan_minutes"))
    best = min(readings, key=lambda n: value(n, 3, "pgs", "makespan_minutes"))
    runs = max(int(r["runs"]) for r in summary) if summary else 0
    idle = _idle_numbers(rows, main)
    sections = {
        "full-table": _table_2(rows),
        "full-failures": _failures_table(rows),
        "full-reading-runtimes": _readings_table(rows),
        "full-reading-totals": _reading_totals(rows),
        "full-idle": _idle_table(rows, main),
        "full-idle-short": f"{idle['short']:.0f}",
        "full-idle-all": f"{idle['all']:.0f}",
        "full-idle-down": f"{idle['down']:.1f}",
        "full-conclusion": _conclusion(rows, full["claims"]),
        "full-size-fits": _size_fits(full["claims"]),
        "full-not-holding": _not_holding(full["claims"]),
        "full-runs": str(runs),
        "full-overhead": f"{IMPLIED_OVERHEAD:g}",
        "full-overhead-fcfs-0": f"{value('overhead', 0, 'fcfs', 'makespan_minutes'):.2f}",
        "full-best-increasing": _named(best_increasing),
        "full-best-increasing-pgs-3": (
            f"{value(best_increasing, 3, 'pgs', 'makespan_minutes'):.2f}"
        ),
        "full-best": _named(best),
        "full-best-pgs-3": f"{value(best, 3, 'pgs', 'makespan_minutes'):.2f}",
        "full-margins": ", ".join(f"±{paper_margin(s):.2f}" for s in RESTARTING),
        "full-spread-bound": f"{SPREAD_BOUND_PERCENT:.2f}",
        "full-sd-bound": f"{SD_BOUND_PERCENT:g}",
    }
    if "pgs-shuffled" in readings:
        mixed = _idle_numbers(rows, "pgs-shuffled")
        sections["full-idle-mixed-short"] = f"{mixed['short']:.0f}"
        sections["full-idle-mixed-all"] = f"{mixed['all']:.0f}"
    return sections
