"""Time for the strategies: whole seconds, or a float tick that rounds.

Strategies count times in *ticks*. With `times="integer"` a tick is one second
and every time a model computes is an exact integer (as in the SWF traces).
With `times="float"` a tick is one of
[`FLOAT_TICKS`][schedlib.testing.strategies.clock.FLOAT_TICKS], none exact in
binary, and submit times start at one of
[`FLOAT_ORIGINS`][schedlib.testing.strategies.clock.FLOAT_ORIGINS]: times that
are equal in real arithmetic (a job ending exactly as another's reservation
begins) come out equal or an ulp apart depending on how they were summed. A
model that subtracts before comparing ($S - t \\ge d$ where the paper writes
$t + d \\le S$) decides differently there, and only there. `"mixed"` draws
either, and shrinks towards whole seconds.

Examples
--------
>>> from hypothesis import find
>>> find(clocks("mixed"), lambda clock: True)
Clock(tick=1, origin=0)
>>> clock = Clock(0.1, 0.0)
>>> clock.at(3), clock.span(1) + clock.span(2)
(0.30000000000000004, 0.30000000000000004)
>>> clock.span(1) + clock.span(2) == 0.3
False
"""

from __future__ import annotations

from typing import NamedTuple

from hypothesis import strategies as st

from schedlib.errors import InvalidValueError

__all__ = ["FLOAT_ORIGINS", "FLOAT_TICKS", "TIME_MODES", "Clock", "clocks"]

TIME_MODES = ("mixed", "integer", "float")
"""Accepted values of the `times` bound: what one tick of time is (see the module)."""

FLOAT_TICKS: tuple[float, ...] = (0.1, 1 / 3, 23.3 / 17.7, 0.7)
"""Float ticks: none is exact in binary, so sums of ticks round (`23.3 / 17.7` is a
runtime factor of Table 1 of Sabin et al. 2003, as the multi-site runs use)."""

FLOAT_ORIGINS: tuple[float, ...] = (0.0, 734831.4662961123)
"""Where float submit times start: 0, or far enough from 0 that an ulp is large
(a time of the multi-site runs)."""


class Clock(NamedTuple):
    """One instance's time scale: a time of `k` ticks is `origin + k * tick` (submits)."""

    tick: float
    origin: float

    def at(self, ticks: int) -> float:
        """A submit time."""
        return ticks if self.tick == 1 else self.origin + ticks * self.tick

    def span(self, ticks: int) -> float:
        """A duration."""
        return ticks if self.tick == 1 else ticks * self.tick


@st.composite
def _clocks(draw: st.DrawFn, times: str) -> Clock:
    """Whole seconds, or a float tick and origin (`"mixed"` shrinks towards whole seconds)."""
    if times == "integer" or (times == "mixed" and not draw(st.booleans())):
        return Clock(1, 0)
    return Clock(draw(st.sampled_from(FLOAT_TICKS)), draw(st.sampled_from(FLOAT_ORIGINS)))


def clocks(times: str = "mixed") -> st.SearchStrategy[Clock]:
    """One instance's clock: whole seconds, or a float tick and origin.

    Parameters
    ----------
    times
        `"mixed"` (either, shrinking towards whole seconds), `"integer"` or
        `"float"`.

    Raises
    ------
    InvalidValueError
        For another `times`.
    """
    if times not in TIME_MODES:
        raise InvalidValueError("times", times, f"must be one of {', '.join(TIME_MODES)}")
    return _clocks(times)
