"""Input fuzzing: hostile bytes never escape as anything but the library's documented errors.

Three families of input: raw bytes (anything at all), *almost-SWF* text (lines of
plausible and implausible tokens: numbers, `-1`, fractions, exponents, words,
header comments, blank lines, stray separators, gzip magic), and availability
pattern files. For every input:

- strict mode either reads it or raises `WorkloadFormatError` naming the source,
  with a line number whenever a line is at fault and the field when a field is;
- lenient mode never raises on a line (only on whole-file trouble: corrupt gzip
  data) and accounts for every line: records + skipped + comments and blanks
  = lines read;
- cleaning and `load_workload` raise only `WorkloadFormatError` or
  `InvalidValueError`.

Each property runs at least 400 examples (more under the `thorough` profile); the
Guarantees page records the long local runs.
"""

from __future__ import annotations

import gzip
import io
import math
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from schedlib.availability.patterns import parse_availability
from schedlib.errors import InvalidValueError, WorkloadFormatError
from schedlib.workloads import load_workload
from schedlib.workloads.cleaning import clean
from schedlib.workloads.swf import SWFRecord, read_swf

ODD_NUMBERS = ["-5", "-1.0", "-0.5", "0.5", "1e3", "1e309", "nan", "inf", "4.", ".5", "+3"]
PLAIN_TOKENS = ["0", "1", "-1", "2", "7", "64", "128", "100000", "3600", "x", ";", ";;"]
TOKENS = st.sampled_from(
    [*PLAIN_TOKENS, "00", "0x10", "１", "999999999999999999999", "", " ", "\t", *ODD_NUMBERS]
)
FRACTIONAL_FIELDS = (5, 6)  # average CPU time, used memory: the only fields with fractions
HEADER_LINES = st.sampled_from(
    [
        "; Version: 2.2",
        "; MaxProcs: 8",
        "; MaxProcs: 0",
        "; MaxProcs: -3",
        "; MaxProcs: many",
        "; MaxNodes: 4",
        "; UnixStartTime: 0",
        ";",
        "; just a comment",
        "",
        "   ",
    ]
)


@st.composite
def record_lines(draw: st.DrawFn) -> str:
    """A line of about 18 tokens, often exactly 18 plausible ones."""
    count = draw(st.one_of(st.just(18), st.integers(0, 22)))
    plausible = draw(st.booleans())
    if plausible:
        values = [str(draw(st.one_of(st.just(-1), st.integers(0, 200)))) for _ in range(count)]
        if values and draw(st.booleans()):
            values[draw(st.integers(0, len(values) - 1))] = draw(TOKENS)
        if count == 18 and draw(st.booleans()):  # where fractions are allowed, odd ones
            values[draw(st.sampled_from(FRACTIONAL_FIELDS))] = draw(st.sampled_from(ODD_NUMBERS))
    else:
        values = [draw(TOKENS) for _ in range(count)]
    separator = draw(st.sampled_from([" ", "  ", "\t", " \t "]))
    return separator.join(values)


@st.composite
def almost_swf(draw: st.DrawFn) -> str:
    """Header lines, then records, with comments and blanks mixed in."""
    lines = draw(st.lists(HEADER_LINES, max_size=4))
    lines += draw(st.lists(st.one_of(record_lines(), HEADER_LINES), max_size=12))
    ending = draw(st.sampled_from(["\n", "\r\n", ""]))
    return "\n".join(lines) + ending


SOURCES = st.one_of(
    almost_swf().map(lambda text: text.encode()),
    st.binary(max_size=300),
    almost_swf().map(lambda text: gzip.compress(text.encode())),
    almost_swf().map(lambda text: gzip.compress(text.encode())[: len(text) // 2 + 10]),
)

FUZZ = settings(
    max_examples=max(400, settings.default.max_examples),  # cheap: at least 400 per property
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _comments_and_blanks(data: bytes) -> int | None:
    """Lines that are comments or blank, when the data is plain UTF-8 text."""
    try:
        text = data.decode()
    except UnicodeDecodeError:
        return None
    lines = io.StringIO(text, newline=None).readlines()  # split as a file is: \n, \r, \r\n
    return sum(1 for line in lines if not line.strip() or line.lstrip().startswith(";"))


OVERFLOW = b"1 0 0 10 1 1e309 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n"
"""A valid record but for a fraction that overflows to infinity (a named case)."""


@FUZZ
@example(OVERFLOW)
@given(SOURCES)
def test_strict_reading_raises_only_named_format_errors(data: bytes) -> None:
    try:
        trace = read_swf(io.BytesIO(data))
    except WorkloadFormatError as error:
        assert error.path == "<stream>"
        if error.field is not None:
            assert error.line is not None and error.field in str(error)
        return
    _check_is_swf(trace.records)


def _check_is_swf(records: Sequence[SWFRecord]) -> None:
    """What a read accepts is SWF: every field finite, and non-negative or -1."""
    for record in records:
        for value in record.values():
            assert math.isfinite(value) and (value >= 0 or value == -1), record


@FUZZ
@example(OVERFLOW)
@given(SOURCES)
def test_lenient_reading_accounts_for_every_line(data: bytes) -> None:
    try:
        trace = read_swf(io.BytesIO(data), strict=False)
    except WorkloadFormatError as error:
        # only whole-file trouble can stop a lenient read (corrupt gzip, not text)
        assert error.line is None, str(error)
        return
    report = trace.report
    assert report.records == len(trace.records)
    _check_is_swf(trace.records)
    for issue in report.skipped:
        assert issue.line is not None
    extra = _comments_and_blanks(data)
    if extra is not None:
        assert report.records + len(report.skipped) + extra == report.lines, (
            report.records,
            len(report.skipped),
            extra,
            report.lines,
        )


@FUZZ
@given(SOURCES, st.one_of(st.none(), st.integers(1, 16)))
def test_loading_and_cleaning_raise_only_documented_errors(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, processors: int | None
) -> None:
    path: Path = tmp_path_factory.mktemp("fuzz") / "trace.swf"
    path.write_bytes(data)
    try:
        workload = load_workload(path, processors=processors, strict=False)
    except (WorkloadFormatError, InvalidValueError):
        return
    assert workload.records == workload.report.records
    try:
        trace = read_swf(io.BytesIO(data), strict=False)
    except WorkloadFormatError:
        return
    cleaned = clean(trace.records, processors=processors)
    assert len(cleaned.jobs) + len(cleaned.excluded) == len(trace.records)


AVAILABILITY_TOKENS = st.sampled_from(
    ["0", "1", "84", "1.2", "-1", "x", "inf", "nan", "1e3", "", ";", "#", ",", "up", "down"]
)


@FUZZ
@given(
    st.one_of(
        st.lists(st.lists(AVAILABILITY_TOKENS, max_size=6).map(" ".join), max_size=6).map(
            "\n".join
        ),
        st.text(max_size=80),
    )
)
def test_availability_patterns_raise_only_named_format_errors(text: str) -> None:
    try:
        parse_availability(text)
    except WorkloadFormatError as error:
        assert error.line is not None or "no" in str(error)
