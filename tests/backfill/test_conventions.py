"""Event-order conventions: `"instant"` (ours, the default) against `"pyss"`.

One hand-made case per rule of the pyss simulator where the two rule sets give
different start times (rule (c) is the exception: it is our EASY decision, and
a property shows it), then the invariants that hold under `"pyss"`, the pyss
cleaning rules, and the command-line flags.

Job fields below: `Job(id, submit, procs, requested_time, runtime)`.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlib.backfill import Request, Snapshot, easy, schedule
from schedlib.backfill.profile import Profile
from schedlib.cli import main
from schedlib.errors import InvalidValueError
from schedlib.model import Cluster, EventKind, FinalState, Job, JobId, RunRecord, Time
from schedlib.testing.invariants import (
    check_backfilling_run,
    check_capacity,
    check_easy_head_never_delayed,
    check_every_job_accounted,
    check_kill_at_limit,
    check_lifecycle,
    check_reservations_feasible,
)
from schedlib.testing.strategies import RUNTIME_MODES, parallel_instances
from schedlib.workloads.cleaning import CleaningPolicy, ExcludedJob, clean
from schedlib.workloads.swf import SWFRecord


def starts(jobs: list[Job], processors: int, policy: str, conventions: str) -> dict[JobId, Any]:
    record = schedule(jobs, Cluster(processors), policy=policy, conventions=conventions)
    return {o.job: o.start for o in record.outcomes}


def both(jobs: list[Job], processors: int, policy: str) -> tuple[dict[JobId, Any], ...]:
    return tuple(starts(jobs, processors, policy, c) for c in ("instant", "pyss"))


# ------------------------------------------------------------ rule (a)

# Jobs 1 and 2 (2 processors each, requested 100 s) both end early at t=10.
# Job 3 needs the whole machine; job 4 (2 processors, 50 s) waits behind it.
ONE_PASS_PER_END = [
    Job(1, 0, 2, 100, 10),
    Job(2, 0, 2, 100, 10),
    Job(3, 1, 4, 10, 10),
    Job(4, 2, 2, 50, 50),
]


@pytest.mark.parametrize("policy", ["easy", "conservative"])
def test_rule_a_one_pass_per_end(policy: str) -> None:
    """One pass sees both ends (job 3 starts); pyss's first pass sees one end and
    starts job 4 in the two free processors (it ends at 60, before job 2's planned
    end at 100, so it delays no promise made then), and job 3 waits until 60."""
    instant, pyss = both(ONE_PASS_PER_END, 4, policy)
    assert instant == {1: 0, 2: 0, 3: 10, 4: 20}
    assert pyss == {1: 0, 2: 0, 3: 60, 4: 10}


# ------------------------------------------------------------ rule (b)

# Job 1 (3 of 4 processors, requested 20 s) ends early at t=10, the instant job 3
# (1 processor, 10 s) is submitted; job 2 needs all 4 processors.
SUBMIT_BEFORE_END = [Job(1, 0, 3, 20, 10), Job(2, 1, 4, 10, 10), Job(3, 10, 1, 10, 10)]


@pytest.mark.parametrize("policy", ["easy", "conservative"])
def test_rule_b_submission_before_end(policy: str) -> None:
    """Ours: the end first, job 2 starts at 10. pyss: job 3's submission is handled
    while job 1 still holds its processors until 20, so job 3 takes the free one
    (ending by 20, it delays nobody as far as the scheduler knows), and job 2
    waits for it."""
    instant, pyss = both(SUBMIT_BEFORE_END, 4, policy)
    assert instant == {1: 0, 2: 10, 3: 20}
    assert pyss == {1: 0, 2: 20, 3: 10}


# Jobs 9 (3 processors, started at 0) and 1 (1 processor, started at 5) both end
# at t=10, early (planned ends 100). Job 3 needs 4 processors; job 4 needs 3 for 50 s.
ENDS_IN_START_ORDER = [
    Job(9, 0, 3, 100, 10),
    Job(3, 1, 4, 10, 10),
    Job(4, 2, 3, 50, 50),
    Job(1, 5, 1, 95, 5),
]


def test_rule_b_ends_in_the_order_jobs_started() -> None:
    """pyss handles job 9's end first (it started first, though its id is larger):
    3 processors free, job 1 still holding one until 100, so job 4 backfills
    (ends at 60) and job 3 waits for it. Ending job 1 first (id order) would
    start job 3 at 10, as one pass does."""
    instant, pyss = both(ENDS_IN_START_ORDER, 4, "easy")
    assert instant == {9: 0, 3: 10, 4: 20, 1: 5}
    assert pyss == {9: 0, 3: 60, 4: 10, 1: 5}


def test_rule_b_ends_of_jobs_started_in_one_pass_follow_the_queue() -> None:
    """Jobs 2 (3 processors) and 3 (1 processor) start in one pass at 5, when job 1
    ends, in queue order, and both end early at 15: job 2's end is handled first,
    as above, so job 5 backfills and job 4 waits until 65."""
    jobs = [
        Job(1, 0, 4, 5, 5),
        Job(2, 1, 3, 100, 10),
        Job(3, 1, 1, 100, 10),
        Job(4, 6, 4, 10, 10),
        Job(5, 7, 3, 50, 50),
    ]
    instant, pyss = both(jobs, 4, "easy")
    assert instant == {1: 0, 2: 5, 3: 5, 4: 15, 5: 25}
    assert pyss == {1: 0, 2: 5, 3: 5, 4: 65, 5: 15}


def test_the_scheduler_sees_an_on_time_end_at_once_and_an_early_one_when_handled() -> None:
    """At 10, job 2 reaches its planned end (gone from pyss's profile at once) and
    job 1 ends early (its processors held until its end is handled, after job 4's
    submission). Job 4's submission pass sees 2 free processors and job 3's
    shadow time at 100, so job 4 backfills and job 3 waits for it."""
    jobs = [
        Job(1, 0, 2, 100, 10),
        Job(2, 0, 2, 10, 10),
        Job(3, 1, 4, 10, 10),
        Job(4, 10, 2, 50, 50),
    ]
    instant, pyss = both(jobs, 4, "easy")
    assert instant == {1: 0, 2: 0, 3: 10, 4: 20}
    assert pyss == {1: 0, 2: 0, 3: 60, 4: 10}


# ------------------------------------------------------------ rule (c)


def pyss_easy_starts(now: Time, capacity: int, snapshot: Snapshot) -> list[JobId]:
    """pyss's EASY transcribed on a profile: start the head while it fits (for its
    whole estimate), then each later job that fits now once the head is placed at
    its earliest start in the profile of the jobs started so far."""
    profile = Profile.idle(capacity, now)
    for end, procs, _ in snapshot.running:
        profile = profile.reserve(now, end - now, procs)
    queue = list(snapshot.queue)
    started = []
    while queue and profile.earliest_fit(now, queue[0].procs, queue[0].requested_time) == now:
        job = queue.pop(0)
        profile = profile.reserve(now, job.requested_time, job.procs)
        started.append(job.id)
    if not queue:
        return started
    head = queue[0]
    for job in queue[1:]:
        if profile.free_at(now) < job.procs:
            continue
        shadow = profile.earliest_fit(now, head.procs, head.requested_time)
        with_head = profile.reserve(shadow, head.requested_time, head.procs)
        if with_head.earliest_fit(now, job.procs, job.requested_time) == now:
            profile = profile.reserve(now, job.requested_time, job.procs)
            started.append(job.id)
    return started


@st.composite
def snapshots(draw: st.DrawFn) -> tuple[int, Snapshot]:
    capacity = draw(st.integers(1, 8))
    now = draw(st.integers(0, 5))
    running = []
    used = 0
    for k in range(draw(st.integers(0, 4))):
        procs = draw(st.integers(1, capacity))
        if used + procs > capacity:
            break
        used += procs
        running.append((now + draw(st.integers(1, 20)), procs, 100 + k))
    queue = tuple(
        Request(k, 0, draw(st.integers(1, capacity)), draw(st.integers(1, 20)))
        for k in range(draw(st.integers(0, 6)))
    )
    return capacity, Snapshot(now, capacity - used, tuple(sorted(running)), queue)


@settings(max_examples=500)
@given(case=snapshots())
def test_rule_c_is_our_easy_decision(case: tuple[int, Snapshot]) -> None:
    """The issue's rule (c) and pyss's EASY source decide what our `easy` decides:
    the shadow time and extra processors are the profile's earliest fit of the
    head, in closed form. Rule (c) never disagrees on its own; the disagreements
    come from when the passes run (rules a, b)."""
    capacity, snapshot = case
    ours = easy(snapshot)
    assert [j.id for j in ours.start] == pyss_easy_starts(snapshot.now, capacity, snapshot)


def test_rule_c_hand_case_the_head_shadow_counts_the_jobs_started_before_it() -> None:
    """Job 1 starts (3 of 4 processors, until 10); job 2 (head, 4 processors) gets
    10; job 3 (1 processor, 10 s) ends by 10 and backfills, job 4 (1 processor, 11 s)
    would delay the head and waits. Both conventions agree."""
    jobs = [Job(1, 0, 3, 10, 10), Job(2, 0, 4, 5, 5), Job(3, 0, 1, 10, 10), Job(4, 0, 1, 11, 11)]
    instant, pyss = both(jobs, 4, "easy")
    assert instant == pyss == {1: 0, 2: 10, 3: 0, 4: 15}


# ------------------------------------------------------------ rule (d)

# Job 1 ends early at 7 (planned 10); the compression then moves job 2 to 7 and
# job 4 to 7, but job 3, re-placed before job 4 moved, only reaches 14. Job 4
# ends on time at 11: pyss re-places the queue again and job 3 gets 13.
COMPRESS_AT_EVERY_END = [
    Job(1, 0, 3, 10, 7),
    Job(2, 1, 1, 6, 6),
    Job(3, 2, 3, 4, 3),
    Job(4, 3, 1, 4, 4),
]


def test_rule_d_replaced_at_every_end() -> None:
    instant, pyss = both(COMPRESS_AT_EVERY_END, 3, "conservative")
    assert instant == {1: 0, 2: 7, 3: 14, 4: 7}
    assert pyss == {1: 0, 2: 7, 3: 13, 4: 7}


# ------------------------------------------- FCFS: start times never differ

DENSE = {"max_processors": 4, "max_jobs": 10, "max_submit": 3, "max_requested_time": 6}


@settings(max_examples=300)
@given(instance=parallel_instances(**DENSE, runtimes="any"))
def test_fcfs_start_times_are_the_same_under_both(instance: tuple[Cluster, list[Job]]) -> None:
    """FCFS starts the longest prefix that fits, whether it is asked once or once per
    event: only the processors chosen may differ."""
    cluster, jobs = instance
    assert starts(jobs, cluster.processors, "fcfs", "instant") == starts(
        jobs, cluster.processors, "fcfs", "pyss"
    )


# ------------------------------------------------------------ invariants


def check_head_reservations_kept(record: RunRecord) -> None:
    """EASY under pyss: each reservation logged for a head (its shadow time in the
    scheduler's view at that pass) never moves later and is kept."""
    start_of = {o.job: o.start for o in record.outcomes}
    promised: dict[JobId, Time] = {}
    for e in record.events:
        if e.kind is EventKind.RESERVE:
            assert e.at is not None
            assert e.job not in promised or e.at <= promised[e.job], f"job {e.job} moved later"
            promised[e.job] = e.at
    for job, at in promised.items():
        start = start_of[job]
        assert start is not None and start <= at, f"job {job} starts at {start} > {at}"


@pytest.mark.parametrize("bounds", [DENSE, {"max_processors": 6, "max_submit": 30}])
@pytest.mark.parametrize("runtimes", RUNTIME_MODES)
@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
@settings(max_examples=150)
@given(data=st.data())
def test_invariants_hold_under_pyss(
    policy: str, runtimes: str, bounds: dict[str, int], data: st.DataObject
) -> None:
    cluster, jobs = data.draw(parallel_instances(**bounds, runtimes=runtimes))
    record = schedule(jobs, cluster, policy=policy, conventions="pyss", log_reservations=True)
    if policy != "easy":
        check_backfilling_run(record, policy)
        return
    for check in (check_every_job_accounted, check_lifecycle, check_capacity, check_kill_at_limit):
        check(record)
    check_head_reservations_kept(record)
    check_reservations_feasible(record)


def test_the_log_based_head_guarantee_does_not_hold_under_pyss_by_design() -> None:
    """The log says jobs 1 and 2 ended at 10, so job 3's shadow at 10 is 10; pyss's
    scheduler, not yet told of job 2's end, backfilled job 4 at 10 (against a
    shadow time of 100, which it keeps). The guarantee that holds is the one on
    the scheduler's own reservations (`check_head_reservations_kept`)."""
    cluster = Cluster(4)
    record = schedule(ONE_PASS_PER_END, cluster, policy="easy", log_reservations=True)
    check_easy_head_never_delayed(record)
    pyss = schedule(
        ONE_PASS_PER_END, cluster, policy="easy", conventions="pyss", log_reservations=True
    )
    check_head_reservations_kept(pyss)
    with pytest.raises(AssertionError, match="EASY head job 3 starts at t=60"):
        check_easy_head_never_delayed(pyss)


def test_excluded_records_are_accounted_under_pyss() -> None:
    """A record the cleaning excluded is logged at its submission, and needs no pass."""
    excluded = [ExcludedJob(7, 3, 2, 10, FinalState.CANCELLED_IN_LOG, "cancelled")]
    jobs = [Job(1, 0, 2, 10, 5), Job(2, 3, 2, 10, 10)]
    for policy in ("fcfs", "easy", "conservative"):
        record = schedule(
            jobs,
            Cluster(2),
            policy=policy,
            excluded=excluded,
            conventions="pyss",
            log_reservations=True,
        )
        check_backfilling_run(record, policy)
        assert {o.job: o.start for o in record.outcomes} == {1: 0, 7: None, 2: 5}
    assert schedule([], Cluster(2), conventions="pyss").outcomes == ()


def test_unknown_conventions_are_refused() -> None:
    with pytest.raises(InvalidValueError, match="conventions = 'batsim': must be one of"):
        schedule([Job(1, 0, 1, 1, 1)], Cluster(1), conventions="batsim")


def test_pyss_runs_are_labelled_and_default_runs_unchanged() -> None:
    jobs = [Job(1, 0, 1, 1, 1)]
    assert "conventions" not in dict(schedule(jobs, Cluster(1)).parameters)
    pyss = schedule(jobs, Cluster(1), conventions="pyss")
    assert dict(pyss.parameters)["conventions"] == "pyss"


# ------------------------------------------------------------ cleaning="pyss"


def rec(job: int, submit: int, runtime: int, alloc: int, requested: int, status: int = 1) -> Any:
    return SWFRecord(
        job, submit, 0, runtime, alloc, -1, -1, -1, requested, -1, status, 3, 4, -1, -1, -1, -1, -1
    )


def test_pyss_cleaning_rule_by_rule() -> None:
    records = [
        rec(1, 0, 100, 4, 50),  # over its request: runs 50, reserves 100
        rec(2, 5, 30, 200, 60),  # wider than the machine: narrowed to 64
        rec(3, 6, 40, 2, -1),  # no request: runs 1 s, reserves 40
        rec(4, 7, -1, 8, 60, status=5),  # cancelled, never ran: a 1-second job
        rec(5, 8, 20, -1, 60),  # allocated unknown: a 1-second job on 1 processor
        rec(6, -1, 20, 4, 60),  # submit unknown: a 1-second job submitted at 1
        rec(7, 9, 10, 2, 0),  # request 0: as unknown
        rec(8, 10, 10, 2, 30),  # normal
    ]
    result = clean(records, processors=64, policy=CleaningPolicy.named("pyss"))
    jobs = {j.id: (j.submit, j.procs, j.requested_time, j.runtime) for j in result.jobs}
    assert jobs == {
        1: (0, 4, 100, 50),
        2: (5, 64, 60, 30),
        3: (6, 2, 40, 1),
        4: (7, 8, 1, 1),
        5: (8, 1, 1, 1),
        6: (1, 4, 1, 1),
        7: (9, 2, 10, 1),
        8: (10, 2, 30, 10),
    }
    assert [j.id for j in result.jobs] == [1, 6, 2, 3, 4, 5, 7, 8]  # sorted by (submit, id)
    assert result.excluded == ()
    report = result.report
    assert (report.records, report.jobs, report.one_second, report.procs_capped) == (8, 8, 3, 1)
    assert (report.over_limit, report.requested_time_from_runtime) == (1, 2)
    assert "3 run as 1-second jobs (pyss rules)" in report.summary()


def test_pyss_cleaning_names_and_validation() -> None:
    assert CleaningPolicy.named("default") == CleaningPolicy()
    assert CleaningPolicy.named("pyss") == CleaningPolicy(rules="pyss")
    with pytest.raises(InvalidValueError, match="cleaning = 'maui': must be one of default, pyss"):
        CleaningPolicy.named("maui")
    with pytest.raises(InvalidValueError, match="over_limit = 'extend': must stay 'kill'"):
        CleaningPolicy(over_limit="extend", rules="pyss")


# ------------------------------------------------------------ the command line

LINE = "{0} {1} 0 {2} {3} -1 -1 {3} {4} -1 1 1 1 -1 -1 -1 -1 -1\n"


def test_cli_flags(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "case.swf"
    rows = [(j.id, j.submit, j.runtime, j.procs, j.requested_time) for j in SUBMIT_BEFORE_END]
    path.write_text("".join(LINE.format(*row) for row in rows))
    out = tmp_path / "out.csv"
    common = ["run", "--policy", "easy", "--workload", str(path), "--processors", "4"]
    for conventions, expected in (("instant", [0, 10, 20]), ("pyss", [0, 20, 10])):
        argv = [*common, "--conventions", conventions, "--cleaning", "pyss", "-o", str(out)]
        assert main(argv) == 0
        lines = out.read_text().splitlines()
        column = lines[0].split(",").index("starting_time")
        assert [int(float(line.split(",")[column])) for line in lines[1:]] == expected
    assert main(["compare", "--workload", str(path), "--conventions", "pyss"]) == 0
    capsys.readouterr()
    assert main([*common, "--cleaning", "pyss", "--over-limit", "extend"]) == 2
    assert "--over-limit = 'extend': --cleaning pyss keeps" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main([*common, "--conventions", "batsim"])
    assert exit_.value.code == 2
