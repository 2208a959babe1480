"""`schedlib reproduce all`: every paper's reproduction in turn, and a table of their claims.

Each reproduction runs with its default options (or its `--quick` sizes), then
its module's `claims(rows)` checks the paper's claims on the rows. The result
is one row per claim: the paper, the claim, our figures and the verdict
(`holds`, `does not hold`, `unclear`, `not run`; see
[`schedlib.experiments.claims`][schedlib.experiments.claims]). A claim that
does not hold is a finding about the paper or about our reading of it (each
reproduction page discusses it), not an error: the command exits 0.

Everything runs on the data shipped with the package when `../shared/traces`
is absent (the multi-site reproduction then uses the embedded SDSC-SP2 slice).

Examples
--------
>>> [name for name, _ in experiments()]
['pgs', 'preemptive', 'deferment', 'frequency', 'multisite']
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import attrs

from schedlib.experiments import REPRODUCTIONS
from schedlib.experiments.catalog import parse_options
from schedlib.experiments.claims import VERDICTS
from schedlib.experiments.options import apply_quick
from schedlib.results.tables import render

__all__ = [
    "SUMMARY",
    "Outcome",
    "add_arguments",
    "claim_rows",
    "experiments",
    "main",
    "reproduce_all",
    "verdict_counts",
]

SUMMARY = "every paper's reproduction in turn, then a table of each paper's claims and verdicts"


def experiments() -> Iterator[tuple[str, ModuleType]]:
    """Every reproduction, in the order of `schedlib reproduce --help`: (name, module)."""
    for name, module in REPRODUCTIONS.items():
        yield name, importlib.import_module(module)


@attrs.frozen
class Outcome:
    """One reproduction's part of `reproduce all`.

    Attributes
    ----------
    name
        The reproduction (`pgs`, ...).
    paper
        The paper, as cited.
    note
        What `--quick` reduced, or `None` for the full sizes.
    seconds
        Wall-clock time of the run (the only figure that varies between runs).
    claims
        One row per claim: `claim`, `ours`, `verdict`.
    """

    name: str
    paper: str
    note: str | None
    seconds: float
    claims: tuple[dict[str, str], ...]


def reproduce_all(
    *,
    quick: bool = False,
    seed: int = 0,
    workers: int | None = None,
    on_start: Callable[[int, int, str, ModuleType], None] | None = None,
    on_end: Callable[[Outcome], None] | None = None,
) -> list[Outcome]:
    """Run every reproduction and check its paper's claims.

    Parameters
    ----------
    quick
        Use each reproduction's `--quick` sizes.
    seed
        The `--seed` of every reproduction.
    workers
        Processes per reproduction (`None`: every CPU); the claims do not depend on it.
    on_start, on_end
        Called before each reproduction with (position, count, name, module) and
        after it with its [`Outcome`][schedlib.experiments.every_paper.Outcome]
        (the command line prints its progress lines with them).

    Returns
    -------
    list of Outcome
        One per reproduction, in order.

    Notes
    -----
    The running time is the sum of the reproductions' (their `--help` states
    each): about 20 minutes, or 15-45 s with `quick=True` on a 2-core machine
    (too long for a doctest: `tests/experiments/test_every_paper.py` runs it).
    """
    names = list(REPRODUCTIONS)
    outcomes = []
    for position, (name, module) in enumerate(experiments(), start=1):
        if on_start is not None:
            on_start(position, len(names), name, module)
        args = parse_options(name, {"quick": quick, "seed": seed, "workers": workers})
        note = apply_quick(args)
        began = time.perf_counter()
        rows: list[dict[str, Any]] = module.rows(args)
        outcome = Outcome(
            name,
            module.PAPER,
            note,
            time.perf_counter() - began,
            tuple(module.claims(rows)),
        )
        outcomes.append(outcome)
        if on_end is not None:
            on_end(outcome)
    return outcomes


def claim_rows(outcomes: list[Outcome]) -> list[dict[str, str]]:
    """One flat row per claim, with its paper, for a table.

    Examples
    --------
    >>> o = Outcome("pgs", "Verboven et al. (2008)", None, 1.0,
    ...             ({"claim": "c", "ours": "x", "verdict": "holds"},))
    >>> claim_rows([o])
    [{'paper': 'Verboven et al. (2008)', 'claim': 'c', 'ours': 'x', 'verdict': 'holds'}]
    """
    return [{"paper": o.paper, **c} for o in outcomes for c in o.claims]


def verdict_counts(outcomes: list[Outcome]) -> dict[str, int]:
    """How many claims got each verdict, in the order of the verdicts.

    Examples
    --------
    >>> o = Outcome("pgs", "p", None, 1.0, ({"claim": "c", "ours": "x", "verdict": "holds"},))
    >>> verdict_counts([o])
    {'holds': 1}
    """
    seen = [c["verdict"] for o in outcomes for c in o.claims]
    return {v: seen.count(v) for v in VERDICTS if v in seen}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `schedlib reproduce all` (the CLI adds `--format`)."""
    parser.add_argument(
        "--quick",
        action="store_true",
        help="each reproduction's reduced sizes (stated in the output): about a minute "
        "instead of about 20 minutes on a 2-core machine",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of every reproduction (0)")
    parser.add_argument("--workers", type=int, default=None, help="processes (default: every CPU)")


def main(args: argparse.Namespace) -> int:
    """Run every reproduction with a progress line each, then print the table of claims."""
    if args.workers is not None and args.workers < 1:
        from schedlib.errors import InvalidValueError

        raise InvalidValueError("--workers", args.workers, "must be >= 1")

    def started(position: int, count: int, name: str, module: ModuleType) -> None:
        print(f"[{position}/{count}] {name}: {module.SUMMARY} ...", file=sys.stderr, flush=True)

    def ended(outcome: Outcome) -> None:
        sizes = f" ({outcome.note})" if outcome.note else " (full sizes)"
        print(f"      done in {outcome.seconds:.1f} s{sizes}", file=sys.stderr, flush=True)

    outcomes = reproduce_all(
        quick=args.quick, seed=args.seed, workers=args.workers, on_start=started, on_end=ended
    )
    rows = claim_rows(outcomes)
    print(render(rows, args.format))
    if args.format == "table":
        counts = verdict_counts(outcomes)
        total = sum(o.seconds for o in outcomes)
        print()
        print(
            f"{len(rows)} claims of {len(outcomes)} papers: "
            + ", ".join(f"{n} {verdict}" for verdict, n in counts.items())
            + f"; {total:.0f} s"
            + (" (quick sizes, stated above on standard error)" if args.quick else "")
        )
    return 0
