"""A workload ready to simulate: jobs, excluded records, machine size, provenance.

[`load_workload`][schedlib.workloads.workload.load_workload] reads an SWF
file lazily ([`schedlib.workloads.swf`][schedlib.workloads.swf]), cleans the
records under a [`CleaningPolicy`][schedlib.workloads.cleaning.CleaningPolicy]
([`schedlib.workloads.cleaning`][schedlib.workloads.cleaning]) and picks the
machine size; [`default_workload`][schedlib.workloads.workload.default_workload]
gives the slice of the SDSC-SP2 log embedded in the package.

**Machine size.** The `processors` argument if given, else the header's
`MaxProcs`, else its `MaxNodes`, else the largest job; the
[`Workload`][schedlib.workloads.workload.Workload]'s `cluster` holds the size
used and `processors_source` says where it came from. The CTC-SP2 log (v3.1)
says `MaxProcs: 338` (its batch partition); papers, including Sabin et al. (2003), often
use 430: pass `processors=430` to do so. The size is never changed silently.

Examples
--------
>>> w = default_workload()
>>> (w.cluster.processors, w.processors_source, len(w.jobs) + len(w.excluded))
(128, 'header MaxProcs', 5000)
>>> w.jobs[0]
Job(id=11, submit=566129, procs=1, requested_time=28800, runtime=28826, user=153, group=75)
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import operator
import os
from collections.abc import Iterable, Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import attrs

from schedlib.collector import paused_gc
from schedlib.errors import InvalidValueError, WorkloadFormatError
from schedlib.model import Cluster, Job
from schedlib.validation import require
from schedlib.workloads.cleaning import (
    CleaningPolicy,
    CleaningReport,
    ExcludedJob,
    clean,
    clean_in_order,
)
from schedlib.workloads.swf import ParseReport, SWFHeader, open_swf

__all__ = [
    "DEFAULT_WORKLOAD_FILE",
    "DEFAULT_WORKLOAD_JOBS",
    "TraceStream",
    "Workload",
    "default_workload",
    "load_workload",
    "stream_workload",
    "workload_name",
]

DEFAULT_WORKLOAD_FILE = "SDSC-SP2-1998-4.2-cln-first5000.swf.gz"
"""File name, in `schedlib/data/`, of the embedded default workload."""

DEFAULT_WORKLOAD_JOBS = 5000
"""Job records in the embedded default workload (the first ones of SDSC-SP2)."""


def _job_tuple(value: Iterable[Job]) -> tuple[Job, ...]:
    return tuple(value)


def _excluded_tuple(value: Iterable[ExcludedJob]) -> tuple[ExcludedJob, ...]:
    return tuple(value)


_submit_order = operator.attrgetter("submit", "id")


def _sorted_by_submit(
    instance: Any, attribute: attrs.Attribute[Any], value: tuple[Any, ...]
) -> None:
    keys = list(map(_submit_order, value))
    if all(map(operator.le, keys, itertools.islice(keys, 1, None))):
        return  # the common case, checked in C; else find the first offender
    for before, after in itertools.pairwise(value):
        if (after.submit, after.id) < (before.submit, before.id):
            raise InvalidValueError(
                f"Workload.{attribute.name}",
                after.id,
                f"must be sorted by (submit, id): job {after.id} (submit {after.submit}) comes "
                f"after job {before.id} (submit {before.submit})",
            )


@attrs.frozen(slots=True)
class Workload:
    """Jobs to simulate on one cluster, with every record accounted for.

    Attributes
    ----------
    name
        A label, e.g. the trace file name without `.swf.gz`.
    cluster
        The machine: `processors` is the size used (see `processors_source`).
    jobs
        Jobs to simulate, sorted by `(submit, id)`.
    excluded
        Records not simulated (cancelled in the log, or rejected with a
        reason), sorted by `(submit, id)`; the simulator logs each one.
    report
        What cleaning did.
    header
        The trace's header.
    source
        Where the jobs came from (a path, or a description).
    processors_source
        Where the size came from: `"argument"`, `"header MaxProcs"`,
        `"header MaxNodes"` or `"largest job"` (or any text for workloads
        built in code).
    parse_report
        The parsing layer's report (warnings; skipped lines in lenient mode),
        or `None` for workloads built in code.

    Notes
    -----
    `len(jobs) + len(excluded)` is the number of records read. Job ids are
    unique across `jobs` and `excluded`.
    """

    name: str
    cluster: Cluster
    jobs: tuple[Job, ...] = attrs.field(converter=_job_tuple, validator=_sorted_by_submit)
    excluded: tuple[ExcludedJob, ...] = attrs.field(
        converter=_excluded_tuple, validator=_sorted_by_submit
    )
    report: CleaningReport
    header: SWFHeader
    source: str
    processors_source: str = "argument"
    parse_report: ParseReport | None = None

    @classmethod
    def from_jobs(
        cls,
        jobs: Iterable[Job],
        processors: int,
        *,
        name: str = "workload",
        excluded: Iterable[ExcludedJob] = (),
    ) -> Workload:
        """A workload built in code (no trace): the jobs are sorted for you.

        Parameters
        ----------
        jobs
            The jobs (any order; ids unique).
        processors
            Machine size, `>= 1`.
        name
            A label.
        excluded
            Records to log as excluded, if any.

        Returns
        -------
        Workload
            With a report counting the jobs and the default policy.

        Raises
        ------
        InvalidValueError
            If `processors < 1` or two jobs share an id.

        Examples
        --------
        >>> w = Workload.from_jobs([Job(2, 5, 1, 10, 10), Job(1, 0, 2, 10, 8)], 4, name="toy")
        >>> [j.id for j in w.jobs], w.cluster
        ([1, 2], Cluster(processors=4, name='toy'))
        """
        require(processors, "processors", at_least=1)
        ordered = sorted(jobs, key=lambda j: (j.submit, j.id))
        out = sorted(excluded, key=lambda j: (j.submit, j.id))
        seen: set[int] = set()
        for job_id in itertools.chain((j.id for j in ordered), (x.id for x in out)):
            if job_id in seen:
                raise InvalidValueError("Workload.jobs", job_id, "job ids must be unique")
            seen.add(job_id)
        cancelled = sum(1 for x in out if x.state.value == "cancelled_in_log")
        report = CleaningReport(
            CleaningPolicy(),
            processors,
            len(ordered) + len(out),
            len(ordered),
            cancelled_in_log=cancelled,
        )
        return cls(name, Cluster(processors, name), ordered, out, report, SWFHeader(), name)

    @property
    def records(self) -> int:
        """Records accounted for: `len(jobs) + len(excluded)`."""
        return len(self.jobs) + len(self.excluded)

    def warnings(self) -> tuple[str, ...]:
        """What a user should know before trusting a run on this workload, one line each.

        The machine size guessed from the widest job (no header said it), and
        jobs rejected because they are wider than the machine.

        Examples
        --------
        >>> for line in load_workload(processors=64, limit=100).warnings():
        ...     print(line)
        3 jobs ask for more than the machine's 64 processors (set by --processors / processors=) and are rejected
        """  # noqa: E501
        out = []
        if self.processors_source == "largest job":
            out.append(
                f"the trace's header gives no machine size (no MaxProcs, no MaxNodes); assuming "
                f"{self.cluster.processors} processors, the widest job's request (choose with "
                f"--processors / processors=)"
            )
        if self.report.rejected_oversized:
            source = {
                "argument": "set by --processors / processors=",
                "header MaxProcs": "from the header's MaxProcs",
                "header MaxNodes": "from the header's MaxNodes",
            }.get(self.processors_source, self.processors_source)
            out.append(
                f"{self.report.rejected_oversized} jobs ask for more than the machine's "
                f"{self.cluster.processors} processors ({source}) and are rejected"
            )
        return tuple(out)

    def describe(self) -> str:
        """One line saying what this workload is, including the machine size.

        Examples
        --------
        >>> print(default_workload().describe())
        SDSC-SP2-1998-4.2-cln-first5000: 5000 records -> 4641 jobs, 359 excluded; 128 processors (header MaxProcs)
        """  # noqa: E501
        return (
            f"{self.name}: {self.records} records -> {len(self.jobs)} jobs, "
            f"{len(self.excluded)} excluded; {self.cluster.processors} processors "
            f"({self.processors_source})"
        )


def workload_name(path: str | os.PathLike[str]) -> str:
    """A trace's name: its file name without `.gz` and `.swf`.

    Examples
    --------
    >>> workload_name("/data/CTC-SP2-1996-3.1-cln.swf.gz")
    'CTC-SP2-1996-3.1-cln'
    """
    name = Path(path).name
    for suffix in (".gz", ".swf"):
        name = name.removesuffix(suffix)
    return name


def _machine_size(
    processors: int | None, header: SWFHeader, jobs: tuple[Job, ...]
) -> tuple[int, str]:
    if processors is not None:
        return processors, "argument"
    if header.max_procs is not None:
        return header.max_procs, "header MaxProcs"
    if header.max_nodes is not None:
        return header.max_nodes, "header MaxNodes"
    return max((job.procs for job in jobs), default=1), "largest job"


def load_workload(
    path: str | os.PathLike[str] | None = None,
    *,
    processors: int | None = None,
    cleaning: CleaningPolicy | None = None,
    limit: int | None = None,
    strict: bool = True,
) -> Workload:
    """Read an SWF trace and prepare it for simulation.

    Parameters
    ----------
    path
        An SWF file, plain or gzip (detected from the content). `None`: the
        embedded default, the first 5000 jobs of SDSC-SP2 (cleaned log).
    processors
        Machine size; default: the header's `MaxProcs`, else `MaxNodes`,
        else the largest job. Jobs larger than the machine are rejected.
    cleaning
        The cleaning policy; default `CleaningPolicy()` (kill at the limit,
        unknown estimates = runtime, zero runtimes = 1 s, requested
        processors falling back to allocated).
    limit
        Use only the first `limit` records of the file.
    strict
        `True` (default): a line that is not SWF raises. `False`: skip it
        (listed in `parse_report.skipped`).

    Returns
    -------
    Workload
        Jobs and excluded records, sorted by `(submit, id)`, the cluster,
        the reports and the header.

    Raises
    ------
    WorkloadFormatError
        If the file is not SWF (strict mode), its gzip data is corrupt, or it
        holds no job record and nothing says the machine size.
    InvalidValueError
        If `processors` or `limit` is not a valid count.
    OSError
        If the file cannot be opened.

    Notes
    -----
    Reads the file once, lazily; memory holds the jobs, not the lines.
    Complexity: $O(n \\log n)$ for $n$ records (the sort), linear when
    submit times are in order.

    Examples
    --------
    >>> w = load_workload(processors=64, limit=100)
    >>> (w.cluster.processors, w.records, w.report.rejected_oversized)
    (64, 100, 3)
    """
    if processors is not None:
        require(processors, "processors", at_least=1)
    # paused collector: hundreds of thousands of jobs, no cycle (see schedlib.collector)
    with paused_gc():
        if path is None:
            files = resources.files("schedlib") / "data" / DEFAULT_WORKLOAD_FILE
            with resources.as_file(files) as p:
                workload = _load(p, processors, cleaning, limit, strict)
            source = f"schedlib/data/{DEFAULT_WORKLOAD_FILE} (embedded)"
            return attrs.evolve(workload, source=source)
        return _load(Path(path), processors, cleaning, limit, strict)


class TraceStream:
    """A trace read and cleaned as a run goes: what [`stream_workload`][schedlib.workloads.workload.stream_workload] yields.

    Attributes
    ----------
    name, cluster, source, processors_source
        As in [`Workload`][schedlib.workloads.workload.Workload].
    records
        The jobs and excluded jobs, cleaned, in arrival order, read as they
        are iterated (see [`clean_in_order`][schedlib.workloads.cleaning.clean_in_order]).
    """  # noqa: E501

    def __init__(
        self, reader: Any, name: str, cluster: Cluster, processors_source: str, policy: Any
    ) -> None:
        self._reader = reader
        self._report: list[CleaningReport] = []
        self.name, self.cluster, self.processors_source = name, cluster, processors_source
        self.source = reader.source
        self.records = clean_in_order(
            reader, processors=cluster.processors, policy=policy, report=self._report
        )

    def workload(self) -> Workload:
        """The trace's description once every record was read: a `Workload` without its jobs.

        Its `report` and `parse_report` count every record; `jobs` and
        `excluded` are empty (they went to the run).

        Raises
        ------
        RuntimeError
            If the records have not all been read yet.
        """
        if not self._report:
            raise RuntimeError("the trace has not been read to its end")
        return Workload(
            name=self.name,
            cluster=self.cluster,
            jobs=(),
            excluded=(),
            report=self._report[0],
            header=self._reader.header,
            source=self.source,
            processors_source=self.processors_source,
            parse_report=self._reader.report,
        )


@contextlib.contextmanager
def stream_workload(
    path: str | os.PathLike[str] | None = None,
    *,
    processors: int | None = None,
    cleaning: CleaningPolicy | None = None,
    limit: int | None = None,
    strict: bool = True,
) -> Iterator[TraceStream]:
    """Open an SWF trace to be read and cleaned as a run goes, for runs of any length.

    The streamed form of [`load_workload`][schedlib.workloads.workload.load_workload]:
    memory holds one batch of the file, not the jobs. The trace must be in
    arrival order (`(submit, id)`, as archive traces are) and its machine size
    known in advance.

    Parameters
    ----------
    path, processors, cleaning, limit, strict
        As for `load_workload`; the cleaning follows our rules (not pyss's).

    Yields
    ------
    TraceStream
        The trace's name and cluster, and its `records` to hand to
        [`schedule_iter`][schedlib.backfill.simulation.schedule_iter]`(mixed=...)`.

    Raises
    ------
    WorkloadFormatError
        As `load_workload`; also when the header gives no machine size and
        `processors` is not given, and (during the iteration) when a record is
        out of arrival order.

    Notes
    -----
    Complexity: $O(n)$ for $n$ records, memory $O(1)$ in $n$.

    Examples
    --------
    >>> with stream_workload(limit=5) as trace:
    ...     kinds = [type(r).__name__ for r in trace.records]
    >>> trace.cluster.processors, kinds, trace.workload().report.records
    (128, ['Job', 'Job', 'Job', 'Job', 'Job'], 5)
    """
    if processors is not None:
        require(processors, "processors", at_least=1)
    with contextlib.ExitStack() as stack:
        if path is None:
            files = resources.files("schedlib") / "data" / DEFAULT_WORKLOAD_FILE
            path = stack.enter_context(resources.as_file(files))
        path = Path(path)
        reader = stack.enter_context(open_swf(path, strict=strict, limit=limit))
        size, size_source = _machine_size(processors, reader.header, ())
        if size_source == "largest job":
            raise WorkloadFormatError(
                str(path),
                None,
                "the header gives no machine size (no MaxProcs, no MaxNodes), and a trace "
                "read as it runs cannot take the widest job's: give processors= / --processors N",
            )
        name = workload_name(path)
        yield TraceStream(reader, name, Cluster(size, name), size_source, cleaning)


def _load(
    path: Path,
    processors: int | None,
    cleaning: CleaningPolicy | None,
    limit: int | None,
    strict: bool,
) -> Workload:
    with open_swf(path, strict=strict, limit=limit) as reader:
        header = reader.header
        known = processors
        if known is None:
            known = header.max_procs if header.max_procs is not None else header.max_nodes
        cleaned = clean(reader, processors=known, policy=cleaning)
        parse_report = reader.report
    if not cleaned.report.records and processors is None and known is None:
        raise WorkloadFormatError(
            str(path),
            None,
            "no job records and no machine size in the header: nothing to simulate (pass "
            "processors= / --processors N to run 0 jobs anyway)",
        )
    size, size_source = _machine_size(processors, header, cleaned.jobs)
    report = cleaned.report
    if report.processors is None:
        report = attrs.evolve(report, processors=size)
    name = workload_name(path)
    return Workload(
        name=name,
        cluster=Cluster(size, name),
        jobs=cleaned.jobs,
        excluded=cleaned.excluded,
        report=report,
        header=header,
        source=str(path),
        processors_source=size_source,
        parse_report=parse_report,
    )


@functools.cache
def default_workload() -> Workload:
    """The embedded default workload: the first 5000 job records of SDSC-SP2.

    The slice of `SDSC-SP2-1998-4.2-cln.swf.gz` (Parallel Workloads Archive)
    ships in `schedlib/data/` with its provenance (`PROVENANCE.md`); it is
    cleaned with the default policy on its header's 128 processors. The
    result is immutable, so it is built once and shared.

    Returns
    -------
    Workload
        The default workload.

    Examples
    --------
    >>> default_workload().name
    'SDSC-SP2-1998-4.2-cln-first5000'
    """
    return load_workload()
