"""Free processor ids of one cluster, as disjoint ranges.

Backfilling places a job on the lowest-numbered free processors (a
documented, deterministic tie-break; the placement is what the run record's
`place` and the CSV's `allocated_resources` show). Keeping the free ids as a
sorted tuple of single ids costs $O(P)$ per start and per completion, which is
fine for the 128 processors of SDSC-SP2 but not for the 93,312 cores of
CEA-Curie. Here the free ids are a tuple of disjoint, non-adjacent half-open
ranges `(lo, hi)`, ascending, with their total count. A job keeps the ranges
it took: taking and giving back cost $O(f)$ for $f$ fragments (small, because
jobs take the lowest ids), and the log's `place` is built from the same ranges
([`ProcessorSet.from_ranges`][schedlib.place.ProcessorSet.from_ranges]), never
one id at a time.

References
----------
Sabin et al. (2003) §2: rigid jobs on the $P$ identical processors of one site; the
lowest-ids-first placement is this library's tie-break, not the paper's.

Examples
--------
>>> free = FreeProcessors.idle(8)
>>> first, free = free.take(3)
>>> first, ids_of(first), free
(((0, 3),), (0, 1, 2), FreeProcessors(size=5, ranges=((3, 8),)))
>>> second, free = free.take(2)
>>> free.give_back(first)
FreeProcessors(size=6, ranges=((0, 3), (5, 8)))
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from itertools import chain
from typing import NamedTuple

from schedlib.errors import InvalidValueError

__all__ = ["FreeProcessors", "Ranges", "ids_of"]

Ranges = tuple[tuple[int, int], ...]
"""Half-open `(lo, hi)` ranges of processor ids."""


class FreeProcessors(NamedTuple):
    """Free processor ids: `size` of them, in ascending disjoint `ranges`.

    A named tuple, immutable, rebuilt on each change (cheap: it holds the
    fragments, not the ids).

    Attributes
    ----------
    size
        Number of free processors, $\\sum (hi - lo)$.
    ranges
        Half-open `(lo, hi)` ranges, ascending, neither overlapping nor
        touching (touching ranges are merged).
    """

    size: int
    ranges: Ranges

    @classmethod
    def idle(cls, capacity: int) -> FreeProcessors:
        """All of `0 .. capacity - 1` free.

        Examples
        --------
        >>> FreeProcessors.idle(4)
        FreeProcessors(size=4, ranges=((0, 4),))
        >>> FreeProcessors.idle(0)
        FreeProcessors(size=0, ranges=())
        """
        return cls(capacity, ((0, capacity),) if capacity > 0 else ())

    def ids(self) -> tuple[int, ...]:
        """Every free id, ascending.

        Examples
        --------
        >>> FreeProcessors(3, ((0, 1), (4, 6))).ids()
        (0, 4, 5)
        """
        return ids_of(self.ranges)

    def take(self, procs: int) -> tuple[Ranges, FreeProcessors]:
        r"""The ranges of the `procs` lowest free ids, and what stays free.

        Raises
        ------
        InvalidValueError
            If `procs` is negative or more than are free.

        Notes
        -----
        The taken ids are the $k$ smallest of the free set $F$:
        $\{f \in F : |\{g \in F : g < f\}| < k\}$. Complexity: $O(f)$.

        Examples
        --------
        >>> taken, rest = FreeProcessors(4, ((0, 1), (4, 7))).take(2)
        >>> taken, ids_of(taken), rest
        (((0, 1), (4, 5)), (0, 4), FreeProcessors(size=2, ranges=((5, 7),)))
        """
        size = self.size
        if not 0 <= procs <= size:
            raise InvalidValueError("procs", procs, f"must be between 0 and the {size} free")
        ranges = self.ranges
        if procs == 0:
            return (), self
        lo, hi = ranges[0]
        if hi - lo > procs:  # the common case: part of the first fragment
            return ((lo, lo + procs),), FreeProcessors(
                size - procs, ((lo + procs, hi), *ranges[1:])
            )
        need = procs
        k = 0
        while need:
            lo, hi = ranges[k]
            if hi - lo > need:
                taken = (*ranges[:k], (lo, lo + need))
                return taken, FreeProcessors(size - procs, ((lo + need, hi), *ranges[k + 1 :]))
            need -= hi - lo
            k += 1
        return ranges[:k], FreeProcessors(size - procs, ranges[k:])

    def give_back(self, ranges: Iterable[tuple[int, int]]) -> FreeProcessors:
        """Free the ids of `ranges` (none of them free now).

        Each range is put in place by bisection and merged with the
        fragments it touches.

        Raises
        ------
        InvalidValueError
            If an id of `ranges` is already free.

        Notes
        -----
        $F' = F \\cup \\bigcup_i [lo_i, hi_i)$, with touching ranges merged.
        Complexity: $O(r \\cdot f)$ for $r$ ranges given back (each a bisection
        and one tuple rebuild).

        Examples
        --------
        >>> FreeProcessors(2, ((0, 1), (5, 6))).give_back([(1, 3), (3, 5)])
        FreeProcessors(size=6, ranges=((0, 6),))
        """
        free = self.ranges
        size = self.size
        for lo, hi in ranges:
            if lo >= hi:
                continue
            k = bisect_left(free, (lo, hi))
            before = free[k - 1] if k else None
            after = free[k] if k < len(free) else None
            if (before is not None and before[1] > lo) or (after is not None and after[0] < hi):
                raise InvalidValueError(
                    "ranges",
                    (lo, hi),
                    f"processors {lo}..{hi - 1} are not all in use",
                )
            size += hi - lo
            first, last = k, k
            if before is not None and before[1] == lo:
                first, lo = k - 1, before[0]
            if after is not None and after[0] == hi:
                last, hi = k + 1, after[1]
            free = (*free[:first], (lo, hi), *free[last:])
        return FreeProcessors(size, free)


def ids_of(ranges: Ranges, table: tuple[int, ...] | None = None) -> tuple[int, ...]:
    """Every id of `ranges`, in their order.

    Parameters
    ----------
    ranges
        Half-open `(lo, hi)` ranges.
    table
        Optional `tuple(range(capacity))`: the ids are then sliced from it,
        so every tuple shares the table's int objects (8 bytes per id instead
        of 36; this is what keeps logs of wide jobs small).

    Examples
    --------
    >>> ids_of(((0, 2), (5, 6)))
    (0, 1, 5)
    >>> ids_of(((0, 2), (5, 6)), tuple(range(8)))
    (0, 1, 5)
    """
    if table is None:
        table = tuple(range(ranges[-1][1])) if ranges else ()
    if len(ranges) == 1:
        lo, hi = ranges[0]
        return table[lo:hi]
    return tuple(chain.from_iterable(table[lo:hi] for lo, hi in ranges))
