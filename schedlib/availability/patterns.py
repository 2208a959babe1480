"""Planned availability of grid resources: repeating up/down patterns and restart delays.

A resource with *planned availability* (Verboven et al. 2008 §1: "workstations that are
periodically available", "resources configured to become (un)available at
pre-determined times") follows a pattern of `(uptime, downtime)` pairs that
repeats. Each uptime is counted from the moment the resource actually becomes
available ("Uptime of the resource at restart", Verboven et al. (2008) §4.2, Table 1), so
the scheduler always knows the *next planned down time* of an up resource:
the time it came up plus the planned uptime of its current period.

The paper's test rig reads the pattern from "a startup-configuration file
containing pairs of integers. These pairs contain the amount of seconds a
resource will be available followed by the amount of seconds the resource
will be unavailable" (Verboven et al. 2008 §4.1);
[`parse_availability`][schedlib.availability.patterns.parse_availability] reads that
form.

After its planned downtime a resource needs some time to start again: "Each
resource is restarted after 1 second. On average it takes 1.2 seconds for a
resource to become available again, including the time needed for the
startup" (Verboven et al. 2008 §4.2). [`RestartDelay`][schedlib.availability.patterns.RestartDelay]
models that extra startup time, fixed or drawn from an explicit
`random.Random`.

Examples
--------
>>> pattern = parse_availability("84 1")
>>> pattern.uptime(0), pattern.downtime(0), pattern.uptime(5)
(84, 1, 84)
>>> pattern.next_down(up_since=100, cycle=0)
184
>>> pattern.remaining_uptime(up_since=100, cycle=0, now=150)
34
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import attrs

from schedlib.errors import InvalidValueError, WorkloadFormatError
from schedlib.model import Time
from schedlib.validation import at_least, finite_at_least

__all__ = [
    "DELAY_RESOLUTION",
    "AvailabilityPattern",
    "ResourceAvailability",
    "RestartDelay",
    "UpPeriod",
    "parse_availability",
    "read_availability",
]

DELAY_RESOLUTION: float = 1 / 1024
"""Random restart delays are rounded to multiples of this many seconds.

A power-of-two fraction keeps every event time an exact binary fraction when
the other inputs are (integers, quarter seconds, ...), so that "the job ends
exactly when its resource goes down" is decided exactly, never by rounding.
"""


def _period_tuple(value: Iterable[Any]) -> tuple[tuple[Time, Time], ...]:
    try:
        return tuple((pair[0], pair[1]) for pair in value)
    except (TypeError, IndexError, KeyError):
        raise InvalidValueError(
            "AvailabilityPattern.periods", value, "must be a sequence of (uptime, downtime) pairs"
        ) from None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_periods(
    instance: AvailabilityPattern, attribute: attrs.Attribute[Any], value: Any
) -> None:
    if not value:
        raise InvalidValueError(
            "AvailabilityPattern.periods", value, "needs at least one (uptime, downtime) pair"
        )
    for k, (up, down) in enumerate(value):
        if not _is_number(up) or not up > 0:
            raise InvalidValueError(
                f"AvailabilityPattern.periods[{k}].uptime", up, "must be a number > 0"
            )
        if not _is_number(down) or not down >= 0 or math.isinf(down):
            raise InvalidValueError(
                f"AvailabilityPattern.periods[{k}].downtime", down, "must be a finite number >= 0"
            )


@attrs.frozen(slots=True)
class AvailabilityPattern:
    """A repeating sequence of `(uptime, downtime)` pairs, in seconds.

    Cycle $k$ (counting from 0 at the first time the resource comes up) uses
    the pair number $k \\bmod m$ of the $m$ pairs: the resource is up for the
    pair's uptime, counted from the moment it becomes available, then down for
    its downtime (plus any [`RestartDelay`][schedlib.availability.patterns.RestartDelay]).

    Attributes
    ----------
    periods
        The pairs, in order; uptimes `> 0` (an infinite uptime means the
        resource never goes down again), downtimes finite and `>= 0`.

    References
    ----------
    Verboven et al. (2008) §4.1 (the "pairs of integers" configuration) and §4.2, Table 1.

    Examples
    --------
    >>> AvailabilityPattern([(84, 1), (30, 5)]).uptime(3)
    30
    >>> AvailabilityPattern([(0, 1)])
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: AvailabilityPattern.periods[0].uptime = 0: must be ...
    """

    periods: tuple[tuple[Time, Time], ...] = attrs.field(
        converter=_period_tuple, validator=_check_periods
    )

    @classmethod
    def always_up(cls) -> AvailabilityPattern:
        """A resource that never goes down (the paper's scenario 0, Verboven et al. (2008) §4.3).

        Examples
        --------
        >>> AvailabilityPattern.always_up().longest_uptime
        inf
        """
        return cls(((math.inf, 0),))

    @classmethod
    def repeating(cls, uptime: Time, downtime: Time) -> AvailabilityPattern:
        """The single pair `(uptime, downtime)`, repeated forever.

        Examples
        --------
        >>> AvailabilityPattern.repeating(84, 1)
        AvailabilityPattern(periods=((84, 1),))
        """
        return cls(((uptime, downtime),))

    def uptime(self, cycle: int) -> Time:
        """The planned uptime of cycle `cycle` (`>= 0`)."""
        return self.periods[cycle % len(self.periods)][0]

    def downtime(self, cycle: int) -> Time:
        """The planned downtime that follows the uptime of cycle `cycle`."""
        return self.periods[cycle % len(self.periods)][1]

    @property
    def longest_uptime(self) -> Time:
        """The longest uptime of any pair: no job at least this long can ever fit."""
        return max(up for up, _ in self.periods)

    def next_down(self, up_since: Time, cycle: int) -> Time:
        """The planned down time of a resource up since `up_since` in cycle `cycle`.

        Notes
        -----
        $t_{\\text{down}} = t_{\\text{up}} + u_k$. Complexity $O(1)$.
        """
        return up_since + self.uptime(cycle)

    def remaining_uptime(self, up_since: Time, cycle: int, now: Time) -> Time:
        """The planned remaining uptime `ru` at `now` (Verboven et al. 2008 §2.2), never negative.

        Notes
        -----
        $ru = \\max(0,\\ t_{\\text{up}} + u_k - t)$: a resource still up after its
        planned down time (its actual availability differs from the plan)
        has 0 s left. Complexity $O(1)$.

        A difference of times, rounded in floats: to decide whether a job of
        $d$ seconds started at $t$ ends in time, compare $t + d$ with
        [`next_down`][schedlib.availability.patterns.AvailabilityPattern.next_down]
        (as `map_pgs` does), never $d$ with this number: with float times
        $d \\le ru$ can hold where $t + d$ rounds past the down time.

        Examples
        --------
        >>> AvailabilityPattern.repeating(84, 1).remaining_uptime(0, 0, 90)
        0
        """
        return max(0, up_since + self.uptime(cycle) - now)

    def to_text(self) -> str:
        """The pattern in the configuration form read by `parse_availability`.

        Examples
        --------
        >>> print(AvailabilityPattern([(84, 1), (30, 5)]).to_text())
        84 1
        30 5
        """
        return "\n".join(f"{up} {down}" for up, down in self.periods)


_NUMBER = re.compile(r"^\d+(\.\d+)?$")


def _number(token: str, source: str, line: int, field: str) -> Time:
    if not _NUMBER.match(token):
        raise WorkloadFormatError(
            source,
            line,
            f"{field} {token!r} is not a non-negative number of seconds",
            field=field,
            value=token,
        )
    return int(token) if token.isdigit() else float(token)


def parse_availability(text: str, *, source: str = "<string>") -> AvailabilityPattern:
    """Read an availability pattern from its configuration text.

    The text holds pairs of numbers: "the amount of seconds a resource will
    be available followed by the amount of seconds the resource will be
    unavailable" (Verboven et al. 2008 §4.1). Numbers are separated by white space or
    commas, one pair per line or several on a line; `#` starts a comment.
    The paper uses integers; decimal seconds (`0.5`) are accepted too.

    Parameters
    ----------
    text
        The configuration text.
    source
        Name of the file (or stream) used in error messages.

    Returns
    -------
    AvailabilityPattern
        The pairs in order; the pattern repeats after the last pair.

    Raises
    ------
    WorkloadFormatError
        Naming the source, the line and the offending token: a token that is
        not a non-negative number, an uptime of 0, an uptime without a
        downtime after it, or no pair at all.

    Notes
    -----
    Complexity $O(n)$ in the length of the text.

    References
    ----------
    Verboven et al. (2008) §4.1.

    Examples
    --------
    >>> parse_availability("# resource 1\\n84 1\\n117, 1")
    AvailabilityPattern(periods=((84, 1), (117, 1)))
    >>> parse_availability("84 1\\n117", source="r2.cfg")
    Traceback (most recent call last):
    ...
    schedlib.errors.WorkloadFormatError: r2.cfg:2: uptime 117 has no downtime after it
    >>> parse_availability("84 x", source="r3.cfg")
    Traceback (most recent call last):
    ...
    schedlib.errors.WorkloadFormatError: r3.cfg:1: downtime 'x' is not a non-negative number ...
    """
    tokens: list[tuple[str, int]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        content = raw.split("#", 1)[0]
        tokens.extend((t, number) for t in re.split(r"[\s,]+", content) if t)
    if not tokens:
        raise WorkloadFormatError(source, None, "no (uptime, downtime) pair found")
    periods: list[tuple[Time, Time]] = []
    for i in range(0, len(tokens), 2):
        up_token, up_line = tokens[i]
        uptime = _number(up_token, source, up_line, "uptime")
        if uptime == 0:
            raise WorkloadFormatError(
                source, up_line, "uptime 0 is not allowed (must be > 0)", field="uptime", value=0
            )
        if i + 1 == len(tokens):
            raise WorkloadFormatError(
                source,
                up_line,
                f"uptime {up_token} has no downtime after it",
                field="downtime",
                value=None,
            )
        down_token, down_line = tokens[i + 1]
        periods.append((uptime, _number(down_token, source, down_line, "downtime")))
    return AvailabilityPattern(periods)


def read_availability(path: str | Path) -> AvailabilityPattern:
    """Read an availability pattern from a configuration file.

    Parameters
    ----------
    path
        The file; see [`parse_availability`][schedlib.availability.patterns.parse_availability]
        for its form.

    Returns
    -------
    AvailabilityPattern
        The pattern.

    Raises
    ------
    WorkloadFormatError
        If the file is malformed (naming file, line and token).
    OSError
        If the file cannot be read.
    """
    file = Path(path)
    return parse_availability(file.read_text(encoding="utf-8"), source=str(file))


_DISTRIBUTIONS = ("fixed", "uniform", "exponential")


def _check_distribution(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value not in _DISTRIBUTIONS:
        raise InvalidValueError(
            f"RestartDelay.{attribute.name}", value, f"must be one of {', '.join(_DISTRIBUTIONS)}"
        )


@attrs.frozen(slots=True)
class RestartDelay:
    """Extra time a resource needs to start after its planned downtime.

    The actual down duration of cycle $k$ is the pattern's downtime $d_k$
    plus one draw of this delay. The paper's rig restarts a resource after
    1 s and measures 1.2 s on average until it is available again (Verboven et al. 2008
    §4.2): a downtime of 1 s plus `RestartDelay(0.2, "uniform")`.

    Attributes
    ----------
    mean
        Mean delay in seconds, finite and `>= 0`.
    distribution
        `"fixed"` (always `mean`; the default), `"uniform"` (uniform on
        $[0, 2\\,\\text{mean}]$) or `"exponential"` (with that mean).
        Random draws are rounded to multiples of
        [`DELAY_RESOLUTION`][schedlib.availability.patterns.DELAY_RESOLUTION].

    Examples
    --------
    >>> RestartDelay(0.2).draw()
    0.2
    >>> d = RestartDelay(0.2, "uniform").draw(random.Random(1))
    >>> 0 <= d <= 0.4 and d * 1024 == int(d * 1024)
    True
    >>> RestartDelay(0.2, "uniform").draw()
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: rng = None: a random.Random is needed for a uniform delay
    """

    mean: Time = attrs.field(default=0, validator=finite_at_least(0))
    distribution: str = attrs.field(default="fixed", validator=_check_distribution)

    @property
    def is_random(self) -> bool:
        """Whether draws use randomness (a non-fixed distribution with a positive mean)."""
        return self.distribution != "fixed" and self.mean > 0

    def draw(self, rng: random.Random | None = None) -> Time:
        """One delay, in seconds.

        Parameters
        ----------
        rng
            The source of randomness; required unless the delay is fixed (or
            its mean is 0).

        Returns
        -------
        float
            The delay, `>= 0`.

        Raises
        ------
        InvalidValueError
            If a random delay is drawn without `rng`.
        """
        if not self.is_random:
            return self.mean
        if rng is None:
            raise InvalidValueError(
                "rng", None, f"a random.Random is needed for a {self.distribution} delay"
            )
        if self.distribution == "uniform":
            value = rng.uniform(0, 2 * self.mean)
        else:
            value = rng.expovariate(1 / self.mean)
        return round(value / DELAY_RESOLUTION) * DELAY_RESOLUTION


@attrs.frozen(slots=True)
class ResourceAvailability:
    """Everything about one resource's availability: what is planned and what happens.

    Attributes
    ----------
    planned
        The [`AvailabilityPattern`][schedlib.availability.patterns.AvailabilityPattern]
        the scheduler is told (Verboven et al. 2008 §2.2: "the amount of time this
        resource will remain available").
    actual
        The pattern the resource really follows; `None` (the default) means
        exactly the planned one ("exact availability"). A different actual
        pattern models wrong predictions: the scheduler never sees it.
    restart
        The startup delay added to every actual downtime.
    phase
        Seconds the resource has already been up when the run begins (its
        *starting phase*; 0 by default: every resource comes up at time 0).
        Finite, `>= 0` and shorter than the first actual uptime, so that the
        resource is up at time 0 and its first up period ends at
        `uptime(0) - phase`, as planned and as it happens. A resource of a
        test rig started before the test began is at some point of its
        cycle (Verboven et al. 2008 §4.1 does not say when the workers were
        started relative to the test).

    Examples
    --------
    >>> r = ResourceAvailability(AvailabilityPattern.repeating(84, 1), restart=RestartDelay(0.2))
    >>> r.truth is r.planned, r.exact, r.phase
    (True, True, 0)
    >>> ResourceAvailability(AvailabilityPattern.repeating(84, 1), phase=84)
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: ResourceAvailability.phase = 84: must be shorter than ...
    """

    planned: AvailabilityPattern = attrs.field(
        validator=attrs.validators.instance_of(AvailabilityPattern)
    )
    actual: AvailabilityPattern | None = attrs.field(
        default=None,
        validator=attrs.validators.optional(attrs.validators.instance_of(AvailabilityPattern)),
    )
    restart: RestartDelay = attrs.field(
        factory=RestartDelay, validator=attrs.validators.instance_of(RestartDelay)
    )
    phase: Time = attrs.field(default=0, validator=finite_at_least(0))

    @phase.validator
    def _phase_within_first_uptime(self, attribute: attrs.Attribute[Time], value: Time) -> None:
        first = self.truth.uptime(0)
        if not value < first:
            raise InvalidValueError(
                "ResourceAvailability.phase",
                value,
                f"must be shorter than the first actual uptime ({first} s)",
            )

    @property
    def truth(self) -> AvailabilityPattern:
        """The pattern the resource actually follows."""
        return self.planned if self.actual is None else self.actual

    @property
    def exact(self) -> bool:
        """Whether the actual uptimes are the planned ones."""
        return self.actual is None or self.actual == self.planned


@attrs.frozen(slots=True)
class UpPeriod:
    """One stretch of time during which a resource was actually available.

    Attributes
    ----------
    resource
        Index of the resource.
    cycle
        Cycle number $k$ (0 for the first time the resource came up).
    start
        When it became available.
    planned_end
        When the plan said it would go down (`start` plus the planned
        uptime; infinite for a resource that never goes down).
    end
        When it actually went down; infinite if it was still up when the run
        ended.

    Examples
    --------
    >>> UpPeriod(0, 0, 0, 84, 84).contains(83.5)
    True
    """

    resource: int = attrs.field(validator=at_least(0))
    cycle: int = attrs.field(validator=at_least(0))
    start: Time
    planned_end: Time
    end: Time

    def contains(self, time: Time) -> bool:
        """Whether the resource was up at `time` (half-open: `[start, end)`)."""
        return self.start <= time < self.end
