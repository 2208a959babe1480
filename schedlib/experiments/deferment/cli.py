"""`schedlib reproduce deferment`: its options, its data line, its rows and its `main`."""

from __future__ import annotations

import argparse
from functools import partial
from typing import Any

from schedlib.experiments.command import Rows, passed_on, run_command
from schedlib.experiments.deferment.findings import claims
from schedlib.experiments.deferment.page import plot
from schedlib.experiments.deferment.runs import reproduce
from schedlib.experiments.deferment.setup import DEFAULT_READING, NAME, READINGS, ExperimentSettings
from schedlib.experiments.options import (
    add_claims_argument,
    add_grid_arguments,
    add_quick_argument,
    count,
    count_list,
    counts,
)
from schedlib.experiments.running import Execution

_READING_CHOICES = (*READINGS, "both")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `schedlib reproduce deferment` (the CLI adds `--format`)."""
    parser.add_argument("--trials", type=count(), default=200, help="trials (200)")
    parser.add_argument(
        "--jobs", type=count(), default=8, help="jobs per trial (8, Table 1; the text says 32)"
    )
    parser.add_argument(
        "--intervals",
        type=count_list(),
        default=(500, 750, 1000, 2000, 4000),
        metavar="LIST",
        help="job submission intervals (500,750,1000,2000,4000: the paper's and 750)",
    )
    parser.add_argument(
        "--bounds",
        type=counts,
        default=(1, 2, 4, 8),
        metavar="LIST",
        help="task deferment bounds, each >= 1 (1,2,4,8)",
    )
    parser.add_argument(
        "--fifo-reading",
        choices=_READING_CHOICES,
        default="both",
        help="FIFO with replication: serve every job's originals before any replica "
        "(originals-first), or the head job, replicas included, until it completes (head-job); "
        "both (default) runs both: the verdicts of originals-first are the paper's count, "
        "those of head-job are shown beside them",
    )
    parser.add_argument(
        "--overtaking-trials",
        type=count(at_least=0),
        default=1000,
        help="trials of standard FIFO at intervals 500 and 750 for the overtaking claim, the "
        "main trials included (1000)",
    )
    parser.add_argument(
        "--spare-trials",
        type=count(at_least=0),
        default=30,
        help="trials of the 32-job spare-power experiment at interval 500 (30; 0: none)",
    )
    parser.add_argument(
        "--identical-jobs",
        action="store_true",
        help="give every job the same task sizes (a reading of 'all the jobs are the same "
        "construction' under which no job can overtake and deferment never acts)",
    )
    parser.add_argument(
        "--seed", type=count(at_least=0), default=0, help="seed (0): trial t draws from (seed, t)"
    )
    add_grid_arguments(parser)
    parser.add_argument(
        "--no-replication",
        dest="replication",
        action="store_false",
        help="turn task replication off for every algorithm",
    )
    parser.add_argument("--plot", metavar="FILE", help="also draw Figures 1-4 into FILE (.png)")
    add_claims_argument(parser)
    add_quick_argument(
        parser,
        {"trials": 8, "overtaking_trials": 8, "spare_trials": 3, "fifo_reading": DEFAULT_READING},
        full_time="10 minutes",
        quick_time="15 s",
    )


def _settings(args: argparse.Namespace) -> ExperimentSettings:
    readings = tuple(READINGS) if args.fifo_reading == "both" else (args.fifo_reading,)
    intervals = tuple(args.intervals)
    return ExperimentSettings(
        intervals=intervals,
        bounds=tuple(args.bounds),
        readings=readings,
        **passed_on(
            args,
            "trials",
            "jobs",
            "replication",
            "identical_jobs",
            "overtaking_trials",
            "spare_trials",
            "seed",
        ),
    )


def data(args: argparse.Namespace) -> str:
    """The data of a run: the synthetic desktop grid and jobs, the trials of each experiment."""
    s = _settings(args)
    spare = (
        f"; {s.spare_jobs}-job spare-power experiment, {s.spare_trials} trials at "
        f"{', '.join(f'{i:g}' for i in s.spare_intervals)}"
        if s.spare_trials
        else ""
    )
    extra = max(s.overtaking_trials, s.trials)
    return (
        f"synthetic desktop grid ({s.processors} PCs, the paper's load model), {s.jobs} jobs of "
        f"{s.tasks} tasks{' (identical jobs)' if s.identical_jobs else ''}; {s.trials} trials "
        f"at intervals {', '.join(f'{i:g}' for i in s.intervals)}; standard FIFO over "
        f"{extra} trials for the overtaking claim{spare}; FIFO readings "
        f"{', '.join(s.readings)}; seed {s.seed}"
    )


def rows(args: argparse.Namespace, execution: Execution | None = None) -> list[dict[str, Any]]:
    """The reproduction's rows for parsed options (no printing, no plot), run where
    `execution` says (default: every local CPU)."""
    return reproduce(_settings(args), execution)


def _summary(table: Rows, args: argparse.Namespace) -> Rows:
    return [{k: v for k, v in r.items() if k != "kind"} for r in table if r["kind"] == "summary"]


def main(args: argparse.Namespace) -> int:
    """Run the reproduction and print the summary rows, then the claims and their rule.

    The verdicts counted are those of the default FIFO reading, or of the one
    `--fifo-reading` names, with the other reading's beside them when both ran
    (`--quick` narrows `both` to the default one).
    """
    reading = DEFAULT_READING if args.fifo_reading == "both" else args.fifo_reading
    return run_command(
        args,
        rows,
        partial(claims, reading=reading),
        name=NAME if reading == DEFAULT_READING else None,
        figures={"plot": plot},
        shown=_summary,
    )
