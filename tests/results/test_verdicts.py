"""The statistics behind every verdict: distributions, estimates, expectations, Holm."""

from __future__ import annotations

import math
import random
from itertools import combinations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from schedlib.errors import InvalidValueError
from schedlib.results.verdicts import (
    ClaimTest,
    Expect,
    MeanEstimate,
    ProportionEstimate,
    binomial_cdf,
    holm,
    judge,
    paired_difference,
    regularized_beta,
    t_cdf,
    t_quantile,
)

# Student t 0.975 quantiles, from scipy.stats.t.ppf(0.975, df) (scipy 1.17), to 12 digits.
T975 = {
    1: 12.7062047362,
    2: 4.30265272975,
    3: 3.18244630528,
    4: 2.77644510520,
    5: 2.57058183564,
    9: 2.26215716280,
    10: 2.22813885199,
    19: 2.09302405441,
    29: 2.04522964213,
    39: 2.02269092004,
    99: 1.98421695159,
    199: 1.97195654425,
}


@pytest.mark.parametrize(("df", "expected"), sorted(T975.items()))
def test_t_quantiles_match_the_table(df: int, expected: float) -> None:
    assert t_quantile(0.975, df) == pytest.approx(expected, rel=1e-10)
    assert t_quantile(0.025, df) == pytest.approx(-expected, rel=1e-10)


@given(st.floats(-1e6, 1e6), st.sampled_from([1, 2]))
def test_t_cdf_equals_the_closed_forms_of_one_and_two_degrees(t: float, df: int) -> None:
    exact = 0.5 + math.atan(t) / math.pi if df == 1 else 0.5 + t / (2 * math.sqrt(2 + t * t))
    assert t_cdf(t, df) == pytest.approx(exact, abs=1e-13)


@given(st.floats(1e-6, 1 - 1e-6), st.sampled_from([1, 2, 3, 7, 20, 100]))
def test_t_quantile_inverts_the_cdf(p: float, df: int) -> None:
    assert t_cdf(t_quantile(p, df), df) == pytest.approx(p, abs=1e-12)


def test_large_degrees_approach_the_normal() -> None:
    assert t_quantile(0.975, 10**7) == pytest.approx(1.959963984540054, rel=1e-6)


@given(st.integers(1, 60), st.data(), st.floats(0.0, 1.0))
def test_binomial_cdf_equals_the_plain_sum(n: int, data: st.DataObject, p: float) -> None:
    k = data.draw(st.integers(-1, n + 1))
    plain = math.fsum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(0, min(k, n) + 1))
    assert binomial_cdf(k, n, p) == pytest.approx(plain, abs=1e-12)


@given(st.floats(1e-6, 1 - 1e-6), st.floats(0.5, 30), st.floats(0.5, 30))
def test_regularized_beta_has_its_symmetry(x: float, a: float, b: float) -> None:
    assert regularized_beta(x, a, b) + regularized_beta(1 - x, b, a) == pytest.approx(1, abs=1e-11)


@given(st.integers(1, 400), st.data())
def test_clopper_pearson_bounds_solve_their_tail_equations(n: int, data: st.DataObject) -> None:
    k = data.draw(st.integers(0, n))
    low, high = ProportionEstimate(k, n).interval()
    if k > 0:  # P(X >= k | low) = 2.5 %
        assert 1 - binomial_cdf(k - 1, n, low) == pytest.approx(0.025, abs=1e-9)
    else:
        assert low == 0
    if k < n:  # P(X <= k | high) = 2.5 %
        assert binomial_cdf(k, n, high) == pytest.approx(0.025, abs=1e-9)
    else:
        assert high == 1


def _holm_by_definition(p: list[float], alpha: float) -> list[bool]:
    """Reject H_(1..i) while p_(j) <= alpha / (m - j + 1), in ascending order."""
    m = len(p)
    order = sorted(range(m), key=lambda i: (p[i], i))
    rejected = [False] * m
    for rank, i in enumerate(order):
        if p[i] > alpha / (m - rank):
            break
        rejected[i] = True
    return rejected


@given(st.lists(st.floats(0, 1), max_size=12), st.sampled_from([0.01, 0.025, 0.05]))
def test_holm_adjusted_values_reject_what_the_procedure_rejects(
    p: list[float], alpha: float
) -> None:
    adjusted = holm(p)
    assert [a <= alpha for a in adjusted] == _holm_by_definition(p, alpha)
    assert all(a >= x for a, x in zip(adjusted, p, strict=True))


def test_a_single_claim_follows_its_95_percent_interval() -> None:
    values = (-3.0, -1.0, -2.5, -0.2, -1.8)
    e = MeanEstimate(values)
    low, high = e.interval()
    assert high < 0  # the interval lies below 0: "lower" holds
    assert judge([ClaimTest(e, Expect.below(0.0))])[0].verdict == "holds"
    assert judge([ClaimTest(e, Expect.above(0.0))])[0].verdict == "does not hold"
    # a bound inside the interval: inconclusive
    assert judge([ClaimTest(e, Expect.below((low + high) / 2))])[0].verdict == "inconclusive"


@given(
    st.lists(st.floats(-100, 100, allow_nan=False), min_size=2, max_size=30),
    st.floats(-50, 50),
)
def test_one_claim_holds_exactly_when_its_interval_lies_below_the_bound(
    values: list[float], bound: float
) -> None:
    e = MeanEstimate(values)
    assume(not e.exact and e.se > 1e-9)
    low, high = e.interval()
    assume(
        abs(high - bound) > 1e-9 * (1 + abs(bound)) and abs(low - bound) > 1e-9 * (1 + abs(bound))
    )
    verdict = judge([ClaimTest(e, Expect.below(bound))])[0].verdict
    expected = "holds" if high < bound else "does not hold" if low > bound else "inconclusive"
    assert verdict == expected


def test_holm_can_turn_a_lone_holds_into_inconclusive() -> None:
    barely = MeanEstimate((-1.0, -1.2, -0.9, -1.1, 0.5, -0.6))
    alone = judge([ClaimTest(barely, Expect.below(0.0))])[0]
    assert alone.verdict == "holds" and 0.0125 < alone.p_holds <= 0.025
    crowded = judge([ClaimTest(barely, Expect.below(0.0))] * 2)
    assert [j.verdict for j in crowded] == ["inconclusive"] * 2


def test_exact_estimates_decide_from_their_value_and_ties_do_not_hold() -> None:
    same = MeanEstimate((5.0, 5.0, 5.0))
    assert judge([ClaimTest(same, Expect.below(6.0))])[0].verdict == "holds"
    assert judge([ClaimTest(same, Expect.below(5.0))])[0].verdict == "does not hold"
    assert judge([ClaimTest(same, Expect.between(4.0, 6.0))])[0].verdict == "holds"
    assert judge([ClaimTest(MeanEstimate((0.0, 0.0)), Expect.below(0.0))])[0].verdict == (
        "does not hold"
    )


def test_one_replicate_or_none_cannot_decide() -> None:
    assert judge([ClaimTest(MeanEstimate((-9.0,)), Expect.below(0.0))])[0].verdict == "inconclusive"
    assert judge([ClaimTest(MeanEstimate(()), Expect.below(0.0))])[0].verdict == "not run"
    assert judge([ClaimTest(None, Expect.below(0.0))])[0].verdict == "not run"


def test_equivalence_needs_the_whole_interval_inside_the_margin() -> None:
    near = MeanEstimate((0.1, -0.2, 0.05, 0.15, -0.1, 0.0))
    assert judge([ClaimTest(near, Expect.between(-1.0, 1.0))])[0].verdict == "holds"
    far = MeanEstimate((3.1, 2.8, 3.3, 2.9))
    assert judge([ClaimTest(far, Expect.between(-1.0, 1.0))])[0].verdict == "does not hold"


def test_shares_use_the_exact_binomial() -> None:
    none = ProportionEstimate(0, 400)
    assert judge([ClaimTest(none, Expect.below(0.01))])[0].verdict == "holds"
    some = ProportionEstimate(3, 400)
    assert judge([ClaimTest(some, Expect.above(0.0))])[0].verdict == "holds"
    assert judge([ClaimTest(ProportionEstimate(1, 20), Expect.above(0.0))])[0].verdict == "holds"
    assert judge([ClaimTest(ProportionEstimate(1, 20), Expect.below(0.01))])[0].verdict == (
        "inconclusive"
    )


def test_the_false_verdict_rate_stays_at_the_level_under_the_boundary() -> None:
    """Normal data whose mean is the bound: a decided verdict about 2.5 % + 2.5 % of the time."""
    rng = random.Random(7)
    decided = 0
    trials = 4000
    for _ in range(trials):
        e = MeanEstimate([rng.gauss(0.0, 1.0) for _ in range(8)])
        decided += judge([ClaimTest(e, Expect.below(0.0))])[0].verdict != "inconclusive"
    assert 0.035 < decided / trials < 0.065


def test_paired_difference_checks_its_inputs() -> None:
    with pytest.raises(InvalidValueError, match="as many"):
        paired_difference([1.0], [1.0, 2.0])
    with pytest.raises(InvalidValueError, match="non-zero baseline"):
        paired_difference([1.0], [0.0], relative=True)
    with pytest.raises(InvalidValueError, match="finite"):
        MeanEstimate((1.0, math.nan))
    with pytest.raises(InvalidValueError):
        Expect.between(2.0, 1.0)
    with pytest.raises(InvalidValueError):
        ProportionEstimate(5, 3)


def test_describe_states_the_interval_and_the_replicates() -> None:
    assert MeanEstimate((1.0, 2.0, 3.0), unit="s").describe() == "2.0 s ± 2.5 (n = 3)"
    assert MeanEstimate((2.0, 2.0), unit="%").describe() == "2 % in every replicate (n = 2)"
    assert "(n = 1, no interval)" in MeanEstimate((1.0,)).describe()
    assert ProportionEstimate(0, 200).describe() == "0 % [0, 1.83] (0 of 200)"


def test_verdicts_do_not_depend_on_the_order_of_the_claims() -> None:
    rng = random.Random(3)
    tests = [
        ClaimTest(MeanEstimate([rng.gauss(mu, 1) for _ in range(6)]), Expect.below(0.0))
        for mu in (-2.0, -0.8, -0.3, 0.0, 1.5)
    ]
    verdicts = [j.verdict for j in judge(tests)]
    for a, b in combinations(range(len(tests)), 2):
        swapped = list(tests)
        swapped[a], swapped[b] = swapped[b], swapped[a]
        again = [j.verdict for j in judge(swapped)]
        again[a], again[b] = again[b], again[a]
        assert again == verdicts


def test_p_values_of_an_exact_estimate_are_certain_and_a_tie_supports_neither_side() -> None:
    same = MeanEstimate((5.0, 5.0))
    assert (same.p_less(6.0), same.p_greater(6.0)) == (0.0, 1.0)
    assert (same.p_less(5.0), same.p_greater(5.0)) == (1.0, 1.0)
    assert (same.p_less(4.0), same.p_greater(4.0)) == (1.0, 0.0)
