"""`schedlib reproduce pgs`: its options, its data line, its rows and its `main`."""

from __future__ import annotations

import argparse
from typing import Any

from schedlib.availability.grid import DEFAULT_QUEUE_LENGTH
from schedlib.experiments.command import Rows, passed_on, run_command
from schedlib.experiments.options import (
    add_claims_argument,
    add_grid_arguments,
    add_quick_argument,
    count,
    number,
)
from schedlib.experiments.pgs.findings import claims
from schedlib.experiments.pgs.page import plot
from schedlib.experiments.pgs.runs import reproduce
from schedlib.experiments.pgs.setup import (
    FIRST_JOBS,
    IMPLIED_OVERHEAD,
    NAME,
    ORDERS,
    PHASES,
    READINGS,
    Reading,
    reading_name,
)
from schedlib.experiments.running import Execution


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `schedlib reproduce pgs` (the CLI adds `--format`)."""
    parser.add_argument(
        "--runs", type=count(), default=20,
        help="independent replicates per scenario (default: 20)",
    )  # fmt: skip
    parser.add_argument(
        "--seed", type=int, default=0, help="seed; replicates are (seed, 0..runs-1) (default: 0)"
    )
    parser.add_argument(
        "--queue-length",
        type=count(),
        default=DEFAULT_QUEUE_LENGTH,
        metavar="Q",
        help=f"jobs a resource holds, running one included (default: {DEFAULT_QUEUE_LENGTH})",
    )
    parser.add_argument(
        "--order",
        choices=ORDERS,
        default="increasing",
        help="submission order of the jobs: increasing sizes, the copies of each size next to "
        "each other (default, the paper's), the copies as successive sweeps, shuffled per "
        "replicate, or decreasing",
    )
    parser.add_argument(
        "--pgs-order",
        choices=ORDERS,
        default=None,
        help="the order in which PGS takes the jobs, if not the submission order FCFS sees "
        "(default: the submission order, --order)",
    )
    parser.add_argument(
        "--overhead",
        type=number(at_least=0),
        default=0.0,
        metavar="SECONDS",
        help="per-job overhead added to each job's runtime (default: 0; the paper's scenario 0 "
        f"implies about {IMPLIED_OVERHEAD:g} s)",
    )
    parser.add_argument(
        "--overhead-known",
        action="store_true",
        help="PGS's time left (tl) counts the overhead (default: it does not)",
    )
    parser.add_argument(
        "--phases",
        choices=PHASES,
        default="zero",
        help="starting phases of the resources: all come up at time 0 (default) or each part-"
        "way through its first uptime, at random per replicate",
    )
    parser.add_argument(
        "--first-job",
        choices=FIRST_JOBS,
        default="idle",
        help="which resources PGS's step 1 gives a first job: idle ones with an empty queue "
        "(default) or every resource with an empty queue, busy or not",
    )
    parser.add_argument(
        "--readings",
        choices=("all", "none"),
        default="all",
        help=f"also run every named reading ({', '.join(READINGS)}) for the readings table "
        "(default: all)",
    )
    parser.add_argument(
        "--resource-order",
        choices=("rejoined", "index"),
        default="rejoined",
        help="order of the available resources: by the time they last came up "
        "(default) or by index",
    )
    add_grid_arguments(parser)
    parser.add_argument(
        "--plot", metavar="FILE", help="also draw Table 2, ours beside the paper's, to FILE (.png)"
    )
    add_claims_argument(parser)
    add_quick_argument(
        parser, {"runs": 10, "readings": "none"}, full_time="1 min", quick_time="5 s"
    )


def _reading(args: argparse.Namespace) -> Reading:
    return Reading(
        args.order,
        args.overhead,
        args.overhead_known,
        args.phases,
        args.pgs_order if args.pgs_order != args.order else None,
        args.queue_length,
        args.first_job,
    )


def data(args: argparse.Namespace) -> str:
    """The data of a run: the paper's job sets on Table 1's resources, and the replicates."""
    reading = _reading(args)
    options = reading.options()
    others = [n for n in READINGS if READINGS[n] != reading] if args.readings == "all" else []
    return (
        "synthetic: the paper's three job sets on Table 1's eight resources; "
        f"{reading_name(reading)} reading{f' ({options})' if options else ''}; "
        f"{args.runs} replicates (seed {args.seed}, replicates 0..{args.runs - 1})"
        + (f"; also the readings {', '.join(others)}" if others else "")
    )


def rows(args: argparse.Namespace, execution: Execution | None = None) -> list[dict[str, Any]]:
    """The reproduction's rows for parsed options (no printing, no plot), run where
    `execution` says (default: local processes, `--workers`)."""
    return reproduce(
        reading=_reading(args),
        compare=list(READINGS) if args.readings == "all" else (),
        execution=execution if execution is not None else Execution(workers=args.workers),
        **passed_on(args, "runs", "seed", "resource_order"),
    )


_PRINTED = (
    "scenario", "scheduler", "reading", "runs", "makespan_minutes", "stdev", "paper_minutes",
    "paper_stdev", "difference_percent", "paper_difference_percent", "failures",
    "wasted_seconds", "abandoned", "unschedulable", "lower_bound_minutes",
)  # fmt: skip


def _summary(table: Rows, args: argparse.Namespace) -> Rows:
    return [{k: r[k] for k in _PRINTED} for r in table if "replicate" not in r]


def main(args: argparse.Namespace) -> int:
    """Run the reproduction and print one summary row per (reading, scenario, scheduler)."""
    return run_command(
        args, rows, claims, name=NAME, figures={"plot": plot}, shown=_summary, check=_reading
    )
