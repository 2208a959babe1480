"""A progress bar on standard error for long runs, silent when not a terminal.

The bar shows how far the run is and, once it is under way, an estimate of
the time left (elapsed time scaled by the share still to do).

Examples
--------
>>> import io
>>> bar = ProgressBar(100, "easy", stream=io.StringIO())  # not a terminal: disabled
>>> bar(50, 1000); bar.close()
>>> bar.enabled
False
"""

from __future__ import annotations

import sys
import time
from typing import IO

__all__ = ["ProgressBar", "remaining_time"]


def remaining_time(elapsed: float, share: float) -> str:
    """The estimate of the time left, as the bar shows it (empty until 1 % is done).

    Notes
    -----
    $t_{left} = t_{elapsed} (1 - s) / s$ for the share $s$ done.

    Examples
    --------
    >>> remaining_time(30, 0.25), remaining_time(5, 0.5), remaining_time(1, 0.001)
    ('  1m30s left', '  5s left', '')
    """
    if share < 0.01:
        return ""
    seconds = round(elapsed * (1 - share) / share)
    if seconds >= 3600:
        return f"  {seconds // 3600}h{seconds % 3600 // 60:02d}m left"
    if seconds >= 60:
        return f"  {seconds // 60}m{seconds % 60:02d}s left"
    return f"  {seconds}s left"


class ProgressBar:
    """Draw `label [#####     ] 42%` on a terminal as simulated time advances.

    Callable as the engine's `progress(now, handled)` callback. Redraws at
    most ten times a second; does nothing when `stream` is not a terminal
    (or `enabled=False`), so piped output and logs stay clean.

    Parameters
    ----------
    total
        The value of `now` that means 100% (e.g. the last submission time).
    label
        Text before the bar.
    stream
        Where to draw; standard error by default.
    enabled
        Force on or off; by default on exactly when `stream` is a terminal.
    """

    def __init__(
        self,
        total: float,
        label: str,
        *,
        stream: IO[str] | None = None,
        enabled: bool | None = None,
    ) -> None:
        self.total = total if total > 0 else 1
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self._last = 0.0
        self._began: float | None = None

    def __call__(self, now: float, handled: int = 0) -> None:
        if not self.enabled:
            return
        clock = time.monotonic()
        if self._began is None:
            self._began = clock
        if clock - self._last < 0.1:
            return
        self._last = clock
        share = min(max(now / self.total, 0.0), 1.0)
        filled = int(share * 30)
        left = remaining_time(clock - self._began, share)
        self.stream.write(
            f"\r{self.label} [{'#' * filled}{' ' * (30 - filled)}] {share:4.0%}{left:>14}"
        )
        self.stream.flush()

    def close(self) -> None:
        """Erase the bar."""
        if self.enabled:
            self.stream.write("\r" + " " * (len(self.label) + 54) + "\r")
            self.stream.flush()

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
