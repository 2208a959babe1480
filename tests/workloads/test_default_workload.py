"""The embedded default workload: the first 5000 records of SDSC-SP2, with provenance."""

from __future__ import annotations

import gzip
import hashlib
import re
from importlib import resources
from pathlib import Path

import pytest

from schedlib.workloads import (
    DEFAULT_WORKLOAD_FILE,
    DEFAULT_WORKLOAD_JOBS,
    default_workload,
    load_workload,
    read_swf,
)

DATA = resources.files("schedlib") / "data"
FULL = "SDSC-SP2-1998-4.2-cln.swf.gz"


def provenance() -> str:
    return (DATA / "PROVENANCE.md").read_text(encoding="utf-8")


def test_slice_equals_the_first_5000_records_of_the_full_trace(traces_dir: Path) -> None:
    with resources.as_file(DATA / DEFAULT_WORKLOAD_FILE) as path:
        embedded = read_swf(path)
    full = read_swf(traces_dir / FULL, limit=DEFAULT_WORKLOAD_JOBS)
    assert len(embedded.records) == DEFAULT_WORKLOAD_JOBS
    assert embedded.records == full.records
    assert [r.line for r in embedded.records] == [r.line for r in full.records]
    assert embedded.header == full.header
    assert embedded.report.warning_count() == 0


def test_provenance_hashes_match_the_files(traces_dir: Path) -> None:
    text = provenance()
    packed = (DATA / DEFAULT_WORKLOAD_FILE).read_bytes()
    assert hashlib.sha256(packed).hexdigest() in text
    assert hashlib.sha256(gzip.decompress(packed)).hexdigest() in text
    assert hashlib.sha256((traces_dir / FULL).read_bytes()).hexdigest() in text


def test_the_documented_cut_reproduces_the_file_byte_for_byte(
    traces_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run the snippet of PROVENANCE.md on the full trace: same bytes."""
    snippet = re.search(r"```python\n(.*?)```", provenance(), re.DOTALL)
    assert snippet is not None
    (tmp_path / FULL).write_bytes((traces_dir / FULL).read_bytes())
    monkeypatch.chdir(tmp_path)
    exec(compile(snippet.group(1), "PROVENANCE.md", "exec"), {})
    assert (tmp_path / DEFAULT_WORKLOAD_FILE).read_bytes() == (
        DATA / DEFAULT_WORKLOAD_FILE
    ).read_bytes()


def test_default_workload_is_the_slice_on_128_processors() -> None:
    w = default_workload()
    assert w is default_workload()  # built once, immutable
    assert w == load_workload(None)
    assert w.name == "SDSC-SP2-1998-4.2-cln-first5000"
    assert (w.cluster.processors, w.processors_source) == (128, "header MaxProcs")
    assert w.records == DEFAULT_WORKLOAD_JOBS
    assert w.source == f"schedlib/data/{DEFAULT_WORKLOAD_FILE} (embedded)"
    report = w.report
    # the numbers PROVENANCE.md states
    assert (report.jobs, report.cancelled_in_log, report.over_limit) == (4641, 359, 308)
    assert report.cancelled_while_running == 1085
    assert f"{report.jobs} jobs simulated" in provenance().replace("\n", " ")
