"""Every real trace in ../shared/traces parses in the default (strict) mode and is cleaned
with every record accounted for.

Each trace is read once, lazily: the records stream through a counter of the traces
README's "traps" columns into the cleaning policy, so no test holds a whole log of
records. The expected numbers come from the traces README (job counts, header sizes,
traps) and, for the cleaning reports, were pinned from this implementation after being
reconciled with those columns (see docs/workloads.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from schedlib.model import FinalState
from schedlib.workloads import (
    STANDARD_STATUSES,
    CleaningPolicy,
    SWFRecord,
    clean,
    load_workload,
    open_swf,
)

# name: (records, MaxNodes, MaxProcs, warnings, cleaning report counts that are not 0)
EXPECTED: dict[str, tuple[int, int, int, dict[str, int], dict[str, int]]] = {
    "CEA-Curie-2011-2.1-cln": (312826, 5544, 93312, {}, {
        "cancelled_in_log": 14730, "rejected_unknown_procs": 4, "procs_fallback": 80106,
        "zero_runtime": 2552, "over_limit": 5416, "cancelled_while_running": 2756}),
    "CTC-SP2-1996-3.1-cln": (77222, 338, 338, {}, {
        "procs_fallback": 77222, "requested_time_from_runtime": 6, "zero_runtime": 17,
        "over_limit": 7174}),
    "HPC2N-2002-2.2-cln": (202871, 240, 240, {}, {"over_limit": 14817}),
    "KTH-SP2-1996-2.1-cln": (28476, 100, 100, {}, {
        "rejected_unknown_procs": 1, "zero_runtime": 8, "over_limit": 475}),
    "LANL-CM5-1994-4.1-cln": (122060, 1024, 1024, {}, {
        "rejected_unknown_procs": 3, "procs_fallback": 11326,
        "requested_time_from_runtime": 11287, "zero_runtime": 2, "over_limit": 40180}),
    "LLNL-Atlas-2006-2.1-cln": (43778, 1152, 9216, {}, {
        "cancelled_in_log": 4601, "rejected_unknown_procs": 38,
        "requested_time_from_runtime": 6275, "zero_runtime": 2539, "over_limit": 3351,
        "cancelled_while_running": 6831}),
    "LLNL-Thunder-2007-1.1-cln": (121039, 1002, 4008, {"unknown_submit": 1190}, {
        "cancelled_in_log": 172, "rejected_unknown_submit": 1190,
        "rejected_unknown_procs": 923, "procs_fallback": 4,
        "requested_time_from_runtime": 80198, "zero_runtime": 5141, "over_limit": 1101,
        "cancelled_while_running": 7849}),
    "NASA-iPSC-1993-3.1-cln": (18239, 128, 128, {}, {
        "procs_fallback": 18239, "requested_time_from_runtime": 18239, "zero_runtime": 173}),
    "OSC-Clust-2000-3.1-cln": (36097, 57, 178, {}, {
        "requested_time_from_runtime": 36097, "zero_runtime": 505}),
    "SDSC-BLUE-2000-4.2-cln": (243306, 144, 1152, {}, {
        "cancelled_in_log": 10764, "rejected_unknown_runtime": 2, "zero_runtime": 4,
        "over_limit": 23434, "cancelled_while_running": 36954}),
    "SDSC-DS-2004-2.1-cln": (96069, 184, 1664, {}, {
        "cancelled_in_log": 11094, "rejected_unknown_runtime": 6, "zero_runtime": 76,
        "over_limit": 10658, "cancelled_while_running": 18225}),
    "SDSC-Par-1996-3.1-cln": (32135, 400, 400, {}, {
        "procs_fallback": 32135, "requested_time_from_runtime": 32135, "zero_runtime": 7}),
    "SDSC-SP2-1998-4.2-cln": (59715, 128, 128, {}, {
        "cancelled_in_log": 5681, "requested_time_from_runtime": 35, "over_limit": 4134,
        "cancelled_while_running": 10917}),
    "Sandia-Ross-2001-1.1-cln": (57882, 1524, 1524, {"header": 3, "status": 1562}, {
        "cancelled_in_log": 1, "rejected_unknown_procs": 15,
        "requested_time_from_runtime": 338, "zero_runtime": 2271, "over_limit": 3686,
        "cancelled_while_running": 2}),
}  # fmt: skip

# The traces README's "traps" table: runtime <= 0, allocated procs <= 0, requested
# procs <= 0, requested time <= 0, runtime > requested time (> 0).
TRAPS = {
    "CTC-SP2-1996-3.1-cln": (17, 0, 77222, 6, 7174),
    "SDSC-SP2-1998-4.2-cln": (5681, 5669, 0, 66, 4134),
    "KTH-SP2-1996-2.1-cln": (8, 1, 1, 0, 475),
    "LANL-CM5-1994-4.1-cln": (2, 3, 11329, 11290, 40180),
    "SDSC-BLUE-2000-4.2-cln": (10770, 19516, 0, 0, 23434),
    "HPC2N-2002-2.2-cln": (0, 0, 0, 0, 14817),
}

LARGE = 100_000  # traces with more records are marked slow (they still run in CI)


def trace_params() -> list[object]:
    return [
        pytest.param(name, marks=[pytest.mark.slow] if records > LARGE else [], id=name)
        for name, (records, *_) in EXPECTED.items()
    ]


class Tally:
    """Counts taken while the records stream past (one pass per trace)."""

    def __init__(self) -> None:
        self.traps = [0, 0, 0, 0, 0]  # the README's trap columns
        self.steps_back = 0  # submit earlier than the previous record's (raw, -1 included)
        self.unknown_runs = 0  # runs of consecutive records with submit -1
        self.odd_statuses: list[int] = []  # statuses outside STANDARD_STATUSES

    def through(self, records: Iterator[SWFRecord]) -> Iterator[SWFRecord]:
        traps, standard, odd = self.traps, STANDARD_STATUSES, self.odd_statuses
        previous, previous_unknown = 0, False
        for r in records:
            runtime, requested = r.runtime, r.requested_time
            traps[0] += runtime <= 0
            traps[1] += r.allocated_procs <= 0
            traps[2] += r.requested_procs <= 0
            traps[3] += requested <= 0
            traps[4] += 0 < requested < runtime
            submit = r.submit
            if submit < previous:
                self.steps_back += 1
            unknown = submit == -1
            if unknown and not previous_unknown:
                self.unknown_runs += 1
            previous, previous_unknown = submit, unknown
            if r.status not in standard:
                odd.append(r.status)
            yield r


def test_every_trace_in_the_folder_is_covered(traces_dir: Path) -> None:
    on_disk = sorted(p.name.removesuffix(".swf.gz") for p in traces_dir.glob("*.swf.gz"))
    assert on_disk == sorted(EXPECTED)


@pytest.mark.parametrize("name", trace_params())
def test_trace_parses_strictly_and_every_record_is_accounted(traces_dir: Path, name: str) -> None:
    records, max_nodes, max_procs, warnings, counts = EXPECTED[name]
    tally = Tally()
    with open_swf(traces_dir / f"{name}.swf.gz") as reader:
        header = reader.header
        assert (header.max_nodes, header.max_procs) == (max_nodes, max_procs)
        result = clean(tally.through(iter(reader)), processors=header.max_procs)
        parsed = reader.report
    # parsing: every line is a record, only the documented warnings
    assert parsed.records == records and parsed.skipped == ()
    assert dict(parsed.warning_counts) == warnings
    if name in TRAPS:
        assert tuple(tally.traps) == TRAPS[name]
    # The README's 808 places where LLNL-Thunder's submit time steps back are all
    # records with submit -1 (1190 records in 808 runs); known submit times are in order.
    expected_steps = 808 if name == "LLNL-Thunder-2007-1.1-cln" else 0
    assert tally.steps_back == tally.unknown_runs == expected_steps
    # Non-standard statuses are warnings, never errors (Sandia-Ross: -4, -4, -2, 265, ...)
    assert parsed.warning_count("status") == len(tally.odd_statuses)
    negative = [status for status in tally.odd_statuses if status < 0]
    assert negative == ([-4, -4, -2] if name == "Sandia-Ross-2001-1.1-cln" else [])
    # cleaning: nothing dropped, counts as pinned
    report = result.report
    assert len(result.jobs) + len(result.excluded) == records == report.records
    assert report.jobs == len(result.jobs) and report.excluded == len(result.excluded)
    nonzero = {
        key: value
        for key, value in report.as_dict().items()
        if value
        and key not in {"processors", "records", "jobs", "rejected", "excluded"}
        and not key.startswith("policy_")
    }
    assert nonzero == counts
    assert report.cancelled_in_log == sum(
        x.state is FinalState.CANCELLED_IN_LOG for x in result.excluded
    )
    keys = [(j.submit, j.id) for j in result.jobs]
    assert keys == sorted(keys)
    assert max(j.procs for j in result.jobs) <= max_procs


def test_ctc_sp2_size_is_stated_and_can_be_overridden(traces_dir: Path) -> None:
    path = traces_dir / "CTC-SP2-1996-3.1-cln.swf.gz"
    header_size = load_workload(path, limit=2000)
    assert (header_size.cluster.processors, header_size.processors_source) == (
        338,
        "header MaxProcs",
    )
    paper_size = load_workload(path, processors=430, limit=2000)
    assert (paper_size.cluster.processors, paper_size.processors_source) == (430, "argument")
    assert header_size.jobs == paper_size.jobs  # every job fits either size
    assert header_size.header.max_nodes == 338  # "338 (batch partition; 512 total)"


def test_load_workload_matches_the_streaming_pipeline(traces_dir: Path) -> None:
    path = traces_dir / "KTH-SP2-1996-2.1-cln.swf.gz"
    w = load_workload(path, cleaning=CleaningPolicy(over_limit="extend"), limit=5000)
    with open_swf(path, limit=5000) as reader:
        result = clean(reader, processors=100, policy=CleaningPolicy(over_limit="extend"))
    assert (w.jobs, w.excluded, w.report) == (result.jobs, result.excluded, result.report)
    assert w.name == "KTH-SP2-1996-2.1-cln" and w.source == str(path)
