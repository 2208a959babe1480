"""Free processor ids of one cluster, as disjoint ranges.

Backfilling places a job on the lowest-numbered free processors (a
documented, deterministic tie-break; the placement is what the run record's
`place` and the CSV's `allocated_resources` show). Keeping the free ids as a
sorted tuple of single ids costs $O(P)$ per start and per completion, which is
fine for the 128 processors of SDSC-SP2 but not for the 93,312 cores of
CEA-Curie. Here the free ids are a tuple of disjoint, non-adjacent half-open
ranges `(lo, hi)`, ascending, with their total count: taking and giving back
cost $O(f + k)$ for $f$ fragments and a job of $k$ processors, and $f$ stays
small because jobs take the lowest ids.

Examples
--------
>>> free = FreeProcessors.idle(8)
>>> place, free = free.take(3)
>>> place, free
((0, 1, 2), FreeProcessors(size=5, ranges=((3, 8),)))
>>> other, free = free.take(2)
>>> free.give_back(place)
FreeProcessors(size=6, ranges=((0, 3), (5, 8)))
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["FreeProcessors"]


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
    ranges: tuple[tuple[int, int], ...]

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
        return tuple(i for lo, hi in self.ranges for i in range(lo, hi))

    def take(self, procs: int) -> tuple[tuple[int, ...], FreeProcessors]:
        """The `procs` lowest free ids, and what stays free.

        Raises
        ------
        ValueError
            If fewer than `procs` are free.

        Examples
        --------
        >>> FreeProcessors(4, ((0, 1), (4, 7))).take(2)
        ((0, 4), FreeProcessors(size=2, ranges=((5, 7),)))
        """
        if procs > self.size:
            raise ValueError(f"cannot take {procs} processors: only {self.size} are free")
        ranges = self.ranges
        lo, hi = ranges[0] if ranges else (0, 0)
        if hi - lo >= procs:  # the common case: one fragment suffices
            rest = ranges[1:] if hi - lo == procs else ((lo + procs, hi), *ranges[1:])
            return tuple(range(lo, lo + procs)), FreeProcessors(self.size - procs, rest)
        place: list[int] = []
        need = procs
        k = 0
        while need:
            lo, hi = ranges[k]
            if hi - lo > need:
                place.extend(range(lo, lo + need))
                return tuple(place), FreeProcessors(
                    self.size - procs, ((lo + need, hi), *ranges[k + 1 :])
                )
            place.extend(range(lo, hi))
            need -= hi - lo
            k += 1
        return tuple(place), FreeProcessors(self.size - procs, ranges[k:])

    def give_back(self, place: tuple[int, ...]) -> FreeProcessors:
        """Free the ids of `place` (ascending, none of them free now).

        Examples
        --------
        >>> FreeProcessors(2, ((0, 1), (5, 6))).give_back((1, 2, 3, 4))
        FreeProcessors(size=6, ranges=((0, 6),))
        """
        if not place:
            return self
        runs: list[tuple[int, int]] = []
        lo = previous = place[0]
        for i in place[1:]:
            if i != previous + 1:
                runs.append((lo, previous + 1))
                lo = i
            previous = i
        runs.append((lo, previous + 1))
        merged: list[tuple[int, int]] = []
        for start, end in sorted(self.ranges + tuple(runs)):
            if merged and merged[-1][1] >= start:
                if merged[-1][1] > start:
                    raise ValueError(f"processor {start} is given back but already free")
                merged[-1] = (merged[-1][0], end)
            else:
                merged.append((start, end))
        return FreeProcessors(self.size + len(place), tuple(merged))
