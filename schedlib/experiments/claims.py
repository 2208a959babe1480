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

The verdicts are `holds` and `does not hold` (the claim's one-sided test, or
its opposite's, rejects at 2.5 % after Holm's correction over the paper's
claims: the adjusted $p$-value is printed beside the verdict), `inconclusive`
(neither rejects after the correction, even where the printed 95 % interval
lies on one side of the bound), `tie` (the compared sides are identical by
construction: no evidence either way), `not testable` (the run happened but
its values cannot test the claim, e.g. every median is 0) and `not run` (the
rows lack what the claim needs). Only the first three are in Holm's family. A
claim that does not hold is a finding about the paper or about our reading of
it (each reproduction page discusses it), not an error.

**The papers' words, one margin each.** The papers qualify their claims
("slightly better", "much better", "almost as good"); each word gets one
margin, the same in every reproduction ([`WORDS`][schedlib.experiments.claims.WORDS],
[`expectation`][schedlib.experiments.claims.expectation]), stated in the
claim's row.

**Readings.** Where a paper leaves a choice open, a claim is measured under
each named reading ([`Claim.readings`][schedlib.experiments.claims.Claim]): its
row shows the default reading's verdict (the paper's count, and the Holm family
of the paper's claims) and a verdict per other reading, each reading's claims
judged as a family of their own.

Examples
--------
>>> from schedlib.results.verdicts import Expect, paired_difference
>>> change = paired_difference([90.0, 92.0, 91.0], [100.0, 101.0, 99.0], relative=True)
>>> c = Claim("faster", "A is faster than B (§4)", "synthetic, 3 seeds",
...           "A minus B, turnaround, % of B", Expect.below(0.0), change)
>>> row = claim_rows([c])[0]
>>> row["verdict"], row["ours"], row["expected"], row["p"]
('holds', '-9.0 % ± 2.4 (n = 3)', '< 0 %', '0.0019')
>>> slower = paired_difference([101.0, 103.0, 100.0], [100.0, 101.0, 99.0], relative=True)
>>> c = Claim("faster", "A is faster than B (§4)", "synthetic, 3 seeds",
...           "A minus B, turnaround, % of B", expectation("better"), change, word="better",
...           readings={"other order": slower})
>>> row = claim_rows([c])[0]
>>> row["expected"], row["verdict"], row["verdict (other order)"]
('< 0 % ("better": beyond 0 in the claimed direction)', 'holds', 'inconclusive')
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

from schedlib.errors import InvalidValueError
from schedlib.results.verdicts import (
    TESTED,
    VERDICTS,
    ClaimTest,
    Configurations,
    Expect,
    MeanEstimate,
    Measured,
    ProportionEstimate,
    format_p,
    judge,
    rule_text,
)

__all__ = [
    "ORIGINS",
    "OURS_MARK",
    "VERDICTS",
    "WORDS",
    "Claim",
    "claim_rows",
    "count_tested",
    "expectation",
    "known",
    "mean",
    "rule_text",
    "values",
    "words_table",
]

ORIGINS = ("paper", "ours")
"""Where a claim comes from: the paper, or our own extension (marked in its row)."""
OURS_MARK = " (ours, not the paper's)"
"""The end of the claim text of our own extensions (not counted among the paper's claims)."""

WORDS: dict[str, tuple[float, str]] = {
    "better": (0.0, "beyond 0 in the claimed direction"),
    "slightly": (10.0, "in the claimed direction, by at most 10 %"),
    "very slightly": (5.0, "in the claimed direction, by at most 5 %"),
    "almost as": (10.0, "worse by less than 10 %"),
    "not significant": (5.0, "within ±5 %"),
    "negligible": (2.0, "below 2 % of the quantity it is compared with"),
    "much": (20.0, "beyond 20 % in the claimed direction"),
    "large": (20.0, "beyond 20 % in the claimed direction"),
}
"""The words the papers qualify their claims with -> (margin in %, what the change must be).

One margin per word in every reproduction: "better", "lower", "shorter", "higher",
"grows" are `better` (any change in the claimed direction); "slightly better" is
`slightly`; "decreases only very slightly" is `very slightly`; "almost as good/effective"
is `almost as`; "no significant effect", "nearly equal", "little change" are
`not significant`; "negligible" is `negligible`; "much better", "significantly
better", "a large gain" are `much` or `large`.
"""


def expectation(word: str, *, lower: bool = True) -> Expect:
    """What a claim qualified by `word` expects of a change in percent.

    Parameters
    ----------
    word
        A key of [`WORDS`][schedlib.experiments.claims.WORDS].
    lower
        Whether the claimed direction is down (a shorter wait, lower utilisation);
        `False` for up. `almost as` reads "worse" in the direction opposite to it;
        `not significant` and `negligible` have no direction.

    Raises
    ------
    InvalidValueError
        For a word not in the table.

    Examples
    --------
    >>> expectation("slightly").describe("%"), expectation("much", lower=False).describe("%")
    ('within [-10, 0] %', '> 20 %')
    >>> expectation("almost as").describe("%"), expectation("not significant").describe("%")
    ('< 10 %', 'within [-5, 5] %')
    """
    if word not in WORDS:
        raise InvalidValueError("word", word, f"must be one of {', '.join(WORDS)}")
    margin = WORDS[word][0]
    sign = -1.0 if lower else 1.0
    if word == "better":
        return Expect.below(0.0) if lower else Expect.above(0.0)
    if word in ("slightly", "very slightly"):
        return Expect.between(-margin, 0.0) if lower else Expect.between(0.0, margin)
    if word == "almost as":
        return Expect.below(margin) if lower else Expect.above(-margin)
    if word == "not significant":
        return Expect.between(-margin, margin)
    if word == "negligible":
        return Expect.below(margin)
    return Expect.below(sign * margin) if lower else Expect.above(sign * margin)


def words_table() -> str:
    """The Markdown table of [`WORDS`][schedlib.experiments.claims.WORDS] (the reference page).

    Examples
    --------
    >>> print(words_table().splitlines()[2])
    | "better" | 0 % | beyond 0 in the claimed direction |
    """
    lines = ["| the paper says | margin | the change must be |", "|---|---:|---|"]
    lines += [f'| "{word}" | {margin:g} % | {meaning} |'
              for word, (margin, meaning) in WORDS.items()]  # fmt: skip
    return "\n".join(lines)


def _readings(value: Mapping[str, Measured] | Iterable[tuple[str, Measured]]) -> tuple[
    tuple[str, Measured], ...
]:
    items = value.items() if isinstance(value, Mapping) else value
    return tuple((str(name), measured) for name, measured in items)


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
        What was measured under the default reading: an estimate over independent
        replicates, a deterministic value, one per configuration
        ([`Configurations`][schedlib.results.verdicts.Configurations]), a
        [`Tie`][schedlib.results.verdicts.Tie], a
        [`NotTestable`][schedlib.results.verdicts.NotTestable]; `None` when the
        rows cannot test the claim (`not run`).
    ours
        Further figures shown after the estimate (optional).
    origin
        `"paper"`, or `"ours"` for a claim the paper does not make (our extension).
    word
        The paper's word whose margin `expect` uses (a key of
        [`WORDS`][schedlib.experiments.claims.WORDS]; empty for a stated number).
    readings
        What was measured under each other named reading: `(reading, measured)`
        pairs (a mapping is accepted).
    """

    key: str
    text: str
    data: str
    measure: str
    expect: Expect
    estimate: Measured
    ours: str = ""
    origin: str = attrs.field(default="paper", validator=attrs.validators.in_(ORIGINS))
    word: str = attrs.field(default="", kw_only=True)
    readings: tuple[tuple[str, Measured], ...] = attrs.field(
        default=(), converter=_readings, kw_only=True
    )

    @word.validator
    def _known_word(self, attribute: attrs.Attribute[str], value: str) -> None:
        if value and value not in WORDS:
            raise InvalidValueError("Claim.word", value, f"must be one of {', '.join(WORDS)}")


def _unit(measured: Measured) -> str:
    if isinstance(measured, MeanEstimate | ProportionEstimate | Configurations):
        return measured.unit
    return ""


def _shown(measured: Measured, expect: Expect) -> str:
    if measured is None:
        return "-"
    if isinstance(measured, Configurations):
        return measured.describe(expect)
    return measured.describe()


def claim_rows(claims: Sequence[Claim]) -> list[dict[str, str]]:
    """Judge `claims` together and give one flat row per claim.

    Each reading of [`Claim.readings`][schedlib.experiments.claims.Claim] is judged
    as a family of its own (Holm over the claims measured under it).

    Returns
    -------
    list of dict
        `key`, `claim` (marked "(ours)" for our extensions), `data`, `measure`,
        `ours` (what was measured, with its interval, then any further figures),
        `expected` (what the claim expects of it, with the paper's word and its
        margin), `verdict`, `p` (the Holm-adjusted $p$-value, `-` when not
        tested), and for each other reading `verdict (READING)`.
    """
    judgements = judge([ClaimTest(c.estimate, c.expect) for c in claims])
    names = list(dict.fromkeys(name for c in claims for name, _ in c.readings))
    by_reading = {}
    for name in names:
        measured = [dict(c.readings).get(name) for c in claims]
        by_reading[name] = judge(
            [ClaimTest(m, c.expect) for m, c in zip(measured, claims, strict=True)]
        )
    rows = []
    for index, (c, j) in enumerate(zip(claims, judgements, strict=True)):
        shown = _shown(c.estimate, c.expect)
        expected = c.expect.describe(_unit(c.estimate))
        if c.word:
            expected += f' ("{c.word}": {WORDS[c.word][1]})'
        row = {
            "key": c.key,
            "claim": c.text + (OURS_MARK if c.origin == "ours" else ""),
            "data": c.data,
            "measure": c.measure,
            "ours": shown + (f"; {c.ours}" if c.ours else ""),
            "expected": expected,
            "verdict": j.verdict,
            "p": format_p(j.p_adjusted),
        }
        for name in names:
            row[f"verdict ({name})"] = by_reading[name][index].verdict
        rows.append(row)
    return rows


def count_tested(rows: Iterable[Mapping[str, str]]) -> int:
    """How many claims were tested (holds, does not hold, inconclusive): Holm's family."""
    return sum(1 for r in rows if r.get("verdict") in TESTED)


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
