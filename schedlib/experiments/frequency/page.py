"""The figures and the generated sections of `docs/reproductions/frequency.md`.

See [`schedlib.experiments.pages`][schedlib.experiments.pages] for how a page's
sections are generated and checked.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from schedlib.errors import InvalidValueError
from schedlib.experiments.claims import claim_rows
from schedlib.experiments.frequency.findings import _per_replicate, claims
from schedlib.experiments.frequency.runs import _STATIC, Settings, _label, _number, conjunction
from schedlib.experiments.frequency.setup import (
    _MEASURES,
    DEFAULT_COST,
    DEFAULT_SHAPE,
    HYPOTHESIS,
    MARGIN,
    POOL,
    SHORT_BURST,
    SWEEP_READINGS,
)
from schedlib.experiments.pages import markdown_table
from schedlib.frequency.pfs import DEFAULT_GRACE
from schedlib.frequency.policies import Readings


def _means(rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [r for r in rows if r.get("part") == "compare" and r.get("replicate") == "mean"]


def plot_comparison(rows: Sequence[Mapping[str, Any]], path: str) -> None:
    """Bars of the comparison at the default readings: turnaround, response, moves.

    Raises
    ------
    SchedlibError
        If matplotlib is missing (names the `plot` extra).
    """
    from schedlib.results.plotting import pyplot, save_figure

    plt = pyplot()
    default = {_label("pfs", Readings()), Readings().label, _STATIC}
    means = [r for r in _means(rows) if r["readings"] in default]
    names = [r["policy"] for r in means]
    xs = list(range(len(means)))
    colours = ["tab:blue", "tab:orange", "tab:green", "tab:red"][: len(means)]
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.8))
    axes[0].bar(
        xs,
        [r["cpu_turnaround"] for r in means],
        yerr=[r["cpu_turnaround_sd"] for r in means],
        capsize=4,
        color=colours,
    )
    axes[0].set_title("CPU-bound jobs: mean turnaround (s)")
    width = 0.4
    axes[1].bar(
        [x - width / 2 for x in xs],
        [r["response"] for r in means],
        width,
        yerr=[r["response_sd"] for r in means],
        capsize=3,
        color=colours,
        label="all bursts",
    )
    axes[1].bar(
        [x + width / 2 for x in xs],
        [r["short_response"] for r in means],
        width,
        color=colours,
        alpha=0.5,
        hatch="//",
        label=f"bursts <= {SHORT_BURST:g} s",
    )
    axes[1].set_yscale("log")
    axes[1].set_title("interactive jobs: mean burst response (s)")
    axes[1].legend(fontsize="small")
    axes[2].bar(
        [x - width / 2 for x in xs],
        [r["preemptions"] / 100 for r in means],
        width,
        color="tab:gray",
        label="preemptions / 100",
    )
    axes[2].bar(
        [x + width / 2 for x in xs],
        [r["migrations"] for r in means],
        width,
        color="tab:purple",
        label="migrations",
    )
    axes[2].set_title("per run")
    axes[2].legend(fontsize="small")
    for ax in axes:
        ax.set_xticks(xs)
        ax.set_xticklabels(names)
        ax.grid(axis="y", alpha=0.3)
    first = means[0] if means else {"quantum": math.nan, "max_mf": "?", "replicates": "?"}
    fig.suptitle(
        f"The four policies at the default readings (Q = {first['quantum']:g} s, "
        f"MAX_MF = {first['max_mf']}), means over {first['replicates']} replicates; "
        "error bars: sd over replicates"
    )
    fig.tight_layout()
    save_figure(fig, path, dpi=100)


def _reading_estimates(
    rows: Sequence[Mapping[str, Any]],
) -> list[tuple[str, list[tuple[float, float]]]]:
    """Per reading: (change, half-width) of each test of the hypothesis."""
    found = {c.key: c.estimate for c in claims(rows)}
    out = []
    for read in Readings.every():
        values = []
        for key, *_ in HYPOTHESIS:
            estimate = found.get(f"mfs-{key}/{read.label}")
            values.append(
                (math.nan, math.nan)
                if estimate is None
                else (estimate.value, estimate.half_width())  # type: ignore[union-attr]
            )
        out.append((read.label, values))
    return out


def plot_readings(rows: Sequence[Mapping[str, Any]], path: str) -> None:
    """The hypothesis under each reading: the three changes with their 95 % intervals.

    Raises
    ------
    SchedlibError
        If matplotlib is missing (names the `plot` extra).
    """
    from schedlib.results.plotting import pyplot, save_figure

    plt = pyplot()
    estimates = _reading_estimates(rows)
    fig, axes = plt.subplots(1, len(HYPOTHESIS), figsize=(15, 4.6), sharey=True)
    ys = list(range(len(estimates)))
    for ax, (index, (_, _, what, expect)) in zip(axes, enumerate(HYPOTHESIS), strict=True):
        values = [e[index] for _, e in estimates]
        ax.errorbar(
            [v for v, _ in values],
            ys,
            xerr=[h for _, h in values],
            fmt="o",
            color="tab:blue",
            capsize=3,
        )
        ax.axvline(0.0, color="black", linewidth=0.8)
        if expect.low is not None and expect.high is not None:
            ax.axvspan(expect.low, expect.high, color="tab:green", alpha=0.15)
        ax.set_title(f"{what}\n(% change; expected {expect.describe('%')})", fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(ys)
    axes[0].set_yticklabels([label for label, _ in estimates], fontsize=8)
    axes[0].invert_yaxis()
    fig.suptitle("PFS+MFS against PFS under each reading: mean change and 95 % interval")
    fig.tight_layout()
    save_figure(fig, path, dpi=100)


def plot_sweep(
    rows: Sequence[Mapping[str, Any]], path: str, *, readings: str | None = None
) -> None:
    """Heat maps of the sweep under one reading: the three changes in percent, with verdicts.

    Parameters
    ----------
    rows
        Rows of `reproduce`.
    path
        The PNG to write.
    readings
        The reading's label (default: the first one swept).

    Raises
    ------
    SchedlibError
        If matplotlib is missing (names the `plot` extra).
    InvalidValueError
        If the rows hold no sweep under that reading.
    """
    from schedlib.results.plotting import pyplot, save_figure

    plt = pyplot()
    sweep = [r for r in rows if r.get("part") == "sweep"]
    label = readings if readings is not None else (sweep[0]["readings"] if sweep else None)
    sweep = [r for r in sweep if r["readings"] == label]
    if not sweep:
        raise InvalidValueError("readings", label, "the rows hold no sweep under this reading")
    quanta = sorted({r["quantum"] for r in sweep})
    limits = sorted({r["max_mf"] for r in sweep})
    cell = {(r["quantum"], r["max_mf"]): r for r in sweep}
    fig, axes = plt.subplots(1, len(HYPOTHESIS), figsize=(15, 4.4))
    for ax, (key, _, what, _) in zip(axes, HYPOTHESIS, strict=True):
        grid = [[_number(cell[(q, m)][f"{key}_change_pct"]) for m in limits] for q in quanta]
        image = ax.imshow(grid, cmap="RdYlGn_r", vmin=-20, vmax=20, aspect="auto")
        for i, q in enumerate(quanta):
            for j, m in enumerate(limits):
                row = cell[(q, m)]
                ax.text(
                    j,
                    i,
                    f"{_number(row[f'{key}_change_pct']):+.1f}\n"
                    f"±{_number(row[f'{key}_half_width']):.1f}\n{row[f'{key}_verdict']}",
                    ha="center",
                    va="center",
                    fontsize=7,
                )
        ax.set_xticks(range(len(limits)))
        ax.set_xticklabels([str(m) for m in limits])
        ax.set_yticks(range(len(quanta)))
        ax.set_yticklabels([f"{q:g}" for q in quanta])
        ax.set_xlabel("MAX_MF")
        ax.set_ylabel("quantum Q (s)")
        ax.set_title(f"{what} (% change)", fontsize=9)
        fig.colorbar(image, ax=ax, fraction=0.046)
    fig.suptitle(
        f"PFS+MFS against PFS, reading {label}: mean change ± 95 % half-width and the verdict "
        "of each test (Holm over the whole sweep); colours clipped at ±20 %"
    )
    fig.tight_layout()
    save_figure(fig, path, dpi=100)


def figures() -> dict[str, Callable[[Sequence[Mapping[str, Any]], str], None]]:
    """The page's figures: file name -> `draw(rows, path)`."""
    out: dict[str, Callable[[Sequence[Mapping[str, Any]], str], None]] = {
        "frequency.png": plot_comparison,
        "frequency_readings.png": plot_readings,
    }
    for read in SWEEP_READINGS:
        out[_sweep_figure(read)] = partial(plot_sweep, readings=read.label)
    return out


def _sweep_figure(readings: Readings) -> str:
    return f"frequency_sweep_{readings.next_burst.replace('-', '_')}.png"


def _fmt(value: Any, digits: int = 1, sign: bool = False) -> str:
    number = _number(value)
    if math.isnan(number):
        return "-"
    return f"{number:+.{digits}f}" if sign else f"{number:.{digits}f}"


def _compare_table(rows: Sequence[Mapping[str, Any]]) -> str:
    table = []
    for r in _means(rows):
        table.append(
            {
                "policy": f"`{r['policy']}`",
                "readings": f"`{r['readings']}`",
                "CPU-bound turnaround (s)": f"{_fmt(r['cpu_turnaround'])} ± "
                f"{_fmt(r['cpu_turnaround_sd'])}",
                "response, all bursts (s)": f"{_fmt(r['response'], 2)} ± "
                f"{_fmt(r['response_sd'], 2)}",
                "p95 (s)": _fmt(r["response_p95"], 2),
                "response, short bursts (s)": _fmt(r["short_response"], 2),
                "migrations": _fmt(r["migrations"]),
                "preemptions": _fmt(r["preemptions"], 0),
                "banned": _fmt(r["banned"]),
            }
        )
    return markdown_table(table)


def _readings_table(document: Mapping[str, Any]) -> str:
    judged = {c["key"]: c for c in document["claims"]}
    table = []
    for read in Readings.every():
        row: dict[str, str] = {"reading": f"`{read.label}`"}
        verdicts = []
        for key, _, what, _ in HYPOTHESIS:
            claim_row = judged[f"mfs-{key}/{read.label}"]
            verdicts.append(claim_row["verdict"])
            row[what] = f"{claim_row['ours']} **{claim_row['verdict']}**"
        row["the hypothesis"] = f"**{conjunction(verdicts)}**"
        table.append(row)
    return markdown_table(table)


def _sweep_table(rows: Sequence[Mapping[str, Any]], label: str) -> str:
    table = []
    for r in rows:
        if r.get("part") != "sweep" or r["readings"] != label:
            continue
        row: dict[str, str] = {"$Q$": f"{r['quantum']:g}", "`MAX_MF`": str(r["max_mf"])}
        for key, _, what, _ in HYPOTHESIS:
            row[what] = (
                f"{_fmt(r[f'{key}_change_pct'], sign=True)} ± {_fmt(r[f'{key}_half_width'])} "
                f"({r[f'{key}_verdict']})"
            )
        row["banned / run"] = _fmt(r["banned"])
        row["verdict"] = f"**{r['verdict']}**"
        table.append(row)
    return markdown_table(table)


def _hypothesis_by_reading(document: Mapping[str, Any]) -> dict[str, str]:
    judged = {c["key"]: c["verdict"] for c in document["claims"]}
    return {
        read.label: conjunction([judged[f"mfs-{key}/{read.label}"] for key, *_ in HYPOTHESIS])
        for read in Readings.every()
    }


def _readings_where(document: Mapping[str, Any], verdict: str) -> str:
    found = [f"`{label}`" for label, v in _hypothesis_by_reading(document).items() if v == verdict]
    return ", ".join(found) if found else "none"


def _half_widths(rows: Sequence[Mapping[str, Any]], key: str) -> tuple[float, float]:
    """The smallest and largest 95 % half-width of test `key` over the readings (percent)."""
    widths = [
        c.estimate.half_width()  # type: ignore[union-attr]
        for c in claims(rows)
        if c.key.startswith(f"mfs-{key}/") and c.estimate is not None
    ]
    return (min(widths), max(widths)) if widths else (math.nan, math.nan)


def _default_cell(document: Mapping[str, Any]) -> str:
    judged = {c["key"]: c for c in document["claims"]}
    label = Readings().label
    parts = [f"{what} {judged[f'mfs-{key}/{label}']['ours']}" for key, _, what, _ in HYPOTHESIS]
    return "; ".join(parts)


def _setup_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """The setup of the documented run, from the module's constants and the rows."""
    means = _means(rows)
    first = means[0] if means else {"quantum": math.nan, "max_mf": "?", "replicates": 0}
    sweep = [r for r in rows if r.get("part") == "sweep"]
    shape, cost = DEFAULT_SHAPE, DEFAULT_COST
    remote = ", ".join(f"({n.speed:g}, {n.availability:g})" for n in POOL[1:])
    rates = [n.rate for n in POOL[1:]]
    count = int(_number(first["replicates"]))
    seed = first.get("seed", 0)
    quanta = ", ".join(f"{q:g}" for q in sorted({r["quantum"] for r in sweep}))
    limits = ", ".join(str(m) for m in sorted({r["max_mf"] for r in sweep}))
    swept = ", ".join(f"`{x}`" for x in dict.fromkeys(r["readings"] for r in sweep))
    table = [
        (
            "pool",
            f"a head node (speed {POOL[0].speed:g}, availability {POOL[0].availability:g}) "
            f"and {len(POOL) - 1} remote nodes, (speed, availability): {remote} — rates "
            f"$s a$ from {min(rates):g} to {max(rates):g}, {sum(rates):g} in all",
        ),
        (
            "interactive jobs",
            f"{shape.interactive} per replicate; {shape.bursts[0]}-"
            f"{shape.bursts[1]} CPU bursts of exponential work (mean {shape.burst_mean:g} s) "
            f"separated by exponential idle times (mean {shape.think_mean:g} s)",
        ),
        (
            "morphing jobs",
            f"a share {shape.morph_share:g} of the interactive jobs (`--morph-share`) "
            f"has one burst, not its first, of {shape.morph_work[0]:g}-{shape.morph_work[1]:g} s "
            "(the report's image-processing job that \"morph[s] into more CPU-intensive "
            'computation")',
        ),
        (
            "CPU-bound jobs",
            f"{shape.cpu_bound} per replicate, one burst of "
            f"$U({shape.cpu_work[0]:g}, {shape.cpu_work[1]:g})$ s of work",
        ),
        ("arrivals", f"uniform over {shape.horizon:g} s (a Poisson process given the count)"),
        (
            "comparison",
            f"$Q$ = {_number(first['quantum']):g} s, $g$ = {DEFAULT_GRACE:g} (the "
            f"report's), `MAX_PREEMPTION` {Settings().max_preemption}, `MAX_MF` "
            f"{first['max_mf']}, $K_C$ = {cost.communication:g} s, "
            f"$K_{{C/R}}$ = {cost.checkpoint_restart:g} s ($K$ = {cost.total:g} s)",
        ),
        (
            "sweep",
            f"$Q \\in \\{{{quanta}\\}}$ × `MAX_MF` $\\in \\{{{limits}\\}}$ under {swept}",
        ),
        ("replicates", f"{count} (seed {seed}, replicates 0..{count - 1})"),
        (
            "policies",
            "`pfs`, `pfs+mfs` (under each reading), and the static-placement baselines "
            "`round_robin` and `fcfs`",
        ),
    ]
    return markdown_table([{"": f"**{k}**", " ": v} for k, v in table])


def _stability(full: Mapping[str, Any], sizes: Sequence[int] = (20, 30)) -> str:
    """How many of the documented verdicts the first `n` replicates of the run would change."""
    rows = full["rows"]
    documented = {c["key"]: c["verdict"] for c in full["claims"]}
    parts = []
    for n in sizes:
        fewer = [
            r for r in rows if not (isinstance(r.get("replicate"), int) and r["replicate"] >= n)
        ]
        changed = [
            (documented[row["key"]], row["verdict"])
            for row in claim_rows(claims(fewer))
            if row["verdict"] != documented[row["key"]]
        ]
        weaker = sum(1 for _, now in changed if now == "inconclusive")
        parts.append(
            f"at {n} replicates {len(changed)} of the {len(documented)} verdicts differ from "
            f"those at {len({r['replicate'] for r in rows if isinstance(r.get('replicate'), int)})}"
            f" ({weaker} of them decided at full size and inconclusive with fewer)"
        )
    return "; ".join(parts)


def _identical(rows: Sequence[Mapping[str, Any]]) -> str:
    """The readings of `pfs+mfs` whose runs measure the same in every replicate."""
    runs = _per_replicate(rows)
    seen: dict[tuple[Any, ...], list[str]] = {}
    for (policy, label), by_replicate in runs.items():
        if policy == "pfs+mfs":
            key = tuple(tuple(by_replicate[r][m] for m in _MEASURES) for r in sorted(by_replicate))
            seen.setdefault(key, []).append(f"`{label}`")
    groups = [" and ".join(labels) for labels in seen.values() if len(labels) > 1]
    return "; ".join(groups) if groups else "no two readings"


def page_sections(full: Mapping[str, Any], quick: Mapping[str, Any]) -> dict[str, str]:
    """The generated sections of `docs/reproductions/frequency.md`, besides the claims tables
    (see [`schedlib.experiments.pages`][schedlib.experiments.pages])."""
    rows = full["rows"]
    compare = [r for r in rows if r.get("part") == "compare" and r.get("replicate") == "mean"]
    first = compare[0] if compare else {"replicates": 0, "quantum": math.nan, "max_mf": "?"}
    cpu_low, cpu_high = _half_widths(rows, "cpu")
    response = [_half_widths(rows, key) for key in ("response", "short")]
    quick_means = _means(quick["rows"])
    sections = {
        "full-replicates": str(first["replicates"]),
        "full-quantum": f"{_number(first['quantum']):g}",
        "full-max-mf": str(first["max_mf"]),
        "full-margin": f"{MARGIN:g}",
        "full-compare": _compare_table(rows),
        "full-readings": _readings_table(full),
        "full-holds": _readings_where(full, "holds"),
        "full-fails": _readings_where(full, "does not hold"),
        "full-inconclusive": _readings_where(full, "inconclusive"),
        "full-default-cell": _default_cell(full),
        "full-cpu-widths": f"{cpu_low:.1f} to {cpu_high:.1f}",
        "full-response-widths": (
            f"{min(w[0] for w in response):.1f} to {max(w[1] for w in response):.1f}"
        ),
        "quick-replicates": str(quick_means[0]["replicates"]) if quick_means else "0",
        "full-setup": _setup_table(rows),
        "full-short": f"{SHORT_BURST:g}",
        "full-identical": _identical(rows),
        "full-stability": _stability(full),
    }
    for read in SWEEP_READINGS:
        sections[f"full-sweep-{read.next_burst}"] = _sweep_table(rows, read.label)
    return sections
