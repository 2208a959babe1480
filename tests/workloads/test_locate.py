"""Finding the real traces from the working directory, and each trace's own embedded slice."""

from __future__ import annotations

import gzip
import hashlib
from importlib import resources
from pathlib import Path

import pytest

from schedlib.errors import InvalidValueError
from schedlib.workloads import read_swf
from schedlib.workloads.locate import (
    EMBEDDED_JOBS,
    KNOWN_TRACES,
    find_trace,
    load_trace,
    traces_folder,
)

DATA = resources.files("schedlib") / "data"


def _fake_folder(root: Path) -> Path:
    folder = root / "shared" / "traces"
    folder.mkdir(parents=True)
    for info in KNOWN_TRACES.values():
        (folder / info.file).write_bytes((DATA / info.embedded_file).read_bytes())
    return folder


@pytest.mark.parametrize("name", sorted(KNOWN_TRACES))
def test_each_slice_is_the_first_5000_records_of_its_own_trace(traces_dir: Path, name: str) -> None:
    info = KNOWN_TRACES[name]
    with resources.as_file(DATA / info.embedded_file) as path:
        embedded = read_swf(path)
    full = read_swf(traces_dir / info.file, limit=EMBEDDED_JOBS)
    assert len(embedded.records) == EMBEDDED_JOBS
    assert embedded.records == full.records
    assert embedded.header == full.header


@pytest.mark.parametrize("name", sorted(KNOWN_TRACES))
def test_provenance_states_each_slice_and_source_hash(traces_dir: Path, name: str) -> None:
    info = KNOWN_TRACES[name]
    text = (DATA / "PROVENANCE.md").read_text(encoding="utf-8")
    packed = (DATA / info.embedded_file).read_bytes()
    assert hashlib.sha256(packed).hexdigest() in text
    assert hashlib.sha256(gzip.decompress(packed)).hexdigest() in text
    assert hashlib.sha256((traces_dir / info.file).read_bytes()).hexdigest() in text


def test_the_folder_is_found_from_the_working_directory_not_the_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SCHEDLIB_TRACES", raising=False)
    clone = tmp_path / "clone"
    clone.mkdir()
    monkeypatch.chdir(clone)
    assert traces_folder() is None  # nothing beside this clone
    assert find_trace("ctc").embedded and find_trace("sdsc").embedded
    beside = _fake_folder(tmp_path)  # ../shared/traces
    assert traces_folder() == beside.resolve()
    inside = _fake_folder(clone)  # ./shared/traces wins over ../shared/traces
    assert traces_folder() == inside.resolve()
    source = find_trace("ctc")
    assert not source.embedded and Path(source.path).parent == inside.resolve()
    assert source.describe(1000) == "CTC-SP2, first 1000 jobs (real trace)"


def test_explicit_folder_then_environment_take_precedence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _fake_folder(tmp_path)
    other = _fake_folder(tmp_path / "other")
    monkeypatch.setenv("SCHEDLIB_TRACES", str(other))
    assert traces_folder() == other
    explicit = _fake_folder(tmp_path / "explicit")
    assert traces_folder(explicit) == explicit
    assert Path(find_trace("sdsc", folder=explicit).path).parent == explicit


def test_a_named_folder_that_does_not_exist_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(InvalidValueError, match="--traces"):
        traces_folder(tmp_path / "missing")
    monkeypatch.setenv("SCHEDLIB_TRACES", str(tmp_path / "missing"))
    with pytest.raises(InvalidValueError, match="SCHEDLIB_TRACES"):
        traces_folder()


def test_a_missing_trace_is_replaced_by_its_own_slice_never_the_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SCHEDLIB_TRACES", raising=False)
    monkeypatch.chdir(tmp_path)
    ctc, sdsc = find_trace("ctc"), find_trace("sdsc")
    assert (ctc.name, ctc.processors, ctc.embedded) == ("CTC-SP2", 430, True)
    assert (sdsc.name, sdsc.processors, sdsc.embedded) == ("SDSC-SP2", 128, True)
    a, b = load_trace(ctc, limit=50), load_trace(sdsc, limit=50)
    assert a.jobs != b.jobs and a.cluster.processors == 430
    assert "embedded slice" in ctc.describe(50)
    with pytest.raises(InvalidValueError, match="holds 5000 jobs"):
        load_trace(ctc, limit=5001)


def test_an_unknown_name_that_is_no_file_is_refused() -> None:
    with pytest.raises(InvalidValueError, match="neither ctc, sdsc"):
        find_trace("nope")
