"""Options every reproduction shares: `--quick` (reduced sizes), `--claims`, the `--plot` check,
and the argparse types that refuse a bad value at parse time, naming the option.

Examples
--------
>>> import argparse
>>> parser = argparse.ArgumentParser()
>>> _ = parser.add_argument("--runs", type=int, default=10)
>>> add_quick_argument(parser, {"runs": 2}, full_time="15 s", quick_time="1 s")
>>> args = parser.parse_args(["--quick"])
>>> apply_quick(args), args.runs
('quick run, reduced sizes: runs=2 (full: runs=10)', 2)
>>> args = parser.parse_args(["--quick", "--runs", "10"])  # typed: kept, even the default
>>> apply_quick(args), args.runs
('quick run, reduced sizes: runs=10 (as given)', 10)
>>> args = parser.parse_args([])
>>> apply_quick(args), args.runs
(None, 10)
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from schedlib.errors import InvalidValueError
from schedlib.experiments.claims import Claim, claim_rows, count_tested
from schedlib.experiments.documented import compared_with_full_size
from schedlib.experiments.run_options import integer, positive_int
from schedlib.results.tables import render
from schedlib.results.verdicts import rule_text

__all__ = [
    "add_claims_argument",
    "add_grid_arguments",
    "add_quick_argument",
    "apply_quick",
    "check_plot_target",
    "claims_text",
    "count",
    "count_list",
    "counts",
    "judged",
    "number",
    "number_list",
    "positive_number",
    "print_note",
    "print_results",
    "resolve_quick",
    "workers",
]


class _Unset:
    """The default of an option `--quick` may reduce, until `apply_quick` resolves it.

    A value the user typed is never an `_Unset`, even when it equals the default: so
    `--quick --runs 20` keeps 20 where a comparison with the default would not.
    """

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:  # what `%(default)s` in a help text shows
        return repr(self.value)

    def __str__(self) -> str:
        return str(self.value)


def add_quick_argument(
    parser: argparse.ArgumentParser,
    quick: Mapping[str, Any],
    *,
    full_time: str,
    quick_time: str,
) -> None:
    """Add `--quick`, which sets the options in `quick` that the user did not type.

    Call it after the options in `quick` are added. The help text states the
    reduced sizes and both running times. Until
    [`apply_quick`][schedlib.experiments.options.apply_quick] (or
    [`resolve_quick`][schedlib.experiments.options.resolve_quick]) runs, each of
    those options holds a marker of its default, so that a value typed on the
    command line, even one equal to the default, is told apart and kept.
    """
    defaults = {}
    reduced = {}
    for name, value in quick.items():
        action = next((a for a in parser._actions if a.dest == name), None)
        if action is None:
            raise InvalidValueError("quick", name, "is not an option of this parser")
        defaults[name] = _converted(action, action.default)
        reduced[name] = _converted(action, value)
    sizes = ", ".join(f"{name}={_show(value)}" for name, value in quick.items())
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"reduced sizes ({sizes}): about {quick_time} instead of about {full_time} "
        "on a 2-core machine; an option you type is kept",
    )
    parser.set_defaults(
        **{name: _Unset(value) for name, value in defaults.items()},
        quick_settings=reduced,
        quick_defaults=defaults,
        running_times=(full_time, quick_time),
    )


def _converted(action: argparse.Action, value: Any) -> Any:
    """A value given as text, converted by the option's type as argparse converts a default
    given as text (so that a quick size and a typed value have the same type)."""
    return action.type(value) if isinstance(value, str) and callable(action.type) else value


def resolve_quick(args: argparse.Namespace) -> None:
    """Give every option `--quick` may reduce its value: the quick size with `--quick` unless
    the user typed one, else the default. Idempotent; records the typed ones in
    `args.quick_typed`.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> _ = parser.add_argument("--jobs", type=int, default=100)
    >>> add_quick_argument(parser, {"jobs": 5}, full_time="1 h", quick_time="1 min")
    >>> args = parser.parse_args(["--jobs", "100", "--quick"])
    >>> resolve_quick(args); resolve_quick(args)
    >>> args.jobs, sorted(args.quick_typed)
    (100, ['jobs'])
    """
    settings = getattr(args, "quick_settings", None)
    if settings is None or getattr(args, "quick_typed", None) is not None:
        return
    typed = set()
    for name, value in settings.items():
        current = getattr(args, name)
        if isinstance(current, _Unset):
            setattr(args, name, value if getattr(args, "quick", False) else current.value)
        else:
            typed.add(name)
    args.quick_typed = frozenset(typed)


def apply_quick(args: argparse.Namespace) -> str | None:
    """Apply `--quick` to `args`; return the note saying what was reduced, or `None`.

    Options the user typed keep their values (the note says "as given").
    """
    resolve_quick(args)
    if not getattr(args, "quick", False):
        return None
    changed = []
    for name in args.quick_settings:
        shown = f"{name}={_show(getattr(args, name))}"
        if name in args.quick_typed:
            changed.append(f"{shown} (as given)")
        else:
            changed.append(f"{shown} (full: {name}={_show(args.quick_defaults[name])})")
    return "quick run, reduced sizes: " + ", ".join(changed)


def count(*, at_least: int = 1, at_most: int | None = None, why: str = "") -> Any:
    """An argparse `type=` for a count: an integer >= `at_least` (and <= `at_most`, if given).

    The error names nothing but the value: argparse puts the option before it
    (`argument --runs: must be an integer >= 1, got 0`), and a sweep the TOML
    key as well. `why` says what the upper bound protects (e.g. the running time).

    Examples
    --------
    >>> jobs = count(at_most=100_000, why="a run's time grows with its jobs")
    >>> jobs("5000")
    5000
    >>> jobs("1000000000")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be at most 100000, got 1000000000 (a run's time grows with its jobs)
    >>> count()("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be an integer >= 1, got 0
    >>> count(at_least=0)("0")
    0
    """  # noqa: E501

    def parse(text: str) -> int:
        value = integer(text, at_least)
        if at_most is not None and value > at_most:
            reason = f" ({why})" if why else ""
            raise argparse.ArgumentTypeError(f"must be at most {at_most}, got {value}{reason}")
        return value

    parse.__name__ = "count"
    return parse


def _each(parse: Any, name: str) -> Any:
    """An argparse `type=` for comma-separated values, each read by `parse`."""

    def parse_all(text: str) -> tuple[Any, ...]:
        values = []
        for part in text.split(","):
            try:
                values.append(parse(part))
            except argparse.ArgumentTypeError as error:
                raise argparse.ArgumentTypeError(f"every value {error} in {text!r}") from None
        return tuple(values)

    parse_all.__name__ = name
    return parse_all


def count_list(*, at_least: int = 1) -> Any:
    """An argparse `type=` for comma-separated integers >= `at_least` (e.g. `--bounds 1,2,4`).

    Examples
    --------
    >>> count_list()("1, 2,4")
    (1, 2, 4)
    >>> count_list()("1,0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: every value must be an integer >= 1, got 0 in '1,0'
    >>> count_list(at_least=0)("0,4")
    (0, 4)
    """
    return _each(count(at_least=at_least), "count list")


counts = count_list()
"""Comma-separated integers >= 1: `count_list()`."""


def _number(text: str, greater_than: float | None, at_least: float | None,
            at_most: float | None) -> float:  # fmt: skip
    bounds = [
        f"> {greater_than:g}" if greater_than is not None else "",
        f">= {at_least:g}" if at_least is not None else "",
        f"<= {at_most:g}" if at_most is not None else "",
    ]
    wanted = "a finite number" + "".join(f" {b}" for b in bounds if b).replace(" <=", " and <=")
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {wanted}, got {text.strip()!r}") from None
    if (
        not math.isfinite(value)
        or (greater_than is not None and not value > greater_than)
        or (at_least is not None and value < at_least)
        or (at_most is not None and value > at_most)
    ):
        raise argparse.ArgumentTypeError(f"must be {wanted}, got {value:g}")
    return value


def number(
    *,
    greater_than: float | None = None,
    at_least: float | None = None,
    at_most: float | None = None,
) -> Any:
    """An argparse `type=` for a finite number within bounds (a time, a rate, a share).

    Examples
    --------
    >>> share = number(at_least=0, at_most=1)
    >>> share("0.25")
    0.25
    >>> share("1.5")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a finite number >= 0 and <= 1, got 1.5
    """

    def parse(text: str) -> float:
        return _number(text, greater_than, at_least, at_most)

    parse.__name__ = "number"
    return parse


def number_list(**bounds: float | None) -> Any:
    """An argparse `type=` for comma-separated finite numbers within `bounds` (those of
    [`number`][schedlib.experiments.options.number]: `greater_than`, `at_least`, `at_most`).

    Examples
    --------
    >>> number_list(greater_than=0)("1.5, 2")
    (1.5, 2.0)
    >>> number_list(greater_than=0)("1.5,0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: every value must be a finite number > 0, got 0 in '1.5,0'
    """

    return _each(number(**bounds), "number list")


def positive_number(text: str) -> float:
    """An argparse `type=` for a finite number > 0 (a time, a rate, a quantum).

    Examples
    --------
    >>> positive_number("2.5")
    2.5
    >>> positive_number("-1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a finite number > 0, got -1
    """
    return _number(text, 0, None, None)


workers = positive_int
"""An argparse `type=` for `--workers`: processes, an integer >= 1."""


def print_note(note: str | None, fmt: str) -> None:
    """Print `note` above a text table, or on standard error for JSON and CSV."""
    if note:
        print(note, file=sys.stdout if fmt == "table" else sys.stderr)


def add_grid_arguments(parser: argparse.ArgumentParser) -> None:
    """Add where a reproduction's grid runs and what it resumes from: `--workers N`,
    `--dask-local N` or `--scheduler ADDRESS` (one of them), and `--resume FILE`.

    Examples
    --------
    >>> parser = argparse.ArgumentParser(prog="reproduce demo")
    >>> add_grid_arguments(parser)
    >>> args = parser.parse_args(["--dask-local", "2", "--resume", "runs.jsonl"])
    >>> args.dask_local, args.resume, args.workers
    (2, 'runs.jsonl', None)
    """
    from schedlib.execution.cluster import add_where_arguments

    add_where_arguments(parser, what="the runs")
    parser.add_argument(
        "--resume",
        metavar="FILE",
        help="append each finished run to FILE as it completes; run again with the same "
        "options and FILE, only the runs not in it run (a file written with other options "
        "is refused, naming the difference)",
    )


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
    ...                     "verdict": "holds", "p": "0.003", "verdict (other)": "inconclusive"}]))
    ... # doctest: +ELLIPSIS
    1. A beats B (§4)
       data: SDSC-SP2
       measure: A - B
       ours: -3.0 s ± 1.0 (n = 5); expected: < 0 s; verdict: holds (adjusted p = 0.003)
       under the other reading: inconclusive
    <BLANKLINE>
    rule: ± is the half-width of the 95 % interval ... after correcting for the 1 claims tested...
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
        if row.get("p", "-") != "-":
            last += f" (adjusted p = {row['p']})"
        if "full size" in row:
            last += f"; full size: {row['full size']}"
        lines.append(last)
        lines += [
            f"   under the {field[len('verdict (') : -1]} reading: {value}"
            for field, value in row.items()
            if field.startswith("verdict (")
        ]
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
        rows = compared_with_full_size(rows, name)
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
        return ",".join(str(v) for v in value) if value else "none"
    return str(value)
