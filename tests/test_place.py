"""ProcessorSet: ids <-> ranges <-> Batsim text, the sequence it behaves as, and the
range-based checkers against the id-based definitions they replace."""

from __future__ import annotations

import pickle
from collections.abc import Iterable
from typing import Any

import attrs
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from schedlib.errors import InvalidValueError
from schedlib.model import EventKind as K
from schedlib.model import Job, JobEvent, JobOutcome, RunRecord
from schedlib.place import ProcessorSet
from schedlib.results.export import interval_set
from schedlib.testing.invariants import check_capacity
from schedlib.testing.invariants.multisite import check_within_one_site

IDS = st.sets(st.integers(0, 70), max_size=40)
RUNS = st.lists(st.tuples(st.integers(0, 300), st.integers(1, 30)), max_size=8)


def _runs_to_ids(runs: list[tuple[int, int]]) -> set[int]:
    """Runs of consecutive ids (wide sets built cheaply)."""
    return {i for lo, n in runs for i in range(lo, lo + n)}


def _ranges_of(ids: Iterable[int]) -> tuple[tuple[int, int], ...]:
    """The definition: maximal runs of consecutive ids, half-open."""
    out: list[list[int]] = []
    for i in sorted(ids):
        if out and out[-1][1] == i:
            out[-1][1] = i + 1
        else:
            out.append([i, i + 1])
    return tuple((lo, hi) for lo, hi in out)


def _batsim(ids: Iterable[int]) -> str:
    """The definition of Batsim's text: inclusive runs separated by blanks."""
    return " ".join(str(lo) if hi == lo + 1 else f"{lo}-{hi - 1}" for lo, hi in _ranges_of(ids))


# --------------------------------------------------------------------------- round trips


@given(st.one_of(IDS, RUNS.map(_runs_to_ids)), st.randoms(use_true_random=False))
@example({0, 1, 2, 5, 7, 8, 9}, None)
def test_ids_ranges_and_text_round_trip(ids: set[int], rng: Any) -> None:
    ascending = tuple(sorted(ids))
    shuffled = list(ids)
    if rng is not None:
        rng.shuffle(shuffled)
    p = ProcessorSet(shuffled)
    assert tuple(p) == ascending and len(p) == len(ascending)
    assert p.ranges == _ranges_of(ids)
    assert str(p) == _batsim(ids) == interval_set(shuffled)
    assert ProcessorSet.from_ranges(p.ranges) == p
    assert ProcessorSet.parse(str(p)) == p == ProcessorSet(str(p))
    assert eval(repr(p), {"ProcessorSet": ProcessorSet}) == p
    assert pickle.loads(pickle.dumps(p)) == p
    assert ProcessorSet(ascending) == p == ProcessorSet(p)
    # equal to the tuple of its ids, hashing alike; not to a list, nor to other ids
    assert p == ascending and ascending == p and p.__ne__(ascending) is False
    assert hash(p) == hash(ascending) == hash(ProcessorSet.from_ranges(p.ranges))
    assert {p: 1}[ascending] == 1 and {ascending: 1}[p] == 1
    assert p != list(ascending) or not ascending
    beyond = (ascending[-1] + 1) if ascending else 0
    assert p != (*ascending, beyond) and ProcessorSet([*ascending, beyond]) != p
    shifted = tuple(i + 1 for i in ascending)
    assert (p == shifted) == (not ascending) and (p != shifted) == bool(ascending)


@given(RUNS.map(_runs_to_ids), st.lists(st.tuples(st.integers(0, 1), st.integers(1, 5))))
def test_from_ranges_merges_touching_ranges(ids: set[int], cuts: list[tuple[int, int]]) -> None:
    """Any split of the runs into touching pieces gives the same set."""
    pieces: list[tuple[int, int]] = []
    for lo, hi in _ranges_of(ids):
        at = lo
        for keep, step in cuts:
            if keep and at + step < hi:
                pieces.append((at, at + step))
                at += step
        pieces.append((at, hi))
    assert ProcessorSet.from_ranges(pieces).ranges == _ranges_of(ids)
    assert ProcessorSet.from_ranges([list(r) for r in pieces]) == tuple(sorted(ids))  # type: ignore[misc]


@given(st.one_of(IDS, RUNS.map(_runs_to_ids)), st.integers(-80, 400))
def test_it_behaves_as_the_tuple_of_its_ids(ids: set[int], x: int) -> None:
    t = tuple(sorted(ids))
    p = ProcessorSet(t)
    assert (x in p) == (x in t) and p.count(x) == t.count(x)
    assert (float(x) in p) == (x in t) and (x + 0.5) not in p and "x" not in p
    if x in t:
        assert p.index(x) == t.index(x)
        assert p.index(x, 1 if t.index(x) else 0) == t.index(x)
    else:
        with pytest.raises(ValueError, match="not in the processor set"):
            p.index(x)
    if -len(t) <= x < len(t):
        assert p[x] == t[x]
    else:
        with pytest.raises(IndexError):
            p[x]
    for a, b, step in [(x, None, None), (None, x, None), (x // 3, x, 1), (x, None, 2), (x, 3, -1)]:
        part = slice(a, b, step)
        assert p[part] == t[part]
    assert list(reversed(p)) == list(reversed(t))
    assert bool(p) == bool(t)


@given(IDS, IDS)
def test_isdisjoint_agrees_with_sets(a: set[int], b: set[int]) -> None:
    assert ProcessorSet(a).isdisjoint(ProcessorSet(b)) == a.isdisjoint(b)


@given(RUNS.map(_runs_to_ids), st.randoms(use_true_random=False), st.booleans())
def test_batsim_text_in_any_order_and_split_reads_the_same(
    ids: set[int], rng: Any, split: bool
) -> None:
    """Parts in any order, touching parts (`0-1 2-3`), blanks around: the same set."""
    parts = []
    for lo, hi in _ranges_of(ids):
        cut = lo + 1 if split and hi - lo > 1 else hi
        parts += [(lo, cut), (cut, hi)] if cut < hi else [(lo, hi)]
    words = [str(lo) if hi == lo + 1 else f"{lo}-{hi - 1}" for lo, hi in parts]
    rng.shuffle(words)
    text = "  " + "  ".join(words) + " "
    read = ProcessorSet.parse(text)
    assert read.ranges == _ranges_of(ids) and read == ProcessorSet(ids) and len(read) == len(ids)
    assert ProcessorSet.parse(text.strip()).bounds == read.bounds


def test_bad_ids_are_refused_naming_the_id() -> None:
    cases: list[tuple[Any, str]] = [
        ([3, 1, 3], "processor 3 appears twice"),
        ((2, -1), "processor -1 is negative"),
        ((-4,), "processor -4 is negative"),
        (range(-1, 3), "processor -1 is negative"),
        ([1, "a"], "'a' is not a processor id"),
        ([1.5], "1.5 is not a processor id"),
        ([True], "True is not a processor id"),
        ("0-3 2", "processor 2 appears twice"),
        ("0-3 3", "processor 3 appears twice"),
        ("4 0-4", "processor 4 appears twice"),
        ("3-1", "'3-1' ends before it begins"),
        ("3-2", "'3-2' ends before it begins"),
        ("0 3-2", "'3-2' ends before it begins"),
        ("0,1", "'0,1' is not N or N-M"),
    ]
    for given_ids, message in cases:
        with pytest.raises(InvalidValueError, match=message):
            ProcessorSet(given_ids)
    for ranges, message in [
        ([(2, 4), (0, 3)], r"\(0, 3\) does not come after \(2, 4\)"),
        ([(0, 3), (2, 4)], r"\(2, 4\) does not come after \(0, 3\)"),
        ([(3, 3)], "is not a range 0 <= lo < hi"),
        ([(-1, 2)], "is not a range 0 <= lo < hi"),
    ]:
        with pytest.raises(InvalidValueError, match=message):
            ProcessorSet.from_ranges(ranges)


def test_it_is_immutable_and_short_to_show() -> None:
    wide = ProcessorSet.from_ranges([(0, 90_000), (90_001, 93_312)])
    assert repr(wide) == "ProcessorSet('0-89999 90001-93311')" and len(wide) == 93_311
    with pytest.raises(AttributeError, match="immutable"):
        wide._ranges = ()  # type: ignore[misc]
    assert wide[90_000] == 90_001 and wide[-1] == 93_311 and 90_000 not in wide


def test_events_and_outcomes_convert_tuples_and_pass_sets_through() -> None:
    made = ProcessorSet.from_ranges([(0, 4)])
    assert JobEvent(0, 1, K.START, made).place is made
    assert JobEvent(0, 1, K.START, (3, 1)).place == (1, 3)
    assert JobEvent(0, 1, K.SUBMIT).place == () and not JobEvent(0, 1, K.SUBMIT).place
    with pytest.raises(InvalidValueError, match="appears twice"):
        JobEvent(0, 1, K.START, (1, 1))
    outcome = JobOutcome(1, 0, 1, None, None, "", None, None, 0, (), 0, 0, 0)
    assert type(outcome.place) is ProcessorSet and outcome.place == ()
    with pytest.raises(InvalidValueError, match=r"places\[1\] = \[0, 0\]: processor 0 appears"):
        RunRecord.from_schedule([Job(1, 0, 2, 5, 5)], {1: 0}, {1: 5}, {1: [0, 0]}, capacity=2)


# --------------------------------------------------------------------------- range checkers


def _capacity_by_ids(record: RunRecord, *, exact_size: bool = True) -> None:
    """check_capacity as it was, one unit at a time: the definition."""
    procs = {job.id: getattr(job, "procs", 1) for job in record.workload}
    busy: dict[int, Any] = {}
    ends = {K.PREEMPT, K.FAIL, K.CANCEL, K.COMPLETE, K.KILL}
    for e in record.events:
        if e.kind is K.START:
            if exact_size:
                assert len(set(e.place)) == len(e.place) == procs.get(e.job, len(e.place)), (
                    f"job {e.job} holds {procs.get(e.job)} unit(s) but starts on {list(e.place)}"
                    f" at t={e.time}"
                )
            for unit in e.place:
                assert 0 <= unit < record.capacity, (
                    f"job {e.job} starts on unit {unit} at t={e.time}, outside the machine "
                    f"of {record.capacity}"
                )
                assert unit not in busy, (
                    f"unit {unit} oversubscribed at t={e.time}: job {e.job} starts while "
                    f"job {busy[unit]} runs there"
                )
                busy[unit] = e.job
        elif e.kind in ends:
            for unit in e.place:
                if busy.get(unit) == e.job:
                    del busy[unit]


def _verdict(check: Any, *args: Any, **kwargs: Any) -> str | None:
    try:
        check(*args, **kwargs)
    except AssertionError as error:
        return str(error).split("\n")[0]  # pytest's rewriting of this module adds lines
    return None


_PLACES = st.one_of(
    st.sets(st.integers(0, 13), min_size=1, max_size=6),
    st.tuples(st.integers(0, 10), st.integers(1, 5)).map(lambda r: set(range(r[0], r[0] + r[1]))),
)


@st.composite
def logs(draw: st.DrawFn) -> tuple[RunRecord, bool]:
    """Random logs of starts and ends on random places (often wrong, often partial ends)."""
    capacity = draw(st.one_of(st.integers(1, 14), st.just(14)))
    jobs = [Job(i, 0, draw(st.integers(1, 5)), 10, 5) for i in range(draw(st.integers(1, 6)))]
    started: list[tuple[int, set[int]]] = []
    events = []
    for t in range(draw(st.integers(1, 14))):
        if started and draw(st.booleans()):
            job, place = draw(st.sampled_from(started))
            if draw(st.booleans()):  # end part of it, or somewhere else
                place = draw(st.sets(st.sampled_from(sorted(place)), min_size=1)) | draw(
                    st.sets(st.integers(0, 13), max_size=2)
                )
            kind = draw(st.sampled_from([K.COMPLETE, K.PREEMPT, K.KILL, K.FAIL, K.CANCEL]))
            events.append(JobEvent(t, job, kind, place))
        else:
            job = draw(st.integers(0, len(jobs) - 1))
            place = draw(_PLACES)
            started.append((job, place))
            events.append(JobEvent(t, job, K.START, place))
    record = RunRecord.from_log("x", jobs, events, capacity=capacity)
    return record, draw(st.sampled_from([False, False, True]))


def _log(*events: tuple[int, int, K, tuple[int, ...]]) -> tuple[RunRecord, bool]:
    jobs = [Job(i, 0, 1, 10, 5) for i in range(3)]
    return RunRecord.from_log("x", jobs, [JobEvent(*e) for e in events], capacity=8), False


@settings(max_examples=400)
@given(logs())
@example(  # a job stops in the middle of its processors: both sides stay busy
    _log((0, 0, K.START, (0, 1, 2, 3, 4, 5)), (1, 0, K.PREEMPT, (1, 2)), (2, 1, K.START, (4,)))
)
@example(  # an end on another job's processors frees none of them
    _log((0, 0, K.START, (0, 1)), (1, 1, K.COMPLETE, (0,)), (2, 1, K.START, (0,)))
)
def test_check_capacity_on_ranges_says_what_the_unit_by_unit_check_says(
    case: tuple[RunRecord, bool],
) -> None:
    record, exact = case
    assert _verdict(check_capacity, record, exact_size=exact) == _verdict(
        _capacity_by_ids, record, exact_size=exact
    )


def test_check_capacity_never_expands_a_wide_machine() -> None:
    """Two 93,000-processor jobs, one after the other: the check's cost is in ranges."""
    jobs = [Job(1, 0, 93_000, 10, 5), Job(2, 0, 93_000, 10, 5)]
    wide = ProcessorSet(range(93_000))
    moved = ProcessorSet(range(312, 93_312))
    log = [JobEvent(0, 1, K.SUBMIT), JobEvent(0, 2, K.SUBMIT), JobEvent(0, 1, K.START, wide)]
    log += [JobEvent(5, 1, K.COMPLETE, wide), JobEvent(5, 2, K.START, moved)]
    record = RunRecord.from_log(
        "x", jobs, [*log, JobEvent(10, 2, K.COMPLETE, moved)], capacity=93_312
    )
    check_capacity(record)
    clash = attrs.evolve(record, events=[*log[:3], log[4]])
    with pytest.raises(AssertionError, match="unit 312 oversubscribed at t=5: job 2 starts"):
        check_capacity(clash)


def _within_one_site_by_ids(record: RunRecord, sites: list[int]) -> None:
    """check_within_one_site as it was, one processor at a time."""
    offsets = [sum(sites[:i]) for i in range(len(sites))]
    total = sum(sites)
    for e in record.events:
        if e.kind is not K.START:
            continue
        if any(p < 0 or p >= total for p in e.place):
            raise AssertionError(
                f"job {e.job} started at t={e.time} on processors {e.place}: "
                f"the sites have ids 0..{total - 1}"
            )
        owners = sorted({max(i for i, o in enumerate(offsets) if o <= p) for p in e.place})
        if len(owners) != 1:
            raise AssertionError(
                f"job {e.job} started at t={e.time} on processors {e.place} of sites "
                f"{owners}: an execution must stay within one site"
            )


@given(logs(), st.lists(st.integers(1, 5), min_size=1, max_size=4))
def test_within_one_site_on_ranges_says_what_the_id_check_says(
    case: tuple[RunRecord, bool], sites: list[int]
) -> None:
    record, _ = case
    assert _verdict(check_within_one_site, record, sites=sites) == _verdict(
        _within_one_site_by_ids, record, sites
    )


@st.composite
def schedules(draw: st.DrawFn) -> tuple[RunRecord, int]:
    """Jobs with random starts, ends and places (often overlapping, sometimes off the machine)."""
    capacity = draw(st.integers(1, 10))
    jobs, starts, ends, places = [], {}, {}, {}
    for i in range(draw(st.integers(1, 7))):
        place = draw(_PLACES)
        jobs.append(Job(i, 0, draw(st.sampled_from([len(place), len(place), 1, 3])), 30, 5))
        starts[i] = draw(st.integers(0, 20))
        ends[i] = starts[i] + draw(st.integers(0, 10))
        places[i] = place
    record = RunRecord.from_schedule(jobs, starts, ends, places, capacity=capacity)
    return record, capacity


@settings(max_examples=300)
@given(schedules())
@example(  # a job on more processors than it holds
    (RunRecord.from_schedule([Job(0, 0, 1, 30, 5)], {0: 0}, {0: 5}, {0: {0, 1, 2}}, capacity=5), 5)
)
def test_schedule_capacity_on_ranges_agrees_with_the_unit_by_unit_check(
    case: tuple[RunRecord, int],
) -> None:
    from schedlib.results.schedules import Schedule
    from schedlib.testing.invariants.schedules import capacity_violations

    record, capacity = case
    found = list(capacity_violations(Schedule.from_record(record), capacity))
    assert bool(found) == (_verdict(_capacity_by_ids, record) is not None)
