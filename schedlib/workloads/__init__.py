"""Workloads: Standard Workload Format traces, read, cleaned, ready to simulate.

Two layers, kept apart:

- **parsing** ([`schedlib.workloads.swf`][schedlib.workloads.swf]): read and
  write SWF files (plain or gzip), reject what is not SWF, report warnings;
  records stay as the file says;
- **cleaning** ([`schedlib.workloads.cleaning`][schedlib.workloads.cleaning]):
  an explicit policy turns records into simulated jobs or excluded ones,
  counting every change;

and [`load_workload`][schedlib.workloads.workload.load_workload] /
[`default_workload`][schedlib.workloads.workload.default_workload]
([`schedlib.workloads.workload`][schedlib.workloads.workload]) put them
together with a machine size. See the Workloads page of the documentation.

Examples
--------
>>> from schedlib.workloads import CleaningPolicy, load_workload
>>> w = load_workload(cleaning=CleaningPolicy(over_limit="extend"), limit=1000)
>>> w.name, w.cluster.processors, len(w.jobs), w.report.over_limit
('SDSC-SP2-1998-4.2-cln-first5000', 128, 939, 53)
"""

from schedlib.workloads.cleaning import (
    CleanedJobs,
    CleaningPolicy,
    CleaningReport,
    ExcludedJob,
    clean,
    clean_in_order,
)
from schedlib.workloads.swf import (
    FIELDS,
    STANDARD_STATUSES,
    ParseIssue,
    ParseReport,
    SWFField,
    SWFHeader,
    SWFReader,
    SWFRecord,
    SWFTrace,
    format_record,
    iter_swf,
    open_swf,
    read_swf,
    write_swf,
)
from schedlib.workloads.workload import (
    DEFAULT_WORKLOAD_FILE,
    DEFAULT_WORKLOAD_JOBS,
    TraceStream,
    Workload,
    default_workload,
    load_workload,
    stream_workload,
    workload_name,
)

__all__ = [
    "DEFAULT_WORKLOAD_FILE",
    "DEFAULT_WORKLOAD_JOBS",
    "FIELDS",
    "STANDARD_STATUSES",
    "CleanedJobs",
    "CleaningPolicy",
    "CleaningReport",
    "ExcludedJob",
    "ParseIssue",
    "ParseReport",
    "SWFField",
    "SWFHeader",
    "SWFReader",
    "SWFRecord",
    "SWFTrace",
    "TraceStream",
    "Workload",
    "clean",
    "clean_in_order",
    "default_workload",
    "format_record",
    "iter_swf",
    "load_workload",
    "open_swf",
    "read_swf",
    "stream_workload",
    "workload_name",
    "write_swf",
]
