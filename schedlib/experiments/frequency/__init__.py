r"""The experiment the CSS 600 term report promised: PFS, PFS+MFS and two baselines on a pool.

The report states a hypothesis ("scheduling the higher CPU-intensive jobs
using their migration frequency across a pool of computing nodes would improve
their overall runtime efficiency", and, in its conclusion, interactive jobs
"are relatively unaffected by the migration frequency based scheduling")
and leaves its evaluation "TBD". This module runs it on a documented
synthetic workload, under every reading of the report the library offers
([`Readings`][schedlib.frequency.policies.Readings]):

```text
schedlib reproduce frequency [--quick] [--replicates 40] [--seed 0] [--quantum 1] [--max-mf 4]
                             [--max-preemption 3] [--grace 1.1] [--kc 0.5] [--kcr 0.5]
                             [--morph-share 0.2] [--readings LABEL,...]
                             [--quanta 0.5,1,2,4] [--max-mfs 0,1,2,4,8]
                             [--sweep-readings LABEL,...|none]
                             [--workers N | --dask-local N | --scheduler ADDRESS]
                             [--resume FILE] [--format table|json|csv] [--claims]
                             [--plot out.png] [--plot-sweep sweep.png]
```

**The pool** ([`POOL`][schedlib.experiments.frequency.POOL]): a head node of
speed 1, fully available, and six remote nodes of speeds 0.5 to 2 and CPU
availabilities 0.25 to 1 (rates $s \cdot a$ from 0.5 to 1.5). The fastest node
(speed 2) is also the most productive (rate 1.5) but its owner keeps a
quarter of it.

**The workload** ([`make_workload`][schedlib.experiments.frequency.make_workload],
one per replicate): over 600 s, Poisson arrivals of 40 interactive and 30
CPU-bound jobs. An interactive job has 5-15 CPU bursts of exponential work
(mean 0.3 s) separated by exponential idle times (mean 10 s); one in five is
a "morphing" job (the report's image-processing application that "can start
out as an interactive application ... and eventually morph into more
CPU-intensive computation") with one burst, not the first, of 10-40 s. A
CPU-bound job has one burst of 20-120 s. Replicate $r$ of `--seed s` draws
its jobs from [`stream(s, r, "workload")`][schedlib.replicates.stream] and
its MFS tie-breaks from `stream(s, r, "ties")`; every policy and reading sees
the same jobs in the same replicate (paired comparisons).

**Measures**, per run: the mean turnaround of the CPU-bound jobs (end minus
submission); the mean and 95th percentile of the *response time* of the
interactive jobs' bursts (a burst's completion minus its arrival at a node),
and the mean over their short bursts (at most 1 s of work: what a user of
an editor waits for); the numbers of migrations, preemptions and banned
jobs; the makespan.

**What runs.** *The comparison*, at $Q$ = `--quantum` and `MAX_MF` =
`--max-mf`: `pfs+mfs` under each reading of `--readings` (default: all
eight), `pfs` under each of their next-burst and remote-queue readings (it
has no MFS), and the two static-placement baselines (`round_robin`, `fcfs`:
placed at submission, never moved; the readings do not change them).
*The sweep*: `pfs+mfs` against `pfs` over `--quanta` $\times$ `--max-mfs`, for
each reading of `--sweep-readings` (default: the default readings, and the
same with next bursts on the last node).

**Rows.** The comparison gives one row per (policy, reading, replicate)
(`part` = `"compare"`, `replicate` = $r$) and one aggregate per (policy,
reading) (`replicate` = `"mean"`, with standard deviations `*_sd`); the sweep
one row per (reading, $Q$, `MAX_MF`) (`part` = `"sweep"`) with the three
changes of PFS+MFS against PFS in percent (mean of the per-replicate changes)
and the half-widths of their 95 % intervals, and the verdicts of the three
tests of [`HYPOTHESIS`][schedlib.experiments.frequency.HYPOTHESIS], judged
together over the whole sweep (Holm) by
[`judge`][schedlib.results.verdicts.judge]; a cell `holds` when all three
hold, `does not hold` when one does not hold, else `inconclusive`.

**Rooms** (those of every reproduction, see [`schedlib.experiments`][schedlib.experiments];
none folded). In [`setup`][schedlib.experiments.frequency.setup], the pool, the
workload's shape and draw, the three tests of the hypothesis and the measures of a run;
in [`runs`][schedlib.experiments.frequency.runs], one run, the settings, the comparison
and the sweep, whose cells are judged together; in
[`findings`][schedlib.experiments.frequency.findings], the report's claims; in
[`page`][schedlib.experiments.frequency.page], the figures and the page's sections; in
[`cli`][schedlib.experiments.frequency.cli], the command. Every public name of the rooms
is re-exported here.

Examples
--------
>>> from schedlib.frequency.policies import Readings
>>> settings = Settings(replicates=2, shape=TINY_SHAPE, readings=(Readings(),), sweep_readings=())
>>> from schedlib.experiments.running import Execution
>>> rows = reproduce(settings, Execution(workers=1))
>>> [(r["policy"], r["readings"], r["replicate"]) for r in rows][1:3]
[('pfs', 'head-node/always/-', 1), ('pfs', 'head-node/always/-', 'mean')]
>>> sorted({c.key for c in claims(rows)} - {c.key for c in claims([])})
[]
"""

from schedlib.experiments.frequency.cli import add_arguments, data, main, rows, settings_of
from schedlib.experiments.frequency.findings import QUICK_DIFFERS, claims, reading_groups
from schedlib.experiments.frequency.page import (
    figures,
    page_sections,
    plot_comparison,
    plot_readings,
    plot_sweep,
)
from schedlib.experiments.frequency.runs import (
    BASELINES,
    Run,
    Settings,
    conjunction,
    reproduce,
    run_cost,
    run_key,
    run_one,
)
from schedlib.experiments.frequency.setup import (
    DEFAULT_COST,
    DEFAULT_SHAPE,
    HYPOTHESIS,
    MARGIN,
    MAX_MF,
    NAME,
    PAPER,
    POOL,
    QUANTUM,
    REPLICATES,
    SHORT_BURST,
    SUMMARY,
    SWEEP_MAX_MFS,
    SWEEP_QUANTA,
    SWEEP_READINGS,
    TINY_SHAPE,
    WorkloadShape,
    burst_responses,
    make_workload,
    measure,
)

__all__ = [
    "BASELINES",
    "DEFAULT_COST",
    "DEFAULT_SHAPE",
    "HYPOTHESIS",
    "MARGIN",
    "MAX_MF",
    "NAME",
    "PAPER",
    "POOL",
    "QUANTUM",
    "QUICK_DIFFERS",
    "REPLICATES",
    "SHORT_BURST",
    "SUMMARY",
    "SWEEP_MAX_MFS",
    "SWEEP_QUANTA",
    "SWEEP_READINGS",
    "TINY_SHAPE",
    "Run",
    "Settings",
    "WorkloadShape",
    "add_arguments",
    "burst_responses",
    "claims",
    "conjunction",
    "data",
    "figures",
    "main",
    "make_workload",
    "measure",
    "page_sections",
    "plot_comparison",
    "plot_readings",
    "plot_sweep",
    "reading_groups",
    "reproduce",
    "rows",
    "run_cost",
    "run_key",
    "run_one",
    "settings_of",
]
