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
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from schedlib.errors import InvalidValueError
from schedlib.results.tables import render

__all__ = [
    "add_claims_argument",
    "add_quick_argument",
    "apply_quick",
    "check_plot_target",
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
    parser.set_defaults(quick_settings=dict(quick), quick_defaults=defaults)


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


def print_results(
    table: list[dict[str, Any]], claims: list[dict[str, str]], args: argparse.Namespace
) -> None:
    """Print the rows, then the claims below a table; only the claims with `--claims`.

    Examples
    --------
    >>> args = argparse.Namespace(format="json", claims=True)
    >>> print_results([{"x": 1}], [{"claim": "c", "ours": "1", "verdict": "holds"}], args)
    [
      {
        "claim": "c",
        "ours": "1",
        "verdict": "holds"
      }
    ]
    """
    if getattr(args, "claims", False):
        print(render(claims, args.format))
        return
    print(render(table, args.format))
    if args.format == "table" and claims:
        print()
        print(render(claims, "table"))


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
