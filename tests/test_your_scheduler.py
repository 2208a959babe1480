"""A scheduler of yours on the command line: `run --policy MODULE:FUNCTION`, `conform`, sweeps."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from schedlib.cli import main

POLICY = '''
from schedlib.backfill import Decision


def smallest_first(snapshot):
    """Start the waiting jobs that fit, fewest processors first (no reservation)."""
    free, chosen = snapshot.free, []
    for k, job in sorted(enumerate(snapshot.queue), key=lambda kj: (kj[1].procs, kj[0])):
        if job.procs <= free:
            chosen.append(k)
            free -= job.procs
    return Decision(tuple(snapshot.queue[k] for k in sorted(chosen)), tuple(sorted(chosen)))


def one_at_a_time(jobs, cluster):
    starts, ends, clock = {}, {}, 0
    for job in sorted(jobs, key=lambda j: (j.submit, j.id)):
        starts[job.id] = max(clock, job.submit)
        ends[job.id] = clock = starts[job.id] + min(job.runtime, job.requested_time)
    return starts, ends, {j: range(job.procs) for j, job in ((j.id, j) for j in jobs)}, [
        j.id for j in jobs if j.runtime > j.requested_time
    ]


def crashes(snapshot):
    return 1 / 0


def returns_a_list(snapshot):
    return list(snapshot.queue)


NOT_A_FUNCTION = 3
'''
CRASH_LINE = POLICY.splitlines().index("    return 1 / 0") + 1


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as stop:
        code = stop.code  # type: ignore[assignment]
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def policies(tmp_path: Path) -> Path:
    path = tmp_path / "mypolicies.py"
    path.write_text(POLICY)
    return path


def test_a_policy_file_runs_writes_its_output_and_the_output_passes_check(
    policies: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "jobs.csv"
    code, out, err = run(
        capsys, "run", "--policy", f"{policies}:smallest_first", "--limit", "400",
        "--output", str(output),
    )  # fmt: skip
    assert code == 0, err
    assert "metric" in out and "smallest_first" in out.splitlines()[3]
    assert f"wrote 400 jobs to {output}" in err
    code, out, _ = run(capsys, "check", str(output))
    assert code == 0 and out.startswith("OK: ")
    code, out, _ = run(capsys, "plot", str(output), "-o", str(tmp_path / "f.png"))
    assert code == 0 and out.strip().endswith("f.png")


def test_a_module_in_the_working_directory_is_found_by_name(
    policies: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(policies.parent)
    code, out, _ = run(capsys, "run", "--policy", "mypolicies:smallest_first", "--limit", "100")
    assert code == 0 and "smallest_first" in out


def test_every_form_runs_like_the_shipped_policies(
    policies: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    def rows(*argv: str) -> dict[str, object]:
        code, out, err = run(capsys, "run", "--limit", "300", "--format", "json", *argv)
        assert code == 0, err
        row: dict[str, object] = json.loads(out)[0]
        return row

    shipped = rows("--policy", "conservative")
    planned = rows("--policy", "schedlib.backfill:conservative", "--form", "plan")
    assert {**planned, "policy": "conservative"} == shipped
    easy = rows("--policy", "easy")
    decided = rows("--policy", "schedlib.backfill:easy")
    assert {**decided, "policy": "easy"} == easy
    scheduled = rows("--policy", f"{policies}:one_at_a_time")
    assert scheduled["policy"] == "one_at_a_time" and scheduled["jobs"] == 300
    assert scheduled["cancelled"] == easy["cancelled"] > 0  # the excluded records are kept


@pytest.mark.parametrize(
    ("policy", "extra", "said"),
    [
        ("nosuch.py:f", [], "--policy = 'nosuch.py:f': nosuch.py: no such file"),
        ("nosuchmodule:f", [], "no module named 'nosuchmodule'"),
        ("{p}:smallest", [], "defines no 'smallest' (it defines: crashes, one_at_a_time, "
                             "returns_a_list, smallest_first)"),
        ("{p}:NOT_A_FUNCTION", [], ":NOT_A_FUNCTION': NOT_A_FUNCTION is a int, not a function"),
        ("{p}:one_at_a_time", ["--form", "decide"],
         "one_at_a_time takes 2 arguments (jobs, cluster); a decide scheduler takes 1 "
         "(Snapshot -> Decision); give --form schedule"),
        ("easy", ["--form", "plan"], "--form = 'plan': is for a scheduler of yours"),
        ("{p}:crashes", [], "error: crashes raised ZeroDivisionError at mypolicies.py:"
                            f"{CRASH_LINE}: division by zero"),
        ("{p}:returns_a_list", [], "error: decision of returns_a_list at t="),
        ("{p}:smallest_first", ["--stream", "--output", "x.csv"],
         "--stream runs the shipped policies only"),
    ],
)  # fmt: skip
def test_a_wrong_module_function_or_form_is_one_line_naming_the_option(
    policies: Path, capsys: pytest.CaptureFixture[str], policy: str, extra: list[str], said: str
) -> None:
    code, out, err = run(
        capsys, "run", "--policy", policy.format(p=policies), "--limit", "50", *extra
    )
    assert code == 2 and out == "", err
    last = err.splitlines()[-1]  # after the workload's line, for an error met during the run
    assert said in last and err.count("error") == 1 and "Traceback" not in err, err


def test_an_error_while_importing_names_the_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("import math\n\nvalue = math.nosuch\n")
    code, _, err = run(capsys, "run", "--policy", f"{broken}:f")
    assert code == 2
    assert f"importing it raised AttributeError at {broken}:3: " in err
    broken.write_text("def f(snapshot:\n")
    code, _, err = run(capsys, "run", "--policy", f"{broken}:f")
    assert code == 2 and f"importing it raised SyntaxError at {broken}:1" in err


def test_conform_prints_one_line_per_check_and_passes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(
        capsys, "conform", "easy", "--guarantees", "easy-head,no-starvation",
        "--max-examples", "10",
    )  # fmt: skip
    lines = out.splitlines()
    names = [line.split()[1] for line in lines[:-1]]
    assert code == 0, out + err
    assert names == ["accounting", "lifecycle", "capacity", "no-early-start", "determinism",
                     "non-clairvoyant", "easy-head", "no-starvation"]  # fmt: skip
    assert all(line.startswith("ok    ") for line in lines[:-1])
    assert lines[-1] == "8 of 8 checks pass"
    assert "family backfill, 8 checks, 10 examples each" in err


def test_conform_prints_a_counterexample_that_pastes_and_exits_1(
    policies: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys, "conform", f"{policies}:smallest_first", "--guarantees", "no-starvation",
        "--max-examples", "30",
    )  # fmt: skip
    assert code == 1
    lines = out.splitlines()
    assert lines[-1] == "6 of 7 checks pass; failed: no-starvation"
    failing = [line for line in lines if line.startswith("FAIL")]
    assert len(failing) == 1 and failing[0].split()[1] == "no-starvation"
    code_text = out.split("paste it into a test\n")[1].split("# end of the counterexample")[0]
    test_file = tmp_path / "elsewhere" / "test_regression.py"
    test_file.parent.mkdir()
    test_file.write_text(code_text)
    done = subprocess.run(
        [sys.executable, str(test_file)], capture_output=True, text=True, cwd=test_file.parent
    )
    assert done.returncode == 1
    assert "AssertionError: job " in done.stderr and "later than its bound" in done.stderr


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["easy", "--guarantees", "easy-heda"], "--guarantees = 'easy-heda': family 'backfill' "),
        (["easy", "--family", "nosuch"], "--family = 'nosuch': must be one of"),
        (["sjf"], "SCHEDULER = 'sjf': expected MODULE:FUNCTION"),
        (["nosuch.py:f"], "SCHEDULER = 'nosuch.py:f': nosuch.py: no such file"),
    ],
)
def test_conform_refuses_bad_input_in_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], said: str
) -> None:
    code, out, err = run(capsys, "conform", *argv)
    assert code == 2 and out == "" and said in err and err.count("\n") == 1, err


def test_a_sweep_with_one_bad_grid_value_fails_before_any_run_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "out.jsonl"
    config = tmp_path / "sweep.toml"
    config.write_text(
        f'experiment = "run"\noutput = "{output}"\n[fixed]\nlimit = 50\n'
        '[grid]\npolicy = ["easy", "sjf"]\n'
    )
    code, out, err = run(capsys, "sweep", str(config), "--workers", "1")
    assert code == 2 and out == "" and not output.exists()
    assert err == (
        f"schedlib: error: {config}: grid.policy = 'sjf': argument --policy: 'sjf' is neither "
        "fcfs, easy, conservative nor MODULE:FUNCTION / path/to/file.py:FUNCTION (a scheduler "
        "of yours)\n"
    )


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ('[fixed]\nlimit = 0\n', "fixed.limit = 0: argument --limit: must be an integer >= 1"),
        ('[grid]\nworkload = ["nosuch.swf"]\n',
         "grid.workload = 'nosuch.swf': --workload = 'nosuch.swf': no such file"),
        ('[grid]\ncleaning = ["default", "pyss"]\nover_limit = ["kill", "extend"]\n',
         "the combination cleaning = 'pyss', over_limit = 'extend': --over-limit = 'extend'"),
        ('[grid]\npolicy = ["nosuch.py:f"]\n', "grid.policy = 'nosuch.py:f': --policy = "),
    ],
)  # fmt: skip
def test_a_sweep_names_the_toml_key_and_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], table: str, said: str
) -> None:
    config = tmp_path / "sweep.toml"
    config.write_text('experiment = "run"\n' + table)
    code, out, err = run(capsys, "sweep", str(config), "--workers", "1")
    assert code == 2 and out == "" and said in err and err.count("\n") == 1, err


def test_a_sweep_of_a_deterministic_experiment_runs_each_point_once_and_says_so(
    policies: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "sweep.toml"
    config.write_text(
        textwrap.dedent(f"""
        experiment = "run"
        seeds = [0, 1, 2]
        [fixed]
        limit = 60
        [grid]
        policy = ["easy", "{policies}:smallest_first"]
        """)
    )
    output = tmp_path / "out.jsonl"
    code, _, err = run(capsys, "sweep", str(config), "-o", str(output), "--workers", "1")
    assert code == 0, err
    assert (
        "run draws nothing at random: its 3 seeds would give identical runs, so each "
        "configuration runs once, with seed 0" in err
    )
    assert len(output.read_text().splitlines()) == 2 + 1  # two runs and the trailer


def test_conform_without_hypothesis_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.util

    real = importlib.util.find_spec

    def find_spec(name: str, *args: object) -> object:
        return None if name == "hypothesis" else real(name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    code, out, err = run(capsys, "conform", "easy")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "install the 'test' extra: pip install '.[test]'" in err


def test_reproduce_all_refuses_zero_workers_at_parse_time(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run(capsys, "reproduce", "all", "--workers", "0")
    assert code == 2 and err == (
        "schedlib reproduce all: error: argument --workers: must be an integer >= 1, got 0 "
        "(see schedlib reproduce all --help)\n"
    )
