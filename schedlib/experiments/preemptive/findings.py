"""The findings of Balasubramanian et al. (2013) §6.1, §6.2 and §7, each a claim on the rows.

[`claims`][schedlib.experiments.preemptive.claims] checks them in the paper's order
(then our own, marked), under the default reading of the set-up and under each reading
that varies from it (see its docstring);
[`untestable`][schedlib.experiments.preemptive.untestable] says which configurations of
each claim compare medians that are 0 in every replicate. How each claim is measured
per configuration is in [`measures`][schedlib.experiments.preemptive.measures].
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from schedlib.experiments.claims import Claim, expectation
from schedlib.experiments.preemptive.measures import (
    Index,
    _alpha0_lowest,
    _alpha_preemptions,
    _alpha_tail,
    _alpha_waits,
    _delta_halves,
    _delta_little,
    _delta_preemptions,
    _fcfs_falls,
    _Found,
    _gap,
    _index,
    _internode,
    _local_fcfs,
    _mean_fcfs,
    _one_eighth,
    _steady,
    _tail,
)
from schedlib.experiments.preemptive.runs import DEFAULT_NAME
from schedlib.experiments.preemptive.setup import (
    CAN,
    LOCAL,
    NN,
    PAPER_NODES,
    SIDE_ALPHAS,
)
from schedlib.results.verdicts import (
    Configurations,
    Expect,
    NotTestable,
)

ONE_EIGHTH = (1 / 12, 3 / 16)
""""Approximately 1/8th the total number of jobs submitted" (§6.2): preemptions per job
within a factor 1.5 of 1/8 = 0.125 (the paper's own counts, 471 to 570 of 5000 jobs, are
within a factor 1.33 of it)."""


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
