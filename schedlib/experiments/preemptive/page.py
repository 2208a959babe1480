"""The generated sections of `docs/reproductions/preemptive.md` and its figures.

See [`schedlib.experiments.pages`][schedlib.experiments.pages] for how a page's
sections are generated and checked, and
[`schedlib.experiments.figures`][schedlib.experiments.figures] for the figures' style.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from schedlib.experiments.pages import markdown_table
from schedlib.experiments.preemptive.runs import DEFAULT_NAME, _mean, victim_readings_differ
from schedlib.experiments.preemptive.setup import (
    CAN,
    FCFS,
    KINDS,
    LABELS,
    LOCAL,
    NN,
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
            line[f"{iat:g}"] = shown(value) if found else "-"
        table.append(line)
    return markdown_table(table, ["scheduler", *[f"{i:g}" for i in iats]])


def _results(rows: Sequence[Mapping[str, Any]], alpha: float) -> str:
    """The main grid at `alpha`, one small table per measure (schedulers by IAT)."""
    chosen = _pick(_default(rows), study="main", delta=5.0, alpha=alpha, victims="lower")
    parts = []
    for field, title, per_job in (
        ("median_node_wait", "median node wait (s)", False),
        ("mean_node_wait", "mean node wait (s)", False),
        ("tail10_node_wait", "median of the 10 % longest node waits (s)", False),
        ("top4_node_wait", "mean of the 4 % longest node waits (s)", False),
        ("median_wait", "median total wait, from submission (s)", False),
        ("preemptions", "preemptions per job", True),
        ("migrations", "migrations per job", True),
    ):
        shown = (lambda x: f"{x:.3f}") if per_job else _seconds
        parts.append(f"**{title}**, by IAT (s):\n\n{_by_iat(chosen, field, shown, per_job)}")
    return "\n\n".join(parts)


def reading_loads(rows: Sequence[Mapping[str, Any]]) -> str:
    """Per reading and IAT: the offered load of cores, memory and disk, and FCFS's
    departures per arrival over the measured jobs' arrival span."""
    readings = list(dict.fromkeys(r.get("reading", DEFAULT_NAME) for r in rows))
    iats = _iats(rows)
    table = []
    for name in readings:
        fcfs = _pick(rows, reading=name, scheduler=FCFS, study="main")
        line = {"reading": name}
        for iat in iats:
            found = _pick(fcfs, paper_iat=iat)
            loads = " / ".join(f"{_mean_of(found, f'load_{k}'):.2f}" for k in KINDS)
            line[f"{iat:g}"] = f"{loads} · {_mean_of(found, 'departures'):.2f}" if found else "-"
        table.append(line)
    return markdown_table(table, ["reading", *[f"{i:g}" for i in iats]])


def page_sections(full: Mapping[str, Any], quick: Mapping[str, Any]) -> dict[str, str]:
    """The generated sections of `docs/reproductions/preemptive.md` (see
    [`schedlib.experiments.pages`][schedlib.experiments.pages])."""
    rows = full["rows"]
    mine = _default(rows)
    main = _pick(mine, study="main")
    first = rows[0] if rows else {}
    readings = list(dict.fromkeys(r.get("reading", DEFAULT_NAME) for r in rows))
    replicates = len({r["replicate"] for r in rows})
    return {
        "full-size": f"{first.get('nodes')} nodes, {first.get('jobs')} measured jobs per IAT, "
        f"{replicates} replicates, {len(readings)} readings",
        "full-reading-loads": reading_loads(rows),
        "full-unschedulable": _unschedulable(main),
        "full-alpha0": _results(rows, 0.0),
        "full-alpha05": _results(rows, 0.5),
        "full-delta": _delta_table(mine),
        "full-alpha-high": _alpha_table(mine),
        "full-victims": _victims_table(mine),
        "victims-small": "{} of {}".format(*victim_readings_differ()),
    }


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
    replicates of each quantile, bands their 95 % intervals; the panels of a row share
    their x axis.

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
                ax.fill_betweenx(ys, [stats[k][1] for k in picked], [stats[k][2] for k in picked],
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
    replicates with its 95 % interval as a band; one colour per scheduler in both panels."""
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
                ax.fill_between(iats, [lo for _, lo, _ in stats], [hi for _, _, hi in stats],
                                color=colour(key), alpha=0.15, linewidth=0)  # fmt: skip
    left.set_title("median node wait, alpha 0 (Fig. 3)")
    right.set_title("10 % longest: median (Fig. 4a)")
    for ax in (left, right):
        ax.set_xlabel(label("mean inter-arrival time, paper scale", "s"))
        ax.set_ylabel(label("node wait", "h"))
    handles, labels = right.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=4, frameon=False)
    save(fig, path)


def figures() -> dict[str, Callable[[Sequence[Mapping[str, Any]], str], None]]:
    """The page's figures: file name -> draw(rows, path)."""
    return {"preemptive_cdf.png": plot, "preemptive_medians.png": plot_medians}
