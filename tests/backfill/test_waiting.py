"""The FCFS waiting queue behaves exactly as the tuple it stands for."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlib.backfill.waiting import TAIL, WaitingQueue, without

# An operation: append k new entries, or remove positions (a prefix or any subset).
operations = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.integers(0, 2 * TAIL)),
        st.tuples(st.just("prefix"), st.integers(0, 40)),
        st.tuples(st.just("remove"), st.sets(st.integers(0, 200), max_size=6)),
    ),
    max_size=60,
)


def _same(queue: WaitingQueue, model: tuple[int, ...]) -> None:
    assert tuple(queue) == model and list(queue) == list(model)
    assert len(queue) == len(model) and bool(queue) == bool(model)
    assert queue == model and model == queue and queue == WaitingQueue(model)
    assert hash(queue) == hash(model)
    assert [queue[i] for i in range(len(model))] == list(model)
    assert [queue[-i] for i in range(1, len(model) + 1)] == [
        model[-i] for i in range(1, len(model) + 1)
    ]
    for first in range(0, len(model) + 2, 3):
        for stop in (first, first + 1, first + TAIL, len(model), len(model) + 5):
            assert queue[first:stop] == model[first:stop]
    assert queue[::2] == model[::2]
    assert pickle.loads(pickle.dumps(queue)) == model
    assert repr(queue) == f"WaitingQueue({model!r})"


@given(ops=operations)
def test_a_waiting_queue_equals_its_tuple_through_appends_and_removals(
    ops: list[tuple[str, object]],
) -> None:
    queue, model = WaitingQueue(), ()
    versions = []
    counter = 0
    for op, arg in ops:
        if op == "append":
            items = tuple(range(counter, counter + int(arg)))  # type: ignore[call-overload]
            counter += len(items)
            queue, model = queue + items, model + items
        else:
            if op == "prefix":
                positions = tuple(range(min(int(arg), len(model))))  # type: ignore[call-overload]
            else:
                positions = tuple(sorted(k for k in arg if k < len(model)))  # type: ignore[attr-defined]
            queue, model = without(queue, positions), without(model, positions)
        versions.append((queue, model))
        _same(queue, model)
    for old, expected in versions:  # earlier versions never change (persistence)
        _same(old, expected)


def test_indexing_out_of_range_raises_like_a_tuple() -> None:
    queue = WaitingQueue((1, 2)) + (3,)  # noqa: RUF005 (the queue's append)
    for index in (3, -4):
        with pytest.raises(IndexError):
            queue[index]
