"""The conformance suite: every shipped scheduler passes it, every broken variant fails its check.

`parametrize_with_checks` expands to one test per (scheduler, check). The
shipped policies must pass every check that applies to them; each broken
variant below breaks one rule on purpose and lists the check it must fail as
an expected failure (strict `xfail`: the test fails if the check passes).
"""

from __future__ import annotations

import itertools
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import attrs
import pytest

from schedlib.backfill import (
    Decision,
    Plan,
    PlanDecision,
    Snapshot,
    conservative,
    easy,
    fcfs,
    schedule,
)
from schedlib.deferment import fifo as fifo_selection
from schedlib.deferment import round_robin as round_robin_selection
from schedlib.errors import InvalidValueError
from schedlib.model import Cluster, Job, RunRecord
from schedlib.preemption import Decision as PreemptionDecision
from schedlib.preemption import NodeSnapshot
from schedlib.testing import (
    Candidate,
    ConformanceError,
    check_scheduler,
    parametrize_with_checks,
)
from schedlib.testing.conformance import CHECKS, checks_for
from schedlib.testing.conformance.backfill import check_bounded_wait

EXAMPLES = 25  # per check; the broken variants are found well within it (derandomized)

# ------------------------------------------------------------------ shipped schedulers


def easy_schedule(jobs: list[Job], cluster: Cluster) -> RunRecord:
    """EASY as a plain `(jobs, cluster) -> record` scheduler."""
    return schedule(jobs, cluster, policy="easy")


def fcfs_starts_and_ends(jobs: list[Job], cluster: Cluster) -> tuple[Any, ...]:
    """FCFS returning `(starts, ends, places, killed)`, as another simulator would."""
    record = schedule(jobs, cluster, policy="fcfs")
    done = [o for o in record.outcomes if o.start is not None]
    return (
        {o.job: o.start for o in done},
        {o.job: o.end for o in done},
        {o.job: o.place for o in done},
        [o.job for o in done if o.state is not None and o.state.value == "killed_at_limit"],
    )


ALL = ("kill-at-limit", "no-starvation")
SHIPPED = [
    Candidate(fcfs, "backfill", ("fcfs-order", *ALL)),
    Candidate(easy, "backfill", ("easy-head", *ALL)),
    Candidate(conservative, "backfill", ("conservative-reservations", *ALL), form="plan"),
    Candidate(easy_schedule, "backfill", ("easy-head", *ALL)),
    Candidate(fcfs_starts_and_ends, "backfill", ("fcfs-order", *ALL)),
]


@parametrize_with_checks(SHIPPED, max_examples=EXAMPLES)
def test_shipped_schedulers_conform(scheduler: Candidate, check: Any) -> None:
    check(scheduler)


# ------------------------------------------------------------------- broken variants


def impatient(snapshot: Snapshot) -> Decision:
    """EASY that lets every later job that fits start now, delaying the head."""
    d = easy(snapshot)
    free = snapshot.free - sum(j.procs for j in d.start)
    start = list(d.start)
    for job in snapshot.queue:
        if job not in start and job != d.head and job.procs <= free:
            start.append(job)
            free -= job.procs
    start.sort(key=snapshot.queue.index)
    positions = tuple(snapshot.queue.index(j) for j in start)
    return Decision(tuple(start), positions, d.head, d.reservation)


def first_processors(jobs: list[Job], cluster: Cluster) -> RunRecord:
    """EASY's times, but every job placed on processors 0..n-1, whoever holds them."""
    record = schedule(jobs, cluster, policy="easy")
    events = [
        attrs.evolve(e, place=tuple(range(len(e.place)))) if e.place else e for e in record.events
    ]
    return RunRecord.from_log("first", record.workload, events, capacity=cluster.processors)


def crowding(snapshot: Snapshot) -> Decision:
    """Starts the whole queue at once: the engine rejects the decision as oversubscribing."""
    queue = snapshot.queue
    return Decision(queue, tuple(range(len(queue))))


def clairvoyant(jobs: list[Job], cluster: Cluster) -> RunRecord:
    """EASY planning with the actual runtimes (an oracle), logged against the real jobs."""
    oracle = [
        attrs.evolve(j, requested_time=max(1, min(j.runtime, j.requested_time))) for j in jobs
    ]
    record = schedule(oracle, cluster, policy="easy")
    return RunRecord.from_log("oracle", jobs, record.events, capacity=cluster.processors)


_calls = itertools.count()


def moody(snapshot: Snapshot) -> Decision:
    """EASY on odd calls, FCFS on even ones: hidden state, so not deterministic."""
    return easy(snapshot) if next(_calls) % 2 else fcfs(snapshot)


def procrastinating(plan: Plan) -> PlanDecision:
    """Conservative that pushes every standing reservation one second later at each pass."""
    d = conservative(plan)
    pushed = [
        k
        for k, (old, at) in enumerate(zip(plan.reservations, d.reservations, strict=True))
        if old is not None and at > plan.now
    ]
    later = tuple(at + 1 if k in pushed else at for k, at in enumerate(d.reservations))
    changed = tuple(sorted({*d.changed, *pushed}))
    return attrs.evolve(d, reservations=later, changed=changed)


def early_bird(jobs: list[Job], cluster: Cluster) -> tuple[Any, ...]:
    """FCFS with every time moved one second earlier: jobs start before they are submitted."""
    starts, ends, places, killed = fcfs_starts_and_ends(jobs, cluster)
    return (
        {j: t - 1 for j, t in starts.items()},
        {j: t - 1 for j, t in ends.items()},
        places,
        killed,
    )


def batches(jobs: list[Job], cluster: Cluster) -> tuple[Any, ...]:
    """FCFS that admits jobs only at multiples of 10 s: jobs wait on an empty machine."""
    rounded = [attrs.evolve(j, submit=-(-j.submit // 10) * 10) for j in jobs]
    return fcfs_starts_and_ends(rounded, cluster)


def past_the_limit(jobs: list[Job], cluster: Cluster) -> RunRecord:
    """EASY that lets jobs run past their requested time."""
    longer = [attrs.evolve(j, requested_time=max(j.requested_time, j.runtime)) for j in jobs]
    record = schedule(longer, cluster, policy="easy")
    return RunRecord.from_log("long", jobs, record.events, capacity=cluster.processors)


def greedy(snapshot: Snapshot) -> Decision:
    """First fit without a reservation: start every waiting job that fits, in queue order.
    Never idle while a job fits, every job eventually starts on a finite input -- and a wide
    job waits for as long as narrower ones keep arriving."""
    free, started, positions = snapshot.free, [], []
    for i, job in enumerate(snapshot.queue):
        if job.procs <= free:
            started.append(job)
            positions.append(i)
            free -= job.procs
    return Decision(tuple(started), tuple(positions))


BROKEN = [
    Candidate(greedy, "backfill", ["no-starvation"], expected_failures=["no-starvation"]),
    Candidate(impatient, "backfill", ["easy-head"], expected_failures=["easy-head"]),
    Candidate(first_processors, "backfill", expected_failures=["capacity"]),
    Candidate(crowding, "backfill", expected_failures=["capacity"]),
    Candidate(clairvoyant, "backfill", expected_failures=["non-clairvoyant"]),
    Candidate(moody, "backfill", expected_failures=["determinism"]),
    Candidate(
        procrastinating,
        "backfill",
        ["conservative-reservations"],
        form="plan",
        expected_failures=["conservative-reservations"],
    ),
    Candidate(
        easy, "backfill", ["fcfs-order"], name="easy_as_fcfs", expected_failures=["fcfs-order"]
    ),
    Candidate(early_bird, "backfill", expected_failures=["no-early-start", "lifecycle"]),
    Candidate(batches, "backfill", ["no-starvation"], expected_failures=["no-starvation"]),
    Candidate(past_the_limit, "backfill", ["kill-at-limit"], expected_failures=["kill-at-limit"]),
]


def named_checks_only(mark: Any) -> Any:
    """Keep each broken variant's expected failures only (its other checks pass, and cost time)."""
    names, params = mark.args
    kept = [p for p in params if p.values[1].check.name in p.values[0].expected_failures]
    return pytest.mark.parametrize(names, kept)


@named_checks_only(parametrize_with_checks(BROKEN, max_examples=EXAMPLES * 4, shrink=False))
def test_broken_variants_fail_their_check(scheduler: Candidate, check: Any) -> None:
    check(scheduler)


# ------------------------------------------------------------------------ other families

FAMILY_EXAMPLES = 20
UPTIME = ("within-uptime", "no-failures", "unschedulable-reported")
RESERVED = ("copies-withdrawn", "multisite-reservations", "completion-bound")

AVAILABILITY = [
    Candidate("pgs", "availability", UPTIME),
    Candidate("pgs-empty-queue", "availability", UPTIME),
    Candidate("fcfs", "availability"),
]
PREEMPTION = [
    Candidate("preemptive", "preemption", ["no-starvation"], options={"alpha": 0.5}),
    Candidate("preemptive", "preemption", name="preemptive-alpha0"),
    Candidate("fcfs", "preemption"),
]
DEFERMENT = [
    Candidate(fifo_selection(1), "deferment", ["no-overtaking"]),
    Candidate(fifo_selection(2, replication=False), "deferment", ["no-overtaking"]),
    Candidate(round_robin_selection(1), "deferment", ["no-overtaking"]),
    Candidate(fifo_selection(), "deferment"),
    Candidate(round_robin_selection(), "deferment"),
]
FREQUENCY = [
    Candidate("pfs", "frequency", ["pool-rules"]),
    Candidate("pfs+mfs", "frequency", ["pool-rules", "migration-limits"]),
    Candidate("round_robin", "frequency", ["pool-rules", "migration-limits"]),
    Candidate("fcfs", "frequency", ["pool-rules", "migration-limits"]),
]
MULTISITE = [
    Candidate("greedy", "multisite", ["copies-withdrawn", "completion-bound"]),
    Candidate("greedy-mr", "multisite", ["copies-withdrawn"]),
    Candidate("conservative-mr", "multisite", RESERVED),
    Candidate("conservative-mr-slower", "multisite", RESERVED),
    Candidate("efficacy", "multisite", RESERVED),
]


@parametrize_with_checks(
    AVAILABILITY + PREEMPTION + DEFERMENT + FREQUENCY + MULTISITE, max_examples=FAMILY_EXAMPLES
)
def test_shipped_schedulers_of_every_family_conform(scheduler: Candidate, check: Any) -> None:
    check(scheduler)


def crowding_node(snapshot: NodeSnapshot) -> PreemptionDecision:
    """Starts every waiting job at once, whatever is free (the model rejects it)."""
    return PreemptionDecision(start=tuple(c.job for c in snapshot.waiting))


BROKEN_FAMILIES = [
    Candidate(
        "fcfs", "availability", UPTIME[:2], name="fcfs-claims-pgs", expected_failures=UPTIME[:2]
    ),
    Candidate(crowding_node, "preemption", expected_failures=["capacity"]),
    Candidate(
        "preemptive",
        "preemption",
        ["no-starvation"],
        name="preemptive-alpha0-claims",
        expected_failures=["no-starvation"],
    ),
    Candidate(
        fifo_selection(),
        "deferment",
        ["no-overtaking"],
        name="fifo-claims",
        expected_failures=["no-overtaking"],
    ),
    Candidate(
        round_robin_selection(),
        "deferment",
        ["no-overtaking"],
        name="rr-claims",
        expected_failures=["no-overtaking"],
    ),
    Candidate(
        "pfs",
        "frequency",
        ["migration-limits"],
        name="pfs-claims",
        expected_failures=["migration-limits"],
    ),
    Candidate(
        "greedy",
        "multisite",
        ["multisite-reservations"],
        name="greedy-claims",
        expected_failures=["multisite-reservations"],
    ),
    Candidate(
        "greedy-mr",
        "multisite",
        ["completion-bound"],
        name="greedy-mr-claims",
        expected_failures=["completion-bound"],
    ),
]


@named_checks_only(
    parametrize_with_checks(BROKEN_FAMILIES, max_examples=EXAMPLES * 4, shrink=False)
)
def test_broken_variants_of_every_family_fail_their_check(scheduler: Candidate, check: Any) -> None:
    check(scheduler)


# ------------------------------------------------------------------------ the entry points


def test_a_head_delaying_easy_fails_with_a_small_pasteable_counterexample() -> None:
    with pytest.raises(ConformanceError) as info:
        check_scheduler(
            impatient, "backfill", guarantees=["easy-head"], checks=["easy-head"], max_examples=50
        )
    error = info.value
    assert error.check == "easy-head" and error.scheduler == "impatient"
    cluster, jobs = error.instance
    assert len(jobs) <= 4 and cluster.processors <= 3  # shrunk
    message = str(error)
    assert "check 'easy-head' failed for scheduler impatient: EASY head job" in message
    assert "jobs = [" in message and "Cluster(processors=" in message
    # The printed reproduction runs as it is and shows the same violation.
    with pytest.raises(AssertionError, match="EASY head job"):
        exec(textwrap.dedent(error.reproduction), {"impatient": impatient})
    # The correct policy passes the same check.
    check_scheduler(easy, "backfill", guarantees=["easy-head"], max_examples=50)


@pytest.mark.parametrize(
    ("policy", "family", "check"),
    [
        ("fcfs", "availability", "within-uptime"),
        ("greedy", "multisite", "multisite-reservations"),
        ("pfs", "frequency", "migration-limits"),
    ],
)
def test_every_family_prints_a_reproduction_that_runs(policy: str, family: str, check: str) -> None:
    """The printed source rebuilds the input (its repr, or a pickle) and re-runs the checker."""
    with pytest.raises(ConformanceError) as info:
        check_scheduler(
            policy, family, guarantees=[check], checks=[check], max_examples=100, shrink=False
        )
    with pytest.raises(AssertionError, match=re.escape(info.value.reason[:30])):
        exec(textwrap.dedent(info.value.reproduction), {})


def test_checks_get_one_readable_test_id_each() -> None:
    mark = parametrize_with_checks([easy, impatient], "backfill", guarantees=["easy-head"])
    ids = [p.id for p in mark.args[1]]
    assert ids[:7] == [
        "accounting[easy]",
        "lifecycle[easy]",
        "capacity[easy]",
        "no-early-start[easy]",
        "determinism[easy]",
        "non-clairvoyant[easy]",
        "easy-head[easy]",
    ]
    assert "easy-head[impatient]" in ids and len(ids) == 14


def test_the_form_follows_the_signature_unless_given() -> None:
    assert Candidate(easy, "backfill").resolved_form() == "decide"
    assert Candidate(easy_schedule, "backfill").resolved_form() == "schedule"
    assert Candidate(conservative, "backfill", form="plan").resolved_form() == "plan"
    names = [c.name for c in checks_for(easy_schedule, "backfill", guarantees=ALL)]
    assert "kill-at-limit" in names and "no-starvation" in names


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"family": "nope"}, "family"),
        ({"family": "backfill", "guarantees": ["fast"]}, "guarantees"),
        ({"family": "backfill", "form": "oracle"}, "form"),
        ({"family": "backfill", "checks": ["kill-at-limit"]}, "checks"),
    ],
)
def test_bad_arguments_name_the_field(kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidValueError, match=field):
        check_scheduler(easy, **kwargs)


def test_conservative_reservations_need_the_engine() -> None:
    with pytest.raises(InvalidValueError, match="applies only to"):
        check_scheduler(easy_schedule, "backfill", guarantees=["conservative-reservations"])


def test_every_check_is_in_the_how_to_table() -> None:
    """One row per check and family ("all" for the basics every family shares)."""
    page = (Path(__file__).parents[2] / "docs" / "howto" / "test-your-scheduler.md").read_text()
    rows = {
        tuple(cell.strip() for cell in line.strip("|").split("|")[:3])
        for line in page.splitlines()
        if line.startswith("| `")
    }
    for check in CHECKS:
        kind = "basic" if check.basic else "guarantee"
        assert {(f"`{check.name}`", check.family, kind), (f"`{check.name}`", "all", kind)} & rows, (
            f"{check.name} ({check.family}) is missing from the how-to's table of checks"
        )
        assert check.asserts and check.reference


def test_importing_needs_no_hypothesis() -> None:
    code = textwrap.dedent(
        """
        import sys
        sys.modules["hypothesis"] = None  # as if it were not installed
        from schedlib.testing import check_scheduler, invariants
        from schedlib.backfill import easy
        try:
            check_scheduler(easy, "backfill")
        except ImportError as error:
            assert "pip install 'schedlib[test]'" in str(error), error
        else:
            raise SystemExit("no ImportError")
        """
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ------------------------------------------------------------------------- no starvation


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative", "greedy"])
def test_a_wide_jobs_start_stays_bounded_as_later_arrivals_grow_except_under_greedy(
    policy: str,
) -> None:
    """A job as wide as the machine, then ever longer streams of narrow jobs, each arriving
    before the previous one ends: under FCFS, EASY and conservative backfilling the wide
    job's start does not move; under greedy first fit it moves with the stream's end."""
    cluster = Cluster(4)
    head = [Job(1, 0, 2, 10, 10)]
    wide = Job(2, 1, 4, 10, 10)
    starts = []
    for count in (10, 20, 40, 80):
        stream = [Job(3 + i, 2 + 2 * i, 1, 5, 5) for i in range(count)]
        decide = greedy if policy == "greedy" else None
        record = schedule(
            [*head, wide, *stream], cluster, policy="easy" if decide else policy, decide=decide
        )
        starts.append(next(o.start for o in record.outcomes if o.job == 2))
    if policy == "greedy":
        assert starts == sorted(starts) and starts[-1] - starts[0] >= 2 * 70
    else:
        assert starts == [10, 10, 10, 10]


def test_conservative_may_leave_the_machine_empty_before_a_reservation_without_starving() -> None:
    """Jobs 1 and 2 end early at t=3; compression in queue order cannot move the wide job 3
    before job 4's reservation [4, 6), jobs 4 and 5 move to 3 and end at 5 as planned, and
    nothing ends early at 5: job 3 waits on an empty machine until its reservation at 6.
    Under pyss's event order the schedule is compressed at every end, so job 3 starts at 5.
    Bounded wait holds under both."""
    jobs = [Job(1, 0, 1, 4, 3), Job(2, 0, 1, 6, 3), Job(3, 0, 2, 2, 2)]
    jobs += [Job(i, i - 3, 1, 2, 2) for i in range(4, 12)]
    for conventions, third in (("instant", 6), ("pyss", 5)):
        record = schedule(jobs, Cluster(2), policy="conservative", conventions=conventions)
        start = {o.job: o.start for o in record.outcomes}
        assert (start[3], start[4], start[5]) == (third, 3, 3)
        check_bounded_wait(record)


def test_no_starvation_fails_on_greedy_and_names_the_starved_job() -> None:
    with pytest.raises(
        ConformanceError, match=r"check 'no-starvation' failed.*later than its bound"
    ):
        check_scheduler(
            greedy,
            "backfill",
            guarantees=["no-starvation"],
            checks=["no-starvation"],
            max_examples=20,
        )


@pytest.mark.parametrize(
    ("scheduler", "form"),
    [(easy, None), (conservative, "plan"), (fcfs, None), (easy_schedule, None)],
)
def test_no_starvation_holds_for_easy_conservative_and_fcfs(scheduler: Any, form: Any) -> None:
    check_scheduler(
        scheduler,
        "backfill",
        guarantees=["no-starvation"],
        form=form,
        checks=["no-starvation"],
        max_examples=40,
    )


# ------------------------------------------------------------ printed counterexamples run


def greedy_starts(jobs: list[Job], cluster: Cluster) -> tuple[Any, ...]:
    """Greedy first fit as a plain scheduler returning `(starts, ends)` only."""
    record = schedule(jobs, cluster, policy="easy", decide=greedy)
    done = [o for o in record.outcomes if o.start is not None]
    return {o.job: o.start for o in done}, {o.job: o.end for o in done}


FORMS = [
    *((c, name) for c in BROKEN for name in sorted(c.expected_failures)),
    (Candidate(greedy_starts, "backfill", ["easy-head"]), "easy-head"),  # a tuple of two
    *((c, name) for c in BROKEN_FAMILIES for name in sorted(c.expected_failures)),
]


@pytest.mark.parametrize(("candidate", "check"), FORMS, ids=[f"{c.name}-{n}" for c, n in FORMS])
def test_the_printed_counterexample_runs_and_fails_the_same_way(
    candidate: Candidate, check: str
) -> None:
    """Every scheduler form of every family (decision functions, planners, `(jobs, cluster)`
    schedulers returning a record or a tuple, policy names, selection functions), and every
    kind of check (one run, two runs, clairvoyance): the printed code, with the scheduler
    bound to the name it uses, raises an AssertionError that starts like the reported one (or,
    for a scheduler that crashed, the same exception)."""
    from schedlib.testing.conformance.core import reproduction_label

    with pytest.raises(ConformanceError) as info:
        check_scheduler(candidate, checks=[check], max_examples=EXAMPLES * 4, shrink=False)
    error = info.value
    code = textwrap.dedent(error.reproduction)
    compile(code, "<counterexample>", "exec")  # valid Python as printed
    namespace: dict[str, Any] = {}
    if not isinstance(candidate.scheduler, str):
        namespace[reproduction_label(candidate)] = candidate.scheduler
    with pytest.raises(Exception) as again:
        exec(code, namespace)
    if error.reason.startswith("the scheduler raised "):  # a crash is printed as a crash
        assert error.reason == f"the scheduler raised {type(again.value).__name__}: {again.value}"
    else:
        assert isinstance(again.value, AssertionError)
        if check not in ("determinism", "non-clairvoyant"):
            assert str(again.value)[:25] == error.reason[:25]


def test_a_failed_check_in_pytest_shows_the_message_not_the_suites_frames(tmp_path: Path) -> None:
    """One failing check, run by pytest in a subprocess, both ways a user writes it: the report
    is the test's own line and the message (with its counterexample), no frame of schedlib's
    suite nor of hypothesis."""
    (tmp_path / "test_mine.py").write_text(
        textwrap.dedent(
            """
            from schedlib.backfill import Decision
            from schedlib.testing import check_scheduler, parametrize_with_checks

            def greedy(snapshot):
                free, started, positions = snapshot.free, [], []
                for i, job in enumerate(snapshot.queue):
                    if job.procs <= free:
                        started.append(job)
                        positions.append(i)
                        free -= job.procs
                return Decision(tuple(started), tuple(positions))

            @parametrize_with_checks([greedy], "backfill", guarantees=["easy-head"])
            def test_each(scheduler, check):
                check(scheduler)

            def test_direct():
                check_scheduler(greedy, "backfill", guarantees=["easy-head"], checks=["easy-head"])
            """
        )
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "easy or direct"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    report = done.stdout
    assert done.returncode == 1 and "2 failed" in report
    failures = report.split("= FAILURES =")[1].split("short test summary")[0]
    assert failures.count("check 'easy-head' failed for scheduler greedy") == 2
    assert "schedlib/testing" not in failures and "hypothesis" not in failures
    assert len(failures.splitlines()) < 60  # about 25 a failure, most of it the counterexample
