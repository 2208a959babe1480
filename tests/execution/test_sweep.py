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
