r"""Metascheduling policies of Sabin et al. (2003) and their pure decision rules.

A [`MetaPolicy`][schedlib.multisite.policies.MetaPolicy] says how the
metascheduler spreads a stream of parallel jobs over the sites:

| policy | local | $K$ | starts when | on start, cancel | queue order |
|---|---|---|---|---|---|
| `GREEDY` (§4) | EASY | 1 | it can start | — | FCFS |
| `GREEDY_MR` (§4) | EASY | all | it can start (start-based) | every other copy | FCFS |
| `CONSERVATIVE_MR` (§5) | conservative | all | completes earliest | every other copy | FCFS |
| `CONSERVATIVE_MR_SLOWER` (§5) | conservative | all | completes earliest | slower ones | FCFS |
| `EFFICACY` (§6) | conservative | all | completes earliest | every other copy | efficacy |

(sites chosen by least instantaneous load; "completes earliest" is the
completion-based rule of §5; the efficacy order falls back to FCFS among
equals),
and [`MetaPolicy.with_copies`][schedlib.multisite.policies.MetaPolicy.with_copies]
gives the §7 variants: $K < N$ copies, sites chosen by least instantaneous load
or by earliest completion time queried from each site's schedule.

The decision rules are pure functions:
[`least_sites`][schedlib.multisite.policies.least_sites] (which $K$ sites),
[`admit`][schedlib.multisite.policies.admit] (may a copy start where it is
due), [`copies_to_cancel`][schedlib.multisite.policies.copies_to_cancel],
[`queue_key`][schedlib.multisite.policies.queue_key] (the local queue order),
and the control messages each exchange costs
([`attempt_messages`][schedlib.multisite.policies.attempt_messages],
[`query_messages`][schedlib.multisite.policies.query_messages]).

Examples
--------
>>> least_sites([3.0, 1.0, 1.0, 0.5], 2)
(3, 1)
>>> admit(now=100, estimate=50, others={2: 140.0})
(False, 2)
>>> copies_to_cancel(started=1, estimates={0: 80.0, 1: 50.0, 3: 40.0}, cancel="slower")
(0,)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Literal

import attrs

from schedlib.errors import InvalidValueError
from schedlib.model import JobId, Time
from schedlib.validation import one_of

__all__ = [
    "CONSERVATIVE_MR",
    "CONSERVATIVE_MR_SLOWER",
    "EFFICACY",
    "GREEDY",
    "GREEDY_MR",
    "POLICIES",
    "AdmissionTie",
    "Cancel",
    "EqualSpeed",
    "Local",
    "MetaPolicy",
    "Priority",
    "Selection",
    "StartRule",
    "admit",
    "attempt_messages",
    "copies_to_cancel",
    "least_sites",
    "query_messages",
    "queue_key",
]

Local = Literal["easy", "conservative"]
Selection = Literal["load", "completion"]
StartRule = Literal["start", "completion"]
Cancel = Literal["all", "slower"]
Priority = Literal["fcfs", "efficacy"]
AdmissionTie = Literal["start", "drop"]
EqualSpeed = Literal["cancel", "keep"]


@attrs.frozen(slots=True)
class MetaPolicy:
    """How the metascheduler places jobs, and how sites start them.

    Attributes
    ----------
    name
        Its name in run records and tables.
    local
        Each site's backfilling: `"easy"` (aggressive) or `"conservative"`.
    copies
        $K$, the sites each job is sent to; `None` means every site.
    selection
        How the $K$ sites are chosen: `"load"` (least instantaneous load,
        §4) or `"completion"` (earliest completion time queried from each
        site's schedule, §7).
    start
        `"start"`: a copy starts as soon as its site can start it (§4);
        `"completion"`: only if no other copy is expected to complete
        earlier, else that copy is dropped (§5; needs conservative sites,
        whose reservations give expected completions).
    cancel
        When a copy starts: withdraw `"all"` the other copies, or only those
        at `"slower"` sites (§5's refinement: a faster site may still
        backfill the job and finish it sooner; the running copy is then
        cancelled).
    priority
        Local queue order: `"fcfs"` (submission) or `"efficacy"` (highest
        efficacy at that site first, FCFS among equals, §6).
    admission_tie
        Completion-based starts, when another copy is expected to complete at
        exactly the same time as the copy due now: `"start"` it (default: §5
        drops a copy only when another site has a *better* completion time)
        or `"drop"` it (the other copy wins the tie). A tie rule the paper
        leaves open (see [`admit`][schedlib.multisite.policies.admit]).
    equal_speed
        Under `cancel="slower"`, a copy at a site where the job's requested
        time equals the one where it starts: `"cancel"` it (default: it is not
        faster, so it cannot finish sooner) or `"keep"` it waiting like a
        faster one (see [`copies_to_cancel`][schedlib.multisite.policies.copies_to_cancel]).

    Raises
    ------
    InvalidValueError
        For an unknown value, `copies < 1`, completion-based starts on EASY
        sites, the slower-only cancellation without completion-based starts, an
        admission tie rule without completion-based starts, or an equal-speed
        rule without the slower-only cancellation.
    """

    name: str
    local: Local = attrs.field(default="easy", validator=one_of("easy", "conservative"))
    copies: int | None = None
    selection: Selection = attrs.field(default="load", validator=one_of("load", "completion"))
    start: StartRule = attrs.field(default="start", validator=one_of("start", "completion"))
    cancel: Cancel = attrs.field(default="all", validator=one_of("all", "slower"))
    priority: Priority = attrs.field(default="fcfs", validator=one_of("fcfs", "efficacy"))
    admission_tie: AdmissionTie = attrs.field(
        default="start", validator=one_of("start", "drop"), kw_only=True
    )
    equal_speed: EqualSpeed = attrs.field(
        default="cancel", validator=one_of("cancel", "keep"), kw_only=True
    )

    def __attrs_post_init__(self) -> None:
        if self.copies is not None and self.copies < 1:
            raise InvalidValueError("MetaPolicy.copies", self.copies, "must be >= 1 (or None)")
        if self.start == "completion" and self.local != "conservative":
            raise InvalidValueError(
                "MetaPolicy.start",
                self.start,
                "completion-based starts need conservative sites (their reservations give "
                "the expected completions)",
            )
        if self.cancel == "slower" and self.start != "completion":
            raise InvalidValueError(
                "MetaPolicy.cancel",
                self.cancel,
                "keeping faster copies needs completion-based starts",
            )
        if self.admission_tie != "start" and self.start != "completion":
            raise InvalidValueError(
                "MetaPolicy.admission_tie",
                self.admission_tie,
                "an admission tie rule needs completion-based starts",
            )
        if self.equal_speed != "cancel" and self.cancel != "slower":
            raise InvalidValueError(
                "MetaPolicy.equal_speed",
                self.equal_speed,
                "the equal-speed rule applies to cancel='slower' only",
            )

    def with_copies(self, copies: int | None, selection: Selection = "load") -> MetaPolicy:
        """The same policy with $K$ copies chosen by `selection` (§7).

        Examples
        --------
        >>> EFFICACY.with_copies(2, "completion").name
        'efficacy-k2-completion'
        """
        suffix = "all" if copies is None else str(copies)
        return attrs.evolve(
            self, name=f"{self.name}-k{suffix}-{selection}", copies=copies, selection=selection
        )


GREEDY = MetaPolicy("greedy", "easy", 1)
"""Each job to the least loaded site; EASY there (§4)."""
GREEDY_MR = MetaPolicy("greedy-mr", "easy", None)
"""Multiple requests: every site; EASY; the first site able to start it runs it (§4)."""
CONSERVATIVE_MR = MetaPolicy("conservative-mr", "conservative", None, start="completion")
"""Every site; conservative; a copy starts only where it completes earliest (§5)."""
CONSERVATIVE_MR_SLOWER = MetaPolicy(
    "conservative-mr-slower", "conservative", None, start="completion", cancel="slower"
)
"""As `CONSERVATIVE_MR`, cancelling only the copies at slower sites when one starts (§5)."""
EFFICACY = MetaPolicy("efficacy", "conservative", None, start="completion", priority="efficacy")
"""As `CONSERVATIVE_MR`, local queues in efficacy order, FCFS among equals (§6)."""

POLICIES: Mapping[str, MetaPolicy] = {
    p.name: p for p in (GREEDY, GREEDY_MR, CONSERVATIVE_MR, CONSERVATIVE_MR_SLOWER, EFFICACY)
}
"""The paper's schemes by name."""


def least_sites(values: Sequence[float | Fraction], k: int) -> tuple[int, ...]:
    """The `k` sites with the least `values` (load, or expected completion); ties: lowest index.

    Parameters
    ----------
    values
        One value per candidate site, `None`-free; sites that cannot hold the
        job are left out by the caller (pass `inf`).
    k
        How many sites, `>= 1`.

    Returns
    -------
    tuple of int
        Site indices, best first.

    Notes
    -----
    Complexity: $O(N \\log N)$.

    References
    ----------
    Sabin et al. (2003), §4 ("each job is sent to the $K$ least loaded
    sites"), §7 ("the $K$ best completion times").

    Examples
    --------
    >>> least_sites([5.0, 2.0, float("inf")], 3)
    (1, 0)
    """
    if k < 1:
        raise InvalidValueError("k", k, "must be >= 1")
    ranked = sorted((v, s) for s, v in enumerate(values) if v != float("inf"))
    return tuple(s for _, s in ranked[:k])


def admit(
    now: Time, estimate: Time, others: Mapping[int, Time], tie: AdmissionTie = "start"
) -> tuple[bool, int | None]:
    """Completion-based start: may the copy due now start here?

    Parameters
    ----------
    now
        The current time (the copy's reservation here).
    estimate
        Its requested time at this site: it would complete at `now + estimate`.
    others
        Expected completion at every other site holding a live copy (a
        reservation's start plus the requested time there, or a running
        copy's planned end).
    tie
        When another copy is expected to complete at exactly `now + estimate`:
        `"start"` this one (default) or `"drop"` it.

    Returns
    -------
    (bool, int or None)
        Whether it starts here, and if not, the site expected to complete it
        first (ties: lowest index).

    Notes
    -----
    Starts unless some other copy is expected to complete *strictly* earlier:
    $\\exists o : C_o < t + d_s \\Rightarrow$ drop this copy. Ties keep the
    copy that is ready now (`tie="start"`: the paper drops a copy when another
    site has a *better* completion time); with `tie="drop"`,
    $\\exists o : C_o \\le t + d_s$ drops it. Complexity: $O(k)$ for $k$ other copies.

    References
    ----------
    Sabin et al. (2003), §5 ("if the job is found to have a better completion
    time at another site, the job is not run and is removed from the queue at
    this site").

    Examples
    --------
    >>> admit(now=0, estimate=100, others={1: 100.0, 2: 150.0})
    (True, None)
    >>> admit(now=0, estimate=100, others={1: 100.0, 2: 150.0}, tie="drop")
    (False, 1)
    """
    here = now + estimate
    best = min(others.items(), key=lambda item: (item[1], item[0]), default=None)
    if best is not None and (best[1] < here or (tie == "drop" and best[1] == here)):
        return False, best[0]
    return True, None


def copies_to_cancel(
    started: int,
    estimates: Mapping[int, Time | Fraction],
    cancel: Cancel,
    equal: EqualSpeed = "cancel",
) -> tuple[int, ...]:
    """The sites whose copy is withdrawn when the job starts at `started`.

    Parameters
    ----------
    started
        The site where it starts.
    estimates
        The job's requested time at every site holding a live copy,
        `started` included. The model passes them computed exactly from the
        inputs ([`exact_requested_times`][schedlib.multisite.jobs.exact_requested_times]),
        so that equal requested times compare equal.
    cancel
        `"all"`: every other copy; `"slower"`: those at sites that are not
        faster for the job.
    equal
        Under `"slower"`, a copy where the requested time equals the one at
        `started`: `"cancel"` it (default: "slower" includes equal requested
        times, since such a copy cannot finish sooner) or `"keep"` it.

    Returns
    -------
    tuple of int
        Site indices, ascending (the order cancellations are applied and logged).

    Notes
    -----
    With $d_s$ the requested time at site $s$ and $s_0$ = `started`, `"slower"`
    withdraws $\\{s \\ne s_0 : d_s \\ge d_{s_0}\\}$ (`equal="cancel"`) or
    $\\{s : d_s > d_{s_0}\\}$ (`equal="keep"`). Complexity: $O(k \\log k)$ for $k$ copies.

    References
    ----------
    Sabin et al. (2003), §4 (atomic cancellation), §5 ("only jobs at slower
    sites were cancelled when a job was started at a site").

    Examples
    --------
    >>> copies_to_cancel(0, {0: 50.0, 1: 40.0, 2: 60.0}, "all")
    (1, 2)
    >>> copies_to_cancel(0, {0: Fraction(50), 1: Fraction(50), 2: Fraction(60)}, "slower")
    (1, 2)
    >>> copies_to_cancel(0, {0: Fraction(50), 1: Fraction(50), 2: Fraction(60)}, "slower", "keep")
    (2,)
    """
    mine = estimates[started]

    def withdrawn(d: Time | Fraction) -> bool:
        return cancel == "all" or d > mine or (equal == "cancel" and d == mine)

    return tuple(sorted(s for s, d in estimates.items() if s != started and withdrawn(d)))


def queue_key(
    submit: Time, job: JobId, efficacy: float | Fraction, priority: Priority
) -> tuple[float | Fraction, Time, JobId]:
    """A copy's place in its site's queue (ascending keys first).

    FCFS: `(0, submit, id)`; efficacy: `(-efficacy, submit, id)` — highest
    efficacy first, then FCFS, then id. The model passes the efficacy as an
    exact ratio (a `Fraction`) of requested times computed exactly from the
    inputs ([`exact_requested_times`][schedlib.multisite.jobs.exact_requested_times]),
    so that jobs of equal efficacy tie and fall back to FCFS: the quotient of
    two float products, each rounded its own way, can differ in its last bits.

    References
    ----------
    Sabin et al. (2003), §6 ("in the case of identical efficacies the
    secondary priority will be FCFS").

    Examples
    --------
    >>> sorted([queue_key(0, 1, 0.5, "efficacy"), queue_key(9, 2, 1.0, "efficacy")])[0]
    (-1.0, 9, 2)
    """
    return (-efficacy if priority == "efficacy" else 0.0, submit, job)


def attempt_messages(live: int) -> int:
    r"""Control messages of a start attempt when `live` copies of the job exist: $3(k-1)$.

    The site ready to start the job asks the $k - 1$ others, receives their
    replies, and tells them the outcome: the job starts (they withdraw their
    copies, or keep the faster ones), or this copy is dropped (so that they
    know it is gone). A job that starts after $d$ denied attempts costs
    $\sum_{i=0}^{d} 3(k - i - 1) \ge 3(K - 1)$ for its $K$ copies: the
    paper's minimum of $3(K - 1)$ per job start (§7) always holds.

    Examples
    --------
    >>> attempt_messages(4), attempt_messages(1)
    (9, 0)
    """
    return 3 * (live - 1)


def query_messages(sites: int) -> int:
    """Messages to choose sites by completion time: a query and a reply per site queried, $2N$
    (§7).

    Only the sites large enough for the job are queried (a smaller one cannot run it), so
    `sites` is their number: $2N$ when every site can hold the job, as in the paper's
    experiment.

    Examples
    --------
    >>> query_messages(4)
    8
    """
    return 2 * sites
