"""`schedlib reproduce all`: every paper's reproduction in turn, and a table of their claims.

Each reproduction runs with its default options (or its `--quick` sizes), then
its package's `claims(rows)` checks the paper's claims on the rows. The result
is one row per claim: the paper, the claim, our figures and the verdict
(`holds`, `does not hold`, `inconclusive`, `not run`; see
[`schedlib.experiments.claims`][schedlib.experiments.claims]). A claim that
does not hold is a finding about the paper or about our reading of it (each
reproduction page discusses it), not an error: the command exits 0.

Every paper's data is named in its progress line, in every claim row and in the
summary: the synthetic generators with their replicates, and for the multi-site
paper each trace as found (`--traces DIR`, `$SCHEDLIB_TRACES`, `./shared/traces`
or `../shared/traces` from the working directory), or its own embedded slice
(the first 5000 jobs of the real trace) when absent. With `--quick`, each claim
also shows the documented full-size verdict and whether it differs.

Examples
--------
>>> [name for name, _ in experiments()]
['pgs', 'preemptive', 'deferment', 'frequency', 'multisite']
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import attrs

from schedlib.errors import InvalidValueError
from schedlib.experiments import REPRODUCTIONS, reproduction
from schedlib.experiments.catalog import parse_options
from schedlib.experiments.claims import VERDICTS
from schedlib.experiments.documented import compared_with_full_size, differs
from schedlib.experiments.options import apply_quick, claims_text, judged, workers
from schedlib.experiments.running import execution_of
from schedlib.results.tables import render
from schedlib.results.verdicts import rule_text

__all__ = [
    "SUMMARY",
    "Outcome",
    "add_arguments",
    "claim_rows",
    "experiments",
    "main",
    "reproduce_all",
    "run_reproduction",
    "verdict_counts",
]

SUMMARY = "every paper's reproduction in turn, then a table of each paper's claims and verdicts"


def experiments() -> Iterator[tuple[str, ModuleType]]:
    """Every reproduction, in the order of `schedlib reproduce --help`: (name, module)."""
    for name in REPRODUCTIONS:
        yield name, reproduction(name)


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
    data
        The data it ran on (trace, jobs, real or embedded; or the generator and
        its replicates).
    seconds
        Wall-clock time of the run (the only figure that varies between runs).
    claims
        One judged row per claim: `key`, `claim`, `data`, `measure`, `ours`,
        `expected`, `verdict`, and with `quick` the documented `full size` verdict.
    rows
        The reproduction's rows.
    """

    name: str
    paper: str
    note: str | None
    data: str
    seconds: float
    claims: tuple[dict[str, str], ...]
    rows: tuple[dict[str, Any], ...] = ()


def run_reproduction(
    name: str,
    *,
    quick: bool = False,
    seed: int = 0,
    workers: int | None = None,
    traces: str | None = None,
    resume: str | None = None,
    dask_local: int | None = None,
    jobs: int | None = None,
) -> Outcome:
    """Run one reproduction with its default (or `--quick`) options and judge its claims.

    `resume`, `dask_local` and `jobs` are its `--resume FILE`, `--dask-local N` and
    `--jobs N` (for a reproduction that has them): a full run kept in a resume file,
    filled in earlier sittings, is read back from it; `jobs` replaces the default size
    (the multi-site run at the paper's 5000 jobs per trace).
    """
    module = reproduction(name)
    options: dict[str, Any] = {"quick": quick, "seed": seed, "workers": workers}
    if traces is not None and _accepts(name, "traces"):
        options["traces"] = traces
    for option, value in (("resume", resume), ("dask_local", dask_local), ("jobs", jobs)):
        if value is not None:
            if not _accepts(name, option):
                raise InvalidValueError(
                    "--" + option.replace("_", "-"), value, f"reproduce {name} has no such option"
                )
            options[option] = value
    if dask_local is not None:
        options["workers"] = None
    args = parse_options(name, options)
    note = apply_quick(args)
    began = time.perf_counter()
    with execution_of(args, name) as execution:
        rows: list[dict[str, Any]] = module.rows(args, execution)
    seconds = time.perf_counter() - began
    claims = judged(module.claims(rows))
    if quick:
        claims = compared_with_full_size(claims, name)
    return Outcome(name, module.PAPER, note, module.data(args), seconds, tuple(claims), tuple(rows))


def _accepts(name: str, option: str) -> bool:
    from schedlib.experiments.catalog import _parser

    return any(action.dest == option for action in _parser(name)._actions)


def reproduce_all(
    *,
    quick: bool = False,
    seed: int = 0,
    workers: int | None = None,
    traces: str | None = None,
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
    traces
        The folder of the real traces (`--traces`), for the reproductions that read traces.
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
    each); `tests/experiments/test_every_paper.py` runs the quick variant.
    """
    names = list(REPRODUCTIONS)
    outcomes = []
    for position, (name, module) in enumerate(experiments(), start=1):
        if on_start is not None:
            on_start(position, len(names), name, module)
        outcome = run_reproduction(name, quick=quick, seed=seed, workers=workers, traces=traces)
        outcomes.append(outcome)
        if on_end is not None:
            on_end(outcome)
    return outcomes


def claim_rows(outcomes: list[Outcome]) -> list[dict[str, str]]:
    """One flat row per claim, with its paper, for a table.

    Examples
    --------
    >>> o = Outcome("pgs", "Verboven et al. (2008)", None, "synthetic", 1.0,
    ...             ({"claim": "c", "ours": "x", "verdict": "holds"},))
    >>> claim_rows([o])
    [{'paper': 'Verboven et al. (2008)', 'claim': 'c', 'ours': 'x', 'verdict': 'holds'}]
    """
    return [{"paper": o.paper, **c} for o in outcomes for c in o.claims]


def verdict_counts(outcomes: list[Outcome]) -> dict[str, int]:
    """How many claims got each verdict, in the order of the verdicts.

    Examples
    --------
    >>> o = Outcome("pgs", "p", None, "d", 1.0, ({"claim": "c", "ours": "x", "verdict": "holds"},))
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
        help="each reproduction's reduced sizes (stated in the output), each verdict shown "
        "beside the documented full-size one",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of every reproduction (0)")
    parser.add_argument(
        "--traces",
        metavar="DIR",
        default=None,
        help="folder of the real traces (default: $SCHEDLIB_TRACES, else ./shared/traces or "
        "../shared/traces from the working directory; absent traces are replaced by their "
        "embedded slices, and said so)",
    )
    parser.add_argument(
        "--workers", type=workers, default=None, help="processes (default: every CPU)"
    )


def main(args: argparse.Namespace) -> int:
    """Run every reproduction with a progress line each, then print the claims and the summary."""

    def started(position: int, count: int, name: str, module: ModuleType) -> None:
        print(f"[{position}/{count}] {name}: {module.SUMMARY} ...", file=sys.stderr, flush=True)

    def ended(outcome: Outcome) -> None:
        sizes = f" ({outcome.note})" if outcome.note else " (full sizes)"
        print(f"      done in {outcome.seconds:.1f} s{sizes}", file=sys.stderr, flush=True)
        print(f"      data: {outcome.data}", file=sys.stderr, flush=True)

    outcomes = reproduce_all(
        quick=args.quick,
        seed=args.seed,
        workers=args.workers,
        traces=args.traces,
        on_start=started,
        on_end=ended,
    )
    if args.format != "table":
        rows = claim_rows(outcomes)
        print(render([{**r, "rule": rule_text()} for r in rows], args.format))
        return 0
    for outcome in outcomes:
        print(f"== {outcome.paper} ({outcome.name}) ==")
        print(f"data: {outcome.data}")
        print(claims_text(list(outcome.claims)).rsplit("\n\n", 1)[0])
        print()
    print(summary(outcomes, quick=args.quick))
    return 0


def summary(outcomes: list[Outcome], *, quick: bool) -> str:
    """The closing lines of `reproduce all`: the verdict counts, the rule, and each paper's data.

    Examples
    --------
    >>> o = Outcome("pgs", "P", "quick run", "synthetic, 2 runs", 1.0,
    ...             ({"key": "k", "claim": "c", "ours": "x", "verdict": "holds",
    ...               "full size": "holds (same)"},))
    >>> print(summary([o], quick=True))  # doctest: +ELLIPSIS +NORMALIZE_WHITESPACE
    1 claims of 1 papers: 1 holds; 1 s
    (quick sizes: 0 verdicts differ from the documented full-size runs)
    rule: ...
    data:
      P: synthetic, 2 runs
    """
    counts = verdict_counts(outcomes)
    total = sum(o.seconds for o in outcomes)
    rows = claim_rows(outcomes)
    line = (
        f"{len(rows)} claims of {len(outcomes)} papers: "
        + ", ".join(f"{n} {verdict}" for verdict, n in counts.items())
        + f"; {total:.0f} s"
    )
    if quick:
        differ = sum(1 for r in rows if differs(r))
        line += f" (quick sizes: {differ} verdicts differ from the documented full-size runs)"
    lines = [line, rule_text(), "data:"]
    lines += [f"  {o.paper}: {o.data}" for o in outcomes]
    return "\n".join(lines)
