"""Render result rows as an aligned text table, JSON or CSV.

Every command that prints results (`schedlib compare`, `schedlib reproduce ...`)
builds a list of flat dicts and renders it here, so that the three formats
agree column for column. In the text table each column has one number format
(chosen from its largest value), and a column may carry its unit in its header;
JSON and CSV keep the bare names and full precision, for scripts.

Examples
--------
>>> rows = [{"policy": "fcfs", "mean_wait": 1234.5678}, {"policy": "easy", "mean_wait": 12.0}]
>>> print(render(rows, "table", units={"mean_wait": "s"}))
policy  mean_wait (s)
------  -------------
fcfs           1234.6
easy             12.0
>>> print(render(rows, "csv"))
policy,mean_wait
fcfs,1234.5678
easy,12.0
>>> render([{"x": float("nan")}], "json")
'[\\n  {\\n    "x": null\\n  }\\n]'
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from schedlib.errors import InvalidValueError

__all__ = ["FORMATS", "format_cell", "jsonable", "render", "render_by"]

FORMATS = ("table", "json", "csv")
"""The output formats every command accepts."""


def format_cell(value: Any, decimals: int | None = None) -> str:
    """Format one value for the text table.

    Parameters
    ----------
    value
        The value.
    decimals
        Digits after the point for a float; by default they depend on its
        magnitude (see [`column_decimals`][schedlib.results.tables.column_decimals]).
        An integral float prints as an integer when `decimals` is 0.

    Examples
    --------
    >>> [format_cell(v) for v in (3, 0.81234, 4.5, 1234.56, 0.0, None, float("nan"), True)]
    ['3', '0.8123', '4.500', '1234.6', '0', '-', '-', 'yes']
    >>> format_cell(2.0, decimals=1), format_cell(5693.0, decimals=0)
    ('2.0', '5693')
    """
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if math.isnan(value):
            return "-"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        if decimals is None:
            if value == 0:
                return "0"
            decimals = column_decimals([value])
        return f"{value:.{decimals}f}"
    return str(value)


def column_decimals(values: Sequence[Any]) -> int:
    """Digits after the point for a column of numbers: one format for the whole column.

    Integers and integral floats get 0; otherwise the largest magnitude
    decides: 1 from 100, 2 from 10, 3 from 1, 4 below.

    Examples
    --------
    >>> column_decimals([5693.0, 0.0, 0]), column_decimals([0.6543, 0.66])
    (0, 4)
    >>> column_decimals([14887.78, 0.0])
    1
    """
    numbers = [
        v
        for v in values
        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
    ]
    if all(float(v).is_integer() for v in numbers):
        return 0
    magnitude = max(abs(v) for v in numbers)
    if magnitude >= 100:
        return 1
    if magnitude >= 10:
        return 2
    if magnitude >= 1:
        return 3
    return 4


def jsonable(value: Any) -> Any:
    """Convert a value for strict JSON: NaN and infinities become `None`.

    Enums become their value, tuples and sets lists, mappings dicts.

    Examples
    --------
    >>> jsonable({"a": (1, float("inf"))})
    {'a': [1, None]}
    """
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in value]
    enum_value = getattr(value, "value", None)
    if enum_value is not None and type(value).__module__ != "builtins":
        return jsonable(enum_value)
    return value


def render(
    rows: Sequence[Mapping[str, Any]],
    fmt: str = "table",
    *,
    units: Mapping[str, str] | None = None,
) -> str:
    """Render `rows` (dicts sharing their keys) in `fmt`.

    Parameters
    ----------
    rows
        The records; the columns are the keys of the first row, in order
        (keys only later rows have are appended).
    fmt
        `"table"` (aligned text; numbers right-aligned, one format per
        column), `"json"` (a list of objects) or `"csv"` (a header line and
        one line per row).
    units
        Units of some columns, shown in the text table's header as
        `name (unit)`; JSON and CSV keep the bare names.

    Returns
    -------
    str
        The rendering, without a trailing newline (print it).

    Raises
    ------
    InvalidValueError
        For an unknown format.
    """
    if fmt not in FORMATS:
        raise InvalidValueError("format", fmt, f"must be one of {', '.join(FORMATS)}")
    if fmt == "json":
        return json.dumps([jsonable(dict(r)) for r in rows], indent=2)
    columns: list[str] = []
    for row in rows:
        columns.extend(k for k in row if k not in columns)
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _csv_cell(row.get(k)) for k in columns})
        return buffer.getvalue().rstrip("\n")
    units = units or {}
    titles = [f"{c} ({units[c]})" if units.get(c) else c for c in columns]
    return _table(titles, [[row.get(k) for row in rows] for k in columns])


def _table(titles: Sequence[str], columns: Sequence[Sequence[Any]]) -> str:
    """An aligned text table from its column titles and its columns of values."""
    rendered: list[list[str]] = []
    numeric: list[bool] = []
    for values in columns:
        is_number = all(
            (isinstance(v, (int, float)) and not isinstance(v, bool)) or v is None for v in values
        )
        numeric.append(is_number)
        if is_number and any(isinstance(v, float) and math.isfinite(v) for v in values):
            decimals = column_decimals(values)
            rendered.append([format_cell(v, decimals) for v in values])
        else:
            rendered.append([format_cell(v) for v in values])
    widths = [
        max([len(t)] + [len(c) for c in cells]) for t, cells in zip(titles, rendered, strict=True)
    ]

    def line(values: Sequence[str], header: bool = False) -> str:
        parts = [
            v.rjust(w) if num and not header else v.ljust(w)
            for v, w, num in zip(values, widths, numeric, strict=True)
        ]
        return "  ".join(parts).rstrip()

    count = len(columns[0]) if columns else 0
    out = [line(titles, header=True), line(["-" * w for w in widths], header=True)]
    out.extend(line([cells[r] for cells in rendered]) for r in range(count))
    return "\n".join(out)


def _csv_cell(value: Any) -> Any:
    value = jsonable(value)
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    return "" if value is None else value


def render_by(
    rows: Sequence[Mapping[str, Any]],
    key: str,
    *,
    context: Sequence[str] = (),
    units: Mapping[str, str] | None = None,
) -> str:
    """Render rows as a text table with one *column* per row, named by `key`.

    The `context` columns (what every row shares: the workload, the machine
    size, ...) are printed first as `name: value` lines when they are the
    same in every row; every other column becomes a line of the table, with
    its unit and one number format per line. The table always has a column
    per row, even when every value ties. This suits a few rows with many
    metrics (e.g. one row per policy).

    Parameters
    ----------
    rows
        The records; each must have `key`.
    key
        The column whose values name the table's columns.
    context
        Columns shown above the table when all rows agree on them.
    units
        Units of some metrics, shown in a `unit` column.

    Returns
    -------
    str
        The rendering, without a trailing newline.

    Examples
    --------
    >>> rows = [{"machine": "m", "policy": "fcfs", "wait": 10.0, "jobs": 2},
    ...         {"machine": "m", "policy": "easy", "wait": 2.5, "jobs": 2}]
    >>> print(render_by(rows, "policy", context=["machine"], units={"wait": "s"}))
    machine: m
    <BLANKLINE>
    metric  unit   fcfs  easy
    ------  ----  -----  ----
    wait    s     10.00  2.50
    jobs              2     2
    """
    columns: list[str] = []
    for row in rows:
        columns.extend(k for k in row if k not in columns)
    shown = [
        c for c in context if c in columns and len({repr(r.get(c)) for r in rows}) == 1 and rows
    ]
    header = [f"{c}: {format_cell(rows[0].get(c))}" for c in shown]
    metrics = [c for c in columns if c != key and c not in shown]
    units = units or {}
    names = [str(r.get(key)) for r in rows]
    with_units = any(units.get(m) for m in metrics)
    titles = ["metric", *(["unit"] if with_units else []), *names]
    lines = []
    for metric in metrics:
        values = [r.get(metric) for r in rows]
        is_number = all(
            (isinstance(v, (int, float)) and not isinstance(v, bool)) or v is None for v in values
        )
        if is_number and any(isinstance(v, float) and math.isfinite(v) for v in values):
            decimals = column_decimals(values)
            cells = [format_cell(v, decimals) for v in values]
        else:
            cells = [format_cell(v) for v in values]
        lines.append([metric, *([units.get(metric, "")] if with_units else []), *cells])
    widths = [max([len(t)] + [len(line[i]) for line in lines]) for i, t in enumerate(titles)]
    first = 2 if with_units else 1

    def line(values: Sequence[str]) -> str:
        parts = [
            v.ljust(w) if i < first else v.rjust(w)
            for i, (v, w) in enumerate(zip(values, widths, strict=True))
        ]
        return "  ".join(parts).rstrip()

    table = [line(titles), line(["-" * w for w in widths])]
    table.extend(line(values) for values in lines)
    if not lines:
        table.append("(no metrics)")
    return "\n".join([*header, "", *table]) if header else "\n".join(table)
