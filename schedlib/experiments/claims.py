r"""A paper's claims checked on a reproduction's rows, under one stated rule for every paper.

Every reproduction defines `claims(rows)` (in its `findings` room), which returns one
[`Claim`][schedlib.experiments.claims.Claim] per claim of its paper: the claim as
the paper states it (with its section or figure), the data it is measured on,
what is measured (an estimate over independent replicates, see
[`schedlib.results.verdicts`][schedlib.results.verdicts]), and what the claim
expects of it (below, above or between bounds: the margin of "not worse" or
"much better" is stated here). [`claim_rows`][schedlib.experiments.claims.claim_rows]
judges a paper's claims together (Holm's correction over them) and gives one
flat row per claim; [`rule_text`][schedlib.results.verdicts.rule_text] is the
line printed beside the table.

The verdicts are `holds`, `does not hold`, `inconclusive` (the interval
straddles the claim's bound) and `not run` (the rows lack what the claim needs,
e.g. a run restricted to some configurations). A claim that does not hold is a
finding about the paper or about our reading of it (each reproduction page
discusses it), not an error.

Examples
--------
>>> from schedlib.results.verdicts import Expect, paired_difference
>>> change = paired_difference([90.0, 92.0, 91.0], [100.0, 101.0, 99.0], relative=True)
>>> c = Claim("faster", "A is faster than B (§4)", "synthetic, 3 seeds",
...           "A minus B, turnaround, % of B", Expect.below(0.0), change)
>>> row = claim_rows([c])[0]
>>> row["verdict"], row["ours"], row["expected"]
('holds', '-9.0 % ± 2.4 (n = 3)', '< 0 %')
>>> untested = Claim("x", "a claim the rows cannot test", "-", "-", Expect.below(0.0), None)
>>> claim_rows([untested])[0]["verdict"]
'not run'
>>> mean([{"policy": "a", "x": 1.0}, {"policy": "a", "x": 3.0}], "x", policy="a")
2.0
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from schedlib.results.verdicts import (
    VERDICTS,
    ClaimTest,
    Estimate,
    Expect,
    judge,
    rule_text,
)

__all__ = [
    "ORIGINS",
    "VERDICTS",
    "Claim",
    "claim_rows",
    "count_tested",
    "known",
    "mean",
    "rule_text",
    "values",
]

ORIGINS = ("paper", "ours")
"""Where a claim comes from: the paper, or our own extension (marked in its row)."""


@attrs.frozen
class Claim:
    """One claim, its data, its estimate and what it expects of it.

    Attributes
    ----------
    key
        A stable identifier (`conservative-beats-easy`), used to compare a quick
        run's verdicts with the documented full-size ones.
    text
        The claim as the paper states it, with its section or figure.
    data
        The data it is measured on: trace (real or embedded slice) and jobs, or
        the synthetic generator, and the replicates.
    measure
        What the estimate is (`conservative-mr minus greedy-mr, mean turnaround,
        % of greedy-mr, paired per class seed`).
    expect
        What the claim expects of the estimate (its margin, if any).
    estimate
        The estimate over independent replicates; `None` when the rows cannot
        test the claim (`not run`).
    ours
        Further figures shown after the estimate (optional).
    origin
        `"paper"`, or `"ours"` for a claim the paper does not make (our extension).
    """

    key: str
    text: str
    data: str
    measure: str
    expect: Expect
    estimate: Estimate | None
    ours: str = ""
    origin: str = attrs.field(default="paper", validator=attrs.validators.in_(ORIGINS))


def claim_rows(claims: Sequence[Claim]) -> list[dict[str, str]]:
    """Judge `claims` together and give one flat row per claim.

    Returns
    -------
    list of dict
        `key`, `claim` (marked "(ours)" for our extensions), `data`, `measure`,
        `ours` (the estimate with its interval, then any further figures),
        `expected` (what the claim expects of the estimate) and `verdict`.
    """
    judgements = judge([ClaimTest(c.estimate, c.expect) for c in claims])
    rows = []
    for c, j in zip(claims, judgements, strict=True):
        shown = "-" if c.estimate is None else c.estimate.describe()
        unit = "" if c.estimate is None else c.estimate.unit
        rows.append(
            {
                "key": c.key,
                "claim": c.text + (" (ours, not the paper's)" if c.origin == "ours" else ""),
                "data": c.data,
                "measure": c.measure,
                "ours": shown + (f"; {c.ours}" if c.ours else ""),
                "expected": c.expect.describe(unit),
                "verdict": j.verdict,
            }
        )
    return rows


def count_tested(rows: Iterable[Mapping[str, str]]) -> int:
    """How many claims were tested (not `not run`): the size of Holm's family."""
    return sum(1 for r in rows if r.get("verdict") != "not run")


def mean(rows: Iterable[Mapping[str, Any]], field: str, **match: Any) -> float:
    """Mean of `field` over the rows whose columns equal `match`; NaN when none does.

    Examples
    --------
    >>> import math; math.isnan(mean([], "x"))
    True
    """
    picked = [r[field] for r in rows if all(r.get(k) == v for k, v in match.items())]
    return math.fsum(picked) / len(picked) if picked else math.nan


def known(*numbers: float) -> bool:
    """Whether no value is NaN (every mean had rows).

    Examples
    --------
    >>> known(1.0, 2.0), known(1.0, float("nan"))
    (True, False)
    """
    return not any(math.isnan(v) for v in numbers)


def values(rows: Sequence[Mapping[str, Any]], field: str) -> list[Any]:
    """The distinct values of `field`, in order of first appearance.

    Examples
    --------
    >>> values([{"iat": 2.0}, {"iat": 1.5}, {"iat": 2.0}, {}], "iat")
    [2.0, 1.5]
    """
    return list(dict.fromkeys(r[field] for r in rows if field in r))
