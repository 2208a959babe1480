"""The availability profile: free processors over future time, as an immutable step function.

A backfilling scheduler plans with a *profile*: for every future instant, how
many of the machine's processors are not promised to a running job or a
reservation. It answers one question over and over — "when is the earliest
time, from `t` on, at which `n` processors stay free for `d` seconds?" — and
changes in two ways: a reservation takes processors over an interval, a
release gives them back.

[`Profile`][schedlib.backfill.profile.Profile] is the immutable facade: every
operation returns a new profile and leaves the old one as it was. A scheduling
pass that makes many changes takes one private mutable working copy with
[`Profile.edit`][schedlib.backfill.profile.Profile.edit] and turns it back into
a profile with [`ProfileEditor.freeze`][schedlib.backfill.profile.ProfileEditor.freeze].

Representation
--------------
Breakpoints $t_0 < t_1 < \\dots < t_m$ and the free count $f_i$ on
$[t_i, t_{i+1})$, as two tuples searched with `bisect` (a working copy holds
them as lists). The last segment extends to infinity and is always fully free
(every interval is finite). $t_0$ is the profile's *origin*: the profile says
nothing about times before it. The representation is canonical — two
neighbouring segments never have the same free count — so equal step
functions compare equal.

Plain sequences rather than `sortedcontainers`: profiles stay small (one or
two breakpoints per running job or reservation: at most 132 on the first 10,000
jobs of CEA-Curie, 777 on SDSC-SP2 at four times its load), where a list
insertion is a C-speed shift and a sorted container's per-call overhead
dominates. `benchmarks/profile_structures.py` runs the same conservative
simulations with a `SortedDict` profile: identical schedules, 1.6-2.1 times
slower. A simulation keeps one working copy per cluster for the whole run
([`Reservations`][schedlib.backfill.reservations.Reservations]); the pure decision
function copies the profile once per pass.

Intervals are half-open, $[s, s + d)$: processors released at $t$ can be
reserved from $t$.

| operation | cost ($k$ breakpoints, $m$ of them scanned or changed) |
|---|---|
| `free_at(t)` | $O(\\log k)$ |
| `earliest_fit(t, n, d)` | $O(\\log k + m)$, $m$ = breakpoints scanned up to the answer |
| `earlier_fit(t, n, d, c)` | $O(\\log k + m)$, $m$ breakpoints in $[t, c)$ scanned |
| `reserve`, `release`, `move` | $O(\\log k + m)$, plus an insertion (a C-speed shift) |
| `compress(t, ...)` of $q$ reservations | $q$ `earlier_fit` and up to $q$ `move`, in one loop |
| `advance(t)` (forget the past) | $O(\\log k)$ plus a C-speed deletion |
| `edit()` + `freeze()` | $O(k)$ at C speed (one copy per scheduling pass) |

References
----------
Mu'alem and Feitelson, "Utilization, predictability, workloads, and user
runtime estimates in scheduling the IBM SP2 with backfilling", IEEE TPDS
12(6), 2001 (the profile of conservative backfilling); Sabin et al. (2003) §2 (the 2-D
chart of processors against time in which backfilling finds holes).

Examples
--------
A machine of 4 processors; a running job holds 3 of them until t=10:

>>> p = Profile.idle(4).reserve(0, 10, 3)
>>> p.steps()
((0, 1), (10, 4))
>>> p.earliest_fit(0, 2, 5)
10
>>> p.earliest_fit(0, 1, 100)
0
>>> q = p.reserve(10, 5, 4)
>>> q.steps(), p.steps()        # p is unchanged
(((0, 1), (10, 0), (15, 4)), ((0, 1), (10, 4)))
>>> q.release(10, 5, 4) == p
True
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

import attrs

from schedlib.errors import InvalidValueError
from schedlib.model import Time

__all__ = ["Profile", "ProfileEditor"]

_INF = float("inf")


def _check_request(procs: int, duration: Time, capacity: int) -> None:
    if type(procs) is not int or not 0 < procs <= capacity or not duration >= 0:
        if not isinstance(procs, int) or isinstance(procs, bool) or procs < 1:
            raise InvalidValueError("procs", procs, "must be an int >= 1")
        if procs > capacity:
            raise InvalidValueError(
                "procs", procs, f"is more than the profile's {capacity} processors (never fits)"
            )
        raise InvalidValueError("duration", duration, "must be >= 0")


def _check_time(t: Time, times: Sequence[Time], name: str = "t") -> None:
    if t < times[0]:
        raise InvalidValueError(name, t, f"is before the profile's origin {times[0]}")


def _earliest_fit(
    times: Sequence[Time], free: Sequence[int], t: Time, procs: int, duration: Time
) -> Time:
    candidate = t
    end = t + duration
    blocked = False
    for i in range(bisect_right(times, t) - 1, len(times)):
        point = times[i]
        if blocked:  # the previous segment was too full: try from here
            candidate = point
            end = point + duration
            blocked = False
        elif point > candidate and point >= end:
            return candidate
        if free[i] < procs:
            blocked = True
    return candidate  # the last segment is fully free


def _shift(
    times: list[Time], free: list[int], start: Time, end: Time, delta: int
) -> tuple[int, int]:
    """Add `delta` to the free counts over $[start, end)$, split at both ends (unchecked).

    Returns the indices `(i, j)` of `start` and `end` among the breakpoints; the
    caller checks the counts and merges equal neighbours back.
    """
    i = bisect_left(times, start)
    if i == len(times) or times[i] != start:
        times.insert(i, start)
        free.insert(i, free[i - 1])
    j = bisect_left(times, end, i + 1)
    if j == len(times) or times[j] != end:
        times.insert(j, end)
        free.insert(j, free[j - 1])
    if j == i + 1:
        free[i] += delta
    else:
        free[i:j] = [count + delta for count in free[i:j]]
    return i, j


@attrs.frozen(slots=True, repr=False)
class Profile:
    """Free processors over future time; immutable (every operation returns a new profile).

    Build one with [`Profile.idle`][schedlib.backfill.profile.Profile.idle]
    and change it with `reserve`/`release` (or, for many changes at once,
    [`edit`][schedlib.backfill.profile.Profile.edit]). Profiles compare equal
    when they describe the same step function from the same origin.

    Attributes
    ----------
    capacity
        Processors of the machine.
    times
        Breakpoints $t_0 < t_1 < \\dots < t_m$ ($t_0$ is the origin).
    free
        $f_i$, the free processors on $[t_i, t_{i+1})$; $f_m$ = `capacity`.
    """

    capacity: int
    times: tuple[Time, ...]
    free: tuple[int, ...]

    @classmethod
    def idle(cls, capacity: int, origin: Time = 0) -> Profile:
        """A machine with every processor free from `origin` on.

        Parameters
        ----------
        capacity
            Processors, `>= 1`.
        origin
            First instant the profile describes.

        Returns
        -------
        Profile

        Raises
        ------
        InvalidValueError
            If `capacity < 1`.

        Examples
        --------
        >>> Profile.idle(8, origin=5).steps()
        ((5, 8),)
        """
        if not isinstance(capacity, int) or isinstance(capacity, bool) or capacity < 1:
            raise InvalidValueError("capacity", capacity, "must be an int >= 1")
        return cls(capacity, (origin,), (capacity,))

    @property
    def origin(self) -> Time:
        """The first instant the profile describes."""
        return self.times[0]

    def steps(self) -> tuple[tuple[Time, int], ...]:
        """The step function as `(breakpoint, free processors from there)` pairs.

        The last pair's count holds until infinity (it is always `capacity`).

        Examples
        --------
        >>> Profile.idle(4).reserve(2, 3, 1).steps()
        ((0, 4), (2, 3), (5, 4))
        """
        return tuple(zip(self.times, self.free, strict=True))

    def __repr__(self) -> str:
        return f"Profile(capacity={self.capacity}, steps={self.steps()!r})"

    def __len__(self) -> int:
        """Number of breakpoints."""
        return len(self.times)

    def free_at(self, t: Time) -> int:
        """Free processors at instant `t` (`t >= origin`).

        Raises
        ------
        InvalidValueError
            If `t` is before the origin.

        Examples
        --------
        >>> p = Profile.idle(4).reserve(2, 3, 1)
        >>> p.free_at(1), p.free_at(2), p.free_at(5)
        (4, 3, 4)
        """
        _check_time(t, self.times)
        return self.free[bisect_right(self.times, t) - 1]

    def earliest_fit(self, t: Time, procs: int, duration: Time) -> Time:
        """The earliest start $s \\ge t$ at which `procs` processors stay free for `duration`.

        Parameters
        ----------
        t
            Earliest acceptable start (`>= origin`).
        procs
            Processors needed, `1 <= procs <= capacity`.
        duration
            Length of the interval $[s, s + d)$; for `duration = 0` the
            processors must be free at the instant $s$ itself.

        Returns
        -------
        Time
            $s = \\min\\{s \\ge t : f(\\tau) \\ge n \\ \\forall \\tau \\in [s, s+d)\\}$;
            always finite, since the last segment is fully free.

        Raises
        ------
        InvalidValueError
            If `procs` is not in `[1, capacity]`, `duration < 0`, or `t` is
            before the origin.

        Notes
        -----
        A single left-to-right scan: the candidate start is `t`; a segment
        with fewer than $n$ free processors moves the candidate to the end of
        that segment; the first breakpoint at or after $s + d$ reached with
        the candidate unmoved ends the scan. Complexity: $O(\\log k + m)$ for
        $k$ breakpoints, $m$ of them scanned.

        Examples
        --------
        >>> p = Profile.idle(4).reserve(0, 10, 3).reserve(20, 5, 2)
        >>> p.earliest_fit(0, 3, 10), p.earliest_fit(0, 3, 11), p.earliest_fit(0, 4, 0)
        (10, 25, 10)
        """
        _check_request(procs, duration, self.capacity)
        _check_time(t, self.times)
        return _earliest_fit(self.times, self.free, t, procs, duration)

    def reserve(self, start: Time, duration: Time, procs: int) -> Profile:
        """A new profile with `procs` processors taken over $[start, start + duration)$.

        Raises
        ------
        InvalidValueError
            If fewer than `procs` processors are free somewhere in the interval
            (overbooking), or the arguments are out of range.

        Examples
        --------
        >>> Profile.idle(2).reserve(0, 5, 2).reserve(1, 1, 1)
        Traceback (most recent call last):
        ...
        schedlib.errors.InvalidValueError: procs = 1: only 0 processor(s) free at t=1
        """
        editor = self.edit()
        editor.reserve(start, duration, procs)
        return editor.freeze()

    def release(self, start: Time, duration: Time, procs: int) -> Profile:
        """A new profile with `procs` processors given back over $[start, start + duration)$.

        The part of the interval before the origin is ignored (it is past).

        Raises
        ------
        InvalidValueError
            If that would free more processors than the machine has somewhere
            (releasing what was never reserved).

        Examples
        --------
        >>> Profile.idle(4).reserve(0, 10, 3).release(4, 6, 3).steps()
        ((0, 1), (4, 4))
        """
        editor = self.edit()
        editor.release(start, duration, procs)
        return editor.freeze()

    def advance(self, t: Time) -> Profile:
        """A new profile that forgets everything before `t` (its new origin).

        Examples
        --------
        >>> Profile.idle(4).reserve(0, 10, 3).advance(7).steps()
        ((7, 1), (10, 4))
        """
        editor = self.edit()
        editor.advance(t)
        return editor.freeze()

    def edit(self) -> ProfileEditor:
        """A private mutable working copy, for a scheduling pass that makes many changes.

        Returns
        -------
        ProfileEditor
            Changes made to it never reach this profile; call
            [`freeze`][schedlib.backfill.profile.ProfileEditor.freeze] to get
            the result as a new profile.

        Notes
        -----
        Complexity: $O(k)$ (one copy, at C speed).
        """
        return ProfileEditor(self.capacity, list(self.times), list(self.free))


class ProfileEditor:
    """A mutable working copy of a [`Profile`][schedlib.backfill.profile.Profile].

    Obtained from [`Profile.edit`][schedlib.backfill.profile.Profile.edit];
    offers the same queries and changes the copy in place. It is private to
    the code that made it: hand out the result of `freeze()`, never the editor.

    Attributes
    ----------
    capacity
        Processors of the machine.
    """

    __slots__ = ("_free", "_times", "capacity")

    def __init__(self, capacity: int, times: list[Time], free: list[int]) -> None:
        self.capacity = capacity
        self._times = times
        self._free = free

    def freeze(self) -> Profile:
        """The current content as an immutable profile.

        Complexity: $O(k)$ (at C speed).
        """
        return Profile(self.capacity, tuple(self._times), tuple(self._free))

    def free_at(self, t: Time) -> int:
        """Free processors at `t` (see `Profile.free_at`)."""
        _check_time(t, self._times)
        return self._free[bisect_right(self._times, t) - 1]

    def earliest_fit(self, t: Time, procs: int, duration: Time) -> Time:
        """See [`Profile.earliest_fit`][schedlib.backfill.profile.Profile.earliest_fit]."""
        _check_request(procs, duration, self.capacity)
        _check_time(t, self._times)
        return _earliest_fit(self._times, self._free, t, procs, duration)

    def earlier_fit(self, t: Time, procs: int, duration: Time, current: Time) -> Time:
        """Where a job reserved at `current` could start if it were taken out (never later).

        The profile holds the job's reservation $[c, c + d)$. Taken out, its
        earliest fit from `t` is some $s \\le c$ (its own place is free). For
        $s < c$, the part of $[s, s + d)$ after $c$ lies inside its own place,
        where at least `procs` processors are then free; so only
        $[s, \\min(s + d, c))$ needs checking, and only breakpoints before $c$
        are scanned. The profile is not changed.

        Parameters
        ----------
        t
            Earliest acceptable start (`>= origin`).
        procs, duration
            The job's processors and requested time.
        current
            Its current reservation (held in this profile).

        Returns
        -------
        Time
            The job's earliest fit with it taken out; `current` when nothing
            earlier fits.

        Notes
        -----
        Complexity: $O(\\log k + m)$ for $m$ breakpoints in $[t, c)$, scanned
        one by one (a too-full segment moves the candidate start past it). It
        is the scan loop of compression (`_replan`) for one reservation, where
        compression also skips the windows that reach into no room freed
        since the job was last checked.

        Examples
        --------
        >>> e = Profile.idle(4).reserve(0, 10, 3).reserve(10, 5, 2).edit()
        >>> e.earlier_fit(0, 2, 5, 10), e.earlier_fit(0, 1, 5, 10)
        (10, 0)
        """
        starts: list[Time | None] = [current]
        self._replan(t, (procs,), (duration,), starts, (-_INF,), (_INF,), False)
        return starts[0]  # type: ignore[return-value]

    def reach_start(self, t: Time, duration: Time, reach: Time) -> Time:
        """Where to start looking for a window of `duration` that must end after `reach`.

        The latest of `t` and the breakpoints $b$ with $b + d \\le$ `reach`: a
        window starting before it ends by `reach`. Compression uses it to scan
        only the windows that reach into room freed from `reach` on (see
        [`conservative`][schedlib.backfill.policies.conservative]). Written
        as the comparison $b + d \\le r$, never as $b \\le r - d$: with float
        times the subtraction can round past a breakpoint.

        Notes
        -----
        Complexity: $O(\\log k)$ (a bisection at $r - d$, then the comparison
        as written corrects it by a breakpoint or two).

        Examples
        --------
        >>> e = Profile.idle(4).reserve(0, 10, 3).reserve(10, 5, 2).edit()
        >>> e.reach_start(0, 4, 12), e.reach_start(0, 4, 13), e.reach_start(11, 4, 13)
        (0, 0, 11)
        >>> e.reach_start(0, 4, 14)
        10
        """
        times = self._times
        i = bisect_right(times, reach - duration)  # a guess, corrected as written below
        while i < len(times) and times[i] + duration <= reach:
            i += 1
        while i > 1 and times[i - 1] + duration > reach:
            i -= 1
        b = times[i - 1] if i else times[0]
        return b if b > t else t

    def compress(
        self,
        t: Time,
        procs: Sequence[int],
        durations: Sequence[Time],
        currents: Sequence[Time],
    ) -> list[Time]:
        """Re-place reservations one after the other at their earlier fit from `t` (in place).

        For each reservation $k$ in order — `procs[k]` processors for
        `durations[k]` from `currents[k]`, held in this profile — exactly
        `at = earlier_fit(t, procs[k], durations[k], currents[k])` and, when
        `at` is earlier, `move(currents[k], at, durations[k], procs[k])`, so a
        reservation sees the moves of those before it. This is conservative
        backfilling's compression, in one loop: the checks that find nothing
        (most of them) cost no method call.

        Parameters
        ----------
        t
            Earliest acceptable start of every reservation (`>= origin`).
        procs, durations, currents
            The reservations, as three sequences of equal length: each one's
            processors (`1 .. capacity`), requested time (`> 0`) and current
            start.

        Returns
        -------
        list[Time]
            The new starts, in the same order (never later than the current ones).

        Notes
        -----
        Complexity: that of the `earlier_fit` and `move` calls it stands for.
        A subclass that replaces `earlier_fit` or `move` gets exactly those
        calls (the loop below reads the lists of this class).

        Examples
        --------
        >>> e = Profile.idle(4).reserve(0, 10, 3).reserve(10, 5, 2).reserve(15, 5, 4).edit()
        >>> e.release(0, 10, 3)
        >>> e.compress(0, [2, 4], [5, 5], [10, 15])
        [0, 5]
        >>> e.freeze().steps()
        ((0, 2), (5, 0), (10, 4))
        """
        cls = type(self)
        if cls.earlier_fit is ProfileEditor.earlier_fit and cls.move is ProfileEditor.move:
            starts: list[Time | None] = list(currents)
            n = len(starts)
            self._replan(t, procs, durations, starts, [-_INF] * n, [_INF] * n, True)
            return starts  # type: ignore[return-value]
        moved = list(currents)
        for k, current in enumerate(currents):
            at = self.earlier_fit(t, procs[k], durations[k], current)
            if at != current:
                self.move(current, at, durations[k], procs[k])
                moved[k] = at
        return moved

    def _replan(
        self,
        now: Time,
        procs: Sequence[int],
        durations: Sequence[Time],
        starts: list[Time | None],
        lows: Sequence[Time],
        highs: Sequence[Time],
        moving: bool,
    ) -> tuple[list[int], list[tuple[int, Time, Time]]]:
        """Conservative backfilling's pass over reservations in queue order: the one scan loop.

        For each job $k$ in order (`procs[k]` processors for `durations[k]`):

        - `starts[k] is None` (with `moving`): it gets its earliest fit from
          `now`, reserved here;
        - otherwise its reservation $c$ is held here, and it is re-checked for
          an earlier fit, as [`earlier_fit`][schedlib.backfill.profile.ProfileEditor.earlier_fit]
          does, but only among the windows that can be new since it was last
          checked: room freed since then lies in $[\\phi, \\psi)$, with
          $\\phi$ = `lows[k]` and $\\psi$ = `highs[k]` widened by the room the
          moves of this pass freed so far ($-\\infty$, $+\\infty$: unknown). A
          new window must reach into it: it ends after $\\phi$ (the scan starts
          at [`reach_start`][schedlib.backfill.profile.ProfileEditor.reach_start])
          and starts before $\\psi$ (the scan stops there); none can when
          $\\phi \\ge c$. With `moving`, a job that fits earlier is moved.

        `starts` is updated in place.

        Returns
        -------
        tuple
            The positions whose start was set or changed, ascending, and the
            moves: `(k, lo, hi)`, the room $[lo, hi)$ job $k$'s old place freed.
        """
        times = self._times
        free = self._free
        add = self._add
        shift = _shift
        merge = self._merge_around
        inf = _INF
        freed_low = inf  # room freed by this pass's moves so far: [freed_low, freed_high)
        freed_high = -inf
        changed: list[int] = []
        moves: list[tuple[int, Time, Time]] = []
        for k, current in enumerate(starts):
            n = procs[k]
            duration = durations[k]
            if current is None:  # a new job: its earliest fit, reserved
                at = _earliest_fit(times, free, now, n, duration)
                if duration:
                    add(at, at + duration, -n, "")
                starts[k] = at
                changed.append(k)
                continue
            # `continue`: no earlier fit
            low = lows[k]
            if freed_low < low:
                low = freed_low
            if low >= current or current <= now:
                continue  # nothing freed before its start, or due now: nothing earlier
            high = highs[k]
            if freed_high > high:
                high = freed_high
            if low == -inf:
                t = now
            else:  # reach_start(now, duration, low), inlined
                x = bisect_right(times, low - duration)  # a guess, corrected as written
                while x < len(times) and times[x] + duration <= low:
                    x += 1
                while x > 1 and times[x - 1] + duration > low:
                    x -= 1
                t = times[x - 1] if x else times[0]
                if not t > now:
                    t = now
            last = bisect_left(times, current)
            i = bisect_right(times, t, 0, last) - 1  # the segment holding t
            candidate = t
            if candidate >= high:
                continue  # every window from here lies in room not freed since
            # Segment by segment up to `current` (beyond, the job's own place is free):
            # a too-full segment before the window's end moves the candidate to the next
            # segment with room; the first too-full segment at or after the end, or
            # `current` reached with the candidate standing, means it fits.
            blocked = free[i] < n
            for j in range(i + 1, last):
                if free[j] < n:
                    if not blocked:
                        if candidate + duration <= times[j]:
                            break  # the window ends before this segment: it fits
                        blocked = True
                elif blocked:
                    candidate = times[j]
                    if candidate >= high:
                        break  # only windows in room not freed since
                    blocked = False
            if blocked or candidate >= high:
                continue  # nothing earlier, or only windows in room not freed since
            if candidate == current:
                continue
            starts[k] = candidate
            changed.append(k)
            if not moving:
                continue
            # move(current, candidate, duration, n), written out: candidate < current. Its
            # old place from `gap` comes back, the new one up to `cut` is taken (each part
            # may be empty: `_add` without its checks, which the scan made true).
            new_end = candidate + duration
            old_end = current + duration
            gap = current if current > new_end else new_end
            cut = current if current < new_end else new_end
            for lo, hi, delta in ((gap, old_end, n), (candidate, cut, -n)):
                if lo < hi:
                    merge(*shift(times, free, lo, hi, delta))
            moves.append((k, gap, old_end))
            if gap < freed_low:
                freed_low = gap
            if old_end > freed_high:
                freed_high = old_end
        return changed, moves

    def _split(self, t: Time, low: int = 0) -> int:
        """Make `t` a breakpoint (same function, one more step); return its index."""
        times = self._times
        i = bisect_left(times, t, low)
        if i == len(times) or times[i] != t:
            times.insert(i, t)
            self._free.insert(i, self._free[i - 1])
        return i

    def _add(self, start: Time, end: Time, delta: int, too_far: str) -> None:
        """Add `delta` over $[start, end)$; raise (unchanged) if a count leaves [0, capacity].

        One pass: split at both ends, shift the counts, check them, merge
        equal neighbours back (canonical form). An empty interval changes
        nothing (with float times, `new_start + d` and `start + d` can round
        to the same value when the starts differ by less than an ulp of `d`:
        a move's non-overlapping part is then empty).
        """
        if not start < end:
            return
        times = self._times
        free = self._free
        i, j = _shift(times, free, start, end, delta)
        worst = min(free[i:j]) if delta < 0 else max(free[i:j])
        if worst < 0 or worst > self.capacity:
            at = max(times[free.index(worst, i)], start)
            if delta < 0:
                reason = f"only {worst - delta} processor(s) free at t={at}"
            else:
                reason = (
                    f"releasing them at t={at} would make {worst} of {self.capacity} "
                    f"processors free ({too_far})"
                )
            free[i:j] = [count - delta for count in free[i:j]]
            self._merge_around(i, j)
            raise InvalidValueError("procs", abs(delta), reason)
        self._merge_around(i, j)

    def _merge_around(self, i: int, j: int) -> None:
        """Drop breakpoints `j`, then `i`, where equal to the previous count (canonical form)."""
        free = self._free
        if j < len(free) and free[j] == free[j - 1]:
            del free[j]
            del self._times[j]
        if i and free[i] == free[i - 1]:
            del free[i]
            del self._times[i]

    def move(self, start: Time, new_start: Time, duration: Time, procs: int) -> None:
        """Move a reservation of `procs` processors from `start` to `new_start` (in place).

        Only the parts of the two intervals that do not overlap change.

        Raises
        ------
        InvalidValueError
            If the new place is overbooked, or nothing was reserved at the old
            one; the editor is unchanged then.

        Examples
        --------
        >>> e = Profile.idle(4).reserve(0, 10, 3).reserve(10, 5, 2).edit()
        >>> e.move(10, 0, 5, 2)
        Traceback (most recent call last):
        ...
        schedlib.errors.InvalidValueError: procs = 2: only 1 processor(s) free at t=0
        >>> e.move(10, 12, 5, 2); e.freeze().steps()
        ((0, 1), (10, 4), (12, 2), (17, 4))
        """
        _check_request(procs, duration, self.capacity)
        _check_time(new_start, self._times, "new_start")
        if new_start == start or not duration:
            return
        # Only the parts of the two intervals that do not overlap change (either may be
        # empty): `min`/`max` written out, same values and types.
        old_end = start + duration
        new_end = new_start + duration
        if new_start < start:
            taken_from, taken_to = new_start, start if start < new_end else new_end
            given_from, given_to = start if start > new_end else new_end, old_end
        else:
            taken_from, taken_to = new_start if new_start > old_end else old_end, new_end
            given_from, given_to = start, new_start if new_start < old_end else old_end
        self._add(given_from, given_to, procs, "they were not reserved")
        try:
            self._add(taken_from, taken_to, -procs, "")
        except InvalidValueError:
            self._add(given_from, given_to, -procs, "")
            raise

    def reserve(self, start: Time, duration: Time, procs: int) -> None:
        """Take `procs` processors over $[start, start + duration)$ (in place).

        Raises
        ------
        InvalidValueError
            If the interval is overbooked or starts before the origin; the
            editor is unchanged then.
        """
        _check_request(procs, duration, self.capacity)
        _check_time(start, self._times, "start")
        if duration:
            self._add(start, start + duration, -procs, "")

    def release(self, start: Time, duration: Time, procs: int) -> None:
        """Give back `procs` processors over $[start, start + duration)$ (in place).

        The part before the origin is ignored (it is past).

        Raises
        ------
        InvalidValueError
            If a count would exceed the capacity; the editor is unchanged then.
        """
        _check_request(procs, duration, self.capacity)
        self._give_back(start, start + duration, procs)

    def release_until(self, start: Time, end: Time, procs: int) -> None:
        """Give back `procs` processors over $[start, end)$ (in place): a release by its end.

        For the rest of a reservation whose end is known, e.g. a job that
        ends before its planned end $e$: its processors come back over
        $[t, e)$ exactly. `release(t, e - t, procs)` would end at
        $t + (e - t)$, which with float times can fall an ulp short of $e$
        (leaving a sliver reserved) or an ulp past it (freeing what was not
        reserved). The part before the origin is ignored (it is past).

        Raises
        ------
        InvalidValueError
            If `end < start`, or a count would exceed the capacity; the
            editor is unchanged then.

        Examples
        --------
        A job reserved over $[5.4, 14.4)$ ends at 6.2: `14.4 - 6.2` added back
        to 6.2 gives 14.399999999999999, one ulp short:

        >>> p = Profile.idle(4).reserve(5.4, 9.0, 3)
        >>> e = p.edit(); e.release_until(6.2, 14.4, 3); e.freeze().steps()
        ((0, 4), (5.4, 1), (6.2, 4))
        >>> e = p.edit(); e.release(6.2, 14.4 - 6.2, 3); e.freeze().steps()
        ((0, 4), (5.4, 1), (6.2, 4), (14.399999999999999, 1), (14.4, 4))
        """
        _check_request(procs, 0, self.capacity)
        if not end >= start:
            raise InvalidValueError("end", end, f"must be >= start ({start})")
        self._give_back(start, end, procs)

    def _give_back(self, start: Time, end: Time, procs: int) -> None:
        start = max(start, self._times[0])
        if end > start:
            self._add(start, end, procs, "they were not reserved")

    def advance(self, t: Time) -> None:
        """Forget everything before `t`, which becomes the origin (in place)."""
        if t > self._times[0]:
            i = self._split(t)
            del self._times[:i]
            del self._free[:i]
