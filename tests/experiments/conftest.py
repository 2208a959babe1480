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

from collections.abc import Iterator
from typing import Any

import pytest

from schedlib.experiments import every_paper

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
