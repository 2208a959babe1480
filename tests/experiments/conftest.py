"""One `--quick` run per reproduction for the whole session.

The quick runs are the slowest thing the suite does; the page test and the
`reproduce all --quick` test both need them. The `shared_quick_runs` fixture makes
[`run_reproduction`][schedlib.experiments.every_paper.run_reproduction] remember its
quick outcomes for the session (keyed by reproduction, seed and traces, not by the
number of workers, which never changes a result: see tests/experiments/test_*'s
worker tests), so each paper's quick run happens once. Outcomes are frozen, so
sharing them is safe.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from schedlib.execution import RunFailedError
from schedlib.execution.tasks import read_resume_file
from schedlib.experiments import every_paper
from schedlib.experiments.running import Execution

_run = every_paper.run_reproduction
_outcomes: dict[tuple[Any, ...], every_paper.Outcome] = {}


def _remembered(
    name: str,
    *,
    quick: bool = False,
    seed: int = 0,
    workers: int | None = None,
    traces: str | None = None,
) -> every_paper.Outcome:
    if not quick:
        return _run(name, quick=quick, seed=seed, workers=workers, traces=traces)
    key = (name, seed, traces)
    if key not in _outcomes:
        _outcomes[key] = _run(name, quick=True, seed=seed, workers=workers, traces=traces)
    return _outcomes[key]


@pytest.fixture(scope="session")
def shared_quick_runs() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(every_paper, "run_reproduction", _remembered)
        yield


# --- a reproduction's grid: the same rows on any executor and resumed ----------------------

Rows = list[dict[str, Any]]


def same_rows(a: Rows, b: Rows) -> bool:
    """Equal rows, NaN equal to NaN."""

    def same(x: Any, y: Any) -> bool:
        if isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y):
            return True
        return bool(x == y)

    return len(a) == len(b) and all(
        r.keys() == s.keys() and all(same(r[k], s[k]) for k in r) for r, s in zip(a, b, strict=True)
    )


def _rows_the_same_everywhere(
    reproduce: Callable[[Any, Execution], Rows],
    settings: Any,
    *,
    module: Any,
    function: str,
    fails: Callable[[Any], bool],
    then_fails: Callable[[Any], bool],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Rows with `workers=1`, `workers=2`, a dask LocalCluster of 2 workers, and resumed from
    a file after two interrupted sittings (the first raises for the tasks `fails` picks, the
    second for those `then_fails` picks) are the same rows."""
    options = {"settings": repr(settings)}
    alone = reproduce(settings, Execution(workers=1, options=options, name="test"))
    assert same_rows(reproduce(settings, Execution(workers=2, options=options)), alone)

    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        on_dask = Execution(executor=client.get_executor(), options=options, name="test")
        assert same_rows(reproduce(settings, on_dask), alone)

    path = tmp_path / "runs.jsonl"
    run = getattr(module, function)
    calls: list[Any] = []

    def interrupted(picked: Callable[[Any], bool]) -> Callable[[Any], Any]:
        def wrapped(task: Any) -> Any:
            calls.append(task)
            if picked(task):
                raise MemoryError("the machine ran out of memory")
            return run(task)

        return wrapped

    resumed = Execution(workers=1, resume=str(path), options=options, name="test")
    monkeypatch.setattr(module, function, interrupted(fails))
    with pytest.raises(RunFailedError):
        reproduce(settings, resumed)
    first = len(read_resume_file(path).results)
    monkeypatch.setattr(module, function, interrupted(then_fails))
    with pytest.raises(RunFailedError):
        reproduce(settings, resumed)
    second = len(read_resume_file(path).results)
    assert 0 < first < second
    monkeypatch.setattr(module, function, interrupted(lambda task: False))
    calls.clear()
    assert same_rows(reproduce(settings, resumed), alone)
    total = len(read_resume_file(path).results)
    assert len(calls) == total - second  # only the runs not finished in the two sittings


@pytest.fixture
def rows_the_same_everywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Callable[..., None]:
    """`check(reproduce, settings, module=, function=, fails=, then_fails=)`: the rows of a
    reproduction whose grid runs through `run_grid` are the same on one process, on two, on a
    dask LocalCluster of 2 workers, and resumed from a file after two interrupted sittings
    (the first raises for the tasks `fails` picks, the second for those `then_fails` picks)."""

    def check(reproduce: Callable[[Any, Execution], Rows], settings: Any, **kwargs: Any) -> None:
        _rows_the_same_everywhere(
            reproduce, settings, tmp_path=tmp_path, monkeypatch=monkeypatch, **kwargs
        )

    return check
