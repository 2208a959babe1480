"""`schedlib reproduce multisite`: its options, its data line, its rows and its `main`."""

from __future__ import annotations

import argparse
from typing import Any

from schedlib.experiments.command import Rows, passed_on, run_command
from schedlib.experiments.multisite.findings import claims
from schedlib.experiments.multisite.plots import plot, plot_k
from schedlib.experiments.multisite.runs import reproduce
from schedlib.experiments.multisite.setup import (
    JOBS,
    LOAD_FACTORS,
    NAME,
    REPLICATES,
)
from schedlib.experiments.options import (
    add_claims_argument,
    add_grid_arguments,
    add_quick_argument,
    count,
    number_list,
)
from schedlib.experiments.running import Execution
from schedlib.workloads.locate import find_trace

FULL_TIME = "4 hours (8 CPU hours)"
"""The full run's time at the paper's size, as `--help` states it on 2 workers (measured:
the documented result's CPU time; a test checks it)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `schedlib reproduce multisite` (the CLI adds `--format`)."""
    parser.add_argument(
        "--trace",
        default="both",
        help="ctc, sdsc, both (default) or an SWF file; a named trace is read from the traces "
        "folder (--traces), else replaced by its own embedded slice (first 5000 jobs; said in "
        "the rows)",
    )
    parser.add_argument(
        "--traces",
        metavar="DIR",
        default=None,
        help="folder of the real traces (default: $SCHEDLIB_TRACES, else ./shared/traces or "
        "../shared/traces from the working directory)",
    )
    parser.add_argument(
        "--jobs",
        type=count(),
        default=JOBS,
        help=f"first jobs of each trace (default {JOBS}, the paper's and the documented "
        f"result's size: about {FULL_TIME} on 2 workers; spread it with --dask-local or "
        "--scheduler and keep it with --resume; more than a trace holds is said)",
    )
    parser.add_argument(
        "--replicates",
        type=count(),
        default=REPLICATES,
        help=f"independent draws of the job classes (default {REPLICATES})",
    )
    parser.add_argument(
        "--load-factors",
        type=number_list(greater_than=0),
        default=",".join(str(f) for f in LOAD_FACTORS),
        help="load factors (default: 1.0 to 2.0 by 0.2); the K sweeps and the tie rules use "
        "the first",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the replicates (default 0)")
    add_grid_arguments(parser)
    add_claims_argument(parser)
    parser.add_argument("--plot", metavar="FILE", help="also draw the results into FILE (.png)")
    add_quick_argument(
        parser,
        {"jobs": 300, "replicates": 3, "load_factors": "1.0,1.6"},
        full_time=FULL_TIME,
        quick_time="1 minute",
    )


def _trace_names(args: argparse.Namespace) -> tuple[str, ...]:
    return ("ctc", "sdsc") if args.trace == "both" else (args.trace,)


def data(args: argparse.Namespace) -> str:
    """The data of a run: each trace, real or embedded slice, with the jobs used."""
    sources = [find_trace(name, folder=args.traces) for name in _trace_names(args)]
    return "; ".join(source.describe(args.jobs) for source in sources) + (
        f"; {args.replicates} class-seed replicates (seed {args.seed})"
    )


def rows(args: argparse.Namespace, execution: Execution | None = None) -> list[dict[str, Any]]:
    """The reproduction's rows for parsed options (no printing, no plot), run where
    `execution` says (default: local processes, `--workers`)."""
    return reproduce(
        traces=_trace_names(args),
        traces_folder=args.traces,
        load_factors=args.load_factors,
        show_progress=True,
        execution=execution,
        **passed_on(args, "jobs", "replicates", "seed", "workers"),
    )


def shown(table: Rows, args: argparse.Namespace) -> Rows:
    """The rows printed: every field but `cpu_seconds`, the one that varies from one
    computation to the next (it stays in the resume file and the documented result), so
    that a run prints the same rows wherever and in how many sittings it ran."""
    return [{k: v for k, v in r.items() if k != "cpu_seconds"} for r in table]


def _plots(table: Rows, path: str) -> None:
    """Both figures: `FILE` by load factor, `FILE_k` by $K$."""
    plot(table, path)
    stem, dot, suffix = path.rpartition(".")
    plot_k(table, f"{stem}_k.{suffix}" if dot else f"{path}_k")


def main(args: argparse.Namespace) -> int:
    """Run the reproduction and print its rows, then the claims and their rule."""
    return run_command(args, rows, claims, name=NAME, figures={"plot": _plots}, shown=shown)
