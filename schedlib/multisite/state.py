"""The state of a multi-site run: each site's queue, reservations and processors, every copy.

**A mutable core private to one run.** A multi-site run holds, per site, a queue
of copies with their reservations, the running jobs and the free processors, and,
per job, the sites that hold a copy of it. Rebuilding that as immutable values at
every event would copy every site's queue and a map of up to $N \\cdot n$ copies
per event; instead the model carries one [`RunCore`][schedlib.multisite.state.RunCore]
through the engine and changes it in place. It is created by the model for one
run and never handed to a caller before the run ends, so no caller can see it
change: the run as a whole stays a pure function of its inputs (same inputs, same
record, bit for bit). Every *decision* still reads an immutable snapshot — the
backfilling rules of [`schedlib.backfill`][schedlib.backfill] get a
[`Snapshot`][schedlib.backfill.Snapshot] or a [`Plan`][schedlib.backfill.Plan],
and the metascheduling rules of [`schedlib.multisite.policies`][schedlib.multisite.policies]
get plain values.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from schedlib.backfill import FreeProcessors, Profile, Request, Reservations
from schedlib.model import JobEvent, JobId, Time
from schedlib.place import ProcessorSet

__all__ = ["ExactSum", "RunCore", "Running", "SiteCore"]

Running = tuple[Time, JobId, Time, int, ProcessorSet, bool, tuple[tuple[int, int], ...], Time]
"""A running copy: `(end, job, planned end, procs, place, killed, ranges, start)`."""


class ExactSum:
    """A sum of products $n \\cdot x$ ($n$ an integer, $x$ a float time), kept exactly.

    Held as an integer numerator over $2^k$ (every float is such a dyadic
    rational), so that adding and taking away the same product leaves no
    rounding residue: a site whose jobs have all gone holds exactly 0, and two
    sites whose loads are equal compare equal (a float running sum would carry
    the residue of every addition and break such ties by noise).

    Notes
    -----
    Complexity: $O(1)$ integer operations per change (on numbers of a few
    hundred bits at most).

    Examples
    --------
    >>> total = ExactSum()
    >>> total.add(3, 0.1); total.add(2, 0.2); total.add(-3, 0.1)
    >>> total.value() == Fraction(0.2) * 2
    True
    >>> total.add(-2, 0.2); total.value()
    Fraction(0, 1)
    >>> 0.1 + 0.2 - 0.1 - 0.2  # a float running sum keeps a residue
    2.7755575615628914e-17
    """

    __slots__ = ("numerator", "shift")

    def __init__(self) -> None:
        self.numerator = 0
        self.shift = 0

    def add(self, count: int, time: Time) -> None:
        """Add `count` times `time` (a negative `count` takes it away)."""
        n, d = time.as_integer_ratio()
        k = d.bit_length() - 1
        if k > self.shift:
            self.numerator <<= k - self.shift
            self.shift = k
        self.numerator += (count * n) << (self.shift - k)

    def value(self) -> Fraction:
        """The sum, exactly."""
        return Fraction(self.numerator, 1 << self.shift)


class SiteCore:
    """One site's part of the core (see the module notes).

    Attributes
    ----------
    index
        The site's number.
    offset, size
        Its processors' global ids are `offset .. offset + size - 1` (a slice
        of `0..P-1` over all sites).
    queue
        Waiting copies in queue order, as the local backfilling sees them
        (requested time at this site).
    keys
        Their queue keys ([`queue_key`][schedlib.multisite.policies.queue_key]).
    book
        Conservative sites: the site's [`Reservations`][schedlib.backfill.reservations.Reservations]
        (the profile, and each waiting copy's reservation; its `requests` is
        `queue`, the same list); `None` for EASY sites.
    running
        Running copies, sorted by end.
    planned
        EASY sites: `(planned end, procs, job)` of the running copies, sorted.
    free
        Free processors (local numbering).
    timer
        Conservative sites: time of the pending wake-up at the earliest reservation.
    head
        EASY sites: `(job, reservation)` last logged for the head.
    queued_work
        $\\sum n_j d_j$ over the waiting copies (instantaneous load), exact.
    running_work, running_procs
        $\\sum n_j e_j$ (exact) and $\\sum n_j$ over the running copies, $e_j$
        the planned end: the running part of the load at $t$ is
        $\\sum n_j e_j - t \\sum n_j$.
    """

    __slots__ = (
        "book",
        "free",
        "head",
        "index",
        "keys",
        "offset",
        "planned",
        "queue",
        "queued_work",
        "running",
        "running_procs",
        "running_work",
        "size",
        "timer",
    )

    def __init__(self, index: int, offset: int, processors: int, conservative: bool) -> None:
        self.index = index
        self.offset = offset
        self.size = processors
        self.queue: list[Request] = []
        self.keys: list[tuple[float | Fraction, Time, JobId]] = []
        self.book: Reservations | None = (
            Reservations(Profile.idle(processors), self.queue) if conservative else None
        )
        self.running: list[Running] = []
        self.planned: list[tuple[Time, int, JobId]] = []
        self.free = FreeProcessors.idle(processors)
        self.timer: Time | None = None
        self.head: tuple[JobId, Time] | None = None
        self.queued_work = ExactSum()
        self.running_work = ExactSum()
        self.running_procs = 0

    def load(self, now: Time) -> Fraction:
        """Instantaneous load: remaining requested processor-seconds per processor, exactly.

        $L = (\\sum_q n_j d_j + \\sum_r n_j e_j - t \\sum_r n_j) / P$ in rational
        arithmetic: loads that are equal compare equal, so ties go to the
        lower site index as documented, whatever the float times. The same
        value as [`instantaneous_load`][schedlib.multisite.formulas.instantaneous_load]
        over the queued and running copies, without its rounding.
        """
        queued, running = self.queued_work, self.running_work
        n, d = now.as_integer_ratio()
        k = max(queued.shift, running.shift, d.bit_length() - 1)
        remaining = (
            (queued.numerator << (k - queued.shift))
            + (running.numerator << (k - running.shift))
            - ((n * self.running_procs) << (k - d.bit_length() + 1))
        )
        return Fraction(remaining, self.size << k)

    def position(self, job: JobId) -> int:
        """Index of `job`'s copy in the queue."""
        for k, request in enumerate(self.queue):
            if request.id == job:
                return k
        raise KeyError(job)


class RunCore:
    """The whole run's mutable core (see the module notes).

    Attributes
    ----------
    sites
        One [`SiteCore`][schedlib.multisite.state.SiteCore] per site.
    copies
        Job -> the sites holding a waiting copy of it, in the order placed.
    running_at
        Job -> the site running it.
    dirty
        Sites whose local decision must be taken again at this instant.
    arrived, finished
        Jobs submitted and jobs ended so far.
    messages
        Control messages exchanged so far.
    log, events, cancel
        What the current transition produced (handed to the engine).
    """

    __slots__ = (
        "arrived",
        "cancel",
        "copies",
        "dirty",
        "events",
        "finished",
        "log",
        "messages",
        "running_at",
        "sites",
    )

    def __init__(self, sites: list[SiteCore]) -> None:
        self.sites = sites
        self.copies: dict[JobId, dict[int, None]] = {}
        self.running_at: dict[JobId, int] = {}
        self.dirty: set[int] = set()
        self.arrived = 0
        self.finished = 0
        self.messages = 0
        self.log: list[JobEvent] = []
        self.events: list[Any] = []
        self.cancel: list[Any] = []
