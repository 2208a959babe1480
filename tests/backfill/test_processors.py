"""FreeProcessors (ranges of free ids) against a plain sorted-set reference."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from schedlib.backfill.processors import FreeProcessors, Ranges, ids_of
from schedlib.errors import InvalidValueError


def _well_formed(free: FreeProcessors) -> None:
    assert free.size == sum(hi - lo for lo, hi in free.ranges)
    for lo, hi in free.ranges:
        assert lo < hi
    for (_, end), (start, _) in zip(free.ranges, free.ranges[1:], strict=False):
        assert end < start  # disjoint and not touching: merged


@settings(max_examples=400)  # cheap (about 1 ms each), and merges need a few steps
@given(
    capacity=st.integers(0, 12),
    operations=st.lists(st.tuples(st.booleans(), st.integers(0, 6)), max_size=30),
)
@example(capacity=8, operations=[(True, 3), (True, 2), (False, 0), (False, 0)])  # merge left
@example(capacity=8, operations=[(True, 3), (True, 2), (False, 1), (False, 0)])  # merge right
def test_take_and_give_back_match_a_sorted_set(
    capacity: int, operations: list[tuple[bool, int]]
) -> None:
    free = FreeProcessors.idle(capacity)
    reference = set(range(capacity))
    held: list[Ranges] = []
    for take, amount in operations:
        if take and amount <= len(reference):
            taken, free = free.take(amount)
            place = ids_of(taken)
            assert place == tuple(sorted(reference)[:amount])  # lowest ids first
            reference -= set(place)
            held.append(taken)
        elif held:
            taken = held.pop(amount % len(held))
            free = free.give_back(taken)
            reference |= set(ids_of(taken))
        _well_formed(free)
        assert free.ids() == tuple(sorted(reference))


@pytest.mark.parametrize("procs", [5, -1])
def test_taking_an_impossible_count_names_the_field_and_value(procs: int) -> None:
    with pytest.raises(InvalidValueError, match=rf"procs = {procs}: must be between 0 and the 4"):
        FreeProcessors.idle(4).take(procs)


def test_giving_back_a_free_id_is_an_error() -> None:
    with pytest.raises(InvalidValueError, match=r"processors 2\.\.2 are not all in use"):
        FreeProcessors.idle(4).give_back([(2, 3)])
