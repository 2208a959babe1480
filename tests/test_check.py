"""`schedlib check`: schedules of any scheduler, read from files and checked at trace scale."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from schedlib.backfill import schedule
from schedlib.backfill.policies import Decision, Snapshot
from schedlib.cli import main
from schedlib.model import Cluster, Job, RunRecord
from schedlib.results.export import write_record
from schedlib.results.schedules import Schedule, ScheduledJob, read_schedule
from schedlib.testing.invariants import (
    check_capacity,
    check_easy_head_never_delayed,
    check_fcfs_order,
)
from schedlib.testing.invariants.schedules import (
    capacity_violations,
    check_report,
    easy_head_violations,
    fcfs_violations,
    overtaking_violations,
)
from schedlib.testing.strategies.backfill import parallel_instances
from schedlib.workloads import default_workload, load_workload

HEADER = (
    "job_id,submission_time,requested_number_of_resources,requested_time,"
    "starting_time,finish_time,allocated_resources\n"
)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, body: str, name: str = "jobs.csv", header: str = HEADER) -> Path:
    path = tmp_path / name
    path.write_text(header + body)
    return path


def greedy(snapshot: Snapshot) -> Decision:
    """A broken "EASY": start every waiting job that fits now, in queue order, with no
    reservation for the head (what some published simulators do)."""
    free, started, positions = snapshot.free, [], []
    for i, job in enumerate(snapshot.queue):
        if job.procs <= free:
            started.append(job)
            positions.append(i)
            free -= job.procs
    return Decision(tuple(started), tuple(positions))


# --------------------------------------------------------------------------- the command


def test_a_correct_easy_schedule_of_a_whole_trace_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "easy.csv"
    code, _, _ = run(capsys, "run", "--policy", "easy", "--output", str(output))
    assert code == 0
    processors = str(default_workload().cluster.processors)
    code, out, _ = run(capsys, "check", str(output), "--processors", processors, "--policy", "easy")
    assert code == 0, out
    assert out.startswith("OK: ") and "5000 jobs" in out and "easy-head" in out


def test_an_fcfs_schedule_passes_fcfs_and_an_easy_one_is_flagged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jobs = [Job(1, 0, 3, 10, 10), Job(2, 1, 4, 10, 10), Job(3, 2, 1, 5, 5)]
    for policy, expected in (("fcfs", 0), ("easy", 1)):
        path = tmp_path / f"{policy}.json"
        write_record(schedule(jobs, Cluster(4), policy=policy), path)
        code, out, _ = run(capsys, "check", str(path), "--policy", "fcfs")  # JSON: capacity known
        assert code == expected, out
    assert "fcfs: job 3 (submitted at t=2) starts at t=2, before job 2" in out


def test_a_backfill_that_delays_the_head_is_caught_naming_job_shadow_and_delay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Job 2 (the head, the whole machine) could start at t=10 when job 1 ends; the greedy
    # scheduler backfills job 3 (2 processors, 20 s) at t=2, so job 2 starts only at t=22.
    jobs = [Job(1, 0, 2, 10, 10), Job(2, 1, 4, 10, 10), Job(3, 2, 2, 20, 20)]
    path = tmp_path / "greedy.csv"
    write_record(schedule(jobs, Cluster(4), policy="easy", decide=greedy), path)
    code, out, _ = run(capsys, "check", str(path), "--processors", "4", "--policy", "easy")
    assert code == 1
    assert (
        "easy-head: EASY head job 2 starts at t=22, 12 s later than its shadow time t=10 "
        "(computed at t=1" in out
    )
    assert out.splitlines()[-1].startswith("FAILED: ") and "1 easy-head" in out
    write_record(schedule(jobs, Cluster(4), policy="easy"), path)  # the real EASY passes
    assert run(capsys, "check", str(path), "--processors", "4", "--policy", "easy")[0] == 0


def test_a_backfill_submitted_with_the_head_is_checked_before_it_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Jobs 2 and 3 arrive together; job 3 starts at once. In the fixed order (one pass that
    # has seen both arrivals) job 3 is a backfill: before it starts, job 2's shadow time is
    # t=10; after, t=21 -- the promise is the one made before the backfill. Seen one at a
    # time, job 3 may arrive first and start alone: some order explains the schedule.
    path = str(write(tmp_path, "1,0,2,10,0,10,0-1\n2,1,4,10,21,31,0-3\n3,1,2,20,1,21,2-3\n"))
    easy = ("check", path, "--processors", "4", "--policy", "easy")
    code, out, _ = run(capsys, *easy, "--event-order", "fixed")
    assert code == 1
    assert "EASY head job 2 starts at t=21, 11 s later than its shadow time t=10" in out
    code, out, _ = run(capsys, *easy)
    assert code == 0 and out.startswith("OK: ")


def test_the_shadow_time_is_recomputed_when_a_job_ends_early(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Job 3 (the head) needs the machine: shadow t=100 at t=1, but job 1 ends early at t=20,
    # and from then the shadow time is t=50 (job 2's planned end). Job 4 backfills at t=21
    # until t=60 on processors job 3 needs: a delay of 10 s past the new shadow time.
    body = "1,0,2,100,0,20,0-1\n2,0,2,50,0,50,2-3\n3,1,4,10,60,70,0-3\n4,21,2,39,21,60,0-1\n"
    code, out, _ = run(
        capsys, "check", str(write(tmp_path, body)), "--processors", "4", "--policy", "easy"
    )
    assert code == 1
    assert (
        "EASY head job 3 starts at t=60, 10 s later than its shadow time t=50 (computed at t=20"
        in out
    )


def test_greedy_backfilling_of_a_real_trace_slice_is_flagged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workload = default_workload()
    jobs = list(workload.jobs)[:400]
    path = tmp_path / "greedy.csv"
    write_record(schedule(jobs, workload.cluster, policy="easy", decide=greedy), path)
    processors = str(workload.cluster.processors)
    code, out, _ = run(
        capsys,
        "check",
        str(path),
        "--processors",
        processors,
        "--policy",
        "easy",
        "--format",
        "json",
    )
    report = json.loads(out)
    assert code == 1 and not report["ok"]
    assert report["counts"]["easy-head"] > 0 and report["counts"]["capacity"] == 0
    assert all(v["kind"] == "easy-head" and v["jobs"] for v in report["shown"])


def test_an_oversubscribed_schedule_exits_1_naming_the_jobs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "1,0,4,100,0,100,0-3\n2,5,2,100,10,50,2-3\n3,5,2,50,100,130,2-3\n")
    code, out, err = run(capsys, "check", str(path), "--processors", "4")
    assert code == 1 and err == ""
    lines = out.splitlines()
    assert lines == [
        "capacity: processors 2-3 oversubscribed at t=10: job 2 starts while job 1 runs there "
        "(until t=100)",
        f"FAILED: {path}: 3 jobs (3 ran) on 4 processors: 1 violation(s): 1 capacity",
    ]


def test_a_clashing_job_that_ends_does_not_free_the_holders_processors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = "1,0,2,100,0,100,0-1\n2,0,2,100,10,20,0-1\n3,0,2,100,30,40,0-1\n"
    code, out, _ = run(capsys, "check", str(write(tmp_path, body)), "--processors", "4")
    assert code == 1
    assert out.splitlines()[:2] == [
        "capacity: processors 0-1 oversubscribed at t=10: job 2 starts while job 1 runs there "
        "(until t=100)",
        "capacity: processors 0-1 oversubscribed at t=30: job 3 starts while job 1 runs there "
        "(until t=100)",
    ]


def test_without_allocations_capacity_is_checked_by_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "1,0,3,100,0,100,\n2,5,2,100,10,50,\n3,5,1,50,100,130,\n")
    code, out, _ = run(capsys, "check", str(path), "--processors", "4")
    assert code == 1
    assert (
        "capacity: 5 of 4 processors in use at t=10: job 2 (2 processors) starts while job 1 runs"
        in out
    )


def test_a_count_violation_names_at_most_five_running_jobs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = "".join(f"{i},0,1,100,0,100,\n" for i in range(1, 8))  # 7 jobs on 6 processors
    code, out, _ = run(capsys, "check", str(write(tmp_path, body)), "--processors", "6")
    assert code == 1
    assert (
        "7 of 6 processors in use at t=0: job 7 (1 processors) starts while "
        "jobs 1, 2, 3, 4, 5 ... run" in out
    )


def test_lifecycle_and_accounting_violations_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = "1,10,1,100,5,20,0\n2,0,1,100,30,25,1\n2,0,1,100,,,\n4,0,1,100,3,,2\n"
    code, out, _ = run(capsys, "check", str(write(tmp_path, body)), "--processors", "4")
    assert code == 1
    assert out.splitlines()[:4] == [
        "accounting: job id 2 appears twice (lines 3 and 4)",
        "lifecycle: job 1 starts at t=5, 5 s before its submission at t=10",
        "lifecycle: job 2 ends at t=25, before it starts at t=30",
        "lifecycle: job 4 starts at t=3 but never ends",
    ]


def test_only_the_first_20_violations_are_shown_then_a_count_per_kind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = "".join(f"{i},0,2,10,0,10,0-1\n" for i in range(1, 31))  # 29 clash with job 1
    body += "".join(f"{i},5,1,10,0,10,{i - 24}\n" for i in range(31, 34))  # 3 start early
    code, out, _ = run(capsys, "check", str(write(tmp_path, body)), "--processors", "10")
    lines = out.splitlines()
    assert code == 1 and len(lines) == 20 + 4
    assert lines[20:] == [
        "... 12 more not shown; per kind:",
        "  lifecycle: 3",
        "  capacity: 29",
        lines[-1],
    ]
    assert "32 violation(s): 3 lifecycle, 29 capacity" in lines[-1]


def test_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "1,0,4,100,0,100,0-3\n2,5,2,100,10,50,2-3\n")
    code, out, _ = run(capsys, "check", str(path), "--processors", "4", "--format", "json")
    report = json.loads(out)
    assert code == 1
    assert report["violations"] == 1 and report["counts"]["capacity"] == 1
    assert report["shown"][0]["jobs"] == [2, 1] and report["shown"][0]["time"] == 10


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("1,0,x,100,0,10,0\n", ":2: column requested_number_of_resources = 'x': not a number"),
        ("1,0,1,100,0,10,0\n2,0,1,100,zero,10,0\n", ":3: column starting_time = 'zero'"),
        ("1,0,1,100,0,10,3-1\n", ":2: column allocated_resources = '3-1': '3-1' ends before"),
        ("1,0,1,100,0,10,0,extra\n", ":2: 8 fields, the header has 7"),
        ("1,0,1,100,0,10,a\n", ":2: column allocated_resources = 'a': 'a' is not N or N-M"),
    ],
)
def test_malformed_input_exits_2_naming_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, expected: str
) -> None:
    code, out, err = run(capsys, "check", str(write(tmp_path, body)), "--processors", "4")
    assert code == 2 and out == ""
    assert err.startswith("schedlib: error: ") and expected in err and err.count("\n") == 1


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("jobs.csv", "", "empty file: no header line"),
        ("jobs.csv", "a,b\n1,2\n", ":1: missing column(s) job_id"),
        ("run.json", "{not json", ":1: not JSON"),
        ("run.json", "[1, 2]", "no 'jobs' list"),
        ("jobs.swf", "1 2 3\n", ":1: "),
        ("jobs.csv.gz", "not gzip", "jobs.csv.gz"),
    ],
)
def test_unreadable_files_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, content: str, expected: str
) -> None:
    path = tmp_path / name
    path.write_text(content)
    code, out, err = run(capsys, "check", str(path), "--processors", "4")
    assert code == 2 and out == ""
    assert expected in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "{junk}.json", "--processors", "4"],
        ["check", "{junk}.csv", "--processors", "4"],
        ["check", "{ok}", "--processors", "4", "--within-uptime", "{junk}.csv"],
        ["plot", "{junk}.json"],
        ["plot", "{junk}.jsonl"],
    ],
)
def test_binary_files_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    junk = tmp_path / "junk"
    for suffix in (".json", ".csv", ".jsonl"):
        junk.with_suffix(suffix).write_bytes(bytes(range(128, 256)) * 3)
    ok = write(tmp_path, "1,0,1,100,0,10,0\n")
    code, out, err = run(capsys, *(a.format(junk=junk, ok=ok) for a in argv))
    assert code == 2 and out == ""
    assert err.endswith(": not a text file (not UTF-8)\n") and err.count("\n") == 1


def test_a_csv_needs_the_machine_size(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "check", str(write(tmp_path, "1,0,1,100,0,10,0\n")))
    assert code == 2 and "give --processors N" in err


def test_an_swf_trace_is_checked_with_its_header_size(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = "{} {} {} {} {} -1 -1 {} 100 -1 1 1 1 -1 -1 -1 -1 -1\n"
    records = [(1, 0, 0, 50, 3), (2, 10, 30, 30, 2), (3, 20, -1, -1, 4)]  # job 3 never ran
    body = "".join(line.format(j, s, w, r, p, p) for j, s, w, r, p in records)
    body += "4 20 1 0 5 -1 -1 5 100 -1 5 1 1 -1 -1 -1 -1 -1\n"  # cancelled while it waited
    path = tmp_path / "log.swf"
    path.write_text("; MaxProcs: 5\n" + body)
    code, out, _ = run(capsys, "check", str(path), "--policy", "fcfs")
    assert code == 0 and "4 jobs (2 ran) on 5 processors" in out
    code, out, _ = run(capsys, "check", str(path), "--processors", "4")
    assert (
        code == 1
        and "5 of 4 processors in use at t=40: job 2 (2 processors) starts while job 1 runs" in out
    )


def test_a_job_without_requested_time_cannot_be_checked_for_easy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "1,0,1,,0,10,0\n2,0,1,10,0,10,1\n")
    code, _, err = run(capsys, "check", str(path), "--processors", "4", "--policy", "easy")
    assert code == 2 and "requested_time" in err and "job 1 (line 2)" in err


def test_no_overtaking_and_within_uptime(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # job 2 (4 processor-seconds, submitted later, bigger) finishes before job 1 (1 x 2 s)
    path = write(tmp_path, "1,0,1,10,5,7,0\n2,1,2,10,1,3,1-2\n")
    code, out, _ = run(capsys, "check", str(path), "--processors", "4", "--no-overtaking")
    assert code == 1
    assert "overtaking: job 2 (submitted t=1, size 4, finished t=3) overtakes job 1" in out
    up = tmp_path / "up.csv"
    up.write_text("processor,start,planned_end\n0,0,6\n1,0,\n2,2,inf\n")
    code, out, _ = run(capsys, "check", str(path), "--processors", "4", "--within-uptime", str(up))
    assert code == 1
    assert (
        "uptime: job 1 runs on processor 0 from t=5 to t=7, after its planned down time t=6" in out
    )
    assert "uptime: job 2 starts on processor 2 at t=1, while it is down" in out
    up.write_text("processor,begin\n")
    assert run(capsys, "check", str(path), "--processors", "4", "--within-uptime", str(up))[0] == 2


def test_a_batsim_file_with_floats_and_rejected_jobs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header = (
        "job_id,workload_name,profile,submission_time,requested_number_of_resources,"
        "requested_time,success,final_state,starting_time,execution_time,finish_time,"
        "waiting_time,turnaround_time,stretch,allocated_resources,consumed_energy,metadata\n"
    )
    body = (
        "1,w0,delay,0.000000,2,10.000000,1,COMPLETED_SUCCESSFULLY,0.000000,5.500000,5.500000,"
        "0.000000,5.500000,1.000000,0-1,-1,\n"
        "2,w0,delay,1.000000,4,10.000000,0,REJECTED,-1,-1,-1,-1,-1,-1,,-1,\n"
        "3,w0,delay,2.000000,2,10.000000,1,COMPLETED_SUCCESSFULLY,5.500000,4.000000,9.500000,"
        "3.500000,7.500000,1.875000,0-1,-1,\n"
    )
    path = write(tmp_path, body, header=header)
    jobs = read_schedule(path).jobs
    assert [(j.id, j.start, j.end) for j in jobs] == [(1, 0, 5.5), (2, None, None), (3, 5.5, 9.5)]
    code, out, _ = run(capsys, "check", str(path), "--processors", "2", "--policy", "fcfs")
    assert code == 0 and "3 jobs (2 ran)" in out


@pytest.mark.parametrize("name", ["KTH-SP2-1996-2.1-cln"])  # CEA-Curie: see the how-to's timing
def test_easy_on_a_whole_real_trace_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], traces_dir: Path, name: str
) -> None:
    output = tmp_path / "easy.csv"
    trace = str(traces_dir / f"{name}.swf.gz")
    assert run(capsys, "run", "--workload", trace, "--output", str(output))[0] == 0
    size = str(load_workload(Path(trace), limit=1).cluster.processors)
    code, out, _ = run(capsys, "check", str(output), "--processors", size, "--policy", "easy")
    assert code == 0, out
    assert out.startswith("OK: ") and "easy-head" in out


def test_our_own_output_round_trips(tmp_path: Path) -> None:
    jobs = [Job(1, 0, 2, 10, 4), Job(2, 1, 4, 10, 10), Job(3, 2, 1, 5, 5)]
    record = schedule(jobs, Cluster(4), policy="easy")
    for name in ("run.csv", "run.json"):
        write_record(record, tmp_path / name)
        read = read_schedule(tmp_path / name)
        assert [(j.id, j.submit, j.procs, j.start, j.end) for j in read.jobs] == [
            (o.job, o.submit, o.procs, o.start, o.end) for o in record.outcomes
        ]
    assert read.capacity == 4


# --------------------------------------------------------------------------- differential


@st.composite
def scrambled(draw: st.DrawFn) -> tuple[Schedule, RunRecord, int]:
    """A schedule with random starts and places (often wrong), and the same as a record."""
    cluster, jobs = draw(
        parallel_instances(max_processors=6, max_jobs=8, runtimes="exact", times="integer")
    )
    capacity = cluster.processors
    starts, ends, places = {}, {}, {}
    for job in jobs:
        start = job.submit + draw(st.integers(0, 30))
        starts[job.id] = start
        ends[job.id] = start + draw(st.integers(0, job.requested_time))
        first = draw(st.integers(0, capacity - job.procs + 1))  # sometimes off the machine
        places[job.id] = tuple(range(first, first + job.procs))
    record = RunRecord.from_schedule(jobs, starts, ends, places, capacity=capacity)
    return Schedule.from_record(record), record, capacity


def _fails(check: object, *args: object) -> bool:
    try:
        check(*args)  # type: ignore[operator]
    except AssertionError:
        return True
    return False


@given(scrambled())
def test_fast_capacity_agrees_with_the_plain_checker(case: tuple[Schedule, RunRecord, int]) -> None:
    table, record, capacity = case
    assert bool(list(capacity_violations(table, capacity))) == _fails(check_capacity, record)


@given(scrambled())
def test_fast_fcfs_order_agrees_with_the_plain_checker(
    case: tuple[Schedule, RunRecord, int],
) -> None:
    table, record, _ = case
    assert bool(list(fcfs_violations(table))) == _fails(check_fcfs_order, record)


@given(scrambled())
def test_fast_easy_head_agrees_with_the_plain_checker(
    case: tuple[Schedule, RunRecord, int],
) -> None:
    table, record, capacity = case
    expected = _fails(check_easy_head_never_delayed, record)
    assert bool(list(easy_head_violations(table, capacity, order="fixed"))) == expected


@given(parallel_instances(max_processors=6, max_jobs=10), st.sampled_from(["easy", "greedy"]))
def test_fast_easy_head_agrees_on_backfilling_runs(
    instance: tuple[Cluster, list[Job]], variant: str
) -> None:
    cluster, jobs = instance
    decide = greedy if variant == "greedy" else None
    record = schedule(jobs, cluster, policy="easy", decide=decide)
    table = Schedule.from_record(record)
    expected = _fails(check_easy_head_never_delayed, record)
    assert bool(list(easy_head_violations(table, cluster.processors, order="fixed"))) == expected
    if variant == "easy":
        assert check_report(table, capacity=cluster.processors, policy="easy").ok


def _overtaking_pairs_plain(table: Schedule) -> set[object]:
    """The definition, pair by pair, over the jobs that ran: who overtakes someone."""
    ran = [j for j in table.jobs if j.start is not None and j.end is not None]

    def size(j: ScheduledJob) -> float:
        return j.procs * (j.end - j.start)  # type: ignore[operator]

    return {
        a.id
        for a in ran
        for b in ran
        if b.submit < a.submit and size(b) < size(a) and a.end < b.end  # type: ignore[operator]
    }


@given(scrambled())
def test_fast_overtaking_agrees_with_the_definition(case: tuple[Schedule, RunRecord, int]) -> None:
    table, _, _ = case
    found = {v.jobs[0] for v in overtaking_violations(table)}
    assert found == _overtaking_pairs_plain(table)


# --------------------------------------------------------------------------- the reader


_VALID = st.integers(0, 40).map(str)
_ODD = st.sampled_from(["", " ", "-2", "2.5", "1e1", "x", " 7", "0-3", "1 4-5", "3-1"])
_CELLS = st.one_of(_VALID, _VALID, _VALID, _VALID, _VALID, _VALID, _ODD)  # mostly valid


@given(st.lists(st.lists(_CELLS, min_size=7, max_size=8), min_size=1, max_size=4))
@example([["1", "0", "-2", "10", "0", "5", "0"]])  # a negative count
@example([["1", "0", "2", "10", "0", "5", " "]])  # a blank allocation
@example([["1", "0.5", "2", "10", "1.5", "5", "0-1"]])  # floats
@example([["1", "0", "2", "10", "3", "", "0-1"]])  # a start without an end
@example([["1", " 0", "2", " 10", "3 ", "5", "0-1 "]])  # spaces
def test_the_fast_path_reads_what_the_careful_one_reads(rows: list[list[str]]) -> None:
    import csv
    import io

    from schedlib.errors import WorkloadFormatError
    from schedlib.results.schedules import _Rows, read_schedule_csv

    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows(
        [HEADER.strip().split(","), *([f"j{i}", *r[1:]] for i, r in enumerate(rows))]
    )

    def careful() -> object:
        reader = _Rows("f.csv", HEADER.strip().split(","))
        for line, row in enumerate(csv.reader(io.StringIO(text.getvalue())), start=1):
            if line > 1 and row:
                reader.add(row, line)
        return reader.schedule(None)

    outcomes = []
    for read in (lambda: read_schedule_csv(io.StringIO(text.getvalue()), "f.csv"), careful):
        try:
            outcomes.append(read())
        except WorkloadFormatError as error:
            outcomes.append(str(error))
    assert outcomes[0] == outcomes[1]


def test_a_schedule_without_jobs_is_refused_as_nothing_to_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "")
    code, out, err = run(capsys, "check", str(path), "--processors", "4")
    assert (code, out) == (2, "")
    assert err == f"schedlib: error: {path}: no jobs: nothing to check\n"


def test_easy_without_requested_times_names_the_missing_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header = "job_id,submission_time,requested_number_of_resources,starting_time,finish_time\n"
    path = write(tmp_path, "1,0,2,0,10\n", header=header)
    code, _, err = run(capsys, "check", str(path), "--processors", "4", "--policy", "easy")
    assert code == 2 and err.count("\n") == 1
    assert "no job has a requested time (CSV column requested_time" in err
    assert run(capsys, "check", str(path), "--processors", "4")[0] == 0


def test_negative_times_are_accepted_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "1,-5,2,10,0,10,0-1\n2,-4,2,10,-3,7,2-3\n")
    code, out, err = run(capsys, "check", str(path), "--processors", "4")
    assert code == 0 and out.startswith("OK: ")
    assert err == (
        "schedlib: warning: 2 job(s) have negative times (the first: job 1, line 2, "
        "submitted at t=-5)\n"
    )
    code, out, _ = run(capsys, "check", str(path), "--processors", "4", "--format", "json")
    assert json.loads(out)["notes"] == [err.removeprefix("schedlib: warning: ").strip()]


def test_a_file_named_gz_is_read_by_its_content_as_run_reads_a_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`run` and `check` tell compression from the content: a plain file named .gz is read as
    plain text by both, and truncated gzip data gets the same words from both."""
    import gzip

    plain = tmp_path / "plain.csv.gz"
    plain.write_text(HEADER + "1,0,2,10,0,10,0-1\n")
    assert run(capsys, "check", str(plain), "--processors", "4")[0] == 0
    packed = gzip.compress((HEADER + "1,0,2,10,0,10,0-1\n" * 2000).encode())
    cut = tmp_path / "cut.csv.gz"
    cut.write_bytes(packed[: len(packed) // 2])
    code, _, err = run(capsys, "check", str(cut), "--processors", "4")
    assert code == 2 and "corrupt or truncated gzip data" in err
    trace = tmp_path / "cut.swf.gz"
    records = "".join(
        f"{i} {i} 0 10 2 -1 -1 2 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n" for i in range(1, 4000)
    )
    trace.write_bytes(gzip.compress(records.encode())[:3000])
    code, _, err = run(capsys, "run", "--workload", str(trace), "--processors", "4")
    assert code == 2 and "corrupt or truncated gzip data" in err
    text_trace = tmp_path / "plain.swf.gz"
    text_trace.write_text("1 0 0 10 2 -1 -1 2 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n")
    assert run(capsys, "run", "--workload", str(text_trace), "--processors", "4")[0] == 0
