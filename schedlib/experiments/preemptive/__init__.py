r"""Reproduction of Balasubramanian et al. (JSSPP 2013) §6: preemptive and internode scheduling.

A grid of 1000 multi-core nodes receives 5000 jobs with Poisson arrivals;
four schedulers are compared at several mean inter-arrival times (IAT),
scheduling intervals $\delta$ and wait weights $\alpha$ (§6.1-6.2):

| scheduler | local decision | internode |
|---|---|---|
| `fcfs` | FCFS with backfilling (non-preemptive, [9]) | none |
| `local` | preemptive priority, Algorithm 1 | none |
| `2nn` | preemptive priority | PUSH/PULL over 2-NN |
| `can` | preemptive priority | PUSH/PULL over CAN' |

(`2nn+balance` and `can+balance` add the queue balancing of §8.)

```text
schedlib reproduce preemptive [--nodes 1000 --jobs 5000] [--iat 1.5,2.0,2.5,3.0,4.0]
                              [--delta 5] [--alpha 0,0.5] [--schedulers fcfs,local,2nn,can]
                              [--victims lower|equal] [--sizes small|skewed]
                              [--matchmaker global|limited:D] [--warm-up preloaded|none]
                              [--push fit|preempt] [--readings all|none|KINDS]
                              [--side delta,alpha1,alpha-above-1,victims] [--replicates 8]
                              [--seed 0] [--accuracy 1.0] [--overhead 0]
                              [--workers W | --dask-local N | --scheduler ADDRESS]
                              [--resume FILE] [--claims] [--quick]
                              [--format table|json|csv] [--plot out.png]
```

**The readings.** The paper leaves four choices of its set-up open; each is a named
option ([`Reading`][schedlib.experiments.preemptive.Reading]): the job sizes (`--sizes`),
the matchmaker's view of the load (`--matchmaker`), a warm-up (`--warm-up`) and what a
PUSH receiver accepts (`--push`). The reading given (by default small jobs, the global
matchmaker, a preloaded grid, PUSH when the job fits: argued on the *Reproduction:
preemptive* page) is the paper's count; `--readings` runs, besides, the readings that
differ from it in one choice each, and every claim is judged under each of them.

**The design.** The *main grid* runs every scheduler at every IAT, $\alpha$
and $\delta$ given. Three *side studies* add what the paper's other findings
need (`--side`, all four by default): `delta` runs the preemptive schedulers
again with $\delta = 2.5$ s at $\alpha = 0$; `alpha1` runs local preemption with
$\alpha = 1$ at every IAT and `alpha-above-1` with $\alpha = 1.05, 1.25, 2$ at the
largest IAT only (with $\alpha > \beta$ jobs take each other's cores at every tick: a
full-size run at a busy IAT preempts hundreds of times per job and takes minutes);
`victims` runs local preemption at $\alpha = 0$ under the other reading of the victims
([`VICTIM_READINGS`][schedlib.preemption.decision.VICTIM_READINGS]), under the default
reading only. Each configuration runs once per replicate $r = 0 \dots R-1$: the grid and
the jobs of replicate $r$ are drawn from
[`stream`][schedlib.replicates.stream]`(seed, r, "nodes")` and
`stream(seed, r, "jobs")`, and every scheduler, IAT and reading of a replicate sees the
same grid and the same jobs (gaps scaled, sizes by reading): comparisons are paired per
replicate. The runs go through [`run_grid`][schedlib.experiments.running.run_grid]
(`--workers`, `--dask-local`, `--scheduler`, `--resume`), a schedule that no study or
reading changes once (FCFS once per IAT, replicate and set-up).

**The setup** (§6.1 gives the shape, not the numbers; ours are stated here
and on the *Reproduction: preemptive* page). Resource kinds: cores, memory
(MB), disk (GB). Nodes: 1/2/4/8 cores with weights 40/30/20/10 %, memory
1-16 GB and disk 20-500 GB with weights 30/30/20/12/8 % (mostly small), speed
0.5/0.75/1/1.25/1.5 with weights 10/20/40/20/10 % (mean 1, the canonical
node). Jobs ([`JOB_SIZES`][schedlib.experiments.preemptive.JOB_SIZES]): `skewed`,
"skewed the same way", 1/2/4/8 cores with weights 40/30/20/10 %, memory 0.5-8 GB
and disk 10-250 GB with weights 30/30/20/12/8 %; `small`, one core, memory and disk
halved. Estimated runtime $U(0.5T, 1.5T)$ on the canonical node,
$T = 3600$ s; the actual runtime equals the estimate by default (the paper
gives one runtime only; `--accuracy a` draws it in $[a \cdot est, est]$). A
preloaded grid receives jobs at the same rate for 1.5 T before the measured ones
([`make_jobs`][schedlib.experiments.preemptive.make_jobs]).

**Metrics** (over the measured jobs). `wait` is a job's non-executing time from
submission to completion (turnaround minus time executing; it includes the waits after
preemptions). `node_wait` is the paper's definition (§3, §6.1): the
non-executing time after the job reached the node it finished on (time
before a migration is not counted); the claims use it. `tail10_node_wait` is the
median over the 10 % longest-waiting jobs (the paper's Figure 4a), `top4_node_wait`
and `top2_node_wait` the mean over the 4 % and 2 % longest-waiting jobs (200 and 100 of
5000: the paper's Figure 6 shows "the last 100-200 jobs"), `max_node_wait` the longest;
`load_cores`, `load_memory`, `load_disk` the offered load per resource kind
$\lambda \cdot E[R^k \cdot \text{work}] / \sum C^k \cdot \text{speed}$; `departures` the
completions (of any job) per measured arrival over the measured jobs' arrival span;
`digest` a fingerprint of the schedule (equal digests: identical schedules); and
`paper_iat` the IAT that gives the same load on the paper's 1000 nodes
($\text{IAT} \cdot n / 1000$), by which the claims name IATs.

**Rooms** (those of every reproduction, see [`schedlib.experiments`][schedlib.experiments];
none folded; `measures` is split from `findings`, which would grow beyond 700 lines):
the distributions of the nodes and jobs, a replicate's grid and jobs, the offered load,
the schedulers and the side studies are the
[`setup`][schedlib.experiments.preemptive.setup]; one run and its waits, the design, the
sweep, the means over replicates and the small grids of the victims' two readings are in
[`runs`][schedlib.experiments.preemptive.runs]; how each claim is measured per
configuration (its comparisons, paired per replicate, and one measuring function per
claim) in [`measures`][schedlib.experiments.preemptive.measures]; the claims of §6.1,
§6.2 and §7 in [`findings`][schedlib.experiments.preemptive.findings]; the page's
sections and figures in [`page`][schedlib.experiments.preemptive.page]; the command in
[`cli`][schedlib.experiments.preemptive.cli]. Every public name of the rooms is
re-exported here.

References
----------
Balasubramanian, Sussman and Sadeh (2013), "Decentralized Preemptive Scheduling across
Heterogeneous Multi-core Grid Resources", JSSPP 2013, LNCS 8429: §6.1 (setup), §6.2
(Figures 3-6, preemption counts), §7.

Examples
--------
>>> nodes = make_nodes(4, seed=1)
>>> [n.cores for n in nodes]
[1, 1, 2, 4]
>>> rows = reproduce(nodes=8, jobs=20, iats=(2.0,), alphas=(0.0,), schedulers=("fcfs", "local"),
...                  side=(), replicates=1, readings=(), workers=1)
>>> [(r["scheduler"], r["completed"], r["unschedulable"]) for r in rows]
[('FCFS+backfill', 20, 0), ('local preemptive', 20, 0)]
"""

from schedlib.experiments.preemptive.cli import add_arguments, data, main, rows
from schedlib.experiments.preemptive.findings import (
    ONE_EIGHTH,
    QUICK_DIFFERS,
    SPECS,
    claims,
    untestable,
)
from schedlib.experiments.preemptive.measures import SHORT, STEADY_DEPARTURES, Config, Index
from schedlib.experiments.preemptive.page import (
    documented_rows,
    figures,
    page_sections,
    plot,
    plot_medians,
    reading_loads,
)
from schedlib.experiments.preemptive.runs import (
    DEFAULT_NAME,
    Planned,
    Run,
    aggregate,
    design,
    reproduce,
    run_one,
    sweep,
    victim_readings_differ,
    waits,
)
from schedlib.experiments.preemptive.setup import (
    CAN,
    DEFAULT_READING,
    DEFAULT_SCHEDULERS,
    FCFS,
    JOB_CORES,
    JOB_DISK,
    JOB_MEMORY,
    JOB_SIZES,
    KINDS,
    LABELS,
    LIMITED_CHOICES,
    LOCAL,
    MATCHMAKERS,
    NAME,
    NN,
    NODE_CORES,
    NODE_DISK,
    NODE_MEMORY,
    NODE_SPEED,
    PAPER,
    PAPER_IATS,
    PAPER_NODES,
    PUSHES,
    QUANTILES,
    READING_KINDS,
    REPLICATES,
    SCHEDULERS,
    SIDE_ALPHAS,
    SIDE_DELTA,
    SIDE_STUDIES,
    SMALL_CORES,
    SMALL_DISK,
    SMALL_MEMORY,
    SUMMARY,
    TOP_SHARE,
    WARM_UP,
    WARM_UPS,
    Reading,
    T,
    choices_of,
    make_jobs,
    make_nodes,
    offered_load,
    offered_loads,
)

__all__ = [
    "CAN",
    "DEFAULT_NAME",
    "DEFAULT_READING",
    "DEFAULT_SCHEDULERS",
    "FCFS",
    "JOB_CORES",
    "JOB_DISK",
    "JOB_MEMORY",
    "JOB_SIZES",
    "KINDS",
    "LABELS",
    "LIMITED_CHOICES",
    "LOCAL",
    "MATCHMAKERS",
    "NAME",
    "NN",
    "NODE_CORES",
    "NODE_DISK",
    "NODE_MEMORY",
    "NODE_SPEED",
    "ONE_EIGHTH",
    "PAPER",
    "PAPER_IATS",
    "PAPER_NODES",
    "PUSHES",
    "QUANTILES",
    "QUICK_DIFFERS",
    "READING_KINDS",
    "REPLICATES",
    "SCHEDULERS",
    "SHORT",
    "SIDE_ALPHAS",
    "SIDE_DELTA",
    "SIDE_STUDIES",
    "SMALL_CORES",
    "SMALL_DISK",
    "SMALL_MEMORY",
    "SPECS",
    "STEADY_DEPARTURES",
    "SUMMARY",
    "TOP_SHARE",
    "WARM_UP",
    "WARM_UPS",
    "Config",
    "Index",
    "Planned",
    "Reading",
    "Run",
    "T",
    "add_arguments",
    "aggregate",
    "choices_of",
    "claims",
    "data",
    "design",
    "documented_rows",
    "figures",
    "main",
    "make_jobs",
    "make_nodes",
    "offered_load",
    "offered_loads",
    "page_sections",
    "plot",
    "plot_medians",
    "reading_loads",
    "reproduce",
    "rows",
    "run_one",
    "sweep",
    "untestable",
    "victim_readings_differ",
    "waits",
]
