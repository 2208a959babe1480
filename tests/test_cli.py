"""The `schedlib` command as a user meets it: tables, warnings, errors, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from schedlib.cli import main

LINE = "{job} {submit} 0 {runtime} {procs} -1 -1 {procs} {request} -1 1 1 1 -1 -1 -1 -1 -1\n"


def swf(tmp_path: Path, *jobs: tuple[int, int, int, int], header: str = "") -> Path:
    """A small SWF file; each job is (number, submit, procs, runtime), requesting 1000 s."""
    path = tmp_path / "small.swf"
    body = "".join(
        LINE.format(job=j, submit=s, procs=p, runtime=r, request=1000) for j, s, p, r in jobs
    )
    path.write_text(header + body)
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_compare_keeps_the_policy_columns_when_every_metric_ties(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = swf(tmp_path, (1, 0, 1, 10), header="; MaxProcs: 4\n")
    code, out, _ = run(capsys, "compare", "--workload", str(path))
    assert code == 0
    header = next(line for line in out.splitlines() if line.startswith("metric"))
    assert header.split() == ["metric", "unit", "fcfs", "easy", "conservative"]
    assert "mean_wait              s" in out
    assert "processors: 4" in out


def test_run_prints_metrics_as_rows_with_units_and_explains_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "run", "--policy", "easy", "--limit", "200", "--explain")
    assert code == 0
    lines = out.splitlines()
    assert any(line.split()[:3] == ["utilisation", "fraction", "0.6384"] for line in lines if line)
    assert max(len(line) for line in lines if not line.startswith("  ")) < 60
    assert "what the rows mean" in out and "killed" in out
    assert "200 records -> " in err


def test_machine_formats_keep_bare_names_and_full_precision(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "compare", "--limit", "100", "--format", "json")
    rows = json.loads(out)
    assert code == 0 and [r["policy"] for r in rows] == ["fcfs", "easy", "conservative"]
    assert "mean_wait" in rows[0] and "unit" not in rows[0]


def test_an_empty_workload_is_an_error_unless_the_size_is_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.swf"
    empty.write_text("")
    code, out, err = run(capsys, "compare", "--workload", str(empty))
    assert code == 2 and out == ""
    assert "no job records" in err and "--processors" in err and "Traceback" not in err
    code, out, err = run(capsys, "compare", "--workload", str(empty), "--processors", "4")
    assert code == 0
    assert "0 records -> 0 jobs" in err
    assert [line.split()[2:] for line in out.splitlines() if line.startswith("jobs")] == [
        ["0", "0", "0"]
    ]


def test_guesses_are_warned_about_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = swf(tmp_path, (1, 0, 8, 10), (2, 5, 2, 10))
    code, _, err = run(capsys, "run", "--workload", str(path), "--format", "csv")
    assert code == 0
    assert "warning: the trace's header gives no machine size" in err
    assert "assuming 8 processors" in err
    code, _, err = run(
        capsys, "run", "--workload", str(path), "--processors", "4", "--format", "csv"
    )
    assert "warning: 1 jobs ask for more than the machine's 4 processors" in err
    assert "2 records -> 1 jobs; excluded: 1 wider than the machine (4 processors)" in err


def test_quick_reproductions_say_what_they_reduced(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "reproduce", "pgs", "--quick", "--workers", "1")
    assert code == 0
    assert out.splitlines()[0] == (
        "quick run, reduced sizes: runs=10 (full: runs=20), readings=none (full: readings=all)"
    )
    code, out, err = run(capsys, "reproduce", "pgs", "--quick", "--workers", "1", "--format", "csv")
    assert out.startswith("scenario,") and "quick run" in err


def test_every_reproduction_states_its_running_time_and_has_quick(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from schedlib.experiments import REPRODUCTIONS

    for name in REPRODUCTIONS:
        with pytest.raises(SystemExit):
            main(["reproduce", name, "--help"])
        out = " ".join(capsys.readouterr().out.split())
        assert "--quick" in out and "instead of about" in out, name


def test_plot_target_is_checked_before_any_computation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "missing" / "plot.png"
    code, out, err = run(capsys, "reproduce", "preemptive", "--plot", str(target))
    assert code == 2 and out == ""
    assert "does not exist" in err


def test_python_dash_m_runs_the_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "schedlib", "--version"], capture_output=True, text=True, check=True
    )
    assert done.stdout.startswith("schedlib ")


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["compare", "--processors", "0"], "argument --processors: must be an integer >= 1, got 0"),
        (["run", "--policy", "sjf"], "argument --policy: 'sjf' is neither fcfs, easy"),
        (["run", "--over-limit", "extendo"], "argument --over-limit: invalid choice: 'extendo'"),
        (["run", "--nosuch"], "unrecognized arguments: --nosuch"),
        (["plot"], "the following arguments are required: FILE"),
        (["nosuch"], "argument COMMAND: invalid choice: 'nosuch'"),
        ([], "the following arguments are required: COMMAND"),
        (["reproduce", "pgs", "--runs", "x"], "argument --runs: must be an integer >= 1, got 'x'"),
    ],
)
def test_bad_arguments_exit_2_with_one_line_and_a_hint_to_help(
    capsys: pytest.CaptureFixture[str], argv: list[str], said: str
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, err
    command = " ".join(["schedlib", *argv[:1]]) if argv and argv[0] != "nosuch" else "schedlib"
    if argv[:1] == ["reproduce"]:
        command = "schedlib reproduce pgs"
    assert err.startswith(f"{command}: error: ") and said in err
    assert err.endswith(f"(see {command} --help)\n")


def test_the_readme_library_snippet_runs_without_hypothesis() -> None:
    """The base install has no hypothesis; CI runs the snippet in such a venv too."""
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    block = readme.split("<!-- library-snippet -->", 1)[1].split("```python", 1)[1]
    snippet = block.split("```", 1)[0]
    imports = "\n".join(line for line in snippet.splitlines() if line.startswith("from "))
    code = "import sys\nsys.modules['hypothesis'] = None\n" + imports
    subprocess.run([sys.executable, "-c", code], check=True)


SWEEP = """
experiment = "run"
[fixed]
limit = 120
[grid]
policy = ["fcfs", "easy"]
processors = [96, 128]
"""


def test_sweep_appends_results_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "sweep.toml"
    config.write_text(SWEEP)
    output = tmp_path / "out.jsonl"
    code, out, err = run(
        capsys, "sweep", str(config), "-o", str(output), "--workers", "1", "--format", "csv"
    )
    assert code == 0 and "4 runs" in err
    rows = out.splitlines()
    assert rows[0].startswith("limit,policy,processors,seed") and len(rows) == 5
    assert len(output.read_text().splitlines()) == 4 + 1  # one line per run, and the trailer
    code, _, err = run(capsys, "sweep", str(config), "-o", str(output))
    assert code == 2 and err == (
        f"schedlib: error: {output} exists already: run the same command with --resume to "
        "continue that sweep, or remove the file to start again\n"
    )
    code, again, err = run(
        capsys, "sweep", str(config), "-o", str(output), "--resume", "--format", "csv"
    )
    assert code == 0 and again == out
    assert err.startswith(f"schedlib: resuming: 4 of 4 runs are in {output}\n")
    assert "4 runs (0 to run, 4 already in" in err


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('experiment = "run"\n[grid]\npolicy = "easy"\n', "must be a non-empty list"),
        ('experiment = "reproduce nothing"\n', "must be one of run, reproduce pgs"),
        ('experiment = "run"\n[grid]\ncolour = ["red"]\n', "grid.colour = 'red': is not one of"),
        ('experiment = "reproduce pgs"\n[fixed]\nrunz = 2\n', "unrecognized arguments: --runz"),
        ('experiment = "run"\nseed = [1]\n', "unknown key(s) ['seed']"),
        ("experiment = \n", "not TOML"),
        (
            'experiment = "reproduce pgs"\n[fixed]\nruns = 1\n[grid]\norder = ["increasing", '
            '"sideways"]\n',
            "grid.order = 'sideways': argument --order: invalid choice: 'sideways'",
        ),
        ('experiment = "run"\noutput = "/nonexistent/dir/s.jsonl"\n', "does not exist"),
        ('experiment = "run"\noutput = "s.xlsx"\n', "must end in .jsonl or .json"),
    ],
)
def test_bad_sweep_configurations_exit_2_before_any_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    config = tmp_path / "bad.toml"
    config.write_text(text)
    code, out, err = run(capsys, "sweep", str(config), "--workers", "1")
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err and err.count("\n") == 1
    assert not list(tmp_path.glob("*.jsonl"))  # nothing ran, nothing written


def test_a_reproduction_interrupted_with_resume_says_what_it_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C in `reproduce NAME --resume FILE` ends with one line counting the runs the
    file keeps (three finished here, then Ctrl-C), exit 130; the next sitting says first
    what it found; without --resume, the plain line."""
    import importlib
    import re

    module = importlib.import_module("schedlib.execution.tasks")

    def interrupted(function: Any, items: Any, *, on_result: Any, **kwargs: Any) -> Any:
        for index in range(3):
            on_result(index, {"run": index})  # three runs finish (stand-ins), then Ctrl-C
        raise KeyboardInterrupt

    monkeypatch.setattr(module, "run_all", interrupted)
    runs = tmp_path / "runs.jsonl"
    code, out, err = run(capsys, "reproduce", "pgs", "--quick", "--resume", str(runs))
    assert (code, out) == (130, "")
    last = err.splitlines()[-1]
    assert re.fullmatch(
        rf"schedlib: interrupted: 3 of \d+ runs are in {re.escape(str(runs))}; run the same "
        "command again to continue",
        last,
    ), last
    assert len(runs.read_text().splitlines()) == 4  # the header and the three runs
    code, _, err = run(capsys, "reproduce", "pgs", "--quick", "--resume", str(runs))
    assert code == 130
    first, *_, last = err.splitlines()
    total = re.search(r"3 of (\d+) runs", err)
    assert total is not None
    assert first == f"schedlib: resuming: 3 of {total[1]} runs are in {runs}"
    assert last.startswith(f"schedlib: interrupted: 6 of {total[1]} runs are in {runs}; ")
    code, _, err = run(capsys, "reproduce", "pgs", "--quick")
    assert code == 130 and err.splitlines()[-1] == "schedlib: interrupted"


def test_a_sweep_interrupted_says_what_it_kept_and_how_to_continue(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib

    module = importlib.import_module("schedlib.execution.sweep")
    config = tmp_path / "sweep.toml"
    config.write_text(SWEEP)
    output = tmp_path / "out.jsonl"
    real = module.run_all

    def interrupted(function: Any, items: Any, **kwargs: Any) -> Any:
        items = list(items)
        real(function, items[:3], **{**kwargs, "workers": 1})
        raise KeyboardInterrupt

    monkeypatch.setattr(module, "run_all", interrupted)
    code, out, err = run(capsys, "sweep", str(config), "-o", str(output), "--workers", "1")
    assert (code, out) == (130, "")
    assert err.splitlines()[-1] == (
        f"schedlib: interrupted: 3 of 4 runs are in {output}; run the same command with "
        "--resume to continue"
    )
    code, _, err = run(capsys, "sweep", str(config), "--workers", "1")
    assert code == 130 and err.splitlines()[-1] == (
        "schedlib: interrupted (no output file: nothing was kept)"
    )
    monkeypatch.setattr(module, "run_all", real)
    code, _, err = run(capsys, "sweep", str(config), "-o", str(output), "--resume")
    assert code == 0 and "resuming: 3 of 4 runs are in" in err
    code, _, err = run(capsys, "sweep", str(config), "--resume")
    assert code == 2 and "--resume needs an output file" in err


def test_a_stuck_simulation_is_our_fault_and_exits_1(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from schedlib import cli as cli_module
    from schedlib.errors import SimulationStuckError

    def stuck(args: object) -> int:
        raise SimulationStuckError(4, [1], "livelock", rule="livelock")

    monkeypatch.setattr(cli_module, "_cmd_compare", stuck)
    assert cli_module.main(["compare"]) == 1
    err = capsys.readouterr().err
    assert (
        err.startswith("schedlib: internal error: simulation stuck at t=4") and err.count("\n") == 1
    )


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
def test_run_stream_writes_the_same_rows_as_they_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], policy: str
) -> None:
    whole, streamed = tmp_path / "whole.csv", tmp_path / "streamed.csv"
    common = ("run", "--policy", policy, "--limit", "400", "--format", "json")
    code, out_whole, _ = run(capsys, *common, "--output", str(whole))
    assert code == 0
    code, out_streamed, _ = run(capsys, *common, "--output", str(streamed), "--stream")
    assert code == 0
    rows_whole = whole.read_text().splitlines()
    rows_streamed = streamed.read_text().splitlines()
    assert rows_streamed[0] == rows_whole[0]  # the header
    assert sorted(rows_streamed[1:]) == sorted(rows_whole[1:])
    finish = rows_whole[0].split(",").index("finish_time")
    ends = [float(r.split(",")[finish] or "nan") for r in rows_streamed[1:]]
    ran = [t for t in ends if t == t]
    assert ran == sorted(ran)  # written as the jobs end
    a, b = json.loads(out_whole)[0], json.loads(out_streamed)[0]
    for key, value in a.items():  # the same metrics, up to the order of the float sums
        if isinstance(value, float):
            assert b[key] == pytest.approx(value, rel=1e-12, nan_ok=True), key
        else:
            assert b[key] == value, key


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ((), "give --output FILE.csv"),
        (("--output", "x.json"), "give --output FILE.csv"),
        (("--output", "x.csv", "--plot", "x.png"), "no record to plot"),
        (("--output", "x.csv", "--cleaning", "pyss"), "drop one"),
    ],
)
def test_run_stream_refuses_what_it_cannot_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: tuple[str, ...], message: str
) -> None:
    code, _, err = run(capsys, "run", "--limit", "10", "--stream", *extra)
    assert code == 2 and message in err and len(err.splitlines()) == 1


def test_run_stream_names_a_trace_out_of_arrival_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "late.swf"
    trace.write_text(
        "; MaxProcs: 4\n"
        "1 10 0 5 1 -1 -1 1 9 -1 1 1 1 -1 -1 -1 -1 -1\n"
        "2 3 0 5 1 -1 -1 1 9 -1 1 1 1 -1 -1 -1 -1 -1\n"
    )
    output = tmp_path / "out.csv"
    args = ("run", "--workload", str(trace), "--stream", "--output", str(output))
    code, _, err = run(capsys, *args)
    named, said = err.splitlines()  # the trace read, then the one error line
    assert code == 2 and named.startswith("schedlib: workload: ") and "arrival order" in said
    assert not output.exists()  # nothing half-written is left behind


def test_the_docs_install_extras_from_the_clone_and_the_tutorial_matches_the_readme() -> None:
    """schedlib is not on a package index: an extra is installed from the clone
    (`pip install '.[plot]'`), never as `schedlib[plot]`. The tutorial names every extra the
    README's test command installs and every reproduction, and does not ask for the `test`
    extra where the base install is enough (the README says so)."""
    import re

    from schedlib.experiments import REPRODUCTIONS

    root = Path(__file__).resolve().parents[1]
    pages = [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
    for page in pages:
        assert "install 'schedlib[" not in page.read_text(), page
    readme = (root / "README.md").read_text()
    extras = re.search(r"pip install '\.\[([a-z,]+)\]' && \.venv/bin/python -m pytest", readme)
    assert extras is not None
    tutorial = (root / "docs" / "tutorial.md").read_text()
    section6 = tutorial.split("## 6.")[1]
    for extra in extras.group(1).split(","):
        assert f"`{extra}`" in section6, extra
    section5 = tutorial.split("## 5.")[1].split("## 6.")[0]
    for name in [*REPRODUCTIONS, "all"]:
        assert f"schedlib reproduce {name}" in section5, name
    section4 = tutorial.split("## 4.")[1].split("## 5.")[0]
    assert "base install is\nenough" in section4
    assert "base install (`pip install .`) is enough" in readme


def test_the_dask_hint_says_how_to_install_from_the_clone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    config = tmp_path / "sweep.toml"
    config.write_text(SWEEP)
    code, _, err = run(capsys, "sweep", str(config), "--dask-local", "2")
    assert code == 2 and err.endswith(
        "install the 'dask' extra: pip install '.[dask]' in schedlib's clone\n"
    )


def test_run_output_is_checked_before_any_work_and_says_what_it_wrote(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(tmp_path / "no-such-trace.swf")  # never read: the output is refused first
    for output, reason in (
        ("out.xlsx", "--output = 'out.xlsx': must end in .csv or .json"),
        (str(tmp_path / "nowhere" / "x.csv"), "does not exist"),
        (str(tmp_path), "must end in .csv or .json"),
    ):
        code, out, err = run(capsys, "run", "--workload", missing, "--output", output)
        assert (code, out) == (2, "") and reason in err and err.count("\n") == 1
        assert ".part" not in err
    target = tmp_path / "jobs.csv"
    code, _, err = run(capsys, "run", "--limit", "40", "--output", str(target))
    assert code == 0 and f"schedlib: wrote 40 jobs to {target}\n" in err
    code, _, err = run(capsys, "run", "--stream", "--limit", "40", "--output", str(target))
    assert code == 0 and f"schedlib: wrote 40 jobs to {target}\n" in err


def test_compare_says_what_each_job_count_is(capsys: pytest.CaptureFixture[str]) -> None:
    """The table counts every record of the trace; the records cleaning excluded appear as
    cancelled (or rejected); jobs cancelled while running are simulated, so they complete."""
    code, out, err = run(capsys, "compare")
    assert code == 0
    assert "5000 records -> 4641 jobs; excluded: 359 cancelled in the log" in err
    table = out.split("what the job counts are:")[0]
    counts = {line.split()[0]: line.split()[2:] for line in table.splitlines() if line}
    assert counts["jobs"] == ["5000"] * 3 and counts["cancelled"] == ["359"] * 3
    said = " ".join(out.split("what the job counts are:")[1].split())
    assert (
        "jobs: the 5000 records of the trace: 4641 simulated, 359 not (cancelled: 359 "
        "cancelled in the log before they started)" in said
    )
    assert (
        "completed and killed: include 1085 jobs cancelled while running in the log, each "
        "simulated for the time it ran there" in said
    )
