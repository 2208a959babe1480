"""Render result rows as an aligned text table, JSON or CSV.

Every command that prints results (`schedlib compare`, `schedlib reproduce ...`)
builds a list of flat dicts and renders it here, so that the three formats
agree column for column.

Examples
--------
>>> rows = [{"policy": "fcfs", "mean_wait": 1234.5678}, {"policy": "easy", "mean_wait": 12.0}]
>>> print(render(rows, "table"))
policy  mean_wait
------  ---------
fcfs       1234.6
easy        12.00
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


def format_cell(value: Any) -> str:
    """Format one value for the text table.

    Floats get a precision that depends on their magnitude; NaN and `None`
    print as `-`.

    Examples
    --------
    >>> [format_cell(v) for v in (3, 0.81234, 4.5, 1234.56, 0.0, None, float("nan"), True)]
    ['3', '0.8123', '4.500', '1234.6', '0', '-', '-', 'yes']
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
        magnitude = abs(value)
        if magnitude == 0:
            return "0"
        if magnitude >= 100:
            return f"{value:.1f}"
        if magnitude >= 10:
            return f"{value:.2f}"
        if magnitude >= 1:
            return f"{value:.3f}"
        return f"{value:.4f}"
    return str(value)


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


def render(rows: Sequence[Mapping[str, Any]], fmt: str = "table") -> str:
    """Render `rows` (dicts sharing their keys) in `fmt`.

    Parameters
    ----------
    rows
        The records; the columns are the keys of the first row, in order
        (keys only later rows have are appended).
    fmt
        `"table"` (aligned text; numbers right-aligned), `"json"` (a list of
        objects) or `"csv"` (a header line and one line per row).

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
    cells = [[format_cell(row.get(k)) for k in columns] for row in rows]
    numeric = [
        all(isinstance(row.get(k), (int, float)) or row.get(k) is None for row in rows)
        for k in columns
    ]
    widths = [max([len(c)] + [len(line[i]) for line in cells]) for i, c in enumerate(columns)]

    def line(values: Sequence[str], header: bool = False) -> str:
        parts = [
            v.rjust(w) if num and not (header and v.startswith("-")) else v.ljust(w)
            for v, w, num in zip(values, widths, numeric, strict=True)
        ]
        return "  ".join(parts).rstrip()

    out = [line(columns, header=True), line(["-" * w for w in widths], header=True)]
    out.extend(line(c) for c in cells)
    return "\n".join(out)


def _csv_cell(value: Any) -> Any:
    value = jsonable(value)
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    return "" if value is None else value


def render_by(rows: Sequence[Mapping[str, Any]], key: str) -> str:
    """Render rows as a text table with one *column* per row, named by `key`.

    Columns whose value is the same in every row are printed first as
    `name: value` lines; every other column becomes a line of the table. This
    suits a few rows with many metrics (e.g. one row per policy).

    Parameters
    ----------
    rows
        The records; each must have `key`.
    key
        The column whose values name the table's columns.

    Returns
    -------
    str
        The rendering, without a trailing newline.

    Examples
    --------
    >>> rows = [{"machine": "m", "policy": "fcfs", "wait": 10.0},
    ...         {"machine": "m", "policy": "easy", "wait": 2.5}]
    >>> print(render_by(rows, "policy"))
    machine: m
    <BLANKLINE>
    metric   fcfs   easy
    ------  -----  -----
    wait    10.00  2.500
    """
    columns: list[str] = []
    for row in rows:
        columns.extend(k for k in row if k not in columns)
    constant = [
        c for c in columns if c != key and len({repr(r.get(c)) for r in rows}) == 1 and rows
    ]
    header = [f"{c}: {format_cell(rows[0].get(c))}" for c in constant]
    lines = [
        {"metric": c, **{str(r[key]): r.get(c) for r in rows}}
        for c in columns
        if c != key and c not in constant
    ]
    table = render(lines, "table")
    return "\n".join([*header, "", table]) if header else table
