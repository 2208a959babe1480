"""How each claim of Balasubramanian et al. (2013) §6.1, §6.2 and §7 is measured on the rows.

The rows of a run indexed per reading ([`Index`][schedlib.experiments.preemptive.Index]:
scheduler, IAT, delta and alpha to the rows per replicate); one comparison of a claim
(two configurations, a field, an IAT), measured paired per replicate as a tie, not
testable, or one value per replicate, with its evidence; a claim over several comparisons,
judged per comparison (per configuration); and one measuring function per claim, which
[`findings`][schedlib.experiments.preemptive.findings] calls under each reading.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs

from schedlib.experiments.preemptive.runs import DEFAULT_NAME, _mean
from schedlib.experiments.preemptive.setup import (
    CAN,
    FCFS,
    KINDS,
    LOCAL,
    NN,
    SIDE_ALPHAS,
    SIDE_DELTA,
)
from schedlib.results.verdicts import (
    Configurations,
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
