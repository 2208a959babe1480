"""The SWF parsing layer: every malformed case, warnings, lenient mode, compression."""

from __future__ import annotations

import gzip
import io
import zlib
from pathlib import Path

import pytest

from schedlib.errors import InvalidValueError, WorkloadFormatError
from schedlib.workloads.swf import (
    FIELDS,
    WARNING_DETAIL_LIMIT,
    SWFHeader,
    SWFRecord,
    iter_swf,
    open_swf,
    read_swf,
)

GOOD = "1 0 5 100 4 12.5 -1 4 200 -1 1 3 1 -1 1 -1 -1 -1"
"""A valid job line (fractional field 6, as archive logs have)."""


def line(**changes: object) -> str:
    """GOOD with some fields changed, by field name."""
    tokens = GOOD.split()
    for name, value in changes.items():
        index = next(f.number - 1 for f in FIELDS if f.name == name)
        tokens[index] = str(value)
    return " ".join(tokens)


def swf(*lines: str, header: str = "; Version: 2.2\n; MaxProcs: 64\n") -> str:
    return header + "".join(f"{text}\n" for text in lines)


def parse(text: str, **kwargs: object):  # type: ignore[no-untyped-def]
    return read_swf(io.StringIO(text), **kwargs)  # type: ignore[arg-type]


def error_of(text: str) -> WorkloadFormatError:
    with pytest.raises(WorkloadFormatError) as info:
        parse(text)
    return info.value


# --------------------------------------------------------------------------- valid input


def test_fields_table_has_18_fields_numbered_in_order() -> None:
    assert [f.number for f in FIELDS] == list(range(1, 19))
    assert [f.name for f in FIELDS] == list(SWFRecord._fields[:18])
    assert [f.number for f in FIELDS if f.fractional] == [6, 7]


def test_valid_file_gives_records_with_line_numbers() -> None:
    trace = parse(swf(GOOD, "", line(job_id=2, submit=10, used_memory="3.25")))
    assert [r.job_id for r in trace.records] == [1, 2]
    assert [r.line for r in trace.records] == [3, 5]  # blank line 4 skipped
    first = trace.records[0]
    assert (first.avg_cpu_time, first.used_memory, first.status) == (12.5, -1, 1)
    assert isinstance(first.runtime, int) and isinstance(first.avg_cpu_time, float)
    assert trace.records[1].used_memory == 3.25
    assert trace.report.records == 2 and trace.report.lines == 5
    assert trace.report.skipped == () and trace.report.warning_count() == 0


def test_minus_one_is_allowed_in_every_field_but_the_job_number() -> None:
    tokens = ["7"] + ["-1"] * 17
    (record,) = parse(swf(" ".join(tokens))).records
    assert record.values()[1:] == (-1,) * 17


def test_tabs_and_crlf_line_ends_are_whitespace() -> None:
    text = "; MaxProcs: 8\r\n" + GOOD.replace(" ", "\t") + "\r\n"
    trace = parse(text)
    assert trace.header.max_procs == 8 and trace.records[0].runtime == 100


def test_limit_stops_after_n_records_and_ignores_later_lines() -> None:
    text = swf(GOOD, line(job_id=2), "not an swf line at all")
    assert len(parse(text, limit=2).records) == 2
    assert parse(text, limit=0).records == ()
    with pytest.raises(InvalidValueError, match="limit"):
        parse(text, limit=-1)


def test_record_equality_ignores_the_line_number() -> None:
    a = SWFRecord.from_values(range(18), line=3)
    assert a == a._replace(line=9) and hash(a) == hash(a._replace(line=9))
    assert a != a._replace(runtime=99)
    assert a != tuple(a)  # a record only equals a record


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("text", "field", "value", "fragment"),
    [
        (line(runtime="x"), "runtime", "x", "field 4 (runtime) = 'x': not a number"),
        (line(runtime="12.5"), "runtime", "12.5", "field 4 (runtime) = '12.5': not an integer"),
        (line(submit="1e3"), "submit", "1e3", "field 2 (submit) = '1e3': not an integer"),
        (line(user="+3"), "user", "+3", "field 12 (user) = '+3': not a number"),
        (line(group="1_000"), "group", "1_000", "not a number"),
        (line(queue="٣"), "queue", "٣", "field 15 (queue) = '٣': not a number"),
        (line(avg_cpu_time="nan"), "avg_cpu_time", "nan", "field 6 (avg_cpu_time) = 'nan'"),
        (line(avg_cpu_time="1.5e400"), "avg_cpu_time", "1.5e400", "not a finite number"),
        (line(used_memory="1.2.3"), "used_memory", "1.2.3", "not a number"),
        (line(wait=-2), "wait", "-2", "field 3 (wait) = '-2': negative"),
        (line(avg_cpu_time="-0.5"), "avg_cpu_time", "-0.5", "negative"),
        (line(used_memory="-3.5"), "used_memory", "-3.5", "negative"),
        (line(think_time=-60), "think_time", "-60", "field 18 (think_time) = '-60': negative"),
        (line(job_id=-1), "job_id", "-1", "field 1 (job_id) = '-1': a job number must be >= 0"),
        (line(job_id=-5), "job_id", "-5", "a job number must be >= 0"),
        (line(allocated_procs=65), "allocated_procs", "65", "MaxProcs (64)"),
        (line(requested_procs=100), "requested_procs", "100", "field 8 (requested_procs)"),
    ],
)
def test_bad_field_names_file_line_field_and_value(
    text: str, field: str, value: str, fragment: str
) -> None:
    error = error_of(swf(GOOD.replace("1 ", "9 ", 1), text))
    assert (error.path, error.line, error.field, error.value) == ("<stream>", 4, field, value)
    assert fragment in str(error)
    assert str(error).startswith("<stream>:4: field ")


@pytest.mark.parametrize("count", [17, 19, 1])
def test_wrong_field_count(count: int) -> None:
    text = " ".join(["1"] * count)
    error = error_of(swf(text))
    assert error.line == 3
    assert f"expected 18 fields, found {count}" in str(error)


def test_duplicate_job_number_names_both_lines() -> None:
    error = error_of(swf(GOOD, line(job_id=2), line(submit=50)))
    assert (error.line, error.field, error.value) == (5, "job_id", "1")
    assert "already used" in str(error)


@pytest.mark.parametrize(
    "ids",
    [
        [5, 3, 5],  # below the first number seen: kept outside the bitmap
        [1, 1 << 40, 1 << 40],  # far above it
        [10, 11, 2000, 11],  # the bitmap grows, then meets a repeat
    ],
)
def test_duplicates_are_found_wherever_the_numbers_lie(ids: list[int]) -> None:
    lines = [line(job_id=i) for i in ids]
    error = error_of(swf(*lines))
    assert error.line == 2 + len(ids) and error.field == "job_id"
    assert len(parse(swf(*lines[:-1])).records) == len(ids) - 1


def test_no_max_procs_in_header_means_no_processor_check() -> None:
    (record,) = parse(swf(line(allocated_procs=5000), header="; Version: 2.2\n")).records
    assert record.allocated_procs == 5000


def test_error_names_the_file_when_reading_a_path(tmp_path: Path) -> None:
    path = tmp_path / "bad.swf"
    path.write_text(swf(GOOD, line(job_id=2, runtime="oops")))
    with pytest.raises(WorkloadFormatError, match=r"bad\.swf:4: field 4 \(runtime\)") as info:
        read_swf(path)
    assert info.value.path == str(path)


def test_missing_file_raises_oserror(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_swf(tmp_path / "absent.swf")


# --------------------------------------------------------------------------- lenient mode


def test_lenient_mode_skips_and_reports_every_bad_line() -> None:
    text = swf(
        GOOD,
        line(job_id=2, runtime="x"),
        "1 2 3",
        line(job_id=3, wait=-7),
        line(job_id=1),
        line(job_id=4, allocated_procs=999),
        line(job_id=5),
    )
    trace = parse(text, strict=False)
    assert [r.job_id for r in trace.records] == [1, 5]
    skipped = trace.report.skipped
    assert [(s.line, s.kind, s.field) for s in skipped] == [
        (4, "not_a_number", 4),
        (5, "field_count", None),
        (6, "negative", 3),
        (7, "duplicate_id", 1),
        (8, "exceeds_max_procs", 5),
    ]
    assert str(skipped[0]) == "line 4: field 4 (runtime) = 'x': not a number"
    assert trace.report.records == 2 and trace.report.lines == 9


# --------------------------------------------------------------------------- warnings


def test_nonstandard_status_is_a_warning_not_an_error() -> None:
    trace = parse(swf(line(status=-4), line(job_id=2, status=265), line(job_id=3, status=5)))
    assert len(trace.records) == 3
    assert trace.report.warning_count("status") == 2
    first = trace.report.warnings[0]
    assert (first.line, first.kind, first.field, first.value) == (3, "status", 11, "-4")


def test_unknown_and_backward_submit_times_are_warnings() -> None:
    trace = parse(
        swf(
            line(submit=100),
            line(job_id=2, submit=-1),
            line(job_id=3, submit=100),
            line(job_id=4, submit=50),
            line(job_id=5, submit=60),
        )
    )
    assert len(trace.records) == 5
    kinds = [(w.line, w.kind) for w in trace.report.warnings]
    # the unknown submit does not count as a step back, nor reset the order
    assert kinds == [(4, "unknown_submit"), (6, "submit_order")]
    assert "earlier than the previous known submit time 100" in trace.report.warnings[1].message


def test_comment_after_the_first_record_is_a_warning() -> None:
    trace = parse(swf(GOOD, "; MaxProcs: 1", line(job_id=2)))
    assert trace.header.max_procs == 64  # not part of the header
    assert [(w.line, w.kind) for w in trace.report.warnings] == [(4, "late_comment")]


def test_warning_details_are_capped_but_all_counted() -> None:
    lines = [line(job_id=i, status=9) for i in range(WARNING_DETAIL_LIMIT + 5)]
    report = parse(swf(*lines)).report
    assert report.warning_count("status") == WARNING_DETAIL_LIMIT + 5
    assert len(report.warnings) == WARNING_DETAIL_LIMIT


# --------------------------------------------------------------------------- header


SANDIA_LIKE = "".join(
    f"{text}\n"
    for text in [
        ";Version: SWF v2",
        ";Computer: Compaq DS10L 1U servers",
        "; UnixStartTime: 1007061086",
        ";MaxNodes: 1524",
        "; MaxProcs: 1524",
        ";MaxRuntime: N/A",
        ";MaxQueues: 4",
        ";Queues: Interactive jobs have a queue of 0.",
        "; MaxQueues: 3",
        "; Queue:  1  ",
        "; Queue:  2  batch",
        "; Information: http://www.cs.sandia.gov/cplant/",
        ";              http://www.cs.huji.ac.il/labs/parallel/workload/",
        ";",
        "; Note: THIS IS A CLEANED VERSION OF THE LOG!",
        ";       The filter used to produce it was",
        ";         job<=14 (14 jobs removed)",
        ";\tsee: tab-indented continuation",
    ]
)


def test_header_keys_values_and_continuations() -> None:
    trace = parse(SANDIA_LIKE + GOOD + "\n")
    h = trace.header
    assert (h.version, h.computer, h.unix_start_time) == (
        "SWF v2",
        "Compaq DS10L 1U servers",
        1007061086,
    )
    assert (h.max_nodes, h.max_procs, h.max_runtime, h.max_queues) == (1524, 1524, None, 3)
    assert h.queues == ((1, ""), (2, "batch"))
    assert h.queues_description == "Interactive jobs have a queue of 0."
    assert h.information == (
        "http://www.cs.sandia.gov/cplant/\nhttp://www.cs.huji.ac.il/labs/parallel/workload/",
    )
    assert h.notes == (
        "THIS IS A CLEANED VERSION OF THE LOG!\nThe filter used to produce it was\n"
        "job<=14 (14 jobs removed)\nsee: tab-indented continuation",
    )
    assert h.comments == tuple(SANDIA_LIKE.splitlines())
    assert h.get("MaxQueues") == "3" and h.get("Absent") is None
    messages = [str(w) for w in trace.report.warnings if w.kind == "header"]
    assert messages == [
        "line 6: header MaxRuntime = 'N/A': not an integer; ignored",
        "line 9: header key MaxQueues given again ('4', now '3'); the later value is used",
    ]


def test_header_numbers_are_read_from_the_start_of_the_value() -> None:
    h = SWFHeader(
        [
            "; MaxNodes: 338 (batch partition; 512 total)",
            "; MaxProcs: 1664 (72, 1368, 224)",
            "; TimeZone: -18000",
        ]
    )
    assert (h.max_nodes, h.max_procs, h.time_zone) == (338, 1664, -18000)


def test_nonpositive_machine_size_in_header_is_ignored_with_a_warning() -> None:
    trace = parse("; MaxProcs: 0\n" + GOOD + "\n")
    assert trace.header.max_procs is None
    assert "not a positive integer" in trace.report.warnings[0].message


def test_header_validation_and_repr() -> None:
    with pytest.raises(InvalidValueError, match="comments"):
        SWFHeader(["MaxProcs: 4"])
    with pytest.raises(InvalidValueError, match="comments"):
        SWFHeader(["; two\n; lines"])
    with pytest.raises(InvalidValueError, match="comments"):
        SWFHeader(["; carriage\rreturn"])
    with pytest.raises(InvalidValueError, match="key"):
        SWFHeader.from_items({"Max Procs": 4})
    assert (
        repr(SWFHeader.from_items({"MaxProcs": 4})) == "SWFHeader(<1 comment lines>, max_procs=4)"
    )
    assert SWFHeader() == SWFHeader(()) and SWFHeader().max_procs is None


def test_empty_file_and_header_only_file() -> None:
    assert parse("").records == ()
    trace = parse("; MaxProcs: 4\n\n")
    assert trace.records == () and trace.header.max_procs == 4


# --------------------------------------------------------------------------- compression


def gz(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


TEXT = swf(GOOD, line(job_id=2)).encode()


@pytest.mark.parametrize(
    ("name", "packed", "warned"),
    [
        ("plain.swf", False, False),
        ("packed.swf.gz", True, False),
        ("plain-named.swf.gz", False, True),
        ("packed-named.swf", True, True),
    ],
)
def test_compression_is_detected_from_the_content(
    tmp_path: Path, name: str, packed: bool, warned: bool
) -> None:
    path = tmp_path / name
    path.write_bytes(gz(TEXT) if packed else TEXT)
    trace = read_swf(path)
    assert [r.job_id for r in trace.records] == [1, 2]
    assert trace.report.warning_count("compression") == int(warned)


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (b"\x1f\x8b" + b"garbage that is not gzip", "BadGzipFile"),
        (gz(TEXT)[:-30], "EOFError"),  # truncated
        (gz(TEXT)[:10] + b"\x07" + bytes(20), "invalid block type"),  # zlib.error
    ],
)
def test_corrupt_gzip_names_the_file(tmp_path: Path, data: bytes, fragment: str) -> None:
    path = tmp_path / "broken.swf.gz"
    path.write_bytes(data)
    with pytest.raises(WorkloadFormatError) as info:
        read_swf(path)
    assert info.value.path == str(path)
    assert "corrupt or truncated gzip data" in str(info.value)
    assert fragment in str(info.value)
    assert isinstance(info.value.__cause__, (gzip.BadGzipFile, EOFError, zlib.error))


def test_streams_binary_text_and_gzip() -> None:
    assert len(read_swf(io.BytesIO(TEXT)).records) == 2
    assert len(read_swf(io.BytesIO(gz(TEXT))).records) == 2
    assert len(read_swf(io.StringIO(TEXT.decode())).records) == 2
    assert read_swf(io.BytesIO(TEXT)).source == "<stream>"


def test_reader_is_lazy_single_use_and_closes_its_file(tmp_path: Path) -> None:
    path = tmp_path / "t.swf"
    path.write_bytes(TEXT)
    reader = open_swf(path)
    assert reader.header.max_procs == 64 and reader.report.records == 0
    records = iter(reader)
    assert next(records).job_id == 1
    assert reader.report.records == 1
    assert [r.job_id for r in records] == [2]
    assert reader._owned is None  # closed at the end
    with pytest.raises(RuntimeError, match="only once"):
        iter(reader)
    assert [r.job_id for r in iter_swf(path)] == [1, 2]


def test_late_comment_with_18_tokens_is_still_a_comment() -> None:
    comment = "; " + " ".join(["1"] * 17)
    trace = parse(swf(GOOD, comment, line(job_id=2)))
    assert len(trace.records) == 2
    assert trace.report.warning_count("late_comment") == 1
