"""Job priority $P = \\alpha W - \\beta T_{rem}$ and the waiting-time bound it implies.

Balasubramanian et al. (2013) §5.1 combines *shortest remaining time next* with *highest response
ratio next*: every job on a node has the priority

$$ P_{j} = \\alpha \\, W_{j} - \\beta \\, T_{rem}(j) $$

where $W_j$ is the job's accumulated non-executing time on its current node and
$T_{rem}(j)$ its estimated remaining time on that node: the resume overhead it
still owes (after a preemption, see [`schedlib.preemption.decision`][schedlib.preemption.decision])
plus the canonical estimate minus the progress made, divided by the node's
speed, never below 0. The
paper's defaults are $\\alpha = 0$, $\\beta = 1$ (preemptive shortest remaining
time, the lowest median wait, §6.2) and $\\alpha = 0.5$ against starvation.

| paper | here | meaning |
|---|---|---|
| $P_{j_a}$ | `priority(...)` | priority, higher runs first |
| $W_{J_a}$ | `wait` | non-executing seconds on the current node (§4, term 24) |
| $T_{rem}(J_a)$ | `remaining` | estimated remaining seconds on the current node |
| $\\alpha$, $\\beta$ | `alpha`, `beta` | weights, $\\alpha, \\beta \\ge 0$ |

## How priorities move with time

While a job waits, $W$ grows at rate 1 and $T_{rem}$ is constant, so its
priority rises at rate $\\alpha$. While it runs, $W$ is frozen and $T_{rem}$
falls at rate 1 (through the overhead too, until it reaches 0), so its
priority rises at rate $\\beta$. Counting the owed overhead in $T_{rem}$
matters: if a resumed job's priority stood still while it paid the overhead,
a waiting job rising at rate $\\alpha > 0$ could pass it before it progresses,
and two jobs could preempt each other forever without progress. With
$\\alpha \\le \\beta$ that cannot happen; with $\\alpha > \\beta$ and an
overhead it still can (the paper reports that preemptions "increase
considerably" from $\\alpha = 1$, §6.2).

Two waiting jobs therefore never swap places, and with $\\alpha \\le \\beta$
a waiting job never catches up with a running job whose estimate is not yet
used up: passes at which nothing happened at a node or around it cannot change
its decision.
[`overtake_delay`][schedlib.preemption.priority.overtake_delay] gives the exact moment a
waiting job passes a running one; the engine uses it to visit a node only when
something can change.

## The starvation bound (with $\\alpha > 0$)

**Assumptions.** (a) $\\alpha > 0$ and $\\beta \\ge 0$; (b) $T_{rem} \\ge 0$ and
$W$ counts only non-executing time on the current node since the job arrived
there, so $W_K(t) \\le t - a_K$ for a job $K$ that arrived at the node at $a_K$;
(c) the job $J$ fits the node's capacity; (d) every decision at the node is
*blocking*: after it, no waiting job could start even by preempting every
running job of strictly lower priority (the local decision of
[`schedule_preemptive`][schedlib.preemption.decision.schedule_preemptive] is; the
checker is
[`check_waiting_blocked`][schedlib.testing.invariants.check_waiting_blocked]);
(e) the node decides at every arrival and completion, between its decisions
running jobs are only added (migrations that start at once) or complete, and
a job that arrives into the queue without a decision at that instant (a
queue-balancing move) waits at most $\\delta$ for the next periodic pass.

Consider a *waiting spell* of $J$ on a node of speed $s$, from $b$ (arrival
or preemption) until $J$ starts. During the spell $T_J$ is constant and
$W_J(t) = t - \\hat a_J$ with the *virtual arrival* $\\hat a_J = b - W_J(b)$.
Define the **horizon**

$$ h_J = \\hat a_J + \\frac{\\beta \\, T_J}{\\alpha} $$

and let $S_J$ be the other jobs present at the node during the spell that
arrived there no later than $h_J$.

*Later jobs rank below J.* A job $K$ with $a_K > h_J$ has, at every $t$ of
the spell, $P_K(t) \\le \\alpha W_K(t) \\le \\alpha (t - a_K) < \\alpha (t - h_J)
= \\alpha W_J(t) - \\beta T_J = P_J(t)$, waiting or running.

*The spell is covered by $S_J$.* After every decision at the node during the
spell, $J$ waits, so by (d) it does not fit in the free vector plus everything
held by running jobs of lower priority. If every running job were outside
$S_J$, all would rank strictly below $J$ and $J$ would fit in the whole
capacity (c): a contradiction. So some job of $S_J$ runs after each decision,
and by (e) keeps running until the next decision. Hence at every instant of
the spell (except the first $\\le \\delta$ seconds after a balancing arrival)
a job of $S_J$ executes on the node, and

$$ t_{start} - b \\;\\le\\; \\sum_{K \\in S_J} \\Big( \\frac{r_K}{s} + c \\, n_K \\Big)
\\;+\\; \\delta \\, [\\text{balancing arrival}] $$

with $r_K$ the remaining canonical work of $K$ (at most its runtime), $c$ the
preemption overhead and $n_K$ the number of execution segments of $K$ in the
spell. $S_J$ is finite for any arrival stream with finitely many arrivals in
a bounded window, so **no job starves**.

*Closed form.* If the work arriving at the node in any window of length $L$ is
at most $\\rho s L + \\sigma$ canonical seconds ($\\rho \\le 1$ a utilisation,
$\\sigma$ a burst) and $Q$ canonical seconds of work are present when a fresh
job ($W_J = 0$, $c = 0$) arrives, then

$$ W_J^{max} \\;\\le\\; \\frac{Q + \\sigma}{s} + \\rho \\, \\frac{\\beta \\, T_J}{\\alpha}. $$

With $\\alpha = 0$ the horizon is infinite and the bound is void: a stream of
jobs shorter than $J$ keeps it waiting as long as the stream lasts (the tests
exhibit this).

References
----------
Balasubramanian et al. (2013) §2 (HRRN against starvation), §4 (terms 23-24), §5.1 (the formula),
§6.2 ($\\alpha = 0$ vs $\\alpha = 0.5$).

Examples
--------
A job that waited 600 s with 1800 s of estimated work left:

>>> priority(600, 1800, alpha=0.5, beta=1.0)
-1500.0
>>> overtake_window(0, 3600, alpha=0.5, beta=1.0)  # later arrivals outrank it for 2 h
7200.0
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from fractions import Fraction

from schedlib.model import Time
from schedlib.validation import require

__all__ = [
    "DEFAULT_ALPHA",
    "DEFAULT_BETA",
    "ExactPriority",
    "overtake_delay",
    "overtake_window",
    "priority",
    "starvation_bound",
]

DEFAULT_ALPHA: float = 0.0
"""Weight of the wait time (§6.2: $\\alpha = 0$ gives the lowest median wait)."""

DEFAULT_BETA: float = 1.0
"""Weight of the remaining time (§5.1: "typically, the $\\beta$ value is set to 1")."""


def priority(
    wait: Time, remaining: Time, *, alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA
) -> float:
    """The priority $P = \\alpha W - \\beta T_{rem}$ of a job on its node.

    Parameters
    ----------
    wait
        $W$: non-executing seconds accumulated on the current node.
    remaining
        $T_{rem}$: estimated remaining seconds on the current node (`>= 0`).
    alpha, beta
        The weights $\\alpha$ and $\\beta$.

    Returns
    -------
    float
        The priority; higher runs first.

    Notes
    -----
    $$ P = \\alpha W - \\beta T_{rem} $$

    Complexity: $O(1)$.

    References
    ----------
    Balasubramanian et al. (2013) §5.1 and Algorithm 1 (`CalculatePriority`).

    Examples
    --------
    Shortest remaining time first ($\\alpha = 0$):

    >>> priority(5000, 1200), priority(0, 1800)
    (-1200.0, -1800.0)
    """
    return alpha * wait - beta * remaining


class ExactPriority(float):
    r"""A priority that compares as its exact value.

    The float is the priority computed in floats, within `slack` of the exact value
    $P = \alpha W - \beta T_{rem}$ of the stored times; `exact()` gives that value
    as a fraction (computed once, on demand). Two priorities whose floats are further
    apart than the sum of their slacks are ordered by their floats (the same order,
    fast); closer ones by their exact values. So equal priorities are equal even when
    their floats differ by rounding (a running job's $T_{rem}$ is a difference of
    times), and every comparison the decisions make (`<`, `==`, `min`, sorting,
    `-P` in [`rank_key`][schedlib.preemption.decision.rank_key]) is exact. A plain
    number compares as its own exact value (slack 0). Arithmetic other than negation
    gives plain floats.

    Attributes
    ----------
    slack
        A bound on the distance between the float and the exact priority (`>= 0`).

    Notes
    -----
    Sign of $P_a - P_b$: that of $\hat P_a - \hat P_b$ when
    $|\hat P_a - \hat P_b| > \epsilon_a + \epsilon_b$, else that of the exact difference.
    Complexity: $O(1)$ float operations; a near tie adds two fraction evaluations.

    Examples
    --------
    Two priorities that round apart but are equal (`0.1 + 0.2` is not `0.3` in floats):

    >>> from fractions import Fraction
    >>> a = ExactPriority(0.1 + 0.2, 1e-15, lambda: Fraction(3, 10))
    >>> b = ExactPriority(0.3, 1e-15, lambda: Fraction(3, 10))
    >>> float(a) == float(b), a == b, a < b, -a == -b
    (False, True, False, True)
    >>> a < 0.5, max(a, 0.29) is a
    (True, True)
    """

    __slots__ = ("_exact", "_of", "slack")

    _exact: Fraction | None
    _of: Callable[[], Fraction]
    slack: float

    def __new__(cls, value: float, slack: float, exact: Callable[[], Fraction]) -> ExactPriority:
        """A priority computed in floats as `value`, within `slack` of what `exact()` returns."""
        self = super().__new__(cls, value)
        self.slack = slack
        self._of = exact
        self._exact = None
        return self

    def exact(self) -> Fraction:
        """The exact priority."""
        if self._exact is None:
            self._exact = self._of()
        return self._exact

    def _sign(self, other: object) -> int:
        if not isinstance(other, (int, float, Fraction)):
            raise TypeError(f"cannot compare a priority with {other!r}")
        mine, theirs = float(self), float(other)
        gap = mine - theirs
        slack = self.slack + (other.slack if isinstance(other, ExactPriority) else 0.0)
        if gap > slack or gap < -slack or not math.isfinite(gap):
            return (mine > theirs) - (mine < theirs)
        exact = other.exact() if isinstance(other, ExactPriority) else Fraction(other)
        return (self.exact() > exact) - (self.exact() < exact)

    def __lt__(self, other: object) -> bool:
        return self._sign(other) < 0

    def __le__(self, other: object) -> bool:
        return self._sign(other) <= 0

    def __gt__(self, other: object) -> bool:
        return self._sign(other) > 0

    def __ge__(self, other: object) -> bool:
        return self._sign(other) >= 0

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (int, float, Fraction)):
            return NotImplemented
        return self._sign(other) == 0

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, (int, float, Fraction)):
            return NotImplemented
        return self._sign(other) != 0

    def __hash__(self) -> int:
        return hash(self.exact())  # equal priorities, equal hashes (a fraction hashes as its float)

    def __neg__(self) -> ExactPriority:
        return ExactPriority(-float(self), self.slack, lambda: -self.exact())

    def __reduce__(self) -> tuple[type[float], tuple[float]]:
        return (float, (float(self),))  # the exact value does not cross processes


def overtake_window(
    wait: Time, remaining: Time, *, alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA
) -> Time:
    """How long from now a newly arriving job can still outrank a waiting job.

    A job $K$ arriving at the node more than this many seconds from now ranks
    strictly below the waiting job $J$ at every instant of $J$'s current
    waiting spell (see the module notes).

    Parameters
    ----------
    wait
        $W_J$ now.
    remaining
        $T_J$, the waiting job's estimated remaining time on the node.
    alpha, beta
        The weights; `alpha >= 0`, `beta >= 0`.

    Returns
    -------
    float
        $h_J - t = \\beta T_J / \\alpha - W_J$ (may be negative: nobody arriving
        from now on outranks $J$), or `inf` when $\\alpha = 0$.

    Raises
    ------
    InvalidValueError
        If `alpha` or `beta` is negative.

    Notes
    -----
    $$ h_J - t = \\frac{\\beta T_J}{\\alpha} - W_J(t) $$

    Complexity: $O(1)$.

    References
    ----------
    Balasubramanian et al. (2013) §5.1 (the priority formula); derivation in the module notes.

    Examples
    --------
    >>> overtake_window(600, 1800, alpha=0.5, beta=1.0)
    3000.0
    >>> overtake_window(600, 1800, alpha=0.0)
    inf
    """
    require(alpha, "alpha", at_least=0)
    require(beta, "beta", at_least=0)
    if alpha == 0:
        return math.inf
    return beta * remaining / alpha - wait


def starvation_bound(
    competing_work: Iterable[Time],
    *,
    speed: float = 1.0,
    overhead: Time = 0.0,
    segments: int = 0,
    delta: Time = 0.0,
) -> Time:
    """Upper bound on the length of a waiting spell (module notes, assumptions a-e).

    Parameters
    ----------
    competing_work
        $r_K$ for every $K \\in S_J$: remaining canonical work (or, more
        loosely, the runtime) of each job that arrived at the node no later
        than the horizon $h_J$ and was there during the spell.
    speed
        $s$, the node's speed.
    overhead
        $c$, the preemption overhead charged at each resume.
    segments
        $\\sum_K n_K$, the number of execution segments of those jobs in the
        spell (only multiplies `overhead`).
    delta
        $\\delta$ when the spell began with a queue-balancing arrival, else 0.

    Returns
    -------
    float
        $\\sum_{K \\in S_J} r_K / s + c \\sum_K n_K + \\delta$.

    Notes
    -----
    $$ t_{start} - b \\le \\sum_{K \\in S_J} \\Big(\\frac{r_K}{s} + c\\, n_K\\Big) + \\delta $$

    Complexity: $O(|S_J|)$.

    References
    ----------
    Balasubramanian et al. (2013) §5.1; derivation in the module notes.

    Examples
    --------
    A job arrives at an idle single-core node behind two 600 s jobs (they
    arrived earlier, so they are in $S_J$):

    >>> starvation_bound([600, 600], speed=2.0)
    600.0
    """
    require(speed, "speed", greater_than=0)
    return sum(competing_work) / speed + overhead * segments + delta


def overtake_delay(
    gap: float,
    *,
    alpha: float = DEFAULT_ALPHA,
    beta: float = DEFAULT_BETA,
    remaining: Time = math.inf,
) -> Time:
    """Seconds until a waiting job's priority catches up with a running job's.

    The waiting job's priority rises at rate $\\alpha$; the running job's
    rises at rate $\\beta$ for `remaining` seconds (until its estimated
    remaining time reaches 0), then stays flat.

    Parameters
    ----------
    gap
        $P_{run} - P_{wait}$ now.
    alpha, beta
        The weights.
    remaining
        The running job's $T_{rem}$ now (wall seconds on its node).

    Returns
    -------
    float
        The smallest $d \\ge 0$ with $P_{wait}(t + d) \\ge P_{run}(t + d)$
        while the gap is closing (`0` for a closing gap that is already 0);
        `0` if the waiting job is already above; `inf` if the gap never closes.

    Notes
    -----
    The gap closes at rate $\\alpha - \\beta$ while the running job
    progresses and at rate $\\alpha$ afterwards. Complexity: $O(1)$.

    References
    ----------
    Balasubramanian et al. (2013) §5.1 (priorities are recomputed at each pass).

    Examples
    --------
    The runner pulls away while it progresses; the waiting job catches up only
    once the runner's estimate is used up: after 3600 s the gap is
    $100 + 0.5 \\cdot 3600 = 1900$, closed at rate 0.5 in 3800 s more:

    >>> overtake_delay(100, alpha=0.5, beta=1.0, remaining=3600)
    7400.0
    >>> overtake_delay(100, alpha=0.0, beta=1.0, remaining=3600)
    inf
    >>> overtake_delay(100, alpha=2.0, beta=1.0, remaining=3600)
    100.0
    """
    if gap < 0:
        return 0.0
    elapsed = 0.0
    for rate, length in ((alpha - beta, remaining), (alpha, math.inf)):
        if length <= 0:
            continue
        if rate > 0 and gap <= rate * length:
            return elapsed + gap / rate
        if math.isinf(length):
            return math.inf
        gap -= rate * length
        elapsed += length
    return math.inf  # pragma: no cover - the last phase is infinite
