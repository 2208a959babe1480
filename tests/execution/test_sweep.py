"""Sweeps: the same numbers on any executor, nothing lost when interrupted, resumable."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from schedlib.errors import InvalidValueError
from schedlib.execution import RunFailedError, configurations, read_sweep, sweep
from schedlib.experiments.backfilling import summary
from schedlib.experiments.catalog import experiment

# Workers import the run function by name: it must live in an importable module.
backfill_metrics = summary
GRID = {"policy": ["fcfs", "easy", "conservative"], "processors": [96, 128]}
FIXED = {"limit": 150}


def test_the_same_numbers_on_one_process_local_processes_and_threads() -> None:
    alone = sweep(GRID, backfill_metrics, seeds=[0, 7], fixed=FIXED, workers=1)
    assert len(alone) == 12 and alone[0]["policy"] == "fcfs" and alone[1]["seed"] == 7
    assert sweep(GRID, backfill_metrics, seeds=[0, 7], fixed=FIXED, workers=2) == alone
    with ThreadPoolExecutor(max_workers=3) as pool:
        assert sweep(GRID, backfill_metrics, seeds=[0, 7], fixed=FIXED, executor=pool) == alone


def test_the_same_numbers_on_a_dask_local_cluster() -> None:
    distributed = pytest.importorskip("distributed")
    alone = sweep(GRID, backfill_metrics, seeds=[0, 7], fixed=FIXED, workers=1)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        assert (
            sweep(GRID, backfill_metrics, seeds=[0, 7], fixed=FIXED, executor=client.get_executor())
            == alone
        )


CALLS: list[dict[str, object]] = []


def flaky(**configuration: object) -> dict[str, object]:
    CALLS.append(configuration)
    if configuration["policy"] == "easy" and configuration["processors"] == 128 and FAIL:
        raise MemoryError("the machine ran out of memory")
    return backfill_metrics(**configuration)  # type: ignore[arg-type]


FAIL = True


def test_an_interrupted_sweep_loses_nothing_and_resumes(tmp_path: Path) -> None:
    global FAIL
    output = tmp_path / "sweep.jsonl"
    CALLS.clear()
    FAIL = True
    with pytest.raises(RunFailedError, match=r"'policy': 'easy', 'processors': 128, 'seed': 0"):
        sweep(GRID, flaky, fixed=FIXED, workers=1, output=output)
    kept = read_sweep(output)
    assert len(kept.results) == 3  # fcfs x 2, easy x 96: written as they completed
    assert not kept.complete  # no trailer: the file says it is unfinished
    FAIL = False
    CALLS.clear()
    rows = sweep(GRID, flaky, fixed=FIXED, workers=1, output=output, resume=True)
    assert len(CALLS) == 3  # only what was left
    assert rows == sweep(GRID, backfill_metrics, fixed=FIXED, workers=1)
    finished = read_sweep(output)
    assert len(finished.results) == 6 and finished.complete
    assert output.read_text().splitlines()[-1] == '{"complete": true, "configurations": 6}'


def test_a_line_cut_short_is_ignored_and_redone(tmp_path: Path) -> None:
    output = tmp_path / "sweep.jsonl"
    small = {"policy": ["fcfs", "easy"], "processors": [128]}
    sweep(small, backfill_metrics, fixed=FIXED, workers=1, output=output)
    text = output.read_text()
    text = text[: text.rstrip("\n").rfind("\n") + 1]  # without the trailer: not finished
    output.write_text(text[: len(text) - 20])  # a crash in the middle of the last line
    damaged = read_sweep(output)
    assert damaged.damaged == 1 and len(damaged.results) == 1
    rows = sweep(small, backfill_metrics, fixed=FIXED, workers=1, output=output, resume=True)
    assert [r["policy"] for r in rows] == ["fcfs", "easy"]
    assert all(json.loads(line) for line in output.read_text().splitlines())


def test_bad_sweeps_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidValueError, match="non-empty list"):
        configurations({"policy": []})
    with pytest.raises(InvalidValueError, match="needs an output file"):
        sweep(GRID, backfill_metrics, resume=True)
    output = tmp_path / "old.jsonl"
    output.write_text('{"configuration": {}, "rows": []}\n')
    with pytest.raises(InvalidValueError, match="exists already"):
        sweep(GRID, backfill_metrics, output=output)


def test_a_reproduction_is_swept_by_name() -> None:
    run = experiment("reproduce pgs")
    fixed = {"runs": 1, "readings": "none"}
    rows = sweep({"queue_length": [1, 2]}, run, seeds=[3], fixed=fixed, workers=2)
    assert {(r["queue_length"], r["seed"]) for r in rows} == {(1, 3), (2, 3)}
    assert rows == sweep({"queue_length": [1, 2]}, run, seeds=[3], fixed=fixed, workers=1)
    with pytest.raises(InvalidValueError, match="must be one of run, reproduce pgs"):
        experiment("reproduce nothing")


def test_schedlib_sweep_is_the_sweep_function_loaded_on_first_use() -> None:
    import schedlib

    assert schedlib.sweep is sweep
    with pytest.raises(AttributeError, match="no attribute 'swep'"):
        _ = schedlib.swep  # type: ignore[attr-defined]


DASK_SWEEP = """experiment = "reproduce pgs"
seeds = [0, 1, 2, 3]
[fixed]
runs = 2
[grid]
queue_length = [1, 2, 3]
order = ["increasing", "shuffled", "decreasing"]
"""


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_ctrl_c_on_a_dask_local_sweep_prints_one_line_and_keeps_the_runs(tmp_path: Path) -> None:
    """A terminal's Ctrl-C reaches the whole process group, dask's workers included: the
    command says, on one line, what it kept and that --resume continues; no worker or
    cluster traceback, no worker left behind."""
    pytest.importorskip("distributed")
    import os
    import signal
    import subprocess
    import sys
    import time

    config = tmp_path / "sweep.toml"
    config.write_text(DASK_SWEEP)
    output = tmp_path / "out.jsonl"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "schedlib",
            "sweep",
            str(config),
            "--dask-local",
            "2",
            "-o",
            str(output),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (output.exists() and output.stat().st_size):
        time.sleep(0.05)
    assert output.exists(), "no run finished in two minutes"
    os.killpg(process.pid, signal.SIGINT)
    _out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    lines = err.splitlines()
    assert len(lines) == 2 and lines[0].startswith("schedlib: sweep of reproduce pgs: 36 runs")
    kept = len(read_sweep(output).results)
    assert lines[1] == (
        f"schedlib: interrupted: {kept} of 36 runs are in {output}; run the same command with "
        "--resume to continue"
    )
    leftover = "?"
    for _ in range(100):  # a worker told to stop may take a moment to go
        leftover = subprocess.run(
            ["ps", "-o", "pid=,args=", "-s", str(process.pid)], capture_output=True, text=True
        ).stdout
        if not leftover:
            break
        time.sleep(0.1)
    assert leftover == "", f"a process of the sweep outlived it: {leftover}"
