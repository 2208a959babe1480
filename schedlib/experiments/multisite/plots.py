"""The figures of `docs/reproductions/multisite.md`: the schemes by load factor, the single
site, and $K$ on the efficacy queue (Sabin et al. 2003, §4-§7).

[`figures`][schedlib.experiments.multisite.figures] names them, file name -> `draw(rows,
path)`; the page's sections are in [`page`][schedlib.experiments.multisite.page], and
`schedlib.experiments.figures` has the figures' style. Every time in them is in seconds;
every band is the 95 % interval over the class-seed replicates.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from schedlib.experiments.figures import band, colour, figure, label, marker, save
from schedlib.experiments.multisite.page import (
    KS,
    MULTI,
    SECOND,
    SINGLE,
    Row,
    _defaults,
    _factors,
    _pick,
)
from schedlib.experiments.multisite.setup import K_PAPER


def figures() -> dict[str, Callable[[Sequence[Mapping[str, Any]], str], None]]:
    """The page's figures: `multisite.png` (multi-site schemes by load factor),
    `multisite_single.png` (the single-site pair) and `multisite_k.png` (by $K$)."""
    return {"multisite.png": plot, "multisite_single.png": plot_single, "multisite_k.png": plot_k}


def _series(
    rows: Sequence[Row], factors: Sequence[float], field: str, scale: float, **match: Any
) -> list[list[float]]:
    return [[r[field] / scale for r in _pick(rows, load_factor=f, **match)] for f in factors]


def _seconds_axis(ax: Any) -> None:
    """Whole seconds with thousands separators on the y axis (no offset, no 1e5)."""
    ax.yaxis.set_major_formatter("{x:,.0f}")


def _load_ticks(ax: Any, factors: Sequence[float]) -> None:
    """A tick at every load factor, every other one labelled when there are more than four."""
    ax.set_xticks(factors)
    step = 2 if len(factors) > 4 else 1
    ax.set_xticklabels([f"{f:g}" if i % step == 0 else "" for i, f in enumerate(factors)])


def plot(rows: Sequence[Mapping[str, Any]], path: str) -> None:
    """The multi-site schemes against the load factor, one row of panels per trace: mean
    turnaround (s), utilisation (%) and effective utilisation (%), each the mean over the
    replicates with its 95 % interval as a band; one legend for all.

    Raises
    ------
    SchedlibError
        If matplotlib is missing (names the `plot` extra).
    """
    mine = _pick(_defaults(rows), group="policies")
    traces = sorted({r["trace"] for r in mine})
    factors = _factors(rows)
    fig, axes = figure(len(traces), 3, height=2.5 * len(traces) + 0.6, sharex=True)
    panels = (
        ("mean_turnaround", SECOND, label("mean turnaround", "s")),
        ("utilisation", 0.01, label("utilisation", "%")),
        ("effective_utilisation", 0.01, label("effective utilisation", "%")),
    )
    flat = list(axes) if len(traces) * 3 > 1 else [axes]
    for row_index, trace in enumerate(traces):
        for col, (field, scale, text) in enumerate(panels):
            ax = flat[row_index * 3 + col]
            for policy in MULTI:
                band(
                    ax,
                    factors,
                    _series(mine, factors, field, scale, trace=trace, policy=policy),
                    policy,
                )
            ax.set_title(f"{trace}", loc="left")
            ax.set_ylabel(text)
            if field == "mean_turnaround":
                _seconds_axis(ax)
            if row_index == len(traces) - 1:
                ax.set_xlabel("load factor")
            _load_ticks(ax, factors)
    handles, labels = flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=3, frameon=False)
    save(fig, path)


def plot_single(rows: Sequence[Mapping[str, Any]], path: str) -> None:
    """The single-site pair (one site holding the four copies, runtimes ÷ 4): mean
    turnaround (s) against the load factor, one panel per trace; one run each (nothing is
    drawn at random), so no band.

    Raises
    ------
    SchedlibError
        If matplotlib is missing (names the `plot` extra).
    """
    mine = _pick(rows, group="policies")
    traces = sorted({r["trace"] for r in mine})
    factors = _factors(rows)
    fig, axes = figure(1, len(traces), height=3.2)
    flat = list(axes) if len(traces) > 1 else [axes]
    for ax, trace in zip(flat, traces, strict=True):
        for policy, text in zip(
            SINGLE, ("single site, EASY (aggressive)", "single site, conservative"), strict=True
        ):
            ys = [
                statistics.fmean(v) if v else math.nan
                for v in _series(
                    mine, factors, "mean_turnaround", SECOND, trace=trace, policy=policy
                )
            ]
            ax.plot(
                factors,
                ys,
                color=colour(policy),
                marker=marker(policy),
                markersize=4,
                linewidth=1.6,
                label=text,
            )
        ax.set_title(f"{trace}, single site, runtimes ÷ 4", loc="left")
        ax.set_xlabel("load factor")
        ax.set_ylabel(label("mean turnaround", "s"))
        _seconds_axis(ax)
        _load_ticks(ax, factors)
    handles, labels = flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=2, frameon=False)
    save(fig, path)


def plot_k(rows: Sequence[Mapping[str, Any]], path: str) -> None:
    """Mean turnaround (s) against $K$ on the efficacy queue (§7, Figures 11-13), per trace:
    sites by load, by completion time, and both with data transfer; the mean over the
    replicates with its 95 % interval as a band.

    Raises
    ------
    SchedlibError
        If matplotlib is missing (names the `plot` extra).
    """
    mine = _defaults(rows)
    traces = sorted({r["trace"] for r in mine if r["group"] == "k"})
    fig, axes = figure(1, len(traces), height=3.0, sharey=False)
    flat = list(axes) if len(traces) > 1 else [axes]
    lines = (
        ("k", "load", "by load", "by load"),
        ("k", "completion", "by completion time", "by completion time"),
        ("transfer", "load", "by load, data transfer", "by load"),
        ("transfer", "completion", "by completion time, data transfer", "by completion time"),
    )
    for ax, trace in zip(flat, traces, strict=True):
        for group, selection, text, rule in lines:
            values = [
                [
                    r["mean_turnaround"] / SECOND
                    for r in _pick(
                        mine,
                        trace=trace,
                        group=group,
                        policy=K_PAPER,
                        k=k,
                        selection=selection if k < 4 else "load",
                    )
                ]
                for k in KS
            ]
            band(ax, KS, values, rule, text=text)
            if group == "transfer":
                ax.lines[-1].set_linestyle("--")
        ax.set_xticks(KS)
        ax.set_xlabel("K (sites per job)")
        ax.set_ylabel(label("mean turnaround", "s"))
        _seconds_axis(ax)
        ax.set_title(f"{trace}: efficacy queue", loc="left")
    handles, labels = flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=2, frameon=False)
    save(fig, path)
