"""The report's claims, each an estimate over the replicates of the comparison.

[`claims`][schedlib.experiments.frequency.claims] states them in the report's
order: the baselines, then the three tests of the hypothesis under each reading.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from schedlib.experiments.claims import Claim
from schedlib.experiments.frequency.runs import _STATIC, _change, _label, _without_mfs
from schedlib.experiments.frequency.setup import HYPOTHESIS, SHORT_BURST
from schedlib.frequency.policies import Readings
from schedlib.results.verdicts import (
    Expect,
)

QUICK_DIFFERS: dict[str, str] = {
    "mfs-response/head-node/always/availability": "power: with 15 replicates the interval "
    "of a change near 0 is wider than the equivalence margin; 40 narrow it inside",
    "mfs-short/last-node/always/local-mf": "power: a harm just above the margin is told apart "
    "from it only by the 40 replicates of the full run",
    "mfs-short/last-node/literal/availability": "power: a change just inside the margin is "
    "told apart from it only by the 40 replicates of the full run",
}
"""Claims whose `--quick` verdict differs from the documented full-size one (key -> why)."""


def _per_replicate(rows: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str], dict[int, Any]]:
    found: dict[tuple[str, str], dict[int, Any]] = {}
    for r in rows:
        if r.get("part") == "compare" and isinstance(r.get("replicate"), int):
            found.setdefault((r["policy"], r["readings"]), {})[r["replicate"]] = r
    return found


def _context(rows: Sequence[Mapping[str, Any]]) -> str:
    compare = [r for r in rows if r.get("part") == "compare" and isinstance(r["replicate"], int)]
    if not compare:
        return "synthetic pool workload (not run)"
    count = len({r["replicate"] for r in compare})
    first = compare[0]
    return (
        f"synthetic pool workload (make_workload), {count} replicates of seed {first['seed']}; "
        f"Q = {first['quantum']:g} s, MAX_MF = {first['max_mf']}"
    )


def claims(rows: Sequence[Mapping[str, Any]]) -> list[Claim]:
    """The report's claims, each an estimate over the replicates of the comparison.

    1. `pfs-interactive-vs-batch` (the report's "Baseline schedulers" and its
       table: batch schedulers have "no support for interactive jobs"; the MF
       scheduler supports them): PFS's short-burst response against `fcfs`
       (static placement, run to completion), expected at most half of it.
    2. `pfs-interactive-vs-round-robin` (ours): against plain time-slicing.
    3. For each reading $R$ (the hypothesis, and its conclusion): the three
       tests of [`HYPOTHESIS`][schedlib.experiments.frequency.HYPOTHESIS],
       `mfs-cpu/R`, `mfs-response/R`, `mfs-short/R`.

    `claims([])` gives every claim, `not run`.

    Examples
    --------
    >>> [c.key for c in claims([])][:4]
    ['pfs-interactive-vs-batch', 'pfs-interactive-vs-round-robin', \
'mfs-cpu/head-node/always/availability', 'mfs-response/head-node/always/availability']
    """
    runs = _per_replicate(rows)
    data = _context(rows)

    def change(policy: str, readings: str, other: str, other_readings: str, column: str) -> Any:
        mine, theirs = runs.get((policy, readings), {}), runs.get((other, other_readings), {})
        common = sorted(set(mine) & set(theirs))
        if not common:
            return None
        return _change([mine[r] for r in common], [theirs[r] for r in common], column)

    pfs = _label("pfs", Readings())
    short = f"mean response of the interactive bursts of at most {SHORT_BURST:g} s of work"
    out = [
        Claim(
            "pfs-interactive-vs-batch",
            "batch schedulers (Condor, OpenPBS) have 'no support for interactive jobs'; the MF "
            "scheduler supports them ('Baseline schedulers'; 'Table comparing related "
            "schedulers')",
            data,
            f"pfs minus fcfs (static placement, run to completion), {short}, % of fcfs, "
            "paired per replicate",
            Expect.below(-50.0),
            change("pfs", pfs, "fcfs", _STATIC, "short_response"),
        ),
        Claim(
            "pfs-interactive-vs-round-robin",
            "PFS, serving unpreempted jobs first, answers short interactive bursts faster than "
            "plain round robin",
            data,
            f"pfs minus round_robin (static placement, time-sliced), {short}, % of round_robin, "
            "paired per replicate",
            Expect.below(0.0),
            change("pfs", pfs, "round_robin", _STATIC, "short_response"),
            origin="ours",
        ),
    ]
    texts = {
        "cpu": "scheduling the CPU-intensive jobs by their migration frequency 'would improve "
        "their overall runtime efficiency' (Hypothesis)",
        "response": "interactive jobs 'are relatively unaffected by the migration frequency "
        "based scheduling' (Conclusion)",
        "short": "the low-CPU bursts of interactive jobs are 'relatively unaffected' "
        "(Conclusion: 'the interactive (low CPU-bursts) jobs')",
    }
    for read in Readings.every():
        for key, column, what, expect in HYPOTHESIS:
            out.append(
                Claim(
                    f"mfs-{key}/{read.label}",
                    f"{texts[key]}; reading {read.label}",
                    data,
                    f"pfs+mfs minus pfs, {what}, % of pfs, paired per replicate",
                    expect,
                    change(
                        "pfs+mfs",
                        read.label,
                        "pfs",
                        _label("pfs", _without_mfs(read)),
                        column,
                    ),
                )
            )
    return out
