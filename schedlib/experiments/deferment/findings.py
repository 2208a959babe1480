"""The claims of Mine et al. (2007) (§3-§6, abstract), each measured on the rows of a run.

[`claims`][schedlib.experiments.deferment.claims] judges every claim for one FIFO
reading, paired over trials, with the margins stated here.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from schedlib.experiments.claims import Claim
from schedlib.experiments.deferment.runs import _CONFIG
from schedlib.experiments.deferment.setup import DEFAULT_READING, READINGS
from schedlib.results.verdicts import Expect, MeanEstimate, ProportionEstimate, paired_difference

QUICK_DIFFERS: dict[str, str] = {
    "standard-fifo-overtakes": "standard FIFO overtakes in well under 1 % of the trials: the "
    "full run looks at 1000 trials, the quick run's few trials see none (inconclusive)",
    "bound-no-effect-rr": "the bound's effect on round robin is a fraction of a percent, but "
    "its spread from trial to trial is wider than the 1 % margin: a few trials cannot put "
    "the interval inside the margin (inconclusive)",
    "rr-waiting-negligible": "round robin's waiting time, in % of its computation time, "
    "varies from trial to trial as much as the 2 % margin: a few trials cannot put the "
    "interval under it (inconclusive)",
}
"""Claims whose `--quick` verdict differs from the documented full-size one, and why
(`tests/experiments/test_pages.py` keeps this list exact)."""


NEARLY_EQUAL = 5.0
"""Margin of "nearly equal" (and of "varies little", "small"): within 5 % (see the page)."""
NO_RELATION = 1.0
"""Margin of "no relationship" with the bound: the extreme bounds within 1 % of the total time."""
NEGLIGIBLE = 2.0
"""Margin of "negligible": a waiting time under 2 % of the computation time."""


class _Trials:
    """Per-trial rows indexed by experiment and configuration: trial -> row."""

    def __init__(self, rows: Iterable[Mapping[str, Any]]) -> None:
        self.cells: dict[tuple[Any, ...], dict[int, Mapping[str, Any]]] = {}
        for r in rows:
            if r.get("kind") == "trial":
                key = (r["experiment"], *(r[k] for k in _CONFIG))
                self.cells.setdefault(key, {})[r["trial"]] = r

    def get(
        self,
        experiment: str,
        algorithm: str,
        reading: str | None,
        bound: int | None,
        interval: float,
    ) -> dict[int, Mapping[str, Any]]:
        return self.cells.get((experiment, algorithm, reading, bound, interval), {})

    def intervals(self, experiment: str) -> list[float]:
        return sorted({k[4] for k in self.cells if k[0] == experiment})

    def bounds(self, experiment: str, algorithm: str) -> list[int]:
        return sorted(
            {
                k[3]
                for k in self.cells
                if k[0] == experiment and k[1] == algorithm and k[3] is not None
            }
        )

    def readings(self) -> list[str]:
        return [r for r in READINGS if any(k[1] == "fifo" and k[2] == r for k in self.cells)]


def _pairs(
    new: Mapping[int, Mapping[str, Any]],
    old: Mapping[int, Mapping[str, Any]],
    field: str,
    base: str | None = None,
) -> tuple[list[float], list[float], list[float]]:
    """Values of `field` in both configurations over their common trials, and of `base` in `old`."""
    common = sorted(set(new) & set(old))
    return (
        [new[t][field] for t in common],
        [old[t][field] for t in common],
        [old[t][base or field] for t in common],
    )


def _relative(
    new: Mapping[int, Mapping[str, Any]], old: Mapping[int, Mapping[str, Any]], field: str
) -> MeanEstimate | None:
    a, b, _ = _pairs(new, old, field)
    return paired_difference(a, b, relative=True) if a else None


def _weakest(
    candidates: Sequence[tuple[str, MeanEstimate | None]],
    expect: Expect,
    needed: int | None = None,
) -> tuple[str, MeanEstimate | None]:
    """The candidate that decides a claim over several configurations.

    All must hold (`needed` = `None`): the one with the largest $p$-value of
    the claim (an intersection-union test). At least `needed` must hold: the
    `needed`-th best supported. Ties keep the candidates' order.
    """
    present = [(label, e) for label, e in candidates if e is not None and e.n > 0]
    if not present or (needed is not None and needed > len(present)):
        return ("-", None)
    ranked = sorted(present, key=lambda c: expect.p_values(c[1])[0])
    return ranked[(needed or len(ranked)) - 1]


def _label(algorithm: str, bound: int | None, interval: float | None = None) -> str:
    name = {"fifo": "FIFO", "round_robin": "RR"}[algorithm]
    variant = f"{name} " + ("standard" if bound is None else f"B = {bound}")
    return variant if interval is None else f"{variant} at {interval:g}"


def _fmt(value: float) -> str:
    return f"{value:.1f}"


def _span(values: Sequence[float]) -> str:
    return f"{_fmt(min(values))}-{_fmt(max(values))}" if values else "-"


def _reading_of(t: _Trials, reading: str | None) -> str:
    present = t.readings()
    if reading is not None:
        return reading
    return DEFAULT_READING if DEFAULT_READING in present or not present else present[0]


def claims(rows: Sequence[Mapping[str, Any]], reading: str | None = None) -> list[Claim]:
    """Every claim of the paper (§3-§6, abstract), each measured on the rows of a run.

    Parameters
    ----------
    rows
        Rows of [`reproduce`][schedlib.experiments.deferment.reproduce] (the
        per-trial ones are used).
    reading
        The FIFO reading whose rows the claims read (default: the default
        reading if it ran, else the one that ran). Round robin has one reading.

    Returns
    -------
    list of Claim
        Eighteen claims (four of the paper's split per algorithm, the abstract's
        spare-power claim at 8 and 32 jobs), paired over trials (common random
        numbers); a claim whose rows are absent has no estimate (`not run`).
        The reproduction page gives each claim's margin and why.

    Notes
    -----
    A claim about several configurations ("regardless of the interval", "the
    shorter the interval, the longer", "both FIFO and Round-Robin") holds when
    it holds in each: its estimate is the configuration with the weakest
    evidence (the largest one-sided $p$-value of the claim; an
    intersection-union test). "In most cases" needs more than half: the
    estimate is the $(\\lfloor k/2 \\rfloor + 1)$-th best supported of $k$.

    Examples
    --------
    >>> [c.estimate for c in claims([])][:2]
    [None, None]
    >>> len(claims([]))
    18
    """
    return _Claims(_Trials(rows), reading).all()


class _Claims:
    """The claims of one run for one FIFO reading (one method per claim or pair)."""

    def __init__(self, trials: _Trials, reading: str | None) -> None:
        self.t = trials
        self.reading = _reading_of(trials, reading)
        self.intervals = trials.intervals("main")
        first = self.intervals[0] if self.intervals else None
        cells = trials.get("main", "round_robin", None, None, first) if first else {}
        self.count = len(cells)
        jobs = next(iter(cells.values()))["jobs"] if cells else "-"
        self.setting = f"{jobs}-job trials (main experiment, {self.count} trials)"
        self.note = f"FIFO reading: {self.reading}"

    def reading_of(self, algorithm: str) -> str | None:
        return self.reading if algorithm == "fifo" else None

    def bounds(self, algorithm: str) -> list[int | None]:
        return [None, *self.t.bounds("main", algorithm)]

    def cells(
        self, algorithm: str, bound: int | None, interval: float | None, experiment: str = "main"
    ) -> dict[int, Mapping[str, Any]]:
        if interval is None:
            return {}
        return self.t.get(experiment, algorithm, self.reading_of(algorithm), bound, interval)

    def data(self, what: str, fifo: bool = True) -> str:
        return f"{self.setting}, {what}" + (f"; {self.note}" if fifo else "")

    def all(self) -> list[Claim]:
        return [
            self.never_overtakes(),
            *self.standard_overtakes(),
            *self.nearly_equal(),
            *self.bound_no_effect(),
            self.fifo_computation_flat(),
            self.rr_computation_grows(),
            self.fifo_waiting_grows(),
            self.rr_waiting_negligible(),
            self.total_grows(),
            self.fifo_beats_rr(),
            *self.std_order(),
            self.fifo_deferment_better(),
            *self.spare_power(),
        ]

    def never_overtakes(self) -> Claim:
        per_trial: dict[int, float] = {}
        for algorithm in ("fifo", "round_robin"):
            for bound in self.bounds(algorithm)[1:]:
                for interval in self.intervals:
                    for trial, row in self.cells(algorithm, bound, interval).items():
                        per_trial[trial] = per_trial.get(trial, 0) + row["overtaking_jobs"]
        values = [per_trial[k] for k in sorted(per_trial)]
        return Claim(
            "never-overtakes",
            "Task deferment never results in an overtaking job (abstract, §4, §6)",
            self.data("every deferment variant and interval"),
            "overtaking jobs per trial, summed over the deferment variants and intervals "
            "(never: none in any trial)",
            Expect.below(0.01),
            MeanEstimate(values, unit="jobs") if values else None,
        )

    def standard_overtakes(self) -> list[Claim]:
        at = self.t.intervals("overtaking")
        out = []
        for key, algorithm, name in (
            ("standard-fifo-overtakes", "fifo", "FIFO"),
            ("standard-rr-overtakes", "round_robin", "Round-Robin"),
        ):
            experiment = "overtaking" if algorithm == "fifo" else "main"
            hit: dict[int, bool] = {}
            for interval in at:
                for trial, row in self.cells(algorithm, None, interval, experiment).items():
                    hit[trial] = hit.get(trial, False) or row["overtaking_jobs"] > 0
            seen = sorted(k for k, v in hit.items() if v)
            shown = ", ".join(str(k) for k in seen[:6]) + (" ..." if len(seen) > 6 else "")
            trials = f"{len(hit)} trials" + (
                f" (the main {self.count} and {len(hit) - self.count} more)"
                if len(hit) > self.count
                else ""
            )
            out.append(
                Claim(
                    key,
                    f"In {name}, overtaking jobs occur (§3: 'In both the FIFO and Round-Robin "
                    "scheduling algorithms, overtaking jobs can occur'; §5, preliminary "
                    "simulation)",
                    f"standard {name}, 8 jobs, {trials} at intervals "
                    f"{', '.join(f'{i:g}' for i in at) or '-'}"
                    + (f"; {self.note}" if algorithm == "fifo" else ""),
                    "share of trials with an overtaking job (exact binomial interval)",
                    Expect.above(0.0),
                    ProportionEstimate(len(seen), len(hit)) if hit else None,
                    ours=f"in trial(s) {shown}" if seen else "",
                )
            )
        return out

    def nearly_equal(self) -> list[Claim]:
        out = []
        expect = Expect.between(-NEARLY_EQUAL, NEARLY_EQUAL)
        for algorithm, name in (("fifo", "FIFO"), ("round_robin", "Round-Robin")):
            candidates = [
                (
                    _label(algorithm, b, i),
                    _relative(self.cells(algorithm, b, i), self.cells(algorithm, None, i), "total"),
                )
                for b in self.bounds(algorithm)[1:]
                for i in self.intervals
            ]
            label, estimate = _weakest(candidates, expect)
            out.append(
                Claim(
                    f"nearly-equal-{_short(algorithm)}",
                    f"{name} with the proposed policy achieves nearly equal performance to "
                    f"standard {name} (§5.2, §6, abstract)",
                    self.data(
                        f"{len(candidates)} (bound, interval) configurations", algorithm == "fifo"
                    ),
                    "deferment minus standard, mean total time, % of standard, paired per trial; "
                    f"the configuration with the weakest evidence ({label})",
                    expect,
                    estimate,
                )
            )
        return out

    def bound_no_effect(self) -> list[Claim]:
        out = []
        expect = Expect.between(-NO_RELATION, NO_RELATION)
        for algorithm, name in (("fifo", "FIFO"), ("round_robin", "Round-Robin")):
            bounds = self.bounds(algorithm)[1:]
            candidates: list[tuple[str, MeanEstimate | None]] = []
            if len(bounds) >= 2:
                low, high = bounds[0], bounds[-1]
                for i in self.intervals:
                    for field in ("computation", "waiting", "total", "total_std"):
                        a, b, base = _pairs(
                            self.cells(algorithm, high, i),
                            self.cells(algorithm, low, i),
                            field,
                            "total",
                        )
                        values = [100.0 * (x - y) / z for x, y, z in zip(a, b, base, strict=True)]
                        candidates.append(
                            (f"{field} at {i:g}", MeanEstimate(values, unit="%") if a else None)
                        )
            label, estimate = _weakest(candidates, expect)
            pair = f"B = {bounds[-1]} minus B = {bounds[0]}" if len(bounds) >= 2 else "-"
            out.append(
                Claim(
                    f"bound-no-effect-{_short(algorithm)}",
                    f"{name} shows no relationship between the task deferment bound and the "
                    "computation, waiting or total time or its standard deviation (§5.2, §6)",
                    self.data(
                        f"the four measures at {len(self.intervals)} intervals", algorithm == "fifo"
                    ),
                    f"{pair}, each measure in % of the total time, paired per trial; the measure "
                    f"and interval with the weakest evidence ({label})",
                    expect,
                    estimate,
                )
            )
        return out

    def fifo_computation_flat(self) -> Claim:
        expect = Expect.between(-NEARLY_EQUAL, NEARLY_EQUAL)
        longest = self.intervals[-1] if self.intervals else None
        candidates = [
            (
                _label("fifo", b, i),
                _relative(self.cells("fifo", b, i), self.cells("fifo", b, longest), "computation"),
            )
            for b in self.bounds("fifo")
            for i in self.intervals[:-1]
        ]
        label, estimate = _weakest(candidates, expect)
        return Claim(
            "fifo-computation-flat",
            "In FIFO, regardless of the interval, the average computation time varies little "
            "(§5.2, Fig. 1a)",
            self.data("every FIFO variant"),
            f"computation time at each interval minus at the longest ({_g(longest)}), % of the "
            f"latter, paired per trial; the weakest of {len(candidates)} ({label})",
            expect,
            estimate,
        )

    def trend(self, algorithms: Sequence[str], field: str) -> list[tuple[str, MeanEstimate | None]]:
        steps = list(zip(self.intervals, self.intervals[1:], strict=False))
        return [
            (
                f"{_label(a, b)}, {short:g} vs {long:g}",
                _relative(self.cells(a, b, short), self.cells(a, b, long), field),
            )
            for a in algorithms
            for b in self.bounds(a)
            for short, long in steps
        ]

    def rr_computation_grows(self) -> Claim:
        candidates = self.trend(["round_robin"], "computation")
        label, estimate = _weakest(candidates, Expect.above(0.0))
        return Claim(
            "rr-computation-grows",
            "In Round-Robin, the shorter the interval, the longer the average computation time "
            "(§5.2, Fig. 1b)",
            self.data("every round-robin variant", fifo=False),
            "computation time at an interval minus at the next longer one, % of the latter, "
            f"paired per trial; the weakest of {len(candidates)} steps ({label})",
            Expect.above(0.0),
            estimate,
        )

    def fifo_waiting_grows(self) -> Claim:
        shortest, longest = (
            (self.intervals[0], self.intervals[-1]) if self.intervals else (None, None)
        )
        candidates = []
        for b in self.bounds("fifo"):
            a, c, _ = _pairs(
                self.cells("fifo", b, shortest), self.cells("fifo", b, longest), "waiting"
            )
            candidates.append((_label("fifo", b), paired_difference(a, c) if a else None))
        label, estimate = _weakest(candidates, Expect.above(0.0))
        return Claim(
            "fifo-waiting-grows",
            "In FIFO, a shorter interval tends to result in a longer average waiting time "
            "(§5.2, Fig. 2a)",
            self.data("every FIFO variant"),
            f"waiting time at the shortest interval ({_g(shortest)}) minus at the longest "
            f"({_g(longest)}), time units, paired per trial; the weakest variant ({label})",
            Expect.above(0.0),
            estimate,
        )

    def rr_waiting_negligible(self) -> Claim:
        candidates = []
        for b in self.bounds("round_robin"):
            for i in self.intervals:
                rows = [r for _, r in sorted(self.cells("round_robin", b, i).items())]
                values = [100.0 * r["waiting"] / r["computation"] for r in rows]
                candidates.append(
                    (
                        _label("round_robin", b, i),
                        MeanEstimate(values, unit="%") if values else None,
                    )
                )
        label, estimate = _weakest(candidates, Expect.below(NEGLIGIBLE))
        return Claim(
            "rr-waiting-negligible",
            "In Round-Robin, regardless of the interval, the average waiting time is negligible "
            "compared to the computation time (§5.2, Fig. 2b)",
            self.data("every round-robin variant and interval", fifo=False),
            "waiting time in % of the computation time, per trial; the weakest of "
            f"{len(candidates)} ({label})",
            Expect.below(NEGLIGIBLE),
            estimate,
        )

    def total_grows(self) -> Claim:
        candidates = self.trend(["fifo", "round_robin"], "total")
        label, estimate = _weakest(candidates, Expect.above(0.0))
        return Claim(
            "total-grows",
            "In both FIFO and Round-Robin, the shorter the interval, the longer the average "
            "total time (§5.2, Fig. 3a, 3b)",
            self.data("every variant"),
            "total time at an interval minus at the next longer one, % of the latter, paired "
            f"per trial; the weakest of {len(candidates)} steps ({label})",
            Expect.above(0.0),
            estimate,
        )

    def versus(
        self, field: str, at: Sequence[float], fifo_first: bool
    ) -> list[tuple[str, MeanEstimate | None]]:
        """FIFO against round robin (or the reverse), same variant and interval."""
        out = []
        for b in self.bounds("fifo"):
            for i in at:
                f, r = self.cells("fifo", b, i), self.cells("round_robin", b, i)
                label = f"{'standard' if b is None else f'B = {b}'} at {i:g}"
                out.append(
                    (label, _relative(f, r, field) if fifo_first else _relative(r, f, field))
                )
        return out

    def fifo_beats_rr(self) -> Claim:
        cases = self.versus("total", self.intervals, fifo_first=True)
        needed = len(cases) // 2 + 1
        label, estimate = _weakest(cases, Expect.below(0.0), needed=needed)
        return Claim(
            "fifo-beats-rr-most-cases",
            "In most cases, the average total time of FIFO algorithms is shorter than that of "
            "Round-Robin algorithms (§5.2, Fig. 3)",
            self.data(f"{len(cases)} cases (variant, interval)"),
            "FIFO minus round robin, same variant and interval, total time, % of round robin, "
            f"paired per trial; more than half must hold: the {_ordinal(needed)} best supported of "
            f"{len(cases)} ({label})",
            Expect.below(0.0),
            estimate,
        )

    def std_order(self) -> list[Claim]:
        half = len(self.intervals) // 2
        out = []
        for key, at, fifo_first, text in (
            (
                "std-short",
                self.intervals[:half],
                False,
                "For shorter intervals, Round-Robin has a smaller standard deviation of total time",
            ),
            (
                "std-long",
                self.intervals[len(self.intervals) - half :],
                True,
                "For longer intervals, FIFO has a smaller standard deviation of total time",
            ),
        ):
            cases = self.versus("total_std", at, fifo_first)
            label, estimate = _weakest(cases, Expect.below(0.0))
            smaller, other = ("FIFO", "round robin") if fifo_first else ("round robin", "FIFO")
            out.append(
                Claim(
                    key,
                    f"{text} (§5.2, Fig. 4)",
                    self.data(
                        f"every variant at intervals {', '.join(f'{i:g}' for i in at) or '-'} "
                        f"(the {'longer' if fifo_first else 'shorter'} half)"
                    ),
                    f"{smaller} minus {other}, same variant and interval, std. dev. of total time, "
                    f"% of {other}, paired per trial; the weakest of {len(cases)} ({label})",
                    Expect.below(0.0),
                    estimate,
                )
            )
        return out

    def fifo_deferment_better(self) -> Claim:
        def overall(algorithm: str) -> dict[int, float]:
            totals: dict[int, list[float]] = {}
            for b in self.bounds(algorithm)[1:]:
                for i in self.intervals:
                    for trial, row in self.cells(algorithm, b, i).items():
                        totals.setdefault(trial, []).append(row["total"])
            return {k: statistics.fmean(v) for k, v in totals.items()}

        f, r = overall("fifo"), overall("round_robin")
        common = sorted(set(f) & set(r))
        estimate = (
            paired_difference([f[k] for k in common], [r[k] for k in common], relative=True)
            if common
            else None
        )
        return Claim(
            "fifo-deferment-better",
            "The algorithm based on FIFO with the proposed policy has better performance than "
            "the one based on Round-Robin (§6)",
            self.data("every bound and interval"),
            "FIFO with deferment minus round robin with deferment, total time averaged over "
            "the bounds and intervals, % of round robin, paired per trial",
            Expect.below(0.0),
            estimate,
        )

    def spare_power(self) -> list[Claim]:
        out = []
        expect = Expect.below(NEARLY_EQUAL)
        for key, experiment, where in (
            ("spare-power-table-1", "main", "Table 1"),
            ("spare-power-text", "spare", "the text of §5.1"),
        ):
            at = self.t.intervals(experiment)
            candidates = []
            trials: set[int] = set()
            jobs = "-"
            shown = []
            for algorithm in ("fifo", "round_robin"):
                replicas = []
                for b in self.bounds(algorithm):
                    for i in at:
                        mine = self.cells(algorithm, b, i, experiment)
                        trials |= set(mine)
                        if mine and i == at[0]:
                            jobs = str(next(iter(mine.values()))["jobs"])
                            replicas.append(statistics.fmean(r["replicas"] for r in mine.values()))
                        if b is not None:
                            standard = self.cells(algorithm, None, i, experiment)
                            candidates.append(
                                (_label(algorithm, b, i), _relative(mine, standard, "work"))
                            )
                if len(replicas) > 1:
                    shown.append(
                        f"{_label(algorithm, None)} {replicas[0]:.1f}, with deferment "
                        f"{_span(replicas[1:])}"
                    )
            label, estimate = _weakest(candidates, expect)
            out.append(
                Claim(
                    key,
                    "The proposed algorithms' consumption of spare computing power is small "
                    f"(abstract in Japanese: 余剰計算力の消費量が小さい), {jobs} jobs ({where})",
                    f"{jobs}-job trials ({experiment} experiment, {len(trials)} trials) at "
                    f"intervals {', '.join(f'{i:g}' for i in at) or '-'}; {self.note}",
                    "spare power consumed (instructions computed, cancelled replicas "
                    "included), deferment minus the standard algorithm, % of the standard's, "
                    f"paired per trial; the weakest of {len(candidates)} ({label})",
                    expect,
                    estimate,
                    ours=f"replicas per trial at {_g(at[0] if at else None)}: " + "; ".join(shown)
                    if shown
                    else "",
                )
            )
        return out


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _short(algorithm: str) -> str:
    return "fifo" if algorithm == "fifo" else "rr"


def _g(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"
