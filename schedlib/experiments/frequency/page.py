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
from schedlib.experiments.frequency.findings import (
    SAME,
    claims,
    reading_groups,
)
from schedlib.experiments.frequency.runs import _STATIC, Settings, _label, _number, conjunction
from schedlib.experiments.frequency.setup import (
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
from schedlib.results.verdicts import MeanEstimate


def _means(rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [r for r in rows if r.get("part") == "compare" and r.get("replicate") == "mean"]


def _by_reading(rows: Sequence[Mapping[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """Per reading (a group of identical readings is one), each claim's estimate and verdict:
    `(label, {key: (measured, verdict)})`, the default reading first."""
    measured = claims(rows)
    judged = claim_rows(measured)
    default = [(c.key, (c.estimate, row["verdict"])) for c, row in zip(measured, judged,
                                                                       strict=True)]  # fmt: skip
    out = [(reading_groups(rows)[0][0] if reading_groups(rows) else Readings().label,
            dict(default))]  # fmt: skip
    for index, (name, _) in enumerate(measured[0].readings if measured else ()):
        out.append(
            (
                name,
                {
                    c.key: (c.readings[index][1], row[f"verdict ({name})"])
                    for c, row in zip(measured, judged, strict=True)
                },
            )
        )
    return out


def _replicate_values(
    rows: Sequence[Mapping[str, Any]], policy: str, readings: str, field: str
) -> list[float]:
    return [
        float(r[field])
        for r in rows
        if r.get("part") == "compare"
        and isinstance(r.get("replicate"), int)
        and (r["policy"], r["readings"]) == (policy, readings)
        and not math.isnan(_number(r[field]))
    ]


_POLICY_NAMES = {"pfs": "PFS", "pfs+mfs": "PFS+MFS", "round_robin": "round robin", "fcfs": "FCFS"}
"""How the figures name the policies (their colours are those of `figures.colour`)."""
_COLOUR_OF = {"pfs": "pfs", "pfs+mfs": "mfs", "round_robin": "round_robin", "fcfs": "fcfs"}


_TITLES = {
    "cpu": "CPU-bound\nturnaround",
    "response": "response:\nall bursts",
    "short": f"response:\nbursts ≤ {SHORT_BURST:g} s",
}
"""The panel titles of the figures, one per test of the hypothesis."""


def _plain_log_ticks(axis: Any, ticks: Sequence[float]) -> None:
    """Plain numbers (not powers of ten) as the ticks of a logarithmic axis."""
    axis.set_ticks(list(ticks))
    axis.set_ticklabels([f"{t:g}" for t in ticks])
    axis.set_minor_formatter(_null_formatter())


def _null_formatter() -> Any:
    from matplotlib.ticker import NullFormatter

    return NullFormatter()


def plot_comparison(rows: Sequence[Mapping[str, Any]], path: str) -> None:
    """The four policies at the default readings: CPU-bound turnaround, interactive response
    (all bursts filled, short bursts hollow; a logarithmic axis, since FCFS's response is
    about ten times PFS's) and migrations per run, each the mean over replicates with its
    95 % interval (dots and error bars, no bars).

    Raises
    ------
    SchedlibError
        If matplotlib is missing (names the `plot` extra).
    """
    from schedlib.experiments.figures import colour, figure, label, marker, mean_interval, save

    default = {_label("pfs", Readings()), Readings().label, _STATIC}
    means = [r for r in _means(rows) if r["readings"] in default]
    policies = [r["policy"] for r in means]
    ys = list(range(len(policies)))
    fig, axes = figure(1, 3, height=2.6, sharey=True)
    panels = (
        (axes[0], (("cpu_turnaround", 0.0, True),), label("CPU-bound turnaround", "s")),
        (axes[1], (("response", -0.15, True), ("short_response", 0.15, False)),
         label("burst response", "s")),
        (axes[2], (("migrations", 0.0, True),), label("migrations", "per run")),
    )  # fmt: skip
    for ax, fields, title in panels:
        for field, shift, filled in fields:
            for y, r in zip(ys, means, strict=True):
                name = _COLOUR_OF.get(r["policy"], r["policy"])
                values = _replicate_values(rows, r["policy"], r["readings"], field)
                if not values:
                    continue
                mean, low, high = mean_interval(values)
                ax.errorbar([mean], [y + shift], xerr=[[mean - low], [high - mean]],
                            fmt=marker(name), color=colour(name), capsize=3, markersize=5,
                            markerfacecolor=colour(name) if filled else "white")  # fmt: skip
        ax.set_xlabel(title)
    axes[1].set_xscale("log")
    _plain_log_ticks(axes[1].xaxis, (0.3, 1, 3, 10))
    axes[0].set_yticks(ys)
    axes[0].set_yticklabels([_POLICY_NAMES.get(p, p) for p in policies])
    axes[0].invert_yaxis()
    axes[1].set_title(f"filled: all bursts\nhollow: bursts of at most {SHORT_BURST:g} s")
    save(fig, path)


def _reading_estimates(
    rows: Sequence[Mapping[str, Any]],
) -> list[tuple[str, list[tuple[float, float]]]]:
    """Per reading: (change, half-width) of each test of the hypothesis."""
    out = []
    for label, found in _by_reading(rows):
        values = []
        for key, *_ in HYPOTHESIS:
            estimate = found.get(f"mfs-{key}", (None, ""))[0]
            values.append(
                (estimate.value, estimate.half_width())
                if isinstance(estimate, MeanEstimate)
                else (math.nan, math.nan)
            )
        out.append((label, values))
    return out


def plot_readings(rows: Sequence[Mapping[str, Any]], path: str) -> None:
    """The hypothesis under each reading: the three changes with their 95 % intervals, the
    equivalence margin of the interactive tests shaded (a forest plot; readings whose runs
    are identical are one line).

    Raises
    ------
    SchedlibError
        If matplotlib is missing (names the `plot` extra).
    """
    from schedlib.experiments.figures import PALETTE, colour, figure, label, save

    estimates = _reading_estimates(rows)
    fig, axes = figure(1, len(HYPOTHESIS), height=1.2 + 0.42 * len(estimates), sharey=True)
    ys = list(range(len(estimates)))
    for ax, (index, (key, _, _, expect)) in zip(axes, enumerate(HYPOTHESIS), strict=True):
        values = [e[index] for _, e in estimates]
        if expect.low is not None and expect.high is not None:
            ax.axvspan(expect.low, expect.high, color=PALETTE["bluish green"], alpha=0.15,
                       linewidth=0)  # fmt: skip
        ax.axvline(0.0, color=PALETTE["black"], linewidth=0.8)
        ax.errorbar([v for v, _ in values], ys, xerr=[h for _, h in values], fmt="o",
                    color=colour("mfs"), capsize=3, markersize=4)  # fmt: skip
        ax.set_title(_TITLES[key])
        ax.set_xlabel(label("change against PFS", "%"))
    axes[0].set_yticks(ys)
    axes[0].set_yticklabels([name.replace(SAME, " =\n") for name, _ in estimates], fontsize=8.5)
    axes[0].invert_yaxis()
    save(fig, path)


def plot_sweep(
    rows: Sequence[Mapping[str, Any]], path: str, *, readings: str | None = None
) -> None:
    """The sweep under one reading: each test's change against `MAX_MF`, one line per $Q$,
    with its 95 % interval (error bars) and the claim's margin shaded; a symmetric
    logarithmic y axis beyond ±10 % (a small `MAX_MF` multiplies the CPU-bound turnaround).

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
    from schedlib.experiments.figures import PALETTE, figure, label, save

    sweep = [r for r in rows if r.get("part") == "sweep"]
    name = readings if readings is not None else (sweep[0]["readings"] if sweep else None)
    sweep = [r for r in sweep if r["readings"] == name]
    if not sweep:
        raise InvalidValueError("readings", name, "the rows hold no sweep under this reading")
    quanta = sorted({r["quantum"] for r in sweep})
    limits = sorted({r["max_mf"] for r in sweep})
    cell = {(r["quantum"], r["max_mf"]): r for r in sweep}
    # the quanta are not policies: colours that no policy of this page uses
    colours = [PALETTE[c] for c in ("blue", "orange", "reddish purple", "black", "sky blue")]
    styles = ("o", "s", "^", "D", "v")
    fig, axes = figure(1, len(HYPOTHESIS), height=3.2, sharey=True)
    xs = list(range(len(limits)))
    for ax, (key, _, _, expect) in zip(axes, HYPOTHESIS, strict=True):
        if expect.low is not None and expect.high is not None:
            ax.axhspan(expect.low, expect.high, color=PALETTE["bluish green"], alpha=0.15,
                       linewidth=0)  # fmt: skip
        ax.axhline(0.0, color=PALETTE["black"], linewidth=0.8)
        for k, q in enumerate(quanta):
            means = [_number(cell[(q, m)][f"{key}_change_pct"]) for m in limits]
            halves = [_number(cell[(q, m)][f"{key}_half_width"]) for m in limits]
            shift = (k - (len(quanta) - 1) / 2) * 0.1
            ax.errorbar([x + shift for x in xs], means, yerr=halves, color=colours[k % 5],
                        marker=styles[k % 5], markersize=4, capsize=2, linewidth=1.2,
                        label=f"Q = {q:g} s")  # fmt: skip
        ax.set_yscale("symlog", linthresh=10, linscale=2)
        ax.set_yticks([-10, -5, 0, 5, 10, 100, 1000])
        ax.set_yticklabels(["-10", "-5", "0", "5", "10", "100", "1000"])
        ax.yaxis.set_minor_formatter(_null_formatter())
        ax.set_xticks(xs)
        ax.set_xticklabels([str(m) for m in limits])
        ax.set_xlabel("MAX_MF")
        ax.set_title(_TITLES[key])
    axes[0].set_ylabel(label("change against PFS", "%"))
    handles, texts = axes[0].get_legend_handles_labels()
    fig.legend(handles, texts, loc="outside lower center", ncol=len(quanta))
    save(fig, path)


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


def _with_interval(rows: Sequence[Mapping[str, Any]], r: Mapping[str, Any], field: str,
                   digits: int) -> str:  # fmt: skip
    """The mean of `field` over the replicates of `r`'s policy and reading, ± the 95 %
    half-width (the page's ±)."""
    values = _replicate_values(rows, r["policy"], r["readings"], field)
    if not values:
        return _fmt(r[field], digits)
    estimate = MeanEstimate(tuple(values))
    half = estimate.half_width()
    shown = f"{estimate.mean:.{digits}f}"
    return shown if math.isnan(half) else f"{shown} ± {half:.{digits}f}"


def _who(r: Mapping[str, Any]) -> str:
    return f"`{r['policy']}`" + ("" if r["readings"] == _STATIC else f"<br>`{r['readings']}`")


def _compare_tables(rows: Sequence[Mapping[str, Any]]) -> tuple[str, str]:
    """The comparison's means over replicates: the jobs' times, and the moves per run."""
    times, moves = [], []
    for r in _means(rows):
        times.append({
            "policy, reading": _who(r),
            "CPU-bound turnaround (s)": _with_interval(rows, r, "cpu_turnaround", 1),
            "response, all bursts (s)": _with_interval(rows, r, "response", 2),
            "95th percentile (s)": _fmt(r["response_p95"], 2),
            f"response, bursts ≤ {SHORT_BURST:g} s (s)": _with_interval(
                rows, r, "short_response", 2),
        })  # fmt: skip
        moves.append({
            "policy, reading": _who(r),
            "migrations per run": _fmt(r["migrations"]),
            "preemptions per run": _fmt(r["preemptions"], 0),
            "jobs banned per run": _fmt(r["banned"]),
        })  # fmt: skip
    return markdown_table(times), markdown_table(moves)


def _readings_table(rows: Sequence[Mapping[str, Any]]) -> str:
    table = []
    for label, found in _by_reading(rows):
        row: dict[str, str] = {"reading": " = ".join(f"`{x}`" for x in label.split(SAME))}
        verdicts = []
        for key, _, what, _ in HYPOTHESIS:
            measured, verdict = found[f"mfs-{key}"]
            verdicts.append(verdict)
            shown = "-" if measured is None else measured.describe()
            row[f"{what} (%)"] = f"{shown} **{verdict}**"
        row["the hypothesis"] = f"**{conjunction(verdicts)}**"
        table.append(row)
    return markdown_table(table)


def _sweep_table(rows: Sequence[Mapping[str, Any]], label: str) -> str:
    """One row per ($Q$, `MAX_MF`): each test's change in % (mean ± 95 % half-width) over its
    verdict, the jobs banned per run, and the cell's verdict."""
    table = []
    for r in rows:
        if r.get("part") != "sweep" or r["readings"] != label:
            continue
        row: dict[str, str] = {"$Q$ (s), `MAX_MF`": f"{r['quantum']:g}, {r['max_mf']}"}
        for key, _, what, _ in HYPOTHESIS:
            row[f"{what} (%)"] = (
                f"{_fmt(r[f'{key}_change_pct'], sign=True)} ± {_fmt(r[f'{key}_half_width'])}"
                f"<br>{r[f'{key}_verdict']}"
            )
        row["jobs banned per run"] = _fmt(r["banned"])
        row["verdict"] = f"**{r['verdict']}**"
        table.append(row)
    return markdown_table(table)


def _claims_by_reading(document: Mapping[str, Any], prefix: str) -> str:
    """For each claim whose key starts with `prefix` (numbered as in the verdicts at a
    glance), the readings under which it holds, does not hold, ... (a sentence)."""
    default = Readings().label
    parts = []
    for number, claim in enumerate(document["claims"], start=1):
        if not claim["key"].startswith(prefix):
            continue
        found: dict[str, list[str]] = {}
        found.setdefault(claim["verdict"], []).append(default)
        for column, verdict in claim.items():
            if column.startswith("verdict ("):
                found.setdefault(verdict, []).append(column[len("verdict (") : -1])
        if len(found) == 1:
            parts.append(f"claim {number} {claim['verdict']} under every reading")
        else:
            parts.append(
                f"claim {number} "
                + "; ".join(
                    f"{verdict} under " + ", ".join(f"`{x}`" for x in readings)
                    for verdict, readings in found.items()
                )
            )
    return "; ".join(parts) if parts else "none"


def _collapsed(title: str, text: str) -> str:
    """`text` in a collapsible block (closed) titled `title`."""
    body = "\n".join(f"    {line}" if line else "" for line in text.splitlines())
    return f'??? note "{title}"\n\n{body}'


def _hypothesis_by_reading(rows: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    return {
        label: conjunction([found[f"mfs-{key}"][1] for key, *_ in HYPOTHESIS])
        for label, found in _by_reading(rows)
    }


def _readings_where(rows: Sequence[Mapping[str, Any]], verdict: str) -> str:
    found = [
        " = ".join(f"`{x}`" for x in label.split(SAME))
        for label, v in _hypothesis_by_reading(rows).items()
        if v == verdict
    ]
    return ", ".join(found) if found else "none"


def _half_widths(rows: Sequence[Mapping[str, Any]], key: str) -> tuple[float, float]:
    """The smallest and largest 95 % half-width of test `key` over the readings (percent)."""
    widths = [
        found[f"mfs-{key}"][0].half_width()
        for _, found in _by_reading(rows)
        if isinstance(found[f"mfs-{key}"][0], MeanEstimate)
    ]
    return (min(widths), max(widths)) if widths else (math.nan, math.nan)


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
    """The readings of `pfs+mfs` whose runs are identical in every replicate (one schedule)."""
    groups = [" and ".join(f"`{x}`" for x in g) for g in reading_groups(rows) if len(g) > 1]
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
        "full-compare-times": _compare_tables(rows)[0],
        "full-compare-moves": _compare_tables(rows)[1],
        "full-readings": _readings_table(rows),
        "full-holds": _readings_where(rows, "holds"),
        "full-fails": _readings_where(rows, "does not hold"),
        "full-inconclusive": _readings_where(rows, "inconclusive"),
        "full-cpu-widths": f"{cpu_low:.1f} to {cpu_high:.1f}",
        "full-response-widths": (
            f"{min(w[0] for w in response):.1f} to {max(w[1] for w in response):.1f}"
        ),
        "quick-replicates": str(quick_means[0]["replicates"]) if quick_means else "0",
        "full-setup": _setup_table(rows),
        "full-short": f"{SHORT_BURST:g}",
        "full-identical": _identical(rows),
        "full-pfs-readings": _claims_by_reading(full, "pfs-"),
        "full-stability": _stability(full),
    }
    for read in SWEEP_READINGS:
        sections[f"full-sweep-{read.next_burst}"] = _collapsed(
            f"The sweep under `{read.label}`, cell by cell", _sweep_table(rows, read.label)
        )
    return sections
