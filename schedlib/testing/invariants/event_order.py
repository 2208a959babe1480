"""Whether some order of one instant's simultaneous events lets EASY's head keep its promise.

A schedule read from a file says *when* things happened, not in which order
the events of one instant were seen. Most simulators handle them one at a
time (each job end, each arrival) with a scheduling pass after each, so a job
may be backfilled after the scheduler has seen only some of the ends of that
instant, against a shadow time later than the one all the ends would give.
[`explain_instant`][schedlib.testing.invariants.event_order.explain_instant]
decides whether *some* order of the instant's events and starts keeps EASY's
promise, by a search over the orders.

**The model** (per instant $t$; processors counted, as EASY decides): the
state is the free processors $f$ and the running jobs with their planned
ends. The waiting jobs submitted before $t$ are in queue order; the first
few of them start at $t$ (the *heads*, in queue order), then comes the first
one that does not, $H$ (its start $s_H > t$). Every other job starting at $t$
is a *backfill*. An order is a sequence of the instant's job ends and starts
such that

- a head starts when it is first in the queue and fits ($f \\ge p$);
- a backfill starts when it fits, and only while the head does not fit (a
  head that fits starts first); when the head is $H$, only if $H$'s shadow
  time is at or after $s_H$ (EASY's promise);
- a job that ends as it starts (zero length) holds its processors over an
  empty interval: it fits whatever is free.

Arrivals of the instant are behind $H$ in the queue and may be handled at any
point, so they constrain nothing. $H$'s shadow time is at or after $s_H$
exactly when the processors held by running jobs whose planned end is at or
after $s_H$ exceed $C - p_H$ (so that $H$ cannot fit before $s_H$):

$$ L = \\sum_{j \\text{ running}, e_j \\ge s_H} p_j \\ \\ge\\ D = C - p_H + 1 . $$

An end frees $p$ processors and, if planned at or after $s_H$, lowers $L$
by $p$; a start holds $p$ and, if planned to end at or after $s_H$, raises
$L$ by $p$. Only $f$ and $L$ matter, so ends and backfills are grouped by
(processors, planned at or after $s_H$, zero length) and the search runs over
how many of each group are done: a depth-first search with a visited set.
Once every head has started, an end planned before $s_H$ is taken at once (it
frees processors and leaves $L$ as it is, so it never hurts).

Notes
-----
Complexity: at most the product over groups of (group size + 1), times the
heads + 1, states; each has at most as many successors as there are groups.
Real traces have a few jobs per instant; `budget` bounds the states visited.

Examples
--------
On 8 processors, three jobs of 2 processors end at $t$; the first waiting job
(2 processors) starts at $t$, the next one ($H$, 4 processors) later, and two
1-processor jobs are backfilled. Had all three ends been seen first, $H$
would fit at $t$; seen one at a time, the first end lets the head start, the
second lets the backfills start, and $H$ still waits for the third:

>>> verdict = explain_instant(free=0, late=8, demand=5, ends=[(2, True)] * 3,
...     heads=[(2, True, False)], backfills=[(1, True, False)] * 2)
>>> verdict.explained, verdict.ends_seen
(True, 2)
>>> explain_instant(free=0, late=4, demand=5, ends=[(2, True)],
...     heads=[], backfills=[(1, True, False)]).explained
False
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TypeVar

import attrs

__all__ = ["InstantVerdict", "explain_instant"]

T = TypeVar("T")

End = tuple[int, bool]
"""An end: (processors freed, planned end at or after the waiting head's start)."""

Start = tuple[int, bool, bool]
"""A start: (processors, planned end at or after the waiting head's start, zero length)."""


@attrs.frozen(slots=True)
class InstantVerdict:
    """What [`explain_instant`][schedlib.testing.invariants.event_order.explain_instant] found.

    Attributes
    ----------
    explained
        `True`: some order keeps the promise; `False`: none does; `None`: the
        search visited `budget` states without deciding.
    ends_seen
        In the order found (or, for `False`, at the failing backfill that
        kept the most processors planned past $s_H$): how many ends were
        seen before the last backfill, group by group summed.
    ends_by_group, backfills_by_group
        At that failing backfill: how many ends of each group were seen and
        how many backfills of each group had started (groups in order of
        first appearance in the inputs), and how many heads had started.
    heads_started
        As above.
    failing_group
        The group of the backfill that could not start (`-1` if none).
    """

    explained: bool | None
    ends_seen: int = 0
    ends_by_group: tuple[tuple[End, int], ...] = ()
    backfills_by_group: tuple[tuple[Start, int], ...] = ()
    heads_started: int = 0
    failing_group: Start | None = None


def _groups(items: Sequence[T]) -> tuple[list[T], list[int]]:
    """The distinct items, in order of first appearance, and how many of each."""
    counts = Counter(items)
    keys = list(counts)
    return keys, [counts[k] for k in keys]


def explain_instant(
    *,
    free: int,
    late: int,
    demand: int,
    ends: Sequence[End],
    heads: Sequence[Start],
    backfills: Sequence[Start],
    budget: int = 200_000,
) -> InstantVerdict:
    """Whether some order of an instant's ends and starts keeps the waiting head's promise.

    Parameters
    ----------
    free
        Free processors before the instant's events.
    late
        $L$ before them: processors of the running jobs planned to end at or
        after the waiting head's start $s_H$ (the jobs ending at this instant
        included: they are running until their end is seen).
    demand
        $D = C - p_H + 1$.
    ends
        The jobs ending at this instant, as `(procs, planned_at_or_after_sH)`.
    heads
        The jobs ahead of the waiting head that start at this instant, in
        queue order, as `(procs, planned_at_or_after_sH, zero_length)`.
    backfills
        The other jobs starting at this instant, in the same form.
    budget
        Most states visited before giving up (`explained=None`).

    Returns
    -------
    InstantVerdict

    Notes
    -----
    See the module's docstring for the model and the complexity.

    Examples
    --------
    A head of 2 processors that starts now fits as soon as one end is seen; a
    backfill of 1 processor may start before that (while the head does not
    fit) against no promise, since the head starts now anyway:

    >>> explain_instant(free=1, late=0, demand=3, ends=[(2, False)],
    ...     heads=[(2, True, False)], backfills=[(1, True, False)]).explained
    True
    """
    end_keys, end_counts = _groups([(int(p), bool(late)) for p, late in ends])
    bf_keys, bf_counts = _groups([(int(p), bool(late), bool(zero)) for p, late, zero in backfills])
    end_p = [k[0] for k in end_keys]
    end_late = [k[1] for k in end_keys]
    bf_p = [k[0] for k in bf_keys]
    bf_late = [k[1] for k in bf_keys]
    bf_zero = [k[2] for k in bf_keys]
    n_heads = len(heads)
    early_ends = [g for g in range(len(end_keys)) if not end_late[g]]
    best: tuple[int, tuple[int, ...], tuple[int, ...], int, int] | None = None
    start = (0, tuple(end_counts), tuple(bf_counts))
    stack = [(start, free, late)]
    seen: set[tuple[int, tuple[int, ...], tuple[int, ...]]] = set()
    while stack:
        key, f, lo = stack.pop()
        if key in seen:
            continue
        seen.add(key)
        if len(seen) > budget:
            return InstantVerdict(None)
        i, left_ends, left_bf = key
        if i == n_heads and not any(left_bf):
            return InstantVerdict(True, sum(end_counts) - sum(left_ends))
        successors = []
        if i == n_heads and any(left_ends[g] for g in early_ends):
            # Every head has started: an end planned before s_H only frees processors.
            gain = sum(end_p[g] * left_ends[g] for g in early_ends)
            rest = tuple(0 if g in early_ends else n for g, n in enumerate(left_ends))
            stack.append(((i, rest, left_bf), f + gain, lo))
            continue
        for g, n in enumerate(left_ends):
            if n:
                ends_left = (*left_ends[:g], n - 1, *left_ends[g + 1 :])
                successors.append(
                    ((i, ends_left, left_bf), f + end_p[g], lo - (end_p[g] if end_late[g] else 0))
                )
        for g, n in enumerate(left_bf):
            if not n or (f < bf_p[g] and not bf_zero[g]):
                continue
            if i < n_heads:
                allowed = f < heads[i][0] and not heads[i][2]  # a head that fits starts first
            else:
                allowed = lo >= demand
                if not allowed and (best is None or lo > best[0]):
                    best = (lo, left_ends, left_bf, i, g)
            if allowed:
                held = 0 if bf_zero[g] else bf_p[g]
                bf_left = (*left_bf[:g], n - 1, *left_bf[g + 1 :])
                successors.append(
                    ((i, left_ends, bf_left), f - held, lo + (held if bf_late[g] else 0))
                )
        if i < n_heads and (f >= heads[i][0] or heads[i][2]):
            p, is_late, zero = heads[i]
            held = 0 if zero else p
            successors.append(
                ((i + 1, left_ends, left_bf), f - held, lo + (held if is_late else 0))
            )
        stack.extend(successors)  # popped last first: a start before an end
    if best is None:
        return InstantVerdict(False)
    _, left_ends, left_bf, i, g = best
    return InstantVerdict(
        False,
        sum(end_counts) - sum(left_ends),
        tuple((k, n - m) for k, n, m in zip(end_keys, end_counts, left_ends, strict=True)),
        tuple((k, n - m) for k, n, m in zip(bf_keys, bf_counts, left_bf, strict=True)),
        i,
        bf_keys[g],
    )
