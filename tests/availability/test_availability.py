"""Availability patterns, their configuration form, restart delays (Verboven et al. 2008 §4)."""

from __future__ import annotations

import math
import random
import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlib.availability.patterns import (
    DELAY_RESOLUTION,
    AvailabilityPattern,
    ResourceAvailability,
    RestartDelay,
    UpPeriod,
    parse_availability,
    read_availability,
)
from schedlib.errors import InvalidValueError, WorkloadFormatError
from schedlib.testing.strategies import availability_patterns, restart_delays


def test_pattern_cycles_through_its_pairs() -> None:
    pattern = AvailabilityPattern([(84, 1), (30, 5)])
    assert [pattern.uptime(k) for k in range(4)] == [84, 30, 84, 30]
    assert [pattern.downtime(k) for k in range(4)] == [1, 5, 1, 5]
    assert pattern.longest_uptime == 84
    assert pattern.next_down(10, 1) == 40
    assert pattern.remaining_uptime(10, 1, 25) == 15
    assert pattern.remaining_uptime(10, 1, 45) == 0  # past the planned down time


def test_always_up_never_goes_down() -> None:
    pattern = AvailabilityPattern.always_up()
    assert pattern.next_down(5, 3) == math.inf
    assert pattern.remaining_uptime(5, 3, 1e9) == math.inf


@pytest.mark.parametrize(
    ("periods", "field"),
    [
        ([], "AvailabilityPattern.periods"),
        ([(0, 1)], "AvailabilityPattern.periods[0].uptime"),
        ([(5, 1), (-1, 1)], "AvailabilityPattern.periods[1].uptime"),
        ([(5, -1)], "AvailabilityPattern.periods[0].downtime"),
        ([(5, math.inf)], "AvailabilityPattern.periods[0].downtime"),
        ([(math.nan, 1)], "AvailabilityPattern.periods[0].uptime"),
        ([("5", 1)], "AvailabilityPattern.periods[0].uptime"),
        ([5], "AvailabilityPattern.periods"),
    ],
)
def test_bad_patterns_name_the_field(periods: list, field: str) -> None:
    with pytest.raises(InvalidValueError) as info:
        AvailabilityPattern(periods)
    assert info.value.field == field


def test_parse_the_papers_configuration() -> None:
    text = "# resource 1 of Table 1\n84 1\n\n117 1  # then a longer one\n"
    assert parse_availability(text).periods == ((84, 1), (117, 1))
    assert parse_availability("84,1,30,0.5").periods == ((84, 1), (30, 0.5))


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("", None, "no (uptime, downtime) pair"),
        ("# only a comment\n", None, "no (uptime, downtime) pair"),
        ("84 1\n117", 2, "uptime 117 has no downtime after it"),
        ("84 1\n0 5", 2, "uptime 0 is not allowed"),
        ("84 1\n30 abc", 2, "downtime 'abc' is not a non-negative number"),
        ("84 1\n\n-3 1", 3, "uptime '-3' is not a non-negative number"),
        ("1e3 1", 1, "uptime '1e3'"),
    ],
)
def test_parse_errors_name_line_and_token(text: str, line: int | None, message: str) -> None:
    with pytest.raises(WorkloadFormatError) as info:
        parse_availability(text, source="r1.cfg")
    assert info.value.line == line
    assert info.value.path == "r1.cfg"
    assert message in str(info.value)


def test_read_availability_from_a_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "r8.cfg"
    path.write_text("864 1\n")
    assert read_availability(path) == AvailabilityPattern.repeating(864, 1)
    bad = tmp_path / "bad.cfg"
    bad.write_text("864\n")
    with pytest.raises(WorkloadFormatError, match=r"bad\.cfg:1: uptime 864 has no downtime"):
        read_availability(bad)


@given(availability_patterns(max_pairs=4, max_uptime=1000, max_downtime=50))
def test_configuration_round_trip(pattern: AvailabilityPattern) -> None:
    assert parse_availability(pattern.to_text()) == pattern


@given(availability_patterns(), st.integers(0, 20), st.integers(0, 10**6), st.integers(0, 200))
def test_remaining_uptime_is_the_planned_end_minus_now(
    pattern: AvailabilityPattern, cycle: int, up_since: int, offset: int
) -> None:
    now = up_since + offset
    remaining = pattern.remaining_uptime(up_since, cycle, now)
    assert 0 <= remaining <= pattern.uptime(cycle) <= pattern.longest_uptime
    assert remaining == max(0, pattern.next_down(up_since, cycle) - now)


def test_fixed_delay_needs_no_randomness() -> None:
    assert RestartDelay().draw() == 0
    assert RestartDelay(0.2).draw() == 0.2
    assert not RestartDelay(0, "uniform").is_random
    assert RestartDelay(0, "exponential").draw() == 0


@pytest.mark.parametrize("distribution", ["uniform", "exponential"])
def test_random_delays_have_the_given_mean(distribution: str) -> None:
    delay = RestartDelay(0.2, distribution)
    rng = random.Random(7)
    draws = [delay.draw(rng) for _ in range(4000)]
    assert abs(statistics.fmean(draws) - 0.2) < 0.02
    assert all(d >= 0 and d / DELAY_RESOLUTION == int(d / DELAY_RESOLUTION) for d in draws)
    if distribution == "uniform":
        assert max(draws) <= 0.4
    # Same seed, same draws.
    again = random.Random(7)
    assert [delay.draw(again) for _ in range(4000)] == draws


def test_random_delay_without_rng_is_an_error() -> None:
    with pytest.raises(InvalidValueError, match="rng"):
        RestartDelay(1, "exponential").draw()


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"mean": -1}, "RestartDelay.mean"),
        ({"distribution": "normal"}, "RestartDelay.distribution"),
    ],
)
def test_bad_delays_name_the_field(kwargs: dict, field: str) -> None:
    with pytest.raises(InvalidValueError) as info:
        RestartDelay(**kwargs)
    assert info.value.field == field


@given(restart_delays(), st.integers(0, 1000))
def test_drawn_delays_are_non_negative_and_on_the_grid(delay: RestartDelay, seed: int) -> None:
    value = delay.draw(random.Random(seed))
    assert value >= 0
    if delay.is_random:
        assert value / DELAY_RESOLUTION == int(value / DELAY_RESOLUTION)


def test_resource_availability_truth_and_exactness() -> None:
    plan = AvailabilityPattern.repeating(84, 1)
    assert ResourceAvailability(plan).exact
    assert ResourceAvailability(plan, plan).exact
    shorter = ResourceAvailability(plan, AvailabilityPattern.repeating(60, 1))
    assert not shorter.exact
    assert shorter.truth.uptime(0) == 60
    with pytest.raises(TypeError):
        ResourceAvailability("84 1")  # type: ignore[arg-type]


def test_up_period_is_half_open() -> None:
    period = UpPeriod(0, 0, 10, 94, 94)
    assert period.contains(10) and period.contains(93.9)
    assert not period.contains(94) and not period.contains(9)


@pytest.mark.parametrize(
    ("phase", "message"),
    [(-1, "must be a finite number >= 0"), (math.inf, "finite"), (60, "shorter than the first")],
)
def test_bad_phases_name_the_field(phase: float, message: str) -> None:
    plan = AvailabilityPattern.repeating(84, 1)
    with pytest.raises(InvalidValueError, match=f"ResourceAvailability.phase = .*{message}"):
        ResourceAvailability(plan, AvailabilityPattern.repeating(60, 1), phase=phase)


def test_a_phase_shortens_the_first_up_period_as_planned_and_as_it_happens() -> None:
    from schedlib.availability import BagJob, simulate_volatile_grid

    resource = ResourceAvailability(AvailabilityPattern.repeating(84, 1), phase=80)
    # PGS sees 4 s left: the 10 s job waits for the next up period (5..89); FCFS loses it once.
    pgs = simulate_volatile_grid([BagJob(1, 0, 10), BagJob(2, 0, 3)], [resource])
    assert (pgs.makespan, pgs.failures) == (15, 0)
    assert pgs.up_periods[0].start == -80 and pgs.up_periods[0].end == 4
    fcfs = simulate_volatile_grid([BagJob(1, 0, 10)], [resource], policy="fcfs")
    assert (fcfs.failures, fcfs.wasted_work, fcfs.makespan) == (1, 4, 15)
