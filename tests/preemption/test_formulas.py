"""Priority, BM/FM, PUSH/PULL choices, queue balancing, topologies and the matchmaker."""

from __future__ import annotations

import math
from fractions import Fraction

import attrs
import hypothesis
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlib.errors import InvalidValueError
from schedlib.preemption.decision import Contender
from schedlib.preemption.migration import (
    NeighbourView,
    balance_measure,
    balance_pull,
    balance_push,
    choose_pull_job,
    choose_push_target,
    fullness_measure,
    placement_objective,
    pull_partners,
    push_objective,
    queue_load,
    queue_load_vector,
)
from schedlib.preemption.priority import (
    ExactPriority,
    overtake_delay,
    overtake_window,
    priority,
)
from schedlib.preemption.resources import GridJob, GridNode, fits, normalised, subtract
from schedlib.preemption.state import JobProgress, contender, exact_priority, resumed, waiting
from schedlib.preemption.topology import (
    Matchmaker,
    Topology,
    from_edges,
    ring,
    similar_capability,
)
from schedlib.testing.strategies import grid_nodes, load_keys, resource_vectors
from schedlib.testing.strategies.clock import clocks

shares = st.lists(st.floats(0, 1), min_size=1, max_size=4)


# -- priority ------------------------------------------------------------------------------


@given(st.floats(0, 1000), st.floats(0, 5000), st.floats(0, 3), st.floats(0, 3), st.floats(0, 4000))
def test_overtake_delay_matches_a_brute_force_walk(
    gap: float, remaining: float, alpha: float, beta: float, horizon: float
) -> None:
    """At the returned delay the gap is closed; before it, it is open (sampled)."""

    def gap_at(t: float) -> float:
        running = beta * min(t, remaining)
        return gap + running - alpha * t

    delay = overtake_delay(gap, alpha=alpha, beta=beta, remaining=remaining)
    if math.isinf(delay):
        assert gap_at(horizon) > -1e-6 * max(1.0, gap)
        return
    assert abs(gap_at(delay)) <= 1e-6 * max(1.0, gap, alpha * delay)
    for t in (delay * f for f in (0.0, 0.25, 0.5, 0.9)):
        assert gap_at(t) >= -1e-6 * max(1.0, gap, alpha * delay)


def test_priority_and_window() -> None:
    assert priority(100, 50, alpha=0.5, beta=2.0) == -50.0
    assert overtake_window(100, 50, alpha=0.5, beta=1.0) == 0.0
    with pytest.raises(InvalidValueError, match="alpha"):
        overtake_window(0, 1, alpha=-1.0)


# -- BM, FM and the PUSH/PULL choices ------------------------------------------------------


@given(st.data())
def test_balance_measure_lies_between_one_over_k_and_one(data: st.DataObject) -> None:
    s = data.draw(shares)
    r = data.draw(st.lists(st.floats(0.01, 1), min_size=len(s), max_size=len(s)))
    bm = balance_measure(s, r)
    assert 1 / len(s) - 1e-12 <= bm <= 1 + 1e-12
    assert fullness_measure(s, r) == pytest.approx(1 - (sum(s) + sum(r)) / len(s))


@given(
    st.lists(
        st.tuples(st.lists(st.floats(0, 1), min_size=3, max_size=3), st.floats(0.5, 2)),
        min_size=1,
        max_size=6,
    ),
    st.lists(st.floats(0.01, 1), min_size=3, max_size=3),
)
def test_max_over_average_picks_the_same_node_as_max_over_sum(
    nodes: list[tuple[list[float], float]], job: list[float]
) -> None:
    def by_average(s: list[float], speed: float) -> float:
        loaded = [a + b for a, b in zip(s, job, strict=True)]
        return max(loaded) / (sum(loaded) / len(loaded)) * fullness_measure(s, job) / speed

    printed = min(
        range(len(nodes)), key=lambda i: (push_objective(nodes[i][0], job, speed=nodes[i][1]), i)
    )
    worded = min(range(len(nodes)), key=lambda i: (by_average(*nodes[i]), i))
    assert printed == worded or math.isclose(
        push_objective(nodes[printed][0], job, speed=nodes[printed][1]),
        push_objective(nodes[worded][0], job, speed=nodes[worded][1]),
    )


def test_balance_measure_of_nothing_is_an_error() -> None:
    with pytest.raises(InvalidValueError, match="BM undefined"):
        balance_measure((0, 0), (0, 0))


def views() -> st.SearchStrategy[list[NeighbourView]]:
    @st.composite
    def one(draw: st.DrawFn, node: int) -> NeighbourView:
        cap = draw(resource_vectors(kinds=2))
        used = tuple(draw(st.integers(0, int(c))) for c in cap)
        queue = tuple(
            Contender(
                100 * node + k, draw(resource_vectors(kinds=2)), float(draw(st.integers(-9, 0))), 0
            )
            for k in range(draw(st.integers(0, 3)))
        )
        return NeighbourView(node, cap, used, draw(st.sampled_from([0.5, 1.0, 2.0])), queue)

    return st.integers(1, 5).flatmap(lambda n: st.tuples(*[one(i) for i in range(n)]).map(list))


@given(views(), resource_vectors(kinds=2), st.integers(-9, 0))
def test_push_target_is_the_best_accepting_neighbour(
    neighbours: list[NeighbourView], requirement: tuple[int, ...], prio: int
) -> None:
    accepting = [
        n
        for n in neighbours
        if (n.best_waiting is None or n.best_waiting < prio) and fits(requirement, n.free)
    ]
    target = choose_push_target(float(prio), requirement, neighbours)
    if not accepting:
        assert target is None
        return
    score = {
        n.node: push_objective(
            normalised(n.used, n.capacity), normalised(requirement, n.capacity), speed=n.speed
        )
        for n in accepting
    }
    assert target == min(score, key=lambda node: (score[node], node))


@given(views(), st.one_of(st.none(), st.integers(-9, 0).map(float)))
def test_pull_partners_are_above_and_closest_first(
    neighbours: list[NeighbourView], own: float | None
) -> None:
    order = pull_partners(own, neighbours)
    best = {n.node: n.best_waiting for n in neighbours}
    assert all(best[j] is not None and (own is None or best[j] > own) for j in order)
    heads = [best[j] for j in order]
    assert heads == sorted(heads)  # type: ignore[type-var]
    eligible = {n.node for n in neighbours if n.queue and (own is None or best[n.node] > own)}
    assert set(order) == eligible


@given(views())
def test_pull_job_fits_and_minimises_bm_fm(neighbours: list[NeighbourView]) -> None:
    me, partner = neighbours[0], neighbours[-1]
    job = choose_pull_job(me.capacity, me.used, partner.queue)
    free = subtract(me.capacity, me.used)
    fitting = [c for c in partner.queue if fits(c.requirement, free)]
    if not fitting:
        assert job is None
        return
    chosen = next(c for c in fitting if c.job == job)
    load = normalised(me.used, me.capacity)
    best = min(placement_objective(load, normalised(c.requirement, me.capacity)) for c in fitting)
    assert placement_objective(load, normalised(chosen.requirement, me.capacity)) == best


@given(views())
def test_balancing_moves_lower_the_pairs_larger_load(neighbours: list[NeighbourView]) -> None:
    me, others = neighbours[0], neighbours[1:]
    for move in (balance_push(me, others), balance_pull(me, others)):
        if move is None:
            continue
        nodes = {n.node: n for n in neighbours}
        source, target = nodes[move.source], nodes[move.target]
        job = next(c for c in source.queue if c.job == move.job)
        before = max(
            queue_load(source.queue, source.capacity), queue_load(target.queue, target.capacity)
        )
        after = max(
            queue_load(tuple(c for c in source.queue if c is not job), source.capacity),
            queue_load((*target.queue, job), target.capacity),
        )
        assert after < before
        assert fits(job.requirement, target.capacity)
        assert target.best_waiting is None or job.priority > target.best_waiting


def test_queue_loads_follow_section_8() -> None:
    queue = (Contender(1, (1, 512), 0.0, 0), Contender(2, (2, 512), 0.0, 0))
    assert queue_load_vector(queue, (4, 2048)) == (0.75, 0.5)
    assert queue_load(queue, (4, 2048)) == 0.75
    assert queue_load((), (4, 2048)) == 0.0


# -- topologies and the matchmaker ---------------------------------------------------------


@given(grid_nodes(min_nodes=1, max_nodes=12))
def test_two_nn_and_can_prime_are_symmetric_with_the_right_degrees(nodes: list[GridNode]) -> None:
    n = len(nodes)
    for topology in (ring(n), similar_capability(nodes)):
        for i, row in enumerate(topology.neighbours):
            for j in row:
                assert i in topology.neighbours[j]
            assert set(topology.incoming[i]) == set(row)
    assert all(len(row) == 2 for row in ring(n).neighbours) or n < 3
    degrees = sorted(len(row) for row in similar_capability(nodes).neighbours)
    if n >= 5:
        assert degrees[:2] == [2, 2] and degrees[2:4] == [3, 3] and set(degrees[4:]) <= {4}


def test_topology_validation() -> None:
    with pytest.raises(InvalidValueError, match="not a node id"):
        Topology([[1], [5]])
    with pytest.raises(InvalidValueError, match="appears twice"):
        Topology([[1, 1], [0]])
    with pytest.raises(InvalidValueError, match="outside"):
        from_edges(2, [(0, 2)])
    with pytest.raises(InvalidValueError, match="even"):
        similar_capability([GridNode(0, (1,))], degree=3)
    assert from_edges(3, [(0, 1)], directed=True).neighbours == ((1,), (), ())


@given(grid_nodes(max_nodes=8), st.data())
def test_matchmaker_is_complete_and_picks_the_lightest(
    nodes: list[GridNode], data: st.DataObject
) -> None:
    keys = data.draw(load_keys(nodes))
    requirement = data.draw(resource_vectors(kinds=2, max_cores=5, max_amount=9))
    placed = Matchmaker(nodes).place(requirement, keys)
    suitable = [n.id for n in nodes if fits(requirement, n.capacity)]
    if not suitable:
        assert placed is None
    else:
        assert placed == min(suitable, key=lambda i: keys[i])


# -- exact priorities (issue 25, float audit S2) ------------------------------------------


@st.composite
def near_ties(draw: st.DrawFn) -> tuple[JobProgress, JobProgress, float, float, float, float]:
    """A running or waiting job `a`, and a waiting job `b` whose priority is within a few
    ulps of `a`'s (often exactly equal), in float times (a clock tick, a far origin)."""
    clock = draw(clocks("float"))
    alpha = draw(st.sampled_from((0.0, 0.5, 1.0)))
    beta = draw(st.sampled_from((1.0, 0.5, 2.0)))
    speed = draw(st.sampled_from((1.0, 1.5, 2.5, 0.7)))
    since = clock.at(draw(st.integers(0, 400)))
    now = since + clock.span(draw(st.integers(0, 400)))
    size = clock.span(draw(st.integers(1, 800)))
    job = GridJob(1, 0, (1,), size, size)
    a = waiting(job, since)
    if draw(st.booleans()):
        a = resumed(a, since, speed)
    overhead = clock.span(draw(st.integers(0, 20))) if draw(st.booleans()) else 0.0
    a = attrs.evolve(a, overhead=overhead, wait=clock.span(draw(st.integers(0, 50))))
    arrived = clock.at(draw(st.integers(0, 400)))
    b = waiting(GridJob(2, 0, (1,), 1, 1), min(arrived, now))
    target = exact_priority(a, now, speed, alpha, beta)
    wait_b = Fraction(b.wait) + Fraction(now) - Fraction(b.since)
    # P_b = alpha W_b - beta e_b / s = P_a  =>  e_b = s (alpha W_b - P_a) / beta
    estimate = float(Fraction(speed) * (Fraction(alpha) * wait_b - target) / Fraction(beta))
    for _ in range(abs(nudge := draw(st.integers(-3, 3)))):
        estimate = math.nextafter(estimate, math.inf if nudge > 0 else -math.inf)
    b = attrs.evolve(b, estimate=max(0.0, estimate))
    return a, b, now, speed, alpha, beta


@settings(max_examples=300)
@given(near_ties())
def test_priorities_compare_as_their_exact_values(
    case: tuple[JobProgress, JobProgress, float, float, float, float],
) -> None:
    """Differential: float first, fractions at near ties = the exact comparison, always."""
    a, b, now, speed, alpha, beta = case
    pa = contender(a, now, speed, alpha, beta).priority
    pb = contender(b, now, speed, alpha, beta).priority
    ea, eb = exact_priority(a, now, speed, alpha, beta), exact_priority(b, now, speed, alpha, beta)
    assert abs(Fraction(float(pa)) - ea) <= Fraction(pa.slack)  # the slack bounds the rounding
    assert abs(Fraction(float(pb)) - eb) <= Fraction(pb.slack)
    assert (pa < pb, pa == pb, pa > pb, pa <= pb, pa >= pb) == (
        ea < eb, ea == eb, ea > eb, ea <= eb, ea >= eb,
    )  # fmt: skip
    assert ((-pa) < (-pb)) == (ea > eb)  # rank_key negates


def test_exact_ties_are_seen_where_floats_differ() -> None:
    """Not vacuous: the strategy draws exact ties the floats get wrong."""

    def float_wrong(case: tuple[JobProgress, JobProgress, float, float, float, float]) -> bool:
        a, b, now, speed, alpha, beta = case
        ea = exact_priority(a, now, speed, alpha, beta)
        pa, pb = (float(contender(p, now, speed, alpha, beta).priority) for p in (a, b))
        return ea == exact_priority(b, now, speed, alpha, beta) and pa != pb

    hypothesis.find(near_ties(), float_wrong, settings=settings(max_examples=2000, database=None))


def test_a_near_tie_is_widened_by_the_slack_of_both_priorities() -> None:
    """`ExactPriority`: floats further apart than the *sum* of the two slacks decide, closer
    ones are compared exactly. Here P = 0.3 (the float) exactly in both: one priority was
    computed exactly (slack 0), the other in floats as 0.1 + 0.2 (slack 1e-15). They are
    equal whichever side asks, though the floats differ by more than the first one's
    slack alone."""
    exact = Fraction(0.3)
    a = ExactPriority(0.3, 0.0, lambda: exact)
    b = ExactPriority(0.1 + 0.2, 1e-15, lambda: exact)
    assert float(a) != float(b) and abs(float(a) - float(b)) <= 1e-15
    assert (a == b, b == a, a != b, a < b, b < a, a > b, b > a) == (
        True, True, False, False, False, False, False,
    )  # fmt: skip
    assert a <= b and a >= b and b <= a and b >= a
    assert sorted([b, a]) == [b, a] and sorted([a, b]) == [a, b]  # equal: stable order
    assert -a == -b
