"""What every reproduction's command shares: its `main`, and the parsing of list options.

A reproduction's `cli` room defines its options (`add_arguments`), its data line
(`data`) and the rows of parsed options (`rows`); its `main` hands them to
[`run_command`][schedlib.experiments.command.run_command], which does what every
`schedlib reproduce NAME` does, in this order:

1. apply `--quick` ([`apply_quick`][schedlib.experiments.options.apply_quick]);
2. check what must fail before any computation: the reproduction's own check, then
   each figure's target
   ([`check_plot_target`][schedlib.experiments.options.check_plot_target]);
3. compute the rows and draw the figures asked for;
4. print the note of the reduced sizes, then the rows shown and the claims
   ([`print_results`][schedlib.experiments.options.print_results]).

Examples
--------
>>> numbers("1.5, 2,,4", "--iat")
[1.5, 2.0, 4.0]
>>> numbers("0,4", "--max-mfs", int)
[0, 4]
>>> numbers("1,x", "--iat")
Traceback (most recent call last):
...
schedlib.errors.InvalidValueError: --iat = '1,x': must be a comma-separated list of numbers
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from schedlib.errors import InvalidValueError
from schedlib.experiments.options import apply_quick, check_plot_target, print_note, print_results
from schedlib.experiments.running import Execution, execution_of

__all__ = ["Rows", "numbers", "passed_on", "run_command"]

Rows = list[dict[str, Any]]
"""A reproduction's result rows (flat dicts)."""


def run_command(
    args: argparse.Namespace,
    rows: Callable[[argparse.Namespace, Execution], Rows],
    claims: Callable[[Rows], Sequence[Any]],
    *,
    name: str | None,
    figures: Mapping[str, Callable[[Rows, str], None]],
    shown: Callable[[Rows, argparse.Namespace], Rows] | None = None,
    check: Callable[[argparse.Namespace], object] | None = None,
) -> int:
    """Run a reproduction for parsed options and print its rows and claims; return 0.

    Parameters
    ----------
    args
        The parsed options (with `format`, and `quick` and `claims` if the
        reproduction has them).
    rows
        The reproduction's rows for the options and where they run (its `rows`; the
        [`Execution`][schedlib.experiments.running.Execution] holds `--workers`,
        `--scheduler`, `--dask-local` and `--resume` where the reproduction has them).
    claims
        Its claims on the rows (its `claims`, or one bound to a reading).
    name
        The reproduction whose documented verdicts a `--quick` run shows beside
        its own (`None`: none, for a run the documented results do not describe).
    figures
        Option -> `draw(rows, path)`: each option naming a file (`--plot FILE`)
        and what is drawn into it.
    shown
        The rows to print, from all the rows and the options (default: all);
        it may print a table of its own first (below the note).
    check
        Called before any figure target is checked and any run starts; raises
        for options that cannot be honoured.
    """
    note = apply_quick(args)
    if check is not None:
        check(args)
    for option in figures:
        check_plot_target(getattr(args, option))
    with execution_of(args, name or "") as execution:
        table = rows(args, execution)
    for option, draw in figures.items():
        path = getattr(args, option)
        if path:
            draw(table, path)
    print_note(note, args.format)
    printed = table if shown is None else shown(table, args)
    print_results(printed, claims(table), args, name=name)
    return 0


def passed_on(args: argparse.Namespace, *names: str) -> dict[str, Any]:
    """The options `names` as keyword arguments: those a reproduction passes on, unchanged, to
    a parameter of the same name.

    Examples
    --------
    >>> passed_on(argparse.Namespace(seed=3, jobs=10, plot=None), "jobs", "seed")
    {'jobs': 10, 'seed': 3}
    """
    return {name: getattr(args, name) for name in names}


def numbers(
    text: str,
    name: str,
    kind: type = float,
    *,
    requirement: str = "must be a comma-separated list of numbers",
) -> list[Any]:
    """The comma-separated numbers of option `name` (`kind`: `float` or `int`; empty parts
    are skipped).

    Raises
    ------
    InvalidValueError
        If a part is not a number of that kind, saying `requirement`.
    """
    try:
        return [kind(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise InvalidValueError(name, text, requirement) from None
