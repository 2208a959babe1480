"""Mutation audit: one-line mutants applied to a copy of the package, and the tests that kill them.

Each mutant replaces one piece of text (which must occur exactly once) in one
module of a temporary copy of `schedlib`; the named tests then run against the
copy (the copy's folder is the working directory and `PYTHONPATH`, so it is
imported instead of the checkout; doctests are not run, so a mutant is never
killed by an incidental example). A mutant is *killed* when the tests fail (or
time out), and *survives* when they pass. A patch that no longer applies (the
code moved), or tests that do not run (collection error, no test selected), is
an *error*: reported loudly, before the long run for a patch, and counted
neither as killed nor as survived. Before any mutant, every test aimed at is run
once on the unpatched package (`--no-baseline` skips it): if one fails there, a
"kill" would prove nothing, and the run stops. The kill rate, per family and overall, is
printed at the end; `--write` keeps the outcomes in `benchmarks/mutants.json`
and regenerates the table of the Guarantees page from them (a test checks that
page, file and list agree).

```text
python benchmarks/mutants.py [--only NAME[,NAME...]] [--family F[,F...]] [--list]
                             [--timeout 300] [--write] [--no-baseline] [-v]
```

Exit code 2 if there is an error, else 1 if a mutant survives, else 0.
"""

from __future__ import annotations

import argparse
import json
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
    family: str  # the row of the Guarantees page's table
    path: str  # relative to the repository root
    old: str
    new: str
    tests: tuple[str, ...]
    note: str


MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "fcfs-requeue-back",
        "availability",
        "schedlib/availability/policies.py",
        'FCFS = MappingPolicy("fcfs", map_fcfs, "front", screen=None)',
        'FCFS = MappingPolicy("fcfs", map_fcfs, "back", screen=None)',
        ("tests/availability/test_volatile_grid.py",),
        "volatile-grid FCFS puts jobs back from a failed resource at the back of the queue",
    ),
    Mutant(
        "victims-never-released",
        "preemption",
        "schedlib/preemption/decision.py",
        "            if fits(head.requirement, trial):",
        "            if False:",
        ("tests/preemption/test_decision.py",),
        "preemption keeps every chosen victim, even unneeded ones",
    ),
    Mutant(
        "victim-that-fits-again-stopped",
        "preemption",
        "schedlib/preemption/decision.py",
        "            preempted.pop(c.job, None)  # kept running after all",
        "            pass",
        ("tests/preemption/test_decision.py",),
        "a victim that fits again in the final fill is preempted all the same",
    ),
    Mutant(
        "victims-of-higher-priority",
        "preemption",
        "schedlib/preemption/decision.py",
        "                if c.priority < head.priority",
        "                if c.priority > head.priority",
        ("tests/preemption/test_decision.py",),
        "a waiting job may preempt running jobs of higher priority",
    ),
    Mutant(
        "no-replica-for-idle-processor",
        "deferment",
        "schedlib/deferment/selection.py",
        "        if chosen < 0 and replication and not in_turn:",
        "        if chosen < 0 and replication and not in_turn and False:",
        ("tests/deferment/test_properties.py",),
        "an idle processor gets no replica when no original task is left",
    ),
    Mutant(
        "replicas-before-originals",
        "deferment",
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
        "deferment",
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
        "deferment",
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
        "deferment",
        "schedlib/deferment/selection.py",
        "    in_turn = replication and replica_order is ReplicaOrder.JOB_ORDER",
        "    in_turn = False",
        ("tests/deferment/test_serving_order.py::test_fifo_in_job_order_runs_one_job_at_a_time",),
        "FIFO in job order hands out a later job's originals before the head job's replicas",
    ),
    Mutant(
        "replica-of-a-finished-task",
        "deferment",
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
        "backfilling",
        "schedlib/backfill/policies.py",
        "        elif procs <= extra:",
        "        elif procs <= free:",
        ("tests/backfill/test_invariants.py",),
        "EASY backfills a long job on processors the head needs",
    ),
    Mutant(
        "easy-window-off-by-one",
        "backfilling",
        "schedlib/backfill/policies.py",
        "        if now + job.requested_time <= shadow:",
        "        if now + job.requested_time <= shadow + 1:",
        ("tests/backfill/test_invariants.py",),
        "EASY lets a job end one second after the shadow time",
    ),
    Mutant(
        "compression-ignores-room-freed-now",
        "backfilling",
        "schedlib/backfill/reservations.py",
        "        lows = [floor if x > floor else x for x in lows]",
        "        lows = list(lows)",
        ("tests/backfill/test_reservations.py",),
        "compression looks only at room freed by earlier passes' moves, not at what came back now",
    ),
    Mutant(
        "compression-forgets-later-moves",
        "backfilling",
        "schedlib/backfill/reservations.py",
        "        self.lows[:] = new_lows",
        "        self.lows[:] = [_INF] * n",
        ("tests/backfill/test_reservations.py",),
        "a job checked before a later move never sees the room that move freed",
    ),
    Mutant(
        "withdrawal-frees-nothing",
        "backfilling",
        "schedlib/backfill/reservations.py",
        "            self.freed(start, end)",
        "            pass",
        ("tests/backfill/test_reservations.py",),
        "a withdrawn reservation's room is given back but no compression follows",
    ),
    Mutant(
        "compression-moved-job-forgets-later-moves",
        "backfilling",
        "schedlib/backfill/reservations.py",
        "                new_lows[k:top] = [low] * (top - k)",
        "                new_lows[k + 1 : top] = [low] * (top - k - 1)",
        ("tests/backfill/test_reservations.py",),
        "a job moved by a compression never sees the room the moves after it freed",
    ),
    Mutant(
        "pgs-fit-not-strict",
        "availability",
        "schedlib/availability/mapping.py",
        "            if not taken[position] and ends[index] + job.estimate < until[index]:",
        "            if not taken[position] and ends[index] + job.estimate <= until[index]:",
        ("tests/availability/test_volatile_grid.py",),
        "PGS hands a job whose estimate equals the time left on the resource",
    ),
    Mutant(
        "priority-sign",
        "preemption",
        "schedlib/preemption/priority.py",
        "    return alpha * wait - beta * remaining",
        "    return alpha * wait + beta * remaining",
        ("tests/preemption/test_formulas.py",),
        "the priority favours long jobs",
    ),
    Mutant(
        "phase-order",
        "engine",
        "schedlib/engine/events.py",
        "    COMPLETION = 0",
        "    COMPLETION = 4",
        ("tests/engine/test_engine.py",),
        "completions are handled after arrivals of the same instant",
    ),
    Mutant(
        "volatile-window-default",
        "availability",
        "schedlib/availability/grid.py",
        "        return default_window(len(self.jobs) + count) * max(1, count)",
        "        return default_window(len(self.jobs) + count)",
        ("tests/availability/test_hostile.py",),
        "the volatile grid's livelock window ignores its resources (false livelocks)",
    ),
    Mutant(
        "write-in-place",
        "results",
        "schedlib/results/export.py",
        "    with atomic_write(target) as stream:",
        '    with target.open("w", encoding="utf-8", newline="") as stream:',
        ("tests/results/test_interrupted.py",),
        "result files are written in place (a kill leaves a truncated file)",
    ),
    Mutant(
        "figure-in-place",
        "results",
        "schedlib/results/plotting.py",
        "    with atomic_write(target, binary=True) as stream:",
        '    with open(target, "wb") as stream:',
        ("tests/results/test_interrupted.py",),
        "figures are written in place (a crash leaves a truncated image)",
    ),
    Mutant(
        "ctrl-c-traceback",
        "results",
        "schedlib/cli.py",
        "        return 2\n    except KeyboardInterrupt as interrupted:",
        "        return 2\n    except ZeroDivisionError as interrupted:",
        ("tests/results/test_interrupted.py",),
        "Ctrl-C ends the command with a traceback",
    ),
    Mutant(
        "workers-see-ctrl-c",
        "results",
        "schedlib/execution/parallel.py",
        "    signal.signal(signal.SIGINT, signal.SIG_IGN)",
        "    signal.signal(signal.SIGINT, signal.default_int_handler)",
        ("tests/results/test_interrupted.py",),
        "pool workers take Ctrl-C themselves (tracebacks, or a command that hangs)",
    ),
    Mutant(
        "stopped-pool-manager-left-running",
        "results",
        "schedlib/execution/parallel.py",
        "        manager.join(timeout=_MANAGER_GRACE)",
        "        pass",
        ("tests/results/test_interrupted.py",),
        "after Ctrl-C the pool's manager thread may close its pipe while Python exits "
        "(an 'Exception ignored' traceback after 'interrupted')",
    ),
    Mutant(
        "dead-worker-unnamed",
        "results",
        "schedlib/execution/parallel.py",
        "            except BrokenExecutor as error:",
        "            except ZeroDivisionError as error:",
        ("tests/results/test_interrupted.py",),
        "a worker that dies outright is reported without the runs it held",
    ),
    Mutant(
        "guard-livelock-off",
        "engine",
        "schedlib/engine/loop.py",
        "        if not progressed and not moved:",
        "        if False:",
        ("tests/engine/test_guard.py",),
        "the livelock rule never trips (only the budget remains)",
    ),
    Mutant(
        "guard-budget-off",
        "engine",
        "schedlib/engine/loop.py",
        "            if handled >= limit:",
        "            if handled > 10 * limit:",
        ("tests/engine/test_guard.py",),
        "the event budget is ten times too large",
    ),
    Mutant(
        "guard-work-not-decreasing",
        "engine",
        "schedlib/engine/loop.py",
        "        moved = value < measure if remaining is not None else value > measure",
        "        moved = value <= measure if remaining is not None else value > measure",
        ("tests/engine/test_guard.py",),
        "constant remaining work counts as progress",
    ),
    # -- the engine guard's bookkeeping (issue 28) -----------------------------------------
    Mutant(
        "guard-progress-never-reset",
        "engine",
        "schedlib/engine/loop.py",
        "                    progressed = False\n",
        "                    pass\n",
        ("tests/engine/test_guard_bookkeeping.py",),
        "progress seen once counts for every later livelock window",
    ),
    Mutant(
        "guard-window-never-advanced",
        "engine",
        "schedlib/engine/loop.py",
        "                    next_window = handled + window",
        "                    next_window = window",
        ("tests/engine/test_guard_bookkeeping.py",),
        "after the first window the livelock rule is checked at every event (idle passes trip it)",
    ),
    Mutant(
        "guard-measure-never-updated",
        "engine",
        "schedlib/engine/loop.py",
        "        self.measure = value",
        "        pass",
        ("tests/engine/test_guard_bookkeeping.py",),
        "remaining work is compared with its value at the start, not at the last check",
    ),
    Mutant(
        "guard-log-position-never-advanced",
        "engine",
        "schedlib/engine/loop.py",
        "                    seen = len(log)",
        "                    seen = 0",
        ("tests/engine/test_guard_bookkeeping.py",),
        "every window re-reads the whole log: one old submission hides a livelock",
    ),
    # -- multi-site decisions (issue 28) ----------------------------------------------------
    Mutant(
        "multisite-admit-tie-drops-ready-copy",
        "multi-site",
        "schedlib/multisite/policies.py",
        '    if best is not None and (best[1] < here or (tie == "drop" and best[1] == here)):',
        '    if best is not None and (best[1] <= here or (tie == "drop" and best[1] == here)):',
        ("tests/multisite/test_decisions.py",),
        "completion-based start: a tie with another copy drops the copy that is ready now",
    ),
    Mutant(
        "multisite-efficacy-lowest-first",
        "multi-site",
        "schedlib/multisite/policies.py",
        '    return (-efficacy if priority == "efficacy" else 0.0, submit, job)',
        '    return (efficacy if priority == "efficacy" else 0.0, submit, job)',
        ("tests/multisite/test_decisions.py",),
        "efficacy queues serve the lowest efficacy first",
    ),
    Mutant(
        "multisite-withdrawal-frees-from-latest",
        "multi-site",
        "schedlib/backfill/reservations.py",
        "        if start < self._floor:",
        "        if self._floor == _INF or start > self._floor:",
        ("tests/multisite/test_decisions.py", "tests/multisite/test_reference.py"),
        "compression after withdrawals starts from the latest withdrawn reservation",
    ),
    Mutant(
        "multisite-cancel-keeps-processors",
        "multi-site",
        "schedlib/multisite/scheduling_pass.py",
        "    site.free = site.free.give_back(ranges)",
        "    pass",
        ("tests/multisite/test_decisions.py", "tests/multisite/test_reference.py"),
        "a running copy stopped for a faster one never gives its processors back",
    ),
    Mutant(
        "multisite-efficacy-over-all-sites",
        "multi-site",
        "schedlib/multisite/model.py",
        "        best = min(exact[s] for s in chosen) if by_efficacy else Fraction(1)",
        "        best = min(exact) if by_efficacy else Fraction(1)",
        ("tests/multisite/test_decisions.py",),
        "the queue's efficacy is relative to every site, not to the sites the job was sent to",
    ),
    Mutant(
        "multisite-load-adds-elapsed-time",
        "multi-site",
        "schedlib/multisite/state.py",
        "            - ((n * self.running_procs) << (k - d.bit_length() + 1))",
        "            + ((n * self.running_procs) << (k - d.bit_length() + 1))",
        ("tests/multisite/test_decisions.py",),
        "instantaneous load counts the running jobs' elapsed time instead of the time left",
    ),
    Mutant(
        "multisite-cancelled-cycles-effective",
        "multi-site",
        "schedlib/multisite/model.py",
        "(self.efficacies[job][site] if completed else 0.0, (end - start) * procs)",
        "(self.efficacies[job][site], (end - start) * procs)",
        ("tests/multisite/test_decisions.py",),
        "a cancelled execution's cycles count in the effective utilisation",
    ),
    # -- frequency decisions (issues 28 and 24) ---------------------------------------------
    Mutant(
        "frequency-pfs-mfs-dispatches-fifo",
        "frequency",
        "schedlib/frequency/policies.py",
        "            dispatch_order=mfs_order if both else fifo_order,",
        "            dispatch_order=fifo_order,",
        ("tests/frequency/",),
        "PFS+MFS serves its run queue first-in first-out instead of by migration frequency",
    ),
    Mutant(
        "frequency-migration-source-keeps-job",
        "frequency",
        "schedlib/frequency/simulation.py",
        "nodes[here] = nodes[here]._replace(resident=nodes[here].resident - 1)",
        "nodes[here] = nodes[here]._replace(resident=nodes[here].resident)",
        ("tests/frequency/",),
        "the node a migration leaves keeps counting the job in its load",
    ),
    Mutant(
        "frequency-landing-counted-twice",
        "frequency",
        "schedlib/frequency/simulation.py",
        "        resident = node.resident if kind == _LAND else node.resident + 1",
        "        resident = node.resident + 1",
        ("tests/frequency/",),
        "a migrated job's landing counts it a second time in its node's load",
    ),
    Mutant(
        "frequency-budget-rounds-down",
        "frequency",
        "schedlib/frequency/simulation.py",
        "            total += 4 + 4 * math.ceil(work / (quantum * rate))",
        "            total += 4 + 4 * math.floor(work / (quantum * rate))",
        ("tests/frequency/",),
        "the pool's event budget rounds the preemptions of a burst down",
    ),
    # -- reading and checking schedules (issue 28) ------------------------------------------
    Mutant(
        "schedule-duration-fallback-off",
        "schedules",
        "schedlib/results/schedules.py",
        "        if end is None and start is not None:",
        "        if end is None and start is None:",
        ("tests/workloads/test_schedule_files.py",),
        "a CSV with execution_time and no finish_time is read as jobs that never ended",
    ),
    Mutant(
        "schedule-duration-as-end",
        "schedules",
        "schedlib/results/schedules.py",
        "            end = None if duration is None else start + duration",
        "            end = None if duration is None else duration",
        ("tests/workloads/test_schedule_files.py",),
        "execution_time is read as the finish time instead of a duration",
    ),
    Mutant(
        "overtaking-at-equal-finish",
        "schedules",
        "schedlib/testing/invariants/schedules.py",
        "            if top[0] > job.end:  # type: ignore[operator]",
        "            if top[0] >= job.end:  # type: ignore[operator]",
        ("tests/workloads/test_schedule_files.py",),
        "a job finishing at the same instant as an earlier smaller one is said to overtake it",
    ),
    # -- the conformance suite's options (issue 28) -----------------------------------------
    Mutant(
        "conformance-withdrawal-always-all",
        "testing kit",
        "schedlib/testing/conformance/families.py",
        'record, cancel=record.parameter("cancel"), estimates=result.estimates',
        'record, cancel="all", estimates=result.estimates',
        ("tests/testing/test_conformance_options.py",),
        "copies-withdrawn checks a cancel-slower policy as if it cancelled every copy",
    ),
    Mutant(
        "conformance-checks-option-ignored",
        "testing kit",
        "schedlib/testing/conformance/__init__.py",
        "        chosen = tuple(c for c in chosen if c.name in wanted)",
        "        chosen = tuple(c for c in chosen)",
        ("tests/testing/test_conformance_options.py",),
        "check_scheduler(checks=...) runs every check anyway",
    ),
    Mutant(
        "conformance-xfail-not-strict",
        "testing kit",
        "schedlib/testing/conformance/__init__.py",
        "pytest.mark.xfail(strict=True, raises=ConformanceError)",
        "pytest.mark.xfail(strict=False, raises=ConformanceError)",
        ("tests/testing/test_conformance_options.py",),
        "an expected failure that passes (XPASS) no longer fails the test",
    ),
    Mutant(
        "conformance-seed-none-random",
        "testing kit",
        "schedlib/testing/conformance/core.py",
        "        derandomize=seed is None,",
        "        derandomize=seed is not None,",
        ("tests/testing/test_conformance_options.py",),
        "seed=None draws different inputs on every run",
    ),
    # -- the pyss cleaning rules (issue 28) -------------------------------------------------
    Mutant(
        "pyss-full-width-capped",
        "workloads",
        "schedlib/workloads/cleaning.py",
        "        if limit is not None and procs > limit:",
        "        if limit is not None and procs >= limit:",
        ("tests/workloads/test_pyss_edges.py",),
        "a job exactly as wide as the machine is counted as narrowed to it",
    ),
    Mutant(
        "pyss-runtime-zero-kept",
        "workloads",
        "schedlib/workloads/cleaning.py",
        "        if runtime <= 0 or allocated <= 0 or submit < 0:",
        "        if runtime < 0 or allocated <= 0 or submit < 0:",
        ("tests/workloads/test_pyss_edges.py",),
        "a record of runtime 0 is not made a 1-second job",
    ),
    # -- round 4 (issue 38): the survivors of an independent audit of code added since ------
    Mutant(
        "explain-backfill-before-zero-length-head",
        "schedules",
        "schedlib/testing/invariants/event_order.py",
        "allowed = f < heads[i][0] and not heads[i][2]",
        "allowed = f < heads[i][0]",
        ("tests/testing/test_explain_instant.py",),
        "the event-order explainer lets a backfill start before a zero-length head",
    ),
    Mutant(
        "explain-promise-strict",
        "schedules",
        "schedlib/testing/invariants/event_order.py",
        "                allowed = lo >= demand",
        "                allowed = lo > demand",
        ("tests/testing/test_explain_instant.py",),
        "the event-order explainer reads EASY's promise L >= D as L > D",
    ),
    Mutant(
        "explain-early-backfill-counted-late",
        "schedules",
        "schedlib/testing/invariants/event_order.py",
        "((i, left_ends, bf_left), f - held, lo + (held if bf_late[g] else 0))",
        "((i, left_ends, bf_left), f - held, lo + held)",
        ("tests/testing/test_explain_instant.py",),
        "a backfill ending before the head's start is counted in L as if it ended after",
    ),
    Mutant(
        "explain-done-before-the-heads",
        "schedules",
        "schedlib/testing/invariants/event_order.py",
        "        if i == n_heads and not any(left_bf):",
        "        if not any(left_bf):",
        ("tests/testing/test_explain_instant.py",),
        "an instant is explained once no backfill is left, though a head cannot start",
    ),
    Mutant(
        "locate-folder-without-the-trace",
        "workloads",
        "schedlib/workloads/locate.py",
        "    if where is not None and (where / info.file).is_file():",
        "    if where is not None:",
        ("tests/workloads/test_locate.py",),
        "a traces folder without the trace gives a missing file, not the embedded slice",
    ),
    Mutant(
        "locate-embedded-limit-off-by-one",
        "workloads",
        "schedlib/workloads/locate.py",
        "    if limit is not None and limit > EMBEDDED_JOBS:",
        "    if limit is not None and limit >= EMBEDDED_JOBS:",
        ("tests/workloads/test_locate.py",),
        "asking an embedded slice for exactly its 5000 records is refused",
    ),
    Mutant(
        "locate-explicit-folder-needs-search",
        "workloads",
        "schedlib/workloads/locate.py",
        "    where = traces_folder(folder) if (search or folder is not None) else None",
        "    where = traces_folder(folder) if search else None",
        ("tests/workloads/test_locate.py",),
        "find_trace(name, folder=DIR, search=False) ignores DIR",
    ),
    Mutant(
        "frequency-dispatch-order-ignores-starts",
        "frequency",
        "schedlib/testing/invariants/frequency.py",
        "        if e.time != now or e.kind is EventKind.START:",
        "        if e.time != now:",
        ("tests/frequency/test_checkers.py",),
        "the dispatch-order checker lets a node start a job while the remote queue still waits",
    ),
    Mutant(
        "pgs-phase2-skips-estimate-equal-to-largest-tl",
        "availability",
        "schedlib/availability/mapping.py",
        "        if estimate <= most:",
        "        if estimate < most:",
        ("tests/availability/test_mapping.py",),
        "PGS phase 2 skips a job whose estimate equals the largest time left, rounded",
    ),
    Mutant(
        "exact-priority-own-slack-only",
        "preemption",
        "schedlib/preemption/priority.py",
        "        slack = self.slack + (other.slack if isinstance(other, ExactPriority) else 0.0)",
        "        slack = self.slack",
        ("tests/preemption/test_formulas.py",),
        "a near tie of two priorities is widened by one operand's slack only",
    ),
    Mutant(
        "multisite-stopped-copy-stays-in-load",
        "multi-site",
        "schedlib/multisite/scheduling_pass.py",
        "    site.running_work.add(-procs, planned_end)",
        "    pass",
        ("tests/multisite/test_decisions.py",),
        "a running copy stopped for a faster one still counts in its site's load",
    ),
    Mutant(
        "multisite-stopped-copy-procs-stay-in-load",
        "multi-site",
        "schedlib/multisite/scheduling_pass.py",
        "    site.running_procs -= procs",
        "    pass",
        ("tests/multisite/test_decisions.py",),
        "a running copy stopped for a faster one keeps its processors in its site's load",
    ),
    Mutant(
        "multisite-efficacy-from-float-products",
        "multi-site",
        "schedlib/multisite/model.py",
        "        exact = self.exact_estimates(job) if by_efficacy else ()",
        "        exact = tuple(Fraction(d) for d in estimates) if by_efficacy else ()",
        ("tests/multisite/test_decisions.py", "tests/multisite/test_reference.py"),
        "efficacy from the float products d * f: equal efficacies ordered by rounding noise",
    ),
)


RESULTS = ROOT / "benchmarks" / "mutants.json"
"""Where `--write` keeps the outcome of every mutant, as last run."""
PAGE = ROOT / "docs" / "background" / "guarantees.md"
"""The page whose kill-rate table `--write` regenerates."""
TABLE_BEGIN = "<!-- mutants-table: generated by benchmarks/mutants.py --write -->"
TABLE_END = "<!-- end of mutants-table -->"
COUNTED = ("killed", "timeout", "survived")
"""Outcomes that count in the kill rate; anything else is an error, reported apart."""


def apply(mutant: Mutant, copy: Path) -> None:
    """Patch the copied module; raise `LookupError` if the text is not found exactly once."""
    target = copy / mutant.path
    text = target.read_text()
    count = text.count(mutant.old)
    if count != 1:
        raise LookupError(f"{mutant.old!r} occurs {count} times in {mutant.path}")
    target.write_text(text.replace(mutant.old, mutant.new))


def stale(mutants: tuple[Mutant, ...]) -> dict[str, str]:
    """The mutants whose patch no longer applies to the checkout, with the reason."""
    out = {}
    for m in mutants:
        count = (ROOT / m.path).read_text().count(m.old) if (ROOT / m.path).exists() else 0
        if count != 1:
            out[m.name] = f"patch does not apply: {m.old!r} occurs {count} times in {m.path}"
    return out


def _pytest(
    copy: Path, tests: tuple[str, ...], timeout: float, verbose: bool
) -> tuple[int | None, str, float]:
    """Run `tests` against the package copied in `copy`: exit code (`None`: timeout), the
    first failing test, seconds."""
    env = {**os.environ, "PYTHONPATH": str(copy), "HYPOTHESIS_PROFILE": "ci"}
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:randomly"]
    command += ["-o", "addopts=--import-mode=importlib -p no:cacheprovider"]
    command += ["--rootdir", str(ROOT), "-c", str(ROOT / "pyproject.toml")]
    command += [str(ROOT / t) for t in tests]
    began = time.perf_counter()
    try:
        done = subprocess.run(
            command, cwd=copy, env=env, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return None, "", time.perf_counter() - began
    elapsed = time.perf_counter() - began
    if verbose:
        print(done.stdout[-2000:], done.stderr[-1000:], sep="\n")
    failed = next(
        (line.split()[1] for line in done.stdout.splitlines() if line.startswith("FAILED ")),
        "",
    )
    if done.returncode not in (0, 1) or (done.returncode == 1 and not failed):
        last = (done.stdout.strip().splitlines() or [""])[-1]
        failed = f"pytest exit {done.returncode} ({last})"
    return done.returncode, failed, elapsed


def run(mutant: Mutant, timeout: float, verbose: bool) -> tuple[str, float, str]:
    """Run the mutant's tests on a patched copy: outcome, seconds, the first failing test.

    The outcome is 'killed', 'survived', 'timeout' (counted as killed: the
    tests noticed), or 'error: ...' when the tests did not run (the patch does
    not apply, collection failed, no test was selected): an error is not
    counted either way.
    """
    with tempfile.TemporaryDirectory(prefix="schedlib-mutant-") as tmp:
        copy = Path(tmp)
        shutil.copytree(ROOT / "schedlib", copy / "schedlib")
        try:
            apply(mutant, copy)
        except LookupError as error:
            return f"error: patch does not apply ({error})", 0.0, ""
        code, failed, elapsed = _pytest(copy, mutant.tests, timeout, verbose)
    if code is None:
        return "timeout", elapsed, ""
    if code == 0:
        return "survived", elapsed, ""
    if code != 1 or failed.startswith("pytest exit"):  # a collection or usage error
        return f"error: {failed}", elapsed, ""
    return "killed", elapsed, failed.split("/")[-1]


def baseline(mutants: tuple[Mutant, ...], timeout: float, verbose: bool) -> str:
    """Run every test the mutants aim at on the unpatched package: `""` if they pass, else
    the first failure (a mutant "killed" by a test that fails anyway would prove nothing)."""
    tests = tuple(dict.fromkeys(t for m in mutants for t in m.tests))
    with tempfile.TemporaryDirectory(prefix="schedlib-baseline-") as tmp:
        copy = Path(tmp)
        shutil.copytree(ROOT / "schedlib", copy / "schedlib")
        code, failed, _ = _pytest(copy, tests, timeout * len(mutants), verbose)
    if code is None:
        return "the tests time out on the unpatched package"
    return "" if code == 0 else failed or f"pytest exit {code}"


def kill_rates(results: dict[str, dict[str, object]]) -> list[tuple[str, int, int, int]]:
    """`(family, killed, counted, errors)` per family (in the order of `MUTANTS`), then all.

    A timeout counts as killed; an error (the tests did not run) is counted apart.
    """
    order = list(dict.fromkeys(m.family for m in MUTANTS))
    rows: dict[str, list[int]] = {}
    for result in results.values():
        outcome = str(result["outcome"])
        row = rows.setdefault(str(result["family"]), [0, 0, 0])
        if outcome in COUNTED:
            row[1] += 1
            row[0] += outcome != "survived"
        else:
            row[2] += 1
    families = sorted(rows, key=lambda f: order.index(f) if f in order else len(order))
    total = [sum(r[i] for r in rows.values()) for i in range(3)]
    return [(f, *rows[f]) for f in families] + [("all", *total)]  # type: ignore[misc]


def table(results: dict[str, dict[str, object]]) -> str:
    """The Markdown table of the Guarantees page: kill rate per family, as last run."""
    lines = [
        "| family | mutants | killed | survived | errors | kill rate |",
        "|---|---|---|---|---|---|",
    ]
    for family, killed, counted, errors in kill_rates(results):
        rate = f"{100 * killed / counted:.0f} %" if counted else "—"
        name = f"**{family}**" if family == "all" else family
        lines.append(
            f"| {name} | {counted + errors} | {killed} | {counted - killed} | {errors} | {rate} |"
        )
    survivors = [name for name, r in results.items() if r["outcome"] == "survived"]
    if survivors:
        lines.append("")
        lines.append("Surviving: " + ", ".join(f"`{name}`" for name in survivors) + ".")
    return "\n".join(lines)


def write_page(results: dict[str, dict[str, object]], page: Path = PAGE) -> None:
    """Replace the table between the page's markers by `table(results)`."""
    text = page.read_text()
    head, rest = text.split(TABLE_BEGIN)
    _, tail = rest.split(TABLE_END)
    page.write_text(f"{head}{TABLE_BEGIN}\n{table(results)}\n{TABLE_END}{tail}")


def record_of(m: Mutant, outcome: str, elapsed: float, by: str) -> dict[str, object]:
    """What `--write` keeps of one mutant's run (the patch too: a changed patch is stale)."""
    return {
        "family": m.family,
        "path": m.path,
        "old": m.old,
        "new": m.new,
        "tests": list(m.tests),
        "outcome": outcome,
        "by": by,
        "seconds": round(elapsed, 1),
        "commit": _commit(),
    }


def _commit() -> str:
    """The checkout's commit (with `+` when it has uncommitted changes), or `?`."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "schedlib", "tests"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        ).stdout.strip()
    except OSError:
        return "?"
    return (head or "?") + ("+" if dirty else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated mutant names")
    parser.add_argument("--family", help="comma-separated families")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per mutant")
    parser.add_argument(
        "--write",
        action="store_true",
        help=f"record the outcomes in {RESULTS.relative_to(ROOT)} (merged with the mutants "
        "not run) and regenerate the table of the Guarantees page",
    )
    parser.add_argument(
        "--no-baseline",
        action="store_true",
        help="skip the first run of every aimed-at test on the unpatched package",
    )
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    chosen = MUTANTS
    for option, field, what in (
        (args.only, "name", "mutants"),
        (args.family, "family", "families"),
    ):
        if option:
            wanted = set(option.split(","))
            unknown = wanted - {getattr(m, field) for m in MUTANTS}
            if unknown:
                parser.error(f"unknown {what}: {', '.join(sorted(unknown))}")
            chosen = tuple(m for m in chosen if getattr(m, field) in wanted)
    if args.list:
        for m in chosen:
            print(f"{m.name:40} {m.family:12} {m.path}: {m.note}")
        return 0
    broken = stale(chosen)
    for name, reason in broken.items():  # loudly, before the long run
        print(f"ERROR {name}: {reason}", file=sys.stderr, flush=True)
    if not args.no_baseline:
        failing = baseline(tuple(m for m in chosen if m.name not in broken), args.timeout, False)
        if failing:
            print(f"ERROR: the tests fail without any mutant: {failing}", file=sys.stderr)
            return 2
    results: dict[str, dict[str, object]] = {}
    for m in chosen:
        if m.name in broken:
            outcome, elapsed, by = f"error: {broken[m.name]}", 0.0, ""
        else:
            outcome, elapsed, by = run(m, args.timeout, args.verbose)
        results[m.name] = record_of(m, outcome, elapsed, by)
        print(f"{m.name:40} {outcome:8} {elapsed:6.1f} s  {m.note}", flush=True)
        if by:
            print(f"{'':40} by {by}", flush=True)
    print(table(results))
    errors = [n for n, r in results.items() if r["outcome"] not in COUNTED]
    survived = [n for n, r in results.items() if r["outcome"] == "survived"]
    if errors:
        print(f"ERRORS (not counted): {', '.join(errors)}", file=sys.stderr)
    if args.write:
        previous = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
        known = {m.name for m in MUTANTS}
        merged = {n: r for n, r in previous.items() if n in known} | results
        ordered = {m.name: merged[m.name] for m in MUTANTS if m.name in merged}
        RESULTS.write_text(json.dumps(ordered, indent=1) + "\n")
        write_page(ordered)
        print(f"wrote {RESULTS.relative_to(ROOT)} and the table of {PAGE.relative_to(ROOT)}")
    return 2 if errors else 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
