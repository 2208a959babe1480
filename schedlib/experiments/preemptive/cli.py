"""`schedlib reproduce preemptive`: its options, its data line, its rows and its `main`."""

from __future__ import annotations

import argparse
from typing import Any

from schedlib.experiments.command import Rows, numbers, passed_on, run_command
from schedlib.experiments.options import add_claims_argument, add_quick_argument
from schedlib.experiments.preemptive.findings import claims
from schedlib.experiments.preemptive.page import plot
from schedlib.experiments.preemptive.runs import _NUMBERS, Run, _mean, aggregate, design, sweep
from schedlib.experiments.preemptive.setup import (
    DEFAULT_SCHEDULERS,
    NAME,
    PAPER_IATS,
    REPLICATES,
    SCHEDULERS,
    SIDE_STUDIES,
    make_jobs,
    make_nodes,
    offered_load,
)
from schedlib.experiments.running import Execution
from schedlib.preemption.decision import VICTIM_READINGS
from schedlib.validation import require


def _names(text: str) -> list[str]:
    return [s.strip() for s in text.split(",") if s.strip()]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `schedlib reproduce preemptive` (the CLI adds `--format`)."""
    parser.add_argument("--nodes", type=int, default=1000, help="grid nodes (default: 1000)")
    parser.add_argument("--jobs", type=int, default=5000, help="jobs (default: 5000)")
    parser.add_argument(
        "--iat",
        default=",".join(str(iat) for iat in PAPER_IATS),
        help="mean inter-arrival times in s, comma-separated (default: 1.5,2.0,2.5,3.0,4.0); "
        "the claims name them at the paper's scale, IAT x nodes / 1000",
    )
    parser.add_argument("--delta", default="5", help="scheduling intervals in s (default: 5)")
    parser.add_argument("--alpha", default="0,0.5", help="wait weights (default: 0,0.5)")
    parser.add_argument(
        "--beta", type=float, default=1.0, help="remaining-time weight (default: 1)"
    )
    parser.add_argument(
        "--schedulers",
        default=",".join(DEFAULT_SCHEDULERS),
        help=f"comma-separated, from {', '.join(SCHEDULERS)} "
        f"(default: {','.join(DEFAULT_SCHEDULERS)})",
    )
    parser.add_argument(
        "--victims",
        choices=VICTIM_READINGS,
        default="lower",
        help="which running jobs a waiting job may preempt: strictly lower priority (the "
        "prose of §5.1, default) or also equal (Algorithm 1, FindJobstoPreempt line 5)",
    )
    parser.add_argument(
        "--side",
        default=",".join(SIDE_STUDIES),
        help="side studies: delta (2.5 s), alpha1 (alpha 1 at every IAT), alpha2 (alpha 2 at "
        "the largest IAT), victims (the other reading); comma-separated, '' for none "
        f"(default: {','.join(SIDE_STUDIES)})",
    )
    parser.add_argument(
        "--replicates",
        type=int,
        default=REPLICATES,
        help=f"independent replicates (grid and jobs) of --seed (default: {REPLICATES})",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    parser.add_argument(
        "--accuracy",
        type=float,
        default=1.0,
        help="actual runtime in [accuracy*estimate, estimate] (default: 1)",
    )
    parser.add_argument(
        "--overhead",
        type=float,
        default=0.0,
        help="seconds charged at each resume after a preemption (default: 0)",
    )
    parser.add_argument("--workers", type=int, default=None, help="processes (default: every CPU)")
    parser.add_argument(
        "--plot", metavar="FILE", help="also draw the node-wait CDF (replicate 0) to FILE"
    )
    add_claims_argument(parser)
    add_quick_argument(
        parser,
        # the paper's loads at IAT 1.5, 2.5 and 4.0 on a tenth of the grid; no alpha = 2 run
        {
            "nodes": 100,
            "jobs": 500,
            "iat": "15,25,40",
            "side": "delta,alpha1,victims",
            "replicates": 6,
        },
        full_time="9 minutes",
        quick_time="20 s",
    )


def _runs(args: argparse.Namespace) -> list[Run]:
    if args.workers is not None:
        require(args.workers, "workers", at_least=1)
    return design(
        iats=numbers(args.iat, "iat"),
        deltas=numbers(args.delta, "delta"),
        alphas=numbers(args.alpha, "alpha"),
        schedulers=_names(args.schedulers),
        side=_names(args.side),
        **passed_on(
            args, "nodes", "jobs", "victims", "replicates", "seed", "beta", "accuracy", "overhead"
        ),
    )


def data(args: argparse.Namespace) -> str:
    """The data of a run: the synthetic grid and jobs, their offered loads and the replicates."""
    iats = numbers(args.iat, "iat")
    replicates = range(args.replicates)
    loads = []
    for iat in (min(iats), max(iats)) if iats else ():
        nodes_jobs = [
            (
                make_nodes(args.nodes, seed=args.seed, replicate=r),
                make_jobs(args.jobs, iat, seed=args.seed, replicate=r, accuracy=args.accuracy),
            )
            for r in replicates
        ]
        loads.append(_mean([offered_load(j, n) for n, j in nodes_jobs]))
    load = f", offered load {loads[0]:.2f} to {loads[-1]:.2f}" if loads else ""
    return (
        f"synthetic grid and jobs (§6.1, our numbers): {args.nodes} nodes, {args.jobs} jobs "
        f"per IAT {args.iat}{load}; {args.replicates} replicates of seed {args.seed}"
    )


def rows(
    args: argparse.Namespace, execution: Execution | None = None
) -> list[dict[str, Any]]:
    """The reproduction's rows for parsed options (no printing, no plot), run where
    `execution` says (default: local processes, `--workers`)."""
    return sweep(_runs(args), workers=args.workers)


_SHOWN = ("study", "scheduler", "replicate", "iat", "paper_iat", "delta", "alpha", "victims",
          *_NUMBERS)  # fmt: skip


def _shown(found: Rows, args: argparse.Namespace) -> Rows:
    if args.format == "table":
        return aggregate(found)
    return [{k: r[k] for k in _SHOWN} for r in found]


def main(args: argparse.Namespace) -> int:
    """Run the design; print one row per configuration and replicate (JSON, CSV) or the means
    over replicates (table), then the claims."""
    return run_command(args, rows, claims, name=NAME, figures={"plot": plot}, shown=_shown)
