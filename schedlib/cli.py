"""The `schedlib` command.

```text
schedlib compare [--workload FILE.swf[.gz]] [--format table|json|csv]
schedlib run --policy easy|MODULE:FUNCTION [--workload FILE] [--output jobs.csv|jobs.json]
schedlib conform MODULE:FUNCTION [--family backfill] [--guarantees easy-head,...]
schedlib reproduce {pgs,preemptive,deferment,frequency,multisite,all} [options]
schedlib check FILE [--processors N] [--policy easy|fcfs] [--format text|json]
schedlib plot FILE [--output FIGURE.png] [--from T] [--to T]
```

Exit codes: 0 success, 1 an unexpected internal error (or, for `check` and
`conform`, a violated invariant), 2 bad input (bad arguments, unreadable or
malformed files, a scheduler of yours that cannot be loaded or fails; one line
on standard error, no traceback; for a bad argument, the line ends by pointing
to `--help`), 130 interrupted. Results go to standard output, progress bars and
errors to standard error; progress bars appear only on a terminal.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

from schedlib import __version__
from schedlib.errors import SchedlibError, SimulationStuckError
from schedlib.execution.cluster import add_where_arguments
from schedlib.experiments import REPRODUCTIONS, reproduction
from schedlib.experiments.run_options import (
    add_policy_arguments,
    add_workload_arguments,
    check_run_options,
    check_workload_options,
    positive_int,
)
from schedlib.results.tables import FORMATS, render, render_by

__all__ = ["build_parser", "main"]

PROG = "schedlib"


class _Parser(argparse.ArgumentParser):
    """argparse, with a bad argument said in one line that names it and points to `--help`."""

    def error(self, message: str) -> NoReturn:
        text = " ".join(message.split())
        self.exit(2, f"{self.prog}: error: {text} (see {self.prog} --help)\n")


def _add_format_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format", choices=FORMATS, default="table", help="output format (default: table)"
    )


def _add_explain_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--explain",
        action="store_true",
        help="after the table, say what each row means (job states, metric formulas)",
    )


def _add_plot_argument(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--plot",
        metavar="FIGURE",
        help=f"also draw {what} to FIGURE (.png, .pdf or .svg; needs the 'plot' extra, "
        "checked before the run)",
    )


def _say_trace(path: str | None) -> None:
    """Name the trace a run reads, with its sha256, and check it against what is known of it
    (the archive's files, the embedded slices, a README.md beside it that gives its sha256)."""
    from schedlib.workloads.provenance import identify

    if path is None:
        from importlib import resources

        from schedlib.workloads.workload import DEFAULT_WORKLOAD_FILE

        embedded = resources.files("schedlib") / "data" / DEFAULT_WORKLOAD_FILE
        with resources.as_file(embedded) as file:
            found = identify(file)
        print(f"{PROG}: workload: the embedded default, {found.line()}", file=sys.stderr)
        return
    found = identify(Path(path).resolve())
    print(f"{PROG}: workload: {found.line()}", file=sys.stderr)
    if (warning := found.warning()) is not None:
        print(f"{PROG}: warning: {warning}", file=sys.stderr)


def _load(args: argparse.Namespace) -> Any:
    """Read the workload; say on standard error what cleaning did and what was assumed."""
    from schedlib.workloads import CleaningPolicy, load_workload
    from schedlib.workloads.cleaning import CLEANINGS

    _say_trace(args.workload)
    workload = load_workload(
        Path(args.workload) if args.workload else None,
        processors=args.processors,
        cleaning=CleaningPolicy(over_limit=args.over_limit, rules=CLEANINGS[args.cleaning]),
        limit=args.limit,
    )
    print(f"{PROG}: {workload.name}: {workload.report.summary()}", file=sys.stderr)
    for warning in workload.warnings():
        print(f"{PROG}: warning: {warning}", file=sys.stderr)
    return workload


def _print_summaries(
    rows: list[dict[str, Any]], args: argparse.Namespace, workload: Any = None
) -> None:
    """Metrics as rows, one column per policy, with units, then what the job counts are
    (table); flat rows otherwise."""
    from schedlib.experiments.backfilling import SUMMARY_CONTEXT, count_notes
    from schedlib.results.metrics import SUMMARY_EXPLAINED, SUMMARY_UNITS

    if args.format != "table":
        print(render(rows, args.format))
        return
    print(render_by(rows, "policy", context=SUMMARY_CONTEXT, units=SUMMARY_UNITS))
    notes = count_notes(workload) if workload is not None else []
    if notes:
        import textwrap

        print("\nwhat the job counts are:")
        for note in notes:
            print(textwrap.fill(note, 78, initial_indent="  ", subsequent_indent="    "))
    if args.explain:
        width = max(len(name) for name in SUMMARY_EXPLAINED)
        print("\nwhat the rows mean (means are over the jobs that ran):")
        for name, meaning in SUMMARY_EXPLAINED.items():
            print(f"  {name:<{width}}  {meaning}")


def _check_plot(args: argparse.Namespace) -> None:
    """Fail at once, before any computation, if `--plot` cannot be honoured."""
    if args.plot:
        from schedlib.results.plotting import check_figure_path, pyplot

        check_figure_path(args.plot, option="--plot")
        pyplot()


def _plot_runs(args: argparse.Namespace, workload: Any, records: dict[str, Any]) -> None:
    from schedlib.results.plotting import plot_runs, plot_schedule, save_figure
    from schedlib.results.schedules import Schedule

    capacity = workload.cluster.processors
    runs = {name: Schedule.from_record(r, workload.name) for name, r in records.items()}
    if len(runs) == 1:
        ((name, run),) = runs.items()
        figure = plot_schedule(run, capacity=capacity, title=f"{name} on {workload.name}")
    else:
        figure = plot_runs(runs, capacity=capacity, title=f"{workload.name}, {capacity} processors")
    print(f"{PROG}: plot written to {save_figure(figure, args.plot)}", file=sys.stderr)


def _cmd_run(args: argparse.Namespace) -> int:
    from schedlib.experiments.backfilling import run_policy, summary_row
    from schedlib.results.export import RECORD_SUFFIXES, check_output_path

    if args.stream:
        check_run_options(args)
        return _run_streamed(args)
    _check_plot(args)
    if args.output:  # before any work: a wrong name or folder fails at once
        check_output_path(args.output, RECORD_SUFFIXES, option="--output")
    check_run_options(args)  # a scheduler of yours is loaded and checked here, before any work
    workload = _load(args)
    record = run_policy(
        workload, args.policy, show_progress=True, conventions=args.conventions, form=args.form
    )
    if args.output:
        from schedlib.results.export import write_record

        write_record(record, args.output, workload_name=workload.name)
        print(
            f"{PROG}: wrote {len(record.outcomes)} jobs to {args.output}",
            file=sys.stderr,
        )
    _print_summaries([summary_row(workload, record)], args, workload)
    if args.plot:
        _plot_runs(args, workload, {record.algorithm: record})
    return 0


def _run_streamed(args: argparse.Namespace) -> int:
    """`run --stream`: the trace read and CSV rows written as the run goes; nothing kept."""
    from schedlib.backfill import schedule_iter
    from schedlib.experiments.backfilling import summary_fields
    from schedlib.experiments.run_options import POLICIES
    from schedlib.results.atomic import atomic_write
    from schedlib.results.export import check_output_path, run_metadata, write_outcomes_csv
    from schedlib.results.metrics import summarize_outcomes
    from schedlib.workloads import CleaningPolicy, stream_workload
    from schedlib.workloads.cleaning import CLEANINGS

    if args.plot:
        raise SchedlibError("--stream keeps no record to plot; drop --plot or --stream")
    if args.policy not in POLICIES:
        raise SchedlibError(
            f"--stream runs the shipped policies only ({', '.join(POLICIES)}); drop --stream "
            f"to run {args.policy}"
        )
    if not args.output or not args.output.lower().endswith(".csv"):
        raise SchedlibError(
            "--stream writes each job's CSV row as the job ends: give --output FILE.csv"
        )
    if CLEANINGS[args.cleaning] != "schedlib":
        raise SchedlibError(
            "--stream cleans the trace as it reads it, by our rules; --cleaning pyss needs "
            "the whole trace: drop one"
        )
    check_output_path(args.output, (".csv",), option="--output")
    _say_trace(args.workload)
    with (
        stream_workload(
            Path(args.workload) if args.workload else None,
            processors=args.processors,
            cleaning=CleaningPolicy(over_limit=args.over_limit),
            limit=args.limit,
        ) as trace,
        atomic_write(Path(args.output)) as target,
    ):
        outcomes = schedule_iter(
            (),
            trace.cluster,
            policy=args.policy,
            mixed=trace.records,
            conventions=args.conventions,
        )
        written = write_outcomes_csv(
            outcomes,
            target,
            workload_name=trace.name,
            metadata=run_metadata(trace.cluster.processors, args.policy),
        )
        summary = summarize_outcomes(
            written, algorithm=args.policy, capacity=trace.cluster.processors
        )
        workload = trace.workload()
    print(f"{PROG}: {workload.name}: {workload.report.summary()}", file=sys.stderr)
    for warning in workload.warnings():
        print(f"{PROG}: warning: {warning}", file=sys.stderr)
    print(f"{PROG}: wrote {summary.jobs} jobs to {args.output}", file=sys.stderr)
    _print_summaries([summary_fields(workload, summary)], args, workload)
    return 0


def _cmd_compare(args: argparse.Namespace) -> int:
    from schedlib.backfill import POLICIES
    from schedlib.experiments.backfilling import run_policy, summary_row

    _check_plot(args)
    check_workload_options(args)
    workload = _load(args)
    records = {
        p: run_policy(workload, p, show_progress=True, conventions=args.conventions)
        for p in POLICIES
    }
    _print_summaries([summary_row(workload, r) for r in records.values()], args, workload)
    if args.plot:
        _plot_runs(args, workload, records)
    return 0


def _cmd_conform(args: argparse.Namespace) -> int:
    """`schedlib conform`: the conformance kit on a scheduler of yours, one line per check."""
    import importlib.util

    from schedlib.errors import InvalidValueError
    from schedlib.testing.conformance import ConformanceError, check_scheduler, checks_for

    if importlib.util.find_spec("hypothesis") is None:
        raise SchedlibError(
            "schedlib conform draws its inputs with hypothesis, which is not installed; "
            "install the 'test' extra: pip install '.[test]' in schedlib's clone"
        )
    scheduler, form, source = _conform_target(args)
    guarantees = [g.strip() for g in (args.guarantees or "").split(",") if g.strip()]
    try:
        chosen = checks_for(scheduler, args.family, guarantees=guarantees, form=form)
    except InvalidValueError as error:
        flag = {"guarantees": "--guarantees", "family": "--family", "form": "--form"}
        raise InvalidValueError(
            flag.get(error.field, error.field), error.value, error.reason
        ) from None
    name = getattr(scheduler, "__name__", str(scheduler))
    seeded = f"seed {args.seed}" if args.seed is not None else "derandomized (--seed to vary)"
    print(
        f"{PROG}: conform {name} ({source}): family {args.family}, "
        f"{len(chosen)} checks, {args.max_examples} examples each, {seeded}",
        file=sys.stderr,
    )
    width = max(len(c.name) for c in chosen)
    failed = []
    for check in chosen:
        try:
            check_scheduler(
                scheduler,
                args.family,
                guarantees=guarantees,
                max_examples=args.max_examples,
                seed=args.seed,
                form=form,
                checks=[check.name],
            )
        except ImportError as error:
            raise SchedlibError(str(error)) from None
        except ConformanceError as error:
            failed.append(check.name)
            print(f"FAIL  {check.name:<{width}}  {error.reason}", flush=True)
            print(f"# counterexample for {check.name}: paste it into a test")
            print(
                "\n".join([*_import_lines(args.scheduler, error.reproduction), error.reproduction])
            )
            print(f"# end of the counterexample for {check.name}", flush=True)
            continue
        print(f"ok    {check.name:<{width}}  {check.asserts}", flush=True)
    passed = len(chosen) - len(failed)
    verdict = f"{passed} of {len(chosen)} checks pass"
    if failed:
        verdict += f"; failed: {', '.join(failed)}"
    print(verdict)
    return 1 if failed else 0


def _conform_target(args: argparse.Namespace) -> tuple[Any, str | None, str]:
    """The scheduler `conform` checks, its form, and where it came from."""
    from schedlib.execution.loading import is_reference, load_object
    from schedlib.experiments.run_options import POLICIES

    if is_reference(args.scheduler):
        scheduler = load_object(args.scheduler, option="SCHEDULER")
        if args.family == "backfill":
            from schedlib.backfill.forms import check_form, form_of

            check_form(scheduler, args.form or form_of(scheduler), option="--form")
        source = args.scheduler.rpartition(":")[0]
        return scheduler, args.form, source
    if args.family == "backfill":
        if args.scheduler not in POLICIES:
            raise SchedlibError(
                f"SCHEDULER = {args.scheduler!r}: expected MODULE:FUNCTION or "
                f"path/to/file.py:FUNCTION, or a shipped policy ({', '.join(POLICIES)})"
            )
        import schedlib.backfill as shipped

        form = args.form or ("plan" if args.scheduler == "conservative" else None)
        return getattr(shipped, args.scheduler), form, "shipped"
    return args.scheduler, args.form, "shipped"  # a policy name the family knows


def _import_lines(reference: str, reproduction: str) -> list[str]:
    """Lines that bind the scheduler under the name the printed counterexample uses."""
    from schedlib.execution.loading import is_reference

    if not is_reference(reference):
        return []
    module, _, name = reference.rpartition(":")
    first = name.split(".")[0]
    lines = []
    if module.endswith(".py") or "/" in module:
        path = Path(module).resolve()
        if path.parent != Path.cwd().resolve():
            lines += ["import sys", f"sys.path.insert(0, {str(path.parent)!r})"]
        module = path.stem
    lines.append(f"from {module} import {first}")
    last = name.split(".")[-1]
    if "." in name and f"{last}" in reproduction:
        lines.append(f"{last} = {name}")
    return lines


_TIME_UNITS = {"s": 1, "min": 60, "h": 3600, "d": 86400}


def _time_argument(text: str) -> tuple[float, str | None]:
    """`--from` / `--to`: a time since the first submission, a number in the unit of the
    run's time axis, or with a unit (90s, 30min, 12h, 3d)."""
    import re

    match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(s|min|h|d)?\s*", text)
    if match is None:
        raise argparse.ArgumentTypeError(
            f"expected a time >= 0, a number or one with a unit (90s, 30min, 12h, 3d), got {text!r}"
        )
    return float(match.group(1)), match.group(2)


def _plot_window(args: argparse.Namespace, schedule: Any) -> tuple[float, float] | None:
    """The window `--from` / `--to` choose, in the file's time, or `None` for the default."""
    from schedlib.errors import InvalidValueError
    from schedlib.results.plotting import TimeAxis, run_span

    if args.start is None and args.end is None:
        return None
    origin, last = run_span(schedule)
    axis = TimeAxis.of([origin, last], origin)

    def seconds(given: tuple[float, str | None]) -> float:
        value, unit = given
        return value * (_TIME_UNITS[unit] if unit else axis.scale)

    low = seconds(args.start) if args.start is not None else 0.0
    high = seconds(args.end) if args.end is not None else last - origin
    length = f"the run lasts {axis.at(last):.4g} {axis.unit} from its first submission"
    if args.start is not None and low >= last - origin:
        raise InvalidValueError("--from", _shown(args.start), f"after the run's end ({length})")
    if high <= low:
        raise InvalidValueError(
            "--to",
            _shown(args.end),
            f"must be later than --from {_shown(args.start)}"
            if args.start is not None
            else f"must be > 0 ({length})",
        )
    return origin + low, origin + high


def _shown(given: tuple[float, str | None] | None) -> str:
    if given is None:
        return "0"
    value, unit = given
    return f"{value:g}{unit or ''}"


def _cmd_plot(args: argparse.Namespace) -> int:
    from schedlib.errors import InvalidValueError
    from schedlib.results.plotting import check_figure_path, pyplot, save_figure

    pyplot()  # matplotlib missing: say so before reading anything
    source = Path(args.file)
    if args.output:
        target = check_figure_path(args.output, option="--output")
    else:
        target = check_figure_path(
            source.with_name(source.name.split(".")[0] + ".png"), option="the figure (--output)"
        )
    if _is_sweep_file(source):
        from schedlib.execution.sweep import read_sweep
        from schedlib.results.metrics import SUMMARY_UNITS
        from schedlib.results.plotting import plot_sweep

        if args.start is not None or args.end is not None:
            raise SchedlibError("--from and --to choose a window of a run's plot, not a sweep's")
        try:
            results = read_sweep(source)
        except UnicodeDecodeError:
            raise SchedlibError(f"{source}: not a text file (not UTF-8)") from None
        try:
            figure = plot_sweep(
                list(results.results.values()),
                x=args.x,
                metrics=args.metric or (),
                units=SUMMARY_UNITS,
                title=str(source),
            )
        except InvalidValueError as error:  # the library's parameters are the command's flags
            flag = {"x": "--x", "metric": "--metric"}.get(error.field, error.field)
            raise InvalidValueError(flag, error.value, error.reason) from None
    else:
        from schedlib.results.plotting import TimeAxis, default_window, plot_schedule, run_span
        from schedlib.results.schedules import read_schedule

        for flag, given in (("--x", args.x), ("--metric", args.metric)):
            if given:
                raise SchedlibError(f"{flag} is for a sweep's plot; {source} is a run")
        schedule = read_schedule(source)
        capacity = args.processors or schedule.capacity
        if capacity is None:
            capacity = max(
                [j.allocation[-1] + 1 for j in schedule.jobs if j.allocation]
                + [j.procs for j in schedule.jobs]
                + [1]
            )
            print(
                f"{PROG}: warning: {source} does not say the machine size; assumed {capacity} "
                "processors (the highest processor used); give --processors N",
                file=sys.stderr,
            )
        window = _plot_window(args, schedule)
        figure = plot_schedule(schedule, capacity=capacity, log_wait=args.log_wait, window=window)
        whole = run_span(schedule)
        shown = window or default_window(schedule)
        if shown != whole:
            axis = TimeAxis.of(list(whole), whole[0])
            print(
                f"{PROG}: the Gantt chart shows {axis.at(shown[0]):.4g} to "
                f"{axis.at(shown[1]):.4g} {axis.unit} of the run's {axis.at(whole[1]):.4g} "
                f"{axis.unit}; choose another window with --from/--to (numbers in "
                f"{axis.unit}, or with a unit: 90min, 12h, 3d)",
                file=sys.stderr,
            )
    print(save_figure(figure, target))
    return 0


def _is_sweep_file(path: Path) -> bool:
    """A sweep's JSON lines (`.jsonl`, or a first line with a `configuration`)."""
    import json

    if path.suffix.lower() == ".jsonl":
        return True
    if path.suffix.lower() != ".json":
        return False
    with path.open(encoding="utf-8", errors="replace") as stream:
        first = stream.readline()
    try:
        return isinstance(entry := json.loads(first), dict) and "configuration" in entry
    except json.JSONDecodeError:
        return False


def _cmd_check(args: argparse.Namespace) -> int:
    import json

    from schedlib.results.schedules import read_schedule, read_up_times
    from schedlib.testing.invariants.schedules import check_report

    schedule = read_schedule(args.file)
    up = read_up_times(args.within_uptime) if args.within_uptime else None
    if not schedule.jobs:
        raise SchedlibError(f"{args.file}: no jobs: nothing to check")
    capacity = args.processors or schedule.capacity
    if capacity is None:
        raise SchedlibError(
            f"{args.file}: the file does not say the machine size; give --processors N"
        )
    if args.policy == "easy" and all(
        j.requested_time is None for j in schedule.jobs if j.start is not None
    ):
        raise SchedlibError(
            f"{args.file}: no job has a requested time (CSV column requested_time, SWF field "
            "9): --policy easy needs it to compute shadow times"
        )
    report = check_report(
        schedule,
        capacity=capacity,
        policy=args.policy,
        no_overtaking=args.no_overtaking,
        up=up,
        order=args.event_order,
    )
    for note in report.notes:
        print(f"{PROG}: warning: {note}", file=sys.stderr)
    if args.format == "json":
        print(json.dumps(report.as_dict(), indent=1))
    else:
        print("\n".join(report.lines()))
    return 0 if report.ok else 1


def _cmd_sweep(args: argparse.Namespace) -> int:
    import attrs

    from schedlib.execution.config import read_sweep_config
    from schedlib.execution.sweep import configurations, sweep
    from schedlib.experiments.catalog import draws_at_random, experiment

    config = read_sweep_config(args.config)
    run = experiment(config.experiment)
    if not draws_at_random(config.experiment) and len(config.seeds) > 1:
        print(
            f"{PROG}: {config.experiment} draws nothing at random: its {len(config.seeds)} "
            f"seeds would give identical runs, so each configuration runs once, with seed "
            f"{config.seeds[0]}",
            file=sys.stderr,
        )
        config = attrs.evolve(config, seeds=config.seeds[:1])
    todo = configurations(config.grid, seeds=config.seeds, fixed=config.fixed)
    _check_sweep(config, todo, args.config)
    output = args.output or config.output
    done = _sweep_output(output, todo, resume=args.resume)
    where = output or "no output file"
    left = f"{len(todo) - done} to run, {done} already in {output}" if done else "all to run"
    print(
        f"{PROG}: sweep of {config.experiment}: {len(todo)} runs ({left}) -> {where}",
        file=sys.stderr,
    )
    try:
        from schedlib.execution.cluster import executor as cluster_executor

        with cluster_executor(args.scheduler, args.dask_local) as executor:
            rows = sweep(
                config.grid,
                run,
                seeds=config.seeds,
                fixed=config.fixed,
                executor=executor,
                workers=args.workers,
                output=output,
                resume=args.resume,
                progress=True,
            )
    except KeyboardInterrupt:
        if output is None:
            print(f"{PROG}: interrupted (no output file: nothing was kept)", file=sys.stderr)
        else:
            kept = _sweep_output(output, todo, resume=True, quiet=True)
            print(
                f"{PROG}: interrupted: {kept} of {len(todo)} runs are in {output}; run the same "
                "command with --resume to continue",
                file=sys.stderr,
            )
        return 130
    print(render(rows, args.format))
    return 0


def _check_sweep(config: Any, todo: list[dict[str, Any]], source: str) -> None:
    """Every configuration of the sweep is accepted by its experiment, before any run: each
    fixed option first, then each value of each grid key (with the other keys at their first
    values), each named by its TOML key, then every combination."""
    from schedlib.errors import InvalidValueError
    from schedlib.experiments.catalog import validate_parameters

    def check(parameters: dict[str, Any], where: str) -> None:
        try:
            validate_parameters(config.experiment, parameters)
        except InvalidValueError as error:
            said = error.reason if error.field.startswith("parameters of") else str(error)
            raise SchedlibError(f"{source}: {where}: {said}") from None

    for key, value in config.fixed.items():
        check({key: value}, f"fixed.{key} = {value!r}")
    first = {k: values[0] for k, values in config.grid.items()}
    for key, values in config.grid.items():
        for value in values:
            check({**config.fixed, **first, key: value}, f"grid.{key} = {value!r}")
    seen: set[str] = set()
    for configuration in todo:
        point = {k: v for k, v in configuration.items() if k != "seed"}
        key = repr(sorted(point.items()))
        if key not in seen:
            seen.add(key)
            swept = ", ".join(f"{k} = {point[k]!r}" for k in config.grid)
            check(point, f"the combination {swept}")


def _sweep_output(
    output: str | None, todo: list[dict[str, Any]], *, resume: bool, quiet: bool = False
) -> int:
    """Check the output file before any run; how many of the sweep's runs it holds already.

    Refuses, in the command line's words, a file that exists without `--resume`, `--resume`
    without a file, and a file in a folder that does not exist.
    """
    from schedlib.execution.sweep import already_done, read_sweep
    from schedlib.results.export import check_output_path

    if output is None:
        if resume:
            raise SchedlibError("--resume needs an output file: give --output FILE.jsonl")
        return 0
    path = check_output_path(output, (".jsonl", ".json"), option="--output")
    exists = path.exists() and path.stat().st_size > 0
    if exists and not resume:
        raise SchedlibError(
            f"{output} exists already: run the same command with --resume to continue that "
            "sweep, or remove the file to start again"
        )
    if not exists:
        return 0
    done = len(already_done(read_sweep(path), todo))
    if not quiet and resume:
        print(f"{PROG}: resuming: {done} of {len(todo)} runs are in {output}", file=sys.stderr)
    return done


def _reproduction(name: str) -> ModuleType | None:
    try:
        return reproduction(name)
    except ModuleNotFoundError as error:
        if error.name == REPRODUCTIONS[name]:
            return None  # not built yet
        raise


def _command_of(argv: Sequence[str]) -> str | None:
    """The subcommand named on a command line (the top level takes no option values)."""
    return next((word for word in argv if not word.startswith("-")), None)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """Build the argument parser of the `schedlib` command.

    With `argv`, the command line it will parse, the experiments of
    `reproduce` (each imports its reproduction, which is slow) are set up
    only when that command line may need them: no subcommand, or `reproduce`.
    """
    parser = _Parser(
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
    add_workload_arguments(compare)
    _add_format_argument(compare)
    _add_explain_argument(compare)
    _add_plot_argument(compare, "utilisation, queue length and wait CDF of each policy")
    compare.set_defaults(handler=_cmd_compare)

    run = commands.add_parser(
        "run",
        help="run one backfilling policy, shipped or yours, and write per-job records",
        description="Run one backfilling policy on a workload, print its metrics and "
        "optionally write per-job records (Batsim out_jobs.csv layout, or JSON). The policy "
        "is fcfs, easy or conservative, or a scheduler of yours given as MODULE:FUNCTION or "
        "path/to/file.py:FUNCTION, in any form the conformance kit accepts (--form).",
    )
    add_policy_arguments(run)
    add_workload_arguments(run)
    run.add_argument(
        "--output", "-o", metavar="FILE", help="write per-job records to FILE (.csv or .json)"
    )
    run.add_argument(
        "--stream",
        action="store_true",
        help="read the trace and write each job's CSV row as the run goes, keeping neither "
        "the jobs, the log nor the outcomes: flat memory for traces of any length (rows in "
        "end order; needs --output FILE.csv, a trace in arrival order with its machine size "
        "in the header or --processors, and the default cleaning; no progress bar; the "
        "exact median wait keeps 8 bytes a job in a temporary file)",
    )
    _add_format_argument(run)
    _add_explain_argument(run)
    _add_plot_argument(run, "Gantt chart, utilisation, queue length and wait CDF")
    run.set_defaults(handler=_cmd_run)

    check = commands.add_parser(
        "check",
        help="check a schedule from any scheduler (per-job CSV, JSON or SWF) for violations",
        description="Check a finished schedule, from schedlib or any other scheduler: a per-job "
        "CSV in Batsim's out_jobs.csv layout, schedlib's JSON output, or an SWF trace (start = "
        "submit + wait). Always checked: each job once, never started before its submission, "
        "ended after its start, no processor used twice at once nor beyond the machine. Prints "
        "each violation (the first 20, then a count per kind) and a summary line; exits 1 if "
        "any invariant fails, 0 if none, 2 if the file cannot be read.",
    )
    check.add_argument("file", metavar="FILE", help="the schedule (.csv[.gz], .json, .swf[.gz])")
    check.add_argument(
        "--processors",
        type=positive_int,
        metavar="N",
        help="machine size (default: the SWF header's MaxProcs, what schedlib's JSON or CSV "
        "says; needed for another scheduler's CSV)",
    )
    check.add_argument(
        "--policy",
        choices=("easy", "fcfs"),
        help="also check the policy's promise: easy, the first waiting job never starts later "
        "than its shadow time (the earliest time it would fit if the running jobs ended at "
        "their start + requested time), computed at the end of every instant and before every "
        "backfill; fcfs, no job starts before an earlier-submitted one",
    )
    check.add_argument(
        "--event-order",
        choices=("any", "fixed"),
        default="any",
        help="for --policy easy, the order in which the scheduler saw the events of one instant "
        "(the file does not say): any (default), the schedule passes if some order explains it "
        "-- the jobs ending and arriving at one instant seen one at a time in any order, with a "
        "scheduling pass after each, as most simulators do; fixed, one pass that has seen every "
        "end and arrival of the instant (stricter)",
    )
    check.add_argument(
        "--no-overtaking",
        action="store_true",
        help="also check that no job finishes before a smaller job submitted earlier "
        "(size: processors x execution time)",
    )
    check.add_argument(
        "--within-uptime",
        metavar="FILE",
        help="also check that every job ends by its processors' planned down time; FILE is a "
        "CSV with the header processor,start,planned_end (one row per up period)",
    )
    check.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default: text)"
    )
    check.set_defaults(handler=_cmd_check)

    conform = commands.add_parser(
        "conform",
        help="check a scheduler of yours with the conformance kit, one line per check",
        description="Run the conformance kit on a scheduler of yours: every basic check of "
        "its family and the guarantees it claims, each as a property over generated inputs "
        "(hypothesis; needs the 'test' extra). Prints one line per check; for a failure, the "
        "smallest input found, as Python that rebuilds it and re-runs the check (paste it "
        "into a test). Exits 0 when every check passes, 1 when one fails, 2 for bad input.",
    )
    conform.add_argument(
        "scheduler",
        metavar="SCHEDULER",
        help="MODULE:FUNCTION or path/to/file.py:FUNCTION (or a shipped policy's name)",
    )
    conform.add_argument(
        "--family",
        default="backfill",
        help="the family whose checks apply (default: backfill; also availability, "
        "preemption, deferment, frequency, multisite)",
    )
    conform.add_argument(
        "--form",
        help="the scheduler's form when its signature does not say (backfill: decide, plan "
        "or schedule)",
    )
    conform.add_argument(
        "--guarantees",
        metavar="NAME,...",
        help="the guarantees it claims beyond the basics, comma-separated (backfill: "
        "kill-at-limit, fcfs-order, easy-head, conservative-reservations, no-starvation)",
    )
    conform.add_argument(
        "--max-examples",
        type=positive_int,
        default=50,
        metavar="N",
        help="inputs tried per check (default: 50)",
    )
    conform.add_argument(
        "--seed",
        type=int,
        metavar="S",
        help="vary the inputs with this seed (default: the same inputs every time)",
    )
    conform.set_defaults(handler=_cmd_conform)

    plot = commands.add_parser(
        "plot",
        help="plot a run (Gantt, utilisation, queue, wait CDF) or a sweep's metrics",
        description="Plot a run's per-job records (CSV in Batsim's layout, or schedlib's JSON): "
        "a Gantt chart per processor over a window where each job can be seen (--from/--to "
        "to choose it), utilisation and queue length over the whole run (rolling means when "
        "it is long, their window in the titles), with times from the first submission in "
        "s, min, h or d, and the CDF of the wait times; titled with the "
        "policy and workload when the file says them. Or plot a sweep's output (JSON lines "
        "from schedlib sweep): a metric "
        "against a swept parameter, one line per combination of the other swept parameters and "
        "of the rows' labels (e.g. a reproduction's scheduler and scenario), error bars of one "
        "standard deviation over the seeds only. Needs the 'plot' extra (matplotlib). Prints "
        "the path of the figure written.",
    )
    plot.add_argument("file", metavar="FILE", help="a run's .csv/.json, or a sweep's .jsonl")
    plot.add_argument(
        "--output",
        "-o",
        metavar="FIGURE",
        help="the figure (.png, .pdf, .svg); default: FILE's name with .png",
    )
    plot.add_argument(
        "--processors",
        type=positive_int,
        metavar="N",
        help="machine size of a run (default: what schedlib's JSON or CSV says, else the "
        "highest processor used, with a warning)",
    )
    plot.add_argument(
        "--from",
        dest="start",
        type=_time_argument,
        metavar="T",
        help="run: show the run from T on, counted from the first submission: a number in the "
        "unit of the run's time axis (the command says which), or with a unit: 90s, 30min, "
        "12h, 3d (default: the Gantt chart shows the run until the start of its 500th job, "
        "utilisation and queue length the whole run, with that window shaded)",
    )
    plot.add_argument(
        "--to",
        dest="end",
        type=_time_argument,
        metavar="T",
        help="run: show the run until T (as --from); with --from or --to, every time panel "
        "shows that window",
    )
    plot.add_argument(
        "--log-wait",
        action="store_true",
        help="run: draw the wait-time CDF on a logarithmic axis (linear below one unit)",
    )
    plot.add_argument(
        "--x",
        metavar="PARAMETER",
        help="sweep: the swept parameter on the horizontal axis (default: the first swept one "
        "whose values are numbers, else the first swept one; a sweep of seeds only is refused)",
    )
    plot.add_argument(
        "--metric",
        action="append",
        metavar="NAME",
        help="sweep: a result to plot, one panel each; repeatable (default: mean_wait)",
    )
    plot.set_defaults(handler=_cmd_plot)

    sweep = commands.add_parser(
        "sweep",
        help="run a parameter grid x seeds of any run or reproduction, resumably",
        description="Run the experiment a TOML file names (run, or reproduce NAME) over its "
        "parameter grid and seeds, on local processes or a dask cluster. Each result is "
        "appended to the output file (JSON lines) as it completes; --resume skips what is "
        "there. The same seeds give the same numbers on any executor.",
    )
    sweep.add_argument("config", metavar="CONFIG.toml", help="the sweep's configuration")
    sweep.add_argument(
        "--output", "-o", metavar="FILE", help="JSON-lines results (default: the config's output)"
    )
    sweep.add_argument("--resume", action="store_true", help="skip the runs already in the output")
    add_where_arguments(sweep, what="the runs")
    _add_format_argument(sweep)
    sweep.set_defaults(handler=_cmd_sweep)

    from schedlib.results.verdicts import rule_text

    verdicts = (
        "Each claim of the paper is printed with the data it was measured on and our estimate "
        "over independent replicates (seed, replicate): "
        + rule_text().removeprefix("rule: ")
        + " With --quick, each verdict is shown beside the documented full-size one."
    )
    reproduce = commands.add_parser(
        "reproduce",
        help="reproduce a paper's experiment",
        description="Reproduce the experiment of one of the papers.",
        epilog=verdicts,
    )
    experiments = reproduce.add_subparsers(dest="experiment", metavar="EXPERIMENT", required=True)
    if argv is not None and _command_of(argv) not in (None, "reproduce"):
        return parser  # another command: no reproduction is imported
    for name in REPRODUCTIONS:
        module = _reproduction(name)
        if module is None:
            continue
        sub = experiments.add_parser(
            name, help=module.SUMMARY, description=module.SUMMARY, epilog=verdicts
        )
        module.add_arguments(sub)
        _add_format_argument(sub)
        sub.set_defaults(handler=module.main)
    from schedlib.experiments import every_paper

    everything = experiments.add_parser(
        "all", help=every_paper.SUMMARY, description=every_paper.SUMMARY, epilog=verdicts
    )
    every_paper.add_arguments(everything)
    _add_format_argument(everything)
    everything.set_defaults(handler=every_paper.main)
    return parser


def _silence_stdout() -> None:
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _show_warning(message: Warning | str, *_: object, **__: object) -> None:
    print(f"{PROG}: warning: {message}", file=sys.stderr)


def _parse(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace:
    """Parse `argv`; an argument no command knows is refused by the command it follows, so
    that the message points to that command's `--help`."""
    args, extra = parser.parse_known_args(argv)
    if extra:
        words = [PROG, getattr(args, "command", None)]
        if args.command == "reproduce":
            words.append(getattr(args, "experiment", None))
        prog = " ".join(w for w in words if w)
        print(
            f"{prog}: error: unrecognized arguments: {' '.join(extra)} (see {prog} --help)",
            file=sys.stderr,
        )
        raise SystemExit(2)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `schedlib` command; returns the exit code."""
    argv = sys.argv[1:] if argv is None else argv
    try:  # building the parser may import every reproduction: Ctrl-C may land here too
        args = _parse(build_parser(argv), argv)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    if hasattr(args, "quick_settings"):  # a reproduction's options, --quick applied
        from schedlib.experiments.options import resolve_quick

        resolve_quick(args)
    try:
        with warnings.catch_warnings():  # a warning of the library: one line, no source line
            warnings.showwarning = _show_warning
            code: int = args.handler(args)
        sys.stdout.flush()
        return code
    except BrokenPipeError:  # e.g. `schedlib compare | head -1`
        _silence_stdout()
        return 0
    except SimulationStuckError as error:  # a shipped model that cannot finish: our fault
        print(f"{PROG}: internal error: {error}", file=sys.stderr)
        return 1
    except (SchedlibError, OSError) as error:
        from schedlib.execution.parallel import RunFailedError  # loaded only when a run fails

        if isinstance(error, RunFailedError):  # one run of a batch: its configuration is named
            print(f"{PROG}: error: {error}", file=sys.stderr)
            return 2 if error.user_error else 1
        message = str(error)
        if isinstance(error, OSError) and error.filename is not None and error.strerror:
            message = f"{error.filename}: {error.strerror}"
        print(f"{PROG}: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as interrupted:  # a grid with --resume says what it kept
        detail = f": {interrupted}" if str(interrupted) else ""
        print(f"{PROG}: interrupted{detail}", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
