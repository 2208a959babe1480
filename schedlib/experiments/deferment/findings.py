r"""The claims of Mine et al. (2007) (§3-§6, abstract), each measured on the rows of a run.

[`claims`][schedlib.experiments.deferment.claims] measures every claim under the default
FIFO reading (the paper's count, and the Holm family) and under each other reading that
ran (a verdict per reading, in its own column), paired over trials, with the margins of
the papers' words ([`WORDS`][schedlib.experiments.claims.WORDS]).

**Ties.** Each per-trial row carries its run's
[`schedule_digest`][schedlib.results.digest.schedule_digest]. Where the two sides of a
comparison made the same schedule in every trial (round robin and FIFO once jobs no
longer overlap, a deferment bound that never acts), the comparison is a
[`Tie`][schedlib.results.verdicts.Tie]: no evidence either way, left out of the count of
its claim's configurations and shown.

**Several configurations.** A claim about several configurations ("regardless of the
interval", "the shorter the interval, the longer", "both FIFO and Round-Robin", "in most
cases") is judged per configuration with
[`Configurations`][schedlib.results.verdicts.Configurations]: "every" or "most", never on
the configuration with the weakest evidence alone.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from schedlib.experiments.claims import Claim, expectation
from schedlib.experiments.deferment.runs import _CONFIG
from schedlib.experiments.deferment.setup import DEFAULT_READING, READINGS
from schedlib.results.verdicts import (
    Configurations,
    Expect,
    MeanEstimate,
    Measured,
    Part,
    ProportionEstimate,
    Tie,
)

QUICK_DIFFERS: dict[str, str] = {
    "standard-fifo-overtakes": "standard FIFO overtakes in well under 1 % of the trials: the "
    "full run looks at 1000 trials, the quick run's few trials see none (inconclusive)",
    "rr-waiting-negligible": "each configuration's waiting time is below the 2 % margin in "
    "the quick run too, but over 8 trials the claim's p-value, Holm-corrected over the claims, "
    "stays above 2.5 % (inconclusive)",
    "fifo-beats-rr-most-cases": "every case that is not a tie holds in the quick run too, but "
    "over 8 trials the claim's p-value, Holm-corrected over the claims, stays above 2.5 % "
    "(inconclusive)",
}
"""Claims whose `--quick` verdict differs from the documented full-size one, and why
(`tests/experiments/test_pages.py` keeps this list exact)."""

TIME = "time units"
"""The paper's unit of time (Table 1 gives speeds in instructions per unit time)."""
IDENTICAL = "identical schedules in every trial"
"""Why a comparison is a tie."""

Trials = dict[int, Mapping[str, Any]]
"""One configuration's per-trial rows: trial -> row."""


class _Trials:
    """Per-trial rows indexed by experiment and configuration: trial -> row."""

    def __init__(self, rows: Iterable[Mapping[str, Any]]) -> None:
        self.cells: dict[tuple[Any, ...], Trials] = {}
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
    ) -> Trials:
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


def identical(new: Trials, old: Trials) -> bool:
    """Whether two configurations made the same schedule in every common trial (their rows'
    `schedule` digests agree; `False` when a row has none or no trial is common).

    Examples
    --------
    >>> identical({0: {"schedule": "a"}, 1: {"schedule": "b"}},
    ...           {0: {"schedule": "a"}, 1: {"schedule": "b"}})
    True
    >>> identical({0: {"schedule": "a"}}, {0: {"schedule": "c"}}), identical({}, {})
    (False, False)
    """
    common = set(new) & set(old)
    return bool(common) and all(
        new[t].get("schedule") is not None and new[t].get("schedule") == old[t].get("schedule")
        for t in common
    )


def compare(
    new: Trials,
    old: Trials,
    field: str,
    *,
    base: str | None = None,
    relative: bool = True,
) -> Part:
    """`field` of `new` minus `old`, paired per common trial: in % of `old`'s `base` (default:
    `field` itself) when `relative`, else in time units; a
    [`Tie`][schedlib.results.verdicts.Tie] when both made the same schedule in every trial;
    `None` when no trial is common.

    Examples
    --------
    >>> a = {0: {"total": 90.0, "schedule": "x"}, 1: {"total": 80.0, "schedule": "y"}}
    >>> b = {0: {"total": 100.0, "schedule": "z"}, 1: {"total": 100.0, "schedule": "w"}}
    >>> compare(a, b, "total").describe()
    '-15 % ± 64 (n = 2)'
    >>> compare(a, a, "total")
    Tie(reason='identical schedules in every trial')
    """
    common = sorted(set(new) & set(old))
    if not common:
        return None
    if identical(new, old):
        return Tie(IDENTICAL)
    if not relative:
        return MeanEstimate([new[t][field] - old[t][field] for t in common], unit=TIME)
    return MeanEstimate(
        [100.0 * (new[t][field] - old[t][field]) / old[t][base or field] for t in common],
        unit="%",
    )


def _label(algorithm: str, bound: int | None, interval: float | None = None) -> str:
    name = {"fifo": "FIFO", "round_robin": "RR"}[algorithm]
    variant = f"{name} " + ("standard" if bound is None else f"B = {bound}")
    return variant if interval is None else f"{variant} at {interval:g}"


def _span(parts: Sequence[tuple[str, Part]]) -> str:
    """The range of the configurations' mean values, with the unit (ties left out)."""
    means = [p for _, p in parts if isinstance(p, MeanEstimate) and p.n > 0]
    if not means:
        return ""
    low = min(means, key=lambda p: p.mean)
    high = max(means, key=lambda p: p.mean)
    unit = f" {means[0].unit}" if means[0].unit else ""
    if low is high:
        return f"mean {low.mean:.3g}{unit}"
    return f"means {low.mean:.3g}{unit} to {high.mean:.3g}{unit}"


def described(measured: Measured, expect: Expect) -> str:
    """What a claim measured, as its row shows it (a composite claim's count of configurations
    that hold, and the range of their means).

    Examples
    --------
    >>> described(None, Expect.below(0.0)), described(Tie(), Expect.below(0.0))
    ('-', 'tie: identical schedules')
    """
    if measured is None:
        return "-"
    if isinstance(measured, Configurations):
        span = _span(measured.parts)
        return measured.describe(expect) + (f"; {span}" if span else "")
    return measured.describe()


def _configurations(quantifier: str, parts: Sequence[tuple[str, Part]]) -> Measured:
    """`Configurations` of `parts`, or `None` when nothing ran."""
    present = [(label, part) for label, part in parts if part is not None]
    if not present:
        return None
    return Configurations(quantifier, present)  # type: ignore[arg-type]  # attrs' converter=tuple


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
        The FIFO reading whose verdicts are the paper's count (default: the default
        reading if it ran, else the one that ran); every other reading that ran is
        measured too, in [`Claim.readings`][schedlib.experiments.claims.Claim]. Round
        robin has one reading: its claims measure the same under every reading.

    Returns
    -------
    list of Claim
        Eighteen claims (four of the paper's split per algorithm, the abstract's
        spare-power claim at 8 and 32 jobs), paired over trials (common random
        numbers); a claim whose rows are absent has no estimate (`not run`).

    Notes
    -----
    A claim about several configurations is judged per configuration
    ([`Configurations`][schedlib.results.verdicts.Configurations]): "every" for "regardless
    of the interval", "the shorter the interval, the longer", "for shorter intervals",
    "nearly equal performance", "no relationship"; "most" for "in most cases". A
    configuration whose two sides made the same schedule in every trial is a tie, not
    counted.

    Examples
    --------
    >>> [c.estimate for c in claims([])][:2]
    [None, None]
    >>> len(claims([]))
    18
    """
    trials = _Trials(rows)
    main = _reading_of(trials, reading)
    chosen = _Claims(trials, main).all()
    others = [r for r in trials.readings() if r != main]
    measured = {r: _Claims(trials, r).all() for r in others}
    return [
        attrs.evolve(c, readings=[(r, measured[r][index].estimate) for r in others])
        for index, c in enumerate(chosen)
    ]


class _Claims:
    """The claims of one run for one FIFO reading (one method per claim or pair)."""

    def __init__(self, trials: _Trials, reading: str) -> None:
        self.t = trials
        self.reading = reading
        self.intervals = trials.intervals("main")
        first = self.intervals[0] if self.intervals else None
        cells = trials.get("main", "round_robin", None, None, first) if first else {}
        self.count = len(cells)
        jobs = next(iter(cells.values()))["jobs"] if cells else "-"
        self.setting = f"{jobs}-job trials (main experiment, {self.count} trials)"

    def reading_of(self, algorithm: str) -> str | None:
        return self.reading if algorithm == "fifo" else None

    def bounds(self, algorithm: str) -> list[int | None]:
        return [None, *self.t.bounds("main", algorithm)]

    def cells(
        self, algorithm: str, bound: int | None, interval: float | None, experiment: str = "main"
    ) -> Trials:
        if interval is None:
            return {}
        return self.t.get(experiment, algorithm, self.reading_of(algorithm), bound, interval)

    def data(self, what: str) -> str:
        return f"{self.setting}, {what}"

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

    def claim(
        self,
        key: str,
        text: str,
        data: str,
        measure: str,
        word: str,
        parts: Sequence[tuple[str, Part]],
        *,
        quantifier: str = "every",
        lower: bool = True,
        ours: str = "",
    ) -> Claim:
        """A claim over configurations, judged per configuration, with the paper's word."""
        span = _span(parts)
        return Claim(
            key,
            text,
            data,
            measure + "; ties (identical schedules in every trial) are not counted",
            expectation(word, lower=lower),
            _configurations(quantifier, parts),
            "; ".join(x for x in (span, ours) if x),
            word=word,
        )

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
                    f"{', '.join(f'{i:g}' for i in at) or '-'}",
                    "share of trials with an overtaking job (exact binomial interval)",
                    Expect.above(0.0),
                    ProportionEstimate(len(seen), len(hit)) if hit else None,
                    ours=f"in trial(s) {shown}" if seen else "",
                )
            )
        return out

    def nearly_equal(self) -> list[Claim]:
        out = []
        for algorithm, name in (("fifo", "FIFO"), ("round_robin", "Round-Robin")):
            parts = [
                (
                    _label(algorithm, b, i),
                    compare(self.cells(algorithm, b, i), self.cells(algorithm, None, i), "total"),
                )
                for b in self.bounds(algorithm)[1:]
                for i in self.intervals
            ]
            out.append(
                self.claim(
                    f"nearly-equal-{_short(algorithm)}",
                    f"{name} with the proposed policy achieves nearly equal performance to "
                    f"standard {name} (§5.2, §6, abstract)",
                    self.data(f"every deferment bound at every interval ({len(parts)})"),
                    "deferment minus standard, mean total time per job, % of standard, paired "
                    "per trial, in each (bound, interval)",
                    "not significant",
                    parts,
                )
            )
        return out

    def bound_no_effect(self) -> list[Claim]:
        out = []
        for algorithm, name in (("fifo", "FIFO"), ("round_robin", "Round-Robin")):
            bounds = self.bounds(algorithm)[1:]
            parts: list[tuple[str, Part]] = []
            if len(bounds) >= 2:
                low, high = bounds[0], bounds[-1]
                for i in self.intervals:
                    new, old = self.cells(algorithm, high, i), self.cells(algorithm, low, i)
                    for field in ("computation", "waiting", "total", "total_std"):
                        parts.append((f"{_MEASURE[field]} at {i:g}",
                                      compare(new, old, field, base="total")))  # fmt: skip
            pair = f"B = {bounds[-1]} minus B = {bounds[0]}" if len(bounds) >= 2 else "-"
            out.append(
                self.claim(
                    f"bound-no-effect-{_short(algorithm)}",
                    f"{name} shows no relationship between the task deferment bound and the "
                    "computation, waiting or total time or its standard deviation (§5.2, §6)",
                    self.data(f"the four measures at {len(self.intervals)} intervals"),
                    f"{pair}, each measure in % of B = {bounds[0] if bounds else '-'}'s total "
                    "time, paired per trial, for each measure at each interval",
                    "not significant",
                    parts,
                )
            )
        return out

    def fifo_computation_flat(self) -> Claim:
        longest = self.intervals[-1] if self.intervals else None
        parts = [
            (
                _label("fifo", b, i),
                compare(self.cells("fifo", b, i), self.cells("fifo", b, longest), "computation"),
            )
            for b in self.bounds("fifo")
            for i in self.intervals[:-1]
        ]
        return self.claim(
            "fifo-computation-flat",
            "In FIFO, regardless of the interval, the average computation time varies little "
            "(§5.2, Fig. 1a)",
            self.data("every FIFO variant"),
            f"computation time at each interval minus at the longest ({_g(longest)}), % of "
            "the latter, paired per trial, for each variant and interval",
            "not significant",
            parts,
        )

    def trend(self, algorithms: Sequence[str], field: str) -> list[tuple[str, Part]]:
        steps = list(zip(self.intervals, self.intervals[1:], strict=False))
        return [
            (
                f"{_label(a, b)}, {short:g} vs {long:g}",
                compare(self.cells(a, b, short), self.cells(a, b, long), field),
            )
            for a in algorithms
            for b in self.bounds(a)
            for short, long in steps
        ]

    def rr_computation_grows(self) -> Claim:
        return self.claim(
            "rr-computation-grows",
            "In Round-Robin, the shorter the interval, the longer the average computation time "
            "(§5.2, Fig. 1b)",
            self.data("every round-robin variant"),
            "computation time at an interval minus at the next longer one, % of the latter, "
            "paired per trial, for each variant and step",
            "better",
            self.trend(["round_robin"], "computation"),
            lower=False,
        )

    def fifo_waiting_grows(self) -> Claim:
        shortest, longest = (
            (self.intervals[0], self.intervals[-1]) if self.intervals else (None, None)
        )
        parts = [
            (
                _label("fifo", b),
                compare(
                    self.cells("fifo", b, shortest),
                    self.cells("fifo", b, longest),
                    "waiting",
                    relative=False,
                ),
            )
            for b in self.bounds("fifo")
        ]
        return self.claim(
            "fifo-waiting-grows",
            "In FIFO, a shorter interval tends to result in a longer average waiting time "
            "(§5.2, Fig. 2a)",
            self.data("every FIFO variant"),
            f"mean waiting time per job at the shortest interval ({_g(shortest)}) minus at the "
            f"longest ({_g(longest)}), in {TIME}, paired per trial, for each variant",
            "better",
            parts,
            lower=False,
        )

    def rr_waiting_negligible(self) -> Claim:
        parts: list[tuple[str, Part]] = []
        for b in self.bounds("round_robin"):
            for i in self.intervals:
                rows = [r for _, r in sorted(self.cells("round_robin", b, i).items())]
                values = [100.0 * r["waiting"] / r["computation"] for r in rows]
                parts.append(
                    (
                        _label("round_robin", b, i),
                        MeanEstimate(values, unit="%") if values else None,
                    )
                )
        return self.claim(
            "rr-waiting-negligible",
            "In Round-Robin, regardless of the interval, the average waiting time is negligible "
            "compared to the computation time (§5.2, Fig. 2b)",
            self.data("every round-robin variant and interval"),
            "mean waiting time in % of the mean computation time, per trial, for each variant "
            "and interval",
            "negligible",
            parts,
        )

    def total_grows(self) -> Claim:
        return self.claim(
            "total-grows",
            "In both FIFO and Round-Robin, the shorter the interval, the longer the average "
            "total time (§5.2, Fig. 3a, 3b)",
            self.data("every variant"),
            "total time at an interval minus at the next longer one, % of the latter, paired "
            "per trial, for each variant and step",
            "better",
            self.trend(["fifo", "round_robin"], "total"),
            lower=False,
        )

    def versus(self, field: str, at: Sequence[float], fifo_first: bool) -> list[tuple[str, Part]]:
        """FIFO against round robin (or the reverse), same variant and interval."""
        out = []
        for b in self.bounds("fifo"):
            for i in at:
                f, r = self.cells("fifo", b, i), self.cells("round_robin", b, i)
                label = f"{'standard' if b is None else f'B = {b}'} at {i:g}"
                out.append((label, compare(f, r, field) if fifo_first else compare(r, f, field)))
        return out

    def fifo_beats_rr(self) -> Claim:
        cases = self.versus("total", self.intervals, fifo_first=True)
        return self.claim(
            "fifo-beats-rr-most-cases",
            "In most cases, the average total time of FIFO algorithms is shorter than that of "
            "Round-Robin algorithms (§5.2, Fig. 3)",
            self.data(f"{len(cases)} cases (variant, interval)"),
            "FIFO minus round robin, same variant and interval, mean total time per job, % of "
            "round robin, paired per trial, in each case; more than half of the cases that "
            "are not ties must hold",
            "better",
            cases,
            quantifier="most",
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
            smaller, other = ("FIFO", "round robin") if fifo_first else ("round robin", "FIFO")
            out.append(
                self.claim(
                    key,
                    f"{text} (§5.2, Fig. 4)",
                    self.data(
                        f"every variant at intervals {', '.join(f'{i:g}' for i in at) or '-'} "
                        f"(the {'longer' if fifo_first else 'shorter'} half)"
                    ),
                    f"{smaller} minus {other}, same variant and interval, std. dev. of total "
                    f"time, % of {other}, paired per trial, in each case",
                    "better",
                    self.versus("total_std", at, fifo_first),
                )
            )
        return out

    def fifo_deferment_better(self) -> Claim:
        parts = [
            (
                _label("fifo", b, i).replace("FIFO ", ""),
                compare(self.cells("fifo", b, i), self.cells("round_robin", b, i), "total"),
            )
            for b in self.bounds("fifo")[1:]
            for i in self.intervals
        ]
        return self.claim(
            "fifo-deferment-better",
            "The algorithm based on FIFO with the proposed policy has better performance than "
            "the one based on Round-Robin (§6)",
            self.data("every deferment bound at every interval"),
            "FIFO with deferment minus round robin with the same bound, mean total time per "
            "job, % of round robin, paired per trial, in each (bound, interval)",
            "better",
            parts,
        )

    def spare_power(self) -> list[Claim]:
        out = []
        for key, experiment, where in (
            ("spare-power-table-1", "main", "Table 1"),
            ("spare-power-text", "spare", "the text of §5.1"),
        ):
            at = self.t.intervals(experiment)
            parts: list[tuple[str, Part]] = []
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
                            parts.append((_label(algorithm, b, i), compare(mine, standard, "work")))
                if len(replicas) > 1:
                    shown.append(
                        f"{_label(algorithm, None)} {replicas[0]:.1f}, with deferment "
                        f"{min(replicas[1:]):.1f}-{max(replicas[1:]):.1f}"
                    )
            out.append(
                self.claim(
                    key,
                    "The proposed algorithms' consumption of spare computing power is small "
                    f"(abstract in Japanese: 余剰計算力の消費量が小さい), {jobs} jobs ({where})",
                    f"{jobs}-job trials ({experiment} experiment, {len(trials)} trials) at "
                    f"intervals {', '.join(f'{i:g}' for i in at) or '-'}",
                    "spare power consumed (instructions computed, cancelled replicas "
                    "included), deferment minus the standard algorithm, % of the standard's, "
                    "paired per trial, in each (algorithm, bound, interval)",
                    "not significant",
                    parts,
                    ours=f"replicas per trial at {_g(at[0] if at else None)}: " + "; ".join(shown)
                    if shown
                    else "",
                )
            )
        return out


_MEASURE = {
    "computation": "computation",
    "waiting": "waiting",
    "total": "total",
    "total_std": "std. dev. of total",
}


def _short(algorithm: str) -> str:
    return "fifo" if algorithm == "fifo" else "rr"


def _g(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"
