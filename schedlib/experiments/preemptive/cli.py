"""`schedlib reproduce preemptive`: its options, its data line, its rows and its `main`."""

from __future__ import annotations

import argparse
from typing import Any

from schedlib.errors import InvalidValueError
from schedlib.experiments.command import Rows, passed_on, run_command
from schedlib.experiments.options import (
    add_claims_argument,
    add_grid_arguments,
    add_quick_argument,
    count,
    number,
    number_list,
)
from schedlib.experiments.preemptive.findings import claims
from schedlib.experiments.preemptive.page import plot
from schedlib.experiments.preemptive.runs import _NUMBERS, _mean, aggregate, design, sweep
from schedlib.experiments.preemptive.setup import (
    DEFAULT_READING,
    DEFAULT_SCHEDULERS,
    JOB_SIZES,
    KINDS,
    LIMITED_CHOICES,
    NAME,
    PAPER_IATS,
    PAPER_NODES,
    PUSHES,
    READING_KINDS,
    REPLICATES,
    SCHEDULERS,
    SIDE_STUDIES,
    WARM_UPS,
    Reading,
    choices_of,
    make_jobs,
    make_nodes,
    offered_loads,
)
from schedlib.experiments.running import Execution
from schedlib.preemption.decision import VICTIM_READINGS

MAX_JOBS = 100_000
"""The largest `--jobs` accepted (the paper: 5000; a run's time grows with its jobs)."""


def _names(text: str) -> list[str]:
    return [s.strip() for s in text.split(",") if s.strip()]


def _matchmaker(text: str) -> str:
    """An argparse `type=` for `--matchmaker`: `global` or `limited:D`."""
    try:
        choices_of(text)
    except InvalidValueError:
        raise argparse.ArgumentTypeError(
            f"must be global or limited:D with D >= 1, got {text!r}"
        ) from None
    return text


def _readings(text: str) -> tuple[str, ...]:
    """An argparse `type=` for `--readings`: `all`, `none` or reading kinds."""
    if text.strip() == "all":
        return READING_KINDS
    if text.strip() in ("none", ""):
        return ()
    kinds = tuple(_names(text))
    for kind in kinds:
        if kind not in READING_KINDS:
            raise argparse.ArgumentTypeError(
                f"must be all, none or among {','.join(READING_KINDS)}, got {kind!r}"
            )
    return kinds


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `schedlib reproduce preemptive` (the CLI adds `--format`)."""
    parser.add_argument(
        "--nodes", type=count(), default=PAPER_NODES, help="grid nodes (default: 1000)"
    )
    parser.add_argument(
        "--jobs",
        type=count(at_most=MAX_JOBS, why="the paper: 5000; a run's time grows with its jobs"),
        default=5000,
        help="measured jobs (default: 5000, the paper's)",
    )
    parser.add_argument(
        "--iat",
        type=number_list(greater_than=0),
        default=",".join(str(iat) for iat in PAPER_IATS),
        help="mean inter-arrival times in s, comma-separated (default: 1.5,2.0,2.5,3.0,4.0); "
        "the claims name them at the paper's scale, IAT x nodes / 1000",
    )
    parser.add_argument(
        "--delta",
        type=number_list(greater_than=0),
        default="5",
        help="scheduling intervals in s (default: 5)",
    )
    parser.add_argument(
        "--alpha",
        type=number_list(at_least=0),
        default="0,0.5",
        help="wait weights (default: 0,0.5)",
    )
    parser.add_argument(
        "--beta", type=number(at_least=0), default=1.0, help="remaining-time weight (default: 1)"
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
    readings = parser.add_argument_group(
        "readings of the set-up",
        "Choices the paper leaves open (the defaults are argued on the reproduction page); "
        "the claims are also judged under each reading that differs from the given one in "
        "one choice (--readings).",
    )
    readings.add_argument(
        "--sizes",
        choices=tuple(JOB_SIZES),
        default=DEFAULT_READING.sizes,
        help="job sizes: small (one core, memory and disk half the skewed ones; default: the "
        "paper's grid is neither highly overloaded nor underutilized, §6.1) or skewed (1/2/4/8 "
        "cores at 40/30/20/10 %%, like the nodes)",
    )
    readings.add_argument(
        "--matchmaker",
        type=_matchmaker,
        default=DEFAULT_READING.matchmaker,
        metavar="{global,limited:D}",
        help="where an arriving job goes: global (the least loaded suitable node of the grid; "
        "default) or limited:D (the less loaded of D suitable nodes drawn at random, a "
        f"stand-in for the paper's decentralized CAN matchmaking; the readings use "
        f"D = {LIMITED_CHOICES})",
    )
    readings.add_argument(
        "--warm-up",
        choices=WARM_UPS,
        default=DEFAULT_READING.warm_up,
        help="preloaded (jobs arrive for 1.5 T = 5400 s before the measured ones, which are "
        "measured in a grid already running; default) or none (an empty grid at the start)",
    )
    readings.add_argument(
        "--push",
        choices=PUSHES,
        default=DEFAULT_READING.push,
        help="a PUSH receiver takes the job if it fits its free resources now (fit, §5.3; "
        "default) or also if its own decision would preempt lower-priority jobs for it "
        "(preempt)",
    )
    readings.add_argument(
        "--readings",
        type=_readings,
        default="all",
        help="which of sizes, matchmaker, warm-up, push to vary one at a time from the "
        "reading given, each judged as a reading of its own (comma-separated, all or none; "
        "default: all)",
    )
    parser.add_argument(
        "--side",
        default=",".join(SIDE_STUDIES),
        help="side studies: delta (2.5 s), alpha1 (alpha 1 at every IAT), alpha-above-1 "
        "(alpha 1.05, 1.25 and 2 at the largest IAT), victims (the other reading of the "
        f"victims); comma-separated, '' for none (default: {','.join(SIDE_STUDIES)})",
    )
    parser.add_argument(
        "--replicates",
        type=count(),
        default=REPLICATES,
        help=f"independent replicates (grid and jobs) of --seed (default: {REPLICATES})",
    )
    parser.add_argument(
        "--seed", type=count(at_least=0), default=0, help="random seed (default: 0)"
    )
    parser.add_argument(
        "--accuracy",
        type=number(greater_than=0, at_most=1),
        default=1.0,
        help="actual runtime in [accuracy*estimate, estimate] (default: 1)",
    )
    parser.add_argument(
        "--overhead",
        type=number(at_least=0),
        default=0.0,
        help="seconds charged at each resume after a preemption (default: 0)",
    )
    add_grid_arguments(parser)
    parser.add_argument(
        "--plot", metavar="FILE", help="also draw the node-wait CDF (replicate 0) to FILE"
    )
    add_claims_argument(parser)
    add_quick_argument(
        parser,
        # the paper's loads at IAT 1.5, 2.5 and 4.0 on a tenth of the grid; the default
        # reading only
        {
            "nodes": 100,
            "jobs": 500,
            "iat": "15,25,40",
            "replicates": 6,
            "readings": "none",
        },
        full_time="1 hour on 2 free cores (2 CPU-hours)",
        quick_time="30 s",
    )


def _reading(args: argparse.Namespace) -> Reading:
    return Reading(args.sizes, args.matchmaker, args.warm_up, args.push)


def _runs(args: argparse.Namespace) -> Any:
    return design(
        iats=list(args.iat),
        deltas=list(args.delta),
        alphas=list(args.alpha),
        schedulers=_names(args.schedulers),
        side=_names(args.side),
        reading=_reading(args),
        readings=list(args.readings),
        **passed_on(
            args, "nodes", "jobs", "victims", "replicates", "seed", "beta", "accuracy", "overhead"
        ),
    )


def _scale(args: argparse.Namespace) -> str:
    """The IATs at the paper's scale (as the claims and tables name them), and as run.

    Examples
    --------
    >>> _scale(argparse.Namespace(iat=[15.0, 25.0, 40.0], nodes=100))
    "IAT 1.5, 2.5, 4 s at the paper's scale (15, 25, 40 s on 100 nodes)"
    """
    iats = ", ".join(f"{i:g}" for i in args.iat)
    if args.nodes == PAPER_NODES:
        return f"IAT {iats} s"
    paper = ", ".join(f"{i * args.nodes / PAPER_NODES:g}" for i in args.iat)
    return f"IAT {paper} s at the paper's scale ({iats} s on {args.nodes} nodes)"


def _loads(args: argparse.Namespace, reading: Reading) -> str:
    """The offered load per resource kind (mean over replicates) at the smallest -> the
    largest IAT, under `reading`'s job sizes."""
    iats = list(args.iat)
    loads = []
    for iat in (min(iats), max(iats)):
        per_replicate = [
            offered_loads(
                make_jobs(args.jobs, iat, seed=args.seed, replicate=r, accuracy=args.accuracy,
                          sizes=reading.sizes),
                make_nodes(args.nodes, seed=args.seed, replicate=r),
            )
            for r in range(args.replicates)
        ]  # fmt: skip
        loads.append([_mean([x[k] for x in per_replicate]) for k in range(len(KINDS))])
    return ", ".join(
        f"{kind} {loads[0][k]:.2f} → {loads[-1][k]:.2f}" for k, kind in enumerate(KINDS)
    )


def data(args: argparse.Namespace) -> str:
    """The data of a run: the synthetic grid and jobs, the reading, the offered load per
    resource kind (of the reading and of each other reading whose jobs differ) and the
    replicates."""
    reading = _reading(args)
    shown = ""
    if list(args.iat):
        shown = (
            f"; offered load (fraction of capacity, smallest → largest IAT) {_loads(args, reading)}"
        )
    others = reading.variations(list(args.readings))
    also = ""
    if others:
        loads = [f"{name}: {_loads(args, other)}" for name, other in others
                 if other.sizes != reading.sizes and list(args.iat)]  # fmt: skip
        same = " (the others offer the same load)" if loads else ""
        also = f"; also the readings {', '.join(name for name, _ in others)}" + (
            f", offered load under {'; '.join(loads)}{same}" if loads else ""
        )
    return (
        f"synthetic grid and jobs (§6.1, our numbers): {args.nodes} nodes, {args.jobs} "
        f"measured jobs per {_scale(args)}; {reading.describe()}{shown}; {args.replicates} "
        f"replicates of seed {args.seed}{also}"
    )


def rows(args: argparse.Namespace, execution: Execution | None = None) -> list[dict[str, Any]]:
    """The reproduction's rows for parsed options (no printing, no plot), run where
    `execution` says (default: local processes, `--workers`)."""
    where = execution or Execution(workers=getattr(args, "workers", None))
    return sweep(_runs(args), where)


_SHOWN = ("reading", "study", "scheduler", "replicate", "iat", "paper_iat", "delta", "alpha",
          "victims", *_NUMBERS, "digest")  # fmt: skip


def _shown(found: Rows, args: argparse.Namespace) -> Rows:
    if args.format == "table":
        return aggregate(found)
    return [{k: r[k] for k in _SHOWN} for r in found]


def main(args: argparse.Namespace) -> int:
    """Run the design; print one row per configuration and replicate (JSON, CSV) or the means
    over replicates (table), then the claims."""
    return run_command(args, rows, claims, name=NAME, figures={"plot": plot}, shown=_shown)
