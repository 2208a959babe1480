"""The generated sections of `docs/reproductions/multisite.md` and its figures.

See [`schedlib.experiments.pages`][schedlib.experiments.pages] for how a page's
sections are generated and checked.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from schedlib.experiments.multisite.setup import COMPARED


def _table(rows: Sequence[Mapping[str, Any]], field: str, digits: int) -> str:
    """Mean over replicates of `field` by load factor, one line per (trace, policy)."""
    mine = [r for r in rows if r["group"] == "policies"]
    factors = sorted({r["load_factor"] for r in mine})
    lines = ["| trace | policy | " + " | ".join(f"{f:g}" for f in factors) + " |",
             "|---|---|" + "---:|" * len(factors)]  # fmt: skip
    for trace in sorted({r["trace"] for r in mine}):
        for policy in COMPARED:
            cells = []
            for f in factors:
                values = [
                    r[field]
                    for r in mine
                    if r["trace"] == trace and r["policy"] == policy and r["load_factor"] == f
                ]
                cells.append(f"{statistics.fmean(values):,.{digits}f}" if values else "-")
            lines.append(f"| {trace} | `{policy}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _k_table(rows: Sequence[Mapping[str, Any]], group: str, field: str = "mean_turnaround") -> str:
    mine = [r for r in rows if r["group"] == group]
    columns = [(k, s) for s in ("load", "completion") for k in (1, 2, 3)] + [(4, "load")]
    head = [f"K={k} {s}" if k < 4 else "K=4" for k, s in columns]
    lines = ["| trace | policy | " + " | ".join(head) + " |",
             "|---|---|" + "---:|" * len(columns)]  # fmt: skip
    for trace in sorted({r["trace"] for r in mine}):
        for policy in sorted({r["policy"] for r in mine}):
            cells = []
            for k, s in columns:
                values = [r[field] for r in mine if r["trace"] == trace and r["policy"] == policy
                          and r["k"] == k and r["selection"] == s]  # fmt: skip
                cells.append(f"{statistics.fmean(values):,.0f}" if values else "-")
            lines.append(f"| {trace} | `{policy}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _size(document: Mapping[str, Any]) -> str:
    rows = document["rows"]
    jobs = sorted({r["jobs"] for r in rows})
    replicates = len({r["replicate"] for r in rows})
    return f"{', '.join(map(str, jobs))} jobs per trace, {replicates} replicates, {len(rows)} runs"


def page_sections(full: Mapping[str, Any], quick: Mapping[str, Any]) -> dict[str, str]:
    """The generated sections of the page (see [`pages`][schedlib.experiments.pages])."""
    rows = full["rows"]
    return {
        "full-size": _size(full),
        "quick-size": _size(quick),
        "full-turnaround": _table(rows, "mean_turnaround", 0),
        "full-utilisation": _table(rows, "utilisation", 3),
        "full-effective": _table(rows, "effective_utilisation", 3),
        "full-k": _k_table(rows, "k"),
        "full-transfer": _k_table(rows, "transfer"),
        "full-messages": _k_table(rows, "transfer", "messages"),
        "full-k-ours": _k_table(rows, "k-ours"),
    }


def figures() -> dict[str, Callable[[Sequence[Mapping[str, Any]], str], None]]:
    """The page's figures: `multisite.png` (by load factor) and `multisite_k.png` (by $K$)."""
    return {"multisite.png": plot, "multisite_k.png": plot_k}


def _mean_of(rows: Sequence[Mapping[str, Any]], match: Mapping[str, Any], field: str) -> float:
    values = [r[field] for r in rows if all(r.get(k) == v for k, v in match.items())]
    return statistics.fmean(values) if values else math.nan


def plot(rows: Sequence[Mapping[str, Any]], path: str) -> None:
    """Mean turnaround and effective utilisation against load factor, per policy and trace
    (means over replicates); one row of two panels per trace, readable at page width.

    Raises
    ------
    SchedlibError
        If matplotlib is missing (names the `plot` extra).
    """
    from schedlib.results.plotting import pyplot, save_figure

    plt = pyplot()
    traces = sorted({r["trace"] for r in rows})
    factors = sorted({r["load_factor"] for r in rows if r["group"] == "policies"})
    fig, axes = plt.subplots(len(traces), 2, figsize=(9, 3.4 * len(traces)), squeeze=False)
    for row_axes, trace in zip(axes, traces, strict=True):
        for ax, field, label, scale in (
            (row_axes[0], "mean_turnaround", "mean turnaround (h)", 3600.0),
            (row_axes[1], "effective_utilisation", "effective utilisation", 1.0),
        ):
            for policy in COMPARED:
                if scale == 1.0 and policy.startswith("single-"):
                    continue  # no heterogeneity on one site
                match = {"trace": trace, "group": "policies", "policy": policy}
                ys = [_mean_of(rows, {**match, "load_factor": f}, field) / scale for f in factors]
                ax.plot(factors, ys, marker="o", markersize=3, label=policy)
            ax.set_xticks(factors)
            ax.set_xlabel("load factor")
            ax.set_ylabel(label)
            ax.set_title(f"{trace}: {label}", fontsize=10)
            ax.grid(alpha=0.3)
        row_axes[0].legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, path, dpi=90)


def plot_k(rows: Sequence[Mapping[str, Any]], path: str) -> None:
    """Mean turnaround against $K$ on the efficacy queue (§7, Figures 11-13), per trace:
    sites by load, by completion time, and by load with data transfer.

    Raises
    ------
    SchedlibError
        If matplotlib is missing (names the `plot` extra).
    """
    from schedlib.results.plotting import pyplot, save_figure

    plt = pyplot()
    traces = sorted({r["trace"] for r in rows})
    fig, axes = plt.subplots(1, len(traces), figsize=(4.5 * len(traces), 3.4), squeeze=False)
    ks = [1, 2, 3, 4]
    for ax, trace in zip(axes[0], traces, strict=True):
        for group, selection in (("k", "load"), ("k", "completion"), ("transfer", "load")):
            ys = [
                _mean_of(
                    rows,
                    {"trace": trace, "group": group, "k": k,
                     "selection": selection if k < 4 else "load"},
                    "mean_turnaround",
                ) / 3600
                for k in ks
            ]  # fmt: skip
            label = f"by {selection}" + (", data transfer" if group == "transfer" else "")
            ax.plot(ks, ys, marker="o", markersize=3, label=label)
        ax.set_xticks(ks)
        ax.set_xlabel("K (sites per job)")
        ax.set_ylabel("mean turnaround (h)")
        ax.set_title(f"{trace}: efficacy queue, by K", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, path, dpi=90)
