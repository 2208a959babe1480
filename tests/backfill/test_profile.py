"""The availability profile against a brute-force reference (free count per time unit)."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from schedlib.backfill import Profile
from schedlib.backfill.profile import ProfileEditor
from schedlib.errors import InvalidValueError
from schedlib.model import Time

HORIZON = 80  # every breakpoint stays below this; the reference is free beyond it
LAST_START = 40
LONGEST = 15


class Reference:
    """The profile as a plain array: free processors in each unit [t, t + 1)."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.origin = 0
        self.free = [capacity] * HORIZON

    def fits(self, start: int, procs: int, duration: int) -> bool:
        return all(self.free[x] >= procs for x in range(start, start + max(duration, 1)))

    def earliest_fit(self, t: int, procs: int, duration: int) -> int:
        return next(s for s in range(t, HORIZON) if self.fits(s, procs, duration))

    def add(self, start: int, duration: int, delta: int) -> None:
        for x in range(max(start, self.origin), start + duration):
            self.free[x] += delta

    def steps(self) -> tuple[tuple[int, int], ...]:
        steps = [(self.origin, self.free[self.origin])]
        for x in range(self.origin + 1, HORIZON):
            if self.free[x] != self.free[x - 1]:
                steps.append((x, self.free[x]))
        return tuple(steps)


class ProfileMachine(RuleBasedStateMachine):
    """Random reserve / release / advance / edit sequences; every query checked."""

    @initialize(capacity=st.integers(1, 6))
    def start(self, capacity: int) -> None:
        self.profile = Profile.idle(capacity)
        self.reference = Reference(capacity)
        self.live: list[tuple[int, int, int]] = []  # (start, duration, procs) reserved
        self.history: list[tuple[Profile, tuple[tuple[int, int], ...]]] = []

    def _remember(self) -> None:
        self.history.append((self.profile, self.profile.steps()))

    @rule(data=st.data())
    def reserve(self, data: st.DataObject) -> None:
        ref = self.reference
        start = data.draw(st.integers(ref.origin, LAST_START))
        duration = data.draw(st.integers(1, LONGEST))
        procs = data.draw(st.integers(1, ref.capacity))
        self._remember()
        if ref.fits(start, procs, duration):
            self.profile = self.profile.reserve(start, duration, procs)
            ref.add(start, duration, -procs)
            self.live.append((start, duration, procs))
        else:
            with pytest.raises(InvalidValueError, match="procs"):
                self.profile.reserve(start, duration, procs)

    @precondition(lambda self: self.live)
    @rule(data=st.data())
    def release(self, data: st.DataObject) -> None:
        start, duration, procs = self.live.pop(data.draw(st.integers(0, len(self.live) - 1)))
        self._remember()
        self.profile = self.profile.release(start, duration, procs)
        self.reference.add(start, duration, procs)

    @rule(data=st.data())
    def release_what_was_never_reserved(self, data: st.DataObject) -> None:
        ref = self.reference
        start = data.draw(st.integers(ref.origin, LAST_START))
        duration = data.draw(st.integers(1, LONGEST))
        room = min(ref.capacity - ref.free[x] for x in range(start, start + duration))
        if room >= ref.capacity:
            return
        with pytest.raises(InvalidValueError, match="not reserved"):
            self.profile.release(start, duration, room + 1)

    @rule(step=st.integers(0, 10))
    def advance(self, step: int) -> None:
        ref = self.reference
        t = min(ref.origin + step, LAST_START)
        self._remember()
        self.profile = self.profile.advance(t)
        ref.origin = max(ref.origin, t)

    @precondition(lambda self: self.live)
    @rule(data=st.data())
    def several_changes_in_one_editor(self, data: st.DataObject) -> None:
        """An editor's result equals the same changes made one immutable step at a time."""
        start, duration, procs = self.live.pop()
        editor = self.profile.edit()
        editor.release(start, duration, procs)
        step_by_step = self.profile.release(start, duration, procs)
        self.reference.add(start, duration, procs)
        t = data.draw(st.integers(self.reference.origin, LAST_START))
        editor.advance(t)
        step_by_step = step_by_step.advance(t)
        self.reference.origin = max(self.reference.origin, t)
        self._remember()
        self.profile = editor.freeze()
        assert self.profile == step_by_step

    @rule(data=st.data())
    def earliest_fit(self, data: st.DataObject) -> None:
        ref = self.reference
        t = data.draw(st.integers(ref.origin, LAST_START + LONGEST))
        procs = data.draw(st.integers(1, ref.capacity))
        duration = data.draw(st.integers(0, LONGEST))
        assert self.profile.earliest_fit(t, procs, duration) == ref.earliest_fit(t, procs, duration)
        assert self.profile.edit().earliest_fit(t, procs, duration) == ref.earliest_fit(
            t, procs, duration
        )

    @precondition(lambda self: self.live)
    @rule(data=st.data())
    def earlier_fit(self, data: st.DataObject) -> None:
        """Where a reserved job could go if taken out: the brute-force fit without it."""
        ref = self.reference
        start, duration, procs = data.draw(st.sampled_from(self.live))
        t = data.draw(st.integers(ref.origin, LAST_START))
        if start < t:
            return  # it has started; nothing to move
        ref.add(start, duration, procs)
        expected = min(ref.earliest_fit(t, procs, duration), start)
        ref.add(start, duration, -procs)
        assert self.profile.edit().earlier_fit(t, procs, duration, start) == expected

    @rule(data=st.data())
    def earlier_fit_of_an_instant(self, data: st.DataObject) -> None:
        """A zero-length "reservation" holds nothing: the point fit, capped at `current`."""
        ref = self.reference
        t = data.draw(st.integers(ref.origin, LAST_START))
        current = data.draw(st.integers(ref.origin, HORIZON - 1))
        procs = data.draw(st.integers(1, ref.capacity))
        expected = min(ref.earliest_fit(t, procs, 0), current) if current > t else current
        assert self.profile.edit().earlier_fit(t, procs, 0, current) == expected

    @rule(data=st.data())
    def free_at(self, data: st.DataObject) -> None:
        ref = self.reference
        t = data.draw(st.integers(ref.origin, HORIZON - 1))
        assert self.profile.free_at(t) == ref.free[t]
        assert self.profile.edit().free_at(t) == ref.free[t]

    @precondition(lambda self: self.live)
    @rule(data=st.data())
    def move(self, data: st.DataObject) -> None:
        """Moving a reservation = releasing it and reserving the new place, or nothing."""
        ref = self.reference
        k = data.draw(st.integers(0, len(self.live) - 1))
        start, duration, procs = self.live[k]
        if start < ref.origin:
            return
        new_start = data.draw(st.integers(ref.origin, LAST_START))
        ref.add(start, duration, procs)
        editor = self.profile.edit()
        self._remember()
        if ref.fits(new_start, procs, duration):
            editor.move(start, new_start, duration, procs)
            ref.add(new_start, duration, -procs)
            self.live[k] = (new_start, duration, procs)
            self.profile = editor.freeze()
        else:
            ref.add(start, duration, -procs)
            with pytest.raises(InvalidValueError, match="procs"):
                editor.move(start, new_start, duration, procs)
            assert editor.freeze() == self.profile  # unchanged

    @invariant()
    def same_step_function(self) -> None:
        if hasattr(self, "profile"):
            assert self.profile.steps() == self.reference.steps()
            assert self.profile.origin == self.reference.origin

    @invariant()
    def canonical(self) -> None:
        if hasattr(self, "profile"):
            steps = self.profile.steps()
            assert steps[-1][1] == self.profile.capacity
            assert all(a[0] < b[0] and a[1] != b[1] for a, b in pairwise(steps))

    @invariant()
    def old_profiles_never_change(self) -> None:
        for profile, steps in getattr(self, "history", ()):
            assert profile.steps() == steps


TestProfileAgainstBruteForce = ProfileMachine.TestCase


# ------------------------------------------------------------------ unit tests


def test_profiles_are_immutable_values() -> None:
    p = Profile.idle(4)
    with pytest.raises(AttributeError):
        p.capacity = 5  # type: ignore[misc]
    assert Profile.idle(4).reserve(0, 5, 2) == Profile.idle(4).reserve(0, 5, 2)
    assert hash(Profile.idle(4).reserve(0, 5, 2)) == hash(Profile.idle(4).reserve(0, 5, 2))
    assert Profile.idle(4).reserve(0, 5, 2) != Profile.idle(4).reserve(0, 5, 1)
    assert len(Profile.idle(4).reserve(2, 5, 2)) == 3


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda: Profile.idle(0), "capacity"),
        (lambda: Profile.idle(4).earliest_fit(0, 5, 1), "procs"),
        (lambda: Profile.idle(4).earliest_fit(0, 0, 1), "procs"),
        (lambda: Profile.idle(4).earliest_fit(0, 1, -1), "duration"),
        (lambda: Profile.idle(4, origin=10).earliest_fit(5, 1, 1), "t"),
        (lambda: Profile.idle(4, origin=10).free_at(5), "t"),
        (lambda: Profile.idle(4, origin=10).reserve(5, 1, 1), "start"),
    ],
)
def test_bad_arguments_name_the_field(call: object, field: str) -> None:
    with pytest.raises(InvalidValueError) as error:
        call()  # type: ignore[operator]
    assert error.value.field == field


def test_release_before_the_origin_is_ignored() -> None:
    p = Profile.idle(4).reserve(0, 10, 3).advance(6)
    assert p.release(0, 10, 3) == Profile.idle(4, origin=6)
    assert p.release(0, 4, 3) == p  # entirely in the past


# ------------------------------------------------- one editor, many changes


def _earlier_fit(ref: Reference, t: int, procs: int, duration: int, current: int) -> int:
    """The first start in [t, current) whose window, cut at `current`, has `procs` free."""
    for x in range(t, current):
        if all(ref.free[y] >= procs for y in range(x, max(min(x + duration, current), x + 1))):
            return x
    return current


def _reserve_somewhere(
    editor: ProfileEditor, ref: Reference, live: list[tuple[int, int, int]], data: st.DataObject
) -> None:
    """Reserve a random interval in both, if it fits (and remember it in `live`)."""
    start = data.draw(st.integers(ref.origin, LAST_START))
    duration = data.draw(st.integers(1, LONGEST))
    procs = data.draw(st.integers(1, ref.capacity))
    if ref.fits(start, procs, duration):
        editor.reserve(start, duration, procs)
        ref.add(start, duration, -procs)
        live.append((start, duration, procs))


@given(capacity=st.integers(1, 6), data=st.data())
def test_a_long_lived_editor_answers_like_brute_force_after_every_change(
    capacity: int, data: st.DataObject
) -> None:
    """Queries on one editor between its changes: its caches never answer for an old profile.

    The editor remembers prefix maxima and the requests that found no room
    (a later, larger request skips its scan); both must be forgotten at every
    change. Runs of queries without a change in between exercise the second.
    A query's `current` need not be a reservation: the window may run into it
    (the job's own place, free once it is taken out).
    """
    editor = Profile.idle(capacity).edit()
    ref = Reference(capacity)
    live: list[tuple[int, int, int]] = []
    for _ in range(data.draw(st.integers(1, 30))):
        action = data.draw(st.sampled_from(["reserve", "reserve", "move", "advance", "query"]))
        if action == "reserve":
            _reserve_somewhere(editor, ref, live, data)
        elif action == "advance":
            t = min(ref.origin + data.draw(st.integers(0, 5)), LAST_START)
            editor.advance(t)
            ref.origin = max(ref.origin, t)
            live = [r for r in live if r[0] >= ref.origin]  # started ones never move
        elif action == "move" and live:
            k = data.draw(st.integers(0, len(live) - 1))
            start, duration, procs = live[k]
            t = data.draw(st.integers(ref.origin, start))
            ref.add(start, duration, procs)
            at = _earlier_fit(ref, t, procs, duration, start)
            assert editor.earlier_fit(t, procs, duration, start) == at
            editor.move(start, at, duration, procs)
            ref.add(at, duration, -procs)
            live[k] = (at, duration, procs)
        else:  # a run of queries, each a small step from the previous one (either way)
            t = data.draw(st.integers(ref.origin, LAST_START))
            current = data.draw(st.integers(t, LAST_START + LONGEST))
            procs = data.draw(st.integers(1, capacity))
            duration = data.draw(st.integers(0, LONGEST))
            for _ in range(data.draw(st.integers(1, 12))):
                expected = _earlier_fit(ref, t, procs, duration, current)
                assert editor.earlier_fit(t, procs, duration, current) == expected
                t = min(max(t + data.draw(st.integers(-1, 2)), ref.origin), LAST_START)
                procs = min(max(procs + data.draw(st.integers(-1, 1)), 1), capacity)
                duration = min(max(duration + data.draw(st.integers(-2, 3)), 0), LONGEST)
                current = max(current + data.draw(st.integers(-4, 2)), t)
        assert editor.freeze().steps() == ref.steps()


@given(data=st.data())
def test_requests_that_found_no_room_are_forgotten_at_every_change(
    data: st.DataObject,
) -> None:
    """Runs of queries that need more and more (the editor skips their scans), then less.

    A profile of short holes between reservations; queries growing in
    processors, length and earliest start, their `current` moving earlier,
    mostly find no room: each may be answered by a remembered failure. Then
    one query needing less (it may fit where the larger did not), then a
    release (room appears: nothing remembered may survive it).
    """
    capacity = data.draw(st.integers(1, 4))
    editor = Profile.idle(capacity).edit()
    ref = Reference(capacity)
    blocks = []
    for start in sorted(set(data.draw(st.lists(st.integers(0, 60), min_size=2, max_size=14)))):
        length = data.draw(st.integers(1, 4))
        procs = data.draw(st.integers(1, capacity))
        if ref.fits(start, procs, length):
            editor.reserve(start, length, procs)
            ref.add(start, length, -procs)
            blocks.append((start, length, procs))
    for _ in range(data.draw(st.integers(1, 6))):
        t = data.draw(st.integers(0, 30))
        current = data.draw(st.integers(t, HORIZON - LONGEST))
        procs = data.draw(st.integers(1, capacity))
        duration = data.draw(st.integers(1, 8))
        for _ in range(data.draw(st.integers(1, 6))):
            expected = _earlier_fit(ref, t, procs, duration, current)
            assert editor.earlier_fit(t, procs, duration, current) == expected
            t += data.draw(st.integers(0, 1))
            procs = min(procs + data.draw(st.integers(0, 1)), capacity)
            duration += data.draw(st.integers(0, 2))
            current = max(current - data.draw(st.integers(0, 3)), t)
        smaller = (max(procs - 1, 1), max(duration - data.draw(st.integers(0, 3)), 1))
        t -= data.draw(st.integers(0, min(t, 2)))
        expected = _earlier_fit(ref, t, *smaller, current)
        assert editor.earlier_fit(t, *smaller, current) == expected
        if blocks:
            start, length, procs = blocks.pop(data.draw(st.integers(0, len(blocks) - 1)))
            editor.release(start, length, procs)
            ref.add(start, length, procs)
        assert editor.freeze().steps() == ref.steps()


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ((4, 1, 3, 10), 10),  # the same request again: no room
        ((4, 1, 4, 10), 10),  # longer: no room either (may be answered from memory)
        ((5, 1, 3, 10), 10),  # from later: no room
        ((4, 1, 3, 7), 7),  # an earlier `current`, so an earlier limit: no room
        ((4, 1, 2, 10), 4),  # shorter: fits in a two-second hole
        ((0, 1, 3, 10), 0),  # from earlier: the three-second hole at 0
        ((4, 1, 3, 16), 10),  # a later limit: the hole after 10
    ],
)
def test_a_remembered_failure_answers_only_requests_needing_more(
    query: tuple[int, int, int, int], expected: int
) -> None:
    """One processor; holes [0, 3), [4, 6), [7, 9), [10, 14): from 4, 3 s fit nowhere before 9."""
    editor = Profile.idle(1).reserve(3, 1, 1).reserve(6, 1, 1).reserve(9, 1, 1).edit()
    editor.reserve(14, 2, 1)
    assert editor.earlier_fit(4, 1, 3, 10) == 10  # remembered: (1 proc, 3 s, from 4, limit 9)
    assert editor.earlier_fit(*query) == expected


def test_a_remembered_failure_needs_as_many_processors() -> None:
    """Two processors; both free over [0, 1) and [2, 3), one over [1, 2), none over [3, 10)."""
    editor = Profile.idle(2).reserve(1, 1, 1).reserve(3, 7, 2).edit()
    assert editor.earlier_fit(0, 2, 2, 10) == 10  # remembered: (2 procs, 2 s, from 0, limit 3)
    assert editor.earlier_fit(0, 1, 2, 10) == 0


def test_a_change_forgets_the_failures() -> None:
    editor = Profile.idle(1).reserve(3, 1, 1).reserve(6, 1, 1).reserve(9, 1, 1).edit()
    assert editor.earlier_fit(4, 1, 3, 10) == 10
    editor.release(6, 1, 1)  # the hole [4, 9) opens
    assert editor.earlier_fit(4, 1, 3, 10) == 4
    editor.reserve(5, 1, 1)  # closed again, elsewhere
    assert editor.earlier_fit(4, 1, 3, 10) == 6


def test_a_window_that_fits_exactly_in_floats_is_found() -> None:
    # t + d == limit in floating point, but d > limit - t: the job fits [t, limit) exactly
    # and must move there (the shortcut once tested `d > limit - t` and kept it later).
    t, d = 868060.7272727274, 5648.925619834711
    limit = t + d
    assert d > limit - t  # the rounding this test is about
    editor = Profile.idle(4).reserve(limit, 100, 4).reserve(limit + 100, d, 2).edit()
    assert editor.earlier_fit(t, 2, d, limit + 100) == t


class _CallByCall(ProfileEditor):
    """An editor whose `earlier_fit` is replaced: `compress` then calls it once a reservation."""

    __slots__ = ()

    def earlier_fit(self, t: Time, procs: int, duration: Time, current: Time) -> Time:
        return super().earlier_fit(t, procs, duration, current)


@given(capacity=st.integers(1, 6), data=st.data())
def test_compress_moves_each_reservation_where_brute_force_does(
    capacity: int, data: st.DataObject
) -> None:
    """`compress` = take each reservation out in turn, put it at its earliest fit from `t`.

    Against the unit array (each reservation sees the moves of those before
    it), and against the call-by-call loop a subclass gets; the editor's
    caches (prefix maxima, remembered failures) must follow every move.
    """
    editor = Profile.idle(capacity).edit()
    ref = Reference(capacity)
    live: list[tuple[int, int, int]] = []
    for _ in range(data.draw(st.integers(1, 25))):
        _reserve_somewhere(editor, ref, live, data)
    origin = data.draw(st.integers(0, 10))
    editor.advance(origin)
    ref.origin = origin
    live = [r for r in live if r[0] >= origin]
    for _ in range(data.draw(st.integers(0, 3))):  # some early ends: room from the origin on
        if live:
            start, duration, procs = live.pop(data.draw(st.integers(0, len(live) - 1)))
            editor.release(start, duration, procs)
            ref.add(start, duration, procs)
    order = data.draw(st.permutations(live))
    t = data.draw(st.integers(origin, LAST_START))
    other = _CallByCall(capacity, list(editor._times), list(editor._free))
    procs_, durations, currents = ([r[i] for r in order] for i in (2, 1, 0))
    expected = []
    for start, duration, procs in order:
        ref.add(start, duration, procs)
        at = _earlier_fit(ref, t, procs, duration, start)
        ref.add(at, duration, -procs)
        expected.append(at)
    assert editor.compress(t, procs_, durations, currents) == expected
    assert other.compress(t, procs_, durations, currents) == expected
    assert editor.freeze().steps() == ref.steps() == other.freeze().steps()
