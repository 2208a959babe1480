"""The options of `schedlib run` (and `compare`): the policy, shipped or yours, and the workload.

Defined here, apart from the runs themselves, so that the command line builds
its parser without importing the simulation, and so that a sweep of `run`
checks every configuration with the same parser, and the same checks across
options, before its first run
([`validate_parameters`][schedlib.experiments.catalog.validate_parameters]).

Examples
--------
>>> args = run_parser().parse_args(["--policy", "conservative", "--limit", "100"])
>>> args.policy, args.limit, args.form
('conservative', 100, None)
>>> run_parser().parse_args(["--limit", "0"])
Traceback (most recent call last):
...
argparse.ArgumentError: argument --limit: must be an integer >= 1, got 0
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from schedlib.errors import InvalidValueError
from schedlib.validation import integer, positive_int

__all__ = [
    "POLICIES",
    "add_policy_arguments",
    "add_workload_arguments",
    "check_run_options",
    "check_workload_options",
    "integer",
    "load_policy",
    "policy_argument",
    "positive_int",
    "run_parser",
]

POLICIES = ("fcfs", "easy", "conservative")
"""The shipped backfilling policies (`schedlib.backfill.POLICIES`, without importing it)."""


def load_policy(policy: str, form: str | None = None, *, option: str = "--policy") -> Any:
    """Your scheduler named by `MODULE:FUNCTION` or `path/to/file.py:FUNCTION`, checked against
    its form before any run.

    Raises
    ------
    InvalidValueError
        Naming `option` (and `--form`): not a reference, no such file, module or
        function, an error while importing it, or a signature that does not fit
        the form.

    Examples
    --------
    >>> load_policy("schedlib.backfill:easy").__name__
    'easy'
    >>> load_policy("schedlib.backfill:easy", "schedule")
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: --form = 'schedule': easy takes 1 argument (snapshot); a schedule scheduler takes 2 ((jobs, cluster) -> starts and ends); give --form decide (or plan)
    """  # noqa: E501
    from schedlib.backfill.forms import check_form, form_of
    from schedlib.execution.loading import load_object

    scheduler = load_object(policy, option=option)
    if not callable(scheduler):
        kind = type(scheduler).__name__
        raise InvalidValueError(
            option, policy, f"{policy.rpartition(':')[2]} is a {kind}, not a function"
        )
    check_form(scheduler, form or form_of(scheduler), option="--form")
    return scheduler


def policy_argument(text: str) -> str:
    """An argparse `type=` for `--policy`: a shipped policy, or a reference to yours.

    Examples
    --------
    >>> policy_argument("easy"), policy_argument("mine.py:smallest_first")
    ('easy', 'mine.py:smallest_first')
    >>> policy_argument("sjf")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: 'sjf' is neither fcfs, easy, conservative nor MODULE:FUNCTION / path/to/file.py:FUNCTION (a scheduler of yours)
    """  # noqa: E501
    from schedlib.execution.loading import is_reference

    if text in POLICIES or is_reference(text):
        return text
    raise argparse.ArgumentTypeError(
        f"{text!r} is neither {', '.join(POLICIES[:-1])}, {POLICIES[-1]} nor "
        "MODULE:FUNCTION / path/to/file.py:FUNCTION (a scheduler of yours)"
    )


def add_workload_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that choose and clean the workload (`run`, `compare`, a sweep of `run`)."""
    parser.add_argument(
        "--workload",
        metavar="FILE",
        help="SWF trace (.swf or .swf.gz); default: the embedded SDSC-SP2 slice",
    )
    parser.add_argument(
        "--processors",
        type=positive_int,
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
        "--limit", type=positive_int, metavar="N", help="use only the first N jobs of the trace"
    )
    parser.add_argument(
        "--conventions",
        choices=("instant", "pyss"),
        default="instant",
        help="event order: one scheduling pass per instant (instant, default) or one per "
        "submission and per job end, as the pyss simulator does (pyss)",
    )
    parser.add_argument(
        "--cleaning",
        choices=("default", "pyss"),
        default="default",
        help="trace cleaning rules: ours (default) or the pyss simulator's (pyss; "
        "--over-limit must then stay kill)",
    )


def add_policy_arguments(parser: argparse.ArgumentParser) -> None:
    """`--policy` (shipped, or yours as MODULE:FUNCTION) and `--form`."""
    parser.add_argument(
        "--policy",
        type=policy_argument,
        default="easy",
        metavar="POLICY",
        help="fcfs, easy (default) or conservative, or a scheduler of yours: "
        "MODULE:FUNCTION (a module importable from here) or path/to/file.py:FUNCTION",
    )
    parser.add_argument(
        "--form",
        choices=("decide", "plan", "schedule"),
        help="the form of your scheduler: decide (Snapshot -> Decision, run as EASY-style "
        "passes on schedlib's engine), plan (Plan -> PlanDecision, run as conservative), "
        "schedule ((jobs, cluster) -> starts and ends); default: decide for a function of "
        "one argument, schedule for one of two",
    )


def run_parser() -> argparse.ArgumentParser:
    """The options of `schedlib run` that a sweep of `run` may set, as a parser that raises
    (`exit_on_error=False`) instead of exiting."""
    parser = argparse.ArgumentParser(prog="run", exit_on_error=False, add_help=False)
    add_policy_arguments(parser)
    add_workload_arguments(parser)
    return parser


def check_workload_options(args: argparse.Namespace) -> None:
    """What the parser cannot check alone about the workload options, before any work.

    Raises
    ------
    InvalidValueError
        Naming the option: `--over-limit extend` with `--cleaning pyss`, or a
        `--workload` that is not a file.

    Examples
    --------
    >>> args = run_parser().parse_args(["--cleaning", "pyss", "--over-limit", "extend"])
    >>> check_workload_options(args)
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: --over-limit = 'extend': --cleaning pyss keeps the pyss simulator's rule for jobs over their request (run min(runtime, request), reserve max(runtime, request)): drop --over-limit or --cleaning
    """  # noqa: E501
    if args.cleaning == "pyss" and args.over_limit != "kill":
        raise InvalidValueError(
            "--over-limit",
            args.over_limit,
            "--cleaning pyss keeps the pyss simulator's rule for jobs over their request "
            "(run min(runtime, request), reserve max(runtime, request)): drop --over-limit "
            "or --cleaning",
        )
    if args.workload is not None:
        path = Path(args.workload)
        if not path.is_file():
            why = "a folder, not a file" if path.is_dir() else "no such file"
            raise InvalidValueError("--workload", args.workload, why)


def check_run_options(args: argparse.Namespace) -> None:
    """Everything about `run`'s options the parser cannot check alone, before any work: the
    workload options ([`check_workload_options`][schedlib.experiments.run_options.check_workload_options]),
    and a scheduler of yours, loaded and checked against its form.

    Raises
    ------
    InvalidValueError
        Naming the option: `--form` with a shipped policy, a `--policy` that cannot be
        loaded or does not fit its form, or a workload option above.

    Examples
    --------
    >>> check_run_options(run_parser().parse_args(["--policy", "easy", "--form", "plan"]))
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: --form = 'plan': is for a scheduler of yours; easy is shipped
    """  # noqa: E501
    if args.form is not None and args.policy in POLICIES:
        raise InvalidValueError(
            "--form", args.form, f"is for a scheduler of yours; {args.policy} is shipped"
        )
    check_workload_options(args)
    if args.policy not in POLICIES:
        load_policy(args.policy, args.form)
