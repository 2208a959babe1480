"""The trace a run reads is named with its path and sha256, and checked against what is known."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from schedlib.cli import main
from schedlib.workloads.provenance import KNOWN_TRACES, identify, sha256_of

KTH = "KTH-SP2-1996-2.1-cln.swf.gz"


def test_every_archive_trace_here_is_the_known_file(traces_dir: Path) -> None:
    for path in sorted(traces_dir.glob("*.swf.gz")):
        found = identify(path)
        assert found.verdict == "matches", path
        assert found.known == f"the known Parallel Workloads Archive file {path.name}"
        assert found.warning() is None


def test_the_uncompressed_file_is_known_too(traces_dir: Path, tmp_path: Path) -> None:
    plain = tmp_path / "renamed.swf"
    plain.write_bytes(gzip.decompress((traces_dir / KTH).read_bytes()))
    found = identify(plain)
    assert found.verdict == "matches" and found.known is not None and KTH[:-3] in found.known
    assert found.sha256 == KNOWN_TRACES[KTH[:-3]][1]


def test_the_embedded_slices_are_known() -> None:
    data = Path(__file__).resolve().parents[2] / "schedlib" / "data"
    for path in sorted(data.glob("*.swf.gz")):
        found = identify(path)
        assert found.verdict == "matches" and "embedded slice" in str(found.known)


def test_a_file_named_like_a_known_one_with_other_bytes_is_warned_about(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = tmp_path / KTH
    fake.write_bytes(
        gzip.compress(b"; MaxProcs: 4\n1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n")
    )
    assert main(["run", "--workload", str(fake), "--format", "csv"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(f"schedlib: workload: {fake} (sha256 {sha256_of(fake)[:8]}...): ")
    assert "differs from the known Parallel Workloads Archive file" in err[0]
    assert err[1].startswith(f"schedlib: warning: {fake} differs from ")
    assert KNOWN_TRACES[KTH[:-3]][0] in err[1]  # the expected sha256, in full


def test_a_readme_beside_the_trace_gives_its_checksum(tmp_path: Path) -> None:
    trace = tmp_path / "mine.swf"
    trace.write_text("; MaxProcs: 4\n")
    readme = tmp_path / "README.md"
    readme.write_text(f"| `mine.swf` | 4 | `{sha256_of(trace)}` |\n")
    found = identify(trace)
    assert (found.verdict, found.known) == ("matches", f"the checksum in {readme}")
    readme.write_text(f"| `mine.swf` | 4 | `{'0' * 64}` |\n")
    assert identify(trace).verdict == "differs" and identify(trace).expected == "0" * 64
    readme.write_text("| `other.swf` | no checksum of mine |\n")
    assert identify(trace).verdict == "unknown"


def test_run_and_compare_name_the_trace_and_its_verdict(
    traces_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compare", "--workload", str(traces_dir / KTH), "--limit", "50"]) == 0
    first = capsys.readouterr().err.splitlines()[0]
    assert first == (
        f"schedlib: workload: {(traces_dir / KTH).resolve()} (sha256 3e152f20...): matches the "
        f"known Parallel Workloads Archive file {KTH}"
    )
    assert main(["run", "--limit", "50"]) == 0
    first = capsys.readouterr().err.splitlines()[0]
    assert first.startswith("schedlib: workload: the embedded default, ")
    assert first.endswith(
        "matches schedlib's embedded slice SDSC-SP2-1998-4.2-cln-first5000.swf.gz"
    )
