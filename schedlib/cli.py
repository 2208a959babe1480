"""The `schedlib` command.

```text
schedlib compare [--workload FILE.swf[.gz]] [--format table|json|csv]
schedlib run --policy easy [--workload FILE] [--output jobs.csv|jobs.json]
schedlib reproduce {pgs,preemptive,deferment,frequency} [options]
```

Exit codes: 0 success, 1 an unexpected internal error, 2 bad input (bad
arguments, unreadable or malformed files; one line on standard error, no
traceback), 130 interrupted. Results go to standard output, progress bars and
errors to standard error; progress bars appear only on a terminal.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from schedlib import __version__
from schedlib.errors import SchedlibError
from schedlib.experiments import REPRODUCTIONS
from schedlib.results.tables import FORMATS, render, render_by

__all__ = ["build_parser", "main"]

PROG = "schedlib"


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _add_workload_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--workload",
        metavar="FILE",
        help="SWF trace (.swf or .swf.gz); default: the embedded SDSC-SP2 slice",
    )
    parser.add_argument(
        "--processors",
        type=_positive_int,
        metavar="N",
        help="machine size; default: the trace header's MaxProcs (else MaxNodes)",
    )
    parser.add_argument(
        "--over-limit",
        choices=("kill", "extend"),
        default="kill",
        help="jobs whose runtime exceeds their request: kill at the limit (default) "
        "or extend the request to the runtime",
    )
    parser.add_argument(
        "--limit", type=_positive_int, metavar="N", help="use only the first N jobs of the trace"
    )


def _add_format_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format", choices=FORMATS, default="table", help="output format (default: table)"
    )


def _load(args: argparse.Namespace) -> Any:
    from schedlib.workloads import CleaningPolicy, load_workload

    return load_workload(
        Path(args.workload) if args.workload else None,
        processors=args.processors,
        cleaning=CleaningPolicy(over_limit=args.over_limit),
        limit=args.limit,
    )


def _cmd_run(args: argparse.Namespace) -> int:
    from schedlib.experiments.backfilling import run_policy, summary_row

    workload = _load(args)
    record = run_policy(workload, args.policy, show_progress=True)
    if args.output:
        from schedlib.results.export import write_record

        write_record(record, args.output)
    print(render([summary_row(workload, record)], args.format))
    return 0


def _cmd_compare(args: argparse.Namespace) -> int:
    from schedlib.experiments.backfilling import compare

    workload = _load(args)
    rows = compare(workload, show_progress=True)
    print(render_by(rows, "policy") if args.format == "table" else render(rows, args.format))
    return 0


def _reproduction(name: str) -> ModuleType | None:
    try:
        return importlib.import_module(REPRODUCTIONS[name])
    except ModuleNotFoundError as error:
        if error.name == REPRODUCTIONS[name]:
            return None  # not built yet
        raise


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser of the `schedlib` command."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Grid and HPC job-scheduling algorithms: simulate, compare, reproduce.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    compare = commands.add_parser(
        "compare",
        help="run FCFS, EASY and conservative backfilling and print their metrics",
        description="Run FCFS, EASY and conservative backfilling on one workload "
        "(default: the embedded SDSC-SP2 slice) and print one table of their metrics.",
    )
    _add_workload_arguments(compare)
    _add_format_argument(compare)
    compare.set_defaults(handler=_cmd_compare)

    run = commands.add_parser(
        "run",
        help="run one backfilling policy and write per-job records",
        description="Run one backfilling policy on a workload, print its metrics and "
        "optionally write per-job records (Batsim out_jobs.csv layout, or JSON).",
    )
    run.add_argument(
        "--policy",
        choices=("fcfs", "easy", "conservative"),
        default="easy",
        help="backfilling policy (default: easy)",
    )
    _add_workload_arguments(run)
    run.add_argument(
        "--output", "-o", metavar="FILE", help="write per-job records to FILE (.csv or .json)"
    )
    _add_format_argument(run)
    run.set_defaults(handler=_cmd_run)

    reproduce = commands.add_parser(
        "reproduce",
        help="reproduce a paper's experiment",
        description="Reproduce the experiment of one of the papers.",
    )
    experiments = reproduce.add_subparsers(dest="experiment", metavar="EXPERIMENT", required=True)
    for name in REPRODUCTIONS:
        module = _reproduction(name)
        if module is None:
            continue
        sub = experiments.add_parser(name, help=module.SUMMARY, description=module.SUMMARY)
        module.add_arguments(sub)
        _add_format_argument(sub)
        sub.set_defaults(handler=module.main)
    return parser


def _silence_stdout() -> None:
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `schedlib` command; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.handler(args)
        sys.stdout.flush()
        return code
    except BrokenPipeError:  # e.g. `schedlib compare | head -1`
        _silence_stdout()
        return 0
    except (SchedlibError, OSError) as error:
        message = str(error)
        if isinstance(error, OSError) and error.filename is not None and error.strerror:
            message = f"{error.filename}: {error.strerror}"
        print(f"{PROG}: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
