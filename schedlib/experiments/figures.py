r"""One figure style for every reproduction: readable at page width, one colour per policy.

The reproduction pages show figures in a text column about 690 px wide. A figure
drawn here is [`WIDTH`][schedlib.experiments.figures.WIDTH] inches wide and saved at
[`DPI`][schedlib.experiments.figures.DPI], with fonts of at least
[`FONT_SIZE`][schedlib.experiments.figures.FONT_SIZE] points at that width, so that
what the page shows is what was drawn. Its conventions:

- **one colour per scheduler or policy, fixed across every panel and figure**
  ([`colour`][schedlib.experiments.figures.colour]), from the Okabe-Ito palette, which
  readers with the common colour-vision deficiencies tell apart; a second cue
  (marker, [`marker`][schedlib.experiments.figures.marker]) per name too;
- **spread shown**: a line is the mean over replicates with its 95 % interval as a band
  ([`band`][schedlib.experiments.figures.band]) or error bars
  ([`interval_bars`][schedlib.experiments.figures.interval_bars]), the same ± as the
  page's tables;
- axis labels with units ([`label`][schedlib.experiments.figures.label]); panels that are
  compared share their axes (`figure(..., sharey=True)`); no bars on a logarithmic axis;
  numbers to be read go in dots or lines, not in the cells of a heatmap.

Drawing needs the `plot` extra (matplotlib), imported only when a figure is drawn.

Examples
--------
>>> colour("easy") == colour("EASY"), colour("easy") != colour("conservative")
(True, True)
>>> label("mean turnaround", "s")
'mean turnaround (s)'
>>> [round(x, 3) for x in mean_interval([1.0, 2.0, 3.0])]
[2.0, -0.484, 4.484]
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from schedlib.results.verdicts import MeanEstimate

__all__ = [
    "DPI",
    "FONT_SIZE",
    "PALETTE",
    "WIDTH",
    "band",
    "colour",
    "figure",
    "interval_bars",
    "label",
    "marker",
    "mean_interval",
    "save",
]

WIDTH = 6.9
"""Figure width in inches: the text column (about 690 px) at 100 px per inch."""
DPI = 200
"""Resolution of saved figures (sharp on high-density screens)."""
FONT_SIZE = 9.5
"""Smallest font, in points, at the width the page shows the figure."""

PALETTE: dict[str, str] = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky blue": "#56B4E9",
    "bluish green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish purple": "#CC79A7",
}
"""The Okabe-Ito palette (Okabe and Ito, 2008), safe for colour-vision deficiencies."""

_FIXED: dict[str, str] = {
    # baselines in black, the papers' own algorithms in the strongest colours
    "fcfs": "black",
    "fifo": "black",
    "greedy": "black",
    "easy": "orange",
    "aggressive": "orange",
    "conservative": "blue",
    "conservative-mr": "blue",
    "greedy-mr": "orange",
    "efficacy": "bluish green",
    "pgs": "vermillion",
    "local": "sky blue",
    "2nn": "vermillion",
    "can": "bluish green",
    "2nn+balance": "reddish purple",
    "can+balance": "yellow",
    "round_robin": "sky blue",
    "round robin": "sky blue",
    "rr": "sky blue",
    "pfs": "vermillion",
    "mfs": "bluish green",
    "batch": "black",
    "single-easy": "orange",
    "single-conservative": "blue",
    "conservative-mr-slower": "reddish purple",
    "by load": "sky blue",
    "by completion time": "vermillion",
}
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def _key(name: str) -> str:
    return name.strip().lower()


def colour(name: str) -> str:
    """The colour of a scheduler or policy, the same in every figure (hex RGB).

    Known names have a fixed colour; any other name gets one of the palette's colours
    chosen from a hash of the name, so that it too is the same in every figure.
    """
    key = _key(name)
    if key in _FIXED:
        return PALETTE[_FIXED[key]]
    digest = hashlib.sha256(key.encode()).digest()
    return list(PALETTE.values())[1 + digest[0] % (len(PALETTE) - 1)]


def marker(name: str) -> str:
    """A matplotlib marker for `name`, the same in every figure (a cue beside the colour)."""
    digest = hashlib.sha256(_key(name).encode()).digest()
    return _MARKERS[digest[0] % len(_MARKERS)]


def label(quantity: str, unit: str) -> str:
    """An axis label: the quantity and its unit in parentheses."""
    return f"{quantity} ({unit})" if unit else quantity


def mean_interval(values: Sequence[float]) -> tuple[float, float, float]:
    """`(mean, low, high)`: the mean over replicates and its 95 % Student-t interval (the
    page's ±); `low == high == mean` for a single or constant value."""
    estimate = MeanEstimate(tuple(values))
    half = estimate.half_width()
    if math.isnan(half):
        half = 0.0
    return (estimate.mean, estimate.mean - half, estimate.mean + half)


def figure(rows: int = 1, columns: int = 1, *, height: float | None = None,
           sharex: bool = False, sharey: bool = False) -> tuple[Any, Any]:  # fmt: skip
    """A figure of the house style: `(figure, axes)` (one axes, or a flat array of them in
    reading order when there are several).

    Parameters
    ----------
    rows, columns
        The panels.
    height
        Height in inches (default: 2.6 per row of panels).
    sharex, sharey
        Share axes between panels that are compared.
    """
    from schedlib.results.plotting import pyplot

    plt = pyplot()
    style = {
        "font.size": FONT_SIZE,
        "axes.titlesize": FONT_SIZE + 0.5,
        "axes.labelsize": FONT_SIZE,
        "xtick.labelsize": FONT_SIZE,
        "ytick.labelsize": FONT_SIZE,
        "legend.fontsize": FONT_SIZE,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": True,
        "grid.alpha": 0.3,
    }
    with plt.rc_context(style):
        fig, axes = plt.subplots(
            rows,
            columns,
            figsize=(WIDTH, height or 2.6 * rows),
            sharex=sharex,
            sharey=sharey,
            squeeze=False,
        )
    fig.set_layout_engine("constrained")
    for ax in fig.axes:
        _apply(ax)
    return fig, (axes[0, 0] if rows * columns == 1 else axes.ravel())


def _apply(ax: Any) -> None:
    """The font sizes of the style on one set of axes (rc_context covers creation only)."""
    ax.tick_params(labelsize=FONT_SIZE)
    ax.xaxis.label.set_size(FONT_SIZE)
    ax.yaxis.label.set_size(FONT_SIZE)
    ax.title.set_size(FONT_SIZE + 0.5)


def band(ax: Any, x: Sequence[float], replicates: Sequence[Sequence[float]], name: str, *,
         text: str | None = None) -> None:  # fmt: skip
    """Draw the mean over replicates at each `x` as a line in `name`'s colour and marker,
    with its 95 % interval as a shaded band.

    Parameters
    ----------
    ax
        Matplotlib axes.
    x
        The x values.
    replicates
        For each x, the values of the replicates.
    name
        The scheduler or policy (its colour and marker).
    text
        The legend text (default: `name`).
    """
    stats = [mean_interval(v) for v in replicates]
    means = [m for m, _, _ in stats]
    ax.plot(x, means, color=colour(name), marker=marker(name), markersize=4, linewidth=1.6,
            label=text or name)  # fmt: skip
    ax.fill_between(x, [lo for _, lo, _ in stats], [hi for _, _, hi in stats],
                    color=colour(name), alpha=0.2, linewidth=0)  # fmt: skip


def interval_bars(ax: Any, x: Sequence[float], replicates: Sequence[Sequence[float]], name: str,
                  *, text: str | None = None, horizontal: bool = False) -> None:  # fmt: skip
    """Draw the mean over replicates at each `x` as a dot with its 95 % interval as an error
    bar, in `name`'s colour and marker (`horizontal`: the values along x, `x` along y, as in
    a forest plot)."""
    stats = [mean_interval(v) for v in replicates]
    means = [m for m, _, _ in stats]
    errors = [[m - lo for m, lo, _ in stats], [hi - m for m, _, hi in stats]]
    kind = {"xerr": errors} if horizontal else {"yerr": errors}
    xs, ys = (means, list(x)) if horizontal else (list(x), means)
    ax.errorbar(xs, ys, **kind, fmt=marker(name), color=colour(name), capsize=3, markersize=5,
                linewidth=1.2, label=text or name)  # fmt: skip


def save(fig: Any, path: str | Path) -> Path:
    """Save `fig` at the house resolution (written whole or not at all) and close it."""
    from schedlib.results.plotting import save_figure

    return save_figure(fig, path, dpi=DPI)
