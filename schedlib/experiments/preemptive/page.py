"""The generated sections of `docs/reproductions/preemptive.md` and its figures.

See [`schedlib.experiments.pages`][schedlib.experiments.pages] for how a page's
sections are generated and checked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from schedlib.experiments.pages import markdown_table
from schedlib.experiments.preemptive.findings import untestable
from schedlib.experiments.preemptive.runs import _NUMBERS, _mean, aggregate, victim_readings_differ
from schedlib.experiments.preemptive.setup import CAN, FCFS, LABELS, LOCAL, NN, QUANTILES


def _table(rows: Sequence[Mapping[str, Any]], columns: Sequence[tuple[str, str, str]]) -> str:
    shown = []
    for row in rows:
        cells = {}
        for field, title, spec in columns:
            value = row.get(field)
            cells[title] = "-" if value is None else format(value, spec) if spec else value
        shown.append(cells)
    return markdown_table(shown, [title for _, title, _ in columns])


_RESULT_COLUMNS = (
    ("scheduler", "scheduler", ""),
    ("paper_iat", "IAT (s)", ".1f"),
    ("load", "load", ".2f"),
    ("median_node_wait", "median node wait", ".0f"),
    ("median_wait", "median wait", ".0f"),
    ("mean_node_wait", "mean node wait", ".0f"),
    ("mean_wait", "mean wait", ".0f"),
    ("tail10_node_wait", "top-10 % median", ".0f"),
    ("top_node_wait", "top-4 % mean", ".0f"),
    ("preemptions", "preemptions", ".0f"),
    ("migrations", "migrations", ".0f"),
)


def _select(
    rows: Sequence[Mapping[str, Any]], *, study: str | None = None, **match: Any
) -> list[dict[str, Any]]:
    picked = [
        r
        for r in rows
        if (study is None or r.get("study") == study)
        and all(r.get(k) == v for k, v in match.items())
    ]
    return sorted(aggregate(picked), key=lambda r: (r["paper_iat"], _order(r["scheduler"])))


def _order(label: str) -> int:
    labels = list(LABELS.values())
    return labels.index(label) if label in labels else len(labels)


def page_sections(full: Mapping[str, Any], quick: Mapping[str, Any]) -> dict[str, str]:
    """The generated sections of `docs/reproductions/preemptive.md` (see
    [`schedlib.experiments.pages`][schedlib.experiments.pages])."""
    rows = full["rows"]
    main = [r for r in rows if r.get("study") == "main"]
    replicates = len({r["replicate"] for r in rows})
    first = rows[0] if rows else {}
    loads = _select(rows, study="main", scheduler=FCFS, delta=5.0, alpha=0.0)
    sections = {
        "full-size": f"{first.get('nodes')} nodes, {first.get('jobs')} jobs per IAT, "
        f"{replicates} replicates",
        "full-loads": _table(
            loads,
            (("paper_iat", "IAT (s)", ".1f"), ("load", "offered load (mean)", ".2f")),
        ),
        "full-unschedulable": _unschedulable(main),
        "full-alpha0": _table(
            _select(rows, study="main", delta=5.0, alpha=0.0, victims="lower"), _RESULT_COLUMNS
        ),
        "full-alpha05": _table(
            _select(rows, study="main", delta=5.0, alpha=0.5, victims="lower"), _RESULT_COLUMNS
        ),
        "full-delta": _delta_table(rows),
        "full-alpha-high": _table(
            sorted(
                [
                    *_select(rows, scheduler=LOCAL, delta=5.0, alpha=0.0, victims="lower"),
                    *_select(rows, study="alpha"),
                ],
                key=lambda r: (r["alpha"], r["paper_iat"]),
            ),
            (
                ("alpha", "alpha", "g"),
                ("paper_iat", "IAT (s)", ".1f"),
                ("median_node_wait", "median node wait", ".0f"),
                ("mean_node_wait", "mean node wait", ".0f"),
                ("preemptions", "preemptions", ".0f"),
            ),
        ),
        "full-victims": _victims_table(rows),
        "victims-small": "{} of {}".format(*victim_readings_differ()),
        "full-untestable": _untestable_text(full["claims"], rows),
    }
    return sections


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
    five = {
        (r["scheduler"], r["paper_iat"]): r
        for r in _select(rows, delta=5.0, alpha=0.0, victims="lower")
    }
    out = []
    for r in _select(rows, study="delta"):
        base = five.get((r["scheduler"], r["paper_iat"]))
        if base is None:
            continue
        out.append(
            {
                "scheduler": r["scheduler"],
                "paper_iat": r["paper_iat"],
                "median": f"{base['median_node_wait']:.0f} → {r['median_node_wait']:.0f}",
                "mean": f"{base['mean_node_wait']:.0f} → {r['mean_node_wait']:.0f}",
                "preemptions": f"{base['preemptions']:.0f} → {r['preemptions']:.0f}",
            }
        )
    return _table(
        out,
        (
            ("scheduler", "scheduler", ""),
            ("paper_iat", "IAT (s)", ".1f"),
            ("median", "median node wait, delta 5 → 2.5 s", ""),
            ("mean", "mean node wait", ""),
            ("preemptions", "preemptions", ""),
        ),
    )


def _victims_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """Local preemption at alpha 0 under both readings, and how many replicates agree exactly."""
    other = [r for r in rows if r.get("study") == "victims"]
    if not other:
        return "(not run)"
    reading = other[0]["victims"]
    main = {
        (r["paper_iat"], r["replicate"]): r
        for r in rows
        if r.get("study") == "main"
        and r["scheduler"] == LOCAL
        and r["delta"] == other[0]["delta"]
        and r["alpha"] == 0.0
        and r["victims"] != reading
    }
    out = []
    for iat in sorted({r["paper_iat"] for r in other}):
        pairs = [
            (main[iat, r["replicate"]], r)
            for r in other
            if r["paper_iat"] == iat and (iat, r["replicate"]) in main
        ]
        if not pairs:
            continue
        both = {
            field: " / ".join(f"{_mean([p[k][field] for p in pairs]):.0f}" for k in (0, 1))
            for field in ("median_node_wait", "mean_node_wait", "preemptions")
        }
        out.append(
            {
                "paper_iat": iat,
                "median": both["median_node_wait"],
                "mean": both["mean_node_wait"],
                "preemptions": both["preemptions"],
                "identical": f"{sum(_numbers_of(a) == _numbers_of(b) for a, b in pairs)} of "
                f"{len(pairs)}",
            }
        )
    first, second = ("lower", "equal") if reading == "equal" else ("equal", "lower")
    return _table(
        out,
        (
            ("paper_iat", "IAT (s)", ".1f"),
            ("median", f"median node wait, {first} / {second}", ""),
            ("mean", "mean node wait", ""),
            ("preemptions", "preemptions", ""),
            ("identical", "replicates with identical results", ""),
        ),
    )


def _numbers_of(row: Mapping[str, Any]) -> tuple[Any, ...]:
    return tuple(row.get(f) for f in (*_NUMBERS, "node_wait_quantiles"))


def _untestable_text(claim_rows: Sequence[Mapping[str, str]], rows: Sequence[Any]) -> str:
    found = untestable(rows)
    titles = {c["key"]: c["claim"] for c in claim_rows}
    lines = []
    for key, where in found.items():
        if where:
            verdict = next((c["verdict"] for c in claim_rows if c["key"] == key), "-")
            lines.append(
                f"- `{key}` ({titles.get(key, key)}): untestable at IAT "
                f"{', '.join(f'{w:g}' for w in where)}; verdict on the other IATs: {verdict}"
            )
    return "\n".join(lines) if lines else "(none)"


def plot(rows: Sequence[Mapping[str, Any]], path: str) -> None:
    """Draw the tail of the node-wait CDF of each scheduler, one panel per IAT (Figure 5).

    Uses replicate 0 of the main grid at $\\delta = 5$ s, $\\alpha = 0$ (or
    the first $\\delta$, $\\alpha$ of the run). As in the paper, the 40 %
    of the jobs that wait least are cut.

    Raises
    ------
    SchedlibError
        If matplotlib is missing (the `plot` extra).
    """
    from schedlib.results.plotting import pyplot, save_figure

    plt = pyplot()
    main = [r for r in rows if r.get("study") == "main" and r.get("replicate") == 0]
    if not main:
        main = [r for r in rows if r.get("replicate") == 0]
    delta = 5.0 if any(r["delta"] == 5.0 for r in main) else main[0]["delta"]
    alpha = 0.0 if any(r["alpha"] == 0.0 for r in main) else main[0]["alpha"]
    chosen = [r for r in main if r["delta"] == delta and r["alpha"] == alpha]
    iats = sorted({r["paper_iat"] for r in chosen})
    columns = min(3, len(iats))
    lines = -(-len(iats) // columns)
    fig, axes = plt.subplots(lines, columns, figsize=(4.4 * columns, 3.4 * lines), squeeze=False)
    panels = [ax for line in axes for ax in line]
    for ax in panels[len(iats) :]:
        ax.set_visible(False)
    for ax, iat in zip(panels, iats, strict=False):
        for row in sorted(chosen, key=lambda r: _order(r["scheduler"])):
            if row["paper_iat"] != iat:
                continue
            ax.plot(row["node_wait_quantiles"], QUANTILES, label=row["scheduler"])
        ax.set_ylim(QUANTILES[0], 1.0)
        ax.set_title(f"IAT {iat:g} s (paper scale)")
        ax.set_xlabel("node wait (s)")
        ax.grid(alpha=0.3)
    for line in axes:
        line[0].set_ylabel("fraction of jobs")
    panels[len(iats) - 1].legend(loc="lower right", fontsize="small")
    fig.suptitle(f"Node-wait CDF, top 60 % (delta = {delta:g} s, alpha = {alpha:g}, replicate 0)")
    fig.tight_layout()
    save_figure(fig, path, dpi=110)


def plot_medians(rows: Sequence[Mapping[str, Any]], path: str) -> None:
    """Median node wait against the IAT (Figure 3) and the top-10 % median, alpha 0 and 0.5
    (Figure 4a): the mean over replicates, the bars spanning the replicates."""
    from schedlib.results.plotting import pyplot, save_figure

    plt = pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
    for label in (FCFS, LOCAL, NN, CAN):
        for ax, field, alphas in (
            (left, "median_node_wait", (0.0,)),
            (right, "tail10_node_wait", (0.0, 0.5)),
        ):
            for alpha in alphas:
                picked = [
                    r
                    for r in rows
                    if r.get("study") == "main"
                    and r["scheduler"] == label
                    and r["delta"] == 5.0
                    and r["alpha"] == (0.0 if label == FCFS else alpha)
                ]
                if not picked or (label == FCFS and alpha):
                    continue
                iats = sorted({r["paper_iat"] for r in picked})
                per = [[r[field] for r in picked if r["paper_iat"] == i] for i in iats]
                means = [_mean(v) for v in per]
                spread = [
                    [m - min(v) for m, v in zip(means, per, strict=True)],
                    [max(v) - m for m, v in zip(means, per, strict=True)],
                ]
                name = label if len(alphas) == 1 or label == FCFS else f"{label}, alpha {alpha:g}"
                ax.errorbar(
                    iats, means, yerr=spread, capsize=3, marker="o", ms=3, label=name,
                    linestyle="-" if alpha == 0 else "--",
                )  # fmt: skip
    left.set_title("median node wait, alpha 0 (Fig. 3)")
    right.set_title("median of the 10 % longest node waits (Fig. 4a)")
    for ax in (left, right):
        ax.set_xlabel("inter-arrival time (s, paper scale)")
        ax.set_ylabel("seconds")
        ax.grid(alpha=0.3)
    left.legend(fontsize="small")
    right.legend(fontsize="x-small", ncol=2)
    fig.tight_layout()
    save_figure(fig, path, dpi=110)


def figures() -> dict[str, Callable[[Sequence[Mapping[str, Any]], str], None]]:
    """The page's figures: file name -> draw(rows, path)."""
    return {"preemptive_cdf.png": plot, "preemptive_medians.png": plot_medians}
