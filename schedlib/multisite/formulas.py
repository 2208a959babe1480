r"""The multi-site formulas of Sabin et al. (2003): load, efficacy, utilisations, makespan.

Each is a pure function of plain numbers, with the paper's definition:

- instantaneous load of a site (§4):
  $L_s = \frac{1}{P_s} \sum_{j \in \text{queued} \cup \text{running}(s)} n_j \, r_j$,
  the remaining processor-runtime product over the processor count ("the total
  amount of time needed to run all jobs assuming ... jobs can be ideally packed");
- efficacy of a job at a site (§4):
  $E_{j,s} = \frac{\min_{s'} r_{j,s'} n_{j,s'}}{r_{j,s} \, n_{j,s}}$, its best
  runtime-processor product over the one at $s$ (1 at its best site);
- raw utilisation: $U = \frac{\sum_i r_i n_i}{M \cdot P}$;
- effective utilisation (§4):
  $U_{eff} = \frac{\sum_i E_i \, r_i \, n_i}{M \cdot P}$, each job's cycles
  weighted by its efficacy where it ran;
- makespan (§4): $M = \max_i \text{end}_i - \min_i \text{start}_i$,

for $P$ the processors of all sites together. Because $0 < E \le 1$,
$U_{eff} \le U$; and $U \le 1$ when no processor is ever used twice.

Examples
--------
>>> instantaneous_load([(4, 100)], [(2, 50)], processors=8)
62.5
>>> efficacy([2.0, 1.0, 4.0], site=2)
0.25
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from schedlib.errors import InvalidValueError
from schedlib.model import Time
from schedlib.validation import require

__all__ = [
    "effective_utilisation",
    "efficacy",
    "instantaneous_load",
    "makespan",
    "raw_utilisation",
]


def instantaneous_load(
    queued: Iterable[tuple[int, Time]], running: Iterable[tuple[int, Time]], *, processors: int
) -> float:
    """The instantaneous load of a site: remaining processor-seconds per processor.

    Parameters
    ----------
    queued
        `(processors, requested time at the site)` of each job queued there.
    running
        `(processors, requested time left)` of each job running there (the
        metascheduler knows estimates, not actual runtimes).
    processors
        The site's size $P_s$.

    Returns
    -------
    float
        $\\frac{1}{P_s} \\sum_j n_j r_j$.

    Notes
    -----
    | paper | parameter |
    |---|---|
    | processor-runtime product of a job | $n_j r_j$ |
    | number of processors at the site | `processors` |

    Complexity: $O(q + r)$.

    References
    ----------
    Sabin et al. (2003), §4 (greedy metascheduling).

    Examples
    --------
    >>> instantaneous_load([], [], processors=16)
    0.0
    >>> instantaneous_load([(16, 3600)], [], processors=16)
    3600.0
    """
    require(processors, "processors", at_least=1)
    total = sum(n * r for n, r in queued) + sum(n * r for n, r in running)
    return total / processors


def efficacy(products: Sequence[float], site: int) -> float:
    """Efficacy of a job at `site`: its best runtime-processor product over the one there.

    Parameters
    ----------
    products
        The job's runtime × processors at each site it could run at (its
        runtime factors, when it uses as many processors everywhere).
    site
        Index in `products` of the site considered.

    Returns
    -------
    float
        $E = \\min_{s'} p_{s'} / p_s \\in (0, 1]$; 1 at its best site.

    Raises
    ------
    InvalidValueError
        If a product is not positive or `site` is out of range.

    Notes
    -----
    Over the sites a job was *submitted to*, every job has efficacy 1 at one
    of them (§7): the priority that uses it cannot starve anyone. The effective
    utilisation uses it over *all* sites (§4). Complexity: $O(k)$.

    References
    ----------
    Sabin et al. (2003), §4 (definition), §6 (as a queue priority), §7
    (relative to the sites used).

    Examples
    --------
    >>> efficacy([1.316, 1.277, 0.921, 1.0], site=2)
    1.0
    >>> round(efficacy([1.316, 1.277, 0.921, 1.0], site=0), 3)
    0.7
    """
    if not 0 <= site < len(products):
        raise InvalidValueError("site", site, f"must index one of the {len(products)} sites")
    for p in products:
        if not p > 0:
            raise InvalidValueError("products", tuple(products), "must all be > 0")
    return min(products) / products[site]


def makespan(starts: Iterable[Time], ends: Iterable[Time]) -> Time:
    """Last completion minus first start (0 when nothing ran).

    Examples
    --------
    >>> makespan([10, 4], [30, 50])
    46
    >>> makespan([], [])
    0
    """
    first = min(starts, default=None)
    last = max(ends, default=None)
    if first is None or last is None:
        return 0
    return last - first


def raw_utilisation(products: Iterable[float], span: Time, processors: int) -> float:
    """Processor-seconds used over the processor-seconds available during the makespan.

    Parameters
    ----------
    products
        $r_i n_i$ of every execution (cancelled ones included: they used cycles).
    span
        The makespan $M$.
    processors
        $P$, all sites together.

    Examples
    --------
    >>> raw_utilisation([100, 300], span=100, processors=8)
    0.5
    """
    require(processors, "processors", at_least=1)
    if span <= 0:
        return 0.0
    return sum(products) / (span * processors)


def effective_utilisation(
    weighted: Iterable[tuple[float, float]], span: Time, processors: int
) -> float:
    """Like the raw utilisation, each execution's cycles weighted by its efficacy.

    Parameters
    ----------
    weighted
        `(efficacy, runtime × processors)` of every execution; an execution
        that was cancelled before it completed counts with efficacy 0 (its
        cycles bought nothing).
    span, processors
        As for [`raw_utilisation`][schedlib.multisite.formulas.raw_utilisation].

    Examples
    --------
    >>> effective_utilisation([(1.0, 100), (0.5, 300)], span=100, processors=8)
    0.3125
    """
    require(processors, "processors", at_least=1)
    if span <= 0:
        return 0.0
    return sum(e * p for e, p in weighted) / (span * processors)
