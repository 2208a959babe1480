"""The generated sections of `docs/reproductions/pgs.md` and its figures.

See [`schedlib.experiments.pages`][schedlib.experiments.pages] for how a page's
sections are generated and checked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from schedlib.experiments.claims import claim_rows
from schedlib.experiments.pages import markdown_table
from schedlib.experiments.pgs.findings import _lost_per_failure, claims, paper_margin
from schedlib.experiments.pgs.setup import (
    IMPLIED_OVERHEAD,
    LOWER_BOUND_MINUTES,
    PAPER_DIFFERENCE,
    PAPER_READING,
    PAPER_TABLE_2,
    READINGS,
    RESTARTING,
    SCHEDULERS,
)


def _summary_rows(rows: Sequence[Mapping[str, Any]], reading: str | None = None) -> list[Any]:
    out = [r for r in rows if "replicate" not in r or r.get("replicate") is None]
    if reading is None:
        return [r for r in out if r.get("main", True)]
    return [r for r in out if r.get("reading") == reading]


def plot(rows: Sequence[Mapping[str, Any]], path: str) -> None:
    """Bar chart of our total runtimes beside the paper's (Table 2, Figure 2), main reading.

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

    summary = _summary_rows(rows)
    plt = pyplot()
    scenarios = sorted({r["scenario"] for r in summary})
    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.2
    series = [
        ("pgs", "makespan_minutes", "PGS (ours)", "tab:blue", None),
        ("pgs", "paper_minutes", "PGS (paper)", "tab:blue", "//"),
        ("fcfs", "makespan_minutes", "FCFS (ours)", "tab:orange", None),
        ("fcfs", "paper_minutes", "FCFS (paper)", "tab:orange", "//"),
    ]
    reading = summary[0]["reading"] if summary else "paper"
    for offset, (scheduler, column, label, colour, hatch) in enumerate(series):
        heights = [_cell(summary, reading, s, scheduler)[column] for s in scenarios]
        xs = [s + (offset - 1.5) * width for s in scenarios]
        ax.bar(xs, heights, width, label=label, color=colour, hatch=hatch,
               alpha=0.55 if hatch else 1.0)  # fmt: skip
    ax.axhline(LOWER_BOUND_MINUTES, color="black", linestyle=":", label="lower bound")
    ax.set_xticks(scenarios)
    ax.set_xticklabels([f"scenario {s}" for s in scenarios])
    ax.set_ylabel("total runtime (minutes)")
    ax.set_title(f"PGS vs FCFS (Verboven et al. 2008, Table 2); {reading} reading")
    ax.legend(fontsize="small")
    fig.tight_layout()
    save_figure(fig, path)


def plot_readings(rows: Sequence[Mapping[str, Any]], path: str) -> None:
    """The Difference of each reading in scenarios 1-3 beside the paper's (Table 2).

    Raises
    ------
    SchedlibError
        If matplotlib is missing (names the `plot` extra).
    """
    from schedlib.results.plotting import pyplot, save_figure

    summary = [r for r in rows if "replicate" not in r and r["scheduler"] == "pgs"]
    names = list(dict.fromkeys(r["reading"] for r in summary))
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 4))
    width = 0.8 / (len(names) + 1)
    for offset, name in enumerate([*names, "the paper"]):
        heights = [
            PAPER_DIFFERENCE[s]
            if name == "the paper"
            else _cell(summary, name, s, "pgs")["difference_percent"]
            for s in RESTARTING
        ]
        xs = [s + (offset - len(names) / 2) * width for s in RESTARTING]
        ax.bar(xs, heights, width, label=name, color="black" if name == "the paper" else None)
    ax.set_xticks(list(RESTARTING))
    ax.set_xticklabels([f"scenario {s}" for s in RESTARTING])
    ax.set_ylabel("(FCFS - PGS) / PGS (%)")
    ax.set_title("The gain of PGS under each reading, beside the paper's (Table 2)")
    ax.legend(fontsize="small", ncol=3)
    fig.tight_layout()
    save_figure(fig, path)


def figures() -> dict[str, Callable[[Sequence[Mapping[str, Any]], str], None]]:
    """The page's figures: file name -> `draw(rows, path)`."""
    return {"pgs.png": plot, "pgs_readings.png": plot_readings}


def _minutes(mean: float, sd: float) -> str:
    return f"{mean:.2f} ± {sd:.2f}"


def _cell(
    summary: Sequence[Mapping[str, Any]], reading: str, scenario: int, scheduler: str
) -> Mapping[str, Any]:
    """The summary row of one (reading, scenario, scheduler)."""
    return next(
        r
        for r in summary
        if r["reading"] == reading and r["scenario"] == scenario and r["scheduler"] == scheduler
    )


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
                "PGS ours (min)": _minutes(p["makespan_minutes"], p["stdev"]),
                "PGS paper": _minutes(p["paper_minutes"], p["paper_stdev"]),
                "FCFS ours (min)": _minutes(f["makespan_minutes"], f["stdev"]),
                "FCFS paper": _minutes(f["paper_minutes"], f["paper_stdev"]),
                "difference ours": f"{p['difference_percent']:.2f} %",
                "difference paper": f"{p['paper_difference_percent']:.2f} %",
            }
        )
    return markdown_table(lines)


def _failures_table(rows: Sequence[Mapping[str, Any]]) -> str:
    lines = []
    for s, p, f in _main_pairs(rows):
        per = _lost_per_failure(f)
        lines.append(
            {
                "scenario": s,
                "PGS failures": f"{p['failures']:.1f}",
                "FCFS failures": f"{f['failures']:.1f}",
                "FCFS work lost": f"{f['wasted_seconds'] / 60:.1f} min",
                "lost per failure": f"{per:.1f} s",
                "abandoned / unschedulable": f"{p['abandoned'] + f['abandoned']} / "
                f"{p['unschedulable'] + f['unschedulable']}",
            }
        )
    return markdown_table(lines)


def _readings_table(rows: Sequence[Mapping[str, Any]]) -> str:
    summary = [r for r in rows if "replicate" not in r]
    names = list(dict.fromkeys(r["reading"] for r in summary))
    lines = []

    def cell(name: str, s: int, k: str) -> Mapping[str, Any]:
        return _cell(summary, name, s, k)

    for name in names:
        reading = READINGS.get(name)
        lines.append(
            {
                "reading": f"`{name}`" + (" (main)" if cell(name, 1, "pgs")["main"] else ""),
                "options": f"`{reading.options()}`" if reading and reading.options() else "-",
                "PGS (min), scenarios 0 / 1 / 2 / 3": " / ".join(
                    f"{cell(name, s, 'pgs')['makespan_minutes']:.2f}" for s in (0, *RESTARTING)
                ),
                "FCFS (min)": " / ".join(
                    f"{cell(name, s, 'fcfs')['makespan_minutes']:.2f}" for s in (0, *RESTARTING)
                ),
                "difference, scenarios 0 / 1 / 2 / 3": " / ".join(
                    f"{cell(name, s, 'pgs')['difference_percent']:.2f}" for s in (0, *RESTARTING)
                )
                + " %",
                "PGS sd (min), 1 / 2 / 3": " / ".join(
                    f"{cell(name, s, 'pgs')['stdev']:.2f}" for s in RESTARTING
                ),
                "FCFS sd (min)": " / ".join(
                    f"{cell(name, s, 'fcfs')['stdev']:.2f}" for s in RESTARTING
                ),
            }
        )
    paper = {
        "reading": "**the paper** (Table 2)",
        "options": "-",
        "PGS (min), scenarios 0 / 1 / 2 / 3": " / ".join(
            f"{PAPER_TABLE_2[(s, 'pgs')][0]:.2f}" for s in (0, *RESTARTING)
        ),
        "FCFS (min)": " / ".join(f"{PAPER_TABLE_2[(s, 'fcfs')][0]:.2f}" for s in (0, *RESTARTING)),
        "difference, scenarios 0 / 1 / 2 / 3": " / ".join(
            f"{PAPER_DIFFERENCE[s]:.2f}" for s in (0, *RESTARTING)
        )
        + " %",
        "PGS sd (min), 1 / 2 / 3": " / ".join(
            f"{PAPER_TABLE_2[(s, 'pgs')][1]:.2f}" for s in RESTARTING
        ),
        "FCFS sd (min)": " / ".join(f"{PAPER_TABLE_2[(s, 'fcfs')][1]:.2f}" for s in RESTARTING),
    }
    return markdown_table([*lines, paper])


def _verdicts_by_reading(rows: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, str]]:
    """reading -> claim key -> verdict, each reading's claims judged together."""
    names = list(dict.fromkeys(r["reading"] for r in rows if r.get("replicate") is not None))
    return {
        name: {c["key"]: c["verdict"] for c in claim_rows(claims(rows, reading=name))}
        for name in names
    }


def _reading_verdicts(verdicts: Mapping[str, Mapping[str, str]]) -> str:
    keys = list(next(iter(verdicts.values()))) if verdicts else []
    lines = [
        {"claim": key, **{f"`{name}`": _short(v[key]) for name, v in verdicts.items()}}
        for key in keys
    ]
    return markdown_table(lines)


def _size_fits(verdicts: Mapping[str, Mapping[str, str]]) -> str:
    """A sentence: under which readings the size of each scenario's difference holds."""
    held = {
        name: [s for s in RESTARTING if v.get(f"size-{s}") == "holds"]
        for name, v in verdicts.items()
    }
    some = {name: s for name, s in held.items() if s}
    if not some:
        return "under no reading does any of the three differences lie within the paper's precision"
    listed = "; ".join(
        f"`{name}` (scenario{'s' if len(s) > 1 else ''} {', '.join(map(str, s))})"
        for name, s in some.items()
    )
    every = [name for name, s in some.items() if len(s) == len(RESTARTING)]
    whole = (
        f"all three hold only under {', '.join(f'`{n}`' for n in every)}"
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


def _gaps(summary: Sequence[Mapping[str, Any]]) -> str:
    """A sentence: how far FCFS and PGS are from the paper's minutes under the overhead readings."""
    parts = []
    for name in ("overhead", "implied"):
        for scheduler in SCHEDULERS:
            gaps = {
                r["scenario"]: r["makespan_minutes"] - r["paper_minutes"]
                for r in summary
                if r["reading"] == name and r["scheduler"] == scheduler
            }
            if not gaps:
                continue
            worst = max(gaps, key=lambda s: abs(gaps[s]))
            parts.append(
                f"{scheduler.upper()} under `{name}` is at most {abs(gaps[worst]):.1f} min "
                f"from the paper's in any scenario ({gaps[worst]:+.1f} in scenario {worst})"
            )
    return "; ".join(parts)


def _short(verdict: str) -> str:
    return {"holds": "holds", "does not hold": "**no**", "inconclusive": "?"}.get(verdict, verdict)


def page_sections(full: Mapping[str, Any], quick: Mapping[str, Any]) -> dict[str, str]:
    """The generated sections of `docs/reproductions/pgs.md`, besides the claims tables (see
    [`schedlib.experiments.pages`][schedlib.experiments.pages])."""
    rows = full["rows"]
    summary = [r for r in rows if "replicate" not in r]

    def value(reading: str, scenario: int, scheduler: str, field: str) -> float:
        return float(_cell(summary, reading, scenario, scheduler)[field])

    readings = list(dict.fromkeys(r["reading"] for r in summary))
    verdicts = _verdicts_by_reading(rows)
    best = min(readings, key=lambda n: value(n, 3, "pgs", "makespan_minutes"))
    increasing_orders = [n for n in readings if READINGS.get(n, PAPER_READING).order
                         in ("increasing", "sweeps")]  # fmt: skip
    best_increasing = min(increasing_orders, key=lambda n: value(n, 3, "pgs", "makespan_minutes"))
    runs = int(summary[0]["runs"]) if summary else 0
    return {
        "full-table": _table_2(rows),
        "full-failures": _failures_table(rows),
        "full-readings": _readings_table(rows),
        "full-reading-verdicts": _reading_verdicts(verdicts),
        "full-size-fits": _size_fits(verdicts),
        "full-not-holding": _not_holding(full["claims"]),
        "full-gaps": _gaps(summary),
        "full-runs": str(runs),
        "full-overhead": f"{IMPLIED_OVERHEAD:g}",
        "full-overhead-fcfs-0": f"{value('overhead', 0, 'fcfs', 'makespan_minutes'):.2f}",
        "full-best-increasing": f"`{best_increasing}`",
        "full-best-increasing-pgs-3": (
            f"{value(best_increasing, 3, 'pgs', 'makespan_minutes'):.2f}"
        ),
        "full-best": f"`{best}`",
        "full-best-pgs-3": f"{value(best, 3, 'pgs', 'makespan_minutes'):.2f}",
        "full-margins": ", ".join(f"±{paper_margin(s):.2f}" for s in RESTARTING),
    }
