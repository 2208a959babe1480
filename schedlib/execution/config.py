"""Sweep configuration files (TOML): which experiment, the grid, the seeds, the output.

```toml
experiment = "reproduce pgs"   # or "run", or any "reproduce NAME"
seeds = [0, 1, 2]              # default [0]
output = "pgs-sweep.jsonl"     # optional: where results are appended as they complete

[fixed]                        # options every run shares
runs = 2

[grid]                         # options swept: the cartesian product is run
queue_length = [1, 2, 3]
order = ["increasing", "shuffled"]
```

Examples
--------
>>> config = parse_sweep_config('experiment = "run"\\n[grid]\\npolicy = ["fcfs", "easy"]\\n')
>>> config.experiment, config.grid, config.seeds
('run', {'policy': ['fcfs', 'easy']}, (0,))
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from schedlib.errors import InvalidValueError, WorkloadFormatError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["SweepConfig", "parse_sweep_config", "read_sweep_config"]

_KEYS = {"experiment", "seeds", "output", "fixed", "grid"}


@attrs.frozen
class SweepConfig:
    """A sweep as a configuration file describes it.

    Attributes
    ----------
    experiment
        `"run"` or `"reproduce NAME"`.
    grid
        Option name -> values to sweep.
    fixed
        Options every run shares.
    seeds
        Seeds to run every grid point with.
    output
        The JSON-lines output file, if the configuration names one.
    """

    experiment: str
    grid: dict[str, list[Any]]
    fixed: dict[str, Any] = attrs.Factory(dict)
    seeds: tuple[int, ...] = (0,)
    output: str | None = None


def parse_sweep_config(text: str, *, source: str = "<string>") -> SweepConfig:
    """Read a sweep configuration from TOML text.

    Raises
    ------
    WorkloadFormatError
        If the text is not TOML (naming the line), or a key is unknown or of
        the wrong type (naming the key and value).
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        line = getattr(error, "lineno", None)
        raise WorkloadFormatError(source, line, f"not TOML: {error}") from None
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise WorkloadFormatError(
            source, None, f"unknown key(s) {unknown}: expected {sorted(_KEYS)}", field=unknown[0]
        )
    experiment = data.get("experiment")
    if not isinstance(experiment, str):
        raise WorkloadFormatError(source, None, f"experiment = {experiment!r}: must be a string")
    grid = data.get("grid", {})
    fixed = data.get("fixed", {})
    for name, table in (("grid", grid), ("fixed", fixed)):
        if not isinstance(table, Mapping):
            raise WorkloadFormatError(source, None, f"[{name}] must be a table, got {table!r}")
    for key, values in grid.items():
        if not isinstance(values, list) or not values:
            raise WorkloadFormatError(
                source, None, f"grid.{key} = {values!r}: must be a non-empty list"
            )
    seeds = data.get("seeds", [0])
    if not (isinstance(seeds, list) and seeds and all(isinstance(s, int) for s in seeds)):
        raise WorkloadFormatError(source, None, f"seeds = {seeds!r}: must be a list of integers")
    output = data.get("output")
    if output is not None and not isinstance(output, str):
        raise WorkloadFormatError(source, None, f"output = {output!r}: must be a file name")
    return SweepConfig(experiment, dict(grid), dict(fixed), tuple(seeds), output)


def read_sweep_config(path: str | os.PathLike[str]) -> SweepConfig:
    """Read a sweep configuration file (see [`parse_sweep_config`][schedlib.execution.config.parse_sweep_config]).

    Raises
    ------
    WorkloadFormatError
        As `parse_sweep_config`, naming the file.
    OSError
        If the file cannot be read.
    """  # noqa: E501
    if not Path(path).is_file():
        raise InvalidValueError("CONFIG", str(path), "no such file")
    return parse_sweep_config(Path(path).read_text(), source=str(path))
