"""The waiting queue of FCFS and EASY as a persistent sequence.

Under FCFS a trace's queue holds about a thousand jobs on average (SDSC-SP2),
and every instant appends its arrivals and removes the jobs that start, which
are a prefix. With a plain tuple each of those copies the whole queue.
[`WaitingQueue`][schedlib.backfill.waiting.WaitingQueue] keeps the same
immutable value in two shared tuples, so that appending and removing a
prefix cost $O(\\sqrt{q})$ amortised instead of $O(q)$, and reading an entry
by position stays $O(1)$. It is a read-only sequence: the decision functions
index it like the tuple they document.

Examples
--------
>>> queue = WaitingQueue() + ("a", "b") + ("c",)
>>> queue
WaitingQueue(('a', 'b', 'c'))
>>> queue.without((0, 1)), queue.without((1,)), queue[2], len(queue)
(WaitingQueue(('c',)), WaitingQueue(('a', 'c')), 'c', 3)
>>> queue == ("a", "b", "c")
True
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import chain, islice
from typing import Any, overload

__all__ = ["TAIL", "WaitingQueue", "without"]

TAIL = 64
"""Appended entries kept apart before the queue is rebuilt in one tuple."""


class WaitingQueue(Sequence[Any]):
    """An immutable sequence with cheap appends at the end and cheap removals at the front.

    The value is `base[start:] + tail`; both tuples are shared between
    versions and never change.

    Notes
    -----
    - `queue + items` copies only `tail` (at most `TAIL` + $\\sqrt{q}$
      entries), rebuilding one tuple when the tail outgrows that bound;
    - `queue.without(positions)` is $O(1)$ for a prefix (what FCFS and the
      first starts of EASY remove) and $O(q)$ otherwise;
    - `queue[i]` is $O(1)$; equality and hashing are those of the tuple of
      the entries (a `WaitingQueue` equals the tuple it holds).

    Examples
    --------
    >>> q = WaitingQueue(range(5))
    >>> q[1:3], q[-1], list(q.without((0,)))
    ((1, 2), 4, [1, 2, 3, 4])
    """

    __slots__ = ("_base", "_len", "_start", "_tail")

    def __init__(self, items: Sequence[Any] = ()) -> None:
        self._base: tuple[Any, ...] = tuple(items)
        self._start = 0
        self._tail: tuple[Any, ...] = ()
        self._len = len(self._base)

    @classmethod
    def _of(cls, base: tuple[Any, ...], start: int, tail: tuple[Any, ...]) -> WaitingQueue:
        queue = cls.__new__(cls)
        queue._base, queue._start, queue._tail = base, start, tail
        queue._len = len(base) - start + len(tail)
        return queue

    def __len__(self) -> int:
        return self._len

    def __bool__(self) -> bool:
        return self._len > 0

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Any, ...]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            first, stop, step = index.indices(self._len)
            if step != 1:
                return tuple(self)[index]
            offset, base, tail = self._start, self._base, self._tail
            split = len(base) - offset  # entries taken from base
            if stop <= split:
                return base[offset + first : offset + stop]
            if first >= split:
                return tail[first - split : stop - split]
            return base[offset + first :] + tail[: stop - split]
        if index < 0:
            index += self._len
            if index < 0:
                raise IndexError("WaitingQueue index out of range")
        i = self._start + index
        base = self._base
        if i < len(base):
            return base[i]
        return self._tail[i - len(base)]

    def __iter__(self) -> Iterator[Any]:
        if self._start == 0:
            return chain(self._base, self._tail)
        return chain(islice(self._base, self._start, None), self._tail)

    def __add__(self, items: tuple[Any, ...]) -> WaitingQueue:
        """The queue with `items` appended."""
        if not items:
            return self
        tail = self._tail + items
        if len(tail) * len(tail) > TAIL * TAIL + self._len:  # tail beyond max(TAIL, sqrt(q))
            return WaitingQueue._of(self._base[self._start :] + tail, 0, ())
        return WaitingQueue._of(self._base, self._start, tail)

    def without(self, positions: Sequence[int]) -> WaitingQueue:
        """The queue without the entries at `positions` (ascending)."""
        count = len(positions)
        if not count:
            return self
        if positions[-1] == count - 1:  # a prefix
            start = self._start + count
            base = self._base
            if start <= len(base):
                return WaitingQueue._of(base, start, self._tail)
            return WaitingQueue._of(self._tail, start - len(base), ())
        return WaitingQueue._of(without(tuple(self), positions), 0, ())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, WaitingQueue):
            return self._len == other._len and tuple(self) == tuple(other)
        if isinstance(other, tuple):
            return self._len == len(other) and tuple(self) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"WaitingQueue({tuple(self)!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (WaitingQueue, (tuple(self),))


@overload
def without(items: WaitingQueue, positions: Sequence[int]) -> WaitingQueue: ...


@overload
def without(items: tuple[Any, ...], positions: Sequence[int]) -> tuple[Any, ...]: ...


def without(
    items: WaitingQueue | tuple[Any, ...], positions: Sequence[int]
) -> WaitingQueue | tuple[Any, ...]:
    """`items` (a tuple or a `WaitingQueue`) without the entries at `positions` (ascending).

    Complexity: $O(n)$ for a tuple, one slice per removed entry; see
    [`WaitingQueue.without`][schedlib.backfill.waiting.WaitingQueue.without].

    Examples
    --------
    >>> without((1, 2, 3, 4), (0, 2)), without((1, 2, 3), (0, 1))
    ((2, 4), (3,))
    """
    if type(items) is WaitingQueue:
        return items.without(positions)
    if not positions:
        return items
    if positions[-1] == len(positions) - 1:  # a prefix
        return items[len(positions) :]
    parts = []
    previous = 0
    for k in positions:
        parts.append(items[previous:k])
        previous = k + 1
    parts.append(items[previous:])
    return sum(parts, ())
