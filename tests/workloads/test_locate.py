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


# -- every documented rule of find_trace / load_trace (issue 38) ---------------------------


def _folder_with(root: Path, *names: str) -> Path:
    """A traces folder holding only the named traces (each a copy of its embedded slice)."""
    root.mkdir(parents=True, exist_ok=True)
    for name in names:
        info = KNOWN_TRACES[name]
        (root / info.file).write_bytes((DATA / info.embedded_file).read_bytes())
    return root


def test_a_folder_that_lacks_the_trace_falls_back_to_the_embedded_slice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A traces folder exists (explicit, from the environment, or beside the clone) but
    holds only SDSC-SP2: CTC-SP2 is its embedded slice, never a path to a missing file."""
    monkeypatch.delenv("SCHEDLIB_TRACES", raising=False)
    monkeypatch.chdir(tmp_path)
    only_sdsc = _folder_with(tmp_path / "shared" / "traces", "sdsc")
    for source in (
        find_trace("ctc", folder=only_sdsc),
        find_trace("ctc", folder=only_sdsc, search=False),
        find_trace("ctc"),  # ./shared/traces
    ):
        assert source.embedded and source.path == KNOWN_TRACES["ctc"].embedded_file
        assert load_trace(source, limit=20).records == 20
    monkeypatch.setenv("SCHEDLIB_TRACES", str(only_sdsc))
    assert find_trace("ctc").embedded
    assert not find_trace("sdsc").embedded


def test_an_explicit_folder_is_used_even_without_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`search=False` turns off the environment and the working directory, not `folder`."""
    monkeypatch.delenv("SCHEDLIB_TRACES", raising=False)
    monkeypatch.chdir(tmp_path)
    given = _folder_with(tmp_path / "given", "ctc")
    source = find_trace("ctc", folder=given, search=False)
    assert not source.embedded and Path(source.path) == given / KNOWN_TRACES["ctc"].file


def test_without_search_and_folder_the_slice_is_used_whatever_lies_around(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _fake_folder(tmp_path)  # ./shared/traces holds both traces
    monkeypatch.setenv("SCHEDLIB_TRACES", str(_fake_folder(tmp_path / "env")))
    assert find_trace("ctc").embedded is False
    assert find_trace("ctc", search=False).embedded is True


def test_the_search_order_is_explicit_then_environment_then_here_then_beside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each place of the documented order wins over every later one, and an empty
    `$SCHEDLIB_TRACES` counts as unset."""
    clone = tmp_path / "clone"
    clone.mkdir()
    monkeypatch.chdir(clone)
    beside = _fake_folder(tmp_path)  # ../shared/traces
    here = _fake_folder(clone)  # ./shared/traces
    env = _fake_folder(tmp_path / "env")
    explicit = _fake_folder(tmp_path / "explicit")
    monkeypatch.setenv("SCHEDLIB_TRACES", str(env))
    assert traces_folder(explicit) == explicit
    assert traces_folder() == env
    monkeypatch.setenv("SCHEDLIB_TRACES", "")
    assert traces_folder() == here.resolve()
    monkeypatch.delenv("SCHEDLIB_TRACES")
    assert traces_folder() == here.resolve()
    for kind in here.iterdir():
        kind.unlink()
    here.rmdir()
    assert traces_folder() == beside.resolve()
    assert Path(find_trace("sdsc").path).parent == beside.resolve()


def test_an_embedded_slice_gives_up_to_its_5000_records_and_refuses_more() -> None:
    """`limit` below the embedded count reads that many records, at it all of them (the
    whole slice, as no limit does), above it is refused, naming the way to the real trace."""
    source = find_trace("sdsc", search=False)
    assert source.available_jobs == EMBEDDED_JOBS == 5000
    assert load_trace(source, limit=EMBEDDED_JOBS - 1).records == EMBEDDED_JOBS - 1
    whole = load_trace(source, limit=EMBEDDED_JOBS)
    assert whole.records == EMBEDDED_JOBS
    assert whole.jobs == load_trace(source).jobs
    assert whole.source == f"schedlib/data/{source.path} (embedded)"
    with pytest.raises(InvalidValueError, match="--traces DIR"):
        load_trace(source, limit=EMBEDDED_JOBS + 1)


def test_a_real_trace_is_read_past_the_embedded_count(tmp_path: Path) -> None:
    """The limit of the embedded slice is the slice's: a real file is read up to `limit`
    (here a file of 5000 records, so all of them), never refused."""
    folder = _folder_with(tmp_path, "ctc")
    source = find_trace("ctc", folder=folder)
    assert source.available_jobs is None
    assert load_trace(source, limit=EMBEDDED_JOBS + 1).records == EMBEDDED_JOBS
    assert load_trace(source, limit=10).cluster.processors == 430


def test_a_file_of_ones_own_is_read_with_its_header_size(tmp_path: Path) -> None:
    """A name that is not a known trace is a file: named after it, machine size from its
    header (`processors=None`), never the embedded slice."""
    path = tmp_path / "mine.swf.gz"
    path.write_bytes((DATA / KNOWN_TRACES["sdsc"].embedded_file).read_bytes())
    source = find_trace(str(path))
    assert (source.name, source.path, source.processors, source.embedded) == (
        "mine.swf.gz",
        str(path),
        None,
        False,
    )
    assert source.describe() == "mine.swf.gz, all jobs (real trace)"
    assert load_trace(source, limit=5).records == 5
