"""The documented full-size results of each reproduction, shipped with the package.

`docs/reproductions/generate.py NAME --full` runs reproduction `NAME` at its full
(default) sizes and stores what it found in `schedlib/experiments/documented/NAME.json`:
the command, the commit it ran at, the date, the data, the rows and the judged
claims. The reproduction's page is generated from that file (and a test checks
that the page still says what the file says), and a `--quick` run shows, beside
each of its verdicts, the documented full-size verdict and whether they differ.

A reproduction may list in `QUICK_DIFFERS` (claim key -> reason, in its `findings` room) the
claims whose quick verdict is known to differ from the full-size one; a test
keeps that list exact (no difference unlisted, no listed claim that agrees).

Examples
--------
>>> rows = [{"key": "k", "verdict": "holds"}, {"key": "new", "verdict": "holds"}]
>>> doc = {"claims": [{"key": "k", "verdict": "does not hold"}]}
>>> [r["full size"] for r in beside_full_size(rows, doc)]
['does not hold (differs: no reason recorded)', 'not documented']
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

__all__ = [
    "beside_full_size",
    "compared_with_full_size",
    "differing_claims",
    "differs",
    "load",
    "moved_verdicts",
    "path_of",
]


def path_of(name: str) -> Any:
    """The documented file of reproduction `name` (an `importlib.resources` traversable)."""
    return resources.files("schedlib.experiments") / "documented" / f"{name}.json"


def load(name: str) -> dict[str, Any] | None:
    """The documented full-size results of reproduction `name`, or `None` if there are none."""
    file = path_of(name)
    if not file.is_file():
        return None
    result: dict[str, Any] = json.loads(file.read_text(encoding="utf-8"))
    return result


def beside_full_size(
    rows: Sequence[Mapping[str, str]],
    documented: Mapping[str, Any] | None,
    reasons: Mapping[str, str] | None = None,
) -> list[dict[str, str]]:
    """The claim rows with a `full size` column: the documented verdict, and where it differs,
    why (the reproduction's `QUICK_DIFFERS`).

    Parameters
    ----------
    rows
        Judged claim rows (with `key` and `verdict`).
    documented
        The documented results ([`load`][schedlib.experiments.documented.load]).
    reasons
        Claim key -> why its quick verdict differs from the full-size one.

    Examples
    --------
    >>> rows = [{"key": "k", "verdict": "inconclusive"}]
    >>> doc = {"claims": [{"key": "k", "verdict": "holds"}]}
    >>> beside_full_size(rows, doc, {"k": "power: 3 replicates"})[0]["full size"]
    'holds (differs: power: 3 replicates)'
    >>> beside_full_size(rows, doc)[0]["full size"]
    'holds (differs: no reason recorded)'
    """
    full = {c["key"]: c["verdict"] for c in (documented or {}).get("claims", [])}
    out = []
    for row in rows:
        verdict = full.get(row["key"])
        if verdict is None:
            shown = "not documented"
        elif verdict == row["verdict"]:
            shown = f"{verdict} (same)"
        else:
            why = (reasons or {}).get(row["key"], "no reason recorded")
            shown = f"{verdict} (differs: {why})"
        out.append({**row, "full size": shown})
    return out


def compared_with_full_size(rows: Sequence[Mapping[str, str]], name: str) -> list[dict[str, str]]:
    """The claim rows of a quick run of reproduction `name` beside its documented full-size
    verdicts, with the reasons its `QUICK_DIFFERS` gives (see
    [`beside_full_size`][schedlib.experiments.documented.beside_full_size])."""
    from schedlib.experiments import reproduction

    reasons = getattr(reproduction(name), "QUICK_DIFFERS", {})
    return beside_full_size(rows, load(name), reasons)


def differs(row: Mapping[str, str]) -> bool:
    """Whether a claim row's `full size` column says the verdicts differ.

    Examples
    --------
    >>> differs({"full size": "holds (differs: power)"}), differs({"full size": "holds (same)"})
    (True, False)
    """
    return "(differs" in row.get("full size", "")


def differing_claims(
    rows: Sequence[Mapping[str, str]], documented: Mapping[str, Any] | None
) -> dict[str, tuple[str, str]]:
    """Claims whose verdict differs from the documented one: key -> (this run, documented).

    Examples
    --------
    >>> differing_claims([{"key": "a", "verdict": "holds"}],
    ...                  {"claims": [{"key": "a", "verdict": "inconclusive"}]})
    {'a': ('holds', 'inconclusive')}
    """
    full = {c["key"]: c["verdict"] for c in (documented or {}).get("claims", [])}
    return {
        row["key"]: (row["verdict"], full[row["key"]])
        for row in rows
        if row["key"] in full and full[row["key"]] != row["verdict"]
    }


def moved_verdicts(
    before: Mapping[str, Any] | None, after: Mapping[str, Any]
) -> list[dict[str, str]]:
    """The verdicts that moved from one documented result to the next: one row per claim
    and verdict column (the default reading's `verdict`, each other reading's `verdict
    (...)`) whose verdict differs, with both and what the new run measured (`ours`).

    A claim or a reading new in `after` is listed as `(absent)` before; one gone from it
    as `(absent)` after. What `docs/reproductions/generate.py NAME --full` prints when it
    replaces a stored result.

    Examples
    --------
    >>> old = {"claims": [{"key": "a", "verdict": "holds", "ours": "1 %"},
    ...                   {"key": "b", "verdict": "holds", "ours": "2 %"}]}
    >>> new = {"claims": [{"key": "a", "verdict": "inconclusive", "ours": "0.5 %"},
    ...                   {"key": "b", "verdict": "holds", "ours": "3 %",
    ...                    "verdict (reading)": "holds"}]}
    >>> for row in moved_verdicts(old, new):
    ...     print(*row.values(), sep=" | ")
    a | verdict | holds | inconclusive | 0.5 %
    b | verdict (reading) | (absent) | holds | 3 %
    """
    absent = "(absent)"
    old = {c["key"]: c for c in (before or {}).get("claims", [])}
    new = {c["key"]: c for c in after.get("claims", [])}
    moved = []
    for key in [*new, *(k for k in old if k not in new)]:
        was, now = old.get(key, {}), new.get(key, {})
        columns = [c for c in {**was, **now} if c == "verdict" or c.startswith("verdict (")]
        for column in columns:
            a, b = str(was.get(column, absent)), str(now.get(column, absent))
            if a != b:
                moved.append(
                    {"claim": key, "column": column, "before": a, "after": b,
                     "ours": str(now.get("ours", was.get("ours", "")))}
                )  # fmt: skip
    return moved
