"""The findings of Balasubramanian et al. (2013) §6.1, §6.2 and §7, each a claim on the rows.

[`claims`][schedlib.experiments.preemptive.claims] checks them in the paper's order
(then our own, marked), under the default reading of the set-up and under each reading
that varies from it (see its docstring);
[`untestable`][schedlib.experiments.preemptive.untestable] says which configurations of
each claim compare medians that are 0 in every replicate.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs

from schedlib.experiments.claims import Claim, expectation
from schedlib.experiments.preemptive.runs import DEFAULT_NAME, _mean
from schedlib.experiments.preemptive.setup import (
    CAN,
    FCFS,
    KINDS,
    LOCAL,
    NN,
    PAPER_NODES,
    SIDE_ALPHAS,
    SIDE_DELTA,
)
from schedlib.results.verdicts import (
    Configurations,
    Expect,
    MeanEstimate,
    Measured,
    NotTestable,
    Part,
    Tie,
)

Index = dict[tuple[str, float, float, float], dict[int, Mapping[str, Any]]]
"""(scheduler, paper IAT, delta, alpha) -> replicate -> row, for one reading."""
Config = tuple[str, float, float]
"""A configuration the claims compare: (scheduler label, delta, alpha)."""
SHORT = {FCFS: "FCFS", LOCAL: "local", NN: "2-NN", CAN: "CAN'"}

ONE_EIGHTH = (1 / 12, 3 / 16)
""""Approximately 1/8th the total number of jobs submitted" (§6.2): preemptions per job
within a factor 1.5 of 1/8 = 0.125 (the paper's own counts, 471 to 570 of 5000 jobs, are
within a factor 1.33 of it)."""
STEADY_DEPARTURES = 0.9
"""A steady state's departures per arrival over the measured jobs' arrivals, at least."""
_MEDIANS = ("median_node_wait", "median_wait", "tail10_node_wait")
_ZERO = "every median is 0"


def _index(rows: Iterable[Mapping[str, Any]]) -> dict[str, Index]:
    """reading -> index, without the victims side study (the claims read the default victims)."""
    out: dict[str, Index] = {}
    for row in rows:
        if row.get("study") == "victims":
            continue
        key = (row["scheduler"], round(row["paper_iat"], 6), row["delta"], row["alpha"])
        reading = out.setdefault(row.get("reading", DEFAULT_NAME), {})
        reading.setdefault(key, {})[row["replicate"]] = row
    return out


def _rel(a: float, b: float) -> float:
    """`a` against `b` in percent of the larger (so of `b` when `a < b`); 0 when both are 0.

    Examples
    --------
    >>> _rel(50.0, 100.0), _rel(100.0, 50.0), _rel(0.0, 0.0)
    (-50.0, 50.0, 0.0)
    """
    top = max(abs(a), abs(b))
    return 0.0 if top == 0 else 100.0 * (a - b) / top


def _seconds(x: float) -> str:
    """A wait as the page prints it.

    Examples
    --------
    >>> _seconds(0.04), _seconds(7.25), _seconds(12345.6)
    ('0 s', '7.2 s', '12,346 s')
    """
    if abs(x) < 0.05:
        return "0 s"
    return f"{x:.1f} s" if abs(x) < 100 else f"{x:,.0f} s"


def _count(x: float) -> str:
    return f"{x:,.1f}" if abs(x) < 100 else f"{x:,.0f}"


def _shown(field: str, x: float) -> str:
    if field == "preemptions":
        return f"{_count(x)} preemptions"
    return _seconds(x)


def _part_text(part: Part) -> str:
    if part is None:
        return "not run"
    return part.describe()


@attrs.frozen
class _Pair:
    """One comparison of a claim: `a` against `b` on `field` at `iat` (`b` at `iat_b`)."""

    label: str
    a: Config
    b: Config
    field: str
    iat: float
    iat_b: float | None = None

    def sides(
        self, index: Index
    ) -> tuple[dict[int, Mapping[str, Any]], dict[int, Mapping[str, Any]]]:
        a = index.get((self.a[0], round(self.iat, 6), self.a[1], self.a[2]), {})
        iat_b = self.iat if self.iat_b is None else self.iat_b
        b = index.get((self.b[0], round(iat_b, 6), self.b[1], self.b[2]), {})
        return dict(a), dict(b)


Value = Callable[[Mapping[str, Any], Mapping[str, Any], str], float]


def _relative(a: Mapping[str, Any], b: Mapping[str, Any], field: str) -> float:
    return _rel(a[field], b[field])


def _measure(pair: _Pair, index: Index, value: Value = _relative, unit: str = "%") -> Part:
    """What one comparison measured: a tie when both sides ran the same schedule in every
    replicate, not testable when the medians compared are 0 on both sides in every replicate
    (a replicate where both are 0 says nothing and is left out), else one value per replicate.
    """
    a, b = pair.sides(index)
    common = sorted(set(a) & set(b))
    if not common:
        return None
    digests = [(a[r].get("digest"), b[r].get("digest")) for r in common]
    if all(x is not None and x == y for x, y in digests):
        return Tie()
    kept = [
        r
        for r in common
        if not (pair.field in _MEDIANS and a[r][pair.field] == 0 and b[r][pair.field] == 0)
    ]
    if not kept:
        return NotTestable(_ZERO)
    return MeanEstimate(tuple(value(a[r], b[r], pair.field) for r in kept), unit=unit)


def _evidence(pair: _Pair, index: Index, part: Part, names: tuple[str, str]) -> str:
    a, b = pair.sides(index)
    if not a or not b:
        return f"{pair.label}: not run"
    mean_a = _mean([row[pair.field] for row in a.values()])
    mean_b = _mean([row[pair.field] for row in b.values()])
    return (
        f"{pair.label}: {names[0]} {_shown(pair.field, mean_a)} vs {names[1]} "
        f"{_shown(pair.field, mean_b)} ({_part_text(part)})"
    )


def _names(pair: _Pair) -> tuple[str, str]:
    """How the two sides of a pair are called in the evidence: what differs between them."""
    if pair.iat_b is not None:
        return (f"IAT {pair.iat:g}", f"IAT {pair.iat_b:g}")
    out: list[list[str]] = [[], []]
    if pair.a[0] != pair.b[0]:
        out[0].append(SHORT.get(pair.a[0], pair.a[0]))
        out[1].append(SHORT.get(pair.b[0], pair.b[0]))
    if pair.a[1] != pair.b[1]:
        out[0].append(f"delta {pair.a[1]:g} s")
        out[1].append(f"delta {pair.b[1]:g} s")
    if pair.a[2] != pair.b[2]:
        out[0].append(f"alpha {pair.a[2]:g}")
        out[1].append(f"alpha {pair.b[2]:g}")
    return (" ".join(out[0]) or "a", " ".join(out[1]) or "b")


@attrs.frozen
class _Found:
    """What a claim measured under one reading, and the evidence per comparison."""

    measured: Measured
    evidence: tuple[str, ...] = ()


def _every(
    pairs: Sequence[_Pair], index: Index, value: Value = _relative, unit: str = "%"
) -> _Found:
    """A claim over several comparisons, judged per comparison ("every"); a comparison whose
    sides were not run (a scheduler or IAT left out of the run) is not one of them."""
    parts: list[Any] = []
    evidence = []
    for pair in pairs:
        part = _measure(pair, index, value, unit)
        if part is not None:
            parts.append((pair.label, part))
        evidence.append(_evidence(pair, index, part, _names(pair)))
    if not parts:
        return _Found(None, tuple(evidence))
    if len(parts) == 1:
        return _Found(parts[0][1], tuple(evidence))
    return _Found(Configurations("every", tuple(parts)), tuple(evidence))


def _iats(index: Index) -> list[float]:
    return sorted({key[1] for key in index})


def _has(index: Index, scheduler: str, iat: float, delta: float, alpha: float) -> bool:
    return (scheduler, round(iat, 6), delta, alpha) in index


def _label(scheduler: str, iat: float) -> str:
    return f"{SHORT.get(scheduler, scheduler)}, IAT {iat:g}"


# -- the claims, one measuring function each ------------------------------------------------


def _steady(index: Index) -> _Found:
    """Per IAT: the offered load's distance below 100 %, and per scheduler the departures per
    arrival above 90 %, both in percentage points."""
    parts: list[Any] = []
    evidence = []
    for iat in _iats(index):
        rows = index.get((FCFS, round(iat, 6), 5.0, 0.0)) or next(
            (v for k, v in index.items() if k[1] == round(iat, 6)), {}
        )
        if not rows:
            continue
        loads = [max(row[f"load_{k}"] for k in KINDS) for row in rows.values()]
        parts.append(
            (
                f"IAT {iat:g}: load",
                MeanEstimate(tuple(100 - 100 * x for x in loads), unit="percentage points"),
            )
        )
        per_kind = ", ".join(
            f"{k} {_mean([row[f'load_{k}'] for row in rows.values()]):.2f}" for k in KINDS
        )
        evidence.append(f"IAT {iat:g}: offered load {per_kind}")
        for scheduler in (FCFS, LOCAL, NN, CAN):
            found = index.get((scheduler, round(iat, 6), 5.0, 0.0))
            if not found:
                continue
            ratios = [row["departures"] for row in found.values()]
            parts.append(
                (
                    f"IAT {iat:g}: {SHORT[scheduler]} departures",
                    MeanEstimate(
                        tuple(100 * x - 100 * STEADY_DEPARTURES for x in ratios),
                        unit="percentage points",
                    ),
                )
            )
            evidence.append(
                f"IAT {iat:g}: {SHORT[scheduler]} departures per arrival {_mean(ratios):.2f}"
            )
    if not parts:
        return _Found(None)
    return _Found(Configurations("every", tuple(parts)), tuple(evidence))


def _versus(
    a: str, b: str, field: str, index: Index, iats: Iterable[float] | None = None
) -> list[_Pair]:
    return [
        _Pair(f"IAT {i:g}", (a, 5.0, 0.0), (b, 5.0, 0.0), field, i)
        for i in (_iats(index) if iats is None else iats)
    ]


def _local_fcfs(index: Index) -> _Found:
    return _every(_versus(LOCAL, FCFS, "median_node_wait", index), index)


def _mean_fcfs(index: Index) -> _Found:
    pairs = [
        _Pair(_label(s, i), (s, 5.0, 0.0), (FCFS, 5.0, 0.0), "mean_node_wait", i)
        for s in (LOCAL, NN, CAN)
        for i in _iats(index)
    ]
    return _every(pairs, index)


def _internode(field: str) -> Callable[[Index], _Found]:
    def measured(index: Index) -> _Found:
        pairs = [
            _Pair(_label(s, i), (s, 5.0, 0.0), (LOCAL, 5.0, 0.0), field, i)
            for s in (NN, CAN)
            for i in _iats(index)
        ]
        return _every(pairs, index)

    return measured


def _gap(index: Index) -> _Found:
    """Per replicate: the mean of 2-NN minus CAN' (median node wait, % of the larger) over
    the IATs above 2 minus its mean over the IATs up to 2, in percentage points."""
    iats = _iats(index)
    pairs = [
        _Pair(f"IAT {i:g}", (NN, 5.0, 0.0), (CAN, 5.0, 0.0), "median_node_wait", i) for i in iats
    ]
    evidence = []
    by_iat: dict[float, dict[int, float]] = {}
    for pair in pairs:
        a, b = pair.sides(index)
        part = _measure(pair, index)
        evidence.append(_evidence(pair, index, part, _names(pair)))
        by_iat[pair.iat] = {
            r: _rel(a[r][pair.field], b[r][pair.field])
            for r in sorted(set(a) & set(b))
            if not (a[r][pair.field] == 0 and b[r][pair.field] == 0)
        }
    if not pairs or not any(by_iat.values()):
        return _Found(None if not pairs else NotTestable(_ZERO), tuple(evidence))
    replicates = sorted({r for values in by_iat.values() for r in values})
    gaps = []
    for r in replicates:
        low = [v[r] for i, v in by_iat.items() if i <= 2.0 and r in v]
        high = [v[r] for i, v in by_iat.items() if i > 2.0 and r in v]
        if low and high:
            gaps.append(_mean(high) - _mean(low))
    if not gaps:
        return _Found(NotTestable(f"{_ZERO} at every IAT above 2 or at most 2"), tuple(evidence))
    return _Found(MeanEstimate(tuple(gaps), unit="percentage points"), tuple(evidence))


def _alpha_tail(schedulers: Sequence[str]) -> Callable[[Index], _Found]:
    def measured(index: Index) -> _Found:
        pairs = [
            _Pair(_label(s, i), (s, 5.0, 0.5), (s, 5.0, 0.0), "tail10_node_wait", i)
            for s in schedulers
            for i in _iats(index)
        ]
        return _every(pairs, index)

    return measured


def _alpha0_lowest(index: Index) -> _Found:
    pairs = []
    for s in (LOCAL, NN, CAN):
        for alpha in sorted({0.5, *SIDE_ALPHAS}):
            for i in _iats(index):
                if _has(index, s, i, 5.0, alpha):
                    pairs.append(
                        _Pair(
                            f"{_label(s, i)}, alpha {alpha:g}",
                            (s, 5.0, 0.0),
                            (s, 5.0, alpha),
                            "median_node_wait",
                            i,
                        )
                    )
    return _every(pairs, index)


def _per_job(a: Mapping[str, Any], b: Mapping[str, Any], field: str) -> float:
    return float(a[field]) / float(a["jobs"])


def _one_eighth(index: Index) -> _Found:
    pairs = [
        _Pair(_label(s, i), (s, 5.0, 0.0), (s, 5.0, 0.0), "preemptions", i)
        for s in (LOCAL, NN, CAN)
        for i in _iats(index)
    ]
    parts: list[Any] = []
    evidence = []
    for pair in pairs:
        a, _ = pair.sides(index)
        if not a:
            continue
        values = tuple(_per_job(row, row, "preemptions") for row in a.values())
        part = MeanEstimate(values, unit="preemptions per job")
        parts.append((pair.label, part))
        jobs = next(iter(a.values()))["jobs"]
        evidence.append(
            f"{pair.label}: {_count(_mean([row['preemptions'] for row in a.values()]))} "
            f"preemptions of {jobs} jobs ({part.describe()})"
        )
    if not parts:
        return _Found(None)
    return _Found(Configurations("every", tuple(parts)), tuple(evidence))


def _fcfs_falls(index: Index) -> _Found:
    iats = _iats(index)
    pairs = [
        _Pair(
            f"IAT {b:g} against {a:g}",
            (FCFS, 5.0, 0.0),
            (FCFS, 5.0, 0.0),
            "mean_node_wait",
            b,
            iat_b=a,
        )
        for a, b in itertools.pairwise(iats)
    ]
    return _every(pairs, index)


def _improvement(a: Mapping[str, Any], b: Mapping[str, Any], field: str) -> float:
    """`b` (delta 5 s) minus `a` (delta 2.5 s) in % of `b`'s mean node wait (0 if both 0)."""
    typical = float(b["mean_node_wait"])
    change = float(b[field]) - float(a[field])
    if typical == 0:
        return 0.0 if change == 0 else math.copysign(100.0, change)
    return 100.0 * change / typical


def _delta_little(index: Index) -> _Found:
    pairs = [
        _Pair(
            f"{_label(s, i)}, {field.split('_')[0]}", (s, SIDE_DELTA, 0.0), (s, 5.0, 0.0), field, i
        )
        for s in (LOCAL, NN, CAN)
        for i in _iats(index)
        for field in ("median_node_wait", "mean_node_wait")
        if not (s == CAN and i == 4.0)
    ]
    return _every(pairs, index, _improvement, "%")


def _delta_halves(index: Index) -> _Found:
    pair = _Pair("CAN', IAT 4", (CAN, SIDE_DELTA, 0.0), (CAN, 5.0, 0.0), "median_node_wait", 4.0)
    return _every([pair], index)


def _delta_preemptions(index: Index) -> _Found:
    pairs = [
        _Pair(_label(s, i), (s, SIDE_DELTA, 0.0), (s, 5.0, 0.0), "preemptions", i)
        for s in (LOCAL, NN, CAN)
        for i in _iats(index)
    ]
    return _every(pairs, index)


def _tail(iat: float, best: str, others: Sequence[str]) -> Callable[[Index], _Found]:
    def measured(index: Index) -> _Found:
        pairs = [
            _Pair(
                f"{SHORT[best]} against {SHORT[o]}",
                (best, 5.0, 0.0),
                (o, 5.0, 0.0),
                "top4_node_wait",
                iat,
            )
            for o in others
        ]
        found = _every(pairs, index)
        beside = []
        for s in (best, *others):
            rows = list(index.get((s, round(iat, 6), 5.0, 0.0), {}).values())
            if rows:
                top4, top2, most = (
                    _seconds(_mean([r[field] for r in rows]))
                    for field in ("top4_node_wait", "top2_node_wait", "max_node_wait")
                )
                beside.append(
                    f"{SHORT[s]}: top-4 % mean {top4}, top-2 % mean {top2}, maximum {most}"
                )
        return attrs.evolve(found, evidence=(*found.evidence, *beside))

    return measured


def _alpha_preemptions(alphas: Sequence[float], largest_only: bool) -> Callable[[Index], _Found]:
    def measured(index: Index) -> _Found:
        iats = _iats(index)
        chosen = iats[-1:] if largest_only else iats
        pairs = [
            _Pair(
                f"alpha {alpha:g}, IAT {i:g}",
                (LOCAL, 5.0, alpha),
                (LOCAL, 5.0, 0.0),
                "preemptions",
                i,
            )
            for alpha in alphas
            for i in chosen
            if _has(index, LOCAL, i, 5.0, alpha)
        ]
        return _every(pairs, index)

    return measured


def _alpha_waits(index: Index) -> _Found:
    pairs = [
        _Pair(
            f"alpha {alpha:g}, IAT {i:g}, {field.split('_')[0]}",
            (LOCAL, 5.0, alpha),
            (LOCAL, 5.0, 0.0),
            field,
            i,
        )
        for alpha in SIDE_ALPHAS
        for i in _iats(index)
        for field in ("median_node_wait", "mean_node_wait")
        if _has(index, LOCAL, i, 5.0, alpha)
    ]
    return _every(pairs, index)


# -- the claims' texts -------------------------------------------------------------------------


@attrs.frozen
class _Spec:
    key: str
    text: str
    what: str
    measure: str
    expect: Expect
    measured: Callable[[Index], _Found]
    short: str
    word: str = ""
    origin: str = "paper"


_PERCENT = "in % of the larger of the two (of the baseline where the claim's direction holds)"

SPECS: tuple[_Spec, ...] = (
    _Spec(
        "steady-state",
        "the runs are in a steady state: job arrival and departure rates are similar, the "
        "system neither highly overloaded nor underutilized (§6.1)",
        "every IAT; FCFS, local, 2-NN and CAN' at delta 5 s, alpha 0",
        "per IAT, how far the offered load (of the busiest resource kind) lies below 100 %, "
        "and per scheduler how far the completions per arrival, over the measured jobs' "
        "arrival span, lie above 90 %, in percentage points",
        Expect.above(0.0),
        _steady,
        short="steady state (§6.1)",
    ),
    _Spec(
        "local-beats-fcfs-median",
        "local preemptive scheduling gives significantly lower (median) wait times than FCFS "
        "with backfilling, for all inter-arrival times (§6.2, Fig. 3)",
        "delta 5 s, alpha 0, every IAT",
        f"local minus FCFS median node wait, per IAT, {_PERCENT}",
        expectation("much"),
        _local_fcfs,
        word="much",
        short="local < FCFS, median (§6.2, Fig. 3)",
    ),
    _Spec(
        "preemptive-lower-mean-than-fcfs",
        "the preemptive algorithm yields lower average wait times than FCFS (§7)",
        "delta 5 s, alpha 0, every IAT; local, 2-NN and CAN'",
        f"preemptive minus FCFS mean node wait, per scheduler and IAT, {_PERCENT}",
        expectation("better"),
        _mean_fcfs,
        word="better",
        short="preemptive < FCFS, mean (§7)",
    ),
    _Spec(
        "internode-beats-local-median",
        "internode scheduling (2-NN and CAN') gives significantly lower median wait times "
        "than local preemptive scheduling (§6.2, Fig. 3)",
        "delta 5 s, alpha 0, every IAT; the paper's node wait",
        f"internode minus local median node wait, per topology and IAT, {_PERCENT}",
        expectation("much"),
        _internode("median_node_wait"),
        word="much",
        short="internode < local, median (§6.2, Fig. 3)",
    ),
    _Spec(
        "can-2nn-gap-grows",
        "the difference in wait times between CAN' and 2-NN is low at IAT 1.5 and 2.0 and "
        "increases with the inter-arrival time (§6.2, Fig. 3)",
        "delta 5 s, alpha 0, every IAT",
        "2-NN minus CAN' median node wait in % of the larger: its mean over the IATs above 2 "
        "minus its mean over the IATs up to 2, per replicate, in percentage points",
        expectation("better", lower=False),
        _gap,
        word="better",
        short="CAN'–2-NN gap grows with IAT (§6.2)",
    ),
    _Spec(
        "alpha-lowers-tail-can",
        "alpha = 0.5 lowers the wait times of the top 10 % of long-waiting jobs in CAN' "
        "(§6.2, Fig. 4a)",
        "CAN', delta 5 s, alpha 0.5 against 0, every IAT",
        f"alpha 0.5 minus alpha 0, median node wait of the 10 % longest-waiting jobs, per "
        f"IAT, {_PERCENT}",
        expectation("better"),
        _alpha_tail((CAN,)),
        word="better",
        short="alpha 0.5 shortens CAN' top 10 % (Fig. 4a)",
    ),
    _Spec(
        "alpha-lowers-tail-local-2nn",
        "alpha = 0.5 also lowers the wait times of the top 10 % of long-waiting jobs in "
        '2-NN and local preemptive scheduling ("similar results", §6.2)',
        "local and 2-NN, delta 5 s, alpha 0.5 against 0, every IAT",
        f"alpha 0.5 minus alpha 0, median node wait of the 10 % longest-waiting jobs, per "
        f"scheduler and IAT, {_PERCENT}",
        expectation("better"),
        _alpha_tail((LOCAL, NN)),
        word="better",
        short="alpha 0.5 shortens local, 2-NN top 10 % (§6.2)",
    ),
    _Spec(
        "alpha0-lowest-median",
        "alpha = 0 yields the lowest median wait times across all jobs (§6.2, Fig. 4b, §7)",
        "delta 5 s; alpha 0 against 0.5 (local, 2-NN, CAN') and 1 (local) at every IAT, "
        "1.05, 1.25 and 2 (local) at the largest",
        f"alpha 0 minus alpha > 0, median node wait, per scheduler, alpha and IAT, {_PERCENT}",
        expectation("better"),
        _alpha0_lowest,
        word="better",
        short="alpha 0 lowest median (Fig. 4b, §7)",
    ),
    _Spec(
        "preemptions-one-eighth",
        "the preemptions number about 1/8 of the jobs submitted: from 556 (IAT 1.5) to 471 "
        "(IAT 4) for local, 570 to 480 for internode scheduling, delta 5 s (§6.2)",
        "delta 5 s, alpha 0, every IAT; local, 2-NN and CAN'",
        "preemptions of the measured jobs per measured job, per scheduler and IAT, against "
        "1/8 = 0.125 within a factor 1.5 (the paper's own counts are within a factor 1.33)",
        Expect.between(*ONE_EIGHTH),
        _one_eighth,
        short="preemptions about 1/8 of jobs (§6.2)",
    ),
    _Spec(
        "fcfs-waits-fall-with-iat",
        "with FCFS the waiting times decrease as the inter-arrival time grows (§6.2, Fig. 5)",
        "FCFS, every IAT",
        f"FCFS mean node wait at an IAT minus at the IAT before, per step, {_PERCENT}",
        expectation("better"),
        _fcfs_falls,
        word="better",
        short="FCFS waits fall with IAT (Fig. 5)",
    ),
    _Spec(
        "delta-changes-little",
        "with delta = 2.5 s the improvements in median and average wait times are almost "
        "negligible, except for CAN' at IAT 4 (§6.2)",
        "alpha 0, delta 2.5 s against 5 s, every IAT; local, 2-NN, CAN' (not CAN' at IAT 4)",
        "the improvement (delta 5 s minus 2.5 s) of the median and of the mean node wait, per "
        "scheduler and IAT, in % of the mean node wait at delta 5 s (the typical wait: a "
        "median near 0 s would make any change a large share of itself)",
        expectation("negligible"),
        _delta_little,
        word="negligible",
        short="delta 2.5 s changes waits little (§6.2)",
    ),
    _Spec(
        "delta-halves-can-median",
        "with delta = 2.5 s CAN' at IAT 4 responds very well: almost 50 % decrease in median "
        "wait time (§6.2)",
        "CAN', IAT 4, alpha 0, delta 2.5 s against 5 s",
        f"delta 2.5 s minus 5 s, median node wait, {_PERCENT}",
        Expect.between(-60.0, -40.0),
        _delta_halves,
        short="delta 2.5 s halves CAN' median at IAT 4 (§6.2)",
    ),
    _Spec(
        "delta-preemptions-unchanged",
        "with delta = 2.5 s there are no significant differences in the numbers of "
        "preemptions (§6.2)",
        "alpha 0, delta 2.5 s against 5 s, every IAT; local, 2-NN, CAN'",
        f"delta 2.5 s minus 5 s, preemptions, per scheduler and IAT, {_PERCENT}",
        expectation("not significant"),
        _delta_preemptions,
        word="not significant",
        short="delta 2.5 s keeps preemptions (§6.2)",
    ),
    _Spec(
        "fig6a-local-best-tail",
        "at IAT 1.5 the local preemptive scheduler does better than internode scheduling "
        "on the longest waits (§6.2, Fig. 6a)",
        "IAT 1.5, delta 5 s, alpha 0",
        "local minus internode (2-NN, CAN'), mean node wait of the 4 % longest-waiting jobs "
        f"(200 of 5000: Fig. 6 shows the last 100-200 jobs), {_PERCENT}",
        expectation("better"),
        _tail(1.5, LOCAL, (NN, CAN)),
        word="better",
        short="local best tail at IAT 1.5 (Fig. 6a)",
    ),
    _Spec(
        "fig6b-local-best-tail",
        "at IAT 2.5 a similar trend: local does better than internode on the longest waits "
        "(§6.2, Fig. 6b)",
        "IAT 2.5, delta 5 s, alpha 0",
        "local minus internode (2-NN, CAN'), mean node wait of the 4 % longest-waiting jobs, "
        f"{_PERCENT}",
        expectation("better"),
        _tail(2.5, LOCAL, (NN, CAN)),
        word="better",
        short="local best tail at IAT 2.5 (Fig. 6b)",
    ),
    _Spec(
        "fig6c-2nn-best-tail",
        "at IAT 4 internode 2-NN does better than both local preemptive and internode CAN' on "
        "the longest waits (§6.2, Fig. 6c)",
        "IAT 4, delta 5 s, alpha 0",
        "2-NN minus local and minus CAN', mean node wait of the 4 % longest-waiting jobs, "
        f"{_PERCENT}",
        expectation("better"),
        _tail(4.0, NN, (LOCAL, CAN)),
        word="better",
        short="2-NN best tail at IAT 4 (Fig. 6c)",
    ),
    _Spec(
        "alpha1-more-preemptions",
        "the number of preemptions increases considerably when alpha is set to 1 (§6.2), "
        "at the tie point alpha = beta = 1: a waiting job's priority rises as fast as a "
        "running one's, so it never catches up with a job that started",
        "local, delta 5 s, alpha 1 against 0, every IAT",
        f"alpha 1 minus alpha 0, preemptions, per IAT, {_PERCENT}",
        expectation("much", lower=False),
        _alpha_preemptions(SIDE_ALPHAS[:1], largest_only=False),
        word="much",
        short="alpha 1 many more preemptions (§6.2)",
    ),
    _Spec(
        "alpha-above-1-more-preemptions",
        "the number of preemptions increases considerably when alpha is set higher than 1 (§6.2)",
        "local, delta 5 s, alpha 1.05, 1.25 and 2 against 0, at the largest IAT (a run at a "
        "busy IAT preempts hundreds of times per job)",
        f"alpha minus alpha 0, preemptions, per alpha, {_PERCENT}",
        expectation("much", lower=False),
        _alpha_preemptions(SIDE_ALPHAS[1:], largest_only=True),
        word="much",
        short="alpha > 1 many more preemptions (§6.2)",
    ),
    _Spec(
        "alpha-ge-1-higher-waits",
        "alpha = 1 or higher results in high median and average wait times (§6.2)",
        "local, delta 5 s; alpha 1 at every IAT, 1.05, 1.25 and 2 at the largest, against 0",
        f"alpha >= 1 minus alpha 0, median and mean node wait, per alpha and IAT, {_PERCENT}",
        expectation("better", lower=False),
        _alpha_waits,
        word="better",
        short="alpha ≥ 1 higher waits (§6.2)",
    ),
    _Spec(
        "internode-beats-local-median-total",
        "internode scheduling (2-NN and CAN') gives significantly lower median wait times "
        "than local preemptive scheduling (§6.2, Fig. 3), measured on the total wait (from "
        "submission, so including the time queued before a migration)",
        "delta 5 s, alpha 0, every IAT; total wait",
        f"internode minus local median total wait, per topology and IAT, {_PERCENT}",
        expectation("much"),
        _internode("median_wait"),
        word="much",
        origin="ours",
        short="internode < local, median total wait (ours)",
    ),
)
"""The claims in the paper's order, then ours."""

SHORT_NAMES: dict[str, str] = {spec.key: spec.short for spec in SPECS}
"""Each claim's short name with its section or figure (the page's verdicts at a glance)."""


def _data(rows: Sequence[Mapping[str, Any]], what: str) -> str:
    if not rows:
        return f"synthetic grid and jobs (§6.1); {what}"
    first = rows[0]
    replicates = len({r["replicate"] for r in rows})
    preloaded = first.get("warm_up") == "preloaded"
    warm = " after a 1.5 T warm-up (a preloaded grid)" if preloaded else ""
    scale = "" if first["nodes"] == PAPER_NODES else ", IATs at the paper's scale"
    return (
        f"synthetic, {first['nodes']} nodes, {first['jobs']} {first.get('sizes', '')} jobs"
        f"{warm}, {replicates} replicates of seed {first['seed']}{scale}; {what}"
    ).replace("  ", " ")


def _found(rows: Sequence[Mapping[str, Any]]) -> tuple[list[str], dict[str, list[_Found]]]:
    indexes = _index(rows)
    names = [DEFAULT_NAME] + [n for n in indexes if n != DEFAULT_NAME]
    return names, {name: [spec.measured(indexes.get(name, {})) for spec in SPECS] for name in names}


def claims(rows: Sequence[Mapping[str, Any]]) -> list[Claim]:
    """The paper's findings (§6.1, §6.2, §7), each checked on the rows of a run, then ours.

    Each claim is measured under the default reading (its estimate: the paper's count)
    and under every other reading in the rows (`readings`, judged as families of their
    own). A claim made "for all inter-arrival times", "for 2-NN and CAN'" or over several
    alphas is judged per configuration
    ([`Configurations`][schedlib.results.verdicts.Configurations], "every"), never on the
    worst of several. Every comparison is paired per replicate (each replicate runs every
    scheduler on the same grid and jobs); waits are the paper's *node wait* unless a claim
    says otherwise. Two sides that ran the same schedule in every replicate (the same
    digest) are a [`Tie`][schedlib.results.verdicts.Tie]; two medians that are 0 in a
    replicate say nothing there (that replicate is left out), and in every replicate make
    the comparison [`NotTestable`][schedlib.results.verdicts.NotTestable]. Margins come
    from the paper's words ([`WORDS`][schedlib.experiments.claims.WORDS]): "significantly
    lower" is `much`; "almost negligible" improvements are `negligible`; "no significant
    differences" is `not significant`; "increases considerably" is `much`; "lower",
    "decreases", "does better" are `better`. Stated numbers keep their own bands:
    "approximately 1/8th" is within a factor 1.5 of 0.125 preemptions per job, "almost
    50 %" between 40 and 60 %, and a steady state is an offered load below 100 % with at
    least 0.9 departures per arrival.

    Examples
    --------
    >>> [c.estimate for c in claims([])][:2]
    [None, None]
    >>> len(claims([])) == len({c.key for c in claims([])})
    True
    """
    names, found = _found(rows)
    used = [
        r
        for r in rows
        if r.get("study") != "victims" and r.get("reading", DEFAULT_NAME) == DEFAULT_NAME
    ]
    out = []
    for n, spec in enumerate(SPECS):
        mine = found[DEFAULT_NAME][n]
        out.append(
            Claim(
                spec.key,
                spec.text,
                _data(used, spec.what),
                spec.measure,
                spec.expect,
                mine.measured,
                "; ".join(mine.evidence),
                spec.origin,
                word=spec.word,
                readings=[(name, found[name][n].measured) for name in names[1:]],
            )
        )
    return out


def untestable(rows: Sequence[Mapping[str, Any]]) -> dict[str, tuple[str, ...]]:
    """For each claim, the configurations (of the default reading) whose medians are 0 on
    both sides in every replicate.

    Examples
    --------
    >>> untestable([])["local-beats-fcfs-median"]
    ()
    """
    out: dict[str, tuple[str, ...]] = {}
    for claim in claims(rows):
        measured = claim.estimate
        if isinstance(measured, NotTestable):
            out[claim.key] = ("every configuration",)
        elif isinstance(measured, Configurations):
            out[claim.key] = tuple(
                label for label, part in measured.parts if isinstance(part, NotTestable)
            )
        else:
            out[claim.key] = ()
    return out


QUICK_DIFFERS: dict[str, str] = {}
"""Claims whose `--quick` verdict differs from the documented full-size one, and why (the
quick run has a tenth of the grid and of the jobs, three IATs and 6 replicates)."""
