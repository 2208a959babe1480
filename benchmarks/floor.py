"""Benchmark: what a run's record and the engine cost alone, against the throughput targets.

Issue 16 asks `schedule()` (simulation and finished record) for FCFS >= 100,000,
EASY >= 60,000 and conservative >= 20,000 jobs/s. Part of that time is fixed by what
the library promises whatever the model does: the record's objects (one immutable
`JobEvent` per submission, start and end, one `ProcessorSet` per start, one
`JobOutcome` per record, derived from the log) and the engine's own work per event
(heap, `Event`, `Step`, dispatch). This script measures those two floors on a real
trace, from schedlib's own run (no second scheduler):

- `objects_s`: `placing_s`, replaying our run's placements through
  `FreeProcessors` (take at each start, give back at each end: what any model
  pays, whatever its record), plus rebuilding every log entry of the run and
  `RunRecord.from_log`;
- `engine_s`: `simulate` with a model that does nothing but schedule its next event
  and return an empty `Step`, for as many events as our run handled;

and prints what the target leaves for the model itself (transitions, queue, the
policy's decision function): `left_us` per event, against `model_us`, what it takes
now (our time minus both floors, per event). Best of `--repeat` runs, CPU time.

Usage:

    python benchmarks/floor.py [--trace FILE] [--processors N] [--policies fcfs easy conservative]
                               [--repeat 3] [--format table|json|csv]
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from schedlib.backfill import schedule
from schedlib.backfill.processors import FreeProcessors
from schedlib.backfill.simulation import BackfillModel
from schedlib.engine import Event, Phase, Step, simulate
from schedlib.model import EventKind, JobEvent, RunRecord, trusted_event
from schedlib.place import ProcessorSet
from schedlib.results.tables import FORMATS, render
from schedlib.workloads import load_workload

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TRACE = ROOT.parent / "shared" / "traces" / "SDSC-SP2-1998-4.2-cln.swf.gz"
TARGETS = {"fcfs": 100_000, "easy": 60_000, "conservative": 20_000}
_ENDS = (EventKind.COMPLETE, EventKind.KILL)


def best(run: Callable[[], Any], repeat: int) -> float:
    """Least CPU time of `repeat` calls, the cyclic collector paused as `schedule` pauses it."""
    times = []
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
        gc.enable()
    return min(times)


Plain = list[tuple[float, Any, EventKind, tuple[tuple[int, int], ...], str]]


def plain_log(log: tuple[JobEvent, ...]) -> Plain:
    """Each entry as `(time, job, kind, ranges of place, detail)`."""
    return [(e.time, e.job, e.kind, e.place.ranges, e.detail) for e in log]


def place(plain: Plain, capacity: int) -> FreeProcessors:
    """The placements of a log alone, replayed: a take at each start, a give-back at each end."""
    free = FreeProcessors.idle(capacity)
    for _, _, kind, ranges, _ in plain:
        if kind is EventKind.START:
            free = free.take(sum(hi - lo for lo, hi in ranges))[1]
        elif kind in _ENDS:
            free = free.give_back(ranges)
    return free


def rebuild(plain: Plain, records: Any, capacity: int) -> RunRecord:
    """The record of a log (see `plain_log`) built again: its entries, then the outcomes.

    Places are made from the logged ranges; computing them is `place`'s part."""
    entries: list[JobEvent] = []
    add = entries.append
    for when, job, kind, ranges, detail in plain:
        where = ProcessorSet.from_ranges(ranges) if ranges else None
        if detail:
            add(JobEvent(when, job, kind, () if where is None else where, detail=detail))
        elif where is None:
            add(trusted_event(when, job, kind))
        else:
            add(trusted_event(when, job, kind, where))
    return RunRecord.from_log("floor", records, tuple(entries), capacity=capacity)


class Idle:
    """A model that only schedules its next event: the engine's own cost per event."""

    def on_event(self, state: int, event: Event) -> Step[int]:
        if state == 1:
            return Step(0)
        after = Event(event.time + 1, Phase.COMPLETION, None, key=("end", event.time + 1))
        return Step(state - 1, events=(after,))

    def on_pass(self, state: int, now: float) -> Step[int]:
        return Step(state)

    def is_done(self, state: int) -> bool:
        return state == 0

    def unfinished(self, state: int) -> tuple[int, ...]:
        return (1,) if state else ()


def measure(path: Path, processors: int | None, policy: str, repeat: int) -> dict[str, Any]:
    workload = load_workload(path, processors=processors)
    jobs, cluster, excluded = workload.jobs, workload.cluster, workload.excluded
    ours = best(lambda: schedule(jobs, cluster, policy=policy, excluded=excluded), repeat)
    model = BackfillModel(jobs, cluster, policy, excluded=excluded)
    trace = simulate(model, model.initial_state(), model.initial_events())
    record = RunRecord.from_log(policy, model.records, trace.log, capacity=cluster.processors)
    events = trace.events
    plain = plain_log(trace.log)
    again = rebuild(plain, model.records, cluster.processors)
    if again.outcomes != record.outcomes:  # the replay must rebuild the same record
        raise AssertionError(f"{policy}: the rebuilt record differs from the run's")
    placing = best(lambda: place(plain, cluster.processors), repeat)
    objects = placing + best(lambda: rebuild(plain, model.records, cluster.processors), repeat)
    start = [Event(0, Phase.COMPLETION)]
    engine = best(lambda: simulate(Idle(), events, start, max_events=events + 1), repeat)
    target = len(jobs) / TARGETS[policy]
    return {
        "trace": path.name.replace(".swf.gz", ""),
        "processors": cluster.processors,
        "policy": policy,
        "jobs": len(jobs),
        "events": events,
        "ours_s": round(ours, 3),
        "objects_s": round(objects, 3),
        "placing_s": round(placing, 3),
        "engine_s": round(engine, 3),
        "target_s": round(target, 3),
        "left_us": round((target - objects - engine) / events * 1e6, 2),
        "model_us": round((ours - objects - engine) / events * 1e6, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trace", type=Path, default=DEFAULT_TRACE)
    parser.add_argument("--processors", type=int, default=None)
    parser.add_argument("--policies", nargs="+", default=list(TARGETS), choices=list(TARGETS))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--format", choices=FORMATS, default="table")
    args = parser.parse_args()
    rows = [measure(args.trace, args.processors, p, args.repeat) for p in args.policies]
    print(render(rows, args.format))


if __name__ == "__main__":
    main()
