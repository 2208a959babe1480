r"""Verdicts on claims: estimates over independent replicates, stated tests, Holm's correction.

Every reproduction checks its paper's claims with this module, so that one rule,
printed beside every claims table, decides every verdict:

1. **An estimate over independent replicates.** A claim is about a quantity
   measured once per replicate (a paired difference between two policies run on
   the same workload, a relative change, a count). A
   [`MeanEstimate`][schedlib.results.verdicts.MeanEstimate] holds the per-replicate
   values; its 95 % interval is Student's $t$ interval of their mean. A
   [`ProportionEstimate`][schedlib.results.verdicts.ProportionEstimate] counts
   events among independent trials, with the exact (Clopper-Pearson) interval.
2. **What the claim expects**, an [`Expect`][schedlib.results.verdicts.Expect]:
   the quantity is below a bound, above a bound, or between two (equivalence).
   A "not worse" claim is "below a margin", and the margin is stated with the
   claim (`Expect.below(5.0)`: at most 5 % worse); "much better" is "below
   minus a margin". Plain "better" is "below 0".
3. **Two one-sided tests at 2.5 %.** The claim *holds* when the test of its
   expectation rejects the opposite (the whole 95 % interval lies where the
   claim says), *does not hold* when the opposite test rejects the claim (the
   whole interval lies on the other side), and is *inconclusive* otherwise.
4. **Holm's correction** over the claims judged together (one table), so that
   the chance of any wrong "holds" or "does not hold" in the table stays at most
   2.5 % when the replicates are independent and the means near normal.

Three cases are not sampling questions, and each is said as such:

- **A deterministic quantity** (no replicate can change it: a run with no random
  input, or a configuration that does not depend on the replicate's draw) is one
  value, $n = 1$ ([`MeanEstimate.once`][schedlib.results.verdicts.MeanEstimate.once]),
  judged exactly from its value; it is never copied into "replicates".
  Independent replicates that all give the same value are exact too.
  One replicate of a random quantity gives no spread to test against: *inconclusive*.
- **A tie** ([`Tie`][schedlib.results.verdicts.Tie]): the two sides of a
  comparison are identical by construction (the same schedule). It is evidence
  neither for the claim nor against it, is reported as `tie`, and is left out of
  Holm's family and of the count of a composite claim.
- **Not testable** ([`NotTestable`][schedlib.results.verdicts.NotTestable]): the
  run happened but its values cannot test the claim (every median is 0).

A claim over several configurations ("at every load", "for both traces", "in
most cases") is judged per configuration, never on a pooled number or on the
worst of several: see [`Configurations`][schedlib.results.verdicts.Configurations].

Notes
-----
For $n$ replicate values $x_i$ with mean $\bar x$ and standard deviation $s$,
the standard error is $s / \sqrt n$ and the interval is

$$ \bar x \pm t_{0.975,\,n-1} \, \frac{s}{\sqrt n}. $$

The one-sided $p$-value of "$\mu < b$" is $F_{n-1}\!\left((\bar x - b)\sqrt n / s\right)$,
with $F_\nu$ the CDF of Student's $t$ with $\nu$ degrees of freedom (computed
from the regularized incomplete beta function, so that no dependency is
needed). For $k$ events in $n$ trials the $p$-value of "$p < b$" is the
binomial $P(X \le k \mid n, b)$. With $m$ claims and $p$-values sorted
$p_{(1)} \le \dots \le p_{(m)}$, Holm's adjusted values are
$\tilde p_{(i)} = \max_{j \le i} \min(1, (m - j + 1)\, p_{(j)})$, and a claim is
decided when $\tilde p \le 0.025$.

Complexity: $O(n)$ per estimate, $O(m \log m)$ for Holm.

References
----------
- Student (1908), "The probable error of a mean", *Biometrika* 6(1).
- Clopper and Pearson (1934), *Biometrika* 26(4).
- Holm (1979), "A simple sequentially rejective multiple test procedure",
  *Scandinavian Journal of Statistics* 6(2).
- Schuirmann (1987), two one-sided tests for equivalence, *J. Pharmacokin. Biopharm.* 15(6).

Examples
--------
A policy measured on the same 10 workloads as a baseline (paired):

>>> new = [90, 95, 88, 97, 91, 93, 90, 94, 92, 89]
>>> old = [100, 101, 99, 102, 98, 100, 99, 103, 100, 97]
>>> change = paired_difference(new, old, relative=True)   # percent of the baseline
>>> print(change.describe())
-8.0 % ± 1.3 (n = 10)
>>> judge([ClaimTest(change, Expect.below(0.0))])[0].verdict          # better
'holds'
>>> judge([ClaimTest(change, Expect.below(-10.0))])[0].verdict        # much better: by > 10 %
'does not hold'
>>> judge([ClaimTest(change, Expect.between(-8.0, 8.0))])[0].verdict  # equivalent within 8 %
'inconclusive'
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import attrs

from schedlib.errors import InvalidValueError

__all__ = [
    "ALPHA",
    "CONFIDENCE",
    "QUANTIFIERS",
    "TESTED",
    "VERDICTS",
    "ClaimTest",
    "Configurations",
    "Expect",
    "Judgement",
    "MeanEstimate",
    "Measured",
    "NotTestable",
    "ProportionEstimate",
    "Tie",
    "binomial_cdf",
    "format_p",
    "holm",
    "judge",
    "paired_difference",
    "rule_text",
    "status",
    "t_cdf",
    "t_quantile",
]

ALPHA = 0.025
"""One-sided level of each test (two-sided 95 % intervals)."""
CONFIDENCE = 0.95
"""Level of the printed intervals."""
VERDICTS = ("holds", "does not hold", "inconclusive", "tie", "not testable", "not run")
"""The verdicts a claim can get: the first three are decided by the test (Holm's family);
`tie`: the sides are identical by construction; `not testable`: the run happened but its
values cannot test the claim; `not run`: the rows lack what it needs."""
TESTED = ("holds", "does not hold", "inconclusive")
"""The verdicts of the claims in Holm's family (those that were tested)."""


# --- distributions -------------------------------------------------------------------------

_TINY = 1e-300


def _beta_fraction(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz evaluation)."""
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, 10_000):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) > _TINY else _TINY
            step = c * d
            h *= step
        if abs(step - 1.0) < 1e-15:
            return h
    return h  # pragma: no cover - converges in far fewer steps for the arguments used here


def regularized_beta(x: float, a: float, b: float) -> float:
    r"""The regularized incomplete beta function $I_x(a, b)$, for $0 \le x \le 1$, $a, b > 0$.

    Examples
    --------
    >>> regularized_beta(0.5, 2.0, 2.0)
    0.5
    >>> round(regularized_beta(0.3, 1.0, 1.0), 12)
    0.3
    """
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    r"""CDF of Student's $t$ distribution with `df` degrees of freedom.

    Notes
    -----
    $F_\nu(t) = 1 - \tfrac12 I_{\nu/(\nu+t^2)}(\nu/2, 1/2)
    = \tfrac12 + \tfrac12 I_{t^2/(\nu+t^2)}(1/2, \nu/2)$ for $t \ge 0$ (the second
    form near the centre, where the first would cancel), and $F_\nu(-t) = 1 - F_\nu(t)$.

    Examples
    --------
    >>> t_cdf(0.0, 5)
    0.5
    >>> round(t_cdf(2.2281388519649385, 10), 9)
    0.975
    """
    if df <= 0:
        raise InvalidValueError("df", df, "must be > 0")
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    square = t * t
    if square < df:  # near the centre: the other form avoids cancelling 1 - (almost 1)
        half = 0.5 * regularized_beta(square / (df + square), 0.5, df / 2.0)
        return 0.5 + half if t > 0 else 0.5 - half
    tail = 0.5 * regularized_beta(df / (df + square), df / 2.0, 0.5)
    return 1.0 - tail if t > 0 else tail


def t_quantile(p: float, df: float) -> float:
    r"""The $p$-quantile of Student's $t$ with `df` degrees of freedom ($0 < p < 1$).

    Found by bisection on [`t_cdf`][schedlib.results.verdicts.t_cdf] to the
    last bits of a float (deterministic, no dependency).

    Examples
    --------
    >>> round(t_quantile(0.975, 9), 6), round(t_quantile(0.975, 1), 4)
    (2.262157, 12.7062)
    >>> t_quantile(0.5, 3)
    0.0
    """
    if not 0.0 < p < 1.0:
        raise InvalidValueError("p", p, "must be strictly between 0 and 1")
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    low, high = 0.0, 1.0
    while t_cdf(high, df) < p:
        low, high = high, high * 2.0
    for _ in range(200):
        middle = (low + high) / 2.0
        if middle in (low, high):
            break
        if t_cdf(middle, df) < p:
            low = middle
        else:
            high = middle
    return high


def binomial_cdf(k: int, n: int, p: float) -> float:
    r"""$P(X \le k)$ for $X \sim \mathrm{Binomial}(n, p)$.

    Notes
    -----
    $P(X \le k) = I_{1-p}(n - k, k + 1)$ for $0 \le k < n$.

    Examples
    --------
    >>> round(binomial_cdf(0, 3, 0.5), 12)
    0.125
    >>> round(binomial_cdf(1, 3, 0.5), 12), binomial_cdf(3, 3, 0.5)
    (0.5, 1.0)
    """
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    if p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 0.0
    return regularized_beta(1.0 - p, float(n - k), float(k + 1))


def _beta_quantile(q: float, a: float, b: float) -> float:
    low, high = 0.0, 1.0
    for _ in range(200):
        middle = (low + high) / 2.0
        if middle in (low, high):
            break
        if regularized_beta(middle, a, b) < q:
            low = middle
        else:
            high = middle
    return (low + high) / 2.0


# --- estimates -----------------------------------------------------------------------------


def _finite_values(
    instance: object, attribute: attrs.Attribute[tuple[float, ...]], value: tuple[float, ...]
) -> None:
    for x in value:
        if not math.isfinite(x):
            raise InvalidValueError(
                f"{type(instance).__name__}.{attribute.name}", x, "must be finite numbers"
            )


def _to_floats(values: Iterable[float]) -> tuple[float, ...]:
    return tuple(float(v) for v in values)


@attrs.frozen
class MeanEstimate:
    r"""The mean of a quantity measured once per independent replicate, with its $t$ interval.

    Attributes
    ----------
    values
        One value per replicate (finite).
    unit
        How the values read (`"s"`, `"%"`, ...), for
        [`describe`][schedlib.results.verdicts.MeanEstimate.describe].

    Notes
    -----
    Mean $\bar x$, standard deviation $s$ (with $n - 1$), standard error
    $s/\sqrt n$; interval $\bar x \pm t_{0.975, n-1}\, s/\sqrt n$. With $s = 0$
    and $n \ge 2$ the estimate is *exact* (every replicate agrees). $O(n)$.

    Examples
    --------
    >>> e = MeanEstimate((1.0, 2.0, 3.0), unit="s")
    >>> e.mean, e.se
    (2.0, 0.5773502691896258)
    >>> [round(x, 4) for x in e.interval()]
    [-0.4841, 4.4841]
    >>> e.describe()
    '2.0 s ± 2.5 (n = 3)'
    >>> MeanEstimate((4.0, 4.0)).exact
    True
    """

    values: tuple[float, ...] = attrs.field(converter=_to_floats, validator=_finite_values)
    unit: str = ""
    deterministic: bool = attrs.field(default=False, kw_only=True)

    @deterministic.validator
    def _one_value(self, attribute: attrs.Attribute[bool], value: bool) -> None:
        if value and len(self.values) != 1:
            raise InvalidValueError(
                "MeanEstimate.values", self.values,
                "a deterministic quantity is one value (its replicates cannot vary: run it once)",
            )

    @classmethod
    def once(cls, value: float, unit: str = "") -> MeanEstimate:
        """A quantity that no replicate can change (a deterministic run): $n = 1$, judged exactly.

        Examples
        --------
        >>> e = MeanEstimate.once(8.21, "%")
        >>> e.n, e.exact, e.describe()
        (1, True, '8.21 % (deterministic: one run, n = 1)')
        """
        return cls((value,), unit=unit, deterministic=True)

    @property
    def n(self) -> int:
        """Number of replicates."""
        return len(self.values)

    @property
    def mean(self) -> float:
        """Mean over replicates (NaN when there is none)."""
        return math.fsum(self.values) / self.n if self.values else math.nan

    @property
    def sd(self) -> float:
        """Standard deviation over replicates ($n - 1$ in the denominator; NaN for $n < 2$)."""
        if self.n < 2:
            return math.nan
        mean = self.mean
        return math.sqrt(math.fsum((x - mean) ** 2 for x in self.values) / (self.n - 1))

    @property
    def se(self) -> float:
        """Standard error of the mean (NaN for $n < 2$)."""
        return self.sd / math.sqrt(self.n) if self.n >= 2 else math.nan

    @property
    def exact(self) -> bool:
        """Whether the value is known without sampling error: a deterministic quantity, or
        independent replicates (at least two) that all give the same value."""
        if self.deterministic:
            return True
        return self.n >= 2 and all(x == self.values[0] for x in self.values)

    @property
    def value(self) -> float:
        """The estimate (the mean)."""
        return self.mean

    def half_width(self, confidence: float = CONFIDENCE) -> float:
        """Half the width of the two-sided interval (the ± printed); NaN for $n < 2$
        (0 for a deterministic quantity)."""
        if self.exact:
            return 0.0
        if self.n < 2:
            return math.nan
        return t_quantile(0.5 + confidence / 2.0, self.n - 1) * self.se

    def interval(self, confidence: float = CONFIDENCE) -> tuple[float, float]:
        """The two-sided `confidence` interval of the mean."""
        h = self.half_width(confidence)
        return (self.mean - h, self.mean + h)

    def p_less(self, bound: float) -> float:
        """One-sided $p$-value of "the mean is below `bound`" (1 when it cannot be tested)."""
        if self.exact:
            return 0.0 if self.mean < bound else 1.0
        if self.n < 2:
            return 1.0
        return t_cdf((self.mean - bound) / self.se, self.n - 1)

    def p_greater(self, bound: float) -> float:
        """One-sided $p$-value of "the mean is above `bound`" (1 when it cannot be tested)."""
        if self.exact:
            return 0.0 if self.mean > bound else 1.0
        if self.n < 2:
            return 1.0
        return t_cdf((bound - self.mean) / self.se, self.n - 1)

    def describe(self, digits: int | None = None) -> str:
        """`mean unit ± half-width (n = N)`, with 3 significant digits unless `digits` is given."""
        if not self.values:
            return "no replicate"
        unit = f" {self.unit}" if self.unit else ""
        if self.deterministic:
            return f"{_fmt(self.mean, digits)}{unit} (deterministic: one run, n = 1)"
        if self.n < 2:
            return f"{_fmt(self.mean, digits)}{unit} (n = 1, no interval)"
        if self.exact:
            return f"{_fmt(self.mean, digits)}{unit} in every replicate (n = {self.n})"
        h = self.half_width()
        d = digits if digits is not None else _digits_for(h)
        return f"{self.mean:.{d}f}{unit} ± {h:.{d}f} (n = {self.n})"


@attrs.frozen
class ProportionEstimate:
    r"""A share of independent trials in which an event happened, with its exact interval.

    Attributes
    ----------
    successes
        Trials with the event.
    trials
        Independent trials.

    Notes
    -----
    Clopper-Pearson interval: the $\alpha/2$ quantile of
    $\mathrm{Beta}(k, n - k + 1)$ and the $1 - \alpha/2$ quantile of
    $\mathrm{Beta}(k + 1, n - k)$. The $p$-value of "the share is below $b$"
    is $P(X \le k \mid n, b)$, of "above $b$" $P(X \ge k \mid n, b)$.
    $O(1)$ up to the bisections.

    Examples
    --------
    >>> e = ProportionEstimate(2, 300)
    >>> print(e.describe())
    0.667 % [0.0808, 2.39] (2 of 300)
    >>> e.p_greater(0.0), round(e.p_less(0.05), 6)
    (0.0, 2.9e-05)
    """

    successes: int = attrs.field()
    trials: int = attrs.field()

    @trials.validator
    def _check(self, attribute: attrs.Attribute[int], value: int) -> None:
        if value < 0 or not 0 <= self.successes <= value:
            raise InvalidValueError(
                "ProportionEstimate", (self.successes, value), "needs 0 <= successes <= trials"
            )

    @property
    def n(self) -> int:
        """Number of trials."""
        return self.trials

    @property
    def unit(self) -> str:
        """Shares have no unit (bounds are shares too: 0.01 is 1 %)."""
        return ""

    @property
    def value(self) -> float:
        """The observed share (NaN with no trial)."""
        return self.successes / self.trials if self.trials else math.nan

    @property
    def exact(self) -> bool:
        """Never exact: a share of trials always has sampling error."""
        return False

    def interval(self, confidence: float = CONFIDENCE) -> tuple[float, float]:
        """Clopper-Pearson two-sided interval of the share."""
        k, n = self.successes, self.trials
        if n == 0:
            return (math.nan, math.nan)
        tail = (1.0 - confidence) / 2.0
        low = 0.0 if k == 0 else _beta_quantile(tail, k, n - k + 1)
        high = 1.0 if k == n else _beta_quantile(1.0 - tail, k + 1, n - k)
        return (low, high)

    def p_less(self, bound: float) -> float:
        """$p$-value of "the share is below `bound`": $P(X \\le k \\mid n, \\text{bound})$."""
        if self.trials == 0:
            return 1.0
        return binomial_cdf(self.successes, self.trials, bound)

    def p_greater(self, bound: float) -> float:
        """$p$-value of "the share is above `bound`": $P(X \\ge k \\mid n, \\text{bound})$."""
        if self.trials == 0:
            return 1.0
        return 1.0 - binomial_cdf(self.successes - 1, self.trials, bound)

    def describe(self, digits: int | None = None) -> str:
        """`share % [low, high] (k of n)` in percent."""
        if self.trials == 0:
            return "no trial"
        low, high = self.interval()
        return (
            f"{_fmt(100 * self.value, digits)} % [{_fmt(100 * low, digits)}, "
            f"{_fmt(100 * high, digits)}] ({self.successes} of {self.trials})"
        )


Estimate = MeanEstimate | ProportionEstimate


def paired_difference(
    new: Sequence[float], old: Sequence[float], *, relative: bool = False, unit: str = ""
) -> MeanEstimate:
    r"""The per-replicate difference `new - old` (or the change in percent of `old`).

    Parameters
    ----------
    new, old
        One value per replicate, in the same replicate order (paired: the same
        workload, seed or trial under both).
    relative
        Give $100\,(x_i - y_i)/y_i$ (percent of the baseline) instead of $x_i - y_i$.
    unit
        The unit of the differences (`"%"` by default when `relative`).

    Raises
    ------
    InvalidValueError
        If the lengths differ, or a baseline is 0 for a relative change.

    Examples
    --------
    >>> paired_difference([3.0, 5.0], [1.0, 2.0]).values
    (2.0, 3.0)
    >>> paired_difference([3.0, 5.0], [2.0, 4.0], relative=True).values
    (50.0, 25.0)
    """
    if len(new) != len(old):
        raise InvalidValueError("paired values", (len(new), len(old)), "need as many of each")
    if not relative:
        return MeanEstimate(tuple(a - b for a, b in zip(new, old, strict=True)), unit=unit)
    for b in old:
        if b == 0:
            raise InvalidValueError("baseline", b, "a relative change needs a non-zero baseline")
    return MeanEstimate(
        tuple(100.0 * (a - b) / abs(b) for a, b in zip(new, old, strict=True)), unit=unit or "%"
    )


# --- ties, untestable claims, claims over several configurations ---------------------------


@attrs.frozen
class Tie:
    """The two sides of a comparison are identical by construction (the same schedule).

    A tie is neither evidence for a claim nor against it: it is reported as
    such (`tie: identical schedules`), left out of Holm's family, and not
    counted among the configurations of a composite claim.

    Examples
    --------
    >>> Tie().describe()
    'tie: identical schedules'
    """

    reason: str = "identical schedules"

    def describe(self, digits: int | None = None) -> str:
        """`tie: REASON`."""
        return f"tie: {self.reason}"


@attrs.frozen
class NotTestable:
    """The run happened, but its values cannot test the claim (e.g. every median is 0).

    Examples
    --------
    >>> NotTestable("every median is 0").describe()
    'not testable (every median is 0)'
    """

    reason: str

    def describe(self, digits: int | None = None) -> str:
        """`not testable (REASON)`."""
        return f"not testable ({self.reason})"


Part = Estimate | Tie | NotTestable | None
"""What one configuration of a composite claim measured (`None`: not run there)."""

QUANTIFIERS = ("every", "most")
"""How a claim over several configurations combines them."""


def _part_p(part: Part, expect: Expect) -> tuple[float, float]:
    if isinstance(part, MeanEstimate | ProportionEstimate) and part.n > 0:
        return expect.p_values(part)
    return (1.0, 1.0)


@attrs.frozen
class Configurations:
    r"""A claim measured in several configurations (traces, loads, intervals), judged per
    configuration.

    Attributes
    ----------
    quantifier
        `"every"`: the claim holds in each configuration (the paper's "at every
        load", "for both traces"); `"most"`: in more than half of them ("in most
        cases").
    parts
        `(label, what was measured there)` per configuration: an estimate, a
        [`Tie`][schedlib.results.verdicts.Tie] (left out of the count and
        shown), a [`NotTestable`][schedlib.results.verdicts.NotTestable] or
        `None` (not run there; both count as configurations with no evidence).

    Notes
    -----
    With $p^h_i$ and $p^f_i$ the one-sided $p$-values of configuration $i$ for the
    claim and against it, and $m$ configurations that are not ties:

    - *every* (an intersection-union test): $p^h = \max_i p^h_i$ (no correction
      is needed: the claim holds only if each configuration's test rejects);
      $p^f = \min(1, m \min_i p^f_i)$, the first step of Holm's procedure over
      the configurations (some configuration's opposite test rejects after
      correction);
    - *most*: with $r = \lfloor m/2 \rfloor + 1$ configurations needed,
      $p^h$ is the $r$-th smallest of the Holm-adjusted $p^h_i$ (the claim holds
      when at least $r$ configurations hold after Holm over the $m$), and $p^f$
      the $(m - r + 1)$-th smallest Holm-adjusted $p^f_i$ (so many fail that
      fewer than $r$ can hold).

    Each is a valid $p$-value of the composite claim (Holm controls the
    chance of any false rejection among the configurations), so the claim then
    enters its paper's Holm family like any other. No configuration's minimum
    or maximum is used as a measure. $O(m \log m)$.

    Examples
    --------
    Round robin equals FIFO at three intervals (identical schedules) and FIFO is
    shorter at the two others:

    >>> shorter = MeanEstimate((-25.0, -24.0, -26.5, -25.1), unit="%")
    >>> slightly = MeanEstimate((-3.0, -2.9, -3.2, -2.8), unit="%")
    >>> most = Configurations("most", (("500", shorter), ("750", slightly),
    ...                                 ("1000", Tie()), ("2000", Tie()), ("4000", Tie())))
    >>> expect = Expect.below(0.0)
    >>> print(most.describe(expect))
    most: 2 of 2 configurations hold (needed 2); 3 ties (identical schedules) not counted
    >>> judge([ClaimTest(most, expect)])[0].verdict
    'holds'
    >>> every = Configurations("every", (("CTC-SP2", MeanEstimate.once(-4.0, "%")),
    ...                                  ("SDSC-SP2", MeanEstimate.once(36.0, "%"))))
    >>> print(every.describe(expect))
    every: 1 of 2 configurations hold, 1 does not (CTC-SP2: holds; SDSC-SP2: does not hold)
    >>> judge([ClaimTest(every, expect)])[0].verdict
    'does not hold'
    """

    quantifier: str = attrs.field(validator=attrs.validators.in_(QUANTIFIERS))
    parts: tuple[tuple[str, Part], ...] = attrs.field(converter=tuple)

    @parts.validator
    def _check_parts(self, attribute: attrs.Attribute[object], value: object) -> None:
        if not self.parts:
            raise InvalidValueError("Configurations.parts", self.parts, "needs a configuration")

    @property
    def counted(self) -> list[tuple[str, Part]]:
        """The configurations that are not ties."""
        return [(label, part) for label, part in self.parts if not isinstance(part, Tie)]

    @property
    def ties(self) -> list[str]:
        """Labels of the configurations that are ties."""
        return [label for label, part in self.parts if isinstance(part, Tie)]

    @property
    def needed(self) -> int:
        """How many configurations must hold: all of them, or more than half."""
        m = len(self.counted)
        return m if self.quantifier == "every" else m // 2 + 1

    @property
    def unit(self) -> str:
        """The unit of the configurations' estimates."""
        for _, part in self.parts:
            if isinstance(part, MeanEstimate | ProportionEstimate):
                return part.unit
        return ""

    @property
    def n(self) -> int:
        """Configurations with an estimate (0: nothing to test)."""
        return sum(
            1
            for _, p in self.counted
            if isinstance(p, MeanEstimate | ProportionEstimate) and p.n > 0
        )

    def p_values(self, expect: Expect) -> tuple[float, float]:
        """`(p_holds, p_fails)` of the composite claim (see Notes)."""
        pairs = [_part_p(part, expect) for _, part in self.counted]
        m = len(pairs)
        if m == 0:
            return (1.0, 1.0)
        if self.quantifier == "every":
            return (max(h for h, _ in pairs), min(1.0, m * min(f for _, f in pairs)))
        r = self.needed
        held = sorted(holm([h for h, _ in pairs]))
        failed = sorted(holm([f for _, f in pairs]))
        return (held[r - 1], failed[m - r])

    def part_verdicts(self, expect: Expect, alpha: float = ALPHA) -> list[tuple[str, str]]:
        """Each configuration's verdict at `alpha` (ties and untestable ones said so).

        A configuration holds when its test rejects the opposite (after Holm over the
        configurations for `most`; no correction for `every`, whose claim needs all of
        them), and does not hold when its opposite test rejects after Holm.
        """
        counted = self.counted
        pairs = [_part_p(part, expect) for _, part in counted]
        held = holm([h for h, _ in pairs]) if self.quantifier == "most" else [h for h, _ in pairs]
        failed = holm([f for _, f in pairs])
        verdict_of = {}
        for (label, part), h, f in zip(counted, held, failed, strict=True):
            if part is None:
                verdict_of[label] = "not run"
            elif isinstance(part, NotTestable):
                verdict_of[label] = part.describe()
            elif h <= alpha:
                verdict_of[label] = "holds"
            elif f <= alpha:
                verdict_of[label] = "does not hold"
            else:
                verdict_of[label] = "inconclusive"
        return [
            (label, "tie" if isinstance(part, Tie) else verdict_of[label])
            for label, part in self.parts
        ]

    def describe(self, expect: Expect | None = None, digits: int | None = None) -> str:
        """How many configurations hold, and which way the others went."""
        m = len(self.counted)
        ties = self.ties
        tie_text = ""
        if ties:
            reason = next(p.reason for _, p in self.parts if isinstance(p, Tie))
            word = "tie" if len(ties) == 1 else "ties"
            tie_text = f"; {len(ties)} {word} ({reason}) not counted"
        if expect is None:
            return f"{self.quantifier}: {m} configurations{tie_text}"
        verdicts = self.part_verdicts(expect)
        counted = [v for v in verdicts if v[1] != "tie"]
        holding = sum(1 for _, v in counted if v == "holds")
        failing = sum(1 for _, v in counted if v == "does not hold")
        text = f"{self.quantifier}: {holding} of {m} configurations hold"
        if self.quantifier == "most":
            text += f" (needed {self.needed})"
        if failing:
            text += f", {failing} {'does' if failing == 1 else 'do'} not"
        if holding and (holding < m):
            text += " (" + "; ".join(f"{label}: {v}" for label, v in counted) + ")"
        return text + tie_text


# --- what a claim expects, and the verdict ------------------------------------------------


@attrs.frozen
class Expect:
    r"""What a claim expects of its estimate: below a bound, above one, or between two.

    Build it with [`below`][schedlib.results.verdicts.Expect.below],
    [`above`][schedlib.results.verdicts.Expect.above] or
    [`between`][schedlib.results.verdicts.Expect.between].

    Examples
    --------
    >>> Expect.below(0.0).describe("%")
    '< 0 %'
    >>> Expect.between(-5.0, 5.0).describe("%")
    'within [-5, 5] %'
    """

    low: float | None = None
    high: float | None = None

    def __attrs_post_init__(self) -> None:
        if self.low is None and self.high is None:
            raise InvalidValueError("Expect", (self.low, self.high), "needs a bound")
        if self.low is not None and self.high is not None and not self.low < self.high:
            raise InvalidValueError("Expect", (self.low, self.high), "needs low < high")

    @classmethod
    def below(cls, bound: float) -> Expect:
        """The estimate is below `bound` ("better", "not worse than bound")."""
        return cls(high=bound)

    @classmethod
    def above(cls, bound: float) -> Expect:
        """The estimate is above `bound`."""
        return cls(low=bound)

    @classmethod
    def between(cls, low: float, high: float) -> Expect:
        """The estimate lies between `low` and `high` (equivalence, or a stated range)."""
        return cls(low=low, high=high)

    def contains(self, value: float) -> bool:
        """Whether `value` satisfies the expectation."""
        return (self.low is None or value > self.low) and (self.high is None or value < self.high)

    def p_values(self, estimate: Estimate | Configurations) -> tuple[float, float]:
        """`(p_holds, p_fails)`: one-sided $p$-values for the claim and against it."""
        if isinstance(estimate, Configurations):
            return estimate.p_values(self)
        if estimate.exact:
            holds = self.contains(estimate.value)
            return (0.0, 1.0) if holds else (1.0, 0.0)
        p_hold, p_fail = 0.0, 1.0
        if self.high is not None:
            p_hold = max(p_hold, estimate.p_less(self.high))
            p_fail = min(p_fail, estimate.p_greater(self.high))
        if self.low is not None:
            p_hold = max(p_hold, estimate.p_greater(self.low))
            p_fail = min(p_fail, estimate.p_less(self.low))
        return p_hold, p_fail

    def describe(self, unit: str = "") -> str:
        """`< b`, `> a` or `within [a, b]`, with the unit."""
        u = f" {unit}" if unit else ""
        if self.low is None:
            return f"< {_fmt(self.high)}{u}"
        if self.high is None:
            return f"> {_fmt(self.low)}{u}"
        return f"within [{_fmt(self.low)}, {_fmt(self.high)}]{u}"


Measured = Estimate | Configurations | Tie | NotTestable | None
"""What a claim measured: an estimate, one per configuration, a tie, or nothing testable."""


def status(measured: Measured) -> str | None:
    """The verdict that no test is needed for (`tie`, `not testable`, `not run`), else `None`.

    Examples
    --------
    >>> status(Tie()), status(None), status(MeanEstimate((1.0, 2.0)))
    ('tie', 'not run', None)
    >>> status(Configurations("every", (("a", Tie()), ("b", Tie()))))
    'tie'
    """
    if measured is None:
        return "not run"
    if isinstance(measured, Tie):
        return "tie"
    if isinstance(measured, NotTestable):
        return "not testable"
    if isinstance(measured, Configurations):
        if not measured.counted:
            return "tie"
        if measured.n == 0:
            kinds = {type(p) for _, p in measured.counted}
            return "not testable" if NotTestable in kinds else "not run"
        return None
    return "not run" if measured.n == 0 else None


@attrs.frozen
class ClaimTest:
    """One claim's test: what it measured (`None`: not run) and what the claim expects."""

    estimate: Measured
    expect: Expect


@attrs.frozen
class Judgement:
    """The verdict on one claim, with its $p$-values (raw, and Holm-adjusted)."""

    verdict: str
    p_holds: float
    p_fails: float
    p_adjusted: float


def holm(p_values: Sequence[float]) -> list[float]:
    r"""Holm's step-down adjusted $p$-values, in the input order.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]
    >>> holm([])
    []
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: (p_values[i], i))
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def judge(tests: Sequence[ClaimTest], *, alpha: float = ALPHA) -> list[Judgement]:
    """Verdicts for claims judged together (Holm over those that can be tested).

    Parameters
    ----------
    tests
        One per claim; a claim with no estimate (or an estimate without
        replicates) is `not run`, a [`Tie`][schedlib.results.verdicts.Tie] is
        `tie` and a [`NotTestable`][schedlib.results.verdicts.NotTestable] is
        `not testable`: none of them is in Holm's family.
    alpha
        One-sided level of each test before correction.

    Returns
    -------
    list of Judgement
        In the order of `tests`; `p_adjusted` is the Holm-adjusted $p$-value of
        the side that decided (of the smaller side when inconclusive).

    Examples
    --------
    >>> exact = MeanEstimate((-1.0, -1.0, -1.0))
    >>> tests = [ClaimTest(exact, Expect.below(0.0)), ClaimTest(None, Expect.below(0.0))]
    >>> [j.verdict for j in judge(tests)]
    ['holds', 'not run']
    >>> judge([ClaimTest(MeanEstimate((1.0,)), Expect.below(0.0))])[0].verdict
    'inconclusive'
    >>> judge([ClaimTest(Tie(), Expect.below(0.0))])[0].verdict
    'tie'
    """
    tested = [i for i, t in enumerate(tests) if status(t.estimate) is None]
    pairs = {i: tests[i].expect.p_values(tests[i].estimate) for i in tested}  # type: ignore[arg-type]
    adjusted = dict(zip(tested, holm([min(pairs[i]) for i in tested]), strict=True))
    out = []
    for i, test in enumerate(tests):
        if i not in pairs:
            out.append(Judgement(status(test.estimate) or "not run", math.nan, math.nan, math.nan))
            continue
        p_hold, p_fail = pairs[i]
        if adjusted[i] <= alpha:
            verdict = "holds" if p_hold < p_fail else "does not hold"
        else:
            verdict = "inconclusive"
        out.append(Judgement(verdict, p_hold, p_fail, adjusted[i]))
    return out


def rule_text(claims: int | None = None, *, alpha: float = ALPHA) -> str:
    """The rule printed beside a claims table (`claims`: how many were tested together;
    `None`: a table of several papers, each judged apart).

    Examples
    --------
    >>> print(rule_text(3))
    rule: ± is the half-width of the 95 % interval over independent replicates (Student t;
    exact binomial for shares). A claim holds when, after correcting for the 3 claims tested
    (Holm), its one-sided test at 2.5 % still rejects the opposite (adjusted p <= 0.025); it
    does not hold when the opposite test rejects it so; otherwise it is inconclusive, even
    where the printed interval lies on one side. A claim over several configurations holds
    when each holds ("every") or more than half hold after Holm over them ("most"); ties
    (identical schedules) count neither way.
    >>> "the claims of each paper" in rule_text()
    True
    """
    level = f"{100 * (1 - 2 * alpha):g} %"
    family = "the claims of each paper" if claims is None else f"the {claims} claims tested"
    return (
        f"rule: ± is the half-width of the {level} interval over independent replicates "
        "(Student t; exact binomial for shares). A claim holds when, after correcting for "
        f"{family} (Holm), its one-sided test at {100 * alpha:g} % still rejects the opposite "
        f"(adjusted p <= {alpha:g}); it does not hold when the opposite test rejects it so; "
        "otherwise it is inconclusive, even where the printed interval lies on one side. "
        "A claim over several configurations holds when each holds (\"every\") or more "
        "than half hold after Holm over them (\"most\"); ties (identical schedules) count "
        "neither way."
    )


def format_p(p: float) -> str:
    """An adjusted $p$-value as printed beside a verdict.

    Examples
    --------
    >>> format_p(0.0), format_p(1e-7), format_p(0.04512), format_p(1.0), format_p(float("nan"))
    ('0', '< 0.0001', '0.045', '1', '-')
    """
    if math.isnan(p):
        return "-"
    if p == 0.0:
        return "0"
    if p < 1e-4:
        return "< 0.0001"
    if p >= 1.0:
        return "1"
    return f"{p:.2g}" if p < 0.01 else f"{p:.3f}".rstrip("0").rstrip(".")


# --- formatting ----------------------------------------------------------------------------


def _digits_for(width: float) -> int:
    """Decimals that show two significant digits of `width` (0 to 6)."""
    if not math.isfinite(width) or width <= 0:
        return 2
    return max(0, min(6, 1 - math.floor(math.log10(width))))


def _fmt(value: float | None, digits: int | None = None) -> str:
    if value is None or math.isnan(value):
        return "nan"
    if digits is not None:
        return f"{value:.{digits}f}"
    return f"{value:.3g}" if abs(value) < 1e6 else f"{value:.4g}"
