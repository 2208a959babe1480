"""The claims of Sabin et al. (2003) §3-§7, each judged per trace.

[`claims`][schedlib.experiments.multisite.claims] states them in the paper's
order, then our extensions (marked "ours"). The paper shows every result for
both traces and says "the figures show similar trends for both CTC and SDSC
traces" (§5): each claim is judged per trace
([`Configurations`][schedlib.results.verdicts.Configurations] `"every"`: it
holds when it holds on each trace, and does not hold when it fails on one).
On a trace, a claim over the load factors is measured, in each replicate, as
the mean over the load factors of the replicate's change, and judged over the
replicates; the single-site pair draws nothing, so its value is computed once
([`MeanEstimate.once`][schedlib.results.verdicts.MeanEstimate.once]) and
judged exactly. A comparison whose two sides gave every job the same
schedule (equal digests) is a [`Tie`][schedlib.results.verdicts.Tie]. Every
word the paper qualifies a claim with gets the margin of
[`WORDS`][schedlib.experiments.claims.WORDS].
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from schedlib.experiments.claims import Claim, expectation
from schedlib.experiments.multisite.setup import JOBS, K_OURS, LOAD_FACTORS, REPLICATES
from schedlib.results.verdicts import Configurations, Expect, MeanEstimate, Measured, Part, Tie

_POWER = (
    "power: three replicates of 300 jobs at two load factors leave intervals wider than the "
    f"claim's margin; {REPLICATES} replicates of {JOBS} jobs at {len(LOAD_FACTORS)} load "
    "factors decide it"
)
QUICK_DIFFERS: dict[str, str] = {
    "greedy-mr-slightly-better": _POWER,
    "conservative-much-better-multisite": _POWER,
    "aggressive-better-single-site": (
        "the quick run's 300 jobs at load factors 1.0 and 1.6, where EASY is ahead on both "
        f"traces; at {JOBS} jobs conservative backfilling is ahead at load factors 1.8 and "
        "2.0 on both traces, far ahead at 2.0, which decide the mean over the six (one run "
        "each, judged exactly)"
    ),
    "aggressive-higher-raw-utilisation": _POWER,
    "aggressive-lower-effective-utilisation": _POWER,
    "cancel-slower-improves-slightly": _POWER,
    "efficacy-better-turnaround": _POWER,
    "efficacy-higher-effective-utilisation": _POWER,
    "fcfs-higher-raw-utilisation": _POWER,
    "efficacy-worst-case-under-5": _POWER,
    "k2-greatest-gain": _POWER,
    "completion-small-k-almost-k4": _POWER,
    "transfer-increases-turnaround": _POWER,
    "transfer-keeps-trends": _POWER,
    "greedy-mr-completion-selection-better": _POWER,
    "conservative-mr-k2-greatest-gain": _POWER,
    "conservative-mr-completion-selection-better": _POWER,
}
"""Claims whose `--quick` verdict differs from the documented full-size one, with the reason."""

Row = Mapping[str, Any]
Cell = tuple[Any, str, float]
"""(replicate, trace, load factor): one run of a configuration (replicate `None`: drawn once)."""


def _cells(rows: Iterable[Row], **match: Any) -> dict[Cell, Row]:
    """(replicate, trace, load factor) -> the row matching `match` (default tie rules)."""
    match.setdefault("tie_rule", "-")
    return {
        (r["replicate"], r["trace"], r["load_factor"]): r
        for r in rows
        if all(r.get(k) == v for k, v in match.items())
    }


def _pct(new: float, old: float) -> float:
    return 100.0 * (new - old) / old


def per_trace(
    values: Mapping[Cell, float], same: Mapping[Cell, bool], unit: str = "%"
) -> Configurations | None:
    """One configuration per trace: the mean over its load factors of each replicate's value,
    judged over the replicates (a value drawn once, replicate `None`, is judged exactly); a
    trace where every cell compared identical schedules (`same`) is a tie.

    Examples
    --------
    >>> values = {(0, "A", 1.0): -2.0, (1, "A", 1.0): -3.0, (None, "B", 1.0): 4.0}
    >>> c = per_trace(values, {cell: False for cell in values})
    >>> [(label, part.describe()) for label, part in c.parts]
    [('A', '-2.5 % ± 6.4 (n = 2)'), ('B', '4 % (deterministic: one run, n = 1)')]
    """
    if not values:
        return None
    parts: list[tuple[str, Part]] = []
    for trace in sorted({t for _, t, _ in values}):
        cells = sorted((c for c in values if c[1] == trace), key=lambda c: (c[0] or 0, c[2]))
        if all(same.get(c, False) for c in cells):
            parts.append((trace, Tie()))
            continue
        by_replicate: dict[Any, list[float]] = defaultdict(list)
        for cell in cells:
            by_replicate[cell[0]].append(values[cell])
        if set(by_replicate) == {None}:
            parts.append((trace, MeanEstimate.once(statistics.fmean(by_replicate[None]), unit)))
        else:
            means = [statistics.fmean(v) for _, v in sorted(by_replicate.items())]
            parts.append((trace, MeanEstimate(means, unit=unit)))
    return Configurations("every", cast(Any, parts))  # attrs types `parts` by its converter


def _change(
    rows: Sequence[Row], field: str, new: Mapping[str, Any], old: Mapping[str, Any]
) -> Configurations | None:
    """Relative change of `field`, `new` against `old`, in % of `old`, per trace."""
    a, b = _cells(rows, **new), _cells(rows, **old)
    common = set(a) & set(b)
    values = {c: _pct(a[c][field], b[c][field]) for c in common}
    same = {c: a[c]["digest"] == b[c]["digest"] for c in common}
    return per_trace(values, same)


def _ks(rows: Sequence[Row], **match: Any) -> dict[tuple[Any, str], dict[int, Row]]:
    """(replicate, trace) -> K -> the row by load, for the rows matching `match`."""
    out: dict[tuple[Any, str], dict[int, Row]] = defaultdict(dict)
    match.setdefault("tie_rule", "-")
    for r in rows:
        if all(r.get(k) == v for k, v in match.items()) and r["selection"] == "load":
            out[(r["replicate"], r["trace"])][r["k"]] = r
    return {key: ks for key, ks in out.items() if set(ks) == {1, 2, 3, 4}}


def _first_step_largest(rows: Sequence[Row], **match: Any) -> Configurations | None:
    r"""Per trace, and per later step: $100\,((T_1 - T_2) - (T_k - T_{k+1})) / T_1$ for
    $k = 2, 3$ (the step from one to two sites beyond each later step), each judged over the
    replicates; the claim holds when every (trace, step) holds."""
    ks = _ks(rows, **match)
    if not ks:
        return None
    parts: list[tuple[str, Part]] = []
    for trace in sorted({t for _, t in ks}):
        mine = {rep: t for (rep, tr), t in sorted(ks.items(), key=lambda i: i[0][0] or 0)
                if tr == trace}  # fmt: skip
        for k in (2, 3):
            values = []
            for t in mine.values():
                first = t[1]["mean_turnaround"] - t[2]["mean_turnaround"]
                later = t[k]["mean_turnaround"] - t[k + 1]["mean_turnaround"]
                values.append(100.0 * (first - later) / t[1]["mean_turnaround"])
            label = f"{trace}, K 1→2 beyond K {k}→{k + 1}"
            if all(t[j]["digest"] == t[j + 1]["digest"] for t in mine.values() for j in (1, k)):
                parts.append((label, Tie()))
            else:
                parts.append((label, MeanEstimate(values, unit="%")))
    return Configurations("every", cast(Any, parts))  # attrs types `parts` by its converter


def _selection_change(rows: Sequence[Row], **match: Any) -> Configurations | None:
    """Completion-time against load selection, % of load, per trace: each replicate's mean
    over K = 1..3."""
    values: dict[Cell, float] = {}
    same: dict[Cell, bool] = {}
    for k in (1, 2, 3):
        by_completion = _cells(rows, **match, k=k, selection="completion")
        by_load = _cells(rows, **match, k=k, selection="load")
        for replicate, trace, _ in set(by_completion) & set(by_load):
            new = by_completion[(replicate, trace, _)]
            old = by_load[(replicate, trace, _)]
            cell = (replicate, trace, float(k))
            values[cell] = _pct(new["mean_turnaround"], old["mean_turnaround"])
            same[cell] = new["digest"] == old["digest"]
    return per_trace(values, same)


def _transfer_change(rows: Sequence[Row]) -> Configurations | None:
    """With transfer against without, mean turnaround, % of without, per trace: each
    replicate's mean over K = 1..4 by load."""
    values: dict[Cell, float] = {}
    same: dict[Cell, bool] = {}
    for k in (1, 2, 3, 4):
        a = _cells(rows, group="transfer", k=k, selection="load")
        b = _cells(rows, group="k", k=k, selection="load")
        for replicate, trace, factor in set(a) & set(b):
            key = (replicate, trace, factor)
            cell = (replicate, trace, float(k))
            values[cell] = _pct(a[key]["mean_turnaround"], b[key]["mean_turnaround"])
            same[cell] = a[key]["digest"] == b[key]["digest"]
    return per_trace(values, same)


def _message_growth(rows: Sequence[Row]) -> Configurations | None:
    """Messages at K = 4 against K = 2 (by load, with transfer), % of K = 2, per trace."""
    return _change(
        rows,
        "messages",
        {"group": "transfer", "k": 4, "selection": "load"},
        {"group": "transfer", "k": 2, "selection": "load"},
    )


def _single_site_detail(rows: Sequence[Row]) -> str:
    """Per trace, at how many load factors EASY's mean turnaround is below conservative's,
    and the range of the change."""
    a = _cells(rows, group="policies", policy="single-easy")
    b = _cells(rows, group="policies", policy="single-conservative")
    parts = []
    for trace in sorted({t for _, t, _ in set(a) & set(b)}):
        changes = [_pct(a[c]["mean_turnaround"], b[c]["mean_turnaround"])
                   for c in sorted(set(a) & set(b)) if c[1] == trace]  # fmt: skip
        below = sum(1 for x in changes if x < 0)
        parts.append(
            f"{trace}: EASY lower at {below} of {len(changes)} load factors "
            f"(change {min(changes):+.1f} % to {max(changes):+.1f} %)"
        )
    return "; ".join(parts)


def _describe(rows: Sequence[Row], group: str, **match: Any) -> str:
    """The data a claim is measured on, and the configurations it covers."""
    mine = [
        r
        for r in rows
        if r["group"] == group
        and r["tie_rule"] == "-"
        and all(r.get(k) == v for k, v in match.items())
    ]
    if not mine:
        return "-"
    traces = sorted({(r["trace"], r["data"]) for r in mine})
    jobs = sorted({r["jobs"] for r in mine})
    factors = sorted({r["load_factor"] for r in mine})
    replicates = sorted({r["replicate"] for r in mine if r["replicate"] is not None})
    shown = " and ".join(f"{t} ({d})" for t, d in traces)
    span = (
        f"load factor {factors[0]:g}"
        if len(factors) == 1
        else f"load factors {factors[0]:g}-{factors[-1]:g} (mean over them)"
    )
    where = (
        f"one site of the trace's size with the four copies, runtimes ÷ 4; {span}; "
        "one run per trace and load factor (nothing is drawn)"
        if not replicates
        else f"four sites; {span}; {len(replicates)} class-seed replicates"
    )
    per = "judged per trace (each must hold)" if len(traces) > 1 else "one trace"
    return f"{shown}, first {', '.join(map(str, jobs))} jobs each; {where}; {per}"


def _parts_text(measured: Measured) -> str:
    """Each configuration's estimate, for the `ours` column."""
    if not isinstance(measured, Configurations):
        return ""
    return "; ".join(f"{label}: {part.describe()}" for label, part in measured.parts
                     if part is not None)  # fmt: skip


def claims(rows: Sequence[Row]) -> list[Claim]:
    """Every claim of §3-§7, judged per trace at the strength the paper states (its word's
    margin), then our extensions.

    Each estimate is a relative change in % (a difference of two changes for the $K$
    steps); `ours` shows it per trace.
    """
    policies = _describe(rows, "policies", policy="greedy")
    single = _describe(rows, "policies", policy="single-easy")
    k = _describe(rows, "k")
    transfer = _describe(rows, "transfer")
    ours = _describe(rows, "k-ours")
    full = {"group": "policies"}

    def change(field: str, a: str, b: str) -> Configurations | None:
        return _change(rows, field, {**full, "policy": a}, {**full, "policy": b})

    def pct(a: str, b: str, what: str) -> str:
        return f"{a} against {b}, {what}, change in % of {b}, paired per replicate"

    turnaround, util, effective = "mean_turnaround", "utilisation", "effective_utilisation"

    def claim(key: str, text: str, data: str, measure: str, expect: Expect,
              estimate: Configurations | None, *, word: str = "", extra: str = "",
              origin: str = "paper") -> Claim:  # fmt: skip
        shown = "; ".join(x for x in (_parts_text(estimate), extra) if x)
        return Claim(key, text, data, measure, expect, estimate, shown, origin, word=word)

    out = [
        claim("greedy-mr-slightly-better",
              "multiple requests (EASY, K = 4) decrease the average turnaround time only very "
              "slightly compared with greedy (§4, Fig. 1)",
              policies, pct("greedy-mr", "greedy", "mean turnaround"),
              expectation("very slightly"), change(turnaround, "greedy-mr", "greedy"),
              word="very slightly"),
        claim("greedy-mr-utilisation-slightly-higher",
              "greedy-MR's utilisation improves only slightly over greedy's (§4, Fig. 2)",
              policies, pct("greedy-mr", "greedy", "utilisation"),
              expectation("slightly", lower=False), change(util, "greedy-mr", "greedy"),
              word="slightly"),
        claim("conservative-much-better-multisite",
              "multi-site: completion-based conservative multiple requests perform much better "
              "than start-based aggressive (EASY) ones (§5, Fig. 4)",
              policies, pct("conservative-mr", "greedy-mr", "mean turnaround"),
              expectation("much"), change(turnaround, "conservative-mr", "greedy-mr"),
              word="much"),
        claim("aggressive-better-single-site",
              "single site (runtimes ÷ 4): aggressive backfilling outperforms conservative "
              "(§5, Fig. 5)",
              single, pct("single-easy", "single-conservative", "mean turnaround"),
              expectation("better"), change(turnaround, "single-easy", "single-conservative"),
              word="better", extra=_single_site_detail(rows)),
        claim("aggressive-higher-raw-utilisation",
              "the aggressive scheme has better raw utilisation than the conservative one "
              "(§5, Fig. 6)",
              policies, pct("greedy-mr", "conservative-mr", "utilisation"),
              expectation("better", lower=False), change(util, "greedy-mr", "conservative-mr"),
              word="better"),
        claim("aggressive-lower-effective-utilisation",
              "... but worse effective utilisation (§5, Fig. 7)",
              policies, pct("greedy-mr", "conservative-mr", "effective utilisation"),
              expectation("better"), change(effective, "greedy-mr", "conservative-mr"),
              word="better"),
        claim("cancel-slower-improves-slightly",
              "cancelling only the copies at slower sites improves performance, but not to a "
              "significant extent (§5)",
              policies, pct("conservative-mr-slower", "conservative-mr", "mean turnaround"),
              expectation("slightly"),
              change(turnaround, "conservative-mr-slower", "conservative-mr"), word="slightly"),
        claim("efficacy-better-turnaround",
              "efficacy priority improves the average turnaround time (§6, Fig. 8)",
              policies, pct("efficacy", "conservative-mr", "mean turnaround"),
              expectation("better"), change(turnaround, "efficacy", "conservative-mr"),
              word="better"),
        claim("efficacy-higher-effective-utilisation",
              "efficacy priority leads to a higher effective utilisation (§6, Fig. 10)",
              policies, pct("efficacy", "conservative-mr", "effective utilisation"),
              expectation("better", lower=False),
              change(effective, "efficacy", "conservative-mr"), word="better"),
        claim("fcfs-higher-raw-utilisation",
              "... in spite of the FCFS priority queue having better raw utilisation "
              "(§6, Fig. 9)",
              policies, pct("conservative-mr", "efficacy", "utilisation"),
              expectation("better", lower=False), change(util, "conservative-mr", "efficacy"),
              word="better"),
        claim("efficacy-worst-case-under-5",
              "efficacy priority costs a minimal (< 5 %) increase in worst-case turnaround time "
              "over FCFS priority (§6)",
              policies, pct("efficacy", "conservative-mr", "maximum turnaround"),
              Expect.below(5.0), change("max_turnaround", "efficacy", "conservative-mr")),
        claim("k2-greatest-gain",
              "efficacy queue, K sites by load: the greatest improvement is from K = 1 to "
              "K = 2, less as K grows further (§7, Fig. 11)",
              k, "(T1 - T2) - (Tk - Tk+1) for k = 2 and 3, in % of T1 (T_K: mean turnaround "
              "with K sites); each step judged on each trace",
              expectation("better", lower=False), _first_step_largest(rows, group="k"),
              word="better"),
        claim("completion-selection-better",
              "choosing the K sites by earliest completion time instead of load has a "
              "significant impact on turnaround (§7, Fig. 12)",
              k, "by completion against by load, mean turnaround, % of by load, mean over "
              "K = 1..3 per replicate",
              expectation("much"), _selection_change(rows, group="k"), word="much"),
        claim("completion-small-k-almost-k4",
              "with sites chosen by completion time, submitting to fewer sites (K = 2) is almost "
              "as effective as submitting to all (§7, Fig. 12)",
              k, "K = 2 by completion against K = 4, mean turnaround, % of K = 4",
              expectation("almost as"),
              _change(rows, "mean_turnaround", {"group": "k", "k": 2, "selection": "completion"},
                      {"group": "k", "k": 4, "selection": "load"}), word="almost as"),
        claim("transfer-increases-turnaround",
              "adding data-transfer time increases turnaround (§7, Fig. 13)",
              transfer, "with transfer against without, mean turnaround, % of without, "
              "mean over K = 1..4 by load per replicate",
              expectation("better", lower=False), _transfer_change(rows), word="better"),
        claim("transfer-keeps-trends",
              "... but does not affect the trends: the greatest improvement is still from "
              "K = 1 to K = 2 (§7, Fig. 13)",
              transfer, "(T1 - T2) - (Tk - Tk+1) for k = 2 and 3, in % of T1, with transfer; "
              "each step judged on each trace",
              expectation("better", lower=False), _first_step_largest(rows, group="transfer"),
              word="better"),
        claim("messages-grow-with-k",
              "control messages increase substantially with K (§7, Fig. 14)",
              transfer, "messages at K = 4 against K = 2 (by load, with transfer), % of K = 2 "
              "(K = 1 exchanges none)",
              expectation("large", lower=False), _message_growth(rows), word="large"),
    ]  # fmt: skip
    for policy in K_OURS:
        what = " (EASY completion time from the shadow time only)" if policy == "greedy-mr" else ""
        out.append(
            claim(f"{policy}-k2-greatest-gain",
                  f"{policy}, K sites by load: the greatest improvement is from K = 1 to K = 2",
                  ours, "(T1 - T2) - (Tk - Tk+1) for k = 2 and 3, in % of T1",
                  expectation("better", lower=False),
                  _first_step_largest(rows, group="k-ours", policy=policy), word="better",
                  origin="ours")
        )  # fmt: skip
        out.append(
            claim(f"{policy}-completion-selection-better",
                  f"{policy}: choosing sites by completion time beats choosing by load{what}",
                  ours, "by completion against by load, % of by load, mean over K = 1..3",
                  expectation("better"),
                  _selection_change(rows, group="k-ours", policy=policy), word="better",
                  origin="ours")
        )  # fmt: skip
    return out
