"""Write a file whole or not at all.

[`atomic_write`][schedlib.results.atomic.atomic_write] writes to a temporary
file in the target's directory (named `.NAME.XXXX.part`, so it never passes
for a result) and renames it over the target only once everything is written
and flushed to disk. A run killed in the middle (`kill -9`, a crash, Ctrl-C)
leaves the previous file, or no file, at the target's name — never a
truncated one; an exception removes the temporary file.

Examples
--------
>>> import pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> with atomic_write(folder / "out.csv") as stream:
...     _ = stream.write("a,b\\n1,2\\n")
>>> (folder / "out.csv").read_text()
'a,b\\n1,2\\n'
>>> try:
...     with atomic_write(folder / "out.csv") as stream:
...         _ = stream.write("half a")
...         raise RuntimeError("crash")
... except RuntimeError:
...     pass
>>> (folder / "out.csv").read_text(), sorted(p.name for p in folder.iterdir())
('a,b\\n1,2\\n', ['out.csv'])
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

__all__ = ["PART_SUFFIX", "atomic_write"]

PART_SUFFIX = ".part"
"""Suffix of the temporary file while it is being written."""


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_write(
    path: str | Path, *, encoding: str = "utf-8", binary: bool = False
) -> Iterator[IO[Any]]:
    """Open a stream whose content replaces `path` when the block ends without error.

    Parameters
    ----------
    path
        The target file; its directory must exist.
    encoding
        Text encoding (newlines are written as given).
    binary
        Open a binary stream instead (e.g. for a figure).

    Yields
    ------
    IO
        The stream to write to (a temporary file beside the target): text,
        or bytes with `binary`.

    Notes
    -----
    The temporary file is flushed and `fsync`-ed, then `os.replace`-d over
    the target (atomic on POSIX and Windows within one file system). The
    result gets the usual permissions (`0o666` minus the umask).
    Complexity: $O(1)$ besides the writing.
    """
    target = Path(path)
    folder = target.parent
    fd, temporary = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=PART_SUFFIX, dir=folder if str(folder) else "."
    )
    try:
        stream: IO[Any]
        if binary:
            stream = os.fdopen(fd, "wb")
        else:
            stream = os.fdopen(fd, "w", encoding=encoding, newline="")
        with stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
