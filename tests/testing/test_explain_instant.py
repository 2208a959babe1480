"""`explain_instant` against a brute force over every order of one instant's events.

The explainer of the event-order checker
([`explain_instant`][schedlib.testing.invariants.event_order.explain_instant]) groups
ends and backfills, counts how many of each group were seen and takes the ends planned
before $s_H$ at once: a search over a compressed state. The brute force here keeps
every event apart and replays the state from scratch after each step, from the rules of
the module's docstring alone:

- an end frees its processors and, if planned at or after $s_H$, lowers $L$ by them;
- a head starts only when it is first in the queue (the heads start in queue order)
  and fits ($f \\ge p$, or it has zero length);
- a backfill starts when it fits, and: while a head has not started, only if that head
  does not fit (a head that fits, or has zero length, starts first); once every head has
  started, only if $L \\ge D$ (EASY's promise to the waiting head $H$);
- a start holds its processors (none if it has zero length) and, if planned to end at
  or after $s_H$, raises $L$ by them.

An instant is explained when some order starts every head and every backfill. The state
after a prefix of an order depends only on which events the prefix holds, so walking
every set of events reachable by legal steps walks every legal order.
"""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from schedlib.testing.invariants.event_order import End, Start, explain_instant


def brute_force(
    *,
    free: int,
    late: int,
    demand: int,
    ends: Sequence[End],
    heads: Sequence[Start],
    backfills: Sequence[Start],
) -> tuple[bool, set[int]]:
    """Whether some order starts every job, and the numbers of ends such orders see
    before their last start."""
    events = (
        [("end", p, lt, False) for p, lt in ends]
        + [("head", p, lt, zero) for p, lt, zero in heads]
        + [("backfill", p, lt, zero) for p, lt, zero in backfills]
    )
    starts = (1 << len(events)) - (1 << len(ends))  # the heads and the backfills

    def replay(done: int) -> tuple[int, int, int]:
        """Free processors, L and heads started after the events of `done`, from scratch."""
        f, lo, started = free, late, 0
        for k, (kind, p, lt, zero) in enumerate(events):
            if not done >> k & 1:
                continue
            if kind == "end":
                f, lo = f + p, lo - (p if lt else 0)
            else:
                held = 0 if zero else p
                f, lo = f - held, lo + (held if lt else 0)
                started += kind == "head"
        return f, lo, started

    seen = {0}
    stack = [0]
    ends_before_last_start: set[int] = set()
    while stack:
        done = stack.pop()
        if done & starts == starts:
            ends_before_last_start.add(bin(done & ~starts).count("1"))
            continue
        f, lo, started = replay(done)
        for k, (kind, p, _, zero) in enumerate(events):
            if done >> k & 1:
                continue
            fits = f >= p or zero
            if kind == "head":
                legal = k == len(ends) + started and fits  # first in the queue, and fits
            elif kind == "backfill":
                if started < len(heads):
                    _, hp, _, hzero = events[len(ends) + started]
                    legal = fits and not (f >= hp or hzero)  # a head that fits starts first
                else:
                    legal = fits and lo >= demand  # EASY's promise: L >= D
            else:
                legal = True
            if legal and done | 1 << k not in seen:
                seen.add(done | 1 << k)
                stack.append(done | 1 << k)
    return bool(ends_before_last_start), ends_before_last_start


ENDS = st.lists(st.tuples(st.integers(1, 3), st.booleans()), max_size=4)
STARTS = st.tuples(st.integers(1, 3), st.booleans(), st.booleans())


@settings(max_examples=400)
@given(
    free=st.integers(0, 4),
    late=st.integers(0, 8),
    demand=st.integers(1, 8),
    ends=ENDS,
    heads=st.lists(STARTS, max_size=3),
    backfills=st.lists(STARTS, max_size=4),
)
def test_the_explainer_agrees_with_every_order_of_the_events(
    free: int,
    late: int,
    demand: int,
    ends: list[End],
    heads: list[Start],
    backfills: list[Start],
) -> None:
    """The verdict is the brute force's; an explained instant's `ends_seen` is the count of
    ends one of the orders that keep the promise sees before its last start."""
    instant = {
        "free": free,
        "late": late,
        "demand": demand,
        "ends": ends,
        "heads": heads,
        "backfills": backfills,
    }
    verdict = explain_instant(**instant)  # type: ignore[arg-type]
    explained, counts = brute_force(**instant)  # type: ignore[arg-type]
    assert verdict.explained is explained
    if explained:
        assert verdict.ends_seen in counts
    else:
        assert verdict.failing_group is None or verdict.failing_group in backfills
        assert 0 <= verdict.heads_started <= len(heads)


# -- the four behaviours the round-4 audit found unpinned (issue 38) -----------------------


def test_a_zero_length_head_starts_before_any_backfill() -> None:
    """A head of zero length fits whatever is free, so it starts first: the backfill
    (1 processor, 1 free) may not go ahead of it, and after it L = 0 < D."""
    instant = {
        "free": 1,
        "late": 0,
        "demand": 5,
        "ends": [],
        "heads": [(2, False, True)],
        "backfills": [(1, False, False)],
    }
    assert brute_force(**instant)[0] is False  # type: ignore[arg-type]
    assert explain_instant(**instant).explained is False  # type: ignore[arg-type]


def test_a_backfill_may_start_when_l_equals_d() -> None:
    """EASY's promise holds at L >= D, equality included (H cannot fit before s_H)."""
    instant = {
        "free": 1,
        "late": 5,
        "demand": 5,
        "ends": [],
        "heads": [],
        "backfills": [(1, False, False)],
    }
    assert brute_force(**instant)[0] is True  # type: ignore[arg-type]
    assert explain_instant(**instant).explained is True  # type: ignore[arg-type]


def test_a_backfill_ending_before_the_heads_start_does_not_count_in_l() -> None:
    """Two backfills planned to end before s_H hold nothing past it: after the first one
    and the end (planned past s_H) L = 4 < D = 5, and before the end the second has no
    processor; no order starts both."""
    instant = {
        "free": 1,
        "late": 5,
        "demand": 5,
        "ends": [(1, True)],
        "heads": [],
        "backfills": [(1, False, False)] * 2,
    }
    assert brute_force(**instant)[0] is False  # type: ignore[arg-type]
    assert explain_instant(**instant).explained is False  # type: ignore[arg-type]


def test_an_instant_whose_head_cannot_start_is_not_explained() -> None:
    """No backfill to explain, but the head (2 processors, none free, no end) cannot start
    at this instant: the schedule that starts it now is not explained."""
    instant = {
        "free": 0,
        "late": 0,
        "demand": 5,
        "ends": [],
        "heads": [(2, False, False)],
        "backfills": [],
    }
    assert brute_force(**instant)[0] is False  # type: ignore[arg-type]
    assert explain_instant(**instant).explained is False  # type: ignore[arg-type]
