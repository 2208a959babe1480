"""Desktop grid model: multi-task jobs and processors whose speed varies over time.

Mine et al. (2007; Mine et al., "Priority Control to Avoid Job Overtaking in Multiple
Job Scheduling for a Desktop Grid") §2: a *task* is the unit of scheduling, a
*job* is a set of independent tasks, a task's *size* is its number of
instructions and a processor's *speed* is the number of instructions it
computes per unit of time. The speed is the spare power left by the PC's
owner: it varies over time and may be zero (heavy load, PC switched off).

This module holds the model's data only:

- [`TaskJob`][schedlib.deferment.desktopgrid.TaskJob]: a job of independent tasks (its
  size is the sum of its tasks' sizes);
- [`SpeedHistory`][schedlib.deferment.desktopgrid.SpeedHistory]: a user-given,
  piecewise-constant speed over time;
- [`LoadModel`][schedlib.deferment.desktopgrid.LoadModel] and
  [`MarkovSpeedHistory`][schedlib.deferment.desktopgrid.MarkovSpeedHistory]: the paper's
  two-state low-load / high-load processor model (§5.1, Table 1), seeded;
- [`Processor`][schedlib.deferment.desktopgrid.Processor]: a peak speed and a speed
  history.

Every speed history is *piecewise constant*: the speed holds on half-open
pieces `[start, end)`, so a simulation only needs an event where the speed of
a busy processor changes (see [`schedlib.deferment.farm`][schedlib.deferment.farm]).
Schedulers never see these histories
([`schedlib.deferment.selection`][schedlib.deferment.selection] hands them a snapshot without
speeds).

Examples
--------
>>> job = TaskJob(id=1, submit=0, tasks=(300, 100))
>>> job.size, job.n_tasks, job.procs
(400, 2, 1)
>>> history = SpeedHistory(times=(0, 10, 20), speeds=(10, 0, 5))
>>> history.segment_at(12)
(0, 20)
>>> finish_time(history, 0, 150)   # 100 instructions by t=10, stalled, 50 more at speed 5
30.0
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Iterable, Sequence
from typing import Any, Protocol, runtime_checkable

import attrs

from schedlib.errors import InvalidValueError
from schedlib.model import JobId, Time
from schedlib.validation import at_least, finite_at_least, greater_than, require

__all__ = [
    "LoadModel",
    "MarkovSpeedHistory",
    "Processor",
    "SpeedHistory",
    "SpeedSource",
    "TaskJob",
    "finish_time",
    "markov_grid",
    "work_done",
]


def _task_sizes(sizes: Iterable[float]) -> tuple[float, ...]:
    """Convert and check task sizes (a converter, so that `size` is computed from valid ones)."""
    value = tuple(sizes)
    if not value:
        raise InvalidValueError("TaskJob.tasks", value, "a job needs at least one task")
    for index, size in enumerate(value):
        if (
            not isinstance(size, (int, float))
            or isinstance(size, bool)
            or not size > 0
            or math.isinf(size)
        ):
            raise InvalidValueError(
                f"TaskJob.tasks[{index}]", size, "must be a finite number of instructions > 0"
            )
    return value


@attrs.frozen(slots=True)
class TaskJob:
    """A job made of independent tasks (Mine et al. 2007 §2).

    Attributes
    ----------
    id
        Unique identifier, `>= 0`.
    submit
        Submission time, a finite number `>= 0`.
    tasks
        Each task's size in instructions (finite, `> 0`); at least one task.
        Task `i` is the `i`-th entry.
    size
        The job's size: the sum of its tasks' sizes (computed, not given; the
        exact sum rounded once, so it does not depend on the tasks' order).
        Overtaking and task deferment compare jobs by this number.

    Notes
    -----
    A task runs on one processor at a time, so the job holds one processing
    unit per running instance: `procs` is 1, which lets
    [`RunRecord`][schedlib.model.RunRecord] and the metrics treat a task
    instance like a one-processor job.

    Examples
    --------
    >>> TaskJob(3, 5, (2_000_000, 6_000_000)).size
    8000000
    >>> TaskJob(3, 5, ())
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: TaskJob.tasks = (): a job needs at least one task
    """

    id: JobId = attrs.field(validator=at_least(0))
    submit: Time = attrs.field(validator=finite_at_least(0))
    tasks: tuple[float, ...] = attrs.field(converter=_task_sizes)
    size: float = attrs.field(init=False)

    @size.default
    def _sum_sizes(self) -> float:
        # The exact sum rounded once (math.fsum): a plain float sum depends on the
        # order of the tasks, and the rules compare sizes. Whole sizes stay whole.
        if all(isinstance(size, int) for size in self.tasks):
            return sum(self.tasks)
        return math.fsum(self.tasks)

    @property
    def n_tasks(self) -> int:
        """Number of tasks."""
        return len(self.tasks)

    @property
    def procs(self) -> int:
        """Processing units one instance holds: always 1."""
        return 1


@runtime_checkable
class SpeedSource(Protocol):
    """What the simulation asks of a processor's speed over time.

    Implemented by [`SpeedHistory`][schedlib.deferment.desktopgrid.SpeedHistory] and
    [`MarkovSpeedHistory`][schedlib.deferment.desktopgrid.MarkovSpeedHistory]; implement
    it to plug in another speed model (e.g. a trace of real PC load).
    """

    @property
    def max_speed(self) -> float:
        """An upper bound of the speed over all time."""
        ...

    def segment_at(self, time: Time) -> tuple[float, Time]:
        """The speed at `time` and the end of the constant piece holding `time`.

        The piece is half-open, `[start, end)` with `start <= time < end`;
        `end` is `math.inf` when the speed never changes again.
        """
        ...


def _float_tuple(value: Iterable[float]) -> tuple[float, ...]:
    return tuple(value)


@attrs.frozen(slots=True)
class SpeedHistory:
    """A user-given piecewise-constant speed: `speeds[i]` on `[times[i], times[i+1])`.

    The last speed holds forever. Speeds may be zero (a stalled or switched
    off PC); a processor whose last speed is zero never finishes a task
    started on it after the last change, and a run that depends on such a
    task stops with [`SimulationStuckError`][schedlib.errors.SimulationStuckError].

    Attributes
    ----------
    times
        Change times: `times[0] == 0`, strictly increasing, finite.
    speeds
        Speed (instructions per time unit) from each change time on: finite,
        `>= 0`, as many as `times`.

    Raises
    ------
    InvalidValueError
        Naming the first bad entry.

    Examples
    --------
    >>> h = SpeedHistory(times=(0, 4), speeds=(2, 0))
    >>> h.segment_at(0), h.segment_at(3.5), h.segment_at(4)
    ((2, 4), (2, 4), (0, inf))
    >>> SpeedHistory(times=(0, 4, 4), speeds=(1, 2, 3))
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: SpeedHistory.times[2] = 4: must be > the previous ...
    """

    times: tuple[float, ...] = attrs.field(converter=_float_tuple)
    speeds: tuple[float, ...] = attrs.field(converter=_float_tuple)

    def __attrs_post_init__(self) -> None:
        if len(self.times) != len(self.speeds) or not self.times:
            raise InvalidValueError(
                "SpeedHistory.speeds",
                self.speeds,
                f"needs one speed per change time ({len(self.times)} time(s)), at least one",
            )
        if self.times[0] != 0:
            raise InvalidValueError("SpeedHistory.times[0]", self.times[0], "must be 0")
        for index, (time, speed) in enumerate(zip(self.times, self.speeds, strict=True)):
            if not isinstance(time, (int, float)) or isinstance(time, bool) or math.isinf(time):
                raise InvalidValueError(f"SpeedHistory.times[{index}]", time, "must be finite")
            if index and not time > self.times[index - 1]:
                raise InvalidValueError(
                    f"SpeedHistory.times[{index}]",
                    time,
                    f"must be > the previous change time {self.times[index - 1]}",
                )
            if (
                not isinstance(speed, (int, float))
                or isinstance(speed, bool)
                or not speed >= 0
                or math.isinf(speed)
            ):
                raise InvalidValueError(
                    f"SpeedHistory.speeds[{index}]", speed, "must be a finite number >= 0"
                )

    @classmethod
    def constant(cls, speed: float) -> SpeedHistory:
        """The history of a processor whose speed never changes.

        Examples
        --------
        >>> SpeedHistory.constant(3).segment_at(1e9)
        (3, inf)
        """
        return cls(times=(0,), speeds=(speed,))

    @property
    def max_speed(self) -> float:
        """The largest speed of the history."""
        return max(self.speeds)

    def segment_at(self, time: Time) -> tuple[float, Time]:
        """The speed at `time` and the end of its piece (`math.inf` for the last).

        Complexity: $O(\\log k)$ for $k$ pieces.
        """
        index = bisect.bisect_right(self.times, time) - 1
        end = self.times[index + 1] if index + 1 < len(self.times) else math.inf
        return self.speeds[max(index, 0)], end


def _probability(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 < value <= 1:
        raise InvalidValueError(
            f"{type(instance).__name__}.{attribute.name}", value, "must be a probability in (0, 1]"
        )


def _fraction_range(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    name = f"{type(instance).__name__}.{attribute.name}"
    if len(value) != 2 or not all(isinstance(v, (int, float)) for v in value):
        raise InvalidValueError(name, value, "must be a pair (lowest, highest)")
    low, high = value
    if not 0 <= low <= high <= 1:
        raise InvalidValueError(name, value, "must satisfy 0 <= lowest <= highest <= 1")


def _pair(value: Iterable[float]) -> tuple[float, ...]:
    return tuple(value)


@attrs.frozen(slots=True)
class LoadModel:
    """The paper's two-state load model of a desktop PC (Mine et al. 2007 §5.1, Table 1).

    At each time step a processor in the low-load state moves to the
    high-load state with probability `to_high`, and back with probability
    `to_low`. In the low-load state the grid gets 95-100% of the peak speed,
    in the high-load state 0-5%.

    Attributes
    ----------
    to_high
        Probability per time step of switching low -> high (paper: 1/1000).
    to_low
        Probability per time step of switching high -> low (paper: 1/100).
    low
        Range of the speed in the low-load state, as fractions of the peak
        (paper: 95%-100%).
    high
        Range of the speed in the high-load state (paper: 0%-5%).

    Notes
    -----
    **Interpretation** (ours): the paper does not say how often the speed is
    drawn within a state. We draw it once per state visit, uniformly in the
    state's range, so the speed is piecewise constant and changes only when
    the state does; the simulation is then event-driven. A visit lasts a
    geometric number of whole time steps, $P(k) = (1-p)^{k-1} p$ for
    $k \\ge 1$, which is exactly the paper's per-step switching. The first
    state is drawn from the stationary distribution,
    $P(\\text{low}) = p_{hl} / (p_{lh} + p_{hl}) = 10/11$ with the paper's
    values (the paper is silent on it).

    | paper (Table 1) | attribute |
    |---|---|
    | probability of transition low -> high, 1/1000 | `to_high` |
    | probability of transition high -> low, 1/100 | `to_low` |
    | speed at low-load state, 95%-100% | `low` |
    | speed at high-load state, 0%-5% | `high` |

    Examples
    --------
    >>> round(LoadModel().low_share(), 6)   # 10/11
    0.909091
    >>> LoadModel(to_high=0)
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: LoadModel.to_high = 0: must be a probability in (0, 1]
    """

    to_high: float = attrs.field(default=1 / 1000, validator=_probability)
    to_low: float = attrs.field(default=1 / 100, validator=_probability)
    low: tuple[float, ...] = attrs.field(
        default=(0.95, 1.0), converter=_pair, validator=_fraction_range
    )
    high: tuple[float, ...] = attrs.field(
        default=(0.0, 0.05), converter=_pair, validator=_fraction_range
    )

    def low_share(self) -> float:
        """Stationary probability of the low-load state."""
        return self.to_low / (self.to_low + self.to_high)

    def history(self, peak: float, seed: int) -> MarkovSpeedHistory:
        """A seeded speed history of a processor of peak speed `peak` under this model."""
        return MarkovSpeedHistory(peak=peak, seed=seed, model=self)


class _MarkovPieces:
    """The pieces generated so far (private memo of a MarkovSpeedHistory)."""

    __slots__ = ("ends", "low", "rng", "speeds", "starts")

    def __init__(self, seed: int, model: LoadModel) -> None:
        self.rng = random.Random(seed)
        self.low = self.rng.random() < model.low_share()
        self.starts: list[float] = []
        self.ends: list[float] = [0]
        self.speeds: list[float] = []


def _steps(rng: random.Random, p: float) -> int:
    """A geometric number of whole steps >= 1 with success probability `p` per step."""
    if p >= 1:
        return 1
    return 1 + int(math.log(1.0 - rng.random()) / math.log1p(-p))


@attrs.frozen(slots=True)
class MarkovSpeedHistory:
    """A processor's speed under [`LoadModel`][schedlib.deferment.desktopgrid.LoadModel], seeded.

    The pieces are generated lazily, in time order, from `random.Random(seed)`
    and remembered: the history is a pure function of `(peak, seed, model)`
    whatever the order of the queries (the memo is private and never
    observable).

    Attributes
    ----------
    peak
        Peak speed (instructions per time unit without load), `> 0`.
    seed
        Seed of this processor's random stream.
    model
        The load model (default: the paper's parameters).

    Examples
    --------
    >>> h = MarkovSpeedHistory(peak=10_000, seed=1)
    >>> speed, end = h.segment_at(0)
    >>> speed <= 10_000 and end >= 1
    True
    >>> h.segment_at(5_000) == MarkovSpeedHistory(peak=10_000, seed=1).segment_at(5_000)
    True
    """

    peak: float = attrs.field(validator=[greater_than(0), finite_at_least(0)])
    seed: int
    model: LoadModel = attrs.field(factory=LoadModel)
    _pieces: _MarkovPieces = attrs.field(init=False, eq=False, repr=False)

    @_pieces.default
    def _start(self) -> _MarkovPieces:
        return _MarkovPieces(self.seed, self.model)

    @property
    def max_speed(self) -> float:
        """Upper bound of the speed: the top of the low-load range times the peak."""
        return self.peak * self.model.low[1]

    def segment_at(self, time: Time) -> tuple[float, Time]:
        """The speed at `time` and the end of its piece.

        Complexity: $O(\\log k)$ for the $k$ pieces generated so far, plus the
        generation of the pieces up to `time` on first use.
        """
        pieces = self._pieces
        ends = pieces.ends
        if ends[-1] <= time:
            self._extend(time)
        index = bisect.bisect_right(pieces.starts, time) - 1
        return pieces.speeds[index], ends[index + 1]

    def _extend(self, time: Time) -> None:
        pieces, model = self._pieces, self.model
        rng, peak = pieces.rng, self.peak
        while pieces.ends[-1] <= time:
            start = pieces.ends[-1]
            if pieces.low:
                steps = _steps(rng, model.to_high)
                share = rng.uniform(model.low[0], model.low[1])
            else:
                steps = _steps(rng, model.to_low)
                share = rng.uniform(model.high[0], model.high[1])
            pieces.starts.append(start)
            pieces.speeds.append(peak * share)
            pieces.ends.append(start + steps)
            pieces.low = not pieces.low


def _speed_within_peak(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, SpeedSource):
        raise InvalidValueError(
            "Processor.speed", value, "must provide segment_at(time) and max_speed"
        )
    if value.max_speed > instance.peak:
        raise InvalidValueError(
            "Processor.speed",
            value.max_speed,
            f"the history's top speed exceeds the peak speed {instance.peak}",
        )


@attrs.frozen(slots=True)
class Processor:
    """A desktop PC of the grid: a peak speed and the speed history the grid gets.

    Attributes
    ----------
    peak
        Speed without any owner load (instructions per time unit), `> 0`.
    speed
        The speed over time (any [`SpeedSource`][schedlib.deferment.desktopgrid.SpeedSource]);
        never above `peak`.

    Examples
    --------
    >>> Processor(10, SpeedHistory.constant(10)).peak
    10
    >>> Processor(10, SpeedHistory.constant(12))
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: Processor.speed = 12: the history's top speed exceeds ...
    """

    peak: float = attrs.field(validator=[greater_than(0), finite_at_least(0)])
    speed: SpeedSource = attrs.field(validator=_speed_within_peak)


def markov_grid(
    peaks: Sequence[float], seed: int, model: LoadModel | None = None
) -> tuple[Processor, ...]:
    """Processors with the given peak speeds, each with its own seeded Markov history.

    Parameters
    ----------
    peaks
        Peak speed of each processor; processor `i` gets `peaks[i]`.
    seed
        Master seed; each processor's stream is seeded from it.
    model
        The load model (default: the paper's).

    Returns
    -------
    tuple of Processor
        One per peak, in order.

    Examples
    --------
    >>> grid = markov_grid([10_000, 20_000], seed=7)
    >>> [p.peak for p in grid]
    [10000, 20000]
    >>> grid == markov_grid([10_000, 20_000], seed=7)
    True
    """
    load = model if model is not None else LoadModel()
    rng = random.Random(seed)
    return tuple(Processor(peak, load.history(peak, rng.getrandbits(63))) for peak in peaks)


def work_done(speed: SpeedSource, start: Time, end: Time) -> float:
    """Instructions a processor computes over `[start, end)`: the integral of its speed.

    Parameters
    ----------
    speed
        The processor's speed history.
    start, end
        The interval, `start <= end`.

    Returns
    -------
    float
        $\\int_{start}^{end} s(t)\\,dt$.

    Notes
    -----
    Complexity: $O(k)$ for the $k$ pieces crossed.

    Examples
    --------
    >>> work_done(SpeedHistory((0, 10), (2, 5)), 5, 12)
    20
    """
    require(end - start, "end - start", at_least=0)
    total: float = 0
    time = start
    while time < end:
        rate, until = speed.segment_at(time)
        stop = min(until, end)
        total += rate * (stop - time)
        time = stop
    return total


def finish_time(speed: SpeedSource, start: Time, work: float) -> Time:
    """When `work` instructions started at `start` are done: a brute-force reference.

    Walks the speed pieces one by one (the simulation reaches the same times
    through events; this function is the specification it is tested against).

    Parameters
    ----------
    speed
        The processor's speed history.
    start
        Start time.
    work
        Instructions to compute, `> 0`.

    Returns
    -------
    float
        The finish time, or `math.inf` if the speed is zero forever before the
        work is done.

    Notes
    -----
    The work completes in the piece `[t, e)` of speed $s$ where the remaining
    work $w$ satisfies $t + w / s \\le e$, at $t + w / s$ (compared as written: with
    float times $w \\le s (e - t)$ can fail where $t + w / s = e$).
    Complexity: $O(k)$ for the $k$ pieces crossed.

    Examples
    --------
    >>> finish_time(SpeedHistory((0, 10), (0, 4)), 2, 8)
    12.0
    >>> finish_time(SpeedHistory((0, 10), (1, 0)), 2, 9)
    inf
    """
    require(work, "work", greater_than=0)
    time, left = start, float(work)
    while True:
        rate, until = speed.segment_at(time)
        if rate > 0 and time + left / rate <= until:
            return time + left / rate
        if math.isinf(until):
            return math.inf
        left -= rate * (until - time)
        time = until
