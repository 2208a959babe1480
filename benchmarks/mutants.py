"""Mutation audit: one-line mutants applied to a copy of the package, and the tests that kill them.

Each mutant replaces one piece of text (which must occur exactly once) in one
module of a temporary copy of `schedlib`; the named tests then run against the
copy (the copy's folder is the working directory and `PYTHONPATH`, so it is
imported instead of the checkout). A mutant is *killed* when the tests fail (or
time out), and *survives* when they pass. The kill rate is printed at the end;
the Guarantees page of the documentation reports it.

```text
python benchmarks/mutants.py [--only NAME[,NAME...]] [--list] [--timeout 300] [-v]
```

Exit code 1 if a mutant survives or a patch no longer applies (the code moved:
update the mutant).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Mutant:
    """One textual one-line patch and the tests expected to kill it."""

    name: str
    path: str  # relative to the repository root
    old: str
    new: str
    tests: tuple[str, ...]
    note: str


MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "fcfs-requeue-back",
        "schedlib/availability/policies.py",
        'FCFS = MappingPolicy("fcfs", map_fcfs, "front", screen=None)',
        'FCFS = MappingPolicy("fcfs", map_fcfs, "back", screen=None)',
        ("tests/availability/test_volatile_grid.py",),
        "volatile-grid FCFS puts jobs back from a failed resource at the back of the queue",
    ),
    Mutant(
        "victims-never-released",
        "schedlib/preemption/decision.py",
        "            if fits(head.requirement, trial):",
        "            if False:",
        ("tests/preemption/test_decision.py",),
        "preemption keeps every chosen victim, even unneeded ones",
    ),
    Mutant(
        "victim-that-fits-again-stopped",
        "schedlib/preemption/decision.py",
        "            preempted.pop(c.job, None)  # kept running after all",
        "            pass",
        ("tests/preemption/test_decision.py",),
        "a victim that fits again in the final fill is preempted all the same",
    ),
    Mutant(
        "victims-of-higher-priority",
        "schedlib/preemption/decision.py",
        "(c for c in running.values() if c.priority < head.priority)",
        "(c for c in running.values() if c.priority > head.priority)",
        ("tests/preemption/test_decision.py",),
        "a waiting job may preempt running jobs of higher priority",
    ),
    Mutant(
        "no-replica-for-idle-processor",
        "schedlib/deferment/selection.py",
        "        if chosen < 0 and replication and not in_turn:",
        "        if chosen < 0 and replication and not in_turn and False:",
        ("tests/deferment/test_properties.py",),
        "an idle processor gets no replica when no original task is left",
    ),
    Mutant(
        "replicas-before-originals",
        "schedlib/deferment/selection.py",
        "        if chosen < 0 and replication and not in_turn:",
        "        if replication and not in_turn:",
        (
            "tests/deferment/test_properties.py::test_idle_processors_get_originals_then_replicas",
            "tests/deferment/test_replicas.py::"
            "test_every_decision_serves_idle_processors_with_originals_then_replicas",
        ),
        "a replica goes out while a job still has an original that may go out",
    ),
    Mutant(
        "freed-processors-served-by-id",
        "schedlib/deferment/selection.py",
        "    for served, processor in enumerate(idle, 1):",
        "    for served, processor in enumerate(sorted(idle), 1):",
        (
            "tests/deferment/test_serving_order.py::"
            "test_freed_processors_are_served_longest_idle_first",
        ),
        "idle processors are served by id, not in the order they became idle",
    ),
    Mutant(
        "freed-processors-served-last-first",
        "schedlib/deferment/farm.py",
        "FarmState(jobs, (*state.idle, *freed),",
        "FarmState(jobs, (*freed, *state.idle),",
        (
            "tests/deferment/test_serving_order.py::"
            "test_freed_processors_are_served_longest_idle_first",
        ),
        "a processor freed now is served before those idle for longer",
    ),
    Mutant(
        "head-job-reading-ignored",
        "schedlib/deferment/selection.py",
        "    in_turn = replication and replica_order is ReplicaOrder.JOB_ORDER",
        "    in_turn = False",
        ("tests/deferment/test_serving_order.py::test_fifo_in_job_order_runs_one_job_at_a_time",),
        "FIFO in job order hands out a later job's originals before the head job's replicas",
    ),
    Mutant(
        "replica-of-a-finished-task",
        "schedlib/deferment/selection.py",
        "                if progress.running and progress.allocated == len(progress.job.tasks):",
        "                if progress.running and progress.allocated <= len(progress.job.tasks):",
        (
            "tests/deferment/test_replicas.py::"
            "test_every_snapshot_is_served_with_originals_then_replicas",
        ),
        "a job with deferred tasks gets replicas (it still has originals to hand out)",
    ),
    Mutant(
        "easy-extra-ignored",
        "schedlib/backfill/policies.py",
        "        elif procs <= extra:",
        "        elif procs <= free:",
        ("tests/backfill/test_invariants.py",),
        "EASY backfills a long job on processors the head needs",
    ),
    Mutant(
        "easy-window-off-by-one",
        "schedlib/backfill/policies.py",
        "        if job.requested_time <= window:",
        "        if job.requested_time <= window + 1:",
        ("tests/backfill/test_invariants.py",),
        "EASY lets a job end one second after the shadow time",
    ),
    Mutant(
        "pgs-fit-not-strict",
        "schedlib/availability/mapping.py",
        "            if not taken[position] and job.estimate < tls[index]:",
        "            if not taken[position] and job.estimate <= tls[index]:",
        ("tests/availability/test_volatile_grid.py",),
        "PGS hands a job whose estimate equals the time left on the resource",
    ),
    Mutant(
        "priority-sign",
        "schedlib/preemption/priority.py",
        "    return alpha * wait - beta * remaining",
        "    return alpha * wait + beta * remaining",
        ("tests/preemption/test_formulas.py",),
        "the priority favours long jobs",
    ),
    Mutant(
        "phase-order",
        "schedlib/engine/events.py",
        "    COMPLETION = 0",
        "    COMPLETION = 4",
        ("tests/engine/test_engine.py",),
        "completions are handled after arrivals of the same instant",
    ),
    Mutant(
        "volatile-window-default",
        "schedlib/availability/grid.py",
        "        return default_window(len(self.jobs) + count) * max(1, count)",
        "        return default_window(len(self.jobs) + count)",
        ("tests/availability/test_hostile.py",),
        "the volatile grid's livelock window ignores its resources (false livelocks)",
    ),
    Mutant(
        "write-in-place",
        "schedlib/results/export.py",
        "    with atomic_write(target) as stream:",
        '    with target.open("w", encoding="utf-8", newline="") as stream:',
        ("tests/results/test_interrupted.py",),
        "result files are written in place (a kill leaves a truncated file)",
    ),
    Mutant(
        "figure-in-place",
        "schedlib/results/plotting.py",
        "    with atomic_write(target, binary=True) as stream:",
        '    with open(target, "wb") as stream:',
        ("tests/results/test_interrupted.py",),
        "figures are written in place (a crash leaves a truncated image)",
    ),
    Mutant(
        "ctrl-c-traceback",
        "schedlib/cli.py",
        "        return 2\n    except KeyboardInterrupt:",
        "        return 2\n    except ZeroDivisionError:",
        ("tests/results/test_interrupted.py",),
        "Ctrl-C ends the command with a traceback",
    ),
    Mutant(
        "workers-see-ctrl-c",
        "schedlib/execution/parallel.py",
        "    signal.signal(signal.SIGINT, signal.SIG_IGN)",
        "    signal.signal(signal.SIGINT, signal.default_int_handler)",
        ("tests/results/test_interrupted.py",),
        "pool workers take Ctrl-C themselves (tracebacks, or a command that hangs)",
    ),
    Mutant(
        "dead-worker-unnamed",
        "schedlib/execution/parallel.py",
        "            except BrokenExecutor as error:",
        "            except ZeroDivisionError as error:",
        ("tests/results/test_interrupted.py",),
        "a worker that dies outright is reported without the runs it held",
    ),
    Mutant(
        "guard-livelock-off",
        "schedlib/engine/loop.py",
        "                if not progressed and not moved:",
        "                if False:",
        ("tests/engine/test_guard.py",),
        "the livelock rule never trips (only the budget remains)",
    ),
    Mutant(
        "guard-budget-off",
        "schedlib/engine/loop.py",
        "            if handled >= limit:",
        "            if handled > 10 * limit:",
        ("tests/engine/test_guard.py",),
        "the event budget is ten times too large",
    ),
    Mutant(
        "guard-work-not-decreasing",
        "schedlib/engine/loop.py",
        "                moved = value < measure if remaining is not None else value > measure",
        "                moved = value <= measure if remaining is not None else value > measure",
        ("tests/engine/test_guard.py",),
        "constant remaining work counts as progress",
    ),
)


def apply(mutant: Mutant, copy: Path) -> None:
    """Patch the copied module; raise if the text is not found exactly once."""
    target = copy / mutant.path
    text = target.read_text()
    count = text.count(mutant.old)
    if count != 1:
        raise LookupError(f"{mutant.name}: {mutant.old!r} occurs {count} times in {mutant.path}")
    target.write_text(text.replace(mutant.old, mutant.new))


def run(mutant: Mutant, timeout: float, verbose: bool) -> tuple[str, float, str]:
    """Run the mutant's tests on a patched copy: outcome, seconds, the first failing test.

    The outcome is 'killed', 'survived', 'timeout' or an error (the tests did not run).
    """
    with tempfile.TemporaryDirectory(prefix="schedlib-mutant-") as tmp:
        copy = Path(tmp)
        shutil.copytree(ROOT / "schedlib", copy / "schedlib")
        apply(mutant, copy)
        env = {**os.environ, "PYTHONPATH": str(copy), "HYPOTHESIS_PROFILE": "ci"}
        command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:randomly"]
        command += ["-o", "addopts=--import-mode=importlib -p no:cacheprovider"]
        command += ["--rootdir", str(ROOT), "-c", str(ROOT / "pyproject.toml")]
        command += [str(ROOT / t) for t in mutant.tests]
        began = time.perf_counter()
        try:
            done = subprocess.run(
                command, cwd=copy, env=env, capture_output=True, text=True, timeout=timeout
            )
        except subprocess.TimeoutExpired:
            return "timeout", time.perf_counter() - began, ""
        elapsed = time.perf_counter() - began
        if verbose:
            print(done.stdout[-2000:], done.stderr[-1000:], sep="\n")
        failed = next(
            (line.split()[1] for line in done.stdout.splitlines() if line.startswith("FAILED ")),
            "",
        )
        if done.returncode == 0:
            return "survived", elapsed, ""
        if done.returncode != 1:  # 2+: collection or usage error, not a test failure
            return f"error (exit {done.returncode})", elapsed, ""
        return "killed", elapsed, failed.split("/")[-1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated mutant names")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per mutant")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    chosen = MUTANTS
    if args.only:
        names = set(args.only.split(","))
        unknown = names - {m.name for m in MUTANTS}
        if unknown:
            parser.error(f"unknown mutants: {', '.join(sorted(unknown))}")
        chosen = tuple(m for m in MUTANTS if m.name in names)
    if args.list:
        for m in chosen:
            print(f"{m.name:32} {m.path}: {m.note}")
        return 0
    killed = 0
    bad = 0
    for m in chosen:
        try:
            outcome, elapsed, by = run(m, args.timeout, args.verbose)
        except LookupError as error:
            outcome, elapsed, by = f"patch does not apply ({error})", 0.0, ""
        print(f"{m.name:30} {outcome:8} {elapsed:6.1f} s  {m.note}", flush=True)
        if by:
            print(f"{'':30} by {by}", flush=True)
        if outcome in ("killed", "timeout"):
            killed += 1
        else:
            bad += 1
    print(f"kill rate: {killed}/{len(chosen)} ({100 * killed / max(1, len(chosen)):.0f} %)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
