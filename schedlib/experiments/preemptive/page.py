"""The generated sections of `docs/reproductions/preemptive.md` and its figures.

See [`schedlib.experiments.pages`][schedlib.experiments.pages] for how a page's
sections are generated and checked, and
`schedlib.experiments.figures` for the figures' style.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from schedlib.experiments.claims import OURS_MARK, VERDICTS
from schedlib.experiments.pages import markdown_table, top_level_parts
from schedlib.experiments.preemptive.findings import SHORT_NAMES
from schedlib.experiments.preemptive.runs import (
    DEFAULT_NAME,
    _canonical,
    _mean,
    design,
    victim_readings_differ,
)
from schedlib.experiments.preemptive.setup import (
    CAN,
    FCFS,
    KINDS,
    LABELS,
    LOCAL,
    NN,
    PAPER_NODES,
    QUANTILES,
)

_SCHEDULERS = (FCFS, LOCAL, NN, CAN)
_KEYS = {label: key for key, label in LABELS.items()}  # label -> colour key ("local", "2nn")


def _order(label: str) -> int:
    labels = list(LABELS.values())
    return labels.index(label) if label in labels else len(labels)


def _pick(rows: Sequence[Mapping[str, Any]], **match: Any) -> list[Mapping[str, Any]]:
    return [r for r in rows if all(r.get(k) == v for k, v in match.items())]


def _default(rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [r for r in rows if r.get("reading", DEFAULT_NAME) == DEFAULT_NAME]


def _iats(rows: Sequence[Mapping[str, Any]]) -> list[float]:
    return sorted({r["paper_iat"] for r in rows})


def _mean_of(rows: Sequence[Mapping[str, Any]], field: str) -> float:
    return _mean([r[field] for r in rows if r.get(field) is not None])


def _seconds(x: float) -> str:
    return "-" if x != x else f"{x:,.0f}"


def _by_iat(
    rows: Sequence[Mapping[str, Any]],
    field: str,
    shown: Callable[[float], str] = _seconds,
    per_job: bool = False,
) -> str:
    """One row per scheduler, one column per IAT: the mean over replicates of `field`."""
    iats = _iats(rows)
    table = []
    for label in sorted({r["scheduler"] for r in rows}, key=_order):
        line = {"scheduler": label}
        for iat in iats:
            found = _pick(rows, scheduler=label, paper_iat=iat)
            value = _mean([r[field] / (r["jobs"] if per_job else 1) for r in found])
            line[f"IAT {iat:g} s"] = shown(value) if found else "-"
        table.append(line)
    return markdown_table(table, ["scheduler", *[f"IAT {i:g} s" for i in iats]])


def _results(rows: Sequence[Mapping[str, Any]], alpha: float) -> str:
    """The main grid at `alpha` in a collapsible block: one small table per measure
    (schedulers by IAT), the measures the claims are judged on first."""
    chosen = _pick(_default(rows), study="main", delta=5.0, alpha=alpha, victims="lower")
    parts = []
    for field, title, per_job in (
        ("median_node_wait", "median node wait (s)", False),
        ("mean_node_wait", "mean node wait (s)", False),
        ("tail10_node_wait", "top-10 % median: median node wait of the 10 % longest (s)", False),
        ("top4_node_wait", "top-4 % mean: mean node wait of the 4 % longest (s)", False),
        ("preemptions", "preemptions per measured job", True),
        ("migrations", "migrations per measured job", True),
        ("median_wait", "median total wait, from submission (s)", False),
    ):
        shown = (lambda x: f"{x:.3f}") if per_job else _seconds
        parts.append(f"**{title}**\n\n{_by_iat(chosen, field, shown, per_job)}")
    body = "\n\n".join(parts)
    return (
        f'??? note "Every scheduler at alpha {alpha:g}, delta 5 s: waits, preemptions and '
        'migrations by IAT"\n'
        + "\n".join(f"    {line}" if line else "" for line in body.split("\n"))
    )


_READING_WORDS = {
    DEFAULT_NAME: "default: small jobs, global matchmaker, preloaded grid, PUSH when it fits",
    "sizes=skewed": "skewed job sizes (1/2/4/8 cores like the nodes)",
    "matchmaker=limited:2": "matchmaker: the less loaded of 2 random suitable nodes",
    "warm-up=none": "no warm-up: an empty grid at the start",
    "push=preempt": "a PUSH receiver may preempt for the job",
}
_HEADS = {
    DEFAULT_NAME: "default",
    "sizes=skewed": "skewed sizes",
    "matchmaker=limited:2": "limited:2",
    "warm-up=none": "no warm-up",
    "push=preempt": "PUSH preempts",
}


def _head(name: str) -> str:
    return _HEADS.get(name, name)


def _reading_names(claims: Sequence[Mapping[str, str]]) -> list[str]:
    first = claims[0] if claims else {}
    return [c[len("verdict (") : -1] for c in first if c.startswith("verdict (")]


def glance(claims: Sequence[Mapping[str, str]]) -> str:
    """The verdicts at a glance: one row per claim (its short name and section), its
    verdict under the default reading (the paper's count, in bold) and under each other
    reading, then the counts per reading."""
    names = _reading_names(claims)
    table = []
    for i, row in enumerate(claims, start=1):
        line = {"claim": f"{i}. {SHORT_NAMES.get(row['key'], row['key'])}",
                "default": f"**{row['verdict']}**"}  # fmt: skip
        line.update({_head(n): row[f"verdict ({n})"] for n in names})
        table.append(line)
    counts = [f"default (the paper's count): {_counted(claims, 'verdict')}"]
    counts += [f"{_head(n)}: {_counted(claims, f'verdict ({n})')}" for n in names]
    ours = sum(1 for c in claims if c["claim"].endswith(OURS_MARK))
    return (
        markdown_table(table)
        + f"\n\nClaims of the paper ({len(claims) - ours}; ours apart) per reading: "
        + "; ".join(counts)
        + ". Each reading is judged as a family of its own."
    )


def _counted(claims: Sequence[Mapping[str, str]], column: str) -> str:
    papers = [c for c in claims if not c["claim"].endswith(OURS_MARK)]
    found = {v: sum(1 for c in papers if c[column] == v) for v in VERDICTS}
    return ", ".join(f"{n} {v}" for v, n in found.items() if n)


def summary(claims: Sequence[Mapping[str, str]]) -> str:
    """One paragraph: which claims hold under the default reading, which do not, and what
    each other reading changes."""

    def listed(keys: Sequence[str]) -> str:
        numbers = {c["key"]: i for i, c in enumerate(claims, start=1)}
        return ", ".join(f"{numbers[k]} ({SHORT_NAMES.get(k, k).split(' (')[0]})" for k in keys)

    papers = [c for c in claims if not c["claim"].endswith(OURS_MARK)]
    parts = []
    for verdict in VERDICTS:
        keys = [c["key"] for c in papers if c["verdict"] == verdict]
        if keys:
            parts.append(f"*{verdict}*: {listed(keys)}")
    text = "Under the default reading, " + "; ".join(parts) + "."
    changes = []
    for name in _reading_names(claims):
        moved = [c for c in papers if c[f"verdict ({name})"] != c["verdict"]]
        if not moved:
            changes.append(f"{_head(name)} changes no verdict")
            continue
        shown = ", ".join(f"{claims.index(c) + 1} to {c[f'verdict ({name})']}" for c in moved)
        changes.append(f"{_head(name)} changes {len(moved)} ({shown})")
    if changes:
        text += " Against the default, " + "; ".join(changes) + "."
    return text


def reading_loads(rows: Sequence[Mapping[str, Any]]) -> str:
    """Per reading: the offered load of cores, memory and disk (the mean over replicates, at
    the smallest IAT -> at the largest) and FCFS's departures per arrival over the measured
    jobs' arrival span (the lowest over the IATs)."""
    readings = list(dict.fromkeys(r.get("reading", DEFAULT_NAME) for r in rows))
    iats = _iats(rows)
    table = []
    for name in readings:
        fcfs = _pick(rows, reading=name, scheduler=FCFS, study="main")
        if not fcfs or not iats:
            continue
        ends = [_pick(fcfs, paper_iat=iat) for iat in (iats[0], iats[-1])]
        line = {"reading": _head(name)}
        for kind in KINDS:
            low, high = (_mean_of(found, f"load_{kind}") for found in ends)
            line[f"{kind} load"] = f"{low:.2f} → {high:.2f}"
        departures = [_mean_of(_pick(fcfs, paper_iat=iat), "departures") for iat in iats]
        line["departures per arrival, lowest"] = f"{min(departures):.2f}"
        table.append(line)
    if not table:
        return "(not run)"
    return markdown_table(table)


def _estimate(row: Mapping[str, str]) -> str:
    """A claim's estimate without the further figures after it: for a claim over several
    configurations, how many hold (and the ties left out), without the list of each.

    Examples
    --------
    >>> _estimate({"ours": "every: 1 of 2 configurations hold (a: holds; b: inconclusive); "
    ...            "1 tie (same schedule) not counted; a: 3 s vs 4 s"})
    'every: 1 of 2 configurations hold; 1 tie (same schedule) not counted'
    >>> _estimate({"ours": "-3.0 % ± 1.0 (n = 5); more"})
    '-3.0 % ± 1.0 (n = 5)'
    """
    parts = top_level_parts(row.get("ours", "-"))
    first = parts[0]
    if not first.startswith(("every: ", "most: ")):
        return first
    if " (" in first and first.endswith(")"):
        first = first[: first.index(" (")]
    ties = [p for p in parts[1:2] if " tie" in p and p.endswith("not counted")]
    return "; ".join([first, *ties])


def estimates(claims: Sequence[Mapping[str, str]]) -> str:
    """The default reading's estimate and adjusted $p$ per claim, and what ± means."""
    table = [
        {"claim": f"{i}. {SHORT_NAMES.get(row['key'], row['key'])}",
         "verdict": row["verdict"], "ours": _estimate(row), "adj. p": row.get("p", "-")}
        for i, row in enumerate(claims, start=1)
    ]  # fmt: skip
    return (
        markdown_table(table)
        + "\n\n± is the half-width of the 95 % interval over independent replicates, here "
        "and everywhere on this page; adj. p is Holm-adjusted over the paper's claims of the "
        "reading. A claim over several configurations counts those that hold."
    )


def page_sections(full: Mapping[str, Any], quick: Mapping[str, Any]) -> dict[str, str]:
    """The generated sections of `docs/reproductions/preemptive.md` (see
    [`schedlib.experiments.pages`][schedlib.experiments.pages]): the verdicts at a glance
    per reading (`full-glance`, in place of the kit's table, which has room for two
    readings), the readings with their loads (`full-readings`), the default reading's
    estimates (`full-estimates`), the summary, and the results."""
    rows = full["rows"]
    claims = full["claims"]
    mine = _default(rows)
    main = _pick(mine, study="main")
    first = rows[0] if rows else {}
    readings = list(dict.fromkeys(r.get("reading", DEFAULT_NAME) for r in rows))
    replicates = len({r["replicate"] for r in rows})
    return {
        "full-glance": glance(claims),
        "full-summary": summary(claims),
        "full-readings": reading_loads(rows),
        "full-estimates": estimates(claims),
        "full-size": _size(first, replicates, len(readings)),
        "full-unschedulable": _unschedulable(main),
        "full-alpha0": _results(rows, 0.0),
        "full-alpha05": _results(rows, 0.5),
        "full-delta": _delta_table(mine),
        "full-alpha-high": _alpha_table(mine),
        "full-victims": _victims_table(mine),
        "victims-small": "{} of {}".format(*victim_readings_differ()),
        "design-size": f"{len({_canonical(p.run) for p in design()}):,}",
    }


def _size(first: Mapping[str, Any], replicates: int, readings: int) -> str:
    """The documented run's size, and how it stands to the paper's.

    Examples
    --------
    >>> _size({"nodes": 100, "jobs": 500}, 8, 5)  # doctest: +NORMALIZE_WHITESPACE
    "100 nodes, 500 measured jobs per IAT, 8 replicates, 5 readings: a tenth of the paper's
    grid and jobs, at its offered loads (the inter-arrival times 10 times the paper's)"
    """
    nodes, jobs = first.get("nodes"), first.get("jobs")
    text = (
        f"{nodes} nodes, {jobs} measured jobs per IAT, {replicates} replicates, {readings} readings"
    )
    if nodes == PAPER_NODES or not nodes:
        return text + " (the paper's size)"
    share = nodes / PAPER_NODES
    part = "a tenth" if share == 0.1 else f"{share:g} times the size"
    return (
        f"{text}: {part} of the paper's grid and jobs, at its offered loads (the inter-arrival "
        f"times {1 / share:g} times the paper's)"
    )


def _unschedulable(rows: Sequence[Mapping[str, Any]]) -> str:
    """How many jobs no node can hold, per replicate (the same at every IAT)."""
    counts = sorted({r["unschedulable"] for r in rows})
    jobs = rows[0]["jobs"] if rows else 0
    if not counts:
        return "-"
    if len(counts) == 1:
        return f"{counts[0]} of {jobs} in every replicate"
    return f"{counts[0]} to {counts[-1]} of {jobs}, depending on the replicate"


def _delta_table(rows: Sequence[Mapping[str, Any]]) -> str:
    out = []
    for label in (LOCAL, NN, CAN):
        for iat in _iats(rows):
            five = _pick(rows, study="main", scheduler=label, paper_iat=iat, delta=5.0, alpha=0.0)
            half = _pick(rows, study="delta", scheduler=label, paper_iat=iat)
            if not five or not half:
                continue
            same = sum(
                a["digest"] == b["digest"]
                for a in five
                for b in half
                if a["replicate"] == b["replicate"]
            )
            out.append(
                {
                    "scheduler": label,
                    "IAT (s)": f"{iat:g}",
                    "median node wait (s)": f"{_seconds(_mean_of(five, 'median_node_wait'))} → "
                    f"{_seconds(_mean_of(half, 'median_node_wait'))}",
                    "mean node wait (s)": f"{_seconds(_mean_of(five, 'mean_node_wait'))} → "
                    f"{_seconds(_mean_of(half, 'mean_node_wait'))}",
                    "preemptions": f"{_mean_of(five, 'preemptions'):,.0f} → "
                    f"{_mean_of(half, 'preemptions'):,.0f}",
                    "identical schedules": f"{same} of {len(five)}",
                }
            )
    return markdown_table(out) if out else "(not run)"


def _alpha_table(rows: Sequence[Mapping[str, Any]]) -> str:
    local = _pick(rows, scheduler=LOCAL, delta=5.0, victims="lower")
    chosen = [
        r for r in local if r["study"] == "alpha" or (r["study"] == "main" and r["alpha"] == 0)
    ]
    out = []
    for alpha in sorted({r["alpha"] for r in chosen}):
        for iat in _iats(chosen):
            found = _pick(chosen, alpha=alpha, paper_iat=iat)
            if not found:
                continue
            per_job = _mean_of(found, "preemptions") / found[0]["jobs"]
            out.append(
                {
                    "alpha": f"{alpha:g}",
                    "IAT (s)": f"{iat:g}",
                    "median node wait (s)": _seconds(_mean_of(found, "median_node_wait")),
                    "mean node wait (s)": _seconds(_mean_of(found, "mean_node_wait")),
                    "preemptions per job": f"{per_job:.3f}",
                }
            )
    return markdown_table(out) if out else "(not run)"


def _victims_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """Local preemption at alpha 0 under both readings, and how many replicates agree exactly."""
    other = _pick(rows, study="victims")
    if not other:
        return "(not run)"
    reading = other[0]["victims"]
    out = []
    for iat in _iats(other):
        theirs = {r["replicate"]: r for r in _pick(other, paper_iat=iat)}
        mine = {
            r["replicate"]: r
            for r in _pick(rows, study="main", scheduler=LOCAL, paper_iat=iat, delta=5.0, alpha=0.0)
            if r["victims"] != reading
        }
        pairs = [(mine[k], theirs[k]) for k in sorted(set(mine) & set(theirs))]
        if not pairs:
            continue
        both = {
            field: " / ".join(f"{_mean([p[k][field] for p in pairs]):,.0f}" for k in (0, 1))
            for field in ("median_node_wait", "mean_node_wait", "preemptions")
        }
        out.append(
            {
                "IAT (s)": f"{iat:g}",
                "median node wait (s)": both["median_node_wait"],
                "mean node wait (s)": both["mean_node_wait"],
                "preemptions": both["preemptions"],
                "identical schedules": f"{sum(a['digest'] == b['digest'] for a, b in pairs)} of "
                f"{len(pairs)}",
            }
        )
    return markdown_table(out)


def documented_rows(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The rows the page and the claims need, kept small: the node-wait quantiles only where
    the CDF figure reads them (the default reading's main grid at alpha 0), waits rounded to
    0.1 s, loads and shares to 4 decimals."""
    out = []
    for row in rows:
        kept = dict(row)
        if not (
            kept.get("reading", DEFAULT_NAME) == DEFAULT_NAME
            and kept.get("study") == "main"
            and kept.get("alpha") == 0.0
        ):
            kept.pop("node_wait_quantiles", None)
        for field, value in kept.items():
            if isinstance(value, float):
                kept[field] = round(value, 1) if "wait" in field else round(value, 4)
        out.append(kept)
    return out


def plot(rows: Sequence[Mapping[str, Any]], path: str) -> None:
    """The node-wait distribution of each scheduler at the paper's three IATs (Figures 5, 6):
    top, the CDF of the 60 % longest waits (the paper cuts the 40 % that hardly wait);
    bottom, the last 5 % (Figure 6's "last 100-200 jobs"). Lines are the means over the
    replicates of each quantile, bands their 95 % intervals (cut at 0 s); the panels of a
    row share their axes.

    Uses the default reading's main grid at $\\delta = 5$ s, $\\alpha = 0$ (or the first
    $\\delta$ and $\\alpha$ of the run).

    Raises
    ------
    SchedlibError
        If matplotlib is missing (the `plot` extra).
    """
    from schedlib.experiments.figures import colour, figure, label, marker, mean_interval, save

    main = [r for r in _default(rows) if r.get("study") == "main" and r.get("node_wait_quantiles")]
    if not main:
        main = [r for r in rows if r.get("node_wait_quantiles")]
    delta = 5.0 if any(r["delta"] == 5.0 for r in main) else main[0]["delta"]
    alpha = 0.0 if any(r["alpha"] == 0.0 for r in main) else main[0]["alpha"]
    chosen = [r for r in main if r["delta"] == delta and r["alpha"] == alpha]
    iats = _iats(chosen)
    if len(iats) > 3:
        iats = [iats[0], iats[len(iats) // 2], iats[-1]]
    fig, axes = figure(2, len(iats), height=5.2)
    axes = list(axes)
    rows_of = [axes[: len(iats)], axes[len(iats) :]]
    for line in rows_of:  # the panels of a row are compared: one x and one y axis
        for ax in line[1:]:
            ax.sharex(line[0])
            ax.sharey(line[0])
    tail = [k for k, q in enumerate(QUANTILES) if q >= 0.95]
    for column, iat in enumerate(iats):
        for label_ in sorted({r["scheduler"] for r in chosen}, key=_order):
            found = [r for r in chosen if r["paper_iat"] == iat and r["scheduler"] == label_]
            if not found:
                continue
            key = _KEYS.get(label_, label_)
            stats = [mean_interval([r["node_wait_quantiles"][k] / 3600 for r in found])
                     for k in range(len(QUANTILES))]  # fmt: skip
            for ax, picked in (
                (rows_of[0][column], range(len(QUANTILES))),
                (rows_of[1][column], tail),
            ):
                xs = [stats[k][0] for k in picked]
                ys = [100 * QUANTILES[k] for k in picked]
                ax.plot(xs, ys, color=colour(key), marker=marker(key), markersize=2.5,
                        linewidth=1.4, label=label_, markevery=max(1, len(xs) // 6))  # fmt: skip
                ax.fill_betweenx(ys, [max(0.0, stats[k][1]) for k in picked],
                                 [stats[k][2] for k in picked],
                                 color=colour(key), alpha=0.2, linewidth=0)  # fmt: skip
        rows_of[0][column].set_title(f"IAT {iat:g} s")
        rows_of[1][column].set_xlabel(label("node wait", "h"))
    rows_of[0][0].set_ylabel(label("jobs waiting at most x", "%"))
    rows_of[1][0].set_ylabel(label("last 5 % of jobs", "%"))
    handles, labels = rows_of[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=len(labels), frameon=False)
    save(fig, path)


def plot_medians(rows: Sequence[Mapping[str, Any]], path: str) -> None:
    """Median node wait against the IAT, alpha 0 (Figure 3), and the median of the 10 %
    longest node waits at alpha 0 (solid) and 0.5 (dashed) (Figure 4a): the mean over the
    replicates with its 95 % interval as a band (cut at 0: no wait is negative); one colour
    per scheduler in both panels."""
    from schedlib.experiments.figures import colour, figure, label, marker, mean_interval, save

    main = _pick(_default(rows), study="main", delta=5.0, victims="lower")
    fig, (left, right) = figure(1, 2, height=3.0)
    for label_ in _SCHEDULERS:
        key = _KEYS[label_]
        for ax, field, alphas in ((left, "median_node_wait", (0.0,)),
                                  (right, "tail10_node_wait", (0.0, 0.5))):  # fmt: skip
            for alpha in alphas:
                picked = _pick(main, scheduler=label_, alpha=0.0 if label_ == FCFS else alpha)
                if not picked or (label_ == FCFS and alpha):
                    continue
                iats = _iats(picked)
                stats = [mean_interval([r[field] / 3600 for r in _pick(picked, paper_iat=i)])
                         for i in iats]  # fmt: skip
                style = "-" if alpha == 0 else "--"
                text = label_ if alpha == 0 else f"{label_}, alpha 0.5"
                ax.plot(iats, [m for m, _, _ in stats], style, color=colour(key),
                        marker=marker(key), markersize=4, linewidth=1.5, label=text)  # fmt: skip
                ax.fill_between(iats, [max(0.0, lo) for _, lo, _ in stats],
                                [hi for _, _, hi in stats],
                                color=colour(key), alpha=0.15, linewidth=0)  # fmt: skip
    left.set_title("median node wait, alpha 0 (Fig. 3)")
    right.set_title("10 % longest: median (Fig. 4a)")
    for ax in (left, right):
        ax.set_xlabel(label("mean inter-arrival time, paper scale", "s"))
        ax.set_ylabel(label("node wait", "h"))
    from matplotlib.lines import Line2D

    handles = [
        Line2D([], [], color=colour(_KEYS[s]), marker=marker(_KEYS[s]), linewidth=1.5, label=s)
        for s in _SCHEDULERS
    ]
    handles += [
        Line2D([], [], color="0.4", linestyle="-", linewidth=1.5, label="alpha 0"),
        Line2D([], [], color="0.4", linestyle="--", linewidth=1.5, label="alpha 0.5 (right)"),
    ]
    fig.legend(handles=handles, loc="outside lower center", ncol=3, frameon=False)
    save(fig, path)


def figures() -> dict[str, Callable[[Sequence[Mapping[str, Any]], str], None]]:
    """The page's figures: file name -> draw(rows, path)."""
    return {"preemptive_cdf.png": plot, "preemptive_medians.png": plot_medians}
