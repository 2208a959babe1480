r"""Where the real traces are, and what stands in for them: data found, and always named.

The reproductions read named real traces (`sdsc`, `ctc`) from a traces folder,
looked up the way a user expects, in this order:

1. the folder given explicitly (`--traces DIR`);
2. `$SCHEDLIB_TRACES` (set to an empty value, it counts as unset);
3. `./shared/traces`, then `../shared/traces`, relative to the **working
   directory** (a clone beside the project's `shared` folder), never relative to
   where the package is installed.

A named trace missing from the folder (or with no folder at all) is replaced by
its own **embedded slice**, the first 5000 job records of that same trace,
shipped in `schedlib/data/` with its provenance: the stand-in for CTC-SP2 is a
slice of CTC-SP2, never another trace. Every
[`TraceSource`][schedlib.workloads.locate.TraceSource] says which it is, and
[`describe`][schedlib.workloads.locate.TraceSource.describe] names it in rows,
verdicts and summaries.

Examples
--------
>>> source = find_trace("ctc", folder=None, search=False)
>>> source.embedded, source.processors
(True, 430)
>>> source.describe(300)
'CTC-SP2, first 300 jobs (embedded slice of the real trace)'
>>> load_trace(source, limit=10).records
10
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

import attrs

from schedlib.errors import InvalidValueError
from schedlib.workloads.workload import Workload, load_workload

__all__ = [
    "EMBEDDED_JOBS",
    "KNOWN_TRACES",
    "TraceInfo",
    "TraceSource",
    "find_trace",
    "load_trace",
    "traces_folder",
]

EMBEDDED_JOBS = 5000
"""Job records in each embedded slice (the first ones of the trace)."""


@attrs.frozen
class TraceInfo:
    """A named real trace: its name, file in the traces folder, machine size, embedded slice."""

    name: str
    file: str
    processors: int
    embedded_file: str


KNOWN_TRACES: dict[str, TraceInfo] = {
    "ctc": TraceInfo(
        "CTC-SP2", "CTC-SP2-1996-3.1-cln.swf.gz", 430, "CTC-SP2-1996-3.1-cln-first5000.swf.gz"
    ),
    "sdsc": TraceInfo(
        "SDSC-SP2", "SDSC-SP2-1998-4.2-cln.swf.gz", 128, "SDSC-SP2-1998-4.2-cln-first5000.swf.gz"
    ),
}
"""Short name -> the trace. CTC-SP2 runs on 430 processors, the size the multi-site paper
uses (the v3.1 log's header says 338 for the batch partition); SDSC-SP2 on its 128."""


@attrs.frozen
class TraceSource:
    """A trace as found: a real file, or the embedded slice standing in for it.

    Attributes
    ----------
    name
        The trace's name (`CTC-SP2`), or the file's name for a user's file.
    path
        The file; for an embedded slice, its name in `schedlib/data/`.
    processors
        The machine size runs use (`None`: the file's header).
    embedded
        Whether this is the embedded slice (the first 5000 records).
    """

    name: str
    path: str
    processors: int | None
    embedded: bool

    def describe(self, jobs: int | None = None) -> str:
        """The trace, the jobs used and whether it is real or the embedded slice.

        Examples
        --------
        >>> TraceSource("SDSC-SP2", "/x/SDSC.swf.gz", 128, False).describe(1000)
        'SDSC-SP2, first 1000 jobs (real trace)'
        """
        used = "all jobs" if jobs is None else f"first {jobs} jobs"
        kind = "embedded slice of the real trace" if self.embedded else "real trace"
        return f"{self.name}, {used} ({kind})"

    @property
    def available_jobs(self) -> int | None:
        """Job records available (5000 for an embedded slice; `None`: not counted)."""
        return EMBEDDED_JOBS if self.embedded else None


def traces_folder(explicit: str | os.PathLike[str] | None = None) -> Path | None:
    """The traces folder: `explicit`, else `$SCHEDLIB_TRACES`, else `./shared/traces` or
    `../shared/traces` from the working directory; `None` when none exists.

    Raises
    ------
    InvalidValueError
        If `explicit` (or `$SCHEDLIB_TRACES`) is given but is not a folder: a
        folder the user named must exist.
    """
    if explicit is not None:
        folder = Path(explicit)
        if not folder.is_dir():
            raise InvalidValueError("--traces", str(explicit), "is not a folder")
        return folder
    variable = os.environ.get("SCHEDLIB_TRACES")
    if variable:
        folder = Path(variable)
        if not folder.is_dir():
            raise InvalidValueError("$SCHEDLIB_TRACES", variable, "is not a folder")
        return folder
    for candidate in (Path("shared") / "traces", Path("..") / "shared" / "traces"):
        if candidate.is_dir():
            return candidate.resolve()
    return None


def find_trace(
    name: str, *, folder: str | os.PathLike[str] | None = None, search: bool = True
) -> TraceSource:
    """Trace `name` (`ctc`, `sdsc`, or an SWF file) as found, or its embedded slice.

    Parameters
    ----------
    name
        A short name of [`KNOWN_TRACES`][schedlib.workloads.locate.KNOWN_TRACES] or a file.
    folder
        The traces folder given explicitly (`--traces`).
    search
        Look for a folder as [`traces_folder`][schedlib.workloads.locate.traces_folder]
        does when `folder` is `None`; `False`: only `folder`.

    Raises
    ------
    InvalidValueError
        For a file that does not exist, or a folder that is not one.
    """
    info = KNOWN_TRACES.get(name)
    if info is None:
        if not Path(name).is_file():
            raise InvalidValueError(
                "--trace", name, f"is neither {', '.join(KNOWN_TRACES)} nor an existing file"
            )
        return TraceSource(Path(name).name, str(name), None, False)
    where = traces_folder(folder) if (search or folder is not None) else None
    if where is not None and (where / info.file).is_file():
        return TraceSource(info.name, str(where / info.file), info.processors, False)
    return TraceSource(info.name, info.embedded_file, info.processors, True)


def load_trace(source: TraceSource, *, limit: int | None = None) -> Workload:
    """Read a [`TraceSource`][schedlib.workloads.locate.TraceSource] with the default cleaning.

    Raises
    ------
    InvalidValueError
        If `limit` asks for more records than an embedded slice holds.
    """
    if not source.embedded:
        return load_workload(source.path, processors=source.processors, limit=limit)
    if limit is not None and limit > EMBEDDED_JOBS:
        raise InvalidValueError(
            "--jobs",
            limit,
            f"the embedded slice of {source.name} holds {EMBEDDED_JOBS} jobs; give the real "
            "trace with --traces DIR (or $SCHEDLIB_TRACES)",
        )
    files = resources.files("schedlib") / "data" / source.path
    with resources.as_file(files) as path:
        workload = load_workload(path, processors=source.processors, limit=limit)
    return attrs.evolve(workload, source=f"schedlib/data/{source.path} (embedded)")
