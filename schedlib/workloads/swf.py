"""Read and write the Standard Workload Format (SWF): the parsing layer.

An SWF file (Parallel Workloads Archive, Feitelson et al.; format version 2.2)
is a text file, optionally gzip-compressed: header comments starting with `;`
(`; MaxProcs: 128`), then one job record per line of 18 whitespace-separated
numbers, `-1` meaning *unknown*. This module turns such a file into
[`SWFRecord`][schedlib.workloads.swf.SWFRecord] values and an
[`SWFHeader`][schedlib.workloads.swf.SWFHeader] and back, checking that the
file *is* SWF. It does not decide how a record becomes a simulated job: that
is the cleaning layer's business ([`schedlib.workloads.cleaning`][schedlib.workloads.cleaning]).

**Errors.** In the default strict mode, a line that is not SWF raises
[`WorkloadFormatError`][schedlib.errors.WorkloadFormatError] naming the file,
the line, the field (number and name) and the value: a wrong number of fields,
a token that is not a number, a negative value other than `-1`, a fractional
value in an integer field, a duplicate job number, a job asking for more
processors than the header's `MaxProcs`, corrupt or truncated gzip data. With
`strict=False` such lines are skipped instead, and the
[`ParseReport`][schedlib.workloads.swf.ParseReport] lists every one with the
reason.

**Warnings** are oddities of real logs that are still SWF: a non-standard
status code (Sandia-Ross has `-4` and `-2`, and exit codes such as `265`), an
unknown submit time, submit times that step back, a header value that is not a
number, a comment after the first record, a file name whose `.gz` suffix
disagrees with the content. They are counted in the report, never printed.

Compression is detected from the content (the gzip magic bytes `1f 8b`), not
from the file name.

Examples
--------
>>> import io
>>> text = '''; Version: 2.2
... ; MaxProcs: 8
... 1 0 5 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1
... 2 30 0 50 2 -1 -1 2 60 -1 1 2 1 -1 1 -1 -1 -1
... '''
>>> trace = read_swf(io.StringIO(text))
>>> trace.header.max_procs
8
>>> [(r.job_id, r.submit, r.runtime, r.requested_procs) for r in trace.records]
[(1, 0, 100, 4), (2, 30, 50, 2)]
>>> read_swf(io.StringIO("1 0 5 x 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\\n"))
Traceback (most recent call last):
...
schedlib.errors.WorkloadFormatError: <stream>:1: field 4 (runtime) = 'x': not a number
"""

from __future__ import annotations

import gzip
import io
import math
import operator
import os
import re
import zlib
from collections.abc import Container, Iterable, Iterator, Mapping, Sequence
from heapq import heappop, heappush
from itertools import chain, compress, islice, repeat
from operator import ne, sub
from pathlib import Path
from typing import IO, Any, BinaryIO, NamedTuple, TextIO

import attrs

from schedlib.errors import InvalidValueError, WorkloadFormatError

__all__ = [
    "FIELDS",
    "STANDARD_STATUSES",
    "WARNING_DETAIL_LIMIT",
    "ParseIssue",
    "ParseReport",
    "SWFField",
    "SWFHeader",
    "SWFReader",
    "SWFRecord",
    "SWFTrace",
    "format_record",
    "iter_swf",
    "open_swf",
    "read_swf",
    "write_swf",
]


# --------------------------------------------------------------------------- fields


@attrs.frozen(slots=True)
class SWFField:
    """Description of one of the 18 SWF fields.

    Attributes
    ----------
    number
        1-based position in the line.
    name
        Attribute name on [`SWFRecord`][schedlib.workloads.swf.SWFRecord].
    title
        The field's name in the SWF definition.
    fractional
        Whether the value may be fractional (fields 6 and 7 are averages);
        every other field holds a whole number.
    """

    number: int
    name: str
    title: str
    fractional: bool = False


FIELDS: tuple[SWFField, ...] = (
    SWFField(1, "job_id", "Job Number"),
    SWFField(2, "submit", "Submit Time"),
    SWFField(3, "wait", "Wait Time"),
    SWFField(4, "runtime", "Run Time"),
    SWFField(5, "allocated_procs", "Number of Allocated Processors"),
    SWFField(6, "avg_cpu_time", "Average CPU Time Used", fractional=True),
    SWFField(7, "used_memory", "Used Memory", fractional=True),
    SWFField(8, "requested_procs", "Requested Number of Processors"),
    SWFField(9, "requested_time", "Requested Time"),
    SWFField(10, "requested_memory", "Requested Memory"),
    SWFField(11, "status", "Status"),
    SWFField(12, "user", "User ID"),
    SWFField(13, "group", "Group ID"),
    SWFField(14, "executable", "Executable (Application) Number"),
    SWFField(15, "queue", "Queue Number"),
    SWFField(16, "partition", "Partition Number"),
    SWFField(17, "preceding_job", "Preceding Job Number"),
    SWFField(18, "think_time", "Think Time from Preceding Job"),
)
"""The 18 fields of an SWF job line, in order."""

STANDARD_STATUSES: frozenset[int] = frozenset({-1, 0, 1, 2, 3, 4, 5})
"""Status codes SWF defines: -1 unknown, 0 failed, 1 completed, 2-4 partial
executions (checkpoint/swap records), 5 cancelled. Others only draw a warning."""

WARNING_DETAIL_LIMIT = 1000
"""How many warnings of each kind a report keeps in detail (all are counted)."""

_N_FIELDS = len(FIELDS)
_STATUS = 10  # index of the status field
_PROCS = (4, 7)  # indices of allocated and requested processors


class SWFRecord(NamedTuple):
    """One job line of an SWF file: the 18 fields, plus where it was read.

    Attributes
    ----------
    job_id
        Field 1, the job number (`>= 0`, unique in a file).
    submit
        Field 2, submit time in seconds from the start of the log.
    wait
        Field 3, wait time in seconds.
    runtime
        Field 4, run time in seconds (wall clock).
    allocated_procs
        Field 5, processors the job held.
    avg_cpu_time
        Field 6, average CPU time used per processor, seconds (may be fractional).
    used_memory
        Field 7, average used memory per processor, kilobytes (may be fractional).
    requested_procs
        Field 8, processors requested.
    requested_time
        Field 9, the user's runtime estimate (or limit), seconds.
    requested_memory
        Field 10, memory requested per processor, kilobytes.
    status
        Field 11: 0 failed, 1 completed, 5 cancelled, 2-4 partial executions.
    user, group
        Fields 12-13, user and group ids.
    executable
        Field 14, application number.
    queue, partition
        Fields 15-16, queue and partition numbers (see the header).
    preceding_job
        Field 17, the job this one depends on.
    think_time
        Field 18, seconds between the preceding job's end and this submit.
    line
        1-based line number in the file it was read from (0 if built in
        code). Not part of equality: two records are equal when their 18
        fields are.

    Notes
    -----
    Every field may be `-1`, meaning *unknown* (except `job_id`). Integer
    fields are `int`; `avg_cpu_time` and `used_memory` are `int` or `float`
    as written in the file.

    A record is an immutable named tuple (building one costs a fraction of a
    microsecond, which matters for logs of 300,000 jobs): fields by name or
    position, `_replace` to change one. Equality and hashing use the 18
    fields only, and a record equals only another record.

    Examples
    --------
    >>> r = SWFRecord(*([7, 0, 0, 60, 4, -1, -1, 4, 120, -1, 1] + [-1] * 7), line=3)
    >>> (r.job_id, r.requested_time, r.line)
    (7, 120, 3)
    >>> r == r._replace(line=99)
    True
    >>> r.values()[:5]
    (7, 0, 0, 60, 4)
    """

    job_id: int
    submit: int
    wait: int
    runtime: int
    allocated_procs: int
    avg_cpu_time: float
    used_memory: float
    requested_procs: int
    requested_time: int
    requested_memory: int
    status: int
    user: int
    group: int
    executable: int
    queue: int
    partition: int
    preceding_job: int
    think_time: int
    line: int = 0

    @classmethod
    def from_values(cls, values: Iterable[Any], line: int = 0) -> SWFRecord:
        """A record from its 18 field values in file order (no checks).

        Examples
        --------
        >>> SWFRecord.from_values([3, 0, 0, 60, 4, -1, -1, 4, 120, -1, 1] + [-1] * 7).job_id
        3
        """
        items = tuple(values)
        if len(items) != _N_FIELDS:
            raise InvalidValueError("SWFRecord values", items, f"expected {_N_FIELDS} values")
        return cls._make((*items, line))

    def values(self) -> tuple[Any, ...]:
        """The 18 field values, in file order."""
        return self[:_N_FIELDS]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SWFRecord) and self[:_N_FIELDS] == other[:_N_FIELDS]

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self[:_N_FIELDS])


# --------------------------------------------------------------------------- issues


@attrs.frozen(slots=True)
class ParseIssue:
    """One problem found while reading: a skipped line or a warning.

    Attributes
    ----------
    line
        1-based line number, or `None` for the whole file.
    kind
        A short category: errors are `field_count`, `not_a_number`,
        `not_an_integer`, `negative`, `duplicate_id`, `exceeds_max_procs`;
        warnings are `status`, `unknown_submit`, `submit_order`, `header`,
        `late_comment`, `compression`.
    message
        What is wrong, naming field and value when one is at fault.
    field
        1-based field number, or `None`.
    value
        The offending token, or `None`.
    """

    line: int | None
    kind: str
    message: str
    field: int | None = None
    value: str | None = None

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line is not None else self.message


def _pairs(value: Mapping[str, int] | Iterable[tuple[str, int]]) -> tuple[tuple[str, int], ...]:
    items = value.items() if isinstance(value, Mapping) else value
    return tuple(sorted(items))


def _issue_tuple(value: Iterable[ParseIssue]) -> tuple[ParseIssue, ...]:
    return tuple(value)


@attrs.frozen(slots=True)
class ParseReport:
    """What a read found: counts, every skipped line, the warnings.

    Attributes
    ----------
    source
        The file read (or `"<stream>"`).
    records
        Number of records returned.
    lines
        Number of lines read (header, records, skipped and blank lines).
    skipped
        Every line skipped in lenient mode, with the reason (empty in strict
        mode, which raises instead).
    warnings
        Warnings in detail: the first
        [`WARNING_DETAIL_LIMIT`][schedlib.workloads.swf.WARNING_DETAIL_LIMIT]
        of each kind.
    warning_counts
        Sorted `(kind, count)` pairs counting every warning.

    Examples
    --------
    >>> report = ParseReport("x.swf", 2, 3, (), (), {"status": 1})
    >>> report.warning_count("status"), report.warning_count()
    (1, 1)
    """

    source: str
    records: int
    lines: int
    skipped: tuple[ParseIssue, ...] = attrs.field(converter=_issue_tuple)
    warnings: tuple[ParseIssue, ...] = attrs.field(converter=_issue_tuple)
    warning_counts: tuple[tuple[str, int], ...] = attrs.field(default=(), converter=_pairs)

    def warning_count(self, kind: str | None = None) -> int:
        """Number of warnings of `kind` (all kinds when `None`)."""
        return sum(n for k, n in self.warning_counts if kind is None or k == kind)


class _Issues:
    """Mutable collector behind a reader; frozen into a ParseReport on demand."""

    __slots__ = ("counts", "skipped", "warnings")

    def __init__(self) -> None:
        self.skipped: list[ParseIssue] = []
        self.warnings: list[ParseIssue] = []
        self.counts: dict[str, int] = {}

    def warn(self, issue: ParseIssue) -> None:
        count = self.counts.get(issue.kind, 0) + 1
        self.counts[issue.kind] = count
        if count <= WARNING_DETAIL_LIMIT:
            self.warnings.append(issue)


# --------------------------------------------------------------------------- header

_KEY = re.compile(r"[ ]{0,2}([A-Za-z][A-Za-z0-9_]*)[ \t]*:(.*)\Z", re.DOTALL)
_LEADING_INT = re.compile(r"\s*(-?[0-9]+)")
_NUMBERED = re.compile(r"\s*(-?[0-9]+)\s*(.*)\Z", re.DOTALL)

_INT_KEYS = {
    "MaxJobs": "max_jobs",
    "MaxRecords": "max_records",
    "UnixStartTime": "unix_start_time",
    "TimeZone": "time_zone",
    "MaxNodes": "max_nodes",
    "MaxProcs": "max_procs",
    "MaxRuntime": "max_runtime",
    "MaxMemory": "max_memory",
    "MaxQueues": "max_queues",
    "MaxPartitions": "max_partitions",
}
_POSITIVE_KEYS = frozenset({"max_nodes", "max_procs"})
_TEXT_KEYS = {
    "Version": "version",
    "Computer": "computer",
    "Installation": "installation",
    "Acknowledge": "acknowledge",
    "Conversion": "conversion",
    "Preemption": "preemption",
    "TimeZoneString": "time_zone_string",
    "StartTime": "start_time",
    "EndTime": "end_time",
    "AllowOveruse": "allow_overuse",
    "Queues": "queues_description",
    "Partitions": "partitions_description",
}
_LIST_KEYS = {"Information": "information", "Note": "notes"}
_NUMBERED_KEYS = {"Queue": "queues", "Partition": "partitions"}


def _split_header(numbered: Iterable[tuple[int, str]]) -> list[tuple[str, str, int]]:
    """Keyed entries `(key, value, line)` of a header; continuation lines
    (indented more than two spaces, or by a tab) are joined to the value with
    newlines, and an empty comment ends a value."""
    entries: list[list[Any]] = []
    current: list[Any] | None = None
    for number, raw in numbered:
        text = raw.lstrip()[1:].rstrip()  # drop the ';'
        if not text.strip():
            current = None
            continue
        match = _KEY.match(text)
        if match:
            current = [match.group(1), match.group(2).strip(), number]
            entries.append(current)
        elif current is not None:
            current[1] = f"{current[1]}\n{text.strip()}"
    return [(k, v, n) for k, v, n in entries]


def _parse_header(numbered: Sequence[tuple[int, str]]) -> tuple[dict[str, Any], list[ParseIssue]]:
    """Interpret header comment lines: the attribute values and the warnings."""
    entries = _split_header(numbered)
    issues: list[ParseIssue] = []
    values: dict[str, Any] = {name: None for name in (*_INT_KEYS.values(), *_TEXT_KEYS.values())}
    lists: dict[str, list[Any]] = {
        name: [] for name in (*_LIST_KEYS.values(), *_NUMBERED_KEYS.values())
    }
    seen: dict[str, str] = {}
    for key, value, line in entries:
        if key in _INT_KEYS or key in _TEXT_KEYS:
            if key in seen and seen[key] != value:
                issues.append(
                    ParseIssue(
                        line,
                        "header",
                        f"header key {key} given again ({seen[key]!r}, now {value!r}); "
                        "the later value is used",
                        value=value,
                    )
                )
            seen[key] = value
        if key in _INT_KEYS:
            name = _INT_KEYS[key]
            match = _LEADING_INT.match(value)
            number = int(match.group(1)) if match else None
            if number is None or (name in _POSITIVE_KEYS and number < 1):
                issues.append(
                    ParseIssue(
                        line,
                        "header",
                        f"header {key} = {value!r}: not "
                        f"{'a positive' if name in _POSITIVE_KEYS else 'an'} integer; ignored",
                        value=value,
                    )
                )
                number = None
            values[name] = number
        elif key in _TEXT_KEYS:
            values[_TEXT_KEYS[key]] = value
        elif key in _LIST_KEYS:
            lists[_LIST_KEYS[key]].append(value)
        elif key in _NUMBERED_KEYS:
            match = _NUMBERED.match(value)
            if match is None:
                issues.append(
                    ParseIssue(
                        line,
                        "header",
                        f"header {key} = {value!r}: expected a number then a name; ignored",
                        value=value,
                    )
                )
            else:
                lists[_NUMBERED_KEYS[key]].append((int(match.group(1)), match.group(2).strip()))
    values.update({name: tuple(items) for name, items in lists.items()})
    values["entries"] = tuple((key, value) for key, value, _ in entries)
    return values, issues


def _check_comments(instance: Any, attribute: Any, value: tuple[str, ...]) -> None:
    for line in value:
        if (
            not isinstance(line, str)
            or not line.lstrip().startswith(";")
            or "\n" in line
            or "\r" in line
        ):
            raise InvalidValueError(
                "SWFHeader.comments",
                line,
                "each comment line must start with ';' and hold no line end",
            )


def _str_tuple(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


@attrs.frozen(slots=True, repr=False)
class SWFHeader:
    """The header of an SWF file: its comment lines, and what they say.

    Build one from the raw comment lines (`SWFHeader(comments)`), or from
    key/value pairs with [`from_items`][schedlib.workloads.swf.SWFHeader.from_items].
    Every other attribute is derived from `comments`, so a header written and
    read back is equal to the original.

    Attributes
    ----------
    comments
        The raw header lines, each starting with `;`, without line ends.
    entries
        Every `Key: value` line as `(key, value)` pairs in file order;
        indented continuation lines are joined to the value with newlines.
    version, computer, installation, acknowledge, conversion, preemption
        The text of `Version`, `Computer`, ... (`None` when absent).
    time_zone_string, start_time, end_time, allow_overuse
        The text of `TimeZoneString`, `StartTime`, `EndTime`, `AllowOveruse`.
    queues_description, partitions_description
        Free text of `Queues:` and `Partitions:` lines.
    max_nodes, max_procs
        The integers of `MaxNodes` and `MaxProcs`, `>= 1` or `None`.
    max_jobs, max_records, unix_start_time, time_zone
        The integers of `MaxJobs`, `MaxRecords`, `UnixStartTime`, `TimeZone`.
    max_runtime, max_memory, max_queues, max_partitions
        The integers of `MaxRuntime`, `MaxMemory`, `MaxQueues`,
        `MaxPartitions`. Every integer is read
        from the start of the value (`MaxNodes: 338 (batch partition; 512
        total)` gives 338); `None` when absent or not a number (a warning).
    queues, partitions
        `(number, name)` pairs of the `Queue:` and `Partition:` lines.
    information, notes
        Texts of every `Information:` and `Note:` line, in order.

    Notes
    -----
    When a key holding one value appears twice (Sandia-Ross has `MaxQueues`
    twice), the later value wins and the reader warns. Unknown keys are kept
    in `entries`.

    Examples
    --------
    >>> h = SWFHeader.from_items({"Version": "2.2", "MaxNodes": "338 (batch; 512 total)",
    ...                           "MaxProcs": 338, "Queue": "1 DSI"})
    >>> h.comments[1]
    '; MaxNodes: 338 (batch; 512 total)'
    >>> (h.version, h.max_nodes, h.max_procs, h.queues)
    ('2.2', 338, 338, ((1, 'DSI'),))
    >>> SWFHeader(h.comments) == h
    True
    """

    comments: tuple[str, ...] = attrs.field(
        default=(), converter=_str_tuple, validator=_check_comments
    )
    entries: tuple[tuple[str, str], ...] = attrs.field(init=False, repr=False, eq=False)
    version: str | None = attrs.field(init=False, repr=False, eq=False)
    computer: str | None = attrs.field(init=False, repr=False, eq=False)
    installation: str | None = attrs.field(init=False, repr=False, eq=False)
    acknowledge: str | None = attrs.field(init=False, repr=False, eq=False)
    conversion: str | None = attrs.field(init=False, repr=False, eq=False)
    preemption: str | None = attrs.field(init=False, repr=False, eq=False)
    time_zone_string: str | None = attrs.field(init=False, repr=False, eq=False)
    start_time: str | None = attrs.field(init=False, repr=False, eq=False)
    end_time: str | None = attrs.field(init=False, repr=False, eq=False)
    allow_overuse: str | None = attrs.field(init=False, repr=False, eq=False)
    queues_description: str | None = attrs.field(init=False, repr=False, eq=False)
    partitions_description: str | None = attrs.field(init=False, repr=False, eq=False)
    max_jobs: int | None = attrs.field(init=False, repr=False, eq=False)
    max_records: int | None = attrs.field(init=False, repr=False, eq=False)
    unix_start_time: int | None = attrs.field(init=False, repr=False, eq=False)
    time_zone: int | None = attrs.field(init=False, repr=False, eq=False)
    max_nodes: int | None = attrs.field(init=False, repr=False, eq=False)
    max_procs: int | None = attrs.field(init=False, repr=False, eq=False)
    max_runtime: int | None = attrs.field(init=False, repr=False, eq=False)
    max_memory: int | None = attrs.field(init=False, repr=False, eq=False)
    max_queues: int | None = attrs.field(init=False, repr=False, eq=False)
    max_partitions: int | None = attrs.field(init=False, repr=False, eq=False)
    queues: tuple[tuple[int, str], ...] = attrs.field(init=False, repr=False, eq=False)
    partitions: tuple[tuple[int, str], ...] = attrs.field(init=False, repr=False, eq=False)
    information: tuple[str, ...] = attrs.field(init=False, repr=False, eq=False)
    notes: tuple[str, ...] = attrs.field(init=False, repr=False, eq=False)

    def __attrs_post_init__(self) -> None:
        values, _ = _parse_header(list(enumerate(self.comments, start=1)))
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{name}={getattr(self, name)!r}"
            for name in ("version", "max_nodes", "max_procs", "unix_start_time")
            if getattr(self, name) is not None
        )
        return f"SWFHeader(<{len(self.comments)} comment lines>{', ' if shown else ''}{shown})"

    @classmethod
    def from_items(cls, items: Mapping[str, Any] | Iterable[tuple[str, Any]]) -> SWFHeader:
        """A header with one `; Key: value` line per item, in order.

        Parameters
        ----------
        items
            Keys and values (e.g. `{"Version": "2.2", "MaxProcs": 128}`);
            repeat a key by passing pairs. Values are written with `str`.

        Returns
        -------
        SWFHeader
            The header.

        Raises
        ------
        InvalidValueError
            If a key is not a word or a value spans several lines.
        """
        pairs = items.items() if isinstance(items, Mapping) else items
        lines = []
        for key, value in pairs:
            if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", str(key)):
                raise InvalidValueError("SWFHeader key", key, "must be a word such as 'MaxProcs'")
            lines.append(f"; {key}: {value}")
        return cls(lines)

    def get(self, key: str) -> str | None:
        """The value of the last `key:` line, or `None` (keys are case-sensitive).

        Examples
        --------
        >>> SWFHeader(["; Computer: IBM SP2"]).get("Computer")
        'IBM SP2'
        """
        for k, value in reversed(self.entries):
            if k == key:
                return value
        return None


# --------------------------------------------------------------------------- parsing lines

_INT_TOKEN = re.compile(r"-?[0-9]+\Z")
_FLOAT_TOKEN = re.compile(r"-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?\Z")


class _LineError(Exception):
    """A line that is not SWF: becomes a WorkloadFormatError or a skipped line."""

    def __init__(self, kind: str, message: str, index: int | None = None, token: Any = None):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.field = None if index is None else index + 1
        self.token = None if token is None else str(token)


def _field_error(kind: str, index: int, token: Any, reason: str) -> _LineError:
    field = FIELDS[index]
    return _LineError(
        kind, f"field {field.number} ({field.name}) = {token!r}: {reason}", index, token
    )


_NEGATIVE = "negative, and only -1 (unknown) may be"


def _convert_slow(parts: Sequence[str]) -> list[Any]:
    """Convert the tokens one by one, naming the first bad one."""
    values: list[Any] = []
    for index, token in enumerate(parts):
        if _INT_TOKEN.match(token):
            values.append(int(token))
        elif _FLOAT_TOKEN.match(token):
            if not FIELDS[index].fractional:
                raise _field_error(
                    "not_an_integer",
                    index,
                    token,
                    "not an integer (SWF times and counts are whole)",
                )
            number = float(token)
            if not math.isfinite(number):
                raise _field_error("not_a_number", index, token, "not a finite number")
            if -1.0 < number < 0.0:
                raise _field_error("negative", index, token, _NEGATIVE)
            values.append(number)
        else:
            raise _field_error("not_a_number", index, token, "not a number")
    return values


def _check_negative(values: Sequence[Any], parts: Sequence[str]) -> None:
    """Raise for the first negative value other than -1 (the status aside)."""
    if values[0] < 0:
        raise _field_error("negative", 0, parts[0], "a job number must be >= 0")
    for index, value in enumerate(values):
        if value < 0 and value != -1 and index != _STATUS:
            raise _field_error("negative", index, parts[index], _NEGATIVE)


def _set_bits(bits: bytearray, first: int, last: int) -> None:
    """Set bits `first` to `last` (both included) of `bits`, bit `i` of byte `j`
    being number `8 * j + i`: the whole bytes between by one slice assignment,
    the partial bytes at the two ends by a mask."""
    low, high = first >> 3, last >> 3
    head = (0xFF << (first & 7)) & 0xFF  # bits first..7 of byte `low`
    tail = 0xFF >> (7 - (last & 7))  # bits 0..last of byte `high`
    if low == high:
        bits[low] |= head & tail
    else:
        bits[low] |= head
        bits[low + 1 : high] = b"\xff" * (high - low - 1)
        bits[high] |= tail


class _IdSet:
    """Job numbers seen so far, to refuse a repeated one: one bit per number
    from the first one seen, a set for the others.

    The bit map covers the numbers from the first one seen (the base) up. It
    grows (by a quarter, or further if a new number asks for it) to cover a
    new number as long as it then holds at most `BITS_PER_NUMBER` (64) bits
    per number seen plus `MIN_BITS` ($2^{23}$ bits, 1 MB). A number below the
    base, or above the map and too far for that bound (a sparse outlier such
    as $2^{40}$), goes to the set `extra` instead; when the map later grows
    over numbers of `extra`, they move into it.

    Archive logs number their jobs upwards from a base, so memory stays about
    one bit per job (30 million jobs: 3.75 MB) and a lazy read stays flat as
    the file grows. A batch of numbers that increase and are all above every
    number seen is recorded at once, each run of consecutive numbers as one
    range of bits.

    Attributes
    ----------
    base
        The first number seen (`-1` before any): bit `i` of byte `j` of `bits`
        stands for number `base + 8 * j + i`.
    bits
        The bit map; at most `(BITS_PER_NUMBER * count + MIN_BITS) / 8` bytes.
    extra
        The numbers seen that the map does not cover.
    ahead
        The numbers of `extra` above the base, a heap (smallest first): the
        next to move into the map when it grows.
    count
        How many numbers were seen.
    top
        The largest number seen (`-1` before any).

    Notes
    -----
    Complexity: `add` $O(1)$ amortised (plus one heap pop for each number
    that moves from `extra` into the map); `add_new` $O(n + b)$ for $n$ numbers
    spanning $b$ bytes of the map, with one Python step per run of consecutive
    numbers. Memory: at most 8 bytes per number seen plus 1 MB for the map,
    about 70 bytes per number in `extra`.
    """

    __slots__ = ("ahead", "base", "bits", "count", "extra", "top")
    BITS_PER_NUMBER = 64  # density bound: map bits <= BITS_PER_NUMBER x numbers seen + MIN_BITS
    MIN_BITS = 1 << 23  # (both multiples of 8)

    def __init__(self) -> None:
        self.base = -1
        self.bits = bytearray()
        self.extra: set[int] = set()
        self.ahead: list[int] = []
        self.count = 0
        self.top = -1

    def _grow(self, offset: int, new: int) -> bool:
        """Extend the map to cover `base + offset` (beyond it) if the density
        bound allows it with `new` more numbers seen; `False` if not (nothing
        changed). Numbers of `extra` the map now covers move into it."""
        bits = self.bits
        need = (offset >> 3) + 1
        most = (self.BITS_PER_NUMBER * (self.count + new) + self.MIN_BITS) >> 3
        if need > most:
            return False
        bits.extend(bytes(min(max(need, len(bits) + (len(bits) >> 2), 64), most) - len(bits)))
        ahead, base = self.ahead, self.base
        end = base + (len(bits) << 3)
        while ahead and ahead[0] < end:
            number = heappop(ahead)
            self.extra.remove(number)
            _set_bits(bits, number - base, number - base)
        return True

    def add(self, number: int) -> bool:
        """Record `number`; `False` if it was already there."""
        base = self.base
        if base < 0:
            base = self.base = number
        offset = number - base
        byte, bits = offset >> 3, self.bits
        if 0 <= byte < len(bits) or (
            offset >= 0 and number not in self.extra and self._grow(offset, 1)
        ):
            mask = 1 << (offset & 7)
            value = bits[byte]
            if value & mask:
                return False
            bits[byte] = value | mask
        elif number in self.extra:
            return False
        else:
            self.extra.add(number)
            if offset > 0:
                heappush(self.ahead, number)
        self.count += 1
        if number > self.top:
            self.top = number
        return True

    def add_new(self, numbers: Sequence[int]) -> bool:
        """Record `numbers` (strictly increasing, the first above every number
        seen, so none is a repeat) if the map covers them or may grow to;
        `False` if not (nothing recorded: call `add` for each).

        Consecutive numbers are set as one range of bits; numbers with gaps
        as their runs of consecutive numbers, one range each.
        """
        first, last = numbers[0], numbers[-1]
        if self.base < 0:
            self.base = first
        base, bits, size = self.base, self.bits, len(numbers)
        if first < base or (last - base >= len(bits) << 3 and not self._grow(last - base, size)):
            return False
        if last - first == size - 1:  # consecutive numbers: one range
            _set_bits(bits, first - base, last - base)
        else:  # the runs end before each number that is not its predecessor + 1
            start = 0
            steps = map(sub, islice(numbers, 1, None), numbers)
            for end in compress(range(1, size), map(ne, steps, repeat(1))):
                _set_bits(bits, numbers[start] - base, numbers[end - 1] - base)
                start = end
            _set_bits(bits, numbers[start] - base, last - base)
        self.count += size
        self.top = last
        return True


# --------------------------------------------------------------------------- reading

_GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 1 << 15  # characters read at a time from a file the reader wrapped itself
_BATCH_LINES = 256  # lines taken at a time from a text stream given to the reader
_GZIP_ERRORS = (gzip.BadGzipFile, EOFError, zlib.error)

SWFSource = str | os.PathLike[str] | IO[str] | IO[bytes]


def _describe(source: Any) -> str:
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    name = getattr(source, "name", None)
    return name if isinstance(name, str) else "<stream>"


def _status_warning(number: int, parts: Sequence[str]) -> ParseIssue:
    token = parts[_STATUS]
    return ParseIssue(
        number,
        "status",
        f"field 11 (status) = {token!r}: not a standard SWF status (-1, 0, 1, 2, 3, 4, 5)",
        11,
        token,
    )


def _submit_warning(number: int, parts: Sequence[str], previous: int) -> ParseIssue:
    token = parts[1]
    if token == "-1":
        return ParseIssue(number, "unknown_submit", "field 2 (submit) = '-1': unknown", 2, token)
    return ParseIssue(
        number,
        "submit_order",
        f"field 2 (submit) = {token!r}: earlier than the previous known submit time {previous}",
        2,
        token,
    )


class _ReadState:
    """What a read carries from one batch of lines to the next."""

    __slots__ = ("count", "ids", "last_submit", "max_procs", "most")

    def __init__(self, max_procs: int | None) -> None:
        self.max_procs = max_procs
        self.most = max_procs if max_procs is not None else math.inf
        self.ids = _IdSet()
        self.last_submit = 0  # the last known submit time
        self.count = 0  # records so far


def _fractional(tokens: Sequence[str]) -> list[Any] | None:
    """A column that may hold fractions: whole numbers as `int`, others as `float`
    (finite, `>= 0`); `None` if a token is anything else."""
    try:
        values = [float(token) if "." in token else int(token) for token in tokens]
    except ValueError:
        return None
    fractions = [value for value in values if type(value) is float]
    if fractions and not 0.0 <= min(fractions) <= max(fractions) < math.inf:
        return None
    return values


def _valid_unconverted(column: list[str], fractional: bool) -> bool:
    """Whether every token of an ASCII column is a whole number `>= 0` (digits) or `-1`,
    or, if `fractional`, also a finite fraction `>= 0` written with digits and one point.

    Checked without converting the column: on all of it when it is digits only
    (the common case), else on its distinct tokens. `False` is safe (the line
    by line path then decides); `True` only for tokens that path accepts.
    """
    if column[0] != "-1":
        if "".join(column).isdigit():  # (ASCII: isdigit is 0-9)
            return True
    elif column.count("-1") == len(column):  # a field the log does not have
        return True
    distinct = set(column)
    distinct.discard("-1")
    text = "".join(distinct)
    if not text or text.isdigit():
        return True
    if not fractional or not text.replace(".", "").isdigit():
        return False
    try:
        values = list(map(float, distinct))  # refuses '.', '1.2.3'
    except ValueError:
        return False
    return max(values) < math.inf  # a very long number is inf


_ALL_FIELDS = range(_N_FIELDS)
# fields with few distinct values: a table is cheaper (the bulk checks use 4, 7 and 10's)
_FEW_VALUES = frozenset({4, 7, 8, 10, 11, 12})


def _clean_batch(
    text: str,
    count: int,
    first: int,
    state: _ReadState,
    wanted: Container[int] = _ALL_FIELDS,
) -> list[Any] | None:
    """The columns of a batch of `count` lines (`text`) that holds nothing unusual,
    checked in bulk.

    `None`, with nothing recorded, when the batch needs a look line by line:
    a blank or comment line, a line that is not SWF, a warning to give (a
    status that is not standard, a submit time going back), a job number not
    above every one seen. The per-line path then gives the same answer as
    for any batch; this only finds quickly that there is nothing to say.
    Fields not `wanted` are checked but not converted (`None` in their place);
    the fields that checks need (job number, submit, processors, status) always are.
    """
    if not count or not text.isascii() or "_" in text or "+" in text or "|" in text:
        return None  # int() would take '+5', '1_0' or other digits; '|' marks line ends below
    if text[-1] != "\n":
        text += "\n"
    # one split for the whole batch; each line then ends with a '|' token
    tokens = text.replace("\n", " | ").split()
    width = _N_FIELDS + 1
    if len(tokens) != width * count or tokens[_N_FIELDS::width].count("|") != count:
        return None  # a line without 18 fields, a blank line
    columns: list[Any] = []
    checked: dict[int, Any] = {}
    distinct: dict[int, Any] = {}  # the distinct values of the columns read by a table
    for field in FIELDS:
        index = field.number - 1
        column = tokens[index::width]
        if index in wanted or index in _CHECKED:
            try:
                if index in _FEW_VALUES:
                    table = {token: int(token) for token in set(column)}
                    values: list[Any] | None = list(map(table.__getitem__, column))
                    distinct[index] = table.values()
                    lowest = min(distinct[index])
                else:
                    values = list(map(int, column))
                    lowest = min(values)
            except ValueError:
                values = _fractional(column) if field.fractional else None
                if values is None:
                    return None
                lowest = min(values)
            if lowest < -1 and index != _STATUS:
                return None
            columns.append(values)
            checked[index] = values
        elif _valid_unconverted(column, field.fractional):
            columns.append(None)
        else:
            return None
    ids, submits = checked[0], checked[1]
    most = state.most
    if max(distinct[4]) > most or max(distinct[7]) > most:
        return None
    if not STANDARD_STATUSES.issuperset(distinct[_STATUS]):
        return None
    if submits[0] < state.last_submit or submits != sorted(submits):
        return None
    seen = state.ids
    # increasing and above every number seen (`top` starts at -1): no repeat, none negative
    if ids[0] <= seen.top or not all(map(operator.lt, ids, islice(ids, 1, None))):
        return None
    if not seen.add_new(ids):
        return None
    state.last_submit = submits[-1]
    state.count += count
    columns.append(range(first, first + count))
    return columns


_CHECKED = frozenset({0, 1, 4, 7, _STATUS})  # fields the bulk checks read


class SWFReader:
    """A lazy SWF reader: the header is read on opening, records on iteration.

    Use [`open_swf`][schedlib.workloads.swf.open_swf] to create one. Memory
    does not grow with the file: one batch of lines (32,768 characters) is
    held at a time, plus one bit per job number for the duplicate check (a
    bit map from the first job number up, which grows while it holds at most
    64 bits per number seen plus 1 MB; numbers it does not cover, below the
    first or sparse outliers far above, are kept in a set) and, in lenient
    mode, the list of skipped lines.

    A batch in which nothing is unusual (every line a record of 18 whole
    numbers, or fractions where SWF allows them; no negative value but -1;
    standard statuses; submit times not going back; job numbers increasing)
    is checked at once, a column at a time; any other batch is read line by
    line, which finds the same records and says the same about each line.

    Attributes
    ----------
    source
        The file name (or `"<stream>"`).
    header
        The parsed header (the comment lines before the first record).
    strict
        Whether a bad line raises (`True`) or is skipped and reported.
    limit
        Stop after this many records (`None`: read everything).

    Examples
    --------
    >>> import io
    >>> text = "; MaxProcs: 4\\n1 0 0 10 2 -1 -1 2 20 -1 1 1 1 1 1 1 -1 -1\\n"
    >>> with open_swf(io.StringIO(text)) as reader:
    ...     (reader.header.max_procs, [rec.job_id for rec in reader], reader.report.records)
    (4, [1], 1)
    """

    def __init__(self, source: SWFSource, *, strict: bool = True, limit: int | None = None) -> None:
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int) or limit < 0
        ):
            raise InvalidValueError("limit", limit, "must be an integer >= 0 or None")
        self.source = _describe(source)
        self.strict = strict
        self.limit = limit
        self._issues = _Issues()
        self._records = 0
        self._line = 0
        self._started = False
        self._owned: IO[Any] | None = None
        self._pending: str | None = None
        self._chunked = False  # set when we wrap the bytes: line ends are then all '\n'
        try:
            self._text = self._open(source)
            self._lines: Iterator[str] = iter(self._text)
            self.header = self._read_header()
        except BaseException:
            self.close()
            raise

    # -- opening

    def _open(self, source: SWFSource) -> TextIO:
        if isinstance(source, (str, os.PathLike)):
            raw: BinaryIO = open(source, "rb")  # noqa: SIM115 - closed by close()
            self._owned = raw
            return self._wrap_binary(raw, os.fspath(source))
        if isinstance(source, io.TextIOBase):
            return source  # type: ignore[return-value]
        binary: Any = source
        if not hasattr(binary, "peek"):
            binary = io.BufferedReader(binary)
        return self._wrap_binary(binary, None)

    def _wrap_binary(self, raw: Any, name: str | None) -> TextIO:
        try:
            magic = raw.peek(2)[:2]
        except OSError as error:
            raise WorkloadFormatError(
                self.source, None, f"cannot read the file: {error}"
            ) from error
        compressed = magic == _GZIP_MAGIC
        if name is not None and name.endswith(".gz") != compressed:
            what = "gzip data" if compressed else "plain text"
            self._issues.warn(
                ParseIssue(
                    None, "compression", f"file name suffix disagrees with the content: {what}"
                )
            )
        stream: Any = gzip.GzipFile(fileobj=raw, mode="rb") if compressed else raw
        self._chunked = True
        return io.TextIOWrapper(stream, encoding="utf-8", errors="replace", newline=None)

    def _next_line(self) -> str | None:
        try:
            return next(self._lines)
        except StopIteration:
            return None
        except _GZIP_ERRORS as error:
            raise self._gzip_error(error) from error

    def _gzip_error(self, error: BaseException) -> WorkloadFormatError:
        return WorkloadFormatError(
            self.source,
            None,
            f"corrupt or truncated gzip data after line {self._line}: "
            f"{type(error).__name__}: {error}",
        )

    def _read_header(self) -> SWFHeader:
        numbered: list[tuple[int, str]] = []
        while True:
            line = self._next_line()
            if line is None:
                break
            self._line += 1
            stripped = line.strip()
            if not stripped:
                continue
            if stripped[0] != ";":
                self._pending = line
                self._line -= 1
                break
            numbered.append((self._line, line.rstrip("\r\n")))
        header = SWFHeader(raw for _, raw in numbered)
        for issue in _parse_header(numbered)[1]:
            self._issues.warn(issue)
        return header

    # -- iteration

    @property
    def report(self) -> ParseReport:
        """What has been read so far (complete once iteration has finished)."""
        issues = self._issues
        return ParseReport(
            self.source, self._records, self._line, issues.skipped, issues.warnings, issues.counts
        )

    def __iter__(self) -> Iterator[SWFRecord]:
        self._start()
        return self._iterate()

    def _start(self) -> None:
        if self._started:
            raise RuntimeError(f"{self.source}: an SWFReader can be iterated only once")
        self._started = True

    def _iterate(self) -> Iterator[SWFRecord]:
        new_record, record = tuple.__new__, SWFRecord
        count = 0
        for columns in self._batches(_ALL_FIELDS):
            for values in zip(*columns, strict=True):
                count += 1
                self._records = count
                yield new_record(record, values)

    def _unusual(self, parts: list[str], line: str, number: int) -> list[Any] | None:
        """The numbers of a line off the fast path; `None` for a blank or comment line."""
        if not parts:
            return None
        if parts[0][0] == ";":
            self._issues.warn(
                ParseIssue(
                    number,
                    "late_comment",
                    "comment after the first record; not part of the header",
                    value=line.strip(),
                )
            )
            return None
        if len(parts) != _N_FIELDS:
            raise _LineError("field_count", f"expected {_N_FIELDS} fields, found {len(parts)}")
        return _convert_slow(parts)

    def _texts(self) -> Iterator[tuple[str, int, list[str] | None]]:
        """The lines after the header, a batch at a time: `(text, count, lines)`, where
        `text` holds exactly the `count` lines of the batch (so that a fact checked on
        it, such as "all ASCII", holds for each line); `lines` is `None` when
        `_lines_of(text)` gives them (split only if the batch needs a look line by line)."""
        pending = self._pending
        if self._chunked:  # our own wrapper: read big blocks, every line end is '\n'
            read = self._text.read
            carry = "" if pending is None else pending
            while chunk := read(_CHUNK):
                text = carry + chunk
                cut = text.rfind("\n") + 1
                text, carry = text[:cut], text[cut:]  # the last line may be incomplete
                if text:
                    yield text, text.count("\n"), None
            if carry:
                yield carry, 1, [carry]
        else:  # a text stream given to us: its own idea of lines
            lines_in = self._lines if pending is None else chain((pending,), self._lines)
            while lines := list(islice(lines_in, _BATCH_LINES)):
                yield "".join(lines), len(lines), lines

    def batches(self, fields: Container[int] | None = None) -> Iterator[list[Any]]:
        """The records column by column, a batch of lines at a time: the cheapest way to read.

        Each batch is a list of 19 sequences of equal length: the 18 fields in
        file order, then the line numbers; `zip(*batch)` gives the items of
        the records (`SWFRecord(*items)`). With `fields` (0-based positions),
        the other fields may be left out, `None` in their place: checked all
        the same, not converted, which is cheaper. Checked exactly as the records are:
        on a line that is not SWF (strict mode), the batches before it are
        yielded, and its records before it in a last batch, then the error is
        raised. A reader is iterated once: either this or the records.

        Returns
        -------
        Iterator[list[Sequence]]
            The batches, in file order; none is empty.

        Examples
        --------
        >>> import io
        >>> line = "{} 0 0 10 2 -1 -1 2 20 -1 1 1 1 1 1 1 -1 -1\\n"
        >>> with open_swf(io.StringIO(line.format(1) + line.format(2))) as reader:
        ...     [(list(batch[0]), list(batch[18])) for batch in reader.batches()]
        [([1, 2], [1, 2])]
        """
        self._start()
        return self._batches(_ALL_FIELDS if fields is None else fields)

    def _batches(self, fields: Container[int]) -> Iterator[list[Any]]:
        try:
            if self.limit == 0:
                return
            yield from self._checked_batches(fields)
        except _GZIP_ERRORS as error:
            raise self._gzip_error(error) from error
        finally:
            self.close()

    def _checked_batches(self, fields: Container[int]) -> Iterator[list[Any]]:
        state = _ReadState(self.header.max_procs)
        limit = self.limit
        number = self._line
        for text, count, lines in self._texts():
            columns = None
            if limit is None or state.count + count < limit:
                columns = _clean_batch(text, count, number + 1, state, fields)
            if columns is not None:
                number += count
                self._records, self._line = state.count, number
                yield columns
                continue
            if lines is None:
                lines = text.split("\n")
                lines.pop()  # the empty string after the last '\n'
            rows, number, failure = self._check_lines(lines, number, state)
            self._records, self._line = state.count, number
            if rows:
                yield list(zip(*rows, strict=True))
            if failure is not None:
                raise failure
            if state.count == limit:
                return
        self._line = number

    def _check_lines(
        self, lines: list[str], number: int, state: _ReadState
    ) -> tuple[list[list[Any]], int, WorkloadFormatError | None]:
        """Check lines one by one, as rows; warnings and skipped lines go to
        the report. Returns the rows, the last line number read and, in
        strict mode, the error of a line that is not SWF (it ends the read)."""
        issues = self._issues
        strict, limit = self.strict, self.limit
        max_procs, most = state.max_procs, state.most
        ids, standard = state.ids, STANDARD_STATUSES
        rows: list[list[Any]] = []
        for line in lines:
            number += 1
            parts = line.split()
            try:
                values: list[Any] | None
                if len(parts) != _N_FIELDS or not line.isascii() or "_" in line or "+" in line:
                    values = self._unusual(parts, line, number)  # int() would take '+5', '1_0'
                else:
                    try:
                        cpu = parts[5]
                        if "." in cpu:  # the average CPU time is often fractional
                            parts[5] = "0"
                            values = list(map(int, parts))
                            parts[5] = cpu
                            fraction = float(cpu)
                            if not 0.0 <= fraction < math.inf:
                                raise ValueError(cpu)
                            values[5] = fraction
                        else:
                            values = list(map(int, parts))
                    except ValueError:
                        parts[5] = cpu
                        values = self._unusual(parts, line, number)
                if values is None:
                    continue  # a blank line or a comment
                lowest = min(values)
                if lowest < 0 and (lowest != -1 or values[0] < 0):
                    _check_negative(values, parts)
                if values[4] > most or values[7] > most:
                    index = 4 if values[4] > most else 7
                    raise _field_error(
                        "exceeds_max_procs",
                        index,
                        parts[index],
                        f"more processors than the header's MaxProcs ({max_procs})",
                    )
                if not ids.add(values[0]):
                    raise _field_error("duplicate_id", 0, parts[0], "job number already used")
            except _LineError as error:
                if strict:
                    failure = WorkloadFormatError(
                        self.source,
                        number,
                        error.message,
                        field=None if error.field is None else FIELDS[error.field - 1].name,
                        value=error.token,
                    )
                    return rows, number, failure
                issues.skipped.append(
                    ParseIssue(number, error.kind, error.message, error.field, error.token)
                )
                continue
            if values[_STATUS] not in standard:
                issues.warn(_status_warning(number, parts))
            submit = values[1]
            if submit < state.last_submit:
                issues.warn(_submit_warning(number, parts, state.last_submit))
                if submit != -1:
                    state.last_submit = submit
            else:
                state.last_submit = submit
            state.count += 1
            values.append(number)  # the 19th item: the line number
            rows.append(values)
            if state.count == limit:
                break
        return rows, number, None

    # -- closing

    def close(self) -> None:
        """Close the file if this reader opened it (idempotent)."""
        if self._owned is not None:
            self._owned.close()
            self._owned = None

    def __enter__(self) -> SWFReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_swf(source: SWFSource, *, strict: bool = True, limit: int | None = None) -> SWFReader:
    """Open an SWF file (plain or gzip) for lazy reading.

    Parameters
    ----------
    source
        A path, or an open binary or text stream. Compression is detected
        from the first bytes, not from the name.
    strict
        `True` (default): a line that is not SWF raises. `False`: it is
        skipped and listed in the reader's `report.skipped`.
    limit
        Stop after this many records (`None`: all).

    Returns
    -------
    SWFReader
        A context manager with `header` read; iterate it (once) for records,
        then look at `report`.

    Raises
    ------
    WorkloadFormatError
        On corrupt gzip data (here or while iterating) and, in strict mode,
        on the first line that is not SWF.
    OSError
        If the file cannot be opened (e.g. `FileNotFoundError`).

    Notes
    -----
    Complexity: $O(1)$ memory per record (one bit per job number for the
    duplicate check: 30 million jobs numbered upwards take 3.75 MB); about
    2-3 µs per line on ordinary logs, read a batch of lines at a time.
    """
    return SWFReader(source, strict=strict, limit=limit)


def iter_swf(
    source: SWFSource, *, strict: bool = True, limit: int | None = None
) -> Iterator[SWFRecord]:
    """Yield the records of an SWF file one at a time (a generator).

    Parameters
    ----------
    source, strict, limit
        As for [`open_swf`][schedlib.workloads.swf.open_swf].

    Yields
    ------
    SWFRecord
        Each job record, in file order.

    Raises
    ------
    WorkloadFormatError
        As for [`open_swf`][schedlib.workloads.swf.open_swf].

    Examples
    --------
    >>> import io
    >>> line = "{} {} 0 10 2 -1 -1 2 20 -1 {} 1 1 1 1 1 -1 -1\\n"
    >>> text = line.format(1, 0, 1) + line.format(2, 5, 5)
    >>> [r.status for r in iter_swf(io.StringIO(text))]
    [1, 5]
    """
    with open_swf(source, strict=strict, limit=limit) as reader:
        yield from reader


@attrs.frozen(slots=True)
class SWFTrace:
    """A whole SWF file in memory.

    Attributes
    ----------
    source
        The file read.
    header
        Its header.
    records
        Every record, in file order.
    report
        Counts, skipped lines (lenient mode) and warnings.
    """

    source: str
    header: SWFHeader
    records: tuple[SWFRecord, ...]
    report: ParseReport


def read_swf(source: SWFSource, *, strict: bool = True, limit: int | None = None) -> SWFTrace:
    """Read a whole SWF file (plain or gzip).

    Parameters
    ----------
    source, strict, limit
        As for [`open_swf`][schedlib.workloads.swf.open_swf].

    Returns
    -------
    SWFTrace
        Header, records and report.

    Raises
    ------
    WorkloadFormatError
        As for [`open_swf`][schedlib.workloads.swf.open_swf].

    Examples
    --------
    >>> import io
    >>> line = "1 {} 0 10 2 -1 -1 2 20 -1 1 1 1 1 1 1 -1 -1\\n"
    >>> text = line.format(0) + line.format(5)
    >>> trace = read_swf(io.StringIO(text), strict=False)
    >>> len(trace.records), [str(issue) for issue in trace.report.skipped]
    (1, ["line 2: field 1 (job_id) = '1': job number already used"])
    """
    with open_swf(source, strict=strict, limit=limit) as reader:
        records = tuple(reader)
        return SWFTrace(reader.source, reader.header, records, reader.report)


# --------------------------------------------------------------------------- writing


def _format_value(value: Any) -> str:
    return str(value) if isinstance(value, int) else repr(float(value))


def format_record(record: SWFRecord) -> str:
    """One SWF line (no line end) for a record.

    Integers are written as such; fractional fields keep Python's shortest
    round-tripping float form, so reading the line back gives equal values.

    Examples
    --------
    >>> format_record(SWFRecord(*([1, 0, 0, 60, 4, 12.5, -1] + [-1] * 11)))
    '1 0 0 60 4 12.5 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1'
    """
    return " ".join(map(_format_value, record.values()))


def write_swf(
    destination: str | os.PathLike[str] | IO[str],
    records: Iterable[SWFRecord],
    header: SWFHeader | None = None,
) -> int:
    """Write records (and a header) as an SWF file.

    Parameters
    ----------
    destination
        A path (gzip-compressed when it ends in `.gz`, deterministically:
        no file name or time stamp in the gzip header) or a text stream.
    records
        The records, written in the order given.
    header
        Written first, line for line; `None` writes no header.

    Returns
    -------
    int
        Number of records written.

    Raises
    ------
    OSError
        If the file cannot be written.

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> rec = SWFRecord(*([1, 0, 0, 60, 4, -1, -1, 4, 100, -1, 1] + [-1] * 7))
    >>> write_swf(out, [rec], SWFHeader.from_items({"MaxProcs": 4}))
    1
    >>> print(out.getvalue(), end="")
    ; MaxProcs: 4
    1 0 0 60 4 -1 -1 4 100 -1 1 -1 -1 -1 -1 -1 -1 -1
    >>> read_swf(io.StringIO(out.getvalue())).records == (rec,)
    True
    """
    if isinstance(destination, (str, os.PathLike)):
        path = Path(destination)
        if path.name.endswith(".gz"):
            with (
                open(path, "wb") as raw,
                gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as packed,
                io.TextIOWrapper(packed, encoding="utf-8", newline="\n") as text,
            ):
                return _write(text, records, header)
        with open(path, "w", encoding="utf-8", newline="\n") as text:
            return _write(text, records, header)
    return _write(destination, records, header)


def _write(stream: IO[str], records: Iterable[SWFRecord], header: SWFHeader | None) -> int:
    if header is not None:
        for comment in header.comments:
            stream.write(comment + "\n")
    count = 0
    write = stream.write
    for record in records:
        write(format_record(record) + "\n")
        count += 1
    return count
