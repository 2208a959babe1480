"""A grid of runs: the same results on any executor and after any number of resumptions."""

from __future__ import annotations

import json
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from schedlib.errors import InvalidValueError, WorkloadFormatError
from schedlib.execution import RunFailedError
from schedlib.execution.tasks import read_resume_file, run_tasks

TASKS = [(n, seed) for n in (3, 1, 4, 1, 5) for seed in (0, 1)]
"""Ten tasks, two pairs of them the same run (same key)."""
CALLS: list[tuple[int, int]] = []
FAIL_AT: set[tuple[int, int]] = set()


def simulate(task: tuple[int, int]) -> dict[str, object]:
    """A stand-in for one simulation: a tuple and a float in its result, like real rows."""
    CALLS.append(task)
    if task in FAIL_AT:
        raise MemoryError("the machine ran out of memory")
    n, seed = task
    return {"n": n, "seed": seed, "pair": (n, seed), "value": n / 7 + seed}


def key(task: tuple[int, int]) -> str:
    return f"{task[0]}/{task[1]}"


OPTIONS = {"jobs": 5000, "traces": ["CTC-SP2", "SDSC-SP2"]}


def _run(**kwargs: object) -> list[object]:
    return run_tasks(simulate, TASKS, key=key, options=OPTIONS, name="test", **kwargs)  # type: ignore[arg-type]


def test_results_are_in_task_order_through_json_and_each_run_happens_once() -> None:
    CALLS.clear()
    results = _run(workers=1)
    assert [r["pair"] for r in results] == [[n, s] for n, s in TASKS]  # type: ignore[index]
    assert len(CALLS) == 8  # (1, 0) and (1, 1) appear twice in the grid, run once each


def test_the_same_results_on_one_process_local_processes_and_threads() -> None:
    alone = _run(workers=1)
    assert _run(workers=2) == alone
    with ThreadPoolExecutor(max_workers=3) as pool:
        assert _run(executor=pool) == alone


def test_the_same_results_on_a_dask_local_cluster() -> None:
    """Dask's workers import the function by name: a builtin stands in for a simulation."""
    distributed = pytest.importorskip("distributed")

    def grid(**kwargs: object) -> list[object]:
        return run_tasks(sorted, TASKS, key=key, options=OPTIONS, name="test", **kwargs)  # type: ignore[arg-type]

    alone = grid(workers=1)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        assert grid(executor=client.get_executor(), cost=lambda t: t[0]) == alone


def test_expensive_runs_are_submitted_first() -> None:
    CALLS.clear()
    _run(workers=1, cost=lambda task: task[0])
    assert [n for n, _ in CALLS] == [5, 5, 4, 4, 3, 3, 1, 1]
    assert CALLS[:2] == [(5, 0), (5, 1)]  # equal costs keep the task order


def test_a_grid_interrupted_twice_and_resumed_gives_the_uninterrupted_results(
    tmp_path: Path,
) -> None:
    alone = _run(workers=1)
    path = tmp_path / "runs.jsonl"
    FAIL_AT.update({(4, 0), (5, 1)})
    try:
        with pytest.raises(RunFailedError):
            _run(workers=1, resume=path)
        first = read_resume_file(path)
        assert first.options == OPTIONS and 0 < len(first.results) < 8
        FAIL_AT.discard((4, 0))
        with pytest.raises(RunFailedError):
            _run(workers=1, resume=path)
        assert len(first.results) < len(read_resume_file(path).results) < 8
    finally:
        FAIL_AT.clear()
    CALLS.clear()
    assert _run(workers=2, resume=path) == alone
    assert len(CALLS) <= 2  # only what had not finished
    CALLS.clear()
    assert _run(workers=1, resume=path) == alone and CALLS == []


def test_a_line_cut_short_by_a_crash_is_dropped_and_run_again(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    alone = _run(workers=1, resume=path)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])
    assert read_resume_file(path).damaged == 1
    CALLS.clear()
    assert _run(workers=1, resume=path) == alone
    assert len(CALLS) == 1
    assert all(json.loads(line) for line in path.read_text().splitlines())


def test_a_file_written_with_other_options_is_refused_naming_the_difference(
    tmp_path: Path,
) -> None:
    path = tmp_path / "runs.jsonl"
    _run(workers=1, resume=path)
    before = path.read_text()
    other = {**OPTIONS, "jobs": 1000}
    with pytest.raises(InvalidValueError, match=r"jobs = 5000 there, 1000 here"):
        run_tasks(simulate, TASKS, key=key, options=other, name="test", resume=path, workers=1)
    with pytest.raises(InvalidValueError, match=r"written by `test`, not `other`"):
        run_tasks(simulate, TASKS, key=key, options=OPTIONS, name="other", resume=path, workers=1)
    assert path.read_text() == before


def test_a_file_that_is_not_a_resume_file_is_refused_naming_its_line(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_text('{"configuration": {}, "rows": []}\n')
    with pytest.raises(WorkloadFormatError, match=r"runs.jsonl:1: not a resume file"):
        _run(workers=1, resume=path)
    path.write_text('{"schedlib runs": "test", "options": {}}\nnot json\n{}\n')
    with pytest.raises(WorkloadFormatError, match=r"runs.jsonl:2: not a JSON line"):
        read_resume_file(path)


INTERRUPT_AT: set[tuple[int, int]] = set()


def interrupted(task: tuple[int, int]) -> dict[str, object]:
    """`simulate`, with Ctrl-C arriving during the tasks of `INTERRUPT_AT`."""
    if task in INTERRUPT_AT:
        raise KeyboardInterrupt
    return simulate(task)


def test_ctrl_c_with_a_resume_file_says_how_many_runs_it_keeps(tmp_path: Path) -> None:
    """Ctrl-C ends the grid with a `KeyboardInterrupt` that counts the runs in the file
    (the command prints it: 'interrupted: 3 of 8 runs are in FILE; ...'); without a file it
    is the plain one."""
    from schedlib.execution import GridInterrupted

    path = tmp_path / "runs.jsonl"
    INTERRUPT_AT.add((4, 0))
    try:
        with pytest.raises(GridInterrupted) as caught:
            run_tasks(interrupted, TASKS, key=key, options=OPTIONS, name="t", workers=1,
                      resume=path)  # fmt: skip
        kept = len(read_resume_file(path).results)
        assert str(caught.value) == (
            f"{kept} of 8 runs are in {path}; run the same command again to continue"
        )
        assert kept == 4  # (3, 0), (3, 1), (1, 0), (1, 1) ran before (4, 0)
        with pytest.raises(KeyboardInterrupt) as plain:
            run_tasks(interrupted, TASKS, key=key, options=OPTIONS, name="t", workers=1)
        assert type(plain.value) is KeyboardInterrupt
    finally:
        INTERRUPT_AT.clear()


def test_runs_of_another_grid_in_the_file_are_named_and_not_used(tmp_path: Path) -> None:
    """A resume file with the same options may hold runs this grid does not have (its
    traces read from elsewhere in another sitting): a warning counts them and names how the
    first differs from the nearest run; the grid's results are not changed by them."""
    import json as json_

    grid = [{"data": "real trace", "n": n} for n in (1, 2, 3)]

    def fields_key(task: dict[str, object]) -> str:
        return json_.dumps(task, sort_keys=True)

    path = tmp_path / "runs.jsonl"
    other = [{**t, "data": "embedded slice"} for t in grid[:2]]
    run_tasks(dict, other, key=fields_key, options=OPTIONS, name="t", workers=1, resume=path)
    with pytest.warns(UserWarning) as caught:
        results = run_tasks(dict, grid, key=fields_key, options=OPTIONS, name="t", workers=1,
                            resume=path)  # fmt: skip
    assert results == grid
    (message,) = [str(w.message) for w in caught]
    assert message.startswith(f"--resume {path}: 2 of its 2 runs are not runs of this grid")
    assert message.endswith("in data: 'embedded slice' there, 'real trace' here)")
    own = tmp_path / "own.jsonl"
    run_tasks(dict, grid, key=fields_key, options=OPTIONS, name="t", workers=1, resume=own)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the grid's own runs only: no warning
        again = run_tasks(dict, grid, key=fields_key, options=OPTIONS, name="t", workers=1,
                          resume=own)  # fmt: skip
    assert again == grid
