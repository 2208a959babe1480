"""The lazy reader's memory does not grow with the file (tracemalloc, not time)."""

from __future__ import annotations

import gzip
import tracemalloc
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from schedlib.workloads.swf import iter_swf

SMALL, LARGE = 2_000, 8_000
LINE = "{0} {1} 3 600 8 512.25 -1 8 900 -1 1 17 3 -1 2 -1 -1 -1\n"


def synthetic_trace(path: Path, records: int) -> Path:
    """A gzip SWF file of `records` job lines (ids and submit times increasing)."""
    with gzip.open(path, "wt") as out:
        out.write("; Version: 2.2\n; MaxProcs: 128\n")
        for job in range(1, records + 1):
            out.write(LINE.format(job, 30 * job))
    return path


@pytest.fixture(scope="module")
def traces(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("lazy")
    return (
        synthetic_trace(folder / "small.swf.gz", SMALL),
        synthetic_trace(folder / "large.swf.gz", LARGE),
    )


Reader = Callable[[Path], Iterable[Any]]


def peak_bytes(read: Reader, path: Path) -> tuple[int, int]:
    """Peak traced memory while consuming `read(path)` record by record, and the count."""
    tracemalloc.start()
    try:
        count = 0
        for _ in read(path):
            count += 1
        return tracemalloc.get_traced_memory()[1], count
    finally:
        tracemalloc.stop()


def check_flat_memory(read: Reader, small: Path, large: Path) -> None:
    """AssertionError if reading 20x more records needs noticeably more memory."""
    small_peak, small_count = peak_bytes(read, small)
    large_peak, large_count = peak_bytes(read, large)
    assert (small_count, large_count) == (SMALL, LARGE)
    growth = large_peak - small_peak
    assert growth < 64 * 1024, (
        f"peak memory grew by {growth} bytes from {SMALL} to {LARGE} records "
        f"({small_peak} -> {large_peak})"
    )


def test_lazy_reader_memory_is_flat(traces: tuple[Path, Path]) -> None:
    check_flat_memory(iter_swf, *traces)


def _hoarding_reader(path: Path) -> Iterable[Any]:
    """Broken: reads every record into a list before yielding."""
    return list(iter_swf(path))


def test_flat_memory_checker_catches_a_reader_that_holds_the_file(
    traces: tuple[Path, Path],
) -> None:
    with pytest.raises(AssertionError, match="peak memory grew"):
        check_flat_memory(_hoarding_reader, *traces)
