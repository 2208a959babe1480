"""Options every reproduction shares: `--quick` (reduced sizes), `--claims`, the `--plot` check.

Examples
--------
>>> import argparse
>>> parser = argparse.ArgumentParser()
>>> _ = parser.add_argument("--runs", type=int, default=10)
>>> add_quick_argument(parser, {"runs": 2}, full_time="15 s", quick_time="1 s")
>>> args = parser.parse_args(["--quick"])
>>> apply_quick(args), args.runs
('quick run, reduced sizes: runs=2 (full: runs=10)', 2)
>>> args = parser.parse_args(["--quick", "--runs", "3"])   # an explicit option wins
>>> apply_quick(args), args.runs
('quick run, reduced sizes: runs=3 (full: runs=10)', 3)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from schedlib.errors import InvalidValueError
from schedlib.experiments import documented
from schedlib.experiments.claims import Claim, claim_rows, count_tested
from schedlib.experiments.documented import beside_full_size
from schedlib.results.tables import render
from schedlib.results.verdicts import rule_text

__all__ = [
    "add_claims_argument",
    "add_quick_argument",
    "apply_quick",
    "check_plot_target",
    "claims_text",
    "judged",
    "print_note",
    "print_results",
]


def add_quick_argument(
    parser: argparse.ArgumentParser,
    quick: Mapping[str, Any],
    *,
    full_time: str,
    quick_time: str,
) -> None:
    """Add `--quick`, which sets the options in `quick` that the user left at their default.

    Call it after the options in `quick` are added. The help text states the
    reduced sizes and both running times.
    """
    defaults = {name: parser.get_default(name) for name in quick}
    sizes = ", ".join(f"{name}={_show(value)}" for name, value in quick.items())
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"reduced sizes ({sizes}): about {quick_time} instead of about {full_time} "
        "on a 2-core machine",
    )
    parser.set_defaults(
        quick_settings=dict(quick), quick_defaults=defaults, running_times=(full_time, quick_time)
    )


def apply_quick(args: argparse.Namespace) -> str | None:
    """Apply `--quick` to `args`; return the note saying what was reduced, or `None`."""
    if not getattr(args, "quick", False):
        return None
    changed = []
    for name, value in args.quick_settings.items():
        if getattr(args, name) == args.quick_defaults[name]:
            setattr(args, name, value)
        changed.append(
            f"{name}={_show(getattr(args, name))} (full: {name}={_show(args.quick_defaults[name])})"
        )
    return "quick run, reduced sizes: " + ", ".join(changed)


def print_note(note: str | None, fmt: str) -> None:
    """Print `note` above a text table, or on standard error for JSON and CSV."""
    if note:
        print(note, file=sys.stdout if fmt == "table" else sys.stderr)


def add_claims_argument(parser: argparse.ArgumentParser) -> None:
    """Add `--claims`: print only the paper's claims, each with our figures and a verdict."""
    parser.add_argument(
        "--claims",
        action="store_true",
        help="print only the paper's claims, each checked on this run "
        "(a table prints them below the rows)",
    )


def judged(claims: Sequence[Any]) -> list[dict[str, str]]:
    """Claim rows from a module's `claims(rows)`: [`Claim`][schedlib.experiments.claims.Claim]
    objects are judged together (see [`claim_rows`][schedlib.experiments.claims.claim_rows]);
    rows already judged pass through."""
    if claims and all(isinstance(c, Claim) for c in claims):
        return claim_rows(claims)
    return [dict(c) for c in claims]


def claims_text(rows: Sequence[Mapping[str, str]]) -> str:
    """The claims for a terminal: one block per claim, then the rule.

    Examples
    --------
    >>> print(claims_text([{"claim": "A beats B (§4)", "data": "SDSC-SP2", "measure": "A - B",
    ...                     "ours": "-3.0 s ± 1.0 (n = 5)", "expected": "< 0 s",
    ...                     "verdict": "holds"}]))
    1. A beats B (§4)
       data: SDSC-SP2
       measure: A - B
       ours: -3.0 s ± 1.0 (n = 5); expected: < 0 s; verdict: holds
    <BLANKLINE>
    rule: ± is the half-width of the 95 % interval over independent replicates (Student t;
    exact binomial for shares); a claim holds / does not hold when its one-sided test at 2.5 %,
    Holm-corrected over the 1 claims tested, rejects the other side; otherwise inconclusive
    """
    blocks = []
    for number, row in enumerate(rows, start=1):
        lines = [f"{number}. {row['claim']}"]
        for field in ("data", "measure"):
            if row.get(field, "-") != "-":
                lines.append(f"   {field}: {row[field]}")
        last = f"   ours: {row['ours']}"
        if row.get("expected", "-") != "-":
            last += f"; expected: {row['expected']}"
        last += f"; verdict: {row['verdict']}"
        if "full size" in row:
            last += f"; full size: {row['full size']}"
        lines.append(last)
        blocks.append("\n".join(lines))
    return "\n".join(blocks) + "\n\n" + rule_text(count_tested(rows))


def print_results(
    table: list[dict[str, Any]],
    claims: Sequence[Any],
    args: argparse.Namespace,
    *,
    name: str | None = None,
) -> None:
    """Print the rows, then the claims and their rule below a table; only the claims with
    `--claims`. A `--quick` run shows each documented full-size verdict beside its own.

    JSON and CSV claim rows carry the rule in a `rule` field.

    Examples
    --------
    >>> args = argparse.Namespace(format="json", claims=True)
    >>> row = {"key": "c", "claim": "c", "data": "d", "measure": "m", "ours": "1",
    ...        "expected": "< 2", "verdict": "holds"}
    >>> import contextlib, io, json
    >>> with contextlib.redirect_stdout(io.StringIO()) as out:
    ...     print_results([{"x": 1}], [row], args)
    >>> printed = json.loads(out.getvalue())
    >>> printed[0]["verdict"], printed[0]["rule"][:40]
    ('holds', 'rule: ± is the half-width of the 95 % in')
    """
    rows = judged(claims)
    if getattr(args, "quick", False) and name is not None:
        rows = beside_full_size(rows, documented.load(name))
    if args.format != "table":
        rule = rule_text(count_tested(rows))
        rows = [{**r, "rule": rule} for r in rows]
    if getattr(args, "claims", False):
        print(claims_text(rows) if args.format == "table" else render(rows, args.format))
        return
    print(render(table, args.format))
    if args.format == "table" and rows:
        print()
        print(claims_text(rows))


def check_plot_target(path: str | None) -> None:
    """Fail before any computation when `--plot FILE` cannot be honoured.

    Raises
    ------
    SchedlibError
        If matplotlib is missing (naming the `plot` extra).
    InvalidValueError
        If the folder of `path` does not exist.
    """
    if path is None:
        return
    from schedlib.results.plotting import pyplot

    pyplot()
    folder = Path(path).parent
    if not folder.is_dir():
        raise InvalidValueError("--plot", path, f"its folder {str(folder)!r} does not exist")


def _show(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)
