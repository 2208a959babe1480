r"""Conservative backfilling's schedule, kept from one scheduling pass to the next.

[`Reservations`][schedlib.backfill.reservations.Reservations] holds what
conservative backfilling plans with at one cluster: the availability profile
(running jobs until their planned end, waiting jobs' reservations) and the
waiting jobs in queue order with their reservations. A model keeps one for the
whole run and tells it what happens — a job arrives, ends before its planned
end, is withdrawn — then asks it, once per instant, to
[`decide`][schedlib.backfill.reservations.Reservations.decide]: it places the
new jobs, compresses after early ends and withdrawals, and says which jobs are
due now. The pure decision function
[`conservative`][schedlib.backfill.policies.conservative] is the same pass on a
fresh copy of a [`Plan`][schedlib.backfill.policies.Plan].

**A mutable structure private to one run.** Copying the profile and the queue at
every pass, as an immutable plan must, costs $O(m + q)$ per pass for $m$
breakpoints and $q$ waiting jobs, whatever happened; a long queue then makes
every arrival cost as much as a compression. The structure is changed in place
by its owner (a model, for one run, or one call of `conservative`) and is never
handed to anyone else.

**Compression: only the windows that can be new.** After an early end (or a
withdrawn reservation) the freed room is bounded: $[t, e)$ times the job's
processors. A waiting job $j$ reserved at $s_j$ fitted nowhere earlier when last
checked, and since then the profile only lost room, except where room was freed;
a window $[x, x + d_j)$ with $x < s_j$ can therefore fit now only if it reaches
into room freed since that check. Each job keeps the envelope $[\phi_j, \psi_j)$
of the room freed since it was last checked (the pass's own releases, and the old
places of jobs moved before it in the pass, are added as it goes): it is skipped
when $\phi_j \ge s_j$, and otherwise only windows that end after $\phi_j$ and
start before $\psi_j$ are looked at. Every other window is one that failed at the
last check in a profile that has only lost room since. The result is exactly
that of re-placing every waiting job, in queue order, at its earliest fit with it
taken out (`tests/backfill/test_reservations.py` compares both on random
workloads, float and integer times, and on slices of real traces).

References
----------
Sabin et al. (2003), §2 (conservative backfilling); Mu'alem and Feitelson 2001,
§2 (compression).

Examples
--------
Four processors; a running job holds 3 until t=10 (planned), job 1 (2
processors, 5 s) is reserved at 10, job 2 (1 processor, 10 s) starts now:

>>> from schedlib.backfill.policies import Request
>>> book = Reservations(Profile.idle(4).reserve(0, 10, 3).edit())
>>> book.append(Request(1, 0, 2, 5)); book.append(Request(2, 0, 1, 10))
>>> book.decide(0)
([0, 1], [1])
>>> book.starts
[10, 0]

The running job ends at t=4, six seconds early: job 1 moves to 4.

>>> book.pop_due([1])
>>> book.end_early(4, 10, 3)
>>> book.decide(4), book.starts
(([0], [0]), [4])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import compress as compress_
from itertools import count, repeat
from operator import eq
from typing import Any

from schedlib.backfill.profile import Profile, ProfileEditor
from schedlib.model import JobId, Time

__all__ = ["Reservations"]

_INF = float("inf")


class Reservations:
    """The waiting jobs of one conservative cluster, their reservations and the profile (mutable).

    Parameters
    ----------
    editor
        The profile (running jobs held until their planned end, and the
        reservations of `starts`), as a private working copy: a
        [`ProfileEditor`][schedlib.backfill.profile.ProfileEditor] (taken
        over) or a [`Profile`][schedlib.backfill.profile.Profile] (copied).
    requests
        The waiting jobs in queue order (a list: taken over and changed in place).
    starts
        Their reservations (`None`: not placed yet), held in `editor`.
    lows, highs
        Per job, the room freed since it was last checked lies in
        $[\\phi, \\psi)$ (`inf`, `-inf`: none; `-inf`, `inf`: unknown). Default:
        none.

    Attributes
    ----------
    editor, requests, starts, lows, highs
        As given (read them; change them only through the methods).

    Notes
    -----
    Complexity: `append`, `insert`, `withdraw` $O(q)$ at C speed (list
    shifts) plus a profile change; `decide` $O(q)$ plus, when it
    compresses, one scan per job re-checked (see the module), and the
    placements.
    """

    __slots__ = ("_ceiling", "_floor", "_unplaced", "editor", "highs", "lows", "requests", "starts")

    def __init__(
        self,
        editor: ProfileEditor | Profile,
        requests: list[Any] | None = None,
        starts: list[Time | None] | None = None,
        lows: list[Time] | None = None,
        highs: list[Time] | None = None,
    ) -> None:
        self.editor = editor.edit() if isinstance(editor, Profile) else editor
        self.requests: list[Any] = [] if requests is None else requests
        n = len(self.requests)
        self.starts: list[Time | None] = [None] * n if starts is None else starts
        self.lows: list[Time] = [_INF] * n if lows is None else lows
        self.highs: list[Time] = [-_INF] * n if highs is None else highs
        self._unplaced = self.starts.count(None)
        self._floor = _INF  # room freed since the last decision: [floor, ceiling)
        self._ceiling = -_INF

    def __len__(self) -> int:
        return len(self.requests)

    @property
    def pending(self) -> bool:
        """Whether room came back since the last decision (the next one compresses)."""
        return self._floor < _INF

    # ------------------------------------------------------------------ changes

    def append(self, request: Any) -> None:
        """A new job at the end of the queue (placed at the next `decide`)."""
        self.insert(len(self.requests), request)

    def insert(self, k: int, request: Any) -> None:
        """A new job at position `k` of the queue (placed at the next `decide`)."""
        self.requests.insert(k, request)
        self.starts.insert(k, None)
        self.lows.insert(k, _INF)
        self.highs.insert(k, -_INF)
        self._unplaced += 1

    def end_early(self, now: Time, planned_end: Time, procs: int) -> None:
        """A running job ended at `now`, before its planned end: its room comes back.

        Its processors are given back over $[now, e)$, exactly up to $e$
        ([`release_until`][schedlib.backfill.profile.ProfileEditor.release_until]);
        the next `decide` compresses.
        """
        self.editor.release_until(now, planned_end, procs)
        self.freed(now, planned_end)

    def withdraw(self, k: int) -> tuple[Any, Time | None]:
        """Take the job at position `k` out of the queue; its reservation's room comes back.

        Returns its request and its reservation (`None` if not placed yet).
        """
        request = self.requests.pop(k)
        start = self.starts.pop(k)
        del self.lows[k]
        del self.highs[k]
        if start is None:
            self._unplaced -= 1
        else:
            end = start + request.requested_time
            self.editor.release_until(start, end, request.procs)
            self.freed(start, end)
        return request, start

    def freed(self, start: Time, end: Time) -> None:
        """Room came back over $[start, end)$ (already given back in `editor`): compress next."""
        if start < self._floor:
            self._floor = start
        if end > self._ceiling:
            self._ceiling = end

    def adopt(self, profile: Profile, starts: Sequence[Time]) -> None:
        """Take a decision made elsewhere (a custom decision function): its profile and starts.

        The room freed since the last decision counts as examined.
        """
        self.editor = profile.edit()
        self.starts[:] = starts
        n = len(starts)
        self.lows[:] = [-_INF] * n  # nothing is known of what that decision checked
        self.highs[:] = [_INF] * n
        self._unplaced = 0
        self._floor, self._ceiling = _INF, -_INF

    def pop_due(self, positions: Sequence[int]) -> None:
        """The jobs at `positions` (ascending) start: they leave the queue.

        Their reservations stay in the profile: they hold the running jobs
        until their planned end.
        """
        if not positions:
            return
        if positions[-1] == len(positions) - 1:  # a prefix
            cut = len(positions)
            del self.requests[:cut], self.starts[:cut], self.lows[:cut], self.highs[:cut]
            return
        for k in reversed(positions):
            del self.requests[k], self.starts[k], self.lows[k], self.highs[k]

    # ----------------------------------------------------------------- decision

    def decide(self, now: Time) -> tuple[list[int], list[int]]:
        """Conservative backfilling at `now`: compress if room came back, place the new jobs.

        Forgets the profile before `now`; if room was freed since the last
        decision (`end_early`, `withdraw`, `freed`), re-checks every waiting
        job in queue order for an earlier fit and moves it there (the new
        jobs are placed at their turn); otherwise places only the new jobs,
        in queue order, each at its earliest fit.

        Returns
        -------
        tuple of list
            The positions whose reservation was made or moved (ascending),
            and those whose reservation is `now` (ascending): they start now
            (see `pop_due`).

        Notes
        -----
        $$s_j = \\min\\{s \\ge t : f(\\tau) \\ge n_j \\ \\forall \\tau \\in [s, s + d_j)\\}$$

        for a new job; for a waiting job, the same with its own reservation
        taken out, which never moves it later. Complexity: see the class.
        """
        self.editor.advance(now)
        starts = self.starts
        changed: list[int] = []
        if self._floor < _INF:
            changed = self._compress(now)
        elif self._unplaced:
            changed = self._place(now)
        self._unplaced = 0
        due = list(compress_(count(), map(eq, starts, repeat(now)))) if now in starts else []
        return changed, due

    def _place(self, now: Time) -> list[int]:
        """Place the jobs without a reservation, in queue order (nothing else changes)."""
        starts = self.starts
        requests = self.requests
        editor = self.editor
        changed = []
        k = -1
        for _ in range(self._unplaced):
            k = starts.index(None, k + 1)
            job = requests[k]
            duration = job.requested_time
            procs = job.procs
            at = editor.earliest_fit(now, procs, duration)
            editor.reserve(at, duration, procs)
            starts[k] = at
            changed.append(k)
        return changed

    def _compress(self, now: Time) -> list[int]:
        """Every job in queue order: placed if new, else moved to its earlier fit (see module)."""
        requests = self.requests
        n = len(requests)
        floor, ceiling = self._floor, self._ceiling
        self._floor, self._ceiling = _INF, -_INF
        lows = self.lows
        highs = self.highs
        # The room this decision frees widens every job's envelope.
        lows = [floor if x > floor else x for x in lows]
        highs = [ceiling if x < ceiling else x for x in highs]
        procs = [job.procs for job in requests]
        durations = [job.requested_time for job in requests]
        if type(self.editor) is ProfileEditor:
            changed, moves = self.editor._replan(
                now, procs, durations, self.starts, lows, highs, True
            )
        else:  # another profile structure (a subclass): through its public methods
            changed, moves = self._replan_by_methods(now, procs, durations)
        # Every job was placed or checked (or could not use the room freed): what is left
        # for the next compression is the room the moves after it freed.
        new_lows = [_INF] * n
        new_highs = [-_INF] * n
        low, high, top = _INF, -_INF, n
        for k, gap, end in reversed(moves):  # jobs k .. top - 1 saw the moves after them
            if low < _INF:
                new_lows[k:top] = [low] * (top - k)
                new_highs[k:top] = [high] * (top - k)
            top = k
            if gap < low:
                low = gap
            if end > high:
                high = end
        if low < _INF:
            new_lows[:top] = [low] * top
            new_highs[:top] = [high] * top
        self.lows[:] = new_lows
        self.highs[:] = new_highs
        return changed

    def _replan_by_methods(
        self, now: Time, procs: list[int], durations: list[Time]
    ) -> tuple[list[int], list[tuple[int, Time, Time]]]:
        """`_replan` through the editor's `earliest_fit`, `earlier_fit` and `move`.

        For an editor that keeps its profile otherwise (a subclass, as
        `benchmarks/profile_structures.py` measures): every waiting job is
        re-checked from `now`, so the envelopes are not needed (no moves are
        reported for them); the result is the same.
        """
        editor = self.editor
        starts = self.starts
        changed: list[int] = []
        for k, current in enumerate(starts):
            n, duration = procs[k], durations[k]
            if current is None:
                at = editor.earliest_fit(now, n, duration)
                editor.reserve(at, duration, n)
            else:
                at = editor.earlier_fit(now, n, duration, current)
                if at == current:
                    continue
                editor.move(current, at, duration, n)
            starts[k] = at
            changed.append(k)
        return changed, []

    # ------------------------------------------------------------------ queries

    def next_due(self) -> Time | None:
        """The earliest reservation (`None` when nothing waits or nothing is placed)."""
        placed = [s for s in self.starts if s is not None]
        return min(placed) if placed else None

    def position(self, job: JobId) -> int:
        """Queue position of the job with id `job`.

        Raises
        ------
        KeyError
            If it is not waiting here.
        """
        for k, request in enumerate(self.requests):
            if request.id == job:
                return k
        raise KeyError(job)

    def earliest_fit(self, now: Time, procs: int, duration: Time) -> Time:
        """Where a job sent here now would be reserved (the profile as it is)."""
        return self.editor.earliest_fit(now, procs, duration)

    def freeze(self) -> Profile:
        """The profile, as an immutable value."""
        return self.editor.freeze()

    @classmethod
    def of(
        cls,
        profile: Profile,
        requests: Iterable[Any],
        starts: Iterable[Time | None],
        settled: Sequence[Time] | None,
    ) -> Reservations:
        """A fresh copy from a plan's values.

        `settled` as in [`Plan`][schedlib.backfill.policies.Plan]: the start of
        the room freed since each job's last check (its end is not known).
        """
        requests = list(requests)
        n = len(requests)
        if settled is None:
            lows, highs = [-_INF] * n, [_INF] * n  # unknown: every window may be new
        else:
            lows = list(settled) + [_INF] * (n - len(settled))
            highs = [_INF if x < _INF else -_INF for x in lows]  # their end is not known
        return cls(profile.edit(), requests, list(starts), lows, highs)
