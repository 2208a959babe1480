"""The report's claims, each an estimate over the replicates of the comparison.

[`claims`][schedlib.experiments.frequency.claims] states them in the report's order: the
baselines, then the three tests of the hypothesis; one claim each, measured under the
default reading (next bursts on the head node, every job sent migrated, moves to a more
available node: the paper's count, and the Holm family) and under every other reading that
ran, in its own column.

**Readings said once.** Readings whose runs are identical in every replicate (the same
schedule digest for PFS+MFS and for PFS; e.g. two MFS readings under which no job ever
moves between remote nodes) are one column, named by all of them
([`reading_groups`][schedlib.experiments.frequency.reading_groups]); a reading identical to
the default is no column at all (the data line names it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from schedlib.experiments.claims import Claim, expectation
from schedlib.experiments.frequency.runs import _STATIC, _change, _label, _without_mfs
from schedlib.experiments.frequency.setup import HYPOTHESIS, SHORT_BURST, WORD_OF
from schedlib.frequency.policies import Readings
from schedlib.results.verdicts import Measured

QUICK_DIFFERS: dict[str, str] = {}
"""Claims whose `--quick` verdict differs from the documented full-size one (key -> why)."""

SAME = " = "
"""Joins the readings of one column (readings whose runs are identical)."""


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
        f"synthetic pool workload (interactive and CPU-bound jobs on the 7-node pool), "
        f"{count} replicates of seed {first['seed']}; Q = {first['quantum']:g} s, "
        f"MAX_MF = {first['max_mf']}"
    )


def reading_groups(rows: Sequence[Mapping[str, Any]]) -> list[list[str]]:
    """The readings of `pfs+mfs` that ran, grouped by identical runs, the default's group first.

    Two readings are one group when, in every replicate, PFS+MFS made the same schedule
    under both and so did PFS (the rows' `schedule` digests): every claim measures the
    same under both, so they are said once.

    Examples
    --------
    >>> rows = [{"part": "compare", "policy": p, "readings": label, "replicate": 0,
    ...          "schedule": digest}
    ...         for p, label, digest in [("pfs", "head-node/always/-", "p"),
    ...                                  ("pfs+mfs", "head-node/always/availability", "a"),
    ...                                  ("pfs+mfs", "head-node/always/local-mf", "b"),
    ...                                  ("pfs", "head-node/literal/-", "q"),
    ...                                  ("pfs+mfs", "head-node/literal/availability", "c"),
    ...                                  ("pfs+mfs", "head-node/literal/local-mf", "c")]]
    >>> reading_groups(rows)
    [['head-node/always/availability'], ['head-node/always/local-mf'], \
['head-node/literal/availability', 'head-node/literal/local-mf']]
    """
    runs = _per_replicate(rows)
    present = [r.label for r in Readings.every() if ("pfs+mfs", r.label) in runs]
    default = Readings().label
    present.sort(key=lambda label: label != default)
    groups: dict[tuple[Any, ...], list[str]] = {}
    for label in present:
        mine = runs[("pfs+mfs", label)]
        pfs = runs.get(("pfs", _label("pfs", _without_mfs(Readings.from_label(label)))), {})
        signature: tuple[Any, ...] = tuple(
            (r, mine[r].get("schedule"), pfs.get(r, {}).get("schedule")) for r in sorted(mine)
        )
        if any(part is None for _, *parts in signature for part in parts):
            signature = (label,)  # no digest: not known to be identical to any other
        groups.setdefault(signature, []).append(label)
    return list(groups.values())


def claims(rows: Sequence[Mapping[str, Any]]) -> list[Claim]:
    """The report's claims, each an estimate over the replicates of the comparison.

    1. `pfs-interactive-vs-batch` (the report's "Baseline schedulers" and its
       table: batch schedulers have "no support for interactive jobs"; the MF
       scheduler supports them): PFS's short-burst response against `fcfs`
       (static placement, run to completion), expected "much" shorter.
    2. `pfs-interactive-vs-round-robin` (ours): against plain time-slicing.
    3. The three tests of [`HYPOTHESIS`][schedlib.experiments.frequency.HYPOTHESIS]:
       `mfs-cpu`, `mfs-response`, `mfs-short`.

    Each is measured under the default reading (the paper's count, and the Holm family)
    and under each other group of readings of
    [`reading_groups`][schedlib.experiments.frequency.reading_groups]
    ([`Claim.readings`][schedlib.experiments.claims.Claim]; the PFS claims under each
    reading's next-burst and remote-queue reading, PFS having no MFS). PFS+MFS and PFS
    that made the same schedule in every replicate are a tie. `claims([])` gives every
    claim, `not run`.

    Examples
    --------
    >>> [c.key for c in claims([])]
    ['pfs-interactive-vs-batch', 'pfs-interactive-vs-round-robin', 'mfs-cpu', 'mfs-response', \
'mfs-short']
    """
    runs = _per_replicate(rows)
    groups = reading_groups(rows)
    default = Readings().label
    if groups and default not in groups[0]:
        default = groups[0][0]
    others = [group for group in groups if default not in group]
    same = next((g for g in groups if default in g), [default])
    data = _context(rows)
    if len(same) > 1:
        data += f"; readings {', '.join(x for x in same if x != default)} run as the default"

    def change(policy: str, readings: str, other: str, other_readings: str, column: str) -> Any:
        mine, theirs = runs.get((policy, readings), {}), runs.get((other, other_readings), {})
        common = sorted(set(mine) & set(theirs))
        if not common:
            return None
        return _change([mine[r] for r in common], [theirs[r] for r in common], column)

    def pfs_against(baseline: str, label: str) -> Measured:
        pfs = _label("pfs", _without_mfs(Readings.from_label(label)))
        return change("pfs", pfs, baseline, _STATIC, "short_response")  # type: ignore[no-any-return]

    def mfs(column: str, label: str) -> Measured:
        pfs = _label("pfs", _without_mfs(Readings.from_label(label)))
        return change("pfs+mfs", label, "pfs", pfs, column)  # type: ignore[no-any-return]

    def readings(measure: Any) -> list[tuple[str, Measured]]:
        return [(SAME.join(group), measure(group[0])) for group in others]

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
            expectation("much"),
            pfs_against("fcfs", default),
            word="much",
            readings=readings(lambda label: pfs_against("fcfs", label)),
        ),
        Claim(
            "pfs-interactive-vs-round-robin",
            "PFS, serving unpreempted jobs first, answers short interactive bursts faster than "
            "plain round robin",
            data,
            f"pfs minus round_robin (static placement, time-sliced), {short}, % of round_robin, "
            "paired per replicate",
            expectation("better"),
            pfs_against("round_robin", default),
            origin="ours",
            word="better",
            readings=readings(lambda label: pfs_against("round_robin", label)),
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
    for key, column, what, expect in HYPOTHESIS:
        out.append(
            Claim(
                f"mfs-{key}",
                texts[key],
                data,
                f"pfs+mfs minus pfs, {what}, % of pfs, paired per replicate",
                expect,
                mfs(column, default),
                word=WORD_OF[key],
                readings=readings(lambda label, column=column: mfs(column, label)),
            )
        )
    return out
