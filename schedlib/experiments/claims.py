"""A paper's claims checked on a reproduction's rows: one verdict vocabulary for every paper.

Every reproduction module defines `claims(rows)`, which returns one row per claim
of its paper: the claim (with the section it comes from), our figures, and the
verdict — `holds`, `does not hold`, `unclear` (the difference is within the
noise the module documents) or `not run` (the rows lack what the claim needs,
e.g. a run restricted to some configurations). `schedlib reproduce NAME` prints
them below its rows; `schedlib reproduce all` gathers them for every paper.

Examples
--------
>>> claim("PGS is never worse than FCFS (§4.3)", "+0.7 % to +8.6 %", True)
{'claim': 'PGS is never worse than FCFS (§4.3)', 'ours': '+0.7 % to +8.6 %', 'verdict': 'holds'}
>>> claim("a claim the rows cannot test", "-", None)["verdict"]
'not run'
>>> mean([{"policy": "a", "x": 1.0}, {"policy": "a", "x": 3.0}], "x", policy="a")
2.0
>>> import math; math.isnan(mean([], "x"))
True
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["VERDICTS", "claim", "known", "mean", "values", "verdict"]

VERDICTS = ("holds", "does not hold", "unclear", "not run")
"""The verdicts a claim can get."""


def verdict(holds: bool | None) -> str:
    """`holds`, `does not hold`, or `not run` for `None` (the rows cannot test it).

    Examples
    --------
    >>> verdict(True), verdict(False), verdict(None)
    ('holds', 'does not hold', 'not run')
    """
    if holds is None:
        return "not run"
    return "holds" if holds else "does not hold"


def claim(text: str, ours: str, holds: bool | str | None) -> dict[str, str]:
    """One claim row: the claim, our figures and the verdict.

    Parameters
    ----------
    text
        The claim, with the paper's section.
    ours
        Our figures, as a short sentence.
    holds
        `True`/`False`, `None` when the rows cannot test it, or a verdict
        from [`VERDICTS`][schedlib.experiments.claims.VERDICTS] as a string.
    """
    if isinstance(holds, str):
        if holds not in VERDICTS:
            raise ValueError(f"verdict {holds!r} is not one of {VERDICTS}")
        return {"claim": text, "ours": ours, "verdict": holds}
    return {"claim": text, "ours": ours, "verdict": verdict(holds)}


def mean(rows: Iterable[Mapping[str, Any]], field: str, **match: Any) -> float:
    """Mean of `field` over the rows whose columns equal `match`; NaN when none does."""
    values = [r[field] for r in rows if all(r.get(k) == v for k, v in match.items())]
    return math.fsum(values) / len(values) if values else math.nan


def known(*values: float) -> bool:
    """Whether no value is NaN (every mean had rows).

    Examples
    --------
    >>> known(1.0, 2.0), known(1.0, float("nan"))
    (True, False)
    """
    return not any(math.isnan(v) for v in values)


def values(rows: Sequence[Mapping[str, Any]], field: str) -> list[Any]:
    """The distinct values of `field`, in order of first appearance.

    Examples
    --------
    >>> values([{"iat": 2.0}, {"iat": 1.5}, {"iat": 2.0}, {}], "iat")
    [2.0, 1.5]
    """
    return list(dict.fromkeys(r[field] for r in rows if field in r))
