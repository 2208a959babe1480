"""Benchmark: the availability profile on plain lists (ours) against a `SortedDict` profile.

The conservative backfilling profile (`schedlib.backfill.profile.ProfileEditor`)
keeps its breakpoints in two plain lists searched with `bisect`; a split
inserts into both lists (an O(k) shift at C speed). `sortedcontainers` is the
usual answer to "sorted structure with fast inserts", so this script runs the
same conservative simulation twice on each trace — once with our editor, once
with an editor of identical behaviour on a `SortedDict` (time -> free
processors), defined below — checks that the two records are identical, and
prints both times and the profile sizes met (the number of breakpoints $k$ at
every scheduling pass: an insertion costs O(k) in a list, O(log k) in a
`SortedDict`, so lists lose only when $k$ is large).

Usage:

    python benchmarks/profile_structures.py [--traces DIR] [--limit 10000]
                                            [--format table|json|csv]

Needs `sortedcontainers` (`pip install sortedcontainers`); the library does not.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs
from sortedcontainers import SortedDict

from schedlib.backfill import schedule
from schedlib.backfill.profile import Profile, ProfileEditor, _check_request, _check_time
from schedlib.errors import InvalidValueError
from schedlib.results.tables import FORMATS, render
from schedlib.workloads import load_workload

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TRACES = Path(os.environ.get("SCHEDLIB_TRACES", ROOT.parent / "shared" / "traces"))
RUNS = [
    ("SDSC-SP2-1998-4.2-cln.swf.gz", None, 1),
    ("CTC-SP2-1996-3.1-cln.swf.gz", 430, 1),
    ("CEA-Curie-2011-2.1-cln.swf.gz", None, 1),  # 93,312 cores: the widest machine we have
    # submit times divided by 4: four times the load, a queue of thousands of
    # reservations, so profiles of thousands of breakpoints
    ("SDSC-SP2-1998-4.2-cln.swf.gz", None, 4),
]


def _first_window(
    points: Iterable[Any], free: Any, t: Any, procs: int, duration: Any
) -> tuple[Any, bool]:
    """Scan `points` from `t` for a window of `duration` with `procs` free: (start, found)."""
    candidate, end, blocked = t, t + duration, False
    for point in points:
        if blocked:
            candidate, end, blocked = point, point + duration, False
        elif point > candidate and point >= end:
            return candidate, True
        if free[point] < procs:
            blocked = True
    return candidate, not blocked


class SortedProfileEditor(ProfileEditor):
    """Our `ProfileEditor` on a `SortedDict` time -> free processors instead of two lists.

    `move`, `reserve` and `release` (argument checks, rollback) are inherited;
    only the representation and the operations on it are replaced.
    """

    __slots__ = ("_d",)

    def __init__(self, capacity: int, times: Any, free: Any) -> None:  # no super(): no lists
        self.capacity = capacity
        self._d = SortedDict(zip(times, free, strict=True))

    @property  # type: ignore[override]
    def _times(self) -> Any:  # what the inherited argument checks read
        return self._d.keys()

    def freeze(self) -> Profile:
        return Profile(self.capacity, tuple(self._d.keys()), tuple(self._d.values()))

    def _floor(self, t: Any) -> Any:
        d = self._d
        return d.keys()[d.bisect_right(t) - 1]

    def free_at(self, t: Any) -> int:
        _check_time(t, self._d.keys())
        return int(self._d[self._floor(t)])

    def earliest_fit(self, t: Any, procs: int, duration: Any) -> Any:
        _check_request(procs, duration, self.capacity)
        _check_time(t, self._d.keys())
        points = self._d.irange(minimum=self._floor(t))
        return _first_window(points, self._d, t, procs, duration)[0]  # the last segment is free

    def earlier_fit(self, t: Any, procs: int, duration: Any, current: Any) -> Any:
        # the plain scan of the points before `current`: after it, the job's own place is free
        if current <= t:
            return current
        points = self._d.irange(minimum=self._floor(t), maximum=current, inclusive=(True, False))
        start, found = _first_window(points, self._d, t, procs, duration)
        return min(start, current) if found else current

    def _split_at(self, t: Any) -> None:
        d = self._d
        if t not in d:
            d[t] = d[self._floor(t)]

    def _merge_at(self, t: Any) -> None:
        d = self._d
        i = d.index(t)
        if i > 0 and d.peekitem(i - 1)[1] == d[t]:
            del d[t]

    def _add(self, start: Any, end: Any, delta: int, too_far: str) -> None:
        if not start < end:
            return
        self._split_at(start)
        self._split_at(end)
        d = self._d
        keys = list(d.irange(start, end, inclusive=(True, False)))
        for k in keys:
            d[k] += delta
        worst = min(d[k] for k in keys) if delta < 0 else max(d[k] for k in keys)
        if worst < 0 or worst > self.capacity:
            for k in keys:
                d[k] -= delta
        self._merge_at(end)
        self._merge_at(start)
        if worst < 0 or worst > self.capacity:
            raise InvalidValueError("procs", abs(delta), f"overbooked ({too_far})")

    def advance(self, t: Any) -> None:
        d = self._d
        if t > d.keys()[0]:
            self._split_at(t)
            for k in list(d.irange(maximum=t, inclusive=(True, False))):
                del d[k]


@contextmanager
def sorted_profiles() -> Iterator[None]:
    """Make every `Profile.edit()` return a `SortedProfileEditor` for the duration."""
    original = Profile.edit

    def edit(self: Profile) -> Any:
        return SortedProfileEditor(self.capacity, self.times, self.free)

    Profile.edit = edit  # type: ignore[method-assign]
    try:
        yield
    finally:
        Profile.edit = original  # type: ignore[method-assign]


@contextmanager
def sizes_recorded(sizes: list[int]) -> Iterator[None]:
    """Record the number of breakpoints of every profile a pass edits."""
    original = Profile.edit

    def edit(self: Profile) -> Any:
        sizes.append(len(self))
        return original(self)

    Profile.edit = edit  # type: ignore[method-assign]
    try:
        yield
    finally:
        Profile.edit = original  # type: ignore[method-assign]


def run(path: Path, processors: int | None, limit: int | None, squeeze: int) -> dict[str, Any]:
    workload = load_workload(path, processors=processors, limit=limit)
    if squeeze > 1:
        jobs = [attrs.evolve(j, submit=j.submit // squeeze) for j in workload.jobs]
        workload = attrs.evolve(workload, jobs=tuple(jobs))

    def simulate() -> Any:
        return schedule(workload.jobs, workload.cluster, policy="conservative",
                        excluded=workload.excluded)  # fmt: skip

    sizes: list[int] = []
    with sizes_recorded(sizes):
        simulate()
    began = time.perf_counter()
    lists = simulate()
    lists_s = time.perf_counter() - began
    with sorted_profiles():
        began = time.perf_counter()
        sorted_ = simulate()
        sorted_s = time.perf_counter() - began
    if sorted_.events != lists.events or sorted_.outcomes != lists.outcomes:
        raise SystemExit(f"{path.name}: the SortedDict profile gave a different schedule")
    sizes.sort()
    return {
        "trace": path.name.split("-cln")[0] + (f" x{squeeze} load" if squeeze > 1 else ""),
        "processors": workload.cluster.processors,
        "jobs": len(workload.jobs),
        "passes": len(sizes),
        "k_median": statistics.median(sizes),
        "k_p99": sizes[int(0.99 * (len(sizes) - 1))],
        "k_max": sizes[-1],
        "lists_s": round(lists_s, 2),
        "sorteddict_s": round(sorted_s, 2),
        "ratio": round(sorted_s / lists_s, 2),
        "identical": True,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--traces", type=Path, default=DEFAULT_TRACES)
    parser.add_argument("--limit", type=int, default=10_000, help="first N jobs (10000)")
    parser.add_argument("--format", choices=FORMATS, default="table")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    rows = [run(args.traces / name, size, args.limit, squeeze) for name, size, squeeze in RUNS]
    print(render(rows, args.format))
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
