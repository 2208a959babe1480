"""`schedlib reproduce frequency`: its options, its data line, its rows and its `main`."""

from __future__ import annotations

import argparse
from typing import Any

import attrs

from schedlib.errors import InvalidValueError
from schedlib.experiments.command import Rows, passed_on, run_command
from schedlib.experiments.frequency.findings import claims
from schedlib.experiments.frequency.page import _means, plot_comparison, plot_sweep
from schedlib.experiments.frequency.runs import Settings, reproduce
from schedlib.experiments.frequency.setup import (
    DEFAULT_SHAPE,
    HYPOTHESIS,
    MAX_MF,
    NAME,
    QUANTUM,
    REPLICATES,
    SWEEP_READINGS,
)
from schedlib.experiments.options import (
    add_claims_argument,
    add_grid_arguments,
    add_quick_argument,
    count,
    count_list,
    number,
    number_list,
    positive_number,
)
from schedlib.experiments.running import Execution
from schedlib.frequency.cost import MigrationCost
from schedlib.frequency.pfs import DEFAULT_GRACE
from schedlib.frequency.policies import Readings
from schedlib.results.tables import render


def _readings_option(text: str, name: str) -> tuple[Readings, ...]:
    if text.strip() in ("", "none"):
        return ()
    if text.strip() == "all":
        return Readings.every()
    try:
        return tuple(Readings.from_label(part.strip()) for part in text.split(","))
    except InvalidValueError as error:
        raise InvalidValueError(name, text, str(error)) from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `schedlib reproduce frequency` (the CLI adds `--format`)."""
    parser.add_argument(
        "--replicates",
        type=count(),
        default=REPLICATES,
        help=f"independent replicates (default: {REPLICATES})",
    )
    parser.add_argument(
        "--seed",
        type=count(at_least=0),
        default=0,
        help="seed; replicates are (seed, 0..R-1) (default: 0)",
    )
    parser.add_argument(
        "--quantum", type=positive_number, default=QUANTUM, help=f"comparison: Q in s ({QUANTUM:g})"
    )
    parser.add_argument(
        "--max-mf", type=count(at_least=0), default=MAX_MF, help=f"comparison: MAX_MF ({MAX_MF})"
    )
    parser.add_argument(
        "--max-preemption", type=count(), default=3, help="MAX_PREEMPTION (default: 3)"
    )
    parser.add_argument(
        "--grace",
        type=number(at_least=1),
        default=DEFAULT_GRACE,
        help=f"grace factor g, >= 1 (default: {DEFAULT_GRACE})",
    )
    parser.add_argument(
        "--morph-share",
        type=number(at_least=0, at_most=1),
        default=None,
        help="share of interactive jobs with one long burst (default: 0.2)",
    )
    parser.add_argument(
        "--kc", type=number(at_least=0), default=0.5, help="K_C, communication cost in s (0.5)"
    )
    parser.add_argument(
        "--kcr",
        type=number(at_least=0),
        default=0.5,
        help="K_CR, checkpoint/restart cost in s (0.5)",
    )
    parser.add_argument(
        "--readings",
        default="all",
        help="comparison: readings next_burst/remote_queue/mfs, comma-separated, or 'all' "
        "(default: all eight)",
    )
    parser.add_argument(
        "--quanta",
        type=number_list(greater_than=0),
        default="0.5,1,2,4",
        help="sweep: quanta in s, each > 0 (0.5,1,2,4)",
    )
    parser.add_argument(
        "--max-mfs",
        type=count_list(at_least=0),
        default="0,1,2,4,8",
        help="sweep: MAX_MF values, each >= 0 (0,1,2,4,8)",
    )
    parser.add_argument(
        "--sweep-readings",
        default=",".join(r.label for r in SWEEP_READINGS),
        help="sweep: readings, comma-separated, or 'none' (default: "
        + ",".join(r.label for r in SWEEP_READINGS)
        + ")",
    )
    add_grid_arguments(parser)
    parser.add_argument("--plot", metavar="FILE", help="draw the comparison into FILE (.png)")
    parser.add_argument(
        "--plot-sweep", metavar="FILE", help="draw the sweep of the first swept reading (.png)"
    )
    add_claims_argument(parser)
    add_quick_argument(
        parser,
        {"replicates": 15, "quanta": "1", "max_mfs": "0,4"},
        full_time="2 min (4 with other work on the machine)",
        quick_time="20 s",
    )


def settings_of(args: argparse.Namespace) -> Settings:
    """The [`Settings`][schedlib.experiments.frequency.Settings] of parsed options."""
    shape = DEFAULT_SHAPE
    if args.morph_share is not None:
        shape = attrs.evolve(shape, morph_share=args.morph_share)
    return Settings(
        **passed_on(args, "replicates", "seed", "quantum", "max_mf", "max_preemption", "grace"),
        cost=MigrationCost(args.kc, args.kcr),
        shape=shape,
        readings=_readings_option(args.readings, "--readings"),
        quanta=args.quanta,
        max_mfs=args.max_mfs,
        sweep_readings=_readings_option(args.sweep_readings, "--sweep-readings"),
    )


def data(args: argparse.Namespace) -> str:
    """The data of a run: the synthetic pool workload, its replicates, and the sweep."""
    settings = settings_of(args)
    shape = settings.shape
    sweep = (
        f"; sweep over Q in {{{', '.join(f'{q:g}' for q in settings.quanta)}}} x MAX_MF in "
        f"{{{', '.join(str(m) for m in settings.max_mfs)}}} under "
        + ", ".join(r.label for r in settings.sweep_readings)
        if settings.sweep_readings
        else ""
    )
    return (
        f"synthetic pool workload ({shape.interactive} interactive and {shape.cpu_bound} "
        f"CPU-bound jobs over {shape.horizon:g} s, morphing share {shape.morph_share:g}) on "
        f"the 7-node pool; {settings.replicates} replicates (seed {settings.seed}, replicates "
        f"0..{settings.replicates - 1}); comparison at Q = {settings.quantum:g} s, MAX_MF = "
        f"{settings.max_mf}{sweep}"
    )


def rows(args: argparse.Namespace, execution: Execution | None = None) -> list[dict[str, Any]]:
    """The reproduction's rows for parsed options (no printing, no plot), run where
    `execution` says (default: every local CPU)."""
    return reproduce(settings_of(args), execution)


def _shown(table: Rows, args: argparse.Namespace) -> Rows:
    """Every row for JSON and CSV; for a table, the sweep's table first, then the aggregates."""
    if args.format != "table":
        return table
    sweep = [r for r in table if r["part"] == "sweep"]
    if sweep and not args.claims:
        print(render([{k: v for k, v in r.items() if k in _SWEEP_SHOWN} for r in sweep]))
        print()
    return [dict(r) for r in _means(table)]


def main(args: argparse.Namespace) -> int:
    """Run the comparison and the sweep, print their rows (the table: the aggregates) and claims."""
    return run_command(
        args,
        rows,
        claims,
        name=NAME,
        figures={"plot": plot_comparison, "plot_sweep": plot_sweep},
        shown=_shown,
    )


_SWEEP_SHOWN = (
    "readings",
    "quantum",
    "max_mf",
    *(f"{key}_{what}" for key, *_ in HYPOTHESIS for what in ("change_pct", "half_width")),
    "banned",
    "verdict",
)
