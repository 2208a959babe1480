"""Compact sets of processor ids: where a job ran, as sorted disjoint ranges.

A parallel job on a wide machine holds thousands of processors, almost always
a few runs of consecutive ids. [`ProcessorSet`][schedlib.place.ProcessorSet]
keeps those runs as half-open ranges `(lo, hi)` (Batsim writes the same sets
as `allocated_resources` strings, `"0-2 5 7-9"`), so a log of 300,000 jobs on
93,312 cores holds a few integers per job instead of one per processor. It is
what [`JobEvent.place`][schedlib.model.JobEvent] and
[`JobOutcome.place`][schedlib.model.JobOutcome] hold; the ids may name
processors, nodes, resources or sites, whatever the model places jobs on.

It behaves as an immutable sequence of ascending ids, and **compares equal to
the tuple of the same ids** (so `outcome.place == (0, 1)` means what it
meant when places were tuples). Equal objects must hash alike, so its hash is
the hash of that tuple: computed on first use in $O(k)$ for $k$ ids (at C
speed) and cached. Equality between two sets compares the ranges, $O(r)$ for
$r$ ranges. It is not equal to a list (as a tuple is not).

Examples
--------
>>> p = ProcessorSet([9, 0, 1, 2, 5, 7, 8])
>>> p
ProcessorSet('0-2 5 7-9')
>>> str(p), p.ranges, len(p)
('0-2 5 7-9', ((0, 3), (5, 6), (7, 10)), 7)
>>> p == (0, 1, 2, 5, 7, 8, 9), hash(p) == hash((0, 1, 2, 5, 7, 8, 9))
(True, True)
>>> ProcessorSet.from_ranges([(0, 3), (5, 6), (7, 10)]) == p, 5 in p, p.index(7), p[-1]
(True, True, 4, 9)
>>> ProcessorSet("0-2 5 7-9") == p
True
>>> ProcessorSet([1, 1])
Traceback (most recent call last):
...
schedlib.errors.InvalidValueError: place = [1, 1]: processor 1 appears twice
"""

from __future__ import annotations

import operator
import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain
from typing import Any, overload

from schedlib.errors import InvalidValueError

__all__ = ["ProcessorSet"]

_PART = re.compile(r"([0-9]+)(?:-([0-9]+))?")
_WHOLE = re.compile(r"\s*(?:[0-9]+(?:-[0-9]+)?(?:\s+|\Z))*\Z")


def _shown(value: Any) -> Any:
    """A value short enough for an error message."""
    if isinstance(value, (list, tuple)) and len(value) > 12:
        return f"{list(value[:12])[:-1]} ... ({len(value)} ids)"
    return value


def _id(value: Any, given: Any) -> int:
    if isinstance(value, bool):
        raise InvalidValueError("place", _shown(given), f"{value!r} is not a processor id")
    try:
        unit = operator.index(value)
    except TypeError:
        raise InvalidValueError(
            "place", _shown(given), f"{value!r} is not a processor id (an int)"
        ) from None
    if unit < 0:
        raise InvalidValueError("place", _shown(given), f"processor {unit} is negative")
    return unit


class ProcessorSet(Sequence[int]):
    """An immutable set of processor ids, held as sorted disjoint half-open ranges.

    `ProcessorSet(ids)` takes any iterable of distinct ints `>= 0`, in any
    order, or a Batsim interval string such as `"0-3 8"` (inclusive ranges,
    separated by blanks); `ProcessorSet()` is the empty set.

    Raises
    ------
    InvalidValueError
        If an id is not an int, is negative or appears twice, or the string is
        not an interval set; the message names the offending id or part.

    Notes
    -----
    As a sequence it holds its ids in ascending order: `len` is $O(1)$;
    `in`, `index` and `p[i]` are $O(\\log r)$ for $r$ ranges; iteration is
    $O(k)$ for $k$ ids. Building from ids costs $O(k \\log k)$ ($O(k)$ when
    they are already ascending), from ranges $O(r)$. Two sets are equal when
    they hold the same ids; a set equals the tuple of its ids and hashes like
    it (the hash is computed once, on first use, and cached). Slicing with a
    positive step gives a `ProcessorSet`, with a negative step a tuple
    (descending ids). `repr` is short whatever the size; `str` is the Batsim
    form.

    Examples
    --------
    >>> ProcessorSet(range(4))
    ProcessorSet('0-3')
    >>> ProcessorSet(), len(ProcessorSet()), str(ProcessorSet())
    (ProcessorSet(''), 0, '')
    >>> ProcessorSet([3, -1])
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: place = [3, -1]: processor -1 is negative
    """

    __slots__ = ("_bounds", "_hash", "_size", "_starts")

    _bounds: tuple[int, ...]  # lo0, hi0, lo1, hi1, ...: strictly ascending
    _size: int
    _hash: int
    _starts: tuple[int, ...]  # set on first use, as _hash

    def __new__(cls, ids: Iterable[int] | str = ()) -> ProcessorSet:
        if type(ids) is tuple and len(ids) == 1:  # (node,): the single-place models
            unit = ids[0]
            if type(unit) is int and unit >= 0:
                return _make(((unit, unit + 1),), 1)
        elif type(ids) is ProcessorSet:
            return ids
        if isinstance(ids, str):
            return cls.parse(ids)
        if type(ids) is range and ids.step == 1:
            if ids.start < 0 and ids:
                raise InvalidValueError("place", ids, f"processor {ids.start} is negative")
            return _EMPTY if not ids else _make(((ids.start, ids.stop),), len(ids))
        given = ids if isinstance(ids, (tuple, list)) else list(ids)
        if not given:
            return _EMPTY
        if len(given) == 1:
            unit = given[0]
            if type(unit) is not int or unit < 0:
                unit = _id(unit, given)
            return _make(((unit, unit + 1),), 1)
        units = [u if type(u) is int and u >= 0 else _id(u, given) for u in given]
        if any(map(operator.gt, units, units[1:])):
            units.sort()
        ranges: list[tuple[int, int]] = []
        lo = previous = units[0]
        for unit in units[1:]:
            if unit != previous + 1:
                if unit == previous:
                    raise InvalidValueError(
                        "place", _shown(given), f"processor {unit} appears twice"
                    )
                ranges.append((lo, previous + 1))
                lo = unit
            previous = unit
        ranges.append((lo, previous + 1))
        return _make(tuple(ranges), len(units))

    @classmethod
    def from_ranges(cls, ranges: Iterable[tuple[int, int]]) -> ProcessorSet:
        """The set of the ids of half-open ranges `(lo, hi)`, ascending and disjoint.

        Touching ranges are merged; the ranges are otherwise used as they are
        (no id is expanded).

        Raises
        ------
        InvalidValueError
            If a range is empty or negative, or the ranges are not ascending
            and disjoint.

        Notes
        -----
        Complexity: $O(r)$ for $r$ ranges.

        Examples
        --------
        >>> ProcessorSet.from_ranges([(0, 2), (2, 4), (8, 9)])
        ProcessorSet('0-3 8')
        >>> ProcessorSet.from_ranges([(2, 4), (0, 3)])
        Traceback (most recent call last):
        ...
        schedlib.errors.InvalidValueError: ranges = ((2, 4), (0, 3)): (0, 3) does not come after (2, 4)
        """  # noqa: E501
        given = ranges if type(ranges) is tuple else tuple(ranges)
        if len(given) == 1:  # the common case: one run of ids
            pair = given[0]
            if type(pair) is tuple and len(pair) == 2:
                lo, hi = pair
                if type(lo) is int and type(hi) is int and 0 <= lo < hi:
                    made = _new(ProcessorSet)  # as _make, inlined: once per job start
                    _set(made, "_bounds", pair)
                    _set(made, "_size", hi - lo)
                    return made
        elif not given:
            return _EMPTY
        size = 0
        end = -1
        merged = False
        for pair in given:
            if type(pair) is not tuple:
                merged = True  # rebuilt below, as tuples
            lo, hi = pair
            if type(lo) is not int or type(hi) is not int or not 0 <= lo < hi:
                raise InvalidValueError(
                    "ranges", _shown(given), f"({lo!r}, {hi!r}) is not a range 0 <= lo < hi"
                )
            if lo <= end:
                if lo < end:
                    previous = next(r for r in given if r[1] == end)
                    raise InvalidValueError(
                        "ranges",
                        _shown(given),
                        f"({lo}, {hi}) does not come after {previous}",
                    )
                merged = True
            size += hi - lo
            end = hi
        if merged:
            out: list[tuple[int, int]] = []
            for lo, hi in given:
                if out and out[-1][1] == lo:
                    out[-1] = (out[-1][0], hi)
                else:
                    out.append((lo, hi))
            given = tuple(out)
        return _make(given, size)

    @classmethod
    def parse(cls, text: str) -> ProcessorSet:
        """Read a Batsim interval set: `N` or `N-M` (inclusive), separated by blanks.

        The parts may come in any order, but no id twice.

        Raises
        ------
        InvalidValueError
            If a part is not `N` or `N-M` with `N <= M`, or two parts overlap.

        Examples
        --------
        >>> ProcessorSet.parse("7-9 0-2 5").ranges
        ((0, 3), (5, 6), (7, 10))
        >>> ProcessorSet.parse("0-3 2")
        Traceback (most recent call last):
        ...
        schedlib.errors.InvalidValueError: place = '0-3 2': processor 2 appears twice
        """
        one = _PART.fullmatch(text)
        if one is not None:  # the common case: a single part, no blanks
            lo = int(one[1])
            end = int(one[2] or one[1]) + 1
            if end > lo:
                return _from_bounds((lo, end), end - lo)
        if not _WHOLE.match(text):
            bad = next(p for p in text.split() if not _PART.fullmatch(p))
            raise InvalidValueError("place", text, f"{bad!r} is not N or N-M")
        found = _PART.findall(text)
        if not found:
            return _EMPTY
        los = [int(a) for a, _ in found]
        ends = [int(b or a) + 1 for a, b in found]
        if all(map(operator.lt, los, ends)) and all(map(operator.lt, ends[:-1], los[1:])):
            # ascending, disjoint and not touching (as written here): no sort, no merge
            flat = tuple(chain.from_iterable(zip(los, ends, strict=True)))
            return _from_bounds(flat, sum(ends) - sum(los))
        parts = sorted([(int(a), int(b or a)) for a, b in found])
        ranges: list[tuple[int, int]] = []
        size = 0
        for lo, last in parts:
            if last < lo:
                raise InvalidValueError("place", text, f"'{lo}-{last}' ends before it begins")
            if ranges and lo < ranges[-1][1]:
                raise InvalidValueError("place", text, f"processor {lo} appears twice")
            size += last + 1 - lo
            if ranges and ranges[-1][1] == lo:
                ranges[-1] = (ranges[-1][0], last + 1)
            else:
                ranges.append((lo, last + 1))
        return _make(tuple(ranges), size)

    # ------------------------------------------------------------ the ranges

    @property
    def ranges(self) -> tuple[tuple[int, int], ...]:
        """The ids as half-open ranges `(lo, hi)`: ascending, neither overlapping nor touching.

        Built on each call from the flat [`bounds`][schedlib.place.ProcessorSet.bounds], $O(r)$.
        """
        b = self._bounds
        if len(b) == 2:
            return (b,)
        return tuple(zip(b[::2], b[1::2], strict=True))

    @property
    def bounds(self) -> tuple[int, ...]:
        """The ranges' bounds, flat: `(lo0, hi0, lo1, hi1, ...)`, strictly ascending.

        What the set holds (the cheapest form: one tuple), and a cheap key for
        it: equal sets have equal bounds, and hashing them costs $O(r)$ where
        hashing the set costs $O(k)$.

        Examples
        --------
        >>> ProcessorSet("0-2 5 7-9").bounds
        (0, 3, 5, 6, 7, 10)
        """
        return self._bounds

    def isdisjoint(self, other: ProcessorSet) -> bool:
        """Whether the two sets share no id, in $O(r + s)$ for their numbers of ranges.

        Examples
        --------
        >>> ProcessorSet("0-3").isdisjoint(ProcessorSet("4-5")), ProcessorSet("0-3 9").isdisjoint(ProcessorSet("5-9"))
        (True, False)
        """  # noqa: E501
        a, b = self.ranges, ProcessorSet(other).ranges
        i = j = 0
        while i < len(a) and j < len(b):
            if a[i][1] <= b[j][0]:
                i += 1
            elif b[j][1] <= a[i][0]:
                j += 1
            else:
                return False
        return True

    # ------------------------------------------------------------ the sequence

    def __len__(self) -> int:
        return self._size

    def __bool__(self) -> bool:
        return self._size > 0

    def __iter__(self) -> Iterator[int]:
        b = self._bounds
        if len(b) == 2:
            return iter(range(*b))
        return chain.from_iterable(map(range, b[::2], b[1::2]))

    def __reversed__(self) -> Iterator[int]:
        return chain.from_iterable(range(hi - 1, lo - 1, -1) for lo, hi in reversed(self.ranges))

    def __contains__(self, value: object) -> bool:
        if type(value) is not int:
            try:
                value = operator.index(value)  # type: ignore[arg-type]
            except TypeError:
                if isinstance(value, float) and value.is_integer():
                    value = int(value)
                else:
                    return False
        # the bounds are strictly ascending: inside a range iff an odd number are <= value
        return bisect_right(self._bounds, value) & 1 == 1

    def _offsets(self) -> tuple[int, ...]:
        """Position of each range's first id in the sequence (cached)."""
        try:
            return self._starts
        except AttributeError:
            out = []
            position = 0
            for lo, hi in self.ranges:
                out.append(position)
                position += hi - lo
            starts = tuple(out)
            _set(self, "_starts", starts)
            return starts

    @overload
    def __getitem__(self, index: int) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[int]: ...

    def __getitem__(self, index: int | slice) -> int | Sequence[int]:
        if isinstance(index, slice):
            start, stop, step = index.indices(self._size)
            if step < 0:
                return tuple(self[i] for i in range(start, stop, step))
            if step > 1:
                return ProcessorSet([self[i] for i in range(start, stop, step)])
            return self._between(start, stop)
        i = operator.index(index)
        if i < 0:
            i += self._size
        if not 0 <= i < self._size:
            raise IndexError("ProcessorSet index out of range")
        b = self._bounds
        if len(b) == 2:
            return b[0] + i
        k = bisect_right(self._offsets(), i) - 1
        return b[2 * k] + i - self._offsets()[k]

    def _between(self, start: int, stop: int) -> ProcessorSet:
        """The ids at positions `start .. stop - 1`."""
        if stop <= start:
            return _EMPTY
        if start == 0 and stop == self._size:
            return self
        offsets = self._offsets()
        first = bisect_right(offsets, start) - 1
        last = bisect_right(offsets, stop - 1) - 1
        ranges = list(self.ranges[first : last + 1])
        ranges[-1] = (ranges[-1][0], ranges[-1][0] + stop - offsets[last])
        ranges[0] = (ranges[0][0] + start - offsets[first], ranges[0][1])
        return _make(tuple(ranges), stop - start)

    def index(self, value: Any, start: int = 0, stop: int | None = None) -> int:
        """Position of `value` among the ascending ids, $O(\\log r)$.

        Raises
        ------
        ValueError
            If `value` is not in the set (or not between `start` and `stop`).
        """
        if value in self:
            unit = int(value)
            b = self._bounds
            k = bisect_right(b, unit) // 2  # the range holding unit
            position = self._offsets()[k] + unit - b[2 * k]
            first, last, _ = slice(start, stop).indices(self._size)
            if first <= position < last:
                return position
        raise ValueError(f"{value!r} is not in the processor set")

    def count(self, value: Any) -> int:
        """1 if `value` is in the set, else 0."""
        return 1 if value in self else 0

    # ------------------------------------------------------------ equality, hash, text

    def __eq__(self, other: object) -> bool:
        if type(other) is ProcessorSet:
            return self._bounds == other._bounds
        if isinstance(other, tuple):
            return len(other) == self._size and tuple(self) == other
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        try:
            return self._hash
        except AttributeError:
            value = hash(tuple(self))
            _set(self, "_hash", value)
            return value

    def __repr__(self) -> str:
        return f"ProcessorSet({str(self)!r})"

    def __str__(self) -> str:
        b = self._bounds
        if len(b) == 2:
            lo, hi = b
            return str(lo) if hi == lo + 1 else f"{lo}-{hi - 1}"
        pairs = zip(b[::2], b[1::2], strict=True)
        return " ".join([str(lo) if hi == lo + 1 else f"{lo}-{hi - 1}" for lo, hi in pairs])

    def __reduce__(self) -> tuple[Any, ...]:
        return (_from_bounds, (self._bounds, self._size))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"ProcessorSet is immutable (cannot set {name})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"ProcessorSet is immutable (cannot delete {name})")


_new = object.__new__
_set = object.__setattr__


def _make(ranges: tuple[tuple[int, int], ...], size: int) -> ProcessorSet:
    """A set from ranges already in canonical form (ascending, disjoint, not touching).

    Kept flat: one range is kept as its own `(lo, hi)` pair (shared, not copied).
    """
    self = _new(ProcessorSet)
    _set(self, "_bounds", ranges[0] if len(ranges) == 1 else tuple(chain.from_iterable(ranges)))
    _set(self, "_size", size)
    return self


def _from_bounds(bounds: tuple[int, ...], size: int) -> ProcessorSet:
    self = _new(ProcessorSet)
    _set(self, "_bounds", bounds)
    _set(self, "_size", size)
    return self


_EMPTY = _from_bounds((), 0)
