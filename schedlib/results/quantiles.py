"""Exact percentiles, of a list or of values streamed in any number.

[`percentile`][schedlib.results.metrics.percentile] sorts its values;
[`SpilledValues`][schedlib.results.quantiles.SpilledValues] gives the same
result for values appended one at a time, however many, in bounded memory:
it holds up to `limit` of them and writes the rest to a temporary file, then
finds the ranks it needs by selection passes over that file.

Examples
--------
>>> values = SpilledValues(limit=4)
>>> for v in [9.0, 1.0, 8.0, 2.0, 7.0, 3.0, 6.0]:
...     values.append(v)
>>> values.percentile(50), values.spilled
(6.0, 4)
>>> values.close()
"""

from __future__ import annotations

import math
import tempfile
from array import array
from collections import Counter
from collections.abc import Iterator
from typing import IO

from schedlib.validation import require

__all__ = ["SPILL_LIMIT", "SpilledValues", "interpolate", "rank_position"]

SPILL_LIMIT = 1 << 18
"""Values a [`SpilledValues`][schedlib.results.quantiles.SpilledValues] holds in memory by
default (2 MB of doubles; sorting them takes about 8 MB)."""

BUCKETS = 4096
"""Buckets of one selection pass of [`SpilledValues`][schedlib.results.quantiles.SpilledValues]."""


def rank_position(n: int, q: float) -> tuple[float, int, int]:
    """Where the `q`-th percentile of `n` sorted values lies: `(pos, low, high)`.

    $pos = (n - 1) \\cdot q / 100$, `low` $= \\lfloor pos \\rfloor$, `high`
    $= \\min(low + 1, n - 1)$: the percentile interpolates linearly between
    the values of ranks `low` and `high` (0-based), see
    [`interpolate`][schedlib.results.quantiles.interpolate].

    Complexity: $O(1)$.

    References
    ----------
    Hyndman and Fan (1996), "Sample quantiles in statistical packages",
    definition 7 (the default of R and NumPy).

    Examples
    --------
    >>> rank_position(4, 50), rank_position(1, 90)
    ((1.5, 1, 2), (0.0, 0, 0))
    """
    pos = (n - 1) * q / 100
    low = math.floor(pos)
    return pos, low, min(low + 1, n - 1)


def interpolate(at_low: float, at_high: float, pos: float, low: int) -> float:
    """The percentile from the values of ranks `low` and `high` (see `rank_position`).

    $v_{low} + (v_{high} - v_{low}) \\cdot (pos - low)$, as a float. Complexity: $O(1)$.

    Examples
    --------
    >>> interpolate(2, 3, 1.5, 1)
    2.5
    """
    return float(at_low + (at_high - at_low) * (pos - low))


class SpilledValues:
    """Floats appended one at a time; exact percentiles in bounded memory.

    Up to `limit` values stay in memory (an `array` of doubles); each time
    that many have come, they are written to an anonymous temporary file
    (8 bytes a value on disk, removed on `close`). Without a spill,
    `percentile` is [`percentile`][schedlib.results.metrics.percentile] of
    the values; after one, it finds the two values it needs by selection.

    Parameters
    ----------
    limit
        Values held in memory, at least 1 (`None`: the module's
        [`SPILL_LIMIT`][schedlib.results.quantiles.SPILL_LIMIT] at the time).
    buckets
        Buckets of one selection pass, at least 2 (`None`:
        [`BUCKETS`][schedlib.results.quantiles.BUCKETS]).

    Attributes
    ----------
    spilled
        Values written to the temporary file so far.

    Notes
    -----
    **Selection.** The values of ranks $k_1 \\le k_2$ lie in $[lo, hi]$,
    first the smallest and largest value, with $c$ values below $lo$. If at
    most `limit` values lie in $[lo, hi]$, they are gathered in their order
    of arrival and sorted (a stable sort: equal values keep the order a sort
    of all values gives them), and ranks $k - c$ are read off. Otherwise one
    pass counts them in $B$ buckets by
    $b(v) = \\min(B - 1, \\lfloor (v - lo) \\cdot s \\rfloor)$ with
    $s = B / (hi - lo)$, which never decreases as $v$ grows (floating-point
    subtraction and multiplication by a positive number are monotonic), so
    each bucket holds a contiguous slice of the sorted values. The bucket
    holding both ranks becomes the candidates: gathered and sorted if at most
    `limit`, else the new range, whose least and greatest values a second
    pass finds ($lo = hi$: every candidate is equal, and that is the answer).
    When $k_1$ and $k_2$ fall in different buckets, each is selected alone.
    Each round keeps fewer values, since $lo$ and $hi$ of a range with
    $lo < hi$ fall in different buckets. The result is
    the same float as sorting every value (`percentile`), bit for bit.
    Values spread wider than the float range ($hi - lo$ overflows) or so
    close that $B / (hi - lo)$ overflows cannot be bucketed: their
    candidates are then gathered in memory whatever their number.

    Complexity: appending is $O(1)$; `percentile` takes $O(n)$ time per
    round, about $1 + \\log_B(n / \\text{limit})$ rounds of two passes each,
    and $O(\\text{limit} + B)$ memory; $8n$ bytes of temporary file.

    Examples
    --------
    >>> with SpilledValues(limit=2, buckets=2) as values:
    ...     for v in [5, 1, 4, 1, 3, 9, 2, 6]:
    ...         values.append(v)
    ...     (values.percentile(50), values.percentile(90), values.percentile(0), len(values))
    (3.5, 6.8999999999999995, 1.0, 8)
    """

    __slots__ = ("_buckets", "_buffer", "_file", "_high", "_limit", "_low", "_nan", "spilled")

    def __init__(self, limit: int | None = None, buckets: int | None = None) -> None:
        limit = SPILL_LIMIT if limit is None else limit
        buckets = BUCKETS if buckets is None else buckets
        require(limit, "limit", at_least=1)
        require(buckets, "buckets", at_least=2)
        self._limit = limit
        self._buckets = buckets
        self._buffer: array[float] = array("d")
        self._file: IO[bytes] | None = None
        self._low = math.inf  # least and greatest value spilled so far
        self._high = -math.inf
        self.spilled = 0
        self._nan = False  # a NaN came

    def __len__(self) -> int:
        return self.spilled + len(self._buffer)

    def __enter__(self) -> SpilledValues:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def append(self, value: float) -> None:
        """Add one value (a NaN has no rank: see `percentile`)."""
        if value != value:
            self._nan = True
        buffer = self._buffer
        buffer.append(value)
        if len(buffer) >= self._limit:
            self._spill()

    def close(self) -> None:
        """Forget every value and remove the temporary file."""
        if self._file is not None:
            self._file.close()
            self._file = None
        self.spilled = 0
        self._buffer = array("d")
        self._low, self._high = math.inf, -math.inf
        self._nan = False

    def _spill(self) -> None:
        buffer = self._buffer
        if self._file is None:
            self._file = tempfile.TemporaryFile()  # noqa: SIM115 - kept open until close()
        buffer.tofile(self._file)
        self._low = min(self._low, min(buffer))
        self._high = max(self._high, max(buffer))
        self.spilled += len(buffer)
        self._buffer = array("d")

    def _chunks(self) -> Iterator[array[float]]:
        """Every value, a chunk at a time, in the order they came."""
        if self._file is not None:
            file = self._file
            file.seek(0)
            left = self.spilled
            while left:
                chunk: array[float] = array("d")
                chunk.fromfile(file, min(left, self._limit))
                left -= len(chunk)
                yield chunk
            file.seek(0, 2)
        yield self._buffer

    def percentile(self, q: float) -> float:
        """The `q`-th percentile (0-100) of every value appended: that of `percentile`.

        Returns NaN when no value came. A NaN among the values has no rank:
        before any spill the result is `percentile`'s (which sorts it where
        the sort leaves it), after one it is NaN.

        Raises
        ------
        InvalidValueError
            If `q` is not between 0 and 100.
        """
        require(q, "q", at_least=0, at_most=100)
        n = len(self)
        if not n:
            return math.nan
        pos, low, high = rank_position(n, q)
        if not self.spilled:
            data = sorted(self._buffer)
            return interpolate(data[low], data[high], pos, low)
        if self._nan:
            return math.nan
        at_low, at_high = self._select(low, high)
        return interpolate(at_low, at_high, pos, low)

    def _select(self, first: int, last: int) -> tuple[float, float]:
        """The values of ranks `first` and `last` (0-based, `first <= last`) of all values."""
        buffer = self._buffer
        lo = min(self._low, min(buffer)) if buffer else self._low
        hi = max(self._high, max(buffer)) if buffer else self._high
        below = 0  # values less than `lo`
        count = len(self)  # the candidates: values in [lo, hi]
        buckets = self._buckets
        while lo != hi:
            scale = buckets / (hi - lo)
            if count <= self._limit or not 0 < scale < math.inf:  # see Notes
                return self._gather(lo, hi, None, scale, first - below, last - below)
            counts: Counter[int] = Counter()
            for chunk in self._chunks():
                counts.update(int((v - lo) * scale) for v in chunk if lo <= v <= hi)
            counts[buckets - 1] += counts.pop(buckets, 0)  # v = hi
            seen = below
            start = stop = 0
            for b in range(buckets):
                size = counts[b]
                if first >= seen + size:
                    below, start = seen + size, b + 1
                if last < seen + size:
                    stop = b
                    break
                seen += size
            if start != stop:  # the two ranks lie in different buckets: one at a time
                return self._select(first, first)[0], self._select(last, last)[0]
            count = counts[start]
            if count <= self._limit:
                return self._gather(lo, hi, start, scale, first - below, last - below)
            lo, hi = self._bounds(lo, hi, start, scale)
        return lo, hi

    def _candidates(
        self, lo: float, hi: float, bucket: int | None, scale: float
    ) -> Iterator[list[float]]:
        """Per chunk, the values in [lo, hi], and with `bucket`, only those of that bucket.

        A value's bucket is $\\min(B - 1, \\lfloor (v - lo) \\cdot scale \\rfloor)$ (see Notes).
        """
        top = self._buckets - 1
        for chunk in self._chunks():
            kept = [v for v in chunk if lo <= v <= hi]
            if bucket is not None:
                kept = [v for v in kept if min(top, int((v - lo) * scale)) == bucket]
            yield kept

    def _gather(
        self, lo: float, hi: float, bucket: int | None, scale: float, first: int, last: int
    ) -> tuple[float, float]:
        """Ranks `first` and `last` among the candidates, gathered in arrival order and sorted."""
        gathered: list[float] = []
        for kept in self._candidates(lo, hi, bucket, scale):
            gathered += kept
        gathered.sort()
        return gathered[first], gathered[last]

    def _bounds(self, lo: float, hi: float, bucket: int, scale: float) -> tuple[float, float]:
        """The least and greatest candidate (see `_candidates`)."""
        least, greatest = math.inf, -math.inf
        for kept in self._candidates(lo, hi, bucket, scale):
            if kept:
                least = min(least, min(kept))
                greatest = max(greatest, max(kept))
        return least, greatest
