"""The SWF reader's duplicate-job-number check (`_IdSet`): a bit map plus a set.

A differential property test replays random sequences of `add` and `add_new`
against a plain Python `set`; examples pin the byte boundaries of a run and the
density bound of the map exactly; a memory test records 20 million numbers.
"""

from __future__ import annotations

import sys
import tracemalloc
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from schedlib.workloads.swf import _IdSet


class _Small(_IdSet):
    """The same set with a small density bound, which short sequences reach."""

    __slots__ = ()
    BITS_PER_NUMBER = 8
    MIN_BITS = 16


def bound(ids: _IdSet, seen: int) -> int:
    """The density bound: the most bits the map may hold with `seen` numbers seen."""
    return ids.BITS_PER_NUMBER * seen + ids.MIN_BITS


def check_state(ids: _IdSet, model: set[int]) -> None:
    """The set's bookkeeping agrees with the numbers recorded."""
    assert ids.top == max(model, default=-1)
    assert ids.count == len(model)
    assert len(ids.bits) * 8 <= bound(ids, len(model))  # the density bound holds
    end = ids.base + len(ids.bits) * 8
    assert all(n < ids.base or n >= end for n in ids.extra)  # the map covers none of them
    assert sorted(ids.ahead) == sorted(n for n in ids.extra if n > ids.base)


def check_all_recorded(ids: _IdSet, model: set[int]) -> None:
    """Every number recorded is refused again; its free neighbours are not."""
    for number in sorted(model):
        assert not ids.add(number), number
    free = {n + d for n in model for d in (-1, 1)} - model
    for number in sorted(n for n in free if n >= 0):
        assert ids.add(number), number
        model.add(number)
    check_state(ids, model)


def run_op(ids: _IdSet, model: set[int], start: int, op: tuple[Any, ...]) -> None:
    """Apply one operation to `ids` and to the plain set `model`, checking the answers.

    The number an operation uses is relative to the state: `base` near the
    first number (below it too), `below` under it, `top` near the largest,
    `seen` one already recorded, `far` near $2^{40}$, `end` near the end of the
    map, `bound` near the density bound (`-1`: the last number it allows).
    """
    base = ids.base if ids.base >= 0 else start
    top, delta = ids.top, op[2]
    if op[0] == "add":
        where = op[1]
        anchor = {
            "base": base,
            "below": base - 1 - abs(delta),
            "top": top,
            "seen": sorted(model)[delta % len(model)] if model else base,
            "far": 1 << 40,
            "end": base + len(ids.bits) * 8,
            "bound": base + bound(ids, len(model) + 1),
        }[where]
        number = max(0, anchor if where in ("below", "seen") else anchor + delta)
        assert ids.add(number) is (number not in model), number
        model.add(number)
        return
    _, where, _, steps = op
    span = sum(steps)  # last - first
    last = {
        "top": top + 1 + abs(delta) + span,
        "end": base + len(ids.bits) * 8 + delta,
        "bound": base + bound(ids, len(model) + len(steps) + 1) + delta,
    }[where]
    first = max(last - span, top + 1, 0)  # above every number seen
    numbers = [first]
    for step in steps:
        numbers.append(numbers[-1] + step)
    batch_base = ids.base if ids.base >= 0 else first
    offset = numbers[-1] - batch_base
    fits = offset < max(len(ids.bits) * 8, bound(ids, len(model) + len(numbers)))
    recorded = ids.add_new(numbers)
    assert recorded is fits, (numbers, offset)
    if not recorded:  # nothing was recorded: the reader then adds them one by one
        assert all(ids.add(n) for n in numbers)
    model.update(numbers)


STEPS = st.lists(st.sampled_from([1, 1, 1, 1, 1, 1, 2, 3, 8, 9, 17]), max_size=40)
OPS = st.lists(
    st.one_of(
        st.tuples(
            st.just("add"),
            st.sampled_from(["base", "below", "top", "seen", "far", "end", "bound"]),
            st.integers(-10, 10),
        ),
        st.tuples(
            st.just("run"), st.sampled_from(["top", "end", "bound"]), st.integers(-10, 10), STEPS
        ),
    ),
    max_size=30,
)


@pytest.mark.parametrize("kind", [_IdSet, _Small])
@given(start=st.integers(0, 40), ops=OPS)
@example(start=0, ops=[("add", "base", 0), ("run", "top", 0, [1] * 20)])  # 1..21: 3 bytes
@example(start=0, ops=[("add", "base", 0), ("run", "top", 7, [1] * 7)])  # exactly byte 1: 8..15
@example(start=0, ops=[("add", "base", 0), ("run", "top", 6, [1, 1])])  # 7..9: bytes 0 and 1
@example(start=5, ops=[("run", "top", 2, [1, 1, 3, 1, 1, 1, 9, 1, 8, 1, 1, 1])])  # runs with gaps
@example(start=0, ops=[("add", "base", 0), ("add", "bound", -1), ("add", "bound", 0)])
@example(start=0, ops=[("add", "base", 0), ("run", "bound", -1, [1] * 9), ("run", "bound", 0, [1])])
@example(
    start=0, ops=[("add", "base", 3), ("add", "far", 0), ("add", "far", 0), ("add", "below", 1)]
)
@example(start=3, ops=[("add", "base", 0), ("add", "bound", 0), ("run", "end", 40, [1] * 40)])
def test_id_set_agrees_with_a_python_set(kind: type[_IdSet], start: int, ops: list[Any]) -> None:
    ids, model = kind(), set[int]()
    for op in ops:
        run_op(ids, model, start, op)
        check_state(ids, model)
    check_all_recorded(ids, model)


@pytest.mark.parametrize(
    ("first", "last"),
    [(1, 1), (1, 7), (7, 8), (8, 15), (8, 16), (3, 5), (5, 30), (16, 23), (9, 70), (15, 16)],
)
def test_a_run_sets_exactly_its_bits(first: int, last: int) -> None:
    ids = _IdSet()
    assert ids.add(0)
    assert ids.add_new(range(first, last + 1))
    assert ids.bits[0] == sum(1 << n for n in range(first, min(last, 7) + 1)) | 1  # byte 0
    assert [n for n in range(last + 12) if not ids.add(n)] == [0, *range(first, last + 1)]


def test_the_density_bound_is_exact() -> None:
    # with n numbers seen, the map covers at most the numbers below base + 64 n + 2**23
    most = bound(_IdSet(), 2)
    inside, outside = _IdSet(), _IdSet()
    assert inside.add(0) and inside.add(most - 1)
    assert len(inside.bits) * 8 == most and not inside.extra
    assert outside.add(0) and outside.add(most)
    assert outside.extra == {most} and len(outside.bits) * 8 < most
    last = bound(_IdSet(), 11) - 1  # 0 and a batch of 10 ending there: allowed
    fits, refused = _IdSet(), _IdSet()
    assert fits.add(0) and fits.add_new(range(last - 9, last + 1))
    assert len(fits.bits) * 8 == last + 1 and not fits.extra
    assert refused.add(0) and not refused.add_new(range(last - 8, last + 2))
    assert refused.top == 0 and refused.count == 1 and len(refused.bits) < 1024
    assert outside.add_new(range(most + 1, most + 11))  # 12 seen: the map grows over `most`
    assert not outside.extra and not outside.add(most) and outside.add(most - 1)


def test_a_far_outlier_goes_to_the_set_not_into_a_huge_map() -> None:
    ids = _IdSet()
    assert ids.add(7) and ids.add(1 << 40) and ids.add(8)
    assert not ids.add(1 << 40) and not ids.add(7) and ids.top == 1 << 40
    assert ids.extra == {1 << 40} and len(ids.bits) <= 1024


def test_numbers_below_the_first_go_to_the_set() -> None:
    ids = _IdSet()
    assert ids.add(100) and ids.add(5) and not ids.add(5) and ids.add(101)
    assert ids.extra == {5} and ids.ahead == []


def test_the_map_grows_over_outliers_and_takes_them_in() -> None:
    ids = _Small()  # 8 bits per number seen, plus 16
    assert ids.add(0) and ids.add(100) and ids.add(60)  # beyond 32 and 40 bits: the set
    assert ids.extra == {60, 100} and all(map(ids.add, range(1, 8)))
    assert ids.add(62)  # 11 seen: 104 bits, which cover 60 and 100
    assert not ids.extra and not ids.add(60) and not ids.add(100) and ids.add(61)
    batch = _Small()
    assert batch.add(0) and batch.add(100) and batch.extra == {100}
    assert batch.add_new(range(101, 120))  # 21 seen: 184 bits, 100 moves in
    assert not batch.extra and not batch.add(100) and batch.add(99)


def record_consecutive(ids: Any, count: int, size: int) -> None:
    """Record 0..count-1 in batches of `size` as the reader does (one by one
    when a batch is refused); only the public behaviour of the set is used."""
    for first in range(0, count, size):
        batch = range(first, min(first + size, count))
        if not ids.add_new(batch):
            assert all(map(ids.add, batch))


@pytest.mark.slow
def test_twenty_million_numbers_hold_under_4_mb() -> None:
    count = 20_000_000
    tracemalloc.start()
    try:
        ids = _IdSet()
        record_consecutive(ids, count, 450)
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert ids.top == count - 1 and not ids.add(0) and not ids.add(count - 1)
    assert held < 4_000_000, f"{held:,} bytes held ({peak:,} at the peak)"
    assert sys.getsizeof(ids.bits) < 4_000_000
