"""The findings of Balasubramanian et al. (2013) §6.1, §6.2 and §7, each a claim on the rows.

[`claims`][schedlib.experiments.preemptive.claims] checks them in the paper's
order, paired per replicate, with the margins the paper's words give (see its
docstring); [`untestable`][schedlib.experiments.preemptive.untestable] says where a
comparison of two medians that are both 0 tells nothing.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs

from schedlib.experiments.claims import Claim
from schedlib.experiments.preemptive.runs import _mean
from schedlib.experiments.preemptive.setup import (
    CAN,
    FCFS,
    LOCAL,
    NN,
    PAPER_NODES,
    SIDE_ALPHAS,
    SIDE_DELTA,
)
from schedlib.results.verdicts import Estimate, Expect, MeanEstimate

Index = dict[tuple[str, float, float, float], dict[int, Mapping[str, Any]]]
"""(scheduler, paper IAT, delta, alpha) -> replicate -> row."""
Config = tuple[str, float, float]
"""A configuration the claims compare: (scheduler label, delta, alpha)."""
SHORT = {FCFS: "FCFS", LOCAL: "local", NN: "2-NN", CAN: "CAN'"}


def _index(rows: Iterable[Mapping[str, Any]]) -> Index:
    out: Index = {}
    for row in rows:
        if row.get("study") == "victims":
            continue
        key = (row["scheduler"], round(row["paper_iat"], 6), row["delta"], row["alpha"])
        out.setdefault(key, {})[row["replicate"]] = row
    return out


def _rel(a: float, b: float) -> float:
    """`a` against `b` in percent of the larger (of `b` when `a < b`); 0 when both are 0.

    Examples
    --------
    >>> _rel(50.0, 100.0), _rel(100.0, 50.0), _rel(0.0, 0.0)
    (-50.0, 50.0, 0.0)
    """
    top = max(abs(a), abs(b))
    return 0.0 if top == 0 else 100.0 * (a - b) / top


def _zero_rule(field: str) -> bool:
    """Whether a comparison of `field` says nothing when both values are 0 (a median)."""
    return field.startswith(("median", "tail10"))


@attrs.frozen
class _Pair:
    """`a` against `b` on one field, at one IAT (`b` at `iat_b` if given)."""

    iat: float
    a: Config
    b: Config
    field: str
    iat_b: float | None = None

    def names(self) -> tuple[str, str]:
        if self.iat_b is not None:
            return (f"IAT {self.iat:g}", f"IAT {self.iat_b:g}")
        parts: list[list[str]] = [[], []]
        for k, (x, y) in enumerate(zip(self.a, self.b, strict=True)):
            if x != y or (k == 0 and self.a == self.b):
                shown = [SHORT.get(str(x), str(x)), SHORT.get(str(y), str(y))]
                if k == 1:
                    shown = [f"delta {x:g}", f"delta {y:g}"]
                elif k == 2:
                    shown = [f"alpha {x:g}", f"alpha {y:g}"]
                parts[0].append(shown[0])
                parts[1].append(shown[1])
        if self.a[0] == self.b[0] and self.a != self.b:
            parts[0].insert(0, SHORT.get(self.a[0], self.a[0]))
        return (" ".join(parts[0]), " ".join(parts[1]))


def _values(index: Index, iat: float, config: Config, field: str) -> dict[int, float]:
    found = index.get((config[0], round(iat, 6), config[1], config[2]), {})
    return {r: row[field] for r, row in found.items() if row.get(field) is not None}


def _fmt(x: float) -> str:
    return f"{x:.3g}" if abs(x) < 1000 else f"{x:.0f}"


@attrs.frozen
class _Compared:
    """The pairs a claim compares, with their values in the replicates common to all.

    A median pair whose two values are both 0 in a replicate says nothing there
    (more than half the jobs never waited under either): it is left out of that
    replicate. An IAT whose every pair is so in every replicate is *untestable*.
    """

    pairs: tuple[tuple[_Pair, dict[int, float], dict[int, float]], ...]
    replicates: tuple[int, ...]
    untestable: tuple[float, ...]
    dropped: int

    def at(self, r: int) -> list[tuple[_Pair, float, float]]:
        return [
            (p, a[r], b[r])
            for p, a, b in self.pairs
            if not (_zero_rule(p.field) and a[r] == 0 and b[r] == 0)
        ]

    def estimate(
        self,
        statistic: Callable[[Sequence[float]], float],
        per_pair: Callable[[float, float], float] = _rel,
        unit: str = "%",
    ) -> Estimate | None:
        """Per replicate, `statistic` of `per_pair(a, b)` over its testable pairs."""
        values = []
        for r in self.replicates:
            found = [per_pair(a, b) for _, a, b in self.at(r)]
            if found:
                values.append(statistic(found))
        return MeanEstimate(tuple(values), unit=unit) if values else None

    def shown(self) -> str:
        parts = []
        several = len({p.field for p, _, _ in self.pairs}) > 1
        for p, a, b in self.pairs:
            name_a, name_b = p.names()
            mean_a = _mean([a[r] for r in self.replicates])
            mean_b = _mean([b[r] for r in self.replicates])
            where = "" if p.iat_b is not None else f"IAT {p.iat:g}: "
            field = f"{p.field.split('_')[0]} " if several else ""
            parts.append(f"{where}{field}{name_a} {_fmt(mean_a)} vs {name_b} {_fmt(mean_b)}")
        if parts:
            parts[-1] += " (means over replicates)"
        if self.untestable:
            where = ", ".join(f"{i:g}" for i in self.untestable)
            parts.append(f"untestable at IAT {where} (medians 0 in every replicate)")
        if self.dropped:
            parts.append(f"{self.dropped} comparisons of two zero medians left out")
        return "; ".join(parts)


def _compare(index: Index, pairs: Sequence[_Pair]) -> _Compared:
    """Collect each pair's values in the replicates every pair has."""
    found = []
    for p in pairs:
        a = _values(index, p.iat, p.a, p.field)
        b = _values(index, p.iat if p.iat_b is None else p.iat_b, p.b, p.field)
        if a and b:
            found.append((p, a, b))
    common = sorted(set.intersection(*(set(a) & set(b) for _, a, b in found))) if found else []
    silent = {
        id(p)
        for p, a, b in found
        if _zero_rule(p.field) and all(a[r] == 0 and b[r] == 0 for r in common)
    }
    kept = tuple((p, a, b) for p, a, b in found if id(p) not in silent)
    iats = {p.iat for p, _, _ in found}
    untestable = tuple(sorted(i for i in iats if all(p.iat != i for p, _, _ in kept)))
    dropped = sum(
        1 for p, a, b in kept for r in common if _zero_rule(p.field) and a[r] == 0 and b[r] == 0
    )
    return _Compared(kept, tuple(common), untestable, dropped)


def _data(rows: Sequence[Mapping[str, Any]], what: str) -> str:
    if not rows:
        return f"synthetic grid and jobs (§6.1); {what}"
    first = rows[0]
    replicates = len({r["replicate"] for r in rows})
    scale = "" if first["nodes"] == PAPER_NODES else " (IATs at the paper's scale)"
    return (
        f"synthetic, {first['nodes']} nodes × {first['jobs']} jobs, {replicates} replicates "
        f"of seed {first['seed']}{scale}; {what}"
    )


def _farthest(values: Sequence[float]) -> float:
    """The value farthest from 1 by ratio ($|\\ln x|$ largest; a 0 is the farthest).

    Examples
    --------
    >>> _farthest([0.5, 1.8]), _farthest([0.5, 2.2]), _farthest([0.0, 9.0])
    (0.5, 2.2, 0.0)
    """
    return max(values, key=lambda x: math.inf if x <= 0 else abs(math.log(x)))


def _ratio(a: float, b: float) -> float:
    """`a / b`, capped at 1000 (1000 when only `b` is 0, 1 when both are)."""
    if b == 0:
        return 1000.0 if a else 1.0
    return min(1000.0, a / b)


def _checked(rows: Sequence[Mapping[str, Any]]) -> list[tuple[Claim, tuple[float, ...]]]:
    """Every claim, with the IATs where it is untestable (see `claims`)."""
    index = _index(rows)
    used = [r for r in rows if r.get("study") != "victims"]
    iats = sorted({key[1] for key in index})
    preemptive = (LOCAL, NN, CAN)
    out: list[tuple[Claim, tuple[float, ...]]] = []

    def add(
        key: str,
        text: str,
        what: str,
        measure: str,
        expect: Expect,
        compared: _Compared | None,
        estimate: Estimate | None,
        ours: str | None = None,
        origin: str = "paper",
    ) -> None:
        shown = ours if ours is not None else (compared.shown() if compared else "")
        claim = Claim(key, text, _data(used, what), measure, expect, estimate, shown, origin)
        out.append((claim, compared.untestable if compared else ()))

    def over_iats(a: Config, b: Config, field: str, at: Iterable[float] = ()) -> list[_Pair]:
        return [_Pair(i, a, b, field) for i in (tuple(at) or iats)]

    # §6.1: steady state
    compared = _compare(index, over_iats((FCFS, 5.0, 0.0), (FCFS, 5.0, 0.0), "load"))
    loads = ", ".join(f"IAT {p.iat:g}: {_mean(list(a.values())):.2f}" for p, a, _ in compared.pairs)
    add(
        "steady-state",
        "the runs are in a steady state: job arrival and departure rates are similar, the "
        "system neither highly overloaded nor underutilized (§6.1)",
        "offered load at every IAT",
        "offered load (work arriving over capacity) at the IAT where it is farthest from 1, "
        "per replicate",
        Expect.between(0.8, 1.25),
        compared,
        compared.estimate(_farthest, lambda a, b: a, unit=""),
        f"offered load {loads}" if loads else "",
    )

    # Fig. 3 and §7 against FCFS
    compared = _compare(index, over_iats((LOCAL, 5.0, 0.0), (FCFS, 5.0, 0.0), "median_node_wait"))
    add(
        "local-beats-fcfs-median",
        "local preemptive scheduling gives significantly lower (median) wait times than FCFS "
        "with backfilling, for all inter-arrival times (§6.2, Fig. 3)",
        "delta 5 s, alpha 0, every IAT",
        "local minus FCFS median node wait, % of the larger, worst IAT per replicate",
        Expect.below(-10.0),
        compared,
        compared.estimate(max),
    )
    compared = _compare(
        index,
        [
            p
            for s in preemptive
            for p in over_iats((s, 5.0, 0.0), (FCFS, 5.0, 0.0), "mean_node_wait")
        ],
    )
    add(
        "preemptive-lower-mean-than-fcfs",
        "the preemptive algorithm yields lower average wait times than FCFS (§7)",
        "delta 5 s, alpha 0, every IAT; local, 2-NN and CAN'",
        "preemptive minus FCFS mean node wait, % of the larger, worst scheduler and IAT per "
        "replicate",
        Expect.below(0.0),
        compared,
        compared.estimate(max),
    )

    # Fig. 3: internode against local
    for key, field, words, origin in (
        ("internode-beats-local-median", "median_node_wait", "node wait (the paper's)", "paper"),
        ("internode-beats-local-median-total", "median_wait", "total wait", "ours"),
    ):
        compared = _compare(
            index,
            [p for s in (NN, CAN) for p in over_iats((s, 5.0, 0.0), (LOCAL, 5.0, 0.0), field)],
        )
        text = (
            "internode scheduling (2-NN and CAN') gives significantly lower median wait times "
            "than local preemptive scheduling (§6.2, Fig. 3)"
        )
        if origin == "ours":
            text += ", measured on the total wait (from submission, so including the time "
            text += "queued before a migration)"
        add(
            key,
            text,
            f"delta 5 s, alpha 0, every IAT; {words}",
            f"internode minus local median {words}, % of the larger, worst topology and IAT "
            "per replicate",
            Expect.below(-10.0),
            compared,
            compared.estimate(max),
            origin=origin,
        )

    # Fig. 3: the gap between CAN' and 2-NN grows with the IAT
    compared = _compare(index, over_iats((NN, 5.0, 0.0), (CAN, 5.0, 0.0), "median_node_wait"))
    gaps = []
    for r in compared.replicates:
        low = [_rel(a, b) for p, a, b in compared.at(r) if p.iat <= 2.0]
        high = [_rel(a, b) for p, a, b in compared.at(r) if p.iat > 2.0]
        if low and high:
            gaps.append(_mean(high) - _mean(low))
    add(
        "can-2nn-gap-grows",
        "the difference in wait times between CAN' and 2-NN is low at IAT 1.5 and 2.0 and "
        "increases with the inter-arrival time (§6.2, Fig. 3)",
        "delta 5 s, alpha 0, every IAT",
        "2-NN minus CAN' median node wait, % of the larger: mean over IAT > 2 minus mean over "
        "IAT <= 2, per replicate",
        Expect.above(0.0),
        compared,
        MeanEstimate(tuple(gaps), unit="points") if gaps else None,
    )

    # Fig. 4: alpha = 0.5 against 0
    for key, schedulers, text in (
        (
            "alpha-lowers-tail-can",
            (CAN,),
            "alpha = 0.5 lowers the wait times of the top 10 % of long-waiting jobs in CAN' "
            "(§6.2, Fig. 4a)",
        ),
        (
            "alpha-lowers-tail-local-2nn",
            (LOCAL, NN),
            "alpha = 0.5 also lowers the wait times of the top 10 % of long-waiting jobs in "
            '2-NN and local preemptive scheduling ("similar results", §6.2)',
        ),
    ):
        compared = _compare(
            index,
            [
                p
                for s in schedulers
                for p in over_iats((s, 5.0, 0.5), (s, 5.0, 0.0), "tail10_node_wait")
            ],
        )
        add(
            key,
            text,
            "delta 5 s, alpha 0.5 against 0, every IAT",
            "alpha 0.5 minus alpha 0, median node wait of the 10 % longest-waiting jobs, % of "
            "the larger, worst IAT per replicate",
            Expect.below(0.0),
            compared,
            compared.estimate(max),
        )
    compared = _compare(
        index,
        [
            p
            for s in preemptive
            for alpha in (0.5, *SIDE_ALPHAS)
            for p in over_iats((s, 5.0, 0.0), (s, 5.0, alpha), "median_node_wait")
        ],
    )
    add(
        "alpha0-lowest-median",
        "alpha = 0 yields the lowest median wait times across all jobs (§6.2, Fig. 4b, §7)",
        "delta 5 s; alpha 0 against 0.5 (local, 2-NN, CAN'), 1 and 2 (local)",
        "alpha 0 minus alpha > 0, median node wait, % of the larger, worst case per replicate",
        Expect.below(0.0),
        compared,
        compared.estimate(max),
    )

    # §6.2: preemptions
    jobs = next((r["jobs"] for r in used), 1)
    compared = _compare(
        index,
        [p for s in preemptive for p in over_iats((s, 5.0, 0.0), (s, 5.0, 0.0), "preemptions")],
    )
    counts = "; ".join(
        f"IAT {p.iat:g}: {SHORT[p.a[0]]} {_mean(list(a.values())):.0f}"
        for p, a, _ in compared.pairs
    )
    add(
        "preemptions-one-eighth",
        "the preemptions number about 1/8 of the jobs submitted: from 556 (IAT 1.5) to 471 "
        "(IAT 4) for local, 570 to 480 for internode scheduling, delta 5 s (§6.2)",
        "delta 5 s, alpha 0, every IAT; local, 2-NN and CAN'",
        "preemptions per job over 1/8, at the scheduler and IAT where it is farthest from 1, "
        "per replicate",
        Expect.between(1 / 1.5, 1.5),
        compared,
        compared.estimate(_farthest, lambda a, b: 8.0 * a / jobs, unit="× 1/8"),
        f"preemptions of {jobs} jobs: {counts}" if counts else "",
    )
    compared = _compare(
        index,
        [
            _Pair(b, (FCFS, 5.0, 0.0), (FCFS, 5.0, 0.0), "mean_node_wait", iat_b=a)
            for a, b in itertools.pairwise(iats)
        ],
    )
    add(
        "fcfs-waits-fall-with-iat",
        "with FCFS the waiting times decrease as the inter-arrival time grows (§6.2, Fig. 5)",
        "FCFS, every IAT",
        "FCFS mean node wait at an IAT minus at the IAT before, % of the larger, largest step "
        "per replicate",
        Expect.below(0.0),
        compared,
        compared.estimate(max),
    )

    # §6.2: delta = 2.5 s
    compared = _compare(
        index,
        [
            _Pair(i, (s, SIDE_DELTA, 0.0), (s, 5.0, 0.0), field)
            for s in preemptive
            for i in iats
            for field in ("median_node_wait", "mean_node_wait")
            if not (s == CAN and i == 4.0)
        ],
    )
    add(
        "delta-changes-little",
        "with delta = 2.5 s the improvements in median and average wait times are almost "
        "negligible, except for CAN' at IAT 4 (§6.2)",
        "alpha 0, delta 2.5 s against 5 s, every IAT; local, 2-NN, CAN'",
        "delta 2.5 s minus 5 s, median and mean node wait, % of the larger, largest absolute "
        "change per replicate",
        Expect.below(5.0),
        compared,
        compared.estimate(lambda xs: max(abs(x) for x in xs)),
    )
    compared = _compare(
        index, [_Pair(4.0, (CAN, SIDE_DELTA, 0.0), (CAN, 5.0, 0.0), "median_node_wait")]
    )
    add(
        "delta-halves-can-median",
        "with delta = 2.5 s CAN' at IAT 4 responds very well: almost 50 % decrease in median "
        "wait time (§6.2)",
        "CAN', IAT 4, alpha 0, delta 2.5 s against 5 s",
        "delta 2.5 s minus 5 s, median node wait, % of the larger, per replicate",
        Expect.between(-60.0, -40.0),
        compared,
        compared.estimate(max),
    )
    compared = _compare(
        index,
        [
            _Pair(i, (s, SIDE_DELTA, 0.0), (s, 5.0, 0.0), "preemptions")
            for s in preemptive
            for i in iats
        ],
    )
    add(
        "delta-preemptions-unchanged",
        "with delta = 2.5 s there are no significant differences in the numbers of "
        "preemptions (§6.2)",
        "alpha 0, delta 2.5 s against 5 s, every IAT; local, 2-NN, CAN'",
        "delta 2.5 s minus 5 s, preemptions, % of the larger, largest absolute change per "
        "replicate",
        Expect.below(5.0),
        compared,
        compared.estimate(lambda xs: max(abs(x) for x in xs)),
    )

    # Fig. 6: the tails
    for key, iat, text in (
        (
            "fig6a-local-best-tail",
            1.5,
            "at IAT 1.5 the local preemptive scheduler does better than internode scheduling "
            "on the longest waits (§6.2, Fig. 6a)",
        ),
        (
            "fig6b-local-best-tail",
            2.5,
            "at IAT 2.5 a similar trend: local does better than internode on the longest waits "
            "(§6.2, Fig. 6b)",
        ),
    ):
        compared = _compare(
            index,
            [_Pair(iat, (s, 5.0, 0.0), (LOCAL, 5.0, 0.0), "top_node_wait") for s in (NN, CAN)],
        )
        add(
            key,
            text,
            f"IAT {iat:g}, delta 5 s, alpha 0",
            "internode minus local, mean node wait of the 4 % longest-waiting jobs, % of the "
            "larger, smallest over 2-NN and CAN' per replicate",
            Expect.above(0.0),
            compared,
            compared.estimate(min),
        )
    compared = _compare(
        index,
        [_Pair(4.0, (NN, 5.0, 0.0), (s, 5.0, 0.0), "top_node_wait") for s in (LOCAL, CAN)],
    )
    add(
        "fig6c-2nn-best-tail",
        "at IAT 4 internode 2-NN does better than both local preemptive and internode CAN' on "
        "the longest waits (§6.2, Fig. 6c)",
        "IAT 4, delta 5 s, alpha 0",
        "2-NN minus the other, mean node wait of the 4 % longest-waiting jobs, % of the larger, "
        "largest over local and CAN' per replicate",
        Expect.below(0.0),
        compared,
        compared.estimate(max),
    )

    # §6.2: alpha >= 1
    raised = [(LOCAL, 5.0, alpha) for alpha in SIDE_ALPHAS]
    compared = _compare(
        index, [p for c in raised for p in over_iats(c, (LOCAL, 5.0, 0.0), "preemptions")]
    )
    add(
        "alpha-ge-1-more-preemptions",
        "the number of preemptions increases considerably when alpha is set to 1 or higher (§6.2)",
        "local, delta 5 s; alpha 1 at every IAT, 2 at the largest, against 0",
        "preemptions with alpha >= 1 over those with alpha 0, smallest ratio per replicate",
        Expect.above(2.0),
        compared,
        compared.estimate(min, _ratio, unit="×"),
    )
    compared = _compare(
        index,
        [
            p
            for c in raised
            for field in ("median_node_wait", "mean_node_wait")
            for p in over_iats(c, (LOCAL, 5.0, 0.0), field)
        ],
    )
    add(
        "alpha-ge-1-higher-waits",
        "alpha = 1 or higher results in high median and average wait times (§6.2)",
        "local, delta 5 s; alpha 1 at every IAT, 2 at the largest, against 0",
        "alpha >= 1 minus alpha 0, median and mean node wait, % of the larger, smallest per "
        "replicate",
        Expect.above(0.0),
        compared,
        compared.estimate(min),
    )
    return out


def claims(rows: Sequence[Mapping[str, Any]]) -> list[Claim]:
    """The paper's findings (§6.1, §6.2, §7), each checked on the rows of a run.

    Every estimate is paired per replicate (each replicate runs every
    scheduler on the same grid and jobs). Waits are the paper's *node wait*
    unless a claim says otherwise. A claim "at every IAT" takes, per
    replicate, the worst IAT (the largest difference where the claim expects
    a negative one). A comparison of two medians that are both 0 in a
    replicate says nothing there (more than half of the jobs never waited
    under either scheduler) and is left out of that replicate; an IAT where
    that holds in every replicate is *untestable* (said in the figures), and
    a claim with nothing left to test is `not run`. Margins come from the
    paper's words: "significant(ly)" lower is by more than 10 %; "almost
    negligible" and "no significant differences" are within 5 %;
    "approximately 1/8" is within a factor 1.5 of it (the paper's own
    counts, 471-570 of 5000, are within a factor 1.33; the estimate is the
    count at the IAT farthest from 1/8, so that both the size and the trend
    count); "increase
    considerably" is at least twice; "almost 50 %" is between 40 and 60 %;
    "steady state ... neither highly overloaded nor underutilized" is an
    offered load within a factor 1.25 of 1 (between 0.8 and 1.25) at every IAT.

    Examples
    --------
    >>> [c.estimate for c in claims([])][:2]
    [None, None]
    >>> len(claims([])) == len({c.key for c in claims([])})
    True
    """
    return [claim for claim, _ in _checked(rows)]


def untestable(rows: Sequence[Mapping[str, Any]]) -> dict[str, tuple[float, ...]]:
    """For each claim, the IATs where it compares medians that are 0 in every replicate.

    Examples
    --------
    >>> untestable([])["local-beats-fcfs-median"]
    ()
    """
    return {claim.key: where for claim, where in _checked(rows)}


_TAILS = (
    "the longest-waiting 4 % of 500 jobs are 20 jobs: on a 100-node grid their mean wait "
    "varies more from replicate to replicate than the schedulers differ, so 6 replicates "
    "are inconclusive where 8 of the full grid decide"
)
QUICK_DIFFERS: dict[str, str] = {
    "internode-beats-local-median-total": "on a 100-node grid the total-wait medians of "
    "internode and local scheduling differ by a few percent either way from replicate to "
    "replicate; 6 replicates cannot tell the sign, 8 of the full grid can",
    "preemptions-one-eighth": "with 500 jobs a replicate preempts only a handful of jobs "
    "at the lightest load, and that count varies so much between replicates that 6 of them "
    "are inconclusive; the full grid's counts are steady",
    "fig6a-local-best-tail": _TAILS,
    "fig6b-local-best-tail": _TAILS,
    "fig6c-2nn-best-tail": _TAILS,
}
"""Claims whose `--quick` verdict differs from the documented full-size one, and why (the
quick run has a tenth of the grid and of the jobs, three IATs and 6 replicates)."""
